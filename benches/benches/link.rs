//! A full link establishment (kx → ok → ready → online) through both link machines in memory,
//! timing each side's own calls.
#![allow(clippy::unwrap_used, missing_docs)]

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use termplane_benches::{agent_machine, establish_once, plane_keys};

fn link(c: &mut Criterion) {
    let plane = plane_keys();
    let mut g = c.benchmark_group("link/establish");
    let mut agent = agent_machine(1);
    g.bench_function("agent_side", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for i in 0..iters {
                total += establish_once(&mut agent, &plane, (i % 250) as u8).0;
            }
            total
        });
    });
    let mut agent = agent_machine(2);
    g.bench_function("plane_side", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for i in 0..iters {
                total += establish_once(&mut agent, &plane, (i % 250) as u8).1;
            }
            total
        });
    });
    g.finish();
}

criterion_group!(benches, link);
criterion_main!(benches);
