// This browser's signing identity for channels, and the texts it signs (machines/src/channel.rs
// is the contract).
//
// The browser makes its own P-256 key pair with WebCrypto, the private key non-extractable, and
// keeps it in IndexedDB (database "termplane", store "identities", keyed by the account's id):
// the private key never leaves this browser and not even this script can read its bytes. The
// plane gets the public key (a JWK), a proof that the browser holds the private half, and then
// one signature per entry. Signed texts are UTF-8, lines joined by "\n", no trailing newline:
//
//   identity proof               entry signing input
//   termplane-identity/1         termplane-channel-entry/1
//   name=<identity name>         channel=<channel id>
//   thumbprint=<thumbprint>      seq=<decimal>
//                                prev=<hash of the entry before, lowercase hex; 64 zeros first>
//                                identity=<identity id>
//                                sha256=<lowercase hex SHA-256 of the body's UTF-8 bytes>
//
// The thumbprint is RFC 7638's: unpadded base64url of the SHA-256 of
// {"crv":"P-256","kty":"EC","x":"<x>","y":"<y>"}. A signature is ECDSA P-256 with SHA-256 in
// WebCrypto's raw 64-byte r || s form, as unpadded base64url.

import { api, ApiError } from "./api";
import { toB64url } from "./b64";
import { createStore } from "./store";
import type { ChannelEntry, ChannelHead, PublicJwk } from "./types";

/** The `prev` of a channel's first entry. */
export const GENESIS = "0".repeat(64);

/** Most characters (Unicode scalar values) of an entry's body. */
export const MAX_BODY_CHARS = 16_384;

/** How often a post is signed again when another writer moved the channel's head first. */
const HEAD_RETRIES = 4;

const encoder = new TextEncoder();

function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

function hex(data: ArrayBuffer): string {
  return Array.from(new Uint8Array(data), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Lowercase hex SHA-256 of `text`'s UTF-8 bytes. */
export async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", utf8(text)));
}

/** RFC 7638 thumbprint of a P-256 public key. */
export async function thumbprint(jwk: PublicJwk): Promise<string> {
  const canonical = `{"crv":"P-256","kty":"EC","x":"${jwk.x}","y":"${jwk.y}"}`;
  return toB64url(await crypto.subtle.digest("SHA-256", utf8(canonical)));
}

/** The text an identity's registration proof signs. */
export function identityProofText(name: string, thumb: string): string {
  return `termplane-identity/1\nname=${name}\nthumbprint=${thumb}`;
}

/** The text an entry's signature covers (its SHA-256 is the entry's hash). */
export async function entrySigningInput(channelId: string, seq: number, prev: string, identityId: string, body: string): Promise<string> {
  return [
    "termplane-channel-entry/1",
    `channel=${channelId}`,
    `seq=${seq}`,
    `prev=${prev}`,
    `identity=${identityId}`,
    `sha256=${await sha256Hex(body)}`,
  ].join("\n");
}

async function sign(privateKey: CryptoKey, text: string): Promise<string> {
  return toB64url(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, privateKey, utf8(text)));
}

/** Whether this browser can sign (WebCrypto exists only at https:// addresses and localhost). */
export function signingSupported(): boolean {
  return window.isSecureContext && typeof crypto !== "undefined" && !!crypto.subtle;
}

// ----- keeping the key -----

interface Kept {
  identityId: string;
  name: string;
  thumbprint: string;
  keyPair: CryptoKeyPair;
}

export interface BrowserIdentity extends Kept {
  /** Whether IndexedDB keeps it; false: it lasts only as long as this page. */
  kept: boolean;
}

const DB_NAME = "termplane";
const STORE = "identities";
/** When IndexedDB is refused (some private windows): for this page's life only. */
const memory = new Map<string, Kept>();

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    if (typeof indexedDB === "undefined") {
      reject(new Error("no IndexedDB"));
      return;
    }
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => {
      if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE);
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error("IndexedDB refused"));
    req.onblocked = () => reject(new Error("IndexedDB is busy in another tab"));
  });
}

async function inStore<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest): Promise<T> {
  const db = await openDb();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = fn(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result as T);
      tx.onerror = () => reject(tx.error ?? req.error ?? new Error("IndexedDB failed"));
      tx.onabort = () => reject(tx.error ?? new Error("IndexedDB aborted"));
    });
  } finally {
    db.close();
  }
}

function isKept(v: unknown): v is Kept {
  const k = v as Partial<Kept> | null | undefined;
  return (
    !!k &&
    typeof CryptoKey !== "undefined" &&
    typeof k.identityId === "string" &&
    typeof k.name === "string" &&
    typeof k.thumbprint === "string" &&
    k.keyPair?.privateKey instanceof CryptoKey &&
    k.keyPair.publicKey instanceof CryptoKey
  );
}

async function readKept(userId: string): Promise<BrowserIdentity | null> {
  const held = memory.get(userId);
  if (held) return { ...held, kept: false };
  try {
    const v = await inStore<unknown>("readonly", (s) => s.get(userId));
    return isKept(v) ? { ...v, kept: true } : null;
  } catch {
    // IndexedDB refused (a private window, say): nothing kept can be read, as when nothing was
    // kept; the next post makes an identity held in memory instead.
    return null;
  }
}

async function keep(userId: string, k: Kept): Promise<boolean> {
  try {
    await inStore("readwrite", (s) => s.put(k, userId));
    memory.delete(userId);
    return true;
  } catch {
    // Not kept across reloads: held in memory, and the caller says so (`kept: false`).
    memory.set(userId, k);
    return false;
  }
}

async function forget(userId: string): Promise<void> {
  memory.delete(userId);
  try {
    await inStore("readwrite", (s) => s.delete(userId));
  } catch {
    // Nothing was kept there either.
  }
}

// ----- the identity of the signed-in account in this browser -----

/** This browser's identity of an account: null once looked up and there is none. */
export const browserIdentity = createStore<{ userId: string; identity: BrowserIdentity | null } | null>(null);

function settle(userId: string, identity: BrowserIdentity | null): BrowserIdentity | null {
  browserIdentity.set({ userId, identity });
  return identity;
}

/** Looking up, making and dropping identities happen one at a time (so none undoes another). */
let chain: Promise<unknown> = Promise.resolve();

function serial<T>(fn: () => Promise<T>): Promise<T> {
  const r = chain.then(fn, fn);
  // The chain only orders the calls: each caller gets its own failure through `r`.
  chain = r.catch(() => undefined);
  return r;
}

/**
 * The identity this browser keeps for `userId`, checked with the plane: one the plane no longer
 * knows, or has revoked, is dropped (the next post makes a new one).
 */
export function loadIdentity(userId: string, again = false): Promise<BrowserIdentity | null> {
  return serial(() => load(userId, again));
}

async function load(userId: string, again = false): Promise<BrowserIdentity | null> {
  const s = browserIdentity.get();
  if (!again && s && s.userId === userId) return s.identity;
  const found = await readKept(userId);
  if (!found) return settle(userId, null);
  try {
    const r = await api.GET("/api/identities/{id}", { params: { path: { id: found.identityId } } });
    if (r.revokedAt !== null || r.owner.userId !== userId || r.owner.subshellId !== null || r.thumbprint !== found.thumbprint) {
      await forget(userId);
      return settle(userId, null);
    }
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      await forget(userId);
      return settle(userId, null);
    }
    // The plane did not answer: keep it; a post tells whether it still works.
  }
  return settle(userId, found);
}

/** Makes a key pair, registers its public half as an identity named `name`, and keeps it. */
export function createIdentity(userId: string, name: string): Promise<BrowserIdentity> {
  return serial(() => create(userId, name));
}

async function create(userId: string, name: string): Promise<BrowserIdentity> {
  const keyPair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
  const jwk = await crypto.subtle.exportKey("jwk", keyPair.publicKey);
  if (typeof jwk.x !== "string" || typeof jwk.y !== "string") throw new Error("The browser did not give the public key.");
  const publicKey: PublicJwk = { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y };
  const thumb = await thumbprint(publicKey);
  const proof = await sign(keyPair.privateKey, identityProofText(name, thumb));
  const r = await api.POST("/api/identities", { body: { name, publicKey, proof } });
  if (r.thumbprint !== thumb) throw new Error("The plane registered a key with another thumbprint than this browser's.");
  const k: Kept = { identityId: r.id, name: r.name, thumbprint: thumb, keyPair };
  const kept = await keep(userId, k);
  return settle(userId, { ...k, kept }) as BrowserIdentity;
}

/** Revokes the identity on the plane (its entries keep verifying) and forgets the key. */
export function revokeIdentity(userId: string, identity: BrowserIdentity): Promise<void> {
  return serial(async () => {
    try {
      await api.DELETE("/api/identities/{id}", { params: { path: { id: identity.identityId } } });
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 404)) throw e;
    }
    await forget(userId);
    settle(userId, null);
  });
}

/** Whether a refused post says the identity itself is gone (revoked, deleted, not this account's). */
async function identityGone(e: ApiError, identity: BrowserIdentity): Promise<boolean> {
  if (e.code === "IDENTITY_REVOKED" || e.code === "IDENTITY_NOT_YOURS") return true;
  if (e.status !== 404) return false;
  // A 404 names the channel or the identity: ask about the identity.
  try {
    await api.GET("/api/identities/{id}", { params: { path: { id: identity.identityId } } });
    return false;
  } catch (x) {
    return x instanceof ApiError && x.status === 404;
  }
}

function headOf(v: unknown): ChannelHead | null {
  const h = v as Partial<ChannelHead> | null | undefined;
  return h && typeof h.seq === "number" && typeof h.hash === "string" ? { seq: h.seq, hash: h.hash } : null;
}

/**
 * Signs `body` as the entry after `head` and posts it, as this browser's identity of `userId`
 * (made first, named `name`, when there is none). When another writer got there first, signs
 * again for the new head; when the plane no longer accepts the identity, makes a new one.
 */
export async function postEntry(userId: string, channelId: string, head: ChannelHead, body: string, name: string): Promise<ChannelEntry> {
  let identity = await serial(async () => (await load(userId)) ?? (await create(userId, name)));
  let at = head;
  let moved = 0;
  let renewed = false;
  for (;;) {
    const seq = at.seq + 1;
    const input = await entrySigningInput(channelId, seq, at.hash, identity.identityId, body);
    const signature = await sign(identity.keyPair.privateKey, input);
    try {
      return await api.POST("/api/channels/{id}/entries", {
        params: { path: { id: channelId } },
        body: { identityId: identity.identityId, seq, prev: at.hash, body, signature },
      });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      if (e.code === "CHANNEL_HEAD_MOVED") {
        if (moved >= HEAD_RETRIES) throw new Error("Others kept posting while this was signed; post it again.");
        moved += 1;
        at = headOf(e.metadata?.["head"]) ?? (await api.GET("/api/channels/{id}", { params: { path: { id: channelId } } })).head;
        continue;
      }
      if (!renewed && (await identityGone(e, identity))) {
        renewed = true;
        const dropped = identity;
        identity = await serial(async () => {
          await forget(userId);
          settle(userId, null);
          return create(userId, dropped.name);
        });
        continue;
      }
      throw e;
    }
  }
}
