//! Link benchmarks with real processes on loopback: a `termplane serve` plane and a
//! `termplane-node run` daemon on its own tmux server, driven through the plane's
//! `POST /api/nodes/:id/commands` and `GET /api/nodes/:id/events`.
//!
//! ```text
//! cargo build --release -p termplane -p termplane-node
//! cargo run --release -p termplane-node --example node_bench [-- --calls 1000 --keys 200 --mib 100]
//! ```
//!
//! Prints, without recording anything:
//! * `ping` and `capture` round trips, p50 and p99 over `--calls` calls: `dispatch` is the
//!   plane's own measure from handing the signed command to the link until the node's result
//!   came back (the answer's `elapsedUs`); `http` adds the REST call around it.
//! * keystroke → `output` event, p50 over `--keys` single keystrokes into a bash pane with a
//!   tail running: from the plane's dispatch of `input` (`sentAtUs`) to the plane's receipt of the
//!   `output` event carrying the echo (`atUs`).
//! * output streaming: a pane runs `head -c <mib> MiB /dev/zero | base64 -w 0` under a tail; rate
//!   of pane-log bytes reaching the plane as `output` events, first to last event.
//!
//! The binaries are the ones next to this example (`target/<profile>/`); the plane is built there
//! when missing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/suite/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::{World, bash_launch};

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

fn round_trips(w: &World, cmd: &serde_json::Value, n: u64) -> (Vec<u64>, Vec<u64>) {
    let (mut dispatch, mut wall) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let t = Instant::now();
        let a = w.command_answer(cmd);
        wall.push(u64::try_from(t.elapsed().as_micros()).unwrap());
        assert_eq!(a["result"]["ok"], true, "{a}");
        dispatch.push(a["elapsedUs"].as_u64().unwrap());
    }
    (dispatch, wall)
}

fn main() {
    let calls = arg("--calls", 1000);
    let keys = arg("--keys", 200);
    let mib = arg("--mib", 100);
    let exe = std::env::current_exe().unwrap();
    let bin_dir = exe.parent().unwrap().parent().unwrap();
    let node_bin = bin_dir.join("termplane-node");
    assert!(
        node_bin.exists(),
        "no {}: build it first (cargo build --release -p termplane-node)",
        node_bin.display()
    );
    let mut w = World::new("bench", &node_bin);
    w.start_node();
    w.wait_online(support::WAIT);
    println!(
        "termplane-node link benchmarks (real plane and node processes on loopback, {} build)",
        bin_dir.file_name().unwrap().to_string_lossy()
    );

    let (mut d, mut h) = round_trips(&w, &json!({ "type": "ping" }), calls);
    println!(
        "ping    round trip over {calls}: dispatch p50 {:.3} ms  p99 {:.3} ms | http p50 {:.3} ms  p99 {:.3} ms",
        percentile(&mut d, 0.5),
        percentile(&mut d, 0.99),
        percentile(&mut h, 0.5),
        percentile(&mut h, 0.99)
    );

    let id = "b0b0b0b0";
    w.ok(&bash_launch(id, &w.dir.join("work")));
    std::thread::sleep(Duration::from_millis(300));
    let (mut d, mut h) = round_trips(&w, &json!({ "type": "capture", "subshellId": id }), calls);
    println!(
        "capture round trip over {calls}: dispatch p50 {:.3} ms  p99 {:.3} ms | http p50 {:.3} ms  p99 {:.3} ms",
        percentile(&mut d, 0.5),
        percentile(&mut d, 0.99),
        percentile(&mut h, 0.5),
        percentile(&mut h, 0.99)
    );

    // Keystrokes: each one's echo must arrive before the next is typed.
    let mut after = w.events(0, 0)["next"].as_u64().unwrap();
    w.ok(&json!({ "type": "tail_start", "subshellId": id, "subId": "k" }));
    let mut lat = Vec::new();
    for i in 0..keys {
        if i % 50 == 0 {
            w.ok(&json!({ "type": "input", "subshellId": id, "keys": ["ctrl-c"] }));
            std::thread::sleep(Duration::from_millis(100));
            after = w.events(0, 0)["next"].as_u64().unwrap();
        }
        let a = w.command_answer(&json!({ "type": "input", "subshellId": id, "data": "x" }));
        let sent = a["sentAtUs"].as_u64().unwrap();
        let e = w.wait_event("keystroke echo", &mut after, |e| {
            e["kind"] == "output" && support::output_bytes(e).contains(&b'x')
        });
        lat.push(e["atUs"].as_u64().unwrap().saturating_sub(sent));
    }
    println!(
        "keystroke -> output event over {keys}: p50 {:.3} ms  p99 {:.3} ms",
        percentile(&mut lat, 0.5),
        percentile(&mut lat, 0.99)
    );
    w.ok(&json!({ "type": "tail_stop", "subId": "k" }));
    w.ok(&json!({ "type": "input", "subshellId": id, "keys": ["ctrl-c"] }));
    std::thread::sleep(Duration::from_millis(200));

    // Streaming.
    let total = mib * 1024 * 1024;
    let expect = total.div_ceil(3) * 4;
    let start = w.ok(&json!({ "type": "tail_start", "subshellId": id, "subId": "s" }))["fromByte"]
        .as_u64()
        .unwrap();
    let mut after = w.events(0, 0)["next"].as_u64().unwrap();
    w.ok(&json!({
        "type": "input", "subshellId": id,
        "data": format!("head -c {total} /dev/zero | base64 -w 0"), "keys": ["enter"]
    }));
    let (mut first, mut last, mut reached) = (None, 0_u64, 0_u64);
    let deadline = Instant::now() + Duration::from_secs(120);
    while reached < start + expect {
        assert!(Instant::now() < deadline, "stream stalled at {reached}");
        let v = w.events(after, 5_000);
        after = v["next"].as_u64().unwrap_or(after);
        for e in v["events"].as_array().into_iter().flatten() {
            if e["kind"] == "output" && e["event"]["subId"] == "s" {
                first.get_or_insert(e["atUs"].as_u64().unwrap());
                last = e["atUs"].as_u64().unwrap();
                reached = reached.max(e["event"]["toByte"].as_u64().unwrap());
            }
        }
    }
    let secs = (last - first.unwrap()) as f64 / 1e6;
    let bytes = (reached - start) as f64;
    println!(
        "streaming {mib} MiB through base64 ({:.1} MiB of pane output): {:.1} MiB/s ({secs:.2} s first to last output event)",
        bytes / 1048576.0,
        bytes / 1048576.0 / secs
    );
}
