//! Replay and ordering guards of the node: steps (3) and (4) of the verification order.
//!
//! - [`JtiCache`]: per node, surviving reconnects; 2,048 entries. A jti that ran re-sends its
//!   cached answer and never runs twice; a duplicate still in flight waits for the first answer;
//!   the same jti with other content is a conflict. Commands whose `iat` is older than the
//!   process start minus the skew, or not newer than the newest evicted entry's `iat`, are
//!   refused, so eviction opens no replay window.
//! - Restarts: the jtis an earlier process of this node admitted are handed to the new process
//!   ([`JtiCache::carry_over`], from records the runtime persisted with [`ReplayRecord`] before
//!   executing each command). Each is held as answered with [`EARLIER_PROCESS_REFUSAL`], so a
//!   command re-sent after a fast restart — even one issued a second before the new process
//!   started, well inside the skew the process-start watermark allows — is answered and never
//!   runs a second time.
//! - [`SeqGate`]: per connection; the first command carries `seq` 1 and each next one the
//!   previous plus one. A fresh jti is recorded before the seq check, so a seq-rejected frame
//!   still burns its jti; a regression, duplicate or gap asks the runtime to drop the connection
//!   (close 1000) and redial.
//!
//! # Order inside [`admit`]
//!
//! 1. A jti the cache holds is answered from the cache whatever its `seq` (a legitimate
//!    retransmit of an old frame, on this connection or an earlier one): same content and
//!    answered → [`Admission::Resend`]; same content still running → [`Admission::Wait`]; other
//!    content (another [`Verified::digest`]) → [`Admission::Conflict`]. The seq gate is not
//!    touched: it counts fresh commands only.
//! 2. A jti the cache does not hold is refused as [`Admission::Stale`] when its `iat` is before
//!    the process start minus the 5-second skew, when its `iat` is not above the eviction
//!    watermark (an evicted entry of that second or earlier may have been this jti), or when the
//!    cache is full of commands in flight. These are step (3) refusals: like a conflict, the
//!    frame never reaches step (4), so it uses up no `seq` and the next command must carry the
//!    `seq` this one carried.
//! 3. A fresh jti is recorded before the seq check. In order, it is recorded in flight and the
//!    answer is [`Admission::Execute`]; out of order, it is recorded as answered with the refusal
//!    [`SEQ_REFUSAL`] (a later retransmit gets that refusal and it never executes) and the
//!    answer is [`Admission::DropLink`].
//!
//! # Waiters
//!
//! Each [`Admission::Wait`] adds one waiter to the in-flight entry. When the first execution
//! lands, the runtime calls [`JtiCache::record_answer`], which stores the answer and returns how
//! many waiters were parked; the runtime sends the answer once for the first copy and once more
//! for each waiter. The count is then reset: later copies get [`Admission::Resend`].
//!
//! # Eviction and the watermark
//!
//! When the cache is full, the entry with the smallest `(iat, insertion order)` that is not in
//! flight is evicted and the watermark rises to its `iat`. Every admitted entry has
//! `exp <= iat + 30`, so ordering by `iat` evicts entries that are already past `iat + 30 + 5`
//! (refused as expired by the verifier anyway) before any live one. Consequence: a burst of more
//! than 2,048 commands issued within one and the same second makes the further commands of that
//! second stale (refused, never executed, never run twice); sustained rates are unaffected
//! because eviction takes older seconds first. In-flight entries are never evicted; if every
//! entry is in flight, a fresh jti is refused as stale (not recorded).
//!
//! Every operation is O(log n): the entries live in a `BTreeMap` keyed by jti, the evictable
//! ones also in a `BTreeMap` keyed by `(iat, insertion)`.

use std::collections::BTreeMap;

use termplane_proto::CommandResult;
use termplane_proto::limits::CLOCK_SKEW;

use crate::jws::Verified;
use crate::time::UnixSecs;

/// The `error` of the cached answer of a fresh jti refused by the seq gate.
pub const SEQ_REFUSAL: &str = "seq";

/// The `error` answered for a jti that an earlier process of this node admitted (it ran there,
/// or was about to): it never runs again.
pub const EARLIER_PROCESS_REFUSAL: &str = "already received by an earlier node process";

/// What the runtime persists about an admitted command before executing it, so that the next
/// process of this node refuses to run it again ([`JtiCache::carry_over`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayRecord {
    /// The command's jti.
    pub jti: String,
    /// [`Verified::digest`]: the same jti with other content stays a conflict.
    pub digest: [u8; 32],
    /// The command's `iat`.
    pub iat: i64,
}

impl ReplayRecord {
    /// The record of a verified envelope.
    #[must_use]
    pub fn of(verified: &Verified) -> Self {
        Self {
            jti: verified.claims.jti.clone(),
            digest: verified.digest,
            iat: verified.claims.iat,
        }
    }
}

/// What the agent does with a verified envelope.
#[derive(Clone, Debug, PartialEq)]
pub enum Admission {
    /// Fresh and in order: execute it, then [`JtiCache::record_answer`].
    Execute,
    /// Already answered: re-send this answer; do not execute.
    Resend(CommandResult),
    /// Same jti still executing: answer with the first execution's result when it lands.
    Wait,
    /// Same jti, other content: refuse (never hand out another command's answer).
    Conflict,
    /// Refused by the restart or eviction watermark; the one-line reason.
    Stale(String),
    /// Out of order: the jti is burnt; drop the connection (close 1000) and redial.
    DropLink(String),
}

#[derive(Clone, Debug)]
enum State {
    InFlight { waiters: usize },
    Done(CommandResult),
}

#[derive(Clone, Debug)]
struct Entry {
    digest: [u8; 32],
    iat: i64,
    insertion: u64,
    state: State,
}

/// The jti cache.
#[derive(Clone, Debug)]
pub struct JtiCache {
    capacity: usize,
    process_start: UnixSecs,
    entries: BTreeMap<String, Entry>,
    /// Entries that may be evicted (answered ones), by `(iat, insertion)`.
    evictable: BTreeMap<(i64, u64), String>,
    next_insertion: u64,
    watermark: Option<i64>,
    evictions: u64,
    live_evictions: u64,
}

impl JtiCache {
    /// A cache of `capacity` entries for a process started at `process_start`.
    #[must_use]
    pub fn new(capacity: usize, process_start: UnixSecs) -> Self {
        Self {
            capacity: capacity.max(1),
            process_start,
            entries: BTreeMap::new(),
            evictable: BTreeMap::new(),
            next_insertion: 0,
            watermark: None,
            evictions: 0,
            live_evictions: 0,
        }
    }

    /// Records the answer of an executed jti (also releases waiters: see [`Admission::Wait`]).
    ///
    /// Returns how many parked duplicates ([`Admission::Wait`]) must also be sent `answer`, in
    /// addition to the first copy. The first answer wins: an answer for a jti that is already
    /// answered, or that the cache does not hold, changes nothing and returns 0.
    pub fn record_answer(&mut self, jti: &str, answer: CommandResult) -> usize {
        let Some(entry) = self.entries.get_mut(jti) else {
            return 0;
        };
        let State::InFlight { waiters } = entry.state else {
            return 0;
        };
        entry.state = State::Done(answer);
        self.evictable
            .insert((entry.iat, entry.insertion), jti.to_owned());
        waiters
    }

    /// Holds the jtis an earlier process of this node admitted as answered with
    /// [`EARLIER_PROCESS_REFUSAL`]. Call before the first command; records beyond the capacity
    /// evict the oldest ones first (raising the watermark as any eviction does), and a jti
    /// already held keeps its entry.
    pub fn carry_over(&mut self, records: impl IntoIterator<Item = ReplayRecord>) {
        let mut records: Vec<ReplayRecord> = records.into_iter().collect();
        records.sort_by_key(|r| r.iat);
        for r in records {
            if self.entries.contains_key(&r.jti) {
                continue;
            }
            if !self.make_room(UnixSecs(r.iat)) {
                return;
            }
            let answer = CommandResult::err(&r.jti, EARLIER_PROCESS_REFUSAL);
            let insertion = self.next_insertion;
            self.next_insertion += 1;
            self.evictable.insert((r.iat, insertion), r.jti.clone());
            self.entries.insert(
                r.jti,
                Entry {
                    digest: r.digest,
                    iat: r.iat,
                    insertion,
                    state: State::Done(answer),
                },
            );
        }
    }

    /// Number of entries held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the cache is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most entries held at once.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The eviction watermark: the newest `iat` evicted so far (fresh jtis must be newer).
    #[must_use]
    pub fn watermark(&self) -> Option<i64> {
        self.watermark
    }

    /// Entries evicted so far.
    #[must_use]
    pub fn evictions(&self) -> u64 {
        self.evictions
    }

    /// Evictions of entries that were still inside `iat + 30 + 5` when evicted: each one means
    /// the cache was too small for the command rate (worth a log line).
    #[must_use]
    pub fn live_evictions(&self) -> u64 {
        self.live_evictions
    }

    /// Whether `jti` is held.
    #[must_use]
    pub fn contains(&self, jti: &str) -> bool {
        self.entries.contains_key(jti)
    }

    fn stale_reason(&self, iat: i64) -> Option<String> {
        let skew = i64::try_from(CLOCK_SKEW.as_secs()).unwrap_or(i64::MAX);
        if iat < self.process_start.get().saturating_sub(skew) {
            return Some("issued before this node process started".into());
        }
        if self.watermark.is_some_and(|w| iat <= w) {
            return Some("issued no later than an evicted replay-cache entry".into());
        }
        None
    }

    /// Makes room for one entry; false when every entry is in flight.
    fn make_room(&mut self, now: UnixSecs) -> bool {
        while self.entries.len() >= self.capacity {
            let Some(((iat, _), jti)) = self.evictable.pop_first() else {
                return false;
            };
            self.entries.remove(&jti);
            self.watermark = Some(self.watermark.map_or(iat, |w| w.max(iat)));
            self.evictions += 1;
            let envelope =
                i64::try_from((termplane_proto::limits::COMMAND_LIFETIME + CLOCK_SKEW).as_secs())
                    .unwrap_or(i64::MAX);
            if iat.saturating_add(envelope) >= now.get() {
                self.live_evictions += 1;
            }
        }
        true
    }

    fn insert(&mut self, jti: &str, verified: &Verified, state: State) {
        let insertion = self.next_insertion;
        self.next_insertion += 1;
        let iat = verified.claims.iat;
        if matches!(state, State::Done(_)) {
            self.evictable.insert((iat, insertion), jti.to_owned());
        }
        self.entries.insert(
            jti.to_owned(),
            Entry {
                digest: verified.digest,
                iat,
                insertion,
                state,
            },
        );
    }
}

/// Per-connection ordering gate.
#[derive(Clone, Debug, Default)]
pub struct SeqGate {
    last: Option<u64>,
    refused: bool,
}

impl SeqGate {
    /// A gate for a new connection (expects seq 1).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The `seq` the next fresh command must carry (`None` once the gate refused one: the
    /// connection is being dropped and accepts nothing more).
    #[must_use]
    pub fn expected(&self) -> Option<u64> {
        if self.refused {
            None
        } else {
            Some(self.last.map_or(1, |l| l.saturating_add(1)))
        }
    }

    /// Consumes `seq` if it is the expected one; otherwise refuses it, and every later one.
    fn pass(&mut self, seq: u64) -> Result<(), String> {
        let Some(expected) = self.expected() else {
            return Err("connection already refused an out-of-order command".into());
        };
        if seq == expected {
            self.last = Some(seq);
            return Ok(());
        }
        self.refused = true;
        Err(if seq < expected {
            format!("seq regression: expected {expected}, got {seq}")
        } else {
            format!("seq gap: expected {expected}, got {seq}")
        })
    }
}

/// Steps (3) and (4) for an envelope that passed steps (1) and (2).
///
/// See the module documentation for the order and the policies; `now` is wall time, used only
/// to tell live evictions from expired ones.
pub fn admit(
    cache: &mut JtiCache,
    gate: &mut SeqGate,
    verified: &Verified,
    now: UnixSecs,
) -> Admission {
    let jti = verified.claims.jti.as_str();
    if let Some(entry) = cache.entries.get_mut(jti) {
        if entry.digest != verified.digest {
            return Admission::Conflict;
        }
        return match &mut entry.state {
            State::Done(answer) => Admission::Resend(answer.clone()),
            State::InFlight { waiters } => {
                *waiters += 1;
                Admission::Wait
            }
        };
    }
    // Step (3) refusals end here: the seq gate (step 4) never sees the frame.
    if let Some(reason) = cache.stale_reason(verified.claims.iat) {
        return Admission::Stale(reason);
    }
    if !cache.make_room(now) {
        return Admission::Stale("replay cache is full of commands in flight".into());
    }
    match gate.pass(verified.claims.seq) {
        Ok(()) => {
            cache.insert(jti, verified, State::InFlight { waiters: 0 });
            Admission::Execute
        }
        Err(reason) => {
            cache.insert(
                jti,
                verified,
                State::Done(CommandResult::err(jti, SEQ_REFUSAL)),
            );
            Admission::DropLink(reason)
        }
    }
}
