//! ECDSA P-256 verification under one long-lived key, with precomputed multiples of the key.
//!
//! A node verifies every command under the same key, the plane's, for as long as its link
//! lives; a keystroke into a remote pane is one such command, so the time a verification takes
//! is on the path of every remote echo. The generic verification of the `ecdsa` crate computes
//! `u1·G + u2·Q` with a fresh window table for `Q` on every call and 256 doublings. Here both `G`
//! and `Q` get a table once, of every multiple `j · 128^i · P` for `j` in `1..=64` and each 7-bit
//! window `i` of a scalar (37 windows, 2,368 affine points, about 167 KiB per table, built in
//! about 3 ms): a scalar multiplication is then at most 37 mixed additions and no doubling, and
//! a verification about 83 µs instead of 347 µs (`cargo bench -p termplane-benches --bench jws`;
//! 4-bit windows gave 125 µs with 34 KiB, 8-bit ones 75 µs with 297 KiB and 5.5 ms to build).
//!
//! Only public values enter this arithmetic (the key, the signature, the message's digest), so
//! it is variable-time by design, like the `ecdsa` crate's verification it replaces. The group
//! law, the field and scalar arithmetic and the parsing of keys and signatures all stay the
//! `p256` crate's; what is ours is the recoding of a scalar into signed digits and the table
//! walk. The result is compared with that crate's verification on the Wycheproof vectors and on
//! random keys, messages and tampered signatures (`tests/wycheproof_ecdsa.rs`,
//! `tests/wycheproof_jws.rs`, `tests/jws_props.rs`, the unit tests below and the fuzz target
//! `p256_fixed_key`).

use p256::ecdsa::{Signature, VerifyingKey};
use p256::elliptic_curve::ops::{Double as _, Invert as _, Reduce as _};
use p256::elliptic_curve::point::{AffineCoordinates as _, BatchNormalize as _};
use p256::{AffinePoint, FieldBytes, ProjectivePoint, Scalar};
use sha2::{Digest as _, Sha256};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Bits per window of a scalar.
const WINDOW_BITS: usize = 7;
/// Largest magnitude of a signed digit: digits lie in `-HALF..HALF`.
const HALF: usize = 1 << (WINDOW_BITS - 1);
/// Windows that cover a 256-bit scalar with at least one spare bit on top, so the carry out of
/// the last full window lands in a window of its own.
const WINDOWS: usize = 256 / WINDOW_BITS
    + 1
    + if 256 % WINDOW_BITS >= WINDOW_BITS - 1 {
        1
    } else {
        0
    };

/// Every `j · 2^(WINDOW_BITS·i) · P` for `j` in `1..=HALF` and `i` in `0..WINDOWS`, affine, row
/// by row.
struct Table {
    points: Vec<AffinePoint>,
}

impl Table {
    fn new(point: &ProjectivePoint) -> Self {
        let mut projective = Vec::with_capacity(WINDOWS * HALF);
        let mut base = *point;
        for _ in 0..WINDOWS {
            let mut multiple = base;
            projective.push(multiple);
            for _ in 1..HALF {
                multiple += base;
                projective.push(multiple);
            }
            // HALF · base doubled once is 2^WINDOW_BITS · base, the next window's base.
            base = multiple.double();
        }
        Self {
            points: ProjectivePoint::batch_normalize(projective.as_slice()),
        }
    }

    /// Adds `k · P` to `acc`.
    fn add_multiple(&self, acc: &mut ProjectivePoint, k: &Scalar) {
        for (window, digit) in signed_digits(k).into_iter().enumerate() {
            let magnitude = usize::from(digit.unsigned_abs());
            if magnitude == 0 {
                continue;
            }
            let Some(entry) = self.points.get(window * HALF + magnitude - 1) else {
                // Unreachable: digits are at most HALF in magnitude and there are WINDOWS of them.
                continue;
            };
            if digit > 0 {
                *acc += entry;
            } else {
                *acc -= entry;
            }
        }
    }
}

/// `k` as `WINDOWS` signed base-2^`WINDOW_BITS` digits, least significant first:
/// `k = Σ dᵢ · 2^(WINDOW_BITS·i)` with every `dᵢ` in `-HALF..HALF`; the last window has a spare
/// bit on top, so its digit is never negative and nothing carries out of it.
fn signed_digits(k: &Scalar) -> [i16; WINDOWS] {
    // Little-endian bytes with room for a window that reads past the top bit.
    let mut le = [0_u8; 36];
    for (dst, src) in le.iter_mut().zip(k.to_bytes().iter().rev()) {
        *dst = *src;
    }
    let mask = (1_u32 << WINDOW_BITS) - 1;
    let mut digits = [0_i16; WINDOWS];
    let mut carry = 0_u32;
    for (i, digit) in digits.iter_mut().enumerate() {
        let bit = i * WINDOW_BITS;
        let at = |n: usize| u32::from(le.get(bit / 8 + n).copied().unwrap_or(0));
        let raw = (at(0) | at(1) << 8 | at(2) << 16) >> (bit % 8);
        let value = (raw & mask) + carry; // 0..=2^WINDOW_BITS
        // Both casts are lossless: value ≤ 2^WINDOW_BITS ≤ 256.
        #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
        let value = value as i16;
        if value >= HALF as i16 {
            // value − 2^WINDOW_BITS, in -HALF..=0; the 2^WINDOW_BITS moves up as a carry.
            *digit = value - (1 << WINDOW_BITS);
            carry = 1;
        } else {
            *digit = value;
            carry = 0;
        }
    }
    digits
}

/// The generator's table, built the first time any key needs it and shared by all.
fn generator_table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table::new(&ProjectivePoint::GENERATOR))
}

/// A P-256 verifying key with its table of multiples: cheap to clone (the table is shared).
#[derive(Clone)]
pub struct FixedKey {
    key: VerifyingKey,
    table: Arc<Table>,
}

impl core::fmt::Debug for FixedKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FixedKey")
            .field("key", &self.key.to_sec1_point(true))
            .finish_non_exhaustive()
    }
}

/// Tables of the keys most recently given to [`FixedKey::new`], newest first.
///
/// A node makes a new link machine, and so a new verifier, whenever its daemon starts or
/// reloads, always for the same plane key; building the table again each time would cost a few
/// milliseconds for the same answer. The memo holds at most this many tables (about 170 KiB
/// each); it is a pure function's memo, so sharing it between threads changes no result.
const REMEMBERED_KEYS: usize = 4;

fn table_for(key: &VerifyingKey) -> Arc<Table> {
    static MEMO: Mutex<VecDeque<([u8; 33], Arc<Table>)>> = Mutex::new(VecDeque::new());
    let mut id = [0_u8; 33];
    id.copy_from_slice(key.to_sec1_point(true).as_bytes());
    let found = {
        let memo = MEMO.lock().unwrap_or_else(PoisonError::into_inner);
        memo.iter()
            .find(|(k, _)| *k == id)
            .map(|(_, table)| Arc::clone(table))
    };
    if let Some(table) = found {
        return table;
    }
    // Built outside the lock: two threads may build the same table once each, never wrongly.
    let table = Arc::new(Table::new(&ProjectivePoint::from(*key.as_affine())));
    let mut memo = MEMO.lock().unwrap_or_else(PoisonError::into_inner);
    if !memo.iter().any(|(k, _)| *k == id) {
        memo.push_front((id, Arc::clone(&table)));
        memo.truncate(REMEMBERED_KEYS);
    }
    table
}

impl FixedKey {
    /// The key with its table of multiples: built once per key (about 3 ms), then taken from a
    /// memo of the last few keys.
    #[must_use]
    pub fn new(key: VerifyingKey) -> Self {
        let table = table_for(&key);
        let _ = generator_table();
        Self { key, table }
    }

    /// The key a JWK names (see [`crate::jws::PublicJwk`] for what is refused).
    ///
    /// # Errors
    /// The JWK is not a P-256 point in the strict form the plane hands out.
    pub fn from_jwk(jwk: &crate::jws::PublicJwk) -> Result<Self, crate::jws::KeyError> {
        Ok(Self::new(jwk.to_verifying_key()?))
    }

    /// The key itself.
    #[must_use]
    pub fn key(&self) -> &VerifyingKey {
        &self.key
    }

    /// `a·G + b·Q`, where `Q` is this key: the one computation a verification does through the
    /// tables (public so the fuzz target can hold it to the `p256` crate's multiplication).
    #[must_use]
    pub fn mul_add(&self, a: &Scalar, b: &Scalar) -> ProjectivePoint {
        let mut point = ProjectivePoint::IDENTITY;
        generator_table().add_multiple(&mut point, a);
        self.table.add_multiple(&mut point, b);
        point
    }

    /// Whether `signature` is an ECDSA signature by this key over SHA-256 of `message`, with the
    /// same answer as the `p256` crate's `VerifyingKey::verify` (high-S signatures included: see
    /// the module `jws` on malleability).
    #[must_use]
    pub fn verifies(&self, message: &[u8], signature: &Signature) -> bool {
        let digest: [u8; 32] = Sha256::digest(message).into();
        self.verifies_digest(&digest, signature)
    }

    /// As [`Self::verifies`], on the message's SHA-256 digest.
    #[must_use]
    pub fn verifies_digest(&self, digest: &[u8; 32], signature: &Signature) -> bool {
        // r and s are non-zero and below the group order: `Signature` refuses anything else.
        let (r, s) = signature.split_scalars();
        let z = Scalar::reduce(&FieldBytes::from(*digest));
        let s_inv: Scalar = *s.invert_vartime();
        let u1 = z * s_inv;
        let u2 = *r * s_inv;
        // The identity's affine x is zero, which never equals r.
        let x = self.mul_add(&u1, &u2).to_affine().x();
        Scalar::reduce(&x) == *r
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use p256::ecdsa::SigningKey;
    use p256::ecdsa::signature::{Signer as _, Verifier as _};
    use proptest::prelude::*;

    fn scalar_from_digits(digits: &[i16; WINDOWS]) -> Scalar {
        let sixteen = Scalar::from(1_u64 << WINDOW_BITS);
        digits.iter().rev().fold(Scalar::ZERO, |acc, &d| {
            let term = Scalar::from(u64::from(d.unsigned_abs()));
            acc * sixteen + if d < 0 { -term } else { term }
        })
    }

    fn edge_scalars() -> Vec<Scalar> {
        let mut out = vec![
            Scalar::ZERO,
            Scalar::ONE,
            -Scalar::ONE,
            Scalar::from(8_u64),
            Scalar::from(0x8888_8888_8888_8888_u64),
            Scalar::from(u64::MAX),
        ];
        let mut power = Scalar::ONE;
        for _ in 0..256 {
            out.push(power);
            out.push(-power);
            power = power.double();
        }
        out
    }

    #[test]
    fn signed_digits_recompose_to_the_scalar_and_stay_in_range() {
        for k in edge_scalars() {
            let digits = signed_digits(&k);
            let half = HALF as i16;
            assert!(
                digits[..WINDOWS - 1]
                    .iter()
                    .all(|d| (-half..half).contains(d))
            );
            assert!((0..half).contains(&digits[WINDOWS - 1]));
            assert_eq!(scalar_from_digits(&digits), k);
        }
    }

    #[test]
    fn table_multiples_match_the_crates_multiplication_at_the_edges() {
        let q = ProjectivePoint::GENERATOR * Scalar::from(0x1234_5678_u64);
        let table = Table::new(&q);
        for k in edge_scalars() {
            let mut acc = ProjectivePoint::IDENTITY;
            table.add_multiple(&mut acc, &k);
            assert_eq!(acc, q * k);
        }
    }

    #[test]
    fn a_key_given_again_reuses_its_table_and_the_memo_stays_bounded() {
        let key_of = |n: u64| {
            *SigningKey::from_slice(&Scalar::from(n).to_bytes())
                .unwrap()
                .verifying_key()
        };
        let first = FixedKey::new(key_of(7));
        let again = FixedKey::new(key_of(7));
        assert!(Arc::ptr_eq(&first.table, &again.table));
        for n in 100..100 + 2 * REMEMBERED_KEYS as u64 {
            let _ = FixedKey::new(key_of(n));
        }
        // Pushed out of the memo by newer keys: built afresh, and still right.
        let later = FixedKey::new(key_of(7));
        assert!(!Arc::ptr_eq(&first.table, &later.table));
        let signing = SigningKey::from_slice(&Scalar::from(7_u64).to_bytes()).unwrap();
        let signature: Signature = signing.sign(b"m");
        assert!(later.verifies(b"m", &signature));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn table_multiples_match_the_crates_multiplication(seed in any::<[u8; 32]>(), k in any::<[u8; 32]>()) {
            let p = ProjectivePoint::GENERATOR * Scalar::reduce(&FieldBytes::from(seed));
            let k = Scalar::reduce(&FieldBytes::from(k));
            let digits = signed_digits(&k);
            prop_assert_eq!(scalar_from_digits(&digits), k);
            let mut acc = ProjectivePoint::IDENTITY;
            Table::new(&p).add_multiple(&mut acc, &k);
            prop_assert_eq!(acc, p * k);
            let mut acc = ProjectivePoint::IDENTITY;
            generator_table().add_multiple(&mut acc, &k);
            prop_assert_eq!(acc, ProjectivePoint::GENERATOR * k);
        }

        #[test]
        fn verification_agrees_with_the_crate(secret in any::<[u8; 32]>(), message in proptest::collection::vec(any::<u8>(), 0..64), flip in 0_usize..64 * 8) {
            let Ok(signing) = SigningKey::from_slice(&secret) else { return Ok(()) };
            let fixed = FixedKey::new(*signing.verifying_key());
            let signature: Signature = signing.sign(&message);
            prop_assert!(fixed.verifies(&message, &signature));
            prop_assert!(signing.verifying_key().verify(&message, &signature).is_ok());
            // The high-S twin verifies under both.
            let (r, s) = signature.split_scalars();
            let twin = Signature::from_scalars(r.to_bytes(), (-*s).to_bytes()).unwrap();
            prop_assert!(fixed.verifies(&message, &twin));
            // One flipped bit of the signature: both refuse, or the bytes no longer parse.
            let mut bytes = signature.to_bytes();
            bytes[flip / 8] ^= 1 << (flip % 8);
            if let Ok(tampered) = Signature::from_slice(&bytes) {
                prop_assert!(!fixed.verifies(&message, &tampered));
                prop_assert!(signing.verifying_key().verify(&message, &tampered).is_err());
            }
            // Another message: both refuse.
            let mut other = message.clone();
            other.push(0);
            prop_assert!(!fixed.verifies(&other, &signature));
        }
    }
}
