//! The instance row, accounts and sessions.

#[allow(unused_imports)]
use super::*;

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

/// The email of the service account that system keys authenticate as.
pub const SYSTEM_USER_EMAIL: &str = "system";

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

pub(super) const USER_COLS: &str =
    "id, email, display_name, role, password_hash, disabled, created_at, updated_at";

impl Store {
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

    /// Renames the instance, with its audit entry, in one transaction.
    pub async fn set_display_name(
        &self,
        name: &str,
        actor: &str,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE instance SET display_name = $1 WHERE id = 1")
            .bind(name)
            .execute(&mut *tx)
            .await?;
        let detail = serde_json::json!({ "displayName": name }).to_string();
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "user",
            "settings.instance_renamed",
            None,
            &detail,
        )
        .await?;
        tx.commit().await
    }

    /// Creates the first admin in one transaction with the single-winner flip of the setup flag.
    /// `None` when setup was already done.
    pub async fn create_first_admin(
        &self,
        email: &str,
        display_name: &str,
        password_hash: &str,
        instance_name: Option<&str>,
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
        if let Some(name) = instance_name {
            sqlx::query("UPDATE instance SET display_name = $1 WHERE id = 1")
                .bind(name)
                .execute(&mut *tx)
                .await?;
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
}
