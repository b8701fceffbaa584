//! Passkeys of accounts (WebAuthn credentials, serialised by the verifier).

use sqlx::Row;

use super::{Store, audit_in};

/// One stored passkey.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PasskeyRow {
    /// Row id.
    pub id: String,
    /// The account.
    pub user_id: String,
    /// The name its owner gave it.
    pub name: String,
    /// The credential id (base64url), unique across the plane.
    pub credential_id: String,
    /// The verifier's serialised credential (JSON).
    pub passkey: String,
    /// When it was registered (ms).
    pub created_at: i64,
    /// When it last signed someone in (ms).
    pub last_used_at: Option<i64>,
}

fn row(r: &sqlx::any::AnyRow) -> Result<PasskeyRow, sqlx::Error> {
    Ok(PasskeyRow {
        id: r.try_get("id")?,
        user_id: r.try_get("user_id")?,
        name: r.try_get("name")?,
        credential_id: r.try_get("credential_id")?,
        passkey: r.try_get("passkey")?,
        created_at: r.try_get("created_at")?,
        last_used_at: r.try_get("last_used_at")?,
    })
}

/// Most passkeys one account may hold.
pub const MAX_PASSKEYS_PER_ACCOUNT: i64 = 20;

/// Why a passkey was not added.
#[derive(Debug, PartialEq, Eq)]
pub enum AddPasskey {
    /// Added.
    Added,
    /// The credential id is registered already (to this or another account).
    Exists,
    /// The account holds [`MAX_PASSKEYS_PER_ACCOUNT`] already.
    Limit,
}

impl Store {
    /// The passkeys of an account, oldest first.
    pub async fn passkeys_of(&self, user_id: &str) -> Result<Vec<PasskeyRow>, sqlx::Error> {
        sqlx::query(
            "SELECT id, user_id, name, credential_id, passkey, created_at, last_used_at \
             FROM passkeys WHERE user_id = $1 ORDER BY created_at, id",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(row)
        .collect()
    }

    /// Adds a passkey with its audit entry, in one transaction (the limit is checked inside it).
    pub async fn add_passkey(&self, p: &PasskeyRow) -> Result<AddPasskey, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        Self::account_lock(&mut tx, &p.user_id).await?;
        let held: i64 = sqlx::query("SELECT COUNT(*) AS n FROM passkeys WHERE user_id = $1")
            .bind(&p.user_id)
            .fetch_one(&mut *tx)
            .await?
            .try_get("n")?;
        // The early answers end their transaction here rather than leave the rollback to the
        // drop, so the account's lock is let go before the answer is returned.
        if held >= MAX_PASSKEYS_PER_ACCOUNT {
            tx.rollback().await?;
            return Ok(AddPasskey::Limit);
        }
        let inserted = sqlx::query(
            "INSERT INTO passkeys (id, user_id, name, credential_id, passkey, created_at, \
             last_used_at) VALUES ($1, $2, $3, $4, $5, $6, NULL) \
             ON CONFLICT (credential_id) DO NOTHING",
        )
        .bind(&p.id)
        .bind(&p.user_id)
        .bind(&p.name)
        .bind(&p.credential_id)
        .bind(&p.passkey)
        .bind(p.created_at)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if inserted == 0 {
            tx.rollback().await?;
            return Ok(AddPasskey::Exists);
        }
        let detail = serde_json::json!({ "name": p.name }).to_string();
        audit_in(
            &mut tx,
            p.created_at,
            Some(&p.user_id),
            "cookie",
            "passkey.added",
            Some(&p.id),
            &detail,
        )
        .await?;
        tx.commit().await?;
        Ok(AddPasskey::Added)
    }

    /// Removes one of an account's passkeys, with its audit entry. `false` when the account has
    /// no passkey with that id.
    pub async fn delete_passkey(
        &self,
        id: &str,
        user_id: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let gone = sqlx::query("DELETE FROM passkeys WHERE id = $1 AND user_id = $2")
            .bind(id)
            .bind(user_id)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        if gone {
            audit_in(
                &mut tx,
                now,
                Some(user_id),
                "cookie",
                "passkey.removed",
                Some(id),
                "{}",
            )
            .await?;
            tx.commit().await?;
        }
        Ok(gone)
    }

    /// Records a sign-in with a passkey: its updated credential (counter, backup state) and the
    /// time.
    pub async fn passkey_used(&self, id: &str, passkey: &str, now: i64) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE passkeys SET passkey = $1, last_used_at = $2 WHERE id = $3")
            .bind(passkey)
            .bind(now)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Keeps a passkey ceremony's state under `digest` until `expires_at`, after deleting the
    /// expired ones (before `now`): `false`, keeping nothing, when `cap` ceremonies are under
    /// way already.
    pub async fn put_ceremony(
        &self,
        digest: &str,
        step: &str,
        expires_at: i64,
        now: i64,
        cap: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM passkey_ceremonies WHERE expires_at <= $1")
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let under_way: i64 = sqlx::query("SELECT COUNT(*) AS n FROM passkey_ceremonies")
            .fetch_one(&mut *tx)
            .await?
            .try_get("n")?;
        if under_way >= cap {
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO passkey_ceremonies (digest, step, expires_at) VALUES ($1, $2, $3)",
        )
        .bind(digest)
        .bind(step)
        .bind(expires_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Takes the ceremony under `digest` out, in one statement (it is finished once, at
    /// whichever replica): its state and expiry, or `None` when no such ceremony is under way.
    pub async fn take_ceremony(&self, digest: &str) -> Result<Option<(String, i64)>, sqlx::Error> {
        sqlx::query("DELETE FROM passkey_ceremonies WHERE digest = $1 RETURNING step, expires_at")
            .bind(digest)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| Ok((r.try_get("step")?, r.try_get("expires_at")?)))
            .transpose()
    }
}
