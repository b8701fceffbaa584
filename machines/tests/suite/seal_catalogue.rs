//! Catalogue section C (encrypted stream) at the level of the sealed stream itself.
//!
//! C31 (stream ends without FINAL), C33 (plaintext after establishment) and C34 (text/binary
//! mismatch) concern the link machines that carry these frames, not the stream: they are tested
//! with those machines. C36 (recorded libsodium streams, REKEY and FINAL included) lives in
//! `libsodium_vectors.rs` and, against a live libsodium, in `pynacl_live.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use termplane_machines::rng;
use termplane_machines::seal::{
    ABYTES, HEADER_BYTES, OpenError, Opener, SealError, Sealer, SessionKey, Tag,
};

fn key(b: u8) -> SessionKey {
    SessionKey([b; 32])
}

/// A stream of `n` wire frames (header on the first) with distinct plaintexts.
fn frames(k: &SessionKey, seed: u8, n: usize) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut r = rng::from_seed([seed; 32]);
    let mut sealer = Sealer::new(k, &mut r);
    let plaintexts: Vec<Vec<u8>> = (0..n)
        .map(|i| format!("{{\"frame\":{i},\"pad\":\"{}\"}}", "x".repeat(i * 7)).into_bytes())
        .collect();
    let sealed = plaintexts
        .iter()
        .map(|p| sealer.seal_frame(p).unwrap())
        .collect();
    (plaintexts, sealed)
}

fn assert_dead(opener: &mut Opener, genuine: &[u8]) {
    assert!(opener.is_failed());
    assert_eq!(opener.open_frame(genuine), Err(OpenError::Dead));
    assert_eq!(opener.pull(genuine), Err(OpenError::Dead));
    assert!(opener.is_failed());
}

#[test]
fn frames_round_trip_with_header_once_and_17_bytes_overhead() {
    let k = key(1);
    let (plain, sealed) = frames(&k, 1, 6);
    assert_eq!(sealed[0].len(), HEADER_BYTES + plain[0].len() + ABYTES);
    for (p, s) in plain.iter().zip(&sealed).skip(1) {
        assert_eq!(s.len(), p.len() + ABYTES);
    }
    let mut opener = Opener::new(&k);
    for (p, s) in plain.iter().zip(&sealed) {
        assert_eq!(&opener.open_frame(s).unwrap(), p);
    }
    assert!(!opener.is_failed() && !opener.is_finished());
}

#[test]
fn c27_tampering_any_byte_of_the_first_frame_kills_the_opener() {
    // The first frame carries the header, so this covers every header byte too. Two directions
    // under two keys, as on a link.
    for (k, seed) in [(key(2), 2), (key(3), 3)] {
        let (plain, sealed) = frames(&k, seed, 3);
        for pos in 0..sealed[0].len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = sealed[0].clone();
                bad[pos] ^= flip;
                let mut opener = Opener::new(&k);
                assert!(opener.open_frame(&bad).is_err(), "pos {pos} flip {flip:#x}");
                // Neither the genuine first frame nor the genuine second one revives it.
                assert_dead(&mut opener, &sealed[0]);
                assert_dead(&mut opener, &sealed[1]);
            }
        }
        // Control: untouched, the stream opens.
        let mut opener = Opener::new(&k);
        assert_eq!(opener.open_frame(&sealed[0]).unwrap(), plain[0]);
    }
}

#[test]
fn c27_tampering_any_byte_of_a_mid_stream_frame_kills_the_opener() {
    let k = key(4);
    let (plain, sealed) = frames(&k, 4, 6);
    for pos in 0..sealed[3].len() {
        let mut opener = Opener::new(&k);
        for (p, s) in plain.iter().zip(&sealed).take(3) {
            assert_eq!(&opener.open_frame(s).unwrap(), p);
        }
        let mut bad = sealed[3].clone();
        bad[pos] ^= 0x20;
        assert!(opener.open_frame(&bad).is_err(), "pos {pos}");
        assert_dead(&mut opener, &sealed[3]);
        assert_dead(&mut opener, &sealed[4]);
    }
}

#[test]
fn c28_short_and_empty_frames_are_refused() {
    let k = key(5);
    let (plain, sealed) = frames(&k, 5, 3);
    // First frame: anything shorter than header + 17 bytes.
    for len in 0..HEADER_BYTES + ABYTES {
        let mut opener = Opener::new(&k);
        assert_eq!(
            opener.open_frame(&sealed[0][..len.min(sealed[0].len())]),
            Err(OpenError::TooShort),
            "len {len}"
        );
        assert_dead(&mut opener, &sealed[0]);
    }
    // Later frames: anything shorter than 17 bytes, including empty.
    for len in 0..ABYTES {
        let mut opener = Opener::new(&k);
        assert_eq!(opener.open_frame(&sealed[0]).unwrap(), plain[0]);
        assert_eq!(
            opener.open_frame(&sealed[1][..len]),
            Err(OpenError::TooShort)
        );
        assert_dead(&mut opener, &sealed[1]);
    }
    // An exactly-17-byte frame is the empty message, and it opens.
    let mut r = rng::from_seed([5; 32]);
    let mut sealer = Sealer::new(&k, &mut r);
    let mut opener = Opener::new(&k);
    opener
        .open_frame(&sealer.seal_frame(b"first").unwrap())
        .unwrap();
    let empty = sealer.seal_frame(b"").unwrap();
    assert_eq!(empty.len(), ABYTES);
    assert_eq!(opener.open_frame(&empty).unwrap(), b"");
}

#[test]
fn c29_duplicate_reordered_or_dropped_frames_fail_at_the_first_failure() {
    let k = key(6);
    let (plain, sealed) = frames(&k, 6, 5);
    let open_prefix = |n: usize| {
        let mut o = Opener::new(&k);
        for (p, s) in plain.iter().zip(&sealed).take(n) {
            assert_eq!(&o.open_frame(s).unwrap(), p);
        }
        o
    };
    // Duplicate.
    let mut o = open_prefix(3);
    assert_eq!(o.open_frame(&sealed[2]), Err(OpenError::Forged));
    assert_dead(&mut o, &sealed[3]);
    // Reordered.
    let mut o = open_prefix(2);
    assert_eq!(o.open_frame(&sealed[3]), Err(OpenError::Forged));
    assert_dead(&mut o, &sealed[2]);
    // Dropped.
    let mut o = open_prefix(1);
    assert_eq!(o.open_frame(&sealed[2]), Err(OpenError::Forged));
    assert_dead(&mut o, &sealed[1]);
    // Duplicate of the first frame (header included).
    let mut o = open_prefix(1);
    assert!(o.open_frame(&sealed[0]).is_err());
    assert_dead(&mut o, &sealed[1]);
}

#[test]
fn c30_frames_after_final_are_refused() {
    let k = key(7);
    let mut r = rng::from_seed([7; 32]);
    let mut sealer = Sealer::new(&k, &mut r);
    let first = sealer.seal_frame(b"hello").unwrap();
    let last = sealer.seal_frame_with_tag(b"bye", Tag::Final).unwrap();
    assert!(sealer.is_finished());
    assert_eq!(sealer.seal_frame(b"more"), Err(SealError::Finished));
    assert_eq!(sealer.push(b"more", Tag::Message), Err(SealError::Finished));

    // Another continuation of the same stream (a raw libsodium state would decrypt frames that
    // continue after FINAL; the unit tests in `seal.rs` build exactly such a frame).
    let mut r = rng::from_seed([7; 32]);
    let mut twin = Sealer::new(&k, &mut r);
    twin.seal_frame(b"hello").unwrap();
    twin.seal_frame(b"bye-not-final").unwrap();
    let beyond = twin.seal_frame(b"after").unwrap();

    let mut opener = Opener::new(&k);
    assert_eq!(opener.open_frame(&first).unwrap(), b"hello");
    assert_eq!(
        opener.open_frame_with_tag(&last).unwrap(),
        (b"bye".to_vec(), Tag::Final)
    );
    assert!(opener.is_finished());
    for frame in [&last, &beyond, &first, &Vec::new()] {
        assert_eq!(opener.open_frame(frame), Err(OpenError::AfterFinal));
        assert_eq!(opener.pull(frame), Err(OpenError::AfterFinal));
    }
}

#[test]
fn c30_final_on_the_first_frame_ends_the_stream_at_once() {
    let k = key(8);
    let mut r = rng::from_seed([8; 32]);
    let mut sealer = Sealer::new(&k, &mut r);
    let only = sealer.seal_frame_with_tag(b"", Tag::Final).unwrap();
    let mut opener = Opener::new(&k);
    assert_eq!(opener.open_frame(&only).unwrap(), b"");
    assert_eq!(opener.open_frame(&only), Err(OpenError::AfterFinal));
}

#[test]
fn c32_missing_duplicated_or_modified_header_is_refused() {
    let k = key(9);
    let (plain, sealed) = frames(&k, 9, 3);
    // Missing: the first frame without its header.
    let mut o = Opener::new(&k);
    assert!(o.open_frame(&sealed[0][HEADER_BYTES..]).is_err());
    assert_dead(&mut o, &sealed[0]);
    // Duplicated: the header again in front of the second frame.
    let mut o = Opener::new(&k);
    assert_eq!(o.open_frame(&sealed[0]).unwrap(), plain[0]);
    let mut dup = sealed[0][..HEADER_BYTES].to_vec();
    dup.extend_from_slice(&sealed[1]);
    assert!(o.open_frame(&dup).is_err());
    assert_dead(&mut o, &sealed[1]);
    // Duplicated at the front: header twice before the first ciphertext.
    let mut o = Opener::new(&k);
    let mut twice = sealed[0][..HEADER_BYTES].to_vec();
    twice.extend_from_slice(&sealed[0]);
    assert!(o.open_frame(&twice).is_err());
    assert_dead(&mut o, &sealed[0]);
    // Modified: another header of the same key.
    let mut o = Opener::new(&k);
    let mut other = sealed[0].clone();
    other[..HEADER_BYTES].copy_from_slice(&[0x42; HEADER_BYTES]);
    assert_eq!(o.open_frame(&other), Err(OpenError::Forged));
    assert_dead(&mut o, &sealed[0]);
}

#[test]
fn c35_rekey_tag_mid_stream_keeps_both_sides_in_step() {
    let k = key(10);
    let mut r = rng::from_seed([10; 32]);
    let mut sealer = Sealer::new(&k, &mut r);
    let mut opener = Opener::new(&k);
    for i in 0..12u8 {
        let tag = if i % 4 == 2 { Tag::Rekey } else { Tag::Message };
        let frame = sealer.seal_frame_with_tag(&[i; 40], tag).unwrap();
        assert_eq!(
            opener.open_frame_with_tag(&frame).unwrap(),
            (vec![i; 40], tag)
        );
    }
    // The rekey tag really changes the state: a stream without the tags diverges.
    let mut r = rng::from_seed([10; 32]);
    let mut plain_sealer = Sealer::new(&k, &mut r);
    let mut r = rng::from_seed([10; 32]);
    let mut tagged_sealer = Sealer::new(&k, &mut r);
    plain_sealer.seal_frame(b"a").unwrap();
    tagged_sealer.seal_frame_with_tag(b"a", Tag::Rekey).unwrap();
    assert_ne!(
        plain_sealer.seal_frame(b"b").unwrap(),
        tagged_sealer.seal_frame(b"b").unwrap()
    );
}

#[test]
fn c35_explicit_rekey_must_happen_at_the_same_position() {
    let k = key(11);
    let run = |sealer_at: usize, opener_at: usize| -> Result<(), OpenError> {
        let mut r = rng::from_seed([11; 32]);
        let mut sealer = Sealer::new(&k, &mut r);
        let mut opener = Opener::new(&k);
        for i in 0..6usize {
            if i == sealer_at {
                sealer.rekey();
            }
            if i == opener_at {
                opener.rekey();
            }
            let frame = sealer.seal_frame(&[u8::try_from(i).unwrap(); 9]).unwrap();
            assert_eq!(
                opener.open_frame(&frame)?,
                vec![u8::try_from(i).unwrap(); 9]
            );
        }
        Ok(())
    };
    for at in 1..6 {
        assert_eq!(run(at, at), Ok(()), "same position {at}");
    }
    assert_eq!(run(2, 3), Err(OpenError::Forged));
    assert_eq!(run(3, 2), Err(OpenError::Forged));
    assert_eq!(run(2, 99), Err(OpenError::Forged));
    assert_eq!(run(99, 4), Err(OpenError::Forged));
}

#[test]
fn only_four_tags_exist_and_each_round_trips() {
    // An authentic frame with any other tag byte is refused: see the unit tests in `seal.rs`,
    // which can forge one.
    for tag in [Tag::Message, Tag::Push, Tag::Rekey, Tag::Final] {
        let k = key(12);
        let mut r = rng::from_seed([12; 32]);
        let mut sealer = Sealer::new(&k, &mut r);
        let frame = sealer.seal_frame_with_tag(b"t", tag).unwrap();
        let mut opener = Opener::new(&k);
        assert_eq!(opener.open_frame_with_tag(&frame).unwrap().1, tag);
        assert_eq!(Tag::from_byte(tag as u8), Some(tag));
    }
    for b in 4..=255u8 {
        assert_eq!(Tag::from_byte(b), None);
    }
}

#[test]
fn pull_without_a_header_fails_and_kills() {
    let k = key(13);
    let (_, sealed) = frames(&k, 13, 2);
    let mut o = Opener::new(&k);
    assert_eq!(o.pull(&sealed[1]), Err(OpenError::TooShort));
    assert_dead(&mut o, &sealed[0]);
}

#[test]
fn wrong_key_does_not_open() {
    let (_, sealed) = frames(&key(14), 14, 1);
    let mut o = Opener::new(&key(15));
    assert_eq!(o.open_frame(&sealed[0]), Err(OpenError::Forged));
    assert_dead(&mut o, &sealed[0]);
}

#[test]
fn sealing_is_deterministic_given_key_and_header_and_headers_differ_between_streams() {
    let k = key(16);
    let header = [0x33; HEADER_BYTES];
    let mut a = Sealer::with_header(&k, header);
    let mut b = Sealer::with_header(&k, header);
    assert_eq!(
        a.seal_frame(b"same").unwrap(),
        b.seal_frame(b"same").unwrap()
    );
    let mut r = rng::from_seed([16; 32]);
    let s1 = Sealer::new(&k, &mut r);
    let s2 = Sealer::new(&k, &mut r);
    assert_ne!(s1.header(), s2.header());
}

#[test]
fn debug_output_never_shows_key_material() {
    let k = key(0xab);
    assert_eq!(format!("{k:?}"), "SessionKey(<redacted>)");
    let mut r = rng::from_seed([17; 32]);
    let s = Sealer::new(&k, &mut r);
    let o = Opener::new(&k);
    for text in [format!("{s:?}"), format!("{o:?}")] {
        assert!(
            !text.to_lowercase().contains("ab, ab") && !text.contains("171"),
            "{text}"
        );
    }
}
