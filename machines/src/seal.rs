//! The sealed stream: a libsodium `crypto_secretstream_xchacha20poly1305`-compatible sealer and
//! opener, written on the RustCrypto `chacha20` and `poly1305` crates.
//!
//! Wire rules of the node link on top of the raw construction:
//! - the 24-byte stream header rides the first push of each direction
//!   ([`Sealer::seal_frame`] prefixes it; [`Opener::open_frame`] expects it);
//! - a ciphertext is always [`ABYTES`] (17) bytes larger than its plaintext;
//! - an opener that failed once stays failed, and nothing is accepted after a `FINAL` tag.
//!
//! The construction, as libsodium defines it: the header's first 16 bytes and the key give a
//! stream key through HChaCha20; the 12-byte ChaCha20 IETF nonce is a 4-byte little-endian
//! counter (starting at 1) followed by the header's last 8 bytes (the "inner nonce"). Each push
//! takes its Poly1305 key from keystream block 0, encrypts a 64-byte block holding the tag byte at
//! block 1 and the message from block 2 on, and authenticates the associated data (always empty
//! here), the whole encrypted tag block, the ciphertext and both lengths. Afterwards the MAC's
//! first 8 bytes are folded into the inner nonce, the counter is incremented, and the state is
//! rekeyed when the tag asks for it or the counter wrapped to zero.

use chacha20::ChaCha20;
use chacha20::cipher::{KeyIvInit as _, StreamCipher as _, StreamCipherSeek as _};
use poly1305::Poly1305;
use poly1305::universal_hash::{KeyInit as _, UniversalHash as _};
use rand_core::CryptoRng;
use subtle::ConstantTimeEq as _;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Key length.
pub const KEY_BYTES: usize = 32;
/// Stream header length.
pub const HEADER_BYTES: usize = termplane_proto::limits::SEAL_HEADER_BYTES;
/// Bytes a push adds to its plaintext (tag byte + 16-byte MAC).
pub const ABYTES: usize = termplane_proto::limits::SEAL_OVERHEAD_BYTES;

/// Largest plaintext of one push (libsodium `MESSAGEBYTES_MAX`: the 32-bit block counter starts at
/// 2 for the message, so `64 * (2^32 - 2)` bytes).
pub const MESSAGE_BYTES_MAX: u64 = 64 * ((1 << 32) - 2);

/// Length of the Poly1305 tag.
const MAC_BYTES: usize = 16;
/// Length of the ChaCha20 IETF nonce.
const IETF_NONCE_BYTES: usize = 12;
/// Bytes of the counter at the front of the IETF nonce.
const COUNTER_BYTES: usize = 4;
/// Bytes of the HChaCha20 input taken from the header.
const HCHACHA_INPUT_BYTES: usize = 16;
/// One ChaCha20 block.
const BLOCK_BYTES: usize = 64;
/// Zero bytes used for Poly1305 padding.
const ZEROS: [u8; 16] = [0; 16];

/// A message tag (libsodium values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Tag {
    /// Ordinary message (0).
    Message = 0,
    /// End of a group of messages (1).
    Push = 1,
    /// Rekey after this message (2).
    Rekey = 2,
    /// Last message of the stream (3).
    Final = 3,
}

impl Tag {
    /// The tag of a wire byte, if it is one of the four known values.
    #[must_use]
    pub const fn from_byte(b: u8) -> Option<Self> {
        match b {
            0 => Some(Self::Message),
            1 => Some(Self::Push),
            2 => Some(Self::Rekey),
            3 => Some(Self::Final),
            _ => None,
        }
    }
}

/// libsodium's rekey bit: set in both `Rekey` and `Final`.
const TAG_REKEY_BIT: u8 = Tag::Rekey as u8;

/// A 32-byte stream key, wiped on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop, PartialEq, Eq)]
pub struct SessionKey(pub [u8; KEY_BYTES]);

impl core::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SessionKey(<redacted>)")
    }
}

/// Why sealing failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    /// The stream already sent its `FINAL` tag.
    #[error("stream already finished")]
    Finished,
    /// The plaintext exceeds what libsodium allows in one message.
    #[error("message too long")]
    TooLong,
}

/// Why opening failed. Every variant leaves the opener failed for good.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    /// Shorter than a header (first frame) or than [`ABYTES`].
    #[error("sealed frame too short")]
    TooShort,
    /// Authentication failed.
    #[error("sealed frame does not authenticate")]
    Forged,
    /// The tag byte is not one of the four known tags.
    #[error("sealed frame has an unknown tag")]
    BadTag,
    /// The stream already delivered its `FINAL` message.
    #[error("frame after the end of the stream")]
    AfterFinal,
    /// The opener failed earlier and is dead.
    #[error("sealed stream already failed")]
    Dead,
}

// ---------------------------------------------------------------------------------------------
// Building blocks shared by the stream and the IETF AEAD.
// ---------------------------------------------------------------------------------------------

/// The keystream ran past the 32-bit block counter (only reachable with absurdly long inputs).
#[derive(Debug)]
struct KeystreamExhausted;

/// HChaCha20 of `key` and a 16-byte input: the subkey of the extended-nonce constructions.
fn hchacha20(key: &[u8; 32], input: &[u8; HCHACHA_INPUT_BYTES]) -> [u8; 32] {
    let out = chacha20::hchacha::<chacha20::R20>(key.into(), input.into());
    out.into()
}

/// XORs `buf` with the ChaCha20 IETF keystream of `key`/`nonce` starting at block `counter`
/// (libsodium `crypto_stream_chacha20_ietf_xor_ic`).
fn chacha20_xor_ic(
    key: &[u8; 32],
    nonce: &[u8; IETF_NONCE_BYTES],
    counter: u32,
    buf: &mut [u8],
) -> Result<(), KeystreamExhausted> {
    let mut cipher = ChaCha20::new(key.into(), nonce.into());
    cipher
        .try_seek(u64::from(counter) * BLOCK_BYTES as u64)
        .map_err(|_| KeystreamExhausted)?;
    cipher
        .try_apply_keystream(buf)
        .map_err(|_| KeystreamExhausted)
}

/// The one-time Poly1305 key: the first 32 bytes of keystream block 0.
fn poly1305_key(key: &[u8; 32], nonce: &[u8; IETF_NONCE_BYTES]) -> Result<Mac, KeystreamExhausted> {
    let mut block = [0u8; BLOCK_BYTES];
    chacha20_xor_ic(key, nonce, 0, &mut block)?;
    let mut poly_key = [0u8; 32];
    poly_key.copy_from_slice(&block[..32]);
    let mac = Mac::new(&poly_key);
    block.zeroize();
    poly_key.zeroize();
    Ok(mac)
}

/// Poly1305 over an arbitrary byte string fed in pieces (libsodium's incremental
/// `crypto_onetimeauth_poly1305_update`: only the very last partial block is padded).
struct Mac {
    poly: Poly1305,
    pending: [u8; 16],
    used: usize,
}

impl Mac {
    fn new(key: &[u8; 32]) -> Self {
        Self {
            poly: Poly1305::new(key.into()),
            pending: [0; 16],
            used: 0,
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        if self.used > 0 {
            let take = (16 - self.used).min(data.len());
            let (head, rest) = data.split_at(take);
            self.pending[self.used..self.used + take].copy_from_slice(head);
            self.used += take;
            data = rest;
            if self.used < 16 {
                return;
            }
            let block = poly1305::Block::from(self.pending);
            self.poly.update(core::slice::from_ref(&block));
            self.used = 0;
        }
        let (blocks, tail) = poly1305::Block::slice_as_chunks(data);
        self.poly.update(blocks);
        self.pending[..tail.len()].copy_from_slice(tail);
        self.used = tail.len();
    }

    /// Zero bytes up to the next 16-byte boundary of `len` (RFC 8439 padding).
    fn pad16(&mut self, len: usize) {
        self.update(&ZEROS[..(16 - len % 16) % 16]);
    }

    fn finalize(mut self) -> [u8; MAC_BYTES] {
        let tag = self
            .poly
            .clone()
            .compute_unpadded(&self.pending[..self.used]);
        self.pending.zeroize();
        tag.into()
    }
}

fn u64_len(len: usize) -> u64 {
    // usize is at most 64 bits on every supported target.
    u64::try_from(len).unwrap_or(u64::MAX)
}

// ---------------------------------------------------------------------------------------------
// XChaCha20-Poly1305 IETF AEAD (the building blocks above, arranged as RFC 8439 + HChaCha20).
// ---------------------------------------------------------------------------------------------

/// The 256-bit subkey and 96-bit IETF nonce of an XChaCha20 nonce.
fn xchacha_subkey(key: &[u8; 32], nonce: &[u8; 24]) -> ([u8; 32], [u8; IETF_NONCE_BYTES]) {
    let (hin, tail) = nonce.split_at(HCHACHA_INPUT_BYTES);
    let mut input = [0u8; HCHACHA_INPUT_BYTES];
    input.copy_from_slice(hin);
    let mut ietf = [0u8; IETF_NONCE_BYTES];
    ietf[COUNTER_BYTES..].copy_from_slice(tail);
    (hchacha20(key, &input), ietf)
}

fn ietf_mac(
    key: &[u8; 32],
    nonce: &[u8; IETF_NONCE_BYTES],
    aad: &[u8],
    ciphertext: &[u8],
) -> Result<[u8; MAC_BYTES], KeystreamExhausted> {
    let mut mac = poly1305_key(key, nonce)?;
    mac.update(aad);
    mac.pad16(aad.len());
    mac.update(ciphertext);
    mac.pad16(ciphertext.len());
    mac.update(&u64_len(aad.len()).to_le_bytes());
    mac.update(&u64_len(ciphertext.len()).to_le_bytes());
    Ok(mac.finalize())
}

/// XChaCha20-Poly1305 (IETF) encryption: `ciphertext || tag`. Built from the same HChaCha20,
/// ChaCha20 and Poly1305 helpers as the stream; exposed so that Wycheproof vectors exercise them.
#[doc(hidden)]
pub fn xchacha20poly1305_ietf_encrypt(
    key: &[u8; 32],
    nonce: &[u8; 24],
    aad: &[u8],
    plaintext: &[u8],
) -> Result<Vec<u8>, SealError> {
    let (mut subkey, ietf) = xchacha_subkey(key, nonce);
    let result = (|| {
        let mut out = plaintext.to_vec();
        chacha20_xor_ic(&subkey, &ietf, 1, &mut out).map_err(|_| SealError::TooLong)?;
        let tag = ietf_mac(&subkey, &ietf, aad, &out).map_err(|_| SealError::TooLong)?;
        out.extend_from_slice(&tag);
        Ok(out)
    })();
    subkey.zeroize();
    result
}

/// XChaCha20-Poly1305 (IETF) decryption of `ciphertext || tag`; the tag is compared in constant
/// time and nothing is decrypted unless it matches.
#[doc(hidden)]
pub fn xchacha20poly1305_ietf_decrypt(
    key: &[u8; 32],
    nonce: &[u8; 24],
    aad: &[u8],
    sealed: &[u8],
) -> Result<Vec<u8>, OpenError> {
    let Some(ct_len) = sealed.len().checked_sub(MAC_BYTES) else {
        return Err(OpenError::TooShort);
    };
    let (ciphertext, tag) = sealed.split_at(ct_len);
    let (mut subkey, ietf) = xchacha_subkey(key, nonce);
    let result = (|| {
        let expected = ietf_mac(&subkey, &ietf, aad, ciphertext).map_err(|_| OpenError::Forged)?;
        if !bool::from(expected.ct_eq(tag)) {
            return Err(OpenError::Forged);
        }
        let mut out = ciphertext.to_vec();
        chacha20_xor_ic(&subkey, &ietf, 1, &mut out).map_err(|_| OpenError::Forged)?;
        Ok(out)
    })();
    subkey.zeroize();
    result
}

// ---------------------------------------------------------------------------------------------
// The secretstream state.
// ---------------------------------------------------------------------------------------------

/// `crypto_secretstream_xchacha20poly1305_state`: the stream key and `counter || inner nonce`.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
struct StreamState {
    k: [u8; 32],
    nonce: [u8; IETF_NONCE_BYTES],
}

impl StreamState {
    /// libsodium `init_push`/`init_pull` with a known header.
    fn init(key: &SessionKey, header: &[u8; HEADER_BYTES]) -> Self {
        let (hin, inonce) = header.split_at(HCHACHA_INPUT_BYTES);
        let mut input = [0u8; HCHACHA_INPUT_BYTES];
        input.copy_from_slice(hin);
        let mut nonce = [0u8; IETF_NONCE_BYTES];
        nonce[COUNTER_BYTES..].copy_from_slice(inonce);
        let mut st = Self {
            k: hchacha20(&key.0, &input),
            nonce,
        };
        st.reset_counter();
        st
    }

    fn reset_counter(&mut self) {
        self.nonce[..COUNTER_BYTES].copy_from_slice(&1u32.to_le_bytes());
    }

    /// libsodium `rekey`: the key and inner nonce are replaced by themselves XORed with keystream
    /// block 0, and the counter restarts at 1.
    fn rekey(&mut self) {
        let mut buf = [0u8; 32 + 8];
        buf[..32].copy_from_slice(&self.k);
        buf[32..].copy_from_slice(&self.nonce[COUNTER_BYTES..]);
        // 40 bytes at block 0 can never exhaust the keystream.
        if chacha20_xor_ic(&self.k, &self.nonce, 0, &mut buf).is_ok() {
            self.k.copy_from_slice(&buf[..32]);
            self.nonce[COUNTER_BYTES..].copy_from_slice(&buf[32..]);
        }
        buf.zeroize();
        self.reset_counter();
    }

    /// The state update after a push or pull: fold the MAC into the inner nonce, increment the
    /// counter, rekey on the rekey bit or a counter wrap.
    fn advance(&mut self, mac: &[u8; MAC_BYTES], tag_byte: u8) {
        for (n, m) in self.nonce[COUNTER_BYTES..].iter_mut().zip(mac.iter()) {
            *n ^= *m;
        }
        let mut ctr = [0u8; COUNTER_BYTES];
        ctr.copy_from_slice(&self.nonce[..COUNTER_BYTES]);
        let next = u32::from_le_bytes(ctr).wrapping_add(1);
        self.nonce[..COUNTER_BYTES].copy_from_slice(&next.to_le_bytes());
        if tag_byte & TAG_REKEY_BIT != 0 || next == 0 {
            self.rekey();
        }
    }

    /// The Poly1305 state after the (empty) associated data and the encrypted tag block.
    ///
    /// The tag travels as the first byte of ChaCha20 block 1 (`tag ^ keystream[0]`); the MAC
    /// covers that whole block as encrypted, i.e. the wire byte followed by 63 keystream bytes.
    /// Returns the MAC state and `first_byte ^ keystream[0]`: the wire byte when given a tag, the
    /// tag when given a wire byte.
    fn mac_prefix(&self, first_byte: u8, is_wire: bool) -> Result<(Mac, u8), KeystreamExhausted> {
        let mut mac = poly1305_key(&self.k, &self.nonce)?;
        // Associated data: always empty on the node link, so neither it nor its padding adds
        // anything to the MAC input.
        let mut block = [0u8; BLOCK_BYTES];
        chacha20_xor_ic(&self.k, &self.nonce, 1, &mut block)?;
        let other = first_byte ^ block[0];
        block[0] = if is_wire { first_byte } else { other };
        mac.update(&block);
        block.zeroize();
        Ok((mac, other))
    }

    /// Lengths and the quirky libsodium padding after the ciphertext, then the tag.
    fn mac_finish(mut mac: Mac, ciphertext: &[u8]) -> [u8; MAC_BYTES] {
        mac.update(ciphertext);
        // libsodium pads with `(0x10 - 64 + mlen) & 0xf` zero bytes, i.e. `mlen % 16`.
        mac.update(&ZEROS[..ciphertext.len() % 16]);
        mac.update(&0u64.to_le_bytes());
        mac.update(
            &(BLOCK_BYTES as u64)
                .saturating_add(u64_len(ciphertext.len()))
                .to_le_bytes(),
        );
        mac.finalize()
    }

    /// libsodium `push` with empty associated data. The state advances only on success.
    fn push(&mut self, plaintext: &[u8], tag: Tag) -> Result<Vec<u8>, SealError> {
        self.push_raw(plaintext, tag as u8)
    }

    /// `push` with any tag byte (libsodium does not restrict it; tests use it to forge frames
    /// with unknown tags that still authenticate).
    fn push_raw(&mut self, plaintext: &[u8], tag_byte: u8) -> Result<Vec<u8>, SealError> {
        if u64_len(plaintext.len()) > MESSAGE_BYTES_MAX {
            return Err(SealError::TooLong);
        }
        let (mac, wire_tag) = self
            .mac_prefix(tag_byte, false)
            .map_err(|_| SealError::TooLong)?;
        let mut out = Vec::with_capacity(plaintext.len() + ABYTES);
        out.push(wire_tag);
        out.extend_from_slice(plaintext);
        let body = &mut out[1..];
        chacha20_xor_ic(&self.k, &self.nonce, 2, body).map_err(|_| SealError::TooLong)?;
        let mac = Self::mac_finish(mac, body);
        out.extend_from_slice(&mac);
        self.advance(&mac, tag_byte);
        Ok(out)
    }

    /// libsodium `pull` with empty associated data, refusing unknown tags. `self` is left
    /// untouched on any failure.
    fn pull(&mut self, sealed: &[u8]) -> Result<(Vec<u8>, Tag), OpenError> {
        let Some(mlen) = sealed.len().checked_sub(ABYTES) else {
            return Err(OpenError::TooShort);
        };
        let Some((&wire_tag, rest)) = sealed.split_first() else {
            return Err(OpenError::TooShort);
        };
        let (ciphertext, stored) = rest.split_at(mlen);
        let (mac, tag_byte) = self
            .mac_prefix(wire_tag, true)
            .map_err(|_| OpenError::Forged)?;
        let expected = Self::mac_finish(mac, ciphertext);
        if !bool::from(expected.ct_eq(stored)) {
            return Err(OpenError::Forged);
        }
        let Some(tag) = Tag::from_byte(tag_byte) else {
            return Err(OpenError::BadTag);
        };
        let mut plaintext = ciphertext.to_vec();
        chacha20_xor_ic(&self.k, &self.nonce, 2, &mut plaintext).map_err(|_| OpenError::Forged)?;
        self.advance(&expected, tag_byte);
        Ok((plaintext, tag))
    }
}

// ---------------------------------------------------------------------------------------------
// Public push / pull sides.
// ---------------------------------------------------------------------------------------------

/// The push side of a stream.
pub struct Sealer {
    state: StreamState,
    header: [u8; HEADER_BYTES],
    header_sent: bool,
    finished: bool,
}

impl Sealer {
    /// Starts a stream under `key` with a header drawn from `rng`.
    pub fn new<R: CryptoRng + ?Sized>(key: &SessionKey, rng: &mut R) -> Self {
        let mut header = [0u8; HEADER_BYTES];
        rng.fill_bytes(&mut header);
        Self::with_header(key, header)
    }

    /// Starts a stream under `key` with a given header (libsodium `init_push` with a fixed
    /// header, for test vectors).
    #[must_use]
    pub fn with_header(key: &SessionKey, header: [u8; HEADER_BYTES]) -> Self {
        Self {
            state: StreamState::init(key, &header),
            header,
            header_sent: false,
            finished: false,
        }
    }

    /// The stream header.
    #[must_use]
    pub fn header(&self) -> [u8; HEADER_BYTES] {
        self.header
    }

    /// libsodium `push`: one ciphertext of `plaintext.len() + ABYTES` bytes, without the header.
    ///
    /// After a `Final` push every further push fails with [`SealError::Finished`].
    pub fn push(&mut self, plaintext: &[u8], tag: Tag) -> Result<Vec<u8>, SealError> {
        if self.finished {
            return Err(SealError::Finished);
        }
        let out = self.state.push(plaintext, tag)?;
        if tag == Tag::Final {
            self.finished = true;
        }
        Ok(out)
    }

    /// One wire frame with tag `Message`: the header followed by the ciphertext on the first
    /// call, the ciphertext alone afterwards.
    ///
    /// Only the frame methods emit the header; a stream driven through [`Sealer::push`] sends
    /// [`Sealer::header`] itself.
    pub fn seal_frame(&mut self, plaintext: &[u8]) -> Result<Vec<u8>, SealError> {
        self.seal_frame_with_tag(plaintext, Tag::Message)
    }

    /// As [`Sealer::seal_frame`] with an explicit tag (`Rekey` to rekey both sides after this
    /// frame, `Final` to end the stream).
    pub fn seal_frame_with_tag(
        &mut self,
        plaintext: &[u8],
        tag: Tag,
    ) -> Result<Vec<u8>, SealError> {
        let ciphertext = self.push(plaintext, tag)?;
        if self.header_sent {
            return Ok(ciphertext);
        }
        self.header_sent = true;
        let mut frame = Vec::with_capacity(HEADER_BYTES + ciphertext.len());
        frame.extend_from_slice(&self.header);
        frame.extend_from_slice(&ciphertext);
        Ok(frame)
    }

    /// libsodium `rekey` (explicit, untagged). The opener must rekey at the same position.
    pub fn rekey(&mut self) {
        self.state.rekey();
    }

    /// Whether the stream sent its `FINAL` message.
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Overrides the 32-bit message counter (libsodium keeps it in the first four nonce bytes);
    /// lets tests reach the counter-wrap rekey without four billion pushes.
    #[doc(hidden)]
    pub fn set_counter_for_tests(&mut self, counter: u32) {
        self.state.nonce[..COUNTER_BYTES].copy_from_slice(&counter.to_le_bytes());
    }
}

impl core::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sealer")
            .field("header_sent", &self.header_sent)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

/// The pull side of a stream.
pub struct Opener {
    /// The key, kept only until the header arrives.
    pending_key: Option<SessionKey>,
    /// The stream state once the header is known.
    state: Option<StreamState>,
    failed: bool,
    finished: bool,
}

impl Opener {
    /// An opener that expects the header at the front of the first frame.
    #[must_use]
    pub fn new(key: &SessionKey) -> Self {
        Self {
            pending_key: Some(key.clone()),
            state: None,
            failed: false,
            finished: false,
        }
    }

    /// libsodium `init_pull` with a known header.
    #[must_use]
    pub fn with_header(key: &SessionKey, header: [u8; HEADER_BYTES]) -> Self {
        Self {
            pending_key: None,
            state: Some(StreamState::init(key, &header)),
            failed: false,
            finished: false,
        }
    }

    /// Refusals that precede any work: after the end, or after a failure.
    fn gate(&self) -> Result<(), OpenError> {
        if self.finished {
            Err(OpenError::AfterFinal)
        } else if self.failed {
            Err(OpenError::Dead)
        } else {
            Ok(())
        }
    }

    /// Records the outcome of one pull: a failure kills the opener, `Final` ends the stream.
    fn settle(
        &mut self,
        result: Result<(Vec<u8>, Tag), OpenError>,
    ) -> Result<(Vec<u8>, Tag), OpenError> {
        match &result {
            Ok((_, Tag::Final)) => {
                self.finished = true;
                self.state = None;
            }
            Ok(_) => {}
            Err(_) => self.kill(),
        }
        result
    }

    fn kill(&mut self) {
        self.failed = true;
        self.state = None;
        self.pending_key = None;
    }

    /// libsodium `pull` of one ciphertext (no header).
    ///
    /// An opener made by [`Opener::new`] has no header yet: pulling from it fails with
    /// [`OpenError::TooShort`] (the header is missing) and kills it.
    pub fn pull(&mut self, ciphertext: &[u8]) -> Result<(Vec<u8>, Tag), OpenError> {
        self.gate()?;
        let result = match self.state.as_mut() {
            Some(state) => state.pull(ciphertext),
            None => Err(OpenError::TooShort),
        };
        self.settle(result)
    }

    /// Opens one wire frame (see [`Sealer::seal_frame`]). `Rekey` tags are honoured; after a
    /// `Final` message every further frame is refused.
    pub fn open_frame(&mut self, frame: &[u8]) -> Result<Vec<u8>, OpenError> {
        self.open_frame_with_tag(frame)
            .map(|(plaintext, _)| plaintext)
    }

    /// As [`Opener::open_frame`], also returning the frame's tag.
    pub fn open_frame_with_tag(&mut self, frame: &[u8]) -> Result<(Vec<u8>, Tag), OpenError> {
        self.gate()?;
        if self.state.is_some() {
            return self.pull(frame);
        }
        let result = match (
            self.pending_key.take(),
            frame.split_first_chunk::<HEADER_BYTES>(),
        ) {
            (Some(key), Some((header, rest))) if rest.len() >= ABYTES => {
                let mut state = StreamState::init(&key, header);
                state.pull(rest).map(|opened| (opened, state))
            }
            _ => Err(OpenError::TooShort),
        };
        match result {
            Ok((opened, state)) => {
                self.state = Some(state);
                self.settle(Ok(opened))
            }
            Err(e) => self.settle(Err(e)),
        }
    }

    /// libsodium `rekey` (explicit, untagged). The sealer must rekey at the same position.
    /// Does nothing before the header arrived, after a failure or after the end.
    pub fn rekey(&mut self) {
        if let Some(state) = self.state.as_mut() {
            state.rekey();
        }
    }

    /// Overrides the 32-bit message counter once the header is known (see
    /// [`Sealer::set_counter_for_tests`]).
    #[doc(hidden)]
    pub fn set_counter_for_tests(&mut self, counter: u32) {
        if let Some(state) = self.state.as_mut() {
            state.nonce[..COUNTER_BYTES].copy_from_slice(&counter.to_le_bytes());
        }
    }

    /// Whether a failure has killed this opener.
    #[must_use]
    pub fn is_failed(&self) -> bool {
        self.failed
    }

    /// Whether the stream delivered its `FINAL` message.
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.finished
    }
}

impl core::fmt::Debug for Opener {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Opener")
            .field("started", &self.state.is_some())
            .field("failed", &self.failed)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state_bytes(o: &Opener) -> Option<([u8; 32], [u8; IETF_NONCE_BYTES])> {
        o.state.as_ref().map(|s| (s.k, s.nonce))
    }

    #[test]
    fn an_authentic_frame_with_an_unknown_tag_is_refused_without_advancing() {
        let key = SessionKey([9; 32]);
        let header = [4; HEADER_BYTES];
        let mut raw = StreamState::init(&key, &header);
        let good = raw.push(b"one", Tag::Message).unwrap();
        for tag_byte in [4u8, 0x10, 0x80, 0xff] {
            let mut forger = raw.clone();
            let bad = forger.push_raw(b"two", tag_byte).unwrap();
            let mut opener = Opener::with_header(&key, header);
            assert_eq!(opener.pull(&good).unwrap(), (b"one".to_vec(), Tag::Message));
            // The raw state authenticates it (libsodium would deliver it)...
            let mut probe = opener.state.clone().unwrap();
            let before = (probe.k, probe.nonce);
            assert_eq!(probe.pull(&bad), Err(OpenError::BadTag));
            // ...without the state moving on the refusal,
            assert_eq!((probe.k, probe.nonce), before);
            // and the opener refuses it and dies.
            assert_eq!(opener.pull(&bad), Err(OpenError::BadTag));
            assert!(opener.is_failed());
            assert_eq!(state_bytes(&opener), None);
        }
    }

    #[test]
    fn a_failed_pull_leaves_the_raw_state_untouched() {
        let key = SessionKey([1; 32]);
        let header = [2; HEADER_BYTES];
        let mut sealer = StreamState::init(&key, &header);
        let frame = sealer.push(b"payload", Tag::Rekey).unwrap();
        let mut st = StreamState::init(&key, &header);
        let before = (st.k, st.nonce);
        let mut bad = frame.clone();
        bad[3] ^= 1;
        assert_eq!(st.pull(&bad), Err(OpenError::Forged));
        assert_eq!((st.k, st.nonce), before);
        assert_eq!(st.pull(&frame).unwrap(), (b"payload".to_vec(), Tag::Rekey));
        assert_ne!((st.k, st.nonce), before);
    }

    #[test]
    fn a_frame_that_libsodium_would_open_after_final_is_refused() {
        let key = SessionKey([5; 32]);
        let header = [6; HEADER_BYTES];
        // A raw libsodium-style state keeps going after FINAL.
        let mut raw = StreamState::init(&key, &header);
        let fin = raw.push(b"end", Tag::Final).unwrap();
        let beyond = raw.push(b"beyond", Tag::Message).unwrap();
        let mut raw_pull = StreamState::init(&key, &header);
        assert_eq!(raw_pull.pull(&fin).unwrap().1, Tag::Final);
        assert_eq!(raw_pull.pull(&beyond).unwrap().0, b"beyond");
        // Ours does not.
        let mut opener = Opener::with_header(&key, header);
        assert_eq!(opener.pull(&fin).unwrap().1, Tag::Final);
        assert_eq!(opener.pull(&beyond), Err(OpenError::AfterFinal));
        assert_eq!(opener.open_frame(&beyond), Err(OpenError::AfterFinal));
    }

    #[test]
    fn too_long_is_checked_against_libsodium_limit() {
        assert_eq!(MESSAGE_BYTES_MAX, 274_877_906_816);
    }

    #[test]
    fn incremental_mac_matches_one_shot_for_every_split() {
        let key = [7u8; 32];
        let data: Vec<u8> = (0..100u8).collect();
        let one_shot: [u8; 16] = Poly1305::new((&key).into()).compute_unpadded(&data).into();
        for a in 0..data.len() {
            for b in a..data.len() {
                let mut m = Mac::new(&key);
                m.update(&data[..a]);
                m.update(&data[a..b]);
                m.update(&data[b..]);
                assert_eq!(m.finalize(), one_shot, "split {a} {b}");
            }
        }
    }
}
