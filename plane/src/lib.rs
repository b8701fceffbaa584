//! The termplane control plane.
//!
//! Layers, outermost first:
//! * [`http`] — the only module that speaks HTTP: HTTP/1.1 on hyper's server connection with the
//!   plane's edge rules around it (deadlines, bounded buffers, RFC 9112 answers to malformed
//!   requests), the router, error rendering, the route table and the OpenAPI document generated
//!   from it.
//! * [`api`] — the REST API's request and answer types: one definition parses, validates and
//!   documents each.
//! * [`service`] — accounts, credentials, enrollment and nodes, one module per domain, in plain
//!   Rust types; it reads the time from an injected [`clock::Clock`].
//! * [`store`] — SQLite/PostgreSQL through `sqlx::Any`.
//! * [`link`] — the live node sockets: registry (newest wins), held nodes, command dispatch.
//! * [`keys`] — the plane's own secret files.
//! * [`net`] — client addresses behind trusted reverse proxies.
//! * [`metrics`] — the Prometheus metrics; [`instance`] — one plane per data directory and
//!   database; [`backup`] — `termplane backup` and `restore`; [`unit`](mod@unit) — the systemd unit of
//!   `termplane service`; [`logging`] — text or JSON log lines.

pub mod api;
// The runtime around the services reads the OS clocks (`plane/clippy.toml`).
#[allow(clippy::disallowed_methods)]
pub mod backup;
pub mod clock;
pub mod config;
pub mod error;
// The runtime around the services reads the OS clocks (`plane/clippy.toml`).
#[allow(clippy::disallowed_methods)]
pub mod http;
// The runtime around the services reads the OS clocks (`plane/clippy.toml`).
#[allow(clippy::disallowed_methods)]
pub mod instance;
pub mod keys;
pub mod link;
pub mod local;
pub mod logging;
pub mod metrics;
pub mod net;
pub mod plugins;
pub mod push;
pub mod secret;
pub mod service;
pub mod slots;
// The runtime around the services reads the OS clocks (`plane/clippy.toml`).
#[allow(clippy::disallowed_methods)]
pub mod store;
pub mod unit;
pub mod wait;
