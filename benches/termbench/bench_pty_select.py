#!/usr/bin/env python3
"""The pty floor timed by a blocking `select` loop, as `bench_tmux.py` times tmux.

termbench's `bench_pty.py` forks bash on a pty and times each keystroke's echo through its
asyncio `latency_phase`; `bench_tmux.py` times tmux through a blocking `select` loop. This runs
the pty floor through a loop like `bench_tmux.py`'s (write the byte, `select` on the fd, read,
until the byte is back; `time.sleep` for the gap), with the pane in the same `stty raw -echo;
dd bs=1` echo as every peer. Its difference from `bench_pty.py` is what the asyncio loop costs
per keystroke, which is in every WebSocket peer's figure and in `bench_pty.py`'s, and in
neither of `bench_tmux.py`'s rows. Prints one JSON line, like every termbench script.

    TERMBENCH_DIR=/path/to/termbench python3 benches/termbench/bench_pty_select.py --samples 1000
"""
import argparse
import os
import pty
import select
import signal
import sys
import time

TB = os.environ.get("TERMBENCH_DIR")
if not TB or not os.path.exists(os.path.join(TB, "tbcommon.py")):
    sys.exit("set TERMBENCH_DIR to a termbench checkout (the folder holding tbcommon.py)")
sys.path.insert(0, TB)
import tbcommon as tb  # noqa: E402


def read_until(fd, token, limit_s=5.0):
    """Reads until `token` is among the bytes read; the bytes after it."""
    got = b""
    deadline = time.monotonic() + limit_s
    while token not in got:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{token!r} not seen")
        r, _, _ = select.select([fd], [], [], 1.0)
        if r:
            got += os.read(fd, 65536)
    return got[got.index(token) + len(token):]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tb.common_args(p)
    args = p.parse_args()
    t_start = time.monotonic()
    res = {"peer": "pty-select", "frame_format": "none: os.read/os.write on the pty master fd, "
                                                "blocking select loop"}
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvpe("bash", ["bash", "--norc", "--noprofile"], tb.shell_env())
        finally:
            os._exit(127)
    try:
        n = args.samples + args.warmup
        os.write(fd, tb.latency_cmd(n).encode())
        rest = read_until(fd, b"READY", 20)
        vals = []
        for i in range(n):
            c = tb.LAT_CHARS[i % len(tb.LAT_CHARS)].encode()
            t0 = time.perf_counter_ns()
            os.write(fd, c)
            while c not in rest:
                r, _, _ = select.select([fd], [], [], 5.0)
                if not r:
                    raise TimeoutError(f"echo of {c!r} not seen")
                rest += os.read(fd, 65536)
            t1 = time.perf_counter_ns()
            rest = rest[rest.index(c) + 1:]
            if i >= args.warmup:
                vals.append((t1 - t0) / 1e6)
            if args.gap_ms:
                time.sleep(args.gap_ms / 1000)
        read_until(fd, b"LATDONE", 10)
        res["latency_ms"] = tb.summarize_ms(vals)
        res["latency_ms"].update(warmup=args.warmup, gap_ms=args.gap_ms)
    except Exception as e:  # the result line says what failed
        res.update(tb.error_result("pty-select", e))
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)
    res["wall_s"] = round(time.monotonic() - t_start, 2)
    res["host"] = tb.host_info()
    tb.emit(res)


if __name__ == "__main__":
    main()
