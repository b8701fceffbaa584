//! Revocations a full disk cannot write yet.
//!
//! Signing out, and disabling or deleting a system key, must take effect when asked, even on a
//! plane whose disk is full: a leaked credential has to stop working *now*. When the write of
//! such a revocation fails with 507 `STORAGE_FULL`, the revocation is held in memory instead —
//! the credential is refused from that moment — and the request is answered as done; a task
//! writes it once the disk has room (every 2 s, for up to an hour). A plane restarted before
//! then forgets what it held: the write did not happen, so the credential works again (the
//! operator was told the disk is full by every other write).

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::clock::Clock;
use crate::error::ApiError;
use crate::store::Store;

/// The write a held revocation waits for, on the store.
pub(super) type Write =
    Box<dyn Fn(Store) -> Pin<Box<dyn Future<Output = Result<(), ApiError>> + Send>> + Send + Sync>;

/// Tries to write the held revocation this often…
const RETRY_EVERY: Duration = Duration::from_secs(2);
/// …for this long.
const RETRY_FOR: Duration = Duration::from_secs(3600);

/// What the retrying tasks share with the owner: they stop once it is gone.
struct Inner {
    store: Store,
    /// What is held: `session:<digest>` or `system-key:<id>`.
    held: Mutex<HashSet<String>>,
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Revocations: written at once, or held in force while a full disk refuses them. It holds the
/// store and the clock.
pub(super) struct Revocations {
    inner: Arc<Inner>,
    clock: Arc<dyn Clock>,
}

impl Revocations {
    /// Revocations written to `store`.
    pub(super) fn new(store: Store, clock: Arc<dyn Clock>) -> Self {
        Self {
            inner: Arc::new(Inner {
                store,
                held: Mutex::default(),
            }),
            clock,
        }
    }

    /// Whether `key` is revoked and waiting to be written.
    pub(super) fn contains(&self, key: &str) -> bool {
        self.inner.lock().contains(key)
    }

    /// Runs `write` (a revocation). On a full disk, holds `key` revoked in memory, answers
    /// `Ok`, and writes it in the background once the disk has room; any other error is
    /// answered as it is.
    pub(super) async fn revoke(&self, key: String, write: Write) -> Result<(), ApiError> {
        match write(self.inner.store.clone()).await {
            Err(e) if e.code == "STORAGE_FULL" => {}
            other => return other,
        }
        tracing::warn!(revocation = %key, "the disk is full: the revocation is in force and is written once there is room");
        self.inner.lock().insert(key.clone());
        let weak = Arc::downgrade(&self.inner);
        let clock = self.clock.clone();
        let until = clock.instant() + RETRY_FOR;
        smol::spawn(async move {
            loop {
                smol::Timer::after(RETRY_EVERY).await;
                let Some(inner) = weak.upgrade() else { return };
                if clock.instant() >= until {
                    break;
                }
                match write(inner.store.clone()).await {
                    Err(e) if e.code == "STORAGE_FULL" || e.status >= 500 => continue,
                    _ => {
                        inner.lock().remove(&key);
                        tracing::info!(revocation = %key, "a held revocation is written");
                        return;
                    }
                }
            }
            tracing::warn!(revocation = %key, "a held revocation could not be written for an hour; it stays in force until the plane restarts");
        })
        .detach();
        Ok(())
    }
}
