//! The interactive API reference at `/docs`.
//!
//! The page is Swagger UI (npm `swagger-ui-dist`, locked in `plane/ui/package-lock.json`),
//! embedded into the binary at compile time from `plane/ui/node_modules` (`build.rs` refuses to
//! build without it), plus a small starter script of our own (`plane/ui/init.js`). The page reads
//! the document from `/api/openapi.json`. Nothing is loaded from anywhere but this plane: the
//! page's Content-Security-Policy allows only `'self'`.

use futures_lite::io::Cursor;
use tide::{Request, Response, StatusCode};

use super::{State, error_response, info};
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

async fn docs_page(_req: Request<State>) -> tide::Result {
    let mut res = Response::new(StatusCode::Ok);
    res.set_body(page());
    res.set_content_type(tide::http::mime::HTML);
    res.insert_header("content-security-policy", CSP);
    res.insert_header("x-frame-options", "DENY");
    Ok(res)
}

async fn asset(req: Request<State>) -> tide::Result {
    let name = req.param("name").unwrap_or_default();
    let Some((_, content_type, bytes)) = ASSETS.iter().find(|(n, _, _)| *n == name) else {
        return Ok(error_response(
            &ApiError::not_found("asset"),
            &info(&req).req_id,
        ));
    };
    let mut res = Response::new(StatusCode::Ok);
    res.set_body(tide::Body::from_reader(
        Cursor::new(*bytes),
        Some(bytes.len()),
    ));
    res.insert_header("content-type", *content_type);
    res.insert_header("cache-control", ASSET_CACHE);
    res.insert_header("content-security-policy", CSP);
    Ok(res)
}

/// Mounts `/docs` and `/docs/assets/:name`.
pub(super) fn mount(app: &mut tide::Server<State>) {
    app.at("/docs").get(docs_page);
    app.at("/docs/assets/:name").get(asset);
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
