// Recording settings an administrator sets for a node or a workspace: whether the panes
// launched there are recorded, and for how many days their recordings are kept.

import { useEffect, useId, useState } from "preact/hooks";
import { Checkbox, TextField } from "./ui";

/** The largest retention the plane takes (ten years). */
const MAX_DAYS = 3650;

/** "on, kept 30 days" — how a row's settings read in a table or a detail list. */
export function recordingText(on: boolean, days: number | null | undefined, inherits: string): string {
  if (!on) return "off: its panes are logged, not timed";
  return days ? `its panes are recorded, kept ${days} day${days === 1 ? "" : "s"}` : `its panes are recorded, kept ${inherits}`;
}

/**
 * The form: a checkbox, a number of days (empty: what `inherits` says), and Save. `onSave` gets
 * the settings to PUT whole; the form refuses a number of days out of range in words first.
 */
export function RecordingForm({
  on,
  days,
  inherits,
  busy,
  onSave,
}: {
  on: boolean;
  days: number | null | undefined;
  inherits: string;
  busy: boolean;
  onSave: (on: boolean, retentionDays: number | null) => Promise<void>;
}) {
  const id = useId();
  const [record, setRecord] = useState(on);
  const [text, setText] = useState(days ? String(days) : "");
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    setRecord(on);
    setText(days ? String(days) : "");
  }, [on, days]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const t = text.trim();
    const n = t === "" ? null : Number(t);
    if (n !== null && !(Number.isInteger(n) && n >= 1 && n <= MAX_DAYS)) {
      setProblem(`Write a whole number of days from 1 to ${MAX_DAYS}, or leave it empty.`);
      return;
    }
    setProblem(null);
    await onSave(record, n);
  };
  return (
    <form class="stack" onSubmit={submit} aria-label="Recording settings">
      <Checkbox label="Record its panes (from their next launch or restart)" checked={record} onChange={setRecord} />
      <TextField
        id={`keep-${id}`}
        label="Keep recordings for (days)"
        hint={`Empty: ${inherits}. What a pane printed longer ago is deleted from its recording, with the marks of who typed into it, within the hour; each deletion is in the audit log.`}
        value={text}
        onValue={setText}
        inputMode="numeric"
      />
      {problem ? (
        <div class="note note-bad" role="alert">
          {problem}
        </div>
      ) : null}
      <div class="actions actions-left">
        <button type="submit" class="btn" disabled={busy}>
          Save recording settings
        </button>
      </div>
    </form>
  );
}
