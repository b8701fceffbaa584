// A file dropped onto a terminal goes into the pane's working directory: `POST /api/uploads`
// names it and its size, then the pieces follow in order (each `pieceBytes` long but the
// last, as standard padded base64); the last one puts the file in place. Any failure abandons
// the upload on the plane's side, so a retry starts from the beginning.

import { api, ApiError } from "../api";
import { toB64 } from "../b64";
import type { Upload } from "../types";

/** The plane's cap (plane/src/api/uploads.rs). */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

export interface UploadProgress {
  name: string;
  size: number;
  received: number;
  path: string | null;
}

export async function uploadFile(
  subshellId: string,
  file: File,
  overwrite: boolean,
  onProgress: (p: UploadProgress) => void,
  signal: AbortSignal,
): Promise<Upload> {
  if (file.size > MAX_UPLOAD_BYTES) {
    throw new ApiError(400, "TOO_LARGE", `${file.name} is larger than 64 MiB, the most an upload takes.`);
  }
  let up = await api.post<Upload>("/api/uploads", {
    subshellId,
    name: file.name,
    size: file.size,
    overwrite,
  });
  onProgress({ name: file.name, size: file.size, received: up.received, path: up.path });
  try {
    for (let index = 0; !up.done; index++) {
      if (signal.aborted) throw new DOMException("cancelled", "AbortError");
      const start = index * up.pieceBytes;
      const piece = await file.slice(start, Math.min(file.size, start + up.pieceBytes)).arrayBuffer();
      up = await api.put<Upload>(`/api/uploads/${encodeURIComponent(up.uploadId)}/pieces/${index}`, {
        dataB64: toB64(piece),
      });
      onProgress({ name: file.name, size: file.size, received: up.received, path: up.path });
    }
  } catch (e) {
    if (!up.done) await api.del(`/api/uploads/${encodeURIComponent(up.uploadId)}`).catch(() => undefined);
    throw e;
  }
  return up;
}
