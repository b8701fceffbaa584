//! A bounded, per-node buffer of recent node events (`output`, `exit`, `subshells_report`,
//! `maintenance`, `inventory`, `error`), readable through `GET /api/nodes/:id/events`.
//!
//! This is the debug surface of the live link: what a node sent on its own, in arrival order,
//! each with a per-node sequence number and the plane's receive time. Heartbeats and command
//! results are not kept (results answer their command). Each node keeps at most
//! [`MAX_EVENTS`] events and [`MAX_BYTES`] of serialized event text; the oldest go first, and a
//! reader that asks for events already gone learns it from `dropped`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use event_listener::Event as Notify;
use serde_json::Value;
use termplane_proto::Event;

use crate::api::nodes::{NodeEvent, NodeEvents};

/// Most events kept per node.
pub const MAX_EVENTS: usize = 4_096;
/// Most serialized bytes kept per node.
pub const MAX_BYTES: usize = 32 * 1024 * 1024;
/// Most serialized bytes in one read.
pub const MAX_READ_BYTES: usize = 8 * 1024 * 1024;
/// Longest wait a reader may ask for.
pub const MAX_WAIT: Duration = Duration::from_secs(25);

struct Stored {
    seq: u64,
    at_us: u64,
    kind: &'static str,
    event: Value,
    size: usize,
}

#[derive(Default)]
struct NodeLog {
    last_seq: u64,
    bytes: usize,
    events: VecDeque<Stored>,
}

/// The buffers of every node.
#[derive(Default)]
pub struct EventLog {
    nodes: Mutex<HashMap<String, NodeLog>>,
    notify: Notify,
}

impl std::fmt::Debug for EventLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventLog").finish_non_exhaustive()
    }
}

fn unix_micros() -> u64 {
    crate::clock::wall_micros()
}

/// Whether an event kind is kept.
#[must_use]
pub fn kept(e: &Event) -> bool {
    !matches!(
        e,
        Event::Heartbeat(_) | Event::Result(_) | Event::Activity(_)
    )
}

impl EventLog {
    /// Appends one event of `node_id` (ignored unless [`kept`]).
    pub fn push(&self, node_id: &str, e: &Event) {
        if !kept(e) {
            return;
        }
        let event = serde_json::to_value(e).unwrap_or(Value::Null);
        let size = event.to_string().len();
        let at_us = unix_micros();
        {
            let mut nodes = self.nodes.lock().unwrap_or_else(PoisonError::into_inner);
            let log = nodes.entry(node_id.to_owned()).or_default();
            log.last_seq += 1;
            log.bytes += size;
            log.events.push_back(Stored {
                seq: log.last_seq,
                at_us,
                kind: e.kind(),
                event,
                size,
            });
            while log.events.len() > MAX_EVENTS || (log.bytes > MAX_BYTES && log.events.len() > 1) {
                if let Some(old) = log.events.pop_front() {
                    log.bytes -= old.size;
                }
            }
        }
        self.notify.notify(usize::MAX);
    }

    /// Forgets a node's buffer (the node was deleted).
    pub fn forget(&self, node_id: &str) {
        self.nodes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(node_id);
    }

    fn read_now(&self, node_id: &str, after: u64) -> Option<NodeEvents> {
        let nodes = self.nodes.lock().unwrap_or_else(PoisonError::into_inner);
        let log = nodes.get(node_id)?;
        if log.last_seq <= after {
            return None;
        }
        let first = log.events.front().map_or(log.last_seq + 1, |s| s.seq);
        let mut out = Vec::new();
        let mut bytes = 0;
        let mut next = after;
        for s in log.events.iter().filter(|s| s.seq > after) {
            if !out.is_empty() && bytes + s.size > MAX_READ_BYTES {
                break;
            }
            bytes += s.size;
            next = s.seq;
            out.push(NodeEvent {
                seq: s.seq,
                at_us: s.at_us,
                kind: s.kind.to_owned(),
                event: s.event.clone(),
            });
        }
        Some(NodeEvents {
            events: out,
            next,
            dropped: first > after + 1,
        })
    }

    /// Events of `node_id` with a sequence number above `after`, waiting up to `wait` (capped
    /// at [`MAX_WAIT`]) for the first one. Answers `{ events, next, dropped }`: `next` is the
    /// `after` of the following read; `dropped` says older events than asked for were evicted.
    pub async fn read(&self, node_id: &str, after: u64, wait: Duration) -> NodeEvents {
        let deadline = crate::clock::monotonic() + wait.min(MAX_WAIT);
        loop {
            let listener = self.notify.listen();
            if let Some(v) = self.read_now(node_id, after) {
                return v;
            }
            let left = deadline.saturating_duration_since(crate::clock::monotonic());
            if left.is_zero() {
                return NodeEvents {
                    events: Vec::new(),
                    next: after,
                    dropped: false,
                };
            }
            crate::wait::within(left, listener).await;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use termplane_proto::event::{Exit, Heartbeat};

    #[test]
    fn keeps_order_skips_heartbeats_and_reports_drops() {
        let log = EventLog::default();
        log.push("n", &Event::Heartbeat(Heartbeat { at: "1".into() }));
        for i in 0..(MAX_EVENTS + 3) {
            log.push(
                "n",
                &Event::Exit(Exit {
                    subshell_id: termplane_proto::SubshellId::parse("abcd").unwrap(),
                    exit_code: Some(i32::try_from(i).unwrap()),
                    at: "x".into(),
                }),
            );
        }
        let v = smol::block_on(log.read("n", 0, Duration::ZERO));
        assert!(v.dropped);
        let first = v.events[0].seq;
        assert_eq!(first, 4);
        let last = smol::block_on(log.read("n", (MAX_EVENTS + 2) as u64, Duration::ZERO));
        assert_eq!(last.events.len(), 1);
        assert_eq!(last.events[0].kind, "exit");
        assert!(!last.dropped);
        let none =
            smol::block_on(log.read("n", (MAX_EVENTS + 3) as u64, Duration::from_millis(20)));
        assert!(none.events.is_empty());
    }
}
