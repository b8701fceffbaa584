#!/usr/bin/env python3
"""Summarises the keystroke probe's timestamps (see keystroke-probe.patch).

The probed build appends `<ns> <point>` (wall clock, shared by the plane and the node daemon
on one machine) to $TERMPLANE_LAT_FILE at each point a
keystroke passes on its way from the terminal socket to tmux and back. This prints, for each
point, the median time since the keystroke's frame arrived (`ws_in`), skipping the warm-up.

    python3 benches/termbench/probe_summary.py /tmp/lat.txt [--skip 100]
"""
import argparse
import statistics

# Local pane: ws_in … submit (the local node's queue) … runner … route … sock_sent.
# Remote pane: ws_in … p_dispatch (the plane's link task) … p_signed … p_sent, then at the node
# n_in … n_verified … n_exec … runner … ctl_send … tail_read … n_event … n_send, then at the
# plane p_in … p_opened … route … sock_sent. Points a path does not pass are left out.
ORDER = ["ws_in", "typist", "submit", "p_dispatch", "p_signed", "p_sent", "n_in", "n_verified",
         "n_exec", "runner", "ctl_send", "tail_wake", "tail_read", "n_event", "n_send", "p_in",
         "p_opened", "route", "sock_q", "sock_sent", "ctl_done", "typed"]


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file")
    p.add_argument("--skip", type=int, default=100, help="keystrokes of warm-up to leave out")
    a = p.parse_args()
    keystrokes, cur = [], None
    with open(a.file) as f:
        rows = [line.split() for line in f]
        rows = sorted((r for r in rows if len(r) == 2 and r[0].isdigit()), key=lambda r: int(r[0]))
        for ns, point in rows:
            if point == "ws_in":
                cur = {}
                keystrokes.append(cur)
            if cur is not None:
                cur.setdefault(point, int(ns))
    keystrokes = keystrokes[a.skip:]
    for point in ORDER:
        since = [(k[point] - k["ws_in"]) / 1000 for k in keystrokes if point in k]
        if since:
            print(f"{point:10s} {len(since):5d} keystrokes  median {statistics.median(since):7.1f} µs")


if __name__ == "__main__":
    main()
