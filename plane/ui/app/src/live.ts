// The whole-user live feed: subshells, node liveness and presence, listed once over REST and
// then kept current by the frames of `GET /api/live`. When the feed closes, everything is
// listed again and the feed reopened (with backoff). A subshell that changes state or attention,
// a node that changes liveness, and every fresh listing (changes may have passed unseen) are
// told to `onFeedChange` listeners: the plane may have a notification about them. A new entry
// in a channel this account reads is told to `onChannelEntry` listeners.

import { api, socketUrl } from "./api";
import { createStore } from "./store";
import { clearFailure, showFailure } from "./ui";
import type { FeedFrame, Node, Subshell, Viewer, WsToken } from "./types";

export type FeedStatus = "connecting" | "live" | "down";

export const subshells = createStore<Record<string, Subshell>>({});
export const nodes = createStore<Node[]>([]);
export const presence = createStore<Record<string, Viewer[]>>({});
export const feedStatus = createStore<FeedStatus>("connecting");
/** Whether the first listing arrived. */
export const listed = createStore<boolean>(false);

let socket: WebSocket | null = null;
let running = false;
let retry = 0;
let retryTimer: number | undefined;
let pingTimer: number | undefined;
let generation = 0;

/** The keys of the failures shown when a listing fails (cleared when one works again). */
const NODES_FAILED = "nodes";
const LIST_FAILED = "subshells";

const changeListeners = new Set<() => void>();

/** Calls `fn` when the feed reports a change the plane may notify about. */
export function onFeedChange(fn: () => void): () => void {
  changeListeners.add(fn);
  return () => changeListeners.delete(fn);
}

function changed(): void {
  changeListeners.forEach((fn) => fn());
}

/** A `channel_entry` frame: a new entry in a channel this account can read. */
export interface ChannelEntryFrame {
  channelId: string;
  seq: number;
  hash: string;
}

const channelListeners = new Set<(f: ChannelEntryFrame) => void>();

/**
 * Calls `fn` for each new entry of a channel this account can read. Frames sent while the feed
 * was down are not repeated: a reader also catches up when `feedStatus` turns `live` again.
 */
export function onChannelEntry(fn: (f: ChannelEntryFrame) => void): () => void {
  channelListeners.add(fn);
  return () => channelListeners.delete(fn);
}

export function putSubshell(s: Subshell): void {
  subshells.update((all) => {
    const prev = all[s.id];
    if (prev && prev.updatedAt > s.updatedAt) return all;
    return { ...all, [s.id]: s };
  });
}

export function dropSubshell(id: string): void {
  subshells.update((all) => {
    if (!(id in all)) return all;
    const next = { ...all };
    delete next[id];
    return next;
  });
}

export async function refreshNodes(): Promise<Node[]> {
  const list = await api.GET("/api/nodes");
  nodes.set(list);
  clearFailure(NODES_FAILED);
  return list;
}

/** Reads the node list again on the app's own initiative: a failure is shown until a later
 * reading works. */
export function refreshNodesInBackground(): void {
  refreshNodes().catch((e: unknown) => {
    if (running) showFailure("The node list could not be read", e, NODES_FAILED);
  });
}

async function listAll(): Promise<void> {
  const [list] = await Promise.all([api.GET("/api/subshells"), refreshNodes()]);
  const next: Record<string, Subshell> = {};
  for (const s of list) next[s.id] = s;
  subshells.set(next);
  listed.set(true);
  clearFailure(LIST_FAILED);
}

/** `listAll`, its failure shown until a later listing works. */
function listAllInBackground(): Promise<boolean> {
  return listAll().then(
    () => true,
    (e: unknown) => {
      // After sign-out the listing has no one to tell.
      if (running) showFailure("The subshells could not be listed", e, LIST_FAILED);
      return false;
    },
  );
}

function apply(f: FeedFrame): void {
  switch (f.type) {
    case "subshell": {
      const prev = subshells.get()[f.subshell.id];
      putSubshell(f.subshell);
      if (
        !prev ||
        prev.state !== f.subshell.state ||
        prev.attention !== f.subshell.attention ||
        prev.agent?.state !== f.subshell.agent.state
      )
        changed();
      break;
    }
    case "subshell_gone":
      dropSubshell(f.subshellId);
      presence.update((p) => {
        const next = { ...p };
        delete next[f.subshellId];
        return next;
      });
      break;
    case "node": {
      const known = nodes.get().some((n) => n.nodeId === f.nodeId);
      if (known) {
        nodes.update((list) => list.map((n) => (n.nodeId === f.nodeId ? { ...n, liveness: f.liveness } : n)));
      }
      // A node this page has not listed yet (just enrolled): read the list again.
      if (!known || f.liveness === "online") refreshNodesInBackground();
      if (f.liveness === "online") {
        // Its panes are reachable again once the plane has its census: list them afresh (and
        // once more a moment later, the census being applied just after the link is up).
        void listAllInBackground();
        window.setTimeout(() => void listAllInBackground(), 2_000);
      } else {
        // Its live panes cannot be reached now: say so at once, as a fresh listing would.
        subshells.update((all) => {
          const next = { ...all };
          for (const [sid, row] of Object.entries(all)) {
            if (row.nodeId === f.nodeId && ["starting", "running", "stopping"].includes(row.state)) {
              next[sid] = { ...row, nodeReachable: false, status: "node_unreachable" };
            }
          }
          return next;
        });
      }
      changed();
      break;
    }
    case "presence":
      presence.update((p) => ({ ...p, [f.subshellId]: f.viewers }));
      break;
    case "notification":
      // A new entry in this account's inbox: the unread count reads it again.
      changed();
      break;
    case "channel_entry": {
      const frame = { channelId: f.channelId, seq: f.seq, hash: f.hash };
      channelListeners.forEach((fn) => fn(frame));
      break;
    }
    default:
      break;
  }
}

function schedule(): void {
  if (!running) return;
  feedStatus.set("down");
  const wait = Math.min(15_000, 500 * 2 ** retry);
  retry += 1;
  window.clearTimeout(retryTimer);
  retryTimer = window.setTimeout(() => void connect(), wait);
}

async function connect(): Promise<void> {
  if (!running) return;
  const gen = ++generation;
  feedStatus.set("connecting");
  let token: WsToken;
  try {
    token = await api.POST("/api/auth/ws-token", { body: {} });
  } catch {
    // Not told as a failure of its own: the header's badge says the feed is offline and
    // retrying, and the retry asks again.
    if (gen === generation) schedule();
    return;
  }
  if (!running || gen !== generation) return;
  const ws = new WebSocket(socketUrl(`/api/live?token=${encodeURIComponent(token.token)}`));
  socket = ws;
  let queue: FeedFrame[] | null = [];
  ws.onmessage = (ev) => {
    if (typeof ev.data !== "string") return;
    let f: FeedFrame;
    try {
      f = JSON.parse(ev.data) as FeedFrame;
    } catch {
      // The plane sends JSON text frames only; a frame that is not one has nothing to apply.
      return;
    }
    if (f.type === "hello") {
      // Subscribed: list now, then apply what arrived meanwhile.
      void listAllInBackground().then((ok) => {
        if (!ok) {
          // Reconnect (with backoff) and list again then.
          ws.close();
          return;
        }
        const pending = queue ?? [];
        queue = null;
        pending.forEach(apply);
        feedStatus.set("live");
        retry = 0;
        changed();
      });
      return;
    }
    if (queue) queue.push(f);
    else apply(f);
  };
  ws.onclose = () => {
    if (socket === ws) socket = null;
    window.clearInterval(pingTimer);
    if (gen === generation) schedule();
  };
  window.clearInterval(pingTimer);
  pingTimer = window.setInterval(() => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "ping" }));
  }, 25_000);
}

export function startFeed(): void {
  if (running) return;
  running = true;
  retry = 0;
  listed.set(false);
  // Show something at once even before the socket is up.
  void listAllInBackground();
  void connect();
}

export function stopFeed(): void {
  running = false;
  generation++;
  window.clearTimeout(retryTimer);
  window.clearInterval(pingTimer);
  socket?.close();
  socket = null;
  subshells.set({});
  nodes.set([]);
  presence.set({});
  listed.set(false);
  clearFailure(LIST_FAILED);
  clearFailure(NODES_FAILED);
}
