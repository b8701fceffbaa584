//! Which replica of the cluster holds each remote node's link (`nodes.held_by`), and the word
//! the replicas send each other when a link moves (PostgreSQL `NOTIFY` on [`LINKS_CHANNEL`]).
//!
//! A node's link is held under its holder's lease (`plane_replicas.lease_until`): no row per
//! node is renewed, the replica's one lease covers every link it holds. The link layer
//! (`crate::link`) decides what to write; this module only writes it.

use sqlx::Row;

use super::{Backend, Store};

/// The PostgreSQL channel on which a replica that takes a node's link tells the others; the
/// payload is `<replica id> <node id>` (ids only: the row is the truth, read again).
pub const LINKS_CHANNEL: &str = "termplane_node_links";

/// The other replicas' word about links, as [`Store::link_listener`] hears it.
pub struct LinkListener(sqlx::postgres::PgListener);

impl std::fmt::Debug for LinkListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkListener").finish_non_exhaustive()
    }
}

/// What a [`LinkListener`] heard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkWord {
    /// `replica` took `node`'s link.
    Taken {
        /// The replica that holds it now.
        replica: String,
        /// The node.
        node: String,
    },
    /// The listener's connection was lost and is made again: whatever was said meanwhile is
    /// lost, so the listener's owner reads the rows again.
    Lost,
}

impl LinkListener {
    /// The next word (waits for it).
    pub async fn next(&mut self) -> Result<LinkWord, sqlx::Error> {
        loop {
            let Some(n) = self.0.try_recv().await? else {
                return Ok(LinkWord::Lost);
            };
            // A payload not of this shape was not sent by a plane: ignored.
            if let Some((replica, node)) = n.payload().split_once(' ') {
                return Ok(LinkWord::Taken {
                    replica: replica.to_owned(),
                    node: node.to_owned(),
                });
            }
        }
    }
}

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
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(LINKS_CHANNEL)
                .bind(format!("{replica} {id}"))
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

    /// A listener for what other replicas say about links: on PostgreSQL, a connection of its
    /// own listening on [`LINKS_CHANNEL`]; `None` on SQLite, which one plane holds alone.
    pub async fn link_listener(&self) -> Result<Option<LinkListener>, sqlx::Error> {
        let Some(url) = self.postgres_url.as_deref() else {
            return Ok(None);
        };
        let mut l = sqlx::postgres::PgListener::connect(url).await?;
        // A lost connection is made again at once, so that no word is missed for longer than
        // the reconnection takes (the owner reads the rows again on `Lost`).
        l.eager_reconnect(true);
        l.listen(LINKS_CHANNEL).await?;
        Ok(Some(LinkListener(l)))
    }
}
