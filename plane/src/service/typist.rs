//! Typing into a pane and watching its screen settle: the `Typist` service. Text goes in
//! pieces of at most [`INPUT_PIECE_BYTES`], in order; keys after text are pressed apart from
//! it, once the program took the text. Used by the REST input route, the terminal sockets of
//! remote panes, a stop's Ctrl-C and the initial prompt's delivery — alike for a pane on the
//! plane's own host and on a node, since it runs on the plane.

use std::sync::Arc;
use std::time::Duration;

use termplane_proto::SubshellId;
use termplane_proto::command::{Capture, Command, Input, NamedKey};

use super::dispatch::{Dispatcher, node_data};
use super::subshells::{INPUT_PIECE_BYTES, KEYS_AFTER_TEXT_LIMIT_MS, KEYS_AFTER_TEXT_QUIET_MS};
use crate::clock::Clock;
use crate::error::ApiError;

/// Types into panes through the dispatcher; the clock times the wait for a settled screen.
pub struct Typist {
    dispatcher: Arc<Dispatcher>,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for Typist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Typist").finish_non_exhaustive()
    }
}

impl Typist {
    /// A typist sending through `dispatcher`.
    #[must_use]
    pub fn new(dispatcher: Arc<Dispatcher>, clock: Arc<dyn Clock>) -> Self {
        Self { dispatcher, clock }
    }

    /// Types `text` (in pieces of at most [`INPUT_PIECE_BYTES`], in order, back to back) and
    /// then presses `keys`. Keys after text are pressed apart from it, once the program has
    /// taken the text (the screen moved and stayed still for [`KEYS_AFTER_TEXT_QUIET_MS`], or
    /// [`KEYS_AFTER_TEXT_LIMIT_MS`] went by): a program that reads text and Enter in one burst
    /// may take them for a paste, whose Enter does not submit (the agent CLIs do). This runs
    /// on the plane, so it holds alike for a pane on the plane's own host and on a node.
    pub async fn type_into(
        &self,
        node_id: &str,
        id: &SubshellId,
        text: &str,
        keys: &[NamedKey],
    ) -> Result<u64, ApiError> {
        let mut pieces = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let mut end = rest.len().min(INPUT_PIECE_BYTES);
            while !rest.is_char_boundary(end) {
                end -= 1;
            }
            pieces.push(&rest[..end]);
            rest = &rest[end..];
        }
        let commands: Vec<Command> = pieces
            .iter()
            .map(|p| {
                Command::Input(Input {
                    subshell_id: id.clone(),
                    data: (*p).to_owned(),
                    keys: Vec::new(),
                })
            })
            .collect();
        let keys_command = (!keys.is_empty() || commands.is_empty()).then(|| {
            Command::Input(Input {
                subshell_id: id.clone(),
                data: String::new(),
                keys: keys.to_vec(),
            })
        });
        let n = commands.len() as u64 + u64::from(keys_command.is_some());
        // The screen before the text, to see the program take it.
        let before = if !commands.is_empty() && !keys.is_empty() {
            self.screen_text(node_id, id).await.ok().flatten()
        } else {
            None
        };
        if !commands.is_empty() {
            for r in self
                .dispatcher
                .node_commands_in_order(node_id, commands)
                .await?
            {
                node_data(r)?;
            }
        }
        if let Some(k) = keys_command {
            if let Some(b) = &before {
                // A pane that went meanwhile is answered by the keys' own command.
                let _ = self
                    .screen_settles(
                        node_id,
                        id,
                        Some(b),
                        Duration::from_millis(KEYS_AFTER_TEXT_QUIET_MS),
                        Duration::from_millis(KEYS_AFTER_TEXT_LIMIT_MS),
                    )
                    .await;
            }
            node_data(self.dispatcher.node_command(node_id, k).await?)?;
        }
        Ok(n)
    }

    /// The pane's screen text as `capture` answers it (`None` when the pane is gone).
    pub async fn screen_text(
        &self,
        node_id: &str,
        id: &SubshellId,
    ) -> Result<Option<String>, ApiError> {
        let r = self
            .dispatcher
            .node_command(
                node_id,
                Command::Capture(Capture {
                    subshell_id: id.clone(),
                    lines: None,
                    replay: false,
                }),
            )
            .await?;
        if !r.ok {
            return Ok(None);
        }
        Ok(Some(
            r.data
                .as_ref()
                .and_then(|d| d.get("text"))
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        ))
    }

    /// Waits until the pane's screen shows something other than `from` (blank, when `None`)
    /// and has then stayed the same for `quiet`, for at most `limit`; `Ok(false)` when the
    /// limit came first. Err when the pane is gone.
    pub async fn screen_settles(
        &self,
        node_id: &str,
        id: &SubshellId,
        from: Option<&str>,
        quiet: Duration,
        limit: Duration,
    ) -> Result<bool, ApiError> {
        let poll = (quiet / 4).clamp(Duration::from_millis(50), Duration::from_millis(250));
        let started = self.clock.instant();
        let mut last: Option<String> = None;
        let mut since = self.clock.instant();
        loop {
            let now = self
                .screen_text(node_id, id)
                .await?
                .ok_or_else(|| ApiError::new(409, "SUBSHELL_NOT_RUNNING", "the pane is gone"))?;
            let moved = match from {
                Some(f) => now != f,
                None => !now.trim().is_empty(),
            };
            if last.as_deref() != Some(now.as_str()) {
                last = Some(now);
                since = self.clock.instant();
            } else if moved && self.clock.instant().saturating_duration_since(since) >= quiet {
                return Ok(true);
            }
            if self.clock.instant().saturating_duration_since(started) >= limit {
                return Ok(false);
            }
            smol::Timer::after(poll).await;
        }
    }
}
