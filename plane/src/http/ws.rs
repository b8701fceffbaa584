//! `GET /ws/node`: the node WebSocket upgrade: the 101 is written by the plane's server, which then
//! hands the raw connection to `WebSocketStream::from_raw_socket` and [`crate::link::serve`].
//!
//! Refusals, before any WebSocket exists (spec error body):
//! * 400 — not a WebSocket upgrade (missing `Upgrade: websocket`, `Connection: upgrade`,
//!   `Sec-WebSocket-Version: 13` or a well-formed `Sec-WebSocket-Key`);
//! * 401 / 403 — the bearer node key, as [`crate::service::Guard::node_upgrade`] decides;
//! * 429 `TOO_MANY_ATTEMPTS` — too many upgrades from the address whose key opened no node;
//! * 429 `TOO_MANY_SOCKETS` / 503 `PLANE_BUSY` — a socket cap is reached (`Retry-After: 5`);
//! * 503 `SHUTTING_DOWN` — the plane is shutting down (`Retry-After: 5`).
//!
//! The answer never carries `Sec-WebSocket-Extensions` (no permessage-deflate) nor a
//! subprotocol. The socket's caps come from [`termplane_runtime_smol::ws::link_config`].

use std::sync::Arc;

use async_tungstenite::WebSocketStream;
use async_tungstenite::tungstenite::protocol::Role;

use super::handler::BoxFut;
use super::server::{Request, Response, Upgraded};
use super::{Ctx, ReqInfo, error_response};
use crate::error::ApiError;

/// The wait a node is told (`Retry-After`) when its upgrade is refused for the plane's sake:
/// shutting down, or over a socket cap.
const NODE_RETRY_AFTER_MS: i64 = 5_000;

fn websocket_key(req: &Request) -> Option<String> {
    let values: Vec<&str> = req.head.all("sec-websocket-key").collect();
    let [one] = values.as_slice() else {
        return None;
    };
    let key = one.trim();
    // A base64 spelling of 16 bytes.
    let ok = key.len() == 24
        && key.ends_with("==")
        && key[..22]
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/');
    ok.then(|| key.to_owned())
}

/// The `Sec-WebSocket-Key` of a well-formed WebSocket upgrade request (HTTP/1.1, as RFC 6455
/// §4.1 requires; `Upgrade: websocket`, `Connection: upgrade`, `Sec-WebSocket-Version: 13`),
/// or `None`.
pub(super) fn upgrade_key(req: &Request) -> Option<String> {
    let is_upgrade = req.head.http11
        && req.head.has_token("upgrade", "websocket")
        && req.head.has_token("connection", "upgrade")
        && req
            .head
            .one("sec-websocket-version")
            .is_some_and(|v| v.trim() == "13");
    if is_upgrade { websocket_key(req) } else { None }
}

/// 400 `WEBSOCKET_UPGRADE_REQUIRED`: a request to a socket endpoint that is no upgrade.
fn upgrade_required(req_id: &str) -> Response {
    error_response(
        &ApiError::new(
            400,
            "WEBSOCKET_UPGRADE_REQUIRED",
            "this endpoint only accepts a WebSocket upgrade",
        ),
        req_id,
    )
}

/// The `/ws/node` handler.
pub(super) fn node_socket(
    ctx: Arc<Ctx>,
    req: Request,
    info: ReqInfo,
    _: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async move {
        let req_id = info.req_id;
        let Some(key) = upgrade_key(&req) else {
            return upgrade_required(&req_id);
        };
        let svc = ctx.svc.clone();
        let node = match svc.guard().node_upgrade(&info.meta).await {
            Ok(n) => n,
            Err(e) => return error_response(&e, &req_id),
        };
        // A refusal the node should retry carries `Retry-After`: its daemon waits at least
        // that long before dialling again (on top of its own backoff).
        let retry = serde_json::json!({ "retryAfterMs": NODE_RETRY_AFTER_MS });
        if svc.links().is_shutting_down() {
            return error_response(
                &ApiError::new(503, "SHUTTING_DOWN", "the control plane is shutting down")
                    .with_metadata(retry),
                &req_id,
            );
        }
        // What one node key can make the plane hold is bounded, handshake or not.
        let slot = match svc
            .links()
            .socket_slot(&node.id, node.owner_user_id.as_deref())
        {
            Ok(s) => s,
            Err(full) => {
                use crate::link::{MAX_NODE_SOCKETS_PER_OWNER, MAX_SOCKETS_PER_NODE};
                let cap = svc.links().max_node_sockets();
                let e = match full {
                    crate::slots::Full::Key => ApiError::new(
                        429,
                        "TOO_MANY_SOCKETS",
                        format!(
                            "a node holds at most {MAX_SOCKETS_PER_NODE} link sockets open at \
                             once, the nodes of one account {MAX_NODE_SOCKETS_PER_OWNER}"
                        ),
                    ),
                    crate::slots::Full::All => ApiError::new(
                        503,
                        "PLANE_BUSY",
                        format!("the plane holds {cap} node sockets open already; try again later"),
                    ),
                };
                let e = e.with_metadata(retry);
                return error_response(&e, &req_id);
            }
        };
        let on_upgrade = Box::new(move |conn: Upgraded| -> BoxFut<()> {
            Box::pin(async move {
                let _slot = slot;
                let ws = WebSocketStream::from_raw_socket(
                    conn,
                    Role::Server,
                    Some(termplane_runtime_smol::ws::link_config()),
                )
                .await;
                crate::link::serve(svc, node, ws).await;
            })
        });
        Response::switching_protocols(&key, on_upgrade)
    })
}

/// The `/ws/replica` handler: another replica of the cluster connects (see
/// [`crate::service::peers`]; it proves itself inside the socket). A plane that holds its
/// database alone has no peers: 404, as for any path it does not serve. At most
/// [`crate::service::peers::MAX_HANDSHAKES`] sockets wait for their proof at once: 503
/// `PLANE_BUSY` beyond.
pub(super) fn replica_socket(
    ctx: Arc<Ctx>,
    req: Request,
    info: ReqInfo,
    _: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async move {
        let req_id = info.req_id;
        let peers = ctx.svc.peers().clone();
        if !peers.enabled() {
            return error_response(&ApiError::not_found("route"), &req_id);
        }
        let Some(key) = upgrade_key(&req) else {
            return upgrade_required(&req_id);
        };
        if ctx.svc.links().is_shutting_down() {
            return error_response(
                &ApiError::new(503, "SHUTTING_DOWN", "the control plane is shutting down"),
                &req_id,
            );
        }
        let Some(slot) = peers.handshake_slot() else {
            return error_response(
                &ApiError::new(
                    503,
                    "PLANE_BUSY",
                    "too many replica sockets are waiting for their proof; try again later",
                ),
                &req_id,
            );
        };
        let on_upgrade = Box::new(move |conn: Upgraded| -> BoxFut<()> {
            Box::pin(async move {
                let ws = WebSocketStream::from_raw_socket(
                    conn,
                    Role::Server,
                    Some(termplane_runtime_smol::ws::link_config()),
                )
                .await;
                peers.serve(ws, slot).await;
            })
        });
        Response::switching_protocols(&key, on_upgrade)
    })
}
