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
        let mut tx = self.write_tx().await?;
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
        self.audit_page(&AuditFilter::default(), limit).await
    }

    /// Entries that pass `f`, newest first, at most `limit`.
    pub async fn audit_page(
        &self,
        f: &AuditFilter,
        limit: i64,
    ) -> Result<Vec<AuditEntry>, sqlx::Error> {
        let prefix = f.action.as_deref().filter(|a| a.ends_with('.'));
        let exact = f.action.as_deref().filter(|a| !a.ends_with('.'));
        sqlx::query(
            "SELECT id, at, actor_user_id, actor_kind, action, target, detail FROM audit_log \
             WHERE (CAST($1 AS TEXT) IS NULL OR actor_user_id = CAST($1 AS TEXT)) \
             AND (CAST($2 AS TEXT) IS NULL OR actor_kind = CAST($2 AS TEXT)) \
             AND (CAST($3 AS TEXT) IS NULL OR action = CAST($3 AS TEXT)) \
             AND (CAST($4 AS TEXT) IS NULL \
                  OR substr(action, 1, length(CAST($4 AS TEXT))) = CAST($4 AS TEXT)) \
             AND (CAST($5 AS TEXT) IS NULL OR target = CAST($5 AS TEXT)) \
             AND (CAST($6 AS BIGINT) IS NULL OR at >= CAST($6 AS BIGINT)) \
             AND (CAST($7 AS BIGINT) IS NULL OR at < CAST($7 AS BIGINT)) \
             AND (CAST($8 AS BIGINT) IS NULL OR id < CAST($8 AS BIGINT)) \
             ORDER BY id DESC LIMIT $9",
        )
        .bind(f.actor.as_deref())
        .bind(f.actor_kind.as_deref())
        .bind(exact)
        .bind(prefix)
        .bind(f.target.as_deref())
        .bind(f.from)
        .bind(f.to)
        .bind(f.before)
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

/// Filters of [`Store::audit_page`] (all optional, combined with AND).
#[derive(Clone, Debug, Default)]
pub struct AuditFilter {
    /// The acting account.
    pub actor: Option<String>,
    /// The stored actor kind (`cookie`, `system_key`, …).
    pub actor_kind: Option<String>,
    /// An action, or a family of them when it ends with `.`.
    pub action: Option<String>,
    /// The row acted on.
    pub target: Option<String>,
    /// At or after (ms).
    pub from: Option<i64>,
    /// Before (ms).
    pub to: Option<i64>,
    /// Older than this entry id.
    pub before: Option<i64>,
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

/// An audit entry's fields besides its time (see [`audit_in`]).
pub(super) struct Entry<'a> {
    pub actor: Option<&'a str>,
    pub kind: &'a str,
    pub action: &'a str,
    pub target: Option<&'a str>,
    pub detail: &'a str,
}

impl<'a> Entry<'a> {
    /// An entry for what a signed-in person (a browser session) did to `target`.
    pub(super) fn by_cookie(
        actor: &'a str,
        action: &'a str,
        target: &'a str,
        detail: &'a str,
    ) -> Self {
        Self {
            actor: Some(actor),
            kind: "cookie",
            action,
            target: Some(target),
            detail,
        }
    }
}

/// Ends a change made by one statement that touched `rows` rows. None touched: `false`, and the
/// transaction is dropped, so nothing is written (no audit entry either). Otherwise the audit
/// entry is written in the same transaction, which commits, and the answer is `true`.
pub(super) async fn commit_if_changed(
    mut tx: sqlx::Transaction<'_, sqlx::Any>,
    rows: u64,
    now: i64,
    e: Entry<'_>,
) -> Result<bool, sqlx::Error> {
    if rows == 0 {
        return Ok(false);
    }
    audit_in(&mut tx, now, e.actor, e.kind, e.action, e.target, e.detail).await?;
    tx.commit().await?;
    Ok(true)
}
