//! Wycheproof X25519 (`x25519_test.json`) through the Diffie-Hellman the key exchange uses, on
//! both sides: the agent's `derive_initiator` (its ephemeral secret against the plane's key) and
//! the plane's `derive_responder` (its static secret against the agent's ephemeral).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use termplane_machines::kx::{self, HandshakeError, Responder, StaticKeypair};
use termplane_proto::Key32;
use wycheproof::xdh::{TestFlag, TestName, TestSet};

const NODE_ID: &str = "wycheproof-node";

/// Catalogue B12: the 14 public encodings for which X25519 gives an all-zero shared secret with
/// every private key (small-order points, their non-canonical spellings and high-bit variants).
const LOW_ORDER: [&str; 14] = [
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000080",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f11d7",
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b880",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
];

fn arr(b: &[u8]) -> [u8; 32] {
    b.try_into().unwrap()
}

fn node_static() -> Key32 {
    Key32([0x4e; 32])
}

#[test]
fn every_wycheproof_x25519_case_through_both_sides() {
    let set = TestSet::load(TestName::X25519).unwrap();
    let (mut agreed, mut refused) = (0, 0);
    for group in &set.test_groups {
        for t in &group.tests {
            assert!(
                !t.result.must_fail(),
                "the file holds only valid/acceptable cases"
            );
            let private = arr(&t.private_key);
            let public = Key32(arr(&t.public_key));
            let expected = arr(&t.shared_secret);
            let zero = expected == [0; 32];
            assert_eq!(
                zero,
                t.flags.contains(&TestFlag::ZeroSharedSecret),
                "tc {}",
                t.tc_id
            );

            // The plane: its static secret against the case's public key as `eph`.
            let plane = StaticKeypair::from_secret_bytes(private);
            let responder = kx::derive_responder(&plane, &public, &node_static(), NODE_ID);
            // The agent: the case's private key as its ephemeral, the public key as the plane's.
            let initiator = kx::derive_initiator(&private, &public, &node_static(), NODE_ID);
            let shared = kx::x25519_shared(&private, &public);
            if zero {
                assert_eq!(
                    responder.err(),
                    Some(HandshakeError::LowOrder),
                    "tc {}",
                    t.tc_id
                );
                // The agent names what is wrong: the plane's key (its pin).
                assert_eq!(
                    initiator.err(),
                    Some(HandshakeError::PlaneKeyLowOrder),
                    "tc {}",
                    t.tc_id
                );
                assert_eq!(shared, Err(HandshakeError::LowOrder), "tc {}", t.tc_id);
                refused += 1;
                continue;
            }
            assert_eq!(shared, Ok(expected), "tc {} ({})", t.tc_id, t.comment);
            // Both sides key their streams from exactly that shared secret.
            let eph_public = Key32(x25519_dalek::x25519(
                private,
                x25519_dalek::X25519_BASEPOINT_BYTES,
            ));
            let want_plane = kx::derive_direction_keys(
                14,
                &expected,
                &public,
                &node_static(),
                &plane.public(),
                NODE_ID,
            )
            .unwrap();
            let responder = responder.unwrap();
            assert_eq!(responder.rx, want_plane.agent_to_plane, "tc {}", t.tc_id);
            assert_eq!(responder.tx, want_plane.plane_to_agent, "tc {}", t.tc_id);
            let want_agent = kx::derive_direction_keys(
                14,
                &expected,
                &eph_public,
                &node_static(),
                &public,
                NODE_ID,
            )
            .unwrap();
            let initiator = initiator.unwrap();
            assert_eq!(initiator.tx, want_agent.agent_to_plane, "tc {}", t.tc_id);
            assert_eq!(initiator.rx, want_agent.plane_to_agent, "tc {}", t.tc_id);
            agreed += 1;
        }
    }
    assert_eq!(agreed + refused, set.number_of_tests);
    assert!(agreed > 400 && refused >= 14, "{agreed} {refused}");
}

#[test]
fn b12_low_order_ephemeral_keys_are_refused() {
    // The list matches Wycheproof's zero-shared-secret publics exactly.
    let set = TestSet::load(TestName::X25519).unwrap();
    let from_file: BTreeSet<String> = set
        .test_groups
        .iter()
        .flat_map(|g| &g.tests)
        .filter(|t| t.flags.contains(&TestFlag::ZeroSharedSecret))
        .map(|t| hex::encode(&*t.public_key))
        .collect();
    let listed: BTreeSet<String> = LOW_ORDER.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(from_file, listed);

    let mut r = termplane_machines::rng::from_seed([12; 32]);
    let plane = StaticKeypair::generate(&mut r);
    for enc in LOW_ORDER {
        let eph = Key32(arr(&hex::decode(enc).unwrap()));
        let kx_frame = termplane_proto::Kx {
            eph,
            node_static: node_static(),
        };
        // The plane, with the right pin, refuses it at the DH.
        assert_eq!(
            Responder::new(&plane, node_static(), NODE_ID)
                .on_kx(&kx_frame)
                .err(),
            Some(HandshakeError::LowOrder),
            "{enc}"
        );
        assert_eq!(
            kx::derive_responder(&plane, &eph, &node_static(), NODE_ID).err(),
            Some(HandshakeError::LowOrder)
        );
        // An agent pinned to such a "plane key" refuses too, naming the pin.
        assert_eq!(
            kx::derive_initiator(&[0x55; 32], &eph, &node_static(), NODE_ID).err(),
            Some(HandshakeError::PlaneKeyLowOrder)
        );
        // And the agent recognises it before pinning it.
        assert!(kx::is_low_order(&eph), "{enc}");
    }
}

#[test]
fn b13_non_canonical_and_twist_keys_are_deterministic_and_agree() {
    // RFC 7748 behaviour: the top bit is ignored and non-canonical u-coordinates are reduced, so
    // these keys give the Wycheproof results, the same on every call and on either side.
    let set = TestSet::load(TestName::X25519).unwrap();
    let mut checked = 0;
    for t in set.test_groups.iter().flat_map(|g| &g.tests) {
        if !(t.flags.contains(&TestFlag::NonCanonicalPublic) || t.flags.contains(&TestFlag::Twist))
        {
            continue;
        }
        let private = arr(&t.private_key);
        let public = Key32(arr(&t.public_key));
        let first = kx::x25519_shared(&private, &public);
        let again = kx::x25519_shared(&private, &public);
        assert_eq!(first, again);
        let plane = StaticKeypair::from_secret_bytes(private);
        let a = kx::derive_responder(&plane, &public, &node_static(), NODE_ID);
        let b = kx::derive_responder(&plane, &public, &node_static(), NODE_ID);
        match (a, b) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.rx, b.rx);
                assert_eq!(a.tx, b.tx);
                assert_eq!(first, Ok(arr(&t.shared_secret)), "tc {}", t.tc_id);
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b);
                assert_eq!(a, HandshakeError::LowOrder);
                assert_eq!(&*t.shared_secret, &[0u8; 32]);
            }
            _ => panic!("tc {}: not deterministic", t.tc_id),
        }
        // The spelling with the top bit flipped is the same point.
        let mut flipped = public;
        flipped.0[31] ^= 0x80;
        assert_eq!(
            kx::x25519_shared(&private, &flipped),
            first,
            "tc {}",
            t.tc_id
        );
        checked += 1;
    }
    assert!(checked >= 200, "{checked}");
}
