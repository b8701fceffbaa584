//! The fingerprints of the plane's key files (see the `keys` module).

use std::collections::BTreeMap;

use sqlx::Row;

use super::Store;

impl Store {
    /// Every key file's recorded fingerprint, by file name.
    pub async fn plane_key_fingerprints(&self) -> Result<BTreeMap<String, String>, sqlx::Error> {
        sqlx::query("SELECT name, fingerprint FROM plane_keys")
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|r| Ok((r.try_get("name")?, r.try_get("fingerprint")?)))
            .collect()
    }

    /// Records `fingerprint` for the key file `name` unless one is recorded already (the first
    /// plane to record wins; the caller reads back which).
    pub async fn record_plane_key_fingerprint(
        &self,
        name: &str,
        fingerprint: &str,
        now: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO plane_keys (name, fingerprint, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(name)
        .bind(fingerprint)
        .bind(now)
        .execute(&self.pool)
        .await
        .map(|_| ())
    }
}
