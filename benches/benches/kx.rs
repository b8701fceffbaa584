//! The key exchange, per side.
#![allow(clippy::unwrap_used, missing_docs)]

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use termplane_benches::{NODE, initiator_params, node_keys, plane_keys};
use termplane_machines::kx::{Initiator, Responder};
use termplane_machines::rng::from_seed;

fn kx(c: &mut Criterion) {
    let params = initiator_params();
    let plane = plane_keys();
    let pin = node_keys().public();
    let mut rng = from_seed([3; 32]);
    let mut g = c.benchmark_group("kx");
    g.bench_function("agent/first_flight", |b| {
        b.iter(|| Initiator::start(black_box(&params), &mut rng).unwrap());
    });
    let (_, hello) = Initiator::start(&params, &mut from_seed([4; 32])).unwrap();
    g.bench_function("plane/kx_binding_ok", |b| {
        b.iter(|| {
            let r = Responder::new(&plane, pin, NODE);
            let opened = r
                .on_kx(black_box(&hello.kx))
                .unwrap()
                .on_binding(&hello.first_binary)
                .unwrap();
            opened.accept(&mut rng)
        });
    });
    g.bench_function("agent/open_ok", |b| {
        b.iter_batched(
            || {
                let (init, hello) = Initiator::start(&params, &mut from_seed([5; 32])).unwrap();
                let r = Responder::new(&plane, pin, NODE);
                let opened = r
                    .on_kx(&hello.kx)
                    .unwrap()
                    .on_binding(&hello.first_binary)
                    .unwrap();
                let (_, ok) = opened.accept(&mut from_seed([6; 32]));
                (init, ok)
            },
            |(init, ok)| init.on_first_binary(black_box(&ok)).unwrap(),
            BatchSize::SmallInput,
        );
    });
    g.finish();
}

criterion_group!(benches, kx);
criterion_main!(benches);
