//! The interactive API reference at `/docs`.
//!
//! The page is Swagger UI (npm `swagger-ui-dist`, locked in `plane/ui/package-lock.json`),
//! embedded into the binary at compile time from `plane/ui/node_modules` (`build.rs` refuses to
//! build without it), plus a small starter script of our own (`plane/ui/init.js`). The page reads
//! the document from `/api/openapi.json`. Nothing is loaded from anywhere but this plane: the
//! page's Content-Security-Policy allows only `'self'`.

use std::sync::Arc;

use super::handler::BoxFut;
use super::server::{Request, Response};
use super::wire::Method;
use super::{Ctx, ReqInfo, Router, Target, error_response};
use crate::error::ApiError;

/// `(name under /docs/assets/, content type, bytes)`.
const ASSETS: &[(&str, &str, &[u8])] = &[
    (
        "swagger-ui-bundle.js",
        "text/javascript; charset=utf-8",
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/ui/node_modules/swagger-ui-dist/swagger-ui-bundle.js"
        )),
    ),
    (
        "swagger-ui.css",
        "text/css; charset=utf-8",
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/ui/node_modules/swagger-ui-dist/swagger-ui.css"
        )),
    ),
    (
        "init.js",
        "text/javascript; charset=utf-8",
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/ui/init.js")),
    ),
];

/// The Swagger UI version embedded (from its installed `package.json`).
pub(crate) const SWAGGER_UI_VERSION: &str = env!("TERMPLANE_SWAGGER_UI_VERSION");

/// Assets are named without a content hash; the query string changes with every release of the
/// plane or of Swagger UI, so a day of caching never serves a stale file to a fresh page.
const ASSET_CACHE: &str = "public, max-age=86400";

/// Only this plane; no inline script or style, no plugins, no framing, no form posts.
pub(crate) const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
    img-src 'self'; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

fn page() -> String {
    let v = format!("{}-{SWAGGER_UI_VERSION}", env!("CARGO_PKG_VERSION"));
    format!(
        "<!doctype html>\n\
         <html lang=\"en\">\n\
         <head>\n\
         <meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>termplane API reference</title>\n\
         <link rel=\"stylesheet\" href=\"/docs/assets/swagger-ui.css?v={v}\">\n\
         </head>\n\
         <body>\n\
         <noscript>The interactive reference needs JavaScript; the document itself is at \
         <a href=\"/api/openapi.json\">/api/openapi.json</a>.</noscript>\n\
         <div id=\"reference\" data-document=\"/api/openapi.json\"></div>\n\
         <script src=\"/docs/assets/swagger-ui-bundle.js?v={v}\"></script>\n\
         <script src=\"/docs/assets/init.js?v={v}\"></script>\n\
         </body>\n\
         </html>\n"
    )
}

fn docs_page(
    _: Arc<Ctx>,
    _: Request,
    _: ReqInfo,
    _: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async {
        let mut res = Response::bytes(200, "text/html; charset=utf-8", page().into_bytes());
        res.set_header("content-security-policy", CSP);
        res.set_header("x-frame-options", "DENY");
        res
    })
}

fn asset(
    _: Arc<Ctx>,
    _: Request,
    info: ReqInfo,
    params: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async move {
        let name = params
            .iter()
            .find(|(k, _)| *k == "name")
            .map(|(_, v)| v.as_str())
            .unwrap_or_default();
        let Some((_, content_type, bytes)) = ASSETS.iter().find(|(n, _, _)| *n == name) else {
            return error_response(&ApiError::not_found("asset"), &info.req_id);
        };
        let mut res = Response::bytes(200, content_type, bytes.to_vec());
        res.set_header("cache-control", ASSET_CACHE);
        res.set_header("content-security-policy", CSP);
        res
    })
}

/// Mounts `/docs` and `/docs/assets/:name`.
pub(super) fn mount(router: &mut Router) {
    router.add(Method::Get, "/docs", Target::Raw(docs_page));
    router.add(Method::Get, "/docs/assets/:name", Target::Raw(asset));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_names_only_embedded_assets() {
        let p = page();
        for (name, _, bytes) in ASSETS {
            assert!(p.contains(&format!("/docs/assets/{name}?v=")), "{name}");
            assert!(!bytes.is_empty(), "{name}");
        }
        assert!(
            !p.contains("://"),
            "the page must load nothing from elsewhere"
        );
        assert!(
            !p.contains("<script>") && !p.contains("style="),
            "no inline code"
        );
    }
}
