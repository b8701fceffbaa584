//! End to end with real processes on loopback: a `termplane serve` plane (built once next to the
//! node binary when missing) and `termplane-node enroll` / `termplane-node run` children, each
//! test in its own temp dir with its own tmux server. Commands go through the plane's
//! `POST /api/nodes/:id/commands`; node events are read from `GET /api/nodes/:id/events`.
//!
//! Covered: enroll → online → ping → launch bash → input → capture → tail → terminate → exit;
//! SIGKILL of the daemon with a live pane (the pane survives, the restarted daemon's census
//! lists it); a plane restart (the node reconnects); SIGTERM and SIGHUP (close 1000, exit 0); `update`
//! refusals (digest, version), an installed update (exit 75, `.previous`, marker), acceptance
//! by a verified command, and the rollback of an update whose first start died before it was
//! accepted; an older release (this binary restamped with a lower version) held by the plane,
//! updated through `POST /api/admin/updates/outdated` and back online on the plane's version; enrollment, the link and an update download through a TLS-terminating proxy in front
//! of the plane (`https://`, `wss://`, a test CA trusted through `TERMPLANE_CA_FILE`); the
//! rollback on a 4406 close (then the process exits; it does not dial again); a revoked node
//! key said plainly in the log and in `status`. The plane sends 4406 only to a held node (below its version floor,
//! or speaking another protocol) after ten idle minutes, which a build of this version in a
//! test cannot be; so that test points the updated node at a small WebSocket peer that closes
//! every link with 4406, exactly the frame the plane sends (the plane side of 4406 is covered
//! by the link machine's tests, `machines/tests/suite/pair.rs`).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::{WAIT, World, bash_launch, output_bytes, wait_until};
use serde_json::{Value, json};
use sha2::Digest as _;

const NODE: &str = env!("CARGO_BIN_EXE_termplane-node");
const VERSION: &str = env!("CARGO_PKG_VERSION");

fn world(tag: &str) -> World {
    assert!(
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success()),
        "these tests need tmux on PATH"
    );
    World::new(tag, Path::new(NODE))
}

/// The subshell sessions of the node's tmux server (its own control session left out).
fn tmux_sessions(w: &World) -> String {
    let out = Command::new("tmux")
        .arg("-S")
        .arg(w.tmux_socket())
        .args(["list-sessions", "-F", "#{session_name}"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("tp-"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn enroll_ping_launch_echo_capture_tail_terminate_exit() {
    let mut w = world("flow");
    w.start_node();
    w.wait_online(WAIT);
    let row = w.get(&format!("/api/nodes/{}", w.node_id)).json();
    assert_eq!(row["agentVersion"], VERSION, "{row}");

    let ping = w.post(&format!("/api/nodes/{}/ping", w.node_id), &Value::Null);
    assert_eq!(ping.status, 200, "{}", ping.text());
    assert_eq!(ping.json()["ok"], true, "{}", ping.text());

    // The census of the first connect: no panes yet.
    let mut after = 0;
    let census = w.wait_event("subshells_report", &mut after, |e| {
        e["kind"] == "subshells_report"
    });
    assert_eq!(census["event"]["subshells"], json!([]), "{census}");

    let id = "0a1b2c3d";
    let cwd = w.dir.join("work");
    let launched = w.ok(&bash_launch(id, &cwd));
    assert!(
        launched["pane"].as_str().unwrap().starts_with('%'),
        "{launched}"
    );
    let tail =
        w.ok(&json!({ "type": "tail_start", "subshellId": id, "subId": "t1", "fromByte": 0 }));
    assert_eq!(tail["fromByte"], 0);
    w.ok(&json!({ "type": "input", "subshellId": id, "data": "echo hel''lo", "keys": ["enter"] }));
    wait_until("capture shows hello", WAIT, || {
        let c = w.ok(&json!({ "type": "capture", "subshellId": id, "lines": 50 }));
        c["text"]
            .as_str()
            .unwrap()
            .lines()
            .any(|l| l.trim() == "hello")
            .then_some(())
    });
    // The tail streams the pane's output: the bytes up to "hello" arrive as output events.
    let streamed = std::cell::RefCell::new(Vec::new());
    w.wait_event("output containing hello", &mut after, |e| {
        if e["kind"] != "output" || e["event"]["subId"] != "t1" {
            return false;
        }
        // Events arrive in order and each is offered once: accumulate the stream.
        let mut all = streamed.borrow_mut();
        all.extend(output_bytes(e));
        // The typed line reads `echo hel''lo`: only the command's output spells `hello`.
        String::from_utf8_lossy(&all).contains("hello")
    });
    let stopped = w.ok(&json!({ "type": "terminate", "subshellId": id }));
    assert_eq!(stopped["existed"], true, "{stopped}");
    let exit = w.wait_event("exit event", &mut after, |e| {
        e["kind"] == "exit" && e["event"]["subshellId"] == id
    });
    assert!(exit["event"]["at"].is_string(), "{exit}");

    // SIGTERM: the link closes with 1000 and the daemon exits 0.
    let mut child = w.node.take().unwrap();
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let status = wait_until("the daemon to exit", WAIT, || child.try_wait().unwrap());
    assert!(status.success(), "{status:?}");
    assert!(
        w.node_log().contains("link closed (1000)"),
        "{}",
        w.node_log()
    );
    w.wait_offline();

    // SIGHUP (a closed terminal, a supervisor's hangup) stops it the same clean way, not by
    // the default action.
    w.start_node();
    w.wait_online(WAIT);
    let mut child = w.node.take().unwrap();
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::HUP).unwrap();
    let status = wait_until("the daemon to exit", WAIT, || child.try_wait().unwrap());
    assert!(status.success(), "{status:?}");
    assert!(w.node_log().contains("SIGHUP received"), "{}", w.node_log());
    w.wait_offline();
    // `status` does not read a stopped daemon's last words as the link's state.
    let said = w.node_status();
    assert!(
        said.lines()
            .any(|l| l.starts_with("link: the daemon is not running")),
        "{said}"
    );
}

#[test]
fn sigkilled_daemon_leaves_the_pane_and_the_census_lists_it_then_a_plane_restart() {
    let mut w = world("survive");
    w.start_node();
    w.wait_online(WAIT);
    let id = "5e5e5e5e";
    w.ok(&bash_launch(id, &w.dir.join("work")));
    w.kill_node();
    w.wait_offline();
    assert!(
        tmux_sessions(&w) == format!("tp-{id}\n"),
        "the pane died with the daemon: {:?}",
        tmux_sessions(&w)
    );

    let mut after = w.events(0, 0)["next"].as_u64().unwrap();
    w.start_node();
    w.wait_online(WAIT);
    let census = w.wait_event("census naming the survivor", &mut after, |e| {
        e["kind"] == "subshells_report"
            && e["event"]["subshells"]
                .as_array()
                .is_some_and(|a| a.iter().any(|s| s["subshellId"] == id))
    });
    assert!(
        census["event"]["subshells"][0]["pane"].is_string(),
        "{census}"
    );
    // The survivor still answers through the new daemon.
    w.ok(&json!({ "type": "input", "subshellId": id, "data": "echo again", "keys": ["enter"] }));
    wait_until("capture through the new daemon", WAIT, || {
        let c = w.ok(&json!({ "type": "capture", "subshellId": id }));
        c["text"].as_str().unwrap().contains("again").then_some(())
    });

    // Plane restart: the node reconnects on its own, well within the 60 s backoff cap.
    w.stop_plane();
    let restarted = Instant::now();
    w.start_plane();
    w.wait_online(WAIT);
    let took = restarted.elapsed();
    assert!(took < Duration::from_secs(20), "reconnect took {took:?}");
    w.ok(&json!({ "type": "ping" }));
}

/// `termplane-node run` with no `LANG`, `LANGUAGE` or `LC_*` variable, as a container or a
/// service manager starts it.
fn start_node_without_locale(w: &mut World) {
    let mut c = w.node_command();
    for (k, _) in std::env::vars_os() {
        if k == "LANG" || k == "LANGUAGE" || k.to_str().is_some_and(|k| k.starts_with("LC_")) {
            c.env_remove(k);
        }
    }
    w.start_node_with(&mut c);
}

#[test]
fn a_node_without_a_locale_keeps_its_panes_alive_and_lists_them_in_its_census() {
    let mut w = world("nolocale");
    start_node_without_locale(&mut w);
    w.wait_online(WAIT);
    let id = "10ca1e00";
    w.ok(&bash_launch(id, &w.dir.join("work")));
    let probe = w.ok(&json!({ "type": "probe", "subshellIds": [id] }));
    assert_eq!(probe["subshells"][0]["alive"], true, "{probe}");
    w.ok(&json!({ "type": "input", "subshellId": id, "data": "echo still''here", "keys": ["enter"] }));
    wait_until("the pane answers", WAIT, || {
        let c = w.ok(&json!({ "type": "capture", "subshellId": id }));
        c["text"]
            .as_str()
            .unwrap()
            .lines()
            .any(|l| l.trim() == "stillhere")
            .then_some(())
    });
    // A daemon started again (still without a locale) finds the pane and names it in its census.
    let mut after = w.events(0, 0)["next"].as_u64().unwrap();
    w.kill_node();
    w.wait_offline();
    start_node_without_locale(&mut w);
    w.wait_online(WAIT);
    let census = w.wait_event("the census", &mut after, |e| {
        e["kind"] == "subshells_report"
    });
    let listed = census["event"]["subshells"].as_array().unwrap();
    assert!(
        listed.iter().any(|s| s["subshellId"] == id),
        "the live pane is missing from the census: {census}"
    );
    // Nothing ever reported it exited.
    let all = w.events(0, 0);
    assert!(
        !all["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["kind"] == "exit" && e["event"]["subshellId"] == id),
        "{all}"
    );
    assert_eq!(tmux_sessions(&w), format!("tp-{id}\n"));
}

/// The refusal a command met on the node, or `None` when it was carried out.
fn refusal(w: &World, cmd: &Value) -> Option<String> {
    let r = w.command(cmd);
    (r["ok"] != true).then(|| r["error"].as_str().unwrap_or("").to_owned())
}

#[test]
fn service_actions_and_update_meet_the_documented_refusal_in_each_node_state() {
    const NS: &str = "not supervised";
    const ND: &str = "no service definition";
    const KP: &str = "kills panes";
    let mut w = world("refusals");
    let unit = w.dir.join("xdg-config/systemd/user/termplane-node.service");
    let service = |action: &str| json!({ "type": "service", "action": action });
    let forced = |action: &str| json!({ "type": "service", "action": action, "force": true });
    let update = json!({
        "type": "update", "version": VERSION, "url": "http://127.0.0.1:1/x", "sha256": "0".repeat(64)
    });
    let check = |w: &World, cases: &[(&Value, &str)]| {
        for (cmd, want) in cases {
            assert_eq!(refusal(w, cmd).as_deref(), Some(*want), "{cmd}");
        }
    };

    // Launched by hand, with no service definition: restart and update need supervision first.
    w.start_node();
    w.wait_online(WAIT);
    check(
        &w,
        &[
            (&service("start"), ND),
            (&service("stop"), ND),
            (&forced("stop"), ND),
            (&service("restart"), NS),
            (&forced("restart"), NS),
            (&update, NS),
        ],
    );
    // Uninstalling nothing is a no-op, not a refusal.
    let done = w.ok(&service("uninstall"));
    assert_eq!(
        done["done"],
        json!(["no service definition; nothing to remove"]),
        "{done}"
    );

    // Launched by hand while a definition is installed, a pane running: the service is not
    // this daemon, so nothing acts on it from here.
    std::fs::create_dir_all(unit.parent().unwrap()).unwrap();
    std::fs::write(&unit, "[Service]\n").unwrap();
    w.ok(&bash_launch("5e7f", &w.dir.join("work")));
    check(
        &w,
        &[
            (&service("start"), NS),
            (&service("stop"), NS),
            (&forced("stop"), NS),
            (&service("restart"), NS),
            (&update, NS),
        ],
    );

    // Supervised, the pane still running: what would end the daemon ends its panes too.
    w.kill_node();
    w.wait_offline();
    start_supervised(&mut w);
    w.wait_online(WAIT);
    check(
        &w,
        &[
            (&service("stop"), KP),
            (&service("restart"), KP),
            (&service("uninstall"), KP),
            (&update, KP),
        ],
    );

    // Supervised, its definition removed under it: nothing is left to act on.
    std::fs::remove_file(&unit).unwrap();
    check(
        &w,
        &[
            (&service("start"), ND),
            (&service("stop"), ND),
            (&service("restart"), ND),
            (&forced("restart"), ND),
            (&update, ND),
        ],
    );
    let done = w.ok(&service("uninstall"));
    assert_eq!(
        done["done"],
        json!(["no service definition; nothing to remove"]),
        "{done}"
    );
    // The pane outlived every refusal.
    assert_eq!(tmux_sessions(&w), "tp-5e7f\n");
}

fn platform() -> String {
    format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH)
}

/// Publishes `bytes` as the download for `platform`; answers the URL and the digest the plane
/// announces (checked against the bytes).
fn publish(w: &World, platform: &str, bytes: &[u8]) -> (String, String) {
    let path = w
        .dir
        .join("downloads")
        .join(format!("termplane-node-{platform}"));
    std::fs::write(&path, bytes).unwrap();
    let url = format!("{}/api/downloads/node/{platform}", w.base());
    let r = crate::support::http(
        w.port,
        "GET",
        &format!("/api/downloads/node/{platform}"),
        &[],
        None,
    )
    .unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.body, bytes, "the download is the file");
    assert_eq!(
        r.header("content-length"),
        Some(bytes.len().to_string().as_str())
    );
    let sha = r.header("x-content-sha256").unwrap().to_owned();
    let want: String = sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(sha, want);
    (url, sha)
}

/// A world whose node looks supervised by systemd (a unit file and `TERMPLANE_SUPERVISED`), so
/// `update` passes the service-restart refusals; this test plays the service manager.
fn supervised_world(tag: &str) -> World {
    let mut w = world(tag);
    let unit = w.dir.join("xdg-config/systemd/user/termplane-node.service");
    std::fs::create_dir_all(unit.parent().unwrap()).unwrap();
    std::fs::write(&unit, "[Service]\n").unwrap();
    w.node_env
        .push(("TERMPLANE_SUPERVISED".into(), "systemd".into()));
    w
}

fn start_supervised(w: &mut World) {
    let mut c = w.node_command();
    c.env("TERMPLANE_SUPERVISED", "systemd");
    w.start_node_with(&mut c);
}

/// Refusals, then an installed update; answers with the node exited (status 75).
fn install_update(w: &mut World) {
    let missing =
        crate::support::http(w.port, "GET", "/api/downloads/node/plan9-vax", &[], None).unwrap();
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["code"], "NOT_FOUND");
    // The refusal string is exact; what went wrong is in `detail`.
    let url_404 = format!("{}/api/downloads/node/plan9-vax", w.base());
    let r = w.command(&json!({
        "type": "update", "version": VERSION, "url": url_404, "sha256": "0".repeat(64)
    }));
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["error"], "download failed", "{r}");
    assert_eq!(r["detail"], "HTTP 404", "{r}");

    let real = std::fs::read(NODE).unwrap();
    let (url, sha) = publish(w, &platform(), &real);
    let bad_digest = w.command(&json!({
        "type": "update", "version": VERSION, "url": url, "sha256": "0".repeat(64)
    }));
    assert_eq!(bad_digest["error"], "digest mismatch", "{bad_digest}");

    // A stand-in that reports another version, and one whose --version fails.
    for (name, script) in [
        ("linux-other", "#!/bin/sh\necho 'termplane-node 99.0.0'\n"),
        ("linux-broken", "#!/bin/sh\nexit 3\n"),
    ] {
        let (u, s) = publish(w, name, script.as_bytes());
        let r = w.command(&json!({ "type": "update", "version": VERSION, "url": u, "sha256": s }));
        assert_eq!(
            r["error"], "installed binary reports a different version",
            "{name}: {r}"
        );
    }
    assert!(!support_marker(w).exists());

    let r = w.command(&json!({ "type": "update", "version": VERSION, "url": url, "sha256": sha }));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["ok"], true, "{r}");
    let mut child = w.node.take().unwrap();
    let status = wait_until("the daemon to exit after the update", WAIT, || {
        child.try_wait().unwrap()
    });
    assert_eq!(status.code(), Some(75), "{status:?}");
    assert!(support_marker(w).exists(), "no update marker");
    assert!(previous(w).exists(), "no .previous");
    assert!(
        w.node_log().contains("update: downloaded"),
        "{}",
        w.node_log()
    );
}

fn support_marker(w: &World) -> std::path::PathBuf {
    w.node_bin.with_file_name("termplane-node.update-marker")
}

fn previous(w: &World) -> std::path::PathBuf {
    w.node_bin.with_file_name("termplane-node.previous")
}

/// Marks the `.previous` binary so that a rollback is visible (an ELF with a trailing byte
/// still runs); answers its new content.
fn mark_previous(w: &World) -> Vec<u8> {
    let mut prev = std::fs::read(previous(w)).unwrap();
    prev.push(0);
    std::fs::write(previous(w), &prev).unwrap();
    prev
}

#[test]
fn update_is_verified_installed_and_accepted_by_a_verified_command() {
    let mut w = supervised_world("update");
    start_supervised(&mut w);
    w.wait_online(WAIT);
    install_update(&mut w);
    // The service manager restarts it: the new binary is on probation until a command.
    start_supervised(&mut w);
    w.wait_online(WAIT);
    // Online means the plane already pushed `set_allowed_dirs`, a verified command: accepted.
    w.ok(&json!({ "type": "ping" }));
    wait_until("the update to be accepted", WAIT, || {
        (!support_marker(&w).exists()).then_some(())
    });
    assert!(
        previous(&w).exists(),
        ".previous stays for a manual rollback"
    );
}

#[test]
fn enroll_link_and_update_download_go_through_a_tls_terminating_proxy() {
    let mut w = World::behind_tls_proxy("tls", Path::new(NODE));
    let public = w.public_base();
    assert!(public.starts_with("https://localhost:"), "{public}");
    let cfg: Value = serde_json::from_slice(&std::fs::read(w.config()).unwrap()).unwrap();
    assert_eq!(cfg["serverUrl"], public.as_str(), "{cfg}");
    let ws = public.replace("https://", "wss://") + "/ws/node";
    assert_eq!(cfg["wsUrl"], ws.as_str(), "{cfg}");

    // Supervised, so `update` gets as far as downloading and checking the binary.
    let unit = w.dir.join("xdg-config/systemd/user/termplane-node.service");
    std::fs::create_dir_all(unit.parent().unwrap()).unwrap();
    std::fs::write(&unit, "[Service]\n").unwrap();
    w.node_env
        .push(("TERMPLANE_SUPERVISED".into(), "systemd".into()));
    start_supervised(&mut w);
    w.wait_online(WAIT);
    let ping = w.post(&format!("/api/nodes/{}/ping", w.node_id), &Value::Null);
    assert_eq!(ping.json()["ok"], true, "{}", ping.text());

    // A stand-in binary fetched over https: its digest matches (else "digest mismatch") and it
    // runs, reporting another version, so the download arrived intact through TLS.
    let (plain_url, sha) = publish(
        &w,
        "linux-other",
        b"#!/bin/sh\necho 'termplane-node 99.0.0'\n",
    );
    let url = plain_url.replace(&w.base(), &public);
    assert!(url.starts_with("https://"), "{url}");
    let r = w.command(&json!({ "type": "update", "version": VERSION, "url": url, "sha256": sha }));
    assert_eq!(
        r["error"], "installed binary reports a different version",
        "{r}"
    );
    let log = w.node_log();
    assert!(log.contains("update: downloaded"), "{log}");
    assert!(!log.contains("cannot reach the plane"), "{log}");
}

#[test]
fn an_update_whose_first_start_dies_is_rolled_back() {
    let mut w = supervised_world("rollback");
    start_supervised(&mut w);
    w.wait_online(WAIT);
    install_update(&mut w);
    let prev = mark_previous(&w);
    // First start of the new binary, and it dies before any verified command accepted it (the
    // plane pushes `set_allowed_dirs` as soon as a node is online, so it must die unlinked:
    // the plane is down meanwhile).
    w.stop_plane();
    start_supervised(&mut w);
    wait_until("the probation start to be recorded", WAIT, || {
        std::fs::read_to_string(support_marker(&w))
            .ok()
            .filter(|m| m.contains("\"started\":true"))
    });
    w.kill_node();
    w.start_plane();
    // The next start rolls back and re-executes the restored binary, which links up.
    start_supervised(&mut w);
    w.wait_online(WAIT);
    assert!(!support_marker(&w).exists());
    assert!(!previous(&w).exists());
    assert_eq!(
        std::fs::read(&w.node_bin).unwrap(),
        prev,
        "the previous binary is back"
    );
    assert!(w.node_log().contains("rolled back"), "{}", w.node_log());
    w.ok(&json!({ "type": "ping" }));
}

/// A WebSocket peer on loopback that upgrades every connection and closes it at once with
/// 4406 and a reason, as the plane closes a held node's link. Counts the links it closed.
struct Closes4406 {
    port: u16,
    closed: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Closes4406 {
    fn start() -> Self {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let closed = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (c, s) = (Arc::clone(&closed), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            let listener = smol::Async::new(listener).unwrap();
            smol::block_on(async {
                while !s.load(Ordering::Relaxed) {
                    let accepted =
                        futures_lite::future::or(async { Some(listener.accept().await) }, async {
                            smol::Timer::after(Duration::from_millis(50)).await;
                            None
                        })
                        .await;
                    let Some(Ok((stream, _))) = accepted else {
                        continue;
                    };
                    let Ok(mut ws) = async_tungstenite::accept_async(stream).await else {
                        continue;
                    };
                    let frame = async_tungstenite::tungstenite::protocol::CloseFrame {
                        code: 4406.into(),
                        reason: "node version refused: update required".into(),
                    };
                    let _ = ws.close(Some(frame)).await;
                    // Finish the closing handshake (reading what the node sent meanwhile), as
                    // the plane does: dropping a socket with unread data would reset it.
                    let drain = async {
                        while let Some(Ok(_)) = futures_lite::StreamExt::next(&mut ws).await {}
                    };
                    let limit = async {
                        smol::Timer::after(Duration::from_secs(5)).await;
                    };
                    futures_lite::future::or(drain, limit).await;
                    c.fetch_add(1, Ordering::Relaxed);
                }
            });
        });
        Self {
            port,
            closed,
            stop,
            thread: Some(thread),
        }
    }

    fn closed(&self) -> usize {
        self.closed.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Drop for Closes4406 {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[test]
fn a_4406_close_after_an_update_rolls_back_and_exits_3_without_dialing_again() {
    let mut w = supervised_world("r4406");
    start_supervised(&mut w);
    w.wait_online(WAIT);
    install_update(&mut w);
    let prev = mark_previous(&w);
    // The updated node now meets a plane that refuses its version.
    let peer = Closes4406::start();
    let mut cfg = termplane_node::config::NodeConfig::load(&w.config()).unwrap();
    cfg.ws_url = format!("ws://127.0.0.1:{}/ws/node", peer.port);
    cfg.save(&w.config()).unwrap();
    start_supervised(&mut w);
    // New binary: 4406 → roll back → exit with status 3. 4406 is terminal: the process does not
    // re-execute and dial again (a service manager starts the restored binary afresh).
    let status = wait_until("the node to exit after the 4406", WAIT, || {
        w.node.as_mut().unwrap().try_wait().unwrap()
    });
    w.node = None;
    assert_eq!(status.code(), Some(3), "{status:?}\n{}", w.node_log());
    // The peer counts a close when it reads the socket's end, which races the process exit.
    wait_until("the peer to see the close", WAIT, || {
        (peer.closed() >= 1).then_some(())
    });
    // What must not happen (a redial) is given half a second to happen: time is the subject.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(peer.closed(), 1, "one link, one close: no redial");
    assert_eq!(
        std::fs::read(&w.node_bin).unwrap(),
        prev,
        "the previous binary is back"
    );
    assert!(!support_marker(&w).exists());
    assert!(!previous(&w).exists());
    let log = w.node_log();
    assert!(log.contains("rolled back"), "{log}");
    assert!(log.contains("4406"), "{log}");
}

#[test]
fn a_revoked_key_is_said_plainly_in_the_log_and_in_status() {
    let mut w = world("revoked");
    w.start_node();
    w.wait_online(WAIT);
    // Rotating the key closes the live link with 4401; the old key then gets HTTP 401.
    let r = w.post(
        &format!("/api/nodes/{}/key_rotate", w.node_id),
        &Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    wait_until("the node to say its key is refused", WAIT, || {
        w.node_log()
            .contains("the plane refuses this node's key")
            .then_some(())
    });
    let log = w.node_log();
    assert!(log.contains("4401"), "{log}");
    assert!(log.contains("termplane-node configure --key"), "{log}");
    let status = || w.node_status();
    wait_until("status to say the key is refused", WAIT, || {
        status()
            .lines()
            .any(|l| l.starts_with("link: not connected: the plane refuses this node's key"))
            .then_some(())
    });
}

/// A version below `VERSION` of the same length (so a binary can be restamped with it).
fn older_version() -> String {
    let v: Vec<u64> = VERSION.split('.').map(|p| p.parse().unwrap()).collect();
    let (major, minor, patch) = (v[0], v[1], v[2]);
    let mut candidates = Vec::new();
    if patch > 0 {
        candidates.push(format!("{major}.{minor}.{}", patch - 1));
    }
    if minor > 0 {
        for p in [9, 99, 999] {
            candidates.push(format!("{major}.{}.{p}", minor - 1));
        }
    }
    candidates
        .into_iter()
        .find(|c| c.len() == VERSION.len())
        .expect("no older version of the same length")
}

/// The node binary stamped with `old` wherever it says its version: what a build of this
/// source released as `old` reports (`--version`, the `ready` frame, the user agent). A
/// second build of the tree at another version would take minutes; rewriting its version
/// string takes none, and changes nothing else.
fn restamped(old: &str) -> Vec<u8> {
    let mut bytes = std::fs::read(NODE).unwrap();
    let (from, to) = (VERSION.as_bytes(), old.as_bytes());
    assert_eq!(from.len(), to.len());
    let mut n = 0;
    let mut i = 0;
    while i + from.len() <= bytes.len() {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + from.len()].copy_from_slice(to);
            n += 1;
            i += from.len();
        } else {
            i += 1;
        }
    }
    assert!(n > 0, "the binary never says its version");
    bytes
}

#[test]
fn an_outdated_node_is_updated_from_the_admin_route_and_comes_back_on_the_planes_version() {
    let old = older_version();
    let mut w = supervised_world("admin-update");
    // The node runs an older release: below the version floor, so the plane holds it.
    std::fs::write(&w.node_bin, restamped(&old)).unwrap();
    let out = w.node_command().arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("termplane-node {old}")
    );
    // The plane serves this version's binary for the node's platform.
    let real = std::fs::read(NODE).unwrap();
    let (_, sha) = publish(&w, &platform(), &real);
    start_supervised(&mut w);
    let node = wait_until("the old node to be held", WAIT, || {
        let n = w.get(&format!("/api/nodes/{}", w.node_id)).json();
        (n["agentVersion"] == old.as_str()).then_some(n)
    });
    assert_eq!(
        node["liveness"], "offline",
        "a held node is offline: {node}"
    );
    let held = w.get("/api/admin/updates/held").json();
    assert!(held.to_string().contains(&w.node_id), "{held}");

    // One call updates every outdated node and reports each outcome.
    let r = w.post("/api/admin/updates/outdated", &json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    let outcomes = r.json();
    assert_eq!(outcomes.as_array().unwrap().len(), 1, "{outcomes}");
    let o = &outcomes[0];
    assert_eq!(o["nodeId"], w.node_id.as_str(), "{o}");
    assert_eq!(o["ok"], true, "{o}");
    assert_eq!(o["fromVersion"], old.as_str(), "{o}");
    assert_eq!(o["toVersion"], VERSION, "{o}");
    // The node verified and installed the plane's binary, then exited for its service manager.
    let mut child = w.node.take().unwrap();
    let status = wait_until("the node to exit after the update", WAIT, || {
        child.try_wait().unwrap()
    });
    assert_eq!(status.code(), Some(75), "{status:?}");
    let installed = std::fs::read(&w.node_bin).unwrap();
    let digest: String = sha2::Sha256::digest(&installed)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        digest, sha,
        "the installed binary is the one the plane serves"
    );
    // Restarted, it comes back online on the plane's version, and nothing is outdated.
    start_supervised(&mut w);
    w.wait_online(WAIT);
    let n = w.get(&format!("/api/nodes/{}", w.node_id)).json();
    assert_eq!(n["agentVersion"], VERSION, "{n}");
    w.ok(&json!({ "type": "ping" }));
    wait_until("the update to be accepted", WAIT, || {
        (!support_marker(&w).exists()).then_some(())
    });
    let r = w.post("/api/admin/updates/outdated", &json!({}));
    assert_eq!(r.json(), json!([]), "{}", r.text());
}
