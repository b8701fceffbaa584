//! Node-link benchmark against a real `termplane serve` child process.
//!
//! Usage: `ulimit -n 65536; cargo run --release -p termplane --example link_bench -- NODES [HEARTBEAT_SECS]`
//!
//! It starts the plane binary (next to this example in the target directory) on a free loopback
//! port with a temporary data directory, then measures:
//! 1. enrollments per second (NODES setup keys minted, then NODES sequential enrollments);
//! 2. link establishments per second (NODES simulated nodes — the real agent machine under the
//!    runtime-smol agent driver, all in this process — dialing at once until every one is
//!    established and the plane reads them online);
//! 3. plane RSS per idle link (`VmRSS` of the plane process before and after);
//! 4. plane CPU while the nodes heartbeat (`utime + stime` from `/proc/<pid>/stat` over
//!    HEARTBEAT_SECS, default 30, starting one heartbeat interval after the last node came
//!    online), as a percentage of one core;
//! 5. time until all are online again after a plane restart (SIGTERM, start on the same port
//!    and data directory).
//!
//! With `LINK_BENCH_CLUSTER_DB=postgres://…` (an empty database) the plane runs as a replica of
//! a cluster on it (`--cluster on`), and before the restart a second replica starts (with
//! copies of the first's key files) and the bench measures what forwarding between replicas
//! adds: `ping` round trips to one node whose link the first replica holds, asked through the
//! admin command route at the first replica and at the second one, interleaved, each timed by
//! the plane from dispatch to result (`elapsedUs`; p50 and p99 of each, and the difference of
//! the medians). A ping and its result cross between the replicas once each way,
//! as a keystroke and its echo do.
//!
//! With `LINK_BENCH_REPLICAS=3` as well, three replicas run on that database behind HAProxy
//! (`haproxy` on `PATH`; the configuration of `docs/deployment.md`; one HAProxy process per
//! 5,000 nodes, each in front of all three), and every enrollment and link goes through a
//! proxy, which spreads the links over the replicas. The bench then
//! reports how many links each replica holds and its RSS per link, the cross-replica `ping`
//! (at the holder of one node and at another replica), and, in place of the restart, the time
//! until every node is online again after one replica is killed (SIGKILL): its nodes redial
//! through the proxy and land on the other two.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use termplane_machines::agent_link::AgentConfig;
use termplane_machines::jws::PublicJwk;
use termplane_machines::kx::StaticKeypair;
use termplane_proto::event::Os;
use termplane_proto::{CommandResult, Key32, Ready};
use termplane_runtime_smol::agent::{
    self, AgentControl, AgentOptions, AgentReport, BoxFuture, Executor,
};
use termplane_runtime_smol::{Clock, SystemClock};

struct Ok200;
impl Executor for Ok200 {
    fn execute(&self, jti: String, _c: termplane_proto::Command) -> BoxFuture<CommandResult> {
        Box::pin(async move { CommandResult::ok(jti, None) })
    }
}

fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    body: Option<&Value>,
) -> (u16, Value, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = body
        .map(|b| serde_json::to_vec(b).unwrap())
        .unwrap_or_default();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(c) = cookie {
        req.push_str(&format!("Cookie: {c}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(&body).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let cookie = head
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().split(';').next().unwrap_or("").to_owned())
        .unwrap_or_default();
    (
        status,
        serde_json::from_str(body).unwrap_or(Value::Null),
        cookie,
    )
}

fn start_plane(bin: &Path, addr: SocketAddr, dir: &Path, cluster_db: Option<&str>) -> Child {
    let mut cmd = Command::new(bin);
    cmd.args(["serve", "--listen", &addr.to_string(), "--data-dir"])
        .arg(dir);
    if let Some(db) = cluster_db {
        cmd.args(["--cluster", "on", "--no-local-node", "--database-url", db])
            .args(["--cluster-address", &format!("http://{addr}")]);
    }
    let child = cmd
        .env("TERMPLANE_MAX_CONNS_PER_IP", "1000000")
        .env("TERMPLANE_MAX_CONNS", "1000000")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .spawn()
        .expect(
            "cannot start the plane binary (build it first: cargo build --release -p termplane)",
        );
    listening(child, addr, "the plane")
}

/// `child` once something accepts connections at `addr` (another process: asked every 20 ms,
/// for at most 10 s); killed, and the bench stopped, when nothing does.
fn listening(mut child: Child, addr: SocketAddr, what: &str) -> Child {
    for _ in 0..500 {
        if TcpStream::connect(addr).is_ok() {
            return child;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("{what} did not start listening");
}

/// Starts a second replica beside the plane at `a` (on `db`, with copies of its key files),
/// then times `ping`s to `node` asked at `a` and at the second replica, interleaved.
fn forwarding(bin: &Path, dir: &Path, db: &str, a: SocketAddr, cookie: &str, node: &str) {
    let dir_b = dir.join("replica-b");
    std::fs::create_dir_all(&dir_b).unwrap();
    for (file, _) in termplane::keys::KEY_FILES {
        std::fs::copy(dir.join(file), dir_b.join(file)).unwrap();
    }
    let b: SocketAddr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let mut replica = start_plane(bin, b, &dir_b, Some(db));
    pings_at(a, b, cookie, node);
    let _ = Command::new("kill")
        .args(["-TERM", &replica.id().to_string()])
        .status();
    let _ = replica.wait();
}

/// Times `ping`s to `node` asked at its holder `a` and at another replica `b`, interleaved.
fn pings_at(a: SocketAddr, b: SocketAddr, cookie: &str, node: &str) {
    const ROUNDS: usize = 2_000;
    // The admin command route says how long the plane waited from dispatch to result
    // (`elapsedUs`): the HTTP request and its database work around it are left out.
    let path = format!("/api/nodes/{node}/commands");
    let ping = |at: SocketAddr| {
        let (s, v, _) = http(
            at,
            "POST",
            &path,
            Some(cookie),
            Some(&json!({"type": "ping"})),
        );
        assert_eq!(s, 200, "{v}");
        v["elapsedUs"].as_f64().unwrap() / 1e3
    };
    // Warm both (the replicas' connection is made at the first forward).
    for _ in 0..50 {
        ping(a);
        ping(b);
    }
    let (mut at_a, mut at_b) = (Vec::with_capacity(ROUNDS), Vec::with_capacity(ROUNDS));
    for _ in 0..ROUNDS {
        at_a.push(ping(a));
        at_b.push(ping(b));
    }
    let pct = |v: &mut Vec<f64>, p: f64| {
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * p).round() as usize]
    };
    let (a50, a99) = (pct(&mut at_a, 0.5), pct(&mut at_a, 0.99));
    let (b50, b99) = (pct(&mut at_b, 0.5), pct(&mut at_b, 0.99));
    println!(
        "ping at the holder: p50 {a50:.3} ms, p99 {a99:.3} ms; at another replica: p50 {b50:.3} ms, \
         p99 {b99:.3} ms; forwarding adds {:.3} ms at the median ({ROUNDS} each, interleaved)",
        b50 - a50
    );
}

/// Runs `sql` on `db` with `psql`; its rows, one per line.
fn psql(db: &str, sql: &str) -> String {
    let out = Command::new("psql")
        .arg(db)
        .args(["-v", "ON_ERROR_STOP=1", "-Atqc", sql])
        .output()
        .expect("psql");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// How many node links each replica holds, by its listening address.
fn links_by_replica(db: &str) -> Vec<(String, usize)> {
    psql(
        db,
        "SELECT r.address, count(n.id) FROM plane_replicas r LEFT JOIN nodes n \
         ON n.held_by = r.id WHERE r.lease_until > \
         (extract(epoch from clock_timestamp()) * 1000)::bigint GROUP BY r.address ORDER BY 1",
    )
    .lines()
    .filter_map(|l| {
        let (a, n) = l.split_once('|')?;
        Some((a.to_owned(), n.parse().ok()?))
    })
    .collect()
}

/// Links per HAProxy process.
const PER_PROXY: usize = 5_000;

/// HAProxy in front of `replicas` on `front` (its configuration in `dir`), for [`PER_PROXY`]
/// links.
fn start_proxy(dir: &Path, front: SocketAddr, replicas: &[SocketAddr]) -> Child {
    std::fs::create_dir_all(dir).unwrap();
    let servers: String = replicas
        .iter()
        .enumerate()
        .map(|(i, a)| format!("    server r{i} {a} check inter 1s fall 3 rise 2\n"))
        .collect();
    let cfg = format!(
        "global\n    maxconn 6000\n\n\
         defaults\n    mode http\n    maxconn 6000\n    option http-server-close\n    \
         timeout connect 2s\n    timeout client 60s\n    timeout server 60s\n    \
         timeout tunnel 1h\n    timeout check 3s\n    retries 3\n    option redispatch\n\n\
         frontend termplane\n    bind {front}\n    default_backend replicas\n\n\
         backend replicas\n    balance roundrobin\n    option httpchk GET /readyz\n    \
         http-check expect status 200\n{servers}"
    );
    let path = dir.join("haproxy.cfg");
    std::fs::write(&path, cfg).unwrap();
    let child = Command::new("haproxy")
        .args(["-db", "-f"])
        .arg(&path)
        .stdout(Stdio::null())
        .spawn()
        .expect("cannot start haproxy (LINK_BENCH_REPLICAS needs it on PATH)");
    listening(child, front, "haproxy")
}

fn free_addr() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

/// With three replicas behind the proxy: the cross-replica `ping`, then one replica killed
/// (SIGKILL) and the time until every node it held is online again at the others.
fn three_replicas(
    db: &str,
    first: SocketAddr,
    others: &mut [(SocketAddr, Child)],
    cookie: &str,
    node: &str,
    established: &AtomicUsize,
    nodes: usize,
) {
    let mut all = vec![first];
    all.extend(others.iter().map(|(a, _)| *a));
    let holder = psql(
        db,
        &format!(
            "SELECT r.address FROM nodes n JOIN plane_replicas r ON r.id = n.held_by \
             WHERE n.id = '{node}'"
        ),
    );
    let at = |h: &str| all.iter().copied().find(|a| format!("http://{a}") == h);
    let h = at(&holder).expect("the node's holder is one of the replicas");
    let other = all.iter().copied().find(|a| *a != h).unwrap();
    pings_at(h, other, cookie, node);

    // Kill the last replica outright; its nodes redial through the proxy.
    let (victim, child) = others.last_mut().unwrap();
    let held = links_by_replica(db)
        .into_iter()
        .find(|(a, _)| *a == format!("http://{victim}"))
        .map_or(0, |(_, n)| n);
    let before = established.load(Ordering::SeqCst);
    let killed = Instant::now();
    let _ = child.kill();
    let _ = child.wait();
    let limit = Duration::from_secs(120);
    while established.load(Ordering::SeqCst) < before + held && killed.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(5));
    }
    let again = established.load(Ordering::SeqCst) - before;
    println!(
        "one of three replicas killed (SIGKILL) with {held} of {nodes} links: {again} nodes \
         linked again at the other two in {:.2} s",
        killed.elapsed().as_secs_f64()
    );
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let n = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    n(11) + n(12)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let nodes: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(200);
    let hb_secs: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(30);
    let exe = std::env::current_exe().unwrap();
    let bin: PathBuf = exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("termplane");
    let dir = std::env::temp_dir().join(format!("termplane-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let addr: SocketAddr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let cluster_db = std::env::var("LINK_BENCH_CLUSTER_DB").ok();
    let replicas: usize = std::env::var("LINK_BENCH_REPLICAS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    assert!(
        replicas == 1 || cluster_db.is_some(),
        "LINK_BENCH_REPLICAS needs LINK_BENCH_CLUSTER_DB"
    );
    let mut plane = start_plane(&bin, addr, &dir, cluster_db.as_deref());
    let pid = plane.id();
    let rss0 = rss_kib(pid);
    // The other replicas (with copies of the first one's keys) and the proxy in front of all.
    let mut others: Vec<(SocketAddr, Child)> = Vec::new();
    let mut proxies: Vec<(SocketAddr, Child)> = Vec::new();
    if let (true, Some(db)) = (replicas > 1, cluster_db.as_deref()) {
        // The first replica listens before it has made its keys: wait until it is ready.
        for _ in 0..500 {
            if http(addr, "GET", "/readyz", None, None).0 == 200 {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        for i in 1..replicas {
            let d = dir.join(format!("replica-{i}"));
            std::fs::create_dir_all(&d).unwrap();
            for (file, _) in termplane::keys::KEY_FILES {
                std::fs::copy(dir.join(file), d.join(file)).unwrap();
            }
            let a = free_addr();
            others.push((a, start_plane(&bin, a, &d, Some(db))));
        }
        let mut all = vec![addr];
        all.extend(others.iter().map(|(a, _)| *a));
        // A proxy holds two descriptors per link: one per 5,000 nodes keeps each well inside
        // a 20,000-descriptor limit (as a site runs several balancers).
        for i in 0..nodes.div_ceil(PER_PROXY) {
            let front = free_addr();
            proxies.push((
                front,
                start_proxy(&dir.join(format!("proxy-{i}")), front, &all),
            ));
        }
    }
    let rss0_others: Vec<u64> = others.iter().map(|(_, c)| rss_kib(c.id())).collect();
    // Where nodes enroll and link: the proxy when there is one.
    let front = proxies.first().map_or(addr, |(a, _)| *a);

    // Account and setup keys.
    let (s, _, _) = http(
        addr,
        "POST",
        "/api/setup",
        None,
        Some(
            &json!({"email": "bench@example.test", "displayName": "Bench", "password": "bench password 1"}),
        ),
    );
    assert_eq!(s, 201);
    let (s, _, cookie) = http(
        addr,
        "POST",
        "/api/auth/sign-in",
        None,
        Some(&json!({"email": "bench@example.test", "password": "bench password 1"})),
    );
    assert_eq!(s, 200);
    // An account's nodes hold at most `MAX_NODE_SOCKETS_PER_OWNER` sockets together: the nodes
    // are spread over enough accounts (the first, then one more per 500 nodes) to all link.
    let mut owners = vec![cookie.clone()];
    for j in 1..nodes.div_ceil(500) {
        let email = format!("bench{j}@example.test");
        let body = json!({"email": email, "displayName": email, "password": "bench password 1",
            "role": "user"});
        let (s, v, _) = http(addr, "POST", "/api/users", Some(&cookie), Some(&body));
        assert_eq!(s, 201, "{v}");
        let (s, _, theirs) = http(
            addr,
            "POST",
            "/api/auth/sign-in",
            None,
            Some(&json!({"email": email, "password": "bench password 1"})),
        );
        assert_eq!(s, 200);
        owners.push(theirs);
    }
    let keys: Vec<String> = (0..nodes)
        .map(|i| {
            let owner = &owners[i / 500];
            let (s, v, _) = http(addr, "POST", "/api/setup-keys", Some(owner), None);
            assert_eq!(s, 201);
            v["key"].as_str().unwrap().to_owned()
        })
        .collect();

    // 1. Enrollments per second. Every node presents one real P-256 identity key (the plane
    // refuses a point that is not on the curve; the key itself is not used here).
    let identity = serde_json::to_value(
        termplane_machines::jws::Es256Signer::from_secret_bytes(&[7u8; 32])
            .unwrap()
            .public_jwk(),
    )
    .unwrap();
    let mut rng = termplane_machines::rng::from_seed(termplane_runtime_smol::os_seed().unwrap());
    let started = Instant::now();
    let mut configs = Vec::with_capacity(nodes);
    for (i, key) in keys.iter().enumerate() {
        let kp = StaticKeypair::generate(&mut rng);
        let body = json!({
            "setupKey": key, "name": format!("bench-{i}"), "os": "linux", "arch": "x86_64",
            "hostname": format!("bench-{i}"), "agentVersion": "0.17.0",
            "identityJwk": identity,
            "encryptPublicKey": kp.public().to_b64(),
        });
        let (s, v, _) = http(front, "POST", "/api/nodes/enroll", None, Some(&body));
        assert_eq!(s, 201, "{v}");
        let jwk: PublicJwk = serde_json::from_value(v["signingPublicJwk"].clone()).unwrap();
        let control = Key32::from_b64(v["controlEncryptPublicKey"].as_str().unwrap()).unwrap();
        configs.push((
            AgentConfig {
                node_id: v["nodeId"].as_str().unwrap().to_owned(),
                node_key: v["nodeKey"].as_str().unwrap().to_owned(),
                node_static: kp.public(),
                control_pin: Some(control),
                signing_key: jwk,
                process_start: SystemClock.unix(),
                carried_over: Vec::new(),
                ready: Ready {
                    agent_version: Some("0.17.0".into()),
                    protocol_version: Some(u64::from(termplane_proto::NODE_PROTOCOL_VERSION)),
                    os: Os::Linux,
                    arch: "x86_64".into(),
                    hostname: format!("bench-{i}"),
                    ..Ready::default()
                },
            },
            match proxies.get(i % proxies.len().max(1)) {
                // The replica that answered the enrollment names itself: the node dials a
                // proxy instead.
                Some((p, _)) => {
                    let u = v["wsUrl"].as_str().unwrap();
                    let (scheme, rest) = u.split_once("://").unwrap();
                    let path = rest.find('/').map_or("", |i| &rest[i..]);
                    format!("{scheme}://{p}{path}")
                }
                None => v["wsUrl"].as_str().unwrap().to_owned(),
            },
        ));
    }
    let enroll_secs = started.elapsed().as_secs_f64();
    println!(
        "enrollments: {nodes} in {enroll_secs:.2} s = {:.1}/s",
        nodes as f64 / enroll_secs
    );

    // 2. Link establishments per second: every node dials at once.
    let established = Arc::new(AtomicUsize::new(0));
    // What the nodes saw go wrong, counted (printed after the restart or the kill).
    let reports = Arc::new(std::sync::Mutex::new(std::collections::BTreeMap::<
        String,
        usize,
    >::new()));
    let ex = Arc::new(smol::Executor::new());
    let (stop_tx, stop_rx) = smol::channel::unbounded::<()>();
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let ex = ex.clone();
            let stop = stop_rx.clone();
            std::thread::spawn(move || {
                smol::block_on(ex.run(async {
                    let _ = stop.recv().await;
                }))
            })
        })
        .collect();
    let mut controls = Vec::new();
    let node_ids: Vec<String> = configs.iter().map(|(c, _)| c.node_id.clone()).collect();
    let started = Instant::now();
    for (cfg, url) in configs {
        let (rtx, rrx) = smol::channel::unbounded();
        let (ctx, crx) = smol::channel::unbounded();
        controls.push(ctx);
        let mut opts = AgentOptions::new(url);
        opts.reports = Some(rtx);
        let est = established.clone();
        let seen = reports.clone();
        ex.spawn(async move {
            while let Ok(r) = rrx.recv().await {
                if r == AgentReport::Established {
                    est.fetch_add(1, Ordering::SeqCst);
                }
                let what = match &r {
                    AgentReport::DialFailed { status } => format!("dial failed {status:?}"),
                    AgentReport::DialError(e) => format!("dial error {e}"),
                    AgentReport::Closed { code, .. } => format!("closed by the plane {code:?}"),
                    AgentReport::ClosedByAgent { code } => format!("closed by the node {code}"),
                    _ => continue,
                };
                *seen.lock().unwrap().entry(what).or_default() += 1;
            }
        })
        .detach();
        ex.spawn(async move {
            let _ = agent::run(cfg, opts, &Ok200, crx, &SystemClock).await;
        })
        .detach();
    }
    let wait_all = |target: usize, limit: Duration| -> Option<f64> {
        let t0 = Instant::now();
        while established.load(Ordering::SeqCst) < target {
            if t0.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Some(t0.elapsed().as_secs_f64())
    };
    match wait_all(nodes, Duration::from_secs(600)) {
        Some(_) => {
            let secs = started.elapsed().as_secs_f64();
            println!(
                "link establishments: {nodes} in {secs:.2} s = {:.1}/s",
                nodes as f64 / secs
            );
        }
        None => println!(
            "link establishments: only {} of {nodes} within 600 s",
            established.load(Ordering::SeqCst)
        ),
    }

    // 3. Memory per idle link.
    std::thread::sleep(Duration::from_secs(2));
    let rss1 = rss_kib(pid);
    if let (false, Some(db)) = (others.is_empty(), cluster_db.as_deref()) {
        let held = links_by_replica(db);
        let mut rows = vec![(addr, rss0, rss1)];
        for ((a, c), r0) in others.iter().zip(&rss0_others) {
            rows.push((*a, *r0, rss_kib(c.id())));
        }
        for (a, r0, r1) in rows {
            let n = held
                .iter()
                .find(|(h, _)| *h == format!("http://{a}"))
                .map_or(0, |(_, n)| *n);
            println!(
                "replica {a}: {n} links, RSS {r0} KiB idle, {r1} KiB with them = {:.1} KiB per link",
                r1.saturating_sub(r0) as f64 / n.max(1) as f64
            );
        }
    } else {
        println!(
            "plane RSS: {rss0} KiB idle, {rss1} KiB with {nodes} links = {:.1} KiB per link",
            (rss1.saturating_sub(rss0)) as f64 / nodes as f64
        );
    }

    // 4. CPU while heartbeating, in the steady state: first let the post-connect work finish
    //    (each node's ready is followed by row writes and a signed `set_allowed_dirs` push) by
    //    waiting one heartbeat interval, so the window holds nothing but heartbeats.
    std::thread::sleep(termplane_proto::limits::HEARTBEAT_INTERVAL);
    let ticks_per_sec = 100.0; // USER_HZ on Linux
    let c0 = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(hb_secs));
    let c1 = cpu_ticks(pid);
    println!(
        "plane CPU while {nodes} nodes heartbeat: {:.2}% of one core over {hb_secs} s",
        (c1 - c0) as f64 / ticks_per_sec / hb_secs as f64 * 100.0
    );

    // 6. (Cluster) what forwarding adds: pings at the holder and at another replica.
    if let (false, Some(db)) = (others.is_empty(), cluster_db.as_deref()) {
        three_replicas(
            db,
            addr,
            &mut others,
            &owners[0],
            &node_ids[0],
            &established,
            nodes,
        );
        println!("what the nodes saw: {:?}", reports.lock().unwrap());
        for (_, mut c) in others.drain(..).chain(proxies.drain(..)) {
            // The killed replica is waited for already.
            if c.try_wait().ok().flatten().is_none() {
                let _ = Command::new("kill")
                    .args(["-TERM", &c.id().to_string()])
                    .status();
            }
            let _ = c.wait();
        }
        for c in &controls {
            let _ = c.try_send(AgentControl::Shutdown);
        }
        let _ = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
        let _ = plane.wait();
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    if let Some(db) = cluster_db.as_deref() {
        forwarding(&bin, &dir, db, addr, &owners[0], &node_ids[0]);
    }

    // 5. Restart: time until every node is established again.
    let before = established.load(Ordering::SeqCst);
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let _ = plane.wait();
    let restarted = Instant::now();
    plane = start_plane(&bin, addr, &dir, cluster_db.as_deref());
    match wait_all(before + nodes, Duration::from_secs(600)) {
        Some(_) => println!(
            "after restart: all {nodes} online in {:.2} s",
            restarted.elapsed().as_secs_f64()
        ),
        None => println!(
            "after restart: only {} of {nodes} within 600 s",
            established.load(Ordering::SeqCst) - before
        ),
    }

    for c in &controls {
        let _ = c.try_send(AgentControl::Shutdown);
    }
    std::thread::sleep(Duration::from_millis(500));
    for _ in &threads {
        let _ = stop_tx.try_send(());
    }
    for t in threads {
        let _ = t.join();
    }
    let _ = Command::new("kill")
        .args(["-TERM", &plane.id().to_string()])
        .status();
    let _ = plane.wait();
    let _ = std::fs::remove_dir_all(&dir);
}
