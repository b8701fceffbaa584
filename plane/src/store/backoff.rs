//! Sign-in backoff counters and known addresses, kept where every replica on the database
//! counts them (the rules are the service's: `service::backoff`). Keys are digests.

use sqlx::Row;

use super::{Backend, Store};

/// One key's counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackoffRow {
    /// Failures counted (reserved ones included).
    pub failures: i64,
    /// When its wait ends (ms; 0: none).
    pub next_at: i64,
    /// Its last failure (ms).
    pub last_at: i64,
}

impl Store {
    /// Reads the counters of `keys` under a write lock (two replicas reserving on one key take
    /// turns), has `decide` say what each becomes (`None`: deleted) or refuse, and writes that,
    /// in one transaction. A refusal writes nothing.
    pub async fn update_backoff<E>(
        &self,
        keys: &[String],
        decide: impl FnOnce(Vec<Option<BackoffRow>>) -> Result<Vec<Option<BackoffRow>>, E>,
    ) -> Result<Result<(), E>, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        // The rows exist before they are locked, so that two first failures on one key take
        // turns too (PostgreSQL locks rows, not their absence).
        let lock = if self.backend == Backend::Postgres {
            " FOR UPDATE"
        } else {
            ""
        };
        let mut rows = Vec::with_capacity(keys.len());
        for k in keys {
            if self.backend == Backend::Postgres {
                sqlx::query(
                    "INSERT INTO sign_in_backoff (key_digest, failures, next_at, last_at) \
                     VALUES ($1, 0, 0, 0) ON CONFLICT (key_digest) DO NOTHING",
                )
                .bind(k)
                .execute(&mut *tx)
                .await?;
            }
            let row = sqlx::query(sqlx::AssertSqlSafe(format!(
                "SELECT failures, next_at, last_at FROM sign_in_backoff WHERE key_digest = $1{lock}"
            )))
            .bind(k)
            .fetch_optional(&mut *tx)
            .await?
            .map(|r| {
                Ok::<_, sqlx::Error>(BackoffRow {
                    failures: r.try_get("failures")?,
                    next_at: r.try_get("next_at")?,
                    last_at: r.try_get("last_at")?,
                })
            })
            .transpose()?
            // A row made only to be locked is no counter.
            .filter(|r| r.failures > 0 || r.next_at > 0);
            rows.push(row);
        }
        let new = match decide(rows) {
            Ok(new) => new,
            Err(refusal) => {
                tx.rollback().await?;
                return Ok(Err(refusal));
            }
        };
        for (k, row) in keys.iter().zip(new) {
            match row {
                Some(r) => {
                    sqlx::query(
                        "INSERT INTO sign_in_backoff (key_digest, failures, next_at, last_at) \
                         VALUES ($1, $2, $3, $4) ON CONFLICT (key_digest) DO UPDATE SET \
                         failures = $2, next_at = $3, last_at = $4",
                    )
                    .bind(k)
                    .bind(r.failures)
                    .bind(r.next_at)
                    .bind(r.last_at)
                    .execute(&mut *tx)
                    .await?;
                }
                None => {
                    sqlx::query("DELETE FROM sign_in_backoff WHERE key_digest = $1")
                        .bind(k)
                        .execute(&mut *tx)
                        .await?;
                }
            }
        }
        tx.commit().await?;
        Ok(Ok(()))
    }

    /// Deletes the counters whose wait ended by `now` and whose last failure was before
    /// `before`.
    pub async fn sweep_backoff(&self, now: i64, before: i64) -> Result<(), sqlx::Error> {
        sqlx::query("DELETE FROM sign_in_backoff WHERE next_at <= $1 AND last_at < $2")
            .bind(now)
            .bind(before)
            .execute(&self.pool)
            .await
            .map(|_| ())
    }

    /// When the account and address of `pair` last signed in together, if they did.
    pub async fn known_address(&self, pair: &str) -> Result<Option<i64>, sqlx::Error> {
        sqlx::query("SELECT signed_in_at FROM sign_in_known_addresses WHERE pair_digest = $1")
            .bind(pair)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.try_get("signed_in_at"))
            .transpose()
    }

    /// Records that the account and address of `pair` signed in at `now`, and forgets the pairs
    /// last seen before `before`.
    pub async fn put_known_address(
        &self,
        pair: &str,
        now: i64,
        before: i64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM sign_in_known_addresses WHERE signed_in_at < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO sign_in_known_addresses (pair_digest, signed_in_at) VALUES ($1, $2) \
             ON CONFLICT (pair_digest) DO UPDATE SET signed_in_at = $2",
        )
        .bind(pair)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await
    }
}
