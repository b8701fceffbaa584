// Push notifications for this browser. The service worker (`/sw.js`) shows what the plane
// pushes; the browser subscribes with the plane's VAPID key (`GET /api/devices/vapid`) as
// `applicationServerKey` and the subscription (`PushSubscription.toJSON()`) is registered with
// `POST /api/devices`. Which device on the plane is this browser is remembered locally, with
// the subscription's endpoint, since the plane shows only the push service's origin.

import { api, ApiError } from "./api";
import { fromB64 } from "./b64";
import type { Device, DeviceRequest } from "./types";

export type PushSupport = "ok" | "insecure" | "unsupported";

const REMEMBER = "termplane.pushDevice";
const ACTIVATE_MS = 10_000;

export function pushSupport(): PushSupport {
  // Outside a secure context the browser hides the service worker and push interfaces.
  if (!window.isSecureContext) return "insecure";
  if (!("serviceWorker" in navigator) || typeof window.PushManager !== "function" || typeof window.Notification !== "function") {
    return "unsupported";
  }
  return "ok";
}

/** A failure to subscribe, in words for a person. */
export class PushError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PushError";
  }
}

interface Remembered {
  id: string;
  endpoint: string;
}

function remembered(): Remembered | null {
  try {
    const r = JSON.parse(localStorage.getItem(REMEMBER) ?? "null") as Remembered | null;
    return r && typeof r.id === "string" && typeof r.endpoint === "string" ? r : null;
  } catch {
    // Unreadable or refused storage: no device is known to be this browser, as with none kept.
    return null;
  }
}

function forget(): void {
  try {
    localStorage.removeItem(REMEMBER);
  } catch {
    // Storage refused: nothing was kept either.
  }
}

async function registration(): Promise<ServiceWorkerRegistration | undefined> {
  return navigator.serviceWorker.getRegistration("/");
}

async function subscription(): Promise<PushSubscription | null> {
  if (pushSupport() !== "ok") return null;
  const reg = await registration();
  return (await reg?.pushManager.getSubscription()) ?? null;
}

/** The id of the device (of `devices`) that is this browser, if it is subscribed. */
export async function thisDevice(devices: Device[]): Promise<string | null> {
  const r = remembered();
  if (!r || !devices.some((d) => d.id === r.id)) return null;
  // A browser that will not tell its subscription is, for this list, not subscribed.
  const sub = await subscription().catch(() => null);
  return sub && sub.endpoint === r.endpoint ? r.id : null;
}

/** A name for this browser: "Firefox on Linux" and the like. */
export function defaultDeviceName(): string {
  const ua = navigator.userAgent;
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /Firefox\//.test(ua)
      ? "Firefox"
      : /Chrome\//.test(ua)
        ? "Chrome"
        : /Safari\//.test(ua)
          ? "Safari"
          : "Browser";
  const os = /Android/.test(ua)
    ? "Android"
    : /iPhone|iPad/.test(ua)
      ? "iOS"
      : /Mac OS X/.test(ua)
        ? "macOS"
        : /Windows/.test(ua)
          ? "Windows"
          : /Linux/.test(ua)
            ? "Linux"
            : "";
  return os ? `${browser} on ${os}` : browser;
}

/** Resolves when `reg` has an active worker (at most ten seconds). */
function activated(reg: ServiceWorkerRegistration): Promise<void> {
  if (reg.active) return Promise.resolve();
  const worker = reg.installing ?? reg.waiting;
  return new Promise((resolve, reject) => {
    const timer = window.setTimeout(() => reject(new PushError("The notification worker did not start.")), ACTIVATE_MS);
    const check = () => {
      if (reg.active) {
        window.clearTimeout(timer);
        resolve();
      } else if (worker?.state === "redundant") {
        window.clearTimeout(timer);
        reject(new PushError("The notification worker failed to install."));
      }
    };
    worker?.addEventListener("statechange", check);
    check();
  });
}

function sameBytes(a: ArrayBuffer | null, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.length) return false;
  const x = new Uint8Array(a);
  return x.every((v, i) => v === b[i]);
}

/** Subscribes this browser and registers it with the plane as `name`. */
export async function subscribeThisBrowser(name: string): Promise<Device> {
  const permission = await Notification.requestPermission();
  if (permission === "denied") {
    throw new PushError("Notifications are blocked for this site. Allow them in the browser's site settings, then try again.");
  }
  if (permission !== "granted") throw new PushError("The browser did not allow notifications.");
  let reg: ServiceWorkerRegistration;
  try {
    reg = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  } catch (e) {
    throw new PushError(`The notification worker could not be installed: ${e instanceof Error ? e.message : String(e)}`);
  }
  await activated(reg);
  const { publicKey } = await api.GET("/api/devices/vapid");
  const key = new Uint8Array(fromB64(publicKey));
  let sub = await reg.pushManager.getSubscription();
  // A subscription made for another key (the plane's data was reset) cannot be reused.
  if (sub && !sameBytes(sub.options.applicationServerKey, key)) {
    // Should it refuse to end, the subscription below fails and says why.
    await sub.unsubscribe().catch(() => false);
    sub = null;
  }
  if (!sub) {
    try {
      sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new PushError(`The browser's push service did not give a subscription (${why}). Some browsers have none, or block it in private windows.`);
    }
  }
  const json = sub.toJSON();
  const body: DeviceRequest = {
    name,
    endpoint: json.endpoint ?? sub.endpoint,
    keys: { p256dh: json.keys?.["p256dh"] ?? "", auth: json.keys?.["auth"] ?? "" },
    expirationTime: json.expirationTime ?? null,
  };
  const device = await api.POST("/api/devices", { body });
  try {
    localStorage.setItem(REMEMBER, JSON.stringify({ id: device.id, endpoint: body.endpoint }));
  } catch {
    // Without storage the device list cannot say which one is this browser; pushes still work.
  }
  return device;
}

/** Removes a device from the plane; when it is this browser, its subscription ends too. */
export async function removeDevice(id: string): Promise<void> {
  try {
    await api.DELETE("/api/devices/{id}", { params: { path: { id } } });
  } catch (e) {
    // Already gone (its push service forgot it, say): the aim is reached.
    if (!(e instanceof ApiError && e.status === 404)) throw e;
  }
  if (remembered()?.id === id) {
    forget();
    // The plane sends this browser nothing more either way: a subscription the browser keeps
    // (it would not end it) only goes unused.
    const sub = await subscription().catch(() => null);
    await sub?.unsubscribe().catch(() => false);
  }
}
