// Files go to the plane in pieces. A file dropped onto a terminal goes into the pane's working
// directory: `POST /api/uploads` names it and its size. A file kept on the plane (the Files
// page): `POST /api/files` does. Either way the pieces follow in order (each `pieceBytes` long
// but the last, as standard padded base64); the last one puts the file in place. Any failure
// abandons the upload on the plane's side, so a retry starts from the beginning.

import { api } from "../api";
import { toB64 } from "../b64";
import type { FileUpload, Upload } from "../types";

/** The plane's cap for one file (plane/src/api/uploads.rs and files.rs). */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

export interface UploadProgress {
  name: string;
  size: number;
  received: number;
  path: string | null;
}

interface Pieced {
  pieceBytes: number;
  received: number;
  done: boolean;
}

function checkSize(file: File): void {
  if (file.size > MAX_UPLOAD_BYTES) {
    throw new Error(`${file.name} is larger than 64 MiB, the most an upload takes.`);
  }
}

/**
 * Sends `file` piece by piece after `first` (the plane's answer to the start), reporting each
 * answer; on any failure (or `signal`) it calls `abandon` and throws.
 */
async function sendPieces<T extends Pieced>(
  file: File,
  first: T,
  sendPiece: (index: number, dataB64: string) => Promise<T>,
  abandon: () => Promise<unknown>,
  onAnswer: (t: T) => void,
  signal: AbortSignal,
): Promise<T> {
  let up = first;
  onAnswer(up);
  try {
    for (let index = 0; !up.done; index++) {
      if (signal.aborted) throw new DOMException("cancelled", "AbortError");
      const start = index * up.pieceBytes;
      const piece = await file.slice(start, Math.min(file.size, start + up.pieceBytes)).arrayBuffer();
      up = await sendPiece(index, toB64(piece));
      onAnswer(up);
    }
  } catch (e) {
    // The failure that stopped the upload is the one to tell; should the abandon fail too, the
    // plane drops the upload itself once it has had no piece for a minute.
    if (!up.done) await abandon().catch(() => undefined);
    throw e;
  }
  return up;
}

/** Uploads `file` into a pane's working directory. */
export async function uploadFile(
  subshellId: string,
  file: File,
  overwrite: boolean,
  onProgress: (p: UploadProgress) => void,
  signal: AbortSignal,
): Promise<Upload> {
  checkSize(file);
  const first = await api.POST("/api/uploads", { body: { subshellId, name: file.name, size: file.size, overwrite } });
  const id = first.uploadId;
  return sendPieces(
    file,
    first,
    (index, dataB64) => api.PUT("/api/uploads/{id}/pieces/{index}", { params: { path: { id, index: String(index) } }, body: { dataB64 } }),
    () => api.DELETE("/api/uploads/{id}", { params: { path: { id } } }),
    (up) => onProgress({ name: file.name, size: file.size, received: up.received, path: up.path }),
    signal,
  );
}

/** Keeps `file` on the plane (the account's files); the answer's `fileId` names it. */
export async function keepFile(file: File, onProgress: (p: UploadProgress) => void, signal: AbortSignal): Promise<FileUpload> {
  checkSize(file);
  const first = await api.POST("/api/files", { body: { name: file.name, size: file.size } });
  const id = first.fileId;
  return sendPieces(
    file,
    first,
    (index, dataB64) => api.PUT("/api/files/{id}/pieces/{index}", { params: { path: { id, index: String(index) } }, body: { dataB64 } }),
    () => api.DELETE("/api/files/{id}", { params: { path: { id } } }),
    (up) => onProgress({ name: file.name, size: file.size, received: up.received, path: null }),
    signal,
  );
}
