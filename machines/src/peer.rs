//! The handshake between two replicas of one cluster (planes on one database), IO-free.
//!
//! Replicas share the plane's keys (the cluster's one set). From the link secret each derives
//! the same *peer key* ([`PeerKey::derive`], keyed BLAKE2b under its own label), and a replica
//! proves it holds that key — is a replica of this cluster — by a MAC over a transcript both
//! sides made fresh. The dialled side (the responder) speaks first:
//!
//! 1. `challenge` (responder → initiator): version, a 32-byte nonce `Nr`, the responder's id;
//! 2. `answer` (initiator → responder): a 32-byte nonce `Ni`, the initiator's id, and
//!    `MAC(K, "initiator" ‖ T)`;
//! 3. `proof` (responder → initiator): `MAC(K, "responder" ‖ T)`;
//!
//! where `T` is the BLAKE2b-512 hash of the label, the responder's id, the initiator's id, `Nr`
//! and `Ni`, each length-prefixed. An answer is bound to the responder's fresh nonce (a recorded
//! one is worthless at the next handshake), a proof to the initiator's; the initiator refuses a
//! responder whose id is not the replica it meant to reach (its address now serves another).
//! Each direction then runs a sealed stream ([`crate::seal`]) under its own key,
//! `MAC(K, "initiator to responder" ‖ T)` and `MAC(K, "responder to initiator" ‖ T)`: what
//! crosses between replicas is private, whole and in order, as on the node link.
//!
//! Messages are binary and of fixed shape; an id is 1 to [`MAX_ID_BYTES`] printable ASCII
//! bytes. Every malformed message is refused with [`PeerError`], never a panic.

use blake2::digest::Mac as _;
use blake2::digest::consts::U32;
use blake2::{Blake2b512, Blake2bMac, Digest as _};
use subtle::ConstantTimeEq as _;
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::seal::SessionKey;

/// The handshake's version byte.
pub const VERSION: u8 = 1;
/// Length of each side's nonce.
pub const NONCE_BYTES: usize = 32;
/// Length of a MAC.
pub const MAC_BYTES: usize = 32;
/// Longest replica id.
pub const MAX_ID_BYTES: usize = 64;

const LABEL: &[u8] = b"termplane replica peers v1";

/// Why a handshake message was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PeerError {
    /// Not a message of this shape or version.
    #[error("malformed handshake message")]
    Malformed,
    /// The MAC does not verify: the peer does not hold the cluster's keys.
    #[error("the peer does not hold this cluster's keys")]
    NotAPeer,
    /// The responder is not the replica the initiator meant to reach.
    #[error("the peer is another replica than the one dialled")]
    WrongReplica,
}

/// The key replicas prove each other with, derived from the cluster's link secret.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct PeerKey([u8; 32]);

impl core::fmt::Debug for PeerKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("PeerKey(…)")
    }
}

fn mac(key: &[u8; 32], label: &[u8], transcript: &[u8; 64]) -> [u8; MAC_BYTES] {
    // A 32-byte key is always a valid BLAKE2b key.
    let Ok(mut m) = <Blake2bMac<U32> as blake2::digest::KeyInit>::new_from_slice(key) else {
        return [0; MAC_BYTES];
    };
    m.update(&(label.len() as u64).to_le_bytes());
    m.update(label);
    m.update(transcript);
    m.finalize().into_bytes().into()
}

impl PeerKey {
    /// The peer key of the cluster whose link secret is `link_secret`.
    #[must_use]
    pub fn derive(link_secret: &[u8; 32]) -> Self {
        Self(mac(link_secret, LABEL, &[0; 64]))
    }
}

fn transcript(responder: &str, initiator: &str, nr: &[u8; 32], ni: &[u8; 32]) -> [u8; 64] {
    let mut h = Blake2b512::new();
    for part in [LABEL, responder.as_bytes(), initiator.as_bytes(), nr, ni] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.finalize().into()
}

fn valid_id(id: &str) -> bool {
    (1..=MAX_ID_BYTES).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_graphic())
}

/// Splits `msg` into a fixed head of `N` bytes and an id (one length byte, then the id).
fn head_and_id<const N: usize>(msg: &[u8]) -> Result<([u8; N], String), PeerError> {
    let (head, rest) = msg.split_first_chunk::<N>().ok_or(PeerError::Malformed)?;
    let (&len, id) = rest.split_first().ok_or(PeerError::Malformed)?;
    if usize::from(len) != id.len() {
        return Err(PeerError::Malformed);
    }
    let id = core::str::from_utf8(id).map_err(|_| PeerError::Malformed)?;
    if !valid_id(id) {
        return Err(PeerError::Malformed);
    }
    Ok((*head, id.to_owned()))
}

fn push_id(out: &mut Vec<u8>, id: &str) {
    // Ids are checked to be at most 64 bytes before they are sent.
    out.push(u8::try_from(id.len()).unwrap_or(0));
    out.extend_from_slice(id.as_bytes());
}

/// The two stream keys of an established peer connection, seen from one side.
#[derive(Debug)]
pub struct Keys {
    /// The key this side seals with.
    pub send: SessionKey,
    /// The key this side opens with.
    pub receive: SessionKey,
}

fn keys(key: &PeerKey, t: &[u8; 64], initiator: bool) -> Keys {
    let i2r = SessionKey(mac(&key.0, b"initiator to responder", t));
    let r2i = SessionKey(mac(&key.0, b"responder to initiator", t));
    if initiator {
        Keys {
            send: i2r,
            receive: r2i,
        }
    } else {
        Keys {
            send: r2i,
            receive: i2r,
        }
    }
}

/// The dialled side, before the answer.
#[derive(Debug)]
pub struct Responder {
    key: PeerKey,
    me: String,
    nonce: [u8; NONCE_BYTES],
}

impl Responder {
    /// The responder `me` with a fresh `nonce` (from the runtime's randomness), and the
    /// challenge to send. `None` when `me` is not a valid id.
    #[must_use]
    pub fn new(key: PeerKey, me: &str, nonce: [u8; NONCE_BYTES]) -> Option<(Self, Vec<u8>)> {
        if !valid_id(me) {
            return None;
        }
        let mut challenge = vec![VERSION];
        challenge.extend_from_slice(&nonce);
        push_id(&mut challenge, me);
        Some((
            Self {
                key,
                me: me.to_owned(),
                nonce,
            },
            challenge,
        ))
    }

    /// Checks the initiator's answer: its id, the proof to send back, and the stream keys.
    ///
    /// # Errors
    /// [`PeerError::Malformed`] for a message of another shape, [`PeerError::NotAPeer`] when its
    /// MAC does not verify.
    pub fn answer(self, msg: &[u8]) -> Result<(String, Vec<u8>, Keys), PeerError> {
        let (head, initiator) = head_and_id::<{ NONCE_BYTES + MAC_BYTES }>(msg)?;
        let (ni, their_mac) = head.split_at(NONCE_BYTES);
        let ni: [u8; NONCE_BYTES] = ni.try_into().map_err(|_| PeerError::Malformed)?;
        let t = transcript(&self.me, &initiator, &self.nonce, &ni);
        let want = mac(&self.key.0, b"initiator", &t);
        if !bool::from(want.ct_eq(their_mac)) {
            return Err(PeerError::NotAPeer);
        }
        let proof = mac(&self.key.0, b"responder", &t).to_vec();
        Ok((initiator, proof, keys(&self.key, &t, false)))
    }
}

/// The dialling side, before the challenge.
#[derive(Debug)]
pub struct Initiator {
    key: PeerKey,
    me: String,
    expected: String,
    nonce: [u8; NONCE_BYTES],
}

/// The dialling side, waiting for the responder's proof.
#[derive(Debug)]
pub struct AwaitProof {
    key: PeerKey,
    transcript: [u8; 64],
}

impl Initiator {
    /// The initiator `me`, dialling the replica `expected`, with a fresh `nonce`. `None` when an
    /// id is not valid.
    #[must_use]
    pub fn new(key: PeerKey, me: &str, expected: &str, nonce: [u8; NONCE_BYTES]) -> Option<Self> {
        (valid_id(me) && valid_id(expected)).then(|| Self {
            key,
            me: me.to_owned(),
            expected: expected.to_owned(),
            nonce,
        })
    }

    /// Reads the challenge: the answer to send.
    ///
    /// # Errors
    /// [`PeerError::Malformed`], or [`PeerError::WrongReplica`] when the responder is another
    /// replica than the one dialled.
    pub fn challenge(self, msg: &[u8]) -> Result<(AwaitProof, Vec<u8>), PeerError> {
        let (&version, rest) = msg.split_first().ok_or(PeerError::Malformed)?;
        if version != VERSION {
            return Err(PeerError::Malformed);
        }
        let (nr, responder) = head_and_id::<NONCE_BYTES>(rest)?;
        if responder != self.expected {
            return Err(PeerError::WrongReplica);
        }
        let t = transcript(&responder, &self.me, &nr, &self.nonce);
        let mut answer = self.nonce.to_vec();
        answer.extend_from_slice(&mac(&self.key.0, b"initiator", &t));
        push_id(&mut answer, &self.me);
        Ok((
            AwaitProof {
                key: self.key,
                transcript: t,
            },
            answer,
        ))
    }
}

impl AwaitProof {
    /// Checks the responder's proof: the stream keys.
    ///
    /// # Errors
    /// [`PeerError::Malformed`] for a message of another length, [`PeerError::NotAPeer`] when
    /// it does not verify.
    pub fn proof(self, msg: &[u8]) -> Result<Keys, PeerError> {
        if msg.len() != MAC_BYTES {
            return Err(PeerError::Malformed);
        }
        let want = mac(&self.key.0, b"responder", &self.transcript);
        if !bool::from(want.ct_eq(msg)) {
            return Err(PeerError::NotAPeer);
        }
        Ok(keys(&self.key, &self.transcript, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seal::{Opener, Sealer};

    fn key(b: u8) -> PeerKey {
        PeerKey::derive(&[b; 32])
    }

    /// A whole handshake: both sides' keys.
    fn run(ki: PeerKey, kr: PeerKey, nr: u8, ni: u8) -> Result<(Keys, Keys), PeerError> {
        let (r, challenge) = Responder::new(kr, "replica-b", [nr; 32]).unwrap();
        let i = Initiator::new(ki, "replica-a", "replica-b", [ni; 32]).unwrap();
        let (wait, answer) = i.challenge(&challenge)?;
        let (who, proof, rk) = r.answer(&answer)?;
        assert_eq!(who, "replica-a");
        let ik = wait.proof(&proof)?;
        Ok((ik, rk))
    }

    #[test]
    fn two_replicas_of_one_cluster_agree_on_a_stream_each_way() {
        let (i, r) = run(key(7), key(7), 1, 2).unwrap();
        let mut rng = crate::rng::from_seed([3; 32]);
        let mut seal = Sealer::new(&i.send, &mut rng);
        let mut open = Opener::new(&r.receive);
        assert_eq!(
            open.open_frame(&seal.seal_frame(b"hi").unwrap()).unwrap(),
            b"hi"
        );
        let mut seal = Sealer::new(&r.send, &mut rng);
        let mut open = Opener::new(&i.receive);
        assert_eq!(
            open.open_frame(&seal.seal_frame(b"yo").unwrap()).unwrap(),
            b"yo"
        );
        assert_ne!(i.send.0, i.receive.0, "each direction has its own key");
    }

    #[test]
    fn a_peer_without_the_clusters_keys_is_refused_on_both_sides() {
        assert_eq!(run(key(1), key(2), 1, 2).err(), Some(PeerError::NotAPeer));
        // A responder without the key: its proof does not verify at the initiator.
        let (r, challenge) = Responder::new(key(2), "replica-b", [1; 32]).unwrap();
        let i = Initiator::new(key(1), "replica-a", "replica-b", [2; 32]).unwrap();
        let (wait, _answer) = i.challenge(&challenge).unwrap();
        let forged = mac(&key(2).0, b"responder", &[0; 64]).to_vec();
        assert_eq!(wait.proof(&forged).err(), Some(PeerError::NotAPeer));
        drop(r);
    }

    #[test]
    fn a_recorded_answer_is_worthless_at_the_next_handshake() {
        let (_r, challenge) = Responder::new(key(7), "replica-b", [1; 32]).unwrap();
        let i = Initiator::new(key(7), "replica-a", "replica-b", [2; 32]).unwrap();
        let (_wait, answer) = i.challenge(&challenge).unwrap();
        // The next connection's challenge has a fresh nonce.
        let (r2, _) = Responder::new(key(7), "replica-b", [9; 32]).unwrap();
        assert_eq!(r2.answer(&answer).err(), Some(PeerError::NotAPeer));
    }

    #[test]
    fn an_initiator_refuses_a_replica_it_did_not_dial() {
        let (_r, challenge) = Responder::new(key(7), "replica-c", [1; 32]).unwrap();
        let i = Initiator::new(key(7), "replica-a", "replica-b", [2; 32]).unwrap();
        assert_eq!(i.challenge(&challenge).err(), Some(PeerError::WrongReplica));
    }

    #[test]
    fn every_truncation_and_bit_flip_of_each_message_is_refused_without_a_panic() {
        let (r, challenge) = Responder::new(key(7), "replica-b", [1; 32]).unwrap();
        let i = Initiator::new(key(7), "replica-a", "replica-b", [2; 32]).unwrap();
        let (wait, answer) = i.challenge(&challenge).unwrap();
        let fresh_i = || Initiator::new(key(7), "replica-a", "replica-b", [2; 32]).unwrap();
        let fresh_r = || Responder::new(key(7), "replica-b", [1; 32]).unwrap().0;
        for n in 0..challenge.len() {
            assert!(fresh_i().challenge(&challenge[..n]).is_err());
        }
        for n in 0..answer.len() {
            assert!(fresh_r().answer(&answer[..n]).is_err());
        }
        for bit in 0..answer.len() * 8 {
            let mut a = answer.clone();
            a[bit / 8] ^= 1 << (bit % 8);
            assert!(fresh_r().answer(&a).is_err(), "bit {bit}");
        }
        let (_, proof, _) = r.answer(&answer).unwrap();
        let mut bad = proof.clone();
        bad[0] ^= 1;
        assert_eq!(
            AwaitProof {
                key: key(7),
                transcript: wait.transcript
            }
            .proof(&bad)
            .err(),
            Some(PeerError::NotAPeer)
        );
        assert!(wait.proof(&proof).is_ok());
        assert!(Responder::new(key(7), "", [0; 32]).is_none());
        assert!(Responder::new(key(7), "a b", [0; 32]).is_none());
        assert!(Initiator::new(key(7), "a", &"x".repeat(65), [0; 32]).is_none());
    }
}
