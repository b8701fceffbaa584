// Workspaces (named directories on nodes) and presets (launch settings) of the account.

import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { nodes, refreshNodesInBackground } from "../live";
import { useStore } from "../store";
import { session } from "../session";
import { RecordingForm, recordingText } from "../recording-settings";
import { Table } from "../table";
import type { HarnessId, Plugin, Preset, PresetRequest, Workspace } from "../types";
import { DirPicker } from "../dirs";
import { Checkbox, confirmAction, Dialog, Empty, ErrorNote, PageHead, TextField, toast, useAction } from "../ui";

/** What a workspace's retention left empty means. */
const KEPT_AS_NODE = "as its node's setting says";

export function WorkspacesPage() {
  const [workspaces, setWorkspaces] = useState<Workspace[] | null>(null);
  const [presets, setPresets] = useState<Preset[] | null>(null);
  const [plugins, setPlugins] = useState<Plugin[]>([]);
  const [editWs, setEditWs] = useState<Workspace | "new" | null>(null);
  const [editPreset, setEditPreset] = useState<Preset | "new" | null>(null);
  const [recordingOf, setRecordingOf] = useState<Workspace | null>(null);
  const nodeList = useStore(nodes);
  const s = useStore(session);
  const isAdmin = s.kind === "signed-in" && s.me.isAdmin;
  const act = useAction();

  const load = async () => {
    const [w, p, pl] = await Promise.all([
      api.GET("/api/workspaces"),
      api.GET("/api/presets"),
      api.GET("/api/plugins"),
    ]);
    setWorkspaces(w);
    setPresets(p);
    setPlugins(pl);
  };
  useEffect(() => {
    void act.run(load);
    if (!nodes.get().length) refreshNodesInBackground();
  }, []);

  const nodeName = (id: string) => nodeList.find((n) => n.nodeId === id)?.name ?? id.slice(0, 8);

  return (
    <div class="page">
      <PageHead title="Workspaces and presets" />
      <ErrorNote error={act.error} />
      <section class="section">
        <div class="section-head">
          <h2>Workspaces</h2>
          <button type="button" class="btn" onClick={() => setEditWs("new")}>
            New workspace
          </button>
        </div>
        <p class="muted">A workspace is a named directory on a node; a launch in it starts there.</p>
        {workspaces && workspaces.length === 0 ? <Empty>No workspaces.</Empty> : null}
        {workspaces && workspaces.length ? (
          <Table
            rows={workspaces}
            rowKey={(w) => w.id}
            columns={[
              { label: "Name", cell: (w) => w.name },
              { label: "Node", cell: (w) => nodeName(w.nodeId) },
              { label: "Directory", class: "mono", cell: (w) => w.path },
              { label: "Recording", cell: (w) => recordingText(w.recording, w.recordingRetentionDays, KEPT_AS_NODE) },
              {
                label: "Actions",
                actions: true,
                class: "row-actions",
                cell: (w) => (
                  <>
                    <button type="button" class="btn btn-small" onClick={() => setEditWs(w)}>
                      Edit
                    </button>
                    {isAdmin ? (
                      <button type="button" class="btn btn-small" onClick={() => setRecordingOf(w)} aria-label={`Recording of ${w.name}`}>
                        Recording…
                      </button>
                    ) : null}
                    <button
                      type="button"
                      class="btn btn-small btn-danger"
                      onClick={async () => {
                        if (!(await confirmAction(`Delete ${w.name}?`, "Subshells launched in it keep running.", "Delete"))) return;
                        await act.run(() => api.DELETE("/api/workspaces/{id}", { params: { path: { id: w.id } } }));
                        await act.run(load);
                      }}
                    >
                      Delete
                    </button>
                  </>
                ),
              },
            ]}
          />
        ) : null}
      </section>
      <section class="section">
        <div class="section-head">
          <h2>Presets</h2>
          <button type="button" class="btn" onClick={() => setEditPreset("new")}>
            New preset
          </button>
        </div>
        <p class="muted">A preset carries environment variables, flags and restart behaviour for a launch.</p>
        {presets && presets.length === 0 ? <Empty>No presets.</Empty> : null}
        {presets && presets.length ? (
          <Table
            rows={presets}
            rowKey={(p) => p.id}
            columns={[
              { label: "Name", cell: (p) => p.name },
              { label: "Harness", cell: (p) => p.harnessId ?? "any" },
              {
                label: "Settings",
                cell: (p) => (
                  <>
                    {Object.keys(p.env).length} env · {p.flags.length} flags
                    {p.autoRestart ? " · auto-restart" : ""}
                    {p.configIsolation ? " · isolated config" : ""}
                  </>
                ),
              },
              {
                label: "Actions",
                actions: true,
                class: "row-actions",
                cell: (p) => (
                  <>
                    <button type="button" class="btn btn-small" onClick={() => setEditPreset(p)}>
                      Edit
                    </button>
                    <button
                      type="button"
                      class="btn btn-small btn-danger"
                      onClick={async () => {
                        if (!(await confirmAction(`Delete ${p.name}?`, "Subshells launched with it keep running.", "Delete"))) return;
                        await act.run(() => api.DELETE("/api/presets/{id}", { params: { path: { id: p.id } } }));
                        await act.run(load);
                      }}
                    >
                      Delete
                    </button>
                  </>
                ),
              },
            ]}
          />
        ) : null}
      </section>
      <WorkspaceDialog
        value={editWs}
        onClose={(saved) => {
          setEditWs(null);
          if (saved) void act.run(load);
        }}
      />
      <Dialog title={recordingOf ? `Recording of ${recordingOf.name}` : "Recording"} open={!!recordingOf} onClose={() => setRecordingOf(null)}>
        {recordingOf ? (
          <div class="stack">
            <p class="muted">Off here, the workspace's panes are not recorded whatever their node says; a number of days here wins over their node's.</p>
            <RecordingForm
              on={recordingOf.recording}
              days={recordingOf.recordingRetentionDays}
              inherits={KEPT_AS_NODE}
              busy={act.busy}
              onSave={async (on, retentionDays) => {
                const r = await act.run(() =>
                  api.PUT("/api/workspaces/{id}/recording", { params: { path: { id: recordingOf.id } }, body: { on, retentionDays } }),
                );
                if (r) {
                  toast("Recording settings saved.");
                  setRecordingOf(null);
                  await act.run(load);
                }
              }}
            />
            <ErrorNote error={act.error} />
          </div>
        ) : null}
      </Dialog>
      <PresetDialog
        value={editPreset}
        plugins={plugins}
        onClose={(saved) => {
          setEditPreset(null);
          if (saved) void act.run(load);
        }}
      />
    </div>
  );
}

function WorkspaceDialog({ value, onClose }: { value: Workspace | "new" | null; onClose: (saved: boolean) => void }) {
  const nodeList = useStore(nodes);
  const [name, setName] = useState("");
  const [nodeId, setNodeId] = useState("");
  const [path, setPath] = useState("");
  const [picking, setPicking] = useState(false);
  const act = useAction();
  useEffect(() => {
    if (!value) return;
    act.setError(null);
    setPicking(false);
    if (value === "new") {
      setName("");
      setPath("");
      setNodeId(nodeList[0]?.nodeId ?? "");
    } else {
      setName(value.name);
      setPath(value.path);
      setNodeId(value.nodeId);
    }
  }, [value]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const body = { name, nodeId, path };
    const r = await act.run(() =>
      value === "new" || !value
        ? api.POST("/api/workspaces", { body })
        : api.PUT("/api/workspaces/{id}", { params: { path: { id: value.id } }, body }),
    );
    if (r) {
      toast("Workspace saved.");
      onClose(true);
    }
  };
  return (
    <Dialog title={value === "new" ? "New workspace" : "Edit workspace"} open={!!value} onClose={() => onClose(false)}>
      <form class="stack" onSubmit={submit}>
        <TextField label="Name" value={name} onValue={setName} required maxLength={100} id="ws-name" />
        <div class="field">
          <label for="ws-node">Node</label>
          <select id="ws-node" value={nodeId} onChange={(e) => setNodeId((e.currentTarget as HTMLSelectElement).value)} required>
            {nodeList.map((n) => (
              <option key={n.nodeId} value={n.nodeId}>
                {n.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="ws-path">Directory</label>
          <div class="inline inline-grow">
            <input
              id="ws-path"
              class="mono"
              value={path}
              required
              pattern="/.*"
              aria-describedby="ws-path-hint"
              onInput={(e) => setPath((e.currentTarget as HTMLInputElement).value)}
            />
            <button type="button" class="btn" aria-expanded={picking} onClick={() => setPicking(!picking)} disabled={!nodeId}>
              Browse…
            </button>
          </div>
          <div class="hint" id="ws-path-hint">
            An absolute path on the node.
          </div>
        </div>
        {picking && nodeId ? <DirPicker nodeId={nodeId} start={path} onPick={setPath} onClose={() => setPicking(false)} /> : null}
        <ErrorNote error={act.error} />
        <div class="actions">
          <button type="button" class="btn" onClick={() => onClose(false)}>
            Cancel
          </button>
          <button type="submit" class="btn btn-primary" disabled={act.busy}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t || t.startsWith("#")) continue;
    const i = t.indexOf("=");
    if (i <= 0) throw new Error(`"${t}" is not NAME=value`);
    out[t.slice(0, i).trim()] = t.slice(i + 1);
  }
  return out;
}

function PresetDialog({
  value,
  plugins,
  onClose,
}: {
  value: Preset | "new" | null;
  plugins: Plugin[];
  onClose: (saved: boolean) => void;
}) {
  const [name, setName] = useState("");
  const [harnessId, setHarnessId] = useState("");
  const [env, setEnv] = useState("");
  const [flags, setFlags] = useState("");
  const [settings, setSettings] = useState("");
  const [configIsolation, setConfigIsolation] = useState(false);
  const [autoRestart, setAutoRestart] = useState(false);
  const act = useAction();
  useEffect(() => {
    if (!value) return;
    act.setError(null);
    const p = value === "new" ? null : value;
    setName(p?.name ?? "");
    setHarnessId(p?.harnessId ?? "");
    setEnv(p ? Object.entries(p.env).map(([k, v]) => `${k}=${v}`).join("\n") : "");
    setFlags(p ? p.flags.join("\n") : "");
    setSettings(p?.settings ? JSON.stringify(p.settings, null, 2) : "");
    setConfigIsolation(p?.configIsolation ?? false);
    setAutoRestart(p?.autoRestart ?? false);
  }, [value]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const r = await act.run(async () => {
      const body: PresetRequest = {
        name,
        env: parseEnv(env),
        flags: flags
          .split("\n")
          .map((f) => f.trim())
          .filter(Boolean),
        configIsolation,
        autoRestart,
      };
      if (harnessId) body.harnessId = harnessId as HarnessId;
      if (settings.trim()) {
        const parsed: unknown = JSON.parse(settings);
        if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("Harness settings must be a JSON object.");
        body.settings = parsed as Record<string, unknown>;
      }
      return value === "new" || !value
        ? api.POST("/api/presets", { body })
        : api.PUT("/api/presets/{id}", { params: { path: { id: value.id } }, body });
    });
    if (r) {
      toast("Preset saved.");
      onClose(true);
    }
  };
  return (
    <Dialog title={value === "new" ? "New preset" : "Edit preset"} open={!!value} onClose={() => onClose(false)} wide>
      <form class="stack" onSubmit={submit}>
        <div class="grid2">
          <TextField label="Name" value={name} onValue={setName} required maxLength={100} id="pr-name" />
          <div class="field">
            <label for="pr-harness">Harness</label>
            <select id="pr-harness" value={harnessId} onChange={(e) => setHarnessId((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">Any harness</option>
              {plugins.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div class="field">
          <label for="pr-env">Environment</label>
          <textarea id="pr-env" class="mono" rows={4} value={env} onInput={(e) => setEnv((e.currentTarget as HTMLTextAreaElement).value)} aria-describedby="pr-env-hint" />
          <div class="hint" id="pr-env-hint">
            One NAME=value a line (at most 64).
          </div>
        </div>
        <div class="field">
          <label for="pr-flags">Flags</label>
          <textarea id="pr-flags" class="mono" rows={3} value={flags} onInput={(e) => setFlags((e.currentTarget as HTMLTextAreaElement).value)} aria-describedby="pr-flags-hint" />
          <div class="hint" id="pr-flags-hint">
            One command-line argument a line, added in order (at most 32).
          </div>
        </div>
        <div class="field">
          <label for="pr-settings">Harness settings (JSON object)</label>
          <textarea id="pr-settings" class="mono" rows={3} value={settings} onInput={(e) => setSettings((e.currentTarget as HTMLTextAreaElement).value)} />
        </div>
        <Checkbox label="Keep a private configuration directory for the harness on the node" checked={configIsolation} onChange={setConfigIsolation} />
        <Checkbox label="Relaunch when the program crashes" checked={autoRestart} onChange={setAutoRestart} />
        <ErrorNote error={act.error} />
        <div class="actions">
          <button type="button" class="btn" onClick={() => onClose(false)}>
            Cancel
          </button>
          <button type="submit" class="btn btn-primary" disabled={act.busy}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}
