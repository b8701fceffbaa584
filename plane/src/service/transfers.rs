//! Files into panes: an upload started into a pane the caller may write to, and a kept file sent
//! into one through the same upload path.
//!
//! The pane is checked here with the subshells' access rules ([`Lookup`]); the upload itself is
//! the [`Uploads`] service's, a kept file the [`Files`] service's.

use std::io::Read as _;
use std::sync::Arc;

use super::subshells::{Lookup, Need};
use super::{Caller, Files, Uploads};
use crate::api::files::{FILE_PIECE_BYTES, SendFile};
use crate::api::uploads::{PieceIndex, Upload, UploadRequest};
use crate::error::ApiError;

/// Starting an upload into a pane, and sending a kept file into one.
pub struct Transfers {
    lookup: Arc<Lookup>,
    files: Arc<Files>,
    uploads: Arc<Uploads>,
}

impl std::fmt::Debug for Transfers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transfers").finish_non_exhaustive()
    }
}

impl Transfers {
    pub(super) fn new(lookup: Arc<Lookup>, files: Arc<Files>, uploads: Arc<Uploads>) -> Self {
        Self {
            lookup,
            files,
            uploads,
        }
    }

    /// `POST /api/uploads`: into a pane the caller may write to.
    pub async fn start_upload(&self, c: &Caller, req: UploadRequest) -> Result<Upload, ApiError> {
        let row = self
            .lookup
            .reach_subshell(c, req.subshell_id.as_str(), Need::Write)
            .await?;
        self.uploads.start(c, &row, req).await
    }

    /// `POST /api/files/{id}/send`: writes a kept file into a pane's working directory through
    /// the same upload path a browser's drop takes (write access to the pane, the node's path
    /// policy, nothing left behind on failure).
    pub async fn send_file(&self, c: &Caller, id: &str, req: SendFile) -> Result<Upload, ApiError> {
        let f = self.files.own_file(c, id).await?;
        let start: UploadRequest = serde_json::from_value(serde_json::json!({
            "subshellId": req.subshell_id.as_str(),
            "name": f.name,
            "size": f.size,
            "overwrite": req.overwrite,
        }))
        .map_err(|_| ApiError::internal())?;
        let mut view = self.start_upload(c, start).await?;
        let mut file = self.files.open_blob(&f)?;
        let piece = usize::try_from(FILE_PIECE_BYTES).unwrap_or(usize::MAX);
        let mut index = 0;
        while !view.done {
            let mut buf = vec![0_u8; piece];
            let mut n = 0;
            while n < piece {
                let got = file
                    .read(&mut buf[n..])
                    .map_err(|e| ApiError::from_io(&e, "kept files"))?;
                if got == 0 {
                    break;
                }
                n += got;
            }
            buf.truncate(n);
            view = self
                .uploads
                .write_piece(&view.upload_id, PieceIndex(index), buf)
                .await?;
            index += 1;
        }
        Ok(view)
    }
}
