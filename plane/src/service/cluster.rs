//! Cluster membership: the planes running on one database, each under a lease.
//!
//! Every plane registers itself in `plane_replicas` when it starts — a random id new at each
//! start, the address its peers reach it at (`--cluster-address`, else its base URL), its
//! version and host — with a lease of [`LEASE`], and renews the lease every [`HEARTBEAT`] while
//! it runs. A plane that stops cleanly removes its row; one that dies leaves a row whose lease
//! lapses, which tells the others it is gone, and which any replica prunes a day later.
//! Readiness (`/readyz`, its `cluster` check) and `/metrics` (`termplane_cluster_replicas`)
//! report the membership: this replica's id, and the replicas whose lease holds.
//!
//! The membership is what a cluster of planes is built on: a node's link is held by one
//! replica under that replica's lease (`crate::link`: the newest link wins across replicas, and
//! the nodes of a replica whose lease lapsed are released by the others after their next
//! renewal), and reached from the others through it (`super::peers`). A plane started without
//! `--cluster on` holds its database alone (`crate::instance`): at its start it ends the leases
//! of the rows it finds (planes that are gone: `Settings::shares_database`).

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::clock::Clock;
use crate::error::ApiError;
use crate::store::{ReplicaRow, Store};

/// How long a replica's lease holds without a renewal.
pub const LEASE: Duration = Duration::from_secs(15);

/// How often a running replica renews its lease (three renewals fit in a lease: one lost
/// write does not lapse it).
pub const HEARTBEAT: Duration = Duration::from_secs(5);

/// How long a lapsed replica's row is kept before it is pruned.
const KEEP_LAPSED: Duration = Duration::from_secs(24 * 3600);

/// One member as readiness shows it: its row, and whether its lease holds now.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Member {
    /// Its row.
    #[serde(flatten)]
    pub replica: ReplicaRow,
    /// Whether its lease holds now.
    pub live: bool,
}

/// The membership readiness reports.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Membership {
    /// This replica's id.
    pub replica: String,
    /// Every registered replica, oldest first (lapsed ones for a day).
    pub members: Vec<Member>,
}

impl Membership {
    /// How many members' leases hold.
    #[must_use]
    pub fn live(&self) -> usize {
        self.members.iter().filter(|m| m.live).count()
    }
}

/// This replica in the cluster: its registration and its lease.
pub struct Cluster {
    store: Store,
    clock: Arc<dyn Clock>,
    /// This replica's row (its lease as last written).
    me: std::sync::Mutex<ReplicaRow>,
    /// Set once it left: no renewal writes its row again.
    left: std::sync::atomic::AtomicBool,
    /// Wakes the renewal task when it leaves.
    leaving: event_listener::Event,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("replica", &self.id())
            .finish_non_exhaustive()
    }
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl Cluster {
    /// This replica, `id` (new at each start), reached by its peers at `address`; not
    /// registered yet ([`Self::heartbeat`]).
    pub(super) fn new(store: Store, clock: Arc<dyn Clock>, id: String, address: String) -> Self {
        let now = clock.now_ms();
        let host = rustix::system::uname()
            .nodename()
            .to_string_lossy()
            .into_owned();
        let me = ReplicaRow {
            id,
            address,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            host,
            started_at: now,
            lease_until: now,
        };
        Self {
            store,
            clock,
            me: std::sync::Mutex::new(me),
            left: std::sync::atomic::AtomicBool::new(false),
            leaving: event_listener::Event::new(),
        }
    }

    /// This replica's id.
    #[must_use]
    pub fn id(&self) -> String {
        self.me.lock().map(|m| m.id.clone()).unwrap_or_default()
    }

    /// Registers this replica, or renews its lease (its row is written again if it was pruned
    /// meanwhile), and prunes rows lapsed for a day. Nothing once it left.
    pub async fn heartbeat(&self) -> Result<(), ApiError> {
        if self.has_left() {
            return Ok(());
        }
        let now = self.clock.now_ms();
        let row = {
            let mut me = self.me.lock().map_err(|_| ApiError::internal())?;
            me.lease_until = now.saturating_add(ms(LEASE));
            me.clone()
        };
        self.store.put_replica(&row).await?;
        self.store
            .prune_replicas(now.saturating_sub(ms(KEEP_LAPSED)))
            .await?;
        Ok(())
    }

    /// Renews the lease every [`HEARTBEAT`] (time is what a lease is about) until the
    /// replica leaves, which ends the task at once; after each renewal, `after` runs (the
    /// services square their node links with the rows). A renewal that fails is logged and
    /// tried again at the next beat.
    pub fn spawn_heartbeat<F, Fut>(self: &Arc<Self>, after: F)
    where
        F: Fn() -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send,
    {
        let me = Arc::downgrade(self);
        smol::spawn(async move {
            loop {
                let Some(cluster) = me.upgrade() else { return };
                let leaving = cluster.left_listener();
                if cluster.has_left() {
                    return;
                }
                drop(cluster);
                if crate::wait::within(HEARTBEAT, leaving).await.is_some() {
                    return;
                }
                let Some(cluster) = me.upgrade() else { return };
                if let Err(e) = cluster.heartbeat().await {
                    tracing::warn!(code = e.code, "this replica's lease could not be renewed");
                    continue;
                }
                drop(cluster);
                after().await;
            }
        })
        .detach();
    }

    /// Whether this replica left.
    #[must_use]
    pub fn has_left(&self) -> bool {
        self.left.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// A listener woken when this replica leaves (take it, then look at [`Self::has_left`]).
    pub fn left_listener(&self) -> event_listener::EventListener {
        self.leaving.listen()
    }

    /// Removes this replica's row (a clean stop); no renewal writes it again.
    pub async fn leave(&self) -> Result<(), ApiError> {
        self.left.store(true, std::sync::atomic::Ordering::SeqCst);
        self.leaving.notify(usize::MAX);
        self.store.remove_replica(&self.id()).await?;
        Ok(())
    }

    /// The membership as the database holds it now.
    pub async fn membership(&self) -> Result<Membership, ApiError> {
        let now = self.clock.now_ms();
        let members = self
            .store
            .replicas()
            .await?
            .into_iter()
            .map(|r| Member {
                live: r.lease_until >= now,
                replica: r,
            })
            .collect();
        Ok(Membership {
            replica: self.id(),
            members,
        })
    }
}
