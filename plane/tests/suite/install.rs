//! The node installer through the real server: `GET /install.sh` (the address written into it
//! and the digests of the programs served) and the commands an active setup key's view carries.
//! The script itself is run end to end, with a real node program, in the node daemon's tests
//! (`agent/tests/suite/install.rs`).

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::io::Write as _;
use std::net::TcpStream;
use std::process::Command;

use common::*;
use serde_json::{Value, json};
use sha2::Digest as _;

/// `GET /install.sh` sent with `Host: host`.
fn script_for_host(p: &Plane, host: &str) -> Resp {
    let mut s = TcpStream::connect(p.addr).unwrap();
    write!(
        s,
        "GET /install.sh HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    read_response(&mut s, "GET")
}

/// The value of the script's `NAME='…'` line.
fn assigned(script: &str, name: &str) -> String {
    let prefix = format!("{name}=");
    script
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {name}= line in:\n{script}"))
        .to_owned()
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(sha2::Sha256::digest(bytes))
}

#[test]
fn the_script_names_the_trusted_origin_the_caller_used_and_never_a_host_it_made_up() {
    let p = Plane::start();
    let admin = p.setup_admin();
    // An origin an administrator added counts like a configured one.
    let r = p.call(
        &admin,
        "PUT",
        "/api/settings/trusted-origins",
        Some(json!({ "added": ["http://tailnet-host:7420"] })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let here = p.addr.to_string();
    let cases = [
        // The base URL as it is.
        (here.as_str(), format!("'{}'", p.base)),
        // A configured extra origin (https), with or without its default port.
        ("extra.example", "'https://extra.example'".to_owned()),
        ("EXTRA.example:443", "'https://extra.example'".to_owned()),
        ("tailnet-host:7420", "'http://tailnet-host:7420'".to_owned()),
        // Anything else gets the base URL: the header chooses, it never supplies.
        ("evil.example", format!("'{}'", p.base)),
        ("extra.example:8443", format!("'{}'", p.base)),
        ("tailnet-host", format!("'{}'", p.base)),
    ];
    for (host, want) in cases {
        let r = script_for_host(&p, host);
        assert_eq!(r.status, 200, "{host}: {}", r.text());
        assert_eq!(
            r.header("content-type"),
            Some("text/plain; charset=utf-8"),
            "{host}"
        );
        assert_eq!(r.header("cache-control"), Some("no-store"), "{host}");
        let script = r.text();
        assert!(script.starts_with("#!/bin/sh\n"), "{script}");
        assert_eq!(assigned(&script, "PLANE_URL"), want, "Host: {host}");
        assert!(!script.contains("evil.example"), "{script}");
    }
}

#[test]
fn the_script_carries_the_digest_of_every_program_served_and_nothing_else() {
    let downloads = tempdir("install-downloads");
    std::fs::write(downloads.join("termplane-node-linux-x86_64"), b"x86 build").unwrap();
    std::fs::write(
        downloads.join("termplane-node-darwin-aarch64"),
        b"mac build",
    )
    .unwrap();
    std::fs::write(downloads.join("termplane-node-Bad Name"), b"ignored").unwrap();
    std::fs::write(downloads.join("README"), b"ignored").unwrap();
    let p = Plane::start_with(Opts {
        downloads_dir: Some(downloads.clone()),
        ..Opts::default()
    });
    let script = p.get("/install.sh").send().text();
    assert_eq!(
        assigned(&script, "SERVED"),
        format!(
            "'darwin-aarch64={} linux-x86_64={}'",
            sha256_hex(b"mac build"),
            sha256_hex(b"x86 build")
        )
    );
    // The digests are the plane's own, as its downloads answer them.
    let r = p.get("/api/downloads/node/linux-x86_64").send();
    assert_eq!(
        r.header("x-content-sha256"),
        Some(sha256_hex(b"x86 build").as_str())
    );

    // A program replaced on disk is served with its new digest.
    std::fs::write(
        downloads.join("termplane-node-linux-x86_64"),
        b"x86 build 2",
    )
    .unwrap();
    std::fs::remove_file(downloads.join("termplane-node-darwin-aarch64")).unwrap();
    let script = p.get("/install.sh").send().text();
    assert_eq!(
        assigned(&script, "SERVED"),
        format!("'linux-x86_64={}'", sha256_hex(b"x86 build 2"))
    );
    let _ = std::fs::remove_dir_all(downloads);
}

#[test]
fn the_served_script_parses_under_sh_and_passes_shellcheck() {
    let downloads = tempdir("install-lint");
    std::fs::write(downloads.join("termplane-node-linux-x86_64"), b"x").unwrap();
    let p = Plane::start_with(Opts {
        downloads_dir: Some(downloads.clone()),
        ..Opts::default()
    });
    let file = downloads.join("install.sh");
    std::fs::write(&file, p.get("/install.sh").send().body).unwrap();
    for shell in ["sh", "dash", "bash"] {
        let Ok(out) = Command::new(shell).arg("-n").arg(&file).output() else {
            assert_ne!(shell, "sh", "no sh on PATH");
            continue;
        };
        assert!(
            out.status.success(),
            "{shell} -n: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A broken copy fails, so the check above can fail.
    std::fs::write(downloads.join("broken.sh"), "main() {\n  case $1 in\n}\n").unwrap();
    let out = Command::new("sh")
        .arg("-n")
        .arg(downloads.join("broken.sh"))
        .output()
        .unwrap();
    assert!(!out.status.success(), "sh -n accepted a broken script");
    match Command::new("shellcheck")
        .args(["--shell=sh", "--severity=style"])
        .arg(&file)
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "shellcheck:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "shellcheck is missing: apt-get install shellcheck"
            );
            eprintln!("note: shellcheck not found; the served script was not linted");
        }
    }
    let _ = std::fs::remove_dir_all(downloads);
}

#[test]
fn an_active_setup_keys_view_carries_the_commands_and_a_spent_keys_none() {
    let downloads = tempdir("install-commands");
    std::fs::write(downloads.join("termplane-node-linux-x86_64"), b"x86 build").unwrap();
    let p = Plane::start_with(Opts {
        downloads_dir: Some(downloads.clone()),
        ..Opts::default()
    });
    let admin = p.setup_admin();
    let r = p.call(&admin, "POST", "/api/setup-keys", None);
    assert_eq!(r.status, 201, "{}", r.text());
    let minted = r.json();
    let key = minted["key"].as_str().unwrap();
    let base = &p.base;
    let digest = sha256_hex(b"x86 build");
    let want = json!({
        "planeUrl": base,
        "scriptUrl": format!("{base}/install.sh"),
        "command": format!("curl -fsSL {base}/install.sh | sh -s -- --setup-key {key}"),
        "downloads": [{
            "platform": "linux-x86_64",
            "url": format!("{base}/api/downloads/node/linux-x86_64"),
            "bytes": 9,
            "sha256": digest,
            "commands": [
                format!("mkdir -p ~/.local/bin && curl -fsSLo ~/.local/bin/termplane-node {base}/api/downloads/node/linux-x86_64"),
                format!("echo \"{digest}  $HOME/.local/bin/termplane-node\" | sha256sum -c && chmod 755 ~/.local/bin/termplane-node"),
            ],
        }],
        "enroll": format!("~/.local/bin/termplane-node enroll --server {base} --setup-key {key}"),
        "service": "~/.local/bin/termplane-node service install",
        "foreground": "~/.local/bin/termplane-node run",
    });
    assert_eq!(minted["install"], want);

    // The list shows the same commands for the key while it is active.
    let listed = |p: &Plane| -> Value {
        let r = p.get("/api/setup-keys").header("Cookie", &admin).send();
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["id"] == minted["id"])
            .cloned()
            .unwrap()
    };
    assert_eq!(listed(&p)["install"], want);

    // Spent, the key is no longer shown, and neither are commands naming it.
    assert_eq!(p.enroll(key, "far").status, 201);
    let spent = listed(&p);
    assert_eq!(spent["status"], "used", "{spent}");
    assert_eq!(spent["key"], Value::Null, "{spent}");
    assert_eq!(spent["install"], Value::Null, "{spent}");
    assert!(!spent.to_string().contains(key), "{spent}");
    let _ = std::fs::remove_dir_all(downloads);
}
