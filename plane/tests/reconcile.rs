//! The reconcile sweep, in process, with the plane's real executor on a real tmux as its local
//! node — attached here without the exit checks `termplane::local::start` runs, so the sweep is
//! the only thing that can notice a pane that went — and an enrolled node that is offline.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use common::Plane;
use serde_json::json;
use termplane::service::LocalNode;
use termplane_exec::{Daemonless, ExecConfig, Runner, Silent};
use termplane_proto::{Command, CommandResult};

/// The executor behind the dispatcher's local seam, as `termplane::local` attaches it.
struct Exec(Runner);

impl LocalNode for Exec {
    fn submit(&self, jti: String, cmd: Command) -> smol::channel::Receiver<CommandResult> {
        let (tx, rx) = smol::channel::bounded(1);
        let _ = self.0.submit(jti, cmd, move |r| {
            let _ = tx.try_send(r);
        });
        rx
    }
}

#[test]
fn the_sweep_ends_rows_whose_panes_are_gone_and_skips_rows_of_offline_nodes() {
    assert!(
        std::process::Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success()),
        "this test needs tmux"
    );
    let p = Plane::start();
    let admin = p.setup_admin();
    let dir = common::tempdir("reconcile");
    let data = dir.join("local-node");
    let cfg = ExecConfig {
        maintenance_file: None,
        ..ExecConfig::new(data.clone())
    };
    let (exec, _output) = termplane_exec::shared(cfg, Arc::new(Daemonless(Silent)));
    exec.start().unwrap();
    let runner = Runner::start(Arc::clone(&exec)).unwrap();
    p.svc.attach_local_node(
        Arc::new(Exec(runner)),
        &data.to_string_lossy(),
        &dir.to_string_lossy(),
    );
    let local = p.svc.local_node_id().unwrap().to_owned();

    let launch = |cwd: &std::path::Path| {
        let r = p
            .post(
                "/api/subshells",
                json!({ "nodeId": local, "harnessId": "shell", "cwd": cwd.to_string_lossy() }),
            )
            .header("Cookie", &admin)
            .send();
        assert_eq!(r.status, 201, "{}", r.text());
        r.json()["id"].as_str().unwrap().to_owned()
    };
    let gone = launch(&dir);
    let alive = launch(&dir);

    // A node that enrolled and is offline, with a row that reads running.
    let (_, key) = p.setup_key(&admin);
    let r = p.enroll(&key, "away");
    assert_eq!(r.status, 201, "{}", r.text());
    let away = r.json()["nodeId"].as_str().unwrap().to_owned();
    let far = "00112233445566778899aabbccddeeff".to_owned();
    smol::block_on(async {
        let mut row = p.svc.store().subshell(&alive).await.unwrap().unwrap();
        row.id.clone_from(&far);
        row.node_id.clone_from(&away);
        row.token_digest = None;
        p.svc
            .store()
            .insert_subshell(&row, &row.owner_user_id.clone(), "cookie")
            .await
            .unwrap();
    });

    // One local pane goes behind the plane's back.
    let st = std::process::Command::new("tmux")
        .arg("-S")
        .arg(data.join("tmux.sock"))
        .args(["kill-session", "-t", &format!("tp-{gone}")])
        .status()
        .unwrap();
    assert!(st.success());
    let state = |id: &str| {
        let r = p
            .get(&format!("/api/subshells/{id}"))
            .header("Cookie", &admin)
            .send();
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()
    };
    assert_eq!(state(&gone)["state"], "running", "nothing noticed it yet");

    smol::block_on(p.svc.reconcile()).unwrap();
    let g = state(&gone);
    assert_eq!(g["state"], "crashed", "{g}");
    assert_eq!(state(&alive)["state"], "running");
    let f = state(&far);
    assert_eq!(
        f["state"], "running",
        "a row of an offline node was judged: {f}"
    );
    assert_eq!(f["status"], "node_unreachable", "{f}");
    exec.stop_server();
}
