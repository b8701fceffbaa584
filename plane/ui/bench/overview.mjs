// The overview's cost with many panes: a real plane (its local node on tmux), N shell panes
// each printing the time twice a second, and one headless Chromium with the overview open and
// every card on screen (a tall window), against the same plane with the same panes and the
// browser on a page without screens. Prints the plane's and tmux's CPU in both phases and the
// bytes each thumbnail costs.
//
//   node plane/ui/bench/overview.mjs [--panes 50] [--seconds 60]
//
// Needs the plane built with the app (`npm run --prefix plane/ui build`, then
// `cargo build --release -p termplane`; TERMPLANE_BIN picks the binary, default
// target/release/termplane), tmux and Chromium (CHROMIUM, default /usr/bin/chromium).

import { execFileSync } from "node:child_process";
import { readdir } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { arg, launchBrowser, setUpAndSignIn, sleep, startPlane } from "./plane.mjs";

const PANES = Math.min(arg("panes", 50), 200);
const SECONDS = Math.min(arg("seconds", 60), 600);
const TICK = 100; // clock ticks per second (Linux's USER_HZ)

/** CPU seconds a process has used (user + system). */
function cpu(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8");
  const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return (Number(rest[11]) + Number(rest[12])) / TICK;
}

async function findSocket(dir) {
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isSocket()) return join(e.parentPath ?? e.path, e.name);
  }
  return null;
}

const plane = await startPlane("overview");
let browser;
let socket = null;
try {
  browser = await launchBrowser();
  const page = await (await browser.newContext({ baseURL: plane.base, viewport: { width: 1920, height: 1080 } })).newPage();
  await setUpAndSignIn(page);
  const ids = await page.evaluate(async (n) => {
    const nodes = await (await fetch("/api/nodes")).json();
    const node = nodes.find((x) => x.isLocal);
    const out = [];
    for (let i = 0; i < n; i++) {
      const r = await fetch("/api/subshells", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ nodeId: node.nodeId, harnessId: "shell", name: `busy-${String(i).padStart(2, "0")}` }),
      });
      if (!r.ok) throw new Error(`launch ${i}: ${r.status} ${await r.text()}`);
      out.push((await r.json()).id);
    }
    return out;
  }, PANES);
  for (const id of ids) {
    for (let i = 0; ; i++) {
      const state = await page.evaluate(async (x) => (await (await fetch(`/api/subshells/${x}`)).json()).state, id);
      if (state === "running") break;
      if (i > 200) throw new Error(`${id} is ${state}`);
      await sleep(100);
    }
    await page.evaluate(
      async (x) =>
        fetch(`/api/subshells/${x}/input`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ text: "while :; do date +%T.%N; sleep 0.5; done", keys: ["enter"] }),
        }),
      id,
    );
  }
  socket = await findSocket(plane.dataDir);
  const tmuxPid = socket ? Number(execFileSync("tmux", ["-S", socket, "display-message", "-p", "#{pid}"]).toString().trim()) : null;

  const phase = async (label, path, viewport) => {
    await page.setViewportSize(viewport);
    await page.goto(path);
    await sleep(5_000);
    let requests = 0;
    let bytes = 0;
    const statuses = {};
    let wireBody = 0;
    const onResponse = async (r) => {
      if (!/\/api\/subshells\/[^/]+\/screen/.test(r.url())) return;
      requests++;
      statuses[r.status()] = (statuses[r.status()] ?? 0) + 1;
      try {
        // Bytes on the wire (after any compression), head and body.
        const sizes = await r.request().sizes();
        bytes += sizes.responseBodySize + sizes.responseHeadersSize;
        wireBody += sizes.responseBodySize;
      } catch {
        // The page moved on.
      }
    };
    page.on("response", onResponse);
    const p0 = cpu(plane.pid);
    const t0 = tmuxPid ? cpu(tmuxPid) : 0;
    const started = Date.now();
    await sleep(SECONDS * 1000);
    const secs = (Date.now() - started) / 1000;
    const planeCpu = (cpu(plane.pid) - p0) / secs;
    const tmuxCpu = tmuxPid ? (cpu(tmuxPid) - t0) / secs : null;
    page.off("response", onResponse);
    const cards = await page.locator(".ov-card").count();
    const sample = await page.evaluate(async (x) => (await (await fetch(`/api/subshells/${x}/screen`)).json()).text, ids[0]);
    return { label, seconds: Math.round(secs), cards, screenRequestsPerSecond: +(requests / secs).toFixed(2), screenBytesPerSecond: Math.round(bytes / secs), screenBodyBytesPerSecond: Math.round(wireBody / secs), planeCpuPercent: +(planeCpu * 100).toFixed(1), tmuxCpuPercent: tmuxCpu === null ? null : +(tmuxCpu * 100).toFixed(1), sampleScreenBytes: sample.length, sampleScreenLines: sample.split("\n").filter((l) => l.trim()).length, statuses };
  };
  const quiet = await phase("no overview (the account page)", "/account", { width: 1920, height: 1080 });
  const rows = Math.ceil(PANES / 6);
  const open = await phase("overview, every card on screen", "/overview?group=none", { width: 1920, height: 300 + rows * 330 });
  const per = (x) => (open.cards ? Math.round(x / open.cards) : 0);
  console.log(JSON.stringify({ panes: PANES, quiet, open, bytesPerSecondPerThumbnail: per(open.screenBytesPerSecond), bodyBytesPerSecondPerThumbnail: per(open.screenBodyBytesPerSecond) }, null, 2));
} finally {
  await browser?.close().catch(() => undefined);
  if (socket) {
    // The panes' shells first: a shell looping in a pane outlives its tmux server's end.
    try {
      const pids = execFileSync("tmux", ["-S", socket, "list-panes", "-a", "-F", "#{pane_pid}"]).toString().split("\n").filter(Boolean);
      for (const pid of pids) {
        // Everything in the pane's session (the shell runs in a process group of its own).
        try {
          execFileSync("pkill", ["-KILL", "-s", pid]);
        } catch {
          // Already gone.
        }
      }
      execFileSync("tmux", ["-S", socket, "kill-server"]);
    } catch {
      // Already gone.
    }
  }
  await plane.stop();
}
