//! Commands the plane sends to a node (the `cmd` claim of a signed envelope).
//!
//! Every command is a JSON object tagged by `type` whose other fields are its payload. Names
//! follow the specification where it gives them; where it says "not shown" the choice made here
//! is documented on the field. Payloads refuse unknown fields: the protocol version is matched
//! exactly, so a field this build does not know is a wrong-shaped frame, never something to skip.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ids::SubshellId;

/// Placeholder in `launch.argv` that the node replaces with the resolved harness binary.
pub const HARNESS_BINARY_PLACEHOLDER: &str = "@@HARNESS_BINARY@@";

/// A command, as carried in the `cmd` claim.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// Start a harness pane.
    Launch(Box<Launch>),
    /// Graceful stop of a subshell's multiplexer tree.
    Terminate(SubshellRef),
    /// Hard kill of a subshell's multiplexer tree.
    Kill(SubshellRef),
    /// Remove what the node keeps of a subshell whose pane is gone (its pane log, its exit
    /// record): the subshell was deleted. Refused while the pane runs. Sent only to a node
    /// whose `ready` advertises [`FORGET`].
    Forget(SubshellRef),
    /// Wait for a quiet pane, then type text and Enter.
    PromptDeliver(PromptDeliver),
    /// Keystrokes into a pane.
    Input(Input),
    /// Set a pane's grid.
    Resize(Resize),
    /// Pane snapshot, optionally with reflowed history.
    Capture(Capture),
    /// The pane's real grid (null when gone).
    PaneSize(SubshellRef),
    /// The pane's cursor in viewport coordinates (null when gone).
    PaneCursor(SubshellRef),
    /// Byte-ranged read of the pane log.
    LogRead(LogRead),
    /// Byte-ranged read of the pane's timing file, the log's recording (only to a node that
    /// advertises [`RECORDING`]).
    TimingRead(LogRead),
    /// Drop what a pane's recording holds from before a time: the log's bytes printed before
    /// it and their timing records (the pane's retention). Only to a node that advertises
    /// [`RECORDING_TRIM`].
    RecordingTrim(RecordingTrim),
    /// Subscribe a byte-offset tail of the pane log.
    TailStart(TailStart),
    /// Unsubscribe a tail.
    TailStop(TailStop),
    /// Verify a directory exists and is usable; answers its realpath.
    StatDir(PathArg),
    /// Answers `{ exists }`.
    PathExists(PathArg),
    /// One-level directory listing for the folder picker.
    FsLs(PathArg),
    /// Chunked file write for terminal uploads.
    WriteFile(WriteFile),
    /// Delete paths.
    RemovePaths(RemovePaths),
    /// Replace the node's persisted directory allowlist.
    SetAllowedDirs(SetAllowedDirs),
    /// Service-manager action.
    Service(Service),
    /// Read a slice of the node's own log.
    AgentLogRead(AgentLogRead),
    /// Rewrite the node's server URL keeping its identity.
    SetServerUrl(SetServerUrl),
    /// Flip the log-file debug level.
    SetLogLevel(SetLogLevel),
    /// Write the maintenance mirror verbatim.
    SetMaintenance(Maintenance),
    /// Self-update. The wire shape is frozen across all protocol bumps.
    Update(Update),
    /// Liveness of a set of subshells.
    Probe(Probe),
    /// Pull the harness inventory.
    Inventory(Empty),
    /// Probe for harness binaries and named environment variables.
    Detect(Detect),
    /// Liveness of the node.
    Ping(Empty),
    /// Turn the `activity` events on or off. Sent only to a node whose `ready` advertises
    /// [`ACTIVITY`].
    Activity(ActivityWatch),
}

impl Command {
    /// The wire name of the command (`type`).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Launch(_) => "launch",
            Self::Terminate(_) => "terminate",
            Self::Kill(_) => "kill",
            Self::Forget(_) => "forget",
            Self::PromptDeliver(_) => "prompt_deliver",
            Self::Input(_) => "input",
            Self::Resize(_) => "resize",
            Self::Capture(_) => "capture",
            Self::PaneSize(_) => "pane_size",
            Self::PaneCursor(_) => "pane_cursor",
            Self::LogRead(_) => "log_read",
            Self::TimingRead(_) => "timing_read",
            Self::RecordingTrim(_) => "recording_trim",
            Self::TailStart(_) => "tail_start",
            Self::TailStop(_) => "tail_stop",
            Self::StatDir(_) => "stat_dir",
            Self::PathExists(_) => "path_exists",
            Self::FsLs(_) => "fs_ls",
            Self::WriteFile(_) => "write_file",
            Self::RemovePaths(_) => "remove_paths",
            Self::SetAllowedDirs(_) => "set_allowed_dirs",
            Self::Service(_) => "service",
            Self::AgentLogRead(_) => "agent_log_read",
            Self::SetServerUrl(_) => "set_server_url",
            Self::SetLogLevel(_) => "set_log_level",
            Self::SetMaintenance(_) => "set_maintenance",
            Self::Update(_) => "update",
            Self::Probe(_) => "probe",
            Self::Inventory(_) => "inventory",
            Self::Detect(_) => "detect",
            Self::Ping(_) => "ping",
            Self::Activity(_) => "activity",
        }
    }

    /// Whether this is the `update` command (the only one a held link carries).
    #[must_use]
    pub fn is_update(&self) -> bool {
        matches!(self, Self::Update(_))
    }
}

/// A payload with no fields (`ping`, `inventory`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Empty {}

/// A payload naming one subshell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SubshellRef {
    /// The subshell.
    pub subshell_id: SubshellId,
}

/// A payload naming one path on the node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PathArg {
    /// Absolute path (for `fs_ls`, the empty string means the node's home directory).
    pub path: String,
}

/// How the node finds the harness binary at spawn time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Resolve {
    /// File name looked up on `PATH`.
    pub binary_name: String,
    /// Environment variable whose value, when set and executable, wins over everything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_override: Option<String>,
    /// Absolute paths tried, in order, after `PATH`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known_paths: Vec<String>,
}

/// The preset a pane launches with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "LaunchPreset"))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Preset {
    /// Extra environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Extra harness flags (already placed in `argv` by the plane; kept for the node's log).
    #[serde(default)]
    pub flags: Vec<String>,
    /// Harness settings, opaque to the node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<serde_json::Value>,
    /// Give the harness a private configuration directory under the node's data directory.
    #[serde(default)]
    pub config_isolation: bool,
}

/// The MCP registration file written before spawn (mode 0600).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct McpRegistration {
    /// Absolute path of the file.
    pub path: String,
    /// Its full content.
    pub file_content: String,
    /// Harness-dialect arguments (already in `argv`; kept for the node's log).
    #[serde(default)]
    pub args: Vec<String>,
    /// Harness-dialect environment added to the pane.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// An entry to set in a JSON settings file the harness keeps in its isolated configuration
    /// directory. Sent only with config isolation, to a node whose `ready` advertises
    /// [`SETTINGS_ENTRY`]; an older node's strict decoder would refuse the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings_entry: Option<SettingsEntry>,
    /// More entries set the same way after `settingsEntry`, in the same isolated directory (the
    /// harness's hooks that report its agent's state). Sent only to a node whose `ready`
    /// advertises [`SETTINGS_ENTRIES`]; at most [`MAX_SETTINGS_ENTRIES`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settings_entries: Vec<SettingsEntry>,
}

/// An entry set in a harness's own JSON settings file before the pane starts. The file is
/// `<dir>/<file>`, where `<dir>` is the value of the pane's environment variable `dirEnv`
/// (after config isolation and the preset's environment are applied), which must lie inside the
/// harness's isolated configuration directory. The file's object keeps everything else it
/// holds; the nested objects named by `keys` are made where missing and the last key is set to
/// `value`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SettingsEntry {
    /// The environment variable naming the directory the file is in.
    pub dir_env: String,
    /// The file, relative to that directory.
    pub file: String,
    /// The keys of the nested objects down to the entry (at least one).
    pub keys: Vec<String>,
    /// The entry.
    pub value: serde_json::Value,
}

/// The `ready` capability of a node that sets an MCP registration's `settingsEntry`.
pub const SETTINGS_ENTRY: &str = "settings_entry";

/// The `ready` capability of a node that also sets an MCP registration's `settingsEntries`.
pub const SETTINGS_ENTRIES: &str = "settings_entries";

/// Most `settingsEntries` of one registration (a node refuses a launch with more).
pub const MAX_SETTINGS_ENTRIES: usize = 8;

/// `launch`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Launch {
    /// The subshell the pane belongs to.
    pub subshell_id: SubshellId,
    /// The complete command line, with [`HARNESS_BINARY_PLACEHOLDER`] in the binary slot.
    pub argv: Vec<String>,
    /// How to fill the binary slot.
    pub resolve: Resolve,
    /// Working directory: absolute, stat-verified by the node.
    pub cwd: String,
    /// The harness plugin id.
    pub harness_id: String,
    /// The preset.
    #[serde(default)]
    pub preset: Preset,
    /// The `TERMPLANE_*` credential environment of the pane.
    #[serde(default)]
    pub credential_env: BTreeMap<String, String>,
    /// Optional MCP registration file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpRegistration>,
    /// Optional resume pin (harness session id to resume).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<String>,
    /// Initial columns.
    pub cols: u16,
    /// Initial rows.
    pub rows: u16,
    /// Downgrade a log-attach failure to a note instead of a failed launch.
    #[serde(default)]
    pub best_effort_log: bool,
    /// `false`: the pane's output is logged but not recorded (no timing file). Absent: the
    /// node records it. Sent only to a node that advertises [`RECORDING`]; an older node's
    /// strict decoder would refuse the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<bool>,
}

/// `prompt_deliver`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PromptDeliver {
    /// Target pane.
    pub subshell_id: SubshellId,
    /// Text typed literally, followed by Enter.
    pub text: String,
    /// How long the pane must stay unchanged to count as quiet (default 1,500 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_ms: Option<u32>,
    /// Give up waiting for quiet after this long (default 60,000 ms; at most the command deadline
    /// of the plane allows, which the plane accounts for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u32>,
}

/// A named key, from a fixed set (never free text in a key position).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum NamedKey {
    /// Enter.
    Enter,
    /// Escape.
    Escape,
    /// Tab.
    Tab,
    /// Backspace.
    Backspace,
    /// Ctrl-C.
    CtrlC,
    /// Ctrl-D.
    CtrlD,
    /// Ctrl-Z.
    CtrlZ,
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Arrow left.
    Left,
    /// Arrow right.
    Right,
}

/// `input`: `data` is typed literally first, then `keys` are pressed in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Input {
    /// Target pane.
    pub subshell_id: SubshellId,
    /// Text (may hold control characters and escape sequences, as a terminal sends them).
    #[serde(default)]
    pub data: String,
    /// Named keys pressed after `data`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<NamedKey>,
}

/// `resize`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Resize {
    /// Target pane.
    pub subshell_id: SubshellId,
    /// Columns (1 to 1,000).
    pub cols: u16,
    /// Rows (1 to 1,000).
    pub rows: u16,
}

/// `capture`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Capture {
    /// Target pane.
    pub subshell_id: SubshellId,
    /// Lines of reflowed history to prepend (for attach replay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<u32>,
    /// Answer the attach replay instead of the text: `{ replay_b64, logOffset, cols, rows,
    /// alternate }` (`null` when the pane is gone), the bytes that put a fresh terminal in the
    /// pane's state (screens, modes, cursor). Sent only to a node whose `ready` advertises the
    /// capability [`SCREEN_REPLAY`]; an older node's strict decoder would refuse the field.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replay: bool,
}

/// The `ready` capability of a node that answers `capture` with `replay: true`.
pub const SCREEN_REPLAY: &str = "screen_replay";

/// The `ready` capability of a node that takes the `forget` command.
pub const FORGET: &str = "forget";

/// The `ready` capability of a node that records each pane's output with its timing (a timing
/// file kept with the pane log) and takes the `timing_read` command.
pub const RECORDING: &str = "recording";

/// The `ready` capability of a node that takes the `recording_trim` command.
pub const RECORDING_TRIM: &str = "recording_trim";

/// `recording_trim`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RecordingTrim {
    /// Target pane.
    pub subshell_id: SubshellId,
    /// Unix microseconds (the node's clock, as its timing records): what was printed before
    /// this is dropped.
    pub before_us: u64,
}

/// `log_read` (and `timing_read`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogRead {
    /// Target pane.
    pub subshell_id: SubshellId,
    /// First byte to read.
    pub from_byte: u64,
    /// Most bytes to return (the node caps it to fit one frame).
    pub max_bytes: u32,
}

/// `tail_start`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TailStart {
    /// Target pane.
    pub subshell_id: SubshellId,
    /// Subscription key, echoed on every `output` event.
    pub sub_id: String,
    /// Start offset; absent means "from the current end".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_byte: Option<u64>,
}

/// `tail_stop`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TailStop {
    /// The subscription to end.
    pub sub_id: String,
}

/// `write_file`: one chunk of an upload. Chunks arrive in order starting at 0.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WriteFile {
    /// Absolute destination path (path-policy enforced).
    pub path: String,
    /// The chunk's bytes, base64url unpadded.
    pub chunk_b64: String,
    /// The chunk's index, from 0.
    pub chunk: u32,
    /// Whether this is the last chunk (the file is then moved into place).
    pub eof: bool,
}

/// `remove_paths`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RemovePaths {
    /// Absolute paths (path-policy enforced).
    pub paths: Vec<String>,
}

/// `set_allowed_dirs`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SetAllowedDirs {
    /// Absolute directories; empty means unrestricted.
    pub dirs: Vec<String>,
}

/// A service-manager action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ServiceAction {
    /// Start the service.
    Start,
    /// Stop it.
    Stop,
    /// Restart it.
    Restart,
    /// Install the service definition.
    Install,
    /// Remove the service definition.
    Uninstall,
}

/// `service`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Service {
    /// The action.
    pub action: ServiceAction,
    /// Proceed even if panes would die.
    #[serde(default)]
    pub force: bool,
}

/// `agent_log_read`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AgentLogRead {
    /// First byte.
    pub from_byte: u64,
    /// Most bytes.
    pub max_bytes: u32,
}

/// `set_server_url`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SetServerUrl {
    /// The new base URL of the plane.
    pub url: String,
}

/// Log levels the node's log file can be switched between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    /// Ordinary logging.
    Info,
    /// Debug logging.
    Debug,
}

/// `set_log_level`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SetLogLevel {
    /// The level.
    pub level: LogLevel,
}

/// The maintenance mirror `{ on, changedAt }` (ISO 8601 timestamp).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Maintenance {
    /// Whether the node is in maintenance.
    pub on: bool,
    /// When it last changed, ISO 8601.
    pub changed_at: String,
}

/// The `ready` capability of a node that takes the `activity` command and then sends
/// `activity` events.
pub const ACTIVITY: &str = "activity";

/// The shortest and the longest quiet a plane may ask for in `activity` (ms).
pub const ACTIVITY_QUIET_MS: std::ops::RangeInclusive<u32> = 500..=60_000;

/// `activity { on, quietMs }`: with `on`, the node tells the plane, for every pane it runs, when
/// the pane starts printing after a quiet spell and when it has printed nothing for `quietMs`
/// (see the `activity` event); without, it stops. The last command wins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ActivityWatch {
    /// Whether to send the events.
    pub on: bool,
    /// How long a pane must print nothing to be quiet ([`ACTIVITY_QUIET_MS`]).
    pub quiet_ms: u32,
}

/// `update { version, url, sha256, force? }`. Frozen across all protocol bumps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Update {
    /// The version the new binary must report.
    pub version: String,
    /// Where to download it.
    pub url: String,
    /// Lowercase hex SHA-256 of the binary.
    pub sha256: String,
    /// Proceed even if panes would die.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
}

/// `probe`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Probe {
    /// Subshells whose liveness is asked.
    pub subshell_ids: Vec<SubshellId>,
}

/// One detection rule of `detect`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DetectRule {
    /// Harness the rule belongs to.
    pub harness_id: String,
    /// Lookup rule for the binary.
    pub resolve: Resolve,
    /// Arguments that make the binary print its version (e.g. `["--version"]`).
    #[serde(default)]
    pub version_args: Vec<String>,
}

/// `detect`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Detect {
    /// Binaries to look for.
    #[serde(default)]
    pub rules: Vec<DetectRule>,
    /// Exactly the environment variables whose values are answered (required).
    pub env_names: Vec<String>,
}
