//! Text frames of the node link and their decoders.
//!
//! Link-layer frames (`kx`, `register`, `register-ok`, `ok`) are tagged by `t`; the `ready` frame
//! and the events are tagged by `type`; a signed command travels as `{ jws }`. Decoding is strict:
//! a document with duplicate keys, an unknown tag, both tags or neither, or a wrong-shaped field
//! is refused with a typed [`DecodeError`]. Nothing here panics on any input.

use serde::{Deserialize, Serialize};

use crate::event::{Event, Ready};
use crate::json;
use crate::key::Key32;

/// `{ t: 'kx', eph, pub }`: the agent's handshake opener.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kx {
    /// The agent's fresh per-connection ephemeral X25519 public key.
    pub eph: Key32,
    /// The node's long-term static X25519 public key (compared with the row's pin).
    #[serde(rename = "pub")]
    pub node_static: Key32,
}

/// `{ t: 'register', pub }`: pairing on a row with no pin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Register {
    /// The node's long-term static X25519 public key.
    #[serde(rename = "pub")]
    pub node_static: Key32,
}

/// `{ t: 'register-ok', controlEncryptPublicKey }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RegisterOk {
    /// The plane's static X25519 link key, to pin.
    pub control_encrypt_public_key: Key32,
}

/// `{ jws }`: a signed command envelope (compact JWS, ES256).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    /// The compact serialization.
    pub jws: String,
}

/// The sealed binding: `{ nodeId, nodeKey, protocolVersion }`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Binding {
    /// The node row the agent claims.
    pub node_id: String,
    /// The bearer node key, re-verified by the plane through the upgrade's chain.
    pub node_key: String,
    /// Must equal [`crate::NODE_PROTOCOL_VERSION`].
    pub protocol_version: u32,
}

impl core::fmt::Debug for Binding {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Binding")
            .field("node_id", &self.node_id)
            .field("node_key", &"<redacted>")
            .field("protocol_version", &self.protocol_version)
            .finish()
    }
}

/// Tag-carrying helpers for link frames.
#[derive(Serialize)]
#[serde(tag = "t")]
enum LinkOut<'a> {
    #[serde(rename = "kx")]
    Kx(&'a Kx),
    #[serde(rename = "register")]
    Register(&'a Register),
    #[serde(rename = "register-ok")]
    RegisterOk(&'a RegisterOk),
    #[serde(rename = "ok")]
    Ok {},
}

/// A text frame from node to plane.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeFrame {
    /// Handshake opener.
    Kx(Kx),
    /// Pairing request.
    Register(Register),
    /// First protocol frame.
    Ready(Box<Ready>),
    /// Any event.
    Event(Event),
}

/// A text frame from plane to node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlaneFrame {
    /// Pairing answer.
    RegisterOk(RegisterOk),
    /// Handshake acceptance (always sealed).
    Ok,
    /// A signed command.
    Command(Envelope),
}

/// Why a frame was refused at parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON, trailing data, a duplicated key, or nested too deeply.
    #[error("malformed JSON: {0}")]
    Json(String),
    /// JSON, but not an object.
    #[error("frame is not a JSON object")]
    NotObject,
    /// Neither `t` nor `type` (or a non-string tag).
    #[error("frame has no frame tag")]
    MissingTag,
    /// Both `t` and `type`.
    #[error("frame carries both 't' and 'type'")]
    AmbiguousTag,
    /// A tag this build does not know.
    #[error("unknown frame type {0:?}")]
    UnknownType(String),
    /// A known frame with wrong-shaped or unknown fields.
    #[error("malformed {kind} frame: {detail}")]
    Shape {
        /// The frame's tag.
        kind: String,
        /// What was wrong.
        detail: String,
    },
}

fn shape(kind: &str, e: &serde_json::Error) -> DecodeError {
    DecodeError::Shape {
        kind: kind.to_owned(),
        detail: e.to_string(),
    }
}

enum Tag {
    Link(String),
    Type(String),
    Jws,
}

fn parse_object(text: &str) -> Result<(serde_json::Value, Tag), DecodeError> {
    json::check_no_duplicate_keys(text).map_err(|e| DecodeError::Json(e.to_string()))?;
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| DecodeError::Json(e.to_string()))?;
    let obj = v.as_object().ok_or(DecodeError::NotObject)?;
    let tag = match (obj.get("t"), obj.get("type")) {
        (Some(_), Some(_)) => return Err(DecodeError::AmbiguousTag),
        (Some(serde_json::Value::String(t)), None) => Tag::Link(t.clone()),
        (None, Some(serde_json::Value::String(t))) => Tag::Type(t.clone()),
        (None, None) if obj.contains_key("jws") => Tag::Jws,
        _ => return Err(DecodeError::MissingTag),
    };
    Ok((v, tag))
}

fn strip_tag(mut v: serde_json::Value, key: &str) -> serde_json::Value {
    if let Some(o) = v.as_object_mut() {
        o.remove(key);
    }
    v
}

const EVENT_TYPES: [&str; 9] = [
    "inventory",
    "maintenance",
    "heartbeat",
    "result",
    "output",
    "exit",
    "subshells_report",
    "error",
    "activity",
];

/// Decodes a text frame received by the plane.
pub fn decode_node_frame(text: &str) -> Result<NodeFrame, DecodeError> {
    let (v, tag) = parse_object(text)?;
    match tag {
        Tag::Link(t) => match t.as_str() {
            "kx" => serde_json::from_value(strip_tag(v, "t"))
                .map(NodeFrame::Kx)
                .map_err(|e| shape("kx", &e)),
            "register" => serde_json::from_value(strip_tag(v, "t"))
                .map(NodeFrame::Register)
                .map_err(|e| shape("register", &e)),
            _ => Err(DecodeError::UnknownType(t)),
        },
        Tag::Type(t) if t == "ready" => Ready::from_value(v)
            .map(|r| NodeFrame::Ready(Box::new(r)))
            .map_err(|e| shape("ready", &e)),
        Tag::Type(t) if EVENT_TYPES.contains(&t.as_str()) => serde_json::from_value(v)
            .map(NodeFrame::Event)
            .map_err(|e| shape(&t, &e)),
        Tag::Type(t) => Err(DecodeError::UnknownType(t)),
        Tag::Jws => Err(DecodeError::UnknownType("jws".to_owned())),
    }
}

/// The `ref` of a text frame that claims to be a `result` (an object whose `type` is `"result"`
/// and whose `ref` is a string), whether or not the rest of it is well formed.
///
/// The plane reads it only after [`decode_node_frame`] refused the frame, so that the command
/// this malformed answer names is settled as malformed at once rather than left to its deadline.
#[must_use]
pub fn claimed_result_reference(text: &str) -> Option<String> {
    let (v, tag) = parse_object(text).ok()?;
    match tag {
        Tag::Type(t) if t == "result" => v.get("ref")?.as_str().map(str::to_owned),
        _ => None,
    }
}

/// Decodes a text frame received by the node.
pub fn decode_plane_frame(text: &str) -> Result<PlaneFrame, DecodeError> {
    let (v, tag) = parse_object(text)?;
    match tag {
        Tag::Link(t) => match t.as_str() {
            "register-ok" => serde_json::from_value(strip_tag(v, "t"))
                .map(PlaneFrame::RegisterOk)
                .map_err(|e| shape("register-ok", &e)),
            "ok" => {
                let rest = strip_tag(v, "t");
                if rest.as_object().is_some_and(|o| o.is_empty()) {
                    Ok(PlaneFrame::Ok)
                } else {
                    Err(DecodeError::Shape {
                        kind: "ok".to_owned(),
                        detail: "unexpected fields".to_owned(),
                    })
                }
            }
            _ => Err(DecodeError::UnknownType(t)),
        },
        Tag::Jws => serde_json::from_value(v)
            .map(PlaneFrame::Command)
            .map_err(|e| shape("jws", &e)),
        Tag::Type(t) => Err(DecodeError::UnknownType(t)),
    }
}

/// Decodes a sealed binding's plaintext.
pub fn decode_binding(bytes: &[u8]) -> Result<Binding, DecodeError> {
    let text = core::str::from_utf8(bytes).map_err(|e| DecodeError::Json(e.to_string()))?;
    json::from_str_strict(text).map_err(|e| shape("binding", &e))
}

fn to_json<T: Serialize>(v: &T) -> String {
    // Serializing these plain data types cannot fail: no maps with non-string keys, no floats
    // that are not finite (only `serde_json::Value` payloads, which are already valid JSON).
    serde_json::to_string(v).unwrap_or_default()
}

impl NodeFrame {
    /// The frame's JSON text.
    #[must_use]
    pub fn to_json(&self) -> String {
        match self {
            Self::Kx(k) => to_json(&LinkOut::Kx(k)),
            Self::Register(r) => to_json(&LinkOut::Register(r)),
            Self::Ready(r) => {
                let mut v = serde_json::to_value(r).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.insert("type".to_owned(), "ready".into());
                }
                v.to_string()
            }
            Self::Event(e) => to_json(e),
        }
    }
}

impl PlaneFrame {
    /// The frame's JSON text.
    #[must_use]
    pub fn to_json(&self) -> String {
        match self {
            Self::RegisterOk(r) => to_json(&LinkOut::RegisterOk(r)),
            Self::Ok => to_json(&LinkOut::Ok {}),
            Self::Command(e) => to_json(e),
        }
    }
}

impl Binding {
    /// The binding's JSON bytes (the plaintext that gets sealed).
    #[must_use]
    pub fn to_json_bytes(&self) -> Vec<u8> {
        to_json(self).into_bytes()
    }
}
