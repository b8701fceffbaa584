// Settings: the dialog that adds an account.

import { useEffect, useState } from "preact/hooks";
import { api } from "../../api";
import { Dialog, ErrorNote, TextField, toast, useAction } from "../../ui";

export function CreateUserDialog({ open, onClose }: { open: boolean; onClose: (saved: boolean) => void }) {
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
