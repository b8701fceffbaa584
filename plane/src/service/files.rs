//! Files people keep on the plane (the route shapes are in [`crate::api::files`]).
//!
//! On disk, under `<data dir>/files/`: `<sha256>` blobs (one per distinct content, written once,
//! read-only) and `tmp/<upload id>` for uploads in progress, removed when an upload ends either
//! way and emptied at start. A row is written only after its blob is complete and in place, so
//! no row ever names a partial file; a blob no row names is removed with its last row, and at
//! start.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use super::Caller;
use crate::api::files::{
    FILE_PIECE_BYTES, FileStart, FileUpload, KeptFile, MAX_BYTES_PER_ACCOUNT, MAX_FILE_BYTES,
};
use crate::api::uploads::{PieceIndex, PieceRequest};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::secret;
use crate::store::{FileRow, Store};

/// An upload is abandoned after this long without a piece.
const IDLE_MS: i64 = 60_000;
/// Uploads in progress at once, in all.
const MAX_IN_PROGRESS: usize = 64;

struct Upload1 {
    owner: String,
    name: String,
    size: u64,
    received: u64,
    next_piece: u64,
    hasher: Sha256,
    tmp: PathBuf,
    last_ms: i64,
    /// Set, under this upload's lock, once it takes no more pieces: dropped (idle, a bad piece,
    /// a failed write, deleted) or whole (its bytes being placed). A piece that fetched the
    /// upload just before and waited for its lock then finds it gone (404), instead of writing
    /// to a partial file that was removed or is being moved.
    closed: bool,
}

/// The kept-files domain: the files people and panes keep on the plane, their blobs on disk
/// and the uploads of them in progress. It holds the store, the clock and the files directory
/// (none when the plane has no data directory: it then keeps no files).
pub struct Files {
    store: Store,
    clock: Arc<dyn Clock>,
    /// `<data dir>/files`.
    dir: Option<PathBuf>,
    all: Mutex<HashMap<String, Arc<smol::lock::Mutex<Upload1>>>>,
    /// Bytes each upload holds against its owner's quota (upload id → owner, size), from its
    /// start until it ends either way; a finished upload's are released only after its row is
    /// written, so a start counts them as pending or as kept, never neither. Kept outside the
    /// uploads' own locks, which a piece being written holds.
    reserved: Mutex<HashMap<String, (String, u64)>>,
    /// Serialises starts: reading the bytes kept and reserving the new upload's happen as one
    /// step, so concurrent starts cannot all fit in the same room.
    start_gate: smol::lock::Mutex<()>,
}

fn not_found() -> ApiError {
    ApiError::not_found("file")
}

fn io_fault(e: &std::io::Error) -> ApiError {
    ApiError::from_io(e, "kept files")
}

fn kept(r: &FileRow) -> KeptFile {
    KeptFile {
        id: r.id.clone(),
        name: r.name.clone(),
        size: r.size,
        sha256: r.sha256.clone(),
        created_at: r.created_at,
    }
}

fn progress(id: &str, u: &Upload1, done: bool) -> FileUpload {
    FileUpload {
        file_id: id.to_owned(),
        name: u.name.clone(),
        size: u.size,
        piece_bytes: FILE_PIECE_BYTES,
        pieces: u.size.div_ceil(FILE_PIECE_BYTES).max(1),
        received: u.received,
        done,
    }
}

impl Files {
    /// The service over `store`, keeping files under `<data_dir>/files`.
    pub(super) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        data_dir: Option<&std::path::Path>,
    ) -> Self {
        Self {
            store,
            clock,
            dir: data_dir.map(|d| d.join("files")),
            all: Mutex::default(),
            reserved: Mutex::default(),
            start_gate: smol::lock::Mutex::new(()),
        }
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    fn files_dir(&self) -> Result<PathBuf, ApiError> {
        self.dir
            .clone()
            .ok_or_else(|| ApiError::new(409, "INVALID_STATE", "this plane keeps no files"))
    }

    /// Empties `files/tmp` and removes blobs no row names (run at start).
    pub async fn sweep_files(&self) -> Result<(), ApiError> {
        let Ok(dir) = self.files_dir() else {
            return Ok(());
        };
        let _ = std::fs::remove_dir_all(dir.join("tmp"));
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Ok(());
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.len() == 64
                && name.bytes().all(|b| b.is_ascii_hexdigit())
                && !self.store.blob_in_use(&name).await?
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
        Ok(())
    }

    /// Whose files a caller reaches: a person's, a script's (the `system` account's), or — for
    /// a pane's token — the pane's owner's.
    fn file_owner(c: &Caller) -> String {
        c.user().id.clone()
    }

    /// [`Self::file_owner`] for a change (keeping a file, a piece of one, deleting one). A
    /// pane's token needs `channels: write` for it: kept files are what panes publish for
    /// people and other panes, the audience of a channel post, and a pane that may only read
    /// channels neither publishes nor deletes what its owner keeps.
    fn file_writer(c: &Caller) -> Result<String, ApiError> {
        if let Caller::Pane { permissions, .. } = c
            && permissions.channels != crate::api::subshells::Access::Write
        {
            return Err(ApiError::new(
                403,
                "PERMISSION_DENIED",
                "the pane's token may only read channels: it cannot keep or delete files",
            ));
        }
        Ok(c.user().id.clone())
    }

    /// Drops uploads idle for [`IDLE_MS`] (their partial files too).
    fn drop_idle_file_uploads(&self) {
        let now = self.now();
        let mut gone = Vec::new();
        if let Ok(mut all) = self.all.lock() {
            all.retain(|id, u| {
                // A piece being written holds the lock: such an upload is not idle.
                let Some(mut u) = u.try_lock() else {
                    return true;
                };
                if now - u.last_ms < IDLE_MS {
                    return true;
                }
                u.closed = true;
                gone.push((id.clone(), u.tmp.clone()));
                false
            });
        }
        for (id, p) in gone {
            let _ = std::fs::remove_file(p);
            self.release_file_bytes(&id);
        }
    }

    fn forget_file_upload(&self, id: &str) {
        if let Ok(mut all) = self.all.lock() {
            all.remove(id);
        }
        self.release_file_bytes(id);
    }

    fn release_file_bytes(&self, id: &str) {
        if let Ok(mut reserved) = self.reserved.lock() {
            reserved.remove(id);
        }
    }

    /// `POST /api/files`.
    pub async fn start_file(&self, c: &Caller, req: FileStart) -> Result<FileUpload, ApiError> {
        let owner = Self::file_writer(c)?;
        if req.size > MAX_FILE_BYTES {
            return Err(ApiError::validation("size", "a file is at most 64 MiB"));
        }
        self.drop_idle_file_uploads();
        let gate = self.start_gate.lock().await;
        if self.all.lock().map_err(|_| ApiError::internal())?.len() >= MAX_IN_PROGRESS {
            return Err(ApiError::new(
                409,
                "UPLOADS_BUSY",
                "too many uploads are in progress; try again shortly",
            ));
        }
        let kept_bytes = u64::try_from(self.store.file_bytes_of(&owner).await?).unwrap_or(0);
        let pending: u64 = self
            .reserved
            .lock()
            .map_err(|_| ApiError::internal())?
            .values()
            .filter(|(o, _)| *o == owner)
            .map(|(_, size)| size)
            .sum();
        if kept_bytes + pending + req.size > MAX_BYTES_PER_ACCOUNT {
            return Err(ApiError::new(
                409,
                "QUOTA_EXCEEDED",
                "an account keeps at most 1 GiB of files: delete some first",
            ));
        }
        let id = secret::new_id()?;
        let tmp_dir = self.files_dir()?.join("tmp");
        std::fs::create_dir_all(&tmp_dir).map_err(|e| io_fault(&e))?;
        let tmp = tmp_dir.join(&id);
        std::fs::File::create(&tmp).map_err(|e| io_fault(&e))?;
        let up = Upload1 {
            owner,
            name: req.name.as_str().to_owned(),
            size: req.size,
            received: 0,
            next_piece: 0,
            hasher: Sha256::new(),
            tmp,
            last_ms: self.now(),
            closed: false,
        };
        let view = progress(&id, &up, false);
        self.reserved
            .lock()
            .map_err(|_| ApiError::internal())?
            .insert(id.clone(), (up.owner.clone(), up.size));
        self.all
            .lock()
            .map_err(|_| ApiError::internal())?
            .insert(id.clone(), Arc::new(smol::lock::Mutex::new(up)));
        drop(gate);
        if req.size == 0 {
            return self.finish_file(&id).await;
        }
        Ok(view)
    }

    /// `PUT /api/files/{id}/pieces/{index}`.
    pub async fn file_piece(
        &self,
        c: &Caller,
        id: &str,
        index: PieceIndex,
        req: PieceRequest,
    ) -> Result<FileUpload, ApiError> {
        let owner = Self::file_writer(c)?;
        let up = self
            .all
            .lock()
            .map_err(|_| ApiError::internal())?
            .get(id)
            .cloned()
            .ok_or_else(not_found)?;
        let data = req.data_b64.0;
        let last = {
            let mut u = up.lock().await;
            if u.owner != owner || u.closed {
                return Err(not_found());
            }
            let expected = FILE_PIECE_BYTES.min(u.size - u.received);
            if index.0 != u.next_piece || data.len() as u64 != expected {
                let why = if index.0 == u.next_piece {
                    format!("piece {} must be {expected} bytes", index.0)
                } else {
                    format!("piece {} out of order (expected {})", index.0, u.next_piece)
                };
                u.closed = true;
                self.forget_file_upload(id);
                let _ = std::fs::remove_file(&u.tmp);
                return Err(ApiError::new(
                    409,
                    "UPLOAD_ABANDONED",
                    format!("{why}; the upload was abandoned and nothing was kept"),
                ));
            }
            let tmp = u.tmp.clone();
            let written = smol::unblock(move || -> std::io::Result<Vec<u8>> {
                let mut f = std::fs::OpenOptions::new().append(true).open(&tmp)?;
                f.write_all(&data)?;
                Ok(data)
            })
            .await;
            let data = match written {
                Ok(d) => d,
                Err(e) => {
                    u.closed = true;
                    self.forget_file_upload(id);
                    let _ = std::fs::remove_file(&u.tmp);
                    return Err(io_fault(&e));
                }
            };
            u.hasher.update(&data);
            u.received += expected;
            u.next_piece += 1;
            u.last_ms = self.now();
            if u.received < u.size {
                return Ok(progress(id, &u, false));
            }
            u.closed = true;
            true
        };
        debug_assert!(last);
        self.finish_file(id).await
    }

    /// The last piece arrived: move the bytes into their blob and write the row; the upload's
    /// bytes stop being reserved once the row is written (or the upload failed).
    async fn finish_file(&self, id: &str) -> Result<FileUpload, ApiError> {
        let done = self.place_file(id).await;
        self.release_file_bytes(id);
        done
    }

    async fn place_file(&self, id: &str) -> Result<FileUpload, ApiError> {
        let up = self
            .all
            .lock()
            .map_err(|_| ApiError::internal())?
            .remove(id)
            .ok_or_else(not_found)?;
        let u = up.lock().await;
        let sha256 = secret::hex_lower(&u.hasher.clone().finalize());
        let blob = self.files_dir()?.join(&sha256);
        let tmp = u.tmp.clone();
        let placed = smol::unblock({
            let blob = blob.clone();
            move || -> std::io::Result<()> {
                std::fs::File::open(&tmp)?.sync_all()?;
                if blob.exists() {
                    std::fs::remove_file(&tmp)
                } else {
                    std::fs::rename(&tmp, &blob)
                }
            }
        })
        .await;
        if let Err(e) = placed {
            let _ = std::fs::remove_file(&u.tmp);
            return Err(io_fault(&e));
        }
        let row = FileRow {
            id: id.to_owned(),
            owner_user_id: u.owner.clone(),
            name: u.name.clone(),
            size: i64::try_from(u.size).unwrap_or(i64::MAX),
            sha256: sha256.clone(),
            created_at: self.now(),
        };
        if let Err(e) = self.store.add_file(&row).await {
            if !self.store.blob_in_use(&sha256).await.unwrap_or(true) {
                let _ = std::fs::remove_file(&blob);
            }
            return Err(e.into());
        }
        Ok(progress(id, &u, true))
    }

    /// `GET /api/files`.
    pub async fn files(&self, c: &Caller) -> Result<Vec<KeptFile>, ApiError> {
        let owner = Self::file_owner(c);
        Ok(self
            .store
            .files_of(&owner)
            .await?
            .iter()
            .map(kept)
            .collect())
    }

    pub(super) async fn own_file(&self, c: &Caller, id: &str) -> Result<FileRow, ApiError> {
        let owner = Self::file_owner(c);
        self.store
            .file(id)
            .await?
            .filter(|f| f.owner_user_id == owner)
            .ok_or_else(not_found)
    }

    /// `GET /api/files/{id}`.
    pub async fn file(&self, c: &Caller, id: &str) -> Result<KeptFile, ApiError> {
        Ok(kept(&self.own_file(c, id).await?))
    }

    /// `GET /api/files/{id}/content`: where the bytes are, their length, digest and name.
    pub async fn file_content(
        &self,
        c: &Caller,
        id: &str,
    ) -> Result<(PathBuf, u64, String, String), ApiError> {
        let f = self.own_file(c, id).await?;
        let path = self.files_dir()?.join(&f.sha256);
        let len = std::fs::metadata(&path).map_err(|e| io_fault(&e))?.len();
        Ok((path, len, f.sha256, f.name))
    }

    /// `GET /api/files/{id}/bytes`: a byte range of a kept file (from a `fromByte` at or past
    /// its end, nothing: the answer's range is empty, at the end, beside the file's size).
    pub async fn file_bytes(
        &self,
        c: &Caller,
        id: &str,
        q: &crate::api::files::FileBytesQuery,
    ) -> Result<crate::api::files::FileBytes, ApiError> {
        use std::io::{Read as _, Seek as _};
        let f = self.own_file(c, id).await?;
        let path = self.files_dir()?.join(&f.sha256);
        let (from, max) = (q.from_byte, u64::from(q.max_bytes));
        let (size, bytes) = smol::unblock(move || -> std::io::Result<(u64, Vec<u8>)> {
            let mut file = std::fs::File::open(&path)?;
            let size = file.metadata()?.len();
            if from > size {
                return Ok((size, Vec::new()));
            }
            file.seek(std::io::SeekFrom::Start(from))?;
            let mut bytes = Vec::new();
            file.take(max).read_to_end(&mut bytes)?;
            Ok((size, bytes))
        })
        .await
        .map_err(|e| io_fault(&e))?;
        let from = from.min(size);
        Ok(crate::api::files::FileBytes {
            name: f.name,
            from_byte: from,
            to_byte: from + bytes.len() as u64,
            size,
            data_b64: <base64ct::Base64 as base64ct::Encoding>::encode_string(&bytes),
        })
    }

    /// `DELETE /api/files/{id}`: an upload in progress is abandoned; a kept file's row goes,
    /// and its blob when no other row names it.
    pub async fn delete_file(&self, c: &Caller, id: &str) -> Result<(), ApiError> {
        let owner = Self::file_writer(c)?;
        let pending = self
            .all
            .lock()
            .map_err(|_| ApiError::internal())?
            .get(id)
            .cloned();
        if let Some(up) = pending {
            let mut u = up.lock().await;
            if u.owner == owner && !u.closed {
                u.closed = true;
                self.forget_file_upload(id);
                let _ = std::fs::remove_file(&u.tmp);
                return Ok(());
            }
        }
        let f = self.own_file(c, id).await?;
        if !self.store.delete_file(id, &owner, self.now()).await? {
            return Err(not_found());
        }
        if !self.store.blob_in_use(&f.sha256).await? {
            let _ = std::fs::remove_file(self.files_dir()?.join(&f.sha256));
        }
        Ok(())
    }

    /// Removes the blobs of `rows` that no row names any more (their rows were deleted with
    /// their account).
    pub(super) async fn drop_unused_blobs(&self, rows: &[FileRow]) -> Result<(), ApiError> {
        let dir = self.files_dir()?;
        for f in rows {
            if !self.store.blob_in_use(&f.sha256).await? {
                let _ = std::fs::remove_file(dir.join(&f.sha256));
            }
        }
        Ok(())
    }

    /// The content of a kept file, open for reading.
    pub(super) fn open_blob(&self, f: &FileRow) -> Result<std::fs::File, ApiError> {
        let path = self.files_dir()?.join(&f.sha256);
        std::fs::File::open(&path).map_err(|e| io_fault(&e))
    }
}
