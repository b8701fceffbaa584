//! Wire vocabulary of the termplane node link.
//!
//! This crate names everything that crosses `/ws/node` and nothing else: the text frames of both
//! directions and their strict decoders ([`frame`]), the commands ([`command`]) and the claims
//! that carry them ([`claims`]), the events ([`event`]), the close codes ([`close`]), every figure
//! of the Limits table ([`limits`]), the protocol version and the agent version floor
//! ([`version`]), the subshell-id rule ([`ids`]), the text spelling of 32-byte keys ([`key`]) and
//! of timestamps ([`time`]).
//!
//! It holds no cryptography, reads no clock and performs no IO. Decoders never panic: every
//! malformed input becomes a typed error.

pub mod claims;
pub mod close;
pub mod command;
pub mod event;
pub mod frame;
pub mod ids;
pub mod json;
pub mod key;
pub mod limits;
pub mod recording;
pub mod time;
pub mod version;

pub use claims::{COMMAND_ISSUER, COMMAND_JWS_ALG, COMMAND_JWS_TYPE, Claims, node_audience};
pub use close::CloseCode;
pub use command::Command;
pub use event::{CommandResult, Event, Ready};
pub use frame::{
    Binding, DecodeError, Envelope, Kx, NodeFrame, PlaneFrame, Register, RegisterOk,
    claimed_result_reference, decode_binding, decode_node_frame, decode_plane_frame,
};
pub use ids::SubshellId;
pub use key::Key32;
pub use version::{MIN_NODE_VERSION, NODE_PROTOCOL_VERSION, Version};
