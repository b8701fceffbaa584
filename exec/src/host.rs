//! What the process that embeds the executor provides: where log lines go, and the commands that
//! concern a node daemon process itself rather than the node's panes and files.
//!
//! Five commands of the spec's table are about the daemon: `service` (its service definition),
//! `update` (replacing its own binary), `set_server_url` (its config file), `set_log_level` (its
//! log) and `agent_log_read` (reading that log). The executor hands them to its [`Host`], which
//! the embedding binary implements. The node daemon does what the spec says; a host without a
//! daemon — the plane running panes on its own host, its "local node" — has no service
//! definition, binary, config file or log of its own to act on, and refuses each of them with
//! [`no_daemon`]'s text ([`Daemonless`] is such a host).

use serde_json::Value;
use termplane_proto::command::{AgentLogRead, Service, SetLogLevel, SetServerUrl, Update};

use super::Executor;

/// How much a log line matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Detail for diagnosing (the host may drop it).
    Debug,
    /// Ordinary events (a pane launched).
    Info,
    /// Something went wrong but the executor carries on.
    Warn,
}

/// Where the executor's log lines go.
pub trait Log: Send + Sync {
    /// Writes one line.
    fn log(&self, level: Level, message: &str);
}

/// A log that drops every line.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Log for Silent {
    fn log(&self, _level: Level, _message: &str) {}
}

/// The embedding process: logging, and the commands about the node daemon itself. Each command
/// method answers like [`Executor::execute`]: `Ok(result.data)` or `Err(result.error)`.
pub trait Host: Log {
    /// `service { action, force }`.
    fn service(&self, exec: &Executor, cmd: &Service) -> Result<Value, String>;
    /// `update { version, url, sha256, force? }`.
    fn update(&self, exec: &Executor, cmd: &Update) -> Result<Value, String>;
    /// `set_server_url { url }`.
    fn set_server_url(&self, exec: &Executor, cmd: &SetServerUrl) -> Result<Value, String>;
    /// `set_log_level { level }`.
    fn set_log_level(&self, exec: &Executor, cmd: &SetLogLevel) -> Result<Value, String>;
    /// `agent_log_read { fromByte, maxBytes }`.
    fn agent_log_read(&self, exec: &Executor, cmd: &AgentLogRead) -> Result<Value, String>;
}

/// The refusal of a daemon command (`kind`, such as `update`) by a host that runs no daemon.
#[must_use]
pub fn no_daemon(kind: &str) -> String {
    format!("{kind}: this node runs no node daemon (it is the plane's own host)")
}

/// A host without a daemon: the five daemon commands are refused with [`no_daemon`]'s text, and
/// log lines go to the wrapped [`Log`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Daemonless<L>(pub L);

impl<L: Log> Log for Daemonless<L> {
    fn log(&self, level: Level, message: &str) {
        self.0.log(level, message);
    }
}

impl<L: Log> Host for Daemonless<L> {
    fn service(&self, _exec: &Executor, _cmd: &Service) -> Result<Value, String> {
        Err(no_daemon("service"))
    }
    fn update(&self, _exec: &Executor, _cmd: &Update) -> Result<Value, String> {
        Err(no_daemon("update"))
    }
    fn set_server_url(&self, _exec: &Executor, _cmd: &SetServerUrl) -> Result<Value, String> {
        Err(no_daemon("set_server_url"))
    }
    fn set_log_level(&self, _exec: &Executor, _cmd: &SetLogLevel) -> Result<Value, String> {
        Err(no_daemon("set_log_level"))
    }
    fn agent_log_read(&self, _exec: &Executor, _cmd: &AgentLogRead) -> Result<Value, String> {
        Err(no_daemon("agent_log_read"))
    }
}
