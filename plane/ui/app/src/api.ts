// The REST client. Every request of the app goes through `api`: paths, parameters, bodies and
// answers are typed by the plane's OpenAPI document (generated/openapi.d.ts, made by
// `npm run api-types`), openapi-fetch sends them with the session cookie, and a failure becomes
// an ApiError carrying the plane's error body (its `message` is what people read, its `code` is
// what the app branches on).

import createClient, { type ClientPathsWithMethod, type FetchResponse, type MaybeOptionalInit } from "openapi-fetch";
import type { components, paths } from "./generated/openapi";

/** The error body of every failed request (`components.schemas.Error`). */
export type ErrorBody = components["schemas"]["Error"];
/** A code the plane answers with. */
export type PlaneErrorCode = ErrorBody["code"];
/** The codes of failures the plane did not describe: no answer at all (`NETWORK`), or an
 * answer that is not the error body (`HTTP_<status>`, from a proxy say). */
export type ClientErrorCode = "NETWORK" | `HTTP_${number}`;

export class ApiError extends Error {
  /** The HTTP status; 0 when the plane could not be reached. */
  readonly status: number;
  readonly code: PlaneErrorCode | ClientErrorCode;
  /** Names this failure in the plane's log. */
  readonly errId: string | undefined;
  readonly reqId: string | undefined;
  readonly metadata: Record<string, unknown> | undefined;
  /** Seconds to wait, for a 429 (from `metadata.retryAfterMs` or `Retry-After`). */
  readonly retryAfter: number | undefined;

  constructor(
    status: number,
    code: PlaneErrorCode | ClientErrorCode,
    message: string,
    more: { errId?: string; reqId?: string; metadata?: Record<string, unknown>; retryAfter?: number } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.errId = more.errId;
    this.reqId = more.reqId;
    this.metadata = more.metadata;
    this.retryAfter = more.retryAfter;
  }

  /** The same failure, told in other words (the app's, for a refusal it can explain better). */
  withMessage(message: string): ApiError {
    const { errId, reqId, metadata, retryAfter } = this;
    const more: ConstructorParameters<typeof ApiError>[3] = {};
    if (errId !== undefined) more.errId = errId;
    if (reqId !== undefined) more.reqId = reqId;
    if (metadata !== undefined) more.metadata = metadata;
    if (retryAfter !== undefined) more.retryAfter = retryAfter;
    return new ApiError(this.status, this.code, message, more);
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

/** The app's own options of a request, beside openapi-fetch's (`params`, `body`, `signal`). */
export interface CallOptions {
  /** Do not report a 401 to the session watchers (sign-in and first-run pages). */
  quiet401?: boolean;
}

const client = createClient<paths>({
  credentials: "same-origin",
  cache: "no-store",
  headers: { Accept: "application/json" },
});

type Method = "get" | "put" | "post" | "patch" | "delete";
type PathOf<M extends Method> = ClientPathsWithMethod<typeof client, M>;
type InitOf<P extends keyof paths, M extends Method> = MaybeOptionalInit<paths[P], M>;
/** The options a call takes: optional when the operation needs no parameter and no body. */
type Args<I> = undefined extends I ? [init?: Exclude<I, undefined> & CallOptions] : [init: I & CallOptions];
type Data<P extends keyof paths, M extends Method> = Exclude<
  FetchResponse<paths[P][M] & Record<string | number, unknown>, object, "application/json">["data"],
  undefined
>;
/** What a call resolves to: the answer's body, or nothing for an answer without one. */
type Answer<P extends keyof paths, M extends Method> = [Data<P, M>] extends [never] ? void : Data<P, M>;

/** A failed answer as an ApiError: the plane's error body when it is one. */
function failure(res: Response, body: unknown): ApiError {
  const b = (typeof body === "object" && body !== null ? body : {}) as Partial<Record<keyof ErrorBody, unknown>>;
  const metadata = typeof b.metadata === "object" && b.metadata !== null ? (b.metadata as Record<string, unknown>) : undefined;
  let retryAfter: number | undefined;
  const ms = metadata?.["retryAfterMs"];
  if (typeof ms === "number") retryAfter = Math.max(1, Math.ceil(ms / 1000));
  else {
    const header = Number(res.headers.get("Retry-After"));
    if (Number.isFinite(header) && header > 0) retryAfter = header;
  }
  const more: ConstructorParameters<typeof ApiError>[3] = {};
  if (typeof b.errId === "string") more.errId = b.errId;
  if (typeof b.reqId === "string") more.reqId = b.reqId;
  if (metadata) more.metadata = metadata;
  if (retryAfter !== undefined) more.retryAfter = retryAfter;
  return new ApiError(
    res.status,
    typeof b.code === "string" ? (b.code as PlaneErrorCode) : `HTTP_${res.status}`,
    typeof b.message === "string" ? b.message : `${res.status} ${res.statusText}`.trim(),
    more,
  );
}

function method<M extends Method>(m: M) {
  return async <P extends PathOf<M>>(path: P, ...args: Args<InitOf<P, M>>): Promise<Answer<P, M>> => {
    const { quiet401, ...init } = (args[0] ?? {}) as CallOptions & Record<string, unknown>;
    // The one untyped step: the method is chosen at run time; `path` and `init` were checked
    // against the document by this function's signature.
    const send = client[m.toUpperCase() as Uppercase<M>] as unknown as (
      path: string,
      init: Record<string, unknown>,
    ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    let sent: Awaited<ReturnType<typeof send>>;
    try {
      sent = await send(path as string, init);
    } catch (e) {
      if (e instanceof DOMException && e.name === "AbortError") throw e;
      throw new ApiError(0, "NETWORK", "The plane cannot be reached. Check the connection and try again.");
    }
    if (!sent.response.ok) {
      const err = failure(sent.response, sent.error);
      if (err.status === 401 && !quiet401 && err.code !== "INVALID_CREDENTIALS") {
        unauthorizedListeners.forEach((fn) => fn());
      }
      throw err;
    }
    return sent.data as Answer<P, M>;
  };
}

/**
 * The plane's REST API. `api.GET("/api/nodes/{id}", { params: { path: { id } } })` resolves to
 * the answer's body (typed by the document) or throws an ApiError.
 */
export const api = {
  GET: method("get"),
  POST: method("post"),
  PUT: method("put"),
  PATCH: method("patch"),
  DELETE: method("delete"),
};

/** `ws://` or `wss://` on this page's host, for a path. */
export function socketUrl(path: string): string {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}${path}`;
}
