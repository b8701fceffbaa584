// A pane's recording played back: a timeline with its life (launches, restarts, stops, its
// agent's states), its resizes and who put input into it (its input marks: who and when, never
// what), play and pause at a speed, seeking to a moment into it or to a time of day (the audit
// log links here with one), and search through what it printed.
//
// The recording is the plane's asciicast export of the pane (the same file "Download recording"
// saves), read whole; whoever may read the pane may play it, anyone else is told it is not found.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api } from "../api";
import { subshells } from "../live";
import { Link, useRoute } from "../router";
import { useStore } from "../store";
import { type Cast, castText, clock, type Match, parseCast, search } from "../terminal/cast";
import { Player, PLACEHOLDER_STATE } from "../terminal/player";
import type { InputMark, InputMarks, PaneEvent } from "../types";
import { ErrorNote, Note } from "../ui";

const SPEEDS = [0.5, 1, 2, 4, 8, 16, 64];

const INPUT_WORDS: Record<InputMark["kind"], string> = {
  typed: "Typed",
  paste: "Pasted",
  sent: "Sent through the API",
  upload: "Uploaded",
};

const LIFE_WORDS: Record<string, string> = {
  launched: "Launched",
  launch_failed: "Launch failed",
  restarted: "Restarted",
  terminated: "Terminated",
  killed: "Killed",
};
const STATE_WORDS: Record<string, string> = {
  starting: "starting",
  working: "working",
  needs_input: "needs you",
  idle: "idle",
  done: "done",
  error: "in error",
  unknown: "state unknown",
};

/** A life event in words. */
function lifeLabel(e: PaneEvent): string {
  if (e.kind !== "agent_state") return LIFE_WORDS[e.kind] ?? e.kind;
  const state = STATE_WORDS[e.state ?? ""] ?? e.state ?? "";
  return `Agent ${state}${e.summary ? `: ${e.summary}` : ""}`;
}

/** A mark in words: how, by whom, through what. */
function inputLabel(m: InputMark): string {
  const who = m.actorName ?? "a deleted account";
  const how =
    m.actorKind === "pane"
      ? ` with the token of pane ${m.viaSubshellId?.slice(0, 8) ?? ""}`
      : m.actorKind === "system_key"
        ? " with a system key"
        : "";
  const viewer = m.viewerId != null ? ` (viewer ${m.viewerId})` : "";
  const detail = m.detail as { name?: unknown } | null | undefined;
  const file = m.kind === "upload" && typeof detail?.name === "string" ? ` ${detail.name}` : "";
  return `${INPUT_WORDS[m.kind]}${file} by ${who}${how}${viewer}`;
}

/** A time into the recording as people write it: `1:02:03`, `2:03` or seconds. */
function parseElapsed(s: string): number | null {
  const parts = s.trim().split(":");
  if (!parts.length || parts.length > 3 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) return null;
  return parts.reduce((acc, p) => acc * 60 + Number(p), 0);
}

/** `YYYY-MM-DDTHH:MM:SS` in local time, for a datetime-local input. */
function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 19);
}

export function RecordingPage({ id }: { id: string }) {
  const row = useStore(subshells)[id];
  const { query } = useRoute();
  const [cast, setCast] = useState<Cast | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [player, setPlayer] = useState<Player | null>(null);
  const hostRef = useRef<HTMLDivElement>(null);
  const [elapsed, setElapsed] = useState("");
  const [elapsedError, setElapsedError] = useState("");
  const [q, setQ] = useState("");
  const [matches, setMatches] = useState<Match[] | null>(null);
  const [inputs, setInputs] = useState<InputMarks | null>(null);
  const [inputsError, setInputsError] = useState<unknown>(null);
  const [life, setLife] = useState<PaneEvent[]>([]);
  const text = useMemo(() => (cast ? castText(cast) : null), [cast]);

  useEffect(() => {
    document.title = `Recording of ${row?.name ?? "a subshell"} · termplane`;
  }, [row?.name]);

  useEffect(() => {
    let gone = false;
    setCast(null);
    setError(null);
    void (async () => {
      try {
        const body = (await api.GET("/api/subshells/{id}/recording/cast", {
          params: { path: { id } },
          parseAs: "text",
        })) as unknown as string;
        if (!gone) setCast(parseCast(body));
      } catch (e) {
        if (!gone) setError(e);
      }
    })();
    // Who typed, and the pane's life: shown on the timeline; the playback goes on without them
    // if they cannot be read.
    setInputs(null);
    setInputsError(null);
    void api
      .GET("/api/subshells/{id}/recording/inputs", { params: { path: { id } } })
      .then((r) => !gone && setInputs(r))
      .catch((e) => !gone && setInputsError(e));
    setLife([]);
    void api
      .GET("/api/subshells/{id}/recording/events", { params: { path: { id } } })
      .then((r) => !gone && setLife(r.events))
      .catch((e) => !gone && setInputsError(e));
    return () => {
      gone = true;
    };
  }, [id]);

  useEffect(() => {
    const host = hostRef.current;
    if (!cast || !host) return;
    const p = new Player(cast, window.matchMedia("(max-width: 600px)").matches);
    p.mount(host);
    setPlayer(p);
    // Opened at a moment: `?t=` seconds into it, or `?at=` a time (ms since the epoch).
    const t = Number(query.get("t"));
    const at = Number(query.get("at"));
    if (query.get("t") && Number.isFinite(t)) void p.seek(t);
    else if (query.get("at") && Number.isFinite(at)) void p.seek((at - cast.startMs) / 1000);
    return () => {
      p.dispose();
      setPlayer(null);
    };
  }, [cast]);

  const st = useStore(player ? player.state : PLACEHOLDER_STATE);
  const duration = cast?.duration ?? 0;
  const marks = useMemo(
    () =>
      (cast?.events ?? []).flatMap((e, i) =>
        e.kind === "r"
          ? [{ i, t: e.t, label: `Resized to ${e.cols}×${e.rows}`, kind: "resize" }]
          : e.kind === "m"
            ? [{ i, t: e.t, label: e.label, kind: "mark" }]
            : [],
      ),
    [cast],
  );
  const ready = !!player && st.indexing === null;
  /** Seconds into the recording of a time on the plane's clock (ms). */
  const into = (ms: number) => Math.min(Math.max(0, (ms - (cast?.startMs ?? 0)) / 1000), duration);
  const pct = (t: number) => `${duration ? (t / duration) * 100 : 0}%`;

  return (
    <div class="page rec-page">
      <p class="crumbs">
        <Link href={`/subshells/${id}`}>← {row?.name ?? "Subshell"}</Link>
      </p>
      <h1>Recording of {row?.name ?? cast?.title ?? "a subshell"}</h1>
      <ErrorNote error={error} />
      {!cast && !error ? (
        <p class="muted" role="status">
          Loading the recording…
        </p>
      ) : null}
      {cast ? (
        <>
          {st.indexing !== null ? (
            <p class="muted" role="status" data-testid="rec-indexing">
              Preparing playback… {Math.round(st.indexing * 100)}%
            </p>
          ) : null}
          {cast.events[0]?.kind === "m" && cast.events[0].label === "recording truncated" ? (
            <Note tone="warn">
              The start of this recording was dropped to keep the pane's log within its cap on its node: it plays from the
              oldest output kept.
            </Note>
          ) : null}
          <div class="rec-controls" data-testid="rec-controls">
            <button
              type="button"
              class="btn btn-primary btn-small"
              disabled={!ready}
              onClick={() => (st.playing ? player?.pause() : player?.play())}
            >
              {st.playing ? "Pause" : "Play"}
            </button>
            <span class="mono" data-testid="rec-position" aria-live="off">
              {clock(st.at)} / {clock(duration)}
            </span>
            <span class="muted small" title="When the screen shown was on the pane">
              {cast.startMs ? new Date(cast.startMs + st.at * 1000).toLocaleString() : ""}
            </span>
            <label class="rec-field">
              Speed
              <select
                value={String(st.speed)}
                onChange={(e) => player?.setSpeed(Number((e.currentTarget as HTMLSelectElement).value))}
              >
                {SPEEDS.map((s) => (
                  <option value={String(s)}>{s}×</option>
                ))}
              </select>
            </label>
            <label class="rec-field">
              <input
                type="checkbox"
                checked={st.skipIdle}
                onChange={(e) => player?.setSkipIdle((e.currentTarget as HTMLInputElement).checked)}
              />
              Skip idle time
            </label>
            <a class="btn btn-small" href={`/api/subshells/${id}/recording/cast`} download={`${row?.name ?? id}.cast`}>
              Download
            </a>
          </div>
          <div class="rec-timeline">
            <input
              type="range"
              min={0}
              max={duration || 0}
              step={0.01}
              value={st.at}
              disabled={!ready}
              aria-label="Position in the recording"
              aria-valuetext={`${clock(st.at)} of ${clock(duration)}`}
              data-testid="rec-seek"
              onInput={(e) => void player?.seek(Number((e.currentTarget as HTMLInputElement).value))}
            />
            <div class="rec-marks">
              {marks.map((m) => (
                <button
                  type="button"
                  class={`rec-mark rec-mark-${m.kind}`}
                  style={{ left: pct(m.t) }}
                  title={`${clock(m.t)}: ${m.label}`}
                  aria-label={`${m.label} at ${clock(m.t)}`}
                  disabled={!ready}
                  onClick={() => void player?.seek(m.t)}
                />
              ))}
              {cast.startMs
                ? life.map((e) => (
                    <button
                      type="button"
                      class={`rec-mark rec-mark-life rec-mark-${e.kind}`}
                      style={{ left: pct(into(e.at)) }}
                      title={`${clock(into(e.at))}: ${lifeLabel(e)}`}
                      aria-label={`${lifeLabel(e)} at ${clock(into(e.at))}`}
                      disabled={!ready}
                      onClick={() => void player?.seek(into(e.at))}
                    />
                  ))
                : null}
              {cast.startMs
                ? (inputs?.marks ?? []).map((m) => (
                    <button
                      type="button"
                      class={`rec-mark rec-mark-input rec-mark-${m.kind}`}
                      style={{ left: pct(into(m.at)) }}
                      title={`${clock(into(m.at))}: ${inputLabel(m)}`}
                      aria-label={`${inputLabel(m)} at ${clock(into(m.at))}`}
                      disabled={!ready}
                      onClick={() => void player?.seek(into(m.at))}
                    />
                  ))
                : null}
              {(matches ?? []).map((m) => (
                <span class="rec-mark rec-mark-match" style={{ left: pct(m.t) }} aria-hidden="true" />
              ))}
            </div>
          </div>
          <div class="rec-tools">
            <form
              class="rec-form"
              onSubmit={(e) => {
                e.preventDefault();
                const t = parseElapsed(elapsed);
                if (t === null) setElapsedError("Write a time into the recording as h:mm:ss, m:ss or seconds.");
                else {
                  setElapsedError("");
                  void player?.seek(t);
                }
              }}
            >
              <label for="rec-goto">Go to</label>
              <input
                id="rec-goto"
                class="mono"
                size={9}
                placeholder="h:mm:ss"
                value={elapsed}
                aria-invalid={elapsedError ? true : undefined}
                onInput={(e) => setElapsed((e.currentTarget as HTMLInputElement).value)}
              />
              <button type="submit" class="btn btn-small" disabled={!ready}>
                Go
              </button>
            </form>
            {cast.startMs ? (
              <label class="rec-field">
                Screen at
                <input
                  type="datetime-local"
                  step={1}
                  min={localInput(cast.startMs)}
                  max={localInput(cast.startMs + duration * 1000)}
                  disabled={!ready}
                  onChange={(e) => {
                    const v = (e.currentTarget as HTMLInputElement).value;
                    const ms = v ? new Date(v).getTime() : NaN;
                    if (Number.isFinite(ms)) void player?.seek((ms - cast.startMs) / 1000);
                  }}
                />
              </label>
            ) : null}
            <form
              class="rec-form rec-grow"
              role="search"
              onSubmit={(e) => {
                e.preventDefault();
                if (cast && text) setMatches(search(cast, text, q));
              }}
            >
              <label for="rec-search" class="sr-only">
                Search what the pane printed
              </label>
              <input
                id="rec-search"
                type="search"
                placeholder="Search what the pane printed"
                value={q}
                onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)}
              />
              <button type="submit" class="btn btn-small">
                Search
              </button>
            </form>
          </div>
          {elapsedError ? <Note tone="bad">{elapsedError}</Note> : null}
          <ErrorNote error={inputsError} />
          {inputs && inputs.marks.length && cast.startMs ? (
            <details class="rec-inputs" data-testid="rec-inputs">
              <summary>
                Who put input into it ({inputs.marks.length}
                {inputs.truncated ? ", the earliest shown" : ""})
              </summary>
              <ol>
                {inputs.marks.map((m) => (
                  <li>
                    <button type="button" class="linkish" disabled={!ready} onClick={() => void player?.seek(into(m.at))}>
                      <span class="mono">{clock(into(m.at))}</span> {inputLabel(m)}
                    </button>
                  </li>
                ))}
              </ol>
              <p class="muted small">What was typed is not kept: the screen shows what the pane showed.</p>
            </details>
          ) : null}
          {matches ? (
            matches.length ? (
              <ol class="rec-matches" aria-label="Where it was printed" data-testid="rec-matches">
                {matches.map((m) => (
                  <li>
                    <button type="button" class="linkish" disabled={!ready} onClick={() => void player?.seek(m.t)}>
                      <span class="mono">{clock(m.t)}</span> <span class="mono small">{m.context}</span>
                    </button>
                  </li>
                ))}
              </ol>
            ) : (
              <p class="muted" role="status">
                Not printed in this recording.
              </p>
            )
          ) : null}
        </>
      ) : null}
      <div class="rec-screen">
        <div ref={hostRef} data-testid="rec-terminal" />
      </div>
    </div>
  );
}
