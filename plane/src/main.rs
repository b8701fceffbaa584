//! `termplane`: the control-plane binary.

// The binary is the runtime: it may read the OS clocks (`plane/clippy.toml`).
#![allow(clippy::disallowed_methods)]

use std::process::ExitCode;
use std::sync::Arc;

use futures_lite::StreamExt;
use termplane::clock::SystemClock;
use termplane::config::{self, Cmd, Config, ServiceCmd};
use termplane::http::{self, HttpOptions};
use termplane::instance::InstanceLock;
use termplane::service::{Services, Settings};
use termplane::store::{Store, redact_url};
use termplane::unit;

/// How often the plane checks its own readiness (logging changes, taking a lost instance
/// lock again).
const READINESS_EVERY: std::time::Duration = std::time::Duration::from_secs(15);

/// How often live subshell rows are checked against their nodes' panes.
const RECONCILE_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// Below this much free space on a SQLite database's disk, a failure to open it is said to be
/// the full disk's (SQLite names a write-ahead index it could not grow a "disk I/O error").
const DISK_FULL_BELOW: u64 = 1024 * 1024;

/// `"; its disk is full (… free)"` when the SQLite file of `url` is on a disk that is.
fn disk_full_hint(url: &str) -> String {
    let Some(dir) = termplane::store::sqlite_path(url)
        .and_then(|p| p.parent().map(std::path::Path::to_path_buf))
    else {
        return String::new();
    };
    match rustix::fs::statvfs(&dir) {
        Ok(s) if s.f_bavail.saturating_mul(s.f_frsize) < DISK_FULL_BELOW => format!(
            "; the disk is full ({} KiB free on {}): free space and start again",
            s.f_bavail.saturating_mul(s.f_frsize) / 1024,
            dir.display()
        ),
        _ => String::new(),
    }
}

/// How often recordings past their retention are trimmed (and whenever a retention is set).
const RETENTION_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

fn main() -> ExitCode {
    termplane::local::keep_inherited_descriptors_to_ourselves();
    let args: Vec<String> = std::env::args().skip(1).collect();
    // The pane's MCP server on the plane's own host: a harness's stdio child.
    if args.first().map(String::as_str) == Some("mcp") {
        return termplane_mcp::stdio::main("termplane", &args[1..]);
    }
    // A harness's hook on the plane's own host: the event on stdin, reported as the pane's
    // agent state.
    if args.first().map(String::as_str) == Some("hook") {
        return termplane_mcp::hook::main("termplane", &args[1..]);
    }
    // A pane's recorder on the plane's own host, run by tmux for each pane: its output to the
    // pane log, timed.
    if args.first().map(String::as_str) == Some("record-pane") {
        return termplane::local::record_pane(&args[1..]);
    }
    let cli = match config::parse_cli(std::env::args_os()) {
        Ok(c) => c,
        Err(e) => {
            // Help and version go to standard output with success; mistakes to standard
            // error with status 2.
            let _ = e.print();
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp
                | clap::error::ErrorKind::DisplayVersion
                | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    ExitCode::SUCCESS
                }
                _ => ExitCode::from(2),
            };
        }
    };
    let env = |k: &str| std::env::var(k).ok();
    match cli.command {
        Cmd::Serve(settings) => {
            let cfg = match settings.resolve(&env) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("termplane: {e}");
                    return ExitCode::from(2);
                }
            };
            termplane::logging::init(cfg.log_format, &cfg.log_filter);
            match smol::block_on(run(cfg)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    tracing::error!("{e}");
                    eprintln!("termplane: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Cmd::Backup { file, settings } => with_settings(&settings, |cfg| {
            let s = smol::block_on(termplane::backup::backup(&cfg, &file))?;
            println!(
                "wrote {}: {} key files ({}), {} kept files, {}",
                file.display(),
                s.manifest.key_files.len(),
                s.manifest.key_files.join(", "),
                s.manifest.kept_files,
                if s.manifest.database == "sqlite" {
                    format!("the SQLite database ({} bytes)", s.database_bytes)
                } else {
                    "no database: this plane runs on PostgreSQL, back it up with pg_dump \
                         (see the README)"
                        .to_owned()
                }
            );
            Ok(())
        }),
        Cmd::Restore { file, settings } => with_settings(&settings, |cfg| {
            let s = termplane::backup::restore(&cfg, &file)?;
            println!(
                "restored {} into {}: {} key files, {} kept files{}",
                file.display(),
                cfg.data_dir.display(),
                s.manifest.key_files.len(),
                s.manifest.kept_files,
                if s.manifest.database == "sqlite" {
                    format!(", the SQLite database ({} bytes)", s.database_bytes)
                } else {
                    "; restore the PostgreSQL database from its pg_dump before starting".to_owned()
                }
            );
            Ok(())
        }),
        Cmd::Service { action } => service(action),
        Cmd::Openapi {
            app_base_url,
            push_allow_http,
            push_allow_private,
        } => print_openapi(app_base_url, push_allow_http, push_allow_private),
        Cmd::Mcp { args } => termplane_mcp::stdio::main("termplane", &args),
    }
}

/// Runs `f` with the settings in effect; its error is printed and exits with failure.
fn with_settings(
    settings: &config::SettingsArgs,
    f: impl FnOnce(Config) -> Result<(), String>,
) -> ExitCode {
    let env = |k: &str| std::env::var(k).ok();
    let cfg = match settings.resolve(&env) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("termplane: {e}");
            return ExitCode::from(2);
        }
    };
    match f(cfg) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("termplane: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `termplane service install|uninstall|status`.
fn service(action: ServiceCmd) -> ExitCode {
    let root = rustix::process::geteuid().is_root();
    let env = |k: &str| std::env::var(k).ok();
    let report = |r: Result<Vec<String>, String>| match r {
        Ok(lines) => {
            for l in lines {
                println!("{l}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("termplane: {e}");
            ExitCode::FAILURE
        }
    };
    match action {
        ServiceCmd::Status(scope) => {
            let system = scope.is_system(root);
            println!("{}", unit::status(system, &unit::unit_path(system, &env)));
            ExitCode::SUCCESS
        }
        ServiceCmd::Uninstall(scope) => {
            let system = scope.is_system(root);
            report(unit::uninstall(system, &unit::unit_path(system, &env)))
        }
        ServiceCmd::Install(args) => report(install_unit(&args, root, &env)),
    }
}

fn install_unit(
    args: &config::InstallArgs,
    root: bool,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<String>, String> {
    let system = args.scope.is_system(root);
    let absolute =
        |p: &std::path::Path| std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()));
    let mut settings = args.settings.clone();
    if let Some(c) = &settings.config {
        settings.config = Some(absolute(c)?);
    }
    // A system unit's data directory is /var/lib/termplane unless the settings name one
    // (the installing account's home is not the service's).
    let file = settings
        .config
        .as_deref()
        .map(config::FileSettings::read)
        .transpose()?
        .unwrap_or_default();
    let named_dir = settings.data_dir.is_some() || file.data_dir.is_some();
    // What the config file says stays there (the plane reads it at each start); what the
    // command line or the environment said now goes into the unit's command.
    let pass_settings = (
        file.data_dir.is_none() || settings.data_dir.is_some(),
        file.local_node.is_none() || settings.local_node.is_some() || settings.no_local_node,
    );
    let state_directory = system && !named_dir;
    if state_directory {
        settings.data_dir = Some(unit::SYSTEM_DATA_DIR.into());
    }
    let cfg = settings.resolve(env)?;
    let data_dir = absolute(&cfg.data_dir)?;
    let database_dir = termplane::store::sqlite_path(&cfg.database_url())
        .and_then(|p| p.parent().map(std::path::Path::to_path_buf))
        .filter(|d| *d != data_dir);
    let run_as = if system {
        Some(
            args.run_as
                .clone()
                .or_else(|| env("SUDO_USER").filter(|u| !u.is_empty() && u != "root"))
                .ok_or(
                    "a system unit needs the account it runs as: pass --run-as NAME (an \
                     account of its own, such as one made with `useradd --system \
                     --create-home termplane`)",
                )?,
        )
    } else {
        None
    };
    let binary = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let spec = unit::UnitSpec {
        binary,
        config: settings.config.clone(),
        system,
        run_as,
        local_node: cfg.local_node,
        data_dir,
        pass_settings,
        state_directory,
        database_dir,
    };
    let path = args
        .unit_file
        .clone()
        .unwrap_or_else(|| unit::unit_path(system, env));
    let start = !args.no_start && args.unit_file.is_none();
    unit::install(&spec, &path, start)
}

/// `termplane openapi`: the document a plane at `base_url` would serve, on stdout.
fn print_openapi(base_url: String, push_http: bool, push_private: bool) -> ExitCode {
    let settings = Settings {
        base_url,
        extra_origins: Vec::new(),
        downloads_dir: None,
        listen: None,
        data_dir: None,
        push_http,
        push_private,
        needs_you: termplane::service::needs_you::Rules::default(),
        screen_signal: true,
        recording: true,
        input_marks: true,
        recording_retention_days: None,
        cluster_address: None,
        shares_database: false,
        max_node_links: termplane::link::MAX_NODE_SOCKETS,
    };
    let doc = http::openapi_document(&settings);
    // A closed pipe (`termplane openapi | head`) is an error to report, not a panic.
    let written = serde_json::to_string_pretty(&doc)
        .map_err(std::io::Error::from)
        .and_then(|text| {
            use std::io::Write;
            writeln!(std::io::stdout().lock(), "{text}")
        });
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("termplane: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cfg: Config) -> Result<(), String> {
    // The port first: a second plane started by mistake on a busy port stops here, before it
    // creates, migrates or reads keys from a data directory that may be the running one's.
    // (Connections that arrive while the database opens wait in the listen backlog.)
    let listener = smol::net::TcpListener::bind(cfg.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", cfg.listen))?;
    let metrics_listener = match cfg.metrics_listen {
        Some(addr) => Some(
            smol::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr} (--metrics-listen): {e}"))?,
        ),
        None => None,
    };
    create_private_dir(&cfg.data_dir)?;
    warn_if_exposed(&cfg.data_dir);
    let url = cfg.database_url();
    // One plane per data directory and database: before a key file is read or the database
    // touched (a second plane would mark the first one's nodes offline at its start).
    if cfg.cluster && !termplane::instance::is_postgres(&url) {
        return Err(
            "--cluster on needs a PostgreSQL database (--database-url postgres://…): replicas \
             share one database, and a SQLite file is one process's"
                .to_owned(),
        );
    }
    let lock = Arc::new(InstanceLock::acquire(&cfg.data_dir, &url, cfg.cluster).await?);
    let clock = Arc::new(SystemClock);
    termplane::store::prepare_sqlite_file(&url)
        .map_err(|e| format!("cannot prepare the database file: {e}"))?;
    let store = Store::open(&url, termplane::clock::Clock::now_ms(&*clock))
        .await
        .map_err(|e| {
            format!(
                "cannot open database {}: {e}{}",
                redact_url(&url),
                disk_full_hint(&url)
            )
        })?;
    // The key files, checked against the database's record of them (never made anew for a
    // database that knows others).
    let secrets = termplane::keys::load_checked(
        &store,
        &cfg.data_dir,
        termplane::clock::Clock::now_ms(&*clock),
    )
    .await
    .map_err(|e| e.to_string())?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    // Without APP_BASE_URL, a plane on loopback is addressed as `localhost` (a passkey's
    // relying-party id cannot be an IP address); the literal address stays a trusted origin.
    let mut extra_origins = cfg.trusted_origins.clone();
    let base_url = match &cfg.app_base_url {
        Some(u) => u.clone(),
        None if local.ip().is_loopback() => {
            extra_origins.push(format!("http://{local}"));
            format!("http://localhost:{}", local.port())
        }
        // Every address: no one can browse to `0.0.0.0`, and a browser on another machine
        // sends an origin the plane cannot guess. This host's browser works; the others need
        // the address they use set as the plane's.
        None if local.ip().is_unspecified() => {
            tracing::warn!(
                "listening on every address ({local}) with no APP_BASE_URL: set APP_BASE_URL to \
                 the address people and nodes reach this plane at (http://<host>:{port}); until \
                 then only a browser on this host can sign in, and the enroll command it shows \
                 names localhost",
                port = local.port()
            );
            extra_origins.push(format!("http://127.0.0.1:{}", local.port()));
            format!("http://localhost:{}", local.port())
        }
        None => format!("http://{local}"),
    };
    let settings = Settings {
        base_url: base_url.clone(),
        extra_origins,
        downloads_dir: cfg.downloads_dir.clone(),
        listen: Some(local.to_string()),
        data_dir: Some(cfg.data_dir.clone()),
        push_http: cfg.push_allow_http,
        push_private: cfg.push_allow_private,
        needs_you: cfg.needs_you,
        screen_signal: cfg.screen_signal,
        recording: cfg.recording,
        input_marks: cfg.input_marks,
        recording_retention_days: cfg.recording_retention_days,
        cluster_address: cfg.cluster_address.clone(),
        // Alone, the instance lock above: no other plane runs on this database.
        shares_database: cfg.cluster,
        max_node_links: cfg.max_node_links,
    };
    let svc = Services::new(store.clone(), clock, settings, secrets)
        .await
        .map_err(|e| e.to_string())?;
    svc.health()
        .attach_instance_lock(Arc::new(termplane::instance::SharedLock(lock.clone())));
    svc.health().spawn_metrics_upkeep();
    svc.health().spawn_readiness_watch(READINESS_EVERY);
    if let Err(e) = svc.files().sweep_files().await {
        tracing::warn!(code = e.code, "the kept files could not be swept");
    }
    if cfg.local_node && cfg.cluster {
        // The local node's row is one for the whole database, and each replica's host is
        // another: a pane launched there would be reachable only from the replica it ran on.
        tracing::info!(
            "a replica of a cluster runs no panes on its own host (no local node): enroll the              hosts that run panes as nodes"
        );
    } else if cfg.local_node {
        if let Err(e) =
            termplane::local::start(&svc, &cfg.data_dir, std::env::current_exe().ok()).await
        {
            tracing::warn!(
                "panes cannot run on this host (the local node): {e}; fix that and restart, \
                 or pass --no-local-node to silence this"
            );
        }
    } else {
        tracing::info!("the local node is off (--no-local-node): panes run on enrolled nodes only");
    }
    svc.node_reports().spawn_reconcile_sweep(RECONCILE_EVERY);
    svc.retention().spawn(RETENTION_EVERY);
    let cluster = svc.cluster().clone();
    svc.spawn_cluster_upkeep();
    let mut signals =
        async_signal::Signals::new([async_signal::Signal::Term, async_signal::Signal::Int])
            .map_err(|e| format!("cannot install signal handlers: {e}"))?;
    tracing::info!(listen = %local, data_dir = %cfg.data_dir.display(), database = ?store.backend(), "termplane started");
    println!("termplane is running: open {base_url}/");
    let opts = HttpOptions {
        body_limit: cfg.body_limit,
        drain_timeout: cfg.drain_timeout,
        panic_route: false,
        header_timeout: cfg.header_timeout,
        io_timeout: cfg.io_timeout,
        body_timeout: cfg.body_timeout,
        min_send_rate: cfg.min_send_rate,
        max_conns_per_ip: cfg.max_conns_per_ip,
        max_conns: cfg.max_conns,
        trusted_proxies: cfg.trusted_proxies.clone(),
    };
    let shutdown = async move {
        if let Some(sig) = signals.next().await {
            tracing::info!(signal = ?sig, "shutdown requested");
        }
    };
    if let Some(m) = metrics_listener {
        let addr = m.local_addr().map_err(|e| e.to_string())?;
        tracing::info!(listen = %addr, "metrics, health and readiness served without a credential");
        let svc = svc.clone();
        // Ends with the process; nothing there needs draining.
        std::thread::Builder::new()
            .name("metrics".into())
            .spawn(move || smol::block_on(http::serve_metrics(m, svc)))
            .map_err(|e| format!("cannot start the metrics listener: {e}"))?;
    }
    http::serve(listener, svc, opts, shutdown)
        .await
        .map_err(|e| e.to_string())?;
    if let Err(e) = cluster.leave().await {
        tracing::warn!(
            code = e.code,
            "this replica's row could not be removed from the cluster's membership; its lease lapses on its own"
        );
    }
    store.close().await;
    drop(lock);
    Ok(())
}

fn create_private_dir(dir: &std::path::Path) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot create data directory {}: {e}", dir.display()))
}

/// Warns when the data directory can be read by others: it holds the key files and the
/// database (password hashes, live setup keys). The files themselves are created 0600.
fn warn_if_exposed(dir: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::metadata(dir) {
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            tracing::warn!(
                data_dir = %dir.display(),
                mode = format!("{mode:o}"),
                "the data directory is readable by group or others; `chmod 700` it"
            );
        }
    }
}
