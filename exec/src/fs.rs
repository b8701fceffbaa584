//! Private files and directories, and the user's home.
//!
//! Files the node writes for itself are created with mode 0600 from the start (never chmod-ed
//! after a world-readable moment) and replaced atomically through a temp file in the same
//! directory; its directories are created with mode 0700.

use std::fs::{self, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

/// The user's home directory (`$HOME`, else `/`).
#[must_use]
pub fn home_dir() -> PathBuf {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map_or_else(|| PathBuf::from("/"), PathBuf::from)
}

/// Creates the parent directories of `path` with mode 0700 where they are missing.
pub fn ensure_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut b = fs::DirBuilder::new();
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.recursive(true).create(dir)
}

/// Writes `bytes` to `path` through a temp file created with mode 0600, then renames it into
/// place. The file never exists with wider permissions.
pub fn write_private_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    ensure_private_dir(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let suffix = crate::util::hex(&crate::util::random_bytes::<6>()?);
    let tmp = dir.join(format!(".{name}.{suffix}.tmp"));
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&tmp)?;
        f.set_permissions(fs::Permissions::from_mode(0o600))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// An inotify watch of one file: [`Watch::wait`] blocks until the kernel reports one of the
/// watched changes or a timeout passes — a wake-up on the change itself, not a look every few
/// milliseconds.
pub(crate) struct Watch {
    fd: rustix::fd::OwnedFd,
    notices: [u8; 1024],
}

impl Watch {
    /// Watches `path` for `flags`; `None` where inotify is not available or the path cannot be
    /// watched (it does not exist).
    pub(crate) fn new(path: &Path, flags: rustix::fs::inotify::WatchFlags) -> Option<Self> {
        use rustix::fs::inotify;
        let fd =
            inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK).ok()?;
        inotify::add_watch(&fd, path, flags).ok()?;
        Some(Self {
            fd,
            notices: [0; 1024],
        })
    }

    /// Waits up to `timeout` for a change; answers whether one came. The notices are dropped
    /// (the caller looks at the file itself), so changes before this call that were not
    /// waited for yet end it at once.
    pub(crate) fn wait(&mut self, timeout: std::time::Duration) -> bool {
        use rustix::event::{PollFd, PollFlags, poll};
        let timeout = rustix::time::Timespec {
            tv_sec: i64::try_from(timeout.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(timeout.subsec_nanos()),
        };
        let mut fds = [PollFd::new(&self.fd, PollFlags::IN)];
        let woken = poll(&mut fds, Some(&timeout)).is_ok_and(|n| n > 0);
        // Read until empty: a notice left behind would end the next wait at once.
        while rustix::io::read(&self.fd, &mut self.notices).is_ok_and(|n| n > 0) {}
        woken
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn private_files_are_created_0600() {
        let dir = std::env::temp_dir().join(format!("tp-cfg-{}", std::process::id()));
        let p = dir.join("x.json");
        write_private_atomic(&p, b"{}").unwrap();
        let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        fs::remove_dir_all(&dir).unwrap();
    }
}
