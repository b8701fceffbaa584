//! Network plugins: extra addresses the plane listens on — its address on an overlay network
//! (a Tailscale or WireGuard interface), a LAN address — added and removed at run time by an
//! administrator, started again with the plane. While one listens, its origin is trusted (it is
//! in `GET /api/settings/public`); a listener that cannot bind is refused with the reason and
//! nothing is stored or changed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Text;
use super::accounts::OriginText;

/// `POST /api/network`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListenerRequest {
    /// A name ("tailnet", "lan").
    pub name: super::Name<1, 64>,
    /// `ip:port` to listen on (port 0 picks a free one); an IPv6 address in brackets.
    #[schemars(regex(
        pattern = r"^([0-9]{1,3}(\.[0-9]{1,3}){3}|\[[0-9A-Fa-f:.]{2,45}\]):[0-9]{1,5}$"
    ))]
    pub address: Text<3, 64>,
    /// The origin browsers use to reach it (a host name on the overlay network, say); by
    /// default `http://<address>`.
    #[serde(default)]
    pub origin: Option<OriginText>,
}

/// Whether a listener listens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ListenerState {
    /// Accepting connections; its origin is trusted.
    Running,
    /// Stored, but it could not bind when the plane started (`error` says why).
    Failed,
}

/// One network plugin.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Listener {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `ip:port` as bound.
    pub address: String,
    /// The origin trusted while it runs.
    pub origin: String,
    /// Whether it listens.
    pub state: ListenerState,
    /// Why it does not, when it failed.
    pub error: Option<String>,
    /// When it was added (ms since the Unix epoch).
    pub created_at: i64,
}
