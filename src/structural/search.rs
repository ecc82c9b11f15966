//! The search engine shared by `ast_grep` and `ast_edit`: a parallel, gitignore-aware walk
//! over the files of one language, a literal pre-filter before parsing, and per-file matching.
//!
//! # Which files are searched (the same rule for `ast_grep` and `ast_edit`)
//!
//! The walk is `files::walk_beneath::BeneathWalk::run_parallel` with the `ignore` crate's
//! standard filters and matching, as ripgrep and the ast-grep CLI: hidden directories (name
//! starting with `.`) are skipped, and so are paths ignored by `.gitignore` (inside a git
//! repository), `.ignore` and git's exclude files. (A hidden *file* with the language's extension
//! is searched: the file-type match takes precedence over hiddenness, as in the ast-grep CLI.)
//! Every directory is listed, and every ignore file read, beneath a handle of the run's root with
//! no symlink followed, so a directory swapped for a symlink to outside during the walk is never
//! listed (it is said as unreadable) and no outside file is named (issue 13 §1). On top of that,
//! vendored and generated trees are skipped by a fixed rule: directories
//! named `node_modules`, Python virtual environments (a directory holding `pyvenv.cfg`) and
//! cache directories (holding `CACHEDIR.TAG`, as cargo's `target/`). Everything skipped is
//! counted in [`WalkStats`] and said in the result. `no_ignore: true` turns every filter off,
//! and a `path` inside a skipped directory searches it (the starting path itself is never
//! skipped; a single file is always searched).
//!
//! Each worker reads a file, skips it unless it satisfies the query's [`LiteralRequirement`]
//! (a match always contains those texts, so this never drops a true match), parses it, and
//! hands owned results to the caller's per-file function. `run_parallel` returns only after
//! every worker thread has finished.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::AstGrep;
use ast_grep_language::SupportLang;
use ignore::WalkState;
use parking_lot::Mutex;
use rustix::fs::FileType;

use crate::files::walk_beneath::{BeneathWalk, Skipped, WalkEntry, WalkError};
use crate::progress::ProgressUpdate;
use crate::registry::CancelToken;
use crate::structural::literals::LiteralRequirement;

/// A parsed file handed to the per-file function.
pub type ParsedFile = AstGrep<StrDoc<SupportLang>>;

/// Names of directories skipped as vendored wherever they are (unless `no_ignore`).
pub const VENDORED_DIRECTORY_NAMES: &[&str] = &["node_modules"];
/// A directory holding one of these files is skipped as vendored or generated (unless
/// `no_ignore`): a Python virtual environment, a cache directory (cargo's `target/`).
pub const VENDORED_DIRECTORY_MARKERS: &[&str] = &["pyvenv.cfg", "CACHEDIR.TAG"];

/// Version-control directories: hidden, never source, and not worth saying they were skipped.
const VCS_DIRECTORIES: &[&str] = &[".git", ".hg", ".svn", ".jj"];

/// How long past its deadline a walk goes on listing, without reading, the files it did not
/// search, to count them ([`WalkStats::files_not_searched`]); past it the count is a lower bound
/// ([`WalkStats::files_not_searched_is_lower_bound`]).
pub const NOT_SEARCHED_COUNT_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Examples of skipped paths kept per category.
const SKIPPED_EXAMPLES: usize = 5;

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
    /// The walk stops searching (and reports `timed_out`) at this instant; it goes on listing
    /// for at most `NOT_SEARCHED_COUNT_GRACE` (500 ms) to count the files it did not search.
    pub deadline: Instant,
    /// The walk stops (and reports `cancelled`) when this is cancelled.
    pub cancel: CancelToken,
    /// When `false`, every file is parsed (used by tests to prove the pre-filter is exact).
    pub use_literal_prefilter: bool,
    /// When set, every file is read beneath this directory through directory handles with no
    /// symlink followed (`crate::files::read_file_beneath`), so a directory swapped for a
    /// symlink during the walk cannot make the search read outside it; such a file is counted
    /// as unreadable. `None` reads by path (benches and tests over trees outside a run).
    pub confine_reads_to: Option<PathBuf>,
    /// Search hidden, ignored and vendored paths too (see the module doc).
    pub no_ignore: bool,
    /// Count the hidden and ignored entries the walk skipped (one extra directory listing per
    /// directory walked). On for the tools; benchmarks of the bare engine turn it off.
    pub count_skipped: bool,
}

impl WalkLimits {
    /// Limits with ast-grep's file-size rule, every filter on, skip counting on, the literal
    /// pre-filter on, automatic threads, and the given deadline.
    pub fn new(deadline: Instant) -> WalkLimits {
        WalkLimits {
            threads: 0,
            max_file_bytes: 3_000_000,
            max_file_lines: 200_000,
            deadline,
            cancel: CancelToken::new(),
            use_literal_prefilter: true,
            confine_reads_to: None,
            no_ignore: false,
            count_skipped: true,
        }
    }
}

/// Counters of one walk. Serialized as the `stats` of `ast_grep` and `ast_edit` results (and the
/// source of that part of their `outputSchema`s); `bytes_parsed` and `cancelled` stay out of it
/// (a cancelled call is an error).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct WalkStats {
    /// Files of the language the walk visited.
    pub files_visited: usize,
    /// Files that contained every literal of the pattern (and so were parsed).
    pub files_with_literals: usize,
    /// Files parsed.
    pub files_parsed: usize,
    /// Bytes of the files parsed.
    #[serde(skip)]
    pub bytes_parsed: u64,
    /// Files skipped because they are not UTF-8.
    pub files_not_utf8: usize,
    /// Files skipped because of their size.
    pub files_too_large: usize,
    /// Files or directories that could not be read, with the error (first 5 kept).
    pub unreadable: Vec<String>,
    /// Number of unreadable entries in total.
    pub unreadable_count: usize,
    /// Hidden or ignored files of the language the walk did not search, in directories it
    /// walked (files inside skipped directories are not counted one by one).
    pub ignored_files: usize,
    /// Hidden or ignored directories the walk did not enter.
    pub ignored_dirs: usize,
    /// Up to 5 of the skipped hidden or ignored paths, relative to the walk's root, sorted.
    pub ignored_examples: Vec<String>,
    /// Vendored directories the walk did not enter (`node_modules`, virtual environments,
    /// cache directories).
    pub vendored_dirs: usize,
    /// Up to 5 of them, relative to the walk's root, sorted.
    pub vendored_examples: Vec<String>,
    /// Files the walk passed over because they belong to the searched language's sibling
    /// grammar, which parses them instead (`.tsx` files when searching `typescript`, `.ts`/`.mts`/
    /// `.cts` files when searching `tsx`), in directories it walked and not hidden or ignored.
    pub sibling_grammar_files: usize,
    /// Up to 5 of them, relative to the walk's root, sorted.
    pub sibling_grammar_examples: Vec<String>,
    /// Files whose match was cut before the end of the file (deadline, cancel, the per-file
    /// matching budget `max_match_steps_per_file`, or the stack guard): their results are
    /// partial (`ast_grep`) or they were not rewritten (`ast_edit`). Issue 13 §4.
    pub files_match_cut: usize,
    /// Up to 5 of them, `path: why`, sorted.
    pub match_cut_examples: Vec<String>,
    /// The call's deadline passed before the walk finished: the files whose match it cut are
    /// in `match_cut_examples`, the files it never reached in `files_not_searched`.
    pub timed_out: bool,
    /// Files of the language the walk did not search because the deadline had passed (listed,
    /// never read).
    pub files_not_searched: usize,
    /// `files_not_searched` is a lower bound: listing the rest took longer than
    /// `NOT_SEARCHED_COUNT_GRACE` (500 ms) past the deadline and was stopped.
    pub files_not_searched_is_lower_bound: bool,
    /// The host cancelled the call.
    #[serde(skip)]
    pub cancelled: bool,
}

impl WalkStats {
    /// Whether the walk skipped anything as hidden, ignored or vendored.
    pub fn skipped_any(&self) -> bool {
        self.ignored_files + self.ignored_dirs + self.vendored_dirs > 0
    }
}

/// The grammar that parses the files a search in `language` passes over although a user asking
/// for `language` likely means them too: TypeScript and TSX are two grammars in ast-grep (and
/// here), each with its own extensions. `None` for every other language.
pub fn sibling_grammar(language: SupportLang) -> Option<SupportLang> {
    match language {
        SupportLang::TypeScript => Some(SupportLang::Tsx),
        SupportLang::Tsx => Some(SupportLang::TypeScript),
        _ => None,
    }
}

/// Walks `target` (a file or a directory) for files of `language` and calls
/// `per_file(path, parsed)` for every parsed file that satisfies `requirement`; returns the
/// non-`None` outputs (in no particular order) and the counters.
///
/// A single file is searched whatever its extension; a directory yields only files whose
/// extension belongs to the language.
pub fn walk_and_match<T: Send>(
    target: &Path,
    language: SupportLang,
    requirement: &LiteralRequirement,
    limits: &WalkLimits,
    per_file: &(dyn Fn(&Path, &ParsedFile) -> Option<T> + Sync),
) -> (Vec<T>, WalkStats) {
    walk_and_match_owned(target, language, requirement, limits, &|path, parsed| per_file(path, &parsed))
}

/// [`walk_and_match`] handing each parsed file to `per_file` by value, so that it can drop the
/// parse tree as soon as it has read what it needs (`ast_edit` parses the rewritten file again:
/// without the original tree beside it, a file's peak is one tree, not two).
pub fn walk_and_match_owned<T: Send>(
    target: &Path,
    language: SupportLang,
    requirement: &LiteralRequirement,
    limits: &WalkLimits,
    per_file: &(dyn Fn(&Path, ParsedFile) -> Option<T> + Sync),
) -> (Vec<T>, WalkStats) {
    let outputs: Mutex<Vec<T>> = Mutex::new(Vec::new());
    let stats = Mutex::new(WalkStats::default());
    let stop = AtomicBool::new(false);
    let visited = AtomicUsize::new(0);
    // The calling call's progress sink (a no-op when its host does not listen), shared with the
    // walker threads: files searched so far; the total is unknown until the walk ends.
    let progress = crate::progress::current();
    // The root is opened once per walk; each file is then opened beneath it, and the walk
    // lists beneath it. Unconfined (benches and tests over trees outside a run), a directory
    // target is its own root.
    let confined_root: Option<std::io::Result<crate::files::Beneath>> = limits.confine_reads_to.as_deref().map(crate::files::Beneath::open);
    let target_is_file = match &confined_root {
        Some(Ok(root)) => {
            root.relative(target).ok().and_then(|relative| root.metadata(relative).ok().flatten()).is_some_and(|m| m.is_file())
        }
        _ => std::fs::metadata(target).is_ok_and(|m| m.is_file()),
    };
    let own_root = (confined_root.is_none() && !target_is_file).then(|| crate::files::Beneath::open(target));
    let read_root = confined_root.as_ref().or(own_root.as_ref());
    let visit_file = |path: &Path| -> WalkState {
        if stop.load(Ordering::Relaxed) {
            return WalkState::Quit;
        }
        if limits.cancel.is_cancelled() {
            stats.lock().cancelled = true;
            stop.store(true, Ordering::Relaxed);
            return WalkState::Quit;
        }
        let now = Instant::now();
        if now >= limits.deadline {
            // Past the deadline: the file is counted as not searched, and the walk goes on
            // listing (never reading) for a short grace to count the rest.
            let mut stats = stats.lock();
            stats.timed_out = true;
            stats.files_not_searched += 1;
            if now >= limits.deadline + NOT_SEARCHED_COUNT_GRACE {
                stats.files_not_searched_is_lower_bound = true;
                stop.store(true, Ordering::Relaxed);
                return WalkState::Quit;
            }
            return WalkState::Continue;
        }
        let searched = visited.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(progress) = &progress {
            progress.report_with(|| ProgressUpdate::new(searched as f64).with_message(format!("{searched} files searched")));
        }
        match search_one_file(path, read_root, language, requirement, limits, per_file) {
            FileOutcome::Output(output, bytes) => {
                stats.lock().count_parsed(bytes);
                outputs.lock().push(output);
            }
            FileOutcome::NoOutput(bytes) => stats.lock().count_parsed(bytes),
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
    let mut skipped = SkipCounter::default();
    if target_is_file {
        visit_file(target);
    } else {
        match read_root.map(|root| root.as_ref().map(|handle| (handle, BeneathWalk::new(handle, target)))) {
            Some(Ok((handle, Ok(walk)))) => walk_directory(handle, walk, language, limits, &visit_file, &stats, &mut skipped),
            Some(Ok((_, Err(err)))) => stats.lock().push_unreadable(format!("{}: {err}", target.display())),
            Some(Err(err)) => stats.lock().push_unreadable(format!("{}: the root could not be opened: {err}", target.display())),
            None => {}
        }
    }
    let mut stats = stats.into_inner();
    stats.files_visited = visited.into_inner();
    skipped.into_stats(&mut stats);
    release_freed_parser_memory();
    (outputs.into_inner(), stats)
}

/// The parallel walk of the directory `target` beneath `handle`: every kept file of the
/// language goes to `visit_file`; hidden, ignored and vendored entries are counted in `skipped`,
/// their examples relative to `handle`'s root — the workspace in a run, like every other path
/// of an answer (trial29 M5: `tests/x.tsx` for `src/tests/x.tsx` under `path: "src"`).
#[allow(clippy::too_many_arguments)]
fn walk_directory(
    handle: &crate::files::Beneath,
    walk: BeneathWalk<'_>,
    language: SupportLang,
    limits: &WalkLimits,
    visit_file: &(dyn Fn(&Path) -> WalkState + Sync),
    stats: &Mutex<WalkStats>,
    skipped: &mut SkipCounter,
) {
    let file_types = language.file_types();
    let mut walk = walk.types(file_types.clone());
    if limits.no_ignore {
        walk = walk.standard_filters(false);
    } else {
        walk = walk.filter_entry(|entry| !(entry.depth() > 0 && is_vendored_directory(handle, entry)));
    }
    let count_skipped = limits.count_skipped && !limits.no_ignore;
    let sibling_types = sibling_grammar(language).map(|sibling| sibling.file_types());
    let sibling_files: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    // (path, is_dir) of hidden or ignored entries, and vendored directories.
    let ignored: Mutex<Vec<(PathBuf, bool)>> = Mutex::new(Vec::new());
    let vendored: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let on_skipped = |entry: &WalkEntry, why: Skipped| match why {
        Skipped::Filtered => vendored.lock().push(entry.path().to_path_buf()),
        Skipped::HiddenOrIgnored if entry.is_dir() => {
            let name = entry.file_name();
            if VCS_DIRECTORIES.iter().any(|vcs| name == std::ffi::OsStr::new(vcs)) {
                return;
            }
            // A directory both ignored and vendored counts as vendored.
            if !limits.no_ignore && is_vendored_directory(handle, entry) {
                vendored.lock().push(entry.path().to_path_buf());
            } else if count_skipped {
                ignored.lock().push((entry.path().to_path_buf(), true));
            }
        }
        Skipped::HiddenOrIgnored => {
            if count_skipped && entry.is_file() && file_types.matched(entry.path(), false).is_whitelist() {
                ignored.lock().push((entry.path().to_path_buf(), false));
            }
        }
        Skipped::NotOfTheTypes => {
            if let Some(sibling_types) = &sibling_types {
                if entry.is_file() && sibling_types.matched(entry.path(), false).is_whitelist() {
                    sibling_files.lock().push(entry.path().to_path_buf());
                }
            }
        }
        Skipped::Named => {}
    };
    let visit = |entry: Result<WalkEntry, WalkError>| match entry {
        Ok(entry) => {
            let kind = entry.file_type();
            if entry.is_file() {
                visit_file(entry.path())
            } else if kind != FileType::Directory && kind != FileType::Symlink {
                // A FIFO, socket or device named like a source file: never opened (a FIFO
                // would block the walk), but said with the skipped files.
                let shown = entry.path().strip_prefix(handle.root()).unwrap_or(entry.path()).display().to_string();
                stats.lock().push_unreadable(format!("{shown}: skipped, not a regular file ({})", special_file_type_name(kind)));
                WalkState::Continue
            } else {
                WalkState::Continue
            }
        }
        Err(err) => {
            stats.lock().push_unreadable(err.to_string());
            WalkState::Continue
        }
    };
    walk.run_parallel(limits.threads, &visit, &on_skipped);
    for (path, is_dir) in ignored.into_inner() {
        skipped.ignored(handle.root(), &path, is_dir);
    }
    for path in vendored.into_inner() {
        skipped.vendored(handle.root(), &path);
    }
    for path in sibling_files.into_inner() {
        skipped.sibling_grammar(handle.root(), &path);
    }
}

/// Whether `entry` is a directory the vendored rule skips (its marker files looked up beneath
/// the walk's handle, no symlink followed).
fn is_vendored_directory(handle: &crate::files::Beneath, entry: &WalkEntry) -> bool {
    if !entry.is_dir() {
        return false;
    }
    let name = entry.file_name().to_string_lossy();
    VENDORED_DIRECTORY_NAMES.contains(&name.as_ref())
        || VENDORED_DIRECTORY_MARKERS
            .iter()
            .any(|marker| handle.metadata(&entry.relative().join(marker)).ok().flatten().is_some_and(|m| m.is_file()))
}

/// What a file that is neither regular, a directory nor a symlink is, for messages.
fn special_file_type_name(kind: FileType) -> &'static str {
    match kind {
        FileType::Fifo => "a FIFO (named pipe)",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        _ => "not a regular file",
    }
}

#[derive(Default)]
struct SkipCounter {
    ignored_files: usize,
    ignored_dirs: usize,
    ignored_examples: Vec<String>,
    vendored_dirs: usize,
    vendored_examples: Vec<String>,
    sibling_grammar_files: usize,
    sibling_grammar_examples: Vec<String>,
}

impl SkipCounter {
    fn ignored(&mut self, root: &Path, path: &Path, is_dir: bool) {
        if is_dir {
            self.ignored_dirs += 1;
        } else {
            self.ignored_files += 1;
        }
        self.ignored_examples.push(relative(root, path, is_dir));
    }

    fn vendored(&mut self, root: &Path, path: &Path) {
        self.vendored_dirs += 1;
        self.vendored_examples.push(relative(root, path, true));
    }

    fn sibling_grammar(&mut self, root: &Path, path: &Path) {
        self.sibling_grammar_files += 1;
        self.sibling_grammar_examples.push(relative(root, path, false));
    }

    fn into_stats(mut self, stats: &mut WalkStats) {
        for examples in [&mut self.ignored_examples, &mut self.vendored_examples, &mut self.sibling_grammar_examples] {
            examples.sort();
            examples.truncate(SKIPPED_EXAMPLES);
        }
        stats.ignored_files = self.ignored_files;
        stats.ignored_dirs = self.ignored_dirs;
        stats.ignored_examples = self.ignored_examples;
        stats.vendored_dirs = self.vendored_dirs;
        stats.vendored_examples = self.vendored_examples;
        stats.sibling_grammar_files = self.sibling_grammar_files;
        stats.sibling_grammar_examples = self.sibling_grammar_examples;
    }
}

fn relative(root: &Path, path: &Path, is_dir: bool) -> String {
    let shown = path.strip_prefix(root).unwrap_or(path).to_string_lossy().into_owned();
    if is_dir {
        format!("{shown}/")
    } else {
        shown
    }
}

impl WalkStats {
    fn count_parsed(&mut self, bytes: u64) {
        self.files_with_literals += 1;
        self.files_parsed += 1;
        self.bytes_parsed += bytes;
    }

    fn push_unreadable(&mut self, message: String) {
        self.unreadable_count += 1;
        if self.unreadable.len() < 5 {
            self.unreadable.push(message);
        }
    }
}

enum FileOutcome<T> {
    Output(T, u64),
    NoOutput(u64),
    NoLiterals,
    NotUtf8,
    TooLarge,
    Unreadable(String),
}

fn search_one_file<T>(
    path: &Path,
    confined_root: Option<&std::io::Result<crate::files::Beneath>>,
    language: SupportLang,
    requirement: &LiteralRequirement,
    limits: &WalkLimits,
    per_file: &(dyn Fn(&Path, ParsedFile) -> Option<T> + Sync),
) -> FileOutcome<T> {
    let read = match confined_root {
        Some(Err(err)) => Err(std::io::Error::new(err.kind(), format!("the workspace root could not be opened: {err}"))),
        Some(Ok(root)) => crate::files::read_file_in(root, path)
            .and_then(|bytes| bytes.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "it vanished during the walk"))),
        None => std::fs::read(path),
    };
    let bytes = match read {
        Ok(bytes) => bytes,
        Err(err) => return FileOutcome::Unreadable(format!("{}: {err}", path.display())),
    };
    if limits.use_literal_prefilter && !requirement.admits(&bytes) {
        return FileOutcome::NoLiterals;
    }
    if bytes.len() as u64 > limits.max_file_bytes && bytecount_lines(&bytes) > limits.max_file_lines {
        return FileOutcome::TooLarge;
    }
    let size = bytes.len() as u64;
    let Ok(text) = String::from_utf8(bytes) else {
        return FileOutcome::NotUtf8;
    };
    let parsed = match AstGrep::<StrDoc<SupportLang>>::try_new(&text, language) {
        Ok(parsed) => parsed,
        Err(err) => return FileOutcome::Unreadable(format!("{}: the parser failed: {err}", path.display())),
    };
    drop(text);
    match per_file(path, parsed) {
        Some(output) => FileOutcome::Output(output, size),
        None => FileOutcome::NoOutput(size),
    }
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
