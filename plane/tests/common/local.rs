//! The plane's real executor on a real tmux, attached as the local node of an in-process
//! plane, without the exit checks `termplane::local::start` runs (so a test decides when a
//! pane's end is noticed). The tmux server dies with the guard.

use std::path::PathBuf;
use std::sync::Arc;

use termplane_exec::{Daemonless, ExecConfig, Executor, Runner, Silent};

use super::Plane;

/// A running local node.
pub struct Local {
    pub exec: Arc<Executor>,
    /// Its data directory (tmux socket, logs).
    pub data: PathBuf,
    /// A scratch directory panes may start in.
    pub work: PathBuf,
    /// The local node's id.
    pub node_id: String,
}

impl Local {
    /// The tmux socket of the node.
    pub fn socket(&self) -> PathBuf {
        self.data.join("tmux.sock")
    }

    /// `tmux display-message -p FORMAT -t TARGET` on the node's server.
    pub fn tmux_query(&self, target: &str, format: &str) -> String {
        let out = std::process::Command::new("tmux")
            .arg("-S")
            .arg(self.socket())
            .args(["display-message", "-p", "-t", target, format])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }
}

impl Drop for Local {
    fn drop(&mut self) {
        self.exec.stop_server();
        // Kept to be looked at when the test fails; else removed (logs, sockets, scratch).
        if !std::thread::panicking()
            && let Some(dir) = self.data.parent()
        {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Attaches a local node to `p`.
pub fn attach(p: &Plane) -> Local {
    assert!(
        std::process::Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success()),
        "this test needs tmux"
    );
    let dir = super::tempdir("local");
    let data = dir.join("local-node");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    // Panes are recorded as the plane binary records them: by its `record-pane`.
    let cfg = ExecConfig {
        maintenance_file: None,
        recorder: Some(env!("CARGO_BIN_EXE_termplane").into()),
        ..ExecConfig::new(data.clone())
    };
    // The tmux server keeps the environment of the client that starts it for every pane: start
    // it from a clean one, with an empty home, so no test depends on the start-up files of the
    // account running it. The executor then finds it running and sets its options.
    std::fs::create_dir_all(&data).unwrap();
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let st = std::process::Command::new("tmux")
        .env_clear()
        .env("HOME", &home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("TERM", "xterm-256color")
        .arg("-S")
        .arg(data.join("tmux.sock"))
        .args([
            "-f",
            "/dev/null",
            "start-server",
            ";",
            "set-option",
            "-s",
            "exit-empty",
            "off",
        ])
        .status()
        .unwrap();
    assert!(st.success());
    let (exec, output) = termplane_exec::shared(cfg, Arc::new(Daemonless(Silent)));
    exec.start().unwrap();
    let runner = Runner::start(Arc::clone(&exec)).unwrap();
    // Attached as the plane attaches its own: terminal output from the tails (tasks beside the
    // terminal sockets) straight to the pumps, a viewer's keys straight to tmux when nothing
    // is queued; the executor's other events are applied to the rows below.
    termplane::local::attach(
        &p.svc,
        &exec,
        runner,
        &data.to_string_lossy(),
        &dir.to_string_lossy(),
    );
    let svc = Arc::clone(&p.svc);
    let node_id = p.svc.local_node_id().unwrap().to_owned();
    std::thread::spawn(move || {
        while let Ok(e) = output.recv() {
            match e {
                termplane_proto::Event::Output(o) => {
                    svc.terminals().pumps().route_output(&node_id, &o)
                }
                other => smol::block_on(svc.node_reports().apply_node_event(&node_id, 0, &other)),
            }
        }
    });
    Local {
        exec,
        data,
        work,
        node_id: p.svc.local_node_id().unwrap().to_owned(),
    }
}

/// The world most pane tests start from: a plane, its administrator's cookie, a system key
/// (its id and secret) and the local node attached, on which panes launch as the system key.
pub struct World {
    pub p: Plane,
    pub admin: String,
    pub key_id: String,
    pub key: String,
    pub node: Local,
}

pub fn world() -> World {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (key_id, key) = p.system_key(&admin);
    let node = attach(&p);
    World {
        p,
        admin,
        key_id,
        key,
        node,
    }
}

impl World {
    /// A request with `token` as its bearer.
    pub fn as_bearer(
        &self,
        token: &str,
        method: &str,
        path: &str,
        body: Option<serde_json::Value>,
    ) -> super::Resp {
        let mut r = self.p.req().method(method).path(path).bearer(token);
        if let Some(b) = body {
            r = r.json(b);
        }
        r.send()
    }

    /// Types `text` and Enter into pane `id` as the system key.
    pub fn type_line(&self, id: &str, text: &str) {
        let r = self.as_bearer(
            &self.key,
            "POST",
            &format!("/api/subshells/{id}/input"),
            Some(serde_json::json!({ "text": text, "keys": ["enter"] })),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    }

    /// The pane token of pane `id`, as its shell prints it.
    pub fn token_of(&self, id: &str) -> String {
        self.type_line(id, "echo tok=$TERMPLANE_TOKEN.");
        termplane_test_support::wait_until(
            "the pane's token",
            std::time::Duration::from_secs(20),
            || {
                let r = self.as_bearer(
                    &self.key,
                    "GET",
                    &format!("/api/subshells/{id}/screen?lines=50"),
                    None,
                );
                let s = r.json()["text"].as_str().unwrap_or("").to_owned();
                s.split("tok=")
                    .filter_map(|x| x.split('.').next())
                    .find(|t| t.starts_with("tp_"))
                    .map(str::to_owned)
            },
        )
    }
}
