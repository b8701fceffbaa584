//! Every credential kind against every REST operation, read from the plane's own OpenAPI
//! document, checked against two tables: the credential rules of each class (`x-credential`),
//! and the spec's route-family rules ("Route families" and "Authentication"), which every route
//! must match a row of — so a new route cannot ship without its row here.
//!
//! The callers: no credential, a person's session, an administrator's session, a system key,
//! and a pane's own token (from a real pane on the local node's tmux). Path parameters name no
//! row; bodies are `{}`. A refusal the class promises must come with its code; an accepted
//! credential may still meet a 400, 404 or 409, never 401 or 403 for who it is.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::json;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    Nobody,
    Person,
    Admin,
    SystemKey,
    Pane,
}

const EVERYONE: [Who; 5] = [
    Who::Nobody,
    Who::Person,
    Who::Admin,
    Who::SystemKey,
    Who::Pane,
];

/// What a credential class promises each caller: `Ok(())` = past the credential check, or
/// `Err((status, code))` = refused for who it is.
fn promise(class: &str, who: Who) -> Result<(), (u16, &'static str)> {
    use Who::*;
    match (class, who) {
        ("none" | "setup-key", _) => Ok(()),
        (_, Nobody) => Err((401, "UNAUTHENTICATED")),
        ("any" | "subshells", _) => Ok(()),
        ("user", Pane) => Err((403, "PANE_TOKEN_NOT_ALLOWED")),
        ("user", _) => Ok(()),
        ("cookie" | "cookie-admin", SystemKey | Pane) => Err((403, "BEARER_NOT_ALLOWED")),
        ("cookie", _) => Ok(()),
        ("cookie-admin", Person) => Err((403, "ADMIN_REQUIRED")),
        ("cookie-admin", Admin) => Ok(()),
        (other, _) => panic!("unknown credential class {other}"),
    }
}

/// The spec's route-family rules, as the strictest class each (method, path) may have at
/// least. `None`: the path belongs to no family of the spec.
fn family_rule(method: &str, path: &str) -> Option<&'static [&'static str]> {
    let write = method != "get";
    let under = |p: &str| path == p || path.starts_with(&format!("{p}/"));
    const ADMIN: &[&str] = &["cookie-admin"];
    const COOKIE: &[&str] = &["cookie", "cookie-admin"];
    const SIGNED_IN: &[&str] = &["any", "user", "subshells", "cookie", "cookie-admin"];
    const ANYONE: &[&str] = &["none", "any", "user", "subshells", "cookie", "cookie-admin"];
    Some(
        if under("/api/system-keys")
            || under("/api/audit")
            || under("/api/admin")
            || under("/api/network")
        {
            ADMIN
        } else if under("/api/settings") || under("/api/users") || under("/api/plugins") {
            if write { ADMIN } else { ANYONE }
        } else if under("/api/subshells") && path.contains("/shares") {
            COOKIE
        } else if path == "/api/nodes/enroll" {
            &["setup-key"]
        } else if path == "/api/nodes/{id}" && !write {
            COOKIE
        } else if under("/api/nodes") {
            if write { COOKIE } else { SIGNED_IN }
        } else if under("/api/subshells")
            || under("/api/workspaces")
            || under("/api/presets")
            || under("/api/uploads")
            || under("/api/files")
            || under("/api/devices")
            || under("/api/notifications")
            || under("/api/channels")
            || under("/api/identities")
            || under("/api/setup-keys")
        {
            SIGNED_IN
        } else if under("/api/setup")
            || under("/api/downloads/node")
            || under("/api/auth")
            || path == "/api/openapi.json"
        {
            ANYONE
        } else {
            return None;
        },
    )
}

fn wait_for<T>(what: &str, f: impl FnMut() -> Option<T>) -> T {
    termplane_test_support::wait_until(what, Duration::from_secs(20), f)
}

#[test]
fn every_route_refuses_and_accepts_exactly_the_credentials_its_rules_say() {
    let p = Plane::start();
    let admin_cookie = p.setup_admin();
    p.create_user(&admin_cookie, "person@example.test", "user");
    let (_, key) = p.system_key(&admin_cookie);
    let node = common::local::attach(&p);

    // A pane's own token, as the pane sees it.
    let r = p
        .req()
        .method("POST")
        .path("/api/subshells")
        .bearer(&key)
        .json(json!({ "nodeId": node.node_id, "harnessId": "shell", "cwd": node.work.to_string_lossy() }))
        .send();
    assert_eq!(r.status, 201, "{}", r.text());
    let sub = r.json()["id"].as_str().unwrap().to_owned();
    let r = p
        .req()
        .method("POST")
        .path(&format!("/api/subshells/{sub}/input"))
        .bearer(&key)
        .json(json!({ "text": "echo tok=$TERMPLANE_TOKEN.", "keys": ["enter"] }))
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    let pane = wait_for("the pane's token on its screen", || {
        let s = p
            .get(&format!("/api/subshells/{sub}/screen?lines=50"))
            .bearer(&key)
            .send()
            .json()["text"]
            .as_str()?
            .to_owned();
        s.split("tok=")
            .filter_map(|x| x.split('.').next())
            .find(|t| t.starts_with("tp_"))
            .map(str::to_owned)
    });

    let doc = p.get("/api/openapi.json").send().json();
    let mut checked = 0;
    let mut unruled = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let class = op["x-credential"]
                .as_str()
                .unwrap_or_else(|| panic!("{method} {path} has no x-credential"));
            match family_rule(method, path) {
                None => unruled.push(format!("{method} {path}")),
                Some(allowed) => assert!(
                    allowed.contains(&class),
                    "{method} {path} is `{class}`, the spec's family rule allows {allowed:?}"
                ),
            }
            // Signing out would end the session the other checks use: it gets its own.
            let concrete = path
                .split('/')
                .map(|s| if s.starts_with('{') { "no-such-row" } else { s })
                .collect::<Vec<_>>()
                .join("/");
            for who in EVERYONE {
                let mut req = p.req().method(&method.to_uppercase()).path(&concrete);
                req = match who {
                    Who::Nobody => req.header("Origin", &p.origin()),
                    Who::Person => req
                        .header("Origin", &p.origin())
                        .header("Cookie", &p.sign_in("person@example.test", PASSWORD)),
                    Who::Admin => {
                        let cookie = if concrete == "/api/auth/sign-out" {
                            p.sign_in(ADMIN, PASSWORD)
                        } else {
                            admin_cookie.clone()
                        };
                        req.header("Origin", &p.origin()).header("Cookie", &cookie)
                    }
                    Who::SystemKey => req.bearer(&key),
                    Who::Pane => req.bearer(&pane),
                };
                if method != "get" && method != "delete" {
                    req = req.json(json!({}));
                }
                let r = req.send();
                assert!(
                    r.status < 500,
                    "{method} {path} as {who:?}: {} {}",
                    r.status,
                    r.text()
                );
                match promise(class, who) {
                    Err((status, code)) => {
                        assert_eq!(
                            (r.status, r.code()),
                            (status, code.to_owned()),
                            "{method} {path} ({class}) as {who:?}: {}",
                            r.text()
                        );
                    }
                    Ok(()) => {
                        let refused_for_who = matches!(r.status, 401 | 403)
                            && [
                                "UNAUTHENTICATED",
                                "INVALID_CREDENTIAL",
                                "BEARER_NOT_ALLOWED",
                                "ADMIN_REQUIRED",
                                "PANE_TOKEN_NOT_ALLOWED",
                                "ORIGIN_REJECTED",
                            ]
                            .contains(&r.code().as_str());
                        assert!(
                            !refused_for_who,
                            "{method} {path} ({class}) as {who:?} was refused: {}",
                            r.text()
                        );
                    }
                }
            }
            checked += 1;
        }
    }
    assert!(
        unruled.is_empty(),
        "routes with no row in the spec's family table: {unruled:?}"
    );
    assert!(checked > 80, "only {checked} operations");
}

/// What one node route answers a caller who may not do it, on a node that exists.
#[derive(Clone, Copy, Debug)]
struct NodeRule {
    op: &'static str,
    /// A person who is not an administrator, on the local node (which belongs to the
    /// administrators): `None` = allowed (seeing the row), else the refusal.
    person_on_local: Option<(u16, &'static str)>,
    /// A second person, on the first person's node: always refused.
    stranger_on_node: (u16, &'static str),
    /// The body sent (the write an attacker would want), if the route takes one.
    body: Option<fn(&str) -> serde_json::Value>,
}

/// Every operation on one node, with the rule of each (see `service/nodes.rs`): the local node
/// is seen by everyone signed in but managed by administrators only; a person's node is
/// another person's to neither see nor touch.
fn node_rules() -> Vec<NodeRule> {
    const ADMIN_ONLY: (u16, &str) = (403, "ADMIN_REQUIRED");
    const ABSENT: (u16, &str) = (404, "NOT_FOUND");
    const NO_LAUNCH: (u16, &str) = (403, "NODE_NOT_ALLOWED");
    let rule = |op, person_on_local, stranger_on_node, body| NodeRule {
        op,
        person_on_local,
        stranger_on_node,
        body,
    };
    vec![
        rule("getNode", None, ABSENT, None),
        rule("deleteNode", Some(ADMIN_ONLY), ABSENT, None),
        rule("rotateNodeKey", Some(ADMIN_ONLY), ABSENT, None),
        rule(
            "setAllowedDirs",
            Some(ADMIN_ONLY),
            ABSENT,
            Some(|_| json!({ "allowedDirs": [] })),
        ),
        rule(
            "setNodeMaintenance",
            Some(ADMIN_ONLY),
            ABSENT,
            Some(|_| json!({ "on": true })),
        ),
        rule("pingNode", Some(ADMIN_ONLY), ABSENT, None),
        rule(
            "sendNodeCommand",
            Some(ADMIN_ONLY),
            ADMIN_ONLY,
            Some(|_| json!({ "type": "ping" })),
        ),
        rule("nodeEvents", Some(ADMIN_ONLY), ABSENT, None),
        rule("nodeHarnesses", Some(NO_LAUNCH), ABSENT, None),
        rule("nodeDirs", Some(NO_LAUNCH), ABSENT, None),
        rule(
            "setNodeSystemAccess",
            Some(ADMIN_ONLY),
            ADMIN_ONLY,
            Some(|_| json!({ "allowed": false })),
        ),
        rule(
            "setNodeRecording",
            Some(ADMIN_ONLY),
            ADMIN_ONLY,
            Some(|_| json!({ "on": false })),
        ),
        rule(
            "updateNode",
            Some(ADMIN_ONLY),
            ADMIN_ONLY,
            Some(|_| json!({})),
        ),
    ]
}

/// A node row as the store has it, and the audit trail's length: what a refused request must
/// leave as it was.
fn node_state(p: &Plane, id: &str) -> (String, usize) {
    let row = format!("{:?}", common::node::node_row(p, id));
    let audit = smol::block_on(p.svc.store().audit_entries(10_000))
        .unwrap()
        .len();
    (row, audit)
}

#[test]
fn every_node_route_keeps_the_local_node_to_administrators_and_a_node_to_its_owner() {
    let p = Plane::start();
    let admin = p.setup_admin();
    p.create_user(&admin, "bea@example.test", "user");
    p.create_user(&admin, "carl@example.test", "user");
    let bea = p.sign_in("bea@example.test", PASSWORD);
    let carl = p.sign_in("carl@example.test", PASSWORD);
    let local = common::local::attach(&p);
    let beas = common::node::enroll(&p, &bea, "bea's laptop", true).node_id;

    // The administrator confines the plane's own host.
    let confined = local.work.to_string_lossy().into_owned();
    let r = p.call(
        &admin,
        "PUT",
        &format!("/api/nodes/{}/allowed_dirs", local.node_id),
        Some(json!({ "allowedDirs": [confined] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());

    // Every operation of the reference that names one node has its rule here.
    let doc = p.get("/api/openapi.json").send().json();
    let rules = node_rules();
    let mut seen = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        if !path.contains("nodes/{id}") {
            continue;
        }
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().unwrap();
            let rule = rules
                .iter()
                .find(|r| r.op == id)
                .unwrap_or_else(|| panic!("{method} {path} ({id}) has no node rule here"));
            seen.push((method.to_uppercase(), path.clone(), *rule));
        }
    }
    assert_eq!(seen.len(), rules.len(), "a rule names no operation");

    let before_local = node_state(&p, &local.node_id);
    let before_beas = node_state(&p, &beas);
    let send = |cookie: &str, method: &str, path: &str, node: &str, rule: &NodeRule| {
        let concrete = path.replace("{id}", node);
        let concrete = if rule.op == "nodeEvents" {
            format!("{concrete}?after=0&waitMs=0")
        } else {
            concrete
        };
        p.call(cookie, method, &concrete, rule.body.map(|b| b(node)))
    };
    for (method, path, rule) in &seen {
        // Bea on the local node.
        let r = send(&bea, method, path, &local.node_id, rule);
        match rule.person_on_local {
            None => assert_eq!(r.status, 200, "{method} {path} as Bea: {}", r.text()),
            Some((status, code)) => {
                assert_eq!(
                    (r.status, r.code()),
                    (status, code.to_owned()),
                    "{method} {path} on the local node as Bea: {}",
                    r.text()
                );
                assert!(
                    r.json().get("events").is_none(),
                    "{method} {path}: {}",
                    r.text()
                );
            }
        }
        // Carl on Bea's node.
        let r = send(&carl, method, path, &beas, rule);
        let (status, code) = rule.stranger_on_node;
        assert_eq!(
            (r.status, r.code()),
            (status, code.to_owned()),
            "{method} {path} on Bea's node as Carl: {}",
            r.text()
        );
    }
    // Neither row changed, and nothing was audited.
    assert_eq!(node_state(&p, &local.node_id), before_local);
    assert_eq!(node_state(&p, &beas), before_beas);
    let row = common::node::node_row(&p, &local.node_id);
    assert_eq!(
        serde_json::from_str::<Vec<String>>(&row.allowed_dirs).unwrap(),
        vec![confined.clone()],
        "the administrator's confinement of the plane's own host holds"
    );
    // The list shows Bea the local node and her own, Carl the local node only.
    let ids = |cookie: &str| -> Vec<String> {
        p.call(cookie, "GET", "/api/nodes", None)
            .json()
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["nodeId"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&bea), vec![local.node_id.clone(), beas.clone()]);
    assert_eq!(ids(&carl), vec![local.node_id.clone()]);

    // What is refused to others is allowed to whom it belongs.
    let r = p.call(
        &bea,
        "PUT",
        &format!("/api/nodes/{beas}/allowed_dirs"),
        Some(json!({ "allowedDirs": ["/srv"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = p.call(
        &bea,
        "GET",
        &format!("/api/nodes/{beas}/events?after=0&waitMs=0"),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = p.call(
        &admin,
        "GET",
        &format!("/api/nodes/{}/events?after=0&waitMs=0", local.node_id),
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = p.call(
        &admin,
        "PUT",
        &format!("/api/nodes/{}/allowed_dirs", local.node_id),
        Some(json!({ "allowedDirs": [] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        common::node::node_row(&p, &local.node_id).allowed_dirs,
        "[]"
    );
}

#[test]
fn the_local_nodes_system_access_is_refused_like_its_deletion_and_nothing_changes() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let local = common::local::attach(&p);
    let deleted = p.call(
        &admin,
        "DELETE",
        &format!("/api/nodes/{}", local.node_id),
        None,
    );
    let before = node_state(&p, &local.node_id);
    for allowed in [false, true] {
        let r = p.call(
            &admin,
            "PUT",
            &format!("/api/nodes/{}/system-access", local.node_id),
            Some(json!({ "allowed": allowed })),
        );
        assert_eq!(
            (r.status, r.code()),
            (deleted.status, deleted.code()),
            "{}",
            r.text()
        );
        assert_eq!((r.status, r.code().as_str()), (403, "LOCAL_NODE"));
    }
    assert_eq!(node_state(&p, &local.node_id), before);
    // Scripts still launch there.
    let (_, key) = p.system_key(&admin);
    let r = p
        .req()
        .method("POST")
        .path("/api/subshells")
        .bearer(&key)
        .json(json!({ "nodeId": local.node_id, "harnessId": "shell", "cwd": local.work.to_string_lossy() }))
        .send();
    assert_eq!(r.status, 201, "{}", r.text());
    // The reference says so.
    let doc = p.get("/api/openapi.json").send().json();
    let op = &doc["paths"]["/api/nodes/{id}/system-access"]["put"];
    assert!(
        op["description"].as_str().unwrap().contains("LOCAL_NODE"),
        "{op}"
    );
    assert!(
        listed_codes_of(op, 403).contains(&"LOCAL_NODE".to_owned()),
        "{op}"
    );
}

fn listed_codes_of(op: &serde_json::Value, status: u16) -> Vec<String> {
    op["responses"][status.to_string()]["x-error-codes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
