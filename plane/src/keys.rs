//! The plane's own long-term secrets, kept as raw 32-byte files in the data directory.
//!
//! * `link.key` — the X25519 link secret (32 random bytes).
//! * `signing.key` — the ES256 command-signing secret (a 32-byte P-256 scalar).
//!
//! Each file is created on first use from operating-system randomness with mode 0600 (created
//! exclusively, so two starting processes never both write). Afterwards a file that cannot be
//! read, has the wrong size, carries group or other permission bits, or (for the signing key)
//! is not a valid P-256 scalar is a fatal error naming the file: it is never silently replaced,
//! because every enrolled node pins the public halves.
//!
//! The channel key (`channels.key`: channel entries are sealed under it) and the VAPID key
//! (`vapid.key`: push subscriptions are bound to it) live beside them, used by their services.
//!
//! # The database knows its keys
//! A plane's keys and its database belong together: a data directory lost or swapped while the
//! database is kept would, left to itself, make new keys, and every enrolled node would refuse
//! the plane, every channel entry would stop opening. So the database records a fingerprint of
//! each key file at the first start that uses it ([`load_checked`]: a SHA-256 of the secret
//! under a fixed label and the file's name, which says nothing of the secret), and a plane
//! started on it whose data directory lacks a recorded key file, or holds a different one,
//! refuses to start, naming the file, and creates nothing. Several planes on one database (the
//! cluster) are given their keys by the operator: the same four files copied into each data
//! directory (see the deployment guide); the fingerprints make a replica given the wrong ones,
//! or none, stop loudly instead of running with keys of its own.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// File name of the X25519 link secret.
pub const LINK_KEY_FILE: &str = "link.key";
/// File name of the ES256 signing secret.
pub const SIGNING_KEY_FILE: &str = "signing.key";
/// File name of the channel key (channel entries are sealed under it).
pub const CHANNEL_KEY_FILE: &str = "channels.key";
/// File name of the VAPID key (the P-256 key push subscriptions are bound to).
pub const VAPID_KEY_FILE: &str = "vapid.key";

/// What makes 32 bytes a valid key of one kind.
pub type KeyCheck = fn(&[u8; 32]) -> bool;

/// Every key file of the data directory, with what makes its bytes a valid key.
pub const KEY_FILES: [(&str, KeyCheck); 4] = [
    (LINK_KEY_FILE, any_bytes),
    (SIGNING_KEY_FILE, is_p256_scalar),
    (CHANNEL_KEY_FILE, any_bytes),
    (VAPID_KEY_FILE, is_p256_scalar),
];

fn any_bytes(_: &[u8; 32]) -> bool {
    true
}

/// Why the key files and the database do not go together.
#[derive(Debug, thiserror::Error)]
pub enum KeyCheckError {
    /// A key file the database recorded is not in the data directory.
    #[error(
        "this database belongs to a plane whose key file {name} is not in {dir}; refusing to start \
         with new keys (every enrolled node pins them). Copy the key files (link.key, signing.key, \
         channels.key, vapid.key) from that plane's data directory or its backup into {dir}, or \
         point this plane at its own database"
    )]
    Missing {
        /// The file's name.
        name: &'static str,
        /// The data directory.
        dir: PathBuf,
    },
    /// A key file differs from the one the database recorded.
    #[error(
        "plane key file {path} is not the one this database was used with; refusing to start. \
         Put back that plane's key files (link.key, signing.key, channels.key, vapid.key), or \
         point this plane at its own database"
    )]
    Differs {
        /// The file.
        path: PathBuf,
    },
    /// Another plane recorded other keys while this one started.
    #[error(
        "another plane on this database recorded a different {name} while this one started; \
         refusing to start: copy that plane's key files into this one's data directory"
    )]
    Raced {
        /// The file's name.
        name: &'static str,
    },
    /// A key file is unusable.
    #[error(transparent)]
    File(#[from] KeyFileError),
    /// The database could not be read or written.
    #[error("the plane keys' fingerprints could not be read or recorded: {0}")]
    Database(#[from] sqlx::Error),
}

/// A key file's fingerprint as the database keeps it: SHA-256 over a fixed label, the file's
/// name and the secret, in lowercase hex.
#[must_use]
pub fn fingerprint(name: &str, secret: &[u8; 32]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"termplane key fingerprint v1\0");
    h.update(name.as_bytes());
    h.update(b"\0");
    h.update(secret);
    crate::secret::hex_lower(&h.finalize())
}

/// Loads (creating what is missing on a first start) the plane's key files in `dir`, checked
/// against the fingerprints `store` holds and recording those it does not hold yet, at `now`
/// (see the module's "The database knows its keys"). Nothing is created unless every recorded
/// key file is present and the same.
pub async fn load_checked(
    store: &crate::store::Store,
    dir: &Path,
    now: i64,
) -> Result<PlaneSecrets, KeyCheckError> {
    let recorded = store.plane_key_fingerprints().await?;
    for (name, valid) in KEY_FILES {
        let Some(fp) = recorded.get(name) else {
            continue;
        };
        let path = dir.join(name);
        if let Err(e) = fs::symlink_metadata(&path)
            && e.kind() == io::ErrorKind::NotFound
        {
            return Err(KeyCheckError::Missing {
                name,
                dir: dir.to_owned(),
            });
        }
        if fingerprint(name, &read_existing(&path, valid)?) != *fp {
            return Err(KeyCheckError::Differs { path });
        }
    }
    let mut secrets = Vec::with_capacity(KEY_FILES.len());
    for (name, valid) in KEY_FILES {
        let secret = load_or_create_file(&dir.join(name), valid)?;
        if !recorded.contains_key(name) {
            store
                .record_plane_key_fingerprint(name, &fingerprint(name, &secret), now)
                .await?;
        }
        secrets.push((name, secret));
    }
    // Recorded meanwhile by a plane starting on the same database: the first one's keys stand.
    let recorded = store.plane_key_fingerprints().await?;
    for (name, secret) in &secrets {
        if recorded.get(*name) != Some(&fingerprint(name, secret)) {
            return Err(KeyCheckError::Raced { name });
        }
    }
    Ok(PlaneSecrets {
        link: secrets[0].1,
        signing: secrets[1].1,
    })
}

/// Why a key file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    /// The file exists but could not be read.
    #[error(
        "cannot read plane key file {path}: {source}; refusing to start (it is never regenerated)"
    )]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The file could not be created.
    #[error("cannot create plane key file {path}: {source}")]
    Create {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The file does not hold exactly 32 bytes.
    #[error(
        "plane key file {path} holds {len} bytes, expected 32; it is corrupt and will not be regenerated"
    )]
    WrongSize {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: u64,
    },
    /// The file's permissions allow others to read it.
    #[error("plane key file {path} has mode {mode:o}, expected 600; fix it with `chmod 600`")]
    WrongMode {
        /// The file.
        path: PathBuf,
        /// The permission bits found.
        mode: u32,
    },
    /// The signing secret is zero or not below the P-256 group order.
    #[error(
        "plane key file {path} is not a valid P-256 scalar; it is corrupt and will not be regenerated"
    )]
    NotAScalar {
        /// The file.
        path: PathBuf,
    },
    /// No randomness.
    #[error(transparent)]
    Random(#[from] crate::secret::RandomError),
}

/// The order n of the P-256 group, big-endian.
const P256_ORDER: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
];

/// Whether `s` (big-endian) is a valid P-256 secret scalar: 0 < s < n.
#[must_use]
pub fn is_p256_scalar(s: &[u8; 32]) -> bool {
    s.iter().any(|&b| b != 0) && s.as_slice() < P256_ORDER.as_slice()
}

/// The raw secrets of the plane.
pub struct PlaneSecrets {
    /// X25519 link secret.
    pub link: [u8; 32],
    /// ES256 signing scalar (big-endian).
    pub signing: [u8; 32],
}

impl std::fmt::Debug for PlaneSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlaneSecrets { .. }")
    }
}

impl PlaneSecrets {
    /// Loads both secrets from `dir`, creating each one that does not exist yet.
    pub fn load_or_create(dir: &Path) -> Result<Self, KeyFileError> {
        let link = load_or_create_file(&dir.join(LINK_KEY_FILE), any_bytes)?;
        let signing = load_or_create_file(&dir.join(SIGNING_KEY_FILE), is_p256_scalar)?;
        Ok(Self { link, signing })
    }
}

/// Loads the 32-byte secret at `path`, or creates it (mode 0600) from OS randomness when the
/// file does not exist. `valid` decides whether bytes are an acceptable secret; a freshly drawn
/// value that is not acceptable is drawn again, an existing one is an error.
pub fn load_or_create_file(
    path: &Path,
    valid: fn(&[u8; 32]) -> bool,
) -> Result<[u8; 32], KeyFileError> {
    match fs::symlink_metadata(path) {
        Ok(_) => read_existing(path, valid),
        Err(e) if e.kind() == io::ErrorKind::NotFound => create_new(path, valid),
        Err(source) => Err(KeyFileError::Unreadable {
            path: path.to_owned(),
            source,
        }),
    }
}

fn read_existing(path: &Path, valid: fn(&[u8; 32]) -> bool) -> Result<[u8; 32], KeyFileError> {
    let unreadable = |source| KeyFileError::Unreadable {
        path: path.to_owned(),
        source,
    };
    let mut file = fs::File::open(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(unreadable(io::Error::other("not a regular file")));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(KeyFileError::WrongMode {
            path: path.to_owned(),
            mode,
        });
    }
    if meta.len() != 32 {
        return Err(KeyFileError::WrongSize {
            path: path.to_owned(),
            len: meta.len(),
        });
    }
    let mut buf = Vec::with_capacity(33);
    Read::take(&mut file, 33)
        .read_to_end(&mut buf)
        .map_err(unreadable)?;
    let secret: [u8; 32] = buf
        .as_slice()
        .try_into()
        .map_err(|_| KeyFileError::WrongSize {
            path: path.to_owned(),
            len: buf.len() as u64,
        })?;
    if !valid(&secret) {
        return Err(KeyFileError::NotAScalar {
            path: path.to_owned(),
        });
    }
    Ok(secret)
}

fn create_new(path: &Path, valid: fn(&[u8; 32]) -> bool) -> Result<[u8; 32], KeyFileError> {
    let mut secret = crate::secret::random_bytes::<32>()?;
    // A rejection here is astronomically unlikely (about 2^-32 for P-256); bounded retries.
    for _ in 0..8 {
        if valid(&secret) {
            break;
        }
        secret = crate::secret::random_bytes::<32>()?;
    }
    let create = |source| KeyFileError::Create {
        path: path.to_owned(),
        source,
    };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(create)?;
    }
    // Written whole beside its place, then linked into it: a write cut short (a full disk, a
    // crash) leaves no short key file that every later start would refuse as corrupt. The link
    // fails if the file appeared meanwhile, as `create_new` would.
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(
        ".new-{}",
        crate::secret::hex_lower(&crate::secret::random_bytes::<8>()?)
    ));
    let tmp = path.with_file_name(name);
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        file.write_all(&secret)?;
        file.sync_all()?;
        fs::hard_link(&tmp, path)
    })();
    let _ = fs::remove_file(&tmp);
    written.map_err(create)?;
    if let Some(parent) = path.parent()
        && let Ok(dir) = fs::File::open(parent)
    {
        let _ = dir.sync_all();
    }
    Ok(secret)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn tempdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "termplane-keys-{tag}-{}",
            crate::secret::new_id().unwrap()
        ));
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn first_use_creates_0600_files_and_second_use_reads_them() {
        let d = tempdir("create");
        let a = PlaneSecrets::load_or_create(&d).unwrap();
        for name in [LINK_KEY_FILE, SIGNING_KEY_FILE] {
            let m = fs::metadata(d.join(name)).unwrap();
            assert_eq!(m.permissions().mode() & 0o777, 0o600);
            assert_eq!(m.len(), 32);
        }
        let b = PlaneSecrets::load_or_create(&d).unwrap();
        assert_eq!(a.link, b.link);
        assert_eq!(a.signing, b.signing);
        assert_ne!(a.link, a.signing);
        assert!(is_p256_scalar(&a.signing));
    }

    #[test]
    fn wrong_size_is_fatal_and_file_is_untouched() {
        let d = tempdir("size");
        let p = d.join(LINK_KEY_FILE);
        fs::write(&p, [7u8; 31]).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        let err = PlaneSecrets::load_or_create(&d).unwrap_err();
        assert!(
            matches!(err, KeyFileError::WrongSize { len: 31, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("link.key"));
        assert_eq!(fs::read(&p).unwrap(), vec![7u8; 31]);
    }

    #[test]
    fn group_readable_file_is_fatal() {
        let d = tempdir("mode");
        let p = d.join(LINK_KEY_FILE);
        fs::write(&p, [1u8; 32]).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        let err = PlaneSecrets::load_or_create(&d).unwrap_err();
        assert!(
            matches!(err, KeyFileError::WrongMode { mode: 0o640, .. }),
            "{err}"
        );
    }

    #[test]
    fn invalid_scalar_is_fatal() {
        let d = tempdir("scalar");
        PlaneSecrets::load_or_create(&d).unwrap();
        let p = d.join(SIGNING_KEY_FILE);
        fs::write(&p, [0xffu8; 32]).unwrap();
        let err = PlaneSecrets::load_or_create(&d).unwrap_err();
        assert!(matches!(err, KeyFileError::NotAScalar { .. }), "{err}");
        fs::write(&p, [0u8; 32]).unwrap();
        assert!(PlaneSecrets::load_or_create(&d).is_err());
    }

    #[test]
    fn unreadable_path_is_fatal() {
        let d = tempdir("dir");
        fs::create_dir_all(d.join(LINK_KEY_FILE)).unwrap();
        fs::set_permissions(d.join(LINK_KEY_FILE), fs::Permissions::from_mode(0o700)).unwrap();
        let err = PlaneSecrets::load_or_create(&d).unwrap_err();
        assert!(
            matches!(
                err,
                KeyFileError::Unreadable { .. } | KeyFileError::WrongSize { .. }
            ),
            "{err}"
        );
    }

    #[test]
    fn scalar_bounds() {
        let mut n = P256_ORDER;
        assert!(!is_p256_scalar(&n));
        n[31] -= 1;
        assert!(is_p256_scalar(&n));
        assert!(!is_p256_scalar(&[0u8; 32]));
        let mut one = [0u8; 32];
        one[31] = 1;
        assert!(is_p256_scalar(&one));
    }
}
