//! Test support: a thread that swaps two paths with `renameat2(RENAME_EXCHANGE)` again and
//! again — a workspace directory and a symlink to a directory outside. `tests/it/files_race.rs`
//! runs it against the file tools (it includes this file by path), the unit tests against the
//! modules whose by-path reads are private (`vibe::ray`'s package, `vibe::roster`'s drift check,
//! `python_env`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long each state is held (busy, not a sleep: the scheduler would make it milliseconds).
const STATE_HOLD: Duration = Duration::from_micros(40);

/// Swaps two paths atomically until [`ExchangeLoop::finish`] (or drop), leaving them as found.
pub(crate) struct ExchangeLoop {
    stop: Arc<AtomicBool>,
    swaps: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

fn exchange(a: &Path, b: &Path) -> bool {
    rustix::fs::renameat_with(rustix::fs::CWD, a, rustix::fs::CWD, b, rustix::fs::RenameFlags::EXCHANGE).is_ok()
}

impl ExchangeLoop {
    /// Starts swapping `a` and `b` (both must exist).
    pub(crate) fn start(a: PathBuf, b: PathBuf) -> ExchangeLoop {
        let stop = Arc::new(AtomicBool::new(false));
        let swaps = Arc::new(AtomicU64::new(0));
        let thread = std::thread::Builder::new()
            .name("test-rename-exchange".to_owned())
            .spawn({
                let stop = Arc::clone(&stop);
                let swaps = Arc::clone(&swaps);
                move || {
                    while !stop.load(Ordering::Relaxed) {
                        if exchange(&a, &b) {
                            swaps.fetch_add(1, Ordering::Relaxed);
                        }
                        let held = Instant::now();
                        while held.elapsed() < STATE_HOLD && !stop.load(Ordering::Relaxed) {
                            std::hint::spin_loop();
                        }
                    }
                    if swaps.load(Ordering::Relaxed) % 2 == 1 && exchange(&a, &b) {
                        swaps.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
            .expect("spawn the exchange thread");
        ExchangeLoop { stop, swaps, thread: Some(thread) }
    }

    /// Stops, restores the original layout, and returns the number of swaps done.
    pub(crate) fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.join().expect("the exchange thread");
        }
        self.swaps.load(Ordering::Relaxed)
    }
}

impl Drop for ExchangeLoop {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
