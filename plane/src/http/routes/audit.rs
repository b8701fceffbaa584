//! Routes of the audit log.

use std::sync::Arc;

use super::super::handler::Json;
use crate::api::audit::AuditEntry;
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
            "The latest audit entries, newest first",
        )
        .handle(audit),
    ]
}

type Res<T> = Result<T, ApiError>;

async fn audit(svc: Arc<Service>, meta: RequestMeta) -> Res<Json<Vec<AuditEntry>>> {
    svc.audit(&meta).await.map(Json)
}
