// A pane's recording as the plane exports it (asciicast v2), read for playback: its events, the
// text it printed (for search) and where each event's text starts in that text.

/** One event of a recording: output, a resize of the grid, or a marker (a restart). */
export type CastEvent =
  | { t: number; kind: "o"; data: string }
  | { t: number; kind: "r"; cols: number; rows: number }
  | { t: number; kind: "m"; label: string };

export interface Cast {
  cols: number;
  rows: number;
  /** When the recording starts, in ms since the epoch. */
  startMs: number;
  title: string;
  events: CastEvent[];
  /** Seconds from the start to the last event. */
  duration: number;
}

/** A recording that is not one: which line, and what is wrong with it. */
export class CastError extends Error {
  constructor(line: number, what: string) {
    super(`The recording cannot be read (line ${line}: ${what}).`);
    this.name = "CastError";
  }
}

const GRID = /^(\d{1,4})x(\d{1,4})$/;

/** Reads an asciicast v2 document; throws a CastError naming the first line that is not one. */
export function parseCast(text: string): Cast {
  const lines = text.split("\n");
  let header: unknown;
  try {
    header = JSON.parse(lines[0] ?? "");
  } catch {
    throw new CastError(1, "the header is not JSON");
  }
  const h = (typeof header === "object" && header !== null ? header : {}) as Record<string, unknown>;
  if (h["version"] !== 2) throw new CastError(1, "not asciicast version 2");
  const cols = Number(h["width"]);
  const rows = Number(h["height"]);
  if (!(cols >= 1 && cols <= 9999 && rows >= 1 && rows <= 9999)) throw new CastError(1, "no grid size");
  const events: CastEvent[] = [];
  let last = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    let e: unknown;
    try {
      e = JSON.parse(line);
    } catch {
      throw new CastError(i + 1, "not JSON");
    }
    if (!Array.isArray(e) || e.length < 3 || typeof e[0] !== "number" || typeof e[1] !== "string" || typeof e[2] !== "string") {
      throw new CastError(i + 1, "not an event");
    }
    // Players keep time moving forward; so does this one.
    const t = Math.max(last, e[0]);
    last = t;
    if (e[1] === "o") events.push({ t, kind: "o", data: e[2] });
    else if (e[1] === "r") {
      const m = GRID.exec(e[2]);
      if (m && Number(m[1]) > 0 && Number(m[2]) > 0) events.push({ t, kind: "r", cols: Number(m[1]), rows: Number(m[2]) });
    } else if (e[1] === "m") events.push({ t, kind: "m", label: e[2] });
    // Other kinds (input "i") are not played.
  }
  const ts = Number(h["timestamp"]);
  return {
    cols,
    rows,
    startMs: Number.isFinite(ts) ? ts * 1000 : 0,
    title: typeof h["title"] === "string" ? h["title"] : "",
    events,
    duration: last,
  };
}

/** Escape sequences (CSI, OSC, DCS and the two-byte ones): what a screen acts on, never shows. */
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]|[\x00-\x08\x0b-\x1f\x7f]/g;

/** The text a recording printed (escape sequences taken out) and each output event's start in it. */
export interface CastText {
  text: string;
  /** `starts[k]` is where event `at[k]`'s text begins in `text`. */
  starts: number[];
  at: number[];
}

export function castText(cast: Cast): CastText {
  const parts: string[] = [];
  const starts: number[] = [];
  const at: number[] = [];
  let len = 0;
  cast.events.forEach((e, i) => {
    if (e.kind !== "o") return;
    const plain = e.data.replace(ESCAPES, "");
    starts.push(len);
    at.push(i);
    parts.push(plain);
    len += plain.length;
  });
  return { text: parts.join(""), starts, at };
}

export interface Match {
  /** The event the match ends in: played up to it, the screen shows the match. */
  event: number;
  t: number;
  /** The line around the match. */
  context: string;
}

/** Where `query` was printed (case does not matter), at most `limit` places, in time order. */
export function search(cast: Cast, text: CastText, query: string, limit = 100): Match[] {
  const q = query.toLocaleLowerCase();
  if (!q) return [];
  const hay = text.text.toLocaleLowerCase();
  const out: Match[] = [];
  let from = 0;
  while (out.length < limit) {
    const k = hay.indexOf(q, from);
    if (k < 0) break;
    const end = k + q.length - 1;
    // The last event whose text starts at or before the match's end.
    let lo = 0;
    let hi = text.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (text.starts[mid]! <= end) lo = mid;
      else hi = mid - 1;
    }
    const event = text.at[lo]!;
    const lineStart = text.text.lastIndexOf("\n", k) + 1;
    const nl = text.text.indexOf("\n", end);
    const lineEnd = nl < 0 ? text.text.length : nl;
    const context = text.text.slice(Math.max(lineStart, k - 60), Math.min(lineEnd, end + 61)).replace(/\r/g, "");
    out.push({ event, t: cast.events[event]!.t, context });
    from = k + Math.max(1, q.length);
  }
  return out;
}

/** The index of the first event after `t` seconds (events at `t` are played by then). */
export function eventAfter(cast: Cast, t: number): number {
  let lo = 0;
  let hi = cast.events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cast.events[mid]!.t <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `h:mm:ss` (or `m:ss`) of a number of seconds. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}
