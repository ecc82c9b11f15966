//! Session bookkeeping that needs no adapter: the stop generation and the generation-stamped
//! handle table (R-DBG-2), the debuggee output ring, and the desired breakpoints.
//!
//! Architecture invariant: a frame id or variable reference handed to the model is a local
//! handle that remembers the stop generation it was produced in. The generation moves on every
//! resume (continue, step, pause-then-stop, `continued` event); a handle from an earlier
//! generation is refused here, before anything is sent to the adapter.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};

/// What a handle stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandleKind {
    /// A stack frame id (`stack` → `scopes` / `evaluate`).
    Frame,
    /// A variables reference (`scopes` / `variables` / `evaluate` → `variables`).
    Variables,
}

impl HandleKind {
    fn noun(self) -> &'static str {
        match self {
            HandleKind::Frame => "frame_id",
            HandleKind::Variables => "reference",
        }
    }
}

/// Why a handle cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandleError {
    /// No such handle was ever produced in this session.
    Unknown,
    /// Produced as another kind (a frame id passed as a variables reference, or vice versa).
    WrongKind {
        /// What the handle really is.
        actual: HandleKind,
    },
    /// Produced at an earlier stop; the program has moved since.
    Stale {
        /// Stop generation the handle belongs to.
        produced_at: u64,
        /// The current stop generation.
        current: u64,
    },
}

impl HandleError {
    /// The refusal, for the model: what is wrong with `handle` and what to call instead.
    pub fn describe(&self, handle: u64, expected: HandleKind) -> String {
        let noun = expected.noun();
        match self {
            HandleError::Unknown => format!("{noun} {handle} was never produced in this debug session"),
            HandleError::WrongKind { actual } => format!("{handle} is a {}, not a {noun}", actual.noun()),
            HandleError::Stale { produced_at, current } => format!(
                "{noun} {handle} is stale: it was produced at stop #{produced_at} and the program has resumed since (now at stop #{current}); references are only valid while the program stays stopped where they were produced"
            ),
        }
    }
}

/// Local handles for adapter ids, each stamped with the stop generation it was produced in.
/// Handles are small positive integers (1, 2, …), unique for the session.
#[derive(Debug, Default)]
pub struct HandleTable {
    entries: Vec<(u64, HandleKind, u64)>,
}

impl HandleTable {
    /// Registers `raw` (the adapter's id) produced at `generation`; returns the handle.
    pub fn insert(&mut self, generation: u64, kind: HandleKind, raw: u64) -> u64 {
        // Reuse the handle when the same id was already handed out at this generation, so
        // repeated `stack` calls at one stop give the same frame ids.
        if let Some(index) = self.entries.iter().rposition(|&(g, k, r)| g == generation && k == kind && r == raw) {
            return index as u64 + 1;
        }
        self.entries.push((generation, kind, raw));
        self.entries.len() as u64
    }

    /// The adapter id behind `handle`, when it is of `kind` and from `current` generation.
    ///
    /// # Errors
    /// [`HandleError`] when unknown, of another kind, or stale.
    pub fn resolve(&self, handle: u64, kind: HandleKind, current: u64) -> Result<u64, HandleError> {
        let Some(&(generation, actual, raw)) = handle.checked_sub(1).and_then(|index| self.entries.get(index as usize)) else {
            return Err(HandleError::Unknown);
        };
        if actual != kind {
            return Err(HandleError::WrongKind { actual });
        }
        if generation != current {
            return Err(HandleError::Stale { produced_at: generation, current });
        }
        Ok(raw)
    }
}

/// Which stream an output chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputStream {
    /// The debuggee's stdout.
    Stdout,
    /// The debuggee's stderr.
    Stderr,
    /// Messages of the adapter itself (`console`/`important` output events).
    Adapter,
}

impl OutputStream {
    fn label(self) -> &'static str {
        match self {
            OutputStream::Stdout => "stdout",
            OutputStream::Stderr => "stderr",
            OutputStream::Adapter => "adapter",
        }
    }
}

/// A byte-capped ring of the debuggee's output. When full, the oldest bytes are dropped and
/// counted, so the rendering can say "N bytes dropped".
#[derive(Debug)]
pub struct OutputRing {
    chunks: VecDeque<(OutputStream, String)>,
    bytes: usize,
    capacity_bytes: usize,
    dropped_bytes: u64,
    total_bytes: u64,
}

impl OutputRing {
    /// An empty ring holding at most `capacity_bytes` bytes.
    pub fn new(capacity_bytes: usize) -> OutputRing {
        OutputRing { chunks: VecDeque::new(), bytes: 0, capacity_bytes: capacity_bytes.max(1), dropped_bytes: 0, total_bytes: 0 }
    }

    /// Appends `text` from `stream`; adjacent chunks of one stream are merged.
    pub fn push(&mut self, stream: OutputStream, text: &str) {
        if text.is_empty() {
            return;
        }
        self.total_bytes += text.len() as u64;
        match self.chunks.back_mut() {
            Some((last_stream, last)) if *last_stream == stream => last.push_str(text),
            _ => self.chunks.push_back((stream, text.to_owned())),
        }
        self.bytes += text.len();
        while self.bytes > self.capacity_bytes {
            let excess = self.bytes - self.capacity_bytes;
            let Some((_, front)) = self.chunks.front_mut() else { break };
            if front.len() <= excess {
                let removed = front.len();
                self.chunks.pop_front();
                self.bytes -= removed;
                self.dropped_bytes += removed as u64;
                continue;
            }
            let mut cut = excess;
            while !front.is_char_boundary(cut) {
                cut += 1;
            }
            front.drain(..cut);
            self.bytes -= cut;
            self.dropped_bytes += cut as u64;
        }
    }

    /// Bytes ever written (including dropped ones). A cursor for "output since".
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Bytes dropped because the ring was full.
    pub fn dropped_bytes(&self) -> u64 {
        self.dropped_bytes
    }

    /// The buffered output rendered for the model: a `[stdout]`/`[stderr]`/`[adapter]` label
    /// at each change of stream, with a leading "N bytes dropped" line when the ring overflowed.
    pub fn render(&self) -> String {
        self.render_since(0)
    }

    /// Like [`OutputRing::render`] but only the bytes written after the cursor `since`
    /// (a [`OutputRing::total_bytes`] value taken earlier).
    pub fn render_since(&self, since: u64) -> String {
        let mut out = String::new();
        let first_buffered = self.total_bytes - self.bytes as u64;
        if since < first_buffered && self.dropped_bytes > 0 {
            out.push_str(&format!(
                "[{} bytes dropped: the output ring keeps the last {} bytes]\n",
                first_buffered - since,
                self.capacity_bytes
            ));
        }
        let mut offset = first_buffered;
        for (stream, text) in &self.chunks {
            let end = offset + text.len() as u64;
            if end > since {
                let mut skip = since.saturating_sub(offset) as usize;
                while skip < text.len() && !text.is_char_boundary(skip) {
                    skip += 1;
                }
                let piece = &text[skip..];
                if !piece.is_empty() {
                    if !out.is_empty() && !out.ends_with('\n') {
                        out.push('\n');
                    }
                    out.push_str(&format!("[{}]\n", stream.label()));
                    out.push_str(piece);
                }
            }
            offset = end;
        }
        out
    }
}

/// Where a source breakpoint sits: a 1-based line, or the line holding a piece of text (so it
/// follows the code when an edit moves the line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BreakpointAnchor {
    /// A 1-based line.
    Line(u64),
    /// The line containing `text` (a substring); `occurrence` (1-based) picks one of several.
    Text {
        /// The text to find.
        text: String,
        /// Which of several matching lines (1-based); `None` when the text must be unique.
        occurrence: Option<u64>,
    },
}

/// One desired source breakpoint: its anchor and the DAP extras (each sent only when the
/// adapter says it supports it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BreakpointSpec {
    /// Where it sits.
    pub anchor: BreakpointAnchor,
    /// Stop only when this expression is true (`supportsConditionalBreakpoints`).
    pub condition: Option<String>,
    /// Stop only when the hit count satisfies this (`"5"`, `">= 3"`;
    /// `supportsHitConditionalBreakpoints`).
    pub hit_condition: Option<String>,
    /// A logpoint: log this message (`{expr}` interpolated) instead of stopping
    /// (`supportsLogPoints`).
    pub log_message: Option<String>,
}

impl BreakpointSpec {
    /// A plain breakpoint on a 1-based line.
    pub fn line(line: u64) -> BreakpointSpec {
        BreakpointSpec { anchor: BreakpointAnchor::Line(line), condition: None, hit_condition: None, log_message: None }
    }
}

/// A source breakpoint with its anchor resolved to a line of the file as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedBreakpoint {
    /// What was asked for.
    pub spec: BreakpointSpec,
    /// The 1-based line it resolves to.
    pub line: u64,
}

/// Resolves every spec of `file` to a line, in the order given, one per line (a later spec on
/// the same line replaces an earlier one).
///
/// # Errors
/// For a text anchor that matches no line, or several without an `occurrence`: the message
/// lists the candidate lines (at most 10).
pub fn resolve_breakpoints(workspace_root: &Path, file: &Path, specs: &[BreakpointSpec]) -> Result<Vec<ResolvedBreakpoint>, String> {
    let mut source: Option<String> = None;
    let mut resolved: Vec<ResolvedBreakpoint> = Vec::new();
    for spec in specs {
        let line = match &spec.anchor {
            BreakpointAnchor::Line(line) => *line,
            BreakpointAnchor::Text { text, occurrence } => {
                if source.is_none() {
                    // Read beneath the workspace root, no symlink followed.
                    source = Some(crate::files::read_workspace_file_to_string(workspace_root, file).map_err(|err| err.message)?);
                }
                resolve_text(source.as_deref().unwrap_or(""), text, *occurrence)?
            }
        };
        resolved.retain(|existing| existing.line != line);
        resolved.push(ResolvedBreakpoint { spec: spec.clone(), line });
    }
    Ok(resolved)
}

fn resolve_text(source: &str, text: &str, occurrence: Option<u64>) -> Result<u64, String> {
    let needle = text.trim();
    if needle.is_empty() {
        return Err("a breakpoint's `text` is empty".to_owned());
    }
    let matches: Vec<(u64, &str)> =
        source.lines().enumerate().filter(|(_, line)| line.contains(needle)).map(|(index, line)| (index as u64 + 1, line.trim())).collect();
    let listed = || {
        matches
            .iter()
            .take(10)
            .map(|(line, text)| format!("line {line}: {}", crate::render::cut_chars(text, 80)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    match (matches.len(), occurrence) {
        (0, _) => Err(format!("no line contains `{needle}`")),
        (_, Some(n)) => matches
            .get(n.saturating_sub(1) as usize)
            .map(|(line, _)| *line)
            .ok_or_else(|| format!("`{needle}` occurs on {} lines, so occurrence {n} does not exist: {}", matches.len(), listed())),
        (1, None) => Ok(matches[0].0),
        (count, None) => Err(format!("`{needle}` occurs on {count} lines: {}; add `occurrence` (1-based) or more text", listed())),
    }
}

/// A function breakpoint (`setFunctionBreakpoints`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionBreakpointSpec {
    /// The function name as the adapter resolves it (`area`, `rs1::area`, `main.add`).
    pub name: String,
    /// Stop only when this expression is true.
    pub condition: Option<String>,
    /// Stop only when the hit count satisfies this.
    pub hit_condition: Option<String>,
}

/// Desired breakpoints, kept across sessions of the conversation and sent at launch (after
/// `initialized`) and whenever changed while running: source breakpoints by canonical absolute
/// file, function breakpoints, and the exception filters (`None`: the adapter's defaults).
#[derive(Debug, Default, Clone)]
pub struct BreakpointStore {
    files: BTreeMap<PathBuf, Vec<BreakpointSpec>>,
    functions: Vec<FunctionBreakpointSpec>,
    exception_filters: Option<Vec<String>>,
}

impl BreakpointStore {
    /// Sets the breakpoints of `file`. An empty list clears the file; the file stays listed
    /// (with none) so the clear is also sent to a running adapter.
    pub fn set(&mut self, file: PathBuf, specs: Vec<BreakpointSpec>) {
        self.files.insert(file, specs);
    }

    /// Every file with its breakpoints (files cleared to none included).
    pub fn files(&self) -> impl Iterator<Item = (&PathBuf, &Vec<BreakpointSpec>)> {
        self.files.iter()
    }

    /// Number of source breakpoints over all files.
    pub fn count(&self) -> usize {
        self.files.values().map(Vec::len).sum()
    }

    /// Replaces the function breakpoints (`[]` clears).
    pub fn set_functions(&mut self, functions: Vec<FunctionBreakpointSpec>) {
        self.functions = functions;
    }

    /// The function breakpoints.
    pub fn functions(&self) -> &[FunctionBreakpointSpec] {
        &self.functions
    }

    /// Sets the exception filters to enable (`[]`: none; see [`BreakpointStore::exception_filters`]).
    pub fn set_exception_filters(&mut self, filters: Vec<String>) {
        self.exception_filters = Some(filters);
    }

    /// The exception filters asked for, or `None` when the adapter's defaults apply.
    pub fn exception_filters(&self) -> Option<&[String]> {
        self.exception_filters.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_stamped_with_their_stop_generation() {
        let mut table = HandleTable::default();
        let frame = table.insert(1, HandleKind::Frame, 1000);
        let vars = table.insert(1, HandleKind::Variables, 7);
        assert_eq!(table.insert(1, HandleKind::Frame, 1000), frame, "same id at same stop → same handle");
        assert_eq!(table.resolve(frame, HandleKind::Frame, 1), Ok(1000));
        assert_eq!(table.resolve(vars, HandleKind::Variables, 1), Ok(7));
        assert_eq!(table.resolve(vars, HandleKind::Frame, 1), Err(HandleError::WrongKind { actual: HandleKind::Variables }));
        assert_eq!(table.resolve(vars, HandleKind::Variables, 2), Err(HandleError::Stale { produced_at: 1, current: 2 }));
        assert_eq!(table.resolve(99, HandleKind::Variables, 1), Err(HandleError::Unknown));
        assert_eq!(table.resolve(0, HandleKind::Variables, 1), Err(HandleError::Unknown));
        let again = table.insert(2, HandleKind::Variables, 7);
        assert_ne!(again, vars, "a new stop gives a new handle even for the same adapter id");
        assert!(HandleError::Stale { produced_at: 1, current: 2 }.describe(vars, HandleKind::Variables).contains("stale"));
    }

    #[test]
    fn output_ring_drops_oldest_bytes_and_says_so() {
        let mut ring = OutputRing::new(10);
        ring.push(OutputStream::Stdout, "hello ");
        ring.push(OutputStream::Stdout, "world");
        assert_eq!(ring.dropped_bytes(), 1);
        let text = ring.render();
        assert!(text.starts_with("[1 bytes dropped"), "{text}");
        assert!(text.ends_with("[stdout]\nello world"), "{text}");
        ring.push(OutputStream::Stderr, "é!");
        let text = ring.render();
        assert!(text.contains("[stderr]\né!"), "{text}");
        assert_eq!(ring.total_bytes(), 14);
        let cursor = ring.total_bytes();
        ring.push(OutputStream::Stdout, "x");
        assert_eq!(ring.render_since(cursor), "[stdout]\nx");
    }

    #[test]
    fn breakpoint_store_keeps_cleared_files() {
        let mut store = BreakpointStore::default();
        store.set(PathBuf::from("/a.py"), vec![BreakpointSpec::line(3), BreakpointSpec::line(5)]);
        store.set(PathBuf::from("/b.py"), vec![]);
        let files: Vec<_> = store.files().map(|(f, l)| (f.clone(), l.len())).collect();
        assert_eq!(files, vec![(PathBuf::from("/a.py"), 2), (PathBuf::from("/b.py"), 0)]);
        assert_eq!(store.count(), 2);
        assert_eq!(store.exception_filters(), None, "adapter defaults until set");
        store.set_exception_filters(vec![]);
        assert_eq!(store.exception_filters(), Some(&[][..]));
    }

    #[test]
    fn text_anchors_resolve_to_their_line_or_list_candidates() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.py");
        std::fs::write(&file, "total = 0\nfor x in xs:\n    total += x\nprint(total)\nprint(total)\n").unwrap();
        let text = |text: &str, occurrence: Option<u64>| BreakpointSpec {
            anchor: BreakpointAnchor::Text { text: text.to_owned(), occurrence },
            condition: None,
            hit_condition: None,
            log_message: None,
        };
        let resolved = resolve_breakpoints(dir.path(), &file, &[text("total += x", None), BreakpointSpec::line(1)]).unwrap();
        assert_eq!(resolved.iter().map(|r| r.line).collect::<Vec<_>>(), vec![3, 1]);
        let err = resolve_breakpoints(dir.path(), &file, &[text("print(total)", None)]).unwrap_err();
        assert!(err.contains("occurs on 2 lines") && err.contains("line 4: print(total)") && err.contains("line 5"), "{err}");
        assert_eq!(resolve_breakpoints(dir.path(), &file, &[text("print(total)", Some(2))]).unwrap()[0].line, 5);
        assert!(resolve_breakpoints(dir.path(), &file, &[text("missing", None)]).unwrap_err().contains("no line contains `missing`"));
        let same_line = resolve_breakpoints(dir.path(), &file, &[BreakpointSpec::line(3), text("total += x", None)]).unwrap();
        assert_eq!(same_line.len(), 1, "one breakpoint per line, the later wins");
    }
}
