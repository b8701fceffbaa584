//! `detect`: binaries found by the rules, raw version text, and exactly the named environment
//! variables.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

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
