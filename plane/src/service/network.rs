//! Network plugins: extra listen addresses (the route shapes are in [`crate::api::network`]).
//!
//! The service decides and records; the HTTP layer binds and serves: it hands the service a
//! [`ListenerHost`] when it starts, which binds an address and serves the same application on
//! it until told to stop. Stored listeners are started again when the plane starts; one that
//! cannot bind then is listed as failed, with the reason.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};

use super::Caller;
use crate::api::network::{Listener, ListenerRequest, ListenerState};
use crate::clock::Clock;
use crate::error::ApiError;
use crate::secret;
use crate::store::{ListenerRow, Store};

/// Stops a running listener when dropped or called.
pub struct StopListener(pub Box<dyn FnOnce() + Send>);

/// What binds and serves an extra address (the HTTP layer).
pub trait ListenerHost: Send + Sync {
    /// Binds `addr` and serves on it; answers the address bound (port 0 picks one) and how to
    /// stop it, or why it could not bind.
    fn start(&self, addr: SocketAddr) -> Result<(SocketAddr, StopListener), String>;
}

struct Running {
    origin: String,
    stop: Option<StopListener>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(StopListener(stop)) = self.stop.take() {
            stop();
        }
    }
}

/// The network domain: extra listen addresses an administrator adds, bound through the HTTP
/// layer's [`ListenerHost`]; the listeners running and those that failed to bind. It holds the
/// store and the clock.
pub struct Network {
    store: Store,
    clock: Arc<dyn Clock>,
    host: OnceLock<Arc<dyn ListenerHost>>,
    running: Mutex<HashMap<String, Running>>,
    failed: Mutex<HashMap<String, String>>,
}

impl Network {
    /// The service over `store`, with no listener until the HTTP layer attaches its host.
    pub(super) fn new(store: Store, clock: Arc<dyn Clock>) -> Self {
        Self {
            store,
            clock,
            host: OnceLock::new(),
            running: Mutex::default(),
            failed: Mutex::default(),
        }
    }

    fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The origins of the running listeners.
    pub(super) fn origins(&self) -> Vec<String> {
        self.running
            .lock()
            .map(|m| m.values().map(|r| r.origin.clone()).collect())
            .unwrap_or_default()
    }
}

fn bind_failed(why: &str) -> ApiError {
    ApiError::new(
        409,
        "NETWORK_BIND_FAILED",
        format!("the plane cannot listen there: {why}"),
    )
    .with_metadata(serde_json::json!({ "reason": why }))
}

impl Network {
    /// Called by the HTTP layer once it serves: from now on listeners can start. Starts the
    /// stored ones.
    pub async fn attach_listener_host(&self, host: Arc<dyn ListenerHost>) {
        if self.host.set(host).is_err() {
            return;
        }
        let rows = match self.store.listeners().await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(error = %e, "the network plugins could not be read");
                return;
            }
        };
        for row in rows {
            let started = row
                .address
                .parse::<SocketAddr>()
                .map_err(|e| e.to_string())
                .and_then(|a| self.start_listener(a));
            match started {
                Ok((_, stop)) => {
                    tracing::info!(address = %row.address, name = %row.name, "network plugin listening");
                    if let Ok(mut m) = self.running.lock() {
                        m.insert(
                            row.id.clone(),
                            Running {
                                origin: row.origin.clone(),
                                stop: Some(stop),
                            },
                        );
                    }
                }
                Err(why) => {
                    tracing::warn!(address = %row.address, reason = %why, "network plugin not listening");
                    if let Ok(mut m) = self.failed.lock() {
                        m.insert(row.id.clone(), why);
                    }
                }
            }
        }
    }

    fn start_listener(&self, addr: SocketAddr) -> Result<(SocketAddr, StopListener), String> {
        self.host
            .get()
            .ok_or_else(|| "the plane is not serving yet".to_owned())?
            .start(addr)
    }

    fn listener_view(&self, r: &ListenerRow) -> Listener {
        let running = self.running.lock().is_ok_and(|m| m.contains_key(&r.id));
        let error = if running {
            None
        } else {
            self.failed
                .lock()
                .ok()
                .and_then(|m| m.get(&r.id).cloned())
                .or_else(|| Some("not started".to_owned()))
        };
        Listener {
            id: r.id.clone(),
            name: r.name.clone(),
            address: r.address.clone(),
            origin: r.origin.clone(),
            state: if running {
                ListenerState::Running
            } else {
                ListenerState::Failed
            },
            error,
            created_at: r.created_at,
        }
    }

    /// `GET /api/network` (admin session).
    pub async fn listeners(&self) -> Result<Vec<Listener>, ApiError> {
        Ok(self
            .store
            .listeners()
            .await?
            .iter()
            .map(|r| self.listener_view(r))
            .collect())
    }

    /// `POST /api/network` (admin session): binds first; only a listener that listens is
    /// stored and trusted.
    pub async fn add_listener(
        &self,
        admin: &Caller,
        req: ListenerRequest,
    ) -> Result<Listener, ApiError> {
        let addr = req.address.0;
        let (bound, stop) = self.start_listener(addr).map_err(|why| bind_failed(&why))?;
        let origin = match &req.origin {
            Some(o) => super::normalize_origin(o.as_str().trim_end_matches('/'))
                .ok_or_else(|| ApiError::validation("origin", "must be http(s)://host[:port]"))?,
            None => format!("http://{bound}"),
        };
        let row = ListenerRow {
            id: secret::new_id()?,
            name: req.name.as_str().to_owned(),
            address: bound.to_string(),
            origin: origin.clone(),
            created_at: self.now(),
        };
        let running = Running {
            origin,
            stop: Some(stop),
        };
        // Until the row is stored, dropping `running` stops the listener again.
        if !self.store.add_listener(&row, &admin.user().id).await? {
            return Err(bind_failed("a network plugin already listens there"));
        }
        if let Ok(mut m) = self.running.lock() {
            m.insert(row.id.clone(), running);
        }
        Ok(self.listener_view(&row))
    }

    /// `DELETE /api/network/{id}` (admin session): stops listening (connections it accepted
    /// finish on their own) and removes the row; its origin is no longer trusted.
    pub async fn delete_listener(&self, admin: &Caller, id: &str) -> Result<(), ApiError> {
        if !self
            .store
            .delete_listener(id, &admin.user().id, self.now())
            .await?
        {
            return Err(ApiError::not_found("network plugin"));
        }
        let stopped = self.running.lock().ok().and_then(|mut m| m.remove(id));
        drop(stopped);
        if let Ok(mut m) = self.failed.lock() {
            m.remove(id);
        }
        Ok(())
    }
}
