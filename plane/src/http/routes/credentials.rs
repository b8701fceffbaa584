//! Routes of system keys and setup keys.

use std::sync::Arc;

use super::super::callers::{AdminSession, Session};
use super::super::handler::{Json, MaybeJson, NoContent, Path, RequestHost};
use crate::api::credentials::{
    CreateSystemKeyRequest, SetupKey, SystemKey, SystemKeyCreated, SystemKeyDisabled,
};
use crate::api::{Empty, IdParam};
use crate::error::ApiError;
use crate::service::Services;

use super::RouteDef;

/// The routes of this domain, in the order the reference lists them.
#[allow(clippy::too_many_lines)]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        // ----- system keys -----
        RouteDef::get(
            "/api/system-keys",
            "listSystemKeys",
            "List system keys (never the secret)",
        )
        .handle(system_keys),
        RouteDef::post(
            "/api/system-keys",
            "createSystemKey",
            "Mint a system key; its plaintext is in this answer only",
        )
        .ok(201)
        .handle(create_system_key),
        RouteDef::post(
            "/api/system-keys/:id/disable",
            "disableSystemKey",
            "Disable a system key",
        )
        .handle(disable_system_key),
        RouteDef::delete(
            "/api/system-keys/:id",
            "deleteSystemKey",
            "Delete a system key",
        )
        .handle(delete_system_key),
        // ----- setup keys -----
        RouteDef::get(
            "/api/setup-keys",
            "listSetupKeys",
            "List setup keys (an administrator sees all)",
        )
        .handle(setup_keys),
        RouteDef::post(
            "/api/setup-keys",
            "createSetupKey",
            "Mint a single-use setup key valid for 24 hours, with the commands that add a node \
             with it (`install`: the one `curl … /install.sh | sh` command and the same in steps)",
        )
        .ok(201)
        .handle(create_setup_key),
        RouteDef::delete(
            "/api/setup-keys/:id",
            "revokeSetupKey",
            "Revoke an unused setup key",
        )
        .errors(&["SETUP_KEY_NOT_REVOCABLE"])
        .handle(revoke_setup_key),
    ]
}

type Res<T> = Result<T, ApiError>;

async fn system_keys(svc: Arc<Services>, _: AdminSession) -> Res<Json<Vec<SystemKey>>> {
    svc.credentials().system_keys().await.map(Json)
}

async fn create_system_key(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Json(b): Json<CreateSystemKeyRequest>,
) -> Res<Json<SystemKeyCreated>> {
    svc.credentials().create_system_key(&c, b).await.map(Json)
}

async fn disable_system_key(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<SystemKeyDisabled>> {
    svc.credentials()
        .disable_system_key(&c, p.id.as_str())
        .await
        .map(Json)
}

async fn delete_system_key(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.credentials()
        .delete_system_key(&c, p.id.as_str())
        .await?;
    Ok(NoContent)
}

async fn setup_keys(
    svc: Arc<Services>,
    Session(c): Session,
    RequestHost(host): RequestHost,
) -> Res<Json<Vec<SetupKey>>> {
    svc.installer()
        .setup_keys(&c, host.as_deref())
        .await
        .map(Json)
}

async fn create_setup_key(
    svc: Arc<Services>,
    Session(c): Session,
    RequestHost(host): RequestHost,
    _: MaybeJson<Empty>,
) -> Res<Json<SetupKey>> {
    svc.installer()
        .create_setup_key(&c, host.as_deref())
        .await
        .map(Json)
}

async fn revoke_setup_key(
    svc: Arc<Services>,
    Session(c): Session,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.credentials()
        .revoke_setup_key(&c, p.id.as_str())
        .await?;
    Ok(NoContent)
}
