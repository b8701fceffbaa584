// The browser app against a real plane, driven in Chromium.
//
//   node --test plane/ui/tests/            (from the repository root; Node 20+)
//
// The suite starts everything itself: a plane on a free loopback port with a fresh data
// directory (its local node runs panes in tmux on this host), later a node daemon enrolled
// through the page, and a headless Chromium; it stops them all at the end, failed or not.
//
// Environment:
//   TERMPLANE_BIN          the plane binary       (default target/debug/termplane)
//   TERMPLANE_NODE_BIN     the node binary        (default target/debug/termplane-node)
//   TERMPLANE_SCREENSHOTS  where screenshots go   (default target/ui-screenshots)
//   CHROMIUM               the browser            (default /usr/bin/chromium)
//   TERMPLANE_UI_PREVIEW=1 serve plane/ui/dist with `vite preview` in front of the plane
//                          (for working on the app with a plane binary that does not embed it)
//   TERMPLANE_KEEP_TMP=1   keep the temporary directory (logs, data) for a look afterwards

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFile } from "node:child_process";
import { createHash, createPublicKey, verify as verifySignature } from "node:crypto";
import { mkdtemp, mkdir, readFile, readdir, rm, stat } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";

const HERE = dirname(fileURLToPath(import.meta.url));
const UI = resolve(HERE, "..");
const ROOT = resolve(UI, "../..");
const PLANE_BIN = resolve(ROOT, process.env.TERMPLANE_BIN ?? "target/debug/termplane");
const NODE_BIN = resolve(ROOT, process.env.TERMPLANE_NODE_BIN ?? "target/debug/termplane-node");
const SHOTS = resolve(ROOT, process.env.TERMPLANE_SCREENSHOTS ?? "target/ui-screenshots");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const PREVIEW = process.env.TERMPLANE_UI_PREVIEW === "1";

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
// The accounts. Some of this changes on the way: the administrator changes their password on
// the account page, and renames the reader and sets theirs.
const ADMIN = { email: "admin@example.com", name: "Ada Admin", password: "correct horse battery" };
const READER = { email: "reader@example.com", name: "Rita Reader", password: "reader password 1" };
const INSTANCE = "Test Plane";
const JS_BUDGET = 300 * 1024;

/** Everything started, so that the end can stop it. */
const procs = [];
const contexts = [];
let tmp;
let port;
let base; // what the browser opens
let planeUrl; // the plane itself
let browser;
let axeSource;
const cspViolations = [];
let firstLoadJs = null;

// ----- processes -----

// A loopback port nothing listens on, for a child told to listen there. Taken below the
// kernel's ephemeral range: a port the kernel hands out for an outgoing connection (Chromium
// opens many) could be taken again between this check and the child's bind.
async function freePort() {
  let low = 32768;
  try {
    low = Number((await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8")).split(/\s+/)[0]) || low;
  } catch {
    // not Linux: the default range's start
  }
  const tryListen = (p) =>
    new Promise((res) => {
      const s = createServer();
      s.unref();
      s.on("error", () => res(null));
      s.listen(p, "127.0.0.1", () => {
        const { port: got } = s.address();
        s.close(() => res(got));
      });
    });
  const floor = 10000;
  for (let i = 0; low > floor + 1000 && i < 500; i++) {
    const got = await tryListen(floor + Math.floor(Math.random() * (low - floor)));
    if (got !== null) return got;
  }
  const any = await tryListen(0);
  if (any === null) throw new Error("no free loopback port");
  return any;
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Starts a long-running process in its own group, its output in `log`. */
async function start(name, cmd, args, opts) {
  const { openSync } = await import("node:fs");
  const out = openSync(join(tmp, `${name}.log`), "a");
  const child = spawn(cmd, args, { ...opts, detached: true, stdio: ["ignore", out, out] });
  const entry = { name, child, exited: false };
  child.on("exit", () => (entry.exited = true));
  procs.push(entry);
  return entry;
}

function stopAll() {
  for (const p of procs.reverse()) {
    if (p.exited || !p.child.pid) continue;
    try {
      process.kill(-p.child.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  }
}

async function waitExit(p, ms) {
  const until = Date.now() + ms;
  while (!p.exited && Date.now() < until) await sleep(50);
  if (!p.exited && p.child.pid) {
    try {
      process.kill(-p.child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

function run(cmd, args, opts = {}) {
  return new Promise((res, rej) => {
    execFile(cmd, args, { timeout: 60_000, ...opts }, (err, stdout, stderr) => {
      if (err) rej(new Error(`${cmd} ${args.join(" ")} failed: ${err.message}\n${stdout}\n${stderr}`));
      else res({ stdout, stderr });
    });
  });
}

async function waitFor(what, fn, ms = 20_000, every = 200) {
  const until = Date.now() + ms;
  let last;
  while (Date.now() < until) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(every);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${last.message}` : ""}`);
}

/** Every Unix socket under `dir` (the tmux servers of the local node and of the node daemon). */
async function sockets(dir) {
  const out = [];
  let entries = [];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sockets(p)));
    else if (e.isSocket()) out.push(p);
  }
  return out;
}

// ----- pages -----

async function newContext(opts = {}) {
  const ctx = await browser.newContext({ viewport: DESKTOP, baseURL: base, ...opts });
  ctx.setDefaultTimeout(15_000);
  await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  ctx.on("page", (p) => watchPage(p));
  contexts.push(ctx);
  return ctx;
}

function watchPage(page) {
  page.on("console", (m) => {
    const t = m.text();
    if (/Content[- ]Security[- ]Policy/i.test(t)) cspViolations.push(t);
  });
  page.on("pageerror", (e) => cspViolations.push(`page error: ${e.message}`));
}

/** Runs axe-core on the page and fails on serious or critical violations. */
async function axe(page, label) {
  // Evaluated through the browser's protocol: the page's policy (script-src 'self') rightly
  // refuses an inline <script>, so the checker is not added as one.
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 4).join(", ")}`);
  });
  assert.deepEqual(result, [], `axe on ${label}`);
}

/** Screenshots (and axe) at both sizes; the page ends at the size it had. */
async function capture(page, name, { phone = true } = {}) {
  const size = page.viewportSize();
  await axe(page, `${name} @${size.width}`);
  await page.screenshot({ path: join(SHOTS, `${name}-${size.width}x${size.height}.png`) });
  if (phone && size.width !== PHONE.width) {
    await page.setViewportSize(PHONE);
    await sleep(150);
    await axe(page, `${name} @390`);
    await page.screenshot({ path: join(SHOTS, `${name}-390x844.png`) });
    await page.setViewportSize(size);
    await sleep(150);
  }
}

/** The terminal's visible rows, as text lines. */
async function screenLines(page) {
  const text = await page.locator(".xterm-rows").innerText();
  return text.split("\n").map((l) => l.replace(/\u00a0/g, " ").trimEnd());
}

async function waitLine(page, want, ms = 15_000) {
  return waitFor(`a terminal line ${JSON.stringify(want)}`, async () => (await screenLines(page)).some((l) => l.trim() === want), ms);
}

async function typeInTerminal(page, text) {
  await page.locator(".xterm-helper-textarea").focus();
  await page.keyboard.type(text, { delay: 10 });
}

async function live(page) {
  await page.locator('[data-testid="conn"][data-conn="live"]').waitFor({ timeout: 20_000 });
}

async function signIn(page, who) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL(/\/subshells/);
}

/** Launches a shell on the plane's local node as the page's account, through the API. */
async function launchShell(page, name, nodeName = null) {
  return page.evaluate(
    async ([n, on]) => {
      const nodes = await (await fetch("/api/nodes")).json();
      const node = nodes.find((x) => (on === null ? x.isLocal : x.name === on));
      if (!node) throw new Error(`no node ${on}`);
      const r = await fetch("/api/subshells", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ nodeId: node.nodeId, harnessId: "shell", name: n }),
      });
      if (!r.ok) throw new Error(`launch: ${r.status} ${await r.text()}`);
      return r.json();
    },
    [name, nodeName],
  );
}

// ----- the run -----

describe("termplane browser app", { concurrency: false }, () => {
  let admin; // context of the administrator
  let page; // its page
  let paneUrl;
  let nodeProc;
  let nodeDir;
  let startNode; // starts the enrolled node daemon again
  let second; // the administrator's second window on the pane
  let workDir; // the pane's working directory

  before(async () => {
    for (const [what, p] of [
      ["plane binary", PLANE_BIN],
      ["node binary", NODE_BIN],
      ["Chromium", CHROMIUM],
    ]) {
      await stat(p).catch(() => {
        throw new Error(`${what} not found at ${p}`);
      });
    }
    tmp = await mkdtemp(join(tmpdir(), "termplane-ui-"));
    await mkdir(SHOTS, { recursive: true });
    for (const f of await readdir(SHOTS)) if (f.endsWith(".png")) await rm(join(SHOTS, f), { force: true });
    axeSource = await readFile(join(UI, "node_modules/axe-core/axe.min.js"), "utf8");
    port = await freePort();
    planeUrl = `http://localhost:${port}`;
    // A need is told after 2 s here (10 s by default), so the inbox tests wait little.
    const env = { ...process.env, APP_BASE_URL: planeUrl, TERMPLANE_NOTIFY_HOLD_SECS: "2", RUST_LOG: process.env.TERMPLANE_UI_LOG ?? "info" }; // the plane's log level
    let previewPort;
    if (PREVIEW) {
      // The preview is the address the plane lives at (passkeys and the node link use it).
      previewPort = await freePort();
      env.APP_BASE_URL = `http://localhost:${previewPort}`;
    }
    const plane = await start("plane", PLANE_BIN, ["serve", "--listen", `127.0.0.1:${port}`, "--data-dir", join(tmp, "plane")], {
      env,
      cwd: tmp,
    });
    await waitFor(
      "the plane to answer",
      async () => {
        if (plane.exited) throw new Error(`the plane exited; see ${join(tmp, "plane.log")}`);
        const r = await fetch(`http://127.0.0.1:${port}/api/setup/status`);
        return r.ok;
      },
      30_000,
    );
    base = planeUrl;
    if (PREVIEW) {
      await start("preview", process.execPath, [join(UI, "node_modules/vite/bin/vite.js"), "preview", "--port", String(previewPort), "--strictPort"], {
        cwd: UI,
        env: { ...process.env, TERMPLANE_URL: `http://127.0.0.1:${port}` },
      });
      base = `http://localhost:${previewPort}`;
      await waitFor("vite preview", async () => (await fetch(`${base}/`)).ok, 30_000);
    } else {
      const home = await (await fetch(`${planeUrl}/`)).text();
      assert.match(home, /<div id="app">/, "the plane serves the app at / (is the binary built with plane/ui/dist?)");
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
      timeout: 30_000,
    });
    admin = await newContext();
    page = await admin.newPage();
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    stopAll();
    await Promise.all(procs.map((p) => waitExit(p, 5_000)));
    if (tmp) {
      for (const s of await sockets(tmp)) {
        await run("tmux", ["-S", s, "kill-server"], { timeout: 5_000 }).catch(() => undefined);
      }
      if (process.env.TERMPLANE_KEEP_TMP === "1") console.log(`# kept ${tmp}`);
      else await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    }
    if (firstLoadJs) console.log(`# first-load JS: ${firstLoadJs.files} file(s), ${firstLoadJs.raw} bytes, ${firstLoadJs.gzip} bytes gzip (${(firstLoadJs.gzip / 1024).toFixed(1)} KiB)`);
    console.log(`# screenshots in ${SHOTS}`);
  });

  test("first run: create the administrator and name the instance", async () => {
    const scripts = [];
    page.on("response", function onScript(r) {
      if (r.request().resourceType() === "script") scripts.push(r);
    });
    await page.goto("/");
    await page.waitForURL(/\/setup$/);
    await page.getByLabel("Instance name").waitFor();
    // The JavaScript of the first load, compressed as the plane sends it.
    let raw = 0;
    let gzip = 0;
    for (const r of scripts) {
      const body = await r.body();
      raw += body.length;
      gzip += gzipSync(body, { level: 9 }).length;
    }
    firstLoadJs = { files: scripts.length, raw, gzip };
    console.log(`# first-load JS: ${scripts.length} file(s), ${raw} bytes, ${gzip} bytes gzip`);
    assert.ok(scripts.length >= 1, "the page loads its script");
    assert.ok(gzip < JS_BUDGET, `first-load JS is ${gzip} bytes gzip, over ${JS_BUDGET}`);
    page.removeAllListeners("response");

    await capture(page, "setup");
    await page.getByLabel("Instance name").fill(INSTANCE);
    await page.getByLabel("Your name").fill(ADMIN.name);
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await page.getByLabel("Password again").fill(ADMIN.password);
    await page.getByRole("button", { name: "Create administrator" }).click();
    await page.waitForURL(/\/subshells$/);
    await assert.doesNotReject(page.locator(".brand-name", { hasText: INSTANCE }).waitFor());
    assert.equal(await page.title(), INSTANCE);
    await page.getByRole("link", { name: "Settings" }).waitFor();
    await capture(page, "subshells-empty");
  });

  test("sign out", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/sign-in/);
    await page.getByRole("button", { name: "Sign in", exact: true }).waitFor();
    await capture(page, "sign-in");
    // Signed out for real: the API refuses the old cookie.
    const status = await page.evaluate(async () => (await fetch("/api/auth/session")).status);
    assert.equal(status, 401);
  });

  test("wrong passwords, then the backoff message", async () => {
    await page.getByLabel("Email").fill(ADMIN.email);
    let backoff = null;
    for (let i = 0; i < 10 && !backoff; i++) {
      await page.getByLabel("Password", { exact: true }).fill(`wrong password ${i}`);
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/api/auth/sign-in")),
        page.getByRole("button", { name: "Sign in", exact: true }).click(),
      ]);
      if (res.status() === 429) {
        backoff = await page.getByTestId("backoff").innerText();
      } else {
        assert.equal(res.status(), 401);
        await page.getByText("Wrong email or password.").waitFor();
        await page.locator("button[type=submit]:enabled").waitFor();
      }
    }
    assert.ok(backoff, "no backoff after repeated failures");
    assert.match(backoff, /^Too many attempts; try again in \d+ seconds?\.$/);
    assert.equal(await page.getByRole("button", { name: "Sign in", exact: true }).isDisabled(), true);
  });

  test("password sign-in", async () => {
    await page.getByTestId("backoff").waitFor({ state: "detached", timeout: 70_000 });
    await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/\/subshells$/);
    await page.getByRole("link", { name: ADMIN.name }).waitFor();
  });

  test("passkey: register on the account page, then sign in with it", async () => {
    const cdp = await admin.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });
    await page.getByRole("link", { name: ADMIN.name }).click();
    await page.waitForURL(/\/account$/);
    await page.getByLabel("Passkey name").fill("Test authenticator");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByTestId("passkeys").getByText("Test authenticator").waitFor();
    await capture(page, "account");
    await page.getByRole("button", { name: "Sign out" }).first().click();
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    // Back on the page they signed out from.
    await page.waitForURL(/\/account$/);
    await page.getByRole("link", { name: ADMIN.name }).waitFor();
  });

  test("mint a system key, copy it, and call the API with it", async () => {
    // Signed in whether or not the passkey step passed.
    const signedIn = await page.evaluate(async () => (await fetch("/api/auth/session")).ok);
    if (!signedIn) await signIn(page, ADMIN);
    await page.goto("/subshells");
    await page.getByRole("link", { name: "Settings", exact: true }).click();
    await page.getByRole("link", { name: "API keys" }).click();
    await page.waitForURL(/\/settings\/keys$/);
    await page.getByLabel("Key name").fill("ui-test script");
    await page.getByRole("button", { name: "Mint key" }).click();
    const box = page.getByTestId("new-system-key");
    await box.waitFor();
    const key = await box.inputValue();
    assert.match(key, /^tp_[A-Za-z0-9_-]{43}$/);
    await page.getByRole("button", { name: /^Copy New key/ }).click();
    await page.getByRole("button", { name: /^Copied New key/ }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, key);
    await capture(page, "settings-keys");
    // The copied key, used from a shell the way a script would.
    const out = await new Promise((done, fail) =>
      execFile(
        "curl",
        ["-sS", "--max-time", "10", "-w", "\n%{http_code}", "-H", `Authorization: Bearer ${copied}`, `http://127.0.0.1:${port}/api/nodes`],
        (err, stdout) => (err ? fail(err) : done(stdout)),
      ),
    );
    const [body, status] = [out.slice(0, out.lastIndexOf("\n")), out.slice(out.lastIndexOf("\n") + 1)];
    assert.equal(status, "200", body);
    const list = JSON.parse(body);
    assert.ok(Array.isArray(list) && list.some((n) => n.isLocal), "the local node is listed");
  });

  test("add a node: the dialog shows the plane's commands; run the enroll step shown, then the daemon, and see it online", async () => {
    await page.getByRole("link", { name: "Nodes", exact: true }).click();
    await page.waitForURL(/\/nodes$/);
    await capture(page, "nodes");
    await page.getByRole("button", { name: "Add a node" }).click();
    // The one command comes first; the three steps are under "Step by step".
    const oneLiner = page.getByTestId("install-command");
    await oneLiner.waitFor();
    await page.getByText("Step by step", { exact: true }).click();
    const cmdEl = page.getByTestId("enroll-command");
    await cmdEl.waitFor();
    const key = await page.getByTestId("setup-key").inputValue();
    // Every command shown is exactly the one the plane composed for this key.
    const composed = await page.evaluate(
      async (k) => (await (await fetch("/api/setup-keys")).json()).find((x) => x.key === k)?.install,
      key,
    );
    assert.ok(composed, "the plane lists the dialog's key with its commands");
    const shownText = async (testId) => (await page.getByTestId(testId).innerText()).trim();
    const shownOne = await shownText("install-command");
    assert.equal(shownOne, composed.command);
    assert.match(shownOne, new RegExp(`^curl -fsSL \\S+/install\\.sh \\| sh -s -- --setup-key ${key}$`));
    assert.equal(await shownText("service-command"), composed.service);
    assert.equal(await shownText("foreground-command"), composed.foreground);
    if (composed.downloads.length) {
      assert.equal(await shownText("download-commands"), composed.downloads[0].commands.join("\n"));
    }
    const shown = (await cmdEl.innerText()).trim();
    assert.equal(shown, composed.enroll);
    assert.match(shown, /^~\/\.local\/bin\/termplane-node enroll --server \S+ --setup-key nsk_\S+$/);
    await capture(page, "nodes-add", { phone: false });
    nodeDir = join(tmp, "node");
    await mkdir(nodeDir, { recursive: true });
    const config = join(nodeDir, "config.json");
    const nodeEnv = {
      ...process.env,
      XDG_CONFIG_HOME: join(nodeDir, "config"),
      XDG_DATA_HOME: join(nodeDir, "data"),
      XDG_STATE_HOME: join(nodeDir, "state"),
    };
    const args = shown.split(/\s+/).slice(1);
    await run(NODE_BIN, [...args, "--name", "ui-test-node", "--config", config], { env: nodeEnv, timeout: 30_000 });
    startNode = () => start("node", NODE_BIN, ["run", "--config", config], { env: nodeEnv, cwd: nodeDir });
    nodeProc = await startNode();
    await page.locator('[data-testid="new-node"][data-liveness="online"]').waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Done" }).click();
    const row = page.locator('tr[data-node="ui-test-node"]');
    await row.getByText("Online").waitFor({ timeout: 15_000 });
    assert.equal(nodeProc.exited, false, "the node daemon runs");
    // A refused list names the line at fault in the form's words, not the API's field path.
    await row.getByRole("button", { name: "Manage" }).click();
    await page.getByLabel("Allowed directories").fill("/srv/projects\nprojects/relative");
    await page.getByRole("button", { name: "Save directories" }).click();
    const refusal = page.getByRole("alert").filter({ hasText: "Allowed directory 2:" });
    await refusal.waitFor();
    assert.doesNotMatch(await refusal.innerText(), /allowedDirs/);
    const node = await page.evaluate(async () => (await (await fetch("/api/nodes")).json()).find((n) => n.name === "ui-test-node"));
    assert.deepEqual(node.allowedDirs, [], "nothing of the refused list was kept");
    // An administrator stops recording the node's panes, and records them again, kept 30 days;
    // a retention out of range is refused in words and nothing is sent.
    await page.getByTestId("node-recording").getByText("its panes are recorded, kept as the plane's").waitFor();
    await page.locator("summary", { hasText: "Recording settings" }).click();
    const form = page.getByRole("form", { name: "Recording settings" });
    await form.getByLabel("Record its panes").uncheck();
    await form.getByRole("button", { name: "Save recording settings" }).click();
    await page.getByTestId("node-recording").getByText("off: its panes are logged, not timed").waitFor();
    const off = await page.evaluate(async () => (await (await fetch("/api/nodes")).json()).find((n) => n.name === "ui-test-node"));
    assert.equal(off.recording, false);
    await form.getByLabel("Record its panes").check();
    await form.getByLabel("Keep recordings for (days)").fill("9999");
    await form.getByRole("button", { name: "Save recording settings" }).click();
    await form.getByRole("alert").getByText("Write a whole number of days from 1 to 3650").waitFor();
    await form.getByLabel("Keep recordings for (days)").fill("30");
    await form.getByRole("button", { name: "Save recording settings" }).click();
    await page.getByTestId("node-recording").getByText("its panes are recorded, kept 30 days").waitFor();
    const kept = await page.evaluate(async () => (await (await fetch("/api/nodes")).json()).find((n) => n.name === "ui-test-node"));
    assert.equal(kept.recording, true);
    assert.equal(kept.recordingRetentionDays, 30);
    await row.getByRole("button", { name: "Hide" }).click();
  });

  test("launch a shell on the local node and type into it", async () => {
    await page.getByRole("link", { name: "Subshells", exact: true }).click();
    await page.getByRole("button", { name: "Launch" }).click();
    const dialog = page.getByRole("dialog", { name: "Launch a subshell" });
    await dialog.waitFor();
    const nodeSelect = dialog.getByLabel("Node");
    const local = await nodeSelect.locator("option", { hasText: "this plane's host" }).getAttribute("value");
    await nodeSelect.selectOption(local);
    await dialog.getByLabel("Harness").locator('option[value="shell"]').waitFor({ state: "attached", timeout: 20_000 });
    await dialog.getByLabel("Harness").selectOption("shell");
    await dialog.getByLabel("Name").fill("ui-shell");
    // The folder picker lists the node's directories; choosing one fills the field.
    await dialog.getByRole("button", { name: "Browse…" }).click();
    const picker = dialog.getByRole("group", { name: "Choose a directory on the node" });
    await picker.locator(".picker-head .mono", { hasText: /^\// }).waitFor();
    const home = (await picker.locator(".picker-head .mono").innerText()).trim();
    await picker.getByRole("button", { name: "Use this directory" }).click();
    assert.equal(await dialog.getByLabel("Directory").inputValue(), home);
    // The pane works in a directory of the test's own (uploads land there).
    workDir = join(tmp, "work");
    await mkdir(workDir, { recursive: true });
    await dialog.getByLabel("Directory").fill(workDir);
    await capture(page, "subshells-launch", { phone: false });
    await dialog.getByRole("button", { name: "Launch" }).click();
    await page.waitForURL(/\/subshells\/[0-9a-f]{32}$/);
    paneUrl = new URL(page.url()).pathname;
    await live(page);
    await page.locator(".xterm-rows").waitFor();
    await sleep(500);
    await typeInTerminal(page, "echo hi\n");
    await waitLine(page, "hi");
    await capture(page, "subshell");
  });

  test("a second window of the same user sees the pane live, with two viewers", async () => {
    const other = await newContext({ storageState: await admin.storageState() });
    const page2 = await other.newPage();
    await page2.goto(paneUrl);
    await live(page2);
    await waitLine(page2, "hi");
    await page.locator('[data-testid="viewers"][data-count="2"]').waitFor();
    await page2.locator('[data-testid="viewers"][data-count="2"]').waitFor();
    await typeInTerminal(page, "echo from-the-first\n");
    await waitLine(page2, "from-the-first");
    // Kept open for the resize step.
    second = page2;
  });

  test("the grid follows the smallest typing viewer when the window shrinks", async () => {
    const page2 = second;
    const grid = async (p) => ({
      cols: Number(await p.getByTestId("grid").getAttribute("data-cols")),
      rows: Number(await p.getByTestId("grid").getAttribute("data-rows")),
    });
    const before = await grid(page);
    assert.ok(before.cols > 20 && before.rows > 5, `a grid before: ${JSON.stringify(before)}`);
    await page.setViewportSize({ width: 800, height: 560 });
    let after;
    try {
      // The pane's grid shrinks, and the other viewer shows the same grid. The first smaller grid
      // seen need not be the last: a window that shrinks can be fitted more than once while its
      // layout settles, so the two views are compared with each other, not with the first
      // smaller grid either of them showed.
      let seen = null;
      after = await waitFor("a smaller grid, the same in both viewers", async () => {
        const g = await grid(page);
        const other = await grid(page2);
        seen = { first: g, second: other };
        const smaller = g.cols < before.cols && g.rows < before.rows;
        return smaller && other.cols === g.cols && other.rows === g.rows ? g : null;
      }).catch((e) => {
        throw new Error(`${e.message} (last seen: ${JSON.stringify(seen)}, before: ${JSON.stringify(before)})`);
      });
      // The pane itself was resized: the shell sees the grid both viewers show. The layout can
      // fit the window once more after the grids first agreed, so the shell is asked again
      // (every 2 s) until its answer is the grid shown at that moment.
      let asked = 0;
      let shown = null;
      await waitFor("the shell to see the viewers' grid", async () => {
        if (Date.now() - asked > 2_000) {
          await typeInTerminal(page, "echo sz=$(stty size)\n");
          asked = Date.now();
        }
        const g = await grid(page);
        const other = await grid(page2);
        const said = (await screenLines(page)).map((l) => l.trim()).filter((l) => l.startsWith("sz="));
        shown = { first: g, second: other, said: said.slice(-3) };
        return other.cols === g.cols && other.rows === g.rows && said.at(-1) === `sz=${g.rows} ${g.cols}`;
      }).catch((e) => {
        throw new Error(`${e.message} (last seen: ${JSON.stringify(shown)})`);
      });
    } finally {
      // Left small, the window would hide the navigation the later tests use.
      await page.setViewportSize(DESKTOP);
    }
    await waitFor("the grid to grow again", async () => (await grid(page)).cols > after.cols, 10_000);
  });

  test("reload: the replay brings the earlier output back", async () => {
    await page.reload();
    await live(page);
    await waitLine(page, "hi");
    await waitLine(page, "from-the-first");
  });

  test("the pane's recording downloads from its Actions menu: what it printed, and its resizes", async () => {
    await page.locator("details.menu summary").click();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download recording" }).click(),
    ]);
    assert.equal(download.suggestedFilename(), "ui-shell.cast");
    const text = await readFile(await download.path(), "utf8");
    const [head, ...events] = text.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(head.version, 2);
    assert.equal(head.title, "ui-shell");
    const out = events.filter((e) => e[1] === "o").map((e) => e[2]).join("");
    assert.match(out, /from-the-first/);
    assert.ok(events.some((e) => e[1] === "r"), "the window's resizes are in it");
    const times = events.map((e) => e[0]);
    assert.deepEqual(times, [...times].sort((a, b) => a - b), "in time order");
    await page.locator("details.menu summary").click();
  });

  test("the pane's recording plays back: search lands on the screen that printed it, seeking goes back and forth", async () => {
    const open = page.getByRole("link", { name: "Play recording" });
    if (!(await open.isVisible())) await page.locator("details.menu summary").click();
    await open.click();
    await page.waitForURL(/\/subshells\/[^/]+\/recording$/);
    const play = page.getByRole("button", { name: "Play", exact: true });
    // Enabled once the keyframes are built.
    await waitFor("playback to be ready", () => play.isEnabled(), 20_000);
    const shown = async () => (await page.getByTestId("rec-terminal").locator(".xterm-rows").innerText()).replace(/\u00a0/g, " ");
    const showing = (what, want) => waitFor(what, async () => want(await shown()), 10_000);
    // It opens at the start, before the line was typed.
    await showing("the start", (t) => !t.includes("from-the-first"));
    // Search finds where it was printed and goes there.
    await page.getByRole("searchbox", { name: "Search what the pane printed" }).fill("from-the-first");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const found = page.getByTestId("rec-matches").getByRole("button");
    assert.ok((await found.count()) >= 1, "found where it was printed");
    await found.first().click();
    await showing("the screen that printed it", (t) => t.includes("from-the-first"));
    // Back to the start: the screen is as it was then, not as it is now.
    await page.getByLabel("Go to").fill("0:00");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await showing("the start again", (t) => !t.includes("from-the-first"));
    assert.match(await page.getByTestId("rec-position").innerText(), /^0:00 \//);
    // A time that is not one is said so, and nothing moves.
    await page.getByLabel("Go to").fill("ten past");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await page.getByText("Write a time into the recording as h:mm:ss, m:ss or seconds.").waitFor();
    // The pane's life is on the timeline: its launch at least.
    await page.getByRole("button", { name: /^Launched at \d+:\d\d$/ }).waitFor();
    // Who typed is on the timeline and in a list (who and when, never what); a mark seeks to its moment.
    const typed = page.getByRole("button", { name: /^Typed by .+ \(viewer \d+\) at \d+:\d\d$/ });
    await typed.first().waitFor();
    await page.getByTestId("rec-inputs").locator("summary").click();
    const listed = page.getByTestId("rec-inputs").getByRole("button", { name: /Typed by/ });
    assert.ok((await listed.count()) >= 1, "typed input is listed");
    assert.doesNotMatch(await page.getByTestId("rec-inputs").innerText(), /from-the-first/, "no keys are shown");
    // From the end, a mark takes the playback back to its own time.
    await page.getByLabel("Go to").fill("59:59");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await waitFor("the end", async () => {
      const [at, of] = (await page.getByTestId("rec-position").innerText()).split(" / ");
      return at === of;
    });
    const markAt = (await typed.last().getAttribute("aria-label")).split(" at ").pop();
    await typed.last().click();
    await waitFor(`the position at the mark (${markAt})`, async () => (await page.getByTestId("rec-position").innerText()).startsWith(`${markAt} /`));
    // Played (fast, idle time skipped), it gets there by itself.
    await page.getByLabel("Speed").selectOption("64");
    await play.click();
    await showing("playing to the line", (t) => t.includes("from-the-first"));
    await capture(page, "recording");
    // Opened at a moment (as the audit log links it): the screen of that moment.
    const id = paneUrl.split("/").pop();
    await page.goto(`/subshells/${id}/recording?at=${Date.now()}`);
    await waitFor("playback to be ready", () => page.getByRole("button", { name: "Play", exact: true }).isEnabled(), 20_000);
    await showing("the screen now", (t) => t.includes("from-the-first"));
    // On a phone the screen scrolls inside its box; the page itself does not scroll sideways.
    await page.setViewportSize(PHONE);
    try {
      await sleep(150);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), "no sideways scroll");
      await page.getByRole("button", { name: "Play", exact: true }).waitFor();
    } finally {
      await page.setViewportSize(DESKTOP);
    }
    await page.goto(paneUrl);
    await live(page);
  });

  test("what the agent in a pane reports about itself shows on its page and in the list, live", async () => {
    // A pane of its own; it reports with its own token, as a harness's hook or its agent would.
    const pane = await launchShell(page, "ui-agent");
    const paneAt = `/subshells/${pane.id}`;
    await page.goto(paneAt);
    await live(page);
    await page.locator(".xterm-rows").waitFor();
    await sleep(300);
    const report = (mark, body) =>
      `curl -s -o /dev/null -w '${mark}=%{http_code}\\n' -X POST -H "Authorization: Bearer $TERMPLANE_TOKEN" -H 'Content-Type: application/json' -d '${JSON.stringify(body)}' "$TERMPLANE_URL/api/subshells/$TERMPLANE_SUBSHELL_ID/status"\n`;
    // Before any report, its screen speaks: a shell at its prompt waits.
    await page.locator('[data-agent-state="idle"]').waitFor();
    await typeInTerminal(page, report("r1", { state: "needs_input", summary: "approve the plan?", link: "https://example.com/plan" }));
    await waitLine(page, "r1=200");
    const badge = page.locator('[data-agent-state="needs_input"]');
    await badge.waitFor();
    await badge.getByText("Needs you").waitFor();
    await badge.getByText("approve the plan?").waitFor();
    assert.equal(await badge.getByRole("link", { name: "link" }).getAttribute("href"), "https://example.com/plan");
    await page.locator('[data-status="needs_attention"]').first().waitFor();

    await page.getByRole("link", { name: /^Subshells/ }).first().click();
    await page.waitForURL(/\/subshells$/);
    const row = page.locator("tr", { has: page.getByRole("link", { name: "ui-agent", exact: true }) });
    await row.getByTestId("agent").getByText("Needs you").waitFor();
    await page.goto(paneAt);
    await live(page);
    await typeInTerminal(page, report("r2", { state: "working", summary: "on it" }));
    await page.locator('[data-agent-state="working"]').getByText("on it").waitFor();
    // A link the plane would not accept is refused, and the badge keeps what it showed.
    await typeInTerminal(page, report("r3", { state: "done", link: "javascript:alert(1)" }));
    await waitLine(page, "r3=400");
    await page.locator('[data-agent-state="working"]').waitFor();
    await page.goto(paneUrl);
    await live(page);
  });

  test("sign-in goes on to the page that asked for it, and never to another site", async () => {
    const ctx = await newContext();
    const p = await ctx.newPage();
    const signInHere = async () => {
      await p.getByLabel("Email").fill(ADMIN.email);
      await p.getByLabel("Password", { exact: true }).fill(ADMIN.password);
      await p.getByRole("button", { name: "Sign in", exact: true }).click();
    };
    // Signed out, the pane's address asks for a sign-in that remembers it.
    await p.goto(paneUrl);
    await p.waitForURL((u) => u.pathname === "/sign-in" && u.searchParams.get("next") === paneUrl);
    await signInHere();
    await p.waitForURL((u) => u.pathname === paneUrl);
    // The pane shows, and stays: the sign-in does not go on to the list after it.
    await live(p);
    await waitLine(p, "hi");
    assert.equal(new URL(p.url()).pathname, paneUrl, "the sign-in left the pane for another page");
    // A `next` that leads off this origin, however it is spelt, lands on the list instead.
    const refused = [
      "//evil.example/x",
      "https://evil.example/x",
      "/\\evil.example",
      "/\t/evil.example",
      "%2F%2Fevil.example",
      "/%2F%2Fevil.example",
      "/%252F%252Fevil.example",
      "/%5Cevil.example",
      "javascript:alert(1)",
      "/sign-in?next=%2F%2Fevil.example",
    ];
    for (const next of refused) {
      await ctx.clearCookies();
      await p.goto(`/sign-in?next=${encodeURIComponent(next)}`);
      await p.getByRole("button", { name: "Sign in", exact: true }).waitFor();
      await signInHere();
      await p.waitForURL((u) => u.pathname === "/subshells", { timeout: 15_000 }).catch(() => {
        throw new Error(`next=${JSON.stringify(next)} went to ${p.url()}`);
      });
      assert.equal(new URL(p.url()).origin, new URL(base).origin, `next=${JSON.stringify(next)}`);
      await p.getByRole("link", { name: ADMIN.name }).waitFor();
    }
    await ctx.close();
  });

  test("a remote pane's viewer hears that the node went away, and the refusal clears when it returns", async () => {
    const p = await admin.newPage();
    await p.goto("/subshells");
    const sub = await launchShell(p, "ui-remote", "ui-test-node");
    await p.goto(`/subshells/${sub.id}`);
    await live(p);
    await p.locator(".xterm-rows").waitFor();
    await sleep(500);
    await typeInTerminal(p, "echo before-$((6*7))\n");
    await waitLine(p, "before-42");
    // The node daemon stops; the viewer stays attached, and its keys are refused, saying why (a
    // resize the window makes meanwhile is refused the same way).
    process.kill(-nodeProc.child.pid, "SIGTERM");
    await waitExit(nodeProc, 10_000);
    // The page says the node is out of reach before anyone types.
    await p.locator('[data-status="node_unreachable"]').first().waitFor({ timeout: 20_000 });
    const refused = p.locator(".note-warn", { hasText: "the node is offline" });
    await waitFor(
      "the refusal of keys typed while the node is away",
      async () => {
        await typeInTerminal(p, "x");
        return refused.isVisible();
      },
      30_000,
      1_000,
    );
    await capture(p, "subshell-node-away", { phone: false });
    // The node comes back: the screen is redrawn, the refusal no longer holds, and typing works.
    nodeProc = await startNode();
    await refused.waitFor({ state: "detached", timeout: 30_000 });
    await live(p);
    await p.locator('[data-status="running"]').first().waitFor({ timeout: 20_000 });
    // A fresh line first (an `x` typed just as the node came back may be on it), then type again.
    await typeInTerminal(p, "\necho after-$((6*7))\n");
    await waitLine(p, "after-42");
    await p.close();
  });

  test("drop files on the terminal: they are uploaded into the pane's directory", async () => {
    const drop = (name, size) =>
      page.evaluate(
        ([n, len]) => {
          const bytes = new Uint8Array(len);
          for (let i = 0; i < len; i++) bytes[i] = (i * 31 + 7) & 0xff;
          const dt = new DataTransfer();
          dt.items.add(new File([bytes], n, { type: "application/octet-stream" }));
          const el = document.querySelector(".term-wrap");
          el.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
          el.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
        },
        [name, size],
      );
    const expected = (len) => Buffer.from(Array.from({ length: len }, (_, i) => (i * 31 + 7) & 0xff));
    // Three pieces of at most 192 KiB.
    const size = 450 * 1024;
    await drop("dropped.bin", size);
    await page.getByText(`Uploaded dropped.bin to ${join(workDir, "dropped.bin")}`).waitFor({ timeout: 30_000 });
    assert.deepEqual(await readFile(join(workDir, "dropped.bin")), expected(size));
    // The same name again: the plane asks before replacing it.
    await drop("dropped.bin", 1000);
    const ask = page.getByRole("dialog", { name: "Replace the file?" });
    await ask.waitFor();
    await ask.getByRole("button", { name: "Replace" }).click();
    await waitFor("the replaced file", async () => (await stat(join(workDir, "dropped.bin"))).size === 1000, 20_000);
    assert.deepEqual(await readFile(join(workDir, "dropped.bin")), expected(1000));
  });

  test("files: upload from the page, download, send into the pane, delete", async () => {
    await page.getByRole("link", { name: "Files", exact: true }).click();
    await page.waitForURL(/\/files$/);
    await page.getByText("No files yet.").waitFor();
    // Two pieces of at most 192 KiB.
    const name = "kept-file.bin";
    const content = Buffer.from(Array.from({ length: 300 * 1024 + 17 }, (_, i) => (i * 7 + 3) & 0xff));
    const sha256 = createHash("sha256").update(content).digest("hex");
    await page.getByLabel("Choose files").setInputFiles({ name, mimeType: "application/octet-stream", buffer: content });
    await page.getByTestId("uploads").locator('[data-state="done"]').waitFor({ timeout: 20_000 });
    const row = page.locator(`tr[data-name="${name}"]`);
    await row.waitFor();
    assert.equal(await row.getAttribute("data-size"), String(content.length));
    assert.equal(await row.getAttribute("data-sha256"), sha256);
    await row.getByText(`${sha256.slice(0, 12)}…`).waitFor();
    await row.getByText("300.0 KiB").waitFor();
    const fileId = await row.getAttribute("data-id");
    // Download: a plain link, the session cookie is enough.
    const [download] = await Promise.all([page.waitForEvent("download"), row.getByRole("link", { name: `Download ${name}` }).click()]);
    assert.equal(download.suggestedFilename(), name);
    assert.deepEqual(await readFile(await download.path()), content);
    await capture(page, "files");
    // Into the running pane's directory.
    const paneId = paneUrl.split("/").pop();
    await row.getByRole("button", { name: /^Send to a pane/ }).click();
    const dialog = page.getByRole("dialog", { name: `Send ${name} to a pane` });
    await dialog.getByLabel("Subshell").selectOption(paneId);
    await dialog.getByText(workDir, { exact: true }).waitFor();
    await capture(page, "files-send", { phone: false });
    await dialog.getByRole("button", { name: "Send", exact: true }).click();
    await dialog.waitFor({ state: "hidden" });
    await page.getByText(`Sent ${name} to ${join(workDir, name)}`).waitFor();
    assert.deepEqual(await readFile(join(workDir, name)), content);
    // Again: the file is there, the dialog offers to replace it.
    await row.getByRole("button", { name: /^Send to a pane/ }).click();
    await dialog.getByLabel("Subshell").selectOption(paneId);
    await dialog.getByRole("button", { name: "Send", exact: true }).click();
    await dialog.getByText(`${join(workDir, name)} already exists in the pane's directory.`).waitFor();
    await dialog.getByRole("button", { name: "Replace it" }).click();
    await dialog.waitFor({ state: "hidden" });
    // The pane's shell sees it.
    await page.goto(paneUrl);
    await live(page);
    await typeInTerminal(page, `ls ${name}\n`);
    await waitLine(page, name);
    // Delete it; its content is gone from the plane.
    await page.getByRole("link", { name: "Files", exact: true }).click();
    await row.getByRole("button", { name: `Delete ${name}` }).click();
    await page.getByRole("dialog", { name: `Delete ${name}?` }).getByRole("button", { name: "Delete", exact: true }).click();
    await row.waitFor({ state: "detached" });
    await page.getByText("No files yet.").waitFor();
    const gone = await page.evaluate(async (id) => (await fetch(`/api/files/${id}/content`)).status, fileId);
    assert.equal(gone, 404);
  });

  test("a read-only share: the reader watches and cannot type", async () => {
    await page.goto("/settings/users");
    await page.getByRole("button", { name: "Add user" }).click();
    const dialog = page.getByRole("dialog", { name: "Add user" });
    await dialog.getByLabel("Name").fill(READER.name);
    await dialog.getByLabel("Email").fill(READER.email);
    await dialog.getByLabel("Initial password").fill(READER.password);
    await dialog.getByLabel("Role").selectOption("user");
    await dialog.getByRole("button", { name: "Create" }).click();
    await page.locator(`tr[data-email="${READER.email}"]`).waitFor();
    await capture(page, "settings-users");

    await page.goto(paneUrl);
    await live(page);
    await page.getByText("Actions").click();
    await page.getByRole("button", { name: "Share…" }).click();
    const share = page.getByRole("dialog", { name: /^Share / });
    await share.getByLabel("Account").selectOption({ label: `${READER.name} (${READER.email})` });
    await share.getByLabel("Access").selectOption("read");
    await share.getByRole("button", { name: "Share", exact: true }).click();
    await share.getByText(READER.email).waitFor();
    await axe(page, "share dialog");
    await page.screenshot({ path: join(SHOTS, "subshell-share-1280x800.png") });
    await share.getByRole("button", { name: "Close dialog" }).click();

    const readerCtx = await newContext();
    const rp = await readerCtx.newPage();
    await signIn(rp, READER);
    // A person who is not an administrator sees no administration.
    assert.equal(await rp.getByRole("link", { name: "Settings" }).count(), 0);
    await rp.getByRole("link", { name: "ui-shell" }).click();
    await live(rp);
    await rp.getByTestId("readonly").waitFor();
    await waitLine(rp, "hi");
    await capture(rp, "subshell-readonly", { phone: false });
    await typeInTerminal(rp, "echo typed-by-reader\n");
    await sleep(1500);
    const lines = await screenLines(page);
    assert.ok(!lines.some((l) => l.includes("typed-by-reader")), "the reader's keys reached the pane");
    // A share carries no lifecycle: the owner's actions are not offered.
    await rp.locator("summary", { hasText: "Actions" }).click();
    await rp.getByRole("button", { name: "Reconnect" }).waitFor();
    for (const owners of ["Restart", "Terminate", "Kill", "Delete"]) {
      assert.equal(await rp.getByRole("button", { name: owners, exact: true }).count(), 0, `${owners} offered to a reader`);
    }
    // A menu closes on Escape, focus back on its button.
    await rp.keyboard.press("Escape");
    await rp.getByRole("button", { name: "Reconnect" }).waitFor({ state: "hidden" });
    assert.equal(await rp.evaluate(() => document.activeElement?.textContent), "Actions");
    // The owner raises the share while the reader watches: the reader's view comes back able
    // to type (the plane closes the old socket; the app asks again), then read-only again
    // when the share is lowered — never "access ended" while access remains.
    const setShare = (access) =>
      page.evaluate(
        async ([pane, email, a]) => {
          const users = await (await fetch("/api/users")).json();
          const u = users.find((x) => x.email === email);
          const r = await fetch(`/api/subshells/${pane}/shares/${u.id}`, {
            method: "PUT",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ access: a }),
          });
          return r.status;
        },
        [paneUrl.split("/").pop(), READER.email, access],
      );
    assert.equal(await setShare("write"), 200);
    await rp.getByTestId("readonly").waitFor({ state: "detached" });
    await live(rp);
    await typeInTerminal(rp, "echo typed-by-$((1+1))-sharers\n");
    await waitLine(page, "typed-by-2-sharers");
    assert.equal(await setShare("read"), 200);
    await rp.getByTestId("readonly").waitFor();
    await live(rp);
    // The reader's settings address shows no admin content either.
    await rp.goto("/settings/keys");
    await rp.getByRole("heading", { name: "Administrators only" }).waitFor();
  });

  test("a person with no node of their own is offered to add one, not a node they may not use", async () => {
    const ctx = await newContext();
    const rp = await ctx.newPage();
    await signIn(rp, READER);
    // The plane says where they may launch: not on its own host.
    const listed = await rp.evaluate(async () => (await (await fetch("/api/nodes")).json()).map((n) => [n.isLocal, n.canLaunch]));
    assert.deepEqual(listed, [[true, false]]);
    // The launch dialog offers no node it would refuse, says why, and the way forward.
    await rp.getByRole("button", { name: "Launch" }).click();
    const dialog = rp.getByRole("dialog", { name: "Launch a subshell" });
    await dialog.getByTestId("no-launch-node").waitFor();
    assert.equal(await dialog.getByLabel("Node").count(), 0, "a node select is offered");
    assert.equal(await dialog.getByText("Checking the node…").count(), 0);
    assert.equal(await dialog.getByText("may not launch subshells").count(), 0);
    await axe(rp, "launch dialog without a node");
    await rp.screenshot({ path: join(SHOTS, "subshells-launch-no-node-1280x800.png") });
    await dialog.getByRole("link", { name: "Add a node" }).click();
    await rp.waitForURL((u) => u.pathname === "/nodes");
    const add = rp.getByRole("dialog", { name: "Add a node" });
    await add.waitFor();
    await add.getByRole("button", { name: "Close dialog" }).click();
    await rp.waitForURL((u) => u.pathname === "/nodes" && u.search === "");
    await ctx.close();
  });

  test("a pane shared with a person says whose it is in their list", async () => {
    const paneId = paneUrl.split("/").pop();
    const ctx = await newContext();
    const rp = await ctx.newPage();
    await signIn(rp, READER);
    const row = rp.locator(`tr[data-id="${paneId}"]`);
    await row.getByTestId("shared-with-you").waitFor();
    await row.getByTestId("owner").getByText(ADMIN.name, { exact: true }).waitFor();
    assert.equal(await row.getAttribute("data-owner"), "other");
    await axe(rp, "subshells shared with the reader");
    await ctx.close();
    // The administrator's own list has no such marks.
    await page.goto("/subshells");
    await page.locator(`tr[data-id="${paneId}"][data-owner="me"]`).waitFor();
    assert.equal(await page.getByTestId("shared-with-you").count(), 0);
    await page.goto(paneUrl);
    await live(page);
  });

  test("the share dialog warns plainly before it hands out write access", async () => {
    await page.getByText("Actions").click();
    await page.getByRole("button", { name: "Share…" }).click();
    const share = page.getByRole("dialog", { name: /^Share / });
    const warning = share.getByTestId("write-share-warning");
    await share.getByLabel("Access", { exact: true }).selectOption("read");
    assert.equal(await warning.count(), 0, "a warning for read access");
    await share.getByLabel("Access", { exact: true }).selectOption("write");
    await warning.waitFor();
    const text = await warning.innerText();
    assert.match(text, /full control of this pane/);
    assert.match(text, /token/);
    assert.match(text, /read every subshell of its owner/);
    await share.getByRole("button", { name: "Share with write access" }).waitFor();
    assert.equal(await share.getByLabel("Access", { exact: true }).getAttribute("aria-describedby"), "share-write-warning");
    await axe(page, "share dialog, write chosen");
    await page.screenshot({ path: join(SHOTS, "subshell-share-write-1280x800.png") });
    // Raising an existing share asks first with the same words; declining keeps it read-only.
    const readerRow = share.locator(".list-row", { hasText: READER.email });
    await readerRow.getByRole("combobox").selectOption("write");
    const ask = page.getByRole("dialog", { name: `Let ${READER.name} type into ui-shell?` });
    await ask.getByText(/run commands as its program/).waitFor();
    await ask.getByRole("button", { name: "Cancel" }).click();
    const shares = await page.evaluate(async (id) => (await fetch(`/api/subshells/${id}/shares`)).json(), paneUrl.split("/").pop());
    assert.deepEqual(
      shares.map((x) => x.access),
      ["read"],
      "declining the warning still raised the share",
    );
    await share.getByLabel("Access", { exact: true }).selectOption("read");
    await share.getByRole("button", { name: "Close dialog" }).click();
  });

  test("channels: a signed entry, checked again here, and a read member who follows it live", async () => {
    await page.goto("/channels");
    await page.getByRole("heading", { name: "Your channels" }).waitFor();
    await page.getByText("No channels yet.", { exact: false }).waitFor();
    await page.getByRole("button", { name: "New channel" }).click();
    const dialog = page.getByRole("dialog", { name: "New channel" });
    await dialog.getByLabel("Name").fill("deploys");
    await dialog.getByLabel("Description").fill("Release notes from the agents");
    await dialog.getByRole("button", { name: "Create channel" }).click();
    await page.waitForURL(/\/channels\/[0-9a-f]+$/);
    const channelId = new URL(page.url()).pathname.split("/").pop();
    const channelPath = `/channels/${channelId}`;
    await page.getByRole("heading", { name: "deploys", exact: true }).waitFor();
    await page.getByText("No entries yet.", { exact: false }).waitFor();

    // The first post makes this browser's identity, then signs and posts.
    const first = "Deploy plan\nstep 1: café ✓";
    await page.getByLabel("Message").fill(first);
    await page.getByRole("button", { name: "Post", exact: true }).click();
    const e1 = page.getByTestId("entries").locator('li[data-seq="1"]');
    await e1.waitFor();
    assert.equal(await e1.getAttribute("data-verified"), "yes");
    await e1.locator(".badge-ok", { hasText: "Verified" }).waitFor();
    assert.equal(await e1.locator("pre.entry-body").textContent(), first);
    assert.equal(await page.getByLabel("Message").inputValue(), "");
    await page.getByTestId("entry-count").getByText("1 entry").waitFor();
    // The identity shown by the composer is the entry's author.
    const signing = page.locator('[data-testid="signing-as"][data-thumbprint]');
    await signing.waitFor();
    const identityId = await signing.getAttribute("data-identity");
    const thumb = await signing.getAttribute("data-thumbprint");
    assert.equal(await e1.getAttribute("data-identity"), identityId);
    assert.equal(await e1.getAttribute("data-thumbprint"), thumb);
    await e1.getByText(thumb, { exact: true }).waitFor();
    const identity = await page.evaluate(async (id) => (await fetch(`/api/identities/${id}`)).json(), identityId);
    assert.equal(identity.thumbprint, thumb);
    assert.equal(identity.revokedAt, null);
    assert.equal(await e1.locator(".entry-author strong").textContent(), identity.name);
    await signing.getByText(identity.name, { exact: true }).waitFor();

    // The private key is in IndexedDB, and not extractable.
    const me = await page.evaluate(async () => (await fetch("/api/auth/session")).json());
    const kept = await page.evaluate(async (userId) => {
      const db = await new Promise((ok, fail) => {
        const r = indexedDB.open("termplane");
        r.onsuccess = () => ok(r.result);
        r.onerror = () => fail(r.error);
      });
      const rec = await new Promise((ok, fail) => {
        const r = db.transaction("identities").objectStore("identities").get(userId);
        r.onsuccess = () => ok(r.result);
        r.onerror = () => fail(r.error);
      });
      db.close();
      if (!rec) return null;
      const key = rec.keyPair.privateKey;
      let exported = "exported";
      try {
        await crypto.subtle.exportKey("pkcs8", key);
      } catch (e) {
        exported = e.name;
      }
      return {
        identityId: rec.identityId,
        isCryptoKey: key instanceof CryptoKey,
        type: key.type,
        extractable: key.extractable,
        algorithm: key.algorithm.name,
        curve: key.algorithm.namedCurve,
        exported,
      };
    }, me.id);
    assert.ok(kept, "the key pair is kept in IndexedDB under the account's id");
    assert.equal(kept.identityId, identityId);
    assert.equal(kept.isCryptoKey, true);
    assert.equal(kept.type, "private");
    assert.equal(kept.extractable, false, "the private key is extractable");
    assert.equal(kept.algorithm, "ECDSA");
    assert.equal(kept.curve, "P-256");
    assert.equal(kept.exported, "InvalidAccessError");

    // The entry verifies here, from the documented texts and the identity's public key alone.
    const read = await page.evaluate(async (id) => (await fetch(`/api/channels/${id}/entries?after=0&limit=10`)).json(), channelId);
    assert.equal(read.entries.length, 1);
    assert.deepEqual(read.head, { seq: 1, hash: read.entries[0].hash });
    assert.equal(read.next, 1);
    const entry = read.entries[0];
    assert.equal(entry.channelId, channelId);
    assert.equal(entry.seq, 1);
    assert.equal(entry.identityId, identityId);
    assert.equal(entry.prev, "0".repeat(64));
    assert.equal(entry.body, first);
    assert.equal(entry.verified, true);
    assert.equal(entry.problem, null);
    assert.equal(entry.author.userId, me.id);
    assert.equal(entry.author.subshellId, null);
    assert.equal(entry.author.thumbprint, thumb);
    const sha256hex = (text) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");
    const signingInput = (e, body) =>
      ["termplane-channel-entry/1", `channel=${e.channelId}`, `seq=${e.seq}`, `prev=${e.prev}`, `identity=${e.identityId}`, `sha256=${sha256hex(body)}`].join("\n");
    const input = signingInput(entry, first);
    assert.equal(entry.hash, sha256hex(input));
    const { x, y } = identity.publicKey;
    assert.deepEqual(identity.publicKey, { kty: "EC", crv: "P-256", x, y });
    const canonical = `{"crv":"P-256","kty":"EC","x":"${x}","y":"${y}"}`;
    assert.equal(createHash("sha256").update(canonical).digest("base64url"), thumb, "the RFC 7638 thumbprint");
    const publicKey = createPublicKey({ key: { kty: "EC", crv: "P-256", x, y }, format: "jwk" });
    const signature = Buffer.from(entry.signature, "base64url");
    assert.equal(signature.length, 64);
    const verifies = (text) => verifySignature("sha256", Buffer.from(text, "utf8"), { key: publicKey, dsaEncoding: "ieee-p1363" }, signature);
    assert.equal(verifies(input), true, "the signature verifies with the identity's key");
    assert.equal(verifies(signingInput(entry, "Deploy plan\nstep 1: cafe ✓")), false, "a changed body verifies");
    assert.equal(verifies(signingInput({ ...entry, seq: 2 }, first)), false, "a changed seq verifies");

    // The reader becomes a read member.
    await page.getByLabel("Account", { exact: true }).selectOption({ label: `${READER.name} (${READER.email})` });
    await page.getByLabel("Access", { exact: true }).selectOption("read");
    await page.getByRole("button", { name: "Add member" }).click();
    await page.getByTestId("members").locator(`li[data-email="${READER.email}"][data-access="read"]`).waitFor();
    await page.getByText(`${READER.name} added (read only).`).waitFor();
    await capture(page, "channel");

    // The reader, in a browser of their own: the entry, verified; no composer.
    const readerCtx = await newContext();
    const rp = await readerCtx.newPage();
    await signIn(rp, READER);
    await rp.getByRole("link", { name: "Channels", exact: true }).click();
    await rp.waitForURL(/\/channels$/);
    const row = rp.locator(`tr[data-id="${channelId}"]`);
    await row.getByText("Read only", { exact: true }).waitFor();
    await row.getByRole("link", { name: "deploys" }).click();
    await rp.waitForURL(new RegExp(`${channelPath}$`));
    const r1 = rp.getByTestId("entries").locator('li[data-seq="1"][data-verified="yes"]');
    await r1.waitFor();
    await r1.locator(".badge-ok", { hasText: "Verified" }).waitFor();
    assert.equal(await r1.locator("pre.entry-body").textContent(), first);
    assert.equal(await r1.getAttribute("data-thumbprint"), thumb);
    await rp.getByTestId("channel-readonly").waitFor();
    assert.equal(await rp.getByTestId("composer").count(), 0);
    assert.equal(await rp.getByLabel("Message").count(), 0);
    assert.equal(await rp.getByRole("button", { name: "Delete channel" }).count(), 0);
    await rp.getByRole("button", { name: "Leave" }).waitFor();
    await capture(rp, "channel-readonly");

    // The administrator posts again (Ctrl+Enter); the reader's page shows it without a reload.
    await rp.getByRole("status").filter({ hasText: /^(Connecting|Offline, retrying)$/ }).waitFor({ state: "detached" });
    await rp.evaluate(() => {
      window.__sameDocument = true;
    });
    const second = "step 2: migrate\n  done — 2 tables";
    await page.getByLabel("Message").fill(second);
    await page.getByLabel("Message").press("Control+Enter");
    await page.getByTestId("entries").locator('li[data-seq="2"][data-verified="yes"]').waitFor();
    const r2 = rp.getByTestId("entries").locator('li[data-seq="2"][data-verified="yes"]');
    await r2.waitFor({ timeout: 15_000 });
    assert.equal(await r2.locator("pre.entry-body").textContent(), second);
    await rp.getByTestId("entry-count").getByText("2 entries").waitFor();
    assert.equal(await rp.evaluate(() => window.__sameDocument), true, "the reader's page was reloaded");
    // The chain: the second entry follows the first.
    const next = await rp.evaluate(async (id) => (await fetch(`/api/channels/${id}/entries?after=1`)).json(), channelId);
    assert.equal(next.entries.length, 1);
    assert.equal(next.entries[0].prev, entry.hash);
    assert.equal(next.entries[0].verified, true);

    // The reader leaves; the channel is gone for them.
    await rp.getByRole("button", { name: "Leave" }).click();
    await rp.getByRole("dialog", { name: "Leave deploys?" }).getByRole("button", { name: "Leave", exact: true }).click();
    await rp.waitForURL(/\/channels$/);
    await rp.getByText("You left deploys.").waitFor();
    await rp.getByText("No channels yet.", { exact: false }).waitFor();
    assert.equal(await rp.evaluate(async (id) => (await fetch(`/api/channels/${id}`)).status, channelId), 404);

    // The list: two entries, and this browser's identity with its thumbprint.
    await page.goto("/channels");
    await page.locator(`tr[data-id="${channelId}"][data-entries="2"]`).getByText("Owner", { exact: true }).waitFor();
    await page.locator(`[data-testid="identity"][data-thumbprint="${thumb}"]`).getByText(thumb, { exact: true }).waitFor();
  });

  test("phone layout: the key row's Ctrl then c interrupts a command", async () => {
    const phone = await newContext({
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
      storageState: await admin.storageState(),
    });
    const pp = await phone.newPage();
    await pp.goto(paneUrl);
    await live(pp);
    const row = pp.getByRole("toolbar", { name: "Terminal keys" });
    await row.waitFor();
    assert.equal(await row.isVisible(), true);
    await typeInTerminal(pp, "clear; sleep 100\n");
    await sleep(800);
    await row.getByRole("button", { name: "Ctrl", exact: true }).tap();
    assert.equal(await row.getByRole("button", { name: "Ctrl", exact: true }).getAttribute("aria-pressed"), "true");
    await pp.keyboard.type("c");
    await typeInTerminal(pp, "echo back-$((40+2))\n");
    await waitLine(pp, "back-42", 8_000);
    await capture(pp, "subshell-phone", { phone: false });
    // The other keys: Tab completes, arrows recall history.
    await row.getByRole("button", { name: "Up arrow" }).tap();
    await typeInTerminal(pp, "\n");
    await waitFor("the recalled command to run twice", async () => (await screenLines(pp)).filter((l) => l.trim() === "back-42").length >= 2, 8_000);
    await pp.goto("/subshells");
    await pp.getByTestId("subshells").waitFor();
    await axe(pp, "subshells @390 (phone)");
    await pp.screenshot({ path: join(SHOTS, "subshells-phone-390x844.png") });
    await pp.getByRole("button", { name: "Menu" }).tap();
    await pp.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Nodes" }).waitFor();
    await pp.screenshot({ path: join(SHOTS, "menu-phone-390x844.png") });
  });

  test("a phone on its side keeps the key row, and the terminal gets most of the height", async () => {
    const LANDSCAPE = { width: 844, height: 390 };
    const land = await newContext({
      viewport: LANDSCAPE,
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
      storageState: await admin.storageState(),
    });
    const lp = await land.newPage();
    await lp.goto(paneUrl);
    await live(lp);
    const row = lp.getByRole("toolbar", { name: "Terminal keys" });
    await row.waitFor();
    assert.equal(await row.isVisible(), true, "the key row is hidden on a phone on its side");
    // The app's header gives way; the pane's own bar keeps the way back.
    assert.equal(await lp.locator("header.top").isVisible(), false, "the app's header takes room on a short screen");
    await lp.getByRole("link", { name: "Back to subshells" }).waitFor();
    const term = await lp.getByTestId("terminal").boundingBox();
    assert.ok(term.height >= LANDSCAPE.height * 0.6, `the terminal is ${term.height}px of ${LANDSCAPE.height}`);
    // The row's keys work there too.
    await typeInTerminal(lp, "echo side");
    await row.getByRole("button", { name: "Left arrow" }).tap();
    await row.getByRole("button", { name: "Left arrow" }).tap();
    await row.getByRole("button", { name: "Left arrow" }).tap();
    await row.getByRole("button", { name: "Left arrow" }).tap();
    await typeInTerminal(lp, "ways-\n");
    await waitLine(lp, "ways-side");
    await axe(lp, "subshell @844x390 (phone on its side)");
    await lp.screenshot({ path: join(SHOTS, "subshell-phone-landscape-844x390.png") });
    await land.close();
    // A mouse and a keyboard get no key row, however narrow the window.
    const narrow = await newContext({ viewport: PHONE, storageState: await admin.storageState() });
    const np = await narrow.newPage();
    await np.goto(paneUrl);
    await live(np);
    assert.equal(await np.getByRole("toolbar", { name: "Terminal keys" }).isVisible(), false, "a key row without touch");
    await narrow.close();
  });

  test("a phone that only watches leaves a desktop's grid alone; one that types holds it, and the desktop says whose size it shows", async () => {
    const desk = await admin.newPage();
    await desk.goto("/subshells");
    const sub = await launchShell(desk, "ui-sizing");
    await desk.goto(`/subshells/${sub.id}`);
    await live(desk);
    await desk.locator(".xterm-rows").waitFor();
    const grid = async (p) => {
      const g = p.getByTestId("grid");
      return {
        cols: Number(await g.getAttribute("data-cols")),
        rows: Number(await g.getAttribute("data-rows")),
        ownCols: Number(await g.getAttribute("data-own-cols")),
        ownRows: Number(await g.getAttribute("data-own-rows")),
      };
    };
    // The pane has the desktop's own grid (its window's), as nobody smaller takes part.
    const fitsDesk = async () => {
      const g = await grid(desk);
      return g.cols > 100 && g.cols === g.ownCols && g.rows === g.ownRows ? g : null;
    };
    const wide = await waitFor("the desktop's grid", fitsDesk);
    const phone = await newContext({
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
      storageState: await admin.storageState(),
    });
    const pp = await phone.newPage();
    await pp.goto(`/subshells/${sub.id}`);
    await live(pp);
    // The desktop hears of the phone and keeps its own grid (a phone taking part would hold
    // the pane to its 40-odd columns).
    await desk.locator('[data-testid="viewers"][data-count="2"]').waitFor();
    await waitFor("the pane to keep the desktop's grid", fitsDesk);
    assert.equal(await desk.getByTestId("sized-to").count(), 0);
    // The phone shows the larger pane as it is, says so, and is out of sizing by default.
    await pp.getByTestId("larger-pane").waitFor();
    await pp.locator("summary", { hasText: "Actions" }).tap();
    assert.equal(await pp.getByTestId("sizing-toggle").getAttribute("aria-pressed"), "true");
    await pp.locator("summary", { hasText: "Actions" }).tap();
    // Typing on the phone: it takes part, the pane takes its grid, and the desktop says why.
    await typeInTerminal(pp, "echo from-the-phone\n");
    const small = await waitFor("the phone's grid on the desktop", async () => {
      const g = await grid(desk);
      return g.cols < wide.cols / 2 ? g : null;
    });
    const notice = desk.getByTestId("sized-to");
    await notice.waitFor();
    assert.match(await notice.innerText(), new RegExp(`Sized to your phone's ${small.cols}×${small.rows}\\.`));
    const unused = desk.getByTestId("unused-area");
    await unused.waitFor();
    const strip = await desk.locator(".term-unused-right").boundingBox();
    const termBox = await desk.getByTestId("terminal").boundingBox();
    assert.ok(strip && strip.width > termBox.width / 3, `the unused columns are marked: ${JSON.stringify(strip)}`);
    await pp.getByTestId("holding-size").waitFor();
    await capture(desk, "subshell-sized-to-phone", { phone: false });
    await capture(pp, "subshell-phone-holds-size", { phone: false });
    // "Don't resize others" on the phone: the desktop's grid comes back, the notice goes.
    await pp.getByTestId("holding-size").getByRole("button", { name: "Don't resize others" }).tap();
    // The notice's rows go back to the desktop's box, which the pane then fills: until it has,
    // the new rows are hatched for a moment. Asked together, once all of it has settled.
    await waitFor(
      "the desktop's grid again, with no notice and nothing hatched",
      async () => (await fitsDesk()) && (await notice.count()) === 0 && (await unused.count()) === 0,
    );
    // The choice is kept on the phone: after a reload, typing there no longer resizes.
    await pp.reload();
    await live(pp);
    await pp.locator("summary", { hasText: "Actions" }).tap();
    assert.equal(await pp.getByTestId("sizing-toggle").getAttribute("aria-pressed"), "true");
    await pp.locator("summary", { hasText: "Actions" }).tap();
    await desk.locator('[data-testid="viewers"][data-count="2"]').waitFor();
    await typeInTerminal(pp, "echo still-$((40+2))\n");
    await waitLine(desk, "still-42");
    await waitFor("the pane to keep the desktop's grid while the phone types", fitsDesk);
    assert.equal(await desk.getByTestId("sized-to").count(), 0);
    // Taking part again is the toggle's other side.
    await pp.locator("summary", { hasText: "Actions" }).tap();
    await pp.getByTestId("sizing-toggle").tap();
    await waitFor("the phone's grid again", async () => (await grid(desk)).cols < wide.cols / 2);
    await phone.close();
    await desk.close();
  });

  test("account: a wrong current password is refused; the new password signs in", async () => {
    const next = "a new passphrase for Ada";
    await page.getByRole("link", { name: ADMIN.name }).click();
    await page.waitForURL(/\/account$/);
    await page.getByRole("heading", { name: "Password", exact: true }).waitFor();
    await page.getByLabel("Current password").fill("not the password at all");
    await page.getByLabel("New password", { exact: true }).fill(next);
    await page.getByLabel("New password again").fill(next);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("The current password is wrong.").waitFor();
    await page.getByLabel("Current password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Password changed; your other sessions ended.").waitFor();
    assert.equal(await page.getByLabel("Current password").inputValue(), "");
    // From here on the administrator signs in with the new one.
    const old = ADMIN.password;
    ADMIN.password = next;
    await page.getByRole("button", { name: "Sign out" }).first().click();
    await page.waitForURL(/\/sign-in/);
    const refused = await page.evaluate(
      async ([email, password]) => (await fetch("/api/auth/sign-in", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ email, password }) })).status,
      [ADMIN.email, old],
    );
    assert.equal(refused, 401, "the old password still signs in");
    await signIn(page, ADMIN);
    await page.getByRole("link", { name: ADMIN.name }).waitFor();
  });

  test("notifications: preferences round trip, push explained, and a pane's exit reaches the inbox", async () => {
    // A shell of the administrator's own that ends badly while nobody watches it (the plane
    // never tells a person of a pane they have open): the plane tells its owner. (Exit code
    // 3: a pane that ends is "crashed" whether its exit code or only its absence is seen first;
    // an exit code of 0 is "exited" only when the node's exit check sees the pane first.)
    const pane = await launchShell(page, "ui-exit");
    await waitFor("the shell to run", async () =>
      page.evaluate(async (id) => (await (await fetch(`/api/subshells/${id}`)).json()).state === "running", pane.id),
    );
    const typed = await page.evaluate(
      async (id) =>
        (
          await fetch(`/api/subshells/${id}/input`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ text: "exit 3", keys: ["enter"] }),
          })
        ).status,
      pane.id,
    );
    assert.equal(typed, 200);

    await page.goto("/account");
    const prefs = page.getByRole("group", { name: "Tell me when" });
    const box = (label) => prefs.getByLabel(label);
    await box("One of my nodes goes offline").waitFor();
    for (const label of ["One of my subshells needs input", "One of my subshells exits or its agent is done", "One of my subshells crashes, its pane vanishes or its agent fails", "One of my nodes goes offline"]) {
      assert.equal(await box(label).isChecked(), true, `${label} is on at first`);
    }
    await box("One of my subshells needs input").uncheck();
    await box("One of my nodes goes offline").uncheck();
    await page.getByRole("button", { name: "Save notification settings" }).click();
    await page.getByText("Notification settings saved.").waitFor();
    await page.reload();
    await box("One of my nodes goes offline").waitFor();
    assert.equal(await box("One of my subshells needs input").isChecked(), false);
    assert.equal(await box("One of my nodes goes offline").isChecked(), false);
    assert.equal(await box("One of my subshells exits or its agent is done").isChecked(), true);
    const stored = await page.evaluate(async () => (await fetch("/api/notifications/preferences")).json());
    assert.deepEqual(stored, { needsInput: false, exited: true, crashed: true, nodeOffline: false });
    // Quiet hours: kept in the person's time zone, refused with the field named when wrong.
    await page.getByLabel("Keep my devices quiet during these hours (the inbox still gets everything)").check();
    await page.getByLabel("From").fill("22:30");
    await page.getByLabel("To").fill("06:45");
    await page.getByLabel("Time zone").fill("Mars/Olympus_Mons");
    await page.getByRole("button", { name: "Save notification settings" }).click();
    await page.getByText(/IANA time zone name/).waitFor();
    await page.getByLabel("Time zone").fill("Europe/Berlin");
    await page.getByRole("button", { name: "Save notification settings" }).click();
    await page.getByText("Notification settings saved.").waitFor();
    await page.reload();
    await page.getByLabel("Time zone").waitFor();
    assert.equal(await page.getByLabel("From").inputValue(), "22:30");
    assert.equal(await page.getByLabel("Time zone").inputValue(), "Europe/Berlin");
    const withQuiet = await page.evaluate(async () => (await fetch("/api/notifications/preferences")).json());
    assert.deepEqual(withQuiet.quietHours, { from: "22:30", to: "06:45", timeZone: "Europe/Berlin" });
    await page.getByLabel("Keep my devices quiet during these hours (the inbox still gets everything)").uncheck();
    await box("One of my subshells needs input").check();
    await box("One of my nodes goes offline").check();
    await page.getByRole("button", { name: "Save notification settings" }).click();
    await page.getByText("Notification settings saved.").waitFor();

    // Push: no device yet. Headless Chromium has no push service: the page says why.
    const push = page.locator("#push");
    await push.getByText("No device receives push notifications.").waitFor();
    await admin.grantPermissions(["clipboard-read", "clipboard-write", "notifications"], { origin: base });
    await push.getByRole("button", { name: "Turn on for this browser" }).click();
    await push.getByText(/push service did not give a subscription|receives push notifications as/).waitFor({ timeout: 20_000 });
    // The worker itself installed under the page's policy.
    const worker = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration("/"))?.active?.scriptURL ?? null);
    assert.equal(worker, `${base}/sw.js`);
    await page.locator("#notifications").scrollIntoViewIfNeeded();
    await capture(page, "account-notifications");

    // The inbox has the exit (the local node looks at its panes every few seconds).
    await page.getByRole("link", { name: /^Inbox/ }).click();
    await page.waitForURL(/\/notifications$/);
    const item = page.getByTestId("inbox").locator('li[data-kind="crashed"]', { hasText: "ui-exit crashed" });
    await item.waitFor({ timeout: 20_000 });
    await item.getByText(/^shell(?: ended with exit code 3|'s pane is gone) ·/).waitFor();
    assert.equal(await item.getAttribute("data-read"), "no");
    await page.getByTestId("unread").waitFor();
    await capture(page, "notifications");
    await page.getByRole("button", { name: "Mark all read" }).click();
    await page.getByText(/^\d+ notifications? marked read\.$/).waitFor();
    await page.getByTestId("unread").waitFor({ state: "detached" });
    await page.getByTestId("inbox").locator('li[data-kind="crashed"][data-read="yes"]', { hasText: "ui-exit crashed" }).waitFor();
    await item.getByRole("link", { name: "ui-exit crashed" }).click();
    await page.waitForURL(new RegExp(`/subshells/${pane.id}$`));
    await page.locator('[data-status="crashed"]').first().waitFor();
    // Its owner mutes it from its page, and the plane keeps the mute.
    await page.locator("details.menu summary").click();
    await page.getByRole("button", { name: "Mute notifications" }).click();
    await page.getByText("Notifications of this subshell are muted.").waitFor();
    const mutes = await page.evaluate(async () => (await fetch("/api/notifications/mutes")).json());
    assert.deepEqual(mutes.map((m) => m.subshellId), [pane.id]);
    if (!(await page.locator("details.menu[open]").count())) await page.locator("details.menu summary").click();
    await page.getByRole("button", { name: "Unmute notifications" }).click();
    await page.getByText("Notifications of this subshell are on again.").waitFor();
    assert.deepEqual(await page.evaluate(async () => (await fetch("/api/notifications/mutes")).json()), []);
    if (await page.locator("details.menu[open]").count()) await page.locator("details.menu summary").click();
    // Restart from the banner: the pane runs again, watched by this one window once (not by
    // a second socket the page opened beside the first).
    await page.locator(".note", { hasText: "The pane's program ended" }).getByRole("button", { name: "Restart" }).click();
    await live(page);
    await page.locator('[data-testid="viewers"][data-count="1"]').waitFor();
    await sleep(1_000);
    assert.equal(await page.getByTestId("viewers").getAttribute("data-count"), "1", "one viewer after the restart");
  });

  test("users: rename, promote, reset a password and sign in as them, demote, delete", async () => {
    await page.goto("/settings/users");
    const row = page.locator(`tr[data-email="${READER.email}"]`);
    const menu = async (r, action) => {
      await r.locator("summary").click();
      await r.getByRole("button", { name: action, exact: true }).click();
    };
    // Rename.
    await menu(row, "Rename…");
    const rename = page.getByRole("dialog", { name: `Rename ${READER.name}` });
    READER.name = "Rita Root";
    await rename.getByLabel("Name").fill(READER.name);
    await rename.getByRole("button", { name: "Save" }).click();
    await row.getByText(READER.name, { exact: true }).waitFor();
    // Promote.
    await menu(row, "Make administrator");
    await page.getByRole("dialog", { name: `Make ${READER.name} an administrator?` }).getByRole("button", { name: "Make administrator" }).click();
    await page.locator(`tr[data-email="${READER.email}"][data-role="admin"]`).waitFor();
    await row.getByText("Administrator", { exact: true }).waitFor();
    // A new password; they sign in with it elsewhere, an administrator now.
    await menu(row, "Set password…");
    const reset = page.getByRole("dialog", { name: `Set a password for ${READER.name}` });
    READER.password = "set by the administrator 2";
    await reset.getByLabel("New password").fill(READER.password);
    await reset.getByRole("button", { name: "Set password" }).click();
    await page.getByText(`New password set for ${READER.name}; their sessions ended.`).waitFor();
    const ctx = await newContext();
    const rita = await ctx.newPage();
    await signIn(rita, READER);
    await rita.getByRole("link", { name: "Settings" }).waitFor();
    // A pane of theirs keeps running after what follows.
    const pane = await launchShell(rita, "rita-shell");
    // Demote.
    await menu(row, "Make regular user");
    await page.getByRole("dialog", { name: `Make ${READER.name} a regular user?` }).getByRole("button", { name: "Make regular user" }).click();
    await page.locator(`tr[data-email="${READER.email}"][data-role="user"]`).waitFor();
    // The last administrator cannot step down.
    const me = page.locator(`tr[data-email="${ADMIN.email}"]`);
    await menu(me, "Make regular user");
    await page.getByRole("dialog", { name: "Give up your administrator role?" }).getByRole("button", { name: "Make regular user" }).click();
    await page.getByText(`${ADMIN.name} is the last enabled administrator`, { exact: false }).waitFor();
    await page.locator(`tr[data-email="${ADMIN.email}"][data-role="admin"]`).waitFor();
    // Deleting them waits for their pane to end.
    const remove = async () => {
      await menu(row, "Delete");
      await page.getByRole("dialog", { name: `Delete ${READER.name}?` }).getByRole("button", { name: "Delete account" }).click();
    };
    await remove();
    // The refusal names the pane that holds the account back.
    await page.getByText(`${READER.name} has 1 live subshell (rita-shell).`, { exact: false }).waitFor();
    await capture(page, "settings-users-refused", { phone: false });
    await page.evaluate(async (id) => (await fetch(`/api/subshells/${id}/terminate`, { method: "POST" })).status, pane.id);
    await waitFor(
      "their pane to end",
      async () => {
        const s = await page.evaluate(async (id) => (await fetch(`/api/subshells/${id}`)).json(), pane.id);
        return ["stopped", "exited", "crashed", "failed"].includes(s.state);
      },
      15_000,
    );
    await remove();
    await page.getByText(`${READER.name} deleted.`).waitFor();
    await row.waitFor({ state: "detached" });
    assert.equal(await rita.evaluate(async () => (await fetch("/api/auth/session")).status), 401);
  });

  test("settings status: version, database and deployment", async () => {
    await page.goto("/settings/status");
    const facts = page.getByTestId("status");
    await facts.waitFor();
    const status = await page.evaluate(async () => (await fetch("/api/admin/status")).json());
    assert.match(status.version, /^\d+\.\d+\.\d+/);
    await facts.getByText(status.version, { exact: true }).waitFor();
    await facts.getByText(/^sqlite/).waitFor();
    const deployment = page.getByTestId("deployment");
    await deployment.getByText(base, { exact: true }).first().waitFor();
    await deployment.getByText(join(tmp, "plane"), { exact: true }).waitFor();
    await page.getByRole("table", { name: "Subshells by state" }).waitFor();
    await capture(page, "settings-status");
  });

  test("overview: the panes that need you first, their screens live, keyboard to move, open and reply", async () => {
    const a = await launchShell(page, "ov-calm");
    const b = await launchShell(page, "ov-asks");
    const typeVia = (id, text) =>
      page.evaluate(
        async ([i, t]) =>
          (
            await fetch(`/api/subshells/${i}/input`, {
              method: "POST",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ text: t, keys: ["enter"] }),
            })
          ).status,
        [id, text],
      );
    for (const p of [a, b]) {
      await waitFor("the shell to run", async () =>
        page.evaluate(async (id) => (await (await fetch(`/api/subshells/${id}`)).json()).state === "running", p.id),
      );
    }
    // ov-asks's agent asks for permission: the plane's own hook command, run in the pane with
    // the pane's token, as Claude Code would run it.
    const hook = `echo '{"hook_event_name":"PermissionRequest","tool_name":"Bash"}' | '${PLANE_BIN}' hook claude-code; echo ov-asks-$((40+2))`;
    assert.equal(await typeVia(b.id, hook), 200);
    await page.goto("/overview?group=none");
    const card = (id) => page.locator(`.ov-card[data-id="${id}"]`);
    await card(b.id).and(page.locator('[data-agent-state="needs_input"]')).waitFor({ timeout: 20_000 });
    await card(b.id).getByText("waiting for permission to use Bash").waitFor();
    // Needs first.
    assert.equal(await page.locator(".ov-card").first().getAttribute("data-id"), b.id);
    // Its screen, small and live.
    await waitFor("ov-asks's screen on its card", async () => (await card(b.id).getByTestId("thumbnail").innerText()).includes("ov-asks-42"));
    await capture(page, "overview");
    // On a phone the cards fit the screen's width: one column, nothing sideways.
    const desk = page.viewportSize();
    await page.setViewportSize(PHONE);
    await waitFor("the overview to fit a phone", async () =>
      page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    );
    await page.setViewportSize(desk);
    // Keyboard: move, come back, reply, open.
    await card(b.id).focus();
    await page.keyboard.press("ArrowRight");
    assert.notEqual(await page.evaluate(() => document.activeElement?.dataset?.id), b.id);
    await page.keyboard.press("ArrowLeft");
    assert.equal(await page.evaluate(() => document.activeElement?.dataset?.id), b.id);
    await page.keyboard.press("r");
    const reply = page.getByLabel("Reply to ov-asks");
    await reply.waitFor();
    // Focus moves to the reply once it is drawn (an effect after the render that shows it).
    await waitFor("the reply to take the focus", async () => (await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))) === "Reply to ov-asks", 5_000);
    await page.keyboard.type("echo replied-$((6*7))");
    await page.keyboard.press("Enter");
    await page.getByText("Sent to ov-asks.").waitFor();
    await waitFor("the reply's output on the card", async () => (await card(b.id).getByTestId("thumbnail").innerText()).includes("replied-42"));
    assert.equal(await page.evaluate(() => document.activeElement?.dataset?.id), b.id, "focus is back on the card");
    // Grouped by node: the local node's panes under its name.
    await page.getByLabel("Group by").selectOption("node");
    await page.waitForURL(/group=node/);
    await page.locator(".ov-group-name").first().waitFor();
    await card(a.id).waitFor();
    await card(b.id).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(new RegExp(`/subshells/${b.id}$`));
    for (const p of [a, b]) assert.equal(await typeVia(p.id, "exit 0"), 200);
  });

  test("an administrator turns a workspace's recording off and sets its retention", async () => {
    const made = await page.evaluate(async () => {
      const local = (await (await fetch("/api/nodes")).json()).find((n) => n.isLocal);
      const r = await fetch("/api/workspaces", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: "rec-ws", nodeId: local.nodeId, path: "/tmp" }),
      });
      return r.json();
    });
    await page.goto("/workspaces");
    const row = page.getByRole("row").filter({ hasText: "rec-ws" });
    await row.getByText("its panes are recorded, kept as its node's setting says").waitFor();
    await row.getByRole("button", { name: "Recording of rec-ws" }).click();
    const dialog = page.getByRole("dialog", { name: "Recording of rec-ws" });
    await dialog.getByLabel("Record its panes").uncheck();
    await dialog.getByLabel("Keep recordings for (days)").fill("0");
    await dialog.getByRole("button", { name: "Save recording settings" }).click();
    await dialog.getByRole("alert").getByText("Write a whole number of days from 1 to 3650").waitFor();
    await capture(page, "workspace-recording");
    await dialog.getByLabel("Keep recordings for (days)").fill("7");
    await dialog.getByRole("button", { name: "Save recording settings" }).click();
    await row.getByText("off: its panes are logged, not timed").waitFor();
    const saved = await page.evaluate(async (id) => (await fetch(`/api/workspaces/${id}`)).json(), made.id);
    assert.equal(saved.recording, false);
    assert.equal(saved.recordingRetentionDays, 7);
    const audit = await page.evaluate(async () => (await fetch("/api/audit?action=workspace.recording_set")).json());
    assert.equal(audit[0].target, made.id);
    await page.evaluate(async (id) => fetch(`/api/workspaces/${id}`, { method: "DELETE" }), made.id);
  });

  test("the remaining pages pass axe at both sizes", async () => {
    await page.goto("/subshells");
    await page.getByTestId("subshells").waitFor();
    await capture(page, "subshells");
    for (const [path, name, ready] of [
      ["/workspaces", "workspaces", "Presets"],
      ["/channels", "channels", "Your channels"],
      ["/settings/general", "settings-general", "Harness plugins"],
      ["/settings/audit", "settings-audit", "Audit log"],
    ]) {
      await page.goto(path);
      await page.getByRole("heading", { name: ready, exact: true }).waitFor();
      await page.waitForLoadState("networkidle").catch(() => undefined);
      await capture(page, name);
    }
    // An administrator renames the instance (the header follows), and adds a trusted origin;
    // both are kept.
    await page.goto("/settings/general");
    await page.getByRole("heading", { name: "Trusted origins" }).waitFor();
    await waitFor("the instance name", async () => (await page.getByLabel("Instance name").inputValue()) === INSTANCE);
    await page.getByLabel("Instance name").fill(`${INSTANCE} renamed`);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.locator(".brand-name", { hasText: `${INSTANCE} renamed` }).waitFor();
    await waitFor("the tab title", async () => (await page.title()) === `${INSTANCE} renamed`);
    await page.getByLabel("Instance name").fill(INSTANCE);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.locator(".brand-name").filter({ hasText: new RegExp(`^${INSTANCE}$`) }).waitFor();
    await page.getByLabel("Added by administrators").fill("https://plane.example:8443");
    await page.getByRole("button", { name: "Save origins" }).click();
    await page.getByText("Trusted origins saved.").waitFor();
    await page.reload();
    await waitFor("the added origin after a reload", async () => (await page.getByLabel("Added by administrators").inputValue()).includes("https://plane.example:8443"));
    await page.goto("/settings/audit");
    await page.getByRole("heading", { name: "Audit log", exact: true }).waitFor();
    // The audit log filters on the plane: one family of actions.
    await page.getByLabel("Action").fill("system_key.");
    await page.getByRole("button", { name: "Search" }).click();
    await waitFor("only system-key entries", async () => {
      const actions = await page.getByTestId("audit").locator("td[data-label=Action]").allInnerTexts();
      return actions.length > 0 && actions.every((a) => a.startsWith("system_key.")) && actions.includes("system_key.created");
    });
    await page.goto("/nodes");
    await page.locator('tr[data-node="ui-test-node"]').getByRole("button", { name: "Manage" }).click();
    await page.getByLabel("Allowed directories").first().waitFor();
    await capture(page, "nodes-manage");
  });

  test("polish: code in plugin descriptions, version numbers, the directory's error at its field", async () => {
    // A plugin's description shows `claude` as code, not between backticks.
    await page.goto("/settings/general");
    await page.getByRole("heading", { name: "Harness plugins" }).waitFor();
    const claude = page.locator("li", { hasText: "Claude Code" }).getByTestId("plugin-description");
    await claude.locator("code", { hasText: "claude" }).waitFor();
    for (const d of await page.getByTestId("plugin-description").allInnerTexts()) {
      assert.ok(!d.includes("`"), `a backtick shows in ${JSON.stringify(d)}`);
    }
    // The launch dialog offers the shell with its version number, not the line it printed.
    await page.goto("/subshells");
    await page.getByRole("button", { name: "Launch" }).click();
    const dialog = page.getByRole("dialog", { name: "Launch a subshell" });
    const nodeSelect = dialog.getByLabel("Node");
    await nodeSelect.selectOption(await nodeSelect.locator("option", { hasText: "this plane's host" }).getAttribute("value"));
    const shell = dialog.getByLabel("Harness").locator('option[value="shell"]');
    await shell.waitFor({ state: "attached", timeout: 20_000 });
    const label = (await shell.innerText()).trim();
    const harness = (await page.evaluate(async () => {
      const local = (await (await fetch("/api/nodes")).json()).find((n) => n.isLocal);
      return (await (await fetch(`/api/nodes/${local.nodeId}/harnesses`)).json()).find((h) => h.harnessId === "shell");
    }));
    assert.ok(harness.versionNumber, JSON.stringify(harness));
    assert.ok(harness.version.includes(harness.versionNumber), "the line it printed is kept beside the number");
    assert.equal(label, `${harness.name} ${harness.versionNumber}`);
    // A directory the node refuses: the error is at the field, not at the foot of the form.
    await dialog.getByLabel("Harness").selectOption("shell");
    const missing = join(workDir, "not-a-directory");
    await dialog.getByLabel("Directory").fill(missing);
    await dialog.getByRole("button", { name: "Launch" }).click();
    const fieldError = dialog.getByTestId("cwd-error");
    await fieldError.waitFor();
    const said = await fieldError.innerText();
    assert.ok(said.includes(`${missing}: no such file or directory`), said);
    assert.equal(await dialog.getByLabel("Directory").getAttribute("aria-invalid"), "true");
    assert.match(await dialog.getByLabel("Directory").getAttribute("aria-describedby"), /\bl-cwd-error\b/);
    assert.equal(await dialog.locator(".note-bad").count(), 0, "the error is also at the foot of the form");
    await axe(page, "launch dialog, directory refused");
    await page.screenshot({ path: join(SHOTS, "subshells-launch-bad-dir-1280x800.png") });
    // Typing a new directory clears it.
    await dialog.getByLabel("Directory").fill(workDir);
    await fieldError.waitFor({ state: "detached" });
    await dialog.getByRole("button", { name: "Cancel" }).click();
  });

  test("a terminated pane says who stopped it, and the Terminating message goes when it has stopped", async () => {
    const pane = await launchShell(page, "ui-stop");
    await page.goto(`/subshells/${pane.id}`);
    await live(page);
    await page.locator(".xterm-rows").waitFor();
    await page.locator("summary", { hasText: "Actions" }).click();
    await page.getByRole("button", { name: "Terminate", exact: true }).click();
    await page.getByRole("dialog", { name: "Terminate this subshell?" }).getByRole("button", { name: "Terminate" }).click();
    const terminating = page.locator(".toast", { hasText: "Terminating" });
    await terminating.waitFor();
    await page.locator('.pane-bar [data-status="stopped"]').waitFor({ timeout: 20_000 });
    const notice = page.getByTestId("pane-notice");
    await notice.getByText("Terminated by you.").waitFor();
    assert.doesNotMatch(await notice.innerText(), /program ended/);
    await terminating.waitFor({ state: "detached", timeout: 1_000 });
    // Seen again later, it reads as stopped.
    await page.reload();
    await page.getByTestId("pane-notice").getByText(/^Stopped\./).waitFor();
  });

  test("a crashed pane shows its last output and its size, read-only", async () => {
    const pane = await launchShell(page, "ui-crash");
    await page.goto(`/subshells/${pane.id}`);
    await live(page);
    await page.locator(".xterm-rows").waitFor();
    await sleep(300);
    await typeInTerminal(page, "echo last-words-$((6*7)); exit 4\n");
    await waitFor(
      "the pane to crash",
      async () => (await page.evaluate(async (id) => (await fetch(`/api/subshells/${id}`)).json(), pane.id)).state === "crashed",
      20_000,
    );
    const row = await page.evaluate(async (id) => (await fetch(`/api/subshells/${id}`)).json(), pane.id);
    // A fresh look at it: the screen is its log's end, at the pane's last size.
    await page.goto("/subshells");
    await page.goto(`/subshells/${pane.id}`);
    await page.locator('.pane-bar [data-status="crashed"]').waitFor();
    await waitLine(page, "last-words-42");
    const grid = page.getByTestId("grid");
    await waitFor("the pane's size", async () => (await grid.getAttribute("data-cols")) === String(row.cols));
    assert.equal(await grid.getAttribute("data-rows"), String(row.rows));
    assert.notEqual(row.cols, 0);
    await page.getByTestId("pane-notice").getByText(/ended unexpectedly/).waitFor();
    await capture(page, "subshell-crashed", { phone: false });
    // Nothing typed reaches anything.
    assert.equal(await page.getByTestId("conn").getAttribute("data-conn"), "ended");
  });

  test("the API reference and the terminal WebSocket's page pass axe, light and dark, on a phone too", async () => {
    // One operation of each method, opened: parameters (a list of values among them), request
    // bodies, answers with their headers.
    const opened = [
      "operations-setup-setup",
      "operations-nodes-setAllowedDirs",
      "operations-users-updateUser",
      "operations-users-deleteUser",
      "operations-subshells-listSubshells",
    ];
    for (const colorScheme of ["light", "dark"]) {
      const ctx = await newContext({ colorScheme });
      const docs = await ctx.newPage();
      await docs.goto("/docs");
      await docs.locator(".opblock").first().waitFor({ timeout: 45_000 });
      // Swagger UI follows the system's scheme.
      assert.equal(await docs.evaluate(() => document.documentElement.classList.contains("dark-mode")), colorScheme === "dark");
      await capture(docs, `docs-${colorScheme}`);
      // Swagger UI draws only the operations near the view, and where one sits moves as it
      // measures what it draws: an operation is brought into view the way its deep link does it
      // (Swagger UI's own scroll to an operation), never by scrolling blindly until it shows.
      // Drawing a document this size is slow on a loaded machine (seen past 15 s at the end of
      // a whole suite's run on two cores): each step waits up to this long.
      const DRAWN = 45_000;
      const reveal = async (id) => {
        const [, tag, operation] = id.split("-");
        await docs.evaluate(([t, o]) => window.ui.layoutActions.scrollToVirtualizedOperation(["operations", t, o]), [tag, operation]);
        await docs.locator(`#${id}`).scrollIntoViewIfNeeded({ timeout: DRAWN });
      };
      for (const id of opened) {
        await reveal(id);
        // Swagger UI's click handler leaves Playwright waiting for a navigation that never comes.
        await docs.locator(`#${id} .opblock-summary-control`).click({ noWaitAfter: true, timeout: DRAWN });
        await docs.locator(`#${id} .opblock-body`).waitFor({ timeout: DRAWN });
      }
      // The last one opened is in view: its parameters hold a list of values.
      await docs.locator("#operations-subshells-listSubshells .parameters select").first().waitFor({ timeout: DRAWN });
      await axe(docs, `docs with operations open (${colorScheme})`);
      await docs.screenshot({ path: join(SHOTS, `docs-open-${colorScheme}-1280x800.png`) });

      const term = await ctx.newPage();
      await term.goto("/docs/terminal");
      await term.getByRole("heading", { name: "The terminal WebSocket" }).waitFor();
      // The app's background and font in the dark; a light page in the light.
      const look = await term.evaluate(() => {
        const body = getComputedStyle(document.body);
        return { bg: body.backgroundColor, font: body.fontFamily };
      });
      assert.equal(look.bg, colorScheme === "dark" ? "rgb(15, 17, 21)" : "rgb(255, 255, 255)");
      assert.match(look.font, /^system-ui/);
      await capture(term, `docs-terminal-${colorScheme}`);
      // On a phone the page itself does not scroll sideways: the schemas scroll in their boxes.
      await term.setViewportSize(PHONE);
      await waitFor("the terminal page to fit a phone's width", () =>
        term.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      );
      await ctx.close();
    }
  });

  test("a failure the page meets on its own is shown with its code, once, until that work succeeds again", async () => {
    const ctx = await newContext();
    const p = await ctx.newPage();
    await signIn(p, ADMIN);
    await p.goto("/nodes");
    await p.getByRole("button", { name: "Add a node" }).click();
    const dialog = p.getByRole("dialog", { name: "Add a node" });
    await dialog.getByTestId("install-command").waitFor();
    // The dialog reads the node list every few seconds, looking for the new node: with the
    // network gone, those readings fail.
    await ctx.setOffline(true);
    // Shown in the open dialog: a modal dialog leaves the rest of the page inert.
    const said = { hasText: "The node list could not be read" };
    const failure = dialog.getByTestId("failure").filter(said);
    await failure.waitFor();
    assert.match(await failure.innerText(), /The plane cannot be reached\. .*\(NETWORK\)/s);
    assert.equal(await dialog.getByRole("alert").filter({ has: p.getByTestId("failure").filter(said) }).count(), 1, "the failure is in an alert");
    const readingsFail = async (n) => {
      for (let i = 0; i < n; i++) {
        await p.waitForEvent("requestfailed", { predicate: (r) => new URL(r.url()).pathname === "/api/nodes", timeout: 10_000 });
      }
    };
    // Said once, however many readings fail.
    await readingsFail(2);
    assert.equal(await failure.count(), 1);
    await axe(p, "a failure shown");
    await p.screenshot({ path: join(SHOTS, "failure-shown-1280x800.png") });
    // Dismissed, it stays away while the same failure goes on.
    await failure.getByRole("button", { name: "Dismiss this message" }).click();
    await failure.waitFor({ state: "detached" });
    await readingsFail(2);
    assert.equal(await failure.count(), 0, "a dismissed failure came back while nothing changed");
    // Once a reading works, a new failure is told again; and it goes by itself when the next
    // reading works.
    await ctx.setOffline(false);
    await p.waitForResponse((r) => new URL(r.url()).pathname === "/api/nodes" && r.ok(), { timeout: 10_000 });
    await ctx.setOffline(true);
    await failure.waitFor();
    await ctx.setOffline(false);
    await failure.waitFor({ state: "detached", timeout: 15_000 });
    await dialog.getByRole("button", { name: "Done" }).click();
  });

  test("a sign-out that cannot reach the plane says so, and the session stays open", async () => {
    const ctx = await newContext();
    const p = await ctx.newPage();
    await signIn(p, ADMIN);
    await ctx.setOffline(true);
    await p.getByRole("button", { name: "Sign out" }).first().click();
    const refused = p.getByTestId("failure").filter({ hasText: "Signing out failed" });
    await refused.waitFor();
    assert.match(await refused.innerText(), /\(NETWORK\)/);
    assert.match(p.url(), /\/subshells/, "the page did not pretend to be signed out");
    await ctx.setOffline(false);
    // The plane still has the session: the page told the truth.
    assert.equal(await p.evaluate(async () => (await fetch("/api/auth/session")).status), 200);
    // The person dismisses the message; signing out again works.
    await refused.getByRole("button", { name: "Dismiss this message" }).click();
    await refused.waitFor({ state: "detached" });
    await p.getByRole("button", { name: "Sign out" }).first().click();
    await p.waitForURL(/\/sign-in/);
    assert.equal(await p.evaluate(async () => (await fetch("/api/auth/session")).status), 401);
  });

  test("no Content-Security-Policy violation or page error", () => {
    assert.deepEqual(cspViolations, []);
  });
});
