#!/usr/bin/env python3
"""The output hop through a pane's log on its own, against `cat` into a FIFO.

A pipe stands for tmux's `pipe-pane`. One side: the pipe into `termplane record-pane LOG
TIMING` (the plane's recorder), the log watched with inotify and read at its end, as the
plane's tail does. Other side: the pipe into `cat > FIFO`, the FIFO read, as termbench's
"tmux alone" does. Each sample writes one byte into the pipe and waits until it can be read at
the far end; 3,000 samples at a 2 ms gap after 100 of warm-up, per round.

    python3 benches/termbench/recorder_hop.py target/release/termplane [ROUNDS]
"""
import ctypes
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time

LIBC = ctypes.CDLL("libc.so.6", use_errno=True)
IN_MODIFY = 0x2


def run(binary, mode, samples=3000, warmup=100, gap=0.002):
    d = tempfile.mkdtemp(prefix="recorder-hop-")
    r, w = os.pipe()
    if mode == "recorder":
        log = os.path.join(d, "pane.log")
        open(log, "wb").close()
        proc = subprocess.Popen([binary, "record-pane", log, log + ".timing"], stdin=r)
        watch = LIBC.inotify_init1(os.O_NONBLOCK)
        LIBC.inotify_add_watch(watch, log.encode(), IN_MODIFY)
        logfd = os.open(log, os.O_RDONLY)
        time.sleep(0.3)  # the recorder's start record
        try:
            os.read(watch, 4096)
        except BlockingIOError:
            pass
        pos = os.fstat(logfd).st_size

        def wait():
            nonlocal pos
            while True:
                select.select([watch], [], [])
                try:
                    os.read(watch, 4096)
                except BlockingIOError:
                    pass
                got = os.pread(logfd, 4096, pos)
                if got:
                    pos += len(got)
                    return
    else:
        fifo = os.path.join(d, "out")
        os.mkfifo(fifo)
        proc = subprocess.Popen(["sh", "-c", f"exec cat > {fifo}"], stdin=r)
        out = os.open(fifo, os.O_RDONLY)

        def wait():
            select.select([out], [], [])
            os.read(out, 4096)
    os.close(r)
    lat = []
    for i in range(samples + warmup):
        t = time.perf_counter()
        os.write(w, b"k")
        wait()
        if i >= warmup:
            lat.append((time.perf_counter() - t) * 1e6)
        time.sleep(gap)
    os.close(w)
    proc.wait(timeout=10)
    lat.sort()
    return statistics.median(lat), lat[int(len(lat) * 0.99)]


def main():
    binary = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    for rnd in range(1, rounds + 1):
        for mode in ("cat", "recorder"):
            p50, p99 = run(binary, mode)
            print(f"round {rnd} {mode}: p50 {p50:.1f} us, p99 {p99:.1f} us", flush=True)


if __name__ == "__main__":
    main()
