//! Liveness and readiness, and the figures `/metrics` reads at scrape time.
//!
//! Readiness is a list of named checks, each cheap:
//!
//! | check | passes when |
//! |---|---|
//! | `database` | a pooled connection reads the migrations table within [`DB_CHECK_TIMEOUT`]; for SQLite, the file at the configured path is still the one the plane opened (not moved, deleted or replaced underneath it) |
//! | `migrations` | the highest migration applied is the highest this binary carries |
//! | `keys` | the link and signing keys are loaded, and the key files in the data directory still hold them (a deleted or replaced key file would orphan every enrolled node at the next start) |
//! | `listening` | the HTTP server accepts connections (not yet, or no longer while it drains) |
//! | `instance_lock` | this plane holds the one-plane-per-database lock (when it took one: the binary does) |
//! | `cluster` | this replica's lease in the cluster's membership holds (see [`super::cluster`]); the answer's `cluster` lists the members |
//!
//! Checks run at most one at a time: a probe that arrives while a check is under way waits for
//! that one and takes its answer, so a burst of probes against a slow database makes one query,
//! not a pile of them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::clock::Clock;
use crate::keys::PlaneSecrets;
use crate::store::Store;

/// Every subshell state, for the `termplane_panes` gauge (a state with no pane reads 0).
const PANE_STATES: [crate::api::subshells::SubshellState; 7] = {
    use crate::api::subshells::SubshellState as S;
    [
        S::Starting,
        S::Running,
        S::Stopping,
        S::Stopped,
        S::Exited,
        S::Crashed,
        S::Failed,
    ]
};

/// Longest the `database` check waits for its query.
pub const DB_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// Something the plane holds that readiness asks about (the instance lock).
pub trait HeldLock: Send + Sync {
    /// `Ok` while held; an error says why not (the holder when known). May try to take the
    /// lock again when it was lost (a database connection that dropped).
    fn check(&self) -> futures_lite::future::Boxed<Result<(), String>>;
}

/// One check's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// Whether it passed.
    pub ok: bool,
    /// What was found, when it failed (or a figure worth showing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The readiness answer: every check by name, and the names of those that failed.
#[derive(Clone, Debug, Serialize)]
pub struct Readiness {
    /// `ready` or `not_ready`.
    pub status: &'static str,
    /// Each check by name.
    pub checks: std::collections::BTreeMap<&'static str, Check>,
    /// The failed checks' names.
    pub failed: Vec<&'static str>,
    /// The cluster's membership, when the database could say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<super::cluster::Membership>,
}

impl Readiness {
    /// Whether every check passed.
    #[must_use]
    pub fn ready(&self) -> bool {
        self.failed.is_empty()
    }
}

/// The health domain: readiness and its checks, and the metrics' upkeep. It holds the store,
/// the clock, the loaded keys and the data directory their files are in, and the state
/// readiness reads that nothing else keeps.
pub struct Health {
    store: Store,
    clock: Arc<dyn Clock>,
    secrets: Arc<PlaneSecrets>,
    data_dir: Option<std::path::PathBuf>,
    listening: AtomicBool,
    /// The node links (their counts are gauges).
    links: Arc<crate::link::LinkHub>,
    /// The output pumps (viewers are a gauge).
    pumps: Arc<super::terminals::pump::Pumps>,
    lock: OnceLock<Arc<dyn HeldLock>>,
    /// This replica in the cluster.
    cluster: Arc<super::cluster::Cluster>,
    /// The last answer and when its check ended; the mutex is the one check in flight.
    last: smol::lock::Mutex<Option<(Instant, Readiness)>>,
}

impl std::fmt::Debug for Health {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Health")
            .field("listening", &self.listening.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

fn pass() -> Check {
    Check {
        ok: true,
        detail: None,
    }
}

fn fail(detail: impl Into<String>) -> Check {
    Check {
        ok: false,
        detail: Some(detail.into()),
    }
}

impl Health {
    /// Health over `store`, checking the key files under `data_dir` hold `secrets`.
    pub(super) fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        secrets: Arc<PlaneSecrets>,
        data_dir: Option<std::path::PathBuf>,
        links: Arc<crate::link::LinkHub>,
        pumps: Arc<super::terminals::pump::Pumps>,
        cluster: Arc<super::cluster::Cluster>,
    ) -> Self {
        Self {
            store,
            clock,
            secrets,
            data_dir,
            links,
            pumps,
            cluster,
            listening: AtomicBool::new(false),
            lock: OnceLock::new(),
            last: smol::lock::Mutex::new(None),
        }
    }

    fn instant(&self) -> Instant {
        self.clock.instant()
    }

    /// This replica in the cluster.
    #[must_use]
    pub fn cluster(&self) -> &Arc<super::cluster::Cluster> {
        &self.cluster
    }

    /// Marks whether the HTTP server accepts connections.
    pub fn set_listening(&self, on: bool) {
        self.listening.store(on, Ordering::SeqCst);
    }

    /// Hands readiness the instance lock to ask about. Only the first call takes effect.
    pub fn attach_instance_lock(&self, lock: Arc<dyn HeldLock>) {
        let _ = self.lock.set(lock);
    }

    /// Readiness: the answer of the check under way when this call came, or of a new one.
    pub async fn readiness(&self) -> Readiness {
        let arrived = self.instant();
        let mut last = self.last.lock().await;
        // A check that ended after this call arrived was under way meanwhile: share it.
        if let Some((ended, answer)) = last.as_ref()
            && *ended >= arrived
        {
            return answer.clone();
        }
        let answer = self.check_readiness().await;
        *last = Some((self.instant(), answer.clone()));
        answer
    }

    async fn check_readiness(&self) -> Readiness {
        let mut checks = std::collections::BTreeMap::new();
        let db = crate::wait::within(DB_CHECK_TIMEOUT, self.store.migration_state()).await;
        let db_answered = matches!(db, Some(Ok(_)));
        let (database, migrations) = match db {
            None => (
                fail(format!(
                    "no answer within {} ms",
                    DB_CHECK_TIMEOUT.as_millis()
                )),
                fail("unknown: the database did not answer"),
            ),
            Some(Err(e)) => (
                fail(format!("unreachable: {}", crate::store::describe_error(&e))),
                fail("unknown: the database did not answer"),
            ),
            Some(Ok((applied, known))) => {
                let database = match self.store.database_file_intact() {
                    Ok(()) => pass(),
                    Err(why) => fail(why),
                };
                let migrations = if applied == known {
                    Check {
                        ok: true,
                        detail: Some(format!("version {applied}")),
                    }
                } else {
                    fail(format!(
                        "version {applied} applied, this binary expects {known}"
                    ))
                };
                (database, migrations)
            }
        };
        checks.insert("database", database);
        checks.insert("migrations", migrations);
        checks.insert("keys", self.check_key_files());
        checks.insert(
            "listening",
            if self.listening.load(Ordering::SeqCst) {
                pass()
            } else {
                fail("not accepting connections (starting, or shutting down)")
            },
        );
        if let Some(lock) = self.lock.get() {
            checks.insert(
                "instance_lock",
                match lock.check().await {
                    Ok(()) => pass(),
                    Err(why) => fail(why),
                },
            );
        }
        // Asked only of a database that answered the first check (not a second wait on one
        // that did not).
        let cluster = if db_answered {
            crate::wait::within(DB_CHECK_TIMEOUT, self.cluster.membership())
                .await
                .and_then(Result::ok)
        } else {
            None
        };
        checks.insert(
            "cluster",
            match &cluster {
                None => fail("unknown: the database did not answer"),
                Some(m)
                    if m.members
                        .iter()
                        .any(|r| r.replica.id == m.replica && r.live) =>
                {
                    Check {
                        ok: true,
                        detail: Some(format!("replica {}; {} live", m.replica, m.live())),
                    }
                }
                Some(m) => fail(format!(
                    "replica {}: its lease has lapsed (its renewals are not reaching the database)",
                    m.replica
                )),
            },
        );
        let failed: Vec<&'static str> = checks
            .iter()
            .filter(|(_, c)| !c.ok)
            .map(|(n, _)| *n)
            .collect();
        Readiness {
            status: if failed.is_empty() {
                "ready"
            } else {
                "not_ready"
            },
            checks,
            failed,
            cluster,
        }
    }

    /// The key files still hold the loaded keys (when the plane knows its data directory).
    fn check_key_files(&self) -> Check {
        let Some(dir) = self.data_dir.as_ref() else {
            return pass();
        };
        for (name, loaded) in [
            (crate::keys::LINK_KEY_FILE, &self.secrets.link),
            (crate::keys::SIGNING_KEY_FILE, &self.secrets.signing),
        ] {
            let path = dir.join(name);
            match std::fs::read(&path) {
                Ok(bytes)
                    if subtle::ConstantTimeEq::ct_eq(bytes.as_slice(), loaded.as_slice())
                        .into() => {}
                Ok(_) => {
                    return fail(format!(
                        "{} no longer holds the key this plane runs with",
                        path.display()
                    ));
                }
                Err(e) => return fail(format!("{}: {e}", path.display())),
            }
        }
        pass()
    }

    /// Checks readiness every `every` for as long as this service lives, logging each change
    /// (a failed check at `warn` with its detail, the return at `info`); a lost instance lock
    /// is taken again by these checks even when no load balancer asks.
    pub fn spawn_readiness_watch(self: &Arc<Self>, every: Duration) {
        let me = Arc::downgrade(self);
        smol::spawn(async move {
            let mut was_ready = true;
            loop {
                smol::Timer::after(every).await;
                let Some(svc) = me.upgrade() else {
                    return;
                };
                let r = svc.readiness().await;
                if r.ready() != was_ready {
                    if r.ready() {
                        tracing::info!("ready again: every readiness check passes");
                    } else {
                        let details: Vec<String> = r
                            .checks
                            .iter()
                            .filter(|(_, c)| !c.ok)
                            .map(|(n, c)| {
                                format!("{n}: {}", c.detail.as_deref().unwrap_or("failed"))
                            })
                            .collect();
                        tracing::warn!(failed = ?r.failed, "not ready: {}", details.join("; "));
                    }
                    was_ready = r.ready();
                }
            }
        })
        .detach();
    }

    /// Runs the metrics' upkeep every few seconds for as long as this service lives.
    pub fn spawn_metrics_upkeep(self: &Arc<Self>) {
        let me = Arc::downgrade(self);
        smol::spawn(async move {
            loop {
                smol::Timer::after(Duration::from_secs(5)).await;
                let Some(svc) = me.upgrade() else {
                    return;
                };
                svc.store.metrics().upkeep();
            }
        })
        .detach();
    }
}

impl Health {
    /// The plane's metrics.
    #[must_use]
    pub fn metrics(&self) -> &Arc<crate::metrics::Metrics> {
        self.store.metrics()
    }

    /// Sets the gauges read at scrape time (nodes, panes, viewers) and renders every metric.
    pub async fn render_metrics(&self) -> String {
        let m = self.metrics();
        let links = &self.links;
        m.set_gauge("termplane_nodes_online", links.online_count() as f64);
        m.set_gauge("termplane_nodes_held", links.held().len() as f64);
        m.set_gauge("termplane_node_sockets_open", links.live_count() as f64);
        m.set_gauge(
            "termplane_terminal_viewers",
            self.pumps.viewer_total() as f64,
        );
        if let Some(Ok(c)) = crate::wait::within(DB_CHECK_TIMEOUT, self.cluster.membership()).await
        {
            let live = c.live();
            m.set_gauge_with("termplane_cluster_replicas", "state", "live", live as f64);
            m.set_gauge_with(
                "termplane_cluster_replicas",
                "state",
                "lapsed",
                (c.members.len() - live) as f64,
            );
        }
        let counts = crate::wait::within(DB_CHECK_TIMEOUT, self.store.subshell_state_counts())
            .await
            .and_then(Result::ok);
        if let Some(counts) = counts {
            for state in PANE_STATES {
                let n = counts
                    .iter()
                    .find(|(s, _)| s == state.as_str())
                    .map_or(0, |(_, n)| *n);
                m.set_gauge_with("termplane_panes", "state", state.as_str(), n as f64);
            }
        }
        m.render()
    }
}
