// Shared pieces of the interface: badges, fields, copy buttons, dialogs, notices.

import type { ComponentChildren, LooseInputHTMLAttributes } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { ApiError, errorText } from "./api";
import { createStore, useStore } from "./store";
import type { AgentStatus, SubshellStatus } from "./types";

// ----- status badges (text and a glyph, never colour alone) -----

const STATUS: Record<SubshellStatus, { label: string; tone: string; glyph: string }> = {
  starting: { label: "Starting", tone: "info", glyph: "◌" },
  running: { label: "Running", tone: "ok", glyph: "●" },
  needs_attention: { label: "Needs attention", tone: "warn", glyph: "▲" },
  node_unreachable: { label: "Node unreachable", tone: "warn", glyph: "⚠" },
  stopping: { label: "Stopping", tone: "info", glyph: "◌" },
  stopped: { label: "Stopped", tone: "muted", glyph: "■" },
  exited: { label: "Exited", tone: "muted", glyph: "○" },
  crashed: { label: "Crashed", tone: "bad", glyph: "✕" },
  failed: { label: "Failed", tone: "bad", glyph: "✕" },
};

export function StatusBadge({ status }: { status: SubshellStatus }) {
  const s = STATUS[status] ?? { label: status, tone: "muted", glyph: "•" };
  return (
    <span class={`badge badge-${s.tone}`} data-status={status}>
      <span aria-hidden="true">{s.glyph}</span> {s.label}
    </span>
  );
}

const AGENT: Record<AgentStatus["state"], { label: string; tone: string; glyph: string }> = {
  starting: { label: "Starting", tone: "info", glyph: "◌" },
  working: { label: "Working", tone: "ok", glyph: "⋯" },
  idle: { label: "Idle", tone: "muted", glyph: "○" },
  needs_input: { label: "Needs you", tone: "warn", glyph: "▲" },
  done: { label: "Done", tone: "ok", glyph: "✓" },
  error: { label: "Error", tone: "bad", glyph: "✕" },
  unknown: { label: "Unknown", tone: "muted", glyph: "?" },
};

const SOURCE: Record<AgentStatus["source"], string> = {
  lifecycle: "the pane's lifecycle",
  hook: "the harness's hook",
  self_report: "the agent's own report",
  screen: "the pane's screen",
  none: "no signal yet",
};

/** What the agent in a pane is doing: its state, with its summary beside it and a link when it
 * gave one (http or https only, as the plane accepts). */
export function AgentBadge({ agent }: { agent: AgentStatus }) {
  const a = AGENT[agent.state] ?? { label: agent.state, tone: "muted", glyph: "•" };
  const title = `${a.label} since ${new Date(agent.since).toLocaleString()}, from ${SOURCE[agent.source] ?? agent.source}`;
  return (
    <span class="agent-state" data-agent-state={agent.state}>
      <span class={`badge badge-${a.tone}`} title={title}>
        <span aria-hidden="true">{a.glyph}</span> {a.label}
      </span>
      {agent.summary ? (
        <span class="agent-summary truncate" title={agent.summary}>
          {" "}
          {agent.summary}
        </span>
      ) : null}
      {agent.link && /^https?:\/\//i.test(agent.link) ? (
        <>
          {" "}
          <a href={agent.link} target="_blank" rel="noopener noreferrer">
            link
          </a>
        </>
      ) : null}
    </span>
  );
}

export function statusLabel(status: SubshellStatus): string {
  return STATUS[status]?.label ?? status;
}

export function Badge({ tone, children, title }: { tone: string; children: ComponentChildren; title?: string }) {
  return (
    <span class={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

// ----- form fields -----

export function Field({
  label,
  hint,
  children,
  id,
}: {
  label: string;
  hint?: ComponentChildren;
  id: string;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint ? (
        <div class="hint" id={`${id}-hint`}>
          {hint}
        </div>
      ) : null}
    </div>
  );
}

type InputProps = Omit<LooseInputHTMLAttributes<HTMLInputElement>, "value"> & {
  label: string;
  hint?: ComponentChildren;
  value: string;
  onValue: (v: string) => void;
};

export function TextField({ label, hint, value, onValue, id, ...rest }: InputProps) {
  const auto = useId();
  const fid = (id as string | undefined) ?? `f${auto}`;
  return (
    <Field label={label} hint={hint} id={fid}>
      <input
        id={fid}
        value={value}
        aria-describedby={hint ? `${fid}-hint` : undefined}
        onInput={(e) => onValue((e.currentTarget as HTMLInputElement).value)}
        {...(rest as Record<string, never>)}
      />
    </Field>
  );
}

export function Checkbox({
  label,
  checked,
  onChange,
  disabled,
}: {
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  disabled?: boolean;
}) {
  return (
    <label class="check">
      <input
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      <span>{label}</span>
    </label>
  );
}

// ----- text with inline code -----

/** Text whose `backticked` parts are code (the plane's descriptions are written that way): the
 * parts show as inline code, without the backticks. An unpaired backtick stays as it is. */
export function CodeText({ text }: { text: string }) {
  const parts = text.split("`");
  if (parts.length < 3) return <>{text}</>;
  // An even count of parts means one backtick has no partner: it and what follows stay text.
  const paired = parts.length % 2 === 1 ? parts : [...parts.slice(0, -2), `${parts[parts.length - 2]}\`${parts[parts.length - 1]}`];
  return (
    <>
      {paired.map((p, i) =>
        i % 2 === 1 ? (
          <code key={i} class="code-inline">
            {p}
          </code>
        ) : (
          p
        ),
      )}
    </>
  );
}

// ----- notices -----

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div class="note note-bad" role="alert">
      {errorText(error)}
    </div>
  );
}

export function Note({ tone = "info", children }: { tone?: string; children: ComponentChildren }) {
  return <div class={`note note-${tone}`}>{children}</div>;
}

interface Toast {
  id: number;
  text: string;
  tone: string;
  /** A failure's code (the plane's, or `NETWORK`), shown beside its message. */
  code?: string;
  /** What failed, for `clearFailure`; a failure under the same key replaces this one. */
  key?: string;
  /** Stays until dismissed (or cleared), with a button to dismiss it. */
  sticky?: boolean;
}
const toasts = createStore<Toast[]>([]);
let toastSeq = 0;

/** Shows a short message for a few seconds (or `ms`); answers its id, for `dismissToast`. */
export function toast(text: string, tone: "ok" | "bad" | "info" = "ok", ms?: number): number {
  const id = ++toastSeq;
  toasts.update((t) => [...t, { id, text, tone }]);
  window.setTimeout(() => dismissToast(id), ms ?? (tone === "bad" ? 8000 : 4000));
  return id;
}

/** Takes a message away before its time (what it said no longer holds). */
export function dismissToast(id: number): void {
  toasts.update((t) => (t.some((x) => x.id === id) ? t.filter((x) => x.id !== id) : t));
}

/** The keyed failures the person dismissed, as `key` → what was said: the same failure again
 * stays away until the work succeeds (`clearFailure`), since they have read it. */
const dismissedFailures = new Map<string, string>();

/**
 * Tells the person that `what` failed ("The node list could not be read"), with the error's
 * message and code, in an alert that stays until they dismiss it. Under a `key` (a refresh that
 * runs again by itself), the same failure again changes nothing (not even once dismissed),
 * another one replaces it, and `clearFailure(key)` takes it away once that work succeeds. A
 * cancelled request is no failure.
 */
export function showFailure(what: string, e: unknown, key?: string): void {
  if (e instanceof DOMException && e.name === "AbortError") return;
  const text = `${what}: ${errorText(e)}`;
  const code = e instanceof ApiError ? e.code : undefined;
  const said = `${text}\u0000${code ?? ""}`;
  if (key !== undefined && dismissedFailures.get(key) === said) return;
  toasts.update((list) => {
    const same = key === undefined ? undefined : list.find((t) => t.key === key);
    if (same && same.text === text && same.code === code) return list;
    const rest = key === undefined ? list : list.filter((t) => t.key !== key);
    const next: Toast = { id: ++toastSeq, text, tone: "bad", sticky: true };
    if (code !== undefined) next.code = code;
    if (key !== undefined) next.key = key;
    return [...rest, next];
  });
}

/** Takes away the failure shown under `key`: what failed has worked since. */
export function clearFailure(key: string): void {
  dismissedFailures.delete(key);
  toasts.update((t) => (t.some((x) => x.key === key) ? t.filter((x) => x.key !== key) : t));
}

/** The person closes a failure: under a key, the same failure is not shown again meanwhile. */
function dismissFailure(t: Toast): void {
  if (t.key !== undefined) dismissedFailures.set(t.key, `${t.text}\u0000${t.code ?? ""}`);
  dismissToast(t.id);
}

/** The modal dialogs open, the newest last: a modal dialog makes the rest of the page inert
 * (unseen by screen readers, deaf to clicks), so messages show in the newest one meanwhile. */
const openDialogs = createStore<number[]>([]);
let dialogSeq = 0;

/** The page's messages: in the page (`inDialog` false) while no modal dialog is open, else in
 * the newest dialog. */
export function Toasts({ inDialog = false }: { inDialog?: boolean }) {
  const list = useStore(toasts);
  const dialogs = useStore(openDialogs);
  if (!inDialog && dialogs.length) return null;
  return (
    <div class="toasts">
      <div class="toast-list" role="alert">
        {list
          .filter((t) => t.tone === "bad")
          .map((t) => (
            <div key={t.id} class="toast note-bad" data-testid="failure" data-code={t.code}>
              <span class="toast-text">
                {t.text}
                {t.code ? <span class="toast-code"> ({t.code})</span> : null}
              </span>
              {t.sticky ? (
                <button type="button" class="btn btn-ghost btn-small" aria-label="Dismiss this message" onClick={() => dismissFailure(t)}>
                  ✕
                </button>
              ) : null}
            </div>
          ))}
      </div>
      <div class="toast-list" role="status" aria-live="polite">
        {list
          .filter((t) => t.tone !== "bad")
          .map((t) => (
            <div key={t.id} class={`toast note-${t.tone}`}>
              {t.text}
            </div>
          ))}
      </div>
    </div>
  );
}

// ----- copy -----

async function writeClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Without the asynchronous clipboard (an insecure origin, say), copy a selection.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

export { writeClipboard };

export function CopyButton({ text, label = "Copy", what }: { text: string; label?: string; what?: string }) {
  const [done, setDone] = useState<"" | "ok" | "bad">("");
  return (
    <button
      type="button"
      class="btn btn-small"
      onClick={async () => {
        const ok = await writeClipboard(text);
        setDone(ok ? "ok" : "bad");
        window.setTimeout(() => setDone(""), 2000);
      }}
    >
      {done === "ok" ? "Copied" : done === "bad" ? "Select and copy" : label}
      {what ? <span class="sr-only"> {what}</span> : null}
    </button>
  );
}

/** A value shown once (a new key, a command) with a copy button. */
export function SecretBox({ label, value, testId }: { label: string; value: string; testId?: string }) {
  const id = useId();
  return (
    <div class="secret">
      <label for={`s${id}`}>{label}</label>
      <div class="secret-row">
        <input
          id={`s${id}`}
          class="mono"
          readOnly
          value={value}
          data-testid={testId}
          onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
        />
        <CopyButton text={value} what={label} />
      </div>
    </div>
  );
}

export function CodeBlock({ label, code, testId }: { label: string; code: string; testId?: string }) {
  return (
    <figure class="code">
      <figcaption>
        <span>{label}</span>
        <CopyButton text={code} what={label} />
      </figcaption>
      <pre tabIndex={0} aria-label={label}>
        <code data-testid={testId}>{code}</code>
      </pre>
    </figure>
  );
}

// ----- dialogs -----

export function Dialog({
  title,
  open,
  onClose,
  children,
  wide,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [seq] = useState(() => ++dialogSeq);
  const dialogs = useStore(openDialogs);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  useEffect(() => {
    if (!open) return;
    openDialogs.update((list) => [...list, seq]);
    return () => openDialogs.update((list) => list.filter((x) => x !== seq));
  }, [open]);
  return (
    <dialog
      ref={ref}
      class={wide ? "dialog dialog-wide" : "dialog"}
      aria-labelledby={`d${titleId}`}
      onClose={() => open && onClose()}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {open ? (
        <div class="dialog-body">
          <header class="dialog-head">
            <h2 id={`d${titleId}`}>{title}</h2>
            <button type="button" class="btn btn-ghost btn-small" onClick={onClose} aria-label="Close dialog">
              ✕
            </button>
          </header>
          {children}
        </div>
      ) : null}
      {open && dialogs[dialogs.length - 1] === seq ? <Toasts inDialog /> : null}
    </dialog>
  );
}

interface Confirm {
  title: string;
  body: string;
  action: string;
  danger: boolean;
  resolve: (ok: boolean) => void;
}
const confirmState = createStore<Confirm | null>(null);

/** Asks a yes/no question in a dialog. */
export function confirmAction(title: string, body: string, action = "Confirm", danger = true): Promise<boolean> {
  return new Promise((resolve) => {
    confirmState.get()?.resolve(false);
    confirmState.set({ title, body, action, danger, resolve });
  });
}

export function ConfirmHost() {
  const c = useStore(confirmState);
  const close = (ok: boolean) => {
    c?.resolve(ok);
    confirmState.set(null);
  };
  return (
    <Dialog title={c?.title ?? ""} open={!!c} onClose={() => close(false)}>
      <p>{c?.body}</p>
      <div class="actions">
        <button type="button" class="btn" onClick={() => close(false)}>
          Cancel
        </button>
        <button type="button" class={c?.danger ? "btn btn-danger" : "btn btn-primary"} onClick={() => close(true)}>
          {c?.action}
        </button>
      </div>
    </Dialog>
  );
}

// ----- time -----

export function when(ms: number | null | undefined): string {
  if (!ms) return "—";
  const d = new Date(ms);
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function ago(ms: number | null | undefined, now = Date.now()): string {
  if (!ms) return "never";
  const s = Math.round((now - ms) / 1000);
  if (s < 0) {
    const f = -s;
    if (f < 3600) return `in ${Math.max(1, Math.round(f / 60))} min`;
    return `in ${Math.round(f / 3600)} h`;
  }
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/** A size in bytes, in binary units. */
export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1048576).toFixed(1)} MiB`;
  return `${(n / 1073741824).toFixed(2)} GiB`;
}

export function Time({ ms }: { ms: number | null | undefined }) {
  if (!ms) return <span>—</span>;
  return (
    <time dateTime={new Date(ms).toISOString()} title={when(ms)}>
      {ago(ms)}
    </time>
  );
}

/** Runs an action with a busy flag and an error slot. */
export function useAction(): {
  busy: boolean;
  error: unknown;
  setError: (e: unknown) => void;
  run: <T>(fn: () => Promise<T>) => Promise<T | undefined>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async <T,>(fn: () => Promise<T>) => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

export function PageHead({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="page-head">
      <h1>{title}</h1>
      {children ? <div class="page-actions">{children}</div> : null}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}
