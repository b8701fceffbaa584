//! Network plugins: extra listen addresses of the plane.

use sqlx::Row;

use super::{Store, audit_in};

/// One stored listener.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListenerRow {
    /// Row id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `ip:port` as bound.
    pub address: String,
    /// The origin browsers use to reach it.
    pub origin: String,
    /// When it was added (ms).
    pub created_at: i64,
}

impl Store {
    /// Every stored listener, oldest first.
    pub async fn listeners(&self) -> Result<Vec<ListenerRow>, sqlx::Error> {
        sqlx::query(
            "SELECT id, name, address, origin, created_at FROM network_listeners \
             ORDER BY created_at, id",
        )
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| {
            Ok(ListenerRow {
                id: r.try_get("id")?,
                name: r.try_get("name")?,
                address: r.try_get("address")?,
                origin: r.try_get("origin")?,
                created_at: r.try_get("created_at")?,
            })
        })
        .collect()
    }

    /// Stores a listener that is running, with its audit entry; `false` when its address is
    /// stored already.
    pub async fn add_listener(&self, l: &ListenerRow, actor: &str) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let n = sqlx::query(
            "INSERT INTO network_listeners (id, name, address, origin, created_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (address) DO NOTHING",
        )
        .bind(&l.id)
        .bind(&l.name)
        .bind(&l.address)
        .bind(&l.origin)
        .bind(l.created_at)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if n == 0 {
            return Ok(false);
        }
        let detail =
            serde_json::json!({ "name": l.name, "address": l.address, "origin": l.origin })
                .to_string();
        audit_in(
            &mut tx,
            l.created_at,
            Some(actor),
            "cookie",
            "network.listener_added",
            Some(&l.id),
            &detail,
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Removes a listener's row, with its audit entry; `false` when there was none.
    pub async fn delete_listener(
        &self,
        id: &str,
        actor: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let gone = sqlx::query("DELETE FROM network_listeners WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        if gone {
            audit_in(
                &mut tx,
                now,
                Some(actor),
                "cookie",
                "network.listener_removed",
                Some(id),
                "{}",
            )
            .await?;
            tx.commit().await?;
        }
        Ok(gone)
    }
}
