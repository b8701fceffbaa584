// The REST client: JSON in and out, the session cookie rides along, and a failed request
// becomes an ApiError carrying the plane's error body (its `message` is what people read).

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly metadata: Record<string, unknown> | undefined;
  /** Seconds to wait, for a 429 (from `metadata.retryAfterMs` or `Retry-After`). */
  readonly retryAfter: number | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    metadata?: Record<string, unknown>,
    retryAfter?: number,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.metadata = metadata;
    this.retryAfter = retryAfter;
  }

  /** The message, with the field a validation error names (in words, where the app has words
   * for it: "Allowed directory 2: …" rather than "`allowedDirs[1]`: …"). */
  describe(): string {
    const field = this.metadata?.["field"];
    const reason = this.metadata?.["reason"];
    let text = this.message;
    // A message that starts with the field's path (`allowedDirs[1]`: …) names the item at fault.
    const lead = /^`([^`]+)`: ([\s\S]*)$/.exec(text);
    if (lead) {
      const words = fieldWords(lead[1]!);
      if (words) text = `${words}: ${lead[2]}`;
    } else if (typeof field === "string") {
      const words = fieldWords(field);
      if (words) text = `${words}: ${text}`;
      else if (!text.includes(field)) text = `${field}: ${text}`;
    }
    if (typeof reason === "string" && !text.includes(reason)) text = `${text} (${reason})`;
    return text;
  }
}

/** What the app's forms call the request fields people type into; a list's item is named with
 * its place (1-based). */
const FIELD_WORDS: Record<string, [string, string?]> = {
  email: ["Email"],
  password: ["Password"],
  newPassword: ["New password"],
  currentPassword: ["Current password"],
  displayName: ["Name"],
  name: ["Name"],
  instanceName: ["Instance name"],
  cwd: ["Directory"],
  allowedDirs: ["Allowed directories", "Allowed directory"],
  dirs: ["Directories", "Directory"],
  args: ["Arguments", "Argument"],
  prompt: ["Prompt"],
  description: ["Description"],
  origin: ["Origin"],
  address: ["Address"],
  endpoint: ["Push endpoint"],
  role: ["Role"],
  text: ["Text"],
  body: ["Message"],
  subshellIds: ["Subshells", "Subshell"],
};

/** `allowedDirs[1]` → "Allowed directory 2"; `name` → "Name"; a path the app has no words for
 * (nested, or unknown) → undefined. */
export function fieldWords(field: string): string | undefined {
  const m = /^([A-Za-z]+)(?:\[(\d+)\])?$/.exec(field);
  if (!m) return undefined;
  const words = FIELD_WORDS[m[1]!];
  if (!words) return undefined;
  if (m[2] === undefined) return words[0];
  return `${words[1] ?? words[0]} ${Number(m[2]) + 1}`;
}

/** Anything thrown, as words for a person. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.describe();
  if (e instanceof DOMException && e.name === "NotAllowedError") {
    return "The browser or the authenticator refused (cancelled, timed out, or not allowed).";
  }
  if (e instanceof Error) return e.message;
  return String(e);
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called when a request answers 401 for want of a session (the session ended elsewhere). */
export function onUnauthorized(fn: Listener): () => void {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

export interface RequestOptions {
  /** Do not report a 401 to the session watchers (sign-in and first-run pages). */
  quiet401?: boolean;
  signal?: AbortSignal;
}

export async function request<T>(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const init: RequestInit = {
    method,
    headers,
    credentials: "same-origin",
    cache: "no-store",
  };
  if (opts.signal) init.signal = opts.signal;
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new ApiError(0, "NETWORK", "The plane cannot be reached. Check the connection and try again.");
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let data: unknown = undefined;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
  }
  if (!res.ok) {
    const b = (data ?? {}) as Record<string, unknown>;
    const metadata = (b["metadata"] as Record<string, unknown> | undefined) ?? undefined;
    let retryAfter: number | undefined;
    const ms = metadata?.["retryAfterMs"];
    if (typeof ms === "number") retryAfter = Math.max(1, Math.ceil(ms / 1000));
    else {
      const header = Number(res.headers.get("Retry-After"));
      if (Number.isFinite(header) && header > 0) retryAfter = header;
    }
    const err = new ApiError(
      res.status,
      typeof b["code"] === "string" ? (b["code"] as string) : `HTTP_${res.status}`,
      typeof b["message"] === "string" ? (b["message"] as string) : `${res.status} ${res.statusText}`,
      metadata,
      retryAfter,
    );
    if (res.status === 401 && !opts.quiet401 && err.code !== "INVALID_CREDENTIALS") {
      unauthorizedListeners.forEach((fn) => fn());
    }
    throw err;
  }
  return data as T;
}

export const api = {
  get: <T>(path: string, opts?: RequestOptions) => request<T>("GET", path, undefined, opts),
  post: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>("POST", path, body, opts),
  put: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>("PUT", path, body, opts),
  patch: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>("PATCH", path, body, opts),
  del: <T = void>(path: string, opts?: RequestOptions) => request<T>("DELETE", path, undefined, opts),
};

/** `ws://` or `wss://` on this page's host, for a path. */
export function socketUrl(path: string): string {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}${path}`;
}

/** Encodes a path segment. */
export const seg = encodeURIComponent;
