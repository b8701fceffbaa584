// The last output of a pane whose program has ended, from its log on the node
// (`GET /api/subshells/{id}/logs`): what an ended pane's view shows, read-only.

import { api } from "../api";
import { fromB64 } from "../b64";

/** How much of the log's end is read: enough for several screens of a busy program. */
export const TAIL_BYTES = 64 * 1024;

/** The last bytes of the pane's log, starting at a line's beginning when the log is longer;
 * null when the log is empty. */
export async function lastOutput(subshellId: string, tail = TAIL_BYTES): Promise<Uint8Array | null> {
  const read = (fromByte: number, maxBytes: number) =>
    api.GET("/api/subshells/{id}/logs", { params: { path: { id: subshellId }, query: { fromByte, maxBytes } } });
  // Asked for a byte past any log's end, the node answers nothing but the log's size.
  const probe = await read(Number.MAX_SAFE_INTEGER, 1);
  if (probe.size === 0) return null;
  const chunk = await read(Math.max(0, probe.size - tail), tail);
  let bytes = new Uint8Array(fromB64(chunk.dataB64));
  if (chunk.fromByte > 0) {
    // Cut in the middle of a line (or an escape sequence): start at the next line instead.
    const nl = bytes.indexOf(0x0a);
    if (nl >= 0) bytes = bytes.subarray(nl + 1);
  }
  return bytes.length ? bytes : null;
}
