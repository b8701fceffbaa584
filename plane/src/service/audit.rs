//! The audit log.

use super::{RequestMeta, Service};
use crate::api::audit::{ActorKind, AuditEntry};
use crate::error::ApiError;

impl Service {
    /// `GET /api/audit` (admin session only): the newest 500 entries, newest first.
    pub async fn audit(&self, meta: &RequestMeta) -> Result<Vec<AuditEntry>, ApiError> {
        self.admin(meta).await?;
        Ok(self
            .store
            .audit_entries(500)
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
