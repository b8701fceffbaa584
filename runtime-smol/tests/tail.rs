//! Pane-log tails driven as smol tasks (`termplane_runtime_smol::tail::drive`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};
use termplane_exec::{TailJob, TailRegistry};

/// A scratch folder removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "termplane-tail-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A tail whose `after_read` never finishes (a node link with no room that never drains) is
/// still stopped at once: `TailRegistry::stop` returns as soon as the driven job has ended,
/// long before the two seconds it gives a job that does not end, and the driving task is over.
#[test]
fn a_tail_stopped_while_its_output_waits_for_room_ends_at_once() {
    let scratch = Scratch::new("stop");
    let log = scratch.0.join("pane.log");
    std::fs::write(&log, b"").unwrap();
    let (events, _events_rx) = std::sync::mpsc::sync_channel(16);
    let registry = Arc::new(TailRegistry::new(events));
    let (jobs_tx, jobs_rx) = smol::channel::unbounded::<TailJob>();
    registry.set_driver(Arc::new(move |job| {
        jobs_tx.try_send(job).err().map(|e| e.into_inner())
    }));
    let (reads_tx, reads_rx) = std::sync::mpsc::channel::<()>();
    let driver = std::thread::spawn(move || {
        smol::block_on(async {
            let job = jobs_rx.recv().await.unwrap();
            termplane_runtime_smol::tail::drive(job, move |_| {
                let _ = reads_tx.send(());
                std::future::pending::<bool>()
            })
            .await;
        });
    });
    registry.start("pane", log.clone(), Some(0)).unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .unwrap()
        .write_all(b"hello\n")
        .unwrap();
    // The tail read the line and now waits for room that never comes.
    reads_rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the tail read");
    let started = Instant::now();
    assert!(registry.stop("pane"));
    let took = started.elapsed();
    assert!(took < Duration::from_millis(1500), "stop took {took:?}");
    driver.join().unwrap();
}

/// A write that lands between the tail's read and its drain of the change notices (here: made
/// by the output hook itself, as the read is delivered) is still read at once: the driver reads
/// the log again after each drain before it waits. Were that read missing, each of these writes
/// would wait for the tail's safety-net timer (`TAIL_POLL`, 100 ms): 50 of them, five seconds.
#[test]
fn a_write_between_the_read_and_the_drain_is_not_left_for_the_timer() {
    const PIECES: usize = 50;
    let scratch = Scratch::new("drain");
    let log = scratch.0.join("pane.log");
    std::fs::write(&log, b"").unwrap();
    let (events, _events_rx) = std::sync::mpsc::sync_channel(16);
    let registry = Arc::new(TailRegistry::new(events));
    let (got_tx, got_rx) = std::sync::mpsc::channel::<usize>();
    let hook_log = log.clone();
    let written = Arc::new(std::sync::atomic::AtomicUsize::new(1));
    let hook_written = written.clone();
    registry.set_output_hook(Arc::new(move |_: &str, _: u64, bytes: &[u8]| {
        let _ = got_tx.send(bytes.len());
        // The next piece, written while this read is being delivered.
        if hook_written.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < PIECES {
            std::fs::OpenOptions::new()
                .append(true)
                .open(&hook_log)
                .unwrap()
                .write_all(b"k")
                .unwrap();
        }
        true
    }));
    let (jobs_tx, jobs_rx) = smol::channel::unbounded::<TailJob>();
    registry.set_driver(Arc::new(move |job| {
        jobs_tx.try_send(job).err().map(|e| e.into_inner())
    }));
    let driver = std::thread::spawn(move || {
        smol::block_on(async {
            let job = jobs_rx.recv().await.unwrap();
            termplane_runtime_smol::tail::drive(job, |_| std::future::ready(true)).await;
        });
    });
    registry.start("pane", log.clone(), Some(0)).unwrap();
    let started = Instant::now();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .unwrap()
        .write_all(b"k")
        .unwrap();
    let mut bytes = 0;
    while bytes < PIECES {
        bytes += got_rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the tail delivers every piece");
    }
    let took = started.elapsed();
    assert_eq!(bytes, PIECES);
    assert!(
        took < Duration::from_millis(2500),
        "{PIECES} pieces took {took:?}: writes made during a delivery waited for the timer"
    );
    assert!(registry.stop("pane"));
    driver.join().unwrap();
}
