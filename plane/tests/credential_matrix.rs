//! Every credential kind against every REST operation, read from the plane's own OpenAPI
//! document, checked against two tables: the credential rules of each class (`x-credential`),
//! and the spec's route-family rules ("Route families" and "Authentication"), which every route
//! must match a row of — so a new route cannot ship without its row here.
//!
//! The callers: no credential, a person's session, an administrator's session, a system key,
//! and a pane's own token (from a real pane on the local node's tmux). Path parameters name no
//! row; bodies are `{}`. A refusal the class promises must come with its code; an accepted
//! credential may still meet a 400, 404 or 409, never 401 or 403 for who it is.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::{Duration, Instant};

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

fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
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
