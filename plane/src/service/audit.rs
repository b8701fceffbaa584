//! The audit log.

use crate::api::audit::{ActorKind, AuditEntry, AuditQuery};
use crate::error::ApiError;
use crate::store::Store;

/// The audit domain: reading the trail. (Every domain writes its own entries in the same
/// transaction as the change they record, through the store.)
pub struct Audit {
    store: Store,
}

impl Audit {
    /// The audit trail in `store`.
    pub(super) fn new(store: Store) -> Self {
        Self { store }
    }

    /// `GET /api/audit` (an administrator's session: the route's signature requires it):
    /// entries that pass the query's filters, newest first, a page at a time (see
    /// [`AuditQuery`]).
    pub async fn page(&self, q: AuditQuery) -> Result<Vec<AuditEntry>, ApiError> {
        let limit = q.limit.unwrap_or(100);
        if !(1..=500).contains(&limit) {
            return Err(ApiError::validation("limit", "must be 1 to 500"));
        }
        let filter = crate::store::AuditFilter {
            actor: q.actor.map(|a| a.as_str().to_owned()),
            actor_kind: q.actor_kind.map(|k| k.as_str().to_owned()),
            action: q.action.map(|a| a.as_str().to_owned()),
            target: q.target.map(|t| t.as_str().to_owned()),
            from: q.from,
            to: q.to,
            before: q.before,
        };
        Ok(self
            .store
            .audit_page(&filter, i64::from(limit))
            .await?
            .into_iter()
            .map(|e| AuditEntry {
                id: e.id,
                at: e.at,
                actor_user_id: e.actor_user_id,
                actor_kind: ActorKind::from_stored(&e.actor_kind),
                action: e.action,
                target: e.target,
                detail: e.detail,
            })
            .collect())
    }
}
