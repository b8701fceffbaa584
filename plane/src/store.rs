//! Storage: one `sqlx::Any` code path over SQLite (the default, a file in the data directory)
//! and PostgreSQL (chosen by a `postgres://` URL). Each backend has its own migrations folder;
//! every timestamp is an integer of Unix milliseconds and every flag an integer 0/1 so that both
//! backends decode the same way. Writes that must be atomic run in one transaction.

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, AssertSqlSafe, Executor, Row};

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
    pool: AnyPool,
    backend: Backend,
    faults: std::sync::Arc<Faults>,
}

/// An account.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    /// Row id.
    pub id: String,
    /// Email (lowercased); `system` for the service account.
    pub email: String,
    /// Display name.
    pub display_name: String,
    /// `admin`, `user` or `service`.
    pub role: String,
    /// Whether the account is disabled.
    pub disabled: bool,
    /// Creation time (ms).
    pub created_at: i64,
    #[serde(skip)]
    /// argon2id PHC string, absent for the service account.
    pub password_hash: Option<String>,
}

/// A system key as listed (never the secret).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemKey {
    /// Row id.
    pub id: String,
    /// Name given at creation.
    pub name: String,
    /// Non-secret preview.
    pub preview: String,
    /// Whether it authenticates.
    pub enabled: bool,
    /// Creation time (ms).
    pub created_at: i64,
    #[serde(skip)]
    /// SHA-256 digest (hex).
    pub digest: String,
}

/// A setup key row.
#[derive(Clone, Debug)]
pub struct SetupKey {
    /// Row id.
    pub id: String,
    /// The key's plaintext (setup keys are stored in the clear by design).
    pub key_text: String,
    /// SHA-256 digest (hex) for lookup.
    pub digest: String,
    /// The account that minted it (owner of the node it enrolls).
    pub owner_user_id: String,
    /// Creation time (ms).
    pub created_at: i64,
    /// Expiry (ms).
    pub expires_at: i64,
    /// When it was consumed.
    pub used_at: Option<i64>,
    /// The node it enrolled.
    pub used_by_node_id: Option<String>,
    /// When it was revoked.
    pub revoked_at: Option<i64>,
}

/// A node row.
#[derive(Clone, Debug)]
pub struct Node {
    /// Row id (`nodeId`).
    pub id: String,
    /// Owning account (none for the local node).
    pub owner_user_id: Option<String>,
    /// Name (≤ 64 characters).
    pub name: String,
    /// `linux`, `darwin` or `unknown`.
    pub os: String,
    /// Architecture.
    pub arch: String,
    /// Host name.
    pub hostname: String,
    /// Agent version.
    pub agent_version: String,
    /// Public identity JWK (JSON text).
    pub identity_jwk: Option<String>,
    /// The X25519 pin (unpadded base64url), absent when unpaired.
    pub encrypt_public_key: Option<String>,
    /// SHA-256 digest of the node key.
    pub node_key_digest: Option<String>,
    /// Whether the node key is disabled.
    pub key_disabled: bool,
    /// `online` or `offline`.
    pub liveness: String,
    /// Runtime snapshot (JSON text).
    pub runtime: Option<String>,
    /// Maintenance mirror (JSON text).
    pub maintenance: Option<String>,
    /// Allowed directories (JSON array text).
    pub allowed_dirs: String,
    /// Whether this is the plane host's own row.
    pub is_local: bool,
    /// The WebSocket URL handed out at enrollment.
    pub ws_url: Option<String>,
    /// Creation time (ms).
    pub created_at: i64,
    /// Last change (ms).
    pub updated_at: i64,
}

/// Fields of a node row written at enrollment.
#[derive(Clone, Debug)]
pub struct NewNode {
    /// Name.
    pub name: String,
    /// OS.
    pub os: String,
    /// Architecture.
    pub arch: String,
    /// Host name.
    pub hostname: String,
    /// Agent version.
    pub agent_version: String,
    /// Identity JWK (JSON text).
    pub identity_jwk: String,
    /// Optional X25519 pin.
    pub encrypt_public_key: Option<String>,
    /// Digest of the freshly minted node key.
    pub node_key_digest: String,
    /// WebSocket URL handed out.
    pub ws_url: String,
}

/// The identity a node reports in `ready`, as stored on its row.
#[derive(Clone, Debug, Default)]
pub struct ReportedIdentity {
    /// `linux`, `darwin` or `unknown`.
    pub os: String,
    /// Architecture.
    pub arch: String,
    /// Host name.
    pub hostname: String,
    /// Agent version text, when reported.
    pub agent_version: Option<String>,
    /// Runtime snapshot (JSON text).
    pub runtime: Option<String>,
    /// Maintenance mirror (JSON text).
    pub maintenance: Option<String>,
}

/// Outcome of consuming a setup key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Consume {
    /// This call consumed it and wrote the node row.
    Enrolled(String),
    /// Another call (or an earlier one) won.
    Lost,
}

/// An audit entry.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    /// Sequence number.
    pub id: i64,
    /// When (ms).
    pub at: i64,
    /// The acting account, if any.
    pub actor_user_id: Option<String>,
    /// `cookie`, `system_key`, `setup_key` or `plane`.
    pub actor_kind: String,
    /// What happened (`system_key.created`, …).
    pub action: String,
    /// The row acted on.
    pub target: Option<String>,
    /// Extra facts (never a secret).
    pub detail: serde_json::Value,
}

/// The email of the service account that system keys authenticate as.
pub const SYSTEM_USER_EMAIL: &str = "system";

fn flag(row: &AnyRow, col: &str) -> Result<bool, sqlx::Error> {
    Ok(row.try_get::<i64, _>(col)? != 0)
}

fn user_of(row: &AnyRow) -> Result<User, sqlx::Error> {
    Ok(User {
        id: row.try_get("id")?,
        email: row.try_get("email")?,
        display_name: row.try_get("display_name")?,
        role: row.try_get("role")?,
        disabled: flag(row, "disabled")?,
        created_at: row.try_get("created_at")?,
        password_hash: row.try_get("password_hash")?,
    })
}

fn system_key_of(row: &AnyRow) -> Result<SystemKey, sqlx::Error> {
    Ok(SystemKey {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        preview: row.try_get("preview")?,
        enabled: flag(row, "enabled")?,
        created_at: row.try_get("created_at")?,
        digest: row.try_get("digest")?,
    })
}

fn setup_key_of(row: &AnyRow) -> Result<SetupKey, sqlx::Error> {
    Ok(SetupKey {
        id: row.try_get("id")?,
        key_text: row.try_get("key_text")?,
        digest: row.try_get("digest")?,
        owner_user_id: row.try_get("owner_user_id")?,
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
        used_at: row.try_get("used_at")?,
        used_by_node_id: row.try_get("used_by_node_id")?,
        revoked_at: row.try_get("revoked_at")?,
    })
}

fn node_of(row: &AnyRow) -> Result<Node, sqlx::Error> {
    Ok(Node {
        id: row.try_get("id")?,
        owner_user_id: row.try_get("owner_user_id")?,
        name: row.try_get("name")?,
        os: row.try_get("os")?,
        arch: row.try_get("arch")?,
        hostname: row.try_get("hostname")?,
        agent_version: row.try_get("agent_version")?,
        identity_jwk: row.try_get("identity_jwk")?,
        encrypt_public_key: row.try_get("encrypt_public_key")?,
        node_key_digest: row.try_get("node_key_digest")?,
        key_disabled: flag(row, "key_disabled")?,
        liveness: row.try_get("liveness")?,
        runtime: row.try_get("runtime")?,
        maintenance: row.try_get("maintenance")?,
        allowed_dirs: row.try_get("allowed_dirs")?,
        is_local: flag(row, "is_local")?,
        ws_url: row.try_get("ws_url")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

const USER_COLS: &str =
    "id, email, display_name, role, password_hash, disabled, created_at, updated_at";
const NODE_COLS: &str = "id, owner_user_id, name, os, arch, hostname, agent_version, identity_jwk, \
     encrypt_public_key, node_key_digest, key_disabled, liveness, runtime, maintenance, \
     allowed_dirs, is_local, ws_url, created_at, updated_at";
const SETUP_KEY_COLS: &str = "id, key_text, digest, owner_user_id, created_at, expires_at, used_at, \
     used_by_node_id, revoked_at";

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
        let pool = opts.connect(url).await?;
        match backend {
            Backend::Sqlite => sqlx::migrate!("migrations/sqlite").run(&pool).await?,
            Backend::Postgres => sqlx::migrate!("migrations/postgres").run(&pool).await?,
        }
        let store = Self {
            pool,
            backend,
            faults: std::sync::Arc::default(),
        };
        store.seed(now_ms).await?;
        Ok(store)
    }

    /// The backend in use.
    #[must_use]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Switchable faults (tests).
    #[must_use]
    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    /// Closes the pool.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    async fn seed(&self, now: i64) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
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

    // ----- instance -----

    /// Whether the first account has been created.
    pub async fn setup_done(&self) -> Result<bool, sqlx::Error> {
        let row = sqlx::query("SELECT setup_done_at FROM instance WHERE id = 1")
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get::<Option<i64>, _>("setup_done_at")?.is_some())
    }

    /// The instance display name.
    pub async fn display_name(&self) -> Result<String, sqlx::Error> {
        sqlx::query("SELECT display_name FROM instance WHERE id = 1")
            .fetch_one(&self.pool)
            .await?
            .try_get("display_name")
    }

    /// Creates the first admin in one transaction with the single-winner flip of the setup flag.
    /// `None` when setup was already done.
    pub async fn create_first_admin(
        &self,
        email: &str,
        display_name: &str,
        password_hash: &str,
        now: i64,
    ) -> Result<Option<User>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let won = sqlx::query(
            "UPDATE instance SET setup_done_at = $1 WHERE id = 1 AND setup_done_at IS NULL",
        )
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if !won {
            return Ok(None);
        }
        let id = secret::new_id().map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
        sqlx::query(
            "INSERT INTO users (id, email, display_name, role, password_hash, disabled, created_at, updated_at) \
             VALUES ($1, $2, $3, 'admin', $4, 0, $5, $5)",
        )
        .bind(&id)
        .bind(email)
        .bind(display_name)
        .bind(password_hash)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        audit_in(
            &mut tx,
            now,
            Some(&id),
            "plane",
            "setup.admin_created",
            Some(&id),
            "{}",
        )
        .await?;
        tx.commit().await?;
        self.user_by_id(&id).await
    }

    // ----- users -----

    /// An account by email (lowercased by the caller).
    pub async fn user_by_email(&self, email: &str) -> Result<Option<User>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {USER_COLS} FROM users WHERE email = $1"
        )))
        .bind(email)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| user_of(&r))
        .transpose()
    }

    /// An account by id.
    pub async fn user_by_id(&self, id: &str) -> Result<Option<User>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {USER_COLS} FROM users WHERE id = $1"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| user_of(&r))
        .transpose()
    }

    /// Every account, oldest first.
    pub async fn users(&self) -> Result<Vec<User>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {USER_COLS} FROM users ORDER BY created_at, id"
        )))
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(user_of)
        .collect()
    }

    /// Creates an account; `None` when the email is taken.
    pub async fn create_user(
        &self,
        actor: &str,
        email: &str,
        display_name: &str,
        role: &str,
        password_hash: &str,
        now: i64,
    ) -> Result<Option<User>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let id = secret::new_id().map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
        let inserted = sqlx::query(
            "INSERT INTO users (id, email, display_name, role, password_hash, disabled, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, 0, $6, $6) ON CONFLICT (email) DO NOTHING",
        )
        .bind(&id)
        .bind(email)
        .bind(display_name)
        .bind(role)
        .bind(password_hash)
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if inserted == 0 {
            return Ok(None);
        }
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "user.created",
            Some(&id),
            &serde_json::json!({"role": role}).to_string(),
        )
        .await?;
        tx.commit().await?;
        self.user_by_id(&id).await
    }

    /// Sets an account's disabled flag; disabling also deletes every session of the account, in
    /// the same transaction. `false` when no such (non-service) account exists.
    pub async fn set_user_disabled(
        &self,
        actor: &str,
        id: &str,
        disabled: bool,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let n = sqlx::query(
            "UPDATE users SET disabled = $1, updated_at = $2 WHERE id = $3 AND role <> 'service'",
        )
        .bind(i64::from(disabled))
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if n == 0 {
            return Ok(false);
        }
        if disabled {
            sqlx::query("DELETE FROM sessions WHERE user_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        let action = if disabled {
            "user.disabled"
        } else {
            "user.enabled"
        };
        audit_in(&mut tx, now, Some(actor), "cookie", action, Some(id), "{}").await?;
        tx.commit().await?;
        Ok(true)
    }

    // ----- sessions -----

    /// Stores a new session and, in the same transaction, deletes the session the client
    /// presented before (rotation at sign-in).
    pub async fn create_session(
        &self,
        digest: &str,
        user_id: &str,
        previous_digest: Option<&str>,
        now: i64,
        expires_at: i64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        if let Some(prev) = previous_digest {
            sqlx::query("DELETE FROM sessions WHERE digest = $1")
                .bind(prev)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query(
            "INSERT INTO sessions (digest, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(digest)
        .bind(user_id)
        .bind(now)
        .bind(expires_at)
        .execute(&mut *tx)
        .await?;
        audit_in(
            &mut tx,
            now,
            Some(user_id),
            "cookie",
            "session.signed_in",
            Some(user_id),
            "{}",
        )
        .await?;
        tx.commit().await
    }

    /// The enabled account behind a live session.
    pub async fn session_user(
        &self,
        digest: &str,
        now: i64,
    ) -> Result<Option<(String, User)>, sqlx::Error> {
        let row = sqlx::query(
            "SELECT digest, user_id FROM sessions WHERE digest = $1 AND expires_at > $2",
        )
        .bind(digest)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let stored: String = row.try_get("digest")?;
        if !secret::ct_eq(&stored, digest) {
            return Ok(None);
        }
        let user_id: String = row.try_get("user_id")?;
        Ok(self
            .user_by_id(&user_id)
            .await?
            .filter(|u| !u.disabled)
            .map(|u| (stored, u)))
    }

    /// Deletes one session.
    pub async fn delete_session(&self, digest: &str) -> Result<(), sqlx::Error> {
        sqlx::query("DELETE FROM sessions WHERE digest = $1")
            .bind(digest)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Sessions of an account (tests and admin views).
    pub async fn session_count(&self, user_id: &str) -> Result<i64, sqlx::Error> {
        sqlx::query("SELECT COUNT(*) AS n FROM sessions WHERE user_id = $1")
            .bind(user_id)
            .fetch_one(&self.pool)
            .await?
            .try_get("n")
    }

    // ----- system keys -----

    /// Stores a new system key.
    pub async fn create_system_key(
        &self,
        actor: &str,
        name: &str,
        digest: &str,
        preview: &str,
        now: i64,
    ) -> Result<SystemKey, sqlx::Error> {
        let id = secret::new_id().map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO system_keys (id, name, digest, preview, enabled, created_by, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, 1, $5, $6, $6)",
        )
        .bind(&id)
        .bind(name)
        .bind(digest)
        .bind(preview)
        .bind(actor)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "system_key.created",
            Some(&id),
            &serde_json::json!({"name": name, "preview": preview}).to_string(),
        )
        .await?;
        tx.commit().await?;
        Ok(SystemKey {
            id,
            name: name.to_owned(),
            preview: preview.to_owned(),
            enabled: true,
            created_at: now,
            digest: digest.to_owned(),
        })
    }

    /// Every system key.
    pub async fn system_keys(&self) -> Result<Vec<SystemKey>, sqlx::Error> {
        sqlx::query("SELECT id, name, digest, preview, enabled, created_at FROM system_keys ORDER BY created_at, id")
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(system_key_of)
            .collect()
    }

    /// A system key by the digest of its text.
    pub async fn system_key_by_digest(
        &self,
        digest: &str,
    ) -> Result<Option<SystemKey>, sqlx::Error> {
        sqlx::query("SELECT id, name, digest, preview, enabled, created_at FROM system_keys WHERE digest = $1")
            .bind(digest)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| system_key_of(&r))
            .transpose()
    }

    /// Disables a system key; `false` when absent.
    pub async fn disable_system_key(
        &self,
        actor: &str,
        id: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let n = sqlx::query("UPDATE system_keys SET enabled = 0, updated_at = $1 WHERE id = $2")
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if n == 0 {
            return Ok(false);
        }
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "system_key.disabled",
            Some(id),
            "{}",
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Deletes a system key; `false` when absent.
    pub async fn delete_system_key(
        &self,
        actor: &str,
        id: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let n = sqlx::query("DELETE FROM system_keys WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if n == 0 {
            return Ok(false);
        }
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "system_key.deleted",
            Some(id),
            "{}",
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    // ----- setup keys -----

    /// Stores a new setup key.
    pub async fn create_setup_key(&self, key: &SetupKey) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO setup_keys (id, key_text, digest, owner_user_id, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&key.id)
        .bind(&key.key_text)
        .bind(&key.digest)
        .bind(&key.owner_user_id)
        .bind(key.created_at)
        .bind(key.expires_at)
        .execute(&mut *tx)
        .await?;
        audit_in(
            &mut tx,
            key.created_at,
            Some(&key.owner_user_id),
            "cookie",
            "setup_key.created",
            Some(&key.id),
            &serde_json::json!({"expiresAt": key.expires_at}).to_string(),
        )
        .await?;
        tx.commit().await
    }

    /// Setup keys of one account (or all when `owner` is `None`), newest first.
    pub async fn setup_keys(&self, owner: Option<&str>) -> Result<Vec<SetupKey>, sqlx::Error> {
        let rows = match owner {
            Some(o) => {
                sqlx::query(AssertSqlSafe(format!("SELECT {SETUP_KEY_COLS} FROM setup_keys WHERE owner_user_id = $1 ORDER BY created_at DESC, id")))
                    .bind(o)
                    .fetch_all(&self.pool)
                    .await?
            }
            None => {
                sqlx::query(AssertSqlSafe(format!("SELECT {SETUP_KEY_COLS} FROM setup_keys ORDER BY created_at DESC, id")))
                    .fetch_all(&self.pool)
                    .await?
            }
        };
        rows.iter().map(setup_key_of).collect()
    }

    /// A setup key by the digest of its text.
    pub async fn setup_key_by_digest(&self, digest: &str) -> Result<Option<SetupKey>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {SETUP_KEY_COLS} FROM setup_keys WHERE digest = $1"
        )))
        .bind(digest)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| setup_key_of(&r))
        .transpose()
    }

    /// A setup key by id.
    pub async fn setup_key_by_id(&self, id: &str) -> Result<Option<SetupKey>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {SETUP_KEY_COLS} FROM setup_keys WHERE id = $1"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| setup_key_of(&r))
        .transpose()
    }

    /// Revokes an unused setup key; `false` when it is absent, used or already revoked.
    pub async fn revoke_setup_key(
        &self,
        actor: &str,
        id: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let n = sqlx::query(
            "UPDATE setup_keys SET revoked_at = $1 WHERE id = $2 AND used_at IS NULL AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if n == 0 {
            return Ok(false);
        }
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "setup_key.revoked",
            Some(id),
            "{}",
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// The single-winner enrollment: consumes the setup key (only if unused, unrevoked and
    /// unexpired at `now`) and writes the node row, both in one transaction.
    pub async fn enroll(
        &self,
        setup_key_id: &str,
        owner_user_id: &str,
        node: &NewNode,
        now: i64,
    ) -> Result<Consume, sqlx::Error> {
        let node_id = secret::new_id().map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
        let mut tx = self.pool.begin().await?;
        let won = sqlx::query(
            "UPDATE setup_keys SET used_at = $1, used_by_node_id = $2 \
             WHERE id = $3 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $1",
        )
        .bind(now)
        .bind(&node_id)
        .bind(setup_key_id)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if !won {
            return Ok(Consume::Lost);
        }
        if self.faults.fail_after_consume.load(Ordering::SeqCst) {
            return Err(sqlx::Error::Protocol("injected fault after consume".into()));
        }
        sqlx::query(
            "INSERT INTO nodes (id, owner_user_id, name, os, arch, hostname, agent_version, identity_jwk, \
             encrypt_public_key, node_key_digest, key_disabled, liveness, allowed_dirs, is_local, ws_url, \
             created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, 'offline', '[]', 0, $11, $12, $12)",
        )
        .bind(&node_id)
        .bind(owner_user_id)
        .bind(&node.name)
        .bind(&node.os)
        .bind(&node.arch)
        .bind(&node.hostname)
        .bind(&node.agent_version)
        .bind(&node.identity_jwk)
        .bind(node.encrypt_public_key.clone())
        .bind(&node.node_key_digest)
        .bind(&node.ws_url)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        audit_in(
            &mut tx,
            now,
            Some(owner_user_id),
            "setup_key",
            "node.enrolled",
            Some(&node_id),
            &serde_json::json!({"setupKeyId": setup_key_id, "name": node.name}).to_string(),
        )
        .await?;
        tx.commit().await?;
        Ok(Consume::Enrolled(node_id))
    }

    // ----- nodes -----

    /// Every node (`owner` = `None`) or the nodes of one account plus the local node.
    pub async fn nodes(&self, owner: Option<&str>) -> Result<Vec<Node>, sqlx::Error> {
        let rows = match owner {
            Some(o) => {
                sqlx::query(AssertSqlSafe(format!("SELECT {NODE_COLS} FROM nodes WHERE owner_user_id = $1 OR is_local = 1 ORDER BY is_local DESC, created_at, id")))
                    .bind(o)
                    .fetch_all(&self.pool)
                    .await?
            }
            None => {
                sqlx::query(AssertSqlSafe(format!("SELECT {NODE_COLS} FROM nodes ORDER BY is_local DESC, created_at, id")))
                    .fetch_all(&self.pool)
                    .await?
            }
        };
        rows.iter().map(node_of).collect()
    }

    /// Nodes owned by one account only (a bearer listing).
    pub async fn nodes_owned_by(&self, owner: &str) -> Result<Vec<Node>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {NODE_COLS} FROM nodes WHERE owner_user_id = $1 ORDER BY created_at, id"
        )))
        .bind(owner)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(node_of)
        .collect()
    }

    /// Number of node rows, the local one included.
    pub async fn node_count(&self) -> Result<i64, sqlx::Error> {
        sqlx::query("SELECT COUNT(*) AS n FROM nodes")
            .fetch_one(&self.pool)
            .await?
            .try_get("n")
    }

    /// A node by id.
    pub async fn node(&self, id: &str) -> Result<Option<Node>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {NODE_COLS} FROM nodes WHERE id = $1"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| node_of(&r))
        .transpose()
    }

    /// A node by the digest of its (current) node key.
    pub async fn node_by_key_digest(&self, digest: &str) -> Result<Option<Node>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {NODE_COLS} FROM nodes WHERE node_key_digest = $1"
        )))
        .bind(digest)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| node_of(&r))
        .transpose()
    }

    /// Deletes a remote node row (its seen ephemeral keys go with it).
    pub async fn delete_node(&self, actor: &str, id: &str, now: i64) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let n = sqlx::query("DELETE FROM nodes WHERE id = $1 AND is_local = 0")
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if n == 0 {
            return Ok(false);
        }
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "node.deleted",
            Some(id),
            "{}",
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Replaces a remote node's key digest (the old key stops matching at once), clears its
    /// encryption pin and marks it offline, in one transaction.
    pub async fn rotate_node_key(
        &self,
        actor: &str,
        id: &str,
        new_digest: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let n = sqlx::query(
            "UPDATE nodes SET node_key_digest = $1, key_disabled = 0, encrypt_public_key = NULL, \
             liveness = 'offline', updated_at = $2 WHERE id = $3 AND is_local = 0",
        )
        .bind(new_digest)
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if n == 0 {
            return Ok(false);
        }
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "node.key_rotated",
            Some(id),
            "{}",
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Stores a node's allowed directories (JSON array text).
    pub async fn set_allowed_dirs(
        &self,
        actor: &str,
        id: &str,
        dirs_json: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let n = sqlx::query("UPDATE nodes SET allowed_dirs = $1, updated_at = $2 WHERE id = $3")
            .bind(dirs_json)
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if n == 0 {
            return Ok(false);
        }
        audit_in(&mut tx, now, Some(actor), "cookie", "node.allowed_dirs_set", Some(id), &serde_json::json!({"allowedDirs": serde_json::from_str::<serde_json::Value>(dirs_json).unwrap_or_default()}).to_string()).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Writes a node's maintenance mirror (`{ on, changedAt }` JSON) and audits it, in one
    /// transaction; `false` when there is no such node.
    pub async fn set_maintenance(
        &self,
        actor: &str,
        id: &str,
        mirror_json: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let n = sqlx::query("UPDATE nodes SET maintenance = $1, updated_at = $2 WHERE id = $3")
            .bind(mirror_json)
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if n == 0 {
            return Ok(false);
        }
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "node.maintenance_set",
            Some(id),
            mirror_json,
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Records an accepted link ephemeral key; `false` when it was seen before for this node
    /// (a replayed handshake).
    pub async fn record_ephemeral(
        &self,
        node_id: &str,
        eph: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let n = sqlx::query(
            "INSERT INTO seen_ephemeral_keys (node_id, eph, at) VALUES ($1, $2, $3) ON CONFLICT (node_id, eph) DO NOTHING",
        )
        .bind(node_id)
        .bind(eph)
        .bind(now)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n == 1)
    }

    // ----- the live link -----

    /// Sets a remote node's liveness (`online` or `offline`).
    pub async fn set_liveness(&self, id: &str, online: bool, now: i64) -> Result<(), sqlx::Error> {
        sqlx::query(
            "UPDATE nodes SET liveness = $1, updated_at = $2 WHERE id = $3 AND is_local = 0",
        )
        .bind(if online { "online" } else { "offline" })
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Marks every remote node offline (a plane start: no link survives a restart).
    pub async fn all_remote_offline(&self, now: i64) -> Result<(), sqlx::Error> {
        sqlx::query(
            "UPDATE nodes SET liveness = 'offline', updated_at = $1 WHERE is_local = 0 AND liveness <> 'offline'",
        )
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Writes the identity a node reported in `ready` onto its row. An absent agent version
    /// keeps the stored one; `runtime` and `maintenance` are replaced (JSON text or NULL).
    pub async fn persist_identity(
        &self,
        id: &str,
        identity: &ReportedIdentity,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "UPDATE nodes SET os = $1, arch = $2, hostname = $3, \
             agent_version = COALESCE($4, agent_version), runtime = $5, maintenance = $6, \
             updated_at = $7 WHERE id = $8 AND is_local = 0",
        )
        .bind(&identity.os)
        .bind(&identity.arch)
        .bind(&identity.hostname)
        .bind(identity.agent_version.clone())
        .bind(identity.runtime.clone())
        .bind(identity.maintenance.clone())
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Writes `pin` as the row's `encryptPublicKey` only where none is set (a register's claim);
    /// `true` when this call wrote it.
    pub async fn claim_pin(&self, id: &str, pin: &str, now: i64) -> Result<bool, sqlx::Error> {
        let n = sqlx::query(
            "UPDATE nodes SET encrypt_public_key = $1, updated_at = $2 \
             WHERE id = $3 AND is_local = 0 AND encrypt_public_key IS NULL",
        )
        .bind(pin)
        .bind(now)
        .bind(id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n == 1)
    }

    /// Number of ephemeral keys recorded for a node (tests).
    pub async fn seen_ephemeral_count(&self, id: &str) -> Result<i64, sqlx::Error> {
        sqlx::query("SELECT COUNT(*) AS n FROM seen_ephemeral_keys WHERE node_id = $1")
            .bind(id)
            .fetch_one(&self.pool)
            .await?
            .try_get("n")
    }

    // ----- audit -----

    /// Appends an audit entry outside any other write.
    pub async fn audit(
        &self,
        now: i64,
        actor: Option<&str>,
        kind: &str,
        action: &str,
        target: Option<&str>,
        detail: &serde_json::Value,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        audit_in(
            &mut tx,
            now,
            actor,
            kind,
            action,
            target,
            &detail.to_string(),
        )
        .await?;
        tx.commit().await
    }

    /// The newest `limit` audit entries, newest first.
    pub async fn audit_entries(&self, limit: i64) -> Result<Vec<AuditEntry>, sqlx::Error> {
        sqlx::query("SELECT id, at, actor_user_id, actor_kind, action, target, detail FROM audit_log ORDER BY id DESC LIMIT $1")
            .bind(limit)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|r| {
                let detail: String = r.try_get("detail")?;
                Ok(AuditEntry {
                    id: r.try_get("id")?,
                    at: r.try_get("at")?,
                    actor_user_id: r.try_get("actor_user_id")?,
                    actor_kind: r.try_get("actor_kind")?,
                    action: r.try_get("action")?,
                    target: r.try_get("target")?,
                    detail: serde_json::from_str(&detail).unwrap_or_default(),
                })
            })
            .collect()
    }
}

async fn audit_in(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    now: i64,
    actor: Option<&str>,
    kind: &str,
    action: &str,
    target: Option<&str>,
    detail: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO audit_log (at, actor_user_id, actor_kind, action, target, detail) VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(now)
    .bind(actor.map(str::to_owned))
    .bind(kind)
    .bind(action)
    .bind(target.map(str::to_owned))
    .bind(detail)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

fn local_os() -> &'static str {
    match std::env::consts::OS {
        "linux" => "linux",
        "macos" => "darwin",
        _ => "unknown",
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
