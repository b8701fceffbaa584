//! ES256 compact JWS: the plane's signer and the node's verifier.
//!
//! Verification follows the specification's order, steps (1) and (2); steps (3) to (5) live in
//! [`crate::replay`] and in the agent link:
//! 1. size cap ([`MAX_JWS_BYTES`], before any decoding or signature work); compact format
//!    (exactly three segments, strict unpadded base64url: no `=`, no `+` or `/`, no whitespace,
//!    zero trailing bits); protected header that is a JSON object without duplicate keys, with
//!    `alg` exactly `ES256` (pinned, never used to choose an algorithm), `typ` exactly
//!    [`termplane_proto::COMMAND_JWS_TYPE`], and no other member (`crit`, `kid`, `jwk`, `jku`,
//!    `x5u`, `x5c`, `b64`, `zip`, ... are all refused: the key is never chosen from header
//!    data); a 64-byte `r||s` signature over `header_b64 "." payload_b64`; the payload is parsed
//!    only from the verified bytes, refusing duplicate keys and unknown claims (so `nbf` is
//!    refused);
//! 2. `iss` and `aud` exact strings (an `aud` array is refused), integer `iat`/`exp` within
//!    0..=2^53, `exp - iat` in 1..=30, `exp` not past and `iat` not in the future beyond the
//!    5-second skew; `jti` of 1 to 64 bytes of `[A-Za-z0-9_-]`; `seq` at most 2^53.
//!
//! # High-S signatures
//!
//! ECDSA signatures are malleable: if `(r, s)` verifies, so does `(r, n - s)`. This verifier
//! accepts both forms, because the plane's signers (this module, and `jose` on top of WebCrypto)
//! do not normalise `s`, and refusing high-S would refuse about half of their genuine
//! signatures. Malleability is harmless here because the replay guard keys on the `jti` claim,
//! never on the signature bytes: a high-S twin carries the same `jti` and the same signing input
//! (so the same [`Verified::digest`]), gets the cached answer, and never executes a second time.
//!
//! Every failure is a [`VerifyError`] whose `Display` is the one-line reason the node reports in
//! an `error { code: "verify" }` event; no reason ever repeats more than a short, sanitised
//! excerpt of what the sender wrote.

use base64ct::{Base64UrlUnpadded, Encoding as _};
use p256::ecdsa::signature::{Signer as _, Verifier as _};
use p256::ecdsa::{Signature, SigningKey, VerifyingKey};
use p256::elliptic_curve::Generate as _;
use rand_core::CryptoRng;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use termplane_proto::json::{check_no_duplicate_keys, from_str_strict};
use termplane_proto::limits::{CLOCK_SKEW, COMMAND_LIFETIME, MAX_JTI_BYTES, MAX_JWS_BYTES};
use termplane_proto::{COMMAND_ISSUER, COMMAND_JWS_ALG, COMMAND_JWS_TYPE, Claims, node_audience};

use crate::fixed_key::FixedKey;
use crate::time::UnixSecs;

/// Largest `iat`, `exp` and `seq` accepted: 2^53, the largest integer every JSON peer can carry
/// exactly.
pub const MAX_SAFE_INTEGER: i64 = 1 << 53;

/// Length of an ES256 signature in its JWS form, `r || s`, 32 bytes each.
pub const SIGNATURE_BYTES: usize = 64;

/// Longest excerpt of a parser message repeated in a [`VerifyError`].
const MAX_REASON_EXCERPT: usize = 96;

/// Header members that a refusal may name (anything else is reported without its name).
const NAMEABLE_HEADER_MEMBERS: [&str; 16] = [
    "crit", "kid", "jwk", "jku", "x5u", "x5c", "x5t", "x5t#S256", "b64", "zip", "cty", "enc",
    "epk", "url", "nonce", "iss",
];

/// A P-256 public key as a JWK (`kty: EC`, `crv: P-256`, `x`, `y`), as enrollment hands it out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublicJwk {
    /// `EC`.
    pub kty: String,
    /// `P-256`.
    pub crv: String,
    /// X coordinate, base64url unpadded, 32 bytes.
    pub x: String,
    /// Y coordinate, base64url unpadded, 32 bytes.
    pub y: String,
}

impl PublicJwk {
    /// The verifying key this JWK names: `kty` `EC`, `crv` `P-256`, both coordinates exactly 32
    /// bytes of strict base64url, and the point on the curve.
    pub(crate) fn to_verifying_key(&self) -> Result<VerifyingKey, KeyError> {
        if self.kty != "EC" {
            return Err(KeyError("kty must be EC".into()));
        }
        if self.crv != "P-256" {
            return Err(KeyError("crv must be P-256".into()));
        }
        let x = decode_coordinate(&self.x, "x")?;
        let y = decode_coordinate(&self.y, "y")?;
        let mut sec1 = [0_u8; 65];
        sec1[0] = 0x04;
        sec1[1..33].copy_from_slice(&x);
        sec1[33..].copy_from_slice(&y);
        VerifyingKey::from_sec1_bytes(&sec1)
            .map_err(|_| KeyError("the point is not on P-256".into()))
    }

    fn from_verifying_key(key: &VerifyingKey) -> Self {
        let point = key.to_sec1_point(false);
        let bytes = point.as_bytes();
        let x = bytes.get(1..33).unwrap_or_default();
        let y = bytes.get(33..65).unwrap_or_default();
        Self {
            kty: "EC".into(),
            crv: "P-256".into(),
            x: Base64UrlUnpadded::encode_string(x),
            y: Base64UrlUnpadded::encode_string(y),
        }
    }
}

/// Whether `sec1` (uncompressed: `04 || x || y`) is a point of P-256 other than the identity.
#[must_use]
pub fn is_p256_public_point(sec1: &[u8; 65]) -> bool {
    VerifyingKey::from_sec1_bytes(sec1).is_ok()
}

fn decode_coordinate(text: &str, name: &str) -> Result<[u8; 32], KeyError> {
    let bytes = Base64UrlUnpadded::decode_vec(text)
        .map_err(|_| KeyError(format!("{name} is not strict base64url")))?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| KeyError(format!("{name} must be 32 bytes")))
}

/// Why a key could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid P-256 key: {0}")]
pub struct KeyError(pub String);

/// Why an envelope was refused. `Display` is the one-line reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// Larger than [`termplane_proto::limits::MAX_JWS_BYTES`]; refused before any signature work.
    #[error("envelope too large")]
    TooLarge,
    /// Not three strict base64url segments.
    #[error("malformed compact JWS: {0}")]
    Format(String),
    /// The protected header is malformed or not exactly ours.
    #[error("refused JWS header: {0}")]
    Header(String),
    /// The signature does not verify.
    #[error("bad signature")]
    Signature,
    /// The verified payload is not valid claims.
    #[error("malformed claims: {0}")]
    Payload(String),
    /// Wrong or missing issuer.
    #[error("wrong issuer")]
    Issuer,
    /// Wrong or missing audience.
    #[error("wrong audience")]
    Audience,
    /// Out-of-range or inconsistent time claims.
    #[error("invalid time claims: {0}")]
    Time(String),
    /// Expired (beyond the skew).
    #[error("expired")]
    Expired,
    /// Issued in the future (beyond the skew).
    #[error("issued in the future")]
    IssuedInFuture,
}

/// A verified envelope.
#[derive(Clone, Debug, PartialEq)]
pub struct Verified {
    /// The claims, parsed from the verified payload.
    pub claims: Claims,
    /// SHA-256 of the signing input (`header.payload`), so the replay guard can tell the same
    /// jti with other content.
    pub digest: [u8; 32],
}

/// The protected header of every command the plane signs, byte for byte.
#[must_use]
pub fn command_header() -> String {
    format!(r#"{{"alg":"{COMMAND_JWS_ALG}","typ":"{COMMAND_JWS_TYPE}"}}"#)
}

/// The plane's command signer (RFC 6979 deterministic nonces).
pub struct Es256Signer {
    key: SigningKey,
}

impl Es256Signer {
    /// A new signing key from `rng`.
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        Self {
            key: SigningKey::generate_from_rng(rng),
        }
    }

    /// The signer of a persisted 32-byte scalar.
    pub fn from_secret_bytes(secret: &[u8; 32]) -> Result<Self, KeyError> {
        SigningKey::from_slice(secret)
            .map(|key| Self { key })
            .map_err(|_| KeyError("the scalar is zero or not below the group order".into()))
    }

    /// The scalar, for persisting (mode 0600).
    #[must_use]
    pub fn secret_bytes(&self) -> [u8; 32] {
        self.key.to_bytes().into()
    }

    /// The public key as a JWK.
    #[must_use]
    pub fn public_jwk(&self) -> PublicJwk {
        PublicJwk::from_verifying_key(self.key.verifying_key())
    }

    /// Signs `message` as it is (ES256 over its SHA-256, RFC 6979 nonce); the raw `r || s`.
    #[must_use]
    pub fn sign_message(&self, message: &[u8]) -> [u8; SIGNATURE_BYTES] {
        let signature: Signature = self.key.sign(message);
        signature.to_bytes().into()
    }

    /// Signs `claims` under our fixed header; returns the compact serialization.
    #[must_use]
    pub fn sign(&self, claims: &Claims) -> String {
        // Serialising strings, integers and a `serde_json::Value` cannot fail; should it ever,
        // the empty payload produced here is refused by every verifier.
        let payload = serde_json::to_vec(claims).unwrap_or_default();
        self.sign_raw(command_header().as_bytes(), &payload)
    }

    /// Signs an arbitrary protected header and payload (tests build hostile tokens with it).
    #[must_use]
    pub fn sign_raw(&self, header_json: &[u8], payload: &[u8]) -> String {
        let mut compact = Base64UrlUnpadded::encode_string(header_json);
        compact.push('.');
        compact.push_str(&Base64UrlUnpadded::encode_string(payload));
        let signature: Signature = self.key.sign(compact.as_bytes());
        compact.push('.');
        compact.push_str(&Base64UrlUnpadded::encode_string(&signature.to_bytes()));
        compact
    }
}

impl core::fmt::Debug for Es256Signer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Es256Signer")
            .field("public", &self.public_jwk())
            .finish_non_exhaustive()
    }
}

/// The node's verifier, bound to the plane's key and to this node's audience.
#[derive(Clone, Debug)]
pub struct Es256Verifier {
    key: FixedKey,
    audience: String,
}

impl Es256Verifier {
    /// A verifier for `node_id` trusting `key`.
    pub fn new(key: &PublicJwk, node_id: &str) -> Result<Self, KeyError> {
        Ok(Self {
            key: FixedKey::from_jwk(key)?,
            audience: node_audience(node_id),
        })
    }

    /// Steps (1) and (2) of the verification order at wall time `now`.
    pub fn verify(&self, compact: &str, now: UnixSecs) -> Result<Verified, VerifyError> {
        let (payload, digest) = verify_with_key(
            KeyRef::Fixed(&self.key),
            compact,
            HeaderPolicy::Typed(COMMAND_JWS_TYPE),
        )?;
        let text = core::str::from_utf8(&payload)
            .map_err(|_| VerifyError::Payload("claims are not UTF-8".into()))?;
        let claims: Claims =
            from_str_strict(text).map_err(|e| VerifyError::Payload(excerpt(&e.to_string())))?;
        check_claims(&claims, &self.audience, now)?;
        Ok(Verified { claims, digest })
    }
}

/// Step (2) on parsed claims.
fn check_claims(claims: &Claims, audience: &str, now: UnixSecs) -> Result<(), VerifyError> {
    if claims.iss != COMMAND_ISSUER {
        return Err(VerifyError::Issuer);
    }
    if claims.aud != audience {
        return Err(VerifyError::Audience);
    }
    let jti = claims.jti.as_bytes();
    if jti.is_empty()
        || jti.len() > MAX_JTI_BYTES
        || !jti
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
    {
        return Err(VerifyError::Payload(format!(
            "jti must be 1 to {MAX_JTI_BYTES} characters of A-Z a-z 0-9 _ -"
        )));
    }
    if claims.seq > MAX_SAFE_INTEGER.unsigned_abs() {
        return Err(VerifyError::Payload("seq above 2^53".into()));
    }
    let in_range = |v: i64| (0..=MAX_SAFE_INTEGER).contains(&v);
    if !in_range(claims.iat) || !in_range(claims.exp) {
        return Err(VerifyError::Time(
            "iat and exp must be within 0..=2^53".into(),
        ));
    }
    let lifetime = claims.exp - claims.iat;
    let max_lifetime = secs(COMMAND_LIFETIME);
    if !(1..=max_lifetime).contains(&lifetime) {
        return Err(VerifyError::Time(format!(
            "exp - iat must be 1 to {max_lifetime} seconds"
        )));
    }
    let skew = secs(CLOCK_SKEW);
    if now.get() > claims.exp + skew {
        return Err(VerifyError::Expired);
    }
    if claims.iat > now.get().saturating_add(skew) {
        return Err(VerifyError::IssuedInFuture);
    }
    Ok(())
}

fn secs(d: core::time::Duration) -> i64 {
    i64::try_from(d.as_secs()).unwrap_or(i64::MAX)
}

/// Step (1) alone: format, pinned header, signature. Returns the verified payload bytes and the
/// signing-input digest. `expected_typ` of `None` skips the `typ` check (for third-party vectors
/// minted without our type).
///
/// With `Some(typ)` the header must be exactly `alg` and `typ`. With `None` (third-party test
/// vectors only; the node always passes `Some`), the header may hold `alg`, and optionally a
/// string `typ` and a string `kid`, which are ignored: the key is still the one passed in.
pub fn verify_signature(
    key: &PublicJwk,
    compact: &str,
    expected_typ: Option<&str>,
) -> Result<(Vec<u8>, [u8; 32]), VerifyError> {
    let key = key
        .to_verifying_key()
        .map_err(|e| VerifyError::Header(e.to_string()))?;
    let policy = match expected_typ {
        Some(typ) => HeaderPolicy::Typed(typ),
        None => HeaderPolicy::ThirdParty,
    };
    verify_with_key(KeyRef::Plain(&key), compact, policy)
}

/// Verifies a raw `r || s` signature over `message` with the very function the JWS path uses
/// (tests feed it the Wycheproof ECDSA P1363 vectors). Anything but 64 bytes, `r` or `s` zero or
/// not below the group order, or a signature that does not verify, is refused.
pub fn verify_p1363(key: &PublicJwk, message: &[u8], signature: &[u8]) -> Result<(), VerifyError> {
    let key = key
        .to_verifying_key()
        .map_err(|e| VerifyError::Header(e.to_string()))?;
    verify_raw(KeyRef::Plain(&key), message, signature)
}

/// As [`verify_p1363`], through the precomputed tables a node's verifier uses (tests hold the
/// two to the same answers).
pub fn verify_p1363_fixed(
    key: &FixedKey,
    message: &[u8],
    signature: &[u8],
) -> Result<(), VerifyError> {
    verify_raw(KeyRef::Fixed(key), message, signature)
}

/// The key a signature is checked against: a one-off key through the `p256` crate's own
/// verification, or a long-lived one through its precomputed tables ([`FixedKey`]).
#[derive(Clone, Copy)]
enum KeyRef<'a> {
    Plain(&'a VerifyingKey),
    Fixed(&'a FixedKey),
}

fn verify_raw(key: KeyRef<'_>, message: &[u8], signature: &[u8]) -> Result<(), VerifyError> {
    let signature: &[u8; SIGNATURE_BYTES] = signature
        .try_into()
        .map_err(|_| VerifyError::Format(format!("signature must be {SIGNATURE_BYTES} bytes")))?;
    let signature = Signature::from_slice(signature).map_err(|_| VerifyError::Signature)?;
    let verifies = match key {
        KeyRef::Plain(key) => key.verify(message, &signature).is_ok(),
        KeyRef::Fixed(key) => key.verifies(message, &signature),
    };
    if verifies {
        Ok(())
    } else {
        Err(VerifyError::Signature)
    }
}

#[derive(Clone, Copy)]
enum HeaderPolicy<'a> {
    /// Exactly `alg` and this `typ`.
    Typed(&'a str),
    /// `alg`, optional `typ` and `kid`.
    ThirdParty,
}

fn verify_with_key(
    key: KeyRef<'_>,
    compact: &str,
    policy: HeaderPolicy<'_>,
) -> Result<(Vec<u8>, [u8; 32]), VerifyError> {
    if compact.len() > MAX_JWS_BYTES {
        return Err(VerifyError::TooLarge);
    }
    let mut segments = compact.split('.');
    let (Some(header_b64), Some(payload_b64), Some(signature_b64), None) = (
        segments.next(),
        segments.next(),
        segments.next(),
        segments.next(),
    ) else {
        return Err(VerifyError::Format(
            "expected exactly three segments".into(),
        ));
    };
    let header = decode_segment(header_b64, "header")?;
    let payload = decode_segment(payload_b64, "payload")?;
    let signature = decode_segment(signature_b64, "signature")?;
    check_header(&header, policy)?;
    if signature.len() != SIGNATURE_BYTES {
        return Err(VerifyError::Format(format!(
            "signature must be {SIGNATURE_BYTES} bytes (r || s)"
        )));
    }
    let signing_input = compact
        .get(..header_b64.len() + 1 + payload_b64.len())
        .ok_or_else(|| VerifyError::Format("segment bounds".into()))?;
    verify_raw(key, signing_input.as_bytes(), &signature)?;
    let digest: [u8; 32] = Sha256::digest(signing_input.as_bytes()).into();
    Ok((payload, digest))
}

fn decode_segment(segment: &str, name: &str) -> Result<Vec<u8>, VerifyError> {
    if segment.is_empty() {
        return Err(VerifyError::Format(format!("empty {name}")));
    }
    Base64UrlUnpadded::decode_vec(segment)
        .map_err(|_| VerifyError::Format(format!("{name} is not strict unpadded base64url")))
}

fn check_header(header: &[u8], policy: HeaderPolicy<'_>) -> Result<(), VerifyError> {
    let text = core::str::from_utf8(header).map_err(|_| VerifyError::Header("not UTF-8".into()))?;
    check_no_duplicate_keys(text).map_err(|e| VerifyError::Header(excerpt(&e.to_string())))?;
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| VerifyError::Header(excerpt(&e.to_string())))?;
    let serde_json::Value::Object(members) = value else {
        return Err(VerifyError::Header("not a JSON object".into()));
    };
    match members.get("alg") {
        Some(serde_json::Value::String(alg)) if alg == COMMAND_JWS_ALG => {}
        Some(_) => {
            return Err(VerifyError::Header(format!(
                "alg must be {COMMAND_JWS_ALG}"
            )));
        }
        None => return Err(VerifyError::Header("missing alg".into())),
    }
    let expected_typ = match policy {
        HeaderPolicy::Typed(typ) => Some(typ),
        HeaderPolicy::ThirdParty => None,
    };
    if let Some(expected) = expected_typ {
        match members.get("typ") {
            Some(serde_json::Value::String(typ)) if typ == expected => {}
            Some(_) => return Err(VerifyError::Header("wrong typ".into())),
            None => return Err(VerifyError::Header("missing typ".into())),
        }
    }
    for (name, value) in &members {
        let allowed = match name.as_str() {
            "alg" => true,
            "typ" => expected_typ.is_some() || value.is_string(),
            "kid" => expected_typ.is_none() && value.is_string(),
            _ => false,
        };
        if !allowed {
            return Err(VerifyError::Header(
                match NAMEABLE_HEADER_MEMBERS.iter().find(|n| **n == name) {
                    Some(known) => format!("member {known} is not allowed"),
                    None => "unexpected header member".into(),
                },
            ));
        }
    }
    Ok(())
}

/// A short, printable excerpt of a parser message.
fn excerpt(message: &str) -> String {
    message
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .take(MAX_REASON_EXCERPT)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_header_is_exactly_ours() {
        assert_eq!(
            command_header(),
            r#"{"alg":"ES256","typ":"termplane-command+jwt"}"#
        );
    }

    #[test]
    fn excerpts_are_short_and_printable() {
        let long = format!("a\nb{}", "x".repeat(500));
        let e = excerpt(&long);
        assert_eq!(e.len(), MAX_REASON_EXCERPT);
        assert!(e.starts_with("a?b"));
    }
}
