//! The node's own log: lines appended to `<dataDir>/node.log` (mode 0600) and echoed to
//! standard error. The level is `info` or `debug`; `TERMPLANE_DEBUG_LOGGING` (any value but
//! empty, `0` or `false`) forces `debug` and makes `set_log_level` refuse.

use std::fs::OpenOptions;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

static DEBUG: AtomicBool = AtomicBool::new(false);
static FILE: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Whether the environment forces debug logging.
#[must_use]
pub fn debug_forced() -> bool {
    std::env::var("TERMPLANE_DEBUG_LOGGING")
        .map(|v| !matches!(v.trim(), "" | "0" | "false"))
        .unwrap_or(false)
}

/// Sets the log file and the initial level.
pub fn init(file: &Path, debug: bool) {
    if let Ok(mut f) = FILE.lock() {
        *f = Some(file.to_path_buf());
    }
    DEBUG.store(debug || debug_forced(), Ordering::Relaxed);
}

/// Switches debug logging.
pub fn set_debug(on: bool) {
    DEBUG.store(on || debug_forced(), Ordering::Relaxed);
}

/// Whether debug logging is on.
#[must_use]
pub fn debug_enabled() -> bool {
    DEBUG.load(Ordering::Relaxed)
}

fn write(level: &str, msg: &str) {
    let line = format!("{} {level} {msg}\n", termplane_exec::util::now_iso());
    eprint!("{line}");
    let path = FILE.lock().ok().and_then(|f| f.clone());
    if let Some(p) = path
        && let Ok(mut f) = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(p)
    {
        let _ = f.write_all(line.as_bytes());
    }
}

/// Logs at info level.
pub fn info(msg: &str) {
    write("INFO", msg);
}

/// Logs at warn level.
pub fn warn(msg: &str) {
    write("WARN", msg);
}

/// Logs at debug level when enabled.
pub fn debug(msg: &str) {
    if debug_enabled() {
        write("DEBUG", msg);
    }
}
