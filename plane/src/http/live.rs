//! `GET /api/live?token=…`: the whole-user live feed, a WebSocket of
//! [`crate::api::terminals::FeedFrame`]s (subshell changes, node liveness, presence) for
//! everything the account can see. It opens only with an unbound attach token minted by a
//! browser session; a token bound to a pane is refused (403 `ATTACH_TOKEN_BOUND`). A browser
//! upgrade must come from a trusted Origin. The client may send `{"type":"ping"}`.

use std::sync::Arc;

use async_tungstenite::WebSocketStream;
use async_tungstenite::tungstenite::protocol::Role;
use async_tungstenite::tungstenite::{Message, Utf8Bytes};
use futures_lite::{AsyncRead, AsyncWrite, FutureExt as _, StreamExt as _};

use super::handler::BoxFut;
use super::server::{Request, Response, Upgraded};
use super::terminal::{RECHECK_EVERY, config, trusted_upgrade};
use super::{Ctx, ReqInfo, error_response};
use crate::api::terminals::FeedFrame;
use crate::error::ApiError;
use crate::service::Services;
use crate::service::live::FeedNext;
use crate::service::terminals::FeedGrant;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LiveQuery {
    token: String,
}

#[derive(serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum FeedClientFrame {
    /// Keepalive. A struct variant, so that `deny_unknown_fields` holds for it too (serde lets
    /// any field through on a unit variant of a tagged enum).
    Ping {},
}

/// The handler.
pub(super) fn live_socket(
    ctx: Arc<Ctx>,
    req: Request,
    info: ReqInfo,
    _: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async move {
        let req_id = info.req_id.clone();
        let svc = ctx.svc.clone();
        let key = match trusted_upgrade(&svc, &req, &info) {
            Ok(k) => k,
            Err(e) => return error_response(&e, &req_id),
        };
        let q: LiveQuery = match serde_urlencoded::from_str(req.head.query.as_deref().unwrap_or(""))
        {
            Ok(q) => q,
            Err(e) => {
                return error_response(
                    &ApiError::validation("token", format!("bad live-feed query: {e}")),
                    &req_id,
                );
            }
        };
        // Listening before the token is spent: a role that changes from here on (the grant
        // read it as it was) makes the feed re-check at its first turn.
        let changed = svc.terminals().on_access_change();
        let grant = match svc.grants().redeem_feed_token(&q.token).await {
            Ok(g) => g,
            Err(e) => return error_response(&e, &req_id),
        };
        let open = match svc.terminals().socket_opened(&grant.user_id) {
            Ok(o) => o,
            Err(e) => return error_response(&e, &req_id),
        };
        let Some((sub, queue)) = svc.publisher().bus().subscribe(&grant.user_id, grant.admin)
        else {
            return error_response(
                &ApiError::new(
                    503,
                    "PLANE_BUSY",
                    "too many live feeds are open; try again later",
                ),
                &req_id,
            );
        };
        let on_upgrade = Box::new(move |conn: Upgraded| -> BoxFut<()> {
            Box::pin(async move {
                let _open = open;
                let mut ws =
                    WebSocketStream::from_raw_socket(conn, Role::Server, Some(config())).await;
                let (code, reason) = serve(&svc, &grant, &queue, changed, &mut ws).await;
                svc.publisher().bus().unsubscribe(sub);
                if code != 0 {
                    let _ = termplane_runtime_smol::ws::close(&mut ws, code, &reason).await;
                }
            })
        });
        Response::switching_protocols(&key, on_upgrade)
    })
}

async fn send<S>(ws: &mut WebSocketStream<S>, text: String) -> bool
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    super::terminal::send(ws, Message::Text(Utf8Bytes::from(text))).await
}

fn frame(f: &FeedFrame) -> String {
    serde_json::to_string(f).unwrap_or_else(|_| "{}".into())
}

enum Ev {
    Client(Option<Result<Message, async_tungstenite::tungstenite::Error>>),
    Feed(FeedNext),
    Recheck,
    AccessChanged,
}

/// Runs one feed; answers the close code and reason (0: the client is gone).
async fn serve<S>(
    svc: &Arc<Services>,
    grant: &FeedGrant,
    queue: &crate::service::live::FeedQueue,
    mut changed: event_listener::EventListener,
    ws: &mut WebSocketStream<S>,
) -> (u16, String)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let hello = FeedFrame::Hello {
        user_id: grant.user_id.clone(),
    };
    if !send(ws, frame(&hello)).await {
        return (0, String::new());
    }
    // Who watches what, now: the panes' presence so far.
    for f in svc
        .publisher()
        .presence_for(
            svc.terminals().pumps().watched().await,
            &grant.user_id,
            grant.admin,
        )
        .await
    {
        if !send(ws, frame(&f)).await {
            return (0, String::new());
        }
    }
    // One timer for the socket, reset when it fires: a feed that is always busy is still
    // re-checked, and a turn of the loop registers no timer.
    let mut recheck = smol::Timer::after(RECHECK_EVERY);
    loop {
        let ev = async { Ev::Client(ws.next().await) }
            .or(async { Ev::Feed(queue.next().await) })
            .or(async {
                (&mut recheck).await;
                Ev::Recheck
            })
            .or(async {
                (&mut changed).await;
                Ev::AccessChanged
            })
            .await;
        match ev {
            Ev::Client(Some(Err(async_tungstenite::tungstenite::Error::Capacity(_)))) => {
                return (1009, "a frame above 64 KiB".into());
            }
            // A text frame that is not UTF-8: 1007 (RFC 6455 §7.4.1), not a bare end.
            Ev::Client(Some(Err(async_tungstenite::tungstenite::Error::Utf8(_)))) => {
                return (1007, "text frames must be UTF-8".into());
            }
            Ev::Client(None | Some(Err(_))) => return (0, String::new()),
            Ev::Client(Some(Ok(Message::Close(_)))) => return (1000, String::new()),
            Ev::Client(Some(Ok(Message::Text(t)))) => {
                match serde_json::from_str::<FeedClientFrame>(t.as_str()) {
                    Ok(FeedClientFrame::Ping {}) => {
                        if !send(ws, frame(&FeedFrame::Pong)).await {
                            return (0, String::new());
                        }
                    }
                    Err(_) => return (4400, "not a known frame".into()),
                }
            }
            Ev::Client(Some(Ok(Message::Binary(_)))) => {
                return (4400, "the live feed takes no binary frames".into());
            }
            Ev::Client(Some(Ok(_))) => {}
            Ev::Feed(FeedNext::Frame(text)) => {
                if !send(ws, text).await {
                    return (4408, "the client stopped reading".into());
                }
            }
            Ev::Feed(FeedNext::Behind) => {
                return (4408, "the client fell behind; list again and reopen".into());
            }
            Ev::Recheck | Ev::AccessChanged => {
                if matches!(ev, Ev::AccessChanged) {
                    changed = svc.terminals().on_access_change();
                } else {
                    recheck.set_after(RECHECK_EVERY);
                }
                if let Err(end) = svc.grants().feed_still_valid(grant).await {
                    return end;
                }
            }
        }
    }
}
