//! The interactive API reference at `/docs`.
//!
//! The page is Swagger UI (npm `swagger-ui-dist`, locked in `plane/ui/package-lock.json`),
//! embedded into the binary at compile time from `plane/ui/node_modules` (`build.rs` refuses to
//! build without it), plus a small starter script of our own (`plane/ui/init.js`) and the
//! reference's stylesheet (`plane/ui/reference.css`: the app's colours and fonts, dark or light
//! as the system asks, and Swagger UI's colours that fall short of AA contrast corrected). The
//! page reads the document from `/api/openapi.json`. Nothing is loaded from anywhere but this
//! plane: the page's Content-Security-Policy allows only `'self'` (and `data:` images, see
//! [`CSP`]).
//!
//! Every asset is sent gzip-compressed to a client that accepts it (the copies are made at
//! build time), and so are the OpenAPI document and the `/docs/terminal` page (each made and
//! compressed at its first request).
//!
//! Accessibility: the browser suite runs axe on both pages, light and dark, with operations
//! open, and finds nothing serious. What it found in Swagger UI's own markup is worked around
//! in `init.js` (an unnamed servers list, links nested in buttons, code blocks out of the
//! keyboard's reach, highlighted examples below AA contrast; each with its upstream issue) and
//! `reference.css` (colours below AA contrast). Two moderate findings of Swagger UI's are left
//! as they are: its headings skip from `h1` to `h3` (swagger-api/swagger-ui#10703), and its
//! description block stands outside any landmark (both under its accessibility epic,
//! swagger-api/swagger-ui#10697).

use std::sync::Arc;

use super::handler::BoxFut;
use super::server::{Request, Response, Shared};
use super::wire::Method;
use super::{Ctx, ReqInfo, Router, Target, error_response, gzip};
use crate::error::ApiError;

include!(concat!(env!("OUT_DIR"), "/docs_assets.rs"));

/// `(name under /docs/assets/, content type, bytes, gzip bytes)`.
const ASSETS: &[(&str, &str, &[u8], &[u8])] = DOCS_ASSETS;

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

/// The query string that names this build's assets.
fn version() -> String {
    format!("{}-{SWAGGER_UI_VERSION}", env!("CARGO_PKG_VERSION"))
}

/// A reference page: the bar with `current` marked, then `main` (the page's content); `head`
/// and `tail` add the page's own stylesheets and scripts.
fn shell(title: &str, current: &str, head: &str, main: &str, tail: &str) -> String {
    let v = version();
    let nav: String = [
        ("/docs", "REST API"),
        ("/docs/terminal", "Terminal WebSocket"),
        ("/api/openapi.json", "OpenAPI document"),
        ("/", "Back to termplane"),
    ]
    .iter()
    .map(|(href, text)| {
        let here = if *href == current {
            " aria-current=\"page\""
        } else {
            ""
        };
        format!("<a href=\"{href}\"{here}>{text}</a>")
    })
    .collect();
    format!(
        "<!doctype html>\n\
         <html lang=\"en\">\n\
         <head>\n\
         <meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"dark light\">\n\
         <title>{title}</title>\n\
         {head}\
         <link rel=\"stylesheet\" href=\"/docs/assets/reference.css?v={v}\">\n\
         </head>\n\
         <body>\n\
         <header class=\"bar\">\n\
         <span class=\"brand\">termplane <span>API reference</span></span>\n\
         <nav aria-label=\"Reference\">{nav}</nav>\n\
         </header>\n\
         {main}\
         {tail}\
         </body>\n\
         </html>\n"
    )
}

fn page() -> String {
    let v = version();
    shell(
        "termplane API reference",
        "/docs",
        &format!("<link rel=\"stylesheet\" href=\"/docs/assets/swagger-ui.css?v={v}\">\n"),
        // Swagger UI renders the page's `main` landmark itself.
        "<noscript><main class=\"doc\"><p>The interactive reference needs JavaScript; the \
         document itself is at <a href=\"/api/openapi.json\">/api/openapi.json</a>.</p>\
         </main></noscript>\n\
         <div id=\"reference\" data-document=\"/api/openapi.json\"></div>\n",
        &format!(
            "<script src=\"/docs/assets/swagger-ui-bundle.js?v={v}\"></script>\n\
             <script src=\"/docs/assets/init.js?v={v}\"></script>\n"
        ),
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
    req: Request,
    info: ReqInfo,
    params: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async move {
        let name = params
            .iter()
            .find(|(k, _)| *k == "name")
            .map(|(_, v)| v.as_str())
            .unwrap_or_default();
        let Some((_, content_type, bytes, gz)) = ASSETS.iter().find(|(n, ..)| *n == name) else {
            return error_response(&ApiError::not_found("asset"), &info.req_id);
        };
        let mut res = gzip::answer(
            gzip::accepted(&req.head),
            content_type,
            Shared::Static(bytes),
            Shared::Static(gz),
        );
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
/// ([`crate::api::terminals`]): their JSON Schemas, the close codes and the attach query. It
/// runs no script; the reference's stylesheet gives it the app's look, light or dark, and
/// its schemas scroll within their own boxes on a phone (each can take focus, so a keyboard
/// can scroll it too).
fn terminal_page() -> String {
    use crate::api::terminals::{AttachQuery, CLOSE_CODES, ClientFrame, FeedFrame, ServerFrame};
    let schema =
        |s: schemars::Schema| escape(&serde_json::to_string_pretty(&s).unwrap_or_default());
    let closes: String = CLOSE_CODES
        .iter()
        .map(|(c, why)| format!("<tr><td>{c}</td><td>{}</td></tr>\n", escape(why)))
        .collect();
    let main = format!(
        "<main class=\"doc\">\n\
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
         <h2>Query</h2>\n<pre tabindex=\"0\">{}</pre>\n\
         <h2>Text frames from the plane</h2>\n<pre tabindex=\"0\">{}</pre>\n\
         <h2>Text frames from the client</h2>\n<pre tabindex=\"0\">{}</pre>\n\
         <h2>Keystrokes</h2>\n<p>{keystrokes}</p>\n\
         <h2>Sizing</h2>\n<p>{sizing}</p>\n\
         <h2>Close codes</h2>\n<table>\n<tr><th scope=\"col\">code</th><th scope=\"col\">meaning</th></tr>\n{closes}</table>\n\
         <h1>The live feed</h1>\n\
         <p>Mint an unbound attach token from a browser session, then open \
         <code>GET /api/live?token=…</code>. Frames (text, JSON) carry what changes on every \
         subshell and node the account can see, and who is attached to those panes; the client \
         may send <code>{{\"type\":\"ping\"}}</code> (answered <code>pong</code>). A feed that \
         falls behind closes with 4408, and one whose session ended or whose account's role \
         changed with 4403; any other frame closes it with 4400, one above 64 KiB with 1009, \
         a text frame that is not UTF-8 with 1007, and a plane that stops with 1001. \
         On any close, list again over REST and reopen.</p>\n<pre tabindex=\"0\">{}</pre>\n\
         </main>\n",
        schema(schemars::schema_for!(AttachQuery)),
        schema(schemars::schema_for!(ServerFrame)),
        schema(schemars::schema_for!(ClientFrame)),
        schema(schemars::schema_for!(FeedFrame)),
        per_account = crate::service::terminals::MAX_SOCKETS_PER_ACCOUNT,
        keystrokes = crate::api::terminals::KEYSTROKES_HTML,
        sizing = crate::api::terminals::SIZING_HTML,
    );
    shell(
        "termplane terminal WebSocket",
        "/docs/terminal",
        "",
        &main,
        "",
    )
}

fn terminal_docs(
    _: Arc<Ctx>,
    req: Request,
    _: ReqInfo,
    _: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    /// The page, made (and compressed) at its first request.
    static PAGE: std::sync::OnceLock<gzip::Encoded> = std::sync::OnceLock::new();
    let accepts = gzip::accepted(&req.head);
    Box::pin(async move {
        let mut res = PAGE
            .get_or_init(|| gzip::Encoded::new(terminal_page().into_bytes()))
            .answer(accepts, "text/html; charset=utf-8");
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
        for (name, _, bytes, gz) in ASSETS {
            assert!(p.contains(&format!("/docs/assets/{name}?v=")), "{name}");
            assert!(!bytes.is_empty(), "{name}");
            assert!(gz.starts_with(&[0x1f, 0x8b]), "{name}");
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

    /// `--name: value` pairs of the first `:root { … }` block of a stylesheet.
    fn root_tokens(css: &str) -> Vec<(String, String)> {
        let at = css.find(":root {").unwrap_or_default();
        let block = &css[at..at + css[at..].find('}').unwrap_or_default()];
        block
            .lines()
            .filter_map(|l| {
                let (k, v) = l.trim().strip_prefix("--")?.split_once(':')?;
                Some((k.to_owned(), v.trim().trim_end_matches(';').to_owned()))
            })
            .collect()
    }

    #[test]
    fn the_reference_wears_the_apps_dark_tokens() {
        let app = root_tokens(include_str!("../../ui/app/src/styles.css"));
        let ours = root_tokens(include_str!("../../ui/reference.css"));
        assert!(ours.len() >= 10, "{ours:?}");
        for (k, v) in &ours {
            if let Some((_, a)) = app.iter().find(|(n, _)| n == k) {
                assert_eq!(v, a, "--{k}");
            }
        }
        let shared = ours.iter().filter(|(k, _)| app.iter().any(|(n, _)| n == k));
        assert!(
            shared.count() >= 10,
            "the reference shares the app's tokens"
        );
    }

    #[test]
    fn both_pages_share_the_bar_and_mark_where_they_are() {
        for (p, here) in [(page(), "/docs"), (terminal_page(), "/docs/terminal")] {
            assert!(p.contains("<header class=\"bar\">"), "{here}");
            assert!(p.contains("<main"), "{here}");
            assert!(p.contains("/docs/assets/reference.css?v="), "{here}");
            assert!(
                p.contains(&format!("<a href=\"{here}\" aria-current=\"page\">")),
                "{here}"
            );
            assert!(p.contains("<a href=\"/\">Back to termplane</a>"), "{here}");
        }
    }
}
