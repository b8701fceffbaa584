#!/usr/bin/env python3
"""HTTP/1.1 keep-alive GETs against one address: CONNS connections (threads), each sending
REQUESTS requests one after another and reading each answer (by its Content-Length) before the
next. Prints the total count, the wall time and per-request latency percentiles (ms) as JSON.

    keepalive.py HOST PORT PATH REQUESTS CONNS
"""
import json
import socket
import sys
import threading
import time


def run(host, port, path, n, out):
    s = socket.create_connection((host, port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    req = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    buf = b""
    for _ in range(n):
        t0 = time.perf_counter()
        s.sendall(req)
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                raise SystemExit("the server closed a keep-alive connection")
            buf += chunk
        head, _, rest = buf.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise SystemExit(f"not a 200: {head[:40]!r}")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v)
        while len(rest) < length:
            chunk = s.recv(65536)
            if not chunk:
                raise SystemExit("the server closed mid-body")
            rest += chunk
        buf = rest[length:]
        out.append(time.perf_counter() - t0)
    s.close()


def main():
    host, port, path, n, conns = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    results = [[] for _ in range(conns)]
    threads = [threading.Thread(target=run, args=(host, port, path, n, results[i])) for i in range(conns)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    lat = sorted(x for r in results for x in r)
    if len(lat) != n * conns:
        raise SystemExit("some connections did not finish")
    pick = lambda q: round(lat[min(len(lat) - 1, int(q * len(lat)))] * 1000, 3)
    print(json.dumps({"requests": len(lat), "wall_s": round(wall, 3), "rps": round(len(lat) / wall, 1),
                      "p50_ms": pick(0.5), "p99_ms": pick(0.99)}))


main()
