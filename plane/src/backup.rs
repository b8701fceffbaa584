//! `termplane backup FILE` and `termplane restore FILE`.
//!
//! A backup is one tar file (mode 0600: it holds the plane's secrets) with:
//!
//! * `termplane-backup.json` — what it is: format, plane version, time, database kind;
//! * `database/termplane.db` — for SQLite, a consistent copy made with `VACUUM INTO` while the
//!   plane runs: one read transaction, so it is the database as of one instant, with every
//!   write committed before that instant and none after (writers go on meanwhile: WAL);
//! * `data/<name>.key` — every key file of the data directory: `signing.key` and `link.key`
//!   (every enrolled node pins their public halves), `channels.key` (channel entries are
//!   sealed under it), `vapid.key` (push subscriptions are bound to it);
//! * `data/files/…` — the kept files' blobs (copied after the database, so every blob the
//!   copy refers to is there unless it was deleted in between).
//!
//! The local node's directory (its tmux socket and pane logs) is not kept: panes do not move
//! with a backup. For PostgreSQL the archive holds the key and kept files only; the database
//! is backed up with `pg_dump` (see the README), and the two belong together.
//!
//! A restore writes into a data directory that does not exist or is empty, and refuses one a
//! running plane holds (its lock file is locked) or that holds anything; for SQLite, the
//! database file must not exist either. Everything is unpacked beside its place and renamed
//! into it, so a restore cut short leaves no half-restored data directory.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::Config;

/// The manifest's name in the archive.
pub const MANIFEST: &str = "termplane-backup.json";
/// The SQLite copy's name in the archive.
pub const DATABASE_ENTRY: &str = "database/termplane.db";
const DATA_PREFIX: &str = "data/";
/// The kept files' directory in the data directory.
const FILES_DIR: &str = "files";

/// What an archive says about itself.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Manifest {
    /// Archive format (1).
    pub format: u32,
    /// The plane's version that wrote it.
    pub version: String,
    /// When, as ISO 8601 UTC.
    pub created_at: String,
    /// `sqlite` or `postgres`.
    pub database: String,
    /// The key files it holds.
    pub key_files: Vec<String>,
    /// How many kept files it holds.
    pub kept_files: u64,
}

/// What a backup or a restore did.
#[derive(Debug)]
pub struct Summary {
    /// The manifest written or read.
    pub manifest: Manifest,
    /// Bytes of the database copy (0 for PostgreSQL).
    pub database_bytes: u64,
}

fn now_iso() -> String {
    crate::service::iso8601_utc(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0)),
    )
}

fn random_suffix() -> String {
    crate::secret::random_bytes::<6>()
        .map(|b| crate::secret::hex_lower(&b))
        .unwrap_or_else(|_| std::process::id().to_string())
}

/// The data directory's key files: its regular files named `*.key`.
fn key_files(dir: &Path) -> io::Result<Vec<String>> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".key") && e.file_type()?.is_file() {
            out.push(name);
        }
    }
    out.sort();
    Ok(out)
}

/// Every regular file under `root/rel`, as paths relative to `root` (the upload scratch
/// directory `files/tmp` left out).
fn kept_files(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let dir = root.join(rel);
    let entries = match fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for e in entries {
        let e = e?;
        let r = rel.join(e.file_name());
        if r == Path::new(FILES_DIR).join("tmp") {
            continue;
        }
        let t = e.file_type()?;
        if t.is_dir() {
            kept_files(root, &r, out)?;
        } else if t.is_file() {
            out.push(r);
        }
    }
    Ok(())
}

fn append_file<W: Write>(
    tar: &mut tar::Builder<W>,
    name: &str,
    path: &Path,
) -> Result<u64, String> {
    let mut f = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let len = f
        .metadata()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    let mut header = tar::Header::new_gnu();
    header.set_size(len);
    header.set_mode(0o600);
    header.set_mtime(0);
    header.set_entry_type(tar::EntryType::Regular);
    tar.append_data(&mut header, name, &mut f)
        .map_err(|e| format!("writing {name} into the archive: {e}"))?;
    Ok(len)
}

/// Makes a SQLite copy of the database at `url` into `into` with `VACUUM INTO`.
async fn sqlite_copy(url: &str, into: &Path) -> Result<(), String> {
    use sqlx::ConnectOptions;
    let path = crate::store::sqlite_path(url).ok_or("the database URL names no SQLite file")?;
    if !path.exists() {
        return Err(format!("no database at {}", path.display()));
    }
    let opts = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&path)
        .create_if_missing(false)
        .busy_timeout(std::time::Duration::from_secs(30));
    let mut conn = opts
        .connect()
        .await
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let target = into.display().to_string();
    if target.contains('\'') {
        return Err("the archive's directory has a quote in its path".into());
    }
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("VACUUM INTO '{target}'")))
        .execute(&mut conn)
        .await
        .map_err(|e| format!("copying the database: {e}"))?;
    let _ = sqlx::Connection::close(conn).await;
    Ok(())
}

/// `termplane backup FILE`.
pub async fn backup(cfg: &Config, file: &Path) -> Result<Summary, String> {
    if file.exists() {
        return Err(format!(
            "{} exists; a backup never overwrites a file",
            file.display()
        ));
    }
    let url = cfg.database_url();
    let postgres = url.starts_with("postgres://") || url.starts_with("postgresql://");
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let partial = dir.join(format!(
        ".{}.partial-{}",
        file.file_name().unwrap_or_default().to_string_lossy(),
        random_suffix()
    ));
    let db_copy = dir.join(format!(".termplane-db-copy-{}", random_suffix()));
    let result = async {
        let mut database_bytes = 0;
        if !postgres {
            sqlite_copy(&url, &db_copy).await?;
            fs::set_permissions(&db_copy, fs::Permissions::from_mode(0o600))
                .map_err(|e| e.to_string())?;
        }
        let out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&partial)
            .map_err(|e| format!("{}: {e}", partial.display()))?;
        let mut tar = tar::Builder::new(io::BufWriter::new(out));
        let keys = key_files(&cfg.data_dir)
            .map_err(|e| format!("reading {}: {e}", cfg.data_dir.display()))?;
        if !keys.iter().any(|k| k == crate::keys::SIGNING_KEY_FILE) {
            return Err(format!(
                "no {} in {}: this is not a plane's data directory",
                crate::keys::SIGNING_KEY_FILE,
                cfg.data_dir.display()
            ));
        }
        let mut kept = Vec::new();
        kept_files(&cfg.data_dir, Path::new(FILES_DIR), &mut kept)
            .map_err(|e| format!("reading the kept files: {e}"))?;
        let manifest = Manifest {
            format: 1,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            created_at: now_iso(),
            database: if postgres { "postgres" } else { "sqlite" }.to_owned(),
            key_files: keys.clone(),
            kept_files: kept.len() as u64,
        };
        let text = serde_json::to_vec_pretty(&manifest).map_err(|e| e.to_string())?;
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o600);
        header.set_mtime(0);
        tar.append_data(&mut header, MANIFEST, text.as_slice())
            .map_err(|e| e.to_string())?;
        if !postgres {
            database_bytes = append_file(&mut tar, DATABASE_ENTRY, &db_copy)?;
        }
        for k in &keys {
            append_file(
                &mut tar,
                &format!("{DATA_PREFIX}{k}"),
                &cfg.data_dir.join(k),
            )?;
        }
        for rel in &kept {
            let name = format!("{DATA_PREFIX}{}", rel.display());
            match append_file(&mut tar, &name, &cfg.data_dir.join(rel)) {
                Ok(_) => {}
                // A blob deleted since it was listed: nothing refers to it any more.
                Err(_) if !cfg.data_dir.join(rel).exists() => {}
                Err(e) => return Err(e),
            }
        }
        let buffered = tar.into_inner().map_err(|e| e.to_string())?;
        let out = buffered.into_inner().map_err(|e| e.to_string())?;
        out.sync_all().map_err(|e| e.to_string())?;
        fs::hard_link(&partial, file).map_err(|e| format!("{}: {e}", file.display()))?;
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(Summary {
            manifest,
            database_bytes,
        })
    }
    .await;
    let _ = fs::remove_file(&partial);
    let _ = fs::remove_file(&db_copy);
    result
}

/// Whether `dir` holds anything.
fn non_empty(dir: &Path) -> io::Result<bool> {
    match fs::read_dir(dir) {
        Ok(mut it) => Ok(it.next().is_some()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// An archive entry's path below `data/`, checked: plain names only (no `..`, no root).
fn data_entry(name: &Path) -> Option<PathBuf> {
    let rest = name.strip_prefix(DATA_PREFIX).ok()?;
    let plain = rest.components().all(|c| matches!(c, Component::Normal(_)));
    if !plain || rest.as_os_str().is_empty() {
        return None;
    }
    let first = rest
        .components()
        .next()?
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    let allowed = (rest.components().count() == 1 && first.ends_with(".key")) || first == FILES_DIR;
    allowed.then(|| rest.to_path_buf())
}

fn write_private(path: &Path, from: &mut impl Read) -> Result<u64, String> {
    if let Some(parent) = path.parent() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)
            .map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let n = io::copy(from, &mut f).map_err(|e| format!("{}: {e}", path.display()))?;
    f.sync_all().map_err(|e| e.to_string())?;
    Ok(n)
}

/// `termplane restore FILE`.
pub fn restore(cfg: &Config, file: &Path) -> Result<Summary, String> {
    let data_dir = &cfg.data_dir;
    if let Some(who) = crate::instance::lock_holder(&data_dir.join(crate::instance::LOCK_FILE))
        .map_err(|e| format!("{}: {e}", data_dir.display()))?
    {
        return Err(format!(
            "a running plane holds {} ({who}); stop it first, and restore into an empty \
             directory",
            data_dir.display()
        ));
    }
    if non_empty(data_dir).map_err(|e| format!("{}: {e}", data_dir.display()))? {
        return Err(format!(
            "{} is not empty; a restore never overwrites a data directory (restore into a new \
             one, or move this one aside)",
            data_dir.display()
        ));
    }
    let url = cfg.database_url();
    let target_db = crate::store::sqlite_path(&url);
    if let Some(db) = &target_db
        && fs::metadata(db).is_ok_and(|m| m.len() > 0)
    {
        return Err(format!(
            "the database file {} exists; a restore never overwrites a database",
            db.display()
        ));
    }
    let parent = data_dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let staging = parent.join(format!(
        ".{}.restoring-{}",
        data_dir.file_name().unwrap_or_default().to_string_lossy(),
        random_suffix()
    ));
    fs::DirBuilder::new()
        .mode(0o700)
        .create(&staging)
        .map_err(|e| format!("{}: {e}", staging.display()))?;
    let staged_db = staging.join(".database");
    let result = (|| {
        let archive = File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let mut tar = tar::Archive::new(io::BufReader::new(archive));
        let mut manifest: Option<Manifest> = None;
        let mut database_bytes = 0;
        let mut restored_keys = Vec::new();
        for entry in tar
            .entries()
            .map_err(|e| format!("{}: {e}", file.display()))?
        {
            let mut entry = entry.map_err(|e| format!("{}: {e}", file.display()))?;
            if entry.header().entry_type() != tar::EntryType::Regular {
                return Err("the archive holds something other than regular files".into());
            }
            let name = entry.path().map_err(|e| e.to_string())?.into_owned();
            if name == Path::new(MANIFEST) {
                let mut text = Vec::new();
                entry
                    .by_ref()
                    .take(64 * 1024)
                    .read_to_end(&mut text)
                    .map_err(|e| e.to_string())?;
                let m: Manifest = serde_json::from_slice(&text)
                    .map_err(|e| format!("not a termplane backup (its manifest: {e})"))?;
                if m.format != 1 {
                    return Err(format!(
                        "backup format {} is not known to this plane",
                        m.format
                    ));
                }
                match (m.database.as_str(), target_db.is_some()) {
                    ("sqlite", false) => {
                        return Err("this backup holds a SQLite database; restore it with a \
                                    SQLite database URL (or none)"
                            .into());
                    }
                    ("postgres", true) => {
                        return Err("this backup is of a plane on PostgreSQL: restore the \
                                    database with pg_restore and point --database-url at it"
                            .into());
                    }
                    _ => {}
                }
                manifest = Some(m);
            } else if name == Path::new(DATABASE_ENTRY) {
                if manifest.is_none() {
                    return Err("not a termplane backup (no manifest first)".into());
                }
                database_bytes = write_private(&staged_db, &mut entry)?;
            } else if let Some(rel) = data_entry(&name) {
                if manifest.is_none() {
                    return Err("not a termplane backup (no manifest first)".into());
                }
                write_private(&staging.join(&rel), &mut entry)?;
                if rel.components().count() == 1 {
                    restored_keys.push(rel.display().to_string());
                }
            } else {
                return Err(format!(
                    "the archive holds {}, which no backup writes",
                    name.display()
                ));
            }
        }
        let manifest = manifest.ok_or("not a termplane backup (no manifest)")?;
        restored_keys.sort();
        if restored_keys != manifest.key_files {
            return Err(format!(
                "the archive's key files ({restored_keys:?}) are not the ones its manifest \
                 lists ({:?}): it is damaged",
                manifest.key_files
            ));
        }
        // The two link keys are what every enrolled node pins: check they load.
        crate::keys::load_or_create_file(&staging.join(crate::keys::LINK_KEY_FILE), |_| true)
            .and_then(|_| {
                crate::keys::load_or_create_file(
                    &staging.join(crate::keys::SIGNING_KEY_FILE),
                    crate::keys::is_p256_scalar,
                )
            })
            .map_err(|e| format!("the archive's keys: {e}"))?;
        if manifest.database == "sqlite" && database_bytes == 0 {
            return Err("the archive holds no database copy".into());
        }
        Ok(Summary {
            manifest,
            database_bytes,
        })
    })();
    let finished = result.and_then(|summary| {
        if let Some(db) = &target_db {
            let into = if db.parent() == Some(data_dir.as_path()) {
                staging.join(db.file_name().unwrap_or_default())
            } else {
                db.clone()
            };
            fs::rename(&staged_db, &into).map_err(|e| format!("{}: {e}", into.display()))?;
        }
        // An empty directory in its place (checked above) goes; the staging one takes it.
        if data_dir.exists() {
            fs::remove_dir(data_dir).map_err(|e| format!("{}: {e}", data_dir.display()))?;
        }
        fs::rename(&staging, data_dir).map_err(|e| format!("{}: {e}", data_dir.display()))?;
        if let Ok(d) = File::open(parent) {
            let _ = d.sync_all();
        }
        Ok(summary)
    });
    if finished.is_err() {
        let _ = fs::remove_dir_all(&staging);
    }
    finished
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn only_key_files_and_kept_files_restore_into_the_data_directory() {
        assert_eq!(
            data_entry(Path::new("data/signing.key")),
            Some(PathBuf::from("signing.key"))
        );
        assert_eq!(
            data_entry(Path::new("data/files/ab/abcd")),
            Some(PathBuf::from("files/ab/abcd"))
        );
        for refused in [
            "data/../etc/passwd",
            "data/files/../../x",
            "data/termplane.db",
            "data/local-node/tmux.sock",
            "data/sub/x.key",
            "data/",
            "/data/signing.key",
        ] {
            assert_eq!(data_entry(Path::new(refused)), None, "{refused}");
        }
    }
}
