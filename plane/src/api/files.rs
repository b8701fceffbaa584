//! Files people keep on the plane for their panes: attachments to paste into an agent's prompt,
//! artifacts to hand from one pane to another.
//!
//! 1. `POST /api/files` `{name, size}` starts an upload (at most [`MAX_FILE_BYTES`]; an account
//!    keeps at most [`MAX_BYTES_PER_ACCOUNT`] in all); the answer has its id and the piece size.
//! 2. `PUT /api/files/{id}/pieces/{index}` `{dataB64}` sends the pieces in order, each exactly
//!    `pieceBytes` long but the last. The last piece keeps the file: its SHA-256 is computed and
//!    the row appears in `GET /api/files`. A piece out of order or of the wrong size, `DELETE`
//!    during the upload, or 60 seconds without a piece abandons it; nothing is kept.
//! 3. `GET /api/files/{id}/content` downloads it; `DELETE /api/files/{id}` removes it;
//!    `POST /api/files/{id}/send` `{subshellId, overwrite}` writes it into a pane's working
//!    directory on its node (the node's path policy applies, as for `/api/uploads`).
//!
//! The bytes are stored under the plane's data directory named by their SHA-256 — never by a
//! name from a request — and one copy serves every row with that content. Files are their
//! owner's alone (an administrator does not see other accounts' files); a pane's token reaches
//! its owner's files (a pane publishes artifacts with its MCP server's `publish_file`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::RowId;
use super::uploads::{FileName, PIECE_BYTES};

/// Largest file: 64 MiB.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Most bytes one account keeps: 1 GiB.
pub const MAX_BYTES_PER_ACCOUNT: u64 = 1024 * 1024 * 1024;
/// Bytes per piece (as for uploads into panes).
pub const FILE_PIECE_BYTES: u64 = PIECE_BYTES;

/// `POST /api/files`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FileStart {
    /// The file's name.
    pub name: FileName,
    /// Its size in bytes (0 to 64 MiB).
    #[schemars(range(max = 67_108_864))]
    pub size: u64,
}

/// An upload of a file to the plane, in progress or done.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileUpload {
    /// The file's id (its row's, once kept).
    pub file_id: String,
    /// Its name.
    pub name: String,
    /// Its size.
    pub size: u64,
    /// Bytes per piece.
    pub piece_bytes: u64,
    /// Pieces in all.
    pub pieces: u64,
    /// Bytes received so far.
    pub received: u64,
    /// Whether the file is kept.
    pub done: bool,
}

/// A kept file.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeptFile {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its size in bytes.
    pub size: i64,
    /// Lowercase hex SHA-256 of its bytes.
    pub sha256: String,
    /// When it was kept (ms since the Unix epoch).
    pub created_at: i64,
}

/// `GET /api/files/{id}/bytes` query: a byte range of a kept file.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FileBytesQuery {
    /// First byte to read (default 0; past the file's end reads nothing).
    #[serde(default)]
    pub from_byte: u64,
    /// Most bytes to read (default and at most 1 MiB).
    #[serde(
        default = "super::subshells::default_max_bytes",
        deserialize_with = "super::subshells::max_bytes"
    )]
    #[schemars(range(min = 1, max = 1_048_576))]
    pub max_bytes: u32,
}

/// `GET /api/files/{id}/bytes` answer: a byte range of a kept file, for a client that reads
/// JSON only (a pane's MCP server).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileBytes {
    /// The file's name.
    pub name: String,
    /// The first byte returned.
    pub from_byte: u64,
    /// One past the last byte returned.
    pub to_byte: u64,
    /// The file's size.
    pub size: u64,
    /// The bytes, base64 (standard alphabet, padded).
    pub data_b64: String,
}

/// `POST /api/files/{id}/send`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SendFile {
    /// The pane whose working directory receives the file (under the file's name).
    pub subshell_id: RowId,
    /// Replace a file of that name there.
    #[serde(default)]
    pub overwrite: bool,
}
