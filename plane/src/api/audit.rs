//! The audit log.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{RowId, Text};

/// Who acted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActorKind {
    /// A person with a browser session.
    Cookie,
    /// A script with a system key.
    SystemKey,
    /// A node enrolling with a setup key.
    SetupKey,
    /// An agent in a pane, with its subshell token.
    Pane,
    /// The plane itself.
    Plane,
}

impl ActorKind {
    /// The stored spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cookie => "cookie",
            Self::SystemKey => "system_key",
            Self::SetupKey => "setup_key",
            Self::Pane => "pane",
            Self::Plane => "plane",
        }
    }

    /// The kind of a stored spelling (unknown spellings read as the plane's own).
    #[must_use]
    pub fn from_stored(s: &str) -> Self {
        match s {
            "cookie" => Self::Cookie,
            "system_key" => Self::SystemKey,
            "setup_key" => Self::SetupKey,
            "pane" => Self::Pane,
            _ => Self::Plane,
        }
    }
}

/// One audit entry.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    /// Sequence number.
    pub id: i64,
    /// When (milliseconds since the Unix epoch).
    pub at: i64,
    /// The acting account, if any.
    pub actor_user_id: Option<String>,
    /// Who acted.
    pub actor_kind: ActorKind,
    /// What happened (`system_key.created`, `node.enrolled`, …).
    pub action: String,
    /// The row acted on.
    pub target: Option<String>,
    /// Extra facts (never a secret).
    pub detail: serde_json::Value,
}

/// `GET /api/audit` query: filters (all optional, combined with AND) and the cursor.
///
/// Entries come newest first. To page, pass the `id` of the last entry of a page as `before`:
/// the next page holds the entries older than it (a cursor, so entries written meanwhile never
/// shift a page).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AuditQuery {
    /// Only entries by this account.
    #[serde(default)]
    pub actor: Option<RowId>,
    /// Only entries by this kind of actor.
    #[serde(default)]
    pub actor_kind: Option<ActorKind>,
    /// Only this action (`node.enrolled`), or, ending with a dot, this family of actions
    /// (`node.`).
    #[serde(default)]
    pub action: Option<Text<1, 100>>,
    /// Only entries about this row.
    #[serde(default)]
    pub target: Option<Text<1, 200>>,
    /// Only entries at or after this time (ms since the Unix epoch).
    #[serde(default)]
    pub from: Option<i64>,
    /// Only entries before this time (ms since the Unix epoch).
    #[serde(default)]
    pub to: Option<i64>,
    /// Only entries older than the entry with this `id` (the cursor).
    #[serde(default)]
    pub before: Option<i64>,
    /// Page size: 1 to 500 (default 100).
    #[serde(default)]
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u16>,
}

#[cfg(test)]
mod tests {
    use super::ActorKind;

    #[test]
    fn every_actor_kind_reads_back_as_itself() {
        for k in [
            ActorKind::Cookie,
            ActorKind::SystemKey,
            ActorKind::SetupKey,
            ActorKind::Pane,
            ActorKind::Plane,
        ] {
            assert_eq!(ActorKind::from_stored(k.as_str()), k);
        }
    }
}
