//! The node's link as an independently written plane sees it: the real `termplane-node run`
//! against a scripted plane on loopback (`support/scripted.rs`), one test per point where the
//! node must behave exactly as the specification and `docs/protocol-14.md` say. Tests of the
//! runtime's driver alone run it in a thread with short limits.

use std::time::{Duration, Instant};

use crate::scripted::{Got, NodeProc, ScriptedPlane, unix_now};
use async_tungstenite::tungstenite::{Bytes, Message};
use serde_json::json;
use termplane_proto::Event;

const WAIT: Duration = Duration::from_secs(30);

fn is_iso8601_millis(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 24
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'.'
        && b[23] == b'Z'
        && b.iter()
            .enumerate()
            .all(|(i, c)| [4, 7, 10, 13, 16, 19, 23].contains(&i) || c.is_ascii_digit())
}

#[test]
fn d61_a_command_resent_one_to_four_seconds_after_a_restart_does_not_run_twice() {
    if !crate::common::tmux_ok() {
        return;
    }
    let plane = ScriptedPlane::new();
    let mut node = NodeProc::prepare("d61", &plane, true);
    let target = node.dir.join("written-once");
    let target_s = target.display().to_string();
    for delay in 1..=4_i64 {
        node.start();
        let mut conn = plane.accept(WAIT).expect("the node dials");
        conn.handshake(&plane);
        // Issued now and run once: it creates the file.
        let iat = unix_now();
        let jti = format!("d61restart{delay}");
        let cmd = json!({ "type": "write_file", "path": target_s, "chunk_b64": "b25jZQ", "chunk": 0, "eof": true });
        let claims = plane.claims(&jti, iat, 1, cmd);
        conn.send_command(&plane, &claims);
        assert!(conn.result_of(&jti).ok);
        assert!(target.exists());
        std::fs::remove_file(&target).unwrap();
        // The process dies and a new one starts `delay` seconds after the command was issued.
        node.kill();
        while unix_now() < iat + delay {
            std::thread::sleep(Duration::from_millis(20));
        }
        node.start();
        let mut conn = plane.accept(WAIT).expect("the node dials again");
        conn.handshake(&plane);
        // The same command, re-sent as the next seq of the new socket (its first): answered,
        // never run again.
        conn.send_command(&plane, &claims);
        let r = conn.result_of(&jti);
        assert!(!r.ok, "restart after {delay} s: {r:?}");
        assert_eq!(
            r.error.as_deref(),
            Some("already received by an earlier node process")
        );
        assert!(!target.exists(), "ran a second time after {delay} s");
        node.kill();
    }
}

#[test]
fn a_stale_command_uses_up_no_seq_and_the_next_good_one_runs_on_the_same_socket() {
    if !crate::common::tmux_ok() {
        return;
    }
    let plane = ScriptedPlane::new();
    let mut node = NodeProc::prepare("stale", &plane, true);
    let started = unix_now();
    node.start();
    let mut conn = plane.accept(WAIT).unwrap();
    conn.handshake(&plane);
    // Issued well before this process started (still inside its 30 s): refused at step 3.
    let stale = plane.claims("stale1", started - 12, 1, json!({ "type": "ping" }));
    conn.send_command(&plane, &stale);
    let e = conn.event_where(WAIT, |e| matches!(e, Event::Error(_)));
    let Event::Error(e) = e else { unreachable!() };
    assert_eq!(e.code, "verify");
    assert!(
        e.message.contains("before this node process started"),
        "{e:?}"
    );
    // The next good command carries the same seq: it runs, on the same socket.
    let fresh = plane.claims("fresh1", unix_now(), 1, json!({ "type": "ping" }));
    conn.send_command(&plane, &fresh);
    assert!(conn.result_of("fresh1").ok);
    let next = plane.claims("fresh2", unix_now(), 2, json!({ "type": "ping" }));
    conn.send_command(&plane, &next);
    assert!(conn.result_of("fresh2").ok);
    assert!(
        plane.accept(Duration::from_millis(300)).is_none(),
        "the node redialed"
    );
}

#[test]
fn a_low_order_plane_key_in_register_ok_is_refused_and_the_config_is_unchanged() {
    if !crate::common::tmux_ok() {
        return;
    }
    let plane = ScriptedPlane::new();
    let mut node = NodeProc::prepare("loworder", &plane, false);
    let before = std::fs::read(&node.config).unwrap();
    node.start();
    for round in 0..2 {
        let mut conn = plane.accept(WAIT).expect("the node dials");
        let Got::Text(reg) = conn.recv(WAIT) else {
            panic!("no register")
        };
        assert!(reg.contains(r#""t":"register""#), "{reg}");
        let ok = termplane_proto::PlaneFrame::RegisterOk(termplane_proto::RegisterOk {
            control_encrypt_public_key: termplane_proto::Key32([0; 32]),
        })
        .to_json();
        conn.send(Message::Text(ok.into()));
        match conn.recv(WAIT) {
            Got::Close(Some(4410), reason) => assert!(reason.contains("low-order"), "{reason}"),
            other => panic!("round {round}: {other:?}"),
        }
        assert_eq!(
            std::fs::read(&node.config).unwrap(),
            before,
            "config changed"
        );
    }
}

/// Dials, handshakes, then closes with `code` right after `ready` and drops the socket at once:
/// the node must end, whatever it was sending meanwhile.
fn terminal_close_right_after_ready(code: u16, tag: &str) -> std::process::ExitStatus {
    let plane = ScriptedPlane::new();
    let mut node = NodeProc::prepare(tag, &plane, true);
    node.start();
    let mut conn = plane.accept(WAIT).unwrap();
    conn.handshake(&plane);
    conn.close_and_drop(code, "closed right after ready");
    let status = node.wait_exit(WAIT);
    assert!(
        plane.accept(Duration::from_millis(200)).is_none(),
        "{code}: the node redialed"
    );
    let status = status.unwrap_or_else(|| panic!("{code}: the node did not exit"));
    assert!(node.log().contains(&code.to_string()), "{}", node.log());
    status
}

#[test]
fn a_4409_right_after_ready_ends_the_node_every_time() {
    if !crate::common::tmux_ok() {
        return;
    }
    for i in 0..5 {
        let st = terminal_close_right_after_ready(4409, &format!("t4409-{i}"));
        assert_eq!(st.code(), Some(0), "{st:?}");
    }
}

#[test]
fn a_4406_right_after_ready_ends_the_node_every_time() {
    if !crate::common::tmux_ok() {
        return;
    }
    for i in 0..5 {
        let st = terminal_close_right_after_ready(4406, &format!("t4406-{i}"));
        assert_eq!(st.code(), Some(3), "{st:?}");
    }
}

#[test]
fn g85_an_oversize_frame_from_the_plane_is_dropped_and_the_link_stays_up() {
    if !crate::common::tmux_ok() {
        return;
    }
    let plane = ScriptedPlane::new();
    let mut node = NodeProc::prepare("oversize", &plane, true);
    node.start();
    let mut conn = plane.accept(WAIT).unwrap();
    conn.handshake(&plane);
    // One byte over the cap, then a header claiming far more than is sent.
    conn.send(Message::Binary(Bytes::from(vec![0u8; (1 << 20) + 1])));
    conn.send(Message::Text("x".repeat(3 << 20).into()));
    let cmd = plane.claims("afteroversize", unix_now(), 1, json!({ "type": "ping" }));
    conn.send_command(&plane, &cmd);
    assert!(conn.result_of("afteroversize").ok);
    assert!(
        plane.accept(Duration::from_millis(300)).is_none(),
        "the node redialed"
    );
}

#[test]
fn a_detect_with_slow_probes_does_not_hold_back_the_next_command_on_the_link() {
    use std::os::unix::fs::PermissionsExt as _;
    if !crate::common::tmux_ok() {
        return;
    }
    let plane = ScriptedPlane::new();
    let mut node = NodeProc::prepare("aside", &plane, true);
    // A harness binary whose version probe lasts until the gate file appears (at most 4.5 s).
    let gate = node.dir.join("gate");
    let probe = node.dir.join("slow-harness");
    let g = gate.display();
    std::fs::write(
        &probe,
        format!(
            "#!/bin/sh\ni=0\nwhile [ ! -e '{g}' ] && [ \"$i\" -lt 45 ]; do sleep 0.1; i=$((i+1)); done\n\
             if [ -e '{g}' ]; then echo 'probed after the gate opened'; else echo 'the gate never opened'; fi\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o755)).unwrap();
    node.start();
    let mut conn = plane.accept(WAIT).unwrap();
    conn.handshake(&plane);
    let iat = unix_now();
    let detect = json!({
        "type": "detect",
        "rules": [{ "harnessId": "slow", "resolve": { "binaryName": "no-such-harness-binary", "knownPaths": [probe.display().to_string()] } }],
        "envNames": [],
    });
    conn.send_command(&plane, &plane.claims("detect1", iat, 1, detect));
    conn.send_command(
        &plane,
        &plane.claims("ping2", iat, 2, json!({ "type": "ping" })),
    );
    // The ping is answered while the detect's probe still waits for the gate.
    let Event::Result(first) = conn.event_where(WAIT, |e| matches!(e, Event::Result(_))) else {
        unreachable!()
    };
    assert_eq!(first.reference, "ping2", "{first:?}");
    assert!(first.ok, "{first:?}");
    std::fs::write(&gate, b"").unwrap();
    let detected = conn.result_of("detect1");
    let h = &detected.data.as_ref().unwrap()["harnesses"][0];
    assert_eq!(h["version"], "probed after the gate opened", "{detected:?}");
}

#[test]
fn inventory_and_heartbeat_times_are_iso_8601_and_each_heartbeat_pings() {
    if !crate::common::tmux_ok() {
        return;
    }
    let plane = ScriptedPlane::new();
    let mut node = NodeProc::prepare("times", &plane, true);
    node.start();
    let mut conn = plane.accept(WAIT).unwrap();
    conn.handshake(&plane);
    let Event::Inventory(inv) = conn.event_where(WAIT, |e| matches!(e, Event::Inventory(_))) else {
        unreachable!()
    };
    assert!(is_iso8601_millis(&inv.at), "{}", inv.at);
    // The first heartbeat comes 15 s after the link, and a WebSocket ping with it.
    let Event::Heartbeat(hb) = conn.event_where(WAIT, |e| matches!(e, Event::Heartbeat(_))) else {
        unreachable!()
    };
    assert!(is_iso8601_millis(&hb.at), "{}", hb.at);
    let deadline = Instant::now() + Duration::from_secs(5);
    while conn.pings == 0 && Instant::now() < deadline {
        let _ = conn.next_frame(Duration::from_millis(200));
    }
    assert!(conn.pings > 0, "no ping with the heartbeat");
}

struct Answers;

impl termplane_runtime_smol::agent::Executor for Answers {
    fn execute(
        &self,
        jti: String,
        _command: termplane_proto::Command,
    ) -> termplane_runtime_smol::agent::BoxFuture<termplane_proto::CommandResult> {
        Box::pin(async move { termplane_proto::CommandResult::ok(jti, None) })
    }
}

#[test]
fn a_plane_that_goes_silent_is_given_up_and_redialed() {
    use termplane_runtime_smol::agent::{self, AgentControl, AgentOptions, AgentReport};
    let plane = ScriptedPlane::new();
    let cfg = termplane_machines::agent_link::AgentConfig {
        node_id: plane.node_id.clone(),
        node_key: plane.node_key.clone(),
        node_static: plane.node.public(),
        control_pin: Some(plane.keys.public()),
        signing_key: plane.signer.public_jwk(),
        process_start: termplane_machines::time::UnixSecs(unix_now()),
        carried_over: Vec::new(),
        ready: termplane_proto::Ready::default(),
    };
    let mut opts = AgentOptions::new(plane.ws_url());
    opts.silence_limit = Some(Duration::from_secs(2));
    let (reports_tx, reports) = smol::channel::unbounded();
    opts.reports = Some(reports_tx);
    let (control, control_rx) = smol::channel::unbounded();
    let driver = std::thread::spawn(move || {
        smol::block_on(agent::run(
            cfg,
            opts,
            &Answers,
            control_rx,
            &termplane_runtime_smol::SystemClock,
        ))
    });
    let mut conn = plane.accept(WAIT).unwrap();
    conn.handshake(&plane);
    // The plane says nothing more (a stopped process): the node gives the link up after the
    // silence limit and dials again.
    let t = Instant::now();
    let again = plane.accept(Duration::from_secs(15));
    assert!(again.is_some(), "the node never gave the silent plane up");
    assert!(t.elapsed() >= Duration::from_secs(2), "{:?}", t.elapsed());
    let mut seen = Vec::new();
    while let Ok(r) = reports.try_recv() {
        seen.push(r);
    }
    assert!(
        seen.iter()
            .any(|r| matches!(r, AgentReport::ClosedByAgent { code: 1000 })),
        "{seen:?}"
    );
    assert!(
        seen.iter().any(
            |r| matches!(r, AgentReport::Note(n) if n.contains("no frame or pong from the plane"))
        ),
        "{seen:?}"
    );
    control.send_blocking(AgentControl::Shutdown).unwrap();
    drop(conn);
    drop(again);
    driver.join().unwrap().unwrap();
}

/// Answers `held` only once `release` has been executed (or, so that a driver that waits for the
/// answer before handing over the next command fails instead of hanging, after 10 s with an
/// error); every other command at once.
struct HeldUntilReleased {
    release: smol::channel::Sender<()>,
    released: smol::channel::Receiver<()>,
}

impl termplane_runtime_smol::agent::Executor for HeldUntilReleased {
    fn execute(
        &self,
        jti: String,
        _command: termplane_proto::Command,
    ) -> termplane_runtime_smol::agent::BoxFuture<termplane_proto::CommandResult> {
        use futures_lite::FutureExt as _;
        use termplane_proto::CommandResult;
        match jti.as_str() {
            "held" => {
                let released = self.released.clone();
                Box::pin(
                    async move {
                        let _ = released.recv().await;
                        CommandResult::ok(jti, None)
                    }
                    .or(async {
                        smol::Timer::after(Duration::from_secs(10)).await;
                        CommandResult::err("held", "never released")
                    }),
                )
            }
            _ => {
                let _ = self.release.try_send(());
                Box::pin(async move { CommandResult::ok(jti, None) })
            }
        }
    }
}

#[test]
fn the_driver_hands_a_command_over_while_the_one_before_it_is_unanswered() {
    use termplane_runtime_smol::agent::{self, AgentControl, AgentOptions};
    let plane = ScriptedPlane::new();
    let cfg = termplane_machines::agent_link::AgentConfig {
        node_id: plane.node_id.clone(),
        node_key: plane.node_key.clone(),
        node_static: plane.node.public(),
        control_pin: Some(plane.keys.public()),
        signing_key: plane.signer.public_jwk(),
        process_start: termplane_machines::time::UnixSecs(unix_now()),
        carried_over: Vec::new(),
        ready: termplane_proto::Ready::default(),
    };
    let opts = AgentOptions::new(plane.ws_url());
    let (release, released) = smol::channel::bounded(1);
    let exec = HeldUntilReleased { release, released };
    let (control, control_rx) = smol::channel::unbounded();
    let driver = std::thread::spawn(move || {
        smol::block_on(agent::run(
            cfg,
            opts,
            &exec,
            control_rx,
            &termplane_runtime_smol::SystemClock,
        ))
    });
    let mut conn = plane.accept(WAIT).unwrap();
    conn.handshake(&plane);
    let iat = unix_now();
    conn.send_command(
        &plane,
        &plane.claims("held", iat, 1, json!({ "type": "ping" })),
    );
    conn.send_command(
        &plane,
        &plane.claims("release", iat, 2, json!({ "type": "ping" })),
    );
    // The second command reached the executor while the first was still unanswered, and its
    // execution let the first one finish: both answer ok (a driver that waited for the first
    // answer would see it give up after 10 s).
    let mut answers = Vec::new();
    for _ in 0..2 {
        match conn.event_where(WAIT, |e| matches!(e, Event::Result(_))) {
            Event::Result(r) => answers.push((r.reference, r.ok, r.error)),
            _ => unreachable!(),
        }
    }
    answers.sort();
    assert_eq!(
        answers,
        vec![
            ("held".to_owned(), true, None),
            ("release".to_owned(), true, None)
        ]
    );
    control.send_blocking(AgentControl::Shutdown).unwrap();
    drop(conn);
    driver.join().unwrap().unwrap();
}

/// `activity` as `docs/protocol-14.md` states it, seen by a plane written from that document: a
/// node advertising it refuses a quiet outside its range, then reports each pane quiet (with
/// its screen and foreground program) after `quietMs`, printing again as soon as it prints,
/// sampled with its screen while it keeps printing, and nothing more once told `on: false`.
#[test]
fn activity_reports_a_pane_quiet_with_its_screen_then_printing_and_stops_when_told() {
    if !crate::common::tmux_ok() {
        return;
    }
    let plane = ScriptedPlane::new();
    let mut node = NodeProc::prepare("activity", &plane, true);
    node.start();
    let mut conn = plane.accept(WAIT).unwrap();
    let ready = conn.handshake(&plane);
    assert!(
        ready.capabilities.iter().any(|c| c == "activity"),
        "{ready:?}"
    );
    let mut seq = 0;
    let mut send = |conn: &mut crate::scripted::Conn, jti: &str, cmd: serde_json::Value| {
        seq += 1;
        conn.send_command(&plane, &plane.claims(jti, unix_now(), seq, cmd));
    };
    for (jti, quiet) in [("a-low", 499), ("a-high", 60_001)] {
        send(
            &mut conn,
            jti,
            json!({ "type": "activity", "on": true, "quietMs": quiet }),
        );
        let r = conn.result_of(jti);
        assert!(!r.ok, "{r:?}");
        assert_eq!(
            r.error.as_deref(),
            Some("quietMs must be 500 to 60000"),
            "{r:?}"
        );
    }
    let id = "ac71-0001";
    let cwd = node.dir.join("home");
    send(&mut conn, "l1", crate::support::bash_launch(id, &cwd));
    let launched = conn.result_of("l1");
    assert!(launched.ok, "{launched:?}");
    send(
        &mut conn,
        "a1",
        json!({ "type": "activity", "on": true, "quietMs": 500 }),
    );
    let r = conn.result_of("a1");
    assert_eq!(r.data, Some(json!({ "on": true, "quietMs": 500 })), "{r:?}");
    let of_pane = |e: &Event, active: bool| matches!(e, Event::Activity(a) if a.subshell_id.as_str() == id && a.active == active);
    let Event::Activity(quiet) = conn.event_where(WAIT, |e| of_pane(e, false)) else {
        unreachable!()
    };
    assert_eq!(quiet.command.as_deref(), Some("bash"), "{quiet:?}");
    assert!(quiet.screen.is_some(), "{quiet:?}");
    assert!(is_iso8601_millis(&quiet.at), "{quiet:?}");
    // It prints: at once, printing; 500 ms after its last byte, quiet with what it printed.
    let typed = json!({ "type": "input", "subshellId": id, "data": "echo quiet-$((6*7))", "keys": ["enter"] });
    send(&mut conn, "i1", typed.clone());
    let Event::Activity(printing) = conn.event_where(WAIT, |e| of_pane(e, true)) else {
        unreachable!()
    };
    assert!(printing.screen.is_none(), "{printing:?}");
    let Event::Activity(quiet) = conn.event_where(WAIT, |e| of_pane(e, false)) else {
        unreachable!()
    };
    let screen = quiet.screen.unwrap();
    assert!(screen.contains("\nquiet-42"), "{screen}");
    assert_eq!(screen, screen.trim_end(), "no blank end");
    // It prints without a pause of quietMs for longer than quietMs: sampled, its screen with
    // it, while it prints.
    let ticking = json!({ "type": "input", "subshellId": id, "data": "for i in $(seq 1 40); do echo tick-$i; sleep 0.1; done", "keys": ["enter"] });
    send(&mut conn, "i0", ticking);
    let Event::Activity(sample) = conn.event_where(WAIT, |e| {
        matches!(e, Event::Activity(a) if a.subshell_id.as_str() == id && a.active && a.screen.is_some())
    }) else {
        unreachable!()
    };
    assert!(
        sample.screen.unwrap().contains("tick-"),
        "a sample shows what it prints"
    );
    let Event::Activity(quiet) = conn.event_where(WAIT, |e| of_pane(e, false)) else {
        unreachable!()
    };
    assert!(quiet.screen.unwrap().contains("tick-40"));
    // Told to stop: the pane prints and nothing is said of it.
    send(
        &mut conn,
        "a2",
        json!({ "type": "activity", "on": false, "quietMs": 500 }),
    );
    assert!(conn.result_of("a2").ok);
    send(&mut conn, "i2", typed);
    assert!(conn.result_of("i2").ok);
    let deadline = Instant::now() + Duration::from_millis(1500);
    while let Some(f) = conn.next_frame(deadline.saturating_duration_since(Instant::now())) {
        assert!(
            !matches!(
                f,
                termplane_proto::frame::NodeFrame::Event(Event::Activity(_))
            ),
            "an activity event after on: false: {f:?}"
        );
    }
}

/// A pane's recording as `docs/protocol-14.md` states it, read by a plane written from that
/// document: a node advertising `recording` answers `timing_read` with 16-byte records (`at`
/// in Unix microseconds, then the kind in the top 8 bits of a little-endian word and the value
/// in its low 56): the grid the pane was launched on and each resize, its start at the log's
/// size then, and output records that, sorted by time, go forward to the log's end; after
/// `forget`, nothing is left to read.
#[test]
fn timing_read_answers_the_panes_recording_as_the_document_states_it() {
    if !crate::common::tmux_ok() {
        return;
    }
    let plane = ScriptedPlane::new();
    let mut node = NodeProc::prepare("recording", &plane, true);
    node.start();
    let mut conn = plane.accept(WAIT).unwrap();
    let ready = conn.handshake(&plane);
    assert!(
        ready.capabilities.iter().any(|c| c == "recording"),
        "{ready:?}"
    );
    let seq = std::cell::Cell::new(0);
    let send = |conn: &mut crate::scripted::Conn, jti: &str, cmd: serde_json::Value| {
        seq.set(seq.get() + 1);
        conn.send_command(&plane, &plane.claims(jti, unix_now(), seq.get(), cmd));
    };
    let id = "7ec0-0001";
    let cwd = node.dir.join("home");
    let began = u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_micros(),
    )
    .unwrap();
    send(&mut conn, "l1", crate::support::bash_launch(id, &cwd));
    assert!(conn.result_of("l1").ok);
    send(
        &mut conn,
        "r1",
        json!({ "type": "resize", "subshellId": id, "cols": 100, "rows": 25 }),
    );
    assert!(conn.result_of("r1").ok);
    send(
        &mut conn,
        "i1",
        json!({ "type": "input", "subshellId": id, "data": "echo timed-$((6*7))", "keys": ["enter"] }),
    );
    assert!(conn.result_of("i1").ok);
    // Reads the whole of a file through `log_read` or `timing_read`, 4 KiB at a time.
    let mut n = 0;
    let mut read_all = |conn: &mut crate::scripted::Conn, kind: &str| -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            n += 1;
            let jti = format!("{kind}-{n}");
            send(
                conn,
                &jti,
                json!({ "type": kind, "subshellId": id, "fromByte": out.len(), "maxBytes": 4096 }),
            );
            let r = conn.result_of(&jti);
            let d = r.data.unwrap_or_else(|| panic!("{kind}: {:?}", r.error));
            let piece =
                termplane_proto::key::b64url_decode(d["data_b64"].as_str().unwrap()).unwrap();
            if piece.is_empty() {
                return out;
            }
            out.extend(piece);
        }
    };
    // The document's records, decoded here from its words alone.
    let decode = |bytes: &[u8]| -> Vec<(u64, u8, u64)> {
        assert_eq!(bytes.len() % 16, 0, "whole records");
        bytes
            .chunks(16)
            .map(|c| {
                let at = u64::from_le_bytes(c[..8].try_into().unwrap());
                let word = u64::from_le_bytes(c[8..].try_into().unwrap());
                (at, (word >> 56) as u8, word & ((1 << 56) - 1))
            })
            .collect()
    };
    let deadline = Instant::now() + WAIT;
    let (log, mut records) = loop {
        let log = read_all(&mut conn, "log_read");
        let mut records = decode(&read_all(&mut conn, "timing_read"));
        records.sort_by_key(|r| r.0);
        let end = records.iter().filter(|r| r.1 == 2).map(|r| r.2).max();
        if String::from_utf8_lossy(&log).contains("timed-42") && end == Some(log.len() as u64) {
            break (log, records);
        }
        assert!(
            Instant::now() < deadline,
            "the recording never reached the log's end: {records:?}"
        );
    };
    let now = u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_micros(),
    )
    .unwrap();
    assert!(
        records
            .iter()
            .all(|r| (began..=now).contains(&r.0) && (1..=3).contains(&r.1)),
        "{records:?}"
    );
    let grids: Vec<u64> = records.iter().filter(|r| r.1 == 3).map(|r| r.2).collect();
    assert_eq!(grids, [120 << 16 | 30, 100 << 16 | 25], "{records:?}");
    let starts: Vec<u64> = records.iter().filter(|r| r.1 == 1).map(|r| r.2).collect();
    assert_eq!(starts, [0], "{records:?}");
    records.retain(|r| r.1 == 2);
    assert!(
        records.windows(2).all(|w| w[0].2 < w[1].2),
        "output goes forward: {records:?}"
    );
    assert_eq!(records.last().unwrap().2, log.len() as u64);
    // Forgotten with its pane: nothing to read any more.
    send(&mut conn, "k1", json!({ "type": "kill", "subshellId": id }));
    assert!(conn.result_of("k1").ok);
    send(
        &mut conn,
        "f1",
        json!({ "type": "forget", "subshellId": id }),
    );
    let r = conn.result_of("f1");
    assert!(r.ok, "{r:?}");
    assert!(read_all(&mut conn, "timing_read").is_empty());
}

/// A recording's retention as `docs/protocol-14.md` states it, sent by a plane written from
/// that document: `recording_trim` drops what the pane printed before its `beforeUs` (in whole
/// 4 KiB blocks, never a byte printed after it) and answers `{ logFrom, timingFrom,
/// droppedBytes }`; `log_read` and `timing_read` then answer from there, offsets unchanged;
/// the same call again drops nothing.
#[test]
fn recording_trim_drops_what_was_printed_before_its_time_as_the_document_states_it() {
    if !crate::common::tmux_ok() {
        return;
    }
    let plane = ScriptedPlane::new();
    let mut node = NodeProc::prepare("retention", &plane, true);
    node.start();
    let mut conn = plane.accept(WAIT).unwrap();
    let ready = conn.handshake(&plane);
    assert!(
        ready.capabilities.iter().any(|c| c == "recording_trim"),
        "{ready:?}"
    );
    let seq = std::cell::Cell::new(0);
    let send = |conn: &mut crate::scripted::Conn, jti: &str, cmd: serde_json::Value| {
        seq.set(seq.get() + 1);
        conn.send_command(&plane, &plane.claims(jti, unix_now(), seq.get(), cmd));
    };
    let id = "7ec0-0002";
    let cwd = node.dir.join("home");
    send(&mut conn, "l1", crate::support::bash_launch(id, &cwd));
    assert!(conn.result_of("l1").ok);
    // One read of a file through `log_read` or `timing_read` from `from`: where the answer
    // starts, the file's size, the bytes.
    let mut n = 0;
    let mut read = |conn: &mut crate::scripted::Conn, kind: &str, from: u64| {
        n += 1;
        let jti = format!("{kind}-{n}");
        send(
            conn,
            &jti,
            json!({ "type": kind, "subshellId": id, "fromByte": from, "maxBytes": 65536 }),
        );
        let r = conn.result_of(&jti);
        let d = r.data.unwrap_or_else(|| panic!("{kind}: {:?}", r.error));
        let bytes = termplane_proto::key::b64url_decode(d["data_b64"].as_str().unwrap()).unwrap();
        (
            d["fromByte"].as_u64().unwrap(),
            d["size"].as_u64().unwrap(),
            bytes,
        )
    };
    // Waits until the log holds `what` and the timing's output records reach the log's end.
    let mut settled = |conn: &mut crate::scripted::Conn, what: &str| -> u64 {
        let deadline = Instant::now() + WAIT;
        loop {
            let (_, size, _) = read(conn, "log_read", 0);
            let mut log = Vec::new();
            let mut from = 0;
            while from < size {
                let (at, _, piece) = read(conn, "log_read", from);
                if piece.is_empty() {
                    break;
                }
                from = at + piece.len() as u64;
                log.extend(piece);
            }
            let (_, _, timing) = read(conn, "timing_read", 0);
            let end = timing
                .chunks_exact(16)
                .map(|c| u64::from_le_bytes(c[8..].try_into().unwrap()))
                .filter(|w| w >> 56 == 2)
                .map(|w| w & ((1 << 56) - 1))
                .max();
            if String::from_utf8_lossy(&log).contains(what) && end == Some(size) {
                return size;
            }
            assert!(
                Instant::now() < deadline,
                "{what} never reached the recording"
            );
        }
    };
    send(
        &mut conn,
        "i1",
        json!({ "type": "input", "subshellId": id, "data": "echo early-$((6*7)); seq 1 6000; echo first-$((5*5))", "keys": ["enter"] }),
    );
    assert!(conn.result_of("i1").ok);
    let size_at_cut = settled(&mut conn, "first-25");
    let before_us = u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_micros(),
    )
    .unwrap();
    send(
        &mut conn,
        "i2",
        json!({ "type": "input", "subshellId": id, "data": "echo late-$((7*8))", "keys": ["enter"] }),
    );
    assert!(conn.result_of("i2").ok);
    settled(&mut conn, "late-56");
    send(
        &mut conn,
        "t1",
        json!({ "type": "recording_trim", "subshellId": id, "beforeUs": before_us }),
    );
    let r = conn.result_of("t1");
    if !r.ok {
        // A file system that cannot free a file's start: refused, and nothing is lost.
        let (from, _, _) = read(&mut conn, "log_read", 0);
        assert_eq!(from, 0, "{r:?}");
        return;
    }
    let d = r.data.unwrap();
    let log_from = d["logFrom"].as_u64().unwrap();
    let timing_from = d["timingFrom"].as_u64().unwrap();
    // Whole blocks, never past what was printed before the cut, and most of that.
    assert_eq!(log_from % 4096, 0, "{d}");
    assert!(
        log_from <= size_at_cut,
        "{d} (log at the cut: {size_at_cut})"
    );
    assert!(log_from + 4096 > size_at_cut - size_at_cut % 4096, "{d}");
    assert_eq!(timing_from % 4096, 0, "{d}");
    assert_eq!(
        d["droppedBytes"].as_u64().unwrap(),
        log_from + timing_from,
        "{d}"
    );
    // The log answers from its first kept byte, which is where the answer says.
    let (from, size, piece) = read(&mut conn, "log_read", 0);
    assert_eq!(from, log_from);
    let text = String::from_utf8_lossy(&piece);
    assert!(
        !text.contains("early-42") && text.contains("late-56"),
        "{text}"
    );
    assert!(size > size_at_cut);
    // Every record timed from the cut on is still there.
    let (t_from, _, timing) = read(&mut conn, "timing_read", 0);
    assert_eq!(t_from, timing_from);
    assert_eq!(timing.len() % 16, 0);
    let late_outputs = timing
        .chunks_exact(16)
        .filter(|c| u64::from_le_bytes(c[..8].try_into().unwrap()) >= before_us)
        .filter(|c| u64::from_le_bytes(c[8..].try_into().unwrap()) >> 56 == 2)
        .count();
    assert!(late_outputs >= 1, "the output after the cut is still timed");
    // Again: nothing more to drop.
    send(
        &mut conn,
        "t2",
        json!({ "type": "recording_trim", "subshellId": id, "beforeUs": before_us }),
    );
    let again = conn.result_of("t2").data.unwrap();
    assert_eq!(again["droppedBytes"], 0, "{again}");
    assert_eq!(again["logFrom"], log_from, "{again}");
}
