//! The executor's integration tests, one binary: each module tries the executor against a real
//! tmux (or, for `parser_props`, the parsers against generated input); `common` holds the node
//! harness they share.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

mod catalogue_h;
mod detect;
mod maintenance;
mod parser_props;
mod runner;
mod screen_replay;
mod tmux_exec;
