//! What the agent in a pane is doing: its [`AgentState`], and the rules that decide it.
//!
//! # The states
//!
//! | state | meaning |
//! |---|---|
//! | `starting` | the pane is being launched, or started and no signal has said anything yet |
//! | `working` | the agent is at work on a turn |
//! | `idle` | the agent waits for a new prompt |
//! | `needs_input` | the agent is blocked on a person: a question or a permission prompt |
//! | `done` | the agent finished what it was asked, or its pane ended cleanly |
//! | `error` | the agent reported a failure, or its pane crashed or could not be relaunched |
//! | `unknown` | the pane runs and nothing tells what the agent is doing |
//!
//! Each state comes with the time it was entered, an optional one-line summary and link, and
//! the signal that set it ([`AgentSource`]).
//!
//! # The rules
//!
//! 1. **A launch or a restart** sets `starting` (source `lifecycle`): what the agent said
//!    belonged to the pane that ended.
//! 2. **While the pane is live**, the latest report of the pane's own token sets the state:
//!    a hook of its harness (`source: hook`: Claude Code's and Gemini CLI's hooks and Codex's `notify` program,
//!    which the plane configures at launch to run the `hook` subcommand of the binary that
//!    serves the pane's MCP; the events
//!    and the states they mean are listed in `termplane_mcp::hook`) or the agent speaking for itself
//!    (`self_report`: `report_status`, and `report_attention`, whose `needs_input` is
//!    `needs_input`, `done` is `done` and `none` is `working`). Both are the harness's own
//!    word, so neither outranks the other: the newest wins. A report that carries the
//!    reporter's own time (`observedAt`) older than the newest recorded is refused (409
//!    `STALE_REPORT`) and changes nothing, so two reports crossing on the way land in order.
//! 3. **A live pane no signal has spoken for** shows `unknown` (source `none`), not a guess.
//!    Its **screen** (source `screen`) speaks next: the node reports each pane printing or quiet,
//!    with its screen and foreground program, and the harness plugin's texts read it (the
//!    rules, and when the screen may override a hook or a report, are in `screen`: only a
//!    question shown on screen overrides their `working` or `idle`).
//! 4. **Once the pane has ended**, its lifecycle decides: a crash, a non-zero exit or a refused
//!    relaunch is `error`; a clean exit or a stop is `done`, unless the agent's own last word was
//!    `done` or `error`, which is kept with its summary and link.
//! 5. **A report of the same state** updates the summary and link but not the time the state
//!    was entered, and is not audited; a change of state is audited as `subshell.agent_state`
//!    (`from`, `to`, `source`, `summary`), so the trail holds transitions, not every tick.
//! 6. **A flood** is refused: a pane may report [`REPORT_BURST`] times at once and
//!    [`REPORTS_PER_SECOND`] a second after that; past it, 429 `TOO_MANY_REPORTS` with
//!    `Retry-After`, and nothing changes. A report for another pane (403 `NOT_OWN_SUBSHELL`),
//!    with a revoked token (401), for a pane that is not live (409 `SUBSHELL_NOT_RUNNING`) or
//!    with an `observedAt` more than a day from the plane's clock (400) changes nothing either.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::api::subshells::{AgentSource, AgentState, AgentStatus, SubshellState};
use crate::store;

/// Reports a pane may send at once before [`REPORTS_PER_SECOND`] applies.
pub(crate) const REPORT_BURST: u32 = 30;
/// Reports a second a pane may send after its burst.
pub(crate) const REPORTS_PER_SECOND: u32 = 5;
/// How far a report's `observedAt` may be from the plane's clock (ms).
pub(crate) const OBSERVED_AT_SKEW_MS: i64 = 24 * 60 * 60 * 1000;
/// Panes the [`ReportGate`] remembers before it forgets those whose budget is whole again.
const GATE_ENTRIES: usize = 4096;

/// The agent state of row `r`, whose lifecycle state is `state` (rules 1, 3 and 4).
#[must_use]
pub(crate) fn agent_view(r: &store::Subshell, state: SubshellState) -> AgentStatus {
    let stored = AgentState::from_stored(&r.agent.state);
    let since = r.agent.since.unwrap_or(r.updated_at);
    let kept = || AgentStatus {
        state: stored,
        since,
        summary: r.agent.summary.clone(),
        link: r.agent.link.clone(),
        source: AgentSource::from_stored(&r.agent.source),
    };
    let lifecycle = |s: AgentState, summary: String| AgentStatus {
        state: s,
        since: r.ended_at.unwrap_or(r.updated_at),
        summary: Some(summary),
        link: None,
        source: AgentSource::Lifecycle,
    };
    match state {
        SubshellState::Starting => AgentStatus {
            state: AgentState::Starting,
            since,
            summary: None,
            link: None,
            source: AgentSource::Lifecycle,
        },
        SubshellState::Running | SubshellState::Stopping if stored == AgentState::Starting => {
            AgentStatus {
                state: AgentState::Unknown,
                since: r.started_at.unwrap_or(since),
                summary: None,
                link: None,
                source: AgentSource::None,
            }
        }
        SubshellState::Running | SubshellState::Stopping => kept(),
        SubshellState::Crashed => lifecycle(
            AgentState::Error,
            match r.exit_code {
                Some(c) => format!("the program ended with exit code {c}"),
                None => "the pane vanished".to_owned(),
            },
        ),
        SubshellState::Failed => lifecycle(
            AgentState::Error,
            format!(
                "the relaunch was refused: {}",
                r.error.as_deref().unwrap_or("no reason given")
            ),
        ),
        SubshellState::Exited | SubshellState::Stopped
            if matches!(stored, AgentState::Done | AgentState::Error)
                && r.agent.source != AgentSource::Lifecycle.as_str() =>
        {
            kept()
        }
        SubshellState::Exited => lifecycle(AgentState::Done, "the program exited".to_owned()),
        SubshellState::Stopped => lifecycle(AgentState::Done, "stopped".to_owned()),
    }
}

/// Per-pane budgets of reports (rule 6): a token bucket each, [`REPORT_BURST`] deep, refilled at
/// [`REPORTS_PER_SECOND`]. Memory is bounded: past [`GATE_ENTRIES`] panes, those whose bucket has
/// refilled are forgotten (they would start whole anyway).
#[derive(Debug, Default)]
pub(crate) struct ReportGate {
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl ReportGate {
    /// Takes one report from pane `id`'s budget at `now`; `Err(wait)` when it is spent, with how
    /// long until one more report fits.
    pub(crate) fn take(&self, id: &str, now: Instant) -> Result<(), Duration> {
        let burst = f64::from(REPORT_BURST);
        let rate = f64::from(REPORTS_PER_SECOND);
        let Ok(mut m) = self.buckets.lock() else {
            return Ok(());
        };
        if m.len() >= GATE_ENTRIES && !m.contains_key(id) {
            m.retain(|_, (left, at)| {
                *left + now.saturating_duration_since(*at).as_secs_f64() * rate < burst
            });
        }
        let (left, at) = m.entry(id.to_owned()).or_insert((burst, now));
        let refilled = (*left + now.saturating_duration_since(*at).as_secs_f64() * rate).min(burst);
        *at = now;
        if refilled >= 1.0 {
            *left = refilled - 1.0;
            Ok(())
        } else {
            *left = refilled;
            Err(Duration::from_secs_f64((1.0 - refilled) / rate))
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.buckets.lock().map(|m| m.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn row(state: &str, agent: &str, source: &str) -> store::Subshell {
        store::Subshell {
            id: "s1".into(),
            owner_user_id: "u".into(),
            node_id: "n".into(),
            harness_id: "shell".into(),
            name: "a".into(),
            cwd: "/".into(),
            preset_id: None,
            workspace_id: None,
            launch_spec: "{}".into(),
            state: state.into(),
            exit_code: None,
            error: None,
            cols: 80,
            rows: 24,
            prompt: None,
            prompt_state: "none".into(),
            auto_restart: false,
            restarts: 0,
            attention: "none".into(),
            attention_at: None,
            harness_session_id: None,
            token_digest: None,
            token_perms: "{}".into(),
            token_expires_at: None,
            parent_subshell_id: None,
            created_by_kind: "cookie".into(),
            mcp_seen_at: None,
            created_at: 1,
            updated_at: 50,
            started_at: Some(10),
            ended_at: Some(90),
            warning: None,
            agent: store::AgentRow {
                state: agent.into(),
                since: Some(20),
                summary: Some("said".into()),
                link: Some("https://example.com/pr/1".into()),
                source: source.into(),
                observed_at: None,
            },
        }
    }

    fn view(state: SubshellState, agent: &str, source: &str) -> AgentStatus {
        agent_view(&row(state_str(state), agent, source), state)
    }

    fn state_str(s: SubshellState) -> &'static str {
        match s {
            SubshellState::Starting => "starting",
            SubshellState::Running => "running",
            SubshellState::Stopping => "stopping",
            SubshellState::Stopped => "stopped",
            SubshellState::Exited => "exited",
            SubshellState::Crashed => "crashed",
            SubshellState::Failed => "failed",
        }
    }

    #[test]
    fn a_launching_pane_is_starting_whatever_was_stored() {
        let v = view(SubshellState::Starting, "working", "hook");
        assert_eq!(v.state, AgentState::Starting);
        assert_eq!(v.source, AgentSource::Lifecycle);
        assert_eq!(v.summary, None);
    }

    #[test]
    fn a_running_pane_no_signal_spoke_for_is_unknown_since_it_started() {
        let v = view(SubshellState::Running, "starting", "lifecycle");
        assert_eq!(v.state, AgentState::Unknown);
        assert_eq!(v.source, AgentSource::None);
        assert_eq!(v.since, 10);
    }

    #[test]
    fn a_running_pane_shows_its_last_report() {
        let v = view(SubshellState::Running, "needs_input", "hook");
        assert_eq!(v.state, AgentState::NeedsInput);
        assert_eq!(v.source, AgentSource::Hook);
        assert_eq!(v.since, 20);
        assert_eq!(v.link.as_deref(), Some("https://example.com/pr/1"));
    }

    #[test]
    fn a_crash_is_an_error_even_after_the_agent_said_done() {
        let v = view(SubshellState::Crashed, "done", "self_report");
        assert_eq!(v.state, AgentState::Error);
        assert_eq!(v.source, AgentSource::Lifecycle);
        assert_eq!(v.since, 90);
        assert_eq!(v.summary.as_deref(), Some("the pane vanished"));
    }

    #[test]
    fn a_clean_end_keeps_the_agents_own_done_with_its_link() {
        let v = view(SubshellState::Exited, "done", "self_report");
        assert_eq!(v.state, AgentState::Done);
        assert_eq!(v.source, AgentSource::SelfReport);
        assert_eq!(v.summary.as_deref(), Some("said"));
    }

    #[test]
    fn a_clean_end_of_a_working_agent_is_done_by_its_lifecycle() {
        for s in [SubshellState::Exited, SubshellState::Stopped] {
            let v = view(s, "working", "hook");
            assert_eq!(v.state, AgentState::Done, "{s:?}");
            assert_eq!(v.source, AgentSource::Lifecycle, "{s:?}");
        }
    }

    #[test]
    fn a_refused_relaunch_is_an_error_naming_the_reason() {
        let mut r = row("failed", "idle", "hook");
        r.error = Some("no such directory".into());
        let v = agent_view(&r, SubshellState::Failed);
        assert_eq!(v.state, AgentState::Error);
        assert!(v.summary.unwrap().contains("no such directory"));
    }

    #[test]
    fn the_gate_lets_a_burst_through_then_refuses_until_it_refills() {
        let g = ReportGate::default();
        let t0 = crate::clock::monotonic();
        for _ in 0..REPORT_BURST {
            assert!(g.take("p", t0).is_ok());
        }
        let wait = g.take("p", t0).unwrap_err();
        assert!(wait <= Duration::from_millis(200) && wait > Duration::ZERO);
        // Another pane has its own budget.
        assert!(g.take("q", t0).is_ok());
        // A fifth of a second refills one report at five a second.
        assert!(g.take("p", t0 + Duration::from_millis(201)).is_ok());
        assert!(g.take("p", t0 + Duration::from_millis(202)).is_err());
    }

    #[test]
    fn the_gate_forgets_panes_whose_budget_refilled_when_it_is_full() {
        let g = ReportGate::default();
        let t0 = crate::clock::monotonic();
        for i in 0..GATE_ENTRIES {
            g.take(&format!("p{i}"), t0).unwrap();
        }
        assert_eq!(g.len(), GATE_ENTRIES);
        g.take("late", t0 + Duration::from_secs(1)).unwrap();
        assert_eq!(g.len(), 1);
    }
}
