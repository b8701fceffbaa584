// The signed-in account: who it is, its passkeys, signing out.

import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../api";
import { session, signOut } from "../session";
import { useStore } from "../store";
import type { Passkey } from "../types";
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
      setPasskeys(await api.get<Passkey[]>("/api/auth/passkeys"));
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
                    await act.run(() => api.del(`/api/auth/passkeys/${encodeURIComponent(p.id)}`));
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
  const act = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (next !== again) {
      act.setError(new Error("The two new passwords differ."));
      return;
    }
    const done = await act.run(async () => {
      await api.post("/api/auth/password", { currentPassword: current, newPassword: next, signOutOthers: others });
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
        <ErrorNote error={act.error} />
        <div>
          <button type="submit" class="btn" disabled={act.busy}>
            Change password
          </button>
        </div>
      </form>
    </section>
  );
}
