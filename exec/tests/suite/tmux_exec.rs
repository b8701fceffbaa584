//! The executor on a real tmux: the launch → input → capture → tail → terminate → exit path,
//! exit codes, the census and section I of the catalogue (tmux injection).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::{Duration, Instant};

use common::{Node, TempDir, tmux_ok, wait_for};
use serde_json::json;
use termplane_proto::event::Event;

const ID: &str = "0123abcd-ef";

fn launch(
    n: &Node,
    id: &str,
    argv: serde_json::Value,
    cwd: &str,
) -> Result<serde_json::Value, String> {
    n.run(json!({
        "type": "launch", "subshellId": id, "argv": argv,
        "resolve": { "binaryName": "bash" }, "cwd": cwd, "harnessId": "shell",
        "cols": 100, "rows": 30,
    }))
}

/// Runs exit ticks until one reports something (at most 10 s).
fn next_exits(n: &Node) -> Vec<termplane_proto::event::Exit> {
    wait_for(Duration::from_secs(10), || {
        let e = n.exec.exit_tick();
        (!e.is_empty()).then_some(e)
    })
    .expect("an exit within 10 s")
}

/// Asserts that the pane's screen shows `text` within `secs` seconds (the screen is the message).
fn assert_shows(n: &Node, id: &str, text: &str, secs: u64) {
    let shown = wait_for(Duration::from_secs(secs), || {
        capture(n, id).contains(text).then_some(())
    });
    assert!(
        shown.is_some(),
        "{id} never showed {text:?}:\n{}",
        capture(n, id)
    );
}

fn capture(n: &Node, id: &str) -> String {
    n.run(json!({ "type": "capture", "subshellId": id, "lines": 100 }))
        .map(|v| v["text"].as_str().unwrap_or("").to_owned())
        .unwrap_or_default()
}

#[test]
fn bash_pane_echo_capture_tail_terminate_exit() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("e2e");
    n.exec.start().unwrap();
    let cwd = n.dir.path().to_string_lossy().into_owned();
    let r = launch(
        &n,
        ID,
        json!(["@@HARNESS_BINARY@@", "--norc", "--noprofile"]),
        &cwd,
    )
    .unwrap();
    assert!(r["pane"].as_str().unwrap().starts_with('%'));
    assert!(r["binaryPath"].as_str().unwrap().ends_with("/bash"));
    let t = n
        .run(json!({ "type": "tail_start", "subshellId": ID, "subId": "t1", "fromByte": 0 }))
        .unwrap();
    assert_eq!(t["fromByte"], 0);
    n.run(json!({ "type": "input", "subshellId": ID, "data": "echo hel''lo; pwd", "keys": ["enter"] })).unwrap();
    // `pwd`'s line may be drawn a moment after `hello`'s: both are waited for.
    let shown = wait_for(Duration::from_secs(10), || {
        let c = capture(&n, ID);
        (c.lines().any(|l| l.trim() == "hello") && c.lines().any(|l| l.trim() == cwd)).then_some(c)
    });
    assert!(
        shown.is_some(),
        "the pane shows the echo, then its cwd {cwd}: {}",
        capture(&n, ID)
    );
    // The tail streams the same bytes.
    let mut seen = Vec::new();
    let got = wait_for(Duration::from_secs(10), || {
        while let Ok(Event::Output(o)) = n.events.try_recv() {
            assert_eq!(o.sub_id, "t1");
            assert_eq!(o.from_byte, seen.len() as u64);
            seen.extend(termplane_proto::key::b64url_decode(&o.data_b64).unwrap());
            assert_eq!(o.to_byte, seen.len() as u64);
        }
        String::from_utf8_lossy(&seen)
            .contains("hello\r\n")
            .then_some(())
    });
    assert!(
        got.is_some(),
        "tail output: {:?}",
        String::from_utf8_lossy(&seen)
    );
    let log = n
        .run(json!({ "type": "log_read", "subshellId": ID, "fromByte": 0, "maxBytes": 1_000_000 }))
        .unwrap();
    assert!(log["toByte"].as_u64().unwrap() > 0);
    assert_eq!(
        n.run(json!({ "type": "tail_stop", "subId": "t1" }))
            .unwrap()["stopped"],
        true
    );
    assert_eq!(
        n.run(json!({ "type": "pane_size", "subshellId": ID }))
            .unwrap(),
        json!({ "cols": 100, "rows": 30 })
    );
    n.run(json!({ "type": "resize", "subshellId": ID, "cols": 90, "rows": 20 }))
        .unwrap();
    assert_eq!(
        n.run(json!({ "type": "pane_size", "subshellId": ID }))
            .unwrap(),
        json!({ "cols": 90, "rows": 20 })
    );
    assert!(
        n.run(json!({ "type": "pane_cursor", "subshellId": ID }))
            .unwrap()["x"]
            .is_u64()
    );
    let census = n.exec.census().unwrap();
    assert_eq!(census.len(), 1);
    assert_eq!(census[0].subshell_id.as_str(), ID);
    let p = n
        .run(json!({ "type": "probe", "subshellIds": [ID, "ffff"] }))
        .unwrap();
    assert_eq!(p["subshells"][0]["alive"], true);
    assert_eq!(p["subshells"][1]["alive"], false);
    assert!(n.exec.exit_tick().is_empty());
    let term = n
        .run(json!({ "type": "terminate", "subshellId": ID }))
        .unwrap();
    assert_eq!(term["existed"], true);
    let exits = n.exec.exit_tick();
    assert_eq!(exits.len(), 1, "{exits:?}");
    assert_eq!(exits[0].subshell_id.as_str(), ID);
    assert_eq!(
        n.run(json!({ "type": "pane_size", "subshellId": ID }))
            .unwrap(),
        serde_json::Value::Null
    );
    assert_eq!(
        n.run(json!({ "type": "pane_cursor", "subshellId": ID }))
            .unwrap(),
        serde_json::Value::Null
    );
    assert!(n.exec.census().unwrap().is_empty());
}

#[test]
fn exit_codes_come_from_the_dead_pane_and_relaunch_is_allowed() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("code");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    // A pane that exits at once, while the exit tick polls: tmux 3.3a alone loses such a
    // status now and then; the pane's exit file keeps it.
    launch(&n, "c0de", json!(["sh", "-c", "exit 7"]), &cwd).unwrap();
    let exits = next_exits(&n);
    assert_eq!(exits[0].exit_code, Some(7));
    // Gone now: nothing more is reported.
    assert!(n.exec.exit_tick().is_empty());
    // A signal's death is reported as 128 + the signal, as a shell would.
    launch(&n, "c0de", json!(["sh", "-c", "kill -9 $$"]), &cwd).unwrap();
    let exits = next_exits(&n);
    assert_eq!(exits[0].exit_code, Some(137));
    launch(&n, "c0de", json!(["sleep", "30"]), &cwd).unwrap();
    assert!(
        launch(&n, "c0de", json!(["sleep", "30"]), &cwd)
            .unwrap_err()
            .contains("already running")
    );
    assert_eq!(
        n.run(json!({ "type": "kill", "subshellId": "c0de" }))
            .unwrap()["existed"],
        true
    );
    let e = n.exec.exit_tick();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].exit_code, None);
}

/// Keys for a pane whose program has ended are refused, on the queued way and the short way
/// alike, instead of being typed into the dead pane tmux keeps until the exit is reported; the
/// exit itself is reported as before.
#[test]
fn keys_for_a_pane_whose_program_ended_are_refused() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("ended");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    launch(&n, "e0d", json!(["sh", "-c", "read -r line; exit 3"]), &cwd).unwrap();
    let input = |text: &str| {
        n.run(json!({ "type": "input", "subshellId": "e0d", "data": text, "keys": [] }))
    };
    input("bye\r").unwrap();
    let refused = wait_for(Duration::from_secs(10), || input("late").err())
        .expect("keys refused once the program ended");
    assert!(refused.contains("program has ended"), "{refused}");
    let id = termplane_proto::SubshellId::parse("e0d").unwrap();
    assert_eq!(n.exec.type_unanswered(&id, "late"), None);
    let exits = next_exits(&n);
    assert_eq!(exits[0].exit_code, Some(3));
}

#[test]
fn exit_codes_survive_tmux_losing_them_over_many_instant_exits() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("codes");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    // Polling while panes die is what makes tmux 3.3a drop statuses (a third of them in a
    // shell loop here); every code must still arrive.
    for i in 0..12_u8 {
        let id = format!("c{i:02x}");
        let code = 3 + i;
        launch(&n, &id, json!(["sh", "-c", format!("exit {code}")]), &cwd).unwrap();
        let exits = next_exits(&n);
        assert_eq!(exits[0].exit_code, Some(i32::from(code)), "launch {i}");
    }
    assert!(
        !n.dir.path().join("data/exits/c00").exists(),
        "the exit file is removed"
    );
}

#[test]
fn a_dead_server_reports_every_tracked_pane_at_once() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("srv");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    launch(&n, "aa", json!(["sleep", "60"]), &cwd).unwrap();
    launch(&n, "bb", json!(["sleep", "60"]), &cwd).unwrap();
    assert_eq!(n.exec.census().unwrap().len(), 2);
    // Killed from outside (a crash, or the user), with the control client attached.
    assert!(n.exec.tmux().control_attached());
    let killed = std::process::Command::new("tmux")
        .arg("-S")
        .arg(n.exec.tmux().socket())
        .arg("kill-server")
        .status()
        .unwrap();
    assert!(killed.success());
    let mut e = n.exec.exit_tick();
    e.sort_by(|a, b| a.subshell_id.cmp(&b.subshell_id));
    assert_eq!(e.len(), 2);
    assert!(e.iter().all(|x| x.exit_code.is_none()));
}

#[test]
fn ctrl_c_reaches_the_program_and_the_exit_wrapper_keeps_waiting() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("ctrlc");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    // A program that survives Ctrl-C by handling it.
    let script = "trap 'echo got-int' INT; echo armed; while :; do sleep 0.05; done";
    launch(&n, "cc", json!(["sh", "-c", script]), &cwd).unwrap();
    let pid = n.exec.census().unwrap()[0].pid.expect("a pane pid");
    // Only once the program's own trap is set may the key go in.
    assert_shows(&n, "cc", "armed", 10);
    n.run(json!({ "type": "input", "subshellId": "cc", "data": "", "keys": ["ctrl-c"] }))
        .unwrap();
    assert_shows(&n, "cc", "got-int", 5);
    // The wrapper (the pane's own process) is still there, waiting for the program, a while
    // after the key (an end it does not make is given 200 ms to happen: time is the subject).
    std::thread::sleep(Duration::from_millis(200));
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    assert!(n.exec.exit_tick().is_empty(), "nothing exited");
    // A program that Ctrl-C ends reports 130, as a shell would.
    launch(
        &n,
        "cd",
        json!(["sh", "-c", "echo up; exec sleep 30"]),
        &cwd,
    )
    .unwrap();
    assert_shows(&n, "cd", "up", 10);
    let t = n
        .run(json!({ "type": "terminate", "subshellId": "cd" }))
        .unwrap();
    assert_eq!(t["graceful"], true, "{t}");
    let exits = wait_for(Duration::from_secs(10), || {
        let e = n.exec.exit_tick();
        e.into_iter().find(|x| x.subshell_id.as_str() == "cd")
    })
    .unwrap();
    assert_eq!(exits.exit_code, Some(130));
}

#[test]
fn prompt_deliver_waits_for_quiet_then_types() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("prompt");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    launch(&n, "dd", json!(["bash", "--norc", "--noprofile"]), &cwd).unwrap();
    let r = n
        .run(json!({ "type": "prompt_deliver", "subshellId": "dd", "text": "echo deliv''ered", "quietMs": 300, "timeoutMs": 8000 }))
        .unwrap();
    assert_eq!(r["delivered"], true);
    assert!(r["waitedMs"].as_u64().unwrap() >= 300);
    assert!(
        wait_for(Duration::from_secs(5), || capture(&n, "dd")
            .lines()
            .any(|l| l.trim() == "delivered")
            .then_some(()))
        .is_some()
    );
    // A pane that never goes quiet times out.
    launch(
        &n,
        "ee",
        json!(["sh", "-c", "while :; do date +%s%N; sleep 0.05; done"]),
        &cwd,
    )
    .unwrap();
    // The program is running (its output changes every 50 ms) before the wait begins.
    assert!(
        wait_for(Duration::from_secs(10), || capture(&n, "ee")
            .chars()
            .any(|c| c.is_ascii_digit())
            .then_some(()))
        .is_some()
    );
    let e = n
        .run(json!({ "type": "prompt_deliver", "subshellId": "ee", "text": "x", "quietMs": 1500, "timeoutMs": 4000 }))
        .unwrap_err();
    assert_eq!(e, "pane never went quiet");
}

#[test]
fn prompt_deliver_waits_for_a_first_screen_and_presses_enter_apart_from_the_text() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("prompt-apart");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    // Blank for a second (a CLI starting up), then a program that reads its terminal raw half
    // a second after it last did and shows what each read returned.
    let reader = "import os, time, tty; tty.setraw(0); time.sleep(1); os.write(1, b'ready\\r\\n'); [(time.sleep(0.5), os.write(1, repr(os.read(0, 4096)).encode() + b'\\r\\n')) for _ in range(9)]";
    launch(&n, "fa", json!(["python3", "-c", reader]), &cwd).unwrap();
    n.run(json!({ "type": "prompt_deliver", "subshellId": "fa", "text": "fix it", "quietMs": 300, "timeoutMs": 20000 }))
        .unwrap();
    let shown = wait_for(Duration::from_secs(10), || {
        let c = capture(&n, "fa");
        c.contains("b'\\r'").then_some(c)
    })
    .unwrap_or_else(|| panic!("no Enter of its own: {}", capture(&n, "fa")));
    assert!(shown.contains("b'fix it'"), "{shown}");
    assert!(shown.find("ready") < shown.find("b'fix it'"), "{shown}");
}

#[test]
fn launch_writes_the_mcp_file_0600_and_passes_env() {
    if !tmux_ok() {
        return;
    }
    use std::os::unix::fs::PermissionsExt as _;
    let n = Node::new("mcp");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    let mcp = n.dir.path().join("mcp.json");
    n.run(json!({
        "type": "launch", "subshellId": "ab", "argv": ["bash", "--norc", "--noprofile"],
        "resolve": { "binaryName": "bash" }, "cwd": cwd, "harnessId": "shell", "cols": 80, "rows": 24,
        "credentialEnv": { "TERMPLANE_TOKEN": "tp_x", "TERMPLANE_SUBSHELL_ID": "ab" },
        "preset": { "env": { "PRESET_V": "p1" } },
        "mcp": { "path": mcp.to_string_lossy(), "fileContent": "{\"m\":1}", "env": { "MCP_V": "m1" } },
    }))
    .unwrap();
    assert_eq!(std::fs::read_to_string(&mcp).unwrap(), "{\"m\":1}");
    assert_eq!(
        std::fs::metadata(&mcp).unwrap().permissions().mode() & 0o777,
        0o600
    );
    n.run(json!({ "type": "input", "subshellId": "ab", "data": "echo \"=$TERMPLANE_SUBSHELL_ID=$PRESET_V=$MCP_V=\"", "keys": ["enter"] })).unwrap();
    assert_shows(&n, "ab", "=ab=p1=m1=", 5);
    // The allowlist applies to cwd; a missing cwd is refused.
    let other = TempDir::new("other");
    n.run(json!({ "type": "set_allowed_dirs", "dirs": [other.path().to_string_lossy()] }))
        .unwrap();
    assert!(
        launch(&n, "ac", json!(["true"]), &cwd)
            .unwrap_err()
            .contains("outside the allowed")
    );
    assert!(
        launch(
            &n,
            "ac",
            json!(["true"]),
            &format!("{}/nope", other.path().display())
        )
        .is_err()
    );
    // Maintenance refuses launch.
    n.run(
        json!({ "type": "set_maintenance", "on": true, "changedAt": "2026-11-22T00:00:00.000Z" }),
    )
    .unwrap();
    assert_eq!(
        launch(&n, "ad", json!(["true"]), &other.path().to_string_lossy()).unwrap_err(),
        "in maintenance"
    );
    let m = n.exec.maintenance_watch().check().unwrap();
    assert!(m.on);
    assert!(n.exec.maintenance_watch().check().is_none());
}

// ----- section I -----

#[test]
fn i101_ids_are_validated_before_use() {
    for bad in [
        "%1; kill-server",
        "%1 \\; run-shell id",
        "%1\nkill-server",
        "$(id)",
        "`id`",
        "-t",
        "{kill-server}",
        "#{pane_id}",
        "#(id)",
        "~",
        "$HOME",
        "\\u0041",
        "a:b.c",
        "",
    ] {
        let v = json!({ "type": "capture", "subshellId": bad });
        assert!(
            serde_json::from_value::<termplane_proto::Command>(v).is_err(),
            "{bad:?}"
        );
        assert!(!termplane_exec::tmux::is_pane_id(bad));
        assert!(!termplane_exec::tmux::is_window_id(bad));
        assert!(!termplane_exec::tmux::is_session_id(bad));
    }
    let huge = "a".repeat(10_000);
    assert!(
        serde_json::from_value::<termplane_proto::Command>(
            json!({ "type": "kill", "subshellId": huge })
        )
        .is_err()
    );
    assert!(!termplane_exec::tmux::is_pane_id(&format!(
        "%{}",
        "1".repeat(10_000)
    )));
}

#[test]
fn i102_argv_words_are_never_a_shell_string() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("i102");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    let mark = n.dir.path().join("i102-mark");
    // One word that a shell would split and run: must be exec-ed as one (missing) program.
    let word = format!("true; touch {}", mark.display());
    let _ = launch(&n, "a1", json!([word]), &cwd);
    // Separators as separate words reach the program literally.
    launch(
        &n,
        "a2",
        json!([
            "printf",
            "<%s>",
            "a",
            ";",
            "kill-server",
            "\\;",
            "b;",
            "{",
            "}",
            "$(id)"
        ]),
        &cwd,
    )
    .unwrap();
    let shown = wait_for(Duration::from_secs(5), || {
        let c = capture(&n, "a2");
        c.contains("<$(id)>").then_some(c)
    })
    .unwrap();
    assert!(
        shown.contains("<a><;><kill-server><\\;><b;><{><}><$(id)>"),
        "{shown}"
    );
    // A `#()` job tmux would start runs in the background: it is given 300 ms to leave its
    // mark (what must not happen is waited for: time is the subject).
    std::thread::sleep(Duration::from_millis(300));
    assert!(!mark.exists());
    assert!(n.exec.tmux().version().is_ok());
    assert!(n.exec.census().is_ok(), "the server survived");
}

#[test]
fn i103_text_is_literal_and_keys_come_from_the_enum() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("i103");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    launch(&n, "b1", json!(["cat"]), &cwd).unwrap();
    let text = "-t =x: -l -- C-c Enter ; kill-server \\; #{pane_id} ;";
    n.run(json!({ "type": "input", "subshellId": "b1", "data": text, "keys": ["enter"] }))
        .unwrap();
    assert_shows(&n, "b1", text, 5);
    // Over the control client every word is quoted: quotes, expansions, backslashes and a
    // newline (which would end a control-mode command line) arrive as typed.
    assert!(
        n.exec.tmux().control_attached(),
        "the calls did not use the control client"
    );
    let quoted = "it's \"q\" $HOME ~/x '' \\ \\n %begin 1 2 3";
    n.run(json!({ "type": "input", "subshellId": "b1", "data": quoted, "keys": ["enter"] }))
        .unwrap();
    n.run(json!({ "type": "input", "subshellId": "b1", "data": "first\nkill-server\nlast", "keys": ["enter"] }))
        .unwrap();
    assert!(
        wait_for(Duration::from_secs(5), || {
            let c = capture(&n, "b1");
            (c.contains(quoted) && c.contains("kill-server\nlast")).then_some(())
        })
        .is_some(),
        "{}",
        capture(&n, "b1")
    );
    assert!(n.exec.tmux().control_attached());
    // A long text is chunked and arrives whole.
    let long: String = (0..3000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    n.run(json!({ "type": "input", "subshellId": "b1", "data": long }))
        .unwrap();
    assert_shows(&n, "b1", &long[2900..], 5);
    for bad in ["C-c", "Enter", "send-keys", "kill-server"] {
        let v = json!({ "type": "input", "subshellId": "b1", "data": "", "keys": [bad] });
        assert!(
            serde_json::from_value::<termplane_proto::Command>(v).is_err(),
            "{bad}"
        );
    }
    assert!(
        n.exec.census().unwrap().len() == 1,
        "the server and pane survived"
    );
}

#[test]
fn i104_hash_paren_never_runs() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("i104");
    let mark = n.dir.path().join("pwned");
    let inj = format!("#(touch {})", mark.display());
    let fmt = format!("#{{s/x/y/:#(touch {})}}", mark.display());
    // A working directory whose name is an injection (relative touch: checked below).
    let cwd_dir = n.dir.path().join("#(touch pwned-cwd)");
    std::fs::create_dir_all(&cwd_dir).unwrap();
    let mut launch = json!({
        "type": "launch", "subshellId": "c1",
        "argv": ["bash", "--norc", "--noprofile", "-c", "cat", &inj, &fmt],
        "resolve": { "binaryName": &inj, "envOverride": "NO_SUCH_VAR" },
        "cwd": cwd_dir.to_string_lossy(), "harnessId": &inj, "cols": 80, "rows": 24,
        "credentialEnv": { "TERMPLANE_X": &inj }, "preset": { "env": { "P": &fmt }, "flags": [&inj] },
        "resume": &inj,
    });
    // A resume pin is a plain token: this one is refused before anything runs.
    let e = n.run(launch.clone()).unwrap_err();
    assert!(e.contains("resume pin"), "{e}");
    launch["resume"] = json!("r-1");
    n.run(launch).unwrap();
    n.run(json!({ "type": "input", "subshellId": "c1", "data": format!("{inj} {fmt}"), "keys": ["enter"] })).unwrap();
    n.run(json!({ "type": "prompt_deliver", "subshellId": "c1", "text": &inj, "quietMs": 100, "timeoutMs": 5000 })).unwrap();
    n.run(json!({ "type": "tail_start", "subshellId": "c1", "subId": &inj }))
        .unwrap();
    n.run(json!({ "type": "tail_stop", "subId": &inj }))
        .unwrap();
    n.run(json!({ "type": "capture", "subshellId": "c1", "lines": 10 }))
        .unwrap();
    let _ = n.run(json!({ "type": "stat_dir", "path": format!("/{inj}") }));
    let _ = n.run(json!({ "type": "write_file", "path": format!("{}/{}", n.dir.path().display(), inj.replace('/', "_")), "chunk_b64": "", "chunk": 0, "eof": true }));
    n.run(json!({ "type": "detect", "rules": [{ "harnessId": &inj, "resolve": { "binaryName": &inj } }], "envNames": [&inj] })).unwrap();
    assert_shows(&n, "c1", "#(touch", 5);
    n.run(json!({ "type": "terminate", "subshellId": "c1" }))
        .unwrap();
    // As above: a `#()` job is given half a second to leave its mark.
    std::thread::sleep(Duration::from_millis(500));
    assert!(!mark.exists(), "#() ran");
    for dir in [
        n.dir.path().to_path_buf(),
        cwd_dir.clone(),
        std::env::current_dir().unwrap(),
        termplane_exec::fs::home_dir(),
        std::path::PathBuf::from("/"),
    ] {
        assert!(
            !dir.join("pwned-cwd").exists(),
            "#() ran in {}",
            dir.display()
        );
    }
}

#[test]
fn output_printed_before_the_log_could_attach_is_in_the_pane_log() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("early");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    // A pane that prints at once and exits: its first bytes race the log attach, so several
    // launches give the race many chances to show.
    for i in 0..8_u32 {
        let id = format!("ea{i:02x}");
        let r = launch(
            &n,
            &id,
            json!(["sh", "-c", format!("printf 'first-bytes-{i}'")]),
            &cwd,
        )
        .unwrap();
        assert!(r.get("note").is_none(), "{r}");
        let logged = wait_for(Duration::from_secs(10), || {
            let v = n
                .run(json!({ "type": "log_read", "subshellId": id, "fromByte": 0, "maxBytes": 4096 }))
                .ok()?;
            let text = String::from_utf8(
                termplane_proto::key::b64url_decode(v["data_b64"].as_str().unwrap_or("")).ok()?,
            )
            .ok()?;
            text.contains(&format!("first-bytes-{i}")).then_some(())
        });
        assert!(
            logged.is_some(),
            "launch {i}: the first bytes are missing from the log"
        );
    }
}

#[test]
fn calls_travel_over_the_control_client_and_answer_as_a_tmux_process_would() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("ctl");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    // Pane text shaped like control-mode frames, colours and a tab.
    let script =
        "printf '%%end 1 2 1\\n%%begin 1 3 1\\n%%exit\\n\\033[31mred\\033[0m\\tend\\n'; sleep 30";
    launch(&n, "c7", json!(["sh", "-c", script]), &cwd).unwrap();
    let target = "=tp-c7:";
    let args = ["capture-pane", "-p", "-e", "-J", "-t", target];
    let spawned = wait_for(Duration::from_secs(10), || {
        let s = n.exec.tmux().run_spawned(&args).ok()?;
        s.contains("end\n").then_some(s)
    })
    .expect("the pane printed");
    assert!(n.exec.tmux().control_attached(), "no control client");
    let over_control = n.exec.tmux().run(&args).unwrap();
    assert!(
        n.exec.tmux().control_attached(),
        "the control client was dropped"
    );
    assert_eq!(over_control, spawned);
    assert!(over_control.contains("%end 1 2 1\n%begin 1 3 1\n%exit\n"));
    // The executor's own capture goes the same way and the client survives it.
    assert!(capture(&n, "c7").contains("%exit"));
    assert!(n.exec.tmux().control_attached());
    // A missing target is an authoritative "gone", as with a process.
    assert_eq!(
        n.run(json!({ "type": "pane_size", "subshellId": "c8" }))
            .unwrap(),
        serde_json::Value::Null
    );
    n.exec.stop_server();
    assert!(!n.exec.tmux().control_attached());
}

#[test]
fn config_isolation_points_the_harness_at_a_private_directory_and_the_preset_env_wins() {
    if !tmux_ok() {
        return;
    }
    use std::os::unix::fs::PermissionsExt as _;
    let n = Node::new("iso");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    let launch_iso = |id: &str, harness: &str, resume: Option<&str>| {
        let mut v = json!({
            "type": "launch", "subshellId": id, "argv": ["bash", "--norc", "--noprofile"],
            "resolve": { "binaryName": "bash" }, "cwd": cwd, "harnessId": harness,
            "cols": 200, "rows": 24,
            "preset": { "configIsolation": true, "env": { "CODEX_HOME": "/from/preset" } },
        });
        if let Some(r) = resume {
            v["resume"] = json!(r);
        }
        n.run(v)
    };
    let r = launch_iso("15", "claude-code", Some("sess_01:ab-9.x")).unwrap();
    let dir = std::path::PathBuf::from(r["configDir"].as_str().unwrap());
    assert!(dir.ends_with("harness-config/claude-code"), "{r}");
    assert_eq!(r["resume"], "sess_01:ab-9.x");
    assert_eq!(
        std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert!(dir.join("claude").is_dir() && dir.join("config").is_dir());
    n.run(json!({ "type": "input", "subshellId": "15",
        "data": "echo \"=$XDG_CONFIG_HOME=$CLAUDE_CONFIG_DIR=$CODEX_HOME=$TERMPLANE_RESUME_ID=\"",
        "keys": ["enter"] }))
        .unwrap();
    let want = format!(
        "={}={}=/from/preset=sess_01:ab-9.x=",
        dir.join("config").display(),
        dir.join("claude").display()
    );
    assert!(
        wait_for(Duration::from_secs(5), || capture(&n, "15")
            .contains(&want)
            .then_some(()))
        .is_some(),
        "{want} not in {}",
        capture(&n, "15")
    );
    // A harness id that is not a plain name, or a bad pin, spawns nothing.
    for (harness, resume) in [
        ("../escape", None),
        ("..", None),
        ("a/b", None),
        ("ok", Some("pin; rm -rf /")),
        ("ok", Some("")),
    ] {
        let e = launch_iso("16", harness, resume).unwrap_err();
        assert!(e.contains("harnessId") || e.contains("resume pin"), "{e}");
    }
    assert!(!n.dir.path().join("escape").exists());
    let census = n.exec.census().unwrap();
    assert_eq!(census.len(), 1, "{census:?}");
}

#[test]
fn config_isolation_gives_gemini_a_home_whose_settings_get_the_entry_and_keep_the_rest() {
    if !tmux_ok() {
        return;
    }
    use std::os::unix::fs::PermissionsExt as _;
    let n = Node::new("settings-entry");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    let reg = n.exec.registrations_dir();
    let entry = json!({
        "dirEnv": "GEMINI_CLI_HOME", "file": ".gemini/settings.json",
        "keys": ["mcpServers", "termplane"],
        "value": { "command": "/usr/bin/termplane-node", "args": ["mcp", "--env-file", "${TERMPLANE_MCP_ENV_FILE}"] },
    });
    // Its hooks, a second entry in the same file.
    let hooks = json!({
        "dirEnv": "GEMINI_CLI_HOME", "file": ".gemini/settings.json", "keys": ["hooks"],
        "value": { "AfterAgent": [{ "hooks": [{ "type": "command", "command": "true" }] }] },
    });
    let launch_gemini = |id: &str, isolated: bool, env: serde_json::Value| {
        n.run(json!({
            "type": "launch", "subshellId": id, "argv": ["bash", "--norc", "--noprofile"],
            "resolve": { "binaryName": "bash" }, "cwd": cwd, "harnessId": "gemini",
            "cols": 200, "rows": 24,
            "preset": { "configIsolation": isolated, "env": env },
            "mcp": {
                "path": reg.join(format!("{id}.env")).to_string_lossy(),
                "fileContent": "TERMPLANE_TOKEN=tp_x\n",
                "env": { "TERMPLANE_MCP_ENV_FILE": reg.join(format!("{id}.env")).to_string_lossy() },
                "settingsEntry": entry,
                "settingsEntries": [hooks],
            },
        }))
        .unwrap()
    };
    // Gemini's own settings, as a sign-in leaves them, with another server of the user's.
    let home = n.dir.path().join("data/harness-config/gemini/gemini");
    let settings = home.join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        r#"{"security":{"auth":{"selectedType":"gemini-api-key"}},"mcpServers":{"mine":{"command":"x"}}}"#,
    )
    .unwrap();
    let r = launch_gemini("a1", true, json!({}));
    assert!(r.get("mcpWarning").is_none(), "{r}");
    // Under the test's temporary directory, which anyone may write to.
    assert_eq!(r["mcpFileRootOnly"], false, "{r}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    assert_eq!(
        v["security"]["auth"]["selectedType"], "gemini-api-key",
        "{v}"
    );
    assert_eq!(v["mcpServers"]["mine"]["command"], "x", "{v}");
    assert_eq!(v["mcpServers"]["termplane"], entry["value"], "{v}");
    assert_eq!(v["hooks"], hooks["value"], "{v}");
    assert_eq!(
        std::fs::metadata(&settings).unwrap().permissions().mode() & 0o777,
        0o600
    );
    n.run(json!({ "type": "input", "subshellId": "a1",
        "data": "echo \"=$GEMINI_CLI_HOME=\"", "keys": ["enter"] }))
        .unwrap();
    assert_shows(&n, "a1", &format!("={}=", home.display()), 5);

    // A settings file that is not an object is left as it is, and the answer says why the
    // server is not registered; the pane still starts.
    std::fs::write(&settings, "[1]").unwrap();
    let r = launch_gemini("a2", true, json!({}));
    assert!(
        r["mcpWarning"]
            .as_str()
            .unwrap()
            .contains("not a JSON object"),
        "{r}"
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "[1]");
    // Without isolation, or with the home moved out of it by the preset, nothing is written
    // outside the node's own directories.
    let elsewhere = TempDir::new("settings-elsewhere");
    let r = launch_gemini(
        "a3",
        true,
        json!({ "GEMINI_CLI_HOME": elsewhere.path().to_string_lossy() }),
    );
    assert!(r["mcpWarning"].as_str().unwrap().contains("outside"), "{r}");
    let r = launch_gemini("a4", false, json!({}));
    assert!(
        r["mcpWarning"]
            .as_str()
            .unwrap()
            .contains("config isolation"),
        "{r}"
    );
    assert!(!elsewhere.path().join(".gemini").exists());
    assert_eq!(n.exec.census().unwrap().len(), 4);
    // More than eight more entries: refused before anything is written or started.
    let e = n
        .run(json!({
            "type": "launch", "subshellId": "a5", "argv": ["bash", "--norc", "--noprofile"],
            "resolve": { "binaryName": "bash" }, "cwd": cwd, "harnessId": "gemini",
            "cols": 200, "rows": 24, "preset": { "configIsolation": true },
            "mcp": {
                "path": reg.join("a5.env").to_string_lossy(), "fileContent": "",
                "settingsEntries": vec![hooks.clone(); 9],
            },
        }))
        .unwrap_err();
    assert!(e.contains("at most 8 settings entries"), "{e}");
    assert!(!reg.join("a5.env").exists());
    assert_eq!(n.exec.census().unwrap().len(), 4);
}

#[test]
fn exit_ticks_running_alongside_launches_and_relaunches_report_no_false_exit() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("tickrace");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let seen = std::thread::scope(|s| {
        // Ticks back to back (the daemon's are 2 s apart) for at most 60 s.
        let ticker = s.spawn(|| {
            let mut seen = Vec::new();
            let start = std::time::Instant::now();
            while !stop.load(std::sync::atomic::Ordering::Relaxed)
                && start.elapsed() < Duration::from_secs(60)
            {
                seen.extend(n.exec.exit_tick());
            }
            seen
        });
        // A quick program exits and is relaunched under the same id as a long one, and fresh panes
        // come up, all while the ticks run.
        for i in 0..60 {
            let id = format!("ab{i:02}");
            launch(&n, &id, json!(["sh", "-c", "exit 7"]), &cwd).unwrap();
            assert!(
                wait_for(Duration::from_secs(10), || {
                    // Refused while the first program still runs.
                    launch(&n, &id, json!(["sleep", "600"]), &cwd).ok()
                })
                .is_some()
            );
            launch(&n, &format!("cd{i:02}"), json!(["sleep", "600"]), &cwd).unwrap();
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        ticker.join().unwrap()
    });
    // Every pane now running is alive and tracked: no tick reported it, and no tick killed it.
    let mut alive: Vec<String> = n
        .exec
        .census()
        .unwrap()
        .into_iter()
        .map(|p| p.subshell_id.as_str().to_owned())
        .collect();
    alive.sort();
    let want: Vec<String> = (0..60)
        .flat_map(|i| [format!("ab{i:02}"), format!("cd{i:02}")])
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(alive, want);
    for e in &seen {
        let id = e.subshell_id.as_str();
        assert!(id.starts_with("ab"), "a live pane was reported gone: {e:?}");
    }
    // Each relaunched pane's first program exited; ticks report at most one exit for it.
    let mut counts = std::collections::BTreeMap::new();
    for e in &seen {
        *counts.entry(e.subshell_id.as_str().to_owned()).or_insert(0) += 1;
    }
    assert!(counts.values().all(|c| *c <= 1), "{counts:?}");
    // And the survivors are all tracked: killing the server reports every one of them.
    let _ = n.exec.tmux().run(&["kill-server"]);
    let mut gone = Vec::new();
    let _ = wait_for(Duration::from_secs(10), || {
        gone.extend(
            n.exec
                .exit_tick()
                .into_iter()
                .map(|e| e.subshell_id.as_str().to_owned()),
        );
        (gone.len() >= want.len()).then_some(())
    });
    gone.sort();
    assert_eq!(gone, want);
}

/// Continues a stopped tmux server when dropped, whatever the test's outcome (so the node's
/// `Drop` can kill it).
struct Continue(i32);

impl Drop for Continue {
    fn drop(&mut self) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.0) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::CONT);
        }
    }
}

#[test]
fn a_stopped_tmux_server_fails_probes_and_commands_within_their_deadlines() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("sigstop");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    launch(&n, "5a", json!(["bash", "--norc", "--noprofile"]), &cwd).unwrap();
    assert!(n.exec.exit_tick().is_empty());
    let pid: i32 = n
        .exec
        .tmux()
        .run(&["display-message", "-p", "#{pid}"])
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let _cont = Continue(pid);
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid).unwrap(),
        rustix::process::Signal::STOP,
    )
    .unwrap();
    // A pane command answers (an error) instead of queueing forever.
    let t = Instant::now();
    let e = n
        .run(json!({ "type": "capture", "subshellId": "5a" }))
        .unwrap_err();
    let took = t.elapsed();
    eprintln!("capture failed after {took:?}: {e}");
    assert!(took < Duration::from_secs(12), "capture took {took:?}");
    // Two failed probes report the pane dead with exitCode null.
    let t = Instant::now();
    let mut exits = Vec::new();
    for _ in 0..2 {
        exits = n.exec.exit_tick();
        if !exits.is_empty() {
            break;
        }
    }
    let took = t.elapsed();
    eprintln!("two probes took {took:?}");
    assert_eq!(exits.len(), 1, "{exits:?}");
    assert_eq!(exits[0].exit_code, None);
    assert!(took < Duration::from_secs(25), "probes took {took:?}");
}

/// The live processes whose session id is `sid`, read from `/proc` (Linux); a zombie (ended,
/// not reaped yet by whoever inherited it) does not count.
fn session_members(sid: i32) -> Vec<(i32, String)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let close = stat.rfind(')')?;
            let mut fields = stat[close + 1..].split_whitespace();
            let state = fields.next()?;
            let session: i32 = fields.nth(2)?.parse().ok()?;
            (session == sid && state != "Z").then(|| (pid, stat[..=close].to_owned()))
        })
        .collect()
}

/// Waits until a process named `program` runs in the pane session `sid`.
fn wait_for_program(sid: i32, program: &str, limit: Duration) -> Option<()> {
    let name = format!("({program})");
    wait_for(limit, || {
        session_members(sid)
            .iter()
            .any(|(_, n)| n.ends_with(&name))
            .then_some(())
    })
}

/// The pid of a live pane's wrapper (the leader of the pane's session).
fn pane_pid(n: &Node, id: &str) -> i32 {
    let out = n
        .exec
        .tmux()
        .run(&["list-panes", "-a", "-F", "#{session_name} #{pane_pid}"])
        .unwrap();
    out.lines()
        .find(|l| l.split(' ').next().is_some_and(|s| s.contains(id)))
        .and_then(|l| l.split(' ').nth(1)?.parse().ok())
        .unwrap_or_else(|| panic!("no pane {id} in {out}"))
}

#[test]
#[cfg(target_os = "linux")]
fn kill_and_terminate_end_the_processes_that_outlive_the_hangup() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("hup");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    // A loop that ignores SIGHUP (and so do the `sleep`s it starts): closing the pane's terminal
    // alone would leave it running for ever. The second also ignores the Ctrl-C of `terminate`.
    let cases = [
        ("0dd5", "trap '' HUP; while :; do sleep 0.1; done", "kill"),
        (
            "0dd6",
            "trap '' HUP INT; while :; do sleep 0.1; done",
            "terminate",
        ),
    ];
    for (id, script, how) in cases {
        launch(&n, id, json!(["sh", "-c", script]), &cwd).unwrap();
        let sid = pane_pid(&n, id);
        wait_for_program(sid, "sleep", Duration::from_secs(5))
            .expect("the loop and its sleep running");
        let r = n.run(json!({ "type": how, "subshellId": id })).unwrap();
        assert_eq!(r["existed"], true, "{r}");
        let gone = wait_for(Duration::from_secs(5), || {
            session_members(sid).is_empty().then_some(())
        });
        assert!(
            gone.is_some(),
            "{how} left {:?} running",
            session_members(sid)
        );
    }
}

/// Keys sent over the control client without waiting for tmux's answer arrive in order, and
/// the calls after them still read their own answers: the unanswered blocks, an error among
/// them (a pane that does not exist), are read first, and each sender learns how its keys
/// went, whoever read the block.
#[test]
fn keys_sent_unanswered_arrive_and_later_calls_read_their_own_answers() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("unanswered");
    n.exec.start().unwrap();
    n.launch_cat("ab");
    let ab = termplane_proto::SubshellId::parse("ab").unwrap();
    let gone = termplane_proto::SubshellId::parse("cd").unwrap();
    let tmux = n.exec.tmux();
    // The first call attaches the control client.
    tmux.run(&["list-sessions"]).unwrap();
    assert!(tmux.control_attached());
    let mut tickets = Vec::new();
    for (i, word) in ["alpha", "beta", "gamma"].iter().enumerate() {
        tickets.push(n.exec.type_unanswered(&ab, word).expect(word));
        if i == 1 {
            tickets.push(n.exec.type_unanswered(&gone, "nobody").unwrap());
        }
    }
    tickets.push(n.exec.type_unanswered(&ab, "\r").unwrap());
    // The first is asked for at once, without waiting: known once tmux has answered.
    let first = wait_for(Duration::from_secs(10), || n.exec.keys_settled(tickets[0]));
    assert_eq!(first, Some(Ok(())));
    // A call right behind them answers with its own output, not theirs.
    let name = tmux
        .run(&["display-message", "-p", "-t", "=tp-ab:", "#{session_name}"])
        .unwrap();
    assert_eq!(name.trim(), "tp-ab");
    assert!(
        tmux.control_attached(),
        "the client was dropped as out of step"
    );
    // The call read the rest; each is still told how it went: beta, the pane that does not
    // exist, gamma, Enter.
    let fates: Vec<_> = tickets[1..]
        .iter()
        .map(|t| n.exec.keys_settled(*t))
        .collect();
    assert_eq!(fates[0], Some(Ok(())));
    assert!(
        matches!(&fates[1], Some(Err(e)) if e.contains("no such")),
        "{fates:?}"
    );
    assert_eq!(fates[2], Some(Ok(())));
    assert_eq!(fates[3], Some(Ok(())));
    let text = wait_for(Duration::from_secs(10), || {
        let t = n
            .run(json!({ "type": "capture", "subshellId": "ab" }))
            .ok()?;
        let t = t["text"].as_str()?.to_owned();
        t.contains("alphabetagamma").then_some(t)
    });
    assert!(text.is_some(), "the keys did not arrive in order");
    // Too long for one atomic write, or empty: refused, nothing sent.
    assert!(n.exec.type_unanswered(&ab, "").is_none());
    assert!(n.exec.type_unanswered(&ab, &"\u{1}".repeat(999)).is_none());
}

#[test]
fn without_a_locale_panes_stay_alive_and_tmux_answers_read_back_exactly() {
    if !tmux_ok()
        || !common::without_locale(
            "tmux_exec::without_a_locale_panes_stay_alive_and_tmux_answers_read_back_exactly",
        )
    {
        return;
    }
    for v in ["LANG", "LC_ALL", "LC_CTYPE"] {
        assert!(std::env::var_os(v).is_none(), "{v} is set");
    }
    let n = Node::new("nolocale");
    n.exec.start().unwrap();
    // A working directory whose name is not ASCII.
    let cwd = n.dir.path().join("wörk");
    std::fs::create_dir(&cwd).unwrap();
    let cwd = cwd.to_string_lossy().into_owned();
    let id = "c0c0";
    n.run(json!({
        "type": "launch", "subshellId": id, "argv": ["cat"],
        "resolve": { "binaryName": "cat" }, "cwd": cwd, "harnessId": "shell",
        "cols": 80, "rows": 24,
    }))
    .unwrap();
    // The pane lives: the census lists it, a probe finds it, a tick reports no exit.
    let census = n.exec.census().unwrap();
    assert_eq!(census.len(), 1, "{census:?}");
    assert_eq!(census[0].subshell_id.as_str(), id);
    assert!(census[0].pid.is_some(), "{census:?}");
    let p = n
        .run(json!({ "type": "probe", "subshellIds": [id] }))
        .unwrap();
    assert_eq!(p["subshells"][0]["alive"], true, "{p}");
    assert!(
        n.exec.exit_tick().is_empty(),
        "a live pane was reported exited"
    );
    // An answer carrying a tab and UTF-8 text comes back as tmux holds it, over the control
    // client and from a tmux process alike.
    let target = format!("=tp-{id}:");
    n.exec
        .tmux()
        .run(&["select-pane", "-t", target.as_str(), "-T", "tïtle ✓"])
        .unwrap();
    let args = [
        "list-panes",
        "-t",
        target.as_str(),
        "-F",
        "#{pane_title}\t#{pane_current_path}",
    ];
    let want = format!("tïtle ✓\t{cwd}\n");
    let spawned = wait_for(Duration::from_secs(10), || {
        let s = n.exec.tmux().run_spawned(&args).ok()?;
        (s == want).then_some(s)
    });
    assert_eq!(
        spawned.as_deref(),
        Some(want.as_str()),
        "{:?}",
        n.exec.tmux().run_spawned(&args)
    );
    assert!(n.exec.tmux().control_attached(), "no control client");
    assert_eq!(n.exec.tmux().run(&args).unwrap(), want);
    // Text typed in is echoed as typed.
    n.run(json!({ "type": "input", "subshellId": id, "data": "héllo wörld", "keys": ["enter"] }))
        .unwrap();
    assert_shows(&n, id, "héllo wörld\nhéllo wörld", 10);
    // A stop sees the pane die, and the tick reports that exit once.
    let term = n
        .run(json!({ "type": "terminate", "subshellId": id }))
        .unwrap();
    assert_eq!(term, json!({ "existed": true, "graceful": true }));
    let exits = n.exec.exit_tick();
    assert_eq!(exits.len(), 1, "{exits:?}");
    assert_eq!(exits[0].subshell_id.as_str(), id);
    assert!(n.exec.census().unwrap().is_empty());
}

/// A pane's death is announced (by its wrapper and by tmux's `pane-died` hook) and the executor
/// hears it: a waiter for deaths wakes with a higher count instead of at its deadline, and the
/// exit check then reports the pane with its code, as the node's and the plane's exit threads do.
#[test]
fn a_pane_that_ends_is_announced_without_waiting_for_the_tick() {
    announced_death("deaths", false);
}

/// tmux before 3.5 can lose a pane's SIGCHLD, and then never runs `pane-died`: with that hook
/// gone, as it is then, the pane's wrapper still announces the death.
#[test]
fn a_pane_whose_death_tmux_never_reports_is_announced_by_its_wrapper() {
    announced_death("deaths-nohook", true);
}

fn announced_death(tag: &str, without_hook: bool) {
    if !tmux_ok() {
        return;
    }
    let n = Node::new(tag);
    let cwd = n.dir.path().to_string_lossy().into_owned();
    launch(&n, "dead1", json!(["cat"]), &cwd).unwrap();
    // Ctrl-D is typed once cat itself reads the terminal (the wrapper starts it after its gate).
    let sid = pane_pid(&n, "dead1");
    wait_for_program(sid, "cat", Duration::from_secs(10)).expect("cat running in the pane");
    assert!(n.exec.exit_tick().is_empty(), "cat runs");
    if without_hook {
        let out = std::process::Command::new("tmux")
            .arg("-S")
            .arg(n.dir.path().join("data").join("tmux.sock"))
            .args(["set-hook", "-gu", "pane-died"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    let seen = n.exec.deaths_heard();
    // Ctrl-D at the start of a line ends cat with status 0.
    n.run(json!({ "type": "input", "subshellId": "dead1", "data": "", "keys": ["ctrl-d"] }))
        .unwrap();
    let heard = n
        .exec
        .wait_for_deaths(seen, Instant::now() + Duration::from_secs(60));
    assert!(heard > seen, "no death was announced within 60 s");
    let exits = next_exits(&n);
    assert_eq!(exits.len(), 1);
    assert_eq!(exits[0].subshell_id.as_str(), "dead1");
    assert_eq!(exits[0].exit_code, Some(0));
}

/// The node's end of a launch gate is let go as soon as the pane's wrapper has taken its line
/// and removed the gate (woken by that removal), not at the gate's 30 s hold.
#[test]
fn a_launch_gate_is_let_go_once_the_wrapper_removed_it() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("gate");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    launch(&n, "fa7e", json!(["cat"]), &cwd).unwrap();
    let gate = "fa7e.gate";
    let holds_gate = || {
        std::fs::read_dir("/proc/self/fd").is_ok_and(|d| {
            d.filter_map(Result::ok).any(|e| {
                std::fs::read_link(e.path()).is_ok_and(|t| t.to_string_lossy().contains(gate))
            })
        })
    };
    let let_go = wait_for(Duration::from_secs(10), || (!holds_gate()).then_some(()));
    assert!(let_go.is_some(), "the gate is still held after 10 s");
}

/// A kill that comes while the pane's program is only starting (forking a child that ignores
/// SIGHUP between the kill's listing of the pane's processes and the hangup) still leaves
/// nothing running: the session is swept again after the hangup. Several rounds, each killed at
/// a different moment of the start.
#[test]
#[cfg(target_os = "linux")]
fn a_kill_while_the_program_starts_leaves_nothing_running() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("early-kill");
    let cwd = n.dir.path().to_string_lossy().into_owned();
    for round in 0..12_u64 {
        let id = format!("e0{round:02}");
        launch(
            &n,
            &id,
            json!(["sh", "-c", "trap '' HUP; while :; do sleep 0.1; done"]),
            &cwd,
        )
        .unwrap();
        let sid = pane_pid(&n, &id);
        std::thread::sleep(Duration::from_millis(round % 6)); // the moment is the subject
        let r = n.run(json!({ "type": "kill", "subshellId": id })).unwrap();
        assert_eq!(r["existed"], true, "{r}");
        let gone = wait_for(Duration::from_secs(5), || {
            session_members(sid).is_empty().then_some(())
        });
        assert!(
            gone.is_some(),
            "round {round}: kill left {:?} running",
            session_members(sid)
        );
    }
}
