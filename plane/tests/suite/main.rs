//! The plane's integration tests, one module per route family or concern, in one test binary
//! (one link of the plane and its dependencies instead of one per file: the build's disk and
//! time). Most start a real plane on loopback in this process (`common::Plane`); `binary`,
//! `ops`, `reference` and `schemathesis` also run the built `termplane` executable.
//!
//! Run one family with its module path: `cargo test -p termplane --test suite subshells::`.
//! The memory-per-connection tests (`http_edge`) measure this process's resident set and so
//! stay in a binary of their own, where no other test's allocations land in their figures.

// Tests measure and wait on the real clock (the lint guards the services).
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../common/mod.rs"]
mod common;

mod admin;
mod app;
mod binary;
mod catalogue;
mod channels;
mod cluster;
mod credential_matrix;
mod credentials;
mod files;
mod install;
mod link;
mod link_catalogue;
mod network;
mod notifications;
mod ops;
mod passkeys;
mod reconcile;
mod reference;
mod schemathesis;
mod storage;
mod subshells;
mod terminal;
mod users;
