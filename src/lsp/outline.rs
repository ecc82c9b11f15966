//! A file's outline from a `textDocument/documentSymbol` answer: a tree in source order with
//! readable kinds, flattened for paging.
//!
//! - Both answer shapes are accepted: nested `DocumentSymbol[]` (children kept, then sorted by
//!   position at every level — tsserver answers alphabetically, pyright puts `self.x` attributes
//!   last) and flat `SymbolInformation[]` (pylsp; the tree is rebuilt from range containment and
//!   `containerName`).
//! - Kinds are named for what they are, from the server's kind, its `detail` and the declaration's
//!   own line: rust-analyzer's `TypeParameter` at item level is a `type alias` and its `Object`
//!   named `impl …` an `impl`; `macro_rules!` is a `macro`; a TypeScript `type X =` (reported as a
//!   variable) and a Python `X: TypeAlias = …` are `type alias`; gopls' `Class` is a Go `type`
//!   (`type alias` with `=`); clangd's `detail` (`type alias`, `struct`, `union`) wins over its
//!   kind; enum members reported as constants are `enum member`; variables of a class are
//!   `field`s; a Rust `interface` is a `trait`. See [`KINDS`].
//! - Hidden by default, and counted: parameters and locals (data symbols inside functions,
//!   methods, constructors, or inside other data symbols such as a `const f = () => {…}`),
//!   anonymous callbacks inside named functions (tsserver names them `listeners.forEach()
//!   callback`; they are locals too — a test file's `describe() callback` with its `it()
//!   callback`s, outside any named function, is the file's structure and stays),
//!   Python imports that pylsp lists, and TypeScript/JavaScript block-scoped variables outside
//!   any function — a top-level `for (const key of keys)` loop's variables, an `if`/`try`/bare
//!   block's `let` — which tsserver lists at top level (the file's syntax tree says where they
//!   sit; namespace and `declare global` members stay).
//! - A Python class whose bases name an enum (`Enum`, `IntEnum`, `StrEnum`, `Flag`, `IntFlag`,
//!   `enum.Enum`, or an enum class of the same file) is an `enum`, and the names its body assigns
//!   a value (not `_sunder_`/`__dunder__`/private names, not bare annotations) are `enum
//!   member`s: pyright reports them as a class's constants and variables.
//! - An entry's line is the line of its name, or for an impl block of its `impl` keyword — never
//!   the line of a doc comment or attribute above it, which the server's range starts at.

use crate::lsp::position::split_lines;
use crate::lsp::syntax::ParsedSource;

/// Every kind name an outline entry can carry (also the values `kind` filters accept).
pub const KINDS: &[&str] = &[
    "file",
    "module",
    "namespace",
    "package",
    "class",
    "method",
    "property",
    "field",
    "constructor",
    "enum",
    "interface",
    "function",
    "variable",
    "constant",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "key",
    "null",
    "enum member",
    "struct",
    "event",
    "operator",
    "type parameter",
    "type alias",
    "type",
    "associated type",
    "impl",
    "trait",
    "macro",
    "static",
    "union",
    "symbol",
];

/// The LSP `SymbolKind` number (1–26) as a lowercase word (`symbol` for unknown numbers).
pub fn lsp_kind_name(number: u64) -> &'static str {
    match number {
        1 => "file",
        2 => "module",
        3 => "namespace",
        4 => "package",
        5 => "class",
        6 => "method",
        7 => "property",
        8 => "field",
        9 => "constructor",
        10 => "enum",
        11 => "interface",
        12 => "function",
        13 => "variable",
        14 => "constant",
        15 => "string",
        16 => "number",
        17 => "boolean",
        18 => "array",
        19 => "object",
        20 => "key",
        21 => "null",
        22 => "enum member",
        23 => "struct",
        24 => "event",
        25 => "operator",
        26 => "type parameter",
        _ => "symbol",
    }
}

/// A kind filter value normalized (`enum_member` → `enum member`, case-insensitive), or `None`
/// when no outline kind has that name.
pub fn normalize_kind(kind: &str) -> Option<&'static str> {
    let wanted = kind.trim().to_lowercase().replace(['_', '-'], " ");
    KINDS.iter().copied().find(|known| *known == wanted)
}

/// Why an entry is left out of the default outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    /// A parameter or local (a data symbol inside a function or inside another data symbol).
    Local,
    /// An imported name (pylsp lists `import` lines).
    Import,
    /// An anonymous function inside a named function (tsserver's `items.forEach() callback`).
    Callback,
}

impl Hidden {
    /// `local`, `import` or `callback` (the `hidden` field of structured outline entries).
    pub fn as_str(self) -> &'static str {
        match self {
            Hidden::Local => "local",
            Hidden::Import => "import",
            Hidden::Callback => "callback",
        }
    }
}

/// One outline entry, in source order (pre-order of the tree).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlineEntry {
    /// The symbol's name as the server gave it.
    pub name: String,
    /// Readable kind, one of [`KINDS`].
    pub kind: &'static str,
    /// The server's raw `SymbolKind` name, when it differs from `kind`.
    pub lsp_kind: Option<&'static str>,
    /// The server's `detail` (a signature or type), when non-empty.
    pub detail: Option<String>,
    /// 1-based line of the name (of the `impl` keyword for an impl block), never of a doc comment
    /// or attribute above it.
    pub line: u32,
    /// 1-based last line of the whole declaration.
    pub end_line: u32,
    /// 1 for top level, 2 for members of a top-level symbol, …
    pub depth: usize,
    /// Index (in the entry list) of the enclosing entry.
    pub parent: Option<usize>,
    /// Why it is hidden by default, if it is.
    pub hidden: Option<Hidden>,
    /// TypeScript/JavaScript: a variable, constant or property bound to a function (`const
    /// arrow function`, `let function expression`, `property arrow function`): the `kind`
    /// filter lists it for `function` (a property: for `method`) too.
    pub function_value: Option<String>,
}

/// Builds the outline of a file from the server's decoded `documentSymbol` answer (`None` for
/// `null`, nested or flat) and the file's text. `extension` (without the dot) selects language
/// rules for kinds.
pub fn build_outline(answer: Option<lsp_types::DocumentSymbolResponse>, file_text: &str, extension: &str) -> Vec<OutlineEntry> {
    let Some(response) = answer else { return Vec::new() };
    let roots = match response {
        lsp_types::DocumentSymbolResponse::Nested(list) => list.into_iter().map(Node::from_nested).collect(),
        lsp_types::DocumentSymbolResponse::Flat(list) => tree_from_flat(list),
    };
    let lines = split_lines(file_text);
    let mut entries = Vec::new();
    // TypeScript/JavaScript: tsserver lists a top-level loop's or block's variables as top-level
    // symbols; the syntax tree tells them apart from the module's own declarations.
    let parsed = TYPESCRIPT_FAMILY
        .contains(&extension)
        .then(|| ParsedSource::parse(std::path::Path::new(&format!("outline.{extension}")), file_text))
        .flatten();
    let context = Context { lines: &lines, extension, parsed: parsed.as_ref() };
    flatten(&roots, &context, 1, None, None, false, false, false, &mut entries);
    entries
}

#[derive(Debug)]
struct Node {
    name: String,
    kind: u64,
    detail: Option<String>,
    /// (line, character) of the declaration's start, its end, and the name's start.
    start: (u32, u32),
    end: (u32, u32),
    name_start: (u32, u32),
    children: Vec<Node>,
}

pub(crate) fn kind_number(kind: &lsp_types::SymbolKind) -> u64 {
    serde_json::to_value(kind).ok().and_then(|value| value.as_u64()).unwrap_or(0)
}

impl Node {
    fn from_nested(symbol: lsp_types::DocumentSymbol) -> Node {
        Node {
            name: symbol.name,
            kind: kind_number(&symbol.kind),
            detail: symbol.detail.filter(|detail| !detail.trim().is_empty()),
            start: (symbol.range.start.line, symbol.range.start.character),
            end: (symbol.range.end.line, symbol.range.end.character),
            name_start: (symbol.selection_range.start.line, symbol.selection_range.start.character),
            children: symbol.children.unwrap_or_default().into_iter().map(Node::from_nested).collect(),
        }
    }
}

/// Rebuilds the tree of a flat answer: a symbol's parent is the innermost earlier symbol whose
/// range contains its range, preferring one named like its `containerName`.
#[allow(deprecated)] // `SymbolInformation::deprecated` is part of the struct literal we destructure.
fn tree_from_flat(mut list: Vec<lsp_types::SymbolInformation>) -> Vec<Node> {
    list.sort_by(|a, b| {
        let (ra, rb) = (a.location.range, b.location.range);
        (ra.start.line, ra.start.character, std::cmp::Reverse((ra.end.line, ra.end.character))).cmp(&(
            rb.start.line,
            rb.start.character,
            std::cmp::Reverse((rb.end.line, rb.end.character)),
        ))
    });
    // Arena: (node, parent index).
    let mut arena: Vec<(Node, Option<usize>)> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for symbol in list {
        let range = symbol.location.range;
        let start = (range.start.line, range.start.character);
        let end = (range.end.line, range.end.character);
        // Close every open symbol that does not contain this one.
        while let Some(&top) = open.last() {
            let (node, _) = &arena[top];
            if node.start <= start && end <= node.end {
                break;
            }
            open.pop();
        }
        let container = symbol.container_name.as_deref().filter(|name| !name.is_empty());
        let parent = match container {
            Some(container) => open.iter().rev().copied().find(|&index| arena[index].0.name == container).or(open.last().copied()),
            None => open.last().copied(),
        };
        let node =
            Node { name: symbol.name, kind: kind_number(&symbol.kind), detail: None, start, end, name_start: start, children: Vec::new() };
        arena.push((node, parent));
        open.push(arena.len() - 1);
    }
    // Attach children to parents, last first so indices stay valid.
    let mut slots: Vec<Option<Node>> = Vec::with_capacity(arena.len());
    let mut parents = Vec::with_capacity(arena.len());
    for (node, parent) in arena {
        slots.push(Some(node));
        parents.push(parent);
    }
    let mut roots = Vec::new();
    for index in (0..slots.len()).rev() {
        let node = slots[index].take().expect("each node is moved once");
        match parents[index] {
            Some(parent) => slots[parent].as_mut().expect("parents precede children").children.insert(0, node),
            None => roots.insert(0, node),
        }
    }
    roots
}

const FUNCTION_LIKE: &[&str] = &["function", "method", "constructor", "macro", "operator"];
const DATA_LIKE: &[&str] = &[
    "variable",
    "constant",
    "field",
    "property",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "key",
    "null",
    "type parameter",
    "static",
    "enum member",
];

/// Extensions whose servers (tsserver) report block-scoped variables without their block.
const TYPESCRIPT_FAMILY: &[&str] = &["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"];

/// Python's standard enum base classes (`enum.Enum` and its library subclasses).
const PYTHON_ENUM_BASES: &[&str] = &["Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"];

/// What every level of [`flatten`] reads.
struct Context<'a> {
    lines: &'a [&'a str],
    extension: &'a str,
    /// The file's syntax tree (TypeScript family only).
    parsed: Option<&'a ParsedSource>,
}

#[allow(clippy::too_many_arguments)]
fn flatten(
    nodes: &[Node],
    context: &Context<'_>,
    depth: usize,
    parent: Option<usize>,
    parent_kind: Option<&'static str>,
    parent_hidden: bool,
    in_named_function: bool,
    parent_object_literal: bool,
    entries: &mut Vec<OutlineEntry>,
) {
    let mut order: Vec<&Node> = nodes.iter().collect();
    order.sort_by_key(|node| (node.start, node.name_start));
    let (lines, extension) = (context.lines, context.extension);
    for node in order {
        let line_text = lines.get(node.name_start.0 as usize).copied().unwrap_or("");
        let mut kind = readable_kind(node, line_text, extension, parent_kind);
        // A method's `self` may sit on the line after `def name(`, and a server that lists
        // methods as functions (pylsp) may place a decorated one at its decorator's line: the
        // whole header from the `def` line decides.
        if kind == "function" && matches!(extension, "py" | "pyi") {
            let def_line = (node.name_start.0 as usize..lines.len()).take(20).find(|&index| {
                lines[index].split_whitespace().collect::<Vec<_>>().windows(2).any(|pair| {
                    pair[0] == "def"
                        && pair[1].strip_prefix(node.name.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('('))
                })
            });
            if let Some(header) = def_line.and_then(|line0| python_def_header(lines, line0)) {
                kind = readable_kind_on_line(node.kind, &node.name, &header, extension);
            }
        }
        // A `def` nested in a function (a closure `def wrap(cls)`) is no method (recheck48).
        if kind == "method"
            && matches!(extension, "py" | "pyi")
            && parent_kind.is_some_and(|parent| matches!(parent, "function" | "method"))
        {
            kind = "function";
        }
        if kind == "class" && matches!(extension, "py" | "pyi") && derives_from_python_enum(lines, node.name_start.0, entries) {
            kind = "enum";
        }
        if parent_kind == Some("enum")
            && kind == "enum member"
            && matches!(extension, "py" | "pyi")
            && !is_python_enum_member(node, line_text)
        {
            kind = lsp_kind_name(node.kind);
        }
        // The members of a data symbol initialized with an object literal (`export const
        // rankings = { EQUAL: 6, … }`) are its properties, not locals (trial58 M2: they were
        // hidden as "parameters and locals inside functions").
        let inside_function =
            parent_kind.is_some_and(|parent| FUNCTION_LIKE.contains(&parent) || (DATA_LIKE.contains(&parent) && !parent_object_literal));
        let in_block = || {
            context.parsed.and_then(|parsed| parsed.declared_in_block(node.name_start.0, node.name_start.1, &node.name)).unwrap_or(false)
        };
        let hidden = if parent_hidden {
            Some(Hidden::Local)
        } else if is_import(line_text, extension) && node.children.is_empty() {
            Some(Hidden::Import)
        } else if DATA_LIKE.contains(&kind) && (inside_function || in_block()) {
            Some(Hidden::Local)
        } else if in_named_function && FUNCTION_LIKE.contains(&kind) && is_anonymous_callback(&node.name) {
            Some(Hidden::Callback)
        } else {
            None
        };
        let lsp_kind = lsp_kind_name(node.kind);
        let function_value = matches!(kind, "variable" | "constant" | "property" | "field")
            .then(|| context.parsed.and_then(|parsed| parsed.function_value_of(node.name_start.0, node.name_start.1, &node.name)))
            .flatten();
        entries.push(OutlineEntry {
            name: node.name.clone(),
            kind,
            lsp_kind: (lsp_kind != kind).then_some(lsp_kind),
            detail: node.detail.clone(),
            // An impl block has no name to address; its line is where `impl` starts (its type may
            // sit on a later line, its doc comment and attributes on earlier ones).
            line: if kind == "impl" { keyword_line(lines, node.start.0, node.name_start.0) + 1 } else { node.name_start.0 + 1 },
            end_line: node.end.0.max(node.name_start.0) + 1 - u32::from(node.end.1 == 0 && node.end.0 > node.name_start.0),
            depth,
            parent,
            hidden,
            function_value,
        });
        let index = entries.len() - 1;
        let named_function = FUNCTION_LIKE.contains(&kind) && !is_anonymous_callback(&node.name);
        let object_literal = DATA_LIKE.contains(&kind)
            && crate::lsp::syntax::is_typescript_family_extension(extension)
            && initialized_with_object_literal(line_text, &node.name);
        flatten(
            &node.children,
            context,
            depth + 1,
            Some(index),
            Some(kind),
            hidden.is_some(),
            in_named_function || named_function,
            object_literal,
            entries,
        );
    }
}

/// Whether the TypeScript/JavaScript declaration of `name` on `line_text` is initialized with
/// an object literal: `const name = {`, `name: Type = {`, `name = {` (a class field), the
/// type annotation on the same line.
fn initialized_with_object_literal(line_text: &str, name: &str) -> bool {
    crate::lsp::rename_coverage::word_positions(line_text, name).into_iter().any(|at| {
        let rest = &line_text[at + name.len()..];
        let Some(equals) = rest.find('=') else { return false };
        let between = rest[..equals].trim();
        (between.is_empty() || between.starts_with(':') || between == "!" || between == "?")
            && !rest[equals..].starts_with("==")
            && !rest[equals..].starts_with("=>")
            && rest[equals + 1..].trim_start().starts_with('{')
    })
}

/// Whether the Python class declared at 0-based `line0` derives from an enum: one of its bases
/// (the text between the parentheses of its `class` header, which may span lines) is a standard
/// enum class (`Enum`, `enum.IntEnum`, …) or a class of this file already found to be an enum.
/// pyright reports enum members as plain constants or variables of a class.
fn derives_from_python_enum(lines: &[&str], line0: u32, entries: &[OutlineEntry]) -> bool {
    let header: String = lines.iter().skip(line0 as usize).take(8).copied().collect::<Vec<_>>().join(" ");
    let Some(open) = header.find('(') else { return false };
    if header[..open].contains(':') {
        return false;
    }
    let mut depth = 0usize;
    let mut bases = String::new();
    for c in header[open + 1..].chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' if depth == 0 => break,
            ')' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        bases.push(c);
    }
    bases.split(',').map(str::trim).filter(|base| !base.contains('=')).any(|base| {
        let last = base.rsplit('.').next().unwrap_or(base).trim();
        PYTHON_ENUM_BASES.contains(&last) || entries.iter().any(|entry| entry.kind == "enum" && entry.depth == 1 && entry.name == last)
    })
}

/// Whether a name assigned in a Python enum's body is a member: not a `_sunder_`, `__dunder__`
/// or private name, and assigned a value (an annotation alone declares no member).
fn is_python_enum_member(node: &Node, line_text: &str) -> bool {
    if node.name.starts_with('_') {
        return false;
    }
    let column = line_text.char_indices().nth(node.name_start.1 as usize).map_or(line_text.len(), |(byte, _)| byte);
    let after = line_text.get(column..).and_then(|rest| rest.strip_prefix(node.name.as_str())).unwrap_or("").trim_start();
    after.starts_with('=') && !after.starts_with("==") || (after.starts_with(':') && after.contains('='))
}

/// Whether `after_name` (a Go declaration line after the declared name) assigns a function
/// literal: `= func(…) … {` — gofmt keeps a literal's `{` on its line, which a function type
/// (`Hook = func()` in a `type ( … )` group, an alias) never has.
fn is_go_function_literal_value(after_name: &str) -> bool {
    after_name
        .split_once('=')
        .is_some_and(|(before, value)| !value.starts_with('=') && !before.contains(['(', '{']) && value.trim_start().starts_with("func"))
        && {
            // `f = func() {` opens a body; a one-line literal (`check = func() {}` inside
            // `var ( … )`, review49 L8) closes it on the line, where a function type
            // (`type F = func() struct{}`) has no `) {`.
            let line = after_name.trim_end();
            line.ends_with('{') || (line.ends_with('}') && line.contains(") {"))
        }
}

/// The readable kind of a symbol known only by its kind number, name and line (a
/// `workspace/symbol` result): the same rules as the outline's, without a parent.
pub fn readable_kind_on_line(kind: u64, name: &str, line_text: &str, extension: &str) -> &'static str {
    // gopls qualifies a name its fuzzy search matched through the package path
    // (`github.com/deckarep/golang-set.Test_PowerSet`): the line holds the last segment
    // (trial63 F1: that function read as a "type", its `func` before column 0 unseen).
    let name = if line_text.contains(name) { name } else { name.rsplit('.').next().unwrap_or(name) };
    let column = line_text.find(name).map(|byte| line_text[..byte].chars().count() as u32).unwrap_or(0);
    let node =
        Node { name: name.to_owned(), kind, detail: None, start: (0, 0), end: (0, 0), name_start: (0, column), children: Vec::new() };
    readable_kind(&node, line_text, extension, None)
}

/// A Python definition no outline entry stands for (see [`python_definitions_not_listed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnlistedDefinition {
    /// The name defined.
    pub name: String,
    /// 1-based line of the name.
    pub line: u32,
    /// Why it is likely missing: `@overload` (a signature of an overloaded function), `property
    /// setter` / `property deleter`, `redefinition` (the name is listed at another line) or
    /// `not reported by the server`.
    pub why: &'static str,
}

/// The `def`s, `class`es and assigned names of a Python module's and its classes' bodies, and
/// the `def`s and `class`es inside function bodies
/// (`ParsedSource::python_definitions_with_nested_functions`; trial140 F2: `wrapper` defined in
/// each branch of cachetools' `cached`) that no entry of the outline stands for (same name on
/// the same line): pyright's `documentSymbol` gives one symbol per name, so the `@overload`
/// signatures of a function and a name assigned in both branches of an `if` are not in it
/// (itsdangerous serializer.py: 5 `@t.overload def __init__`, the second `_TSerialized =`).
/// Empty for files no bundled grammar parses, or with no entries at all.
pub fn python_definitions_not_listed(entries: &[OutlineEntry], path: &std::path::Path, file_text: &str) -> Vec<UnlistedDefinition> {
    if entries.is_empty() {
        return Vec::new();
    }
    let Some(parsed) = ParsedSource::parse(path, file_text) else { return Vec::new() };
    let listed: std::collections::HashSet<(&str, u32)> = entries.iter().map(|entry| (entry.name.as_str(), entry.line)).collect();
    let listed_names: std::collections::HashSet<&str> = entries.iter().map(|entry| entry.name.as_str()).collect();
    parsed
        .python_definitions_with_nested_functions()
        .into_iter()
        .filter(|definition| !listed.contains(&(definition.name.as_str(), definition.line0 + 1)))
        .map(|definition| {
            let decorated = |suffix: &str| {
                definition.decorators.iter().any(|decorator| {
                    let head = decorator.trim_start_matches('@').split('(').next().unwrap_or("").trim();
                    head == suffix.trim_start_matches('.') || head.ends_with(suffix)
                })
            };
            let why = if decorated(".overload") {
                "@overload"
            } else if decorated(".setter") && definition.keyword == "def" {
                "property setter"
            } else if decorated(".deleter") && definition.keyword == "def" {
                "property deleter"
            } else if listed_names.contains(definition.name.as_str()) {
                "redefinition"
            } else {
                "not reported by the server"
            };
            UnlistedDefinition { name: definition.name, line: definition.line0 + 1, why }
        })
        .collect()
}

/// How many lines a Python `def` header is followed for [`python_def_header`].
const PYTHON_DEF_HEADER_LINES: usize = 40;

/// The Python `def` header that starts on `lines[line0]`: that line (indentation kept) joined
/// (by single spaces, each further line trimmed) with the following ones up to the parenthesis that closes its parameter
/// list, at most 40 lines, so that a parameter list spread over lines (`def __init__(\n
/// self,\n …`) reads as one line for the `self`/`cls` test. Brackets inside string literals
/// and `#` comments are not counted. `None` when `line0` is past the end.
pub fn python_def_header<S: AsRef<str>>(lines: &[S], line0: usize) -> Option<String> {
    lines.get(line0)?;
    let mut depth = 0i32;
    let mut opened = false;
    let mut joined = String::new();
    for (index, line) in lines[line0..].iter().take(PYTHON_DEF_HEADER_LINES).enumerate() {
        let line = line.as_ref();
        let mut quote: Option<char> = None;
        let mut escaped = false;
        // Where a `#` comment starts (outside string literals): it is left out of the header.
        let mut code_end = line.len();
        for (at, c) in line.char_indices() {
            match quote {
                Some(open) => {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == open {
                        quote = None;
                    }
                }
                None => match c {
                    '#' => {
                        code_end = at;
                        break;
                    }
                    '"' | '\'' => quote = Some(c),
                    '(' | '[' | '{' => {
                        depth += 1;
                        opened = true;
                    }
                    ')' | ']' | '}' => depth -= 1,
                    _ => {}
                },
            }
        }
        let code = &line[..code_end];
        if index == 0 {
            // The first line keeps its indentation: columns on it stay right.
            joined.push_str(code.trim_end());
        } else if !code.trim().is_empty() {
            joined.push(' ');
            joined.push_str(code.trim());
        }
        if (opened && depth <= 0) || (!opened && code.trim_end().ends_with(':')) {
            break;
        }
    }
    Some(joined)
}

/// Whether a function symbol's name is the one a server gives an anonymous function: tsserver's
/// `items.forEach() callback` / `<function>`, or an `<anonymous>` / `<lambda>` placeholder.
fn is_anonymous_callback(name: &str) -> bool {
    name.ends_with(") callback") || matches!(name, "<function>" | "<anonymous>" | "<lambda>" | "<closure>")
}

/// The 0-based line where a declaration's keyword sits, between the start of its range
/// (`start0`, which covers doc comments and attributes) and its name's line (`name0`): the first
/// line that is neither blank, a comment, nor (part of) an attribute or decorator.
fn keyword_line(lines: &[&str], start0: u32, name0: u32) -> u32 {
    let (first, last) = (start0.min(name0), name0.max(start0));
    let mut attribute_depth: i32 = 0;
    let mut in_block_comment = false;
    for line0 in first..last {
        let text = lines.get(line0 as usize).copied().unwrap_or("").trim();
        if in_block_comment {
            in_block_comment = !text.contains("*/");
            continue;
        }
        if attribute_depth > 0 {
            attribute_depth += bracket_balance(text);
            continue;
        }
        if text.is_empty() || text.starts_with("//") {
            continue;
        }
        if text.starts_with("/*") {
            in_block_comment = !text.contains("*/");
            continue;
        }
        if text.starts_with("#[") || text.starts_with("#![") {
            attribute_depth = bracket_balance(text);
            continue;
        }
        return line0;
    }
    last
}

/// Opening minus closing square brackets of an attribute line (strings inside are rare enough to
/// ignore).
fn bracket_balance(text: &str) -> i32 {
    text.chars().map(|c| i32::from(c == '[') - i32::from(c == ']')).sum()
}

/// Python `import x` / `from x import y` lines (pylsp lists imported names as symbols).
fn is_import(line_text: &str, extension: &str) -> bool {
    let trimmed = line_text.trim_start();
    matches!(extension, "py" | "pyi") && (trimmed.starts_with("import ") || trimmed.starts_with("from "))
}

/// The words of `text` (identifier characters, `!` kept for `macro_rules!`).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!')).filter(|word| !word.is_empty())
}

/// Whether the text after a Python function's name opens a parameter list whose first parameter
/// is `self` or `cls` (`(self)`, `(self, x)`, `(cls: type[T], …)`).
fn python_first_parameter_is_self_or_cls(after_name: &str) -> bool {
    let Some(parameters) = after_name.strip_prefix('(') else { return false };
    let parameters = parameters.trim_start();
    ["self", "cls"]
        .iter()
        .any(|word| parameters.strip_prefix(word).is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')))
}

fn readable_kind(node: &Node, line_text: &str, extension: &str, parent_kind: Option<&'static str>) -> &'static str {
    let base = lsp_kind_name(node.kind);
    let name_column =
        line_text.char_indices().nth(node.name_start.1 as usize).map(|(byte, _)| byte).unwrap_or(line_text.len()).min(line_text.len());
    // The name's column is in the server's encoding; for the keyword test a byte or UTF-16 column
    // on an ASCII prefix is the same, and a prefix cut a little off still holds its keywords.
    let prefix = line_text.get(..name_column).unwrap_or("");
    let after_name = line_text.get(name_column..).and_then(|rest| rest.strip_prefix(node.name.as_str())).unwrap_or("").trim_start();
    let has_word = |word: &str| words(prefix).any(|w| w == word);
    let at_column_0 = !line_text.starts_with(char::is_whitespace);
    // clangd says in `detail` what a `class` really is.
    match node.detail.as_deref().map(str::trim) {
        Some("type alias") => return "type alias",
        Some("struct") if base == "class" => return "struct",
        Some("union") if base == "class" => return "union",
        _ => {}
    }
    match base {
        "type parameter" => {
            if parent_kind.is_some_and(|parent| matches!(parent, "interface" | "trait" | "impl" | "class" | "struct")) {
                "associated type"
            } else if extension == "rs" || has_word("type") {
                "type alias"
            } else {
                base
            }
        }
        "object" if node.name.starts_with("impl ") || node.name.starts_with("impl<") => "impl",
        "interface" if extension == "rs" => "trait",
        "function" if extension == "rs" && has_word("macro_rules!") => "macro",
        "constant" if extension == "rs" && has_word("static") => "static",
        "struct" if has_word("union") => "union",
        // pyright's call hierarchy items and workspace symbols give a method the kind of a
        // function; its first parameter (`self`, `cls`) says what it is.
        // A `def` nested in a function (a closure `def wrap(cls)`, recheck48) is no method either.
        "function"
            if matches!(extension, "py" | "pyi")
                && python_first_parameter_is_self_or_cls(after_name)
                && !at_column_0
                && !parent_kind.is_some_and(|parent| matches!(parent, "function" | "method")) =>
        {
            "method"
        }
        // A `def` at column 0 is a module-level function whatever its first parameter's name
        // (trial162 M4: attrs' `def has(cls)` was listed as a method).
        "method"
            if matches!(extension, "py" | "pyi")
                && has_word("def")
                && (at_column_0 || parent_kind.is_some_and(|parent| matches!(parent, "function" | "method"))) =>
        {
            "function"
        }
        // gopls gives a method (`func (f *FlagSet) VarPF(…)`) the kind of a function in call
        // hierarchy items (trial29 M7: "incoming calls of function VarPF").
        "function" if extension == "go" && prefix.trim_start().starts_with("func (") => "method",
        // gopls gives a type whose underlying type is a signature (`type HandlerFunc func(…)`,
        // also inside a `type ( … )` group) the kind of a function; a Go function or method
        // always has `func` before its name.
        "function" if extension == "go" && !has_word("func") => {
            // gopls gives an interface's method (`Next(time.Time) time.Time` in an `interface {
            // … }`) the kind of a function too: a name followed by its parameters (trial27b M10).
            if after_name.starts_with('(') {
                "interface method"
            } else if has_word("var") || is_go_function_literal_value(after_name) {
                // `var compEQ comparator = func(…) {` and, inside `var ( … )`, `compNE = func(…)
                // {`: a variable holding a function literal (trial169 M5: "incoming calls of type
                // compEQ").
                "variable"
            } else if after_name.starts_with('=') {
                "type alias"
            } else {
                "type"
            }
        }
        "class" if extension == "go" => {
            if after_name.starts_with('=') {
                "type alias"
            } else {
                "type"
            }
        }
        "variable" | "constant" => {
            let python_alias = matches!(extension, "py" | "pyi")
                && (after_name.starts_with(": TypeAlias")
                    || after_name.starts_with(": typing.TypeAlias")
                    || after_name.starts_with(": typing_extensions.TypeAlias")
                    || (has_word("type") && prefix.trim_start().starts_with("type ")));
            // `type X = …`, also `export type X<\n  T\n> = …` whose `=` sits on a later line (the
            // keyword right before the name says it; `import type X` is an import).
            let typescript_alias = crate::lsp::syntax::is_typescript_family_extension(extension)
                && has_word("type")
                && (after_name.trim_start_matches(|c: char| c != '=').starts_with('=')
                    || (words(prefix).last() == Some("type") && !prefix.trim_start().starts_with("import")));
            if python_alias || typescript_alias {
                "type alias"
            } else if parent_kind == Some("enum") {
                "enum member"
            } else if base == "variable" && parent_kind.is_some_and(|parent| matches!(parent, "class" | "struct" | "interface")) {
                "field"
            } else {
                base
            }
        }
        "enum" if parent_kind == Some("enum") => "enum member",
        _ => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_literal_initializer_is_told_from_a_function_or_a_call() {
        assert!(initialized_with_object_literal("export const rankings = {", "rankings"));
        assert!(initialized_with_object_literal("const defaultKeyAttributes: AccessorAttributes = {", "defaultKeyAttributes"));
        assert!(initialized_with_object_literal("  options = { a: 1 }", "options"));
        assert!(!initialized_with_object_literal("const f = () => {", "f"));
        assert!(!initialized_with_object_literal("const g = function () {", "g"));
        assert!(!initialized_with_object_literal("const value = compute({ a: 1 })", "value"));
        assert!(!initialized_with_object_literal("if (x == { }) {", "x"));
    }
    use serde_json::{json, Value};

    /// [`super::build_outline`] of an answer as a server sends it (decoded as the client does).
    fn build_outline(answer: &Value, file_text: &str, extension: &str) -> Result<Vec<OutlineEntry>, String> {
        let decoded: Option<lsp_types::DocumentSymbolResponse> = serde_json::from_value(answer.clone()).map_err(|err| err.to_string())?;
        Ok(super::build_outline(decoded, file_text, extension))
    }

    fn symbol(name: &str, kind: u64, range: (u32, u32, u32, u32), name_at: (u32, u32), children: Value) -> Value {
        json!({
            "name": name, "kind": kind,
            "range": {"start": {"line": range.0, "character": range.1}, "end": {"line": range.2, "character": range.3}},
            "selectionRange": {"start": {"line": name_at.0, "character": name_at.1}, "end": {"line": name_at.0, "character": name_at.1 + name.len() as u32}},
            "children": children,
        })
    }

    fn summary(entries: &[OutlineEntry]) -> Vec<String> {
        entries
            .iter()
            .map(|e| {
                let hidden = e.hidden.map(|hidden| format!(" ({})", hidden.as_str())).unwrap_or_default();
                format!("{}{} {} {}-{}{hidden}", "  ".repeat(e.depth - 1), e.kind, e.name, e.line, e.end_line)
            })
            .collect()
    }

    #[test]
    fn python_overloads_and_redefinitions_pyright_folds_into_one_symbol_are_found() {
        // The shape of itsdangerous serializer.py: a name assigned in both branches of an `if`,
        // `@t.overload` signatures before the implementation, a property setter; pyright lists
        // the first `_T`, the implementation `__init__` and one `value`.
        let text = "import typing as t\nif t.TYPE_CHECKING:\n    _T = int\nelse:\n    _T = str\n\nclass S:\n    limit: int = 3\n\n    @t.overload\n    def __init__(self, a: int) -> None: ...\n\n    @t.overload\n    def __init__(self, a: str) -> None: ...\n\n    def __init__(self, a: t.Any) -> None:\n        local = a\n        self.a = local\n\n    @property\n    def value(self) -> int:\n        return 1\n\n    @value.setter\n    def value(self, v: int) -> None:\n        pass\n\nx = y = 0\n";
        let answer = json!([
            symbol("_T", 13, (2, 4, 2, 6), (2, 4), json!([])),
            symbol(
                "S",
                5,
                (6, 0, 25, 12),
                (6, 6),
                json!([
                    symbol("limit", 13, (7, 4, 7, 9), (7, 4), json!([])),
                    symbol("__init__", 6, (15, 4, 17, 23), (15, 8), json!([symbol("local", 13, (16, 8, 16, 13), (16, 8), json!([]))])),
                    symbol("value", 7, (19, 4, 21, 16), (20, 8), json!([])),
                ])
            ),
            symbol("x", 13, (27, 0, 27, 1), (27, 0), json!([])),
        ]);
        let entries = build_outline(&answer, text, "py").unwrap();
        let missing = python_definitions_not_listed(&entries, std::path::Path::new("serializer.py"), text);
        let found: Vec<(String, u32, &str)> = missing.into_iter().map(|d| (d.name, d.line, d.why)).collect();
        assert_eq!(
            found,
            vec![
                ("_T".to_owned(), 5, "redefinition"),
                ("__init__".to_owned(), 11, "@overload"),
                ("__init__".to_owned(), 14, "@overload"),
                ("value".to_owned(), 25, "property setter"),
                ("y".to_owned(), 28, "not reported by the server"),
            ],
            "locals inside a function are never counted"
        );
    }

    #[test]
    fn nested_answers_are_put_in_source_order_with_readable_kinds() {
        // tsserver's shape: alphabetical at every level, a type alias reported as a variable,
        // enum members as constants, locals inside functions.
        let text = "export type Meters = number;\nexport enum Color { Red, Green }\nexport function double(v: number) {\n  const result = v * 2;\n  return result;\n}\n";
        let answer = json!([
            symbol(
                "Color",
                10,
                (1, 0, 1, 32),
                (1, 12),
                json!([symbol("Green", 14, (1, 25, 1, 30), (1, 25), json!([])), symbol("Red", 14, (1, 20, 1, 23), (1, 20), json!([])),])
            ),
            symbol("double", 12, (2, 0, 5, 1), (2, 16), json!([symbol("result", 14, (3, 8, 3, 22), (3, 8), json!([]))])),
            symbol("Meters", 13, (0, 0, 0, 28), (0, 12), json!([])),
        ]);
        let entries = build_outline(&answer, text, "ts").unwrap();
        assert_eq!(
            summary(&entries),
            vec![
                "type alias Meters 1-1",
                "enum Color 2-2",
                "  enum member Red 2-2",
                "  enum member Green 2-2",
                "function double 3-6",
                "  constant result 4-4 (local)",
            ]
        );
        assert_eq!(entries[0].lsp_kind, Some("variable"));
        assert_eq!(entries[2].parent, Some(1));
    }

    #[test]
    fn rust_analyzer_kinds_become_rust_words() {
        let text = "pub type Meters = f64;\npub static GREETING: &str = \"hi\";\nmacro_rules! twice { ($e:expr) => { $e * 2 }; }\nimpl Shape for Square { type Output = f64; }\n";
        let answer = json!([
            symbol("Meters", 26, (0, 0, 0, 22), (0, 9), json!([])),
            symbol("GREETING", 14, (1, 0, 1, 33), (1, 11), json!([])),
            symbol("twice", 12, (2, 0, 2, 49), (2, 13), json!([])),
            symbol("impl Shape for Square", 19, (3, 0, 3, 44), (3, 15), json!([symbol("Output", 26, (3, 24, 3, 42), (3, 29), json!([]))])),
        ]);
        let entries = build_outline(&answer, text, "rs").unwrap();
        assert_eq!(
            summary(&entries),
            vec![
                "type alias Meters 1-1",
                "static GREETING 2-2",
                "macro twice 3-3",
                "impl impl Shape for Square 4-4",
                "  associated type Output 4-4"
            ]
        );
    }

    #[test]
    fn an_impl_line_is_its_keyword_not_its_doc_comment_or_attributes() {
        // semver's `impl Default for VersionReq`: rust-analyzer's range starts at the doc comment.
        let text = "/// The default.\n#[cfg(not(\n    no_const_vec_new\n))]\nimpl Default for VersionReq {\n    fn default() -> Self { todo() }\n}\n";
        let answer = json!([symbol(
            "impl Default for VersionReq",
            19,
            (0, 0, 6, 1),
            (4, 17),
            json!([symbol("default", 12, (5, 4, 5, 35), (5, 7), json!([]))])
        )]);
        assert_eq!(
            summary(&build_outline(&answer, text, "rs").unwrap()),
            vec!["impl impl Default for VersionReq 5-7", "  function default 6-6"]
        );
        // A generic impl whose type sits on the next line starts at `impl`.
        let text = "/** Doc. */\nimpl<T>\n    Shape for Square<T> {}\n";
        let answer = json!([symbol("impl Shape for Square<T>", 19, (0, 0, 2, 26), (2, 14), json!([]))]);
        assert_eq!(build_outline(&answer, text, "rs").unwrap()[0].line, 2);
    }

    #[test]
    fn anonymous_callbacks_inside_named_functions_are_hidden_like_locals_and_kept_elsewhere() {
        // redux createStore.ts: `currentListeners.forEach((listener, key) => {…})` inside a
        // function; a test file's `describe() callback` and its `it() callback`s, in no named
        // function, are its structure.
        let text = "function ensure() {\n  list.forEach(item => {\n    const seen = item\n  })\n}\ndescribe('store', () => {\n  it('works', () => {})\n})\n";
        let answer = json!([
            symbol(
                "ensure",
                12,
                (0, 0, 4, 1),
                (0, 9),
                json!([symbol(
                    "list.forEach() callback",
                    12,
                    (1, 15, 3, 3),
                    (1, 15),
                    json!([symbol("seen", 14, (2, 10, 2, 21), (2, 10), json!([]))])
                )])
            ),
            symbol(
                "describe('store') callback",
                12,
                (5, 18, 7, 1),
                (5, 18),
                json!([symbol("it('works') callback", 12, (6, 14, 6, 22), (6, 14), json!([]))])
            ),
        ]);
        let entries = build_outline(&answer, text, "ts").unwrap();
        let hidden: Vec<(&str, Option<Hidden>)> = entries.iter().map(|e| (e.name.as_str(), e.hidden)).collect();
        assert_eq!(
            hidden,
            vec![
                ("ensure", None),
                ("list.forEach() callback", Some(Hidden::Callback)),
                ("seen", Some(Hidden::Local)),
                ("describe('store') callback", None),
                ("it('works') callback", None),
            ]
        );
    }

    #[test]
    fn flat_answers_are_rebuilt_into_a_tree_and_imports_and_locals_are_marked() {
        // pylsp's shape: flat, container names, full ranges, imports listed.
        let text = "import os\nclass Shape:\n    def area(self):\n        local = 1\n        return local\n\ndef helper():\n    pass\n";
        let flat = |name: &str, kind: u64, range: (u32, u32, u32, u32), container: Option<&str>| json!({"name": name, "kind": kind, "containerName": container, "location": {"uri": "file:///x.py", "range": {"start": {"line": range.0, "character": range.1}, "end": {"line": range.2, "character": range.3}}}});
        let answer = json!([
            flat("os", 2, (0, 0, 0, 9), None),
            flat("Shape", 5, (1, 0, 5, 0), None),
            flat("local", 13, (3, 8, 3, 17), Some("area")),
            flat("area", 6, (2, 4, 5, 0), Some("Shape")),
            flat("helper", 12, (6, 0, 8, 0), None),
        ]);
        let entries = build_outline(&answer, text, "py").unwrap();
        assert_eq!(
            summary(&entries),
            vec!["module os 1-1 (import)", "class Shape 2-5", "  method area 3-5", "    variable local 4-4 (local)", "function helper 7-8"]
        );
    }

    #[test]
    fn go_types_and_clangd_details_are_named() {
        let text = "type Meters = float64\ntype Celsius float64\n";
        let answer = json!([symbol("Meters", 5, (0, 0, 0, 21), (0, 5), json!([])), symbol("Celsius", 5, (1, 0, 1, 20), (1, 5), json!([]))]);
        assert_eq!(summary(&build_outline(&answer, text, "go").unwrap()), vec!["type alias Meters 1-1", "type Celsius 2-2"]);
        // pyright's Function for a method (call hierarchy items, workspace symbols).
        // trial63 F1: gopls qualifies a name its search matched through the package path.
        assert_eq!(
            readable_kind_on_line(12, "github.com/deckarep/golang-set.Test_PowerSet", "func Test_PowerSet(t *testing.T) {", "go"),
            "function"
        );
        assert_eq!(readable_kind_on_line(12, "example.com/x.HandlerFunc", "type HandlerFunc func(int)", "go"), "type");
        assert_eq!(readable_kind_on_line(12, "HandlerFunc", "\tHandlerFunc func(int)", "go"), "type");
        assert_eq!(readable_kind_on_line(12, "Handler", "type Handler = func(int)", "go"), "type alias");
        // trial169 M5: blang/semver's `var ( compEQ comparator = func(…) {` and `compNE = func(…) {`.
        assert_eq!(readable_kind_on_line(12, "compEQ", "\tcompEQ comparator = func(v1 Version, v2 Version) bool {", "go"), "variable");
        assert_eq!(readable_kind_on_line(12, "compNE", "\tcompNE = func(v1 Version, v2 Version) bool {", "go"), "variable");
        assert_eq!(readable_kind_on_line(12, "check", "var check = func() {}", "go"), "variable");
        // review49 L8: a one-line literal inside `var ( … )` is a variable; a function type alias is not.
        assert_eq!(readable_kind_on_line(12, "check", "\tcheck = func() {}", "go"), "variable");
        assert_eq!(readable_kind_on_line(12, "Empty", "type Empty = func() struct{}", "go"), "type alias");
        assert_eq!(readable_kind_on_line(12, "area", "    def area(self) -> float:", "py"), "method");
        assert_eq!(readable_kind_on_line(12, "make", "    def make(cls, x):", "py"), "method");
        // Trial162 M4: a module-level `def` is a function, whatever its first parameter.
        assert_eq!(readable_kind_on_line(12, "has", "def has(cls):", "py"), "function");
        assert_eq!(readable_kind_on_line(6, "has", "def has(cls):", "py"), "function");
        assert_eq!(readable_kind_on_line(6, "area", "    def area(self) -> float:", "py"), "method");
        assert_eq!(readable_kind_on_line(12, "helper", "def helper(selfish, x):", "py"), "function");
        // A parameter list spread over lines (itsdangerous serializer.py:192, `def __init__(`
        // then `self,` on the next line) reads as one header.
        let lines: Vec<String> = [
            "    def __init__(",
            "        self,  # the instance (a comment with a ( in it, left out",
            "        secret_key: str = \")(\",",
            "        salt: bytes | None = b\"itsdangerous\",",
            "    ):",
            "        self.x = 1",
            "def helper(",
            "    value,",
            "):",
        ]
        .iter()
        .map(|line| (*line).to_owned())
        .collect();
        let header = python_def_header(&lines, 0).unwrap();
        assert_eq!(header, "    def __init__( self, secret_key: str = \")(\", salt: bytes | None = b\"itsdangerous\", ):");
        assert!(!header.contains("self.x"), "the header stops at its closing parenthesis: {header}");
        assert_eq!(readable_kind_on_line(12, "__init__", &header, "py"), "method");
        assert_eq!(readable_kind_on_line(12, "__init__", lines[0].trim(), "py"), "function", "one line alone cannot tell");
        let helper = python_def_header(&lines, 6).unwrap();
        assert_eq!(helper, "def helper( value, ):");
        assert_eq!(readable_kind_on_line(12, "helper", &helper, "py"), "function");
        assert_eq!(python_def_header(&lines, 4).unwrap(), "    ):");
        // A comment after the opening parenthesis (itsdangerous timed.py:57
        // `def unsign(  # type: ignore[overload-overlap]`) is no parameter.
        let commented = ["    def unsign(  # type: ignore[overload-overlap]", "        self,", "    ) -> bytes: ..."];
        let header = python_def_header(&commented, 0).unwrap();
        assert_eq!(header, "    def unsign( self, ) -> bytes: ...");
        assert_eq!(readable_kind_on_line(12, "unsign", &header, "py"), "method");
        assert_eq!(python_def_header(&lines, 99), None);
        assert_eq!(readable_kind_on_line(12, "helper", "def helper(x):", "py"), "function");
        // gopls' kind for a func type is Function (12); a function or method keeps it.
        let text = "type Handler func(int) error
type (
	Hook = func()
)
func Run() {}
func (h Handler) Serve() {}
";
        let answer = json!([
            symbol("Handler", 12, (0, 0, 0, 28), (0, 5), json!([])),
            symbol("Hook", 12, (2, 1, 2, 14), (2, 1), json!([])),
            symbol("Run", 12, (4, 0, 4, 13), (4, 5), json!([])),
            symbol("(Handler).Serve", 6, (5, 0, 5, 27), (5, 17), json!([])),
        ]);
        assert_eq!(
            summary(&build_outline(&answer, text, "go").unwrap()),
            vec!["type Handler 1-1", "type alias Hook 3-3", "function Run 5-5", "method (Handler).Serve 6-6"]
        );
        let text = "typedef double meters;\nstruct square { double side; };\n";
        let mut alias = symbol("meters", 5, (0, 0, 0, 21), (0, 15), json!([]));
        alias["detail"] = json!("type alias");
        let mut square = symbol("square", 5, (1, 0, 1, 30), (1, 7), json!([]));
        square["detail"] = json!("struct");
        assert_eq!(
            summary(&build_outline(&json!([alias, square]), text, "c").unwrap()),
            vec!["type alias meters 1-1", "struct square 2-2"]
        );
    }

    #[test]
    fn a_typescript_alias_whose_equals_sign_is_on_a_later_line_is_a_type_alias() {
        // redux src/types/store.ts:226 — tsserver reports it as a variable.
        assert_eq!(readable_kind_on_line(13, "StoreEnhancerStoreCreator", "export type StoreEnhancerStoreCreator<", "ts"), "type alias");
        assert_eq!(readable_kind_on_line(13, "Meters", "type Meters = number", "ts"), "type alias");
        assert_eq!(readable_kind_on_line(13, "Store", "import type Store from './store'", "ts"), "variable");
        assert_eq!(readable_kind_on_line(13, "Store", "  Store,", "ts"), "variable");
    }

    #[test]
    fn kind_filter_values_are_normalized() {
        assert_eq!(normalize_kind("Enum_Member"), Some("enum member"));
        assert_eq!(normalize_kind("type-alias"), Some("type alias"));
        assert_eq!(normalize_kind("klass"), None);
    }
}
