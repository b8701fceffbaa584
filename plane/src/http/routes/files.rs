//! Routes of files people keep on the plane (see [`crate::api::files`]).

use std::sync::Arc;

use super::super::callers::AnyCaller;
use super::super::handler::{Download, Json, NoContent, Path, Query};
use super::RouteDef;
use crate::api::IdParam;
use crate::api::files::{FileBytes, FileBytesQuery, FileStart, FileUpload, KeptFile, SendFile};
use crate::api::uploads::{PieceParams, PieceRequest, Upload};
use crate::error::ApiError;
use crate::service::Services;

/// The routes of this domain, in the order the reference lists them.
pub(super) fn routes() -> Vec<RouteDef> {
    // A pane's token acts for the pane's owner: it keeps (publishes) and reads their files;
    // sending one into a pane is still bound by its permission map.
    vec![
        RouteDef::get("/api/files", "listFiles", "Your kept files, newest first").handle(list),
        RouteDef::post(
            "/api/files",
            "startFile",
            "Start uploading a file to keep (at most 64 MiB; 1 GiB per account)",
        )
        .ok(201)
        .errors(&["QUOTA_EXCEEDED", "UPLOADS_BUSY"])
        .handle(start),
        RouteDef::put(
            "/api/files/:id/pieces/:index",
            "putFilePiece",
            "Send the next piece of an upload; the last one keeps the file",
        )
        .errors(&["NOT_FOUND", "UPLOAD_ABANDONED"])
        .handle(piece),
        RouteDef::get("/api/files/:id", "getFile", "One kept file")
            .errors(&["NOT_FOUND"])
            .handle(get),
        RouteDef::get(
            "/api/files/:id/content",
            "downloadFile",
            "A kept file's bytes (`Content-Disposition: attachment` with its name)",
        )
        .errors(&["NOT_FOUND"])
        .handle(content),
        RouteDef::get(
            "/api/files/:id/bytes",
            "readFileBytes",
            "A byte range of a kept file, base64 in JSON (`fromByte`, `maxBytes` up to 1 MiB)",
        )
        .errors(&["NOT_FOUND"])
        .handle(bytes),
        RouteDef::delete(
            "/api/files/:id",
            "deleteFile",
            "Delete a kept file, or abandon its upload",
        )
        .errors(&["NOT_FOUND"])
        .handle(delete),
        RouteDef::post(
            "/api/files/:id/send",
            "sendFile",
            "Write a kept file into a pane's working directory on its node",
        )
        .errors(&[
            "NOT_FOUND",
            "UPLOAD_EXISTS",
            "UPLOADS_BUSY",
            "NODE_OFFLINE",
            "NODE_REFUSED",
            "SUBSHELL_NOT_RUNNING",
        ])
        .handle(send),
    ]
}

type Res<T> = Result<T, ApiError>;

async fn list(svc: Arc<Services>, AnyCaller(c): AnyCaller) -> Res<Json<Vec<KeptFile>>> {
    svc.files().files(&c).await.map(Json)
}

async fn start(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Json(b): Json<FileStart>,
) -> Res<Json<FileUpload>> {
    svc.files().start_file(&c, b).await.map(Json)
}

async fn piece(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Path(p): Path<PieceParams>,
    Json(b): Json<PieceRequest>,
) -> Res<Json<FileUpload>> {
    svc.files()
        .file_piece(&c, p.id.as_str(), p.index, b)
        .await
        .map(Json)
}

async fn get(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Path(p): Path<IdParam>,
) -> Res<Json<KeptFile>> {
    svc.files().file(&c, p.id.as_str()).await.map(Json)
}

async fn bytes(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Path(p): Path<IdParam>,
    Query(q): Query<FileBytesQuery>,
) -> Res<Json<FileBytes>> {
    svc.files()
        .file_bytes(&c, p.id.as_str(), &q)
        .await
        .map(Json)
}

async fn content(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Path(p): Path<IdParam>,
) -> Res<Download> {
    let (path, len, sha256, name) = svc.files().file_content(&c, p.id.as_str()).await?;
    Ok(Download {
        path,
        len,
        sha256,
        file_name: Some(name),
    })
}

async fn delete(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Path(p): Path<IdParam>,
) -> Res<NoContent> {
    svc.files().delete_file(&c, p.id.as_str()).await?;
    Ok(NoContent)
}

async fn send(
    svc: Arc<Services>,
    AnyCaller(c): AnyCaller,
    Path(p): Path<IdParam>,
    Json(b): Json<SendFile>,
) -> Res<Json<Upload>> {
    svc.transfers()
        .send_file(&c, p.id.as_str(), b)
        .await
        .map(Json)
}
