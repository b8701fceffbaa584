//! The real agent CLIs in termplane panes: Claude Code, Codex, Gemini CLI and opencode, at the
//! versions pinned in `tools/harness-clis.txt` (`tools/test.sh` installs exactly those from npm
//! into `target/harness-clis`; `TERMPLANE_HARNESS_CLIS` names another such folder).
//!
//! They cannot reach their model APIs here, but they start their TUIs, save what is submitted
//! to them and list their MCP servers, which is what termplane owes them: detection finds each
//! one and its version; a launch starts its TUI with no complaint about its command line or
//! configuration; its MCP client connects the pane's server, seen through the CLI's own
//! listing, run with exactly the environment and registration the node gave the pane (Claude
//! Code's `mcp list` does not read `--mcp-config`, and Codex's does not connect: for those two
//! the TUI's `/mcp`, typed through the API); an initial prompt and text typed with Enter are
//! submitted, not left in the input box (each CLI saves a submitted prompt under its home); a
//! restart of a pane in which nothing was typed starts the TUI again, and a restart after
//! something was typed brings that conversation back.
//!
//! Each CLI is seeded past its first-run screens the way a person's machine would be: Claude
//! Code's onboarding and API-key approval in `~/.claude.json`, Codex signed in with an API key,
//! Gemini CLI told to use its API key, an API key for each in the environment.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::support::{WAIT, World};
use serde_json::{Value, json};
use termplane_test_support::wait_for;

const NODE: &str = env!("CARGO_BIN_EXE_termplane-node");
const PINS: &str = include_str!("../../../tools/harness-clis.txt");
/// The longest a CLI gets to show a screen or save a prompt: they start slowly on a busy
/// machine (a large bundle to load, network calls that fail here).
const SLOW: Duration = Duration::from_secs(180);
/// Claude Code asks once about an API key it has not seen; these are the key's last 20.
const MODEL_STANDIN: &str = include_str!("support/model_standin.py");
const ANTHROPIC_KEY: &str = "sk-ant-termplane-tests-0123456789abcdefghij";

struct Cli {
    harness: &'static str,
    binary: &'static str,
    package: &'static str,
}

const CLIS: [Cli; 4] = [
    Cli {
        harness: "claude-code",
        binary: "claude",
        package: "@anthropic-ai/claude-code",
    },
    Cli {
        harness: "codex",
        binary: "codex",
        package: "@openai/codex",
    },
    Cli {
        harness: "gemini",
        binary: "gemini",
        package: "@google/gemini-cli",
    },
    Cli {
        harness: "opencode",
        binary: "opencode",
        package: "opencode-ai",
    },
];

fn cli(harness: &str) -> &'static Cli {
    CLIS.iter().find(|c| c.harness == harness).unwrap()
}

impl Cli {
    /// The pinned version.
    fn version(&self) -> &'static str {
        PINS.lines()
            .filter_map(|l| l.trim().rsplit_once('@'))
            .find(|(p, _)| *p == self.package)
            .map(|(_, v)| v)
            .unwrap_or_else(|| panic!("{} is not pinned in tools/harness-clis.txt", self.package))
    }

    /// Whether `path` is where it keeps a conversation (what a resume reads back).
    fn keeps_sessions_in(&self, path: &Path) -> bool {
        let p = path.to_string_lossy();
        match self.binary {
            "claude" => p.contains("/projects/") && p.ends_with(".jsonl"),
            "codex" => p.contains("/sessions/") && p.contains("rollout-"),
            "gemini" => p.contains("/chats/"),
            _ => p.contains("opencode.db"),
        }
    }

    /// Text its first screen shows.
    fn first_screen(&self) -> String {
        let v = self.version();
        match self.binary {
            "claude" => format!("Claude Code v{v}"),
            "codex" => format!("OpenAI Codex (v{v})"),
            "gemini" => format!("Gemini CLI v{v}"),
            // The footer of its home screen and of a session's.
            _ => "ctrl+p commands".to_owned(),
        }
    }
}

/// The folder of the installed CLIs' binaries; `None` (the test notes it and passes) when they
/// are not installed, unless `CI` is set.
fn clis() -> Option<PathBuf> {
    let root = std::env::var_os("TERMPLANE_HARNESS_CLIS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/harness-clis"),
        PathBuf::from,
    );
    let missing: Vec<&str> = CLIS
        .iter()
        .filter(|c| !root.join("node_modules/.bin").join(c.binary).exists())
        .map(|c| c.binary)
        .collect();
    if !missing.is_empty() {
        let why = format!(
            "the agent CLIs {missing:?} are not installed in {} (tools/test.sh installs them)",
            root.display()
        );
        assert!(std::env::var_os("CI").is_none(), "{why}");
        eprintln!("not run: {why}");
        return None;
    }
    for c in &CLIS {
        let manifest = root
            .join("node_modules")
            .join(c.package)
            .join("package.json");
        let v: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
        assert_eq!(
            v["version"],
            c.version(),
            "{} is not the pinned version: run tools/test.sh",
            manifest.display()
        );
    }
    Some(root.join("node_modules/.bin"))
}

/// The environment the node (or the plane, for its own host) runs with: the CLIs on `PATH`,
/// an API key for each, their update checks off, and a proxy on a closed loopback port, so
/// whatever they send out fails at once on this machine, network or not. Claude Code's API is
/// that closed port itself: for its own API it first fetches an organisation's managed
/// settings and waits out retries of that fetch (about 18 s at every start here), which a base
/// URL of the user's choosing skips — every start of it in these tests took that long. The
/// tests with a stand-in model set their own base URL over this one.
fn cli_env(bin: &Path) -> Vec<(String, String)> {
    let path = std::env::var("PATH").unwrap_or_default();
    let nowhere = "http://127.0.0.1:9".to_owned();
    [
        ("HTTPS_PROXY", nowhere.clone()),
        ("HTTP_PROXY", nowhere.clone()),
        ("https_proxy", nowhere.clone()),
        ("http_proxy", nowhere.clone()),
        ("NO_PROXY", "127.0.0.1,localhost".to_owned()),
        ("no_proxy", "127.0.0.1,localhost".to_owned()),
        ("PATH", format!("{}:{path}", bin.display())),
        ("ANTHROPIC_API_KEY", ANTHROPIC_KEY.to_owned()),
        ("ANTHROPIC_BASE_URL", nowhere),
        ("GEMINI_API_KEY", "termplane-tests".to_owned()),
        ("DISABLE_AUTOUPDATER", "1".to_owned()),
        ("OPENCODE_DISABLE_AUTOUPDATE", "1".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

/// A person's home past the CLIs' first-run screens, trusting the folders `trusted`.
fn seed_home(home: &Path, trusted: &[PathBuf]) {
    let projects: serde_json::Map<String, Value> = trusted
        .iter()
        .map(|d| {
            (
                d.display().to_string(),
                json!({ "hasTrustDialogAccepted": true }),
            )
        })
        .collect();
    std::fs::write(
        home.join(".claude.json"),
        json!({
            "hasCompletedOnboarding": true,
            "theme": "dark",
            "customApiKeyResponses": { "approved": [&ANTHROPIC_KEY[ANTHROPIC_KEY.len() - 20..]], "rejected": [] },
            "projects": projects,
        })
        .to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    std::fs::write(
        home.join(".codex/auth.json"),
        json!({ "auth_mode": "apikey", "OPENAI_API_KEY": "sk-termplane-tests" }).to_string(),
    )
    .unwrap();
    // opencode installs its plugin package (`@opencode-ai/plugin`) in its configuration
    // folder at its first start, and waits for that install before it loads a plugin (the
    // pane's plugin is one): offline, with these tests' closed proxy, a minute of retries. Its
    // folder as a first start with a network leaves it: the package listed as installed. In the
    // home, and where the node's XDG configuration directory puts it.
    let installed = json!({ "dependencies": { "@opencode-ai/plugin": "1.18.33" } });
    for dir in [
        home.join(".config/opencode"),
        home.parent().unwrap().join("xdg-config/opencode"),
    ] {
        std::fs::create_dir_all(dir.join("node_modules")).unwrap();
        std::fs::write(dir.join("package.json"), installed.to_string()).unwrap();
        std::fs::write(
            dir.join("package-lock.json"),
            json!({ "packages": { "": installed } }).to_string(),
        )
        .unwrap();
    }
}

/// Gemini CLI's own settings in the home the node keeps for it (config isolation), as choosing
/// its API key at its first start leaves them.
fn seed_gemini(data_dir: &Path) {
    let dir = data_dir.join("harness-config/gemini/gemini/.gemini");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("settings.json"),
        json!({ "security": { "auth": { "selectedType": "gemini-api-key" } } }).to_string(),
    )
    .unwrap();
}

/// Ends every process whose working directory is inside `dir` when dropped: a CLI may leave
/// helpers behind that outlive their pane (Gemini CLI's relaunched child, Codex's server).
struct Sweep(PathBuf);

impl Drop for Sweep {
    fn drop(&mut self) {
        let me = std::process::id();
        for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            if pid == me {
                continue;
            }
            let inside =
                std::fs::read_link(e.path().join("cwd")).is_ok_and(|c| c.starts_with(&self.0));
            if inside
                && let Some(p) = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap_or(0))
            {
                let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
            }
        }
    }
}

/// One world for the CLIs: a plane whose API the test drives, and the node panes run on.
struct Place {
    w: World,
    node: String,
    data_dir: PathBuf,
    tmux: PathBuf,
    /// The user the node runs as, when not the test's own.
    user: Option<(u32, u32)>,
}

impl Place {
    /// The plane's own host as the node, the CLIs on its `PATH`.
    fn local(tag: &str, bin: &Path) -> Self {
        Self::local_with(tag, bin, &[])
    }

    /// [`Place::local`], with `more` in the plane's environment (and so its panes').
    fn local_with(tag: &str, bin: &Path, more: &[(&str, String)]) -> Self {
        let mut w = World::new(tag, Path::new(NODE));
        w.stop_plane();
        // The local node's tmux server outlives the plane: it goes too, so the panes get the
        // plane's new environment.
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(w.local_tmux_socket())
            .arg("kill-server")
            .status();
        w.plane_env.extend(cli_env(bin));
        w.plane_env
            .extend(more.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        w.start_plane();
        let nodes = w.get("/api/nodes").json();
        let node = nodes
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["isLocal"] == true)
            .unwrap()["nodeId"]
            .as_str()
            .unwrap()
            .to_owned();
        let data_dir = w.dir.join("plane/local-node");
        let tmux = w.local_tmux_socket();
        Self {
            w,
            node,
            data_dir,
            tmux,
            user: None,
        }
    }

    /// An enrolled node daemon run by `user` (the test's own when `None`).
    fn enrolled(tag: &str, bin: &Path, user: Option<(u32, u32)>, trusted: &[&str]) -> Self {
        Self::enrolled_with(tag, bin, user, trusted, &[])
    }

    /// [`Place::enrolled`], with `more` in the environment of the node (and so its panes') and
    /// of the plane.
    fn enrolled_with(
        tag: &str,
        bin: &Path,
        user: Option<(u32, u32)>,
        trusted: &[&str],
        more: &[(&str, String)],
    ) -> Self {
        let mut w = World::new(tag, Path::new(NODE));
        w.node_env.extend(cli_env(bin));
        if !more.is_empty() {
            let more = more.iter().map(|(k, v)| ((*k).to_owned(), v.clone()));
            w.node_env.extend(more.clone());
            w.stop_plane();
            w.plane_env.extend(more);
            w.start_plane();
        }
        let data_dir = w.dir.join("xdg-data/termplane-node");
        let dirs: Vec<PathBuf> = trusted.iter().map(|t| w.dir.join("work").join(t)).collect();
        for d in &dirs {
            std::fs::create_dir_all(d).unwrap();
        }
        seed_home(&w.dir.join("home"), &dirs);
        seed_gemini(&data_dir);
        if let Some((uid, gid)) = user {
            for p in ["home", "xdg-config", "xdg-data", "work", "node.json"] {
                chown_all(&w.dir.join(p), uid, gid);
            }
        }
        let mut c = w.node_command();
        if let Some((uid, gid)) = user {
            c.uid(uid).gid(gid);
        }
        w.start_node_with(&mut c);
        w.wait_online(WAIT);
        let node = w.node_id.clone();
        let tmux = w.tmux_socket();
        Self {
            w,
            node,
            data_dir,
            tmux,
            user,
        }
    }

    fn launch(&self, harness: &str, cwd: &Path, more: &Value) -> Value {
        let mut body =
            json!({ "nodeId": self.node, "harnessId": harness, "cwd": cwd.display().to_string() });
        for (k, v) in more.as_object().unwrap() {
            body[k] = v.clone();
        }
        let r = self.w.post("/api/subshells", &body);
        assert_eq!(r.status, 201, "launch {harness}: {}", r.text());
        r.json()
    }

    fn subshell(&self, id: &str) -> Value {
        let r = self.w.get(&format!("/api/subshells/{id}"));
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()
    }

    fn screen(&self, id: &str) -> String {
        let r = self.w.get(&format!("/api/subshells/{id}/screen?lines=200"));
        if r.status != 200 {
            return format!("(no screen: {})", r.text());
        }
        plain(r.json()["text"].as_str().unwrap_or_default())
    }

    /// Waits for `needle` on the pane's screen; the screen.
    fn wait_screen(&self, id: &str, needle: &str) -> String {
        let mut last = String::new();
        let found = wait_for(SLOW, || {
            last = self.screen(id);
            last.contains(needle).then(|| last.clone())
        });
        found.unwrap_or_else(|| {
            panic!(
                "{needle:?} never showed on {id} ({}); it shows:\n{last}\nits log ends:\n{}",
                self.subshell(id),
                self.log_tail(id)
            )
        })
    }

    /// The last of what the pane printed, without escapes.
    fn log_tail(&self, id: &str) -> String {
        let log =
            std::fs::read(self.data_dir.join("logs").join(format!("{id}.log"))).unwrap_or_default();
        let text = plain(&String::from_utf8_lossy(
            &log[log.len().saturating_sub(3000)..],
        ));
        text.chars()
            .filter(|c| !c.is_control() || *c == '\n')
            .collect()
    }

    fn input(&self, id: &str, text: &str, keys: &[&str]) {
        let r = self.w.post(
            &format!("/api/subshells/{id}/input"),
            &json!({ "text": text, "keys": keys }),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    }

    fn restart(&self, id: &str) {
        let r = self
            .w
            .post(&format!("/api/subshells/{id}/restart"), &Value::Null);
        assert_eq!(r.status, 200, "{}", r.text());
    }

    fn delete(&self, id: &str) {
        let r = self.w.send("DELETE", &format!("/api/subshells/{id}"), None);
        assert!(r.status == 204 || r.status == 200, "{}", r.text());
    }

    /// The environment, working directory and command line (after the binary) of the pane's
    /// harness process.
    fn pane_process(
        &self,
        id: &str,
        binary: &str,
    ) -> (Vec<(String, String)>, PathBuf, Vec<String>) {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.tmux)
            .args([
                "display-message",
                "-p",
                "-t",
                &format!("=tp-{id}:"),
                "#{pane_pid}",
            ])
            .output()
            .unwrap();
        let wrapper = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        assert!(!wrapper.is_empty(), "no pane for {id}");
        let proc = Path::new("/proc").join(&wrapper);
        let env = std::fs::read(proc.join("environ"))
            .unwrap()
            .split(|b| *b == 0)
            .filter_map(|kv| {
                let kv = String::from_utf8_lossy(kv);
                kv.split_once('=')
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
            })
            .collect();
        let cwd = std::fs::read_link(proc.join("cwd")).unwrap();
        let children =
            std::fs::read_to_string(proc.join("task").join(&wrapper).join("children")).unwrap();
        let child = children
            .split_whitespace()
            .next()
            .expect("the harness process");
        let cmdline: Vec<String> = std::fs::read(Path::new("/proc").join(child).join("cmdline"))
            .unwrap()
            .split(|b| *b == 0)
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        let at = cmdline
            .iter()
            .position(|w| w.ends_with(&format!("/{binary}")))
            .unwrap_or_else(|| panic!("no {binary} in {cmdline:?}"));
        (
            env,
            cwd,
            cmdline[at + 1..]
                .iter()
                .filter(|w| !w.is_empty())
                .cloned()
                .collect(),
        )
    }

    /// Runs the CLI `binary` of `bin` with `args` exactly as the pane's harness runs: its
    /// environment, its directory, its user. Its standard output and error.
    fn run_as_pane(&self, id: &str, bin: &Path, binary: &str, args: &[String]) -> String {
        let (env, cwd, _) = self.pane_process(id, binary);
        let mut c = Command::new("timeout");
        c.arg("150")
            .arg(bin.join(binary))
            .args(args)
            .env_clear()
            .envs(env)
            .current_dir(cwd);
        if let Some((uid, gid)) = self.user {
            c.uid(uid).gid(gid);
        }
        let out = c.output().unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    }

    /// Waits until a file the CLI keeps (in the node's home or a home the node keeps for it)
    /// holds `text`: the CLI took it as submitted. With `resumable`, the file must be one of its
    /// conversations, which a resume reads back (a CLI may save it only once the turn is over:
    /// Gemini CLI once it gave up reaching its API).
    fn wait_submitted(&self, cli: &Cli, id: &str, text: &str, resumable: bool) {
        let roots = [
            self.w.dir.join("home"),
            self.data_dir.join("harness-config"),
        ];
        let kept = |p: &Path| !resumable || cli.keeps_sessions_in(p);
        if wait_for(SLOW, || {
            roots
                .iter()
                .any(|r| holds(r, &kept, text.as_bytes()))
                .then_some(())
        })
        .is_none()
        {
            panic!(
                "{text:?} was never submitted; the pane shows:\n{}",
                self.screen(id)
            );
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        drop(Sweep(self.w.dir.clone()));
    }
}

/// `text` without its terminal escape sequences (colours, attributes).
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // CSI: parameters and intermediates up to a final byte.
            Some('[') => {
                for p in chars.by_ref() {
                    if ('@'..='~').contains(&p) {
                        break;
                    }
                }
            }
            // OSC: up to BEL or ST.
            Some(']') => {
                while let Some(p) = chars.next() {
                    if p == '\u{7}' || (p == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether any file under `dir` that `which` accepts holds `needle`.
fn holds(dir: &Path, which: &dyn Fn(&Path) -> bool, needle: &[u8]) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let Ok(t) = e.file_type() else { return false };
        if t.is_dir() {
            holds(&e.path(), which, needle)
        } else if t.is_file() && which(&e.path()) {
            std::fs::read(e.path()).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle))
        } else {
            false
        }
    })
}

fn chown_all(p: &Path, uid: u32, gid: u32) {
    let Ok(meta) = std::fs::symlink_metadata(p) else {
        return;
    };
    std::os::unix::fs::lchown(p, Some(uid), Some(gid)).unwrap();
    if meta.is_dir() {
        for e in std::fs::read_dir(p).unwrap().flatten() {
            chown_all(&e.path(), uid, gid);
        }
    }
}

/// Words on screen that say the CLI refused its command line or its configuration.
fn assert_no_complaint(cli: &Cli, screen: &str) {
    for bad in [
        "unknown option",
        "Unknown argument",
        "unexpected argument",
        "Usage:",
        "Invalid configuration",
        "Error in ",
        "Skipping system settings",
        "No conversation found",
        "Error resuming session",
        "already exists",
    ] {
        assert!(
            !screen.contains(bad),
            "{}: {bad:?} on the screen:\n{screen}",
            cli.binary
        );
    }
}

/// The preset a CLI's panes launch with in these tests: Gemini CLI's isolated (the only way it
/// loads a pane's server on a node whose data directory others may write), Codex without its
/// shared background server (which would outlive the test).
fn preset_for(p: &Place, cli: &Cli) -> Value {
    let body = match cli.binary {
        "gemini" => json!({ "name": "isolated", "harnessId": "gemini", "configIsolation": true }),
        "codex" => json!({ "name": "own server", "harnessId": "codex", "flags": ["--no-daemon"] }),
        _ => return json!({}),
    };
    let r = p.w.post("/api/presets", &body);
    assert_eq!(r.status, 201, "{}", r.text());
    json!({ "presetId": r.json()["id"] })
}

/// Its MCP client has the pane's server connected, as the CLI itself lists it.
fn assert_mcp_connected(p: &Place, bin: &Path, cli: &Cli, id: &str) {
    let line_with = |text: &str, word: &str| {
        text.lines()
            .any(|l| l.contains("termplane") && l.to_lowercase().contains(word))
    };
    match cli.binary {
        "claude" | "codex" => {
            if cli.binary == "codex" {
                // `mcp list` with the pane's registration (its `-c` overrides): configured.
                let (_, _, argv) = p.pane_process(id, "codex");
                let mut args: Vec<String> = argv
                    .windows(2)
                    .filter(|w| w[0] == "-c")
                    .flat_map(|w| w.to_vec())
                    .collect();
                args.extend(["mcp".into(), "list".into()]);
                let out = p.run_as_pane(id, bin, "codex", &args);
                assert!(line_with(&out, "enabled"), "codex mcp list:\n{out}");
            }
            // The TUI's own list of connected servers.
            p.input(id, "/mcp", &["enter"]);
            let want = if cli.binary == "claude" {
                "✔ termplane"
            } else {
                "termplane: connected"
            };
            p.wait_screen(id, want);
            if cli.binary == "claude" {
                // Its list is a dialog: closed, and gone, before anything else is typed (an
                // Escape with a letter right after it reads as Alt and that letter).
                p.input(id, "", &["escape"]);
                wait_for(SLOW, || (!p.screen(id).contains(want)).then_some(()))
                    .expect("the MCP dialog to close");
            }
        }
        _ => {
            let out = p.run_as_pane(id, bin, cli.binary, &["mcp".into(), "list".into()]);
            assert!(
                line_with(&out, "connected"),
                "{} mcp list:\n{out}",
                cli.binary
            );
        }
    }
}

/// Notes how long into the test a step ended (`--nocapture` shows them).
fn step(cli: &Cli, started: std::time::Instant, what: &str) {
    eprintln!(
        "{:>6.1}s {}: {what}",
        started.elapsed().as_secs_f64(),
        cli.binary
    );
}

/// Everything the pane of one CLI owes, on place `p`.
fn exercise(p: &Place, bin: &Path, cli: &Cli) {
    let t = std::time::Instant::now();
    // Detection finds it, at its version (asked again while a busy host lets its version
    // probe run out of time: the harness is found all the same, without a version).
    let row = wait_for(SLOW, || {
        let r =
            p.w.get(&format!("/api/nodes/{}/harnesses?refresh=true", p.node));
        assert_eq!(r.status, 200, "{}", r.text());
        let row = r
            .json()
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["harnessId"] == cli.harness)
            .unwrap()
            .clone();
        (!row["version"].is_null()).then_some(row)
    })
    .expect("a version");
    assert_eq!(row["launchable"], true, "{row}");
    assert!(
        row["version"]
            .as_str()
            .unwrap_or_default()
            .contains(cli.version()),
        "{row}"
    );
    step(cli, t, "detected");
    let preset = preset_for(p, cli);

    // An initial prompt is submitted with the TUI's start.
    let dir = p.w.dir.join("work").join(format!("{}-prompt", cli.binary));
    let prompt = format!("termplane prompt check for {} one", cli.binary);
    let mut more = preset.clone();
    more["prompt"] = json!(prompt);
    let s = p.launch(cli.harness, &dir, &more);
    let id = s["id"].as_str().unwrap().to_owned();
    let screen = p.wait_screen(&id, &cli.first_screen());
    assert_no_complaint(cli, &screen);
    step(cli, t, "first screen");
    p.wait_submitted(cli, &id, &prompt, false);
    step(cli, t, "initial prompt submitted");
    assert_eq!(p.subshell(&id)["promptState"], "delivered");
    assert!(p.subshell(&id)["warning"].is_null(), "{}", p.subshell(&id));
    p.delete(&id);

    // A pane of its own: the TUI starts, and starts again on a restart before anything was
    // typed (Claude Code and Gemini CLI would be asked to resume a session never saved).
    let dir = p.w.dir.join("work").join(cli.binary);
    let s = p.launch(cli.harness, &dir, &preset);
    let id = s["id"].as_str().unwrap().to_owned();
    let screen = p.wait_screen(&id, &cli.first_screen());
    assert_no_complaint(cli, &screen);
    step(cli, t, "first screen of a second pane");
    if cli.binary == "claude" || cli.binary == "gemini" {
        // The hooks the plane configured at launch are accepted and report the session's
        // start: the agent waits for a prompt.
        let agent = wait_for(SLOW, || {
            let a = p.subshell(&id)["agent"].clone();
            (a["source"] == "hook").then_some(a)
        })
        .expect("a report from the CLI's hooks");
        assert_eq!(agent["state"], "idle", "{agent}");
        assert_eq!(agent["summary"], "session started", "{agent}");
        step(cli, t, "hooks reported the session's start");
    } else {
        // No hook reports its start: its screen does, once quiet, by the texts of its plugin.
        let agent = wait_for(SLOW, || {
            let a = p.subshell(&id)["agent"].clone();
            (a["source"] == "screen" && a["state"] == "idle").then_some(a)
        })
        .unwrap_or_else(|| {
            panic!(
                "its screen never read as waiting: {}\n{}",
                p.subshell(&id)["agent"],
                p.screen(&id)
            )
        });
        assert_eq!(agent["summary"], "waits for a prompt", "{agent}");
        step(cli, t, "its screen read as waiting for a prompt");
    }
    p.restart(&id);
    let screen = p.wait_screen(&id, &cli.first_screen());
    assert_no_complaint(cli, &screen);
    assert_eq!(p.subshell(&id)["state"], "running");
    step(cli, t, "restarted with nothing typed");

    assert_mcp_connected(p, bin, cli, &id);
    step(cli, t, "MCP server connected");

    // Text typed with Enter through the API is submitted, not left in the input box.
    let typed = format!("termplane typed check for {} two", cli.binary);
    p.input(&id, &typed, &["enter"]);
    p.wait_submitted(cli, &id, &typed, true);
    step(cli, t, "typed text submitted");
    if cli.binary == "claude" || cli.binary == "gemini" {
        // The prompt's submission went through its hook: the agent went to work.
        wait_for(SLOW, || {
            let audit = p.w.get(&format!("/api/audit?target={id}&limit=500")).json();
            let entries = audit
                .as_array()
                .or_else(|| audit["entries"].as_array())?
                .clone();
            entries
                .iter()
                .any(|e| {
                    e["action"] == "subshell.agent_state"
                        && e["detail"]["to"] == "working"
                        && e["detail"]["source"] == "hook"
                })
                .then_some(())
        })
        .expect("the hook's report of the prompt in the audit trail");
        step(cli, t, "hooks reported the prompt");
    }

    // A restart brings the conversation back: by its id for Claude Code, the CLI's own latest
    // of the directory for the others.
    p.restart(&id);
    let screen = p.wait_screen(&id, &cli.first_screen());
    assert_no_complaint(cli, &screen);
    p.wait_screen(&id, &typed);
    assert_eq!(p.subshell(&id)["state"], "running");
    step(cli, t, "restarted into the conversation");
    p.delete(&id);
}

fn local(harness: &str) {
    let Some(bin) = clis() else { return };
    let c = cli(harness);
    let p = Place::local(&format!("cli-{}", c.binary), &bin);
    let trusted = [
        p.w.dir.join("work").join(c.binary),
        p.w.dir.join("work").join(format!("{}-prompt", c.binary)),
    ];
    for d in &trusted {
        std::fs::create_dir_all(d).unwrap();
    }
    seed_home(&p.w.dir.join("home"), &trusted);
    seed_gemini(&p.data_dir);
    exercise(&p, &bin, c);
}

#[test]
fn claude_code_runs_in_a_local_pane_with_its_mcp_server() {
    local("claude-code");
}

#[test]
fn codex_runs_in_a_local_pane_with_its_mcp_server() {
    local("codex");
}

#[test]
fn gemini_cli_runs_in_a_local_pane_with_its_mcp_server() {
    local("gemini");
}

#[test]
fn opencode_runs_in_a_local_pane_with_its_mcp_server() {
    local("opencode");
}

/// The uid and gid of an ordinary user to run a node as: the test's own when it is not root,
/// else `nobody`'s.
fn ordinary_user() -> Option<(u32, u32)> {
    if rustix::process::geteuid().is_root() {
        let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
        let f: Vec<&str> = passwd
            .lines()
            .find(|l| l.starts_with("nobody:"))
            .expect("a `nobody` user")
            .split(':')
            .collect();
        Some((f[2].parse().unwrap(), f[3].parse().unwrap()))
    } else {
        None
    }
}

#[test]
fn gemini_cli_loads_the_panes_mcp_server_on_a_node_run_by_an_ordinary_user() {
    let Some(bin) = clis() else { return };
    let c = cli("gemini");
    let user = ordinary_user();
    let p = Place::enrolled("cli-gemini-user", &bin, user, &["gemini", "plain"]);
    let preset = preset_for(&p, c);
    let s = p.launch("gemini", &p.w.dir.join("work/gemini"), &preset);
    let id = s["id"].as_str().unwrap().to_owned();
    let screen = p.wait_screen(&id, &c.first_screen());
    assert_no_complaint(c, &screen);
    // The node is not root: nor is the pane.
    let (_, cwd, _) = p.pane_process(&id, "gemini");
    let uid = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&cwd).unwrap());
    assert_ne!(uid, 0);
    assert!(p.subshell(&id)["warning"].is_null(), "{}", p.subshell(&id));
    assert_mcp_connected(&p, &bin, c, &id);
    // Its hooks, set over the link as a second settings entry, report the session's start.
    let agent = wait_for(SLOW, || {
        let a = p.subshell(&id)["agent"].clone();
        (a["source"] == "hook").then_some(a)
    })
    .expect("a report from Gemini CLI's hooks on the enrolled node");
    assert_eq!(agent["summary"], "session started", "{agent}");

    // Without config isolation, Gemini CLI skips the settings file the node wrote (no such
    // node's files belong to root): the subshell says so, and Gemini's own list agrees.
    let s = p.launch("gemini", &p.w.dir.join("work/plain"), &json!({}));
    let id = s["id"].as_str().unwrap().to_owned();
    let warning = s["warning"].as_str().expect("a warning").to_owned();
    assert!(warning.contains("config isolation"), "{warning}");
    p.wait_screen(&id, &c.first_screen());
    let out = p.run_as_pane(&id, &bin, "gemini", &["mcp".into(), "list".into()]);
    assert!(out.contains("Skipping system settings file"), "{out}");
    assert!(
        !out.lines()
            .any(|l| l.contains("termplane") && l.contains("Connected")),
        "{out}"
    );
}

#[test]
fn the_agent_clis_run_in_panes_of_an_enrolled_node() {
    let Some(bin) = clis() else { return };
    let p = Place::enrolled(
        "cli-enrolled",
        &bin,
        None,
        &["claude", "claude-prompt", "codex", "codex-prompt"],
    );
    for h in ["claude-code", "codex"] {
        exercise(&p, &bin, cli(h));
    }
}

/// The loopback stand-in model (`support/model_standin.py`), killed on drop.
struct ModelStandin {
    child: std::process::Child,
    url: String,
    log: PathBuf,
}

impl ModelStandin {
    fn start(dir: &Path) -> Self {
        use std::io::BufRead as _;
        std::fs::create_dir_all(dir).unwrap();
        let script = dir.join("model_standin.py");
        std::fs::write(&script, MODEL_STANDIN).unwrap();
        let log = dir.join("model-requests.jsonl");
        let mut child = Command::new("python3")
            .arg(&script)
            .arg(&log)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3");
        let mut first = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let port = first.trim().strip_prefix("port ").expect("its port");
        Self {
            child,
            url: format!("http://127.0.0.1:{port}"),
            log,
        }
    }

    /// The requests it was sent.
    fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

impl Drop for ModelStandin {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How one CLI takes real turns on the stand-in model.
struct Turns {
    harness: &'static str,
    /// The variable naming its model API's address, and what follows the stand-in's address
    /// in it (none: its configuration file names it).
    base: Option<(&'static str, &'static str)>,
    /// Flags of the preset its pane launches with, and whether it isolates the CLI's
    /// configuration.
    flags: &'static [&'static str],
    isolated: bool,
    /// The text of its permission prompt for the pane's MCP tool.
    asks: &'static str,
    /// The signals that tell it asks (its hooks, or its screen), and that its turn ended.
    asked_by: &'static str,
    ended_by: &'static str,
    /// A file of its own configuration (path under the person's configuration directory,
    /// content).
    config: Option<(&'static str, &'static str)>,
    /// A file of its own configuration in the person's home (path, content; `{model}` stands
    /// for the stand-in's address, `{work}` for the pane's folder).
    home_config: Option<(&'static str, &'static str)>,
}

/// Real turns of a real CLI in a pane, against the loopback stand-in model: a prompt whose
/// answer calls the pane's MCP tool, which the CLI asks permission for — the agent
/// `needs_input` and its owner is told once —; approved, the tool runs through the pane's MCP
/// server with the pane's token, the model's closing answer ends the turn, and the agent is
/// `idle` again with what it was told read.
fn real_turns(t: &Turns, enrolled: bool) {
    let Some(bin) = clis() else { return };
    let c = cli(t.harness);
    let place = if enrolled { "node" } else { "local" };
    let dir = std::env::temp_dir().join(format!(
        "tp-model-{}-{place}-{}",
        c.binary,
        std::process::id()
    ));
    let model = ModelStandin::start(&dir);
    let tag = format!("cli-model-{}-{place}", c.binary);
    let mut env = vec![("TERMPLANE_NOTIFY_HOLD_SECS", "1".to_owned())];
    if let Some((name, path)) = t.base {
        env.push((name, format!("{}{path}", model.url)));
    }
    let p = if enrolled {
        Place::enrolled_with(&tag, &bin, None, &["model"], &env)
    } else {
        Place::local_with(&tag, &bin, &env)
    };
    let work = p.w.dir.join("work").join("model");
    std::fs::create_dir_all(&work).unwrap();
    seed_home(&p.w.dir.join("home"), std::slice::from_ref(&work));
    seed_gemini(&p.data_dir);
    if let Some((path, content)) = t.config {
        // In the home, and where the node's XDG configuration directory puts it.
        for root in [p.w.dir.join("home/.config"), p.w.dir.join("xdg-config")] {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, content).unwrap();
        }
    }
    if let Some((path, content)) = t.home_config {
        let file = p.w.dir.join("home").join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let content = content
            .replace("{model}", &model.url)
            .replace("{work}", &work.display().to_string());
        std::fs::write(file, content).unwrap();
    }
    let r = p.w.post(
        "/api/presets",
        &json!({ "name": "asks", "harnessId": t.harness, "flags": t.flags, "configIsolation": t.isolated }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let s = p.launch(c.harness, &work, &json!({ "presetId": r.json()["id"] }));
    let id = s["id"].as_str().unwrap().to_owned();
    p.wait_screen(&id, &c.first_screen());
    let agent_where = |what: &str, f: &dyn Fn(&Value) -> bool| {
        wait_for(SLOW, || {
            Some(p.subshell(&id)["agent"].clone()).filter(|a| f(a))
        })
        .unwrap_or_else(|| panic!("{what}: {}\n{}", p.subshell(&id)["agent"], p.screen(&id)))
    };
    agent_where("waiting for a prompt", &|a| a["state"] == "idle");

    p.input(&id, "termplane model check: list the panes", &["enter"]);
    let asked = agent_where("the permission prompt", &|a| a["state"] == "needs_input");
    assert_eq!(asked["source"], t.asked_by, "{asked}");
    // The list the overview starts from (the live feed then carries the same rows) shows it.
    let r = p.w.get("/api/subshells");
    assert_eq!(r.status, 200, "{}", r.text());
    let row = r
        .json()
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id.as_str())
        .cloned();
    assert_eq!(
        row.as_ref().map(|s| s["agent"]["state"].clone()),
        Some(json!("needs_input")),
        "{row:?}"
    );
    p.wait_screen(&id, t.asks);
    let told = || p.w.notifications_about(&id);
    wait_for(SLOW, || (!told().is_empty()).then_some(()))
        .expect("the owner told of the permission prompt");

    // Approved (its first choice): the tool runs, the model closes the turn. A CLI may ignore
    // keys for a moment after a prompt shows (Claude Code does, so a key meant for before it
    // does not answer it): Enter again while the prompt stays.
    wait_for(SLOW, || {
        if p.screen(&id).contains(t.asks) {
            p.input(&id, "", &["enter"]);
            None
        } else {
            Some(())
        }
    })
    .unwrap_or_else(|| panic!("the prompt never took Enter:\n{}", p.screen(&id)));
    p.wait_screen(&id, "All done:");
    let done = agent_where("the turn's end", &|a| a["state"] == "idle");
    assert_eq!(done["source"], t.ended_by, "{done}");
    // The tool ran through the pane's MCP server: its answer, which the model was sent,
    // lists this very pane.
    let requests = model.requests();
    assert!(
        requests.iter().any(|r| {
            let said = r.to_string();
            ["tool_result", "functionResponse", "function_call_output"]
                .iter()
                .any(|kind| said.contains(kind))
                && said.contains(&id)
        }),
        "{requests:?}"
    );
    wait_for(SLOW, || {
        told().iter().all(|n| !n["readAt"].is_null()).then_some(())
    })
    .expect("the notification read once the need left");
    let all = told();
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["kind"], "needs_input", "{all:?}");
    p.delete(&id);
    let _ = std::fs::remove_dir_all(&dir);
}

const CLAUDE_TURNS: Turns = Turns {
    harness: "claude-code",
    base: Some(("ANTHROPIC_BASE_URL", "")),
    // Asked before each tool it has not been allowed (not its automatic mode).
    flags: &["--permission-mode", "default"],
    isolated: false,
    asks: "Do you want to proceed?",
    asked_by: "hook",
    ended_by: "hook",
    config: None,
    home_config: None,
};

const OPENCODE_TURNS: Turns = Turns {
    harness: "opencode",
    base: Some(("ANTHROPIC_BASE_URL", "/v1")),
    flags: &[],
    isolated: false,
    asks: "Permission required",
    // The plane's plugin passes its permission and session events to `hook opencode`.
    asked_by: "hook",
    ended_by: "hook",
    home_config: None,
    // It runs MCP tools without asking unless told to ask.
    config: Some((
        "opencode/opencode.json",
        r#"{"permission": {"termplane_*": "ask"}}"#,
    )),
};

const GEMINI_TURNS: Turns = Turns {
    harness: "gemini",
    base: Some(("GOOGLE_GEMINI_BASE_URL", "")),
    // A model of its own choosing, not "Auto" (which asks a classifier model first).
    flags: &["--model", "gemini-2.5-pro"],
    isolated: true,
    asks: "Allow execution of",
    asked_by: "hook",
    ended_by: "hook",
    config: None,
    home_config: None,
};

const CODEX_TURNS: Turns = Turns {
    harness: "codex",
    base: None,
    // It calls an MCP tool marked read-only without asking unless told to ask.
    flags: &[
        "-c",
        "mcp_servers.termplane.tools.list_subshells.approval_mode=\"prompt\"",
    ],
    isolated: false,
    asks: "Allow the termplane MCP server to run tool",
    // It has no hook for its questions (its screen tells), and its `notify` program tells a
    // turn's end.
    asked_by: "screen",
    ended_by: "hook",
    config: None,
    // A model provider of its own naming the stand-in (the Responses API over HTTP: no
    // WebSocket), a model it has no metadata for (so its tools are plain functions, not its
    // code mode), and the pane's folder trusted.
    home_config: Some((
        ".codex/config.toml",
        r#"model = "stand-in"
model_provider = "standin"

[model_providers.standin]
name = "stand-in"
base_url = "{model}/v1"
wire_api = "responses"
requires_openai_auth = true
supports_websockets = false

[projects."{work}"]
trust_level = "trusted"
"#,
    )),
};

#[test]
fn claude_code_takes_real_turns_on_a_stand_in_model_asks_once_and_finishes() {
    real_turns(&CLAUDE_TURNS, false);
}

#[test]
fn claude_code_takes_real_turns_in_a_pane_of_an_enrolled_node() {
    real_turns(&CLAUDE_TURNS, true);
}

#[test]
fn opencode_takes_real_turns_on_a_stand_in_model_asks_once_and_finishes() {
    real_turns(&OPENCODE_TURNS, false);
}

#[test]
fn opencode_takes_real_turns_in_a_pane_of_an_enrolled_node() {
    real_turns(&OPENCODE_TURNS, true);
}

#[test]
fn gemini_cli_takes_real_turns_on_a_stand_in_model_asks_once_and_finishes() {
    real_turns(&GEMINI_TURNS, false);
}

#[test]
fn gemini_cli_takes_real_turns_in_a_pane_of_an_enrolled_node() {
    real_turns(&GEMINI_TURNS, true);
}

#[test]
fn codex_takes_real_turns_on_a_stand_in_model_asks_once_and_finishes() {
    real_turns(&CODEX_TURNS, false);
}

#[test]
fn codex_takes_real_turns_in_a_pane_of_an_enrolled_node() {
    real_turns(&CODEX_TURNS, true);
}
