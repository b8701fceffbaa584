//! Property tests of the sealed stream: random message sequences round-trip (REKEY tags
//! included), and flipping any single bit of any frame makes opening fail and kills the opener.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use termplane_machines::rng;
use termplane_machines::seal::{ABYTES, HEADER_BYTES, OpenError, Opener, Sealer, SessionKey, Tag};

fn messages() -> impl Strategy<Value = Vec<(Vec<u8>, bool)>> {
    prop::collection::vec(
        (
            prop::collection::vec(any::<u8>(), 0..3000),
            prop::bool::weighted(0.2),
        ),
        1..12,
    )
}

fn seal_all(key: &SessionKey, seed: [u8; 32], msgs: &[(Vec<u8>, bool)]) -> Vec<Vec<u8>> {
    let mut r = rng::from_seed(seed);
    let mut sealer = Sealer::new(key, &mut r);
    msgs.iter()
        .map(|(m, rekey)| {
            let tag = if *rekey { Tag::Rekey } else { Tag::Message };
            sealer.seal_frame_with_tag(m, tag).unwrap()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_sequences_round_trip(key in any::<[u8; 32]>(), seed in any::<[u8; 32]>(), msgs in messages()) {
        let key = SessionKey(key);
        let frames = seal_all(&key, seed, &msgs);
        let mut opener = Opener::new(&key);
        for (i, ((m, rekey), f)) in msgs.iter().zip(&frames).enumerate() {
            let extra = if i == 0 { HEADER_BYTES } else { 0 };
            prop_assert_eq!(f.len(), m.len() + ABYTES + extra);
            let (opened, tag) = opener.open_frame_with_tag(f).unwrap();
            prop_assert_eq!(&opened, m);
            prop_assert_eq!(tag, if *rekey { Tag::Rekey } else { Tag::Message });
        }
        prop_assert!(!opener.is_failed());
    }

    #[test]
    fn any_single_bit_flip_fails_and_kills(
        key in any::<[u8; 32]>(),
        seed in any::<[u8; 32]>(),
        msgs in messages(),
        which in any::<prop::sample::Index>(),
        bit in any::<prop::sample::Index>(),
    ) {
        let key = SessionKey(key);
        let frames = seal_all(&key, seed, &msgs);
        let target = which.index(frames.len());
        let mut bad = frames[target].clone();
        let bit = bit.index(bad.len() * 8);
        bad[bit / 8] ^= 1 << (bit % 8);

        let mut opener = Opener::new(&key);
        for f in &frames[..target] {
            opener.open_frame(f).unwrap();
        }
        prop_assert!(opener.open_frame(&bad).is_err());
        prop_assert!(opener.is_failed());
        // The genuine frame and every later one stay refused.
        for f in &frames[target..] {
            prop_assert_eq!(opener.open_frame(f), Err(OpenError::Dead));
        }
    }
}
