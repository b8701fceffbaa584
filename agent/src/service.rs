//! The service-manager surface: a systemd user unit (with `loginctl enable-linger`) on Linux, a
//! launchd agent on macOS.
//!
//! The unit runs `termplane-node run --config <path>` and sets `TERMPLANE_SUPERVISED` to the
//! manager's name, which is how the daemon knows it is supervised. Settings that live in the
//! environment and that the daemon needs to reach its plane are carried into the definition
//! when they are set at install time ([`CARRIED_ENV`]: `TERMPLANE_CA_FILE`, made absolute), so
//! a node enrolled against a plane with a private CA keeps trusting it under the manager.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use termplane_proto::command::ServiceAction;

use termplane_exec::util::run_bounded;

/// systemd unit name.
pub const SYSTEMD_UNIT: &str = "termplane-node.service";
/// launchd label.
pub const LAUNCHD_LABEL: &str = "dev.termplane.node";
/// Environment variable the service definition sets.
pub const SUPERVISED_ENV: &str = "TERMPLANE_SUPERVISED";

/// Environment variables copied from the installing shell into the service definition.
pub const CARRIED_ENV: [&str; 1] = ["TERMPLANE_CA_FILE"];

/// The carried variables that are set (non-empty) now, paths made absolute.
#[must_use]
pub fn carried_env() -> Vec<(String, String)> {
    CARRIED_ENV
        .iter()
        .filter_map(|k| {
            let v = std::env::var(k).ok().filter(|v| !v.trim().is_empty())?;
            let abs = std::path::absolute(&v).map_or(v, |p| p.display().to_string());
            Some(((*k).to_owned(), abs))
        })
        .collect()
}

/// Which service manager this platform uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Manager {
    /// systemd user instance.
    Systemd,
    /// launchd per-user agent.
    Launchd,
}

impl Manager {
    /// The platform's manager.
    #[must_use]
    pub fn current() -> Self {
        if cfg!(target_os = "macos") {
            Self::Launchd
        } else {
            Self::Systemd
        }
    }

    /// Its name in the runtime snapshot.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Systemd => "systemd",
            Self::Launchd => "launchd",
        }
    }
}

/// Where the service definition lives.
#[must_use]
pub fn definition_path(m: Manager) -> PathBuf {
    match m {
        Manager::Systemd => {
            let base = match std::env::var_os("XDG_CONFIG_HOME") {
                Some(v) if Path::new(&v).is_absolute() => PathBuf::from(v),
                _ => termplane_exec::fs::home_dir().join(".config"),
            };
            base.join("systemd/user").join(SYSTEMD_UNIT)
        }
        Manager::Launchd => termplane_exec::fs::home_dir()
            .join("Library/LaunchAgents")
            .join(format!("{LAUNCHD_LABEL}.plist")),
    }
}

/// Whether this process runs under the service definition.
#[must_use]
pub fn supervised() -> bool {
    std::env::var(SUPERVISED_ENV).is_ok_and(|v| !v.is_empty())
}

/// Refused: the action needs this daemon to be the one its service definition runs.
pub const NOT_SUPERVISED: &str = "not supervised";
/// Refused: panes run, and the action would end them (`force` overrides).
pub const KILLS_PANES: &str = "kills panes";
/// Refused: there is no service definition to act on.
pub const NO_SERVICE_DEFINITION: &str = "no service definition";

/// Which refusal, if any, a service action sent by the plane meets; `update` meets those of
/// `restart`. The table of every case is in the protocol document (`docs/protocol-14.md`,
/// "Service refusals"); in short, checked in this order:
///
/// * `install` is never refused;
/// * `uninstall` with no definition is a no-op, not a refusal; a supervised daemon, which it
///   ends together with the panes the manager stops with it, refuses `kills panes`;
/// * `start` and `stop` need a definition (`no service definition`), then this daemon to be the
///   one it runs (`not supervised`: starting the service beside a hand-launched daemon would
///   run a second daemon of the same node, and stopping it would not stop this one); `stop`
///   then refuses `kills panes`;
/// * `restart` (and `update`) need this daemon to be supervised first (`not supervised`: a
///   hand-launched daemon that exits is brought back by nothing, and the manager would start a
///   second one beside it), then a definition, then refuse `kills panes`.
#[must_use]
pub fn service_refusal(
    action: ServiceAction,
    force: bool,
    supervised: bool,
    has_definition: bool,
    panes_running: bool,
) -> Option<&'static str> {
    let kills = panes_running && !force;
    match action {
        ServiceAction::Install => None,
        ServiceAction::Uninstall => (has_definition && supervised && kills).then_some(KILLS_PANES),
        ServiceAction::Start | ServiceAction::Stop => {
            if !has_definition {
                Some(NO_SERVICE_DEFINITION)
            } else if !supervised {
                Some(NOT_SUPERVISED)
            } else if kills && action == ServiceAction::Stop {
                Some(KILLS_PANES)
            } else {
                None
            }
        }
        ServiceAction::Restart => {
            if !supervised {
                Some(NOT_SUPERVISED)
            } else if !has_definition {
                Some(NO_SERVICE_DEFINITION)
            } else if kills {
                Some(KILLS_PANES)
            } else {
                None
            }
        }
    }
}

/// Quotes one word for a systemd `ExecStart=` line.
fn systemd_word(s: &str) -> String {
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

/// One `Environment=` assignment, quoted: `%` doubled for systemd's specifiers, `\\` and `"`
/// escaped, a newline written as `\\n` (`$` is not expanded in `Environment=`).
fn systemd_env(key: &str, value: &str) -> String {
    let mut out = String::from("Environment=\"");
    for c in format!("{key}={value}").chars() {
        match c {
            '%' => out.push_str("%%"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push_str("\"\n");
    out
}

/// The systemd user unit text; `env` adds `Environment=` lines.
#[must_use]
pub fn systemd_unit(binary: &Path, config: &Path, env: &[(String, String)]) -> String {
    let extra: String = env.iter().map(|(k, v)| systemd_env(k, v)).collect();
    format!(
        "[Unit]\n\
         Description=termplane node daemon\n\
         After=network-online.target\n\
         Wants=network-online.target\n\
         \n\
         [Service]\n\
         Type=simple\n\
         ExecStart={} run --config {}\n\
         Environment={SUPERVISED_ENV}=systemd\n\
         {extra}\
         Restart=on-failure\n\
         RestartSec=5\n\
         \n\
         [Install]\n\
         WantedBy=default.target\n",
        systemd_word(&binary.display().to_string()),
        systemd_word(&config.display().to_string()),
    )
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// The launchd agent plist text; `env` adds entries to `EnvironmentVariables`.
#[must_use]
pub fn launchd_plist(binary: &Path, config: &Path, log: &Path, env: &[(String, String)]) -> String {
    let extra: String = env
        .iter()
        .map(|(k, v)| format!("<key>{}</key><string>{}</string>", xml(k), xml(v)))
        .collect();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>{LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
    <string>{}</string>
    <string>run</string>
    <string>--config</string>
    <string>{}</string>
  </array>
  <key>EnvironmentVariables</key>
  <dict><key>{SUPERVISED_ENV}</key><string>launchd</string>{extra}</dict>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>
  <key>StandardOutPath</key><string>{}</string>
  <key>StandardErrorPath</key><string>{}</string>
</dict>
</plist>
"#,
        xml(&binary.display().to_string()),
        xml(&config.display().to_string()),
        xml(&log.display().to_string()),
        xml(&log.display().to_string()),
    )
}

/// A service action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Write the definition, enable and start it.
    Install,
    /// Stop, disable and remove it.
    Uninstall,
    /// Start.
    Start,
    /// Stop.
    Stop,
    /// Restart.
    Restart,
}

fn run_tool(argv: &[&str]) -> Result<String, String> {
    let Some((prog, args)) = argv.split_first() else {
        return Err("empty command".into());
    };
    let out = run_bounded(
        Command::new(prog).args(args),
        Duration::from_secs(30),
        64 * 1024,
    )
    .map_err(|e| format!("could not run `{}`: {e}", argv.join(" ")))?;
    if out.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(format!(
            "`{}` failed ({}): {}",
            argv.join(" "),
            out.code
                .map_or("killed".to_owned(), |c| format!("exit {c}")),
            out.stderr_text()
        ))
    }
}

fn user_name() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| rustix::process::getuid().as_raw().to_string())
}

/// Carries out `action`. Returns the lines of what was done; an error names the failed step.
pub fn perform(
    action: Action,
    binary: &Path,
    config: &Path,
    log: &Path,
) -> Result<Vec<String>, String> {
    let m = Manager::current();
    let def = definition_path(m);
    let mut done = Vec::new();
    match (m, action) {
        (Manager::Systemd, Action::Install) => {
            let made = match def.parent() {
                Some(dir) => create_dirs(dir)?,
                None => Vec::new(),
            };
            let had = def.exists();
            std::fs::write(&def, systemd_unit(binary, config, &carried_env()))
                .map_err(|e| format!("{}: {e}", def.display()))?;
            done.push(format!("wrote {}", def.display()));
            let enabled = run_tool(&["systemctl", "--user", "daemon-reload"])
                .and_then(|_| run_tool(&["systemctl", "--user", "enable", "--now", SYSTEMD_UNIT]));
            if let Err(e) = enabled {
                // Nothing half-installed is left: a unit systemd never took is removed again.
                if !had {
                    let _ = std::fs::remove_file(&def);
                    // And the directories made for it (emptied again, deepest first).
                    for d in made.iter().rev() {
                        let _ = std::fs::remove_dir(d);
                    }
                }
                return Err(format!(
                    "{e}\nsystemd's user manager could not take the service (no systemd here, or \
                     no user session: `loginctl enable-linger` as root helps on servers); run \
                     `termplane-node run` under the supervisor you use instead"
                ));
            }
            done.push(format!("enabled and started {SYSTEMD_UNIT}"));
            match run_tool(&["loginctl", "enable-linger", &user_name()]) {
                Ok(_) => done.push("enabled lingering (the service survives logout)".into()),
                Err(e) => done.push(format!("warning: {e}")),
            }
        }
        (Manager::Systemd, Action::Uninstall) => {
            if !def.exists() {
                done.push("no service definition; nothing to remove".into());
                return Ok(done);
            }
            // A systemd that cannot be reached runs nothing of it: the file goes all the same.
            if let Err(e) = run_tool(&["systemctl", "--user", "disable", "--now", SYSTEMD_UNIT]) {
                done.push(format!("warning: {e}"));
            }
            std::fs::remove_file(&def).map_err(|e| format!("{}: {e}", def.display()))?;
            let _ = run_tool(&["systemctl", "--user", "daemon-reload"]);
            done.push(format!("removed {}", def.display()));
        }
        (Manager::Systemd, a) => {
            if !def.exists() {
                return Err("no service definition".into());
            }
            let verb = match a {
                Action::Start => "start",
                Action::Stop => "stop",
                _ => "restart",
            };
            run_tool(&["systemctl", "--user", verb, SYSTEMD_UNIT])?;
            done.push(format!("{verb} {SYSTEMD_UNIT}"));
        }
        (Manager::Launchd, Action::Install) => {
            if let Some(dir) = def.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            std::fs::write(&def, launchd_plist(binary, config, log, &carried_env()))
                .map_err(|e| format!("{}: {e}", def.display()))?;
            let domain = format!("gui/{}", rustix::process::getuid().as_raw());
            run_tool(&[
                "launchctl",
                "bootstrap",
                &domain,
                &def.display().to_string(),
            ])?;
            done.push(format!("wrote and loaded {}", def.display()));
        }
        (Manager::Launchd, a) => {
            let domain = format!("gui/{}", rustix::process::getuid().as_raw());
            let target = format!("{domain}/{LAUNCHD_LABEL}");
            if !def.exists() {
                if a == Action::Uninstall {
                    done.push("no service definition; nothing to remove".into());
                    return Ok(done);
                }
                return Err("no service definition".into());
            }
            match a {
                Action::Uninstall | Action::Stop => {
                    run_tool(&["launchctl", "bootout", &target])?;
                    if a == Action::Uninstall {
                        std::fs::remove_file(&def)
                            .map_err(|e| format!("{}: {e}", def.display()))?;
                    }
                }
                Action::Start => {
                    run_tool(&[
                        "launchctl",
                        "bootstrap",
                        &domain,
                        &def.display().to_string(),
                    ])?;
                }
                _ => {
                    run_tool(&["launchctl", "kickstart", "-k", &target])?;
                }
            }
            done.push(format!("{a:?} {LAUNCHD_LABEL}"));
        }
    }
    Ok(done)
}

/// `create_dir_all(dir)`, answering the directories it made (outermost first), so a step that
/// fails after it can take them away again.
fn create_dirs(dir: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    let mut missing: Vec<std::path::PathBuf> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && std::fs::symlink_metadata(a).is_err())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(missing)
}

/// A one-word state for `status`: `running`, `installed`, `not installed`, or `unknown (…)`.
#[must_use]
pub fn state() -> String {
    let m = Manager::current();
    if !definition_path(m).exists() {
        return "not installed".into();
    }
    match m {
        Manager::Systemd => match run_tool(&["systemctl", "--user", "is-active", SYSTEMD_UNIT]) {
            Ok(s) if s == "active" => "running".into(),
            Ok(s) => format!("installed ({s})"),
            Err(_) => "installed (state unknown: systemctl --user did not answer)".into(),
        },
        Manager::Launchd => "installed".into(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_systemd_unit_runs_the_daemon_supervised() {
        let u = systemd_unit(
            Path::new("/opt/tp node/bin"),
            Path::new("/h/c%fg$.json"),
            &[],
        );
        assert!(u.contains("ExecStart=\"/opt/tp node/bin\" run --config \"/h/c%%fg$$.json\"\n"));
        assert!(u.contains("Environment=TERMPLANE_SUPERVISED=systemd\n"));
        assert!(u.contains("WantedBy=default.target"));
        assert!(u.contains("Restart=on-failure"));
    }

    #[test]
    fn the_launchd_plist_escapes_paths() {
        let p = launchd_plist(
            Path::new("/a&b/<n>"),
            Path::new("/c.json"),
            Path::new("/l"),
            &[],
        );
        assert!(p.contains("<string>/a&amp;b/&lt;n&gt;</string>"));
        assert!(p.contains("<key>TERMPLANE_SUPERVISED</key><string>launchd</string>"));
        assert!(p.contains("<key>RunAtLoad</key><true/>"));
    }

    #[test]
    fn a_ca_file_set_at_install_is_carried_into_both_definitions() {
        let env = vec![(
            "TERMPLANE_CA_FILE".to_owned(),
            "/etc/tp ca/%h \"x\"$HOME.pem".to_owned(),
        )];
        let u = systemd_unit(Path::new("/b"), Path::new("/c"), &env);
        assert!(
            u.contains("Environment=\"TERMPLANE_CA_FILE=/etc/tp ca/%%h \\\"x\\\"$HOME.pem\"\n"),
            "{u}"
        );
        // The extra line sits inside [Service], before Restart=.
        let svc = u.find("[Service]").unwrap();
        let line = u.find("TERMPLANE_CA_FILE").unwrap();
        assert!(svc < line && line < u.find("Restart=").unwrap());
        let p = launchd_plist(Path::new("/b"), Path::new("/c"), Path::new("/l"), &env);
        assert!(p.contains(
            "<key>TERMPLANE_CA_FILE</key><string>/etc/tp ca/%h &quot;x&quot;$HOME.pem</string>"
        ));
    }

    /// Every case of the table in the protocol document, with the document's words: the
    /// refusal of each action (and of `update`, which meets `restart`'s) per node state, without
    /// panes, with panes, and with panes and `force`.
    #[test]
    fn service_refusals_follow_the_documented_table() {
        use ServiceAction as A;
        const NS: Option<&str> = Some("not supervised");
        const KP: Option<&str> = Some("kills panes");
        const ND: Option<&str> = Some("no service definition");
        // (supervised, has a definition)
        let states = [(true, true), (true, false), (false, true), (false, false)];
        // Per action: per state, the refusal (no panes, panes, panes with force).
        type Row = [[Option<&'static str>; 3]; 4];
        let table: [(A, Row); 5] = [
            (A::Install, [[None; 3]; 4]),
            (
                A::Uninstall,
                [
                    [None, KP, None],
                    [None, None, None],
                    [None, None, None],
                    [None, None, None],
                ],
            ),
            (A::Start, [[None; 3], [ND; 3], [NS; 3], [ND; 3]]),
            (A::Stop, [[None, KP, None], [ND; 3], [NS; 3], [ND; 3]]),
            (A::Restart, [[None, KP, None], [ND; 3], [NS; 3], [NS; 3]]),
        ];
        for (action, rows) in table {
            for ((supervised, has_def), want) in states.into_iter().zip(rows) {
                let got = [(false, false), (true, false), (true, true)].map(|(panes, force)| {
                    service_refusal(action, force, supervised, has_def, panes)
                });
                assert_eq!(
                    got, want,
                    "{action:?}, supervised {supervised}, definition {has_def}"
                );
            }
        }
    }
}
