//! The server as a process: `termplane mcp [--env-file PATH]` and `termplane-node mcp …`.
//!
//! Reads the pane's configuration ([`crate::Pane`]) from the env file when one is named (its
//! entries win) and from the environment otherwise, talks to the plane over HTTP with the
//! pane's token as a bearer credential, tells the plane the pane is alive once at start and
//! then every [`crate::KEEPALIVE_EVERY`], and serves stdin until it ends. Exit status 0 when
//! stdin ends, 2 for a usage or configuration error (printed to stderr; stdout stays clean
//! for the protocol).

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::Value;

use crate::{KEEPALIVE_EVERY, Pane, Plane, Server};

/// Most bytes of one answer from the plane.
const MAX_ANSWER_BYTES: u64 = 8 * 1024 * 1024;

/// The plane's REST API over HTTP, with the pane's token.
#[derive(Clone, Debug)]
pub struct HttpPlane {
    base: String,
    bearer: String,
}

impl HttpPlane {
    /// A client for `pane`'s plane, speaking with its token.
    #[must_use]
    pub fn new(pane: &Pane) -> Self {
        Self {
            base: pane.url.trim_end_matches('/').to_owned(),
            bearer: format!("Bearer {}", pane.token),
        }
    }
}

impl Plane for HttpPlane {
    fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Value), String> {
        let bytes = match body {
            Some(v) => serde_json::to_vec(v).map_err(|e| e.to_string())?,
            None => Vec::new(),
        };
        let r = termplane_runtime_smol::http::request_headers(
            method,
            &format!("{}{path}", self.base),
            &[("Authorization", &self.bearer)],
            body.map(|_| "application/json"),
            &bytes,
            MAX_ANSWER_BYTES,
        )?;
        let v = if r.body.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&r.body).map_err(|_| {
                format!(
                    "the plane answered {} with a body that is not JSON",
                    r.status
                )
            })?
        };
        Ok((r.status, v))
    }
}

/// Reads the configuration: `--env-file PATH` entries first, then the environment.
fn configure(args: &[String]) -> Result<Pane, String> {
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--env-file" => file = Some(it.next().ok_or("--env-file needs a path")?.clone()),
            s if s.starts_with("--env-file=") => {
                file = Some(s["--env-file=".len()..].to_owned());
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let entries: BTreeMap<String, String> = match &file {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("reading {p}: {e}"))?;
            Pane::parse_env_file(&text).into_iter().collect()
        }
        None => BTreeMap::new(),
    };
    Pane::from_lookup(&|k| entries.get(k).cloned().or_else(|| std::env::var(k).ok()))
}

/// Runs the server on stdin and stdout; `args` follow the `mcp` word.
#[must_use]
pub fn main(program: &str, args: &[String]) -> ExitCode {
    let pane = match configure(args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{program} mcp: {e}");
            eprintln!("usage: {program} mcp [--env-file PATH]");
            return ExitCode::from(2);
        }
    };
    let server = Arc::new(Server::new(HttpPlane::new(&pane), pane));
    let beat = Arc::clone(&server);
    let name = program.to_owned();
    // The keepalive thread ends with the process; a failed beat is reported and retried at
    // the next one (the token lives far longer than one interval).
    let _ = std::thread::Builder::new()
        .name("mcp-keepalive".into())
        .spawn(move || {
            loop {
                if let Err(e) = beat.keepalive() {
                    eprintln!("{name} mcp: {e}");
                }
                std::thread::sleep(KEEPALIVE_EVERY);
            }
        });
    let stdin = std::io::stdin();
    // Answers of calls that run on their own threads go to stdout under the server's lock.
    match server.serve(stdin.lock(), std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program} mcp: {e}");
            ExitCode::FAILURE
        }
    }
}
