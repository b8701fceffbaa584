//! Which replica of the cluster holds each remote node's link (`nodes.held_by`); a replica that
//! takes a link says so to the others ([`super::Topic::Link`]).
//!
//! A node's link is held under its holder's lease (`plane_replicas.lease_until`): no row per
//! node is renewed, the replica's one lease covers every link it holds. The link layer
//! (`crate::link`) decides what to write; this module only writes it.

use sqlx::Row;

use super::{Backend, Store};

impl Store {
    /// Records that `replica` holds `id`'s current link, online (both gates passed) or not
    /// (authenticated, or held back by a gate). The newest link wins across replicas as on one,
    /// so this takes the node from whichever replica held it; on PostgreSQL the other replicas
    /// are told in the same transaction. `false` when there is no such remote node.
    pub async fn hold_link(
        &self,
        id: &str,
        replica: &str,
        online: bool,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let n = sqlx::query(
            "UPDATE nodes SET held_by = $1, liveness = $2, updated_at = $3 \
             WHERE id = $4 AND is_local = 0",
        )
        .bind(replica)
        .bind(if online { "online" } else { "offline" })
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if n == 1 && self.backend == Backend::Postgres {
            super::words::notify(replica, super::Topic::Link, id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(n == 1)
    }

    /// Lets go of `id`'s link if `replica` holds it (its socket ended): the row turns offline
    /// and holderless. `false` when another replica holds it (the row is left as it is).
    pub async fn release_link(
        &self,
        id: &str,
        replica: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let n = sqlx::query(
            "UPDATE nodes SET held_by = NULL, liveness = 'offline', updated_at = $1 \
             WHERE id = $2 AND is_local = 0 AND held_by = $3",
        )
        .bind(now)
        .bind(id)
        .bind(replica)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n == 1)
    }

    /// The replica holding `id`'s link, if any.
    pub async fn link_holder(&self, id: &str) -> Result<Option<String>, sqlx::Error> {
        Ok(sqlx::query("SELECT held_by FROM nodes WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.try_get::<Option<String>, _>("held_by"))
            .transpose()?
            .flatten())
    }

    /// The nodes whose links `replica` holds.
    pub async fn links_held_by(&self, replica: &str) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query("SELECT id FROM nodes WHERE held_by = $1 ORDER BY id")
            .bind(replica)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|r| r.try_get("id"))
            .collect()
    }

    /// Lets go of the links no live replica holds — their holder's lease lapsed before `now`,
    /// or its row is gone — and turns offline a remote row that reads online with no holder:
    /// the nodes whose rows changed. The links of `me` (the replica asking, alive) are left.
    pub async fn release_lapsed_links(
        &self,
        me: &str,
        now: i64,
    ) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query(
            "UPDATE nodes SET held_by = NULL, liveness = 'offline', updated_at = $1 \
             WHERE is_local = 0 AND (\
               (held_by IS NULL AND liveness <> 'offline') OR \
               (held_by IS NOT NULL AND held_by <> $2 AND held_by NOT IN \
                 (SELECT id FROM plane_replicas WHERE lease_until >= $1))) \
             RETURNING id",
        )
        .bind(now)
        .bind(me)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| r.try_get("id"))
        .collect()
    }

    /// The replica other than `me` that holds `id`'s link online under a lease holding at
    /// `now`: where a command for `id` is forwarded.
    pub async fn link_held_elsewhere(
        &self,
        id: &str,
        me: &str,
        now: i64,
    ) -> Result<Option<String>, sqlx::Error> {
        sqlx::query(
            "SELECT n.held_by FROM nodes n JOIN plane_replicas r ON r.id = n.held_by \
             WHERE n.id = $1 AND n.liveness = 'online' AND n.held_by <> $2 \
             AND r.lease_until >= $3",
        )
        .bind(id)
        .bind(me)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| r.try_get("held_by"))
        .transpose()
    }

    /// Every node whose link a replica other than `me` holds online under a lease holding at
    /// `now`, with that replica: `(node, replica)`.
    pub async fn links_held_elsewhere(
        &self,
        me: &str,
        now: i64,
    ) -> Result<Vec<(String, String)>, sqlx::Error> {
        sqlx::query(
            "SELECT n.id, n.held_by FROM nodes n JOIN plane_replicas r ON r.id = n.held_by \
             WHERE n.liveness = 'online' AND n.held_by <> $1 AND r.lease_until >= $2",
        )
        .bind(me)
        .bind(now)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| Ok((r.try_get("id")?, r.try_get("held_by")?)))
        .collect()
    }
}
