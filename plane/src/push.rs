//! Web Push, as an application server sends it: message encryption (RFC 8291, the `aes128gcm`
//! content coding of RFC 8188) and the VAPID authorization (RFC 8292). Pure functions: the
//! ephemeral key, the salt and the time are passed in.
//!
//! Encryption, for a subscription's P-256 key `ua_public` and 16-byte `auth` secret:
//! `ecdh = ECDH(as_secret, ua_public)`;
//! `ikm = HKDF(salt = auth, ikm = ecdh, info = "WebPush: info" 0x00 ua_public as_public, 32)`;
//! `cek = HKDF(salt, ikm, "Content-Encoding: aes128gcm" 0x00, 16)`,
//! `nonce = HKDF(salt, ikm, "Content-Encoding: nonce" 0x00, 12)`;
//! one record: `AES-128-GCM(cek, nonce, plaintext 0x02)`; the body is
//! `salt(16) rs(4, 4096) idlen(1, 65) as_public(65) record`.

use aes_gcm::aead::Aead;
use aes_gcm::{Aes128Gcm, KeyInit};
use base64ct::{Base64UrlUnpadded, Encoding};
use hkdf::Hkdf;
use p256::PublicKey;
use p256::elliptic_curve::sec1::ToSec1Point;
use sha2::Sha256;
use termplane_machines::jws::Es256Signer;

/// Record size written in the header.
pub const RECORD_SIZE: u32 = 4096;
/// Largest plaintext one record carries (the record, its delimiter and tag within 4096).
pub const MAX_PLAINTEXT: usize = 3993;

/// Why a message could not be encrypted.
#[derive(Debug, PartialEq, Eq)]
pub enum PushError {
    /// The subscription's key is not a P-256 point, or its auth secret is not 16 bytes.
    BadSubscription,
    /// The plaintext does not fit one record.
    TooLong,
    /// The ephemeral key is unusable.
    BadKey,
}

fn hkdf(salt: &[u8], ikm: &[u8], info: &[&[u8]], out: &mut [u8]) -> Result<(), PushError> {
    Hkdf::<Sha256>::new(Some(salt), ikm)
        .expand_multi_info(info, out)
        .map_err(|_| PushError::BadKey)
}

/// Encrypts `plaintext` for a subscription (`ua_public`: the 65-byte uncompressed point of its
/// `p256dh`; `auth`: its 16-byte `auth`) with the ephemeral secret scalar `as_secret` and a
/// random 16-byte `salt`; answers the request body.
pub fn encrypt(
    ua_public: &[u8],
    auth: &[u8],
    plaintext: &[u8],
    as_secret: &[u8; 32],
    salt: &[u8; 16],
) -> Result<Vec<u8>, PushError> {
    if auth.len() != 16 || ua_public.len() != 65 {
        return Err(PushError::BadSubscription);
    }
    if plaintext.len() > MAX_PLAINTEXT {
        return Err(PushError::TooLong);
    }
    let ua = PublicKey::from_sec1_bytes(ua_public).map_err(|_| PushError::BadSubscription)?;
    let secret = p256::SecretKey::from_slice(as_secret).map_err(|_| PushError::BadKey)?;
    let as_public = secret.public_key().to_sec1_point(false);
    let as_public = as_public.as_bytes();
    let shared = p256::ecdh::diffie_hellman(secret.to_nonzero_scalar(), ua.as_affine());
    let mut ikm = [0u8; 32];
    hkdf(
        auth,
        shared.raw_secret_bytes().as_slice(),
        &[b"WebPush: info\0", ua_public, as_public],
        &mut ikm,
    )?;
    let mut cek = [0u8; 16];
    hkdf(salt, &ikm, &[b"Content-Encoding: aes128gcm\0"], &mut cek)?;
    let mut nonce = [0u8; 12];
    hkdf(salt, &ikm, &[b"Content-Encoding: nonce\0"], &mut nonce)?;
    let mut record = plaintext.to_vec();
    record.push(2);
    let cipher = Aes128Gcm::new_from_slice(&cek).map_err(|_| PushError::BadKey)?;
    let sealed = cipher
        .encrypt(&nonce.into(), record.as_slice())
        .map_err(|_| PushError::BadKey)?;
    let mut body = Vec::with_capacity(86 + sealed.len());
    body.extend_from_slice(salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(65);
    body.extend_from_slice(as_public);
    body.extend_from_slice(&sealed);
    Ok(body)
}

/// The uncompressed point of a VAPID key, base64url: the `k=` of the header and what a browser
/// passes to `PushManager.subscribe` as `applicationServerKey`.
#[must_use]
pub fn vapid_public_key(key: &Es256Signer) -> String {
    let jwk = key.public_jwk();
    let mut point = vec![4u8];
    point.extend(Base64UrlUnpadded::decode_vec(&jwk.x).unwrap_or_default());
    point.extend(Base64UrlUnpadded::decode_vec(&jwk.y).unwrap_or_default());
    Base64UrlUnpadded::encode_string(&point)
}

/// The `Authorization` value for a push to `endpoint`: `vapid t=<JWT>, k=<key>` with the
/// endpoint's origin as `aud`, `exp` 12 hours from `now_secs`, and `sub` a contact of this
/// plane (its base URL).
#[must_use]
pub fn vapid_authorization(key: &Es256Signer, endpoint: &str, sub: &str, now_secs: i64) -> String {
    let aud = endpoint
        .split_once("://")
        .map(|(scheme, rest)| {
            let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
            format!("{scheme}://{host}")
        })
        .unwrap_or_default();
    let claims = serde_json::json!({ "aud": aud, "exp": now_secs + 12 * 3600, "sub": sub });
    let jwt = key.sign_raw(
        br#"{"typ":"JWT","alg":"ES256"}"#,
        claims.to_string().as_bytes(),
    );
    format!("vapid t={jwt}, k={}", vapid_public_key(key))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn b64(s: &str) -> Vec<u8> {
        Base64UrlUnpadded::decode_vec(s).unwrap()
    }

    /// RFC 8291, Appendix A: the example's keys, salt and message give its body exactly.
    #[test]
    fn encryption_matches_rfc_8291_appendix_a() {
        let as_secret: [u8; 32] = b64("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
            .try_into()
            .unwrap();
        let salt: [u8; 16] = b64("DGv6ra1nlYgDCS1FRnbzlw").try_into().unwrap();
        let body = encrypt(
            &b64("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"),
            &b64("BTBZMqHH6r4Tts7J_aSIgg"),
            b"When I grow up, I want to be a watermelon",
            &as_secret,
            &salt,
        )
        .unwrap();
        assert_eq!(
            Base64UrlUnpadded::encode_string(&body),
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        );
    }

    #[test]
    fn bad_subscriptions_and_long_messages_are_refused() {
        let s = [7u8; 32];
        let salt = [1u8; 16];
        let ua = b64(
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        );
        assert_eq!(
            encrypt(&ua, &[0u8; 15], b"x", &s, &salt),
            Err(PushError::BadSubscription)
        );
        let mut off_curve = ua.clone();
        off_curve[64] ^= 1;
        assert_eq!(
            encrypt(&off_curve, &[0u8; 16], b"x", &s, &salt),
            Err(PushError::BadSubscription)
        );
        assert_eq!(
            encrypt(&ua, &[0u8; 16], &vec![b'a'; MAX_PLAINTEXT + 1], &s, &salt),
            Err(PushError::TooLong)
        );
        assert!(encrypt(&ua, &[0u8; 16], &vec![b'a'; MAX_PLAINTEXT], &s, &salt).is_ok());
    }

    #[test]
    fn the_vapid_header_names_the_endpoints_origin_and_verifies_with_its_key() {
        let key = Es256Signer::from_secret_bytes(&[9u8; 32]).unwrap();
        let h = vapid_authorization(
            &key,
            "https://push.example:8443/send/abc?x=1",
            "https://plane.example",
            1000,
        );
        let (t, k) = h
            .strip_prefix("vapid t=")
            .unwrap()
            .split_once(", k=")
            .unwrap();
        assert_eq!(k, vapid_public_key(&key));
        assert_eq!(b64(k).len(), 65);
        let parts: Vec<&str> = t.split('.').collect();
        let claims: serde_json::Value = serde_json::from_slice(&b64(parts[1])).unwrap();
        assert_eq!(claims["aud"], "https://push.example:8443");
        assert_eq!(claims["exp"], 1000 + 12 * 3600);
        let signed = format!("{}.{}", parts[0], parts[1]);
        termplane_machines::jws::verify_p1363(&key.public_jwk(), signed.as_bytes(), &b64(parts[2]))
            .unwrap();
    }
}
