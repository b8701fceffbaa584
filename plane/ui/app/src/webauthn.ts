// Passkey ceremonies: the plane sends WebAuthn options as JSON (binary fields in base64url);
// they are decoded for the browser, and the browser's credential is encoded back.

import { api } from "./api";
import { fromB64, toB64url } from "./b64";
import type { components } from "./generated/openapi";
import type { Passkey, User } from "./types";

type Json = Record<string, unknown>;

type Ceremony = components["schemas"]["PasskeyCeremony"];

export function passkeysSupported(): boolean {
  return typeof window.PublicKeyCredential === "function" && !!navigator.credentials;
}

/** Some servers wrap the options once more in `{ publicKey: … }`. */
function options(c: Ceremony): Json {
  const pk = c.publicKey as Json;
  return (pk["publicKey"] && typeof pk["publicKey"] === "object" ? pk["publicKey"] : pk) as Json;
}

function decodeDescriptors(list: unknown): PublicKeyCredentialDescriptor[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.map((d: Json) => {
    const out: PublicKeyCredentialDescriptor = {
      type: "public-key",
      id: fromB64(String(d["id"])),
    };
    if (Array.isArray(d["transports"])) out.transports = d["transports"] as AuthenticatorTransport[];
    return out;
  });
}

function creationOptions(o: Json): PublicKeyCredentialCreationOptions {
  const user = o["user"] as Json;
  const out = {
    ...o,
    challenge: fromB64(String(o["challenge"])),
    user: { ...user, id: fromB64(String(user["id"])) },
  } as unknown as PublicKeyCredentialCreationOptions;
  const exclude = decodeDescriptors(o["excludeCredentials"]);
  if (exclude) out.excludeCredentials = exclude;
  return out;
}

function requestOptions(o: Json): PublicKeyCredentialRequestOptions {
  const out = { ...o, challenge: fromB64(String(o["challenge"])) } as unknown as PublicKeyCredentialRequestOptions;
  const allow = decodeDescriptors(o["allowCredentials"]);
  if (allow) out.allowCredentials = allow;
  return out;
}

/** Registers a passkey for the signed-in account under `name`. */
export async function registerPasskey(name: string): Promise<Passkey> {
  const start = await api.POST("/api/auth/passkeys/register/start", { body: { name } });
  const cred = (await navigator.credentials.create({
    publicKey: creationOptions(options(start)),
  })) as PublicKeyCredential | null;
  if (!cred) throw new Error("No passkey was created.");
  const r = cred.response as AuthenticatorAttestationResponse;
  const response: Json = {
    attestationObject: toB64url(r.attestationObject),
    clientDataJSON: toB64url(r.clientDataJSON),
  };
  const transports = typeof r.getTransports === "function" ? r.getTransports() : [];
  if (transports.length) response["transports"] = transports;
  return api.POST("/api/auth/passkeys/register/finish", {
    body: {
      ceremonyId: start.ceremonyId,
      credential: {
        id: cred.id,
        rawId: toB64url(cred.rawId),
        type: "public-key",
        response,
        extensions: {},
      },
    },
  });
}

/** Signs in with a passkey of the account `email`; the answer sets the session cookie. */
export async function signInWithPasskey(email: string): Promise<User> {
  const start = await api.POST("/api/auth/passkey/start", { body: { email }, quiet401: true });
  const cred = (await navigator.credentials.get({
    publicKey: requestOptions(options(start)),
  })) as PublicKeyCredential | null;
  if (!cred) throw new Error("No passkey was chosen.");
  const r = cred.response as AuthenticatorAssertionResponse;
  return api.POST("/api/auth/passkey/finish", {
    body: {
      ceremonyId: start.ceremonyId,
      credential: {
        id: cred.id,
        rawId: toB64url(cred.rawId),
        type: "public-key",
        response: {
          authenticatorData: toB64url(r.authenticatorData),
          clientDataJSON: toB64url(r.clientDataJSON),
          signature: toB64url(r.signature),
          userHandle: r.userHandle ? toB64url(r.userHandle) : null,
        },
        extensions: {},
      },
    },
    quiet401: true,
  });
}
