//! Routes of live terminals: the attach token and sharing a subshell. (The terminal WebSocket
//! itself, `GET /api/subshells/{id}/attach`, is an upgrade, not a REST route: see
//! `http/terminal.rs` and the `/docs/terminal` page.)

use std::sync::Arc;

use super::super::callers::{Session, SubshellCaller};
use super::super::handler::{Json, NoContent, Path};
use super::RouteDef;
use crate::api::IdParam;
use crate::api::terminals::{Share, ShareParams, ShareRequest, WsToken, WsTokenRequest};
use crate::error::ApiError;
use crate::service::Services;

/// The routes of this domain, in the order the reference lists them.
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        RouteDef::post(
            "/api/auth/ws-token",
            "mintWsToken",
            "Mint a 30-second single-use attach token for the terminal WebSocket (a bearer names \
             one subshell; a pane's token only its own)",
        )
        .describe(
            "A browser session's token reaches what the session reaches: unbound without \
             `subshellId` (any pane the account may attach, and the live feed), bound to one \
             pane with it. A bearer credential's token is always bound to one pane: a system key \
             names any subshell, a pane's token only its own, and a bearer request without \
             `subshellId` is refused with 403 `PERMISSION_DENIED`.",
        )
        .ok(201)
        .errors(&["NOT_FOUND", "PERMISSION_DENIED"])
        .handle(mint),
        RouteDef::get(
            "/api/subshells/:id/shares",
            "listShares",
            "The accounts a subshell is shared with (its owner or an administrator)",
        )
        .errors(&["NOT_FOUND"])
        .handle(list),
        RouteDef::put(
            "/api/subshells/:id/shares/:userId",
            "putShare",
            "Share a subshell with an account for reading or writing, or change the access (open \
             sockets of that account on the pane close with 4403 when it changes)",
        )
        .describe(WRITE_SHARE_GRANTS)
        .errors(&["NOT_FOUND"])
        .handle(put),
        RouteDef::delete(
            "/api/subshells/:id/shares/:userId",
            "deleteShare",
            "Revoke a share; that account's sockets on the pane close with 4403",
        )
        .errors(&["NOT_FOUND"])
        .handle(delete),
    ]
}

/// What the reference says a share grants.
const WRITE_SHARE_GRANTS: &str = "`read` lets the account watch the pane: attach read-only, \
     read its row, screen and logs; it types nothing.\n\n\
     `write` also lets it type into the pane, and typing into a shell is full control of that \
     pane: whoever types can make it print its own token (`TERMPLANE_TOKEN`), read the token \
     off the screen, and then do anything the token can, as the pane's owner, within the \
     pane's permission ceiling, from anywhere, until the pane is restarted or terminated. \
     With the default ceiling (`channels: write`, `subshells: read`) that is reading every \
     subshell of the owner (screens and logs of all of them, not only this one) and reading \
     and posting to every channel the owner reaches; a pane launched with `subshells: write` \
     gives also typing into, restarting, stopping and launching the owner's subshells. Share \
     `write` only with someone you would trust with all of that; revoking the share closes \
     their sockets but does not take back a token they read: restart the pane for that.";

type Res<T> = Result<T, ApiError>;

async fn mint(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Json(b): Json<WsTokenRequest>,
) -> Res<Json<WsToken>> {
    svc.grants().mint_ws_token(&c, b).await.map(Json)
}

async fn list(
    svc: Arc<Services>,
    Session(c): Session,
    Path(p): Path<IdParam>,
) -> Res<Json<Vec<Share>>> {
    svc.shares().list_shares(&c, p.id.as_str()).await.map(Json)
}

async fn put(
    svc: Arc<Services>,
    Session(c): Session,
    Path(p): Path<ShareParams>,
    Json(b): Json<ShareRequest>,
) -> Res<Json<Share>> {
    svc.shares()
        .put_share(&c, p.id.as_str(), p.user_id.as_str(), b)
        .await
        .map(Json)
}

async fn delete(
    svc: Arc<Services>,
    Session(c): Session,
    Path(p): Path<ShareParams>,
) -> Res<NoContent> {
    svc.shares()
        .delete_share(&c, p.id.as_str(), p.user_id.as_str())
        .await
        .map(|()| NoContent)
}
