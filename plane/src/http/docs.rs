//! The interactive API reference at `/docs`.
//!
//! The page is Swagger UI (npm `swagger-ui-dist`, locked in `plane/ui/package-lock.json`),
//! embedded into the binary at compile time from `plane/ui/node_modules` (`build.rs` refuses to
//! build without it), plus a small starter script of our own (`plane/ui/init.js`). The page reads
//! the document from `/api/openapi.json`. Nothing is loaded from anywhere but this plane: the
//! page's Content-Security-Policy allows only `'self'` (and `data:` images, see [`CSP`]).

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

/// Only this plane; no inline script or style, no plugins, no framing, no form posts. Images
/// may also be `data:` URLs: Swagger UI's stylesheet draws its icons (the servers list's arrow)
/// as inline SVG images, which run nothing.
pub(crate) const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; \
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
         <p><a href=\"/\">Back to termplane</a> · <a href=\"/docs/terminal\">The terminal WebSocket</a> \
         (frames and close codes)</p>\n\
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

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The terminal WebSocket's reference: the OpenAPI document cannot describe a socket, so this
/// page is generated from the same types the socket parses and writes
/// ([`crate::api::terminals`]): their JSON Schemas, the close codes and the attach query.
fn terminal_page() -> String {
    use crate::api::terminals::{AttachQuery, CLOSE_CODES, ClientFrame, FeedFrame, ServerFrame};
    let schema =
        |s: schemars::Schema| escape(&serde_json::to_string_pretty(&s).unwrap_or_default());
    let closes: String = CLOSE_CODES
        .iter()
        .map(|(c, why)| format!("<tr><td>{c}</td><td>{}</td></tr>\n", escape(why)))
        .collect();
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>termplane terminal WebSocket</title>\n</head>\n<body>\n\
         <h1>The terminal WebSocket</h1>\n\
         <p>Mint an attach token with <code>POST /api/auth/ws-token</code> (30 seconds, one use), \
         then open <code>GET /api/subshells/{{id}}/attach?token=…</code> as a WebSocket \
         (optionally <code>&amp;cols=…&amp;rows=…</code>, <code>&amp;readOnly=true</code>, \
         <code>&amp;sizing=false</code> and <code>&amp;device=…</code>). \
         The socket never takes your own credential. A refused attach is an HTTP error with the \
         API's error body; a token the plane read is spent whatever the answer, except for a \
         refusal of the request itself (not a WebSocket upgrade, an untrusted Origin, a malformed \
         query).</p>\n\
         <p>After <code>attached</code> the plane sends the replay as one binary frame (bytes that \
         put a fresh terminal in the pane's state), then the pane's output as binary frames. \
         The client sends keystrokes as binary frames (UTF-8) or as <code>input</code> text \
         frames. The pane takes the smallest grid of the viewers that take part in sizing (a viewer \
         that gave no grid, with <code>cols</code>/<code>rows</code> or a <code>resize</code> \
         frame, takes no part); while one of them with a grid is attached, \
         <code>POST /api/subshells/{{id}}/resize</code> answers 409 <code>GRID_HELD</code>.</p>\n\
         <p>An account holds at most {per_account} terminal sockets and live feeds open at once \
         (one more is refused with 429 <code>TOO_MANY_SOCKETS</code>).</p>\n\
         <h2>Query</h2>\n<pre>{}</pre>\n\
         <h2>Text frames from the plane</h2>\n<pre>{}</pre>\n\
         <h2>Text frames from the client</h2>\n<pre>{}</pre>\n\
         <h2>Keystrokes</h2>\n<p>{keystrokes}</p>\n\
         <h2>Sizing</h2>\n<p>{sizing}</p>\n\
         <h2>Close codes</h2>\n<table>\n<tr><th>code</th><th>meaning</th></tr>\n{closes}</table>\n\
         <h1>The live feed</h1>\n\
         <p>Mint an unbound attach token from a browser session, then open \
         <code>GET /api/live?token=…</code>. Frames (text, JSON) carry what changes on every \
         subshell and node the account can see, and who is attached to those panes; the client \
         may send <code>{{\"type\":\"ping\"}}</code> (answered <code>pong</code>). A feed that \
         falls behind closes with 4408, and one whose session ended or whose account's role \
         changed with 4403; any other frame closes it with 4400, one above 64 KiB with 1009, \
         a text frame that is not UTF-8 with 1007, and a plane that stops with 1001. \
         On any close, list again over REST and reopen.</p>\n<pre>{}</pre>\n\
         </body>\n</html>\n",
        schema(schemars::schema_for!(AttachQuery)),
        schema(schemars::schema_for!(ServerFrame)),
        schema(schemars::schema_for!(ClientFrame)),
        schema(schemars::schema_for!(FeedFrame)),
        per_account = crate::service::terminals::MAX_SOCKETS_PER_ACCOUNT,
        keystrokes = crate::api::terminals::KEYSTROKES_HTML,
        sizing = crate::api::terminals::SIZING_HTML,
    )
}

fn terminal_docs(
    _: Arc<Ctx>,
    _: Request,
    _: ReqInfo,
    _: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async {
        let mut res = Response::bytes(
            200,
            "text/html; charset=utf-8",
            terminal_page().into_bytes(),
        );
        res.set_header("content-security-policy", CSP);
        res.set_header("x-frame-options", "DENY");
        res
    })
}

/// Mounts `/docs`, `/docs/terminal` and `/docs/assets/:name`.
pub(super) fn mount(router: &mut Router) {
    router.add(Method::Get, "/docs", Target::Raw(docs_page));
    router.add(Method::Get, "/docs/terminal", Target::Raw(terminal_docs));
    router.add(Method::Get, "/docs/assets/:name", Target::Raw(asset));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_page_lists_every_frame_and_close_code() {
        let p = terminal_page();
        for kind in [
            "attached", "size", "presence", "resync", "pong", "error", "exit", "input", "resize",
            "sizing", "ping",
        ] {
            assert!(
                p.contains(&format!("&quot;{kind}&quot;")) || p.contains(&format!("\"{kind}\"")),
                "{kind}"
            );
        }
        for (code, _) in crate::api::terminals::CLOSE_CODES {
            assert!(p.contains(&format!("<td>{code}</td>")), "{code}");
        }
        assert!(!p.contains("<script"), "no script");
    }

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
