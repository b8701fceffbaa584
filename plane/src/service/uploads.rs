//! Uploads into a pane (see [`crate::api::uploads`] for the protocol a client follows).
//!
//! The plane holds each upload in memory and writes it on the pane's node with `write_file`, in
//! node chunks of [`NODE_CHUNK_BYTES`] (a command must fit the link's 64 KiB envelope). The node
//! writes into a hidden partial file next to the destination and renames it into place with the
//! last chunk; a chunk out of order makes it remove the partial file, which is how the plane
//! abandons an upload.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use termplane_proto::command::{Command, PathArg, WriteFile};

use super::Caller;
use super::dispatch::Dispatcher;
use crate::api::uploads::{
    MAX_UPLOAD_BYTES, PIECE_BYTES, PieceIndex, PieceRequest, Upload, UploadRequest,
};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::store;

/// Raw bytes per `write_file` command.
pub(super) const NODE_CHUNK_BYTES: usize = 32 * 1024;
/// An upload with no piece for this long is abandoned (ms).
pub(super) const UPLOAD_IDLE_MS: i64 = 60_000;
/// Most uploads in progress on the plane at once.
pub(super) const MAX_UPLOADS: usize = 256;

#[derive(Debug)]
pub(super) struct State {
    user_id: String,
    subshell_id: String,
    node_id: String,
    path: String,
    size: u64,
    received: u64,
    next_piece: u64,
    next_chunk: u32,
    last_ms: i64,
    done: bool,
    /// Who uploads, for the pane's input mark once the file is complete.
    typer: super::subshells::Typer,
    /// The file's name.
    name: String,
}

/// The uploads-into-panes domain: the uploads in progress, each written on its pane's node
/// through the dispatcher. It holds the dispatcher and the clock (and itself, weakly, for the
/// tasks that abandon an idle upload).
pub struct Uploads {
    clock: Arc<dyn Clock>,
    dispatcher: Arc<Dispatcher>,
    marker: Arc<super::subshells::Marker>,
    all: Mutex<HashMap<String, Entry>>,
    me: std::sync::Weak<Self>,
}

/// One upload in progress: where it writes, kept outside its state's lock (which a chunk on its
/// way to the node holds) so a new upload to the same file is always seen to collide with it.
#[derive(Debug)]
struct Entry {
    node_id: String,
    path: String,
    state: Arc<smol::lock::Mutex<State>>,
}

fn view(id: &str, s: &State) -> Upload {
    Upload {
        upload_id: id.to_owned(),
        subshell_id: s.subshell_id.clone(),
        path: s.path.clone(),
        size: s.size,
        piece_bytes: PIECE_BYTES,
        pieces: s.size.div_ceil(PIECE_BYTES).max(1),
        received: s.received,
        done: s.done,
    }
}

fn not_found() -> ApiError {
    ApiError::not_found("upload")
}

fn uploads_busy() -> ApiError {
    ApiError::new(
        409,
        "UPLOADS_BUSY",
        "too many uploads are in progress; try again shortly",
    )
}

impl Uploads {
    /// No upload in progress; chunks go through `dispatcher`.
    pub(super) fn new(
        clock: Arc<dyn Clock>,
        dispatcher: Arc<Dispatcher>,
        marker: Arc<super::subshells::Marker>,
    ) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            clock,
            dispatcher,
            marker,
            all: Mutex::default(),
            me: me.clone(),
        })
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    pub(super) fn upload_of(&self, id: &str) -> Result<Arc<smol::lock::Mutex<State>>, ApiError> {
        self.all
            .lock()
            .map_err(|_| ApiError::internal())?
            .get(id)
            .map(|e| Arc::clone(&e.state))
            .ok_or_else(not_found)
    }

    /// Whether `up` is still upload `id` in progress. Every way an upload ends (its last piece,
    /// a bad piece, a failed write, a cancel, idleness, its node's link coming up anew) takes it
    /// out of the map, all but the last under its state's lock; so a request that waited for
    /// the lock behind the one that ended it learns so here, and writes nothing.
    fn still_open(&self, id: &str, up: &Arc<smol::lock::Mutex<State>>) -> bool {
        self.all
            .lock()
            .is_ok_and(|all| all.get(id).is_some_and(|e| Arc::ptr_eq(&e.state, up)))
    }

    fn forget_upload(&self, id: &str) {
        if let Ok(mut all) = self.all.lock() {
            all.remove(id);
        }
    }

    /// Abandons every upload to `node_id` (its link came up anew: a daemon that restarted has
    /// none of them any more, and one that only reconnected may have lost a chunk on the way),
    /// so that the file can be uploaded again at once rather than after [`UPLOAD_IDLE_MS`].
    /// Their next piece is answered 404; the node drops what partial files it still has.
    pub(super) fn abandon_uploads_to(&self, node_id: &str) {
        let gone: Vec<(String, Arc<smol::lock::Mutex<State>>)> = match self.all.lock() {
            Ok(mut all) => {
                let ids: Vec<String> = all
                    .iter()
                    .filter(|(_, e)| e.node_id == node_id)
                    .map(|(id, _)| id.clone())
                    .collect();
                ids.iter()
                    .filter_map(|id| all.remove(id))
                    .map(|e| (e.path, e.state))
                    .collect()
            }
            Err(_) => return,
        };
        if gone.is_empty() {
            return;
        }
        tracing::info!(node = %node_id, uploads = gone.len(), "uploads cut off by the node's link abandoned");
        let Some(me) = self.me.upgrade() else { return };
        let node = node_id.to_owned();
        smol::spawn(async move {
            for (path, state) in gone {
                // After a piece on its way to the node, if one is: the node runs commands in
                // order, so the abandon comes after that piece's chunks.
                let _s = state.lock().await;
                me.abandon_on_node(&node, &path).await;
            }
        })
        .detach();
    }

    /// Makes the node drop its partial file (a chunk out of order abandons an upload there).
    async fn abandon_on_node(&self, node_id: &str, path: &str) {
        let r = self
            .dispatcher
            .node_command(
                node_id,
                Command::WriteFile(WriteFile {
                    path: path.to_owned(),
                    chunk_b64: String::new(),
                    chunk: u32::MAX,
                    eof: false,
                }),
            )
            .await;
        if let Err(e) = r {
            tracing::debug!(path, code = e.code, "upload abandon not delivered");
        }
    }

    /// `POST /api/uploads` into the pane of subshell `row`, which the caller may write to.
    pub(super) async fn start(
        &self,
        c: &Caller,
        row: &store::Subshell,
        req: UploadRequest,
    ) -> Result<Upload, ApiError> {
        if req.size > MAX_UPLOAD_BYTES {
            return Err(ApiError::validation("size", "an upload is at most 64 MiB"));
        }
        let path = format!("{}/{}", row.cwd.trim_end_matches('/'), req.name.as_str());
        let busy = self.all.lock().map_err(|_| ApiError::internal())?.len() >= MAX_UPLOADS;
        if busy {
            return Err(uploads_busy());
        }
        let exists = |d: &serde_json::Value| d.get("exists").and_then(serde_json::Value::as_bool);
        if !req.overwrite {
            let r = self
                .dispatcher
                .node_command(
                    &row.node_id,
                    Command::PathExists(PathArg { path: path.clone() }),
                )
                .await?;
            if exists(&super::dispatch::node_data(r)?) != Some(false) {
                return Err(ApiError::new(
                    409,
                    "UPLOAD_EXISTS",
                    "a file of that name is in the pane's directory (ask for overwrite)",
                )
                .with_metadata(serde_json::json!({ "path": path })));
            }
        }
        let id = crate::secret::new_id()?;
        let state = State {
            user_id: c.user().id.clone(),
            subshell_id: row.id.clone(),
            node_id: row.node_id.clone(),
            path,
            size: req.size,
            received: 0,
            next_piece: 0,
            next_chunk: 0,
            last_ms: self.now(),
            done: false,
            typer: super::subshells::Typer::of(c),
            name: req.name.as_str().to_owned(),
        };
        {
            let mut all = self.all.lock().map_err(|_| ApiError::internal())?;
            // Checked again where the upload is added: other starts may have been added while
            // this one asked the node about the file.
            if all.len() >= MAX_UPLOADS {
                return Err(uploads_busy());
            }
            if all
                .values()
                .any(|e| e.node_id == state.node_id && e.path == state.path)
            {
                return Err(ApiError::new(
                    409,
                    "UPLOAD_EXISTS",
                    "another upload to that file is in progress",
                ));
            }
            all.insert(
                id.clone(),
                Entry {
                    node_id: state.node_id.clone(),
                    path: state.path.clone(),
                    state: Arc::new(smol::lock::Mutex::new(state)),
                },
            );
        }
        let up = self.upload_of(&id)?;
        if req.size == 0 {
            // Nothing to send: the file is written empty at once.
            return self.write_piece(&id, &up, PieceIndex(0), Vec::new()).await;
        }
        self.watch_upload(id.clone());
        let s = up.lock().await;
        Ok(view(&id, &s))
    }

    /// Abandons an upload that receives nothing for [`UPLOAD_IDLE_MS`].
    fn watch_upload(&self, id: String) {
        let Some(me) = self.me.upgrade() else { return };
        smol::spawn(async move {
            loop {
                smol::Timer::after(Duration::from_secs(5)).await;
                let Ok(up) = me.upload_of(&id) else { return };
                let s = up.lock().await;
                if s.done || !me.still_open(&id, &up) {
                    return;
                }
                if me.now() - s.last_ms >= UPLOAD_IDLE_MS {
                    me.forget_upload(&id);
                    me.abandon_on_node(&s.node_id, &s.path).await;
                    tracing::info!(upload = %id, "upload idle for 60 s; abandoned");
                    return;
                }
            }
        })
        .detach();
    }

    async fn own_upload(
        &self,
        c: &Caller,
        id: &str,
    ) -> Result<Arc<smol::lock::Mutex<State>>, ApiError> {
        let up = self.upload_of(id)?;
        if up.lock().await.user_id != c.user().id {
            return Err(not_found());
        }
        Ok(up)
    }

    /// `GET /api/uploads/:id`.
    pub async fn upload(&self, c: &Caller, id: &str) -> Result<Upload, ApiError> {
        let up = self.own_upload(c, id).await?;
        let s = up.lock().await;
        Ok(view(id, &s))
    }

    /// `DELETE /api/uploads/:id`: abandons it; the node's partial file is removed. An upload
    /// that completed (or ended otherwise) while the cancel waited for a piece on its way is not
    /// there any more: 404, and a complete file stays written.
    pub async fn cancel_upload(&self, c: &Caller, id: &str) -> Result<(), ApiError> {
        let up = self.own_upload(c, id).await?;
        let s = up.lock().await;
        if !self.still_open(id, &up) {
            return Err(not_found());
        }
        self.forget_upload(id);
        self.abandon_on_node(&s.node_id, &s.path).await;
        Ok(())
    }

    /// `PUT /api/uploads/:id/pieces/:index`.
    pub async fn upload_piece(
        &self,
        c: &Caller,
        id: &str,
        index: PieceIndex,
        req: PieceRequest,
    ) -> Result<Upload, ApiError> {
        let up = self.own_upload(c, id).await?;
        self.write_piece(id, &up, index, req.data_b64.0).await
    }

    pub(super) async fn write_piece(
        &self,
        id: &str,
        up: &Arc<smol::lock::Mutex<State>>,
        index: PieceIndex,
        data: Vec<u8>,
    ) -> Result<Upload, ApiError> {
        let mut s = up.lock().await;
        // A piece that waited behind the one that completed or abandoned the upload, or behind
        // its cancel, finds it gone (a complete upload is forgotten with its last piece).
        if !self.still_open(id, up) {
            return Err(not_found());
        }
        let expected = PIECE_BYTES.min(s.size - s.received);
        if index.0 != s.next_piece || data.len() as u64 != expected {
            let why = if index.0 == s.next_piece {
                format!("piece {} must be {expected} bytes", index.0)
            } else {
                format!("piece {} out of order (expected {})", index.0, s.next_piece)
            };
            self.forget_upload(id);
            if s.next_chunk > 0 {
                self.abandon_on_node(&s.node_id, &s.path).await;
            }
            return Err(ApiError::new(
                409,
                "UPLOAD_ABANDONED",
                format!("{why}; the upload was abandoned and nothing was left behind"),
            ));
        }
        let last_piece = s.received + expected == s.size;
        let chunks: Vec<&[u8]> = if data.is_empty() {
            vec![&[][..]]
        } else {
            data.chunks(NODE_CHUNK_BYTES).collect()
        };
        let n = chunks.len();
        for (i, chunk) in chunks.into_iter().enumerate() {
            let r = self
                .dispatcher
                .node_command(
                    &s.node_id,
                    Command::WriteFile(WriteFile {
                        path: s.path.clone(),
                        chunk_b64: termplane_proto::key::b64url_encode(chunk),
                        chunk: s.next_chunk,
                        eof: last_piece && i + 1 == n,
                    }),
                )
                .await
                .and_then(super::dispatch::node_data);
            if let Err(e) = r {
                self.forget_upload(id);
                self.abandon_on_node(&s.node_id, &s.path).await;
                return Err(e);
            }
            s.next_chunk += 1;
        }
        s.received += expected;
        s.next_piece += 1;
        s.last_ms = self.now();
        if last_piece {
            s.done = true;
            self.forget_upload(id);
            self.marker.once(
                &s.subshell_id,
                &s.typer,
                crate::api::subshells::InputKind::Upload,
                Some(serde_json::json!({ "name": s.name, "bytes": s.size })),
            );
        }
        Ok(view(id, &s))
    }
}
