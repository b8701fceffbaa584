//! Password hashing and checking (argon2id with its default cost: 19 MiB of memory and two
//! passes per hash), on [`THREADS`] threads of their own for the whole process, each hashing in
//! one block of memory it keeps for its life.
//!
//! Sign-in is open to anyone who reaches the plane, and each hash needs 19 MiB while it runs;
//! on the shared blocking pool, a burst of sign-ins ran one hash per request at once (sixteen
//! attempts took the plane from 56 to 369 MB), and the allocator kept up to three freed hashes'
//! worth in each thread's arena (argon2's own allocation is aligned, and the pieces it is cut
//! from are not reused). Here at most [`THREADS`] hashes run at once, the rest wait their turn
//! in order (a queued request holds only its password), and hashing holds [`THREADS`] × 19 MiB
//! at most, whatever comes.
//!
//! The hashes are the standard PHC strings `Argon2::default()` makes and reads
//! (`$argon2id$v=19$m=19456,t=2,p=1$…`), checked in constant time.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};

use std::cell::RefCell;

use argon2::password_hash::phc::{Output, ParamsString, PasswordHash, Salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};

use crate::error::ApiError;

/// Hashes that may run at once.
pub const THREADS: usize = 2;

type Job = Box<dyn FnOnce() + Send>;

fn queue() -> Option<&'static Mutex<Sender<Job>>> {
    static QUEUE: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
    QUEUE
        .get_or_init(|| {
            let (tx, rx) = channel::<Job>();
            let rx = Arc::new(Mutex::new(rx));
            let mut started = 0;
            for i in 0..THREADS {
                let rx: Arc<Mutex<Receiver<Job>>> = Arc::clone(&rx);
                let spawned = std::thread::Builder::new()
                    .name(format!("passwords-{i}"))
                    .spawn(move || {
                        loop {
                            // The lock is held only to take the next job, not to run it.
                            let next = rx.lock().ok().and_then(|r| r.recv().ok());
                            match next {
                                Some(job) => job(),
                                None => return,
                            }
                        }
                    });
                if spawned.is_ok() {
                    started += 1;
                }
            }
            (started > 0).then(|| Mutex::new(tx))
        })
        .as_ref()
}

/// Runs `f` on the hashing threads and waits for its answer.
async fn on_hashing_threads<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    let (tx, rx) = smol::channel::bounded(1);
    let job: Job = Box::new(move || {
        let _ = tx.try_send(f());
    });
    let sent = queue()
        .and_then(|q| q.lock().ok())
        .is_some_and(|q| q.send(job).is_ok());
    if !sent {
        tracing::error!("the password hashing threads are not running");
        return Err(ApiError::internal());
    }
    rx.recv().await.map_err(|_| {
        tracing::error!("a password hashing thread ended before it answered");
        ApiError::internal()
    })
}

/// Most memory a stored hash may ask of a check (blocks of 1 KiB): 256 MiB. A hash asking for
/// more does not verify.
const MAX_BLOCKS: usize = 256 * 1024;

thread_local! {
    /// This hashing thread's memory, kept between hashes (grown, never shrunk).
    static MEMORY: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` over `blocks` blocks of this thread's memory.
fn with_memory<T>(blocks: usize, f: impl FnOnce(&mut [Block]) -> T) -> T {
    MEMORY.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() < blocks {
            m.resize(blocks, Block::default());
        }
        f(&mut m[..blocks])
    })
}

fn hash_blocking(password: &[u8]) -> Result<String, String> {
    let params = Params::default();
    let salt_bytes = crate::secret::random_bytes::<16>().map_err(|e| e.to_string())?;
    let salt = Salt::new(&salt_bytes).map_err(|e| e.to_string())?;
    let mut out = [0_u8; Params::DEFAULT_OUTPUT_LEN];
    let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    with_memory(params.block_count(), |memory| {
        argon2.hash_password_into_with_memory(password, &salt, &mut out, memory)
    })
    .map_err(|e| e.to_string())?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(|e| e.to_string())?,
        salt: Some(salt),
        hash: Some(Output::new(&out).map_err(|e| e.to_string())?),
    };
    Ok(phc.to_string())
}

fn verify_blocking(password: &[u8], phc: &str) -> bool {
    let Ok(h) = PasswordHash::new(phc) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (&h.salt, &h.hash) else {
        return false;
    };
    let Ok(algorithm) = Algorithm::try_from(h.algorithm.as_str()) else {
        return false;
    };
    let version = match h.version.map(Version::try_from).transpose() {
        Ok(v) => v.unwrap_or_default(),
        Err(_) => return false,
    };
    let Ok(params) = Params::try_from(&h) else {
        return false;
    };
    let blocks = params.block_count();
    if blocks > MAX_BLOCKS {
        return false;
    }
    let mut out = vec![0_u8; expected.len()];
    let argon2 = Argon2::new(algorithm, version, params);
    let computed = with_memory(blocks, |memory| {
        argon2.hash_password_into_with_memory(password, salt, &mut out, memory)
    });
    // `Output` compares in constant time.
    computed.is_ok() && Output::new(&out).is_ok_and(|o| o == *expected)
}

/// The PHC string of `password`'s argon2id hash (a fresh salt).
pub async fn hash(password: String) -> Result<String, ApiError> {
    on_hashing_threads(move || hash_blocking(password.as_bytes()))
        .await?
        .map_err(|e| {
            tracing::error!(error = %e, "password hashing failed");
            ApiError::internal()
        })
}

/// Whether `password` matches the PHC string `phc` (false for a malformed one).
pub async fn verify(password: String, phc: String) -> bool {
    on_hashing_threads(move || verify_blocking(password.as_bytes(), &phc))
        .await
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only() {
        smol::block_on(async {
            let phc = hash("correct horse".into()).await.unwrap();
            assert!(phc.starts_with("$argon2id$"));
            assert!(verify("correct horse".into(), phc.clone()).await);
            assert!(!verify("correct horsf".into(), phc).await);
            assert!(!verify("x".into(), "not a phc string".into()).await);
        });
    }

    /// Hashes are the crate's own standard strings, both ways: a hash stored before (made by
    /// `Argon2::default()`) still verifies, and one made here verifies there.
    #[test]
    fn hashes_read_and_written_as_argon2_default_does() {
        use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
        let theirs = Argon2::default()
            .hash_password(b"stored before")
            .unwrap()
            .to_string();
        assert!(smol::block_on(verify(
            "stored before".into(),
            theirs.clone()
        )));
        assert!(!smol::block_on(verify("stored befor".into(), theirs)));
        let ours = smol::block_on(hash("made here".into())).unwrap();
        assert!(
            ours.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{ours}"
        );
        assert!(
            Argon2::default()
                .verify_password(b"made here", ours.as_str())
                .is_ok()
        );
        // A hash that asks for more memory than a check may take does not verify.
        let greedy = "$argon2id$v=19$m=4194304,t=1,p=1$c2FsdHNhbHRzYWx0$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
        assert!(!smol::block_on(verify("x".into(), greedy.into())));
    }

    #[test]
    fn hashes_asked_for_at_once_all_answer() {
        let answers = smol::block_on(futures_lite::future::zip(
            futures_lite::future::zip(hash("a".into()), hash("b".into())),
            futures_lite::future::zip(hash("c".into()), hash("d".into())),
        ));
        let ((a, b), (c, d)) = answers;
        for h in [a, b, c, d] {
            assert!(h.unwrap().starts_with("$argon2id$"));
        }
    }
}
