// The inbox: what the plane told this account about its own subshells and nodes, newest first.
// What is told, and pushes to this browser, are chosen on the account page.

import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import { refreshUnread, unread } from "../notifications";
import { Link } from "../router";
import { useStore } from "../store";
import type { Notification, NotificationKind, NotificationsQuery } from "../types";
import { Badge, Checkbox, Empty, ErrorNote, PageHead, showFailure, Time, toast, useAction } from "../ui";

const PAGE = 50;

const KINDS: Record<NotificationKind, { label: string; tone: string; glyph: string }> = {
  needs_input: { label: "Needs input", tone: "warn", glyph: "▲" },
  done: { label: "Done", tone: "ok", glyph: "✓" },
  error: { label: "Failed", tone: "bad", glyph: "✕" },
  exited: { label: "Exited", tone: "muted", glyph: "○" },
  crashed: { label: "Crashed", tone: "bad", glyph: "✕" },
  node_offline: { label: "Node offline", tone: "warn", glyph: "⚠" },
};

/** The app's page for what a notification is about. */
function subjectUrl(n: Notification): string {
  return n.kind === "node_offline" ? "/nodes" : `/subshells/${n.subjectId}`;
}

export function NotificationsPage() {
  const [items, setItems] = useState<Notification[] | null>(null);
  const [more, setMore] = useState(false);
  const [onlyUnread, setOnlyUnread] = useState(false);
  const count = useStore(unread);
  const seenCount = useRef(count);
  const act = useAction();

  const fetchPage = async (before: number | null, only: boolean) => {
    const query: NotificationsQuery = { limit: PAGE + 1 };
    if (only) query.unread = true;
    if (before !== null) query.before = before;
    const list = await api.GET("/api/notifications", { params: { query } });
    setMore(list.length > PAGE);
    return list.slice(0, PAGE);
  };

  const reload = async (only = onlyUnread) => {
    setItems(await fetchPage(null, only));
    // The list is the truth: the count in the top bar follows it.
    void refreshUnread();
  };

  useEffect(() => {
    void act.run(() => reload());
  }, []);

  // A new unread notification arrived (the count rose): show it.
  useEffect(() => {
    if (count > seenCount.current) void act.run(() => reload());
    seenCount.current = count;
  }, [count]);

  const markRead = async (n: Notification) => {
    if (n.readAt) return;
    await api.POST("/api/notifications/{id}/read", { params: { path: { id: n.id } } });
    const at = Date.now();
    setItems((list) => (list ?? []).map((x) => (x.id === n.id ? { ...x, readAt: at } : x)));
    void refreshUnread();
  };

  const markAll = async () => {
    const r = await act.run(() => api.POST("/api/notifications/read-all"));
    if (!r) return;
    toast(r.marked === 1 ? "1 notification marked read." : `${r.marked} notifications marked read.`);
    await act.run(() => reload());
  };

  const older = async () => {
    const last = items?.[items.length - 1];
    if (!last) return;
    const next = await act.run(() => fetchPage(last.createdAt, onlyUnread));
    if (next) setItems((list) => [...(list ?? []), ...next.filter((n) => !(list ?? []).some((x) => x.id === n.id))]);
  };

  return (
    <div class="page">
      <PageHead title="Inbox">
        <Link href="/account#notifications" class="btn">
          Notification settings
        </Link>
        <button type="button" class="btn" disabled={act.busy || count === 0} onClick={markAll}>
          Mark all read
        </button>
      </PageHead>
      <p class="muted">
        The plane tells you here when one of your subshells needs input, exits or crashes, and when one of your nodes goes
        offline.
      </p>
      <div class="filters">
        <Checkbox
          label="Unread only"
          checked={onlyUnread}
          onChange={(v) => {
            setOnlyUnread(v);
            void act.run(() => reload(v));
          }}
        />
      </div>
      <ErrorNote error={act.error} />
      {items && items.length === 0 ? <Empty>{onlyUnread ? "Nothing unread." : "No notifications yet."}</Empty> : null}
      {items && items.length ? (
        <ul class="list inbox" data-testid="inbox" aria-label="Notifications">
          {items.map((n) => {
            const k = KINDS[n.kind] ?? { label: n.kind, tone: "muted", glyph: "•" };
            return (
              <li key={n.id} class={n.readAt ? "list-row notice" : "list-row notice notice-unread"} data-kind={n.kind} data-read={n.readAt ? "yes" : "no"}>
                <div class="notice-main">
                  <div class="inline">
                    <Badge tone={k.tone}>
                      <span aria-hidden="true">{k.glyph}</span> {k.label}
                    </Badge>
                    {n.readAt ? null : <Badge tone="info">New</Badge>}
                    <Link href={subjectUrl(n)} class="notice-title" onClick={() => void markRead(n).catch((e: unknown) => showFailure(`“${n.title}” could not be marked read`, e))}>
                      {n.title}
                    </Link>
                  </div>
                  <div class="muted">
                    {n.body} · <Time ms={n.createdAt} />
                  </div>
                </div>
                {n.readAt ? null : (
                  <button type="button" class="btn btn-small" onClick={() => void act.run(() => markRead(n))}>
                    Mark read<span class="sr-only">: {n.title}</span>
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
      {more ? (
        <div class="pager">
          <button type="button" class="btn btn-small" disabled={act.busy} onClick={older}>
            Show older
          </button>
        </div>
      ) : null}
    </div>
  );
}
