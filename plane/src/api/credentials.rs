//! System keys and setup keys.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::DisplayName;

/// A system key as listed: never its secret.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SystemKey {
    /// Key id.
    pub id: String,
    /// Name given at creation.
    pub name: String,
    /// Non-secret preview of the key (`tp_…` and its last four characters).
    pub preview: String,
    /// Whether it authenticates.
    pub enabled: bool,
    /// Creation time (milliseconds since the Unix epoch).
    pub created_at: i64,
}

/// `POST /api/system-keys`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateSystemKeyRequest {
    /// A name to recognise the key by.
    pub name: DisplayName,
}

/// `POST /api/system-keys` answer: the only time the key's plaintext is shown.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SystemKeyCreated {
    /// Key id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Non-secret preview.
    pub preview: String,
    /// Whether it authenticates (a new key does).
    pub enabled: bool,
    /// Creation time (milliseconds since the Unix epoch).
    pub created_at: i64,
    /// The key's plaintext (`tp_…`): shown in this answer and never again.
    #[schemars(regex(pattern = r"^tp_[A-Za-z0-9_-]{43}$"))]
    pub key: String,
}

/// `POST /api/system-keys/{id}/disable` answer.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SystemKeyDisabled {
    /// Key id.
    pub id: String,
    /// Always `false`: the key authenticates nowhere from its next request on.
    pub enabled: bool,
}

/// A setup key's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SetupKeyStatus {
    /// Unused, unrevoked and less than 24 hours old.
    Active,
    /// A node enrolled with it.
    Used,
    /// Older than 24 hours.
    Expired,
    /// Revoked by its owner or an administrator.
    Revoked,
}

/// A setup key (stored in the clear by design and listed in full while active).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetupKey {
    /// Key id.
    pub id: String,
    /// The key in full while it is active; `null` otherwise.
    pub key: Option<String>,
    /// Non-secret preview.
    pub preview: String,
    /// State.
    pub status: SetupKeyStatus,
    /// Creation time (ms).
    pub created_at: i64,
    /// Expiry, 24 hours after creation (ms).
    pub expires_at: i64,
    /// When a node enrolled with it (ms).
    pub used_at: Option<i64>,
    /// The node that enrolled with it.
    pub used_by_node_id: Option<String>,
    /// When it was revoked (ms).
    pub revoked_at: Option<i64>,
    /// While it is active, the commands that add a node with it; `null` otherwise.
    pub install: Option<super::install::NodeInstall>,
}
