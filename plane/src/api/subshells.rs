//! Subshells: harness panes on a node, their lifecycle, input, logs and self-reports.
//!
//! The lifecycle is defined in one place, [`crate::service::lifecycle`]; [`SubshellState`] is its
//! vocabulary, and [`SubshellStatus`] the single badge a view shows (it tells "node unreachable"
//! from "crashed").

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use super::{AbsPath, RowId, forbidden_class, is_forbidden_char};

/// Where a subshell is in its life (see `service::lifecycle` for every move).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SubshellState {
    /// The launch is on its way to the node.
    Starting,
    /// The pane runs.
    Running,
    /// A graceful stop was asked for; the pane has until the grace ends.
    Stopping,
    /// Stopped on request (terminate or kill).
    Stopped,
    /// The program ended on its own with exit code 0.
    Exited,
    /// The program ended on its own with another code, or its pane vanished.
    Crashed,
    /// A relaunch was refused by the node (the reason is in `error`).
    Failed,
}

impl SubshellState {
    /// The stored spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Starting => "starting",
            Self::Running => "running",
            Self::Stopping => "stopping",
            Self::Stopped => "stopped",
            Self::Exited => "exited",
            Self::Crashed => "crashed",
            Self::Failed => "failed",
        }
    }

    /// The state of a stored spelling.
    #[must_use]
    pub fn from_stored(s: &str) -> Self {
        match s {
            "starting" => Self::Starting,
            "running" => Self::Running,
            "stopping" => Self::Stopping,
            "stopped" => Self::Stopped,
            "exited" => Self::Exited,
            "failed" => Self::Failed,
            _ => Self::Crashed,
        }
    }

    /// Whether a pane is (or should be) alive on the node.
    #[must_use]
    pub fn is_live(self) -> bool {
        matches!(self, Self::Starting | Self::Running | Self::Stopping)
    }
}

/// The one badge a view of a subshell shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SubshellStatus {
    /// Launching.
    Starting,
    /// Running, nothing asked of a person.
    Running,
    /// Running and waiting for a person (the harness reported it).
    NeedsAttention,
    /// Live on a node whose link is down (or whose census is not in yet): the pane may well be
    /// running; the plane cannot tell.
    NodeUnreachable,
    /// Stopping.
    Stopping,
    /// Stopped on request.
    Stopped,
    /// Ended with exit code 0.
    Exited,
    /// Ended with another code, or vanished.
    Crashed,
    /// A relaunch was refused.
    Failed,
}

/// What the agent in a pane is doing (see `service::subshells::agent` for which signal sets
/// which state, and how a pane's lifecycle decides it once the pane has ended).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AgentState {
    /// The pane is being launched, or has started and no signal has said anything yet.
    Starting,
    /// The agent is at work on a turn.
    Working,
    /// The agent waits for a new prompt.
    Idle,
    /// The agent is blocked on a person: a question or a permission prompt.
    NeedsInput,
    /// The agent finished what it was asked (or its pane ended cleanly).
    Done,
    /// The agent reported a failure, or its pane crashed or could not be relaunched.
    Error,
    /// Running, and no signal tells what the agent is doing (a harness without hooks that has
    /// not reported): never a guess shown as fact.
    Unknown,
}

impl AgentState {
    /// The stored spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Starting => "starting",
            Self::Working => "working",
            Self::Idle => "idle",
            Self::NeedsInput => "needs_input",
            Self::Done => "done",
            Self::Error => "error",
            Self::Unknown => "unknown",
        }
    }

    /// The value of a stored spelling (`unknown` for anything else).
    #[must_use]
    pub fn from_stored(s: &str) -> Self {
        match s {
            "starting" => Self::Starting,
            "working" => Self::Working,
            "idle" => Self::Idle,
            "needs_input" => Self::NeedsInput,
            "done" => Self::Done,
            "error" => Self::Error,
            _ => Self::Unknown,
        }
    }
}

/// The signal that set an agent's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AgentSource {
    /// The pane's lifecycle: launched, ended, crashed, relaunch refused.
    Lifecycle,
    /// The harness's own hooks, calling back with the pane's token.
    Hook,
    /// The agent's report through its MCP server (`report_status`, `report_attention`) or
    /// the REST route with the pane's token.
    SelfReport,
    /// The pane's screen, read by the plane: printing or quiet, what a quiet screen shows, a
    /// shell's foreground program.
    Screen,
    /// Nothing has said anything since the pane started.
    None,
}

impl AgentSource {
    /// The stored spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lifecycle => "lifecycle",
            Self::Hook => "hook",
            Self::SelfReport => "self_report",
            Self::Screen => "screen",
            Self::None => "none",
        }
    }

    /// The value of a stored spelling.
    #[must_use]
    pub fn from_stored(s: &str) -> Self {
        match s {
            "hook" => Self::Hook,
            "self_report" => Self::SelfReport,
            "lifecycle" => Self::Lifecycle,
            "screen" => Self::Screen,
            _ => Self::None,
        }
    }
}

/// What the agent in a pane is doing, as the API shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentStatus {
    /// The state.
    pub state: AgentState,
    /// When it entered that state (ms).
    pub since: i64,
    /// A one-line summary of what it is doing or why it stopped.
    pub summary: Option<String>,
    /// A link the agent gave (a pull request, a preview…): `http` or `https` only.
    pub link: Option<String>,
    /// The signal that set it.
    pub source: AgentSource,
}

/// A state a pane may report for itself (`starting` and `unknown` are the plane's own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReportedState {
    /// At work on a turn.
    Working,
    /// Waiting for a new prompt.
    Idle,
    /// Blocked on a person.
    NeedsInput,
    /// Finished what it was asked.
    Done,
    /// Failed.
    Error,
}

impl From<ReportedState> for AgentState {
    fn from(s: ReportedState) -> Self {
        match s {
            ReportedState::Working => Self::Working,
            ReportedState::Idle => Self::Idle,
            ReportedState::NeedsInput => Self::NeedsInput,
            ReportedState::Done => Self::Done,
            ReportedState::Error => Self::Error,
        }
    }
}

/// Which signal a report is: the harness's hook, or the agent speaking for itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReportSource {
    /// The harness's own hook.
    Hook,
    /// The agent itself (the default).
    #[default]
    SelfReport,
}

/// A one-line summary: 1 to 200 characters, no line break or other control character.
pub type AgentSummary = super::Text<1, 200>;

/// A link an agent gives with its state: an absolute `http` or `https` URL of at most 2,048
/// characters (no other scheme: it is shown as a link in the browser).
#[derive(Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct AgentLink(String);

/// Longest [`AgentLink`].
pub const AGENT_LINK_MAX: usize = 2048;

impl AgentLink {
    /// Validates `s`.
    pub fn new(s: &str) -> Result<Self, String> {
        const WHAT: &str = "must be an absolute http or https URL of at most 2048 characters";
        if s.chars().count() > AGENT_LINK_MAX || s.chars().any(is_forbidden_char) {
            return Err(WHAT.into());
        }
        match url::Url::parse(s) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {
                Ok(Self(s.to_owned()))
            }
            _ => Err(WHAT.into()),
        }
    }

    /// The URL as given.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for AgentLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl<'de> Deserialize<'de> for AgentLink {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::new(&s).map_err(de::Error::custom)
    }
}

impl JsonSchema for AgentLink {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "AgentLink".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "format": "uri",
            "maxLength": AGENT_LINK_MAX,
            "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://",
        })
    }
}

/// What a harness last said about needing a person.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Attention {
    /// Nothing.
    #[default]
    None,
    /// The agent waits for input.
    NeedsInput,
    /// The agent finished its task.
    Done,
}

impl Attention {
    /// The stored spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::NeedsInput => "needs_input",
            Self::Done => "done",
        }
    }

    /// The value of a stored spelling.
    #[must_use]
    pub fn from_stored(s: &str) -> Self {
        match s {
            "needs_input" => Self::NeedsInput,
            "done" => Self::Done,
            _ => Self::None,
        }
    }
}

/// One permission of a pane's token.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Read only.
    Read,
    /// Read and write.
    Write,
}

/// The permission map of a subshell token: a fixed ceiling for everything the pane does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Permissions {
    /// Channels (encrypted agent logs).
    pub channels: Access,
    /// Subshells of the pane's owner: `read` lists and reads them, `write` also types into,
    /// resizes, restarts, stops and launches them. Typing into a pane is full control of it
    /// (it can print its own token, which the typist then reads off its screen), so `write`
    /// reaches as far as the widest token among the owner's panes: give it only to a pane you
    /// would trust with all of them.
    pub subshells: Access,
}

impl Default for Permissions {
    fn default() -> Self {
        Self {
            channels: Access::Write,
            subshells: Access::Read,
        }
    }
}

impl Permissions {
    /// Whether every permission of `self` is within `ceiling`.
    #[must_use]
    pub fn within(&self, ceiling: &Self) -> bool {
        self.channels <= ceiling.channels && self.subshells <= ceiling.subshells
    }

    /// The most of `self` that fits within `ceiling`, permission by permission.
    #[must_use]
    pub fn capped(&self, ceiling: &Self) -> Self {
        Self {
            channels: self.channels.min(ceiling.channels),
            subshells: self.subshells.min(ceiling.subshells),
        }
    }
}

/// Who started a subshell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CreatedBy {
    /// A person with a browser session.
    Cookie,
    /// A script with a system key.
    SystemKey,
    /// Another subshell, with its token.
    Pane,
}

/// Text that may span lines: like [`Text`](crate::api::Text), with newline and tab allowed.
#[derive(Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Multiline<const MIN: usize, const MAX: usize>(String);

impl<const MIN: usize, const MAX: usize> Multiline<MIN, MAX> {
    /// The text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<const MIN: usize, const MAX: usize> std::fmt::Debug for Multiline<MIN, MAX> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl<'de, const MIN: usize, const MAX: usize> Deserialize<'de> for Multiline<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let n = s.chars().count();
        if n < MIN || n > MAX {
            return Err(de::Error::custom(format!(
                "must be {MIN} to {MAX} characters"
            )));
        }
        if s.chars()
            .any(|c| c != '\n' && c != '\t' && is_forbidden_char(c))
        {
            return Err(de::Error::custom(
                "must not contain control characters other than newline and tab, nor invisible \
                 or bidirectional-control characters",
            ));
        }
        Ok(Self(s))
    }
}

impl<const MIN: usize, const MAX: usize> JsonSchema for Multiline<MIN, MAX> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        format!("Multiline{MIN}to{MAX}").into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        // The forbidden class without tab (U+0009) and newline (U+000A).
        let class =
            forbidden_class().replacen("\\u0000-\\u001f", "\\u0000-\\u0008\\u000b-\\u001f", 1);
        json_schema!({
            "type": "string",
            "minLength": MIN,
            "maxLength": MAX,
            "pattern": format!("^[^{class}]*$"),
        })
    }
}

/// An initial prompt (on the harness's command line, or typed once the pane is quiet).
pub type Prompt = Multiline<1, 65_536>;

/// Most characters typed by one `input` request.
pub const INPUT_MAX_CHARS: usize = 262_144;

/// Keystrokes as text: any character but NUL (control characters are typed as they are).
#[derive(Clone, PartialEq, Eq, Serialize, Default)]
#[serde(transparent)]
pub struct InputText(String);

impl InputText {
    /// The text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for InputText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InputText({} chars)", self.0.chars().count())
    }
}

impl<'de> Deserialize<'de> for InputText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.chars().count() > INPUT_MAX_CHARS {
            return Err(de::Error::custom(format!(
                "must be at most {INPUT_MAX_CHARS} characters"
            )));
        }
        if s.contains('\0') {
            return Err(de::Error::custom("must not contain NUL"));
        }
        Ok(Self(s))
    }
}

impl JsonSchema for InputText {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "InputText".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "maxLength": INPUT_MAX_CHARS,
            "pattern": "^[^\\u0000]*$",
        })
    }
}

/// A terminal grid size: 1 to 1,000 columns or rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct GridSize(pub u16);

impl<'de> Deserialize<'de> for GridSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = u16::deserialize(d)?;
        if (1..=1000).contains(&v) {
            Ok(Self(v))
        } else {
            Err(de::Error::custom("must be 1 to 1000"))
        }
    }
}

impl JsonSchema for GridSize {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "GridSize".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "minimum": 1, "maximum": 1000 })
    }
}

/// A harness plugin's id: one of the built-in plugins (`shell`, `claude-code`, `codex`,
/// `gemini`, `opencode`); the schema lists them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct PluginId(String);

impl PluginId {
    /// Validates `s` against the built-in plugins.
    pub fn parse(s: &str) -> Result<Self, String> {
        if crate::plugins::find(s).is_some() {
            Ok(Self(s.to_owned()))
        } else {
            Err("must be a harness plugin id (see GET /api/plugins)".into())
        }
    }

    /// The id.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for PluginId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(de::Error::custom)
    }
}

impl JsonSchema for PluginId {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "PluginId".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let ids: Vec<&str> = crate::plugins::builtin().iter().map(|p| p.id).collect();
        json_schema!({ "type": "string", "enum": ids })
    }
}

/// `POST /api/subshells`: launch a harness in a pane.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LaunchRequest {
    /// The node to run on (the local node's id for the plane's own host).
    pub node_id: RowId,
    /// The harness plugin (`shell`, `claude-code`, `codex`, `gemini`, …).
    pub harness_id: PluginId,
    /// A workspace of the caller on that node: the pane starts in its directory.
    #[serde(default)]
    pub workspace_id: Option<RowId>,
    /// An absolute directory to start in (default: the workspace's directory, else the node's
    /// home). With a workspace too, this directory is used and the workspace recorded.
    #[serde(default)]
    pub cwd: Option<AbsPath>,
    /// A preset of the caller (environment, flags, settings, config isolation, auto-restart).
    #[serde(default)]
    pub preset_id: Option<RowId>,
    /// A name to show (default: the harness and a short id).
    #[serde(default)]
    pub name: Option<super::Name<1, 100>>,
    /// Columns (default 120).
    #[serde(default)]
    pub cols: Option<GridSize>,
    /// Rows (default 36).
    #[serde(default)]
    pub rows: Option<GridSize>,
    /// An initial prompt: passed on the harness's command line where it takes one there (Claude
    /// Code, Codex, Gemini CLI, opencode; a one-word prompt to Claude Code, which could name
    /// one of its subcommands, is typed instead); else typed once the pane's first screen has
    /// settled, and Enter pressed apart once the program has taken the text.
    #[serde(default)]
    pub prompt: Option<Prompt>,
    /// The permission map of the pane's token (default: channels write, subshells read). A pane
    /// that launches cannot give more than its own: one that names no map gives the default
    /// capped by its own (a pane that may only read channels launches one that may only read
    /// them too), one that names a map above its own is refused.
    #[serde(default)]
    pub permissions: Option<Permissions>,
    /// A harness session to resume (when the harness supports it): 1 to 256 of
    /// `[A-Za-z0-9._:-]`.
    #[serde(default)]
    pub resume: Option<ResumeId>,
}

/// A harness session id to resume.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ResumeId(String);

impl ResumeId {
    /// The id.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for ResumeId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let ok = (1..=256).contains(&s.len())
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-_:".contains(&b));
        if ok {
            Ok(Self(s))
        } else {
            Err(de::Error::custom(
                "must be 1 to 256 of letters, digits, `.`, `_`, `:` and `-`",
            ))
        }
    }
}

impl JsonSchema for ResumeId {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "ResumeId".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "pattern": "^[A-Za-z0-9._:-]{1,256}$" })
    }
}

/// A subshell as the API shows it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subshell {
    /// Subshell id (also its pane's id on the node).
    pub id: String,
    /// Name.
    pub name: String,
    /// The owning account.
    pub owner_user_id: String,
    /// The node it runs on.
    pub node_id: String,
    /// The harness plugin.
    pub harness_id: String,
    /// Working directory.
    pub cwd: String,
    /// The preset it was launched with.
    pub preset_id: Option<String>,
    /// The workspace it was launched in.
    pub workspace_id: Option<String>,
    /// Lifecycle state.
    pub state: SubshellState,
    /// The badge a view shows.
    pub status: SubshellStatus,
    /// Whether the node's link is up and its census applied.
    pub node_reachable: bool,
    /// Exit code, once ended (`null` when the pane vanished without one).
    pub exit_code: Option<i32>,
    /// Why the last launch failed.
    pub error: Option<String>,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// What the agent in it is doing.
    pub agent: AgentStatus,
    /// What the harness last reported.
    pub attention: Attention,
    /// When it reported it (ms).
    pub attention_at: Option<i64>,
    /// The harness's own session id, as it reported it (for resuming).
    pub harness_session_id: Option<String>,
    /// The permission map of the pane's token.
    pub permissions: Permissions,
    /// When the pane's token expires (ms); `null` once revoked.
    pub token_expires_at: Option<i64>,
    /// Relaunch when the program crashes (from the preset).
    pub auto_restart: bool,
    /// Relaunches so far.
    pub restarts: i64,
    /// The initial prompt's delivery: `none`, `pending`, `delivered` or `failed`.
    pub prompt_state: String,
    /// The subshell whose pane launched this one, if any.
    pub parent_subshell_id: Option<String>,
    /// Who launched it.
    pub created_by: CreatedBy,
    /// Creation time (ms).
    pub created_at: i64,
    /// Last change (ms).
    pub updated_at: i64,
    /// When the pane last started (ms).
    pub started_at: Option<i64>,
    /// When it last ended (ms).
    pub ended_at: Option<i64>,
    /// What its last launch could not do though the pane started: its harness does not load
    /// the pane's MCP server, and why (`null`: nothing).
    pub warning: Option<String>,
}

/// `GET /api/subshells` query.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SubshellsQuery {
    /// Only this node's subshells.
    #[serde(default)]
    pub node_id: Option<RowId>,
    /// Only this harness's.
    #[serde(default)]
    pub harness_id: Option<PluginId>,
    /// Only subshells in this state.
    #[serde(default)]
    pub state: Option<SubshellState>,
}

/// `GET /api/subshells/{id}/logs` query.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogsQuery {
    /// First byte to read (default 0).
    #[serde(default)]
    pub from_byte: u64,
    /// Most bytes to read (default and at most 1 MiB).
    #[serde(default = "default_max_bytes", deserialize_with = "max_bytes")]
    #[schemars(range(min = 1, max = 1_048_576))]
    pub max_bytes: u32,
}

pub(crate) fn default_max_bytes() -> u32 {
    1_048_576
}

pub(crate) fn max_bytes<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let v = u32::deserialize(d)?;
    if (1..=1_048_576).contains(&v) {
        Ok(v)
    } else {
        Err(de::Error::custom("must be 1 to 1048576"))
    }
}

/// `GET /api/subshells/{id}/logs` answer: a byte range of the pane's log.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogChunk {
    /// The first byte returned.
    pub from_byte: u64,
    /// One past the last byte returned.
    pub to_byte: u64,
    /// The log's size now.
    pub size: u64,
    /// The bytes, base64 (standard alphabet, padded).
    pub data_b64: String,
}

/// `GET /api/subshells/{id}/ended` query.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EndedQuery {
    /// How long to wait for the pane to end, in ms (default and at most 25000).
    #[serde(default = "default_wait_ms", deserialize_with = "wait_ms")]
    #[schemars(range(max = 25_000))]
    pub wait_ms: u32,
}

fn default_wait_ms() -> u32 {
    25_000
}

fn wait_ms<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let v = u32::deserialize(d)?;
    if v <= 25_000 {
        Ok(v)
    } else {
        Err(de::Error::custom("must be at most 25000"))
    }
}

/// `GET /api/subshells/{id}/screen` query.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScreenQuery {
    /// Lines of history to include above the visible screen (default 0, at most 10000).
    #[serde(default, deserialize_with = "history_lines")]
    #[schemars(range(max = 10_000))]
    pub lines: u32,
}

fn history_lines<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let v = u32::deserialize(d)?;
    if v <= 10_000 {
        Ok(v)
    } else {
        Err(de::Error::custom("must be at most 10000"))
    }
}

/// `GET /api/subshells/{id}/screen` answer: the pane's text as it shows now.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Screen {
    /// The text, one line per row.
    pub text: String,
}

/// A named key.
pub use termplane_proto::command::NamedKey;

/// `POST /api/subshells/{id}/input`: text typed literally, then named keys.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InputRequest {
    /// Text typed as it is (a long paste is sent in pieces, in order).
    #[serde(default)]
    pub text: InputText,
    /// Named keys pressed after the text (at most 64).
    #[serde(default, deserialize_with = "keys")]
    #[schemars(length(max = 64))]
    pub keys: Vec<NamedKey>,
}

fn keys<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<NamedKey>, D::Error> {
    let v = Vec::<NamedKey>::deserialize(d)?;
    if v.len() > 64 {
        return Err(de::Error::custom("at most 64 keys"));
    }
    Ok(v)
}

/// `POST /api/subshells/{id}/input` answer.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InputDone {
    /// Characters typed.
    pub chars: u64,
    /// Keys pressed.
    pub keys: u64,
    /// Commands it took (a long paste is split).
    pub pieces: u64,
}

/// `POST /api/subshells/{id}/resize`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResizeRequest {
    /// Columns.
    pub cols: GridSize,
    /// Rows.
    pub rows: GridSize,
}

/// `POST /api/subshells/{id}/attention` (the pane's own token only).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AttentionRequest {
    /// `needs_input`, `done`, or `none` to clear.
    pub attention: Attention,
}

/// `POST /api/subshells/{id}/status` (the pane's own token only): what the agent is doing.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StatusRequest {
    /// The state.
    pub state: ReportedState,
    /// A one-line summary (kept until the next report; none clears it).
    #[serde(default)]
    pub summary: Option<AgentSummary>,
    /// A link (kept until the next report; none clears it).
    #[serde(default)]
    pub link: Option<AgentLink>,
    /// Which signal this is (default `self_report`).
    #[serde(default)]
    pub source: ReportSource,
    /// The reporter's own time of what it reports (ms since the epoch), when it knows it: a
    /// report older than the newest one recorded for the pane is refused (409
    /// `STALE_REPORT`), so reports that cross on the way land in order. Within a day of the
    /// plane's clock.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub observed_at: Option<i64>,
}

/// `PUT /api/subshells/{id}/session` (the pane's own token only).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SessionRequest {
    /// The harness's own session id (what `resume` takes).
    pub harness_session_id: ResumeId,
}

/// `POST /api/subshells/{id}/keepalive` answer (the pane's own token only).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeptAlive {
    /// The token's new expiry (ms): seven days from now.
    pub token_expires_at: i64,
}

/// How an input reached a pane (see `GET /api/subshells/{id}/recording/inputs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InputKind {
    /// A batch of keys typed in a terminal (a pause of 2 s ends one).
    Typed,
    /// A paste into a terminal.
    Paste,
    /// Text or keys sent with `POST /api/subshells/{id}/input` (scripts; agents' `send_input`).
    Sent,
    /// A file uploaded into the pane's directory.
    Upload,
}

impl InputKind {
    /// The stored spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Typed => "typed",
            Self::Paste => "paste",
            Self::Sent => "sent",
            Self::Upload => "upload",
        }
    }

    /// The kind of a stored spelling.
    #[must_use]
    pub fn from_stored(s: &str) -> Option<Self> {
        [Self::Typed, Self::Paste, Self::Sent, Self::Upload]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// Who put input into a pane, how and when — never what: the keys themselves are not kept.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InputMark {
    /// When the input began (Unix ms, the plane's clock).
    pub at: i64,
    /// When its last key came (Unix ms; `at` for a single input).
    pub until: i64,
    /// How it came.
    pub kind: InputKind,
    /// The acting account (absent once the account is deleted).
    pub actor_user_id: Option<String>,
    /// The acting account's display name (absent once it is deleted).
    pub actor_name: Option<String>,
    /// The credential it acted with: a browser session (`cookie`), a system key, or a pane's
    /// token (`pane`).
    pub actor_kind: crate::api::audit::ActorKind,
    /// The pane whose token acted.
    pub via_subshell_id: Option<String>,
    /// The terminal viewer that typed (the number the pane's viewer list shows).
    pub viewer_id: Option<i64>,
    /// For an upload: `{ "name": …, "bytes": … }`.
    pub detail: Option<serde_json::Value>,
}

/// A pane's input marks.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InputMarks {
    /// Oldest first, at most 10,000.
    pub marks: Vec<InputMark>,
    /// Whether the pane has more marks than were listed (the newest are left out).
    pub truncated: bool,
}

/// A change in a pane's life, for its recording's timeline (`GET
/// /api/subshells/{id}/recording/events`).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaneEvent {
    /// When (Unix ms, the plane's clock).
    pub at: i64,
    /// `launched`, `launch_failed`, `restarted`, `terminated`, `killed` or `agent_state`.
    pub kind: String,
    /// For `agent_state`: the state the agent moved to (`working`, `needs_input`, …).
    pub state: Option<String>,
    /// For `agent_state`: the agent's one line about it, when it gave one.
    pub summary: Option<String>,
}

/// A pane's life events, oldest first, at most 10,000 (the latest).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaneEvents {
    /// The events.
    pub events: Vec<PaneEvent>,
}
