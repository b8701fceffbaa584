//! Routes of the audit log and the administrator's status and deployment views.

use std::sync::Arc;

use super::super::callers::AdminSession;
use super::super::handler::{Json, Query};
use crate::api::admin::{AdminStatus, Deployment};
use crate::api::audit::{AuditEntry, AuditQuery};
use crate::error::ApiError;
use crate::service::Services;

use super::RouteDef;

/// The routes of this domain, in the order the reference lists them.
#[allow(clippy::too_many_lines)]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        // ----- audit -----
        RouteDef::get(
            "/api/audit",
            "auditLog",
            "Audit entries, newest first, filtered by actor, actor kind, action, target and time; \
             page with `before` (the last entry's `id`)",
        )
        .errors(&["INPUT_VALIDATION_ERROR"])
        .handle(audit),
        RouteDef::get(
            "/api/admin/status",
            "adminStatus",
            "The plane's version, uptime and database, nodes by liveness and version, held \
             nodes and subshells by state",
        )
        .handle(status),
        RouteDef::get(
            "/api/admin/deployment",
            "adminDeployment",
            "How the plane is deployed: listen addresses, base URL, data directory, database, \
             trusted origins and the node binaries it serves",
        )
        .handle(deployment),
    ]
}

type Res<T> = Result<T, ApiError>;

async fn status(svc: Arc<Services>, _: AdminSession) -> Res<Json<AdminStatus>> {
    svc.admin().status().await.map(Json)
}

async fn deployment(svc: Arc<Services>, _: AdminSession) -> Res<Json<Deployment>> {
    svc.admin().deployment().await.map(Json)
}

async fn audit(
    svc: Arc<Services>,
    _: AdminSession,
    Query(q): Query<AuditQuery>,
) -> Res<Json<Vec<AuditEntry>>> {
    svc.audit().page(q).await.map(Json)
}
