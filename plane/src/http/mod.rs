//! The HTTP adapter.
//!
//! **Invariant:** every tide, http-types and async-h1 type stays inside this module. The service
//! layer ([`crate::service`]) receives a framework-free [`RequestMeta`] and JSON values and
//! returns JSON values or [`ApiError`]s, so the framework can be replaced here alone.
//!
//! What this module adds around tide:
//! * its own smol accept loop (`async_h1::accept` per connection, `TCP_NODELAY` on);
//! * a request-body limit answering 413 `PAYLOAD_TOO_LARGE`;
//! * graceful shutdown: stop accepting, close every node link with 1000, let requests in flight
//!   finish within a bound, then drop the remaining (idle keep-alive) connections;
//! * a header timeout (slowloris): a connection must deliver each request head within
//!   [`HttpOptions::header_timeout`] of connecting or of its previous response (this is also the
//!   keep-alive idle timeout), else it is dropped;
//! * caps on connections that have not upgraded (every HTTP connection until it becomes a node
//!   WebSocket): [`HttpOptions::max_conns_per_ip`] per client address and
//!   [`HttpOptions::max_conns`] in all; a connection over a cap is closed at once;
//! * the node WebSocket upgrade (`ws.rs`);
//! * one error body for every failure, including tide's own 404/405 and a panic in a handler;
//! * a structured log line per request (method, path, status, request id, duration; never a
//!   header value or a body);
//! * the REST routes, declared once in [`routes`] (which also yields the OpenAPI document of
//!   [`openapi`], served at `/api/openapi.json`), and the interactive reference at `/docs`
//!   ([`docs`]).

mod docs;
mod openapi;
mod routes;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_lite::{AsyncReadExt, FutureExt};
use serde_json::Value;
use tide::{Next, Request, Response, StatusCode};

use crate::error::ApiError;
use crate::secret;
use crate::service::{RequestMeta, Service};
use routes::Method;

mod ws;

/// Default [`HttpOptions::header_timeout`].
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Default [`HttpOptions::max_conns_per_ip`].
pub const DEFAULT_MAX_CONNS_PER_IP: usize = 256;
/// Default [`HttpOptions::max_conns`].
pub const DEFAULT_MAX_CONNS: usize = 2048;

/// Options of the HTTP layer.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Largest request body (bytes).
    pub body_limit: usize,
    /// How long shutdown waits for requests in flight.
    pub drain_timeout: Duration,
    /// Mount `GET /api/__test/panic`, a handler that panics (tests of the 500 path).
    pub panic_route: bool,
    /// How long a connection may take to deliver a request head (from connecting or from its
    /// previous response).
    pub header_timeout: Duration,
    /// Most open not-upgraded connections from one client address.
    pub max_conns_per_ip: usize,
    /// Most open not-upgraded connections in all.
    pub max_conns: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            body_limit: crate::config::DEFAULT_BODY_LIMIT,
            drain_timeout: Duration::from_secs(10),
            panic_route: false,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            max_conns_per_ip: DEFAULT_MAX_CONNS_PER_IP,
            max_conns: DEFAULT_MAX_CONNS,
        }
    }
}

struct Ctx {
    svc: Arc<Service>,
    body_limit: usize,
}

type State = Arc<Ctx>;

/// Per-request facts the outer middleware attaches.
#[derive(Clone)]
struct ReqInfo {
    req_id: String,
    meta: RequestMeta,
}

/// Marks a response whose error body is already rendered.
struct Rendered;

fn new_req_id() -> String {
    secret::random_bytes::<8>()
        .map(|b| secret::hex_lower(&b))
        .unwrap_or_else(|_| "0".repeat(16))
}

fn error_response(e: &ApiError, req_id: &str) -> Response {
    let err_id = new_req_id();
    if e.status >= 500 {
        tracing::error!(err_id = %err_id, req_id = %req_id, code = e.code, "request failed");
    } else {
        tracing::debug!(err_id = %err_id, req_id = %req_id, code = e.code, "request refused");
    }
    let body = e.body(err_id, Some(req_id.to_owned()));
    let mut res =
        Response::new(StatusCode::try_from(e.status).unwrap_or(StatusCode::InternalServerError));
    res.set_body(serde_json::to_vec(&body).unwrap_or_default());
    res.set_content_type(tide::http::mime::JSON);
    if e.status == 429
        && let Some(ms) = e
            .metadata
            .as_ref()
            .and_then(|m| m.get("retryAfterMs"))
            .and_then(Value::as_i64)
    {
        res.insert_header("retry-after", ((ms + 999) / 1000).max(1).to_string());
    }
    res.insert_ext(Rendered);
    res
}

fn fallback_error(status: u16) -> ApiError {
    match status {
        404 => ApiError::not_found("route"),
        405 => ApiError::new(
            405,
            "METHOD_NOT_ALLOWED",
            "method not allowed on this route",
        ),
        413 => ApiError::new(413, "PAYLOAD_TOO_LARGE", "request body too large"),
        s if s >= 500 => ApiError::internal(),
        s => ApiError::new(s, "REQUEST_FAILED", "request failed"),
    }
}

fn meta_of(req: &Request<State>, cookie_name: &str) -> RequestMeta {
    let all = |name: &str| -> Vec<String> {
        req.header(name)
            .map(|v| v.iter().map(|h| h.as_str().to_owned()).collect())
            .unwrap_or_default()
    };
    let one = |name: &str| all(name).into_iter().next();
    let session_cookie = all("cookie")
        .iter()
        .flat_map(|h| h.split(';'))
        .find_map(|pair| {
            let (n, v) = pair.trim().split_once('=')?;
            (n == cookie_name).then(|| v.to_owned())
        });
    let peer_ip = req
        .peer_addr()
        .and_then(|a| a.parse::<SocketAddr>().ok())
        .map(|a| a.ip().to_string())
        .unwrap_or_default();
    RequestMeta {
        method: req.method().to_string().to_ascii_uppercase(),
        path: req.url().path().to_owned(),
        authorization: all("authorization"),
        session_cookie,
        origin: one("origin"),
        sec_fetch_site: one("sec-fetch-site"),
        peer_ip,
    }
}

async fn limit_body(req: &mut Request<State>, limit: usize) -> Result<(), ApiError> {
    let too_large = || {
        ApiError::new(
            413,
            "PAYLOAD_TOO_LARGE",
            format!("request body is larger than {limit} bytes"),
        )
    };
    let body = req.take_body();
    let mut buf = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    body.take(cap)
        .read_to_end(&mut buf)
        .await
        .map_err(|_| ApiError::validation("body", "the request body could not be read"))?;
    if buf.len() > limit {
        return Err(too_large());
    }
    req.set_body(buf);
    Ok(())
}

fn outer<'a>(
    mut req: Request<State>,
    next: Next<'a, State>,
) -> Pin<Box<dyn Future<Output = tide::Result> + Send + 'a>> {
    Box::pin(async move {
        let started = Instant::now();
        let ctx = req.state().clone();
        let req_id = new_req_id();
        let meta = meta_of(&req, ctx.svc.settings().cookie_name());
        let (method, path) = (meta.method.clone(), meta.path.clone());
        req.set_ext(ReqInfo {
            req_id: req_id.clone(),
            meta: meta.clone(),
        });
        let mut close = false;
        let mut res = if let Err(e) = ctx.svc.guard(&meta) {
            error_response(&e, &req_id)
        } else if let Err(e) = limit_body(&mut req, ctx.body_limit).await {
            close = e.status == 413;
            error_response(&e, &req_id)
        } else {
            match AssertUnwindSafe(next.run(req)).catch_unwind().await {
                Ok(res) => res,
                Err(_) => {
                    tracing::error!(req_id = %req_id, "handler panicked");
                    error_response(&ApiError::internal(), &req_id)
                }
            }
        };
        let status = u16::from(res.status());
        if status >= 400 && res.ext::<Rendered>().is_none() {
            res = error_response(&fallback_error(status), &req_id);
        }
        res.insert_header("x-request-id", req_id.as_str());
        if res.header("cache-control").is_none() {
            res.insert_header("cache-control", "no-store");
        }
        res.insert_header("referrer-policy", "no-referrer");
        res.insert_header("x-content-type-options", "nosniff");
        if close {
            res.insert_header("connection", "close");
        }
        tracing::info!(
            method = %method,
            path = %path,
            status,
            req_id = %req_id,
            ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            "request"
        );
        Ok(res)
    })
}

fn info(req: &Request<State>) -> ReqInfo {
    req.ext::<ReqInfo>().cloned().unwrap_or_else(|| ReqInfo {
        req_id: new_req_id(),
        meta: RequestMeta::default(),
    })
}

fn reply(req: &Request<State>, ok: u16, r: Result<Value, ApiError>) -> tide::Result {
    Ok(match r {
        Ok(v) => {
            let mut res = Response::new(StatusCode::try_from(ok).unwrap_or(StatusCode::Ok));
            if ok != 204 {
                res.set_body(serde_json::to_vec(&v).unwrap_or_default());
                res.set_content_type(tide::http::mime::JSON);
            }
            res
        }
        Err(e) => error_response(&e, &info(req).req_id),
    })
}

async fn json_body(req: &mut Request<State>) -> Result<Value, ApiError> {
    let bytes = req
        .body_bytes()
        .await
        .map_err(|_| ApiError::validation("body", "the request body could not be read"))?;
    if bytes.is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_slice(&bytes)
        .map_err(|_| ApiError::validation("body", "the body must be JSON"))
}

fn param(req: &Request<State>, name: &str) -> String {
    req.param(name).unwrap_or_default().to_owned()
}

fn session_cookie(name: &str, value: &str, max_age: i64, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{name}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}")
}

/// Builds the route table.
fn app(svc: Arc<Service>, opts: &HttpOptions) -> tide::Server<State> {
    let mut app = tide::with_state(Arc::new(Ctx {
        svc,
        body_limit: opts.body_limit,
    }));
    app.with(outer);

    app.at("/").get(|req: Request<State>| async move {
        let name = req
            .state()
            .svc
            .instance_settings()
            .await
            .ok()
            .and_then(|v| v["displayName"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let mut res = Response::new(StatusCode::Ok);
        res.set_body(format!(
            "{name} control plane is running. The API lives under /api.\n"
        ));
        res.set_content_type(tide::http::mime::PLAIN);
        Ok(res)
    });

    // Every REST route comes from the one list in `routes.rs`, which also produces the OpenAPI
    // document: add REST routes there, not here (see that module's documentation).
    for r in routes::routes() {
        let (handler, ok) = (r.handler, r.ok);
        let endpoint = move |req: Request<State>| handler(req, ok);
        let mut at = app.at(r.path);
        match r.method {
            Method::Get => at.get(endpoint),
            Method::Post => at.post(endpoint),
            Method::Put => at.put(endpoint),
            Method::Delete => at.delete(endpoint),
        };
    }
    docs::mount(&mut app);

    // The live node link (a WebSocket upgrade, not a REST route).
    app.at("/ws/node").get(ws::node_socket);

    if opts.panic_route {
        app.at("/api/__test/panic").get(panicking);
    }
    app
}

#[allow(clippy::panic)]
async fn panicking(_req: Request<State>) -> tide::Result {
    panic!("deliberate panic for the 500 path")
}

/// Counts requests in flight; the guard decrements on drop (also on cancellation).
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn enter(c: &Arc<AtomicUsize>) -> Self {
        c.fetch_add(1, Ordering::SeqCst);
        Self(c.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Open not-upgraded connections, per client address and in all.
#[derive(Default)]
struct ConnCounts {
    per_ip: std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>,
    total: AtomicUsize,
}

/// One counted connection; uncounted on drop (the connection ended or became a WebSocket).
struct Counted {
    counts: Arc<ConnCounts>,
    ip: std::net::IpAddr,
}

impl ConnCounts {
    fn admit(self: &Arc<Self>, ip: std::net::IpAddr, opts: &HttpOptions) -> Option<Counted> {
        let mut per_ip = self
            .per_ip
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let here = per_ip.get(&ip).copied().unwrap_or(0);
        if here >= opts.max_conns_per_ip || self.total.load(Ordering::SeqCst) >= opts.max_conns {
            return None;
        }
        per_ip.insert(ip, here + 1);
        self.total.fetch_add(1, Ordering::SeqCst);
        Some(Counted {
            counts: self.clone(),
            ip,
        })
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let mut per_ip = self
            .counts
            .per_ip
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = per_ip.get_mut(&self.ip) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                per_ip.remove(&self.ip);
            }
        }
        self.counts.total.fetch_sub(1, Ordering::SeqCst);
    }
}

/// When a connection last finished a response, and whether a request is being handled.
struct HeadClock {
    busy: bool,
    idle_since: Instant,
}

/// Resolves when the connection has waited `limit` for a request head.
async fn head_watchdog(clock: Arc<std::sync::Mutex<HeadClock>>, limit: Duration) {
    loop {
        let (busy, since) = {
            let c = clock
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            (c.busy, c.idle_since)
        };
        if busy {
            smol::Timer::after(limit).await;
            continue;
        }
        let deadline = since + limit;
        if Instant::now() >= deadline {
            return;
        }
        smol::Timer::at(deadline).await;
    }
}

async fn accept_loop(
    listener: &smol::net::TcpListener,
    ex: &Arc<smol::Executor<'static>>,
    app: &tide::Server<State>,
    in_flight: &Arc<AtomicUsize>,
    opts: &HttpOptions,
) {
    let counts = Arc::new(ConnCounts::default());
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                smol::Timer::after(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(counted) = counts.admit(peer.ip(), opts) else {
            tracing::debug!(peer = %peer, "connection cap reached; closing");
            let _ = stream.shutdown(std::net::Shutdown::Both);
            continue;
        };
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set");
        }
        let app = app.clone();
        let in_flight = in_flight.clone();
        let header_timeout = opts.header_timeout;
        ex.spawn(async move {
            let head = Arc::new(std::sync::Mutex::new(HeadClock {
                busy: false,
                idle_since: Instant::now(),
            }));
            let head2 = head.clone();
            let conn = stream.clone();
            let served = async_h1::accept(stream, move |mut req| {
                let app = app.clone();
                let guard = InFlight::enter(&in_flight);
                let head = head2.clone();
                if let Ok(mut h) = head.lock() {
                    h.busy = true;
                }
                async move {
                    req.set_peer_addr(Some(peer));
                    let res = app.respond(req).await;
                    drop(guard);
                    if let Ok(mut h) = head.lock() {
                        h.busy = false;
                        h.idle_since = Instant::now();
                    }
                    res
                }
            });
            let outcome = async { Some(served.await) }
                .or(async {
                    head_watchdog(head, header_timeout).await;
                    None
                })
                .await;
            drop(counted);
            match outcome {
                Some(Err(e)) => {
                    tracing::debug!(peer = %peer, error = %e, "connection ended with an error");
                }
                Some(Ok(())) => {}
                None => {
                    tracing::debug!(peer = %peer, "no request head within the header timeout; closing");
                    let _ = conn.shutdown(std::net::Shutdown::Both);
                }
            }
        })
        .detach();
    }
}

/// Serves `svc` on `listener` until `shutdown` completes, then stops accepting, waits up to
/// `opts.drain_timeout` for requests in flight and drops the remaining connections.
pub async fn serve(
    listener: smol::net::TcpListener,
    svc: Arc<Service>,
    opts: HttpOptions,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let svc_links = svc.clone();
    let app = app(svc, &opts);
    let ex: Arc<smol::Executor<'static>> = Arc::new(smol::Executor::new());
    let in_flight = Arc::new(AtomicUsize::new(0));
    ex.run(accept_loop(&listener, &ex, &app, &in_flight, &opts).or(shutdown))
        .await;
    drop(listener);
    let links = svc_links.links();
    links.begin_shutdown();
    let open = ex.run(links.wait_closed(opts.drain_timeout)).await;
    tracing::info!(still_open = open, "node links closed");
    let pending = in_flight.load(Ordering::SeqCst);
    tracing::info!(
        in_flight = pending,
        "shutting down: no longer accepting connections"
    );
    let deadline = Instant::now() + opts.drain_timeout;
    ex.run(async {
        while in_flight.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            smol::Timer::after(Duration::from_millis(10)).await;
        }
    })
    .await;
    let left = in_flight.load(Ordering::SeqCst);
    if left > 0 {
        tracing::warn!(
            abandoned = left,
            "drain timeout reached; dropping requests still in flight"
        );
    }
    drop(ex);
    tracing::info!("stopped");
    Ok(())
}
