//! Configuration of `termplane serve`, from flags and the environment (flags win), and the
//! other commands (`termplane openapi` reads only `APP_BASE_URL`).
//!
//! | flag | environment | default |
//! |---|---|---|
//! | `--listen ADDR:PORT` | `TERMPLANE_LISTEN` | `127.0.0.1:7420` (loopback only) |
//! | `--data-dir DIR` | `TERMPLANE_DATA_DIR` | `$XDG_DATA_HOME/termplane`, else `~/.local/share/termplane` |
//! | `--database-url URL` | `TERMPLANE_DATABASE_URL` | SQLite file `termplane.db` in the data directory |
//! | — | `APP_BASE_URL` | `http://<listen address>`; `http://localhost:<port>` when listening on loopback or on every address (`0.0.0.0`, `[::]`: a warning says to set it) |
//! | — | `TRUSTED_ORIGINS` | none (comma-separated extra origins) |
//! | — | `TERMPLANE_NODE_DOWNLOADS` | none: the `termplane-node` next to the plane's binary is served for the plane's own platform (a directory of `termplane-node-<os>-<arch>` files otherwise) |
//! | — | `TRUSTED_PROXIES` | none (comma-separated addresses or CIDR ranges of reverse proxies whose `X-Forwarded-For` names the client) |
//! | — | `TERMPLANE_HEADER_TIMEOUT_SECS` | 10 (request-head and keep-alive idle timeout) |
//! | — | `TERMPLANE_IO_TIMEOUT_SECS` | 10 (longest a body read or an answer write may make no progress) |
//! | — | `TERMPLANE_BODY_TIMEOUT_SECS` | 30 (time allowed for a whole request body) |
//! | — | `TERMPLANE_MIN_SEND_RATE` | 1024 (bytes per second an answer must at least be read at) |
//! | — | `TERMPLANE_MAX_CONNS_PER_IP` | 256 (open not-upgraded connections per client address; a `TRUSTED_PROXIES` address has none, only the cap in all) |
//! | — | `TERMPLANE_MAX_CONNS` | 2048 (open not-upgraded connections in all) |
//! | `--no-local-node` | `TERMPLANE_LOCAL_NODE=off` | on: the plane runs panes on its own host (needs tmux); off, it only manages enrolled nodes and launches on the local node are refused |
//! | — | `TERMPLANE_PUSH_ALLOW_HTTP=1` | off: Web Push endpoints must be `https://` |
//! | — | `TERMPLANE_PUSH_ALLOW_PRIVATE=1` | off: pushes go only to addresses of the public internet (no loopback, private, link-local or reserved address, checked again at each delivery) |

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The default listen address: loopback, port 7420.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7420";
/// What a plane on [`DEFAULT_LISTEN`] with no `APP_BASE_URL` calls itself.
const DEFAULT_BASE_URL: &str = "http://localhost:7420";
/// The default request-body limit (1 MiB).
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    /// Run the plane.
    Serve(Box<Config>),
    /// Print usage.
    Help,
    /// Print the version.
    Version,
    /// Print the REST API's OpenAPI document, as a plane at `base_url` serves it at
    /// `/api/openapi.json` (for generating clients without a running plane).
    OpenApi {
        /// `APP_BASE_URL`, else the default loopback address.
        base_url: String,
    },
}

/// Settings of a running plane.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where to listen.
    pub listen: SocketAddr,
    /// Data directory (key files, SQLite database).
    pub data_dir: PathBuf,
    /// Database URL; `None` means the SQLite file in the data directory.
    pub database_url: Option<String>,
    /// Public base URL (`APP_BASE_URL`).
    pub app_base_url: Option<String>,
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
    /// Whether panes run on the plane's own host (the local node).
    pub local_node: bool,
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

/// The usage text.
pub const USAGE: &str = "\
termplane — the termplane control plane

USAGE:
    termplane serve [--listen ADDR:PORT] [--data-dir DIR] [--database-url URL] [--no-local-node]
    termplane mcp [--env-file PATH]    the pane's MCP server (a harness starts it)
    termplane openapi                  print the REST API's OpenAPI document (what a plane
                                       at APP_BASE_URL serves at /api/openapi.json)
    termplane --help | --version

ENVIRONMENT:
    TERMPLANE_LISTEN, TERMPLANE_DATA_DIR, TERMPLANE_DATABASE_URL   defaults for the flags
    APP_BASE_URL        the public address of the plane (https enables Secure cookies)
    TRUSTED_ORIGINS     comma-separated extra origins allowed to send browser requests
    TERMPLANE_NODE_DOWNLOADS  a directory of termplane-node-<os>-<arch> binaries to serve
    TRUSTED_PROXIES     comma-separated addresses or CIDR ranges of reverse proxies whose
                        X-Forwarded-For header names the client
    TERMPLANE_HEADER_TIMEOUT_SECS, TERMPLANE_IO_TIMEOUT_SECS, TERMPLANE_BODY_TIMEOUT_SECS,
    TERMPLANE_MIN_SEND_RATE, TERMPLANE_MAX_CONNS_PER_IP, TERMPLANE_MAX_CONNS
                        deadlines of slow clients and caps on not-upgraded connections
                        (a connection over a cap is answered 503 PLANE_BUSY; a trusted
                        proxy has no per-address cap)
    TERMPLANE_LOCAL_NODE=off  run no panes on this host (as --no-local-node)
    TERMPLANE_PUSH_ALLOW_HTTP=1     push endpoints may be plain http://
    TERMPLANE_PUSH_ALLOW_PRIVATE=1  push endpoints may be on loopback or private addresses
    RUST_LOG            log filter (default: info)
";

/// Parses `args` (without the program name) with `env` as the environment.
pub fn parse(args: &[String], env: &dyn Fn(&str) -> Option<String>) -> Result<Command, String> {
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => return Ok(Command::Help),
        Some("-V" | "--version") => return Ok(Command::Version),
        Some("serve") => {}
        Some("openapi") => {
            return match it.next().map(String::as_str) {
                None => Ok(Command::OpenApi {
                    base_url: app_base_url(env)?.unwrap_or_else(|| DEFAULT_BASE_URL.to_owned()),
                }),
                Some("-h" | "--help") => Ok(Command::Help),
                Some(other) => Err(format!("`openapi` takes no arguments, got `{other}`")),
            };
        }
        Some(other) => return Err(format!("unknown command `{other}`\n\n{USAGE}")),
    }
    let mut listen = env("TERMPLANE_LISTEN");
    let mut data_dir = env("TERMPLANE_DATA_DIR").map(PathBuf::from);
    let mut database_url = env("TERMPLANE_DATABASE_URL");
    let mut local_node = match env("TERMPLANE_LOCAL_NODE").as_deref().map(str::trim) {
        None | Some("" | "on" | "1" | "true") => true,
        Some("off" | "0" | "false") => false,
        Some(other) => {
            return Err(format!(
                "TERMPLANE_LOCAL_NODE wants on or off, got `{other}`"
            ));
        }
    };
    while let Some(flag) = it.next() {
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v.to_owned())),
            None => (flag.as_str(), None),
        };
        if matches!(name, "-h" | "--help") {
            return Ok(Command::Help);
        }
        if name == "--no-local-node" && inline.is_none() {
            local_node = false;
            continue;
        }
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match name {
            "--listen" => listen = Some(value()?),
            "--data-dir" => data_dir = Some(PathBuf::from(value()?)),
            "--database-url" => database_url = Some(value()?),
            _ => return Err(format!("unknown flag `{name}`\n\n{USAGE}")),
        }
    }
    let listen_text = listen.unwrap_or_else(|| DEFAULT_LISTEN.to_owned());
    let listen: SocketAddr = listen_text.parse().map_err(|_| {
        format!("--listen wants ADDR:PORT (such as 127.0.0.1:7420), got `{listen_text}`")
    })?;
    let data_dir = match data_dir {
        Some(d) => d,
        None => default_data_dir(env).ok_or("cannot find a data directory: set --data-dir, TERMPLANE_DATA_DIR, XDG_DATA_HOME or HOME")?,
    };
    let app_base_url = app_base_url(env)?;
    let trusted_origins = env("TRUSTED_ORIGINS")
        .map(|s| {
            s.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let trusted_proxies = env("TRUSTED_PROXIES")
        .map(|s| {
            s.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(crate::net::Cidr::parse)
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()
        .map_err(|e| format!("TRUSTED_PROXIES: {e}"))?
        .unwrap_or_default();
    Ok(Command::Serve(Box::new(Config {
        listen,
        data_dir,
        database_url,
        app_base_url,
        trusted_origins,
        body_limit: DEFAULT_BODY_LIMIT,
        drain_timeout: Duration::from_secs(10),
        header_timeout: Duration::from_secs(positive(env, "TERMPLANE_HEADER_TIMEOUT_SECS", 10)?),
        io_timeout: Duration::from_secs(positive(env, "TERMPLANE_IO_TIMEOUT_SECS", 10)?),
        body_timeout: Duration::from_secs(positive(env, "TERMPLANE_BODY_TIMEOUT_SECS", 30)?),
        min_send_rate: positive(env, "TERMPLANE_MIN_SEND_RATE", 1024)?,
        trusted_proxies,
        downloads_dir: env("TERMPLANE_NODE_DOWNLOADS")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from),
        max_conns_per_ip: usize::try_from(positive(env, "TERMPLANE_MAX_CONNS_PER_IP", 256)?)
            .unwrap_or(usize::MAX),
        max_conns: usize::try_from(positive(env, "TERMPLANE_MAX_CONNS", 2048)?)
            .unwrap_or(usize::MAX),
        local_node,
    })))
}

/// `APP_BASE_URL` without a trailing slash; it must be an http or https URL.
fn app_base_url(env: &dyn Fn(&str) -> Option<String>) -> Result<Option<String>, String> {
    let url = env("APP_BASE_URL")
        .map(|s| s.trim().trim_end_matches('/').to_owned())
        .filter(|s| !s.is_empty());
    if let Some(u) = &url
        && !(u.starts_with("http://") || u.starts_with("https://"))
    {
        return Err(format!(
            "APP_BASE_URL must start with http:// or https://, got `{u}`"
        ));
    }
    Ok(url)
}

fn positive(env: &dyn Fn(&str) -> Option<String>, name: &str, default: u64) -> Result<u64, String> {
    match env(name) {
        None => Ok(default),
        Some(v) => match v.trim().parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("{name} must be a positive integer, got `{v}`")),
        },
    }
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

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    fn serve(a: &[&str], env: &[(&str, &str)]) -> Config {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        match parse(&args(a), &|k| {
            env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
        })
        .unwrap()
        {
            Command::Serve(c) => *c,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn defaults_are_loopback_and_per_user_data_dir() {
        let c = serve(&["serve"], &[("HOME", "/home/u")]);
        assert_eq!(c.listen.to_string(), "127.0.0.1:7420");
        assert_eq!(c.data_dir, PathBuf::from("/home/u/.local/share/termplane"));
        assert_eq!(
            c.database_url(),
            "sqlite:///home/u/.local/share/termplane/termplane.db?mode=rwc"
        );
        let c = serve(&["serve"], &[("HOME", "/home/u"), ("XDG_DATA_HOME", "/x")]);
        assert_eq!(c.data_dir, PathBuf::from("/x/termplane"));
    }

    #[test]
    fn flags_override_environment() {
        let c = serve(
            &[
                "serve",
                "--listen",
                "0.0.0.0:9000",
                "--data-dir=/d",
                "--database-url",
                "postgres://a@b/c",
            ],
            &[
                ("TERMPLANE_LISTEN", "127.0.0.1:1"),
                ("TERMPLANE_DATA_DIR", "/e"),
                ("APP_BASE_URL", "https://p.example/"),
                ("TRUSTED_ORIGINS", "https://a.example, https://b.example"),
            ],
        );
        assert_eq!(c.listen.to_string(), "0.0.0.0:9000");
        assert_eq!(c.data_dir, PathBuf::from("/d"));
        assert_eq!(c.database_url(), "postgres://a@b/c");
        assert_eq!(c.app_base_url.as_deref(), Some("https://p.example"));
        assert_eq!(
            c.trusted_origins,
            vec!["https://a.example", "https://b.example"]
        );
        let c = serve(
            &["serve"],
            &[
                ("TERMPLANE_LISTEN", "127.0.0.1:1"),
                ("TERMPLANE_DATA_DIR", "/e"),
            ],
        );
        assert_eq!(c.listen.port(), 1);
        let proxied = serve(
            &["serve"],
            &[("HOME", "/h"), ("TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8")],
        );
        assert_eq!(proxied.trusted_proxies.len(), 2);
        assert!(
            parse(&args(&["serve"]), &|k| match k {
                "HOME" => Some("/h".into()),
                "TRUSTED_PROXIES" => Some("10.0.0.0/40".into()),
                _ => None,
            })
            .is_err()
        );
        assert_eq!(c.data_dir, PathBuf::from("/e"));
    }

    #[test]
    fn bad_input_is_an_error() {
        let none = |_: &str| None;
        assert!(
            parse(&args(&["serve", "--listen", "nope"]), &|k| if k == "HOME" {
                Some("/h".into())
            } else {
                none(k)
            })
            .is_err()
        );
        assert!(parse(&args(&["serve", "--bogus"]), &none).is_err());
        assert!(parse(&args(&["serve", "--listen"]), &none).is_err());
        assert!(matches!(parse(&args(&[]), &none), Ok(Command::Help)));
        assert!(parse(&args(&["openapi", "extra"]), &none).is_err());
        assert!(
            parse(&args(&["openapi"]), &|k| (k == "APP_BASE_URL")
                .then(|| "ftp://x".into()))
            .is_err()
        );
        assert!(
            parse(&args(&["serve"]), &|k| match k {
                "HOME" => Some("/h".into()),
                "APP_BASE_URL" => Some("ftp://x".into()),
                _ => None,
            })
            .is_err()
        );
    }

    #[test]
    fn openapi_names_the_base_url_a_plane_here_would_have() {
        let base = |env: &[(&str, &str)]| {
            let env: Vec<(String, String)> = env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            match parse(&args(&["openapi"]), &|k| {
                env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
            }) {
                Ok(Command::OpenApi { base_url }) => base_url,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(base(&[]), "http://localhost:7420");
        assert_eq!(
            base(&[("APP_BASE_URL", "https://p.example/")]),
            "https://p.example"
        );
    }
}
