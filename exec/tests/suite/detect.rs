//! `detect`: binaries found by the rules, raw version text, and exactly the named environment
//! variables.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use common::{Node, TempDir};
use serde_json::json;

fn script(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn detect_answers_raw_version_text_and_exactly_the_named_variables() {
    let dir = TempDir::new("detect");
    let out = script(
        dir.path(),
        "harness-out",
        "echo \"harness-out 1.2.3 (build 7)\"",
    );
    let err = script(dir.path(), "harness-err", "echo 'v0.9.1-beta' >&2; exit 1");
    let e = Node::new("detect-exec");
    let r = e.run(json!({
            "type": "detect",
            "rules": [
                { "harnessId": "a", "resolve": { "binaryName": "no-such-harness-binary", "knownPaths": [out] }, "versionArgs": ["--version"] },
                { "harnessId": "b", "resolve": { "binaryName": "no-such-harness-binary", "knownPaths": [err] }, "versionArgs": ["-V"] },
                { "harnessId": "c", "resolve": { "binaryName": "no-such-harness-binary" } },
            ],
            "envNames": ["PATH", "TERMPLANE_SURELY_UNSET_NAME", "BAD NAME"],
        }))
        .unwrap();
    let h = r["harnesses"].as_array().unwrap();
    assert_eq!(h.len(), 3);
    assert_eq!(h[0]["installed"], true);
    assert_eq!(h[0]["binaryPath"], out.as_str());
    assert_eq!(h[0]["version"], "harness-out 1.2.3 (build 7)");
    // Nothing on standard output: the version text comes from standard error.
    assert_eq!(h[1]["version"], "v0.9.1-beta");
    assert_eq!(h[2]["installed"], false);
    assert!(h[2]["reason"].as_str().unwrap().contains("not found"));
    let env = r["env"].as_object().unwrap();
    assert_eq!(env.len(), 3, "{env:?}");
    assert_eq!(env["PATH"], std::env::var("PATH").unwrap().as_str());
    assert!(env["TERMPLANE_SURELY_UNSET_NAME"].is_null());
    assert!(env["BAD NAME"].is_null());
    // envNames is required.
    assert!(
        serde_json::from_value::<termplane_proto::command::Command>(
            json!({ "type": "detect", "rules": [] })
        )
        .is_err()
    );
}

#[test]
fn a_known_path_written_from_home_is_found_in_the_nodes_home() {
    let home = TempDir::new("detect-home");
    let bin = home.path().join(".local/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let found = script(&bin, "harness-home", "echo 'home harness 4.5'");
    let e = Node::with_config("detect-home-exec", |c| {
        c.home_dir = home.path().to_path_buf()
    });
    let r = e
        .run(json!({
            "type": "detect",
            "rules": [{
                "harnessId": "a",
                "resolve": {
                    "binaryName": "no-such-harness-binary",
                    "knownPaths": ["~/.local/bin/no-such-harness-binary", "~/.local/bin/harness-home"],
                },
                "versionArgs": ["--version"],
            }],
            "envNames": [],
        }))
        .unwrap();
    let h = &r["harnesses"][0];
    assert_eq!(h["installed"], true, "{r}");
    assert_eq!(h["binaryPath"], found.as_str(), "{r}");
    assert_eq!(h["version"], "home harness 4.5", "{r}");
}

#[test]
fn the_version_probes_of_one_detect_run_side_by_side() {
    // Each probe notes when it starts and when it ends. Run one after another, each would end
    // before the next starts; side by side, every one starts before any ends.
    let dir = TempDir::new("detect-slow");
    let log = dir.path().join("probes.log");
    let body = format!(
        "echo start >> '{0}'; sleep 3; echo end >> '{0}'; echo slow 1.0",
        log.display()
    );
    let rules: Vec<_> = (0..4)
        .map(|i| {
            let p = script(dir.path(), &format!("slow-{i}"), &body);
            json!({ "harnessId": format!("h{i}"), "resolve": { "binaryName": "no-such-harness-binary", "knownPaths": [p] }, "versionArgs": ["--version"] })
        })
        .collect();
    let e = Node::new("detect-slow-exec");
    let r = e
        .run(json!({ "type": "detect", "rules": rules, "envNames": [] }))
        .unwrap();
    for h in r["harnesses"].as_array().unwrap() {
        assert_eq!(h["version"], "slow 1.0", "{r}");
    }
    let lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines.len(), 8, "{lines:?}");
    assert!(
        lines[..4].iter().all(|l| l == "start"),
        "a probe ended before another started: {lines:?}"
    );
}
