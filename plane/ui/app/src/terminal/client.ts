// One live terminal: an xterm.js screen bound to a pane's WebSocket
// (`/api/subshells/{id}/attach?token=…`).
//
// * The first binary frame after `attached` is the replay, and the first one after `resync` a
//   fresh replay: the screen is reset before either is written.
// * The pane's grid is the smallest of the typing viewers' grids. This viewer reports the grid
//   that fits its box (`resize`), and the screen always shows the pane's grid (`attached`,
//   `size`), never a guess.
// * A dropped socket is reopened with backoff and a new attach token; close codes meaning the
//   pane is gone or access ended stop that.
// * A viewer may watch without taking part in the pane's size (`sizing`): its grid then holds
//   nobody. Whether this device takes part is the person's choice ("Don't resize others"),
//   remembered on the device. Without a choice, a computer takes part, and a phone or tablet
//   starts out of it — a glance at a pane does not reflow everyone's terminal — and takes part
//   from the moment its person types on it.

import { Terminal } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import { WebLinksAddon } from "@xterm/addon-web-links";
import { api, ApiError, errorText, socketUrl } from "../api";
import { createStore } from "../store";
import { lastOutput } from "./tail";
import type { HeldGrid, ServerFrame, Subshell, Viewer, ViewerDevice, WsToken } from "../types";

export type Conn = "connecting" | "live" | "reconnecting" | "ended";

export interface TermState {
  conn: Conn;
  /** This viewer only watches (by its access, or because it asked to). */
  readOnly: boolean;
  viewerId: number | null;
  cols: number;
  rows: number;
  /** The grid that fits this viewer's box (what it would hold the pane to). */
  own: { cols: number; rows: number } | null;
  /** This viewer's grid takes part in the pane's size. */
  sizing: boolean;
  /** The person chose on this device whether to take part (`null`: not chosen). */
  sizingChoice: SizingChoice | null;
  /** Who holds the pane's grid, by the latest presence. */
  held: HeldGrid | null;
  viewers: Viewer[];
  /** Why the socket is not live (shown to the person). */
  notice: string | null;
  /** The pane's program ended. */
  exitCode: number | null | undefined;
  /** The last refused frame. */
  frameError: string | null;
  ctrlArmed: boolean;
  /** The pane is gone or access to it ended: nothing will bring this view back. */
  gone: boolean;
}

/** Whether a device takes part in the pane's size: `out` is "Don't resize others". */
export type SizingChoice = "in" | "out";

const SIZING_KEY = "termplane.terminal.sizing";

/** The choice made on this device, if any. */
export function sizingChoice(): SizingChoice | null {
  try {
    const v = localStorage.getItem(SIZING_KEY);
    return v === "in" || v === "out" ? v : null;
  } catch {
    return null;
  }
}

function rememberSizing(choice: SizingChoice): void {
  try {
    localStorage.setItem(SIZING_KEY, choice);
  } catch {
    // Private mode: the choice holds for this view only.
  }
}

/** What this device is, as the other viewers are told: by its main pointer and its screen. */
export function thisDevice(): ViewerDevice {
  if (!window.matchMedia("(pointer: coarse)").matches) return "desktop";
  return Math.min(screen.width, screen.height) <= 600 ? "phone" : "tablet";
}

/** Close codes after which reconnecting cannot help. */
const FINAL_CLOSES: Record<number, string> = {
  1000: "The pane's program ended.",
  1003: "The terminal sent a frame the plane could not read.",
  1009: "The terminal sent a frame that was too large.",
  4400: "The terminal sent a frame the plane does not know.",
  4403: "Your access to this pane ended (the share was revoked or your session ended).",
  4404: "This subshell was deleted.",
};

/** The longest input frame's text (JSON escapes can make a character six bytes; the cap is 64 KiB). */
const INPUT_PIECE = 8192;

export const THEME = {
  background: "#0b0d11",
  foreground: "#d6dbe2",
  cursor: "#e6edf3",
  cursorAccent: "#0b0d11",
  selectionBackground: "#3a4a63",
  black: "#1c2128",
  red: "#ff7b72",
  green: "#7ee787",
  yellow: "#e3b341",
  blue: "#79c0ff",
  magenta: "#d2a8ff",
  cyan: "#76e3ea",
  white: "#d6dbe2",
  brightBlack: "#6e7681",
  brightRed: "#ffa198",
  brightGreen: "#56d364",
  brightYellow: "#f0d96b",
  brightBlue: "#a5d6ff",
  brightMagenta: "#e2c5ff",
  brightCyan: "#b3f0ff",
  brightWhite: "#ffffff",
};

export function ctrlChar(key: string): string | null {
  if (key.length !== 1) return null;
  const c = key.toUpperCase().charCodeAt(0);
  if (c >= 64 && c <= 95) return String.fromCharCode(c & 0x1f); // @ A–Z [ \ ] ^ _
  if (key === "?") return "\x7f";
  return null;
}

export function initialTermState(): TermState {
  return {
    conn: "connecting",
    readOnly: false,
    viewerId: null,
    cols: 0,
    rows: 0,
    own: null,
    sizing: true,
    sizingChoice: null,
    held: null,
    viewers: [],
    notice: null,
    exitCode: undefined,
    frameError: null,
    ctrlArmed: false,
    gone: false,
  };
}

export class TerminalClient {
  readonly term: Terminal;
  readonly state = createStore<TermState>(initialTermState());

  private readonly fit = new FitAddon();
  private ws: WebSocket | null = null;
  private disposed = false;
  private resetBeforeWrite = false;
  private attempt = 0;
  /** Counts `connect` calls: only the newest one opens a socket. */
  private connectGen = 0;
  /** When a 4403 close last led to asking the plane again (ms; -1: never). */
  private accessRetryAt = -1;
  private retryTimer: number | undefined;
  private pingTimer: number | undefined;
  private resizeTimer: number | undefined;
  private lastSent: { cols: number; rows: number } | null = null;
  private host: HTMLElement | null = null;
  private attachedAt = 0;
  private readonly device = thisDevice();
  /** Whether this view takes part in the pane's size (sent with the next attach). */
  private sizing: boolean;
  /** When the person last pressed a key in the terminal (ms). */
  private keyAt = 0;

  constructor(
    readonly subshellId: string,
    private watchOnly: boolean,
    private readonly onSubshell: (s: Subshell | null) => void,
  ) {
    const phone = window.matchMedia("(max-width: 600px)").matches;
    this.term = new Terminal({
      fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace",
      fontSize: phone ? 13 : 14,
      lineHeight: 1.15,
      cursorBlink: true,
      scrollback: 5000,
      theme: THEME,
      allowProposedApi: false,
      screenReaderMode: false,
      disableStdin: true,
    });
    this.term.loadAddon(this.fit);
    this.term.loadAddon(
      new WebLinksAddon((_ev, uri) => {
        window.open(uri, "_blank", "noopener,noreferrer");
      }),
    );
    const choice = sizingChoice();
    this.sizing = choice ? choice === "in" : this.device === "desktop";
    this.patch({ sizing: this.sizing, sizingChoice: choice });
    this.term.onData((data) => this.input(data));
    // Binary (non-UTF-8) mouse reports are dropped: the socket takes only UTF-8 keystrokes.
    this.term.attachCustomKeyEventHandler((ev) => this.key(ev));
  }

  private patch(p: Partial<TermState>): void {
    this.state.set({ ...this.state.get(), ...p });
  }

  /** Puts the screen into `host` and connects. */
  mount(host: HTMLElement): void {
    this.host = host;
    this.term.open(host);
    const own = this.ownGrid();
    if (own) this.term.resize(own.cols, own.rows);
    void this.connect();
  }

  dispose(): void {
    this.disposed = true;
    window.clearTimeout(this.retryTimer);
    window.clearInterval(this.pingTimer);
    window.clearTimeout(this.resizeTimer);
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000);
    this.term.dispose();
  }

  focus(): void {
    this.term.focus();
  }

  /** Watch only (or type again): reopens the socket with the new mode. */
  setWatchOnly(on: boolean): void {
    if (this.watchOnly === on) return;
    this.watchOnly = on;
    this.reopen();
  }

  /** Reconnects now (after a restart of the pane, or on request). */
  reopen(): void {
    window.clearTimeout(this.retryTimer);
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000);
    this.attempt = 0;
    this.patch({ exitCode: undefined, notice: null, gone: false });
    void this.connect();
  }

  /** The grid that fits this viewer's box. */
  ownGrid(): { cols: number; rows: number } | null {
    if (!this.host || this.host.clientWidth < 20 || this.host.clientHeight < 20) return null;
    const d = this.fit.proposeDimensions();
    if (!d || !Number.isFinite(d.cols) || !Number.isFinite(d.rows)) return null;
    return { cols: Math.max(2, Math.min(1000, d.cols)), rows: Math.max(1, Math.min(1000, d.rows)) };
  }

  /**
   * "Don't resize others" (`out`) or take part again (`in`), remembered on this device when
   * `remember`, else for this view only.
   */
  setSizing(on: boolean, remember = true): void {
    if (remember) {
      rememberSizing(on ? "in" : "out");
      this.patch({ sizingChoice: on ? "in" : "out" });
    }
    if (this.sizing === on) return;
    this.sizing = on;
    this.patch({ sizing: on });
    const ws = this.ws;
    if (ws?.readyState === WebSocket.OPEN && !this.state.get().readOnly) {
      ws.send(JSON.stringify({ type: "sizing", on }));
    }
  }

  /** The person typed here: a view out of sizing only by default takes part from now on. */
  private typed(): void {
    if (!this.sizing && this.state.get().sizingChoice === null) this.setSizing(true, false);
  }

  /** The box changed size: report this viewer's grid (debounced). */
  refit(): void {
    window.clearTimeout(this.resizeTimer);
    this.resizeTimer = window.setTimeout(() => this.sendGrid(), 80);
  }

  private sendGrid(): void {
    const own = this.ownGrid();
    if (!own) return;
    const was = this.state.get().own;
    if (!was || was.cols !== own.cols || was.rows !== own.rows) this.patch({ own });
    const s = this.state.get();
    if (this.ws?.readyState !== WebSocket.OPEN || s.conn !== "live") {
      if (s.conn !== "live") this.term.resize(own.cols, own.rows);
      return;
    }
    if (s.readOnly) return;
    if (this.lastSent && this.lastSent.cols === own.cols && this.lastSent.rows === own.rows) return;
    this.lastSent = own;
    this.ws.send(JSON.stringify({ type: "resize", cols: own.cols, rows: own.rows }));
  }

  private showGrid(cols: number, rows: number): void {
    if (cols < 1 || rows < 1) return;
    if (this.term.cols !== cols || this.term.rows !== rows) this.term.resize(cols, rows);
    this.patch({ cols, rows });
  }

  // ----- keys and input -----

  armCtrl(on?: boolean): void {
    this.patch({ ctrlArmed: on ?? !this.state.get().ctrlArmed });
  }

  /** A key of the on-screen row, or text to send as typed. */
  sendKey(name: "esc" | "tab" | "left" | "up" | "right" | "down" | "pipe"): void {
    const app = this.term.modes.applicationCursorKeysMode;
    const arrow = (c: string) => (app ? `\x1bO${c}` : `\x1b[${c}`);
    const map = {
      esc: "\x1b",
      tab: "\t",
      up: arrow("A"),
      down: arrow("B"),
      right: arrow("C"),
      left: arrow("D"),
      pipe: "|",
    } as const;
    this.patch({ ctrlArmed: false });
    this.typed();
    this.send(map[name]);
  }

  private input(data: string): void {
    // Only what the person typed (a key pressed just now) counts, not a terminal's own
    // answers to the program (focus reports, device attributes).
    if (Date.now() - this.keyAt < 1000) this.typed();
    if (this.state.get().ctrlArmed) {
      const c = ctrlChar(data);
      this.patch({ ctrlArmed: false });
      if (c) {
        this.send(c);
        return;
      }
    }
    this.send(data);
  }

  /** Sends keystrokes (nothing when watching only or not connected). */
  send(data: string): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || this.state.get().readOnly) return;
    for (let i = 0; i < data.length; i += INPUT_PIECE) {
      ws.send(JSON.stringify({ type: "input", data: data.slice(i, i + INPUT_PIECE) }));
    }
  }

  private key(ev: KeyboardEvent): boolean {
    if (ev.type !== "keydown") return true;
    if (!["Shift", "Control", "Alt", "Meta", "CapsLock"].includes(ev.key)) this.keyAt = Date.now();
    const mod = ev.ctrlKey || ev.metaKey;
    if (mod && ev.shiftKey && ev.code === "KeyC") {
      ev.preventDefault();
      void this.copySelection();
      return false;
    }
    if (mod && ev.shiftKey && ev.code === "KeyV") {
      ev.preventDefault();
      void this.pasteClipboard();
      return false;
    }
    // Cmd-C on a Mac copies a selection (Ctrl-C stays the interrupt everywhere).
    if (ev.metaKey && !ev.ctrlKey && ev.code === "KeyC" && this.term.hasSelection()) {
      ev.preventDefault();
      void this.copySelection();
      return false;
    }
    return true;
  }

  async copySelection(): Promise<boolean> {
    const text = this.term.getSelection();
    if (!text) return false;
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      this.patch({ frameError: "The browser did not allow writing to the clipboard; use its own copy (the menu)." });
      return false;
    }
  }

  async pasteClipboard(): Promise<void> {
    try {
      const text = await navigator.clipboard.readText();
      if (text) {
        this.typed();
        this.term.paste(text);
      }
    } catch {
      this.patch({ frameError: "The browser did not allow reading the clipboard; use its own paste (Ctrl-V or the menu)." });
    }
  }

  // ----- the socket -----

  private async connect(): Promise<void> {
    if (this.disposed) return;
    // Only the newest call connects: a reopen while an earlier call still waits on the plane
    // (a restart's own reopen and the page's, say) must not leave two sockets.
    const gen = ++this.connectGen;
    this.patch({ conn: this.attempt === 0 ? "connecting" : "reconnecting" });
    let token: WsToken;
    try {
      // The pane may be gone or ended: read it first, and stop there if so.
      const row = await api.GET("/api/subshells/{id}", { params: { path: { id: this.subshellId } } });
      if (gen !== this.connectGen) return;
      this.onSubshell(row);
      if (!["starting", "running", "stopping"].includes(row.state)) {
        this.end(row.state === "exited" || row.state === "crashed" ? "The pane's program ended." : `This subshell is ${row.state}.`);
        void this.showEnded(row, gen);
        return;
      }
      token = await api.POST("/api/auth/ws-token", { body: { subshellId: this.subshellId } });
    } catch (e) {
      if (gen !== this.connectGen) return;
      if (e instanceof ApiError && (e.status === 404 || e.status === 403 || e.status === 401)) {
        if (e.status === 404) this.onSubshell(null);
        this.end(e.status === 404 ? "This subshell does not exist (or is no longer shared with you)." : e.message, true);
        return;
      }
      this.retry(e instanceof Error ? e.message : "The plane cannot be reached.");
      return;
    }
    if (this.disposed || gen !== this.connectGen) return;
    const own = this.ownGrid();
    const q = new URLSearchParams({ token: token.token });
    if (own) {
      q.set("cols", String(own.cols));
      q.set("rows", String(own.rows));
    }
    if (this.watchOnly) q.set("readOnly", "true");
    if (!this.sizing) q.set("sizing", "false");
    q.set("device", this.device);
    const ws = new WebSocket(socketUrl(`/api/subshells/${encodeURIComponent(this.subshellId)}/attach?${q}`));
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    this.lastSent = own;
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      if (typeof ev.data === "string") this.frame(ev.data);
      else this.output(new Uint8Array(ev.data as ArrayBuffer));
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      window.clearInterval(this.pingTimer);
      this.term.options.disableStdin = true;
      // Access changed (a share raised or lowered, an account demoted): the plane says which
      // access remains when asked again, so ask once — reattached read-only, or told the pane is
      // no longer shared. A 4403 before the view attached again since the last ask ends it.
      if (ev.code === 4403 && this.attachedAt > this.accessRetryAt) {
        this.accessRetryAt = Date.now();
        this.attempt = 0;
        void this.connect();
        return;
      }
      const final = FINAL_CLOSES[ev.code];
      if (final) {
        this.end(this.state.get().exitCode !== undefined ? "The pane's program ended." : final, ev.code === 4403 || ev.code === 4404);
        if (ev.code === 4404) this.onSubshell(null);
        return;
      }
      if (Date.now() - this.attachedAt > 10_000) this.attempt = 0;
      const why =
        ev.code === 4408
          ? "This view fell behind; reconnecting."
          : ev.code === 4502
            ? "The pane cannot be read (its node may be offline); retrying."
            : ev.code === 1001
              ? "The plane is restarting; reconnecting."
              : "The connection dropped; reconnecting.";
      this.retry(why);
    };
    window.clearInterval(this.pingTimer);
    this.pingTimer = window.setInterval(() => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "ping" }));
    }, 25_000);
  }

  private retry(why: string): void {
    if (this.disposed) return;
    const wait = Math.min(15_000, 500 * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
    this.attempt += 1;
    this.patch({ conn: "reconnecting", notice: why, viewers: [], held: null });
    window.clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(() => void this.connect(), wait);
  }

  /** An ended pane: its last grid and the end of its log, read-only (nothing types into it). */
  private async showEnded(row: Subshell, gen: number): Promise<void> {
    this.showGrid(row.cols, row.rows);
    const bytes = await lastOutput(this.subshellId).catch((e: unknown) => {
      this.patch({ frameError: `The pane's last output cannot be shown: ${errorText(e)}` });
      return null;
    });
    if (!bytes || this.disposed || gen !== this.connectGen) return;
    this.term.reset();
    this.term.write(bytes);
  }

  private end(why: string, gone = false): void {
    window.clearTimeout(this.retryTimer);
    this.term.options.disableStdin = true;
    this.patch({ conn: "ended", notice: why, viewers: [], held: null, ctrlArmed: false, gone });
  }

  private frame(text: string): void {
    let f: ServerFrame;
    try {
      f = JSON.parse(text) as ServerFrame;
    } catch {
      // The plane sends JSON text frames only; a frame that is not one has nothing to apply.
      return;
    }
    switch (f.type) {
      case "attached":
        this.attachedAt = Date.now();
        this.resetBeforeWrite = true;
        this.term.options.disableStdin = f.readOnly;
        this.patch({
          conn: "live",
          readOnly: f.readOnly,
          sizing: f.sizing,
          viewerId: f.viewerId,
          notice: null,
          frameError: null,
          exitCode: undefined,
        });
        this.showGrid(f.cols, f.rows);
        // The box may have changed while connecting.
        this.refit();
        break;
      case "size":
        this.showGrid(f.cols, f.rows);
        break;
      case "presence":
        this.patch({ viewers: f.viewers, held: f.held ?? null });
        break;
      case "resync":
        // The screen is redrawn from the pane (after a slow spell, or once the node is back):
        // a refusal shown before it, such as "the node is offline", no longer holds.
        this.resetBeforeWrite = true;
        this.patch({ frameError: null });
        break;
      case "error":
        this.patch({ frameError: f.message });
        break;
      case "exit":
        this.patch({ exitCode: f.exitCode });
        break;
      default:
        break;
    }
  }

  private output(bytes: Uint8Array): void {
    if (this.resetBeforeWrite) {
      this.resetBeforeWrite = false;
      this.term.reset();
    }
    this.term.write(bytes);
  }
}
