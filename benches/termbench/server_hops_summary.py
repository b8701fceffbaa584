#!/usr/bin/env python3
"""Reads the 1 µs histograms `server_hops.sh` has bpftrace print (@in, @out, and @in_handoff,
@out_handoff for the wake-ups another thread took first; with STEPS=1, the steps of the way in
as well) and prints one JSON line: the count, median and p90 of each in microseconds (a bucket
[a, a+1) counts as a + 0.5; the last, [100, ...), as 100). One of the four sides that bpftrace
did not print (nothing fell in it) counts 0.

    bpftrace ... | python3 server_hops_summary.py SERVER RUN
"""
import json
import re
import sys

BUCKET = re.compile(r"^\[(\d+)(?:, \d+\)|, \.\.\.\))\s+(\d+)")


def quantile(counts, q):
    total = sum(n for _, n in counts)
    seen = 0
    for at, n in counts:
        seen += n
        if seen >= q * total:
            return at
    return None


def main():
    server, run = sys.argv[1], int(sys.argv[2])
    hists, name = {}, None
    for line in sys.stdin:
        line = line.strip()
        if line.startswith("@"):
            name = line.split(":")[0].lstrip("@")
            hists[name] = []
            continue
        m = BUCKET.match(line)
        if m and name:
            low = int(m.group(1))
            hists[name].append((low + (0.5 if "..." not in line else 0), int(m.group(2))))
    out = {"server": server, "run": run}
    sides = ["in", "out", "in_handoff", "out_handoff"]
    sides += [h for h in hists if h not in sides]
    for side in sides:
        counts = hists.get(side, [])
        out[side] = {
            "n": sum(n for _, n in counts),
            "p50_us": quantile(counts, 0.5),
            "p90_us": quantile(counts, 0.9),
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
