//! `termplane backup` and `termplane restore` with real processes on loopback: a backup taken
//! while the plane takes writes restores into a new data directory, a plane starts on it, and
//! the enrolled `termplane-node` links to it again (its pinned keys are the restored ones).

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::support::{WAIT, World, wait_until};
use serde_json::json;

const NODE: &str = env!("CARGO_BIN_EXE_termplane-node");

#[test]
fn a_backup_taken_under_write_load_restores_everything_acknowledged_and_the_node_links_again() {
    assert!(
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success()),
        "these tests need tmux on PATH"
    );
    let mut w = World::new("backup", Path::new(NODE));
    w.start_node();
    w.wait_online(WAIT);
    let plane_bin = crate::support::plane_binary(Path::new(NODE));
    let data = w.dir.join("plane");
    let archive = w.dir.join("plane-backup.tar");
    let stop = AtomicBool::new(false);
    // Each preset the plane acknowledged (201), with when the answer arrived.
    let acked: Mutex<Vec<(String, Instant)>> = Mutex::new(Vec::new());
    let (backup_started, backup_ended) = std::thread::scope(|s| {
        s.spawn(|| {
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) && i < 5_000 {
                let name = format!("load-{i}");
                let r = w.post("/api/presets", &json!({ "name": name }));
                if r.status == 201 {
                    acked.lock().unwrap().push((name, Instant::now()));
                }
                i += 1;
            }
        });
        wait_until("writes under way", WAIT, || {
            (acked.lock().unwrap().len() >= 20).then_some(())
        });
        let started = Instant::now();
        let out = Command::new(&plane_bin)
            .arg("backup")
            .arg(&archive)
            .arg("--data-dir")
            .arg(&data)
            .output()
            .unwrap();
        let ended = Instant::now();
        assert!(
            out.status.success(),
            "backup: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // The writes go on after it.
        let seen = acked.lock().unwrap().len();
        wait_until("writes after the backup", WAIT, || {
            (acked.lock().unwrap().len() >= seen + 10).then_some(())
        });
        stop.store(true, Ordering::SeqCst);
        (started, ended)
    });
    let acked = acked.into_inner().unwrap();
    let before: Vec<&String> = acked
        .iter()
        .filter(|(_, at)| *at < backup_started)
        .map(|(n, _)| n)
        .collect();
    let during = acked
        .iter()
        .filter(|(_, at)| *at >= backup_started && *at <= backup_ended)
        .count();
    eprintln!(
        "{} presets acknowledged before the backup began, {during} while it ran, {} in all",
        before.len(),
        acked.len()
    );

    // The plane goes; its directory is kept aside and the backup restored in its place.
    w.stop_plane();
    std::fs::rename(&data, w.dir.join("plane-before")).unwrap();
    let out = Command::new(&plane_bin)
        .arg("restore")
        .arg(&archive)
        .arg("--data-dir")
        .arg(&data)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "restore: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    w.start_plane();

    // Sign in with the password the restored database holds.
    let r = w.post(
        "/api/auth/sign-in",
        &json!({ "email": "admin@example.test", "password": "correct horse battery" }),
    );
    assert_eq!(r.status, 200, "sign-in: {}", r.text());
    // Signing in ended the session the cookie named (it rotates): the new one acts from now on.
    w.cookie = r
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    // The node links again to the restored plane, and a signed command reaches it.
    w.wait_online(Duration::from_secs(90));
    w.ok(&json!({ "type": "ping" }));

    // Nothing acknowledged before the backup began is missing.
    let r = w.get("/api/presets");
    assert_eq!(r.status, 200, "{}", r.text());
    let list = r.json();
    let names: std::collections::HashSet<&str> = list
        .as_array()
        .or_else(|| list["items"].as_array())
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    let missing: Vec<&&String> = before
        .iter()
        .filter(|n| !names.contains(n.as_str()))
        .collect();
    assert!(missing.is_empty(), "missing after restore: {missing:?}");
    // And what came after the backup was taken is not there (the copy is of one instant).
    let last = acked.last().map(|(n, _)| n.as_str()).unwrap();
    assert!(
        !names.contains(last),
        "{last} was acknowledged after the backup"
    );
}
