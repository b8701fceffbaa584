//! Storage, one module per domain: [`accounts`] (the instance row, accounts, sessions),
//! [`credentials`] (system keys, setup keys), [`enrollment`], [`nodes`] (node rows and the live
//! link's writes), [`subshells`] (subshell rows and their tokens), [`catalog`] (plugin switches,
//! detections, presets, workspaces, node facts), [`inputs`] (who typed into a pane) and [`audit`].
//!
//! One `sqlx::Any` code path over SQLite (the default, a file in the data directory)
//! and PostgreSQL (chosen by a `postgres://` URL). Each backend has its own migrations folder;
//! every timestamp is an integer of Unix milliseconds and every flag an integer 0/1 so that both
//! backends decode the same way. Writes that must be atomic run in one transaction.

mod accounts;
mod attach_tokens;
mod audit;
mod backoff;
mod catalog;
mod channels;
mod credentials;
mod enrollment;
mod files;
mod inputs;
mod keys;
mod links;
mod network;
mod nodes;
mod notifications;
mod passkeys;
mod replicas;
mod shares;
mod subshells;
mod timed;
mod uploads;
mod viewers;
mod words;

pub use accounts::{EndSessions, SYSTEM_USER_EMAIL, User, UserChange};
pub use attach_tokens::AttachTokenRow;
pub use audit::{AuditEntry, AuditFilter};
pub use backoff::BackoffRow;
pub use catalog::{Detected, NodeFacts, Preset, Settable, Workspace};
pub use channels::{AddIdentity, AppendError, ChannelRow, EntryRow, IdentityRow};
pub use credentials::{SetupKey, SystemKey};
pub use enrollment::{Consume, NewNode};
pub use files::FileRow;
pub use inputs::InputMarkRow;
pub use network::ListenerRow;
pub use nodes::{Node, NodeDeletion, ReportedIdentity};
pub use notifications::{
    DeviceRow, KEPT_NOTIFICATIONS, MAX_DEVICES_PER_ACCOUNT, MuteRow, NotificationRow, Prefs, Quiet,
};
pub use passkeys::{AddPasskey, MAX_PASSKEYS_PER_ACCOUNT, PasskeyRow};
pub use replicas::ReplicaRow;
pub use shares::Share;
pub use subshells::{AgentRow, AgentWrite, Change, Subshell, SubshellFilter};
pub use uploads::{AddUpload, UploadRow};
pub use viewers::ViewerRow;
pub use words::{Heard, Topic, WORDS_CHANNEL, Word, WordListener};

use audit::{Entry, audit_in, commit_if_changed};

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AssertSqlSafe, Connection as _, Executor, Row};

use crate::secret;

/// Which database a store talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// SQLite (WAL, foreign keys on, busy timeout).
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

/// Faults a test can switch on to prove that a transaction rolls back (catalogue A9).
#[derive(Debug, Default)]
pub struct Faults {
    /// Fail enrollment after the setup key is consumed and before the node row is written.
    pub fail_after_consume: AtomicBool,
}

/// The database of the plane.
#[derive(Clone, Debug)]
pub struct Store {
    pool: timed::TimedPool,
    backend: Backend,
    faults: std::sync::Arc<Faults>,
    /// The SQLite file (path, device, inode) as opened, for the readiness probe.
    sqlite_file: Option<(std::path::PathBuf, u64, u64)>,
    /// The PostgreSQL database's URL, for connections of their own (`LISTEN`).
    postgres_url: Option<Redacted>,
    /// On PostgreSQL, a connection of its own for this replica's lease in the cluster's
    /// membership ([`Self::put_replica`]): a lease renewed through the shared pool waited
    /// behind thousands of nodes' link writes (seen past 7 s with 10,000 nodes linking at
    /// once), lapsed, and had the other replicas release nodes whose links were alive.
    lease_pool: Option<sqlx::AnyPool>,
}

/// A URL that may hold a password: its `Debug` shows nothing of it.
#[derive(Clone)]
struct Redacted(std::sync::Arc<str>);

impl std::ops::Deref for Redacted {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Redacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("…")
    }
}

static MIGRATIONS_SQLITE: sqlx::migrate::Migrator = sqlx::migrate!("migrations/sqlite");
static MIGRATIONS_POSTGRES: sqlx::migrate::Migrator = sqlx::migrate!("migrations/postgres");

fn flag(row: &AnyRow, col: &str) -> Result<bool, sqlx::Error> {
    Ok(row.try_get::<i64, _>(col)? != 0)
}

impl Store {
    /// Opens `url` (`sqlite:…` or `postgres://…`), applies the backend's migrations and seeds the
    /// rows that exist from the first start (instance, `system` account, local node).
    pub async fn open(url: &str, now_ms: i64) -> Result<Self, sqlx::Error> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            return Err(sqlx::Error::Configuration(
                format!(
                    "unsupported database URL scheme (use sqlite: or postgres://): {}",
                    redact_url(url)
                )
                .into(),
            ));
        };
        let in_memory = url.contains(":memory:") || url.contains("mode=memory");
        let mut opts = AnyPoolOptions::new();
        opts = match backend {
            Backend::Sqlite if in_memory => opts.max_connections(1),
            Backend::Sqlite => opts.max_connections(4),
            Backend::Postgres => opts.max_connections(8),
        };
        // A request waits at most this long for a connection, then answers 503
        // `DATABASE_UNAVAILABLE` (a database down or restarting) rather than hang.
        opts = opts.acquire_timeout(std::time::Duration::from_secs(10));
        if !in_memory {
            // A connection that comes back from a request still counting an open transaction
            // is closed rather than reused. SQLite rolls a transaction back by itself when a
            // write finds the disk full (`SQLITE_FULL`); the driver's own rollback then fails
            // and its count stays at one, so every later `BEGIN` on that connection would
            // fail ("non-zero transaction depth") long after space was freed. The ping first
            // runs a rollback that a dropped transaction left queued. (An in-memory database
            // lives in its one connection, which is never closed.)
            opts = opts.after_release(|conn, _meta| {
                Box::pin(async move {
                    if !conn.is_in_transaction() {
                        return Ok(true);
                    }
                    conn.ping().await?;
                    if conn.is_in_transaction() {
                        tracing::warn!(
                            "a database connection came back inside a transaction: closed"
                        );
                        return Ok(false);
                    }
                    Ok(true)
                })
            });
        }
        if backend == Backend::Sqlite {
            opts = opts.after_connect(|conn, _meta| {
                Box::pin(async move {
                    conn.execute("PRAGMA foreign_keys = ON").await?;
                    conn.execute("PRAGMA busy_timeout = 10000").await?;
                    conn.execute("PRAGMA journal_mode = WAL").await?;
                    conn.execute("PRAGMA synchronous = NORMAL").await?;
                    Ok(())
                })
            });
        }
        let pool = match opts.connect(url).await {
            Ok(p) => p,
            // The pool retries a failing first connection until its timeout and then says
            // only that it timed out: one direct attempt names the cause ("database or disk is
            // full", "disk I/O error", a refused PostgreSQL connection…).
            Err(sqlx::Error::PoolTimedOut) => {
                use sqlx::Connection as _;
                return Err(match sqlx::AnyConnection::connect(url).await {
                    Err(cause) => cause,
                    Ok(mut conn) => match conn.execute("PRAGMA journal_mode = WAL").await {
                        Err(cause) if backend == Backend::Sqlite => cause,
                        _ => sqlx::Error::PoolTimedOut,
                    },
                });
            }
            Err(e) => return Err(e),
        };
        match backend {
            Backend::Sqlite => MIGRATIONS_SQLITE.run(&pool).await?,
            Backend::Postgres => MIGRATIONS_POSTGRES.run(&pool).await?,
        }
        let sqlite_file = sqlite_path(url).and_then(|p| {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(&p).ok()?;
            Some((p, m.dev(), m.ino()))
        });
        let store = Self {
            pool: timed::TimedPool::new(pool, std::sync::Arc::new(crate::metrics::Metrics::new())),
            backend,
            faults: std::sync::Arc::default(),
            sqlite_file,
            postgres_url: (backend == Backend::Postgres).then(|| Redacted(url.into())),
            lease_pool: match backend {
                Backend::Postgres => Some(
                    AnyPoolOptions::new()
                        .max_connections(1)
                        .acquire_timeout(std::time::Duration::from_secs(5))
                        .connect_lazy(url)?,
                ),
                Backend::Sqlite => None,
            },
        };
        store.seed(now_ms).await?;
        Ok(store)
    }

    /// Begins a transaction that may write. On SQLite it begins `IMMEDIATE`, taking the write
    /// lock at once (waiting for it under the busy timeout): a deferred transaction that read
    /// first and then wrote would be refused "database is locked" at once, without waiting,
    /// whenever another connection wrote in between. On PostgreSQL it is a plain `BEGIN`.
    pub(crate) async fn write_tx(
        &self,
    ) -> Result<sqlx::Transaction<'static, sqlx::Any>, sqlx::Error> {
        let started = std::time::Instant::now();
        let tx = match self.backend {
            Backend::Sqlite => self.pool.inner().begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => self.pool.inner().begin().await,
        };
        self.metrics().db_acquired(started.elapsed());
        tx
    }

    /// Serialises a transaction's writes that are checked against an account's own limits
    /// (how many passkeys, devices…): it writes the account's row first, a row lock on
    /// PostgreSQL (where two transactions would otherwise both count room for one more), and
    /// on SQLite inside a write transaction the lock is already held.
    pub(crate) async fn account_lock(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        user_id: &str,
    ) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE users SET updated_at = updated_at WHERE id = $1")
            .bind(user_id)
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    /// The plane's metrics (the store's queries are measured into them).
    #[must_use]
    pub fn metrics(&self) -> &std::sync::Arc<crate::metrics::Metrics> {
        self.pool.metrics()
    }

    /// The readiness probe's look at the database: the highest migration applied, read on a
    /// connection of the pool (so it fails when none can be had), and the highest one this
    /// binary carries.
    pub async fn migration_state(&self) -> Result<(i64, i64), sqlx::Error> {
        let applied: Option<i64> =
            sqlx::query("SELECT MAX(version) AS v FROM _sqlx_migrations WHERE success")
                .fetch_one(&self.pool)
                .await?
                .try_get("v")?;
        let known = match self.backend {
            Backend::Sqlite => &MIGRATIONS_SQLITE,
            Backend::Postgres => &MIGRATIONS_POSTGRES,
        }
        .iter()
        .map(|m| m.version)
        .max()
        .unwrap_or(0);
        Ok((applied.unwrap_or(0), known))
    }

    /// For SQLite: whether the file at the configured path is still the one the plane
    /// opened. A file moved, deleted or replaced underneath a running plane leaves its
    /// connections writing to a file nobody will open again; an error says which.
    pub fn database_file_intact(&self) -> Result<(), String> {
        use std::os::unix::fs::MetadataExt;
        let Some((path, dev, ino)) = &self.sqlite_file else {
            return Ok(());
        };
        match std::fs::metadata(path) {
            Ok(m) if m.dev() == *dev && m.ino() == *ino => {
                // Readable as a SQLite file: its header says so.
                let mut head = [0u8; 16];
                std::fs::File::open(path)
                    .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                if &head == b"SQLite format 3\0" {
                    Ok(())
                } else {
                    Err(format!("{} is not a SQLite database file", path.display()))
                }
            }
            Ok(_) => Err(format!(
                "{} was replaced by another file while the plane ran",
                path.display()
            )),
            Err(e) => Err(format!(
                "{}: {e} (moved or deleted while the plane ran)",
                path.display()
            )),
        }
    }

    /// The backend in use.
    #[must_use]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The database's size in bytes, when the backend tells.
    pub async fn database_bytes(&self) -> Result<Option<i64>, sqlx::Error> {
        let q = match self.backend {
            Backend::Sqlite => {
                "SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()"
            }
            Backend::Postgres => "SELECT pg_database_size(current_database()) AS n",
        };
        Ok(sqlx::query(q)
            .fetch_optional(&self.pool)
            .await?
            .and_then(|r| r.try_get("n").ok()))
    }

    /// Subshells per stored state.
    pub async fn subshell_state_counts(&self) -> Result<Vec<(String, i64)>, sqlx::Error> {
        sqlx::query("SELECT state, COUNT(*) AS n FROM subshells GROUP BY state ORDER BY state")
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|r| Ok((r.try_get("state")?, r.try_get("n")?)))
            .collect()
    }

    /// Switchable faults (tests).
    #[must_use]
    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    /// Closes the pool.
    pub async fn close(&self) {
        if let Some(own) = &self.lease_pool {
            own.close().await;
        }
        self.pool.close().await;
    }

    async fn seed(&self, now: i64) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        sqlx::query(
            "INSERT INTO instance (id, display_name, created_at) VALUES (1, 'termplane', $1) \
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let system_id = secret::new_id().map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
        sqlx::query(
            "INSERT INTO users (id, email, display_name, role, disabled, created_at, updated_at) \
             VALUES ($1, $2, 'system', 'service', 0, $3, $3) ON CONFLICT (email) DO NOTHING",
        )
        .bind(system_id)
        .bind(SYSTEM_USER_EMAIL)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let local: i64 = sqlx::query("SELECT COUNT(*) AS n FROM nodes WHERE is_local = 1")
            .fetch_one(&mut *tx)
            .await?
            .try_get("n")?;
        if local == 0 {
            let id = secret::new_id().map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
            let host = std::fs::read_to_string("/etc/hostname")
                .map(|s| s.trim().to_owned())
                .unwrap_or_default();
            sqlx::query(
                "INSERT INTO nodes (id, name, os, arch, hostname, agent_version, liveness, \
                 allowed_dirs, is_local, created_at, updated_at) \
                 VALUES ($1, 'local', $2, $3, $4, $5, 'online', '[]', 1, $6, $6)",
            )
            .bind(id)
            .bind(local_os())
            .bind(std::env::consts::ARCH)
            .bind(host)
            .bind(env!("CARGO_PKG_VERSION"))
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await
    }
}

fn local_os() -> &'static str {
    match std::env::consts::OS {
        "linux" => "linux",
        "macos" => "darwin",
        _ => "unknown",
    }
}

/// Makes the SQLite database file of `url` (and its `-wal` and `-shm` companions, where they
/// exist) private to the plane's user before the pool opens it: a missing file is created with
/// mode 0600, existing ones are tightened to 0600. SQLite creates its companion files with the
/// main file's mode, so they follow. Anything but a `sqlite:` file URL is left alone.
pub fn prepare_sqlite_file(url: &str) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let Some(rest) = url.strip_prefix("sqlite:") else {
        return Ok(());
    };
    let path = rest.trim_start_matches("//");
    let path = path.split('?').next().unwrap_or_default();
    if path.is_empty() || path.contains(":memory:") || url.contains("mode=memory") {
        return Ok(());
    }
    let main = std::path::PathBuf::from(path);
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&main)?;
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let p = std::path::PathBuf::from(format!("{}{suffix}", main.display()));
        if p.exists() {
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600))?;
        }
    }
    Ok(())
}

/// The file of a `sqlite:` URL (`None` for PostgreSQL and in-memory databases).
#[must_use]
pub fn sqlite_path(url: &str) -> Option<std::path::PathBuf> {
    let rest = url.strip_prefix("sqlite:")?;
    let path = rest.trim_start_matches("//");
    let path = path.split('?').next().unwrap_or_default();
    if path.is_empty() || path.contains(":memory:") || url.contains("mode=memory") {
        return None;
    }
    Some(std::path::PathBuf::from(path))
}

/// A database error in a few words for a probe's answer: its kind, never a statement or a
/// value.
#[must_use]
pub fn describe_error(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::PoolTimedOut => "no connection could be had in time".into(),
        sqlx::Error::PoolClosed => "the pool is closed".into(),
        sqlx::Error::Io(io) => format!("I/O error: {io}"),
        sqlx::Error::Tls(_) => "TLS error".into(),
        sqlx::Error::Database(d) => format!("database error: {}", d.message()),
        other => other.to_string(),
    }
}

/// `url` with any password replaced, for messages.
#[must_use]
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.find(':') {
                Some(c) => format!("{}{}:***{}", &url[..s + 3], &creds[..c], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

/// Whether `e` is a write refused because a row it refers to is gone (a foreign key).
#[must_use]
pub fn is_foreign_key_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.kind() == sqlx::error::ErrorKind::ForeignKeyViolation)
}

/// Whose live subshells [`live_subshells_in`] lists.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LiveOf {
    /// An account's.
    Owner,
    /// A node's.
    Node,
}

/// The live subshells (`starting`, `running`, `stopping`) of an account or a node, as (id,
/// name), oldest first, read in `tx` (a delete that refuses while any is live checks and
/// deletes in one transaction).
pub(crate) async fn live_subshells_in(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    of: LiveOf,
    id: &str,
) -> Result<Vec<(String, String)>, sqlx::Error> {
    let sql = match of {
        LiveOf::Owner => {
            "SELECT id, name FROM subshells WHERE owner_user_id = $1 \
             AND state IN ('starting', 'running', 'stopping') ORDER BY created_at, id"
        }
        LiveOf::Node => {
            "SELECT id, name FROM subshells WHERE node_id = $1 \
             AND state IN ('starting', 'running', 'stopping') ORDER BY created_at, id"
        }
    };
    sqlx::query(sql)
        .bind(id)
        .fetch_all(&mut **tx)
        .await?
        .iter()
        .map(|r| Ok((r.try_get("id")?, r.try_get("name")?)))
        .collect()
}
