//! Parsing `apply_patch` input: the `*** Begin Patch` envelope that coding models emit (Codex's
//! apply_patch format) and git-style unified diffs, both multi-file, into one [`Patch`] model.
//!
//! Parsing is pure (no file system); locating hunks in files is [`crate::files::apply_hunks`].
//!
//! Envelope grammar (lenient, after Codex's):
//! ```text
//! *** Begin Patch
//! *** Add File: <path>          then content lines, each prefixed with '+'
//! *** Delete File: <path>
//! *** Update File: <path>
//! *** Move to: <path>           optional, right after Update File
//! @@ <anchor text>              optional; starts a hunk; consecutive @@ lines narrow in turn
//!  context / -removed / +added  lines of the hunk (an empty line is an empty context line)
//! *** End of File               optional; the hunk's old lines end the file
//! *** End Patch
//! ```
//! Unified diffs: `diff --git a/x b/y` (optional), extended headers (`new file mode`,
//! `deleted file mode`, `rename from`/`rename to`, `similarity index`, `index`, mode lines),
//! `--- a/x` / `+++ b/y` (`/dev/null` for add/delete), and `@@ -a,b +c,d @@` hunks with
//! `\ No newline at end of file` markers. Hunk line counts are used when they add up and ignored
//! (with a lenient scan) when they do not, since models often miscount. Text outside file
//! sections (a commit message, a diffstat) is skipped, as `git apply` does.

use std::fmt;

/// Longest patch [`parse_patch`] accepts, in bytes (16 MiB).
pub const MAX_PATCH_BYTES: usize = 16 * 1024 * 1024;

/// A parsed patch: file operations in the order written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// Which syntax the patch used.
    pub format: PatchFormat,
    /// One entry per file section, in patch order. Never empty.
    pub operations: Vec<FileOperation>,
    /// Things the patch asked for that are not applied (e.g. mode changes), one sentence each.
    pub notes: Vec<String>,
}

/// The syntax of a patch (`envelope` or `unified_diff` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PatchFormat {
    /// `*** Begin Patch` … `*** End Patch` (Codex's apply_patch format).
    Envelope,
    /// A git-style or plain unified diff.
    UnifiedDiff,
}

impl PatchFormat {
    /// `envelope` or `unified_diff`.
    pub fn as_str(self) -> &'static str {
        crate::schema::variant_name(&self).unwrap_or("envelope")
    }
}

/// One file section of a patch. Paths are as written (prefixes `a/`, `b/` removed from unified
/// diffs); they are resolved against the workspace when applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOperation {
    /// Create a file that must not exist yet.
    Add {
        /// Path of the new file.
        path: String,
        /// Its full content (lines joined with `\n`, final newline unless the diff said
        /// `\ No newline at end of file`).
        content: String,
        /// 1-based line of the patch where the section starts.
        patch_line: usize,
    },
    /// Delete a file.
    Delete {
        /// Path of the file.
        path: String,
        /// Unified diffs carry the deleted content: when present, the file must still match it
        /// (ignoring trailing whitespace) before it is deleted.
        expected_content: Option<String>,
        /// 1-based line of the patch where the section starts.
        patch_line: usize,
    },
    /// Change a file in place by hunks, optionally moving it.
    Update {
        /// Path of the file to change.
        path: String,
        /// New path when the file is also moved (renamed).
        move_to: Option<String>,
        /// Hunks in patch order; empty for a pure move.
        hunks: Vec<Hunk>,
        /// 1-based line of the patch where the section starts.
        patch_line: usize,
    },
}

impl FileOperation {
    /// The path the operation starts from.
    pub fn path(&self) -> &str {
        match self {
            FileOperation::Add { path, .. } | FileOperation::Delete { path, .. } | FileOperation::Update { path, .. } => path,
        }
    }
}

/// One hunk: a run of lines to find in the file (context and removed lines, in order) and what
/// replaces them (context and added lines, in order).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// 1-based line of the patch where the hunk starts (its `@@` line, or its first line).
    pub patch_line: usize,
    /// Envelope `@@ <text>` anchors: each must be found (in order, after the previous hunk)
    /// before the hunk's lines are searched for, after the last anchor.
    pub anchors: Vec<String>,
    /// Unified `@@ -a,b` start: 1-based line of the old file (a hint; the nearest match wins).
    pub old_start: Option<usize>,
    /// Unified `@@ -a,b` count, when given.
    pub old_count: Option<usize>,
    /// The hunk's lines in order.
    pub lines: Vec<HunkLine>,
    /// The hunk's old lines must end the file (`*** End of File`).
    pub end_of_file: bool,
    /// `\ No newline at end of file` followed the hunk's last old-side line.
    pub old_missing_final_newline: bool,
    /// `\ No newline at end of file` followed the hunk's last new-side line.
    pub new_missing_final_newline: bool,
}

impl Hunk {
    /// The lines to find in the file: context and removed lines, in order.
    pub fn old_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|line| match line {
                HunkLine::Context(text) | HunkLine::Remove(text) => Some(text.as_str()),
                HunkLine::Add(_) => None,
            })
            .collect()
    }

    /// Number of added lines.
    pub fn added_count(&self) -> usize {
        self.lines.iter().filter(|line| matches!(line, HunkLine::Add(_))).count()
    }

    /// Number of removed lines.
    pub fn removed_count(&self) -> usize {
        self.lines.iter().filter(|line| matches!(line, HunkLine::Remove(_))).count()
    }
}

/// One line of a hunk, without its one-character prefix and line terminator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    /// ` text`: kept as is; must be found in the file.
    Context(String),
    /// `-text`: must be found in the file, and is removed.
    Remove(String),
    /// `+text`: inserted.
    Add(String),
}

/// Why a patch could not be parsed: the 1-based patch line and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchParseError {
    /// 1-based line of the patch text (0 when the problem is the patch as a whole).
    pub line: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for PatchParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return f.write_str(&self.message);
        }
        write!(f, "patch line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for PatchParseError {}

/// Parses `apply_patch` input in either format (see the module docs). Tolerates `\r\n` line
/// ends, a surrounding heredoc (`<<'EOF'` … `EOF`) and a surrounding markdown code fence.
///
/// # Errors
/// A `PatchParseError` naming the patch line and what was expected, when the text is in
/// neither format, a section is malformed, or the patch is larger than `MAX_PATCH_BYTES`.
pub fn parse_patch(text: &str) -> Result<Patch, PatchParseError> {
    if text.len() > MAX_PATCH_BYTES {
        return Err(error_at(0, format!("patch is {} bytes, over the {MAX_PATCH_BYTES}-byte limit; split it", text.len())));
    }
    let lines: Vec<&str> = text.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line)).collect();
    let (first, last) = strip_wrappers(&lines);
    let body = &lines[first..last];
    if body.iter().any(|line| line.trim() == BEGIN_PATCH) {
        return EnvelopeParser { lines: &lines, position: first, end: last }.parse();
    }
    if looks_like_unified_diff(body) {
        return UnifiedParser { lines: &lines, position: first, end: last, notes: Vec::new() }.parse();
    }
    Err(error_at(
        0,
        "not a patch: expected a `*** Begin Patch` … `*** End Patch` envelope or a unified diff \
         (`--- a/path`, `+++ b/path`, `@@ -a,b +c,d @@`)",
    ))
}

const BEGIN_PATCH: &str = "*** Begin Patch";
const END_PATCH: &str = "*** End Patch";
const ADD_FILE: &str = "*** Add File:";
const DELETE_FILE: &str = "*** Delete File:";
const UPDATE_FILE: &str = "*** Update File:";
const MOVE_TO: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

fn error_at(line: usize, message: impl Into<String>) -> PatchParseError {
    PatchParseError { line, message: message.into() }
}

/// Returns the index range of `lines` left after dropping blank edges, a heredoc wrapper and a
/// markdown fence.
fn strip_wrappers(lines: &[&str]) -> (usize, usize) {
    let mut first = 0;
    let mut last = lines.len();
    loop {
        while first < last && lines[first].trim().is_empty() {
            first += 1;
        }
        while last > first && lines[last - 1].trim().is_empty() {
            last -= 1;
        }
        if last - first < 2 {
            return (first, last);
        }
        let opening = lines[first].trim();
        let closing = lines[last - 1].trim();
        let heredoc = opening.contains("<<") && {
            let word = opening.rsplit("<<").next().unwrap_or("").trim_matches(|c| c == '\'' || c == '"' || c == '-' || c == ' ');
            !word.is_empty() && closing == word
        };
        let fence = opening.starts_with("```") && closing == "```";
        if !(heredoc || fence) {
            return (first, last);
        }
        first += 1;
        last -= 1;
    }
}

fn looks_like_unified_diff(lines: &[&str]) -> bool {
    lines.iter().any(|line| line.starts_with("diff --git "))
        || lines.windows(2).any(|pair| pair[0].starts_with("--- ") && pair[1].starts_with("+++ "))
}

struct EnvelopeParser<'a> {
    lines: &'a [&'a str],
    position: usize,
    end: usize,
}

impl EnvelopeParser<'_> {
    fn parse(mut self) -> Result<Patch, PatchParseError> {
        while self.position < self.end && self.lines[self.position].trim() != BEGIN_PATCH {
            if !self.lines[self.position].trim().is_empty() {
                return Err(error_at(
                    self.position + 1,
                    format!("unexpected text before `{BEGIN_PATCH}`: {:?}", self.lines[self.position]),
                ));
            }
            self.position += 1;
        }
        self.position += 1;
        let Some(end_marker) = (self.position..self.end).find(|&index| self.lines[index].trim_end() == END_PATCH) else {
            return Err(error_at(0, format!("the patch has no `{END_PATCH}` line; it may be cut off. End it with `{END_PATCH}`")));
        };
        if let Some(extra) = (end_marker + 1..self.end).find(|&index| !self.lines[index].trim().is_empty()) {
            return Err(error_at(extra + 1, format!("text after `{END_PATCH}`: {:?}; send one patch per call", self.lines[extra])));
        }
        self.end = end_marker;
        let mut operations = Vec::new();
        while self.position < self.end {
            let line = self.lines[self.position];
            let trimmed = line.trim();
            if trimmed.is_empty() {
                self.position += 1;
                continue;
            }
            let patch_line = self.position + 1;
            if let Some(path) = marker_path(trimmed, ADD_FILE, patch_line)? {
                self.position += 1;
                operations.push(FileOperation::Add { path, content: self.parse_add_content(), patch_line });
            } else if let Some(path) = marker_path(trimmed, DELETE_FILE, patch_line)? {
                self.position += 1;
                operations.push(FileOperation::Delete { path, expected_content: None, patch_line });
            } else if let Some(path) = marker_path(trimmed, UPDATE_FILE, patch_line)? {
                self.position += 1;
                let mut move_to = None;
                if self.position < self.end {
                    move_to = marker_path(self.lines[self.position].trim(), MOVE_TO, self.position + 1)?;
                    if move_to.is_some() {
                        self.position += 1;
                    }
                }
                let hunks = self.parse_update_hunks()?;
                if hunks.is_empty() && move_to.is_none() {
                    return Err(error_at(
                        patch_line,
                        format!("`{UPDATE_FILE} {path}` has no hunks; add `@@` hunks with ' ', '-' and '+' lines"),
                    ));
                }
                operations.push(FileOperation::Update { path, move_to, hunks, patch_line });
            } else {
                return Err(error_at(
                    patch_line,
                    format!(
                        "expected a file header (`{ADD_FILE} <path>`, `{DELETE_FILE} <path>` or `{UPDATE_FILE} <path>`), found {line:?}"
                    ),
                ));
            }
        }
        if operations.is_empty() {
            return Err(error_at(0, "the patch has no file sections between its begin and end lines"));
        }
        Ok(Patch { format: PatchFormat::Envelope, operations, notes: Vec::new() })
    }

    /// Content lines of an Add File section: `+` lines; an empty line between `+` lines is taken
    /// as an empty content line (a dropped `+`).
    fn parse_add_content(&mut self) -> String {
        let mut content = String::new();
        while self.position < self.end {
            let line = self.lines[self.position];
            if let Some(text) = line.strip_prefix('+') {
                content.push_str(text);
                content.push('\n');
                self.position += 1;
                continue;
            }
            let next_is_content = line.is_empty()
                && (self.position + 1..self.end)
                    .find(|&index| !self.lines[index].is_empty())
                    .is_some_and(|index| self.lines[index].starts_with('+'));
            if !next_is_content {
                break;
            }
            content.push('\n');
            self.position += 1;
        }
        content
    }

    fn parse_update_hunks(&mut self) -> Result<Vec<Hunk>, PatchParseError> {
        let mut hunks: Vec<Hunk> = Vec::new();
        let mut current: Option<Hunk> = None;
        while self.position < self.end {
            let line = self.lines[self.position];
            // Markers start the line; ` *** x` is a context line whose text starts with `***`.
            let marker = line.trim_end();
            if marker.starts_with("*** ") && marker != END_OF_FILE {
                break;
            }
            let line_number = self.position + 1;
            self.position += 1;
            if marker == END_OF_FILE {
                let Some(hunk) = current.as_mut() else {
                    return Err(error_at(line_number, format!("`{END_OF_FILE}` before any hunk line")));
                };
                hunk.end_of_file = true;
                hunks.extend(current.take());
                continue;
            }
            if let Some(anchor) = line.strip_prefix("@@") {
                let starts_new = current.as_ref().is_some_and(|hunk| !hunk.lines.is_empty());
                if starts_new {
                    hunks.extend(current.take());
                }
                let hunk = current.get_or_insert_with(|| Hunk { patch_line: line_number, ..Hunk::default() });
                let anchor = anchor.trim();
                if let Some((old_start, old_count)) = parse_range_header(line) {
                    hunk.old_start = Some(old_start);
                    hunk.old_count = old_count;
                } else if !anchor.is_empty() && anchor != "@@" {
                    hunk.anchors.push(anchor.to_owned());
                }
                continue;
            }
            let hunk_line = match line.chars().next() {
                None => HunkLine::Context(String::new()),
                Some(' ') => HunkLine::Context(line[1..].to_owned()),
                Some('-') => HunkLine::Remove(line[1..].to_owned()),
                Some('+') => HunkLine::Add(line[1..].to_owned()),
                Some(_) => {
                    return Err(error_at(
                        line_number,
                        format!(
                            "{line:?} has no hunk prefix; every line of an update hunk starts with ' ' (context), \
                             '-' (remove) or '+' (add), and hunks start with `@@`"
                        ),
                    ))
                }
            };
            // Blank lines between hunks separate them; they are not context.
            if matches!(&hunk_line, HunkLine::Context(text) if text.is_empty() && line.is_empty()) && current.is_none() {
                continue;
            }
            current.get_or_insert_with(|| Hunk { patch_line: line_number, ..Hunk::default() }).lines.push(hunk_line);
        }
        hunks.extend(current);
        for hunk in &mut hunks {
            trim_trailing_blank_context(hunk);
        }
        if let Some(empty) = hunks.iter().find(|hunk| hunk.lines.is_empty()) {
            return Err(error_at(empty.patch_line, "`@@` hunk header with no lines after it"));
        }
        Ok(hunks)
    }
}

/// Drops empty context lines at the end of a hunk (usually a blank separator before the next
/// section, not content), as long as something else remains. Trailing context only anchors a
/// hunk, so dropping a real blank context line changes nothing that is written.
fn trim_trailing_blank_context(hunk: &mut Hunk) {
    let is_blank = |line: &HunkLine| matches!(line, HunkLine::Context(text) if text.is_empty());
    if hunk.lines.iter().all(is_blank) {
        return;
    }
    while hunk.lines.last().is_some_and(is_blank) {
        hunk.lines.pop();
    }
}

/// `*** Add File: path` → `Some("path")`; a marker with an empty path is an error.
fn marker_path(line: &str, marker: &str, line_number: usize) -> Result<Option<String>, PatchParseError> {
    let Some(rest) = line.strip_prefix(marker) else {
        return Ok(None);
    };
    let path = rest.trim();
    if path.is_empty() {
        return Err(error_at(line_number, format!("`{marker}` needs a path after it")));
    }
    Ok(Some(path.to_owned()))
}

/// `@@ -12,5 +12,6 @@ …` → `(12, Some(5))`; `@@ -12 +12 @@` → `(12, Some(1))`.
fn parse_range_header(line: &str) -> Option<(usize, Option<usize>)> {
    let rest = line.strip_prefix("@@")?.trim_start();
    let old = rest.strip_prefix('-')?;
    let old = old.split_whitespace().next()?;
    let (start, count) = match old.split_once(',') {
        Some((start, count)) => (start.parse().ok()?, Some(count.parse().ok()?)),
        None => (old.parse().ok()?, Some(1)),
    };
    // The new side must be there too for this to be a range header.
    let after_old = rest.split_whitespace().nth(1)?;
    if !after_old.starts_with('+') {
        return None;
    }
    Some((start, count))
}

/// `+c,d` part of a range header → `d` (default 1).
fn parse_new_count(line: &str) -> Option<usize> {
    let new = line.strip_prefix("@@")?.split_whitespace().nth(1)?.strip_prefix('+')?;
    match new.split_once(',') {
        Some((_, count)) => count.parse().ok(),
        None => new.parse::<usize>().ok().map(|_| 1),
    }
}

struct UnifiedParser<'a> {
    lines: &'a [&'a str],
    position: usize,
    end: usize,
    notes: Vec<String>,
}

/// What the headers of one unified file section said.
#[derive(Default)]
struct SectionHeaders {
    git_old: Option<String>,
    git_new: Option<String>,
    old_path: Option<String>,
    new_path: Option<String>,
    new_file: bool,
    deleted_file: bool,
    rename_from: Option<String>,
    rename_to: Option<String>,
    mode_change: Option<String>,
    has_git_header: bool,
}

impl UnifiedParser<'_> {
    fn parse(mut self) -> Result<Patch, PatchParseError> {
        let mut operations = Vec::new();
        while self.position < self.end {
            let line = self.lines[self.position];
            let starts_section = line.starts_with("diff --git ")
                || (line.starts_with("--- ") && self.position + 1 < self.end && self.lines[self.position + 1].starts_with("+++ "));
            if !starts_section {
                if line.starts_with("@@") {
                    return Err(error_at(
                        self.position + 1,
                        "hunk `@@` before any file header; start each file with `--- a/<path>` and `+++ b/<path>`",
                    ));
                }
                // Commit message, diffstat, `index` lines of an unsupported section: skipped.
                self.position += 1;
                continue;
            }
            if let Some(operation) = self.parse_section()? {
                operations.push(operation);
            }
        }
        if operations.is_empty() {
            return Err(error_at(0, "the diff has no file sections with changes"));
        }
        Ok(Patch { format: PatchFormat::UnifiedDiff, operations, notes: self.notes })
    }

    fn parse_section(&mut self) -> Result<Option<FileOperation>, PatchParseError> {
        let patch_line = self.position + 1;
        let mut headers = SectionHeaders::default();
        if let Some(rest) = self.lines[self.position].strip_prefix("diff --git ") {
            headers.has_git_header = true;
            if let Some((old, new)) = split_git_header_paths(rest) {
                headers.git_old = Some(old);
                headers.git_new = Some(new);
            }
            self.position += 1;
            self.parse_extended_headers(&mut headers, patch_line)?;
        }
        if self.position + 1 < self.end
            && self.lines[self.position].starts_with("--- ")
            && self.lines[self.position + 1].starts_with("+++ ")
        {
            headers.old_path = Some(header_path(&self.lines[self.position][4..]));
            headers.new_path = Some(header_path(&self.lines[self.position + 1][4..]));
            self.position += 2;
        }
        let mut hunks = Vec::new();
        while self.position < self.end && self.lines[self.position].starts_with("@@") {
            hunks.push(self.parse_unified_hunk()?);
        }
        self.build_operation(headers, hunks, patch_line)
    }

    fn parse_extended_headers(&mut self, headers: &mut SectionHeaders, patch_line: usize) -> Result<(), PatchParseError> {
        while self.position < self.end {
            let line = self.lines[self.position];
            if line.starts_with("--- ") || line.starts_with("@@") || line.starts_with("diff --git ") {
                return Ok(());
            }
            if line.starts_with("new file mode") {
                headers.new_file = true;
            } else if line.starts_with("deleted file mode") {
                headers.deleted_file = true;
            } else if let Some(path) = line.strip_prefix("rename from ") {
                headers.rename_from = Some(unquote(path.trim()));
            } else if let Some(path) = line.strip_prefix("rename to ") {
                headers.rename_to = Some(unquote(path.trim()));
            } else if let Some(mode) = line.strip_prefix("new mode ") {
                headers.mode_change = Some(mode.trim().to_owned());
            } else if line.starts_with("copy from ") || line.starts_with("copy to ") {
                return Err(error_at(
                    self.position + 1,
                    "git copy sections are not supported; add the copy as a new file (`new file mode` + `--- /dev/null`)",
                ));
            } else if line.starts_with("GIT binary patch") || (line.starts_with("Binary files ") && line.ends_with(" differ")) {
                return Err(error_at(
                    patch_line,
                    format!(
                        "binary diff for {} is not supported; apply_patch changes text files only",
                        headers.git_new.as_deref().unwrap_or("a file")
                    ),
                ));
            } else if !(line.starts_with("index ")
                || line.starts_with("old mode ")
                || line.starts_with("similarity index ")
                || line.starts_with("dissimilarity index "))
            {
                return Ok(());
            }
            self.position += 1;
        }
        Ok(())
    }

    fn parse_unified_hunk(&mut self) -> Result<Hunk, PatchParseError> {
        let header = self.lines[self.position];
        let patch_line = self.position + 1;
        self.position += 1;
        let range = parse_range_header(header);
        let mut hunk =
            Hunk { patch_line, old_start: range.map(|(start, _)| start), old_count: range.and_then(|(_, count)| count), ..Hunk::default() };
        let counts = range.and_then(|(_, old)| Some((old?, parse_new_count(header)?)));
        let start = self.position;
        if let Some((old_count, new_count)) = counts {
            if self.read_counted_lines(&mut hunk, old_count, new_count) {
                return Ok(hunk);
            }
            // The counts do not add up: read the hunk again by its shape.
            self.position = start;
            hunk.lines.clear();
            hunk.old_missing_final_newline = false;
            hunk.new_missing_final_newline = false;
        }
        self.read_lenient_lines(&mut hunk);
        if hunk.lines.is_empty() {
            return Err(error_at(patch_line, "`@@` hunk header with no lines after it"));
        }
        Ok(hunk)
    }

    /// Reads exactly `old_count` old-side and `new_count` new-side lines. `false` (position
    /// unspecified) when the lines do not fit the counts.
    fn read_counted_lines(&mut self, hunk: &mut Hunk, mut old_left: usize, mut new_left: usize) -> bool {
        while old_left > 0 || new_left > 0 {
            let Some(&line) = self.lines.get(self.position).filter(|_| self.position < self.end) else {
                return false;
            };
            match line.chars().next() {
                None | Some(' ') if old_left > 0 && new_left > 0 => {
                    hunk.lines.push(HunkLine::Context(line.get(1..).unwrap_or("").to_owned()));
                    old_left -= 1;
                    new_left -= 1;
                }
                Some('-') if old_left > 0 => {
                    hunk.lines.push(HunkLine::Remove(line[1..].to_owned()));
                    old_left -= 1;
                }
                Some('+') if new_left > 0 => {
                    hunk.lines.push(HunkLine::Add(line[1..].to_owned()));
                    new_left -= 1;
                }
                Some('\\') => mark_missing_newline(hunk),
                _ => return false,
            }
            self.position += 1;
        }
        while self.position < self.end && self.lines[self.position].starts_with('\\') {
            mark_missing_newline(hunk);
            self.position += 1;
        }
        // Counts that stop short of more hunk lines were wrong (too small).
        let next = self.lines.get(self.position).filter(|_| self.position < self.end);
        !next.is_some_and(|line| self.is_hunk_body_line(self.position) && !line.is_empty() && *line != "-- ")
    }

    /// Reads hunk lines by shape until a header, a non-hunk line or the end.
    fn read_lenient_lines(&mut self, hunk: &mut Hunk) {
        while self.position < self.end && self.is_hunk_body_line(self.position) {
            let line = self.lines[self.position];
            match line.chars().next() {
                None => hunk.lines.push(HunkLine::Context(String::new())),
                Some(' ') => hunk.lines.push(HunkLine::Context(line[1..].to_owned())),
                Some('-') => hunk.lines.push(HunkLine::Remove(line[1..].to_owned())),
                Some('+') => hunk.lines.push(HunkLine::Add(line[1..].to_owned())),
                _ => mark_missing_newline(hunk),
            }
            self.position += 1;
        }
        trim_trailing_blank_context(hunk);
    }

    /// Whether line `index` can be part of a hunk body (and is not the next section's header).
    fn is_hunk_body_line(&self, index: usize) -> bool {
        let line = self.lines[index];
        if line.starts_with("diff --git ") || line.starts_with("@@") || line == "-- " {
            return false;
        }
        if line.starts_with("--- ") && index + 1 < self.end && self.lines[index + 1].starts_with("+++ ") {
            return false;
        }
        matches!(line.chars().next(), None | Some(' ' | '-' | '+' | '\\'))
    }

    fn build_operation(
        &mut self,
        headers: SectionHeaders,
        hunks: Vec<Hunk>,
        patch_line: usize,
    ) -> Result<Option<FileOperation>, PatchParseError> {
        let prefixed = headers.has_git_header
            || [headers.old_path.as_deref(), headers.new_path.as_deref()]
                .iter()
                .flatten()
                .filter(|path| **path != "/dev/null")
                .all(|path| path.starts_with("a/") || path.starts_with("b/"));
        let clean = |path: Option<String>| -> Option<String> {
            let path = path?;
            if path == "/dev/null" {
                return None;
            }
            Some(if prefixed { strip_ab_prefix(&path) } else { path })
        };
        let old_is_null = headers.old_path.as_deref() == Some("/dev/null");
        let new_is_null = headers.new_path.as_deref() == Some("/dev/null");
        let old_path = headers
            .rename_from
            .clone()
            .or_else(|| clean(headers.old_path.clone()))
            .or_else(|| headers.git_old.as_deref().map(strip_ab_prefix))
            .filter(|path| !path.trim().is_empty());
        let new_path = headers
            .rename_to
            .clone()
            .or_else(|| clean(headers.new_path.clone()))
            .or_else(|| headers.git_new.as_deref().map(strip_ab_prefix))
            .filter(|path| !path.trim().is_empty());
        let is_add = headers.new_file || old_is_null;
        let is_delete = headers.deleted_file || new_is_null;
        if let Some(mode) = &headers.mode_change {
            let path = new_path.as_deref().or(old_path.as_deref()).unwrap_or("a file");
            self.notes.push(format!("ignored the mode change of {path} to {mode}: apply_patch keeps existing permissions"));
        }
        if is_add {
            let Some(path) = new_path else {
                return Err(error_at(patch_line, "a new-file section without a target path (`+++ b/<path>`)"));
            };
            let mut content = String::new();
            let mut missing_newline = false;
            for hunk in &hunks {
                for line in &hunk.lines {
                    match line {
                        HunkLine::Add(text) | HunkLine::Context(text) => {
                            content.push_str(text);
                            content.push('\n');
                        }
                        HunkLine::Remove(_) => {
                            return Err(error_at(hunk.patch_line, format!("new file {path} has a removed ('-') line")));
                        }
                    }
                }
                missing_newline |= hunk.new_missing_final_newline;
            }
            if missing_newline {
                content.pop();
            }
            return Ok(Some(FileOperation::Add { path, content, patch_line }));
        }
        if is_delete {
            let Some(path) = old_path else {
                return Err(error_at(patch_line, "a deleted-file section without a source path (`--- a/<path>`)"));
            };
            let expected_content = (!hunks.is_empty()).then(|| {
                let mut content = String::new();
                for line in hunks.iter().flat_map(|hunk| hunk.old_lines()) {
                    content.push_str(line);
                    content.push('\n');
                }
                content
            });
            return Ok(Some(FileOperation::Delete { path, expected_content, patch_line }));
        }
        let Some(path) = old_path.clone().or_else(|| new_path.clone()) else {
            return Err(error_at(patch_line, "a file section without paths (`--- a/<path>` / `+++ b/<path>`)"));
        };
        let move_to = new_path.filter(|new| *new != path);
        if hunks.is_empty() && move_to.is_none() {
            // A mode-only change or an empty section: nothing to do.
            return Ok(None);
        }
        Ok(Some(FileOperation::Update { path, move_to, hunks, patch_line }))
    }
}

fn mark_missing_newline(hunk: &mut Hunk) {
    match hunk.lines.last() {
        Some(HunkLine::Remove(_)) => hunk.old_missing_final_newline = true,
        Some(HunkLine::Add(_)) => hunk.new_missing_final_newline = true,
        Some(HunkLine::Context(_)) => {
            hunk.old_missing_final_newline = true;
            hunk.new_missing_final_newline = true;
        }
        None => {}
    }
}

/// The path of a `---`/`+++` line: unquoted, without a trailing tab + timestamp.
fn header_path(rest: &str) -> String {
    let rest = rest.trim_end();
    if rest.starts_with('"') {
        return unquote(rest);
    }
    let path = rest.split('\t').next().unwrap_or(rest);
    path.trim_end().to_owned()
}

/// `a/x b/y` (or quoted forms) → `("a/x", "b/y")`. Unquoted paths with spaces are split at the
/// ` b/` that makes both halves equal, else at the last ` b/`.
fn split_git_header_paths(rest: &str) -> Option<(String, String)> {
    if rest.starts_with('"') {
        let close = find_closing_quote(rest)?;
        let old = unquote(&rest[..=close]);
        let new = unquote(rest[close + 1..].trim());
        return Some((old, new));
    }
    let candidates: Vec<usize> = rest.match_indices(" b/").map(|(index, _)| index).collect();
    let split = candidates
        .iter()
        .copied()
        .find(|&index| rest[..index].strip_prefix("a/") == Some(&rest[index + 3..]))
        .or_else(|| candidates.last().copied());
    match split {
        Some(index) => Some((rest[..index].to_owned(), unquote(rest[index + 1..].trim()))),
        None => {
            let (old, new) = rest.split_once(' ')?;
            Some((old.to_owned(), unquote(new.trim())))
        }
    }
}

fn find_closing_quote(text: &str) -> Option<usize> {
    let mut escaped = false;
    for (index, character) in text.char_indices().skip(1) {
        match character {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(index),
            _ => {}
        }
    }
    None
}

/// Git's C-style quoting: `"a/with space\t\303\251"` → `a/with space<TAB>é`. Unquoted text is
/// returned as is.
fn unquote(text: &str) -> String {
    let Some(inner) = text.strip_prefix('"').and_then(|rest| rest.strip_suffix('"')) else {
        return text.to_owned();
    };
    let mut bytes = Vec::with_capacity(inner.len());
    let mut chars = inner.bytes().peekable();
    while let Some(byte) = chars.next() {
        if byte != b'\\' {
            bytes.push(byte);
            continue;
        }
        match chars.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(b'r') => bytes.push(b'\r'),
            Some(b'a') => bytes.push(7),
            Some(b'b') => bytes.push(8),
            Some(b'f') => bytes.push(12),
            Some(b'v') => bytes.push(11),
            Some(digit @ b'0'..=b'7') => {
                let mut value = u32::from(digit - b'0');
                for _ in 0..2 {
                    match chars.peek() {
                        Some(next @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(next - b'0');
                            chars.next();
                        }
                        _ => break,
                    }
                }
                bytes.push((value & 0xff) as u8);
            }
            Some(other) => bytes.push(other),
            None => bytes.push(b'\\'),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn strip_ab_prefix(path: &str) -> String {
    path.strip_prefix("a/").or_else(|| path.strip_prefix("b/")).unwrap_or(path).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(text: &str) -> HunkLine {
        HunkLine::Context(text.to_owned())
    }
    fn remove(text: &str) -> HunkLine {
        HunkLine::Remove(text.to_owned())
    }
    fn add(text: &str) -> HunkLine {
        HunkLine::Add(text.to_owned())
    }

    #[test]
    fn envelope_with_every_operation() {
        let patch = parse_patch(
            "*** Begin Patch
*** Add File: src/new.rs
+fn new() {}
+
+// end
*** Delete File: src/old.rs
*** Update File: src/lib.rs
*** Move to: src/core.rs
@@ impl Foo
@@ fn bar
 let a = 1;
-let b = 2;
+let b = 3;
@@
 tail
+more
*** End of File
*** End Patch
",
        )
        .unwrap();
        assert_eq!(patch.format, PatchFormat::Envelope);
        assert_eq!(patch.operations.len(), 3);
        assert_eq!(
            patch.operations[0],
            FileOperation::Add { path: "src/new.rs".into(), content: "fn new() {}\n\n// end\n".into(), patch_line: 2 }
        );
        assert_eq!(patch.operations[1], FileOperation::Delete { path: "src/old.rs".into(), expected_content: None, patch_line: 6 });
        let FileOperation::Update { path, move_to, hunks, patch_line } = &patch.operations[2] else { panic!() };
        assert_eq!((path.as_str(), move_to.as_deref(), *patch_line), ("src/lib.rs", Some("src/core.rs"), 7));
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].anchors, vec!["impl Foo".to_owned(), "fn bar".to_owned()]);
        assert_eq!(hunks[0].lines, vec![context("let a = 1;"), remove("let b = 2;"), add("let b = 3;")]);
        assert_eq!(hunks[0].patch_line, 9);
        assert!(!hunks[0].end_of_file);
        assert_eq!(hunks[1].lines, vec![context("tail"), add("more")]);
        assert!(hunks[1].end_of_file);
    }

    #[test]
    fn envelope_first_hunk_without_header_and_empty_context_lines() {
        let patch = parse_patch("*** Begin Patch\n*** Update File: a.py\n def f():\n\n-    pass\n+    return 1\n*** End Patch").unwrap();
        let FileOperation::Update { hunks, .. } = &patch.operations[0] else { panic!() };
        assert_eq!(hunks[0].lines, vec![context("def f():"), context(""), remove("    pass"), add("    return 1")]);
    }

    #[test]
    fn envelope_tolerates_heredoc_fence_and_crlf() {
        for text in [
            "<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n",
            "```\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n```",
            "*** Begin Patch\r\n*** Delete File: a\r\n*** End Patch\r\n",
        ] {
            let patch = parse_patch(text).unwrap_or_else(|err| panic!("{text:?}: {err}"));
            assert_eq!(patch.operations[0].path(), "a");
        }
    }

    #[test]
    fn envelope_errors_name_the_line() {
        let err = parse_patch("*** Begin Patch\n*** Update File: a\n@@\n context\nbad line\n*** End Patch").unwrap_err();
        assert_eq!(err.line, 5);
        assert!(err.message.contains("has no hunk prefix"), "{err}");
        let err = parse_patch("*** Begin Patch\n*** Update File: a\n+x\n").unwrap_err();
        assert!(err.message.contains("may be cut off"), "{err}");
        let err = parse_patch("*** Begin Patch\n*** Frobnicate: a\n*** End Patch").unwrap_err();
        assert_eq!(err.line, 2);
        let err = parse_patch("*** Begin Patch\n*** Update File: a\n*** End Patch").unwrap_err();
        assert!(err.message.contains("has no hunks"), "{err}");
        let err = parse_patch("just some text").unwrap_err();
        assert!(err.message.starts_with("not a patch"), "{err}");
        let err = parse_patch("*** Begin Patch\n*** Add File: \n*** End Patch").unwrap_err();
        assert!(err.message.contains("needs a path"), "{err}");
    }

    #[test]
    fn git_diff_update_add_delete_rename() {
        let patch = parse_patch(
            "diff --git a/src/a.rs b/src/a.rs
index 83db48f..bf269f4 100644
--- a/src/a.rs
+++ b/src/a.rs
@@ -1,3 +1,3 @@ fn main() {
 one
-two
+TWO
 three
diff --git a/new.txt b/new.txt
new file mode 100644
index 0000000..3b18e51
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+hello
+world
\\ No newline at end of file
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/old name.txt b/new name.txt
similarity index 100%
rename from old name.txt
rename to new name.txt
",
        )
        .unwrap();
        assert_eq!(patch.format, PatchFormat::UnifiedDiff);
        assert_eq!(patch.operations.len(), 4);
        let FileOperation::Update { path, move_to, hunks, .. } = &patch.operations[0] else { panic!() };
        assert_eq!((path.as_str(), move_to), ("src/a.rs", &None));
        assert_eq!((hunks[0].old_start, hunks[0].old_count), (Some(1), Some(3)));
        assert_eq!(hunks[0].lines, vec![context("one"), remove("two"), add("TWO"), context("three")]);
        assert_eq!(patch.operations[1], FileOperation::Add { path: "new.txt".into(), content: "hello\nworld".into(), patch_line: 10 });
        assert_eq!(
            patch.operations[2],
            FileOperation::Delete { path: "gone.txt".into(), expected_content: Some("bye\n".into()), patch_line: 19 }
        );
        assert_eq!(
            patch.operations[3],
            FileOperation::Update { path: "old name.txt".into(), move_to: Some("new name.txt".into()), hunks: vec![], patch_line: 25 }
        );
    }

    #[test]
    fn plain_unified_diff_with_timestamps_and_wrong_counts() {
        let patch = parse_patch(
            "--- src/x.c\t2024-01-01 10:00:00
+++ src/x.c\t2024-01-02 10:00:00
@@ -10,2 +10,2 @@
 a
-b
+c
+d
 e
",
        )
        .unwrap();
        let FileOperation::Update { path, hunks, .. } = &patch.operations[0] else { panic!() };
        assert_eq!(path, "src/x.c");
        // The counts (2/2) are wrong; the lenient scan reads the whole hunk.
        assert_eq!(hunks[0].lines, vec![context("a"), remove("b"), add("c"), add("d"), context("e")]);
    }

    #[test]
    fn counted_hunk_keeps_a_removed_line_that_looks_like_a_header() {
        let patch = parse_patch("--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n--- old comment\n keep\n").unwrap();
        let FileOperation::Update { hunks, .. } = &patch.operations[0] else { panic!() };
        assert_eq!(hunks[0].lines, vec![remove("-- old comment"), context("keep")]);
    }

    #[test]
    fn format_patch_email_is_skipped_until_the_diff() {
        let patch = parse_patch(
            "From 123 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] fix\n\n---\n a.txt | 2 +-\n\ndiff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n-- \n2.40.0\n",
        )
        .unwrap();
        let FileOperation::Update { hunks, .. } = &patch.operations[0] else { panic!() };
        assert_eq!(hunks[0].lines, vec![remove("x"), add("y")]);
    }

    #[test]
    fn quoted_git_paths_and_binary_refusal() {
        assert_eq!(unquote("\"a/caf\\303\\251 \\\"q\\\".txt\""), "a/café \"q\".txt");
        let patch = parse_patch("diff --git \"a/x y\" \"b/x y\"\n--- \"a/x y\"\n+++ \"b/x y\"\n@@ -1 +1 @@\n-1\n+2\n").unwrap();
        assert_eq!(patch.operations[0].path(), "x y");
        let err = parse_patch("diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n").unwrap_err();
        assert!(err.message.contains("binary diff"), "{err}");
    }

    #[test]
    fn mode_change_is_noted_not_applied() {
        let patch =
            parse_patch("diff --git a/s.sh b/s.sh\nold mode 100644\nnew mode 100755\n--- a/s.sh\n+++ b/s.sh\n@@ -1 +1 @@\n-a\n+b\n")
                .unwrap();
        assert_eq!(patch.notes.len(), 1);
        assert!(patch.notes[0].contains("s.sh"), "{:?}", patch.notes);
    }

    #[test]
    fn context_lines_starting_with_stars_are_not_markers() {
        let patch =
            parse_patch("*** Begin Patch\n*** Update File: a.md\n@@\n *** bold ***\n-x\n+y\n *** End Patch\n*** End Patch").unwrap();
        let FileOperation::Update { hunks, .. } = &patch.operations[0] else { panic!() };
        assert_eq!(hunks[0].lines, vec![context("*** bold ***"), remove("x"), add("y"), context("*** End Patch")]);
    }

    #[test]
    fn empty_paths_are_refused() {
        // Found by the apply_patch_parse fuzz target.
        let err = parse_patch("diff --git a/ /\nbyxrename from x\nrg\0\x001 @@ren\n").unwrap_err();
        assert!(!err.message.is_empty());
        let err = parse_patch("--- a/\n+++ b/\n@@ -1 +1 @@\n-x\n+y\n").unwrap_err();
        assert!(err.message.contains("without"), "{err}");
    }

    #[test]
    fn range_header_forms() {
        assert_eq!(parse_range_header("@@ -12,5 +12,6 @@ fn x"), Some((12, Some(5))));
        assert_eq!(parse_range_header("@@ -3 +3 @@"), Some((3, Some(1))));
        assert_eq!(parse_range_header("@@ fn x"), None);
        assert_eq!(parse_new_count("@@ -0,0 +1,2 @@"), Some(2));
    }
}
