// The subshell list (kept current by the live feed) and the launch form.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ApiError } from "../api";
import { feedStatus, listed, nodes, presence, putSubshell, subshells } from "../live";
import { Link, navigate, useRoute } from "../router";
import { useStore } from "../store";
import { session } from "../session";
import { Table } from "../table";
import type { Access, HarnessId, HarnessStatus, LaunchRequest, Node, Preset, SubshellStatus, Workspace } from "../types";
import { DirPicker } from "../dirs";
import { AgentBadge, Dialog, Empty, ErrorNote, PageHead, showFailure, StatusBadge, Time, useAction } from "../ui";

const STATUSES: SubshellStatus[] = [
  "running",
  "needs_attention",
  "node_unreachable",
  "starting",
  "stopping",
  "stopped",
  "exited",
  "crashed",
  "failed",
];

const STATUS_NAMES: Record<string, string> = {
  running: "Running",
  needs_attention: "Needs attention",
  node_unreachable: "Node unreachable",
  starting: "Starting",
  stopping: "Stopping",
  stopped: "Stopped",
  exited: "Exited",
  crashed: "Crashed",
  failed: "Failed",
};

export function SubshellsPage() {
  const all = useStore(subshells);
  const nodeList = useStore(nodes);
  const seen = useStore(presence);
  const isListed = useStore(listed);
  const feed = useStore(feedStatus);
  const { query } = useRoute();
  const [launchOpen, setLaunchOpen] = useState(query.get("launch") === "1");
  const fNode = query.get("node") ?? "";
  const fHarness = query.get("harness") ?? "";
  const fStatus = query.get("status") ?? "";

  const setFilter = (key: string, value: string) => {
    const q = new URLSearchParams(location.search);
    if (value) q.set(key, value);
    else q.delete(key);
    q.delete("launch");
    const s = q.toString();
    navigate(`/subshells${s ? `?${s}` : ""}`, { replace: true });
  };

  const nodeName = useMemo(() => new Map(nodeList.map((n) => [n.nodeId, n.name])), [nodeList]);
  const s = useStore(session);
  const me = s.kind === "signed-in" ? s.me : null;
  // Someone else's subshell in the list (shared with this person, or seen by an administrator)
  // says whose it is: the accounts' names are read once there is one.
  const foreign = !!me && Object.values(all).some((x) => x.ownerUserId !== me.id);
  const [people, setPeople] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    if (!foreign) return;
    api.GET("/api/users").then(
      (us) => setPeople(new Map(us.map((u) => [u.id, u.displayName]))),
      // The list still says "Another account" for each owner.
      (e: unknown) => showFailure("The owners' names could not be read", e),
    );
  }, [foreign]);
  const rows = Object.values(all)
    .filter((s) => (!fNode || s.nodeId === fNode) && (!fHarness || s.harnessId === fHarness) && (!fStatus || s.status === fStatus))
    .sort((a, b) => b.createdAt - a.createdAt);
  const harnesses = Array.from(new Set(Object.values(all).map((s) => s.harnessId))).sort();

  return (
    <div class="page">
      <PageHead title="Subshells">
        <span class={`badge badge-${feed === "live" ? "ok" : "warn"}`} title="Updates arrive live while this is Live">
          {feed === "live" ? "Live" : feed === "connecting" ? "Connecting" : "Reconnecting"}
        </span>
        <button type="button" class="btn btn-primary" onClick={() => setLaunchOpen(true)}>
          Launch
        </button>
      </PageHead>
      <div class="filters" role="group" aria-label="Filters">
        <div class="field field-inline">
          <label for="f-node">Node</label>
          <select id="f-node" value={fNode} onChange={(e) => setFilter("node", (e.currentTarget as HTMLSelectElement).value)}>
            <option value="">All nodes</option>
            {nodeList.map((n) => (
              <option key={n.nodeId} value={n.nodeId}>
                {n.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field field-inline">
          <label for="f-harness">Harness</label>
          <select id="f-harness" value={fHarness} onChange={(e) => setFilter("harness", (e.currentTarget as HTMLSelectElement).value)}>
            <option value="">All harnesses</option>
            {harnesses.map((h) => (
              <option key={h} value={h}>
                {h}
              </option>
            ))}
          </select>
        </div>
        <div class="field field-inline">
          <label for="f-status">Status</label>
          <select id="f-status" value={fStatus} onChange={(e) => setFilter("status", (e.currentTarget as HTMLSelectElement).value)}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_NAMES[s]}
              </option>
            ))}
          </select>
        </div>
      </div>
      {!isListed ? (
        <p class="muted">Loading…</p>
      ) : rows.length === 0 ? (
        <Empty>
          {Object.keys(all).length === 0 ? "No subshells yet. Launch one to get a terminal on a node." : "No subshell matches these filters."}
        </Empty>
      ) : (
        <Table
          testId="subshells"
          rows={rows}
          rowKey={(s) => s.id}
          rowAttrs={(s) => ({ "data-id": s.id, "data-owner": me && s.ownerUserId === me.id ? "me" : "other" })}
          columns={[
            {
              label: "Name",
              cell: (s) => (
                <>
                  <Link href={`/subshells/${s.id}`} class="strong">
                    {s.name}
                  </Link>
                  {me && s.ownerUserId !== me.id && !me.isAdmin ? (
                    <>
                      {" "}
                      <span class="badge badge-info" data-testid="shared-with-you">
                        Shared with you
                      </span>
                    </>
                  ) : null}
                </>
              ),
            },
            foreign && {
              label: "Owner",
              attrs: () => ({ "data-testid": "owner" }),
              cell: (s) => (me && s.ownerUserId === me.id ? "You" : (people.get(s.ownerUserId) ?? "Another account")),
            },
            {
              label: "Status",
              cell: (s) => (
                <>
                  <StatusBadge status={s.status} />
                  {s.warning ? (
                    <span class="badge badge-warn" title={s.warning}>
                      No MCP
                    </span>
                  ) : null}
                </>
              ),
            },
            { label: "Agent", attrs: () => ({ "data-testid": "agent" }), cell: (s) => <AgentBadge agent={s.agent} /> },
            { label: "Harness", cell: (s) => s.harnessId },
            { label: "Node", cell: (s) => nodeName.get(s.nodeId) ?? s.nodeId.slice(0, 8) },
            { label: "Directory", class: "mono truncate", attrs: (s) => ({ title: s.cwd }), cell: (s) => s.cwd },
            { label: "Viewers", cell: (s) => seen[s.id]?.length ?? 0 },
            { label: "Started", cell: (s) => <Time ms={s.startedAt ?? s.createdAt} /> },
          ]}
        />
      )}
      <LaunchDialog open={launchOpen} onClose={() => setLaunchOpen(false)} nodes={nodeList} loaded={isListed} presetNode={fNode} />
    </div>
  );
}

const WHY_NOT: Record<string, string> = {
  plugin_disabled: "turned off by an administrator",
  not_detected: "not checked on this node yet (choose Re-check)",
  detection_stale: "last check is over 10 minutes old (choose Re-check)",
  not_installed: "not found on this node",
};

export function whyNot(h: HarnessStatus): string {
  const base = (h.whyNot && WHY_NOT[h.whyNot]) || h.whyNot || "not launchable";
  return h.reason && h.whyNot === "not_installed" ? `${base}: ${h.reason}` : base;
}

/** A refusal of the launch's directory, in words for the field: the node's own reason when it
 * gave one (`/srv/x: no such file or directory`), else the plane's message. */
function dirRefusal(e: ApiError): string {
  const reason = e.metadata?.["reason"];
  if (e.code === "LAUNCH_REFUSED" && typeof reason === "string") return `The node cannot start in this directory: ${reason}.`;
  return e.message.charAt(0).toUpperCase() + e.message.slice(1);
}

function LaunchDialog({
  open,
  onClose,
  nodes: nodeList,
  loaded,
  presetNode,
}: {
  open: boolean;
  onClose: () => void;
  nodes: Node[];
  /** Whether the node list arrived (an empty list before it is no news). */
  loaded: boolean;
  presetNode: string;
}) {
  // Only the nodes this account may launch on (a person who is not an administrator: their own).
  const allowed = nodeList.filter((n) => n.canLaunch);
  const online = allowed.filter((n) => n.liveness === "online");
  const [nodeId, setNodeId] = useState("");
  const [harnesses, setHarnesses] = useState<HarnessStatus[] | null>(null);
  const [harnessId, setHarnessId] = useState("");
  const [workspaces, setWorkspaces] = useState<Workspace[]>([]);
  const [presets, setPresets] = useState<Preset[]>([]);
  const [workspaceId, setWorkspaceId] = useState("");
  const [presetId, setPresetId] = useState("");
  const [cwd, setCwd] = useState("");
  const [name, setName] = useState("");
  const [prompt, setPrompt] = useState("");
  const [picking, setPicking] = useState(false);
  const [perm, setPerm] = useState<{ channels: Access; subshells: Access }>({ channels: "write", subshells: "read" });
  const act = useAction();
  const check = useAction();

  useEffect(() => {
    if (!open) return;
    const first = presetNode && online.some((n) => n.nodeId === presetNode) ? presetNode : (online.find((n) => n.isLocal) ?? online[0])?.nodeId ?? "";
    if (!nodeId || !online.some((n) => n.nodeId === nodeId)) setNodeId(first);
    void Promise.all([api.GET("/api/workspaces"), api.GET("/api/presets")]).then(
      ([w, p]) => {
        setWorkspaces(w);
        setPresets(p);
      },
      // A launch needs neither: the form goes on without them.
      (e: unknown) => showFailure("Your workspaces and presets could not be read", e),
    );
  }, [open, nodeList.length]);

  const loadHarnesses = async (refresh: boolean) => {
    if (!nodeId) return;
    setHarnesses(null);
    const list = await check.run(() =>
      api.GET("/api/nodes/{id}/harnesses", { params: { path: { id: nodeId }, query: refresh ? { refresh: true } : {} } }),
    );
    if (!list) return;
    setHarnesses(list);
    const ok = list.filter((h) => h.launchable);
    if (!ok.some((h) => h.harnessId === harnessId)) setHarnessId((ok.find((h) => h.harnessId === "shell") ?? ok[0])?.harnessId ?? "");
  };

  useEffect(() => {
    if (open && nodeId) void loadHarnesses(false);
    setPicking(false);
  }, [open, nodeId]);

  // A refusal about the directory (the plane's check of the path, or the node's) is shown at
  // the directory field; any other at the foot of the form.
  const cwdError = act.error instanceof ApiError && act.error.metadata?.["field"] === "cwd" ? act.error : null;
  const cwdRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (cwdError) cwdRef.current?.focus();
  }, [cwdError]);

  const nodeWorkspaces = workspaces.filter((w) => w.nodeId === nodeId);
  const harnessPresets = presets.filter((p) => !p.harnessId || p.harnessId === harnessId);
  const launchable = harnesses?.filter((h) => h.launchable) ?? [];
  const blocked = harnesses?.filter((h) => !h.launchable) ?? [];

  const submit = async (e: Event) => {
    e.preventDefault();
    const body: LaunchRequest = { nodeId, harnessId: harnessId as HarnessId };
    if (workspaceId) body.workspaceId = workspaceId;
    if (cwd.trim()) body.cwd = cwd.trim();
    if (presetId) body.presetId = presetId;
    if (name.trim()) body.name = name.trim();
    if (prompt.trim()) body.prompt = prompt;
    if (perm.channels !== "write" || perm.subshells !== "read") body.permissions = perm;
    const r = await act.run(() => api.POST("/api/subshells", { body }));
    if (r) {
      putSubshell(r);
      onClose();
      navigate(`/subshells/${r.id}`);
    }
  };

  return (
    <Dialog title="Launch a subshell" open={open} onClose={onClose} wide>
      {!loaded ? (
        <p class="muted" role="status">
          Loading…
        </p>
      ) : allowed.length === 0 ? (
        <div class="stack" data-testid="no-launch-node">
          <p>
            You have no node to launch on. A subshell runs on a node of yours: add one by running the node program on a
            machine of yours{nodeList.some((n) => n.isLocal) ? " (this plane's own host is for administrators)" : ""}.
          </p>
          <div class="actions">
            <button type="button" class="btn" onClick={onClose}>
              Cancel
            </button>
            <Link href="/nodes?add=1" class="btn btn-primary" onClick={onClose}>
              Add a node
            </Link>
          </div>
        </div>
      ) : online.length === 0 ? (
        <p>
          None of your nodes is online. <Link href="/nodes">Check your nodes</Link>.
        </p>
      ) : (
        <form onSubmit={submit} class="stack">
          <div class="grid2">
            <div class="field">
              <label for="l-node">Node</label>
              <select id="l-node" value={nodeId} onChange={(e) => setNodeId((e.currentTarget as HTMLSelectElement).value)} required>
                {online.map((n) => (
                  <option key={n.nodeId} value={n.nodeId}>
                    {n.name}
                    {n.isLocal ? " (this plane's host)" : ""}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="l-harness">Harness</label>
              <div class="inline">
                <select
                  id="l-harness"
                  value={harnessId}
                  onChange={(e) => setHarnessId((e.currentTarget as HTMLSelectElement).value)}
                  required
                  disabled={!harnesses}
                >
                  {!harnesses ? <option value="">Checking the node…</option> : null}
                  {harnesses && launchable.length === 0 ? <option value="">Nothing launchable</option> : null}
                  {launchable.map((h) => (
                    <option key={h.harnessId} value={h.harnessId}>
                      {h.name}
                      {h.versionNumber || h.version ? ` ${h.versionNumber ?? h.version}` : ""}
                    </option>
                  ))}
                </select>
                <button type="button" class="btn btn-small" onClick={() => loadHarnesses(true)} disabled={check.busy}>
                  Re-check
                </button>
              </div>
            </div>
          </div>
          <ErrorNote error={check.error} />
          {blocked.length ? (
            <details class="why">
              <summary>
                {blocked.length} {blocked.length === 1 ? "harness is" : "harnesses are"} not offered on this node
              </summary>
              <ul>
                {blocked.map((h) => (
                  <li key={h.harnessId}>
                    <strong>{h.name}</strong>: {whyNot(h)}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
          <div class="grid2">
            <div class="field">
              <label for="l-ws">Workspace</label>
              <select id="l-ws" value={workspaceId} onChange={(e) => setWorkspaceId((e.currentTarget as HTMLSelectElement).value)}>
                <option value="">None</option>
                {nodeWorkspaces.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.name} ({w.path})
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="l-preset">Preset</label>
              <select id="l-preset" value={presetId} onChange={(e) => setPresetId((e.currentTarget as HTMLSelectElement).value)}>
                <option value="">None</option>
                {harnessPresets.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <div class="field">
            <label for="l-cwd">Directory</label>
            <div class="inline inline-grow">
              <input
                id="l-cwd"
                ref={cwdRef}
                class="mono"
                value={cwd}
                placeholder={workspaceId ? "the workspace's directory" : "the node's home directory"}
                onInput={(e) => {
                  setCwd((e.currentTarget as HTMLInputElement).value);
                  if (cwdError) act.setError(null);
                }}
                aria-invalid={cwdError ? true : undefined}
                aria-describedby={cwdError ? "l-cwd-error l-cwd-hint" : "l-cwd-hint"}
                // Blanks around a pasted path are dropped when the form is sent.
                pattern="\s*/.*"
                title="An absolute path: it starts with /"
              />
              <button type="button" class="btn" aria-expanded={picking} onClick={() => setPicking(!picking)} disabled={!nodeId}>
                Browse…
              </button>
            </div>
            {cwdError ? (
              <div class="field-error" id="l-cwd-error" role="alert" data-testid="cwd-error">
                {dirRefusal(cwdError)}
              </div>
            ) : null}
            <div class="hint" id="l-cwd-hint">
              An absolute path on the node. Leave empty for the default.
            </div>
          </div>
          {picking && nodeId ? (
            <DirPicker
              nodeId={nodeId}
              start={cwd || nodeWorkspaces.find((w) => w.id === workspaceId)?.path || ""}
              onPick={setCwd}
              onClose={() => setPicking(false)}
            />
          ) : null}
          <div class="field">
            <label for="l-name">Name</label>
            <input id="l-name" value={name} maxLength={100} placeholder="harness and a short id" onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <div class="field">
            <label for="l-prompt">Initial prompt</label>
            <textarea id="l-prompt" rows={3} value={prompt} onInput={(e) => setPrompt((e.currentTarget as HTMLTextAreaElement).value)} aria-describedby="l-prompt-hint" />
            <div class="hint" id="l-prompt-hint">
              Given to the harness as it starts; a shell has it typed once it is ready.
            </div>
          </div>
          <details>
            <summary>Token permissions</summary>
            <div class="grid2">
              <div class="field">
                <label for="l-pc">Channels</label>
                <select id="l-pc" value={perm.channels} onChange={(e) => setPerm({ ...perm, channels: (e.currentTarget as HTMLSelectElement).value as Access })}>
                  <option value="read">Read</option>
                  <option value="write">Write</option>
                </select>
              </div>
              <div class="field">
                <label for="l-ps">Subshells</label>
                <select id="l-ps" value={perm.subshells} onChange={(e) => setPerm({ ...perm, subshells: (e.currentTarget as HTMLSelectElement).value as Access })}>
                  <option value="read">Read</option>
                  <option value="write">Write (type into, restart and launch)</option>
                </select>
              </div>
            </div>
          </details>
          <ErrorNote error={cwdError ? null : act.error} />
          <div class="actions">
            <button type="button" class="btn" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" class="btn btn-primary" disabled={act.busy || !harnessId || !nodeId}>
              {act.busy ? "Launching…" : "Launch"}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
