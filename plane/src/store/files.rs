//! Files people keep on the plane (rows; the bytes are on disk, see `service/files.rs`).

use sqlx::Row;

use super::{Store, audit_in};

/// One kept file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRow {
    /// Row id.
    pub id: String,
    /// Its owner.
    pub owner_user_id: String,
    /// Its name.
    pub name: String,
    /// Its size in bytes.
    pub size: i64,
    /// Lowercase hex SHA-256 of its bytes (the name of its blob).
    pub sha256: String,
    /// When it was kept (ms).
    pub created_at: i64,
}

fn row(r: &sqlx::any::AnyRow) -> Result<FileRow, sqlx::Error> {
    Ok(FileRow {
        id: r.try_get("id")?,
        owner_user_id: r.try_get("owner_user_id")?,
        name: r.try_get("name")?,
        size: r.try_get("size")?,
        sha256: r.try_get("sha256")?,
        created_at: r.try_get("created_at")?,
    })
}

impl Store {
    /// An account's files, newest first.
    pub async fn files_of(&self, owner: &str) -> Result<Vec<FileRow>, sqlx::Error> {
        sqlx::query(
            "SELECT id, owner_user_id, name, size, sha256, created_at FROM files \
             WHERE owner_user_id = $1 ORDER BY created_at DESC, id",
        )
        .bind(owner)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(row)
        .collect()
    }

    /// One file.
    pub async fn file(&self, id: &str) -> Result<Option<FileRow>, sqlx::Error> {
        sqlx::query(
            "SELECT id, owner_user_id, name, size, sha256, created_at FROM files WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| row(&r))
        .transpose()
    }

    /// Bytes an account keeps in all.
    pub async fn file_bytes_of(&self, owner: &str) -> Result<i64, sqlx::Error> {
        // PostgreSQL sums BIGINTs as NUMERIC: cast back, so both backends answer an integer.
        sqlx::query(
            "SELECT CAST(COALESCE(SUM(size), 0) AS BIGINT) AS n FROM files WHERE owner_user_id = $1",
        )
        .bind(owner)
        .fetch_one(&self.pool)
        .await?
        .try_get("n")
    }

    /// Whether any row names the blob `sha256`.
    pub async fn blob_in_use(&self, sha256: &str) -> Result<bool, sqlx::Error> {
        Ok(
            sqlx::query("SELECT id FROM files WHERE sha256 = $1 LIMIT 1")
                .bind(sha256)
                .fetch_optional(&self.pool)
                .await?
                .is_some(),
        )
    }

    /// Keeps a complete file, with its audit entry.
    pub async fn add_file(&self, f: &FileRow) -> Result<(), sqlx::Error> {
        let mut tx = self.write_tx().await?;
        sqlx::query(
            "INSERT INTO files (id, owner_user_id, name, size, sha256, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&f.id)
        .bind(&f.owner_user_id)
        .bind(&f.name)
        .bind(f.size)
        .bind(&f.sha256)
        .bind(f.created_at)
        .execute(&mut *tx)
        .await?;
        let detail =
            serde_json::json!({ "name": f.name, "size": f.size, "sha256": f.sha256 }).to_string();
        audit_in(
            &mut tx,
            f.created_at,
            Some(&f.owner_user_id),
            "cookie",
            "file.added",
            Some(&f.id),
            &detail,
        )
        .await?;
        tx.commit().await
    }

    /// Removes a file row, with its audit entry; `false` when the owner has no such file.
    pub async fn delete_file(&self, id: &str, owner: &str, now: i64) -> Result<bool, sqlx::Error> {
        let mut tx = self.write_tx().await?;
        let gone = sqlx::query("DELETE FROM files WHERE id = $1 AND owner_user_id = $2")
            .bind(id)
            .bind(owner)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        if gone {
            audit_in(
                &mut tx,
                now,
                Some(owner),
                "cookie",
                "file.deleted",
                Some(id),
                "{}",
            )
            .await?;
            tx.commit().await?;
        }
        Ok(gone)
    }
}
