// The count of unread notifications in the top bar. It is read at sign-in, every 30 seconds,
// when the tab comes back into view, and shortly after the live feed reports a subshell or node
// change (the plane stores a notification before it sends the feed frame of its cause).

import { api } from "./api";
import { onFeedChange } from "./live";
import { createStore } from "./store";
import { clearFailure, showFailure } from "./ui";

/** From this many unread notifications on, the count shows as "99+". */
export const UNREAD_CAP = 100;
export const unread = createStore<number>(0);

const POLL_MS = 30_000;
/** The key of the failure shown while the count cannot be read. */
const UNREAD_FAILED = "unread";
const SETTLE_MS = 400;

let running = false;
let pollTimer: number | undefined;
let settleTimer: number | undefined;
let stopListening: (() => void) | null = null;

export async function refreshUnread(): Promise<void> {
  try {
    const { unread: n } = await api.GET("/api/notifications/unread");
    if (running) unread.set(n);
    clearFailure(UNREAD_FAILED);
  } catch (e) {
    // Shown until a later reading works (the count stays as it was meanwhile).
    if (running) showFailure("The count of unread notifications could not be read", e, UNREAD_FAILED);
  }
}

function soon(): void {
  window.clearTimeout(settleTimer);
  settleTimer = window.setTimeout(() => void refreshUnread(), SETTLE_MS);
}

function onVisible(): void {
  if (document.visibilityState === "visible") soon();
}

export function startUnread(): void {
  if (running) return;
  running = true;
  void refreshUnread();
  pollTimer = window.setInterval(() => {
    if (document.visibilityState === "visible") void refreshUnread();
  }, POLL_MS);
  stopListening = onFeedChange(soon);
  document.addEventListener("visibilitychange", onVisible);
}

export function stopUnread(): void {
  running = false;
  window.clearInterval(pollTimer);
  window.clearTimeout(settleTimer);
  stopListening?.();
  stopListening = null;
  document.removeEventListener("visibilitychange", onVisible);
  unread.set(0);
  clearFailure(UNREAD_FAILED);
}

/** The count as shown: "99+" past the cap. */
export function unreadLabel(n: number): string {
  return n >= UNREAD_CAP ? `${UNREAD_CAP - 1}+` : String(n);
}
