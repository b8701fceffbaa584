//! Self-update: `update { version, url, sha256, force? }`.
//!
//! Steps: validate; apply the `service restart` refusals (`not supervised`, then `no service
//! definition`, then `kills panes` unless `force`); stream the download (`http://` only in this build, at most
//! [`UPDATE_DOWNLOAD_MAX_BYTES`], progress every tenth in the log) into `<binary>.download`
//! (created 0600, not executable); check the SHA-256 **before** the first
//! chmod (`digest mismatch`); chmod 0755; run it with `--version` and refuse unless it prints
//! `termplane-node <version>` (`installed binary reports a different version`); move the running
//! binary to `<binary>.previous`, write `<binary>.update-marker`, move the new one into place;
//! answer `{ ok: true, version }` and exit a moment later so the service manager restarts it.
//!
//! On the next boot, [`rollback`] restores `.previous` when the plane refuses the version (4406)
//! or the start fails; [`accept`] drops the marker after any verified non-update command or 15
//! quiet minutes.

use std::io::Read as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use termplane_proto::command::{ServiceAction, Update};
use termplane_proto::limits::UPDATE_DOWNLOAD_MAX_BYTES;

use termplane_exec::Executor;

fn sibling(binary: &Path, suffix: &str) -> PathBuf {
    let mut name = binary.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    binary.with_file_name(name)
}

/// Exit status after an installed update: non-zero, so a `Restart=on-failure` unit restarts.
pub const EXIT_AFTER_UPDATE: i32 = 75;

/// `<binary>.previous`.
#[must_use]
pub fn previous_path(binary: &Path) -> PathBuf {
    sibling(binary, ".previous")
}

/// `<binary>.update-marker`.
#[must_use]
pub fn marker_path(binary: &Path) -> PathBuf {
    sibling(binary, ".update-marker")
}

/// Checks the request's fields.
pub fn validate(u: &Update) -> Result<(), String> {
    if termplane_proto::Version::parse(&u.version).is_err() {
        return Err("update: version must be <major>.<minor>.<patch>".into());
    }
    if u.sha256.len() != 64
        || !u
            .sha256
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return Err("update: sha256 must be 64 lowercase hex digits".into());
    }
    if !(u.url.starts_with("http://") || u.url.starts_with("https://")) || u.url.len() > 2048 {
        return Err("update: url must be http(s)".into());
    }
    Ok(())
}

/// SHA-256 of a file, lowercase hex.
pub fn file_sha256(p: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(p)?;
    let mut h = Sha256::new();
    let mut buf = vec![0_u8; 64 * 1024];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(termplane_exec::util::hex(&h.finalize()))
}

/// Verifies and installs `candidate` over `binary`: digest, chmod, `--version`, `.previous`,
/// marker, rename. Nothing is made executable before the digest matched.
pub fn install_candidate(
    binary: &Path,
    candidate: &Path,
    version: &str,
    sha256: &str,
) -> Result<(), String> {
    let digest = file_sha256(candidate).map_err(|e| format!("download failed: {e}"))?;
    if digest != sha256 {
        let _ = std::fs::remove_file(candidate);
        return Err("digest mismatch".into());
    }
    std::fs::set_permissions(candidate, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("download failed: {e}"))?;
    let out = termplane_exec::util::run_bounded(
        std::process::Command::new(candidate).arg("--version"),
        Duration::from_secs(10),
        4096,
    )
    .map_err(|e| format!("installed binary reports a different version ({e})"))?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if !out.success() || text != format!("termplane-node {version}") {
        let _ = std::fs::remove_file(candidate);
        let said: String = text.chars().take(80).collect();
        return Err(if out.success() {
            format!("installed binary reports a different version (it says {said:?})")
        } else {
            "installed binary reports a different version (its --version failed)".to_owned()
        });
    }
    let prev = previous_path(binary);
    std::fs::rename(binary, &prev).map_err(|e| format!("keeping the previous binary: {e}"))?;
    let marker = json!({ "version": version, "previous": prev.to_string_lossy(), "at": termplane_exec::util::now_iso() });
    if let Err(e) = termplane_exec::fs::write_private_atomic(
        &marker_path(binary),
        marker.to_string().as_bytes(),
    ) {
        let _ = std::fs::rename(&prev, binary);
        return Err(format!("writing the update marker: {e}"));
    }
    if let Err(e) = std::fs::rename(candidate, binary) {
        let _ = std::fs::rename(&prev, binary);
        let _ = std::fs::remove_file(marker_path(binary));
        return Err(format!("installing the new binary: {e}"));
    }
    Ok(())
}

/// Whether a just-installed binary is still on probation.
#[must_use]
pub fn pending(binary: &Path) -> bool {
    marker_path(binary).exists()
}

/// Restores `<binary>.previous` if an update marker is present. Answers whether it rolled back.
pub fn rollback(binary: &Path) -> Result<bool, String> {
    if !pending(binary) {
        return Ok(false);
    }
    let prev = previous_path(binary);
    std::fs::rename(&prev, binary).map_err(|e| format!("rollback: {e}"))?;
    std::fs::remove_file(marker_path(binary)).map_err(|e| format!("rollback: {e}"))?;
    Ok(true)
}

/// What [`boot_check`] decided at start-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boot {
    /// No update is on probation.
    Normal,
    /// This is the first start of a just-installed binary: it is now on probation (the marker
    /// records the start); a verified command or 15 quiet minutes accept it.
    Probation,
    /// The just-installed binary already started once and never got accepted (it died or was
    /// killed): `.previous` was restored. The caller re-executes the restored binary.
    RolledBack,
}

/// Called once at daemon start. A marker that already records a start means the new binary
/// started before and was never accepted, which is a failed start: roll back. Otherwise the
/// start is recorded in the marker.
pub fn boot_check(binary: &Path) -> Result<Boot, String> {
    let marker = marker_path(binary);
    let Ok(text) = std::fs::read(&marker) else {
        return Ok(Boot::Normal);
    };
    let mut v: Value = serde_json::from_slice(&text).unwrap_or_else(|_| json!({}));
    if v.get("started").and_then(Value::as_bool) == Some(true) {
        return if rollback(binary)? {
            Ok(Boot::RolledBack)
        } else {
            Ok(Boot::Normal)
        };
    }
    v["started"] = Value::Bool(true);
    v["startedAt"] = Value::String(termplane_exec::util::now_iso());
    termplane_exec::fs::write_private_atomic(&marker, v.to_string().as_bytes())
        .map_err(|e| format!("recording the start in the update marker: {e}"))?;
    Ok(Boot::Probation)
}

/// Accepts the running binary: the marker goes, `.previous` stays for a manual rollback.
pub fn accept(binary: &Path) -> Result<(), String> {
    match std::fs::remove_file(marker_path(binary)) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// The `update` command, replacing `binary`.
pub fn handle(exec: &Executor, binary: &Path, u: &Update) -> Result<Value, String> {
    validate(u)?;
    let force = u.force.unwrap_or(false);
    let has_def = crate::service::definition_path(crate::service::Manager::current()).exists();
    if let Some(r) = crate::service::service_refusal(
        ServiceAction::Restart,
        force,
        crate::service::supervised(),
        has_def,
        exec.panes_running(),
    ) {
        return Err(r.into());
    }
    let candidate = sibling(binary, ".download");
    crate::logging::info(&format!("update to {}: downloading {}", u.version, u.url));
    let _ = std::fs::remove_file(&candidate);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&candidate)
        .map_err(|e| format!("download failed: {e}"))?;
    let mut next_report = 0_u64;
    let mut progress = |done: u64, total: u64| {
        if done >= next_report || done == total {
            crate::logging::info(&format!(
                "update: {done} of {total} bytes ({}%)",
                done * 100 / total.max(1)
            ));
            next_report = done + (total / 10).max(1);
        }
    };
    let fetched = termplane_runtime_smol::http::download(
        &u.url,
        &mut file,
        UPDATE_DOWNLOAD_MAX_BYTES,
        &mut progress,
    )
    .and_then(|r| file.sync_all().map(|()| r).map_err(|e| e.to_string()));
    drop(file);
    let (status, bytes) = match fetched {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_file(&candidate);
            return Err(format!("download failed: {e}"));
        }
    };
    if status != 200 {
        let _ = std::fs::remove_file(&candidate);
        return Err(format!("download failed: HTTP {status}"));
    }
    crate::logging::info(&format!("update: downloaded {bytes} bytes"));
    install_candidate(binary, &candidate, &u.version, &u.sha256)?;
    std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(1));
        crate::logging::info("update installed; exiting for the restart");
        std::process::exit(EXIT_AFTER_UPDATE);
    });
    Ok(json!({ "ok": true, "version": u.version }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn script(p: &Path, version: &str) -> String {
        let body = format!("#!/bin/sh\necho 'termplane-node {version}'\n");
        std::fs::write(p, &body).unwrap();
        termplane_exec::util::hex(&Sha256::digest(body.as_bytes()))
    }

    #[test]
    fn install_checks_digest_then_version_then_keeps_previous_and_rolls_back() {
        let d = std::env::temp_dir().join(format!("tp-upd-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let bin = d.join("termplane-node");
        script(&bin, "0.17.0");
        let cand = d.join("cand");
        // Digest mismatch: never made executable, removed.
        script(&cand, "0.18.0");
        assert_eq!(
            install_candidate(&bin, &cand, "0.18.0", &"0".repeat(64)).unwrap_err(),
            "digest mismatch"
        );
        assert!(!cand.exists());
        // Wrong version.
        let sum = script(&cand, "0.19.0");
        assert_eq!(
            install_candidate(&bin, &cand, "0.18.0", &sum).unwrap_err(),
            "installed binary reports a different version (it says \"termplane-node 0.19.0\")"
        );
        // Good.
        let sum = script(&cand, "0.18.0");
        install_candidate(&bin, &cand, "0.18.0", &sum).unwrap();
        assert!(pending(&bin));
        assert!(std::fs::read_to_string(&bin).unwrap().contains("0.18.0"));
        assert!(
            std::fs::read_to_string(previous_path(&bin))
                .unwrap()
                .contains("0.17.0")
        );
        assert!(rollback(&bin).unwrap());
        assert!(std::fs::read_to_string(&bin).unwrap().contains("0.17.0"));
        assert!(!pending(&bin));
        assert!(!rollback(&bin).unwrap());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn update_fields_are_validated() {
        let ok = Update {
            version: "1.2.3".into(),
            url: "http://h/x".into(),
            sha256: "a".repeat(64),
            force: None,
        };
        assert!(validate(&ok).is_ok());
        assert!(
            validate(&Update {
                sha256: "A".repeat(64),
                ..ok.clone()
            })
            .is_err()
        );
        assert!(
            validate(&Update {
                version: "x".into(),
                ..ok.clone()
            })
            .is_err()
        );
        assert!(
            validate(&Update {
                url: "file:///x".into(),
                ..ok
            })
            .is_err()
        );
    }
}
