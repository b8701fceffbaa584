//! Shared helpers: temp directories, a private tmux per test, commands from JSON.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::sync::Arc;

use termplane_exec::{Daemonless, ExecConfig, Executor, Silent};
use termplane_proto::Command;
use termplane_proto::event::Event;

#[allow(unused_imports)]
pub use termplane_test_support::{TempDir, wait_for};

/// Whether tmux is usable. With `CI` set a missing tmux fails the test.
pub fn tmux_ok() -> bool {
    let ok = std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "tmux is missing: install it (apt-get install -y tmux / brew install tmux)"
        );
        eprintln!("note: tmux is not installed; this test checked nothing");
    }
    ok
}

/// An executor on its own data dir and tmux socket, with a host that runs no daemon; the
/// server dies with it.
pub struct Node {
    pub exec: Arc<Executor>,
    pub events: std::sync::mpsc::Receiver<Event>,
    pub dir: TempDir,
}

impl Node {
    pub fn new(tag: &str) -> Self {
        Self::with_config(tag, |_| {})
    }

    /// As [`Node::new`], with the configuration changed by `edit` first.
    pub fn with_config(tag: &str, edit: impl FnOnce(&mut ExecConfig)) -> Self {
        let dir = TempDir::new(tag);
        let mut cfg = ExecConfig::new(dir.path().join("data"));
        cfg.home_dir = dir.path().to_path_buf();
        edit(&mut cfg);
        let (exec, events) = Executor::new(cfg, Arc::new(Daemonless(Silent)));
        Self {
            exec: Arc::new(exec),
            events,
            dir,
        }
    }

    pub fn run(&self, v: serde_json::Value) -> Result<serde_json::Value, String> {
        self.exec.execute(&cmd(v))
    }

    /// Launches pane `id` running `cat` (it echoes what is typed) in the node's directory, 80×24.
    pub fn launch_cat(&self, id: &str) {
        let cwd = self.dir.path().to_string_lossy().into_owned();
        self.run(serde_json::json!({
            "type": "launch", "subshellId": id, "argv": ["cat"],
            "resolve": { "binaryName": "cat" }, "cwd": cwd, "harnessId": "shell",
            "cols": 80, "rows": 24,
        }))
        .unwrap();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.exec.stop_server();
    }
}

pub fn cmd(v: serde_json::Value) -> Command {
    serde_json::from_value(v).expect("a valid command")
}

pub fn b64(s: &[u8]) -> String {
    termplane_proto::key::b64url_encode(s)
}

/// Whether `name` is a locale variable (`LANG`, `LANGUAGE`, `LC_*`).
fn is_locale_var(name: &std::ffi::OsStr) -> bool {
    name == "LANG" || name == "LANGUAGE" || name.to_str().is_some_and(|n| n.starts_with("LC_"))
}

/// Runs the body of test `name` (its path in this binary, `module::test`) without any locale, as a daemon in a container or under a
/// service manager does: answers `true` when this process has no `LANG`, `LANGUAGE` or `LC_*`
/// variable (the caller then runs the body); otherwise runs the test again in a child process
/// of this test binary with those variables removed, asserts that it passed there, and answers
/// `false`.
pub fn without_locale(name: &str) -> bool {
    if !std::env::vars_os().any(|(k, _)| is_locale_var(&k)) {
        return true;
    }
    let mut c = std::process::Command::new(std::env::current_exe().unwrap());
    c.args([name, "--exact", "--nocapture", "--test-threads=1"]);
    for (k, _) in std::env::vars_os().filter(|(k, _)| is_locale_var(k)) {
        c.env_remove(k);
    }
    let out = c.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{name} failed without a locale:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("1 passed"),
        "{name} did not run without a locale:\n{stdout}"
    );
    false
}
