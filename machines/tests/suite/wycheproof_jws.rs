//! Catalogue D71: the Wycheproof JWS vectors of groups `es256`, `SpecialCaseEs256` and `base64`
//! through our signature path.
//!
//! The valid ES256 vectors are signed by Wycheproof's own key and carry `kid` and no `typ`, so
//! they run through [`verify_signature`] with that key and `expected_typ: None` (which tolerates
//! `kid`); the node's verifier never takes that path. The `base64` group is HS256: our ES256-only
//! verifier must refuse every one of them, whatever Wycheproof expects of an HS256 verifier, and
//! the strict decoder must refuse the mis-encoded ones before looking at the header. The ES256
//! groups' signatures also go through the node's table path (`fixed_key`), which must agree.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::jws_common;

use base64ct::{Base64UrlUnpadded, Encoding as _};
use termplane_machines::fixed_key::FixedKey;
use termplane_machines::jws::{
    PublicJwk, VerifyError, verify_p1363, verify_p1363_fixed, verify_signature,
};

fn group<'a>(file: &'a serde_json::Value, comment: &str) -> &'a serde_json::Value {
    let groups: Vec<_> = file["testGroups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["comment"] == comment)
        .collect();
    assert_eq!(groups.len(), 1, "one group {comment}");
    groups[0]
}

fn key_of(group: &serde_json::Value) -> PublicJwk {
    let public = &group["public"];
    PublicJwk {
        kty: public["kty"].as_str().unwrap().into(),
        crv: public["crv"].as_str().unwrap().into(),
        x: public["x"].as_str().unwrap().into(),
        y: public["y"].as_str().unwrap().into(),
    }
}

fn compact_of(test: &serde_json::Value) -> String {
    match &test["jws"] {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn run_es256_group(comment: &str) -> (usize, usize) {
    let file = jws_common::wycheproof_jws();
    let g = group(&file, comment);
    let key = key_of(g);
    let fixed = FixedKey::from_jwk(&key).unwrap();
    let (mut valid, mut invalid) = (0, 0);
    for t in g["tests"].as_array().unwrap() {
        let id = &t["tcId"];
        let compact = compact_of(t);
        let result = verify_signature(&key, &compact, None);
        // The node verifies through its key's table: on every vector whose signature segment
        // decodes, that path gives the same verdict on the signature as the crate's own.
        if let [header, payload, signature] = compact.split('.').collect::<Vec<_>>()[..]
            && let Ok(signature) = Base64UrlUnpadded::decode_vec(signature)
        {
            let input = format!("{header}.{payload}");
            assert_eq!(
                verify_p1363(&key, input.as_bytes(), &signature).is_ok(),
                verify_p1363_fixed(&fixed, input.as_bytes(), &signature).is_ok(),
                "tcId {id}: the two signature paths disagree"
            );
        }
        match t["result"].as_str().unwrap() {
            "valid" => {
                let (payload, _) = result.unwrap_or_else(|e| panic!("tcId {id}: {e}"));
                assert_eq!(payload, b"foo", "tcId {id}");
                valid += 1;
            }
            "invalid" => {
                assert!(result.is_err(), "tcId {id} must fail");
                invalid += 1;
            }
            other => panic!("tcId {id}: unexpected result {other}"),
        }
    }
    (valid, invalid)
}

#[test]
fn d71_wycheproof_es256_group() {
    assert_eq!(run_es256_group("es256"), (1, 14));
}

#[test]
fn d71_wycheproof_special_case_es256_group() {
    assert_eq!(run_es256_group("SpecialCaseEs256"), (1, 23));
}

#[test]
fn d71_wycheproof_valid_es256_vector_is_refused_by_the_node_header_policy() {
    // With our type required, Wycheproof's header (alg + kid, no typ) is refused.
    let file = jws_common::wycheproof_jws();
    let g = group(&file, "es256");
    let key = key_of(g);
    let t = &g["tests"][0];
    assert_eq!(t["result"], "valid");
    let r = verify_signature(
        &key,
        &compact_of(t),
        Some(termplane_proto::COMMAND_JWS_TYPE),
    );
    assert!(matches!(r, Err(VerifyError::Header(_))), "{r:?}");
}

fn strictly_decodes(compact: &str) -> bool {
    let parts: Vec<&str> = compact.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && Base64UrlUnpadded::decode_vec(p).is_ok())
}

#[test]
fn d71_wycheproof_base64_group_is_refused_entirely() {
    let file = jws_common::wycheproof_jws();
    let g = group(&file, "base64");
    assert!(g.get("public").is_none(), "the base64 group is HS256");
    // Any P-256 key: an HS256 token must never get as far as a key.
    let key = jws_common::plane().public_jwk();
    let (mut format, mut header) = (0, 0);
    for t in g["tests"].as_array().unwrap() {
        let id = &t["tcId"];
        let compact = compact_of(t);
        let r = verify_signature(&key, &compact, None);
        if strictly_decodes(&compact) {
            assert!(matches!(r, Err(VerifyError::Header(_))), "tcId {id}: {r:?}");
            header += 1;
        } else {
            assert!(matches!(r, Err(VerifyError::Format(_))), "tcId {id}: {r:?}");
            format += 1;
        }
        if t["result"] == "invalid" && strictly_decodes(&compact) {
            // Two "padding" cases of the file carry exactly the valid token's text; whatever
            // the reason, they are refused like every other HS256 token.
            assert!(
                g["tests"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|v| v["result"] == "valid" && compact_of(v) == compact),
                "tcId {id}: a well-encoded invalid case must repeat a valid token"
            );
        }
    }
    assert_eq!(format + header, 21);
    assert_eq!(header, 7, "the well-encoded HS256 tokens fail on alg");
}
