//! The REST route table: one declarative list that both mounts the handlers and describes every
//! operation in the OpenAPI document (see [`super::openapi`]), so the two cannot drift.
//!
//! # Adding a route
//! 1. Put its request and answer types in [`crate::api`] (in the domain's module), with their
//!    constraints on the types.
//! 2. Write the handler below: `async fn name(svc: Arc<Services>, who: C, …)
//!    -> Result<R, ApiError>` where `C` says who may call it (a type of [`super::callers`]:
//!    `Session`, `AdminSession`, `AnyCaller`, `UserCaller`, `SubshellCaller`; an open route
//!    takes the request's `RequestMeta` there), whose further arguments are extractors
//!    ([`Json`], [`Query`], [`Path`]) and whose answer `R` is [`Json`], [`NoContent`],
//!    [`Download`] or [`WithCookie`]; it calls the service with the resolved caller.
//! 3. Add one entry to [`routes`] in its section: method and path (`:id` for a parameter), an
//!    operation id, a summary, then optionally `.setup_key()` (the one route whose credential
//!    is a setup key in its body), `.describe(text)` (the
//!    rules a reader needs beyond the summary), `.ok(status)` (default
//!    200; 204 for [`NoContent`]), `.errors(&[...])` (the codes *this* route can answer besides
//!    those its [`Auth`], method and body imply; every code must be in [`crate::error::CODES`])
//!    and finally `.handle(name)`, which records the parameters, body and answer schemas from the
//!    handler's types.
//!
//! The tests fail when a listed route does not answer on the running server, when a path or
//! method is listed twice, or when a code is unknown.

mod accounts;
mod audit;
mod catalog;
mod channels;
mod credentials;
mod files;
mod network;
mod nodes;
mod notifications;
mod passkeys;
mod subshells;
mod terminals;
mod uploads;

use std::sync::Arc;

use super::handler::{ErasedHandler, Gens, Handler, OpDoc};
use super::wire::Method;
use crate::error::ApiError;

/// What a route requires of its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Auth {
    /// Nothing.
    None,
    /// Any credential: a session cookie, a system key (`Authorization: Bearer tp_…`) or a
    /// subshell's token.
    Any,
    /// A person or a script: a session cookie or a system key (a subshell's token is refused).
    User,
    /// The subshell routes: a session cookie, a system key, or a subshell's token within its
    /// permission map, on its owner's subshells.
    Subshells,
    /// A session cookie; a bearer credential is refused.
    Cookie,
    /// An administrator's session cookie.
    CookieAdmin,
    /// A setup key, carried in the request body.
    SetupKey,
}

/// One REST operation.
#[derive(Clone)]
pub(crate) struct RouteDef {
    pub(crate) method: Method,
    /// Path with `:name` parameters (`/api/nodes/:id`).
    pub(crate) path: &'static str,
    /// OpenAPI `operationId`.
    pub(crate) op: &'static str,
    pub(crate) auth: Auth,
    /// Group in the reference (the first path segment after `/api` unless set).
    pub(crate) tag: &'static str,
    pub(crate) summary: &'static str,
    /// What the reference says about the operation beyond its summary (its rules, what it
    /// grants), when there is more to say.
    pub(crate) description: Option<&'static str>,
    /// The success status.
    pub(crate) ok: u16,
    /// Codes specific to this route (the ones implied by auth, method and body are added).
    pub(crate) errors: &'static [&'static str],
    pub(crate) handler: ErasedHandler,
    /// Documents the operation from the handler's types.
    pub(crate) document: fn(&mut OpDoc, &mut Gens),
    /// Whether the handler takes a request body.
    pub(crate) has_body: bool,
    /// The answer depends on nothing but the plane's settings: it is made at the first request,
    /// compressed once, and every later request gets those bytes (see [`RouteDef::made_once`]).
    pub(crate) made_once: bool,
}

impl std::fmt::Debug for RouteDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method, self.path)
    }
}

fn no_handler(_: &mut OpDoc, _: &mut Gens) {}

impl RouteDef {
    fn new(method: Method, path: &'static str, op: &'static str, summary: &'static str) -> Self {
        let tag = path
            .strip_prefix("/api/")
            .and_then(|p| p.split('/').next())
            .unwrap_or("other");
        Self {
            method,
            path,
            op,
            auth: Auth::None,
            tag,
            summary,
            description: None,
            ok: 200,
            errors: &[],
            handler: Arc::new(|_, _| {
                Box::pin(async {
                    Err(ApiError::new(500, "INTERNAL_ERROR", "route has no handler"))
                })
            }),
            document: no_handler,
            has_body: false,
            made_once: false,
        }
    }
    fn get(path: &'static str, op: &'static str, summary: &'static str) -> Self {
        Self::new(Method::Get, path, op, summary)
    }
    fn post(path: &'static str, op: &'static str, summary: &'static str) -> Self {
        Self::new(Method::Post, path, op, summary)
    }
    fn put(path: &'static str, op: &'static str, summary: &'static str) -> Self {
        Self::new(Method::Put, path, op, summary)
    }
    fn delete(path: &'static str, op: &'static str, summary: &'static str) -> Self {
        Self::new(Method::Delete, path, op, summary)
    }
    fn patch(path: &'static str, op: &'static str, summary: &'static str) -> Self {
        Self::new(Method::Patch, path, op, summary)
    }
    fn tag(mut self, tag: &'static str) -> Self {
        self.tag = tag;
        self
    }
    /// Marks the route whose credential is a setup key carried in its body (checked by its
    /// service, as the body is the credential).
    fn setup_key(mut self) -> Self {
        self.auth = Auth::SetupKey;
        self
    }
    fn describe(mut self, text: &'static str) -> Self {
        self.description = Some(text);
        self
    }
    fn ok(mut self, status: u16) -> Self {
        self.ok = status;
        self
    }
    /// Marks a route whose JSON answer (with no headers of its own) is the same for every
    /// request while the plane runs: the first request makes it and its gzip copy, later ones
    /// are answered from them.
    fn made_once(mut self) -> Self {
        self.made_once = true;
        self
    }
    fn errors(mut self, codes: &'static [&'static str]) -> Self {
        self.errors = codes;
        self
    }
    /// Sets the handler; its types document the parameters, body and answer.
    ///
    /// Who may call the route is said by its handler's signature alone ([`super::callers`]):
    /// the route's [`Auth`], which the reference documents, is the one that type states; a
    /// handler that names no caller type makes an open route. The credential is resolved
    /// before anything else is parsed, so a caller without the right one learns nothing about
    /// what it sent.
    fn handle<Args: 'static, H: Handler<Args>>(mut self, h: H) -> Self {
        let h = Arc::new(h);
        if let Some(auth) = H::credential() {
            assert!(
                self.auth == Auth::None,
                "{self:?} is a setup-key route: its handler takes the request, not a caller type"
            );
            self.auth = auth;
        }
        self.handler = Arc::new(move |svc, call| h.call(svc, call));
        self.documented::<Args, H>()
    }

    /// Records the reference's view of handler `H`: its parameters, body and answer.
    fn documented<Args: 'static, H: Handler<Args>>(mut self) -> Self {
        self.document = <H as Handler<Args>>::document;
        let mut doc = OpDoc::default();
        (self.document)(&mut doc, &mut Gens::new());
        self.has_body = doc.request.is_some();
        if doc.answer.as_ref().is_some_and(|a| a.content.is_none()) && self.ok == 200 {
            self.ok = 204;
        }
        self
    }

    /// The path's parameters (`:id` → `id`).
    pub(crate) fn params(&self) -> Vec<&'static str> {
        self.path
            .split('/')
            .filter_map(|s| s.strip_prefix(':'))
            .collect()
    }

    /// Every error code this route can answer, in [`crate::error::CODES`] order: its own, those
    /// its authentication, method, parameters and body imply, the admin-surface guard's and a
    /// server fault.
    pub(crate) fn error_codes(&self) -> Vec<&'static str> {
        let mut codes: Vec<&str> = self.errors.to_vec();
        match self.auth {
            Auth::None | Auth::SetupKey => {}
            Auth::Any | Auth::User | Auth::Subshells => {
                codes.extend([
                    "UNAUTHENTICATED",
                    "AUTH_HEADER_INVALID",
                    "INVALID_CREDENTIAL",
                    "NODE_KEY_NOT_ACCEPTED",
                ]);
                match self.auth {
                    Auth::User => codes.push("PANE_TOKEN_NOT_ALLOWED"),
                    Auth::Subshells => codes.push("PERMISSION_DENIED"),
                    _ => {}
                }
            }
            Auth::Cookie => codes.extend(["UNAUTHENTICATED", "BEARER_NOT_ALLOWED"]),
            Auth::CookieAdmin => {
                codes.extend(["UNAUTHENTICATED", "BEARER_NOT_ALLOWED", "ADMIN_REQUIRED"]);
            }
        }
        if self.method != Method::Get && self.auth != Auth::SetupKey {
            codes.push("ORIGIN_REJECTED");
        }
        if crate::service::is_admin_surface(self.path) {
            codes.push("BEARER_NOT_ALLOWED");
        }
        if !self.params().is_empty() {
            codes.push("NOT_FOUND");
        }
        if self.has_body {
            codes.extend(["INPUT_VALIDATION_ERROR", "PAYLOAD_TOO_LARGE"]);
        }
        // Every route may meet a malformed request (400 `BAD_REQUEST`), a request target over
        // the limit (414: a long enough query or path parameter makes one), a server fault and
        // a database out of reach (503); a route that changes something, a full disk (507).
        codes.extend([
            "BAD_REQUEST",
            "URI_TOO_LONG",
            "INTERNAL_ERROR",
            "DATABASE_UNAVAILABLE",
        ]);
        if self.method != Method::Get {
            codes.push("STORAGE_FULL");
        }
        crate::error::CODES
            .iter()
            .map(|(_, c, _)| *c)
            .filter(|c| codes.contains(c))
            .collect()
    }
}

/// Every REST route of the plane, in the order the reference lists them: the routes of each
/// domain, from the domain's own file. A new family is a new file here, added to this list.
pub(crate) fn routes() -> Vec<RouteDef> {
    let mut all = accounts::routes();
    all.extend(passkeys::routes());
    all.extend(credentials::routes());
    all.extend(nodes::routes());
    all.extend(catalog::routes());
    all.extend(subshells::routes());
    all.extend(terminals::routes());
    all.extend(uploads::routes());
    all.extend(files::routes());
    all.extend(channels::routes());
    all.extend(notifications::routes());
    all.extend(network::routes());
    all.extend(audit::routes());
    all
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    use crate::service::{RequestMeta, Services};

    async fn needs_a_session(
        _: Arc<Services>,
        _: crate::http::callers::Session,
    ) -> Result<crate::http::handler::NoContent, ApiError> {
        Ok(crate::http::handler::NoContent)
    }

    async fn reads_the_request(
        _: Arc<Services>,
        _: RequestMeta,
    ) -> Result<crate::http::handler::NoContent, ApiError> {
        Ok(crate::http::handler::NoContent)
    }

    #[test]
    fn a_handler_that_takes_a_session_makes_a_session_route() {
        let r = RouteDef::get("/api/x", "x", "x").handle(needs_a_session);
        assert_eq!(r.auth, Auth::Cookie);
        assert!(r.error_codes().contains(&"BEARER_NOT_ALLOWED"), "{r:?}");
    }

    #[test]
    fn a_handler_that_names_no_caller_type_makes_an_open_route() {
        let r = RouteDef::get("/api/x", "x", "x").handle(reads_the_request);
        assert_eq!(r.auth, Auth::None);
        assert!(!r.error_codes().contains(&"UNAUTHENTICATED"), "{r:?}");
    }

    #[test]
    #[should_panic(expected = "its handler takes the request, not a caller type")]
    fn a_setup_key_route_whose_handler_names_a_caller_type_is_refused() {
        let _ = RouteDef::post("/api/x", "x", "x")
            .setup_key()
            .handle(needs_a_session);
    }

    #[test]
    fn routes_are_unique_and_well_formed() {
        let all = routes();
        for (i, r) in all.iter().enumerate() {
            assert!(r.path.starts_with("/api/"), "{r:?}");
            assert!(
                all[i + 1..]
                    .iter()
                    .all(|o| (o.method, o.path) != (r.method, r.path)),
                "{r:?} listed twice"
            );
            assert!(all[i + 1..].iter().all(|o| o.op != r.op), "{} twice", r.op);
            assert!(!r.summary.is_empty(), "{r:?}");
            assert!((200..300).contains(&r.ok), "{r:?}");
            for c in r.errors {
                assert!(crate::error::code_info(c).is_some(), "{r:?}: unknown {c}");
            }
            assert!(
                !std::ptr::fn_addr_eq(r.document, no_handler as fn(&mut OpDoc, &mut Gens)),
                "{r:?} has no handler"
            );
            let mut doc = OpDoc::default();
            (r.document)(&mut doc, &mut Gens::new());
            let answer = doc.answer.expect("every handler documents its answer");
            assert_eq!(
                r.ok == 204,
                answer.content.is_none(),
                "{r:?}: 204 iff no body"
            );
        }
    }

    /// REST routes are mounted only from the list: the adapter adds no other `/api` path (the
    /// test-only panic route aside), so the document lists every one the server has.
    #[test]
    fn no_rest_route_is_mounted_outside_the_list() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/http");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            seen += 1;
            // Every `router.add(…)` call, however it is formatted: its first string is the path.
            for (i, _) in text.match_indices("router.add(") {
                let rest = &text[i..];
                let lit = &rest[rest.find('"').unwrap() + 1..];
                let lit = &lit[..lit.find('"').unwrap()];
                // WebSocket upgrades are not REST operations (the OpenAPI document cannot
                // describe them); `/docs/terminal` does, from their frame types.
                let upgrade = ["/api/subshells/:id/attach", "/api/live"].contains(&lit);
                assert!(
                    !lit.starts_with("/api/") || lit == "/api/__test/panic" || upgrade,
                    "{}: `{lit}` is mounted outside `routes()`; declare it there",
                    path.display()
                );
            }
        }
        assert!(seen >= 5);
    }

    /// Rule 4 of the spec: writes to `/api/users`, `/api/settings` and `/api/plugins` are admin
    /// surfaces, and the whole of the admin families is cookie-only.
    #[test]
    fn admin_surfaces_are_cookie_admin_routes() {
        for r in routes() {
            let write_family = crate::service::ADMIN_WRITE_FAMILIES
                .iter()
                .any(|f| r.path == *f || r.path.starts_with(&format!("{f}/")));
            if write_family && r.method != Method::Get {
                assert_eq!(r.auth, Auth::CookieAdmin, "{r:?} is an admin write");
            }
            if crate::service::is_admin_surface(r.path) {
                assert!(
                    matches!(r.auth, Auth::Cookie | Auth::CookieAdmin),
                    "{r:?} is an admin surface"
                );
            }
        }
    }

    #[test]
    fn implied_error_codes() {
        let all = routes();
        let find = |m: Method, p: &str| {
            all.iter()
                .find(|r| r.method == m && r.path == p)
                .unwrap()
                .error_codes()
        };
        let create_key = find(Method::Post, "/api/system-keys");
        for c in [
            "INPUT_VALIDATION_ERROR",
            "UNAUTHENTICATED",
            "BEARER_NOT_ALLOWED",
            "ADMIN_REQUIRED",
            "ORIGIN_REJECTED",
            "PAYLOAD_TOO_LARGE",
            "INTERNAL_ERROR",
            "STORAGE_FULL",
        ] {
            assert!(create_key.contains(&c), "{c}");
        }
        let enroll = find(Method::Post, "/api/nodes/enroll");
        assert!(!enroll.contains(&"ORIGIN_REJECTED"));
        assert!(enroll.contains(&"SETUP_KEY_SPENT"));
        assert_eq!(
            find(Method::Get, "/api/setup/status"),
            vec![
                "BAD_REQUEST",
                "URI_TOO_LONG",
                "INTERNAL_ERROR",
                "DATABASE_UNAVAILABLE"
            ]
        );
        // Reading accounts is open to bearers; writing them is an admin surface.
        assert!(!find(Method::Get, "/api/users").contains(&"BEARER_NOT_ALLOWED"));
        assert!(find(Method::Get, "/api/nodes/:id").contains(&"NOT_FOUND"));
    }
}
