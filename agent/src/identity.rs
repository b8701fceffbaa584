//! The node's keys: the P-256 identity keypair (a private JWK file, mode 0600) and the X25519
//! link keypair (kept in the config file).
//!
//! A present identity file that does not parse, or whose private scalar does not match its public
//! coordinates, is *quarantined*: renamed aside to `<file>.corrupt-<unix seconds>` and the
//! command stops with a message. It is never silently replaced by a fresh key.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use termplane_machines::jws::{Es256Signer, PublicJwk};
use termplane_machines::kx::StaticKeypair;
use termplane_proto::key::{b64url_decode, b64url_encode};
use zeroize::Zeroize as _;

use termplane_exec::util::random_bytes;

/// A private P-256 JWK as stored on disk.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PrivateJwk {
    kty: String,
    crv: String,
    x: String,
    y: String,
    d: String,
}

/// Why the identity key could not be had.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    /// The file existed but was corrupt; it was moved aside.
    #[error(
        "the identity key file {path} is corrupt ({reason}); it was moved aside to {quarantined}. \
         Inspect it, then re-run to generate a new identity (the node must then be enrolled again)"
    )]
    Quarantined {
        /// The original path.
        path: String,
        /// Where it went.
        quarantined: String,
        /// What was wrong.
        reason: String,
    },
    /// IO failure.
    #[error("identity key {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// The identity keypair in use.
pub struct Identity {
    signer: Es256Signer,
}

impl Identity {
    /// The public half as a JWK.
    #[must_use]
    pub fn public_jwk(&self) -> PublicJwk {
        self.signer.public_jwk()
    }
}

fn io(path: &Path, source: std::io::Error) -> IdentityError {
    IdentityError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn parse(text: &str) -> Result<Identity, String> {
    let jwk: PrivateJwk = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if jwk.kty != "EC" || jwk.crv != "P-256" {
        return Err("not a P-256 key".into());
    }
    let mut d = b64url_decode(&jwk.d).map_err(|_| "d is not base64url".to_owned())?;
    let mut scalar: [u8; 32] = d
        .as_slice()
        .try_into()
        .map_err(|_| "d is not 32 bytes".to_owned())?;
    d.zeroize();
    let signer = Es256Signer::from_secret_bytes(&scalar).map_err(|e| e.to_string());
    scalar.zeroize();
    let signer = signer?;
    let public = signer.public_jwk();
    if public.x != jwk.x || public.y != jwk.y {
        return Err("the private scalar does not match the public coordinates".into());
    }
    Ok(Identity { signer })
}

/// Where a corrupt file at `path` is moved.
fn quarantine_path(path: &Path) -> PathBuf {
    let secs = termplane_exec::util::unix_millis() / 1000;
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".corrupt-{secs}"));
    path.with_file_name(name)
}

/// Loads the identity at `path`, generating one (mode 0600) when the file does not exist.
/// A present but corrupt file is quarantined and an error returned.
pub fn load_or_create(path: &Path) -> Result<Identity, IdentityError> {
    match fs::read(path) {
        Ok(bytes) => {
            let parsed = std::str::from_utf8(&bytes)
                .map_err(|_| "not UTF-8".to_owned())
                .and_then(parse);
            match parsed {
                Ok(id) => Ok(id),
                Err(reason) => {
                    let aside = quarantine_path(path);
                    fs::rename(path, &aside).map_err(|e| io(path, e))?;
                    Err(IdentityError::Quarantined {
                        path: path.display().to_string(),
                        quarantined: aside.display().to_string(),
                        reason,
                    })
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let signer = loop {
                let mut scalar = random_bytes::<32>().map_err(|e| io(path, e))?;
                let s = Es256Signer::from_secret_bytes(&scalar);
                scalar.zeroize();
                if let Ok(s) = s {
                    break s;
                }
            };
            let public = signer.public_jwk();
            let mut d = signer.secret_bytes();
            let file = PrivateJwk {
                kty: public.kty,
                crv: public.crv,
                x: public.x,
                y: public.y,
                d: b64url_encode(&d),
            };
            d.zeroize();
            let mut text = serde_json::to_string(&file).unwrap_or_default();
            let written = termplane_exec::fs::write_private_atomic(path, text.as_bytes());
            text.zeroize();
            written.map_err(|e| io(path, e))?;
            Ok(Identity { signer })
        }
        Err(e) => Err(io(path, e)),
    }
}

/// A fresh X25519 link keypair from OS randomness.
pub fn new_link_keypair() -> std::io::Result<StaticKeypair> {
    let secret = random_bytes::<32>()?;
    Ok(StaticKeypair::from_secret_bytes(secret))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tp-id-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_created_identity_reloads_to_the_same_key() {
        let d = tmp("reload");
        let p = d.join("identity.jwk");
        let a = load_or_create(&p).unwrap().public_jwk();
        let b = load_or_create(&p).unwrap().public_jwk();
        assert_eq!(a, b);
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_corrupt_identity_is_quarantined_never_rotated() {
        let d = tmp("corrupt");
        let p = d.join("identity.jwk");
        fs::write(&p, b"{not json").unwrap();
        match load_or_create(&p) {
            Err(IdentityError::Quarantined { quarantined, .. }) => {
                assert!(Path::new(&quarantined).exists());
                assert_eq!(fs::read(&quarantined).unwrap(), b"{not json");
            }
            other => panic!("expected quarantine, got {:?}", other.err()),
        }
        assert!(!p.exists(), "no new key may be generated in the same run");
        // A mismatched scalar is corrupt too.
        let good = load_or_create(&d.join("other.jwk")).unwrap();
        let mut v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(d.join("other.jwk")).unwrap()).unwrap();
        v["x"] = serde_json::Value::String(good.public_jwk().y);
        fs::write(&p, v.to_string()).unwrap();
        assert!(matches!(
            load_or_create(&p),
            Err(IdentityError::Quarantined { .. })
        ));
        fs::remove_dir_all(&d).unwrap();
    }
}
