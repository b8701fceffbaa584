// What the browser benchmarks share: a real plane started in a temporary data directory (its
// local node on), a headless Chromium, and the plane's first account set up and signed in.

import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const PLANE_BIN = resolve(ROOT, process.env.TERMPLANE_BIN ?? "target/release/termplane");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `--name N` from the command line, or `dflt`. */
export function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
    s.on("error", rej);
  });
}

/**
 * A plane (TERMPLANE_BIN, default target/release/termplane) serving on a free loopback port from
 * a temporary data directory, once it answers: `{ base, pid, dataDir, stop }`.
 */
export async function startPlane(tag) {
  const tmp = await mkdtemp(join(tmpdir(), `termplane-${tag}-`));
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const dataDir = join(tmp, "data");
  const plane = spawn(PLANE_BIN, ["serve", "--listen", `127.0.0.1:${port}`, "--data-dir", dataDir], {
    env: { ...process.env, APP_BASE_URL: base, RUST_LOG: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const stop = async () => {
    try {
      process.kill(-plane.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
    // The plane's own tmux server outlives it (it keeps panes through a plane's restart).
    const socket = join(dataDir, "local-node", "tmux.sock");
    if (existsSync(socket)) {
      try {
        execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" });
      } catch {
        // Already gone.
      }
    }
    await sleep(500);
    await rm(tmp, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    if (i > 300) {
      await stop();
      throw new Error("the plane did not answer");
    }
    try {
      if ((await fetch(`${base}/api/setup/status`)).ok) break;
    } catch {
      // Not yet.
    }
    await sleep(100);
  }
  return { base, pid: plane.pid, dataDir, stop };
}

/** Headless Chromium (CHROMIUM, default /usr/bin/chromium). */
export function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"] });
}

/** Creates the plane's first account from `page` (on the plane's origin) and signs it in. */
export async function setUpAndSignIn(page) {
  await page.goto("/sign-in");
  const failed = await page.evaluate(async () => {
    const post = (path, body) =>
      fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const creds = { email: "bench@example.com", password: "bench password 1" };
    const setup = await post("/api/setup", { ...creds, displayName: "Bench" });
    if (!setup.ok) return `setup answered ${setup.status}`;
    const signIn = await post("/api/auth/sign-in", creds);
    return signIn.ok ? null : `sign-in answered ${signIn.status}`;
  });
  if (failed) throw new Error(failed);
}
