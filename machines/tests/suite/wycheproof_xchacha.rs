//! Wycheproof XChaCha20-Poly1305 (`xchacha20_poly1305_test.json`) through the IETF AEAD built
//! from the same HChaCha20, ChaCha20 and Poly1305 helpers as the sealed stream.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use termplane_machines::seal::{xchacha20poly1305_ietf_decrypt, xchacha20poly1305_ietf_encrypt};
use wycheproof::TestResult;
use wycheproof::aead::{TestName, TestSet};

#[test]
fn wycheproof_xchacha20_poly1305() {
    let set = TestSet::load(TestName::XChaCha20Poly1305).unwrap();
    let (mut valid, mut invalid, mut wrong_nonce_size) = (0, 0, 0);
    for group in &set.test_groups {
        for t in &group.tests {
            let key: [u8; 32] = t.key.as_slice().try_into().unwrap();
            let mut sealed = t.ct.to_vec();
            sealed.extend_from_slice(&t.tag);
            let Ok(nonce) = <[u8; 24]>::try_from(t.nonce.as_slice()) else {
                // The helper takes a 24-byte nonce by type: any other size cannot be expressed.
                assert_eq!(t.result, TestResult::Invalid, "tc {}", t.tc_id);
                wrong_nonce_size += 1;
                continue;
            };
            let opened = xchacha20poly1305_ietf_decrypt(&key, &nonce, &t.aad, &sealed);
            match t.result {
                TestResult::Valid | TestResult::Acceptable => {
                    assert_eq!(
                        opened.as_deref(),
                        Ok(&t.pt[..]),
                        "tc {} ({})",
                        t.tc_id,
                        t.comment
                    );
                    let again =
                        xchacha20poly1305_ietf_encrypt(&key, &nonce, &t.aad, &t.pt).unwrap();
                    assert_eq!(again, sealed, "tc {}", t.tc_id);
                    valid += 1;
                }
                TestResult::Invalid => {
                    assert!(opened.is_err(), "tc {} ({}) opened", t.tc_id, t.comment);
                    invalid += 1;
                }
            }
        }
    }
    assert_eq!(valid + invalid + wrong_nonce_size, set.number_of_tests);
    assert!(
        valid >= 200 && invalid >= 10,
        "{valid} {invalid} {wrong_nonce_size}"
    );
}

#[test]
fn every_single_bit_flip_of_a_sealed_message_is_refused() {
    let key = [0x80; 32];
    let nonce = [0x07; 24];
    let sealed = xchacha20poly1305_ietf_encrypt(&key, &nonce, b"ad", b"seventeen bytes!!").unwrap();
    for i in 0..sealed.len() * 8 {
        let mut bad = sealed.clone();
        bad[i / 8] ^= 1 << (i % 8);
        assert!(xchacha20poly1305_ietf_decrypt(&key, &nonce, b"ad", &bad).is_err());
    }
    assert!(xchacha20poly1305_ietf_decrypt(&key, &nonce, b"ad", &sealed[..15]).is_err());
    assert!(xchacha20poly1305_ietf_decrypt(&key, &nonce, b"ax", &sealed).is_err());
    assert_eq!(
        xchacha20poly1305_ietf_decrypt(&key, &nonce, b"ad", &sealed).unwrap(),
        b"seventeen bytes!!"
    );
}
