//! The reconcile sweep, in process, with the plane's real executor on a real tmux as its local
//! node — attached here without the exit checks `termplane::local::start` runs, so the sweep is
//! the only thing that can notice a pane that went — and an enrolled node that is offline.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::Plane;
use serde_json::json;

#[test]
fn the_sweep_ends_rows_whose_panes_are_gone_and_skips_rows_of_offline_nodes() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let node = common::local::attach(&p);
    let local = node.node_id.clone();
    let dir = node.work.clone();
    let data = node.data.clone();

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
}
