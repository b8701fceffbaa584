//! The launch catalog: harness plugins (listing, switches, detection on nodes and the launch
//! gate). Presets and workspaces are their own domain ([`super::presets`]).
//!
//! Detection runs only on demand — a page load or re-check (`GET /api/nodes/{id}/harnesses`)
//! and a launch whose node's answer is missing or older than the 10-minute freshness (the
//! "launch kick"); there is no sweep. A harness is launchable on a node when its plugin is
//! enabled and that node's fresh detection found the binary.

use std::collections::BTreeMap;

use termplane_proto::command::{Command, Detect};

use std::sync::Arc;

use super::Caller;
use super::dispatch::Dispatcher;
use super::nodes::Nodes;
use super::nodes::launchable_node;
use crate::api::catalog::{Detection, HarnessStatus, McpDialect, Plugin};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::plugins;
use crate::store::{Detected, Store};

/// How long a node's detection answer counts for the launch gate (ms).
pub const DETECTION_FRESH_MS: i64 = 10 * 60 * 1000;

/// Why a harness cannot be launched on a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NotLaunchable {
    /// An administrator turned the plugin off.
    Disabled,
    /// The node never answered a detection for it.
    NotDetected,
    /// The node's answer is older than the freshness.
    Stale,
    /// The node looked and did not find it.
    NotInstalled,
}

impl NotLaunchable {
    /// The API's spelling.
    #[must_use]
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::Disabled => "plugin_disabled",
            Self::NotDetected => "not_detected",
            Self::Stale => "detection_stale",
            Self::NotInstalled => "not_installed",
        }
    }
}

/// What a harness's version output says, as the inventory shows it: the first line that holds
/// more than blanks (`bash --version` goes on with a licence), control characters (a terminal
/// escape sequence such as a colour, a carriage return) left out, at most 200 characters; `None`
/// when nothing is left.
fn version_line(raw: &str) -> Option<String> {
    let line = raw
        .lines()
        .find(|l| l.chars().any(|c| !c.is_whitespace()))?;
    let mut clean = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // ESC [ parameters… final byte (a CSI sequence); or ESC, intermediate bytes
            // (` ` to `/`) and one final character (`ESC ( B`, `ESC 7`).
            match chars.next() {
                Some('[') => {
                    for p in chars.by_ref() {
                        if ('@'..='~').contains(&p) {
                            break;
                        }
                    }
                }
                Some(' '..='/') => {
                    for p in chars.by_ref() {
                        if !(' '..='/').contains(&p) {
                            break;
                        }
                    }
                }
                _ => {}
            }
        } else if !c.is_control() {
            clean.push(c);
        }
    }
    let text: String = clean.trim().chars().take(200).collect();
    (!text.is_empty()).then_some(text)
}

/// The version number in a harness's version line: the first run of digits that holds at
/// least one dot between digits (`5.2.15` of `GNU bash, version 5.2.15(1)-release`), with a
/// pre-release or build suffix that follows it directly (`-rc.1`, `+build.5`) when one does.
/// A leading `v` is dropped with everything else before the digits. `None` when the line has
/// no dotted number (`tool 7`).
fn version_number(line: &str) -> Option<String> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // A number starts at a digit that does not continue a word (`x86_64` is no version).
        let starts = b[i].is_ascii_digit()
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'v');
        if !starts {
            i += 1;
            continue;
        }
        let mut end = i;
        let mut dots = 0;
        while end < b.len() {
            if b[end].is_ascii_digit() {
                end += 1;
            } else if b[end] == b'.' && end + 1 < b.len() && b[end + 1].is_ascii_digit() {
                dots += 1;
                end += 1;
            } else {
                break;
            }
        }
        if dots == 0 {
            i = end;
            continue;
        }
        // `-rc.1`, `-beta`, `+build.5`: a suffix of letters, digits and dots after `-` or `+`,
        // kept when it starts with a letter or digit (`5.2.15(1)-release` keeps none).
        if end + 1 < b.len()
            && (b[end] == b'-' || b[end] == b'+')
            && b[end + 1].is_ascii_alphanumeric()
        {
            let mut s = end + 1;
            while s < b.len()
                && (b[s].is_ascii_alphanumeric() || b[s] == b'.' || b[s] == b'-' || b[s] == b'+')
            {
                s += 1;
            }
            end = s;
            while end > i && b[end - 1] == b'.' {
                end -= 1;
            }
        }
        return Some(line[i..end].to_owned());
    }
    None
}

/// The catalog domain: harness plugins, their switches, and detection on nodes (the launch
/// gate). It holds the store, the clock, the dispatcher (detection asks a node) and the nodes
/// domain (who manages a node).
pub struct Catalog {
    store: Store,
    clock: Arc<dyn Clock>,
    dispatcher: Arc<Dispatcher>,
    nodes: Arc<Nodes>,
}

impl Catalog {
    /// The service over `store`.
    pub(super) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        dispatcher: Arc<Dispatcher>,
        nodes: Arc<Nodes>,
    ) -> Self {
        Self {
            store,
            clock,
            dispatcher,
            nodes,
        }
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    // ----- plugins -----

    /// Each built-in plugin with its administrator's switch applied.
    pub(super) async fn plugins_with_switches(
        &self,
    ) -> Result<Vec<(plugins::Plugin, bool)>, ApiError> {
        let switches: BTreeMap<String, bool> =
            self.store.plugin_switches().await?.into_iter().collect();
        Ok(plugins::builtin()
            .into_iter()
            .map(|p| {
                let on = switches.get(p.id).copied().unwrap_or(p.enabled_by_default);
                (p, on)
            })
            .collect())
    }

    /// `GET /api/plugins` (any credential, pane tokens included).
    pub async fn plugins(&self) -> Result<Vec<Plugin>, ApiError> {
        Ok(self
            .plugins_with_switches()
            .await?
            .into_iter()
            .map(|(p, enabled)| Plugin {
                id: p.id.to_owned(),
                name: p.name.to_owned(),
                description: p.description.to_owned(),
                kind: "harness".to_owned(),
                enabled,
                detection: Detection {
                    binary_name: p.binary_name.to_owned(),
                    env_override: p.env_override.map(str::to_owned),
                    known_paths: p.known_paths.iter().map(|s| (*s).to_owned()).collect(),
                    version_args: p.version_args.iter().map(|s| (*s).to_owned()).collect(),
                },
                argv: p.argv(&[], plugins::Session::New(None), None),
                mcp: McpDialect {
                    kind: p.mcp.name().to_owned(),
                    description: p.mcp.description().to_owned(),
                },
                resume: p.resume != plugins::Resume::No,
            })
            .collect())
    }

    /// `PUT /api/plugins/:id` (an administrator's session).
    pub async fn set_plugin_enabled(
        &self,
        admin: &Caller,
        id: &str,
        enabled: bool,
    ) -> Result<Plugin, ApiError> {
        if plugins::find(id).is_none() {
            return Err(ApiError::not_found("plugin"));
        }
        self.store
            .set_plugin_enabled(&admin.user().id, id, enabled, self.now())
            .await?;
        self.plugins()
            .await?
            .into_iter()
            .find(|p| p.id == id)
            .ok_or_else(|| ApiError::not_found("plugin"))
    }

    // ----- detection -----

    /// Asks the node to detect every enabled harness now (or only `only`, when enabled) and
    /// stores the answer.
    pub(super) async fn detect_now(
        &self,
        node_id: &str,
        only: Option<&str>,
    ) -> Result<Vec<Detected>, ApiError> {
        let enabled: Vec<plugins::Plugin> = self
            .plugins_with_switches()
            .await?
            .into_iter()
            .filter_map(|(p, on)| on.then_some(p))
            .filter(|p| only.is_none_or(|h| h == p.id))
            .collect();
        let env_names = enabled
            .iter()
            .filter_map(|p| p.env_override.map(str::to_owned))
            .collect();
        let cmd = Command::Detect(Detect {
            rules: enabled.iter().map(plugins::Plugin::detect_rule).collect(),
            env_names,
        });
        let r = self.dispatcher.node_command(node_id, cmd).await?;
        if !r.ok {
            return Err(ApiError::new(
                502,
                "NODE_BAD_RESULT",
                format!(
                    "the node could not detect its harnesses: {}",
                    r.error.unwrap_or_default()
                ),
            ));
        }
        let now = self.now();
        let found: Vec<Detected> = r
            .data
            .as_ref()
            .and_then(|d| d.get("harnesses"))
            .and_then(serde_json::Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|h| {
                        let id = h.get("harnessId")?.as_str()?;
                        enabled.iter().any(|p| p.id == id).then(|| Detected {
                            harness_id: id.to_owned(),
                            installed: h.get("installed").and_then(serde_json::Value::as_bool)
                                == Some(true),
                            version: h
                                .get("version")
                                .and_then(serde_json::Value::as_str)
                                .and_then(version_line),
                            binary_path: h
                                .get("binaryPath")
                                .and_then(serde_json::Value::as_str)
                                .map(|v| v.chars().take(4096).collect()),
                            reason: h
                                .get("reason")
                                .and_then(serde_json::Value::as_str)
                                .map(|v| v.chars().take(500).collect()),
                            checked_at: now,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        self.store.record_detections(node_id, &found).await?;
        Ok(found)
    }

    /// Whether `harness` can be launched on `node_id` now; with `kick`, a missing or stale
    /// answer is asked for again first — for that harness alone, so a launch never waits on
    /// the version probes of the others.
    pub(super) async fn launch_gate(
        &self,
        node_id: &str,
        harness: &str,
        kick: bool,
    ) -> Result<Result<Detected, NotLaunchable>, ApiError> {
        let enabled = self
            .plugins_with_switches()
            .await?
            .into_iter()
            .any(|(p, on)| p.id == harness && on);
        if !enabled {
            return Ok(Err(NotLaunchable::Disabled));
        }
        let now = self.now();
        let fresh = |d: &Detected| now - d.checked_at < DETECTION_FRESH_MS;
        let mut known = self
            .store
            .detections(node_id)
            .await?
            .into_iter()
            .find(|d| d.harness_id == harness);
        if kick && !known.as_ref().is_some_and(fresh) {
            known = self
                .detect_now(node_id, Some(harness))
                .await?
                .into_iter()
                .find(|d| d.harness_id == harness);
        }
        Ok(match known {
            None => Err(NotLaunchable::NotDetected),
            Some(d) if !fresh(&d) => Err(NotLaunchable::Stale),
            Some(d) if !d.installed => Err(NotLaunchable::NotInstalled),
            Some(d) => Ok(d),
        })
    }

    /// `GET /api/nodes/:id/harnesses`: every plugin as the node has it. Detection runs when
    /// asked (`refresh`) or when the node's answer is missing or stale, and only on a node
    /// that is reachable (an unreachable node answers from what is stored).
    /// `GET /api/nodes/{id}/dirs` (a person or a script that may launch on the node): the
    /// subdirectories of one directory, through the node's `fs_ls` — so the node's own path
    /// policy (its allowed directories) decides what can be listed.
    pub async fn list_node_dirs(
        &self,
        c: &Caller,
        node_id: &str,
        q: crate::api::catalog::DirsQuery,
    ) -> Result<crate::api::catalog::DirListing, ApiError> {
        launchable_node(&self.store, c, node_id).await?;
        let path = q.path.map(|p| p.as_str().to_owned()).unwrap_or_default();
        let r = self
            .dispatcher
            .node_command(
                node_id,
                termplane_proto::Command::FsLs(termplane_proto::command::PathArg { path }),
            )
            .await?;
        let data = super::dispatch::node_data(r)?;
        let mut listing: crate::api::catalog::DirListing =
            serde_json::from_value(data).map_err(|_| {
                ApiError::new(
                    502,
                    "NODE_BAD_RESULT",
                    "the node's directory listing is malformed",
                )
            })?;
        listing.entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(listing)
    }

    pub async fn node_harnesses(
        &self,
        c: &Caller,
        node_id: &str,
        refresh: bool,
    ) -> Result<Vec<HarnessStatus>, ApiError> {
        launchable_node(&self.store, c, node_id).await?;
        let now = self.now();
        let stored = self.store.detections(node_id).await?;
        // Stale when any enabled harness has no fresh answer (a launch asks about its own
        // harness only, so the others may never have been asked).
        let stale = self
            .plugins_with_switches()
            .await?
            .iter()
            .filter(|(_, on)| *on)
            .any(|(p, _)| {
                !stored
                    .iter()
                    .any(|d| d.harness_id == p.id && now - d.checked_at < DETECTION_FRESH_MS)
            });
        if (refresh || stale) && self.dispatcher.node_reachable(node_id) {
            self.detect_now(node_id, None).await?;
        }
        let stored = self.store.detections(node_id).await?;
        let now = self.now();
        Ok(self
            .plugins_with_switches()
            .await?
            .into_iter()
            .map(|(p, enabled)| {
                let d = stored.iter().find(|d| d.harness_id == p.id);
                let why = if !enabled {
                    Some(NotLaunchable::Disabled)
                } else {
                    match d {
                        None => Some(NotLaunchable::NotDetected),
                        Some(d) if now - d.checked_at >= DETECTION_FRESH_MS => {
                            Some(NotLaunchable::Stale)
                        }
                        Some(d) if !d.installed => Some(NotLaunchable::NotInstalled),
                        Some(_) => None,
                    }
                };
                let version = d.and_then(|d| d.version.as_deref()).and_then(version_line);
                HarnessStatus {
                    harness_id: p.id.to_owned(),
                    name: p.name.to_owned(),
                    enabled,
                    installed: d.is_some_and(|d| d.installed),
                    version_number: version.as_deref().and_then(version_number),
                    version,
                    binary_path: d.and_then(|d| d.binary_path.clone()),
                    reason: d.and_then(|d| d.reason.clone()),
                    checked_at: d.map(|d| d.checked_at),
                    launchable: why.is_none(),
                    why_not: why.map(|w| w.as_str().to_owned()),
                }
            })
            .collect())
    }

    /// `PUT /api/nodes/:id/system-access` (an administrator's session). The local node is
    /// always open to scripts: setting its access either way is refused with 403 `LOCAL_NODE`,
    /// like its deletion and key rotation, and nothing is written.
    pub async fn set_system_access(
        &self,
        admin: &Caller,
        node_id: &str,
        allowed: bool,
    ) -> Result<crate::api::nodes::Node, ApiError> {
        self.nodes
            .managed_remote_node(
                admin,
                node_id,
                "the local node is always open to scripts: its system access cannot be set",
            )
            .await?;
        if !self
            .store
            .set_system_access(&admin.user().id, node_id, allowed, self.now())
            .await?
        {
            return Err(ApiError::not_found("node"));
        }
        self.nodes.node(admin, node_id).await
    }

    /// `PUT /api/nodes/:id/recording` (an administrator's session): whether the node's panes
    /// launched or restarted from now on are recorded, and how long their recordings are kept.
    /// The local node's too.
    pub async fn set_node_recording(
        &self,
        admin: &Caller,
        node_id: &str,
        req: &crate::api::catalog::RecordingRequest,
    ) -> Result<crate::api::nodes::Node, ApiError> {
        if !self
            .store
            .set_recording(
                &admin.user().id,
                crate::store::Settable::Node,
                node_id,
                req.on,
                req.retention_days.map(|d| i64::from(d.0)),
                self.now(),
            )
            .await?
        {
            return Err(ApiError::not_found("node"));
        }
        self.nodes.node(admin, node_id).await
    }
}

#[cfg(test)]
mod tests {
    use super::{version_line, version_number};

    #[test]
    fn a_version_number_is_the_dotted_number_of_the_line() {
        let cases = [
            (
                "GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)",
                Some("5.2.15"),
            ),
            ("1.0.3 (Claude Code)", Some("1.0.3")),
            ("codex-cli 0.20.0", Some("0.20.0")),
            ("opencode v0.3.110", Some("0.3.110")),
            ("gemini 2.0.0-rc.1", Some("2.0.0-rc.1")),
            ("tool 1.2.3+build.5.", Some("1.2.3+build.5")),
            ("zsh 5.9 (x86_64-debian-linux-gnu)", Some("5.9")),
            ("x86_64 build 7", None),
            ("tool 7", None),
            ("version 1. of many", None),
            ("", None),
        ];
        for (line, want) in cases {
            assert_eq!(version_number(line).as_deref(), want, "{line:?}");
        }
    }

    #[test]
    fn a_version_is_its_first_line_without_control_characters() {
        let bash = "GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)\nCopyright (C) 2022 Free \
                    Software Foundation, Inc.\nLicense GPLv3+";
        assert_eq!(
            version_line(bash).as_deref(),
            Some("GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)")
        );
        assert_eq!(version_line("\n  \n 1.2.3 \r\n").as_deref(), Some("1.2.3"));
        assert_eq!(
            version_line("\u{1b}[1mtool\u{1b}[0m 2.0").as_deref(),
            Some("tool 2.0")
        );
        assert_eq!(version_line("v\u{1b}(B1").as_deref(), Some("v1"));
        assert_eq!(version_line("\u{1b}[31"), None);
        assert_eq!(version_line(""), None);
        assert_eq!(version_line(" \n\t\n"), None);
        assert_eq!(
            version_line(&"é".repeat(300)).map(|v| v.chars().count()),
            Some(200)
        );
    }
}
