//! Enrollment: multiplexer check, keys, `POST {server}/api/nodes/enroll`, config file.
//!
//! Request body (the plane's field names): `setupKey`, `name`, `os`, `arch`, `hostname`,
//! `agentVersion`, `identityJwk` (P-256 public JWK), `encryptPublicKey` (X25519, base64url).
//! Response: `nodeId`, `nodeKey`, `signingPublicJwk`, `controlEncryptPublicKey`, `wsUrl`.

use std::path::Path;

use serde_json::{Value, json};
use termplane_machines::jws::PublicJwk;
use termplane_proto::Key32;

use crate::config::{NodeConfig, validate_server_url};
use crate::identity;

/// What `enroll` needs.
#[derive(Debug, Clone)]
pub struct EnrollArgs {
    /// Plane base URL.
    pub server: String,
    /// `nsk_…` setup key.
    pub setup_key: String,
    /// Node name (defaults to the hostname).
    pub name: Option<String>,
    /// Config file to write.
    pub config_path: std::path::PathBuf,
    /// Multiplexer binary to check (`tmux`).
    pub tmux: String,
    /// Replace a config that is already there (`--force`).
    pub force: bool,
}

/// The `os` value the plane knows.
#[must_use]
pub fn os_name() -> &'static str {
    match std::env::consts::OS {
        "linux" => "linux",
        "macos" => "darwin",
        _ => "unknown",
    }
}

/// The machine's hostname (`/proc/sys/kernel/hostname`, `$HOSTNAME`, `uname -n`).
#[must_use]
pub fn hostname() -> String {
    let from_proc = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    from_proc
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|s| !s.is_empty()))
        .or_else(|| {
            std::process::Command::new("uname")
                .arg("-n")
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// How to install tmux here.
#[must_use]
pub fn tmux_install_hint() -> &'static str {
    if cfg!(target_os = "macos") {
        "install it with `brew install tmux`"
    } else {
        "install it with `sudo apt-get install tmux` (Debian/Ubuntu), `sudo dnf install tmux` (Fedora) or your distribution's package manager"
    }
}

/// Checks that `tmux -V` answers; returns its version text.
pub fn check_tmux(tmux: &str) -> Result<String, String> {
    let out = termplane_exec::util::run_bounded(
        std::process::Command::new(tmux).arg("-V"),
        std::time::Duration::from_secs(5),
        4096,
    );
    match out {
        Ok(b) if b.success() => Ok(String::from_utf8_lossy(&b.stdout).trim().to_owned()),
        _ => Err(format!(
            "tmux was not found (termplane-node runs panes under tmux): {}",
            tmux_install_hint()
        )),
    }
}

/// Refuses a config path that is a directory, or that already holds a config unless `force`
/// (enrolling again would replace the identity of a node whose daemon may be running), and
/// even with `force` while the daemon of the config there is running: it would go on as the
/// old node beside a config that names the new one.
fn check_config_path(path: &Path, force: bool) -> Result<(), String> {
    let p = path.display();
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Err(format!("{p} is a directory: name a file with --config")),
        Ok(_) if !force => Err(format!(
            "{p} already holds a node's config: enrolling again would replace this node's \
             identity. Stop its daemon and enroll with --force, or name another file with --config"
        )),
        Ok(_) => match crate::config::NodeConfig::load(path)
            .ok()
            .and_then(|old| crate::link::running_daemon(&old.data_dir()))
        {
            Some(pid) => Err(format!(
                "the daemon of the node {p} names is running (pid {pid}): stop it first \
                 (`termplane-node service stop`, or end its `run`), then enroll with --force"
            )),
            None => Ok(()),
        },
        Err(_) => Ok(()),
    }
}

/// `wsUrl` as a node can dial it: a plane listening on every address (`0.0.0.0`, `[::]`) with
/// no public address configured answers a `wsUrl` with that host, which a node would dial as
/// itself; the host and port the node reached the plane at (`server`) are used instead.
fn usable_ws_url(ws_url: &str, server: &str) -> String {
    let Some((scheme, rest)) = ws_url.split_once("://") else {
        return ws_url.to_owned();
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = authority.rsplit_once(':').map_or(authority, |(h, p)| {
        if p.chars().all(|c| c.is_ascii_digit()) {
            h
        } else {
            authority
        }
    });
    let Some((server_scheme, server_rest)) = server.split_once("://") else {
        return ws_url.to_owned();
    };
    let server_authority = server_rest.split('/').next().unwrap_or(server_rest);
    let server_host = server_authority
        .rsplit_once(':')
        .map_or(server_authority, |(h, p)| {
            if p.chars().all(|c| c.is_ascii_digit()) {
                h
            } else {
                server_authority
            }
        });
    let loopback = |h: &str| {
        h == "localhost" || h.ends_with(".localhost") || h.starts_with("127.") || h == "[::1]"
    };
    // Every address, or this machine's own loopback when the node reached the plane through
    // another host (a plane that calls itself localhost, listening on every address).
    let unusable = matches!(host, "0.0.0.0" | "[::]" | "[0:0:0:0:0:0:0:0]")
        || (loopback(host) && !loopback(server_host));
    if !unusable {
        return ws_url.to_owned();
    }
    let ws_scheme = if server_scheme == "https" || scheme == "wss" {
        "wss"
    } else {
        "ws"
    };
    format!("{ws_scheme}://{server_authority}{path}")
}

/// Runs the whole procedure; returns the written config.
pub fn enroll(args: &EnrollArgs) -> Result<NodeConfig, String> {
    check_tmux(&args.tmux)?;
    let server = validate_server_url(&args.server)?;
    if !args.setup_key.starts_with("nsk_") || args.setup_key.len() > 256 {
        return Err("the setup key must start with nsk_".into());
    }
    let host = hostname();
    let name = args.name.clone().unwrap_or_else(|| host.clone());
    if name.is_empty() || name.chars().count() > termplane_proto::limits::NODE_NAME_MAX_CHARS {
        return Err("the node name must be 1 to 64 characters".into());
    }
    let config_dir = args
        .config_path
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .to_path_buf();
    check_config_path(&args.config_path, args.force)?;
    termplane_exec::fs::ensure_private_dir(&config_dir)
        .map_err(|e| format!("{}: {e}", config_dir.display()))?;
    // The config must be writable before the setup key is spent on the plane.
    let probe = args.config_path.with_extension("enrolling");
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|e| format!("cannot write beside {}: {e}", args.config_path.display()))?;
    let _ = std::fs::remove_file(&probe);
    let identity_path = config_dir.join("identity.jwk");
    let had_identity = identity_path.exists();
    let id = identity::load_or_create(&identity_path).map_err(|e| e.to_string())?;
    let result = enroll_with(args, server, name, host, &identity_path, &id);
    if result.is_err() && !had_identity {
        // A refused enrollment leaves nothing behind: the identity made for it goes too.
        let _ = std::fs::remove_file(&identity_path);
    }
    result
}

fn enroll_with(
    args: &EnrollArgs,
    server: String,
    name: String,
    host: String,
    identity_path: &Path,
    id: &identity::Identity,
) -> Result<NodeConfig, String> {
    let link = identity::new_link_keypair().map_err(|e| e.to_string())?;
    let body = json!({
        "setupKey": args.setup_key,
        "name": name,
        "os": os_name(),
        "arch": std::env::consts::ARCH,
        "hostname": host,
        "agentVersion": env!("CARGO_PKG_VERSION"),
        "identityJwk": id.public_jwk(),
        "encryptPublicKey": link.public().to_b64(),
    });
    let resp = termplane_runtime_smol::http::request(
        "POST",
        &format!("{server}/api/nodes/enroll"),
        Some("application/json"),
        body.to_string().as_bytes(),
        1 << 20,
    )?;
    let v: Value = serde_json::from_slice(&resp.body).unwrap_or(Value::Null);
    if !(200..300).contains(&resp.status) {
        let code = v.get("code").and_then(Value::as_str).unwrap_or("");
        let msg = v
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message");
        // An answer without the plane's error body is not the plane's.
        let hint = if code.is_empty() || resp.status == 404 {
            format!(" — is {server} the address of a termplane plane (its base URL, no path)?")
        } else {
            String::new()
        };
        let status = if code.is_empty() {
            resp.status.to_string()
        } else {
            format!("{} {code}", resp.status)
        };
        return Err(format!("enrollment refused (HTTP {status}): {msg}{hint}"));
    }
    let field = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("the enrollment answer lacks `{k}`"))
    };
    let signing: PublicJwk = v
        .get("signingPublicJwk")
        .cloned()
        .and_then(|j| serde_json::from_value(j).ok())
        .ok_or("the enrollment answer lacks a valid `signingPublicJwk`")?;
    let pin = match v.get("controlEncryptPublicKey") {
        Some(Value::String(s)) => {
            let key = Key32::from_b64(s).map_err(|e| format!("controlEncryptPublicKey: {e}"))?;
            // A low-order key is never pinned: without a pin the first connect registers.
            (!termplane_machines::kx::is_low_order(&key)).then(|| key.to_b64())
        }
        _ => None,
    };
    let mut secret = link.secret_bytes();
    let ws_url = usable_ws_url(&field("wsUrl")?, &server);
    let cfg = NodeConfig {
        server_url: server,
        ws_url,
        node_id: field("nodeId")?,
        node_key: field("nodeKey")?,
        signing_public_jwk: signing,
        control_encrypt_public_key: pin,
        link_secret: termplane_proto::key::b64url_encode(&secret),
        link_public: link.public().to_b64(),
        identity_key_path: identity_path.display().to_string(),
        name,
        data_dir: None,
    };
    zeroize::Zeroize::zeroize(&mut secret);
    cfg.save(&args.config_path)
        .map_err(|e| format!("{}: {e}", args.config_path.display()))?;
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_ws_url_on_every_address_is_dialled_where_the_node_reached_the_plane() {
        let cases = [
            (
                "ws://0.0.0.0:7420/ws/node",
                "http://192.0.2.2:7420",
                "ws://192.0.2.2:7420/ws/node",
            ),
            (
                "ws://[::]:7420/ws/node",
                "http://plane.example:7420",
                "ws://plane.example:7420/ws/node",
            ),
            (
                "ws://0.0.0.0:7420/ws/node",
                "https://plane.example",
                "wss://plane.example/ws/node",
            ),
            (
                "ws://plane.example:7420/ws/node",
                "http://10.0.0.2:7420",
                "ws://plane.example:7420/ws/node",
            ),
            (
                "wss://plane.example/ws/node",
                "https://other.example",
                "wss://plane.example/ws/node",
            ),
            (
                "ws://localhost:7420/ws/node",
                "http://127.0.0.1:7420",
                "ws://localhost:7420/ws/node",
            ),
            // A plane that calls itself localhost, reached from another machine.
            (
                "ws://localhost:7420/ws/node",
                "http://192.0.2.2:7420",
                "ws://192.0.2.2:7420/ws/node",
            ),
            (
                "ws://127.0.0.1:7420/ws/node",
                "http://plane.lan:7420",
                "ws://plane.lan:7420/ws/node",
            ),
            (
                "ws://[::1]:7420/ws/node",
                "http://localhost:7420",
                "ws://[::1]:7420/ws/node",
            ),
        ];
        for (ws, server, want) in cases {
            assert_eq!(usable_ws_url(ws, server), want, "{ws} via {server}");
        }
    }

    #[test]
    fn a_config_path_that_is_a_directory_or_holds_a_config_is_refused_before_anything_is_sent() {
        let dir = std::env::temp_dir().join(format!("tp-enroll-path-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("config.json")).unwrap();
        let e = check_config_path(&dir.join("config.json"), true).unwrap_err();
        assert!(e.contains("is a directory"), "{e}");
        std::fs::write(dir.join("node.json"), b"{}").unwrap();
        let e = check_config_path(&dir.join("node.json"), false).unwrap_err();
        assert!(e.contains("--force"), "{e}");
        assert!(check_config_path(&dir.join("node.json"), true).is_ok());
        assert!(check_config_path(&dir.join("new.json"), false).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
