//! Routes of passkeys: registering them on the signed-in account, listing and removing them,
//! and signing in with one. The ceremony is described in [`crate::api::passkeys`].

use std::sync::Arc;

use super::super::callers::Session;
use super::super::handler::{Json, NoContent, Path, WithCookie};
use super::RouteDef;
use super::accounts::session_cookie;
use crate::api::IdParam;
use crate::api::accounts::User;
use crate::api::passkeys::{
    PasskeyCeremony, PasskeyFinish, PasskeyInfo, PasskeyRegisterStart, PasskeySignInStart,
};
use crate::error::ApiError;
use crate::service::{RequestMeta, Services};

/// The routes of this domain, in the order the reference lists them.
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        RouteDef::get(
            "/api/auth/passkeys",
            "listPasskeys",
            "The signed-in account's passkeys",
        )
        .tag("auth")
        .handle(list),
        RouteDef::post(
            "/api/auth/passkeys/register/start",
            "startPasskeyRegistration",
            "Start registering a passkey on the signed-in account: WebAuthn creation options \
             for `navigator.credentials.create`",
        )
        .tag("auth")
        .ok(201)
        .errors(&["PASSKEYS_UNAVAILABLE", "PASSKEY_LIMIT", "TOO_MANY_ATTEMPTS"])
        .handle(register_start),
        RouteDef::post(
            "/api/auth/passkeys/register/finish",
            "finishPasskeyRegistration",
            "Finish registering: verify the browser's new credential and keep it",
        )
        .tag("auth")
        .ok(201)
        .errors(&[
            "PASSKEYS_UNAVAILABLE",
            "PASSKEY_CEREMONY_INVALID",
            "PASSKEY_REJECTED",
            "PASSKEY_EXISTS",
            "PASSKEY_LIMIT",
        ])
        .handle(register_finish),
        RouteDef::delete(
            "/api/auth/passkeys/:id",
            "deletePasskey",
            "Remove one of the signed-in account's passkeys",
        )
        .tag("auth")
        .errors(&["NOT_FOUND"])
        .handle(delete),
        RouteDef::post(
            "/api/auth/passkey/start",
            "startPasskeySignIn",
            "Start signing in with a passkey: WebAuthn request options for \
             `navigator.credentials.get` (an unknown account gets options of the same shape)",
        )
        .tag("auth")
        .errors(&["PASSKEYS_UNAVAILABLE", "TOO_MANY_ATTEMPTS"])
        .handle(sign_in_start),
        RouteDef::post(
            "/api/auth/passkey/finish",
            "finishPasskeySignIn",
            "Finish signing in with a passkey; sets the session cookie",
        )
        .tag("auth")
        .errors(&[
            "PASSKEYS_UNAVAILABLE",
            "PASSKEY_CEREMONY_INVALID",
            "INVALID_CREDENTIALS",
            "TOO_MANY_ATTEMPTS",
        ])
        .handle(sign_in_finish),
    ]
}

type Res<T> = Result<T, ApiError>;

async fn list(svc: Arc<Services>, Session(c): Session) -> Res<Json<Vec<PasskeyInfo>>> {
    svc.passkeys().list(&c).await.map(Json)
}

async fn register_start(
    svc: Arc<Services>,
    Session(c): Session,
    Json(b): Json<PasskeyRegisterStart>,
) -> Res<Json<PasskeyCeremony>> {
    svc.passkeys().register_start(&c, b).await.map(Json)
}

async fn register_finish(
    svc: Arc<Services>,
    Session(c): Session,
    Json(b): Json<PasskeyFinish>,
) -> Res<Json<PasskeyInfo>> {
    svc.passkeys().register_finish(&c, b).await.map(Json)
}

async fn delete(svc: Arc<Services>, Session(c): Session, Path(p): Path<IdParam>) -> Res<NoContent> {
    svc.passkeys().delete(&c, p.id.as_str()).await?;
    Ok(NoContent)
}

async fn sign_in_start(
    svc: Arc<Services>,
    _: RequestMeta,
    Json(b): Json<PasskeySignInStart>,
) -> Res<Json<PasskeyCeremony>> {
    svc.passkeys().sign_in_start(b).await.map(Json)
}

async fn sign_in_finish(
    svc: Arc<Services>,
    meta: RequestMeta,
    Json(b): Json<PasskeyFinish>,
) -> Res<WithCookie<Json<User>>> {
    let (token, user) = svc.guard().passkey_sign_in_finish(&meta, b).await?;
    let max_age = crate::service::SESSION_LIFETIME_MS / 1000;
    Ok(WithCookie {
        set_cookie: session_cookie(&svc, &token, max_age),
        answer: Json(user),
    })
}
