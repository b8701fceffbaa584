//! ES256 command signing (plane) and verification (node).
#![allow(clippy::unwrap_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use termplane_benches::{NODE, claims, signer};
use termplane_machines::jws::Es256Verifier;
use termplane_machines::time::UnixSecs;

fn jws(c: &mut Criterion) {
    let signer = signer();
    let verifier = Es256Verifier::new(&signer.public_jwk(), NODE).unwrap();
    let cl = claims(0);
    let token = signer.sign(&cl);
    let mut g = c.benchmark_group("jws");
    g.bench_function("sign", |b| b.iter(|| signer.sign(black_box(&cl))));
    g.bench_function("verify", |b| {
        b.iter(|| {
            verifier
                .verify(black_box(&token), UnixSecs(cl.iat))
                .unwrap()
        });
    });
    // A node makes one per link machine: the key's table of multiples is built for the first
    // and taken from a memo after that (so this measures the memo; the build is in fixed_key's docs).
    g.bench_function("new_verifier", |b| {
        let jwk = signer.public_jwk();
        b.iter(|| Es256Verifier::new(black_box(&jwk), NODE).unwrap());
    });
    g.finish();
}

criterion_group!(benches, jws);
criterion_main!(benches);
