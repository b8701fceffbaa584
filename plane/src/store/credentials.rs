//! System keys and setup keys.

#[allow(unused_imports)]
use super::*;

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

pub(super) const SETUP_KEY_COLS: &str = "id, key_text, digest, owner_user_id, created_at, expires_at, used_at, \
     used_by_node_id, revoked_at";

impl Store {
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
        let mut tx = self.write_tx().await?;
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
        let mut tx = self.write_tx().await?;
        let n = sqlx::query("UPDATE system_keys SET enabled = 0, updated_at = $1 WHERE id = $2")
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        commit_if_changed(
            tx,
            n,
            now,
            Entry::by_cookie(actor, "system_key.disabled", id, "{}"),
        )
        .await
    }

    /// Deletes a system key; `false` when absent.
    pub async fn delete_system_key(
        &self,
        actor: &str,
        id: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let n = sqlx::query("DELETE FROM system_keys WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        commit_if_changed(
            tx,
            n,
            now,
            Entry::by_cookie(actor, "system_key.deleted", id, "{}"),
        )
        .await
    }

    // ----- setup keys -----

    /// Stores a new setup key.
    pub async fn create_setup_key(&self, key: &SetupKey) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
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
        let mut tx = self.write_tx().await?;
        let n = sqlx::query(
            "UPDATE setup_keys SET revoked_at = $1 WHERE id = $2 AND used_at IS NULL AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        commit_if_changed(
            tx,
            n,
            now,
            Entry::by_cookie(actor, "setup_key.revoked", id, "{}"),
        )
        .await
    }
}
