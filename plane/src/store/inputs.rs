//! Input marks: who typed into a pane, and when (see `service::subshells::inputs`).

use sqlx::Row;

use super::Store;

/// One input mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputMarkRow {
    /// Row id.
    pub id: String,
    /// The pane typed into.
    pub subshell_id: String,
    /// When the input began, and when its last key came (ms).
    pub at_ms: i64,
    /// See `at_ms`.
    pub until_ms: i64,
    /// `typed`, `paste`, `sent` or `upload`.
    pub kind: String,
    /// The acting account (gone when the account was deleted).
    pub actor_user_id: Option<String>,
    /// The acting account's name, when it still exists.
    pub actor_name: Option<String>,
    /// `cookie`, `system_key` or `pane` (the audit log's words).
    pub actor_kind: String,
    /// The pane whose token typed, for a pane's token.
    pub via_subshell_id: Option<String>,
    /// The terminal socket's viewer, for keys typed in a terminal.
    pub viewer_id: Option<i64>,
    /// JSON detail: an upload's file name and size.
    pub detail: Option<String>,
}

impl Store {
    /// Stores a mark (its `actor_name` is not stored: it is the account's).
    pub async fn add_input_mark(&self, m: &InputMarkRow) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO input_marks (id, subshell_id, at_ms, until_ms, kind, actor_user_id, \
             actor_kind, via_subshell_id, viewer_id, detail) \
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 \
             WHERE EXISTS (SELECT 1 FROM subshells WHERE id = $2)",
        )
        .bind(&m.id)
        .bind(&m.subshell_id)
        .bind(m.at_ms)
        .bind(m.until_ms)
        .bind(&m.kind)
        .bind(&m.actor_user_id)
        .bind(&m.actor_kind)
        .bind(&m.via_subshell_id)
        .bind(m.viewer_id)
        .bind(&m.detail)
        .execute(&self.pool)
        .await
        .map(|_| ())
    }

    /// Moves a mark's end to `until_ms` (never back).
    pub async fn extend_input_mark(&self, id: &str, until_ms: i64) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE input_marks SET until_ms = $2 WHERE id = $1 AND until_ms < $2")
            .bind(id)
            .bind(until_ms)
            .execute(&self.pool)
            .await
            .map(|_| ())
    }

    /// Deletes a pane's marks that ended before `before_ms` (its retention): how many.
    pub async fn delete_input_marks_before(
        &self,
        subshell_id: &str,
        before_ms: i64,
    ) -> Result<u64, sqlx::Error> {
        sqlx::query("DELETE FROM input_marks WHERE subshell_id = $1 AND until_ms < $2")
            .bind(subshell_id)
            .bind(before_ms)
            .execute(&self.pool)
            .await
            .map(|r| r.rows_affected())
    }

    /// A pane's marks in time order, at most `limit`.
    pub async fn input_marks(
        &self,
        subshell_id: &str,
        limit: i64,
    ) -> Result<Vec<InputMarkRow>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT m.id, m.subshell_id, m.at_ms, m.until_ms, m.kind, m.actor_user_id, \
             u.display_name AS actor_name, m.actor_kind, m.via_subshell_id, m.viewer_id, m.detail \
             FROM input_marks m LEFT JOIN users u ON u.id = m.actor_user_id \
             WHERE m.subshell_id = $1 ORDER BY m.at_ms, m.id LIMIT $2",
        )
        .bind(subshell_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(InputMarkRow {
                    id: r.try_get("id")?,
                    subshell_id: r.try_get("subshell_id")?,
                    at_ms: r.try_get("at_ms")?,
                    until_ms: r.try_get("until_ms")?,
                    kind: r.try_get("kind")?,
                    actor_user_id: r.try_get("actor_user_id")?,
                    actor_name: r.try_get("actor_name")?,
                    actor_kind: r.try_get("actor_kind")?,
                    via_subshell_id: r.try_get("via_subshell_id")?,
                    viewer_id: r.try_get("viewer_id")?,
                    detail: r.try_get("detail")?,
                })
            })
            .collect()
    }
}
