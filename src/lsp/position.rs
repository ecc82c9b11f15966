//! Line + symbol addressing (R-LSP-3) and position-encoding conversion.
//!
//! A caller names a position by a 1-based `line` and a `symbol` substring of that line — never a
//! column. [`resolve_symbol_on_line`] finds the substring (preferring whole-identifier
//! occurrences), picks the identifier the cursor goes on, and [`PositionEncoding`] converts the
//! byte column to the negotiated LSP units (UTF-16 by default) using the line's current text, and
//! back for results (clamped to the line end, as the LSP spec requires).

use std::fmt;

/// The unit an LSP `Position.character` counts, as negotiated at `initialize`
/// (`capabilities.positionEncoding`, or clangd's `offsetEncoding`; UTF-16 when absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PositionEncoding {
    /// Bytes of UTF-8 (rust-analyzer and clangd pick this when offered).
    Utf8,
    /// UTF-16 code units: the LSP default.
    Utf16,
    /// Unicode scalar values (code points).
    Utf32,
}

impl PositionEncoding {
    /// Parses an LSP encoding name (`utf-8`, `utf-16`, `utf-32`, case-insensitive, also `utf8`…);
    /// `None` for anything else.
    pub fn from_lsp_name(name: &str) -> Option<PositionEncoding> {
        match name.to_ascii_lowercase().replace('-', "").as_str() {
            "utf8" => Some(PositionEncoding::Utf8),
            "utf16" => Some(PositionEncoding::Utf16),
            "utf32" => Some(PositionEncoding::Utf32),
            _ => None,
        }
    }

    /// The LSP wire name: `utf-8`, `utf-16` or `utf-32`.
    pub fn lsp_name(self) -> &'static str {
        match self {
            PositionEncoding::Utf8 => "utf-8",
            PositionEncoding::Utf16 => "utf-16",
            PositionEncoding::Utf32 => "utf-32",
        }
    }

    /// Converts a byte column of `line_text` (0-based; clamped to the line length and moved back
    /// to a char boundary) into a column in this encoding.
    pub fn column_from_byte(self, line_text: &str, byte_column: usize) -> u32 {
        let mut byte_column = byte_column.min(line_text.len());
        while !line_text.is_char_boundary(byte_column) {
            byte_column -= 1;
        }
        let prefix = &line_text[..byte_column];
        let units = match self {
            PositionEncoding::Utf8 => prefix.len(),
            PositionEncoding::Utf16 => prefix.chars().map(char::len_utf16).sum(),
            PositionEncoding::Utf32 => prefix.chars().count(),
        };
        units as u32
    }

    /// Converts a column in this encoding into a byte column of `line_text` (0-based). A column
    /// past the end clamps to the line end; a column inside a multi-unit character lands on that
    /// character's start.
    pub fn byte_from_column(self, line_text: &str, column: u32) -> usize {
        let column = column as usize;
        let mut units = 0usize;
        for (byte_idx, ch) in line_text.char_indices() {
            let width = match self {
                PositionEncoding::Utf8 => ch.len_utf8(),
                PositionEncoding::Utf16 => ch.len_utf16(),
                PositionEncoding::Utf32 => 1,
            };
            if units + width > column {
                return byte_idx;
            }
            units += width;
        }
        line_text.len()
    }
}

impl fmt::Display for PositionEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.lsp_name())
    }
}

/// A `line` + `symbol` address resolved against a file's current text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedSymbol {
    /// 1-based line number, as given.
    pub line: u32,
    /// The line's text (without the line terminator).
    pub line_text: String,
    /// Byte offset (0-based, in the line) where the chosen `symbol` occurrence starts.
    pub occurrence_byte_start: usize,
    /// Byte offset (0-based, in the line) of the identifier the cursor goes on.
    pub cursor_byte: usize,
    /// The identifier the cursor goes on (for `self.foo` → `foo`; for `a::b::c` → `c`).
    pub cursor_identifier: String,
    /// Which occurrence was chosen (1-based, among [`ResolvedSymbol::occurrence_count`]).
    pub occurrence: usize,
    /// How many candidate occurrences the line has (whole-identifier ones when any exist).
    pub occurrence_count: usize,
    /// When `symbol` named only part of the identifier on the line (`validate` on a line that
    /// holds `validateSync` and no whole `validate`): that part. The cursor then goes on the
    /// whole identifier, [`ResolvedSymbol::cursor_identifier`] names it, and the answers say so
    /// (trial35 F3: a rename of `validate` renamed `validateSync` and was reported as one of
    /// `validate`).
    pub part_of_identifier: Option<String>,
}

impl ResolvedSymbol {
    /// The 0-based LSP position in `encoding`: `(line - 1, column)`.
    pub fn lsp_position(&self, encoding: PositionEncoding) -> (u32, u32) {
        (self.line - 1, encoding.column_from_byte(&self.line_text, self.cursor_byte))
    }

    /// The cursor's identifier as the source writes it, for display: with the `#` of a
    /// JavaScript/TypeScript private name (`#queryCache`; [`ResolvedSymbol::cursor_identifier`]
    /// holds the identifier after it; not Rust's raw `r#type`), else the identifier (trial156 M2:
    /// a rename's header said `queryCache`).
    pub fn shown_name(&self) -> String {
        let before = self.line_text.get(..self.cursor_byte).unwrap_or_default();
        let identifier_start = before.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_' || c == '$').len();
        // Rust's raw identifiers (`r#type`) are no private names.
        let private = before[..identifier_start]
            .strip_suffix('#')
            .is_some_and(|rest| !rest.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$'));
        if private {
            format!("#{}", self.cursor_identifier)
        } else {
            self.cursor_identifier.clone()
        }
    }

    /// 1-based character column of the cursor (counted in Unicode scalar values), for display.
    pub fn display_column(&self) -> u32 {
        PositionEncoding::Utf32.column_from_byte(&self.line_text, self.cursor_byte) + 1
    }
}

/// Why a `line` + `symbol` address does not resolve. The `Display` text is written for an LLM:
/// it says what was looked for, what the line holds, and the next step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddressError {
    /// `line` is 0 or past the end of the file.
    LineOutOfRange {
        /// The line asked for (1-based).
        line: u32,
        /// How many lines the file has.
        line_count: usize,
    },
    /// `symbol` is empty or only whitespace.
    EmptySymbol,
    /// The substring does not occur on the line.
    SymbolNotOnLine {
        /// The line asked for (1-based).
        line: u32,
        /// The substring.
        symbol: String,
        /// The line's text.
        line_text: String,
        /// The 1-based lines of the file where the substring occurs nearest to `line` (at most
        /// 5, in file order): an address one line off finds its line among them.
        lines_with_symbol: Vec<u32>,
        /// How many lines of the file hold the substring (≥ `lines_with_symbol.len()`).
        lines_with_symbol_total: usize,
    },
    /// Several candidate occurrences and no `occurrence` given.
    Ambiguous {
        /// The line asked for (1-based).
        line: u32,
        /// The substring.
        symbol: String,
        /// The line's text.
        line_text: String,
        /// 1-based character columns of the candidates, in order.
        columns: Vec<u32>,
    },
    /// For a tool that writes: `symbol` names only part of the identifier on the line
    /// ([`ResolvedSymbol::part_of_identifier`]), see [`resolve_whole_identifier_on_line`].
    PartOfIdentifier {
        /// The line asked for (1-based).
        line: u32,
        /// The identifier part `symbol` named (`validate`).
        part: String,
        /// The whole identifier on the line (`validateSync`).
        identifier: String,
        /// The 1-based lines of the file where `part` stands as a whole identifier, nearest to
        /// `line` first (at most 5).
        lines_with_part: Vec<u32>,
    },
    /// `occurrence` is 0 or larger than the number of candidates.
    OccurrenceOutOfRange {
        /// The occurrence asked for.
        occurrence: usize,
        /// How many candidates the line has.
        occurrence_count: usize,
        /// The substring.
        symbol: String,
    },
}

impl fmt::Display for AddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddressError::LineOutOfRange { line, line_count } => {
                write!(f, "line {line} does not exist: the file has {line_count} lines (lines are 1-based)")
            }
            AddressError::EmptySymbol => f.write_str("symbol is empty: pass a substring of the line that contains the identifier"),
            AddressError::SymbolNotOnLine { line, symbol, line_text, lines_with_symbol, lines_with_symbol_total } => {
                write!(f, "symbol {symbol:?} does not occur on line {line}, which reads: {:?}", line_text.trim_end())?;
                let lines: Vec<String> = lines_with_symbol.iter().map(u32::to_string).collect();
                if lines_with_symbol.is_empty() {
                    write!(f, "; it occurs nowhere in the file")
                } else if *lines_with_symbol_total > lines_with_symbol.len() {
                    write!(
                        f,
                        "; it occurs on {lines_with_symbol_total} lines, the {} nearest to line {line}: {}",
                        lines.len(),
                        lines.join(", ")
                    )
                } else {
                    write!(f, "; it occurs on line(s) {}", lines.join(", "))
                }
            }
            AddressError::Ambiguous { line, symbol, line_text, columns } => {
                let listed: Vec<String> =
                    columns.iter().enumerate().map(|(idx, column)| format!("occurrence {} at column {column}", idx + 1)).collect();
                write!(
                    f,
                    "symbol {symbol:?} occurs {} times on line {line} ({:?}): {}; pass `occurrence` (1-based) to pick one, or a longer substring",
                    columns.len(),
                    line_text.trim_end(),
                    listed.join(", ")
                )
            }
            AddressError::PartOfIdentifier { line, part, identifier, lines_with_part } => {
                write!(
                    f,
                    "`{part}` is not a whole identifier on line {line}: it is part of `{identifier}` there, and this call writes, so it does not guess; pass symbol {identifier:?} to act on `{identifier}`"
                )?;
                if lines_with_part.is_empty() {
                    write!(f, ", or the file and line where `{part}` stands whole (it does nowhere in this file)")
                } else {
                    let lines: Vec<String> = lines_with_part.iter().map(u32::to_string).collect();
                    write!(f, ", or a line where `{part}` stands whole: line(s) {}", lines.join(", "))
                }
            }
            AddressError::OccurrenceOutOfRange { occurrence, occurrence_count, symbol } => {
                write!(f, "occurrence {occurrence} is out of range: symbol {symbol:?} has {occurrence_count} candidate occurrence(s) on the line (1-based)")
            }
        }
    }
}

impl std::error::Error for AddressError {}

/// Resolves `line` (1-based) + `symbol` against `file_text`.
///
/// Rules (R-LSP-3): the substring must occur on the line; whole-identifier occurrences are
/// preferred (when at least one exists, the others are not candidates); several candidates and no
/// `occurrence` → `AddressError::Ambiguous` listing them; `occurrence` is 1-based among the
/// candidates. Declaration keywords at the substring's start are skipped (`pub fn quote`,
/// `func (c *Cron) AddFunc`, `export const parse`: the keywords `pub`, `fn`, `def`, `func`, `let`, `const`, `export`, …); the cursor goes on the
/// last identifier of the leading path after them (`self.foo` → `foo`, `a::b::c` → `c`,
/// `foo(x)` → `foo`, `Schedule Timetable` → `Schedule`); a substring without an identifier puts
/// the cursor on its first character.
///
/// # Errors
/// See `AddressError`.
pub fn resolve_symbol_on_line(file_text: &str, line: u32, symbol: &str, occurrence: Option<usize>) -> Result<ResolvedSymbol, AddressError> {
    if symbol.trim().is_empty() {
        return Err(AddressError::EmptySymbol);
    }
    let lines: Vec<&str> = split_lines(file_text);
    if line == 0 || line as usize > lines.len() {
        return Err(AddressError::LineOutOfRange { line, line_count: lines.len() });
    }
    let line_text = lines[line as usize - 1];
    let all: Vec<usize> = line_text.match_indices(symbol).map(|(idx, _)| idx).collect();
    if all.is_empty() {
        // The nearest lines, not the first: on bytes 1.7.2, `reserve` asked at the `#[inline]`
        // above `pub fn reserve` (line 589) had named lines 166–492 and not 590.
        let mut lines_with_symbol: Vec<u32> =
            lines.iter().enumerate().filter(|(_, text)| text.contains(symbol)).map(|(idx, _)| idx as u32 + 1).collect();
        let lines_with_symbol_total = lines_with_symbol.len();
        lines_with_symbol.sort_by_key(|found| (found.abs_diff(line), *found));
        lines_with_symbol.truncate(5);
        lines_with_symbol.sort_unstable();
        return Err(AddressError::SymbolNotOnLine {
            line,
            symbol: symbol.to_owned(),
            line_text: line_text.to_owned(),
            lines_with_symbol,
            lines_with_symbol_total,
        });
    }
    let whole: Vec<usize> = all.iter().copied().filter(|&start| is_whole_identifier_match(line_text, start, symbol)).collect();
    let candidates = if whole.is_empty() { all } else { whole };
    let chosen_idx = match occurrence {
        Some(n) if n == 0 || n > candidates.len() => {
            return Err(AddressError::OccurrenceOutOfRange { occurrence: n, occurrence_count: candidates.len(), symbol: symbol.to_owned() })
        }
        Some(n) => n - 1,
        None if candidates.len() == 1 => 0,
        None => {
            let columns = candidates.iter().map(|&start| PositionEncoding::Utf32.column_from_byte(line_text, start) + 1).collect();
            return Err(AddressError::Ambiguous { line, symbol: symbol.to_owned(), line_text: line_text.to_owned(), columns });
        }
    };
    let start = candidates[chosen_idx];
    let (cursor_offset, mut cursor_identifier) = cursor_in_substring(symbol);
    let mut cursor_byte = start + cursor_offset;
    // The whole identifier on the line around the cursor: `symbol` may name only part of it.
    let mut part_of_identifier = None;
    if let Some(key) = quoted_key_around(line_text, cursor_byte) {
        // A quoted key that is no identifier (`'d-AsyncQueuer'`, `"content-type"`): the symbol
        // is the key, never its first word (trial39 F3 answered for `d`).
        let symbol_covers_key = start <= key.start && start + symbol.len() >= key.end;
        let within_key = &line_text[start.max(key.start)..(start + symbol.len()).min(key.end)];
        if !symbol_covers_key {
            part_of_identifier = Some(within_key.to_owned());
        }
        cursor_identifier = line_text[key.clone()].to_owned();
        cursor_byte = key.start;
    } else if !cursor_identifier.is_empty() {
        let identifier_start = line_text[..cursor_byte]
            .char_indices()
            .rev()
            .take_while(|(_, ch)| is_identifier_char(*ch))
            .last()
            .map_or(cursor_byte, |(at, _)| at);
        let identifier_end = line_text[cursor_byte..]
            .char_indices()
            .find(|(_, ch)| !is_identifier_char(*ch))
            .map_or(line_text.len(), |(at, _)| cursor_byte + at);
        let on_line = &line_text[identifier_start..identifier_end];
        if on_line != cursor_identifier {
            part_of_identifier = Some(std::mem::replace(&mut cursor_identifier, on_line.to_owned()));
            cursor_byte = identifier_start;
        }
    }
    Ok(ResolvedSymbol {
        line,
        line_text: line_text.to_owned(),
        occurrence_byte_start: start,
        cursor_byte,
        cursor_identifier,
        occurrence: chosen_idx + 1,
        occurrence_count: candidates.len(),
        part_of_identifier,
    })
}

/// [`resolve_symbol_on_line`] for a tool that writes (a rename, a code action): a `symbol` that
/// names only part of the identifier on the line (`validate` where the line holds
/// `validateSync`) is refused rather than taken as the longer identifier (trial35 F3: a rename of
/// `validate` renamed `validateSync`).
///
/// # Errors
/// As [`resolve_symbol_on_line`], and [`AddressError::PartOfIdentifier`].
pub fn resolve_whole_identifier_on_line(
    file_text: &str,
    line: u32,
    symbol: &str,
    occurrence: Option<usize>,
) -> Result<ResolvedSymbol, AddressError> {
    let resolved = resolve_symbol_on_line(file_text, line, symbol, occurrence)?;
    let Some(part) = resolved.part_of_identifier.clone() else { return Ok(resolved) };
    let mut lines_with_part: Vec<u32> = split_lines(file_text)
        .iter()
        .enumerate()
        .filter(|(_, text)| contains_word(text, &part))
        .map(|(index, _)| index as u32 + 1)
        .collect();
    lines_with_part.sort_by_key(|found| (found.abs_diff(line), *found));
    lines_with_part.truncate(5);
    lines_with_part.sort_unstable();
    Err(AddressError::PartOfIdentifier { line, part, identifier: resolved.cursor_identifier, lines_with_part })
}

impl ResolvedSymbol {
    /// For an answer about the address: the note that `symbol` named only part of the identifier
    /// the answer is about ([`ResolvedSymbol::part_of_identifier`]); `None` otherwise.
    pub fn part_of_identifier_note(&self) -> Option<String> {
        self.part_of_identifier.as_ref().map(|part| {
            format!(
                "note: `{part}` is not a whole identifier on line {}: it is part of `{}`, and this answer is for `{}`; for `{part}` itself, address a line where it stands whole",
                self.line, self.cursor_identifier, self.cursor_identifier
            )
        })
    }
}

/// The byte range of the content of the quoted string literal around byte `byte` of
/// `line_text` when that content is a key that is no identifier: one to 100 bytes, no
/// whitespace, no quote, no `${`, and at least one character that [`is_identifier_char`] refuses
/// (`'d-AsyncQueuer'`, `"content-type"`). `None` outside a string literal started on the line and
/// for an identifier-like content (the identifier rules answer for those).
fn quoted_key_around(line_text: &str, byte: usize) -> Option<std::ops::Range<usize>> {
    let mut open: Option<(char, usize)> = None;
    let mut escaped = false;
    for (at, ch) in line_text.char_indices() {
        match open {
            Some((quote, content_start)) => {
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == quote {
                    if (content_start..=at).contains(&byte) && byte < at {
                        let content = &line_text[content_start..at];
                        let is_key = !content.is_empty()
                            && content.len() <= 100
                            && !content.contains("${")
                            && !content.chars().any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '\\'))
                            && content.chars().any(|c| !is_identifier_char(c));
                        return is_key.then_some(content_start..at);
                    }
                    open = None;
                }
            }
            None if matches!(ch, '"' | '\'' | '`') => open = Some((ch, at + ch.len_utf8())),
            None if at >= byte => return None,
            None => {}
        }
    }
    None
}

/// The lines of `text` without terminators (`\n` or `\r\n`); a trailing newline does not start
/// an extra line, but an empty text has one empty line.
pub fn split_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line)).collect();
    if lines.len() > 1 && lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

/// Whether `ch` can be part of an identifier in the languages we serve (letters, digits, `_`,
/// and `$` for JavaScript).
pub fn is_identifier_char(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_' || ch == '$'
}

/// Whether `word` occurs in `text` with no identifier character ([`is_identifier_char`]) on
/// either side.
pub fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_identifier_char) && !after.is_some_and(is_identifier_char)
    })
}

/// A rough, language-agnostic check whether byte `column` of `line_text` sits inside a line
/// comment (`//`, `#`, `--`) or a string literal started on the same line. Used only to explain an
/// empty answer ("probably inside a comment or string"), never to refuse a request.
pub fn looks_like_comment_or_string(line_text: &str, column: usize) -> bool {
    let prefix = &line_text[..column.min(line_text.len())];
    let mut in_string: Option<char> = None;
    let mut previous: Option<char> = None;
    let mut chars = prefix.chars().peekable();
    while let Some(ch) = chars.next() {
        match in_string {
            Some(quote) => {
                if ch == quote && previous != Some('\\') {
                    in_string = None;
                }
            }
            None => {
                if ch == '"' || ch == '\'' || ch == '`' {
                    // A Rust lifetime or char like `'a` is rare in practice near a symbol; accept it.
                    in_string = Some(ch);
                } else if ch == '#' || (ch == '/' && matches!(chars.peek(), Some('/' | '*'))) || (ch == '*' && previous.is_none()) {
                    // `#` and `//` line comments, a `/*` block comment, or a `*` continuation line.
                    return true;
                }
            }
        }
        if !ch.is_whitespace() || previous.is_some() {
            previous = Some(ch);
        }
    }
    in_string.is_some()
}

fn is_whole_identifier_match(line_text: &str, start: usize, symbol: &str) -> bool {
    let end = start + symbol.len();
    let first_is_ident = symbol.chars().next().is_some_and(is_identifier_char);
    let last_is_ident = symbol.chars().last().is_some_and(is_identifier_char);
    let before_ok = !first_is_ident || !line_text[..start].chars().next_back().is_some_and(is_identifier_char);
    let after_ok = !last_is_ident || !line_text[end..].chars().next().is_some_and(is_identifier_char);
    before_ok && after_ok
}

/// Byte offset inside `symbol` of the identifier the cursor goes on, and that identifier: the last
/// identifier of the leading path (`a.b`, `a::b`, `a->b`, `a\b`), skipping leading non-identifier
/// characters.
fn cursor_in_substring(symbol: &str) -> (usize, String) {
    let bytes = symbol.as_bytes();
    let Some(first_ident) = symbol.char_indices().find(|(_, ch)| is_identifier_char(*ch)).map(|(idx, _)| idx) else {
        return (0, String::new());
    };
    let identifier_end = |from: usize| -> usize {
        symbol[from..].char_indices().find(|(_, ch)| !is_identifier_char(*ch)).map_or(symbol.len(), |(idx, _)| from + idx)
    };
    let mut start = skip_leading_keywords(symbol, first_ident);
    let mut end = identifier_end(start);
    loop {
        let rest = &symbol[end..];
        let separator_len = ["::", "->", ".", "\\", "?."].iter().find(|sep| rest.starts_with(**sep)).map(|sep| sep.len());
        let Some(separator_len) = separator_len else { break };
        let next = end + separator_len;
        if next >= bytes.len() || !symbol[next..].chars().next().is_some_and(is_identifier_char) {
            break;
        }
        start = next;
        end = identifier_end(start);
    }
    (start, symbol[start..end].to_owned())
}

/// Keywords that start a declaration or statement in the languages served (Rust, Python, Go,
/// TypeScript/JavaScript, C/C++): a `symbol` copied from the start of a declaration line
/// (`pub fn quote`, `export const parse`, `func (c *Cron) AddFunc`) names the identifier after
/// them, never the keyword. Operators spelled as words count too (`typeof asdf`, `keyof T`,
/// `yield value`, `delete obj.key`, `void f()`: trial30 M11 put a hover on `typeof`).
const LEADING_KEYWORDS: &[&str] = &[
    "abstract",
    "async",
    "await",
    "class",
    "const",
    "crate",
    "declare",
    "def",
    "default",
    "defer",
    "delete",
    "dyn",
    "enum",
    "export",
    "extern",
    "fn",
    "func",
    "function",
    "go",
    "impl",
    "import",
    "interface",
    "keyof",
    "let",
    "mod",
    "module",
    "mut",
    "namespace",
    "new",
    "override",
    "private",
    "protected",
    "pub",
    "public",
    "readonly",
    "ref",
    "return",
    "static",
    "struct",
    "trait",
    "type",
    "typedef",
    "typeof",
    "union",
    "unsafe",
    "use",
    "var",
    "virtual",
    "void",
    "yield",
];

/// The byte offset in `symbol` of the first identifier at or after `first_ident` that is not a
/// leading keyword ([`LEADING_KEYWORDS`]). A keyword is skipped only when whitespace and another
/// identifier follow it, after an optional parenthesised group (`pub(crate) fn f`, Go's
/// receiver `func (c *Cron) AddFunc`); a keyword that starts a path (`self.items`,
/// `crate::a::b`) or stands alone is kept.
fn skip_leading_keywords(symbol: &str, first_ident: usize) -> usize {
    let identifier_end = |from: usize| -> usize {
        symbol[from..].char_indices().find(|(_, ch)| !is_identifier_char(*ch)).map_or(symbol.len(), |(idx, _)| from + idx)
    };
    let mut start = first_ident;
    loop {
        let end = identifier_end(start);
        if !LEADING_KEYWORDS.contains(&&symbol[start..end]) {
            return start;
        }
        let mut rest = &symbol[end..];
        // `pub(crate)`, `pub(super)`, Go's `func (r *T)`: one balanced group.
        let trimmed = rest.trim_start();
        if trimmed.starts_with('(') {
            let mut depth = 0usize;
            let mut close = None;
            for (at, ch) in trimmed.char_indices() {
                match ch {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            close = Some(at + 1);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(close) = close else { return start };
            rest = &trimmed[close..];
        } else if rest.len() == trimmed.len() {
            // No whitespace after the keyword: `crate::x`, `type_of`, `fn(`.
            return start;
        }
        let rest_start = symbol.len() - rest.len();
        let next = rest.trim_start();
        if !next.chars().next().is_some_and(is_identifier_char) {
            return start;
        }
        start = rest_start + (rest.len() - next.len());
    }
}

/// The byte offset in `text` where its 0-based line `line0` starts (lines end at `\n`; a line
/// past the end gives `text.len()`).
pub(crate) fn line_start_byte(text: &str, line0: usize) -> usize {
    text.split_inclusive('\n').take(line0).map(str::len).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_declaration_keywords_are_skipped_and_a_path_or_a_lone_keyword_is_kept() {
        let cursor = |symbol: &str| cursor_in_substring(symbol).1;
        assert_eq!(cursor("fn quote"), "quote");
        assert_eq!(cursor("pub fn quote("), "quote");
        assert_eq!(cursor("pub(crate) fn quote"), "quote");
        assert_eq!(cursor("pub(in crate::a) const LIMIT"), "LIMIT");
        assert_eq!(cursor("func (c *Cron) AddFunc"), "AddFunc");
        assert_eq!(cursor("func Every(duration"), "Every");
        assert_eq!(cursor("export async function parse"), "parse");
        assert_eq!(cursor("async def fetch_all"), "fetch_all");
        assert_eq!(cursor("let mut count"), "count");
        assert_eq!(cursor("impl Display for Error"), "Display");
        // Kept: a keyword that starts a path, a keyword alone, a keyword-prefixed identifier.
        assert_eq!(cursor("self.items"), "items");
        assert_eq!(cursor("crate::util::parse"), "parse");
        assert_eq!(cursor("fn"), "fn");
        assert_eq!(cursor("type_name(x)"), "type_name");
        assert_eq!(cursor("new Parser("), "Parser");
        assert_eq!(cursor("typeof asdf"), "asdf");
        assert_eq!(cursor("keyof Shape"), "Shape");
        assert_eq!(cursor("typeof"), "typeof");
        // Two plain identifiers: the first path, as documented.
        assert_eq!(cursor("Schedule Timetable"), "Schedule");
        let line = "    pub fn quote(&mut self, quote: u8) -> &mut WriterBuilder {";
        let resolved = resolve_symbol_on_line(line, 1, "pub fn quote", None).unwrap();
        assert_eq!(&line[resolved.cursor_byte..resolved.cursor_byte + 5], "quote");
        assert_eq!(resolved.cursor_byte, line.find("quote").unwrap());
    }

    #[test]
    fn a_quoted_key_that_is_no_identifier_is_the_symbol_not_its_first_word() {
        let line = "  'd-AsyncQueuer': AsyncQueuer<any>";
        for symbol in ["'d-AsyncQueuer'", "d-AsyncQueuer"] {
            let resolved = resolve_symbol_on_line(line, 1, symbol, None).unwrap();
            assert_eq!(resolved.cursor_identifier, "d-AsyncQueuer", "{symbol}");
            assert_eq!(resolved.cursor_byte, line.find('d').unwrap());
            assert_eq!(resolved.part_of_identifier, None, "{symbol}");
        }
        // Part of the key: the answer is for the key, and a write refuses it.
        let part = resolve_symbol_on_line(line, 1, "AsyncQueuer'", None).unwrap();
        assert_eq!((part.cursor_identifier.as_str(), part.part_of_identifier.as_deref()), ("d-AsyncQueuer", Some("AsyncQueuer")));
        assert!(matches!(resolve_whole_identifier_on_line(line, 1, "'d-", None), Err(AddressError::PartOfIdentifier { .. })));
        // Outside the string, identifiers as before; strings with spaces or identifiers are no keys.
        assert_eq!(resolve_symbol_on_line(line, 1, "AsyncQueuer<", None).unwrap().cursor_identifier, "AsyncQueuer");
        let emit = "emitChange('AsyncQueuer', this) // don't";
        assert_eq!(resolve_symbol_on_line(emit, 1, "AsyncQueuer", None).unwrap().cursor_identifier, "AsyncQueuer");
        let message = r#"throw new Error("bad input-value here")"#;
        assert_eq!(resolve_symbol_on_line(message, 1, "input-value", None).unwrap().cursor_identifier, "input");
        let escaped = r#"headers["content-type"] = "a\"b-c""#;
        assert_eq!(resolve_symbol_on_line(escaped, 1, "content-type", None).unwrap().cursor_identifier, "content-type");
    }

    #[test]
    fn a_symbol_that_is_part_of_the_identifier_on_the_line_names_the_whole_identifier() {
        let text = "validate(x);\nconst { errors } = this.form.validateSync(cause);\nform.validate('blur');\n";
        let resolved = resolve_symbol_on_line(text, 2, "validate", None).unwrap();
        assert_eq!(resolved.cursor_identifier, "validateSync");
        assert_eq!(resolved.part_of_identifier.as_deref(), Some("validate"));
        assert_eq!(resolved.cursor_byte, text.lines().nth(1).unwrap().find("validateSync").unwrap());
        assert!(resolved
            .part_of_identifier_note()
            .unwrap()
            .contains("it is part of `validateSync`, and this answer is for `validateSync`"));
        let suffix = resolve_symbol_on_line(text, 2, "Sync", None).unwrap();
        assert_eq!((suffix.cursor_identifier.as_str(), suffix.part_of_identifier.as_deref()), ("validateSync", Some("Sync")));
        // A whole identifier is taken as it is; a path names its last identifier.
        let whole = resolve_symbol_on_line(text, 3, "form.validate", None).unwrap();
        assert_eq!((whole.cursor_identifier.as_str(), whole.part_of_identifier), ("validate", None));
        let refused = resolve_whole_identifier_on_line(text, 2, "validate", None).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "`validate` is not a whole identifier on line 2: it is part of `validateSync` there, and this call writes, so it does not guess; pass symbol \"validateSync\" to act on `validateSync`, or a line where `validate` stands whole: line(s) 1, 3"
        );
        assert!(resolve_whole_identifier_on_line(text, 3, "validate", None).is_ok());
    }

    #[test]
    fn utf16_and_utf8_columns_after_non_ascii() {
        let line = "let é = \"😀\"; foo()";
        let byte = line.find("foo").unwrap();
        assert_eq!(PositionEncoding::Utf8.column_from_byte(line, byte), byte as u32);
        // é is 1 UTF-16 unit (2 bytes), 😀 is 2 units (4 bytes).
        assert_eq!(PositionEncoding::Utf16.column_from_byte(line, byte), byte as u32 - 1 - 2);
        assert_eq!(PositionEncoding::Utf32.column_from_byte(line, byte), byte as u32 - 1 - 3);
        for encoding in [PositionEncoding::Utf8, PositionEncoding::Utf16, PositionEncoding::Utf32] {
            let column = encoding.column_from_byte(line, byte);
            assert_eq!(encoding.byte_from_column(line, column), byte, "{encoding}");
        }
        // Past the end clamps; inside the emoji lands on its start.
        assert_eq!(PositionEncoding::Utf16.byte_from_column(line, 999), line.len());
        let emoji = line.find('😀').unwrap();
        let inside = PositionEncoding::Utf16.column_from_byte(line, emoji) + 1;
        assert_eq!(PositionEncoding::Utf16.byte_from_column(line, inside), emoji);
    }

    #[test]
    fn foo_of_foo_is_ambiguous_then_occurrence_picks() {
        let text = "fn main() {\n    foo(foo);\n}\n";
        let err = resolve_symbol_on_line(text, 2, "foo", None).unwrap_err();
        assert!(matches!(&err, AddressError::Ambiguous { columns, .. } if columns == &vec![5, 9]), "{err:?}");
        assert!(err.to_string().contains("occurrence 2 at column 9"), "{err}");
        let second = resolve_symbol_on_line(text, 2, "foo", Some(2)).unwrap();
        assert_eq!(second.cursor_byte, 8);
        assert_eq!((second.occurrence, second.occurrence_count), (2, 2));
        let first = resolve_symbol_on_line(text, 2, "foo(foo)", None).unwrap();
        assert_eq!(first.cursor_byte, 4);
        assert_eq!(first.cursor_identifier, "foo");
    }

    #[test]
    fn whole_identifier_occurrences_are_preferred() {
        let text = "food = foo + foobar\n";
        let res = resolve_symbol_on_line(text, 1, "foo", None).unwrap();
        assert_eq!(res.cursor_byte, 7);
        assert_eq!(res.occurrence_count, 1);
        // Without any whole occurrence, partial ones are candidates, and the cursor goes on the
        // whole identifier that holds the one chosen (named as such).
        let res = resolve_symbol_on_line("foobar()\n", 1, "oba", None).unwrap();
        assert_eq!(res.occurrence_byte_start, 2);
        assert_eq!((res.cursor_byte, res.cursor_identifier.as_str(), res.part_of_identifier.as_deref()), (0, "foobar", Some("oba")));
    }

    #[test]
    fn cursor_goes_on_last_path_segment() {
        let text = "    self.items.push(x); a::b::c(); p->next\n";
        assert_eq!(resolve_symbol_on_line(text, 1, "self.items", None).unwrap().cursor_identifier, "items");
        let res = resolve_symbol_on_line(text, 1, "a::b::c", None).unwrap();
        assert_eq!(res.cursor_identifier, "c");
        assert_eq!(&text[res.cursor_byte..res.cursor_byte + 1], "c");
        assert_eq!(resolve_symbol_on_line(text, 1, "p->next", None).unwrap().cursor_identifier, "next");
        assert_eq!(resolve_symbol_on_line(text, 1, ".push(x)", None).unwrap().cursor_identifier, "push");
    }

    #[test]
    fn errors_say_what_the_line_holds() {
        let text = "a = 1\nb = foo\n";
        let err = resolve_symbol_on_line(text, 1, "foo", None).unwrap_err();
        assert_eq!(err.to_string(), "symbol \"foo\" does not occur on line 1, which reads: \"a = 1\"; it occurs on line(s) 2");
        // Many lines hold it: the nearest five are named, and how many there are.
        let many: String = (1..=40).map(|n| if n == 30 { "#[inline]\n".to_owned() } else { format!("reserve({n})\n") }).collect();
        let err = resolve_symbol_on_line(&many, 30, "reserve", None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "symbol \"reserve\" does not occur on line 30, which reads: \"#[inline]\"; it occurs on 39 lines, the 5 nearest to line 30: 27, 28, 29, 31, 32"
        );
        assert!(matches!(resolve_symbol_on_line(text, 3, "a", None), Err(AddressError::LineOutOfRange { line: 3, line_count: 2 })));
        assert!(matches!(resolve_symbol_on_line(text, 0, "a", None), Err(AddressError::LineOutOfRange { .. })));
        assert_eq!(resolve_symbol_on_line(text, 1, " ", None), Err(AddressError::EmptySymbol));
        assert!(matches!(resolve_symbol_on_line(text, 2, "foo", Some(2)), Err(AddressError::OccurrenceOutOfRange { .. })));
    }

    #[test]
    fn crlf_lines_and_non_ascii_before_symbol() {
        let text = "x\r\nlet é😀 = bar();\r\n";
        let res = resolve_symbol_on_line(text, 2, "bar", None).unwrap();
        assert_eq!(res.line_text, "let é😀 = bar();");
        assert_eq!(res.lsp_position(PositionEncoding::Utf16), (1, 10));
        assert_eq!(res.lsp_position(PositionEncoding::Utf8), (1, 13));
        assert_eq!(res.display_column(), 10);
    }

    #[test]
    fn comment_and_string_heuristic() {
        assert!(looks_like_comment_or_string("x = 1  # call foo here", 14));
        assert!(looks_like_comment_or_string("    // uses foo", 12));
        assert!(looks_like_comment_or_string("print(\"foo\")", 7));
        assert!(!looks_like_comment_or_string("print(\"x\", foo)", 11));
        assert!(!looks_like_comment_or_string("foo(bar)", 4));
    }
}
