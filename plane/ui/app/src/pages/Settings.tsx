// Administration: system keys, accounts, the audit log, instance-wide settings, and the
// plane's status and deployment.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ApiError } from "../api";
import { Link, useRoute } from "../router";
import { loadInstanceName, refreshSession, session } from "../session";
import { useStore } from "../store";
import type {
  ActorKind,
  AdminStatus,
  AuditEntry,
  AuditQuery,
  Deployment,
  HarnessId,
  Plugin,
  SystemKey,
  SystemKeyCreated,
  TrustedOrigins,
  User,
} from "../types";
import {
  Badge,
  bytesText,
  CodeText,
  confirmAction,
  CopyButton,
  Dialog,
  Empty,
  ErrorNote,
  Note,
  PageHead,
  SecretBox,
  Time,
  TextField,
  toast,
  useAction,
  when,
} from "../ui";

const TABS = [
  ["/settings/general", "General"],
  ["/settings/keys", "API keys"],
  ["/settings/users", "Users"],
  ["/settings/audit", "Audit log"],
  ["/settings/status", "Status"],
] as const;

function Tabs() {
  const { path } = useRoute();
  return (
    <nav class="tabs" aria-label="Settings sections">
      {TABS.map(([href, label]) => (
        <Link key={href} href={href} class={path === href ? "tab tab-on" : "tab"} aria-current={path === href ? "page" : undefined}>
          {label}
        </Link>
      ))}
    </nav>
  );
}

// ----- system keys -----

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
          <table class="table responsive" data-testid="system-keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <td data-label="Name">{k.name}</td>
                  <td data-label="Key" class="mono">
                    {k.preview}
                  </td>
                  <td data-label="State">
                    {k.enabled ? (
                      <Badge tone="ok">
                        <span aria-hidden="true">●</span> Enabled
                      </Badge>
                    ) : (
                      <Badge tone="muted">
                        <span aria-hidden="true">○</span> Disabled
                      </Badge>
                    )}
                  </td>
                  <td data-label="Created">
                    <Time ms={k.createdAt} />
                  </td>
                  <td data-label="" class="row-actions">
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
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
    </div>
  );
}

// ----- users -----

const ROLE_NAMES: Record<string, string> = { admin: "Administrator", user: "User", service: "Service (system keys)" };

/** The plane's refusals about accounts, explained for the account `u`. */
function explain(e: unknown, u: User): unknown {
  if (!(e instanceof ApiError)) return e;
  const again = (text: string) => e.withMessage(text);
  switch (e.code) {
    case "LAST_ADMIN":
      return again(
        `${u.displayName} is the last enabled administrator, and the plane always keeps one. Make another account an administrator first.`,
      );
    case "CANNOT_DISABLE_SELF":
      return again("You cannot do this to your own account; another administrator can. Your own password changes on the Account page.");
    case "USER_HAS_LIVE_SUBSHELLS": {
      const live = Number(e.metadata?.["live"] ?? 0);
      const listed = e.metadata?.["subshells"];
      const names = Array.isArray(listed)
        ? listed.map((s) => (s as { name?: unknown } | null)?.name).filter((n): n is string => typeof n === "string" && n !== "")
        : [];
      const what = live === 1 ? "1 live subshell" : `${live} live subshells`;
      const which = names.length > 0 ? ` (${names.join(", ")})` : "";
      return again(`${u.displayName} has ${what}${which}. Terminate ${live === 1 ? "it" : "them"} under Subshells first, then delete the account.`);
    }
    default:
      return e;
  }
}

/** Closes the actions menu a button sits in. */
function closeMenu(e: Event): void {
  (e.currentTarget as HTMLElement).closest("details")?.removeAttribute("open");
}

export function UsersPage() {
  const [users, setUsers] = useState<User[] | null>(null);
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<User | null>(null);
  const [resetting, setResetting] = useState<User | null>(null);
  const s = useStore(session);
  const meId = s.kind === "signed-in" ? s.me.id : "";
  const act = useAction();
  const load = async () => setUsers(await api.GET("/api/users"));
  useEffect(() => {
    void act.run(load);
  }, []);

  const setRole = async (u: User, role: "admin" | "user") => {
    const self = u.id === meId;
    const ok =
      role === "admin"
        ? await confirmAction(
            `Make ${u.displayName} an administrator?`,
            "Administrators manage accounts, system keys and the plane's settings, and see every account's subshells and nodes.",
            "Make administrator",
            false,
          )
        : await confirmAction(
            self ? "Give up your administrator role?" : `Make ${u.displayName} a regular user?`,
            self
              ? "You lose Settings at once; only another administrator can give the role back."
              : "They lose Settings and other accounts' subshells; their own subshells, nodes and files stay theirs.",
            "Make regular user",
          );
    if (!ok) return;
    const r = await act.run(() => api.PATCH("/api/users/{id}", { params: { path: { id: u.id } }, body: { role } }).catch((e: unknown) => Promise.reject(explain(e, u))));
    if (!r) return;
    toast(role === "admin" ? `${r.displayName} is now an administrator.` : `${r.displayName} is now a regular user.`);
    if (self) await refreshSession();
    else await act.run(load);
  };

  const remove = async (u: User) => {
    const ok = await confirmAction(
      `Delete ${u.displayName}?`,
      "Their sessions, passkeys, presets, workspaces and shares are removed. Stop their running subshells first.",
      "Delete account",
    );
    if (!ok) return;
    const done = await act.run(async () => {
      await api.DELETE("/api/users/{id}", { params: { path: { id: u.id } } }).catch((e: unknown) => Promise.reject(explain(e, u)));
      return true;
    });
    if (done) {
      toast(`${u.displayName} deleted.`);
      await act.run(load);
    }
  };

  return (
    <div class="page">
      <PageHead title="Settings" />
      <Tabs />
      <section class="section">
        <div class="section-head">
          <h2>Users</h2>
          <button type="button" class="btn btn-primary" onClick={() => setCreating(true)}>
            Add user
          </button>
        </div>
        <ErrorNote error={act.error} />
        {users ? (
          <table class="table responsive" data-testid="users">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr key={u.id} data-email={u.email} data-role={u.role}>
                  <td data-label="Name">
                    {u.displayName}
                    {u.id === meId ? <span class="muted"> (you)</span> : null}
                  </td>
                  <td data-label="Email">{u.email}</td>
                  <td data-label="Role">{ROLE_NAMES[u.role] ?? u.role}</td>
                  <td data-label="State">
                    {u.disabled ? (
                      <Badge tone="muted">
                        <span aria-hidden="true">○</span> Disabled
                      </Badge>
                    ) : (
                      <Badge tone="ok">
                        <span aria-hidden="true">●</span> Active
                      </Badge>
                    )}
                  </td>
                  <td data-label="" class="row-actions">
                    {u.role !== "service" ? (
                      <details class="menu">
                        <summary class="btn btn-small" aria-label={`Actions for ${u.displayName}`}>
                          Actions
                        </summary>
                        <div class="menu-list">
                          <button
                            type="button"
                            class="btn btn-small"
                            onClick={(e) => {
                              closeMenu(e);
                              setRenaming(u);
                            }}
                          >
                            Rename…
                          </button>
                          <button
                            type="button"
                            class="btn btn-small"
                            onClick={(e) => {
                              closeMenu(e);
                              void setRole(u, u.role === "admin" ? "user" : "admin");
                            }}
                          >
                            {u.role === "admin" ? "Make regular user" : "Make administrator"}
                          </button>
                          {u.id !== meId ? (
                            <>
                              <button
                                type="button"
                                class="btn btn-small"
                                onClick={(e) => {
                                  closeMenu(e);
                                  setResetting(u);
                                }}
                              >
                                Set password…
                              </button>
                              <button
                                type="button"
                                class="btn btn-small"
                                onClick={async (e) => {
                                  closeMenu(e);
                                  if (
                                    !u.disabled &&
                                    !(await confirmAction(`Disable ${u.displayName}?`, "Their sessions end at once; they cannot sign in until enabled.", "Disable"))
                                  )
                                    return;
                                  await act.run(() => api.POST(u.disabled ? "/api/users/{id}/enable" : "/api/users/{id}/disable", { params: { path: { id: u.id } } }));
                                  await act.run(load);
                                }}
                              >
                                {u.disabled ? "Enable" : "Disable"}
                              </button>
                              <button
                                type="button"
                                class="btn btn-small btn-danger"
                                onClick={(e) => {
                                  closeMenu(e);
                                  void remove(u);
                                }}
                              >
                                Delete
                              </button>
                            </>
                          ) : null}
                        </div>
                      </details>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <p class="muted">
          The <span class="mono">system</span> account is what system keys act as; it cannot sign in. The plane always keeps one
          enabled administrator.
        </p>
      </section>
      <CreateUserDialog
        open={creating}
        onClose={(saved) => {
          setCreating(false);
          if (saved) void act.run(load);
        }}
      />
      <RenameUserDialog
        user={renaming}
        onClose={(saved) => {
          const self = renaming?.id === meId;
          setRenaming(null);
          if (saved) void act.run(load);
          if (saved && self) void refreshSession();
        }}
      />
      <ResetPasswordDialog user={resetting} onClose={() => setResetting(null)} />
    </div>
  );
}

function CreateUserDialog({ open, onClose }: { open: boolean; onClose: (saved: boolean) => void }) {
  const [email, setEmail] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<"user" | "admin">("user");
  const act = useAction();
  useEffect(() => {
    if (open) {
      setEmail("");
      setDisplayName("");
      setPassword("");
      setRole("user");
      act.setError(null);
    }
  }, [open]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const r = await act.run(() => api.POST("/api/users", { body: { email, displayName, password, role } }));
    if (r) {
      toast(`${r.displayName} can now sign in.`);
      onClose(true);
    }
  };
  return (
    <Dialog title="Add user" open={open} onClose={() => onClose(false)}>
      <form class="stack" onSubmit={submit}>
        <TextField label="Name" value={displayName} onValue={setDisplayName} required maxLength={100} id="nu-name" />
        <TextField label="Email" type="email" value={email} onValue={setEmail} required id="nu-email" autoComplete="off" />
        <TextField
          label="Initial password"
          type="password"
          value={password}
          onValue={setPassword}
          required
          minLength={8}
          autoComplete="new-password"
          hint="At least 8 characters; tell it to them by a safe channel."
          id="nu-password"
        />
        <RoleSelect id="nu-role" value={role} onChange={setRole} />
        <ErrorNote error={act.error} />
        <div class="actions">
          <button type="button" class="btn" onClick={() => onClose(false)}>
            Cancel
          </button>
          <button type="submit" class="btn btn-primary" disabled={act.busy}>
            Create
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RoleSelect({ id, value, onChange }: { id: string; value: "user" | "admin"; onChange: (r: "user" | "admin") => void }) {
  return (
    <div class="field">
      <label for={id}>Role</label>
      <select id={id} value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value as "user" | "admin")}>
        <option value="user">User</option>
        <option value="admin">Administrator</option>
      </select>
    </div>
  );
}

function RenameUserDialog({ user, onClose }: { user: User | null; onClose: (saved: boolean) => void }) {
  const [displayName, setDisplayName] = useState("");
  const act = useAction();
  useEffect(() => {
    if (!user) return;
    setDisplayName(user.displayName);
    act.setError(null);
  }, [user]);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!user) return;
    const name = displayName.trim();
    if (name === user.displayName) {
      onClose(false);
      return;
    }
    const r = await act.run(() => api.PATCH("/api/users/{id}", { params: { path: { id: user.id } }, body: { displayName: name } }));
    if (r) {
      toast(`Renamed to ${r.displayName}.`);
      onClose(true);
    }
  };
  return (
    <Dialog title={`Rename ${user?.displayName ?? ""}`} open={!!user} onClose={() => onClose(false)}>
      <form class="stack" onSubmit={submit}>
        <TextField label="Name" value={displayName} onValue={setDisplayName} required maxLength={100} id="eu-name" />
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

function ResetPasswordDialog({ user, onClose }: { user: User | null; onClose: () => void }) {
  const [password, setPassword] = useState("");
  const act = useAction();
  useEffect(() => {
    setPassword("");
    act.setError(null);
  }, [user]);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!user) return;
    const done = await act.run(async () => {
      await api
        .POST("/api/users/{id}/password", { params: { path: { id: user.id } }, body: { newPassword: password } })
        .catch((err: unknown) => Promise.reject(explain(err, user)));
      return true;
    });
    if (done) {
      toast(`New password set for ${user.displayName}; their sessions ended.`);
      onClose();
    }
  };
  return (
    <Dialog title={`Set a password for ${user?.displayName ?? ""}`} open={!!user} onClose={onClose}>
      <form class="stack" onSubmit={submit}>
        <TextField
          label="New password"
          type="password"
          value={password}
          onValue={setPassword}
          required
          minLength={8}
          autoComplete="new-password"
          hint="At least 8 characters. Every session of the account ends."
          id="rp-password"
        />
        <ErrorNote error={act.error} />
        <div class="actions">
          <button type="button" class="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="btn btn-primary" disabled={act.busy}>
            Set password
          </button>
        </div>
      </form>
    </Dialog>
  );
}

// ----- audit -----

const PAGE = 50;
const ACTOR_NAMES: Record<string, string> = {
  cookie: "person",
  system_key: "system key",
  setup_key: "setup key",
  pane: "pane",
  plane: "plane",
};

export function AuditPage() {
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [users, setUsers] = useState<User[]>([]);
  const [actor, setActor] = useState("");
  const [actorKind, setActorKind] = useState("");
  const [action, setAction] = useState("");
  const [target, setTarget] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  // Cursors of the pages seen so far (`before` of each), for going back to newer ones.
  const [cursors, setCursors] = useState<(number | null)[]>([null]);
  const [more, setMore] = useState(false);
  // Open at first on wide screens; closed on phones, where the filters would fill the screen.
  const [filtersOpen] = useState(() => !window.matchMedia("(max-width: 600px)").matches);
  const act = useAction();

  const current = { actor, actorKind, action, target, from, to };
  type Filters = typeof current;
  const fetchPage = async (before: number | null, f: Filters = current) => {
    const query: AuditQuery = { limit: PAGE + 1 };
    if (f.actor) query.actor = f.actor;
    if (f.actorKind) query.actorKind = f.actorKind as ActorKind;
    if (f.action.trim()) query.action = f.action.trim();
    if (f.target.trim()) query.target = f.target.trim();
    if (f.from) query.from = new Date(f.from).getTime();
    if (f.to) query.to = new Date(f.to).getTime();
    if (before !== null) query.before = before;
    const list = await api.GET("/api/audit", { params: { query } });
    setMore(list.length > PAGE);
    setEntries(list.slice(0, PAGE));
  };

  const search = async (f: Filters = current) => {
    setCursors([null]);
    await act.run(() => fetchPage(null, f));
  };

  useEffect(() => {
    void act.run(async () => {
      setUsers(await api.GET("/api/users"));
      await fetchPage(null);
    });
  }, []);

  const names = useMemo(() => new Map(users.map((u) => [u.id, u.displayName])), [users]);
  const page = cursors.length - 1;

  return (
    <div class="page">
      <PageHead title="Settings" />
      <Tabs />
      <section class="section">
        <h2>Audit log</h2>
        <details class="filter-box" open={filtersOpen}>
          <summary>Filters</summary>
        <form
          class="filters"
          aria-label="Audit filters"
          onSubmit={(e) => {
            e.preventDefault();
            void search();
          }}
        >
          <div class="field field-inline">
            <label for="a-actor">Account</label>
            <select id="a-actor" value={actor} onChange={(e) => setActor((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">Anyone</option>
              {users.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.displayName}
                </option>
              ))}
            </select>
          </div>
          <div class="field field-inline">
            <label for="a-kind">Actor kind</label>
            <select id="a-kind" value={actorKind} onChange={(e) => setActorKind((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">Any</option>
              {Object.entries(ACTOR_NAMES).map(([k, v]) => (
                <option key={k} value={k}>
                  {v}
                </option>
              ))}
            </select>
          </div>
          <div class="field field-inline">
            <label for="a-action">Action</label>
            <input id="a-action" value={action} placeholder="node. or node.enrolled" onInput={(e) => setAction((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <div class="field field-inline">
            <label for="a-target">Target id</label>
            <input id="a-target" class="mono" value={target} onInput={(e) => setTarget((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <div class="field field-inline">
            <label for="a-from">From</label>
            <input id="a-from" type="datetime-local" value={from} onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <div class="field field-inline">
            <label for="a-to">To</label>
            <input id="a-to" type="datetime-local" value={to} onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <div class="inline">
            <button type="submit" class="btn btn-primary" disabled={act.busy}>
              Search
            </button>
            <button
              type="button"
              class="btn"
              onClick={() => {
                setActor("");
                setActorKind("");
                setAction("");
                setTarget("");
                setFrom("");
                setTo("");
                void search({ actor: "", actorKind: "", action: "", target: "", from: "", to: "" });
              }}
            >
              Clear
            </button>
          </div>
        </form>
        </details>
        <ErrorNote error={act.error} />
        {entries && entries.length === 0 ? <Empty>No entries.</Empty> : null}
        {entries && entries.length ? (
          <table class="table responsive" data-testid="audit">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Actor</th>
                <th scope="col">Target</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id}>
                  <td data-label="When" title={when(e.at)}>
                    <Time ms={e.at} />
                  </td>
                  <td data-label="Action" class="mono">
                    <button type="button" class="linkish mono" title="Show only this action" onClick={() => {
                        setAction(e.action);
                        void search({ ...current, action: e.action });
                      }}>
                      {e.action}
                    </button>
                  </td>
                  <td data-label="Actor">
                    {e.actorUserId ? names.get(e.actorUserId) ?? e.actorUserId.slice(0, 8) : "—"}{" "}
                    <span class="muted">({ACTOR_NAMES[e.actorKind] ?? e.actorKind})</span>
                  </td>
                  <td data-label="Target" class="mono truncate" title={e.target ?? ""}>
                    {e.target ?? "—"}
                  </td>
                  <td data-label="Detail" class="mono small truncate" title={JSON.stringify(e.detail)}>
                    {e.detail && Object.keys(e.detail as object).length ? JSON.stringify(e.detail) : "—"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <nav class="pager" aria-label="Audit pages">
          <button
            type="button"
            class="btn btn-small"
            disabled={page === 0 || act.busy}
            onClick={() => {
              const next = cursors.slice(0, -1);
              setCursors(next);
              void act.run(() => fetchPage(next[next.length - 1] ?? null));
            }}
          >
            Newer
          </button>
          <span>Page {page + 1}</span>
          <button
            type="button"
            class="btn btn-small"
            disabled={!more || act.busy || !entries?.length}
            onClick={() => {
              const last = entries?.[entries.length - 1];
              if (!last) return;
              setCursors([...cursors, last.id]);
              void act.run(() => fetchPage(last.id));
            }}
          >
            Older
          </button>
        </nav>
        <p class="muted small">Times are in this browser's time zone.</p>
      </section>
    </div>
  );

}

// ----- general -----

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

// ----- status -----

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
            <table class="table responsive" data-testid="node-downloads">
              <thead>
                <tr>
                  <th scope="col">Platform</th>
                  <th scope="col">Size</th>
                  <th scope="col">SHA-256</th>
                  <th scope="col">
                    <span class="sr-only">Download</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {deployment.nodeDownloads.map((d) => (
                  <tr key={d.platform}>
                    <td data-label="Platform" class="mono">
                      {d.platform}
                    </td>
                    <td data-label="Size">{bytesText(d.bytes)}</td>
                    <td data-label="SHA-256">
                      <span class="mono small hash">{d.sha256}</span> <CopyButton text={d.sha256} what={`SHA-256 of ${d.platform}`} />
                    </td>
                    <td data-label="" class="row-actions">
                      <a class="btn btn-small" href={d.url} download="termplane-node">
                        Download<span class="sr-only"> {d.platform}</span>
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p class="muted">None: this plane has no node program to serve.</p>
          )}
        </section>
      ) : null}
    </div>
  );
}
