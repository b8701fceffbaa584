//! Frames a node sends to the plane: the `ready` frame and the events.
//!
//! Events are JSON objects tagged by `type`. They are unsigned; they inherit the trust of the
//! bearer node key that authenticated the socket. Timestamps are ISO 8601 strings in UTC, as the
//! maintenance mirror's `changedAt` is.

use serde::{Deserialize, Serialize};

use crate::command::Maintenance;
use crate::ids::SubshellId;

/// Operating system reported in `ready`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Os {
    /// Linux.
    Linux,
    /// macOS.
    Darwin,
    /// Anything else (also what an unrecognised value reads as).
    #[default]
    #[serde(other)]
    Unknown,
}

/// How to re-enter the node's binary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelfInvoke {
    /// The program.
    pub command: String,
    /// Its leading arguments (empty for a compiled binary).
    #[serde(default)]
    pub args: Vec<String>,
}

/// Multiplexer facts inside the runtime snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MultiplexerInfo {
    /// Multiplexer name (`tmux`).
    pub name: String,
    /// Its version text, if it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The node's private server socket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub socket: Option<String>,
}

/// The optional supervision snapshot of `ready.runtime`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeSnapshot {
    /// Service-manager state: `systemd`, `launchd` or `none`.
    pub service_manager: String,
    /// Whether the daemon runs under the service manager.
    pub supervised: bool,
    /// The daemon's pid.
    pub pid: u32,
    /// Whether the service starts at boot or login.
    #[serde(default)]
    pub autostart: bool,
    /// Linux user lingering (services survive logout), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linger: Option<bool>,
    /// Whether stopping the service would kill panes.
    #[serde(default)]
    pub panes_at_risk: bool,
    /// Config file path.
    #[serde(default)]
    pub config_path: String,
    /// Log file path.
    #[serde(default)]
    pub log_path: String,
    /// Binary path.
    #[serde(default)]
    pub binary_path: String,
    /// Whether debug logging is on, and whether the environment forces it.
    #[serde(default)]
    pub debug_logging: bool,
    /// Whether `TERMPLANE_DEBUG_LOGGING` forces debug logging.
    #[serde(default)]
    pub debug_logging_forced: bool,
    /// Multiplexer facts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiplexer: Option<MultiplexerInfo>,
}

/// The `ready` frame: the first protocol frame of an established or legacy link.
///
/// Parsing is deliberately lenient where the specification asks for it: `agentVersion` and
/// `protocolVersion` may be absent or of any shape (gate 1 and gate 2 judge them), and a malformed
/// `runtime` or `maintenance` value is dropped without refusing the frame.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ready {
    /// Reported agent version, as text (absent when missing or not a string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_version: Option<String>,
    /// Reported protocol version (absent when missing or not an unsigned integer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<u64>,
    /// Operating system.
    pub os: Os,
    /// Architecture.
    pub arch: String,
    /// Hostname.
    pub hostname: String,
    /// The node's data directory.
    pub data_dir: String,
    /// Capabilities.
    pub capabilities: Vec<String>,
    /// How to re-enter the node's binary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_invoke: Option<SelfInvoke>,
    /// Home directory.
    pub home_dir: String,
    /// Supervision snapshot (dropped when malformed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<RuntimeSnapshot>,
    /// Maintenance mirror (dropped when malformed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maintenance: Option<Maintenance>,
}

impl Ready {
    /// Reads a `ready` object leniently (see the type's docs). Fields other than the two version
    /// fields, `runtime` and `maintenance` must have their documented types when present.
    pub fn from_value(mut v: serde_json::Value) -> Result<Self, serde_json::Error> {
        use serde::de::Error as _;
        let obj = v
            .as_object_mut()
            .ok_or_else(|| serde_json::Error::custom("ready is not an object"))?;
        let take = |o: &mut serde_json::Map<String, serde_json::Value>, k: &str| o.remove(k);
        let agent_version = take(obj, "agentVersion").and_then(|v| v.as_str().map(str::to_owned));
        let protocol_version = take(obj, "protocolVersion").and_then(|v| v.as_u64());
        let runtime = take(obj, "runtime").and_then(|v| serde_json::from_value(v).ok());
        let maintenance = take(obj, "maintenance").and_then(|v| serde_json::from_value(v).ok());
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Rest {
            #[serde(default)]
            os: Os,
            #[serde(default)]
            arch: String,
            #[serde(default)]
            hostname: String,
            #[serde(default)]
            data_dir: String,
            #[serde(default)]
            capabilities: Vec<String>,
            #[serde(default)]
            self_invoke: Option<SelfInvoke>,
            #[serde(default)]
            home_dir: String,
        }
        obj.remove("type");
        let rest: Rest = serde_json::from_value(v)?;
        Ok(Self {
            agent_version,
            protocol_version,
            os: rest.os,
            arch: rest.arch,
            hostname: rest.hostname,
            data_dir: rest.data_dir,
            capabilities: rest.capabilities,
            self_invoke: rest.self_invoke,
            home_dir: rest.home_dir,
            runtime,
            maintenance,
        })
    }
}

/// One harness inventory entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HarnessEntry {
    /// Harness id.
    pub harness_id: String,
    /// Whether it is installed.
    pub installed: bool,
    /// Version text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Where the binary is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary_path: Option<String>,
    /// Why it is not installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When it was checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked_at: Option<String>,
}

/// `inventory`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inventory {
    /// Entries (empty on a current node).
    pub harnesses: Vec<HarnessEntry>,
    /// When the inventory was taken.
    pub at: String,
}

/// `heartbeat`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Heartbeat {
    /// When it was sent.
    pub at: String,
}

/// `result`: the one answer to one command. `ok: true` may carry `data`; `ok: false` carries `error`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandResult {
    /// The command's jti.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Whether it succeeded.
    pub ok: bool,
    /// Result data on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
    /// Refusal or failure text (one of the spec's refusal strings where one applies, exactly,
    /// so a client can match it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What went wrong behind a refusal string, for people (for example the HTTP status of a
    /// failed download); only with `ok: false`. Clients never match on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl CommandResult {
    /// A success.
    #[must_use]
    pub fn ok(reference: impl Into<String>, data: Option<serde_json::Value>) -> Self {
        Self {
            reference: reference.into(),
            ok: true,
            data,
            error: None,
            detail: None,
        }
    }

    /// A failure.
    #[must_use]
    pub fn err(reference: impl Into<String>, error: impl Into<String>) -> Self {
        Self {
            reference: reference.into(),
            ok: false,
            data: None,
            error: Some(error.into()),
            detail: None,
        }
    }

    /// A failure whose `error` is a fixed refusal string and whose `detail` says more.
    #[must_use]
    pub fn err_with_detail(
        reference: impl Into<String>,
        error: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            detail: Some(detail.into()),
            ..Self::err(reference, error)
        }
    }

    /// A failure from a node-side error message: when the message is one of the
    /// specification's refusal strings ([`REFUSAL_STRINGS`]), followed by `": …"` or `" (…)"`,
    /// `error` is exactly that string and the rest goes to `detail`; any other message is the
    /// `error` as it is.
    #[must_use]
    pub fn refusal(reference: impl Into<String>, message: &str) -> Self {
        for r in REFUSAL_STRINGS {
            let Some(rest) = message.strip_prefix(r) else {
                continue;
            };
            if rest.is_empty() {
                return Self::err(reference, r);
            }
            if let Some(d) = rest.strip_prefix(": ") {
                return Self::err_with_detail(reference, r, d);
            }
            if let Some(d) = rest.strip_prefix(" (").and_then(|d| d.strip_suffix(')')) {
                return Self::err_with_detail(reference, r, d);
            }
        }
        Self::err(reference, message)
    }

    /// Whether the shape is coherent: `ok` with no `error` and no `detail`, or not `ok` with an
    /// `error` and no `data`.
    #[must_use]
    pub fn is_well_formed(&self) -> bool {
        if self.ok {
            self.error.is_none() && self.detail.is_none()
        } else {
            self.error.is_some() && self.data.is_none()
        }
    }
}

/// The node's command refusal strings (the specification's "Node command refusal strings"):
/// a `result.error` that is one of them is exactly that string, so clients can match it.
pub const REFUSAL_STRINGS: [&str; 9] = [
    "not supervised",
    "kills panes",
    "no service definition",
    "in maintenance",
    "not a compiled agent",
    "download failed",
    "digest mismatch",
    "installed binary reports a different version",
    "unsupported",
];

/// `output`: tail bytes of a pane log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Output {
    /// The subscription.
    pub sub_id: String,
    /// Offset of the first byte.
    pub from_byte: u64,
    /// Offset one past the last byte.
    pub to_byte: u64,
    /// The bytes, base64url unpadded.
    #[serde(rename = "data_b64")]
    pub data_b64: String,
}

/// Most bytes of an `activity` event's `screen` (the end of the screen is kept).
pub const ACTIVITY_SCREEN_MAX_BYTES: usize = 8_192;

/// Most bytes of an `activity` event's `command`.
pub const ACTIVITY_COMMAND_MAX_BYTES: usize = 64;

/// `s` within `max` bytes at a character boundary: its end when `keep_end`, else its start.
/// How an `activity` event's `screen` (its end) and `command` (its start) are held to their
/// sizes, by the node that sends them and the plane that reads them.
#[must_use]
pub fn within_bytes(s: &str, max: usize, keep_end: bool) -> &str {
    if s.len() <= max {
        s
    } else if keep_end {
        &s[s.ceil_char_boundary(s.len() - max)..]
    } else {
        &s[..s.floor_char_boundary(max)]
    }
}

/// `activity`: a pane started printing after a quiet spell (`active: true`), has printed
/// without a pause of `quietMs` for another `quietMs` (`active: true`, a sample, with the
/// visible screen as plain text), or has printed nothing for the `quietMs` the plane asked for
/// (`active: false`, with the screen). All carry the pane's foreground program when the node
/// could read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Activity {
    /// The subshell.
    pub subshell_id: SubshellId,
    /// Printing (true) or quiet (false).
    pub active: bool,
    /// When the node saw it, ISO 8601.
    pub at: String,
    /// The pane's foreground program (tmux's `pane_current_command`), at most
    /// [`ACTIVITY_COMMAND_MAX_BYTES`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The visible screen as plain text, trailing blank lines dropped, at most
    /// [`ACTIVITY_SCREEN_MAX_BYTES`] (its end); when quiet, and in the samples of a pane that
    /// keeps printing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
}

/// `exit`: a pane died.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Exit {
    /// The subshell.
    pub subshell_id: SubshellId,
    /// Exit code; null when the pane stopped answering.
    pub exit_code: Option<i32>,
    /// When the death was seen.
    pub at: String,
}

/// One surviving pane in `subshells_report`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SurvivingPane {
    /// The subshell.
    pub subshell_id: SubshellId,
    /// The multiplexer pane id, such as `%3`.
    pub pane: String,
    /// The pane process id, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

/// `subshells_report`: connect-time census of panes that survived.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubshellsReport {
    /// Surviving panes.
    pub subshells: Vec<SurvivingPane>,
}

/// `error`: an anomaly report, including `verify` failures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorEvent {
    /// Machine-readable code (`verify` for a refused command envelope).
    pub code: String,
    /// One-line reason.
    pub message: String,
}

/// Code of the `error` event reporting a refused command envelope.
pub const VERIFY_ERROR_CODE: &str = "verify";

/// An event (node to plane), tagged by `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Harness inventory.
    Inventory(Inventory),
    /// Maintenance flip.
    Maintenance(Maintenance),
    /// Heartbeat.
    Heartbeat(Heartbeat),
    /// Command result.
    Result(CommandResult),
    /// Tail output.
    Output(Output),
    /// Pane death.
    Exit(Exit),
    /// Survivor census.
    SubshellsReport(SubshellsReport),
    /// Anomaly.
    Error(ErrorEvent),
    /// A pane printing or quiet (only after the plane's `activity` command).
    Activity(Activity),
}

impl Event {
    /// The wire name (`type`).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Inventory(_) => "inventory",
            Self::Maintenance(_) => "maintenance",
            Self::Heartbeat(_) => "heartbeat",
            Self::Result(_) => "result",
            Self::Output(_) => "output",
            Self::Exit(_) => "exit",
            Self::SubshellsReport(_) => "subshells_report",
            Self::Error(_) => "error",
            Self::Activity(_) => "activity",
        }
    }
}
