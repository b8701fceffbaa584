//! `termplane`: the control-plane binary.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use futures_lite::StreamExt;
use termplane::clock::SystemClock;
use termplane::config::{self, Command, Config};
use termplane::http::{self, HttpOptions};
use termplane::keys::PlaneSecrets;
use termplane::service::{Service, Settings};
use termplane::store::{Store, redact_url};

/// How often live subshell rows are checked against their nodes' panes.
const RECONCILE_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

fn main() -> ExitCode {
    termplane::local::keep_inherited_descriptors_to_ourselves();
    let args: Vec<String> = std::env::args().skip(1).collect();
    // The pane's MCP server on the plane's own host: a harness's stdio child.
    if args.first().map(String::as_str) == Some("mcp") {
        return termplane_mcp::stdio::main("termplane", &args[1..]);
    }
    let cfg = match config::parse(&args, &|k| std::env::var(k).ok()) {
        Ok(Command::Serve(c)) => *c,
        Ok(Command::Help) => {
            print!("{}", config::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Command::Version) => {
            println!("termplane {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Ok(Command::OpenApi { base_url }) => return print_openapi(base_url),
        Err(e) => {
            eprintln!("termplane: {e}");
            return ExitCode::from(2);
        }
    };
    // Colour only on a terminal: a log written to a file or a pipe stays plain text.
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_ansi(colour)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    match smol::block_on(run(cfg)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("termplane: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `termplane openapi`: the document a plane at `base_url` would serve, on stdout.
fn print_openapi(base_url: String) -> ExitCode {
    let settings = Settings {
        base_url,
        extra_origins: Vec::new(),
        downloads_dir: None,
        listen: None,
        data_dir: None,
        push_http: false,
        push_private: false,
    };
    let doc = http::openapi_document(&settings);
    // A closed pipe (`termplane openapi | head`) is an error to report, not a panic.
    let written = serde_json::to_string_pretty(&doc)
        .map_err(std::io::Error::from)
        .and_then(|text| writeln!(std::io::stdout().lock(), "{text}"));
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
    create_private_dir(&cfg.data_dir)?;
    warn_if_exposed(&cfg.data_dir);
    let secrets = PlaneSecrets::load_or_create(&cfg.data_dir).map_err(|e| e.to_string())?;
    let clock = Arc::new(SystemClock);
    let url = cfg.database_url();
    termplane::store::prepare_sqlite_file(&url)
        .map_err(|e| format!("cannot prepare the database file: {e}"))?;
    let store = Store::open(&url, termplane::clock::Clock::now_ms(&*clock))
        .await
        .map_err(|e| format!("cannot open database {}: {e}", redact_url(&url)))?;
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
        push_http: std::env::var("TERMPLANE_PUSH_ALLOW_HTTP").is_ok_and(|v| v == "1"),
        push_private: std::env::var("TERMPLANE_PUSH_ALLOW_PRIVATE").is_ok_and(|v| v == "1"),
    };
    let svc = Service::new(store.clone(), clock, settings, secrets)
        .await
        .map_err(|e| e.to_string())?;
    if let Err(e) = svc.sweep_files().await {
        tracing::warn!(code = e.code, "the kept files could not be swept");
    }
    if cfg.local_node {
        if let Err(e) = termplane::local::start(&svc, &cfg.data_dir).await {
            tracing::warn!(
                "panes cannot run on this host (the local node): {e}; install tmux and restart, \
                 or pass --no-local-node to silence this"
            );
        }
    } else {
        tracing::info!("the local node is off (--no-local-node): panes run on enrolled nodes only");
    }
    svc.spawn_reconcile_sweep(RECONCILE_EVERY);
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
    http::serve(listener, svc, opts, shutdown)
        .await
        .map_err(|e| e.to_string())?;
    store.close().await;
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
