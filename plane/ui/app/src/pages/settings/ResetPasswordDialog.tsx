// Settings: the dialog that sets another account's password.

import { useEffect, useState } from "preact/hooks";
import { api } from "../../api";
import type { User } from "../../types";
import { Dialog, ErrorNote, TextField, toast, useAction } from "../../ui";
import { explain } from "./explain";

export function ResetPasswordDialog({ user, onClose }: { user: User | null; onClose: () => void }) {
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
