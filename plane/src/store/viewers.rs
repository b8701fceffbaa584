//! The terminals attached to panes at every replica of a cluster (PostgreSQL): one row per
//! viewer, written when it attaches, changes its grid or sizing, and leaves, with a
//! [`super::Topic::Viewers`] word naming the pane in the same transaction (so the word is heard
//! only once the row is there to read). See `service::terminals::pump` for what is made of them.

use sqlx::Row;

use super::{Backend, Store};
use crate::api::terminals::Viewer;

/// One viewer as the table keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewerRow {
    /// The replica whose socket it is.
    pub replica: String,
    /// The pane it watches.
    pub subshell_id: String,
    /// Whether it may type (only such viewers take part in sizing).
    pub can_write: bool,
    /// The viewer, as presence frames list it (its `viewer_id` is the row's).
    pub info: Viewer,
}

/// A row's viewer number.
fn viewer_id(r: &sqlx::any::AnyRow) -> Result<u64, sqlx::Error> {
    let id: i64 = r.try_get("viewer_id")?;
    u64::try_from(id).map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

fn row(r: &sqlx::any::AnyRow) -> Result<ViewerRow, sqlx::Error> {
    let info: String = r.try_get("info")?;
    let mut info: Viewer =
        serde_json::from_str(&info).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
    info.viewer_id = viewer_id(r)?;
    Ok(ViewerRow {
        replica: r.try_get("replica")?,
        subshell_id: r.try_get("subshell_id")?,
        can_write: super::flag(r, "can_write")?,
        info,
    })
}

fn info_json(info: &Viewer) -> Result<String, sqlx::Error> {
    serde_json::to_string(info).map_err(|e| sqlx::Error::Encode(Box::new(e)))
}

impl Store {
    /// Whether the viewers of panes are kept in the database for the other replicas: on
    /// PostgreSQL (where replicas share it); a plane on SQLite holds its database alone and its
    /// viewers in memory.
    #[must_use]
    pub fn shares_viewers(&self) -> bool {
        self.backend == Backend::Postgres
    }

    /// Adds a viewer of `replica` to pane `subshell_id`; answers its number (across the
    /// cluster). The other replicas are told.
    pub async fn add_viewer(
        &self,
        replica: &str,
        subshell_id: &str,
        can_write: bool,
        info: &Viewer,
    ) -> Result<u64, sqlx::Error> {
        let json = info_json(info)?;
        let mut tx = self.write_tx().await?;
        let id: i64 = sqlx::query(
            "INSERT INTO viewers (replica, subshell_id, can_write, info) VALUES ($1, $2, $3, $4) \
             RETURNING viewer_id",
        )
        .bind(replica)
        .bind(subshell_id)
        .bind(i64::from(can_write))
        .bind(json)
        .fetch_one(&mut *tx)
        .await?
        .try_get("viewer_id")?;
        self.viewers_changed(&mut tx, replica, subshell_id).await?;
        tx.commit().await?;
        u64::try_from(id).map_err(|e| sqlx::Error::Decode(Box::new(e)))
    }

    /// Writes viewer `info.viewer_id`'s grid and sizing again (its row again, if the other
    /// replicas swept it while this replica's lease had lapsed); the other replicas are told.
    pub async fn put_viewer(
        &self,
        replica: &str,
        subshell_id: &str,
        can_write: bool,
        info: &Viewer,
    ) -> Result<(), sqlx::Error> {
        let json = info_json(info)?;
        let mut tx = self.write_tx().await?;
        sqlx::query(
            "INSERT INTO viewers (viewer_id, replica, subshell_id, can_write, info) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (viewer_id) DO UPDATE SET info = $5 \
             WHERE viewers.replica = $2",
        )
        .bind(i64::try_from(info.viewer_id).unwrap_or(-1))
        .bind(replica)
        .bind(subshell_id)
        .bind(i64::from(can_write))
        .bind(json)
        .execute(&mut *tx)
        .await?;
        self.viewers_changed(&mut tx, replica, subshell_id).await?;
        tx.commit().await
    }

    /// Removes viewer `viewer_id` of `replica`; the other replicas are told.
    pub async fn remove_viewer(
        &self,
        replica: &str,
        subshell_id: &str,
        viewer_id: u64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM viewers WHERE viewer_id = $1 AND replica = $2")
            .bind(i64::try_from(viewer_id).unwrap_or(-1))
            .bind(replica)
            .execute(&mut *tx)
            .await?;
        self.viewers_changed(&mut tx, replica, subshell_id).await?;
        tx.commit().await
    }

    async fn viewers_changed(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Any>,
        replica: &str,
        subshell_id: &str,
    ) -> Result<(), sqlx::Error> {
        if self.backend == Backend::Postgres {
            super::words::notify(replica, super::Topic::Viewers, subshell_id)
                .execute(&mut **tx)
                .await?;
        }
        Ok(())
    }

    /// Every viewer of pane `subshell_id`, at every replica, by number.
    pub async fn viewers_of(&self, subshell_id: &str) -> Result<Vec<ViewerRow>, sqlx::Error> {
        sqlx::query(
            "SELECT viewer_id, replica, subshell_id, can_write, info FROM viewers \
             WHERE subshell_id = $1 ORDER BY viewer_id",
        )
        .bind(subshell_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(row)
        .collect()
    }

    /// The numbers of replica `replica`'s viewers.
    pub async fn viewers_at(&self, replica: &str) -> Result<Vec<u64>, sqlx::Error> {
        sqlx::query("SELECT viewer_id FROM viewers WHERE replica = $1")
            .bind(replica)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(viewer_id)
            .collect()
    }

    /// Every viewer of every pane, by pane then number.
    pub async fn all_viewers(&self) -> Result<Vec<ViewerRow>, sqlx::Error> {
        sqlx::query(
            "SELECT viewer_id, replica, subshell_id, can_write, info FROM viewers \
             ORDER BY subshell_id, viewer_id",
        )
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(row)
        .collect()
    }

    /// Removes the viewers of other replicas than `replica` whose lease does not hold at `now`
    /// (they died with their sockets, or stopped and are gone from the membership), telling the
    /// other replicas of each pane they watched; answers those panes. A replica never sweeps its
    /// own: they leave with their sockets. Nothing on SQLite.
    pub async fn sweep_viewers(&self, replica: &str, now: i64) -> Result<Vec<String>, sqlx::Error> {
        if self.backend != Backend::Postgres {
            return Ok(Vec::new());
        }
        let mut tx = self.write_tx().await?;
        let mut panes: Vec<String> = sqlx::query(
            "DELETE FROM viewers WHERE replica <> $1 AND replica NOT IN \
             (SELECT id FROM plane_replicas WHERE lease_until >= $2) RETURNING subshell_id",
        )
        .bind(replica)
        .bind(now)
        .fetch_all(&mut *tx)
        .await?
        .iter()
        .map(|r| r.try_get::<String, _>("subshell_id"))
        .collect::<Result<_, _>>()?;
        panes.sort_unstable();
        panes.dedup();
        for p in &panes {
            self.viewers_changed(&mut tx, replica, p).await?;
        }
        tx.commit().await?;
        Ok(panes)
    }
}
