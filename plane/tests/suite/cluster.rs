//! Several planes on one database (replicas of a cluster), in one process: what one replica
//! keeps, every other honours. (The node link across replicas is in `link.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// Tests wait on the real clock.
#![allow(clippy::disallowed_methods)]

use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::json;
use termplane_test_support::viewer::Viewer;

/// Opens the live feed at `p` with `token`: the upgrade's status (101 when it opened).
fn open_feed(p: &Plane, token: &str) -> u16 {
    use async_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{}/api/live?token={token}", p.addr)
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("Origin", p.origin().parse().unwrap());
    let stream = std::net::TcpStream::connect(p.addr).unwrap();
    match async_tungstenite::tungstenite::client::client(req, stream) {
        Ok((_ws, resp)) => resp.status().as_u16(),
        Err(async_tungstenite::tungstenite::HandshakeError::Failure(
            async_tungstenite::tungstenite::Error::Http(resp),
        )) => resp.status().as_u16(),
        Err(e) => panic!("the upgrade failed otherwise: {e}"),
    }
}

/// The live feed of the session `cookie` opened at plane `p`, past its `hello`.
fn feed_at(p: &Plane, cookie: &str) -> Viewer {
    let token = p
        .call(cookie, "POST", "/api/auth/ws-token", Some(json!({})))
        .json()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let origin = p.origin();
    let mut feed = Viewer::open(
        p.addr,
        &format!("/api/live?token={token}"),
        &[("Origin", origin.as_str())],
    )
    .unwrap();
    feed.until("hello", |v| v.frames.iter().any(|f| f["type"] == "hello"));
    feed
}

/// An attach token minted at one replica opens a socket at another, and is spent there for
/// every replica: its second presentation, anywhere, is refused; of two presentations at two
/// replicas at once, exactly one opens.
#[test]
fn an_attach_token_minted_at_one_replica_is_spent_once_across_all_of_them() {
    let a = Plane::start();
    let admin = a.setup_admin();
    let b = a.another_replica();
    let mint = |p: &Plane| {
        p.call(&admin, "POST", "/api/auth/ws-token", Some(json!({})))
            .json()["token"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let token = mint(&a);
    assert_eq!(open_feed(&b, &token), 101, "minted at A, opened at B");
    assert_eq!(open_feed(&a, &token), 401, "spent at B, refused at A");
    assert_eq!(open_feed(&b, &token), 401, "and at B");

    for _ in 0..5 {
        let token = mint(&b);
        let (sa, sb) = std::thread::scope(|s| {
            let at_a = s.spawn(|| open_feed(&a, &token));
            let at_b = s.spawn(|| open_feed(&b, &token));
            (at_a.join().unwrap(), at_b.join().unwrap())
        });
        let mut got = [sa, sb];
        got.sort_unstable();
        assert_eq!(
            got,
            [101, 401],
            "one presentation opens, the other is refused"
        );
    }
}

/// What one replica changes reaches the others at once, through PostgreSQL's `NOTIFY`: a node
/// that links to one replica reads online on a live feed open at another, and a session signed
/// out at one replica has its feed at another closed 4403 at once, not at the feed's 15-second
/// check. (SQLite is held by one plane alone: there is nothing to carry there, and the test runs
/// on PostgreSQL only.)
#[test]
fn a_change_at_one_replica_reaches_the_feeds_of_another_at_once() {
    if !on_postgres() {
        eprintln!("word between replicas is PostgreSQL's: skipped on SQLite");
        return;
    }
    let a = Plane::start();
    let admin = a.setup_admin();
    let b = a.another_replica();
    let mut feed = feed_at(&b, &admin);

    let e = node::enroll(&a, &admin, "n-heard", true);
    let mut n = node::TestNode::start(&a, &e, "0.17.0");
    n.wait_established();
    feed.until("the node online, published at the other replica", |v| {
        v.frames.iter().any(|f| {
            f["type"] == "node" && f["nodeId"] == e.node_id.as_str() && f["liveness"] == "online"
        })
    });

    let t = Instant::now();
    let r = a.call(&admin, "POST", "/api/auth/sign-out", Some(json!({})));
    assert!(r.status < 300, "{}", r.text());
    feed.until("the feed closed", |v| v.closed.is_some());
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "closed after {:?}: by its periodic check, not at once",
        t.elapsed()
    );
    assert_eq!(feed.closed.as_ref().map(|c| c.0), Some(4403));
}

/// Sign-in failures count once for every replica: a guesser who spreads wrong passwords over
/// two replicas meets the account × address budget (five free) as at one, and the attempt
/// after it is refused 429 at either — even with the right password — until the wait ends.
#[test]
fn sign_in_failures_spread_over_two_replicas_meet_one_budget() {
    let a = Plane::start();
    a.setup_admin();
    let b = a.another_replica();
    let attempt = |p: &Plane, password: &str| {
        p.post(
            "/api/auth/sign-in",
            json!({"email": ADMIN, "password": password}),
        )
        .send()
    };
    for i in 0..6 {
        let at = if i % 2 == 0 { &a } else { &b };
        assert_eq!(attempt(at, "wrong guess").error(401), "INVALID_CREDENTIALS");
    }
    for p in [&a, &b] {
        let r = attempt(p, PASSWORD);
        assert_eq!(r.error(429), "TOO_MANY_ATTEMPTS");
        assert!(r.json()["metadata"]["retryAfterMs"].as_i64().unwrap() > 0);
    }
    // The wait ends (by B's clock): the right password signs in there, and clears the count.
    b.clock.advance_ms(2_000);
    assert_eq!(attempt(&b, PASSWORD).status, 200);
    assert_eq!(attempt(&a, "wrong guess").error(401), "INVALID_CREDENTIALS");
}

/// A pane launched at one replica shows on a live feed open at another (a `subshell` word), and
/// its deletion there too (a `gone` word: who was told is read from the database).
/// PostgreSQL only, as above.
#[test]
fn a_pane_launched_and_deleted_at_one_replica_comes_and_goes_on_a_feed_at_another() {
    if !on_postgres() {
        eprintln!("word between replicas is PostgreSQL's: skipped on SQLite");
        return;
    }
    let w = local::world();
    let b = w.p.another_replica();
    let mut feed = feed_at(&b, &w.admin);
    let r = w.as_bearer(
        &w.key,
        "POST",
        "/api/subshells",
        Some(json!({
            "nodeId": w.node.node_id, "harnessId": "shell",
            "cwd": w.node.work.to_string_lossy(),
        })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    feed.until("the pane, published at the other replica", |v| {
        v.frames
            .iter()
            .any(|f| f["type"] == "subshell" && f["subshell"]["id"] == id.as_str())
    });
    let r = w.as_bearer(&w.key, "DELETE", &format!("/api/subshells/{id}"), None);
    assert!(r.status < 300, "{}", r.text());
    feed.until("the pane gone, published at the other replica", |v| {
        v.frames
            .iter()
            .any(|f| f["type"] == "subshell_gone" && f["subshellId"] == id.as_str())
    });
}
