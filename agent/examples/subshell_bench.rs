//! Subshell benchmarks with real processes on loopback: a `termplane serve` plane (its local
//! node on) and an enrolled `termplane-node run` daemon on its own tmux server, driven through
//! the REST API as a person's session would.
//!
//! ```text
//! cargo build --release -p termplane -p termplane-node --bins --example subshell_bench
//! target/release/examples/subshell_bench [--launches 100 --keys 200 --panes 200 --rest 30]
//! ```
//!
//! Prints, for the local node (panes in the plane's own executor) and the remote node:
//! * launch → pane running, p50 and p99 over `--launches` shells: `POST /api/subshells` until
//!   it answers with the row in `running` (the node has made the tmux session and started the
//!   program); each pane is deleted before the next launch.
//! * REST `input` → byte in the pane log, p50 and p99 over `--keys` keystrokes into a bash pane
//!   with a tail running: from just before `POST /api/subshells/:id/input` to the plane's receipt
//!   of the `output` event carrying the echo (the tail reads the pane log as it grows) — alone,
//!   and again while another pane on the same node has an initial prompt waiting for a quiet
//!   moment that never comes (the plane's `capture` polling of `prompt_deliver` runs beside the
//!   keystrokes).
//! * `--panes` live bash panes on the remote node, then on the local node: the resident memory
//!   of the plane, the node daemon and the tmux server before and after, and the plane's and
//!   the daemon's CPU over `--rest` seconds with every pane idle.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/suite/support/mod.rs"]
mod support;

use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use support::World;

fn percentile(v: &mut [u64], p: f64) -> f64 {
    v.sort_unstable();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i] as f64 / 1000.0
}

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn now_us() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_micros(),
    )
    .unwrap()
}

fn ok(r: &support::Resp, what: &str) -> Value {
    assert!(r.status / 100 == 2, "{what}: {} {}", r.status, r.text());
    if r.body.is_empty() {
        Value::Null
    } else {
        r.json()
    }
}

fn launch(w: &World, node: &str, extra: &Value) -> Value {
    let mut body = json!({ "nodeId": node, "harnessId": "shell", "cwd": w.dir.join("work").display().to_string() });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    ok(&w.post("/api/subshells", &body), "launch")
}

fn delete(w: &World, id: &str) {
    let r = support::http(
        w.port,
        "DELETE",
        &format!("/api/subshells/{id}"),
        &[("Cookie", w.cookie.as_str()), ("Origin", w.base().as_str())],
        None,
    )
    .unwrap();
    ok(&r, "delete");
}

fn events(w: &World, node: &str, after: u64, wait_ms: u64) -> Value {
    ok(
        &w.get(&format!(
            "/api/nodes/{node}/events?after={after}&waitMs={wait_ms}"
        )),
        "events",
    )
}

fn admin(w: &World, node: &str, cmd: &Value) -> Value {
    let a = ok(
        &w.post(&format!("/api/nodes/{node}/commands"), cmd),
        "command",
    );
    assert_eq!(a["result"]["ok"], true, "{cmd}: {a}");
    a["result"]["data"].clone()
}

fn launches(w: &World, node: &str, n: u64) -> Vec<u64> {
    // The first launch on a node also runs detection (then cached for ten minutes): not timed.
    let first = launch(w, node, &json!({}));
    delete(w, first["id"].as_str().unwrap());
    let mut lat = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        let s = launch(w, node, &json!({}));
        lat.push(u64::try_from(t.elapsed().as_micros()).unwrap());
        assert_eq!(s["state"], "running", "{s}");
        delete(w, s["id"].as_str().unwrap());
    }
    lat
}

/// Keystrokes into a fresh bash pane on `node`; each echo must arrive before the next key.
fn keystrokes(w: &World, node: &str, n: u64) -> Vec<u64> {
    let s = launch(w, node, &json!({}));
    let id = s["id"].as_str().unwrap().to_owned();
    std::thread::sleep(Duration::from_millis(300));
    let sub = format!("k{}", &id[..8]);
    admin(
        w,
        node,
        &json!({ "type": "tail_start", "subshellId": id, "subId": sub }),
    );
    let input = |body: Value| {
        ok(
            &w.post(&format!("/api/subshells/{id}/input"), &body),
            "input",
        )
    };
    let mut after = events(w, node, 0, 0)["next"].as_u64().unwrap();
    let mut lat = Vec::new();
    for i in 0..n {
        if i % 50 == 0 {
            input(json!({ "keys": ["ctrl-c"] }));
            std::thread::sleep(Duration::from_millis(100));
            after = events(w, node, 0, 0)["next"].as_u64().unwrap();
        }
        let sent = now_us();
        input(json!({ "text": "x" }));
        let deadline = Instant::now() + Duration::from_secs(10);
        'wait: loop {
            assert!(Instant::now() < deadline, "no echo");
            let v = events(w, node, after, 2_000);
            after = v["next"].as_u64().unwrap_or(after);
            for e in v["events"].as_array().into_iter().flatten() {
                if e["kind"] == "output"
                    && e["event"]["subId"] == sub.as_str()
                    && support::output_bytes(e).contains(&b'x')
                {
                    lat.push(e["atUs"].as_u64().unwrap().saturating_sub(sent));
                    break 'wait;
                }
            }
        }
    }
    admin(w, node, &json!({ "type": "tail_stop", "subId": sub }));
    delete(w, &id);
    lat
}

fn clk_tck() -> u64 {
    let out = Command::new("getconf").arg("CLK_TCK").output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(100)
}

/// `VmRSS` of `pid` in KiB.
fn rss_kib(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// `utime + stime` of `pid` in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = s.rsplit_once(')').map_or("", |(_, a)| a);
    let f: Vec<&str> = after.split_whitespace().collect();
    f.get(11).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
        + f.get(12).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
}

fn tmux_pid(socket: &std::path::Path) -> Option<u32> {
    let out = Command::new("tmux")
        .arg("-S")
        .arg(socket)
        .args(["display-message", "-p", "#{pid}"])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// `panes` live panes on `node`: memory before and after, CPU at rest.
fn many(w: &World, node: &str, panes: u64, rest: u64, socket: &std::path::Path, label: &str) {
    let plane = w.plane.as_ref().unwrap().id();
    let daemon = w.node.as_ref().map(std::process::Child::id);
    let tmux = || tmux_pid(socket);
    let before = (
        rss_kib(plane),
        daemon.map_or(0, rss_kib),
        tmux().map_or(0, rss_kib),
    );
    let mut ids = Vec::new();
    let t = Instant::now();
    for _ in 0..panes {
        ids.push(
            launch(w, node, &json!({}))["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let took = t.elapsed();
    std::thread::sleep(Duration::from_secs(3));
    let after = (
        rss_kib(plane),
        daemon.map_or(0, rss_kib),
        tmux().map_or(0, rss_kib),
    );
    let hz = clk_tck() as f64;
    let (p0, d0) = (cpu_ticks(plane), daemon.map_or(0, cpu_ticks));
    std::thread::sleep(Duration::from_secs(rest));
    let (p1, d1) = (cpu_ticks(plane), daemon.map_or(0, cpu_ticks));
    let pct = |a: u64, b: u64| (b - a) as f64 / hz / rest as f64 * 100.0;
    let daemon_line = if daemon.is_some() {
        format!(
            ", node daemon {:.1} → {:.1} MiB and {:.2}% of a core at rest",
            mib(before.1),
            mib(after.1),
            pct(d0, d1)
        )
    } else {
        String::new()
    };
    println!(
        "{label}: {panes} live panes (launched in {:.1} s): plane {:.1} → {:.1} MiB and {:.2}% of a core at rest over {rest} s, tmux server {:.1} → {:.1} MiB{daemon_line}",
        took.as_secs_f64(),
        mib(before.0),
        mib(after.0),
        pct(p0, p1),
        mib(before.2),
        mib(after.2),
    );
    for id in ids {
        delete(w, &id);
    }
}

fn local_node(w: &World) -> String {
    let nodes = ok(&w.get("/api/nodes"), "nodes");
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

fn main() {
    let n_launch = arg("--launches", 100);
    let n_keys = arg("--keys", 200);
    let panes = arg("--panes", 200);
    let rest = arg("--rest", 30);
    let exe = std::env::current_exe().unwrap();
    let bin_dir = exe.parent().unwrap().parent().unwrap();
    let node_bin = bin_dir.join("termplane-node");
    assert!(
        node_bin.exists(),
        "no {}: build it first (cargo build --release -p termplane-node)",
        node_bin.display()
    );
    let mut w = World::new("subshell-bench", &node_bin);
    // The plane's panes get the same clean home as the node's: a shell reading the user's own
    // rc files (a version manager's `init`, say) would measure those rather than termplane.
    // The local node's tmux server outlives the plane and keeps the environment it started
    // with: it goes too.
    w.stop_plane();
    let _ = std::process::Command::new("tmux")
        .arg("-S")
        .arg(w.local_tmux_socket())
        .arg("kill-server")
        .status();
    w.plane_env
        .push(("HOME".into(), w.dir.join("home").display().to_string()));
    w.start_plane();
    w.start_node();
    w.wait_online(support::WAIT);
    let remote = w.node_id.clone();
    let local = local_node(&w);
    println!(
        "termplane subshell benchmarks (real plane and node processes on loopback, {} build)",
        bin_dir.file_name().unwrap().to_string_lossy()
    );
    for (label, node) in [("local", local.as_str()), ("remote", remote.as_str())] {
        let mut l = launches(&w, node, n_launch);
        println!(
            "{label}: launch -> running over {n_launch}: p50 {:.2} ms  p99 {:.2} ms",
            percentile(&mut l, 0.5),
            percentile(&mut l, 0.99)
        );
        let mut k = keystrokes(&w, node, n_keys);
        println!(
            "{label}: REST input -> byte in the pane log over {n_keys}: p50 {:.3} ms  p99 {:.3} ms",
            percentile(&mut k, 0.5),
            percentile(&mut k, 0.99)
        );
        // Another pane whose initial prompt waits for a quiet moment that never comes.
        let r = w.post(
            "/api/presets",
            &json!({ "name": format!("ticker-{label}"), "harnessId": "shell", "flags": ["-c", "while :; do date +%N; sleep 0.1; done"] }),
        );
        let preset = ok(&r, "preset")["id"].as_str().unwrap().to_owned();
        let busy = launch(
            &w,
            node,
            &json!({ "presetId": preset, "prompt": "never typed" }),
        );
        let mut k = keystrokes(&w, node, n_keys);
        let busy_now = ok(
            &w.get(&format!("/api/subshells/{}", busy["id"].as_str().unwrap())),
            "busy",
        );
        assert_eq!(busy_now["promptState"], "pending", "{busy_now}");
        println!(
            "{label}: REST input -> byte in the pane log over {n_keys}, beside a pending prompt delivery: p50 {:.3} ms  p99 {:.3} ms",
            percentile(&mut k, 0.5),
            percentile(&mut k, 0.99)
        );
        delete(&w, busy["id"].as_str().unwrap());
    }
    many(&w, &remote, panes, rest, &w.tmux_socket(), "remote");
    let no_daemon = w.node.take();
    many(&w, &local, panes, rest, &w.local_tmux_socket(), "local");
    w.node = no_daemon;
}
