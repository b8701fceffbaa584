#!/usr/bin/env python3
"""A libsodium peer (through PyNaCl) for machines/tests/suite/pynacl_live.rs.

Reads one JSON document {"jobs": [...]} on stdin and writes {"results": [...]} on stdout, one
result per job, in order. Byte strings travel as lowercase hex.

Jobs:
  {"op": "seal", "key", "messages": [{"plaintext", "tag"}], "rekey_before": [i, ...]}
      -> {"header", "ciphertexts": [...]}   libsodium pushes (ad empty); an explicit rekey runs
         before each listed message index. libsodium keeps pushing after a FINAL tag if asked.
  {"op": "open", "key", "header", "ciphertexts": [...], "rekey_before": [i, ...]}
      -> {"messages": [{"plaintext", "tag"}], "error_at": null | i}
  {"op": "kx", "eph_secret", "plane_secret", "node_public", "node_id", "version"}
      -> {"eph_public", "plane_public", "dh", "agent_to_plane", "plane_to_agent"}
"""

import json
import struct
import sys

import nacl.bindings as sodium
from nacl.exceptions import CryptoError

KX_LABEL = b"termplane/kx/v14"


def seal(job):
    key = bytes.fromhex(job["key"])
    rekey_before = set(job.get("rekey_before", []))
    state = sodium.crypto_secretstream_xchacha20poly1305_state()
    header = sodium.crypto_secretstream_xchacha20poly1305_init_push(state, key)
    out = []
    for i, m in enumerate(job["messages"]):
        if i in rekey_before:
            sodium.crypto_secretstream_xchacha20poly1305_rekey(state)
        c = sodium.crypto_secretstream_xchacha20poly1305_push(state, bytes.fromhex(m["plaintext"]), None, m["tag"])
        out.append(c.hex())
    return {"header": header.hex(), "ciphertexts": out}


def open_(job):
    key = bytes.fromhex(job["key"])
    rekey_before = set(job.get("rekey_before", []))
    state = sodium.crypto_secretstream_xchacha20poly1305_state()
    sodium.crypto_secretstream_xchacha20poly1305_init_pull(state, bytes.fromhex(job["header"]), key)
    messages = []
    for i, c in enumerate(job["ciphertexts"]):
        if i in rekey_before:
            sodium.crypto_secretstream_xchacha20poly1305_rekey(state)
        try:
            m, tag = sodium.crypto_secretstream_xchacha20poly1305_pull(state, bytes.fromhex(c), None)
        except CryptoError:
            return {"messages": messages, "error_at": i}
        messages.append({"plaintext": m.hex(), "tag": tag})
    return {"messages": messages, "error_at": None}


def kx(job):
    eph_secret = bytes.fromhex(job["eph_secret"])
    plane_secret = bytes.fromhex(job["plane_secret"])
    node_public = bytes.fromhex(job["node_public"])
    node_id = job["node_id"].encode("utf-8")
    eph_public = sodium.crypto_scalarmult_base(eph_secret)
    plane_public = sodium.crypto_scalarmult_base(plane_secret)
    dh = sodium.crypto_scalarmult(eph_secret, plane_public)
    if dh != sodium.crypto_scalarmult(plane_secret, eph_public):
        raise SystemExit("libsodium X25519 disagrees with itself")
    transcript = (
        struct.pack(">H", len(KX_LABEL))
        + KX_LABEL
        + struct.pack(">I", job.get("version", 14))
        + dh
        + eph_public
        + node_public
        + plane_public
        + struct.pack(">H", len(node_id))
        + node_id
    )
    digest = sodium.crypto_generichash_blake2b_salt_personal(transcript, digest_size=64)
    return {
        "eph_public": eph_public.hex(),
        "plane_public": plane_public.hex(),
        "dh": dh.hex(),
        "agent_to_plane": digest[:32].hex(),
        "plane_to_agent": digest[32:].hex(),
    }


OPS = {"seal": seal, "open": open_, "kx": kx}


def main():
    request = json.load(sys.stdin)
    results = [OPS[job["op"]](job) for job in request["jobs"]]
    json.dump({"results": results}, sys.stdout)


if __name__ == "__main__":
    main()
