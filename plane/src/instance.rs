//! One plane per data directory and per database, until planes can share one.
//!
//! Two planes on one database both believe they own every node link: the second marks the
//! first one's nodes offline at its start, lists them online later while it cannot reach
//! them, and a node sent to it never links (its keys differ). So the plane takes, before it
//! reads a key file or opens the database, and holds for its whole life:
//!
//! * an exclusive `flock` on `termplane.lock` in the data directory (the key files and the
//!   kept files live there), and on `<file>.lock` beside a SQLite database file (in the data
//!   directory or elsewhere);
//! * on PostgreSQL, the session advisory lock [`ADVISORY_KEY`] of the database, on a
//!   connection of its own (named `termplane host=… pid=…`, so the refusal can say who
//!   holds it).
//!
//! A lock file records the holder's host, process id and start time; a start that finds a lock
//! taken stops with a message naming them. `flock` locks go with the process, so a plane that
//! crashed leaves none behind, whatever its file says. The PostgreSQL lock goes with its
//! connection: if that connection drops (the database restarted), readiness reports
//! `instance_lock` failed and takes the lock again as soon as it can (the plane checks its
//! readiness every 15 s on its own too), or names the plane that took it meanwhile.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sqlx::{ConnectOptions, Connection, Row};

/// The data directory's lock file.
pub const LOCK_FILE: &str = "termplane.lock";

/// The PostgreSQL advisory lock key (`termplan` in ASCII).
pub const ADVISORY_KEY: i64 = 0x7465_726d_706c_616e;

/// How long taking (or checking) the PostgreSQL lock may take.
const PG_TIMEOUT: Duration = Duration::from_secs(5);

/// The holder's description written into a lock file and the lock's connection name.
fn holder() -> String {
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    format!(
        "host={host} pid={} since={}",
        std::process::id(),
        crate::service::iso8601_utc(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0))
        )
    )
}

/// The lock connection's `application_name` (PostgreSQL keeps 63 bytes: the process id
/// first).
fn connection_name() -> String {
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    let mut name = format!("termplane pid={} host={host}", std::process::id());
    name.truncate(63);
    name
}

/// Whether a lock file is held by a running process: `Ok(None)` when free (the file may
/// exist), `Ok(Some(holder))` when held. The file is not created.
pub fn lock_holder(path: &Path) -> std::io::Result<Option<String>> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockShared) {
        Ok(()) => Ok(None),
        Err(rustix::io::Errno::WOULDBLOCK) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            Ok(Some(text.trim().to_owned()))
        }
        Err(e) => Err(e.into()),
    }
}

/// Takes the exclusive lock of `path` (creating the file, mode 0600) and writes the holder
/// into it; an error names the holder when another process has it.
fn lock_file(path: &Path, what: &str) -> Result<File, String> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
        .map_err(|e| format!("cannot open the lock file {}: {e}", path.display()))?;
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => {}
        Err(rustix::io::Errno::WOULDBLOCK) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let who = text.trim();
            return Err(format!(
                "another termplane is running on {what} ({}{}); one plane per data directory \
                 and database: stop that one first",
                path.display(),
                if who.is_empty() {
                    String::new()
                } else {
                    format!(", held by {who}")
                }
            ));
        }
        Err(e) => return Err(format!("cannot lock {}: {e}", path.display())),
    }
    let written = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| writeln!(file, "{}", holder()))
        .and_then(|()| file.flush());
    if let Err(e) = written {
        tracing::warn!(lock = %path.display(), error = %e, "the lock file's holder was not written");
    }
    Ok(file)
}

/// The locks a running plane holds.
pub struct InstanceLock {
    _files: Vec<File>,
    pg: Option<PgLock>,
}

impl std::fmt::Debug for InstanceLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstanceLock")
            .field("postgres", &self.pg.is_some())
            .finish_non_exhaustive()
    }
}

struct PgLock {
    url: String,
    conn: smol::lock::Mutex<Option<sqlx::postgres::PgConnection>>,
}

impl InstanceLock {
    /// Takes the locks for a plane on `data_dir` with the database at `database_url`; a
    /// replica of a cluster (`cluster`) shares its PostgreSQL database with its peers and takes
    /// only its data directory's lock.
    pub async fn acquire(
        data_dir: &Path,
        database_url: &str,
        cluster: bool,
    ) -> Result<Self, String> {
        let mut files = vec![lock_file(&data_dir.join(LOCK_FILE), "this data directory")?];
        // Beside the database file, wherever it is: a plane with another data directory but
        // the same SQLite file meets this one.
        if let Some(db) = crate::store::sqlite_path(database_url) {
            files.push(lock_file(&sqlite_lock_path(&db), "this SQLite database")?);
        }
        let pg = if is_postgres(database_url) && !cluster {
            let lock = PgLock {
                url: database_url.to_owned(),
                conn: smol::lock::Mutex::new(None),
            };
            lock.take().await?;
            Some(lock)
        } else {
            None
        };
        Ok(Self { _files: files, pg })
    }

    /// Readiness's view: `Ok` while every lock is held.
    pub async fn check(&self) -> Result<(), String> {
        match &self.pg {
            Some(pg) => pg.check().await,
            None => Ok(()),
        }
    }
}

/// Whether `database_url` names a PostgreSQL database.
#[must_use]
pub fn is_postgres(database_url: &str) -> bool {
    database_url.starts_with("postgres://") || database_url.starts_with("postgresql://")
}

/// The lock file beside a SQLite database file.
#[must_use]
pub fn sqlite_lock_path(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    db.with_file_name(name)
}

fn timed_out() -> String {
    format!(
        "the database did not answer within {} s",
        PG_TIMEOUT.as_secs()
    )
}

async fn within<T>(f: impl std::future::Future<Output = Result<T, String>>) -> Result<T, String> {
    futures_lite::FutureExt::or(f, async {
        smol::Timer::after(PG_TIMEOUT).await;
        Err(timed_out())
    })
    .await
}

impl PgLock {
    /// Connects and takes the advisory lock; an error names the holder when another has it.
    async fn take(&self) -> Result<(), String> {
        let mut slot = self.conn.lock().await;
        let conn = within(async {
            let opts: sqlx::postgres::PgConnectOptions =
                self.url.parse().map_err(|e| format!("database URL: {e}"))?;
            let mut conn = opts
                .application_name(&connection_name())
                .connect()
                .await
                .map_err(|e| {
                    format!(
                        "cannot connect to take the instance lock: {}",
                        crate::store::describe_error(&e)
                    )
                })?;
            let got: bool = sqlx::query("SELECT pg_try_advisory_lock($1) AS got")
                .bind(ADVISORY_KEY)
                .fetch_one(&mut conn)
                .await
                .and_then(|r| r.try_get("got"))
                .map_err(|e| format!("cannot take the instance lock: {e}"))?;
            if got {
                return Ok(conn);
            }
            let who = pg_holder(&mut conn).await;
            let _ = conn.close().await;
            Err(format!(
                "another termplane is running on this PostgreSQL database ({}); one plane per \
                 database: stop that one first",
                who.unwrap_or_else(|| "its holder is not visible to this role".into())
            ))
        })
        .await?;
        *slot = Some(conn);
        Ok(())
    }

    /// Whether the lock's connection still lives; if it died, the lock is taken again.
    async fn check(&self) -> Result<(), String> {
        {
            let mut slot = self.conn.lock().await;
            if let Some(conn) = slot.as_mut() {
                let alive = within(async { conn.ping().await.map_err(|e| e.to_string()) }).await;
                if alive.is_ok() {
                    return Ok(());
                }
                tracing::warn!(
                    "the instance lock's database connection was lost; taking the lock again"
                );
                *slot = None;
            }
        }
        self.take().await
    }
}

/// Who holds the advisory lock, as PostgreSQL shows it.
async fn pg_holder(conn: &mut sqlx::postgres::PgConnection) -> Option<String> {
    let hi = ADVISORY_KEY >> 32;
    let lo = ADVISORY_KEY & 0xffff_ffff;
    let row = sqlx::query(
        "SELECT a.application_name AS name, CAST(a.client_addr AS TEXT) AS addr, a.pid AS pid \
         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid \
         WHERE l.locktype = 'advisory' AND l.granted \
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) \
         AND CAST(l.classid AS BIGINT) = $1 AND CAST(l.objid AS BIGINT) = $2 LIMIT 1",
    )
    .bind(hi)
    .bind(lo)
    .fetch_optional(conn)
    .await
    .ok()??;
    let name: Option<String> = row.try_get("name").ok().flatten();
    let addr: Option<String> = row.try_get("addr").ok().flatten();
    let pid: Option<i32> = row.try_get("pid").ok();
    Some(format!(
        "held by {} (backend pid {}{})",
        name.filter(|n| !n.is_empty())
            .unwrap_or_else(|| "an unnamed connection".into()),
        pid.map_or_else(|| "?".into(), |p| p.to_string()),
        addr.map(|a| format!(", from {a}")).unwrap_or_default()
    ))
}

/// The instance lock as readiness holds it.
pub struct SharedLock(pub Arc<InstanceLock>);

impl crate::service::health::HeldLock for SharedLock {
    fn check(&self) -> futures_lite::future::Boxed<Result<(), String>> {
        let lock = self.0.clone();
        Box::pin(async move { lock.check().await })
    }
}
