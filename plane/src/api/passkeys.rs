//! Passkeys: WebAuthn credentials an account registers and signs in with.
//!
//! # Registering (a signed-in browser session)
//!
//! 1. `POST /api/auth/passkeys/register/start` `{name}` answers `{ceremonyId, publicKey}`:
//!    `publicKey` is a `PublicKeyCredentialCreationOptions` in JSON form (binary fields are
//!    base64url strings without padding), to decode and hand to `navigator.credentials.create`.
//! 2. `POST /api/auth/passkeys/register/finish` `{ceremonyId, credential}`: `credential` is the
//!    `PublicKeyCredential` the browser made, in JSON form (`PublicKeyCredential.toJSON()`, or
//!    its fields with every binary value base64url-encoded). User verification is required.
//!
//! # Signing in
//!
//! 1. `POST /api/auth/passkey/start` `{email}` answers `{ceremonyId, publicKey}` (request
//!    options for `navigator.credentials.get`). An unknown email, or an account without
//!    passkeys, gets an answer of the same shape (a decoy credential id that is stable for that
//!    email while the plane runs), so the answer does not tell whether the account exists.
//! 2. `POST /api/auth/passkey/finish` `{ceremonyId, credential}` signs in like a password does
//!    (a fresh session cookie; the sign-in backoff counts failures).
//!
//! A ceremony lasts 5 minutes and is finished at most once, whether it verifies or not. The
//! relying-party id is the host of the plane's base URL (`APP_BASE_URL`; a plane on loopback is
//! `localhost`), so a plane addressed by an IP address has no passkeys.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

use super::{Email, Text};

/// A passkey's name: 1 to 64 characters.
pub type PasskeyName = super::Name<1, 64>;

/// A ceremony's id, as the start answer gave it.
pub type CeremonyId = Text<1, 128>;

/// `POST /api/auth/passkeys/register/start`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PasskeyRegisterStart {
    /// A name to tell this passkey from the account's others ("laptop", "phone").
    pub name: PasskeyName,
}

/// `POST /api/auth/passkey/start`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PasskeySignInStart {
    /// The account's email.
    pub email: Email,
}

/// The answer of both start routes.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PasskeyCeremony {
    /// Names this ceremony in the finish request.
    pub ceremony_id: String,
    /// The WebAuthn options in JSON form (binary fields base64url without padding).
    pub public_key: WebAuthnJson,
}

/// `POST /api/auth/passkeys/register/finish` and `POST /api/auth/passkey/finish`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PasskeyFinish {
    /// The start answer's `ceremonyId`.
    pub ceremony_id: CeremonyId,
    /// The browser's `PublicKeyCredential` in JSON form.
    pub credential: WebAuthnCredential,
}

/// One passkey of the calling account.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PasskeyInfo {
    /// Row id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// When it was registered (ms since the Unix epoch).
    pub created_at: i64,
    /// When it last signed in, if ever.
    pub last_used_at: Option<i64>,
}

/// WebAuthn options in JSON form, as the verifier produced them.
#[derive(Clone, Debug, Serialize)]
#[serde(transparent)]
pub struct WebAuthnJson(pub serde_json::Value);

impl JsonSchema for WebAuthnJson {
    fn schema_name() -> Cow<'static, str> {
        "WebAuthnOptions".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "description": "PublicKeyCredentialCreationOptions or PublicKeyCredentialRequestOptions \
                            in JSON form (WebAuthn Level 3), binary fields base64url without padding",
            "required": ["challenge"],
            "properties": { "challenge": { "type": "string" } }
        })
    }
}

/// A browser's `PublicKeyCredential` in JSON form. Its fields are checked by the verifier; a
/// malformed one is refused with `PASSKEY_REJECTED`.
#[derive(Clone, Debug, Deserialize)]
#[serde(transparent)]
pub struct WebAuthnCredential(pub serde_json::Value);

impl JsonSchema for WebAuthnCredential {
    fn schema_name() -> Cow<'static, str> {
        "WebAuthnCredential".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "description": "PublicKeyCredential in JSON form (WebAuthn Level 3 `toJSON()`), binary \
                            fields base64url without padding",
            "required": ["id", "rawId", "type", "response"],
            "properties": {
                "id": { "type": "string", "maxLength": 1366 },
                "rawId": { "type": "string", "maxLength": 1366 },
                "type": { "const": "public-key" },
                "response": { "type": "object" },
                "authenticatorAttachment": { "type": ["string", "null"] },
                "clientExtensionResults": { "type": "object" },
                "extensions": { "type": "object" }
            }
        })
    }
}
