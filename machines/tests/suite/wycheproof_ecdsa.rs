//! Wycheproof ECDSA P-256 / SHA-256 vectors in IEEE P1363 form (`r || s`, the JWS form) through
//! both signature paths: the `p256` crate's verification (one-off keys) and the precomputed
//! tables of `fixed_key` (the node's verifier of commands).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use base64ct::{Base64UrlUnpadded, Encoding as _};
use termplane_machines::fixed_key::FixedKey;
use termplane_machines::jws::{PublicJwk, verify_p1363, verify_p1363_fixed};
use wycheproof::TestResult;
use wycheproof::ecdsa::{TestName, TestSet};

fn jwk_of(uncompressed: &[u8]) -> PublicJwk {
    assert_eq!(uncompressed.len(), 65);
    assert_eq!(uncompressed[0], 4);
    PublicJwk {
        kty: "EC".into(),
        crv: "P-256".into(),
        x: Base64UrlUnpadded::encode_string(&uncompressed[1..33]),
        y: Base64UrlUnpadded::encode_string(&uncompressed[33..]),
    }
}

#[test]
fn wycheproof_ecdsa_secp256r1_sha256_p1363() {
    let set = TestSet::load(TestName::EcdsaSecp256r1Sha256P1363).unwrap();
    let (mut valid, mut invalid) = (0, 0);
    for group in &set.test_groups {
        let key = jwk_of(&group.key.key);
        let fixed =
            FixedKey::new(p256::ecdsa::VerifyingKey::from_sec1_bytes(&group.key.key).unwrap());
        for t in &group.tests {
            let result = verify_p1363(&key, &t.msg, &t.sig);
            let tabled = verify_p1363_fixed(&fixed, &t.msg, &t.sig);
            assert_eq!(
                result.is_ok(),
                tabled.is_ok(),
                "tcId {}: the two paths disagree",
                t.tc_id
            );
            match t.result {
                TestResult::Valid => {
                    assert!(
                        result.is_ok(),
                        "tcId {} ({}): {result:?}",
                        t.tc_id,
                        t.comment
                    );
                    valid += 1;
                }
                TestResult::Invalid => {
                    assert!(
                        result.is_err(),
                        "tcId {} ({}) must fail",
                        t.tc_id,
                        t.comment
                    );
                    invalid += 1;
                }
                TestResult::Acceptable => panic!("tcId {}: no acceptable cases expected", t.tc_id),
            }
        }
    }
    assert!(
        valid > 100 && invalid > 50,
        "valid {valid}, invalid {invalid}"
    );
    assert_eq!(valid + invalid, set.number_of_tests);
}
