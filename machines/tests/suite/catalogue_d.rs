//! Catalogue section D (cases 37 to 70): ES256 command envelopes at the node. Case 71
//! (Wycheproof JWS vectors) is in `wycheproof_jws.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::jws_common;

use base64ct::{Base64, Base64UrlUnpadded, Encoding as _};
use jws_common::*;
use serde_json::json;
use sha2::{Digest as _, Sha256};
use termplane_machines::jws::{Es256Signer, Verified, VerifyError};
use termplane_machines::replay::{
    Admission, EARLIER_PROCESS_REFUSAL, JtiCache, SEQ_REFUSAL, SeqGate, admit,
};
use termplane_machines::time::UnixSecs;
use termplane_proto::CommandResult;

fn verify(compact: &str, now: i64) -> Result<Verified, VerifyError> {
    verifier().verify(compact, UnixSecs(now))
}

fn good(jti: &str, seq: u64) -> String {
    plane().sign(&claims(jti, T0, seq))
}

fn hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; 32] {
    let mut k = [0_u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let inner: Vec<u8> = k
        .iter()
        .map(|b| b ^ 0x36)
        .chain(msg.iter().copied())
        .collect();
    let inner_hash = Sha256::digest(&inner);
    let outer: Vec<u8> = k
        .iter()
        .map(|b| b ^ 0x5c)
        .chain(inner_hash.iter().copied())
        .collect();
    Sha256::digest(&outer).into()
}

fn hs256_token(key: &[u8], payload: &serde_json::Value) -> String {
    let h = Base64UrlUnpadded::encode_string(br#"{"alg":"HS256","typ":"termplane-command+jwt"}"#);
    let p = Base64UrlUnpadded::encode_string(payload.to_string().as_bytes());
    let mac = hmac_sha256(key, format!("{h}.{p}").as_bytes());
    format!("{h}.{p}.{}", Base64UrlUnpadded::encode_string(&mac))
}

fn with_signature(compact: &str, sig: &[u8]) -> String {
    let (h, p, _) = segments(compact);
    format!("{h}.{p}.{}", Base64UrlUnpadded::encode_string(sig))
}

fn der_integer(bytes: &[u8]) -> Vec<u8> {
    let mut v: Vec<u8> = bytes.iter().copied().skip_while(|b| *b == 0).collect();
    if v.first().is_none_or(|b| *b & 0x80 != 0) {
        v.insert(0, 0);
    }
    let mut out = vec![0x02, u8::try_from(v.len()).unwrap()];
    out.extend(v);
    out
}

fn assert_header_refused(r: Result<Verified, VerifyError>) {
    assert!(matches!(r, Err(VerifyError::Header(_))), "{r:?}");
}

fn assert_payload_refused(r: Result<Verified, VerifyError>) {
    assert!(matches!(r, Err(VerifyError::Payload(_))), "{r:?}");
}

/// The order n of the P-256 group.
const N: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
];

fn n_plus(delta: i16) -> [u8; 32] {
    let mut v = N;
    let mut carry = i32::from(delta);
    for b in v.iter_mut().rev() {
        let x = i32::from(*b) + carry;
        *b = x.rem_euclid(256) as u8;
        carry = x.div_euclid(256);
        if carry == 0 {
            break;
        }
    }
    v
}

fn small(k: u8) -> [u8; 32] {
    let mut v = [0_u8; 32];
    v[31] = k;
    v
}

#[test]
fn d37_alg_none_is_refused() {
    let payload = claims_value("j37", T0, 1).to_string();
    let h = Base64UrlUnpadded::encode_string(br#"{"alg":"none","typ":"termplane-command+jwt"}"#);
    let p = Base64UrlUnpadded::encode_string(payload.as_bytes());
    // Empty signature segment.
    assert!(matches!(
        verify(&format!("{h}.{p}."), T0),
        Err(VerifyError::Format(_))
    ));
    // Two segments only.
    assert!(matches!(
        verify(&format!("{h}.{p}"), T0),
        Err(VerifyError::Format(_))
    ));
    // `none` with a genuine ES256 signature over it.
    let signed = sign_text(r#"{"alg":"none","typ":"termplane-command+jwt"}"#, &payload);
    assert_header_refused(verify(&signed, T0));
    // Lower-case and missing alg.
    assert_header_refused(verify(
        &sign_text(r#"{"alg":"es256","typ":"termplane-command+jwt"}"#, &payload),
        T0,
    ));
    assert_header_refused(verify(
        &sign_text(r#"{"typ":"termplane-command+jwt"}"#, &payload),
        T0,
    ));
}

#[test]
fn d38_hs256_keyed_with_the_plane_public_key_is_refused() {
    let jwk = plane().public_jwk();
    let x = Base64UrlUnpadded::decode_vec(&jwk.x).unwrap();
    let y = Base64UrlUnpadded::decode_vec(&jwk.y).unwrap();
    let sec1: Vec<u8> = [vec![4], x.clone(), y.clone()].concat();
    let xy: Vec<u8> = [x, y].concat();
    let spki: Vec<u8> = [
        hex::decode("3059301306072a8648ce3d020106082a8648ce3d030107034200").unwrap(),
        sec1.clone(),
    ]
    .concat();
    let pem = format!(
        "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n",
        Base64::encode_string(&spki)
    );
    let jwk_json = serde_json::to_string(&jwk).unwrap();
    let payload = claims_value("j38", T0, 1);
    let keys: [&[u8]; 4] = [&sec1, &xy, pem.as_bytes(), jwk_json.as_bytes()];
    for key in keys {
        let token = hs256_token(key, &payload);
        assert_header_refused(verify(&token, T0));
    }
}

#[test]
fn d39_other_algorithms_are_refused_even_with_a_valid_es256_signature() {
    let payload = claims_value("j39", T0, 1);
    for alg in [
        "ES384", "ES512", "EdDSA", "RS256", "PS256", "HS256", "ES256K", " ES256", "ES256 ",
    ] {
        let token = sign_values(
            &json!({"alg": alg, "typ": "termplane-command+jwt"}),
            &payload,
        );
        assert_header_refused(verify(&token, T0));
    }
    let token = sign_values(
        &json!({"alg": ["ES256"], "typ": "termplane-command+jwt"}),
        &payload,
    );
    assert_header_refused(verify(&token, T0));
}

#[test]
fn d40_special_r_and_s_values_are_refused() {
    let token = good("j40", 1);
    let values = [small(0), small(1), n_plus(-1), N, n_plus(1), [0xff; 32]];
    let mut tried = 0;
    for r in &values {
        for s in &values {
            let sig: Vec<u8> = [r.as_slice(), s.as_slice()].concat();
            let result = verify(&with_signature(&token, &sig), T0);
            assert_eq!(
                result,
                Err(VerifyError::Signature),
                "r={} s={}",
                hex::encode(r),
                hex::encode(s)
            );
            tried += 1;
        }
    }
    assert_eq!(tried, 36);
    // The genuine signature still verifies (the loop above is not refusing everything for
    // another reason).
    assert!(verify(&token, T0).is_ok());
}

#[test]
fn d41_high_s_twin_gets_cached_answer_never_reexecutes() {
    let token = good("j41", 1);
    let twin = malleate(&token);
    assert_ne!(token, twin);
    assert_ne!(
        is_high_s(&token),
        is_high_s(&twin),
        "one of the pair is high-S"
    );
    // Policy: both forms verify (jose and our signer produce either), with the same digest.
    let a = verify(&token, T0).unwrap();
    let b = verify(&twin, T0).unwrap();
    assert_eq!(a, b);

    let mut node = Node::start(T0);
    assert_eq!(
        node.deliver(&token, T0),
        Outcome::Admitted(Admission::Execute)
    );
    let first = node.sent[0].clone();
    assert_eq!(
        node.deliver(&twin, T0 + 1),
        Outcome::Admitted(Admission::Resend(first.clone()))
    );
    assert_eq!(node.total_executions(), 1);
    assert_eq!(node.sent, vec![first.clone(), first]);
}

#[test]
fn d42_der_and_wrong_length_signatures_are_refused() {
    let token = good("j42", 1);
    let sig = signature_of(&token).to_bytes();
    let mut der = vec![0x30];
    let body: Vec<u8> = [der_integer(&sig[..32]), der_integer(&sig[32..])].concat();
    der.push(u8::try_from(body.len()).unwrap());
    der.extend(body);
    assert!(matches!(
        verify(&with_signature(&token, &der), T0),
        Err(VerifyError::Format(_))
    ));
    let short = &sig[..63];
    assert!(matches!(
        verify(&with_signature(&token, short), T0),
        Err(VerifyError::Format(_))
    ));
    let long: Vec<u8> = [sig.as_slice(), &[0]].concat();
    assert!(matches!(
        verify(&with_signature(&token, &long), T0),
        Err(VerifyError::Format(_))
    ));
    let zeros: Vec<u8> = [sig.as_slice(), &[0; 8]].concat();
    assert!(matches!(
        verify(&with_signature(&token, &zeros), T0),
        Err(VerifyError::Format(_))
    ));
    let leading: Vec<u8> = [&[0], sig.as_slice()].concat();
    assert!(matches!(
        verify(&with_signature(&token, &leading), T0),
        Err(VerifyError::Format(_))
    ));
    assert!(verify(&with_signature(&token, &sig), T0).is_ok());
}

const URL_ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

#[test]
fn d43_non_strict_base64url_and_other_serializations_are_refused() {
    let token = good("j43", 1);
    assert!(verify(&token, T0).is_ok());
    let (h, p, s) = segments(&token);
    let fmt = |t: String| {
        let r = verify(&t, T0);
        assert!(matches!(r, Err(VerifyError::Format(_))), "{t}: {r:?}");
    };
    // `=` padding on any segment (and a lone `=`).
    fmt(format!("{h}=.{p}.{s}"));
    fmt(format!("{h}.{p}=.{s}"));
    fmt(format!("{h}.{p}.{s}=="));
    fmt(format!("{h}.{p}.{s}="));
    // Standard alphabet: find a token whose signature uses `-` or `_`.
    let mut converted = 0;
    for i in 0..64 {
        let t = good(&format!("j43-{i}"), 1);
        let (h, p, s) = segments(&t);
        if s.contains(['-', '_']) {
            fmt(format!("{h}.{p}.{}", s.replace('-', "+").replace('_', "/")));
            converted += 1;
        }
    }
    assert!(converted > 0);
    // Whitespace anywhere.
    for ws in [" ", "\n", "\t", "\r\n"] {
        fmt(format!("{ws}{h}.{p}.{s}"));
        fmt(format!("{h}{ws}.{p}.{s}"));
        fmt(format!("{h}.{}{ws}{}.{s}", &p[..4], &p[4..]));
        fmt(format!("{h}.{p}.{s}{ws}"));
    }
    // Non-canonical trailing bits: 64 bytes are 86 characters, the last holding 2 data bits
    // and 4 unused ones.
    assert_eq!(s.len(), 86);
    let last = s.as_bytes()[85] as char;
    let v = URL_ALPHABET.find(last).unwrap();
    for bit in 0..4 {
        let nv = v ^ (1 << bit);
        let nc = URL_ALPHABET.as_bytes()[nv] as char;
        fmt(format!("{h}.{p}.{}{nc}", &s[..85]));
    }
    // Four and two segments, the JSON serialization, and empty segments.
    fmt(format!("{h}.{p}.{s}.{s}"));
    fmt(format!("{h}.{p}.{s}."));
    fmt(format!("{h}.{p}"));
    fmt(json!({"protected": h, "payload": p, "signature": s}).to_string());
    fmt(format!(".{p}.{s}"));
    fmt(format!("{h}..{s}"));
    fmt(String::new());
}

#[test]
fn d44_duplicate_keys_are_refused() {
    let payload = claims_value("j44", T0, 1).to_string();
    let dup_alg = r#"{"alg":"ES256","alg":"ES256","typ":"termplane-command+jwt"}"#;
    assert_header_refused(verify(&sign_text(dup_alg, &payload), T0));
    let dup_alg_other = r#"{"alg":"HS256","typ":"termplane-command+jwt","alg":"ES256"}"#;
    assert_header_refused(verify(&sign_text(dup_alg_other, &payload), T0));
    let dup_typ = r#"{"alg":"ES256","typ":"x","typ":"termplane-command+jwt"}"#;
    assert_header_refused(verify(&sign_text(dup_typ, &payload), T0));
    let header = header_value().to_string();
    let body = payload.trim_end_matches('}');
    for extra in [
        r#","aud":"node:node-7f3a""#,
        r#","aud":"node:other""#,
        r#","jti":"j44""#,
        r#","jti":"other""#,
        r#","iat":1"#,
        r#","cmd":{"type":"kill"}"#,
    ] {
        let t = sign_text(&header, &format!("{body}{extra}}}"));
        assert_payload_refused(verify(&t, T0));
    }
    // Nested duplicates inside cmd.
    let nested = payload.replace(
        r#""cmd":{"type":"ping"}"#,
        r#""cmd":{"type":"ping","type":"kill"}"#,
    );
    assert_ne!(nested, payload);
    assert_payload_refused(verify(&sign_text(&header, &nested), T0));
    // Control: the untouched payload verifies.
    assert!(verify(&sign_text(&header, &payload), T0).is_ok());
}

#[test]
fn d45_crit_is_refused() {
    let payload = claims_value("j45", T0, 1);
    for crit in [json!(["x"]), json!([]), json!(["b64"]), json!("x")] {
        let mut h = header_value();
        h["crit"] = crit;
        h["x"] = json!(true);
        assert_header_refused(verify(&sign_values(&h, &payload), T0));
    }
}

#[test]
fn d46_keys_named_in_the_header_are_never_used() {
    let payload = claims_value("j46", T0, 1);
    let evil: Es256Signer = attacker();
    let evil_jwk = serde_json::to_value(evil.public_jwk()).unwrap();
    for (name, value) in [
        ("jwk", evil_jwk.clone()),
        ("jku", json!("https://attacker.example/keys")),
        ("x5u", json!("https://attacker.example/cert")),
        ("x5c", json!(["MIIB"])),
        ("kid", json!("attacker")),
    ] {
        let mut h = header_value();
        h[name] = value;
        let by_attacker = evil.sign_raw(h.to_string().as_bytes(), payload.to_string().as_bytes());
        assert_header_refused(verify(&by_attacker, T0));
        // Even signed by the trusted key, an extra member is refused.
        assert_header_refused(verify(&sign_values(&h, &payload), T0));
    }
    // A perfect header signed by the attacker fails on the signature.
    let forged = evil.sign_raw(
        header_value().to_string().as_bytes(),
        payload.to_string().as_bytes(),
    );
    assert_eq!(verify(&forged, T0), Err(VerifyError::Signature));
}

#[test]
fn d47_other_typ_is_refused() {
    let payload = claims_value("j47", T0, 1);
    for typ in [
        json!("JWT"),
        json!("at+jwt"),
        json!("termplane-other+jwt"),
        json!("Termplane-Command+JWT"),
        json!("application/termplane-command+jwt"),
        json!(null),
        json!(["termplane-command+jwt"]),
    ] {
        let h = json!({"alg": "ES256", "typ": typ});
        assert_header_refused(verify(&sign_values(&h, &payload), T0));
    }
    assert_header_refused(verify(&sign_values(&json!({"alg": "ES256"}), &payload), T0));
    assert_header_refused(verify(&sign_values(&json!([]), &payload), T0));
    assert_header_refused(verify(&sign_text("not json", &payload.to_string()), T0));
}

#[test]
fn d48_wrong_aud_is_refused() {
    for aud in [
        "node:other",
        "node:",
        "node-7f3a",
        "node:node-7f3a ",
        "NODE:node-7f3a",
        "",
    ] {
        let mut c = claims("j48", T0, 1);
        c.aud = aud.into();
        assert_eq!(
            verify(&plane().sign(&c), T0),
            Err(VerifyError::Audience),
            "{aud:?}"
        );
    }
}

#[test]
fn d49_aud_array_is_refused() {
    let mut p = claims_value("j49", T0, 1);
    p["aud"] = json!(["node:node-7f3a"]);
    assert_payload_refused(verify(&sign_values(&header_value(), &p), T0));
    p["aud"] = json!(["node:other", "node:node-7f3a"]);
    assert_payload_refused(verify(&sign_values(&header_value(), &p), T0));
}

#[test]
fn d50_missing_aud_is_refused() {
    let mut p = claims_value("j50", T0, 1);
    p.as_object_mut().unwrap().remove("aud");
    assert_payload_refused(verify(&sign_values(&header_value(), &p), T0));
    p["aud"] = json!(null);
    assert_payload_refused(verify(&sign_values(&header_value(), &p), T0));
}

#[test]
fn d51_wrong_or_missing_iss_is_refused() {
    for iss in ["termplane", "termplane-control ", "other-control", ""] {
        let mut c = claims("j51", T0, 1);
        c.iss = iss.into();
        assert_eq!(verify(&plane().sign(&c), T0), Err(VerifyError::Issuer));
    }
    let mut p = claims_value("j51", T0, 1);
    p.as_object_mut().unwrap().remove("iss");
    assert_payload_refused(verify(&sign_values(&header_value(), &p), T0));
}

#[test]
fn d52_exp_ten_seconds_past_is_refused() {
    let t = plane().sign(&claims("j52", T0 - 40, 1));
    assert_eq!(verify(&t, T0), Err(VerifyError::Expired));
}

#[test]
fn d53_exp_six_seconds_past_is_refused_four_accepted() {
    let t = plane().sign(&claims("j53", T0, 1));
    let exp = T0 + 30;
    assert_eq!(verify(&t, exp + 6), Err(VerifyError::Expired));
    assert!(verify(&t, exp + 5).is_ok());
    assert!(verify(&t, exp + 4).is_ok());
}

#[test]
fn d54_iat_six_seconds_ahead_is_refused_four_accepted() {
    let now = T0;
    assert_eq!(
        verify(&plane().sign(&claims("j54", now + 6, 1)), now),
        Err(VerifyError::IssuedInFuture)
    );
    assert!(verify(&plane().sign(&claims("j54", now + 5, 1)), now).is_ok());
    assert!(verify(&plane().sign(&claims("j54", now + 4, 1)), now).is_ok());
}

#[test]
fn d55_lifetime_above_thirty_seconds_is_refused() {
    for (iat, exp) in [
        (T0, T0 + 31),
        (T0, T0 + 365 * 24 * 3600),
        (T0, T0),
        (T0, T0 - 1),
        (T0 - 100, T0 + 1),
    ] {
        let mut c = claims("j55", iat, 1);
        c.exp = exp;
        let r = verify(&plane().sign(&c), T0);
        assert!(matches!(r, Err(VerifyError::Time(_))), "{iat} {exp}: {r:?}");
    }
    let mut c = claims("j55", T0, 1);
    c.exp = T0 + 1;
    assert!(verify(&plane().sign(&c), T0).is_ok());
}

#[test]
fn d56_non_integer_negative_and_huge_times_are_refused() {
    let header = header_value();
    for field in ["iat", "exp"] {
        for bad in [
            json!(1_767_225_600.5),
            json!(1_767_225_600.0),
            json!("1767225600"),
            json!(null),
            json!(true),
        ] {
            let mut p = claims_value("j56", T0, 1);
            p[field] = bad;
            assert_payload_refused(verify(&sign_values(&header, &p), T0));
        }
        // Exponent notation is a float in JSON.
        let text = claims_value("j56", T0, 1).to_string().replace(
            &format!("\"{field}\":{}", if field == "iat" { T0 } else { T0 + 30 }),
            &format!("\"{field}\":1.7672256e9"),
        );
        assert!(text.contains("e9"));
        assert_payload_refused(verify(&sign_text(&header.to_string(), &text), T0));
        // Beyond i64.
        let text = claims_value("j56", T0, 1).to_string().replace(
            &format!("\"{field}\":{}", if field == "iat" { T0 } else { T0 + 30 }),
            &format!("\"{field}\":99999999999999999999"),
        );
        assert_payload_refused(verify(&sign_text(&header.to_string(), &text), T0));
    }
    // Negative and above 2^53 parse as integers and are refused as time claims.
    let mut c = claims("j56", -10, 1);
    c.exp = -1;
    assert!(matches!(
        verify(&plane().sign(&c), 0),
        Err(VerifyError::Time(_))
    ));
    let big = (1_i64 << 53) + 1;
    let mut c = claims("j56", big - 10, 1);
    c.exp = big;
    assert!(matches!(
        verify(&plane().sign(&c), big),
        Err(VerifyError::Time(_))
    ));
    // seq: negative, float and above 2^53.
    for bad in [json!(-1), json!(1.5), json!("1")] {
        let mut p = claims_value("j56", T0, 1);
        p["seq"] = bad;
        assert_payload_refused(verify(&sign_values(&header, &p), T0));
    }
    let c = claims("j56", T0, (1 << 53) + 1);
    assert_payload_refused(verify(&plane().sign(&c), T0));
    assert!(verify(&plane().sign(&claims("j56", T0, 1 << 53)), T0).is_ok());
}

#[test]
fn d57_nbf_and_other_unknown_claims_are_refused() {
    for (name, value) in [
        ("nbf", json!(T0 + 60)),
        ("nbf", json!(T0 - 60)),
        ("sub", json!("x")),
        ("kid", json!("x")),
    ] {
        let mut p = claims_value("j57", T0, 1);
        p[name] = value;
        assert_payload_refused(verify(&sign_values(&header_value(), &p), T0));
    }
    // The payload must be an object.
    assert_payload_refused(verify(&sign_values(&header_value(), &json!([1])), T0));
}

#[test]
fn d58_bad_jti_is_refused() {
    let header = header_value();
    let mut p = claims_value("x", T0, 1);
    p.as_object_mut().unwrap().remove("jti");
    assert_payload_refused(verify(&sign_values(&header, &p), T0));
    for bad in [
        json!(""),
        json!("a".repeat(1024)),
        json!("a".repeat(65)),
        json!(7),
        json!(null),
        json!(["a"]),
    ] {
        let mut p = claims_value("x", T0, 1);
        p["jti"] = bad;
        assert_payload_refused(verify(&sign_values(&header, &p), T0));
    }
    for bad in ["a b", "a/b", "a.b", "é", "a\u{0}", "a\n"] {
        assert_payload_refused(verify(&plane().sign(&claims(bad, T0, 1)), T0));
    }
    assert!(verify(&plane().sign(&claims(&"a".repeat(64), T0, 1)), T0).is_ok());
    assert!(verify(&plane().sign(&claims("Az09_-", T0, 1)), T0).is_ok());
}

#[test]
fn d59_same_jti_on_the_same_connection_gets_the_cached_answer() {
    let mut node = Node::start(T0);
    let t = good("j59", 1);
    assert_eq!(node.deliver(&t, T0), Outcome::Admitted(Admission::Execute));
    let answer = node.sent[0].clone();
    for i in 1..4 {
        assert_eq!(
            node.deliver(&t, T0 + i),
            Outcome::Admitted(Admission::Resend(answer.clone()))
        );
    }
    assert_eq!(node.executions["j59"], 1);
    assert_eq!(node.sent.len(), 4);
    assert!(node.sent.iter().all(|a| *a == answer));
}

#[test]
fn d60_same_jti_after_reconnect_gets_the_cached_answer() {
    let mut node = Node::start(T0);
    let t = good("j60", 1);
    assert_eq!(node.deliver(&t, T0), Outcome::Admitted(Admission::Execute));
    node.reconnect();
    assert_eq!(
        node.deliver(&t, T0 + 10),
        Outcome::Admitted(Admission::Resend(node.sent[0].clone()))
    );
    assert_eq!(node.total_executions(), 1);
    // The new connection's gate still expects seq 1 for a fresh command.
    assert_eq!(node.gate.expected(), Some(1));
    assert_eq!(
        node.deliver(&good("j60b", 1), T0 + 10),
        Outcome::Admitted(Admission::Execute)
    );
}

#[test]
fn d61_same_jti_after_a_process_restart_does_not_execute() {
    let mut first = Node::start(T0 - 3600);
    let t = good("j61", 1);
    assert_eq!(first.deliver(&t, T0), Outcome::Admitted(Admission::Execute));
    // The process restarts ten seconds later; the token is still inside exp.
    let mut second = Node::start(T0 + 10);
    assert!(verify(&t, T0 + 12).is_ok());
    let out = second.deliver(&t, T0 + 12);
    assert!(
        matches!(out, Outcome::Admitted(Admission::Stale(_))),
        "{out:?}"
    );
    assert_eq!(first.total_executions() + second.total_executions(), 1);
    // The boundary: iat = start - 5 is fresh, start - 6 is stale.
    let mut third = Node::start(T0 + 5);
    assert_eq!(
        third.deliver(&good("j61b", 1), T0 + 6),
        Outcome::Admitted(Admission::Execute)
    );
    let mut fourth = Node::start(T0 + 6);
    assert!(matches!(
        fourth.deliver(&good("j61c", 1), T0 + 6),
        Outcome::Admitted(Admission::Stale(_))
    ));
}

#[test]
fn d61_a_command_resent_one_to_four_seconds_after_a_restart_does_not_execute() {
    // The command was issued (and run) less than the 5-second skew before the next process
    // started, so the process-start watermark alone lets it through: the jti the first
    // process persisted is what refuses it.
    for delay in 1..=4 {
        let mut first = Node::start(T0 - 3600);
        let t = good("j61r", 1);
        assert_eq!(first.deliver(&t, T0), Outcome::Admitted(Admission::Execute));
        let mut second = first.restart(T0 + delay);
        // Re-sent as the next seq of the new socket: still verified, still inside exp.
        let resent = good("j61r", 1);
        assert!(verify(&resent, T0 + delay).is_ok());
        let out = second.deliver(&resent, T0 + delay);
        let Outcome::Admitted(Admission::Resend(answer)) = out else {
            panic!("restart after {delay} s: {out:?}");
        };
        assert!(!answer.ok);
        assert_eq!(answer.error.as_deref(), Some(EARLIER_PROCESS_REFUSAL));
        assert_eq!(
            first.total_executions() + second.total_executions(),
            1,
            "restart after {delay} s"
        );
        // The same jti with other content stays a conflict across the restart.
        let other = plane().sign(&claims_with_cmd(
            "j61r",
            T0,
            1,
            json!({"type": "inventory"}),
        ));
        assert_eq!(
            second.deliver(&other, T0 + delay),
            Outcome::Admitted(Admission::Conflict)
        );
        // A fresh command still runs, with the seq the refused copy did not use.
        assert_eq!(
            second.deliver(&good("j61s", 1), T0 + delay),
            Outcome::Admitted(Admission::Execute)
        );
    }
}

#[test]
fn step_three_refusals_use_up_no_seq() {
    // A stale command (step 3) never reaches the seq gate (step 4): the next good command
    // carries the same seq and runs; the connection is not dropped.
    let mut node = Node::start(T0 + 10);
    let stale = good("j-stale", 1);
    assert!(matches!(
        node.deliver(&stale, T0 + 10),
        Outcome::Admitted(Admission::Stale(_))
    ));
    assert_eq!(node.gate.expected(), Some(1));
    let fresh = plane().sign(&claims("j-fresh", T0 + 10, 1));
    assert_eq!(
        node.deliver(&fresh, T0 + 10),
        Outcome::Admitted(Admission::Execute)
    );
    // A conflict (step 3 as well) uses up no seq either.
    let conflict = plane().sign(&claims_with_cmd(
        "j-fresh",
        T0 + 10,
        2,
        json!({"type": "inventory"}),
    ));
    assert_eq!(
        node.deliver(&conflict, T0 + 10),
        Outcome::Admitted(Admission::Conflict)
    );
    assert_eq!(node.gate.expected(), Some(2));
    assert_eq!(
        node.deliver(&plane().sign(&claims("j-next", T0 + 10, 2)), T0 + 10),
        Outcome::Admitted(Admission::Execute)
    );
    assert_eq!(node.total_executions(), 2);
}

fn unsigned(jti: &str, iat: i64, seq: u64) -> Verified {
    // Signing 2,049 tokens is slow in a debug build; the guard only sees verified claims, so
    // these tests hand it claims and a distinct digest directly.
    let claims = claims(jti, iat, seq);
    let digest = Sha256::digest(serde_json::to_vec(&claims).unwrap()).into();
    Verified { claims, digest }
}

#[test]
fn d62_an_evicted_jti_replayed_inside_its_lifetime_does_not_execute() {
    let start = T0 - 60;
    let mut cache = JtiCache::new(2048, UnixSecs(start));
    let mut gate = SeqGate::new();
    let mut executed = 0_u32;
    // 2,049 commands at about 58 per second (iat rises by one second every 58 commands).
    let mut first = None;
    for i in 0..2049_u64 {
        let iat = T0 + i64::try_from(i / 58).unwrap();
        let v = unsigned(&format!("j62-{i}"), iat, i + 1);
        assert_eq!(
            admit(&mut cache, &mut gate, &v, UnixSecs(iat)),
            Admission::Execute,
            "{i}"
        );
        executed += 1;
        assert_eq!(
            cache.record_answer(&v.claims.jti, CommandResult::ok(&v.claims.jti, None)),
            0
        );
        first.get_or_insert(v);
    }
    assert_eq!(cache.len(), 2048);
    assert_eq!(cache.watermark(), Some(T0));
    let first = first.unwrap();
    let now = T0 + 35;
    // Replayed inside exp + skew (now - iat = 35) on a new connection: refused, not executed.
    let mut gate2 = SeqGate::new();
    let out = admit(&mut cache, &mut gate2, &first, UnixSecs(now));
    assert!(matches!(out, Admission::Stale(_)), "{out:?}");
    assert_eq!(executed, 2049);
    // Consequence of the watermark: another jti of the evicted second is refused too, one of a
    // later second runs.
    let same_second = unsigned("j62-late", T0, 1);
    assert!(matches!(
        admit(&mut cache, &mut SeqGate::new(), &same_second, UnixSecs(now)),
        Admission::Stale(_)
    ));
    let next_second = unsigned("j62-next", T0 + 36, 1);
    assert_eq!(
        admit(
            &mut cache,
            &mut SeqGate::new(),
            &next_second,
            UnixSecs(T0 + 36)
        ),
        Admission::Execute
    );
}

#[test]
fn d62_burst_beyond_capacity_in_one_second_is_refused_not_reexecuted() {
    let mut cache = JtiCache::new(8, UnixSecs(T0));
    let mut gate = SeqGate::new();
    let mut outcomes = Vec::new();
    for i in 0..12_u64 {
        let v = unsigned(&format!("b{i}"), T0, i + 1);
        let a = admit(&mut cache, &mut gate, &v, UnixSecs(T0));
        if a == Admission::Execute {
            let _ = cache.record_answer(&v.claims.jti, CommandResult::ok(&v.claims.jti, None));
        }
        outcomes.push(a);
    }
    // The ninth evicts the first, raising the watermark to T0: it and every later command of
    // that second are stale.
    assert!(outcomes[..8].iter().all(|a| *a == Admission::Execute));
    assert_eq!(outcomes[8], Admission::Execute);
    assert!(
        outcomes[9..]
            .iter()
            .all(|a| matches!(a, Admission::Stale(_))),
        "{outcomes:?}"
    );
    assert!(cache.live_evictions() >= 1);
}

#[test]
fn d63_concurrent_duplicate_waits_and_both_get_the_one_answer() {
    let mut node = Node::start(T0);
    let t = good("j63", 1);
    assert_eq!(
        node.deliver_deferred(&t, T0),
        Outcome::Admitted(Admission::Execute)
    );
    assert_eq!(
        node.deliver_deferred(&t, T0),
        Outcome::Admitted(Admission::Wait)
    );
    // The high-S twin is the same command, and waits too.
    assert_eq!(
        node.deliver_deferred(&malleate(&t), T0),
        Outcome::Admitted(Admission::Wait)
    );
    assert!(node.sent.is_empty());
    node.finish("j63");
    assert_eq!(node.executions["j63"], 1);
    assert_eq!(node.sent.len(), 3);
    assert!(node.sent.iter().all(|a| *a == node.sent[0]));
    // Afterwards, a copy gets the stored answer.
    let again = node.deliver(&t, T0 + 1);
    assert_eq!(
        again,
        Outcome::Admitted(Admission::Resend(node.sent[0].clone()))
    );
    assert_eq!(node.total_executions(), 1);
    // A second answer for the same jti changes nothing.
    assert_eq!(
        node.cache
            .record_answer("j63", CommandResult::err("j63", "late")),
        0
    );
    assert_eq!(
        node.deliver(&t, T0 + 2),
        Outcome::Admitted(Admission::Resend(node.sent[0].clone()))
    );
}

#[test]
fn d64_same_jti_with_other_content_is_a_conflict() {
    let mut node = Node::start(T0);
    let t = good("j64", 1);
    assert_eq!(node.deliver(&t, T0), Outcome::Admitted(Admission::Execute));
    let answer = node.sent[0].clone();
    let mut other = claims("j64", T0, 2);
    other.cmd = json!({"type": "kill", "subshellId": "ab-12"});
    assert_eq!(
        node.deliver(&plane().sign(&other), T0),
        Outcome::Admitted(Admission::Conflict)
    );
    // Same claims, other seq: other signing input, still a conflict.
    assert_eq!(
        node.deliver(&good("j64", 2), T0),
        Outcome::Admitted(Admission::Conflict)
    );
    assert_eq!(node.sent, vec![answer.clone()]);
    assert_eq!(node.total_executions(), 1);
    // The genuine command still gets its own answer.
    assert_eq!(
        node.deliver(&t, T0),
        Outcome::Admitted(Admission::Resend(answer))
    );
}

#[test]
fn d65_bad_signature_on_a_cached_jti_is_refused_before_the_cache() {
    let mut node = Node::start(T0);
    let t = good("j65", 1);
    assert_eq!(node.deliver(&t, T0), Outcome::Admitted(Admission::Execute));
    let forged = attacker().sign(&claims("j65", T0, 1));
    assert_eq!(
        node.deliver(&forged, T0),
        Outcome::Refused(VerifyError::Signature)
    );
    let (h, p, s) = segments(&t);
    let flipped = format!(
        "{h}.{p}.{}{}",
        if s.starts_with('A') { "B" } else { "A" },
        &s[1..]
    );
    assert_eq!(
        node.deliver(&flipped, T0),
        Outcome::Refused(VerifyError::Signature)
    );
    assert_eq!(node.sent.len(), 1, "no cached answer was handed out");
    assert_eq!(node.total_executions(), 1);
}

#[test]
fn d66_seq_regression_duplicate_and_gap_drop_the_link_and_burn_the_jti() {
    // Regression and duplicate.
    for bad_seq in [1, 2] {
        let mut node = Node::start(T0);
        assert_eq!(
            node.deliver(&good("a", 1), T0),
            Outcome::Admitted(Admission::Execute)
        );
        assert_eq!(
            node.deliver(&good("b", 2), T0),
            Outcome::Admitted(Admission::Execute)
        );
        let t = good("c", bad_seq);
        assert!(matches!(
            node.deliver(&t, T0),
            Outcome::Admitted(Admission::DropLink(_))
        ));
        // The link is refused from here on.
        assert_eq!(node.gate.expected(), None);
        assert!(matches!(
            node.deliver(&good("d", 3), T0),
            Outcome::Admitted(Admission::DropLink(_))
        ));
        // The burnt jti never runs: after reconnect, its retransmit gets the refusal.
        node.reconnect();
        assert_eq!(
            node.deliver(&t, T0 + 1),
            Outcome::Admitted(Admission::Resend(CommandResult::err("c", SEQ_REFUSAL)))
        );
        assert_eq!(node.executions.get("c"), None);
        assert_eq!(node.executions.get("d"), None);
        assert_eq!(node.total_executions(), 2);
    }
    // Gap, and a first seq other than 1.
    for (seqs, last_ok) in [(vec![1, 3], 1), (vec![2], 0), (vec![0], 0)] {
        let mut node = Node::start(T0);
        for (i, seq) in seqs.iter().enumerate() {
            let out = node.deliver(&good(&format!("g{i}"), *seq), T0);
            if i < last_ok {
                assert_eq!(out, Outcome::Admitted(Admission::Execute));
            } else {
                assert!(
                    matches!(out, Outcome::Admitted(Admission::DropLink(_))),
                    "{seqs:?}"
                );
            }
        }
        assert_eq!(node.total_executions(), u32::try_from(last_ok).unwrap());
    }
    // Negative, non-integer and above 2^53 never reach the gate (see d56).
    let mut p = claims_value("n", T0, 1);
    p["seq"] = json!(-1);
    assert_payload_refused(verify(&sign_values(&header_value(), &p), T0));
}

#[test]
fn d67_a_retransmit_with_an_old_seq_is_answered_from_the_cache() {
    let mut node = Node::start(T0);
    let a = good("a67", 1);
    assert_eq!(node.deliver(&a, T0), Outcome::Admitted(Admission::Execute));
    assert_eq!(
        node.deliver(&good("b67", 2), T0),
        Outcome::Admitted(Admission::Execute)
    );
    assert_eq!(
        node.deliver(&a, T0),
        Outcome::Admitted(Admission::Resend(node.sent[0].clone()))
    );
    // The gate was not disturbed by the retransmit.
    assert_eq!(
        node.deliver(&good("c67", 3), T0),
        Outcome::Admitted(Admission::Execute)
    );
    assert_eq!(node.total_executions(), 3);
}

/// Known protocol-14 limit: an envelope is not bound to the connection it was sent on, so a
/// token captured on connection A can be presented on connection B whose next seq matches.
/// Within one node process the jti cache answers it from the cache (it never runs twice); across
/// a process restart the process-start watermark refuses it; and in every case it dies with its
/// 30 s + 5 s envelope lifetime. Binding envelopes to a session needs a wire change.
#[test]
fn d68_seq_and_jti_captured_on_one_connection_replayed_on_another() {
    let mut node = Node::start(T0 - 3600);
    let captured = good("j68", 1);
    assert_eq!(
        node.deliver(&captured, T0),
        Outcome::Admitted(Admission::Execute)
    );
    node.reconnect();
    assert_eq!(
        node.gate.expected(),
        Some(1),
        "B's next seq matches the captured one"
    );
    assert_eq!(
        node.deliver(&captured, T0 + 2),
        Outcome::Admitted(Admission::Resend(node.sent[0].clone()))
    );
    assert_eq!(node.total_executions(), 1);
    // The bound: after exp + skew, even a process that never saw the token (and started long
    // before it was issued, so the restart watermark does not apply) refuses it.
    let mut fresh = Node::start(T0 - 3600);
    assert_eq!(
        fresh.deliver(&captured, T0 + 36),
        Outcome::Refused(VerifyError::Expired)
    );
    assert_eq!(fresh.total_executions(), 0);
    let mut fresh = Node::start(T0 - 3600);
    assert_eq!(
        fresh.deliver(&captured, T0 + 3600),
        Outcome::Refused(VerifyError::Expired)
    );
}

#[test]
fn d69_oversize_token_is_refused_before_signature_work() {
    let cap = termplane_proto::limits::MAX_JWS_BYTES;
    // Garbage of cap + 1 bytes: refused as too large, not as malformed (no parsing happened).
    assert_eq!(verify(&"!".repeat(cap + 1), T0), Err(VerifyError::TooLarge));
    assert!(matches!(
        verify(&"!".repeat(cap), T0),
        Err(VerifyError::Format(_))
    ));
    // A genuinely signed token above the cap.
    let mut c = claims("j69", T0, 1);
    c.cmd = json!({"type": "input", "subshellId": "ab", "data": "x".repeat(cap)});
    let t = plane().sign(&c);
    assert!(t.len() > cap);
    assert_eq!(verify(&t, T0), Err(VerifyError::TooLarge));
    // Just under the cap, a signed token verifies.
    let mut c = claims("j69", T0, 1);
    c.cmd = json!({"type": "input", "subshellId": "ab", "data": "x".repeat(cap / 2)});
    assert!(verify(&plane().sign(&c), T0).is_ok());
}

#[test]
fn d70_clock_skew_of_four_seconds_is_accepted_six_refused_both_directions() {
    let t = good("j70", 1);
    // Node clock behind the plane: the token looks issued in the future.
    assert!(verify(&t, T0 - 4).is_ok());
    assert_eq!(verify(&t, T0 - 6), Err(VerifyError::IssuedInFuture));
    // Node clock ahead of the plane, the token delivered at the end of its life.
    assert!(verify(&t, T0 + 30 + 4).is_ok());
    assert_eq!(verify(&t, T0 + 30 + 6), Err(VerifyError::Expired));
}

#[test]
fn d_refusal_reasons_are_one_short_line() {
    let mut p = claims_value("x", T0, 1);
    p[&"z".repeat(5000)] = json!(1);
    let err = verify(&sign_values(&header_value(), &p), T0).unwrap_err();
    let text = err.to_string();
    assert!(text.len() < 160, "{text}");
    assert!(!text.contains('\n'));
    let mut h = header_value();
    h[&"y".repeat(5000)] = json!(1);
    let text = verify(&sign_values(&h, &claims_value("x", T0, 1)), T0)
        .unwrap_err()
        .to_string();
    assert!(text.len() < 160 && !text.contains("yyyy"), "{text}");
}
