//! Adding a node the way a person does: the commands an active setup key's view carries, run
//! in a shell from a fresh, empty home directory against a real `termplane serve` plane that
//! serves this build of `termplane-node` (`TERMPLANE_NODE_DOWNLOADS`).
//!
//! The shells get only `HOME` and `PATH` (which does not hold `~/.local/bin`): no
//! `XDG_RUNTIME_DIR` or session bus, so systemd's user manager never answers and the script's
//! no-service-manager path is the one taken on any machine. Run as root, the commands run as an
//! unprivileged account (uid and gid 65534) that owns the fresh home, as a person would run
//! them; root's own default (`/usr/local/bin`) is left alone.
//!
//! Covered: the one command installs, checks, enrolls and prints the foreground command, which
//! brings the node online, and running it again changes nothing; the three steps, pasted in
//! order, do the same; a program whose digest is not the one in the script is refused with
//! nothing installed and the setup key unspent; behind a TLS-terminating proxy whose
//! certificate a private CA signed, the script fetched with that CA installs, enrolls and names
//! the CA in its foreground command (`TERMPLANE_CA_FILE`); a platform the plane serves no program for (and
//! a plane that serves none) is refused plainly, before anything is written.

use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use crate::support::{WAIT, World, kill_tmux_server, terminate, wait_until};
use serde_json::Value;
use sha2::Digest as _;

const NODE: &str = env!("CARGO_BIN_EXE_termplane-node");

/// The account the shells run as when the tests run as root.
const UNPRIVILEGED: u32 = 65_534;

fn world(tag: &str) -> World {
    assert!(
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success()),
        "these tests need tmux on PATH"
    );
    World::new(tag, Path::new(NODE))
}

/// This machine's platform, as the plane and the script name it.
fn platform() -> String {
    format!("linux-{}", std::env::consts::ARCH)
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex(&sha2::Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Serves `bytes` as the plane's node program for `platform`.
fn serve_program(w: &World, platform: &str, bytes: &[u8]) {
    std::fs::write(
        w.dir
            .join("downloads")
            .join(format!("termplane-node-{platform}")),
        bytes,
    )
    .unwrap();
}

/// A new setup key, minted as the dialog mints it; answers the whole view.
fn mint(w: &World) -> Value {
    let r = w.post("/api/setup-keys", &Value::Null);
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

/// The listed view of the setup key `id`.
fn setup_key(w: &World, id: &Value) -> Value {
    let r = w.get("/api/setup-keys");
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == *id)
        .cloned()
        .unwrap()
}

fn node_count(w: &World) -> usize {
    let r = w.get("/api/nodes");
    assert_eq!(r.status, 200, "{}", r.text());
    r.json().as_array().unwrap().len()
}

/// A fresh, empty home directory, and whom the shells run as.
struct Home {
    dir: PathBuf,
    /// `Some` when the tests run as root: the account the shells run as.
    uid: Option<u32>,
}

impl Home {
    fn new(w: &World, tag: &str) -> Self {
        let dir = w.dir.join(tag);
        std::fs::create_dir(&dir).unwrap();
        let uid = rustix::process::geteuid().is_root().then_some(UNPRIVILEGED);
        if let Some(uid) = uid {
            std::os::unix::fs::chown(&dir, Some(uid), Some(uid)).unwrap();
        }
        Self { dir, uid }
    }

    fn bin_dir(&self) -> PathBuf {
        self.dir.join(".local/bin")
    }

    fn program(&self) -> PathBuf {
        self.bin_dir().join("termplane-node")
    }

    fn config(&self) -> PathBuf {
        self.dir.join(".config/termplane-node/config.json")
    }

    fn tmux_socket(&self) -> PathBuf {
        self.dir.join(".local/share/termplane-node/tmux.sock")
    }

    /// `sh -c line` with only `HOME` and `PATH`, in the home directory.
    fn shell(&self, line: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(line)
            .env_clear()
            .env("HOME", &self.dir)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .current_dir(&self.dir)
            .stdin(Stdio::null());
        if let Some(uid) = self.uid {
            c.uid(uid).gid(uid);
        }
        c
    }

    /// Runs `line` to its end; answers its output.
    fn run(&self, line: &str) -> Output {
        self.shell(line).output().unwrap()
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A node daemon started from a printed command; stopped, with its tmux server, when dropped.
struct Daemon {
    child: Child,
    socket: PathBuf,
}

impl Daemon {
    fn start(home: &Home, line: &str) -> Self {
        let log = std::fs::File::create(home.dir.with_extension("daemon.log")).unwrap();
        let child = home
            // `env` keeps the line's own assignments (`VAR=… program run`) and makes the
            // daemon this child, so dropping the guard stops it.
            .shell(&format!("exec env {line}"))
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        Self {
            child,
            socket: home.tmux_socket(),
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        terminate(&mut self.child);
        kill_tmux_server(&self.socket);
    }
}

fn wait_online(w: &World, node_id: &str) {
    wait_until(&format!("node {node_id} online"), WAIT, || {
        let r = w.get(&format!("/api/nodes/{node_id}"));
        (r.json()["liveness"] == "online").then_some(())
    });
}

/// The node id in the config file the enrollment wrote.
fn enrolled_node_id(home: &Home) -> String {
    let cfg: Value = serde_json::from_slice(&std::fs::read(home.config()).unwrap()).unwrap();
    cfg["nodeId"].as_str().unwrap().to_owned()
}

#[test]
fn the_one_command_from_an_empty_home_installs_checks_enrolls_and_its_foreground_command_brings_the_node_online()
 {
    let w = world("install-one");
    let program = std::fs::read(NODE).unwrap();
    serve_program(&w, &platform(), &program);
    let minted = mint(&w);
    let key = minted["key"].as_str().unwrap();
    let command = minted["install"]["command"].as_str().unwrap();
    assert_eq!(
        command,
        format!(
            "curl -fsSL {}/install.sh | sh -s -- --setup-key {key}",
            w.base()
        )
    );
    let before = node_count(&w);
    let home = Home::new(&w, "fresh-home");

    let out = home.run(command);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(!said.contains(key), "the setup key was repeated:\n{said}");

    // The program, byte for byte the plane's, executable, alone in its directory.
    let installed = std::fs::read(home.program()).unwrap();
    assert_eq!(sha256_hex(&installed), sha256_hex(&program));
    let mode = std::fs::metadata(home.program())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
    let names: Vec<String> = std::fs::read_dir(home.bin_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["termplane-node"], "no temporary file is left");
    assert!(
        said.contains(&format!("{} is not on your PATH", home.bin_dir().display())),
        "{said}"
    );

    // Enrolled: the config names a node row the plane has, and the key is spent.
    let node_id = enrolled_node_id(&home);
    let row = w.get(&format!("/api/nodes/{node_id}"));
    assert_eq!(row.status, 200, "{}", row.text());
    assert_eq!(row.json()["liveness"], "offline");
    assert_eq!(node_count(&w), before + 1);
    assert_eq!(setup_key(&w, &minted["id"])["status"], "used");

    // No service manager answers: the script says so and prints the foreground command.
    assert!(said.contains("no service manager answers here"), "{said}");
    let foreground = format!("{} run", home.program().display());
    assert!(
        said.lines().any(|l| l.trim() == foreground),
        "no line `{foreground}` in:\n{said}"
    );
    let _daemon = Daemon::start(&home, &foreground);
    wait_online(&w, &node_id);

    // The same command again changes nothing: the program is kept, the enrollment too (the
    // spent key is not tried), and the foreground command is printed again.
    let again = home.run(command);
    let said = text(&again);
    assert!(again.status.success(), "{said}");
    assert!(
        said.contains("is already the plane's termplane-node"),
        "{said}"
    );
    assert!(said.contains("a node is enrolled here already"), "{said}");
    assert!(!said.contains("downloading"), "{said}");
    assert!(said.lines().any(|l| l.trim() == foreground), "{said}");
    assert_eq!(enrolled_node_id(&home), node_id);
    assert_eq!(node_count(&w), before + 1);
    wait_online(&w, &node_id);
}

#[test]
fn behind_a_tls_proxy_with_a_private_ca_the_one_command_installs_and_enrolls_over_https() {
    let w = World::behind_tls_proxy("install-tls", Path::new(NODE));
    let program = std::fs::read(NODE).unwrap();
    serve_program(&w, &platform(), &program);
    let key = mint(&w)["key"].as_str().unwrap().to_owned();
    let home = Home::new(&w, "fresh-home");
    let ca = w.dir.join("ca.pem");
    let ca = ca.display();
    let public = w.public_base();
    assert!(public.starts_with("https://"), "{public}");

    // The script fetched through the proxy names the plane's https:// address (its base URL).
    let out = home.run(&format!(
        "curl --cacert {ca} -fsSL {public}/install.sh | TERMPLANE_CA_FILE={ca} sh -s -- \
         --setup-key {key}"
    ));
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "downloading {public}/api/downloads/node/{}",
            platform()
        )),
        "{said}"
    );
    let cfg: Value = serde_json::from_slice(&std::fs::read(home.config()).unwrap()).unwrap();
    assert_eq!(cfg["serverUrl"], public.as_str(), "{cfg}");
    assert!(
        cfg["wsUrl"].as_str().unwrap().starts_with("wss://"),
        "{cfg}"
    );

    // The foreground command carries the CA, so the daemon it starts dials wss:// trusting it.
    let foreground = format!("TERMPLANE_CA_FILE={ca} {} run", home.program().display());
    assert!(
        said.lines().any(|l| l.trim() == foreground),
        "no line `{foreground}` in:\n{said}"
    );
    let _daemon = Daemon::start(&home, &foreground);
    wait_online(&w, cfg["nodeId"].as_str().unwrap());
}

#[test]
fn the_three_steps_pasted_in_order_into_an_empty_home_enroll_a_node_that_comes_online() {
    let w = world("install-steps");
    let program = std::fs::read(NODE).unwrap();
    serve_program(&w, &platform(), &program);
    let minted = mint(&w);
    let install = &minted["install"];
    let downloads = install["downloads"].as_array().unwrap();
    let step1 = downloads
        .iter()
        .find(|d| d["platform"] == platform().as_str())
        .unwrap_or_else(|| panic!("no step 1 for {} in {install}", platform()));
    assert_eq!(step1["sha256"], sha256_hex(&program));
    let home = Home::new(&w, "fresh-home");

    // Each line on its own, as a terminal runs what is pasted into it.
    let mut lines: Vec<&str> = step1["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    lines.push(install["enroll"].as_str().unwrap());
    for line in lines {
        let out = home.run(line);
        assert!(out.status.success(), "`{line}` failed:\n{}", text(&out));
    }
    assert_eq!(
        sha256_hex(&std::fs::read(home.program()).unwrap()),
        sha256_hex(&program)
    );
    let node_id = enrolled_node_id(&home);
    assert_eq!(setup_key(&w, &minted["id"])["status"], "used");

    // Step 3 without a service manager: the foreground command.
    let foreground = install["foreground"].as_str().unwrap();
    let _daemon = Daemon::start(&home, foreground);
    wait_online(&w, &node_id);
}

#[test]
fn a_program_whose_digest_is_not_the_scripts_is_refused_and_nothing_is_installed() {
    let w = world("install-digest");
    let program = std::fs::read(NODE).unwrap();
    serve_program(&w, &platform(), &program);
    let minted = mint(&w);
    let key = minted["key"].as_str().unwrap();
    let before = node_count(&w);
    let home = Home::new(&w, "fresh-home");

    // The script as served now, with the digest of the program served now...
    let r = crate::support::http(w.port, "GET", "/install.sh", &[], None).unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    let script = home.dir.with_extension("install.sh");
    std::fs::write(&script, r.body).unwrap();
    // ...then other bytes where the program is.
    let mut other = program.clone();
    other.extend_from_slice(b"changed on the way");
    serve_program(&w, &platform(), &other);

    let out = home.run(&format!("sh {} --setup-key {key}", script.display()));
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "the downloaded program's SHA-256 is {}, not the plane's {}: nothing was installed",
            sha256_hex(&other),
            sha256_hex(&program)
        )),
        "{said}"
    );
    assert!(!said.contains(key), "{said}");
    let left: Vec<PathBuf> = std::fs::read_dir(home.bin_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    assert!(!home.dir.join(".config").exists(), "nothing was enrolled");
    assert_eq!(node_count(&w), before);
    let k = setup_key(&w, &minted["id"]);
    assert_eq!(k["status"], "active", "the key is not spent: {k}");
}

#[test]
fn a_platform_the_plane_serves_no_program_for_is_refused_plainly_before_anything_is_written() {
    let w = world("install-platform");
    let minted = mint(&w);
    let command = minted["install"]["command"].as_str().unwrap();
    let home = Home::new(&w, "fresh-home");
    let here = platform();

    // A plane that serves no program at all.
    let out = home.run(command);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("serves no node program yet"),
        "{}",
        text(&out)
    );

    // A plane that serves programs, none of them for this machine.
    let other = if std::env::consts::ARCH == "x86_64" {
        "linux-aarch64"
    } else {
        "linux-x86_64"
    };
    serve_program(&w, other, b"another machine's program");
    serve_program(&w, "darwin-aarch64", b"a mac's program");
    let out = home.run(command);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    // Listed in the plane's order (by name).
    let served = format!("darwin-aarch64, {other}");
    assert!(
        said.contains(&format!(
            "serves no termplane-node for this machine (Linux {}, platform {here}); it serves: {served}",
            std::env::consts::ARCH
        )),
        "{said}"
    );
    let entries: Vec<PathBuf> = std::fs::read_dir(&home.dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(entries.is_empty(), "written: {entries:?}");
    assert_eq!(setup_key(&w, &minted["id"])["status"], "active");
}
