#!/usr/bin/env python3
"""Many viewers on one termplane pane: memory per attached viewer, bulk output to ten viewers of
which one reads slowly, and keepalives during bulk output.

    TERMBENCH_DIR=/path/to/termbench python3 benches/termbench/bench_viewers.py --node local

Phases (each bounded in count and time):
1. idle: the plane's RSS with the pane and no viewer, then with 100 attached viewers.
2. fan-out: the pane prints MIB MiB of base64; ten viewers read it. Run twice: all ten fast,
   then nine fast and one that reads 64 KiB every 100 ms. For each run: how long the fast
   viewers took to see the end marker (median and slowest), what the slow one got (resyncs,
   close code), and the RTT of pings one fast viewer sends every 50 ms during the output.
Prints one JSON line.
"""
import argparse
import asyncio
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_termplane as bt  # noqa: E402  (also puts termbench's tbcommon on the path)
import tbcommon as tb  # noqa: E402
import websockets.exceptions  # noqa: E402

END = "__TB_END__"


async def open_viewer(port, key, sid, max_queue=16):
    from websockets.asyncio.client import connect
    url = bt.TermplaneProto(key, sid).url(port)
    ws = await connect(url, max_size=None, max_queue=max_queue, ping_interval=None,
                       open_timeout=15, close_timeout=2)
    # `attached`, then the replay.
    seen = False
    async with asyncio.timeout(15):
        while True:
            m = await ws.recv()
            if isinstance(m, str):
                seen = seen or json.loads(m).get("type") == "attached"
            elif seen:
                return ws


async def fast_reader(ws, t0, pings=None):
    """Reads as fast as it can until the end marker; answers (seconds to the marker, bytes,
    fresh replays it was sent, close code or None). A viewer the plane closes (4408: it fell
    behind too often) ends with its close code and no time."""
    tail = b""
    n = 0
    resyncs = 0
    async with asyncio.timeout(120):
        while True:
            try:
                m = await ws.recv()
            except websockets.exceptions.ConnectionClosed as e:
                code = e.rcvd.code if e.rcvd is not None else None
                return None, n, resyncs, code
            if isinstance(m, str):
                f = json.loads(m)
                if f.get("type") == "pong" and pings is not None and pings["sent"]:
                    pings["rtt"].append((time.perf_counter() - pings["sent"].pop(0)) * 1000)
                elif f.get("type") == "resync":
                    resyncs += 1
                continue
            n += len(m)
            tail = (tail + m)[-4096:]
            if END.encode() in tail:
                return time.perf_counter() - t0, n, resyncs, None


async def pinger(ws, pings, stop):
    while not stop.is_set():
        pings["sent"].append(time.perf_counter())
        await ws.send(json.dumps({"type": "ping"}))
        await asyncio.sleep(0.05)


async def slow_reader(ws, stop):
    """Reads 64 KiB every 100 ms until `stop` and, after it, until its first resync (at most
    15 s more); counts resyncs, notes the close and when the marker arrived."""
    got = {"bytes": 0, "resyncs": 0, "close": None, "saw_end": False}
    t0 = time.perf_counter()
    tail = b""
    try:
        while not (stop.is_set() and (got["resyncs"] > 0 or time.perf_counter() - t0 > 30)):
            budget = 64 * 1024
            while budget > 0:
                m = await asyncio.wait_for(ws.recv(), 5)
                if isinstance(m, str):
                    if json.loads(m).get("type") == "resync":
                        got["resyncs"] += 1
                        got["resync_at_s"] = round(time.perf_counter() - t0, 2)
                else:
                    got["bytes"] += len(m)
                    budget -= len(m)
                    tail = (tail + m)[-4096:]
                    got["saw_end"] = got["saw_end"] or END.encode() in tail
            await asyncio.sleep(0.1)
    except Exception as e:  # the plane closed it, or the run ended
        code = getattr(getattr(e, "rcvd", None), "code", None)
        got["close"] = code if code is not None else type(e).__name__
    return got


async def fan_out(port, key, sid, mib, slow):
    viewers = [await open_viewer(port, key, sid) for _ in range(10 - (1 if slow else 0))]
    slow_ws = await open_viewer(port, key, sid, max_queue=1) if slow else None
    await asyncio.sleep(0.5)
    stop = asyncio.Event()
    pings = {"sent": [], "rtt": []}
    t0 = time.perf_counter()
    await viewers[0].send(tb.throughput_cmd(mib, "urandom").encode())
    slow_task = asyncio.create_task(slow_reader(slow_ws, stop)) if slow else None
    ping_task = asyncio.create_task(pinger(viewers[1], pings, stop))
    results = await asyncio.gather(*(fast_reader(v, t0, pings if i == 1 else None)
                                     for i, v in enumerate(viewers)))
    stop.set()
    await ping_task
    slow_got = await slow_task if slow_task else None
    for v in viewers + ([slow_ws] if slow_ws else []):
        try:
            await asyncio.wait_for(v.close(), 3)
        except Exception:
            pass
    done = [r for r in results if r[0] is not None]
    secs = sorted(r[0] for r in done)
    rtt = sorted(pings["rtt"])
    return {
        "fast_viewers": len(viewers),
        "fast_s_median": round(secs[len(secs) // 2], 3) if secs else None,
        "fast_s_slowest": round(secs[-1], 3) if secs else None,
        "fast_mib_per_s_median": (round(done[0][1] / 1048576 / secs[len(secs) // 2], 2)
                                  if secs else None),
        # Fresh replays the fast viewers were sent (each one fell that far behind the pane:
        # the client, one Python thread reading ten sockets, is then the slowest part), and
        # the close codes of those the plane dropped for falling behind too often.
        "fast_resyncs": sum(r[2] for r in results),
        "fast_closed": [r[3] for r in results if r[3] is not None],
        "ping_rtt_ms": tb.summarize_ms(rtt) if rtt else None,
        "slow_viewer": slow_got,
    }


async def idle_viewers(port, key, sid, server, n):
    before = server.mem().get("rss")
    views = []
    for _ in range(n):
        views.append(await open_viewer(port, key, sid))
    await asyncio.sleep(1.0)
    after = server.mem().get("rss")
    for v in views:
        try:
            await asyncio.wait_for(v.close(), 3)
        except Exception:
            pass
    return {"viewers": n, "plane_rss_kib_before": before, "plane_rss_kib_after": after,
            "kib_per_viewer": round((after - before) / n, 1)}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--node", choices=["local", "remote"], default="local")
    p.add_argument("--bin-dir", default=os.path.join(bt.ROOT, "target", "release"))
    p.add_argument("--mib", type=int, default=50)
    p.add_argument("--idle-viewers", type=int, default=100)
    args = p.parse_args()
    tb.ensure_env(("websockets",))
    tmp = tempfile.mkdtemp(prefix="termbench-viewers-")
    plane = node = None
    res = {"peer": f"termplane-{args.node}", "bench": "viewers", "host": tb.host_info()}
    try:
        plane, node, port, key, sid = bt.start(args, tmp)
        res["idle"] = asyncio.run(idle_viewers(port, key, sid, plane, args.idle_viewers))
        res["ten_fast"] = asyncio.run(fan_out(port, key, sid, args.mib, slow=False))
        res["nine_fast_one_slow"] = asyncio.run(fan_out(port, key, sid, args.mib, slow=True))
        res["plane_peak_rss_kib"] = plane.mem().get("hwm")
    except Exception as e:
        res = tb.error_result(f"termplane-{args.node}", e, plane)
    finally:
        if node is not None:
            node.stop()
        if plane is not None:
            plane.stop()
        bt.kill_tmux_servers(tmp)
    tb.emit(res)


if __name__ == "__main__":
    main()
