//! Subshells shared with other accounts.

use sqlx::Row;

use super::{Store, audit_in};

/// One share of a subshell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Share {
    /// The subshell.
    pub subshell_id: String,
    /// The account it is shared with.
    pub user_id: String,
    /// `read` or `write`.
    pub access: String,
    /// Who granted it (account id).
    pub granted_by: String,
    /// When it was first granted (ms).
    pub created_at: i64,
    /// When its access last changed (ms).
    pub updated_at: i64,
}

impl Store {
    /// The access a subshell is shared with `user_id` at, if it is.
    pub async fn share_access(
        &self,
        subshell_id: &str,
        user_id: &str,
    ) -> Result<Option<String>, sqlx::Error> {
        sqlx::query("SELECT access FROM subshell_shares WHERE subshell_id = $1 AND user_id = $2")
            .bind(subshell_id)
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.try_get("access"))
            .transpose()
    }

    /// Every share of a subshell, oldest first.
    pub async fn shares(&self, subshell_id: &str) -> Result<Vec<Share>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT subshell_id, user_id, access, granted_by, created_at, updated_at \
             FROM subshell_shares WHERE subshell_id = $1 ORDER BY created_at, user_id",
        )
        .bind(subshell_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(Share {
                    subshell_id: r.try_get("subshell_id")?,
                    user_id: r.try_get("user_id")?,
                    access: r.try_get("access")?,
                    granted_by: r.try_get("granted_by")?,
                    created_at: r.try_get("created_at")?,
                    updated_at: r.try_get("updated_at")?,
                })
            })
            .collect()
    }

    /// The ids of the subshells shared with `user_id`.
    pub async fn shared_with(&self, user_id: &str) -> Result<Vec<String>, sqlx::Error> {
        let rows = sqlx::query("SELECT subshell_id FROM subshell_shares WHERE user_id = $1")
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(|r| r.try_get("subshell_id")).collect()
    }

    /// Grants or changes a share, with its audit entry, in one transaction. Answers the share.
    pub async fn put_share(
        &self,
        subshell_id: &str,
        user_id: &str,
        access: &str,
        actor: &str,
        now: i64,
    ) -> Result<Share, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let n = sqlx::query(
            "UPDATE subshell_shares SET access = $1, updated_at = $2 \
             WHERE subshell_id = $3 AND user_id = $4",
        )
        .bind(access)
        .bind(now)
        .bind(subshell_id)
        .bind(user_id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if n == 0 {
            sqlx::query(
                "INSERT INTO subshell_shares \
                 (subshell_id, user_id, access, granted_by, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $5)",
            )
            .bind(subshell_id)
            .bind(user_id)
            .bind(access)
            .bind(actor)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        let detail = serde_json::json!({ "userId": user_id, "access": access }).to_string();
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "subshell.shared",
            Some(subshell_id),
            &detail,
        )
        .await?;
        let row = sqlx::query(
            "SELECT granted_by, created_at FROM subshell_shares \
             WHERE subshell_id = $1 AND user_id = $2",
        )
        .bind(subshell_id)
        .bind(user_id)
        .fetch_one(&mut *tx)
        .await?;
        let share = Share {
            subshell_id: subshell_id.to_owned(),
            user_id: user_id.to_owned(),
            access: access.to_owned(),
            granted_by: row.try_get("granted_by")?,
            created_at: row.try_get("created_at")?,
            updated_at: now,
        };
        tx.commit().await?;
        Ok(share)
    }

    /// Revokes a share, with its audit entry; answers whether there was one.
    pub async fn delete_share(
        &self,
        subshell_id: &str,
        user_id: &str,
        actor: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let n = sqlx::query("DELETE FROM subshell_shares WHERE subshell_id = $1 AND user_id = $2")
            .bind(subshell_id)
            .bind(user_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if n == 0 {
            return Ok(false);
        }
        let detail = serde_json::json!({ "userId": user_id }).to_string();
        audit_in(
            &mut tx,
            now,
            Some(actor),
            "cookie",
            "subshell.unshared",
            Some(subshell_id),
            &detail,
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }
}
