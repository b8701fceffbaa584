//! `termplane service install|uninstall|status`: the plane as a systemd service.
//!
//! A **system unit** (`/etc/systemd/system/termplane.service`, the default for root) runs the
//! plane as an account of its own choosing (`--run-as`, else the user who ran `sudo`), with
//! `/var/lib/termplane` as its data directory unless the settings name another
//! (`StateDirectory=` creates it, mode 0700, owned by that account). A **user unit**
//! (`~/.config/systemd/user/termplane.service`) runs it in the user's own manager, as the node
//! daemon's unit does (`loginctl enable-linger` keeps it running after logout).
//!
//! Both restart the plane when it fails (`Restart=on-failure`) and not when it was stopped.
//!
//! **Hardening depends on the local node.** With the local node on (the default), the plane
//! starts the user's panes — shells and coding agents that build, install and may `sudo` —
//! and everything the unit imposes on the plane, its children inherit: a mount namespace
//! (`ProtectSystem=`, `ProtectHome=`, `PrivateTmp=`), seccomp filters and `no_new_privs`
//! (`NoNewPrivileges=`, and every filter-based option, which implies it for an unprivileged
//! service) would hold for every pane too. A pane could not `sudo`, write `/usr`, or share
//! `/tmp` with the user's own shells (a private `/tmp` is also removed when the unit stops,
//! under panes that outlive it). So that unit restricts nothing a pane may need: it keeps
//! `UMask=0077` and `KillMode=process`, which stops only the plane, so panes outlive a restart
//! as they outlive a node daemon's (their tmux server stays; the next start's census finds
//! them). With the local node off (`--local-node off` or `local_node = false`), the plane runs
//! only its own code and the unit is strict: `NoNewPrivileges=`, `ProtectSystem=strict` with
//! only the data directory (and a SQLite file's directory) writable, `ProtectHome=read-only`,
//! `PrivateTmp=`, `PrivateDevices=`, the kernel and clock protections, namespace, realtime,
//! SUID and address-family restrictions, an empty capability set, and the default
//! `KillMode=control-group`. A user manager cannot set up mount namespaces on every system,
//! so a user unit gets the options that need none (`NoNewPrivileges=` and the filters).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The unit's name.
pub const UNIT_NAME: &str = "termplane.service";

/// The data directory of a system unit when the settings name none.
pub const SYSTEM_DATA_DIR: &str = "/var/lib/termplane";

/// What the unit is made from.
#[derive(Clone, Debug)]
pub struct UnitSpec {
    /// The `termplane` binary (absolute).
    pub binary: PathBuf,
    /// The config file `serve` reads (absolute), if any.
    pub config: Option<PathBuf>,
    /// A system unit (else a user unit).
    pub system: bool,
    /// A system unit's account.
    pub run_as: Option<String>,
    /// Whether the plane runs panes on its host.
    pub local_node: bool,
    /// The data directory (absolute).
    pub data_dir: PathBuf,
    /// Whether the command names the data directory and the local node's switch (they did not
    /// come from the config file, which the plane reads again at each start).
    pub pass_settings: (bool, bool),
    /// Whether the data directory is systemd's `StateDirectory=` (`/var/lib/termplane`).
    pub state_directory: bool,
    /// The directory of a SQLite database kept outside the data directory.
    pub database_dir: Option<PathBuf>,
}

/// Quotes one word for `ExecStart=`: `%` and `$` doubled for systemd's specifiers and
/// variables, `\` and `"` escaped, the whole in double quotes.
fn word(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '%' => out.push_str("%%"),
            '$' => out.push_str("$$"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A path for a setting that takes a list of paths (`ReadWritePaths=`): `%` doubled, spaces
/// and backslashes escaped C-style.
fn path_setting(p: &Path) -> String {
    let mut out = String::new();
    for c in p.display().to_string().chars() {
        match c {
            '%' => out.push_str("%%"),
            '\\' => out.push_str("\\\\"),
            ' ' => out.push_str("\\x20"),
            c => out.push(c),
        }
    }
    out
}

/// The unit file's text.
#[must_use]
pub fn unit_text(s: &UnitSpec) -> String {
    let mut exec = format!("{} serve", word(&s.binary.display().to_string()));
    if let Some(c) = &s.config {
        exec.push_str(&format!(" --config {}", word(&c.display().to_string())));
    }
    if s.pass_settings.0 {
        exec.push_str(&format!(
            " --data-dir {}",
            word(&s.data_dir.display().to_string())
        ));
    }
    if s.pass_settings.1 {
        exec.push_str(if s.local_node {
            " --local-node on"
        } else {
            " --local-node off"
        });
    }
    let mut out = String::new();
    out.push_str("[Unit]\nDescription=termplane control plane\n");
    out.push_str("After=network-online.target postgresql.service\nWants=network-online.target\n\n");
    out.push_str("[Service]\nType=simple\n");
    out.push_str(&format!("ExecStart={exec}\n"));
    if s.system {
        if let Some(user) = &s.run_as {
            out.push_str(&format!("User={user}\n"));
        }
        if s.state_directory {
            out.push_str("StateDirectory=termplane\nStateDirectoryMode=0700\n");
        }
    }
    out.push_str("Restart=on-failure\nRestartSec=5\n");
    // The plane drains for up to 10 s on SIGTERM.
    out.push_str("TimeoutStopSec=30\n");
    out.push_str("LimitNOFILE=65536\nUMask=0077\n");
    if s.local_node {
        out.push_str(
            "# The local node is on: panes inherit whatever this unit imposes, so it imposes\n\
             # nothing they may need (see `termplane service install --help`), and a restart\n\
             # stops the plane only: the panes' tmux server lives on and the next start finds it.\n\
             KillMode=process\n",
        );
    } else {
        out.push_str("# The local node is off: only the plane's own code runs here.\n");
        out.push_str("NoNewPrivileges=yes\n");
        out.push_str(
            "LockPersonality=yes\nRestrictRealtime=yes\nRestrictSUIDSGID=yes\n\
             SystemCallArchitectures=native\nRestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX\n",
        );
        if s.system {
            out.push_str(
                "ProtectSystem=strict\nProtectHome=read-only\nPrivateTmp=yes\nPrivateDevices=yes\n\
                 ProtectKernelTunables=yes\nProtectKernelModules=yes\nProtectKernelLogs=yes\n\
                 ProtectControlGroups=yes\nProtectClock=yes\nProtectHostname=yes\n\
                 RestrictNamespaces=yes\nCapabilityBoundingSet=\n",
            );
            let mut writable = vec![path_setting(&s.data_dir)];
            if let Some(d) = &s.database_dir {
                writable.push(path_setting(d));
            }
            out.push_str(&format!("ReadWritePaths={}\n", writable.join(" ")));
        }
    }
    out.push_str("\n[Install]\n");
    out.push_str(if s.system {
        "WantedBy=multi-user.target\n"
    } else {
        "WantedBy=default.target\n"
    });
    out
}

/// Where a unit lives.
#[must_use]
pub fn unit_path(system: bool, env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    if system {
        return PathBuf::from("/etc/systemd/system").join(UNIT_NAME);
    }
    let base = match env("XDG_CONFIG_HOME").filter(|v| v.starts_with('/')) {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(env("HOME").unwrap_or_else(|| "/".into())).join(".config"),
    };
    base.join("systemd/user").join(UNIT_NAME)
}

fn systemctl(system: bool, args: &[&str]) -> Result<String, String> {
    let mut cmd = Command::new("systemctl");
    if !system {
        cmd.arg("--user");
    }
    cmd.args(args);
    let shown = format!(
        "systemctl {}{}",
        if system { "" } else { "--user " },
        args.join(" ")
    );
    let out = run_with_deadline(cmd, Duration::from_secs(30))
        .map_err(|e| format!("could not run `{shown}`: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(format!(
            "`{shown}` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Runs a command to its end, killing it past `limit`.
fn run_with_deadline(mut cmd: Command, limit: Duration) -> std::io::Result<std::process::Output> {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    std::thread::spawn(move || {
        let read = |r: Option<std::process::ChildStdout>| {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = std::io::Read::read_to_end(&mut r, &mut v);
            }
            v
        };
        let out = read(stdout);
        let mut err = Vec::new();
        if let Some(mut e) = stderr {
            let _ = std::io::Read::read_to_end(&mut e, &mut err);
        }
        let _ = tx.send((out, err));
    });
    let Ok((stdout, stderr)) = rx.recv_timeout(limit) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(std::io::Error::other("timed out"));
    };
    let status = child.wait()?;
    Ok(std::process::Output {
        status,
        stdout,
        stderr,
    })
}

/// Writes the unit and, unless `start` is false, enables and starts it. Answers what was done.
pub fn install(spec: &UnitSpec, path: &Path, start: bool) -> Result<Vec<String>, String> {
    let mut done = Vec::new();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let had = path.exists();
    std::fs::write(path, unit_text(spec)).map_err(|e| format!("{}: {e}", path.display()))?;
    done.push(format!("wrote {}", path.display()));
    if !start {
        return Ok(done);
    }
    let enabled = systemctl(spec.system, &["daemon-reload"])
        .and_then(|_| systemctl(spec.system, &["enable", "--now", UNIT_NAME]));
    if let Err(e) = enabled {
        if !had {
            let _ = std::fs::remove_file(path);
        }
        return Err(format!(
            "{e}\nsystemd could not take the unit (no systemd here, or no user session: \
             `loginctl enable-linger` as root helps for a user unit on a server); run \
             `termplane serve` under the supervisor you use instead"
        ));
    }
    done.push(format!("enabled and started {UNIT_NAME}"));
    if !spec.system {
        let user = std::env::var("USER").unwrap_or_default();
        if !user.is_empty() {
            match run_with_deadline(
                {
                    let mut c = Command::new("loginctl");
                    c.args(["enable-linger", &user]);
                    c
                },
                Duration::from_secs(30),
            ) {
                Ok(o) if o.status.success() => {
                    done.push("enabled lingering (the plane keeps running after logout)".into());
                }
                _ => done.push(
                    "warning: `loginctl enable-linger` failed: the plane stops when you log out"
                        .into(),
                ),
            }
        }
    }
    Ok(done)
}

/// Stops, disables and removes the unit.
pub fn uninstall(system: bool, path: &Path) -> Result<Vec<String>, String> {
    let mut done = Vec::new();
    if !path.exists() {
        done.push(format!(
            "{} is not installed; nothing to remove",
            path.display()
        ));
        return Ok(done);
    }
    if let Err(e) = systemctl(system, &["disable", "--now", UNIT_NAME]) {
        done.push(format!("warning: {e}"));
    }
    std::fs::remove_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let _ = systemctl(system, &["daemon-reload"]);
    done.push(format!("removed {}", path.display()));
    Ok(done)
}

/// `not installed`, `running`, or `installed (<state>)`.
#[must_use]
pub fn status(system: bool, path: &Path) -> String {
    if !path.exists() {
        return "not installed".into();
    }
    match systemctl(system, &["is-active", UNIT_NAME]) {
        Ok(s) if s == "active" => "running".into(),
        Ok(s) => format!("installed ({s})"),
        Err(e) if e.contains("inactive") || e.contains("failed") => {
            format!(
                "installed ({})",
                if e.contains("failed") {
                    "failed"
                } else {
                    "inactive"
                }
            )
        }
        Err(_) => "installed (state unknown: systemctl did not answer)".into(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn spec(system: bool, local_node: bool) -> UnitSpec {
        UnitSpec {
            binary: PathBuf::from("/opt/tp bin/termplane"),
            config: Some(PathBuf::from("/etc/termplane/plane%1.toml")),
            system,
            run_as: Some("tp".into()),
            local_node,
            data_dir: PathBuf::from("/var/lib/termplane"),
            pass_settings: (true, !local_node),
            state_directory: true,
            database_dir: None,
        }
    }

    #[test]
    fn the_unit_restarts_on_failure_and_quotes_its_command() {
        let u = unit_text(&spec(true, true));
        assert!(u.contains(
            "ExecStart=\"/opt/tp bin/termplane\" serve --config \"/etc/termplane/plane%%1.toml\" --data-dir \"/var/lib/termplane\"\n"
        ), "{u}");
        assert!(u.contains("Restart=on-failure\n"));
        assert!(u.contains("User=tp\n"));
        assert!(u.contains("WantedBy=multi-user.target"));
        assert!(u.contains("StateDirectory=termplane\n"));
    }

    #[test]
    fn with_the_local_node_nothing_a_pane_needs_is_taken_away() {
        for system in [true, false] {
            let u = unit_text(&spec(system, true));
            for refused in [
                "NoNewPrivileges",
                "PrivateTmp",
                "ProtectSystem",
                "ProtectHome",
                "SystemCallFilter",
                "RestrictSUIDSGID",
                "CapabilityBoundingSet",
            ] {
                assert!(!u.contains(refused), "{refused} in {u}");
            }
            assert!(u.contains("KillMode=process\n"));
        }
    }

    #[test]
    fn without_the_local_node_a_system_unit_is_strict() {
        let u = unit_text(&spec(true, false));
        for wanted in [
            "NoNewPrivileges=yes",
            "ProtectSystem=strict",
            "PrivateTmp=yes",
            "ReadWritePaths=/var/lib/termplane",
            "--local-node off",
            "CapabilityBoundingSet=\n",
        ] {
            assert!(u.contains(wanted), "{wanted} missing from {u}");
        }
        assert!(!u.contains("KillMode"));
        let user = unit_text(&spec(false, false));
        assert!(user.contains("NoNewPrivileges=yes"));
        assert!(!user.contains("ProtectSystem"), "{user}");
        assert!(user.contains("WantedBy=default.target"));
    }
}
