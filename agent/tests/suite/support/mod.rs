//! Real processes on loopback: a `termplane serve` plane and a `termplane-node` daemon, each a
//! child process killed by a guard's `Drop`, plus a tiny blocking HTTP/1.1 client.
//!
//! Shared by the integration tests (`tests/suite/`) and the benchmark (`examples/node_bench.rs`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    dead_code,
    unreachable_pub
)]

pub mod tls;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The longest any single wait of these tests lasts.
pub const WAIT: Duration = Duration::from_secs(30);

pub use termplane_test_support::wait_until;

/// A response.
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One request on a fresh connection (`Connection: close`).
pub fn http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Result<Resp, String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(WAIT)).map_err(|e| e.to_string())?;
    let _ = s.set_nodelay(true);
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
    head.push_str("\r\n");
    head.push_str(&body);
    s.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
    let mut r = BufReader::new(s);
    let mut line = String::new();
    r.read_line(&mut line).map_err(|e| e.to_string())?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("not HTTP: {line:?}"))?;
    let mut headers = Vec::new();
    loop {
        line.clear();
        r.read_line(&mut line).map_err(|e| e.to_string())?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let mut body = Vec::new();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        loop {
            line.clear();
            r.read_line(&mut line).map_err(|e| e.to_string())?;
            let n = usize::from_str_radix(line.trim(), 16).map_err(|e| e.to_string())?;
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).map_err(|e| e.to_string())?;
            body.extend_from_slice(&chunk[..n]);
        }
    } else {
        r.read_to_end(&mut body).map_err(|e| e.to_string())?;
    }
    Ok(Resp {
        status,
        headers,
        body,
    })
}

/// Where the built binaries are: next to the node binary.
///
/// The plane is another package's binary, which `cargo test -p termplane-node` does not build.
/// It is built here when missing; when it is older than a source file it is made of, the test
/// stops and says so, rather than test an older plane in place of the code. (It is not rebuilt
/// here: `cargo build -p termplane` resolves features apart from the workspace's test build and
/// would build much of the tree again.)
pub fn plane_binary(node_bin: &Path) -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = node_bin.parent().unwrap();
            let plane = dir.join("termplane");
            if !plane.exists() {
                // Same profile and target directory as the node binary.
                let target = dir.parent().unwrap();
                let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
                let mut c = Command::new(cargo);
                c.args(["build", "-p", "termplane", "--bin", "termplane"])
                    .env("CARGO_TARGET_DIR", target);
                if dir.file_name().is_some_and(|n| n == "release") {
                    c.arg("--release");
                }
                let st = c.status().expect("cargo build -p termplane");
                assert!(st.success(), "building the plane failed");
            }
            assert!(plane.exists(), "no plane binary at {}", plane.display());
            let built = std::fs::metadata(&plane)
                .and_then(|m| m.modified())
                .unwrap();
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
            let sources = [
                "proto/src",
                "machines/src",
                "runtime-smol/src",
                "exec/src",
                "plane/src",
                "plane/migrations",
            ];
            if let Some(newer) = sources
                .iter()
                .find_map(|d| newer_than(&root.join(d), built))
            {
                panic!(
                    "{} is older than {}: build it first (`cargo build -p termplane`, or run \
                     `cargo test --workspace`)",
                    plane.display(),
                    newer.display()
                );
            }
            plane
        })
        .clone()
}

/// A file under `dir` modified after `than`, if any.
fn newer_than(dir: &Path, than: std::time::SystemTime) -> Option<PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let path = e.path();
        let Ok(meta) = e.metadata() else { continue };
        if meta.is_dir() {
            if let Some(p) = newer_than(&path, than) {
                return Some(p);
            }
        } else if meta.modified().is_ok_and(|m| m > than) {
            return Some(path);
        }
    }
    None
}

/// A free loopback port for a plane that must come back on the same port after a restart.
///
/// It is taken below the kernel's ephemeral range (32768 and up by default), so no other test's
/// outgoing connection or `bind(0)` can take it between this check and the plane's bind.
pub fn free_port() -> u16 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos())
        ^ std::process::id();
    for _ in 0..2_000 {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let port =
            20_000 + u16::try_from(seed.wrapping_add(n.wrapping_mul(7_919)) % 12_000).unwrap();
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free loopback port between 20000 and 32000");
}

/// Ends `child` with SIGTERM, then SIGKILL when it has not exited within ten seconds.
pub fn terminate(child: &mut Child) {
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap());
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if child.try_wait().ok().flatten().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Everything of one test: a temp dir, the plane, the node, the admin's cookie. `Drop` kills
/// both processes and the node's tmux server and removes the directory.
pub struct World {
    pub dir: PathBuf,
    pub node_bin: PathBuf,
    pub source_bin: PathBuf,
    pub port: u16,
    pub plane: Option<Child>,
    pub node: Option<Child>,
    pub cookie: String,
    pub node_id: String,
    pub node_env: Vec<(String, String)>,
    /// Extra environment of the plane process.
    pub plane_env: Vec<(String, String)>,
    /// The TLS-terminating proxy in front of the plane, when the node reaches it over TLS.
    pub proxy: Option<tls::TlsProxy>,
}

impl World {
    /// A plane with an administrator, and an enrolled (not yet running) node.
    pub fn new(tag: &str, node_bin: &Path) -> Self {
        Self::build(tag, node_bin, false)
    }

    /// As [`World::new`], with the plane behind a TLS-terminating proxy: the plane's public
    /// address is `https://localhost:<proxy port>` (a certificate from a CA made for the test),
    /// the node enrolls there and dials `wss://` through the proxy, trusting the CA through
    /// `TERMPLANE_CA_FILE`. The test's own API calls still go to the plane's plain port.
    pub fn behind_tls_proxy(tag: &str, node_bin: &Path) -> Self {
        Self::build(tag, node_bin, true)
    }

    fn build(tag: &str, node_bin: &Path, behind_tls: bool) -> Self {
        let dir = std::env::temp_dir().join(format!("tp-e2e-{tag}-{}-{}", std::process::id(), {
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        }));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in [
            "plane",
            "home",
            "xdg-config",
            "xdg-data",
            "downloads",
            "work",
        ] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        // The node runs from its own copy of the binary, which `update` may replace.
        let bin_dir = dir.join("bin");
        std::fs::create_dir_all(&bin_dir).unwrap();
        let own = bin_dir.join("termplane-node");
        std::fs::copy(node_bin, &own).unwrap();
        let dir_home = dir.join("home").display().to_string();
        let node_env = node_env(&dir);
        let mut w = Self {
            dir,
            node_bin: own,
            source_bin: node_bin.to_path_buf(),
            port: free_port(),
            plane: None,
            node: None,
            cookie: String::new(),
            node_id: String::new(),
            node_env,
            // The plane's own panes (its local node) get the same empty home as the node's, so
            // no test depends on the start-up files of the account running it.
            plane_env: vec![("HOME".into(), dir_home.clone())],
            proxy: None,
        };
        if behind_tls {
            let ca = tls::TestCa::new("termplane e2e CA");
            let ca_file = ca.write(&w.dir, "ca.pem");
            let cert = ca.server_cert(&["localhost"]);
            let proxy = tls::TlsProxy::start(cert.server_config(), w.port);
            w.plane_env.extend([
                (
                    "APP_BASE_URL".into(),
                    format!("https://localhost:{}", proxy.port),
                ),
                ("TRUSTED_ORIGINS".into(), w.base()),
            ]);
            w.node_env
                .push(("TERMPLANE_CA_FILE".into(), ca_file.display().to_string()));
            w.proxy = Some(proxy);
        }
        w.start_plane();
        w.setup_and_enroll();
        w
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The address the node is given: the proxy's `https://` one when there is a proxy.
    pub fn public_base(&self) -> String {
        match &self.proxy {
            Some(p) => format!("https://localhost:{}", p.port),
            None => self.base(),
        }
    }

    pub fn config(&self) -> PathBuf {
        self.dir.join("node.json")
    }

    pub fn tmux_socket(&self) -> PathBuf {
        self.dir.join("xdg-data/termplane-node/tmux.sock")
    }

    /// What `termplane-node status` prints for this world's node.
    pub fn node_status(&self) -> String {
        let out = self
            .node_command()
            .args(["status", "--config"])
            .arg(self.config())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn node_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("xdg-data/termplane-node/node.log"))
            .unwrap_or_default()
    }

    pub fn start_plane(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("plane.log"))
            .unwrap();
        let child = Command::new(plane_binary(&self.source_bin))
            .args(["serve", "--data-dir"])
            .arg(self.dir.join("plane"))
            .args(["--listen", &format!("127.0.0.1:{}", self.port)])
            .env("TERMPLANE_NODE_DOWNLOADS", self.dir.join("downloads"))
            .env("RUST_LOG", "info")
            // The plane runs as on a person's machine: the test run's CI markers are not its
            // own, and they would reach its local panes (Gemini CLI runs headless, never
            // interactive, under `CI=true`).
            .env_remove("CI")
            .env_remove("GITHUB_ACTIONS")
            .envs(self.plane_env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start the plane");
        self.plane = Some(child);
        let port = self.port;
        wait_until("the plane to listen", WAIT, || {
            http(port, "GET", "/api/setup/status", &[], None)
                .ok()
                .filter(|r| r.status == 200)
        });
    }

    pub fn stop_plane(&mut self) {
        if let Some(mut p) = self.plane.take() {
            terminate(&mut p);
        }
    }

    /// Kills the plane outright (SIGKILL), as a crash or power loss would end it.
    pub fn kill_plane(&mut self) {
        if let Some(mut p) = self.plane.take() {
            let _ = p.kill();
            let _ = p.wait();
        }
    }

    fn origin_headers(&self) -> Vec<(String, String)> {
        vec![
            ("Origin".into(), self.base()),
            ("Cookie".into(), self.cookie.clone()),
        ]
    }

    pub fn post(&self, path: &str, body: &Value) -> Resp {
        self.send("POST", path, Some(body))
    }

    /// A request of the signed-in administrator's browser session (its cookie and the plane's
    /// origin).
    pub fn send(&self, method: &str, path: &str, body: Option<&Value>) -> Resp {
        let h = self.origin_headers();
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        http(self.port, method, path, &h, body).unwrap()
    }

    pub fn get(&self, path: &str) -> Resp {
        let h = [("Cookie", self.cookie.as_str())];
        http(self.port, "GET", path, &h, None).unwrap()
    }

    /// The signed-in person's notifications about subshell `id`, newest first.
    pub fn notifications_about(&self, id: &str) -> Vec<Value> {
        let all = self.get("/api/notifications").json();
        all.as_array()
            .into_iter()
            .flatten()
            .filter(|n| n["subjectId"] == id)
            .cloned()
            .collect()
    }

    fn setup_and_enroll(&mut self) {
        let (email, password) = ("admin@example.test", "correct horse battery");
        let r = self.post(
            "/api/setup",
            &json!({ "email": email, "displayName": "Admin", "password": password }),
        );
        assert_eq!(r.status, 201, "setup: {}", r.text());
        let r = self.post(
            "/api/auth/sign-in",
            &json!({ "email": email, "password": password }),
        );
        assert_eq!(r.status, 200, "sign-in: {}", r.text());
        let cookie = r.header("set-cookie").expect("a session cookie");
        self.cookie = cookie.split(';').next().unwrap().to_owned();
        let r = self.post("/api/setup-keys", &Value::Null);
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
            .args(["--name", "e2e", "--config"])
            .arg(self.config())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "enroll failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let cfg: Value = serde_json::from_slice(&std::fs::read(self.config()).unwrap()).unwrap();
        self.node_id = cfg["nodeId"].as_str().unwrap().to_owned();
    }

    /// A `termplane-node` command with this world's environment.
    pub fn node_command(&self) -> Command {
        node_command(&self.node_bin, &self.node_env)
    }

    /// Starts `termplane-node run` (stderr into `node.stderr`).
    pub fn start_node(&mut self) {
        let mut c = self.node_command();
        self.start_node_with(&mut c);
    }

    pub fn start_node_with(&mut self, c: &mut Command) {
        let err = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("node.stderr"))
            .unwrap();
        let child = c
            .arg("run")
            .arg("--config")
            .arg(self.config())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .expect("start the node");
        self.node = Some(child);
    }

    pub fn kill_node(&mut self) {
        if let Some(mut n) = self.node.take() {
            let _ = n.kill();
            let _ = n.wait();
        }
    }

    pub fn liveness(&self) -> String {
        let r = self.get(&format!("/api/nodes/{}", self.node_id));
        r.json()["liveness"].as_str().unwrap_or("").to_owned()
    }

    pub fn wait_online(&self, limit: Duration) {
        wait_until(
            &format!("node online (log:\n{})", self.node_log()),
            limit,
            || (self.liveness() == "online").then_some(()),
        );
    }

    pub fn wait_offline(&self) {
        wait_until("node offline", WAIT, || {
            (self.liveness() == "offline").then_some(())
        });
    }

    /// Sends one command through `POST /api/nodes/:id/commands`; the whole answer.
    pub fn command_answer(&self, cmd: &Value) -> Value {
        let r = self.post(&format!("/api/nodes/{}/commands", self.node_id), cmd);
        assert_eq!(r.status, 200, "{cmd}: {}", r.text());
        r.json()
    }

    /// Sends one command; the node's `result` (`{ ref, ok, data | error }`).
    pub fn command(&self, cmd: &Value) -> Value {
        self.command_answer(cmd)["result"].clone()
    }

    /// Sends one command that must succeed; its `data`.
    pub fn ok(&self, cmd: &Value) -> Value {
        let r = self.command(cmd);
        assert_eq!(r["ok"], true, "{cmd} failed: {r}");
        r["data"].clone()
    }

    /// Events after `after`, waiting up to `wait_ms` for one.
    pub fn events(&self, after: u64, wait_ms: u64) -> Value {
        let r = self.get(&format!(
            "/api/nodes/{}/events?after={after}&waitMs={wait_ms}",
            self.node_id
        ));
        assert_eq!(r.status, 200, "events: {}", r.text());
        r.json()
    }

    /// Reads events from `*after` on until `pred` accepts one (bounded); answers it.
    pub fn wait_event(&self, what: &str, after: &mut u64, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "timed out waiting for the event: {what}");
            let v = self.events(*after, left.as_millis().min(5_000) as u64);
            *after = v["next"].as_u64().unwrap_or(*after);
            for e in v["events"].as_array().into_iter().flatten() {
                if pred(e) {
                    return e.clone();
                }
            }
        }
    }

    /// The tmux socket of the plane's local node (panes on the plane's own host).
    pub fn local_tmux_socket(&self) -> PathBuf {
        self.dir.join("plane/local-node/tmux.sock")
    }

    /// Kills the node's tmux server.
    pub fn kill_tmux(&self) {
        kill_tmux_server(&self.tmux_socket());
    }
}

impl Drop for World {
    fn drop(&mut self) {
        if let Some(mut n) = self.node.take() {
            terminate(&mut n);
        }
        self.kill_tmux();
        self.stop_plane();
        kill_tmux_server(&self.local_tmux_socket());
        if std::thread::panicking() {
            eprintln!(
                "--- node log ---\n{}\n--- node stderr ---\n{}",
                self.node_log(),
                std::fs::read_to_string(self.dir.join("node.stderr")).unwrap_or_default()
            );
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The environment of a node daemon whose home, configuration and data are under `dir`
/// (`home/`, `xdg-config/`, `xdg-data/`).
pub fn node_env(dir: &Path) -> Vec<(String, String)> {
    vec![
        ("HOME".into(), dir.join("home").display().to_string()),
        (
            "XDG_CONFIG_HOME".into(),
            dir.join("xdg-config").display().to_string(),
        ),
        (
            "XDG_DATA_HOME".into(),
            dir.join("xdg-data").display().to_string(),
        ),
    ]
}

/// A command of the node binary `bin` with environment `env`, as on a person's machine:
/// without the test run's tmux, supervisor and CI markers.
pub fn node_command(bin: &Path, env: &[(String, String)]) -> Command {
    let mut c = Command::new(bin);
    c.env_remove("TMUX")
        .env_remove("TERMPLANE_SUPERVISED")
        .env_remove("TERMPLANE_DEBUG_LOGGING")
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

/// Ends the tmux server of `socket`, and any tmux process still naming it.
pub fn kill_tmux_server(socket: &Path) {
    let _ = Command::new("tmux")
        .arg("-S")
        .arg(socket)
        .arg("kill-server")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    // A server that cannot finish exiting (a control client of a SIGKILLed daemon still
    // attached to it) outlives `kill-server`, and the test's directory, socket and all: any
    // tmux process still naming this socket goes. Bounded: one pass over /proc.
    let needle = socket.as_os_str().as_encoded_bytes();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let tmux = cmdline
            .split(|b| *b == 0)
            .next()
            .is_some_and(|argv0| argv0.ends_with(b"tmux"));
        if tmux
            && cmdline.windows(needle.len()).any(|w| w == needle)
            && let Some(pid) = rustix::process::Pid::from_raw(pid)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

/// A bash launch command for `id` in `cwd`.
pub fn bash_launch(id: &str, cwd: &Path) -> Value {
    json!({
        "type": "launch", "subshellId": id,
        "argv": ["@@HARNESS_BINARY@@", "--norc", "--noprofile"],
        "resolve": { "binaryName": "bash" },
        "cwd": cwd.display().to_string(), "harnessId": "shell",
        "cols": 120, "rows": 30,
    })
}

/// The decoded bytes of an `output` event entry.
pub fn output_bytes(entry: &Value) -> Vec<u8> {
    let b64 = entry["event"]["data_b64"].as_str().unwrap_or("");
    termplane_proto::key::b64url_decode(b64).unwrap_or_default()
}
