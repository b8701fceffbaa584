//! `termplane-node`: the node daemon's command line.
//!
//! ```text
//! termplane-node enroll --server URL --setup-key nsk_… [--name N] [--config PATH]
//! termplane-node configure [--key tp_…] [--server URL] [--config PATH]
//! termplane-node status [--config PATH]
//! termplane-node service install|uninstall|start|stop|restart [--config PATH]
//! termplane-node run [--config PATH]
//! termplane-node mcp [--env-file PATH]
//! termplane-node --version
//! ```
//!
//! No command prints the node key or the private link half.
//!
//! # Exit status of `run`
//! | status | when |
//! |---|---|
//! | 0 | SIGINT / SIGTERM / SIGHUP (the link closed with 1000), or the plane closed with 4409 (another daemon took this node over; restarting would fight it) |
//! | 3 | the plane closed with 4406 (this version is refused), after rolling back a just-installed update if there was one |
//! | 75 | an `update` was installed; the service manager (`Restart=on-failure`) restarts into the new binary |
//! | 1 | the daemon could not start |
//!
//! A failed start with a pending update, or a second start of a never-accepted update, rolls
//! back to `<binary>.previous` and re-executes it in place. A 4406 is terminal: it rolls back a
//! pending update and the process exits (status 3) without dialing again; a service manager
//! restarts the restored binary, which dials as a new process.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use termplane_exec::{ExecConfig, shared};
use termplane_node::config::{NodeConfig, default_config_path};
use termplane_node::host::NodeHost;
use termplane_node::{enroll, link, logging, service, update};

/// Exit status after a 4406 with nothing to roll back.
const EXIT_UPDATE_REQUIRED: u8 = 3;

const USAGE: &str = "usage:
  termplane-node enroll --server URL --setup-key nsk_... [--name NAME] [--config PATH] [--force]
  termplane-node configure [--key KEY|-] [--server URL] [--config PATH]   (- reads the key from stdin)
  termplane-node status [--config PATH]
  termplane-node service install|uninstall|start|stop|restart [--config PATH]
  termplane-node run [--config PATH]
  termplane-node mcp [--env-file PATH]   (the pane's MCP server, started by a harness)
  termplane-node --version";

struct Args {
    positional: Vec<String>,
    flags: Vec<(String, String)>,
}

impl Args {
    fn parse(raw: &[String]) -> Result<Self, String> {
        let mut positional = Vec::new();
        let mut flags = Vec::new();
        let mut it = raw.iter();
        while let Some(a) = it.next() {
            if let Some(name) = a.strip_prefix("--") {
                // Switches take no value.
                if matches!(name, "force" | "help") {
                    flags.push((name.to_owned(), String::new()));
                    continue;
                }
                if !matches!(
                    name.split_once('=').map_or(name, |(k, _)| k),
                    "server" | "setup-key" | "name" | "config" | "key"
                ) {
                    return Err(format!("unknown option --{name}"));
                }
                let (k, v) = match name.split_once('=') {
                    Some((k, v)) => (k.to_owned(), v.to_owned()),
                    None => (
                        name.to_owned(),
                        it.next()
                            .cloned()
                            .ok_or_else(|| format!("--{name} needs a value"))?,
                    ),
                };
                if !matches!(
                    k.as_str(),
                    "server" | "setup-key" | "name" | "config" | "key"
                ) {
                    return Err(format!("unknown option --{k}"));
                }
                flags.push((k, v));
            } else {
                positional.push(a.clone());
            }
        }
        Ok(Self { positional, flags })
    }

    fn has(&self, k: &str) -> bool {
        self.flags.iter().any(|(n, _)| n == k)
    }

    fn get(&self, k: &str) -> Option<&str> {
        self.flags
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    }

    fn config_path(&self) -> PathBuf {
        self.get("config")
            .map_or_else(default_config_path, PathBuf::from)
    }
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("termplane-node: {msg}");
    ExitCode::FAILURE
}

fn main() -> ExitCode {
    termplane_exec::procs::keep_inherited_descriptors_to_ourselves();
    let raw: Vec<String> = std::env::args().skip(1).collect();
    match raw.first().map(String::as_str) {
        Some("--version" | "-V") => {
            println!("termplane-node {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        // The pane's MCP server: a harness's stdio child, with its own arguments.
        Some("mcp") => return termplane_mcp::stdio::main("termplane-node", &raw[1..]),
        // A harness's hook: the event on stdin, reported as the pane's agent state.
        Some("hook") => return termplane_mcp::hook::main("termplane-node", &raw[1..]),
        // A pane's recorder, run by tmux for each pane: its output to the pane log, timed.
        Some("record-pane") => {
            return termplane_exec::recording::main("termplane-node", &raw[1..]);
        }
        None | Some("--help" | "-h" | "help") => {
            println!(
                "termplane-node {} (protocol {})\n\n{USAGE}",
                env!("CARGO_PKG_VERSION"),
                termplane_proto::NODE_PROTOCOL_VERSION
            );
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    let args = match Args::parse(&raw) {
        Ok(a) => a,
        Err(e) => return fail(&format!("{e}\n{USAGE}")),
    };
    if args.has("help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let cmd = args.positional.first().map(String::as_str).unwrap_or("");
    match cmd {
        "enroll" => cmd_enroll(&args),
        "configure" => cmd_configure(&args),
        "status" => cmd_status(&args),
        "service" => cmd_service(&args),
        "run" => cmd_run(&args),
        other => fail(&format!("unknown command {other:?}\n{USAGE}")),
    }
}

fn cmd_enroll(args: &Args) -> ExitCode {
    let (Some(server), Some(key)) = (args.get("server"), args.get("setup-key")) else {
        return fail("enroll needs --server URL and --setup-key nsk_...");
    };
    let path = args.config_path();
    let e = enroll::EnrollArgs {
        server: server.to_owned(),
        setup_key: key.to_owned(),
        name: args.get("name").map(str::to_owned),
        config_path: path.clone(),
        tmux: "tmux".into(),
        force: args.has("force"),
    };
    match enroll::enroll(&e) {
        Ok(cfg) => {
            println!(
                "enrolled as node {} ({})\nconfig written to {}\nnext: {}   (or: {})",
                cfg.node_id,
                cfg.name,
                path.display(),
                own_command(args, "service install"),
                own_command(args, "run"),
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

/// `s` as one word of POSIX shell: as it is when every character is plain, else single-quoted.
fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A shell line running this program with `words`: the program by its own path (it need not
/// be on `PATH`), and the config given to this command when it is not the default one.
fn own_command(args: &Args, words: &str) -> String {
    let program = std::env::current_exe().map_or_else(
        |_| "termplane-node".to_owned(),
        |p| shell_word(&p.display().to_string()),
    );
    match args.get("config") {
        Some(_) => {
            let config = args.config_path();
            let config = std::path::absolute(&config).unwrap_or(config);
            format!(
                "{program} {words} --config {}",
                shell_word(&config.display().to_string())
            )
        }
        None => format!("{program} {words}"),
    }
}

fn cmd_configure(args: &Args) -> ExitCode {
    let path = args.config_path();
    let mut cfg = match NodeConfig::load(&path) {
        Ok(c) => c,
        Err(e) => return fail(&e.to_string()),
    };
    let mut changed = Vec::new();
    if let Some(k) = args.get("key") {
        // `--key -` reads the key from standard input, so it shows in no process list or
        // shell history.
        let k = if k == "-" {
            let mut line = String::new();
            if let Err(e) = std::io::stdin().read_line(&mut line) {
                return fail(&format!("cannot read the key from standard input: {e}"));
            }
            line.trim().to_owned()
        } else {
            k.to_owned()
        };
        if !k.starts_with("tp_") || k.len() > 512 || k.chars().any(char::is_whitespace) {
            return fail("the node key must start with tp_");
        }
        cfg.node_key = k;
        changed.push("node key");
    }
    if let Some(s) = args.get("server") {
        let url = match termplane_node::config::validate_server_url(s) {
            Ok(u) => u,
            Err(e) => return fail(&e),
        };
        cfg.ws_url = match termplane_node::config::ws_url_for(&url) {
            Ok(w) => w,
            Err(e) => return fail(&e),
        };
        cfg.server_url = url;
        changed.push("server URL");
    }
    if changed.is_empty() {
        return fail("configure needs --key KEY and/or --server URL");
    }
    if let Err(e) = cfg.save(&path) {
        return fail(&e.to_string());
    }
    println!(
        "updated {} in {}; restart the daemon to use it",
        changed.join(" and "),
        path.display()
    );
    ExitCode::SUCCESS
}

fn cmd_status(args: &Args) -> ExitCode {
    let path = args.config_path();
    println!("config: {}", path.display());
    match NodeConfig::load(&path) {
        Ok(cfg) => {
            for file in [path.as_path(), Path::new(&cfg.identity_key_path)] {
                if let Some(warning) = NodeConfig::tighten(file) {
                    eprintln!("termplane-node: {warning}");
                }
            }
            println!("node id: {}", cfg.node_id);
            println!("name: {}", cfg.name);
            println!("server: {}", cfg.server_url);
            println!("websocket: {}", cfg.ws_url);
            println!(
                "control key pinned: {}",
                if cfg.control_encrypt_public_key.is_some() {
                    "yes"
                } else {
                    "no"
                }
            );
            println!("data dir: {}", cfg.data_dir().display());
            match termplane_node::link::read_link_status(&cfg.data_dir()) {
                Some(st) => println!("link: {st}"),
                None => println!("link: never started"),
            }
        }
        Err(e) => {
            println!("not enrolled ({e})");
            println!("service: {}", service::state());
            // Scripts can tell an enrolled node from one that is not.
            return ExitCode::FAILURE;
        }
    }
    println!("service: {}", service::state());
    ExitCode::SUCCESS
}

fn cmd_service(args: &Args) -> ExitCode {
    let action = match args.positional.get(1).map(String::as_str) {
        Some("install") => service::Action::Install,
        Some("uninstall") => service::Action::Uninstall,
        Some("start") => service::Action::Start,
        Some("stop") => service::Action::Stop,
        Some("restart") => service::Action::Restart,
        _ => return fail("service needs install, uninstall, start, stop or restart"),
    };
    let binary = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("termplane-node"));
    let config = args.config_path();
    let log = NodeConfig::load(&config)
        .map(|c| c.data_dir())
        .unwrap_or_else(|_| termplane_node::config::default_data_dir())
        .join("node.log");
    match service::perform(action, &binary, &config, &log) {
        Ok(lines) => {
            for l in lines {
                println!("{l}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(&format!(
            "service {} failed: {e}",
            args.positional.get(1).map_or("", String::as_str)
        )),
    }
}

/// Replaces this process with `binary` and the same arguments (after a rollback).
fn reexec(binary: &std::path::Path) -> ExitCode {
    use std::os::unix::process::CommandExt as _;
    let err = std::process::Command::new(binary)
        .args(std::env::args_os().skip(1))
        .exec();
    fail(&format!("cannot re-execute {}: {err}", binary.display()))
}

fn cmd_run(args: &Args) -> ExitCode {
    let path = args.config_path();
    let binary = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("termplane-node"));
    // A pending update whose start fails rolls back before the error is reported.
    let failed_start = |msg: String| -> ExitCode {
        if update::pending(&binary) {
            match update::rollback(&binary) {
                Ok(true) => {
                    logging::warn(&format!("start failed ({msg}); rolled back the update"));
                    return reexec(&binary);
                }
                Ok(false) => {}
                Err(e) => logging::warn(&e),
            }
        }
        fail(&msg)
    };
    let cfg = match NodeConfig::load(&path) {
        Ok(c) => c,
        Err(e) if path.exists() => {
            return failed_start(format!(
                "{e} (fix or restore it; `enroll --force` would make this machine a new node)"
            ));
        }
        Err(e) => return failed_start(format!("{e} (enroll first)")),
    };
    let data = cfg.data_dir();
    if let Err(e) = termplane_exec::fs::ensure_private_dir(&data) {
        return failed_start(format!("{}: {e}", data.display()));
    }
    let debug = std::fs::read_to_string(data.join("log-level")).is_ok_and(|l| l.trim() == "debug");
    logging::init(&data.join("node.log"), debug);
    for file in [path.as_path(), Path::new(&cfg.identity_key_path)] {
        if let Some(warning) = NodeConfig::tighten(file) {
            logging::warn(&warning);
        }
    }
    if let Some(n) = termplane_node::util::raise_open_file_limit() {
        logging::debug(&format!("open-file limit {n}"));
    }
    match update::boot_check(&binary) {
        Ok(update::Boot::Normal) => {}
        Ok(update::Boot::Probation) => logging::info(
            "running a just-installed binary on probation: a verified command or 15 quiet minutes accept it",
        ),
        Ok(update::Boot::RolledBack) => {
            logging::warn(
                "the installed update started before and was never accepted; rolled back to the previous binary",
            );
            return reexec(&binary);
        }
        Err(e) => logging::warn(&e),
    }
    if let Err(e) = enroll::check_tmux("tmux") {
        return failed_start(e);
    }
    let mut host = NodeHost::new(&data);
    host.config_path = Some(path.clone());
    host.binary_path.clone_from(&binary);
    let host = std::sync::Arc::new(host);
    let log_limits = match termplane_exec::recording::Limits::from_env() {
        Ok(l) => l,
        Err(e) => return failed_start(e),
    };
    let exec_cfg = ExecConfig {
        recorder: Some(binary.clone()),
        log_limits,
        ..ExecConfig::new(data)
    };
    let (exec, events) = shared(exec_cfg, host.clone());
    if let Err(e) = exec.start() {
        return failed_start(format!("cannot run panes on this host: {e}"));
    }
    logging::info(&format!(
        "termplane-node {} running as node {} (pid {}, tmux socket {})",
        env!("CARGO_PKG_VERSION"),
        cfg.node_id,
        std::process::id(),
        exec.tmux().socket().display()
    ));
    if update::pending(&binary) {
        let b = binary.clone();
        std::thread::spawn(move || {
            std::thread::sleep(link::UPDATE_QUIET_ACCEPT);
            if update::pending(&b) && update::accept(&b).is_ok() {
                logging::info("update accepted after 15 quiet minutes");
            }
        });
    }
    let args = link::LinkArgs {
        config_path: path,
        config: cfg,
        host,
    };
    let end = link::run_link(args, std::sync::Arc::clone(&exec), events);
    // Uploads under way cannot be finished by this process: no partial file is left.
    exec.abandon_uploads();
    match end {
        Ok(link::LinkEnd::Shutdown) => {
            logging::info("link closed (1000); exiting");
            ExitCode::SUCCESS
        }
        Ok(link::LinkEnd::Exit { rollback, reason }) => {
            logging::warn(&format!(
                "the plane ended the link ({}): {reason}",
                if rollback {
                    "4406 update required"
                } else {
                    "4409 superseded"
                }
            ));
            if !rollback {
                // Another daemon holds this node now; a restart would only fight it.
                return ExitCode::SUCCESS;
            }
            // 4406 is terminal: roll back a just-installed binary, then end this process.
            match update::rollback(&binary) {
                Ok(true) => logging::warn("rolled back to the previous binary; exiting"),
                Ok(false) => logging::info("exiting: this version is refused"),
                Err(e) => logging::warn(&e),
            }
            ExitCode::from(EXIT_UPDATE_REQUIRED)
        }
        Err(e) => failed_start(format!("link: {e}")),
    }
}
