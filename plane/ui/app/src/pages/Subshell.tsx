// One subshell: its live terminal, who else watches, its lifecycle actions and its shares.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ApiError, errorText } from "../api";
import { dropSubshell, nodes, putSubshell, subshells } from "../live";
import { navigate, Link } from "../router";
import { session } from "../session";
import { createStore, useStore } from "../store";
import { initialTermState, TerminalClient, type TermState } from "../terminal/client";
import { SizeNotice, UnusedArea } from "../terminal/sizing";
import { uploadFile, type UploadProgress } from "../terminal/upload";
import type { Share, Subshell, User } from "../types";
import { AgentBadge, confirmAction, Dialog, dismissToast, ErrorNote, Note, StatusBadge, toast, useAction } from "../ui";

const LIVE = ["starting", "running", "stopping"];

export function SubshellPage({ id }: { id: string }) {
  const all = useStore(subshells);
  const nodeList = useStore(nodes);
  const s = useStore(session);
  const me = s.kind === "signed-in" ? s.me : null;
  const [row, setRow] = useState<Subshell | null | undefined>(all[id]);
  const [watchOnly, setWatchOnly] = useState(false);
  const [shareOpen, setShareOpen] = useState(false);
  const [viewersOpen, setViewersOpen] = useState(false);
  const hostRef = useRef<HTMLDivElement>(null);
  const clientRef = useRef<TerminalClient | null>(null);
  const [client, setClient] = useState<TerminalClient | null>(null);
  const act = useAction();
  /** This page's own stop of the pane, to say who ended it. */
  const stoppedHere = useRef<"terminate" | "kill" | null>(null);
  /** The "Terminating…" message, taken away once the pane has stopped. */
  const stoppingToast = useRef<number | null>(null);

  // The feed keeps the row current once it is known.
  useEffect(() => {
    if (all[id]) setRow(all[id]);
  }, [all, id]);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const c = new TerminalClient(id, false, (r) => {
      if (r) {
        putSubshell(r);
        setRow(r);
      } else setRow(null);
    });
    clientRef.current = c;
    setClient(c);
    c.mount(host);
    const ro = new ResizeObserver(() => c.refit());
    ro.observe(host);
    const vv = window.visualViewport;
    const onVv = () => c.refit();
    vv?.addEventListener("resize", onVv);
    window.addEventListener("resize", onVv);
    c.focus();
    return () => {
      ro.disconnect();
      vv?.removeEventListener("resize", onVv);
      window.removeEventListener("resize", onVv);
      c.dispose();
      clientRef.current = null;
    };
  }, [id]);

  const t = useStore(client ? client.state : PLACEHOLDER);
  const node = nodeList.find((n) => n.nodeId === row?.nodeId);
  const live = row ? LIVE.includes(row.state) : false;
  const owner = !!(me && row && row.ownerUserId === me.id);
  const canShare = !!(me && row && (owner || me.isAdmin) && me.via === "session");
  // Restart, stop and delete are the owner's (and an administrator's): a share, read or
  // write, does not carry them, and the plane refuses them (as not found) to anyone else.
  const canManage = !!(me && row && (owner || me.isAdmin));
  // Notifications are the owner's: they mute a pane of theirs from a browser session.
  const canMute = owner && me?.via === "session";
  const [muted, setMuted] = useState<boolean | null>(null);
  useEffect(() => {
    if (!canMute) return;
    void act.run(async () => {
      const mutes = await api.GET("/api/notifications/mutes");
      setMuted(mutes.some((m) => m.subshellId === id));
    });
  }, [id, canMute]);
  const toggleMute = async () => {
    const path = { params: { path: { id } } };
    const done = await act.run(async () => {
      if (muted) await api.DELETE("/api/notifications/mutes/{id}", path);
      else await api.PUT("/api/notifications/mutes/{id}", { ...path, body: {} });
      return true;
    });
    if (done) {
      setMuted(!muted);
      toast(muted ? "Notifications of this subshell are on again." : "Notifications of this subshell are muted.");
    }
  };

  // Restarted elsewhere (or here): a live row while the socket has ended means reconnect.
  useEffect(() => {
    if (client && row && LIVE.includes(row.state) && t.conn === "ended" && !t.gone) {
      client.reopen();
    }
  }, [row?.state, row?.startedAt]);

  useEffect(() => {
    document.title = `${row?.name ?? "Subshell"} · termplane`;
  }, [row?.name]);

  const lifecycle = async (what: "restart" | "terminate" | "kill") => {
    if (what !== "restart") {
      const ok = await confirmAction(
        what === "terminate" ? "Terminate this subshell?" : "Kill this subshell?",
        what === "terminate"
          ? "Ctrl-C is typed and the pane is killed when the grace period ends. Its token stops working now."
          : "The pane is killed at once and its token revoked.",
        what === "terminate" ? "Terminate" : "Kill",
      );
      if (!ok) return;
    }
    // A terminate answers once the pane has stopped (its grace may take seconds): say so while
    // it runs, and no longer once the pane is no longer live.
    const endStopping = () => {
      if (stoppingToast.current !== null) dismissToast(stoppingToast.current);
      stoppingToast.current = null;
    };
    stoppedHere.current = what === "restart" ? null : what;
    if (what === "terminate") {
      endStopping();
      stoppingToast.current = toast("Terminating…", "info", 60_000);
    }
    const r = await act.run(() => api.POST(`/api/subshells/{id}/${what}`, { params: { path: { id } } }));
    if (!r) {
      endStopping();
      stoppedHere.current = null;
      return;
    }
    putSubshell(r);
    setRow(r);
    if (!LIVE.includes(r.state)) endStopping();
    if (what !== "terminate") toast(what === "restart" ? "Restarted." : "Killed.");
    if (what === "restart") client?.reopen();
  };

  useEffect(() => {
    if (!row) return;
    if (!LIVE.includes(row.state) && stoppingToast.current !== null) {
      dismissToast(stoppingToast.current);
      stoppingToast.current = null;
    }
    // Running again (restarted, here or elsewhere): a later stop is told afresh.
    if (row.state === "starting" || row.state === "running") {
      if (stoppingToast.current === null) stoppedHere.current = null;
    }
  }, [row?.state]);
  // Leaving the page takes the message along.
  useEffect(
    () => () => {
      if (stoppingToast.current !== null) dismissToast(stoppingToast.current);
    },
    [],
  );

  const remove = async () => {
    const ok = await confirmAction(
      "Delete this subshell?",
      "A live pane is killed, its token revoked and its row removed. This cannot be undone.",
      "Delete",
    );
    if (!ok) return;
    const done = await act.run(async () => {
      await api.DELETE("/api/subshells/{id}", { params: { path: { id } } });
      return true;
    });
    if (done) {
      dropSubshell(id);
      toast("Subshell deleted.");
      navigate("/subshells");
    }
  };

  if (row === null) {
    return (
      <div class="page">
        <h1>Subshell not found</h1>
        <p>It was deleted, or it is not shared with you.</p>
        <p>
          <Link href="/subshells">Back to subshells</Link>
        </p>
      </div>
    );
  }

  const you = t.viewerId;
  const others = t.viewers.filter((v) => v.viewerId !== you);
  // Once the view has ended, the row says why better than the socket's close can: a pane that
  // was stopped on purpose did not just end.
  const notice = t.conn === "ended" && !t.gone && row ? endedNotice(row, t.exitCode, stoppedHere.current) ?? t.notice : withExit(t.notice, t.exitCode);

  return (
    <section class="pane-page" aria-label={`Subshell ${row?.name ?? ""}`}>
      <div class="pane-bar">
        <Link href="/subshells" class="btn btn-ghost btn-small pane-back" aria-label="Back to subshells">
          ←
        </Link>
        <h1 class="pane-title" title={row?.cwd}>
          {row?.name ?? "…"}
        </h1>
        {row ? <StatusBadge status={row.status} /> : null}
        {row ? <AgentBadge agent={row.agent} /> : null}
        <span class="pane-meta hide-phone">
          {node ? node.name : ""} {row ? <span class="mono">{row.cwd}</span> : null}
        </span>
        <span class="pane-spacer" />
        <ConnBadge conn={t.conn} />
        <span
          class="pane-grid mono hide-phone"
          data-testid="grid"
          data-cols={t.cols}
          data-rows={t.rows}
          data-own-cols={t.own?.cols}
          data-own-rows={t.own?.rows}
          title="The pane's grid (columns × rows)"
        >
          {t.cols}×{t.rows}
        </span>
        <button
          type="button"
          class="btn btn-small"
          aria-expanded={viewersOpen}
          aria-controls="viewers"
          data-testid="viewers"
          data-count={t.viewers.length}
          aria-label={`${t.viewers.length} ${t.viewers.length === 1 ? "viewer" : "viewers"}`}
          onClick={() => setViewersOpen(!viewersOpen)}
        >
          {t.viewers.length}
          <span class="hide-phone">&nbsp;{t.viewers.length === 1 ? "viewer" : "viewers"}</span>
          <span class="show-phone" aria-hidden="true">
            &nbsp;◉
          </span>
        </button>
        <details class="menu">
          <summary class="btn btn-small">Actions</summary>
          <div class="menu-list">
            {canMute && muted !== null ? (
              <button type="button" class="btn btn-small" aria-pressed={muted} onClick={() => void toggleMute()}>
                {muted ? "Unmute notifications" : "Mute notifications"}
              </button>
            ) : null}
            {!t.readOnly || watchOnly ? (
              <button
                type="button"
                class="btn btn-small"
                aria-pressed={watchOnly}
                onClick={() => {
                  const next = !watchOnly;
                  setWatchOnly(next);
                  client?.setWatchOnly(next);
                }}
              >
                {watchOnly ? "Type again" : "Watch only"}
              </button>
            ) : null}
            {!t.readOnly ? (
              <button
                type="button"
                class="btn btn-small"
                aria-pressed={!t.sizing}
                data-testid="sizing-toggle"
                title="Watch and type without resizing the pane for the other viewers (remembered on this device)"
                onClick={() => client?.setSizing(!t.sizing)}
              >
                Don't resize others
              </button>
            ) : null}
            <button type="button" class="btn btn-small" onClick={() => client?.reopen()}>
              Reconnect
            </button>
            <Link class="btn btn-small" href={`/subshells/${id}/recording`} title="Play back everything the pane printed, seek and search it">
              Play recording
            </Link>
            <a
              class="btn btn-small"
              href={`/api/subshells/${id}/recording/cast`}
              download={`${row?.name ?? id}.cast`}
              title="Everything the pane printed, with its timing, as an asciicast file (asciinema play)"
            >
              Download recording
            </a>
            {canShare ? (
              <button type="button" class="btn btn-small" onClick={() => setShareOpen(true)}>
                Share…
              </button>
            ) : null}
            {canManage ? (
              <>
                <button type="button" class="btn btn-small" disabled={act.busy} onClick={() => lifecycle("restart")}>
                  Restart
                </button>
                {live ? (
                  <>
                    <button type="button" class="btn btn-small" disabled={act.busy} onClick={() => lifecycle("terminate")}>
                      Terminate
                    </button>
                    <button type="button" class="btn btn-small btn-danger" disabled={act.busy} onClick={() => lifecycle("kill")}>
                      Kill
                    </button>
                  </>
                ) : null}
                <button type="button" class="btn btn-small btn-danger" disabled={act.busy} onClick={remove}>
                  Delete
                </button>
              </>
            ) : null}
          </div>
        </details>
      </div>
      {viewersOpen ? (
        <div id="viewers" class="viewers">
          <strong>Watching now:</strong>
          <ul>
            {t.viewers.map((v) => (
              <li key={v.viewerId}>
                {v.displayName}
                {v.viewerId === you ? " (you)" : ""}
                {v.readOnly ? " · read-only" : ""}
                {v.device ? ` · ${v.device}` : ""}
                {v.cols && v.rows ? <span class="mono muted"> {v.cols}×{v.rows}</span> : null}
                {!v.readOnly && !v.sizing ? <span class="muted"> · doesn't resize others</span> : null}
                {t.held && (t.held.colsBy === v.viewerId || t.held.rowsBy === v.viewerId) ? <span class="muted"> · holds the size</span> : null}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div class="pane-notices">
        <ErrorNote error={act.error} />
        {t.readOnly ? (
          <div class="note note-warn" role="status" data-testid="readonly">
            <strong>Read-only.</strong> {watchOnly ? "You chose to watch only." : "This pane is shared with you for reading."}{" "}
            Your keystrokes are not sent.
          </div>
        ) : null}
        {notice ? (
          <div class={`note ${t.conn === "ended" ? "note-muted" : "note-warn"}`} role="status" data-testid="pane-notice">
            {notice}
            {t.conn === "ended" && row && !live && canManage ? (
              <>
                {" "}
                <button type="button" class="btn btn-small" onClick={() => lifecycle("restart")}>
                  Restart
                </button>
              </>
            ) : null}
          </div>
        ) : null}
        {row?.error ? <Note tone="bad">Last launch failed: {row.error}</Note> : null}
        {row?.warning && live ? (
          <Note tone="warn">
            {row.warning}
          </Note>
        ) : null}
        {t.frameError ? <Note tone="warn">{t.frameError}</Note> : null}
        {client ? <SizeNotice t={t} client={client} myUserId={me?.id ?? null} onShowViewers={() => setViewersOpen(true)} /> : null}
        {others.length && !viewersOpen ? (
          <span class="sr-only" aria-live="polite">
            {others.length} other {others.length === 1 ? "viewer" : "viewers"}
          </span>
        ) : null}
      </div>
      <DropZone id={id} disabled={t.readOnly || !live}>
        <div class="term-host" ref={hostRef} data-testid="terminal" />
        <UnusedArea wrap={hostRef.current} t={t} />
      </DropZone>
      {client ? <KeyRow client={client} armed={t.ctrlArmed} disabled={t.readOnly || t.conn !== "live"} /> : null}
      {canShare && row ? <ShareDialog open={shareOpen} onClose={() => setShareOpen(false)} row={row} /> : null}
    </section>
  );
}

const PLACEHOLDER = createStore<TermState>(initialTermState());

function withExit(notice: string | null, exitCode: number | null | undefined): string | null {
  if (!notice) return null;
  return exitCode !== undefined && exitCode !== null ? `${notice} Exit code ${exitCode}.` : notice;
}

/** What an ended view says, from the subshell's state (null: the socket's own words). */
function endedNotice(row: Subshell, exitCode: number | null | undefined, stoppedHere: "terminate" | "kill" | null): string | null {
  const code = row.exitCode ?? exitCode;
  switch (row.state) {
    case "stopping":
      return "Stopping…";
    case "stopped":
      if (stoppedHere === "terminate") return "Terminated by you.";
      if (stoppedHere === "kill") return "Killed by you.";
      return "Stopped.";
    case "exited":
      return withExit("The pane's program ended.", code);
    case "crashed":
      return withExit("The pane's program ended unexpectedly; its last output is below.", code);
    case "failed":
      return "The pane could not be started.";
    default:
      return null;
  }
}

function ConnBadge({ conn }: { conn: string }) {
  const label =
    conn === "live" ? "Live" : conn === "connecting" ? "Connecting" : conn === "reconnecting" ? "Reconnecting" : "Closed";
  const tone = conn === "live" ? "ok" : conn === "ended" ? "muted" : "warn";
  return (
    <span class={`badge badge-${tone}`} data-testid="conn" data-conn={conn}>
      {label}
    </span>
  );
}

/** The on-screen key row of phones: Esc, a sticky Ctrl, Tab, arrows and `|`. */
function KeyRow({ client, armed, disabled }: { client: TerminalClient; armed: boolean; disabled: boolean }) {
  // Keep the focus (and the on-screen keyboard) in the terminal when a key is tapped.
  const keep = (e: Event) => e.preventDefault();
  const press = (fn: () => void) => () => {
    fn();
    client.focus();
  };
  // [visible text, accessible name (starting with the visible text where it is a word)]
  const keys: [string, string, () => void][] = [
    ["Esc", "Esc", () => client.sendKey("esc")],
    ["Tab", "Tab", () => client.sendKey("tab")],
    ["←", "Left arrow", () => client.sendKey("left")],
    ["↑", "Up arrow", () => client.sendKey("up")],
    ["↓", "Down arrow", () => client.sendKey("down")],
    ["→", "Right arrow", () => client.sendKey("right")],
    ["|", "| (pipe)", () => client.sendKey("pipe")],
  ];
  return (
    <div class="keyrow" role="toolbar" aria-label="Terminal keys">
      <button
        type="button"
        class={armed ? "key key-armed" : "key"}
        aria-pressed={armed}
        title="Control: applies to the next key"
        disabled={disabled}
        onPointerDown={keep}
        onMouseDown={keep}
        onClick={press(() => client.armCtrl())}
      >
        Ctrl
      </button>
      {keys.map(([label, name, fn]) => (
        <button
          key={name}
          type="button"
          class="key"
          aria-label={name}
          disabled={disabled}
          onPointerDown={keep}
          onMouseDown={keep}
          onClick={press(fn)}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

/** Drop a file on the terminal: it is uploaded into the pane's working directory. */
function DropZone({ id, disabled, children }: { id: string; disabled: boolean; children: preact.ComponentChildren }) {
  const [over, setOver] = useState(false);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  const start = async (file: File, overwrite = false): Promise<void> => {
    setError(null);
    const ctl = new AbortController();
    abort.current = ctl;
    setProgress({ name: file.name, size: file.size, received: 0, path: null });
    try {
      const up = await uploadFile(id, file, overwrite, setProgress, ctl.signal);
      toast(`Uploaded ${file.name} to ${up.path}`);
      setProgress(null);
    } catch (e) {
      setProgress(null);
      if (e instanceof DOMException && e.name === "AbortError") {
        toast("Upload cancelled.", "info");
        return;
      }
      if (e instanceof ApiError && e.code === "UPLOAD_EXISTS" && !overwrite && e.metadata?.["path"]) {
        const ok = await confirmAction(
          "Replace the file?",
          `${String(e.metadata["path"])} exists in the pane's directory. Replace it?`,
          "Replace",
        );
        if (ok) return start(file, true);
        return;
      }
      setError(`${file.name}: ${errorText(e)}`);
    } finally {
      abort.current = null;
    }
  };

  return (
    <div
      class={over ? "term-wrap term-over" : "term-wrap"}
      onDragOver={(e) => {
        if (disabled || !e.dataTransfer?.types.includes("Files")) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = "copy";
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        setOver(false);
        if (disabled) return;
        const file = e.dataTransfer?.files?.[0];
        if (!file) return;
        e.preventDefault();
        if (progress) {
          setError("An upload is already running; wait for it to finish.");
          return;
        }
        void start(file);
      }}
    >
      {children}
      {over ? <div class="drop-hint">Drop to upload into the pane's directory</div> : null}
      {progress ? (
        <div class="upload" role="status">
          <span>
            Uploading {progress.name}: {Math.floor((progress.received / Math.max(1, progress.size)) * 100)}%
          </span>
          <progress max={Math.max(1, progress.size)} value={progress.received} aria-label={`Upload of ${progress.name}`} />
          <button type="button" class="btn btn-small" onClick={() => abort.current?.abort()}>
            Cancel
          </button>
        </div>
      ) : null}
      {error ? (
        <div class="upload note-bad" role="alert">
          <span>{error}</span>
          <button type="button" class="btn btn-small" onClick={() => setError(null)}>
            Dismiss
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** What a write share hands over, in plain words: typing in the pane is running commands as its
 * program, and the pane holds a token that acts for its owner within the pane's permissions. */
export function writeShareWarning(row: Subshell): string {
  const subshells =
    row.permissions.subshells === "write"
      ? "read, type into, restart, stop and launch every subshell of its owner"
      : "read every subshell of its owner (their screens and logs)";
  const channels = row.permissions.channels === "write" ? "read and post to the owner's channels" : "read the owner's channels";
  return (
    `They can type anything into it: run commands as its program, read and change the files it can reach, ` +
    `and use the pane's token, which can ${subshells} and ${channels}. ` +
    `Share write access only with someone you would trust with all of that.`
  );
}

function ShareDialog({ open, onClose, row }: { open: boolean; onClose: () => void; row: Subshell }) {
  const [shares, setShares] = useState<Share[]>([]);
  const [users, setUsers] = useState<User[]>([]);
  const [userId, setUserId] = useState("");
  const [access, setAccess] = useState<"read" | "write">("read");
  const act = useAction();

  const load = async () => {
    const [sh, us] = await Promise.all([
      api.GET("/api/subshells/{id}/shares", { params: { path: { id: row.id } } }),
      api.GET("/api/users"),
    ]);
    setShares(sh);
    setUsers(us);
  };
  useEffect(() => {
    if (open) void act.run(load);
  }, [open, row.id]);

  const byId = useMemo(() => new Map(users.map((u) => [u.id, u])), [users]);
  const candidates = users.filter(
    (u) => u.role !== "service" && !u.disabled && u.id !== row.ownerUserId && !shares.some((s) => s.userId === u.id),
  );

  const put = async (uid: string, a: "read" | "write", asked = false) => {
    // Raising a share to write from the list asks first, with the same warning the form shows.
    if (a === "write" && !asked) {
      const ok = await confirmAction(
        `Let ${byId.get(uid)?.displayName ?? "them"} type into ${row.name}?`,
        writeShareWarning(row),
        "Give write access",
      );
      if (!ok) {
        // The list's select shows the access the share still has.
        setShares((list) => [...list]);
        return;
      }
    }
    const r = await act.run(() => api.PUT("/api/subshells/{id}/shares/{userId}", { params: { path: { id: row.id, userId: uid } }, body: { access: a } }));
    if (r) {
      toast(`Shared with ${byId.get(uid)?.displayName ?? "the account"} (${a === "read" ? "read-only" : "read and write"}).`);
      setUserId("");
      await act.run(load);
    }
  };

  return (
    <Dialog title={`Share ${row.name}`} open={open} onClose={onClose}>
      <ErrorNote error={act.error} />
      <form
        class="row-form"
        onSubmit={(e) => {
          e.preventDefault();
          // The warning is on the form itself when write is chosen.
          if (userId) void put(userId, access, true);
        }}
      >
        <div class="field">
          <label for="share-user">Account</label>
          <select id="share-user" value={userId} onChange={(e) => setUserId((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">Choose an account…</option>
            {candidates.map((u) => (
              <option key={u.id} value={u.id}>
                {u.displayName} ({u.email})
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="share-access">Access</label>
          <select
            id="share-access"
            value={access}
            aria-describedby={access === "write" ? "share-write-warning" : undefined}
            onChange={(e) => setAccess((e.currentTarget as HTMLSelectElement).value as "read" | "write")}
          >
            <option value="read">Read only (watch)</option>
            <option value="write">Read and write (type)</option>
          </select>
        </div>
        <button type="submit" class="btn btn-primary" disabled={!userId || act.busy}>
          {access === "write" ? "Share with write access" : "Share"}
        </button>
      </form>
      {access === "write" ? (
        <div class="note note-warn" role="alert" id="share-write-warning" data-testid="write-share-warning">
          <strong>Write access is full control of this pane.</strong> {writeShareWarning(row)}
        </div>
      ) : null}
      <h3>Shared with</h3>
      {shares.length === 0 ? (
        <p class="muted">Nobody yet.</p>
      ) : (
        <ul class="list">
          {shares.map((s) => (
            <li key={s.userId} class="list-row">
              <span>
                {byId.get(s.userId)?.displayName ?? s.userId}{" "}
                <span class="muted">{byId.get(s.userId)?.email}</span>
              </span>
              <span class="list-actions">
                <label class="sr-only" for={`acc-${s.userId}`}>
                  Access of {byId.get(s.userId)?.displayName}
                </label>
                <select
                  id={`acc-${s.userId}`}
                  value={s.access}
                  onChange={(e) => void put(s.userId, (e.currentTarget as HTMLSelectElement).value as "read" | "write")}
                >
                  <option value="read">Read only</option>
                  <option value="write">Read and write</option>
                </select>
                <button
                  type="button"
                  class="btn btn-small btn-danger"
                  onClick={async () => {
                    await act.run(() => api.DELETE("/api/subshells/{id}/shares/{userId}", { params: { path: { id: row.id, userId: s.userId } } }));
                    await act.run(load);
                  }}
                >
                  Revoke
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
    </Dialog>
  );
}
