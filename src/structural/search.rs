//! The search engine shared by `ast_grep` and `ast_edit`: a parallel, gitignore-aware walk
//! over the files of one language, a literal pre-filter before parsing, and per-file matching.
//!
//! The walk is `ignore::WalkBuilder::build_parallel` (standard filters: hidden files and
//! `.gitignore`d paths are skipped, as ast-grep does). Each worker reads a file, skips it
//! unless it contains every literal of the pattern (a match always contains them, so this never
//! drops a true match), parses it, and hands owned results to the caller's per-file function.
//! `WalkParallel::run` returns only after every worker thread has finished.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::AstGrep;
use ast_grep_language::SupportLang;
use ignore::{WalkBuilder, WalkState};
use parking_lot::Mutex;

use crate::progress::ProgressUpdate;
use crate::registry::CancelToken;
use crate::structural::compile::CompiledPattern;

/// A parsed file handed to the per-file function.
pub type ParsedFile = AstGrep<StrDoc<SupportLang>>;

/// Limits of one walk.
#[derive(Debug, Clone)]
pub struct WalkLimits {
    /// Walker threads; 0 = `min(available_parallelism, 12)`.
    pub threads: usize,
    /// Files larger than this many bytes **and** longer than `max_file_lines` are skipped
    /// (and counted), as ast-grep does.
    pub max_file_bytes: u64,
    /// See `max_file_bytes`.
    pub max_file_lines: usize,
    /// The walk stops (and reports `timed_out`) at this instant.
    pub deadline: Instant,
    /// The walk stops (and reports `cancelled`) when this is cancelled.
    pub cancel: CancelToken,
    /// When `false`, every file is parsed (used by tests to prove the pre-filter is exact).
    pub use_literal_prefilter: bool,
}

/// Counters of one walk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalkStats {
    /// Files of the language the walk visited.
    pub files_visited: usize,
    /// Files that contained every literal of the pattern (and so were parsed).
    pub files_with_literals: usize,
    /// Files parsed.
    pub files_parsed: usize,
    /// Files skipped because they are not UTF-8.
    pub files_not_utf8: usize,
    /// Files skipped because of their size.
    pub files_too_large: usize,
    /// Files or directories that could not be read, with the error (first 5 kept).
    pub unreadable: Vec<String>,
    /// Number of unreadable entries in total.
    pub unreadable_count: usize,
    /// The deadline passed before the walk finished.
    pub timed_out: bool,
    /// The host cancelled the call.
    pub cancelled: bool,
}

/// Walks `target` (a file or a directory) for files of the pattern's language and calls
/// `per_file(path, parsed)` for every parsed file; returns the non-`None` outputs (in no
/// particular order) and the counters.
///
/// A single file is searched whatever its extension; a directory yields only files whose
/// extension belongs to the language.
pub fn walk_and_match<T: Send>(
    target: &Path,
    compiled: &CompiledPattern,
    limits: &WalkLimits,
    per_file: &(dyn Fn(&Path, &ParsedFile) -> Option<T> + Sync),
) -> (Vec<T>, WalkStats) {
    let outputs: Mutex<Vec<T>> = Mutex::new(Vec::new());
    let stats = Mutex::new(WalkStats::default());
    let stop = AtomicBool::new(false);
    let visited = AtomicUsize::new(0);
    // The calling call's progress sink (a no-op when its host does not listen), shared with the
    // walker threads: files searched so far; the total is unknown until the walk ends.
    let progress = crate::progress::current();
    let visit_file = |path: &Path| -> WalkState {
        if stop.load(Ordering::Relaxed) {
            return WalkState::Quit;
        }
        if limits.cancel.is_cancelled() || Instant::now() >= limits.deadline {
            let mut stats = stats.lock();
            stats.cancelled |= limits.cancel.is_cancelled();
            stats.timed_out |= !limits.cancel.is_cancelled();
            stop.store(true, Ordering::Relaxed);
            return WalkState::Quit;
        }
        let searched = visited.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(progress) = &progress {
            progress.report_with(|| ProgressUpdate::new(searched as f64).with_message(format!("{searched} files searched")));
        }
        match search_one_file(path, compiled, limits, per_file) {
            FileOutcome::Output(output) => {
                stats.lock().count_parsed();
                outputs.lock().push(output);
            }
            FileOutcome::NoOutput => stats.lock().count_parsed(),
            FileOutcome::NoLiterals => {}
            FileOutcome::NotUtf8 => {
                let mut stats = stats.lock();
                stats.files_with_literals += 1;
                stats.files_not_utf8 += 1;
            }
            FileOutcome::TooLarge => stats.lock().files_too_large += 1,
            FileOutcome::Unreadable(message) => stats.lock().push_unreadable(message),
        }
        WalkState::Continue
    };
    let metadata = std::fs::metadata(target);
    if metadata.as_ref().is_ok_and(|m| m.is_file()) {
        visit_file(target);
    } else {
        let mut builder = WalkBuilder::new(target);
        builder.types(compiled.language.file_types()).threads(limits.threads);
        builder.build_parallel().run(|| {
            Box::new(|entry| match entry {
                Ok(entry) => {
                    if entry.file_type().is_some_and(|t| t.is_file()) {
                        visit_file(entry.path())
                    } else {
                        WalkState::Continue
                    }
                }
                Err(err) => {
                    stats.lock().push_unreadable(err.to_string());
                    WalkState::Continue
                }
            })
        });
    }
    let mut stats = stats.into_inner();
    stats.files_visited = visited.into_inner();
    release_freed_parser_memory();
    (outputs.into_inner(), stats)
}

impl WalkStats {
    fn count_parsed(&mut self) {
        self.files_with_literals += 1;
        self.files_parsed += 1;
    }

    fn push_unreadable(&mut self, message: String) {
        self.unreadable_count += 1;
        if self.unreadable.len() < 5 {
            self.unreadable.push(message);
        }
    }
}

enum FileOutcome<T> {
    Output(T),
    NoOutput,
    NoLiterals,
    NotUtf8,
    TooLarge,
    Unreadable(String),
}

fn search_one_file<T>(
    path: &Path,
    compiled: &CompiledPattern,
    limits: &WalkLimits,
    per_file: &(dyn Fn(&Path, &ParsedFile) -> Option<T> + Sync),
) -> FileOutcome<T> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) => return FileOutcome::Unreadable(format!("{}: {err}", path.display())),
    };
    if limits.use_literal_prefilter && !contains_all_literals(&bytes, &compiled.literals) {
        return FileOutcome::NoLiterals;
    }
    if bytes.len() as u64 > limits.max_file_bytes && bytecount_lines(&bytes) > limits.max_file_lines {
        return FileOutcome::TooLarge;
    }
    let Ok(text) = String::from_utf8(bytes) else {
        return FileOutcome::NotUtf8;
    };
    let parsed = match AstGrep::<StrDoc<SupportLang>>::try_new(&text, compiled.language) {
        Ok(parsed) => parsed,
        Err(err) => return FileOutcome::Unreadable(format!("{}: the parser failed: {err}", path.display())),
    };
    match per_file(path, &parsed) {
        Some(output) => FileOutcome::Output(output),
        None => FileOutcome::NoOutput,
    }
}

/// Whether `haystack` contains every one of `literals` (true when there are none).
pub fn contains_all_literals(haystack: &[u8], literals: &[String]) -> bool {
    literals.iter().all(|literal| memchr::memmem::find(haystack, literal.as_bytes()).is_some())
}

/// Gives the pages the walk freed back to the operating system.
///
/// The walker threads parse in their own glibc malloc arenas; when they finish, the freed parse
/// trees stay resident in those arenas (glibc returns only the top of an arena by itself), and
/// the caller, which builds its output in the main arena, cannot reuse them. Over the 18,000
/// Rust files of a cargo registry that is tens of MB of peak RSS; `malloc_trim` releases them
/// in a few milliseconds. A no-op on other C libraries.
fn release_freed_parser_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only returns free memory to the kernel; it takes the arena locks
    // itself and never invalidates a live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

fn bytecount_lines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count() + 1
}
