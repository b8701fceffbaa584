// A folder picker over `GET /api/nodes/{id}/dirs` (the node lists one directory's
// subdirectories, within its allowed directories).

import { useEffect, useState } from "preact/hooks";
import { api } from "./api";
import type { DirListing } from "./types";
import { ErrorNote } from "./ui";

function parent(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  const at = trimmed.lastIndexOf("/");
  return at <= 0 ? "/" : trimmed.slice(0, at);
}

function join(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, "")}/${name}`;
}

export function DirPicker({
  nodeId,
  start,
  onPick,
  onClose,
}: {
  nodeId: string;
  start: string;
  onPick: (path: string) => void;
  onClose: () => void;
}) {
  const [listing, setListing] = useState<DirListing | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const open = async (path: string | null) => {
    setBusy(true);
    setError(null);
    try {
      const query = path ? { path } : {};
      setListing(await api.GET("/api/nodes/{id}/dirs", { params: { path: { id: nodeId }, query } }));
    } catch (e) {
      setError(e);
      // A typed path that cannot be listed: fall back to the node's home once.
      if (path && !listing) {
        try {
          setListing(await api.GET("/api/nodes/{id}/dirs", { params: { path: { id: nodeId } } }));
        } catch {
          // The first error stays shown: it is about the path that was asked for.
        }
      }
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    void open(start.startsWith("/") ? start : null);
  }, [nodeId]);

  return (
    <div class="picker" role="group" aria-label="Choose a directory on the node">
      <div class="picker-head">
        <span class="mono truncate" title={listing?.path}>
          {listing?.path ?? "…"}
        </span>
        <span class="inline">
          <button
            type="button"
            class="btn btn-small"
            disabled={busy || !listing || listing.path === "/"}
            onClick={() => listing && open(parent(listing.path))}
          >
            Up
          </button>
          <button
            type="button"
            class="btn btn-small btn-primary"
            disabled={!listing}
            onClick={() => {
              if (listing) onPick(listing.path);
              onClose();
            }}
          >
            Use this directory
          </button>
          <button type="button" class="btn btn-small" onClick={onClose}>
            Close
          </button>
        </span>
      </div>
      <ErrorNote error={error} />
      {listing ? (
        listing.entries.length ? (
          <ul class="picker-list" aria-busy={busy}>
            {listing.entries.map((e) => (
              <li key={e.name}>
                <button type="button" class="picker-entry" onClick={() => open(join(listing.path, e.name))}>
                  <span aria-hidden="true">▸ </span>
                  {e.name}
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">No subdirectories.</p>
        )
      ) : null}
      {listing?.truncated ? <p class="muted">Only the first entries are shown.</p> : null}
    </div>
  );
}
