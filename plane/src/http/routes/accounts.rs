//! Routes of the reference, first run, settings reads, sign-in and sessions, and accounts.

use std::sync::Arc;

use super::super::callers::{AdminSession, AnyCaller, Session};
use super::super::handler::{Json, MaybeJson, NoContent, Path, WithCookie};
use crate::api::accounts::{
    ChangePasswordRequest, CreateUserRequest, InstanceSettings, InstanceSettingsUpdate,
    PublicSettings, ResetPasswordRequest, SetupRequest, SetupStatus, SignInRequest, TrustedOrigins,
    TrustedOriginsUpdate, UpdateUserRequest, User, Whoami,
};
use crate::api::{Empty, IdParam};
use crate::error::ApiError;
use crate::service::{RequestMeta, Services};

use super::RouteDef;

/// The routes of this domain, in the order the reference lists them.
#[allow(clippy::too_many_lines)]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        // ----- the reference itself -----
        RouteDef::get(
            "/api/openapi.json",
            "openApiDocument",
            "This OpenAPI 3.1 document",
        )
        .tag("reference")
        .made_once()
        .handle(openapi_json),
        // ----- first run and settings -----
        RouteDef::get(
            "/api/setup/status",
            "setupStatus",
            "Whether the first account exists",
        )
        .handle(setup_status),
        RouteDef::post(
            "/api/setup",
            "setup",
            "Create the first (administrator) account",
        )
        .ok(201)
        .errors(&["SETUP_ALREADY_DONE"])
        .handle(setup),
        RouteDef::get(
            "/api/settings/instance",
            "instanceSettings",
            "The instance's display name",
        )
        .handle(instance_settings),
        RouteDef::put(
            "/api/settings/instance",
            "renameInstance",
            "Rename the instance",
        )
        .handle(rename_instance),
        RouteDef::get(
            "/api/settings/trusted-origins",
            "trustedOrigins",
            "The trusted origins: configured ones and ones administrators added",
        )
        .handle(trusted_origins),
        RouteDef::put(
            "/api/settings/trusted-origins",
            "setTrustedOrigins",
            "Replace the origins administrators added to the trusted list",
        )
        .handle(set_trusted_origins),
        RouteDef::get(
            "/api/settings/public",
            "publicSettings",
            "Settings any signed-in caller may read",
        )
        .handle(public_settings),
        // ----- sign-in and sessions -----
        RouteDef::post(
            "/api/auth/sign-in",
            "signIn",
            "Sign in with a password; sets the session cookie",
        )
        .errors(&["INVALID_CREDENTIALS", "TOO_MANY_ATTEMPTS"])
        .handle(sign_in),
        RouteDef::post(
            "/api/auth/sign-out",
            "signOut",
            "Destroy the session and clear its cookie",
        )
        .handle(sign_out),
        RouteDef::get("/api/auth/session", "session", "The calling account").handle(whoami),
        // ----- accounts -----
        RouteDef::get("/api/users", "listUsers", "List accounts").handle(users),
        RouteDef::post("/api/users", "createUser", "Create an account")
            .ok(201)
            .errors(&["EMAIL_TAKEN"])
            .handle(create_user),
        RouteDef::post(
            "/api/users/:id/disable",
            "disableUser",
            "Disable an account (its sessions end at once)",
        )
        .errors(&["CANNOT_DISABLE_SELF"])
        .handle(disable_user),
        RouteDef::post("/api/users/:id/enable", "enableUser", "Enable an account")
            .handle(enable_user),
        RouteDef::patch(
            "/api/users/:id",
            "updateUser",
            "Change an account's role or display name (the last enabled administrator cannot be \
             demoted)",
        )
        .errors(&["NOT_FOUND", "LAST_ADMIN"])
        .handle(update_user),
        RouteDef::delete(
            "/api/users/:id",
            "deleteUser",
            "Delete an account: its sessions, passkeys, presets, workspaces and shares go with \
             it; refused for the last administrator, for oneself and while its subshells run",
        )
        .errors(&[
            "NOT_FOUND",
            "LAST_ADMIN",
            "CANNOT_DISABLE_SELF",
            "USER_HAS_LIVE_SUBSHELLS",
        ])
        .handle(delete_user),
        RouteDef::post(
            "/api/users/:id/password",
            "resetPassword",
            "Set another account's password; every session of that account ends",
        )
        .errors(&["NOT_FOUND", "CANNOT_DISABLE_SELF"])
        .handle(reset_password),
        RouteDef::post(
            "/api/auth/password",
            "changePassword",
            "Change your own password (the current one is checked); your other sessions end \
             unless `signOutOthers` is false",
        )
        .errors(&["CURRENT_PASSWORD_WRONG", "TOO_MANY_ATTEMPTS"])
        .handle(change_password),
    ]
}

type Res<T> = Result<T, ApiError>;

async fn openapi_json(
    svc: Arc<Services>,
    _: RequestMeta,
) -> Res<Json<super::super::openapi::Document>> {
    Ok(Json(super::super::openapi::Document(
        super::super::openapi_document(svc.settings()),
    )))
}

async fn setup_status(svc: Arc<Services>, _: RequestMeta) -> Res<Json<SetupStatus>> {
    svc.accounts().setup_status().await.map(Json)
}

async fn setup(svc: Arc<Services>, _: RequestMeta, Json(b): Json<SetupRequest>) -> Res<Json<User>> {
    svc.accounts().setup(b).await.map(Json)
}

async fn instance_settings(svc: Arc<Services>, _: RequestMeta) -> Res<Json<InstanceSettings>> {
    svc.accounts().instance_settings().await.map(Json)
}

async fn rename_instance(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Json(b): Json<InstanceSettingsUpdate>,
) -> Res<Json<InstanceSettings>> {
    svc.accounts().rename_instance(&c, b).await.map(Json)
}

async fn trusted_origins(svc: Arc<Services>, _: AdminSession) -> Res<Json<TrustedOrigins>> {
    svc.guard().trusted_origin_settings().await.map(Json)
}

async fn set_trusted_origins(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Json(b): Json<TrustedOriginsUpdate>,
) -> Res<Json<TrustedOrigins>> {
    svc.guard().set_trusted_origins(&c, b).await.map(Json)
}

async fn public_settings(svc: Arc<Services>, _: AnyCaller) -> Res<Json<PublicSettings>> {
    svc.guard().public_settings().await.map(Json)
}

async fn update_user(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
    Json(b): Json<UpdateUserRequest>,
) -> Res<Json<User>> {
    svc.accounts()
        .update_user(&c, p.id.as_str(), b)
        .await
        .map(Json)
}

async fn delete_user(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.accounts().delete_user(&c, p.id.as_str()).await?;
    Ok(NoContent)
}

async fn reset_password(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
    Json(b): Json<ResetPasswordRequest>,
) -> Res<NoContent> {
    svc.accounts().reset_password(&c, p.id.as_str(), b).await?;
    Ok(NoContent)
}

async fn change_password(
    svc: Arc<Services>,
    Session(c): Session,
    Json(b): Json<ChangePasswordRequest>,
) -> Res<NoContent> {
    svc.accounts().change_password(&c, b).await?;
    Ok(NoContent)
}

pub(super) fn session_cookie(svc: &Services, value: &str, max_age: i64) -> String {
    let s = svc.settings();
    let secure = if s.secure() { "; Secure" } else { "" };
    format!(
        "{}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}",
        s.cookie_name()
    )
}

async fn sign_in(
    svc: Arc<Services>,
    meta: RequestMeta,
    Json(b): Json<SignInRequest>,
) -> Res<WithCookie<Json<User>>> {
    let (token, user) = svc.guard().sign_in(&meta, b).await?;
    let max_age = crate::service::SESSION_LIFETIME_MS / 1000;
    Ok(WithCookie {
        set_cookie: session_cookie(&svc, &token, max_age),
        answer: Json(user),
    })
}

async fn sign_out(svc: Arc<Services>, Session(c): Session) -> Res<WithCookie<NoContent>> {
    svc.guard().sign_out(&c).await?;
    Ok(WithCookie {
        set_cookie: session_cookie(&svc, "", 0),
        answer: NoContent,
    })
}

async fn whoami(svc: Arc<Services>, AnyCaller(c): AnyCaller) -> Res<Json<Whoami>> {
    svc.accounts().whoami(&c).await.map(Json)
}

async fn users(svc: Arc<Services>, _: AnyCaller) -> Res<Json<Vec<User>>> {
    svc.accounts().users().await.map(Json)
}

async fn create_user(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Json(b): Json<CreateUserRequest>,
) -> Res<Json<User>> {
    svc.accounts().create_user(&c, b).await.map(Json)
}

async fn disable_user(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<User>> {
    svc.accounts()
        .set_user_disabled(&c, p.id.as_str(), true)
        .await
        .map(Json)
}

async fn enable_user(
    svc: Arc<Services>,
    AdminSession(c): AdminSession,
    Path(p): Path<IdParam>,
    _: MaybeJson<Empty>,
) -> Res<Json<User>> {
    svc.accounts()
        .set_user_disabled(&c, p.id.as_str(), false)
        .await
        .map(Json)
}
