//! Waiting for tmux's word on keys typed without waiting (`termplane_runtime_smol::keys`), on a
//! real tmux: the wait ends when tmux answers, with nobody else reading its output, and two
//! senders waiting at once do not keep waking each other.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::Cell;
use std::sync::Arc;
use std::time::Duration;

use futures_lite::FutureExt as _;
use termplane_exec::{Daemonless, ExecConfig, Executor, Silent};
use termplane_proto::SubshellId;

/// A scratch folder removed when dropped (short: tmux socket paths are limited).
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("tpk{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Self(std::fs::canonicalize(&p).unwrap())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether tmux is usable; with `CI` set a missing tmux fails the test.
fn tmux_ok() -> bool {
    let ok = std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(ok || std::env::var_os("CI").is_none(), "tmux is missing");
    ok
}

/// An executor on its own tmux server with pane `ab` running `cat`, its control client
/// attached.
struct Node {
    exec: Arc<Executor>,
    _events: std::sync::mpsc::Receiver<termplane_proto::event::Event>,
    _dir: Scratch,
}

impl Node {
    fn new(tag: &str) -> Self {
        let dir = Scratch::new(tag);
        let mut cfg = ExecConfig::new(dir.0.join("data"));
        cfg.home_dir = dir.0.clone();
        let (exec, events) = Executor::new(cfg, Arc::new(Daemonless(Silent)));
        let exec = Arc::new(exec);
        exec.start().unwrap();
        let launch = serde_json::json!({
            "type": "launch", "subshellId": "ab", "argv": ["cat"],
            "resolve": { "binaryName": "cat" }, "cwd": dir.0.to_string_lossy(),
            "harnessId": "shell", "cols": 80, "rows": 24,
        });
        exec.execute(&serde_json::from_value(launch).unwrap())
            .unwrap();
        exec.tmux().run(&["list-sessions"]).unwrap();
        assert!(exec.tmux().control_attached());
        Self {
            exec,
            _events: events,
            _dir: dir,
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.exec.stop_server();
    }
}

/// Runs `f` to its end, failing the test after ten seconds (the deadline is the only timer: a
/// wait nothing wakes is what it catches).
fn within_ten_seconds<T>(f: impl std::future::Future<Output = T>) -> T {
    smol::block_on(f.or(async {
        smol::Timer::after(Duration::from_secs(10)).await;
        panic!("the wait never ended: nothing woke it");
    }))
}

/// Types `key` into `id` with the node's tmux held still, and waits for its answer with
/// `wait`, given the settle function to wait on: tmux runs again once the first look has found
/// no answer (told over a channel), so the wait must be woken by tmux's answer. Answers how the
/// keys went and how many looks it took.
fn held_key(
    n: &Node,
    id: &SubshellId,
    key: &str,
    wait: impl FnOnce(
        &mut dyn FnMut() -> Result<Result<(), String>, termplane_exec::KeysWatch>,
    ) -> Result<(), String>,
) -> (Result<(), String>, u32) {
    let server = n
        .exec
        .tmux()
        .run(&["display-message", "-p", "#{pid}"])
        .unwrap();
    let server = rustix::process::Pid::from_raw(server.trim().parse().unwrap()).unwrap();
    rustix::process::kill_process(server, rustix::process::Signal::STOP).unwrap();
    let typed = n.exec.type_unanswered(id, key).expect("sent");
    let (looked, first_look) = std::sync::mpsc::channel::<()>();
    let resume = std::thread::spawn(move || {
        first_look.recv().unwrap();
        rustix::process::kill_process(server, rustix::process::Signal::CONT).unwrap();
    });
    let asked = Cell::new(0_u32);
    let r = wait(&mut || {
        asked.set(asked.get() + 1);
        let answer = n.exec.keys_settle(typed);
        if asked.get() == 1 {
            assert!(answer.is_err(), "tmux answered while held still");
            looked.send(()).unwrap();
        }
        answer
    });
    resume.join().unwrap();
    (r, asked.get())
}

/// Keys sent without waiting are known typed as soon as tmux has answered, though no call
/// follows them to read the answer: the wait is woken by tmux's output itself. Keys for a pane
/// that does not exist come back with tmux's refusal.
#[test]
fn a_wait_for_keys_ends_on_tmux_answer_with_nobody_else_reading() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("answer");
    let ab = SubshellId::parse("ab").unwrap();
    let gone = SubshellId::parse("cd").unwrap();
    // tmux is held still while the keys go, so the first look certainly finds no answer: the
    // wait must then be woken by tmux's answer once it runs again.
    let (r, asked) = held_key(&n, &ab, "hello", |settle| {
        within_ten_seconds(termplane_runtime_smol::keys::keys_typed(settle))
    });
    assert_eq!(r, Ok(()));
    // Asked once before tmux ran again, then once per wake-up: a handful, never a loop.
    assert!((2..=4).contains(&asked), "asked {asked} times");
    let exec = Arc::clone(&n.exec);
    let refused = n.exec.type_unanswered(&gone, "nobody").expect("sent");
    let r = within_ten_seconds(termplane_runtime_smol::keys::keys_typed(|| {
        exec.keys_settle(refused)
    }));
    assert!(matches!(&r, Err(e) if e.contains("no such")), "{r:?}");
}

/// Several senders waiting at once each learn how their own keys went, whoever read tmux's
/// answers, and looking without finding news wakes nobody: the number of looks stays within a
/// few per sender, where two senders that woke each other would look until the deadline. They
/// wait through one `KeysWaits`, as a node's keystrokes do: several waiters on one registration
/// of tmux's output.
#[test]
fn senders_waiting_at_once_each_learn_their_own_fate_without_waking_each_other_in_turn() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("several");
    let ab = SubshellId::parse("ab").unwrap();
    let gone = SubshellId::parse("ef").unwrap();
    let tickets = [
        n.exec.type_unanswered(&ab, "one").unwrap(),
        n.exec.type_unanswered(&gone, "two").unwrap(),
        n.exec.type_unanswered(&ab, "three").unwrap(),
    ];
    let asked = Cell::new(0_u32);
    let waits = termplane_runtime_smol::keys::KeysWaits::default();
    let wait = |t: u64| {
        let exec = Arc::clone(&n.exec);
        let asked = &asked;
        waits.keys_typed(move || {
            asked.set(asked.get() + 1);
            exec.keys_settle(t)
        })
    };
    let (a, (b, c)) = within_ten_seconds(futures_lite::future::zip(
        wait(tickets[2]),
        futures_lite::future::zip(wait(tickets[1]), wait(tickets[0])),
    ));
    assert_eq!(a, Ok(()));
    assert!(matches!(&b, Err(e) if e.contains("no such")), "{b:?}");
    assert_eq!(c, Ok(()));
    assert!(asked.get() <= 12, "asked {} times", asked.get());
    assert!(waits.registrations() <= 1);
}

/// Keystrokes waited on one after another through one `KeysWaits` share one registration of
/// the control client's output with the reactor (registering it for each keystroke cost six
/// system calls), and each wait still ends on tmux's own answer: tmux is held still while each
/// key goes, so every wait finds no answer at first and must be woken.
#[test]
fn keystrokes_in_a_row_share_one_registration_and_each_is_woken_by_tmux() {
    if !tmux_ok() {
        return;
    }
    let n = Node::new("shared");
    let ab = SubshellId::parse("ab").unwrap();
    let waits = termplane_runtime_smol::keys::KeysWaits::default();
    for key in ["a", "b", "c", "d"] {
        let (r, _) = held_key(&n, &ab, key, |settle| {
            within_ten_seconds(waits.keys_typed(settle))
        });
        assert_eq!(r, Ok(()), "key {key}");
    }
    assert_eq!(waits.registrations(), 1);
}
