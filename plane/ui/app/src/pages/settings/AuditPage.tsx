// Settings: the audit log, filtered and paged on the plane.

import { useEffect, useMemo, useState } from "preact/hooks";
import { api } from "../../api";
import { Link } from "../../router";
import { Table } from "../../table";
import type { ActorKind, AuditEntry, AuditQuery, User } from "../../types";
import { Empty, ErrorNote, PageHead, Time, useAction, when } from "../../ui";
import { Tabs } from "./Tabs";

const PAGE = 50;
const ACTOR_NAMES: Record<string, string> = {
  cookie: "person",
  system_key: "system key",
  setup_key: "setup key",
  pane: "pane",
  plane: "plane",
};

export function AuditPage() {
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [users, setUsers] = useState<User[]>([]);
  const [actor, setActor] = useState("");
  const [actorKind, setActorKind] = useState("");
  const [action, setAction] = useState("");
  const [target, setTarget] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  // Cursors of the pages seen so far (`before` of each), for going back to newer ones.
  const [cursors, setCursors] = useState<(number | null)[]>([null]);
  const [more, setMore] = useState(false);
  // Open at first on wide screens; closed on phones, where the filters would fill the screen.
  const [filtersOpen] = useState(() => !window.matchMedia("(max-width: 600px)").matches);
  const act = useAction();

  const current = { actor, actorKind, action, target, from, to };
  type Filters = typeof current;
  const fetchPage = async (before: number | null, f: Filters = current) => {
    const query: AuditQuery = { limit: PAGE + 1 };
    if (f.actor) query.actor = f.actor;
    if (f.actorKind) query.actorKind = f.actorKind as ActorKind;
    if (f.action.trim()) query.action = f.action.trim();
    if (f.target.trim()) query.target = f.target.trim();
    if (f.from) query.from = new Date(f.from).getTime();
    if (f.to) query.to = new Date(f.to).getTime();
    if (before !== null) query.before = before;
    const list = await api.GET("/api/audit", { params: { query } });
    setMore(list.length > PAGE);
    setEntries(list.slice(0, PAGE));
  };

  const search = async (f: Filters = current) => {
    setCursors([null]);
    await act.run(() => fetchPage(null, f));
  };

  useEffect(() => {
    void act.run(async () => {
      setUsers(await api.GET("/api/users"));
      await fetchPage(null);
    });
  }, []);

  const names = useMemo(() => new Map(users.map((u) => [u.id, u.displayName])), [users]);
  const page = cursors.length - 1;

  return (
    <div class="page">
      <PageHead title="Settings" />
      <Tabs />
      <section class="section">
        <h2>Audit log</h2>
        <details class="filter-box" open={filtersOpen}>
          <summary>Filters</summary>
        <form
          class="filters"
          aria-label="Audit filters"
          onSubmit={(e) => {
            e.preventDefault();
            void search();
          }}
        >
          <div class="field field-inline">
            <label for="a-actor">Account</label>
            <select id="a-actor" value={actor} onChange={(e) => setActor((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">Anyone</option>
              {users.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.displayName}
                </option>
              ))}
            </select>
          </div>
          <div class="field field-inline">
            <label for="a-kind">Actor kind</label>
            <select id="a-kind" value={actorKind} onChange={(e) => setActorKind((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">Any</option>
              {Object.entries(ACTOR_NAMES).map(([k, v]) => (
                <option key={k} value={k}>
                  {v}
                </option>
              ))}
            </select>
          </div>
          <div class="field field-inline">
            <label for="a-action">Action</label>
            <input id="a-action" value={action} placeholder="node. or node.enrolled" onInput={(e) => setAction((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <div class="field field-inline">
            <label for="a-target">Target id</label>
            <input id="a-target" class="mono" value={target} onInput={(e) => setTarget((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <div class="field field-inline">
            <label for="a-from">From</label>
            <input id="a-from" type="datetime-local" value={from} onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <div class="field field-inline">
            <label for="a-to">To</label>
            <input id="a-to" type="datetime-local" value={to} onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <div class="inline">
            <button type="submit" class="btn btn-primary" disabled={act.busy}>
              Search
            </button>
            <button
              type="button"
              class="btn"
              onClick={() => {
                setActor("");
                setActorKind("");
                setAction("");
                setTarget("");
                setFrom("");
                setTo("");
                void search({ actor: "", actorKind: "", action: "", target: "", from: "", to: "" });
              }}
            >
              Clear
            </button>
          </div>
        </form>
        </details>
        <ErrorNote error={act.error} />
        {entries && entries.length === 0 ? <Empty>No entries.</Empty> : null}
        {entries && entries.length ? (
          <Table
            testId="audit"
            rows={entries}
            rowKey={(e) => e.id}
            columns={[
              { label: "When", attrs: (e) => ({ title: when(e.at) }), cell: (e) => <Time ms={e.at} /> },
              {
                label: "Action",
                class: "mono",
                cell: (e) => (
                  <button
                    type="button"
                    class="linkish mono"
                    title="Show only this action"
                    onClick={() => {
                      setAction(e.action);
                      void search({ ...current, action: e.action });
                    }}
                  >
                    {e.action}
                  </button>
                ),
              },
              {
                label: "Actor",
                cell: (e) => (
                  <>
                    {e.actorUserId ? names.get(e.actorUserId) ?? e.actorUserId.slice(0, 8) : "—"}{" "}
                    <span class="muted">({ACTOR_NAMES[e.actorKind] ?? e.actorKind})</span>
                  </>
                ),
              },
              {
                label: "Target",
                class: "mono truncate",
                attrs: (e) => ({ title: e.target ?? "" }),
                cell: (e) =>
                  // A subshell's entry links to its recording at that moment.
                  e.target && e.action.startsWith("subshell.") && e.action !== "subshell.deleted" ? (
                    <Link href={`/subshells/${e.target}/recording?at=${e.at}`} title="The pane's screen at this moment">
                      {e.target}
                    </Link>
                  ) : (
                    e.target ?? "—"
                  ),
              },
              {
                label: "Detail",
                class: "mono small truncate",
                attrs: (e) => ({ title: JSON.stringify(e.detail) }),
                cell: (e) => (e.detail && Object.keys(e.detail as object).length ? JSON.stringify(e.detail) : "—"),
              },
            ]}
          />
        ) : null}
        <nav class="pager" aria-label="Audit pages">
          <button
            type="button"
            class="btn btn-small"
            disabled={page === 0 || act.busy}
            onClick={() => {
              const next = cursors.slice(0, -1);
              setCursors(next);
              void act.run(() => fetchPage(next[next.length - 1] ?? null));
            }}
          >
            Newer
          </button>
          <span>Page {page + 1}</span>
          <button
            type="button"
            class="btn btn-small"
            disabled={!more || act.busy || !entries?.length}
            onClick={() => {
              const last = entries?.[entries.length - 1];
              if (!last) return;
              setCursors([...cursors, last.id]);
              void act.run(() => fetchPage(last.id));
            }}
          >
            Older
          </button>
        </nav>
        <p class="muted small">Times are in this browser's time zone.</p>
      </section>
    </div>
  );

}
