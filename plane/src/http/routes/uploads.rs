//! Routes of uploads into a pane (`crate::api::uploads` has the protocol).

use std::sync::Arc;

use super::super::callers::SubshellCaller;
use super::super::handler::{Json, NoContent, Path};
use super::RouteDef;
use crate::api::IdParam;
use crate::api::uploads::{PieceParams, PieceRequest, Upload, UploadRequest};
use crate::error::ApiError;
use crate::service::Services;

/// The routes of this domain, in the order the reference lists them.
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        RouteDef::post(
            "/api/uploads",
            "startUpload",
            "Start an upload of a file (at most 64 MiB) into a pane's working directory",
        )
        .ok(201)
        .errors(&[
            "NOT_FOUND",
            "PERMISSION_DENIED",
            "UPLOAD_EXISTS",
            "UPLOADS_BUSY",
            "NODE_OFFLINE",
            "NODE_REFUSED",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(start),
        RouteDef::get("/api/uploads/:id", "getUpload", "An upload's progress")
            .errors(&["NOT_FOUND"])
            .handle(get),
        RouteDef::delete(
            "/api/uploads/:id",
            "cancelUpload",
            "Abandon an upload; the partial file on the node is removed",
        )
        .errors(&["NOT_FOUND", "INVALID_STATE"])
        .handle(cancel),
        RouteDef::put(
            "/api/uploads/:id/pieces/:index",
            "uploadPiece",
            "Send the next piece of an upload (in order; the last one puts the file in place)",
        )
        .errors(&[
            "NOT_FOUND",
            "INVALID_STATE",
            "UPLOAD_ABANDONED",
            "NODE_OFFLINE",
            "NODE_REFUSED",
            "NODE_LINK_CLOSED",
            "NODE_BAD_RESULT",
            "NODE_TIMEOUT",
        ])
        .handle(piece),
    ]
}

type Res<T> = Result<T, ApiError>;

async fn start(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Json(b): Json<UploadRequest>,
) -> Res<Json<Upload>> {
    svc.transfers().start_upload(&c, b).await.map(Json)
}

async fn get(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
) -> Res<Json<Upload>> {
    svc.uploads().upload(&c, p.id.as_str()).await.map(Json)
}

async fn cancel(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.uploads()
        .cancel_upload(&c, p.id.as_str())
        .await
        .map(|()| NoContent)
}

async fn piece(
    svc: Arc<Services>,
    SubshellCaller(c): SubshellCaller,
    Path(p): Path<PieceParams>,
    Json(b): Json<PieceRequest>,
) -> Res<Json<Upload>> {
    svc.uploads()
        .upload_piece(&c, p.id.as_str(), p.index, b)
        .await
        .map(Json)
}
