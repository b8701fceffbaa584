//! Routes of the audit log.

use std::sync::Arc;

use super::super::handler::{Json, Query};
use crate::api::audit::{AuditEntry, AuditQuery};
use crate::error::ApiError;
use crate::service::{RequestMeta, Service};

use super::{Auth, RouteDef};

/// The routes of this domain, in the order the reference lists them.
#[allow(clippy::too_many_lines)]
pub(super) fn routes() -> Vec<RouteDef> {
    use Auth::CookieAdmin;
    vec![
        // ----- audit -----
        RouteDef::get(
            "/api/audit",
            "auditLog",
            CookieAdmin,
            "Audit entries, newest first, filtered by actor, actor kind, action, target and time; \
             page with `before` (the last entry's `id`)",
        )
        .errors(&["INPUT_VALIDATION_ERROR"])
        .handle(audit),
    ]
}

type Res<T> = Result<T, ApiError>;

async fn audit(
    svc: Arc<Service>,
    meta: RequestMeta,
    Query(q): Query<AuditQuery>,
) -> Res<Json<Vec<AuditEntry>>> {
    svc.audit(&meta, q).await.map(Json)
}
