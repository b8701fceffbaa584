//! The administrator's views of the plane: its status and its deployment.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

/// `GET /api/admin/status`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminStatus {
    /// The plane's version.
    pub version: String,
    /// Seconds since the plane started.
    pub uptime_secs: i64,
    /// `sqlite` or `postgres`.
    pub database: String,
    /// The database's size in bytes, when the backend tells.
    pub database_bytes: Option<i64>,
    /// Remote nodes by liveness (`online`, `offline`, `held`); the local node is not counted.
    pub nodes_by_liveness: BTreeMap<String, u64>,
    /// Remote nodes by the version they last reported.
    pub nodes_by_version: BTreeMap<String, u64>,
    /// Nodes held for an update right now.
    pub held_nodes: u64,
    /// Whether the local node runs panes (tmux found, not turned off).
    pub local_node: bool,
    /// Subshells by state.
    pub subshells_by_state: BTreeMap<String, u64>,
}

/// One node binary the plane serves.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeDownload {
    /// `<os>-<arch>`.
    pub platform: String,
    /// Where nodes fetch it.
    pub url: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Lowercase hex SHA-256.
    pub sha256: String,
}

/// `GET /api/admin/deployment`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Deployment {
    /// The plane's version.
    pub version: String,
    /// The addresses it listens on.
    pub listen: Vec<String>,
    /// The address it says it lives at (`APP_BASE_URL`).
    pub base_url: String,
    /// Its data directory.
    pub data_dir: Option<String>,
    /// `sqlite` or `postgres`.
    pub database: String,
    /// Every origin a browser may send state-changing requests from.
    pub trusted_origins: Vec<String>,
    /// The node binaries served at `/api/downloads/node/{platform}`.
    pub node_downloads: Vec<NodeDownload>,
}
