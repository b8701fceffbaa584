//! Bearer secrets: generation from OS randomness, SHA-256 digests, constant-time comparison.
//!
//! Every bearer secret carries 256 random bits. Only the hex SHA-256 digest of the full token
//! text is stored; a request's token is looked up by its digest and the stored digest is then
//! compared in constant time. A slow hash is deliberately not used for these high-entropy
//! secrets (it would hand out a denial-of-service lever on every request).

use base64ct::{Base64UrlUnpadded, Encoding};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Prefix of system keys, node keys (and later pane tokens).
pub const BEARER_PREFIX: &str = "tp_";
/// Prefix of node setup keys.
pub const SETUP_KEY_PREFIX: &str = "nsk_";
/// Characters of the random part of a token (32 bytes, unpadded base64url).
pub const TOKEN_BODY_CHARS: usize = 43;

/// Why randomness could not be had.
#[derive(Debug, thiserror::Error)]
#[error("operating system randomness unavailable: {0}")]
pub struct RandomError(String);

/// `N` bytes from the operating system's generator.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], RandomError> {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).map_err(|e| RandomError(e.to_string()))?;
    Ok(buf)
}

/// A new token: `prefix` followed by 32 random bytes in unpadded base64url.
pub fn new_token(prefix: &str) -> Result<String, RandomError> {
    let bytes = random_bytes::<32>()?;
    Ok(format!(
        "{prefix}{}",
        Base64UrlUnpadded::encode_string(&bytes)
    ))
}

/// A new opaque row identifier (128 random bits, lowercase hex).
pub fn new_id() -> Result<String, RandomError> {
    Ok(hex_lower(&random_bytes::<16>()?))
}

/// Lowercase hex of `bytes`.
#[must_use]
pub fn hex_lower(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The stored form of a token: lowercase hex SHA-256 of its full text.
#[must_use]
pub fn digest(token: &str) -> String {
    hex_lower(&Sha256::digest(token.as_bytes()))
}

/// Constant-time equality of two strings of equal length (unequal lengths compare unequal).
#[must_use]
pub fn ct_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// Whether `token` has exactly the shape of a token minted with `prefix` (case-sensitive prefix,
/// exactly [`TOKEN_BODY_CHARS`] base64url characters, nothing around it).
#[must_use]
pub fn well_formed(token: &str, prefix: &str) -> bool {
    token.strip_prefix(prefix).is_some_and(|body| {
        body.len() == TOKEN_BODY_CHARS
            && body
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
    })
}

/// A short, non-secret preview of a token for listings: the prefix and the last four characters.
#[must_use]
pub fn preview(token: &str, prefix: &str) -> String {
    let tail: String = token
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("{prefix}…{tail}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn tokens_are_well_formed_and_distinct() {
        let a = new_token(BEARER_PREFIX).unwrap();
        let b = new_token(BEARER_PREFIX).unwrap();
        assert_ne!(a, b);
        assert!(well_formed(&a, BEARER_PREFIX));
        assert!(!well_formed(&a, SETUP_KEY_PREFIX));
        assert!(!well_formed(&format!(" {a}"), BEARER_PREFIX));
        assert!(!well_formed(&a.to_uppercase(), BEARER_PREFIX));
        assert!(!well_formed("tp_", BEARER_PREFIX));
    }

    #[test]
    fn digest_is_sha256_hex() {
        assert_eq!(
            digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(ct_eq(&digest("x"), &digest("x")));
        assert!(!ct_eq(&digest("x"), &digest("y")));
    }

    #[test]
    fn preview_does_not_reveal_the_secret() {
        let t = new_token(BEARER_PREFIX).unwrap();
        let p = preview(&t, BEARER_PREFIX);
        assert!(p.len() < 12);
        assert!(t.ends_with(&p[p.len() - 4..]));
    }
}
