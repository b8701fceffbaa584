//! 10,000 commands through sign → seal → open → verify → admit on one core, and each stage
//! alone so the figures say where the time goes.
#![allow(clippy::unwrap_used, missing_docs)]

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use termplane_benches::{NODE, Pipeline, claims, established_streams, signer};
use termplane_machines::jws::Es256Verifier;
use termplane_machines::replay::{JtiCache, SeqGate, admit};
use termplane_machines::time::UnixSecs;
use termplane_proto::frame::PlaneFrame;

const N: u64 = 10_000;

fn pipeline(c: &mut Criterion) {
    let mut g = c.benchmark_group("pipeline");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N));
    g.bench_function("10k_commands", |b| {
        b.iter_batched(
            Pipeline::new,
            |mut p| {
                for _ in 0..N {
                    p.one();
                }
            },
            BatchSize::PerIteration,
        );
    });
    g.finish();

    // Per stage, one command at a time.
    let signer = signer();
    let verifier = Es256Verifier::new(&signer.public_jwk(), NODE).unwrap();
    let cl = claims(0);
    let token = signer.sign(&cl);
    let text = PlaneFrame::Command(termplane_proto::Envelope { jws: token.clone() }).to_json();
    let (mut agent, mut plane) = established_streams();
    let mut g = c.benchmark_group("pipeline/stage");
    g.bench_function("sign", |b| b.iter(|| signer.sign(black_box(&cl))));
    g.bench_function("seal_open", |b| {
        b.iter(|| {
            let f = plane.sealer.seal_frame(black_box(text.as_bytes())).unwrap();
            agent.opener.open_frame(&f).unwrap()
        });
    });
    g.bench_function("decode_envelope", |b| {
        b.iter(|| termplane_proto::decode_plane_frame(black_box(&text)).unwrap());
    });
    g.bench_function("verify", |b| {
        b.iter(|| {
            verifier
                .verify(black_box(&token), UnixSecs(cl.iat))
                .unwrap()
        })
    });
    let verified: Vec<_> = (0..2048u64)
        .map(|i| {
            verifier
                .verify(&signer.sign(&claims(i)), UnixSecs(claims(i).iat))
                .unwrap()
        })
        .collect();
    g.bench_function("admit_2048", |b| {
        b.iter_batched(
            || {
                (
                    JtiCache::new(2048, UnixSecs(termplane_benches::UNIX0)),
                    SeqGate::new(),
                )
            },
            |(mut cache, mut gate)| {
                for v in &verified {
                    admit(&mut cache, &mut gate, v, UnixSecs(v.claims.iat));
                }
            },
            BatchSize::PerIteration,
        );
    });
    g.finish();
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
