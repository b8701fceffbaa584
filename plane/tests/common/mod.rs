//! A real plane on loopback and a minimal blocking HTTP/1.1 client for the integration tests.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    dead_code,
    unreachable_pub
)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};
use termplane::clock::ManualClock;
use termplane::http::{HttpOptions, serve};
use termplane::service::{Services, Settings};
use termplane::store::Store;

/// Every log line any test plane wrote (grepped for secrets).
pub fn logs() -> &'static Mutex<Vec<u8>> {
    static LOGS: OnceLock<Mutex<Vec<u8>>> = OnceLock::new();
    LOGS.get_or_init(|| Mutex::new(Vec::new()))
}

struct LogWriter;
impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        logs().lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn init_logs() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new("debug"))
            .with_writer(|| LogWriter)
            .with_ansi(false)
            .try_init();
    });
}

/// Prints every ERROR line the test planes logged so far, so that a test failing on a 500
/// shows the cause the plane logged beside it (the response body carries only an `errId`).
/// Lines of planes of other tests of the binary may be among them.
pub fn print_error_lines() {
    let all = logs().lock().unwrap().clone();
    for line in String::from_utf8_lossy(&all).lines() {
        if line.contains(" ERROR ") {
            eprintln!("plane log: {line}");
        }
    }
}

pub fn tempdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "termplane-test-{tag}-{}",
        termplane::secret::new_id().unwrap()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A loopback port nothing listens on, for a child process told to listen there.
///
/// Taken below the kernel's ephemeral range (`ip_local_port_range`): a port the kernel hands
/// out for `bind(:0)` or an outgoing connection — which every other test of the binary does
/// all the time — can be taken again between this check and the child's bind, one from below
/// the range only by another caller of this function, and those pick at random.
pub fn unused_port() -> u16 {
    use std::hash::{BuildHasher, Hasher};
    let low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    let floor = 10_000u16;
    if low > floor + 1000 {
        let seed = std::collections::hash_map::RandomState::new();
        for i in 0..500u64 {
            let mut h = seed.build_hasher();
            h.write_u64(i);
            let port = floor + (h.finish() % u64::from(low - floor)) as u16;
            if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
                return port;
            }
        }
    }
    // No room below the range: any free port, racy as that is.
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub const PASSWORD: &str = "correct horse battery";
pub const ADMIN: &str = "admin@example.test";
pub const T0: i64 = 1_800_000_000_000;

pub struct Plane {
    /// The database the plane runs on (a SQLite file in its data directory, or a PostgreSQL
    /// database of its own: see [`test_database`]).
    pub db_url: String,
    pub addr: SocketAddr,
    pub base: String,
    pub clock: ManualClock,
    pub svc: Arc<Services>,
    /// The data directory this harness made (removed when the plane drops, unless the test
    /// is failing: then it is kept to be looked at). `None` when the test gave its own.
    own_dir: Option<std::path::PathBuf>,
    /// Whether the database is this plane's own (dropped with it on PostgreSQL).
    owns_db: bool,
    stop: Option<smol::channel::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

pub mod local;
pub mod node;

#[derive(Default)]
pub struct Opts {
    pub base_url: Option<String>,
    /// Address the plane as `http://localhost:PORT` (a host name, as passkeys need).
    pub localhost: bool,
    pub body_limit: Option<usize>,
    pub drain: Option<Duration>,
    pub header_timeout: Option<Duration>,
    pub max_conns_per_ip: Option<usize>,
    pub max_conns: Option<usize>,
    pub io_timeout: Option<Duration>,
    pub body_timeout: Option<Duration>,
    pub min_send_rate: Option<u64>,
    pub trusted_proxies: Vec<&'static str>,
    pub downloads_dir: Option<std::path::PathBuf>,
    /// The plane's data directory (its SQLite file, keys and kept files); a new temporary
    /// directory when `None`.
    pub data_dir: Option<std::path::PathBuf>,
    /// Push only to public addresses (as a plane started without
    /// `TERMPLANE_PUSH_ALLOW_PRIVATE=1`); tests otherwise push to a loopback service.
    pub public_push_only: bool,
    /// Take only `https://` push endpoints (as a plane started without
    /// `TERMPLANE_PUSH_ALLOW_HTTP=1`); tests otherwise push over plain HTTP.
    pub https_push_only: bool,
    /// The screen signal off (`TERMPLANE_SCREEN_SIGNAL=off`).
    pub no_screen_signal: bool,
    /// Another plane's database, shared with it (a second replica of a cluster; the plane
    /// neither ends the other's lease at its start nor drops the database when it drops).
    pub database: Option<String>,
    /// A replica of a cluster from its start: it shares its database (leaves other replicas'
    /// leases alone, takes its peers' connections) and registers its own listening address.
    pub cluster: bool,
}

impl Plane {
    pub fn start() -> Self {
        Self::start_with(Opts::default())
    }

    pub fn start_with(o: Opts) -> Self {
        init_logs();
        let own_dir = o.data_dir.is_none().then(|| tempdir("plane"));
        let dir = o.data_dir.clone().or_else(|| own_dir.clone()).unwrap();
        let clock = ManualClock::new(T0);
        let (tx, rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = smol::channel::bounded::<()>(1);
        let c2 = clock.clone();
        let owns_db = o.database.is_none();
        let db_url = o.database.clone().unwrap_or_else(|| test_database(&dir));
        let url = db_url.clone();
        let thread = std::thread::spawn(move || {
            smol::block_on(async move {
                let store = Store::open(&url, T0).await.unwrap();
                let listener = smol::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let addr = listener.local_addr().unwrap();
                let base = o.base_url.clone().unwrap_or_else(|| {
                    if o.localhost {
                        format!("http://localhost:{}", addr.port())
                    } else {
                        format!("http://{addr}")
                    }
                });
                let settings = Settings {
                    base_url: base.clone(),
                    extra_origins: vec!["https://extra.example".into()],
                    downloads_dir: o.downloads_dir.clone(),
                    listen: Some(addr.to_string()),
                    data_dir: Some(dir.clone()),
                    push_http: !o.https_push_only,
                    push_private: !o.public_push_only,
                    // Short, so the tests of notifications wait little; the rules themselves
                    // are the detector's unit tests.
                    needs_you: termplane::service::needs_you::Rules {
                        hold_ms: 300,
                        window_ms: 2_000,
                    },
                    screen_signal: !o.no_screen_signal,
                    recording: true,
                    input_marks: true,
                    recording_retention_days: None,
                    cluster_address: Some(format!("http://{addr}")),
                    shares_database: o.database.is_some() || o.cluster,
                    max_node_links: termplane::link::MAX_NODE_SOCKETS,
                };
                let secrets = termplane::keys::load_checked(&store, &dir, T0)
                    .await
                    .unwrap();
                let svc = Services::new(store.clone(), Arc::new(c2), settings, secrets)
                    .await
                    .unwrap();
                tx.send((addr, base, svc.clone())).unwrap();
                let opts = HttpOptions {
                    body_limit: o
                        .body_limit
                        .unwrap_or(termplane::config::DEFAULT_BODY_LIMIT),
                    drain_timeout: o.drain.unwrap_or(Duration::from_secs(5)),
                    panic_route: true,
                    header_timeout: o
                        .header_timeout
                        .unwrap_or(termplane::http::DEFAULT_HEADER_TIMEOUT),
                    max_conns_per_ip: o
                        .max_conns_per_ip
                        .unwrap_or(termplane::http::DEFAULT_MAX_CONNS_PER_IP),
                    max_conns: o.max_conns.unwrap_or(termplane::http::DEFAULT_MAX_CONNS),
                    io_timeout: o.io_timeout.unwrap_or(termplane::http::DEFAULT_IO_TIMEOUT),
                    body_timeout: o
                        .body_timeout
                        .unwrap_or(termplane::http::DEFAULT_BODY_TIMEOUT),
                    min_send_rate: o
                        .min_send_rate
                        .unwrap_or(termplane::http::DEFAULT_MIN_SEND_RATE),
                    trusted_proxies: o
                        .trusted_proxies
                        .iter()
                        .map(|c| termplane::net::Cidr::parse(c).unwrap())
                        .collect(),
                };
                let cluster = svc.cluster().clone();
                serve(listener, svc, opts, async move {
                    let _ = stop_rx.recv().await;
                })
                .await
                .unwrap();
                // Stopped as the binary stops: it leaves the membership (no heartbeat or
                // hearing goes on trying a database the test drops next) and closes its pools.
                let _ = cluster.leave().await;
                store.close().await;
            });
        });
        let (addr, base, svc) = rx.recv_timeout(Duration::from_secs(60)).unwrap();
        Self {
            db_url,
            addr,
            base,
            clock,
            svc,
            own_dir,
            owns_db,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// The not-upgraded connections of `class` (`unproven`, `trial`, `proven`) holding a place,
    /// as the plane's `termplane_http_connections` gauge reads now (0 before any).
    pub fn connections(&self, class: &str) -> u64 {
        let want = format!("termplane_http_connections{{class=\"{class}\"}} ");
        self.svc
            .health()
            .metrics()
            .render()
            .lines()
            .find_map(|l| l.strip_prefix(want.as_str())?.trim().parse().ok())
            .unwrap_or(0)
    }

    /// Waits until the plane holds exactly `n` not-upgraded connections of `class` (the accept
    /// loop has counted the ones a test opened, or let go of the ones it closed).
    pub fn wait_connections(&self, class: &str, n: u64) {
        termplane_test_support::wait_until(
            &format!("{n} {class} connection(s) counted"),
            std::time::Duration::from_secs(15),
            || (self.connections(class) == n).then_some(()),
        );
    }

    /// Waits until the plane holds exactly `n` not-upgraded connections in all classes.
    pub fn wait_connections_total(&self, n: u64) {
        termplane_test_support::wait_until(
            &format!("{n} connection(s) counted in all"),
            std::time::Duration::from_secs(15),
            || {
                let all: u64 = ["unproven", "trial", "proven"]
                    .iter()
                    .map(|c| self.connections(c))
                    .sum();
                (all == n).then_some(())
            },
        );
    }

    /// Origin of the plane (trusted).
    pub fn origin(&self) -> String {
        termplane::service::normalize_origin(&self.base).unwrap()
    }

    /// Another replica on this plane's database and key files, addressed as this plane is
    /// (replicas behind one load balancer share its address): a cluster's second plane.
    pub fn another_replica(&self) -> Self {
        Self::start_with(Opts {
            base_url: Some(self.base.clone()),
            data_dir: Some(self.data_dir()),
            database: Some(self.db_url.clone()),
            ..Opts::default()
        })
    }

    /// The plane's data directory.
    pub fn data_dir(&self) -> std::path::PathBuf {
        self.svc.settings().data_dir.clone().unwrap()
    }

    pub fn stop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.try_send(());
        }
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }

    pub fn req(&self) -> Req {
        Req {
            addr: self.addr,
            method: "GET".into(),
            path: "/".into(),
            headers: vec![],
            body: None,
        }
    }

    pub fn get(&self, path: &str) -> Req {
        self.req().method("GET").path(path)
    }

    /// A browser-style POST from the trusted origin.
    pub fn post(&self, path: &str, body: Value) -> Req {
        self.req()
            .method("POST")
            .path(path)
            .header("Origin", &self.origin())
            .json(body)
    }

    /// A browser-style request with the session `cookie` (and a JSON body, if any).
    pub fn call(&self, cookie: &str, method: &str, path: &str, body: Option<Value>) -> Resp {
        let mut r = self
            .req()
            .method(method)
            .path(path)
            .header("Origin", &self.origin())
            .header("Cookie", cookie);
        if let Some(b) = body {
            r = r.json(b);
        }
        r.send()
    }

    pub fn setup_admin(&self) -> String {
        let r = self
            .post(
                "/api/setup",
                json!({"email": ADMIN, "displayName": "Admin", "password": PASSWORD}),
            )
            .send();
        assert_eq!(r.status, 201, "{}", r.text());
        self.sign_in(ADMIN, PASSWORD)
    }

    /// Signs in and returns the `Cookie` header value.
    pub fn sign_in(&self, email: &str, password: &str) -> String {
        let r = self
            .post(
                "/api/auth/sign-in",
                json!({"email": email, "password": password}),
            )
            .send();
        assert_eq!(r.status, 200, "{}", r.text());
        r.cookie_pair().unwrap()
    }

    pub fn create_user(&self, admin: &str, email: &str, role: &str) -> String {
        let r = self
            .post(
                "/api/users",
                json!({"email": email, "displayName": email, "password": PASSWORD, "role": role}),
            )
            .header("Cookie", admin)
            .send();
        assert_eq!(r.status, 201, "{}", r.text());
        r.json()["id"].as_str().unwrap().to_owned()
    }

    pub fn system_key(&self, admin: &str) -> (String, String) {
        let r = self
            .post("/api/system-keys", json!({"name": "ci"}))
            .header("Cookie", admin)
            .send();
        assert_eq!(r.status, 201, "{}", r.text());
        let v = r.json();
        (
            v["id"].as_str().unwrap().to_owned(),
            v["key"].as_str().unwrap().to_owned(),
        )
    }

    pub fn setup_key(&self, cookie: &str) -> (String, String) {
        let r = self
            .post("/api/setup-keys", Value::Null)
            .header("Cookie", cookie)
            .send();
        assert_eq!(r.status, 201, "{}", r.text());
        let v = r.json();
        (
            v["id"].as_str().unwrap().to_owned(),
            v["key"].as_str().unwrap().to_owned(),
        )
    }

    pub fn enroll(&self, key: &str, name: &str) -> Resp {
        self.req()
            .method("POST")
            .path("/api/nodes/enroll")
            .json(enroll_body(key, name))
            .send()
    }

    pub fn node_count(&self) -> i64 {
        smol::block_on(self.svc.store().node_count()).unwrap()
    }
}

impl Drop for Plane {
    fn drop(&mut self) {
        self.stop();
        if let Some(name) = self
            .db_url
            .strip_prefix("postgres")
            .filter(|_| self.owns_db)
            .and_then(|u| u.rsplit('/').next())
        {
            // The service (and its pool) may outlive the plane's thread: force the drop. A
            // failure only leaves a database behind; it never fails a test from here.
            let _ = try_sql_on_server(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        }
        // A suite leaves no database files behind on a disk it shares with its build.
        if let Some(d) = &self.own_dir
            && !std::thread::panicking()
        {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// A small tmpfs mounted on a directory of its own, for tests of a full disk. Unmounted (and
/// its directory removed) when dropped.
pub struct SmallDisk {
    pub dir: std::path::PathBuf,
}

impl SmallDisk {
    /// Mounts a tmpfs of `bytes`. Mounting needs root (CAP_SYS_ADMIN): without it, `None`
    /// after saying so, except under `CI`, where the test fails instead of passing unrun.
    pub fn mount(bytes: u64) -> Option<Self> {
        let dir = tempdir("small-disk");
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Some(Self { dir });
        }
        let _ = std::fs::remove_dir(&dir);
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: this test needs to mount a tmpfs (run as root)"
        );
        eprintln!("not run: mounting a tmpfs needs root");
        None
    }

    /// Writes `name` until the disk is full; returns its length.
    pub fn fill(&self, name: &str) -> u64 {
        let mut f = std::fs::File::create(self.dir.join(name)).unwrap();
        let chunk = vec![0x5a_u8; 64 * 1024];
        let mut len = 0_u64;
        loop {
            match f.write(&chunk) {
                Ok(0) => break,
                Ok(n) => len += n as u64,
                Err(e) if e.kind() == std::io::ErrorKind::StorageFull => break,
                Err(e) => panic!("filling the disk: {e}"),
            }
        }
        len
    }

    /// Frees `bytes` of the file `name` (a filler made by [`Self::fill`]).
    pub fn free(&self, name: &str, bytes: u64) {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(self.dir.join(name))
            .unwrap();
        let len = f.metadata().unwrap().len();
        f.set_len(len.saturating_sub(bytes)).unwrap();
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.dir)
            .status();
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Whether the test planes run on PostgreSQL: `TERMPLANE_TEST_PLANE_DB=postgres`, with
/// `TERMPLANE_TEST_POSTGRES_URL` naming a database whose role may create databases.
pub fn on_postgres() -> bool {
    std::env::var("TERMPLANE_TEST_PLANE_DB").is_ok_and(|v| v == "postgres")
}

/// Runs one statement on the PostgreSQL server of `TERMPLANE_TEST_POSTGRES_URL` (outside any
/// transaction, as `CREATE DATABASE` needs).
pub fn run_sql_on_server(sql: &str) {
    try_sql_on_server(sql).unwrap();
}

fn try_sql_on_server(sql: &str) -> Result<(), String> {
    let url = std::env::var("TERMPLANE_TEST_POSTGRES_URL")
        .map_err(|_| "TERMPLANE_TEST_PLANE_DB=postgres needs TERMPLANE_TEST_POSTGRES_URL")?;
    let sql = sql.to_owned();
    smol::block_on(async move {
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&url)
            .await
            .map_err(|e| e.to_string())?;
        let done = sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&pool)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string());
        pool.close().await;
        done
    })
}

/// The database of a new test plane: a SQLite file in `dir`, or, on PostgreSQL
/// ([`on_postgres`]), a fresh database of its own on the same server, dropped with the plane.
pub fn test_database(dir: &std::path::Path) -> String {
    if !on_postgres() {
        return format!("sqlite://{}?mode=rwc", dir.join("t.db").display());
    }
    let base = std::env::var("TERMPLANE_TEST_POSTGRES_URL").unwrap();
    let name = format!("tp_{}", termplane::secret::new_id().unwrap());
    run_sql_on_server(&format!("CREATE DATABASE {name}"));
    let (server, _) = base.rsplit_once('/').unwrap();
    format!("{server}/{name}")
}

/// Runs SQL statements on a test plane's own database directly, as someone holding it would.
pub fn tamper(p: &Plane, sql: &str) {
    let url = p.db_url.replace("?mode=rwc", "");
    let sql = sql.to_owned();
    smol::block_on(async move {
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&url).await.unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    });
}

/// Everything a copy of a test plane's database holds: the SQLite file with its write-ahead
/// log, or every row of every table of its PostgreSQL database as text.
pub fn database_copy(p: &Plane) -> Vec<u8> {
    if !on_postgres() {
        let dir = p.svc.settings().data_dir.clone().unwrap();
        let mut all = Vec::new();
        for f in ["t.db", "t.db-wal"] {
            all.extend(std::fs::read(dir.join(f)).unwrap_or_default());
        }
        return all;
    }
    let url = p.db_url.clone();
    smol::block_on(async move {
        use sqlx::Row as _;
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&url).await.unwrap();
        let tables: Vec<String> = sqlx::query(
            "SELECT CAST(table_name AS TEXT) AS t FROM information_schema.tables WHERE table_schema = 'public'",
        )
        .fetch_all(&pool)
        .await
        .unwrap()
        .iter()
        .map(|r| r.try_get("t").unwrap())
        .collect();
        let mut all = Vec::new();
        for t in tables {
            let rows = sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                "SELECT CAST(x AS TEXT) AS row FROM \"{t}\" x"
            )))
            .fetch_all(&pool)
            .await
            .unwrap();
            for r in rows {
                let row: String = r.try_get("row").unwrap();
                all.extend(row.into_bytes());
            }
        }
        pool.close().await;
        all
    })
}

/// A real P-256 identity (a fixed test key) as the node's JWK.
pub fn identity_jwk() -> Value {
    let signer = termplane_machines::jws::Es256Signer::from_secret_bytes(&[7u8; 32]).unwrap();
    serde_json::to_value(signer.public_jwk()).unwrap()
}

/// A real X25519 public key (from a fixed test secret) in its wire spelling.
pub fn link_public_key() -> String {
    termplane_machines::kx::StaticKeypair::from_secret_bytes([9u8; 32])
        .public()
        .to_b64()
}

pub fn enroll_body(key: &str, name: &str) -> Value {
    json!({
        "setupKey": key,
        "name": name,
        "os": "linux",
        "arch": "x86_64",
        "hostname": "node.test",
        "agentVersion": "0.17.0",
        "identityJwk": identity_jwk(),
        "encryptPublicKey": link_public_key(),
    })
}

#[derive(Clone)]
pub struct Req {
    pub addr: SocketAddr,
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

impl Req {
    pub fn method(mut self, m: &str) -> Self {
        self.method = m.into();
        self
    }
    pub fn path(mut self, p: &str) -> Self {
        self.path = p.into();
        self
    }
    pub fn header(mut self, k: &str, v: &str) -> Self {
        self.headers.push((k.into(), v.into()));
        self
    }
    pub fn bearer(self, t: &str) -> Self {
        self.header("Authorization", &format!("Bearer {t}"))
    }
    pub fn json(mut self, v: Value) -> Self {
        if !v.is_null() {
            self.body = Some(serde_json::to_vec(&v).unwrap());
            self.headers
                .push(("Content-Type".into(), "application/json".into()));
        }
        self
    }
    pub fn raw_body(mut self, b: Vec<u8>) -> Self {
        self.body = Some(b);
        self
    }

    pub fn bytes(&self, keep_alive: bool) -> Vec<u8> {
        let mut out = format!(
            "{} {} HTTP/1.1\r\nHost: {}\r\n",
            self.method, self.path, self.addr
        )
        .into_bytes();
        for (k, v) in &self.headers {
            out.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
        }
        let body = self.body.clone().unwrap_or_default();
        out.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
        if !keep_alive {
            out.extend_from_slice(b"Connection: close\r\n");
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&body);
        out
    }

    pub fn send(&self) -> Resp {
        let mut conn = Conn::open(self.addr);
        conn.send(self)
    }
}

/// One keep-alive connection.
pub struct Conn(TcpStream);

impl Conn {
    pub fn open(addr: SocketAddr) -> Self {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        Self(s)
    }

    pub fn send(&mut self, r: &Req) -> Resp {
        self.0.write_all(&r.bytes(true)).unwrap();
        read_response(&mut self.0, &r.method)
    }
}

pub fn read_response(s: &mut TcpStream, method: &str) -> Resp {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let n = s.read(&mut byte).unwrap();
        assert!(
            n == 1,
            "connection closed before the response head; got {:?}",
            String::from_utf8_lossy(&head)
        );
        head.push(byte[0]);
        assert!(head.len() < 65536);
    }
    let text = String::from_utf8(head).unwrap();
    let mut lines = text.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (k, v) = l.split_once(':').unwrap();
            (k.trim().to_ascii_lowercase(), v.trim().to_owned())
        })
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map(|(_, v)| v.parse().unwrap())
        .unwrap_or(0);
    let mut body = vec![0u8; if method == "HEAD" { 0 } else { len }];
    s.read_exact(&mut body).unwrap();
    if status == 500 {
        print_error_lines();
    }
    Resp {
        status,
        headers,
        body,
    }
}

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|_| panic!("not JSON ({}): {}", self.status, self.text()))
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    pub fn code(&self) -> String {
        self.json()["code"].as_str().unwrap_or("").to_owned()
    }
    /// `name=value` of the Set-Cookie header.
    pub fn cookie_pair(&self) -> Option<String> {
        self.header("set-cookie")
            .map(|c| c.split(';').next().unwrap().to_owned())
    }
    /// Asserts the spec's error body shape and returns the code.
    pub fn error(&self, status: u16) -> String {
        assert_eq!(self.status, status, "{}", self.text());
        let v = self.json();
        assert!(v["errId"].as_str().is_some_and(|s| !s.is_empty()), "{v}");
        assert_eq!(v["statusCode"], status, "{v}");
        assert!(v["message"].is_string(), "{v}");
        v["code"].as_str().unwrap().to_owned()
    }
}

/// The account's live feed (an unbound token minted by its session), past its `hello`.
pub fn live_feed(
    p: &Plane,
    cookie: &str,
) -> async_tungstenite::tungstenite::WebSocket<std::net::TcpStream> {
    use async_tungstenite::tungstenite::client::IntoClientRequest;
    let tok = p
        .call(cookie, "POST", "/api/auth/ws-token", Some(json!({})))
        .json()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut req = format!("ws://{}/api/live?token={tok}", p.addr)
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("Origin", p.origin().parse().unwrap());
    let stream = std::net::TcpStream::connect(p.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let (mut ws, _) = async_tungstenite::tungstenite::client::client(req, stream).unwrap();
    let hello: Value = serde_json::from_str(ws.read().unwrap().to_text().unwrap()).unwrap();
    assert_eq!(hello["type"], "hello");
    ws
}

/// Reads feed frames until one of `kind` (bounded by the socket's 20 s read timeout).
pub fn next_frame_of(
    ws: &mut async_tungstenite::tungstenite::WebSocket<std::net::TcpStream>,
    kind: &str,
) -> Value {
    loop {
        let m = ws.read().expect("a feed frame");
        if let Ok(t) = m.to_text() {
            let v: Value = serde_json::from_str(t).unwrap_or(Value::Null);
            if v["type"] == kind {
                return v;
            }
        }
    }
}
