// A jose-backed peer for cross-checking termplane's ES256 command envelopes.
//
//   node peer.mjs sign    < {"jwk": {kty, crv, x, y, d}, "payload": <JSON value>, "typ": "..."}
//       prints the compact JWS signed with jose's CompactSign under {"alg":"ES256","typ":typ}
//   node peer.mjs verify  < {"jwk": {kty, crv, x, y}, "jws": "<compact>", "typ": "..."}
//       prints {"ok": true, "payload": "<payload text>"} or {"ok": false, "error": "<reason>"}
//
// Verification pins alg to ES256 and requires a header of exactly alg and the given typ.
import { CompactSign, compactVerify, importJWK } from 'jose';

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function sign({ jwk, payload, typ }) {
  const key = await importJWK({ ...jwk, alg: 'ES256' }, 'ES256');
  const bytes = new TextEncoder().encode(JSON.stringify(payload));
  return new CompactSign(bytes).setProtectedHeader({ alg: 'ES256', typ }).sign(key);
}

async function verify({ jwk, jws, typ }) {
  const key = await importJWK({ ...jwk, alg: 'ES256' }, 'ES256');
  try {
    const { payload, protectedHeader } = await compactVerify(jws, key, { algorithms: ['ES256'] });
    const names = Object.keys(protectedHeader).sort();
    if (names.length !== 2 || names[0] !== 'alg' || names[1] !== 'typ') {
      return { ok: false, error: `unexpected header members ${names.join(',')}` };
    }
    if (protectedHeader.typ !== typ) {
      return { ok: false, error: 'wrong typ' };
    }
    return { ok: true, payload: new TextDecoder().decode(payload) };
  } catch (e) {
    return { ok: false, error: String(e && e.code ? e.code : e) };
  }
}

const mode = process.argv[2];
const input = await readStdin();
if (mode === 'sign') {
  process.stdout.write(`${await sign(input)}\n`);
} else if (mode === 'verify') {
  process.stdout.write(`${JSON.stringify(await verify(input))}\n`);
} else {
  process.stderr.write('usage: node peer.mjs sign|verify < request.json\n');
  process.exit(2);
}
