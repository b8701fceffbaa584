//! The operator's endpoints: `GET /healthz`, `GET /readyz` and `GET /metrics`, and the
//! separate metrics address (`--metrics-listen`).
//!
//! * `/healthz` — liveness: the process answers (`200 {"status":"ok"}`); it reads nothing,
//!   not even the database, so a database outage never gets a healthy plane restarted.
//! * `/readyz` — readiness: `200` when every check of [`crate::service::health`] passes, `503`
//!   otherwise; the JSON body names each check (`checks.<name>.ok`, `detail`) and lists the
//!   failed ones (`failed`). No credential: a load balancer asks it.
//! * `/metrics` — Prometheus's text format ([`crate::metrics`]). On the main address it needs
//!   a system key (`Authorization: Bearer tp_…`): 401 without a credential, 403
//!   `SYSTEM_KEY_REQUIRED` with any other. On the metrics address it is open, with
//!   `/healthz` and `/readyz`, and nothing else is served there (plain 404): bind that address
//!   where only the scraper reaches it.
//!
//! Unknown paths under these prefixes are a plain-text 404, never the browser app's page.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use super::handler::BoxFut;
use super::server::{self, Request, Response};
use super::wire::{Method, Refusal};
use super::{Ctx, ReqInfo, error_response, finish, new_req_id};
use crate::error::ApiError;
use crate::service::{Caller, Services};

/// The route label of a request no route matched (metrics and the request log).
pub(super) const UNMATCHED: &str = "(unmatched)";
/// The route label of a page of the browser app served for one of its own routes.
pub(super) const APP_PAGE: &str = "(app)";
/// The route label of a hashed asset of the browser app.
pub(super) const APP_ASSET: &str = "/assets/:name";
/// The route label of a request refused before routing.
pub(super) const REFUSED: &str = "(refused)";

/// The text format's content type.
const EXPOSITION: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A plain-text 404 (for the operator's prefixes: scrapers and probes read text).
pub(super) fn plain_not_found() -> Response {
    Response::bytes(404, "text/plain; charset=utf-8", b"not found\n".to_vec())
}

fn healthz_answer() -> Response {
    Response::bytes(200, "application/json", br#"{"status":"ok"}"#.to_vec())
}

async fn readyz_answer(svc: &Services) -> Response {
    let r = svc.health().readiness().await;
    let status = if r.ready() { 200 } else { 503 };
    if !r.ready() {
        tracing::warn!(failed = ?r.failed, "readiness check failed");
    }
    let mut res = Response::bytes(
        status,
        "application/json",
        serde_json::to_vec(&r).unwrap_or_default(),
    );
    if status == 503 {
        res.set_header("retry-after", "5");
    }
    res
}

async fn metrics_answer(svc: &Services) -> Response {
    Response::bytes(
        200,
        EXPOSITION,
        svc.health().render_metrics().await.into_bytes(),
    )
}

/// `GET /healthz`.
pub(super) fn healthz(
    _: Arc<Ctx>,
    _: Request,
    _: ReqInfo,
    _: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async { healthz_answer() })
}

/// `GET /readyz`.
pub(super) fn readyz(
    ctx: Arc<Ctx>,
    _: Request,
    _: ReqInfo,
    _: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async move { readyz_answer(&ctx.svc).await })
}

/// `GET /metrics` on the main address: a system key only.
pub(super) fn metrics(
    ctx: Arc<Ctx>,
    _: Request,
    info: ReqInfo,
    _: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async move {
        match ctx.svc.guard().caller(&info.meta).await {
            Ok(Caller::SystemKey { .. }) => metrics_answer(&ctx.svc).await,
            Ok(_) => error_response(
                &ApiError::new(
                    403,
                    "SYSTEM_KEY_REQUIRED",
                    "/metrics answers a system key only (or serve it on --metrics-listen)",
                ),
                &info.req_id,
            ),
            Err(e) => error_response(&e, &info.req_id),
        }
    })
}

/// The metrics address's application: `/metrics`, `/healthz`, `/readyz`, nothing else.
struct MetricsApp(Arc<Services>);

impl server::App for MetricsApp {
    fn handle(&self, req: Request) -> BoxFut<Response> {
        let svc = self.0.clone();
        Box::pin(async move {
            let started = Instant::now();
            let req_id = new_req_id();
            let get = matches!(req.head.method, Method::Get | Method::Head);
            let (route, mut res) = match req.head.path.as_str() {
                "/metrics" if get => ("/metrics", metrics_answer(&svc).await),
                "/healthz" if get => ("/healthz", healthz_answer()),
                "/readyz" if get => ("/readyz", readyz_answer(&svc).await),
                _ => (UNMATCHED, plain_not_found()),
            };
            finish(&mut res, &req_id);
            svc.health().metrics().http_request(
                req.head.method.as_str(),
                route,
                res.status,
                started.elapsed(),
            );
            tracing::debug!(
                method = req.head.method.as_str(),
                route,
                status = res.status,
                req_id = %req_id,
                ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                "metrics address request"
            );
            res
        })
    }

    fn refuse(&self, refusal: &Refusal, _peer: SocketAddr) -> Response {
        let mut res = Response::bytes(
            refusal.status,
            "text/plain; charset=utf-8",
            format!("{}\n", refusal.message).into_bytes(),
        );
        finish(&mut res, &new_req_id());
        res
    }

    /// The metrics address takes no credential: nothing to vouch for.
    fn vouch(&self, _head: &super::wire::Head, _peer: SocketAddr) -> BoxFut<bool> {
        Box::pin(async { false })
    }
}

/// Requests in flight on the metrics address (nothing drains them: a scrape is short).
struct Uncounted(AtomicUsize);

impl server::Activity for Uncounted {
    fn begin(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    fn end(&self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Most connections open at once on the metrics address.
const METRICS_MAX_CONNS: usize = 64;

/// Serves the metrics address until the future is dropped (with the main server).
pub async fn serve_metrics(listener: smol::net::TcpListener, svc: Arc<Services>) {
    let app = Arc::new(MetricsApp(svc));
    let ex = smol::Executor::new();
    let open = Arc::new(AtomicUsize::new(0));
    let activity = Arc::new(Uncounted(AtomicUsize::new(0)));
    let limits = server::Limits {
        body_limit: 0,
        header_timeout: super::DEFAULT_HEADER_TIMEOUT,
        io_timeout: super::DEFAULT_IO_TIMEOUT,
        body_timeout: super::DEFAULT_BODY_TIMEOUT,
        min_send_rate: super::DEFAULT_MIN_SEND_RATE,
    };
    ex.run(async {
        loop {
            let Ok((stream, peer)) = listener.accept().await else {
                smol::Timer::after(std::time::Duration::from_millis(50)).await;
                continue;
            };
            if open.load(Ordering::SeqCst) >= METRICS_MAX_CONNS {
                let _ = stream.shutdown(std::net::Shutdown::Both);
                continue;
            }
            open.fetch_add(1, Ordering::SeqCst);
            let (app, activity, open) = (app.clone(), activity.clone(), open.clone());
            ex.spawn(async move {
                struct Release(Arc<AtomicUsize>);
                impl Drop for Release {
                    fn drop(&mut self) {
                        self.0.fetch_sub(1, Ordering::SeqCst);
                    }
                }
                // Every connection here is admitted as it is: the address is the operator's,
                // open to whoever can reach it, and capped in all (no trial, nothing to prove).
                impl server::Admission for Release {
                    fn on_trial(&self) -> bool {
                        false
                    }
                    fn proven(&self) -> bool {
                        true
                    }
                    fn prove(&mut self) {}
                }
                let release = Release(open);
                server::serve_connection(stream, peer, app, limits, activity, Box::new(release))
                    .await;
            })
            .detach();
        }
    })
    .await;
}
