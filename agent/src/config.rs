//! The node's config file (`config.json`, mode 0600) and the directories it lives in.
//!
//! Fields (camelCase JSON): `serverUrl`, `wsUrl`, `nodeId`, `nodeKey` (bearer, secret),
//! `signingPublicJwk` (the plane's command-signing key), `controlEncryptPublicKey` (the pinned
//! plane link key; absent when unpaired), `linkSecret` (the private X25519 half, base64url, secret),
//! `linkPublic`, `identityKeyPath`, `name` and optionally `dataDir`.
//!
//! The file is created with mode 0600 from the start (never chmod-ed after a world-readable
//! moment) and replaced atomically through a temp file in the same directory.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use termplane_exec::fs::{home_dir, write_private_atomic};
use termplane_machines::jws::PublicJwk;

/// Directory name under the XDG roots.
pub const APP_DIR: &str = "termplane-node";

/// The persisted node configuration.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct NodeConfig {
    /// The plane's base URL (`http://host:port[/prefix]`).
    pub server_url: String,
    /// The node WebSocket URL the plane handed out.
    pub ws_url: String,
    /// This node's id.
    pub node_id: String,
    /// The bearer node key. Never printed.
    pub node_key: String,
    /// The plane's command-signing public key.
    pub signing_public_jwk: PublicJwk,
    /// The pinned plane link key (base64url), absent when unpaired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_encrypt_public_key: Option<String>,
    /// The private half of the node's X25519 link keypair (base64url). Never printed.
    pub link_secret: String,
    /// The public half (base64url).
    pub link_public: String,
    /// Where the P-256 identity key lives.
    pub identity_key_path: String,
    /// The node's display name.
    #[serde(default)]
    pub name: String,
    /// Data directory override (tmux socket, logs, allowlist, maintenance mirror).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<String>,
}

impl core::fmt::Debug for NodeConfig {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("NodeConfig")
            .field("server_url", &self.server_url)
            .field("ws_url", &self.ws_url)
            .field("node_id", &self.node_id)
            .field("node_key", &"<redacted>")
            .field("link_secret", &"<redacted>")
            .field("link_public", &self.link_public)
            .field("pinned", &self.control_encrypt_public_key.is_some())
            .finish_non_exhaustive()
    }
}

/// Why the config could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// IO on the named path.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// Not a valid config document.
    #[error("{path}: not a valid config file: {reason}")]
    Parse {
        /// The path.
        path: String,
        /// The reason.
        reason: String,
    },
}

fn io_err(path: &Path, source: std::io::Error) -> ConfigError {
    ConfigError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn xdg(var: &str, fallback: &[&str]) -> PathBuf {
    match std::env::var_os(var) {
        Some(v) if Path::new(&v).is_absolute() => PathBuf::from(v),
        _ => {
            let mut p = home_dir();
            for part in fallback {
                p.push(part);
            }
            p
        }
    }
}

/// `$XDG_CONFIG_HOME/termplane-node` (default `~/.config/termplane-node`).
#[must_use]
pub fn default_config_dir() -> PathBuf {
    xdg("XDG_CONFIG_HOME", &[".config"]).join(APP_DIR)
}

/// `$XDG_CONFIG_HOME/termplane-node/config.json`.
#[must_use]
pub fn default_config_path() -> PathBuf {
    default_config_dir().join("config.json")
}

/// `$XDG_DATA_HOME/termplane-node` (default `~/.local/share/termplane-node`).
#[must_use]
pub fn default_data_dir() -> PathBuf {
    xdg("XDG_DATA_HOME", &[".local", "share"]).join(APP_DIR)
}

impl NodeConfig {
    /// Reads and parses the config at `path`.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = fs::read_to_string(path).map_err(|e| io_err(path, e))?;
        serde_json::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.display().to_string(),
            reason: e.to_string(),
        })
    }

    /// Makes a file of the node's secrets that others may read (the config holds the node key
    /// and the link secret, the identity file its private key) private again (mode 0600);
    /// answers what it did, for the log, or `None` when it was private (or is not there).
    #[must_use]
    pub fn tighten(path: &Path) -> Option<String> {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = fs::metadata(path).ok()?.permissions().mode() & 0o777;
        if mode & 0o077 == 0 {
            return None;
        }
        Some(
            match fs::set_permissions(path, fs::Permissions::from_mode(0o600)) {
                Ok(()) => format!(
                    "{} was readable by others (mode {mode:03o}) and holds this node's key: set to 0600; \
                     if others could read it, rotate the node's key",
                    path.display()
                ),
                Err(e) => format!(
                    "{} is readable by others (mode {mode:03o}) and holds this node's key; \
                     it could not be set to 0600: {e}",
                    path.display()
                ),
            },
        )
    }

    /// Writes the config to `path` with mode 0600, atomically.
    pub fn save(&self, path: &Path) -> Result<(), ConfigError> {
        let text = serde_json::to_string_pretty(self).map_err(|e| ConfigError::Parse {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        write_private_atomic(path, text.as_bytes()).map_err(|e| io_err(path, e))
    }

    /// The data directory in effect.
    #[must_use]
    pub fn data_dir(&self) -> PathBuf {
        self.data_dir
            .as_deref()
            .map_or_else(default_data_dir, PathBuf::from)
    }
}

/// Derives the node WebSocket URL from a plane base URL: `http` → `ws`, `https` → `wss`,
/// path prefix kept, `/ws/node` appended.
pub fn ws_url_for(server_url: &str) -> Result<String, String> {
    let trimmed = server_url.trim_end_matches('/');
    if let Some(rest) = trimmed.strip_prefix("http://") {
        Ok(format!("ws://{rest}/ws/node"))
    } else if let Some(rest) = trimmed.strip_prefix("https://") {
        Ok(format!("wss://{rest}/ws/node"))
    } else {
        Err("the server URL must start with http:// or https://".into())
    }
}

/// Validates a plane base URL: scheme http(s), a host, no query, fragment, credentials,
/// whitespace or control characters.
pub fn validate_server_url(url: &str) -> Result<String, String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or("the server URL must start with http:// or https://")?;
    if url.len() > 2048
        || url
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || matches!(c, '?' | '#' | '@' | '\\'))
    {
        return Err("the server URL holds characters a base URL cannot have".into());
    }
    let host = rest.split('/').next().unwrap_or("");
    if host.is_empty() || host.starts_with(':') {
        return Err("the server URL has no host".into());
    }
    Ok(url.trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn ws_urls_keep_the_prefix() {
        assert_eq!(
            ws_url_for("http://h:8080/tp/").unwrap(),
            "ws://h:8080/tp/ws/node"
        );
        assert_eq!(ws_url_for("https://h").unwrap(), "wss://h/ws/node");
        assert!(ws_url_for("ftp://h").is_err());
    }

    #[test]
    fn server_urls_are_validated() {
        assert!(validate_server_url("http://127.0.0.1:3000").is_ok());
        for bad in [
            "127.0.0.1",
            "http://",
            "http://a b",
            "http://u:p@h",
            "http://h/?x",
            "javascript:x",
        ] {
            assert!(validate_server_url(bad).is_err(), "{bad}");
        }
    }
}
