//! The maintenance mirror: kept in its file by default (the node daemon's), or in memory only for
//! a host without one; either way `set_maintenance` turns launches away and the watch reports
//! the change once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use common::Node;
use serde_json::json;
use termplane_exec::{Daemonless, ExecConfig, Executor, Silent};

fn maintenance(on: bool) -> serde_json::Value {
    json!({ "type": "set_maintenance", "on": on, "changedAt": "2026-11-22T00:00:00.000Z" })
}

fn launch(n: &Node) -> Result<serde_json::Value, String> {
    n.run(json!({
        "type": "launch", "subshellId": "ad", "argv": ["true"],
        "resolve": { "binaryName": "true" }, "cwd": n.dir.path().to_string_lossy(),
        "harnessId": "shell", "cols": 80, "rows": 24,
    }))
}

#[test]
fn the_mirror_is_kept_in_its_file_and_a_new_executor_reads_it_back() {
    let n = Node::new("mnt-file");
    let file = n.dir.path().join("data/maintenance.json");
    assert_eq!(n.exec.maintenance_watch().path(), Some(file.as_path()));
    let r = n.run(maintenance(true)).unwrap();
    assert_eq!(r["on"], true);
    assert!(file.exists());
    assert_eq!(launch(&n).unwrap_err(), "in maintenance");
    assert!(n.exec.maintenance_watch().check().unwrap().on);
    assert!(n.exec.maintenance_watch().check().is_none());
    // A second executor on the same data directory (a restarted daemon) starts in maintenance.
    let cfg = ExecConfig::new(n.dir.path().join("data"));
    let (again, _events) = Executor::new(cfg, std::sync::Arc::new(Daemonless(Silent)));
    assert!(again.maintenance_watch().current().unwrap().on);
}

#[test]
fn without_a_file_the_mirror_is_kept_in_memory_and_still_turns_launches_away() {
    let n = Node::with_config("mnt-mem", |c| c.maintenance_file = None);
    assert_eq!(n.exec.maintenance_watch().path(), None);
    assert!(n.exec.maintenance_watch().current().is_none());
    n.run(maintenance(true)).unwrap();
    assert_eq!(launch(&n).unwrap_err(), "in maintenance");
    assert!(n.exec.maintenance_watch().check().unwrap().on);
    assert!(n.exec.maintenance_watch().check().is_none());
    n.run(maintenance(false)).unwrap();
    assert!(!n.exec.maintenance_watch().check().unwrap().on);
    if let Err(e) = launch(&n) {
        assert_ne!(e, "in maintenance");
    }
    // Nothing was written anywhere under the data directory.
    let data = n.dir.path().join("data");
    let names: Vec<_> = std::fs::read_dir(&data)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(
        !names
            .iter()
            .any(|n| n.to_string_lossy().contains("maintenance")),
        "{names:?}"
    );
}
