//! The live node link against a real plane on loopback: an in-process test node (the core's
//! agent machine under the runtime-smol agent driver, with a fake executor) enrolls, connects,
//! goes online, answers `ping` over REST, is superseded, held and updated, rotated and re-paired;
//! the upgrade's refusals; and the plane's graceful shutdown.
//!
//! Not reachable through the API, so not tested here: the upgrade's 403 arms (a node key aimed
//! at the local node, a key no longer bound to its row) — the local row never carries a node
//! key, and a key is found through the digest stored on the very row it is bound to (rotation
//! replaces that digest in one transaction, so an old key reads as unknown: 401, tested below).
//! The disabled-key flag has no route that sets it yet.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::{Duration, Instant};

use common::node::*;
use common::*;
use serde_json::json;
use termplane::link::LinkStatus;
use termplane_proto::Command;
use termplane_proto::command::Update;
use termplane_runtime_smol::agent::{AgentOutcome, AgentReport};
use termplane_test_support::wait_until;

fn ping(p: &Plane, cookie: &str, id: &str) -> Resp {
    p.post(&format!("/api/nodes/{id}/ping"), serde_json::Value::Null)
        .header("Cookie", cookie)
        .send()
}

/// `POST /api/nodes/:id/key_rotate` as the admin.
fn rotate_key(p: &Plane, cookie: &str, id: &str) -> Resp {
    p.post(
        &format!("/api/nodes/{id}/key_rotate"),
        serde_json::Value::Null,
    )
    .header("Cookie", cookie)
    .send()
}

fn closed_with(code: u16) -> impl Fn(&AgentReport) -> bool {
    move |r| matches!(r, AgentReport::Closed { code: Some(c), .. } if *c == code)
}

#[test]
fn pinned_node_handshakes_goes_online_and_answers_ping() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "n1", true);
    assert_eq!(liveness(&p, &e.node_id), "offline");
    let mut n = TestNode::start(&p, &e, "0.17.0");
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    assert_eq!(p.svc.links().status(&e.node_id), Some(LinkStatus::Online));
    // Identity from ready was persisted onto the row.
    let row = node_row(&p, &e.node_id);
    assert_eq!(row.hostname, "agent-host");
    assert_eq!(row.arch, "riscv64");
    // No register happened: the handshake ran under the enrollment pin.
    assert!(
        !n.drain()
            .iter()
            .any(|r| matches!(r, AgentReport::ControlPin(_)))
    );

    let r = ping(&p, &admin, &e.node_id);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["ok"], true);
    assert!(r.json()["rttMs"].as_u64().is_some());
    // set_allowed_dirs is pushed after ready, then the ping ran.
    wait_until(
        "the node to be sent set_allowed_dirs",
        Duration::from_secs(10),
        || (n.exec.kinds().contains(&"set_allowed_dirs".to_owned())).then_some(()),
    );
    let kinds = n.exec.kinds();
    assert!(kinds.contains(&"set_allowed_dirs".to_owned()), "{kinds:?}");
    assert_eq!(
        kinds.iter().filter(|k| *k == "ping").count(),
        1,
        "{kinds:?}"
    );

    // An allowed-dirs edit is pushed at once.
    let r = p
        .req()
        .method("PUT")
        .path(&format!("/api/nodes/{}/allowed_dirs", e.node_id))
        .header("Origin", &p.origin())
        .header("Cookie", &admin)
        .json(json!({"allowedDirs": ["/srv/work"]}))
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    let pushed =
        n.exec.ran.lock().unwrap().iter().any(
            |c| matches!(c, Command::SetAllowedDirs(d) if d.dirs == vec!["/srv/work".to_owned()]),
        );
    assert!(pushed, "{:?}", n.exec.kinds());

    assert_eq!(n.shutdown(), AgentOutcome::Shutdown);
    wait_liveness(&p, &e.node_id, "offline");
    assert_eq!(p.svc.links().status(&e.node_id), None);
    let r = ping(&p, &admin, &e.node_id);
    assert_eq!(r.error(409), "NODE_OFFLINE");
}

/// What a node says about itself in `ready` is kept as plain text: control, invisible and
/// bidirectional-control characters (which the API refuses in any name a client sends) are
/// replaced, so a node cannot write escape sequences or reordered text into an
/// administrator's view of it.
#[test]
fn a_nodes_reported_identity_is_kept_as_plain_text() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "odd", true);
    let mut r = ready("0.17.0");
    r.hostname = "prod-db\u{202e}hs.exe\u{1b}]0;pwned\u{7}\u{1b}[2J\n".into();
    r.arch = "x86_64\0\u{200b}".into();
    let mut n = TestNode::start_ready(&p, &e, r);
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    let row = node_row(&p, &e.node_id);
    assert_eq!(
        row.hostname,
        "prod-db\u{fffd}hs.exe\u{fffd}]0;pwned\u{fffd}\u{fffd}[2J\u{fffd}"
    );
    assert_eq!(row.arch, "x86_64\u{fffd}\u{fffd}");
    let listed = p.call(&admin, "GET", &format!("/api/nodes/{}", e.node_id), None);
    assert!(!listed.text().contains("\\u001b"), "{}", listed.text());
    assert_eq!(n.shutdown(), AgentOutcome::Shutdown);
}

/// Every command an administrator sends a node through the command route is audited — before
/// it is sent, with its fields, a long value (a file's content) cut to its length — and so is
/// every update sent to a node.
#[test]
fn commands_and_updates_an_administrator_sends_a_node_are_audited() {
    let downloads = common::tempdir("downloads");
    let p = Plane::start_with(Opts {
        downloads_dir: Some(downloads.clone()),
        ..Opts::default()
    });
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "audited", true);
    let mut n = TestNode::start(&p, &e, "0.17.0");
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    let send = |cmd: serde_json::Value| {
        p.post(&format!("/api/nodes/{}/commands", e.node_id), cmd)
            .header("Cookie", &admin)
            .send()
    };
    assert_eq!(send(json!({ "type": "ping" })).status, 200);
    let content = "A".repeat(4000);
    let r = send(json!({
        "type": "write_file", "path": "/srv/x", "chunk_b64": content, "chunk": 0, "eof": true
    }));
    assert_eq!(r.status, 200, "{}", r.text());
    let audit = p
        .get("/api/audit?action=node.command_sent")
        .header("Cookie", &admin)
        .send()
        .json();
    let entries = audit["entries"]
        .as_array()
        .or_else(|| audit.as_array())
        .unwrap();
    let types: Vec<&str> = entries
        .iter()
        .map(|x| x["detail"]["command"]["type"].as_str().unwrap())
        .collect();
    assert!(
        types.contains(&"ping") && types.contains(&"write_file"),
        "{audit}"
    );
    assert!(
        entries.iter().all(|x| x["target"] == e.node_id.as_str()),
        "{audit}"
    );
    let text = audit.to_string();
    assert!(
        !text.contains(&content),
        "the file's content was audited: {text}"
    );
    assert!(text.contains("(4000 characters)"), "{text}");
    // An update sent through the update route is audited; one refused before anything is
    // sent (the node's platform has no served binary yet) is not.
    let update = || {
        p.post(
            &format!("/api/admin/updates/nodes/{}", e.node_id),
            json!({}),
        )
        .header("Cookie", &admin)
        .send()
    };
    let audited = || {
        p.get("/api/audit?action=node.update_sent")
            .header("Cookie", &admin)
            .send()
            .json()
            .to_string()
    };
    assert_ne!(update().status, 200);
    assert!(!audited().contains(&e.node_id));
    std::fs::write(
        downloads.join("termplane-node-linux-riscv64"),
        b"a node binary",
    )
    .unwrap();
    let r = update();
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(audited().contains(&e.node_id), "{}", audited());
    // An update sent through the raw command route is audited as an update too.
    let r = send(json!({
        "type": "update", "version": "0.17.9", "url": "http://127.0.0.1:9/termplane-node",
        "sha256": "0".repeat(64)
    }));
    assert!(r.status < 500, "{}", r.text());
    assert!(audited().contains("0.17.9"), "{}", audited());
    assert_eq!(n.shutdown(), AgentOutcome::Shutdown);
}

#[test]
fn unpinned_node_registers_then_handshakes() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "n2", false);
    let row = node_row(&p, &e.node_id);
    assert_eq!(row.encrypt_public_key, None);
    let mut n = TestNode::start(&p, &e, "0.17.0");
    let got = n.wait_for("pin stored", |r| {
        matches!(r, AgentReport::ControlPin(Some(_)))
    });
    assert_eq!(got, AgentReport::ControlPin(Some(e.control_key.to_b64())));
    n.wait_for("register close", closed_with(1000));
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    let row = node_row(&p, &e.node_id);
    assert_eq!(row.encrypt_public_key, Some(e.node_static.to_b64()));
    assert_eq!(*n.exec.pin.lock().unwrap(), Some(Some(e.control_key)));
    assert_eq!(ping(&p, &admin, &e.node_id).status, 200);
}

#[test]
fn newest_connection_wins_and_the_old_one_gets_4409() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "n3", true);
    let mut a = TestNode::start(&p, &e, "0.17.0");
    a.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    let mut b = TestNode::start(&p, &e, "0.17.0");
    b.wait_established();
    a.wait_for("4409", closed_with(4409));
    let outcome = a.join();
    assert!(
        matches!(
            outcome,
            AgentOutcome::Exit {
                rollback: false,
                ..
            }
        ),
        "{outcome:?}"
    );
    // Still online (the new socket), one socket open, and commands reach the newest: once the
    // first socket is released (what could have turned the row offline), the row reads online.
    wait_until("one socket left", Duration::from_secs(4), || {
        (p.svc.links().live_count() == 1).then_some(())
    });
    assert_eq!(liveness(&p, &e.node_id), "online");
    // The row read online throughout (from the first socket); the newest socket's own ready
    // may still be in hand.
    wait_until("the link to read online", Duration::from_secs(10), || {
        (p.svc.links().status(&e.node_id) == Some(LinkStatus::Online)).then_some(())
    });
    assert_eq!(ping(&p, &admin, &e.node_id).status, 200);
    assert!(b.exec.kinds().contains(&"ping".to_owned()));
    assert!(
        !b.drain()
            .iter()
            .any(|r| matches!(r, AgentReport::Closed { .. }))
    );
}

#[test]
fn held_node_is_offline_listed_and_takes_only_update() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "old", true);
    let mut n = TestNode::start(&p, &e, "0.16.9");
    n.wait_established();
    wait_until("the link to be held", Duration::from_secs(10), || {
        (matches!(
            p.svc.links().status(&e.node_id),
            Some(LinkStatus::Held { .. })
        ))
        .then_some(())
    });
    let Some(LinkStatus::Held { reason }) = p.svc.links().status(&e.node_id) else {
        panic!("not held: {:?}", p.svc.links().status(&e.node_id));
    };
    assert!(
        reason.contains("0.16.9") && reason.contains("0.17.0"),
        "{reason}"
    );
    assert_eq!(liveness(&p, &e.node_id), "offline");
    // Identity persisted before the gates.
    let row = node_row(&p, &e.node_id);
    assert_eq!(row.agent_version, "0.16.9");

    let r = p
        .get("/api/admin/updates/held")
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["held"][0]["nodeId"], e.node_id.as_str());
    assert_eq!(v["belowFloor"][0]["nodeId"], e.node_id.as_str());
    // A bearer credential is refused on the admin surface.
    let (_, sys) = p.system_key(&admin);
    assert_eq!(
        p.get("/api/admin/updates/held").bearer(&sys).send().status,
        403
    );

    assert_eq!(ping(&p, &admin, &e.node_id).error(409), "NODE_OFFLINE");
    let update = Command::Update(Update {
        version: "0.17.0".into(),
        url: "http://127.0.0.1:1/termplane-node".into(),
        sha256: "0".repeat(64),
        force: None,
    });
    let r = smol::block_on(p.svc.dispatcher().node_command(&e.node_id, update)).unwrap();
    assert!(r.ok, "{r:?}");
    assert_eq!(n.exec.kinds(), vec!["update".to_owned()]);
    assert_eq!(liveness(&p, &e.node_id), "offline");
}

#[test]
fn an_admin_updates_a_held_node_with_the_binary_the_plane_serves_and_it_comes_back() {
    let downloads = tempdir("downloads");
    let binary = b"#!/bin/sh\necho not really a node\n".to_vec();
    let p = Plane::start_with(Opts {
        downloads_dir: Some(downloads.clone()),
        ..Opts::default()
    });
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "old", true);
    let mut n = TestNode::start(&p, &e, "0.16.9");
    n.wait_established();
    wait_until("the link to be held", Duration::from_secs(10), || {
        (matches!(
            p.svc.links().status(&e.node_id),
            Some(LinkStatus::Held { .. })
        ))
        .then_some(())
    });
    let path = format!("/api/admin/updates/nodes/{}", e.node_id);
    // The platform the node reported at its hello; nothing is served for it yet.
    let row = node_row(&p, &e.node_id);
    let platform = format!("{}-{}", row.os, row.arch);
    p.post(&path, json!({}))
        .header("Cookie", &admin)
        .send()
        .error(404);
    std::fs::write(
        downloads.join(format!("termplane-node-{platform}")),
        &binary,
    )
    .unwrap();
    // Refused to a bearer (admin surface) and to a non-admin.
    let (_, sys) = p.system_key(&admin);
    p.post(&path, json!({})).bearer(&sys).send().error(403);
    p.create_user(&admin, "u@example.test", "user");
    let user = p.sign_in("u@example.test", PASSWORD);
    p.post(&path, json!({}))
        .header("Cookie", &user)
        .send()
        .error(403);
    assert!(n.exec.kinds().is_empty(), "nothing was sent");

    let r = p.post(&path, json!({})).header("Cookie", &admin).send();
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["fromVersion"], "0.16.9");
    assert_eq!(v["toVersion"], env!("CARGO_PKG_VERSION"));
    let sent = n.exec.ran.lock().unwrap().clone();
    let Some(Command::Update(u)) = sent.last() else {
        panic!("no update sent: {sent:?}");
    };
    assert_eq!(u.version, env!("CARGO_PKG_VERSION"));
    assert_eq!(
        u.url,
        format!(
            "{}/api/downloads/node/{platform}",
            p.base.trim_end_matches('/')
        )
    );
    use sha2::Digest as _;
    assert_eq!(u.sha256, hex::encode(sha2::Sha256::digest(&binary)));
    assert_eq!(u.force, None);
    // The address it was given serves exactly that binary, to anyone.
    let dl = p.get(&format!("/api/downloads/node/{platform}")).send();
    assert_eq!(dl.body, binary);

    // The bulk action reports the same node (still on its old version) and nothing else.
    let r = p
        .post("/api/admin/updates/outdated", json!({"force": true}))
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    let all = r.json();
    assert_eq!(all.as_array().unwrap().len(), 1, "{all}");
    assert_eq!(all[0]["nodeId"], e.node_id.as_str());
    let Some(Command::Update(u)) = n.exec.ran.lock().unwrap().last().cloned() else {
        panic!("no second update");
    };
    assert_eq!(u.force, Some(true));

    // The node restarts on the new version and comes back online; nothing is outdated then.
    let _ = n.shutdown();
    let mut n = TestNode::start(&p, &e, env!("CARGO_PKG_VERSION"));
    n.wait_established();
    wait_until("the node to read online", Duration::from_secs(10), || {
        (liveness(&p, &e.node_id) == "online").then_some(())
    });
    assert_eq!(liveness(&p, &e.node_id), "online");
    let r = p
        .post("/api/admin/updates/outdated", json!({}))
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.json(), json!([]));
    // The local node is never sent an update.
    let local = p.svc.local_node_id().map(str::to_owned);
    if let Some(local) = local {
        p.post(&format!("/api/admin/updates/nodes/{local}"), json!({}))
            .header("Cookie", &admin)
            .send()
            .error(403);
    }
}

#[test]
fn b17_rotated_key_closes_the_live_socket_4401_refuses_the_old_key_and_repairs() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "rot", true);
    let mut n = TestNode::start(&p, &e, "0.17.0");
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    let r = rotate_key(&p, &admin, &e.node_id);
    assert_eq!(r.status, 200, "{}", r.text());
    let new_key = r.json()["nodeKey"].as_str().unwrap().to_owned();
    n.wait_for("4401", closed_with(4401));
    // The redial with the old key is refused at the upgrade.
    n.wait_for("401 on redial", |r| {
        matches!(r, AgentReport::DialFailed { status: Some(401) })
    });
    assert_eq!(liveness(&p, &e.node_id), "offline");
    let row = node_row(&p, &e.node_id);
    assert_eq!(row.encrypt_public_key, None);
    assert_eq!(open_ws(p.addr, Some(&e.node_key)).err(), Some(401));
    drop(n);

    // The operator installs the new key; the node still holds its control pin.
    let mut e2 = e.clone();
    e2.node_key = new_key;
    let mut n2 = TestNode::start(&p, &e2, "0.17.0");
    n2.wait_for("4411", closed_with(4411));
    n2.wait_for("pin dropped", |r| {
        matches!(r, AgentReport::ControlPin(None))
    });
    n2.wait_for("pin stored", |r| {
        matches!(r, AgentReport::ControlPin(Some(_)))
    });
    n2.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    let row = node_row(&p, &e.node_id);
    assert_eq!(row.encrypt_public_key, Some(e.node_static.to_b64()));
    assert_eq!(ping(&p, &admin, &e.node_id).status, 200);
}

#[test]
fn deleting_a_node_closes_its_socket_4401() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "del", true);
    let mut n = TestNode::start(&p, &e, "0.17.0");
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    let r = p
        .req()
        .method("DELETE")
        .path(&format!("/api/nodes/{}", e.node_id))
        .header("Origin", &p.origin())
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 204, "{}", r.text());
    n.wait_for("4401", closed_with(4401));
    n.wait_for("401 on redial", |r| {
        matches!(r, AgentReport::DialFailed { status: Some(401) })
    });
    assert_eq!(p.svc.links().status(&e.node_id), None);
}

/// A socket whose upgrade passed the key check just before a rotation, and that registers
/// only after the rotation's kick went out, is still closed 4401 (the row is read again once the
/// socket is registered).
#[test]
fn a_rotation_between_the_upgrade_check_and_registration_still_closes_4401() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "late", true);
    // The row as the upgrade's check saw it…
    let stale = node_row(&p, &e.node_id);
    // …then the rotation lands and kicks (no socket is registered yet).
    let r = rotate_key(&p, &admin, &e.node_id);
    assert_eq!(r.status, 200, "{}", r.text());
    // …then the upgraded socket is served with the row it authenticated by.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let svc = p.svc.clone();
    let server = std::thread::spawn(move || {
        let (s, _) = listener.accept().unwrap();
        smol::block_on(async move {
            let s = smol::net::TcpStream::try_from(s).unwrap();
            let ws = async_tungstenite::WebSocketStream::from_raw_socket(
                s,
                async_tungstenite::tungstenite::protocol::Role::Server,
                None,
            )
            .await;
            termplane::link::serve(svc, stale, ws).await;
        });
    });
    let mut ws = smol::block_on(async {
        let s = smol::net::TcpStream::connect(addr).await.unwrap();
        // The server side takes the socket as already upgraded: no handshake on the wire.
        async_tungstenite::WebSocketStream::from_raw_socket(
            s,
            async_tungstenite::tungstenite::protocol::Role::Client,
            None,
        )
        .await
    });
    match recv(&mut ws, Duration::from_secs(5)) {
        Got::Close(Some(4401), _) => {}
        other => panic!("expected 4401, got {other:?}"),
    }
    drop(ws);
    server.join().unwrap();
    assert_eq!(p.svc.links().status(&e.node_id), None);
}

/// What one node key can make the plane hold is bounded: at most four of its sockets open at
/// once, handshaking or not (a fifth upgrade is refused 429 `TOO_MANY_SOCKETS` before the
/// 101); one that closes gives its place back. Another node is not affected.
#[test]
fn a_node_key_opens_at_most_four_sockets_at_once() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "many", true);
    let other = enroll(&p, &admin, "other", true);
    let mut held: Vec<RawWs> = (0..termplane::link::MAX_SOCKETS_PER_NODE)
        .map(|i| {
            open_ws(p.addr, Some(&e.node_key))
                .unwrap_or_else(|s| panic!("upgrade {i} refused with {s}"))
        })
        .collect();
    let (_, head) = raw_upgraded(p.addr, &e.node_key, "");
    assert!(head.starts_with("HTTP/1.1 429"), "{head}");
    assert!(
        head.to_ascii_lowercase().contains("\r\nretry-after: 5\r\n"),
        "the refusal tells the node when to come back: {head}"
    );
    assert!(open_ws(p.addr, Some(&other.node_key)).is_ok());
    // A socket that ends gives its place back (at once on close, or at the handshake deadline).
    drop(held.pop());
    let mut again = None;
    for _ in 0..200 {
        if let Ok(ws) = open_ws(p.addr, Some(&e.node_key)) {
            again = Some(ws);
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        again.is_some(),
        "the closed socket's place was not given back"
    );
}

#[test]
fn upgrade_refusals() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "ref", true);
    // Absent, malformed, unknown and wrong-kind keys: 401.
    assert_eq!(open_ws(p.addr, None).err(), Some(401));
    assert_eq!(open_ws(p.addr, Some("tp_short")).err(), Some(401));
    assert_eq!(
        open_ws(p.addr, Some(&format!("tp_{}", "A".repeat(43)))).err(),
        Some(401)
    );
    let (_, sys) = p.system_key(&admin);
    assert_eq!(open_ws(p.addr, Some(&sys)).err(), Some(401));
    let (_, setup) = p.setup_key(&admin);
    assert_eq!(open_ws(p.addr, Some(&setup)).err(), Some(401));
    // Not an upgrade at all.
    let r = p.get("/ws/node").bearer(&e.node_key).send();
    assert_eq!(r.error(400), "WEBSOCKET_UPGRADE_REQUIRED");
    // The valid key upgrades.
    assert!(open_ws(p.addr, Some(&e.node_key)).is_ok());
    // A deleted node's key: 401.
    let r = p
        .req()
        .method("DELETE")
        .path(&format!("/api/nodes/{}", e.node_id))
        .header("Origin", &p.origin())
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 204);
    assert_eq!(open_ws(p.addr, Some(&e.node_key)).err(), Some(401));
}

#[test]
fn dispatcher_refuses_offline_nodes_and_serializes_per_node() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "ser", true);
    let ping_cmd = || Command::Ping(termplane_proto::command::Empty {});
    let err = smol::block_on(p.svc.dispatcher().node_command(&e.node_id, ping_cmd())).unwrap_err();
    assert_eq!((err.status, err.code), (409, "NODE_OFFLINE"));
    let mut n = TestNode::start(&p, &e, "0.17.0");
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    // Ten concurrent calls: every one settles, each on its own jti.
    let results: Vec<_> = smol::block_on(async {
        let mut tasks = Vec::new();
        for _ in 0..10 {
            let svc = p.svc.clone();
            let id = e.node_id.clone();
            tasks.push(smol::spawn(async move {
                svc.dispatcher()
                    .node_command(&id, Command::Ping(termplane_proto::command::Empty {}))
                    .await
            }));
        }
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await);
        }
        out
    });
    let mut refs: Vec<String> = results.into_iter().map(|r| r.unwrap().reference).collect();
    refs.sort();
    refs.dedup();
    assert_eq!(refs.len(), 10);
    assert_eq!(n.exec.kinds().iter().filter(|k| *k == "ping").count(), 10);
}

#[test]
fn plane_shutdown_closes_links_with_1000() {
    let mut p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "bye", true);
    let mut n = TestNode::start(&p, &e, "0.17.0");
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    p.stop();
    n.wait_for("1000", closed_with(1000));
    assert_eq!(p.svc.links().live_count(), 0);
}

fn set_maintenance(p: &Plane, cookie: &str, id: &str, on: bool) -> Resp {
    p.req()
        .method("PUT")
        .path(&format!("/api/nodes/{id}/maintenance"))
        .header("Origin", &p.origin())
        .header("Cookie", cookie)
        .json(json!({ "on": on }))
        .send()
}

#[test]
fn maintenance_is_mirrored_on_the_row_audited_and_pushed_to_an_online_node() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "n1", true);
    // Offline: the row takes the mirror, the push cannot happen.
    let r = set_maintenance(&p, &admin, &e.node_id, true);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["pushed"], false);
    let changed_at = r.json()["changedAt"].as_str().unwrap().to_owned();
    assert!(
        changed_at.ends_with('Z') && changed_at.len() == 24,
        "{changed_at}"
    );
    let row = node_row(&p, &e.node_id);
    let mirror: serde_json::Value =
        serde_json::from_str(row.maintenance.as_deref().unwrap()).unwrap();
    assert_eq!(mirror, json!({ "on": true, "changedAt": changed_at }));

    // Online: the node gets `set_maintenance` with the plane's mirror verbatim.
    let mut n = TestNode::start(&p, &e, "0.17.0");
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    let r = set_maintenance(&p, &admin, &e.node_id, false);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["pushed"], true);
    let sent = n.exec.ran.lock().unwrap().iter().any(|c| {
        matches!(c, Command::SetMaintenance(m) if !m.on && Some(m.changed_at.as_str()) == r.json()["changedAt"].as_str())
    });
    assert!(sent, "{:?}", n.exec.kinds());

    // Audited; a bad body changes nothing; the local node has no mirror.
    let audit = p.get("/api/audit").header("Cookie", &admin).send().json();
    let entries = audit.as_array().unwrap();
    assert_eq!(
        entries
            .iter()
            .filter(|a| a["action"] == "node.maintenance_set")
            .count(),
        2
    );
    let before = node_row(&p, &e.node_id).maintenance;
    let r = p
        .req()
        .method("PUT")
        .path(&format!("/api/nodes/{}/maintenance", e.node_id))
        .header("Origin", &p.origin())
        .header("Cookie", &admin)
        .json(json!({ "on": "yes" }))
        .send();
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
    let after = node_row(&p, &e.node_id).maintenance;
    assert_eq!(before, after);
    assert_eq!(n.shutdown(), AgentOutcome::Shutdown);
}

/// Concurrent edits of the mirrored settings: whatever order they land in, the last value the
/// node received equals the row's (each write and its push happen under the node's lock).
#[test]
fn concurrent_edits_leave_the_node_with_the_rows_maintenance_and_allowed_dirs() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "race", true);
    let mut n = TestNode::start(&p, &e, "0.17.0");
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    std::thread::scope(|s| {
        for t in 0..4 {
            let (p, admin, id) = (&p, &admin, &e.node_id);
            s.spawn(move || {
                for i in 0..6 {
                    let r = set_maintenance(p, admin, id, (t + i) % 2 == 0);
                    assert_eq!(r.status, 200, "{}", r.text());
                    let r = p
                        .req()
                        .method("PUT")
                        .path(&format!("/api/nodes/{id}/allowed_dirs"))
                        .header("Origin", &p.origin())
                        .header("Cookie", admin)
                        .json(json!({ "allowedDirs": [format!("/srv/t{t}/{i}")] }))
                        .send();
                    assert_eq!(r.status, 200, "{}", r.text());
                }
            });
        }
    });
    let row = node_row(&p, &e.node_id);
    let ran = n.exec.ran.lock().unwrap().clone();
    let last_dirs = ran
        .iter()
        .rev()
        .find_map(|c| match c {
            Command::SetAllowedDirs(d) => Some(d.dirs.clone()),
            _ => None,
        })
        .unwrap();
    let row_dirs: Vec<String> = serde_json::from_str(&row.allowed_dirs).unwrap();
    assert_eq!(last_dirs, row_dirs);
    let last_on = ran
        .iter()
        .rev()
        .find_map(|c| match c {
            Command::SetMaintenance(m) => Some(m.on),
            _ => None,
        })
        .unwrap();
    let row_on = serde_json::from_str::<serde_json::Value>(row.maintenance.as_deref().unwrap())
        .unwrap()["on"]
        .as_bool()
        .unwrap();
    assert_eq!(last_on, row_on);
}

/// `PUT /api/nodes/:id/allowed_dirs` as the admin.
fn put_allowed_dirs(p: &Plane, cookie: &str, id: &str, dirs: serde_json::Value) -> Resp {
    p.req()
        .method("PUT")
        .path(&format!("/api/nodes/{id}/allowed_dirs"))
        .header("Origin", &p.origin())
        .header("Cookie", cookie)
        .json(json!({ "allowedDirs": dirs }))
        .send()
}

/// An allowed-dirs edit in the moment between a node's `ready` and its census (the link is up,
/// the census not applied) still reaches the node: the list pushed after `ready` was the old
/// one, and no later `ready` would come to correct it.
#[test]
fn an_allowed_dirs_edit_before_the_census_reaches_the_node() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "early", true);
    let mut n = TestNode::start_without_census(&p, &e, "0.17.0");
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    let r = put_allowed_dirs(&p, &admin, &e.node_id, json!(["/srv/early"]));
    assert_eq!(r.status, 200, "{}", r.text());
    let last = n
        .exec
        .ran
        .lock()
        .unwrap()
        .iter()
        .rev()
        .find_map(|c| match c {
            Command::SetAllowedDirs(d) => Some(d.dirs.clone()),
            _ => None,
        });
    assert_eq!(last, Some(vec!["/srv/early".to_owned()]));
    assert_eq!(n.shutdown(), AgentOutcome::Shutdown);
}

/// A list that passes validation but could never be carried to a node (64 paths of 1,000
/// characters overflow the link's envelope) is refused 413 and not kept, whether the node is
/// online or offline: a stored list no push can deliver would leave the node on its old one.
#[test]
fn an_allowed_dirs_list_too_large_for_the_link_is_refused_and_not_kept() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "big", true);
    let huge: Vec<String> = (0..64)
        .map(|i| format!("/srv/{i:02}/{}", "d".repeat(990)))
        .collect();
    // Offline.
    let before = node_row(&p, &e.node_id).allowed_dirs;
    let r = put_allowed_dirs(&p, &admin, &e.node_id, json!(huge));
    assert_eq!(r.error(413), "COMMAND_TOO_LARGE");
    assert_eq!(node_row(&p, &e.node_id).allowed_dirs, before);
    // Online, with a list in force.
    let mut n = TestNode::start(&p, &e, "0.17.0");
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    let r = put_allowed_dirs(&p, &admin, &e.node_id, json!(["/srv/kept"]));
    assert_eq!(r.status, 200, "{}", r.text());
    let r = put_allowed_dirs(&p, &admin, &e.node_id, json!(huge));
    assert_eq!(r.error(413), "COMMAND_TOO_LARGE");
    let row: Vec<String> = serde_json::from_str(&node_row(&p, &e.node_id).allowed_dirs).unwrap();
    assert_eq!(row, vec!["/srv/kept".to_owned()]);
    assert!(
        !n.exec
            .ran
            .lock()
            .unwrap()
            .iter()
            .any(|c| matches!(c, Command::SetAllowedDirs(d) if d.dirs.len() == 64))
    );
    assert_eq!(n.shutdown(), AgentOutcome::Shutdown);
}

/// Reads the next sealed command on a hand-driven link: its jti and its type.
fn next_command(
    ws: &mut RawWs,
    link: &mut termplane_machines::kx::Established,
) -> (String, String) {
    let Got::Binary(ct) = recv(ws, Duration::from_secs(15)) else {
        panic!("no command")
    };
    let text = String::from_utf8(link.opener.open_frame(&ct).unwrap()).unwrap();
    let Ok(termplane_proto::PlaneFrame::Command(env)) = termplane_proto::decode_plane_frame(&text)
    else {
        panic!("not a command: {text}")
    };
    let payload = env.jws.split('.').nth(1).unwrap();
    let claims: serde_json::Value =
        serde_json::from_slice(&termplane_proto::key::b64url_decode(payload).unwrap()).unwrap();
    (
        claims["jti"].as_str().unwrap().to_owned(),
        claims["cmd"]["type"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn a_result_with_an_unknown_field_or_a_wrong_typed_ok_answers_502_node_bad_result_at_once() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "badresult", true);
    let (mut ws, mut link) = manual_online(&p, &e);
    // The plane pushes set_allowed_dirs after ready: answer it properly.
    let (jti, kind) = next_command(&mut ws, &mut link);
    assert_eq!(kind, "set_allowed_dirs");
    let ok = format!(r#"{{"type":"result","ref":"{jti}","ok":true}}"#);
    send_binary(&mut ws, link.sealer.seal_frame(ok.as_bytes()).unwrap());
    for bad in [
        r#"{"type":"result","ref":"JTI","ok":true,"surprise":1}"#,
        r#"{"type":"result","ref":"JTI","ok":"true"}"#,
    ] {
        let req = p
            .post(
                &format!("/api/nodes/{}/ping", e.node_id),
                serde_json::Value::Null,
            )
            .header("Cookie", &admin);
        let rest = std::thread::spawn(move || {
            let started = std::time::Instant::now();
            let r = req.send();
            (r, started.elapsed())
        });
        let (jti, kind) = next_command(&mut ws, &mut link);
        assert_eq!(kind, "ping");
        let answer = bad.replace("JTI", &jti);
        send_binary(&mut ws, link.sealer.seal_frame(answer.as_bytes()).unwrap());
        let (r, took) = rest.join().unwrap();
        assert_eq!(r.status, 502, "{bad}: {}", r.text());
        assert_eq!(r.code(), "NODE_BAD_RESULT");
        assert!(took < Duration::from_secs(5), "{bad}: took {took:?}");
    }
}

#[test]
fn a_lost_register_ok_is_resumed_by_registering_the_same_static_key_again() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "lostok", true);
    // Rotation clears the pin; the operator installs the new key on the node.
    let r = rotate_key(&p, &admin, &e.node_id);
    assert_eq!(r.status, 200, "{}", r.text());
    let mut e = e.clone();
    e.node_key = r.json()["nodeKey"].as_str().unwrap().to_owned();
    let register = termplane_proto::frame::NodeFrame::Register(termplane_proto::Register {
        node_static: e.node_static,
    })
    .to_json();
    // The first register claims the pin; its register-ok is lost on the way.
    let mut ws = open_ws(p.addr, Some(&e.node_key)).unwrap();
    send_text(&mut ws, &register);
    drop(ws);
    wait_until(
        "the node's key to be pinned",
        Duration::from_secs(10),
        || (node_row(&p, &e.node_id).encrypt_public_key.is_some()).then_some(()),
    );
    assert_eq!(
        node_row(&p, &e.node_id).encrypt_public_key,
        Some(e.node_static.to_b64())
    );
    // The node, still without a control pin, registers the same static key again.
    let mut ws = open_ws(p.addr, Some(&e.node_key)).unwrap();
    send_text(&mut ws, &register);
    let Got::Text(ok) = recv(&mut ws, Duration::from_secs(10)) else {
        panic!("no register-ok")
    };
    assert!(ok.contains("register-ok"), "{ok}");
    assert!(ok.contains(&e.control_key.to_b64()), "{ok}");
    let Got::Close(code, _) = recv(&mut ws, Duration::from_secs(10)) else {
        panic!("no close")
    };
    assert_eq!(code, Some(1000));
    // And the redial handshakes under the pin.
    let (_ws, _link) = manual_online(&p, &e);
    // A register with another key at the pinned row is still refused, naming the remedy.
    let other = random_static().public();
    let mut ws = open_ws(p.addr, Some(&e.node_key)).unwrap();
    send_text(
        &mut ws,
        &termplane_proto::frame::NodeFrame::Register(termplane_proto::Register {
            node_static: other,
        })
        .to_json(),
    );
    let Got::Close(code, reason) = recv(&mut ws, Duration::from_secs(10)) else {
        panic!("no close")
    };
    assert_eq!(code, Some(4410));
    assert!(reason.contains("rotate the node key"), "{reason}");
}

#[test]
fn a_maintenance_event_updates_the_rows_mirror() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "maint-event", true);
    let (mut ws, mut link) = manual_online(&p, &e);
    let event = r#"{"type":"maintenance","on":true,"changedAt":"2026-11-22T13:30:39.123Z"}"#;
    send_binary(&mut ws, link.sealer.seal_frame(event.as_bytes()).unwrap());
    let mut mirror = None;
    for _ in 0..500 {
        mirror = node_row(&p, &e.node_id).maintenance;
        if mirror.as_deref().is_some_and(|m| m.contains("\"on\":true")) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let m: serde_json::Value = serde_json::from_str(mirror.as_deref().unwrap_or("null")).unwrap();
    assert_eq!(
        m,
        json!({ "on": true, "changedAt": "2026-11-22T13:30:39.123Z" })
    );
}

/// A launch on a node the API already shows online, in the moment before its census arrives,
/// waits for the census instead of being refused as offline; a node whose census never comes
/// is refused once the wait is over.
#[test]
fn a_launch_waits_for_the_census_of_a_node_that_just_came_online() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let e = enroll(&p, &admin, "fresh", true);
    let mut n = TestNode::start_without_census(&p, &e, "0.17.0");
    n.wait_established();
    wait_liveness(&p, &e.node_id, "online");
    let launch = |p: &Plane| {
        p.post(
            "/api/subshells",
            json!({
                "nodeId": e.node_id, "harnessId": "shell", "cwd": "/srv/work",
            }),
        )
        .header("Origin", &p.origin())
        .header("Cookie", &admin)
        .send()
    };
    // No census yet: refused, but only after the wait.
    let t = Instant::now();
    let r = launch(&p);
    assert_eq!(r.status, 409, "{}", r.text());
    assert_eq!(r.json()["code"], "NODE_OFFLINE", "{}", r.text());
    assert!(t.elapsed() >= Duration::from_secs(4), "{:?}", t.elapsed());
    // The census arrives while a launch waits: the launch goes on to the node.
    let census = termplane_proto::Event::SubshellsReport(termplane_proto::event::SubshellsReport {
        subshells: Vec::new(),
    });
    let t = Instant::now();
    let sent = std::thread::scope(|s| {
        let waiting = s.spawn(|| launch(&p));
        // The census comes half a second into the launch's wait (how long it waited is what
        // is checked below: time is the subject).
        std::thread::sleep(Duration::from_millis(500));
        n.send(census);
        waiting.join().unwrap()
    });
    assert_ne!(sent.json()["code"], "NODE_OFFLINE", "{}", sent.text());
    assert!(
        t.elapsed() >= Duration::from_millis(500),
        "{:?}",
        t.elapsed()
    );
    assert!(
        n.exec
            .kinds()
            .iter()
            .any(|k| k == "detect" || k == "launch"),
        "the launch reached the node: {:?}",
        n.exec.kinds()
    );
}

/// The screen signal is the plane's to turn off (`TERMPLANE_SCREEN_SIGNAL=off`): a node that
/// can send its panes' `activity` is asked for it when it comes online, on a plane with the
/// signal on, and told to stop it (a node keeps it on across links) on a plane with it off.
#[test]
fn a_node_is_asked_for_its_panes_activity_only_while_the_screen_signal_is_on() {
    for (signal, want) in [(true, true), (false, false)] {
        let p = Plane::start_with(Opts {
            no_screen_signal: !signal,
            ..Opts::default()
        });
        let admin = p.setup_admin();
        let e = enroll(&p, &admin, "screens", true);
        let mut r = ready(env!("CARGO_PKG_VERSION"));
        r.capabilities = vec!["activity".into()];
        let mut n = TestNode::start_ready(&p, &e, r);
        n.wait_established();
        let asked = wait_until("the activity command", Duration::from_secs(10), || {
            n.exec.ran.lock().unwrap().iter().find_map(|c| match c {
                Command::Activity(a) => Some(a.clone()),
                _ => None,
            })
        });
        assert_eq!(asked.on, want, "screen signal {signal}: {asked:?}");
        assert_eq!(asked.quiet_ms, termplane::plugins::SCREEN_QUIET_MS);
        assert_eq!(n.shutdown(), AgentOutcome::Shutdown);
    }
}

/// Which replica the row names as holding the node's link.
fn holder(p: &Plane, id: &str) -> Option<String> {
    smol::block_on(p.svc.store().link_holder(id)).unwrap()
}

/// Two planes on one database (two replicas of a cluster): the second's start leaves the node
/// the first holds online; the node's newest link, at the second, wins across them — the first
/// closes its socket 4409 (told at once through PostgreSQL's `NOTIFY`; on SQLite, which has no
/// such word, when it squares its links with the rows) and writes nothing over the row; a
/// replica whose lease lapsed has its node turned offline by the other, and, when it finds its
/// node released while it still holds the socket, takes the row again.
#[test]
fn the_newest_link_wins_across_two_planes_on_one_database_and_a_lapsed_replicas_node_goes_offline()
{
    let a = Plane::start();
    let admin = a.setup_admin();
    let e = enroll(&a, &admin, "n-cluster", true);
    let id = e.node_id.clone();
    let mut first = TestNode::start(&a, &e, "0.17.0");
    first.wait_established();
    wait_liveness(&a, &id, "online");
    let ra = a.svc.cluster().id();
    assert_eq!(holder(&a, &id).as_deref(), Some(ra.as_str()));

    let b = a.another_replica();
    let rb = b.svc.cluster().id();
    assert_ne!(ra, rb);
    assert_eq!(
        liveness(&b, &id),
        "online",
        "a replica's start leaves the nodes a live replica holds online"
    );
    assert_eq!(holder(&b, &id).as_deref(), Some(ra.as_str()));

    // The node redials, and the load balancer sends it to the second plane.
    let at_b = Enrolled {
        ws_url: e.ws_url.replace(&a.addr.to_string(), &b.addr.to_string()),
        ..e.clone()
    };
    assert_ne!(at_b.ws_url, e.ws_url);
    let mut second = TestNode::start(&b, &at_b, "0.17.0");
    second.wait_established();
    wait_until(
        "the second plane to hold the node",
        Duration::from_secs(10),
        || {
            (b.svc.links().status(&id) == Some(LinkStatus::Online)
                && holder(&b, &id).as_deref() == Some(rb.as_str()))
            .then_some(())
        },
    );
    if !on_postgres() {
        smol::block_on(a.svc.reconcile_links());
    }
    first.wait_for("4409", closed_with(4409));
    wait_until(
        "the first plane's socket ended",
        Duration::from_secs(10),
        || (a.svc.links().live_count() == 0).then_some(()),
    );
    assert_eq!(a.svc.links().status(&id), None);
    // The first plane's ended socket wrote nothing over the row the second holds.
    assert_eq!(liveness(&a, &id), "online");
    assert_eq!(holder(&a, &id).as_deref(), Some(rb.as_str()));
    assert_eq!(ping(&b, &admin, &id).status, 200);
    assert!(second.exec.kinds().contains(&"ping".to_owned()));

    // The second plane's lease lapses (as the first plane's clock reads it): the first turns
    // its node offline and holderless — the node would redial to a live replica.
    a.clock
        .advance_ms(i64::try_from(termplane::service::cluster::LEASE.as_millis()).unwrap() + 1_000);
    smol::block_on(a.svc.reconcile_links());
    assert_eq!(liveness(&a, &id), "offline");
    assert_eq!(holder(&a, &id), None);
    // The second plane lived on (its database was out of reach, say): it takes its node back.
    smol::block_on(b.svc.reconcile_links());
    assert_eq!(liveness(&b, &id), "online");
    assert_eq!(holder(&b, &id).as_deref(), Some(rb.as_str()));
    assert!(
        !second
            .drain()
            .iter()
            .any(|r| matches!(r, AgentReport::Closed { .. })),
        "the second plane's socket stayed open throughout"
    );
    drop(second);
    drop(b);
}
