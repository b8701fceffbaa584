// Settings: the plane's status and how it is deployed.

import { useEffect, useState } from "preact/hooks";
import { api } from "../../api";
import { Link } from "../../router";
import { Table } from "../../table";
import type { AdminStatus, Deployment } from "../../types";
import { bytesText, CopyButton, ErrorNote, Note, PageHead, useAction } from "../../ui";
import { Tabs } from "./Tabs";

function uptime(secs: number): string {
  if (secs < 60) return `${secs} s`;
  const d = Math.floor(secs / 86400);
  const h = Math.floor((secs % 86400) / 3600);
  const m = Math.floor((secs % 3600) / 60);
  return d ? `${d} d ${h} h` : h ? `${h} h ${m} min` : `${m} min`;
}

/** A count by key, as a small table. */
function Counts({ label, map, names }: { label: string; map: Record<string, number>; names?: Record<string, string> }) {
  const rows = Object.entries(map).filter(([, n]) => n > 0);
  if (!rows.length) return <p class="muted">None.</p>;
  return (
    <table class="table counts" aria-label={label}>
      <tbody>
        {rows.map(([k, n]) => (
          <tr key={k}>
            <th scope="row">{names?.[k] ?? k.replace(/_/g, " ")}</th>
            <td>{n}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const LIVENESS_NAMES: Record<string, string> = { online: "Online", offline: "Offline", held: "Held for update" };
const STATE_NAMES: Record<string, string> = {
  starting: "Starting",
  running: "Running",
  stopping: "Stopping",
  stopped: "Stopped",
  exited: "Exited",
  crashed: "Crashed",
  failed: "Failed",
};

export function StatusPage() {
  const [status, setStatus] = useState<AdminStatus | null>(null);
  const [deployment, setDeployment] = useState<Deployment | null>(null);
  const act = useAction();
  const load = async () => {
    const [st, dep] = await Promise.all([api.GET("/api/admin/status"), api.GET("/api/admin/deployment")]);
    setStatus(st);
    setDeployment(dep);
  };
  useEffect(() => {
    void act.run(load);
  }, []);

  return (
    <div class="page">
      <PageHead title="Settings">
        <button type="button" class="btn" disabled={act.busy} onClick={() => void act.run(load)}>
          Refresh
        </button>
      </PageHead>
      <Tabs />
      <ErrorNote error={act.error} />
      {status ? (
        <>
          <section class="section">
            <h2>Plane</h2>
            <dl class="facts" data-testid="status">
              <dt>Version</dt>
              <dd class="mono">{status.version}</dd>
              <dt>Up for</dt>
              <dd>{uptime(status.uptimeSecs)}</dd>
              <dt>Database</dt>
              <dd>
                {status.database}
                {status.databaseBytes !== null ? `, ${bytesText(status.databaseBytes)}` : ""}
              </dd>
              <dt>Local node</dt>
              <dd>{status.localNode ? "runs panes on this host" : "off (no tmux, or turned off)"}</dd>
            </dl>
          </section>
          <div class="grid2">
            <section class="section">
              <h2>Remote nodes</h2>
              <Counts label="Remote nodes by liveness" map={status.nodesByLiveness} names={LIVENESS_NAMES} />
              {status.heldNodes ? (
                <Note tone="warn">
                  {status.heldNodes} {status.heldNodes === 1 ? "node is" : "nodes are"} held until updated: see <Link href="/nodes">Nodes</Link>.
                </Note>
              ) : null}
              <h3>By version</h3>
              <Counts label="Remote nodes by version" map={status.nodesByVersion} />
            </section>
            <section class="section">
              <h2>Subshells</h2>
              <Counts label="Subshells by state" map={status.subshellsByState} names={STATE_NAMES} />
            </section>
          </div>
        </>
      ) : null}
      {deployment ? (
        <section class="section">
          <h2>Deployment</h2>
          <dl class="facts" data-testid="deployment">
            <dt>Base URL</dt>
            <dd class="mono">{deployment.baseUrl}</dd>
            <dt>Listening on</dt>
            <dd class="mono">{deployment.listen.join(", ") || "—"}</dd>
            <dt>Data directory</dt>
            <dd class="mono">{deployment.dataDir ?? "— (in memory)"}</dd>
            <dt>Database</dt>
            <dd>{deployment.database}</dd>
            <dt>Trusted origins</dt>
            <dd>
              {deployment.trustedOrigins.map((o) => (
                <div key={o} class="mono">
                  {o}
                </div>
              ))}
              <Link href="/settings/general" class="small">
                Add origins under General
              </Link>
            </dd>
          </dl>
          <h3>Node programs served</h3>
          {deployment.nodeDownloads.length ? (
            <Table
              testId="node-downloads"
              rows={deployment.nodeDownloads}
              rowKey={(d) => d.platform}
              columns={[
                { label: "Platform", class: "mono", cell: (d) => d.platform },
                { label: "Size", cell: (d) => bytesText(d.bytes) },
                {
                  label: "SHA-256",
                  cell: (d) => (
                    <>
                      <span class="mono small hash">{d.sha256}</span> <CopyButton text={d.sha256} what={`SHA-256 of ${d.platform}`} />
                    </>
                  ),
                },
                {
                  label: "Download",
                  actions: true,
                  class: "row-actions",
                  cell: (d) => (
                    <a class="btn btn-small" href={d.url} download="termplane-node">
                      Download<span class="sr-only"> {d.platform}</span>
                    </a>
                  ),
                },
              ]}
            />
          ) : (
            <p class="muted">None: this plane has no node program to serve.</p>
          )}
        </section>
      ) : null}
    </div>
  );
}
