//! The termplane node daemon as a library: configuration, enrollment, the service manager
//! surface, self-update, the daemon as the host of the tmux executor (`termplane-exec`) and the
//! hook the link driver fills in.
//!
//! The binary (`src/main.rs`) is a thin command-line front end over these modules.

pub mod config;
pub mod enroll;
pub mod host;
pub mod identity;
pub mod link;
pub mod logging;
pub mod replay_log;
pub mod service;
pub mod update;
pub mod util;
