//! Passkeys through the real server, driven by a software authenticator written here from the
//! WebAuthn Level 3 and CTAP2 documents (CBOR "none" attestation, ES256 with DER signatures).
//! Registration, sign-in, removal, and catalogue case F84: a single-use expiring challenge, a
//! wrong origin or relying party refused, user verification required, one account's credential
//! refused for another, a signature counter that goes back refused. F80: the session id rotates
//! on a passkey sign-in.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use base64ct::{Base64UrlUnpadded, Encoding};
use common::*;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

// ----- a small CBOR writer (major types 0, 1, 2, 3, 5) -----

fn cbor_head(out: &mut Vec<u8>, major: u8, n: u64) {
    let m = major << 5;
    match n {
        0..=23 => out.push(m | u8::try_from(n).unwrap()),
        24..=0xff => out.extend([m | 24, u8::try_from(n).unwrap()]),
        0x100..=0xffff => {
            out.push(m | 25);
            out.extend(u16::try_from(n).unwrap().to_be_bytes());
        }
        _ => {
            out.push(m | 26);
            out.extend(u32::try_from(n).unwrap().to_be_bytes());
        }
    }
}

fn cbor_int(out: &mut Vec<u8>, v: i64) {
    if v >= 0 {
        cbor_head(out, 0, v.unsigned_abs());
    } else {
        cbor_head(out, 1, (-1 - v).unsigned_abs());
    }
}

fn cbor_bytes(out: &mut Vec<u8>, b: &[u8]) {
    cbor_head(out, 2, b.len() as u64);
    out.extend(b);
}

fn cbor_text(out: &mut Vec<u8>, t: &str) {
    cbor_head(out, 3, t.len() as u64);
    out.extend(t.as_bytes());
}

fn b64(b: &[u8]) -> String {
    Base64UrlUnpadded::encode_string(b)
}

fn unb64(s: &str) -> Vec<u8> {
    Base64UrlUnpadded::decode_vec(s).unwrap()
}

/// One authenticator holding one credential.
struct Authenticator {
    key: SigningKey,
    cred_id: Vec<u8>,
    counter: u32,
    /// What it puts in `clientDataJSON.origin`.
    origin: String,
    /// The relying-party id whose hash it puts in the authenticator data.
    rp_id: String,
    /// Whether it reports user verification.
    uv: bool,
    user_handle: Vec<u8>,
}

impl Authenticator {
    fn new(seed: u8, origin: &str) -> Self {
        let rp_id = origin
            .trim_start_matches("http://")
            .split(':')
            .next()
            .unwrap()
            .to_owned();
        Self {
            key: SigningKey::from_slice(&[seed; 32]).unwrap(),
            cred_id: Sha256::digest([seed]).to_vec(),
            counter: 0,
            origin: origin.to_owned(),
            rp_id,
            uv: true,
            user_handle: Vec::new(),
        }
    }

    fn auth_data(&self, attested: bool) -> Vec<u8> {
        let mut d = Sha256::digest(self.rp_id.as_bytes()).to_vec();
        let mut flags = 0x01; // user present
        if self.uv {
            flags |= 0x04;
        }
        if attested {
            flags |= 0x40;
        }
        d.push(flags);
        d.extend(self.counter.to_be_bytes());
        if attested {
            d.extend([0u8; 16]); // AAGUID
            d.extend(u16::try_from(self.cred_id.len()).unwrap().to_be_bytes());
            d.extend(&self.cred_id);
            let point = self.key.verifying_key().to_sec1_point(false);
            let xy = point.as_bytes();
            let mut cose = Vec::new();
            cbor_head(&mut cose, 5, 5);
            cbor_int(&mut cose, 1);
            cbor_int(&mut cose, 2); // kty: EC2
            cbor_int(&mut cose, 3);
            cbor_int(&mut cose, -7); // alg: ES256
            cbor_int(&mut cose, -1);
            cbor_int(&mut cose, 1); // crv: P-256
            cbor_int(&mut cose, -2);
            cbor_bytes(&mut cose, &xy[1..33]);
            cbor_int(&mut cose, -3);
            cbor_bytes(&mut cose, &xy[33..65]);
            d.extend(cose);
        }
        d
    }

    fn client_data(&self, kind: &str, challenge: &str) -> Vec<u8> {
        json!({"type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": false})
            .to_string()
            .into_bytes()
    }

    /// `navigator.credentials.create` for these options.
    fn create(&mut self, options: &Value) -> Value {
        self.user_handle = unb64(options["user"]["id"].as_str().unwrap());
        let challenge = options["challenge"].as_str().unwrap();
        let client_data = self.client_data("webauthn.create", challenge);
        let mut att = Vec::new();
        cbor_head(&mut att, 5, 3);
        cbor_text(&mut att, "fmt");
        cbor_text(&mut att, "none");
        cbor_text(&mut att, "attStmt");
        cbor_head(&mut att, 5, 0);
        cbor_text(&mut att, "authData");
        cbor_bytes(&mut att, &self.auth_data(true));
        json!({
            "id": b64(&self.cred_id),
            "rawId": b64(&self.cred_id),
            "type": "public-key",
            "response": {
                "attestationObject": b64(&att),
                "clientDataJSON": b64(&client_data),
                "transports": ["internal"]
            },
            "extensions": {}
        })
    }

    /// `navigator.credentials.get` for these options (the counter moves on first).
    fn get(&mut self, options: &Value) -> Value {
        self.counter += 1;
        let challenge = options["challenge"].as_str().unwrap();
        let client_data = self.client_data("webauthn.get", challenge);
        let auth_data = self.auth_data(false);
        let mut signed = auth_data.clone();
        signed.extend(Sha256::digest(&client_data));
        let sig: Signature = self.key.sign(&signed);
        json!({
            "id": b64(&self.cred_id),
            "rawId": b64(&self.cred_id),
            "type": "public-key",
            "response": {
                "authenticatorData": b64(&auth_data),
                "clientDataJSON": b64(&client_data),
                "signature": b64(sig.to_der().as_bytes()),
                "userHandle": b64(&self.user_handle)
            },
            "extensions": {}
        })
    }
}

fn localhost_plane() -> Plane {
    Plane::start_with(Opts {
        localhost: true,
        ..Opts::default()
    })
}

fn post_as(p: &Plane, cookie: &str, path: &str, body: Value) -> Resp {
    p.post(path, body).header("Cookie", cookie).send()
}

/// Registers `a` on the account of `cookie`; returns the passkey row.
fn register(p: &Plane, cookie: &str, a: &mut Authenticator, name: &str) -> Value {
    let start = post_as(
        p,
        cookie,
        "/api/auth/passkeys/register/start",
        json!({"name": name}),
    );
    assert_eq!(start.status, 201, "{}", start.text());
    let start = start.json();
    let cred = a.create(&start["publicKey"]);
    let fin = post_as(
        p,
        cookie,
        "/api/auth/passkeys/register/finish",
        json!({"ceremonyId": start["ceremonyId"], "credential": cred}),
    );
    assert_eq!(fin.status, 201, "{}", fin.text());
    fin.json()
}

fn sign_in_start(p: &Plane, email: &str) -> Value {
    let r = p
        .post("/api/auth/passkey/start", json!({"email": email}))
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn sign_in_finish(p: &Plane, ceremony: &Value, cred: Value) -> Resp {
    p.post(
        "/api/auth/passkey/finish",
        json!({"ceremonyId": ceremony["ceremonyId"], "credential": cred}),
    )
    .send()
}

fn whoami(p: &Plane, cookie: &str) -> Resp {
    p.get("/api/auth/session").header("Cookie", cookie).send()
}

#[test]
fn a_registered_passkey_signs_in_and_rotates_the_session_f80() {
    let p = localhost_plane();
    let admin = p.setup_admin();
    let mut a = Authenticator::new(7, &p.origin());
    let row = register(&p, &admin, &mut a, "laptop");
    assert_eq!(row["name"], "laptop");
    assert!(row["lastUsedAt"].is_null());

    let list = p
        .get("/api/auth/passkeys")
        .header("Cookie", &admin)
        .send()
        .json();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");

    let ceremony = sign_in_start(&p, ADMIN);
    let allowed = ceremony["publicKey"]["allowCredentials"][0]["id"].clone();
    assert_eq!(allowed, json!(b64(&a.cred_id)));
    let cred = a.get(&ceremony["publicKey"]);
    // Signing in from the browser that holds the old session replaces it.
    let r = p
        .post(
            "/api/auth/passkey/finish",
            json!({"ceremonyId": ceremony["ceremonyId"], "credential": cred}),
        )
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["email"], ADMIN);
    let fresh = r.cookie_pair().unwrap();
    assert_ne!(fresh, admin);
    assert_eq!(whoami(&p, &fresh).status, 200);
    whoami(&p, &admin).error(401);

    let list = p
        .get("/api/auth/passkeys")
        .header("Cookie", &fresh)
        .send()
        .json();
    assert!(list[0]["lastUsedAt"].is_i64(), "{list}");
    let audit = p
        .get("/api/audit")
        .header("Cookie", &fresh)
        .send()
        .json()
        .to_string();
    assert!(audit.contains("passkey.added"), "{audit}");
}

#[test]
fn f84_a_challenge_is_single_use_and_expires() {
    let p = localhost_plane();
    let admin = p.setup_admin();
    let mut a = Authenticator::new(8, &p.origin());
    register(&p, &admin, &mut a, "key");

    let ceremony = sign_in_start(&p, ADMIN);
    let cred = a.get(&ceremony["publicKey"]);
    let first = sign_in_finish(&p, &ceremony, cred.clone());
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(
        sign_in_finish(&p, &ceremony, cred).error(404),
        "PASSKEY_CEREMONY_INVALID"
    );

    let late = sign_in_start(&p, ADMIN);
    let cred = a.get(&late["publicKey"]);
    p.clock.advance_ms(5 * 60 * 1000 + 1);
    assert_eq!(
        sign_in_finish(&p, &late, cred).error(404),
        "PASSKEY_CEREMONY_INVALID"
    );

    // A registration ceremony belongs to its account and is single-use too.
    let admin = p.sign_in(ADMIN, PASSWORD);
    p.create_user(&admin, "c@example.test", "user");
    let other = p.sign_in("c@example.test", PASSWORD);
    let start = post_as(
        &p,
        &admin,
        "/api/auth/passkeys/register/start",
        json!({"name": "two"}),
    )
    .json();
    let mut b = Authenticator::new(9, &p.origin());
    let cred = b.create(&start["publicKey"]);
    let body = json!({"ceremonyId": start["ceremonyId"], "credential": cred});
    assert_eq!(
        post_as(
            &p,
            &other,
            "/api/auth/passkeys/register/finish",
            body.clone()
        )
        .error(404),
        "PASSKEY_CEREMONY_INVALID",
        "another account cannot finish it (and that attempt spends it)"
    );
    assert_eq!(
        post_as(&p, &admin, "/api/auth/passkeys/register/finish", body).error(404),
        "PASSKEY_CEREMONY_INVALID"
    );
    let start = post_as(
        &p,
        &admin,
        "/api/auth/passkeys/register/start",
        json!({"name": "two"}),
    )
    .json();
    let cred = b.create(&start["publicKey"]);
    let body = json!({"ceremonyId": start["ceremonyId"], "credential": cred});
    let ok = post_as(
        &p,
        &admin,
        "/api/auth/passkeys/register/finish",
        body.clone(),
    );
    assert_eq!(ok.status, 201, "{}", ok.text());
    assert_eq!(
        post_as(&p, &admin, "/api/auth/passkeys/register/finish", body).error(404),
        "PASSKEY_CEREMONY_INVALID"
    );
    for who in [&admin, &other] {
        let n = p
            .get("/api/auth/passkeys")
            .header("Cookie", who)
            .send()
            .json();
        let want = if who == &admin { 2 } else { 0 };
        assert_eq!(n.as_array().unwrap().len(), want, "{n}");
    }
}

/// A change that makes an authenticator's answer wrong.
type Spoil = Box<dyn Fn(&mut Authenticator)>;

#[test]
fn f84_a_wrong_origin_relying_party_or_missing_verification_is_refused_and_stores_nothing() {
    let p = localhost_plane();
    let admin = p.setup_admin();
    let port = p.base.rsplit(':').next().unwrap().to_owned();
    let cases: Vec<(&str, Spoil)> = vec![
        (
            "origin",
            Box::new(move |a: &mut Authenticator| {
                a.origin = format!("http://localhost.evil.example:{port}");
            }),
        ),
        (
            "rp id",
            Box::new(|a: &mut Authenticator| a.rp_id = "evil.example".into()),
        ),
        ("uv", Box::new(|a: &mut Authenticator| a.uv = false)),
    ];
    for (i, (what, spoil)) in cases.iter().enumerate() {
        let mut a = Authenticator::new(20 + u8::try_from(i).unwrap(), &p.origin());
        spoil(&mut a);
        let start = post_as(
            &p,
            &admin,
            "/api/auth/passkeys/register/start",
            json!({"name": what}),
        )
        .json();
        let cred = a.create(&start["publicKey"]);
        let r = post_as(
            &p,
            &admin,
            "/api/auth/passkeys/register/finish",
            json!({"ceremonyId": start["ceremonyId"], "credential": cred}),
        );
        assert_eq!(r.error(400), "PASSKEY_REJECTED", "{what}");
    }
    let list = p
        .get("/api/auth/passkeys")
        .header("Cookie", &admin)
        .send()
        .json();
    assert_eq!(list, json!([]), "nothing was stored");

    // The same spoils at sign-in, with a good registration first.
    let mut good = Authenticator::new(30, &p.origin());
    register(&p, &admin, &mut good, "good");
    for (what, spoil) in &cases {
        let mut a = Authenticator::new(30, &p.origin());
        a.user_handle = good.user_handle.clone();
        a.counter = good.counter + 10;
        spoil(&mut a);
        let ceremony = sign_in_start(&p, ADMIN);
        let cred = a.get(&ceremony["publicKey"]);
        assert_eq!(
            sign_in_finish(&p, &ceremony, cred).error(401),
            "INVALID_CREDENTIALS",
            "{what}"
        );
    }
}

#[test]
fn f84_one_accounts_passkey_does_not_sign_in_another() {
    let p = localhost_plane();
    let admin = p.setup_admin();
    p.create_user(&admin, "b@example.test", "user");
    let b = p.sign_in("b@example.test", PASSWORD);
    let mut key_a = Authenticator::new(40, &p.origin());
    let mut key_b = Authenticator::new(41, &p.origin());
    register(&p, &admin, &mut key_a, "a");
    register(&p, &b, &mut key_b, "b");

    // A's authenticator answers B's ceremony (even claiming B's user handle).
    let ceremony = sign_in_start(&p, "b@example.test");
    key_a.user_handle = key_b.user_handle.clone();
    let cred = key_a.get(&ceremony["publicKey"]);
    assert_eq!(
        sign_in_finish(&p, &ceremony, cred).error(401),
        "INVALID_CREDENTIALS"
    );
    // B cannot remove A's passkey, nor see it.
    let a_rows = p
        .get("/api/auth/passkeys")
        .header("Cookie", &admin)
        .send()
        .json();
    let a_id = a_rows[0]["id"].as_str().unwrap();
    p.req()
        .method("DELETE")
        .path(&format!("/api/auth/passkeys/{a_id}"))
        .header("Origin", &p.origin())
        .header("Cookie", &b)
        .send()
        .error(404);
    let b_rows = p
        .get("/api/auth/passkeys")
        .header("Cookie", &b)
        .send()
        .json();
    assert_eq!(b_rows.as_array().unwrap().len(), 1);
    // A registered credential cannot be registered again (by anyone).
    let start = post_as(
        &p,
        &b,
        "/api/auth/passkeys/register/start",
        json!({"name": "again"}),
    )
    .json();
    let cred = key_a.create(&start["publicKey"]);
    assert_eq!(
        post_as(
            &p,
            &b,
            "/api/auth/passkeys/register/finish",
            json!({"ceremonyId": start["ceremonyId"], "credential": cred}),
        )
        .error(409),
        "PASSKEY_EXISTS"
    );
    // The owner removes it; it no longer signs in.
    let r = p
        .req()
        .method("DELETE")
        .path(&format!("/api/auth/passkeys/{a_id}"))
        .header("Origin", &p.origin())
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 204, "{}", r.text());
    let ceremony = sign_in_start(&p, ADMIN);
    let cred = key_a.get(&ceremony["publicKey"]);
    assert_eq!(
        sign_in_finish(&p, &ceremony, cred).error(401),
        "INVALID_CREDENTIALS"
    );
}

#[test]
fn f84_a_signature_counter_that_goes_back_is_refused() {
    let p = localhost_plane();
    let admin = p.setup_admin();
    let mut a = Authenticator::new(50, &p.origin());
    register(&p, &admin, &mut a, "key");
    a.counter = 10;
    let ceremony = sign_in_start(&p, ADMIN);
    let cred = a.get(&ceremony["publicKey"]);
    assert_eq!(sign_in_finish(&p, &ceremony, cred).status, 200);
    // A clone that is behind.
    a.counter = 3;
    let ceremony = sign_in_start(&p, ADMIN);
    let cred = a.get(&ceremony["publicKey"]);
    assert_eq!(
        sign_in_finish(&p, &ceremony, cred).error(401),
        "INVALID_CREDENTIALS"
    );
}

#[test]
fn an_unknown_account_gets_options_of_the_same_shape_and_cannot_sign_in() {
    let p = localhost_plane();
    let admin = p.setup_admin();
    let mut a = Authenticator::new(60, &p.origin());
    register(&p, &admin, &mut a, "key");
    let real = sign_in_start(&p, ADMIN);
    let decoy = sign_in_start(&p, "nobody@example.test");
    let keys = |v: &Value| {
        let mut k: Vec<String> = v["publicKey"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        k.sort();
        k
    };
    assert_eq!(keys(&real), keys(&decoy), "{real} / {decoy}");
    assert_eq!(
        decoy["publicKey"]["allowCredentials"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let again = sign_in_start(&p, "nobody@example.test");
    assert_eq!(
        again["publicKey"]["allowCredentials"], decoy["publicKey"]["allowCredentials"],
        "the decoy is stable for an email"
    );
    let cred = a.get(&decoy["publicKey"]);
    assert_eq!(
        sign_in_finish(&p, &decoy, cred).error(401),
        "INVALID_CREDENTIALS"
    );
}

#[test]
fn passkeys_are_managed_from_a_browser_session_only_and_need_a_host_name() {
    let p = localhost_plane();
    let admin = p.setup_admin();
    let (key, _) = p.system_key(&admin);
    for (method, path) in [
        ("GET", "/api/auth/passkeys"),
        ("POST", "/api/auth/passkeys/register/start"),
        ("DELETE", "/api/auth/passkeys/0123456789abcdef"),
    ] {
        let mut r = p.req().method(method).path(path).bearer(&key);
        if method == "POST" {
            r = r.json(json!({"name": "x"}));
        }
        r.send().error(403);
    }

    let ip = Plane::start();
    let admin = ip.setup_admin();
    assert_eq!(
        post_as(
            &ip,
            &admin,
            "/api/auth/passkeys/register/start",
            json!({"name": "x"}),
        )
        .error(409),
        "PASSKEYS_UNAVAILABLE"
    );
    assert_eq!(
        ip.post("/api/auth/passkey/start", json!({"email": ADMIN}))
            .send()
            .error(409),
        "PASSKEYS_UNAVAILABLE"
    );
}

/// Two replicas on one database: a ceremony begun at one finishes at the other, once (its
/// answer presented again at the first is refused), and an unknown email gets the same decoy
/// from both (answers compared across replicas tell nothing of which accounts exist).
#[test]
fn a_ceremony_begun_at_one_replica_finishes_at_another_once_and_both_give_one_decoy() {
    let p = localhost_plane();
    let admin = p.setup_admin();
    let q = p.another_replica();
    let mut a = Authenticator::new(62, &p.origin());
    let start = post_as(
        &p,
        &admin,
        "/api/auth/passkeys/register/start",
        json!({"name": "across"}),
    );
    assert_eq!(start.status, 201, "{}", start.text());
    let start = start.json();
    let cred = a.create(&start["publicKey"]);
    let fin = post_as(
        &q,
        &admin,
        "/api/auth/passkeys/register/finish",
        json!({"ceremonyId": start["ceremonyId"], "credential": cred}),
    );
    assert_eq!(
        fin.status,
        201,
        "registration begun at A finished at B: {}",
        fin.text()
    );

    let ceremony = sign_in_start(&q, ADMIN);
    let cred = a.get(&ceremony["publicKey"]);
    let first = sign_in_finish(&p, &ceremony, cred.clone());
    assert_eq!(
        first.status,
        200,
        "sign-in begun at B finished at A: {}",
        first.text()
    );
    assert_eq!(
        sign_in_finish(&q, &ceremony, cred).error(404),
        "PASSKEY_CEREMONY_INVALID"
    );

    let at_p = sign_in_start(&p, "nobody@example.test");
    let at_q = sign_in_start(&q, "nobody@example.test");
    assert_eq!(
        at_p["publicKey"]["allowCredentials"], at_q["publicKey"]["allowCredentials"],
        "one decoy for an email at every replica"
    );
}
