// Plays a recording into a terminal: play and pause at a speed, and seek to any time in well
// under a second however long the recording is.
//
// Seeking is what keyframes are for. Once loaded, the recording is played through once as fast
// as the terminal parses it, and the screen (with some scrollback) is kept every KEYFRAME_CHARS
// of output: a seek starts from the last keyframe before the time asked for and plays at most
// that much output on top of it. An 8-hour recording of a busy pane (the export holds at most
// 16 MiB) keeps a few hundred keyframes.

import { SerializeAddon } from "@xterm/addon-serialize";
import { Terminal } from "@xterm/xterm";
import { createStore, type Store } from "../store";
import { THEME } from "./client";
import { type Cast, eventAfter } from "./cast";

const KEYFRAME_CHARS = 64 * 1024;
/** Scrollback lines a keyframe keeps above the screen. */
const KEYFRAME_SCROLLBACK = 300;

interface Keyframe {
  /** The first event not in it. */
  next: number;
  cols: number;
  rows: number;
  screen: string;
}

export interface PlayerState {
  /** Building the keyframes: the share done, 0 to 1; null once ready. */
  indexing: number | null;
  playing: boolean;
  /** Seconds from the recording's start. */
  at: number;
  speed: number;
  /** Idle stretches over IDLE_LIMIT seconds are skipped while playing. */
  skipIdle: boolean;
  cols: number;
  rows: number;
}

/** The longest wait between two events while idle stretches are skipped (seconds). */
export const IDLE_LIMIT = 2;

export class Player {
  readonly state: Store<PlayerState>;
  private readonly term: Terminal;
  private readonly serializer = new SerializeAddon();
  private keyframes: Keyframe[];
  /** The first event not yet on the screen. */
  private next = 0;
  /** Terminal work runs one step at a time, in order. */
  private queue: Promise<void> = Promise.resolve();
  /** Bumped by every seek, so a play step started before it gives way. */
  private generation = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** While playing: the recording's time at `baseWall` (ms of performance.now()). */
  private baseAt = 0;
  private baseWall = 0;
  private disposed = false;

  constructor(
    private readonly cast: Cast,
    phone: boolean,
  ) {
    this.term = new Terminal({
      fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace",
      fontSize: phone ? 12 : 14,
      lineHeight: 1.15,
      cols: cast.cols,
      rows: cast.rows,
      scrollback: 5000,
      theme: THEME,
      disableStdin: true,
      cursorBlink: false,
    });
    this.term.loadAddon(this.serializer);
    this.keyframes = [{ next: 0, cols: cast.cols, rows: cast.rows, screen: "" }];
    this.state = createStore<PlayerState>({
      indexing: 0,
      playing: false,
      at: 0,
      speed: 1,
      skipIdle: true,
      cols: cast.cols,
      rows: cast.rows,
    });
  }

  mount(host: HTMLElement): void {
    this.term.open(host);
    void this.run(() => this.index());
  }

  dispose(): void {
    this.disposed = true;
    this.stopTimer();
    this.generation++;
    this.term.dispose();
  }

  /** The terminal's text as shown now (its screen rows), for tests and for copying. */
  screenText(): string {
    const b = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++) out.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? "");
    return out.join("\n");
  }

  play(): void {
    const s = this.state.get();
    if (s.indexing !== null || s.playing) return;
    const at = s.at >= this.cast.duration ? 0 : s.at;
    if (at !== s.at) this.seek(0);
    this.baseAt = at;
    this.baseWall = performance.now();
    this.state.set({ ...this.state.get(), playing: true, at });
    this.tick();
  }

  pause(): void {
    this.stopTimer();
    this.state.set({ ...this.state.get(), playing: false });
  }

  setSpeed(speed: number): void {
    const s = this.state.get();
    this.baseAt = s.at;
    this.baseWall = performance.now();
    this.state.set({ ...s, speed });
  }

  setSkipIdle(skipIdle: boolean): void {
    this.state.set({ ...this.state.get(), skipIdle });
  }

  /** Shows the screen as it was `t` seconds into the recording; playing goes on from there. */
  seek(t: number): Promise<void> {
    const at = Math.min(Math.max(0, t), this.cast.duration);
    const gen = ++this.generation;
    this.baseAt = at;
    this.baseWall = performance.now();
    this.state.set({ ...this.state.get(), at });
    const upto = eventAfter(this.cast, at);
    return this.run(async () => {
      if (gen !== this.generation) return;
      // Forward within reach of the screen shown: played on from it; else from a keyframe.
      if (upto < this.next || this.keyframeBefore(upto).next > this.next) await this.restore(upto);
      await this.playUpto(upto);
      if (gen === this.generation && this.state.get().playing) this.tick();
    });
  }

  // Indexing: the whole recording played once, its keyframes kept; then the start is shown.
  private async index(): Promise<void> {
    const events = this.cast.events;
    let since = 0;
    let reported = performance.now();
    for (let i = 0; i < events.length; ) {
      if (this.disposed) return;
      const e = events[i]!;
      if (e.kind === "r") {
        this.resize(e.cols, e.rows);
        i++;
        continue;
      }
      const { text, end } = this.gather(i, events.length, KEYFRAME_CHARS - since);
      since += text.length;
      i = end;
      await this.write(text);
      if (since >= KEYFRAME_CHARS) {
        since = 0;
        this.keyframes.push({
          next: i,
          cols: this.term.cols,
          rows: this.term.rows,
          screen: this.serializer.serialize({ scrollback: KEYFRAME_SCROLLBACK }),
        });
      }
      if (performance.now() - reported > 100) {
        reported = performance.now();
        this.state.set({ ...this.state.get(), indexing: i / events.length });
      }
    }
    this.next = events.length;
    this.state.set({ ...this.state.get(), indexing: null });
    const at = this.state.get().at;
    this.generation++;
    // The screen shown first: where a seek asked for before the keyframes were ready, or the start.
    const upto = eventAfter(this.cast, at);
    await this.restore(upto);
    await this.playUpto(upto);
  }

  /** Shows the last keyframe before event `upto`. */
  private async restore(upto: number): Promise<void> {
    const k = this.keyframeBefore(upto);
    this.term.reset();
    this.resize(k.cols, k.rows);
    await this.write(k.screen);
    this.next = k.next;
  }

  /** Output events from `i` on, joined up to a resize, `before`, or about `room` characters. */
  private gather(i: number, before: number, room: number): { text: string; end: number } {
    const parts: string[] = [];
    let len = 0;
    let j = i;
    for (; j < before; j++) {
      const e = this.cast.events[j]!;
      if (e.kind === "r") break;
      if (e.kind !== "o") continue;
      parts.push(e.data);
      len += e.data.length;
      if (len >= room) {
        j++;
        break;
      }
    }
    return { text: parts.join(""), end: j };
  }

  /** Plays events from `this.next` up to (not including) `upto`. */
  private async playUpto(upto: number): Promise<void> {
    const gen = this.generation;
    while (this.next < upto && gen === this.generation && !this.disposed) {
      const e = this.cast.events[this.next]!;
      if (e.kind === "r") {
        this.resize(e.cols, e.rows);
        this.next++;
        continue;
      }
      const { text, end } = this.gather(this.next, upto, KEYFRAME_CHARS);
      this.next = end;
      await this.write(text);
    }
  }

  private keyframeBefore(upto: number): Keyframe {
    let k = this.keyframes[0]!;
    for (const f of this.keyframes) {
      if (f.next <= upto) k = f;
      else break;
    }
    return k;
  }

  private resize(cols: number, rows: number): void {
    if (this.term.cols !== cols || this.term.rows !== rows) this.term.resize(cols, rows);
    const s = this.state.get();
    if (s.cols !== cols || s.rows !== rows) this.state.set({ ...s, cols, rows });
  }

  private write(text: string): Promise<void> {
    if (!text) return Promise.resolve();
    return new Promise((done) => this.term.write(text, done));
  }

  private run(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step, step);
    return this.queue;
  }

  private stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** One step of playing: what is due is written, and the next step set for the next event. */
  private tick(): void {
    this.stopTimer();
    const s = this.state.get();
    if (!s.playing || this.disposed) return;
    let at = this.baseAt + ((performance.now() - this.baseWall) / 1000) * s.speed;
    const upcoming = this.cast.events[this.next];
    if (s.skipIdle && upcoming && upcoming.t - at > IDLE_LIMIT) {
      // An idle stretch: go on as if it had lasted IDLE_LIMIT seconds.
      at = upcoming.t - IDLE_LIMIT;
      this.baseAt = at;
      this.baseWall = performance.now();
    }
    if (at >= this.cast.duration) {
      at = this.cast.duration;
      this.state.set({ ...s, at, playing: false });
    } else this.state.set({ ...s, at });
    const gen = this.generation;
    void this.run(async () => {
      if (gen !== this.generation) return;
      await this.playUpto(eventAfter(this.cast, at));
      if (gen !== this.generation || !this.state.get().playing) return;
      const following = this.cast.events[this.next];
      // Wake for the next event, and at least a few times a second for the position shown.
      const wait = following ? ((following.t - at) * 1000) / this.state.get().speed : 250;
      this.timer = setTimeout(() => this.tick(), Math.min(250, Math.max(0, wait)));
    });
  }
}

/** The state shown before a player exists. */
export const PLACEHOLDER_STATE = createStore<PlayerState>({
  indexing: 0,
  playing: false,
  at: 0,
  speed: 1,
  skipIdle: true,
  cols: 80,
  rows: 24,
});
