//! The screen signal: what a pane's own screen says its agent is doing, for harnesses without
//! hooks (a plain shell, any other program) and as a cross-check of those with hooks.
//!
//! A node that advertises `activity` tells the plane when each pane starts printing after a
//! quiet spell and when it has printed nothing for
//! [`SCREEN_QUIET_MS`](crate::plugins::SCREEN_QUIET_MS) (with its visible screen and its
//! foreground program); see `exec/src/activity.rs`. Pure functions: no IO, no clock.
//!
//! # What the screen says ([`reading`])
//!
//! | what the node saw | the harness's [`ScreenRules`] | reading |
//! |---|---|---|
//! | anything, with a foreground program | `idle_commands` not empty (a shell) | `idle` when the program is one of them ("at its prompt"), else `working` ("runs <program>") |
//! | printing or quiet | a line of the bottom [`BOTTOM_LINES`] lines of the screen sent that begins with a `needs_input` text (after its frame, cursor, bullet and choice number) | `needs_input`, summary: that line |
//! | printing | otherwise | `working` ("printing") |
//! | quiet | else a `working` text there | `working` (its "interrupt" hint: a turn runs, silently) |
//! | quiet | else an `idle` text there | `idle` |
//! | quiet | none of them | `unknown`: the detector cannot decide and says so |
//!
//! A printing pane's screen comes with the node's samples (one each quiet spell's length while
//! it prints without pause): a TUI that animates a spinner beside its question (Codex does) is
//! never quiet, so its question is read while it prints; a question never shows while an agent
//! works, so a printing screen is otherwise `working` whatever else it shows.
//!
//! Only the bottom of the screen is read: a TUI's prompt, its question and its footer sit
//! there, while the text above is the conversation, which may quote anything. A question must
//! also begin its line, as a prompt's title or choices do: the conversation quoting a prompt's
//! words (a tool's JSON answer holding a pane's summary, say) does not make the agent ask.
//!
//! # When it counts ([`decide`])
//!
//! The harness's own word (a hook, or the agent's `report_status`/`report_attention`) is
//! better than a reading of its screen, so the screen never overrides it, with one exception,
//! the cross-check: a recognised question on a quiet screen (`needs_input`) replaces a hook's or
//! report's `working` or `idle`, since a harness may ask without a hook saying so (Codex has no
//! hook for its approval prompts) or a hook may have been lost. Whatever the screen set, it may
//! change again; a state the lifecycle set (a pane just launched, shown as `unknown`) is the
//! screen's to replace. A reading equal to the current state changes nothing.

use termplane_proto::event::{
    ACTIVITY_COMMAND_MAX_BYTES, ACTIVITY_SCREEN_MAX_BYTES, within_bytes as within,
};

use crate::api::subshells::{AgentSource, AgentState};
use crate::plugins::ScreenRules;

/// How many lines of the bottom of the screen the texts are looked for in.
pub(crate) const BOTTOM_LINES: usize = 25;

/// Longest summary taken from a screen line (characters).
const SUMMARY_CHARS: usize = 120;

/// What the node saw of a pane.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Look<'a> {
    /// Printing (true) or quiet.
    pub active: bool,
    /// Its foreground program.
    pub command: Option<&'a str>,
    /// Its visible screen, when quiet.
    pub screen: Option<&'a str>,
}

/// A state the screen reads, with its summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reading {
    /// The state.
    pub state: AgentState,
    /// Why.
    pub summary: String,
}

fn reading_of(state: AgentState, summary: impl Into<String>) -> Reading {
    Reading {
        state,
        summary: summary.into(),
    }
}

/// The program name tmux reports, as the rules name it: no login-shell `-`, no directory.
fn program_name(command: &str) -> &str {
    let c = command.trim().trim_start_matches('-');
    c.rsplit('/').next().unwrap_or(c)
}

/// What the screen says (the first table of the module docs); `None` when the node's word
/// lacks what the rules need (a shell's foreground program).
#[must_use]
pub(crate) fn reading(rules: &ScreenRules, look: &Look<'_>) -> Option<Reading> {
    if !rules.idle_commands.is_empty() {
        let program = program_name(look.command?);
        if program.is_empty() {
            return None;
        }
        return Some(if rules.idle_commands.contains(&program) {
            reading_of(AgentState::Idle, "at its prompt")
        } else {
            reading_of(AgentState::Working, format!("runs {program}"))
        });
    }
    let screen = look.screen.unwrap_or_default();
    let lines: Vec<&str> = screen.lines().collect();
    let bottom = &lines[lines.len().saturating_sub(BOTTOM_LINES)..];
    let find = |texts: &[&str]| {
        bottom
            .iter()
            .rev()
            .find(|l| texts.iter().any(|t| l.contains(t)))
            .map(|l| summary_of(l))
    };
    let asked = bottom
        .iter()
        .rev()
        .find(|l| {
            let said = said_on(l);
            rules.needs_input.iter().any(|t| begins_with(said, t))
        })
        .map(|l| summary_of(l));
    if let Some(line) = asked {
        return Some(reading_of(AgentState::NeedsInput, line));
    }
    if look.active {
        return Some(reading_of(AgentState::Working, "printing"));
    }
    if find(rules.working).is_some() {
        return Some(reading_of(AgentState::Working, "at work on a turn"));
    }
    if find(rules.idle).is_some() {
        return Some(reading_of(AgentState::Idle, "waits for a prompt"));
    }
    Some(reading_of(
        AgentState::Unknown,
        "quiet; the screen shows nothing recognised",
    ))
}

/// What a screen line says, as a prompt's texts are matched against it: without the frame,
/// cursor and bullet before it (anything but a letter, a digit or a quote) and a choice's
/// number (`2. `).
fn said_on(line: &str) -> &str {
    let text = line.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '"' && c != '\'');
    let numbered = text
        .split_once(". ")
        .filter(|(n, _)| !n.is_empty() && n.len() <= 2 && n.chars().all(|c| c.is_ascii_digit()));
    numbered.map_or(text, |(_, rest)| rest)
}

/// Whether `said` begins with `text`, where a `*` in `text` stands for any run of characters
/// of the line (the part after the last `*` found after the parts before it).
fn begins_with(said: &str, text: &str) -> bool {
    let mut parts = text.split('*');
    let Some(first) = parts.next() else {
        return true;
    };
    let Some(mut rest) = said.strip_prefix(first) else {
        return false;
    };
    for part in parts {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// A screen line as a summary: its text without the box drawing around it, within
/// [`SUMMARY_CHARS`].
fn summary_of(line: &str) -> String {
    let text = line
        .trim_matches(|c: char| c.is_whitespace() || ('\u{2500}'..='\u{259f}').contains(&c))
        .chars()
        .filter(|c| !c.is_control())
        .take(SUMMARY_CHARS)
        .collect::<String>();
    if text.is_empty() {
        "waits for an answer".to_owned()
    } else {
        text
    }
}

/// The state the screen's `reading` sets over the pane's current `state` from `source` (the
/// second part of the module docs); `None`: it changes nothing.
#[must_use]
pub(crate) fn decide(
    state: AgentState,
    source: AgentSource,
    reading: &Reading,
) -> Option<AgentState> {
    if reading.state == state && source == AgentSource::Screen {
        return None;
    }
    let theirs = matches!(source, AgentSource::Hook | AgentSource::SelfReport);
    if theirs
        && !(reading.state == AgentState::NeedsInput
            && matches!(state, AgentState::Working | AgentState::Idle))
    {
        return None;
    }
    Some(reading.state)
}

impl super::Subshells {
    /// Applies a node's `activity` word about one of its panes: the screen's reading, when the
    /// rules above let it count, becomes the pane's agent state (source `screen`, audited as any
    /// change of state, by the plane). A node speaks for its own panes only: word about a pane
    /// of another node, or of no pane, is dropped. The write is made only if the state and its
    /// source are still those the decision was taken on, so a hook's report arriving meanwhile
    /// is never overwritten by a screen read before it.
    pub(in crate::service) async fn apply_activity(
        &self,
        node_id: &str,
        a: &termplane_proto::event::Activity,
    ) -> Result<(), crate::error::ApiError> {
        let id = a.subshell_id.as_str();
        let Some(r) = self.store.subshell(id).await? else {
            return Ok(());
        };
        if r.node_id != node_id {
            tracing::warn!(node = %node_id, subshell = %id, "a node spoke of a pane it does not run");
            return Ok(());
        }
        let rules = crate::plugins::find(&r.harness_id)
            .map(|p| p.screen)
            .unwrap_or_default();
        // Held to the sizes the protocol gives them, whatever a node sent.
        let look = Look {
            active: a.active,
            command: a
                .command
                .as_deref()
                .map(|c| within(c, ACTIVITY_COMMAND_MAX_BYTES, false)),
            screen: a
                .screen
                .as_deref()
                .map(|t| within(t, ACTIVITY_SCREEN_MAX_BYTES, true)),
        };
        let Some(read) = reading(&rules, &look) else {
            tracing::debug!(subshell = %id, "the screen says nothing");
            return Ok(());
        };
        let now = self.clock.now_ms();
        let current = super::agent::agent_view(
            &r,
            crate::api::subshells::SubshellState::from_stored(&r.state),
        );
        let Some(state) = decide(current.state, current.source, &read) else {
            tracing::debug!(subshell = %id, reading = ?read, current = ?current.state, "the screen changes nothing");
            return Ok(());
        };
        let report = crate::store::AgentRow {
            state: state.as_str().to_owned(),
            since: Some(now),
            summary: Some(read.summary),
            link: None,
            source: AgentSource::Screen.as_str().to_owned(),
            observed_at: None,
        };
        let expect = (r.agent.state.as_str(), r.agent.source.as_str());
        match self
            .store
            .report_agent(id, &report, false, Some(expect), (None, "plane"), now)
            .await?
        {
            crate::store::AgentWrite::Applied { .. } => {
                self.publisher.publish_subshell(id).await;
            }
            other => {
                tracing::debug!(subshell = %id, outcome = ?other, "the screen's word not written")
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::plugins::find;

    fn quiet<'a>(screen: &'a str) -> Look<'a> {
        Look {
            active: false,
            command: Some("node"),
            screen: Some(screen),
        }
    }

    fn rules(id: &str) -> ScreenRules {
        find(id).unwrap().screen
    }

    /// Each recorded screen of a real CLI (`plane/tests/data/screens`, named
    /// `<harness>-<what it shows>-<n>.txt`, `<what it shows>` the state it means) reads as the
    /// state its name says.
    #[test]
    fn the_recorded_screens_of_the_real_clis_read_as_what_they_show() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/screens");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
            let (harness, rest) = ["claude-code", "codex", "gemini", "opencode"]
                .iter()
                .find_map(|h| name.strip_prefix(&format!("{h}-")).map(|r| (*h, r)))
                .unwrap_or_else(|| panic!("{name}: no harness"));
            let want = rest.rsplit_once('-').unwrap().0;
            let text = std::fs::read_to_string(&path).unwrap();
            let got = reading(&rules(harness), &quiet(&text)).unwrap();
            assert_eq!(got.state.as_str(), want, "{name}: {got:?}");
            seen += 1;
        }
        assert!(seen >= 8, "only {seen} recorded screens");
    }

    #[test]
    fn a_shell_is_idle_at_its_prompt_and_working_while_a_program_runs() {
        let shell = rules("shell");
        let look = |c| Look {
            active: true,
            command: Some(c),
            screen: None,
        };
        assert_eq!(
            reading(&shell, &look("-bash")).unwrap().state,
            AgentState::Idle
        );
        assert_eq!(
            reading(&shell, &look("/usr/bin/zsh")).unwrap().state,
            AgentState::Idle
        );
        let r = reading(&shell, &look("cargo")).unwrap();
        assert_eq!(
            (r.state, r.summary.as_str()),
            (AgentState::Working, "runs cargo")
        );
        let r = reading(
            &shell,
            &Look {
                active: false,
                command: None,
                screen: Some("$ "),
            },
        );
        assert_eq!(r, None, "no foreground program: no reading");
    }

    #[test]
    fn a_quiet_screen_with_nothing_recognised_is_unknown_never_a_guess() {
        let r = reading(&rules("claude-code"), &quiet("some output\n$ ")).unwrap();
        assert_eq!(r.state, AgentState::Unknown);
        // A harness the plane has no texts for says the same once quiet, and `working` while
        // it prints.
        let none = ScreenRules::default();
        assert_eq!(
            reading(&none, &quiet("anything")).unwrap().state,
            AgentState::Unknown
        );
        let printing = Look {
            active: true,
            command: None,
            screen: None,
        };
        assert_eq!(
            reading(&none, &printing).unwrap().state,
            AgentState::Working
        );
    }

    #[test]
    fn only_the_bottom_of_the_screen_is_read() {
        let mut screen = String::from("│ Do you want to proceed?\n");
        for i in 0..BOTTOM_LINES {
            screen.push_str(&format!("line {i}\n"));
        }
        screen.push_str("  ? for shortcuts\n");
        let r = reading(&rules("claude-code"), &quiet(&screen)).unwrap();
        assert_eq!(r.state, AgentState::Idle, "{r:?}");
        let r = reading(
            &rules("claude-code"),
            &quiet("╭────╮\n│ Do you want to proceed?   │\n│ ❯ 1. Yes\n  ? for shortcuts"),
        )
        .unwrap();
        assert_eq!(r.state, AgentState::NeedsInput);
        assert_eq!(r.summary, "Do you want to proceed?", "the line, trimmed");
    }

    /// Seen with the real opencode: its tool's answer, printed in the conversation, quoted a
    /// pane's summary holding its permission prompt's words; that is not a question.
    #[test]
    fn a_conversation_quoting_a_prompts_words_is_not_a_question() {
        let quoting = "     All done: {\n       \"summary\": \"Allow once   Allow always\n  ┃  Build · Claude Sonnet 4.6 Anthropic\n";
        let r = reading(&rules("opencode"), &quiet(quoting)).unwrap();
        assert_eq!(r.state, AgentState::Idle, "{r:?}");
        let asking = "  △ Permission required\n  ┃ ← termplane_list_subshells\n   Allow once   Allow always   Reject\n";
        let r = reading(&rules("opencode"), &quiet(asking)).unwrap();
        assert_eq!(r.state, AgentState::NeedsInput, "{r:?}");
        assert_eq!(
            said_on(" ● 3. No, suggest changes (esc)"),
            "No, suggest changes (esc)"
        );
        assert_eq!(
            said_on("│ Do you want to proceed?"),
            "Do you want to proceed?"
        );
        assert_eq!(said_on("12. x"), "x");
        assert_eq!(said_on("2026. x"), "2026. x");
    }

    /// Codex names the tool's MCP server in its question: a `*` in a text stands for it, and
    /// the rest must still follow in order on that line.
    #[test]
    fn a_star_in_a_question_stands_for_a_name_on_its_line() {
        let codex = rules("codex");
        let asking = "  Field 1/1\n  Allow the docs MCP server to run tool \"search\"?\n  › 1. Allow   Run the tool and continue\n";
        let r = reading(&codex, &quiet(asking)).unwrap();
        assert_eq!(r.state, AgentState::NeedsInput, "{r:?}");
        assert_eq!(
            r.summary,
            "Allow the docs MCP server to run tool \"search\"?"
        );
        assert!(begins_with(
            "Allow the x MCP server to run tool",
            "Allow the * MCP server to run tool"
        ));
        assert!(!begins_with(
            "Allow the x server to run tool",
            "Allow the * MCP server to run tool"
        ));
        assert!(!begins_with(
            "I said: Allow the x MCP server to run tool",
            "Allow the * MCP server to run tool"
        ));
        assert!(!begins_with(
            "run tool Allow the x MCP server",
            "Allow the * MCP server to run tool"
        ));
        assert!(begins_with("anything", "*"));
        assert!(begins_with("ab", "a*b"));
        assert!(!begins_with("ba", "a*b"));
    }

    /// Seen with the real Codex: its spinner beside an MCP tool's question never lets the pane
    /// go quiet; the node's sample of the printing screen shows the question, which is read as
    /// on a quiet screen, while a printing screen without one is working whatever else it shows.
    #[test]
    fn a_question_on_a_printing_screen_is_read_and_nothing_else_there_is() {
        let codex = rules("codex");
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/screens");
        let asking = std::fs::read_to_string(dir.join("codex-needs_input-2.txt")).unwrap();
        let idle = std::fs::read_to_string(dir.join("codex-idle-2.txt")).unwrap();
        let printing = |screen| Look {
            active: true,
            command: Some("node"),
            screen: Some(screen),
        };
        let r = reading(&codex, &printing(&asking)).unwrap();
        assert_eq!(r.state, AgentState::NeedsInput, "{r:?}");
        assert_eq!(
            r.summary,
            "Allow the termplane MCP server to run tool \"list_subshells\"?"
        );
        let r = reading(&codex, &printing(&idle)).unwrap();
        assert_eq!(
            (r.state, r.summary.as_str()),
            (AgentState::Working, "printing")
        );
    }

    /// A node's word is held to the protocol's sizes: a question beyond the screen's last
    /// 8 KiB is not read, and a cut never splits a character.
    #[test]
    fn what_a_node_sends_is_held_to_the_protocols_sizes() {
        let long = format!(
            "Do you want to proceed?\n{}",
            "é".repeat(ACTIVITY_SCREEN_MAX_BYTES)
        );
        let kept = within(&long, ACTIVITY_SCREEN_MAX_BYTES, true);
        assert!(kept.len() <= ACTIVITY_SCREEN_MAX_BYTES && !kept.contains("proceed"));
        assert_eq!(within("ééé", 3, false), "é");
        assert_eq!(within("ééé", 3, true), "é");
        assert_eq!(within("abc", 8, true), "abc");
    }

    #[test]
    fn the_harness_own_word_outranks_the_screen_but_a_question_on_screen_is_never_hidden() {
        let says = |s| reading_of(s, "x");
        use AgentSource as S;
        use AgentState as A;
        // A hook's or report's word stands against the screen's...
        for source in [S::Hook, S::SelfReport] {
            assert_eq!(decide(A::Idle, source, &says(A::Working)), None);
            assert_eq!(decide(A::Working, source, &says(A::Idle)), None);
            assert_eq!(decide(A::Done, source, &says(A::Unknown)), None);
            assert_eq!(decide(A::Done, source, &says(A::NeedsInput)), None);
            // ...except a question shown while it says it works or waits.
            assert_eq!(
                decide(A::Working, source, &says(A::NeedsInput)),
                Some(A::NeedsInput)
            );
            assert_eq!(
                decide(A::Idle, source, &says(A::NeedsInput)),
                Some(A::NeedsInput)
            );
        }
        // What the screen or the lifecycle set, the screen changes.
        for source in [S::None, S::Lifecycle, S::Screen] {
            assert_eq!(decide(A::Unknown, source, &says(A::Idle)), Some(A::Idle));
            assert_eq!(
                decide(A::NeedsInput, source, &says(A::Working)),
                Some(A::Working)
            );
        }
        assert_eq!(decide(A::Idle, S::Screen, &says(A::Idle)), None);
        assert_eq!(
            decide(A::Unknown, S::None, &says(A::Unknown)),
            Some(A::Unknown),
            "the screen was read: it says so"
        );
    }
}
