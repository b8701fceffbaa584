//! A harness's hooks, turned into the pane's agent state: `termplane hook HARNESS` and
//! `termplane-node hook HARNESS [EVENT]`.
//!
//! The plane configures the hooks at launch, next to the MCP registration (Claude Code: a
//! `--settings` argument whose `hooks` run this command). The harness runs the command with the
//! event's JSON on stdin and the pane's environment (`TERMPLANE_URL`, `TERMPLANE_TOKEN`,
//! `TERMPLANE_SUBSHELL_ID`); the command reports the state the event means with
//! `POST /api/subshells/{id}/status` (`source: hook`, `observedAt`: the time it read the event,
//! so two hooks that cross on the way land in order).
//!
//! A hook must never stand in the agent's way: this command exits 0 whatever happens (Claude
//! Code reads exit status 2 as "block this action"), prints nothing on stdout (which Claude
//! Code may add to the model's context), and says on stderr what went wrong.
//!
//! # Claude Code (2.1; the events its hooks documentation lists)
//!
//! | event | state | summary |
//! |---|---|---|
//! | `SessionStart` | `idle` | "session started" (or "…resumed", "…cleared", "…compacted") |
//! | `UserPromptSubmit` | `working` | "working on a prompt" (never the prompt itself: it may hold anything) |
//! | `PreToolUse` | `working` | "using TOOL" |
//! | `PermissionRequest` | `needs_input` | "waiting for permission to use TOOL" |
//! | `Notification`, `notification_type` `permission_prompt` or `elicitation_dialog` | `needs_input` | its message |
//! | `Notification`, `notification_type` `idle_prompt` | `idle` | its message |
//! | `Notification` without a type (older versions) | `needs_input` when its message asks for permission, `idle` when it says it waits for input | its message |
//! | `Stop` | `idle` | "turn finished" |
//!
//! # Codex (0.171; its `notify` program)
//!
//! Codex runs its `notify` program with the event's JSON as the last argument, not on stdin.
//!
//! | event `type` | state | summary |
//! |---|---|---|
//! | `agent-turn-complete` | `idle` | "turn finished" (never the turn's messages) |
//!
//! # Gemini CLI (0.61; the events its hooks reference lists)
//!
//! Gemini CLI runs each hook with the event's JSON on stdin, parses stdout as JSON when the
//! command exits 0 (this command prints nothing), and reads exit status 2 as "block".
//!
//! | event | state | summary |
//! |---|---|---|
//! | `SessionStart` | `idle` | "session started" (or "…resumed", "…cleared") |
//! | `BeforeAgent` | `working` | "working on a prompt" (never the prompt itself) |
//! | `BeforeTool` | `working` | "using TOOL" |
//! | `Notification`, `notification_type` `ToolPermission` | `needs_input` | its message |
//! | `AfterAgent` | `idle` | "turn finished" (never the response) |
//!
//! # opencode (1.18; its plugin events)
//!
//! opencode has no hook commands: the plane gives it a plugin (a JavaScript module the node
//! writes at launch, see the plane's `plugins::opencode_plugin`) that runs this command for
//! each event below, one after another in the order opencode emitted them, with the event's
//! `type` and the few fields read here on stdin (never a prompt, a tool's input or a message).
//! Events of a sub-agent's session (one with a parent) are not the pane's and are not sent;
//! the `session.idle` that follows a failed turn is not sent either, so the failure stays
//! until the next prompt.
//!
//! | event | state | summary |
//! |---|---|---|
//! | `session.status`, `status.type` `busy` | `working` | "working on a prompt" |
//! | `session.status`, `status.type` `retry` | `working` | "retrying the model" |
//! | `permission.asked` | `needs_input` | "waiting for permission to use PERMISSION" |
//! | `permission.replied`, `question.replied`, `question.rejected` | `working` | "answered" |
//! | `question.asked` | `needs_input` | "waiting for an answer to its question" |
//! | `session.error`, `error.name` other than `MessageAbortedError` | `error` | "the turn failed: NAME" |
//! | `session.idle` | `idle` | "turn finished" |
//!
//! Any other event (or notification type) reports nothing.

use std::io::Read;
use std::process::ExitCode;

use serde_json::{Value, json};

use crate::stdio::HttpPlane;
use crate::{Pane, Plane, encode};

/// Most bytes of a hook's input read (an event with a large tool input is cut, not refused:
/// only its name and a few short fields are used).
const MAX_INPUT_BYTES: u64 = 1024 * 1024;
/// Longest summary the plane accepts, in characters.
const SUMMARY_MAX: usize = 200;

/// The harnesses whose hooks this command reads.
pub const HARNESSES: [&str; 4] = ["claude-code", "codex", "gemini", "opencode"];

/// The status report (`POST /api/subshells/{id}/status` body, without `observedAt`) that
/// `harness`'s hook event `input` means; `None` when it means nothing to report.
#[must_use]
pub fn status_of(harness: &str, input: &Value) -> Option<Value> {
    let text_of = |k: &str| input.get(k).and_then(Value::as_str).unwrap_or_default();
    if harness == "codex" {
        return (text_of("type") == "agent-turn-complete")
            .then(|| json!({ "state": "idle", "source": "hook", "summary": "turn finished" }));
    }
    if harness == "gemini" {
        return gemini_status(input);
    }
    if harness == "opencode" {
        return opencode_status(input);
    }
    if harness != "claude-code" {
        return None;
    }
    let text = |k: &str| input.get(k).and_then(Value::as_str).unwrap_or_default();
    let tool = || text("tool_name");
    let (state, summary) = match text("hook_event_name") {
        "SessionStart" => (
            "idle",
            match text("source") {
                "resume" => "session resumed".to_owned(),
                "clear" => "session cleared".to_owned(),
                "compact" => "session compacted".to_owned(),
                _ => "session started".to_owned(),
            },
        ),
        "UserPromptSubmit" => ("working", "working on a prompt".to_owned()),
        "PreToolUse" => ("working", format!("using {}", tool())),
        "PermissionRequest" => (
            "needs_input",
            format!("waiting for permission to use {}", tool()),
        ),
        "Notification" => {
            let message = text("message").to_owned();
            let state = match text("notification_type") {
                "permission_prompt" | "elicitation_dialog" => "needs_input",
                "idle_prompt" => "idle",
                "" if message.to_lowercase().contains("permission") => "needs_input",
                "" if message.to_lowercase().contains("waiting for your input") => "idle",
                _ => return None,
            };
            (state, message)
        }
        "Stop" => ("idle", "turn finished".to_owned()),
        _ => return None,
    };
    Some(hook_status(state, &summary))
}

/// Gemini CLI's hook event `input` as a status report (see the module's table).
fn gemini_status(input: &Value) -> Option<Value> {
    let text = |k: &str| input.get(k).and_then(Value::as_str).unwrap_or_default();
    let (state, summary) = match text("hook_event_name") {
        "SessionStart" => (
            "idle",
            match text("source") {
                "resume" => "session resumed".to_owned(),
                "clear" => "session cleared".to_owned(),
                _ => "session started".to_owned(),
            },
        ),
        "BeforeAgent" => ("working", "working on a prompt".to_owned()),
        "BeforeTool" => ("working", format!("using {}", text("tool_name"))),
        "Notification" if text("notification_type") == "ToolPermission" => {
            let message = text("message");
            (
                "needs_input",
                if message.is_empty() {
                    "waiting for permission".to_owned()
                } else {
                    message.to_owned()
                },
            )
        }
        "AfterAgent" => ("idle", "turn finished".to_owned()),
        _ => return None,
    };
    Some(hook_status(state, &summary))
}

/// opencode's plugin event `input` as a status report (see the module's table).
fn opencode_status(input: &Value) -> Option<Value> {
    let field = |path: &[&str]| {
        path.iter()
            .try_fold(input, |v, k| v.get(k))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let (state, summary) = match field(&["type"]) {
        "session.status" => match field(&["properties", "status", "type"]) {
            "busy" => ("working", "working on a prompt".to_owned()),
            "retry" => ("working", "retrying the model".to_owned()),
            _ => return None,
        },
        "permission.asked" => (
            "needs_input",
            format!(
                "waiting for permission to use {}",
                field(&["properties", "permission"])
            ),
        ),
        "permission.replied" | "question.replied" | "question.rejected" => {
            ("working", "answered".to_owned())
        }
        "question.asked" => (
            "needs_input",
            "waiting for an answer to its question".to_owned(),
        ),
        "session.error" => match field(&["properties", "error", "name"]) {
            // Interrupted by the person: its `session.idle` follows.
            "MessageAbortedError" => return None,
            "" => ("error", "the turn failed".to_owned()),
            name => ("error", format!("the turn failed: {name}")),
        },
        "session.idle" => ("idle", "turn finished".to_owned()),
        _ => return None,
    };
    Some(hook_status(state, &summary))
}

/// A hook's status report: `state` with `summary` as one line (none when it is empty).
fn hook_status(state: &str, summary: &str) -> Value {
    let mut body = json!({ "state": state, "source": "hook" });
    let summary = one_line(summary);
    if !summary.is_empty() {
        body["summary"] = Value::String(summary);
    }
    body
}

/// `s` as one line the plane accepts as a summary: control and invisible characters become
/// spaces, runs of white space one space, and it is cut to [`SUMMARY_MAX`] characters.
fn one_line(s: &str) -> String {
    let clean: String = s
        .chars()
        .map(|c| {
            if c.is_control() || is_invisible(c) {
                ' '
            } else {
                c
            }
        })
        .collect();
    let mut out: String = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() > SUMMARY_MAX {
        out = out.chars().take(SUMMARY_MAX - 1).collect();
        out.push('…');
    }
    out
}

/// Characters the plane refuses in text besides control characters: zero-width and
/// bidirectional controls, and the byte-order mark.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// Reports the event on `stdin` for `harness` to the pane's plane at `observed_at` (ms):
/// `Ok(None)` when the event means nothing, `Ok(Some(status))` with the plane's answer.
pub fn report(
    plane: &impl Plane,
    pane: &Pane,
    harness: &str,
    input: &Value,
    observed_at: i64,
) -> Result<Option<u16>, String> {
    let Some(mut body) = status_of(harness, input) else {
        return Ok(None);
    };
    body["observedAt"] = json!(observed_at);
    let path = format!("/api/subshells/{}/status", encode(&pane.subshell_id));
    let (status, answer) = plane.request("POST", &path, Some(&body))?;
    if (200..300).contains(&status) {
        Ok(Some(status))
    } else {
        Err(format!(
            "the plane refused the report ({status} {})",
            answer["code"].as_str().unwrap_or("?")
        ))
    }
}

/// Runs the hook command; `args` follow the `hook` word: the harness's id.
#[must_use]
pub fn main(program: &str, args: &[String]) -> ExitCode {
    // The event: an argument after the harness (Codex's notify), else stdin (Claude Code's).
    let (harness, event) = match args {
        [h] if HARNESSES.contains(&h.as_str()) => (h.as_str(), None),
        [h, e] if HARNESSES.contains(&h.as_str()) => (h.as_str(), Some(e.as_bytes())),
        _ => {
            eprintln!(
                "usage: {program} hook HARNESS [EVENT] (HARNESS: {}; the event's JSON as EVENT or on stdin)",
                HARNESSES.join(", ")
            );
            // Still 0: a hook that fails must not block the harness.
            return ExitCode::SUCCESS;
        }
    };
    let observed_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let mut raw = Vec::new();
    match event {
        Some(e) => raw.extend_from_slice(e),
        None => {
            if let Err(e) = std::io::stdin().take(MAX_INPUT_BYTES).read_to_end(&mut raw) {
                eprintln!("{program} hook: reading the event: {e}");
                return ExitCode::SUCCESS;
            }
        }
    }
    let input: Value = serde_json::from_slice(&raw).unwrap_or(Value::Null);
    let pane = match Pane::from_lookup(&|k| std::env::var(k).ok()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{program} hook: {e}");
            return ExitCode::SUCCESS;
        }
    };
    if let Err(e) = report(&HttpPlane::new(&pane), &pane, harness, &input, observed_at) {
        eprintln!("{program} hook: {e}");
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    /// The state and summary `harness`'s hook reports for `event`, as a hook's report.
    fn reported(harness: &str, event: &Value) -> Option<(String, Option<String>)> {
        status_of(harness, event).map(|b| {
            assert_eq!(b["source"], "hook");
            (
                b["state"].as_str().unwrap().to_owned(),
                b["summary"].as_str().map(str::to_owned),
            )
        })
    }

    fn claude(event: Value) -> Option<(String, Option<String>)> {
        reported("claude-code", &event)
    }

    fn said(state: &str, summary: &str) -> Option<(String, Option<String>)> {
        Some((state.to_owned(), Some(summary.to_owned())))
    }

    #[test]
    fn gemini_clis_events_map_to_agent_states_and_never_keep_the_prompt() {
        let gemini = |e: Value| reported("gemini", &e);
        assert_eq!(
            gemini(json!({"hook_event_name":"SessionStart","source":"startup"})),
            said("idle", "session started")
        );
        assert_eq!(
            gemini(json!({"hook_event_name":"BeforeAgent","prompt":"my secret plan"})),
            said("working", "working on a prompt")
        );
        assert_eq!(
            gemini(json!({"hook_event_name":"BeforeTool","tool_name":"run_shell_command"})),
            said("working", "using run_shell_command")
        );
        assert_eq!(
            gemini(
                json!({"hook_event_name":"Notification","notification_type":"ToolPermission",
                          "message":"Allow\n  run_shell_command?\t"})
            ),
            said("needs_input", "Allow run_shell_command?")
        );
        assert_eq!(
            gemini(json!({"hook_event_name":"AfterAgent","prompt":"p","prompt_response":"r"})),
            said("idle", "turn finished")
        );
        for quiet in [
            json!({"hook_event_name":"Notification","notification_type":"Other"}),
            json!({"hook_event_name":"AfterModel"}),
            json!({"hook_event_name":"SessionEnd"}),
            json!(null),
        ] {
            assert_eq!(gemini(quiet.clone()), None, "{quiet}");
        }
    }

    #[test]
    fn opencodes_plugin_events_map_to_agent_states() {
        let opencode = |e: Value| reported("opencode", &e);
        let event = |t: &str, p: Value| json!({ "type": t, "properties": p });
        assert_eq!(
            opencode(event("session.status", json!({"status": {"type": "busy"}}))),
            said("working", "working on a prompt")
        );
        assert_eq!(
            opencode(event(
                "session.status",
                json!({"status": {"type": "retry", "attempt": 2}})
            )),
            said("working", "retrying the model")
        );
        assert_eq!(
            opencode(event(
                "permission.asked",
                json!({"id": "per_1", "permission": "termplane_list_subshells"})
            )),
            said(
                "needs_input",
                "waiting for permission to use termplane_list_subshells"
            )
        );
        for answered in [
            "permission.replied",
            "question.replied",
            "question.rejected",
        ] {
            assert_eq!(
                opencode(event(answered, json!({"reply": "once"}))),
                said("working", "answered"),
                "{answered}"
            );
        }
        assert_eq!(
            opencode(event(
                "question.asked",
                json!({"questions": [{"question": "which?"}]})
            )),
            said("needs_input", "waiting for an answer to its question")
        );
        assert_eq!(
            opencode(event(
                "session.error",
                json!({"error": {"name": "ProviderAuthError", "data": {"message": "key\nrefused"}}})
            )),
            said("error", "the turn failed: ProviderAuthError")
        );
        assert_eq!(
            opencode(event("session.idle", json!({}))),
            said("idle", "turn finished")
        );
        for quiet in [
            event("session.status", json!({"status": {"type": "idle"}})),
            event(
                "session.error",
                json!({"error": {"name": "MessageAbortedError"}}),
            ),
            event("message.updated", json!({})),
            json!({"type": 7}),
            json!(null),
        ] {
            assert_eq!(opencode(quiet.clone()), None, "{quiet}");
        }
    }

    #[test]
    fn claude_codes_events_map_to_agent_states() {
        assert_eq!(
            claude(json!({"hook_event_name":"SessionStart","source":"startup"})),
            said("idle", "session started")
        );
        assert_eq!(
            claude(json!({"hook_event_name":"SessionStart","source":"resume"})),
            said("idle", "session resumed")
        );
        assert_eq!(
            claude(json!({"hook_event_name":"UserPromptSubmit","prompt":"the secret is hunter2"})),
            said("working", "working on a prompt")
        );
        assert_eq!(
            claude(
                json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}})
            ),
            said("working", "using Bash")
        );
        assert_eq!(
            claude(json!({"hook_event_name":"PermissionRequest","tool_name":"Write"})),
            said("needs_input", "waiting for permission to use Write")
        );
        assert_eq!(
            claude(
                json!({"hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"})
            ),
            said("needs_input", "Claude needs your permission to use Bash")
        );
        assert_eq!(
            claude(
                json!({"hook_event_name":"Notification","notification_type":"idle_prompt","message":"Claude is waiting for your input"})
            ),
            said("idle", "Claude is waiting for your input")
        );
        assert_eq!(
            claude(
                json!({"hook_event_name":"Notification","message":"Claude needs your permission to use Bash"})
            ),
            said("needs_input", "Claude needs your permission to use Bash")
        );
        assert_eq!(
            claude(json!({"hook_event_name":"Stop","stop_hook_active":false})),
            said("idle", "turn finished")
        );
    }

    #[test]
    fn events_that_mean_nothing_report_nothing() {
        for e in [
            json!({"hook_event_name":"SessionEnd"}),
            json!({"hook_event_name":"PostToolUse","tool_name":"Bash"}),
            json!({"hook_event_name":"Notification","notification_type":"auth_success","message":"ok"}),
            json!({"hook_event_name":"Notification","message":"something else"}),
            json!({}),
            json!(null),
            json!([1, 2]),
        ] {
            assert_eq!(claude(e.clone()), None, "{e}");
        }
        assert_eq!(status_of("codex", &json!({"hook_event_name":"Stop"})), None);
        assert_eq!(
            status_of("gemini", &json!({"type":"agent-turn-complete"})),
            None
        );
    }

    #[test]
    fn a_codex_turn_that_completes_is_idle_and_its_messages_are_not_kept() {
        let event = json!({
            "type": "agent-turn-complete",
            "turn-id": "t1",
            "input-messages": ["the secret is hunter2"],
            "last-assistant-message": "done: hunter2"
        });
        let body = status_of("codex", &event).unwrap();
        assert_eq!(
            body,
            json!({ "state": "idle", "source": "hook", "summary": "turn finished" })
        );
        assert!(!body.to_string().contains("hunter2"));
        assert_eq!(status_of("codex", &json!({"type":"something-else"})), None);
    }

    #[test]
    fn a_summary_is_one_line_the_plane_accepts() {
        let long = format!("a\tb\n\u{202e}c {}", "x".repeat(500));
        let (_, s) = claude(json!({"hook_event_name":"PreToolUse","tool_name": long})).unwrap();
        let s = s.unwrap();
        assert!(s.starts_with("using a b c x"), "{s}");
        assert_eq!(s.chars().count(), SUMMARY_MAX);
        assert!(!s.chars().any(|c| c.is_control() || is_invisible(c)));
    }

    struct Answer(u16, std::sync::Mutex<Vec<(String, Value)>>);

    impl Plane for &Answer {
        fn request(
            &self,
            _method: &str,
            path: &str,
            body: Option<&Value>,
        ) -> Result<(u16, Value), String> {
            self.1
                .lock()
                .unwrap()
                .push((path.to_owned(), body.cloned().unwrap_or(Value::Null)));
            Ok((self.0, json!({"code":"STALE_REPORT"})))
        }
    }

    fn pane() -> Pane {
        Pane::from_lookup(&|k| match k {
            "TERMPLANE_URL" => Some("http://p".into()),
            "TERMPLANE_TOKEN" => Some("tp_x".into()),
            "TERMPLANE_SUBSHELL_ID" => Some("abc".into()),
            _ => None,
        })
        .unwrap()
    }

    #[test]
    fn a_report_carries_the_time_it_was_observed_and_says_a_refusal() {
        let ok = Answer(200, std::sync::Mutex::default());
        let stop = json!({"hook_event_name":"Stop"});
        assert_eq!(
            report(&&ok, &pane(), "claude-code", &stop, 42),
            Ok(Some(200))
        );
        let seen = ok.1.lock().unwrap().clone();
        assert_eq!(seen[0].0, "/api/subshells/abc/status");
        assert_eq!(seen[0].1["observedAt"], 42);
        assert_eq!(seen[0].1["state"], "idle");
        let end = json!({"hook_event_name":"SessionEnd"});
        assert_eq!(report(&&ok, &pane(), "claude-code", &end, 43), Ok(None));
        assert_eq!(ok.1.lock().unwrap().len(), 1, "nothing sent for nothing");
        let refused = Answer(409, std::sync::Mutex::default());
        let e = report(&&refused, &pane(), "claude-code", &stop, 44).unwrap_err();
        assert!(e.contains("409 STALE_REPORT"), "{e}");
    }
}
