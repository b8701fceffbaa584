// Base64 in the two spellings the plane uses: base64url without padding (WebAuthn ceremonies)
// and standard padded base64 (upload pieces).

const STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

const DECODE = (() => {
  const t = new Int16Array(128).fill(-1);
  for (let i = 0; i < 64; i++) {
    t[STD.charCodeAt(i)] = i;
    t[URL_SAFE.charCodeAt(i)] = i;
  }
  return t;
})();

function encode(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]! + alphabet[(n >> 6) & 63]! + alphabet[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]!;
    if (pad) out += "==";
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += alphabet[(n >> 18) & 63]! + alphabet[(n >> 12) & 63]! + alphabet[(n >> 6) & 63]!;
    if (pad) out += "=";
  }
  return out;
}

function asBytes(data: ArrayBuffer | ArrayBufferView): Uint8Array {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** base64url without padding. */
export function toB64url(data: ArrayBuffer | ArrayBufferView): string {
  return encode(asBytes(data), URL_SAFE, false);
}

/** Standard base64 with padding. */
export function toB64(data: ArrayBuffer | ArrayBufferView): string {
  return encode(asBytes(data), STD, true);
}

/** Decodes base64 in either alphabet, padded or not; throws on any other character. */
export function fromB64(text: string): ArrayBuffer {
  const clean = text.replace(/=+$/, "");
  if (clean.length % 4 === 1) throw new Error("invalid base64 length");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const c = clean.charCodeAt(i);
    const v = c < 128 ? DECODE[c]! : -1;
    if (v < 0) throw new Error("invalid base64 character");
    acc = ((acc << 6) | v) & 0x3fff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out.buffer.slice(0, o);
}
