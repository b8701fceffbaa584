//! The node daemon as the executor's [`Host`]: its log lines go to [`crate::logging`], and the
//! commands about the daemon itself act on its service definition, binary, config file and log.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use termplane_proto::command::{
    AgentLogRead, LogLevel, Service, ServiceAction, SetLogLevel, SetServerUrl, Update,
};

use crate::logging;
use termplane_exec::{Executor, Host, Level, Log, read_range};

/// The daemon's own files.
#[derive(Clone, Debug)]
pub struct NodeHost {
    /// The config file `set_server_url` rewrites (`None`: this node has none to rewrite; the
    /// service definition then names the default config path).
    pub config_path: Option<PathBuf>,
    /// The daemon's own log (`agent_log_read`).
    pub log_path: PathBuf,
    /// The daemon's binary (service definition, update).
    pub binary_path: PathBuf,
}

impl NodeHost {
    /// The daemon of data directory `data_dir`: its log there, this process's binary, no config
    /// file.
    #[must_use]
    pub fn new(data_dir: &Path) -> Self {
        Self {
            config_path: None,
            log_path: data_dir.join("node.log"),
            binary_path: std::env::current_exe()
                .unwrap_or_else(|_| PathBuf::from("termplane-node")),
        }
    }
}

impl Log for NodeHost {
    fn log(&self, level: Level, message: &str) {
        match level {
            Level::Debug => logging::debug(message),
            Level::Info => logging::info(message),
            Level::Warn => logging::warn(message),
        }
    }
}

impl Host for NodeHost {
    fn service(&self, exec: &Executor, cmd: &Service) -> Result<Value, String> {
        use crate::service::{
            Action, Manager, definition_path, perform, service_refusal, supervised,
        };
        let has_def = definition_path(Manager::current()).exists();
        if let Some(r) = service_refusal(
            cmd.action,
            cmd.force,
            supervised(),
            has_def,
            exec.panes_running(),
        ) {
            return Err(r.into());
        }
        let a = match cmd.action {
            ServiceAction::Install => Action::Install,
            ServiceAction::Uninstall => Action::Uninstall,
            ServiceAction::Start => Action::Start,
            ServiceAction::Stop => Action::Stop,
            ServiceAction::Restart => Action::Restart,
        };
        let binary = self.binary_path.clone();
        let config = self
            .config_path
            .clone()
            .unwrap_or_else(crate::config::default_config_path);
        let log = self.log_path.clone();
        if supervised()
            && has_def
            && matches!(a, Action::Stop | Action::Restart | Action::Uninstall)
        {
            // These end this very process: answer first, act a moment later. (With no
            // definition left, `uninstall` is a no-op, answered at once.)
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(500));
                if let Err(e) = perform(a, &binary, &config, &log) {
                    logging::warn(&format!("service {a:?}: {e}"));
                }
            });
            return Ok(json!({ "action": format!("{a:?}").to_lowercase(), "scheduled": true }));
        }
        let done = perform(a, &binary, &config, &log)?;
        Ok(json!({ "action": format!("{a:?}").to_lowercase(), "done": done }))
    }

    fn update(&self, exec: &Executor, cmd: &Update) -> Result<Value, String> {
        crate::update::handle(exec, &self.binary_path, cmd)
    }

    fn set_server_url(&self, _exec: &Executor, cmd: &SetServerUrl) -> Result<Value, String> {
        let url = crate::config::validate_server_url(&cmd.url)?;
        let ws = crate::config::ws_url_for(&url)?;
        let path = self
            .config_path
            .as_ref()
            .ok_or("this node has no config file to rewrite")?;
        let mut cfg = crate::config::NodeConfig::load(path).map_err(|e| e.to_string())?;
        cfg.server_url.clone_from(&url);
        cfg.ws_url.clone_from(&ws);
        cfg.save(path).map_err(|e| e.to_string())?;
        Ok(json!({ "serverUrl": url, "wsUrl": ws, "restartRequired": true }))
    }

    fn set_log_level(&self, exec: &Executor, cmd: &SetLogLevel) -> Result<Value, String> {
        if logging::debug_forced() {
            return Err("debug logging is forced by TERMPLANE_DEBUG_LOGGING".into());
        }
        let level = match cmd.level {
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
        };
        termplane_exec::fs::write_private_atomic(
            &exec.config().data_dir.join("log-level"),
            level.as_bytes(),
        )
        .map_err(|e| e.to_string())?;
        logging::set_debug(level == "debug");
        Ok(json!({ "level": level }))
    }

    fn agent_log_read(&self, _exec: &Executor, cmd: &AgentLogRead) -> Result<Value, String> {
        read_range(&self.log_path, cmd.from_byte, cmd.max_bytes)
    }
}
