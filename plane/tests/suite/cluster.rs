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

/// A socket opened at plane `p` with an attach token the session `cookie` mints there with
/// `mint` (its body), at the path `path` makes of the token.
fn socket_at(
    p: &Plane,
    cookie: &str,
    mint: serde_json::Value,
    path: impl Fn(&str) -> String,
) -> Viewer {
    let token = p
        .call(cookie, "POST", "/api/auth/ws-token", Some(mint))
        .json()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let origin = p.origin();
    Viewer::open(p.addr, &path(&token), &[("Origin", origin.as_str())]).unwrap()
}

/// The live feed of the session `cookie` opened at plane `p`, past its `hello`.
fn feed_at(p: &Plane, cookie: &str) -> Viewer {
    let mut feed = socket_at(p, cookie, json!({}), |t| format!("/api/live?token={t}"));
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

/// Two replicas of a cluster from their start (each takes its peers' connections).
fn cluster_of_two() -> (Plane, Plane, String) {
    let a = Plane::start_with(Opts {
        cluster: true,
        ..Opts::default()
    });
    let admin = a.setup_admin();
    let b = a.another_replica();
    (a, b, admin)
}

/// A simulated node named `name`, enrolled and linked to replica `a` (online there), its
/// make-believe panes and the node itself.
fn node_held_by(
    a: &Plane,
    admin: &str,
    name: &str,
) -> (node::Enrolled, node::Panes, node::TestNode) {
    let e = node::enroll(a, admin, name, true);
    let panes = node::Panes::default();
    let mut n = node::TestNode::start_screens(a, &e, panes.clone());
    n.wait_established();
    node::wait_liveness(a, &e.node_id, "online");
    (e, panes, n)
}

/// A node whose link replica A holds is reached from replica B: a ping, a launch, and a
/// terminal attached at B whose keys are typed into the pane and whose output comes back —
/// each through the connection between the replicas (B holds no socket to the node). The node
/// saw one plane: every command it ran was signed and sent by A. A command for a node no
/// replica holds is refused as offline, at once.
#[test]
fn a_pane_on_a_node_held_by_one_replica_is_launched_typed_into_and_watched_from_another() {
    let (a, b, admin) = cluster_of_two();
    let (e, panes, n) = node_held_by(&a, &admin, "n-far");
    assert!(
        b.svc.links().status(&e.node_id).is_none(),
        "B holds no link"
    );

    let r = b.call(
        &admin,
        "POST",
        &format!("/api/nodes/{}/ping", e.node_id),
        None,
    );
    assert_eq!(r.status, 200, "ping through A: {}", r.text());

    let r = b.call(
        &admin,
        "POST",
        "/api/subshells",
        Some(json!({ "nodeId": e.node_id, "harnessId": "shell", "cwd": "/home/node" })),
    );
    assert_eq!(r.status, 201, "launch at B: {}", r.text());
    assert_eq!(r.json()["state"], "running", "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    assert!(panes.alive.lock().unwrap().contains(&id));

    // Typed through the REST route at B: the pane's log holds it.
    let r = b.call(
        &admin,
        "POST",
        &format!("/api/subshells/{id}/input"),
        Some(json!({ "text": "first line", "keys": ["enter"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());

    // A terminal at B: the replay, then keys in and their echo out.
    let mut v = attach_at(&b, &admin, &id, "");
    v.until("the replay", |t| t.text().contains("first line"));
    v.keys("typed at B");
    v.until("the echo, forwarded from A", |t| {
        t.text().contains("typed at B")
    });
    let tails: Vec<String> = panes
        .screens
        .tails
        .lock()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let b_id = b.svc.cluster().id();
    assert_eq!(
        tails,
        vec![format!("view-{id}@{b_id}")],
        "the node tails the pane for B's pump, under a key naming B"
    );
    // The node ran what B asked, as A's commands (it has one link: A's).
    let kinds = n.exec.kinds();
    for k in ["ping", "launch", "input", "capture", "tail_start"] {
        assert!(kinds.iter().any(|x| x == k), "{k} missing from {kinds:?}");
    }
    v.close();

    // A node nobody holds: offline at B, without waiting for a deadline.
    let other = node::enroll(&a, &admin, "n-none", true);
    let t = Instant::now();
    let r = b.call(
        &admin,
        "POST",
        &format!("/api/nodes/{}/ping", other.node_id),
        None,
    );
    assert_eq!(r.error(409), "NODE_OFFLINE", "{}", r.text());
    assert!(t.elapsed() < Duration::from_secs(5));
}

/// A shell pane launched at replica `p` by the session `cookie` on node `node_id`: its id.
fn shell_at(p: &Plane, cookie: &str, node_id: &str) -> String {
    let r = p.call(
        cookie,
        "POST",
        "/api/subshells",
        Some(json!({ "nodeId": node_id, "harnessId": "shell", "cwd": "/home/node" })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()["id"].as_str().unwrap().to_owned()
}

/// A terminal on pane `id` attached at replica `p` by the session `cookie`, with `query`
/// (`&cols=…`), past its `attached` frame.
fn attach_at(p: &Plane, cookie: &str, id: &str, query: &str) -> Viewer {
    let mut v = socket_at(p, cookie, json!({ "subshellId": id }), |t| {
        format!("/api/subshells/{id}/attach?token={t}{query}")
    });
    v.until("attached", |t| t.has("attached", |_| true));
    v
}

/// The latest `presence` frame a terminal or a feed (for pane `id`) received.
fn latest_presence<'v>(v: &'v Viewer, id: &str) -> Option<&'v serde_json::Value> {
    v.frames
        .iter()
        .rev()
        .find(|f| f["type"] == "presence" && (f["subshellId"].is_null() || f["subshellId"] == id))
}

/// The viewer numbers a presence frame lists.
fn listed(p: Option<&serde_json::Value>) -> Vec<u64> {
    p.and_then(|p| p["viewers"].as_array())
        .map(|vs| vs.iter().filter_map(|v| v["viewerId"].as_u64()).collect())
        .unwrap_or_default()
}

/// Who watches a pane, and the grid its viewers hold it to, are the cluster's, not one
/// replica's: a viewer at A and one at B each hear of both (numbered apart), the pane takes the
/// smaller grid — B's — and A's viewer hears the new size and who holds it; a live feed opened
/// at a third replica, C, hears who watches, and the API at C refuses to set the grid while
/// they hold it (409 `GRID_HELD`). When B's viewer leaves, A's hears of one viewer and the pane
/// grows back to A's grid. The viewers of a replica whose lease lapsed (a replica that died
/// cannot say its viewers left) are removed from the others' presence and sizing — and written
/// again by that replica at its next look if it lived on. PostgreSQL only: a plane on SQLite has
/// no other replica.
#[test]
fn viewers_at_two_replicas_hear_of_each_other_and_hold_the_pane_to_the_smaller_grid() {
    if !on_postgres() {
        eprintln!("replicas share a database on PostgreSQL only: skipped on SQLite");
        return;
    }
    let (a, b, admin) = cluster_of_two();
    let c = a.another_replica();
    let (e, panes, _n) = node_held_by(&a, &admin, "n-watched");
    let id = shell_at(&a, &admin, &e.node_id);
    let grid = || panes.screens.grids.lock().unwrap().get(&id).copied();
    let wait_grid = |want: (u16, u16)| {
        termplane_test_support::wait_until(
            &format!("the pane resized to {want:?}"),
            Duration::from_secs(10),
            || (grid() == Some(want)).then_some(()),
        );
    };
    let mut feed = feed_at(&c, &admin);

    let mut va = attach_at(&a, &admin, &id, "&cols=100&rows=30");
    let a_viewer = va.frames[0]["viewerId"].as_u64().unwrap();
    wait_grid((100, 30));
    feed.until("C's feed: A's viewer", |f| {
        listed(latest_presence(f, &id)) == [a_viewer]
    });

    let mut vb = attach_at(&b, &admin, &id, "&cols=90&rows=25");
    let b_viewer = vb.frames[0]["viewerId"].as_u64().unwrap();
    assert_ne!(a_viewer, b_viewer, "viewers are numbered across replicas");
    let both = {
        let mut v = vec![a_viewer, b_viewer];
        v.sort_unstable();
        v
    };
    va.until("A's viewer: both, B's holding the grid", |t| {
        latest_presence(t, &id).is_some_and(|p| {
            listed(Some(p)) == both
                && p["held"]
                    == json!({ "cols": 90, "rows": 25, "colsBy": b_viewer, "rowsBy": b_viewer })
        })
    });
    vb.until("B's viewer: both", |t| {
        listed(latest_presence(t, &id)) == both
    });
    va.until("A's viewer: the pane's new size", |t| {
        t.has("size", |f| f["cols"] == 90 && f["rows"] == 25)
    });
    wait_grid((90, 25));
    feed.until("C's feed: both", |f| {
        listed(latest_presence(f, &id)) == both
    });
    let r = c.call(
        &admin,
        "POST",
        &format!("/api/subshells/{id}/resize"),
        Some(json!({ "cols": 120, "rows": 40 })),
    );
    assert_eq!(r.error(409), "GRID_HELD", "{}", r.text());
    assert_eq!(r.json()["metadata"], json!({ "cols": 90, "rows": 25 }));

    // B's viewer leaves: A's grows back.
    vb.close();
    va.until("A's viewer: itself alone", |t| {
        listed(latest_presence(t, &id)) == [a_viewer]
    });
    va.until("A's viewer: its own grid again", |t| {
        t.frames
            .iter()
            .rev()
            .find(|f| f["type"] == "size")
            .is_some_and(|f| f["cols"] == 100 && f["rows"] == 30)
    });
    wait_grid((100, 30));
    feed.until("C's feed: A's viewer alone", |f| {
        listed(latest_presence(f, &id)) == [a_viewer]
    });

    // A viewer at B again, smaller still; then B's lease lapses as A's clock reads it: A
    // removes B's viewer and the pane is A's viewer's again.
    let vb = attach_at(&b, &admin, &id, "&cols=80&rows=20");
    let b_viewer = vb.frames[0]["viewerId"].as_u64().unwrap();
    va.until("A's viewer: B's again", |t| {
        listed(latest_presence(t, &id)).contains(&b_viewer)
    });
    wait_grid((80, 20));
    let lapse = i64::try_from(termplane::service::cluster::LEASE.as_millis()).unwrap() + 1_000;
    a.clock.advance_ms(lapse);
    smol::block_on(a.svc.cluster().heartbeat()).unwrap();
    smol::block_on(a.svc.reconcile_links());
    va.until("A's viewer: B's gone with its lease", |t| {
        listed(latest_presence(t, &id)) == [a_viewer]
    });
    wait_grid((100, 30));
    feed.until("C's feed: B's gone", |f| {
        listed(latest_presence(f, &id)) == [a_viewer]
    });
    // B lived on (the database was out of its reach for a while, say): at its next look it
    // writes its viewer's row again, and the others hear of it.
    b.clock.advance_ms(lapse);
    smol::block_on(b.svc.cluster().heartbeat()).unwrap();
    smol::block_on(b.svc.reconcile_links());
    va.until("A's viewer: B's back", |t| {
        listed(latest_presence(t, &id)).contains(&b_viewer)
    });
    wait_grid((80, 20));
    vb.close();
    va.until("A's viewer: itself alone at last", |t| {
        listed(latest_presence(t, &id)) == [a_viewer]
    });
    wait_grid((100, 30));
}

/// "Needs you" holds back while the pane's owner watches it at any replica: the owner's
/// terminal is attached at B, the pane's need is reported at A (which tells of needs), and A
/// tells nothing of it — while another pane of theirs, unwatched, needing them at the same
/// time, is told. Once the owner's terminal at B closes, the watched pane's next need is told.
/// PostgreSQL only, as above.
#[test]
fn a_need_is_not_told_while_its_owner_watches_at_another_replica() {
    if !on_postgres() {
        eprintln!("replicas share a database on PostgreSQL only: skipped on SQLite");
        return;
    }
    let (a, b, admin) = cluster_of_two();
    let (e, panes, _n) = node_held_by(&a, &admin, "n-needs");
    let (watched, other) = (
        shell_at(&a, &admin, &e.node_id),
        shell_at(&a, &admin, &e.node_id),
    );
    let need = |id: &str, what: &str| {
        let token = panes.tokens.lock().unwrap().get(id).cloned().unwrap();
        let r = a
            .req()
            .method("POST")
            .path(&format!("/api/subshells/{id}/attention"))
            .bearer(&token)
            .json(json!({ "attention": what }))
            .send();
        assert_eq!(r.status, 200, "{}", r.text());
    };
    let told = |feed: &Viewer, id: &str| {
        feed.frames
            .iter()
            .filter(|f| f["type"] == "notification" && f["notification"]["subjectId"] == id)
            .count()
    };
    let mut feed = feed_at(&a, &admin);
    let vb = attach_at(&b, &admin, &watched, "&cols=100&rows=30");
    let b_viewer = vb.frames[0]["viewerId"].as_u64().unwrap();
    // A's feed hears of the viewer after A's rules do.
    feed.until("A hears of B's viewer", |f| {
        listed(latest_presence(f, &watched)) == [b_viewer]
    });
    need(&watched, "needs_input");
    need(&other, "needs_input");
    feed.until("the unwatched pane told of", |f| told(f, &other) == 1);
    assert_eq!(
        told(&feed, &watched),
        0,
        "told while its owner watched at B"
    );
    vb.close();
    feed.until("A hears B's viewer left", |f| {
        listed(latest_presence(f, &watched)).is_empty()
    });
    // A need the owner saw is not told afterwards: the next one is.
    need(&watched, "none");
    need(&watched, "needs_input");
    feed.until("the pane, unwatched now, told of", |f| {
        told(f, &watched) == 1
    });
}

/// An upload is the cluster's, not one replica's: started at A, its pieces are taken at
/// whichever replica they reach (in order), its file lands whole on the node (held by A), a
/// second upload to the same file is refused at B while it runs, and once complete it is gone
/// at both. Another started at B and cancelled at B after a piece sent at A leaves no partial
/// file, and its next piece is refused wherever it goes.
#[test]
fn an_upload_takes_its_pieces_at_any_replica_and_lands_whole_or_not_at_all() {
    use base64ct::{Base64, Encoding};
    let (a, b, admin) = cluster_of_two();
    let (e, panes, _n) = node_held_by(&a, &admin, "n-up");
    let pane = shell_at(&a, &admin, &e.node_id);
    let start = |p: &Plane, name: &str, size: usize| {
        p.call(
            &admin,
            "POST",
            "/api/uploads",
            Some(json!({ "subshellId": pane, "name": name, "size": size })),
        )
    };
    let put = |p: &Plane, up: &str, index: usize, bytes: &[u8]| {
        p.call(
            &admin,
            "PUT",
            &format!("/api/uploads/{up}/pieces/{index}"),
            Some(json!({ "dataB64": Base64::encode_string(bytes) })),
        )
    };

    let piece = usize::try_from(termplane::api::uploads::PIECE_BYTES).unwrap();
    let body: Vec<u8> = (0..2 * piece + 1000).map(|i| (i * 7 % 251) as u8).collect();
    let r = start(&a, "across.bin", body.len());
    assert_eq!(r.status, 201, "{}", r.text());
    let up = r.json()["uploadId"].as_str().unwrap().to_owned();
    let r = b.call(&admin, "GET", &format!("/api/uploads/{up}"), None);
    assert_eq!(r.status, 200, "seen at B: {}", r.text());
    assert_eq!(r.json()["received"], 0);
    let r = put(&b, &up, 0, &body[..piece]);
    assert_eq!(r.status, 200, "piece 0 at B: {}", r.text());
    assert_eq!(r.json()["received"], piece);
    let r = start(&b, "across.bin", 10);
    assert_eq!(
        r.error(409),
        "UPLOAD_EXISTS",
        "a second upload to the file at B: {}",
        r.text()
    );
    let r = put(&a, &up, 1, &body[piece..2 * piece]);
    assert_eq!(r.status, 200, "piece 1 at A: {}", r.text());
    let r = put(&b, &up, 2, &body[2 * piece..]);
    assert_eq!(r.status, 200, "piece 2 at B: {}", r.text());
    assert_eq!(r.json()["done"], true, "{}", r.text());
    for p in [&a, &b] {
        let r = p.call(&admin, "GET", &format!("/api/uploads/{up}"), None);
        assert_eq!(
            r.status,
            404,
            "a complete upload is forgotten everywhere: {}",
            r.text()
        );
    }
    assert_eq!(
        panes
            .disk
            .files
            .lock()
            .unwrap()
            .get("/home/node/across.bin"),
        Some(&body),
        "the file on the node is the one sent, whole"
    );

    let r = start(&b, "cancelled.bin", 2 * piece);
    assert_eq!(r.status, 201, "{}", r.text());
    let up = r.json()["uploadId"].as_str().unwrap().to_owned();
    let r = put(&a, &up, 0, &body[..piece]);
    assert_eq!(r.status, 200, "piece 0 at A: {}", r.text());
    assert!(
        panes
            .disk
            .partial
            .lock()
            .unwrap()
            .contains_key("/home/node/cancelled.bin")
    );
    let r = b.call(&admin, "DELETE", &format!("/api/uploads/{up}"), None);
    assert_eq!(r.status, 204, "cancel at B: {}", r.text());
    for p in [&a, &b] {
        let r = put(p, &up, 1, &body[piece..2 * piece]);
        assert_eq!(r.status, 404, "a piece after the cancel: {}", r.text());
    }
    assert!(
        !panes
            .disk
            .partial
            .lock()
            .unwrap()
            .contains_key("/home/node/cancelled.bin"),
        "the cancel removed the partial file"
    );
    assert!(
        !panes
            .disk
            .files
            .lock()
            .unwrap()
            .contains_key("/home/node/cancelled.bin")
    );

    // A replica writing a piece holds a claim on the upload: a piece meanwhile at another is
    // refused, to be sent again. A replica that stops in the middle of a piece leaves its claim
    // to lapse: the next piece, wherever it goes, abandons the upload and the partial file goes.
    let r = start(&a, "cut.bin", 2 * piece);
    assert_eq!(r.status, 201, "{}", r.text());
    let up = r.json()["uploadId"].as_str().unwrap().to_owned();
    let r = put(&b, &up, 0, &body[..piece]);
    assert_eq!(r.status, 200, "piece 0 at B: {}", r.text());
    use termplane::clock::Clock as _;
    let until = a.clock.now_ms() + 1_000;
    let claimed = smol::block_on(a.svc.store().claim_upload(&up, until)).unwrap();
    assert!(claimed.is_some(), "a replica claims the upload for a piece");
    let r = put(&a, &up, 1, &body[piece..2 * piece]);
    assert_eq!(
        r.error(409),
        "INVALID_STATE",
        "a piece while another is written: {}",
        r.text()
    );
    a.clock.advance_ms(1_001);
    let r = put(&a, &up, 1, &body[piece..2 * piece]);
    assert_eq!(
        r.error(409),
        "UPLOAD_ABANDONED",
        "after the claim lapsed: {}",
        r.text()
    );
    assert!(
        !panes
            .disk
            .partial
            .lock()
            .unwrap()
            .contains_key("/home/node/cut.bin"),
        "the partial file of an upload cut off went"
    );
    let r = b.call(&admin, "GET", &format!("/api/uploads/{up}"), None);
    assert_eq!(r.status, 404, "{}", r.text());
}

/// A blocking WebSocket to `/ws/replica` at `p` (or the refusal's status).
fn replica_socket(
    p: &Plane,
) -> Result<async_tungstenite::tungstenite::WebSocket<std::net::TcpStream>, u16> {
    use async_tungstenite::tungstenite::client::IntoClientRequest;
    let req = format!("ws://{}/ws/replica", p.addr)
        .into_client_request()
        .unwrap();
    let stream = std::net::TcpStream::connect(p.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    match async_tungstenite::tungstenite::client::client(req, stream) {
        Ok((ws, _)) => Ok(ws),
        Err(async_tungstenite::tungstenite::HandshakeError::Failure(
            async_tungstenite::tungstenite::Error::Http(resp),
        )) => Err(resp.status().as_u16()),
        Err(e) => panic!("the upgrade failed otherwise: {e}"),
    }
}

/// The next binary message, or the close code (`None`: closed without one).
fn next_binary(
    ws: &mut async_tungstenite::tungstenite::WebSocket<std::net::TcpStream>,
) -> Result<Vec<u8>, Option<u16>> {
    use async_tungstenite::tungstenite::Message;
    loop {
        match ws.read() {
            Ok(Message::Binary(b)) => return Ok(b.to_vec()),
            Ok(Message::Close(f)) => return Err(f.map(|f| u16::from(f.code))),
            Ok(_) => {}
            Err(_) => return Err(None),
        }
    }
}

/// The replicas' socket as a stranger meets it, and as a peer written from the documents
/// (`service::peers`, `termplane_machines::peer`) speaks it: a plane alone has none (404); a
/// peer without the cluster's keys is closed 4401 after its answer and can send nothing; one
/// that says nothing is closed at the handshake's deadline; at most 32 wait for their proof at
/// once (503 beyond); a peer with the keys gets its sealed command run on the node this replica
/// holds and the outcome back sealed, and a forged frame ends its connection.
#[test]
fn the_replicas_socket_takes_only_a_peer_that_proves_the_clusters_keys() {
    use async_tungstenite::tungstenite::Message;
    use termplane_machines::peer::{Initiator, PeerKey};
    use termplane_machines::seal::{Opener, Sealer};

    let lone = Plane::start();
    assert_eq!(
        replica_socket(&lone).err(),
        Some(404),
        "a plane alone has no peers"
    );
    drop(lone);

    let (a, _b, admin) = cluster_of_two();
    let a_id = a.svc.cluster().id();
    let e = node::enroll(&a, &admin, "n-peer", true);
    let mut n = node::TestNode::start(&a, &e, "0.17.0");
    n.wait_established();
    node::wait_liveness(&a, &e.node_id, "online");

    // The wrong keys: the answer is refused, the socket closed 4401.
    let mut ws = replica_socket(&a).unwrap();
    let challenge = next_binary(&mut ws).unwrap();
    let i = Initiator::new(PeerKey::derive(&[9; 32]), "stranger", &a_id, [1; 32]).unwrap();
    let (_wait, answer) = i.challenge(&challenge).unwrap();
    ws.send(Message::Binary(answer.into())).unwrap();
    assert_eq!(next_binary(&mut ws).err(), Some(Some(4401)));

    // Silence: closed at the deadline.
    let t = Instant::now();
    let mut ws = replica_socket(&a).unwrap();
    assert!(next_binary(&mut ws).is_ok(), "the challenge comes first");
    assert_eq!(next_binary(&mut ws).err(), Some(Some(4401)));
    assert!(t.elapsed() < Duration::from_secs(15));

    // At most 32 sockets wait for their proof.
    let waiting: Vec<_> = (0..32).map(|_| replica_socket(&a).unwrap()).collect();
    assert_eq!(replica_socket(&a).err(), Some(503));
    drop(waiting);

    // A peer with the keys: its command runs on the node and the outcome comes back.
    let key = PeerKey::derive(&a.svc.link_secret());
    // (The places of the sockets just dropped come back as the plane sees them end.)
    let mut ws = termplane_test_support::wait_until(
        "a place for a peer socket",
        Duration::from_secs(15),
        || replica_socket(&a).ok(),
    );
    let challenge = next_binary(&mut ws).unwrap();
    let i = Initiator::new(key, "peer-from-the-docs", &a_id, [7; 32]).unwrap();
    let (wait, answer) = i.challenge(&challenge).unwrap();
    ws.send(Message::Binary(answer.into())).unwrap();
    let keys = wait.proof(&next_binary(&mut ws).unwrap()).unwrap();
    let mut rng = termplane_machines::rng::from_seed([5; 32]);
    let mut seal = Sealer::new(&keys.send, &mut rng);
    let mut open = Opener::new(&keys.receive);
    let msg = json!({
        "t": "commands", "ids": [41], "node": e.node_id, "commands": [{ "type": "ping" }],
    });
    let frame = seal.seal_frame(msg.to_string().as_bytes()).unwrap();
    ws.send(Message::Binary(frame.into())).unwrap();
    let back = open.open_frame(&next_binary(&mut ws).unwrap()).unwrap();
    let back: serde_json::Value = serde_json::from_slice(&back).unwrap();
    assert_eq!(back["t"], "result", "{back}");
    assert_eq!(back["id"], 41, "{back}");
    assert_eq!(back["result"]["ok"], true, "{back}");
    assert!(n.exec.kinds().iter().any(|k| k == "ping"));
    // A frame that does not open ends the connection.
    let mut forged = seal.seal_frame(b"{}").unwrap();
    forged[3] ^= 1;
    ws.send(Message::Binary(forged.into())).unwrap();
    assert!(next_binary(&mut ws).is_err(), "the connection ends");
}
