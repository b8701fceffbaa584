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

  /** The message, with the field a validation error names. */
  describe(): string {
    const field = this.metadata?.["field"];
    const reason = this.metadata?.["reason"];
    let text = this.message;
    if (typeof field === "string" && !text.includes(field)) text = `${field}: ${text}`;
    if (typeof reason === "string" && !text.includes(reason)) text = `${text} (${reason})`;
    return text;
  }
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
