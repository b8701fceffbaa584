//! Network plugins through the real server: an extra address listens at once and serves the
//! same API, its origin is trusted only while it listens, one that cannot bind is refused with
//! the reason and changes nothing, and only an administrator's session manages them.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::net::TcpStream;
use std::time::Duration;

use common::*;
use serde_json::json;

fn trusted(p: &Plane, cookie: &str) -> Vec<String> {
    p.call(cookie, "GET", "/api/settings/public", None).json()["trustedOrigins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn an_extra_address_listens_at_once_and_its_origin_is_trusted_while_it_does() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let before = trusted(&p, &admin);

    let r = p.call(
        &admin,
        "POST",
        "/api/network",
        Some(json!({"name": "lan", "address": "127.0.0.1:0"})),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let l = r.json();
    assert_eq!(l["state"], "running");
    let address: std::net::SocketAddr = l["address"].as_str().unwrap().parse().unwrap();
    assert_ne!(address.port(), 0);
    assert_eq!(l["origin"], format!("http://{address}"));
    let id = l["id"].as_str().unwrap().to_owned();

    // The same API answers there, and a browser there is trusted.
    let mut other = Req {
        addr: address,
        ..p.get("/api/setup/status")
    };
    assert_eq!(other.send().json()["setupDone"], true);
    other = Req {
        addr: address,
        ..p.req()
            .method("POST")
            .path("/api/auth/sign-in")
            .header("Origin", &format!("http://{address}"))
            .json(json!({"email": ADMIN, "password": PASSWORD}))
    };
    assert_eq!(other.send().status, 200);
    assert!(trusted(&p, &admin).contains(&format!("http://{address}")));
    let list = p.call(&admin, "GET", "/api/network", None).json();
    assert_eq!(list.as_array().unwrap().len(), 1);

    // An address in use is refused with the reason; nothing is stored or trusted.
    let r = p.call(
        &admin,
        "POST",
        "/api/network",
        Some(json!({"name": "taken", "address": p.addr.to_string()})),
    );
    assert_eq!(r.error(409), "NETWORK_BIND_FAILED");
    assert!(r.json()["metadata"]["reason"].as_str().unwrap().len() > 3);
    for bad in [
        json!({"name": "x", "address": "not an address"}),
        json!({"name": "x", "address": "127.0.0.1"}),
        json!({"name": "", "address": "127.0.0.1:0"}),
        json!({"name": "x", "address": "127.0.0.1:0", "origin": "ftp://x"}),
    ] {
        let r = p.call(&admin, "POST", "/api/network", Some(bad.clone()));
        assert_eq!(r.error(400), "INPUT_VALIDATION_ERROR", "{bad}");
    }
    let list = p.call(&admin, "GET", "/api/network", None).json();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");

    // A named origin (an overlay network's host name).
    let r = p.call(&admin,
        "POST",
        "/api/network",
        Some(
            json!({"name": "tailnet", "address": "127.0.0.1:0", "origin": "http://box.tailnet.example:7420"}),
        ),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let named = r.json()["id"].as_str().unwrap().to_owned();
    assert!(trusted(&p, &admin).contains(&"http://box.tailnet.example:7420".to_owned()));

    // Removing stops the listener and its trust.
    let r = p.call(&admin, "DELETE", &format!("/api/network/{id}"), None);
    assert_eq!(r.status, 204, "{}", r.text());
    termplane_test_support::wait_until(
        &format!("{address} to stop accepting connections"),
        Duration::from_secs(10),
        || {
            TcpStream::connect_timeout(&address, Duration::from_millis(200))
                .is_err()
                .then_some(())
        },
    );
    assert!(!trusted(&p, &admin).contains(&format!("http://{address}")));
    p.call(&admin, "DELETE", &format!("/api/network/{named}"), None);
    assert_eq!(trusted(&p, &admin), before);
    p.call(&admin, "DELETE", &format!("/api/network/{id}"), None)
        .error(404);

    // An administrator's session only.
    let (_, key) = p.system_key(&admin);
    p.get("/api/network").bearer(&key).send().error(403);
    p.create_user(&admin, "n@example.test", "user");
    let user = p.sign_in("n@example.test", PASSWORD);
    p.call(&user, "GET", "/api/network", None).error(403);
    let audit = p
        .call(&admin, "GET", "/api/audit?action=network.", None)
        .json();
    assert_eq!(audit.as_array().unwrap().len(), 4, "{audit}");
}
