// Seeking in a long recording: the browser app's playback of an 8-hour recording of a busy agent
// pane, as large as an export gets (16 MiB of output), in a real plane and a headless Chromium.
// Prints how long the page takes to be ready to play (fetch, parse, keyframes) and, for seeks to
// random moments, the time from the click on "Go" until the screen shows that moment.
//
//   node plane/ui/bench/recording-seek.mjs [--seeks 30] [--hours 8] [--mib 16]
//
// The recording is made up here (waiting 8 hours for a real one would measure the same player):
// a pane of 120×30 whose agent prints colored lines below a top row it repaints every second
// with the second it is at, `T=<seconds>`; a seek to t seconds (events come at k + 0.25) is right once the top
// row reads T=t-1. The
// page asks the plane for a real pane's recording; the answer is this one (Playwright routes the
// request), everything else is the plane's. Needs the plane built with the app (TERMPLANE_BIN,
// default target/release/termplane), tmux and Chromium (CHROMIUM, default /usr/bin/chromium).

import { arg, launchBrowser, setUpAndSignIn, sleep, startPlane } from "./plane.mjs";

const SEEKS = Math.min(arg("seeks", 30), 200);
const HOURS = Math.min(arg("hours", 8), 24);
const MIB = Math.min(arg("mib", 16), 64);

/** A deterministic generator (mulberry32), so every run plays the same recording. */
function random(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The recording: one event a second, its output sized so the whole is `MIB` MiB. */
function makeCast() {
  const seconds = HOURS * 3600;
  const perSecond = Math.floor((MIB * 1024 * 1024) / seconds);
  const rnd = random(42);
  const words = ["reading", "src/main.rs", "cargo", "test", "passed", "editing", "plane/ui", "diff", "+", "-", "ok", "the", "agent"];
  const lines = [JSON.stringify({ version: 2, width: 120, height: 30, timestamp: 1_700_000_000, title: "bench" })];
  let bytes = 0;
  for (let s = 0; s < seconds; s++) {
    // Rows 2 to 30 scroll; row 1 is the status, repainted (the region is set again each time:
    // a screen restored from a keyframe has its text, not its scroll region).
    let out = `\x1b[2;30r\x1b[1;1H\x1b[2K\x1b[1mT=${s}\x1b[0m\x1b[30;1H`;
    while (out.length < perSecond) {
      const n = 3 + Math.floor(rnd() * 12);
      const line = Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]).join(" ");
      out += `\x1b[3${1 + Math.floor(rnd() * 6)}m${line}\x1b[0m\r\n`;
    }
    bytes += out.length;
    lines.push(JSON.stringify([s + 0.25, "o", out]));
  }
  return { text: lines.join("\n") + "\n", seconds, bytes };
}

const cast = makeCast();
const plane = await startPlane("seek");
let browser;
try {
  browser = await launchBrowser();
  const page = await (await browser.newContext({ baseURL: plane.base, viewport: { width: 1600, height: 1000 } })).newPage();
  await setUpAndSignIn(page);
  const id = await page.evaluate(async () => {
    const node = (await (await fetch("/api/nodes")).json()).find((x) => x.isLocal);
    const r = await fetch("/api/subshells", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ nodeId: node.nodeId, harnessId: "shell", name: "long" }),
    });
    if (!r.ok) throw new Error(`launch: ${r.status}`);
    return (await r.json()).id;
  });
  await page.route(`**/api/subshells/${id}/recording/cast`, (route) =>
    route.fulfill({ status: 200, contentType: "application/x-asciicast", body: cast.text }),
  );
  const t0 = Date.now();
  await page.goto(`/subshells/${id}/recording`);
  const play = page.getByRole("button", { name: "Play", exact: true });
  for (;;) {
    if (await play.isEnabled()) break;
    if (Date.now() - t0 > 600_000) throw new Error("playback never became ready");
    await sleep(20);
  }
  const readyMs = Date.now() - t0;
  const rnd = random(7);
  const times = [];
  for (let k = 0; k < SEEKS; k++) {
    // A whole second t into it: the last event played is the one at t - 0.75 (T=t-1).
    const t = 1 + Math.floor(rnd() * (cast.seconds - 2));
    const h = Math.floor(t / 3600);
    const m = Math.floor((t % 3600) / 60);
    const s = Math.floor(t % 60);
    await page.getByLabel("Go to").fill(`${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`);
    const ms = await page.evaluate(async (want) => {
      const go = [...document.querySelectorAll("button")].find((b) => b.textContent === "Go");
      const top = () => document.querySelector('[data-testid="rec-terminal"] .xterm-rows')?.firstElementChild?.textContent?.replace(/\u00a0/g, " ").trim();
      const start = performance.now();
      go.click();
      for (;;) {
        await new Promise((r) => requestAnimationFrame(r));
        if (top() === want) return performance.now() - start;
        if (performance.now() - start > 30_000) throw new Error(`the screen never showed ${want}: ${top()}`);
      }
    }, `T=${t - 1}`);
    times.push(ms);
  }
  // The pane goes (its tmux server with it, its last session gone).
  await page.evaluate(async (x) => fetch(`/api/subshells/${x}/kill`, { method: "POST" }), id);
  times.sort((a, b) => a - b);
  const pct = (p) => +times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(1);
  console.log(
    JSON.stringify(
      {
        hours: HOURS,
        outputMiB: +(cast.bytes / 1024 / 1024).toFixed(1),
        events: cast.seconds,
        readyToPlayMs: readyMs,
        seeks: SEEKS,
        seekMs: { p50: pct(50), p90: pct(90), max: +times[times.length - 1].toFixed(1) },
      },
      null,
      2,
    ),
  );
} finally {
  await browser?.close().catch(() => undefined);
  await plane.stop();
}
