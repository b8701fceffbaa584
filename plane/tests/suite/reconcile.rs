//! The reconcile sweep, in process, with the plane's real executor on a real tmux as its local
//! node — attached here without the exit checks `termplane::local::start` runs, so the sweep is
//! the only thing that can notice a pane that went — and an enrolled node that is offline.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

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

    // The first sweep that finds it gone leaves the node's exit check time to report it.
    smol::block_on(p.svc.node_reports().reconcile()).unwrap();
    assert_eq!(state(&gone)["state"], "running", "judged before the grace");
    p.clock.advance_ms(termplane::service::GONE_GRACE_MS);
    smol::block_on(p.svc.node_reports().reconcile()).unwrap();
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

/// Launches a shell on the local node `node` of `p`, has it `exit code`, and answers its id and
/// the exit the node's exit check then reports (not applied: the test decides when).
fn shell_that_exits(
    p: &Plane,
    admin: &str,
    node: &common::local::Local,
    code: i32,
) -> (String, termplane_proto::event::Exit) {
    let r = p
        .post(
            "/api/subshells",
            json!({ "nodeId": node.node_id, "harnessId": "shell", "cwd": node.work.to_string_lossy() }),
        )
        .header("Cookie", admin)
        .send();
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let r = p
        .post(
            &format!("/api/subshells/{id}/input"),
            json!({ "text": format!("exit {code}"), "keys": ["enter"] }),
        )
        .header("Cookie", admin)
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let exit = loop {
        if let Some(e) = node.exec.exit_tick().into_iter().next() {
            break e;
        }
        assert!(std::time::Instant::now() < until, "the pane never ended");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    (id, exit)
}

#[test]
fn an_exit_reported_after_a_sweep_found_the_pane_gone_keeps_its_code() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let node = common::local::attach(&p);
    // The pane has ended; the sweep sees it gone before the node's exit check reports it.
    let (id, exit) = shell_that_exits(&p, &admin, &node, 0);
    smol::block_on(p.svc.node_reports().reconcile()).unwrap();
    smol::block_on(p.svc.node_reports().apply_node_event(
        &node.node_id,
        termplane::local::LOCAL_CONN,
        &termplane_proto::Event::Exit(exit),
    ));
    p.clock.advance_ms(termplane::service::GONE_GRACE_MS);
    smol::block_on(p.svc.node_reports().reconcile()).unwrap();
    let v = p
        .get(&format!("/api/subshells/{id}"))
        .header("Cookie", &admin)
        .send()
        .json();
    assert_eq!(v["state"], "exited", "{v}");
    assert_eq!(v["exitCode"], 0, "{v}");
}

/// An exit that arrives while the disk is full cannot be recorded (507): it is kept and
/// retried, the sweep leaves its row alone meanwhile (it would read the pane's end as a
/// crash), and once space is freed the row reads how the pane ended: its exit code.
#[test]
fn an_exit_that_arrives_on_a_full_disk_is_recorded_once_space_is_freed() {
    if common::on_postgres() {
        // The database is not on the small disk there.
        return;
    }
    let Some(disk) = common::SmallDisk::mount(32 * 1024 * 1024) else {
        return;
    };
    let p = Plane::start_with(common::Opts {
        data_dir: Some(disk.dir.clone()),
        ..common::Opts::default()
    });
    let admin = p.setup_admin();
    let node = common::local::attach(&p);
    let (id, exit) = shell_that_exits(&p, &admin, &node, 3);
    let state = || {
        p.get(&format!("/api/subshells/{id}"))
            .header("Cookie", &admin)
            .send()
            .json()
    };
    disk.fill("filler");
    smol::block_on(p.svc.node_reports().apply_node_event(
        &node.node_id,
        termplane::local::LOCAL_CONN,
        &termplane_proto::Event::Exit(exit),
    ));
    assert_eq!(state()["state"], "running", "the full disk took the exit");
    // The sweep finds the pane gone past its grace: it must not call it a crash.
    smol::block_on(p.svc.node_reports().reconcile()).ok();
    p.clock.advance_ms(termplane::service::GONE_GRACE_MS);
    std::fs::remove_file(disk.dir.join("filler")).unwrap();
    smol::block_on(p.svc.node_reports().reconcile()).unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let v = loop {
        let v = state();
        if v["state"] != "running" {
            break v;
        }
        assert!(
            std::time::Instant::now() < until,
            "the exit was never recorded: {v}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(v["state"], "crashed", "{v}");
    assert_eq!(v["exitCode"], 3, "{v}");
    drop(node);
    drop(p);
}
