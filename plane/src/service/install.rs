//! How a machine becomes a node: the script served at `GET /install.sh` and the commands an
//! active setup key's view carries ([`NodeInstall`]), which the "Add a node" dialog shows as
//! they are.
//!
//! # The plane's address in them
//!
//! People pipe the script into `sh`, so the address written into it must be one the plane's
//! administrator chose, never one a request made up. It is the trusted origin
//! ([`Services::trusted_origins`]: the base URL, `TRUSTED_ORIGINS`, the origins administrators
//! added, a network plugin's) whose host and port are the request's `Host`, so a plane reached
//! at several trusted addresses hands out the one its caller used; for any other `Host` (or
//! none) it is the base URL (`APP_BASE_URL`). A `Host` header only picks among trusted
//! addresses. The answers are never cached (`Cache-Control: no-store`, as every answer).
//!
//! # The script
//!
//! `install.sh` beside this file is POSIX `sh` (dash, bash, busybox) and is served with two
//! lines filled in: the plane's address and one `<platform>=<sha256>` word for each node
//! program the plane serves, hashed as the script is served. Fetched over the same connection
//! as the program, the digests do not stand in for TLS; they make sure the program installed
//! is, byte for byte, the one this plane served when the script was fetched (a cache, a proxy
//! or a half-finished download cannot slip another in), and that nothing is installed
//! otherwise. What the script does, step by step, is written at its top.
//!
//! # The step-by-step form
//!
//! The same work as separate commands for people who read before they run: download into
//! `~/.local/bin/termplane-node` and check the digest, enroll, start the service. Each calls the
//! program by that path, so they work pasted in order whatever `PATH` holds.

use crate::plugins::sh_quoted;
use std::borrow::Cow;

use std::path::PathBuf;
use std::sync::Arc;

use super::{Caller, Credentials, Guard, Nodes, normalize_origin};
use crate::api::credentials::SetupKey;
use crate::api::install::{NodeInstall, NodeInstallDownload};
use crate::error::ApiError;

/// The script as written; [`script_for`] fills in its two marked lines.
const SCRIPT: &str = include_str!("install.sh");
const URL_MARK: &str = "PLANE_URL='@PLANE_URL@'";
const SERVED_MARK: &str = "SERVED='@SERVED@'";

/// Where the step-by-step form puts the program (`~` is left for the shell to expand).
const PROGRAM: &str = "~/.local/bin/termplane-node";

/// A node program this plane serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ServedProgram {
    /// `<os>-<arch>`.
    pub(crate) platform: String,
    /// Length in bytes.
    pub(crate) bytes: u64,
    /// Lowercase hex SHA-256.
    pub(crate) sha256: String,
}

/// How a machine becomes a node: the install script, the node programs the plane serves, and
/// the commands shown with a setup key, all at the address the browser used when it is one of
/// the trusted origins.
pub struct Installer {
    base_url: String,
    downloads_dir: Option<PathBuf>,
    guard: Arc<Guard>,
    nodes: Arc<Nodes>,
    credentials: Arc<Credentials>,
}

impl std::fmt::Debug for Installer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Installer").finish_non_exhaustive()
    }
}

impl Installer {
    pub(super) fn new(
        base_url: String,
        downloads_dir: Option<PathBuf>,
        guard: Arc<Guard>,
        nodes: Arc<Nodes>,
        credentials: Arc<Credentials>,
    ) -> Self {
        Self {
            base_url,
            downloads_dir,
            guard,
            nodes,
            credentials,
        }
    }

    /// The plane's address for the install script and commands of a request whose `Host`
    /// header is `host` (see the module's docs): the trusted origin with that host and port,
    /// else the base URL. The base URL wins when it is itself that origin; of two trusted
    /// origins with the same host and port, `https` wins.
    #[must_use]
    pub fn install_base_url(&self, host: Option<&str>) -> String {
        let base = self.base_url.trim_end_matches('/').to_owned();
        let Some(host) = host else { return base };
        let candidates: Vec<String> = ["https", "http"]
            .iter()
            .filter_map(|scheme| normalize_origin(&format!("{scheme}://{host}")))
            .collect();
        if normalize_origin(&base).is_some_and(|b| candidates.contains(&b)) {
            return base;
        }
        let trusted = self.guard.trusted_origins();
        candidates
            .into_iter()
            .find(|c| trusted.contains(c))
            .unwrap_or(base)
    }

    /// The node programs this plane serves, by platform, with their lengths and digests: every
    /// `termplane-node-<platform>` in the downloads directory, or without one the
    /// `termplane-node` beside the plane's executable (the rule of
    /// [`crate::service::Nodes::node_download`], which serves them).
    pub(crate) async fn served_node_programs(&self) -> Vec<ServedProgram> {
        let mut platforms = match self.downloads_dir.clone() {
            Some(dir) => {
                smol::unblock(move || {
                    std::fs::read_dir(dir)
                        .map(|entries| {
                            entries
                                .flatten()
                                .filter_map(|e| {
                                    let name = e.file_name().to_string_lossy().into_owned();
                                    name.strip_prefix("termplane-node-").map(str::to_owned)
                                })
                                .collect::<Vec<_>>()
                        })
                        .unwrap_or_default()
                })
                .await
            }
            None => vec![format!(
                "{}-{}",
                std::env::consts::OS,
                std::env::consts::ARCH
            )],
        };
        platforms.sort();
        platforms.dedup();
        let mut served = Vec::new();
        for platform in platforms {
            let valid = serde_json::from_value::<crate::api::nodes::Platform>(
                serde_json::Value::String(platform.clone()),
            )
            .is_ok();
            if !valid {
                continue;
            }
            if let Ok((_, bytes, sha256)) = self.nodes.node_download(&platform).await {
                served.push(ServedProgram {
                    platform,
                    bytes,
                    sha256,
                });
            }
        }
        served
    }

    /// `GET /install.sh` (no credential: it carries no secret) for a request whose `Host` is
    /// `host`.
    pub async fn install_script(&self, host: Option<&str>) -> String {
        let url = self.install_base_url(host);
        script_for(&url, &self.served_node_programs().await)
    }

    /// `POST /api/setup-keys`: the key, with the commands that add a node with it (their
    /// address from the request's `host` when no base URL is configured).
    pub async fn create_setup_key(
        &self,
        c: &Caller,
        host: Option<&str>,
    ) -> Result<SetupKey, ApiError> {
        let mut view = self.credentials.create_setup_key(c).await?;
        self.add_install_commands(host, std::slice::from_mut(&mut view))
            .await;
        Ok(view)
    }

    /// `GET /api/setup-keys`: an admin sees every key, others their own, each active one with
    /// the commands that add a node with it.
    pub async fn setup_keys(
        &self,
        c: &Caller,
        host: Option<&str>,
    ) -> Result<Vec<SetupKey>, ApiError> {
        let mut views = self.credentials.setup_keys(c).await?;
        self.add_install_commands(host, &mut views).await;
        Ok(views)
    }

    /// Puts the install commands on each view of `keys` that shows its key (an active key).
    pub(super) async fn add_install_commands(&self, host: Option<&str>, keys: &mut [SetupKey]) {
        if keys.iter().all(|k| k.key.is_none()) {
            return;
        }
        let url = self.install_base_url(host);
        let served = self.served_node_programs().await;
        for k in keys {
            if let Some(key) = &k.key {
                k.install = Some(compose(&url, key, &served));
            }
        }
    }
}

/// `s` as one word of POSIX shell: as it is when every character is plain, else in single
/// quotes (a quote inside written `'\''`).
fn sh_word(s: &str) -> Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(sh_quoted(s))
    }
}

/// The script with the plane's address `url` and the `served` programs' digests filled in.
pub(crate) fn script_for(url: &str, served: &[ServedProgram]) -> String {
    // Platforms are `[a-z0-9_]+-[a-z0-9_]+` and digests hex: nothing in them needs quoting.
    let words: Vec<String> = served
        .iter()
        .map(|p| format!("{}={}", p.platform, p.sha256))
        .collect();
    SCRIPT
        .replacen(URL_MARK, &format!("PLANE_URL={}", sh_quoted(url)), 1)
        .replacen(SERVED_MARK, &format!("SERVED='{}'", words.join(" ")), 1)
}

/// The commands that add a node to the plane at `url` with the setup key `key`.
pub(crate) fn compose(url: &str, key: &str, served: &[ServedProgram]) -> NodeInstall {
    let script_url = format!("{url}/install.sh");
    let downloads = served
        .iter()
        .map(|p| {
            let from = format!("{url}/api/downloads/node/{}", p.platform);
            // macOS has `shasum`; Linux distributions have coreutils' `sha256sum`.
            let check = if p.platform.starts_with("darwin-") {
                "shasum -a 256 -c"
            } else {
                "sha256sum -c"
            };
            NodeInstallDownload {
                commands: vec![
                    format!("mkdir -p ~/.local/bin && curl -fsSLo {PROGRAM} {}", sh_word(&from)),
                    format!(
                        "echo \"{}  $HOME/.local/bin/termplane-node\" | {check} && chmod 755 {PROGRAM}",
                        p.sha256
                    ),
                ],
                platform: p.platform.clone(),
                url: from,
                bytes: p.bytes,
                sha256: p.sha256.clone(),
            }
        })
        .collect();
    NodeInstall {
        command: format!(
            "curl -fsSL {} | sh -s -- --setup-key {}",
            sh_word(&script_url),
            sh_word(key)
        ),
        enroll: format!(
            "{PROGRAM} enroll --server {} --setup-key {}",
            sh_word(url),
            sh_word(key)
        ),
        service: format!("{PROGRAM} service install"),
        foreground: format!("{PROGRAM} run"),
        plane_url: url.to_owned(),
        script_url,
        downloads,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served() -> Vec<ServedProgram> {
        vec![
            ServedProgram {
                platform: "darwin-aarch64".into(),
                bytes: 7,
                sha256: "ab".repeat(32),
            },
            ServedProgram {
                platform: "linux-x86_64".into(),
                bytes: 9,
                sha256: "cd".repeat(32),
            },
        ]
    }

    #[test]
    fn the_script_has_each_marked_line_once_and_the_served_script_none() {
        assert_eq!(SCRIPT.matches(URL_MARK).count(), 1);
        assert_eq!(SCRIPT.matches(SERVED_MARK).count(), 1);
        let s = script_for("https://plane.example", &served());
        assert!(!s.contains("@PLANE_URL@") && !s.contains("@SERVED@"), "{s}");
        assert!(s.contains("\nPLANE_URL='https://plane.example'\n"), "{s}");
        let words = format!(
            "\nSERVED='darwin-aarch64={} linux-x86_64={}'\n",
            "ab".repeat(32),
            "cd".repeat(32)
        );
        assert!(s.contains(&words), "{s}");
        assert!(s.trim_end().ends_with("main \"$@\""), "main runs last");
    }

    #[test]
    fn an_address_with_shell_characters_stays_one_quoted_word() {
        let s = script_for("http://h/it's $(x)", &[]);
        assert!(s.contains("\nPLANE_URL='http://h/it'\\''s $(x)'\n"), "{s}");
        let c = compose("http://h/a b", "nsk_k", &[]);
        assert_eq!(
            c.command,
            "curl -fsSL 'http://h/a b/install.sh' | sh -s -- --setup-key nsk_k"
        );
    }

    #[test]
    fn the_words_of_a_command_are_quoted_only_when_they_must_be() {
        assert_eq!(sh_word("nsk_Ab-9"), "nsk_Ab-9");
        assert_eq!(sh_word("http://127.0.0.1:7420"), "http://127.0.0.1:7420");
        assert_eq!(sh_word(""), "''");
        assert_eq!(sh_word("a;b"), "'a;b'");
        assert_eq!(sh_word("it's"), "'it'\\''s'");
    }

    #[test]
    fn the_commands_call_the_program_by_the_path_they_put_it_at() {
        let c = compose("http://10.0.0.2:7420", "nsk_abc", &served());
        assert_eq!(c.plane_url, "http://10.0.0.2:7420");
        assert_eq!(c.script_url, "http://10.0.0.2:7420/install.sh");
        assert_eq!(
            c.command,
            "curl -fsSL http://10.0.0.2:7420/install.sh | sh -s -- --setup-key nsk_abc"
        );
        assert_eq!(
            c.enroll,
            "~/.local/bin/termplane-node enroll --server http://10.0.0.2:7420 --setup-key nsk_abc"
        );
        assert_eq!(c.service, "~/.local/bin/termplane-node service install");
        assert_eq!(c.foreground, "~/.local/bin/termplane-node run");
        let linux = &c.downloads[1];
        assert_eq!(linux.platform, "linux-x86_64");
        assert_eq!(
            linux.url,
            "http://10.0.0.2:7420/api/downloads/node/linux-x86_64"
        );
        assert_eq!(
            linux.commands,
            [
                "mkdir -p ~/.local/bin && curl -fsSLo ~/.local/bin/termplane-node \
                 http://10.0.0.2:7420/api/downloads/node/linux-x86_64"
                    .to_owned(),
                format!(
                    "echo \"{}  $HOME/.local/bin/termplane-node\" | sha256sum -c && chmod 755 \
                     ~/.local/bin/termplane-node",
                    "cd".repeat(32)
                ),
            ]
        );
        assert!(
            c.downloads[0].commands[1].contains("| shasum -a 256 -c && "),
            "{:?}",
            c.downloads[0].commands
        );
    }
}
