//! The runner: commands run one at a time in arrival order, except `detect`, which only reads
//! and runs beside them, so the commands after a `detect` with slow version probes do not wait
//! for it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use common::{Node, cmd, tmux_ok, wait_for};
use serde_json::{Value, json};
use termplane_exec::{Runner, runs_aside};
use termplane_proto::CommandResult;

/// The longest any single wait of these tests lasts.
const WAIT: Duration = Duration::from_secs(15);

/// Submits `command` as `jti`; its answer lands on `answers`.
fn submit(runner: &Runner, answers: &Sender<CommandResult>, jti: &str, command: Value) {
    let tx = answers.clone();
    runner
        .submit(jti.to_owned(), cmd(command), move |r| {
            let _ = tx.send(r);
        })
        .unwrap();
}

fn next(answers: &Receiver<CommandResult>) -> CommandResult {
    answers
        .recv_timeout(WAIT)
        .expect("an answer within the wait")
}

/// A harness binary whose version probe takes as long as the gate file stays absent (at most
/// 4.5 s, below detect's 5 s per probe), then says whether the gate had opened.
fn gated_probe(dir: &Path, gate: &Path) -> String {
    let p = dir.join("slow-harness");
    let g = gate.display();
    std::fs::write(
        &p,
        format!(
            "#!/bin/sh\ni=0\nwhile [ ! -e '{g}' ] && [ \"$i\" -lt 45 ]; do sleep 0.1; i=$((i+1)); done\n\
             if [ -e '{g}' ]; then echo 'probed after the gate opened'; else echo 'the gate never opened'; fi\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.display().to_string()
}

fn detect_of(binary: &str) -> Value {
    json!({
        "type": "detect",
        "rules": [{ "harnessId": "slow", "resolve": { "binaryName": "no-such-harness-binary", "knownPaths": [binary] } }],
        "envNames": [],
    })
}

#[test]
fn only_detect_runs_aside() {
    assert!(runs_aside(&cmd(detect_of("/x"))));
    for other in [
        json!({ "type": "ping" }),
        json!({ "type": "inventory" }),
        json!({ "type": "input", "subshellId": "ab", "data": "x" }),
        json!({ "type": "terminate", "subshellId": "ab" }),
        json!({ "type": "probe", "subshellIds": ["ab"] }),
    ] {
        assert!(!runs_aside(&cmd(other.clone())), "{other}");
    }
}

#[test]
fn a_detect_with_slow_probes_does_not_hold_back_the_commands_after_it() {
    let n = Node::new("aside");
    let gate = n.dir.path().join("gate");
    let probe = gated_probe(n.dir.path(), &gate);
    let runner = Runner::start(Arc::clone(&n.exec)).unwrap();
    let (answers, rx) = channel();
    let t0 = Instant::now();
    submit(&runner, &answers, "detect-1", detect_of(&probe));
    submit(&runner, &answers, "ping-2", json!({ "type": "ping" }));
    // The ping answers while the detect's probe is still waiting for the gate.
    let first = next(&rx);
    let ping_at = t0.elapsed();
    assert_eq!(first.reference, "ping-2", "{first:?}");
    assert!(first.ok);
    assert_eq!(first.data.as_ref().unwrap()["pong"], true);
    // Only now does the probe learn it may finish; its answer says it was still running.
    std::fs::write(&gate, b"").unwrap();
    let second = next(&rx);
    assert_eq!(second.reference, "detect-1", "{second:?}");
    let h = &second.data.as_ref().unwrap()["harnesses"][0];
    assert_eq!(h["installed"], true, "{second:?}");
    assert_eq!(h["version"], "probed after the gate opened", "{second:?}");
    assert!(t0.elapsed() > ping_at);
}

#[test]
fn commands_other_than_detect_keep_arrival_order() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("order");
    n.exec.start().unwrap();
    let cwd = n.dir.path().to_string_lossy().into_owned();
    let launch = |argv: Value| {
        json!({
            "type": "launch", "subshellId": "ab", "argv": argv,
            "resolve": { "binaryName": "sh" }, "cwd": cwd, "harnessId": "shell",
            "cols": 80, "rows": 24,
        })
    };
    // A program that ignores Ctrl-C: terminating it takes the whole grace before the kill.
    n.run(launch(json!([
        "sh",
        "-c",
        "trap '' INT; echo armed; while :; do sleep 0.05; done"
    ])))
    .unwrap();
    let armed = wait_for(WAIT, || {
        n.run(json!({ "type": "capture", "subshellId": "ab" }))
            .ok()
            .filter(|v| v["text"].as_str().unwrap_or("").contains("armed"))
    });
    assert!(armed.is_some(), "the program never armed its trap");
    let runner = Runner::start(Arc::clone(&n.exec)).unwrap();
    let (answers, rx) = channel();
    submit(
        &runner,
        &answers,
        "terminate-1",
        json!({ "type": "terminate", "subshellId": "ab" }),
    );
    submit(
        &runner,
        &answers,
        "launch-2",
        launch(json!(["sh", "-c", "echo again; exec sleep 30"])),
    );
    submit(&runner, &answers, "ping-3", json!({ "type": "ping" }));
    let got: Vec<CommandResult> = (0..3).map(|_| next(&rx)).collect();
    let order: Vec<&str> = got.iter().map(|r| r.reference.as_str()).collect();
    assert_eq!(order, ["terminate-1", "launch-2", "ping-3"], "{got:?}");
    // The terminate waited out the grace, and the launch behind it saw the old pane gone.
    assert_eq!(got[0].data.as_ref().unwrap()["graceful"], false, "{got:?}");
    assert!(got[1].ok, "{got:?}");
    assert!(got[2].ok, "{got:?}");
}

/// The pane's screen.
fn screen(n: &Node, id: &str) -> String {
    n.run(json!({ "type": "capture", "subshellId": id }))
        .ok()
        .and_then(|v| v["text"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[test]
fn keys_typed_at_once_never_pass_a_command_queued_before_them() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("typenow");
    n.exec.start().unwrap();
    n.launch_cat("ab");
    let id = termplane_proto::SubshellId::parse("ab").unwrap();
    let runner = Runner::start(Arc::clone(&n.exec)).unwrap();
    // Nothing queued: the keys go straight to tmux (the capture above attached the control
    // client they travel over).
    screen(&n, "ab");
    let one = runner.type_now(&id, "one\r").expect("typed at once");
    assert!(wait_for(WAIT, || screen(&n, "ab").contains("one").then_some(())).is_some());
    assert_eq!(wait_for(WAIT, || runner.keys_settled(one)), Some(Ok(())));
    // A command that takes a while (it waits for the pane to be quiet for 600 ms) is queued:
    // keys typed meanwhile are refused the short way and must queue behind it.
    let (answers, rx) = channel();
    submit(
        &runner,
        &answers,
        "deliver-1",
        json!({ "type": "prompt_deliver", "subshellId": "ab", "text": "two", "quietMs": 600 }),
    );
    assert!(
        runner.type_now(&id, "three").is_none(),
        "keys passed a queued command"
    );
    let tx = answers.clone();
    runner
        .submit(
            "input-2".into(),
            cmd(json!({ "type": "input", "subshellId": "ab", "data": "three\r" })),
            move |r| {
                let _ = tx.send(r);
            },
        )
        .unwrap();
    assert_eq!(next(&rx).reference, "deliver-1");
    assert_eq!(next(&rx).reference, "input-2");
    // Once the queue is empty again, the short way is open again (as soon as the worker has
    // counted the command done and let go of the control client, which may come just after
    // its answer; a `None` types nothing, so asking again is safe).
    assert!(wait_for(WAIT, || runner.type_now(&id, "four\r")).is_some());
    let text = wait_for(WAIT, || {
        let t = screen(&n, "ab");
        t.contains("four").then_some(t)
    })
    .expect("the last keys arrived");
    let at = |w: &str| {
        text.find(w)
            .unwrap_or_else(|| panic!("{w} missing: {text}"))
    };
    assert!(at("one") < at("two") && at("two") < at("three") && at("three") < at("four"));
}
