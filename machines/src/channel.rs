//! The signed form of a channel entry and of an identity's registration, as every writer and
//! reader computes it (the plane, a pane's MCP server, anyone who verifies a channel).
//!
//! An identity is a P-256 key pair whose private half stays with its holder (a person's
//! program, a pane's MCP server); the plane knows the public key as a JWK.
//!
//! **Entry signing input** — the UTF-8 text of six lines joined by `\n` (no trailing newline):
//!
//! ```text
//! termplane-channel-entry/1
//! channel=<channel id>
//! seq=<decimal, 1 for the first entry>
//! prev=<hash of entry seq-1, lowercase hex; 64 zeros for the first entry>
//! identity=<identity id>
//! sha256=<lowercase hex SHA-256 of the body's UTF-8 bytes>
//! ```
//!
//! The entry's **hash** is the lowercase hex SHA-256 of that text; its **signature** is ES256
//! (ECDSA P-256 over SHA-256 of the text) as the 64-byte `r || s`, unpadded base64url. The
//! hash leaves the signature out, so re-encoding a signature changes no link of the chain.
//!
//! **Identity proof** — the writer proves it holds the key it registers by signing:
//!
//! ```text
//! termplane-identity/1
//! name=<the identity's name>
//! thumbprint=<RFC 7638 JWK thumbprint of the public key>
//! ```
//!
//! The **thumbprint** is RFC 7638's: unpadded base64url of the SHA-256 of
//! `{"crv":"P-256","kty":"EC","x":"<x>","y":"<y>"}`.

use base64ct::{Base64UrlUnpadded, Encoding as _};
use sha2::{Digest as _, Sha256};

use crate::jws::{Es256Signer, PublicJwk, VerifyError, verify_p1363};

/// The `prev` of a channel's first entry.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

/// Lowercase hex SHA-256 of `bytes`.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The signing input of an entry (see the module documentation).
#[must_use]
pub fn entry_signing_input(
    channel_id: &str,
    seq: u64,
    prev: &str,
    identity_id: &str,
    body: &str,
) -> String {
    format!(
        "termplane-channel-entry/1\nchannel={channel_id}\nseq={seq}\nprev={prev}\nidentity={identity_id}\nsha256={}",
        sha256_hex(body.as_bytes())
    )
}

/// An entry's hash: lowercase hex SHA-256 of its signing input.
#[must_use]
pub fn entry_hash(signing_input: &str) -> String {
    sha256_hex(signing_input.as_bytes())
}

/// RFC 7638 thumbprint of a P-256 JWK.
#[must_use]
pub fn thumbprint(jwk: &PublicJwk) -> String {
    let canonical = format!(
        r#"{{"crv":"{}","kty":"{}","x":"{}","y":"{}"}}"#,
        jwk.crv, jwk.kty, jwk.x, jwk.y
    );
    Base64UrlUnpadded::encode_string(&Sha256::digest(canonical.as_bytes()))
}

/// The text an identity's registration proof signs.
#[must_use]
pub fn identity_proof_input(name: &str, jwk: &PublicJwk) -> String {
    format!(
        "termplane-identity/1\nname={name}\nthumbprint={}",
        thumbprint(jwk)
    )
}

/// Signs `input`: unpadded base64url of `r || s`.
#[must_use]
pub fn sign(key: &Es256Signer, input: &str) -> String {
    Base64UrlUnpadded::encode_string(&key.sign_message(input.as_bytes()))
}

/// Verifies `signature` (unpadded base64url of `r || s`) over `input` with `key`.
pub fn verify(key: &PublicJwk, input: &str, signature: &str) -> Result<(), VerifyError> {
    let raw = Base64UrlUnpadded::decode_vec(signature)
        .map_err(|_| VerifyError::Format("the signature is not base64url".into()))?;
    verify_p1363(key, input.as_bytes(), &raw)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn signer() -> Es256Signer {
        Es256Signer::from_secret_bytes(&[7; 32]).unwrap()
    }

    #[test]
    fn thumbprint_matches_rfc_7638_section_3_1_shape() {
        // RFC 7638 §3.1's example is an RSA key; the EC member order is the RFC's
        // lexicographic one: crv, kty, x, y. Checked here by recomputing it by hand.
        let jwk = signer().public_jwk();
        let text = format!(
            "{{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"{}\",\"y\":\"{}\"}}",
            jwk.x, jwk.y
        );
        assert_eq!(
            thumbprint(&jwk),
            Base64UrlUnpadded::encode_string(&Sha256::digest(text.as_bytes()))
        );
        assert_eq!(thumbprint(&jwk).len(), 43);
    }

    #[test]
    fn a_signed_entry_verifies_and_any_changed_field_does_not() {
        let key = signer();
        let jwk = key.public_jwk();
        let input = entry_signing_input("c1", 1, GENESIS, "i1", "hello");
        let sig = sign(&key, &input);
        verify(&jwk, &input, &sig).unwrap();
        for other in [
            entry_signing_input("c2", 1, GENESIS, "i1", "hello"),
            entry_signing_input("c1", 2, GENESIS, "i1", "hello"),
            entry_signing_input("c1", 1, &"1".repeat(64), "i1", "hello"),
            entry_signing_input("c1", 1, GENESIS, "i2", "hello"),
            entry_signing_input("c1", 1, GENESIS, "i1", "hellO"),
        ] {
            assert!(verify(&jwk, &other, &sig).is_err(), "{other}");
        }
        assert!(verify(&jwk, &input, "not base64!").is_err());
        assert!(verify(&jwk, &input, "").is_err());
    }

    #[test]
    fn the_signing_input_is_the_documented_text() {
        let input = entry_signing_input("c", 3, GENESIS, "i", "");
        assert_eq!(
            input,
            format!(
                "termplane-channel-entry/1\nchannel=c\nseq=3\nprev={GENESIS}\nidentity=i\nsha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
            )
        );
        assert_eq!(entry_hash(&input), sha256_hex(input.as_bytes()));
    }
}
