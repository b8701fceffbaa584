#!/usr/bin/env python3
"""tmux alone, measured by the same client loop as the WebSocket peers and the pty floor.

termbench's `bench_tmux.py` times its control-mode row ("`send-keys` on a `tmux -C` client →
the echo seen through `pipe-pane`") with a blocking `select` loop, while `bench_pty.py`,
`bench_ttyd.py` and `bench_termplane.py` time theirs with termbench's asyncio `latency_phase`.
The two loops cost the client different amounts per keystroke, so "termplane minus tmux alone"
holds that difference as well as the plane's own work. This script runs tmux as
`bench_tmux.py`'s control row does — a private server (`-f /dev/null`), one persistent
`tmux -C attach` client taking `send-keys -t %N -l c` lines, the echo read from
`pipe-pane -O 'exec cat > FIFO'` — but through `latency_phase` (the pane is a bash shell, put
into `stty raw -echo; dd bs=1` by the phase itself, as for every other peer), so that each
difference is between two measures taken by one client loop.

The set-up line is typed with `send-keys -H` (its bytes in hex); each keystroke of the phase is
one `send-keys -t %N -l c` line, as in `bench_tmux.py`. The control client's own output (tmux's
answer to each `send-keys`, and the pane's `%output`, as in `bench_tmux.py`) goes to
`/dev/null`: tmux and its client do all the work they do there, and this process waits for the
echo only, as it does for every WebSocket peer (the plane reads tmux's answers itself, and that
work is counted in its figure).
Prints one JSON line, like every termbench script.

    TERMBENCH_DIR=/path/to/termbench python3 benches/termbench/bench_tmux_async.py --samples 1000
"""
import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time

TB = os.environ.get("TERMBENCH_DIR")
if not TB or not os.path.exists(os.path.join(TB, "tbcommon.py")):
    sys.exit("set TERMBENCH_DIR to a termbench checkout (the folder holding tbcommon.py)")
sys.path.insert(0, TB)
import tbcommon as tb  # noqa: E402

SHELL = "env PS1='$ ' bash --norc --noprofile"


class TmuxTerm:
    """One pane of a private tmux server with termbench's terminal interface: keys in through a
    control client's `send-keys`, output read from the pane's `pipe-pane` FIFO."""

    class proto:
        name = "tmux-async"
        text = False
        frame_format = ("control mode (tmux -C attach): `send-keys -t %N -l c` per keystroke "
                        "(`-H` hex for the set-up line); output through pipe-pane -O into a FIFO")

    def __init__(self, tmpdir):
        self.bin = shutil.which("tmux")
        if not self.bin:
            raise RuntimeError("tmux not installed (apt-get install -y tmux)")
        self.env = tb.shell_env()
        self.env["TERM"] = "xterm-256color"
        self.base = [self.bin, "-L", f"termbench-async-{os.getpid()}", "-f", "/dev/null"]
        self.version = subprocess.run([self.bin, "-V"], capture_output=True, text=True,
                                      timeout=10).stdout.strip()
        self.run("new-session", "-d", "-s", "tb", "-x", "80", "-y", "24", SHELL)
        self.pid = int(self.run("display-message", "-p", "-t", "tb", "#{pid}"))
        self.pane = self.run("display-message", "-p", "-t", "tb", "#{pane_id}")
        self.fifo = os.path.join(tmpdir, "pane.fifo")
        os.mkfifo(self.fifo)
        self.fd = os.open(self.fifo, os.O_RDWR | os.O_NONBLOCK)
        self.run("pipe-pane", "-O", "-t", self.pane, f"exec cat > {self.fifo}")
        self.ctl = subprocess.Popen(self.base + ["-C", "attach-session", "-t", "tb"],
                                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, env=self.env, bufsize=0)
        self.ctl_in = self.ctl.stdin.fileno()
        self.buf = b""
        self.extensions = None

    def run(self, *args):
        r = subprocess.run(self.base + list(args), capture_output=True, text=True, env=self.env, timeout=10)
        if r.returncode != 0:
            raise RuntimeError(f"tmux {args}: {r.stderr.strip()}")
        return r.stdout.strip()

    def s(self, text):
        return text.encode()

    async def connect(self):
        pass

    async def send_input(self, s):
        if len(s) == 1 and s.isalnum():
            line = f"send-keys -t {self.pane} -l {s}\n"
        else:
            line = f"send-keys -t {self.pane} -H {' '.join(f'{b:02x}' for b in s.encode())}\n"
        os.write(self.ctl_in, line.encode())

    async def read(self):
        loop = asyncio.get_running_loop()
        while True:
            try:
                out = os.read(self.fd, 65536)
            except BlockingIOError:
                fut = loop.create_future()
                loop.add_reader(self.fd, fut.set_result, None)
                try:
                    await fut
                finally:
                    loop.remove_reader(self.fd)
                continue
            if out:
                return out

    expect = tb.WsTerm.expect

    async def close(self):
        try:
            self.ctl.stdin.close()
            self.ctl.wait(timeout=3)
        except (OSError, subprocess.TimeoutExpired):
            self.ctl.kill()
        subprocess.run(self.base + ["kill-server"], capture_output=True, timeout=10)
        os.close(self.fd)


async def run(args, tmpdir):
    t_start = time.monotonic()
    term = TmuxTerm(tmpdir)
    res = {"peer": "tmux-async", "version": term.version, "frame_format": term.proto.frame_format}
    try:
        await term.connect()
        t0 = time.perf_counter()
        await term.send_input("printf 'RE''AD''Y0\\n'\r")
        await term.expect("READY0", timeout=20)
        res["attach_ms"] = round((time.perf_counter() - t0) * 1000, 2)
        cpu0 = tb.proc_cpu_s(term.pid)
        vals = await tb.latency_phase(term, args.samples, args.warmup, args.gap_ms, 45)
        res["latency_ms"] = tb.summarize_ms(vals)
        res["latency_ms"].update(warmup=args.warmup, gap_ms=args.gap_ms)
        res["server_cpu_s_latency_phase"] = round(tb.proc_cpu_s(term.pid) - cpu0, 3)
    finally:
        await term.close()
    res["wall_s"] = round(time.monotonic() - t_start, 2)
    res["host"] = tb.host_info()
    return res


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tb.common_args(p)
    args = p.parse_args()
    tmpdir = tempfile.mkdtemp(prefix="termbench-tmux-async-")
    try:
        res = asyncio.run(run(args, tmpdir))
    except Exception as e:  # the result line says what failed
        res = tb.error_result("tmux-async", e)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    tb.emit(res)


if __name__ == "__main__":
    main()
