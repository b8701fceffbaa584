//! The audit log.

#[allow(unused_imports)]
use super::*;

impl Service {
    // ----- audit -----

    /// `GET /api/audit` (admin session only).
    pub async fn audit(&self, meta: &RequestMeta) -> Result<Value, ApiError> {
        self.admin(meta).await?;
        Ok(serde_json::to_value(self.store.audit_entries(500).await?).unwrap_or_default())
    }
}
