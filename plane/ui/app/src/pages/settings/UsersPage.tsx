// Settings: the accounts, their roles, names and passwords.

import { useEffect, useState } from "preact/hooks";
import { api } from "../../api";
import { refreshSession, session } from "../../session";
import { useStore } from "../../store";
import { Table } from "../../table";
import type { User } from "../../types";
import { Badge, confirmAction, ErrorNote, PageHead, toast, useAction } from "../../ui";
import { CreateUserDialog } from "./CreateUserDialog";
import { explain } from "./explain";
import { RenameUserDialog } from "./RenameUserDialog";
import { ResetPasswordDialog } from "./ResetPasswordDialog";
import { Tabs } from "./Tabs";

const ROLE_NAMES: Record<string, string> = { admin: "Administrator", user: "User", service: "Service (system keys)" };

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
          <Table
            testId="users"
            rows={users}
            rowKey={(u) => u.id}
            rowAttrs={(u) => ({ "data-email": u.email, "data-role": u.role })}
            columns={[
              {
                label: "Name",
                cell: (u) => (
                  <>
                    {u.displayName}
                    {u.id === meId ? <span class="muted"> (you)</span> : null}
                  </>
                ),
              },
              { label: "Email", cell: (u) => u.email },
              { label: "Role", cell: (u) => ROLE_NAMES[u.role] ?? u.role },
              {
                label: "State",
                cell: (u) =>
                  u.disabled ? (
                    <Badge tone="muted">
                      <span aria-hidden="true">○</span> Disabled
                    </Badge>
                  ) : (
                    <Badge tone="ok">
                      <span aria-hidden="true">●</span> Active
                    </Badge>
                  ),
              },
              {
                label: "Actions",
                actions: true,
                class: "row-actions",
                cell: (u) =>
                  u.role !== "service" ? (
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
                  ) : null,
              },
            ]}
          />
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
