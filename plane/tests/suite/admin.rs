//! The administrator's status and deployment views through the real server.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::*;
use sha2::Digest as _;

#[test]
fn status_and_deployment_describe_the_plane_for_an_admin_session_only() {
    let downloads = tempdir("admin-downloads");
    std::fs::write(
        downloads.join("termplane-node-linux-aarch64"),
        b"arm binary",
    )
    .unwrap();
    std::fs::write(downloads.join("termplane-node-Bad Name"), b"ignored").unwrap();
    std::fs::write(downloads.join("README"), b"ignored").unwrap();
    let p = Plane::start_with(Opts {
        downloads_dir: Some(downloads),
        ..Opts::default()
    });
    let admin = p.setup_admin();
    let (_, setup) = p.setup_key(&admin);
    assert_eq!(p.enroll(&setup, "far").status, 201);

    let r = p.get("/api/admin/status").header("Cookie", &admin).send();
    assert_eq!(r.status, 200, "{}", r.text());
    let s = r.json();
    assert_eq!(s["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        s["database"],
        if common::on_postgres() {
            "postgres"
        } else {
            "sqlite"
        }
    );
    assert!(s["databaseBytes"].as_i64().unwrap() > 0, "{s}");
    assert_eq!(s["nodesByLiveness"], serde_json::json!({"offline": 1}));
    assert_eq!(s["nodesByVersion"].as_object().unwrap().len(), 1, "{s}");
    assert_eq!(s["heldNodes"], 0);
    assert_eq!(s["localNode"], false);
    assert_eq!(s["subshellsByState"], serde_json::json!({}));
    p.clock.advance_ms(90_000);
    let s = p
        .get("/api/admin/status")
        .header("Cookie", &admin)
        .send()
        .json();
    assert!(s["uptimeSecs"].as_i64().unwrap() >= 90, "{s}");

    let r = p
        .get("/api/admin/deployment")
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    let d = r.json();
    assert_eq!(d["baseUrl"], p.base.as_str());
    assert_eq!(d["listen"], serde_json::json!([p.addr.to_string()]));
    assert!(d["dataDir"].as_str().unwrap().starts_with('/'));
    assert!(
        d["trustedOrigins"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!(p.origin()))
    );
    let dl = d["nodeDownloads"].as_array().unwrap();
    assert_eq!(dl.len(), 1, "only well-named binaries: {d}");
    assert_eq!(dl[0]["platform"], "linux-aarch64");
    assert_eq!(dl[0]["bytes"], 10);
    assert_eq!(
        dl[0]["sha256"],
        hex::encode(sha2::Sha256::digest(b"arm binary"))
    );
    assert_eq!(
        dl[0]["url"],
        format!("{}/api/downloads/node/linux-aarch64", p.base)
    );

    let (_, key) = p.system_key(&admin);
    for path in ["/api/admin/status", "/api/admin/deployment"] {
        p.get(path).bearer(&key).send().error(403);
        p.get(path).send().error(401);
    }
    p.create_user(&admin, "v@example.test", "user");
    let user = p.sign_in("v@example.test", PASSWORD);
    p.get("/api/admin/status")
        .header("Cookie", &user)
        .send()
        .error(403);
}
