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

/// Which of an account's sessions a password change ends.
#[derive(Clone, Copy, Debug)]
pub enum EndSessions<'a> {
    /// None of them.
    None,
    /// All but the one with this digest (the session that made the change).
    AllBut(&'a str),
    /// Every one.
    All,
}

/// What a change to an account came to.
#[derive(Debug)]
pub enum UserChange {
    /// Done; the account as it is now (as it was, for a deletion).
    Done(User),
    /// No such account (the `system` service account counts as none).
    NotFound,
    /// It would leave the plane without an enabled administrator.
    LastAdmin,
    /// The account still has these live subshells (id, name), oldest first.
    LiveSubshells(Vec<(String, String)>),
}

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

    /// The origins administrators added to the trusted list.
    pub async fn added_origins(&self) -> Result<Vec<String>, sqlx::Error> {
        let text: String = sqlx::query("SELECT trusted_origins FROM instance WHERE id = 1")
            .fetch_one(&self.pool)
            .await?
            .try_get("trusted_origins")?;
        Ok(serde_json::from_str(&text).unwrap_or_default())
    }

    /// Replaces the added origins, with the audit entry, in one transaction.
    pub async fn set_added_origins(
        &self,
        origins: &[String],
        actor: &str,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let text = serde_json::to_string(origins).unwrap_or_else(|_| "[]".into());
        sqlx::query("UPDATE instance SET trusted_origins = $1 WHERE id = 1")
            .bind(&text)
            .execute(&mut *tx)
            .await?;
        let detail = serde_json::json!({ "added": origins }).to_string();
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "settings.trusted_origins_changed",
            None,
            &detail,
        )
        .await?;
        tx.commit().await
    }

    /// Renames the instance, with its audit entry, in one transaction.
    pub async fn set_display_name(
        &self,
        name: &str,
        actor: &str,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        sqlx::query("UPDATE instance SET display_name = $1 WHERE id = 1")
            .bind(name)
            .execute(&mut *tx)
            .await?;
        let detail = serde_json::json!({ "displayName": name }).to_string();
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
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
        let mut tx = self.write_tx().await?;
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
        let mut tx = self.write_tx().await?;
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
    /// the same transaction. The last enabled administrator cannot be disabled (two
    /// administrators disabling each other at once: the second finds itself the last).
    pub async fn set_user_disabled(
        &self,
        actor: &str,
        id: &str,
        disabled: bool,
        now: i64,
    ) -> Result<UserChange, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        Self::admin_change_lock(&mut tx).await?;
        let Some(current) = Self::person_in(&mut tx, id).await? else {
            return Ok(UserChange::NotFound);
        };
        if disabled && current.role == "admin" && !Self::another_admin(&mut tx, id).await? {
            return Ok(UserChange::LastAdmin);
        }
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
            return Ok(UserChange::NotFound);
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
        Ok(match self.user_by_id(id).await? {
            Some(u) => UserChange::Done(u),
            None => UserChange::NotFound,
        })
    }

    /// Serialises changes to the set of administrators: every transaction that could leave
    /// the plane without one writes the instance row first (a row lock on PostgreSQL, the write
    /// lock on SQLite), so two of them never both count the other admin.
    async fn admin_change_lock(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    ) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE instance SET display_name = display_name WHERE id = 1")
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    /// The account `id` (not the `system` service account), read inside a transaction.
    async fn person_in(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        id: &str,
    ) -> Result<Option<User>, sqlx::Error> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {USER_COLS} FROM users WHERE id = $1 AND role <> 'service'"
        )))
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?
        .map(|r| user_of(&r))
        .transpose()
    }

    /// Whether another enabled administrator than `id` exists (inside the lock).
    async fn another_admin(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        id: &str,
    ) -> Result<bool, sqlx::Error> {
        let n: i64 = sqlx::query(
            "SELECT COUNT(*) AS n FROM users WHERE role = 'admin' AND disabled = 0 AND id <> $1",
        )
        .bind(id)
        .fetch_one(&mut **tx)
        .await?
        .try_get("n")?;
        Ok(n > 0)
    }

    /// Changes an account's role and/or display name, with its audit entry. The last enabled
    /// administrator cannot be demoted.
    pub async fn update_user(
        &self,
        actor: &str,
        id: &str,
        role: Option<&str>,
        display_name: Option<&str>,
        now: i64,
    ) -> Result<UserChange, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        Self::admin_change_lock(&mut tx).await?;
        let Some(current) = Self::person_in(&mut tx, id).await? else {
            return Ok(UserChange::NotFound);
        };
        if current.role == "admin"
            && role.is_some_and(|r| r != "admin")
            && !Self::another_admin(&mut tx, id).await?
        {
            return Ok(UserChange::LastAdmin);
        }
        let role = role.unwrap_or(&current.role);
        let name = display_name.unwrap_or(&current.display_name);
        sqlx::query("UPDATE users SET role = $1, display_name = $2, updated_at = $3 WHERE id = $4")
            .bind(role)
            .bind(name)
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let detail = serde_json::json!({
            "role": (role != current.role).then_some(role),
            "displayName": (name != current.display_name).then_some(name),
        })
        .to_string();
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "user.updated",
            Some(id),
            &detail,
        )
        .await?;
        tx.commit().await?;
        Ok(match self.user_by_id(id).await? {
            Some(u) => UserChange::Done(u),
            None => UserChange::NotFound,
        })
    }

    /// Deletes an account (its sessions, passkeys, presets, workspaces and shares go with it;
    /// nodes it enrolled and keys it minted stay, unowned), with its audit entry. Refused for
    /// the last enabled administrator and while any of its subshells is live.
    pub async fn delete_user(
        &self,
        actor: &str,
        id: &str,
        now: i64,
    ) -> Result<UserChange, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        Self::admin_change_lock(&mut tx).await?;
        let Some(current) = Self::person_in(&mut tx, id).await? else {
            return Ok(UserChange::NotFound);
        };
        if current.role == "admin" && !Self::another_admin(&mut tx, id).await? {
            return Ok(UserChange::LastAdmin);
        }
        let live = super::live_subshells_in(&mut tx, super::LiveOf::Owner, id).await?;
        if !live.is_empty() {
            return Ok(UserChange::LiveSubshells(live));
        }
        // Its identities (its panes' included) sign nothing more; what they signed keeps
        // verifying, their rows outliving the account.
        sqlx::query(
            "UPDATE identities SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM users WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let detail = serde_json::json!({ "email": current.email }).to_string();
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "user.deleted",
            Some(id),
            &detail,
        )
        .await?;
        tx.commit().await?;
        Ok(UserChange::Done(current))
    }

    /// Sets an account's password hash and ends the sessions `end` says, with its audit entry
    /// (`user.password_changed` by the account itself, else `user.password_reset`); `false`
    /// when there is no such person.
    pub async fn set_password(
        &self,
        actor: &str,
        id: &str,
        hash: &str,
        end: EndSessions<'_>,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let n = sqlx::query(
            "UPDATE users SET password_hash = $1, updated_at = $2 WHERE id = $3 AND role <> 'service'",
        )
        .bind(hash)
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if n == 0 {
            return Ok(false);
        }
        let keep = match end {
            EndSessions::None => None,
            EndSessions::AllBut(digest) => Some(digest),
            EndSessions::All => Some(""),
        };
        if let Some(keep) = keep {
            sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND digest <> $2")
                .bind(id)
                .bind(keep)
                .execute(&mut *tx)
                .await?;
        }
        let action = if actor == id {
            "user.password_changed"
        } else {
            "user.password_reset"
        };
        let detail = serde_json::json!({ "otherSessionsEnded": keep.is_some() }).to_string();
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            action,
            Some(id),
            &detail,
        )
        .await?;
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
        let mut tx = self.write_tx().await?;
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
