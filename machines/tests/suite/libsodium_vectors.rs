//! Replays the vectors recorded from libsodium (through PyNaCl) by
//! `tools/vectors/gen_libsodium_vectors.py`: secret streams with every tag, explicit rekeys and a
//! counter wrap, and the protocol-14 key derivation with libsodium-sealed first frames.
//!
//! Catalogue C36 (cross-implementation interop on recorded streams, REKEY and FINAL included) is
//! covered here; `pynacl_live.rs` repeats it against a live libsodium peer with random input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use termplane_machines::kx::{
    self, HandshakeError, InitiatorParams, Responder, StaticKeypair, derive_direction_keys,
};
use termplane_machines::rng;
use termplane_machines::seal::{HEADER_BYTES, OpenError, Opener, Sealer, SessionKey, Tag};
use termplane_proto::{Binding, Key32};

fn load(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn bytes(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

fn arr32(v: &Value) -> [u8; 32] {
    bytes(v).try_into().unwrap()
}

fn tag_of(v: &Value) -> Tag {
    Tag::from_byte(u8::try_from(v.as_u64().unwrap()).unwrap()).unwrap()
}

#[test]
fn c36_libsodium_streams_open_and_reseal_byte_for_byte() {
    let doc = load("libsodium_secretstream.json");
    let streams = doc["streams"].as_array().unwrap();
    assert!(streams.len() >= 5);
    let mut pushes = 0;
    let mut seen_tags = std::collections::HashSet::new();
    for s in streams {
        let name = s["name"].as_str().unwrap();
        let key = SessionKey(arr32(&s["key"]));
        let header: [u8; HEADER_BYTES] = bytes(&s["header"]).try_into().unwrap();
        let mut opener = Opener::with_header(&key, header);
        let mut sealer = Sealer::with_header(&key, header);
        assert_eq!(sealer.header(), header);
        if let Some(c) = s["counter_start"].as_u64() {
            let c = u32::try_from(c).unwrap();
            opener.set_counter_for_tests(c);
            sealer.set_counter_for_tests(c);
        }
        for (i, step) in s["steps"].as_array().unwrap().iter().enumerate() {
            if step["op"] == "rekey" {
                opener.rekey();
                sealer.rekey();
                continue;
            }
            let plaintext = bytes(&step["plaintext"]);
            let ciphertext = bytes(&step["ciphertext"]);
            let tag = tag_of(&step["tag"]);
            assert_eq!(ciphertext.len(), plaintext.len() + 17);
            let (opened, opened_tag) = opener
                .pull(&ciphertext)
                .unwrap_or_else(|e| panic!("{name} step {i}: {e}"));
            assert_eq!(opened, plaintext, "{name} step {i}");
            assert_eq!(opened_tag, tag, "{name} step {i}");
            let resealed = sealer.push(&plaintext, tag).unwrap();
            assert_eq!(
                hex::encode(&resealed),
                hex::encode(&ciphertext),
                "{name} step {i}"
            );
            seen_tags.insert(tag);
            pushes += 1;
        }
        if opener.is_finished() {
            assert!(sealer.is_finished());
            assert_eq!(opener.pull(&[0; 17]), Err(OpenError::AfterFinal));
        }
    }
    assert!(pushes >= 20);
    assert_eq!(seen_tags.len(), 4, "every tag is exercised");
}

#[test]
fn c36_libsodium_streams_open_as_wire_frames() {
    // The same streams through the frame API: header in front of the first frame.
    let doc = load("libsodium_secretstream.json");
    for s in doc["streams"].as_array().unwrap() {
        if !s["counter_start"].is_null()
            || s["steps"]
                .as_array()
                .unwrap()
                .iter()
                .any(|st| st["op"] == "rekey")
        {
            continue;
        }
        let key = SessionKey(arr32(&s["key"]));
        let mut opener = Opener::new(&key);
        for (i, step) in s["steps"].as_array().unwrap().iter().enumerate() {
            let mut frame = Vec::new();
            if i == 0 {
                frame.extend(bytes(&s["header"]));
            }
            frame.extend(bytes(&step["ciphertext"]));
            let (opened, tag) = opener.open_frame_with_tag(&frame).unwrap();
            assert_eq!(opened, bytes(&step["plaintext"]));
            assert_eq!(tag, tag_of(&step["tag"]));
        }
    }
}

#[test]
fn libsodium_counter_wrap_rekeys_like_libsodium() {
    // The recorded stream starts at counter 0xfffffffe, so its third push follows the wrap.
    let doc = load("libsodium_secretstream.json");
    let s = doc["streams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "counter-wrap")
        .unwrap();
    let key = SessionKey(arr32(&s["key"]));
    let header: [u8; HEADER_BYTES] = bytes(&s["header"]).try_into().unwrap();
    // Without the override the same key and header give other ciphertexts: the override matters.
    let mut plain = Sealer::with_header(&key, header);
    let step0 = &s["steps"][0];
    assert_ne!(
        plain
            .push(&bytes(&step0["plaintext"]), Tag::Message)
            .unwrap(),
        bytes(&step0["ciphertext"])
    );
    // Every push, including the two after the wrap (which only open if our opener rekeyed when
    // the counter wrapped to zero, as libsodium does), opens with the override.
    let mut opener = Opener::with_header(&key, header);
    opener.set_counter_for_tests(0xffff_fffe);
    for step in s["steps"].as_array().unwrap() {
        assert_eq!(
            opener.pull(&bytes(&step["ciphertext"])).unwrap().0,
            bytes(&step["plaintext"])
        );
    }
}

fn key32(v: &Value) -> Key32 {
    Key32(arr32(v))
}

#[test]
fn libsodium_kx_derivation_matches() {
    let doc = load("libsodium_kx.json");
    assert_eq!(doc["label"], "termplane/kx/v14");
    assert_eq!(kx::KX_LABEL, b"termplane/kx/v14");
    let cases = doc["cases"].as_array().unwrap();
    assert!(
        cases
            .iter()
            .any(|c| !c["node_id"].as_str().unwrap().is_ascii())
    );
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let node_id = c["node_id"].as_str().unwrap();
        let plane = StaticKeypair::from_secret_bytes(arr32(&c["plane_secret"]));
        assert_eq!(plane.public(), key32(&c["plane_public"]), "{name}");
        let eph = key32(&c["eph_public"]);
        let node = key32(&c["node_public"]);

        let dh = kx::x25519_shared(&arr32(&c["eph_secret"]), &plane.public()).unwrap();
        assert_eq!(dh, arr32(&c["dh"]), "{name}");
        let dk = derive_direction_keys(14, &dh, &eph, &node, &plane.public(), node_id).unwrap();
        assert_eq!(dk.agent_to_plane.0, arr32(&c["agent_tx"]), "{name}");
        assert_eq!(dk.plane_to_agent.0, arr32(&c["agent_rx"]), "{name}");

        let agent = kx::derive_initiator(&arr32(&c["eph_secret"]), &plane.public(), &node, node_id)
            .unwrap();
        assert_eq!(agent.tx.0, arr32(&c["agent_tx"]), "{name}");
        assert_eq!(agent.rx.0, arr32(&c["agent_rx"]), "{name}");
        let responder = kx::derive_responder(&plane, &eph, &node, node_id).unwrap();
        assert_eq!(responder.rx.0, arr32(&c["plane_rx"]), "{name}");
        assert_eq!(responder.tx.0, arr32(&c["plane_tx"]), "{name}");
    }
}

#[test]
fn libsodium_sealed_first_flights_complete_our_handshake() {
    let doc = load("libsodium_kx.json");
    for c in doc["cases"].as_array().unwrap() {
        let node_id = c["node_id"].as_str().unwrap();
        let plane = StaticKeypair::from_secret_bytes(arr32(&c["plane_secret"]));
        let node = key32(&c["node_public"]);
        let kx_frame = termplane_proto::Kx {
            eph: key32(&c["eph_public"]),
            node_static: node,
        };
        // Plane side: libsodium's sealed binding opens and passes the checks.
        let opened = Responder::new(&plane, node, node_id)
            .on_kx(&kx_frame)
            .unwrap()
            .on_binding(&bytes(&c["binding_frame"]))
            .unwrap();
        let expected: Binding = serde_json::from_str(c["binding_json"].as_str().unwrap()).unwrap();
        assert_eq!(opened.binding, expected);

        // Agent side: same ephemeral, libsodium's sealed ok establishes the link.
        let params = InitiatorParams {
            plane_static: plane.public(),
            node_static: node,
            binding: expected.clone(),
        };
        let mut r = rng::from_seed([7; 32]);
        let (initiator, hello) =
            kx::Initiator::start_with_ephemeral(&params, arr32(&c["eph_secret"]), &mut r).unwrap();
        assert_eq!(hello.kx, kx_frame);
        initiator.on_first_binary(&bytes(&c["ok_frame"])).unwrap();

        // The ok frame is not a binding: sealed the other way, it does not open at the plane.
        let err = Responder::new(&plane, node, node_id)
            .on_kx(&kx_frame)
            .unwrap()
            .on_binding(&bytes(&c["ok_frame"]))
            .err();
        assert_eq!(err, Some(HandshakeError::OpenFailed));
    }
}
