//! Attach tokens waiting to be spent, where every replica on the database finds them (see the
//! terminals' `Grants`): a token is spent by one `DELETE … RETURNING`, so it opens one socket
//! whichever replica it is presented at, however many present it at once.

use sqlx::Row;

use super::Store;

/// A pending attach token's row (its digest is the key it is found by).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachTokenRow {
    /// `session` (a browser session's digest) or `bearer` (a system key's or a pane token's).
    pub minter_kind: String,
    /// The minting credential's digest.
    pub minter_digest: String,
    /// The pane it is bound to, if any.
    pub subshell_id: Option<String>,
    /// When it stops being accepted (ms).
    pub expires_at: i64,
}

impl Store {
    /// Keeps a new token under `digest`, after deleting the expired ones (before `now`); when
    /// `cap` tokens wait already, the oldest gives way.
    pub async fn put_attach_token(
        &self,
        digest: &str,
        row: &AttachTokenRow,
        now: i64,
        cap: i64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM attach_tokens WHERE expires_at <= $1")
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let waiting: i64 = sqlx::query("SELECT COUNT(*) AS n FROM attach_tokens")
            .fetch_one(&mut *tx)
            .await?
            .try_get("n")?;
        if waiting >= cap {
            sqlx::query(
                "DELETE FROM attach_tokens WHERE digest IN \
                 (SELECT digest FROM attach_tokens ORDER BY expires_at, digest LIMIT $1)",
            )
            .bind(waiting - cap + 1)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query(
            "INSERT INTO attach_tokens (digest, minter_kind, minter_digest, subshell_id, expires_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(digest)
        .bind(&row.minter_kind)
        .bind(&row.minter_digest)
        .bind(&row.subshell_id)
        .bind(row.expires_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await
    }

    /// Spends the token under `digest`: its row, deleted in the same statement (so only one
    /// presentation anywhere gets it), or `None` when no such token waits.
    pub async fn spend_attach_token(
        &self,
        digest: &str,
    ) -> Result<Option<AttachTokenRow>, sqlx::Error> {
        sqlx::query(
            "DELETE FROM attach_tokens WHERE digest = $1 \
             RETURNING minter_kind, minter_digest, subshell_id, expires_at",
        )
        .bind(digest)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| {
            Ok(AttachTokenRow {
                minter_kind: r.try_get("minter_kind")?,
                minter_digest: r.try_get("minter_digest")?,
                subshell_id: r.try_get("subshell_id")?,
                expires_at: r.try_get("expires_at")?,
            })
        })
        .transpose()
    }
}
