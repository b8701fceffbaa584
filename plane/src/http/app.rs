//! The browser app, embedded into the binary at compile time.
//!
//! `plane/ui` builds a single-page app with Vite into `plane/ui/dist`; `build.rs` lists every
//! file of it with its content type and a gzip copy. This module serves them:
//!
//! * `index.html` at `/` and at every other `GET` path outside `/api/`, `/docs`, `/ws/`,
//!   `/assets/` and the operator's `/metrics`, `/healthz` and `/readyz` (the app's own routes, such as `/subshells/…`, are resolved in the browser), with
//!   `Cache-Control: no-cache` so a new release is picked up on the next load;
//! * `/assets/<name>` — files whose names carry a content hash — cacheable for a year
//!   (`immutable`); an unknown asset is a 404 error body, never the app's page;
//! * other files at the top of `dist` (an icon, say) for an hour.
//!
//! A client that accepts gzip gets the compressed copy (`Vary: Accept-Encoding`). The app's
//! Content-Security-Policy allows scripts, connections and fonts from this plane only; inline
//! styles are allowed because the terminal renderer sets them at run time.

use std::sync::Arc;

use super::handler::BoxFut;
use super::server::{Request, Response, Shared};
use super::{Ctx, ReqInfo, error_response, gzip};
use crate::error::ApiError;

include!(concat!(env!("OUT_DIR"), "/app_assets.rs"));

/// The app page's policy: only this plane, inline styles allowed (see the module's docs).
pub(crate) const APP_CSP: &str = "default-src 'self'; script-src 'self'; \
    style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; \
    connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
    frame-ancestors 'none'";

const HASHED_CACHE: &str = "public, max-age=31536000, immutable";
const TOP_CACHE: &str = "public, max-age=3600";

/// The operator's prefixes: probes and the scraper, never the app's page.
const OPERATOR_PREFIXES: [&str; 3] = ["/metrics", "/healthz", "/readyz"];

fn under(path: &str, prefix: &str) -> bool {
    path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Whether `path` lies under one of the operator's prefixes (`/metrics`, `/healthz`,
/// `/readyz`).
pub(super) fn is_operator_path(path: &str) -> bool {
    OPERATOR_PREFIXES.iter().any(|p| under(path, p))
}

/// Whether `path` belongs to the app (its page answers it) rather than to the API, the
/// reference, the node link, the hashed assets or the operator's endpoints.
pub(super) fn is_app_route(path: &str) -> bool {
    let reserved = ["/api", "/docs", "/ws", "/assets"];
    !reserved.iter().any(|r| under(path, r)) && !is_operator_path(path)
}

fn file(name: &str) -> Option<&'static (&'static str, &'static str, &'static [u8], &'static [u8])> {
    APP_ASSETS.iter().find(|(n, ..)| *n == name)
}

fn serve(req: &Request, name: &str, cache: &str) -> Option<Response> {
    let (_, content_type, bytes, gz) = file(name)?;
    let mut res = gzip::answer(
        gzip::accepted(&req.head),
        content_type,
        Shared::Static(bytes),
        Shared::Static(gz),
    );
    res.set_header("cache-control", cache);
    res.set_header("content-security-policy", APP_CSP);
    res.set_header("x-frame-options", "DENY");
    Some(res)
}

/// The answer to an app route: the page.
pub(super) fn page(req: &Request, req_id: &str) -> Response {
    serve(req, "index.html", "no-cache")
        .unwrap_or_else(|| error_response(&ApiError::not_found("page"), req_id))
}

/// The answer to a `GET` the router does not know: a file of the app, the app's page for its
/// own routes, or `None` (the caller answers 404).
pub(super) fn fallback(req: &Request, req_id: &str) -> Option<Response> {
    let path = req.head.path.as_str();
    if let Some(name) = path.strip_prefix("/assets/") {
        return serve(req, &format!("assets/{name}"), HASHED_CACHE);
    }
    if !is_app_route(path) {
        return None;
    }
    let top = path.trim_start_matches('/');
    if !top.is_empty()
        && !top.contains('/')
        && top != "index.html"
        && let Some(res) = serve(req, top, TOP_CACHE)
    {
        return Some(res);
    }
    Some(page(req, req_id))
}

/// `GET /`.
pub(super) fn index(
    _: Arc<Ctx>,
    req: Request,
    info: ReqInfo,
    _: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async move { page(&req, &info.req_id) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_routes_exclude_the_api_the_reference_and_the_assets() {
        for p in [
            "/",
            "/subshells",
            "/subshells/abc",
            "/settings/keys",
            "/apiary",
            "/docsx",
            "/metricsx",
        ] {
            assert!(is_app_route(p), "{p}");
        }
        for p in [
            "/api",
            "/api/",
            "/api/nope",
            "/docs",
            "/docs/x",
            "/ws/node",
            "/assets/x.js",
            "/metrics",
            "/metrics/x",
            "/healthz/",
            "/readyz/deep",
        ] {
            assert!(!is_app_route(p), "{p}");
        }
    }

    #[test]
    fn the_embedded_app_has_its_page_and_every_asset_has_a_gzip_copy() {
        assert!(file("index.html").is_some());
        for (name, _, bytes, gz) in APP_ASSETS {
            assert!(!bytes.is_empty(), "{name}");
            assert!(gz.starts_with(&[0x1f, 0x8b]), "{name}");
        }
    }
}
