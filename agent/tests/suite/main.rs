//! The node daemon's integration tests, one binary: each module tries the daemon (and, through
//! it, the plane and tmux) as real processes on loopback, or a scripted peer written from the
//! protocol document (`scripted`); `support` starts those processes and holds the clients they share,
//! `common` is the executor's harness (a private tmux per test), shared with its own tests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../exec/tests/suite/common/mod.rs"]
mod common;
mod support;
// Not in `support`: the benchmarks include that, and this starts the test build's node binary.
#[path = "support/scripted.rs"]
mod scripted;

mod backup;
mod catalogue_h;
mod cli;
mod cluster;
mod e2e;
mod harness_clis;
mod https_client;
mod install;
mod link_conformance;
mod node_settings;
mod subshells;
mod terminal;
