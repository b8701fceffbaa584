//! Uploads into panes (see [`crate::api::uploads`] for the protocol a client follows).
//!
//! The plane writes each upload on the pane's node with `write_file`, in node chunks of
//! [`NODE_CHUNK_BYTES`] (a command must fit the link's 64 KiB envelope). The node writes into a
//! hidden partial file next to the destination and renames it into place with the last chunk; a
//! chunk out of order makes it remove the partial file, which is how the plane abandons an
//! upload.
//!
//! An upload in progress is a row of the database (`uploads`), so that on a cluster a piece is
//! taken at whichever replica the load balancer sends it to. A replica writing a piece holds a
//! claim on the row (`writing_until`): requests for one upload at one replica take turns, and a
//! piece or cancel that meets another replica's claim is refused 409 `INVALID_STATE` (a client
//! sends the next piece once the last one is answered, so only a client that does not wait
//! meets it). A claim that lapses — its replica stopped in the middle of a piece, leaving the
//! node's partial file in an unknown state — abandons the upload. The cap on uploads in
//! progress ([`MAX_UPLOADS`]) is the whole cluster's.

use std::sync::Arc;
use std::time::Duration;

use termplane_proto::command::{Command, PathArg, WriteFile};

use super::Caller;
use super::dispatch::Dispatcher;
use crate::api::uploads::{
    MAX_UPLOAD_BYTES, PIECE_BYTES, PieceIndex, PieceRequest, Upload, UploadRequest,
};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::store::{self, AddUpload, Store, UploadRow};

/// Raw bytes per `write_file` command.
pub(super) const NODE_CHUNK_BYTES: usize = 32 * 1024;
/// An upload with no piece for this long is abandoned (ms).
pub(super) const UPLOAD_IDLE_MS: i64 = 60_000;
/// Most uploads in progress at once (on a cluster, across its replicas).
pub(super) const MAX_UPLOADS: usize = 256;
/// Requests for one upload at one replica take turns on one of this many locks (by the
/// upload's id): a piece that arrives while another is written waits for it.
const TURNS: usize = 64;

/// Who uploads, as the row keeps it (for the pane's input mark once the file is complete).
#[derive(serde::Serialize, serde::Deserialize)]
struct KeptTyper {
    user_id: String,
    actor_kind: String,
    via_subshell_id: Option<String>,
}

fn keep_typer(t: &super::subshells::Typer) -> String {
    serde_json::to_string(&KeptTyper {
        user_id: t.user_id.clone(),
        actor_kind: t.actor_kind.to_owned(),
        via_subshell_id: t.via_subshell_id.clone(),
    })
    .unwrap_or_default()
}

fn kept_typer(s: &str) -> Option<super::subshells::Typer> {
    let k: KeptTyper = serde_json::from_str(s).ok()?;
    let actor_kind = ["cookie", "system_key", "pane"]
        .into_iter()
        .find(|a| *a == k.actor_kind)?;
    Some(super::subshells::Typer {
        user_id: k.user_id,
        actor_kind,
        via_subshell_id: k.via_subshell_id,
    })
}

/// The uploads-into-panes domain: the uploads in progress (rows of the database), each written
/// on its pane's node through the dispatcher. It holds the store, the dispatcher and the clock
/// (and itself, weakly, for the tasks that abandon an idle upload).
pub struct Uploads {
    clock: Arc<dyn Clock>,
    store: Store,
    dispatcher: Arc<Dispatcher>,
    marker: Arc<super::subshells::Marker>,
    turns: Vec<smol::lock::Mutex<()>>,
    me: std::sync::Weak<Self>,
}

fn size_of(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn view(u: &UploadRow, done: bool) -> Upload {
    let size = size_of(u.size);
    Upload {
        upload_id: u.id.clone(),
        subshell_id: u.subshell_id.clone(),
        path: u.path.clone(),
        size,
        piece_bytes: PIECE_BYTES,
        pieces: size.div_ceil(PIECE_BYTES).max(1),
        received: size_of(u.received),
        done,
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

fn written_elsewhere() -> ApiError {
    ApiError::new(
        409,
        "INVALID_STATE",
        "a piece of this upload is being written (through another replica of the plane); \
         send this again once that piece is answered",
    )
}

fn abandoned(why: &str) -> ApiError {
    ApiError::new(
        409,
        "UPLOAD_ABANDONED",
        format!("{why}; the upload was abandoned and nothing was left behind"),
    )
}

impl Uploads {
    /// Uploads kept in `store`; chunks go through `dispatcher`.
    pub(super) fn new(
        clock: Arc<dyn Clock>,
        store: Store,
        dispatcher: Arc<Dispatcher>,
        marker: Arc<super::subshells::Marker>,
    ) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            clock,
            store,
            dispatcher,
            marker,
            turns: (0..TURNS).map(|_| smol::lock::Mutex::new(())).collect(),
            me: me.clone(),
        })
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The lock upload `id`'s requests take turns on at this replica.
    fn turn(&self, id: &str) -> &smol::lock::Mutex<()> {
        let h = id.bytes().fold(0_usize, |h, b| {
            h.wrapping_mul(31).wrapping_add(usize::from(b))
        });
        &self.turns[h % TURNS]
    }

    /// Abandons every upload to `node_id` that no piece is being written for (its link came up
    /// anew: a daemon that restarted has none of them any more, and one that only reconnected
    /// may have lost a chunk on the way), so that the file can be uploaded again at once rather
    /// than after [`UPLOAD_IDLE_MS`]. Their next piece is answered 404; the node drops what
    /// partial files it still has. (A piece on its way learns of the new link from its own
    /// chunks: a chunk the node did not take fails the piece, which abandons the upload.)
    pub(super) fn abandon_uploads_to(&self, node_id: &str) {
        let Some(me) = self.me.upgrade() else { return };
        let node = node_id.to_owned();
        smol::spawn(async move {
            let now = me.now();
            match me
                .store
                .end_uploads(Some(&node), now - UPLOAD_IDLE_MS, now)
                .await
            {
                Ok(gone) if !gone.is_empty() => {
                    tracing::info!(node = %node, uploads = gone.len(), "uploads cut off by the node's link (or idle) abandoned");
                    for u in gone {
                        me.abandon_on_node(&u.node_id, &u.path).await;
                    }
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "uploads to a node whose link came up anew not abandoned"),
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

    /// Abandons the uploads idle for [`UPLOAD_IDLE_MS`] or whose claim lapsed, wherever they
    /// were started (a replica that stopped leaves its uploads to the others).
    async fn sweep(&self) {
        let now = self.now();
        match self
            .store
            .end_uploads(None, now - UPLOAD_IDLE_MS, now)
            .await
        {
            Ok(gone) => {
                for u in gone {
                    tracing::info!(upload = %u.id, "upload idle for 60 s (or cut off in a piece); abandoned");
                    self.abandon_on_node(&u.node_id, &u.path).await;
                }
            }
            Err(e) => tracing::debug!(error = %e, "idle uploads not swept"),
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
        self.sweep().await;
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
        let u = UploadRow {
            id: crate::secret::new_id()?,
            user_id: c.user().id.clone(),
            subshell_id: row.id.clone(),
            node_id: row.node_id.clone(),
            path,
            name: req.name.as_str().to_owned(),
            typer: keep_typer(&super::subshells::Typer::of(c)),
            size: i64::try_from(req.size).map_err(|_| ApiError::internal())?,
            received: 0,
            next_piece: 0,
            next_chunk: 0,
            last_at: self.now(),
            writing_until: 0,
        };
        let cap = i64::try_from(MAX_UPLOADS).unwrap_or(i64::MAX);
        match self.store.add_upload(&u, cap).await {
            Ok(()) => {}
            Err(AddUpload::Busy) => return Err(uploads_busy()),
            Err(AddUpload::Collides) => {
                return Err(ApiError::new(
                    409,
                    "UPLOAD_EXISTS",
                    "another upload to that file is in progress",
                ));
            }
            Err(AddUpload::Db(e)) => return Err(e.into()),
        }
        if req.size == 0 {
            // Nothing to send: the file is written empty at once.
            return self.write_piece(&u.id, PieceIndex(0), Vec::new()).await;
        }
        self.watch_upload(u.id.clone());
        Ok(view(&u, false))
    }

    /// Abandons upload `id` once it receives nothing for [`UPLOAD_IDLE_MS`] (looked at by the
    /// replica that started it; the others sweep it at their next start if this one stops).
    fn watch_upload(&self, id: String) {
        let Some(me) = self.me.upgrade() else { return };
        smol::spawn(async move {
            loop {
                smol::Timer::after(Duration::from_secs(5)).await;
                match me.store.upload(&id).await {
                    Ok(Some(u)) if me.now() - u.last_at < UPLOAD_IDLE_MS => {}
                    Ok(Some(_)) => {
                        let now = me.now();
                        // Only if still idle and no piece is being written: one that came in
                        // through another replica meanwhile keeps it.
                        match me.store.end_idle_upload(&id, now - UPLOAD_IDLE_MS, now).await {
                            Ok(Some(u)) => {
                                me.abandon_on_node(&u.node_id, &u.path).await;
                                tracing::info!(upload = %id, "upload idle for 60 s; abandoned");
                                return;
                            }
                            Ok(None) => {}
                            Err(e) => tracing::debug!(upload = %id, error = %e, "an idle upload not abandoned"),
                        }
                    }
                    Ok(None) => return,
                    Err(e) => tracing::debug!(upload = %id, error = %e, "an upload's idleness not looked at"),
                }
            }
        })
        .detach();
    }

    async fn own_upload(&self, c: &Caller, id: &str) -> Result<UploadRow, ApiError> {
        match self.store.upload(id).await? {
            Some(u) if u.user_id == c.user().id => Ok(u),
            _ => Err(not_found()),
        }
    }

    /// `GET /api/uploads/:id`.
    pub async fn upload(&self, c: &Caller, id: &str) -> Result<Upload, ApiError> {
        Ok(view(&self.own_upload(c, id).await?, false))
    }

    /// `DELETE /api/uploads/:id`: abandons it; the node's partial file is removed. An upload
    /// that completed (or ended otherwise) while the cancel waited for a piece on its way is not
    /// there any more: 404, and a complete file stays written.
    pub async fn cancel_upload(&self, c: &Caller, id: &str) -> Result<(), ApiError> {
        self.own_upload(c, id).await?;
        let _turn = self.turn(id).lock().await;
        match self.store.end_upload(id, None, self.now()).await? {
            Some(u) => {
                self.abandon_on_node(&u.node_id, &u.path).await;
                Ok(())
            }
            None if self.store.upload(id).await?.is_some() => Err(written_elsewhere()),
            None => Err(not_found()),
        }
    }

    /// `PUT /api/uploads/:id/pieces/:index`.
    pub async fn upload_piece(
        &self,
        c: &Caller,
        id: &str,
        index: PieceIndex,
        req: PieceRequest,
    ) -> Result<Upload, ApiError> {
        self.own_upload(c, id).await?;
        self.write_piece(id, index, req.data_b64.0).await
    }

    /// Writes piece `index` of upload `id` (whose owner the caller was checked to be).
    pub(super) async fn write_piece(
        &self,
        id: &str,
        index: PieceIndex,
        data: Vec<u8>,
    ) -> Result<Upload, ApiError> {
        let _turn = self.turn(id).lock().await;
        let now = self.now();
        let chunks = data.len().div_ceil(NODE_CHUNK_BYTES).max(1);
        let deadline = termplane_proto::limits::COMMAND_DEADLINE.as_millis();
        let claim = now + i64::try_from(deadline * (chunks as u128 + 2)).unwrap_or(i64::MAX / 4);
        let Some(mut u) = self.store.claim_upload(id, claim).await? else {
            // A piece that waited behind the one that completed or abandoned the upload, or
            // behind its cancel, finds it gone (a complete upload is forgotten with its last
            // piece).
            return match self.store.upload(id).await? {
                None => Err(not_found()),
                Some(u) if u.writing_until > now => Err(written_elsewhere()),
                Some(_) => {
                    if let Some(u) = self.store.end_upload(id, None, now).await? {
                        self.abandon_on_node(&u.node_id, &u.path).await;
                    }
                    Err(abandoned("the replica writing its last piece stopped"))
                }
            };
        };
        let (size, received) = (size_of(u.size), size_of(u.received));
        let expected = PIECE_BYTES.min(size - received);
        let in_order = u64::try_from(u.next_piece).is_ok_and(|n| n == index.0);
        if !in_order || data.len() as u64 != expected {
            let why = if in_order {
                format!("piece {} must be {expected} bytes", index.0)
            } else {
                format!("piece {} out of order (expected {})", index.0, u.next_piece)
            };
            self.store.end_upload(id, Some(claim), now).await?;
            if u.next_chunk > 0 {
                self.abandon_on_node(&u.node_id, &u.path).await;
            }
            return Err(abandoned(&why));
        }
        let last_piece = received + expected == size;
        let parts: Vec<&[u8]> = if data.is_empty() {
            vec![&[][..]]
        } else {
            data.chunks(NODE_CHUNK_BYTES).collect()
        };
        let n = parts.len();
        for (i, chunk) in parts.into_iter().enumerate() {
            let r = self
                .dispatcher
                .node_command(
                    &u.node_id,
                    Command::WriteFile(WriteFile {
                        path: u.path.clone(),
                        chunk_b64: termplane_proto::key::b64url_encode(chunk),
                        chunk: u32::try_from(u.next_chunk).unwrap_or(u32::MAX - 1),
                        eof: last_piece && i + 1 == n,
                    }),
                )
                .await
                .and_then(super::dispatch::node_data);
            if let Err(e) = r {
                let _ = self.store.end_upload(id, Some(claim), self.now()).await;
                self.abandon_on_node(&u.node_id, &u.path).await;
                return Err(e);
            }
            u.next_chunk += 1;
        }
        u.received += i64::try_from(expected).unwrap_or(0);
        u.next_piece += 1;
        u.last_at = self.now();
        if last_piece {
            // The file is in place, whatever happens to the row now.
            let _ = self.store.end_upload(id, Some(claim), u.last_at).await;
            if let Some(typer) = kept_typer(&u.typer) {
                self.marker.once(
                    &u.subshell_id,
                    &typer,
                    crate::api::subshells::InputKind::Upload,
                    Some(serde_json::json!({ "name": u.name, "bytes": size })),
                );
            }
            return Ok(view(&u, true));
        }
        if !self.store.wrote_piece(&u, claim).await? {
            // Ended meanwhile (this piece outlived its claim, and another replica took the
            // upload out as cut off): the partial file goes.
            self.abandon_on_node(&u.node_id, &u.path).await;
            return Err(not_found());
        }
        Ok(view(&u, false))
    }
}
