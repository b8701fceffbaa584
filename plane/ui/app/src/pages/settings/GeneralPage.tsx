// Settings: the instance's name, the harness plugins and the trusted origins.

import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api";
import { loadInstanceName } from "../../session";
import type { HarnessId, Plugin, TrustedOrigins } from "../../types";
import { Badge, CodeText, ErrorNote, PageHead, TextField, toast, useAction } from "../../ui";
import { Tabs } from "./Tabs";

export function GeneralPage() {
  const [name, setName] = useState("");
  const [plugins, setPlugins] = useState<Plugin[] | null>(null);
  const [origins, setOrigins] = useState<TrustedOrigins | null>(null);
  const [added, setAdded] = useState("");
  // What was typed is never replaced by a listing that arrives later.
  const typedName = useRef(false);
  const typedOrigins = useRef(false);
  const act = useAction();
  const nameAct = useAction();
  const pluginAct = useAction();
  const originAct = useAction();
  const load = async () => {
    const [inst, pl, o] = await Promise.all([
      api.GET("/api/settings/instance"),
      api.GET("/api/plugins"),
      api.GET("/api/settings/trusted-origins"),
    ]);
    if (!typedName.current) setName(inst.displayName);
    if (!typedOrigins.current) setAdded(o.added.join("\n"));
    setPlugins(pl);
    setOrigins(o);
  };
  useEffect(() => {
    void act.run(load);
  }, []);

  const saveName = async (e: Event) => {
    e.preventDefault();
    const r = await nameAct.run(() => api.PUT("/api/settings/instance", { body: { displayName: name.trim() } }));
    if (r) {
      setName(r.displayName);
      toast("Instance name saved.");
      await loadInstanceName();
    }
  };

  const saveOrigins = async (e: Event) => {
    e.preventDefault();
    const list = added
      .split(/[\s,]+/)
      .map((o) => o.trim())
      .filter(Boolean);
    const r = await originAct.run(() => api.PUT("/api/settings/trusted-origins", { body: { added: list } }));
    if (r) {
      setOrigins(r);
      setAdded(r.added.join("\n"));
      typedOrigins.current = false;
      toast("Trusted origins saved.");
    }
  };

  return (
    <div class="page">
      <PageHead title="Settings" />
      <Tabs />
      <ErrorNote error={act.error} />
      <section class="section">
        <h2>Instance</h2>
        <form class="row-form" onSubmit={saveName}>
          <TextField
            label="Instance name"
            value={name}
            onValue={(v) => {
              typedName.current = true;
              setName(v);
            }}
            required
            maxLength={64}
            id="inst-name"
          />
          <button type="submit" class="btn btn-primary" disabled={nameAct.busy || !name.trim()}>
            Save
          </button>
        </form>
        <ErrorNote error={nameAct.error} />
      </section>
      <section class="section">
        <h2>Harness plugins</h2>
        <p class="muted">A plugin that is off cannot be launched on any node.</p>
        <ErrorNote error={pluginAct.error} />
        {plugins ? (
          <ul class="list">
            {plugins.map((p) => (
              <li class="list-row" key={p.id}>
                <span>
                  <strong>{p.name}</strong>{" "}
                  <span class="muted" data-testid="plugin-description">
                    <CodeText text={p.description} />
                  </span>
                </span>
                <span class="list-actions">
                  {p.enabled ? <Badge tone="ok">On</Badge> : <Badge tone="muted">Off</Badge>}
                  <button
                    type="button"
                    class="btn btn-small"
                    disabled={pluginAct.busy}
                    onClick={async () => {
                      const r = await pluginAct.run(() => api.PUT("/api/plugins/{id}", { params: { path: { id: p.id as HarnessId } }, body: { enabled: !p.enabled } }));
                      if (r) setPlugins((list) => (list ?? []).map((x) => (x.id === r.id ? r : x)));
                    }}
                  >
                    {p.enabled ? "Turn off" : "Turn on"}
                    <span class="sr-only"> {p.name}</span>
                  </button>
                </span>
              </li>
            ))}
          </ul>
        ) : null}
      </section>
      <section class="section">
        <h2>Trusted origins</h2>
        <p class="muted">
          Browsers may sign in and send changes from these addresses only. The configured ones come from the plane's settings (
          <span class="mono">APP_BASE_URL</span>, <span class="mono">TRUSTED_ORIGINS</span>) and change only with a restart.
        </p>
        {origins ? (
          <ul class="list" aria-label="Configured origins">
            {origins.configured.map((o) => (
              <li class="list-row mono" key={o}>
                {o}
              </li>
            ))}
          </ul>
        ) : null}
        <form class="stack" onSubmit={saveOrigins}>
          <div class="field">
            <label for="origins-added">Added by administrators</label>
            <textarea
              id="origins-added"
              class="mono"
              rows={3}
              value={added}
              placeholder="https://plane.example"
              onInput={(e) => {
                typedOrigins.current = true;
                setAdded((e.currentTarget as HTMLTextAreaElement).value);
              }}
              aria-describedby="origins-hint"
            />
            <div class="hint" id="origins-hint">
              One origin a line: a scheme, a host name or IPv4 address, and an optional port, such as https://plane.example:8443
              (at most 32). Saving an empty list removes them all.
            </div>
          </div>
          <ErrorNote error={originAct.error} />
          <div>
            <button type="submit" class="btn" disabled={originAct.busy}>
              Save origins
            </button>
          </div>
        </form>
      </section>
      <section class="section">
        <h2>API</h2>
        <p>
          Everything here is available to scripts: see the <a href="/docs">interactive API reference</a> and its{" "}
          <a href="/docs/terminal">terminal socket frames</a>.
        </p>
      </section>
    </div>
  );
}
