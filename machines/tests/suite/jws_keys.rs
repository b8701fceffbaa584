//! Loading keys: the plane's signer round-trips its scalar and the node refuses any JWK that is
//! not exactly a P-256 point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use base64ct::{Base64UrlUnpadded, Encoding as _};
use termplane_machines::jws::{Es256Signer, Es256Verifier, PublicJwk};
use termplane_machines::rng;

#[test]
fn signer_scalar_round_trips_and_zero_or_order_is_refused() {
    let a = Es256Signer::generate(&mut rng::from_seed([1; 32]));
    let b = Es256Signer::from_secret_bytes(&a.secret_bytes()).unwrap();
    assert_eq!(a.public_jwk(), b.public_jwk());
    let c = Es256Signer::generate(&mut rng::from_seed([2; 32]));
    assert_ne!(a.public_jwk(), c.public_jwk());
    assert!(Es256Signer::from_secret_bytes(&[0; 32]).is_err());
    assert!(Es256Signer::from_secret_bytes(&[0xff; 32]).is_err());
    // Debug output never shows the scalar.
    let shown = format!("{a:?}");
    assert!(!shown.contains(&hex::encode(a.secret_bytes())));
    assert!(!shown.contains(&Base64UrlUnpadded::encode_string(&a.secret_bytes())));
}

#[test]
fn verifier_refuses_malformed_jwks() {
    let good = Es256Signer::from_secret_bytes(&[5; 32])
        .unwrap()
        .public_jwk();
    assert!(Es256Verifier::new(&good, "n").is_ok());
    let with = |f: &dyn Fn(&mut PublicJwk)| {
        let mut k = good.clone();
        f(&mut k);
        Es256Verifier::new(&k, "n").is_err()
    };
    assert!(with(&|k| k.kty = "RSA".into()));
    assert!(with(&|k| k.kty = "ec".into()));
    assert!(with(&|k| k.crv = "P-384".into()));
    assert!(with(&|k| k.crv = "secp256k1".into()));
    assert!(with(&|k| k.x = format!("{}=", k.x)));
    assert!(with(&|k| k.x = Base64UrlUnpadded::encode_string(&[1; 31])));
    assert!(with(&|k| k.y = Base64UrlUnpadded::encode_string(&[1; 33])));
    // A point off the curve.
    assert!(with(&|k| {
        let mut y = Base64UrlUnpadded::decode_vec(&k.y).unwrap();
        y[31] ^= 1;
        k.y = Base64UrlUnpadded::encode_string(&y);
    }));
    // Extra JWK members are refused at parse.
    let mut v = serde_json::to_value(&good).unwrap();
    v["d"] = "AAAA".into();
    assert!(serde_json::from_value::<PublicJwk>(v).is_err());
}
