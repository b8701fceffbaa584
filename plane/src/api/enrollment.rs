//! Node enrollment.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::Deserializer;
use serde::{Deserialize, Serialize};

use super::{Key32Text, Text};

/// The pattern of a setup key: `nsk_` and 43 unpadded base64url characters.
pub const SETUP_KEY_PATTERN: &str = "^nsk_[A-Za-z0-9_-]{43}$";

/// A setup key's text. It is the credential of the route, so any string is read here and every
/// key the plane does not know — another credential, a malformed or an unknown key — is refused
/// alike with 401 `SETUP_KEY_INVALID` (and counts towards the address's backoff), never with a
/// validation error that would describe it. The schema's description gives the shape the plane
/// mints.
#[derive(Clone, PartialEq, Eq)]
pub struct SetupKeyText(String);

impl SetupKeyText {
    /// The key's text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for SetupKeyText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SetupKeyText(…)")
    }
}

impl<'de> Deserialize<'de> for SetupKeyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Self)
    }
}

impl JsonSchema for SetupKeyText {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "SetupKeyText".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": format!(
                "The setup key: `{SETUP_KEY_PATTERN}`. Any other string is refused as an invalid key (401)."
            ),
        })
    }
}

/// A node's operating system, as it reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Os {
    /// Linux.
    Linux,
    /// macOS.
    Darwin,
    /// Anything else.
    Unknown,
}

impl Os {
    /// The wire and stored spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Linux => "linux",
            Self::Darwin => "darwin",
            Self::Unknown => "unknown",
        }
    }
}

/// The `kty` of a P-256 JWK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Kty {
    /// Elliptic curve.
    #[serde(rename = "EC")]
    Ec,
}

/// The `crv` of a P-256 JWK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Crv {
    /// NIST P-256.
    #[serde(rename = "P-256")]
    P256,
}

/// A P-256 public key as a JWK. As a request field, the point must also lie on the curve
/// (checked after the request's credential; a point off the curve is a 400 naming the field).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Jwk {
    /// `EC`.
    pub kty: Kty,
    /// `P-256`.
    pub crv: Crv,
    /// The x coordinate: 32 bytes, canonical unpadded base64url.
    pub x: Key32Text,
    /// The y coordinate: 32 bytes, canonical unpadded base64url.
    pub y: Key32Text,
}

impl Jwk {
    /// Whether `(x, y)` is a point of P-256 (not the identity).
    #[must_use]
    pub fn is_on_curve(&self) -> bool {
        let mut sec1 = [0_u8; 65];
        sec1[0] = 4;
        sec1[1..33].copy_from_slice(&self.x.0);
        sec1[33..].copy_from_slice(&self.y.0);
        termplane_machines::jws::is_p256_public_point(&sec1)
    }
}

/// `POST /api/nodes/enroll`: a node enrolls with a single-use setup key.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EnrollRequest {
    /// The setup key: the credential of this route, spent by a successful enrollment.
    pub setup_key: SetupKeyText,
    /// The node's name (at most 64 characters).
    pub name: super::Name<1, 64>,
    /// The node's operating system.
    pub os: Os,
    /// CPU architecture.
    pub arch: Text<1, 64>,
    /// Host name.
    pub hostname: Text<1, 255>,
    /// Version of the node daemon.
    pub agent_version: Text<1, 64>,
    /// The node's P-256 identity public key.
    pub identity_jwk: Jwk,
    /// The node's long-term X25519 link public key; without it the row starts unpaired (the node
    /// registers its key on its first connection). All-zero and low-order keys are refused.
    #[serde(default)]
    pub encrypt_public_key: Option<Key32Text>,
}

/// `POST /api/nodes/enroll` answer.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Enrolled {
    /// The new node's id.
    pub node_id: String,
    /// The name the node was given: the one asked for, or when another node of the same owner
    /// already has it, that name with the first free number (`host-2`, `host-3`…).
    pub name: String,
    /// The node key (`tp_…`): shown in this answer only; it opens `/ws/node` and nothing else.
    pub node_key: String,
    /// The plane's command-signing public key.
    pub signing_public_jwk: Jwk,
    /// The plane's X25519 link public key.
    pub control_encrypt_public_key: Key32Text,
    /// The full address of the node WebSocket (`ws://…/ws/node` or `wss://…/ws/node`).
    pub ws_url: String,
}
