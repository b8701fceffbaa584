//! The protocol-14 key exchange (agent = initiator, plane = responder).
//!
//! One X25519 Diffie-Hellman between the agent's fresh per-connection ephemeral key and the
//! plane's static link key, plus a hash binding (BLAKE2b over a fixed label, the protocol version,
//! the DH output, the ephemeral key, the node's claimed static key, the plane's static key and
//! the node id the bearer authenticated) giving independent receive and send keys. A tampered
//! `pub`, a version rollback or a reflected frame therefore fails to open. All-zero (low-order)
//! DH results are refused. The plane compares `pub` with the row's pin in constant time before
//! any key derivation.

use blake2::{Blake2b512, Digest as _};
use rand_core::CryptoRng;
use subtle::ConstantTimeEq as _;
use termplane_proto::{Binding, Key32, NODE_PROTOCOL_VERSION, PlaneFrame};
use x25519_dalek::{PublicKey, StaticSecret};
use zeroize::Zeroize as _;

use crate::seal::{Opener, Sealer, SessionKey, Tag};

/// The fixed label at the front of the key-derivation transcript.
pub const KX_LABEL: &[u8] = b"termplane/kx/v14";

/// The plane's (or a node's) long-term X25519 link keypair.
pub struct StaticKeypair {
    secret: StaticSecret,
    public: PublicKey,
}

impl StaticKeypair {
    /// A new keypair from `rng`.
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        Self::from_secret(StaticSecret::random_from_rng(rng))
    }

    /// The keypair of a 32-byte secret (as persisted).
    #[must_use]
    pub fn from_secret_bytes(secret: [u8; 32]) -> Self {
        let mut secret = secret;
        let keypair = Self::from_secret(StaticSecret::from(secret));
        secret.zeroize();
        keypair
    }

    fn from_secret(secret: StaticSecret) -> Self {
        let public = PublicKey::from(&secret);
        Self { secret, public }
    }

    /// The secret, for persisting (mode 0600).
    #[must_use]
    pub fn secret_bytes(&self) -> [u8; 32] {
        self.secret.to_bytes()
    }

    /// The public key.
    #[must_use]
    pub fn public(&self) -> Key32 {
        Key32(self.public.to_bytes())
    }
}

impl Clone for StaticKeypair {
    fn clone(&self) -> Self {
        Self::from_secret(self.secret.clone())
    }
}

impl core::fmt::Debug for StaticKeypair {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StaticKeypair")
            .field("public", &self.public())
            .finish_non_exhaustive()
    }
}

/// Independent keys of one direction pair.
#[derive(Debug)]
pub struct SessionKeys {
    /// Key of the stream this side opens.
    pub rx: SessionKey,
    /// Key of the stream this side seals.
    pub tx: SessionKey,
}

/// The two directional keys of one handshake, named by direction rather than by side.
#[derive(Debug)]
pub struct DirectionKeys {
    /// Seals the agent's stream; opens it at the plane (agent `tx`, plane `rx`).
    pub agent_to_plane: SessionKey,
    /// Seals the plane's stream; opens it at the agent (plane `tx`, agent `rx`).
    pub plane_to_agent: SessionKey,
}

/// Why a handshake step failed. Every variant closes the socket with 4410 except
/// [`HandshakeError::NoPin`] (4411).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HandshakeError {
    /// `pub` differs from the row's pin (constant-time compare; no DH was computed).
    #[error("node static key does not match the pinned key")]
    PinMismatch,
    /// The row has no pin: re-pair via register.
    #[error("row has no pinned key: re-pair via register")]
    NoPin,
    /// The DH result is all zero (low-order point).
    #[error("ephemeral key is a low-order point")]
    LowOrder,
    /// The agent's side: the plane's static key (the pin) is a low-order point, so no handshake
    /// under it can ever succeed.
    #[error("the pinned plane key is a low-order point")]
    PlaneKeyLowOrder,
    /// The sealed frame did not open (wrong key, tampering, truncation).
    #[error("sealed frame does not open")]
    OpenFailed,
    /// The binding opened but is not a binding.
    #[error("binding is malformed")]
    BadBinding,
    /// The binding names another node than the bearer authenticated.
    #[error("binding names another node")]
    WrongNode,
    /// The binding's protocol version differs from ours.
    #[error("binding protocol version {0} differs from 14")]
    WrongProtocol(u32),
    /// The plane's first push is not `{ t: 'ok' }`.
    #[error("plane's first frame is not ok")]
    NotOk,
}

/// Hashes the handshake transcript into the two directional keys.
///
/// BLAKE2b-512 over, in order and each with a fixed size or a length prefix so that no two
/// transcripts share an encoding: `u16be(len(label)) || label`, `u32be(protocol_version)`, the
/// 32-byte DH output, the ephemeral public key, the node's claimed static key (`pub`), the plane's
/// static key, and `u16be(len(node_id)) || node_id` (UTF-8). The first 32 bytes of the digest key
/// the agent-to-plane stream, the last 32 the plane-to-agent stream.
///
/// An all-zero `dh` (a low-order ephemeral or static key) is refused with
/// [`HandshakeError::LowOrder`]. A node id longer than 65535 bytes cannot be length-prefixed and is
/// refused with [`HandshakeError::BadBinding`].
pub fn derive_direction_keys(
    protocol_version: u32,
    dh: &[u8; 32],
    eph: &Key32,
    node_static: &Key32,
    plane_static: &Key32,
    node_id: &str,
) -> Result<DirectionKeys, HandshakeError> {
    if bool::from(dh.ct_eq(&[0u8; 32])) {
        return Err(HandshakeError::LowOrder);
    }
    let label_len = u16::try_from(KX_LABEL.len()).map_err(|_| HandshakeError::BadBinding)?;
    let id_len = u16::try_from(node_id.len()).map_err(|_| HandshakeError::BadBinding)?;
    let mut h = Blake2b512::new();
    h.update(label_len.to_be_bytes());
    h.update(KX_LABEL);
    h.update(protocol_version.to_be_bytes());
    h.update(dh);
    h.update(eph.0);
    h.update(node_static.0);
    h.update(plane_static.0);
    h.update(id_len.to_be_bytes());
    h.update(node_id.as_bytes());
    let mut digest: [u8; 64] = h.finalize().into();
    let mut agent_to_plane = [0u8; 32];
    let mut plane_to_agent = [0u8; 32];
    let (first, second) = digest.split_at(32);
    agent_to_plane.copy_from_slice(first);
    plane_to_agent.copy_from_slice(second);
    digest.zeroize();
    Ok(DirectionKeys {
        agent_to_plane: SessionKey(agent_to_plane),
        plane_to_agent: SessionKey(plane_to_agent),
    })
}

/// X25519 as the handshake uses it: RFC 7748 (the scalar is clamped, the top bit of the point
/// ignored), with an all-zero result refused as [`HandshakeError::LowOrder`].
pub fn x25519_shared(secret: &[u8; 32], public: &Key32) -> Result<[u8; 32], HandshakeError> {
    let secret = StaticSecret::from(*secret);
    dh_checked(&secret, public)
}

fn dh_checked(secret: &StaticSecret, public: &Key32) -> Result<[u8; 32], HandshakeError> {
    let shared = secret.diffie_hellman(&PublicKey::from(public.0));
    if !shared.was_contributory() || bool::from(shared.as_bytes().ct_eq(&[0u8; 32])) {
        return Err(HandshakeError::LowOrder);
    }
    Ok(shared.to_bytes())
}

/// A fixed scalar for [`is_low_order`]; any scalar works (clamping makes it a multiple of the
/// cofactor, and it is not a multiple of the prime order).
const LOW_ORDER_PROBE: [u8; 32] = [0x5a; 32];

/// Whether `key` is a low-order X25519 point (all-zero, one, the points of order 4 and 8, and
/// their non-canonical and high-bit spellings): the DH of any clamped scalar with such a key is
/// all zero, so no key derived under it is secret. Such a key is never pinned (by the node, and
/// by the plane's enrollment).
#[must_use]
pub fn is_low_order(key: &Key32) -> bool {
    x25519_shared(&LOW_ORDER_PROBE, key).is_err()
}

/// Derives the agent's session keys: `tx` seals towards the plane, `rx` opens the plane's stream.
///
/// A low-order `plane_static` is refused as [`HandshakeError::PlaneKeyLowOrder`] (the agent's
/// ephemeral key is fresh and never low-order, so the pin is what is wrong).
pub fn derive_initiator(
    eph_secret: &[u8; 32],
    plane_static: &Key32,
    node_static: &Key32,
    node_id: &str,
) -> Result<SessionKeys, HandshakeError> {
    let eph = StaticSecret::from(*eph_secret);
    let eph_public = Key32(PublicKey::from(&eph).to_bytes());
    let mut dh = dh_checked(&eph, plane_static).map_err(|e| match e {
        HandshakeError::LowOrder => HandshakeError::PlaneKeyLowOrder,
        other => other,
    })?;
    let keys = derive_direction_keys(
        NODE_PROTOCOL_VERSION,
        &dh,
        &eph_public,
        node_static,
        plane_static,
        node_id,
    );
    dh.zeroize();
    let keys = keys?;
    Ok(SessionKeys {
        rx: keys.plane_to_agent,
        tx: keys.agent_to_plane,
    })
}

/// Derives the plane's session keys; `rx` equals the agent's `tx` and `tx` the agent's `rx`.
pub fn derive_responder(
    plane: &StaticKeypair,
    eph: &Key32,
    node_static: &Key32,
    node_id: &str,
) -> Result<SessionKeys, HandshakeError> {
    let mut dh = dh_checked(&plane.secret, eph)?;
    let keys = derive_direction_keys(
        NODE_PROTOCOL_VERSION,
        &dh,
        eph,
        node_static,
        &plane.public(),
        node_id,
    );
    dh.zeroize();
    let keys = keys?;
    Ok(SessionKeys {
        rx: keys.agent_to_plane,
        tx: keys.plane_to_agent,
    })
}

/// What the agent needs to open a handshake.
#[derive(Clone, Debug)]
pub struct InitiatorParams {
    /// The pinned plane static key (`controlEncryptPublicKey`).
    pub plane_static: Key32,
    /// The node's own static public key (sent as `pub`).
    pub node_static: Key32,
    /// `{ nodeId, nodeKey, protocolVersion: 14 }`.
    pub binding: Binding,
}

/// The agent's first flight, sent in one turn: the `kx` text frame, then the sealed binding.
#[derive(Clone, Debug)]
pub struct Hello {
    /// `{ t: 'kx', eph, pub }`.
    pub kx: termplane_proto::Kx,
    /// `header(24) || seal(binding)`.
    pub first_binary: Vec<u8>,
}

/// The agent between sending its first flight and opening the plane's `ok`.
pub struct Initiator {
    sealer: Sealer,
    opener: Opener,
}

impl Initiator {
    /// Generates the ephemeral key from `rng`, derives keys and seals the binding.
    pub fn start<R: CryptoRng + ?Sized>(
        params: &InitiatorParams,
        rng: &mut R,
    ) -> Result<(Self, Hello), HandshakeError> {
        let mut eph_secret = [0u8; 32];
        rng.fill_bytes(&mut eph_secret);
        let started = Self::start_with_ephemeral(params, eph_secret, rng);
        eph_secret.zeroize();
        started
    }

    /// As [`Initiator::start`] with a given ephemeral secret (test vectors).
    ///
    /// The binding is sealed as given: its node id keys the derivation, and its protocol version
    /// is what the plane checks.
    pub fn start_with_ephemeral<R: CryptoRng + ?Sized>(
        params: &InitiatorParams,
        eph_secret: [u8; 32],
        rng: &mut R,
    ) -> Result<(Self, Hello), HandshakeError> {
        let mut eph_secret = eph_secret;
        let eph_public = Key32(PublicKey::from(&StaticSecret::from(eph_secret)).to_bytes());
        let keys = derive_initiator(
            &eph_secret,
            &params.plane_static,
            &params.node_static,
            &params.binding.node_id,
        );
        eph_secret.zeroize();
        let keys = keys?;
        let plaintext =
            serde_json::to_vec(&params.binding).map_err(|_| HandshakeError::BadBinding)?;
        let mut sealer = Sealer::new(&keys.tx, rng);
        // A fresh sealer and a small plaintext: sealing cannot fail.
        let first_binary = sealer
            .seal_frame(&plaintext)
            .map_err(|_| HandshakeError::BadBinding)?;
        let hello = Hello {
            kx: termplane_proto::Kx {
                eph: eph_public,
                node_static: params.node_static,
            },
            first_binary,
        };
        let initiator = Self {
            sealer,
            opener: Opener::new(&keys.rx),
        };
        Ok((initiator, hello))
    }

    /// Opens the plane's first push; anything but `{ t: 'ok' }` fails.
    ///
    /// A frame that does not open is [`HandshakeError::OpenFailed`]; one that opens but is not
    /// exactly `{"t":"ok"}` under a `Message` tag is [`HandshakeError::NotOk`].
    pub fn on_first_binary(self, frame: &[u8]) -> Result<Established, HandshakeError> {
        let Self { sealer, mut opener } = self;
        let (plaintext, tag) = opener
            .open_frame_with_tag(frame)
            .map_err(|_| HandshakeError::OpenFailed)?;
        let text = core::str::from_utf8(&plaintext).map_err(|_| HandshakeError::NotOk)?;
        match termplane_proto::decode_plane_frame(text) {
            Ok(PlaneFrame::Ok) if tag == Tag::Message => Ok(Established { sealer, opener }),
            _ => Err(HandshakeError::NotOk),
        }
    }
}

/// The plane before `kx`, knowing the row's pin and the node id the bearer authenticated.
pub struct Responder {
    plane: StaticKeypair,
    pin: Key32,
    node_id: String,
}

impl Responder {
    /// A responder for one socket.
    #[must_use]
    pub fn new(plane: &StaticKeypair, pin: Key32, node_id: &str) -> Self {
        Self {
            plane: plane.clone(),
            pin,
            node_id: node_id.to_owned(),
        }
    }

    /// The row's pin this responder compares `pub` with.
    #[must_use]
    pub fn pin(&self) -> Key32 {
        self.pin
    }

    /// Constant-time pin compare, then key derivation. No DH is computed on a mismatch.
    pub fn on_kx(self, kx: &termplane_proto::Kx) -> Result<AwaitBinding, HandshakeError> {
        if !bool::from(kx.node_static.0.ct_eq(&self.pin.0)) {
            return Err(HandshakeError::PinMismatch);
        }
        let keys = derive_responder(&self.plane, &kx.eph, &kx.node_static, &self.node_id)?;
        Ok(AwaitBinding {
            eph: kx.eph,
            node_id: self.node_id,
            keys,
        })
    }
}

/// The plane after a valid `kx`, waiting for the sealed binding.
pub struct AwaitBinding {
    eph: Key32,
    node_id: String,
    keys: SessionKeys,
}

impl AwaitBinding {
    /// The ephemeral key of this handshake (recorded by the plane to refuse replays).
    #[must_use]
    pub fn ephemeral(&self) -> Key32 {
        self.eph
    }

    /// Opens and checks the binding: node id equal to the authenticated one, exact protocol.
    ///
    /// The frame must be `header || ciphertext` under a `Message` tag. A frame that does not open
    /// is [`HandshakeError::OpenFailed`]; one that opens to anything but a binding (or under
    /// another tag) is [`HandshakeError::BadBinding`].
    pub fn on_binding(self, frame: &[u8]) -> Result<BindingOpened, HandshakeError> {
        let Self { eph, node_id, keys } = self;
        let mut opener = Opener::new(&keys.rx);
        let (plaintext, tag) = opener
            .open_frame_with_tag(frame)
            .map_err(|_| HandshakeError::OpenFailed)?;
        if tag != Tag::Message {
            return Err(HandshakeError::BadBinding);
        }
        let binding =
            termplane_proto::decode_binding(&plaintext).map_err(|_| HandshakeError::BadBinding)?;
        if binding.node_id != node_id {
            return Err(HandshakeError::WrongNode);
        }
        if binding.protocol_version != NODE_PROTOCOL_VERSION {
            return Err(HandshakeError::WrongProtocol(binding.protocol_version));
        }
        Ok(BindingOpened {
            binding,
            eph,
            opener,
            tx: keys.tx.clone(),
            _private: (),
        })
    }
}

/// The binding opened and passed the machine's own checks; the plane's store decides the rest
/// (node key re-verification, ephemeral freshness), then calls [`BindingOpened::accept`].
pub struct BindingOpened {
    /// The opened binding.
    pub binding: Binding,
    eph: Key32,
    opener: Opener,
    tx: SessionKey,
    _private: (),
}

impl BindingOpened {
    /// The ephemeral key of this handshake.
    #[must_use]
    pub fn ephemeral(&self) -> Key32 {
        self.eph
    }

    /// Establishes the link and returns it with the plane's first push, `header || seal(ok)`.
    pub fn accept<R: CryptoRng + ?Sized>(self, rng: &mut R) -> (Established, Vec<u8>) {
        let mut sealer = Sealer::new(&self.tx, rng);
        // A fresh sealer and a ten-byte plaintext: sealing cannot fail, so the empty fallback is
        // unreachable (and an empty frame would only fail to open at the agent).
        let first = sealer
            .seal_frame(PlaneFrame::Ok.to_json().as_bytes())
            .unwrap_or_default();
        let established = Established {
            sealer,
            opener: self.opener,
        };
        (established, first)
    }
}

/// Both streams of an established link.
pub struct Established {
    /// Seals outbound frames.
    pub sealer: Sealer,
    /// Opens inbound frames.
    pub opener: Opener,
}
