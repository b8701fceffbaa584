//! Property tests of the signer and verifier: every well-formed envelope round-trips, and no
//! single-character mutation of a compact token survives verification.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::jws_common;

use jws_common::{NODE, claims};
use proptest::prelude::*;
use termplane_machines::jws::{Es256Signer, Es256Verifier};
use termplane_machines::rng;
use termplane_machines::time::UnixSecs;
use termplane_proto::Claims;

fn json_leaf() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        ".{0,24}".prop_map(serde_json::Value::from),
    ]
}

fn command() -> impl Strategy<Value = serde_json::Value> {
    (
        "[a-z_]{1,16}",
        proptest::collection::btree_map("[a-zA-Z]{1,10}", json_leaf(), 0..5),
    )
        .prop_map(|(kind, fields)| {
            let mut m = serde_json::Map::new();
            m.insert("type".into(), kind.into());
            for (k, v) in fields {
                if k != "type" {
                    m.insert(k, v);
                }
            }
            serde_json::Value::Object(m)
        })
}

fn any_claims() -> impl Strategy<Value = Claims> {
    (
        "[A-Za-z0-9_-]{1,64}",
        0_i64..(1 << 53) - 30,
        1_i64..=30,
        0_u64..=(1 << 53),
        command(),
    )
        .prop_map(|(jti, iat, lifetime, seq, cmd)| {
            let mut c = claims(&jti, iat, seq);
            c.exp = iat + lifetime;
            c.cmd = cmd;
            c
        })
}

fn pair(seed: [u8; 32]) -> (Es256Signer, Es256Verifier) {
    let signer = Es256Signer::generate(&mut rng::from_seed(seed));
    let verifier = Es256Verifier::new(&signer.public_jwk(), NODE).unwrap();
    (signer, verifier)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn sign_then_verify_round_trips(
        seed in any::<[u8; 32]>(),
        c in any_claims(),
        at in 0_u8..=255,
    ) {
        let (signer, verifier) = pair(seed);
        let token = signer.sign(&c);
        // Any wall time inside [iat - 5, exp + 5].
        let span = c.exp + 5 - (c.iat - 5);
        let now = c.iat - 5 + span * i64::from(at) / 255;
        let v = verifier.verify(&token, UnixSecs(now)).unwrap();
        prop_assert_eq!(&v.claims, &c);
        // The secret survives persisting.
        let again = Es256Signer::from_secret_bytes(&signer.secret_bytes()).unwrap();
        prop_assert_eq!(again.sign(&c), token, "RFC 6979 signing is deterministic");
    }

    #[test]
    fn any_single_character_mutation_fails(
        c in any_claims(),
        position in any::<prop::sample::Index>(),
        replacement in 0x20_u8..0x7f,
        kind in 0_u8..3,
    ) {
        let (signer, verifier) = pair([9; 32]);
        let token = signer.sign(&c);
        let now = UnixSecs(c.iat);
        prop_assert!(verifier.verify(&token, now).is_ok());
        let mut bytes = token.clone().into_bytes();
        let i = position.index(bytes.len());
        match kind {
            0 => {
                prop_assume!(bytes[i] != replacement);
                bytes[i] = replacement;
            }
            1 => {
                bytes.insert(i, replacement);
            }
            _ => {
                bytes.remove(i);
            }
        }
        let mutated = String::from_utf8(bytes).unwrap();
        prop_assert_ne!(&mutated, &token);
        prop_assert!(verifier.verify(&mutated, now).is_err(), "{} survived", mutated);
    }
}
