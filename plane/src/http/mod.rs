//! The HTTP adapter: HTTP/1.1 through hyper's server connection on smol, the plane's router and
//! the REST API.
//!
//! **Invariant:** every type of the HTTP wire (heads, bodies, connections, `httparse`) stays
//! inside this module. The service layer ([`crate::service`]) receives a framework-free
//! [`RequestMeta`] and typed requests of [`crate::api`], and returns typed answers or
//! [`ApiError`]s.
//!
//! The pieces:
//! * [`wire`] — the rules a request head is held to, as pure functions (RFC 9112's answer to
//!   every malformed head: 400, 405, 408, 413, 414, 417, 431, 501, 505);
//! * [`server`] — one connection on hyper (`hyper::server::conn::http1`): the plane's requests
//!   and answers, bodies bounded, upgrades handed back as the raw socket; `edge` — the socket
//!   under hyper: deadlines on heads, bodies and answers, the minimum rate, the spec's error
//!   body on hyper's own refusals, lingering close;
//! * this file — the accept loop (caps on not-upgraded connections per client address and in
//!   all, with places reserved for new addresses and for requests with a valid credential: see
//!   [`FEW_CONNS_PER_IP`] and the policy beside it; `TCP_NODELAY`), graceful shutdown (stop accepting, close node links with 1000, let
//!   requests in flight finish within a bound), the router (404, and 405 with `Allow`), the
//!   checks every request meets ([`crate::service::Guard::guard_admin_surface`] before routing,
//!   [`crate::service::Guard::guard_origin`] once an operation is found), one error body for every failure
//!   (a panicking handler included), and a log line and the metrics per request (method, route
//!   template, path, status, request id, duration; never a header value, query or body);
//! * [`app`] — the embedded browser app at `/`;
//! * [`routes`] — the REST routes, declared once: that list mounts the handlers and generates
//!   the OpenAPI document ([`openapi`], served at `/api/openapi.json`); [`handler`] — how a
//!   handler's types parse and document a request; [`docs`] — the reference at `/docs`;
//!   [`install`] — the node installer at `/install.sh`; [`ws`] — the node WebSocket upgrade.
//!
//! Why hyper's connection and no framework: tide (and its HTTP stack async-h1) answered several
//! malformed requests with silence, accepted conflicting `Content-Length`s, had no body or write
//! deadlines, and its router panicked on long percent-encoded parameters; hyper's HTTP/1.1
//! connection does the protocol well and leaves the rest to the `edge` wrapper and the plane's
//! own router; see `docs/design-notes.md`.

mod app;
mod callers;
mod docs;
mod edge;
mod gzip;
mod handler;
mod install;
mod live;
mod openapi;
mod ops;
mod router;
mod routes;
mod schema;
pub mod server;
mod terminal;
pub mod wire;
mod ws;

use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_lite::FutureExt;

use crate::error::ApiError;
use crate::net::Cidr;
use crate::secret;
use crate::service::{RequestMeta, Services};
use handler::{AnswerBody, BoxFut, Call};
use router::{Lookup, Router, Target};
use server::{Body, Limits, Request, Response};
use wire::{Method, Refusal};

pub use ops::serve_metrics;

/// Default [`HttpOptions::header_timeout`].
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Default [`HttpOptions::io_timeout`].
pub const DEFAULT_IO_TIMEOUT: Duration = Duration::from_secs(10);
/// Default [`HttpOptions::body_timeout`].
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// Default [`HttpOptions::min_send_rate`] (bytes per second).
pub const DEFAULT_MIN_SEND_RATE: u64 = 1024;
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
    /// previous answer).
    pub header_timeout: Duration,
    /// Longest a read of a body or a write of an answer may wait for progress.
    pub io_timeout: Duration,
    /// Time allowed for a whole request body.
    pub body_timeout: Duration,
    /// Slowest average rate (bytes per second) an answer may be read at, and a request body may
    /// arrive at, once `io_timeout` has passed.
    pub min_send_rate: u64,
    /// Most open not-upgraded connections from one client address that have shown no valid
    /// credential.
    pub max_conns_per_ip: usize,
    /// Most open not-upgraded connections in all (a quarter of them reserved: see
    /// [`FEW_CONNS_PER_IP`]).
    pub max_conns: usize,
    /// Reverse proxies whose `X-Forwarded-For` names the client (see [`crate::net`]).
    pub trusted_proxies: Vec<Cidr>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            body_limit: crate::config::DEFAULT_BODY_LIMIT,
            drain_timeout: Duration::from_secs(10),
            panic_route: false,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            io_timeout: DEFAULT_IO_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            min_send_rate: DEFAULT_MIN_SEND_RATE,
            max_conns_per_ip: DEFAULT_MAX_CONNS_PER_IP,
            max_conns: DEFAULT_MAX_CONNS,
            trusted_proxies: Vec::new(),
        }
    }
}

impl HttpOptions {
    fn limits(&self) -> Limits {
        Limits {
            body_limit: self.body_limit,
            header_timeout: self.header_timeout,
            io_timeout: self.io_timeout,
            body_timeout: self.body_timeout,
            min_send_rate: self.min_send_rate,
        }
    }
}

// ----- the application -----

struct Ctx {
    svc: Arc<Services>,
    routes: Vec<routes::RouteDef>,
    /// The answers of the routes made once, by route index.
    kept: Vec<std::sync::OnceLock<gzip::Encoded>>,
    router: Router,
    trusted_proxies: Vec<Cidr>,
}

/// Per-request facts handlers outside the REST list need.
#[derive(Clone)]
struct ReqInfo {
    req_id: String,
    meta: RequestMeta,
}

fn new_req_id() -> String {
    secret::random_bytes::<8>()
        .map(|b| secret::hex_lower(&b))
        .unwrap_or_else(|_| "0".repeat(16))
}

/// The spec's error body for `e`, logged with a fresh `errId`.
fn error_response(e: &ApiError, req_id: &str) -> Response {
    let err_id = new_req_id();
    if e.status >= 500 {
        tracing::error!(err_id = %err_id, req_id = %req_id, code = e.code, "request failed");
    } else {
        tracing::debug!(err_id = %err_id, req_id = %req_id, code = e.code, "request refused");
    }
    let body = e.body(err_id, Some(req_id.to_owned()));
    let mut res = Response::bytes(
        e.status,
        "application/json",
        serde_json::to_vec(&body).unwrap_or_default(),
    );
    if matches!(e.status, 429 | 503)
        && let Some(ms) = e
            .metadata
            .as_ref()
            .and_then(|m| m.get("retryAfterMs"))
            .and_then(serde_json::Value::as_i64)
    {
        res.set_header("retry-after", ((ms + 999) / 1000).max(1).to_string());
    }
    res
}

fn meta_of(
    head: &wire::Head,
    peer: SocketAddr,
    cookie_name: &str,
    trusted: &[Cidr],
) -> RequestMeta {
    let session_cookie = head
        .all("cookie")
        .flat_map(|h| h.split(';'))
        .find_map(|pair| {
            let (n, v) = pair.trim().split_once('=')?;
            (n == cookie_name).then(|| v.to_owned())
        });
    let client = crate::net::client_ip(peer.ip(), head.all("x-forwarded-for"), trusted);
    RequestMeta {
        method: head.method.as_str().to_owned(),
        path: head.path.clone(),
        authorization: head.all("authorization").map(str::to_owned).collect(),
        session_cookie,
        origin: head.one("origin").map(str::to_owned),
        sec_fetch_site: head.one("sec-fetch-site").map(str::to_owned),
        host: head.one("host").map(str::to_owned),
        peer_ip: client.to_string(),
    }
}

impl Ctx {
    /// Answers a request, with the route label it is counted and logged under (the matched
    /// template, never the raw path).
    async fn dispatch(self: Arc<Self>, req: Request, info: ReqInfo) -> (Response, &'static str) {
        let found = self.router.find(req.head.method, &req.head.path);
        let route = match &found {
            Lookup::Found(_, _, template) => template,
            _ if req.head.path.starts_with("/assets/") => ops::APP_ASSET,
            _ => ops::UNMATCHED,
        };
        if let Lookup::Found(..) = found
            && let Err(e) = self.svc.guard().guard_origin(&info.meta)
        {
            return (error_response(&e, &info.req_id), route);
        }
        (self.answer(found, req, info).await, route)
    }

    async fn answer(self: Arc<Self>, found: Lookup, req: Request, info: ReqInfo) -> Response {
        match found {
            Lookup::Found(Target::Rest(i), params, _) => {
                let route = &self.routes[i];
                let ok = route.ok;
                let made_once = route.made_once;
                let accepts_gzip = gzip::accepted(&req.head);
                if made_once && let Some(kept) = self.kept[i].get() {
                    return kept.answer(accepts_gzip, "application/json");
                }
                let call = Call {
                    meta: info.meta.clone(),
                    params,
                    query: req.head.query,
                    body: req.body,
                };
                match (route.handler)(self.svc.clone(), call).await {
                    Ok(handler::Answer {
                        body: AnswerBody::Json(bytes),
                        ..
                    }) if made_once => {
                        // Compressed off the executor, once; a request that raced this one
                        // to it keeps whichever copy was kept first.
                        let made = smol::unblock(move || gzip::Encoded::new(bytes)).await;
                        self.kept[i]
                            .get_or_init(|| made)
                            .answer(accepts_gzip, "application/json")
                    }
                    Ok(answer) => render(ok, answer),
                    Err(e) => error_response(&e, &info.req_id),
                }
            }
            Lookup::Found(Target::Raw(h), params, _) => h(self.clone(), req, info, params).await,
            Lookup::NotAllowed(allowed) => {
                let mut res = error_response(
                    &ApiError::new(
                        405,
                        "METHOD_NOT_ALLOWED",
                        "method not allowed on this route",
                    ),
                    &info.req_id,
                );
                let list: Vec<&str> = allowed.iter().map(|m| m.as_str()).collect();
                res.set_header("allow", list.join(", "));
                res
            }
            Lookup::NoSuchPath => {
                if req.head.method == Method::Get
                    && let Some(res) = app::fallback(&req, &info.req_id)
                {
                    return res;
                }
                if app::is_operator_path(&req.head.path) {
                    return ops::plain_not_found();
                }
                error_response(&ApiError::not_found("route"), &info.req_id)
            }
            Lookup::BadPath(why) => {
                error_response(&ApiError::new(400, "BAD_REQUEST", why), &info.req_id)
            }
        }
    }
}

fn render(ok: u16, answer: handler::Answer) -> Response {
    let mut res = match answer.body {
        AnswerBody::Empty => Response {
            status: ok,
            headers: Vec::new(),
            body: Body::Empty,
            upgrade: None,
            close: false,
        },
        AnswerBody::Json(bytes) => Response::bytes(ok, "application/json", bytes),
        AnswerBody::Bytes {
            content_type,
            bytes,
        } => Response::bytes(ok, content_type, bytes),
        AnswerBody::File { path, len } => Response {
            status: ok,
            headers: Vec::new(),
            body: Body::File { path, len },
            upgrade: None,
            close: false,
        },
    };
    for (n, v) in answer.headers {
        res.set_header(&n, v);
    }
    res
}

/// Headers every answer carries.
fn finish(res: &mut Response, req_id: &str) {
    res.set_header("x-request-id", req_id);
    if res.header("cache-control").is_none() {
        res.set_header("cache-control", "no-store");
    }
    res.set_header("referrer-policy", "no-referrer");
    res.set_header("x-content-type-options", "nosniff");
}

/// The application as the server calls it.
struct AppRef(Arc<Ctx>);

impl server::App for AppRef {
    fn handle(&self, req: Request) -> BoxFut<Response> {
        let ctx = self.0.clone();
        Box::pin(async move {
            let started = Instant::now();
            let req_id = new_req_id();
            let meta = meta_of(
                &req.head,
                req.peer,
                ctx.svc.settings().cookie_name(),
                &ctx.trusted_proxies,
            );
            let (method, path) = (meta.method.clone(), meta.path.clone());
            let info = ReqInfo {
                req_id: req_id.clone(),
                meta: meta.clone(),
            };
            let verb = req.head.method.as_str();
            let is_app_get = req.head.method == Method::Get && app::is_app_route(&path);
            let (mut res, route) = match ctx.svc.guard().guard_admin_surface(&meta) {
                Err(e) => (error_response(&e, &req_id), ops::UNMATCHED),
                Ok(()) => match AssertUnwindSafe(ctx.clone().dispatch(req, info))
                    .catch_unwind()
                    .await
                {
                    Ok((res, route))
                        if route == ops::UNMATCHED && is_app_get && res.status == 200 =>
                    {
                        (res, ops::APP_PAGE)
                    }
                    Ok(answered) => answered,
                    Err(_) => {
                        tracing::error!(req_id = %req_id, "handler panicked");
                        (
                            error_response(&ApiError::internal(), &req_id),
                            ops::UNMATCHED,
                        )
                    }
                },
            };
            finish(&mut res, &req_id);
            let took = started.elapsed();
            ctx.svc
                .health()
                .metrics()
                .http_request(verb, route, res.status, took);
            tracing::info!(
                method = %method,
                route,
                path = %path,
                status = res.status,
                req_id = %req_id,
                ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
                "request"
            );
            res
        })
    }

    fn refuse(&self, refusal: &Refusal, peer: SocketAddr) -> Response {
        let req_id = new_req_id();
        let e = ApiError::new(refusal.status, refusal.code, refusal.message.clone());
        let mut res = error_response(&e, &req_id);
        finish(&mut res, &req_id);
        self.0.svc.health().metrics().http_request(
            "(unread)",
            ops::REFUSED,
            refusal.status,
            std::time::Duration::ZERO,
        );
        tracing::info!(peer = %peer, status = refusal.status, req_id = %req_id, reason = %refusal.message, "request refused before routing");
        res
    }

    fn vouch(&self, head: &wire::Head, peer: SocketAddr) -> BoxFut<bool> {
        let ctx = &self.0;
        let meta = meta_of(
            head,
            peer,
            ctx.svc.settings().cookie_name(),
            &ctx.trusted_proxies,
        );
        if meta.authorization.is_empty() && meta.session_cookie.is_none() {
            return Box::pin(async { false });
        }
        let svc = ctx.svc.clone();
        Box::pin(async move { svc.guard().vouches_for(&meta).await })
    }
}

// ----- handlers outside the REST list -----

#[allow(clippy::panic)]
fn panicking(
    _: Arc<Ctx>,
    _: Request,
    _: ReqInfo,
    _: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async { panic!("deliberate panic for the 500 path") })
}

/// Builds the application: the REST list, then the other endpoints.
fn app(svc: Arc<Services>, opts: &HttpOptions) -> Arc<Ctx> {
    let routes = routes::routes();
    let router = router(&routes, opts.panic_route);
    Arc::new(Ctx {
        svc,
        kept: routes.iter().map(|_| std::sync::OnceLock::new()).collect(),
        routes,
        router,
        trusted_proxies: opts.trusted_proxies.clone(),
    })
}

/// The router of every endpoint: the REST list (`routes`, by index), then the others.
fn router(routes: &[routes::RouteDef], panic_route: bool) -> Router {
    let mut router = Router {
        entries: Vec::new(),
    };
    // Every REST route comes from the one list in `routes/`, which also produces the OpenAPI
    // document: add REST routes there, not here.
    for (i, r) in routes.iter().enumerate() {
        router.add(r.method, r.path, Target::Rest(i));
    }
    // The browser app: its page at `/` (and, through the 404 fallback, at its own routes).
    router.add(Method::Get, "/", Target::Raw(app::index));
    docs::mount(&mut router);
    // The node installer (a shell script, not JSON).
    install::mount(&mut router);
    // The operator's endpoints: liveness, readiness, metrics (see `ops`).
    router.add(Method::Get, "/healthz", Target::Raw(ops::healthz));
    router.add(Method::Get, "/readyz", Target::Raw(ops::readyz));
    router.add(Method::Get, "/metrics", Target::Raw(ops::metrics));
    // The live node link (a WebSocket upgrade, not a REST route).
    router.add(Method::Get, "/ws/node", Target::Raw(ws::node_socket));
    router.add(Method::Get, "/ws/replica", Target::Raw(ws::replica_socket));
    // The terminal WebSocket (an upgrade; its frames are on the `/docs/terminal` page).
    router.add(
        Method::Get,
        "/api/subshells/:id/attach",
        Target::Raw(terminal::attach_socket),
    );
    // The whole-user live feed (an upgrade too).
    router.add(Method::Get, "/api/live", Target::Raw(live::live_socket));
    if panic_route {
        router.add(Method::Get, "/api/__test/panic", Target::Raw(panicking));
    }
    router
}

/// Where the plane's router sends a request (see [`route`]).
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Routed {
    /// The template of the endpoint that serves it, and the parameters the path gives it.
    Found(&'static str, Vec<(&'static str, String)>),
    /// The path exists for these methods only (405).
    NotAllowed(Vec<Method>),
    /// No endpoint has the path (404, or the browser app's fallback).
    NoSuchPath,
    /// The path does not decode (400).
    BadPath(&'static str),
}

fn whole_router() -> &'static Router {
    static ROUTER: std::sync::OnceLock<Router> = std::sync::OnceLock::new();
    ROUTER.get_or_init(|| router(&routes::routes(), false))
}

/// Routes `method` and `path` (still percent-encoded) through the plane's router, as a request
/// would be. Public for the fuzz targets.
#[doc(hidden)]
#[must_use]
pub fn route(method: Method, path: &str) -> Routed {
    match whole_router().find(method, path) {
        Lookup::Found(_, params, template) => Routed::Found(template, params),
        Lookup::NotAllowed(m) => Routed::NotAllowed(m),
        Lookup::NoSuchPath => Routed::NoSuchPath,
        Lookup::BadPath(why) => Routed::BadPath(why),
    }
}

/// Every endpoint's method and path template (`:name` marks a parameter), in the router's
/// order. Public for the fuzz targets.
#[doc(hidden)]
#[must_use]
pub fn route_table() -> Vec<(Method, &'static str)> {
    whole_router()
        .entries
        .iter()
        .map(|e| (e.method(), e.template()))
        .collect()
}

// ----- connections -----

/// Counts requests in flight (for the shutdown drain).
struct InFlight(Arc<Requests>);

/// The requests being handled now, and the word that the last one ended (the shutdown's drain
/// waits on it).
#[derive(Default)]
struct Requests {
    count: AtomicUsize,
    none_left: event_listener::Event,
}

impl Requests {
    fn now(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// Waits until no request is in flight, or until `deadline`.
    async fn drained(&self, deadline: Instant) {
        loop {
            let none_left = self.none_left.listen();
            if self.now() == 0 {
                return;
            }
            if crate::wait::until(deadline, none_left).await.is_none() {
                return;
            }
        }
    }
}

impl server::Activity for InFlight {
    fn begin(&self) {
        self.0.count.fetch_add(1, Ordering::SeqCst);
    }
    fn end(&self) {
        if self.0.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.none_left.notify(usize::MAX);
        }
    }
}

/// Below this many connections an address counts as holding few: it may take the newcomers'
/// reserve, and it is how many connections one address may hold on trial.
pub const FEW_CONNS_PER_IP: usize = 8;

/// The places of not-upgraded connections, and who may take which.
///
/// A connection is *unproven* until one of its request heads carries a credential the plane
/// accepts (a session cookie, a system key, a pane's token, a node key), then *proven* for the
/// rest of its life. Of the [`HttpOptions::max_conns`] places:
///
/// * the **open share** (three quarters) takes any unproven connection, at most
///   [`HttpOptions::max_conns_per_ip`] from one address;
/// * the **newcomers' reserve** (an eighth) takes, once the open share is full, an unproven
///   connection from an address holding fewer than [`FEW_CONNS_PER_IP`] (still within the
///   per-address cap): a new client is served however many connections a few busy addresses
///   hold;
/// * the **credential reserve** (the last eighth) is never given to unproven connections. A
///   connection that no other place admits is taken *on trial* (at most [`FEW_CONNS_PER_IP`]
///   per address) while any place is free: its first request head must come within
///   [`server::TRIAL_HEAD_TIMEOUT`] and carry a credential, else it is answered 503
///   `PLANE_BUSY` and closed. So a signed-in person, a script with its key or a node always
///   gets through, even from an address that is flooding the plane.
///
/// A proven connection leaves the unproven counts (its address's and the shares'), so people
/// behind one NAT are limited by the places in all, not by the per-address cap. A trusted
/// reverse proxy carries every client's connections: the per-address caps (unproven and on
/// trial) do not apply to it.
///
/// Slow clients cannot keep their places for long either: a request head has the header
/// timeout, and a body must keep at least [`HttpOptions::min_send_rate`] bytes per second on
/// average after a grace of [`HttpOptions::io_timeout`] (see [`server`]). What this does not
/// stop is a flood from many addresses each holding few connections: it can fill the open
/// share and the newcomers' reserve, and the credential reserve is what then still serves.
struct Places {
    max: usize,
    per_ip: usize,
    /// Unproven connections above this many take only newcomers.
    open_share: usize,
    /// Unproven connections never exceed this many (the rest is the credential reserve).
    unproven_cap: usize,
    proxies: Vec<Cidr>,
    counts: std::sync::Mutex<PlaceCounts>,
    /// Told the counts after every change (the `termplane_http_connections` gauges).
    metrics: Option<Arc<crate::metrics::Metrics>>,
}

#[derive(Default)]
struct PlaceCounts {
    unproven: usize,
    trials: usize,
    proven: usize,
    by_ip: std::collections::HashMap<IpAddr, ByIp>,
}

impl PlaceCounts {
    fn total(&self) -> usize {
        self.unproven + self.trials + self.proven
    }
}

/// An address's unproven connections and connections on trial (an address with neither is
/// forgotten).
#[derive(Clone, Copy, Default)]
struct ByIp {
    unproven: usize,
    trials: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Unproven,
    Trial,
    Proven,
}

/// One connection's place; given back on drop (the connection ended or became a WebSocket).
struct Place {
    places: Arc<Places>,
    ip: IpAddr,
    class: Class,
}

impl Places {
    fn new(opts: &HttpOptions) -> Self {
        let reserve = opts.max_conns / 8;
        Self {
            max: opts.max_conns,
            per_ip: opts.max_conns_per_ip,
            open_share: opts.max_conns - 2 * reserve,
            unproven_cap: opts.max_conns - reserve,
            proxies: opts.trusted_proxies.clone(),
            counts: std::sync::Mutex::default(),
            metrics: None,
        }
    }

    /// As [`Places::new`], keeping the `termplane_http_connections` gauges of `metrics`.
    fn counted(opts: &HttpOptions, metrics: Arc<crate::metrics::Metrics>) -> Self {
        Self {
            metrics: Some(metrics),
            ..Self::new(opts)
        }
    }

    /// Sets the gauges from `c` (called with the counts' lock held, so the gauges move in the
    /// order the counts did).
    fn report(&self, c: &PlaceCounts) {
        if let Some(m) = &self.metrics {
            #[allow(clippy::cast_precision_loss)]
            for (class, n) in [
                ("unproven", c.unproven),
                ("trial", c.trials),
                ("proven", c.proven),
            ] {
                m.set_gauge_with("termplane_http_connections", "class", class, n as f64);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PlaceCounts> {
        self.counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A place for a new connection from `ip`, or `None` (answered 503 at once).
    fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Place> {
        let mut c = self.lock();
        if c.total() >= self.max {
            return None;
        }
        let proxy = self.proxies.iter().any(|r| r.contains(ip));
        let here = c.by_ip.get(&ip).copied().unwrap_or_default();
        let under_ip_cap = proxy || here.unproven < self.per_ip;
        let share = if c.unproven < self.open_share {
            true
        } else {
            here.unproven < FEW_CONNS_PER_IP && c.unproven < self.unproven_cap
        };
        let class = if under_ip_cap && share {
            c.unproven += 1;
            c.by_ip.entry(ip).or_default().unproven += 1;
            Class::Unproven
        } else if proxy || here.trials < FEW_CONNS_PER_IP {
            c.trials += 1;
            c.by_ip.entry(ip).or_default().trials += 1;
            Class::Trial
        } else {
            return None;
        };
        self.report(&c);
        Some(Place {
            places: self.clone(),
            ip,
            class,
        })
    }
}

impl PlaceCounts {
    /// Takes one connection of `class` from `ip` off the counts.
    fn release(&mut self, ip: IpAddr, class: Class) {
        let by_ip = |c: &mut Self, f: fn(&mut ByIp)| {
            if let Some(n) = c.by_ip.get_mut(&ip) {
                f(n);
                if n.unproven == 0 && n.trials == 0 {
                    c.by_ip.remove(&ip);
                }
            }
        };
        match class {
            Class::Unproven => {
                self.unproven = self.unproven.saturating_sub(1);
                by_ip(self, |n| n.unproven = n.unproven.saturating_sub(1));
            }
            Class::Trial => {
                self.trials = self.trials.saturating_sub(1);
                by_ip(self, |n| n.trials = n.trials.saturating_sub(1));
            }
            Class::Proven => self.proven = self.proven.saturating_sub(1),
        }
    }
}

impl server::Admission for Place {
    fn on_trial(&self) -> bool {
        self.class == Class::Trial
    }
    fn proven(&self) -> bool {
        self.class == Class::Proven
    }
    fn prove(&mut self) {
        if self.class == Class::Proven {
            return;
        }
        let mut c = self.places.lock();
        c.release(self.ip, self.class);
        c.proven += 1;
        self.class = Class::Proven;
        self.places.report(&c);
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut c = self.places.lock();
        c.release(self.ip, self.class);
        self.places.report(&c);
    }
}

async fn accept_loop(
    listener: &smol::net::TcpListener,
    ex: &Arc<smol::Executor<'static>>,
    app: &Arc<AppRef>,
    in_flight: &Arc<Requests>,
    opts: &HttpOptions,
) {
    let places = Arc::new(Places::counted(opts, app.0.svc.health().metrics().clone()));
    let limits = opts.limits();
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                smol::Timer::after(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(place) = places.admit(peer.ip()) else {
            tracing::debug!(peer = %peer, "connection cap reached; closing");
            refuse_over_cap(&stream).await;
            let _ = stream.shutdown(std::net::Shutdown::Both);
            continue;
        };
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set");
        }
        let app = app.clone();
        let activity: Arc<dyn server::Activity> = Arc::new(InFlight(in_flight.clone()));
        ex.spawn(async move {
            server::serve_connection(stream, peer, app, limits, activity, Box::new(place)).await;
        })
        .detach();
    }
}

/// Tells a connection over the caps why it is closed: a 503 `PLANE_BUSY` with the API's error
/// body and `Retry-After`, written in one attempt that never waits (a fresh socket's buffer
/// takes it; a client that cannot is closed all the same), so a refused client reads an answer
/// instead of a bare close.
async fn refuse_over_cap(stream: &smol::net::TcpStream) {
    // A handle of the same socket (smol's streams are clones of one `Async<TcpStream>`).
    let mut s = stream.clone();
    let e = crate::error::ApiError::new(
        503,
        "PLANE_BUSY",
        "too many connections are open from this address, or in all; try again shortly",
    );
    let body = serde_json::to_vec(&e.body(new_req_id(), None)).unwrap_or_default();
    let mut answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(&body);
    let _ =
        futures_lite::future::poll_once(futures_lite::AsyncWriteExt::write_all(&mut s, &answer))
            .await;
}

/// Network plugins' listeners: each serves the same application on its own accept loop (its own
/// connection caps) on the server's executor, until stopped or the server stops.
struct ExtraListeners {
    ex: Arc<smol::Executor<'static>>,
    app: Arc<AppRef>,
    in_flight: Arc<Requests>,
    opts: HttpOptions,
}

impl crate::service::network::ListenerHost for ExtraListeners {
    fn start(
        &self,
        addr: SocketAddr,
    ) -> Result<(SocketAddr, crate::service::network::StopListener), String> {
        let std_listener = std::net::TcpListener::bind(addr).map_err(|e| e.to_string())?;
        let bound = std_listener.local_addr().map_err(|e| e.to_string())?;
        let listener = smol::net::TcpListener::try_from(std_listener).map_err(|e| e.to_string())?;
        let (stop_tx, stop_rx) = smol::channel::bounded::<()>(1);
        let (ex, app, in_flight, opts) = (
            self.ex.clone(),
            self.app.clone(),
            self.in_flight.clone(),
            self.opts.clone(),
        );
        self.ex
            .spawn(async move {
                accept_loop(&listener, &ex, &app, &in_flight, &opts)
                    .or(async {
                        let _ = stop_rx.recv().await;
                    })
                    .await;
                tracing::info!(address = %bound, "network plugin stopped listening");
            })
            .detach();
        let stop = crate::service::network::StopListener(Box::new(move || {
            stop_tx.close();
        }));
        Ok((bound, stop))
    }
}

/// The OpenAPI document a plane with `settings` serves at `/api/openapi.json`: the REST API of
/// this build (its route table), with `settings`' base URL as the server and its session
/// cookie's name.
#[must_use]
pub fn openapi_document(settings: &crate::service::Settings) -> serde_json::Value {
    openapi::document(
        &routes::routes(),
        &settings.base_url,
        settings.cookie_name(),
    )
    .for_push_settings(settings.push_http, settings.push_private)
    .0
}

/// Serves `svc` on `listener` until `shutdown` completes, then stops accepting, closes the node
/// links, waits up to `opts.drain_timeout` for requests in flight and drops the remaining
/// connections.
pub async fn serve(
    listener: smol::net::TcpListener,
    svc: Arc<Services>,
    opts: HttpOptions,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let svc_links = svc.clone();
    let app = Arc::new(AppRef(app(svc.clone(), &opts)));
    let ex: Arc<smol::Executor<'static>> = Arc::new(smol::Executor::new());
    svc.terminals().attach_socket_executor(&ex);
    let in_flight = Arc::new(Requests::default());
    let host = Arc::new(ExtraListeners {
        ex: ex.clone(),
        app: app.clone(),
        in_flight: in_flight.clone(),
        opts: opts.clone(),
    });
    // `run` polls its future each time one of the executor's tasks is scheduled (a keystroke,
    // an echo); the listener and the signal pipe are asked again only when they were woken.
    ex.run(crate::wait::when_woken(
        async {
            svc.network().attach_listener_host(host).await;
            svc.health().set_listening(true);
            accept_loop(&listener, &ex, &app, &in_flight, &opts).await;
        }
        .or(shutdown),
    ))
    .await;
    svc.health().set_listening(false);
    drop(listener);
    let links = svc_links.links();
    links.begin_shutdown();
    // Node links close with 1000; terminal sockets and live feeds with 1001 (see
    // `Services::close_sockets_for_shutdown`), both at once.
    let (open, sockets) = ex
        .run(futures_lite::future::zip(
            links.wait_closed(opts.drain_timeout),
            svc_links
                .terminals()
                .close_sockets_for_shutdown(opts.drain_timeout),
        ))
        .await;
    tracing::info!(still_open = open, "node links closed");
    tracing::info!(
        still_open = sockets,
        "terminal sockets and live feeds closed"
    );
    let pending = in_flight.now();
    tracing::info!(
        in_flight = pending,
        "shutting down: no longer accepting connections"
    );
    let deadline = Instant::now() + opts.drain_timeout;
    ex.run(in_flight.drained(deadline)).await;
    // No request writes a piece any more: uploads the local node has under way are undone.
    svc_links.local_node_stopping();
    // Commands forwarded from this replica were answered or ended with the drain.
    svc_links.peers().stop();
    let left = in_flight.now();
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::server::Admission;
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    fn places(max: usize, per_ip: usize, proxies: &[&str]) -> Arc<Places> {
        Arc::new(Places::new(&HttpOptions {
            max_conns: max,
            max_conns_per_ip: per_ip,
            trusted_proxies: proxies.iter().map(|c| Cidr::parse(c).unwrap()).collect(),
            ..HttpOptions::default()
        }))
    }

    #[test]
    fn shares_fill_in_order_open_then_newcomers_then_credentials_only() {
        // 32 places: 24 open, 4 for newcomers, 4 for credentials.
        let p = places(32, 12, &[]);
        let mut held: Vec<Place> = Vec::new();
        for i in 0..24 {
            held.push(p.admit(ip(1 + u8::try_from(i % 2).unwrap())).unwrap());
        }
        assert!(held.iter().all(|h| h.class == Class::Unproven));
        // The open share is full: the two busy addresses get trials only.
        let t = p.admit(ip(1)).unwrap();
        assert!(t.on_trial());
        drop(t);
        // New addresses take the newcomers' reserve, up to its end.
        for i in 0..4 {
            let n = p.admit(ip(10 + i)).unwrap();
            assert_eq!(n.class, Class::Unproven, "newcomer {i}");
            held.push(n);
        }
        assert!(p.admit(ip(20)).unwrap().on_trial());
        // The credential reserve takes trials only, until every place is taken.
        let mut trials: Vec<Place> = (0..4).map(|i| p.admit(ip(30 + i)).unwrap()).collect();
        assert!(trials.iter().all(Admission::on_trial));
        assert!(p.admit(ip(40)).is_none(), "every place is taken");
        // A trial that shows a credential keeps its place; the others' end frees theirs.
        trials[0].prove();
        assert!(trials[0].proven() && !trials[0].on_trial());
        trials.truncate(1);
        let c = p.lock();
        assert_eq!((c.unproven, c.trials, c.proven), (28, 0, 1));
    }

    #[test]
    fn one_address_holds_at_most_a_few_connections_on_trial() {
        let p = places(64, 2, &[]);
        let held: Vec<Place> = (0..2).map(|_| p.admit(ip(1)).unwrap()).collect();
        let trials: Vec<Place> = (0..FEW_CONNS_PER_IP)
            .map(|_| p.admit(ip(1)).unwrap())
            .collect();
        assert!(trials.iter().all(Admission::on_trial));
        assert!(p.admit(ip(1)).is_none());
        assert_eq!(p.admit(ip(2)).unwrap().class, Class::Unproven);
        drop((held, trials));
    }

    #[test]
    fn a_proven_connection_leaves_its_address_count_and_every_place_is_given_back() {
        let p = places(64, 2, &[]);
        let mut a = p.admit(ip(1)).unwrap();
        let b = p.admit(ip(1)).unwrap();
        // The address is at its cap of unproven connections: a third is on trial.
        let t = p.admit(ip(1)).unwrap();
        assert!(t.on_trial());
        drop(t);
        a.prove();
        let c = p.admit(ip(1)).unwrap();
        assert_eq!(c.class, Class::Unproven);
        drop((a, b, c));
        let counts = p.lock();
        assert_eq!(counts.total(), 0);
        assert!(
            counts.by_ip.is_empty(),
            "an address with nothing open is forgotten"
        );
    }

    #[test]
    fn a_trusted_proxy_has_no_per_address_caps() {
        let p = places(64, 2, &["10.0.0.1/32"]);
        let held: Vec<Place> = (0..48).map(|_| p.admit(ip(1)).unwrap()).collect();
        assert!(held.iter().all(|h| h.class == Class::Unproven));
        // Beyond the open share, the proxy's connections are on trial, as many as places remain.
        let trials: Vec<Place> = (0..16).map(|_| p.admit(ip(1)).unwrap()).collect();
        assert!(trials.iter().all(Admission::on_trial));
        assert!(p.admit(ip(1)).is_none());
    }
}
