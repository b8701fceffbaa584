//! The plane as operators run it: health and readiness, metrics (checked by `promtool` and
//! scraped by a real Prometheus), JSON logs without secrets, the config file and its
//! precedence, the systemd unit (checked by `systemd-analyze verify`), backup and restore, and
//! one plane per data directory and database.

// Tests and benchmarks measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::Plane;
use serde_json::{Value, json};
use termplane_test_support::wait_until;

// ----- helpers -----

/// One HTTP/1.1 exchange on a fresh connection: (status, headers, body).
fn http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> (u16, String, String) {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !body.is_empty() {
        head.push_str("Content-Type: application/json\r\n");
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    write!(s, "{head}\r\n{body}").unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let text = String::from_utf8_lossy(&all).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head.to_owned(), body.to_owned())
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// A `termplane serve` child process, killed when dropped; its log goes to a file.
struct Served {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Stops it with SIGTERM and waits for it to end.
    fn stop(mut self) -> String {
        let pid = rustix::process::Pid::from_raw(i32::try_from(self.child.id()).unwrap()).unwrap();
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        termplane_test_support::wait_until("the plane to stop", Duration::from_secs(30), || {
            self.child.try_wait().unwrap().map(|_| ())
        });
        self.log_text()
    }

    fn admin(&self) -> String {
        let (s, _, b) = http(
            self.port,
            "POST",
            "/api/setup",
            &[("Origin", &self.origin())],
            Some(&json!({"email": "a@example.test", "displayName": "A", "password": PASSWORD})),
        );
        assert_eq!(s, 201, "{b}");
        self.sign_in()
    }

    fn sign_in(&self) -> String {
        let (s, head, b) = http(
            self.port,
            "POST",
            "/api/auth/sign-in",
            &[("Origin", &self.origin())],
            Some(&json!({"email": "a@example.test", "password": PASSWORD})),
        );
        assert_eq!(s, 200, "{b}");
        header(&head, "set-cookie")
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_owned()
    }

    fn origin(&self) -> String {
        format!("http://localhost:{}", self.port)
    }

    fn post(&self, cookie: &str, path: &str, body: &Value) -> (u16, Value) {
        let (s, _, b) = http(
            self.port,
            "POST",
            path,
            &[("Origin", &self.origin()), ("Cookie", cookie)],
            Some(body),
        );
        (s, serde_json::from_str(&b).unwrap_or(Value::Null))
    }
}

const PASSWORD: &str = "a long enough password";

fn plane_command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_termplane"));
    for k in [
        "RUST_LOG",
        "APP_BASE_URL",
        "TERMPLANE_LISTEN",
        "TERMPLANE_DATA_DIR",
        "TERMPLANE_DATABASE_URL",
        "TERMPLANE_CONFIG",
        "TERMPLANE_LOG_FORMAT",
        "TERMPLANE_METRICS_LISTEN",
    ] {
        c.env_remove(k);
    }
    c
}

/// Starts `termplane serve ARGS` (no local node) and waits for it to say where it listens.
/// A plane on loopback with `data` as its data directory and nothing else set, logging to `log`.
fn serve_data(data: &Path, log: &Path) -> Served {
    serve(
        &[
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            data.to_str().unwrap(),
        ],
        &[],
        log,
    )
}

fn serve(args: &[&str], env: &[(&str, &str)], log: &Path) -> Served {
    let err = std::fs::File::create(log).unwrap();
    let mut child = plane_command()
        .arg("serve")
        .arg("--no-local-node")
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(err)
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let Some(url) = line.trim().strip_prefix("termplane is running: open ") else {
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "the plane did not start: {line:?}\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
    };
    let port = url
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    Served {
        child,
        port,
        log: log.to_owned(),
    }
}

/// Runs `termplane ARGS` to its end.
fn run(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    plane_command()
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The test PostgreSQL server (`TERMPLANE_TEST_POSTGRES_URL`), when one is given; under `CI`
/// its absence is a failure.
fn postgres_url() -> Option<String> {
    match std::env::var("TERMPLANE_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but TERMPLANE_TEST_POSTGRES_URL is not"
            );
            eprintln!("not run: TERMPLANE_TEST_POSTGRES_URL is not set");
            None
        }
    }
}

fn sql(url: &str, statement: &str) {
    let (url, statement) = (url.to_owned(), statement.to_owned());
    smol::block_on(async move {
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&url).await.unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    });
}

/// A fresh PostgreSQL database of this test's own (dropped when the guard drops).
struct PgDatabase {
    server: String,
    admin: String,
    name: String,
}

impl PgDatabase {
    fn new(base: &str) -> Self {
        let name = format!("tp_ops_{}", termplane::secret::new_id().unwrap());
        sql(base, &format!("CREATE DATABASE {name}"));
        let (server, _) = base.rsplit_once('/').unwrap();
        Self {
            server: server.to_owned(),
            admin: base.to_owned(),
            name,
        }
    }

    fn url(&self) -> String {
        format!("{}/{}", self.server, self.name)
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let (admin, name) = (self.admin.clone(), self.name.clone());
        let _ = std::panic::catch_unwind(move || {
            sql(
                &admin,
                &format!("GRANT CONNECT ON DATABASE {name} TO PUBLIC"),
            );
            sql(
                &admin,
                &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            );
        });
    }
}

// ----- health and readiness -----

#[test]
fn health_and_readiness_answer_without_a_credential_and_name_each_check() {
    let p = Plane::start();
    let r = p.get("/healthz").send();
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), json!({"status": "ok"}));
    let r = p.get("/readyz").send();
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["status"], "ready");
    for check in ["database", "migrations", "keys", "listening"] {
        assert_eq!(v["checks"][check]["ok"], true, "{check}: {v}");
    }
    assert_eq!(v["failed"], json!([]));
    let r = p.req().method("HEAD").path("/healthz").send();
    assert_eq!(r.status, 200);
}

#[test]
fn unknown_paths_under_the_operators_prefixes_are_plain_404s_never_the_app() {
    let p = Plane::start();
    for path in [
        "/metrics/x",
        "/healthz/",
        "/healthz/deep/er",
        "/readyz/x",
        "/metrics/",
    ] {
        let r = p.get(path).send();
        assert_eq!(r.status, 404, "{path}");
        assert!(
            r.header("content-type")
                .is_some_and(|t| t.starts_with("text/plain")),
            "{path}: {:?}",
            r.header("content-type")
        );
        let body = r.text().to_ascii_lowercase();
        assert!(
            !body.contains("<html") && !body.contains("<!doctype"),
            "{path}: {body}"
        );
    }
    // The API's unknown paths keep the spec's error body.
    assert_eq!(p.get("/api/metrics").send().error(404), "NOT_FOUND");
    assert_eq!(p.get("/api/healthz/x").send().error(404), "NOT_FOUND");
    // A write to an operator's path is not the page either.
    let r = p.req().method("POST").path("/metrics").send();
    assert_eq!(r.status, 405);
}

/// A SQLite file moved away under a running plane leaves its connections writing to a file no
/// restart will open: readiness fails (`database`) until the file is back.
#[test]
fn readiness_fails_while_the_sqlite_file_is_moved_away_and_passes_once_it_is_back() {
    if common::on_postgres() {
        return;
    }
    let p = Plane::start();
    let dir = p.svc.settings().data_dir.clone().unwrap();
    let db = dir.join("t.db");
    let aside = dir.join("t.db.aside");
    std::fs::rename(&db, &aside).unwrap();
    let r = p.get("/readyz").send();
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(r.header("retry-after"), Some("5"));
    let v = r.json();
    assert_eq!(v["status"], "not_ready");
    assert_eq!(v["failed"], json!(["database"]), "{v}");
    assert!(
        v["checks"]["database"]["detail"]
            .as_str()
            .unwrap()
            .contains("t.db"),
        "{v}"
    );
    // Liveness does not read the database.
    assert_eq!(p.get("/healthz").send().status, 200);
    std::fs::rename(&aside, &db).unwrap();
    let r = p.get("/readyz").send();
    assert_eq!(r.status, 200, "{}", r.text());
}

/// A key file replaced under a running plane would orphan every enrolled node at the next
/// start: readiness says so at once.
#[test]
fn readiness_fails_when_a_key_file_no_longer_holds_the_running_key() {
    let p = Plane::start();
    let dir = p.svc.settings().data_dir.clone().unwrap();
    let link = dir.join("link.key");
    let original = std::fs::read(&link).unwrap();
    std::fs::write(&link, [9u8; 32]).unwrap();
    let r = p.get("/readyz").send();
    assert_eq!(r.status, 503);
    assert_eq!(r.json()["failed"], json!(["keys"]));
    std::fs::write(&link, original).unwrap();
    assert_eq!(p.get("/readyz").send().status, 200);
}

/// On PostgreSQL: readiness fails while the plane cannot reach its database (every
/// connection cut, new ones refused), a burst of probes meanwhile shares the checks under way
/// instead of queueing one each, and readiness passes again when the database is back.
#[test]
fn readiness_follows_a_postgres_database_that_goes_away_and_comes_back() {
    let Some(base) = postgres_url() else {
        return;
    };
    let db = PgDatabase::new(&base);
    let dir = common::tempdir("ops-pg-ready");
    let served = serve(
        &[
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            dir.to_str().unwrap(),
            "--database-url",
            &db.url(),
        ],
        &[],
        &dir.join("plane.log"),
    );
    let (status, _, body) = http(served.port, "GET", "/readyz", &[], None);
    assert_eq!(status, 200, "{body}");
    let ready: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(ready["checks"]["instance_lock"]["ok"], true, "{ready}");
    // The database goes away: new connections refused, the open ones cut.
    sql(
        &base,
        &format!(
            "REVOKE CONNECT ON DATABASE {} FROM PUBLIC, CURRENT_USER",
            db.name
        ),
    );
    sql(
        &base,
        &format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{}'",
            db.name
        ),
    );
    let (status, _, body) = http(served.port, "GET", "/readyz", &[], None);
    assert_eq!(status, 503, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let failed = v["failed"].as_array().unwrap();
    assert!(failed.contains(&json!("database")), "{v}");
    assert!(failed.contains(&json!("instance_lock")), "{v}");
    assert_eq!(http(served.port, "GET", "/healthz", &[], None).0, 200);
    // The plane's own watch logs the change, naming the failed checks.
    wait_until(
        "the log to say the plane is not ready",
        Duration::from_secs(40),
        || {
            let log = served.log_text();
            log.lines()
                .any(|l| l.contains("not ready: ") && l.contains("database: unreachable"))
                .then_some(())
        },
    );
    // Twenty probes at once: answered together, not one check after another.
    let started = Instant::now();
    let answers: Vec<u16> = std::thread::scope(|s| {
        let all: Vec<_> = (0..20)
            .map(|_| s.spawn(|| http(served.port, "GET", "/readyz", &[], None).0))
            .collect();
        all.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(answers.iter().all(|s| *s == 503), "{answers:?}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "twenty probes took {:?}",
        started.elapsed()
    );
    sql(
        &base,
        &format!(
            "GRANT CONNECT ON DATABASE {} TO PUBLIC, CURRENT_USER",
            db.name
        ),
    );
    let v = wait_until(
        "readiness once the database is back",
        Duration::from_secs(30),
        || {
            let (status, _, body) = http(served.port, "GET", "/readyz", &[], None);
            (status == 200).then(|| serde_json::from_str::<Value>(&body).unwrap())
        },
    );
    assert_eq!(v["checks"]["instance_lock"]["ok"], true, "{v}");
    drop(served);
    let _ = std::fs::remove_dir_all(&dir);
}

// ----- metrics -----

/// The cluster's membership: readiness names this replica and every member with its lease,
/// `/metrics` counts them, a lease that is not renewed lapses (and fails this replica's
/// readiness), a lapsed member is pruned a day later, a replica that leaves is gone.
#[test]
fn readiness_and_metrics_report_the_clusters_members_and_their_leases() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.system_key(&admin);
    let me = p.svc.cluster().id();
    let v = p.get("/readyz").send().json();
    assert_eq!(v["checks"]["cluster"]["ok"], true, "{v}");
    assert_eq!(v["cluster"]["replica"], me.as_str());
    let members = v["cluster"]["members"].as_array().unwrap().clone();
    assert_eq!(members.len(), 1, "{v}");
    assert_eq!(members[0]["address"], p.base.as_str());
    assert_eq!(members[0]["live"], true);
    assert_eq!(members[0]["version"], env!("CARGO_PKG_VERSION"));
    // A second plane registers on the same database, as one does at its start.
    let store = smol::block_on(termplane::store::Store::open(&p.db_url, common::T0)).unwrap();
    let now = termplane::clock::Clock::now_ms(&p.clock);
    smol::block_on(store.put_replica(&termplane::store::ReplicaRow {
        id: "peer".into(),
        address: "http://10.0.0.2:7420".into(),
        version: "0.0.0".into(),
        host: "other".into(),
        started_at: now,
        lease_until: now + 15_000,
    }))
    .unwrap();
    let v = p.get("/readyz").send().json();
    assert_eq!(v["cluster"]["members"].as_array().unwrap().len(), 2, "{v}");
    assert!(scrape(&p, &key).contains("termplane_cluster_replicas{state=\"live\"} 2"));
    // Sixteen seconds without a renewal: both leases lapsed, and this replica is not ready.
    p.clock.advance_ms(16_000);
    let r = p.get("/readyz").send();
    assert_eq!(r.status, 503, "{}", r.text());
    let v = r.json();
    assert!(
        v["failed"].as_array().unwrap().contains(&json!("cluster")),
        "{v}"
    );
    assert!(
        v["checks"]["cluster"]["detail"]
            .as_str()
            .unwrap()
            .contains("lapsed"),
        "{v}"
    );
    // Renewed: ready again; the peer stays lapsed.
    smol::block_on(p.svc.cluster().heartbeat()).unwrap();
    let r = p.get("/readyz").send();
    assert_eq!(r.status, 200, "{}", r.text());
    let text = scrape(&p, &key);
    assert!(
        text.contains("termplane_cluster_replicas{state=\"live\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("termplane_cluster_replicas{state=\"lapsed\"} 1"),
        "{text}"
    );
    // A day later the lapsed row is pruned at a renewal.
    p.clock.advance_ms(25 * 3600 * 1000);
    smol::block_on(p.svc.cluster().heartbeat()).unwrap();
    let rows = smol::block_on(store.replicas()).unwrap();
    assert_eq!(
        rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        [me.as_str()]
    );
    // Leaving removes its row, and no later renewal writes it again.
    smol::block_on(p.svc.cluster().leave()).unwrap();
    assert!(smol::block_on(store.replicas()).unwrap().is_empty());
    smol::block_on(p.svc.cluster().heartbeat()).unwrap();
    assert!(smol::block_on(store.replicas()).unwrap().is_empty());
    assert_eq!(p.get("/readyz").send().status, 503);
}

/// The binary registers itself at its start, at its base URL, and a clean stop removes its
/// row: the cluster does not wait for its lease to lapse.
#[test]
fn a_plane_registers_in_the_clusters_membership_and_leaves_it_when_it_stops() {
    let dir = common::tempdir("ops-cluster");
    let data = dir.join("data");
    let served = serve_data(&data, &dir.join("log"));
    let (status, _, body) = http(served.port, "GET", "/readyz", &[], None);
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v["cluster"]["members"][0]["address"],
        format!("http://localhost:{}", served.port),
        "{v}"
    );
    let log = served.stop();
    assert!(!log.contains("could not be removed"), "{log}");
    let url = format!("sqlite://{}?mode=rw", data.join("termplane.db").display());
    let store = smol::block_on(termplane::store::Store::open(&url, common::T0)).unwrap();
    assert!(smol::block_on(store.replicas()).unwrap().is_empty());
}

fn scrape(p: &Plane, key: &str) -> String {
    let r = p.get("/metrics").bearer(key).send();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    r.text()
}

#[test]
fn metrics_answer_a_system_key_only_and_name_routes_by_their_template() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.system_key(&admin);
    assert_eq!(p.get("/metrics").send().error(401), "UNAUTHENTICATED");
    let r = p.get("/metrics").header("Cookie", &admin).send();
    assert_eq!(r.error(403), "SYSTEM_KEY_REQUIRED");
    let wrong = p
        .post(
            "/api/auth/sign-in",
            json!({"email": common::ADMIN, "password": "wrong one"}),
        )
        .send();
    assert_eq!(wrong.status, 401);
    let raw_id = "zz9plural7alpha";
    let r = p
        .get(&format!("/api/subshells/{raw_id}"))
        .bearer(&key)
        .send();
    assert_eq!(r.status, 404);
    let text = scrape(&p, &key);
    assert!(
        text.contains(
            "termplane_http_requests_total{method=\"GET\",route=\"/api/subshells/:id\",status=\"404\"} 1"
        ),
        "{text}"
    );
    assert!(!text.contains(raw_id), "a raw path reached the metrics");
    assert!(text.contains("termplane_sign_in_failures_total{method=\"password\"} 1"));
    assert!(text.contains("termplane_http_request_duration_seconds_bucket{"));
    assert!(text.contains("termplane_db_query_duration_seconds_count{op=\"fetch_optional\"}"));
    assert!(text.contains("termplane_db_acquire_seconds_count"));
    assert!(text.contains("termplane_panes{state=\"running\"} 0"));
    assert!(text.contains("termplane_nodes_online 0"));
    assert!(text.contains("termplane_terminal_viewers 0"));
    // The scrape's own connection holds a place, proven by its system key (earlier requests'
    // connections may not be let go yet).
    let proven: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("termplane_http_connections{class=\"proven\"} "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    assert!(proven >= 1, "{text}");
    assert!(text.contains("termplane_build_info{version=\""));
    // A route the app answers is counted under one label, whatever its path.
    assert_eq!(p.get("/subshells/whatever/it-is").send().status, 200);
    let text = scrape(&p, &key);
    assert!(
        text.contains(
            "termplane_http_requests_total{method=\"GET\",route=\"(app)\",status=\"200\"} 1"
        ),
        "{text}"
    );
    assert!(!text.contains("whatever"));
}

/// Commands and node links are counted: a node that links, answers a ping and goes.
#[test]
fn metrics_count_node_links_and_commands_by_type_and_result() {
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.system_key(&admin);
    let e = common::node::enroll(&p, &admin, "m1", true);
    let mut node = common::node::TestNode::start(&p, &e, "0.17.0");
    node.wait_established();
    common::node::wait_liveness(&p, &e.node_id, "online");
    let text = scrape(&p, &key);
    assert!(
        text.contains("termplane_link_established_total 1"),
        "{text}"
    );
    assert!(text.contains("termplane_nodes_online 1"), "{text}");
    let r = p
        .post(&format!("/api/nodes/{}/ping", e.node_id), Value::Null)
        .header("Cookie", &admin)
        .send();
    assert_eq!(r.status, 200, "{}", r.text());
    let text = scrape(&p, &key);
    assert!(
        text.contains("termplane_commands_total{type=\"ping\",result=\"ok\"} 1"),
        "{text}"
    );
    assert!(text.contains("termplane_command_duration_seconds_count{type=\"ping\"} 1"));
    node.shutdown();
    common::node::wait_liveness(&p, &e.node_id, "offline");
    let text = scrape(&p, &key);
    assert!(text.contains("termplane_link_closed_total{by="), "{text}");
    assert!(text.contains("termplane_nodes_online 0"));
}

/// Debian's `promtool`, or `None` (outside CI) after saying so.
fn promtool() -> Option<&'static str> {
    if Command::new("promtool").arg("--version").output().is_ok() {
        return Some("promtool");
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI: promtool is missing (Debian's prometheus package)"
    );
    eprintln!("not run: promtool is not installed (apt-get install prometheus)");
    None
}

#[test]
fn a_scrape_passes_promtool_check_metrics() {
    let Some(promtool) = promtool() else {
        return;
    };
    let p = Plane::start();
    let admin = p.setup_admin();
    let (_, key) = p.system_key(&admin);
    let _ = p
        .post(
            "/api/auth/sign-in",
            json!({"email": common::ADMIN, "password": "nope nope"}),
        )
        .send();
    for path in ["/api/settings/instance", "/api/nodes", "/readyz", "/nope"] {
        let _ = p.get(path).bearer(&key).send();
    }
    let text = scrape(&p, &key);
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool: {}{}\n{text}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A Prometheus server kills its process when dropped.
struct Prometheus(Child);

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn query(port: u16, q: &str) -> Value {
    // Prometheus may not listen yet.
    if std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        return Value::Null;
    }
    let (status, _, body) = http(port, "GET", &format!("/api/v1/query?query={q}"), &[], None);
    if status != 200 {
        return Value::Null;
    }
    serde_json::from_str(&body).unwrap_or(Value::Null)
}

/// A real Prometheus server scrapes a running plane on its metrics address, once a second:
/// the target is up and the plane's own series are stored.
#[test]
fn a_prometheus_server_scrapes_a_running_plane() {
    if !Command::new("prometheus")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: the prometheus server is missing (Debian's prometheus package)"
        );
        eprintln!("not run: prometheus is not installed");
        return;
    }
    let dir = common::tempdir("ops-prometheus");
    let metrics_port = common::unused_port();
    let plane = serve(
        &[
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            dir.join("data").to_str().unwrap(),
            "--metrics-listen",
            &format!("127.0.0.1:{metrics_port}"),
        ],
        &[],
        &dir.join("plane.log"),
    );
    // The open address serves the metrics without a credential, and nothing else.
    let (status, _, body) = http(metrics_port, "GET", "/metrics", &[], None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(http(metrics_port, "GET", "/api/nodes", &[], None).0, 404);
    wait_until(
        "readiness on the metrics address",
        Duration::from_secs(30),
        || (http(metrics_port, "GET", "/readyz", &[], None).0 == 200).then_some(()),
    );
    let prom_port = common::unused_port();
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n\
             scrape_configs:\n  - job_name: termplane\n    static_configs:\n      - targets: ['127.0.0.1:{metrics_port}']\n"
        ),
    )
    .unwrap();
    let log = std::fs::File::create(dir.join("prometheus.log")).unwrap();
    let prom = Prometheus(
        Command::new("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("tsdb").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{prom_port}"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    let up = wait_until(
        "Prometheus to find the plane up",
        Duration::from_secs(60),
        || {
            let v = query(prom_port, "up");
            let result = v["data"]["result"].as_array()?.first()?.clone();
            (result["value"][1] == "1").then_some(result)
        },
    );
    assert_eq!(up["metric"]["job"], "termplane", "{up}");
    let series = wait_until(
        "a termplane series in Prometheus",
        Duration::from_secs(30),
        || {
            let v = query(prom_port, "termplane_build_info");
            let r = v["data"]["result"].as_array()?.first()?.clone();
            Some(r)
        },
    );
    assert_eq!(series["metric"]["version"], env!("CARGO_PKG_VERSION"));
    let requests = wait_until("the scrapes counted", Duration::from_secs(30), || {
        let v = query(
            prom_port,
            "termplane_http_requests_total%7Broute%3D%22%2Fmetrics%22%7D",
        );
        v["data"]["result"].as_array()?.first().cloned()
    });
    assert!(
        requests["value"][1]
            .as_str()
            .unwrap()
            .parse::<f64>()
            .unwrap()
            >= 1.0
    );
    drop(prom);
    drop(plane);
    let _ = std::fs::remove_dir_all(&dir);
}

// ----- logs -----

/// With `--log-format json` every line is one JSON object, every request has its line (method,
/// route template, status, duration, request id), and no line holds a secret: the password,
/// the session cookie, a system key, a setup key, a node key.
#[test]
fn json_logs_have_a_line_per_request_and_no_secret() {
    let dir = common::tempdir("ops-json-logs");
    let plane = serve(
        &[
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            dir.join("data").to_str().unwrap(),
            "--log-format",
            "json",
            "--log-filter",
            "debug",
        ],
        &[],
        &dir.join("plane.log"),
    );
    let cookie = plane.admin();
    let session = cookie.split_once('=').unwrap().1.to_owned();
    let (s, v) = plane.post(&cookie, "/api/system-keys", &json!({"name": "ops"}));
    assert_eq!(s, 201, "{v}");
    let system_key = v["key"].as_str().unwrap().to_owned();
    let (s, _, _) = http(
        plane.port,
        "GET",
        "/api/nodes",
        &[("Authorization", &format!("Bearer {system_key}"))],
        None,
    );
    assert_eq!(s, 200);
    let (s, v) = plane.post(&cookie, "/api/setup-keys", &Value::Null);
    assert_eq!(s, 201, "{v}");
    let setup_key = v["key"].as_str().unwrap().to_owned();
    let (s, v) = plane.post(
        "",
        "/api/nodes/enroll",
        &common::enroll_body(&setup_key, "n1"),
    );
    assert_eq!(s, 201, "{v}");
    let node_key = v["nodeKey"].as_str().unwrap().to_owned();
    // The node key used where it is refused, and a wrong password: refusals log too.
    let (s, _, _) = http(
        plane.port,
        "GET",
        "/api/nodes",
        &[("Authorization", &format!("Bearer {node_key}"))],
        None,
    );
    assert_eq!(s, 401);
    let log = plane.stop();
    assert!(!log.is_empty());
    let mut requests = 0;
    for line in log.lines() {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not one JSON object per line ({e}): {line}"));
        if v["message"] == "request" {
            requests += 1;
            for field in ["method", "route", "status", "ms", "req_id"] {
                assert!(!v[field].is_null(), "{field} missing: {line}");
            }
        }
    }
    assert!(requests >= 7, "{requests} request lines in {log}");
    assert!(log.contains(r#""route":"/api/nodes/enroll""#), "{log}");
    for (what, secret) in [
        ("the password", PASSWORD),
        ("the session token", session.as_str()),
        ("the system key", system_key.as_str()),
        ("the setup key", setup_key.as_str()),
        ("the node key", node_key.as_str()),
    ] {
        assert!(!log.contains(secret), "{what} is in the log");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ----- the config file and precedence -----

#[test]
fn a_setting_comes_from_the_flag_then_the_environment_then_the_file_then_the_default() {
    let dir = common::tempdir("ops-precedence");
    let (from_file, from_env, from_flag) = (
        common::unused_port(),
        common::unused_port(),
        common::unused_port(),
    );
    let config = dir.join("plane.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:{from_file}\"\ndata_dir = \"{}\"\nlocal_node = false\n",
            dir.join("data").display()
        ),
    )
    .unwrap();
    let cfg = config.to_str().unwrap();
    let port = |args: &[&str], env: &[(&str, &str)], tag: &str| {
        let p = serve(args, env, &dir.join(format!("{tag}.log")));
        let port = p.port;
        drop(p);
        port
    };
    let env_listen = format!("127.0.0.1:{from_env}");
    let flag_listen = format!("127.0.0.1:{from_flag}");
    assert_eq!(port(&["--config", cfg], &[], "file"), from_file);
    assert_eq!(
        port(
            &["--config", cfg],
            &[("TERMPLANE_LISTEN", &env_listen)],
            "env"
        ),
        from_env
    );
    assert_eq!(
        port(
            &["--config", cfg, "--listen", &flag_listen],
            &[("TERMPLANE_LISTEN", &env_listen)],
            "flag"
        ),
        from_flag
    );
    // The config file can come from the environment too; its data directory was used.
    assert_eq!(
        port(&[], &[("TERMPLANE_CONFIG", cfg)], "env-config"),
        from_file
    );
    assert!(dir.join("data/signing.key").exists());
    // The default, with no file.
    let out = run(&["serve", "--listen", "nope"], &[]);
    assert_eq!(out.status.code(), Some(2));
    // An unknown key is refused by name, with the file's name.
    std::fs::write(&config, "listen = \"127.0.0.1:1\"\nmetrics_listn = \"x\"\n").unwrap();
    let out = run(&["serve", "--config", cfg], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown field `metrics_listn`"), "{err}");
    assert!(err.contains("plane.toml"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_subcommand_prints_its_own_help() {
    for (args, says, not) in [
        (vec!["serve", "--help"], "--metrics-listen", "Commands:"),
        (
            vec!["backup", "--help"],
            "Usage: termplane backup",
            "--run-as",
        ),
        (
            vec!["restore", "--help"],
            "Usage: termplane restore",
            "--run-as",
        ),
        (
            vec!["service", "install", "--help"],
            "--run-as",
            "--log-format json",
        ),
        (
            vec!["service", "status", "--help"],
            "--system",
            "--metrics-listen",
        ),
    ] {
        let out = run(&args, &[]);
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(says), "{args:?}: {text}");
        assert!(!text.contains(not), "{args:?}: {text}");
    }
    let out = run(&["--help"], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    for c in ["serve", "service", "backup", "restore", "mcp"] {
        assert!(text.contains(c), "{text}");
    }
    let out = run(&["--version"], &[]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("termplane {}", env!("CARGO_PKG_VERSION"))
    );
}

// ----- the systemd unit -----

/// Every unit `service install` writes — system or user, local node on or off — passes
/// `systemd-analyze verify`.
#[test]
fn the_service_units_pass_systemd_analyze_verify() {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: systemd-analyze is missing (Debian's systemd package)"
        );
        eprintln!("not run: systemd-analyze is not installed");
        return;
    }
    let dir = common::tempdir("ops-unit");
    let config = dir.join("plane.toml");
    std::fs::write(&config, "log_format = \"json\"\n").unwrap();
    for (tag, extra) in [
        ("system-local", vec!["--system", "--run-as", "tpsvc"]),
        (
            "system-strict",
            vec!["--system", "--run-as", "tpsvc", "--local-node", "off"],
        ),
        ("user-local", vec!["--user"]),
        ("user-strict", vec!["--user", "--no-local-node"]),
    ] {
        let unit_dir = dir.join(tag);
        std::fs::create_dir_all(&unit_dir).unwrap();
        let unit = unit_dir.join("termplane.service");
        let mut args = vec![
            "service",
            "install",
            "--unit-file",
            unit.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--data-dir",
            "/var/lib/termplane-test",
        ];
        args.extend(extra.iter().copied());
        let out = run(&args, &[]);
        assert!(
            out.status.success(),
            "{tag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&unit).unwrap();
        assert!(text.contains("Restart=on-failure"), "{text}");
        assert!(text.contains(env!("CARGO_BIN_EXE_termplane")), "{text}");
        let mut verify = Command::new("systemd-analyze");
        if tag.starts_with("user") {
            // The user manager's runtime directory (no user session here).
            let runtime = dir.join(format!("{tag}-runtime"));
            std::fs::create_dir_all(&runtime).unwrap();
            std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
            verify.arg("--user").env("XDG_RUNTIME_DIR", &runtime);
        }
        let out = verify.arg("verify").arg(&unit).output().unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{tag}: {said}\n{text}");
        assert!(!said.contains("termplane.service"), "{tag}: {said}\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ----- one plane per database -----

#[test]
fn a_second_plane_on_the_same_data_directory_or_sqlite_file_refuses_to_start() {
    let dir = common::tempdir("ops-second-sqlite");
    let data = dir.join("data");
    let first = serve_data(&data, &dir.join("first.log"));
    let cookie = first.admin();
    let before = std::fs::read(data.join("signing.key")).unwrap();
    let out = run(
        &[
            "serve",
            "--no-local-node",
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            data.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("another termplane is running on this data directory"),
        "{err}"
    );
    assert!(err.contains(&format!("pid={}", first.child.id())), "{err}");
    // Another data directory, the same SQLite file.
    let other = dir.join("other");
    let url = format!("sqlite://{}", data.join("termplane.db").display());
    let out = run(
        &[
            "serve",
            "--no-local-node",
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            other.to_str().unwrap(),
            "--database-url",
            &url,
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("another termplane is running on this SQLite database"),
        "{err}"
    );
    assert!(
        !other.join("signing.key").exists(),
        "the refused plane made keys"
    );
    // The first plane is untouched and serves on.
    assert_eq!(std::fs::read(data.join("signing.key")).unwrap(), before);
    let (s, _) = first.post(&cookie, "/api/system-keys", &json!({"name": "still here"}));
    assert_eq!(s, 201);
    drop(first);
    // Once it is gone, a plane starts there (a lock goes with its process).
    let again = serve_data(&data, &dir.join("again.log"));
    assert_eq!(http(again.port, "GET", "/readyz", &[], None).0, 200);
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_plane_on_the_same_postgres_database_refuses_to_start_and_names_the_holder() {
    let Some(base) = postgres_url() else {
        return;
    };
    let db = PgDatabase::new(&base);
    let dir = common::tempdir("ops-second-pg");
    let first = serve(
        &[
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            dir.join("a").to_str().unwrap(),
            "--database-url",
            &db.url(),
        ],
        &[],
        &dir.join("first.log"),
    );
    let cookie = first.admin();
    let e = first.post(&cookie, "/api/setup-keys", &Value::Null);
    assert_eq!(e.0, 201);
    let (s, v) = first.post(
        "",
        "/api/nodes/enroll",
        &common::enroll_body(e.1["key"].as_str().unwrap(), "pg-node"),
    );
    assert_eq!(s, 201, "{v}");
    let out = run(
        &[
            "serve",
            "--no-local-node",
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            dir.join("b").to_str().unwrap(),
            "--database-url",
            &db.url(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("another termplane is running on this PostgreSQL database"),
        "{err}"
    );
    assert!(err.contains(&format!("pid={}", first.child.id())), "{err}");
    // It stopped before it made keys of its own or touched a row.
    assert!(!dir.join("b/signing.key").exists());
    let (s, _, body) = http(
        first.port,
        "GET",
        "/api/nodes",
        &[("Cookie", &cookie)],
        None,
    );
    assert_eq!(s, 200, "{body}");
    drop(first);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--cluster on` lifts the one-plane-per-database lock on PostgreSQL: two planes with the
/// cluster's keys (the second's data directory holds copies of the first's key files) run on
/// one database, each a live member of the other's membership, each taking its peers'
/// connections at `/ws/replica`. On SQLite it is refused before anything is touched.
#[test]
fn two_planes_with_cluster_on_run_on_one_postgres_database_as_replicas() {
    let dir = common::tempdir("ops-cluster-on");
    let out = run(
        &[
            "serve",
            "--cluster",
            "on",
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            dir.join("lite").to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--cluster on needs a PostgreSQL database"),
        "{err}"
    );
    assert!(!dir.join("lite/signing.key").exists());

    let Some(base) = postgres_url() else {
        return;
    };
    let db = PgDatabase::new(&base);
    let start = |name: &str| {
        serve(
            &[
                "--cluster",
                "on",
                "--listen",
                "127.0.0.1:0",
                "--data-dir",
                dir.join(name).to_str().unwrap(),
                "--database-url",
                &db.url(),
            ],
            &[],
            &dir.join(format!("{name}.log")),
        )
    };
    let a = start("a");
    std::fs::create_dir_all(dir.join("b")).unwrap();
    for (file, _) in termplane::keys::KEY_FILES {
        std::fs::copy(dir.join("a").join(file), dir.join("b").join(file)).unwrap();
    }
    let b = start("b");
    for p in [&a, &b] {
        let (s, _, body) = http(p.port, "GET", "/readyz", &[], None);
        assert_eq!(s, 200, "{body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        let live = v["cluster"]["members"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["live"] == true)
            .count();
        assert_eq!(live, 2, "{v}");
        use async_tungstenite::tungstenite::client::IntoClientRequest;
        let req = format!("ws://127.0.0.1:{}/ws/replica", p.port)
            .into_client_request()
            .unwrap();
        let stream = std::net::TcpStream::connect(("127.0.0.1", p.port)).unwrap();
        let (mut ws, resp) = async_tungstenite::tungstenite::client::client(req, stream).unwrap();
        assert_eq!(resp.status().as_u16(), 101);
        let challenge = ws.read().unwrap();
        assert!(challenge.is_binary(), "a challenge comes first");
    }
    drop(b);
    drop(a);
    let _ = std::fs::remove_dir_all(&dir);
}

// ----- backup and restore -----

#[test]
fn restore_refuses_a_running_planes_or_a_non_empty_data_directory_and_fills_an_empty_one() {
    let dir = common::tempdir("ops-restore");
    let data = dir.join("data");
    let plane = serve_data(&data, &dir.join("plane.log"));
    let cookie = plane.admin();
    let (s, _) = plane.post(&cookie, "/api/presets", &json!({"name": "kept"}));
    assert_eq!(s, 201);
    let archive = dir.join("plane.tar");
    let d = data.to_str().unwrap();
    let a = archive.to_str().unwrap();
    let out = run(&["backup", a, "--data-dir", d], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::metadata(&archive).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // Never over an existing file.
    let out = run(&["backup", a, "--data-dir", d], &[]);
    assert!(!out.status.success());
    // Not into the running plane's directory.
    let out = run(&["restore", a, "--data-dir", d], &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("a running plane holds"), "{err}");
    // Not into a directory that holds anything.
    let busy = dir.join("busy");
    std::fs::create_dir_all(&busy).unwrap();
    std::fs::write(busy.join("notes.txt"), "mine").unwrap();
    let out = run(&["restore", a, "--data-dir", busy.to_str().unwrap()], &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not empty"));
    assert_eq!(
        std::fs::read_to_string(busy.join("notes.txt")).unwrap(),
        "mine"
    );
    // Into a new one: the keys are the plane's, and a plane starts on it with its accounts.
    let fresh = dir.join("fresh");
    let out = run(&["restore", a, "--data-dir", fresh.to_str().unwrap()], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for k in ["signing.key", "link.key"] {
        assert_eq!(
            std::fs::read(fresh.join(k)).unwrap(),
            std::fs::read(data.join(k)).unwrap(),
            "{k}"
        );
        assert_eq!(
            std::fs::metadata(fresh.join(k))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o600
        );
    }
    drop(plane);
    let restored = serve(
        &[
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            fresh.to_str().unwrap(),
        ],
        &[],
        &dir.join("restored.log"),
    );
    let cookie = restored.sign_in();
    let (s, _, body) = http(
        restored.port,
        "GET",
        "/api/presets",
        &[("Cookie", &cookie)],
        None,
    );
    assert_eq!(s, 200);
    assert!(body.contains("\"kept\""), "{body}");
    drop(restored);
    let _ = std::fs::remove_dir_all(&dir);
}

use std::os::unix::fs::PermissionsExt;
