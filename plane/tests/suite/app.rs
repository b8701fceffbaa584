//! The browser app as the plane serves it (its page at `/` and at the app's own routes, hashed
//! assets cacheable, gzip on request, the API's 404 untouched) and the instance name set at first
//! run and renamed by an administrator.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::io::Read;

use common::*;
use serde_json::json;

/// The built page, as `npm run build` left it in `plane/ui/dist`.
fn built_index() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/ui/dist/index.html")).unwrap()
}

/// The first `/assets/…` address the page names.
fn first_asset(index: &str) -> String {
    let at = index.find("/assets/").expect("the page names an asset");
    let rest = &index[at..];
    rest[..rest.find('"').unwrap()].to_owned()
}

#[test]
fn the_app_page_answers_at_the_root_and_at_its_own_routes_and_is_never_cached_stale() {
    let p = Plane::start();
    let index = built_index();
    for path in [
        "/",
        "/subshells",
        "/subshells/0123abcd",
        "/settings/keys",
        "/sign-in",
    ] {
        let r = p.get(path).send();
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.text(), index, "{path}");
        assert_eq!(
            r.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{path}"
        );
        assert_eq!(r.header("cache-control"), Some("no-cache"), "{path}");
        let csp = r.header("content-security-policy").unwrap();
        assert!(csp.contains("script-src 'self';"), "{csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert_eq!(r.header("x-frame-options"), Some("DENY"));
    }
}

#[test]
fn unknown_api_reference_and_asset_paths_stay_404_error_bodies() {
    let p = Plane::start();
    for path in [
        "/api/nope",
        "/api",
        "/docs/nope",
        "/ws/nope",
        "/assets/nope-123.js",
    ] {
        let r = p.get(path).send();
        assert_eq!(r.error(404), "NOT_FOUND", "{path}");
    }
    // A write to an app route is not the page.
    let r = p.post("/subshells", json!({})).send();
    r.error(404);
}

#[test]
fn hashed_assets_are_cacheable_and_gzip_only_when_accepted() {
    let p = Plane::start();
    let asset = first_asset(&built_index());
    let on_disk = std::fs::read(format!("{}/ui/dist{asset}", env!("CARGO_MANIFEST_DIR"))).unwrap();

    let plain = p.get(&asset).send();
    assert_eq!(plain.status, 200);
    assert_eq!(plain.body, on_disk);
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(
        plain.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(plain.header("vary"), Some("accept-encoding"));

    let zipped = p
        .get(&asset)
        .header("Accept-Encoding", "br, gzip;q=0.8")
        .send();
    assert_eq!(zipped.status, 200);
    if on_disk.len() > 64 {
        assert_eq!(zipped.header("content-encoding"), Some("gzip"));
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&zipped.body[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, on_disk);
    }

    let refused = p
        .get(&asset)
        .header("Accept-Encoding", "gzip;q=0, identity")
        .send();
    assert_eq!(refused.header("content-encoding"), None);
    assert_eq!(refused.body, on_disk);
}

#[test]
fn setup_names_the_instance_and_a_bad_name_creates_nothing() {
    let p = Plane::start();
    let long = "n".repeat(65);
    let r = p
        .post(
            "/api/setup",
            json!({"email": ADMIN, "displayName": "Admin", "password": PASSWORD, "instanceName": long}),
        )
        .send();
    r.error(400);
    let status = p.get("/api/setup/status").send().json();
    assert_eq!(
        status["setupDone"], false,
        "a refused setup leaves no account"
    );

    let r = p
        .post(
            "/api/setup",
            json!({"email": ADMIN, "displayName": "Admin", "password": PASSWORD, "instanceName": "Lab plane ☂"}),
        )
        .send();
    assert_eq!(r.status, 201, "{}", r.text());
    let s = p.get("/api/settings/instance").send().json();
    assert_eq!(s["displayName"], "Lab plane ☂");
}

#[test]
fn only_a_cookie_admin_renames_the_instance_and_the_rename_is_audited() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let before = p.get("/api/settings/instance").send().json()["displayName"].clone();
    let put = |body: serde_json::Value| {
        p.req()
            .method("PUT")
            .path("/api/settings/instance")
            .header("Origin", &p.origin())
            .json(body)
    };

    let user = p.create_user(&admin, "u@example.test", "user");
    let _ = user;
    let user_cookie = p.sign_in("u@example.test", PASSWORD);
    put(json!({"displayName": "Mine"}))
        .header("Cookie", &user_cookie)
        .send()
        .error(403);
    let (key, _) = p.system_key(&admin);
    p.req()
        .method("PUT")
        .path("/api/settings/instance")
        .bearer(&key)
        .json(json!({"displayName": "Mine"}))
        .send()
        .error(403);
    put(json!({"displayName": ""}))
        .header("Cookie", &admin)
        .send()
        .error(400);
    put(json!({"displayName": "x", "extra": 1}))
        .header("Cookie", &admin)
        .send()
        .error(400);
    assert_eq!(
        p.get("/api/settings/instance").send().json()["displayName"],
        before,
        "refusals change nothing"
    );

    let r = put(json!({"displayName": "Build farm"}))
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["displayName"], "Build farm");
    assert_eq!(
        p.get("/api/settings/instance").send().json()["displayName"],
        "Build farm"
    );
    let audit = p.get("/api/audit").header("Cookie", &admin).send().json();
    let text = audit.to_string();
    assert!(text.contains("settings.instance_renamed"), "{text}");
}
