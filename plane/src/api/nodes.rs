//! Node rows, their settings, the node link's admin surface, downloads and held nodes.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use super::AbsPath;
use super::enrollment::Jwk;

/// Whether a node's link is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Liveness {
    /// An established link passed both gates (the local node is always online).
    Online,
    /// No such link.
    Offline,
}

/// A node's maintenance mirror.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MaintenanceMirror {
    /// Whether the node is in maintenance.
    pub on: bool,
    /// When it last changed (ISO 8601 UTC).
    pub changed_at: String,
}

/// A node row.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// Node id.
    pub node_id: String,
    /// Name (at most 64 characters).
    pub name: String,
    /// `linux`, `darwin` or `unknown`, as the node reports it.
    pub os: String,
    /// CPU architecture.
    pub arch: String,
    /// Host name.
    pub hostname: String,
    /// Version of the node daemon (the plane's own for the local node).
    pub agent_version: String,
    /// The node's P-256 identity key (`null` for the local node).
    pub identity_jwk: Option<Jwk>,
    /// The node's X25519 link public key; `null` while unpaired.
    pub encrypt_public_key: Option<String>,
    /// Whether the link is up.
    pub liveness: Liveness,
    /// Supervision snapshot, as the node last reported it in `ready`.
    pub runtime: Option<serde_json::Value>,
    /// The maintenance mirror, when set.
    pub maintenance: Option<MaintenanceMirror>,
    /// Allowed directories; empty means unrestricted.
    pub allowed_dirs: Vec<String>,
    /// The plane host's own row (it runs no node daemon).
    pub is_local: bool,
    /// Whether scripts (system keys) may launch subshells on it (`PUT
    /// /api/nodes/{id}/system-access`; the local node is always open to them).
    pub system_access: bool,
    /// Whether its panes are recorded (`PUT /api/nodes/{id}/recording`; on by default): panes
    /// launched or restarted while it is off, or while the plane's own `--recording` is off,
    /// are logged with no timing.
    pub recording: bool,
    /// Days its panes' recordings are kept (`PUT /api/nodes/{id}/recording`); `null`: the
    /// plane's default (`--recording-retention-days`; none: kept as long as the pane, within
    /// its log's cap). A workspace's own setting wins for its panes.
    pub recording_retention_days: Option<i64>,
    /// Whether the caller may launch subshells on it: an administrator's session on any node,
    /// a person on the nodes they own (not the local node, unless they are an administrator),
    /// a script on its own nodes, the local node and the nodes open to scripts. A launch, a
    /// harness check or a folder listing on a node answering `false` is refused.
    pub can_launch: bool,
    /// Creation time (ms).
    pub created_at: i64,
    /// Last change (ms).
    pub updated_at: i64,
}

/// `POST /api/nodes/{id}/key_rotate` answer.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeKeyRotated {
    /// Node id.
    pub node_id: String,
    /// The new node key (`tp_…`), shown in this answer only; install it on the node with
    /// `termplane-node configure --key`.
    pub node_key: String,
}

/// Most entries of an allowed-directories list (at its longest the list fits the body limit:
/// 64 paths of 1,024 characters, each escaped as `\uXXXX` pairs at worst, is under 1 MiB).
pub const ALLOWED_DIRS_MAX: usize = 64;

/// `PUT /api/nodes/{id}/allowed_dirs`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AllowedDirsRequest {
    /// The new list (at most 64 absolute paths); empty means unrestricted.
    #[serde(deserialize_with = "at_most_allowed_dirs")]
    #[schemars(length(max = 64))]
    pub allowed_dirs: Vec<AbsPath>,
}

fn at_most_allowed_dirs<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<AbsPath>, D::Error> {
    let v = Vec::<AbsPath>::deserialize(d)?;
    if v.len() > ALLOWED_DIRS_MAX {
        return Err(de::Error::custom(format!(
            "at most {ALLOWED_DIRS_MAX} directories"
        )));
    }
    Ok(v)
}

/// `PUT /api/nodes/{id}/maintenance`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MaintenanceRequest {
    /// Maintenance on or off.
    pub on: bool,
}

/// `PUT /api/nodes/{id}/maintenance` answer.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MaintenanceSet {
    /// Maintenance on or off.
    pub on: bool,
    /// When the mirror changed (ISO 8601 UTC).
    pub changed_at: String,
    /// Whether the online node took the mirror.
    pub pushed: bool,
}

/// `POST /api/nodes/{id}/ping` answer.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodePing {
    /// Whether the node answered `ping` successfully.
    pub ok: bool,
    /// Round trip through the link, in milliseconds.
    pub rtt_ms: u64,
    /// The node's refusal, when `ok` is false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A node's `result` event, as relayed.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct NodeResult {
    /// The command's jti.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Whether it succeeded.
    pub ok: bool,
    /// Result data on success (the command's own shape).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
    /// The refusal or failure text (one of the protocol's refusal strings where one applies, so
    /// it can be matched exactly).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What went wrong beyond the refusal string (`HTTP 404` after `download failed`, say).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl From<termplane_proto::CommandResult> for NodeResult {
    fn from(r: termplane_proto::CommandResult) -> Self {
        Self {
            reference: r.reference,
            ok: r.ok,
            data: r.data,
            error: r.error,
            detail: r.detail,
        }
    }
}

/// `POST /api/nodes/{id}/commands`: one node command, exactly as the link carries it (the
/// protocol's command: `type` names it, the other fields are its payload).
#[derive(Clone, Debug, Deserialize)]
#[serde(transparent)]
pub struct NodeCommandRequest(pub termplane_proto::Command);

impl JsonSchema for NodeCommandRequest {
    fn schema_name() -> Cow<'static, str> {
        "NodeCommand".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        termplane_proto::Command::json_schema(generator)
    }
}

/// `POST /api/nodes/{id}/commands` answer.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeCommandAnswer {
    /// The node's `result`.
    pub result: NodeResult,
    /// Unix microseconds just before the command was dispatched.
    pub sent_at_us: u64,
    /// Dispatch to result, in microseconds, measured in the plane.
    pub elapsed_us: u64,
}

/// Longest a node-events read may wait (milliseconds).
pub const EVENTS_MAX_WAIT_MS: u64 = 25_000;

/// `GET /api/nodes/{id}/events` query.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NodeEventsQuery {
    /// Read events after this sequence number (default 0: from the oldest kept).
    #[serde(default)]
    pub after: u64,
    /// Wait up to this many milliseconds for the first event (default 0, at most 25000).
    #[serde(default, deserialize_with = "wait_ms")]
    #[schemars(range(max = 25_000))]
    pub wait_ms: u64,
}

fn wait_ms<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let v = u64::deserialize(d)?;
    if v > EVENTS_MAX_WAIT_MS {
        return Err(de::Error::custom(format!(
            "must be at most {EVENTS_MAX_WAIT_MS}"
        )));
    }
    Ok(v)
}

/// One event a node sent on its own.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeEvent {
    /// Per-node sequence number (since the plane started).
    pub seq: u64,
    /// When the plane received it, Unix microseconds.
    pub at_us: u64,
    /// The event's type (`output`, `exit`, `subshells_report`, `maintenance`, `inventory`,
    /// `error`).
    pub kind: String,
    /// The event as the node sent it.
    pub event: serde_json::Value,
}

/// `GET /api/nodes/{id}/events` answer.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeEvents {
    /// The events after `after`, oldest first.
    pub events: Vec<NodeEvent>,
    /// Pass as `after` to read on.
    pub next: u64,
    /// Events after `after` were evicted before this read.
    pub dropped: bool,
}

/// The pattern of a download platform: `<os>-<arch>`, e.g. `linux-x86_64`.
pub const PLATFORM_PATTERN: &str = "^[a-z0-9_]{1,31}-[a-z0-9_]{1,32}$";

/// A node-binary platform (`<os>-<arch>`); any other shape is 404 `NOT_FOUND`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Platform(String);

impl Platform {
    /// The platform text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Platform {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let part = |p: &str, max: usize| {
            (1..=max).contains(&p.len())
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        };
        match s.split_once('-') {
            Some((os, arch)) if part(os, 31) && part(arch, 32) => Ok(Self(s)),
            _ => Err(de::Error::custom(
                "must be `<os>-<arch>`, e.g. linux-x86_64",
            )),
        }
    }
}

impl JsonSchema for Platform {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Platform".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "pattern": PLATFORM_PATTERN })
    }
}

/// `GET /api/downloads/node/{platform}` path parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlatformParam {
    /// `<os>-<arch>`, e.g. `linux-x86_64`.
    pub platform: Platform,
}

/// A node held for an update by a live socket.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeldNode {
    /// Node id.
    pub node_id: String,
    /// Name (null when the row is gone).
    pub name: Option<String>,
    /// The version the row holds.
    pub agent_version: Option<String>,
    /// The row's liveness.
    pub liveness: Option<Liveness>,
    /// Why the node is held (names the required and the found version).
    pub reason: String,
}

/// A node whose stored version is below the floor.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BelowFloorNode {
    /// Node id.
    pub node_id: String,
    /// Name.
    pub name: String,
    /// The version the node last reported.
    pub agent_version: String,
}

/// `GET /api/admin/updates/held` answer.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HeldNodes {
    /// The version floor.
    pub min_node_version: String,
    /// Nodes held by a live socket.
    pub held: Vec<HeldNode>,
    /// Rows below the floor.
    pub below_floor: Vec<BelowFloorNode>,
}

/// `POST /api/admin/updates/nodes/{id}` and `POST /api/admin/updates/outdated`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NodeUpdateRequest {
    /// Update even though panes run on the node: the node refuses an update ("kills panes")
    /// while any of its panes runs, since the restart its service manager then does may end
    /// them with the daemon. (`runtime.panesAtRisk` is what the node said at its last `ready`;
    /// the node decides on what runs when the update arrives.)
    #[serde(default)]
    pub force: Option<bool>,
}

/// What an update sent to one node came to.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeUpdateOutcome {
    /// The node.
    pub node_id: String,
    /// Its name.
    pub name: String,
    /// The version it ran.
    pub from_version: String,
    /// The version it was sent (the plane's own: the plane serves node binaries of its version).
    pub to_version: String,
    /// Whether the node accepted, verified and installed the binary (it restarts next and comes
    /// back online on the new version).
    pub ok: bool,
    /// Why not, when `ok` is false (the node's own words, or why it could not be asked).
    pub reason: Option<String>,
}
