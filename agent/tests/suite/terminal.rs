//! Live terminals end to end with real processes on loopback: a `termplane serve` plane (with its
//! local node) and an enrolled `termplane-node run`, and terminal clients written here from the
//! documented frames (`/docs/terminal`): one contract for a local and a remote pane.

use std::path::Path;
use std::time::Duration;

use crate::support::{WAIT, World, http, wait_until};
use async_tungstenite::tungstenite::{self, Message};
use serde_json::{Value, json};
use termplane_test_support::ran_lines;
use termplane_test_support::viewer::Viewer;

const NODE: &str = env!("CARGO_BIN_EXE_termplane-node");

fn world(tag: &str) -> World {
    assert!(
        std::process::Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success()),
        "these tests need tmux"
    );
    let mut w = World::new(tag, Path::new(NODE));
    w.start_node();
    w.wait_online(WAIT);
    w
}

fn local_node(w: &World) -> String {
    let nodes = w.get("/api/nodes").json();
    nodes
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["isLocal"] == true)
        .unwrap()["nodeId"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn call(
    w: &World,
    cookie: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> crate::support::Resp {
    let origin = w.base();
    let mut h = vec![("Cookie", cookie)];
    if method != "GET" {
        h.push(("Origin", origin.as_str()));
    }
    http(w.port, method, path, &h, body).unwrap()
}

fn shell_on(w: &World, node: &str) -> String {
    let body = json!({ "nodeId": node, "harnessId": "shell", "cwd": w.dir.join("work").display().to_string() });
    let r = w.post("/api/subshells", &body);
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    wait_until("the pane to run", WAIT, || {
        (w.get(&format!("/api/subshells/{id}")).json()["state"] == "running").then_some(())
    });
    id
}

fn mint(w: &World, cookie: &str, id: &str) -> String {
    let r = call(
        w,
        cookie,
        "POST",
        "/api/auth/ws-token",
        Some(&json!({ "subshellId": id })),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()["token"].as_str().unwrap().to_owned()
}

fn attach(w: &World, id: &str, token: &str, extra: &str) -> Result<Viewer, u16> {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], w.port));
    Viewer::open(
        addr,
        &format!("/api/subshells/{id}/attach?token={token}{extra}"),
        &[],
    )
    .map_err(|(status, _)| status)
}

/// An 80×24 viewer of pane `id` (the owner's), once the pane's shell has answered it.
fn answering_viewer(w: &World, id: &str) -> Viewer {
    let mut t = attach(w, id, &mint(w, &w.cookie, id), "&cols=80&rows=24").unwrap();
    t.until("attached", |t| t.has("attached", |_| true));
    t.keys("echo ready-$((1+1))\r");
    t.until("the shell's answer", |t| t.text().contains("ready-2"));
    t
}

/// Two clients on one pane: both get the replay, the pane takes the smaller grid, and the live
/// bytes after that are the same for both.
fn two_clients_on(w: &World, id: &str) {
    let mut a = attach(w, id, &mint(w, &w.cookie, id), "&cols=100&rows=30").unwrap();
    a.until("a's replay", |t| {
        t.has("attached", |_| true) && !t.bytes.is_empty()
    });
    let mut b = attach(w, id, &mint(w, &w.cookie, id), "&cols=80&rows=24").unwrap();
    b.until("b's replay", |t| {
        t.has("attached", |_| true) && !t.bytes.is_empty()
    });
    a.until("the smaller grid", |t| {
        t.has("size", |v| v["cols"] == 80 && v["rows"] == 24)
    });
    b.until("presence of both", |t| {
        t.has("presence", |v| {
            v["viewers"].as_array().is_some_and(|a| a.len() == 2)
        })
    });
    // Let the resize's redraw pass, then compare what each receives from here on.
    a.pump(Duration::from_millis(500));
    b.pump(Duration::from_millis(500));
    let (a0, b0) = (a.bytes.len(), b.bytes.len());
    a.keys("echo both-$((40+2))\r");
    a.until("the echo on a", |t| t.text().contains("both-42"));
    b.until("the echo on b", |t| t.text().contains("both-42"));
    a.pump(Duration::from_millis(500));
    b.pump(Duration::from_millis(500));
    assert_eq!(
        String::from_utf8_lossy(&a.bytes[a0..]),
        String::from_utf8_lossy(&b.bytes[b0..]),
        "the two viewers saw different bytes"
    );
    a.close();
    b.close();
}

#[test]
fn two_clients_see_the_same_bytes_and_the_smallest_grid_on_a_local_and_a_remote_pane() {
    let w = world("term-two");
    let remote = shell_on(&w, &w.node_id);
    two_clients_on(&w, &remote);
    let local = shell_on(&w, &local_node(&w));
    two_clients_on(&w, &local);
    // A token bound to the remote pane is refused on the local one, and spent by the attempt.
    let tok = mint(&w, &w.cookie, &remote);
    assert_eq!(attach(&w, &local, &tok, "").err(), Some(403));
    assert_eq!(attach(&w, &remote, &tok, "").err(), Some(401));
}

#[test]
fn vim_on_a_remote_pane_still_takes_arrow_keys_after_a_reattach() {
    let Some(vim) = ["vim", "vim.tiny"].into_iter().find(|v| {
        std::process::Command::new(v)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }) else {
        assert!(std::env::var_os("CI").is_none(), "vim is missing");
        return;
    };
    let w = world("term-vim");
    let id = shell_on(&w, &w.node_id);
    let file = w.dir.join("work").join("notes.txt");
    let body: String = (1..=200).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&file, body).unwrap();
    let mut t = attach(&w, &id, &mint(&w, &w.cookie, &id), "&cols=80&rows=24").unwrap();
    t.until("attached", |t| t.has("attached", |_| true));
    t.keys(&format!("{vim} -u NONE -i NONE -N -n {}\r", file.display()));
    t.until("vim", |t| t.text().contains("line 20"));
    t.pump(Duration::from_millis(300));
    t.close();
    // Come back: the replay must leave the terminal on vim's alternate screen in vim's modes.
    let mut t = attach(&w, &id, &mint(&w, &w.cookie, &id), "&cols=80&rows=24").unwrap();
    t.until("the replay", |t| t.text().contains("line 20"));
    let mut vt = vt100::Parser::new(24, 80, 0);
    vt.process(&t.bytes);
    let before = vt.screen().cursor_position();
    assert!(vt.screen().alternate_screen(), "not on vim's screen");
    assert!(
        vt.screen().application_cursor(),
        "vim's cursor-key mode was lost"
    );
    // What a terminal in that mode sends for Down, three times.
    let replayed = t.bytes.len();
    t.keys("\x1bOB\x1bOB\x1bOB");
    t.until("vim to move", |t| t.bytes.len() > replayed);
    t.pump(Duration::from_millis(300));
    vt.process(&t.bytes[replayed..]);
    assert_eq!(
        vt.screen().cursor_position(),
        (before.0 + 3, before.1),
        "the arrow keys did not move vim's cursor"
    );
    t.keys("\x1b:q!\r");
    t.close();
}

#[test]
fn a_read_only_share_on_a_remote_pane_cannot_type() {
    let w = world("term-share");
    let id = shell_on(&w, &w.node_id);
    let r = w.post(
        "/api/users",
        &json!({ "email": "bob@example.test", "displayName": "Bob", "password": "another horse battery", "role": "user" }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let bob_id = r.json()["id"].as_str().unwrap().to_owned();
    let r = http(
        w.port,
        "POST",
        "/api/auth/sign-in",
        &[("Origin", w.base().as_str())],
        Some(&json!({ "email": "bob@example.test", "password": "another horse battery" })),
    )
    .unwrap();
    let bob = r
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let r = call(
        &w,
        &w.cookie,
        "PUT",
        &format!("/api/subshells/{id}/shares/{bob_id}"),
        Some(&json!({ "access": "read" })),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let mut t = attach(&w, &id, &mint(&w, &bob, &id), "").unwrap();
    t.until("attached read-only", |t| {
        t.has("attached", |v| v["readOnly"] == true)
    });
    t.keys("echo from-bob-$((1+1))\r");
    t.until("the refusal", |t| {
        t.has("error", |v| v["code"] == "READ_ONLY")
    });
    // The owner watching the same pane sees nothing of it.
    let mut owner = attach(&w, &id, &mint(&w, &w.cookie, &id), "").unwrap();
    owner.until("attached", |t| t.has("attached", |_| true));
    owner.keys("echo owner-$((2+2))\r");
    owner.until("the owner's echo", |t| t.text().contains("owner-4"));
    t.until("the owner's echo on bob's screen", |t| {
        t.text().contains("owner-4")
    });
    assert!(!owner.text().contains("from-bob-2"), "a read share typed");
}

#[test]
fn a_viewer_of_a_remote_pane_outlives_its_node_going_away_and_is_redrawn_when_it_returns() {
    let mut w = world("term-back");
    let id = shell_on(&w, &w.node_id);
    let mut t = answering_viewer(&w, &id);
    w.kill_node();
    w.wait_offline();
    // Keys typed while the node is away are refused to this viewer, not queued or lost
    // silently; the socket stays open.
    t.keys("echo lost\r");
    t.until("the refusal", |t| {
        t.has("error", |v| v["code"] == "INPUT_FAILED")
    });
    // So is a new grid (the viewer's window changed meanwhile)...
    t.ws.send(Message::text(
        serde_json::json!({"type": "resize", "cols": 70, "rows": 20}).to_string(),
    ))
    .unwrap();
    t.until("the resize's refusal", |t| {
        t.has("error", |v| v["code"] == "RESIZE_FAILED")
    });
    // The pane printed while nobody could see it.
    let pane = format!("=tp-{id}:");
    let tmux = std::process::Command::new("tmux")
        .arg("-S")
        .arg(w.tmux_socket())
        .args(["send-keys", "-t", &pane, "-l", "echo while-$((3*3))-away\r"])
        .status()
        .unwrap();
    assert!(tmux.success());
    w.start_node();
    w.wait_online(WAIT);
    // The viewer hears why its screen is redrawn, and the replay holds what it missed.
    t.until("the resync", |t| {
        t.has("resync", |v| v["reason"] == "the node's link came back")
    });
    t.until("the missed output", |t| t.text().contains("while-9-away"));
    // ...and once the node is back the pane takes the grid it was refused.
    t.until("the grid refused while away", |t| {
        t.has("size", |v| v["cols"] == 70 && v["rows"] == 20)
    });
    let size = std::process::Command::new("tmux")
        .arg("-S")
        .arg(w.tmux_socket())
        .args([
            "display-message",
            "-p",
            "-t",
            &pane,
            "#{pane_width}x#{pane_height}",
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&size.stdout).trim(), "70x20");
    assert!(
        !t.has("resync", |v| v["reason"] != "the node's link came back"),
        "{:?}",
        t.frames
    );
    t.keys("echo after-$((2+2))\r");
    t.until("typing again", |t| t.text().contains("after-4"));
    t.close();
}

/// Keys the remote node cannot type (the pane's session vanished behind the plane's back, before
/// the node's exit check noticed) are reported to the viewer that typed them: the node types a
/// lone keystroke straight into tmux and answers once tmux has, so tmux's refusal reaches the
/// plane as the command's.
#[test]
fn keys_a_remote_node_cannot_type_are_reported_to_that_viewer() {
    let w = world("term-lost");
    let id = shell_on(&w, &w.node_id);
    let mut t = answering_viewer(&w, &id);
    let killed = std::process::Command::new("tmux")
        .arg("-S")
        .arg(w.tmux_socket())
        .args(["kill-session", "-t", &format!("=tp-{id}")])
        .status()
        .unwrap();
    assert!(killed.success());
    t.keys("x");
    t.until("the refusal", |t| {
        t.has("error", |v| v["code"] == "INPUT_FAILED")
    });
}

/// Bulk output of a remote pane reaches a viewer whole and in order (the node reads the pane's
/// log on its link's thread and holds a tail back while the link's queue is full).
#[test]
fn bulk_output_of_a_remote_pane_arrives_whole_and_in_order() {
    let w = world("term-bulk");
    let id = shell_on(&w, &w.node_id);
    let mut t = answering_viewer(&w, &id);
    let before = t.bytes.len();
    // Less than a viewer's queue holds, so a slow test client is never resynchronised.
    t.keys("seq 1 50000; echo done-$((2+3))\r");
    t.until("the end", |t| t.text().contains("done-5"));
    assert!(
        !t.has("resync", |_| true),
        "the viewer kept up: {:?}",
        t.frames
    );
    let text = String::from_utf8_lossy(&t.bytes[before..]).into_owned();
    let numbers: Vec<u64> = text
        .split("\r\n")
        // (The shell ends bracketed paste, `ESC[?2004l` and a carriage return, before it runs
        // the line.)
        .filter_map(|l| l.rsplit('\r').next().and_then(|l| l.parse().ok()))
        .collect();
    let first = numbers.iter().position(|&n| n == 1).unwrap();
    let run = &numbers[first..first + 50_000];
    assert!(
        run.iter().zip(1..).all(|(&n, want)| n == want),
        "a number missing or out of order"
    );
}

/// The pane's text with `lines` of history.
fn screen(w: &World, id: &str) -> String {
    let r = w.get(&format!("/api/subshells/{id}/screen?lines=500"));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()["text"].as_str().unwrap_or("").to_owned()
}

/// Twenty commands and a close frame sent at once: once the plane answered the close, all
/// twenty ran, in order (a line typed through the API after it runs after them).
fn keys_before_a_close_on(w: &World, id: &str) {
    let mut t = answering_viewer(w, id);
    // Typed-ahead keys are not echoed by the terminal: each command's output is a line of its
    // own whatever the timing.
    t.keys("stty -echo; echo quiet-$((2+2))\r");
    t.until("the shell's answer", |t| t.text().contains("quiet-4"));
    for n in 1..=20 {
        t.ws.send(Message::text(
            json!({ "type": "input", "data": format!("echo last-{n}\r") }).to_string(),
        ))
        .unwrap();
    }
    t.ws.close(Some(tungstenite::protocol::CloseFrame {
        code: tungstenite::protocol::frame::coding::CloseCode::Normal,
        reason: "".into(),
    }))
    .unwrap();
    t.until("the close", |t| t.closed.is_some());
    assert_eq!(t.close_code(), Some(1000));
    let r = w.post(
        &format!("/api/subshells/{id}/input"),
        &json!({ "text": "echo done-$((2+3))", "keys": ["enter"] }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let text = wait_until("the line typed after the close", WAIT, || {
        let s = screen(w, id);
        s.lines().any(|l| l.trim() == "done-5").then_some(s)
    });
    assert_eq!(
        ran_lines(&text),
        (1..=20).collect::<Vec<_>>(),
        "commands lost or out of order:\n{text}"
    );
}

#[test]
fn keys_sent_right_before_a_close_all_reach_a_remote_and_a_local_pane_in_order() {
    let w = world("term-lastkeys");
    let remote = shell_on(&w, &w.node_id);
    keys_before_a_close_on(&w, &remote);
    let local = shell_on(&w, &local_node(&w));
    keys_before_a_close_on(&w, &local);
}

/// Whether pane `id`'s program has ended while tmux still keeps the pane (before the node's
/// exit check noticed), on the tmux server at `socket`.
fn program_ended(socket: &Path, id: &str) -> bool {
    let out = std::process::Command::new("tmux")
        .arg("-S")
        .arg(socket)
        .args([
            "display-message",
            "-p",
            "-t",
            &format!("=tp-{id}:"),
            "#{pane_dead}",
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "1"
}

/// The node's watcher of pane deaths on `socket` (its `tmux … wait-for termplane-pane-died`
/// client), stopped with SIGSTOP while this lives and let go on with SIGCONT when dropped.
struct DeathWatcherStopped(Vec<String>);

impl DeathWatcherStopped {
    fn on(socket: &Path) -> Self {
        let socket = socket.to_string_lossy().into_owned();
        let pids = wait_until("the node's death watcher", WAIT, || {
            let pids: Vec<String> = std::fs::read_dir("/proc")
                .ok()?
                .filter_map(Result::ok)
                .filter_map(|e| {
                    let pid = e.file_name().to_string_lossy().into_owned();
                    pid.parse::<u32>().ok()?;
                    let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
                    let words: Vec<String> = cmd
                        .split(|b| *b == 0)
                        .map(|w| String::from_utf8_lossy(w).into_owned())
                        .collect();
                    let waits = words
                        .windows(2)
                        .any(|w| w[0] == "wait-for" && w[1] == "termplane-pane-died");
                    (waits && words.contains(&socket)).then_some(pid)
                })
                .collect();
            (!pids.is_empty()).then_some(pids)
        });
        for pid in &pids {
            let stopped = std::process::Command::new("kill")
                .args(["-STOP", pid])
                .status()
                .unwrap();
            assert!(stopped.success(), "SIGSTOP to {pid}");
        }
        Self(pids)
    }
}

impl Drop for DeathWatcherStopped {
    fn drop(&mut self) {
        for pid in &self.0 {
            let _ = std::process::Command::new("kill")
                .args(["-CONT", pid])
                .status();
        }
    }
}

/// Keys sent once the pane's program ended are refused (`error INPUT_FAILED`) before `exit`
/// and the close (1000), whether the node noticed the end yet or not. The node is kept from
/// hearing of the death (its `tmux wait-for` on the deaths channel is stopped, so neither the
/// pane's wrapper nor tmux's `pane-died` hook reaches it), so that the end is noticed by the exit
/// check's tick only and the keys meet the dead pane rather than a closed terminal.
fn keys_after_the_end_on(w: &World, id: &str, socket: &Path) {
    let mut t = answering_viewer(w, id);
    let _deaf = DeathWatcherStopped::on(socket);
    t.keys("exit 7\r");
    wait_until("the pane's program to end", WAIT, || {
        program_ended(socket, id).then_some(())
    });
    t.ws.send(Message::text(
        json!({ "type": "input", "data": "echo too-late\r" }).to_string(),
    ))
    .unwrap();
    t.until("the close", |t| t.closed.is_some());
    assert_eq!(t.close_code(), Some(1000));
    // The refusal may come before or after `exit` (the node's exit check may notice the end
    // while the keys are on their way), always before the close.
    assert!(
        t.has("error", |v| v["code"] == "INPUT_FAILED"),
        "{:?}",
        t.frames
    );
    assert!(t.has("exit", |v| v["exitCode"] == 7), "{:?}", t.frames);
}

#[test]
fn keys_sent_after_the_program_ended_are_refused_alike_on_a_remote_and_a_local_pane() {
    let w = world("term-late");
    let remote = shell_on(&w, &w.node_id);
    keys_after_the_end_on(&w, &remote, &w.tmux_socket());
    let local = shell_on(&w, &local_node(&w));
    keys_after_the_end_on(&w, &local, &w.local_tmux_socket());
}

/// Whether a process with exactly this command line runs on this host.
fn runs(cmdline: &[u8]) -> bool {
    std::fs::read_dir("/proc").is_ok_and(|d| {
        d.filter_map(Result::ok)
            .any(|e| std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == cmdline))
    })
}

/// A stop whose program obeys Ctrl-C ends with that program's own end, on a remote and on the
/// local node alike: tmux announces the death, the node reports the exit at once, and the stop's
/// grace, woken by that move of the row, answers `stopped` with the code the program ended with
/// (128 + SIGINT) rather than a pane found gone without one.
#[test]
fn a_stop_the_program_obeys_ends_with_the_programs_exit_code_on_either_node() {
    let w = world("term-stop");
    for (node, secs) in [(w.node_id.clone(), "6007"), (local_node(&w), "6008")] {
        let id = shell_on(&w, &node);
        let r = w.post(
            &format!("/api/subshells/{id}/input"),
            &json!({ "text": format!("exec sleep {secs}"), "keys": ["enter"] }),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        // Ctrl-C must reach sleep, not the shell about to become it (a duration no other
        // test uses finds the process).
        let cmdline = format!("sleep\0{secs}\0");
        wait_until("sleep in the pane", WAIT, || {
            runs(cmdline.as_bytes()).then_some(())
        });
        let r = w.post(&format!("/api/subshells/{id}/terminate"), &Value::Null);
        assert_eq!(r.status, 200, "{}", r.text());
        let row = r.json();
        assert_eq!(row["state"], "stopped", "{row}");
        assert_eq!(row["exitCode"], 130, "{row}");
    }
}
