// Settings: the dialog that renames an account.

import { useEffect, useState } from "preact/hooks";
import { api } from "../../api";
import type { User } from "../../types";
import { Dialog, ErrorNote, TextField, toast, useAction } from "../../ui";

export function RenameUserDialog({ user, onClose }: { user: User | null; onClose: (saved: boolean) => void }) {
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
