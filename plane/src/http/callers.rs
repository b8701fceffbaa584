//! Who may call an operation, said in its handler's signature.
//!
//! A handler that takes one of these types as its first argument after the service is called
//! only once the request's credential has been resolved to that kind of caller:
//!
//! | argument         | credential                                                        | reference's `security` |
//! |------------------|-------------------------------------------------------------------|------------------------|
//! | [`Session`]      | a browser session cookie; any bearer credential is 403            | `session`              |
//! | [`AdminSession`] | an administrator's session cookie                                 | `session`              |
//! | [`AnyCaller`]    | a session cookie, a system key or a pane's own token              | `session`, `bearer`    |
//! | [`UserCaller`]   | a session cookie or a system key; a pane's token is 403           | `session`, `bearer`    |
//! | [`SubshellCaller`] | any of the three; a pane's token then only within its permission map, on its owner's subshells (checked by the service per subshell) | `session`, `bearer` |
//!
//! The credential is resolved before any other argument is parsed, so a caller without the
//! right one is refused (401, 403) before the path, the query or the body is looked at, and
//! learns nothing about what it sent. The route's reference (its `security` and the error
//! codes authentication implies) is written from the same type
//! ([`super::routes::RouteDef::handle`] takes the route's [`Auth`] from it), and the service
//! receives the resolved [`Caller`]: it never sees the request's headers.

use std::future::Future;
use std::sync::Arc;

use super::routes::Auth;
use crate::error::ApiError;
use crate::service::{Caller, RequestMeta, Services};

/// A kind of caller a handler can require.
pub(crate) trait Credential: Sized + Send + 'static {
    /// The route's authentication, as the reference states it.
    const AUTH: Auth;
    /// Resolves the request's credential to this kind of caller, or the refusal.
    fn resolve(
        svc: &Arc<Services>,
        meta: &RequestMeta,
    ) -> impl Future<Output = Result<Self, ApiError>> + Send;
}

/// A browser session (cookie only).
pub(crate) struct Session(pub(crate) Caller);

/// An administrator's browser session.
pub(crate) struct AdminSession(pub(crate) Caller);

/// Any accepted credential: a session, a system key or a pane's own token.
pub(crate) struct AnyCaller(pub(crate) Caller);

/// A person or a script: a session or a system key, not a pane's token.
pub(crate) struct UserCaller(pub(crate) Caller);

/// A caller of the subshell routes: any accepted credential, a pane's token within its
/// permission map on its owner's subshells only (the service checks that per subshell).
pub(crate) struct SubshellCaller(pub(crate) Caller);

impl Credential for SubshellCaller {
    const AUTH: Auth = Auth::Subshells;
    async fn resolve(svc: &Arc<Services>, meta: &RequestMeta) -> Result<Self, ApiError> {
        svc.guard().caller(meta).await.map(Self)
    }
}

impl Credential for Session {
    const AUTH: Auth = Auth::Cookie;
    async fn resolve(svc: &Arc<Services>, meta: &RequestMeta) -> Result<Self, ApiError> {
        svc.guard().session(meta).await.map(Self)
    }
}

impl Credential for AdminSession {
    const AUTH: Auth = Auth::CookieAdmin;
    async fn resolve(svc: &Arc<Services>, meta: &RequestMeta) -> Result<Self, ApiError> {
        svc.guard().admin(meta).await.map(Self)
    }
}

impl Credential for AnyCaller {
    const AUTH: Auth = Auth::Any;
    async fn resolve(svc: &Arc<Services>, meta: &RequestMeta) -> Result<Self, ApiError> {
        svc.guard().caller(meta).await.map(Self)
    }
}

impl Credential for UserCaller {
    const AUTH: Auth = Auth::User;
    async fn resolve(svc: &Arc<Services>, meta: &RequestMeta) -> Result<Self, ApiError> {
        svc.guard().user_caller(meta).await.map(Self)
    }
}
