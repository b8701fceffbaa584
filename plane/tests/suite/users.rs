//! Accounts and the audit log through the real server: role changes and deletion under the
//! last-administrator rule, a person's own password change and an administrator's reset (and
//! which sessions each ends), and the audit log's filters and cursor paging. Every refusal is
//! checked for what it left unchanged.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use serde_json::{Value, json};

fn user(p: &Plane, admin: &str, id: &str) -> Value {
    let all = p.call(admin, "GET", "/api/users", None).json();
    all.as_array()
        .unwrap()
        .iter()
        .find(|u| u["id"] == id)
        .cloned()
        .unwrap_or(Value::Null)
}

fn whoami(p: &Plane, cookie: &str) -> u16 {
    p.get("/api/auth/session")
        .header("Cookie", cookie)
        .send()
        .status
}

#[test]
fn the_last_administrator_can_be_neither_demoted_nor_deleted() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let me = p
        .get("/api/auth/session")
        .header("Cookie", &admin)
        .send()
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = p.call(
        &admin,
        "PATCH",
        &format!("/api/users/{me}"),
        Some(json!({"role": "user"})),
    );
    assert_eq!(r.error(409), "LAST_ADMIN");
    assert_eq!(user(&p, &admin, &me)["role"], "admin");

    let b = p.create_user(&admin, "b@example.test", "user");
    // A name change and a promotion.
    let r = p.call(
        &admin,
        "PATCH",
        &format!("/api/users/{b}"),
        Some(json!({"role": "admin", "displayName": "Bea"})),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["role"], "admin");
    assert_eq!(r.json()["displayName"], "Bea");
    // Bad input changes nothing.
    for bad in [
        json!({"role": "service"}),
        json!({"role": "root"}),
        json!({"displayName": ""}),
        json!({"email": "x@y"}),
    ] {
        let r = p.call(&admin, "PATCH", &format!("/api/users/{b}"), Some(bad));
        r.error(400);
    }
    assert_eq!(user(&p, &admin, &b)["displayName"], "Bea");
    // Now there are two: one may step down; then the other is the last again.
    let r = p.call(
        &admin,
        "PATCH",
        &format!("/api/users/{me}"),
        Some(json!({"role": "user"})),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let bea = p.sign_in("b@example.test", PASSWORD);
    let r = p.call(
        &bea,
        "PATCH",
        &format!("/api/users/{b}"),
        Some(json!({"role": "user"})),
    );
    assert_eq!(r.error(409), "LAST_ADMIN");
    let r = p.call(&bea, "DELETE", &format!("/api/users/{b}"), None);
    assert_eq!(r.error(409), "CANNOT_DISABLE_SELF");
    // The former admin's session is no longer an administrator's.
    let r = p.call(&admin, "DELETE", &format!("/api/users/{b}"), None);
    r.error(403);
    assert!(user(&p, &bea, &b).is_object());
    // A disabled admin does not count: with Bea the only enabled admin, promote me, disable
    // Bea, and I am the last again.
    p.call(
        &bea,
        "PATCH",
        &format!("/api/users/{me}"),
        Some(json!({"role": "admin"})),
    );
    let admin = p.sign_in(ADMIN, PASSWORD);
    let r = p.call(
        &admin,
        "POST",
        &format!("/api/users/{b}/disable"),
        Some(json!({})),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = p.call(
        &admin,
        "PATCH",
        &format!("/api/users/{me}"),
        Some(json!({"role": "user"})),
    );
    assert_eq!(r.error(409), "LAST_ADMIN");
    // Deleting Bea works and takes her sessions with her.
    let r = p.call(&admin, "DELETE", &format!("/api/users/{b}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
    assert!(user(&p, &admin, &b).is_null());
    assert_eq!(whoami(&p, &bea), 401);
    let r = p.call(&admin, "DELETE", &format!("/api/users/{b}"), None);
    assert_eq!(r.error(404), "NOT_FOUND");
    // A bearer is refused on every account write.
    let (_, key) = p.system_key(&admin);
    let r = p
        .req()
        .method("PATCH")
        .path(&format!("/api/users/{me}"))
        .bearer(&key)
        .json(json!({"displayName": "x"}))
        .send();
    r.error(403);
}

#[test]
fn a_password_change_needs_the_current_one_and_ends_the_other_sessions_f80() {
    let p = Plane::start();
    let admin = p.setup_admin();
    p.create_user(&admin, "c@example.test", "user");
    let here = p.sign_in("c@example.test", PASSWORD);
    let elsewhere = p.sign_in("c@example.test", PASSWORD);
    let change =
        |cookie: &str, body: Value| p.call(cookie, "POST", "/api/auth/password", Some(body));

    let r = change(
        &here,
        json!({"currentPassword": "not it", "newPassword": "a brand new secret"}),
    );
    assert_eq!(r.error(403), "CURRENT_PASSWORD_WRONG");
    let r = change(
        &here,
        json!({"currentPassword": PASSWORD, "newPassword": "short"}),
    );
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
    assert_eq!(whoami(&p, &elsewhere), 200, "refusals end nothing");
    assert!(
        !p.sign_in("c@example.test", PASSWORD).is_empty(),
        "the old password still works"
    );

    let r = change(
        &here,
        json!({"currentPassword": PASSWORD, "newPassword": "a brand new secret"}),
    );
    assert_eq!(r.status, 204, "{}", r.text());
    assert_eq!(whoami(&p, &here), 200, "this session stays");
    assert_eq!(whoami(&p, &elsewhere), 401, "the others end");
    let old = p
        .post(
            "/api/auth/sign-in",
            json!({"email": "c@example.test", "password": PASSWORD}),
        )
        .send();
    assert_eq!(old.error(401), "INVALID_CREDENTIALS");
    let fresh = p.sign_in("c@example.test", "a brand new secret");

    // Keeping the other sessions, when asked.
    let r = change(
        &fresh,
        json!({"currentPassword": "a brand new secret", "newPassword": "third secret here", "signOutOthers": false}),
    );
    assert_eq!(r.status, 204, "{}", r.text());
    assert_eq!(whoami(&p, &here), 200);

    // A bearer cannot change a password.
    let (_, key) = p.system_key(&admin);
    let r = p
        .req()
        .method("POST")
        .path("/api/auth/password")
        .bearer(&key)
        .json(json!({"currentPassword": "x", "newPassword": "yyyyyyyyyy"}))
        .send();
    r.error(403);
}

#[test]
fn an_administrators_reset_ends_every_session_of_the_account() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let d = p.create_user(&admin, "d@example.test", "user");
    let theirs = p.sign_in("d@example.test", PASSWORD);
    let r = p.call(
        &theirs,
        "POST",
        &format!("/api/users/{d}/password"),
        Some(json!({"newPassword": "chosen by them"})),
    );
    r.error(403);
    let r = p.call(
        &admin,
        "POST",
        &format!("/api/users/{d}/password"),
        Some(json!({"newPassword": "set by the admin"})),
    );
    assert_eq!(r.status, 204, "{}", r.text());
    assert_eq!(whoami(&p, &theirs), 401);
    p.sign_in("d@example.test", "set by the admin");
    assert_eq!(whoami(&p, &admin), 200);
    let audit = p
        .call(&admin, "GET", "/api/audit?action=user.password_reset", None)
        .json();
    assert_eq!(audit.as_array().unwrap().len(), 1, "{audit}");
    assert_eq!(audit[0]["target"], d.as_str());
}

#[test]
fn the_audit_log_filters_and_pages_by_cursor() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let me = p
        .get("/api/auth/session")
        .header("Cookie", &admin)
        .send()
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for i in 0..7 {
        p.create_user(&admin, &format!("u{i}@example.test"), "user");
    }
    let get = |q: &str| {
        let r = p.call(&admin, "GET", &format!("/api/audit{q}"), None);
        assert_eq!(r.status, 200, "{q}: {}", r.text());
        r.json().as_array().unwrap().clone()
    };
    let created = get("?action=user.created");
    assert_eq!(created.len(), 7);
    assert!(created.iter().all(|e| e["action"] == "user.created"));
    assert!(
        created
            .windows(2)
            .all(|w| w[0]["id"].as_i64() > w[1]["id"].as_i64()),
        "newest first"
    );
    // A family of actions.
    let family = get("?action=user.");
    assert!(family.len() >= 7);
    assert!(
        family
            .iter()
            .all(|e| e["action"].as_str().unwrap().starts_with("user."))
    );
    // Paging: 3 + 3 + 1, no overlap, nothing lost.
    let mut seen = Vec::new();
    let mut before = String::new();
    for want in [3, 3, 1, 0] {
        let page = get(&format!("?action=user.created&limit=3{before}"));
        assert_eq!(page.len(), want);
        if let Some(last) = page.last() {
            before = format!("&before={}", last["id"]);
        }
        seen.extend(page.into_iter().map(|e| e["id"].as_i64().unwrap()));
    }
    let all: Vec<i64> = created.iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert_eq!(seen, all);
    // Actor, actor kind, target and time.
    assert_eq!(get(&format!("?actor={me}&action=user.created")).len(), 7);
    assert_eq!(get("?actorKind=system_key").len(), 0);
    assert!(!get("?actorKind=cookie").is_empty());
    let target = created[0]["target"].as_str().unwrap();
    let about = get(&format!("?target={target}"));
    assert!(about.iter().all(|e| e["target"] == target) && !about.is_empty());
    let at = created[0]["at"].as_i64().unwrap();
    assert!(get(&format!("?from={}", at + 1)).is_empty());
    assert_eq!(get(&format!("?to={at}&action=user.created")).len(), 0);
    // Bad queries are refused.
    for q in [
        "?limit=0",
        "?limit=501",
        "?actorKind=robot",
        "?from=soon",
        "?color=red",
    ] {
        let r = p.call(&admin, "GET", &format!("/api/audit{q}"), None);
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{q}");
    }
}

#[test]
fn an_administrator_adds_trusted_origins_and_requests_from_them_pass_the_origin_check() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let sign_in_from = |origin: &str| {
        p.req()
            .method("POST")
            .path("/api/auth/sign-in")
            .header("Origin", origin)
            .json(json!({"email": ADMIN, "password": PASSWORD}))
            .send()
            .status
    };
    assert_eq!(sign_in_from("http://lab.example:8080"), 403);
    let view = p
        .call(&admin, "GET", "/api/settings/trusted-origins", None)
        .json();
    assert_eq!(
        view["configured"],
        json!([p.origin(), "https://extra.example"])
    );
    assert_eq!(view["added"], json!([]));

    let many: Vec<String> = (0..33).map(|i| format!("https://h{i}.example")).collect();
    for bad in [
        json!({"added": ["ftp://x.example"]}),
        json!({"added": ["http://a.example/path"]}),
        json!({"added": ["http://user@a.example"]}),
        json!({"added": ["http://a.example?q=1"]}),
        json!({"added": ["http://"]}),
        json!({"added": ["lab.example"]}),
        json!({"added": ["http://x.example:99999"]}),
        json!({"added": ["http://-.-"]}),
        json!({"added": ["http://a..b"]}),
        json!({"added": many}),
        json!({"origins": []}),
    ] {
        let r = p.call(
            &admin,
            "PUT",
            "/api/settings/trusted-origins",
            Some(bad.clone()),
        );
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{bad}");
    }
    let view = p
        .call(&admin, "GET", "/api/settings/trusted-origins", None)
        .json();
    assert_eq!(view["added"], json!([]), "refusals change nothing");

    let r = p.call(&admin,
        "PUT",
        "/api/settings/trusted-origins",
        Some(
            json!({"added": ["HTTP://Lab.Example:8080/", "https://b.example:443", "https://b.example"]}),
        ),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.json()["added"],
        json!(["http://lab.example:8080", "https://b.example"])
    );
    let public = p.call(&admin, "GET", "/api/settings/public", None).json();
    assert!(
        public["trustedOrigins"]
            .as_array()
            .unwrap()
            .contains(&json!("http://lab.example:8080")),
        "{public}"
    );
    assert_eq!(sign_in_from("http://lab.example:8080"), 200);
    assert_eq!(sign_in_from("http://lab.example:8081"), 403);

    let r = p.call(
        &admin,
        "PUT",
        "/api/settings/trusted-origins",
        Some(json!({"added": []})),
    );
    assert_eq!(r.status, 200);
    assert_eq!(sign_in_from("http://lab.example:8080"), 403);
    let audit = p
        .call(
            &admin,
            "GET",
            "/api/audit?action=settings.trusted_origins_changed",
            None,
        )
        .json();
    assert_eq!(audit.as_array().unwrap().len(), 2);
    let (_, key) = p.system_key(&admin);
    let r = p
        .req()
        .method("GET")
        .path("/api/settings/trusted-origins")
        .bearer(&key)
        .send();
    r.error(403);
}

#[test]
fn an_account_with_live_subshells_is_not_deleted_and_the_refusal_names_them() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let node = common::local::attach(&p);
    let cleo = p.create_user(&admin, "cleo@example.test", "admin");
    let cleo_cookie = p.sign_in("cleo@example.test", PASSWORD);
    let r = p.call(
        &cleo_cookie,
        "POST",
        "/api/subshells",
        Some(
            json!({ "nodeId": node.node_id, "harnessId": "shell", "name": "build watcher",
                     "cwd": node.work.to_string_lossy() }),
        ),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let sub = r.json()["id"].as_str().unwrap().to_owned();
    let r = p.call(&admin, "DELETE", &format!("/api/users/{cleo}"), None);
    assert_eq!(r.error(409), "USER_HAS_LIVE_SUBSHELLS");
    assert_eq!(r.json()["metadata"]["live"], 1, "{}", r.text());
    assert_eq!(
        r.json()["metadata"]["subshells"],
        json!([{ "id": sub, "name": "build watcher" }])
    );
    // Nothing changed: the account, its session and its pane are all still there.
    assert_eq!(user(&p, &admin, &cleo)["email"], "cleo@example.test");
    assert_eq!(whoami(&p, &cleo_cookie), 200);
    let state = || {
        p.call(&admin, "GET", &format!("/api/subshells/{sub}"), None)
            .json()["state"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(state(), "running");
    // Once the pane has ended, the account goes.
    let r = p.call(
        &cleo_cookie,
        "POST",
        &format!("/api/subshells/{sub}/terminate"),
        Some(json!({})),
    );
    assert!(r.status < 300, "{}", r.text());
    termplane_test_support::wait_until(
        "the pane to end",
        std::time::Duration::from_secs(20),
        || (!["running", "stopping", "starting"].contains(&state().as_str())).then_some(()),
    );
    let r = p.call(&admin, "DELETE", &format!("/api/users/{cleo}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
}

#[test]
fn two_administrators_disabling_each_other_at_once_leave_one_enabled() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let ids = p.get("/api/users").header("Cookie", &admin).send().json();
    let a_id = ids
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["role"] == "admin")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let b_id = p.create_user(&admin, "b@example.test", "admin");
    let a_email = common::ADMIN;
    for round in 0..40 {
        let a = p.sign_in(a_email, common::PASSWORD);
        let b = p.sign_in("b@example.test", common::PASSWORD);
        let barrier = std::sync::Barrier::new(2);
        let (ra, rb) = std::thread::scope(|s| {
            let ta = s.spawn(|| {
                barrier.wait();
                p.call(
                    &a,
                    "POST",
                    &format!("/api/users/{b_id}/disable"),
                    Some(json!({})),
                )
            });
            let tb = s.spawn(|| {
                barrier.wait();
                p.call(
                    &b,
                    "POST",
                    &format!("/api/users/{a_id}/disable"),
                    Some(json!({})),
                )
            });
            (ta.join().unwrap(), tb.join().unwrap())
        });
        // One of them is disabled; the other never is, whatever the order.
        let oks = [ra.status, rb.status].iter().filter(|s| **s == 200).count();
        assert_eq!(oks, 1, "round {round}: {} / {}", ra.text(), rb.text());
        let (winner, loser_id, lost) = if ra.status == 200 {
            (&a, &b_id, &rb)
        } else {
            (&b, &a_id, &ra)
        };
        assert!(
            lost.status == 401 || lost.error(409) == "LAST_ADMIN",
            "round {round}: {}",
            lost.text()
        );
        let users = p.get("/api/users").header("Cookie", winner).send().json();
        let enabled_admins = users
            .as_array()
            .unwrap()
            .iter()
            .filter(|u| u["role"] == "admin" && u["disabled"] == false)
            .count();
        assert_eq!(enabled_admins, 1, "round {round}: {users}");
        let r = p.call(
            winner,
            "POST",
            &format!("/api/users/{loser_id}/enable"),
            Some(json!({})),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    }
}

#[test]
fn a_blank_name_is_refused_and_creates_nothing() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let before = p.get("/api/users").header("Cookie", &admin).send().json();
    let r = p.call(
        &admin,
        "POST",
        "/api/users",
        Some(json!({"email": "blank@example.test", "displayName": "   ", "password": PASSWORD, "role": "user"})),
    );
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
    assert_eq!(r.json()["metadata"]["field"], "displayName");
    assert!(r.text().contains("must not be blank"), "{}", r.text());
    assert_eq!(
        p.get("/api/users").header("Cookie", &admin).send().json(),
        before
    );
    let r = p.call(
        &admin,
        "POST",
        "/api/workspaces",
        Some(json!({"name": "\u{3000}\t", "nodeId": "0123456789abcdef0123456789abcdef", "path": "/tmp"})),
    );
    assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR");
    assert_eq!(r.json()["metadata"]["field"], "name");
    // A name with blanks around it is a name.
    let r = p.call(
        &admin,
        "POST",
        "/api/users",
        Some(json!({"email": "bea@example.test", "displayName": " Bea ", "password": PASSWORD, "role": "user"})),
    );
    assert_eq!(r.status, 201, "{}", r.text());
}
