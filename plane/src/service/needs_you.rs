//! When a pane's owner is told that it needs them: the "needs you" rules, as a state machine
//! that reads no clock (time is passed in, in monotonic milliseconds) and does no IO.
//!
//! [`super::Notifications`] feeds it every change of a pane's *need* ([`Need`], derived from the
//! subshell row: its lifecycle and its agent state), who watches each pane (the terminal viewers
//! attached to it), and the passing of time; it answers with [`Decision`]s: tell the owner, or
//! clear what they were told.
//!
//! The rules:
//!
//! | Rule | What it means |
//! |------|---------------|
//! | Only needs | A pane is told of only when it starts *needing* its owner: its agent asks (`needs_input`), finished (`done`, or the pane exited cleanly), failed (`error`, or the pane crashed). Working, idle and starting are never news. |
//! | Held | A need is told of only once it has held for [`Rules::hold_ms`] (10 s by default): a permission prompt answered at once, a state that flickers between two hooks, tell nobody. |
//! | Not while watching | Never while the owner watches the pane (a terminal of theirs is attached to it, on any device); and a need the owner saw — they watched the pane while it held — is not told afterwards either. |
//! | One per window | At most one notification per pane per [`Rules::window_ms`] (2 min by default). A need that comes and goes within the window of the last one is not lost: it is counted, and the next notification of the pane says how many it stands for (`coalesced`). |
//! | Same kind of need | A finished agent whose pane then exits, or an error that becomes a crash, is one need (one notification, the newer kind named when it has not been told yet). |
//! | Cleared | When the need leaves (the agent works again, a prompt was answered), what the owner was told of it is cleared (marked read). |
//! | Not news at start | The need a pane has when the plane first sees it (a plane's start) is not told. |
//!
//! Per-person quiet hours, per-pane mutes and the kinds a person switched off are the caller's
//! (they are settings, read when a [`Decision::Tell`] comes).

use std::collections::{BTreeSet, HashMap};

/// What a pane needs of its owner now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Its agent waits for an answer (a question, a permission prompt).
    Input,
    /// Its agent said it finished what it was asked.
    Done,
    /// The pane exited cleanly.
    Exited,
    /// Its agent said it failed.
    Error,
    /// The pane crashed (a non-zero exit, or its pane vanished).
    Crashed,
}

impl Need {
    /// Needs of one class are one need: finishing then exiting, failing then crashing.
    fn class(self) -> u8 {
        match self {
            Self::Input => 0,
            Self::Done | Self::Exited => 1,
            Self::Error | Self::Crashed => 2,
        }
    }
}

/// What a pane needs of its owner, from its row: lifecycle state, agent state and attention
/// (their stored spellings). A crash or a refused relaunch, a clean exit (an error if its agent
/// last said so), or — while it is live — its agent asking, finishing or failing. A stop asked
/// for by someone is not a need.
#[must_use]
pub fn need_of(lifecycle: &str, agent: &str, attention: &str) -> Option<Need> {
    match lifecycle {
        "crashed" | "failed" => Some(Need::Crashed),
        "exited" if agent == "error" => Some(Need::Error),
        "exited" => Some(Need::Exited),
        "stopped" | "stopping" => None,
        _ if attention == "needs_input" || agent == "needs_input" => Some(Need::Input),
        _ if agent == "done" => Some(Need::Done),
        _ if agent == "error" => Some(Need::Error),
        _ => None,
    }
}

fn same_class(a: Option<Need>, b: Option<Need>) -> bool {
    a.map(Need::class) == b.map(Need::class)
}

/// The timing of the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// How long a need must hold before it is told of.
    pub hold_ms: u64,
    /// At most one notification per pane in this long.
    pub window_ms: u64,
}

impl Default for Rules {
    fn default() -> Self {
        Self {
            hold_ms: 10_000,
            window_ms: 120_000,
        }
    }
}

/// What the detector asks of its caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Tell `owner` that pane `pane` needs them.
    Tell {
        /// The subshell.
        pane: String,
        /// Its owner.
        owner: String,
        /// What it needs.
        need: Need,
        /// Needs of this pane that held and left within the window since its last
        /// notification, told by this one.
        coalesced: u32,
    },
    /// What `owner` was told of pane `pane` no longer holds.
    Clear {
        /// The subshell.
        pane: String,
        /// Its owner.
        owner: String,
        /// The need told of.
        need: Need,
    },
}

#[derive(Debug)]
struct Pane {
    owner: String,
    need: Option<Need>,
    /// When `need` began.
    since: u64,
    /// The accounts watching the pane now.
    watchers: BTreeSet<String>,
    /// The owner saw `need` (watched the pane while it held); it is not told of.
    seen: bool,
    /// The need told of, while it holds.
    told: Option<Need>,
    last_told: Option<u64>,
    /// Needs that held but left within the window, not told yet.
    missed: u32,
}

impl Pane {
    /// When `need` is due to be told of, if it is to be.
    fn due(&self, rules: Rules) -> Option<u64> {
        if self.need.is_none() || self.told.is_some() || self.seen {
            return None;
        }
        let held = self.since.saturating_add(rules.hold_ms);
        let window = self
            .last_told
            .map_or(0, |t| t.saturating_add(rules.window_ms));
        Some(held.max(window))
    }
}

/// The detector: every pane it has seen, by subshell id.
#[derive(Debug, Default)]
pub struct Detector {
    rules: Rules,
    panes: HashMap<String, Pane>,
}

impl Detector {
    /// A detector with `rules`.
    #[must_use]
    pub fn new(rules: Rules) -> Self {
        Self {
            rules,
            panes: HashMap::new(),
        }
    }

    /// Pane `pane` of `owner` needs `need` at `now` (called on every change of its row; a
    /// repeat of the same need changes nothing).
    pub fn observe(
        &mut self,
        pane: &str,
        owner: &str,
        need: Option<Need>,
        now: u64,
    ) -> Vec<Decision> {
        let rules = self.rules;
        let Some(p) = self.panes.get_mut(pane) else {
            self.panes.insert(
                pane.to_owned(),
                Pane {
                    owner: owner.to_owned(),
                    need,
                    since: now,
                    watchers: BTreeSet::new(),
                    seen: true,
                    told: None,
                    last_told: None,
                    missed: 0,
                },
            );
            return Vec::new();
        };
        if p.owner != owner {
            // A pane changes hands only by deletion; be safe anyway.
            p.owner = owner.to_owned();
            p.told = None;
        }
        if same_class(p.need, need) {
            if p.told.is_none() {
                p.need = need;
            }
            return Vec::new();
        }
        let mut out = Vec::new();
        if let Some(told) = p.told.take() {
            out.push(Decision::Clear {
                pane: pane.to_owned(),
                owner: p.owner.clone(),
                need: told,
            });
        } else if p.need.is_some() && !p.seen && now >= p.since.saturating_add(rules.hold_ms) {
            // It held, but the window of the last notification kept it back: the next one
            // stands for it.
            p.missed += 1;
        }
        p.need = need;
        p.since = now;
        p.seen = p.watchers.contains(&p.owner);
        out
    }

    /// The accounts watching pane `pane` are `users` now.
    pub fn presence(&mut self, pane: &str, users: impl IntoIterator<Item = String>) {
        if let Some(p) = self.panes.get_mut(pane) {
            p.watchers = users.into_iter().collect();
            if p.watchers.contains(&p.owner) {
                p.seen = true;
            }
        }
    }

    /// Pane `pane` is gone: forgets it, clearing what its owner was told.
    pub fn forget(&mut self, pane: &str) -> Vec<Decision> {
        self.panes
            .remove(pane)
            .and_then(|p| {
                p.told.map(|need| Decision::Clear {
                    pane: pane.to_owned(),
                    owner: p.owner,
                    need,
                })
            })
            .into_iter()
            .collect()
    }

    /// The earliest time a need falls due, if any does.
    #[must_use]
    pub fn next_due(&self) -> Option<u64> {
        self.panes.values().filter_map(|p| p.due(self.rules)).min()
    }

    /// The needs due at `now`.
    pub fn poll(&mut self, now: u64) -> Vec<Decision> {
        let rules = self.rules;
        let mut out = Vec::new();
        for (id, p) in &mut self.panes {
            if p.due(rules).is_none_or(|d| d > now) {
                continue;
            }
            let Some(need) = p.need else { continue };
            p.told = Some(need);
            p.last_told = Some(now);
            out.push(Decision::Tell {
                pane: id.clone(),
                owner: p.owner.clone(),
                need,
                coalesced: std::mem::take(&mut p.missed),
            });
        }
        out.sort_by(|a, b| pane_of(a).cmp(pane_of(b)));
        out
    }

    /// Panes known (for bounds checks).
    #[must_use]
    pub fn len(&self) -> usize {
        self.panes.len()
    }

    /// Whether no pane is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.panes.is_empty()
    }
}

fn pane_of(d: &Decision) -> &str {
    match d {
        Decision::Tell { pane, .. } | Decision::Clear { pane, .. } => pane,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    const HOLD: u64 = 10_000;
    const WINDOW: u64 = 120_000;

    fn detector() -> Detector {
        let mut d = Detector::new(Rules {
            hold_ms: HOLD,
            window_ms: WINDOW,
        });
        assert!(d.observe("p", "ann", None, 0).is_empty());
        d
    }

    fn tells(ds: &[Decision]) -> Vec<(Need, u32)> {
        ds.iter()
            .filter_map(|d| match d {
                Decision::Tell {
                    need, coalesced, ..
                } => Some((*need, *coalesced)),
                Decision::Clear { .. } => None,
            })
            .collect()
    }

    #[test]
    fn a_need_is_told_once_it_has_held_and_only_once() {
        let mut d = detector();
        d.observe("p", "ann", Some(Need::Input), 1_000);
        assert_eq!(d.next_due(), Some(1_000 + HOLD));
        assert!(d.poll(1_000 + HOLD - 1).is_empty());
        assert_eq!(tells(&d.poll(1_000 + HOLD)), [(Need::Input, 0)]);
        assert!(d.poll(1_000_000).is_empty());
        assert_eq!(d.next_due(), None);
    }

    #[test]
    fn a_need_that_leaves_before_it_has_held_tells_nobody() {
        let mut d = detector();
        d.observe("p", "ann", Some(Need::Input), 1_000);
        d.observe("p", "ann", None, 3_000);
        assert!(d.poll(100_000).is_empty());
    }

    #[test]
    fn the_need_a_pane_has_when_first_seen_is_not_news() {
        let mut d = Detector::new(Rules::default());
        d.observe("p", "ann", Some(Need::Crashed), 0);
        assert!(d.poll(10_000_000).is_empty());
    }

    #[test]
    fn never_while_the_owner_watches_nor_after_they_saw_it() {
        let mut d = detector();
        d.presence("p", ["ann".to_owned()]);
        d.observe("p", "ann", Some(Need::Input), 1_000);
        assert!(d.poll(100_000).is_empty());
        // They looked away: still seen.
        d.presence("p", []);
        assert!(d.poll(200_000).is_empty());
        // A new need while nobody watches is told; one a viewer came for while pending is not.
        d.observe("p", "ann", None, 300_000);
        d.observe("p", "ann", Some(Need::Input), 301_000);
        d.presence("p", ["ann".to_owned()]);
        d.presence("p", []);
        assert!(d.poll(400_000).is_empty());
        d.observe("p", "ann", None, 500_000);
        d.observe("p", "ann", Some(Need::Input), 501_000);
        // Someone else watching does not count.
        d.presence("p", ["bob".to_owned()]);
        assert_eq!(tells(&d.poll(501_000 + HOLD)), [(Need::Input, 0)]);
    }

    #[test]
    fn a_need_that_leaves_clears_what_was_told() {
        let mut d = detector();
        d.observe("p", "ann", Some(Need::Input), 0);
        d.poll(HOLD);
        let cleared = d.observe("p", "ann", None, 50_000);
        assert_eq!(
            cleared,
            [Decision::Clear {
                pane: "p".into(),
                owner: "ann".into(),
                need: Need::Input
            }]
        );
        d.observe("p", "ann", Some(Need::Done), 60_000);
        assert_eq!(d.forget("p").len(), 0, "the done was not told yet");
        let mut d = detector();
        d.observe("p", "ann", Some(Need::Input), 0);
        d.poll(HOLD);
        assert_eq!(d.forget("p").len(), 1);
        assert!(d.is_empty());
    }

    #[test]
    fn needs_within_the_window_are_coalesced_into_one() {
        let mut d = detector();
        d.observe("p", "ann", Some(Need::Input), 0);
        assert_eq!(tells(&d.poll(HOLD)), [(Need::Input, 0)]);
        // Two more that each held 20 s, within two minutes: kept back, counted.
        d.observe("p", "ann", None, 20_000);
        d.observe("p", "ann", Some(Need::Input), 30_000);
        assert_eq!(d.next_due(), Some(HOLD + WINDOW));
        assert!(d.poll(50_000).is_empty());
        d.observe("p", "ann", None, 50_000);
        d.observe("p", "ann", Some(Need::Input), 60_000);
        // One that held 2 s does not count.
        d.observe("p", "ann", None, 80_000);
        d.observe("p", "ann", Some(Need::Input), 90_000);
        d.observe("p", "ann", None, 92_000);
        d.observe("p", "ann", Some(Need::Input), 100_000);
        assert!(d.poll(HOLD + WINDOW - 1).is_empty());
        assert_eq!(tells(&d.poll(HOLD + WINDOW)), [(Need::Input, 2)]);
    }

    #[test]
    fn finishing_then_exiting_is_one_need() {
        let mut d = detector();
        d.observe("p", "ann", Some(Need::Done), 0);
        d.observe("p", "ann", Some(Need::Exited), 2_000);
        assert_eq!(
            tells(&d.poll(HOLD)),
            [(Need::Exited, 0)],
            "named by the newer kind"
        );
        assert!(d.observe("p", "ann", Some(Need::Done), 20_000).is_empty());
        d.observe("p", "ann", Some(Need::Error), 30_000);
        d.observe("p", "ann", Some(Need::Crashed), 31_000);
        assert_eq!(tells(&d.poll(HOLD + WINDOW)), [(Need::Crashed, 0)]);
    }

    #[test]
    fn many_panes_fall_due_each_at_its_time() {
        let mut d = Detector::new(Rules::default());
        for i in 0..100u64 {
            d.observe(&format!("p{i:03}"), "ann", None, 0);
            d.observe(&format!("p{i:03}"), "ann", Some(Need::Input), i * 1_000);
        }
        let mut told = 0;
        let mut now = 0;
        while let Some(due) = d.next_due() {
            assert!(due >= now);
            now = due;
            told += tells(&d.poll(now)).len();
        }
        assert_eq!(told, 100);
        assert_eq!(now, 99_000 + 10_000);
    }
}

/// The recorded sessions of `plane/tests/data/needs-you/sessions.json` replayed through the
/// rules, scored against the moments labelled as real needs; the figures are in
/// `benches/README.md` (`cargo test -p termplane --lib needs_you::replay -- --nocapture`).
#[cfg(test)]
mod replay {
    #![allow(clippy::unwrap_used, clippy::panic, clippy::cast_possible_truncation)]
    #![allow(clippy::cast_sign_loss)]
    use super::*;
    use crate::api::subshells::{AgentSource, AgentState};
    use crate::service::subshells::screen;
    use serde_json::Value;

    const SESSIONS: &str = include_str!("../../tests/data/needs-you/sessions.json");

    /// A pane as the plane's row has it.
    struct Row {
        lifecycle: &'static str,
        agent: String,
        source: AgentSource,
        attention: String,
    }

    /// The screen of a `screen` event: a recorded screen by name, or text.
    fn screen_of(e: &Value) -> String {
        match (e.get("file").and_then(Value::as_str), e.get("text")) {
            (Some(f), _) => std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join(format!("tests/data/screens/{f}.txt")),
            )
            .unwrap(),
            (None, Some(t)) => t.as_str().unwrap().to_owned(),
            (None, None) => String::new(),
        }
    }

    /// What a detector told, as (time in ms, needs it stands for).
    type Told = Vec<(u64, u32)>;

    /// Replays one session through `rules` (or, with `None`, through the rule the plane had
    /// before: tell at once on every change into needing input, exiting or crashing, watched
    /// or not).
    fn replay(session: &Value, rules: Option<Rules>) -> Told {
        let harness = session["harness"].as_str().unwrap();
        let mut row = Row {
            lifecycle: "running",
            agent: "starting".into(),
            source: AgentSource::Lifecycle,
            attention: "none".into(),
        };
        let rules_of_screen = crate::plugins::find(harness)
            .map(|p| p.screen)
            .unwrap_or_default();
        let mut d = Detector::new(rules.unwrap_or_default());
        let mut told = Told::new();
        let mut last = None;
        d.observe("p", "owner", None, 0);
        let on_decisions = |ds: Vec<Decision>, told: &mut Told, now: u64| {
            for x in ds {
                if let Decision::Tell { coalesced, .. } = x {
                    told.push((now, 1 + coalesced));
                }
            }
        };
        for e in session["events"].as_array().unwrap() {
            let now = (e[0].as_f64().unwrap() * 1000.0) as u64;
            if rules.is_some() {
                // Everything due before this event is told first.
                while let Some(due) = d.next_due().filter(|&t| t <= now) {
                    let ds = d.poll(due);
                    on_decisions(ds, &mut told, due);
                }
            }
            match e[1].as_str().unwrap() {
                "hook" => {
                    if let Some(st) = termplane_mcp::hook::status_of(harness, &e[2]) {
                        row.agent = st["state"].as_str().unwrap().to_owned();
                        row.source = AgentSource::Hook;
                    }
                }
                "status" => {
                    row.agent = e[2].as_str().unwrap().to_owned();
                    row.source = AgentSource::SelfReport;
                }
                "screen" => {
                    let text = screen_of(&e[2]);
                    let look = screen::Look {
                        active: e[2]["active"] == true,
                        command: None,
                        screen: Some(&text),
                    };
                    let shown = match (AgentState::from_stored(&row.agent), row.source) {
                        (AgentState::Starting, _) => AgentState::Unknown,
                        (s, _) => s,
                    };
                    if let Some(r) = screen::reading(&rules_of_screen, &look)
                        && let Some(s) = screen::decide(shown, row.source, &r)
                    {
                        row.agent = s.as_str().to_owned();
                        row.source = AgentSource::Screen;
                    }
                }
                "attention" => {
                    row.source = AgentSource::SelfReport;
                    row.attention = e[2].as_str().unwrap().to_owned();
                    row.agent = match row.attention.as_str() {
                        "needs_input" => "needs_input",
                        "done" => "done",
                        _ => "working",
                    }
                    .to_owned();
                }
                "exit" => {
                    row.lifecycle = if e[2] == 0 { "exited" } else { "crashed" };
                    if row.agent != "done" && row.agent != "error" {
                        row.agent = if e[2] == 0 { "done" } else { "error" }.to_owned();
                    }
                }
                "watch" => {
                    let who = if e[2] == true {
                        vec!["owner".to_owned()]
                    } else {
                        vec![]
                    };
                    d.presence("p", who);
                    continue;
                }
                other => panic!("unknown event {other}"),
            }
            let need = need_of(row.lifecycle, &row.agent, &row.attention);
            if rules.is_some() {
                let ds = d.observe("p", "owner", need, now);
                on_decisions(ds, &mut told, now);
            } else {
                let news = need != last
                    && matches!(need, Some(Need::Input | Need::Exited | Need::Crashed));
                if news {
                    told.push((now, 1));
                }
                last = need;
            }
        }
        if rules.is_some() {
            while let Some(due) = d.next_due() {
                let ds = d.poll(due);
                on_decisions(ds, &mut told, due);
            }
        }
        told
    }

    /// Matches what was told with the labelled needs: each notification stands for the needs
    /// it counts, the latest unmatched ones begun before it. Answers (spurious, missed,
    /// delays in ms of the needs told).
    fn score(needs: &[u64], told: &Told) -> (usize, usize, Vec<u64>) {
        let mut open: Vec<u64> = needs.to_vec();
        let mut spurious = 0;
        let mut delays = Vec::new();
        for &(at, count) in told {
            let mut covered = 0;
            for _ in 0..count {
                match open.iter().rposition(|&n| n <= at) {
                    Some(i) => {
                        delays.push(at - open.remove(i));
                        covered += 1;
                    }
                    None => break,
                }
            }
            if covered == 0 {
                spurious += 1;
            }
        }
        (spurious, open.len(), delays)
    }

    #[test]
    fn replay_of_the_sessions_tells_every_need_once_and_nothing_else() {
        let all: Value = serde_json::from_str(SESSIONS).unwrap();
        let sessions = all["sessions"].as_array().unwrap();
        let (mut needs, mut notes, mut spurious, mut missed, mut delays) = (0, 0, 0, 0, vec![]);
        let (mut naive_notes, mut naive_spurious, mut naive_missed) = (0, 0, 0);
        for s in sessions {
            let labelled: Vec<u64> = s["needs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| (n.as_f64().unwrap() * 1000.0) as u64)
                .collect();
            let told = replay(s, Some(Rules::default()));
            let (sp, mi, de) = score(&labelled, &told);
            let naive = replay(s, None);
            let (nsp, nmi, _) = score(&labelled, &naive);
            println!(
                "{:<80} needs {} | told {} spurious {sp} missed {mi} | before: told {} spurious {nsp} missed {nmi}",
                s["name"].as_str().unwrap(),
                labelled.len(),
                told.len(),
                naive.len(),
            );
            needs += labelled.len();
            notes += told.len();
            spurious += sp;
            missed += mi;
            delays.extend(de);
            naive_notes += naive.len();
            naive_spurious += nsp;
            naive_missed += nmi;
        }
        delays.sort_unstable();
        println!(
            "{} sessions, {needs} needs: the rules told {notes} notifications, {spurious} spurious, \
             {missed} missed, delay {}..{} ms; the rule before told {naive_notes}, \
             {naive_spurious} spurious, {naive_missed} missed",
            sessions.len(),
            delays.first().unwrap(),
            delays.last().unwrap(),
        );
        assert_eq!((spurious, missed), (0, 0));
        assert!(notes < needs, "needs close together were coalesced");
        // The replay can tell the rules apart: the rule before was noisy on the same sessions.
        assert!(naive_spurious > 0);
    }
}
