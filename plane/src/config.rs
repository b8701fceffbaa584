//! The command line of `termplane` and the settings of a running plane.
//!
//! Every setting can be given three ways, and the first that is present wins:
//! **flag > environment variable > config file (`--config FILE`, TOML) > default**.
//!
//! | flag | environment | file key | default |
//! |---|---|---|---|
//! | `--config FILE` | `TERMPLANE_CONFIG` | — | none |
//! | `--listen ADDR:PORT` | `TERMPLANE_LISTEN` | `listen` | `127.0.0.1:7420` (loopback only) |
//! | `--data-dir DIR` | `TERMPLANE_DATA_DIR` | `data_dir` | `$XDG_DATA_HOME/termplane`, else `~/.local/share/termplane` |
//! | `--database-url URL` | `TERMPLANE_DATABASE_URL` | `database_url` | SQLite file `termplane.db` in the data directory |
//! | `--cluster on\|off` | `TERMPLANE_CLUSTER` | `cluster` (bool) | off: the plane holds its database alone (a lock); on, it is one replica of a cluster on one PostgreSQL database (refused on SQLite), taking its peers' connections (`termplane::service::peers`) |
//! | `--cluster-address URL` | `TERMPLANE_CLUSTER_ADDRESS` | `cluster_address` | the base URL: where the plane's peers on the same database reach it, registered in the cluster's membership (see `termplane::service::cluster`) |
//! | `--app-base-url URL` | `APP_BASE_URL` | `app_base_url` | `http://<listen address>`; `http://localhost:<port>` when listening on loopback or on every address (`0.0.0.0`, `[::]`: a warning says to set it) |
//! | `--trusted-origins LIST` | `TRUSTED_ORIGINS` | `trusted_origins` (array) | none (comma-separated extra origins) |
//! | `--trusted-proxies LIST` | `TRUSTED_PROXIES` | `trusted_proxies` (array) | none (addresses or CIDR ranges of reverse proxies whose `X-Forwarded-For` names the client) |
//! | `--node-downloads DIR` | `TERMPLANE_NODE_DOWNLOADS` | `node_downloads` | none: the `termplane-node` next to the plane's binary is served for the plane's own platform (a directory of `termplane-node-<os>-<arch>` files otherwise) |
//! | `--header-timeout-secs N` | `TERMPLANE_HEADER_TIMEOUT_SECS` | `header_timeout_secs` | 10 (request-head and keep-alive idle timeout) |
//! | `--io-timeout-secs N` | `TERMPLANE_IO_TIMEOUT_SECS` | `io_timeout_secs` | 10 (longest a body read or an answer write may make no progress) |
//! | `--body-timeout-secs N` | `TERMPLANE_BODY_TIMEOUT_SECS` | `body_timeout_secs` | 30 (time allowed for a whole request body) |
//! | `--min-send-rate N` | `TERMPLANE_MIN_SEND_RATE` | `min_send_rate` | 1024 (bytes per second an answer must at least be read at, and a request body must at least arrive at, on average once the I/O timeout has passed) |
//! | `--max-conns-per-ip N` | `TERMPLANE_MAX_CONNS_PER_IP` | `max_conns_per_ip` | 256 (open not-upgraded connections per client address that have shown no valid credential yet; a trusted proxy has none, only the cap in all) |
//! | `--max-conns N` | `TERMPLANE_MAX_CONNS` | `max_conns` | 2048 (open not-upgraded connections in all; an eighth is kept for addresses holding fewer than 8 and an eighth for requests with a valid credential, see `termplane::http`) |
//! | `--max-node-links N` | `TERMPLANE_MAX_NODE_LINKS` | `max_node_links` | 16384 (node sockets open at once, handshaking or linked; one more is answered 503 `PLANE_BUSY` with `Retry-After`; see `termplane::link`) |
//! | `--local-node on\|off`, `--no-local-node` | `TERMPLANE_LOCAL_NODE` | `local_node` (bool) | on: the plane runs panes on its own host (needs tmux); off, it only manages enrolled nodes |
//! | `--push-allow-http[=on\|off]` | `TERMPLANE_PUSH_ALLOW_HTTP` | `push_allow_http` (bool) | off: Web Push endpoints must be `https://` |
//! | `--push-allow-private[=on\|off]` | `TERMPLANE_PUSH_ALLOW_PRIVATE` | `push_allow_private` (bool) | off: pushes go only to addresses of the public internet |
//! | `--notify-hold-secs N` | `TERMPLANE_NOTIFY_HOLD_SECS` | `notify_hold_secs` | 10 (how long a pane must need its owner before they are told: see `termplane::service::needs_you`) |
//! | `--input-marks on\|off` | `TERMPLANE_INPUT_MARKS` | `input_marks` (bool) | on: who put input into a pane and when (never what: the keys are not kept) is marked beside its recording, for playback (`GET /api/subshells/{id}/recording/inputs`); off, nothing is marked from then on |
//! | `--recording on\|off` | `TERMPLANE_RECORDING` | `recording` (bool) | on: every pane launched (or restarted) from then on is recorded — its node keeps when each byte of its log was printed, and its grid, next to the log (`GET /api/subshells/{id}/recording/cast` exports it); off, panes are logged as before, with no timing (see `termplane_proto::recording`) |
//! | `--recording-retention-days N` | `TERMPLANE_RECORDING_RETENTION_DAYS` | `recording_retention_days` | none: a recording is kept as long as its pane (within its log's cap); N (1 to 3650): what a pane printed more than N days ago is deleted from its recording, and its input marks with it, unless its node or workspace says otherwise (see `termplane::service::subshells::Retention`) |
//! | `--screen-signal on\|off` | `TERMPLANE_SCREEN_SIGNAL` | `screen_signal` (bool) | on: nodes (and the plane's own host) send the plane their panes' screens when they go quiet, and samples of those that keep printing, read for each agent's state (see `termplane::service::subshells::screen`); off, no screen leaves a node for this and agents' states come from their hooks and reports only |
//! | `--notify-window-secs N` | `TERMPLANE_NOTIFY_WINDOW_SECS` | `notify_window_secs` | 120 (at most one notification per pane in this long; the needs between are coalesced into the next) |
//! | `--metrics-listen ADDR:PORT` | `TERMPLANE_METRICS_LISTEN` | `metrics_listen` | none: `/metrics` is served on the main address to a system key only |
//! | `--log-format text\|json` | `TERMPLANE_LOG_FORMAT` | `log_format` | `text` |
//! | `--log-filter FILTER` | `RUST_LOG` | `log_filter` | `info` |
//!
//! A boolean in the environment or after `=` is one of `on`/`off`, `true`/`false`, `1`/`0`,
//! `yes`/`no`. A key the file does not know is refused (a misspelt key would otherwise be
//! silently ignored), as is a value of the wrong type; the message names the file and the key.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Deserialize;

/// The default listen address: loopback, port 7420.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7420";
/// What a plane on [`DEFAULT_LISTEN`] with no `APP_BASE_URL` calls itself.
const DEFAULT_BASE_URL: &str = "http://localhost:7420";
/// The default request-body limit (1 MiB).
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;

/// `termplane`: the command line.
#[derive(Debug, Parser)]
#[command(
    name = "termplane",
    version,
    about = "termplane — the termplane control plane",
    long_about = "termplane — the termplane control plane.\n\nSettings come from flags, then \
                  the environment, then the config file (--config), then defaults; \
                  `termplane <command> --help` lists each command's.",
    arg_required_else_help = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Cmd,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Run the control plane.
    Serve(Box<SettingsArgs>),
    /// Install, remove or show the plane's systemd unit.
    Service {
        /// The action.
        #[command(subcommand)]
        action: ServiceCmd,
    },
    /// Write a consistent copy of the database (SQLite) and the data directory's key files
    /// and kept files into one archive, while the plane runs.
    Backup {
        /// The archive to write (a tar file; refused if it exists).
        file: PathBuf,
        /// Where the data is.
        #[command(flatten)]
        settings: Box<SettingsArgs>,
    },
    /// Restore an archive made by `backup` into an empty data directory (and, for SQLite, its
    /// database file), refusing one that holds anything or that a running plane holds.
    Restore {
        /// The archive to read.
        file: PathBuf,
        /// Where to restore to.
        #[command(flatten)]
        settings: Box<SettingsArgs>,
    },
    /// Print the REST API's OpenAPI document as a plane at the base URL serves it at
    /// `/api/openapi.json` (for generating clients without a running plane).
    Openapi {
        /// The address the document names as its server (default `http://localhost:7420`,
        /// what a plane on the default listen address calls itself).
        #[arg(long, env = "APP_BASE_URL", value_name = "URL", default_value = DEFAULT_BASE_URL, value_parser = base_url_arg)]
        app_base_url: String,
        /// Describe a plane that takes plain http:// Web Push endpoints (as `serve` does).
        #[arg(long, env = "TERMPLANE_PUSH_ALLOW_HTTP", value_name = "on|off", value_parser = on_off,
              num_args = 0..=1, require_equals = true, default_missing_value = "on", default_value = "off")]
        push_allow_http: bool,
        /// Describe a plane that takes Web Push endpoints on loopback or private addresses.
        #[arg(long, env = "TERMPLANE_PUSH_ALLOW_PRIVATE", value_name = "on|off", value_parser = on_off,
              num_args = 0..=1, require_equals = true, default_missing_value = "on", default_value = "off")]
        push_allow_private: bool,
    },
    /// The pane's MCP server on the plane's own host (a harness starts it).
    Mcp {
        /// Its arguments (`--env-file PATH`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// `termplane service …`.
#[derive(Debug, Subcommand)]
pub enum ServiceCmd {
    /// Write the systemd unit, enable and start it.
    Install(Box<InstallArgs>),
    /// Stop, disable and remove the unit.
    Uninstall(UnitScope),
    /// Whether the unit is installed and running.
    Status(UnitScope),
}

/// Which systemd manager a unit belongs to.
#[derive(Clone, Copy, Debug, Args)]
pub struct UnitScope {
    /// A system unit (`/etc/systemd/system`, needs root) rather than a user unit
    /// (`~/.config/systemd/user`); the default is a system unit for root, a user unit
    /// otherwise.
    #[arg(long, conflicts_with = "user")]
    pub system: bool,
    /// A user unit.
    #[arg(long)]
    pub user: bool,
}

impl UnitScope {
    /// Whether this is a system unit, given whether the caller is root.
    #[must_use]
    pub fn is_system(self, root: bool) -> bool {
        if self.system {
            true
        } else if self.user {
            false
        } else {
            root
        }
    }
}

/// `termplane service install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Which manager.
    #[command(flatten)]
    pub scope: UnitScope,
    /// The account a system unit runs as (`User=`); default: the one that ran `sudo`, else
    /// `termplane`.
    #[arg(long, value_name = "NAME")]
    pub run_as: Option<String>,
    /// Write the unit and print it, but neither enable nor start it.
    #[arg(long)]
    pub no_start: bool,
    /// Where to write the unit instead of the manager's directory (implies `--no-start`).
    #[arg(long, value_name = "FILE")]
    pub unit_file: Option<PathBuf>,
    /// The settings the unit's `termplane serve` runs with. The config file, made absolute,
    /// goes into the unit's command, and so do the data directory and the local node's switch
    /// when they do not come from that file (they decide the unit's hardening). Other settings
    /// given here are not carried into the unit: put them in the config file.
    #[command(flatten)]
    pub settings: SettingsArgs,
}

/// A boolean as the environment or a flag's value spells it.
fn on_off(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "on" | "1" | "true" | "yes" => Ok(true),
        "off" | "0" | "false" | "no" => Ok(false),
        other => Err(format!("wants on or off, got `{other}`")),
    }
}

/// A base URL: http or https, without its trailing slash.
fn base_url_arg(s: &str) -> Result<String, String> {
    let u = s.trim().trim_end_matches('/');
    if u.starts_with("http://") || u.starts_with("https://") {
        Ok(u.to_owned())
    } else {
        Err(format!("wants an http:// or https:// URL, got `{u}`"))
    }
}

/// A whole number above zero.
fn positive(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("wants a positive integer, got `{s}`")),
    }
}

fn retention_days(s: &str) -> Result<u16, String> {
    match s.trim().parse::<u16>() {
        Ok(n) if (1..=crate::api::catalog::MAX_RETENTION_DAYS).contains(&n) => Ok(n),
        _ => Err(format!("wants a number of days from 1 to 3650, got `{s}`")),
    }
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable text (coloured on a terminal).
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// The settings flags (each also read from its environment variable), shared by every
/// subcommand that reads the plane's settings.
#[derive(Clone, Debug, Default, Args)]
pub struct SettingsArgs {
    /// A TOML config file (keys as in the reference; unknown keys are refused).
    #[arg(long, env = "TERMPLANE_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Address to listen on [default: 127.0.0.1:7420].
    #[arg(long, env = "TERMPLANE_LISTEN", value_name = "ADDR:PORT")]
    pub listen: Option<String>,
    /// Data directory: key files, the SQLite database, kept files [default:
    /// $XDG_DATA_HOME/termplane or ~/.local/share/termplane].
    #[arg(long, env = "TERMPLANE_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Database URL: `sqlite://PATH` or `postgres://…` [default: termplane.db in the data
    /// directory].
    #[arg(long, env = "TERMPLANE_DATABASE_URL", value_name = "URL")]
    pub database_url: Option<String>,
    /// The public address of the plane (https enables Secure cookies).
    #[arg(long, env = "APP_BASE_URL", value_name = "URL")]
    pub app_base_url: Option<String>,
    /// Where the plane's peers on the same database reach it [default: the base URL].
    #[arg(long, env = "TERMPLANE_CLUSTER_ADDRESS", value_name = "URL")]
    pub cluster_address: Option<String>,
    /// A replica of a cluster: other planes run on the same PostgreSQL database, and commands,
    /// terminals and output for a node another replica holds are forwarded to it [default:
    /// off: the plane holds its database alone].
    #[arg(long, env = "TERMPLANE_CLUSTER", value_name = "on|off", value_parser = on_off)]
    pub cluster: Option<bool>,
    /// Extra origins allowed to send browser requests (comma-separated).
    #[arg(
        long,
        env = "TRUSTED_ORIGINS",
        value_name = "LIST",
        value_delimiter = ','
    )]
    pub trusted_origins: Option<Vec<String>>,
    /// Reverse proxies whose X-Forwarded-For names the client: addresses or CIDR ranges
    /// (comma-separated).
    #[arg(
        long,
        env = "TRUSTED_PROXIES",
        value_name = "LIST",
        value_delimiter = ','
    )]
    pub trusted_proxies: Option<Vec<String>>,
    /// A directory of termplane-node-<os>-<arch> binaries to serve.
    #[arg(long, env = "TERMPLANE_NODE_DOWNLOADS", value_name = "DIR")]
    pub node_downloads: Option<PathBuf>,
    /// Seconds a request head (and a keep-alive connection's next one) may take [default: 10].
    #[arg(long, env = "TERMPLANE_HEADER_TIMEOUT_SECS", value_name = "N", value_parser = positive)]
    pub header_timeout_secs: Option<u64>,
    /// Seconds a body read or an answer write may make no progress [default: 10].
    #[arg(long, env = "TERMPLANE_IO_TIMEOUT_SECS", value_name = "N", value_parser = positive)]
    pub io_timeout_secs: Option<u64>,
    /// Seconds allowed for a whole request body [default: 30].
    #[arg(long, env = "TERMPLANE_BODY_TIMEOUT_SECS", value_name = "N", value_parser = positive)]
    pub body_timeout_secs: Option<u64>,
    /// Bytes per second an answer must at least be read at [default: 1024].
    #[arg(long, env = "TERMPLANE_MIN_SEND_RATE", value_name = "N", value_parser = positive)]
    pub min_send_rate: Option<u64>,
    /// Open not-upgraded connections per client address (a connection over a cap is answered
    /// 503 PLANE_BUSY) [default: 256].
    #[arg(long, env = "TERMPLANE_MAX_CONNS_PER_IP", value_name = "N", value_parser = positive)]
    pub max_conns_per_ip: Option<u64>,
    /// Open not-upgraded connections in all [default: 2048].
    #[arg(long, env = "TERMPLANE_MAX_CONNS", value_name = "N", value_parser = positive)]
    pub max_conns: Option<u64>,
    /// Node sockets open at once, handshaking or linked [default: 16384].
    #[arg(long, env = "TERMPLANE_MAX_NODE_LINKS", value_name = "N", value_parser = positive)]
    pub max_node_links: Option<u64>,
    /// Run panes on this host (needs tmux) [default: on].
    #[arg(long, env = "TERMPLANE_LOCAL_NODE", value_name = "on|off", value_parser = on_off)]
    pub local_node: Option<bool>,
    /// The same as `--local-node off`.
    #[arg(long, conflicts_with = "local_node")]
    pub no_local_node: bool,
    /// Web Push endpoints may be plain http:// [default: off].
    #[arg(long, env = "TERMPLANE_PUSH_ALLOW_HTTP", value_name = "on|off", value_parser = on_off,
          num_args = 0..=1, require_equals = true, default_missing_value = "on")]
    pub push_allow_http: Option<bool>,
    /// Web Push endpoints may be on loopback or private addresses [default: off].
    #[arg(long, env = "TERMPLANE_PUSH_ALLOW_PRIVATE", value_name = "on|off", value_parser = on_off,
          num_args = 0..=1, require_equals = true, default_missing_value = "on")]
    pub push_allow_private: Option<bool>,
    /// Seconds a pane must need its owner before they are told [default: 10].
    #[arg(long, env = "TERMPLANE_NOTIFY_HOLD_SECS", value_name = "N", value_parser = positive)]
    pub notify_hold_secs: Option<u64>,
    /// Nodes send their panes' screens to be read for each agent's state [default: on].
    #[arg(long, env = "TERMPLANE_SCREEN_SIGNAL", value_name = "on|off", value_parser = on_off)]
    pub screen_signal: Option<bool>,
    /// Panes launched from now on are recorded, their output's timing kept on their node
    /// [default: on].
    #[arg(long, env = "TERMPLANE_RECORDING", value_name = "on|off", value_parser = on_off)]
    pub recording: Option<bool>,
    /// Days recordings are kept where no node or workspace says (1 to 3650)
    /// [default: as long as their pane].
    #[arg(long, env = "TERMPLANE_RECORDING_RETENTION_DAYS", value_name = "N", value_parser = retention_days)]
    pub recording_retention_days: Option<u16>,
    /// Who put input into a pane, and when (never what), is marked beside its recording
    /// [default: on].
    #[arg(long, env = "TERMPLANE_INPUT_MARKS", value_name = "on|off", value_parser = on_off)]
    pub input_marks: Option<bool>,
    /// At most one notification per pane in this many seconds [default: 120].
    #[arg(long, env = "TERMPLANE_NOTIFY_WINDOW_SECS", value_name = "N", value_parser = positive)]
    pub notify_window_secs: Option<u64>,
    /// A second address serving /metrics, /healthz and /readyz with no credential (for a
    /// Prometheus on a private network) [default: none: /metrics on the main address needs a
    /// system key].
    #[arg(long, env = "TERMPLANE_METRICS_LISTEN", value_name = "ADDR:PORT")]
    pub metrics_listen: Option<String>,
    /// Log lines as text or one JSON object per line [default: text].
    #[arg(long, env = "TERMPLANE_LOG_FORMAT", value_name = "FORMAT")]
    pub log_format: Option<LogFormat>,
    /// Which log lines to write: a level (`info`) or per-module directives
    /// (`info,termplane::link=debug`) [default: info].
    #[arg(long, env = "RUST_LOG", value_name = "FILTER")]
    pub log_filter: Option<String>,
}

/// The config file: every key optional, none unknown.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSettings {
    /// `listen`.
    pub listen: Option<String>,
    /// `data_dir`.
    pub data_dir: Option<PathBuf>,
    /// `database_url`.
    pub database_url: Option<String>,
    /// `app_base_url`.
    pub app_base_url: Option<String>,
    /// `cluster_address`.
    pub cluster_address: Option<String>,
    /// `cluster`.
    pub cluster: Option<bool>,
    /// `trusted_origins`.
    pub trusted_origins: Option<Vec<String>>,
    /// `trusted_proxies`.
    pub trusted_proxies: Option<Vec<String>>,
    /// `node_downloads`.
    pub node_downloads: Option<PathBuf>,
    /// `header_timeout_secs`.
    pub header_timeout_secs: Option<u64>,
    /// `io_timeout_secs`.
    pub io_timeout_secs: Option<u64>,
    /// `body_timeout_secs`.
    pub body_timeout_secs: Option<u64>,
    /// `min_send_rate`.
    pub min_send_rate: Option<u64>,
    /// `max_conns_per_ip`.
    pub max_conns_per_ip: Option<u64>,
    /// `max_conns`.
    pub max_conns: Option<u64>,
    /// `max_node_links`.
    pub max_node_links: Option<u64>,
    /// `local_node`.
    pub local_node: Option<bool>,
    /// `push_allow_http`.
    pub push_allow_http: Option<bool>,
    /// `push_allow_private`.
    pub push_allow_private: Option<bool>,
    /// `notify_hold_secs`.
    pub notify_hold_secs: Option<u64>,
    /// `notify_window_secs`.
    pub notify_window_secs: Option<u64>,
    /// `screen_signal`.
    pub screen_signal: Option<bool>,
    /// `recording`.
    pub recording: Option<bool>,
    /// `recording_retention_days`.
    pub recording_retention_days: Option<u16>,
    /// `input_marks`.
    pub input_marks: Option<bool>,
    /// `metrics_listen`.
    pub metrics_listen: Option<String>,
    /// `log_format`.
    pub log_format: Option<LogFormat>,
    /// `log_filter`.
    pub log_filter: Option<String>,
}

impl FileSettings {
    /// Reads and parses `path`; unknown keys and wrong types are errors naming the file.
    pub fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read config file {}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("config file {}: {e}", path.display()))
    }

    /// Parses the text of a config file.
    pub fn parse(text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|e| e.to_string().trim_end().to_owned())
    }
}

/// Settings of a running plane.
#[derive(Clone, Debug)]
pub struct Config {
    /// The config file the settings were read from, if any.
    pub config_file: Option<PathBuf>,
    /// Where to listen.
    pub listen: SocketAddr,
    /// Data directory (key files, SQLite database).
    pub data_dir: PathBuf,
    /// Database URL; `None` means the SQLite file in the data directory.
    pub database_url: Option<String>,
    /// Public base URL (`APP_BASE_URL`).
    pub app_base_url: Option<String>,
    /// Where the plane's peers reach it (`TERMPLANE_CLUSTER_ADDRESS`).
    pub cluster_address: Option<String>,
    /// A replica of a cluster on one PostgreSQL database (`TERMPLANE_CLUSTER`).
    pub cluster: bool,
    /// Extra trusted origins (`TRUSTED_ORIGINS`).
    pub trusted_origins: Vec<String>,
    /// Largest request body accepted (413 above it).
    pub body_limit: usize,
    /// How long shutdown waits for requests in flight.
    pub drain_timeout: Duration,
    /// Request-head (slowloris) and keep-alive idle timeout.
    pub header_timeout: Duration,
    /// Longest a body read or an answer write may make no progress.
    pub io_timeout: Duration,
    /// Time allowed for a whole request body.
    pub body_timeout: Duration,
    /// Slowest average rate an answer may be read at (bytes per second).
    pub min_send_rate: u64,
    /// Reverse proxies whose `X-Forwarded-For` names the client (`TRUSTED_PROXIES`).
    pub trusted_proxies: Vec<crate::net::Cidr>,
    /// Directory of node binaries to serve (`TERMPLANE_NODE_DOWNLOADS`).
    pub downloads_dir: Option<PathBuf>,
    /// Most open not-upgraded connections per client address.
    pub max_conns_per_ip: usize,
    /// Most open not-upgraded connections in all.
    pub max_conns: usize,
    /// Most node sockets open at once.
    pub max_node_links: usize,
    /// Whether panes run on the plane's own host (the local node).
    pub local_node: bool,
    /// Whether Web Push endpoints may be plain `http://`.
    pub push_allow_http: bool,
    /// Whether Web Push endpoints may be on private addresses.
    pub push_allow_private: bool,
    /// The timing of the "needs you" notifications.
    pub needs_you: crate::service::needs_you::Rules,
    /// Whether nodes send their panes' screens for the screen signal.
    pub screen_signal: bool,
    /// Whether panes are recorded.
    pub recording: bool,
    /// Days recordings are kept where no node or workspace says.
    pub recording_retention_days: Option<u16>,
    /// Whether input into panes is marked.
    pub input_marks: bool,
    /// A second, open address for `/metrics`, `/healthz` and `/readyz`.
    pub metrics_listen: Option<SocketAddr>,
    /// How log lines are written.
    pub log_format: LogFormat,
    /// The log filter (`RUST_LOG`'s syntax).
    pub log_filter: String,
}

impl Config {
    /// The database URL in effect.
    #[must_use]
    pub fn database_url(&self) -> String {
        self.database_url.clone().unwrap_or_else(|| {
            format!(
                "sqlite://{}?mode=rwc",
                self.data_dir.join("termplane.db").display()
            )
        })
    }
}

fn address(flag: &str, text: &str) -> Result<SocketAddr, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{flag} wants ADDR:PORT (such as 127.0.0.1:7420), got `{text}`"))
}

fn cleaned(list: Vec<String>) -> Vec<String> {
    list.iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

impl SettingsArgs {
    /// The settings in effect: these flags (and environment variables), then the config file
    /// they name, then defaults. `env` is the environment (for `HOME`/`XDG_DATA_HOME`).
    pub fn resolve(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<Config, String> {
        let file = match &self.config {
            Some(p) => FileSettings::read(p)?,
            None => FileSettings::default(),
        };
        self.resolve_with(file, env)
    }

    /// [`Self::resolve`] with the file already read.
    pub fn resolve_with(
        &self,
        f: FileSettings,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, String> {
        let a = self;
        let listen_text = a
            .listen
            .clone()
            .or(f.listen)
            .unwrap_or_else(|| DEFAULT_LISTEN.to_owned());
        let listen = address("--listen", &listen_text)?;
        let data_dir = match a.data_dir.clone().or(f.data_dir) {
            Some(d) => d,
            None => default_data_dir(env).ok_or(
                "cannot find a data directory: set --data-dir, TERMPLANE_DATA_DIR, data_dir in \
                 the config file, XDG_DATA_HOME or HOME",
            )?,
        };
        let app_base_url = a
            .app_base_url
            .clone()
            .or(f.app_base_url)
            .map(|s| s.trim().trim_end_matches('/').to_owned())
            .filter(|s| !s.is_empty());
        if let Some(u) = &app_base_url
            && !(u.starts_with("http://") || u.starts_with("https://"))
        {
            return Err(format!(
                "APP_BASE_URL must start with http:// or https://, got `{u}`"
            ));
        }
        let trusted_origins = cleaned(
            a.trusted_origins
                .clone()
                .or(f.trusted_origins)
                .unwrap_or_default(),
        );
        let trusted_proxies = cleaned(
            a.trusted_proxies
                .clone()
                .or(f.trusted_proxies)
                .unwrap_or_default(),
        )
        .iter()
        .map(|s| crate::net::Cidr::parse(s))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("TRUSTED_PROXIES: {e}"))?;
        let number =
            |flag: Option<u64>, file: Option<u64>, key: &str, default: u64| match flag.or(file) {
                None => Ok(default),
                Some(0) => Err(format!("{key} must be a positive integer, got 0")),
                Some(n) => Ok(n),
            };
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let local_node = if a.no_local_node {
            false
        } else {
            a.local_node.or(f.local_node).unwrap_or(true)
        };
        let metrics_listen = a
            .metrics_listen
            .clone()
            .or(f.metrics_listen)
            .map(|t| address("--metrics-listen", &t))
            .transpose()?;
        let log_filter = a
            .log_filter
            .clone()
            .or(f.log_filter)
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| "info".to_owned());
        tracing_subscriber::EnvFilter::try_new(&log_filter)
            .map_err(|e| format!("log filter `{log_filter}`: {e}"))?;
        Ok(Config {
            config_file: a.config.clone(),
            listen,
            data_dir,
            database_url: a
                .database_url
                .clone()
                .or(f.database_url)
                .filter(|s| !s.is_empty()),
            app_base_url,
            cluster_address: a
                .cluster_address
                .clone()
                .or(f.cluster_address)
                .map(|s| s.trim().trim_end_matches('/').to_owned())
                .filter(|s| !s.is_empty()),
            cluster: a.cluster.or(f.cluster).unwrap_or(false),
            trusted_origins,
            body_limit: DEFAULT_BODY_LIMIT,
            drain_timeout: Duration::from_secs(10),
            header_timeout: Duration::from_secs(number(
                a.header_timeout_secs,
                f.header_timeout_secs,
                "header_timeout_secs",
                10,
            )?),
            io_timeout: Duration::from_secs(number(
                a.io_timeout_secs,
                f.io_timeout_secs,
                "io_timeout_secs",
                10,
            )?),
            body_timeout: Duration::from_secs(number(
                a.body_timeout_secs,
                f.body_timeout_secs,
                "body_timeout_secs",
                30,
            )?),
            min_send_rate: number(a.min_send_rate, f.min_send_rate, "min_send_rate", 1024)?,
            trusted_proxies,
            downloads_dir: a
                .node_downloads
                .clone()
                .or(f.node_downloads)
                .filter(|p| !p.as_os_str().is_empty()),
            max_conns_per_ip: count(number(
                a.max_conns_per_ip,
                f.max_conns_per_ip,
                "max_conns_per_ip",
                256,
            )?),
            max_conns: count(number(a.max_conns, f.max_conns, "max_conns", 2048)?),
            max_node_links: count(number(
                a.max_node_links,
                f.max_node_links,
                "max_node_links",
                u64::try_from(crate::link::MAX_NODE_SOCKETS).unwrap_or(u64::MAX),
            )?),
            local_node,
            push_allow_http: a.push_allow_http.or(f.push_allow_http).unwrap_or(false),
            push_allow_private: a
                .push_allow_private
                .or(f.push_allow_private)
                .unwrap_or(false),
            screen_signal: a.screen_signal.or(f.screen_signal).unwrap_or(true),
            recording: a.recording.or(f.recording).unwrap_or(true),
            recording_retention_days: match a
                .recording_retention_days
                .or(f.recording_retention_days)
            {
                Some(d) => Some(
                    retention_days(&d.to_string())
                        .map_err(|e| format!("recording_retention_days {e}"))?,
                ),
                None => None,
            },
            input_marks: a.input_marks.or(f.input_marks).unwrap_or(true),
            needs_you: crate::service::needs_you::Rules {
                hold_ms: number(
                    a.notify_hold_secs,
                    f.notify_hold_secs,
                    "notify_hold_secs",
                    10,
                )?
                .saturating_mul(1000),
                window_ms: number(
                    a.notify_window_secs,
                    f.notify_window_secs,
                    "notify_window_secs",
                    120,
                )?
                .saturating_mul(1000),
            },
            metrics_listen,
            log_format: a.log_format.or(f.log_format).unwrap_or_default(),
            log_filter,
        })
    }
}

/// Parses the command line (`args` with the program name first); the environment is read
/// through clap for the flags' variables and through `env` for the defaults.
pub fn parse_cli<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    Cli::try_parse_from(args)
}

fn default_data_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(x) = env("XDG_DATA_HOME").filter(|s| s.starts_with('/')) {
        return Some(PathBuf::from(x).join("termplane"));
    }
    env("HOME")
        .filter(|s| !s.is_empty())
        .map(|h| PathBuf::from(h).join(".local/share/termplane"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    /// The settings of `termplane serve ARGS` with the config file text `file` (none when
    /// empty). The flags' environment variables are clap's to read, so these tests give
    /// settings as flags; environment precedence is tested on the binary.
    fn serve(args: &[&str], file: &str, env: &[(&str, &str)]) -> Result<Config, String> {
        let mut argv = vec!["termplane", "serve"];
        argv.extend_from_slice(args);
        let cli = parse_cli(argv).map_err(|e| e.to_string())?;
        let Cmd::Serve(s) = cli.command else {
            panic!("not serve")
        };
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let file = FileSettings::parse(file)?;
        s.resolve_with(file, &|k| {
            env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn defaults_are_loopback_and_per_user_data_dir() {
        let c = serve(&[], "", &[("HOME", "/home/u")]).unwrap();
        assert_eq!(c.listen.to_string(), "127.0.0.1:7420");
        assert_eq!(c.data_dir, PathBuf::from("/home/u/.local/share/termplane"));
        assert_eq!(
            c.database_url(),
            "sqlite:///home/u/.local/share/termplane/termplane.db?mode=rwc"
        );
        assert!(c.local_node);
        assert!(c.screen_signal);
        assert!(c.recording);
        assert_eq!(c.recording_retention_days, None);
        assert!(c.input_marks);
        assert_eq!(c.log_format, LogFormat::Text);
        assert_eq!(c.log_filter, "info");
        assert!(c.metrics_listen.is_none());
        let c = serve(&[], "", &[("HOME", "/home/u"), ("XDG_DATA_HOME", "/x")]).unwrap();
        assert_eq!(c.data_dir, PathBuf::from("/x/termplane"));
    }

    #[test]
    fn a_flag_beats_the_file_and_the_file_beats_the_default() {
        let file = r#"
            listen = "127.0.0.1:1"
            data_dir = "/from-file"
            database_url = "postgres://a@b/c"
            trusted_origins = ["https://a.example", " https://b.example "]
            trusted_proxies = ["10.0.0.0/8"]
            header_timeout_secs = 3
            max_conns = 9
            max_node_links = 20000
            local_node = false
            screen_signal = false
            recording = false
            recording_retention_days = 30
            input_marks = false
            push_allow_http = true
            metrics_listen = "127.0.0.1:9464"
            log_format = "json"
            log_filter = "debug"
            app_base_url = "https://p.example/"
        "#;
        let c = serve(&[], file, &[]).unwrap();
        assert_eq!(c.listen.port(), 1);
        assert_eq!(c.data_dir, PathBuf::from("/from-file"));
        assert_eq!(c.database_url(), "postgres://a@b/c");
        assert_eq!(
            c.trusted_origins,
            vec!["https://a.example", "https://b.example"]
        );
        assert_eq!(c.trusted_proxies.len(), 1);
        assert_eq!(c.header_timeout, Duration::from_secs(3));
        assert_eq!(c.io_timeout, Duration::from_secs(10));
        assert_eq!(c.max_conns, 9);
        assert_eq!(c.max_node_links, 20_000);
        assert!(!c.local_node);
        assert!(!c.screen_signal);
        assert!(!c.recording);
        assert_eq!(c.recording_retention_days, Some(30));
        assert!(!c.input_marks);
        assert!(c.push_allow_http);
        assert!(!c.push_allow_private);
        assert_eq!(c.metrics_listen.unwrap().port(), 9464);
        assert_eq!(c.log_format, LogFormat::Json);
        assert_eq!(c.app_base_url.as_deref(), Some("https://p.example"));
        let c = serve(
            &[
                "--listen=0.0.0.0:9000",
                "--data-dir",
                "/flag",
                "--local-node",
                "on",
                "--screen-signal",
                "on",
                "--recording",
                "on",
                "--recording-retention-days",
                "7",
                "--input-marks",
                "on",
                "--push-allow-http=off",
                "--log-format",
                "text",
                "--max-conns",
                "11",
                "--max-node-links",
                "3",
            ],
            file,
            &[],
        )
        .unwrap();
        assert_eq!(c.listen.to_string(), "0.0.0.0:9000");
        assert_eq!(c.data_dir, PathBuf::from("/flag"));
        assert!(c.local_node);
        assert!(c.screen_signal);
        assert!(c.recording);
        assert_eq!(c.recording_retention_days, Some(7));
        assert!(c.input_marks);
        assert!(!c.push_allow_http);
        assert_eq!(c.log_format, LogFormat::Text);
        assert_eq!(c.max_conns, 11);
        assert_eq!(c.max_node_links, 3);
        // What the flags left alone still comes from the file.
        assert_eq!(c.header_timeout, Duration::from_secs(3));
        let c = serve(
            &["--no-local-node", "--push-allow-private"],
            "",
            &[("HOME", "/h")],
        )
        .unwrap();
        assert!(!c.local_node);
        assert!(c.push_allow_private);
    }

    #[test]
    fn unknown_keys_and_wrong_types_in_the_file_are_refused_by_name() {
        let e = serve(&[], "listen = \"127.0.0.1:1\"\nlisen = \"x\"\n", &[]).unwrap_err();
        assert!(e.contains("unknown field `lisen`"), "{e}");
        let e = serve(&[], "max_conns = \"many\"\n", &[]).unwrap_err();
        assert!(e.contains("max_conns"), "{e}");
        let e = serve(&[], "local_node = \"sometimes\"\n", &[]).unwrap_err();
        assert!(e.contains("local_node"), "{e}");
        let e = serve(&[], "max_conns = 0\n", &[("HOME", "/h")]).unwrap_err();
        assert!(e.contains("max_conns must be a positive integer"), "{e}");
    }

    #[test]
    fn bad_input_is_an_error() {
        let home = [("HOME", "/h")];
        assert!(serve(&["--listen", "nope"], "", &home).is_err());
        assert!(serve(&["--bogus"], "", &home).is_err());
        assert!(serve(&["--listen"], "", &home).is_err());
        assert!(serve(&["--local-node", "maybe"], "", &home).is_err());
        assert!(serve(&["--app-base-url", "ftp://x"], "", &home).is_err());
        assert!(serve(&["--trusted-proxies", "10.0.0.0/40"], "", &home).is_err());
        assert!(serve(&["--log-filter", "info,[=("], "", &home).is_err());
        assert!(serve(&["--metrics-listen", "here"], "", &home).is_err());
        assert!(parse_cli(["termplane"]).is_err());
        assert!(parse_cli(["termplane", "nonsense"]).is_err());
    }

    #[test]
    fn each_subcommand_has_its_own_help() {
        for (argv, says) in [
            (vec!["termplane", "serve", "--help"], "--metrics-listen"),
            (vec!["termplane", "backup", "--help"], "<FILE>"),
            (vec!["termplane", "restore", "--help"], "<FILE>"),
            (
                vec!["termplane", "service", "install", "--help"],
                "--run-as",
            ),
            (vec!["termplane", "service", "--help"], "uninstall"),
        ] {
            let e = parse_cli(argv.clone()).unwrap_err();
            assert_eq!(e.kind(), clap::error::ErrorKind::DisplayHelp, "{argv:?}");
            let text = e.to_string();
            assert!(text.contains(says), "{argv:?}: {text}");
        }
    }

    #[test]
    fn openapi_names_the_base_url_a_plane_here_would_have() {
        let base = |argv: &[&str]| match parse_cli(argv.iter().copied()) {
            Ok(Cli {
                command: Cmd::Openapi { app_base_url, .. },
            }) => Ok(app_base_url),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.kind()),
        };
        // The process's own APP_BASE_URL would change the default; a test run has none.
        if std::env::var_os("APP_BASE_URL").is_none() {
            assert_eq!(
                base(&["termplane", "openapi"]).as_deref(),
                Ok("http://localhost:7420")
            );
        }
        assert_eq!(
            base(&[
                "termplane",
                "openapi",
                "--app-base-url",
                "https://p.example/"
            ])
            .as_deref(),
            Ok("https://p.example")
        );
        assert!(base(&["termplane", "openapi", "--app-base-url", "ftp://x"]).is_err());
        assert!(base(&["termplane", "openapi", "extra"]).is_err());
    }
}
