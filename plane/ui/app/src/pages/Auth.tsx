// First run (create the administrator and name the instance) and sign-in (password or passkey).

import { useEffect, useState } from "preact/hooks";
import { api, ApiError, errorText } from "../api";
import { safeNext } from "../next";
import { navigate, useRoute } from "../router";
import { instanceName, loadInstanceName, signedIn } from "../session";
import { useStore } from "../store";
import type { SetupRequest } from "../types";
import { TextField } from "../ui";
import { passkeysSupported, signInWithPasskey } from "../webauthn";

function AuthCard({ title, children }: { title: string; children: preact.ComponentChildren }) {
  const name = useStore(instanceName);
  useEffect(() => {
    document.title = `${title} · ${name || "termplane"}`;
  }, [title, name]);
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <div class="brand brand-big">
          <span class="brand-mark" aria-hidden="true">
            ❯_
          </span>
          <span>{name || "termplane"}</span>
        </div>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** Goes where the person was going (`next`, when it is a page of this app), else to the list. */
function afterSignIn(next: string | null) {
  // The shell may have moved on already (it follows the session too): only leave the sign-in.
  if (location.pathname !== "/sign-in") return;
  navigate(safeNext(next), { replace: true });
}

export function SetupPage() {
  const [instance, setInstance] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [again, setAgain] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    if (password !== again) {
      setError("The two passwords differ.");
      return;
    }
    if (password.length < 8) {
      setError("The password needs at least 8 characters.");
      return;
    }
    setBusy(true);
    try {
      const body: SetupRequest = { email, displayName, password };
      if (instance.trim()) body.instanceName = instance.trim();
      let user = await api.POST("/api/setup", { body, quiet401: true });
      // The setup answer may sign the administrator in; when it did not (a 401), sign in now.
      const hasSession = await api.GET("/api/auth/session", { quiet401: true }).then(
        () => true,
        (e: unknown) => {
          if (e instanceof ApiError && e.status === 401) return false;
          throw e;
        },
      );
      if (!hasSession) user = await api.POST("/api/auth/sign-in", { body: { email, password }, quiet401: true });
      await signedIn(user);
      await loadInstanceName();
      navigate("/subshells", { replace: true });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthCard title="Set up this plane">
      <p class="muted">Create the administrator account. You can add more people later under Settings.</p>
      <form onSubmit={submit} class="stack">
        <TextField
          label="Instance name"
          hint="Shown in the header and the tab title (1 to 64 characters)."
          value={instance}
          onValue={setInstance}
          maxLength={64}
          autoComplete="off"
          id="setup-instance"
        />
        <TextField label="Your name" value={displayName} onValue={setDisplayName} required maxLength={100} autoComplete="name" id="setup-name" />
        <TextField label="Email" type="email" value={email} onValue={setEmail} required autoComplete="username" id="setup-email" />
        <TextField
          label="Password"
          type="password"
          value={password}
          onValue={setPassword}
          required
          minLength={8}
          autoComplete="new-password"
          hint="At least 8 characters."
          id="setup-password"
        />
        <TextField
          label="Password again"
          type="password"
          value={again}
          onValue={setAgain}
          required
          autoComplete="new-password"
          id="setup-password2"
        />
        {error ? (
          <div class="note note-bad" role="alert">
            {error}
          </div>
        ) : null}
        <button type="submit" class="btn btn-primary btn-block" disabled={busy}>
          {busy ? "Creating…" : "Create administrator"}
        </button>
      </form>
    </AuthCard>
  );
}

export function SignInPage() {
  const { query } = useRoute();
  const next = query.get("next");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [waitUntil, setWaitUntil] = useState(0);
  const [now, setNow] = useState(Date.now());

  useEffect(() => {
    if (waitUntil <= now) return;
    const t = window.setTimeout(() => setNow(Date.now()), 250);
    return () => window.clearTimeout(t);
  }, [waitUntil, now]);

  const left = Math.max(0, Math.ceil((waitUntil - now) / 1000));

  const fail = (err: unknown) => {
    if (err instanceof ApiError && err.status === 429) {
      const secs = err.retryAfter ?? 1;
      setWaitUntil(Date.now() + secs * 1000);
      setNow(Date.now());
      setError(null);
      return;
    }
    if (err instanceof ApiError && err.code === "INVALID_CREDENTIALS") setError("Wrong email or password.");
    else setError(errorText(err));
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (left > 0) return;
    setError(null);
    setBusy(true);
    try {
      const user = await api.POST("/api/auth/sign-in", { body: { email, password }, quiet401: true });
      await signedIn(user);
      afterSignIn(next);
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  const passkey = async () => {
    setError(null);
    if (!email) {
      setError("Enter your email first, then choose to sign in with a passkey.");
      return;
    }
    setBusy(true);
    try {
      const user = await signInWithPasskey(email);
      await signedIn(user);
      afterSignIn(next);
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthCard title="Sign in">
      <form onSubmit={submit} class="stack">
        <TextField label="Email" type="email" value={email} onValue={setEmail} required autoComplete="username webauthn" id="signin-email" />
        <TextField
          label="Password"
          type="password"
          value={password}
          onValue={setPassword}
          required
          autoComplete="current-password"
          id="signin-password"
        />
        {left > 0 ? (
          <div class="note note-warn" role="alert" data-testid="backoff">
            Too many attempts; try again in {left} {left === 1 ? "second" : "seconds"}.
          </div>
        ) : null}
        {error ? (
          <div class="note note-bad" role="alert">
            {error}
          </div>
        ) : null}
        <button type="submit" class="btn btn-primary btn-block" disabled={busy || left > 0}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        {passkeysSupported() ? (
          <button type="button" class="btn btn-block" disabled={busy || left > 0} onClick={passkey}>
            Sign in with a passkey
          </button>
        ) : null}
      </form>
    </AuthCard>
  );
}
