// Files kept on the plane: attachments for an agent's prompt, artifacts handed from one pane to
// another. Upload (a picker or a drop), download, delete, and send one into a running pane's
// working directory.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ApiError, errorText } from "../api";
import { nodes, subshells } from "../live";
import { useStore } from "../store";
import { Table } from "../table";
import { keepFile, MAX_UPLOAD_BYTES } from "../terminal/upload";
import type { KeptFile, Subshell } from "../types";
import { bytesText, Checkbox, confirmAction, CopyButton, Dialog, Empty, ErrorNote, Note, PageHead, Time, toast, useAction } from "../ui";

/** What an account keeps in all (plane/src/api/files.rs). */
const QUOTA_BYTES = 1024 * 1024 * 1024;

interface Job {
  key: number;
  file: File;
  received: number;
  state: "waiting" | "sending" | "done" | "failed" | "cancelled";
  error: string | null;
}

function failure(e: unknown): string {
  if (e instanceof ApiError && e.status === 413) {
    return "Your files would pass 1 GiB, the most an account keeps. Delete some first.";
  }
  return errorText(e);
}

export function FilesPage() {
  const [files, setFiles] = useState<KeptFile[] | null>(null);
  const [jobs, setJobs] = useState<Job[]>([]);
  const [over, setOver] = useState(false);
  const [sending, setSending] = useState<KeptFile | null>(null);
  const abort = useRef<AbortController | null>(null);
  const running = useRef(false);
  const queue = useRef<Job[]>([]);
  const seq = useRef(0);
  const act = useAction();

  const load = async () => setFiles(await api.GET("/api/files"));
  useEffect(() => {
    void act.run(load);
    return () => abort.current?.abort();
  }, []);

  const patch = (key: number, change: Partial<Job>) => setJobs((list) => list.map((j) => (j.key === key ? { ...j, ...change } : j)));

  // One upload at a time, in the order the files were given.
  const pump = async () => {
    if (running.current) return;
    running.current = true;
    try {
      for (let job = queue.current.shift(); job; job = queue.current.shift()) {
        const ctl = new AbortController();
        abort.current = ctl;
        patch(job.key, { state: "sending" });
        try {
          const key = job.key;
          await keepFile(job.file, (p) => patch(key, { received: p.received }), ctl.signal);
          patch(key, { state: "done", received: job.file.size });
          toast(`Kept ${job.file.name}.`);
          // The file is kept; a list that cannot be read again says so at the top.
          await load().catch((e: unknown) => act.setError(e));
        } catch (e) {
          if (e instanceof DOMException && e.name === "AbortError") patch(job.key, { state: "cancelled" });
          else patch(job.key, { state: "failed", error: failure(e) });
        }
      }
    } finally {
      abort.current = null;
      running.current = false;
    }
  };

  const add = (list: FileList | File[] | null | undefined) => {
    const given = Array.from(list ?? []);
    if (!given.length) return;
    const fresh = given.map<Job>((file) => ({
      key: ++seq.current,
      file,
      received: 0,
      state: file.size > MAX_UPLOAD_BYTES ? "failed" : "waiting",
      error: file.size > MAX_UPLOAD_BYTES ? `Larger than 64 MiB (${bytesText(file.size)}), the most one file may be.` : null,
    }));
    // Finished rows give way to the new ones.
    setJobs((old) => [...old.filter((j) => j.state === "waiting" || j.state === "sending"), ...fresh]);
    queue.current.push(...fresh.filter((j) => j.state === "waiting"));
    void pump();
  };

  const remove = async (f: KeptFile) => {
    if (!(await confirmAction(`Delete ${f.name}?`, "It is removed from the plane. Copies sent to panes stay where they are.", "Delete"))) return;
    const done = await act.run(async () => {
      await api.DELETE("/api/files/{id}", { params: { path: { id: f.id } } });
      return true;
    });
    if (done) {
      toast(`${f.name} deleted.`);
      await act.run(load);
    }
  };

  const used = (files ?? []).reduce((sum, f) => sum + f.size, 0);

  return (
    <div class="page">
      <PageHead title="Files" />
      <p class="muted">
        Files you keep on the plane, to hand to your panes: send one into a running subshell's directory, or download it again.
        Up to 64 MiB a file and 1 GiB in all.
      </p>
      <section
        class={over ? "dropzone dropzone-over" : "dropzone"}
        aria-label="Upload files"
        onDragOver={(e) => {
          if (!e.dataTransfer?.types.includes("Files")) return;
          e.preventDefault();
          e.dataTransfer.dropEffect = "copy";
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          setOver(false);
          if (!e.dataTransfer?.files?.length) return;
          e.preventDefault();
          add(e.dataTransfer.files);
        }}
      >
        <p>Drop files here, or</p>
        <input
          type="file"
          id="file-pick"
          class="file-input"
          multiple
          onChange={(e) => {
            const input = e.currentTarget as HTMLInputElement;
            add(input.files);
            input.value = "";
          }}
        />
        <label for="file-pick" class="btn btn-primary">
          Choose files
        </label>
      </section>
      {jobs.length ? (
        <ul class="list" aria-label="Uploads" data-testid="uploads">
          {jobs.map((j) => (
            <li key={j.key} class="list-row" data-state={j.state}>
              <span class="mono truncate" title={j.file.name}>
                {j.file.name}
              </span>
              {j.state === "sending" || j.state === "waiting" ? (
                <span class="list-actions grow">
                  <progress max={Math.max(1, j.file.size)} value={j.received} aria-label={`Upload of ${j.file.name}`} />
                  <span>{j.state === "waiting" ? "Waiting" : `${Math.floor((j.received / Math.max(1, j.file.size)) * 100)}%`}</span>
                  {j.state === "sending" ? (
                    <button type="button" class="btn btn-small" onClick={() => abort.current?.abort()}>
                      Cancel
                    </button>
                  ) : null}
                </span>
              ) : j.state === "done" ? (
                <span class="badge badge-ok">
                  <span aria-hidden="true">✓</span> Kept
                </span>
              ) : j.state === "cancelled" ? (
                <span class="badge badge-muted">Cancelled</span>
              ) : (
                <span class="badge badge-bad" role="alert">
                  <span aria-hidden="true">✕</span> {j.error}
                </span>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      <ErrorNote error={act.error} />
      <section class="section">
        <div class="section-head">
          <h2>Kept files</h2>
          <span class="muted" data-testid="quota">
            {bytesText(used)} of 1 GiB used
          </span>
        </div>
        <progress class="quota" max={QUOTA_BYTES} value={used} aria-label="Space used of 1 GiB" />
        {files && files.length === 0 ? <Empty>No files yet.</Empty> : null}
        {files && files.length ? (
          <Table
            testId="files"
            rows={files}
            rowKey={(f) => f.id}
            rowAttrs={(f) => ({ "data-id": f.id, "data-name": f.name, "data-size": f.size, "data-sha256": f.sha256 })}
            columns={[
              {
                label: "Name",
                class: "truncate",
                attrs: (f) => ({ title: f.name }),
                cell: (f) => (
                  <a href={`/api/files/${f.id}/content`} download={f.name}>
                    {f.name}
                  </a>
                ),
              },
              { label: "Size", attrs: (f) => ({ title: `${f.size} bytes` }), cell: (f) => bytesText(f.size) },
              {
                label: "SHA-256",
                cell: (f) => (
                  <>
                    <span class="mono" title={f.sha256}>
                      {f.sha256.slice(0, 12)}…
                    </span>{" "}
                    <CopyButton text={f.sha256} what={`SHA-256 of ${f.name}`} />
                  </>
                ),
              },
              { label: "Kept", cell: (f) => <Time ms={f.createdAt} /> },
              {
                label: "Actions",
                actions: true,
                class: "row-actions",
                cell: (f) => (
                  <>
                    <a class="btn btn-small" href={`/api/files/${f.id}/content`} download={f.name}>
                      Download<span class="sr-only"> {f.name}</span>
                    </a>
                    <button type="button" class="btn btn-small" onClick={() => setSending(f)}>
                      Send to a pane…<span class="sr-only"> {f.name}</span>
                    </button>
                    <button type="button" class="btn btn-small btn-danger" onClick={() => remove(f)}>
                      Delete<span class="sr-only"> {f.name}</span>
                    </button>
                  </>
                ),
              },
            ]}
          />
        ) : null}
      </section>
      <SendDialog file={sending} onClose={() => setSending(null)} />
    </div>
  );
}

/** Panes that can take a file now. */
function running(s: Subshell): boolean {
  return s.state === "running" && s.nodeReachable;
}

function SendDialog({ file, onClose }: { file: KeptFile | null; onClose: () => void }) {
  const all = useStore(subshells);
  const nodeList = useStore(nodes);
  const [subshellId, setSubshellId] = useState("");
  const [overwrite, setOverwrite] = useState(false);
  const [exists, setExists] = useState<string | null>(null);
  const act = useAction();

  const panes = useMemo(() => Object.values(all).filter(running).sort((a, b) => a.name.localeCompare(b.name)), [all]);
  const nodeName = (id: string) => nodeList.find((n) => n.nodeId === id)?.name ?? id.slice(0, 8);

  useEffect(() => {
    if (!file) return;
    setOverwrite(false);
    setExists(null);
    act.setError(null);
    setSubshellId((id) => (panes.some((p) => p.id === id) ? id : panes[0]?.id ?? ""));
  }, [file]);

  const send = async (replace: boolean) => {
    if (!file || !subshellId) return;
    setExists(null);
    const r = await act.run(async () => {
      try {
        return await api.POST("/api/files/{id}/send", { params: { path: { id: file.id } }, body: { subshellId, overwrite: replace } });
      } catch (e) {
        if (e instanceof ApiError && e.code === "UPLOAD_EXISTS" && typeof e.metadata?.["path"] === "string") {
          setExists(e.metadata["path"] as string);
          return null;
        }
        throw e;
      }
    });
    if (r) {
      toast(`Sent ${file.name} to ${r.path}`);
      onClose();
    }
  };

  return (
    <Dialog title={`Send ${file?.name ?? ""} to a pane`} open={!!file} onClose={onClose}>
      {panes.length === 0 ? (
        <p>No subshell is running. Launch one first; the file goes into its working directory.</p>
      ) : (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void send(overwrite);
          }}
        >
          <div class="field">
            <label for="send-pane">Subshell</label>
            <select
              id="send-pane"
              value={subshellId}
              aria-describedby="send-pane-hint"
              onChange={(e) => {
                setSubshellId((e.currentTarget as HTMLSelectElement).value);
                setExists(null);
              }}
            >
              {panes.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name} ({nodeName(p.nodeId)})
                </option>
              ))}
            </select>
            <div class="hint mono" id="send-pane-hint">
              {panes.find((p) => p.id === subshellId)?.cwd ?? ""}
            </div>
          </div>
          <Checkbox label="Replace a file of the same name" checked={overwrite} onChange={setOverwrite} />
          {exists ? (
            <Note tone="warn">
              <p>{exists} already exists in the pane's directory.</p>
              <button type="button" class="btn btn-small btn-danger" disabled={act.busy} onClick={() => void send(true)}>
                Replace it
              </button>
            </Note>
          ) : null}
          <ErrorNote error={act.error} />
          <div class="actions">
            <button type="button" class="btn" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" class="btn btn-primary" disabled={act.busy || !subshellId}>
              {act.busy ? "Sending…" : "Send"}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
