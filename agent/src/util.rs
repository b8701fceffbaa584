//! The daemon's own process settings.

/// Most open files the daemon asks for.
pub const OPEN_FILE_WANT: u64 = 65_536;

/// Raises the soft open-file limit towards the hard one (at most [`OPEN_FILE_WANT`]): every
/// pane-log tail holds its log, an inotify instance and an eventfd, and the common soft limit of
/// 1,024 would run out before the tail cap does. Answers the soft limit in effect.
pub fn raise_open_file_limit() -> Option<u64> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let now = getrlimit(Resource::Nofile);
    let want = now
        .maximum
        .map_or(OPEN_FILE_WANT, |m| m.min(OPEN_FILE_WANT));
    if now.current.is_none_or(|c| c >= want) {
        return now.current;
    }
    let raised = Rlimit {
        current: Some(want),
        maximum: now.maximum,
    };
    match setrlimit(Resource::Nofile, raised) {
        Ok(()) => Some(want),
        Err(_) => now.current,
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::unwrap_used)]
mod open_files {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

    const NAME: &str = "util::open_files::the_soft_open_file_limit_is_raised_towards_the_hard_one";

    /// Runs in a child test process (`TERMPLANE_RLIMIT_CHILD`), so lowering the limit cannot
    /// starve the other tests of this process.
    #[test]
    fn the_soft_open_file_limit_is_raised_towards_the_hard_one() {
        if std::env::var_os("TERMPLANE_RLIMIT_CHILD").is_none() {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", NAME, "--test-threads=1"])
                .env("TERMPLANE_RLIMIT_CHILD", "1")
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success() && text.contains("1 passed"), "{text}");
            return;
        }
        let before = getrlimit(Resource::Nofile);
        let Some(hard) = before.maximum else {
            return; // unlimited: nothing to raise
        };
        if hard <= 256 {
            return;
        }
        setrlimit(
            Resource::Nofile,
            Rlimit {
                current: Some(256),
                maximum: Some(hard),
            },
        )
        .expect("lowering the soft limit");
        let got = super::raise_open_file_limit();
        let after = getrlimit(Resource::Nofile);
        let want = hard.min(super::OPEN_FILE_WANT);
        assert_eq!(got, Some(want));
        assert_eq!(after.current, Some(want));
        assert_eq!(after.maximum, Some(hard), "the hard limit is never touched");
    }
}
