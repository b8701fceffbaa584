//! Uploads into panes in progress (see `service::uploads`), where every replica finds them.

use sqlx::Row;

use super::{Backend, Store};

/// One upload in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UploadRow {
    /// Its id (random).
    pub id: String,
    /// The uploading account.
    pub user_id: String,
    /// The pane it goes into.
    pub subshell_id: String,
    /// The pane's node.
    pub node_id: String,
    /// The file's path on the node.
    pub path: String,
    /// The file's name.
    pub name: String,
    /// Who uploads, as JSON (`service::uploads`).
    pub typer: String,
    /// The file's size in bytes.
    pub size: i64,
    /// Bytes written so far.
    pub received: i64,
    /// The piece expected next.
    pub next_piece: i64,
    /// Chunks the node has written so far.
    pub next_chunk: i64,
    /// When it last took a piece (ms).
    pub last_at: i64,
    /// 0, or until when a replica writes a piece (ms).
    pub writing_until: i64,
}

/// Why an upload was not added.
#[derive(Debug)]
pub enum AddUpload {
    /// `cap` uploads are in progress already.
    Busy,
    /// Another upload to the same file is in progress.
    Collides,
    /// The database failed.
    Db(sqlx::Error),
}

impl From<sqlx::Error> for AddUpload {
    fn from(e: sqlx::Error) -> Self {
        Self::Db(e)
    }
}

/// The columns, in one place for every statement (a literal, so statements stay static).
macro_rules! columns {
    () => {
        "id, user_id, subshell_id, node_id, path, name, typer, size, received, next_piece, \
         next_chunk, last_at, writing_until"
    };
}

fn row(r: &sqlx::any::AnyRow) -> Result<UploadRow, sqlx::Error> {
    Ok(UploadRow {
        id: r.try_get("id")?,
        user_id: r.try_get("user_id")?,
        subshell_id: r.try_get("subshell_id")?,
        node_id: r.try_get("node_id")?,
        path: r.try_get("path")?,
        name: r.try_get("name")?,
        typer: r.try_get("typer")?,
        size: r.try_get("size")?,
        received: r.try_get("received")?,
        next_piece: r.try_get("next_piece")?,
        next_chunk: r.try_get("next_chunk")?,
        last_at: r.try_get("last_at")?,
        writing_until: r.try_get("writing_until")?,
    })
}

impl Store {
    /// Adds upload `u`, unless `cap` uploads are in progress or another one writes the same
    /// file. Counted and added in one transaction that holds the uploads' lock (on PostgreSQL
    /// an advisory lock; on SQLite the write lock), so starts at every replica keep to `cap`.
    pub async fn add_upload(&self, u: &UploadRow, cap: i64) -> Result<(), AddUpload> {
        let mut tx = self.write_tx().await?;
        if self.backend == Backend::Postgres {
            // The key is arbitrary: the uploads' own.
            sqlx::query("SELECT pg_advisory_xact_lock(7420025)")
                .execute(&mut *tx)
                .await?;
        }
        let (in_progress, same_file): (i64, i64) = {
            let r = sqlx::query(
                "SELECT COUNT(*) AS n, \
                 COALESCE(SUM(CASE WHEN node_id = $1 AND path = $2 THEN 1 ELSE 0 END), 0) AS same \
                 FROM uploads",
            )
            .bind(&u.node_id)
            .bind(&u.path)
            .fetch_one(&mut *tx)
            .await?;
            (r.try_get("n")?, r.try_get("same")?)
        };
        if same_file > 0 {
            return Err(AddUpload::Collides);
        }
        if in_progress >= cap {
            return Err(AddUpload::Busy);
        }
        sqlx::query(concat!(
            "INSERT INTO uploads (",
            columns!(),
            ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
        ))
        .bind(&u.id)
        .bind(&u.user_id)
        .bind(&u.subshell_id)
        .bind(&u.node_id)
        .bind(&u.path)
        .bind(&u.name)
        .bind(&u.typer)
        .bind(u.size)
        .bind(u.received)
        .bind(u.next_piece)
        .bind(u.next_chunk)
        .bind(u.last_at)
        .bind(u.writing_until)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Upload `id`, if it is in progress.
    pub async fn upload(&self, id: &str) -> Result<Option<UploadRow>, sqlx::Error> {
        sqlx::query(concat!(
            "SELECT ",
            columns!(),
            " FROM uploads WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .as_ref()
        .map(row)
        .transpose()
    }

    /// Claims upload `id` for writing until `until`, when no replica has claimed it: the
    /// upload as claimed, or `None` (no such upload, one being written, or one whose claim
    /// lapsed — its replica stopped in the middle of a piece).
    pub async fn claim_upload(
        &self,
        id: &str,
        until: i64,
    ) -> Result<Option<UploadRow>, sqlx::Error> {
        sqlx::query(concat!(
            "UPDATE uploads SET writing_until = $2 WHERE id = $1 AND writing_until = 0 \
             RETURNING ",
            columns!()
        ))
        .bind(id)
        .bind(until)
        .fetch_optional(&self.pool)
        .await?
        .as_ref()
        .map(row)
        .transpose()
    }

    /// Records a piece written under claim `claimed` (its `writing_until`) and lets the claim
    /// go: `false` when the upload ended meanwhile (or its claim was taken over).
    pub async fn wrote_piece(&self, u: &UploadRow, claimed: i64) -> Result<bool, sqlx::Error> {
        let r = sqlx::query(
            "UPDATE uploads SET received = $3, next_piece = $4, next_chunk = $5, last_at = $6, \
             writing_until = 0 WHERE id = $1 AND writing_until = $2",
        )
        .bind(&u.id)
        .bind(claimed)
        .bind(u.received)
        .bind(u.next_piece)
        .bind(u.next_chunk)
        .bind(u.last_at)
        .execute(&self.pool)
        .await?;
        Ok(r.rows_affected() == 1)
    }

    /// Takes upload `id` out: under claim `claimed` when given (this replica's own), else only
    /// while no claim holds at `now`. The upload taken out, or `None`.
    pub async fn end_upload(
        &self,
        id: &str,
        claimed: Option<i64>,
        now: i64,
    ) -> Result<Option<UploadRow>, sqlx::Error> {
        let q = match claimed {
            Some(c) => sqlx::query(concat!(
                "DELETE FROM uploads WHERE id = $1 AND writing_until = $2 RETURNING ",
                columns!()
            ))
            .bind(id)
            .bind(c),
            None => sqlx::query(concat!(
                "DELETE FROM uploads WHERE id = $1 AND writing_until <= $2 RETURNING ",
                columns!()
            ))
            .bind(id)
            .bind(now),
        };
        q.fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(row)
            .transpose()
    }

    /// Takes upload `id` out if it took no piece since before `idle_before` and no claim holds
    /// at `now`: the upload taken out, or `None`.
    pub async fn end_idle_upload(
        &self,
        id: &str,
        idle_before: i64,
        now: i64,
    ) -> Result<Option<UploadRow>, sqlx::Error> {
        sqlx::query(concat!(
            "DELETE FROM uploads WHERE id = $1 AND last_at < $2 AND writing_until <= $3 \
             RETURNING ",
            columns!()
        ))
        .bind(id)
        .bind(idle_before)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?
        .as_ref()
        .map(row)
        .transpose()
    }

    /// Takes out, of the uploads no claim holds at `now`, every one to `node_id`, every one idle
    /// since before `idle_before`, and every one whose claim lapsed.
    pub async fn end_uploads(
        &self,
        node_id: Option<&str>,
        idle_before: i64,
        now: i64,
    ) -> Result<Vec<UploadRow>, sqlx::Error> {
        sqlx::query(concat!(
            "DELETE FROM uploads WHERE writing_until <= $3 \
             AND (node_id = $1 OR last_at < $2 OR writing_until > 0) RETURNING ",
            columns!()
        ))
        .bind(node_id.unwrap_or(""))
        .bind(idle_before)
        .bind(now)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(row)
        .collect()
    }
}
