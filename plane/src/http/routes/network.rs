//! Routes of network plugins (see [`crate::api::network`]); an administrator's session only.

use std::sync::Arc;

use super::super::callers::AdminSession;
use super::super::handler::{Json, NoContent, Path};
use super::RouteDef;
use crate::api::IdParam;
use crate::api::network::{Listener, ListenerRequest};
use crate::error::ApiError;
use crate::service::Services;

/// The routes of this domain, in the order the reference lists them.
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        RouteDef::get(
            "/api/network",
            "listNetworkPlugins",
            "The extra addresses the plane listens on, and whether each listens",
        )
        .handle(list),
        RouteDef::post(
            "/api/network",
            "addNetworkPlugin",
            "Listen on one more address now (and at every start); its origin is trusted while \
             it listens",
        )
        .ok(201)
        .errors(&["NETWORK_BIND_FAILED"])
        .handle(add),
        RouteDef::delete(
            "/api/network/:id",
            "deleteNetworkPlugin",
            "Stop listening on an extra address and forget it",
        )
        .errors(&["NOT_FOUND"])
        .handle(delete),
    ]
}

type Res<T> = Result<T, ApiError>;

async fn list(svc: Arc<Services>, _: AdminSession) -> Res<Json<Vec<Listener>>> {
    svc.network().listeners().await.map(Json)
}

async fn add(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Json(b): Json<ListenerRequest>,
) -> Res<Json<Listener>> {
    svc.network().add_listener(&c, b).await.map(Json)
}

async fn delete(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.network().delete_listener(&c, p.id.as_str()).await?;
    Ok(NoContent)
}
