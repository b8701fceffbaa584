//! The binary: `--version`, enrollment against a loopback stand-in for the plane, `status`,
//! `configure`, identity quarantine — and no output ever carries the node key or the link secret.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt as _;
use std::process::Command;
use std::time::Duration;

use crate::common::{TempDir, tmux_ok};
use serde_json::{Value, json};

const NODE_KEY: &str = "tp_s3cretNodeKeyDoNotPrint0123456789";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_termplane-node"))
}

/// Points `c`'s config and data directories under `xdg`.
fn in_dirs<'c>(c: &'c mut Command, xdg: &std::path::Path) -> &'c mut Command {
    c.env("XDG_CONFIG_HOME", xdg.join("cfg"))
        .env("XDG_DATA_HOME", xdg.join("data"))
}

fn run(mut c: Command, xdg: &std::path::Path) -> (bool, String) {
    let out = in_dirs(&mut c, xdg).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// Kills a private tmux server when dropped, whatever the test's outcome.
struct KillTmux(std::path::PathBuf);

impl Drop for KillTmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.0)
            .arg("kill-server")
            .stderr(std::process::Stdio::null())
            .status();
    }
}

/// Serves one enrollment request; answers the request body.
fn fake_plane() -> (String, std::thread::JoinHandle<Value>) {
    let resp = json!({
        "nodeId": "node-1", "nodeKey": NODE_KEY,
        "signingPublicJwk": { "kty": "EC", "crv": "P-256", "x": "x", "y": "y" },
        "controlEncryptPublicKey": termplane_proto::Key32([7; 32]).to_b64(),
        "wsUrl": "ws://127.0.0.1:1/ws/node",
    });
    fake_plane_answering("201 Created", resp)
}

/// Serves one enrollment request with `status` and `resp`; answers the request body.
fn fake_plane_answering(
    status: &'static str,
    resp: Value,
) -> (String, std::thread::JoinHandle<Value>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let t = std::thread::spawn(move || {
        let (s, _) = l.accept().unwrap();
        let mut r = BufReader::new(s.try_clone().unwrap());
        let mut len = 0;
        let mut line = String::new();
        loop {
            line.clear();
            r.read_line(&mut line).unwrap();
            if line.trim().is_empty() {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        r.read_exact(&mut body).unwrap();
        let resp = resp.to_string();
        let mut s = s;
        write!(s, "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{resp}", resp.len()).unwrap();
        serde_json::from_slice(&body).unwrap()
    });
    (url, t)
}

/// Enrolls as node `n1` with a fake plane, its config under `xdg`: the enrollment's output and
/// the request body the plane received.
fn enroll_with_fake_plane(xdg: &std::path::Path) -> (String, Value) {
    let (url, plane) = fake_plane();
    let mut c = bin();
    c.args([
        "enroll",
        "--server",
        &url,
        "--setup-key",
        "nsk_abc",
        "--name",
        "n1",
    ]);
    let (ok, out) = run(c, xdg);
    assert!(ok, "{out}");
    (out, plane.join().unwrap())
}

#[test]
fn version_is_exact() {
    let out = bin().arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("termplane-node {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// The next steps `enroll` prints work as pasted: they call the program by its own path
/// (`termplane-node` alone is not found when its directory is not on `PATH`) and carry the
/// config file the enrollment wrote when it is not the default one.
#[test]
fn enrolls_next_steps_name_the_program_by_its_path_and_the_config_it_wrote() {
    if !tmux_ok() {
        return;
    }
    let program = std::fs::canonicalize(env!("CARGO_BIN_EXE_termplane-node")).unwrap();
    let program = program.display();
    let d = TempDir::new("cli-next");
    let (url, plane) = fake_plane();
    let mut c = bin();
    c.args(["enroll", "--server", &url, "--setup-key", "nsk_abc"]);
    let (ok, out) = run(c, d.path());
    assert!(ok, "{out}");
    plane.join().unwrap();
    assert!(
        out.contains(&format!(
            "next: {program} service install   (or: {program} run)"
        )),
        "{out}"
    );

    // Another config file, named relative to the working directory: named absolutely.
    let (url, plane) = fake_plane();
    let mut c = bin();
    c.current_dir(d.path()).args([
        "enroll",
        "--server",
        &url,
        "--setup-key",
        "nsk_abc",
        "--config",
        "nodes/other node.json",
    ]);
    let (ok, out) = run(c, d.path());
    assert!(ok, "{out}");
    plane.join().unwrap();
    let config = d.path().join("nodes/other node.json");
    let config = config.display();
    assert!(
        out.contains(&format!(
            "next: {program} service install --config '{config}'   (or: {program} run --config '{config}')"
        )),
        "{out}"
    );
}

#[test]
fn enroll_status_configure_never_print_secrets() {
    if !tmux_ok() {
        return;
    }
    let d = TempDir::new("cli");
    // `run` starts the node's private tmux server, which by design outlives the daemon.
    let _tmux = KillTmux(d.path().join("data/termplane-node/tmux.sock"));
    let (out1, body) = enroll_with_fake_plane(d.path());
    let mut keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "agentVersion",
            "arch",
            "encryptPublicKey",
            "hostname",
            "identityJwk",
            "name",
            "os",
            "setupKey"
        ]
    );
    assert_eq!(body["identityJwk"]["crv"], "P-256");
    assert_eq!(body["encryptPublicKey"].as_str().unwrap().len(), 43);
    let cfg_path = d.path().join("cfg/termplane-node/config.json");
    assert_eq!(
        std::fs::metadata(&cfg_path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let cfg: Value = serde_json::from_str(&std::fs::read_to_string(&cfg_path).unwrap()).unwrap();
    assert_eq!(cfg["nodeKey"], NODE_KEY);
    let secret = cfg["linkSecret"].as_str().unwrap().to_owned();
    assert_eq!(cfg["linkPublic"], body["encryptPublicKey"]);
    let identity =
        std::fs::read_to_string(d.path().join("cfg/termplane-node/identity.jwk")).unwrap();
    let d_param: Value = serde_json::from_str(&identity).unwrap();
    let id_secret = d_param["d"].as_str().unwrap().to_owned();

    let mut outputs = vec![out1];
    let mut c = bin();
    c.arg("status");
    let (ok, s) = run(c, d.path());
    assert!(ok);
    assert!(
        s.contains("node id: node-1") && s.contains("control key pinned: yes"),
        "{s}"
    );
    outputs.push(s);
    let mut c = bin();
    c.args(["configure", "--server", "http://127.0.0.1:9/tp"]);
    let (ok, s) = run(c, d.path());
    assert!(ok, "{s}");
    outputs.push(s);
    let cfg2: Value = serde_json::from_str(&std::fs::read_to_string(&cfg_path).unwrap()).unwrap();
    assert_eq!(cfg2["wsUrl"], "ws://127.0.0.1:9/tp/ws/node");
    assert_eq!(cfg2["nodeKey"], NODE_KEY);
    // A rotated key read from standard input (`--key -`): never on a command line.
    let rotated = "tp_rotatedkeyfromstdin0123456789";
    let mut child = bin()
        .args(["configure", "--key", "-"])
        .env("XDG_CONFIG_HOME", d.path().join("cfg"))
        .env("XDG_DATA_HOME", d.path().join("data"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(child.stdin.take().unwrap(), "{rotated}").unwrap();
    assert!(child.wait().unwrap().success());
    let cfg3: Value = serde_json::from_str(&std::fs::read_to_string(&cfg_path).unwrap()).unwrap();
    assert_eq!(cfg3["nodeKey"], rotated);
    let mut c = bin();
    c.args(["configure", "--key", NODE_KEY]);
    assert!(run(c, d.path()).0);
    for args in [
        vec!["--help"],
        vec!["bogus"],
        vec!["run"],
        vec!["service", "nope"],
    ] {
        let mut c = bin();
        c.args(&args);
        outputs.push(run(c, d.path()).1);
    }
    for o in &outputs {
        assert!(!o.contains(NODE_KEY), "node key printed: {o}");
        assert!(!o.contains(&secret), "link secret printed: {o}");
        assert!(!o.contains(&id_secret), "identity secret printed: {o}");
    }

    // Enrolling over a config is refused (it would replace this node's identity, perhaps under
    // a running daemon), before anything is sent, unless asked for.
    let config = d.path().join("cfg/termplane-node/config.json");
    let before = std::fs::read(&config).unwrap();
    let enroll_again = |more: &[&str]| {
        let mut c = bin();
        c.args([
            "enroll",
            "--server",
            "http://127.0.0.1:9",
            "--setup-key",
            "nsk_abc",
        ])
        .args(more);
        run(c, d.path())
    };
    let (ok, s) = enroll_again(&[]);
    assert!(!ok);
    assert!(
        s.contains("already holds a node's config") && s.contains("--force"),
        "{s}"
    );
    assert_eq!(std::fs::read(&config).unwrap(), before);

    // Even with --force, not while the daemon of the config there runs (it would go on as the
    // old node beside a config naming the new one). A live process stands in for the daemon
    // in its link-status file, under the config's data directory.
    let data = d.path().join("data/termplane-node");
    std::fs::create_dir_all(&data).unwrap();
    let mut daemon = Command::new("sleep").arg("30").spawn().unwrap();
    let pid = i32::try_from(daemon.id()).unwrap();
    let start = termplane_exec::procs::start_ticks(pid).unwrap();
    std::fs::write(
        data.join("link-status"),
        format!("pid {pid} start {start}: connected (since x)\n"),
    )
    .unwrap();
    let (ok, s) = enroll_again(&["--force"]);
    assert!(!ok);
    assert!(
        s.contains(&format!("is running (pid {pid})")) && s.contains("stop it first"),
        "{s}"
    );
    assert_eq!(std::fs::read(&config).unwrap(), before);
    let _ = daemon.kill();
    let _ = daemon.wait();
    // Once it has stopped, --force goes on (and here fails at the unreachable plane).
    let (ok, s) = enroll_again(&["--force"]);
    assert!(!ok);
    assert!(!s.contains("stop it first"), "{s}");

    // A corrupt identity is quarantined, never rotated.
    std::fs::write(d.path().join("cfg/termplane-node/identity.jwk"), b"garbage").unwrap();
    let (ok, s) = enroll_again(&["--force"]);
    assert!(!ok);
    assert!(s.contains("corrupt") && s.contains("moved aside"), "{s}");
    assert!(!d.path().join("cfg/termplane-node/identity.jwk").exists());
    let aside = std::fs::read_dir(d.path().join("cfg/termplane-node"))
        .unwrap()
        .any(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("identity.jwk.corrupt-")
        });
    assert!(aside);
}

#[test]
fn run_refuses_a_broken_config_clearly_and_never_prints_secrets() {
    if !tmux_ok() {
        return;
    }
    let d = TempDir::new("run");
    let identity = d.path().join("identity.jwk");
    std::fs::write(&identity, b"{}").unwrap();
    let cfg = json!({
        "serverUrl": "http://127.0.0.1:9", "wsUrl": "ws://127.0.0.1:9/ws/node", "nodeId": "n",
        "nodeKey": NODE_KEY, "signingPublicJwk": { "kty": "EC", "crv": "P-256", "x": "x", "y": "y" },
        "linkSecret": "c2VjcmV0", "linkPublic": "p", "identityKeyPath": identity.to_string_lossy(),
        "dataDir": d.path().join("data").to_string_lossy(),
    });
    let p = d.path().join("c.json");
    std::fs::write(&p, cfg.to_string()).unwrap();
    let mut c = bin();
    c.args(["run", "--config"]).arg(&p);
    let (ok, s) = run(c, d.path());
    assert!(!ok);
    // The link refuses to start on a config whose keys do not decode, and says which field.
    assert!(s.contains("link: config: linkPublic"), "{s}");
    assert!(!s.contains(NODE_KEY) && !s.contains("c2VjcmV0"));
    // The config was written readable by others (mode 0644 here): made private, and said so.
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{mode:o}");
    assert!(s.contains("was readable by others (mode 644)"), "{s}");
    // So was the identity's private key.
    let mode = std::fs::metadata(&identity).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "identity {mode:o}");
    let _ = Command::new("tmux")
        .arg("-S")
        .arg(d.path().join("data/tmux.sock"))
        .arg("kill-server")
        .status();
}

#[test]
fn run_on_a_host_without_openat2_stops_before_its_tmux_server_and_says_why() {
    let d = TempDir::new("run-no-openat2");
    let _tmux = KillTmux(d.path().join("data/termplane-node/tmux.sock"));
    enroll_with_fake_plane(d.path());
    // A seccomp filter answers `openat2` with ENOSYS, as a kernel before Linux 5.6 does.
    let mut c =
        termplane_test_support::without_openat2(env!("CARGO_BIN_EXE_termplane-node").as_ref());
    in_dirs(c.arg("run"), d.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    // A daemon that started would go on dialling the (absent) plane: it must stop by itself.
    let stopped =
        termplane_test_support::wait_for(Duration::from_secs(20), || child.try_wait().unwrap());
    if stopped.is_none() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stopped.is_some_and(|s| !s.success()),
        "the daemon ran on a host where no pane can: {out}"
    );
    assert!(
        out.contains("cannot run panes on this host")
            && out.contains("`openat2` system call is unavailable")
            && out.contains("Linux 5.6"),
        "{out}"
    );
    assert!(!out.contains(NODE_KEY), "{out}");
    assert!(
        !d.path().join("data/termplane-node/tmux.sock").exists(),
        "a tmux server was started for a node that cannot run panes"
    );
}

#[test]
fn a_refused_enrollment_leaves_no_identity_key_and_no_config_behind() {
    if !tmux_ok() {
        return;
    }
    let d = TempDir::new("refused");
    let (url, plane) = fake_plane_answering(
        "401 Unauthorized",
        json!({ "code": "SETUP_KEY_SPENT", "message": "this setup key was used" }),
    );
    let mut c = bin();
    c.args(["enroll", "--server", &url, "--setup-key", "nsk_spent"]);
    let (ok, out) = run(c, d.path());
    plane.join().unwrap();
    assert!(!ok, "{out}");
    assert!(out.contains("enrollment refused"), "{out}");
    let dir = d.path().join("cfg/termplane-node");
    assert!(!dir.join("identity.jwk").exists(), "identity left behind");
    assert!(!dir.join("config.json").exists());
    assert!(
        !out.contains("address of a termplane plane"),
        "the plane's own refusal: {out}"
    );

    // Something that is not a plane answers: the message asks whether the URL is right.
    let (url, other) = fake_plane_answering("501 Not Implemented", json!(null));
    let mut c = bin();
    c.args(["enroll", "--server", &url, "--setup-key", "nsk_any"]);
    let (ok, out) = run(c, d.path());
    other.join().unwrap();
    assert!(!ok, "{out}");
    assert!(
        out.contains(&format!("is {url} the address of a termplane plane")),
        "{out}"
    );
    // Not enrolled: status says so, and exits non-zero for scripts.
    let mut c = bin();
    c.arg("status");
    let (ok, out) = run(c, d.path());
    assert!(!ok && out.contains("not enrolled"), "{out}");
}

#[test]
fn an_enrollment_answer_with_a_low_order_plane_key_pins_nothing() {
    if !tmux_ok() {
        return;
    }
    let d = TempDir::new("loworder");
    let (url, plane) = fake_plane_answering(
        "201 Created",
        json!({
            "nodeId": "node-1", "nodeKey": NODE_KEY,
            "signingPublicJwk": { "kty": "EC", "crv": "P-256", "x": "x", "y": "y" },
            "controlEncryptPublicKey": termplane_proto::Key32([0; 32]).to_b64(),
            "wsUrl": "ws://127.0.0.1:1/ws/node",
        }),
    );
    let mut c = bin();
    c.args(["enroll", "--server", &url, "--setup-key", "nsk_abc"]);
    let (ok, out) = run(c, d.path());
    plane.join().unwrap();
    assert!(ok, "{out}");
    let cfg: Value = serde_json::from_slice(
        &std::fs::read(d.path().join("cfg/termplane-node/config.json")).unwrap(),
    )
    .unwrap();
    assert!(
        cfg.get("controlEncryptPublicKey")
            .is_none_or(Value::is_null),
        "{cfg}"
    );
}

#[test]
fn a_service_install_that_systemd_cannot_take_leaves_no_unit_behind() {
    let d = TempDir::new("service");
    let unit = d.path().join("cfg/systemd/user/termplane-node.service");
    std::fs::create_dir_all(d.path().join("cfg")).unwrap();
    let mut c = bin();
    c.args(["service", "install"]).env("HOME", d.path());
    let (ok, s) = run(c, d.path());
    if ok {
        // A machine with a user systemd took it: take it away again.
        let mut c = bin();
        c.args(["service", "uninstall"]).env("HOME", d.path());
        assert!(run(c, d.path()).0);
        assert!(!unit.exists());
        return;
    }
    assert!(s.contains("service install failed"), "{s}");
    assert!(
        s.contains("termplane-node run"),
        "the way out is named: {s}"
    );
    assert!(!unit.exists(), "a half-installed unit was left: {s}");
    // Nor the directories made for it (`cfg` itself was there before).
    assert!(
        !d.path().join("cfg/systemd").exists(),
        "directories made for the unit were left: {s}"
    );
    assert!(d.path().join("cfg").exists());
    // Nothing installed: status says so, and uninstall has nothing to do.
    let mut c = bin();
    c.args(["status"]).env("HOME", d.path());
    assert!(run(c, d.path()).1.contains("service: not installed"));
}

/// Proxy variables in the environment are not followed: the enrollment goes to the plane it
/// names (a proxy would be resolved in place of the URL's host, and a plane's outbound requests
/// keep to the addresses their rule allows).
#[test]
fn enrolling_ignores_proxy_variables_and_dials_the_plane_itself() {
    let d = TempDir::new("cli-proxy");
    let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
    proxy.set_nonblocking(true).unwrap();
    let proxy_url = format!("http://{}", proxy.local_addr().unwrap());
    let (url, plane) = fake_plane();
    let mut c = bin();
    c.args(["enroll", "--server", &url, "--setup-key", "nsk_abc"]);
    for var in [
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "all_proxy",
    ] {
        c.env(var, &proxy_url);
    }
    c.env_remove("NO_PROXY").env_remove("no_proxy");
    let (ok, out) = run(c, d.path());
    assert!(ok, "{out}");
    assert_eq!(plane.join().unwrap()["setupKey"], "nsk_abc");
    assert!(
        proxy.accept().is_err(),
        "the enrollment went through the proxy"
    );
}
