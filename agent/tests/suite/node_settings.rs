//! Node commands that change the node daemon's own settings, through the executor and the
//! daemon's host: `set_server_url`, `set_log_level` (and its refusal while forced).

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::sync::Arc;

use crate::common::{TempDir, cmd};
use serde_json::json;
use termplane_exec::{ExecConfig, Executor};
use termplane_node::config::NodeConfig;
use termplane_node::host::NodeHost;

fn config_json(server: &str) -> serde_json::Value {
    json!({
        "serverUrl": server,
        "wsUrl": format!("{}/ws/node", server.replacen("http", "ws", 1)),
        "nodeId": "n1",
        "nodeKey": "tp_secret",
        "signingPublicJwk": { "kty": "EC", "crv": "P-256", "x": "AAAA", "y": "AAAA" },
        "linkSecret": "s",
        "linkPublic": "p",
        "identityKeyPath": "/nowhere",
    })
}

fn executor(dir: &Path, config: Option<&Path>) -> Executor {
    let data = dir.join("data");
    let mut host = NodeHost::new(&data);
    host.config_path = config.map(Path::to_path_buf);
    let mut cfg = ExecConfig::new(data);
    cfg.home_dir = dir.to_path_buf();
    Executor::new(cfg, Arc::new(host)).0
}

fn run(e: &Executor, v: serde_json::Value) -> Result<serde_json::Value, String> {
    e.execute(&cmd(v))
}

#[test]
fn set_server_url_rewrites_both_urls_and_a_bad_url_changes_nothing() {
    let dir = TempDir::new("url");
    let path = dir.path().join("node.json");
    std::fs::write(&path, config_json("http://old.example:7420").to_string()).unwrap();
    let before = NodeConfig::load(&path).unwrap();
    let e = executor(dir.path(), Some(&path));
    let r = run(
        &e,
        json!({ "type": "set_server_url", "url": "https://plane.example/tp" }),
    )
    .unwrap();
    assert_eq!(r["serverUrl"], "https://plane.example/tp");
    assert_eq!(r["wsUrl"], "wss://plane.example/tp/ws/node");
    assert_eq!(r["restartRequired"], true);
    let after = NodeConfig::load(&path).unwrap();
    assert_eq!(after.server_url, "https://plane.example/tp");
    assert_eq!(after.ws_url, "wss://plane.example/tp/ws/node");
    // Everything else is kept, and the file stays private.
    assert_eq!(after.node_key, before.node_key);
    assert_eq!(after.node_id, before.node_id);
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let kept = std::fs::read(&path).unwrap();
    for bad in ["ftp://x", "not a url", "http://", "http://h/\n"] {
        assert!(
            run(&e, json!({ "type": "set_server_url", "url": bad })).is_err(),
            "{bad:?} was accepted"
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            kept,
            "{bad:?} changed the file"
        );
    }
    // A node run without a config file has nothing to rewrite.
    let bare = executor(dir.path(), None);
    let err = run(
        &bare,
        json!({ "type": "set_server_url", "url": "http://h:1" }),
    )
    .unwrap_err();
    assert!(err.contains("no config file"), "{err}");
}

#[test]
fn set_log_level_persists_and_switches_the_level() {
    if std::env::var_os("TERMPLANE_DEBUG_LOGGING").is_some() {
        return; // the forced case is the next test's child run
    }
    let dir = TempDir::new("lvl");
    let e = executor(dir.path(), None);
    let r = run(&e, json!({ "type": "set_log_level", "level": "debug" })).unwrap();
    assert_eq!(r["level"], "debug");
    assert!(termplane_node::logging::debug_enabled());
    let file = dir.path().join("data/log-level");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "debug");
    run(&e, json!({ "type": "set_log_level", "level": "info" })).unwrap();
    assert!(!termplane_node::logging::debug_enabled());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "info");
    // An unknown level never reaches the executor: it is refused at decode.
    assert!(
        serde_json::from_value::<termplane_proto::command::Command>(
            json!({ "type": "set_log_level", "level": "trace" })
        )
        .is_err()
    );
}

/// Runs in a child test process with `TERMPLANE_DEBUG_LOGGING=1` (the variable cannot be set
/// inside this process without `unsafe`).
#[test]
fn set_log_level_is_refused_while_the_environment_forces_debug() {
    if std::env::var_os("TERMPLANE_LEVEL_CHILD").is_some() {
        let dir = TempDir::new("forced");
        let e = executor(dir.path(), None);
        let err = run(&e, json!({ "type": "set_log_level", "level": "info" })).unwrap_err();
        assert!(err.contains("TERMPLANE_DEBUG_LOGGING"), "{err}");
        assert!(!dir.path().join("data/log-level").exists());
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "node_settings::set_log_level_is_refused_while_the_environment_forces_debug",
            "--test-threads=1",
        ])
        .env("TERMPLANE_DEBUG_LOGGING", "1")
        .env("TERMPLANE_LEVEL_CHILD", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("1 passed"), "{text}");
}
