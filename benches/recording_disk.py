#!/usr/bin/env python3
"""What a pane's recording costs on disk: the recorder (`termplane record-pane LOG TIMING`, as tmux's
`pipe-pane` runs it for every pane) fed by a writer that prints like a pane does, at a few paces,
for a while each; prints one line per pace with the log's and the timing file's bytes, and both
per hour.

    python3 benches/recording_disk.py [--bin target/release/termplane] [--seconds 20] [--keep-mib N]

The paces: an idle pane (nothing printed), an agent at work (a 200-byte repaint every 100 ms: a
spinner, a status line), a busy agent (a 2 KiB burst every 20 ms: streamed text and redraws), and
a flood (64 KiB writes without pause, as `yes` or a build log). The timing file's cost is one
16-byte record per 10 ms of output at most, whatever the pace; the log's is what the pane
prints, kept before recordings existed.
"""

import argparse
import os
import subprocess
import tempfile
import time

PACES = [
    ("idle", 0, None),
    ("agent at work (200 B / 100 ms)", 200, 0.100),
    ("busy agent (2 KiB / 20 ms)", 2048, 0.020),
    ("flood (64 KiB writes, no pause)", 65536, 0.0),
]


def run(binary, seconds, size, every, tmp, name, keep_mib):
    log = os.path.join(tmp, f"{name}.log")
    timing = os.path.join(tmp, f"{name}.timing")
    keep = ["--keep", str(keep_mib * 2**20)] if keep_mib else []
    p = subprocess.Popen([binary, "record-pane", *keep, log, timing], stdin=subprocess.PIPE)
    chunk = (b"x" * (size - 1) + b"\n") if size else b""
    end = time.monotonic() + seconds
    written = 0
    while time.monotonic() < end:
        if size:
            p.stdin.write(chunk)
            p.stdin.flush()
            written += size
        if every is None:
            time.sleep(min(1.0, max(0.0, end - time.monotonic())))
        elif every > 0:
            time.sleep(every)
        # A flood caps itself at about 50 MiB/s so the disk is not what is measured.
        elif written >= (seconds - (end - time.monotonic())) * 50 * 2**20:
            time.sleep(0.001)
    p.stdin.close()
    assert p.wait(timeout=30) == 0
    log_bytes = os.path.getsize(log)
    # What the log takes on disk: less than its length once its start was dropped at its cap.
    log_disk = os.stat(log).st_blocks * 512
    timing_bytes = os.path.getsize(timing)
    return log_bytes, log_disk, timing_bytes


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(here, "..", "target", "release", "termplane"))
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--keep-mib", type=int, default=0,
                    help="the recorder's cap on the log (default: its own, 256 MiB)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="recording-disk-") as tmp:
        print(f"| pace | log bytes in {args.seconds:g} s | log on disk | timing bytes | log per hour | "
              "timing per hour | records per second |")
        print("|---|---|---|---|---|---|---|")
        for i, (name, size, every) in enumerate(PACES):
            log_b, disk_b, tim_b = run(args.bin, args.seconds, size, every, tmp, f"p{i}", args.keep_mib)
            per_hour = 3600 / args.seconds
            # The start record is written once per incarnation, not per hour.
            records = max(0, tim_b // 16 - 1)
            print(f"| {name} | {log_b:,} | {disk_b:,} | {tim_b:,} | {log_b * per_hour / 2**20:,.1f} MiB | "
                  f"{(tim_b - 16) * per_hour / 2**20:,.2f} MiB | {records / args.seconds:,.1f} |")


if __name__ == "__main__":
    main()
