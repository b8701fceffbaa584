//! Security catalogue sections A, E and F against a real plane on loopback. Each test is named
//! after its catalogue number.
//!
//! Not here yet (they need later parts of the plane):
//! * E75 — pane (subshell) tokens do not exist yet.
//! * E76 — attach tokens and terminal WebSockets do not exist yet.
//! * E72 (WebSocket half) — a disabled system key closing its WebSockets needs the terminal WebSocket.
//! * E77 (pane token, attach token variants) — those credentials do not exist yet; system and node keys are covered.
//! * F80 (passkey rotation, password change) — passkeys and password change are not built yet.
//! * F82 — CSWSH needs the terminal WebSocket (the Origin check it will reuse is tested in F81).

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::sync::{Arc, Barrier};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

// ----- A. Enrollment -----

#[test]
fn a1_first_use_succeeds_and_node_key_is_returned_once() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.setup_key(&admin);
    let before = p.node_count();
    let r = p.enroll(&key, "n1");
    assert_eq!(r.status, 201, "{}", r.text());
    let v = r.json();
    let node_key = v["nodeKey"].as_str().unwrap().to_owned();
    let node_id = v["nodeId"].as_str().unwrap().to_owned();
    assert!(node_key.starts_with("tp_") && node_key.len() == 46);
    assert_eq!(v["wsUrl"], format!("ws://{}/ws/node", p.addr));
    assert_eq!(v["signingPublicJwk"]["kty"], "EC");
    assert_eq!(v["signingPublicJwk"]["crv"], "P-256");
    let control = v["controlEncryptPublicKey"].as_str().unwrap();
    assert!(
        termplane_proto::Key32::from_b64(control).is_ok(),
        "{control}"
    );
    assert_eq!(p.node_count(), before + 1);
    // The row stores only the digest.
    let row = common::node::node_row(&p, &node_id);
    assert_eq!(
        row.node_key_digest.as_deref(),
        Some(termplane::secret::digest(&node_key).as_str())
    );
    // No read returns it again.
    for path in [
        "/api/nodes".to_owned(),
        format!("/api/nodes/{node_id}"),
        "/api/audit".into(),
        "/api/setup-keys".into(),
    ] {
        let r = p.get(&path).header("Cookie", &admin).send();
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert!(!r.text().contains(&node_key), "{path} leaked the node key");
    }
    assert!(!String::from_utf8_lossy(&logs().lock().unwrap()).contains(&node_key));
}

#[test]
fn a2_second_use_is_refused_and_node_count_unchanged() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.setup_key(&admin);
    assert_eq!(p.enroll(&key, "n1").status, 201);
    let n = p.node_count();
    assert_eq!(p.enroll(&key, "n2").error(409), "SETUP_KEY_SPENT");
    assert_eq!(p.node_count(), n);
}

fn race(p: &Plane, admin: &str, n: usize) {
    let (_, key) = p.setup_key(admin);
    let before = p.node_count();
    let barrier = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let b = barrier.clone();
            let req = p
                .req()
                .method("POST")
                .path("/api/nodes/enroll")
                .json(enroll_body(&key, &format!("racer-{i}")));
            std::thread::spawn(move || {
                let mut conn = Conn::open(req.addr);
                b.wait();
                conn.send(&req).status
            })
        })
        .collect();
    let statuses: Vec<u16> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 201 || *s == 409),
        "{statuses:?}"
    );
    assert_eq!(p.node_count(), before + 1);
}

#[test]
fn a3_concurrent_enrollment_has_exactly_one_winner() {
    // N = 2 and 50 a few times each, N = 8 one hundred times (each round a fresh key).
    let p = Plane::start();
    let admin = p.setup_admin();
    for _ in 0..5 {
        race(&p, &admin, 2);
    }
    for _ in 0..100 {
        race(&p, &admin, 8);
    }
    for _ in 0..3 {
        race(&p, &admin, 50);
    }
}

#[test]
fn a4_expiry_is_exactly_24_hours_on_the_server_clock() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, young) = p.setup_key(&admin);
    let (_, old) = p.setup_key(&admin);
    p.clock.advance_ms(DAY_MS - 1000);
    assert_eq!(p.enroll(&young, "young").status, 201);
    p.clock.advance_ms(2000);
    let n = p.node_count();
    assert_eq!(p.enroll(&old, "old").error(401), "SETUP_KEY_EXPIRED");
    assert_eq!(p.node_count(), n);
    // The listing no longer shows the expired key in full.
    let list = p
        .get("/api/setup-keys")
        .header("Cookie", &admin)
        .send()
        .json();
    assert!(
        list.as_array().unwrap().iter().all(|k| k["key"].is_null()),
        "{list}"
    );
}

#[test]
fn a5_key_stays_spent_after_its_node_is_deleted() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.setup_key(&admin);
    let id = p.enroll(&key, "n").json()["nodeId"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = p
        .req()
        .method("DELETE")
        .path(&format!("/api/nodes/{id}"))
        .header("Origin", &p.origin())
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 204, "{}", r.text());
    let n = p.node_count();
    assert_eq!(p.enroll(&key, "again").error(409), "SETUP_KEY_SPENT");
    assert_eq!(p.node_count(), n);
}

#[test]
fn a6_other_credentials_are_refused_at_enrollment_and_setup_keys_on_rest() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, sys) = p.system_key(&admin);
    let (_, key) = p.setup_key(&admin);
    let node_key = p.enroll(&key, "n").json()["nodeKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, unused) = p.setup_key(&admin);
    let n = p.node_count();
    for other in [&sys, &node_key] {
        assert_eq!(p.enroll(other, "x").error(401), "SETUP_KEY_INVALID");
    }
    assert_eq!(p.node_count(), n);
    assert_eq!(
        p.get("/api/users").bearer(&unused).send().error(401),
        "INVALID_CREDENTIAL"
    );
}

#[test]
fn a7_malformed_setup_keys_are_4xx_never_500() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.setup_key(&admin);
    let long = format!("nsk_{}", "a".repeat(64 * 1024));
    let cases: Vec<Value> = vec![
        json!(""),
        json!("nsk_"),
        json!(long),
        json!(format!("{key}\u{0}")),
        json!(format!(" {key} ")),
        json!(key.replacen("nsk_", "NSK_", 1)),
        json!(42),
        Value::Null,
    ];
    for c in cases {
        let mut body = enroll_body(&key, "m");
        body["setupKey"] = c.clone();
        let r = p
            .req()
            .method("POST")
            .path("/api/nodes/enroll")
            .json(body)
            .send();
        assert!(r.status == 400 || r.status == 401, "{c}: {}", r.status);
        r.error(r.status);
    }
    // Non-UTF-8 body.
    let mut raw = br#"{"setupKey":"nsk_"#.to_vec();
    raw.extend_from_slice(&[0xff, 0xfe]);
    raw.extend_from_slice(b"\"}");
    let r = p
        .req()
        .method("POST")
        .path("/api/nodes/enroll")
        .raw_body(raw)
        .send();
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
    // The real key still works afterwards.
    assert_eq!(p.enroll(&key, "m").status, 201);
}

#[test]
fn a8_many_invalid_setup_keys_back_off() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, good) = p.setup_key(&admin);
    let mut codes = Vec::new();
    for i in 0..15 {
        let fake = format!("nsk_{i:0>43}");
        codes.push(p.enroll(&fake, "x").code());
    }
    assert!(
        codes[..10].iter().all(|c| c == "SETUP_KEY_INVALID"),
        "{codes:?}"
    );
    assert!(codes.iter().any(|c| c == "TOO_MANY_ATTEMPTS"), "{codes:?}");
    // Unknown keys keep waiting from this address…
    let fake = format!("nsk_{:0>43}", 99);
    assert_eq!(p.enroll(&fake, "x").error(429), "TOO_MANY_ATTEMPTS");
    // …but a valid key is never held up by someone else's failures: it cannot be guessed.
    let before = p.node_count();
    assert_eq!(p.enroll(&good, "g").status, 201);
    assert_eq!(p.node_count(), before + 1);
    // After the delay, unknown keys get their specific answer again.
    p.clock.advance_ms(16 * 60 * 1000);
    assert_eq!(p.enroll(&fake, "x").error(401), "SETUP_KEY_INVALID");
}

#[test]
fn a9_failure_after_consume_rolls_back_and_key_is_not_burnt() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (id, key) = p.setup_key(&admin);
    let n = p.node_count();
    p.svc
        .store()
        .faults()
        .fail_after_consume
        .store(true, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(p.enroll(&key, "n").error(500), "INTERNAL_ERROR");
    p.svc
        .store()
        .faults()
        .fail_after_consume
        .store(false, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(p.node_count(), n);
    let k = smol::block_on(p.svc.store().setup_key_by_id(&id))
        .unwrap()
        .unwrap();
    assert!(k.used_at.is_none(), "key burnt by a rolled-back enrollment");
    assert_eq!(p.enroll(&key, "n").status, 201);
    assert_eq!(p.node_count(), n + 1);
}

#[test]
fn a10_reenrollment_cannot_target_an_existing_node_and_rotation_revokes_at_once() {
    // Enrollment has no node-id input: a body naming one is refused, so a setup key never
    // re-keys an existing node. Re-keying is key_rotate: new key once, old key dead at once.
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, k1) = p.setup_key(&admin);
    let v = p.enroll(&k1, "n").json();
    let (id, old) = (
        v["nodeId"].as_str().unwrap().to_owned(),
        v["nodeKey"].as_str().unwrap().to_owned(),
    );
    let (_, k2) = p.setup_key(&admin);
    let mut body = enroll_body(&k2, "n");
    body["nodeId"] = json!(id);
    let r = p
        .req()
        .method("POST")
        .path("/api/nodes/enroll")
        .json(body)
        .send();
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
    assert_eq!(r.json()["metadata"]["field"], "nodeId");

    let r = p
        .post(&format!("/api/nodes/{id}/key_rotate"), Value::Null)
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    let new = r.json()["nodeKey"].as_str().unwrap().to_owned();
    assert_ne!(new, old);
    let store = p.svc.store();
    assert!(
        smol::block_on(store.node_by_key_digest(&termplane::secret::digest(&old)))
            .unwrap()
            .is_none()
    );
    let row = smol::block_on(store.node_by_key_digest(&termplane::secret::digest(&new)))
        .unwrap()
        .unwrap();
    assert_eq!(row.id, id);
    assert!(row.encrypt_public_key.is_none(), "rotation clears the pin");
    assert_eq!(
        p.get("/api/users").bearer(&old).send().error(401),
        "INVALID_CREDENTIAL"
    );
    assert_eq!(
        p.get("/api/users").bearer(&new).send().error(401),
        "NODE_KEY_NOT_ACCEPTED"
    );
}

// ----- E. REST credentials -----

#[test]
fn e72_disabled_system_key_fails_on_the_next_request_same_connection() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (id, key) = p.system_key(&admin);
    let mut conn = Conn::open(p.addr);
    assert_eq!(conn.send(&p.get("/api/users").bearer(&key)).status, 200);
    assert_eq!(
        conn.send(&p.get("/api/settings/public").bearer(&key))
            .status,
        200
    );
    let r = p
        .post(&format!("/api/system-keys/{id}/disable"), Value::Null)
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        conn.send(&p.get("/api/users").bearer(&key)).error(401),
        "INVALID_CREDENTIAL"
    );
    // Deletion removes the row.
    let r = p
        .req()
        .method("DELETE")
        .path(&format!("/api/system-keys/{id}"))
        .header("Origin", &p.origin())
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 204);
    assert!(
        p.get("/api/system-keys")
            .header("Cookie", &admin)
            .send()
            .json()
            .as_array()
            .unwrap()
            .is_empty()
    );
    // A system key acts as the `system` account.
    let (_, k2) = p.system_key(&admin);
    let who = p.get("/api/auth/session").bearer(&k2).send().json();
    assert_eq!(who["email"], "system");
    assert_eq!(who["isAdmin"], false);
}

#[test]
fn e73_raw_system_key_is_never_returned_again_or_logged() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (id, key) = p.system_key(&admin);
    assert_eq!(p.get("/api/users").bearer(&key).send().status, 200);
    let list = p.get("/api/system-keys").header("Cookie", &admin).send();
    assert!(!list.text().contains(&key));
    let entry = &list.json()[0];
    assert_eq!(entry["id"], id.as_str());
    assert!(key.ends_with(
        &entry["preview"].as_str().unwrap()[entry["preview"].as_str().unwrap().len() - 4..]
    ));
    assert!(
        !p.get("/api/audit")
            .header("Cookie", &admin)
            .send()
            .text()
            .contains(&key)
    );
    let digest = termplane::secret::digest(&key);
    let logs = String::from_utf8_lossy(&logs().lock().unwrap()).into_owned();
    assert!(!logs.contains(&key) && !logs.contains(&digest));
    assert!(!logs.contains(&key[3..]));
}

#[test]
fn e74_lookup_is_by_digest_and_near_misses_fail_alike() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.system_key(&admin);
    let mut near = key.clone().into_bytes();
    let last = near.len() - 1;
    near[last] = if near[last] == b'A' { b'B' } else { b'A' };
    let near = String::from_utf8(near).unwrap();
    let mut first = key.clone().into_bytes();
    first[3] = if first[3] == b'A' { b'B' } else { b'A' };
    let first = String::from_utf8(first).unwrap();
    for bad in [
        near,
        first,
        format!("{key}x"),
        key[..key.len() - 1].to_owned(),
    ] {
        let r = p.get("/api/users").bearer(&bad).send();
        assert_eq!(r.error(401), "INVALID_CREDENTIAL");
    }
    let stored = smol::block_on(p.svc.store().system_keys()).unwrap();
    assert_eq!(stored[0].digest, termplane::secret::digest(&key));
    assert_eq!(stored[0].digest.len(), 64);
}

#[test]
fn e77_admin_surfaces_answer_403_to_every_bearer_and_path_variant() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, sys) = p.system_key(&admin);
    let (_, sk) = p.setup_key(&admin);
    let node_key = p.enroll(&sk, "n").json()["nodeKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let paths = [
        "/api/system-keys",
        "/api/audit",
        "/api/admin/status",
        "/api/network",
        "/api/auth-providers",
        "/API/SYSTEM-KEYS",
        "//api//system-keys",
        "/api/../api/audit",
        "/api/%2e%2e/api/audit",
        "/api/system-keys;jsessionid=abc",
        "/api/audit.",
        "/admin/",
        "/ADMIN",
        "//admin",
    ];
    for bearer in [&sys, &node_key] {
        for path in paths {
            for method in ["GET", "HEAD", "OPTIONS", "POST", "DELETE"] {
                let mut r = p.req().method(method).path(path).bearer(bearer);
                if method == "POST" {
                    r = r.json(json!({"name": "x"}));
                }
                let resp = r.clone().header("Cookie", &admin).send();
                assert_eq!(
                    resp.status, 403,
                    "{method} {path} with bearer and admin cookie"
                );
                let resp = r.send();
                assert_eq!(resp.status, 403, "{method} {path}");
                if method != "HEAD" {
                    assert_eq!(resp.code(), "BEARER_NOT_ALLOWED");
                }
            }
        }
        // Admin writes on otherwise-open families.
        let r = p
            .req()
            .method("POST")
            .path("/api/users")
            .bearer(bearer)
            .header("Cookie", &admin)
            .json(json!({"email": "z@z.z", "displayName": "z", "password": PASSWORD}))
            .send();
        assert_eq!(r.error(403), "BEARER_NOT_ALLOWED");
        // Cookie-only node routes.
        let r = p.get("/api/nodes/anything").bearer(bearer).send();
        assert_eq!(r.error(403), "BEARER_NOT_ALLOWED");
    }
    // Nothing was created by any of this.
    assert_eq!(
        smol::block_on(p.svc.store().system_keys()).unwrap().len(),
        1
    );
    assert_eq!(smol::block_on(p.svc.store().users()).unwrap().len(), 2);
}

#[test]
fn e78_authorization_header_variants_are_deterministic_401() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.system_key(&admin);
    let variants: Vec<Vec<(&str, String)>> = vec![
        vec![("Authorization", format!("bearer {key}"))],
        vec![("Authorization", format!("Bearer  {key}"))],
        vec![
            ("Authorization", format!("Bearer {key}")),
            ("Authorization", format!("Bearer {key}")),
        ],
        vec![("Authorization", "Basic YWRtaW46cGFzcw==".into())],
        vec![("Authorization", "Bearer".into())],
        vec![("Authorization", "Bearer ".into())],
        vec![("Authorization", String::new())],
    ];
    for v in variants {
        for _ in 0..2 {
            let mut r = p.get("/api/users");
            for (k, val) in &v {
                r = r.header(k, val);
            }
            let resp = r.send();
            let code = resp.error(401);
            assert!(
                code == "AUTH_HEADER_INVALID" || code == "INVALID_CREDENTIAL",
                "{v:?}: {code}"
            );
        }
    }
    assert_eq!(p.get("/api/users").bearer(&key).send().status, 200);
}

// ----- F. Cookies, CSRF, sign-in -----

#[test]
fn f79_session_cookie_attributes() {
    let p = Plane::start_with(Opts {
        base_url: Some("https://plane.example".into()),
        ..Opts::default()
    });
    p.post(
        "/api/setup",
        json!({"email": ADMIN, "displayName": "A", "password": PASSWORD}),
    )
    .send();
    let r = p
        .post(
            "/api/auth/sign-in",
            json!({"email": ADMIN, "password": PASSWORD}),
        )
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    let c = r.header("set-cookie").unwrap().to_owned();
    assert!(c.starts_with("__Host-tp_session="), "{c}");
    for attr in ["; Secure", "; HttpOnly", "; SameSite=Lax", "; Path=/"] {
        assert!(c.contains(attr), "{c} lacks {attr}");
    }
    assert!(!c.contains("Domain="));
    // Over plain http the name drops the prefix (browsers refuse __Host- without Secure).
    let p = Plane::start();
    p.post(
        "/api/setup",
        json!({"email": ADMIN, "displayName": "A", "password": PASSWORD}),
    )
    .send();
    let c = p
        .post(
            "/api/auth/sign-in",
            json!({"email": ADMIN, "password": PASSWORD}),
        )
        .send()
        .header("set-cookie")
        .unwrap()
        .to_owned();
    assert!(
        c.starts_with("tp_session=") && c.contains("HttpOnly") && !c.contains("Secure"),
        "{c}"
    );
}

#[test]
fn f80_session_rotates_at_sign_in_dies_at_sign_out_and_on_disable() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let uid = p.create_user(&admin, "u@example.test", "user");
    let first = p.sign_in("u@example.test", PASSWORD);
    // Sign in again presenting the old cookie: a new id, the old one is dead.
    let r = p
        .post(
            "/api/auth/sign-in",
            json!({"email": "u@example.test", "password": PASSWORD}),
        )
        .header("Cookie", &first)
        .send();
    let second = r.cookie_pair().unwrap();
    assert_ne!(first, second);
    assert_eq!(
        p.get("/api/users")
            .header("Cookie", &first)
            .send()
            .error(401),
        "UNAUTHENTICATED"
    );
    assert_eq!(
        p.get("/api/users").header("Cookie", &second).send().status,
        200
    );
    // Sign-out destroys it server-side.
    let r = p
        .post("/api/auth/sign-out", Value::Null)
        .header("Cookie", &second)
        .send();
    assert_eq!(r.status, 204);
    assert_eq!(
        p.get("/api/users").header("Cookie", &second).send().status,
        401
    );
    // Disabling kills every session of the account, and only that account's.
    let a = p.sign_in("u@example.test", PASSWORD);
    let b = p.sign_in("u@example.test", PASSWORD);
    assert_eq!(
        smol::block_on(p.svc.store().session_count(&uid)).unwrap(),
        2
    );
    let r = p
        .post(&format!("/api/users/{uid}/disable"), Value::Null)
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        smol::block_on(p.svc.store().session_count(&uid)).unwrap(),
        0
    );
    for c in [&a, &b] {
        assert_eq!(p.get("/api/users").header("Cookie", c).send().status, 401);
    }
    assert_eq!(
        p.get("/api/users").header("Cookie", &admin).send().status,
        200
    );
    let r = p
        .post(
            "/api/auth/sign-in",
            json!({"email": "u@example.test", "password": PASSWORD}),
        )
        .send();
    assert_eq!(r.error(401), "INVALID_CREDENTIALS");
}

#[test]
fn f81_csrf_origin_checks_on_cookie_writes() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let create = |origin: Option<&str>, site: Option<&str>| {
        let mut r = p
            .req()
            .method("POST")
            .path("/api/setup-keys")
            .header("Cookie", &admin);
        if let Some(o) = origin {
            r = r.header("Origin", o);
        }
        if let Some(s) = site {
            r = r.header("Sec-Fetch-Site", s);
        }
        r.send()
    };
    let own = p.origin();
    for (origin, site) in [
        (Some("https://evil.example"), None),
        (None, None),
        (Some(own.as_str()), Some("cross-site")),
        (Some("null"), None),
        (Some(&format!("{own}.evil.com")), None),
        (Some(&own.replace("http://", "https://")), None),
    ] {
        assert_eq!(
            create(origin, site).error(403),
            "ORIGIN_REJECTED",
            "{origin:?} {site:?}"
        );
    }
    assert!(
        smol::block_on(p.svc.store().setup_keys(None))
            .unwrap()
            .is_empty()
    );
    assert_eq!(create(Some(&own), Some("same-origin")).status, 201);
    assert_eq!(create(Some("https://extra.example"), None).status, 201);
    assert_eq!(
        smol::block_on(p.svc.store().setup_keys(None))
            .unwrap()
            .len(),
        2
    );
    let public = p
        .get("/api/settings/public")
        .header("Cookie", &admin)
        .send()
        .json();
    assert_eq!(
        public["trustedOrigins"],
        json!([own, "https://extra.example"])
    );
}

#[test]
fn f83_password_backoff_is_exponential_atomic_and_uniform() {
    let p = Plane::start();
    let admin = p.setup_admin();
    p.create_user(&admin, "victim@example.test", "user");
    // 50 parallel wrong passwords: the counter is reserved before verifying.
    let barrier = Arc::new(Barrier::new(50));
    let handles: Vec<_> = (0..50)
        .map(|i| {
            let b = barrier.clone();
            let req = p.post(
                "/api/auth/sign-in",
                json!({"email": "victim@example.test", "password": format!("wrong-{i}")}),
            );
            std::thread::spawn(move || {
                let mut c = Conn::open(req.addr);
                b.wait();
                c.send(&req).json()["code"].as_str().unwrap().to_owned()
            })
        })
        .collect();
    let codes: Vec<String> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let verified = codes.iter().filter(|c| *c == "INVALID_CREDENTIALS").count();
    // The account × address key allows 5 free failures; the sixth reservation is the first to
    // wait, so at most 6 of the 50 reach the check.
    assert!(
        verified <= 6,
        "{verified} guesses reached the password check"
    );
    assert_eq!(
        verified + codes.iter().filter(|c| *c == "TOO_MANY_ATTEMPTS").count(),
        50
    );
    // Even the right password waits now.
    let r = p
        .post(
            "/api/auth/sign-in",
            json!({"email": "victim@example.test", "password": PASSWORD}),
        )
        .send();
    assert_eq!(r.error(429), "TOO_MANY_ATTEMPTS");
    let wait1 = r.json()["metadata"]["retryAfterMs"].as_i64().unwrap();
    assert!(r.header("retry-after").is_some());
    // Delays grow: after the wait, one more failure doubles the next wait.
    p.clock.advance_ms(wait1);
    let r = p
        .post(
            "/api/auth/sign-in",
            json!({"email": "victim@example.test", "password": "nope-nope"}),
        )
        .send();
    assert_eq!(r.error(401), "INVALID_CREDENTIALS");
    let r = p
        .post(
            "/api/auth/sign-in",
            json!({"email": "victim@example.test", "password": PASSWORD}),
        )
        .send();
    let wait2 = r.json()["metadata"]["retryAfterMs"].as_i64().unwrap();
    assert_eq!(wait2, wait1 * 2, "{wait1} then {wait2}");
    p.clock.advance_ms(wait2);
    assert_eq!(
        p.post(
            "/api/auth/sign-in",
            json!({"email": "victim@example.test", "password": PASSWORD})
        )
        .send()
        .status,
        200
    );
    // A capped wait: many failures never exceed 15 minutes.
    for _ in 0..30 {
        p.clock.advance_ms(15 * 60 * 1000);
        p.post(
            "/api/auth/sign-in",
            json!({"email": "victim@example.test", "password": "bad-bad-bad"}),
        )
        .send();
    }
    let r = p
        .post(
            "/api/auth/sign-in",
            json!({"email": "victim@example.test", "password": PASSWORD}),
        )
        .send();
    assert!(r.json()["metadata"]["retryAfterMs"].as_i64().unwrap() <= 15 * 60 * 1000);
    // Unknown and known accounts answer alike.
    let q = Plane::start();
    let qa = q.setup_admin();
    q.create_user(&qa, "known@example.test", "user");
    let known = q
        .post(
            "/api/auth/sign-in",
            json!({"email": "known@example.test", "password": "wrong-pass"}),
        )
        .send();
    let unknown = q
        .post(
            "/api/auth/sign-in",
            json!({"email": "nobody@example.test", "password": "wrong-pass"}),
        )
        .send();
    assert_eq!(known.status, unknown.status);
    let (mut k, mut u) = (known.json(), unknown.json());
    for v in [&mut k, &mut u] {
        v.as_object_mut().unwrap().remove("errId");
        v.as_object_mut().unwrap().remove("reqId");
    }
    assert_eq!(k, u);
}

// ----- Server basics -----

#[test]
fn server_error_bodies_for_404_405_413_400_and_panic() {
    let p = Plane::start_with(Opts {
        body_limit: Some(1024),
        ..Opts::default()
    });
    assert_eq!(p.get("/api/nope").send().error(404), "NOT_FOUND");
    assert_eq!(
        p.req()
            .method("DELETE")
            .path("/api/setup/status")
            .header("Origin", &p.origin())
            .send()
            .error(405),
        "METHOD_NOT_ALLOWED"
    );
    let r = p
        .post(
            "/api/setup",
            json!({"email": "a@b.c", "displayName": "x".repeat(2000), "password": PASSWORD}),
        )
        .send();
    assert_eq!(r.error(413), "PAYLOAD_TOO_LARGE");
    let r = p
        .post(
            "/api/setup",
            json!({"email": "a@b.c", "displayName": "A", "password": "short"}),
        )
        .send();
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
    assert_eq!(r.json()["metadata"]["field"], "password");
    assert!(r.json()["reqId"].is_string());
    let r = p.get("/api/__test/panic").send();
    assert_eq!(r.error(500), "INTERNAL_ERROR");
    // The plane still answers afterwards.
    assert_eq!(p.get("/api/setup/status").send().json()["setupDone"], false);
}

#[test]
fn server_setup_once_and_pre_auth_reads() {
    let p = Plane::start();
    assert_eq!(
        p.get("/api/settings/instance").send().json(),
        json!({"displayName": "termplane"})
    );
    assert_eq!(p.get("/api/users").send().error(401), "UNAUTHENTICATED");
    let admin = p.setup_admin();
    assert_eq!(p.get("/api/setup/status").send().json()["setupDone"], true);
    let r = p
        .post(
            "/api/setup",
            json!({"email": "second@example.test", "displayName": "B", "password": PASSWORD}),
        )
        .send();
    assert_eq!(r.error(409), "SETUP_ALREADY_DONE");
    let users = p.get("/api/users").header("Cookie", &admin).send().json();
    assert_eq!(
        users.as_array().unwrap().len(),
        2,
        "admin and the system account"
    );
    // Local node exists from the first start.
    let nodes = p.get("/api/nodes").header("Cookie", &admin).send().json();
    assert_eq!(nodes[0]["isLocal"], true);
    let audit = p.get("/api/audit").header("Cookie", &admin).send().json();
    assert!(
        audit
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["action"] == "setup.admin_created")
    );
}

#[test]
fn server_graceful_shutdown_drains_and_stops_accepting() {
    let mut p = Plane::start_with(Opts {
        drain: Some(Duration::from_secs(5)),
        ..Opts::default()
    });
    let mut idle = Conn::open(p.addr);
    assert_eq!(idle.send(&p.get("/api/setup/status")).status, 200);
    let addr = p.addr;
    p.stop();
    assert!(
        std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_err(),
        "still accepting"
    );
}

#[test]
fn nodes_listing_detail_allowed_dirs_and_setup_key_revocation() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, sys) = p.system_key(&admin);
    let (rid, revoked) = p.setup_key(&admin);
    let r = p
        .req()
        .method("DELETE")
        .path(&format!("/api/setup-keys/{rid}"))
        .header("Origin", &p.origin())
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 204);
    assert_eq!(p.enroll(&revoked, "n").error(401), "SETUP_KEY_REVOKED");
    let (_, key) = p.setup_key(&admin);
    let id = p.enroll(&key, "n").json()["nodeId"]
        .as_str()
        .unwrap()
        .to_owned();
    // A system key lists the local node and the `system` account's nodes (none here), and
    // cannot read details.
    let listed = p.get("/api/nodes").bearer(&sys).send().json();
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["isLocal"], true);
    assert_eq!(
        p.get(&format!("/api/nodes/{id}"))
            .bearer(&sys)
            .send()
            .error(403),
        "BEARER_NOT_ALLOWED"
    );
    let r = p
        .req()
        .method("PUT")
        .path(&format!("/api/nodes/{id}/allowed_dirs"))
        .header("Origin", &p.origin())
        .header("Cookie", &admin)
        .json(json!({"allowedDirs": ["/srv", "/home/u"]}))
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["allowedDirs"], json!(["/srv", "/home/u"]));
    let r = p
        .req()
        .method("PUT")
        .path(&format!("/api/nodes/{id}/allowed_dirs"))
        .header("Origin", &p.origin())
        .header("Cookie", &admin)
        .json(json!({"allowedDirs": ["relative"]}))
        .send();
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
    let detail = p
        .get(&format!("/api/nodes/{id}"))
        .header("Cookie", &admin)
        .send()
        .json();
    assert_eq!(detail["allowedDirs"], json!(["/srv", "/home/u"]));
    assert_eq!(detail["liveness"], "offline");
    let long = "x".repeat(65);
    let (_, k3) = p.setup_key(&admin);
    let r = p.enroll(&k3, &long);
    assert_eq!(r.json()["metadata"]["field"], "name");
    let actions: Vec<String> = p
        .get("/api/audit")
        .header("Cookie", &admin)
        .send()
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap().to_owned())
        .collect();
    for a in [
        "setup_key.created",
        "setup_key.revoked",
        "node.enrolled",
        "node.allowed_dirs_set",
        "system_key.created",
    ] {
        assert!(
            actions.iter().any(|x| x == a),
            "{a} missing from {actions:?}"
        );
    }
}
