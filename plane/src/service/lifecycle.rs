//! The subshell lifecycle: every state, every move between them, in one table.
//!
//! | from | trigger | to | token |
//! |---|---|---|---|
//! | starting | launch accepted by the node | running | |
//! | starting | launch refused by the node | failed | revoked |
//! | starting, running | exit with code 0 | exited | revoked |
//! | stopping | exit with code 0 | stopped | |
//! | starting, running | exit with another code, or none | crashed | revoked |
//! | stopping | exit with another code, or none | stopped | |
//! | starting, running | census or probe: pane gone | crashed | revoked |
//! | stopping | census or probe: pane gone | stopped | |
//! | starting, running | census or probe: pane alive | running | |
//! | running | terminate requested | stopping | revoked |
//! | stopping | grace over (then killed) | stopped | |
//! | starting, running, stopping | kill requested | stopped | revoked |
//! | starting, running, stopping, stopped, exited, crashed, failed | restart requested | starting | rotated |
//! | crashed | automatic restart (preset asks, under the limit) | starting | rotated |
//!
//! Every other pair is refused: a trigger that does not apply to a state changes nothing (an
//! exit reported twice, a terminate of a stopped pane — the latter answers 409 at the API).
//! Deleting a subshell is not a move: the row goes (a live pane is killed first) and its token
//! with it. "Node unreachable" is not a state either: it is how a live state reads while the
//! node's link is down (see [`crate::api::subshells::SubshellStatus`]).

use crate::api::subshells::SubshellState;

/// What happened to a subshell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// The node ran the launch.
    LaunchAccepted,
    /// The node refused the launch.
    LaunchRefused,
    /// The program ended with this code (`None`: no code could be read).
    Exit(Option<i32>),
    /// The node's census or a probe found the pane alive.
    PaneAlive,
    /// The node's census or a probe found no pane.
    PaneGone,
    /// A person or script asked for a graceful stop.
    TerminateRequested,
    /// The graceful stop's grace ended (the pane was then killed).
    GraceOver,
    /// A person or script asked for a hard kill.
    KillRequested,
    /// A person or script asked for a relaunch.
    RestartRequested,
    /// The plane relaunches a crashed pane because its preset asks.
    AutoRestart,
}

/// What becomes of the subshell's token on a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenEffect {
    /// Unchanged.
    Keep,
    /// Revoked at once.
    Revoke,
    /// Replaced by a new one (same permissions).
    Rotate,
}

/// A move the table allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// The new state.
    pub to: SubshellState,
    /// The token's fate.
    pub token: TokenEffect,
}

/// The table: the move `trigger` makes from `from`, or `None` when it does not apply.
#[must_use]
pub fn next(from: SubshellState, trigger: Trigger) -> Option<Move> {
    use SubshellState::{Crashed, Exited, Failed, Running, Starting, Stopped, Stopping};
    use TokenEffect::{Keep, Revoke, Rotate};
    let go = |to, token| Some(Move { to, token });
    match (from, trigger) {
        (Starting, Trigger::LaunchAccepted) => go(Running, Keep),
        (Starting, Trigger::LaunchRefused) => go(Failed, Revoke),
        (Starting | Running, Trigger::Exit(Some(0))) => go(Exited, Revoke),
        (Starting | Running, Trigger::Exit(_) | Trigger::PaneGone) => go(Crashed, Revoke),
        (Starting | Running, Trigger::PaneAlive) => go(Running, Keep),
        (Running, Trigger::TerminateRequested) => go(Stopping, Revoke),
        (Stopping, Trigger::Exit(_) | Trigger::PaneGone | Trigger::GraceOver) => go(Stopped, Keep),
        (Starting | Running | Stopping, Trigger::KillRequested) => go(Stopped, Revoke),
        (_, Trigger::RestartRequested) => go(Starting, Rotate),
        (Crashed, Trigger::AutoRestart) => go(Starting, Rotate),
        _ => None,
    }
}

/// Every state, in the order the table lists them.
pub const STATES: [SubshellState; 7] = [
    SubshellState::Starting,
    SubshellState::Running,
    SubshellState::Stopping,
    SubshellState::Stopped,
    SubshellState::Exited,
    SubshellState::Crashed,
    SubshellState::Failed,
];

/// Every trigger (an exit stands for its class: 0, and any other code or none), with the words
/// the table uses for it.
pub const TRIGGERS: [(Trigger, &str); 11] = [
    (Trigger::LaunchAccepted, "launch accepted by the node"),
    (Trigger::LaunchRefused, "launch refused by the node"),
    (Trigger::Exit(Some(0)), "exit with code 0"),
    (Trigger::Exit(None), "exit with another code, or none"),
    (Trigger::PaneGone, "census or probe: pane gone"),
    (Trigger::PaneAlive, "census or probe: pane alive"),
    (Trigger::TerminateRequested, "terminate requested"),
    (Trigger::GraceOver, "grace over (then killed)"),
    (Trigger::KillRequested, "kill requested"),
    (Trigger::RestartRequested, "restart requested"),
    (
        Trigger::AutoRestart,
        "automatic restart (preset asks, under the limit)",
    ),
];

/// The table as Markdown rows (`| from | trigger | to | token |`), computed from [`next`]: the
/// API reference shows it, and a test holds this module's documentation to it.
#[must_use]
pub fn table_markdown() -> String {
    let mut out = String::from("| from | trigger | to | token |\n|---|---|---|---|\n");
    for (trigger, words) in TRIGGERS {
        // The states this trigger moves, grouped by where they go, in table order.
        let mut groups: Vec<(Move, Vec<&str>)> = Vec::new();
        for from in STATES {
            if let Some(m) = next(from, trigger) {
                match groups.iter_mut().find(|(g, _)| *g == m) {
                    Some((_, froms)) => froms.push(from.as_str()),
                    None => groups.push((m, vec![from.as_str()])),
                }
            }
        }
        for (m, froms) in groups {
            let token = match m.token {
                TokenEffect::Keep => "",
                TokenEffect::Revoke => "revoked",
                TokenEffect::Rotate => "rotated",
            };
            out.push_str(&format!(
                "| {} | {words} | {} | {token} |\n",
                froms.join(", "),
                m.to.as_str()
            ));
        }
    }
    out
}

/// Most automatic relaunches of one subshell within [`AUTO_RESTART_WINDOW_MS`].
pub const AUTO_RESTART_LIMIT: i64 = 5;
/// The window of [`AUTO_RESTART_LIMIT`] (ms).
pub const AUTO_RESTART_WINDOW_MS: i64 = 10 * 60 * 1000;
/// How long a graceful stop waits for the program before killing the pane (ms).
pub const TERMINATE_GRACE_MS: u64 = 3_000;

#[cfg(test)]
mod tests {
    use super::*;
    use SubshellState::*;
    use TokenEffect::*;

    const ALL: [SubshellState; 7] = [
        Starting, Running, Stopping, Stopped, Exited, Crashed, Failed,
    ];

    fn m(to: SubshellState, token: TokenEffect) -> Option<Move> {
        Some(Move { to, token })
    }

    // One test per row of the module's table.

    #[test]
    fn starting_and_an_accepted_launch_is_running() {
        assert_eq!(next(Starting, Trigger::LaunchAccepted), m(Running, Keep));
    }

    #[test]
    fn starting_and_a_refused_launch_is_failed_and_revokes() {
        assert_eq!(next(Starting, Trigger::LaunchRefused), m(Failed, Revoke));
    }

    #[test]
    fn exit_zero_is_exited_and_revokes() {
        for s in [Starting, Running] {
            assert_eq!(next(s, Trigger::Exit(Some(0))), m(Exited, Revoke), "{s:?}");
        }
    }

    #[test]
    fn exit_with_another_code_or_none_is_crashed_and_revokes() {
        for s in [Starting, Running] {
            for code in [Some(1), Some(130), Some(-1), None] {
                assert_eq!(
                    next(s, Trigger::Exit(code)),
                    m(Crashed, Revoke),
                    "{s:?} {code:?}"
                );
            }
        }
    }

    #[test]
    fn a_vanished_pane_is_crashed_and_revokes() {
        for s in [Starting, Running] {
            assert_eq!(next(s, Trigger::PaneGone), m(Crashed, Revoke), "{s:?}");
        }
    }

    #[test]
    fn a_pane_found_alive_is_running() {
        for s in [Starting, Running] {
            assert_eq!(next(s, Trigger::PaneAlive), m(Running, Keep), "{s:?}");
        }
    }

    #[test]
    fn terminate_moves_running_to_stopping_and_revokes_at_once() {
        assert_eq!(
            next(Running, Trigger::TerminateRequested),
            m(Stopping, Revoke)
        );
    }

    #[test]
    fn stopping_ends_stopped_on_exit_gone_or_grace() {
        for t in [
            Trigger::Exit(Some(0)),
            Trigger::Exit(Some(143)),
            Trigger::Exit(None),
            Trigger::PaneGone,
            Trigger::GraceOver,
        ] {
            assert_eq!(next(Stopping, t), m(Stopped, Keep), "{t:?}");
        }
    }

    #[test]
    fn kill_stops_any_live_state_and_revokes() {
        for s in [Starting, Running, Stopping] {
            assert_eq!(next(s, Trigger::KillRequested), m(Stopped, Revoke), "{s:?}");
        }
    }

    #[test]
    fn restart_from_any_state_starts_again_with_a_rotated_token() {
        for s in ALL {
            assert_eq!(
                next(s, Trigger::RestartRequested),
                m(Starting, Rotate),
                "{s:?}"
            );
        }
    }

    #[test]
    fn automatic_restart_applies_to_crashed_only() {
        assert_eq!(next(Crashed, Trigger::AutoRestart), m(Starting, Rotate));
        for s in ALL.into_iter().filter(|s| *s != Crashed) {
            assert_eq!(next(s, Trigger::AutoRestart), None, "{s:?}");
        }
    }

    #[test]
    fn the_module_documentation_shows_exactly_the_table_the_code_applies() {
        let source = include_str!("lifecycle.rs");
        let documented: Vec<String> = source
            .lines()
            .filter_map(|l| l.strip_prefix("//! |"))
            .map(|l| {
                format!("|{l}")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let computed: Vec<String> = table_markdown()
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(documented, computed);
    }

    #[test]
    fn every_other_pair_is_refused() {
        // Ended states take no event but a restart.
        for s in [Stopped, Exited, Crashed, Failed] {
            for t in [
                Trigger::LaunchAccepted,
                Trigger::LaunchRefused,
                Trigger::Exit(Some(0)),
                Trigger::Exit(None),
                Trigger::PaneAlive,
                Trigger::PaneGone,
                Trigger::TerminateRequested,
                Trigger::GraceOver,
                Trigger::KillRequested,
            ] {
                assert_eq!(next(s, t), None, "{s:?} {t:?}");
            }
        }
        assert_eq!(next(Running, Trigger::LaunchAccepted), None);
        assert_eq!(next(Starting, Trigger::TerminateRequested), None);
        assert_eq!(next(Stopping, Trigger::TerminateRequested), None);
        assert_eq!(next(Stopping, Trigger::PaneAlive), None);
        assert_eq!(next(Running, Trigger::GraceOver), None);
    }
}
