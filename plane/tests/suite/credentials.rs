//! Credentials and input: the sign-in backoff cannot be turned into a lock-out, `X-Forwarded-For`
//! counts only from trusted proxies, enrollment refuses keys that are not keys, and emails have
//! one spelling. Catalogue cases are named after their numbers (F83, B11, B12, A8).

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use serde_json::json;

/// A plane behind a reverse proxy on loopback: `X-Forwarded-For` names the client.
fn proxied_plane() -> Plane {
    Plane::start_with(Opts {
        trusted_proxies: vec!["127.0.0.1"],
        ..Opts::default()
    })
}

fn sign_in_from(p: &Plane, address: &str, email: &str, password: &str) -> Resp {
    p.post(
        "/api/auth/sign-in",
        json!({"email": email, "password": password}),
    )
    .header("X-Forwarded-For", address)
    .send()
}

#[test]
fn f83_a_guesser_elsewhere_cannot_lock_the_owner_out() {
    let p = proxied_plane();
    let admin = p.setup_admin();
    p.create_user(&admin, "victim@example.test", "user");
    // The owner signed in from their usual address once.
    assert_eq!(
        sign_in_from(&p, "203.0.113.5", "victim@example.test", PASSWORD).status,
        200
    );
    // An attacker guesses from another address, one wrong guess whenever its wait ends, for a
    // simulated hour; between its guesses the owner signs in every time.
    let mut owner_ok = 0;
    let mut attacker_verified = 0;
    for _ in 0..40 {
        let r = sign_in_from(&p, "198.51.100.9", "victim@example.test", "wrong guess");
        match r.status {
            401 => attacker_verified += 1,
            429 => {
                let wait = r.json()["metadata"]["retryAfterMs"].as_i64().unwrap();
                p.clock.advance_ms(wait);
            }
            s => panic!("unexpected {s}"),
        }
        let r = sign_in_from(&p, "203.0.113.5", "victim@example.test", PASSWORD);
        assert_eq!(r.status, 200, "the owner was locked out: {}", r.text());
        owner_ok += 1;
    }
    assert_eq!(owner_ok, 40);
    // The attacker's own guesses slowed down: 5 free, then waits that double.
    assert!(attacker_verified <= 40);
    let r = sign_in_from(&p, "198.51.100.9", "victim@example.test", "wrong guess");
    assert_eq!(r.error(429), "TOO_MANY_ATTEMPTS");
    // The owner from a new address is not held up by the attacker's few guesses either.
    assert_eq!(
        sign_in_from(&p, "192.0.2.77", "victim@example.test", PASSWORD).status,
        200
    );
}

#[test]
fn f83_failures_from_one_address_do_not_block_other_accounts_there() {
    let p = proxied_plane();
    let admin = p.setup_admin();
    p.create_user(&admin, "colleague@example.test", "user");
    // Someone behind the same NAT mistypes many accounts' passwords.
    for i in 0..30 {
        let r = sign_in_from(
            &p,
            "10.9.8.7",
            &format!("someone{i}@example.test"),
            "not the password",
        );
        assert_eq!(r.error(401), "INVALID_CREDENTIALS");
    }
    // A colleague at the same address still signs in.
    let r = sign_in_from(&p, "10.9.8.7", "colleague@example.test", PASSWORD);
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn f83_one_address_trying_many_accounts_is_slowed() {
    let p = proxied_plane();
    p.setup_admin();
    let mut throttled = false;
    for i in 0..120 {
        let r = sign_in_from(
            &p,
            "10.1.1.1",
            &format!("user{i}@example.test"),
            "stuffed password",
        );
        if r.status == 429 {
            throttled = true;
            assert!(i >= 100, "throttled after only {i} failures");
            break;
        }
    }
    assert!(
        throttled,
        "120 accounts tried from one address without a wait"
    );
}

#[test]
fn forwarded_for_counts_only_from_a_trusted_proxy() {
    // No trusted proxy: the header is the client's word and is ignored.
    let p = Plane::start();
    p.setup_admin();
    let mut codes = Vec::new();
    for i in 0..8 {
        let r = sign_in_from(&p, &format!("198.51.100.{i}"), ADMIN, "wrong password");
        codes.push(r.status);
    }
    assert!(
        codes.contains(&429),
        "spoofed X-Forwarded-For values escaped the backoff: {codes:?}"
    );
}

#[test]
fn b11_enrollment_refuses_an_identity_jwk_that_is_not_a_p256_point() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.setup_key(&admin);
    let before = p.node_count();
    let x = termplane_proto::key::b64url_encode(&[1u8; 32]);
    let y = termplane_proto::key::b64url_encode(&[2u8; 32]);
    for jwk in [
        json!({"kty": "EC", "crv": "P-256", "x": x, "y": y}),
        json!({"kty": "EC", "crv": "P-256", "x": termplane_proto::key::b64url_encode(&[0u8; 32]), "y": termplane_proto::key::b64url_encode(&[0u8; 32])}),
    ] {
        let mut body = enroll_body(&key, "n");
        body["identityJwk"] = jwk;
        let r = p
            .req()
            .method("POST")
            .path("/api/nodes/enroll")
            .json(body)
            .send();
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
        assert_eq!(r.json()["metadata"]["field"], "identityJwk");
    }
    // Nothing was written and the key is not spent.
    assert_eq!(p.node_count(), before);
    assert_eq!(p.enroll(&key, "n").status, 201);
}

/// The 14 encodings of Wycheproof's x25519 vectors that give an all-zero shared secret
/// (catalogue B12), as whole 32-byte keys.
fn low_order_keys() -> Vec<[u8; 32]> {
    let hex = |s: &str| -> [u8; 32] { hex::decode(s).unwrap().try_into().unwrap() };
    let mut keys = Vec::new();
    let mut zero = [0u8; 32];
    keys.push(zero);
    zero[31] = 0x80;
    keys.push(zero);
    let mut one = [0u8; 32];
    one[0] = 1;
    keys.push(one);
    one[31] = 0x80;
    keys.push(one);
    keys.push(hex(
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
    ));
    keys.push(hex(
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f11d7",
    ));
    keys.push(hex(
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    ));
    keys.push(hex(
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b880",
    ));
    for first in [0xec_u8, 0xed, 0xee] {
        for last in [0x7f_u8, 0xff] {
            let mut k = [0xff_u8; 32];
            k[0] = first;
            k[31] = last;
            keys.push(k);
        }
    }
    keys
}

#[test]
fn b12_enrollment_refuses_low_order_and_all_zero_link_keys() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.setup_key(&admin);
    let before = p.node_count();
    let keys = low_order_keys();
    assert_eq!(keys.len(), 14);
    for k in keys {
        let mut body = enroll_body(&key, "n");
        body["encryptPublicKey"] = json!(termplane_proto::key::b64url_encode(&k));
        let r = p
            .req()
            .method("POST")
            .path("/api/nodes/enroll")
            .json(body)
            .send();
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{}", hex::encode(k));
        assert_eq!(r.json()["metadata"]["field"], "encryptPublicKey");
    }
    assert_eq!(p.node_count(), before);
    assert_eq!(p.enroll(&key, "n").status, 201);
}

#[test]
fn emails_that_differ_only_invisibly_are_one_account_or_refused() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let create = |email: &str| {
        p.post(
            "/api/users",
            json!({"email": email, "displayName": "X", "password": PASSWORD}),
        )
        .header("Cookie", &admin)
        .send()
    };
    assert_eq!(create("person@example.test").status, 201);
    // Fullwidth letters and upper case fold into the same address: the account exists.
    assert_eq!(
        create("ＰＥＲＳＯＮ@example.test").error(409),
        "EMAIL_TAKEN"
    );
    // Invisible, bidirectional-control and look-alike letters are refused outright.
    for bad in [
        "person\u{200b}@example.test",
        "person@example.test\u{202e}",
        "\u{2066}person@example.test",
        "pers\u{131}n@example.test",
        "person@ex\u{430}mple.test",
    ] {
        let r = create(bad);
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{bad:?}");
        assert_eq!(r.json()["metadata"]["field"], "email");
    }
    // One account, and the folded spelling signs in.
    let users = p.get("/api/users").header("Cookie", &admin).send().json();
    let people: Vec<_> = users
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["email"].as_str().unwrap().contains("person"))
        .collect();
    assert_eq!(people.len(), 1);
    let r = p
        .post(
            "/api/auth/sign-in",
            json!({"email": "Ｐerson@Example.TEST", "password": PASSWORD}),
        )
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn a_credential_refusal_comes_before_an_input_refusal() {
    let p = Plane::start();
    p.setup_admin();
    // No credential, malformed body: 401/403, not a validation answer that describes the input.
    let r = p
        .req()
        .method("POST")
        .path("/api/users")
        .bearer("tp_not_a_key")
        .json(json!({"email": 5}))
        .send();
    assert_eq!(r.status, 403, "{}", r.text());
    let r = p.get("/api/nodes/not-an-id").send();
    assert_eq!(r.error(401), "UNAUTHENTICATED");
    let r = p
        .get("/api/nodes/00000000000000000000000000000000/events?waitMs=abc")
        .send();
    assert_eq!(r.error(401), "UNAUTHENTICATED");
    // With a session, the input is judged.
    let admin = p.sign_in(ADMIN, PASSWORD);
    let r = p
        .get("/api/nodes/00000000000000000000000000000000/events?waitMs=abc")
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
    assert_eq!(r.json()["metadata"]["field"], "waitMs");
    let r = p
        .get("/api/nodes/00000000000000000000000000000000/events?waitMs=25001")
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.json()["metadata"]["field"], "waitMs");
    let r = p
        .get("/api/nodes/00000000000000000000000000000000/events?surprise=1")
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.json()["metadata"]["field"], "surprise");
}

#[test]
fn enrollment_numbers_a_name_another_node_of_the_same_owner_already_has() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let names = |cookie: &str| -> Vec<String> {
        let r = p.call(cookie, "GET", "/api/nodes", None);
        assert_eq!(r.status, 200, "{}", r.text());
        let mut names: Vec<String> = r
            .json()
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["isLocal"] == false)
            .map(|n| n["name"].as_str().unwrap().to_owned())
            .collect();
        names.sort();
        names
    };
    let enroll = |cookie: &str, name: &str| -> String {
        let (_, key) = p.setup_key(cookie);
        let r = p.enroll(&key, name);
        assert_eq!(r.status, 201, "{}", r.text());
        r.json()["name"].as_str().unwrap().to_owned()
    };
    // Two machines of one host name: the second is told apart, and the answer says how.
    assert_eq!(enroll(&admin, "build-host"), "build-host");
    assert_eq!(enroll(&admin, "build-host"), "build-host-2");
    assert_eq!(enroll(&admin, "build-host"), "build-host-3");
    assert_eq!(
        names(&admin),
        ["build-host", "build-host-2", "build-host-3"]
    );
    // A name at the longest allowed keeps within it.
    let long = "n".repeat(64);
    assert_eq!(enroll(&admin, &long), long);
    let renamed = enroll(&admin, &long);
    assert_eq!(renamed, format!("{}-2", "n".repeat(62)));
    assert!(names(&admin).contains(&renamed));
    // Another person's node of the same name is theirs to name: it keeps the name.
    p.create_user(&admin, "other@example.com", "user");
    let other = p.sign_in("other@example.com", PASSWORD);
    assert_eq!(enroll(&other, "build-host"), "build-host");
    assert_eq!(names(&other), ["build-host"]);
}
