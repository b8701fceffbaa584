//! Who typed into a pane: input marks, kept beside its recording and shown in its playback.
//!
//! Every input that reaches a pane through the plane leaves a mark: who (the account, and
//! whether a browser session, a system key or a pane's token acted — which pane's), how and when:
//!
//! | Kind | Made by | One mark per |
//! |---|---|---|
//! | `typed` | keys typed in a terminal socket | batch: keys of one viewer with no pause of [`BATCH_PAUSE_MS`] (at most [`BATCH_LONGEST_MS`] long) |
//! | `paste` | a terminal socket's message of [`PASTE_CHARS`] characters or more, or a bracketed paste | message |
//! | `sent` | `POST /api/subshells/{id}/input` (scripts, and agents' `send_input` through MCP) | call |
//! | `upload` | a file uploaded into the pane's directory | file (its name and size kept) |
//!
//! **What is typed is not kept**, nor how many keys, nor when each came: a mark holds when the
//! input began and when its last key came, so keys typed at a password prompt (which the screen
//! does not echo) cannot be guessed from it beyond what the recording's screen showed. A pane's
//! marks are deleted with it. An administrator turns marking off for the plane with
//! `--input-marks off` (`TERMPLANE_INPUT_MARKS`); marks made before stay.
//!
//! Marks are written by one task fed through a bounded queue: typing never waits for the
//! database, and a mark that finds the queue full is dropped (and logged), never the keys. A
//! batch's row is written when it begins and its end moved when it ends, so a plane that stops
//! mid-batch keeps the mark with the time of its first key.

use std::sync::Arc;

use crate::api::audit::ActorKind;
use crate::api::subshells::{InputKind, InputMark, InputMarks};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::service::Caller;
use crate::store::{InputMarkRow, Store};

/// A pause that ends a viewer's batch of keys (ms).
pub(super) const BATCH_PAUSE_MS: i64 = 2_000;
/// The longest one batch lasts (ms): typing on without a pause starts a new mark.
pub(super) const BATCH_LONGEST_MS: i64 = 60_000;
/// A terminal message with this many characters or more (other than escape sequences, which a
/// single key can send) is a paste: a person's keys come one message each.
pub(super) const PASTE_CHARS: usize = 16;
/// The most marks one listing answers (the oldest first; `truncated` says there are more).
pub(super) const MAX_LISTED: usize = 10_000;
/// Marks waiting to be written before new ones are dropped.
const QUEUE: usize = 4096;

/// Who typed: the account, how it acted, and through which pane's token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Typer {
    /// The acting account.
    pub user_id: String,
    /// The audit log's word for the credential: `cookie`, `system_key` or `pane`.
    pub actor_kind: &'static str,
    /// The pane whose token acted.
    pub via_subshell_id: Option<String>,
}

impl Typer {
    /// The typer a caller is.
    #[must_use]
    pub fn of(c: &Caller) -> Self {
        Self {
            user_id: c.user().id.clone(),
            actor_kind: c.actor_kind(),
            via_subshell_id: match c {
                Caller::Pane { subshell_id, .. } => Some(subshell_id.clone()),
                Caller::Session { .. } | Caller::SystemKey { .. } => None,
            },
        }
    }
}

/// A viewer's keys being marked: the batch open now, if any. Ended (its last key's time
/// written) by [`InputMarks::end`], or by the next key after a pause.
#[derive(Debug, Default)]
pub struct KeyBatch {
    open: Option<Open>,
}

#[derive(Debug)]
struct Open {
    id: String,
    at_ms: i64,
    last_ms: i64,
}

#[derive(Debug)]
enum Write {
    Add(InputMarkRow),
    Extend { id: String, until_ms: i64 },
}

/// The input marks domain: makes marks (when the plane is set to) and lists them.
pub struct Marker {
    store: Store,
    clock: Arc<dyn Clock>,
    on: bool,
    tx: smol::channel::Sender<Write>,
}

impl std::fmt::Debug for Marker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Marker")
            .field("on", &self.on)
            .finish_non_exhaustive()
    }
}

impl Marker {
    /// A marker writing to `store` (nothing is marked when `on` is false); its writer task
    /// runs until the marker is dropped.
    #[must_use]
    pub fn new(store: Store, clock: Arc<dyn Clock>, on: bool) -> Self {
        let (marker, rx) = Self::unstarted(store.clone(), clock, on);
        smol::spawn(async move {
            while let Ok(w) = rx.recv().await {
                let r = match &w {
                    Write::Add(row) => store.add_input_mark(row).await,
                    Write::Extend { id, until_ms } => store.extend_input_mark(id, *until_ms).await,
                };
                if let Err(e) = r {
                    tracing::warn!(error = %e, "an input mark was not written");
                }
            }
        })
        .detach();
        marker
    }

    /// A marker whose writes wait in the receiver for whoever writes them.
    fn unstarted(
        store: Store,
        clock: Arc<dyn Clock>,
        on: bool,
    ) -> (Self, smol::channel::Receiver<Write>) {
        let (tx, rx) = smol::channel::bounded::<Write>(QUEUE);
        (
            Self {
                store,
                clock,
                on,
                tx,
            },
            rx,
        )
    }

    fn queue(&self, w: Write) {
        if self.tx.try_send(w).is_err() {
            tracing::warn!("input marks are coming faster than they are written: one dropped");
        }
    }

    fn add(
        &self,
        subshell_id: &str,
        who: &Typer,
        kind: InputKind,
        at_ms: i64,
        viewer_id: Option<u64>,
        detail: Option<String>,
    ) -> Option<String> {
        let id = crate::secret::new_id().ok()?;
        self.queue(Write::Add(InputMarkRow {
            id: id.clone(),
            subshell_id: subshell_id.to_owned(),
            at_ms,
            until_ms: at_ms,
            kind: kind.as_str().to_owned(),
            actor_user_id: Some(who.user_id.clone()),
            actor_name: None,
            actor_kind: who.actor_kind.to_owned(),
            via_subshell_id: who.via_subshell_id.clone(),
            viewer_id: viewer_id.and_then(|v| i64::try_from(v).ok()),
            detail,
        }));
        Some(id)
    }

    /// Marks a terminal message of keys `data` from viewer `viewer_id`: a paste is a mark of
    /// its own, other keys join the viewer's open batch or start one.
    pub fn keys(
        &self,
        batch: &mut KeyBatch,
        subshell_id: &str,
        who: &Typer,
        viewer_id: u64,
        data: &str,
    ) {
        if !self.on || data.is_empty() {
            return;
        }
        let now = self.clock.now_ms();
        if is_paste(data) {
            self.end(batch);
            self.add(
                subshell_id,
                who,
                InputKind::Paste,
                now,
                Some(viewer_id),
                None,
            );
            return;
        }
        if let Some(o) = batch.open.as_mut()
            && now - o.last_ms < BATCH_PAUSE_MS
            && now - o.at_ms < BATCH_LONGEST_MS
        {
            o.last_ms = o.last_ms.max(now);
            return;
        }
        self.end(batch);
        if let Some(id) = self.add(
            subshell_id,
            who,
            InputKind::Typed,
            now,
            Some(viewer_id),
            None,
        ) {
            batch.open = Some(Open {
                id,
                at_ms: now,
                last_ms: now,
            });
        }
    }

    /// Ends a viewer's open batch: its last key's time is written.
    pub fn end(&self, batch: &mut KeyBatch) {
        if let Some(o) = batch.open.take()
            && o.last_ms > o.at_ms
        {
            self.queue(Write::Extend {
                id: o.id,
                until_ms: o.last_ms,
            });
        }
    }

    /// Marks one input that is not a terminal's keys: `sent` through the API, or an `upload`
    /// (with its detail).
    pub fn once(
        &self,
        subshell_id: &str,
        who: &Typer,
        kind: InputKind,
        detail: Option<serde_json::Value>,
    ) {
        if !self.on {
            return;
        }
        let now = self.clock.now_ms();
        self.add(
            subshell_id,
            who,
            kind,
            now,
            None,
            detail.map(|d| d.to_string()),
        );
    }

    /// A pane's marks, oldest first (the caller's right to read the pane checked before).
    pub async fn list(&self, subshell_id: &str) -> Result<InputMarks, ApiError> {
        let limit = i64::try_from(MAX_LISTED + 1).unwrap_or(i64::MAX);
        let mut rows = self.store.input_marks(subshell_id, limit).await?;
        let truncated = rows.len() > MAX_LISTED;
        rows.truncate(MAX_LISTED);
        Ok(InputMarks {
            marks: rows
                .into_iter()
                // A kind this plane does not know (written by a newer one) is left out.
                .filter_map(|r| {
                    Some(InputMark {
                        at: r.at_ms,
                        until: r.until_ms,
                        kind: InputKind::from_stored(&r.kind)?,
                        actor_user_id: r.actor_user_id,
                        actor_name: r.actor_name,
                        actor_kind: ActorKind::from_stored(&r.actor_kind),
                        via_subshell_id: r.via_subshell_id,
                        viewer_id: r.viewer_id,
                        detail: r.detail.and_then(|d| serde_json::from_str(&d).ok()),
                    })
                })
                .collect(),
            truncated,
        })
    }
}

/// Whether a terminal message is a paste: bracketed as one, or more characters than a key
/// sends (escape sequences, which function keys and mouse reports are, not counted).
#[must_use]
fn is_paste(data: &str) -> bool {
    if data.contains("\u{1b}[200~") {
        return true;
    }
    let mut n = 0;
    let mut escape = false;
    for c in data.chars() {
        if c == '\u{1b}' {
            escape = true;
        } else if escape {
            // An escape sequence ends at its final byte (a letter or `~`).
            if c.is_ascii_alphabetic() || c == '~' {
                escape = false;
            }
        } else {
            n += 1;
            if n >= PASTE_CHARS {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::clock::ManualClock;

    #[test]
    fn a_paste_is_told_from_keys_and_from_the_sequences_keys_send() {
        assert!(!is_paste("a"));
        assert!(!is_paste("\u{1b}[A"));
        assert!(!is_paste("\u{1b}[<0;120;40M\u{1b}[<0;120;40m"));
        assert!(!is_paste("こんにちは"));
        assert!(!is_paste("\u{1b}[1;5C\u{1b}[1;5C\u{1b}[1;5C\u{1b}[1;5C"));
        assert!(is_paste("\u{1b}[200~x\u{1b}[201~"));
        assert!(is_paste("git commit -m 'a message'"));
        assert!(is_paste(&"é".repeat(PASTE_CHARS)));
        assert!(!is_paste(&"é".repeat(PASTE_CHARS - 1)));
    }

    fn marker(on: bool) -> (Marker, smol::channel::Receiver<Write>, ManualClock) {
        let store = smol::block_on(Store::open("sqlite::memory:", 0)).unwrap();
        let clock = ManualClock::new(1_000_000);
        let (m, rx) = Marker::unstarted(store, Arc::new(clock.clone()), on);
        (m, rx, clock)
    }

    /// The writes queued so far, as (kind or "extend", at or until).
    fn queued(rx: &smol::channel::Receiver<Write>) -> Vec<(String, i64)> {
        std::iter::from_fn(|| rx.try_recv().ok())
            .map(|w| match w {
                Write::Add(r) => {
                    assert_eq!(r.at_ms, r.until_ms);
                    (r.kind, r.at_ms)
                }
                Write::Extend { until_ms, .. } => ("extend".to_owned(), until_ms),
            })
            .collect()
    }

    #[test]
    fn keys_make_one_mark_per_batch_a_pause_or_a_paste_ends_one_and_nothing_of_the_keys_is_kept() {
        let (m, rx, clock) = marker(true);
        let who = Typer {
            user_id: "u1".into(),
            actor_kind: "cookie",
            via_subshell_id: None,
        };
        let mut batch = KeyBatch::default();
        let t0 = 1_000_000;
        m.keys(&mut batch, "s1", &who, 7, "p");
        clock.advance_ms(BATCH_PAUSE_MS - 1);
        m.keys(&mut batch, "s1", &who, 7, "w");
        assert_eq!(
            queued(&rx),
            [("typed".to_owned(), t0)],
            "one mark for keys without a pause"
        );
        // A pause: the batch ends at its last key, and the next key starts another.
        clock.advance_ms(BATCH_PAUSE_MS);
        m.keys(&mut batch, "s1", &who, 7, "\u{1b}[A");
        let t1 = t0 + 2 * BATCH_PAUSE_MS - 1;
        assert_eq!(
            queued(&rx),
            [
                ("extend".to_owned(), t0 + BATCH_PAUSE_MS - 1),
                ("typed".to_owned(), t1)
            ]
        );
        // A paste is a mark of its own and ends the batch (which had one key: nothing to move).
        m.keys(&mut batch, "s1", &who, 7, "hunter2hunter2hunter2");
        assert_eq!(queued(&rx), [("paste".to_owned(), t1)]);
        // Typing on without a pause is cut into marks of at most BATCH_LONGEST_MS.
        let mut at = t1;
        for _ in 0..(BATCH_LONGEST_MS / 1000 + 2) {
            clock.advance_ms(1000);
            at += 1000;
            m.keys(&mut batch, "s1", &who, 7, "x");
        }
        m.end(&mut batch);
        let w = queued(&rx);
        assert_eq!(w.iter().filter(|(k, _)| k == "typed").count(), 2, "{w:?}");
        assert_eq!(w.last().unwrap(), &("extend".to_owned(), at));
        // Marks hold who, when and how: never the keys.
        m.keys(
            &mut batch,
            "s1",
            &who,
            7,
            "secret-password-typed-at-a-prompt",
        );
        m.once("s1", &who, InputKind::Sent, None);
        let rows: Vec<InputMarkRow> = std::iter::from_fn(|| rx.try_recv().ok())
            .filter_map(|w| match w {
                Write::Add(r) => Some(r),
                Write::Extend { .. } => None,
            })
            .collect();
        assert_eq!(rows.len(), 2);
        for r in rows {
            assert_eq!(
                (r.actor_user_id.as_deref(), r.viewer_id.is_some()),
                (Some("u1"), r.kind != "sent")
            );
            assert!(r.detail.is_none());
            assert!(!format!("{r:?}").contains("secret"), "{r:?}");
        }
    }

    #[test]
    fn a_plane_set_not_to_mark_marks_nothing() {
        let (m, rx, _) = marker(false);
        let who = Typer {
            user_id: "u1".into(),
            actor_kind: "pane",
            via_subshell_id: Some("s0".into()),
        };
        let mut batch = KeyBatch::default();
        m.keys(&mut batch, "s1", &who, 1, "a");
        m.keys(&mut batch, "s1", &who, 1, "a long paste of many characters");
        m.end(&mut batch);
        m.once(
            "s1",
            &who,
            InputKind::Upload,
            Some(serde_json::json!({ "name": "f" })),
        );
        assert!(queued(&rx).is_empty());
    }
}
