// Nodes: liveness, versions, held nodes, maintenance, allowed directories, key rotation,
// removal, and adding a node with a setup key.

import { useEffect, useMemo, useState } from "preact/hooks";
import { api } from "../api";
import { nodes, refreshNodes, refreshNodesInBackground } from "../live";
import { navigate } from "../router";
import { session } from "../session";
import { Table } from "../table";
import { RecordingForm, recordingText } from "../recording-settings";
import { useStore } from "../store";
import type { HeldNodes, Node, NodePing, NodeUpdateOutcome, SetupKey } from "../types";
import { Badge, bytesText, Checkbox, clearFailure, CodeBlock, confirmAction, Dialog, Empty, ErrorNote, Note, PageHead, SecretBox, showFailure, Time, toast, useAction } from "../ui";

/** What a node's retention left empty means. */
const KEPT_BY_DEFAULT = "as the plane's --recording-retention-days says (unset: as long as the pane)";

function NodeState({ node, held }: { node: Node; held: string | undefined }) {
  if (held) {
    return (
      <Badge tone="bad" title={held}>
        <span aria-hidden="true">⏸</span> Held for update
      </Badge>
    );
  }
  return (
    <span class="badges" data-liveness={node.liveness}>
      {node.liveness === "online" ? (
        <Badge tone="ok">
          <span aria-hidden="true">●</span> Online
        </Badge>
      ) : (
        <Badge tone="muted">
          <span aria-hidden="true">○</span> Offline
        </Badge>
      )}
      {node.maintenance?.on ? (
        <Badge tone="warn">
          <span aria-hidden="true">⚙</span> Maintenance
        </Badge>
      ) : null}
    </span>
  );
}

export function NodesPage() {
  const list = useStore(nodes);
  const s = useStore(session);
  const isAdmin = s.kind === "signed-in" && s.me.isAdmin;
  const [held, setHeld] = useState<HeldNodes | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  // `/nodes?add=1` (the launch dialog's way here when there is no node) opens the dialog.
  const [adding, setAdding] = useState(() => new URLSearchParams(location.search).get("add") === "1");
  const [keys, setKeys] = useState<SetupKey[]>([]);
  const act = useAction();

  const loadKeys = () =>
    api.GET("/api/setup-keys").then(
      (list) => {
        setKeys(list);
        clearFailure("setup-keys");
      },
      (e: unknown) => showFailure("The unused setup keys could not be listed", e, "setup-keys"),
    );

  useEffect(() => {
    void act.run(refreshNodes);
    void loadKeys();
    if (isAdmin) {
      api.GET("/api/admin/updates/held").then(setHeld, (e: unknown) => showFailure("The nodes held for an update could not be listed", e));
    }
  }, [isAdmin]);

  const [outcomes, setOutcomes] = useState<NodeUpdateOutcome[] | null>(null);
  const [forceAll, setForceAll] = useState(false);
  const updateAll = async () => {
    const ok = await confirmAction(
      "Update every outdated node?",
      "Each remote node below the plane's version is sent the plane's node program; it verifies it, installs it and restarts. Panes in tmux keep running.",
      "Update",
      false,
    );
    if (!ok) return;
    const r = await act.run(() => api.POST("/api/admin/updates/outdated", { body: forceAll ? { force: true } : {} }));
    if (r) {
      setOutcomes(r);
      toast(r.length ? `${r.filter((o) => o.ok).length} of ${r.length} updated.` : "Every node is up to date.");
    }
  };

  const heldReason = useMemo(() => new Map((held?.held ?? []).map((h) => [h.nodeId, h.reason])), [held]);
  const below = new Set((held?.belowFloor ?? []).map((b) => b.nodeId));
  const active = keys.filter((k) => k.status === "active");

  return (
    <div class="page">
      <PageHead title="Nodes">
        <button
          type="button"
          class="btn btn-primary"
          onClick={() => {
            setAdding(true);
          }}
        >
          Add a node
        </button>
      </PageHead>
      <ErrorNote error={act.error} />
      {held && held.held.length ? (
        <Note tone="warn">
          {held.held.length} {held.held.length === 1 ? "node is" : "nodes are"} held until updated to at least {held.minNodeVersion}.
        </Note>
      ) : null}
      {outcomes && outcomes.length ? (
        <ul class="list" aria-label="Update outcomes">
          {outcomes.map((o) => (
            <li class="list-row" key={o.nodeId}>
              <span>
                <strong>{o.name}</strong> {o.fromVersion} → {o.toVersion}
              </span>
              <span>{o.ok ? <Badge tone="ok">Updated</Badge> : <Badge tone="bad">Not updated: {o.reason ?? "unknown"}</Badge>}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {list.length === 0 ? (
        <Empty>No nodes yet.</Empty>
      ) : (
        <Table
          testId="nodes"
          rows={list}
          rowKey={(n) => n.nodeId}
          rowAttrs={(n) => ({ "data-node": n.name, "data-id": n.nodeId })}
          columns={[
            {
              label: "Name",
              cell: (n) => (
                <>
                  <strong>{n.name}</strong>
                  {n.isLocal ? <span class="muted"> · this plane's host</span> : null}
                </>
              ),
            },
            { label: "State", cell: (n) => <NodeState node={n} held={heldReason.get(n.nodeId)} /> },
            { label: "Platform", cell: (n) => `${n.os}/${n.arch}` },
            {
              label: "Version",
              cell: (n) => (
                <>
                  <span class="mono">{n.agentVersion || "—"}</span>
                  {below.has(n.nodeId) ? <span class="muted"> (below {held?.minNodeVersion})</span> : null}
                </>
              ),
            },
            { label: "Host", class: "truncate", cell: (n) => n.hostname },
            {
              label: "Details",
              actions: true,
              cell: (n) => (
                <button
                  type="button"
                  class="btn btn-small"
                  aria-expanded={open === n.nodeId}
                  aria-controls={`node-${n.nodeId}`}
                  onClick={() => setOpen(open === n.nodeId ? null : n.nodeId)}
                >
                  {open === n.nodeId ? "Hide" : "Manage"}
                </button>
              ),
            },
          ]}
          detail={(n) =>
            open === n.nodeId
              ? {
                  id: `node-${n.nodeId}`,
                  content: <NodeDetail node={n} held={heldReason.get(n.nodeId)} onClose={() => setOpen(null)} isAdmin={isAdmin} />,
                }
              : null
          }
        />
      )}
      {isAdmin && list.some((n) => !n.isLocal) ? (
        <section class="section">
          <h2>Updates</h2>
          <p class="muted">
            Nodes must run at least version {held?.minNodeVersion ?? "the floor"}; a node below it is held until updated.
          </p>
          <div class="inline">
            <Checkbox label="Even if panes outside tmux would stop" checked={forceAll} onChange={setForceAll} />
            <button type="button" class="btn" onClick={updateAll} disabled={act.busy}>
              Update outdated nodes
            </button>
          </div>
        </section>
      ) : null}
      {active.length ? (
        <section class="section">
          <h2>Unused setup keys</h2>
          <ul class="list">
            {active.map((k) => (
              <li class="list-row" key={k.id}>
                <span>
                  <span class="mono">{k.preview}</span> <span class="muted">expires <Time ms={k.expiresAt} /></span>
                </span>
                <span class="list-actions">
                  {k.install ? <CopyKey value={k.install.command} /> : null}
                  <button
                    type="button"
                    class="btn btn-small btn-danger"
                    onClick={async () => {
                      await act.run(() => api.DELETE("/api/setup-keys/{id}", { params: { path: { id: k.id } } }));
                      await loadKeys();
                    }}
                  >
                    Revoke
                  </button>
                </span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <AddNodeDialog
        open={adding}
        onClose={() => {
          setAdding(false);
          if (location.search) navigate("/nodes", { replace: true });
          void loadKeys();
        }}
      />
    </div>
  );
}

function CopyKey({ value }: { value: string }) {
  return (
    <button
      type="button"
      class="btn btn-small"
      onClick={() => {
        void navigator.clipboard.writeText(value).then(
          () => toast("Install command copied."),
          () => toast("Copying is not allowed here.", "bad"),
        );
      }}
    >
      Copy install command
    </button>
  );
}

function NodeDetail({ node, held, onClose, isAdmin }: { node: Node; held: string | undefined; onClose: () => void; isAdmin: boolean }) {
  const [dirs, setDirs] = useState(node.allowedDirs.join("\n"));
  const [outcome, setOutcome] = useState<NodeUpdateOutcome | null>(null);
  const [rotated, setRotated] = useState<string | null>(null);
  const [ping, setPing] = useState<NodePing | null>(null);
  const act = useAction();

  const saveDirs = async (e: Event) => {
    e.preventDefault();
    const allowedDirs = dirs
      .split("\n")
      .map((d) => d.trim())
      .filter(Boolean);
    const r = await act.run(() => api.PUT("/api/nodes/{id}/allowed_dirs", { params: { path: { id: node.nodeId } }, body: { allowedDirs } }));
    if (r) {
      toast("Allowed directories saved.");
      await refreshNodes();
    }
  };

  const maintenance = async (on: boolean) => {
    const r = await act.run(() => api.PUT("/api/nodes/{id}/maintenance", { params: { path: { id: node.nodeId } }, body: { on } }));
    if (r) {
      toast(on ? (r.pushed ? "Maintenance on." : "Maintenance on (the node takes it when it comes online).") : "Maintenance off.");
      await refreshNodes();
    }
  };

  const recording = async (on: boolean, retentionDays: number | null) => {
    const r = await act.run(() => api.PUT("/api/nodes/{id}/recording", { params: { path: { id: node.nodeId } }, body: { on, retentionDays } }));
    if (r) {
      toast(on ? "Saved: this node's panes are recorded from their next launch or restart." : "Saved: this node's panes launched or restarted from now on are not recorded.");
      await refreshNodes();
    }
  };

  const rotate = async () => {
    const ok = await confirmAction(
      "Rotate this node's key?",
      "The old key stops working at once and the node disconnects until the new key is installed on it.",
      "Rotate key",
    );
    if (!ok) return;
    const r = await act.run(() => api.POST("/api/nodes/{id}/key_rotate", { params: { path: { id: node.nodeId } } }));
    if (r) setRotated(r.nodeKey);
  };

  const remove = async () => {
    const ok = await confirmAction(
      `Delete ${node.name}?`,
      "The node's key stops working and its row is removed. Its panes keep running on the machine until stopped there.",
      "Delete node",
    );
    if (!ok) return;
    const done = await act.run(async () => {
      await api.DELETE("/api/nodes/{id}", { params: { path: { id: node.nodeId } } });
      return true;
    });
    if (done) {
      toast(`${node.name} deleted.`);
      onClose();
      await refreshNodes();
    }
  };

  const runtime = node.runtime ?? {};
  // The local node belongs to the administrators: others see it but change nothing of it.
  if (node.isLocal && !isAdmin) {
    return (
      <div class="detail">
        <Note tone="info">This is the plane's own host. Only an administrator manages it.</Note>
        <dl class="facts">
          <dt>Node id</dt>
          <dd class="mono">{node.nodeId}</dd>
          <dt>Allowed directories</dt>
          <dd class="mono">{node.allowedDirs.length ? node.allowedDirs.join(", ") : "unrestricted"}</dd>
        </dl>
      </div>
    );
  }
  return (
    <div class="detail">
      <ErrorNote error={act.error} />
      {held ? <Note tone="bad">Held: {held}</Note> : null}
      <dl class="facts">
        <dt>Node id</dt>
        <dd class="mono">{node.nodeId}</dd>
        <dt>Enrolled</dt>
        <dd>
          <Time ms={node.createdAt} />
        </dd>
        <dt>Last change</dt>
        <dd>
          <Time ms={node.updatedAt} />
        </dd>
        <dt>Link encryption</dt>
        <dd>{node.isLocal ? "not needed (local)" : node.encryptPublicKey ? "paired" : "unpaired"}</dd>
        <dt>Recording</dt>
        <dd data-testid="node-recording">{recordingText(node.recording, node.recordingRetentionDays, KEPT_BY_DEFAULT)}</dd>
        {node.maintenance ? (
          <>
            <dt>Maintenance</dt>
            <dd>
              {node.maintenance.on ? "on" : "off"} since {new Date(node.maintenance.changedAt).toLocaleString()}
            </dd>
          </>
        ) : null}
      </dl>
      {Object.keys(runtime).length ? (
        <details>
          <summary>Supervision snapshot</summary>
          <pre class="json" tabIndex={0}>
            {JSON.stringify(runtime, null, 2)}
          </pre>
        </details>
      ) : null}
      <form onSubmit={saveDirs} class="stack">
        <div class="field">
          <label for={`dirs-${node.nodeId}`}>Allowed directories</label>
          <textarea
            id={`dirs-${node.nodeId}`}
            class="mono"
            rows={3}
            value={dirs}
            onInput={(e) => setDirs((e.currentTarget as HTMLTextAreaElement).value)}
            aria-describedby={`dirs-${node.nodeId}-hint`}
          />
          <div class="hint" id={`dirs-${node.nodeId}-hint`}>
            One absolute path a line (at most 64). Empty means unrestricted.
          </div>
        </div>
        <div class="actions actions-left">
          <button type="submit" class="btn" disabled={act.busy}>
            Save directories
          </button>
          {!node.isLocal ? (
            <button type="button" class="btn" disabled={act.busy} onClick={() => maintenance(!node.maintenance?.on)}>
              {node.maintenance?.on ? "End maintenance" : "Start maintenance"}
            </button>
          ) : null}
          <button
            type="button"
            class="btn"
            disabled={act.busy || node.liveness !== "online"}
            onClick={async () => {
              const r = await act.run(() => api.POST("/api/nodes/{id}/ping", { params: { path: { id: node.nodeId } } }));
              if (r) setPing(r);
            }}
          >
            Ping
          </button>
          {!node.isLocal ? (
            <>
              <button type="button" class="btn" disabled={act.busy} onClick={rotate}>
                Rotate key
              </button>
              {isAdmin ? (
                <button
                  type="button"
                  class="btn"
                  disabled={act.busy || node.liveness !== "online" && !held}
                  onClick={async () => {
                    const r = await act.run(() => api.POST("/api/admin/updates/nodes/{id}", { params: { path: { id: node.nodeId } }, body: {} }));
                    if (r) setOutcome(r);
                  }}
                >
                  Update node
                </button>
              ) : null}
              <button type="button" class="btn btn-danger" disabled={act.busy} onClick={remove}>
                Delete
              </button>
            </>
          ) : null}
        </div>
      </form>
      {isAdmin ? (
        <details>
          <summary>Recording settings</summary>
          <RecordingForm on={node.recording} days={node.recordingRetentionDays} inherits={KEPT_BY_DEFAULT} busy={act.busy} onSave={recording} />
        </details>
      ) : null}
      {outcome ? (
        <p role="status">
          {outcome.ok
            ? `Sent ${outcome.toVersion} (was ${outcome.fromVersion}); the node restarts on it.`
            : `Not updated: ${outcome.reason ?? "unknown reason"}`}
        </p>
      ) : null}
      {ping ? (
        <p role="status">{ping.ok ? `Answered in ${ping.rttMs} ms.` : `The node refused: ${ping.error ?? "unknown reason"}`}</p>
      ) : null}
      {rotated ? (
        <div class="stack">
          <Note tone="warn">Install this key on the node now; it is shown only once.</Note>
          <SecretBox label="New node key" value={rotated} />
          <CodeBlock label="On the node" code={`termplane-node configure --key ${rotated}\ntermplane-node service restart`} />
        </div>
      ) : null}
    </div>
  );
}

// The commands are the plane's own (`SetupKey.install`), shown as they are: what is copied here
// is what the plane composed and its tests run.
function AddNodeDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [key, setKey] = useState<SetupKey | null>(null);
  const [platform, setPlatform] = useState("");
  const [before, setBefore] = useState<Set<string>>(new Set());
  const list = useStore(nodes);
  const act = useAction();

  useEffect(() => {
    if (!open) {
      setKey(null);
      return;
    }
    setBefore(new Set(nodes.get().map((n) => n.nodeId)));
    void act.run(async () => {
      const minted = await api.POST("/api/setup-keys");
      setKey(minted);
      setPlatform(minted.install?.downloads[0]?.platform ?? "");
    });
  }, [open]);

  // While the dialog is open, look for the new node now and then (the feed also announces it).
  useEffect(() => {
    if (!open || !key) return;
    const t = window.setInterval(refreshNodesInBackground, 3000);
    return () => window.clearInterval(t);
  }, [open, key]);

  const fresh = list.filter((n) => !before.has(n.nodeId));
  const install = key?.install ?? null;
  const chosen = install?.downloads.find((d) => d.platform === platform) ?? null;

  return (
    <Dialog title="Add a node" open={open} onClose={onClose} wide>
      <ErrorNote error={act.error} />
      {act.error ? null : !key || !install ? (
        <p>Minting a setup key…</p>
      ) : (
        <div class="stack">
          <p>
            A node is any machine with tmux that can reach this plane; the plane never connects to it. The setup key in these
            commands works once, for 24 hours.
          </p>
          <CodeBlock label="Run this on the machine" code={install.command} testId="install-command" />
          <p class="hint">
            It downloads termplane-node for the machine's platform into <span class="mono">~/.local/bin</span> (
            <span class="mono">/usr/local/bin</span> as root), checks its SHA-256 against this plane's, enrolls the node and starts
            its service; where no service manager runs (a container, say), it prints the command that runs the node in the
            foreground. Running it again is safe. Read it first:{" "}
            <a href={install.scriptUrl} target="_blank" rel="noreferrer">
              install.sh
            </a>
            .
          </p>
          <details class="steps" data-testid="step-by-step">
            <summary>Step by step</summary>
            <div class="stack">
              <SecretBox label="Setup key" value={key.key ?? ""} testId="setup-key" />
              <h3>1. Get the program</h3>
              {install.downloads.length === 0 ? (
                <Note tone="warn">
                  This plane serves no node program yet: its administrator puts them in the folder named by{" "}
                  <span class="mono">TERMPLANE_NODE_DOWNLOADS</span>.
                </Note>
              ) : (
                <>
                  <div class="inline">
                    <div class="field field-inline">
                      <label for="dl-platform">Platform</label>
                      <select id="dl-platform" value={platform} onChange={(e) => setPlatform((e.currentTarget as HTMLSelectElement).value)}>
                        {install.downloads.map((d) => (
                          <option key={d.platform} value={d.platform}>
                            {d.platform}
                          </option>
                        ))}
                      </select>
                    </div>
                    {chosen ? (
                      <a class="btn btn-small" href={`/api/downloads/node/${chosen.platform}`} download="termplane-node">
                        Download termplane-node ({chosen.platform})
                      </a>
                    ) : null}
                  </div>
                  {chosen ? (
                    <>
                      <p class="hint">
                        {bytesText(chosen.bytes)}, SHA-256 <span class="mono hash">{chosen.sha256}</span>
                      </p>
                      <CodeBlock label="Download and check it" code={chosen.commands.join("\n")} testId="download-commands" />
                    </>
                  ) : null}
                </>
              )}
              <h3>2. Enroll it</h3>
              <CodeBlock label="Enroll command" code={install.enroll} testId="enroll-command" />
              <h3>3. Run it</h3>
              <CodeBlock label="As a service" code={install.service} testId="service-command" />
              <CodeBlock label="Or in the foreground" code={install.foreground} testId="foreground-command" />
            </div>
          </details>
          <div role="status" aria-live="polite" class="waiting">
            {fresh.length ? (
              fresh.map((n) => (
                <p key={n.nodeId} data-testid="new-node" data-liveness={n.liveness}>
                  <strong>{n.name}</strong> enrolled: {n.liveness === "online" ? "online." : "waiting for it to connect…"}
                </p>
              ))
            ) : (
              <p class="muted">Waiting for the node to enroll…</p>
            )}
          </div>
          <div class="actions">
            <button type="button" class="btn btn-primary" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}
