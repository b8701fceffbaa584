//! Launching a pane: the MCP registration file, the pane's environment, the log attached
//! before the program starts (the FIFO gate), config isolation and the resume pin.
//!
//! # Config isolation and the resume pin
//!
//! `preset.configIsolation` gives the harness a private configuration directory,
//! `<dataDir>/harness-config/<harnessId>/` (mode 0700, kept across launches so a harness's own
//! sign-in survives), instead of the user's own dotfiles. The pane gets
//! `TERMPLANE_CONFIG_DIR` naming it, the XDG base directories under it (`XDG_CONFIG_HOME`,
//! `XDG_DATA_HOME`, `XDG_STATE_HOME`, `XDG_CACHE_HOME`) and the harness-specific homes that the
//! common harnesses read (`CLAUDE_CONFIG_DIR` for Claude Code, `CODEX_HOME` for Codex,
//! `GEMINI_CLI_HOME` for Gemini CLI, which keeps its `.gemini` folder there; opencode follows
//! the XDG directories); `HOME` is left alone so that the shell, git and ssh keep working. A
//! variable the preset's own `env` sets wins. The `harnessId` must then be a plain name
//! (letters, digits, `.`, `_`, `-`; at most 64; not `.` or `..`). `preset.settings` stays
//! opaque to the node.
//!
//! # The MCP registration
//!
//! The registration file is written (0600) before the pane starts; the answer says whether it
//! and every directory above it belong to root and are writable by no one else
//! (`mcpFileRootOnly`), which a harness that reads MCP servers only from files an administrator
//! placed asks of it. With config isolation, a registration may also name an entry to set in the
//! harness's own JSON settings file in its isolated directory (`settingsEntry`), for a harness
//! whose settings an ordinary user can only extend there; that file keeps everything else it
//! holds. Up to eight more entries (`settingsEntries`: the harness's hooks) are set the same
//! way after it; a launch with more is refused before anything is written. An entry that cannot
//! be set does not stop the launch: the answer's `mcpWarning` says why.
//!
//! The resume pin is the harness session the pane resumes. The plane places the harness's own
//! resume arguments in `argv`; the node checks the pin (1 to 256 of letters, digits, `.`, `_`,
//! `:`, `-`), refuses the launch otherwise, exports it as `TERMPLANE_RESUME_ID`, logs it and
//! echoes it in the answer.

use super::*;

impl Executor {
    /// The directory of the panes' MCP registration files: `<dataDir>/mcp`.
    #[must_use]
    pub fn registrations_dir(&self) -> PathBuf {
        self.cfg.data_dir.join("mcp")
    }

    /// Writes a launch's MCP registration file (it holds the pane's token). A file directly in
    /// [`Self::registrations_dir`] — where the plane puts them, under the data directory the
    /// node named in `ready` — is written there whatever the path policy allows (the directory
    /// is made 0700 on first use, the file is 0600, written through a fresh temporary file and
    /// renamed into place); its name must be one plain component. Any other path is written
    /// under the path policy, like every file the plane names.
    pub(crate) fn write_registration(&self, path: &str, content: &[u8]) -> Result<(), String> {
        let own = self.registrations_dir();
        let p = Path::new(path);
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if p.parent() != Some(own.as_path()) {
            return self.policy().write_private_file(path, content);
        }
        let plain = !name.is_empty()
            && name.len() <= 128
            && !name.starts_with('.')
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-');
        if !plain {
            return Err(format!("{path}: not a plain file name"));
        }
        crate::fs::ensure_private_dir(&own).map_err(|e| format!("{}: {e}", own.display()))?;
        let meta =
            std::fs::symlink_metadata(&own).map_err(|e| format!("{}: {e}", own.display()))?;
        if !meta.is_dir() {
            return Err(format!("{}: not a directory", own.display()));
        }
        crate::fs::write_private_atomic(p, content).map_err(|e| format!("{path}: {e}"))
    }

    pub(crate) fn launch(&self, l: &Launch) -> Result<Value, String> {
        if self.in_maintenance() {
            return Err("in maintenance".into());
        }
        if !(1..=1000).contains(&l.cols) || !(1..=1000).contains(&l.rows) {
            return Err("cols and rows must be 1 to 1,000".into());
        }
        if l.argv.is_empty() || l.argv.len() > 1024 {
            return Err("argv must hold 1 to 1,024 words".into());
        }
        if l.argv.iter().any(|a| a.contains('\0')) {
            return Err("argv holds a NUL byte".into());
        }
        let cwd = self.policy().resolve_dir(&l.cwd)?;
        let mut binary_path = None;
        let mut argv = l.argv.clone();
        if argv.iter().any(|a| a == HARNESS_BINARY_PLACEHOLDER) {
            let bin = resolve_binary(&l.resolve, &self.cfg.home_dir)
                .ok_or_else(|| format!("harness binary {:?} not found", l.resolve.binary_name))?;
            let s = bin.to_string_lossy().into_owned();
            for a in &mut argv {
                if a == HARNESS_BINARY_PLACEHOLDER {
                    a.clone_from(&s);
                }
            }
            binary_path = Some(s);
        }
        if let Some(pin) = &l.resume
            && !valid_resume_pin(pin)
        {
            return Err(
                "invalid resume pin: 1 to 256 of letters, digits, '.', '_', ':', '-'".into(),
            );
        }
        let isolation = if l.preset.config_isolation {
            Some(self.isolated_config(&l.harness_id)?)
        } else {
            None
        };
        let mut env: BTreeMap<&str, &str> = BTreeMap::new();
        if let Some((_, vars)) = &isolation {
            for (k, v) in vars {
                env.insert(k, v);
            }
        }
        if let Some(pin) = &l.resume {
            env.insert("TERMPLANE_RESUME_ID", pin);
        }
        let mcp_env = l.mcp.as_ref().map(|m| &m.env);
        for (k, v) in l
            .preset
            .env
            .iter()
            .chain(mcp_env.into_iter().flatten())
            .chain(l.credential_env.iter())
        {
            if !valid_env_name(k) || v.contains('\0') {
                return Err(format!("invalid environment entry {k:?}"));
            }
            env.insert(k, v);
        }
        let mut mcp_warning = None;
        let mut mcp_root_only = None;
        if let Some(m) = &l.mcp {
            if m.settings_entries.len() > termplane_proto::command::MAX_SETTINGS_ENTRIES {
                return Err(format!(
                    "at most {} settings entries",
                    termplane_proto::command::MAX_SETTINGS_ENTRIES
                ));
            }
            self.write_registration(&m.path, m.file_content.as_bytes())
                .map_err(|e| format!("mcp registration file: {e}"))?;
            mcp_root_only = Some(root_only(Path::new(&m.path)));
            let inside = isolation.as_ref().map(|(dir, _)| dir.as_path());
            if let Some(entry) = &m.settings_entry
                && let Err(e) = set_settings_entry(entry, &env, inside)
            {
                mcp_warning = Some(format!(
                    "the MCP server is not registered in the harness's settings: {e}"
                ));
            }
            for entry in &m.settings_entries {
                if let Err(e) = set_settings_entry(entry, &env, inside) {
                    // The pane runs without the harness's hooks; its page says so.
                    mcp_warning.get_or_insert(format!(
                        "the harness's hooks are not set in its settings: {e}"
                    ));
                }
            }
        }
        self.tmux.start_server().map_err(|e| tmux_err(&e))?;
        self.deaths
            .watch(self.tmux.wait_for_maker(crate::deaths::CHANNEL));
        // From the dead-pane check until the new pane is tracked, no exit tick runs.
        let hold = self.exits.hold();
        // A dead pane of an earlier run is cleared; a live one is refused.
        match self
            .tmux
            .query(&pane_target(&l.subshell_id), "#{pane_dead}")
        {
            Ok(d) if d.trim() == "0" => return Err("subshell already running".into()),
            Ok(_) => {
                let _ = self.tmux.run(&[
                    "kill-session",
                    "-t",
                    session_target(&l.subshell_id).as_str(),
                ]);
            }
            Err(_) => {}
        }
        let log = self.log_path(&l.subshell_id);
        crate::fs::ensure_private_dir(&self.logs_dir()).map_err(|e| e.to_string())?;
        let recorded = l.recording != Some(false) && self.cfg.recorder.is_some();
        if recorded {
            crate::fs::ensure_private_dir(&self.recordings_dir()).map_err(|e| e.to_string())?;
        }
        crate::fs::ensure_private_dir(self.exits.dir()).map_err(|e| e.to_string())?;
        match std::fs::remove_file(events::exit_file(self.exits.dir(), &l.subshell_id)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!("stale exit file: {e}"));
            }
            _ => {}
        }
        // The log is created private (0600) before `cat` appends to it: what a pane prints is
        // its owner's alone, whatever the umask the tmux server runs with.
        {
            use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
            let f = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .mode(0o600)
                .custom_flags(libc_o_nofollow())
                .open(&log)
                .map_err(|e| format!("pane log: {e}"))?;
            f.set_permissions(std::fs::Permissions::from_mode(0o600))
                .map_err(|e| format!("pane log: {e}"))?;
        }
        // The recorder writes the log within its cap, and its timing when the pane is
        // recorded (see `recording`); `cat` logs a pane whose recorder is not there (a binary
        // replaced and not yet back, say).
        let quoted_log = tmux::shell_quote_for_pipe(&log.to_string_lossy());
        let pipe = match self.cfg.recorder.as_ref() {
            Some(bin) => {
                let timing = self.timing_path(&l.subshell_id);
                let args = crate::recording::command_args(
                    &log,
                    recorded.then_some(timing.as_path()),
                    self.cfg.log_limits,
                );
                let args: Vec<String> =
                    args.iter().map(|a| tmux::shell_quote_for_pipe(a)).collect();
                let bin = tmux::shell_quote_for_pipe(&bin.to_string_lossy());
                format!(
                    "if [ -x {bin} ]; then exec {bin} {}; fi; exec cat >> {quoted_log}",
                    args.join(" ")
                )
            }
            None => format!("exec cat >> {quoted_log}"),
        };
        if recorded {
            self.record_grid(&l.subshell_id, l.cols, l.rows, true);
        }
        // The wrapper waits on a FIFO gate until the log is attached. The node holds the FIFO
        // open for reading and writing, so neither end blocks on open; a node that dies before
        // writing closes it, and the wrapper then goes ahead (EOF) rather than hanging.
        let gate_path = self
            .exits
            .dir()
            .join(format!("{}.gate", l.subshell_id.as_str()));
        let _ = std::fs::remove_file(&gate_path);
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &gate_path,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .map_err(|e| format!("launch gate: {e}"))?;
        let gate = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&gate_path)
            .map_err(|e| format!("launch gate: {e}"))?;
        // Opening the gate: the line goes into the FIFO at once, and the node's end stays open
        // until the wrapper has taken it (it removes the FIFO), for at most GATE_HOLD: a FIFO's
        // content is dropped when its last descriptor closes.
        let open_gate = |gate: std::fs::File, path: PathBuf| {
            let _ = std::io::Write::write_all(&mut &gate, b"go\n");
            let _ = std::thread::Builder::new()
                .name("launch-gate".into())
                .spawn(move || {
                    wait_removed(&path, Instant::now() + GATE_HOLD);
                    drop(gate);
                    let _ = std::fs::remove_file(&path);
                });
        };
        // One tmux invocation creates the session and attaches the pane log, and the pane's
        // program starts only after that (the gate).
        let mut c = self.tmux.command();
        c.current_dir(&cwd);
        c.args(["new-session", "-d", "-s"])
            .arg(session_name(&l.subshell_id))
            .arg("-x")
            .arg(l.cols.to_string())
            .arg("-y")
            .arg(l.rows.to_string())
            .args(["-P", "-F", "#{pane_id}"]);
        for (k, v) in &env {
            c.arg("-e").arg(tmux::literal_arg(&format!("{k}={v}")));
        }
        // The pane runs the argv under the exit-status wrapper (several words, so tmux execs
        // /bin/sh directly and never hands a single word to `sh -c`).
        let exit_file = events::exit_file(self.exits.dir(), &l.subshell_id);
        c.args(["--", "/bin/sh", "-c", PANE_WRAPPER, "termplane-pane"])
            .arg(tmux::literal_arg(&exit_file.to_string_lossy()))
            .arg(tmux::literal_arg(&gate_path.to_string_lossy()))
            .arg(tmux::literal_arg(self.tmux.bin()))
            .arg(tmux::literal_arg(&self.tmux.socket().to_string_lossy()));
        c.args(argv.iter().map(|a| tmux::literal_arg(a)));
        c.arg(";")
            .args(["pipe-pane", "-o", "-t"])
            .arg(pane_target(&l.subshell_id))
            .arg(tmux::literal_arg(&pipe));
        let spawned = self.tmux.run_command_output(&mut c);
        let Ok((out, verdict)) = spawned else {
            let _ = std::fs::remove_file(&gate_path);
            return Err(format!(
                "launch failed: {}",
                spawned.err().map(|e| e.to_string()).unwrap_or_default()
            ));
        };
        let pane = out.trim().to_owned();
        if !tmux::is_pane_id(&pane) {
            let _ = std::fs::remove_file(&gate_path);
            return Err(match verdict {
                Err(e) => format!("launch failed: {e}"),
                Ok(()) => "launch failed: tmux answered no pane id".into(),
            });
        }
        self.exits.track(&l.subshell_id);
        drop(hold);
        let mut note = None;
        if let Err(e) = verdict {
            if l.best_effort_log {
                note = Some(format!("pane log not attached: {e}"));
            } else {
                let _ = self.tmux.run(&[
                    "kill-session",
                    "-t",
                    session_target(&l.subshell_id).as_str(),
                ]);
                let _ = std::fs::remove_file(&gate_path);
                return Err(format!("pane log could not be attached: {e}"));
            }
        }
        open_gate(gate, gate_path);
        let pid: Option<u32> = self
            .tmux
            .query(&pane, "#{pane_pid}")
            .ok()
            .and_then(|p| p.trim().parse().ok());
        self.log(
            Level::Info,
            &format!(
                "launched {} ({}) in {} flags={:?} resume={} isolated={}",
                l.subshell_id,
                l.harness_id,
                cwd.display(),
                l.preset.flags,
                l.resume.as_deref().unwrap_or("-"),
                isolation.is_some()
            ),
        );
        let mut v = json!({
            "session": session_name(&l.subshell_id),
            "pane": pane,
            "pid": pid,
            "logPath": log.to_string_lossy(),
            // On this node's clock, like an `exit` event's `at`: an exit seen at or before this
            // instant is an earlier incarnation's (see the plane's `apply_exit`).
            "startedAt": crate::util::now_iso(),
        });
        if let Some(b) = binary_path {
            v["binaryPath"] = json!(b);
        }
        if let Some((dir, _)) = &isolation {
            v["configDir"] = json!(dir.to_string_lossy());
        }
        if let Some(pin) = &l.resume {
            v["resume"] = json!(pin);
        }
        if let Some(n) = note {
            v["note"] = json!(n);
        }
        if let Some(r) = mcp_root_only {
            v["mcpFileRootOnly"] = json!(r);
        }
        if let Some(w) = mcp_warning {
            self.log(Level::Warn, &format!("{}: {w}", l.subshell_id));
            v["mcpWarning"] = json!(w);
        }
        Ok(v)
    }

    /// The private configuration directory of a harness and the environment that points the
    /// harness at it (see the module docs).
    pub(crate) fn isolated_config(
        &self,
        harness_id: &str,
    ) -> Result<(PathBuf, IsolationEnv), String> {
        if !valid_harness_dir_name(harness_id) {
            return Err(format!(
                "config isolation needs a plain harnessId (letters, digits, '.', '_', '-'), not {harness_id:?}"
            ));
        }
        let root = self.cfg.data_dir.join("harness-config");
        crate::fs::ensure_private_dir(&root).map_err(|e| format!("config isolation: {e}"))?;
        let dir = root.join(harness_id);
        crate::fs::ensure_private_dir(&dir).map_err(|e| format!("config isolation: {e}"))?;
        let sub = |name: &str| dir.join(name).to_string_lossy().into_owned();
        let vars = vec![
            ("TERMPLANE_CONFIG_DIR", dir.to_string_lossy().into_owned()),
            ("XDG_CONFIG_HOME", sub("config")),
            ("XDG_DATA_HOME", sub("data")),
            ("XDG_STATE_HOME", sub("state")),
            ("XDG_CACHE_HOME", sub("cache")),
            ("CLAUDE_CONFIG_DIR", sub("claude")),
            ("CODEX_HOME", sub("codex")),
            ("GEMINI_CLI_HOME", sub("gemini")),
        ];
        for (k, v) in &vars {
            if *k != "TERMPLANE_CONFIG_DIR" {
                crate::fs::ensure_private_dir(Path::new(v))
                    .map_err(|e| format!("config isolation: {k}: {e}"))?;
            }
        }
        Ok((dir, vars))
    }
}

/// Whether `path` and every directory above it (symlinks followed) belong to root and are
/// writable by no one else — what a harness that trusts only files an administrator placed
/// (Gemini CLI's system settings) asks of a file before it reads it.
fn root_only(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(real) = std::fs::canonicalize(path) else {
        return false;
    };
    real.ancestors()
        .all(|p| std::fs::metadata(p).is_ok_and(|m| m.uid() == 0 && m.mode() & 0o022 == 0))
}

/// Sets `entry` in the harness's JSON settings file (see `SettingsEntry`): the directory named
/// by the pane's `entry.dirEnv` must lie inside `isolated` (the harness's isolated
/// configuration directory); the file's other contents are kept, and it is written whole
/// through a temporary file, 0600.
fn set_settings_entry(
    entry: &termplane_proto::command::SettingsEntry,
    env: &BTreeMap<&str, &str>,
    isolated: Option<&Path>,
) -> Result<(), String> {
    let Some(isolated) = isolated else {
        return Err("it needs config isolation".into());
    };
    let plain = |c: &str| !c.is_empty() && c != "." && c != ".." && !c.contains('\0');
    let dir = env
        .get(entry.dir_env.as_str())
        .map(PathBuf::from)
        .ok_or_else(|| format!("{} is not set", entry.dir_env))?;
    let under = dir
        .strip_prefix(isolated)
        .map_err(|_| format!("{} is outside the isolated configuration", entry.dir_env))?;
    let rel = Path::new(&entry.file);
    let all_plain = |p: &Path| {
        p.components().all(|c| match c {
            std::path::Component::Normal(n) => n.to_str().is_some_and(plain),
            _ => false,
        })
    };
    if !all_plain(under)
        || entry.file.is_empty()
        || rel.components().count() > 8
        || !all_plain(rel)
        || entry.keys.is_empty()
        || entry.keys.len() > 8
    {
        return Err("the settings entry names no plain file or key".into());
    }
    let file = dir.join(rel);
    let mut doc = match std::fs::read(&file) {
        Ok(bytes) => serde_json::from_slice::<Value>(&bytes)
            .ok()
            .filter(Value::is_object)
            .ok_or_else(|| format!("{} is not a JSON object", file.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) => return Err(format!("{}: {e}", file.display())),
    };
    let mut at = &mut doc;
    for key in &entry.keys[..entry.keys.len() - 1] {
        let obj = at
            .as_object_mut()
            .ok_or_else(|| format!("{}: {key} is not an object", file.display()))?;
        at = obj.entry(key.clone()).or_insert_with(|| json!({}));
    }
    let last = entry.keys.last().cloned().unwrap_or_default();
    at.as_object_mut()
        .ok_or_else(|| format!("{}: {last} is not in an object", file.display()))?
        .insert(last, entry.value.clone());
    let text = serde_json::to_vec_pretty(&doc).map_err(|e| e.to_string())?;
    crate::fs::write_private_atomic(&file, &text).map_err(|e| format!("{}: {e}", file.display()))
}

/// `O_NOFOLLOW`: a pane log that is a symlink is refused, not followed.
fn libc_o_nofollow() -> i32 {
    i32::try_from(rustix::fs::OFlags::NOFOLLOW.bits()).unwrap_or(0)
}

/// Waits until `path` is removed (the wrapper took its line and removed the gate), woken by
/// inotify, or until `deadline`. Without inotify, it waits for the deadline.
fn wait_removed(path: &Path, deadline: Instant) {
    use rustix::fs::inotify::WatchFlags;
    // Watched before the look below: a removal between the two still wakes the wait. The
    // removal is an attribute change (the link count) at once; the deletion itself comes only
    // once the last descriptor is closed, and the caller holds one.
    let Some(mut watch) = crate::fs::Watch::new(path, WatchFlags::ATTRIB | WatchFlags::DELETE_SELF)
    else {
        if path.exists() {
            // No inotify here: the deadline is all there is to wait for.
            std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
        }
        // Otherwise gone already (or never made).
        return;
    };
    while path.exists() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        watch.wait(left);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::root_only;
    use std::path::Path;

    #[test]
    fn a_file_is_root_only_when_root_owns_it_and_every_folder_above_alone() {
        assert!(root_only(Path::new("/etc/passwd")));
        assert!(root_only(Path::new("/")));
        // The temporary directory is writable by anyone.
        let f = std::env::temp_dir().join(format!("root-only-{}", std::process::id()));
        std::fs::write(&f, "x").unwrap();
        assert!(!root_only(&f));
        std::fs::remove_file(&f).unwrap();
        assert!(!root_only(Path::new("/no/such/file")));
    }
}
