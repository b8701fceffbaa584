// Settings: system keys, the credentials scripts call the API with.

import { useEffect, useState } from "preact/hooks";
import { api } from "../../api";
import { Table } from "../../table";
import type { SystemKey, SystemKeyCreated } from "../../types";
import { Badge, confirmAction, Empty, ErrorNote, Note, PageHead, SecretBox, Time, TextField, useAction } from "../../ui";
import { Tabs } from "./Tabs";

export function KeysPage() {
  const [keys, setKeys] = useState<SystemKey[] | null>(null);
  const [name, setName] = useState("");
  const [created, setCreated] = useState<SystemKeyCreated | null>(null);
  const act = useAction();
  const load = async () => setKeys(await api.GET("/api/system-keys"));
  useEffect(() => {
    void act.run(load);
  }, []);

  const mint = async (e: Event) => {
    e.preventDefault();
    const r = await act.run(() => api.POST("/api/system-keys", { body: { name: name.trim() } }));
    if (r) {
      setCreated(r);
      setName("");
      await act.run(load);
    }
  };

  return (
    <div class="page">
      <PageHead title="Settings" />
      <Tabs />
      <section class="section">
        <h2>System keys</h2>
        <p class="muted">
          Scripts call the API with <span class="mono">Authorization: Bearer tp_…</span>. A key acts as the{" "}
          <span class="mono">system</span> account, never as you, and cannot reach administration. Rotate by minting a new key,
          moving its users, then disabling or deleting the old one.
        </p>
        <form class="row-form" onSubmit={mint}>
          <TextField label="Key name" value={name} onValue={setName} required maxLength={100} placeholder="ci-deploy" id="key-name" />
          <button type="submit" class="btn btn-primary" disabled={act.busy || !name.trim()}>
            Mint key
          </button>
        </form>
        <ErrorNote error={act.error} />
        {created ? (
          <div class="stack callout">
            <Note tone="warn">Copy this key now: it is shown only once and cannot be shown again.</Note>
            <SecretBox label={`New key “${created.name}”`} value={created.key} testId="new-system-key" />
            <div>
              <button type="button" class="btn btn-small" onClick={() => setCreated(null)}>
                I have stored it
              </button>
            </div>
          </div>
        ) : null}
        {keys && keys.length === 0 ? <Empty>No system keys.</Empty> : null}
        {keys && keys.length ? (
          <Table
            testId="system-keys"
            rows={keys}
            rowKey={(k) => k.id}
            columns={[
              { label: "Name", cell: (k) => k.name },
              { label: "Key", class: "mono", cell: (k) => k.preview },
              {
                label: "State",
                cell: (k) =>
                  k.enabled ? (
                    <Badge tone="ok">
                      <span aria-hidden="true">●</span> Enabled
                    </Badge>
                  ) : (
                    <Badge tone="muted">
                      <span aria-hidden="true">○</span> Disabled
                    </Badge>
                  ),
              },
              { label: "Created", cell: (k) => <Time ms={k.createdAt} /> },
              {
                label: "Actions",
                actions: true,
                class: "row-actions",
                cell: (k) => (
                  <>
                    {k.enabled ? (
                      <button
                        type="button"
                        class="btn btn-small"
                        onClick={async () => {
                          if (!(await confirmAction(`Disable ${k.name}?`, "It stops working from its next request. A disabled key cannot be enabled again.", "Disable"))) return;
                          await act.run(() => api.POST("/api/system-keys/{id}/disable", { params: { path: { id: k.id } } }));
                          await act.run(load);
                        }}
                      >
                        Disable
                      </button>
                    ) : null}
                    <button
                      type="button"
                      class="btn btn-small btn-danger"
                      onClick={async () => {
                        if (!(await confirmAction(`Delete ${k.name}?`, "The key stops working and its row is removed.", "Delete"))) return;
                        await act.run(() => api.DELETE("/api/system-keys/{id}", { params: { path: { id: k.id } } }));
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
    </div>
  );
}
