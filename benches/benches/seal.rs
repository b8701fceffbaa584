//! The sealed stream against libsodium's own, in the same run: seal (push) and open (pull,
//! including the stream's init) at 1 KiB, 16 KiB and the 1 MiB frame cap.
#![allow(clippy::unwrap_used, missing_docs)]

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use libsodium_rs::crypto_secretstream::xchacha20poly1305 as sodium;
use std::hint::black_box;
use termplane_machines::rng::from_seed;
use termplane_machines::seal::{Opener, Sealer, SessionKey, Tag};

const SIZES: [(&str, usize); 3] = [
    ("1KiB", 1024),
    ("16KiB", 16 * 1024),
    (
        "1MiB",
        termplane_proto::limits::MAX_SEALED_PLAINTEXT_BYTES - 24,
    ),
];

fn seal(c: &mut Criterion) {
    libsodium_rs::ensure_init().unwrap();
    let key_bytes = [0x42u8; 32];
    let key = SessionKey(key_bytes);
    let skey = sodium::Key::from_bytes(&key_bytes).unwrap();
    for (name, size) in SIZES {
        let pt = vec![0xa5u8; size];
        let mut g = c.benchmark_group(format!("seal/{name}"));
        g.throughput(Throughput::Bytes(size as u64));
        if size > 100_000 {
            g.sample_size(20);
        }
        // Outputs are dropped outside the timed section, as `iter_batched` does for open below,
        // so neither side pays the allocator for freeing the previous frame inside the loop
        // (glibc may trim and re-fault the heap top each round, which made single runs swing
        // between 13.6 and 18.8 µs at 16 KiB with identical code).
        let batch = if size > 100_000 {
            BatchSize::LargeInput
        } else {
            BatchSize::SmallInput
        };
        let mut sealer = Sealer::new(&key, &mut from_seed([1; 32]));
        g.bench_function("termplane", |b| {
            b.iter_batched(
                || (),
                |()| sealer.push(black_box(&pt), Tag::Message).unwrap(),
                batch,
            );
        });
        let (mut push, _) = sodium::PushState::init_push(&skey).unwrap();
        g.bench_function("libsodium", |b| {
            b.iter_batched(
                || (),
                |()| {
                    push.push(black_box(&pt), None, sodium::TAG_MESSAGE)
                        .unwrap()
                },
                batch,
            );
        });
        g.finish();

        let mut g = c.benchmark_group(format!("open/{name}"));
        g.throughput(Throughput::Bytes(size as u64));
        if size > 100_000 {
            g.sample_size(20);
        }
        g.bench_function("termplane", |b| {
            b.iter_batched(
                || {
                    let mut s = Sealer::new(&key, &mut from_seed([2; 32]));
                    (s.header(), s.push(&pt, Tag::Message).unwrap())
                },
                |(header, ct)| {
                    let mut o = Opener::with_header(&key, header);
                    o.pull(black_box(&ct)).unwrap()
                },
                batch,
            );
        });
        g.bench_function("libsodium", |b| {
            b.iter_batched(
                || {
                    let (mut s, header) = sodium::PushState::init_push(&skey).unwrap();
                    (header, s.push(&pt, None, sodium::TAG_MESSAGE).unwrap())
                },
                |(header, ct)| {
                    let mut o = sodium::PullState::init_pull(&header, &skey).unwrap();
                    o.pull(black_box(&ct), None).unwrap()
                },
                batch,
            );
        });
        g.finish();
    }
}

criterion_group!(benches, seal);
criterion_main!(benches);
