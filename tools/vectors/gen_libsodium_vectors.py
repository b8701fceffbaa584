#!/usr/bin/env python3
"""Writes the libsodium reference vectors replayed by machines/tests/suite/libsodium_vectors.rs.

Every value comes from libsodium through PyNaCl (`pip install pynacl`): the secret-stream
ciphertexts, the X25519 results and the BLAKE2b digests of the termplane key derivation.

Keys, plaintexts and X25519 secrets are derived from fixed labels, so they are the same on every
run. libsodium draws secret-stream headers itself; the headers it produced are recorded next to
the ciphertexts, which makes the replay exact (the construction is deterministic given key and
header). Regenerating therefore changes headers and ciphertexts but not what the tests check.

Usage: python3 tools/vectors/gen_libsodium_vectors.py   (from the repository root)
"""

import json
import os
import struct

import nacl
import nacl.bindings as sodium

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "..", "machines", "tests", "data")

TAG_MESSAGE = sodium.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE
TAG_PUSH = sodium.crypto_secretstream_xchacha20poly1305_TAG_PUSH
TAG_REKEY = sodium.crypto_secretstream_xchacha20poly1305_TAG_REKEY
TAG_FINAL = sodium.crypto_secretstream_xchacha20poly1305_TAG_FINAL

KX_LABEL = b"termplane/kx/v14"
PROTOCOL_VERSION = 14


def derive(label, size):
    """Deterministic bytes: BLAKE2b(label || block index) blocks, concatenated."""
    out = b""
    block = 0
    while len(out) < size:
        out += sodium.crypto_generichash_blake2b_salt_personal(
            b"termplane-vectors/" + label.encode() + struct.pack(">I", block), digest_size=64
        )
        block += 1
    return out[:size]


def new_push(key, counter=None):
    state = sodium.crypto_secretstream_xchacha20poly1305_state()
    header = sodium.crypto_secretstream_xchacha20poly1305_init_push(state, key)
    if counter is not None:
        # libsodium's state is k[32] || nonce[12] (counter[4] little-endian || inner nonce[8]) ||
        # pad[8]; overriding the counter reaches the wrap-around rekey in a few pushes.
        state.statebuf[32:36] = struct.pack("<I", counter)
    return state, header


def stream(name, key_label, steps, counter=None):
    key = derive(key_label, 32)
    state, header = new_push(key, counter)
    recorded = []
    for i, step in enumerate(steps):
        if step == "rekey":
            sodium.crypto_secretstream_xchacha20poly1305_rekey(state)
            recorded.append({"op": "rekey"})
            continue
        size, tag = step
        plaintext = derive(f"{name}/{i}", size)
        ciphertext = sodium.crypto_secretstream_xchacha20poly1305_push(state, plaintext, None, tag)
        assert len(ciphertext) == size + 17
        recorded.append(
            {"op": "push", "tag": tag, "plaintext": plaintext.hex(), "ciphertext": ciphertext.hex()}
        )
    # Self-check: libsodium opens what it sealed.
    pull = sodium.crypto_secretstream_xchacha20poly1305_state()
    sodium.crypto_secretstream_xchacha20poly1305_init_pull(pull, header, key)
    if counter is not None:
        pull.statebuf[32:36] = struct.pack("<I", counter)
    for step in recorded:
        if step["op"] == "rekey":
            sodium.crypto_secretstream_xchacha20poly1305_rekey(pull)
            continue
        m, t = sodium.crypto_secretstream_xchacha20poly1305_pull(pull, bytes.fromhex(step["ciphertext"]), None)
        assert m.hex() == step["plaintext"] and t == step["tag"]
    return {
        "name": name,
        "key": key.hex(),
        "header": header.hex(),
        "counter_start": counter,
        "steps": recorded,
    }


def secretstream_vectors():
    sizes = [0, 1, 16, 63, 64, 65, 1000]
    return {
        "source": "libsodium crypto_secretstream_xchacha20poly1305 via PyNaCl " + nacl.__version__,
        "ad": "",
        "streams": [
            stream("sizes", "key/sizes", [(n, TAG_MESSAGE) for n in sizes]),
            stream(
                "tags",
                "key/tags",
                [
                    (5, TAG_MESSAGE),
                    (17, TAG_PUSH),
                    (31, TAG_REKEY),
                    (64, TAG_MESSAGE),
                    (0, TAG_REKEY),
                    (65, TAG_PUSH),
                    (100, TAG_MESSAGE),
                    (3, TAG_FINAL),
                ],
            ),
            stream("larger", "key/larger", [(4096, TAG_MESSAGE), (8191, TAG_REKEY), (4097, TAG_FINAL)]),
            stream(
                "explicit-rekey",
                "key/explicit-rekey",
                [(10, TAG_MESSAGE), "rekey", (20, TAG_MESSAGE), "rekey", "rekey", (1, TAG_FINAL)],
            ),
            stream(
                "counter-wrap",
                "key/counter-wrap",
                [(7, TAG_MESSAGE), (8, TAG_MESSAGE), (9, TAG_MESSAGE), (10, TAG_MESSAGE)],
                counter=0xFFFFFFFE,
            ),
            stream("final-only", "key/final-only", [(0, TAG_FINAL)]),
        ],
    }


def kx_transcript(version, dh, eph_pub, node_pub, plane_pub, node_id):
    node_id_bytes = node_id.encode("utf-8")
    return (
        struct.pack(">H", len(KX_LABEL))
        + KX_LABEL
        + struct.pack(">I", version)
        + dh
        + eph_pub
        + node_pub
        + plane_pub
        + struct.pack(">H", len(node_id_bytes))
        + node_id_bytes
    )


def kx_case(label, node_id):
    eph_secret = derive(f"kx/{label}/eph", 32)
    plane_secret = derive(f"kx/{label}/plane", 32)
    node_secret = derive(f"kx/{label}/node", 32)
    eph_pub = sodium.crypto_scalarmult_base(eph_secret)
    plane_pub = sodium.crypto_scalarmult_base(plane_secret)
    node_pub = sodium.crypto_scalarmult_base(node_secret)
    dh = sodium.crypto_scalarmult(eph_secret, plane_pub)
    assert dh == sodium.crypto_scalarmult(plane_secret, eph_pub)
    digest = sodium.crypto_generichash_blake2b_salt_personal(
        kx_transcript(PROTOCOL_VERSION, dh, eph_pub, node_pub, plane_pub, node_id), digest_size=64
    )
    agent_to_plane, plane_to_agent = digest[:32], digest[32:]

    # The agent's first binary frame (header || sealed binding) and the plane's sealed ok, both
    # sealed by libsodium under the derived keys.
    binding = json.dumps(
        {"nodeId": node_id, "nodeKey": f"tp_{label}-node-key", "protocolVersion": PROTOCOL_VERSION},
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode("utf-8")
    st, header = new_push(agent_to_plane)
    binding_frame = header + sodium.crypto_secretstream_xchacha20poly1305_push(st, binding, None, TAG_MESSAGE)
    st, header = new_push(plane_to_agent)
    ok_frame = header + sodium.crypto_secretstream_xchacha20poly1305_push(st, b'{"t":"ok"}', None, TAG_MESSAGE)

    return {
        "name": label,
        "node_id": node_id,
        "eph_secret": eph_secret.hex(),
        "eph_public": eph_pub.hex(),
        "plane_secret": plane_secret.hex(),
        "plane_public": plane_pub.hex(),
        "node_public": node_pub.hex(),
        "dh": dh.hex(),
        "agent_tx": agent_to_plane.hex(),
        "agent_rx": plane_to_agent.hex(),
        "plane_rx": agent_to_plane.hex(),
        "plane_tx": plane_to_agent.hex(),
        "binding_json": binding.decode("utf-8"),
        "binding_frame": binding_frame.hex(),
        "ok_frame": ok_frame.hex(),
    }


def kx_vectors():
    return {
        "source": "X25519 (crypto_scalarmult) and BLAKE2b-512 (crypto_generichash) from libsodium via PyNaCl",
        "derivation": "BLAKE2b-512(u16be(len(label)) || label || u32be(version) || dh || eph_pub || "
        "node_pub || plane_pub || u16be(len(node_id)) || node_id); first 32 bytes agent->plane, "
        "last 32 plane->agent",
        "label": KX_LABEL.decode(),
        "protocol_version": PROTOCOL_VERSION,
        "cases": [
            kx_case("plain", "node-0001"),
            kx_case("uuid", "3f1c9a52-7b0e-4d8e-9c61-2a5e8f0b7d43"),
            kx_case("unicode", "nœud-東京-🚀"),
            kx_case("empty-id", ""),
        ],
    }


def write(name, doc):
    path = os.path.join(OUT_DIR, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {os.path.relpath(path)} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    write("libsodium_secretstream.json", secretstream_vectors())
    write("libsodium_kx.json", kx_vectors())
