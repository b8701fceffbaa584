//! `GET /install.sh`: the node installer, for `curl -fsSL <plane>/install.sh | sh -s --
//! --setup-key nsk_…`.
//!
//! It needs no credential and carries no secret: the setup key is the caller's own argument.
//! The service writes the plane's address and the served programs' digests into it
//! ([`crate::service::Installer::install_script`]; the address comes from the trusted origins,
//! never from the `Host` header alone). It is served as `text/plain`, so a browser shows it to
//! be read; like every answer it is `Cache-Control: no-store`.

use std::sync::Arc;

use super::handler::BoxFut;
use super::server::{Request, Response};
use super::wire::Method;
use super::{Ctx, ReqInfo, Router, Target};

fn install_script(
    ctx: Arc<Ctx>,
    _: Request,
    info: ReqInfo,
    _: Vec<(&'static str, String)>,
) -> BoxFut<Response> {
    Box::pin(async move {
        let script = ctx
            .svc
            .installer()
            .install_script(info.meta.host.as_deref())
            .await;
        Response::bytes(200, "text/plain; charset=utf-8", script.into_bytes())
    })
}

/// Mounts `/install.sh`.
pub(super) fn mount(router: &mut Router) {
    router.add(Method::Get, "/install.sh", Target::Raw(install_script));
}
