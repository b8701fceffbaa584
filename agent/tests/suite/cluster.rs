//! Three planes run as replicas of one cluster (`--cluster on`) on one PostgreSQL database, with
//! Debian's HAProxy in front of them for the node's link and the API alike, and a real node
//! daemon on its own tmux: the deployment `docs/deployment.md` describes, started by the test.
//!
//! What it proves: a pane whose node one replica holds is launched, watched and typed into at
//! another; `kill -9` of the holder brings the node back online at a live replica through the
//! proxy within 15 s with its pane still running, and a viewer coming back gets its replay; an
//! attach token minted at one replica opens one socket at another and is refused on its second
//! use at a third; a rolling restart of all three replicas while a script types numbered lines
//! into a pane loses none (every line answered 200 is in the pane's file once, every other
//! answer is a clean refusal, and no line is typed twice).
//!
//! It needs PostgreSQL (`TERMPLANE_TEST_POSTGRES_URL`, as the plane's suite; `tools/test.sh`
//! starts one) with `psql`, and `haproxy` on `PATH`. Without them it says so and passes unrun,
//! except under `CI`, where it fails.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::support::{
    Resp, WAIT, free_port, http, kill_tmux_server, node_command, node_env, plane_binary, terminate,
    wait_until,
};
use serde_json::{Value, json};
use termplane_test_support::viewer::Viewer;

const NODE: &str = env!("CARGO_BIN_EXE_termplane-node");

/// The key files every replica of a cluster holds alike (the operator copies them; the plane
/// refuses to start on a database whose recorded keys they do not match).
const KEY_FILES: [&str; 4] = ["link.key", "signing.key", "channels.key", "vapid.key"];

/// What the issue asks of a replica's death: its nodes online elsewhere within this.
const REHOMED_WITHIN: Duration = Duration::from_secs(15);

struct Replica {
    name: &'static str,
    port: u16,
    child: Option<Child>,
}

struct Cluster {
    dir: PathBuf,
    /// The test server's URL (its role may create databases).
    server_url: String,
    db_name: String,
    db_url: String,
    replicas: Vec<Replica>,
    proxy: Option<Child>,
    proxy_port: u16,
    cookie: String,
    node_id: String,
    node: Option<Child>,
    node_env: Vec<(String, String)>,
}

/// The PostgreSQL server and HAProxy these tests need, or `None` (said on stderr) outside CI.
fn prerequisites() -> Option<String> {
    let url = std::env::var("TERMPLANE_TEST_POSTGRES_URL").ok();
    let haproxy = Command::new("haproxy")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success());
    let psql = Command::new("psql")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    match url {
        Some(u) if haproxy && psql => Some(u),
        _ => {
            let what = "the cluster tests need TERMPLANE_TEST_POSTGRES_URL, psql and haproxy \
                        (tools/test.sh installs and starts them)";
            assert!(std::env::var_os("CI").is_none(), "{what}");
            eprintln!("skipped: {what}");
            None
        }
    }
}

/// Runs `sql` with `psql` on `url`; its output, rows one per line.
fn psql(url: &str, sql: &str) -> String {
    let out = Command::new("psql")
        .arg(url)
        .args(["-v", "ON_ERROR_STOP=1", "-Atqc", sql])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "psql {sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

impl Cluster {
    fn start(tag: &str) -> Option<Self> {
        let server_url = prerequisites()?;
        let dir = std::env::temp_dir().join(format!("tp-cluster-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["home", "xdg-config", "xdg-data", "work", "a", "b", "c"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let db_name = format!("tp_cluster_{tag}_{}", std::process::id());
        psql(
            &server_url,
            &format!("DROP DATABASE IF EXISTS {db_name} WITH (FORCE)"),
        );
        psql(&server_url, &format!("CREATE DATABASE {db_name}"));
        let (server, _) = server_url.rsplit_once('/').unwrap();
        let db_url = format!("{server}/{db_name}");
        let node_env = node_env(&dir);
        let mut c = Self {
            dir,
            server_url,
            db_name,
            db_url,
            replicas: ["a", "b", "c"]
                .into_iter()
                .map(|name| Replica {
                    name,
                    port: free_port(),
                    child: None,
                })
                .collect(),
            proxy: None,
            proxy_port: free_port(),
            cookie: String::new(),
            node_id: String::new(),
            node: None,
            node_env,
        };
        // The first replica makes the cluster's keys; the others are given copies.
        c.start_replica(0);
        for r in ["b", "c"] {
            for f in KEY_FILES {
                std::fs::copy(c.dir.join("a").join(f), c.dir.join(r).join(f)).unwrap();
            }
        }
        c.start_replica(1);
        c.start_replica(2);
        c.start_proxy();
        c.setup_and_enroll();
        Some(c)
    }

    /// The address browsers and nodes are given: the proxy's.
    fn public_base(&self) -> String {
        format!("http://127.0.0.1:{}", self.proxy_port)
    }

    fn start_replica(&mut self, i: usize) {
        let r = &self.replicas[i];
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(format!("{}.log", r.name)))
            .unwrap();
        let child = Command::new(plane_binary(Path::new(NODE)))
            .args(["serve", "--cluster", "on", "--data-dir"])
            .arg(self.dir.join(r.name))
            .args(["--listen", &format!("127.0.0.1:{}", r.port)])
            .args(["--database-url", &self.db_url])
            .args(["--cluster-address", &format!("http://127.0.0.1:{}", r.port)])
            .env("APP_BASE_URL", self.public_base())
            .env("RUST_LOG", "info")
            .env_remove("CI")
            .env_remove("GITHUB_ACTIONS")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start a replica");
        let (port, name) = (r.port, r.name);
        self.replicas[i].child = Some(child);
        wait_until(&format!("replica {name} to be ready"), WAIT, || {
            http(port, "GET", "/readyz", &[], None)
                .ok()
                .filter(|r| r.status == 200)
        });
    }

    /// Stops replica `i` as an operator's restart does (SIGTERM, then its drain).
    fn stop_replica(&mut self, i: usize) {
        if let Some(mut c) = self.replicas[i].child.take() {
            terminate(&mut c);
        }
    }

    /// Kills replica `i` outright (SIGKILL), as a crash does.
    fn kill_replica(&mut self, i: usize) {
        if let Some(mut c) = self.replicas[i].child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn start_proxy(&mut self) {
        let servers: String = self
            .replicas
            .iter()
            .map(|r| {
                format!(
                    "    server {} 127.0.0.1:{} check inter 1s fall 3 rise 2\n",
                    r.name, r.port
                )
            })
            .collect();
        // The configuration docs/deployment.md shows, on the test's ports.
        let cfg = format!(
            "global\n    maxconn 4096\n\n\
             defaults\n    mode http\n    option http-server-close\n    timeout connect 2s\n    \
             timeout client 60s\n    timeout server 60s\n    timeout tunnel 1h\n    \
             timeout check 3s\n    retries 3\n    option redispatch\n\n\
             frontend termplane\n    bind 127.0.0.1:{}\n    default_backend replicas\n\n\
             backend replicas\n    balance roundrobin\n    option httpchk GET /readyz\n    \
             http-check expect status 200\n{servers}",
            self.proxy_port
        );
        let path = self.dir.join("haproxy.cfg");
        std::fs::write(&path, cfg).unwrap();
        let log = std::fs::File::create(self.dir.join("haproxy.log")).unwrap();
        let child = Command::new("haproxy")
            .args(["-db", "-f"])
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start haproxy");
        self.proxy = Some(child);
        let port = self.proxy_port;
        wait_until("the proxy to pass requests", WAIT, || {
            http(port, "GET", "/api/setup/status", &[], None)
                .ok()
                .filter(|r| r.status == 200)
        });
    }

    /// A request of the administrator's browser session at `port` (a replica's or the proxy's).
    fn call(&self, port: u16, method: &str, path: &str, body: Option<&Value>) -> Resp {
        let origin = self.public_base();
        let h = [
            ("Origin", origin.as_str()),
            ("Cookie", self.cookie.as_str()),
        ];
        http(port, method, path, &h, body).unwrap()
    }

    fn setup_and_enroll(&mut self) {
        let (email, password) = ("admin@example.test", "correct horse battery");
        let p = self.proxy_port;
        let r = self.call(
            p,
            "POST",
            "/api/setup",
            Some(&json!({ "email": email, "displayName": "Admin", "password": password })),
        );
        assert_eq!(r.status, 201, "setup: {}", r.text());
        let r = self.call(
            p,
            "POST",
            "/api/auth/sign-in",
            Some(&json!({ "email": email, "password": password })),
        );
        assert_eq!(r.status, 200, "sign-in: {}", r.text());
        let cookie = r.header("set-cookie").expect("a session cookie");
        self.cookie = cookie.split(';').next().unwrap().to_owned();
        let r = self.call(p, "POST", "/api/setup-keys", None);
        assert_eq!(r.status, 201, "setup key: {}", r.text());
        let key = r.json()["key"].as_str().unwrap().to_owned();
        let out = self
            .node_command()
            .args([
                "enroll",
                "--server",
                &self.public_base(),
                "--setup-key",
                &key,
            ])
            .args(["--name", "clustered", "--config"])
            .arg(self.dir.join("node.json"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "enroll failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let cfg: Value =
            serde_json::from_slice(&std::fs::read(self.dir.join("node.json")).unwrap()).unwrap();
        self.node_id = cfg["nodeId"].as_str().unwrap().to_owned();
        let err = std::fs::File::create(self.dir.join("node.stderr")).unwrap();
        let child = self
            .node_command()
            .arg("run")
            .arg("--config")
            .arg(self.dir.join("node.json"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .expect("start the node");
        self.node = Some(child);
    }

    fn node_command(&self) -> Command {
        node_command(Path::new(NODE), &self.node_env)
    }

    /// The replica whose lease holds the node's link now, by the database's rows.
    fn holder(&self) -> Option<usize> {
        let address = psql(
            &self.db_url,
            &format!(
                "SELECT r.address FROM nodes n JOIN plane_replicas r ON r.id = n.held_by \
                 WHERE n.id = '{}' AND r.lease_until > \
                 (extract(epoch from clock_timestamp()) * 1000)::bigint",
                self.node_id
            ),
        );
        self.replicas
            .iter()
            .position(|r| address == format!("http://127.0.0.1:{}", r.port))
    }

    /// Waits until a live replica holds the node online; that replica.
    fn wait_held(&self, within: Duration, not: Option<usize>) -> usize {
        wait_until(
            &format!(
                "the node online at a live replica (node log:\n{})",
                self.node_log()
            ),
            within,
            || {
                let h = self.holder()?;
                if Some(h) == not || self.replicas[h].child.is_none() {
                    return None;
                }
                let r = self.call(
                    self.replicas[h].port,
                    "GET",
                    &format!("/api/nodes/{}", self.node_id),
                    None,
                );
                (r.status == 200 && r.json()["liveness"] == "online").then_some(h)
            },
        )
    }

    fn node_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("xdg-data/termplane-node/node.log"))
            .unwrap_or_default()
    }

    /// A shell pane launched at replica `at`, once it runs.
    fn shell(&self, at: usize) -> String {
        let port = self.replicas[at].port;
        let body = json!({
            "nodeId": self.node_id, "harnessId": "shell",
            "cwd": self.dir.join("work").display().to_string(),
        });
        let r = self.call(port, "POST", "/api/subshells", Some(&body));
        assert_eq!(r.status, 201, "{}", r.text());
        let id = r.json()["id"].as_str().unwrap().to_owned();
        wait_until("the pane to run", WAIT, || {
            let r = self.call(port, "GET", &format!("/api/subshells/{id}"), None);
            (r.json()["state"] == "running").then_some(())
        });
        id
    }

    fn mint(&self, at: usize, id: &str) -> String {
        let r = self.call(
            self.replicas[at].port,
            "POST",
            "/api/auth/ws-token",
            Some(&json!({ "subshellId": id })),
        );
        assert_eq!(r.status, 201, "{}", r.text());
        r.json()["token"].as_str().unwrap().to_owned()
    }

    fn attach(&self, at: usize, id: &str, token: &str) -> Result<Viewer, (u16, String)> {
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], self.replicas[at].port));
        let origin = self.public_base();
        Viewer::open(
            addr,
            &format!("/api/subshells/{id}/attach?token={token}&cols=80&rows=24"),
            &[("Origin", origin.as_str())],
        )
    }

    fn logs(&self) -> String {
        let mut all = String::new();
        for f in ["a.log", "b.log", "c.log", "haproxy.log", "node.stderr"] {
            let text = std::fs::read_to_string(self.dir.join(f)).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(40).collect();
            all.push_str(&format!("--- {f} (last lines) ---\n"));
            for l in tail.into_iter().rev() {
                all.push_str(l);
                all.push('\n');
            }
        }
        all
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(mut n) = self.node.take() {
            terminate(&mut n);
        }
        kill_tmux_server(&self.dir.join("xdg-data/termplane-node/tmux.sock"));
        for i in 0..self.replicas.len() {
            self.stop_replica(i);
        }
        if let Some(mut p) = self.proxy.take() {
            let _ = p.kill();
            let _ = p.wait();
        }
        let _ = Command::new("psql")
            .arg(&self.server_url)
            .args([
                "-Atqc",
                &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.db_name),
            ])
            .output();
        if std::thread::panicking() {
            eprintln!("{}", self.logs());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A pane on a node one replica holds is typed into and watched at another; `kill -9` of the
/// holder has the node online at a live replica through the proxy within 15 s, its pane still
/// running and a returning viewer given its replay; an attach token minted at one replica opens
/// one socket at a second and is refused at a third.
#[test]
fn a_replica_killed_under_its_node_loses_no_pane_and_a_token_is_spent_once_across_replicas() {
    let Some(mut c) = Cluster::start("kill") else {
        return;
    };
    let holder = c.wait_held(WAIT, None);
    let other = (holder + 1) % 3;
    let third = (holder + 2) % 3;
    let id = c.shell(other);

    // Minted at the holder, spent at another, refused on its second use at the third.
    let token = c.mint(holder, &id);
    let mut v = c.attach(other, &id, &token).expect("the token's first use");
    let again = c.attach(third, &id, &token);
    assert!(
        matches!(again, Err((401 | 403, _))),
        "a spent token was taken again: {:?}",
        again.map(|_| ())
    );
    v.until("attached", |v| v.has("attached", |_| true));
    v.keys("echo before-$((20+1))\r");
    v.until("the shell's answer through the holder", |v| {
        v.text().contains("before-21")
    });

    let killed_at = Instant::now();
    c.kill_replica(holder);
    let now_at = c.wait_held(REHOMED_WITHIN, Some(holder));
    let took = killed_at.elapsed();
    eprintln!(
        "node online again at replica {} {took:?} after its holder was killed",
        c.replicas[now_at].name
    );
    // Its pane still runs, and a viewer coming back (at a live replica) gets its replay.
    let live = if now_at == other { third } else { other };
    let r = c.call(
        c.replicas[live].port,
        "GET",
        &format!("/api/subshells/{id}"),
        None,
    );
    assert_eq!(r.json()["state"], "running", "{}", r.text());
    drop(v);
    let token = c.mint(live, &id);
    let mut back = c.attach(live, &id, &token).expect("a viewer coming back");
    back.until("the replay from before the kill", |v| {
        v.text().contains("before-21")
    });
    back.keys("echo after-$((40+2))\r");
    back.until("the shell's answer after the kill", |v| {
        v.text().contains("after-42")
    });
}

/// Every replica restarted in turn (SIGTERM, then started again) while a script types numbered
/// lines into a pane through the proxy: each request answered 200 put its line in the pane's file
/// exactly once, every other answer was a refusal with the API's error body, and no line came
/// twice.
#[test]
fn a_rolling_restart_of_every_replica_loses_no_typed_line_and_types_none_twice() {
    let Some(mut c) = Cluster::start("rolling") else {
        return;
    };
    c.wait_held(WAIT, None);
    let id = c.shell(0);
    let file = c.dir.join("work/typed.txt");

    let stop = Arc::new(AtomicBool::new(false));
    let typed = Arc::new(AtomicUsize::new(0));
    let script = {
        let stop = stop.clone();
        let typed = typed.clone();
        let port = c.proxy_port;
        let origin = c.public_base();
        let cookie = c.cookie.clone();
        let file = file.clone();
        let id = id.clone();
        std::thread::spawn(move || {
            let h = [("Origin", origin.as_str()), ("Cookie", cookie.as_str())];
            let mut answers: Vec<(u32, u16, String)> = Vec::new();
            let started = Instant::now();
            // Bounded in count and time; paced so that the shell keeps up with what it is given.
            for n in 0..3_000u32 {
                if stop.load(Ordering::Relaxed) || started.elapsed() > Duration::from_secs(240) {
                    break;
                }
                let body = json!({ "text": format!("echo line-{n} >> {}\r", file.display()) });
                let r = http(
                    port,
                    "POST",
                    &format!("/api/subshells/{id}/input"),
                    &h,
                    Some(&body),
                );
                let (status, text) = match r {
                    Ok(r) => (r.status, r.text()),
                    Err(e) => (0, e),
                };
                answers.push((n, status, text));
                if status == 200 {
                    typed.fetch_add(1, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            answers
        })
    };

    // Twenty more lines typed (answered 200) before each restart and after the last.
    let twenty_more = || {
        let from = typed.load(Ordering::Relaxed);
        wait_until("twenty more lines typed", WAIT, || {
            (typed.load(Ordering::Relaxed) >= from + 20).then_some(())
        });
    };
    let started = Instant::now();
    for i in 0..3 {
        twenty_more();
        c.stop_replica(i);
        c.start_replica(i);
        c.wait_held(WAIT, None);
    }
    twenty_more();
    stop.store(true, Ordering::Relaxed);
    let answers = script.join().unwrap();
    let mut by_status = std::collections::BTreeMap::<u16, usize>::new();
    for (_, s, _) in &answers {
        *by_status.entry(*s).or_default() += 1;
    }
    eprintln!(
        "rolling restart of three replicas took {:?}; {} lines typed, answers by status {by_status:?}",
        started.elapsed(),
        answers.len()
    );

    let ok: Vec<u32> = answers
        .iter()
        .filter(|(_, s, _)| *s == 200)
        .map(|(n, _, _)| *n)
        .collect();
    for (n, status, text) in &answers {
        if *status == 200 {
            continue;
        }
        let body: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        assert!(
            body["code"].is_string(),
            "line {n} was answered {status} without the API's error body: {text}"
        );
    }
    assert!(ok.len() >= 80, "{} lines typed", ok.len());
    let last = *ok.last().unwrap();
    let read = || {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        text.lines().map(str::to_owned).collect::<Vec<_>>()
    };
    wait_until("the last answered line in the file", WAIT, || {
        read().contains(&format!("line-{last}")).then_some(())
    });
    let lines = read();
    for n in &ok {
        let want = format!("line-{n}");
        let times = lines.iter().filter(|l| **l == want).count();
        assert_eq!(times, 1, "{want} answered 200 is in the file {times} times");
    }
    let mut seen = std::collections::HashSet::new();
    for l in &lines {
        assert!(seen.insert(l), "{l} typed twice");
    }
}
