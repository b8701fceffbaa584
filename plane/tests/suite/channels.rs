//! Channels and identities through the real server: signed entries in a hash chain, sealed at
//! rest, and each claim of the threat model in `plane/src/api/channels.rs` tried as the party
//! it is about — another user, a read member, a pane within and beyond its ceiling, someone
//! holding a copy of the database, someone editing it.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::{Duration, Instant};

use base64ct::{Base64, Encoding as _};
use common::*;
use serde_json::{Value, json};
use termplane_machines::channel as signed;
use termplane_machines::jws::Es256Signer;

/// Who sends a request.
#[derive(Clone)]
enum Cred {
    Cookie(String),
    Bearer(String),
}

fn call(p: &Plane, who: &Cred, method: &str, path: &str, body: Option<Value>) -> Resp {
    let mut r = p.req().method(method).path(path);
    r = match who {
        Cred::Cookie(c) => r.header("Origin", &p.origin()).header("Cookie", c),
        Cred::Bearer(t) => r.bearer(t),
    };
    if let Some(b) = body {
        r = r.json(b);
    }
    r.send()
}

fn new_key() -> Es256Signer {
    loop {
        let mut b = [0u8; 32];
        getrandom::fill(&mut b).unwrap();
        if let Ok(k) = Es256Signer::from_secret_bytes(&b) {
            return k;
        }
    }
}

/// Registers a new identity; its id and key.
fn identity(p: &Plane, who: &Cred, name: &str) -> (String, Es256Signer) {
    let key = new_key();
    let jwk = key.public_jwk();
    let proof = signed::sign(&key, &signed::identity_proof_input(name, &jwk));
    let r = call(
        p,
        who,
        "POST",
        "/api/identities",
        Some(json!({ "name": name, "publicKey": jwk, "proof": proof })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    (r.json()["id"].as_str().unwrap().to_owned(), key)
}

fn channel(p: &Plane, who: &Cred, name: &str) -> String {
    let r = call(
        p,
        who,
        "POST",
        "/api/channels",
        Some(json!({ "name": name })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()["id"].as_str().unwrap().to_owned()
}

fn head(p: &Plane, who: &Cred, chan: &str) -> (u64, String) {
    let v = call(p, who, "GET", &format!("/api/channels/{chan}"), None).json();
    (
        v["head"]["seq"].as_u64().unwrap(),
        v["head"]["hash"].as_str().unwrap().to_owned(),
    )
}

/// A signed entry at `seq` after `prev`.
fn entry(chan: &str, seq: u64, prev: &str, ident: &str, key: &Es256Signer, body: &str) -> Value {
    let input = signed::entry_signing_input(chan, seq, prev, ident, body);
    json!({ "identityId": ident, "seq": seq, "prev": prev, "body": body,
            "signature": signed::sign(key, &input) })
}

/// Posts `body` at the channel's head as `ident`.
fn post(p: &Plane, who: &Cred, chan: &str, ident: &str, key: &Es256Signer, body: &str) -> Resp {
    let (seq, prev) = head(p, who, chan);
    call(
        p,
        who,
        "POST",
        &format!("/api/channels/{chan}/entries"),
        Some(entry(chan, seq + 1, &prev, ident, key, body)),
    )
}

fn read(p: &Plane, who: &Cred, chan: &str, query: &str) -> Value {
    let r = call(
        p,
        who,
        "GET",
        &format!("/api/channels/{chan}/entries?{query}"),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn problems(page: &Value) -> Vec<(i64, Option<String>)> {
    page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["seq"].as_i64().unwrap(),
                e["problem"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

/// A reader of `chan` at plane `p` parked in a long poll (up to 20 s) on a thread of its own,
/// once the plane counts it waiting: how long it waited, and the page it got.
fn park_reader(p: &Plane, cookie: &str, chan: &str) -> std::thread::JoinHandle<(Duration, Value)> {
    let base = (p.addr, p.origin(), cookie.to_owned(), chan.to_owned());
    let waiter = std::thread::spawn(move || {
        let t = Instant::now();
        let r = Req {
            addr: base.0,
            method: "GET".into(),
            path: String::new(),
            headers: vec![],
            body: None,
        }
        .path(&format!(
            "/api/channels/{}/entries?after=0&waitMs=20000",
            base.3
        ))
        .header("Origin", &base.1)
        .header("Cookie", &base.2)
        .send();
        (t.elapsed(), r.json())
    });
    termplane_test_support::wait_until("the read to park", Duration::from_secs(10), || {
        p.svc
            .health()
            .metrics()
            .render()
            .lines()
            .any(|l| l == "termplane_channel_reads_waiting 1")
            .then_some(())
    });
    waiter
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn signed_entries_form_a_chain_that_reads_back_verified_and_pages_by_cursor() {
    let p = Plane::start();
    let admin = Cred::Cookie(p.setup_admin());
    let chan = channel(&p, &admin, "release-1.4");
    let (me, key) = identity(&p, &admin, "admin's laptop");
    // Bodies in every form: newlines, NFC and NFD spellings, astral characters, the longest.
    let bodies = [
        "first line\nsecond line\n".to_owned(),
        "caf\u{e9}".to_owned(),
        "cafe\u{301}".to_owned(),
        "\u{1F980} \u{1D11E} \u{202E}reversed".to_owned(),
        "\u{10FFFF}".repeat(16_384),
    ];
    for b in &bodies {
        let r = post(&p, &admin, &chan, &me, &key, b);
        assert_eq!(r.status, 201, "{}", r.text());
    }
    let page = read(&p, &admin, &chan, "after=0&limit=200");
    let got: Vec<&str> = page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["body"].as_str().unwrap())
        .collect();
    assert_eq!(got, bodies.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(problems(&page).iter().all(|(_, p)| p.is_none()), "{page}");
    // Each entry names the one before it, and the reader can redo every check.
    let mut prev = signed::GENESIS.to_owned();
    let ident = call(&p, &admin, "GET", &format!("/api/identities/{me}"), None).json();
    let jwk: termplane_machines::jws::PublicJwk =
        serde_json::from_value(ident["publicKey"].clone()).unwrap();
    for e in page["entries"].as_array().unwrap() {
        assert_eq!(e["prev"], prev.as_str());
        let input = signed::entry_signing_input(
            &chan,
            e["seq"].as_u64().unwrap(),
            &prev,
            &me,
            e["body"].as_str().unwrap(),
        );
        assert_eq!(e["hash"], signed::entry_hash(&input).as_str());
        signed::verify(&jwk, &input, e["signature"].as_str().unwrap()).unwrap();
        assert_eq!(e["author"]["thumbprint"], ident["thumbprint"]);
        prev = e["hash"].as_str().unwrap().to_owned();
    }
    assert_eq!(page["head"]["seq"], 5);
    assert_eq!(page["head"]["hash"], prev.as_str());
    // Paging: two at a time from a cursor; the first page's link is still checked.
    let first = read(&p, &admin, &chan, "after=0&limit=2");
    assert_eq!(first["next"], 2);
    let second = read(&p, &admin, &chan, "after=2&limit=2");
    assert_eq!(problems(&second), vec![(3, None), (4, None)], "{second}");
    assert_eq!(read(&p, &admin, &chan, "after=5")["entries"], json!([]));
    assert_eq!(read(&p, &admin, &chan, "after=5")["next"], 5);

    // Bad input changes nothing: a body one character too long, a signature that does not
    // verify, the same signed entry again (a replay), an entry that skips the head.
    let before = head(&p, &admin, &chan);
    let (seq, prev) = before.clone();
    let long = "x".repeat(16_385);
    let r = call(
        &p,
        &admin,
        "POST",
        &format!("/api/channels/{chan}/entries"),
        Some(entry(&chan, seq + 1, &prev, &me, &key, &long)),
    );
    assert_eq!((r.status, r.code()), (400, "INPUT_VALIDATION_ERROR".into()));
    let mut forged = entry(&chan, seq + 1, &prev, &me, &key, "signed");
    forged["body"] = json!("not what was signed");
    let r = call(
        &p,
        &admin,
        "POST",
        &format!("/api/channels/{chan}/entries"),
        Some(forged),
    );
    assert_eq!((r.status, r.code()), (400, "SIGNATURE_INVALID".into()));
    let good = entry(&chan, seq + 1, &prev, &me, &key, "once");
    let path = format!("/api/channels/{chan}/entries");
    assert_eq!(
        call(&p, &admin, "POST", &path, Some(good.clone())).status,
        201
    );
    let r = call(&p, &admin, "POST", &path, Some(good));
    assert_eq!((r.status, r.code()), (409, "CHANNEL_HEAD_MOVED".into()));
    assert_eq!(r.json()["metadata"]["head"]["seq"], seq + 1);
    let (seq2, prev2) = head(&p, &admin, &chan);
    let r = call(
        &p,
        &admin,
        "POST",
        &path,
        Some(entry(&chan, seq2 + 2, &prev2, &me, &key, "skips one")),
    );
    assert_eq!((r.status, r.code()), (409, "CHANNEL_HEAD_MOVED".into()));
    assert_eq!(head(&p, &admin, &chan), (seq2, prev2));
    assert_eq!(seq2, seq + 1);
    assert_eq!(
        read(&p, &admin, &chan, "after=0&limit=200")["entries"]
            .as_array()
            .unwrap()
            .len(),
        6
    );
    // A cursor past the head reads as the head, not echoed back as `next` (a reader following
    // it would skip the entries written up to it).
    let past = read(&p, &admin, &chan, &format!("after={}", seq2 + 5));
    assert_eq!(past["entries"], json!([]));
    assert_eq!(past["next"], seq2);
    let at_head = read(&p, &admin, &chan, &format!("after={seq2}"));
    assert_eq!(at_head["entries"], json!([]));
    assert_eq!(at_head["next"], seq2);
}

#[test]
fn identities_prove_possession_register_once_and_revoked_ones_sign_nothing_more() {
    let p = Plane::start();
    let admin = Cred::Cookie(p.setup_admin());
    p.create_user(
        match &admin {
            Cred::Cookie(c) => c,
            Cred::Bearer(_) => unreachable!(),
        },
        "bob@example.test",
        "user",
    );
    let bob = Cred::Cookie(p.sign_in("bob@example.test", PASSWORD));
    let key = new_key();
    let jwk = key.public_jwk();
    // A proof made by another key, or for another name, proves nothing.
    let other = new_key();
    let wrong = signed::sign(&other, &signed::identity_proof_input("mine", &jwk));
    let r = call(
        &p,
        &admin,
        "POST",
        "/api/identities",
        Some(json!({ "name": "mine", "publicKey": jwk, "proof": wrong })),
    );
    assert_eq!((r.status, r.code()), (400, "SIGNATURE_INVALID".into()));
    let for_other_name = signed::sign(&key, &signed::identity_proof_input("other", &jwk));
    let r = call(
        &p,
        &admin,
        "POST",
        "/api/identities",
        Some(json!({ "name": "mine", "publicKey": jwk, "proof": for_other_name })),
    );
    assert_eq!((r.status, r.code()), (400, "SIGNATURE_INVALID".into()));
    // A point off the curve.
    let mut off = serde_json::to_value(&jwk).unwrap();
    off["y"] = off["x"].clone();
    let r = call(
        &p,
        &admin,
        "POST",
        "/api/identities",
        Some(json!({ "name": "mine", "publicKey": off, "proof": wrong })),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["metadata"]["field"], "publicKey");
    assert_eq!(
        call(&p, &admin, "GET", "/api/identities", None).json(),
        json!([])
    );
    // Registered once: the same key again — by anyone — is refused.
    let proof = signed::sign(&key, &signed::identity_proof_input("mine", &jwk));
    let body = json!({ "name": "mine", "publicKey": jwk, "proof": proof });
    let r = call(&p, &admin, "POST", "/api/identities", Some(body.clone()));
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(r.json()["thumbprint"], signed::thumbprint(&jwk).as_str());
    let r = call(&p, &bob, "POST", "/api/identities", Some(body));
    assert_eq!((r.status, r.code()), (409, "IDENTITY_EXISTS".into()));
    // Anyone signed in reads its public key; only its holder revokes it.
    let r = call(&p, &bob, "GET", &format!("/api/identities/{id}"), None);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["publicKey"], serde_json::to_value(&jwk).unwrap());
    let r = call(&p, &bob, "DELETE", &format!("/api/identities/{id}"), None);
    assert_eq!((r.status, r.code()), (403, "IDENTITY_NOT_YOURS".into()));
    assert!(call(&p, &bob, "GET", "/api/identities", None).json() == json!([]));

    let chan = channel(&p, &admin, "notes");
    assert_eq!(post(&p, &admin, &chan, &id, &key, "before").status, 201);
    let r = call(&p, &admin, "DELETE", &format!("/api/identities/{id}"), None);
    assert_eq!(r.status, 204);
    assert!(
        call(&p, &admin, "GET", &format!("/api/identities/{id}"), None).json()["revokedAt"]
            .is_i64()
    );
    let r = post(&p, &admin, &chan, &id, &key, "after");
    assert_eq!((r.status, r.code()), (409, "IDENTITY_REVOKED".into()));
    // What it signed before still verifies.
    let page = read(&p, &admin, &chan, "");
    assert_eq!(problems(&page), vec![(1, None)], "{page}");
    assert_eq!(head(&p, &admin, &chan).0, 1);

    // A deleted account's identities are revoked with it: nobody holds them to account.
    let (bobs, _) = identity(&p, &bob, "bob's laptop");
    let users = call(&p, &admin, "GET", "/api/users", None).json();
    let bob_id = users
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["email"] == "bob@example.test")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = call(&p, &admin, "DELETE", &format!("/api/users/{bob_id}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
    let bobs = call(&p, &admin, "GET", &format!("/api/identities/{bobs}"), None).json();
    assert!(bobs["revokedAt"].is_i64(), "{bobs}");
}

#[test]
fn threat_another_user_sees_no_channel_they_are_not_in_and_a_read_member_does_not_post() {
    let p = Plane::start();
    let admin_cookie = p.setup_admin();
    let admin = Cred::Cookie(admin_cookie.clone());
    let bob_id = p.create_user(&admin_cookie, "bob@example.test", "user");
    let bob = Cred::Cookie(p.sign_in("bob@example.test", PASSWORD));
    let (_, system_key) = p.system_key(&admin_cookie);
    let script = Cred::Bearer(system_key);
    // Bob's channel: the administrator is not in it, and is no exception.
    let chan = channel(&p, &bob, "bob's notes");
    let (bob_ident, bob_key) = identity(&p, &bob, "bob");
    assert_eq!(
        post(&p, &bob, &chan, &bob_ident, &bob_key, "private").status,
        201
    );
    let (admin_ident, admin_key) = identity(&p, &admin, "admin");
    for who in [&admin, &script] {
        for path in [
            format!("/api/channels/{chan}"),
            format!("/api/channels/{chan}/entries"),
            format!("/api/channels/{chan}/members"),
        ] {
            let r = call(&p, who, "GET", &path, None);
            assert_eq!((r.status, r.code()), (404, "NOT_FOUND".into()), "{path}");
        }
        assert_eq!(
            call(&p, who, "GET", "/api/channels", None).json(),
            json!([])
        );
        let r = call(
            &p,
            who,
            "POST",
            &format!("/api/channels/{chan}/entries"),
            Some(entry(
                &chan,
                2,
                signed::GENESIS,
                &admin_ident,
                &admin_key,
                "x",
            )),
        );
        assert_eq!(r.status, 404, "{}", r.text());
        let r = call(&p, who, "DELETE", &format!("/api/channels/{chan}"), None);
        assert_eq!(r.status, 404, "{}", r.text());
    }
    // Let the administrator read: it reads, but does not post, add members or delete.
    let member = format!("/api/channels/{chan}/members/{}", admin_id(&p, &admin));
    let r = call(&p, &bob, "PUT", &member, Some(json!({ "access": "read" })));
    assert_eq!(r.status, 200, "{}", r.text());
    let page = read(&p, &admin, &chan, "");
    assert_eq!(page["entries"][0]["body"], "private");
    assert_eq!(
        call(&p, &admin, "GET", &format!("/api/channels/{chan}"), None).json()["access"],
        "read"
    );
    let r = post(&p, &admin, &chan, &admin_ident, &admin_key, "from a reader");
    assert_eq!((r.status, r.code()), (403, "PERMISSION_DENIED".into()));
    let r = call(
        &p,
        &admin,
        "PUT",
        &format!("/api/channels/{chan}/members/{bob_id}"),
        Some(json!({ "access": "write" })),
    );
    assert_eq!(r.status, 403, "{}", r.text());
    let r = call(&p, &admin, "DELETE", &format!("/api/channels/{chan}"), None);
    assert_eq!((r.status, r.code()), (403, "PERMISSION_DENIED".into()));
    // With write it posts — as itself, never as bob.
    let r = call(&p, &bob, "PUT", &member, Some(json!({ "access": "write" })));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        post(&p, &admin, &chan, &admin_ident, &admin_key, "from a writer").status,
        201
    );
    let r = post(&p, &admin, &chan, &bob_ident, &bob_key, "as bob");
    assert_eq!((r.status, r.code()), (403, "IDENTITY_NOT_YOURS".into()));
    let members = call(
        &p,
        &bob,
        "GET",
        &format!("/api/channels/{chan}/members"),
        None,
    )
    .json();
    assert_eq!(members[0]["owner"], true);
    assert_eq!(members[1]["access"], "write");
    // Removed, it is a stranger again; a member may also leave by itself.
    assert_eq!(call(&p, &bob, "DELETE", &member, None).status, 204);
    let r = call(
        &p,
        &admin,
        "GET",
        &format!("/api/channels/{chan}/entries"),
        None,
    );
    assert_eq!(r.status, 404);
    assert_eq!(
        call(&p, &bob, "PUT", &member, Some(json!({ "access": "read" }))).status,
        200
    );
    assert_eq!(call(&p, &admin, "DELETE", &member, None).status, 204);
    assert_eq!(
        call(&p, &admin, "GET", &format!("/api/channels/{chan}"), None).status,
        404
    );
    // The owner deletes it, with its entries.
    assert_eq!(
        call(&p, &bob, "DELETE", &format!("/api/channels/{chan}"), None).status,
        204
    );
    assert_eq!(
        call(&p, &bob, "GET", "/api/channels", None).json(),
        json!([])
    );
}

fn admin_id(p: &Plane, admin: &Cred) -> String {
    let v = call(p, admin, "GET", "/api/auth/session", None).json();
    v["id"]
        .as_str()
        .or_else(|| v["user"]["id"].as_str())
        .unwrap()
        .to_owned()
}

#[test]
fn threat_a_database_copy_holds_no_body_and_edits_to_it_show_as_unverified() {
    let p = Plane::start();
    let admin = Cred::Cookie(p.setup_admin());
    let chan = channel(&p, &admin, "ops");
    let (me, key) = identity(&p, &admin, "ops");
    let marker = "the launch code is 0451-swordfish";
    for i in 1..=4 {
        let r = post(&p, &admin, &chan, &me, &key, &format!("{marker} #{i}"));
        assert_eq!(r.status, 201, "{}", r.text());
    }
    // The database holds no body, in any spelling, nor the channel keys in the clear.
    let db = database_copy(&p);
    assert!(!db.is_empty());
    assert!(!contains(&db, marker.as_bytes()));
    assert!(!contains(
        &db,
        Base64::encode_string(marker.as_bytes()).as_bytes()
    ));
    assert!(!contains(&db, b"swordfish"));
    let dir = p.svc.settings().data_dir.clone().unwrap();
    let master = std::fs::read(dir.join("channels.key")).unwrap();
    assert_eq!(master.len(), 32);
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(dir.join("channels.key"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    assert!(!contains(&db, &master));

    // Swapping two sealed bodies: neither opens anywhere but in its own row.
    tamper(
        &p,
        "UPDATE channel_entries SET sealed_body = (SELECT sealed_body FROM channel_entries WHERE seq = 2) WHERE seq = 1",
    );
    let page = read(&p, &admin, &chan, "");
    assert_eq!(
        problems(&page),
        vec![
            (1, Some("UNREADABLE".into())),
            (2, None),
            (3, None),
            (4, None)
        ],
        "{page}"
    );
    assert!(page["entries"][0]["body"].is_null());
    // Deleting an entry in the middle breaks the link of the one after it.
    tamper(&p, "DELETE FROM channel_entries WHERE seq = 3");
    let page = read(&p, &admin, &chan, "after=1");
    assert_eq!(
        problems(&page),
        vec![(2, None), (4, Some("CHAIN".into()))],
        "{page}"
    );
    // An entry slipped in under an identity of the intruder's own: they cannot seal its body.
    let intruder = new_key();
    let jwk = serde_json::to_string(&intruder.public_jwk()).unwrap();
    let input = signed::entry_signing_input(&chan, 5, "h", "intruder", "hello");
    let sig = signed::sign(&intruder, &input);
    tamper(
        &p,
        &format!(
            "INSERT INTO identities (id, user_id, subshell_id, name, public_jwk, thumbprint, created_at) \
             VALUES ('intruder', NULL, NULL, 'x', '{jwk}', 'tp', 0); \
             INSERT INTO channel_entries VALUES ('{chan}', 5, 'intruder', 'h', '{h}', '{sig}', '{b}', 0); \
             UPDATE channels SET head_seq = 5, head_hash = '{h}'",
            h = signed::entry_hash(&input),
            b = Base64::encode_string(b"0123456789abhello, I am a body"),
        ),
    );
    let page = read(&p, &admin, &chan, "after=4");
    assert_eq!(
        problems(&page),
        vec![(5, Some("UNREADABLE".into()))],
        "{page}"
    );
    // The operator swaps the writer's public key: its earlier entries stop verifying, and the
    // thumbprint a reader pinned no longer matches.
    let pinned =
        call(&p, &admin, "GET", &format!("/api/identities/{me}"), None).json()["thumbprint"]
            .clone();
    tamper(
        &p,
        &format!("UPDATE identities SET public_jwk = '{jwk}' WHERE id = '{me}'"),
    );
    let page = read(&p, &admin, &chan, "after=1&limit=1");
    assert_eq!(
        problems(&page),
        vec![(2, Some("SIGNATURE".into()))],
        "{page}"
    );
    // The row's stored thumbprint was left alone; what the plane shows is the served key's.
    let shown = page["entries"][0]["author"]["thumbprint"].clone();
    let served = call(&p, &admin, "GET", &format!("/api/identities/{me}"), None).json();
    assert_ne!(
        shown, pinned,
        "the entry's author shows the new key's thumbprint"
    );
    assert_ne!(served["thumbprint"], pinned);
    assert_eq!(
        served["thumbprint"],
        json!(signed::thumbprint(
            &serde_json::from_value(served["publicKey"].clone()).unwrap()
        )),
        "the thumbprint is the served key's"
    );
}

/// A plane with an administrator, a system key (the script) and the local node.
fn scripted_local_node() -> (Plane, Cred, common::local::Local) {
    let p = Plane::start();
    let admin_cookie = p.setup_admin();
    let (_, system_key) = p.system_key(&admin_cookie);
    let node = common::local::attach(&p);
    (p, Cred::Bearer(system_key), node)
}

/// Launches a shell pane with `perms` as the script and reads its token off its screen.
fn pane(p: &Plane, script: &Cred, node: &common::local::Local, perms: Value) -> (String, Cred) {
    let r = call(
        p,
        script,
        "POST",
        "/api/subshells",
        Some(json!({ "nodeId": node.node_id, "harnessId": "shell",
                     "cwd": node.work.to_string_lossy(), "permissions": perms })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let sub = r.json()["id"].as_str().unwrap().to_owned();
    let r = call(
        p,
        script,
        "POST",
        &format!("/api/subshells/{sub}/input"),
        Some(json!({ "text": "echo tok=$TERMPLANE_TOKEN.", "keys": ["enter"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let s = call(
            p,
            script,
            "GET",
            &format!("/api/subshells/{sub}/screen?lines=50"),
            None,
        )
        .json()["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if let Some(t) = s
            .split("tok=")
            .filter_map(|x| x.split('.').next())
            .find(|t| t.starts_with("tp_"))
        {
            return (sub, Cred::Bearer(t.to_owned()));
        }
        assert!(Instant::now() < until, "no token on the pane's screen");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn threat_a_pane_reaches_channels_within_its_ceiling_and_signs_only_as_itself() {
    let p = Plane::start();
    let admin_cookie = p.setup_admin();
    let admin = Cred::Cookie(admin_cookie.clone());
    let (_, system_key) = p.system_key(&admin_cookie);
    let script = Cred::Bearer(system_key);
    let node = common::local::attach(&p);
    let (writer_id, writer) = pane(
        &p,
        &script,
        &node,
        json!({ "channels": "write", "subshells": "read" }),
    );
    let (_, reader) = pane(
        &p,
        &script,
        &node,
        json!({ "channels": "read", "subshells": "read" }),
    );
    let chan = channel(&p, &script, "agents");
    let (script_ident, script_key) = identity(&p, &script, "ci");
    // The writing pane registers its own identity and posts; the entry names the pane.
    let (pane_ident, pane_key) = identity(&p, &writer, "writer pane");
    let r = post(
        &p,
        &writer,
        &chan,
        &pane_ident,
        &pane_key,
        "tests pass on x86_64",
    );
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(r.json()["author"]["subshellId"], writer_id.as_str());
    // It signs as nobody else, and nobody — its owner included — signs as it.
    let r = post(
        &p,
        &writer,
        &chan,
        &script_ident,
        &script_key,
        "as the script",
    );
    assert_eq!((r.status, r.code()), (403, "IDENTITY_NOT_YOURS".into()));
    let r = post(&p, &script, &chan, &pane_ident, &pane_key, "as the pane");
    assert_eq!((r.status, r.code()), (403, "IDENTITY_NOT_YOURS".into()));
    let r = post(
        &p,
        &reader,
        &chan,
        &pane_ident,
        &pane_key,
        "as the other pane",
    );
    assert_eq!(r.status, 403, "{}", r.text());
    // Its identities are its own; its owner sees them and may revoke them.
    let listed = call(&p, &writer, "GET", "/api/identities", None).json();
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["id"], pane_ident.as_str());
    assert_eq!(
        call(&p, &script, "GET", "/api/identities", None)
            .json()
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // The reading pane reads, and writes nothing: no identity, no entry, no channel.
    let page = read(&p, &reader, &chan, "");
    assert_eq!(page["entries"][0]["body"], "tests pass on x86_64");
    assert_eq!(
        call(&p, &reader, "GET", &format!("/api/channels/{chan}"), None).json()["access"],
        "read"
    );
    let key = new_key();
    let jwk = key.public_jwk();
    let proof = signed::sign(&key, &signed::identity_proof_input("r", &jwk));
    let r = call(
        &p,
        &reader,
        "POST",
        "/api/identities",
        Some(json!({ "name": "r", "publicKey": jwk, "proof": proof })),
    );
    assert_eq!((r.status, r.code()), (403, "PERMISSION_DENIED".into()));
    let r = call(
        &p,
        &reader,
        "POST",
        "/api/channels",
        Some(json!({ "name": "mine" })),
    );
    assert_eq!((r.status, r.code()), (403, "PERMISSION_DENIED".into()));
    let (seq, prev) = head(&p, &reader, &chan);
    let r = call(
        &p,
        &reader,
        "POST",
        &format!("/api/channels/{chan}/entries"),
        Some(entry(&chan, seq + 1, &prev, &pane_ident, &pane_key, "x")),
    );
    assert_eq!((r.status, r.code()), (403, "PERMISSION_DENIED".into()));
    // Channels of another account stay out of every pane's reach.
    let theirs = channel(&p, &admin, "admin only");
    for who in [&writer, &reader] {
        let r = call(
            &p,
            who,
            "GET",
            &format!("/api/channels/{theirs}/entries"),
            None,
        );
        assert_eq!(r.status, 404, "{}", r.text());
    }
    // Member management and deletion are for people and scripts.
    let r = call(
        &p,
        &writer,
        "DELETE",
        &format!("/api/channels/{chan}"),
        None,
    );
    assert_eq!((r.status, r.code()), (403, "PANE_TOKEN_NOT_ALLOWED".into()));
    // The owner revokes the pane's identity; the pane's entries still verify.
    let r = call(
        &p,
        &script,
        "DELETE",
        &format!("/api/identities/{pane_ident}"),
        None,
    );
    assert_eq!(r.status, 204);
    let r = post(&p, &writer, &chan, &pane_ident, &pane_key, "again");
    assert_eq!((r.status, r.code()), (409, "IDENTITY_REVOKED".into()));
    assert_eq!(problems(&read(&p, &script, &chan, "")), vec![(1, None)]);
    // A pane's identities end with its subshell: deleting the pane revokes the one it still held.
    let (held, _) = identity(&p, &writer, "writer pane, second key");
    let r = call(
        &p,
        &script,
        "POST",
        &format!("/api/subshells/{writer_id}/terminate"),
        Some(json!({})),
    );
    assert!(r.status < 300, "{}", r.text());
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let r = call(
            &p,
            &script,
            "DELETE",
            &format!("/api/subshells/{writer_id}"),
            None,
        );
        if r.status == 204 {
            break;
        }
        assert!(
            Instant::now() < until,
            "the pane was not deleted: {}",
            r.text()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let i = call(&p, &script, "GET", &format!("/api/identities/{held}"), None).json();
    assert!(i["revokedAt"].is_i64(), "{i}");
    assert_eq!(problems(&read(&p, &script, &chan, "")), vec![(1, None)]);
}

#[test]
fn a_waiting_reader_and_the_live_feed_hear_of_a_new_entry_at_once() {
    let p = Plane::start();
    let cookie = p.setup_admin();
    let admin = Cred::Cookie(cookie.clone());
    let chan = channel(&p, &admin, "live");
    let (me, key) = identity(&p, &admin, "me");
    // Nothing arrives: the wait ends at its bound with an empty page.
    let t = Instant::now();
    let page = read(&p, &admin, &chan, "after=0&waitMs=300");
    assert!(
        t.elapsed() >= Duration::from_millis(250),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(page["entries"], json!([]));
    let r = call(
        &p,
        &admin,
        "GET",
        &format!("/api/channels/{chan}/entries?waitMs=25001"),
        None,
    );
    assert_eq!(r.status, 400);

    let mut feed = live_feed(&p, &cookie);
    // The entry is written once the read is parked, so it is the write that wakes it.
    let waiter = park_reader(&p, &cookie, &chan);
    assert_eq!(post(&p, &admin, &chan, &me, &key, "wake up").status, 201);
    let (waited, page) = waiter.join().unwrap();
    assert!(waited < Duration::from_secs(10), "{waited:?}");
    assert_eq!(page["entries"][0]["body"], "wake up", "{page}");
    let frame = next_frame_of(&mut feed, "channel_entry");
    assert_eq!(frame["channelId"], chan.as_str());
    assert_eq!(frame["seq"], 1);
}

#[test]
fn writers_racing_for_the_head_each_land_once_and_the_chain_stays_whole() {
    let p = Plane::start();
    let admin = Cred::Cookie(p.setup_admin());
    let chan = channel(&p, &admin, "race");
    const WRITERS: usize = 6;
    const EACH: usize = 8;
    let writers: Vec<(String, Es256Signer)> = (0..WRITERS)
        .map(|i| identity(&p, &admin, &format!("writer {i}")))
        .collect();
    let moved = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for (i, (ident, key)) in writers.iter().enumerate() {
            let (p, admin, chan, moved) = (&p, &admin, &chan, &moved);
            s.spawn(move || {
                for n in 0..EACH {
                    let body = format!("writer {i} note {n}");
                    // Sign at the head as read; when another writer got there first, sign again
                    // at the head the refusal names (bounded).
                    let (mut seq, mut prev) = head(p, admin, chan);
                    let mut tries = 0;
                    loop {
                        let r = call(
                            p,
                            admin,
                            "POST",
                            &format!("/api/channels/{chan}/entries"),
                            Some(entry(chan, seq + 1, &prev, ident, key, &body)),
                        );
                        if r.status == 201 {
                            break;
                        }
                        assert_eq!((r.status, r.code()), (409, "CHANNEL_HEAD_MOVED".into()));
                        moved.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let h = &r.json()["metadata"]["head"];
                        seq = h["seq"].as_u64().unwrap();
                        prev = h["hash"].as_str().unwrap().to_owned();
                        tries += 1;
                        assert!(tries < 200, "writer {i} never got the head");
                    }
                }
            });
        }
    });
    let page = read(&p, &admin, &chan, "after=0&limit=200");
    let all = page["entries"].as_array().unwrap();
    assert_eq!(all.len(), WRITERS * EACH);
    assert!(problems(&page).iter().all(|(_, p)| p.is_none()), "{page}");
    let mut bodies: Vec<&str> = all.iter().map(|e| e["body"].as_str().unwrap()).collect();
    bodies.sort_unstable();
    bodies.dedup();
    assert_eq!(
        bodies.len(),
        WRITERS * EACH,
        "each note landed exactly once"
    );
    for (i, e) in all.iter().enumerate() {
        assert_eq!(e["seq"], i + 1);
    }
    assert_eq!(page["head"]["seq"], WRITERS * EACH);
}

#[test]
fn the_api_reference_tells_a_client_what_to_sign() {
    let p = Plane::start();
    let doc = p.get("/api/openapi.json").send().json();
    for tag in ["channels", "identities"] {
        let t = doc["tags"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == tag)
            .unwrap_or_else(|| panic!("no {tag} tag"));
        let d = t["description"].as_str().unwrap();
        // The texts as the code builds them, with their newlines written as `\n`.
        let entry = signed::entry_signing_input("<channel id>", 1, "<p>", "<identity id>", "");
        let head: Vec<&str> = entry.lines().take(2).collect();
        assert!(d.contains(&head.join("\\n")), "{d}");
        let jwk = new_key().public_jwk();
        let proof = signed::identity_proof_input("<name>", &jwk);
        let first = proof.lines().take(2).collect::<Vec<_>>().join("\\n");
        assert!(d.contains(&first), "{d}");
        assert!(
            d.contains(r#"{"crv":"P-256","kty":"EC","x":"<x>","y":"<y>"}"#),
            "{d}"
        );
    }
}

#[test]
fn a_pane_that_names_no_permissions_launches_one_capped_by_its_own() {
    let (p, script, node) = scripted_local_node();
    let (_, launcher) = pane(
        &p,
        &script,
        &node,
        json!({ "channels": "read", "subshells": "write" }),
    );
    let launch = |perms: Option<Value>| {
        let mut body = json!({ "nodeId": node.node_id, "harnessId": "shell",
                               "cwd": node.work.to_string_lossy() });
        if let Some(p) = perms {
            body["permissions"] = p;
        }
        call(&p, &launcher, "POST", "/api/subshells", Some(body))
    };
    // The default (channels write, subshells read) capped by the launcher's channels read.
    let r = launch(None);
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(
        r.json()["permissions"],
        json!({ "channels": "read", "subshells": "read" })
    );
    // A map it names is taken as named, and refused above its own.
    let r = launch(Some(json!({ "channels": "write", "subshells": "read" })));
    assert_eq!((r.status, r.code()), (403, "PERMISSION_DENIED".into()));
    let r = launch(Some(json!({ "channels": "read", "subshells": "write" })));
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(
        r.json()["permissions"],
        json!({ "channels": "read", "subshells": "write" })
    );
}

#[test]
fn a_pane_that_may_only_read_channels_neither_keeps_nor_deletes_files() {
    let (p, script, node) = scripted_local_node();
    let (_, writer) = pane(
        &p,
        &script,
        &node,
        json!({ "channels": "write", "subshells": "read" }),
    );
    let (_, reader) = pane(
        &p,
        &script,
        &node,
        json!({ "channels": "read", "subshells": "read" }),
    );
    let start = json!({ "name": "notes.txt", "size": 2 });
    let r = call(&p, &reader, "POST", "/api/files", Some(start.clone()));
    assert_eq!((r.status, r.code()), (403, "PERMISSION_DENIED".into()));
    let r = call(&p, &writer, "POST", "/api/files", Some(start));
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["fileId"].as_str().unwrap().to_owned();
    let r = call(
        &p,
        &writer,
        "PUT",
        &format!("/api/files/{id}/pieces/0"),
        Some(json!({ "dataB64": "aGk=" })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // The reader sees the kept file, and cannot delete it.
    let listed = call(&p, &reader, "GET", "/api/files", None);
    assert_eq!(listed.status, 200, "{}", listed.text());
    assert!(listed.text().contains(&id), "{}", listed.text());
    let r = call(&p, &reader, "DELETE", &format!("/api/files/{id}"), None);
    assert_eq!((r.status, r.code()), (403, "PERMISSION_DENIED".into()));
    let r = call(&p, &writer, "DELETE", &format!("/api/files/{id}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
}

/// Tries to register a new identity; the answer.
fn try_identity(p: &Plane, who: &Cred, name: &str) -> Resp {
    let key = new_key();
    let jwk = key.public_jwk();
    let proof = signed::sign(&key, &signed::identity_proof_input(name, &jwk));
    call(
        p,
        who,
        "POST",
        "/api/identities",
        Some(json!({ "name": name, "publicKey": jwk, "proof": proof })),
    )
}

#[test]
fn revoked_identities_hold_no_place_so_an_account_keeps_registering_after_many_panes() {
    use termplane::api::channels::MAX_IDENTITIES_PER_ACCOUNT;
    use termplane::store::IdentityRow;
    let p = Plane::start();
    let admin = Cred::Cookie(p.setup_admin());
    let me = admin_id(&p, &admin);
    let store = p.svc.store();
    // As many identities as the account may hold, every one revoked (as deleting a pane
    // revokes its identity).
    let row = |n: i64| IdentityRow {
        id: termplane::secret::new_id().unwrap(),
        user_id: Some(me.clone()),
        subshell_id: None,
        name: format!("gone {n}"),
        public_jwk: "{}".into(),
        thumbprint: format!("gone-{n}-{}", termplane::secret::new_id().unwrap()),
        created_at: T0,
        revoked_at: None,
    };
    for n in 0..MAX_IDENTITIES_PER_ACCOUNT {
        let r = row(n);
        smol::block_on(store.add_identity(&r, "cookie", i64::MAX, i64::MAX)).unwrap();
        assert!(smol::block_on(store.revoke_identity(&r.id, &me, "cookie", T0)).unwrap());
    }
    identity(&p, &admin, "after a thousand panes");
    // Live ones do count: at the limit, the next is refused and nothing is written.
    for n in 1..MAX_IDENTITIES_PER_ACCOUNT {
        smol::block_on(store.add_identity(&row(n), "cookie", i64::MAX, i64::MAX)).unwrap();
    }
    assert_eq!(
        smol::block_on(store.identity_count(&me)).unwrap(),
        MAX_IDENTITIES_PER_ACCOUNT
    );
    let r = try_identity(&p, &admin, "one too many");
    assert_eq!(
        (r.status, r.code()),
        (409, "IDENTITY_LIMIT".into()),
        "{}",
        r.text()
    );
    assert!(
        r.json()["message"].as_str().unwrap().contains("revoke"),
        "{}",
        r.text()
    );
    assert_eq!(
        smol::block_on(store.identity_count(&me)).unwrap(),
        MAX_IDENTITIES_PER_ACCOUNT
    );
}

#[test]
fn a_pane_registers_only_a_few_identities_and_its_account_keeps_the_rest() {
    use termplane::api::channels::MAX_IDENTITIES_PER_PANE;
    let (p, script, node) = scripted_local_node();
    let (_, looping) = pane(
        &p,
        &script,
        &node,
        json!({ "channels": "write", "subshells": "read" }),
    );
    let mut held = Vec::new();
    for n in 0..MAX_IDENTITIES_PER_PANE {
        held.push(identity(&p, &looping, &format!("loop {n}")).0);
    }
    let r = try_identity(&p, &looping, "one more");
    assert_eq!(
        (r.status, r.code()),
        (409, "IDENTITY_LIMIT".into()),
        "{}",
        r.text()
    );
    assert!(
        r.json()["message"]
            .as_str()
            .unwrap()
            .contains("a pane registers at most"),
        "{}",
        r.text()
    );
    // Revoking one does not give the place back: the pane's count is of its life.
    let r = call(
        &p,
        &looping,
        "DELETE",
        &format!("/api/identities/{}", held[0]),
        None,
    );
    assert_eq!(r.status, 204, "{}", r.text());
    let r = try_identity(&p, &looping, "after a revocation");
    assert_eq!(
        (r.status, r.code()),
        (409, "IDENTITY_LIMIT".into()),
        "{}",
        r.text()
    );
    let listed = call(&p, &looping, "GET", "/api/identities", None).json();
    assert_eq!(
        listed.as_array().unwrap().len(),
        usize::try_from(MAX_IDENTITIES_PER_PANE).unwrap(),
        "{listed}"
    );
    // Its account, and another pane of it, still register.
    identity(&p, &script, "the script");
    let (_, other) = pane(
        &p,
        &script,
        &node,
        json!({ "channels": "write", "subshells": "read" }),
    );
    identity(&p, &other, "another pane");
}

/// An entry appended at one replica wakes a reader parked in a long poll at another, and is
/// announced on a live feed open there (PostgreSQL's `NOTIFY` carries the word; SQLite is held
/// by one plane alone, so the test runs on PostgreSQL only).
#[test]
fn a_reader_and_a_feed_at_another_replica_hear_of_an_entry_appended_at_one() {
    if !on_postgres() {
        eprintln!("word between replicas is PostgreSQL's: skipped on SQLite");
        return;
    }
    let a = Plane::start();
    let cookie = a.setup_admin();
    let admin = Cred::Cookie(cookie.clone());
    let b = a.another_replica();
    let chan = channel(&a, &admin, "across");
    let (me, key) = identity(&a, &admin, "me");
    let mut feed = live_feed(&b, &cookie);
    let waiter = park_reader(&b, &cookie, &chan);
    assert_eq!(post(&a, &admin, &chan, &me, &key, "across").status, 201);
    let (waited, page) = waiter.join().unwrap();
    assert!(waited < Duration::from_secs(10), "{waited:?}");
    assert_eq!(page["entries"][0]["body"], "across", "{page}");
    let frame = next_frame_of(&mut feed, "channel_entry");
    assert_eq!(frame["channelId"], chan.as_str());
    assert_eq!(frame["seq"], 1);
}
