//! The planes running on this database, under their leases (see `service::cluster`).

use serde::Serialize;
use sqlx::Row;

use super::Store;

/// One plane of the cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaRow {
    /// Random id, new at each start.
    pub id: String,
    /// Where its peers reach it.
    pub address: String,
    /// Its version.
    pub version: String,
    /// Its host's name.
    pub host: String,
    /// When it started (ms).
    pub started_at: i64,
    /// Until when its lease holds (ms).
    pub lease_until: i64,
}

impl Store {
    /// Registers a replica (or renews it, when its row is still there).
    pub async fn put_replica(&self, r: &ReplicaRow) -> Result<(), sqlx::Error> {
        let q = sqlx::query(
            "INSERT INTO plane_replicas (id, address, version, host, started_at, lease_until) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (id) DO UPDATE SET lease_until = $6",
        )
        .bind(&r.id)
        .bind(&r.address)
        .bind(&r.version)
        .bind(&r.host)
        .bind(r.started_at)
        .bind(r.lease_until);
        match &self.lease_pool {
            Some(own) => q.execute(own).await,
            None => q.execute(&self.pool).await,
        }
        .map(|_| ())
    }

    /// Every replica's row, oldest first.
    pub async fn replicas(&self) -> Result<Vec<ReplicaRow>, sqlx::Error> {
        sqlx::query(
            "SELECT id, address, version, host, started_at, lease_until FROM plane_replicas \
             ORDER BY started_at, id",
        )
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| {
            Ok(ReplicaRow {
                id: r.try_get("id")?,
                address: r.try_get("address")?,
                version: r.try_get("version")?,
                host: r.try_get("host")?,
                started_at: r.try_get("started_at")?,
                lease_until: r.try_get("lease_until")?,
            })
        })
        .collect()
    }

    /// Where the replica `id` is reached, if its lease holds at `now`.
    pub async fn live_replica_address(
        &self,
        id: &str,
        now: i64,
    ) -> Result<Option<String>, sqlx::Error> {
        sqlx::query("SELECT address FROM plane_replicas WHERE id = $1 AND lease_until >= $2")
            .bind(id)
            .bind(now)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.try_get("address"))
            .transpose()
    }

    /// Removes a replica's row (it stops).
    pub async fn remove_replica(&self, id: &str) -> Result<(), sqlx::Error> {
        sqlx::query("DELETE FROM plane_replicas WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await
            .map(|_| ())
    }

    /// Ends the lease of every replica but `me` at `now` (a plane that holds its database
    /// alone knows that every other replica row is a plane that is gone): how many.
    pub async fn end_other_leases(&self, me: &str, now: i64) -> Result<u64, sqlx::Error> {
        sqlx::query(
            "UPDATE plane_replicas SET lease_until = $1 WHERE id <> $2 AND lease_until >= $1",
        )
        .bind(now.saturating_sub(1))
        .bind(me)
        .execute(&self.pool)
        .await
        .map(|r| r.rows_affected())
    }

    /// Removes the rows whose lease lapsed before `before` (ms): how many.
    pub async fn prune_replicas(&self, before: i64) -> Result<u64, sqlx::Error> {
        sqlx::query("DELETE FROM plane_replicas WHERE lease_until < $1")
            .bind(before)
            .execute(&self.pool)
            .await
            .map(|r| r.rows_affected())
    }
}
