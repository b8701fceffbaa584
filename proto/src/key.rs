//! 32-byte link keys as they travel in text frames.
//!
//! The specification leaves the text encoding of the keys open. termplane uses unpadded
//! base64url (RFC 4648 §5), exactly 43 characters, decoded strictly: padding, the standard
//! alphabet (`+`, `/`), whitespace and non-canonical trailing bits are all refused, so each key
//! has exactly one spelling on the wire.

use core::fmt;

use base64ct::{Base64UrlUnpadded, Encoding};
use serde::{Deserialize, Serialize};

/// A 32-byte public key (X25519) in its wire spelling.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Key32(pub [u8; 32]);

/// Why a key's text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Not strict unpadded base64url.
    #[error("key is not unpadded base64url")]
    Encoding,
    /// Decoded, but not exactly 32 bytes.
    #[error("key decodes to {0} bytes, expected 32")]
    Length(usize),
}

impl Key32 {
    /// Decodes the wire spelling.
    pub fn from_b64(s: &str) -> Result<Self, KeyError> {
        let bytes = b64url_decode(s).map_err(|_| KeyError::Encoding)?;
        let arr: [u8; 32] = bytes
            .as_slice()
            .try_into()
            .map_err(|_| KeyError::Length(bytes.len()))?;
        Ok(Self(arr))
    }

    /// The wire spelling.
    #[must_use]
    pub fn to_b64(&self) -> String {
        Base64UrlUnpadded::encode_string(&self.0)
    }
}

/// Strict unpadded base64url decoding shared by every wire field that carries bytes.
pub fn b64url_decode(s: &str) -> Result<Vec<u8>, base64ct::Error> {
    Base64UrlUnpadded::decode_vec(s)
}

/// Unpadded base64url encoding.
#[must_use]
pub fn b64url_encode(bytes: &[u8]) -> String {
    Base64UrlUnpadded::encode_string(bytes)
}

impl TryFrom<String> for Key32 {
    type Error = KeyError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::from_b64(&s)
    }
}

impl From<Key32> for String {
    fn from(k: Key32) -> Self {
        k.to_b64()
    }
}

impl fmt::Debug for Key32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key32({})", self.to_b64())
    }
}

impl fmt::Display for Key32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_b64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_through_43_characters() {
        let k = Key32([0xfb; 32]);
        let s = k.to_b64();
        assert_eq!(s.len(), 43);
        assert!(!s.contains('=') && !s.contains('+') && !s.contains('/'));
        assert_eq!(Key32::from_b64(&s), Ok(k));
    }

    #[test]
    fn other_spellings_and_lengths_are_refused() {
        let good = Key32([0xfb; 32]).to_b64();
        assert_eq!(
            Key32::from_b64(&format!("{good}=")),
            Err(KeyError::Encoding)
        );
        assert_eq!(
            Key32::from_b64(&good.replace('-', "+").replace('_', "/")),
            Err(KeyError::Encoding)
        );
        assert_eq!(
            Key32::from_b64(&format!(" {good}")),
            Err(KeyError::Encoding)
        );
        // 31 and 33 bytes.
        assert_eq!(
            Key32::from_b64(&b64url_encode(&[1; 31])),
            Err(KeyError::Length(31))
        );
        assert_eq!(
            Key32::from_b64(&b64url_encode(&[1; 33])),
            Err(KeyError::Length(33))
        );
        assert_eq!(Key32::from_b64(""), Err(KeyError::Length(0)));
        // Non-canonical trailing bits: the last character of a 32-byte key carries 4 spare bits.
        let mut chars: Vec<char> = good.chars().collect();
        let last = chars.len() - 1;
        chars[last] = if chars[last] == 'A' { 'B' } else { 'A' };
        let tweaked: String = chars.into_iter().collect();
        if let Ok(k) = Key32::from_b64(&tweaked) {
            // Only acceptable when the change hit a significant bit; then it re-encodes to itself.
            assert_eq!(k.to_b64(), tweaked);
        }
    }
}
