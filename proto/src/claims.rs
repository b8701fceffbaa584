//! Claims of a signed command (the JWS payload) and the fixed values they are checked against.

use serde::{Deserialize, Serialize};

use crate::command::Command;

/// The `iss` every command carries.
pub const COMMAND_ISSUER: &str = "termplane-control";

/// The JWS `typ` header every command carries (RFC 8725 §3.11 explicit typing).
pub const COMMAND_JWS_TYPE: &str = "termplane-command+jwt";

/// The JWS `alg` header: pinned.
pub const COMMAND_JWS_ALG: &str = "ES256";

/// The audience naming one node: `node:<nodeId>`.
#[must_use]
pub fn node_audience(node_id: &str) -> String {
    format!("node:{node_id}")
}

/// Payload claims of a command envelope.
///
/// `cmd` stays raw JSON here: the verification order checks signature, then `iss`/`aud`/time,
/// then the jti, then `seq`, and only last the command's structure (step 5), so a command of a
/// shape this build does not know still burns its jti and its seq.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claims {
    /// Issuer: [`COMMAND_ISSUER`].
    pub iss: String,
    /// Audience: `node:<nodeId>`.
    pub aud: String,
    /// Unique command id; results carry it as `ref`.
    pub jti: String,
    /// Issued at, epoch seconds.
    pub iat: i64,
    /// Expiry, epoch seconds (`iat + 30`).
    pub exp: i64,
    /// Per-connection ordering integer.
    pub seq: u64,
    /// The command object (`type` plus payload).
    pub cmd: serde_json::Value,
}

impl Claims {
    /// Step 5 of verification: the command's structure.
    pub fn command(&self) -> Result<Command, serde_json::Error> {
        serde_json::from_value(self.cmd.clone())
    }

    /// The command's `type`, if it has a string one (for logs and refusals).
    #[must_use]
    pub fn command_kind(&self) -> Option<&str> {
        self.cmd.get("type").and_then(|t| t.as_str())
    }
}
