//! Cross-check with the npm `jose` library, through `tools/interop/jose/peer.mjs`: tokens jose
//! signs verify here (also their high-S or low-S twin), and tokens signed here verify in jose.
//!
//! Needs `npm ci --prefix tools/interop/jose` and `node`. Without them the test prints a note and
//! passes, except when `CI` is set, where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::jws_common;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use base64ct::{Base64UrlUnpadded, Encoding as _};
use jws_common::{T0, claims, is_high_s, malleate, plane, verifier};
use serde_json::json;
use termplane_machines::time::UnixSecs;
use termplane_proto::{COMMAND_JWS_TYPE, Claims};

fn peer_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tools/interop/jose"
    ))
}

/// Whether the peer can run; otherwise fail under CI, or explain and skip.
fn peer_available() -> bool {
    let has_jose = peer_dir().join("node_modules/jose").is_dir();
    let has_node = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if has_jose && has_node {
        return true;
    }
    let msg = format!(
        "jose cross-check not run: node {}, jose {}; run `npm ci --prefix tools/interop/jose`",
        if has_node { "found" } else { "missing" },
        if has_jose {
            "installed"
        } else {
            "not installed"
        },
    );
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        panic!("{msg}");
    }
    eprintln!("note: {msg}");
    false
}

fn peer(mode: &str, request: &serde_json::Value) -> String {
    let mut child = Command::new("node")
        .arg("peer.mjs")
        .arg(mode)
        .current_dir(peer_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(request.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "peer {mode} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

fn private_jwk() -> serde_json::Value {
    let signer = plane();
    let mut jwk = serde_json::to_value(signer.public_jwk()).unwrap();
    jwk["d"] = Base64UrlUnpadded::encode_string(&signer.secret_bytes()).into();
    jwk
}

fn jose_sign(c: &Claims) -> String {
    peer(
        "sign",
        &json!({"jwk": private_jwk(), "payload": c, "typ": COMMAND_JWS_TYPE}),
    )
}

fn jose_verify(jws: &str, typ: &str) -> serde_json::Value {
    let reply = peer(
        "verify",
        &json!({"jwk": plane().public_jwk(), "jws": jws, "typ": typ}),
    );
    serde_json::from_str(&reply).unwrap()
}

#[test]
fn tokens_signed_by_jose_verify_here_in_both_s_forms() {
    if !peer_available() {
        return;
    }
    let v = verifier();
    let (mut low, mut high) = (0, 0);
    for i in 0..4_u64 {
        let c = claims(&format!("jose-{i}"), T0, i + 1);
        let token = jose_sign(&c);
        let twin = malleate(&token);
        for t in [&token, &twin] {
            let verified = v.verify(t, UnixSecs(T0)).unwrap();
            assert_eq!(verified.claims, c);
            if is_high_s(t) {
                high += 1;
            } else {
                low += 1;
            }
        }
        assert_eq!(
            v.verify(&token, UnixSecs(T0)).unwrap().digest,
            v.verify(&twin, UnixSecs(T0)).unwrap().digest
        );
    }
    assert_eq!((low, high), (4, 4));
}

#[test]
fn tokens_signed_here_verify_in_jose() {
    if !peer_available() {
        return;
    }
    let c = claims("ours-1", T0, 1);
    let token = plane().sign(&c);
    for t in [token.clone(), malleate(&token)] {
        let reply = jose_verify(&t, COMMAND_JWS_TYPE);
        assert_eq!(reply["ok"], true, "{reply}");
        let payload: Claims = serde_json::from_str(reply["payload"].as_str().unwrap()).unwrap();
        assert_eq!(payload, c);
    }
    // Controls: the peer does refuse a tampered token and another type.
    let (h, p, s) = jws_common::segments(&token);
    let tampered = format!(
        "{h}.{p}.{}{}",
        if s.starts_with('A') { "B" } else { "A" },
        &s[1..]
    );
    assert_eq!(jose_verify(&tampered, COMMAND_JWS_TYPE)["ok"], false);
    assert_eq!(jose_verify(&token, "JWT")["ok"], false);
}
