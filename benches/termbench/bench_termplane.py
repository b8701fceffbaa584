#!/usr/bin/env python3
"""termplane beside the termbench peers (ttyd, terminado, tmux, the pty floor).

Starts a release `termplane serve` on loopback with a fresh data directory, creates the first
account and a system key, launches a shell pane on the plane's own host (`--node local`) or on an
enrolled `termplane-node` started here (`--node remote`), and drives the pane's terminal
WebSocket through termbench's procedures: keystroke-echo latency, then throughput to one viewer.
Every connection mints its own attach token (`POST /api/auth/ws-token`, as a browser would).
Prints one JSON line, like every termbench script.

    TERMBENCH_DIR=/path/to/termbench python3 benches/termbench/bench_termplane.py \
        --node local --samples 1000

With `--node cluster --cluster-db postgres://…/EMPTY_DB` two replicas run on that database
(`--cluster on`, the second with copies of the first's key files), the node daemon links to the
first, and the terminal is attached at the replica `--attach` names: `holder` (the first: as
`--node remote`, on a cluster) or `other` (the second: every keystroke and its echo cross
between the replicas). The difference of the two is what forwarding adds to a keystroke.

Needs the release binaries (`cargo build --release -p termplane -p termplane-node`) and a
termbench checkout (its `tbcommon.py`) at $TERMBENCH_DIR.
"""
import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
TB = os.environ.get("TERMBENCH_DIR")
if not TB or not os.path.exists(os.path.join(TB, "tbcommon.py")):
    sys.exit("set TERMBENCH_DIR to a termbench checkout (the folder holding tbcommon.py)")
sys.path.insert(0, TB)
import tbcommon as tb  # noqa: E402


def api(port, method, path, body=None, cookie=None, bearer=None):
    """One JSON request to the plane; (status, parsed body, headers)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    req.add_header("Content-Type", "application/json")
    req.add_header("Origin", f"http://127.0.0.1:{port}")
    if cookie:
        req.add_header("Cookie", cookie)
    if bearer:
        req.add_header("Authorization", f"Bearer {bearer}")
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            raw = r.read()
            return r.status, (json.loads(raw) if raw else None), r.headers
    except urllib.error.HTTPError as e:
        raw = e.read()
        return e.code, (json.loads(raw) if raw else None), e.headers


def until(what, f, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = f()
        if v:
            return v
        time.sleep(0.05)
    raise TimeoutError(f"timed out waiting for {what}")


class TermplaneProto(tb.Proto):
    """termplane's terminal WebSocket (its frames are on the plane's /docs/terminal page)."""
    name = "termplane"
    text = False
    frame_format = ("mint a 30 s single-use token (POST /api/auth/ws-token), then "
                    "GET /api/subshells/{id}/attach?token=…&cols=80&rows=24. server->client: text "
                    "JSON control frames (attached, size, presence, resync, pong, error, exit), "
                    "binary frames of terminal bytes (first the replay, then live output). "
                    "client->server: binary frames of keystrokes (UTF-8) or JSON text frames "
                    "(input, resize, ping). No permessage-deflate. Per-viewer queue bounded at "
                    "1 MiB: a viewer that falls behind gets a fresh replay, never stalls the pane.")

    def __init__(self, key, subshell):
        self.key = key
        self.subshell = subshell

    def url(self, port):
        status, body, _ = api(port, "POST", "/api/auth/ws-token",
                              {"subshellId": self.subshell}, bearer=self.key)
        if status != 201:
            raise RuntimeError(f"ws-token: {status} {body}")
        return (f"ws://127.0.0.1:{port}/api/subshells/{self.subshell}/attach"
                f"?token={body['token']}&cols=80&rows=24")

    async def handshake(self, term):
        # `attached`, then the replay (one binary frame): the screen so far, not new output.
        seen_attached = False
        # The plane writes `attached` and the replay right after its 101, often in the same TCP
        # segment; termbench's lean client keeps those bytes but parses only after its next
        # read, which never comes while the pane is quiet. Parse what it already holds.
        if hasattr(term, "_parse"):
            await term._parse()
        async with asyncio.timeout(15):
            while True:
                m = await term.ws.recv()
                if isinstance(m, str):
                    if json.loads(m).get("type") == "attached":
                        seen_attached = True
                elif seen_attached:
                    return

    def enc_input(self, s):
        return s.encode()

    async def on_msg(self, term, msg):
        if isinstance(msg, str):
            if json.loads(msg).get("type") == "exit":
                raise EOFError("termplane: the pane exited")
            return None
        return bytes(msg)


def kill_tmux_servers(tmp):
    """Ends the tmux servers the run started under `tmp`: panes outlive the plane and the node
    daemon by design, and a pane still printing would weigh on every later run."""
    import shutil
    for root, _dirs, files in os.walk(tmp):
        if "tmux.sock" in files:
            subprocess.run(["tmux", "-S", os.path.join(root, "tmux.sock"), "kill-server"],
                           capture_output=True, timeout=10)
    shutil.rmtree(tmp, ignore_errors=True)


KEY_FILES = ("link.key", "signing.key", "channels.key", "vapid.key")


def serve(args, env, data_dir, port):
    """A `termplane serve` on `port` (a replica of the cluster on --cluster-db, with
    --node cluster), listening."""
    argv = [os.path.join(args.bin_dir, "termplane"), "serve", "--data-dir", data_dir,
            "--listen", f"127.0.0.1:{port}"]
    if args.node == "cluster":
        argv += ["--cluster", "on", "--no-local-node", "--database-url", args.cluster_db,
                 "--cluster-address", f"http://127.0.0.1:{port}"]
    plane = tb.Server(argv, env=env, name="termplane")
    tb.wait_port(port, proc=plane.proc)
    # (a replica listens before it has made or checked its key files)
    until("the plane ready", lambda: api(port, "GET", "/readyz")[0] == 200)
    return plane


def start(args, tmp, others):
    """The plane (and the node, for --node remote or cluster; the second replica, appended to
    `others`, for cluster), set up; (the Server attached to, node Server|None, its port, key,
    subshell id)."""
    port = tb.free_port()
    home = os.path.join(tmp, "home")
    os.makedirs(home, exist_ok=True)
    env = tb.shell_env()
    env["HOME"] = home
    env["RUST_LOG"] = "warn"
    env["TERMPLANE_SCREEN_SIGNAL"] = args.screen_signal
    env["TERMPLANE_RECORDING"] = args.recording
    plane = serve(args, env, os.path.join(tmp, "plane"), port)
    others.append(plane)
    node = None
    email, password = "bench@example.test", "correct horse battery staple"
    st, body, _ = api(port, "POST", "/api/setup", {"email": email, "displayName": "Bench",
                                                  "password": password})
    assert st == 201, (st, body)
    st, body, headers = api(port, "POST", "/api/auth/sign-in",
                            {"email": email, "password": password})
    assert st == 200, (st, body)
    cookie = headers["Set-Cookie"].split(";")[0]
    st, body, _ = api(port, "POST", "/api/system-keys", {"name": "bench"}, cookie=cookie)
    assert st == 201, (st, body)
    key = body["key"]
    if args.node == "local":
        st, nodes, _ = api(port, "GET", "/api/nodes", bearer=key)
        node_id = next(n["nodeId"] for n in nodes if n["isLocal"])
    else:
        st, body, _ = api(port, "POST", "/api/setup-keys", None, cookie=cookie)
        assert st == 201, (st, body)
        cfg = os.path.join(tmp, "node.json")
        node_bin = os.path.join(args.bin_dir, "termplane-node")
        subprocess.run([node_bin, "enroll", "--server", f"http://127.0.0.1:{port}",
                        "--setup-key", body["key"], "--name", "bench", "--config", cfg],
                       env=env, check=True, capture_output=True, timeout=60)
        with open(cfg) as f:
            node_id = json.load(f)["nodeId"]
        node = tb.Server([node_bin, "run", "--config", cfg], env=env, name="termplane-node")
        until("the node online", lambda: api(port, "GET", f"/api/nodes/{node_id}",
                                             cookie=cookie)[1].get("liveness") == "online")
        st, body, _ = api(port, "PUT", f"/api/nodes/{node_id}/system-access",
                          {"allowed": True}, cookie=cookie)
        assert st == 200, (st, body)
    work = os.path.join(tmp, "work")
    os.makedirs(work, exist_ok=True)
    st, body, _ = api(port, "POST", "/api/subshells",
                      {"nodeId": node_id, "harnessId": "shell", "cwd": work}, bearer=key)
    assert st == 201, (st, body)
    sid = body["id"]
    until("the pane running", lambda: api(port, "GET", f"/api/subshells/{sid}",
                                          bearer=key)[1].get("state") == "running")
    if args.node == "cluster":
        import shutil
        data_b = os.path.join(tmp, "plane-b")
        os.makedirs(data_b, mode=0o700)
        for f in KEY_FILES:
            shutil.copy(os.path.join(tmp, "plane", f), os.path.join(data_b, f))
        port_b = tb.free_port()
        plane_b = serve(args, env, data_b, port_b)
        others.append(plane_b)
        if args.attach == "other":
            return plane_b, node, port_b, key, sid
    return plane, node, port, key, sid


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--node", choices=["local", "remote", "cluster"], default="local",
                   help="the pane on the plane's own host, on an enrolled node daemon, or on a "
                        "node daemon linked to the first of two replicas (--cluster-db)")
    p.add_argument("--cluster-db", help="an empty PostgreSQL database, for --node cluster")
    p.add_argument("--attach", choices=["holder", "other"], default="other",
                   help="--node cluster: attach at the replica holding the node's link, or at "
                        "the other one")
    p.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"))
    p.add_argument("--screen-signal", choices=["on", "off"], default="on",
                   help="the plane's screen signal (the node's activity events and screen reads)")
    p.add_argument("--recording", choices=["on", "off"], default="on",
                   help="the plane's recording of panes (the node's recorder in place of cat)")
    tb.common_args(p)
    args = p.parse_args()
    tb.ensure_env(("websockets",))
    if args.node == "cluster" and not args.cluster_db:
        p.error("--node cluster needs --cluster-db")
    tmp = tempfile.mkdtemp(prefix="termbench-termplane-")
    plane = node = None
    servers = []
    try:
        plane, node, port, key, sid = start(args, tmp, servers)
        version = subprocess.run([os.path.join(args.bin_dir, "termplane"), "--version"],
                                 capture_output=True, text=True).stdout.strip()
        where = args.node + (f"-at-{args.attach}" if args.node == "cluster" else "")
        peer = (f"termplane-{where}" + ("" if args.screen_signal == "on" else "-no-screen-signal")
                + ("" if args.recording == "on" else "-no-recording"))
        extra = {"peer": peer, "version": version, "screen_signal": args.screen_signal,
                 "recording": args.recording,
                 "server_cmd": f"termplane serve; shell pane on the {where} node"}
        proto = TermplaneProto(key, sid)
        proto.name = peer
        res = asyncio.run(tb.run_ws_bench(proto, port, plane, args, extra))
        if node is not None:
            res["node_rss_kib"] = node.mem()
            res["node_pid_cpu_s_total"] = node.cpu_s()
    except Exception as e:  # the result line says what failed
        res = tb.error_result(f"termplane-{args.node}", e, plane)
    finally:
        if node is not None:
            node.stop()
        for s in reversed(servers):
            s.stop()
        kill_tmux_servers(tmp)
    tb.emit(res)


if __name__ == "__main__":
    main()
