//! The termplane control plane.
//!
//! Layers, outermost first:
//! * [`http`] — the only module that names tide or http-types: the accept loop, the body limit,
//!   graceful shutdown, error rendering and the route table.
//! * [`service`] — accounts, credentials, enrollment and nodes, in plain Rust types; it reads the
//!   time from an injected [`clock::Clock`].
//! * [`store`] — SQLite/PostgreSQL through `sqlx::Any`.
//! * [`link`] — the live node sockets: registry (newest wins), held nodes, command dispatch.
//! * [`keys`] — the plane's own secret files.

pub mod clock;
pub mod config;
pub mod error;
pub mod http;
pub mod keys;
pub mod link;
pub mod secret;
pub mod service;
pub mod store;
