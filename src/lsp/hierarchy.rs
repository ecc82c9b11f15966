//! The `lsp` hierarchy ops: `incoming_calls`, `outgoing_calls` (LSP 3.17
//! `textDocument/prepareCallHierarchy`, `callHierarchy/incomingCalls|outgoingCalls`) and
//! `supertypes`, `subtypes` (`textDocument/prepareTypeHierarchy`,
//! `typeHierarchy/supertypes|subtypes`), addressed by `file` + `line` + `symbol`.
//!
//! The answer is a flat, pageable list of hierarchy entries ordered by depth, then workspace code
//! first, then path and line; each depth's entries are grouped per file. A call entry lists its
//! call sites (the lines of the calls: inside the caller for `incoming_calls`, inside the queried
//! function — or the depth-N caller — for `outgoing_calls`). `depth` (1–3, default 1) follows
//! the hierarchy further: depth 2 lists the callers of the depth-1 callers, each naming which of
//! them it reaches (`→ calls step_a`). Only workspace code is followed (entries in dependency
//! code are listed, not followed, and counted); an entry already followed (recursion, a diamond)
//! is listed again but not followed twice; at most [`crate::lsp::LspConfig::hierarchy_follow_cap`]
//! entries are followed per call, and the deadline stops the walk early. Everything not followed
//! is counted in the answer. Later pages reuse the walked hierarchy while no file changed
//! ([`crate::lsp::listing::AnswerCache`]).
//!
//! An incoming "call" site where the source text only names the function — passed or stored
//! as a value (`.map(parse)`, `transform(s, lowercase, …)`), which rust-analyzer and tsserver
//! list among incoming calls — is labelled `referenced as a value, not called` (per line, per
//! entry, and `value_references` in `structuredContent`), judged from the text after the name
//! at the site: a call has `(` (after a Rust turbofish; on a later line when the name ends its
//! line — `= obj.f` only reads `f`), a macro `!`, a tagged template, a decorator `@`, `new` or a
//! JSX tag `<` before it.
//!
//! `outgoing_calls` lists only the calls the server resolves to a function. The calls each
//! followed function's syntax tree shows in its body
//! ([`crate::lsp::syntax::ParsedSource::call_sites_in_function`], Python, TypeScript/JavaScript,
//! Rust, Go) that no `fromRanges` range of the answer covers — calls through a variable,
//! attribute or parameter, an `any` value; gopls: builtins and conversions; rust-analyzer:
//! calls written inside macro arguments, marked with their macro — are named in a
//! "NOT in this answer" note per function (the queried one and, at depth ≥ 2, each followed
//! callee) and in `unlisted_call_sites`; a queried function whose body could not be scanned is
//! said.
//!
//! `incoming_calls` lists the calls the server's call hierarchy resolves. What it cannot list —
//! callers on doctest lines, in code the server gives no definition, through references that
//! are no call site, through other names bound to the function, through dispatch (a base
//! method, a trait, a name built at run time) — is named in notes for the queried function and,
//! at depth ≥ 2, for each followed caller, whose callers the next level lists (each such note
//! names its entry).
//!
//! A server without the capability gets the error naming the installed server that has it
//! (the mechanism `lsp` uses for every op), never an empty list.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

use lsp_types::request::Request as LspRequest;
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::lsp::client::{LanguageServer, RequestFailure};
use crate::lsp::listing::{workspace_fingerprint, Page, PathClass, PathTally};
use crate::lsp::output::{
    AliasCallsEntry, CallSiteEntry, HierarchyEntry, HierarchyItemSummary, HierarchyOp, HierarchyOutput, ListedLocation, LspOutput,
    PageWindow, UnlistedCallSite, UseNotListedEntry,
};
use crate::lsp::position::resolve_symbol_on_line;
use crate::lsp::supervisor::LspSupervisor;
use crate::lsp::tool::{
    counted, push_page_footer, request_error, resolve_file, unsupported_error, LspArguments, Place, Query, SourceCache, ANSWER_MARGIN,
};
use crate::lsp::uri::path_to_lsp_uri;
use crate::registry::{CallContext, ToolOutput};
use crate::render::plural;
use crate::result::ToolResult;

/// Deepest `depth` a hierarchy op follows.
pub const MAX_HIERARCHY_DEPTH: usize = 3;

/// JSON-RPC `MethodNotFound`.
const METHOD_NOT_FOUND: i32 = lsp_server::ErrorCode::MethodNotFound as i32;

/// Call sites listed under one entry; the rest are counted.
const CALL_SITES_SHOWN: usize = 8;

/// What one hierarchy op asks and how its answer is worded.
#[derive(Debug, Clone, Copy)]
struct Direction {
    op: &'static str,
    prepare: &'static str,
    step: &'static str,
    /// Header of the answer: `incoming calls`.
    what: &'static str,
    /// One entry: `caller`.
    noun: &'static str,
    /// Field of a call answer holding the item (`from` / `to`); `None` for type hierarchies.
    call_field: Option<&'static str>,
    /// How a depth-2+ entry relates to the depth-1 entries it reaches (`calls`).
    relation: &'static str,
}

fn direction(op: &str) -> Direction {
    match op {
        "incoming_calls" => Direction {
            op: "incoming_calls",
            prepare: "textDocument/prepareCallHierarchy",
            step: "callHierarchy/incomingCalls",
            what: "incoming calls",
            noun: "caller",
            call_field: Some("from"),
            relation: "calls",
        },
        "outgoing_calls" => Direction {
            op: "outgoing_calls",
            prepare: "textDocument/prepareCallHierarchy",
            step: "callHierarchy/outgoingCalls",
            what: "outgoing calls",
            noun: "callee",
            call_field: Some("to"),
            relation: "called by",
        },
        "supertypes" => Direction {
            op: "supertypes",
            prepare: "textDocument/prepareTypeHierarchy",
            step: "typeHierarchy/supertypes",
            what: "supertypes",
            noun: "supertype",
            call_field: None,
            relation: "supertype of",
        },
        _ => Direction {
            op: "subtypes",
            prepare: "textDocument/prepareTypeHierarchy",
            step: "typeHierarchy/subtypes",
            what: "subtypes",
            noun: "subtype",
            call_field: None,
            relation: "subtype of",
        },
    }
}

/// One call site: where a call happens (0-based line and character, server encoding).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Hash)]
struct CallSite {
    uri: String,
    line0: u32,
    character0: u32,
    /// What is called there (incoming calls: the entry one depth up).
    #[serde(default)]
    callee: String,
}

/// Why an entry's own callers/callees/types were not asked.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum Followed {
    /// Asked: its entries are at the next depth.
    Yes,
    /// At the requested depth.
    DepthReached,
    /// Dependency code (outside the workspace or in a dependency directory).
    Dependency,
    /// Already followed elsewhere in this answer (reached twice, or a cycle).
    Repeated,
    /// The queried item itself (direct or indirect recursion).
    Recursive,
    /// The per-call follow cap was reached.
    Cap,
    /// The call's deadline came first.
    Deadline,
    /// The server's answer for it failed (said in the notes).
    Failed,
    /// A caller in a project root that depends on the queried one by path, found by that root's
    /// own server ([`callers_in_dependent_roots`]); its own callers are not asked.
    OtherRoot,
    /// Found by another root's server, and followed by the server of the root it lies in
    /// ([`follow_other_root_entries`]): its entries are at the next depth.
    OtherRootWalked,
    /// Found by another root's server, at the requested depth.
    OtherRootDepthReached,
    /// Was [`Followed::Repeated`], but the place where it was followed was taken out of the
    /// answer (reached only through calls of another declaration): its callers are not in it.
    RepeatedPlaceLeftOut,
}

/// One entry of the hierarchy (or a prepared root at depth 0).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Node {
    depth: usize,
    name: String,
    kind: u64,
    detail: Option<String>,
    uri: String,
    /// The name's position (selection range start), 0-based, server encoding.
    line0: u32,
    character0: u32,
    /// The item as the server sent it (it is sent back, `data` included, to follow it).
    item: HierarchyItem,
    /// Names of the entries one depth up that this one relates to.
    via: Vec<String>,
    call_sites: Vec<CallSite>,
    followed: Followed,
    /// 0-based lines of further items merged into this one: the overloads of one name in one
    /// file that the same call sites reach (pyright lists each `max` overload of typeshed).
    #[serde(default)]
    overload_lines0: Vec<u32>,
}

impl Node {
    fn key(&self) -> (String, u32, u32, String) {
        (self.uri.clone(), self.line0, self.character0, self.name.clone())
    }
}

/// A walked hierarchy: roots (depth 0) and entries (depth ≥ 1), plus notes about failures.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Walk {
    roots: Vec<Node>,
    entries: Vec<Node>,
    notes: Vec<String>,
    requests: usize,
    elapsed_ms: u128,
    /// `outgoing_calls`: per followed item, the calls its syntax tree shows that the server
    /// listed under no callee.
    #[serde(default)]
    unlisted: Vec<UnlistedCalls>,
    /// `incoming_calls`: names bound to the queried item and the calls through them
    /// ([`crate::lsp::call_aliases`]).
    #[serde(default)]
    aliases: crate::lsp::call_aliases::AliasWalk,
    /// `incoming_calls`: what [`callers_in_dependent_roots`] searched (or could not) in the
    /// project roots that depend on this one by path.
    #[serde(default)]
    dependent_roots_notes: Vec<String>,
    /// `incoming_calls` deeper than 1: what the call hierarchy cannot list of each entry the walk
    /// followed, as notes naming the entry ([`followed_entries_notes`]).
    #[serde(default)]
    followed_notes: Vec<String>,
}

/// Calls in one followed item's body that its `callHierarchy/outgoingCalls` answer does not
/// cover (no `fromRanges` range overlaps the called name), found by
/// [`crate::lsp::syntax::ParsedSource::call_sites_in_function`].
#[derive(Debug, Clone, Serialize, Deserialize)]
struct UnlistedCalls {
    /// The item's depth (0: the queried item).
    depth: usize,
    name: String,
    uri: String,
    line0: u32,
    /// Why the body was not scanned (`None`: scanned).
    not_scanned: Option<String>,
    /// Calls listed under no callee: (0-based line, call text, the Rust macro whose arguments
    /// hold it, as `itry!(…)`).
    sites: Vec<(u32, String, Option<String>)>,
    /// Go builtins and conversions among them (gopls lists none): (0-based line, call text,
    /// always `None`).
    go_builtins: Vec<(u32, String, Option<String>)>,
    /// The 0-based line of the item the server prepared when that declaration has no body and
    /// the body scanned is the function at the queried place (`Effect.prototype._start =
    /// function () {…}` for `declare class Effect { _start(): void }`).
    #[serde(default)]
    prepared_without_body: Option<u32>,
    /// Rust: invocations of macros (not the standard formatting and assertion ones) in the body
    /// that no listed call covers: the calls their expansions make are not in rust-analyzer's
    /// answer. (0-based line, `name!`).
    #[serde(default)]
    macro_expansions: Vec<(u32, String)>,
    /// Rust: operator uses in the body (`a < b`, `x += y`, `-x`), which call a trait impl when
    /// the operand's type has one, and which rust-analyzer lists no call for. (0-based line,
    /// the expression.)
    #[serde(default)]
    operator_uses: Vec<(u32, String)>,
}

/// Standard macros whose expansions call the standard library's formatting, assertion or
/// allocation code only: their invocations are not said as calls left out of `outgoing_calls`.
const RUST_STANDARD_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "cfg",
    "column",
    "concat",
    "dbg",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "env",
    "eprint",
    "eprintln",
    "file",
    "format",
    "format_args",
    "include",
    "include_bytes",
    "include_str",
    "line",
    "matches",
    "module_path",
    "option_env",
    "panic",
    "print",
    "println",
    "stringify",
    "todo",
    "unimplemented",
    "unreachable",
    "vec",
    "write",
    "writeln",
];

/// The calls in `parent`'s body that `ranges` (the `fromRanges` of its outgoing calls, in the
/// server's position encoding) do not cover. The body is read beneath `workspace_root` (an item
/// outside the workspace is not scanned, and said).
fn unlisted_calls(
    workspace_root: &Path,
    parent: &Node,
    queried: Option<&(String, u32, u32)>,
    ranges: &[lsp_types::Range],
    encoding: crate::lsp::position::PositionEncoding,
    parsed_files: &mut HashMap<String, Option<std::rc::Rc<crate::lsp::syntax::ParsedSource>>>,
) -> UnlistedCalls {
    let mut unlisted = UnlistedCalls {
        depth: parent.depth,
        name: parent.name.clone(),
        uri: parent.uri.clone(),
        line0: parent.line0,
        not_scanned: None,
        sites: Vec::new(),
        go_builtins: Vec::new(),
        prepared_without_body: None,
        macro_expansions: Vec::new(),
        operator_uses: Vec::new(),
    };
    let parsed = parsed_files
        .entry(parent.uri.clone())
        .or_insert_with(|| {
            let path = lsp_types::Uri::from_str(&parent.uri).ok().and_then(|uri| crate::lsp::uri::lsp_uri_to_path(&uri))?;
            let text = crate::files::read_workspace_file_to_string(workspace_root, &path).ok()?;
            crate::lsp::syntax::ParsedSource::parse(&path, &text).map(std::rc::Rc::new)
        })
        .clone();
    let Some(parsed) = parsed else {
        unlisted.not_scanned = Some("its file could not be read or has no bundled grammar".to_owned());
        return unlisted;
    };
    // A prepared item that is a bodiless declaration (tsserver prepares `declare class Effect`'s
    // `_start(): void;` for `Effect.prototype._start = function () {…}`, trial121 F1): the body
    // is the one at the queried place, in the same file.
    let at_queried = || {
        let (uri, line0, character0) = queried.filter(|(uri, _, _)| *uri == parent.uri)?;
        let line_text = parsed.line_text(*line0)?;
        let byte = encoding.byte_from_column(line_text, *character0);
        let character = line_text.get(..byte).map_or(0, |before| before.chars().count() as u32);
        let _ = uri;
        parsed.call_sites_in_function(*line0, character, &parent.name).map(|sites| (sites, *line0))
    };
    let sites = match parsed.call_sites_in_function(parent.line0, parent.character0, &parent.name) {
        Some(sites) => sites,
        None => match at_queried() {
            Some((sites, line0)) => {
                unlisted.prepared_without_body = Some(parent.line0);
                unlisted.line0 = line0;
                sites
            }
            None => {
                unlisted.not_scanned = Some(format!("no function body named `{}` was found at that line in the syntax tree", parent.name));
                return unlisted;
            }
        },
    };
    let offset = |position: &lsp_types::Position| {
        let line_text = parsed.line_text(position.line)?;
        parsed.byte_offset(position.line, encoding.byte_from_column(line_text, position.character))
    };
    let covered: Vec<std::ops::Range<usize>> = ranges.iter().filter_map(|range| Some(offset(&range.start)?..offset(&range.end)?)).collect();
    // Rust: the calls a macro's expansion makes are not listed (trial130 F2b: downstream's
    // `make`, whose body is `anyhow!("made: {}", msg)`, expanding to a call of `Error::msg`, had
    // "no calls" and no note).
    if unlisted.prepared_without_body.is_none() {
        for (line0, bytes, macro_name) in
            parsed.rust_macro_invocations_in_function(parent.line0, parent.character0, &parent.name).unwrap_or_default()
        {
            let last = macro_name.rsplit("::").next().unwrap_or(&macro_name);
            let listed = covered.iter().any(|range| range.start < bytes.end && bytes.start < range.end.max(range.start + 1));
            if !listed && !RUST_STANDARD_MACROS.contains(&last) {
                unlisted.macro_expansions.push((line0, format!("{macro_name}!")));
            }
        }
        // Operators call trait impls (trial134 F2: ordered-float's `Ord::cmp`, whose `<`/`>`
        // call the crate's `lt`/`gt`, had "no calls" and no note).
        unlisted.operator_uses = parsed.rust_operator_uses_in_function(parent.line0, parent.character0, &parent.name).unwrap_or_default();
    }
    for site in sites {
        let listed =
            covered.iter().any(|range| range.start < site.callee_bytes.end && site.callee_bytes.start < range.end.max(range.start + 1));
        if listed {
            continue;
        }
        if site.go_builtin {
            unlisted.go_builtins.push((site.line0, site.text, None));
        } else {
            unlisted.sites.push((site.line0, site.text, site.inside_macro));
        }
    }
    unlisted
}

/// A call or type hierarchy item. Both are typed as lsp-types' `CallHierarchyItem`: LSP 3.17
/// gives `TypeHierarchyItem` the same fields, and lsp-types 0.97's `TypeHierarchyItem` reads
/// `tags` as one tag instead of the specified array, so a server that tags a type item
/// (`Deprecated`) would not decode through it.
type HierarchyItem = lsp_types::CallHierarchyItem;

fn node_from_item(item: HierarchyItem, depth: usize) -> Node {
    Node {
        depth,
        name: item.name.clone(),
        kind: u64::try_from(lsp_kind_number(item.kind)).unwrap_or(0),
        detail: item.detail.clone().filter(|detail| !detail.trim().is_empty()),
        uri: item.uri.as_str().to_owned(),
        line0: item.selection_range.start.line,
        character0: item.selection_range.start.character,
        item,
        via: Vec::new(),
        call_sites: Vec::new(),
        followed: Followed::DepthReached,
        overload_lines0: Vec::new(),
    }
}

/// The LSP number of a symbol kind (lsp-types keeps it as an opaque newtype).
fn lsp_kind_number(kind: lsp_types::SymbolKind) -> i64 {
    serde_json::to_value(kind).ok().and_then(|value| value.as_i64()).unwrap_or(0)
}

/// A prepare answer (`textDocument/prepareCallHierarchy` / `prepareTypeHierarchy`): a list of
/// items or (off-spec, accepted) one item; `null` is the request's `None`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
enum PreparedItems {
    List(Vec<HierarchyItem>),
    One(HierarchyItem),
}

impl PreparedItems {
    fn into_items(self) -> Vec<HierarchyItem> {
        match self {
            PreparedItems::List(items) => items,
            PreparedItems::One(item) => vec![item],
        }
    }
}

/// `textDocument/prepareCallHierarchy` with the tolerant [`PreparedItems`] result.
#[derive(Debug)]
enum PrepareCallHierarchy {}

impl LspRequest for PrepareCallHierarchy {
    type Params = lsp_types::CallHierarchyPrepareParams;
    type Result = Option<PreparedItems>;
    const METHOD: &'static str = lsp_types::request::CallHierarchyPrepare::METHOD;
}

/// `textDocument/prepareTypeHierarchy` with the tolerant [`PreparedItems`] result (items read as
/// [`HierarchyItem`], see there).
#[derive(Debug)]
enum PrepareTypeHierarchy {}

impl LspRequest for PrepareTypeHierarchy {
    type Params = lsp_types::TypeHierarchyPrepareParams;
    type Result = Option<PreparedItems>;
    const METHOD: &'static str = lsp_types::request::TypeHierarchyPrepare::METHOD;
}

/// The params of a type hierarchy step: the item to follow (as [`HierarchyItem`]; the
/// supertypes/subtypes params add only progress tokens, which runbound does not send).
#[derive(Debug, Serialize, Deserialize)]
struct TypeHierarchyStepParams {
    item: HierarchyItem,
}

/// `typeHierarchy/supertypes`, items read as [`HierarchyItem`].
#[derive(Debug)]
enum TypeHierarchySupertypes {}

impl LspRequest for TypeHierarchySupertypes {
    type Params = TypeHierarchyStepParams;
    type Result = Option<Vec<HierarchyItem>>;
    const METHOD: &'static str = lsp_types::request::TypeHierarchySupertypes::METHOD;
}

/// `typeHierarchy/subtypes`, items read as [`HierarchyItem`].
#[derive(Debug)]
enum TypeHierarchySubtypes {}

impl LspRequest for TypeHierarchySubtypes {
    type Params = TypeHierarchyStepParams;
    type Result = Option<Vec<HierarchyItem>>;
    const METHOD: &'static str = lsp_types::request::TypeHierarchySubtypes::METHOD;
}

/// Prepares the hierarchy of `dir` at `position`: its root items.
fn prepare(
    server: &LanguageServer,
    dir: &Direction,
    position: lsp_types::TextDocumentPositionParams,
    deadline: Instant,
) -> Result<Vec<HierarchyItem>, RequestFailure> {
    let prepared = if dir.call_field.is_some() {
        server.request::<PrepareCallHierarchy>(
            lsp_types::CallHierarchyPrepareParams {
                text_document_position_params: position,
                work_done_progress_params: Default::default(),
            },
            deadline,
        )?
    } else {
        server.request::<PrepareTypeHierarchy>(
            lsp_types::TypeHierarchyPrepareParams {
                text_document_position_params: position,
                work_done_progress_params: Default::default(),
            },
            deadline,
        )?
    };
    Ok(prepared.map(PreparedItems::into_items).unwrap_or_default())
}

/// One step of `dir` from `item`: `(item, call ranges)` of each entry — the caller and the
/// ranges in the caller (`incomingCalls`), the callee and the ranges in the queried item
/// (`outgoingCalls`), or a type with no ranges (`supertypes` / `subtypes`).
fn step(
    server: &LanguageServer,
    dir: &Direction,
    item: &HierarchyItem,
    deadline: Instant,
) -> Result<Vec<(HierarchyItem, Vec<lsp_types::Range>)>, RequestFailure> {
    let progress = || (lsp_types::WorkDoneProgressParams::default(), lsp_types::PartialResultParams::default());
    Ok(match (dir.call_field, dir.op) {
        (Some("from"), _) => {
            let (work_done_progress_params, partial_result_params) = progress();
            let params =
                lsp_types::CallHierarchyIncomingCallsParams { item: item.clone(), work_done_progress_params, partial_result_params };
            server
                .request::<lsp_types::request::CallHierarchyIncomingCalls>(params, deadline)?
                .unwrap_or_default()
                .into_iter()
                .map(|call| {
                    let ranges = name_ranges_of_calls(server, &call.from.uri, call.from_ranges, &item.name);
                    (call.from, ranges)
                })
                .collect()
        }
        (Some(_), _) => {
            let (work_done_progress_params, partial_result_params) = progress();
            let params =
                lsp_types::CallHierarchyOutgoingCallsParams { item: item.clone(), work_done_progress_params, partial_result_params };
            server
                .request::<lsp_types::request::CallHierarchyOutgoingCalls>(params, deadline)?
                .unwrap_or_default()
                .into_iter()
                .map(|call| {
                    let ranges = name_ranges_of_calls(server, &item.uri, call.from_ranges, &call.to.name);
                    (call.to, ranges)
                })
                .collect()
        }
        (None, "supertypes") => server
            .request::<TypeHierarchySupertypes>(TypeHierarchyStepParams { item: item.clone() }, deadline)?
            .unwrap_or_default()
            .into_iter()
            .map(|item| (item, Vec::new()))
            .collect(),
        (None, _) => server
            .request::<TypeHierarchySubtypes>(TypeHierarchyStepParams { item: item.clone() }, deadline)?
            .unwrap_or_default()
            .into_iter()
            .map(|item| (item, Vec::new()))
            .collect(),
    })
}

/// Answers one hierarchy op (see the module docs).
///
/// # Errors
/// `invalid_arguments` for a missing address or a `depth` above [`MAX_HIERARCHY_DEPTH`];
/// `unavailable` when the file's server lacks the capability (naming the installed server that
/// has it); the request errors of [`request_error`].
pub(crate) fn hierarchy(ctx: &CallContext<'_>, supervisor: &LspSupervisor, args: &LspArguments) -> Result<ToolOutput, ToolError> {
    let dir = direction(args.op.as_str());
    let op = dir.op;
    let depth = args.depth.unwrap_or(1);
    if depth == 0 || depth > MAX_HIERARCHY_DEPTH {
        return Err(ToolError::invalid(format!("{op}: `depth` is {depth}, but hierarchies follow 1 to {MAX_HIERARCHY_DEPTH} levels"))
            .with_hint(format!("pass \"depth\" between 1 and {MAX_HIERARCHY_DEPTH} (default 1)")));
    }
    if args.kind.is_some() || args.locals {
        return Err(ToolError::invalid(format!("{op} takes no `kind` or `locals` (they filter `symbols` outlines)"))
            .with_hint("drop `kind` and `locals`"));
    }
    let (Some(file), Some(line)) = (args.file.as_deref(), args.line) else {
        return Err(ToolError::invalid(format!("{op} needs `file` and `line` (1-based) plus `symbol`"))
            .with_hint(format!("e.g. {{\"op\": \"{op}\", \"file\": \"src/main.rs\", \"line\": 12, \"symbol\": \"parse_config\"}}")));
    };
    let Some(symbol) = args.symbol.as_deref() else {
        return Err(ToolError::invalid(format!(
            "{op} needs `symbol`: a substring of line {line} containing the identifier (positions are never columns)"
        ))
        .with_hint("read the line and pass the function or type name you mean as `symbol`"));
    };
    let path = resolve_file(supervisor.workspace_root(), file)?;
    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path)?;
    let resolved = resolve_symbol_on_line(&text, line, symbol, args.occurrence)
        .map_err(|err| ToolError::invalid(format!("{}: {err}", supervisor.display_path(&path))))?;
    let deadline = ctx.deadline().checked_sub(ANSWER_MARGIN).unwrap_or_else(Instant::now);
    let lease = supervisor.server_for_file(&path, args.server.as_deref(), deadline)?;
    let server = &*lease.server;
    let mut notes = lease.notes.clone();
    notes.extend(server.resync_from_disk().note(|path| supervisor.display_path(path)));
    server.sync_document(&path)?;
    if !server.supports(dir.prepare) {
        return Err(unsupported_error(supervisor, &path, server, op, dir.prepare, deadline));
    }
    let readiness = server.wait_until_ready_for_lookups((Instant::now() + supervisor.config().indexing_wait).min(deadline));
    let encoding = server.position_encoding();
    let mut query = Query { supervisor, server, path: path.clone(), resolved: resolved.clone(), encoding, notes: Vec::new() };
    let (line0, character) = resolved.lsp_position(encoding);
    let position = lsp_types::TextDocumentPositionParams {
        text_document: lsp_types::TextDocumentIdentifier { uri: path_to_lsp_uri(&path) },
        position: lsp_types::Position { line: line0, character },
    };
    // Later pages reuse the walk of the first page while no file under the server's root changed.
    let key = format!("{}|{op}|{}|{line0}:{character}|depth {depth}", server.pid(), position.text_document.uri.as_str());
    let fingerprint = workspace_fingerprint(server.workspace_root(), server.root());
    let cached = if args.offset > 0 { supervisor.answer_cache().get::<Walk>(&key, &fingerprint) } else { None };
    let walk = match cached {
        Some((at, walk)) => {
            notes.push(format!(
                "note: this page comes from the hierarchy walked {} s ago (no file under {} changed since); offset 0 asks the server again",
                at.elapsed().as_secs(),
                supervisor.display_path(server.root())
            ));
            walk
        }
        None => {
            let walk = walk(supervisor, server, &dir, position, depth, deadline).map_err(|failure| match failure {
                // A server that advertises the hierarchy but lacks one of its methods (clangd 19:
                // no `callHierarchy/outgoingCalls`) is a missing capability, not a failure.
                WalkFailure::Request(method, RequestFailure::Server(err)) if err.code == METHOD_NOT_FOUND => {
                    let mut tool_error = unsupported_error(supervisor, &path, server, op, method, deadline);
                    tool_error.message.push_str(&format!(
                        " ({} advertises {} but answered {method} with error {}: {})",
                        server.id(),
                        dir.prepare,
                        err.code,
                        err.message
                    ));
                    tool_error
                }
                WalkFailure::Request(method, failure) => {
                    let mut err = request_error(&query, method, &failure, &readiness);
                    for note in &notes {
                        err.message.push_str("; ");
                        err.message.push_str(note);
                    }
                    err
                }
            })?;
            let mut walk = walk;
            if op == "incoming_calls" {
                callers_in_dependent_roots(supervisor, server, &dir, &path, &resolved, depth, &mut walk, deadline);
                if server.id() == "gopls" {
                    separate_related_method_calls(supervisor, server, &path, line0, character, &mut walk, deadline);
                }
                if server.id() == "typescript-language-server" {
                    separate_typescript_class_method_calls(supervisor, server, &path, line0, character, &mut walk, deadline);
                }
                follow_other_root_entries(supervisor, server, &dir, depth, &mut walk, deadline);
                if server.id() == "gopls" && depth > 1 {
                    separate_related_method_calls_below(supervisor, server, depth, &mut walk, deadline);
                }
                if server.id() == "typescript-language-server" && depth > 1 {
                    separate_typescript_calls_below(supervisor, server, depth, &mut walk, deadline);
                }
                if depth > 1 {
                    // At most half of the time left: the queried item's own notes come after.
                    let share = Instant::now() + deadline.saturating_duration_since(Instant::now()) / 2;
                    let (followed_notes, requests) = followed_entries_notes(supervisor, server, &dir, &walk, depth, share);
                    walk.followed_notes = followed_notes;
                    walk.requests += requests;
                }
            }
            supervisor.answer_cache().put(key, fingerprint, walk.clone());
            walk
        }
    };
    notes.extend(walk.notes.iter().cloned());
    // Calls the server resolves to no function (Markdown 3.11.3: `self.serializer(root)`, a call
    // through a Callable attribute, was missing from `Markdown.convert`'s "17 call sites").
    notes.extend(unlisted_call_notes(supervisor, server.id(), &walk.unlisted));
    // References that are no listed call site and no binding: a call may reach the function
    // through them (trial29 F1: `((o && o.serializeError) || miniSerializeError)(err)`).
    let (uses_not_listed_text, uses_not_listed) =
        render_uses_not_listed(supervisor, server.id(), &resolved.cursor_identifier, &walk.aliases.uses_not_listed, true);
    notes.extend(uses_not_listed_text);
    if op == "incoming_calls" {
        notes.extend(incoming_item_notes(supervisor, server, &path, &resolved, line0, character, &walk, deadline));
        // The same, for each entry a deeper walk followed (trial144 F2), computed with the walk.
        notes.extend(walk.followed_notes.iter().cloned());
    }
    // Asked or answered while the server was still loading: said at the top (small24; a
    // just-started rust-analyzer answers from the part of the crate graph it has loaded).
    let unready = crate::lsp::tool::unready_when_answered(server, &readiness);
    query.notes = notes;
    let (body, results, page) = render(&query, &dir, &walk, depth, args.offset)?;
    // (With no item at all, `empty_answer` already says so.)
    // By the syntax tree, as navigation does: the line scan read the `#` of a private method
    // (`#executeFetch(…)`) as a comment (trial156 M3).
    if !walk.entries.is_empty() && crate::lsp::tool::cursor_in_comment_or_string(supervisor.workspace_root(), &path, &resolved) {
        query.notes.push(format!(
            "note: `{}` at column {} looks like it is inside a comment or string; {} answered anyway — check that this is the symbol you meant",
            resolved.cursor_identifier,
            resolved.display_column(),
            server.id()
        ));
    }
    let loading_warning = unready
        .as_ref()
        .and_then(|report| crate::lsp::loading_lookups::loading_list_warning(server.id(), report, dir.what, walk.entries.len()));
    let mut text = String::new();
    if let Some(warning) = &loading_warning {
        text.push_str(warning);
        text.push('\n');
    }
    text.push_str(&query.header(dir.what));
    text.push('\n');
    text.push_str(&body);
    let (alias_text, alias_calls) = render_aliases(supervisor, server.id(), &walk.aliases).unwrap_or_default();
    if !alias_text.is_empty() {
        text.push('\n');
        text.push_str(&alias_text);
    }
    for note in &query.notes {
        text.push('\n');
        text.push_str(note);
    }
    let items: Vec<HierarchyItemSummary> = walk
        .roots
        .iter()
        .map(|root| HierarchyItemSummary {
            name: root.name.clone(),
            kind: crate::lsp::outline::lsp_kind_name(root.kind).to_owned(),
            detail: root.detail.clone(),
        })
        .collect();
    let output = HierarchyOutput {
        op: match dir.op {
            "incoming_calls" => HierarchyOp::IncomingCalls,
            "outgoing_calls" => HierarchyOp::OutgoingCalls,
            "supertypes" => HierarchyOp::Supertypes,
            _ => HierarchyOp::Subtypes,
        },
        server: server.id().to_owned(),
        root: supervisor.display_path(server.root()),
        position: query.position(),
        depth,
        items,
        total: walk.entries.len(),
        results,
        page: page.as_ref().map(PageWindow::from),
        requests: walk.requests,
        walk_ms: u64::try_from(walk.elapsed_ms).unwrap_or(u64::MAX),
        still_indexing: !matches!(readiness.readiness, crate::lsp::Readiness::Ready) || unready.is_some(),
        notes: loading_warning.iter().chain(&query.notes).cloned().collect(),
        unlisted_call_sites: unlisted_call_site_entries(supervisor, &walk.unlisted),
        alias_calls,
        uses_not_listed,
    };
    let output = LspOutput::Hierarchy(output);
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(crate::schema::to_structured(&output))))
}

/// The notes of an `incoming_calls` answer on the calls of one item (`resolved` at 0-based
/// `line0`/`character` of `path`, whose depth-1 callers `walk` holds) that its call hierarchy
/// cannot list: callers on doctest lines, in the project roots that depend on this one, through
/// dispatch (a name built at run time, a base method, a trait), in code the server gives no
/// definition (behind a cfg that is off, an untyped value), constructions and implicit calls,
/// doc-test examples. Asked for the queried item and for each entry a deeper walk followed
/// ([`followed_entries_notes`]).
#[allow(clippy::too_many_arguments)]
fn incoming_item_notes(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    resolved: &crate::lsp::position::ResolvedSymbol,
    line0: u32,
    character: u32,
    walk: &Walk,
    deadline: Instant,
) -> Vec<String> {
    let mut notes = Vec::new();
    // Doctest `>>>` lines the server does not analyze: calls there are callers too (trial44
    // M11/M2: more-itertools' `>>> take(3, range(10))` lines, which unittest runs).
    if !walk.aliases.doctest_occurrences.is_empty() {
        let place = |(path, line0): &(PathBuf, u32)| format!("{}:{}", supervisor.display_path(path), line0 + 1);
        let mut places: Vec<String> = walk.aliases.doctest_occurrences.iter().take(USES_NOT_LISTED_SHOWN).map(place).collect();
        if walk.aliases.doctest_occurrences.len() > USES_NOT_LISTED_SHOWN {
            places.push(format!("and {} more", walk.aliases.doctest_occurrences.len() - USES_NOT_LISTED_SHOWN));
        }
        notes.push(format!(
            "note: NOT in this answer: {} of `{}` in doctest examples (docstrings' `>>>` lines, which the doctests run and {} does not analyze) — those that call it are callers: {}",
            plural(walk.aliases.doctest_occurrences.len(), "occurrence"),
            resolved.cursor_identifier,
            server.id(),
            places.join(", ")
        ));
    }
    // The project roots that depend on this one by path (a downstream crate, a consumer
    // module): their callers are in no answer of this server (trial95 F4, trial98 F3; gopls
    // too, trial102 F1).
    notes.extend(walk.dependent_roots_notes.iter().cloned());
    // Rust: at a method of a trait impl, rust-analyzer lists only the calls it resolves to this
    // impl; the calls made through the trait (generic code bounded by it, `dyn Trait`) reach it at
    // run time and are not listed (trial130 F2: anyhow's `ext_context` of `impl<E> StdError for
    // E`, "no callers", called by every `Result::context` through `E: ext::StdError`).
    notes.extend(unlisted_dispatch_notes(supervisor, server, path, line0, &resolved.line_text, &resolved.cursor_identifier, deadline));
    // Callers in code the server does not analyze are not in its answer: said, with where they
    // are (similar 2.7.0: `get_diff_ratio`'s caller in src/text/inline.rs, behind
    // `#[cfg(feature = "inline")]`, was missing from "1 caller, 1 call site").
    if server.definition().cross_check_references {
        let canonical = |path: PathBuf| std::fs::canonicalize(&path).unwrap_or(path);
        let mut covered: HashSet<(PathBuf, u32)> = HashSet::new();
        covered.insert((canonical(path.to_path_buf()), line0));
        for entry in walk.entries.iter().filter(|entry| entry.depth == 1) {
            for site in &entry.call_sites {
                if let Some(site_path) = lsp_types::Uri::from_str(&site.uri).ok().and_then(|uri| crate::lsp::uri::lsp_uri_to_path(&uri)) {
                    covered.insert((canonical(site_path), site.line0));
                }
            }
        }
        notes.extend(occurrences_not_analyzed_notes(supervisor, server, &resolved.cursor_identifier, &covered, deadline));
        // The roots that depend on this one by path (a `downstream/` crate beside the library),
        // whose callers the walk asked their own server for: the code that server does not
        // analyze is named too (trial138 F1: camino's `join`, called behind
        // `#[cfg(feature = "serde")]` in downstream/src/lib.rs:59, read "2 callers" with no note).
        let this_root = std::fs::canonicalize(server.root()).unwrap_or_else(|_| server.root().to_path_buf());
        for root in supervisor.dependent_roots(server.id(), server.root()).roots {
            // (A root that holds this one scans it already; a root nested in this one is pruned
            // from this one's scan as a project of its own, so it is scanned here.)
            if this_root.starts_with(&root) || Instant::now() >= deadline {
                continue;
            }
            if let Ok((lease, _)) = crate::lsp::sibling_roots::root_server_given(supervisor, server.id(), &root, path, deadline) {
                notes.extend(occurrences_not_analyzed_notes(supervisor, &lease.server, &resolved.cursor_identifier, &covered, deadline));
            }
        }
        // Asked in a root that depends on the one owning the definition (a downstream crate):
        // that root's code the server does not analyze is named too, as asked from there
        // (trial112 M2: arrayvec's borsh-gated `self.as_slice()` was said only from its side).
        if let Some((owner, definition, definition_line0, definition_character)) =
            crate::lsp::sibling_roots::owning_root_of_definition(supervisor, server, path, line0, character, deadline)
        {
            match crate::lsp::sibling_roots::root_server_given(supervisor, server.id(), &owner, &definition, deadline) {
                Ok((lease, _)) => {
                    notes.extend(occurrences_not_analyzed_notes(supervisor, &lease.server, &resolved.cursor_identifier, &covered, deadline));
                    notes.extend(crate::lsp::rename_coverage::doc_test_uses_note(
                        &lease.server,
                        &definition,
                        definition_line0,
                        definition_character,
                        &resolved.cursor_identifier,
                        "calls",
                        deadline,
                    ));
                }
                Err(why) => notes.push(format!(
                    "note: NOT checked: the code of {} (it owns the definition) that its {} does not analyze (behind a cfg that is off, doc tests) may call it too; that root's server could not be asked ({why}): call incoming_calls at the definition, {}:{}",
                    supervisor.display_path(&owner),
                    server.id(),
                    supervisor.display_path(&definition),
                    definition_line0 + 1
                )),
            }
        }
        // Constructions of the class call its `__init__` (trial40 F7).
        notes.extend(crate::lsp::tool::python_constructor_calls_note(supervisor, server, path, resolved));
        notes.extend(crate::lsp::tool::python_implicit_dunder_calls_note(supervisor, server, path, resolved));
        // Operator and scope-end calls of a trait's method are never listed (trial40 F6).
        notes.extend(crate::lsp::tool::rust_implicit_calls_note(supervisor, path, resolved));
        // Callers in doc-test examples: rustdoc compiles them, rust-analyzer does not analyze them
        // (smallvec 1.16.6: `append`, called by the example at lib.rs:1312, had "no callers").
        if let Some(note) =
            crate::lsp::rename_coverage::doc_test_uses_note(server, path, line0, character, &resolved.cursor_identifier, "calls", deadline)
        {
            notes.push(note);
        }
    }
    notes
}

/// Followed entries whose checks are named in a "NOT checked" note; the rest are counted.
const NOT_CHECKED_SHOWN: usize = 10;

/// `incoming_calls` deeper than 1: for each entry the walk followed (its callers are listed one
/// level down, depth 1 to `depth` − 1), the notes a depth-1 answer asked at that entry gives on
/// the calls its call hierarchy cannot list ([`incoming_item_notes`], the references that are
/// no listed call site, the calls through other names bound to it), each naming the entry; a
/// note body several entries share is said once, naming them all. The entry is asked by the
/// server of the project root it lies in, its own depth-1 walk filtered as the queried item's
/// is (gopls: calls of related methods; tsserver: calls of another declaration of a class
/// method). Entries that could not be checked (time, a failed request) are named in one "NOT
/// checked" note. Bounded by `deadline`, shared equally among the entries left (trial144 F2:
/// inflect's `postprocess` at depth 2 listed the callers of `singular_noun` with no note,
/// while its doctest calls and the calls through an untyped parameter were missing there).
/// Returns the notes and the requests the entries' walks sent.
fn followed_entries_notes(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    dir: &Direction,
    walk: &Walk,
    depth: usize,
    deadline: Instant,
) -> (Vec<String>, usize) {
    // Files and modules (a file's top-level code) are called by no name.
    const FILE_KIND: u64 = 1;
    const MODULE_KIND: u64 = 2;
    let followed: Vec<&Node> = walk
        .entries
        .iter()
        .filter(|entry| {
            entry.depth < depth
                && matches!(entry.followed, Followed::Yes | Followed::OtherRootWalked)
                && !matches!(entry.kind, FILE_KIND | MODULE_KIND)
        })
        .collect();
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let this_root = canonical(server.root());
    let mut leases: HashMap<PathBuf, Result<crate::lsp::supervisor::ServerLease, String>> = HashMap::new();
    // (depth of the entry, note body without `note: `, the entries that gave it).
    let mut bodies: Vec<(usize, String, Vec<String>)> = Vec::new();
    let mut not_checked: Vec<String> = Vec::new();
    let mut requests = 0usize;
    for (index, entry) in followed.iter().enumerate() {
        let label = format!("`{}` ({})", entry.name, uri_line_label(supervisor, &entry.uri, entry.line0));
        let now = Instant::now();
        if now >= deadline {
            not_checked.push(format!("{label}: time ran out"));
            continue;
        }
        let entry_deadline = now + deadline.saturating_duration_since(now) / u32::try_from(followed.len() - index).unwrap_or(u32::MAX);
        let Some(path) = crate::lsp::uri::uri_to_path(&entry.uri) else {
            not_checked.push(format!("{label}: `{}` is not a file URI", entry.uri));
            continue;
        };
        let root =
            crate::lsp::servers::find_root(server.definition(), supervisor.workspace_root(), &path).root.map(|root| canonical(&root));
        let owner: &LanguageServer = match root {
            Some(root) if root != this_root => {
                let lease = leases.entry(root.clone()).or_insert_with(|| {
                    crate::lsp::sibling_roots::root_server_given(supervisor, server.id(), &root, &path, entry_deadline)
                        .map(|(lease, _)| lease)
                });
                match lease {
                    Ok(lease) => &lease.server,
                    Err(why) => {
                        not_checked.push(format!("{label}: the server of {} could not be asked ({why})", supervisor.display_path(&root)));
                        continue;
                    }
                }
            }
            _ => server,
        };
        match followed_entry_notes(supervisor, owner, dir, entry, &path, entry_deadline) {
            Ok((notes, entry_requests)) => {
                requests += entry_requests;
                for note in notes {
                    let body = note.strip_prefix("note: ").unwrap_or(&note).to_owned();
                    match bodies.iter_mut().find(|(known_depth, known, _)| *known_depth == entry.depth && *known == body) {
                        Some((_, _, labels)) => labels.push(label.clone()),
                        None => bodies.push((entry.depth, body, vec![label.clone()])),
                    }
                }
            }
            Err(why) => not_checked.push(format!("{label}: {why}")),
        }
    }
    let mut notes: Vec<String> = bodies
        .into_iter()
        .map(|(entry_depth, body, labels)| {
            format!(
                "note: for the depth-{entry_depth} {} {}, whose callers depth {} lists — {body}",
                if labels.len() == 1 { dir.noun.to_owned() } else { format!("{}s", dir.noun) },
                labels.join(", "),
                entry_depth + 1
            )
        })
        .collect();
    if !not_checked.is_empty() {
        let count = not_checked.len();
        let mut named = not_checked.into_iter().take(NOT_CHECKED_SHOWN).collect::<Vec<_>>().join("; ");
        if count > NOT_CHECKED_SHOWN {
            named.push_str(&format!("; and {} more", count - NOT_CHECKED_SHOWN));
        }
        notes.push(format!(
            "note: NOT checked for {} the walk followed: the calls {}'s call hierarchy cannot list (doctest lines, code it gives no definition, references not listed as call sites, calls through other names, dispatch through a base or by a name built at run time) — the callers listed one level below them may be incomplete; ask incoming_calls at each: {named}",
            plural(count, "entry"),
            server.id()
        ));
    }
    (notes, requests)
}

/// The notes of [`followed_entries_notes`] for one followed `entry` (in `path`), asked by
/// `server` as a depth-1 walk at its position, and the requests that walk sent; the reason as
/// text when it could not be asked.
fn followed_entry_notes(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    dir: &Direction,
    entry: &Node,
    path: &Path,
    deadline: Instant,
) -> Result<(Vec<String>, usize), String> {
    server.sync_document(path).map_err(|err| format!("{} could not be given its file: {}", server.id(), err.message))?;
    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), path).map_err(|err| err.message)?;
    let line_text = crate::lsp::position::split_lines(&text)
        .get(entry.line0 as usize)
        .map(|line| (*line).to_owned())
        .ok_or_else(|| format!("its file has no line {}", entry.line0 + 1))?;
    let cursor_byte = server.position_encoding().byte_from_column(&line_text, entry.character0);
    let identifier: String =
        line_text.get(cursor_byte..).unwrap_or("").chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
    if identifier.is_empty() {
        return Err(format!("no name stands at the position {} gave for it", server.id()));
    }
    let resolved = crate::lsp::position::ResolvedSymbol {
        line: entry.line0 + 1,
        line_text,
        occurrence_byte_start: cursor_byte,
        cursor_byte,
        cursor_identifier: identifier.clone(),
        occurrence: 1,
        occurrence_count: 1,
        part_of_identifier: None,
    };
    let uri = lsp_types::Uri::from_str(&entry.uri).map_err(|_| format!("`{}` is not a URI", entry.uri))?;
    let position = lsp_types::TextDocumentPositionParams {
        text_document: lsp_types::TextDocumentIdentifier { uri },
        position: lsp_types::Position { line: entry.line0, character: entry.character0 },
    };
    let mut entry_walk = walk(supervisor, server, dir, position, 1, deadline)
        .map_err(|WalkFailure::Request(method, failure)| failure.to_tool_error(server.id(), method).message)?;
    if entry_walk.roots.is_empty() {
        return Err(format!("{} prepared no call hierarchy item at it", server.id()));
    }
    // The calls of other declarations the queried item's walk leaves out are left out here too
    // (their notes are the deeper walk's own, `separate_*_below`).
    if server.id() == "gopls" {
        separate_related_method_calls(supervisor, server, path, entry.line0, entry.character0, &mut entry_walk, deadline);
    }
    if server.id() == "typescript-language-server" {
        separate_typescript_class_method_calls(supervisor, server, path, entry.line0, entry.character0, &mut entry_walk, deadline);
    }
    let mut notes = Vec::new();
    notes.extend(render_uses_not_listed(supervisor, server.id(), &identifier, &entry_walk.aliases.uses_not_listed, false).0);
    notes.extend(alias_calls_note(supervisor, server.id(), &identifier, &entry_walk.aliases));
    notes.extend(incoming_item_notes(supervisor, server, path, &resolved, entry.line0, entry.character0, &entry_walk, deadline));
    Ok((notes, entry_walk.requests))
}

/// Call sites named per bound name in [`alias_calls_note`]; the rest are counted.
const ALIAS_SITES_NOTED: usize = 5;

/// One note naming the calls through other names bound to `name` (`aliases`), for an entry of a
/// deeper walk (the queried item's are a section of their own, [`render_aliases`]); the failure
/// to ask its references, said. Empty when there is nothing to say.
fn alias_calls_note(supervisor: &LspSupervisor, server_id: &str, name: &str, aliases: &crate::lsp::call_aliases::AliasWalk) -> Vec<String> {
    let mut notes = Vec::new();
    let mut parts: Vec<String> = Vec::new();
    for alias in &aliases.aliases {
        let at = uri_line_label(supervisor, &alias.uri, alias.line0);
        match &alias.not_followed {
            Some(reason) => parts.push(format!("through `{}` ({at}): NOT followed ({reason})", alias.name)),
            None if !alias.calls.is_empty() => {
                let mut places: Vec<String> =
                    alias.calls.iter().take(ALIAS_SITES_NOTED).map(|(uri, line0, _)| uri_line_label(supervisor, uri, *line0)).collect();
                if alias.calls.len() > ALIAS_SITES_NOTED {
                    places.push(format!("and {} more", alias.calls.len() - ALIAS_SITES_NOTED));
                }
                parts.push(format!("through `{}` ({at}): {} — {}", alias.name, plural(alias.calls.len(), "call site"), places.join(", ")));
            }
            None => {}
        }
        if alias.not_followed.is_none() {
            for (uri, line0, further, _) in &alias.further {
                parts.push(format!(
                    "`{further}` ({}) holds `{}` in turn: NOT followed",
                    uri_line_label(supervisor, uri, *line0),
                    alias.name
                ));
            }
        }
    }
    if !parts.is_empty() {
        notes.push(format!(
            "note: NOT in this answer: calls through other names bound to `{name}` ({server_id}'s call hierarchy lists only calls of the function's own name): {} — incoming_calls at `{name}` lists them",
            parts.join("; ")
        ));
    }
    if let Some(failure) = &aliases.references_failed {
        notes.push(format!(
            "note: NOT checked: the references of `{name}` could not be asked ({failure}): names bound to it and references not listed as call sites may be missing"
        ));
    }
    notes
}

/// The notes naming the whole-word occurrences of `name` under `server`'s root that its call
/// hierarchy cannot list (no definition there: code behind a cfg that is off, or a server still
/// loading), `covered` (canonical path, 0-based line) left out; empty when there are none.
fn occurrences_not_analyzed_notes(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    name: &str,
    covered: &HashSet<(PathBuf, u32)>,
    deadline: Instant,
) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(found) = crate::lsp::rename_coverage::unresolved_occurrences(server, name, covered, deadline) {
        let place = |path: &Path, line0: u32| format!("{}:{}", crate::render::display_path(supervisor.workspace_root(), path), line0 + 1);
        let listed = |places: &[(PathBuf, u32)]| {
            let mut text = places.iter().take(15).map(|(path, line0)| place(path, *line0)).collect::<Vec<_>>().join(", ");
            if places.len() > 15 {
                text.push_str(&format!(" and {} more", places.len() - 15));
            }
            text
        };
        // Lookups the server left unanswered while it loaded are no sign of code it does not
        // analyze (small24: a just-started rust-analyzer on heck 0.5.0 gave none of the 16
        // uses of `transform` a definition, and the note blamed `#[cfg]`s that do not exist).
        let (unanswered, nowhere): (Vec<_>, Vec<_>) = found.into_iter().partition(|(_, _, unanswered)| *unanswered);
        let unanswered: Vec<(PathBuf, u32)> = unanswered.into_iter().map(|(path, line0, _)| (path, line0)).collect();
        let nowhere: Vec<(PathBuf, u32)> = nowhere.into_iter().map(|(path, line0, _)| (path, line0)).collect();
        if !unanswered.is_empty() {
            notes.push(format!(
                "note: NOT in this answer: {} whole-word occurrence(s) of `{}` whose definition lookup got no answer: {id} was still loading the project — not a fact about the code, calls there may be missing; ask again in a few seconds, once `lsp status` shows {id} ready: {}",
                unanswered.len(),
                name,
                listed(&unanswered),
                id = server.id(),
            ));
        }
        if !nowhere.is_empty() {
            let cfg_hint = if server.definition().write_check == crate::lsp::WriteCheck::ProjectCheckRun {
                crate::lsp::inactive::rust_unanalyzed_hint(server.workspace_root(), &nowhere, &place)
            } else {
                String::new()
            };
            notes.push(format!(
                "note: NOT in this answer: {} whole-word occurrence(s) of `{}` in code where {} gives no definition, so calls there are not listed{cfg_hint}: {} — read them before relying on this list",
                nowhere.len(),
                name,
                server.id(),
                listed(&nowhere),
            ));
        }
    }
    notes
}

/// Items whose unlisted calls get a note each; the rest are counted.
const UNLISTED_ITEMS_SHOWN: usize = 5;

/// Unlisted calls named per item in a note; the rest are counted.
const UNLISTED_SITES_SHOWN: usize = 10;

/// Unlisted calls in `structuredContent` (all items together).
const UNLISTED_SITES_STRUCTURED: usize = 200;

/// gopls' incoming calls of a Go method, with the calls of methods related to it by
/// implementation told apart by the definition at each call site
/// ([`crate::lsp::go_method_uses::classify_method_uses`]; trial110 F2: `Fs.Name` had "16 callers,
/// 51 call sites" with a static call of the consumer's `(*LoggingFs).Name` among them; go/types
/// counts 16 and 50). Every call of another method is taken out (a caller left with no call site
/// goes, with the entries only it led to), from the listed call sites and from the references
/// the hierarchy does not list, and named in a note:
/// - at an interface method, the static calls of the concrete methods that implement it: their
///   receiver is statically the concrete type, so none goes through the interface method, and a
///   change to its signature breaks none of them (trial157 M2: golang-lru's `LRUCache.Add` was
///   "INCOMPLETE … 35 more direct calls", the tests' calls of `(*Cache).Add` and `(*LRU).Add`;
///   go/types: 9 callers, 17 call sites, all listed); said apart as calls of the implementations;
/// - calls through another interface method — at a concrete method, those of the interfaces it
///   implements; at an interface method, those of other interfaces its implementations satisfy
///   (trial117 F1).
///
/// The notes go into `walk.notes`.
fn separate_related_method_calls(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    character: u32,
    walk: &mut Walk,
    deadline: Instant,
) {
    use crate::lsp::go_method_uses::AskedMethodKind;
    let site_location = |site: &CallSite| -> Option<lsp_types::Location> {
        let uri = lsp_types::Uri::from_str(&site.uri).ok()?;
        let start = lsp_types::Position { line: site.line0, character: site.character0 };
        Some(lsp_types::Location { uri, range: lsp_types::Range { start, end: start } })
    };
    let mut sites: Vec<lsp_types::Location> =
        walk.entries.iter().filter(|entry| entry.depth == 1).flat_map(|entry| entry.call_sites.iter()).filter_map(site_location).collect();
    // The references the hierarchy does not list are classified too.
    let unlisted_sites: Vec<CallSite> = walk
        .aliases
        .uses_not_listed
        .iter()
        .map(|use_| CallSite { uri: use_.uri.clone(), line0: use_.line0, character0: use_.character0, callee: String::new() })
        .collect();
    sites.extend(unlisted_sites.iter().filter_map(site_location));
    if sites.is_empty() {
        return;
    }
    let Some(classes) = crate::lsp::go_method_uses::classify_method_uses(supervisor, server, path, line0, character, &sites, deadline)
    else {
        return;
    };
    let unclassified = classes.unclassified_clause("call sites");
    if classes.related.is_empty() {
        if classes.unclassified > 0 {
            walk.notes.push(format!("note: the call sites gopls gave were checked to be calls of {}{unclassified}", classes.method));
        }
        return;
    }
    let key_of = |site: &CallSite| (site.uri.clone(), site.line0, site.character0);
    // At an interface method, the static calls of the concrete methods implementing it: said
    // apart from the calls through other interfaces.
    let is_implementation_call =
        |kind: Option<AskedMethodKind>| classes.kind == AskedMethodKind::Interface && kind == Some(AskedMethodKind::Concrete);
    let is_left_out = |site: &CallSite| classes.related.contains_key(&key_of(site));
    // Each implementing method with its calls, in the order first met.
    let mut implementation_calls: Vec<(String, Vec<String>)> = Vec::new();
    let mut left: Vec<String> = Vec::new();
    let mut add_implementation_call = |method: &str, shown: String| match implementation_calls.iter_mut().find(|(known, _)| known == method)
    {
        Some((_, places)) => places.push(shown),
        None => implementation_calls.push((method.to_owned(), vec![shown])),
    };
    for entry in walk.entries.iter().filter(|entry| entry.depth == 1) {
        for site in &entry.call_sites {
            if let Some((method, kind)) = classes.related.get(&key_of(site)) {
                let place = uri_line_label(supervisor, &site.uri, site.line0);
                if is_implementation_call(*kind) {
                    add_implementation_call(method, format!("{place} in `{}`", entry.name));
                } else {
                    left.push(format!("{place} in `{}` → {method}", entry.name));
                }
            }
        }
    }
    for site in &unlisted_sites {
        if let Some((method, kind)) = classes.related.get(&key_of(site)) {
            let place = uri_line_label(supervisor, &site.uri, site.line0);
            if is_implementation_call(*kind) {
                add_implementation_call(method, place);
            } else {
                left.push(format!("{place} → {method} (a reference not listed as a call site)"));
            }
        }
    }
    let named = |list: &[String]| {
        let mut text = list.iter().take(10).cloned().collect::<Vec<_>>().join("; ");
        if list.len() > 10 {
            text.push_str(&format!("; and {} more", list.len() - 10));
        }
        text
    };
    // Taken out: the call sites, the callers left with none, the deeper entries only they led to,
    // and the unlisted references.
    let removed_names = take_out_call_sites(walk, 1, |_| true, &is_left_out);
    walk.aliases.uses_not_listed.retain(|use_| !classes.related.contains_key(&(use_.uri.clone(), use_.line0, use_.character0)));
    let implementation_call_count: usize = implementation_calls.iter().map(|(_, places)| places.len()).sum();
    // The callers that went are said once, in the first note.
    let mut callers_gone = if removed_names.is_empty() {
        String::new()
    } else {
        format!(", and {} left with no other call", plural(removed_names.len(), "caller"))
    };
    if implementation_call_count > 0 {
        let per_method: Vec<String> = implementation_calls.iter().map(|(method, places)| format!("{method}: {}", places.len())).collect();
        let places: Vec<String> = implementation_calls
            .iter()
            .flat_map(|(method, places)| places.iter().map(move |place| format!("{place} → {method}")))
            .collect();
        walk.notes.push(format!(
            "note: not counted as calls of {}: {} of the methods that implement it — {} — which gopls gave with it: their receiver is statically the concrete type, so none of them goes through the interface method, and a change to its signature breaks none of them (`incoming_calls` at each method lists its callers){}: {}",
            classes.method,
            plural(implementation_call_count, "static call"),
            per_method.join(", "),
            std::mem::take(&mut callers_gone),
            named(&places),
        ));
    }
    if !left.is_empty() {
        let through = match classes.kind {
            AskedMethodKind::Concrete => "of the interface method it implements",
            AskedMethodKind::Interface => {
                "of other methods of that name, which gopls relates to it through another interface a type implementing it satisfies too"
            }
        };
        walk.notes.push(format!(
            "note: left out of this answer: {} {} gopls gave that {} no call of {} but {through} (such a call may dispatch to a method of the same name at run time; gopls lists only some of them — `incoming_calls` at that interface method lists every caller){callers_gone}: {}",
            left.len(),
            if left.len() == 1 { "call site" } else { "call sites" },
            if left.len() == 1 { "is" } else { "are" },
            classes.method,
            named(&left),
        ));
    }
    if !unclassified.is_empty() {
        walk.notes.push(format!("note: the call sites gopls gave were checked to be calls of {}{unclassified}", classes.method));
    }
}

/// `file:line` of 0-based `line0` in the file of `uri`.
fn uri_line_label(supervisor: &LspSupervisor, uri: &str, line0: u32) -> String {
    let file = lsp_types::Uri::from_str(uri)
        .ok()
        .and_then(|uri| crate::lsp::uri::lsp_uri_to_path(&uri))
        .map_or_else(|| uri.to_owned(), |path| supervisor.display_path(&path));
    format!("{file}:{}", line0 + 1)
}

/// How a note names the body `calls` were read from: the queried item's, or a deeper callee's
/// with its place.
fn body_label(supervisor: &LspSupervisor, calls: &UnlistedCalls) -> String {
    if calls.depth == 0 {
        format!("the body of `{}`", calls.name)
    } else {
        format!("the body of depth-{} callee `{}` ({})", calls.depth, calls.name, uri_line_label(supervisor, &calls.uri, calls.line0))
    }
}

/// The notes saying which calls of the followed items' bodies the `outgoing_calls` answer
/// leaves out (see [`UnlistedCalls`]), and a queried item whose body was not scanned.
fn unlisted_call_notes(supervisor: &LspSupervisor, server_id: &str, unlisted: &[UnlistedCalls]) -> Vec<String> {
    let mut notes = Vec::new();
    let list = |sites: &[(u32, String, Option<String>)], uri: &str| {
        let shown: Vec<String> = sites
            .iter()
            .take(UNLISTED_SITES_SHOWN)
            .map(|(line0, text, inside_macro)| match inside_macro {
                Some(label) => format!("{} `{text}` (inside `{label}`)", uri_line_label(supervisor, uri, *line0)),
                None => format!("{} `{text}`", uri_line_label(supervisor, uri, *line0)),
            })
            .collect();
        let more = sites.len().saturating_sub(UNLISTED_SITES_SHOWN);
        format!(
            "{}{}",
            shown.join(", "),
            if more > 0 { format!(" and {more} more (all in structuredContent `unlisted_call_sites`)") } else { String::new() }
        )
    };
    let with_sites: Vec<&UnlistedCalls> = unlisted.iter().filter(|calls| !calls.sites.is_empty()).collect();
    for calls in with_sites.iter().take(UNLISTED_ITEMS_SHOWN) {
        let whose = body_label(supervisor, calls);
        let in_macros = calls.sites.iter().filter(|site| site.2.is_some()).count();
        let why = if let Some(declaration_line0) = calls.prepared_without_body {
            format!(
                "(at {}): {server_id} prepared the declaration at {}, which has no body (a `declare class` member, a signature), and listed no call of it — these are read from the function assigned at the queried line",
                uri_line_label(supervisor, &calls.uri, calls.line0),
                uri_line_label(supervisor, &calls.uri, declaration_line0)
            )
        } else if in_macros == 0 {
            format!("that {server_id} resolves to no function (calls through a variable, attribute or parameter are not followed)")
        } else if in_macros == calls.sites.len() {
            format!("written inside macro arguments (each marked `inside m!(…)`), which {server_id} lists no calls in")
        } else {
            format!(
                "that {server_id} resolves to no function (through a variable, attribute or parameter) or, {in_macros} of them (marked `inside m!(…)`), written inside macro arguments, which it lists no calls in"
            )
        };
        notes.push(format!(
            "note: NOT in this answer: {} in {whose} {why}: {} — read them before relying on this list",
            plural(calls.sites.len(), "call site"),
            list(&calls.sites, &calls.uri),
        ));
    }
    if with_sites.len() > UNLISTED_ITEMS_SHOWN {
        let rest = &with_sites[UNLISTED_ITEMS_SHOWN..];
        notes.push(format!(
            "note: NOT in this answer either: {} in the bodies of {} more followed callees ({}) that {server_id} resolves to no function or that are written inside macro arguments; see structuredContent `unlisted_call_sites`",
            plural(rest.iter().map(|calls| calls.sites.len()).sum(), "call site"),
            rest.len(),
            rest.iter().map(|calls| format!("`{}`", calls.name)).collect::<Vec<_>>().join(", "),
        ));
    }
    for calls in unlisted.iter().filter(|calls| !calls.macro_expansions.is_empty()).take(UNLISTED_ITEMS_SHOWN) {
        let whose = body_label(supervisor, calls);
        let shown: Vec<String> = calls
            .macro_expansions
            .iter()
            .take(UNLISTED_SITES_SHOWN)
            .map(|(line0, name)| format!("`{name}` at {}", uri_line_label(supervisor, &calls.uri, *line0)))
            .collect();
        let more = calls.macro_expansions.len().saturating_sub(UNLISTED_SITES_SHOWN);
        notes.push(format!(
            "note: NOT in this answer: the calls made by the expansions of {} in {whose} ({}{}) — {server_id} lists no call a macro's expansion makes; read those macros before relying on this list",
            plural(calls.macro_expansions.len(), "macro invocation"),
            shown.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() },
        ));
    }
    for calls in unlisted.iter().filter(|calls| calls.depth == 0 && !calls.operator_uses.is_empty()) {
        let shown: Vec<String> = calls
            .operator_uses
            .iter()
            .take(3)
            .map(|(line0, text)| format!("`{text}` at {}", uri_line_label(supervisor, &calls.uri, *line0)))
            .collect();
        let more = calls.operator_uses.len().saturating_sub(shown.len());
        notes.push(format!(
            "note: NOT in this answer: {} in the body of `{}` ({}{}) — on a type that implements the operator's trait (`PartialOrd::lt` for `<`, `Add::add` for `+`, `Neg::neg` for unary `-`) each calls that impl, which {server_id} does not list as a call; on primitive types they call nothing",
            plural(calls.operator_uses.len(), "operator use"),
            calls.name,
            shown.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() },
        ));
    }
    for calls in unlisted.iter().filter(|calls| !calls.go_builtins.is_empty()).take(UNLISTED_ITEMS_SHOWN) {
        let whose = format!("the body of `{}`", calls.name);
        notes.push(format!(
            "note: also not listed: {} in {whose}, which {server_id} lists no callee for: {}",
            plural(calls.go_builtins.len(), "Go builtin or conversion call"),
            list(&calls.go_builtins, &calls.uri),
        ));
    }
    for calls in unlisted.iter().filter(|calls| calls.depth == 0) {
        if let Some(reason) = &calls.not_scanned {
            notes.push(format!(
                "note: the calls in `{}`'s body were not checked against its syntax tree ({reason}): calls {server_id} resolves to no function (through a variable, attribute or parameter) may be missing from this answer without a note",
                calls.name
            ));
        }
    }
    notes
}

/// The unlisted calls of [`unlisted_call_notes`] for `structuredContent` (at most
/// [`UNLISTED_SITES_STRUCTURED`]).
fn unlisted_call_site_entries(supervisor: &LspSupervisor, unlisted: &[UnlistedCalls]) -> Vec<UnlistedCallSite> {
    let mut entries = Vec::new();
    for calls in unlisted {
        let caller = uri_line_label(supervisor, &calls.uri, calls.line0);
        let (caller_file, caller_line) =
            caller.rsplit_once(':').map_or((caller.clone(), 0), |(file, line)| (file.to_owned(), line.parse().unwrap_or(0)));
        for (sites, go_builtin) in [(&calls.sites, false), (&calls.go_builtins, true)] {
            for (line0, text, inside_macro) in sites {
                entries.push(UnlistedCallSite {
                    caller: calls.name.clone(),
                    caller_depth: calls.depth,
                    file: caller_file.clone(),
                    caller_line,
                    line: line0 + 1,
                    call: text.clone(),
                    go_builtin,
                    inside_macro: inside_macro.clone(),
                });
            }
        }
    }
    entries.truncate(UNLISTED_SITES_STRUCTURED);
    entries
}

enum WalkFailure {
    Request(&'static str, RequestFailure),
}

/// Prepares the hierarchy at `params` and follows it `depth` levels (breadth first).
fn walk(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    dir: &Direction,
    position: lsp_types::TextDocumentPositionParams,
    depth: usize,
    deadline: Instant,
) -> Result<Walk, WalkFailure> {
    let started = Instant::now();
    // The queried place, where the body is when the prepared item is a bodiless declaration.
    let queried_place = (position.text_document.uri.as_str().to_owned(), position.position.line, position.position.character);
    let prepared = prepare(server, dir, position, deadline).map_err(|failure| WalkFailure::Request(dir.prepare, failure))?;
    let mut walk = Walk {
        roots: Vec::new(),
        entries: Vec::new(),
        notes: Vec::new(),
        requests: 1,
        elapsed_ms: 0,
        unlisted: Vec::new(),
        aliases: Default::default(),
        dependent_roots_notes: Vec::new(),
        followed_notes: Vec::new(),
    };
    let encoding = server.position_encoding();
    let mut parsed_files = HashMap::new();
    for item in prepared {
        let mut root = node_from_item(item, 0);
        root.followed = Followed::Yes;
        walk.roots.push(root);
    }
    let follow_cap = supervisor.config().hierarchy_follow_cap;
    // Keys of every item asked (roots included): an item is followed once.
    let mut asked: HashSet<(String, u32, u32, String)> = walk.roots.iter().map(Node::key).collect();
    let root_keys = asked.clone();
    // The queried method's own `super.name(…)` call sites (file, 0-based line), left out below.
    let mut super_sites: HashSet<(String, u32)> = HashSet::new();
    // The parents of the current level: (index into roots when depth 1, else into entries).
    let mut parents: Vec<(usize, bool)> = (0..walk.roots.len()).map(|index| (index, true)).collect();
    let mut follows = 0usize;
    for level in 1..=depth {
        let mut level_nodes: Vec<Node> = Vec::new();
        let mut index_of: HashMap<(String, u32, u32, String), usize> = HashMap::new();
        for &(parent_index, is_root) in &parents {
            let parent = if is_root { &walk.roots[parent_index] } else { &walk.entries[parent_index] };
            let answer = match step(server, dir, &parent.item, deadline) {
                Ok(answer) => answer,
                Err(failure) if level == 1 => return Err(WalkFailure::Request(dir.step, failure)),
                Err(failure) => {
                    walk.notes.push(format!(
                        "note: depth {level}: {} for {} failed: {}",
                        dir.step,
                        parent.name,
                        failure.to_tool_error(server.id(), dir.step).message
                    ));
                    let parent = &mut walk.entries[parent_index];
                    parent.followed = Followed::Failed;
                    continue;
                }
            };
            walk.requests += 1;
            if dir.op == "outgoing_calls" {
                let ranges: Vec<lsp_types::Range> = answer.iter().flat_map(|(_, ranges)| ranges.iter().copied()).collect();
                let queried = (parent.depth == 0).then_some(&queried_place);
                walk.unlisted.push(unlisted_calls(supervisor.workspace_root(), parent, queried, &ranges, encoding, &mut parsed_files));
            }
            let parent_name = parent.name.clone();
            let parent_uri = parent.uri.clone();
            for (item, ranges) in answer {
                let mut node = node_from_item(item, level);
                // Incoming: the call ranges lie in the caller (the listed item); outgoing: in the
                // parent, which makes the calls.
                let site_uri = if dir.op == "outgoing_calls" { parent_uri.clone() } else { node.uri.clone() };
                let sites: Vec<CallSite> = ranges
                    .iter()
                    .map(|range| CallSite {
                        uri: site_uri.clone(),
                        line0: range.start.line,
                        character0: range.start.character,
                        callee: if dir.op == "outgoing_calls" { String::new() } else { parent_name.clone() },
                    })
                    .collect();
                let key = node.key();
                match index_of.get(&key) {
                    Some(&existing) => {
                        let merged = &mut level_nodes[existing];
                        if !merged.via.contains(&parent_name) {
                            merged.via.push(parent_name.clone());
                        }
                        for site in sites {
                            if !merged.call_sites.contains(&site) {
                                merged.call_sites.push(site);
                            }
                        }
                    }
                    None => {
                        node.via.push(parent_name.clone());
                        // Servers repeat identical ranges (typescript-language-server).
                        for site in sites {
                            if !node.call_sites.contains(&site) {
                                node.call_sites.push(site);
                            }
                        }
                        index_of.insert(key, level_nodes.len());
                        level_nodes.push(node);
                    }
                }
            }
            if Instant::now() >= deadline {
                break;
            }
        }
        // Order: workspace code first, then path, then line.
        let mut cache = SourceCache::new(supervisor);
        level_nodes.sort_by_cached_key(|node| {
            let place = cache.place(&node.uri, node.line0);
            (place.rank(), place.labeled(), node.line0, node.character0)
        });
        for node in &mut level_nodes {
            node.call_sites.sort_by_key(|site| (site.uri.clone(), site.line0, site.character0));
        }
        // Overloads of one name in one file reached through the same call sites are one entry.
        let mut merged: Vec<Node> = Vec::with_capacity(level_nodes.len());
        let mut overload_of: HashMap<(String, String, u64, String, Vec<CallSite>), usize> = HashMap::new();
        for node in level_nodes {
            let key = (node.uri.clone(), node.name.clone(), node.kind, node.via.join(","), node.call_sites.clone());
            match overload_of.get(&key) {
                Some(&first) => merged[first].overload_lines0.push(node.line0),
                None => {
                    overload_of.insert(key, merged.len());
                    merged.push(node);
                }
            }
        }
        let level_nodes = merged;
        // Which of this level's entries the next level follows.
        let mut next_parents = Vec::new();
        for mut node in level_nodes {
            // The queried method's own `super.name(…)` calls the base method, not itself:
            // tsserver answers a base and an override with one merged list (trial74 F2: an
            // override calling `super.setEndpoint(value)` was labelled "recursive").
            if dir.op == "incoming_calls" && root_keys.contains(&node.key()) {
                node.call_sites.retain(|site| {
                    let through_super = call_through_super(supervisor, site);
                    if through_super {
                        super_sites.insert((site.uri.clone(), site.line0));
                    }
                    !through_super
                });
                if node.call_sites.is_empty() {
                    continue;
                }
            }
            let place = cache.place(&node.uri, node.line0);
            node.followed = if place.rank() != PathClass::Workspace {
                Followed::Dependency
            } else if root_keys.contains(&node.key()) {
                Followed::Recursive
            } else if asked.contains(&node.key()) {
                Followed::Repeated
            } else if level == depth {
                Followed::DepthReached
            } else if Instant::now() >= deadline {
                Followed::Deadline
            } else if follows >= follow_cap {
                Followed::Cap
            } else {
                asked.insert(node.key());
                follows += 1;
                next_parents.push((walk.entries.len(), false));
                Followed::Yes
            };
            walk.entries.push(node);
        }
        if next_parents.is_empty() {
            break;
        }
        parents = next_parents;
        if Instant::now() >= deadline {
            for &(index, _) in &parents {
                walk.entries[index].followed = Followed::Deadline;
            }
            break;
        }
    }
    // Calls through names bound to the queried item (`const ok = ResultImpl.ok`): the call
    // hierarchy lists only calls of the item's own name (trial22 F2).
    if dir.op == "incoming_calls" && !walk.roots.is_empty() {
        let roots: Vec<(String, u32, u32)> = walk.roots.iter().map(|root| (root.uri.clone(), root.line0, root.character0)).collect();
        let sites: Vec<(String, u32, u32)> = walk
            .entries
            .iter()
            .filter(|entry| entry.depth == 1)
            .flat_map(|entry| entry.call_sites.iter().map(|site| (site.uri.clone(), site.line0, site.character0)))
            .collect();
        let listed: HashSet<(String, u32, u32)> = sites.iter().cloned().collect();
        walk.aliases = crate::lsp::call_aliases::follow_aliases(server, &roots, &sites, &listed, deadline);
        // Nor are they uses of it that the call hierarchy left out.
        walk.aliases.uses_not_listed.retain(|used| !super_sites.contains(&(used.uri.clone(), used.line0)));
        walk.requests += walk.aliases.requests;
    }
    walk.elapsed_ms = started.elapsed().as_millis();
    Ok(walk)
}

/// One root [`callers_in_dependent_roots`] asks: where (the definition's file and 0-based
/// position; `None`: the queried file and position) and whether it owns the definition.
struct RootAsk {
    root: PathBuf,
    at: Option<(PathBuf, u32, u32)>,
    owns_definition: bool,
}

/// The callers of the queried item in the project roots that depend on `server`'s root by path
/// (a downstream crate, a Go module that `replace`s this one by a directory): `server` never
/// loads their files, so their callers are in none of its answers (trial95 F4, trial98 F3,
/// trial102 F1: pflag's `VisitAll` had "14 callers", the consumer module's was the 15th). Each
/// such root's own server ([`LspSupervisor::server_for_root`], started if need be) prepares the
/// call hierarchy at the same position and its incoming calls whose caller lies in that root are
/// added at depth 1, marked [`Followed::OtherRoot`] (their own callers are not asked). One note
/// per root says what was searched and found, or why it was NOT searched. Asked in a root that
/// depends on another (a consumer module) about that root's function, the owning root's server
/// is asked too, at the definition (see
/// [`crate::lsp::sibling_roots::owning_root_of_definition`]; trial106 F2). Each root gets an
/// equal share of what is left before `deadline` (at least 2 s).
#[allow(clippy::too_many_arguments)]
fn callers_in_dependent_roots(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    dir: &Direction,
    path: &Path,
    resolved: &crate::lsp::position::ResolvedSymbol,
    depth: usize,
    walk: &mut Walk,
    deadline: Instant,
) {
    if walk.roots.is_empty() {
        return;
    }
    let dependents = supervisor.dependent_roots(server.id(), server.root());
    if dependents.scan_incomplete {
        walk.dependent_roots_notes.push(format!(
            "note: the scan for other {} roots that depend on {} stopped at its cap: a root beyond it was NOT searched for callers",
            server.id(),
            supervisor.display_path(server.root())
        ));
    }
    let this_root = supervisor.display_path(server.root());
    let callee = walk.roots[0].name.clone();
    // Each root asked: (root, the file and 0-based position to ask at, None: the queried one;
    // whether it owns the definition). Asked in a consumer about the library's function, the
    // library's own server lists the library's callers (trial106 F2: mux's `HandleFunc`, "1
    // caller, 3 call sites" of 73).
    let mut asks: Vec<RootAsk> =
        dependents.roots.iter().map(|root| RootAsk { root: root.clone(), at: None, owns_definition: false }).collect();
    let (queried_line0, queried_character) = resolved.lsp_position(server.position_encoding());
    if let Some((owner, definition, line0, character)) =
        crate::lsp::sibling_roots::owning_root_of_definition(supervisor, server, path, queried_line0, queried_character, deadline)
    {
        if !asks.iter().any(|ask| ask.root == owner) {
            asks.push(RootAsk { root: owner, at: Some((definition, line0, character)), owns_definition: true });
        }
    }
    let mut remaining = asks.len() as u32;
    for RootAsk { root, at, owns_definition } in &asks {
        let display = format!("{}/", supervisor.display_path(root));
        let share = deadline.saturating_duration_since(Instant::now()) / remaining.max(1);
        remaining = remaining.saturating_sub(1);
        let root_deadline = (Instant::now() + share.max(std::time::Duration::from_secs(2))).min(deadline.max(Instant::now()));
        let relation = if *owns_definition {
            format!("the project root that owns the definition, which {this_root} depends on by path")
        } else {
            format!("a project root that depends on {this_root} by path")
        };
        let not_searched = |why: String| {
            format!(
                "note: NOT searched: {display} — {relation}; callers there are not in this answer ({why}); next step: call lsp {{\"op\": \"incoming_calls\"}} on the function from a file of {display}"
            )
        };
        let ask_file: &Path = at.as_ref().map_or(path, |(file, _, _)| file.as_path());
        // typescript-language-server of a dependent package is asked at a call in its own
        // files (see `dependent_typescript_server_for_hierarchy`).
        let mut call_in_root: Option<(PathBuf, u32, u32)> = None;
        let given = if at.is_none() && server.id() == "typescript-language-server" {
            crate::lsp::sibling_roots::dependent_typescript_server_for_hierarchy(
                supervisor,
                root,
                ask_file,
                &resolved.cursor_identifier,
                root_deadline,
            )
            .map(|(lease, still_loading, call)| {
                call_in_root = call;
                (lease, still_loading)
            })
        } else {
            crate::lsp::sibling_roots::root_server_given(supervisor, server.id(), root, ask_file, root_deadline)
        };
        let ask_file: &Path = call_in_root.as_ref().map_or(ask_file, |(file, _, _)| file.as_path());
        let (lease, still_loading) = match given {
            Ok(given) => given,
            Err(why) => {
                walk.dependent_roots_notes.push(not_searched(why));
                continue;
            }
        };
        let consumer = &*lease.server;
        let (line0, character) = match (at, &call_in_root) {
            (Some((_, line0, character)), _) | (None, Some((_, line0, character))) => (*line0, *character),
            (None, None) => resolved.lsp_position(consumer.position_encoding()),
        };
        let position = lsp_types::TextDocumentPositionParams {
            text_document: lsp_types::TextDocumentIdentifier { uri: path_to_lsp_uri(ask_file) },
            position: lsp_types::Position { line: line0, character },
        };
        // Asked at a call in the dependent package's own files: only the queried function's item
        // counts (a local function of the same name is another one).
        let queried_line0 = resolved.lsp_position(server.position_encoding()).0;
        let same_function = |item: &lsp_types::CallHierarchyItem| {
            call_in_root.is_none()
                || (crate::lsp::uri::lsp_uri_to_path(&item.uri).is_some_and(|file| {
                    std::fs::canonicalize(&file).unwrap_or(file) == std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
                }) && item.range.start.line <= queried_line0
                    && queried_line0 <= item.range.end.line)
        };
        let prepared = match prepare(consumer, dir, position, root_deadline) {
            Ok(prepared) if prepared.iter().any(same_function) => prepared.into_iter().filter(same_function).collect::<Vec<_>>(),
            Ok(_) if call_in_root.is_some() => {
                walk.dependent_roots_notes.push(not_searched(format!(
                    "its {} answers the call hierarchy of a file of another package from that package's project only, and the call of `{}` found in {} prepared another function",
                    consumer.id(),
                    resolved.cursor_identifier,
                    supervisor.display_path(ask_file)
                )));
                continue;
            }
            Ok(_) => {
                walk.dependent_roots_notes.push(not_searched(format!("its {} prepared no call hierarchy item there", consumer.id())));
                continue;
            }
            Err(failure) => {
                walk.dependent_roots_notes.push(not_searched(failure.to_tool_error(consumer.id(), dir.prepare).message));
                continue;
            }
        };
        let canonical_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
        // (A root that holds this server's root, as a library holds its `consumer/` module:
        // the files of this server's root are its own answer's.)
        let canonical_this_root = std::fs::canonicalize(server.root()).unwrap_or_else(|_| server.root().to_path_buf());
        let holds_this_root = canonical_this_root.starts_with(&canonical_root);
        let in_root = |uri: &str| {
            crate::lsp::uri::uri_to_path(uri).is_some_and(|file| {
                let file = std::fs::canonicalize(&file).unwrap_or(file);
                file.starts_with(&canonical_root) && !(holds_this_root && file.starts_with(&canonical_this_root))
            })
        };
        let mut added: Vec<Node> = Vec::new();
        let mut failed: Option<String> = None;
        for item in &prepared {
            let answer = match step(consumer, dir, item, root_deadline) {
                Ok(answer) => answer,
                Err(failure) => {
                    failed = Some(failure.to_tool_error(consumer.id(), dir.step).message);
                    continue;
                }
            };
            for (item, ranges) in answer {
                let mut node = node_from_item(item, 1);
                if !in_root(&node.uri) {
                    continue;
                }
                node.followed = Followed::OtherRoot;
                node.via.push(callee.clone());
                let sites: Vec<CallSite> = ranges
                    .iter()
                    .map(|range| CallSite {
                        uri: node.uri.clone(),
                        line0: range.start.line,
                        character0: range.start.character,
                        callee: callee.clone(),
                    })
                    .collect();
                let key = node.key();
                let existing = added.iter_mut().find(|known| known.key() == key);
                let target = match existing {
                    Some(known) => known,
                    None => {
                        added.push(node);
                        added.last_mut().expect("just pushed")
                    }
                };
                for site in sites {
                    if !target.call_sites.contains(&site) {
                        target.call_sites.push(site);
                    }
                }
            }
        }
        added.retain(|node| !walk.entries.iter().any(|known| known.depth == 1 && known.key() == node.key()));
        if let Some(why) = &failed {
            if added.is_empty() {
                walk.dependent_roots_notes.push(not_searched(why.clone()));
                continue;
            }
        }
        added.sort_by_key(|node| (node.uri.clone(), node.line0, node.character0));
        for node in &mut added {
            node.call_sites.sort_by_key(|site| (site.uri.clone(), site.line0, site.character0));
        }
        let sites: usize = added.iter().map(|node| node.call_sites.len()).sum();
        let why_searched = if *owns_definition {
            format!("it owns the definition, and {this_root} depends on it by path")
        } else {
            format!("it depends on {this_root} by path")
        };
        let mut note = format!(
            "note: also searched {display} ({why_searched}) with its own {}: {} and {} in it are listed here (marked as found by its server)",
            consumer.id(),
            plural(added.len(), "caller"),
            plural(sites, "call site"),
        );
        note.push_str(&still_loading.unwrap_or_default());
        if let Some(why) = failed {
            note.push_str(&format!("; one of its requests failed: {why}"));
        }
        // Depth-1 entries come first in the walk (level by level).
        let at = walk.entries.iter().take_while(|entry| entry.depth == 1).count();
        walk.entries.splice(at..at, added);
        // Deeper: the callers this root holds of the callers followed in this server's root
        // (trial115 F1: logrus's `Entry.Bytes` at depth 2 missed the consumer's `Run`, a caller
        // of the depth-1 `String`, while the note said the consumer was searched).
        if !*owns_definition && depth > 1 {
            let (callers, sites, not_asked) = deeper_callers_in_root(consumer, dir, walk, depth, &in_root, root_deadline);
            let depths = if depth == 2 { "depth 2".to_owned() } else { format!("depths 2–{depth}") };
            note.push_str(&format!(
                "; at {depths}, {} and {} in it of the callers followed here",
                plural(callers, "caller"),
                plural(sites, "call site")
            ));
            if not_asked > 0 {
                note.push_str(&format!(
                    " — NOT asked for {} of the followed callers (the time or the cap of {DEEPER_CALLERS_ASKED_CAP} ran out): their callers in {display} are not in this answer",
                    not_asked
                ));
            }
        }
        walk.dependent_roots_notes.push(note);
    }
}

/// The entries another root's server found ([`Followed::OtherRoot`]: a consumer module's
/// callers, or the library's callers asked from the consumer) are followed, level by level up to
/// `depth`, by the server of the project root each lies in (started if need be): their callers
/// are added one level below, marked [`Followed::OtherRoot`] in turn (followed at the next
/// level), and the entry becomes [`Followed::OtherRootWalked`]; at the requested depth an
/// entry becomes [`Followed::OtherRootDepthReached`] (trial116 F1: semver's `Comparator::parse`,
/// a depth-1 caller asked from the downstream crate, was never followed, and the answer said
/// "the hierarchy ends here"; trial117 M1 the other way). A root whose server cannot be asked
/// leaves its entries [`Followed::OtherRoot`] with a note. Bounded by `deadline` and
/// [`DEEPER_CALLERS_ASKED_CAP`] entries.
fn follow_other_root_entries(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    dir: &Direction,
    depth: usize,
    walk: &mut Walk,
    deadline: Instant,
) {
    let mut leases: HashMap<PathBuf, Option<crate::lsp::supervisor::ServerLease>> = HashMap::new();
    let mut asked = 0usize;
    let mut not_asked = 0usize;
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let this_root = canonical(server.root());
    let root_of = |uri: &str| {
        let file = crate::lsp::uri::uri_to_path(uri)?;
        let root = crate::lsp::servers::find_root(server.definition(), supervisor.workspace_root(), &file).root?;
        Some((file, root))
    };
    for level in 1..=depth {
        if level == depth {
            for entry in walk.entries.iter_mut().filter(|entry| entry.depth == level && entry.followed == Followed::OtherRoot) {
                entry.followed = Followed::OtherRootDepthReached;
            }
            break;
        }
        // Found by another root's server, or followed here though another root owns it (a
        // library function asked from a consumer: this server knows its callers in the consumer
        // only, trial116 F1).
        let at_level: Vec<usize> = (0..walk.entries.len())
            .filter(|index| {
                let entry = &walk.entries[*index];
                entry.depth == level
                    && (entry.followed == Followed::OtherRoot
                        || (entry.followed == Followed::Yes && root_of(&entry.uri).is_some_and(|(_, root)| canonical(&root) != this_root)))
            })
            .collect();
        for index in at_level {
            let (name, uri, line0, character0) = {
                let entry = &walk.entries[index];
                (entry.name.clone(), entry.uri.clone(), entry.line0, entry.character0)
            };
            let Some((file, root)) = root_of(&uri) else { continue };
            if asked >= DEEPER_CALLERS_ASKED_CAP || Instant::now() >= deadline {
                not_asked += 1;
                continue;
            }
            let lease = leases.entry(canonical(&root)).or_insert_with(|| {
                crate::lsp::sibling_roots::root_server_given(supervisor, server.id(), &root, &file, deadline).ok().map(|(lease, _)| lease)
            });
            let Some(lease) = lease.as_ref() else {
                not_asked += 1;
                continue;
            };
            let owner = &*lease.server;
            if owner.sync_document(&file).is_err() {
                not_asked += 1;
                continue;
            }
            asked += 1;
            let position = lsp_types::TextDocumentPositionParams {
                text_document: lsp_types::TextDocumentIdentifier { uri: path_to_lsp_uri(&file) },
                position: lsp_types::Position { line: line0, character: character0 },
            };
            let Ok(prepared) = prepare(owner, dir, position, deadline) else {
                not_asked += 1;
                continue;
            };
            if walk.entries[index].followed == Followed::OtherRoot {
                walk.entries[index].followed = Followed::OtherRootWalked;
            }
            for item in &prepared {
                let Ok(answer) = step(owner, dir, item, deadline) else { continue };
                for (item, ranges) in answer {
                    let mut node = node_from_item(item, level + 1);
                    let sites = call_sites_from_ranges(&node.uri, &ranges, &name);
                    let key = node.key();
                    if merge_into_known_entry(walk, &key, node.depth, sites.clone(), &name).is_some() {
                        continue;
                    }
                    // Reached at another depth already (or the queried item itself): listed
                    // here too, as the walk lists a repeat, and not followed again.
                    let repeated = walk.entries.iter().any(|known| known.key() == key) || walk.roots.iter().any(|root| root.key() == key);
                    let in_workspace = crate::lsp::uri::uri_to_path(&node.uri)
                        .is_some_and(|path| canonical(&path).starts_with(canonical(supervisor.workspace_root())));
                    node.followed = if !in_workspace {
                        Followed::Dependency
                    } else if repeated {
                        Followed::Repeated
                    } else {
                        Followed::OtherRoot
                    };
                    node.via.push(name.clone());
                    node.call_sites = sites;
                    let at = walk.entries.iter().take_while(|entry| entry.depth <= node.depth).count();
                    walk.entries.insert(at, node);
                }
            }
        }
    }
    if not_asked > 0 {
        walk.dependent_roots_notes.push(format!(
            "note: NOT followed: {} found by another project root's server (the time or the cap of {DEEPER_CALLERS_ASKED_CAP} ran out, or that root's server could not be asked): their callers are not in this answer — call incoming_calls at one of them",
            plural(not_asked, "entry")
        ));
    }
}

/// Below depth 1 (gopls): the call sites listed under a followed Go method are classified by
/// gopls' definition at each, as [`separate_related_method_calls`] does at depth 1, and the
/// calls of another method (through an interface a concrete method implements, or of a method
/// gopls relates to an interface method through another interface) are taken out, with the
/// callers left with none and the entries only they led to (trial119 F1: `Clock.Now` at depth
/// 2 listed the standard library's callers of `(*timerCtx).String` through `fmt.Stringer`, and
/// `TestClock_Sleep`, which calls `Clock.Sleep` on a real clock, as a caller of
/// `(*Mock).Sleep`). One note counts what was taken out. Bounded by `deadline`.
fn separate_related_method_calls_below(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    depth: usize,
    walk: &mut Walk,
    deadline: Instant,
) {
    let mut leases: HashMap<PathBuf, Option<crate::lsp::supervisor::ServerLease>> = HashMap::new();
    let mut left_out: Vec<String> = Vec::new();
    let this_root = std::fs::canonicalize(server.root()).unwrap_or_else(|_| server.root().to_path_buf());
    for level in 1..depth {
        let followed: Vec<(String, String, u32, u32)> = walk
            .entries
            .iter()
            .filter(|entry| entry.depth == level && matches!(entry.followed, Followed::Yes | Followed::OtherRootWalked))
            .map(|entry| (entry.name.clone(), entry.uri.clone(), entry.line0, entry.character0))
            .collect();
        // The sites below carry their callee's name only: every followed entry of that name at
        // this level counts as the one a site calls (trial123 F1: logr's `Logger.Info` beside
        // another `Info` at depth 1; the calls of one were taken for calls of "another method").
        let declarations_named = |name: &str| -> Vec<(PathBuf, u32)> {
            followed
                .iter()
                .filter(|(other, _, _, _)| other == name)
                .filter_map(|(_, uri, line0, _)| {
                    let path = crate::lsp::uri::uri_to_path(uri)?;
                    Some((std::fs::canonicalize(&path).unwrap_or(path), *line0))
                })
                .collect()
        };
        let mut names_done: HashSet<String> = HashSet::new();
        for (name, uri, line0, character0) in followed.clone() {
            if !names_done.insert(name.clone()) {
                continue;
            }
            let same_named = declarations_named(&name);
            if Instant::now() >= deadline {
                return;
            }
            let Some(file) = crate::lsp::uri::uri_to_path(&uri) else { continue };
            if file.extension().is_none_or(|extension| extension != "go") {
                continue;
            }
            // The sites listed under it, one level below.
            let sites: Vec<lsp_types::Location> = walk
                .entries
                .iter()
                .filter(|entry| entry.depth == level + 1 && entry.via.contains(&name))
                .flat_map(|entry| entry.call_sites.iter().filter(|site| site.callee == name))
                .filter_map(|site| {
                    let uri = lsp_types::Uri::from_str(&site.uri).ok()?;
                    let start = lsp_types::Position { line: site.line0, character: site.character0 };
                    Some(lsp_types::Location { uri, range: lsp_types::Range { start, end: start } })
                })
                .collect();
            if sites.is_empty() {
                continue;
            }
            let root = crate::lsp::servers::find_root(server.definition(), supervisor.workspace_root(), &file)
                .root
                .map(|root| std::fs::canonicalize(&root).unwrap_or(root));
            let asked: &LanguageServer = match &root {
                Some(root) if *root != this_root => {
                    let lease = leases.entry(root.clone()).or_insert_with(|| {
                        crate::lsp::sibling_roots::root_server_given(supervisor, server.id(), root, &file, deadline)
                            .ok()
                            .map(|(lease, _)| lease)
                    });
                    match lease {
                        Some(lease) => &lease.server,
                        None => continue,
                    }
                }
                _ => server,
            };
            let Some(classes) =
                crate::lsp::go_method_uses::classify_method_uses(supervisor, asked, &file, line0, character0, &sites, deadline)
            else {
                continue;
            };
            // At an interface method, a static call of a method implementing it is no call of it
            // either (trial157 M2): its receiver is the concrete type.
            let is_left_out = |site: &CallSite| {
                let key = (site.uri.clone(), site.line0, site.character0);
                site.callee == name
                    && classes.related.contains_key(&key)
                    && !classes.related_declarations.get(&key).is_some_and(|declaration| same_named.contains(declaration))
            };
            for entry in walk.entries.iter().filter(|entry| entry.depth == level + 1 && entry.via.contains(&name)) {
                for site in entry.call_sites.iter().filter(|site| is_left_out(site)) {
                    if let Some((method, _)) = classes.related.get(&(site.uri.clone(), site.line0, site.character0)) {
                        left_out.push(format!(
                            "{} in `{}` → {method}, listed under `{name}`",
                            uri_line_label(supervisor, &site.uri, site.line0),
                            entry.name
                        ));
                    }
                }
            }
            take_out_call_sites(walk, level + 1, |entry| entry.via.contains(&name), &is_left_out);
        }
    }
    if !left_out.is_empty() {
        let count = left_out.len();
        let named = first_places(left_out);
        walk.notes.push(format!(
            "note: left out below depth 1: {} gopls gave under a Go method that {} another method (through an interface the method implements, or one gopls relates to it through another interface — such a call may dispatch to it at run time, as to every other implementation —, or, under an interface method, a static call of a method implementing it, whose receiver is the concrete type): {}",
            plural(count, "call site"),
            if count == 1 { "calls" } else { "call" },
            named.join("; ")
        ));
    }
}

/// `ranges` (a call hierarchy answer's `fromRanges` in the file of `uri`), each that ends with the
/// called `name` but starts before it narrowed to the name: tsserver gives a call in a method
/// chain the range from the chain's head to the method's name (`parsePort(input)\n.map(…)\n
/// .toString` for `toString`), and every call of one chain then stood at the chain's first
/// line — four `andThen` calls counted as one, and the calls inside the range taken as listed
/// (trial141 F2). A range whose text cannot be read, or that does not end with the name, is kept.
fn name_ranges_of_calls(server: &LanguageServer, uri: &lsp_types::Uri, ranges: Vec<lsp_types::Range>, name: &str) -> Vec<lsp_types::Range> {
    let short =
        |range: &lsp_types::Range| range.start.line == range.end.line && range.end.character - range.start.character <= name.len() as u32;
    if !name.is_ascii() || name.is_empty() || ranges.iter().all(short) {
        return ranges;
    }
    let Some(text) = crate::lsp::uri::lsp_uri_to_path(uri).and_then(|path| {
        server.document_text(&path).or_else(|| crate::files::read_workspace_file_to_string(server.workspace_root(), &path).ok())
    }) else {
        return ranges;
    };
    let lines: Vec<&str> = text.lines().collect();
    ranges
        .into_iter()
        .map(|range| {
            if short(&range) {
                return range;
            }
            let end = range.end.character as usize;
            let ends_with_name = lines
                .get(range.end.line as usize)
                .filter(|line| line.is_ascii() && end <= line.len() && end >= name.len())
                .is_some_and(|line| &line[end - name.len()..end] == name);
            if !ends_with_name {
                return range;
            }
            lsp_types::Range {
                start: lsp_types::Position { line: range.end.line, character: range.end.character.saturating_sub(name.len() as u32) },
                end: range.end,
            }
        })
        .collect()
}

/// The call sites of one step's answer entry: each range's start in the entry's file, calling
/// `callee` (the entry one depth up).
fn call_sites_from_ranges(uri: &str, ranges: &[lsp_types::Range], callee: &str) -> Vec<CallSite> {
    ranges
        .iter()
        .map(|range| CallSite {
            uri: uri.to_owned(),
            line0: range.start.line,
            character0: range.start.character,
            callee: callee.to_owned(),
        })
        .collect()
}

/// Merges `sites` (calling `callee`) into the entry already at `depth` with `key`, if there is
/// one: its new sites added and `callee` among what it relates to. `Some(sites added)` when
/// merged, `None` when no such entry is in the walk.
fn merge_into_known_entry(
    walk: &mut Walk,
    key: &(String, u32, u32, String),
    depth: usize,
    sites: Vec<CallSite>,
    callee: &str,
) -> Option<usize> {
    let known = walk.entries.iter_mut().find(|known| known.depth == depth && known.key() == *key)?;
    let mut added = 0;
    for site in sites {
        if !known.call_sites.contains(&site) {
            added += 1;
            known.call_sites.push(site);
        }
    }
    if !known.via.iter().any(|via| via == callee) {
        known.via.push(callee.to_owned());
    }
    Some(added)
}

/// tsserver at a class method that implements an interface member lists, as its callers, the
/// calls of every other implementation of that member and the calls through the interface
/// (trial129 F2: `f.createHref('/y')` on a `FakeHistory` among the callers of
/// `ServerHistory.createHref`). Each depth-1 call site, and each reference the hierarchy does not
/// list, is asked its definition: one that leads elsewhere than the queried class method is taken
/// out (a caller left with none goes, with the entries only it led to) and named in a note —
/// a call through the interface may still dispatch to the method at run time. Nothing is taken
/// out at a function or an interface member, nor where a definition gives no answer.
fn separate_typescript_class_method_calls(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    character: u32,
    walk: &mut Walk,
    deadline: Instant,
) {
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let Some((declaration_file, declaration_line, _)) =
        crate::lsp::rename_coverage::definition_targets(server, path, line0, character, deadline).into_iter().min()
    else {
        return;
    };
    let Some(root_name) = walk.roots.first().map(|root| root.name.clone()) else { return };
    let Ok(text) = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &declaration_file) else { return };
    let Some(parsed) = crate::lsp::syntax::ParsedSource::parse(&declaration_file, &text) else { return };
    let Some(owner) = parsed.typescript_member_owner_name(declaration_line, &root_name) else { return };
    let is_class = text.lines().any(|line| {
        let words: Vec<&str> =
            line.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).filter(|word| !word.is_empty()).collect();
        words.windows(2).any(|pair| pair[0] == "class" && pair[1] == owner)
    });
    if !is_class {
        return;
    }
    let declaration = (canonical(&declaration_file), declaration_line);
    // Another overload signature of the queried method (tsserver's definition gives the
    // signature a call resolves to): the same member (trial141 F1: true-myth's overloaded
    // `MaybeImpl.andThen` read "no callers", its 10 call sites set aside as calls of "another
    // declaration" — its own overloads, the queried line among them).
    let same_member = |target: &Path, line: u32| {
        canonical(target) == declaration.0 && parsed.typescript_member_owner_name(line, &root_name).as_deref() == Some(owner.as_str())
    };
    // The definition a place leads to: `Ok(None)` when it leads to the queried method, `Err(())`
    // when tsserver gave none.
    let mut retry_budget = DEFINITION_RETRY_BUDGET;
    let mut elsewhere = |uri: &str, site_line0: u32, site_character0: u32| -> Result<Option<String>, ()> {
        let file = crate::lsp::uri::uri_to_path(uri).ok_or(())?;
        let targets = listed_call_definition(server, &file, site_line0, site_character0, &mut retry_budget, deadline);
        if targets.is_empty() {
            return Err(());
        }
        if targets.iter().any(|(target, line, _)| (canonical(target), *line) == declaration || same_member(target, *line)) {
            return Ok(None);
        }
        let (target, line, _) = targets.into_iter().min().ok_or(())?;
        Ok(Some(crate::lsp::listing::ListedPath::new(supervisor.workspace_root(), &target).with_line(line + 1)))
    };
    let mut left: Vec<String> = Vec::new();
    let mut removed: HashSet<(String, u32, u32)> = HashSet::new();
    // Kept without their definition checked: tsserver gave none, or time ran out.
    let mut unanswered: Vec<String> = Vec::new();
    let mut not_asked = 0usize;
    for entry in walk.entries.iter().filter(|entry| entry.depth == 1) {
        for site in &entry.call_sites {
            if Instant::now() >= deadline {
                not_asked += 1;
                continue;
            }
            match elsewhere(&site.uri, site.line0, site.character0) {
                Ok(Some(target)) => {
                    left.push(format!("{} in `{}` → {target}", uri_line_label(supervisor, &site.uri, site.line0), entry.name));
                    removed.insert((site.uri.clone(), site.line0, site.character0));
                }
                Ok(None) => {}
                Err(()) => unanswered.push(format!("{} in `{}`", uri_line_label(supervisor, &site.uri, site.line0), entry.name)),
            }
        }
    }
    let mut unlisted_left = 0;
    let unlisted: Vec<(String, u32, u32)> =
        walk.aliases.uses_not_listed.iter().map(|use_| (use_.uri.clone(), use_.line0, use_.character0)).collect();
    for (uri, use_line0, use_character0) in unlisted {
        if Instant::now() < deadline && matches!(elsewhere(&uri, use_line0, use_character0), Ok(Some(_))) {
            removed.insert((uri, use_line0, use_character0));
            unlisted_left += 1;
        }
    }
    walk.notes.extend(unchecked_definitions_note(server.id(), "", &unanswered, not_asked));
    if left.is_empty() && unlisted_left == 0 {
        return;
    }
    take_out_call_sites(walk, 1, |_| true, &|site: &CallSite| removed.contains(&(site.uri.clone(), site.line0, site.character0)));
    walk.aliases.uses_not_listed.retain(|use_| !removed.contains(&(use_.uri.clone(), use_.line0, use_.character0)));
    let count = left.len();
    let named = first_places(left);
    walk.notes.push(format!(
        "note: left out of this answer: {} {} gave for the class method `{owner}.{}` whose definition is another declaration — another implementation of the member, or the interface member itself (a call through the interface may still reach `{owner}.{}` at run time){}{}",
        plural(count, "call site"),
        server.id(),
        root_name,
        root_name,
        if named.is_empty() { String::new() } else { format!(": {}", named.join("; ")) },
        if unlisted_left > 0 { format!("; and {} of its references that lead elsewhere are not listed as ways a call may reach it", unlisted_left) } else { String::new() }
    ));
}

/// Pause between two asks of a definition tsserver answered with nothing.
const DEFINITION_RETRY_PAUSE: std::time::Duration = std::time::Duration::from_millis(250);

/// Time one filter of call sites spends asking definitions again.
const DEFINITION_RETRY_BUDGET: std::time::Duration = std::time::Duration::from_secs(4);

/// The server's definition at a call site its call hierarchy listed (so one that leads
/// somewhere), asked again [`DEFINITION_RETRY_PAUSE`] apart while it answers nothing and
/// `retry_budget` lasts: tsserver answers `[]` to every request while it loads a project, as the
/// first lookup in a directory with a tsconfig of its own makes it do (trial145 F1: asked cold at
/// depth 3, `toString` kept the sibling class's calls in 2 runs of 5 — every definition below
/// depth 1 answered `[]`). Empty when it still gives none.
fn listed_call_definition(
    server: &LanguageServer,
    file: &Path,
    line0: u32,
    character0: u32,
    retry_budget: &mut std::time::Duration,
    deadline: Instant,
) -> HashSet<(PathBuf, u32, u32)> {
    let mut targets = crate::lsp::rename_coverage::definition_targets(server, file, line0, character0, deadline);
    while targets.is_empty() && !retry_budget.is_zero() && Instant::now() + DEFINITION_RETRY_PAUSE < deadline {
        std::thread::sleep(DEFINITION_RETRY_PAUSE);
        *retry_budget = retry_budget.saturating_sub(DEFINITION_RETRY_PAUSE);
        targets = crate::lsp::rename_coverage::definition_targets(server, file, line0, character0, deadline);
    }
    targets
}

/// The note naming the call sites a filter by definition kept unchecked (`where_`: empty at
/// depth 1, or " below depth 1"): `unanswered` (the server gave no definition) and `not_asked`
/// (time ran out). `None` when there are none.
fn unchecked_definitions_note(server_id: &str, where_: &str, unanswered: &[String], not_asked: usize) -> Option<String> {
    if unanswered.is_empty() && not_asked == 0 {
        return None;
    }
    let mut parts = Vec::new();
    if !unanswered.is_empty() {
        parts.push(format!(
            "{} {server_id} gave no definition for (it may still have been loading a project — ask again in a few seconds): {}",
            plural(unanswered.len(), "call site"),
            first_places(unanswered.to_vec()).join("; ")
        ));
    }
    if not_asked > 0 {
        parts.push(format!("{} not asked (time ran out)", plural(not_asked, "call site")));
    }
    Some(format!(
        "note: NOT checked against their definition{where_}: {} — kept as listed, though some may call another declaration of their callee's name (another implementation of an interface member, a built-in method)",
        parts.join("; ")
    ))
}

/// Below depth 1 of a TypeScript walk (`depth` > 1): tsserver's callers of a class method (an
/// entry followed at some level) include the calls of every other declaration it relates to the
/// method — another implementation of an interface member, the built-in `Set.add` / `Map.delete`
/// a class implementing `Set`/`Map` shares its names with (trial133 F1: mobx's `propagateChanged`
/// at depth 3 listed `addObserver` for `observers_.add(node)` on a native `Set`, 36 callers in
/// all). Each call site one level below a followed entry is asked its definition; one that leads
/// to no followed entry of its callee's name at that level is taken out (a caller left with none
/// goes, with what only it led to) and counted in a note. Sites whose definition gives no
/// answer (asked again a while, [`listed_call_definition`]) stay, named in a note; bounded by
/// `deadline`, and what was not asked is said.
fn separate_typescript_calls_below(supervisor: &LspSupervisor, server: &LanguageServer, depth: usize, walk: &mut Walk, deadline: Instant) {
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut left_out: Vec<String> = Vec::new();
    let mut not_asked = 0usize;
    let mut unanswered: Vec<String> = Vec::new();
    let mut retry_budget = DEFINITION_RETRY_BUDGET;
    let mut parsed_files: HashMap<PathBuf, Option<std::rc::Rc<crate::lsp::syntax::ParsedSource>>> = HashMap::new();
    for level in 1..depth {
        let mut declarations: HashMap<String, HashSet<(PathBuf, u32)>> = HashMap::new();
        for entry in walk.entries.iter().filter(|entry| entry.depth == level && matches!(entry.followed, Followed::Yes)) {
            if let Some(path) = crate::lsp::uri::uri_to_path(&entry.uri) {
                declarations.entry(entry.name.clone()).or_default().insert((canonical(&path), entry.line0));
            }
        }
        let mut removed: HashSet<(String, u32, u32, String)> = HashSet::new();
        for entry in walk.entries.iter().filter(|entry| entry.depth == level + 1) {
            for site in &entry.call_sites {
                let Some(known) = declarations.get(&site.callee) else { continue };
                if Instant::now() >= deadline {
                    not_asked += 1;
                    continue;
                }
                let Some(file) = crate::lsp::uri::uri_to_path(&site.uri) else { continue };
                let targets = listed_call_definition(server, &file, site.line0, site.character0, &mut retry_budget, deadline);
                if targets.is_empty() {
                    unanswered.push(format!(
                        "{} in `{}`, listed under `{}`",
                        uri_line_label(supervisor, &site.uri, site.line0),
                        entry.name,
                        site.callee
                    ));
                    continue;
                }
                // An overload signature of a known declaration (tsserver's definition gives the
                // signature a call resolves to, its hierarchy item the implementation): the same
                // file, a declaration of the same name on the target line, of the same owner (the
                // class or interface it is a member of, or none) as a known declaration there — a
                // sibling class's method of that name is another declaration (trial145 F1:
                // `Ok(true).expect(…)`, a call of `OkImpl.expect`, was listed under
                // `ErrImpl.expect`, declared in the same file).
                let mut overload_of_known = |target: &Path, line: u32| {
                    let target = canonical(target);
                    let known_lines: Vec<u32> =
                        known.iter().filter(|(known_file, _)| *known_file == target).map(|(_, known_line)| *known_line).collect();
                    if known_lines.is_empty() {
                        return false;
                    }
                    let Ok(text) = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &target) else { return false };
                    let declares = text.lines().nth(line as usize).is_some_and(|declaration| {
                        crate::lsp::rename_coverage::word_positions(declaration, &site.callee)
                            .iter()
                            .any(|at| declaration[at + site.callee.len()..].trim_start().starts_with(['(', '<']))
                    });
                    if !declares {
                        return false;
                    }
                    let parsed = parsed_files
                        .entry(target.clone())
                        .or_insert_with(|| crate::lsp::syntax::ParsedSource::parse(&target, &text).map(std::rc::Rc::new))
                        .clone();
                    let owner = |at: u32| parsed.as_ref().and_then(|parsed| parsed.typescript_member_owner_name(at, &site.callee));
                    let target_owner = owner(line);
                    known_lines.iter().any(|known_line| owner(*known_line) == target_owner)
                };
                if targets.iter().any(|(target, line, _)| known.contains(&(canonical(target), *line)) || overload_of_known(target, *line)) {
                    continue;
                }
                let Some((target, line, _)) = targets.into_iter().min() else { continue };
                left_out.push(format!(
                    "{} in `{}` → {}, listed under `{}`",
                    uri_line_label(supervisor, &site.uri, site.line0),
                    entry.name,
                    crate::lsp::listing::ListedPath::new(supervisor.workspace_root(), &target).with_line(line + 1),
                    site.callee
                ));
                removed.insert((site.uri.clone(), site.line0, site.character0, site.callee.clone()));
            }
        }
        if !removed.is_empty() {
            take_out_call_sites(walk, level + 1, |_| true, &|site: &CallSite| {
                removed.contains(&(site.uri.clone(), site.line0, site.character0, site.callee.clone()))
            });
        }
    }
    walk.notes.extend(unchecked_definitions_note(server.id(), " below depth 1", &unanswered, 0));
    if left_out.is_empty() && not_asked == 0 {
        return;
    }
    let count = left_out.len();
    let named = first_places(left_out);
    if count > 0 {
        walk.notes.push(format!(
            "note: left out below depth 1: {} {} gave under a method whose definition is another declaration of that name (another implementation of an interface member, a built-in `Set`/`Map` method, the interface member itself — a call through an interface may still reach the method at run time): {}",
            plural(count, "call site"),
            server.id(),
            named.join("; ")
        ));
    }
    if not_asked > 0 {
        walk.notes.push(format!(
            "note: {} below depth 1 were not checked against their definition (time ran out): some may call another declaration of their callee's name (a built-in `Set`/`Map` method, another implementation)",
            plural(not_asked, "call site")
        ));
    }
}

/// The notes for `incoming_calls` and `references` asked at a function's declaration (0-based
/// `line0` of `path`, its text `line_text`, named `name`) about the calls no server lists there:
/// a Python function's calls by a name its file builds and, at an override, the calls of the base
/// method; a Rust trait impl's method's calls through the trait. The file is read once; empty
/// elsewhere (a use, not a declaration; another language).
pub(crate) fn unlisted_dispatch_notes(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    line_text: &str,
    name: &str,
    deadline: Instant,
) -> Vec<String> {
    let extension = path.extension().and_then(|extension| extension.to_str()).unwrap_or("");
    let python = matches!(extension, "py" | "pyi") && line_text.contains(&format!("def {name}"));
    let rust = extension == "rs" && server.id() == "rust-analyzer" && declares_fn(line_text, name);
    if !python && !rust {
        return Vec::new();
    }
    let Ok(text) = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), path) else { return Vec::new() };
    if rust {
        return crate::lsp::tool::rust_trait_of_enclosing_impl(&text, line0)
            .map(|trait_name| rust_trait_dispatch_note(&trait_name, name, server.id()))
            .into_iter()
            .collect();
    }
    python_name_built_at_run_time_note(supervisor, path, &text, name, server.id())
        .into_iter()
        .chain(python_override_dispatch_note(supervisor, server, path, &text, line0, name, deadline))
        .collect()
}

/// Python, at a `def name` line of `path`: a note when a string in the file builds names starting
/// like `name` at run time (`getattr(self, f"_process_{…}")`): calls made by that name reach it
/// and no server lists them (trial132 F3: packaging's `_Validator._process_name`, "no callers",
/// called through `getattr(self, f"_process_{self.name}")`). `None` otherwise.
fn python_name_built_at_run_time_note(supervisor: &LspSupervisor, path: &Path, text: &str, name: &str, server_id: &str) -> Option<String> {
    let found =
        crate::lsp::rename::python_strings_building_name(std::iter::once((path, text)), name, &|path: &Path| supervisor.display_path(path));
    (!found.is_empty()).then(|| {
        format!(
            "note: NOT in this answer: calls by a name built at run time — `{name}` matches a name this file builds from a string ({}): a `getattr`, a registry or a dispatch by name may call it that way, and {server_id} lists no such call; read those lines before taking it for unused",
            found.iter().take(4).cloned().collect::<Vec<_>>().join(", ")
        )
    })
}

/// Python, at a `def name` line of a class method that overrides a method of its direct base
/// (a workspace class found by definition on the base's name): a note that the calls of the base
/// method on this class's instances (`self.name(…)` in the base's own methods, a template method)
/// reach it and are not in the answer (trial136 F1: sqlparse's `OutputPythonFilter._process`,
/// "no callers", called by `OutputFilter.process` as `self._process(…)`). `None` otherwise;
/// bounded by `deadline`.
fn python_override_dispatch_note(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    text: &str,
    line0: u32,
    name: &str,
    deadline: Instant,
) -> Option<String> {
    let parsed = crate::lsp::syntax::ParsedSource::parse(path, text)?;
    let class = parsed.python_class_of_method(line0, name)?;
    let encoding = server.position_encoding();
    for base in &class.bases {
        if Instant::now() >= deadline {
            return None;
        }
        let base_line = parsed.line_text(base.line0)?;
        let character = encoding.column_from_byte(base_line, base.byte_column);
        for (target_path, target_line, _) in crate::lsp::rename_coverage::definition_targets(server, path, base.line0, character, deadline)
        {
            if !target_path.starts_with(supervisor.workspace_root()) {
                continue;
            }
            let Ok(base_text) = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &target_path) else { continue };
            let Some(base_parsed) = crate::lsp::syntax::ParsedSource::parse(&target_path, &base_text) else { continue };
            let Some(base_class) = base_parsed.python_class_named_at(target_line) else { continue };
            let Some(member_line0) = base_class.methods.iter().find(|(member, _)| member == name).map(|(_, line0)| *line0) else {
                continue;
            };
            return Some(format!(
                "note: NOT in this answer: calls through the base — `{}.{name}` overrides `{}.{name}` ({}:{}), and the calls of `{}.{name}` on instances of `{}` (`self.{name}(…)` in the base's own methods included) reach it at run time, but {} lists only the calls it resolves to this override; ask at the base method for those",
                class.name,
                base_class.name,
                supervisor.display_path(&target_path),
                member_line0 + 1,
                base_class.name,
                class.name,
                server.id()
            ));
        }
    }
    None
}

/// Whether a Rust line declares a function named `name` (`fn name(`, `fn name<`): the whole
/// name, not a longer one it begins (`fn values` for `v`).
pub(crate) fn declares_fn(line: &str, name: &str) -> bool {
    crate::lsp::rename_coverage::word_positions(line, name).into_iter().any(|at| line[..at].ends_with("fn "))
}

/// The note for a query at a method of `impl Trait for …` (see `incoming_calls`, `references`):
/// the calls through the trait method are not in the answer, and where to ask for them.
fn rust_trait_dispatch_note(trait_name: &str, method: &str, server_id: &str) -> String {
    format!(
        "note: NOT in this answer: calls through the trait — this `{method}` implements `{trait_name}::{method}`, and calls made through the trait (generic code bounded by `{trait_name}`, `dyn {trait_name}`) reach it at run time, but {server_id} lists at an impl's method only the calls it resolves to this impl; ask at the trait's declaration of `{method}` for those"
    )
}

/// Up to 8 of `places`, then `and N more` for the rest: the list a note of left-out call sites
/// names.
fn first_places(places: Vec<String>) -> Vec<String> {
    let count = places.len();
    let mut named: Vec<String> = places.into_iter().take(8).collect();
    if count > 8 {
        named.push(format!("and {} more", count - 8));
    }
    named
}

/// Takes the call sites `is_out` says out of the entries at `depth` that `entries` selects: a
/// caller left with no call site goes, with the deeper entries it alone led to, and an entry that
/// keeps some no longer relates to a callee whose sites all went. Returns the names of the
/// callers that went.
fn take_out_call_sites(
    walk: &mut Walk,
    depth: usize,
    entries: impl Fn(&Node) -> bool,
    is_out: &dyn Fn(&CallSite) -> bool,
) -> HashSet<String> {
    let followed_before: HashSet<(String, u32, u32, String)> =
        walk.entries.iter().filter(|entry| matches!(entry.followed, Followed::Yes | Followed::OtherRootWalked)).map(Node::key).collect();
    let mut emptied: HashSet<String> = HashSet::new();
    for entry in walk.entries.iter_mut().filter(|entry| entry.depth == depth && entries(entry)) {
        let before = entry.call_sites.len();
        let gone: HashSet<String> = entry.call_sites.iter().filter(|site| is_out(site)).map(|site| site.callee.clone()).collect();
        entry.call_sites.retain(|site| !is_out(site));
        if entry.call_sites.len() == before {
            continue;
        }
        entry.via.retain(|via| !gone.contains(via) || entry.call_sites.iter().any(|site| site.callee == *via));
        if entry.call_sites.is_empty() {
            emptied.insert(entry.name.clone());
        }
    }
    walk.entries.retain(|entry| !(entry.depth == depth && entry.call_sites.is_empty() && emptied.contains(&entry.name)));
    let deepest = walk.entries.iter().map(|entry| entry.depth).max().unwrap_or(depth);
    for below in depth + 1..=deepest {
        let kept_above: HashSet<String> =
            walk.entries.iter().filter(|entry| entry.depth == below - 1).map(|entry| entry.name.clone()).collect();
        walk.entries.retain(|entry| entry.depth != below || entry.via.is_empty() || entry.via.iter().any(|via| kept_above.contains(via)));
        // A caller kept for another callee keeps none of the sites of one that went (trial133
        // F1: mobx's `watch` stayed at depth 2 for `setNewValue_` with its `s.add(1)`, a call of
        // the `ObservableSet.add` taken out at depth 1).
        for entry in walk.entries.iter_mut().filter(|entry| entry.depth == below && !entry.via.is_empty()) {
            entry.via.retain(|via| kept_above.contains(via));
            entry.call_sites.retain(|site| site.callee.is_empty() || kept_above.contains(&site.callee));
        }
    }
    // An entry "already followed above" whose followed place went is followed nowhere now.
    let followed_keys: HashSet<(String, u32, u32, String)> = walk
        .entries
        .iter()
        .filter(|entry| matches!(entry.followed, Followed::Yes | Followed::OtherRootWalked))
        .map(Node::key)
        .chain(walk.roots.iter().map(Node::key))
        .collect();
    for entry in walk.entries.iter_mut().filter(|entry| entry.followed == Followed::Repeated) {
        if followed_before.contains(&entry.key()) && !followed_keys.contains(&entry.key()) {
            entry.followed = Followed::RepeatedPlaceLeftOut;
        }
    }
    emptied
}

/// How many followed entries [`deeper_callers_in_root`] asks another root's server about.
const DEEPER_CALLERS_ASKED_CAP: usize = 40;

/// For a walk deeper than 1: each entry of `server`'s own root that the walk followed (depth 1
/// to `depth` − 1, [`Followed::Yes`]) is prepared at its position by `consumer`, the server of a
/// root that depends on it, and that server's callers lying in its root (`in_root`) are added one
/// level below, marked [`Followed::OtherRoot`] — level by level, so a caller found at depth 2 is
/// not asked again. Returns (callers added, call sites added, entries not asked: the cap of
/// [`DEEPER_CALLERS_ASKED_CAP`] or `deadline` reached first).
fn deeper_callers_in_root(
    consumer: &LanguageServer,
    dir: &Direction,
    walk: &mut Walk,
    depth: usize,
    in_root: &dyn Fn(&str) -> bool,
    deadline: Instant,
) -> (usize, usize, usize) {
    let followed: Vec<(usize, String, String, u32, u32)> = walk
        .entries
        .iter()
        .filter(|entry| entry.depth < depth && entry.followed == Followed::Yes)
        .map(|entry| (entry.depth, entry.name.clone(), entry.uri.clone(), entry.line0, entry.character0))
        .collect();
    let mut added_callers = 0;
    let mut added_sites = 0;
    let mut not_asked = 0;
    for (index, (entry_depth, name, uri, line0, character0)) in followed.iter().enumerate() {
        if index >= DEEPER_CALLERS_ASKED_CAP || Instant::now() >= deadline {
            not_asked += 1;
            continue;
        }
        let Some(file) = crate::lsp::uri::uri_to_path(uri) else { continue };
        if consumer.sync_document(&file).is_err() {
            not_asked += 1;
            continue;
        }
        let position = lsp_types::TextDocumentPositionParams {
            text_document: lsp_types::TextDocumentIdentifier { uri: path_to_lsp_uri(&file) },
            position: lsp_types::Position { line: *line0, character: *character0 },
        };
        let Ok(prepared) = prepare(consumer, dir, position, deadline) else {
            not_asked += 1;
            continue;
        };
        for item in &prepared {
            let Ok(answer) = step(consumer, dir, item, deadline) else { continue };
            for (item, ranges) in answer {
                let mut node = node_from_item(item, entry_depth + 1);
                if !in_root(&node.uri) {
                    continue;
                }
                node.followed = Followed::OtherRoot;
                node.via.push(name.clone());
                node.call_sites = call_sites_from_ranges(&node.uri, &ranges, name);
                let key = node.key();
                if let Some(added) = merge_into_known_entry(walk, &key, node.depth, node.call_sites.clone(), name) {
                    added_sites += added;
                    continue;
                }
                added_callers += 1;
                added_sites += node.call_sites.len();
                // After the last entry of its level or above (the walk stays level by level).
                let at = walk.entries.iter().take_while(|entry| entry.depth <= node.depth).count();
                walk.entries.insert(at, node);
            }
        }
    }
    (added_callers, added_sites, not_asked)
}

/// What a server that answers from an index of opened files cannot see: clangd without a
/// `compile_commands.json` indexes only the files opened so far (no background index).
fn index_note(server: &LanguageServer) -> Option<String> {
    (server.id() == "clangd" && !server.root().join("compile_commands.json").is_file()).then(|| {
        "note: clangd indexes the whole project only with a compile_commands.json at its root; with compile_flags.txt it knows the files opened so far, so callers and subtypes in other files are missing until they are opened (e.g. by an `lsp` call on them)".to_owned()
    })
}

fn followed_name(followed: Followed) -> &'static str {
    match followed {
        Followed::Yes => "followed",
        Followed::DepthReached => "depth reached",
        Followed::Dependency => "dependency code",
        Followed::Repeated => "already followed",
        Followed::Recursive => "recursive",
        Followed::Cap => "follow cap",
        Followed::Deadline => "deadline",
        Followed::Failed => "request failed",
        Followed::OtherRoot => "found by another root's server",
        Followed::OtherRootWalked => "followed by another root's server",
        Followed::OtherRootDepthReached => "depth reached",
        Followed::RepeatedPlaceLeftOut => "first place left out",
    }
}

/// The item's readable kind from its declaration: for Python, the whole `def` header (a
/// method's `self` may sit on the line after `def name(`: itsdangerous serializer.py:192).
fn readable_kind(node: &Node, place: &Place, cache: &mut SourceCache) -> &'static str {
    let extension = place.absolute().and_then(Path::extension).and_then(|e| e.to_str()).unwrap_or("").to_owned();
    let header = if place.quoted { cache.python_def_header(&node.uri, node.line0) } else { None };
    crate::lsp::outline::readable_kind_on_line(node.kind, &node.name, header.as_deref().unwrap_or(&place.text), &extension)
}

/// The kind and name an entry is labelled with: a method or interface method named with its
/// class or interface (`method Schema.__init__`, `interface method Timetable.Next`: mbatch item
/// 5, trial27b M10), and a Go outgoing callee that is a type — gopls lists a conversion
/// `byTime(c.entries)` as a call of the type — as `conversion to type byTime`.
fn member_label(kind: &'static str, node: &Node, op: &str, cache: &mut SourceCache) -> (&'static str, String) {
    let go = node.uri.ends_with(".go");
    if go && op == "outgoing_calls" && matches!(kind, "type" | "type alias") {
        return ("conversion to type", node.name.clone());
    }
    // A Go method is named with its receiver's type: `method FlagSet.VarPF`.
    if go && kind == "method" && !node.name.contains('.') {
        let line = cache.place(&node.uri, node.line0).text;
        if let Some(receiver) = crate::lsp::rename_public_api::go_method_receiver(&line) {
            return (kind, format!("{receiver}.{}", node.name));
        }
    }
    let python = node.uri.ends_with(".py") || node.uri.ends_with(".pyi");
    let qualifies = (python && kind == "method") || (go && kind == "interface method");
    match qualifies.then(|| cache.member_owner(&node.uri, node.line0)).flatten() {
        Some(owner) if !node.name.contains('.') => (kind, format!("{owner}.{}", node.name)),
        _ => (kind, node.name.clone()),
    }
}

type Rendered = (String, Vec<HierarchyEntry>, Option<Page>);

/// One source line of an entry's call sites: its place, the calls on it, the callees called
/// there, how many of them only name the function as a value, and the name the line binds the
/// function to (`const ok = Impl.ok`), whose calls are listed after the callers, and the Rust
/// macro whose arguments hold the name (`assert_write!(wtr, terminator, …)`), where the text
/// cannot tell a call from a value.
type SiteLine = (Place, usize, Vec<String>, usize, Option<String>, Option<String>);

/// How an incoming call site is labelled when the function is only named there.
const VALUE_REFERENCE: &str = "referenced as a value, not called";

/// What the source text at an incoming call site does with the function's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SiteUsage {
    /// The name is called: `(` follows it (after a Rust turbofish `::<…>`), a macro's `!`, a
    /// tagged template's `` ` ``, or a decorator's `@`, `new` or a JSX tag's `<` precedes it.
    Call,
    /// The name is passed or stored as a value (`.map(parse)`, `transform(s, lowercase, …)`):
    /// servers (rust-analyzer, tsserver) list such references among incoming calls.
    Value,
    /// The name is an argument of a Rust macro invocation (`assert_write!(wtr, terminator, …)`,
    /// the macro's name held): the server found the call in the expansion, which the source
    /// text does not show, so it is neither called out as a call nor as a value.
    InMacroArguments(String),
}

/// The usage at 0-based (`line0`, `character0`) of `uri` (server `encoding`), read from the file
/// (each file once per answer, through `files`; workspace files only, read beneath the root
/// `cache` holds open); `None` when the file or an identifier there cannot be read.
fn site_usage(
    files: &mut HashMap<String, Option<Vec<String>>>,
    cache: &SourceCache,
    uri: &str,
    line0: u32,
    character0: u32,
    encoding: crate::lsp::position::PositionEncoding,
) -> Option<SiteUsage> {
    let lines = file_lines(files, cache, uri)?;
    let line = lines.get(line0 as usize)?;
    let byte = encoding.byte_from_column(line, character0);
    let mut usage = usage_on_line(line, byte);
    // Type arguments that go on over the next lines (`createAction<\n  Array<…>\n>(…)`): the
    // `(` is read after them (trial137 F1: @reduxjs/toolkit's multi-line call "referenced as a
    // value, not called"). A name that ends its line is called only when the `(` opens a later
    // one: `export const produce: IProduce = immer.produce` reads the property (trial149 F1: it
    // was counted a call site, tsserver listing every `obj.f` it finds).
    if usage == Some(SiteUsage::Value) {
        let after_name = line.get(byte..).map(|rest| rest.trim_start_matches(crate::lsp::position::is_identifier_char).trim_start());
        if after_name.is_some_and(|after| after.is_empty() || after.starts_with('<') || after.starts_with("::<")) {
            let joined: String = lines[line0 as usize..].iter().take(TYPE_ARGUMENT_LINES).map(String::as_str).collect::<Vec<_>>().join(" ");
            usage = usage_on_line(&joined, byte);
        }
    }
    // `assert_write!(wtr, terminator, …)`: what reads as a value may be called in the expansion.
    if usage == Some(SiteUsage::Value) && uri.ends_with(".rs") {
        if let Some(name) = enclosing_macro_invocation(lines, line0 as usize, byte) {
            return Some(SiteUsage::InMacroArguments(name));
        }
    }
    usage
}

/// The lines of the file at `uri`, read once per answer through `files` (workspace files only,
/// beneath the root `cache` holds open); `None` when it cannot be read.
fn file_lines<'a>(files: &'a mut HashMap<String, Option<Vec<String>>>, cache: &SourceCache, uri: &str) -> Option<&'a Vec<String>> {
    files
        .entry(uri.to_owned())
        .or_insert_with(|| {
            let path = crate::lsp::uri::uri_to_path(uri)?;
            // In-workspace symlinks resolved first (as `SourceCache::place` does); the read follows none.
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            let text = cache.read_workspace_text(&path)?;
            Some(crate::lsp::position::split_lines(&text).into_iter().map(str::to_owned).collect())
        })
        .as_ref()
}

/// Whether the name starting at byte `start` of `line` is declared a TypeScript/JavaScript
/// accessor there (`get size()`, `static set value(v)`): reading or assigning its property runs
/// it, so each property access tsserver lists among its incoming calls is a call, and a name
/// assigned the property (`const n = box.size`) holds the value it returned, not the accessor.
pub(crate) fn declares_accessor(line: &str, start: usize) -> bool {
    let Some(before) = line.get(..start) else { return false };
    let after = line[start..].trim_start_matches(crate::lsp::position::is_identifier_char).trim_start();
    let trimmed = before.trim_end();
    after.starts_with('(')
        && trimmed.len() < before.len()
        && ["get", "set"].iter().any(|keyword| {
            trimmed
                .strip_suffix(keyword)
                .is_some_and(|head| !head.ends_with(crate::lsp::position::is_identifier_char) && !head.ends_with('.'))
        })
}

/// The names of the accessors among `nodes` ([`declares_accessor`]) that no other node of them
/// shares (a call site names its callee by name only), for telling their incoming sites calls.
fn accessor_names<'a>(
    files: &mut HashMap<String, Option<Vec<String>>>,
    cache: &SourceCache,
    nodes: impl Iterator<Item = &'a Node>,
    encoding: crate::lsp::position::PositionEncoding,
) -> HashSet<String> {
    let mut accessors = HashSet::new();
    let mut others = HashSet::new();
    for node in nodes {
        let accessor = file_lines(files, cache, &node.uri)
            .and_then(|lines| lines.get(node.line0 as usize))
            .is_some_and(|line| declares_accessor(line, encoding.byte_from_column(line, node.character0)));
        if accessor { &mut accessors } else { &mut others }.insert(node.name.clone());
    }
    accessors.retain(|name| !others.contains(name));
    accessors
}

/// How many lines (the call site's included) [`site_usage`] reads for type arguments that span
/// several lines before the call's `(`.
const TYPE_ARGUMENT_LINES: usize = 12;

/// How many lines above a call site [`enclosing_macro_invocation`] looks for the invocation's
/// opening bracket.
const MACRO_INVOCATION_LOOKBACK_LINES: usize = 30;

/// The name of the Rust macro invocation (`name!(…)`, `name![…]`, `name! {…}`) whose arguments
/// hold byte `byte` of 0-based line `line0` of `lines`, found by walking back over brackets at
/// most [`MACRO_INVOCATION_LOOKBACK_LINES`] lines (string literals and comments are not told
/// apart: a bracket inside one can hide an invocation, never invent one at a call's `(`).
pub(crate) fn enclosing_macro_invocation(lines: &[String], line0: usize, byte: usize) -> Option<String> {
    let mut depth = 0usize;
    let first = line0.saturating_sub(MACRO_INVOCATION_LOOKBACK_LINES);
    for index in (first..=line0).rev() {
        let line = lines.get(index)?;
        let upto = if index == line0 { line.get(..byte)? } else { line.as_str() };
        for (at, ch) in upto.char_indices().rev() {
            match ch {
                ')' | ']' | '}' => depth += 1,
                '(' | '[' | '{' if depth > 0 => depth -= 1,
                '(' | '[' | '{' => {
                    // The innermost open bracket: a macro's when `name!` (or `name! `) precedes it.
                    let before = upto[..at].trim_end();
                    let before = before.strip_suffix('!')?;
                    let name: String = before
                        .chars()
                        .rev()
                        .take_while(|c| crate::lsp::position::is_identifier_char(*c))
                        .collect::<Vec<char>>()
                        .into_iter()
                        .rev()
                        .collect();
                    return (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name);
                }
                // A statement boundary at depth 0 ends the search: the site is not in brackets.
                ';' if depth == 0 => return None,
                _ => {}
            }
        }
    }
    None
}

/// Whether the call at `site` is written `super.NAME(…)` (TypeScript/JavaScript, Python's
/// `super().NAME(…)` too): it calls the base class's method.
fn call_through_super(supervisor: &LspSupervisor, site: &CallSite) -> bool {
    let Some(path) = crate::lsp::uri::uri_to_path(&site.uri) else { return false };
    let Ok(text) = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path) else { return false };
    let Some(line) = text.lines().nth(site.line0 as usize) else { return false };
    // The site's character is UTF-16 for tsserver; a `super.` before a name is ASCII.
    let prefix: String =
        line.encode_utf16().take(site.character0 as usize).map(|unit| char::from_u32(u32::from(unit)).unwrap_or(' ')).collect();
    let before = prefix.trim_end();
    before.ends_with("super.") || before.ends_with("super().")
}

/// [`SiteUsage`] of the identifier starting at byte `start` of `line`.
pub(crate) fn usage_on_line(line: &str, start: usize) -> Option<SiteUsage> {
    let rest = line.get(start..)?;
    let name_length = rest.chars().take_while(|c| crate::lsp::position::is_identifier_char(*c)).map(char::len_utf8).sum::<usize>();
    if name_length == 0 {
        return None;
    }
    // A decorator calls its name, bare or qualified (`@retry`, `@utils.retry`, `@ns.Component`:
    // review44 BUG 2), with or without arguments.
    let mut before = line[..start].trim_end();
    while let Some(qualifier) = before.strip_suffix('.') {
        before = qualifier.trim_end_matches(crate::lsp::position::is_identifier_char);
    }
    if before.trim_end().ends_with('@') {
        return Some(SiteUsage::Call);
    }
    let mut after = rest[name_length..].trim_start();
    // A turbofish (`parse::<u8>(`) or TypeScript type arguments (`Result.ok<T, E>(v)`).
    let generic = after.strip_prefix("::<").or_else(|| after.strip_prefix('<').filter(|rest| !rest.starts_with(['=', '<'])));
    if let Some(generic) = generic {
        // Skip to its closing `>`.
        let mut depth = 1usize;
        let mut end = None;
        let mut previous = ' ';
        for (at, c) in generic.char_indices() {
            let arrow = previous == '=' || previous == '-';
            previous = c;
            match c {
                '<' => depth += 1,
                // `=>` and `->` inside the arguments (`ok<(v: string) => number>(…)`) close nothing.
                '>' if arrow => {}
                '>' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(at + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let turbofish = after.starts_with("::");
        let Some(end) = end else { return (!turbofish).then_some(SiteUsage::Value) };
        let skipped = generic.get(end..)?.trim_start();
        // `a < b && c > (d)` is a comparison, not type arguments: only `<…>(` counts as a call.
        if !turbofish && !skipped.starts_with('(') {
            return Some(SiteUsage::Value);
        }
        after = skipped;
    }
    // Go type arguments (`New[string, int](2)`: trial94 F3 read four such calls as values).
    if let Some(arguments) = after.strip_prefix('[') {
        let mut depth = 1usize;
        for (at, c) in arguments.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        let skipped = arguments[at + 1..].trim_start();
                        if skipped.starts_with('(') {
                            after = skipped;
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    let called = after.starts_with('(') || after.starts_with('`') || after.starts_with('!');
    // Nothing after the name on the line is no call by itself: `= obj.f` reads `f` (trial149
    // F1); [`site_usage`] reads the next lines for a `(` there.
    Some(if called || called_by_what_precedes(&line[..start]) { SiteUsage::Call } else { SiteUsage::Value })
}

/// Whether what precedes a name on its line (`before`, up to the name) calls it with no `(`
/// after it: `new F` / `new ns.F` (a constructor called without arguments) or a JSX element's
/// tag `<F …` / `<ns.F …`, whose props may follow on the next lines (tsserver lists both among
/// incoming calls).
fn called_by_what_precedes(before: &str) -> bool {
    let is_identifier_char = crate::lsp::position::is_identifier_char;
    // The qualifier `ns.` / `a.b.` of the name.
    let mut rest = before;
    while let Some(stripped) = rest.strip_suffix('.') {
        let qualifier = stripped.trim_end_matches(is_identifier_char);
        if qualifier.len() == stripped.len() {
            return false;
        }
        rest = qualifier;
    }
    let trimmed = rest.trim_end();
    if let Some(head) = trimmed.strip_suffix("new") {
        return trimmed.len() < rest.len() && !head.ends_with(is_identifier_char) && !head.ends_with('.');
    }
    let Some(head) = trimmed.strip_suffix('<') else { return false };
    // `a < f`, `Array<F>`, `x << f` are no tags: a tag opens where an expression or a child starts.
    let head = head.trim_end();
    head.is_empty()
        || head.ends_with(['(', '{', '[', ',', '=', ':', '?', '&', '|', '>', ';', '}'])
        || head.strip_suffix("return").is_some_and(|word| !word.ends_with(is_identifier_char))
}

/// The headline's part about direct calls the item's references show and its call hierarchy
/// does not list (empty when none): rust-analyzer lists no caller in the other crates of a test
/// module shared with `mod util;` (trial46 F2: "no callers" of semver's `prerelease`, called 20
/// times in two test crates).
fn unlisted_direct_calls_headline(aliases: &crate::lsp::call_aliases::AliasWalk) -> String {
    let direct = aliases.uses_not_listed.iter().filter(|used| used.role == crate::lsp::syntax::ReferenceRole::DirectCall).count();
    if direct == 0 {
        return String::new();
    }
    format!(
        " — INCOMPLETE: its references show {} that this call hierarchy does not list (in the note below)",
        plural(direct, "more direct call")
    )
}

/// The headline's part about calls through names bound to the queried item (empty when none).
fn alias_headline(aliases: &crate::lsp::call_aliases::AliasWalk) -> String {
    if aliases.aliases.is_empty() {
        return String::new();
    }
    let calls = aliases.call_count();
    let unfollowed = aliases.aliases.iter().filter(|alias| alias.not_followed.is_some()).count();
    let already_listed: usize = aliases.aliases.iter().map(|alias| alias.already_listed).sum();
    // No further call: the names were followed and their calls, if any, are the listed ones
    // (trial32 M1: "0 call sites … which this call hierarchy leaves out" beside the listed call).
    let mut text = if calls == 0 {
        format!(
            " — {} bound to it followed too: {} (listed below)",
            plural(aliases.aliases.len(), "other name"),
            if already_listed > 0 { "the calls through them are among those listed" } else { "no call through them" }
        )
    } else {
        format!(
            " — and {} through {} bound to it, which this call hierarchy leaves out (listed below)",
            plural(calls, "call site"),
            plural(aliases.aliases.len(), "other name")
        )
    };
    if unfollowed > 0 {
        text.push_str(&format!("; {unfollowed} of those names not followed, so more calls may reach it"));
    }
    text
}

/// Call-site lines listed per bound name; the rest are counted per file.
const ALIAS_SITES_SHOWN: usize = 8;

/// Call sites of bound names in `structuredContent` (all names together).
const ALIAS_SITES_STRUCTURED: usize = 200;

/// The `lsp` request that follows a bound name: the references of `name` at 0-based `line0` of
/// `uri` (`occurrence` as in [`crate::lsp::call_aliases::AliasCalls::occurrence`]).
fn alias_request(supervisor: &LspSupervisor, uri: &str, line0: u32, name: &str, occurrence: usize) -> String {
    let file = crate::lsp::uri::uri_to_path(uri).map_or_else(|| uri.to_owned(), |path| supervisor.display_path(&path));
    let mut request = serde_json::json!({"op": "references", "file": file, "line": line0 + 1, "symbol": name});
    if occurrence > 0 {
        request["occurrence"] = serde_json::json!(occurrence);
    }
    request.to_string()
}

/// The section listing the calls through names bound to the queried item, and its
/// `structuredContent` entries (see [`crate::lsp::call_aliases`]); `None` when no name was found.
fn render_aliases(
    supervisor: &LspSupervisor,
    server_id: &str,
    aliases: &crate::lsp::call_aliases::AliasWalk,
) -> Option<(String, Vec<AliasCallsEntry>)> {
    if aliases.aliases.is_empty() {
        return None;
    }
    let mut cache = SourceCache::new(supervisor);
    let mut out = format!(
        "calls through other names bound to it — {server_id}'s call hierarchy lists only calls of the function's own name; each name below was followed one level by its references, a call told by the `(` after the name:\n"
    );
    let mut entries = Vec::new();
    let mut structured_sites = 0usize;
    for alias in &aliases.aliases {
        let place = cache.place(&alias.uri, alias.line0);
        let binding = alias.kind.describe();
        let site_places: Vec<Place> = alias.calls.iter().map(|(uri, line0, _)| cache.place(uri, *line0)).collect();
        match &alias.not_followed {
            Some(reason) => out.push_str(&format!(
                "through `{}` — {}: {}   ({binding}) — NOT followed ({reason}): calls through it are not counted; ask {}\n",
                alias.name,
                place.located(),
                place.shown(),
                alias_request(supervisor, &alias.uri, alias.line0, &alias.name, alias.occurrence)
            )),
            None => {
                let mut per_file: Vec<(String, usize)> = Vec::new();
                for site in &site_places {
                    let label = site.labeled();
                    match per_file.iter_mut().find(|(file, _)| *file == label) {
                        Some((_, count)) => *count += 1,
                        None => per_file.push((label, 1)),
                    }
                }
                let files = if per_file.is_empty() {
                    String::new()
                } else {
                    format!(
                        " in {}: {}",
                        plural(per_file.len(), "file"),
                        per_file.iter().map(|(file, count)| format!("{file} {count}")).collect::<Vec<_>>().join(", ")
                    )
                };
                out.push_str(&format!(
                    "through `{}` — {}: {}   ({binding}): {}{files}\n",
                    alias.name,
                    place.located(),
                    place.shown(),
                    plural(alias.calls.len(), "call site")
                ));
                // One line per source line, several calls on it counted.
                let mut lines: Vec<(&Place, usize)> = Vec::new();
                for site in &site_places {
                    match lines.last_mut() {
                        Some((last, count)) if last.uri == site.uri && last.line == site.line => *count += 1,
                        _ => lines.push((site, 1)),
                    }
                }
                for (site, count) in lines.iter().take(ALIAS_SITES_SHOWN) {
                    let times = if *count > 1 { format!("   ({count} calls on this line)") } else { String::new() };
                    out.push_str(&format!("      {}: {}{times}\n", site.located(), site.shown()));
                }
                if let Some(notice) = crate::render::truncation_notice(ALIAS_SITES_SHOWN.min(lines.len()), lines.len(), "call-site lines") {
                    out.push_str(&format!("      {notice} (structuredContent `alias_calls` has up to {ALIAS_SITES_STRUCTURED})\n"));
                }
                if alias.already_listed > 0 {
                    out.push_str(&format!(
                        "      ({} through it already listed among the callers above)\n",
                        plural(alias.already_listed, "call")
                    ));
                }
                for (uri, line0, name, occurrence) in &alias.further {
                    out.push_str(&format!(
                        "      NOT followed: `{name}` at {} holds it in turn; calls through `{name}` are not counted — ask {}\n",
                        cache.place(uri, *line0).located(),
                        alias_request(supervisor, uri, *line0, name, *occurrence)
                    ));
                }
            }
        }
        let call_sites: Vec<ListedLocation> =
            site_places.iter().take(ALIAS_SITES_STRUCTURED.saturating_sub(structured_sites)).map(Place::to_location).collect();
        structured_sites += call_sites.len();
        entries.push(AliasCallsEntry {
            name: alias.name.clone(),
            binding: binding.to_owned(),
            location: place.to_location(),
            calls: alias.calls.len(),
            call_sites,
            already_listed: alias.already_listed,
            further_names: alias
                .further
                .iter()
                .map(|(uri, line0, name, _)| format!("{name} ({})", cache.place(uri, *line0).located()))
                .collect(),
            other_uses: alias.other_uses,
            not_followed: alias.not_followed.clone(),
        });
    }
    if let Some(failure) = &aliases.references_failed {
        out.push_str(&format!("note: the references of the queried item could not be asked ({failure}): names bound to it elsewhere (a `typeof` member, a renaming) may be missing above\n"));
    }
    Some((out.trim_end().to_owned(), entries))
}

/// References named per `incoming_calls` note; all go to `structuredContent` up to
/// [`ALIAS_SITES_STRUCTURED`].
const USES_NOT_LISTED_SHOWN: usize = 15;

/// The note naming the references of the function `name` (the queried one, or an entry a deeper
/// walk followed) that its call hierarchy does not list as call sites and that are no binding
/// (see `AliasWalk::uses_not_listed`), and their structured entries; no note when there are
/// none. `structured`: the answer's `uses_not_listed` holds them (the queried function's), which
/// a cut list then points to.
fn render_uses_not_listed(
    supervisor: &LspSupervisor,
    server_id: &str,
    name: &str,
    uses: &[crate::lsp::call_aliases::UseNotListed],
    structured: bool,
) -> (Option<String>, Vec<UseNotListedEntry>) {
    if uses.is_empty() {
        return (None, Vec::new());
    }
    let mut cache = SourceCache::new(supervisor);
    let through_expression = uses.iter().filter(|used| used.role == crate::lsp::syntax::ReferenceRole::CalledThroughExpression).count();
    let mut text = format!(
        "note: NOT in this answer as call sites: {} of `{name}` that {server_id}'s call hierarchy does not list{} — a call may reach it through them (a value passed on, stored or called through an expression); read them before relying on the callers above:",
        plural(uses.len(), "reference"),
        match through_expression {
            0 => String::new(),
            all if all == uses.len() => ", called through an expression".to_owned(),
            some => format!(", {some} of them called through an expression"),
        },
    );
    let mut entries = Vec::new();
    for (index, used) in uses.iter().enumerate() {
        let place = cache.place(&used.uri, used.line0);
        if index < USES_NOT_LISTED_SHOWN {
            text.push_str(&format!("\n      {}: {}   ({})", place.located(), place.shown(), used.role.describe()));
        }
        if index < ALIAS_SITES_STRUCTURED {
            entries.push(UseNotListedEntry { location: place.to_location(), role: used.role.describe().to_owned() });
        }
    }
    if let Some(notice) = crate::render::truncation_notice(USES_NOT_LISTED_SHOWN.min(uses.len()), uses.len(), "references") {
        if structured {
            text.push_str(&format!("\n      {notice} (structuredContent `uses_not_listed` has up to {ALIAS_SITES_STRUCTURED})"));
        } else {
            text.push_str(&format!("\n      {notice}"));
        }
    }
    (Some(text), entries)
}

/// What an entry in a file outside the workspace and its known dependency roots shows instead of
/// its name.
const OUTSIDE_NAME_NOT_SHOWN: &str = "(name not shown: outside the workspace and its known dependency roots)";

fn render(query: &Query<'_>, dir: &Direction, walk: &Walk, depth: usize, offset: usize) -> Result<Rendered, ToolError> {
    let supervisor = query.supervisor;
    let server_id = query.server.id();
    if walk.roots.is_empty() {
        let what = if dir.call_field.is_some() {
            "call hierarchy item (function or method)"
        } else {
            "type hierarchy item (class, struct or interface)"
        };
        let mut text = query.empty_answer(what, &format!("nothing for {}", dir.prepare));
        let extension = query.path.extension().and_then(|extension| extension.to_str()).unwrap_or("");
        let script = matches!(extension, "ts" | "tsx" | "mts" | "cts" | "js" | "jsx" | "mjs" | "cjs");
        // A Rust proc-macro entry point (`#[proc_macro_derive(Error)] pub fn derive_error(…)`):
        // rust-analyzer prepares no item for it, and code never calls it — the compiler does,
        // where the macro is used; its own calls are in its body (trial175 M5: the TypeScript
        // hint below sent the agent to its references).
        let proc_macro = extension == "rs" && dir.call_field.is_some() && {
            let text = SourceCache::new(supervisor).read_workspace_text(&query.path).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            let line0 = query.resolved.line.saturating_sub(1) as usize;
            (0..line0.min(lines.len()))
                .rev()
                .map_while(|above| lines.get(above).map(|line| line.trim()))
                .take_while(|line| line.starts_with("#[") || line.starts_with("///") || line.is_empty())
                .any(|line| line.starts_with("#[proc_macro") && !line.starts_with("#[proc_macro_error"))
        };
        if proc_macro {
            text.push_str(&format!(
                "; `{}` is a proc-macro entry point (`#[proc_macro…]`), for which {server_id} prepares no call hierarchy item: no code calls it — the compiler runs it where the macro is used — and its own calls are the calls in its body (read them with lsp {{\"op\": \"outline\"}} or the file)",
                query.resolved.cursor_identifier
            ));
        }
        // A function stored in a property or variable (`getColumn: columnId => …`,
        // `createRow?: (row, table) => void`) is no call hierarchy item for tsserver: its uses
        // are still its references (trial33 M7).
        if dir.call_field.is_some() && script {
            let request = serde_json::json!({
                "op": "references",
                "file": supervisor.display_path(&query.path),
                "line": query.resolved.line,
                "symbol": query.resolved.cursor_identifier,
            });
            text.push_str(&format!(
                "; a function held by a property or variable (an arrow function, a method signature) is no call hierarchy item for {server_id}: its calls are among its references — call lsp with {request}"
            ));
        }
        return Ok((text, Vec::new(), None));
    }
    let mut cache = SourceCache::new(supervisor);
    let mut site_source: HashMap<String, Option<Vec<String>>> = HashMap::new();
    let encoding = query.server.position_encoding();
    let root_names: Vec<String> = walk
        .roots
        .iter()
        .map(|root| {
            let place = cache.place(&root.uri, root.line0);
            let (kind, name) = member_label(readable_kind(root, &place, &mut cache), root, dir.op, &mut cache);
            format!("{kind} {name} ({})", place.located())
        })
        .collect();
    let places: Vec<Place> = walk.entries.iter().map(|node| cache.place(&node.uri, node.line0)).collect();
    let total = walk.entries.len();
    let mut tally = PathTally::default();
    places.iter().filter_map(|place| place.path.as_ref()).for_each(|path| tally.add(path));
    let sites_total: usize = walk.entries.iter().map(|node| node.call_sites.len()).sum();
    let mut per_level: BTreeMap<usize, (usize, HashSet<String>)> = BTreeMap::new();
    for (node, place) in walk.entries.iter().zip(&places) {
        let entry = per_level.entry(node.depth).or_default();
        entry.0 += 1;
        entry.1.insert(place.labeled());
    }
    let mut per_file: HashMap<(usize, String), usize> = HashMap::new();
    for (node, place) in walk.entries.iter().zip(&places) {
        *per_file.entry((node.depth, place.labeled())).or_default() += 1;
    }
    let deepest = per_level.keys().next_back().copied().unwrap_or(0);
    let of = root_names.join(", ");
    let mut out = String::new();
    if total == 0 {
        let none = match dir.op {
            "incoming_calls" => "no callers",
            "outgoing_calls" => "no calls",
            "supertypes" => "no supertypes",
            _ => "no subtypes",
        };
        out.push_str(&format!("{server_id} reports {none} of {of}"));
        if dir.op == "subtypes" || dir.op == "incoming_calls" {
            out.push_str(" in the code it has indexed");
            out.push_str(&alias_headline(&walk.aliases));
            out.push_str(&unlisted_direct_calls_headline(&walk.aliases));
            if let Some(note) = index_note(query.server) {
                out.push_str(&format!("\n{note}"));
            }
        }
        let page = Page::new(0, 0, 1, dir.noun)?;
        return Ok((out, Vec::new(), Some(page)));
    }
    let depth_text = if depth == 1 { String::new() } else { format!(", {} deep (asked {depth})", plural(deepest, "level")) };
    // Incoming sites that only name the function (`this.safeParse.bind(this)`) are no calls: the
    // headline counts them apart (trial30 M7: zod's `safeParse` had "119 call sites", 117 calls).
    // An accessor's sites are property accesses, each running it (`box.size`).
    let accessors: HashSet<String> = if dir.op == "incoming_calls" {
        accessor_names(&mut site_source, &cache, walk.roots.iter().chain(&walk.entries), encoding)
    } else {
        HashSet::new()
    };
    let value_sites: usize = if dir.op == "incoming_calls" {
        walk.entries
            .iter()
            .flat_map(|node| node.call_sites.iter())
            .filter(|site| {
                cache.place(&site.uri, site.line0).quoted
                    && !accessors.contains(&site.callee)
                    && site_usage(&mut site_source, &cache, &site.uri, site.line0, site.character0, encoding) == Some(SiteUsage::Value)
            })
            .count()
    } else {
        0
    };
    let sites_text = match (dir.call_field.is_some(), value_sites) {
        (false, _) => String::new(),
        (true, 0) => format!(", {}", plural(sites_total, "call site")),
        (true, values) => format!(", {} ({} of them {VALUE_REFERENCE})", plural(sites_total, "call site"), values),
    };
    let extra = format!("{sites_text}{depth_text}");
    out.push_str(&format!(
        "{} of {of}: {}{}{}\n",
        dir.what,
        counted(total, dir.noun, &extra, !sites_text.is_empty(), &tally),
        alias_headline(&walk.aliases),
        unlisted_direct_calls_headline(&walk.aliases)
    ));
    let page = Page::new(total, offset, supervisor.config().hierarchy_cap, &format!("{}s", dir.noun))?;
    // TypeScript/JavaScript: a whole-file caller whose calls sit inside function expressions
    // assigned to members (`Effect.prototype._callback = function () {…}`), which tsserver's call
    // hierarchy names by the file: those members, as written, with where their names are
    // (trial121 M1, F2: "(the file's top-level code) … outside any named function or method", and
    // "the hierarchy ends here" two levels short).
    // The files of whole-file entries, parsed once for both readings below.
    let mut parsed: HashMap<String, Option<crate::lsp::syntax::ParsedSource>> = HashMap::new();
    let member_functions: HashMap<usize, Vec<(String, u32, u32)>> = if dir.op == "incoming_calls" {
        walk.entries
            .iter()
            .enumerate()
            .filter(|(_, node)| matches!(node.kind, 1 | 2) && node.item.range.start.line == 0 && node.line0 == 0)
            .filter_map(|(index, node)| {
                let source = parsed.entry(node.uri.clone()).or_insert_with(|| {
                    let path = crate::lsp::uri::uri_to_path(&node.uri)?;
                    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path).ok()?;
                    crate::lsp::syntax::ParsedSource::parse(&path, &text)
                });
                let source = source.as_ref()?;
                let mut members: Vec<(String, u32, u32)> = Vec::new();
                for site in &node.call_sites {
                    let Some(line) = source.line_text(site.line0) else { continue };
                    let byte = encoding.byte_from_column(line, site.character0);
                    if let Some(member) = source.typescript_member_function_at(site.line0, byte) {
                        if !members.contains(&member) {
                            members.push(member);
                        }
                    }
                }
                (!members.is_empty()).then_some((index, members))
            })
            .collect()
    } else {
        HashMap::new()
    };
    // The other whole-file entries: the named functions that hold each call by the syntax tree
    // (`ColumnFiltering.createColumn` → `column.setFilterValue`), as one chain per distinct
    // place with the first call's 0-based line, and whether some call stands outside any named
    // function (trial168 M3: every call in a feature object's methods was "the file's top-level
    // code … outside any named function or method").
    let enclosing_functions: HashMap<usize, (Vec<(String, u32)>, bool)> = if dir.op == "incoming_calls" {
        walk.entries
            .iter()
            .enumerate()
            .filter(|(index, node)| {
                matches!(node.kind, 1 | 2) && node.item.range.start.line == 0 && node.line0 == 0 && !member_functions.contains_key(index)
            })
            .filter_map(|(index, node)| {
                let source = parsed.entry(node.uri.clone()).or_insert_with(|| {
                    let path = crate::lsp::uri::uri_to_path(&node.uri)?;
                    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path).ok()?;
                    crate::lsp::syntax::ParsedSource::parse(&path, &text)
                });
                let source = source.as_ref()?;
                let mut chains: Vec<(String, u32)> = Vec::new();
                let mut outside_any = false;
                for site in &node.call_sites {
                    let Some(line) = source.line_text(site.line0) else { continue };
                    let byte = encoding.byte_from_column(line, site.character0);
                    let names = source.typescript_enclosing_function_names(site.line0, byte);
                    if names.is_empty() {
                        outside_any = true;
                        continue;
                    }
                    let chain = names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(" → ");
                    if !chains.iter().any(|(known, _)| *known == chain) {
                        chains.push((chain, site.line0));
                    }
                }
                (!chains.is_empty()).then_some((index, (chains, outside_any)))
            })
            .collect()
    } else {
        HashMap::new()
    };
    let mut results = Vec::new();
    let mut current_level: Option<usize> = None;
    let mut current_file: Option<String> = None;
    for index in page.range() {
        let node = &walk.entries[index];
        let place = &places[index];
        if current_level != Some(node.depth) {
            let (count, files) = &per_level[&node.depth];
            let whose = if node.depth == 1 { of.clone() } else { format!("the depth-{} {}s", node.depth - 1, dir.noun) };
            out.push_str(&format!(
                "depth {} — {} of {whose} in {}{}:\n",
                node.depth,
                plural(*count, dir.noun),
                plural(files.len(), "file"),
                if index > 0 && walk.entries[index - 1].depth == node.depth { " (continued)" } else { "" }
            ));
            current_level = Some(node.depth);
            current_file = None;
        }
        let labeled = place.labeled();
        if current_file.as_deref() != Some(labeled.as_str()) {
            let count = per_file.get(&(node.depth, labeled.clone())).copied().unwrap_or(0);
            out.push_str(&format!("{labeled} ({count}):\n"));
            current_file = Some(labeled);
        }
        let kind = readable_kind(node, place, &mut cache);
        // An item in a file outside the workspace and its known dependency roots: its name and
        // detail are that file's content, named by path only (as its lines are not quoted).
        let outside_unknown = place.path.is_some() && !place.quoted;
        let (kind, name) =
            if outside_unknown { (kind, OUTSIDE_NAME_NOT_SHOWN.to_owned()) } else { member_label(kind, node, dir.op, &mut cache) };
        let mut annotations = vec![if outside_unknown { kind.to_string() } else { format!("{kind} {name}") }];
        if !node.overload_lines0.is_empty() {
            let lines: Vec<String> = node.overload_lines0.iter().map(|line0| (line0 + 1).to_string()).collect();
            // Overloads, or alternatives in other branches (`if …: def f()` / `else: def f()`):
            // either way more definitions of the name (trial38 M7).
            annotations.push(format!(
                "{} of the name at lines {} (overloads, or alternatives in other branches)",
                plural(node.overload_lines0.len(), "more definition"),
                lines.join(", ")
            ));
        }
        if node.depth > 1 || walk.roots.len() > 1 {
            annotations.push(format!("{} {}", dir.relation, node.via.join(", ")));
        }
        match node.followed {
            Followed::Yes | Followed::DepthReached => {}
            Followed::Repeated => annotations.push("already followed above; not followed again".to_owned()),
            Followed::Recursive => annotations.push("recursive: the queried item itself".to_owned()),
            Followed::Dependency if outside_unknown => {
                annotations.push("outside the workspace and its known dependency roots; not followed".to_owned())
            }
            Followed::Dependency => annotations.push("dependency code; not followed".to_owned()),
            Followed::Cap => annotations.push("not followed: follow cap reached".to_owned()),
            Followed::Deadline => annotations.push("not followed: out of time".to_owned()),
            Followed::Failed => annotations.push("not followed: the request failed".to_owned()),
            Followed::OtherRoot => annotations.push("in another project root, found by its own server; not followed".to_owned()),
            Followed::OtherRootWalked => annotations.push("in another project root, found and followed by its own server".to_owned()),
            Followed::OtherRootDepthReached => annotations.push("in another project root, found by its own server".to_owned()),
            Followed::RepeatedPlaceLeftOut => annotations.push(
                "not followed: it was followed where it first appeared, a place this answer leaves out (see the notes) — its callers are not listed; ask at it".to_owned(),
            ),
        }
        // A caller that is a whole file (tsserver and pyright name the module for calls made
        // outside any named function, e.g. in a callback passed at top level): its line 1 is
        // no caller's line, and quoting it (`import * as core …`) read as the call (trial31 M7).
        let whole_file = matches!(node.kind, 1 | 2) && node.item.range.start.line == 0 && node.line0 == 0 && node.item.range.end.line > 0;
        let members = member_functions.get(&index);
        if whole_file && !outside_unknown {
            annotations[0] = match members {
                Some(members) => format!(
                    "{kind} {name}: {server_id} names the file for calls inside function expressions assigned to members — here {}; ask incoming_calls at the member's name for its callers",
                    members
                        .iter()
                        .map(|(member, line0, _)| format!("`{member}` ({}:{})", place.labeled(), line0 + 1))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => match enclosing_functions.get(&index) {
                    Some((chains, outside_any)) => format!(
                        "{kind} {name}: {server_id} names the file for these calls, yet by the syntax tree {} inside a function it does not name as a caller — {}{}; ask incoming_calls at the innermost name for its callers",
                        if *outside_any { "some lie" } else { "each lies" },
                        chains.iter().map(|(chain, line0)| format!("in {chain} (line {})", line0 + 1)).collect::<Vec<_>>().join(", "),
                        if *outside_any { "; the others stand outside any named function (top-level statements or callbacks passed at the top level)" } else { "" }
                    ),
                    None => format!("{kind} {name}: its top-level code — the calls below stand outside any named function or method (in callbacks or statements at the top level)"),
                },
            };
        }
        let source = if whole_file {
            match (members, enclosing_functions.get(&index)) {
                (Some(members), _) => {
                    format!("(inside {})", members.iter().map(|(member, _, _)| format!("`{member}`")).collect::<Vec<_>>().join(", "))
                }
                (None, Some((chains, outside_any))) => format!(
                    "(inside {}{}; a function expression {server_id} shows as the file)",
                    chains.iter().map(|(chain, _)| chain.as_str()).collect::<Vec<_>>().join(", "),
                    if *outside_any { ", and top-level code" } else { "" }
                ),
                (None, None) => "(the file's top-level code)".to_owned(),
            }
        } else if place.text.is_empty() {
            name.clone()
        } else {
            place.text.clone()
        };
        let entry_line = |annotations: &[String]| format!("  {}: {source}   [{}]\n", place.line, annotations.join("; "));
        // Call sites, one line each (several calls on one line counted), with the incoming
        // sites that only name the function (`.map(parse)`) told apart from calls.
        let mut site_lines: Vec<SiteLine> = Vec::new();
        for site in &node.call_sites {
            let site_place = cache.place(&site.uri, site.line0);
            let usage = (dir.op == "incoming_calls" && site_place.quoted && !accessors.contains(&site.callee))
                .then(|| site_usage(&mut site_source, &cache, &site.uri, site.line0, site.character0, encoding))
                .flatten();
            let as_value = usize::from(usage == Some(SiteUsage::Value));
            let in_macro = match usage {
                Some(SiteUsage::InMacroArguments(name)) => Some(name),
                _ => None,
            };
            let binds = (as_value > 0).then(|| walk.aliases.bound_at(&site.uri, site.line0).map(|alias| alias.name.clone())).flatten();
            match site_lines.last_mut() {
                Some((last, count, callees, values, _, macro_name)) if last.uri == site_place.uri && last.line == site_place.line => {
                    *count += 1;
                    *values += as_value;
                    if macro_name.is_none() {
                        *macro_name = in_macro;
                    }
                    if !callees.contains(&site.callee) {
                        callees.push(site.callee.clone());
                    }
                }
                _ => site_lines.push((site_place, 1, vec![site.callee.clone()], as_value, binds, in_macro)),
            }
        }
        let entry_values: usize = site_lines.iter().map(|(_, _, _, values, _, _)| values).sum();
        if entry_values > 0 {
            let entry_sites: usize = site_lines.iter().map(|(_, count, _, _, _, _)| count).sum();
            let mut bound: Vec<String> = Vec::new();
            for name in site_lines.iter().filter_map(|(_, _, _, _, binds, _)| binds.as_ref()) {
                let name = format!("`{name}`");
                if !bound.contains(&name) {
                    bound.push(name);
                }
            }
            let binds = if bound.is_empty() {
                String::new()
            } else {
                format!(
                    "; it binds {} — calls through {} are listed after the callers",
                    bound.join(", "),
                    if bound.len() == 1 { "it" } else { "them" }
                )
            };
            annotations.push(if entry_values == entry_sites && bound.is_empty() {
                format!("{VALUE_REFERENCE}: no call site calls it here")
            } else if entry_values == entry_sites {
                format!("{VALUE_REFERENCE} here{binds}")
            } else {
                format!("{} of {} {VALUE_REFERENCE}{binds}", entry_values, plural(entry_sites, "site"))
            });
        }
        out.push_str(&entry_line(&annotations));
        let mut sites = Vec::new();
        for (shown, (site_place, count, callees, values, binds, macro_name)) in site_lines.iter().enumerate() {
            let times = match (*count, callees.len()) {
                (1, _) => String::new(),
                (count, 2..) => format!("   ({count} calls on this line: {})", callees.join(", ")),
                (count, _) => format!("   ({count} calls on this line)"),
            };
            let binds = binds.as_ref().map(|name| format!(": binds `{name}`, calls through it listed below")).unwrap_or_default();
            let usage = match (*values, *count) {
                (0, _) if macro_name.is_some() => format!(
                    "   (inside the arguments of `{}!`: the server found the call in the macro's expansion, which this line does not show)",
                    macro_name.as_deref().unwrap_or_default()
                ),
                (0, _) => String::new(),
                (values, count) if values == count => format!("   ({VALUE_REFERENCE}{binds})"),
                (values, _) => format!("   ({values} of them {VALUE_REFERENCE}{binds})"),
            };
            if shown < CALL_SITES_SHOWN {
                let location = if site_place.uri == node.uri { site_place.line.to_string() } else { site_place.located() };
                out.push_str(&format!("      {location}: {}{times}{usage}\n", site_place.shown()));
            }
            sites.push(CallSiteEntry {
                location: site_place.to_location(),
                calls: count - values,
                callees: (dir.op == "incoming_calls").then(|| callees.clone()),
                value_references: (dir.op == "incoming_calls").then_some(*values),
                through_macro: macro_name.clone(),
            });
        }
        if let Some(notice) = crate::render::truncation_notice(CALL_SITES_SHOWN.min(site_lines.len()), site_lines.len(), "call-site lines")
        {
            out.push_str(&format!("      {notice} (all are in structuredContent)\n"));
        }
        results.push(HierarchyEntry {
            location: place.to_location(),
            depth: node.depth,
            name: name.clone(),
            kind: kind.to_string(),
            detail: if outside_unknown { None } else { node.detail.clone() },
            via: node.via.clone(),
            followed: followed_name(node.followed).to_owned(),
            overload_lines: node.overload_lines0.iter().map(|line0| line0 + 1).collect(),
            call_sites: dir.call_field.is_some().then_some(sites),
        });
    }
    push_page_footer(&mut out, &page, &tally);
    // What was not followed, counted over the whole walk.
    let mut not_followed: BTreeMap<&'static str, usize> = BTreeMap::new();
    for node in &walk.entries {
        if !matches!(node.followed, Followed::Yes | Followed::DepthReached | Followed::OtherRootWalked | Followed::OtherRootDepthReached) {
            *not_followed.entry(followed_name(node.followed)).or_default() += 1;
        }
    }
    if !not_followed.is_empty() {
        let parts: Vec<String> = not_followed.iter().map(|(why, count)| format!("{count} ({why})")).collect();
        out.push_str(&format!("not followed further: {}", parts.join(", ")));
        if not_followed.contains_key("follow cap") {
            out.push_str(&format!(
                "; the follow cap is {} per call — ask again from an entry that was not followed",
                plural(supervisor.config().hierarchy_follow_cap, "entry")
            ));
        }
        out.push('\n');
    }
    if depth < MAX_HIERARCHY_DEPTH
        && walk.entries.iter().any(|node| matches!(node.followed, Followed::DepthReached | Followed::OtherRootDepthReached))
    {
        out.push_str(&format!("(\"depth\": {} follows one level further)\n", depth + 1));
    } else if !member_functions.is_empty()
        && walk.entries.iter().enumerate().any(|(index, node)| node.depth == deepest && member_functions.contains_key(&index))
    {
        out.push_str(&format!(
            "depth {} not reached through {server_id}: the calls at depth {deepest} listed under a whole file sit inside function expressions assigned to members (named above), which its call hierarchy does not follow — ask incoming_calls at each member's name\n",
            deepest + 1
        ));
    } else if deepest < depth
        && walk.entries.iter().any(|node| node.depth == deepest && matches!(node.followed, Followed::Yes | Followed::OtherRootWalked))
    {
        // The uses a server does not list (references as values, unresolved calls, dispatch by
        // name or through a base) are not the hierarchy's end (trial136 F3: sqlparse's `imt` at
        // depth 2 "ends here", where `group_over` is used as a value); they are checked for the
        // queried item and each followed entry, in the notes (trial144 F2).
        if dir.op == "incoming_calls" && deepest >= 1 {
            out.push_str(&format!(
                "depth {} found nothing more as {server_id} lists callers: the hierarchy ends here for calls it resolves — the uses it does not list (references as values, unresolved calls, dispatch by name or through a base) are checked for the queried item and for each followed entry (those not checked in time are named): a note below names each one found, per entry — no such note means none was found\n",
                deepest + 1
            ));
        } else {
            out.push_str(&format!("depth {} found nothing more: the hierarchy ends here\n", deepest + 1));
        }
    }
    if walk.roots.len() > 1 {
        out.push_str(&format!("{server_id} prepared {} items at this position: {of}\n", walk.roots.len()));
    }
    Ok((out.trim_end().to_owned(), results, Some(page)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_methods_are_named_with_their_receivers_type_and_kind() {
        assert_eq!(
            crate::lsp::rename_public_api::go_method_receiver("func (f *FlagSet) VarPF(value Value, name string) *Flag {").as_deref(),
            Some("FlagSet")
        );
        assert_eq!(crate::lsp::rename_public_api::go_method_receiver("func (s Set[T]) Len() int {").as_deref(), Some("Set"));
        assert_eq!(crate::lsp::rename_public_api::go_method_receiver("func (*FlagSet) Hidden() {").as_deref(), Some("FlagSet"));
        assert_eq!(crate::lsp::rename_public_api::go_method_receiver("func VarPF(value Value) {"), None);
        let function = 12;
        assert_eq!(
            crate::lsp::outline::readable_kind_on_line(function, "VarPF", "func (f *FlagSet) VarPF(value Value) *Flag {", "go"),
            "method"
        );
        assert_eq!(crate::lsp::outline::readable_kind_on_line(function, "VarPF", "func VarPF(value Value) *Flag {", "go"), "function");
    }

    #[test]
    fn call_sites_kept_unchecked_by_definition_are_named() {
        assert_eq!(unchecked_definitions_note("tsserver", "", &[], 0), None);
        let note = unchecked_definitions_note("tsserver", " below depth 1", &["test/a.ts:4 in `f`".to_owned()], 2).expect("a note");
        assert!(
            note.starts_with("note: NOT checked against their definition below depth 1: 1 call site tsserver gave no definition for"),
            "{note}"
        );
        assert!(note.contains("test/a.ts:4 in `f`; 2 call sites not asked (time ran out) — kept as listed"), "{note}");
    }

    #[test]
    fn a_name_passed_as_a_value_is_told_apart_from_a_call() {
        let usage = |line: &str, name: &str| usage_on_line(line, line.find(name).expect("name on the line"));
        assert_eq!(usage("    transform(self.0.as_ref(), lowercase, |f| write!(f, \"-\"), f)", "lowercase"), Some(SiteUsage::Value));
        assert_eq!(usage("        transform(self.0.as_ref(), lowercase, |f| write!(f, \"-\"), f)", "transform"), Some(SiteUsage::Call));
        assert_eq!(usage("    items.iter().map(parse).collect()", "parse"), Some(SiteUsage::Value));
        assert_eq!(usage("    let v = parse::<u8>(text)?;", "parse"), Some(SiteUsage::Call));
        assert_eq!(usage("      Just: (v) => Maybe.just(Result.ok<T, E>(v)),", "ok"), Some(SiteUsage::Call));
        assert_eq!(usage("    const x = make<Map<string, number>>();", "make"), Some(SiteUsage::Call));
        assert_eq!(usage("    const fn = Result.ok<(val: string) => number, string>((str) => str.length);", "ok"), Some(SiteUsage::Call));
        assert_eq!(usage("    let f = apply::<fn() -> u8>(g);", "apply"), Some(SiteUsage::Call));
        assert_eq!(usage("    if (limit < max) {", "limit"), Some(SiteUsage::Value));
        assert_eq!(usage("    self.parse (text)", "parse"), Some(SiteUsage::Call));
        assert_eq!(usage("    tag!(x)", "tag"), Some(SiteUsage::Call));
        assert_eq!(usage("@cached", "cached"), Some(SiteUsage::Call));
        assert_eq!(usage("    let handler = on_event;", "on_event"), Some(SiteUsage::Value));
        assert_eq!(usage("\tc, err := New[string, int](2)", "New"), Some(SiteUsage::Call), "Go type arguments");
        assert_eq!(usage("\tkeys := TypedKeys[int](s)", "TypedKeys"), Some(SiteUsage::Call));
        assert_eq!(usage("\tf := New[string, int]", "New"), Some(SiteUsage::Value), "an instantiation not called");
        assert_eq!(usage("  (", "("), None);
    }

    #[test]
    fn a_name_that_ends_its_line_is_a_value_unless_new_or_a_jsx_tag_calls_it() {
        let usage = |line: &str, name: &str| usage_on_line(line, line.rfind(name).expect("name on the line"));
        // trial149 F1: immer's `export const produce: IProduce = immer.produce` reads the property.
        assert_eq!(usage("export const produce: IProduce = immer.produce", "produce"), Some(SiteUsage::Value));
        assert_eq!(usage("  return helper", "helper"), Some(SiteUsage::Value));
        assert_eq!(usage("    const keep = box.make", "make"), Some(SiteUsage::Value));
        // Called with nothing after the name: a constructor with no arguments, a JSX tag.
        assert_eq!(usage("  const box = new Box", "Box"), Some(SiteUsage::Call));
        assert_eq!(usage("  const box = new ns.Box;", "Box"), Some(SiteUsage::Call));
        assert_eq!(usage("  return <Panel", "Panel"), Some(SiteUsage::Call));
        assert_eq!(usage("    <ui.Panel title=\"x\" />", "Panel"), Some(SiteUsage::Call));
        assert_eq!(usage("  {open && <Panel />}", "Panel"), Some(SiteUsage::Call));
        // A decorator, bare or qualified (review44 BUG 2).
        assert_eq!(usage("@retry", "retry"), Some(SiteUsage::Call));
        assert_eq!(usage("    @utils.retry", "retry"), Some(SiteUsage::Call));
        assert_eq!(usage("@ns.inner.Component", "Component"), Some(SiteUsage::Call));
        // No tag: a comparison, type arguments, a name that merely contains `new`.
        assert_eq!(usage("  if (a < limit", "limit"), Some(SiteUsage::Value));
        assert_eq!(usage("  const xs: Array<Panel", "Panel"), Some(SiteUsage::Value));
        assert_eq!(usage("  const f = renew", "renew"), Some(SiteUsage::Value));
        assert_eq!(usage("  const f = anew make", "make"), Some(SiteUsage::Value));
        // Only a declared accessor runs on a property access.
        let accessor = |line: &str, name: &str| declares_accessor(line, line.find(name).expect("name on the line"));
        assert!(accessor("  get size(): number {", "size"));
        assert!(accessor("  static set value(v: number) {", "value"));
        assert!(!accessor("  get(key: string): number {", "get"));
        assert!(!accessor("  size(): number {", "size"));
        assert!(!accessor("  target = obj.get size", "size"));
    }

    #[test]
    fn a_name_in_a_rust_macros_arguments_is_found_with_the_macro_across_lines() {
        let lines: Vec<String> = [
            "fn writer_one_empty_field_terminator() {",
            "    assert_write!(wtr, terminator, &mut out[..], 3, InputEmpty, \"\\\"\\\"\\n\");",
            "    let items = vec![parse(a), f(g(parse))];",
            "    assert_eq!(",
            "        compute(1),",
            "        2",
            "    );",
            "    let x = terminator; call(terminator)",
            "    if ready(terminator) { go(terminator) }",
        ]
        .iter()
        .map(|line| line.to_string())
        .collect();
        let at = |line0: usize, name: &str, nth: usize| lines[line0].match_indices(name).nth(nth).unwrap().0;
        assert_eq!(enclosing_macro_invocation(&lines, 1, at(1, "terminator", 0)).as_deref(), Some("assert_write"));
        assert_eq!(enclosing_macro_invocation(&lines, 2, at(2, "parse", 0)).as_deref(), Some("vec"));
        assert_eq!(enclosing_macro_invocation(&lines, 2, at(2, "parse", 1)).as_deref(), None, "inside g(…), not the vec! brackets");
        assert_eq!(enclosing_macro_invocation(&lines, 4, at(4, "compute", 0)).as_deref(), Some("assert_eq"));
        assert_eq!(enclosing_macro_invocation(&lines, 7, at(7, "terminator", 1)).as_deref(), None);
        assert_eq!(enclosing_macro_invocation(&lines, 8, at(8, "terminator", 0)).as_deref(), None);
        assert_eq!(enclosing_macro_invocation(&lines, 8, at(8, "terminator", 1)).as_deref(), None);
    }
}
