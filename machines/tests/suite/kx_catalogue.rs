//! Catalogue section B (link handshake) at the level of the key-exchange machines.
//!
//! B12 and B13 run over the Wycheproof X25519 vectors in `wycheproof_x25519.rs`. B17 (revoked
//! node key), B20 (frame order), B21–B22 (replays), B23 (timeouts) and B24 (floods) are decided by
//! the link machines and the plane's store around these machines, and are tested there.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashSet;

use termplane_machines::kx::{
    self, AwaitBinding, HandshakeError, Initiator, InitiatorParams, Responder, StaticKeypair,
    derive_direction_keys,
};
use termplane_machines::rng::{self, MachineRng};
use termplane_machines::seal::{Opener, Sealer};
use termplane_proto::{Binding, Key32, NodeFrame, decode_node_frame, key::b64url_encode};

const NODE_ID: &str = "node-7f3a";

struct World {
    plane: StaticKeypair,
    node: StaticKeypair,
    rng: MachineRng,
}

fn world(seed: u8) -> World {
    let mut rng = rng::from_seed([seed; 32]);
    World {
        plane: StaticKeypair::generate(&mut rng),
        node: StaticKeypair::generate(&mut rng),
        rng,
    }
}

fn binding(node_id: &str, version: u32) -> Binding {
    Binding {
        node_id: node_id.to_owned(),
        node_key: "tp_0123456789abcdef0123456789abcdef".to_owned(),
        protocol_version: version,
    }
}

fn params(w: &World) -> InitiatorParams {
    InitiatorParams {
        plane_static: w.plane.public(),
        node_static: w.node.public(),
        binding: binding(NODE_ID, 14),
    }
}

fn responder(w: &World) -> Responder {
    Responder::new(&w.plane, w.node.public(), NODE_ID)
}

fn await_binding(w: &World, kx: &termplane_proto::Kx) -> AwaitBinding {
    responder(w).on_kx(kx).unwrap()
}

#[test]
fn full_handshake_establishes_both_streams() {
    let mut w = world(1);
    let (initiator, hello) = Initiator::start(&params(&w), &mut w.rng).unwrap();
    // The kx frame is a real node frame.
    let text = NodeFrame::Kx(hello.kx.clone()).to_json();
    let NodeFrame::Kx(kx) = decode_node_frame(&text).unwrap() else {
        panic!("not kx")
    };
    let waiting = await_binding(&w, &kx);
    assert_eq!(waiting.ephemeral(), hello.kx.eph);
    let opened = waiting.on_binding(&hello.first_binary).unwrap();
    assert_eq!(opened.binding, binding(NODE_ID, 14));
    assert_eq!(opened.ephemeral(), hello.kx.eph);
    let (mut plane, ok) = opened.accept(&mut w.rng);
    let mut agent = initiator.on_first_binary(&ok).unwrap();

    // Both directions carry frames, the agent's without a second header.
    for i in 0..5u8 {
        let up = agent.sealer.seal_frame(&[i; 30]).unwrap();
        assert_eq!(up.len(), 30 + 17);
        assert_eq!(plane.opener.open_frame(&up).unwrap(), vec![i; 30]);
        let down = plane.sealer.seal_frame(&[i; 3]).unwrap();
        assert_eq!(down.len(), 3 + 17);
        assert_eq!(agent.opener.open_frame(&down).unwrap(), vec![i; 3]);
    }
}

#[test]
fn keypairs_round_trip_through_their_secret_bytes() {
    let mut r = rng::from_seed([2; 32]);
    let k = StaticKeypair::generate(&mut r);
    let again = StaticKeypair::from_secret_bytes(k.secret_bytes());
    assert_eq!(again.public(), k.public());
    assert_ne!(StaticKeypair::generate(&mut r).public(), k.public());
    assert!(!format!("{k:?}").contains(&format!("{:?}", k.secret_bytes())));
}

#[test]
fn b11_malformed_kx_frames_are_refused_at_decode() {
    let good = Key32([9; 32]).to_b64();
    let frame = |eph: &str, pubk: &str| format!(r#"{{"t":"kx","eph":{eph},"pub":{pubk}}}"#);
    let q = |s: &str| format!("\"{s}\"");
    // Control: the well-formed frame decodes.
    assert!(matches!(
        decode_node_frame(&frame(&q(&good), &q(&good))),
        Ok(NodeFrame::Kx(_))
    ));
    let bad_keys = [
        q(&b64url_encode(&[1; 31])),
        q(&b64url_encode(&[1; 33])),
        q(""),
        q("!!!!not-base64!!!!"),
        q(&format!("{good}=")),
        q(&Key32([0xfb; 32])
            .to_b64()
            .replace('-', "+")
            .replace('_', "/")),
        q(&format!("{good} ")),
        "12345".to_owned(),
        "null".to_owned(),
        format!("[{}]", q(&good)),
    ];
    let mut refused = 0;
    for bad in &bad_keys {
        assert!(
            decode_node_frame(&frame(bad, &q(&good))).is_err(),
            "eph {bad}"
        );
        assert!(
            decode_node_frame(&frame(&q(&good), bad)).is_err(),
            "pub {bad}"
        );
        refused += 2;
    }
    let other = [
        format!(r#"{{"t":"kx","eph":"{good}","eph":"{good}","pub":"{good}"}}"#),
        format!(r#"{{"t":"kx","eph":"{good}","pub":"{good}","pub":"{good}"}}"#),
        format!(r#"{{"t":"kx","t":"kx","eph":"{good}","pub":"{good}"}}"#),
        format!(r#"{{"eph":"{good}","pub":"{good}"}}"#),
        format!(r#"{{"t":"kx2","eph":"{good}","pub":"{good}"}}"#),
        format!(r#"{{"t":7,"eph":"{good}","pub":"{good}"}}"#),
        format!(r#"{{"t":"kx","eph":"{good}"}}"#),
        format!(r#"{{"t":"kx","pub":"{good}"}}"#),
        format!(r#"{{"t":"kx","eph":"{good}","pub":"{good}","extra":1}}"#),
        format!(r#"{{"t":"kx","type":"kx","eph":"{good}","pub":"{good}"}}"#),
        String::new(),
    ];
    for text in &other {
        assert!(decode_node_frame(text).is_err(), "{text}");
        refused += 1;
    }
    assert_eq!(refused, 2 * bad_keys.len() + other.len());
    // Nothing else reaches the responder: `on_kx` only takes the decoded, typed frame, whose keys
    // are 32-byte arrays by construction.
}

#[test]
fn b14_tampered_pub_fails_to_open() {
    let mut w = world(14);
    let (_initiator, hello) = Initiator::start(&params(&w), &mut w.rng).unwrap();
    for pos in 0..32 {
        let mut kx = hello.kx.clone();
        kx.node_static.0[pos] ^= 0x01;
        // The plane pins the real key: the tampered claim is refused before any DH.
        assert_eq!(
            responder(&w).on_kx(&kx).err(),
            Some(HandshakeError::PinMismatch),
            "pos {pos}"
        );
        // Even a plane that pinned the tampered value cannot open the binding: `pub` is in the
        // derivation.
        let fooled = Responder::new(&w.plane, kx.node_static, NODE_ID);
        assert_eq!(
            fooled
                .on_kx(&kx)
                .unwrap()
                .on_binding(&hello.first_binary)
                .err(),
            Some(HandshakeError::OpenFailed),
            "pos {pos}"
        );
    }
    // Control: untampered, it opens.
    assert!(
        await_binding(&w, &hello.kx)
            .on_binding(&hello.first_binary)
            .is_ok()
    );
}

#[test]
fn b15_pub_other_than_pin_is_refused_before_any_dh() {
    let mut w = world(15);
    let (_i, hello) = Initiator::start(&params(&w), &mut w.rng).unwrap();
    let stranger = StaticKeypair::generate(&mut w.rng).public();
    let kx = termplane_proto::Kx {
        eph: hello.kx.eph,
        node_static: stranger,
    };
    assert_eq!(
        responder(&w).on_kx(&kx).err(),
        Some(HandshakeError::PinMismatch)
    );

    // With a low-order ephemeral, a DH would answer LowOrder: PinMismatch proves none ran.
    let low = termplane_proto::Kx {
        eph: Key32([0; 32]),
        node_static: stranger,
    };
    assert_eq!(
        responder(&w).on_kx(&low).err(),
        Some(HandshakeError::PinMismatch)
    );
    // Control: the same low-order ephemeral with the pinned key does reach the DH.
    let low_pinned = termplane_proto::Kx {
        eph: Key32([0; 32]),
        node_static: w.node.public(),
    };
    assert_eq!(
        responder(&w).on_kx(&low_pinned).err(),
        Some(HandshakeError::LowOrder)
    );
}

#[test]
fn b16_binding_naming_another_node_is_refused() {
    let mut w = world(16);
    // An agent that keys the derivation to node A but names B inside the binding.
    let eph_secret = [0x61; 32];
    let keys =
        kx::derive_initiator(&eph_secret, &w.plane.public(), &w.node.public(), NODE_ID).unwrap();
    let mut sealer = Sealer::new(&keys.tx, &mut w.rng);
    let frame = sealer
        .seal_frame(&serde_json::to_vec(&binding("node-other", 14)).unwrap())
        .unwrap();
    let kx = termplane_proto::Kx {
        eph: Key32(x25519_dalek::x25519(
            eph_secret,
            x25519_dalek::X25519_BASEPOINT_BYTES,
        )),
        node_static: w.node.public(),
    };
    assert_eq!(
        await_binding(&w, &kx).on_binding(&frame).err(),
        Some(HandshakeError::WrongNode)
    );

    // An agent that names B throughout (derivation and binding) on a socket authenticated as A:
    // the keys differ, so it does not even open.
    let mut p = params(&w);
    p.binding = binding("node-other", 14);
    let (_i, hello) = Initiator::start(&p, &mut w.rng).unwrap();
    assert_eq!(
        await_binding(&w, &hello.kx)
            .on_binding(&hello.first_binary)
            .err(),
        Some(HandshakeError::OpenFailed)
    );
}

#[test]
fn b18_other_protocol_versions_are_refused() {
    let mut w = world(18);
    for version in [0, 13, 15, u32::MAX] {
        let mut p = params(&w);
        p.binding = binding(NODE_ID, version);
        let (_i, hello) = Initiator::start(&p, &mut w.rng).unwrap();
        assert_eq!(
            await_binding(&w, &hello.kx)
                .on_binding(&hello.first_binary)
                .err(),
            Some(HandshakeError::WrongProtocol(version))
        );
    }
}

#[test]
fn b18_keys_derived_for_another_version_do_not_open() {
    let mut w = world(19);
    let eph_secret = [0x13; 32];
    let eph = Key32(x25519_dalek::x25519(
        eph_secret,
        x25519_dalek::X25519_BASEPOINT_BYTES,
    ));
    let dh = kx::x25519_shared(&eph_secret, &w.plane.public()).unwrap();
    let kx = termplane_proto::Kx {
        eph,
        node_static: w.node.public(),
    };
    for version in [13, 15] {
        let keys = derive_direction_keys(
            version,
            &dh,
            &eph,
            &w.node.public(),
            &w.plane.public(),
            NODE_ID,
        )
        .unwrap();
        for claimed in [version, 14] {
            let mut sealer = Sealer::new(&keys.agent_to_plane, &mut w.rng);
            let frame = sealer
                .seal_frame(&serde_json::to_vec(&binding(NODE_ID, claimed)).unwrap())
                .unwrap();
            assert_eq!(
                await_binding(&w, &kx).on_binding(&frame).err(),
                Some(HandshakeError::OpenFailed),
                "derived for {version}, claims {claimed}"
            );
        }
    }
    // Control: the version-14 derivation of the same DH does open.
    let keys =
        derive_direction_keys(14, &dh, &eph, &w.node.public(), &w.plane.public(), NODE_ID).unwrap();
    let mut sealer = Sealer::new(&keys.agent_to_plane, &mut w.rng);
    let frame = sealer
        .seal_frame(&serde_json::to_vec(&binding(NODE_ID, 14)).unwrap())
        .unwrap();
    assert!(await_binding(&w, &kx).on_binding(&frame).is_ok());
}

#[test]
fn b19_binding_sealed_to_another_plane_truncated_or_flipped_does_not_open() {
    let mut w = world(20);
    // Sealed to another plane key.
    let other_plane = StaticKeypair::generate(&mut w.rng);
    let mut p = params(&w);
    p.plane_static = other_plane.public();
    let (_i, hello) = Initiator::start(&p, &mut w.rng).unwrap();
    assert_eq!(
        await_binding(&w, &hello.kx)
            .on_binding(&hello.first_binary)
            .err(),
        Some(HandshakeError::OpenFailed)
    );

    let (_i, hello) = Initiator::start(&params(&w), &mut w.rng).unwrap();
    let genuine = hello.first_binary.clone();
    // Truncated at every length.
    for len in 0..genuine.len() {
        assert_eq!(
            await_binding(&w, &hello.kx)
                .on_binding(&genuine[..len])
                .err(),
            Some(HandshakeError::OpenFailed),
            "len {len}"
        );
    }
    // Extended by a byte.
    let mut longer = genuine.clone();
    longer.push(0);
    assert_eq!(
        await_binding(&w, &hello.kx).on_binding(&longer).err(),
        Some(HandshakeError::OpenFailed)
    );
    // One bit flipped at every byte (the bit rotates through the positions).
    for pos in 0..genuine.len() {
        let mut bad = genuine.clone();
        bad[pos] ^= 1 << (pos % 8);
        assert_eq!(
            await_binding(&w, &hello.kx).on_binding(&bad).err(),
            Some(HandshakeError::OpenFailed),
            "pos {pos}"
        );
    }
    assert!(await_binding(&w, &hello.kx).on_binding(&genuine).is_ok());
}

#[test]
fn binding_that_opens_but_is_not_a_binding_is_malformed() {
    let mut w = world(21);
    let eph_secret = [0x21; 32];
    let keys =
        kx::derive_initiator(&eph_secret, &w.plane.public(), &w.node.public(), NODE_ID).unwrap();
    let kx = termplane_proto::Kx {
        eph: Key32(x25519_dalek::x25519(
            eph_secret,
            x25519_dalek::X25519_BASEPOINT_BYTES,
        )),
        node_static: w.node.public(),
    };
    let good = serde_json::to_string(&binding(NODE_ID, 14)).unwrap();
    for bad in [
        String::new(),
        "{}".to_owned(),
        r#"{"t":"ok"}"#.to_owned(),
        good.replace('}', r#","extra":1}"#),
        good.replace("14", "\"14\""),
        good.replace("14", "14.0"),
        format!("{good}{good}"),
    ] {
        let mut sealer = Sealer::new(&keys.tx, &mut w.rng);
        let frame = sealer.seal_frame(bad.as_bytes()).unwrap();
        assert_eq!(
            await_binding(&w, &kx).on_binding(&frame).err(),
            Some(HandshakeError::BadBinding),
            "{bad}"
        );
    }
    // A binding under a FINAL tag would end the stream at once: refused too.
    let mut sealer = Sealer::new(&keys.tx, &mut w.rng);
    let frame = sealer
        .seal_frame_with_tag(good.as_bytes(), termplane_machines::seal::Tag::Final)
        .unwrap();
    assert_eq!(
        await_binding(&w, &kx).on_binding(&frame).err(),
        Some(HandshakeError::BadBinding)
    );
    // Control.
    let mut sealer = Sealer::new(&keys.tx, &mut w.rng);
    let frame = sealer.seal_frame(good.as_bytes()).unwrap();
    assert!(await_binding(&w, &kx).on_binding(&frame).is_ok());
}

#[test]
fn b25_agent_refuses_a_plane_with_another_static_key() {
    let mut w = world(25);
    let (initiator, hello) = Initiator::start(&params(&w), &mut w.rng).unwrap();
    // A man in the middle with its own static key: the node's pin is public, so kx passes...
    let mitm = StaticKeypair::generate(&mut w.rng);
    let waiting = Responder::new(&mitm, w.node.public(), NODE_ID)
        .on_kx(&hello.kx)
        .unwrap();
    // ...but the binding, sealed to the real plane, does not open at the impostor,
    assert_eq!(
        waiting.on_binding(&hello.first_binary).err(),
        Some(HandshakeError::OpenFailed)
    );
    // and an ok sealed under the impostor's keys does not open at the agent.
    let impostor = kx::derive_responder(&mitm, &hello.kx.eph, &w.node.public(), NODE_ID).unwrap();
    let mut sealer = Sealer::new(&impostor.tx, &mut w.rng);
    let fake_ok = sealer
        .seal_frame(termplane_proto::PlaneFrame::Ok.to_json().as_bytes())
        .unwrap();
    assert_eq!(
        initiator.on_first_binary(&fake_ok).err(),
        Some(HandshakeError::OpenFailed)
    );
}

#[test]
fn agent_requires_exactly_ok_as_the_planes_first_push() {
    let mut w = world(26);
    for (payload, expected) in [
        (r#"{"t":"ok"}"#, None),
        (r#"{"t":"ok","x":1}"#, Some(HandshakeError::NotOk)),
        (
            r#"{"t":"register-ok","controlEncryptPublicKey":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}"#,
            Some(HandshakeError::NotOk),
        ),
        (r#"{"jws":"a.b.c"}"#, Some(HandshakeError::NotOk)),
        ("ok", Some(HandshakeError::NotOk)),
        ("", Some(HandshakeError::NotOk)),
    ] {
        let eph_secret = [0x26; 32];
        let (initiator, hello) =
            Initiator::start_with_ephemeral(&params(&w), eph_secret, &mut w.rng).unwrap();
        let plane_keys =
            kx::derive_responder(&w.plane, &hello.kx.eph, &w.node.public(), NODE_ID).unwrap();
        let mut sealer = Sealer::new(&plane_keys.tx, &mut w.rng);
        let frame = sealer.seal_frame(payload.as_bytes()).unwrap();
        assert_eq!(
            initiator.on_first_binary(&frame).err(),
            expected,
            "{payload}"
        );
    }
    // Invalid UTF-8.
    let (initiator, hello) = Initiator::start(&params(&w), &mut w.rng).unwrap();
    let plane_keys =
        kx::derive_responder(&w.plane, &hello.kx.eph, &w.node.public(), NODE_ID).unwrap();
    let mut sealer = Sealer::new(&plane_keys.tx, &mut w.rng);
    let frame = sealer.seal_frame(&[0xff, 0xfe]).unwrap();
    assert_eq!(
        initiator.on_first_binary(&frame).err(),
        Some(HandshakeError::NotOk)
    );
}

#[test]
fn c27_tampering_any_byte_of_the_planes_ok_fails_at_the_agent() {
    let mut w = world(27);
    let eph_secret = [0x27; 32];
    let (_i, hello) = Initiator::start_with_ephemeral(&params(&w), eph_secret, &mut w.rng).unwrap();
    let (_plane, ok) = await_binding(&w, &hello.kx)
        .on_binding(&hello.first_binary)
        .unwrap()
        .accept(&mut w.rng);
    for pos in 0..ok.len() {
        let (initiator, _) =
            Initiator::start_with_ephemeral(&params(&w), eph_secret, &mut w.rng).unwrap();
        let mut bad = ok.clone();
        bad[pos] ^= 0x04;
        assert_eq!(
            initiator.on_first_binary(&bad).err(),
            Some(HandshakeError::OpenFailed),
            "pos {pos}"
        );
    }
    let (initiator, _) =
        Initiator::start_with_ephemeral(&params(&w), eph_secret, &mut w.rng).unwrap();
    assert!(initiator.on_first_binary(&ok).is_ok());
}

#[test]
fn b26_directions_are_independent_and_reflections_fail() {
    let mut w = world(28);
    let (initiator, hello) = Initiator::start(&params(&w), &mut w.rng).unwrap();
    let plane_keys =
        kx::derive_responder(&w.plane, &hello.kx.eph, &w.node.public(), NODE_ID).unwrap();
    assert_ne!(plane_keys.rx, plane_keys.tx);
    let opened = await_binding(&w, &hello.kx)
        .on_binding(&hello.first_binary)
        .unwrap();
    let (mut plane, ok) = opened.accept(&mut w.rng);
    let mut agent = initiator.on_first_binary(&ok).unwrap();

    // The plane's own first push, reflected into a fresh opener of the plane's receive key.
    let mut reflected = Opener::new(&plane_keys.rx);
    assert!(reflected.open_frame(&ok).is_err());
    // The plane's later push, reflected into the plane's live opener: fails and kills it.
    let down = plane.sealer.seal_frame(b"{\"jws\":\"x\"}").unwrap();
    assert!(plane.opener.open_frame(&down).is_err());
    assert!(plane.opener.is_failed());
    // The agent's binding, reflected to the agent.
    let mut agent_rx = Opener::new(&plane_keys.tx);
    assert!(agent_rx.open_frame(&hello.first_binary).is_err());
    // The agent's push reflected to itself.
    let up = agent
        .sealer
        .seal_frame(b"{\"type\":\"heartbeat\"}")
        .unwrap();
    assert!(agent.opener.open_frame(&up).is_err());
}

#[test]
fn b26_every_handshake_gets_fresh_distinct_keys() {
    let mut w = world(29);
    let mut seen = HashSet::new();
    let mut ephs = HashSet::new();
    let n = 40;
    for _ in 0..n {
        let (_i, hello) = Initiator::start(&params(&w), &mut w.rng).unwrap();
        assert!(ephs.insert(hello.kx.eph));
        let agent_view =
            kx::derive_responder(&w.plane, &hello.kx.eph, &w.node.public(), NODE_ID).unwrap();
        assert_ne!(agent_view.rx, agent_view.tx);
        assert!(seen.insert(agent_view.rx.0));
        assert!(seen.insert(agent_view.tx.0));
    }
    assert_eq!(seen.len(), 2 * n);
}

#[test]
fn both_sides_derive_mirrored_keys() {
    let w = world(30);
    for i in 0..8u8 {
        let eph_secret = [i.wrapping_mul(37).wrapping_add(1); 32];
        let eph = Key32(x25519_dalek::x25519(
            eph_secret,
            x25519_dalek::X25519_BASEPOINT_BYTES,
        ));
        let agent = kx::derive_initiator(&eph_secret, &w.plane.public(), &w.node.public(), NODE_ID)
            .unwrap();
        let plane = kx::derive_responder(&w.plane, &eph, &w.node.public(), NODE_ID).unwrap();
        assert_eq!(agent.tx, plane.rx);
        assert_eq!(agent.rx, plane.tx);
        assert_ne!(agent.tx, agent.rx);
    }
}

#[test]
fn every_transcript_field_changes_the_keys() {
    let dh = [3u8; 32];
    let (e, n, p) = (Key32([4; 32]), Key32([5; 32]), Key32([6; 32]));
    let base = derive_direction_keys(14, &dh, &e, &n, &p, "ab").unwrap();
    let variants = [
        derive_direction_keys(13, &dh, &e, &n, &p, "ab"),
        derive_direction_keys(14, &[7; 32], &e, &n, &p, "ab"),
        derive_direction_keys(14, &dh, &Key32([8; 32]), &n, &p, "ab"),
        derive_direction_keys(14, &dh, &e, &Key32([8; 32]), &p, "ab"),
        derive_direction_keys(14, &dh, &e, &n, &Key32([8; 32]), "ab"),
        derive_direction_keys(14, &dh, &e, &n, &p, "ac"),
        derive_direction_keys(14, &dh, &e, &n, &p, "a"),
        derive_direction_keys(14, &dh, &e, &n, &p, ""),
        // Swapping the static keys is another transcript.
        derive_direction_keys(14, &dh, &e, &p, &n, "ab"),
    ];
    for v in variants {
        let v = v.unwrap();
        assert_ne!(v.agent_to_plane, base.agent_to_plane);
        assert_ne!(v.plane_to_agent, base.plane_to_agent);
    }
    assert_eq!(
        derive_direction_keys(14, &[0; 32], &e, &n, &p, "ab").err(),
        Some(HandshakeError::LowOrder)
    );
    let long = "x".repeat(65_536);
    assert_eq!(
        derive_direction_keys(14, &dh, &e, &n, &p, &long).err(),
        Some(HandshakeError::BadBinding)
    );
    assert!(derive_direction_keys(14, &dh, &e, &n, &p, &long[1..]).is_ok());
}

#[test]
fn agent_refuses_a_low_order_plane_key() {
    let w = world(31);
    let p = InitiatorParams {
        plane_static: Key32([0; 32]),
        node_static: w.node.public(),
        binding: binding(NODE_ID, 14),
    };
    let mut r = rng::from_seed([31; 32]);
    assert_eq!(
        Initiator::start(&p, &mut r).err(),
        Some(HandshakeError::PlaneKeyLowOrder)
    );
    assert_eq!(
        HandshakeError::PlaneKeyLowOrder.to_string(),
        "the pinned plane key is a low-order point"
    );
}

#[test]
fn ordinary_keys_are_not_low_order() {
    let w = world(32);
    assert!(!termplane_machines::kx::is_low_order(&w.node.public()));
    assert!(!termplane_machines::kx::is_low_order(&w.plane.public()));
    let mut nine = [0u8; 32];
    nine[0] = 9;
    assert!(!termplane_machines::kx::is_low_order(&Key32(nine)));
    assert!(termplane_machines::kx::is_low_order(&Key32([0; 32])));
}
