//! The audit log.

#[allow(unused_imports)]
use super::*;

/// An audit entry.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    /// Sequence number.
    pub id: i64,
    /// When (ms).
    pub at: i64,
    /// The acting account, if any.
    pub actor_user_id: Option<String>,
    /// `cookie`, `system_key`, `setup_key` or `plane`.
    pub actor_kind: String,
    /// What happened (`system_key.created`, …).
    pub action: String,
    /// The row acted on.
    pub target: Option<String>,
    /// Extra facts (never a secret).
    pub detail: serde_json::Value,
}

impl Store {
    // ----- audit -----

    /// Appends an audit entry outside any other write.
    pub async fn audit(
        &self,
        now: i64,
        actor: Option<&str>,
        kind: &str,
        action: &str,
        target: Option<&str>,
        detail: &serde_json::Value,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        audit_in(
            &mut tx,
            now,
            actor,
            kind,
            action,
            target,
            &detail.to_string(),
        )
        .await?;
        tx.commit().await
    }

    /// The newest `limit` audit entries, newest first.
    pub async fn audit_entries(&self, limit: i64) -> Result<Vec<AuditEntry>, sqlx::Error> {
        sqlx::query("SELECT id, at, actor_user_id, actor_kind, action, target, detail FROM audit_log ORDER BY id DESC LIMIT $1")
            .bind(limit)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|r| {
                let detail: String = r.try_get("detail")?;
                Ok(AuditEntry {
                    id: r.try_get("id")?,
                    at: r.try_get("at")?,
                    actor_user_id: r.try_get("actor_user_id")?,
                    actor_kind: r.try_get("actor_kind")?,
                    action: r.try_get("action")?,
                    target: r.try_get("target")?,
                    detail: serde_json::from_str(&detail).unwrap_or_default(),
                })
            })
            .collect()
    }
}

pub(super) async fn audit_in(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    now: i64,
    actor: Option<&str>,
    kind: &str,
    action: &str,
    target: Option<&str>,
    detail: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO audit_log (at, actor_user_id, actor_kind, action, target, detail) VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(now)
    .bind(actor.map(str::to_owned))
    .bind(kind)
    .bind(action)
    .bind(target.map(str::to_owned))
    .bind(detail)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
