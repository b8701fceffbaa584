// Why a pane has the size it has, said to the person looking at it.
//
// The pane takes the smallest grid among the viewers that take part in sizing. A viewer whose
// box is larger than that grid sees the notice "Sized to Ann's 45×20 (phone)" and the part of
// its box the pane does not use hatched; the viewer holding the grid hears that the others see
// the pane at its size and may stop resizing them; a viewer out of sizing whose box is smaller
// than the pane may fit it to its screen.

import { useEffect, useState } from "preact/hooks";
import type { TerminalClient, TermState } from "./client";
import type { Viewer } from "../types";

/** How a viewer is named in a notice: "Ann's", or "your phone's" for the person's own other view. */
function whose(v: Viewer | undefined, myUserId: string | null): string {
  if (!v) return "another viewer's";
  if (myUserId !== null && v.userId === myUserId) {
    return v.device === "phone" || v.device === "tablet" ? `your ${v.device}'s` : "your other window's";
  }
  return `${v.displayName}'s`;
}

function device(v: Viewer | undefined, myUserId: string | null): string {
  if (!v?.device || (myUserId !== null && v.userId === myUserId)) return "";
  return ` (${v.device})`;
}

/** Whether this viewer's box has room the pane does not use (its grid exceeds the pane's). */
export function hasUnusedRoom(t: TermState): boolean {
  return t.conn === "live" && !!t.own && t.cols > 0 && t.rows > 0 && (t.own.cols > t.cols || t.own.rows > t.rows);
}

/**
 * Rows a box must have beyond the pane's before a row-only difference is explained in words: the
 * notice takes rows from the box itself, and showing it must not turn this viewer into the one
 * holding the grid (which hides it again, and so on).
 */
const ROW_SLACK = 6;

export function SizeNotice({
  t,
  client,
  myUserId,
  onShowViewers,
}: {
  t: TermState;
  client: TerminalClient;
  myUserId: string | null;
  onShowViewers: () => void;
}) {
  if (t.conn !== "live" || !t.own) return null;
  const me = t.viewerId;
  const held = t.held;
  const byId = (id: number) => t.viewers.find((v) => v.viewerId === id);
  // Someone else's grid holds the pane below this box.
  const roomHere = t.own.cols > t.cols || t.own.rows > t.rows + ROW_SLACK;
  if (hasUnusedRoom(t) && roomHere && held && (held.colsBy !== me || held.rowsBy !== me)) {
    const a = byId(held.colsBy);
    const b = byId(held.rowsBy);
    const text =
      held.colsBy === held.rowsBy
        ? `Sized to ${whose(a, myUserId)} ${held.cols}×${held.rows}${device(a, myUserId)}.`
        : `Sized to ${whose(a, myUserId)} ${held.cols} columns${device(a, myUserId)} and ${whose(b, myUserId)} ${held.rows} rows${device(b, myUserId)}.`;
    return (
      <div class="note note-info size-note" role="status" data-testid="sized-to">
        <span>{text} The hatched part of this window is not used.</span>{" "}
        <button type="button" class="btn btn-small" onClick={onShowViewers}>
          Who's watching
        </button>
      </div>
    );
  }
  if (t.readOnly) return null;
  // This view holds the grid below another viewer's box.
  const holding = held && (held.colsBy === me || held.rowsBy === me);
  const roomier = t.viewers.some(
    (v) => v.viewerId !== me && v.cols !== null && v.rows !== null && held && (v.cols > held.cols || v.rows > held.rows),
  );
  if (t.sizing && holding && roomier && held) {
    return (
      <div class="note note-info size-note" role="status" data-testid="holding-size">
        <span>
          The other viewers see this pane at your {held.cols}×{held.rows}.
        </span>{" "}
        <button type="button" class="btn btn-small" onClick={() => client.setSizing(false)}>
          Don't resize others
        </button>
      </div>
    );
  }
  // Out of sizing, with a pane larger than this box.
  if (!t.sizing && (t.cols > t.own.cols || t.rows > t.own.rows)) {
    return (
      <div class="note note-muted size-note" role="status" data-testid="larger-pane">
        <span>
          The pane is {t.cols}×{t.rows}, larger than this screen: you watch without resizing it for the others.
        </span>{" "}
        <button type="button" class="btn btn-small" onClick={() => client.setSizing(true, false)}>
          Fit to this screen
        </button>
      </div>
    );
  }
  return null;
}

/**
 * Hatches the part of the terminal's box beyond the pane's columns and rows, over the terminal
 * (it takes no pointer events). `wrap` is the box the terminal's host fills.
 */
export function UnusedArea({ wrap, t }: { wrap: HTMLElement | null; t: TermState }) {
  const show = hasUnusedRoom(t);
  const [box, setBox] = useState<{ right: number; bottom: number } | null>(null);
  useEffect(() => {
    if (!show || !wrap) {
      setBox(null);
      return;
    }
    const screenEl = wrap.querySelector(".xterm-screen");
    if (!(screenEl instanceof HTMLElement)) return;
    const measure = () => {
      const w = wrap.getBoundingClientRect();
      const s = screenEl.getBoundingClientRect();
      setBox({ right: Math.round(s.right - w.left), bottom: Math.round(s.bottom - w.top) });
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(screenEl);
    ro.observe(wrap);
    return () => ro.disconnect();
  }, [show, wrap, t.cols, t.rows]);
  if (!show || !box) return null;
  return (
    <div class="term-unused" data-testid="unused-area" aria-hidden="true">
      <div class="term-unused-right" style={{ left: `${box.right}px` }} />
      <div class="term-unused-bottom" style={{ top: `${box.bottom}px`, width: `${box.right}px` }} />
    </div>
  );
}
