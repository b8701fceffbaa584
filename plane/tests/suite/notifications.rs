//! Notifications through the real server, delivered by Web Push to a push service written here
//! (a loopback HTTP listener): a real pane on the local node's tmux says it needs input, the
//! push arrives, carries a VAPID header that verifies with the plane's key, and decrypts with
//! the subscription's keys (RFC 8291, receiver side written here from the RFC); a gone endpoint
//! removes its device; preferences and the inbox; bad subscriptions are refused.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use aes_gcm::aead::Aead;
use aes_gcm::{Aes128Gcm, KeyInit};
use base64ct::{Base64UrlUnpadded, Encoding};
use common::*;
use p256::ecdsa::signature::Verifier;
use p256::elliptic_curve::sec1::ToSec1Point;
use serde_json::{Value, json};
use termplane_test_support::wait_until;

/// One push as the push service received it.
struct Push {
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Push {
    fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map_or("", |(_, v)| v.as_str())
    }
}

/// A push service on loopback: `/gone…` answers 410, anything else 201.
fn push_service() -> (String, mpsc::Receiver<Push>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", l.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut line = String::new();
            if r.read_line(&mut line).is_err() {
                continue;
            }
            let path = line.split(' ').nth(1).unwrap_or("").to_owned();
            let mut headers = Vec::new();
            loop {
                let mut h = String::new();
                r.read_line(&mut h).unwrap();
                let h = h.trim_end();
                if h.is_empty() {
                    break;
                }
                let (k, v) = h.split_once(':').unwrap();
                headers.push((k.trim().to_owned(), v.trim().to_owned()));
            }
            let len: usize = headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
                .map_or(0, |(_, v)| v.parse().unwrap());
            let mut body = vec![0; len];
            r.read_exact(&mut body).unwrap();
            let status = if path.starts_with("/gone") {
                "410 Gone"
            } else {
                "201 Created"
            };
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            let _ = tx.send(Push {
                path,
                headers,
                body,
            });
        }
    });
    (base, rx)
}

/// A browser's subscription keys.
struct Subscription {
    secret: p256::SecretKey,
    auth: [u8; 16],
}

impl Subscription {
    fn new(seed: u8) -> Self {
        Self {
            secret: p256::SecretKey::from_slice(&[seed; 32]).unwrap(),
            auth: [seed.wrapping_add(1); 16],
        }
    }

    fn public(&self) -> Vec<u8> {
        self.secret
            .public_key()
            .to_sec1_point(false)
            .as_bytes()
            .to_vec()
    }

    fn json(&self, endpoint: &str, name: &str) -> Value {
        json!({
            "name": name,
            "endpoint": endpoint,
            "keys": {
                "p256dh": Base64UrlUnpadded::encode_string(&self.public()),
                "auth": Base64UrlUnpadded::encode_string(&self.auth),
            },
            "expirationTime": null
        })
    }

    /// RFC 8291 as a user agent applies it.
    fn decrypt(&self, body: &[u8]) -> Vec<u8> {
        let salt = &body[..16];
        let rs = u32::from_be_bytes(body[16..20].try_into().unwrap());
        assert_eq!(rs, 4096);
        assert_eq!(body[20], 65);
        let as_public = &body[21..86];
        let sender = p256::PublicKey::from_sec1_bytes(as_public).unwrap();
        let shared =
            p256::ecdh::diffie_hellman(self.secret.to_nonzero_scalar(), sender.as_affine());
        let ua_public = self.public();
        let mut ikm = [0u8; 32];
        hkdf::Hkdf::<sha2::Sha256>::new(Some(&self.auth), shared.raw_secret_bytes().as_slice())
            .expand_multi_info(&[b"WebPush: info\0", &ua_public, as_public], &mut ikm)
            .unwrap();
        let prk = hkdf::Hkdf::<sha2::Sha256>::new(Some(salt), &ikm);
        let mut cek = [0u8; 16];
        prk.expand(b"Content-Encoding: aes128gcm\0", &mut cek)
            .unwrap();
        let mut nonce = [0u8; 12];
        prk.expand(b"Content-Encoding: nonce\0", &mut nonce)
            .unwrap();
        let mut plain = Aes128Gcm::new_from_slice(&cek)
            .unwrap()
            .decrypt(&nonce.into(), &body[86..])
            .expect("the push decrypts with the subscription's keys");
        assert_eq!(plain.pop(), Some(2), "a last-record delimiter");
        plain
    }
}

/// Launches a shell pane of `admin`'s on the local node and reads its token off its screen;
/// answers its id and a function that reports an attention signal with that token.
fn own_pane<'a>(
    p: &'a Plane,
    admin: &'a str,
    node: &common::local::Local,
    name: &str,
) -> (String, impl Fn(&str) + 'a) {
    let r = p.call(admin,
        "POST",
        "/api/subshells",
        Some(
            json!({ "nodeId": node.node_id, "harnessId": "shell", "cwd": node.work.to_string_lossy(), "name": name }),
        ),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let r = p.call(
        admin,
        "POST",
        &format!("/api/subshells/{id}/input"),
        Some(json!({ "text": "echo tok=$TERMPLANE_TOKEN.", "keys": ["enter"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let pane = wait_until("the pane's token", Duration::from_secs(20), || {
        let s = p
            .call(
                admin,
                "GET",
                &format!("/api/subshells/{id}/screen?lines=50"),
                None,
            )
            .json()["text"]
            .as_str()?
            .to_owned();
        s.split("tok=")
            .filter_map(|x| x.split('.').next())
            .find(|t| t.starts_with("tp_"))
            .map(str::to_owned)
    });
    let path = format!("/api/subshells/{id}/attention");
    let attention = move |what: &str| {
        let r = p
            .req()
            .method("POST")
            .path(&path)
            .bearer(&pane)
            .json(json!({ "attention": what }))
            .send();
        assert_eq!(r.status, 200, "{}", r.text());
    };
    (id, attention)
}

#[test]
fn a_pane_that_needs_input_pushes_an_encrypted_signed_message_to_its_owners_devices() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let node = common::local::attach(&p);
    let (push_base, pushes) = push_service();
    let sub = Subscription::new(5);
    let r = p.call(
        &admin,
        "POST",
        "/api/devices",
        Some(sub.json(&format!("{push_base}/push/laptop"), "laptop")),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["pushService"], push_base.as_str());
    let gone = Subscription::new(9);
    let r = p.call(
        &admin,
        "POST",
        "/api/devices",
        Some(gone.json(&format!("{push_base}/gone/old-phone"), "old phone")),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let vapid = p.call(&admin, "GET", "/api/devices/vapid", None).json()["publicKey"]
        .as_str()
        .unwrap()
        .to_owned();

    // The administrator's own pane (a person's, so its owner is told).
    let (id, attention) = own_pane(&p, &admin, &node, "agent-1");
    let mut feed = live_feed(&p, &admin);
    attention("needs_input");
    // The owner's live feed hears of it too.
    let frame = next_frame_of(&mut feed, "notification");
    assert_eq!(frame["notification"]["kind"], "needs_input", "{frame}");
    assert_eq!(frame["notification"]["subjectId"], id.as_str(), "{frame}");

    let mut got = Vec::new();
    while got.len() < 2 {
        got.push(
            pushes
                .recv_timeout(Duration::from_secs(20))
                .expect("a push"),
        );
    }
    let push = got.iter().find(|p| p.path == "/push/laptop").unwrap();
    assert_eq!(push.header("content-encoding"), "aes128gcm");
    assert_eq!(push.header("ttl"), "86400");
    assert_eq!(push.header("urgency"), "high");
    let auth = push.header("authorization");
    let (t, k) = auth
        .strip_prefix("vapid t=")
        .unwrap()
        .split_once(", k=")
        .unwrap();
    assert_eq!(k, vapid);
    let parts: Vec<&str> = t.split('.').collect();
    let claims: Value =
        serde_json::from_slice(&Base64UrlUnpadded::decode_vec(parts[1]).unwrap()).unwrap();
    assert_eq!(claims["aud"], push_base.as_str());
    let key =
        p256::ecdsa::VerifyingKey::from_sec1_bytes(&Base64UrlUnpadded::decode_vec(k).unwrap())
            .unwrap();
    let sig = p256::ecdsa::Signature::from_slice(&Base64UrlUnpadded::decode_vec(parts[2]).unwrap())
        .unwrap();
    key.verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
        .expect("the VAPID token verifies with the plane's key");
    let message: Value = serde_json::from_slice(&sub.decrypt(&push.body)).unwrap();
    assert_eq!(message["kind"], "needs_input");
    assert_eq!(message["subjectId"], id.as_str());
    assert_eq!(message["title"], "agent-1 needs input");
    assert_eq!(message["url"], format!("/subshells/{id}"));

    // The gone endpoint's device was removed; the other one recorded its delivery (two writes
    // of their own: the removal may be seen before the delivery is recorded).
    let devices = wait_until(
        "the gone device to be removed and the other's delivery recorded",
        Duration::from_secs(20),
        || {
            let d = p.call(&admin, "GET", "/api/devices", None).json();
            (d.as_array().unwrap().len() == 1 && d[0]["lastSentAt"].is_i64()).then_some(d)
        },
    );
    assert_eq!(devices[0]["name"], "laptop");
    assert!(devices[0]["lastSentAt"].is_i64(), "{devices}");

    // The inbox.
    let inbox = p
        .call(&admin, "GET", "/api/notifications?unread=true", None)
        .json();
    assert_eq!(inbox.as_array().unwrap().len(), 1, "{inbox}");
    let unread = || {
        p.call(&admin, "GET", "/api/notifications/unread", None)
            .json()["unread"]
            .clone()
    };
    assert_eq!(unread(), 1);
    assert_eq!(inbox[0]["kind"], "needs_input");
    assert_eq!(inbox[0]["url"], format!("/subshells/{id}"));
    let nid = inbox[0]["id"].as_str().unwrap();
    let r = p.call(
        &admin,
        "POST",
        &format!("/api/notifications/{nid}/read"),
        Some(json!({})),
    );
    assert_eq!(r.json()["marked"], 1);
    assert_eq!(
        p.call(&admin, "GET", "/api/notifications?unread=true", None)
            .json(),
        json!([])
    );
    assert_eq!(unread(), 0);

    // Switched off: a second needs-input tells nobody; the pane's exit still does.
    let r = p.call(
        &admin,
        "PUT",
        "/api/notifications/preferences",
        Some(json!({"needsInput": false, "exited": true, "crashed": true, "nodeOffline": true})),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    attention("none");
    attention("needs_input");
    // Later than the first notification (the inbox is newest first).
    p.clock.advance_ms(1000);
    p.call(
        &admin,
        "POST",
        &format!("/api/subshells/{id}/input"),
        Some(json!({ "text": "exit 0", "keys": ["enter"] })),
    );
    // The test's local node has no exit checks of its own: run them here, as the plane's
    // local node does every tick, and hand the exit to the plane.
    let exit = wait_until("the pane's exit", Duration::from_secs(20), || {
        node.exec.exit_tick().into_iter().next()
    });
    assert_eq!(exit.exit_code, Some(0));
    let svc = p.svc.clone();
    smol::block_on(svc.node_reports().apply_node_event(
        &node.node_id,
        termplane::local::LOCAL_CONN,
        &termplane_proto::Event::Exit(exit),
    ));
    let next = pushes
        .recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| {
            let row = p
                .call(&admin, "GET", &format!("/api/subshells/{id}"), None)
                .text();
            let inbox = p.call(&admin, "GET", "/api/notifications", None).text();
            panic!("no push after the exit; the row: {row}; the inbox: {inbox}")
        });
    let message: Value = serde_json::from_slice(&sub.decrypt(&next.body)).unwrap();
    assert_eq!(message["kind"], "exited", "{message}");
    assert_eq!(next.header("urgency"), "normal");
    let all = p.call(&admin, "GET", "/api/notifications", None).json();
    let kinds: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["exited", "needs_input"]);
    let r = p.call(
        &admin,
        "POST",
        "/api/notifications/read-all",
        Some(json!({})),
    );
    assert_eq!(r.json()["marked"], 1);
}

#[test]
fn bad_subscriptions_are_refused_and_devices_are_their_owners_alone() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let sub = Subscription::new(3);
    let good = sub.json("https://push.example/send/1", "phone");
    let mut cases = Vec::new();
    for (field, value) in [
        ("endpoint", json!("ftp://push.example/x")),
        ("endpoint", json!("https://")),
        ("endpoint", json!("https://user@push.example/x")),
        ("endpoint", json!("https://push.example/a b")),
    ] {
        let mut b = good.clone();
        b[field] = value;
        cases.push(b);
    }
    let mut off_curve = sub.public();
    off_curve[64] ^= 1;
    let mut b = good.clone();
    b["keys"]["p256dh"] = json!(Base64UrlUnpadded::encode_string(&off_curve));
    cases.push(b);
    let mut b = good.clone();
    b["keys"]["auth"] = json!(Base64UrlUnpadded::encode_string(&[1u8; 15]));
    cases.push(b);
    let mut b = good.clone();
    b["extra"] = json!(1);
    cases.push(b);
    for bad in cases {
        let r = p.call(&admin, "POST", "/api/devices", Some(bad.clone()));
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{bad}");
    }
    assert_eq!(
        p.call(&admin, "GET", "/api/devices", None).json(),
        json!([])
    );

    // Ten devices, then a refusal; the same endpoint again is an update, not an eleventh.
    for i in 0..10 {
        let r = p.call(
            &admin,
            "POST",
            "/api/devices",
            Some(sub.json(&format!("https://push.example/send/{i}"), "d")),
        );
        assert_eq!(r.status, 201, "{}", r.text());
    }
    let r = p.call(
        &admin,
        "POST",
        "/api/devices",
        Some(sub.json("https://push.example/send/10", "d")),
    );
    assert_eq!(r.error(409), "DEVICE_LIMIT");
    let r = p.call(
        &admin,
        "POST",
        "/api/devices",
        Some(sub.json("https://push.example/send/3", "renamed")),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let list = p.call(&admin, "GET", "/api/devices", None).json();
    assert_eq!(list.as_array().unwrap().len(), 10);

    // Another account sees none of them and cannot remove one.
    p.create_user(&admin, "w@example.test", "user");
    let w = p.sign_in("w@example.test", PASSWORD);
    assert_eq!(p.call(&w, "GET", "/api/devices", None).json(), json!([]));
    let some = list[0]["id"].as_str().unwrap();
    p.call(&w, "DELETE", &format!("/api/devices/{some}"), None)
        .error(404);
    let r = p.call(&admin, "DELETE", &format!("/api/devices/{some}"), None);
    assert_eq!(r.status, 204);
    // A bearer credential is refused.
    let (_, key) = p.system_key(&admin);
    p.get("/api/devices").bearer(&key).send().error(403);
    p.get("/api/notifications").bearer(&key).send().error(403);
}

/// This machine's host name, which its resolver answers with a loopback or private address
/// (as `/etc/hosts` has it on a Debian host or in a container).
fn a_name_that_resolves_inside() -> String {
    use std::net::ToSocketAddrs as _;
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_owned();
    let addrs: Vec<_> = (name.as_str(), 443).to_socket_addrs().unwrap().collect();
    assert!(
        !addrs.is_empty()
            && addrs
                .iter()
                .all(|a| !termplane_runtime_smol::http::is_public(a.ip())),
        "this test needs the host name {name} to resolve inside ({addrs:?})"
    );
    name
}

#[test]
fn push_endpoints_inside_the_planes_host_or_network_are_refused_and_never_reached() {
    let p = Plane::start_with(Opts {
        public_push_only: true,
        ..Opts::default()
    });
    let admin = p.setup_admin();
    let sub = Subscription::new(4);
    let doc = p.get("/api/openapi.json").send().json();
    let published =
        jsonschema::validator_for(&doc["components"]["schemas"]["PushEndpoint"]).unwrap();
    let refused = |endpoint: &str, why: Option<&str>| {
        let r = p.call(
            &admin,
            "POST",
            "/api/devices",
            Some(sub.json(endpoint, "d")),
        );
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{endpoint}");
        assert_eq!(r.json()["metadata"]["field"], "endpoint", "{endpoint}");
        if let Some(why) = why {
            assert!(r.text().contains(why), "{endpoint}: {}", r.text());
        }
        // What the plane refuses, the reference it serves refuses too (a name's resolution
        // excepted: no schema can state it).
        if why != Some("resolves") {
            assert!(
                !published.is_valid(&json!(endpoint)),
                "the reference takes {endpoint}"
            );
        }
    };
    // Every spelling of a loopback or unspecified address a URL parser or a resolver reads.
    for host in ["127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0"] {
        refused(&format!("https://{host}/push"), None);
        refused(&format!("http://{host}:8443/push"), None);
    }
    // Literals of loopback, private, link-local (the cloud metadata service) and mapped
    // addresses, and localhost.
    for endpoint in [
        "https://127.0.0.1/push",
        "https://[::1]/push",
        "https://10.1.2.3/push",
        "https://192.168.0.10:8443/push",
        "https://169.254.169.254/latest/meta-data",
        "https://[::ffff:127.0.0.1]/push",
        "https://[fd00::5]/push",
        "https://0.0.0.0/push",
        "https://localhost/push",
        "https://LocalHost./push",
        "https://api.localhost/push",
    ] {
        refused(endpoint, Some("public internet"));
    }
    // A name that resolves inside, by the same rule a push meets.
    let inside = a_name_that_resolves_inside();
    refused(&format!("https://{inside}/push"), Some("resolves"));
    refused(
        &format!("https://{}/push", inside.to_uppercase()),
        Some("resolves"),
    );
    assert_eq!(
        p.call(&admin, "GET", "/api/devices", None).json(),
        json!([])
    );
    assert!(
        published.is_valid(&json!("https://fcm.googleapis.com/fcm/send/abc")),
        "{}",
        doc["components"]["schemas"]["PushEndpoint"]
    );

    // An endpoint that reads inside only when the push is sent (a row from before this rule, a
    // name rebound since) is not reached either, and the device says why.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.set_nonblocking(true).unwrap();
    let port = l.local_addr().unwrap().port();
    let r = p.call(
        &admin,
        "POST",
        "/api/devices",
        Some(sub.json("http://push.invalid/push/x", "sneaky")),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    tamper(
        &p,
        &format!("UPDATE devices SET endpoint = 'http://127.1:{port}/push/x'"),
    );
    let node = common::local::attach(&p);
    let (_id, attention) = own_pane(&p, &admin, &node, "agent-2");
    attention("needs_input");
    let device = wait_until("the push to fail", Duration::from_secs(20), || {
        let d = p.call(&admin, "GET", "/api/devices", None).json();
        d[0]["lastError"].is_string().then(|| d[0].clone())
    });
    assert!(
        device["lastError"]
            .as_str()
            .unwrap()
            .contains("is not on the public internet"),
        "{device}"
    );
    assert!(device["lastSentAt"].is_null(), "{device}");
    assert!(
        l.accept().is_err(),
        "the plane connected to a loopback listener"
    );
}

/// The "needs you" rules through the real server (`termplane::service::needs_you`; this plane
/// holds a need 300 ms and tells a pane at most once in 2 s): a need that flickers tells
/// nobody and one that holds is told once; what was told is cleared when the need leaves;
/// nothing while the owner watches the pane, nor for a pane they muted; in quiet hours the
/// inbox hears of it and no device does. Each "nothing" is checked against a later need of
/// another pane, which is told after it would have been.
#[test]
fn a_need_is_told_after_it_holds_never_while_watched_or_muted_quietly_in_quiet_hours_and_cleared_when_it_leaves()
 {
    let p = Plane::start();
    let admin = p.setup_admin();
    let node = common::local::attach(&p);
    let (push_base, pushes) = push_service();
    let sub = Subscription::new(7);
    let r = p.call(
        &admin,
        "POST",
        "/api/devices",
        Some(sub.json(&format!("{push_base}/push/phone"), "phone")),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let (a, need_a) = own_pane(&p, &admin, &node, "agent-a");
    let (b, need_b) = own_pane(&p, &admin, &node, "agent-b");
    let mut feed = live_feed(&p, &admin);
    let told_of = |id: &str| {
        p.call(&admin, "GET", "/api/notifications", None)
            .json()
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["subjectId"] == id)
            .count()
    };
    let next_told = |feed: &mut _| next_frame_of(feed, "notification")["notification"].clone();
    let next_pushed = || {
        let push = pushes
            .recv_timeout(Duration::from_secs(20))
            .expect("a push");
        serde_json::from_slice::<Value>(&sub.decrypt(&push.body)).unwrap()
    };

    // A flicker tells nobody; a need that holds is told once, with its push.
    need_a("needs_input");
    need_a("none");
    need_b("needs_input");
    let n = next_told(&mut feed);
    assert_eq!(n["subjectId"], b.as_str(), "{n}");
    assert_eq!(n["kind"], "needs_input");
    assert_eq!(next_pushed()["subjectId"], b.as_str());
    assert_eq!((told_of(&a), told_of(&b)), (0, 1));

    // Cleared when the need leaves.
    need_b("none");
    wait_until(
        "the need's notification read",
        Duration::from_secs(20),
        || {
            (p.call(&admin, "GET", "/api/notifications/unread", None)
                .json()["unread"]
                == 0)
                .then_some(())
        },
    );

    // Never while the owner watches the pane.
    let tok = p
        .call(
            &admin,
            "POST",
            "/api/auth/ws-token",
            Some(json!({ "subshellId": a })),
        )
        .json()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let origin = p.origin();
    let mut viewer = termplane_test_support::viewer::Viewer::open(
        p.addr,
        &format!("/api/subshells/{a}/attach?token={tok}"),
        &[("Origin", origin.as_str())],
    )
    .unwrap();
    viewer.until("attached", |t| t.has("attached", |_| true));
    // The feed hears of the viewer after the rules do.
    let presence = |feed: &mut _, n: usize| loop {
        let f = next_frame_of(feed, "presence");
        if f["subshellId"] == a.as_str() && f["viewers"].as_array().unwrap().len() == n {
            break;
        }
    };
    presence(&mut feed, 1);
    need_a("needs_input");
    need_b("needs_input");
    assert_eq!(next_told(&mut feed)["subjectId"], b.as_str());
    assert_eq!(next_pushed()["subjectId"], b.as_str());
    assert_eq!(told_of(&a), 0, "nothing while the owner watched");
    drop(viewer);
    presence(&mut feed, 0);
    need_b("none");

    // A muted pane tells nobody; a mute is its owner's, for their own panes.
    let r = p.call(
        &admin,
        "PUT",
        &format!("/api/notifications/mutes/{a}"),
        Some(json!({})),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["until"], Value::Null);
    let mutes = p
        .call(&admin, "GET", "/api/notifications/mutes", None)
        .json();
    assert_eq!(mutes.as_array().unwrap().len(), 1, "{mutes}");
    assert_eq!(mutes[0]["subshellId"], a.as_str());
    need_a("none");
    need_a("needs_input");
    need_b("needs_input");
    assert_eq!(next_told(&mut feed)["subjectId"], b.as_str());
    assert_eq!(next_pushed()["subjectId"], b.as_str());
    assert_eq!(told_of(&a), 0, "nothing of a muted pane");
    let path = format!("/api/notifications/mutes/{a}");
    let past = termplane::clock::Clock::now_ms(&p.clock) - 1;
    let r = p.call(&admin, "PUT", &path, Some(json!({ "until": past })));
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["code"], "INPUT_VALIDATION_ERROR");
    let r = p.call(
        &admin,
        "PUT",
        "/api/notifications/mutes/no-such-pane",
        Some(json!({})),
    );
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(p.call(&admin, "DELETE", &path, None).status, 204);
    assert_eq!(p.call(&admin, "DELETE", &path, None).status, 404);
    assert_eq!(
        p.call(&admin, "GET", "/api/notifications/mutes", None)
            .json(),
        json!([])
    );

    // Quiet hours around the plane's clock (UTC): the inbox and the feed, no device.
    let minute = termplane::clock::Clock::now_ms(&p.clock)
        .div_euclid(60_000)
        .rem_euclid(24 * 60);
    let hhmm = |m: i64| {
        let m = m.rem_euclid(24 * 60);
        format!("{:02}:{:02}", m / 60, m % 60)
    };
    let prefs = |quiet: Value| {
        json!({"needsInput": true, "exited": true, "crashed": true, "nodeOffline": true,
               "quietHours": quiet})
    };
    let quiet = json!({ "from": hhmm(minute - 60), "to": hhmm(minute + 60), "timeZone": "UTC" });
    for bad in [
        json!({ "from": "09:00", "to": "09:00", "timeZone": "UTC" }),
        json!({ "from": "09:00", "to": "17:00", "timeZone": "Mars/Olympus_Mons" }),
        json!({ "from": "24:00", "to": "07:00", "timeZone": "UTC" }),
    ] {
        let r = p.call(
            &admin,
            "PUT",
            "/api/notifications/preferences",
            Some(prefs(bad.clone())),
        );
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
    }
    let stored = p.call(&admin, "GET", "/api/notifications/preferences", None);
    assert_eq!(
        stored.json()["quietHours"],
        Value::Null,
        "a refusal kept nothing"
    );
    let r = p.call(
        &admin,
        "PUT",
        "/api/notifications/preferences",
        Some(prefs(quiet.clone())),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let stored = p.call(&admin, "GET", "/api/notifications/preferences", None);
    assert_eq!(stored.json()["quietHours"], quiet);
    need_b("none");
    need_b("needs_input");
    assert_eq!(next_told(&mut feed)["subjectId"], b.as_str());
    // Loud again: the next push is a's, so none went out for b in quiet hours.
    let r = p.call(
        &admin,
        "PUT",
        "/api/notifications/preferences",
        Some(prefs(Value::Null)),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    need_a("none");
    need_a("needs_input");
    assert_eq!(next_told(&mut feed)["subjectId"], a.as_str());
    assert_eq!(next_pushed()["subjectId"], a.as_str());
}
