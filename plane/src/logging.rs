//! The plane's log: to standard error, as text (coloured only on a terminal) or as one JSON
//! object per line (`--log-format json`: `timestamp`, `level`, `target`, `message` and the
//! event's fields at the top level), filtered by `--log-filter` / `RUST_LOG` / `log_filter`
//! (`info` by default; per-module directives such as `info,termplane::link=debug`).
//!
//! No line carries a secret: requests are logged by method, route template, path, status,
//! duration and request id, never a header value, a query or a body
//! (`plane/tests/suite/ops.rs` signs in, uses keys and enrolls a node with `--log-format json` and
//! searches the whole log for each secret).

use crate::config::LogFormat;

/// Installs the process's log subscriber. `filter` was validated with the settings.
pub fn init(format: LogFormat, filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    match format {
        LogFormat::Text => {
            let colour = std::io::IsTerminal::is_terminal(&std::io::stderr());
            tracing_subscriber::fmt()
                .with_ansi(colour)
                .with_env_filter(filter)
                .with_writer(std::io::stderr)
                .init();
        }
        LogFormat::Json => {
            tracing_subscriber::fmt()
                .json()
                .flatten_event(true)
                .with_current_span(false)
                .with_span_list(false)
                .with_env_filter(filter)
                .with_writer(std::io::stderr)
                .init();
        }
    }
}
