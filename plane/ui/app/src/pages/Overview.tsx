// Mission control: every pane this account sees as a small live screen with what its agent is
// doing, the ones that need the person first.
//
// The screens are the panes' text as it shows (`GET /api/subshells/{id}/screen`), drawn small.
// Their cost is bounded: a screen is read only while its card is on screen and the tab is
// visible, at most once every THUMB_EVERY_MS for a live pane (once for an ended one), one
// request in flight per card; states, summaries and times come from the live feed, which costs
// nothing more. Keyboard: arrows (or h j k l) move between cards, Enter opens the pane, r
// replies to it (a line typed into the pane, then Enter).

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api } from "../api";
import { listed, nodes, subshells } from "../live";
import { Link, navigate, useRoute } from "../router";
import { useStore } from "../store";
import type { Subshell, Workspace } from "../types";
import { AgentBadge, Empty, ErrorNote, PageHead, StatusBadge, Time, toast, useAction } from "../ui";

/** How often a live pane's screen is read while its card shows. */
export const THUMB_EVERY_MS = 3_000;
/** Lines of a screen drawn on a card (the bottom of the screen). */
const THUMB_LINES = 14;
/** Columns drawn on a card. */
const THUMB_COLS = 100;

const LIVE_STATES = ["starting", "running", "stopping"];

/** The order of the cards: what needs the person, then failures, then work, then the rest. */
function rank(s: Subshell): number {
  if (s.agent.state === "needs_input" || s.status === "needs_attention") return 0;
  if (s.agent.state === "error" || s.state === "crashed" || s.state === "failed") return 1;
  if (s.status === "node_unreachable") return 2;
  if (s.agent.state === "working" || s.agent.state === "starting") return 3;
  if (s.agent.state === "idle" || s.agent.state === "unknown") return 4;
  return 5;
}

type Grouping = "none" | "node" | "workspace";

export function OverviewPage() {
  const all = useStore(subshells);
  const nodeList = useStore(nodes);
  const isListed = useStore(listed);
  const { query } = useRoute();
  const group = (query.get("group") ?? "node") as Grouping;
  const [workspaces, setWorkspaces] = useState<Workspace[]>([]);
  const [replyTo, setReplyTo] = useState<string | null>(null);
  const act = useAction();

  useEffect(() => {
    void act.run(async () => setWorkspaces(await api.GET("/api/workspaces")));
  }, []);

  const nodeName = useMemo(() => new Map(nodeList.map((n) => [n.nodeId, n.name])), [nodeList]);
  const wsName = useMemo(() => new Map(workspaces.map((w) => [w.id, w.name])), [workspaces]);

  const groups = useMemo(() => {
    const rows = Object.values(all).sort(
      (a, b) => rank(a) - rank(b) || (a.agent.since ?? 0) - (b.agent.since ?? 0) || a.name.localeCompare(b.name),
    );
    const keyOf = (s: Subshell): string =>
      group === "node"
        ? (nodeName.get(s.nodeId) ?? s.nodeId)
        : group === "workspace"
          ? s.workspaceId
            ? (wsName.get(s.workspaceId) ?? "a workspace")
            : "No workspace"
          : "";
    const out = new Map<string, Subshell[]>();
    for (const s of rows) {
      const k = keyOf(s);
      out.set(k, [...(out.get(k) ?? []), s]);
    }
    // A group that holds a pane needing the person comes first.
    return [...out.entries()].sort((a, b) => rank(a[1][0]!) - rank(b[1][0]!) || a[0].localeCompare(b[0]));
  }, [all, group, nodeName, wsName]);

  const needing = Object.values(all).filter((s) => rank(s) === 0).length;

  const setGroup = (g: string) => {
    const q = new URLSearchParams(location.search);
    q.set("group", g);
    navigate(`/overview?${q.toString()}`, { replace: true });
  };

  // Arrow keys move between the cards in reading order.
  const onKey = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement;
    if (target.closest("input, textarea, select") || e.altKey || e.ctrlKey || e.metaKey) return;
    const cards = [...document.querySelectorAll<HTMLElement>(".ov-card")];
    const at = cards.findIndex((c) => c === target.closest(".ov-card"));
    const id = at >= 0 ? cards[at]!.dataset["id"] : undefined;
    const move = (to: number) => {
      e.preventDefault();
      cards[Math.max(0, Math.min(cards.length - 1, to))]?.focus();
    };
    const perRow = () => {
      if (at < 0) return 1;
      const top = cards[at]!.offsetTop;
      return Math.max(1, cards.filter((c) => c.offsetTop === top).length);
    };
    switch (e.key) {
      case "ArrowRight":
      case "l":
        return move(at + 1);
      case "ArrowLeft":
      case "h":
        return move(at - 1);
      case "ArrowDown":
      case "j":
        return move(at < 0 ? 0 : at + perRow());
      case "ArrowUp":
      case "k":
        return move(at - perRow());
      case "Enter":
        if (id && target.classList.contains("ov-card")) {
          e.preventDefault();
          navigate(`/subshells/${id}`);
        }
        return;
      case "r":
        if (id) {
          e.preventDefault();
          setReplyTo(id);
        }
        return;
    }
  };

  const rows = Object.keys(all).length;
  return (
    <section class="overview" onKeyDown={onKey}>
      <PageHead title="Overview">
        <label class="inline-field">
          Group by{" "}
          <select value={group} onChange={(e) => setGroup((e.currentTarget as HTMLSelectElement).value)}>
            <option value="node">Node</option>
            <option value="workspace">Workspace</option>
            <option value="none">Nothing</option>
          </select>
        </label>
      </PageHead>
      <p class="muted" role="status">
        {needing ? `${needing} ${needing === 1 ? "subshell needs" : "subshells need"} you. ` : ""}
        Arrows move between panes, Enter opens one, r replies to it.
      </p>
      <ErrorNote error={act.error} />
      {!isListed ? null : rows === 0 ? (
        <Empty>
          No subshells yet. <Link href="/subshells?launch=1">Launch one</Link>.
        </Empty>
      ) : (
        groups.map(([name, list]) => (
          <section class="ov-group" key={name} aria-label={name || "All subshells"}>
            {name ? <h2 class="ov-group-name">{name}</h2> : null}
            <ul class="ov-grid">
              {list.map((s) => (
                <li key={s.id}>
                  <Card s={s} replying={replyTo === s.id} onReply={() => setReplyTo(s.id)} onReplied={() => setReplyTo(null)} />
                </li>
              ))}
            </ul>
          </section>
        ))
      )}
    </section>
  );
}

function Card({ s, replying, onReply, onReplied }: { s: Subshell; replying: boolean; onReply: () => void; onReplied: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const screen = useThumbnail(s, ref);
  const needs = rank(s) === 0;
  return (
    <div
      ref={ref}
      class={needs ? "ov-card ov-needs" : "ov-card"}
      tabIndex={0}
      data-id={s.id}
      data-agent-state={s.agent.state}
      aria-label={`${s.name}: ${s.agent.state.replace("_", " ")}${s.agent.summary ? `, ${s.agent.summary}` : ""}`}
    >
      <div class="ov-head">
        <Link href={`/subshells/${s.id}`} class="ov-name truncate" tabIndex={-1}>
          {s.name}
        </Link>
        <StatusBadge status={s.status} />
      </div>
      <pre class="ov-screen" aria-hidden="true" data-testid="thumbnail">
        {screen ?? ""}
      </pre>
      <div class="ov-foot">
        <AgentBadge agent={s.agent} />
        <span class="muted ov-since">
          <Time ms={s.agent.since} />
        </span>
        {LIVE_STATES.includes(s.state) && !replying ? (
          <button type="button" class="btn btn-small btn-ghost" tabIndex={-1} onClick={onReply}>
            Reply
          </button>
        ) : null}
      </div>
      {replying ? <Reply id={s.id} name={s.name} done={onReplied} /> : null}
    </div>
  );
}

/** A line typed into a pane, then Enter. */
function Reply({ id, name, done }: { id: string; name: string; done: () => void }) {
  const [text, setText] = useState("");
  const input = useRef<HTMLInputElement>(null);
  const act = useAction();
  useEffect(() => input.current?.focus(), []);
  const send = async (e: Event) => {
    e.preventDefault();
    const r = await act.run(() =>
      api.POST("/api/subshells/{id}/input", { params: { path: { id } }, body: { text, keys: ["enter"] } }),
    );
    if (r) {
      toast(`Sent to ${name}.`);
      done();
      document.querySelector<HTMLElement>(`.ov-card[data-id="${id}"]`)?.focus();
    }
  };
  return (
    <form class="ov-reply" onSubmit={send}>
      <input
        ref={input}
        aria-label={`Reply to ${name}`}
        value={text}
        maxLength={4096}
        onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            done();
          }
        }}
      />
      <button type="submit" class="btn btn-small" disabled={act.busy}>
        Send
      </button>
      <ErrorNote error={act.error} />
    </form>
  );
}

/** The bottom of a pane's screen, read while its card shows (see the module's note). */
function useThumbnail(s: Subshell, ref: { current: HTMLElement | null }): string | null {
  const [text, setText] = useState<string | null>(null);
  const live = LIVE_STATES.includes(s.state) && s.nodeReachable;
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    let visible = false;
    let busy = false;
    let stopped = false;
    let read = false;
    const tick = async () => {
      if (stopped || busy || !visible || document.visibilityState !== "visible") return;
      if (read && !live) return;
      busy = true;
      try {
        const r = await api.GET("/api/subshells/{id}/screen", { params: { path: { id: s.id } } });
        const lines = r.text.replace(/\s+$/, "").split("\n");
        if (!stopped) setText(lines.slice(-THUMB_LINES).map((l) => l.slice(0, THUMB_COLS)).join("\n"));
        read = true;
      } catch {
        // An ended or unreachable pane keeps the last screen read; its badge says why.
      } finally {
        busy = false;
      }
    };
    const observer = new IntersectionObserver((entries) => {
      visible = entries.some((e) => e.isIntersecting);
      if (visible) void tick();
    });
    observer.observe(el);
    const timer = window.setInterval(() => void tick(), THUMB_EVERY_MS);
    const onVisible = () => void tick();
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      stopped = true;
      observer.disconnect();
      window.clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [s.id, live]);
  return text;
}
