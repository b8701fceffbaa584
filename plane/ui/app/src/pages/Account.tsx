// The signed-in account: who it is, its password and passkeys, what it is notified about and
// where (push to this browser, the account's devices), signing out.

import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api";
import { defaultDeviceName, pushSupport, removeDevice, subscribeThisBrowser, thisDevice } from "../push";
import { Link } from "../router";
import { session, signOut } from "../session";
import { useStore } from "../store";
import { Table } from "../table";
import type { Device, NotificationPrefs, Passkey } from "../types";
import { Checkbox, confirmAction, Empty, ErrorNote, Note, PageHead, Time, TextField, toast, useAction } from "../ui";
import { passkeysSupported, registerPasskey } from "../webauthn";

export function AccountPage() {
  const s = useStore(session);
  const me = s.kind === "signed-in" ? s.me : null;
  const [passkeys, setPasskeys] = useState<Passkey[] | null>(null);
  const [unavailable, setUnavailable] = useState(false);
  const [name, setName] = useState("");
  const act = useAction();

  const load = async () => {
    try {
      setPasskeys(await api.GET("/api/auth/passkeys"));
    } catch (e) {
      if (e instanceof ApiError && (e.status === 404 || e.status === 405)) setUnavailable(true);
      else throw e;
    }
  };
  useEffect(() => {
    void act.run(load);
  }, []);

  const add = async (e: Event) => {
    e.preventDefault();
    const r = await act.run(() => registerPasskey(name.trim() || "Passkey"));
    if (r) {
      toast(`Passkey “${r.name}” added.`);
      setName("");
      await act.run(load);
    }
  };

  return (
    <div class="page">
      <PageHead title="Account" />
      {me ? (
        <section class="section">
          <dl class="facts">
            <dt>Name</dt>
            <dd>{me.displayName}</dd>
            <dt>Email</dt>
            <dd>{me.email}</dd>
            <dt>Role</dt>
            <dd>{me.isAdmin ? "Administrator" : me.role === "admin" ? "Administrator (not in this session)" : "User"}</dd>
          </dl>
        </section>
      ) : null}
      <section class="section">
        <h2>Passkeys</h2>
        <p class="muted">Sign in with this device's screen lock or a security key instead of the password.</p>
        <ErrorNote error={act.error} />
        {unavailable ? (
          <Note tone="muted">This plane does not offer passkeys.</Note>
        ) : !passkeysSupported() ? (
          <Note tone="muted">This browser does not support passkeys.</Note>
        ) : location.hostname.match(/^[\d.]+$|^\[/) ? (
          <Note tone="warn">Passkeys need a host name: open this plane by name (such as localhost) rather than by IP address.</Note>
        ) : (
          <form class="row-form" onSubmit={add}>
            <TextField label="Passkey name" value={name} onValue={setName} maxLength={64} placeholder="Laptop" id="pk-name" />
            <button type="submit" class="btn btn-primary" disabled={act.busy}>
              Add a passkey
            </button>
          </form>
        )}
        {passkeys && passkeys.length === 0 ? <Empty>No passkeys yet.</Empty> : null}
        {passkeys && passkeys.length ? (
          <ul class="list" data-testid="passkeys">
            {passkeys.map((p) => (
              <li class="list-row" key={p.id}>
                <span>
                  <strong>{p.name}</strong>{" "}
                  <span class="muted">
                    added <Time ms={p.createdAt} />, last used <Time ms={p.lastUsedAt} />
                  </span>
                </span>
                <button
                  type="button"
                  class="btn btn-small btn-danger"
                  onClick={async () => {
                    if (!(await confirmAction(`Remove ${p.name}?`, "It will no longer sign you in.", "Remove"))) return;
                    await act.run(() => api.DELETE("/api/auth/passkeys/{id}", { params: { path: { id: p.id } } }));
                    await act.run(load);
                  }}
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
        ) : null}
      </section>
      <PasswordSection />
      <NotificationsSection />
      <PushSection />
      <section class="section">
        <h2>Session</h2>
        <button type="button" class="btn" onClick={() => void signOut()}>
          Sign out
        </button>
      </section>
    </div>
  );
}

function PasswordSection() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [again, setAgain] = useState("");
  const [others, setOthers] = useState(true);
  const [waitUntil, setWaitUntil] = useState(0);
  const [now, setNow] = useState(Date.now());
  const act = useAction();

  useEffect(() => {
    if (waitUntil <= now) return;
    const t = window.setTimeout(() => setNow(Date.now()), 250);
    return () => window.clearTimeout(t);
  }, [waitUntil, now]);
  const left = Math.max(0, Math.ceil((waitUntil - now) / 1000));

  const submit = async (e: Event) => {
    e.preventDefault();
    if (left > 0) return;
    if (next !== again) {
      act.setError(new Error("The two new passwords differ."));
      return;
    }
    const done = await act.run(async () => {
      try {
        await api.POST("/api/auth/password", { body: { currentPassword: current, newPassword: next, signOutOthers: others } });
      } catch (err) {
        if (err instanceof ApiError && err.status === 429) {
          setWaitUntil(Date.now() + (err.retryAfter ?? 1) * 1000);
          setNow(Date.now());
          return false;
        }
        if (err instanceof ApiError && err.code === "CURRENT_PASSWORD_WRONG") {
          throw new Error("The current password is wrong.");
        }
        throw err;
      }
      return true;
    });
    if (done) {
      setCurrent("");
      setNext("");
      setAgain("");
      toast(others ? "Password changed; your other sessions ended." : "Password changed.");
    }
  };
  return (
    <section class="section">
      <h2>Password</h2>
      <form class="stack narrow" onSubmit={submit}>
        <TextField label="Current password" type="password" value={current} onValue={setCurrent} required autoComplete="current-password" id="pw-current" />
        <TextField
          label="New password"
          type="password"
          value={next}
          onValue={setNext}
          required
          minLength={8}
          autoComplete="new-password"
          hint="At least 8 characters."
          id="pw-new"
        />
        <TextField label="New password again" type="password" value={again} onValue={setAgain} required autoComplete="new-password" id="pw-again" />
        <Checkbox label="Sign out my other sessions" checked={others} onChange={setOthers} />
        {left > 0 ? (
          <div class="note note-warn" role="alert" data-testid="password-backoff">
            Too many attempts; try again in {left} {left === 1 ? "second" : "seconds"}.
          </div>
        ) : null}
        <ErrorNote error={act.error} />
        <div>
          <button type="submit" class="btn" disabled={act.busy || left > 0}>
            Change password
          </button>
        </div>
      </form>
    </section>
  );
}

type Flag = "needsInput" | "exited" | "crashed" | "nodeOffline";
const PREFS: [Flag, string][] = [
  ["needsInput", "One of my subshells needs input"],
  ["exited", "One of my subshells exits or its agent is done"],
  ["crashed", "One of my subshells crashes, its pane vanishes or its agent fails"],
  ["nodeOffline", "One of my nodes goes offline"],
];

/** The browser's own time zone, for new quiet hours. */
function ownTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

function NotificationsSection() {
  const [prefs, setPrefs] = useState<NotificationPrefs | null>(null);
  const [quiet, setQuiet] = useState({ on: false, from: "22:00", to: "07:00", timeZone: ownTimeZone() });
  const act = useAction();

  const shown = (p: NotificationPrefs) => {
    setPrefs(p);
    if (p.quietHours) setQuiet({ on: true, ...p.quietHours });
    else setQuiet((q) => ({ ...q, on: false }));
  };

  useEffect(() => {
    void act.run(async () => {
      shown(await api.GET("/api/notifications/preferences"));
      if (location.hash === "#notifications") document.getElementById("notifications")?.scrollIntoView();
    });
  }, []);

  const save = async (e: Event) => {
    e.preventDefault();
    if (!prefs) return;
    const body: NotificationPrefs = {
      needsInput: prefs.needsInput,
      exited: prefs.exited,
      crashed: prefs.crashed,
      nodeOffline: prefs.nodeOffline,
      quietHours: quiet.on ? { from: quiet.from, to: quiet.to, timeZone: quiet.timeZone.trim() } : null,
    };
    const r = await act.run(() => api.PUT("/api/notifications/preferences", { body }));
    if (r) {
      shown(r);
      toast("Notification settings saved.");
    }
  };

  return (
    <section class="section" id="notifications">
      <h2>Notifications</h2>
      <p class="muted">
        What the plane tells you about, in your <Link href="/notifications">inbox</Link> and on the devices below.
      </p>
      <ErrorNote error={act.error} />
      {prefs ? (
        <form class="stack" onSubmit={save}>
          <fieldset class="checks">
            <legend>Tell me when</legend>
            {PREFS.map(([key, label]) => (
              <Checkbox key={key} label={label} checked={prefs[key]} onChange={(v) => setPrefs({ ...prefs, [key]: v })} />
            ))}
          </fieldset>
          <p class="muted">
            You are told once a subshell has needed you for a few seconds, never while you have its terminal open, at most
            once every two minutes per subshell (the needs between are counted in the next one), and what you were told is
            marked read once the need is over. Mute one subshell from its page.
          </p>
          <fieldset class="checks">
            <legend>Quiet hours</legend>
            <Checkbox label="Keep my devices quiet during these hours (the inbox still gets everything)" checked={quiet.on} onChange={(v) => setQuiet({ ...quiet, on: v })} />
            {quiet.on ? (
              <div class="row-form">
                <TextField label="From" type="time" required value={quiet.from} onValue={(v) => setQuiet({ ...quiet, from: v })} />
                <TextField label="To" type="time" required value={quiet.to} onValue={(v) => setQuiet({ ...quiet, to: v })} />
                <TextField
                  label="Time zone"
                  required
                  maxLength={64}
                  hint="An IANA name, such as Europe/Berlin"
                  value={quiet.timeZone}
                  onValue={(v) => setQuiet({ ...quiet, timeZone: v })}
                />
              </div>
            ) : null}
          </fieldset>
          <div>
            <button type="submit" class="btn" disabled={act.busy}>
              Save notification settings
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}

function PushSection() {
  const support = pushSupport();
  const [devices, setDevices] = useState<Device[] | null>(null);
  const [mine, setMine] = useState<string | null>(null);
  const [name, setName] = useState(defaultDeviceName);
  const [permission, setPermission] = useState(() => (support === "ok" ? Notification.permission : "default"));
  const act = useAction();

  const load = async () => {
    const list = await api.GET("/api/devices");
    setDevices(list);
    setMine(await thisDevice(list));
  };
  useEffect(() => {
    void act.run(load);
  }, []);

  const turnOn = async (e: Event) => {
    e.preventDefault();
    const d = await act.run(() => subscribeThisBrowser(name.trim() || defaultDeviceName()));
    setPermission(Notification.permission);
    // A refusal by the browser is explained by the note above the form.
    if (Notification.permission === "denied") act.setError(null);
    if (d) {
      toast(`This browser now receives notifications as “${d.name}”.`);
      await act.run(load);
    }
  };

  const remove = async (d: Device) => {
    const self = d.id === mine;
    const ok = await confirmAction(
      `Remove ${d.name}?`,
      self ? "This browser stops receiving push notifications." : "That device stops receiving push notifications.",
      "Remove",
    );
    if (!ok) return;
    await act.run(() => removeDevice(d.id));
    await act.run(load);
  };

  let here;
  if (support === "insecure") {
    here = (
      <Note tone="muted">
        Push notifications need a secure address: open this plane over https:// (or at localhost on this computer). The inbox
        works either way.
      </Note>
    );
  } else if (support === "unsupported") {
    here = <Note tone="muted">This browser cannot receive push notifications (it has no Push API). The inbox works either way.</Note>;
  } else if (mine) {
    here = (
      <p>
        This browser receives push notifications as <strong>{devices?.find((d) => d.id === mine)?.name}</strong>.
      </p>
    );
  } else {
    here = (
      <>
        {permission === "denied" ? (
          <Note tone="warn">Notifications are blocked for this site. Allow them in the browser's site settings, then turn them on here.</Note>
        ) : null}
        <form class="row-form" onSubmit={turnOn}>
          <TextField label="Name of this device" value={name} onValue={setName} required maxLength={64} id="push-name" />
          <button type="submit" class="btn btn-primary" disabled={act.busy}>
            Turn on for this browser
          </button>
        </form>
      </>
    );
  }

  return (
    <section class="section" id="push">
      <h2>Push notifications</h2>
      <p class="muted">The same notifications, shown by this browser or phone even when no page of this plane is open.</p>
      {here}
      <ErrorNote error={act.error} />
      <h3>Your devices</h3>
      {devices && devices.length === 0 ? <Empty>No device receives push notifications.</Empty> : null}
      {devices && devices.length ? (
        <Table
          testId="devices"
          rows={devices}
          rowKey={(d) => d.id}
          columns={[
            {
              label: "Name",
              cell: (d) => (
                <>
                  {d.name}
                  {d.id === mine ? <span class="muted"> (this browser)</span> : null}
                </>
              ),
            },
            { label: "Push service", class: "mono truncate", attrs: (d) => ({ title: d.pushService }), cell: (d) => d.pushService },
            { label: "Added", cell: (d) => <Time ms={d.createdAt} /> },
            {
              label: "Last delivery",
              cell: (d) =>
                d.lastError ? (
                  <span class="badge badge-bad" title={d.lastError}>
                    <span aria-hidden="true">✕</span> Failed: {d.lastError}
                  </span>
                ) : (
                  <Time ms={d.lastSentAt} />
                ),
            },
            {
              label: "Actions",
              actions: true,
              class: "row-actions",
              cell: (d) => (
                <button type="button" class="btn btn-small btn-danger" onClick={() => remove(d)}>
                  Remove<span class="sr-only"> {d.name}</span>
                </button>
              ),
            },
          ]}
        />
      ) : null}
    </section>
  );
}
