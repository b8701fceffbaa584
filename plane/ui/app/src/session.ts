// Who is signed in, whether the plane has had its first run, and the instance's name.

import { api, ApiError, onUnauthorized } from "./api";
import { createStore } from "./store";
import type { User, Whoami } from "./types";
import { showFailure } from "./ui";

export type SessionState =
  | { kind: "loading" }
  | { kind: "unreachable"; message: string }
  | { kind: "setup" }
  | { kind: "signed-out" }
  | { kind: "signed-in"; me: Whoami };

export const session = createStore<SessionState>({ kind: "loading" });
export const instanceName = createStore<string>("");

export async function loadInstanceName(): Promise<void> {
  try {
    const s = await api.GET("/api/settings/instance", { quiet401: true });
    instanceName.set(s.displayName);
  } catch {
    // The name is decoration: the header says "termplane" without it, and every page works.
  }
}

/** Reads the first-run state and the session; sets `session`. */
export async function boot(): Promise<void> {
  try {
    const status = await api.GET("/api/setup/status", { quiet401: true });
    void loadInstanceName();
    if (!status.setupDone) {
      session.set({ kind: "setup" });
      return;
    }
    await refreshSession();
  } catch (e) {
    session.set({ kind: "unreachable", message: e instanceof Error ? e.message : String(e) });
  }
}

export async function refreshSession(): Promise<void> {
  try {
    const me = await api.GET("/api/auth/session", { quiet401: true });
    session.set({ kind: "signed-in", me });
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) session.set({ kind: "signed-out" });
    else throw e;
  }
}

/** After a sign-in answered with the account: read the full session view. */
export async function signedIn(_user: User): Promise<void> {
  await refreshSession();
  void loadInstanceName();
}

export async function signOut(): Promise<void> {
  try {
    await api.POST("/api/auth/sign-out", { quiet401: true });
  } catch (e) {
    // A 401: the session had ended already. Anything else: it may still be open, so the page
    // stays signed in and says why.
    if (!(e instanceof ApiError && e.status === 401)) {
      showFailure("Signing out failed", e);
      return;
    }
  }
  session.set({ kind: "signed-out" });
}

onUnauthorized(() => {
  if (session.get().kind === "signed-in") session.set({ kind: "signed-out" });
});
