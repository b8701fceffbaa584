//! The services as the node link's [`LinkSink`]: what a link needs from the plane and where its
//! events go. The link layer calls only this; the services subscribe to a link's events here.

use std::sync::Arc;

use termplane_proto::Event;
use termplane_proto::event::Output;

use super::Services;
use crate::link::{LinkHub, LinkSink};
use crate::store::Store;

impl LinkSink for Services {
    fn hub(&self) -> &LinkHub {
        self.links()
    }

    fn store(&self) -> &Store {
        Self::store(self)
    }

    fn link_secret(&self) -> [u8; 32] {
        Self::link_secret(self)
    }

    fn now_ms(&self) -> i64 {
        Self::now_ms(self)
    }

    fn metrics(&self) -> &crate::metrics::Metrics {
        self.health.metrics()
    }

    async fn node_of_key(&self, token: &str) -> Option<String> {
        self.guard.node_by_key(token).await.ok().map(|n| n.id)
    }

    async fn node_changed(&self, node_id: &str) {
        self.publisher.publish_node(node_id).await;
    }

    async fn node_online(self: Arc<Self>, node_id: String) {
        self.nodes.push_allowed_dirs(&node_id).await;
        self.nodes.push_maintenance(&node_id).await;
        self.nodes
            .push_activity(&node_id, self.settings().screen_signal)
            .await;
    }

    fn viewer_output(&self, node_id: &str, output: &Output) -> bool {
        if !super::terminals::is_viewer_tail(&output.sub_id) {
            return false;
        }
        match super::terminals::pump::viewer_tail_replica(&output.sub_id) {
            // A viewer at another replica: its pump started this tail through this replica.
            Some(r) if r != self.links().replica() => {
                self.peers.forward_output(r, node_id, output);
            }
            _ => self.terminals.pumps().route_output(node_id, output),
        }
        true
    }

    fn event_arrived(&self, node_id: &str, event: &Event) {
        self.nodes.events().push(node_id, event);
    }

    async fn apply_event(self: &Arc<Self>, node_id: &str, conn: u64, event: &Event) {
        if matches!(event, Event::Activity(_)) && !self.settings().screen_signal {
            // Word a node sent before it was told to stop: the screen signal is off.
            return;
        }
        self.node_reports
            .apply_node_event(node_id, conn, event)
            .await;
    }
}
