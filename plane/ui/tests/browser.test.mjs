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

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.unref();
    s.on("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port: p } = s.address();
      s.close(() => res(p));
    });
  });
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

// ----- the run -----

describe("termplane browser app", { concurrency: false }, () => {
  let admin; // context of the administrator
  let page; // its page
  let paneUrl;
  let nodeProc;
  let nodeDir;
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
    const env = { ...process.env, APP_BASE_URL: planeUrl, RUST_LOG: "info" };
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
    await page.waitForURL(/\/subshells$/);
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

  test("add a node: run the enroll command shown, then the daemon, and see it online", async () => {
    await page.getByRole("link", { name: "Nodes", exact: true }).click();
    await page.waitForURL(/\/nodes$/);
    await capture(page, "nodes");
    await page.getByRole("button", { name: "Add a node" }).click();
    const cmdEl = page.getByTestId("enroll-command");
    await cmdEl.waitFor();
    const shown = (await cmdEl.innerText()).trim();
    assert.match(shown, /^termplane-node enroll --server \S+ --setup-key nsk_\S+$/);
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
    nodeProc = await start("node", NODE_BIN, ["run", "--config", config], { env: nodeEnv, cwd: nodeDir });
    await page.locator('[data-testid="new-node"][data-liveness="online"]').waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Done" }).click();
    const row = page.locator('tr[data-node="ui-test-node"]');
    await row.getByText("Online").waitFor({ timeout: 15_000 });
    assert.equal(nodeProc.exited, false, "the node daemon runs");
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
    const after1 = await waitFor(
      "a smaller grid",
      async () => {
        const g = await grid(page);
        return g.cols < before.cols && g.rows < before.rows ? g : null;
      },
      10_000,
    );
    // The other viewer shows the same pane grid.
    await waitFor("the other viewer to follow", async () => {
      const g = await grid(page2);
      return g.cols === after1.cols && g.rows === after1.rows;
    });
    // The pane itself was resized: the shell sees it.
    await typeInTerminal(page, "stty size\n");
    await waitLine(page, `${after1.rows} ${after1.cols}`);
    await page.setViewportSize(DESKTOP);
    await waitFor("the grid to grow again", async () => (await grid(page)).cols > after1.cols, 10_000);
  });

  test("reload: the replay brings the earlier output back", async () => {
    await page.reload();
    await live(page);
    await waitLine(page, "hi");
    await waitLine(page, "from-the-first");
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
    // The reader's settings address shows no admin content either.
    await rp.goto("/settings/keys");
    await rp.getByRole("heading", { name: "Administrators only" }).waitFor();
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

  test("the remaining pages pass axe at both sizes", async () => {
    await page.goto("/subshells");
    await page.getByTestId("subshells").waitFor();
    await capture(page, "subshells");
    for (const [path, name, ready] of [
      ["/workspaces", "workspaces", "Presets"],
      ["/settings/general", "settings-general", "Harness plugins"],
      ["/settings/audit", "settings-audit", "Audit log"],
    ]) {
      await page.goto(path);
      await page.getByRole("heading", { name: ready, exact: true }).waitFor();
      await page.waitForLoadState("networkidle").catch(() => undefined);
      await capture(page, name);
    }
    // An administrator adds a trusted origin; it is kept.
    await page.goto("/settings/general");
    await page.getByRole("heading", { name: "Deployment" }).waitFor();
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

  test("no Content-Security-Policy violation or page error", () => {
    assert.deepEqual(cspViolations, []);
  });
});
