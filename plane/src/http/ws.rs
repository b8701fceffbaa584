//! `GET /ws/node`: the node WebSocket upgrade, done by hand (http-types `recv_upgrade` plus
//! `WebSocketStream::from_raw_socket`), then handed to [`crate::link::serve`].
//!
//! Refusals, before any WebSocket exists (spec error body):
//! * 400 — not a WebSocket upgrade (missing `Upgrade: websocket`, `Connection: upgrade`,
//!   `Sec-WebSocket-Version: 13` or a well-formed `Sec-WebSocket-Key`);
//! * 401 / 403 — the bearer node key, as [`crate::service::Service::node_upgrade`] decides;
//! * 503 — the plane is shutting down.
//!
//! The answer never carries `Sec-WebSocket-Extensions` (no permessage-deflate) nor a
//! subprotocol. The socket's caps come from [`termplane_runtime_smol::ws::link_config`].

use async_tungstenite::WebSocketStream;
use async_tungstenite::tungstenite::handshake::derive_accept_key;
use async_tungstenite::tungstenite::protocol::Role;
use tide::http::upgrade::Connection;
use tide::{Request, Response, StatusCode};

use super::{State, error_response, info};
use crate::error::ApiError;

fn header_has_token(req: &Request<State>, name: &str, token: &str) -> bool {
    req.header(name).is_some_and(|values| {
        values.iter().any(|v| {
            v.as_str()
                .split(',')
                .any(|t| t.trim().eq_ignore_ascii_case(token))
        })
    })
}

fn websocket_key(req: &Request<State>) -> Option<String> {
    let values: Vec<&str> = req
        .header("sec-websocket-key")?
        .iter()
        .map(|v| v.as_str())
        .collect();
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

/// The `/ws/node` handler.
pub(super) async fn node_socket(req: Request<State>) -> tide::Result {
    let req_id = info(&req).req_id;
    let is_upgrade = header_has_token(&req, "upgrade", "websocket")
        && header_has_token(&req, "connection", "upgrade")
        && req
            .header("sec-websocket-version")
            .is_some_and(|v| v.as_str().trim() == "13");
    let key = websocket_key(&req);
    let (true, Some(key)) = (is_upgrade, key) else {
        return Ok(error_response(
            &ApiError::new(
                400,
                "WEBSOCKET_UPGRADE_REQUIRED",
                "this endpoint only accepts a WebSocket upgrade",
            ),
            &req_id,
        ));
    };
    let svc = req.state().svc.clone();
    let node = match svc.node_upgrade(&info(&req).meta).await {
        Ok(n) => n,
        Err(e) => return Ok(error_response(&e, &req_id)),
    };
    if svc.links().is_shutting_down() {
        return Ok(error_response(
            &ApiError::new(503, "SHUTTING_DOWN", "the control plane is shutting down"),
            &req_id,
        ));
    }
    let mut res = tide::http::Response::new(StatusCode::SwitchingProtocols);
    res.insert_header("upgrade", "websocket");
    res.insert_header("connection", "Upgrade");
    res.insert_header("sec-websocket-accept", derive_accept_key(key.as_bytes()));
    let upgraded = res.recv_upgrade().await;
    smol::spawn(async move {
        let Some(conn): Option<Connection> = upgraded.await else {
            return;
        };
        let ws = WebSocketStream::from_raw_socket(
            conn,
            Role::Server,
            Some(termplane_runtime_smol::ws::link_config()),
        )
        .await;
        crate::link::serve(svc, node, ws).await;
    })
    .detach();
    Ok(Response::from(res))
}
