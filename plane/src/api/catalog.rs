//! The launch catalog: harness plugins and their detection on nodes, presets and workspaces.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use super::subshells::PluginId;
use super::{AbsPath, RowId, Text};

/// How the node finds a harness's binary.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Detection {
    /// The binary's name, looked up on the node's `PATH`.
    pub binary_name: String,
    /// An environment variable of the node that names the binary instead, when set.
    pub env_override: Option<String>,
    /// Places looked at after `PATH` (`~` is the node's home).
    pub known_paths: Vec<String>,
    /// Arguments that make the binary print its version.
    pub version_args: Vec<String>,
}

/// How a harness is told to load the pane's MCP server.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpDialect {
    /// `none`, or how: `claude-mcp-config`, `codex-config-override`, `gemini-settings`,
    /// `opencode-config`.
    pub kind: String,
    /// What the plane writes and passes, in words.
    pub description: String,
}

/// A harness plugin.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Plugin {
    /// Plugin id.
    pub id: String,
    /// Name.
    pub name: String,
    /// What it runs.
    pub description: String,
    /// `harness` (the only kind today).
    pub kind: String,
    /// Whether it may be launched (an administrator turns plugins on or off).
    pub enabled: bool,
    /// How the binary is found.
    pub detection: Detection,
    /// The command line, with `@@HARNESS_BINARY@@` in the binary's place.
    pub argv: Vec<String>,
    /// How its MCP server is registered.
    pub mcp: McpDialect,
    /// Whether it can resume an earlier session (`resume` at launch).
    pub resume: bool,
}

/// `PUT /api/plugins/{id}`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PluginUpdate {
    /// On or off.
    pub enabled: bool,
}

/// `/api/plugins/{id}` path parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginParam {
    /// Plugin id.
    pub id: PluginId,
}

/// A harness as one node has it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HarnessStatus {
    /// Plugin id.
    pub harness_id: String,
    /// Plugin name.
    pub name: String,
    /// Whether the plugin is enabled.
    pub enabled: bool,
    /// Whether the node's last detection found the binary.
    pub installed: bool,
    /// The first line the binary printed when asked for its version, as it printed it
    /// (`GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)`).
    pub version: Option<String>,
    /// The version number found in that line (`5.2.15`): the first run of digits with at
    /// least one dot, and a pre-release or build suffix that follows it directly (`1.0.0-rc.1`);
    /// `null` when the line holds none.
    pub version_number: Option<String>,
    /// Where it is.
    pub binary_path: Option<String>,
    /// Why it was not found.
    pub reason: Option<String>,
    /// When the node last looked (ms); `null` when it never did.
    pub checked_at: Option<i64>,
    /// Whether a launch would pass the gate now (enabled, and found by a detection less than
    /// ten minutes old).
    pub launchable: bool,
    /// Why not, when it is not: `plugin_disabled`, `not_detected`, `detection_stale`,
    /// `not_installed`.
    pub why_not: Option<String>,
}

/// `GET /api/nodes/{id}/harnesses` query.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HarnessesQuery {
    /// Ask the node again now (a re-check), instead of answering from the last detection when
    /// it is fresh.
    #[serde(default)]
    pub refresh: bool,
}

/// `GET /api/nodes/{id}/dirs` query.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DirsQuery {
    /// The directory to list (absolute); the node's home directory when absent.
    #[serde(default)]
    pub path: Option<AbsPath>,
}

/// One directory on a node.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DirEntry {
    /// Its name (not a path).
    pub name: String,
}

/// `GET /api/nodes/{id}/dirs`: the directories in one directory of a node, for a folder picker.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DirListing {
    /// The directory listed (absolute).
    pub path: String,
    /// Its subdirectories, by name, sorted (the node leaves hidden ones out).
    pub entries: Vec<DirEntry>,
    /// Whether the node stopped at its entry limit.
    pub truncated: bool,
}

/// An environment variable name: a letter or `_`, then letters, digits and `_` (at most 128).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct EnvName(String);

impl EnvName {
    /// The name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for EnvName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let ok = (1..=128).contains(&s.len())
            && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if ok {
            Ok(Self(s))
        } else {
            Err(de::Error::custom(
                "must be an environment variable name (letters, digits, `_`)",
            ))
        }
    }
}

impl JsonSchema for EnvName {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "EnvName".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]{0,127}$" })
    }
}

/// An environment of a preset: at most 64 variables.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(transparent)]
pub struct PresetEnv(pub BTreeMap<String, String>);

impl<'de> Deserialize<'de> for PresetEnv {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = BTreeMap::<EnvName, Text<0, 4096>>::deserialize(d)?;
        if raw.len() > 64 {
            return Err(de::Error::custom("at most 64 variables"));
        }
        Ok(Self(
            raw.into_iter()
                .map(|(k, v)| (k.as_str().to_owned(), v.into_string()))
                .collect(),
        ))
    }
}

impl JsonSchema for PresetEnv {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "PresetEnv".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let value = generator.subschema_for::<Text<0, 4096>>().to_value();
        json_schema!({
            "type": "object",
            "maxProperties": 64,
            "propertyNames": { "pattern": "^[A-Za-z_][A-Za-z0-9_]{0,127}$" },
            "additionalProperties": value,
        })
    }
}

/// A flag added to a harness's command line: 1 to 1,024 characters.
pub type Flag = Text<1, 1024>;

/// `POST /api/presets` and `PUT /api/presets/{id}`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PresetRequest {
    /// Name.
    pub name: super::Name<1, 100>,
    /// The harness it is for (any, when absent).
    #[serde(default)]
    pub harness_id: Option<PluginId>,
    /// Environment variables of the pane (they win over the node's).
    #[serde(default)]
    pub env: PresetEnv,
    /// Flags added to the harness's command line, in order (at most 32).
    #[serde(default, deserialize_with = "flags")]
    #[schemars(length(max = 32))]
    pub flags: Vec<Flag>,
    /// Harness settings, passed as they are (an object).
    #[serde(default)]
    pub settings: Option<serde_json::Map<String, serde_json::Value>>,
    /// A private configuration directory for the harness on the node, kept across launches.
    #[serde(default)]
    pub config_isolation: bool,
    /// Relaunch the pane when its program crashes.
    #[serde(default)]
    pub auto_restart: bool,
}

fn flags<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Flag>, D::Error> {
    let v = Vec::<Flag>::deserialize(d)?;
    if v.len() > 32 {
        return Err(de::Error::custom("at most 32 flags"));
    }
    Ok(v)
}

/// A preset.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Preset {
    /// Preset id.
    pub id: String,
    /// The owning account.
    pub owner_user_id: String,
    /// Name.
    pub name: String,
    /// The harness it is for.
    pub harness_id: Option<String>,
    /// Environment variables.
    pub env: BTreeMap<String, String>,
    /// Flags.
    pub flags: Vec<String>,
    /// Harness settings.
    pub settings: Option<serde_json::Map<String, serde_json::Value>>,
    /// A private configuration directory per harness on the node.
    pub config_isolation: bool,
    /// Relaunch on crash.
    pub auto_restart: bool,
    /// Creation time (ms).
    pub created_at: i64,
    /// Last change (ms).
    pub updated_at: i64,
}

/// `POST /api/workspaces` and `PUT /api/workspaces/{id}`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WorkspaceRequest {
    /// Name.
    pub name: super::Name<1, 100>,
    /// The node the directory is on.
    pub node_id: RowId,
    /// The directory (absolute; the node checks it against its allowed directories at launch).
    pub path: AbsPath,
}

/// A workspace: a named directory on a node.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Workspace {
    /// Workspace id.
    pub id: String,
    /// The owning account.
    pub owner_user_id: String,
    /// Name.
    pub name: String,
    /// The node.
    pub node_id: String,
    /// The directory.
    pub path: String,
    /// Whether its panes are recorded (`PUT /api/workspaces/{id}/recording`, an
    /// administrator's; on by default): panes launched or restarted in it while it is off are
    /// logged with no timing.
    pub recording: bool,
    /// Days its panes' recordings are kept; `null`: as long as its node's setting says.
    pub recording_retention_days: Option<i64>,
    /// Creation time (ms).
    pub created_at: i64,
    /// Last change (ms).
    pub updated_at: i64,
}

/// `PUT /api/nodes/{id}/recording` and `PUT /api/workspaces/{id}/recording` (an
/// administrator's session): both settings are replaced.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RecordingRequest {
    /// Whether the panes launched or restarted there from now on are recorded.
    pub on: bool,
    /// Days a recording of theirs is kept (what was printed longer ago is deleted); absent or
    /// `null`: a workspace's panes as their node says, a node's as the plane's
    /// `--recording-retention-days` says.
    #[serde(default)]
    pub retention_days: Option<RetentionDays>,
}

/// How many days recordings are kept: 1 to 3,650.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct RetentionDays(pub u16);

/// The most days a retention may say (ten years).
pub const MAX_RETENTION_DAYS: u16 = 3650;

impl<'de> Deserialize<'de> for RetentionDays {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = u16::deserialize(d)?;
        if (1..=MAX_RETENTION_DAYS).contains(&v) {
            Ok(Self(v))
        } else {
            Err(de::Error::custom("must be 1 to 3650 (days)"))
        }
    }
}

impl JsonSchema for RetentionDays {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "RetentionDays".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "minimum": 1, "maximum": MAX_RETENTION_DAYS })
    }
}

/// `PUT /api/nodes/{id}/system-access` (an administrator's session).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SystemAccessRequest {
    /// Whether scripts holding a system key may launch subshells on the node.
    pub allowed: bool,
}
