//! How a machine becomes a node: the commands the plane composes for a setup key.
//!
//! The browser app shows these strings as they are, so what a person copies is what the plane
//! composed (and what the tests run): one command that does everything through the plane's
//! `/install.sh`, and the same work as three steps for people who read before they run.

use schemars::JsonSchema;
use serde::Serialize;

/// The commands that add a node with one setup key (on an active key only).
///
/// Every command is one line of POSIX shell (bash, zsh and dash alike) that works when pasted
/// into a terminal of the node's machine, in the order given; the program goes to
/// `~/.local/bin/termplane-node` and is called by that path, so nothing depends on `PATH`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeInstall {
    /// The plane's address in the commands: the trusted origin the caller reached the plane
    /// at, or its base URL (`APP_BASE_URL`).
    pub plane_url: String,
    /// `{planeUrl}/install.sh`.
    pub script_url: String,
    /// The one command: `curl -fsSL {scriptUrl} | sh -s -- --setup-key nsk_…` downloads the
    /// program for the machine's platform, checks its SHA-256, enrolls the node and starts its
    /// service (or says how to run it in the foreground).
    pub command: String,
    /// Step 1 of the step-by-step form, for each platform the plane serves a program for.
    pub downloads: Vec<NodeInstallDownload>,
    /// Step 2: enroll with the setup key.
    pub enroll: String,
    /// Step 3: install and start the service (a systemd user unit with lingering, or a
    /// launchd agent).
    pub service: String,
    /// Step 3 where no service manager is usable: the daemon in the foreground.
    pub foreground: String,
}

/// Step 1 for one platform: the program, where it is and the commands that fetch and check it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeInstallDownload {
    /// `<os>-<arch>`, as `uname` names it (`linux-x86_64`, `darwin-aarch64`, …).
    pub platform: String,
    /// `/api/downloads/node/{platform}` under the plane's address.
    pub url: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Lowercase hex SHA-256.
    pub sha256: String,
    /// The commands, in order: download into `~/.local/bin`, then check the digest and make it
    /// executable (a program whose digest differs is never made executable).
    pub commands: Vec<String>,
}
