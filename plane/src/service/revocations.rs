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

use super::Service;
use crate::error::ApiError;

/// The write a held revocation waits for.
pub(super) type Write = Box<
    dyn Fn(Arc<Service>) -> Pin<Box<dyn Future<Output = Result<(), ApiError>> + Send>>
        + Send
        + Sync,
>;

/// What is held: `session:<digest>` or `system-key:<id>`.
#[derive(Debug, Default)]
pub(super) struct Held {
    keys: Mutex<HashSet<String>>,
}

impl Held {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.keys
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether `key` is revoked and waiting to be written.
    pub(super) fn contains(&self, key: &str) -> bool {
        self.lock().contains(key)
    }
}

/// Tries to write the held revocation this often…
const RETRY_EVERY: Duration = Duration::from_secs(2);
/// …for this long.
const RETRY_FOR: Duration = Duration::from_secs(3600);

impl Service {
    /// Runs `write` (a revocation). On a full disk, holds `key` revoked in memory, answers
    /// `Ok`, and writes it in the background once the disk has room; any other error is
    /// answered as it is.
    pub(super) async fn revoke(&self, key: String, write: Write) -> Result<(), ApiError> {
        let Some(me) = self.me.upgrade() else {
            return Err(ApiError::internal());
        };
        match write(me.clone()).await {
            Err(e) if e.code == "STORAGE_FULL" => {}
            other => return other,
        }
        tracing::warn!(revocation = %key, "the disk is full: the revocation is in force and is written once there is room");
        me.held_revocations.lock().insert(key.clone());
        let weak = Arc::downgrade(&me);
        let until = me.instant() + RETRY_FOR;
        smol::spawn(async move {
            loop {
                smol::Timer::after(RETRY_EVERY).await;
                let Some(svc) = weak.upgrade() else { return };
                if svc.instant() >= until {
                    break;
                }
                match write(svc.clone()).await {
                    Err(e) if e.code == "STORAGE_FULL" || e.status >= 500 => continue,
                    _ => {
                        svc.held_revocations.lock().remove(&key);
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
