//! Uploads into a pane: a file dropped onto a terminal is written into the pane's working
//! directory on its node, in pieces, with the node's path policy.
//!
//! 1. `POST /api/uploads` names the subshell, the file name and its size (at most
//!    [`MAX_UPLOAD_BYTES`]); the answer has the upload's id, where the file will be, and the
//!    piece size ([`PIECE_BYTES`]).
//! 2. `PUT /api/uploads/{id}/pieces/{index}` sends the pieces in order, from 0, each exactly
//!    `pieceBytes` long but the last; each answer says how much has arrived (the progress).
//!    The last piece puts the file in place (an existing file is replaced only when the upload
//!    asked for `overwrite`).
//! 3. `DELETE /api/uploads/{id}` abandons it. So does any failure (a piece out of order or of
//!    the wrong size, a node refusal, the node going offline) and 60 seconds without a piece:
//!    the node's partial file is removed and nothing is left behind.
//! 4. An upload that ended (complete, abandoned or cancelled) is gone: its id answers 404,
//!    also to a piece or a cancel that arrived while the request ending it was under way. A
//!    cancel answered 204 leaves no file; a last piece answered `done` leaves the whole file.
//!
//! Uploads in progress are kept in the plane's database, so on a cluster each request may reach
//! any replica. A piece (or a cancel) that arrives at one replica while another writes a piece
//! of the same upload is refused 409 `INVALID_STATE`, to be sent again: only a client that
//! sends the next piece before the last one is answered meets it. A replica that stops in the
//! middle of a piece leaves the node's partial file unknown: the upload's next piece abandons
//! it (409 `UPLOAD_ABANDONED`). A node whose link comes up anew (a daemon restart, a plane
//! restart, its replica gone) has the uploads to it abandoned, since a chunk may have been lost
//! on the way. The node cleans up by itself where the plane cannot tell it to: a
//! daemon (or the plane, for its own host) that stops removes the partial files of the uploads
//! it had under way, and one that receives no piece for 120 seconds (its plane restarted, or
//! the link dropped) removes its partial file then. A node that is killed outright (SIGKILL,
//! power loss) leaves its partial files (`.<name>.tp-upload-<tag>.part`, beside the file), and
//! removes them when it next starts: it notes each one in its data directory before writing it.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use super::{RowId, check_chars};

/// Largest file an upload takes: 64 MiB.
pub const MAX_UPLOAD_BYTES: u64 = 64 * 1024 * 1024;
/// Bytes per piece (the last may be shorter): 192 KiB, a JSON body of about 256 KiB.
pub const PIECE_BYTES: u64 = 192 * 1024;

/// A file name: 1 to 255 characters, no `/`, not `.` or `..`, none of the forbidden characters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct FileName(String);

impl FileName {
    /// Validates `s`.
    pub fn new(s: &str) -> Result<Self, String> {
        let n = s.chars().count();
        if !(1..=255).contains(&n) {
            return Err("must be 1 to 255 characters".into());
        }
        if s.contains('/') || s == "." || s == ".." {
            return Err("must be a file name, not a path".into());
        }
        check_chars(s)?;
        Ok(Self(s.to_owned()))
    }

    /// The name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The pattern of [`FileName`], without look-ahead: a first character other than `.`, or `.`
/// and a second other than `.`, or `..` and more; never `/` nor a forbidden character.
#[must_use]
pub fn file_name_pattern() -> String {
    let f = super::forbidden_class();
    format!("^([^./{f}][^/{f}]*|\\.[^./{f}][^/{f}]*|\\.\\.[^/{f}]+)$")
}

impl<'de> Deserialize<'de> for FileName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::new(&s).map_err(de::Error::custom)
    }
}

impl JsonSchema for FileName {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "FileName".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "minLength": 1,
            "maxLength": 255,
            "pattern": file_name_pattern(),
            "description": "A file name: no `/`, not `.` or `..`, no control, invisible or bidirectional-control characters."
        })
    }
}

/// `POST /api/uploads`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UploadRequest {
    /// The pane whose working directory receives the file.
    pub subshell_id: RowId,
    /// The file's name there.
    pub name: FileName,
    /// Its size in bytes (0 to 64 MiB).
    #[schemars(range(max = 67_108_864))]
    pub size: u64,
    /// Replace a file of that name (without it, an existing file is a 409).
    #[serde(default)]
    pub overwrite: bool,
}

/// An upload and its progress.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Upload {
    /// Its id.
    pub upload_id: String,
    /// The pane.
    pub subshell_id: String,
    /// The file's absolute path on the pane's node.
    pub path: String,
    /// Its size.
    pub size: u64,
    /// Bytes per piece.
    pub piece_bytes: u64,
    /// Pieces in all.
    pub pieces: u64,
    /// Bytes written so far.
    pub received: u64,
    /// Whether the file is in place.
    pub done: bool,
}

/// The pattern of canonical padded base64 (standard alphabet): whole groups of four
/// characters, the last possibly ending `==` or `=`, the unused low bits of the character
/// before the padding zero — so each byte string has exactly one spelling.
pub const PADDED_BASE64_PATTERN: &str = concat!(
    "^(?:[A-Za-z0-9+/]{4})*",
    "(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$"
);

/// The longest piece, in base64 characters: [`PIECE_BYTES`] encoded.
pub const PIECE_B64_CHARS: usize = 262_144;

/// A piece's bytes, written as canonical padded base64 ([`PADDED_BASE64_PATTERN`], at most
/// [`PIECE_B64_CHARS`] characters) and decoded as it is read.
#[derive(Clone, PartialEq, Eq)]
pub struct PieceBytes(pub Vec<u8>);

impl PieceBytes {
    /// Decodes `s`: exactly the texts the pattern matches are taken (a text is canonical
    /// padded base64 when encoding what it decodes to gives it back).
    pub fn parse(s: &str) -> Result<Self, String> {
        use base64ct::{Base64, Encoding as _};
        let bad = || {
            format!(
                "must be padded base64 of the standard alphabet (groups of four characters, \
                 `=` padding, at most {PIECE_B64_CHARS} characters)"
            )
        };
        if s.len() > PIECE_B64_CHARS {
            return Err(bad());
        }
        let bytes = Base64::decode_vec(s).map_err(|_| bad())?;
        if Base64::encode_string(&bytes) != s {
            return Err(bad());
        }
        Ok(Self(bytes))
    }
}

impl std::fmt::Debug for PieceBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PieceBytes({} bytes)", self.0.len())
    }
}

impl<'de> Deserialize<'de> for PieceBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(de::Error::custom)
    }
}

impl JsonSchema for PieceBytes {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "PieceBytes".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "maxLength": PIECE_B64_CHARS,
            "pattern": PADDED_BASE64_PATTERN,
            "contentEncoding": "base64",
            "description": "The piece's bytes as padded base64 of the standard alphabet, in its one canonical spelling.",
        })
    }
}

/// `PUT /api/uploads/{id}/pieces/{index}`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PieceRequest {
    /// The piece's bytes, base64 (standard alphabet, padded).
    pub data_b64: PieceBytes,
}

/// Path of the piece route.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PieceParams {
    /// The upload.
    pub id: RowId,
    /// The piece's index, from 0.
    pub index: PieceIndex,
}

/// A piece's index in a path: decimal digits, at most 7.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceIndex(pub u64);

impl<'de> Deserialize<'de> for PieceIndex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.is_empty() || s.len() > 7 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(de::Error::custom("a piece index is 1 to 7 decimal digits"));
        }
        s.parse().map(Self).map_err(de::Error::custom)
    }
}

impl JsonSchema for PieceIndex {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "PieceIndex".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "pattern": "^[0-9]{1,7}$" })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_file_name_pattern_and_the_parser_agree() {
        let re = regex_lite_pattern();
        for name in ["x", ".x", "..x", "...", ".a.", "a b", "é"] {
            assert!(FileName::new(name).is_ok(), "{name}");
            assert!(re(name), "{name}");
        }
        for name in [".", "..", "a/b", "/", "", "a\u{7}b"] {
            assert!(FileName::new(name).is_err(), "{name:?}");
            assert!(!re(name), "{name:?}");
        }
    }

    #[test]
    fn a_piece_is_taken_exactly_when_the_published_pattern_matches() {
        let v = jsonschema::validator_for(&serde_json::json!({
            "type": "string", "pattern": PADDED_BASE64_PATTERN
        }))
        .unwrap();
        for good in ["", "AA==", "AAA=", "AAAA", "/+8=", "aGVsbG8="] {
            assert!(PieceBytes::parse(good).is_ok(), "{good}");
            assert!(v.is_valid(&serde_json::json!(good)), "{good}");
        }
        for bad in [
            "A",
            "AA",
            "AAA",
            "AB==",
            "AAB=",
            "A===",
            "aGVsbG8",
            "aGVs bG8=",
            "aGVs-G8=",
            "AA==AA==",
        ] {
            assert!(PieceBytes::parse(bad).is_err(), "{bad}");
            assert!(!v.is_valid(&serde_json::json!(bad)), "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn every_text_the_pattern_matches_decodes_and_every_encoding_matches(
            s in proptest::string::string_regex(
                PADDED_BASE64_PATTERN.strip_prefix('^').unwrap().strip_suffix('$').unwrap()
            ).unwrap(),
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
        ) {
            proptest::prop_assert!(PieceBytes::parse(&s).is_ok(), "{}", s);
            let text = <base64ct::Base64 as base64ct::Encoding>::encode_string(&bytes);
            proptest::prop_assert_eq!(PieceBytes::parse(&text).unwrap().0, bytes);
        }
    }

    /// The schema's pattern, checked with the JSON Schema validator the plane uses.
    fn regex_lite_pattern() -> impl Fn(&str) -> bool {
        let schema = serde_json::json!({ "type": "string", "pattern": file_name_pattern() });
        let v = jsonschema::validator_for(&schema).unwrap();
        move |s: &str| v.is_valid(&serde_json::json!(s))
    }
}
