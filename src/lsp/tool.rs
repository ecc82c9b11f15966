//! The `lsp` tool (tier read): navigation, hover, symbols, code actions, diagnostics of a file,
//! status and reload, with answers written for an LLM.
//!
//! Every navigation answer starts with the resolved position (`path:line`, column, which
//! occurrence) and the line's text, then `path:line: source line` results. Lists put workspace
//! code first, then dependency code, with dependency paths shortened to package + path inside
//! it and counted ([`crate::lsp::listing`]). Every capped list takes `offset` and says
//! `showing A–B of N; next: offset=B`; a file's outline is a tree in source order with readable
//! kinds, parameters and locals hidden unless asked ([`crate::lsp::outline`]). A server still
//! indexing is said (with the running progress titles); an empty answer on a substring that sits
//! in a comment or string says so.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lsp_types::request::{
    CodeActionRequest, DocumentSymbolRequest, GotoDefinition, GotoImplementation, GotoTypeDefinition, HoverRequest, References,
    Request as _, WorkspaceSymbolRequest,
};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{ErrorKind, ToolError};
use crate::lsp::client::{LanguageServer, ReadinessReport, RequestFailure};
use crate::lsp::listing::{workspace_fingerprint, ListedPath, Page, PathClass, PathTally};
use crate::lsp::outline::{build_outline, normalize_kind, Hidden, OutlineEntry, KINDS};
use crate::lsp::output::{
    CodeActionEntry, CodeActionsOp, DiagnosticCode, DiagnosticEntry, DiagnosticsOp, FileDiagnostics, FileOutline, HoverEntry, HoverOp,
    ListedLocation, LocationEntry, LocationOp, LspOutput, LspPosition, Navigation, OutlineNotListed, PageWindow, QueryPosition,
    ReferenceEntry, ReferencesOp, ReloadOp, ReloadOutput, StatusOp, StatusOutput, SymbolsOp, WorkspaceSymbolEntry, WorkspaceSymbols,
};
use crate::lsp::position::{looks_like_comment_or_string, resolve_symbol_on_line, split_lines, PositionEncoding, ResolvedSymbol};
use crate::lsp::supervisor::LspSupervisor;
use crate::lsp::uri::uri_to_path;
use crate::registry::{CallContext, Registry, ToolDescriptor, ToolOutput};
use crate::render::{cut_chars, plural};
use crate::result::ToolResult;
use crate::schema::to_structured;
use crate::tier::Tier;

/// Descriptions of line + symbol addressing, shared by the argument structs of `lsp`,
/// `lsp_rename` and `lsp_code_action` (their schemas are derived from those structs).
/// How long `lsp references` at a Python class member looks for the members overriding it.
const OVERRIDING_NOTE_BUDGET: Duration = Duration::from_secs(8);

/// Whether `line_text` of the Python file `path` declares `name` as a class member could: an
/// indented `def name(` (or `async def`), or an indented class attribute `name =` / `name:`.
fn python_member_declaration(path: &Path, line_text: &str, name: &str) -> bool {
    if !matches!(path.extension().and_then(|extension| extension.to_str()), Some("py" | "pyi")) || !line_text.starts_with([' ', '\t']) {
        return false;
    }
    let trimmed = line_text.trim_start();
    let declared = trimmed.strip_prefix("async ").unwrap_or(trimmed);
    if let Some(rest) = declared.strip_prefix("def ") {
        return rest.trim_start().strip_prefix(name).is_some_and(|after| after.trim_start().starts_with(['(', '[']));
    }
    trimmed.strip_prefix(name).is_some_and(|after| {
        let after = after.trim_start();
        after.starts_with(':') || (after.starts_with('=') && !after.starts_with("=="))
    })
}

pub(crate) const FILE_DOC: &str = "File path, relative to the workspace root (or absolute inside it).";
/// See [`FILE_DOC`].
pub(crate) const LINE_DOC: &str = "1-based line number in `file`.";
/// See [`FILE_DOC`].
pub(crate) const SYMBOL_DOC: &str = "A substring of that line containing the identifier, e.g. `parse_config`, `self.items` or `pub fn parse_config`; declaration keywords at its start (`pub fn`, `def`, `func (r *T)`, `export const`) are skipped, then the cursor goes on the last segment of the first path (`self.items` -> `items`, `a::b::c` -> `c`, `foo(x)` -> `foo`, `Name Type` -> `Name`).";
/// See [`FILE_DOC`].
pub(crate) const OCCURRENCE_DOC: &str = "Which occurrence of `symbol` on the line (1-based) when it occurs several times.";
/// See [`FILE_DOC`].
pub(crate) const SERVER_DOC: &str = "Force a server id (e.g. `pylsp` instead of the default `pyright` for Python).";

/// Every `lsp` op, in the order the schema lists them.
pub const OPS: [&str; 14] = [
    "definition",
    "type_definition",
    "implementation",
    "references",
    "hover",
    "incoming_calls",
    "outgoing_calls",
    "supertypes",
    "subtypes",
    "symbols",
    "code_actions",
    "diagnostics",
    "status",
    "reload",
];

/// The `lsp` tool's descriptor.
pub fn descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "lsp".to_owned(),
        title: "Language server query".to_owned(),
        description: "Ask the project's language server (rust-analyzer, pyright, pylsp, typescript-language-server, gopls, clangd, dart). \
Address a position by `line` (1-based) plus `symbol`, a substring of that line containing the identifier — never a column. \
If the substring occurs several times on the line the error lists them; pass `occurrence` (1-based) or a longer substring. \
Ops: definition, type_definition, implementation, references (50 per page, grouped per file, workspace first), hover, code_actions (file, line, symbol; listing only — lsp_code_action applies one); \
incoming_calls / outgoing_calls (callers / callees of the function at file+line+symbol, each with its call-site lines, grouped per file) and supertypes / subtypes (of the class, struct or interface there); `depth` 2–3 follows them further (workspace code only); \
symbols (`query` → workspace search, 100 per page, no `file` needed; or `file` → that file's outline: a tree in source order, 200 entries per page, parameters and locals hidden unless `locals`; narrow with `kind` and `depth`); diagnostics (file: errors and warnings of one file; `\"*\"` runs the project's own checker — cargo check, pyright, tsc, go vet + go build, dart analyze, clang-tidy/clangd — errors first, 100 per page; on Rust cargo checks default features and names the features left off and the files whose gated code was NOT checked: pass `features` [\"serde\"], `all_features` or `no_default_features` to check them; `exclude` [\"folder\"] leaves project roots under a folder out, named as NOT checked; on Python the files pyright's configured include/exclude leave out are named NOT checked); \
status (which servers can serve this workspace and why not; running processes); reload (restart the server for `file`'s root, or all). \
Every list says `showing A–B of N; next: offset=B` when it continues: pass `offset` for the next page. Paths of dependency code are shortened to package + path inside it and marked (e.g. `numpy/core/fromnumeric.py [site-packages]`). \
A server that is still indexing answers with what it has and the answer says so; a crashed server restarts on the next call and the answer says so."
            .to_owned(),
        tier: Tier::Read,
        input_schema: crate::schema::input_schema::<LspArguments>(),
        output_schema: Some(crate::schema::output_schema::<LspOutput>()),
        annotations: crate::registry::ToolAnnotations::READ_ONLY,
        parallel_safe: true,
        // Sized for `diagnostics "*"`: the project checker's own timeout (180 s by default) plus
        // 30 s for the root walk and the answer. Every other op ends its waits after
        // `LspConfig::request_budget` (60 s) — see `op_deadline`.
        default_timeout: LSP_TOOL_TIMEOUT,
    }
}

/// The `lsp` tool's default time budget (see the descriptor).
pub const LSP_TOOL_TIMEOUT: Duration = Duration::from_secs(210);

/// The deadline of one `lsp` op: the call's, except that every op but `diagnostics "*"` (the
/// project checker, which has its own timeout) ends its waits after
/// [`crate::lsp::LspConfig::request_budget`].
fn op_deadline(ctx: &CallContext<'_>, supervisor: &LspSupervisor, args: &LspArguments) -> Instant {
    let project_check = args.op == LspOp::Diagnostics && args.file.as_deref() == Some("*");
    if project_check {
        ctx.deadline()
    } else {
        ctx.deadline().min(Instant::now() + supervisor.config().request_budget)
    }
}

/// Registers `lsp` (called by `RunBuilder::build` when the run has an LSP supervisor, R-LSP-1).
pub(crate) fn register_tools(registry: &mut Registry) {
    registry.register(descriptor(), Arc::new(call));
    crate::lsp::rename::register_tools(registry);
    crate::lsp::code_action::register_tools(registry);
    let layer = Arc::new(crate::lsp::diagnostics_on_write::DiagnosticsOnWriteLayer);
    registry.add_pre_write_layer(layer.clone());
    registry.add_post_write_layer(layer);
}

/// The arguments of `lsp` (its input schema is derived from this struct).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LspArguments {
    /// The operation.
    pub(crate) op: LspOp,
    #[schemars(description = FILE_DOC)]
    pub(crate) file: Option<String>,
    #[schemars(description = LINE_DOC, range(min = 1))]
    pub(crate) line: Option<u32>,
    #[schemars(description = SYMBOL_DOC, length(min = 1))]
    pub(crate) symbol: Option<String>,
    #[schemars(description = OCCURRENCE_DOC, range(min = 1))]
    pub(crate) occurrence: Option<usize>,
    /// symbols: workspace symbol search text (without `file`, the servers of the workspace
    /// root are asked).
    #[schemars(length(min = 1))]
    pub(crate) query: Option<String>,
    #[schemars(description = SERVER_DOC)]
    pub(crate) server: Option<String>,
    /// Lists (references, implementation, definition, type_definition, symbols, diagnostics,
    /// incoming_calls, outgoing_calls, supertypes, subtypes): entries to skip; a list that
    /// continues ends with `next: offset=B`.
    #[serde(default)]
    pub(crate) offset: usize,
    #[schemars(
        description = format!("symbols with `file`: only entries of these kinds, e.g. [\"class\", \"function\"]; `function` also lists TypeScript/JavaScript constants and variables bound to an arrow function or function expression, `method` properties so bound (marked, e.g. `(const arrow function)`). Kinds: {}.", KINDS.join(", ")),
        length(min = 1)
    )]
    pub(crate) kind: Option<Vec<String>>,
    /// symbols with `file`: 1 = top level only, 2 = also their members, …; default: all
    /// levels. incoming_calls, outgoing_calls, supertypes, subtypes: how many levels to follow
    /// (1–3, default 1; 2 = also the callers of the callers, …).
    #[schemars(range(min = 1))]
    pub(crate) depth: Option<usize>,
    /// symbols: also list what is hidden by default — with `file`, parameters, local
    /// variables, anonymous callbacks inside functions and imports (where the server gives
    /// them: pylsp; tsserver gives none, and their count is said); with `query`, symbols
    /// declared inside functions (default false).
    #[serde(default)]
    pub(crate) locals: bool,
    /// diagnostics with `file: "*"` on a Rust project: cargo features to check with (`cargo
    /// check --features a,b`), e.g. ["serde"]; `member/feature` for one workspace member's.
    /// Without it cargo checks each package's `default` features, and the answer names the
    /// features left off and the files whose `#[cfg(feature = …)]` code was NOT checked.
    #[schemars(length(min = 1))]
    pub(crate) features: Option<Vec<String>>,
    /// diagnostics with `file: "*"` on a Rust project: check with every feature of every
    /// package (`cargo check --all-features`; a crate with mutually exclusive features refuses
    /// it with a `compile_error!`, which the answer says). Default false.
    #[serde(default)]
    pub(crate) all_features: bool,
    /// diagnostics with `file: "*"` on a Rust project: leave the `default` features off
    /// (`cargo check --no-default-features`), to check code under `cfg(not(feature = …))`.
    /// Default false.
    #[serde(default)]
    pub(crate) no_default_features: bool,
    /// diagnostics with `file: "*"`: workspace-relative folders whose project roots are left
    /// out of the check, e.g. ["tests/toml-test"] (a vendored Go helper inside a Python
    /// project). A root at or under one of them starts no checker run and the answer names it
    /// as NOT checked; a run rooted above it still covers its files in that run's own
    /// language.
    #[schemars(length(min = 1))]
    pub(crate) exclude: Option<Vec<String>>,
}

/// An `lsp` op (wire names as in [`OPS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum LspOp {
    Definition,
    TypeDefinition,
    Implementation,
    References,
    Hover,
    IncomingCalls,
    OutgoingCalls,
    Supertypes,
    Subtypes,
    Symbols,
    CodeActions,
    Diagnostics,
    Status,
    Reload,
}

impl LspOp {
    /// The op's wire name, from serde.
    pub(crate) fn as_str(self) -> &'static str {
        crate::schema::variant_name(&self).unwrap_or("status")
    }
}

/// Time kept back from the call's deadline for formatting the answer.
pub(crate) const ANSWER_MARGIN: Duration = Duration::from_millis(250);

fn call(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let args: LspArguments = ctx.parse_arguments(arguments)?;
    let supervisor = ctx.resource::<LspSupervisor>()?;
    let deadline = op_deadline(ctx, supervisor, &args);
    let asks_features = args.features.is_some() || args.all_features || args.no_default_features;
    if args.exclude.is_some() && !(args.op == LspOp::Diagnostics && args.file.as_deref() == Some("*")) {
        return Err(ToolError::invalid(format!(
            "`exclude` applies to the project check (`diagnostics` with `file: \"*\"`), not to {} on {}",
            args.op.as_str(),
            args.file.as_deref().unwrap_or("the workspace")
        ))
        .with_hint("pass {\"op\": \"diagnostics\", \"file\": \"*\", \"exclude\": [\"folder\"]}"));
    }
    if asks_features && !(args.op == LspOp::Diagnostics && args.file.as_deref() == Some("*")) {
        return Err(ToolError::invalid(format!(
            "`features`, `all_features` and `no_default_features` apply to the project check (`diagnostics` with `file: \"*\"`, cargo check), not to {} on {}: the language server answers in its own configuration",
            args.op.as_str(),
            args.file.as_deref().unwrap_or("the workspace")
        ))
        .with_hint("pass {\"op\": \"diagnostics\", \"file\": \"*\"} with them, or give rust-analyzer the setting rust-analyzer.cargo.features for per-file answers"));
    }
    match args.op.as_str() {
        "status" => {
            let status = supervisor.status();
            let text = status.to_text();
            Ok(ToolOutput::new(
                ToolResult::text(text).with_structured(to_structured(&LspOutput::Status(StatusOutput { op: StatusOp::Status, status }))),
            ))
        }
        "reload" => {
            let file = args.file.as_deref().map(|file| resolve_file(supervisor.workspace_root(), file)).transpose()?;
            let lines = supervisor.reload(file.as_deref(), deadline)?;
            let text = lines.join("\n");
            Ok(ToolOutput::new(
                ToolResult::text(text)
                    .with_structured(to_structured(&LspOutput::Reload(ReloadOutput { op: ReloadOp::Reload, reloaded: lines }))),
            ))
        }
        "diagnostics" => diagnostics(ctx, supervisor, &args, deadline),
        "symbols" => symbols(supervisor, &args, deadline),
        "definition" | "type_definition" | "implementation" | "references" | "hover" | "code_actions" => {
            navigate(supervisor, &args, deadline)
        }
        "incoming_calls" | "outgoing_calls" | "supertypes" | "subtypes" => crate::lsp::hierarchy::hierarchy(ctx, supervisor, &args),
        other => Err(ToolError::invalid(format!("unknown lsp op {other:?}")).with_hint(format!("use one of: {}", OPS.join(", ")))),
    }
}

/// Resolves `file` inside the workspace with the crate's one confinement rule
/// ([`crate::files::resolve_in_workspace`]); it must exist and be a file.
pub(crate) fn resolve_file(workspace_root: &Path, file: &str) -> Result<PathBuf, ToolError> {
    let path = crate::files::resolve_in_workspace(workspace_root, file)?;
    if !path.exists() {
        return Err(ToolError::new(ErrorKind::NotFound, format!("file {file} does not exist in the workspace"))
            .with_hint("pass a path relative to the workspace root of an existing file"));
    }
    if !path.is_file() {
        let what = std::fs::metadata(&path).map(|meta| crate::render::file_type_name(&meta.file_type())).unwrap_or("not a regular file");
        return Err(ToolError::invalid(format!("{file} is not a regular file: it is {what}")).with_hint("pass a source file"));
    }
    Ok(path)
}

struct OpSpec {
    method: &'static str,
    /// Human name of the answer, e.g. "definition".
    what: &'static str,
}

fn op_spec(op: &str) -> OpSpec {
    match op {
        "definition" => OpSpec { method: GotoDefinition::METHOD, what: "definition" },
        "type_definition" => OpSpec { method: GotoTypeDefinition::METHOD, what: "type definition" },
        "implementation" => OpSpec { method: GotoImplementation::METHOD, what: "implementations" },
        "references" => OpSpec { method: References::METHOD, what: "references" },
        "hover" => OpSpec { method: HoverRequest::METHOD, what: "hover" },
        _ => OpSpec { method: CodeActionRequest::METHOD, what: "code actions" },
    }
}

/// Everything a navigation answer needs about its query.
pub(crate) struct Query<'a> {
    pub(crate) supervisor: &'a LspSupervisor,
    pub(crate) server: &'a LanguageServer,
    pub(crate) path: PathBuf,
    pub(crate) resolved: ResolvedSymbol,
    pub(crate) encoding: PositionEncoding,
    pub(crate) notes: Vec<String>,
}

impl Query<'_> {
    pub(crate) fn header(&self, what: &str) -> String {
        let resolved = &self.resolved;
        let occurrence = if resolved.occurrence_count > 1 {
            format!(", occurrence {} of {}", resolved.occurrence, resolved.occurrence_count)
        } else {
            String::new()
        };
        let mut header = format!(
            "{} {what} for `{}` at {}:{} (column {}{occurrence}):\n{:>6} | {}",
            self.server.id(),
            resolved.cursor_identifier,
            self.supervisor.display_path(&self.path),
            resolved.line,
            resolved.display_column(),
            resolved.line,
            resolved.line_text.trim_end()
        );
        if let Some(note) = resolved.part_of_identifier_note() {
            header.push('\n');
            header.push_str(&note);
        }
        header
    }

    pub(crate) fn position(&self) -> QueryPosition {
        let (line0, character) = self.resolved.lsp_position(self.encoding);
        QueryPosition {
            file: self.supervisor.display_path(&self.path),
            line: self.resolved.line,
            column: self.resolved.display_column(),
            identifier: self.resolved.cursor_identifier.clone(),
            line_text: self.resolved.line_text.clone(),
            occurrence: self.resolved.occurrence,
            occurrence_count: self.resolved.occurrence_count,
            lsp_position: LspPosition { line: line0, character, encoding: self.encoding.lsp_name().to_owned() },
        }
    }

    pub(crate) fn empty_answer(&self, what: &str, raw: &str) -> String {
        let mut text = format!("no {what} found: {} returned {raw}", self.server.id());
        if cursor_in_comment_or_string(self.supervisor.workspace_root(), &self.path, &self.resolved) {
            text.push_str(&format!(
                "; `{}` at column {} is probably inside a comment or string — address an identifier in code",
                self.resolved.cursor_identifier,
                self.resolved.display_column()
            ));
        }
        if let Some(reason) = self.rust_no_analysis_reason() {
            text.push_str("; ");
            text.push_str(&reason);
        }
        // Python: `pkg.sub.name` (or a variable bound to `importlib.import_module("pkg.sub")`),
        // which pyright does not follow: the workspace definition the receiver spells (trial170 M8).
        if self.path.extension().is_some_and(|ext| ext == "py" || ext == "pyi") {
            let workspace_root = self.supervisor.workspace_root();
            let found = crate::files::read_workspace_file_to_string(workspace_root, &self.path).ok().and_then(|file_text| {
                crate::lsp::rename_python_imports::module_path_definition(
                    workspace_root,
                    &self.path,
                    &file_text,
                    self.resolved.line as usize - 1,
                    &self.resolved.line_text,
                    self.resolved.cursor_byte,
                    &self.resolved.cursor_identifier,
                )
            });
            if let Some((module_file, module_line, spelled)) = found {
                text.push_str(&format!(
                    "; note: {spelled} spells the workspace module {} by its import path, which {} does not resolve here (a submodule reached as a package attribute, or a module imported by name); at run time `{}` is what {}:{module_line} defines at module level — ask there",
                    crate::render::display_path(workspace_root, &module_file),
                    self.server.id(),
                    self.resolved.cursor_identifier,
                    crate::render::display_path(workspace_root, &module_file),
                ));
            }
        }
        // Every empty answer of a confined run that withholds part of the project says so, not
        // only the run's first answer: aho-corasick opened restricted with memchr at
        // `path = "../memchr"` answered "no definition found" for a struct in the same file
        // (cargo metadata could not read the dependency, so rust-analyzer loaded the crate with
        // its features off) and nothing there said why (trial20 F2).
        if let Some((count, shown)) = self.supervisor.withheld_roots_summary() {
            text.push_str(&format!(
                "; note: servers here may not read {count} of the project's files outside the workspace ({shown}; `lsp` op status lists them): an answer about code that depends on them can be empty or incomplete"
            ));
        }
        text
    }
}

impl Query<'_> {
    /// Why rust-analyzer has no answer at the asked line of a Rust file, when the reason is the
    /// code's place rather than the symbol (trial28 M6: a hover behind `#[cfg(feature = …)]`
    /// came back "null" and nothing said why): a range the server itself published as inactive
    /// (`inactive-code`, `unlinked-file`) covering the line, or, read from the syntax tree, a
    /// `macro_rules!` template, or a `#[cfg]` that is off by default (or a module declared under
    /// one) — the gate named from the syntax tree when the server's own marks agree or it has
    /// published none for the file (`#[cfg(unix)]` is on, and its marks say so). `None` for
    /// other servers and files, and when none of these holds.
    fn rust_no_analysis_reason(&self) -> Option<String> {
        rust_no_analysis_reason_at(self.supervisor, self.server, &self.path, self.resolved.line)
    }
}

/// [`Query::rust_no_analysis_reason`] for `path` (absolute) at 1-based `line`: why
/// rust-analyzer has no answer there when the code's place is the reason (inactive code, a
/// `macro_rules!` template, a `#[cfg]` off by default). Also used by `lsp_rename`, whose
/// `prepareRename` fails with "No references found" in such code (trial52 M7).
pub(crate) fn rust_no_analysis_reason_at(supervisor: &LspSupervisor, server: &LanguageServer, path: &Path, line: u32) -> Option<String> {
    if server.id() != "rust-analyzer" || path.extension().is_none_or(|ext| ext != "rs") {
        return None;
    }
    let published = server.published_diagnostics(path);
    let covering = published.as_ref().and_then(|published| {
        crate::lsp::inactive::inactive_ranges(&published.diagnostics)
            .into_iter()
            .find(|range| (range.start_line..=range.end_line).contains(&line))
    });
    let shown = |path: &Path, line0: u32| format!("{}:{}", supervisor.display_path(path), line0 + 1);
    let place = crate::lsp::inactive::rust_unresolved_place(supervisor.workspace_root(), path, line - 1, &shown);
    match (place, covering) {
        (Some(place), covering) if place.in_macro_template || covering.is_some() || published.is_none() => {
            Some(format!("line {line} is {}", place.lookup_reason))
        }
        (_, Some(range)) => Some(format!(
            "line {line} is code rust-analyzer marks inactive (\"{}\"): it does not analyze it, so it has no answer there — {}",
            range.message,
            crate::lsp::inactive::how_to_check(&range.message)
        )),
        _ => None,
    }
}

/// Whether the cursor of `resolved` sits inside a comment or a string literal of `path`: by the
/// file's tree-sitter syntax tree where a bundled grammar parses it (a template substitution
/// `${kindOf(x)}` or an f-string interpolation is code), else by a scan of the line.
pub(crate) fn cursor_in_comment_or_string(workspace_root: &Path, path: &Path, resolved: &ResolvedSymbol) -> bool {
    match crate::lsp::rename_coverage::classify_position(
        workspace_root,
        path,
        resolved.line - 1,
        resolved.cursor_byte,
        resolved.cursor_identifier.len(),
    ) {
        // A string that is a property key (`'d-AsyncQueuer': number`, `obj['name']`) is the
        // symbol itself for tsserver, not text it matched by name.
        Some(crate::lsp::rename_coverage::OccurrenceKind::Text) => !is_string_property_key(workspace_root, path, resolved),
        Some(kind) => kind != crate::lsp::rename_coverage::OccurrenceKind::Code,
        None => looks_like_comment_or_string(&resolved.line_text, resolved.cursor_byte),
    }
}

/// Whether the cursor's identifier is the whole content of a TypeScript/JavaScript string used
/// as a property key ([`crate::lsp::syntax::ParsedSource::string_property_key_role`]). The left
/// operand of `in` is none here: tsserver resolves no symbol at it.
fn is_string_property_key(workspace_root: &Path, path: &Path, resolved: &ResolvedSymbol) -> bool {
    let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, path) else { return false };
    crate::lsp::syntax::ParsedSource::parse(path, &text).is_some_and(|source| {
        source
            .string_property_key_role(resolved.line - 1, resolved.cursor_byte, resolved.cursor_identifier.len())
            .is_some_and(|role| role != crate::lsp::syntax::IN_KEY_ROLE)
    })
}

fn navigate(supervisor: &LspSupervisor, args: &LspArguments, deadline: Instant) -> Result<ToolOutput, ToolError> {
    let op = args.op.as_str();
    let spec = op_spec(op);
    let (Some(file), Some(line)) = (args.file.as_deref(), args.line) else {
        return Err(ToolError::invalid(format!("{op} needs `file` and `line` (1-based) plus `symbol`"))
            .with_hint("e.g. {\"op\": \"definition\", \"file\": \"src/main.rs\", \"line\": 12, \"symbol\": \"parse_config\"}"));
    };
    let Some(symbol) = args.symbol.as_deref() else {
        return Err(ToolError::invalid(format!(
            "{op} needs `symbol`: a substring of line {line} containing the identifier (positions are never columns)"
        ))
        .with_hint("read the line and pass the identifier you mean as `symbol`"));
    };
    let path = resolve_file(supervisor.workspace_root(), file)?;
    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path)?;
    let resolved = resolve_symbol_on_line(&text, line, symbol, args.occurrence)
        .map_err(|err| ToolError::invalid(format!("{}: {err}", supervisor.display_path(&path))))?;
    let request_deadline = deadline.checked_sub(ANSWER_MARGIN).unwrap_or_else(Instant::now);
    let mut notes: Vec<String> = Vec::new();
    // A server found dead while answering is restarted and asked once more (the crash may land
    // between our liveness check and the request).
    let mut attempt = 0;
    let (lease, readiness, answer) = loop {
        let lease = supervisor.server_for_file(&path, args.server.as_deref(), deadline)?;
        notes.extend(lease.notes.iter().cloned());
        let server = &*lease.server;
        notes.extend(server.resync_from_disk().note(|path| supervisor.display_path(path)));
        server.sync_document(&path)?;
        if !server.supports(spec.method) {
            return Err(unsupported_error(supervisor, &path, server, op, spec.method, request_deadline));
        }
        let readiness = server.wait_until_ready_for_lookups((Instant::now() + supervisor.config().indexing_wait).min(request_deadline));
        let encoding = server.position_encoding();
        let (line0, character) = resolved.lsp_position(encoding);
        let position = lsp_types::TextDocumentPositionParams {
            text_document: crate::lsp::client::text_document(&path),
            position: lsp_types::Position { line: line0, character },
        };
        let goto = || lsp_types::GotoDefinitionParams {
            text_document_position_params: position.clone(),
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        };
        // Long answers (and slow ones) keep their answer for later pages; a definition's few
        // locations are asked again.
        let is_list = matches!(op, "references" | "implementation") || (args.offset > 0 && matches!(op, "definition" | "type_definition"));
        let offset = args.offset;
        let asked = match op {
            "definition" => list_request::<GotoDefinition>(supervisor, server, goto(), offset, is_list, request_deadline)
                .map(|(answer, reused)| (NavigationAnswer::Locations(answer), reused)),
            "type_definition" => list_request::<GotoTypeDefinition>(supervisor, server, goto(), offset, is_list, request_deadline)
                .map(|(answer, reused)| (NavigationAnswer::Locations(answer), reused)),
            "implementation" => list_request::<GotoImplementation>(supervisor, server, goto(), offset, is_list, request_deadline)
                .map(|(answer, reused)| (NavigationAnswer::Locations(answer), reused)),
            "references" => {
                let params = lsp_types::ReferenceParams {
                    text_document_position: position.clone(),
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                    context: lsp_types::ReferenceContext { include_declaration: true },
                };
                list_request::<References>(supervisor, server, params, offset, is_list, request_deadline)
                    .map(|(answer, reused)| (NavigationAnswer::References(answer), reused))
            }
            "hover" => {
                let params = lsp_types::HoverParams {
                    text_document_position_params: position.clone(),
                    work_done_progress_params: Default::default(),
                };
                server.request::<HoverRequest>(params, request_deadline).map(|answer| {
                    // Where the symbol is defined decides whether its hover may be shown: a hover
                    // is the defining file's text (signature, docstring, inferred literals).
                    let defined = if answer.is_some() && server.supports(GotoDefinition::METHOD) {
                        server.request::<GotoDefinition>(goto(), request_deadline).map(location_ranges).map_err(|failure| match failure {
                            RequestFailure::Transport(err) => err.message,
                            other => format!("{other:?}"),
                        })
                    } else {
                        Ok(Vec::new())
                    };
                    (NavigationAnswer::Hover(answer, defined), None)
                })
            }
            _ => {
                // Code actions stay JSON: each listed action keeps the server's object for the
                // `codeAction/resolve` round trip (see `code_action::OfferedAction`).
                let (params, context_note) = crate::lsp::code_action::code_action_params(server, &path, &resolved, request_deadline);
                crate::lsp::code_action::request_code_actions(server, params, request_deadline)
                    .map(|answer| (NavigationAnswer::CodeActions(answer), context_note))
            }
        };
        match asked {
            Ok((answer, reused)) => {
                notes.extend(reused);
                break (lease, readiness, answer);
            }
            Err(RequestFailure::Transport(err))
                if attempt == 0
                    && err.kind == ErrorKind::Unavailable
                    && server.exit_description().is_some()
                    && Instant::now() < request_deadline =>
            {
                attempt += 1;
            }
            Err(failure) => {
                let query = Query { supervisor, server, path: path.clone(), resolved: resolved.clone(), encoding, notes: notes.clone() };
                let mut err = request_error(&query, spec.method, &failure, &readiness);
                for note in &notes {
                    err.message.push_str("; ");
                    err.message.push_str(note);
                }
                return Err(err);
            }
        }
    };
    let server = &*lease.server;
    let encoding = server.position_encoding();
    // References are cross-checked against grep -w where the server is known to skip uses
    // (pyright's through a .pyi stub beside the source): see
    // `rename_coverage::complete_references` and `ServerDefinition::cross_check_references`.
    // Occurrences the server does not list: said once the other roots' answers are merged.
    let mut references_not_listed: Vec<crate::lsp::rename_coverage::UnlistedReference> = Vec::new();
    // What gopls' completed interface-method answer added: said unless the classification of
    // each location by its method says it (below).
    let mut interface_completion_note: Option<String> = None;
    // The roots depending on this one, asked before this server's cross-check when it has one:
    // their locations (those this server did not list) and notes, merged below.
    let mut dependents_asked: Option<crate::lsp::sibling_roots::DependentReferences> = None;
    let (answer, coverage_notes) = match answer {
        NavigationAnswer::References(answer) if server.definition().cross_check_references => {
            let (line0, character) = resolved.lsp_position(encoding);
            let budget = (request_deadline.saturating_duration_since(Instant::now()) / 3).min(Duration::from_secs(10));
            // The cross-check counts against every root's list: an occurrence the dependent
            // root's server lists (its configuration turns on a cfg this root's leaves off) is
            // in the answer, not "not in this answer" (trial146 M1: "9 whole-word occurrences of
            // `from_inline` are not in this answer" beside 8 listed). They keep the cross-check's
            // share of the time.
            let own = answer.clone().unwrap_or_default();
            let dependents = crate::lsp::sibling_roots::references_in_dependent_roots(
                supervisor,
                server,
                &path,
                &resolved,
                answer.clone(),
                request_deadline.checked_sub(budget).unwrap_or(request_deadline).max(Instant::now()),
            );
            let others_only: Vec<lsp_types::Location> =
                dependents.locations.iter().flatten().filter(|location| !own.contains(location)).cloned().collect();
            let listed = crate::lsp::sibling_roots::with_listed_under_root(own, &others_only, server.root());
            let mut checked = crate::lsp::rename_coverage::complete_references(
                server,
                supervisor.workspace_root(),
                &path,
                line0,
                character,
                &resolved.cursor_identifier,
                Some(listed),
                Instant::now() + budget,
            );
            // The checks below ask this server about its own list; the other roots' locations
            // are merged with their notes.
            checked.answer.retain(|location| !others_only.contains(location));
            dependents_asked = Some(crate::lsp::sibling_roots::DependentReferences { locations: Some(others_only), ..dependents });
            references_not_listed = checked.not_listed;
            (NavigationAnswer::References(Some(checked.answer)), checked.notes)
        }
        // gopls' references at an interface method miss a different part of the implementing
        // methods' uses on each call (trial61 F1): completed with those methods' references.
        NavigationAnswer::References(Some(answer)) if server.id() == "gopls" => {
            let (line0, character) = resolved.lsp_position(encoding);
            let budget = (request_deadline.saturating_duration_since(Instant::now()) / 2).min(Duration::from_secs(20));
            let completed = crate::lsp::go_interface_references::complete_interface_method_references(
                server,
                &path,
                line0,
                character,
                answer,
                true, // a references answer: with the implementing declarations
                Instant::now() + budget,
            );
            interface_completion_note = completed.added_note;
            (NavigationAnswer::References(Some(completed.locations)), completed.incomplete_note.into_iter().collect())
        }
        answer => (answer, Vec::new()),
    };
    notes.extend(coverage_notes);
    // Python: a pytest fixture asked at its `def` is requested by name — test and fixture
    // parameters, `usefixtures` / `getfixturevalue` strings — which the server does not list
    // (trial154 F2: "1 reference" for a fixture 13 tests request).
    if op == "references" && path.extension().is_some_and(|ext| ext == "py") {
        let (line0, character) = resolved.lsp_position(encoding);
        let at_cursor = lsp_types::TextEdit {
            range: lsp_types::Range {
                start: lsp_types::Position { line: line0, character },
                end: lsp_types::Position { line: line0, character },
            },
            new_text: String::new(),
        };
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        let asked = std::collections::BTreeMap::from([(canonical, vec![at_cursor])]);
        notes.extend(
            crate::lsp::rename_pytest_fixtures::fixture_requests(
                supervisor.workspace_root(),
                server.root(),
                &asked,
                &resolved.cursor_identifier,
                &resolved.cursor_identifier,
                encoding,
                &|path| supervisor.display_path(path),
            )
            .and_then(|found| found.references_note(&resolved.cursor_identifier)),
        );
    }
    // rust-analyzer lists uses of a same-named local or parameter among a function's references
    // (scopeguard 1.2: `guard` in `into_inner(guard: Self)`); its own definition at each says
    // which symbol it is (trial23 F4).
    let answer = match answer {
        NavigationAnswer::References(Some(locations)) if server.id() == "rust-analyzer" => {
            let (line0, character) = resolved.lsp_position(encoding);
            let checked = crate::lsp::rust_answer_checks::drop_references_to_other_bindings(
                server,
                &path,
                line0,
                character,
                &resolved.cursor_identifier,
                locations,
                request_deadline,
                &|path| supervisor.display_path(path),
            );
            notes.extend(checked.notes);
            // A proc-macro derive (`#[proc_macro_derive(Error)] fn derive_error`, or a `use` of
            // it): rust-analyzer listed the local `struct Error`s it is applied to and missed the
            // `#[derive(Error)]` uses (trial175 F1).
            let derive_deadline = request_deadline.min(Instant::now() + crate::lsp::rust_answer_checks::CHECK_BUDGET);
            match crate::lsp::rust_derive_references::check_derive_references(
                server,
                &path,
                line0,
                character,
                &checked.answer,
                derive_deadline,
                &|path| supervisor.display_path(path),
            ) {
                Some(derive) => {
                    notes.extend(derive.notes);
                    NavigationAnswer::References(Some(derive.answer))
                }
                None => NavigationAnswer::References(Some(checked.answer)),
            }
        }
        answer => answer,
    };
    // A consumer root beside this one (a Go module that replaces this module by a local
    // directory, a crate with a path dependency on this one) holds uses this server never loads:
    // its own server is asked at the same position (trial27b F1).
    // Uses in files the tsconfig leaves out: tsserver's references reach none of them (trial31
    // F4: "7 references in 2 files", grep found 3 more in 2 excluded test files).
    if let NavigationAnswer::References(found) = &answer {
        let mut known: Vec<PathBuf> = found
            .iter()
            .flatten()
            .filter_map(|location| crate::lsp::uri::lsp_uri_to_path(&location.uri))
            .map(|path| std::fs::canonicalize(&path).unwrap_or(path))
            .collect();
        known.push(std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()));
        notes.extend(
            crate::lsp::project_scope::word_outside_config_sentence(
                server.definition(),
                supervisor.workspace_root(),
                server.root(),
                &resolved.cursor_identifier,
                &known,
                "in this list",
                |path| supervisor.display_path(path),
            )
            .map(|sentence| format!("note: {sentence}")),
        );
    }
    // Go: references that reach into a module the root loads as a dependency only (a
    // `replace`d directory in no go.work): that module's own tests and packages are not loaded,
    // and their uses are in no answer (trial139 F4: uniseg's `NewGraphemes`, 4 of 20 listed).
    if server.id() == "gopls" && op == "references" {
        if let NavigationAnswer::References(found) = &answer {
            notes.extend(go_dependency_module_uses_note(
                supervisor,
                server,
                &path,
                found.as_deref().unwrap_or_default(),
                &resolved.cursor_identifier,
            ));
            notes.extend(go_doc_links_not_listed_note(
                supervisor,
                server,
                found.as_deref().unwrap_or_default(),
                &resolved.cursor_identifier,
                request_deadline,
            ));
        }
    }
    // Go: another declaration of the name in a file a build constraint keeps out of gopls's
    // configuration (trial30 M1: goldmark's `util_safe.go` twin of `BytesToReadOnlyString`).
    if server.id() == "gopls" && matches!(op, "definition" | "references" | "hover" | "implementation") {
        let mut files: Vec<PathBuf> = match &answer {
            NavigationAnswer::References(found) => {
                found.iter().flatten().filter_map(|location| crate::lsp::uri::lsp_uri_to_path(&location.uri)).collect()
            }
            NavigationAnswer::Locations(found) => {
                location_ranges(found.clone()).into_iter().filter_map(|(uri, _)| crate::lsp::uri::uri_to_path(&uri)).collect()
            }
            _ => Vec::new(),
        };
        files.push(path.clone());
        let known: Vec<PathBuf> = files.iter().map(|file| std::fs::canonicalize(file).unwrap_or_else(|_| file.clone())).collect();
        let directories: Vec<PathBuf> = files.iter().filter_map(|file| file.parent().map(Path::to_path_buf)).collect();
        notes.extend(crate::lsp::go_build_twins::build_twins_note(
            supervisor.workspace_root(),
            server.root(),
            server.id(),
            &resolved.cursor_identifier,
            &directories,
            &known,
            |path| supervisor.display_path(path),
        ));
    }
    // Go: uses in files a build constraint keeps out of gopls' build (`//go:build race`,
    // `ignore`): gopls lists none of them (trial173 F3: `raceEnabled`'s use in
    // slices_race_test.go), as the rename's grep check says.
    if server.id() == "gopls" && op == "references" {
        if let NavigationAnswer::References(found) = &answer {
            let mut answer_files: Vec<PathBuf> = vec![std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone())];
            answer_files.extend(
                found
                    .iter()
                    .flatten()
                    .filter_map(|location| crate::lsp::uri::lsp_uri_to_path(&location.uri))
                    .map(|file| std::fs::canonicalize(&file).unwrap_or(file)),
            );
            let answer_lines: Vec<(PathBuf, u32, u32)> = found
                .iter()
                .flatten()
                .filter_map(|location| {
                    let file = crate::lsp::uri::lsp_uri_to_path(&location.uri)?;
                    Some((std::fs::canonicalize(&file).unwrap_or(file), location.range.start.line, location.range.start.character))
                })
                .collect();
            notes.extend(crate::lsp::go_unbuilt_users::unbuilt_references_note(
                supervisor.workspace_root(),
                server.root(),
                server.id(),
                &resolved.cursor_identifier,
                &answer_files,
                &answer_lines,
                request_deadline,
                |path| supervisor.display_path(path),
            ));
        }
    }
    // Python: a package whose stub binds the name to another declaration than the package does
    // at run time (trial162 F2: attrs' `attrs/__init__.pyi` binds `asdict` from `attr`, its
    // `__init__.py` from `attr._next_gen`): pyright answers by the stub.
    if server.id().contains("pyright") && matches!(op, "definition" | "references" | "hover") {
        let answer_files: Vec<PathBuf> = match &answer {
            NavigationAnswer::References(found) => {
                found.iter().flatten().filter_map(|location| crate::lsp::uri::lsp_uri_to_path(&location.uri)).collect()
            }
            NavigationAnswer::Locations(found) => {
                location_ranges(found.clone()).into_iter().filter_map(|(uri, _)| crate::lsp::uri::uri_to_path(&uri)).collect()
            }
            _ => Vec::new(),
        };
        let answer_files: Vec<PathBuf> =
            answer_files.iter().map(|file| std::fs::canonicalize(file).unwrap_or_else(|_| file.clone())).collect();
        notes.extend(crate::lsp::python_stub_bindings::stub_binding_note(
            supervisor.workspace_root(),
            server.root(),
            &std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()),
            (op != "references").then_some((resolved.line as usize, resolved.cursor_byte)),
            &answer_files,
            &resolved.cursor_identifier,
            |path| supervisor.display_path(path),
        ));
    }
    // TypeScript: strings that name the property as a key in a type (`Pick<T, 'k'>`,
    // `T['k']`, `obj['k']`) are no references to tsserver (trial34 F1: `queryKeyHashFn` in
    // `Pick<QueryOptions<…>, 'queryKeyHashFn'>` was left out of "2 references", and a rename
    // of the member broke it).
    if op == "references" {
        notes.extend(python_constructor_calls_note(supervisor, server, &path, &resolved));
        notes.extend(python_typed_dict_keywords_note(supervisor, server, &path, &resolved, request_deadline));
        notes.extend(python_implicit_dunder_calls_note(supervisor, server, &path, &resolved));
        notes.extend(rust_implicit_calls_note(supervisor, &path, &resolved));
    }
    if let NavigationAnswer::References(found) = &answer {
        if op == "references" && server.definition().write_check == crate::lsp::WriteCheck::TsserverRequests {
            notes.extend(string_keys_not_listed(
                supervisor,
                server,
                &resolved.cursor_identifier,
                found.as_deref().unwrap_or(&[]),
                request_deadline,
            ));
        }
    }
    // TypeScript: keys of object literals cast to the property's type through `unknown`
    // (`{ overscan: 1 } as unknown as Required<Options>`) set the property, and tsserver does not
    // list them (trial160 M1).
    if let NavigationAnswer::References(found) = &answer {
        if op == "references" && server.definition().write_check == crate::lsp::WriteCheck::TsserverRequests {
            let (line0, character) = resolved.lsp_position(encoding);
            let mut listed: std::collections::BTreeMap<PathBuf, Vec<lsp_types::TextEdit>> = std::collections::BTreeMap::new();
            let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            let at_cursor = lsp_types::Range {
                start: lsp_types::Position { line: line0, character },
                end: lsp_types::Position { line: line0, character },
            };
            listed.entry(canonical).or_default().push(lsp_types::TextEdit { range: at_cursor, new_text: String::new() });
            for location in found.iter().flatten() {
                let Some(file) = crate::lsp::uri::lsp_uri_to_path(&location.uri) else { continue };
                let file = std::fs::canonicalize(&file).unwrap_or(file);
                listed.entry(file).or_default().push(lsp_types::TextEdit { range: location.range, new_text: String::new() });
            }
            let declarations: std::collections::BTreeMap<PathBuf, Vec<(u32, u32)>> = listed
                .iter()
                .map(|(file, list)| {
                    (file.clone(), list.iter().map(|listed| (listed.range.start.line, listed.range.start.character)).collect())
                })
                .collect();
            let keys = crate::lsp::rename_asserted_literal_keys::asserted_literal_keys(
                server,
                supervisor.workspace_root(),
                &declarations,
                &listed,
                &resolved.cursor_identifier,
                &resolved.cursor_identifier,
                request_deadline,
            );
            notes.extend(keys.references_note(server.id(), &resolved.cursor_identifier));
        }
    }
    // Locations marked in the rendered list (`← use of …`, `← not in the server's own list…`),
    // by (uri, 0-based line, character): the text after the arrow.
    let mut reference_marks: HashMap<crate::lsp::go_method_uses::LocationKey, String> = HashMap::new();
    let answer = match answer {
        NavigationAnswer::References(found) if op == "references" => {
            let merged = match dependents_asked.take() {
                Some(asked) => {
                    let mut locations = found;
                    if let Some(others) = asked.locations.filter(|others| !others.is_empty()) {
                        let merged = locations.get_or_insert_with(Vec::new);
                        for location in others {
                            if !merged.contains(&location) {
                                merged.push(location);
                            }
                        }
                    }
                    crate::lsp::sibling_roots::DependentReferences { locations, ..asked }
                }
                None => {
                    crate::lsp::sibling_roots::references_in_dependent_roots(supervisor, server, &path, &resolved, found, request_deadline)
                }
            };
            // Other roots asked (or said not searched): this root's counts say which root they count.
            let mut other_roots_asked = !merged.notes.is_empty();
            notes.extend(merged.notes);
            // The uses the dependent roots' servers do not list though their definition leads
            // here: named in the one note below with this root's (trial146 F1: downstream's
            // `smallvec![…]` calls, missing from its rust-analyzer's answer, were in no note
            // when asked from the library's definition).
            references_not_listed.extend(merged.not_listed);
            // The uses no server lists at a declaration (trial130 F2, trial132 F3, trial136 F1).
            notes.extend(crate::lsp::hierarchy::unlisted_dispatch_notes(
                supervisor,
                server,
                &path,
                resolved.line.saturating_sub(1),
                &resolved.line_text,
                &resolved.cursor_identifier,
                request_deadline,
            ));
            // At a Python class member's declaration: the members of subclasses that override
            // it, which its references do not include (trial158 M2).
            if python_member_declaration(&path, &resolved.line_text, &resolved.cursor_identifier) {
                let bound = (Instant::now() + OVERRIDING_NOTE_BUDGET).min(request_deadline);
                notes.extend(crate::lsp::rename_overrides::overriding_members_note(
                    server,
                    supervisor.workspace_root(),
                    &path,
                    resolved.line.saturating_sub(1),
                    &resolved.cursor_identifier,
                    &|path: &Path| supervisor.display_path(path),
                    bound,
                ));
            }
            // Asked in a consumer root about the library's symbol: the library's own server
            // lists the library's uses (trial106 F2).
            // An embedded Go field (`type FixedClock struct { clock.Clock }`) names the field
            // and, through its type, the library's type: gopls answers for the field, and the
            // type's uses are another list (trial119 F3: the field's 4 uses mixed with the
            // library's uses of the type, the consumer's own uses of it missing).
            let embedded_field = server.id() == "gopls"
                && go_embedded_field_line(&resolved.line_text, &resolved.cursor_identifier)
                && crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path)
                    .is_ok_and(|text| go_line_in_struct_type(&text, resolved.line.saturating_sub(1)));
            let merged = if embedded_field {
                notes.push(format!(
                    "note: `{}` here is an embedded field: these are the references of the field (`x.{}`, `{}:` keys) as gopls gives them; the uses of its type are another list — call lsp references at the type's declaration (lsp definition on this line finds it)",
                    resolved.cursor_identifier, resolved.cursor_identifier, resolved.cursor_identifier
                ));
                crate::lsp::sibling_roots::DependentReferences { locations: merged.locations, notes: Vec::new(), not_listed: Vec::new() }
            } else {
                crate::lsp::sibling_roots::references_in_owning_root(
                    supervisor,
                    server,
                    &path,
                    &resolved,
                    merged.locations,
                    request_deadline,
                )
            };
            other_roots_asked |= !merged.notes.is_empty();
            notes.extend(merged.notes);
            references_not_listed.extend(merged.not_listed);
            // Each root's cross-check counts the occurrences under it that are no references: with
            // other roots asked, this root's count says its name, as theirs do.
            if other_roots_asked {
                crate::lsp::sibling_roots::name_root_in_cross_check_notes(
                    &mut notes,
                    &resolved.cursor_identifier,
                    &supervisor.display_path(server.root()),
                );
            }
            // The uses whose definition leads here but no server lists: in the list and its
            // count, marked (trial155 M4).
            let mut merged_locations = merged.locations;
            if !references_not_listed.is_empty() {
                let mut locations = merged_locations.take().unwrap_or_default();
                if let Some((note, added)) = crate::lsp::rename_coverage::merge_references_not_listed(
                    &references_not_listed,
                    server.id(),
                    &resolved.cursor_identifier,
                    &mut locations,
                    |path| supervisor.display_path(path),
                ) {
                    notes.push(note);
                    for key in added {
                        reference_marks.insert(key, crate::lsp::rename_coverage::NOT_LISTED_BY_SERVER_MARK.to_owned());
                    }
                }
                merged_locations = (!locations.is_empty()).then_some(locations);
            }
            // gopls's references of an embedded field whose type comes from another package
            // include the package qualifier of other expressions (`lru` of `lru.New(size)`, a
            // line with no `Cache` on it: trial94 F4): a location whose text is another
            // identifier is no reference of this name, left out and said.
            let locations = if server.id() == "gopls" {
                // (The queried line itself stays: gopls gives the field's declaration as the
                // qualifier's range.)
                let queried = (path.clone(), resolved.line.saturating_sub(1));
                let (kept, left_out) =
                    locations_naming(supervisor, merged_locations, &resolved.cursor_identifier, server.position_encoding(), &queried);
                if !left_out.is_empty() {
                    notes.push(format!(
                        "note: {} more {} gopls gave {} not name `{}` (the text there is another identifier: {}{}) — left out of this list",
                        left_out.len(),
                        crate::render::one_or_many(left_out.len(), "location", "locations"),
                        crate::render::one_or_many(left_out.len(), "does", "do"),
                        resolved.cursor_identifier,
                        left_out.iter().take(5).cloned().collect::<Vec<_>>().join(", "),
                        if left_out.len() > 5 { format!(", and {} more", left_out.len() - 5) } else { String::new() }
                    ));
                }
                match kept {
                    Some(kept) => {
                        let (line0, character) = resolved.lsp_position(server.position_encoding());
                        let budget = request_deadline.saturating_duration_since(Instant::now()).min(Duration::from_secs(20));
                        let separated = crate::lsp::go_method_uses::separate_related_method_uses(
                            supervisor,
                            server,
                            &path,
                            line0,
                            character,
                            kept,
                            Instant::now() + budget,
                        );
                        reference_marks.extend(separated.marks.into_iter().map(|(key, method)| (key, format!("use of {method}"))));
                        // The other roots' notes counted the merged list (trial117 M2: "67 of
                        // these references are in it" beside a list of 2).
                        if separated.left_out > 0 {
                            for note in notes.iter_mut().filter(|note| note.contains("also searched ")) {
                                note.push_str(&format!(
                                    " — counted before the {} left out below",
                                    crate::render::plural(separated.left_out, "location")
                                ));
                            }
                        }
                        match separated.note {
                            Some(note) => notes.push(note),
                            None => notes.extend(interface_completion_note.take()),
                        }
                        Some(separated.locations)
                    }
                    None => None,
                }
            } else {
                merged_locations
            };
            NavigationAnswer::References(locations)
        }
        answer => answer,
    };
    // gopls answers no implementation for some interface types (go-cmp's `Option`, whose one
    // method is unexported: "null", while 9 types implement it and `implementation` on the
    // method lists them all; trial45 F4): the types that declare every method of the interface
    // are asked through its methods instead, and the answer says so.
    let answer = match answer {
        NavigationAnswer::Locations(found)
            if op == "implementation" && server.id() == "gopls" && location_ranges(found.clone()).is_empty() =>
        {
            match go_interface_implementations_through_methods(supervisor, server, &path, &resolved, request_deadline) {
                Some((locations, note)) => {
                    notes.push(note);
                    NavigationAnswer::Locations(Some(lsp_types::GotoDefinitionResponse::Array(locations)))
                }
                None => NavigationAnswer::Locations(found),
            }
        }
        answer => answer,
    };
    // Asked in a consumer root about the library's interface or trait: the library's own server
    // lists the implementations in its packages the consumer does not import (trial110 F1).
    let answer = match answer {
        NavigationAnswer::Locations(found) if op == "implementation" => {
            let locations = response_locations(found.clone());
            let (merged, note) = crate::lsp::sibling_roots::implementations_in_owning_root(
                supervisor,
                server,
                &path,
                &resolved,
                locations,
                request_deadline,
            );
            match note {
                // Not asked in a consumer root: the server's answer as it gave it.
                None => NavigationAnswer::Locations(found),
                Some(note) => {
                    notes.push(note);
                    NavigationAnswer::Locations((!merged.is_empty()).then_some(lsp_types::GotoDefinitionResponse::Array(merged)))
                }
            }
        }
        answer => answer,
    };
    // pyright's implementations come from the files its configuration includes: the subclasses
    // in the other files (click 8.5.1: 15 `ParamType` subclasses in tests/) are not in them.
    if op == "implementation" {
        notes.extend(pyright_scope_note(supervisor, server, None, "implementations"));
        notes.extend(crate::lsp::sibling_roots::dependent_roots_not_searched_note(supervisor, server, "implementations"));
        notes.extend(crate::lsp::sibling_roots::dependency_roots_partial_note(supervisor, server));
        if let NavigationAnswer::Locations(locations) = &answer {
            // A trait's method: the impls of its trait that rust-analyzer leaves out, and their
            // definitions of the method (trial36 F1: `Buf::chunk` listed 12, and `impl Buf for
            // Special` in a test function was not named, while the trait's query names it).
            let trait_of_method = if resolved.line_text.contains("fn ") {
                crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path)
                    .ok()
                    .and_then(|text| crate::lsp::syntax::ParsedSource::parse(&path, &text))
                    .and_then(|parsed| parsed.rust_trait_of_method(resolved.line - 1, &resolved.cursor_identifier))
            } else {
                None
            };
            // A struct, enum or union declared on the queried line: its impl blocks.
            let type_query = trait_of_method.is_none()
                && ["struct", "enum", "union"].iter().any(|keyword| {
                    resolved.line_text.split_whitespace().collect::<Vec<_>>().windows(2).any(|pair| {
                        pair[0] == *keyword
                            && pair[1].trim_end_matches(|c: char| !c.is_alphanumeric() && c != '_').starts_with(&resolved.cursor_identifier)
                    })
                });
            match &trait_of_method {
                Some(trait_name) => notes.extend(rust_impls_not_listed(
                    supervisor,
                    server,
                    trait_name,
                    Some(&resolved.cursor_identifier),
                    false,
                    locations.clone(),
                    None,
                )),
                None => {
                    let (line0, character) = resolved.lsp_position(server.position_encoding());
                    notes.extend(rust_impls_not_listed(
                        supervisor,
                        server,
                        &resolved.cursor_identifier,
                        None,
                        type_query,
                        locations.clone(),
                        Some((&path, line0, character, request_deadline)),
                    ))
                }
            }
            notes.extend(go_standard_interfaces_not_listed(supervisor, server, &path, &resolved, locations.clone()));
            notes.extend(implementations_that_are_expressions(supervisor, server, &path, &resolved, locations.clone()));
            notes.extend(typescript_class_members_not_listed(supervisor, server, &path, &resolved, locations.clone(), request_deadline));
            if location_ranges(locations.clone()).is_empty() {
                notes.extend(members_assigned_instead(supervisor, server, &path, &resolved, request_deadline));
                if server.definition().write_check == crate::lsp::WriteCheck::TsserverRequests {
                    let casts = cast_constructions(supervisor, server, &resolved.cursor_identifier);
                    if let Some(casts) = casts.strip_prefix("; ") {
                        notes.push(format!("note: {} lists no implementation; {casts}", server.id()));
                    }
                }
            }
        }
    }
    let mut query = Query { supervisor, server, path, resolved, encoding, notes };
    // A list asked or answered while the server was still loading says so at its top (an empty
    // or short list is no fact about the code); a hover or the code actions say it in a note.
    let unready = crate::lsp::tool::unready_when_answered(server, &readiness);
    let is_list_op = matches!(op, "definition" | "type_definition" | "implementation" | "references");
    if !is_list_op {
        if let Some(note) = unready.as_ref().and_then(|report| report.note(server.id())) {
            query.notes.push(note);
        }
    }
    let (body, results, page) = match answer {
        NavigationAnswer::References(answer) => {
            let (body, results, page) = render_references(&query, answer, &reference_marks, args.offset)?;
            (body, NavigationResults::References(results), page)
        }
        NavigationAnswer::Hover(answer, defined) => {
            let (body, results) = match hover_defined_outside(supervisor, &defined) {
                Some(outside) => (
                    format!(
                        "hover not shown: `{}` is defined in {outside}, outside the workspace and its known dependency roots; a hover quotes the defining file (signature, docstring), and files there are named, not quoted",
                        query.resolved.cursor_identifier
                    ),
                    Vec::new(),
                ),
                None => {
                    if let Err(reason) = &defined {
                        query.notes.push(format!(
                            "note: where `{}` is defined could not be asked ({reason}); the hover is shown as {} gave it",
                            query.resolved.cursor_identifier,
                            server.id()
                        ));
                    }
                    render_hover(&query, answer)
                }
            };
            (body, NavigationResults::Hover(results), None)
        }
        NavigationAnswer::CodeActions(answer) => {
            let (body, results) = render_code_actions(&query, &answer)?;
            (body, NavigationResults::CodeActions(results), None)
        }
        NavigationAnswer::Locations(answer) => {
            let (body, results, page) = render_locations(&query, spec.what, answer, args.offset)?;
            (body, NavigationResults::Locations(results), page)
        }
    };
    if !results.is_empty() && cursor_in_comment_or_string(query.supervisor.workspace_root(), &query.path, &query.resolved) {
        query.notes.push(format!(
            "note: `{}` at column {} looks like it is inside a comment or string; {} answered anyway (probably by name) — check that this is the symbol you meant",
            query.resolved.cursor_identifier,
            query.resolved.display_column(),
            server.id()
        ));
    }
    let loading_warning = unready.as_ref().filter(|_| is_list_op).and_then(|report| {
        let listed = page.as_ref().map_or(results.len(), |page| page.total);
        crate::lsp::loading_lookups::loading_list_warning(server.id(), report, spec.what, listed)
    });
    let mut text = String::new();
    if let Some(warning) = &loading_warning {
        text.push_str(warning);
        text.push('\n');
        query.notes.insert(0, warning.clone());
    }
    text.push_str(&query.header(spec.what));
    text.push('\n');
    text.push_str(&body);
    for note in query.notes.iter().skip(usize::from(loading_warning.is_some())) {
        text.push('\n');
        text.push_str(note);
    }
    let still_indexing = !matches!(readiness.readiness, crate::lsp::Readiness::Ready) || unready.is_some();
    let page = page.as_ref().map(PageWindow::from);
    let output = results.into_output(args.op, || Navigation {
        op: (),
        server: server.id().to_owned(),
        root: supervisor.display_path(server.root()),
        position: query.position(),
        results: Vec::new(),
        page,
        still_indexing,
        notes: query.notes.clone(),
    });
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(to_structured(&output))))
}

/// A navigation request's answer, decoded into its lsp-types result (`None` for `null`).
enum NavigationAnswer {
    /// `definition`, `type_definition`, `implementation`: a location, locations or links.
    Locations(Option<lsp_types::GotoDefinitionResponse>),
    /// `references`.
    References(Option<Vec<lsp_types::Location>>),
    /// `hover`.
    Hover(Option<lsp_types::Hover>, Result<Vec<(String, lsp_types::Range)>, String>),
    /// `code_actions`: the server's JSON, kept for the `codeAction/resolve` round trip.
    CodeActions(Value),
}

/// The entries of a navigation answer, by op.
enum NavigationResults {
    Locations(Vec<LocationEntry>),
    References(Vec<ReferenceEntry>),
    Hover(Vec<HoverEntry>),
    CodeActions(Vec<CodeActionEntry>),
}

impl NavigationResults {
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entries on this page.
    fn len(&self) -> usize {
        match self {
            NavigationResults::Locations(results) => results.len(),
            NavigationResults::References(results) => results.len(),
            NavigationResults::Hover(results) => results.len(),
            NavigationResults::CodeActions(results) => results.len(),
        }
    }

    /// The op's output; `envelope` wraps any op's entries (it is called once).
    fn into_output(self, op: LspOp, envelope: impl NavigationEnvelope) -> LspOutput {
        match self {
            NavigationResults::Locations(results) => LspOutput::Locations(envelope.wrap(
                match op {
                    LspOp::TypeDefinition => LocationOp::TypeDefinition,
                    LspOp::Implementation => LocationOp::Implementation,
                    _ => LocationOp::Definition,
                },
                results,
            )),
            NavigationResults::References(results) => LspOutput::References(envelope.wrap(ReferencesOp::References, results)),
            NavigationResults::Hover(results) => LspOutput::Hover(envelope.wrap(HoverOp::Hover, results)),
            NavigationResults::CodeActions(results) => LspOutput::CodeActions(envelope.wrap(CodeActionsOp::CodeActions, results)),
        }
    }
}

/// Builds the [`Navigation`] envelope around an op and entries of any type.
trait NavigationEnvelope {
    fn wrap<O, T>(self, op: O, results: Vec<T>) -> Navigation<O, T>;
}

impl<F: FnOnce() -> Navigation<(), ()>> NavigationEnvelope for F {
    fn wrap<O, T>(self, op: O, results: Vec<T>) -> Navigation<O, T> {
        let Navigation { server, root, position, page, still_indexing, notes, .. } = self();
        Navigation { op, server, root, position, results, page, still_indexing, notes }
    }
}

/// Asks `server` request `R` with `params` and, when `cached`, keeps the decoded answer for
/// later pages: a later page (`offset` > 0) reuses the answer the same request (same process,
/// method and parameters) got before, while no file under the server's root changed since
/// (fingerprint taken before that request). Returns the answer and, when reused, a note saying
/// so.
fn list_request<R>(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    params: R::Params,
    offset: usize,
    cached: bool,
    deadline: Instant,
) -> Result<(R::Result, Option<String>), RequestFailure>
where
    R: lsp_types::request::Request,
    R::Result: Clone,
{
    if !cached {
        return server.request::<R>(params, deadline).map(|answer| (answer, None));
    }
    let key = format!("{}|{}|{}", server.pid(), R::METHOD, serde_json::to_string(&params).unwrap_or_default());
    let fingerprint = workspace_fingerprint(server.workspace_root(), server.root());
    if offset > 0 {
        if let Some((at, answer)) = supervisor.answer_cache().get::<R::Result>(&key, &fingerprint) {
            let note = format!(
                "note: this page comes from {}'s answer {} s ago (no file under {} changed since); offset 0 asks the server again",
                server.id(),
                at.elapsed().as_secs(),
                supervisor.display_path(server.root())
            );
            return Ok((answer, Some(note)));
        }
    }
    let answer = server.request::<R>(params, deadline)?;
    supervisor.answer_cache().put(key, fingerprint, answer.clone());
    Ok((answer, None))
}

/// The error for an op the chosen server does not offer. It names the other installed server
/// for the file that offers it, from what is known without starting anything: a running
/// server's capabilities, or what a server offered when it started earlier in this run
/// ([`LspSupervisor::offer_seen_at_start`]). An installed server not started in this run is not
/// started just to learn that (trial27a M3: 16 s to say "unsupported"); it is named as not asked,
/// with the call that asks it (`"server": "<id>"`). Without starting anything this answers at
/// once.
pub(crate) fn unsupported_error(
    supervisor: &LspSupervisor,
    path: &Path,
    server: &LanguageServer,
    op: &str,
    method: &str,
    _deadline: Instant,
) -> ToolError {
    let mut offering: Option<String> = None;
    let mut lacking: Vec<String> = Vec::new();
    let mut not_started: Vec<String> = Vec::new();
    let running = supervisor.running_servers();
    for (definition, root, _binary) in supervisor.installed_for_file(path) {
        if definition.id == server.id() {
            continue;
        }
        let running_offer = running
            .iter()
            .find(|other| other.id() == definition.id && other.root() == root && other.exit_description().is_none())
            .map(|other| other.supports(method));
        match running_offer.or_else(|| supervisor.offer_seen_at_start(&definition.id, method)) {
            Some(true) => {
                offering = Some(definition.id.clone());
                break;
            }
            Some(false) => lacking.push(definition.id.clone()),
            None => not_started.push(definition.id.clone()),
        }
    }
    let version = server.server_info().map(|info| format!(", {info}")).unwrap_or_default();
    let mut message = format!("{op} is unsupported by {} (it does not offer {method}{version})", server.id());
    let relative = supervisor.display_path(path);
    let hint = match &offering {
        Some(id) => {
            message.push_str(&format!("; {id}, also installed for {relative}, offers it"));
            format!("call again with \"server\": \"{id}\"")
        }
        None => {
            if lacking.is_empty() && not_started.is_empty() {
                message.push_str(&format!("; no other installed server serves {relative}"));
            } else if !lacking.is_empty() {
                message.push_str(&format!("; the other installed server(s) for {relative} do not offer it either: {}", lacking.join(", ")));
            }
            if !not_started.is_empty() {
                message.push_str(&format!(
                    "; installed for {relative} but not started in this run, so not asked whether they offer it (starting one takes seconds): {}",
                    not_started.join(", ")
                ));
            }
            let ask_not_started = not_started
                .first()
                .map(|id| {
                    format!("; to ask {id} itself whether it offers {op}, call again with \"server\": \"{id}\" (it starts for that call)")
                })
                .unwrap_or_default();
            let instead = match op {
                // pyright offers no `implementation`; its sibling does (only said for pyright:
                // on rust-analyzer or typescript-language-server it read as noise, small24).
                "subtypes" => format!(
                    "call lsp with {{\"op\": \"implementation\"}} on the type instead: it lists the classes and types that implement or extend it{}, or ast_grep for the declarations that name it as a base",
                    if server.id() == "pyright" { " (pyright needs \"server\": \"basedpyright\" for it)" } else { "" }
                ),
                "supertypes" => "call lsp with {\"op\": \"definition\"} on each base or interface named in the type's declaration (or {\"op\": \"hover\"} on the type) instead".to_owned(),
                "incoming_calls" => "call lsp with {\"op\": \"references\"} on the function instead: its call sites are among the references".to_owned(),
                _ => "try another op (definition, references, hover or symbols answer on every server)".to_owned(),
            };
            instead + &ask_not_started
        }
    };
    ToolError::new(ErrorKind::Unavailable, message)
        .with_hint(hint)
        .with_details(json!({"offered_by": offering, "not_offered_by": lacking, "not_started": not_started}))
}

pub(crate) fn readiness_note(server: &LanguageServer, before: &ReadinessReport) -> Option<String> {
    unready_when_answered(server, before).and_then(|report| report.note(server.id()))
}

/// [`readiness_note`] for a diagnostics answer: the server's own project check running counts
/// as not ready (see [`LanguageServer::wait_until_ready_for_lookups`], which lookups use).
pub(crate) fn diagnostics_readiness_note(server: &LanguageServer, before: &ReadinessReport) -> Option<String> {
    unready_once_answered(server, before, false).and_then(|report| report.note(server.id()))
}

/// The readiness of `server` that makes its answer possibly partial: `before` (after the wait
/// before asking) when it was not ready then, else the readiness once the answer came when the
/// server was loading again by then; `None` when it was ready both times.
pub(crate) fn unready_when_answered(server: &LanguageServer, before: &ReadinessReport) -> Option<ReadinessReport> {
    unready_once_answered(server, before, true)
}

/// [`unready_when_answered`]; `for_lookups` false counts the server's own project check as
/// not ready (a diagnostics answer).
fn unready_once_answered(server: &LanguageServer, before: &ReadinessReport, for_lookups: bool) -> Option<ReadinessReport> {
    // Not ready when asked (after waiting the budget), or indexing again by the time the answer
    // came: either way the answer may be partial, and the model is told so.
    if before.note(server.id()).is_some() {
        return Some(before.clone());
    }
    // The server ends the request's own work-done progress (pyright: "Finding references") just
    // before answering, but the pump thread may apply that `end` after the answer reached us:
    // give it a moment (returns as soon as the server is ready again).
    let grace_end = Instant::now() + OWN_PROGRESS_END_GRACE;
    let after = if for_lookups { server.wait_until_ready_for_lookups(grace_end) } else { server.wait_until_ready(grace_end) };
    let report = ReadinessReport { readiness: after.readiness, waited: before.waited };
    report.note(server.id()).is_some().then_some(report)
}

/// How long the readiness check after an answer waits for progress that ended before the answer
/// to be applied by the message thread (only spent when the server looks busy).
const OWN_PROGRESS_END_GRACE: Duration = Duration::from_millis(250);

pub(crate) fn request_error(query: &Query<'_>, method: &str, failure: &RequestFailure, readiness: &ReadinessReport) -> ToolError {
    let server_id = query.server.id();
    match failure {
        RequestFailure::Server(err) => {
            let lower = err.message.to_lowercase();
            let no_identifier = [
                "no identifier",
                "no symbol",
                "not found at position",
                "no references found",
                "cannot find",
                "no node",
                "not an identifier",
                "no definition",
                "no object found",
            ]
            .iter()
            .any(|needle| lower.contains(needle));
            if no_identifier {
                return ToolError::new(
                    ErrorKind::NotFound,
                    format!(
                        "{server_id} found no identifier at {}:{} column {} (`{}`): {}; the substring is probably inside a comment or string",
                        query.supervisor.display_path(&query.path),
                        query.resolved.line,
                        query.resolved.display_column(),
                        query.resolved.cursor_identifier,
                        err.message
                    ),
                )
                .with_hint("address an identifier in code: pass a `symbol` that names it outside comments and strings");
            }
            let mut tool_error = failure.to_tool_error(server_id, method);
            match readiness.note(server_id) {
                Some(note) => {
                    tool_error.message.push_str(&format!(" ({})", note.trim_start_matches("note: ")));
                    tool_error.with_hint("retry in a few seconds, once the server is ready; if it persists, `lsp` op reload restarts the server")
                }
                // A ready server that refuses the request at this position gives the same answer
                // again (trial110 M4: gopls's "not a type name or method" for `implementation` at
                // an embedded field came with "retry in a few seconds").
                None => tool_error.with_hint(format!(
                    "{server_id} was ready and refused this request at this position: asking again gives the same answer; address the symbol's declaration (a type's or an interface's name, a method's name) or use another op (`references`, `hover`)"
                )),
            }
        }
        RequestFailure::Transport(err) => {
            let mut err = err.clone();
            if query.server.exit_description().is_some() {
                err.message = format!("{server_id} exited while answering {method}: {}", err.message);
                err.kind = ErrorKind::Unavailable;
                err.hint = Some("call again: the server is restarted on the next call".to_owned());
            }
            err
        }
    }
}

/// A location resolved to a listed path and the text of its line.
pub(crate) struct Place {
    /// The path, classified and shortened; `None` for a URI that is not a file.
    pub(crate) path: Option<ListedPath>,
    /// The URI when it is not a file path.
    pub(crate) uri: String,
    /// 1-based.
    pub(crate) line: u32,
    /// The source line (trimmed, cut at 200 characters); empty when not quoted.
    pub(crate) text: String,
    /// Whether the line was read: lines are quoted from the workspace and from dependency code
    /// the run knows (site-packages, toolchain sysroots, module and registry caches,
    /// `node_modules`, standard libraries, system headers — [`ListedPath`]'s origins), never
    /// from another outside file (a workspace configuration can point a server anywhere).
    pub(crate) quoted: bool,
}

impl Place {
    /// The path as a list line shows it (with its origin mark).
    pub(crate) fn labeled(&self) -> String {
        self.path.as_ref().map(ListedPath::labeled).unwrap_or_else(|| self.uri.clone())
    }

    /// `path:line [origin]`.
    pub(crate) fn located(&self) -> String {
        self.path.as_ref().map(|path| path.with_line(self.line)).unwrap_or_else(|| format!("{}:{}", self.uri, self.line))
    }

    pub(crate) fn rank(&self) -> PathClass {
        self.path.as_ref().map(ListedPath::rank).unwrap_or(PathClass::Outside)
    }

    /// The line as a list shows it, or why it is not shown.
    pub(crate) fn shown(&self) -> &str {
        if self.quoted {
            &self.text
        } else {
            "(line not quoted: outside the workspace and its known dependency roots)"
        }
    }

    pub(crate) fn absolute(&self) -> Option<&Path> {
        self.path.as_ref().map(|path| path.absolute.as_path())
    }

    pub(crate) fn to_location(&self) -> ListedLocation {
        ListedLocation::new(self.path.as_ref(), &self.uri, self.line, &self.text, self.quoted)
    }
}

pub(crate) struct SourceCache {
    workspace_root: PathBuf,
    /// The project's granted outside roots (quoted like dependency code).
    project_roots: Vec<PathBuf>,
    /// Per URI: the listed path and the file's lines (`None` when unreadable), computed once per
    /// answer (a call hierarchy places hundreds of call sites in a few large files).
    files: HashMap<String, (ListedPath, Option<Vec<String>>)>,
    /// The workspace root, opened once per answer: every workspace file is read beneath it.
    reader: Option<crate::files::WorkspaceReader>,
}

impl SourceCache {
    pub(crate) fn new(supervisor: &LspSupervisor) -> SourceCache {
        let workspace_root = supervisor.workspace_root();
        SourceCache {
            workspace_root: workspace_root.to_path_buf(),
            project_roots: supervisor.granted_project_outside_roots(),
            files: HashMap::new(),
            reader: crate::files::WorkspaceReader::open(workspace_root).ok(),
        }
    }

    /// The text of the workspace file `path`, read beneath the root with no symlink followed
    /// (`None` when that fails: missing, not UTF-8, a symlink swapped onto the path).
    pub(crate) fn read_workspace_text(&self, path: &Path) -> Option<String> {
        self.reader.as_ref()?.read_to_string(path).ok()
    }

    /// Resolves an LSP `uri` + 0-based `line` into a [`Place`].
    pub(crate) fn place(&mut self, uri: &str, line0: u32) -> Place {
        if !self.files.contains_key(uri) {
            let Some(path) = uri_to_path(uri) else {
                return Place { path: None, uri: uri.to_owned(), line: line0 + 1, text: String::new(), quoted: false };
            };
            // Classified by where it resolves: a symlink into an unknown place is that place.
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            let listed = ListedPath::new_in_project(&self.workspace_root, &path, &self.project_roots);
            // Only the workspace and dependency code of a known origin are read at all.
            let lines = (listed.class != PathClass::Outside || listed.origin.is_some())
                .then(|| match (&listed.class, &listed.origin_root) {
                    // Dependency code outside the workspace: read beneath its dependency root only.
                    (PathClass::Outside, Some(dependency_root)) => {
                        crate::files::read_dependency_file_to_string(dependency_root, &path).ok()
                    }
                    _ => self.read_workspace_text(&path),
                })
                .flatten()
                .map(|text| split_lines(&text).into_iter().map(str::to_owned).collect());
            self.files.insert(uri.to_owned(), (listed, lines));
        }
        let (listed, lines) = &self.files[uri];
        let quoted = listed.class != PathClass::Outside || listed.origin.is_some();
        let text = lines.as_ref().and_then(|lines| lines.get(line0 as usize)).map(|line| cut_chars(line.trim(), 200)).unwrap_or_default();
        Place { path: Some(listed.clone()), uri: uri.to_owned(), line: line0 + 1, text, quoted }
    }

    /// For a Python file: the `def` header starting at the 0-based `line0`, continued to the
    /// parenthesis closing its parameter list ([`crate::lsp::outline::python_def_header`]);
    /// `None` for other files and unreadable lines.
    pub(crate) fn python_def_header(&mut self, uri: &str, line0: u32) -> Option<String> {
        if !self.files.contains_key(uri) {
            self.place(uri, line0);
        }
        let (listed, lines) = self.files.get(uri)?;
        if !listed.absolute.extension().is_some_and(|ext| ext == "py" || ext == "pyi") {
            return None;
        }
        crate::lsp::outline::python_def_header(lines.as_ref()?, line0 as usize)
    }

    /// The type a member declared at 0-based `line0` belongs to, read from the lines above: the
    /// nearest less indented line that is not blank, a comment or a decorator, when it declares a
    /// Python `class NAME` or a Go `type NAME interface`/`struct` (also inside a `type ( … )`
    /// group). `None` otherwise (a top-level function, an unreadable file).
    pub(crate) fn member_owner(&mut self, uri: &str, line0: u32) -> Option<String> {
        if !self.files.contains_key(uri) {
            self.place(uri, line0);
        }
        let lines = self.files.get(uri)?.1.as_ref()?;
        let indentation = |line: &str| line.len() - line.trim_start().len();
        let own = indentation(lines.get(line0 as usize)?);
        if own == 0 {
            return None;
        }
        let owner_line = lines[..line0 as usize].iter().rev().find(|line| {
            let trimmed = line.trim_start();
            !trimmed.is_empty()
                && !trimmed.starts_with('#')
                && !trimmed.starts_with("//")
                && !trimmed.starts_with('@')
                && indentation(line) < own
        })?;
        let words: Vec<&str> = owner_line.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|word| !word.is_empty()).collect();
        match words.as_slice() {
            ["class", name, ..] => Some((*name).to_owned()),
            ["type", name, "interface" | "struct", ..] | [name, "interface" | "struct", ..] => Some((*name).to_owned()),
            _ => None,
        }
    }

    /// The whole 0-based line `line0` of a file [`SourceCache::place`] resolved, if readable.
    fn line(&mut self, uri: &str, line0: u32) -> Option<&str> {
        if !self.files.contains_key(uri) {
            self.place(uri, line0);
        }
        self.files.get(uri)?.1.as_ref()?.get(line0 as usize).map(String::as_str)
    }
}

/// `(uri, range)` (0-based, server encoding) of each location in a definition-like answer: a
/// `Location`, `Location[]`, or `LocationLink[]` (a link's target selection range).
fn location_ranges(answer: Option<lsp_types::GotoDefinitionResponse>) -> Vec<(String, lsp_types::Range)> {
    response_locations(answer).into_iter().map(|location| (location.uri.as_str().to_owned(), location.range)).collect()
}

/// The locations of a definition or implementation answer, a link as its target's selection
/// range; empty for `null`.
pub(crate) fn response_locations(answer: Option<lsp_types::GotoDefinitionResponse>) -> Vec<lsp_types::Location> {
    match answer {
        None => Vec::new(),
        Some(lsp_types::GotoDefinitionResponse::Scalar(location)) => vec![location],
        Some(lsp_types::GotoDefinitionResponse::Array(locations)) => locations,
        Some(lsp_types::GotoDefinitionResponse::Link(links)) => {
            links.into_iter().map(|link| lsp_types::Location { uri: link.target_uri, range: link.target_selection_range }).collect()
        }
    }
}

/// What a location's single-line range covers, when that says more than its line: the entry of
/// a derive list (`derive(Clone)` — rust-analyzer puts every derived impl of a type on its
/// `#[derive(…)]` line), or the text at the range when several locations share one line.
/// `None` when the range spans lines, is empty, or covers the whole trimmed line.
fn range_label(
    uri: &str,
    range: &lsp_types::Range,
    encoding: PositionEncoding,
    line_shared: bool,
    sources: &mut SourceCache,
) -> Option<String> {
    if range.start.line != range.end.line || range.start.character >= range.end.character {
        return None;
    }
    let line_text = sources.line(uri, range.start.line)?;
    let start = encoding.byte_from_column(line_text, range.start.character);
    let end = encoding.byte_from_column(line_text, range.end.character);
    let covered = line_text.get(start..end)?.trim();
    if covered.is_empty() || covered == line_text.trim() {
        return None;
    }
    let derive_list = line_text.trim_start().starts_with("#[") && line_text[..start].contains("derive(");
    if derive_list {
        Some(format!("derive({covered})"))
    } else if line_shared {
        Some(format!("at `{}`", cut_chars(covered, 60)))
    } else {
        None
    }
}

pub(crate) fn unparseable(server_id: &str, method: &str, err: &serde_json::Error, answer: &Value) -> ToolError {
    let raw = cut_chars(&answer.to_string(), 300);
    ToolError::failed(format!("{server_id}'s answer to {method} could not be read: {err}; answer began: {raw}"))
}

/// Appends the page notice and the legend of shortened dependency roots to a list's text.
pub(crate) fn push_page_footer(out: &mut String, page: &Page, tally: &PathTally) {
    if let Some(notice) = page.notice() {
        out.push_str(&notice);
        out.push('\n');
    }
    let legend = tally.legend();
    if !legend.is_empty() {
        out.push_str(&format!("shortened paths: {}\n", legend.join("; ")));
    }
}

/// The count line of a list: `N <what>` plus, when not all are workspace code, where the rest
/// lie (`12 in the workspace (3 files); 5 outside: site-packages 5 (2 files)`). `extra` follows
/// the count; `extra_counts_another_unit` says it counts something else than `noun` (`, 3 call
/// sites` after `2 callees`), and then the places are said to be counted by `noun`.
pub(crate) fn counted(total: usize, noun: &str, extra: &str, extra_counts_another_unit: bool, tally: &PathTally) -> String {
    match tally.summary() {
        // The tally counts `noun`s, not what `extra` counts (trial168 M5: "2 callees, 3 call
        // sites — 1 in the workspace …; 1 in dependencies" read as splitting the call sites).
        Some(summary) if extra_counts_another_unit => format!("{}{extra} — by {noun}: {summary}", plural(total, noun)),
        Some(summary) => format!("{}{extra} — {summary}", plural(total, noun)),
        None => format!("{}{extra}", plural(total, noun)),
    }
}

/// For a TypeScript/JavaScript `definition` whose range spans lines and whose first line does
/// not name the queried identifier (not an aliased import's declaration, `import { a as b }`,
/// nor a default export — those are one-line names): the label saying the target is the module file, not that line — tsserver's definition of a
/// namespace binding (`import * as either`) is the module, its span at the module's first
/// statement (trial179 M4: "Either.ts:5: import type { LazyArg } …" read as `either`'s
/// declaration).
fn module_definition_label(
    query: &Query<'_>,
    what: &str,
    uri: &str,
    range: &lsp_types::Range,
    place: &Place,
    cache: &mut SourceCache,
) -> Option<String> {
    let name = query.resolved.cursor_identifier.as_str();
    if what != "definition"
        || name.is_empty()
        || range.end.line == range.start.line
        || !crate::lsp::syntax::is_typescript_family(&query.path)
    {
        return None;
    }
    let line_text = cache.line(uri, range.start.line)?;
    if crate::lsp::position::contains_word(line_text, name) {
        return None;
    }
    let file = place.labeled();
    Some(format!(
        "the module {file} itself, not this line: this line does not name `{name}` — for a namespace binding (`import * as {name}`) the definition is the whole module, and the server's span starts at its first statement"
    ))
}

fn render_locations(
    query: &Query<'_>,
    what: &str,
    answer: Option<lsp_types::GotoDefinitionResponse>,
    offset: usize,
) -> Result<(String, Vec<LocationEntry>, Option<Page>), ToolError> {
    let answered_null = answer.is_none();
    let mut found = location_ranges(answer);
    let mut seen = HashSet::new();
    found.retain(|(uri, range)| seen.insert((uri.clone(), range.start.line, range.start.character)));
    if found.is_empty() {
        let raw = if answered_null { "null" } else { "an empty list" };
        return Ok((query.empty_answer(what, raw), Vec::new(), None));
    }
    let mut cache = SourceCache::new(query.supervisor);
    let mut lines_seen: HashMap<(String, u32), usize> = HashMap::new();
    for (uri, range) in &found {
        *lines_seen.entry((uri.clone(), range.start.line)).or_default() += 1;
    }
    let mut places: Vec<(Place, Option<String>, u32)> = found
        .iter()
        .map(|(uri, range)| {
            let place = cache.place(uri, range.start.line);
            let shared = lines_seen.get(&(uri.clone(), range.start.line)).copied().unwrap_or(0) > 1;
            let label = module_definition_label(query, what, uri, range, &place, &mut cache)
                .or_else(|| range_label(uri, range, query.encoding, shared, &mut cache));
            (place, label, range.start.character)
        })
        .collect();
    // Workspace code first; the server's order within each class (implementations: by file and
    // line, so several impls on one `#[derive(…)]` line sit together).
    if what == "implementations" {
        places.sort_by_key(|(place, _, character)| (place.rank(), place.labeled(), place.line, *character));
    } else {
        places.sort_by_key(|(place, _, _)| place.rank());
    }
    let mut tally = PathTally::default();
    places.iter().filter_map(|(place, _, _)| place.path.as_ref()).for_each(|path| tally.add(path));
    let page = Page::new(places.len(), offset, query.supervisor.config().locations_cap, "locations")?;
    let mut out = format!("{}:\n", counted(places.len(), "location", "", false, &tally));
    let mut results = Vec::new();
    for (place, label, _) in &places[page.range()] {
        let label_text = label.as_deref().map(|label| format!("   ← {label}")).unwrap_or_default();
        out.push_str(&format!("{}: {}{label_text}\n", place.located(), place.shown()));
        results.push(LocationEntry { location: place.to_location(), target: label.clone() });
    }
    push_page_footer(&mut out, &page, &tally);
    Ok((out.trim_end().to_owned(), results, Some(page)))
}

fn render_references(
    query: &Query<'_>,
    answer: Option<Vec<lsp_types::Location>>,
    marks: &HashMap<crate::lsp::go_method_uses::LocationKey, String>,
    offset: usize,
) -> Result<(String, Vec<ReferenceEntry>, Option<Page>), ToolError> {
    let answered_null = answer.is_none();
    // `(uri, start line, start character)` (0-based, server encoding) of each reference.
    let found: Vec<(String, u32, u32)> = answer
        .unwrap_or_default()
        .into_iter()
        .map(|location| (location.uri.as_str().to_owned(), location.range.start.line, location.range.start.character))
        .collect();
    if found.is_empty() {
        let raw = if answered_null { "null" } else { "an empty list" };
        return Ok((query.empty_answer("references", raw), Vec::new(), None));
    }
    let mut cache = SourceCache::new(query.supervisor);
    // Each location once (servers repeat some); several on one line stay several references.
    let mut seen = HashSet::new();
    let places: Vec<(Place, u32, &String)> = found
        .iter()
        .filter(|location| seen.insert((*location).clone()))
        .map(|(uri, line0, character)| (cache.place(uri, *line0), *character, uri))
        .collect();
    // Workspace code first (the queried file first of all), then dependencies inside the
    // workspace, then outside; by path, then line and column.
    let queried = query.path.as_path();
    // Generated files (`// Code generated … DO NOT EDIT.`, `@generated`) after the hand-written
    // ones (trial165 M1: 1,410 of rivo/uniseg's 1,417 `prExtend` references are rows of three
    // generated tables, and the 6 hand-written uses were spread over 29 pages).
    let mut generated: HashMap<PathBuf, bool> = HashMap::new();
    let mut is_generated = |place: &Place| {
        place.absolute().is_some_and(|path| {
            *generated
                .entry(path.to_path_buf())
                .or_insert_with(|| crate::files::generated::is_generated_file(query.supervisor.workspace_root(), path))
        })
    };
    let mut keyed: Vec<(_, (Place, u32, &String))> = places
        .into_iter()
        .map(|(place, character, uri)| {
            let key = (place.rank(), place.absolute() != Some(queried), is_generated(&place), place.labeled(), place.line, character);
            (key, (place, character, uri))
        })
        .collect();
    keyed.sort_by(|(a, _), (b, _)| a.cmp(b));
    let generated_files: HashSet<String> = keyed.iter().filter(|(key, _)| key.2).map(|(key, _)| key.3.clone()).collect();
    let places: Vec<(Place, u32, &String)> = keyed.into_iter().map(|(_, entry)| entry).collect();
    let total = places.len();
    let mut tally = PathTally::default();
    let mut per_file: BTreeMap<String, usize> = BTreeMap::new();
    let mut file_order: Vec<String> = Vec::new();
    for (place, _, _) in &places {
        if let Some(path) = &place.path {
            tally.add(path);
        }
        let labeled = place.labeled();
        if !per_file.contains_key(&labeled) {
            file_order.push(labeled.clone());
        }
        *per_file.entry(labeled).or_default() += 1;
    }
    let n_files = per_file.len();
    let page = Page::new(total, offset, query.supervisor.config().references_cap, "references")?;
    let extra = format!(" in {}", plural(n_files, "file"));
    let mut out = format!("{}:\n", counted(total, "reference", &extra, false, &tally));
    // More than one page over several files: each file's count up front, in listing order.
    if total > query.supervisor.config().references_cap && n_files > 1 {
        const FILES_COUNTED: usize = 20;
        let mut counts: Vec<String> = file_order
            .iter()
            .take(FILES_COUNTED)
            .map(|file| {
                let mark = if generated_files.contains(file) { ", generated" } else { "" };
                format!("{file} ({}{mark})", per_file.get(file).copied().unwrap_or(0))
            })
            .collect();
        if file_order.len() > FILES_COUNTED {
            counts.push(format!("and {} more files", file_order.len() - FILES_COUNTED));
        }
        out.push_str(&format!(
            "by file, in listing order{}: {}\n",
            if generated_files.is_empty() { "" } else { " (generated files last)" },
            counts.join(", ")
        ));
    }
    // The queried reference: on the queried line, the one starting at the cursor's identifier,
    // else the last starting before it (trial173 M4: the three references to a type parameter on
    // its declaration line were each marked "← queried position").
    let (_, cursor_character) = query.resolved.lsp_position(query.encoding);
    let on_queried_line: Vec<u32> = places
        .iter()
        .filter(|(place, _, _)| place.absolute() == Some(queried) && place.line == query.resolved.line)
        .map(|(_, character, _)| *character)
        .collect();
    let queried_character = on_queried_line
        .iter()
        .copied()
        .find(|character| *character == cursor_character)
        .or_else(|| on_queried_line.iter().copied().filter(|character| *character <= cursor_character).max())
        .or_else(|| on_queried_line.iter().copied().min());
    // Lines holding several references give the first one's column too.
    let mut per_line: HashMap<(String, u32), usize> = HashMap::new();
    for (place, _, _) in &places {
        *per_line.entry((place.labeled(), place.line)).or_default() += 1;
    }
    let mut results = Vec::new();
    let mut current: Option<String> = None;
    let mut previous_line: Option<u32> = None;
    for (place, character, uri) in &places[page.range()] {
        let labeled = place.labeled();
        if current.as_deref() != Some(labeled.as_str()) {
            let count = per_file.get(&labeled).copied().unwrap_or(0);
            out.push_str(&format!("{labeled} ({count}):\n"));
            current = Some(labeled);
            previous_line = None;
        }
        let queried_here = place.absolute() == Some(queried) && place.line == query.resolved.line && Some(*character) == queried_character;
        let related = marks.get(&((*uri).clone(), place.line.saturating_sub(1), *character));
        let marker = match related {
            Some(mark) => format!("   ← {mark}"),
            None if queried_here => "   ← queried position".to_owned(),
            None => String::new(),
        };
        if previous_line == Some(place.line) {
            out.push_str(&format!("  {}: (again on this line, column {}){marker}\n", place.line, character + 1));
        } else {
            let several = per_line.get(&(place.labeled(), place.line)).is_some_and(|count| *count > 1);
            let column = if several { format!("   (column {})", character + 1) } else { String::new() };
            out.push_str(&format!("  {}: {}{column}{marker}\n", place.line, place.shown()));
        }
        previous_line = Some(place.line);
        results.push(ReferenceEntry { location: place.to_location(), column: character + 1 });
    }
    push_page_footer(&mut out, &page, &tally);
    Ok((out.trim_end().to_owned(), results, Some(page)))
}

/// The first place among a hover's definition locations that is outside the workspace and its
/// known dependency roots, labeled (`/opt/x.py:3 [outside workspace]`); `None` when every one is
/// workspace or dependency code, or when the definition could not be asked.
fn hover_defined_outside(supervisor: &LspSupervisor, defined: &Result<Vec<(String, lsp_types::Range)>, String>) -> Option<String> {
    let workspace_root = supervisor.workspace_root();
    let project_roots = supervisor.granted_project_outside_roots();
    let locations = defined.as_ref().ok()?;
    locations.iter().find_map(|(uri, range)| {
        let path = uri_to_path(uri)?;
        // Classified by where it resolves, as list entries are (`SourceCache::place`).
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let listed = ListedPath::new_in_project(workspace_root, &path, &project_roots);
        (listed.class == PathClass::Outside && listed.origin.is_none()).then(|| listed.with_line(range.start.line + 1))
    })
}

/// A hover's contents as one markdown text: a language string becomes a fenced code block,
/// several parts are joined by blank lines.
pub(crate) fn hover_contents_text(contents: lsp_types::HoverContents) -> String {
    let marked = |marked: lsp_types::MarkedString| match marked {
        lsp_types::MarkedString::String(text) => text,
        lsp_types::MarkedString::LanguageString(code) => format!("```{}\n{}\n```", code.language, code.value),
    };
    match contents {
        lsp_types::HoverContents::Scalar(item) => marked(item),
        lsp_types::HoverContents::Array(items) => items.into_iter().map(marked).collect::<Vec<_>>().join("\n\n"),
        lsp_types::HoverContents::Markup(markup) => markup.value,
    }
}

/// Whether `line` declares `name` as its first word after a declaration keyword (`const`, `let`,
/// `var`, `function`, `class`, `interface`, `type`, `enum`, `def`, `fn`, `struct`, `trait`,
/// `func`, with `export`/`pub`/`async` before) or as a member (`name:`, `name =`, `name(` at the
/// line's start, indented or not).
fn line_declares(line: &str, name: &str) -> bool {
    let mut rest = line.trim_start();
    for modifier in ["export ", "pub ", "async ", "static ", "readonly ", "default "] {
        rest = rest.strip_prefix(modifier).unwrap_or(rest).trim_start();
    }
    let mut had_keyword = false;
    for keyword in
        ["const ", "let ", "var ", "function ", "class ", "interface ", "type ", "enum ", "def ", "fn ", "struct ", "trait ", "func "]
    {
        if let Some(after) = rest.strip_prefix(keyword) {
            rest = after.trim_start();
            had_keyword = true;
            break;
        }
    }
    let Some(after) = rest.strip_prefix(name) else { return false };
    let after = after.trim_start();
    // `name(…)` with no keyword declares only as a method (`name(x) {`): a call statement
    // (`zip(strict=True)`, trial96 F1) does not.
    let method_shape = line.trim_end().ends_with('{');
    !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
        && (after.starts_with(':')
            || (after.starts_with('=') && !after.starts_with("=="))
            || (after.starts_with('(') && (had_keyword || method_shape))
            || after.starts_with('{')
            || after.starts_with('<')
            || (after.is_empty() && !line.trim_start().starts_with(name)))
}

fn render_hover(query: &Query<'_>, answer: Option<lsp_types::Hover>) -> (String, Vec<HoverEntry>) {
    let Some(hover) = answer else {
        return (query.empty_answer("hover information", "null"), Vec::new());
    };
    let text = decode_entities_outside_code(hover_contents_text(hover.contents).trim());
    if text.is_empty() {
        return (query.empty_answer("hover information", "an empty hover"), Vec::new());
    }
    let cap = query.supervisor.config().hover_chars_cap;
    let shown = cut_chars(&text, cap);
    (shown, vec![HoverEntry { hover: text }])
}

/// Decodes HTML character references (`&nbsp;`, `&lt;`, `&#39;`, …) that servers put into hover
/// markdown (pyright indents docstrings with `&nbsp;` and escapes `<`), outside fenced code
/// blocks and inline code spans (where they are literal text); a no-break space becomes a plain
/// space, and trailing spaces (markdown hard breaks) are dropped.
fn decode_entities_outside_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<String> = None;
    for (index, line) in text.lines().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let trimmed = line.trim_start();
        let marker: String = trimmed.chars().take_while(|c| *c == '`' || *c == '~').collect();
        if marker.len() >= 3 && marker.chars().all(|c| c == marker.chars().next().unwrap_or('`')) {
            match &fence {
                Some(open) if marker.starts_with(open.as_str()) => fence = None,
                None => fence = Some(marker),
                Some(_) => {}
            }
            out.push_str(line.trim_end());
            continue;
        }
        if fence.is_some() {
            out.push_str(line);
            continue;
        }
        // Outside code blocks: decode between inline code spans only.
        for (part_index, part) in line.trim_end().split('`').enumerate() {
            if part_index > 0 {
                out.push('`');
            }
            if part_index % 2 == 1 {
                out.push_str(part);
            } else {
                let decoded =
                    if part.contains('&') { html_escape::decode_html_entities(part).replace('\u{a0}', " ") } else { part.to_owned() };
                out.push_str(&unescape_markdown_backslashes(&decoded));
            }
        }
    }
    out
}

/// Removes markdown backslash escapes (`\_` → `_`, `\*` → `*`: a backslash before ASCII
/// punctuation, CommonMark §2.4) from text outside code (pyright escapes `__call__` as
/// `\_\_call\_\_`); any other backslash is kept.
fn unescape_markdown_backslashes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek() {
                if next.is_ascii_punctuation() {
                    out.push(next);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

fn render_code_actions(query: &Query<'_>, answer: &Value) -> Result<(String, Vec<CodeActionEntry>), ToolError> {
    let actions = crate::lsp::code_action::parse_actions(answer, query.server.id())?;
    if actions.is_empty() {
        return Ok((format!("no code actions offered by {} at this position", query.server.id()), Vec::new()));
    }
    // Actions the server offers but disables here (typescript-language-server lists every
    // refactoring with its reason) are counted on one line; numbers stay the server's.
    let mut enabled = Vec::new();
    let mut disabled = Vec::new();
    let mut results = Vec::new();
    for (index, action) in actions.iter().enumerate() {
        let (line, entry) = crate::lsp::code_action::describe_action(index + 1, action, query.supervisor.workspace_root());
        if entry.disabled.is_some() {
            disabled.push(format!("{}. {}", index + 1, entry.title));
        } else {
            enabled.push(line);
        }
        results.push(entry);
    }
    let mut out = match (enabled.len(), disabled.len()) {
        (_, 0) => format!("{}:\n", plural(actions.len(), "code action")),
        (0, _) => format!("{} offered, all disabled here:\n", plural(actions.len(), "code action")),
        (n, _) => format!("{} offered, {n} applicable here:\n", plural(actions.len(), "code action")),
    };
    for line in &enabled {
        out.push_str(line);
        out.push('\n');
    }
    if !disabled.is_empty() {
        out.push_str(&format!(
            "disabled here by {} ({}; reasons in structuredContent): {}\n",
            query.server.id(),
            disabled.len(),
            cut_chars(&disabled.join("; "), 400)
        ));
    }
    out.push_str(
        "apply one with lsp_code_action (write tier): the same file, line and symbol plus \"apply\": N (and \"title\" to be sure it is the same action); \"preview\": true stages it for resolve instead of writing",
    );
    Ok((out, results))
}

/// The LSP number of a diagnostic severity: 1 error (also when absent, as the specification
/// lets clients assume), 2 warning, 3 information, 4 hint, 5 for a value outside the spec.
fn severity_number(severity: Option<lsp_types::DiagnosticSeverity>) -> u8 {
    match severity {
        None | Some(lsp_types::DiagnosticSeverity::ERROR) => 1,
        Some(lsp_types::DiagnosticSeverity::WARNING) => 2,
        Some(lsp_types::DiagnosticSeverity::INFORMATION) => 3,
        Some(lsp_types::DiagnosticSeverity::HINT) => 4,
        Some(_) => 5,
    }
}

/// Why rust-analyzer's diagnostics hold no rustc errors when [`rust_analyzer_check_off`].
const RUST_ANALYZER_CHECK_OFF: &str = "rust-analyzer's cargo check (check on save) is off in this run (a restricted workspace trust turns it off: it would run build scripts and proc macros)";

/// Whether `server` is rust-analyzer with its cargo check (`checkOnSave`) off — a restricted
/// run, or a host setting: its diagnostics then come from its own analysis only.
fn rust_analyzer_check_off(server: &LanguageServer) -> bool {
    server.id() == "rust-analyzer" && server.definition().settings.pointer("/rust-analyzer/checkOnSave") == Some(&Value::Bool(false))
}

/// How long [`diagnostics_on_line`] waits for the first publish (or tsserver's answer) for a
/// file's current text.
const DIAGNOSTICS_ON_LINE_WAIT: Duration = Duration::from_secs(10);

/// How long [`diagnostics_on_line`] waits for a newer publish after one (servers publish a
/// file's syntactic, semantic and suggestion sets one after another).
const DIAGNOSTICS_ON_LINE_SETTLE: Duration = Duration::from_millis(500);

/// Published (and, where supported, pulled) diagnostics overlapping 0-based `line0`, for a
/// code-action context (each with its `data` as the server sent it), and a note when those of
/// the file's current text did not arrive within [`DIAGNOSTICS_ON_LINE_WAIT`] (the context may
/// then lack some).
pub(crate) fn diagnostics_on_line(
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    deadline: Instant,
) -> (Vec<lsp_types::Diagnostic>, Option<String>) {
    let mut missing: Option<String> = None;
    let mut published = server.published_diagnostics(path).map(|set| (set.generation, set.diagnostics));
    let wait_end = (Instant::now() + DIAGNOSTICS_ON_LINE_WAIT).min(deadline);
    if server.definition().write_check == crate::lsp::servers::WriteCheck::TsserverRequests {
        // tsserver's own answer for the current text: typescript-language-server publishes
        // without a version, a long file's sets seconds after a change, and an earlier text's set
        // may arrive after the change was sent (trial34 M6b: the list lacked the late suggestion
        // quickfix, the apply a moment later had it, and every number shifted by one).
        match crate::lsp::diagnostics_on_write::tsserver_code_action_diagnostics(server, path, wait_end) {
            Ok(items) => published = Some((0, items)),
            Err(reason) => missing = Some(reason),
        }
    } else if !server.supports("textDocument/diagnostic") {
        // No publish since the text was last sent (a file just resynced after a change outside
        // the tools): wait for the sets of the current text to settle. A server that answers
        // pulls gives them below.
        if let Some(synced) = server.document_synced_generation(path) {
            if published.as_ref().is_none_or(|(generation, _)| *generation <= synced) {
                match server.wait_for_published_diagnostics(path, synced, DIAGNOSTICS_ON_LINE_SETTLE, wait_end) {
                    Some(set) => published = Some((set.generation, set.diagnostics)),
                    None => missing = Some(format!("no publish came within {} ms", DIAGNOSTICS_ON_LINE_WAIT.as_millis())),
                }
            }
        }
    }
    let mut all: Vec<lsp_types::Diagnostic> = published.map(|(_, diagnostics)| diagnostics).unwrap_or_default();
    let pull_deadline = (Instant::now() + Duration::from_secs(3)).min(deadline);
    if let Ok(Some(pulled)) = server.pull_diagnostics(path, pull_deadline) {
        all.extend(pulled);
    }
    all.retain(|diagnostic| (diagnostic.range.start.line..=diagnostic.range.end.line).contains(&line0));
    let note = missing.map(|reason| {
        format!(
            "note: the diagnostics of the file's current text did not arrive ({reason}): quickfixes for them may be missing here and the numbers may shift when they arrive — ask again in a moment, and pass \"title\" with \"apply\""
        )
    });
    (all, note)
}
fn symbols(supervisor: &LspSupervisor, args: &LspArguments, deadline: Instant) -> Result<ToolOutput, ToolError> {
    let deadline = deadline.checked_sub(ANSWER_MARGIN).unwrap_or_else(Instant::now);
    match (&args.query, &args.file) {
        (Some(query), file) => workspace_symbols(supervisor, query, file.as_deref(), args, deadline),
        (None, Some(file)) => document_symbols(supervisor, file, args, deadline),
        (None, None) => Err(ToolError::invalid("symbols needs `query` (workspace search) or `file` (that file's outline)")
            .with_hint("e.g. {\"op\": \"symbols\", \"query\": \"Config\"} or {\"op\": \"symbols\", \"file\": \"src/lib.rs\"}")),
    }
}

/// One workspace symbol result.
struct FoundSymbol {
    name: String,
    kind: &'static str,
    container: Option<String>,
    place: Place,
    /// 0 exact name, 1 exact ignoring case, 2 prefix, 3 substring, 4 other (fuzzy) match.
    match_quality: u8,
    /// The function it is declared in (a local), by the file's syntax tree.
    local_of: Option<String>,
}

fn match_quality(name: &str, query: &str) -> u8 {
    let (lower_name, lower_query) = (name.to_lowercase(), query.to_lowercase());
    if name == query {
        0
    } else if lower_name == lower_query {
        1
    } else if lower_name.starts_with(&lower_query) {
        2
    } else if lower_name.contains(&lower_query) {
        3
    } else {
        4
    }
}

/// A language server's own limit on the length of a `workspace/symbol` answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ResultCap {
    /// At most this many symbols are answered.
    limit: usize,
    /// Where the limit comes from (for the note).
    source: &'static str,
}

/// The known caps on `workspace/symbol` answers, by server id: gopls answers at most 100
/// (`maxSymbols` in gopls' workspace_symbol.go, not configurable), rust-analyzer 128 by default
/// (`rust-analyzer.workspace.symbol.search.limit`), clangd 100 by default (`--limit-results`).
/// pyright, basedpyright and typescript-language-server (tsserver `navto` without
/// `maxResultCount`) answer every match. An answer whose length equals the cap may have been
/// cut by the server.
fn workspace_symbol_result_cap(server_id: &str) -> Option<ResultCap> {
    match server_id {
        "gopls" => Some(ResultCap { limit: 100, source: "gopls answers at most 100, not configurable" }),
        "rust-analyzer" => {
            Some(ResultCap { limit: 128, source: "rust-analyzer's default rust-analyzer.workspace.symbol.search.limit of 128" })
        }
        "clangd" => Some(ResultCap { limit: 100, source: "clangd's default --limit-results of 100" }),
        _ => None,
    }
}

/// Whether rust-analyzer's cargo check (rustc) has the last word on `path` and found no error
/// anywhere: the server checks by a project check run (rust-analyzer), its flycheck set for the
/// file is fresh (`pushed_fresh`), a check run ended after the file's last change with none in
/// progress and none failed to run, nothing changed outside the tools since, and no stored
/// publish of any file holds a rustc error; and the file is library or main code (under a
/// package's `src/`, not `src/bin/`), which every check compiles. Then an error of
/// rust-analyzer's own analysis in the file is one the compiler does not report.
fn rustc_found_no_error_anywhere(server: &LanguageServer, path: &Path, pushed_fresh: bool) -> bool {
    if server.definition().write_check != crate::lsp::WriteCheck::ProjectCheckRun || !pushed_fresh {
        return false;
    }
    let (started, finished) = server.check_runs();
    if finished == 0 || started > finished || server.check_run_failure().is_some() || server.has_stale() {
        return false;
    }
    if server.check_run_diagnostics_still_current(path).is_none() {
        return false;
    }
    // Only code every check compiles: a package's `src/` outside `src/bin/`.
    if !crate::lsp::inactive::in_always_compiled_rust_code(path, server.root()) {
        return false;
    }
    let snapshot = server.published_snapshot();
    crate::lsp::inactive::no_rustc_error_published(snapshot.values().map(|set| &set.diagnostics))
}

/// For tsserver's implementations of an interface member (`TimestampProvider.now`): the members
/// of that name in the classes tsserver lists as implementing the interface (its
/// `implementation` of the interface's name, subinterfaces' classes included) that the answer
/// leaves out — tsserver lists the methods and object-literal members, not a class's property
/// declaration (trial78 F1: rxjs's `public now: () => number;` in `Scheduler`, which implements
/// `SchedulerLike extends TimestampProvider`; tsc requires it). `None` for other servers, or
/// when nothing is missing.
fn typescript_class_members_not_listed(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    resolved: &crate::lsp::position::ResolvedSymbol,
    answer: Option<lsp_types::GotoDefinitionResponse>,
    deadline: Instant,
) -> Option<String> {
    if server.definition().write_check != crate::lsp::WriteCheck::TsserverRequests {
        return None;
    }
    let name = resolved.cursor_identifier.as_str();
    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), path).ok()?;
    let parsed = crate::lsp::syntax::ParsedSource::parse(path, &text)?;
    let owner = parsed.typescript_member_owner_name(resolved.line - 1, name)?;
    // The interface's declaration in this file (a class's member is no interface's).
    let (owner_line0, owner_byte) = text.lines().enumerate().find_map(|(index, line)| {
        let at = line.find(&format!("interface {owner}"))? + "interface ".len();
        let after = line[at + owner.len()..].chars().next();
        after.is_none_or(|c| !(c.is_alphanumeric() || c == '_')).then_some((index as u32, at))
    })?;
    let owner_line = text.lines().nth(owner_line0 as usize)?;
    let character = server.position_encoding().column_from_byte(owner_line, owner_byte);
    let params = lsp_types::request::GotoImplementationParams {
        text_document_position_params: crate::lsp::rename_coverage::text_document_position(path, owner_line0, character),
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    let implementations = server.request::<lsp_types::request::GotoImplementation>(params, deadline).ok()??;
    let listed: HashSet<(PathBuf, u32)> = location_ranges(answer)
        .into_iter()
        .filter_map(|(uri, range)| {
            let listed_path =
                <lsp_types::Uri as std::str::FromStr>::from_str(&uri).ok().and_then(|uri| crate::lsp::uri::lsp_uri_to_path(&uri))?;
            Some((std::fs::canonicalize(&listed_path).unwrap_or(listed_path), range.start.line))
        })
        .collect();
    let mut missing: Vec<String> = Vec::new();
    let mut parsed_files: HashMap<PathBuf, Option<crate::lsp::syntax::ParsedSource>> = HashMap::new();
    for (uri, range) in location_ranges(Some(implementations)) {
        let Some(class_path) =
            <lsp_types::Uri as std::str::FromStr>::from_str(&uri).ok().and_then(|uri| crate::lsp::uri::lsp_uri_to_path(&uri))
        else {
            continue;
        };
        let class_path = std::fs::canonicalize(&class_path).unwrap_or(class_path);
        if !class_path.starts_with(supervisor.workspace_root()) {
            continue;
        }
        let source = parsed_files.entry(class_path.clone()).or_insert_with(|| {
            let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &class_path).ok()?;
            crate::lsp::syntax::ParsedSource::parse(&class_path, &text)
        });
        let Some(class) = source.as_ref().and_then(|source| source.typescript_class_named_at(range.start.line)) else { continue };
        for (member, member_line0) in &class.members {
            // A static member is the class's own, no instance's.
            let is_static = source
                .as_ref()
                .and_then(|source| source.line_text(*member_line0))
                .is_some_and(|line| line.split(name).next().is_some_and(|before| before.split_whitespace().any(|word| word == "static")));
            if member == name && !is_static && !listed.contains(&(class_path.clone(), *member_line0)) {
                let place = format!("`{}.{name}` ({}:{})", class.name, supervisor.display_path(&class_path), member_line0 + 1);
                if !missing.contains(&place) {
                    missing.push(place);
                }
            }
        }
    }
    if missing.is_empty() {
        return None;
    }
    Some(format!(
        "note: NOT in this answer: {} of classes that implement `{owner}` (tsserver's implementations of `{owner}`) and declare `{name}` — a property declaration, which tsserver leaves out of a member's implementations; the compiler requires them: {}",
        crate::render::plural(missing.len(), "member"),
        missing.join(", ")
    ))
}

/// Implementation locations tsserver gives that are no declaration of a class, interface or
/// type — values — and the queried declaration itself, named in a note by how each value gets
/// its type (by the syntax tree, [`crate::lsp::syntax::ParsedSource::value_typing_at`]): a value
/// declared with the type (`const x: T = {…}`, `satisfies T`, a property of such an object)
/// implements it, checked by the compiler (trial32 F1, F3: trpc's `ContentTypeHandler` objects and
/// `createCaller` property had been said not to); a value cast with `as` only claims it (trial30
/// F1: zod's `coerce` arrow functions among `ZodType`'s 42 "implementations"); other values are
/// named without a verdict. `None` when every location is a declaration other than the queried
/// one.
fn implementations_that_are_expressions(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    queried: &Path,
    resolved: &crate::lsp::position::ResolvedSymbol,
    answer: Option<lsp_types::GotoDefinitionResponse>,
) -> Option<String> {
    use crate::lsp::syntax::ValueTyping;
    let encoding = server.position_encoding();
    let queried = std::fs::canonicalize(queried).unwrap_or_else(|_| queried.to_path_buf());
    let mut parsed: HashMap<PathBuf, Option<crate::lsp::syntax::ParsedSource>> = HashMap::new();
    // (file shown, 1-based line, what stands there, how it is typed, a generic annotation's name
    // and type arguments).
    type ListedValue = (String, u32, &'static str, ValueTyping, Option<(String, String)>);
    let mut values: Vec<ListedValue> = Vec::new();
    let mut declaration_names: HashSet<String> = HashSet::new();
    let mut itself = false;
    let ranges = location_ranges(answer);
    let total = ranges.len();
    for (uri, range) in ranges {
        let Some(path) = <lsp_types::Uri as std::str::FromStr>::from_str(&uri).ok().and_then(|uri| crate::lsp::uri::lsp_uri_to_path(&uri))
        else {
            continue;
        };
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let source = parsed.entry(path.clone()).or_insert_with(|| {
            let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path).ok()?;
            crate::lsp::syntax::ParsedSource::parse(&path, &text)
        });
        // The queried declaration itself, when the cursor is on a declaration's name: at a trait
        // named in `impl Drop for Guard` the location on that line is the workspace's own
        // implementation (trial66 F4: fastrand's one `impl Drop` and `impl Default` had been
        // called "the queried declaration itself").
        if path == queried && range.start.line + 1 == resolved.line {
            let cursor_character =
                crate::lsp::position::PositionEncoding::Utf32.column_from_byte(&resolved.line_text, resolved.cursor_byte);
            let queried_is_declaration = source.as_ref().is_some_and(|source| {
                source.reference_role(range.start.line, cursor_character, &resolved.cursor_identifier)
                    == Some(crate::lsp::syntax::ReferenceRole::Declaration)
            });
            if queried_is_declaration {
                itself = true;
                continue;
            }
        }
        let Some(source) = source.as_ref() else { continue };
        let Some(line) = source.line_text(range.start.line) else { continue };
        let byte = encoding.byte_from_column(line, range.start.character);
        if let Some(what) = source.implementation_expression_at(range.start.line, byte) {
            let typing = source.value_typing_at(range.start.line, byte);
            let generic = source.typescript_generic_annotation_at(range.start.line, byte);
            values.push((supervisor.display_path(&path), range.start.line + 1, what, typing, generic));
        } else {
            // A declaration the answer lists (an interface extending the queried one).
            let declared = crate::lsp::rename_inherited_members::identifier_at_byte(line, byte);
            if !declared.is_empty() {
                declaration_names.insert(declared);
            }
        }
    }
    // A value declared with a generic type that takes the queried type (or one the answer
    // declares) as a type argument — `ProxyHandler<[ProxyArrayState]>` — is typed with another
    // type, which the compiler checks instead (trial70 F1): said apart, with no verdict.
    declaration_names.insert(resolved.cursor_identifier.clone());
    let mut wrapped: Vec<String> = Vec::new();
    values.retain(|(file, line, what, typing, generic)| {
        let Some((head, arguments)) = generic.as_ref().filter(|_| *typing == ValueTyping::Declared) else { return true };
        let takes_it =
            declaration_names.iter().any(|declared| !crate::lsp::rename_coverage::word_positions(arguments, declared).is_empty());
        // `Readonly<T>`, `Required<T>`, `NonNullable<T>` values are values of `T`.
        let same_values = matches!(head.as_str(), "Readonly" | "Required" | "NonNullable");
        if takes_it && !same_values && !declaration_names.contains(head) {
            wrapped.push(format!("{file}:{line} ({what}, `{head}{}`)", crate::render::cut_chars(arguments, 60)));
            return false;
        }
        true
    });
    let values: Vec<(String, u32, &'static str, ValueTyping)> =
        values.into_iter().map(|(file, line, what, typing, _)| (file, line, what, typing)).collect();
    if values.is_empty() && !itself && wrapped.is_empty() {
        return None;
    }
    let mut values = values;
    values.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let name = &resolved.cursor_identifier;
    let listed = |typing: ValueTyping| -> Vec<String> {
        values.iter().filter(|value| value.3 == typing).map(|(file, line, what, _)| format!("{file}:{line} ({what})")).collect()
    };
    let shown = |items: &[String]| -> String {
        let head: Vec<&str> = items.iter().take(15).map(String::as_str).collect();
        format!("{}{}", head.join(", "), if items.len() > 15 { format!(" and {} more", items.len() - 15) } else { String::new() })
    };
    let mut parts = Vec::new();
    if itself {
        parts.push(format!("the queried declaration of `{name}` itself (no implementation of itself)"));
    }
    let declared = listed(ValueTyping::Declared);
    if !declared.is_empty() {
        parts.push(format!(
            "{} declared with its type or a type built on it (an annotated variable, `satisfies`, a property of such an object): {} {} it, checked by the compiler — {}",
            crate::render::plural(declared.len(), "value"),
            crate::render::one_or_many(declared.len(), "it", "they"),
            crate::render::one_or_many(declared.len(), "implements", "implement"),
            shown(&declared)
        ));
    }
    let cast = listed(ValueTyping::Cast);
    if !cast.is_empty() {
        parts.push(format!(
            "{} cast with `as` to a type built on it: {} only {} the type (the compiler does not check that a cast value implements it; {} lists such values) — {}",
            crate::render::plural(cast.len(), "value"),
            crate::render::one_or_many(cast.len(), "it", "they"),
            crate::render::one_or_many(cast.len(), "claims", "claim"),
            server.id(),
            shown(&cast)
        ));
    }
    let containers = listed(ValueTyping::Container);
    if !containers.is_empty() {
        parts.push(format!(
            "{} typed as an array, record, map, set or object type holding `{name}` (`const rows: {name}[] = []`, `const ref: {{ current?: {name} }} = {{}}`), which {} values of it and {} no implementation {}; values may be put into {} elsewhere (`push`, `set`, an index assignment) as object literals the container types, which {} does not list: call `lsp references` on the container to find them — {}",
            crate::render::plural(containers.len(), "container"),
            crate::render::one_or_many(containers.len(), "holds", "hold"),
            crate::render::one_or_many(containers.len(), "is", "are"),
            crate::render::one_or_many(containers.len(), "itself", "themselves"),
            crate::render::one_or_many(containers.len(), "it", "them"),
            server.id(),
            shown(&containers)
        ));
    }
    let other = listed(ValueTyping::Unknown);
    if !other.is_empty() {
        parts.push(format!(
            "{} that {} no class, interface or type declaration and whose type the syntax does not show (by the syntax tree; {} relates {} to `{name}` by type) — {}",
            crate::render::plural(other.len(), "expression"),
            crate::render::one_or_many(other.len(), "is", "are"),
            server.id(),
            crate::render::one_or_many(other.len(), "it", "them"),
            shown(&other)
        ));
    }
    if !wrapped.is_empty() {
        parts.push(format!(
            "{} declared with a generic type that takes `{name}` (or a type extending it) as a type argument, which is the type the compiler checks {} against, not `{name}` — whether {} a `{name}` depends on that type (a `ProxyHandler<[T]>` is none) — {}",
            crate::render::plural(wrapped.len(), "value"),
            crate::render::one_or_many(wrapped.len(), "it", "them"),
            crate::render::one_or_many(wrapped.len(), "it is", "they are"),
            shown(&wrapped)
        ));
    }
    let declarations = total - values.len() - wrapped.len() - usize::from(itself);
    // Asked at a method of a Rust trait impl, rust-analyzer lists the trait method's
    // implementations: siblings of the queried one, which nothing implements (trial118 F1:
    // `Iterator::next` of `impl Iterator for Either`, "275 declarations that implement or extend
    // it").
    let impl_trait = (itself && queried.extension().is_some_and(|extension| extension == "rs"))
        .then(|| crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &queried).ok())
        .flatten()
        .and_then(|text| rust_trait_of_enclosing_impl(&text, resolved.line.saturating_sub(1)));
    let rest = match (declarations, impl_trait) {
        (0, _) => String::new(),
        (count, Some(trait_name)) => format!(
            "; the other {count} {} the other {} of the trait method `{trait_name}::{name}`, which the queried one implements too ({} lists a trait method's implementations at any of them; nothing implements a method of an impl block)",
            crate::render::one_or_many(count, "is", "are"),
            crate::render::one_or_many(count, "implementation", "implementations"),
            server.id()
        ),
        (count, None) => format!(
            "; the other {count} {}",
            crate::render::one_or_many(
                count,
                "is a declaration that implements or extends it",
                "are declarations that implement or extend it"
            )
        ),
    };
    // Nothing listed implements it: where its values are made by a cast, which tsserver does not
    // list (trial33 F1, M3: table-core's rows come from `return row as Row<TData>` in createRow).
    let casts = if declarations == 0 && declared.is_empty() { cast_constructions(supervisor, server, name) } else { String::new() };
    Some(format!("note: of these locations: {}{rest}{casts}", parts.join("; ")))
}

/// Whether a Go source line declares an embedded struct field named `name` (`\tclock.Clock`,
/// `\t*Mock`, with an optional tag or comment): the type name alone, optionally qualified and
/// behind a `*`. (A struct's named field has a name before its type.)
fn go_embedded_field_line(line: &str, name: &str) -> bool {
    let code = line.split("//").next().unwrap_or_default().trim();
    let code = match code.find('`') {
        Some(tag) => code[..tag].trim_end(),
        None => code,
    };
    let bare = code.strip_prefix('*').unwrap_or(code);
    let last = bare.rsplit('.').next().unwrap_or(bare);
    last == name && bare.split('.').count() <= 2 && bare.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.')
}

/// Whether 0-based line `line0` of Go `text` lies in a `struct { … }` type (read up to the brace
/// that opens the block around it), not an `interface { … }` (whose embedded names are types).
fn go_line_in_struct_type(text: &str, line0: u32) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    let mut depth = 0i32;
    for above in lines[..(line0 as usize).min(lines.len())].iter().rev() {
        let code = above.split("//").next().unwrap_or_default();
        depth += code.matches('}').count() as i32 - code.matches('{').count() as i32;
        if depth < 0 {
            return code.contains("struct");
        }
    }
    false
}

/// The trait of the `impl Trait for Type` block that encloses 0-based line `line0` of Rust
/// `text` (`Iterator` of `impl<L, R> Iterator for Either<L, R> {`), read up to the nearest
/// `impl` line indented less than the line; `None` in an inherent impl or outside any impl.
pub(crate) fn rust_trait_of_enclosing_impl(text: &str, line0: u32) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let line = lines.get(line0 as usize)?;
    let indentation = |line: &str| line.len() - line.trim_start().len();
    let own = indentation(line);
    // Up past the `{` and `where` lines of a multi-line header.
    let header = lines[..line0 as usize]
        .iter()
        .rev()
        .filter(|above| !above.trim().is_empty() && indentation(above) < own && !above.trim_start().starts_with("//"))
        .find(|above| !matches!(above.trim(), "{" | "where"))?;
    let rest = header.trim_start().strip_prefix("unsafe ").unwrap_or(header.trim_start()).strip_prefix("impl")?;
    // The impl's own generic parameters, balanced.
    let mut rest = rest.trim_start();
    if rest.starts_with('<') {
        let mut depth = 0usize;
        let mut end = 0;
        for (index, c) in rest.char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = index + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = rest[end..].trim_start();
    }
    let (trait_part, _) = rest.split_once(" for ")?;
    let trait_name = trait_part.trim().trim_start_matches('!').split('<').next()?.rsplit("::").next()?.trim();
    (!trait_name.is_empty()).then(|| trait_name.to_owned())
}

/// The note naming the strings of the project's TypeScript files (the server's walk scope) that
/// name `name` as a property key and are not among `listed`; `None` when there is none. Keys of
/// a value in code come first — the left operand of `in`, `Object.hasOwn(x, 'name')` and the
/// other built-in key lookups, an argument of a `keyof` parameter, an element access on an
/// untyped base ([`crate::lsp::string_keys`]) — then keys in types (`Pick<T, 'name'>`, an
/// indexed-access type) and quoted names. tsserver does not count them as references; a rename
/// of the property leaves them. A string argument whose callee's parameter is no `keyof` (a test
/// title, a message) and an element access the server resolves to another declaration are no
/// keys of this property (trial145 M6). Requests stop at `deadline`.
fn string_keys_not_listed(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    name: &str,
    listed: &[lsp_types::Location],
    deadline: Instant,
) -> Option<String> {
    let listed_lines: HashSet<(PathBuf, u32)> = listed
        .iter()
        .filter_map(|location| crate::lsp::uri::lsp_uri_to_path(&location.uri).map(|path| (path, location.range.start.line)))
        .collect();
    // What is listed, by position: a line that reads the property may hold a key of it too
    // (trial145 F3: `'value' in received ? received.value : …` was skipped as a listed line).
    let encoding = server.position_encoding();
    let listed_ranges: HashSet<(PathBuf, u32, u32, u32)> = listed
        .iter()
        .filter(|location| location.range.start.line == location.range.end.line)
        .filter_map(|location| {
            crate::lsp::uri::lsp_uri_to_path(&location.uri)
                .map(|path| (path, location.range.start.line, location.range.start.character, location.range.end.character))
        })
        .collect();
    let is_listed = |hit: &crate::lsp::rename_coverage::WordHit| {
        let column = encoding.column_from_byte(&hit.line_text, hit.byte_start);
        listed_ranges.iter().any(|(path, line0, start, end)| *path == hit.path && *line0 == hit.line && (*start..=*end).contains(&column))
    };
    let listed_canonical: HashSet<(PathBuf, u32)> =
        listed_lines.iter().map(|(path, line0)| (std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()), *line0)).collect();
    let grep = crate::lsp::rename_coverage::grep_word(server.definition(), supervisor.workspace_root(), server.root(), name);
    let mut parsed: HashMap<PathBuf, Option<crate::lsp::syntax::ParsedSource>> = HashMap::new();
    let parse = |path: &Path| -> Option<crate::lsp::syntax::ParsedSource> {
        let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), path).ok()?;
        crate::lsp::syntax::ParsedSource::parse(path, &text)
    };
    // The types that declare the member among the listed locations (an interface's member and a
    // class's that implements it): a key over another named type names another property
    // (trial35 F1: `Pick<FieldMetaBase, "errorMap">` was named as missed by the references of
    // `BaseFormState.errorMap`).
    let mut owners: HashSet<String> = HashSet::new();
    // The same with the canonical path of each one's file: a key over a type built on one of them
    // names the member too (trial168 M2: `PartialKeys<TableOptionsResolved<TData>,
    // 'onStateChange'>`, whose `TableOptionsResolved` extends `CoreOptions`, was left out unsaid).
    let mut owner_declarations: Vec<(PathBuf, String)> = Vec::new();
    for (path, line0) in listed_lines.iter().take(200) {
        let source = parsed.entry(path.clone()).or_insert_with(|| parse(path));
        if let Some(owner) = source.as_ref().and_then(|source| source.typescript_member_owner_name(*line0, name)) {
            let declaration = (std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()), owner.clone());
            if !owner_declarations.contains(&declaration) {
                owner_declarations.push(declaration);
            }
            owners.insert(owner);
        }
    }
    let mut checker = crate::lsp::string_keys::StringKeyChecker::new(server, supervisor.workspace_root(), deadline);
    // Keys of a value in code first: tsc fails there once the property is renamed and they are
    // not (trial145 F3: `'value' in received` was never named).
    let mut keys_of_values: Vec<String> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    let mut unchecked_arguments = 0usize;
    for hit in &grep.hits {
        if is_listed(hit) {
            continue;
        }
        let quoted = hit.byte_start > 0 && matches!(hit.line_text.as_bytes().get(hit.byte_start - 1), Some(b'\'' | b'"' | b'`'));
        if !quoted {
            continue;
        }
        let source = parsed.entry(hit.path.clone()).or_insert_with(|| parse(&hit.path));
        let Some(source) = source.as_ref() else { continue };
        let Some(role) = source.string_property_key_role(hit.line, hit.byte_start, name.len()) else { continue };
        // The expression that uses a key of a value (`'value' in received`), else the line.
        let said = |role: &str| {
            let written = source.string_key_expression_text(hit.line, hit.byte_start).unwrap_or_else(|| hit.line_text.trim().to_owned());
            format!("{}:{} ({role}: `{}`)", supervisor.display_path(&hit.path), hit.line + 1, crate::render::cut_chars(&written, 80))
        };
        if crate::lsp::syntax::is_key_of_a_value_role(role) {
            match checker.check(&hit.path, source, hit.line, hit.byte_start, role) {
                crate::lsp::string_keys::KeyCheck::Key(role) => keys_of_values.push(said(&role)),
                // The server resolves the access: a listed declaration's key would be listed.
                crate::lsp::string_keys::KeyCheck::Defined(target, target_line) => {
                    if listed_canonical.contains(&(target, target_line)) {
                        keys_of_values.push(said(role));
                    }
                }
                crate::lsp::string_keys::KeyCheck::NotKey { .. } => {}
                crate::lsp::string_keys::KeyCheck::Unchecked => unchecked_arguments += 1,
            }
            continue;
        }
        // A key over another named type names another property unless that type extends the
        // member's; over a type parameter (`TParams['_ctx_out']`, TParams constrained to the
        // owner) it may name this one.
        let other_base = source.string_key_base_type_name(hit.line, hit.byte_start).filter(|base| {
            !owners.is_empty() && !owners.contains(base) && !source.typescript_type_parameter_in_scope(hit.line, hit.byte_start, base)
        });
        if let Some(base) = other_base {
            match checker.keyed_type_base(&hit.path, source, hit.line, hit.byte_start, &owner_declarations, name) {
                built_on @ crate::lsp::string_keys::KeyedTypeBase::BuiltOn(_) => {
                    let chain = built_on.chain_said().unwrap_or_else(|| format!("`{base}` declares it"));
                    keys.push(said(&format!("{role} of `{base}`; {chain}, so it names this member — lsp_rename renames it")));
                }
                crate::lsp::string_keys::KeyedTypeBase::Unrelated => {}
                crate::lsp::string_keys::KeyedTypeBase::Unchecked => keys.push(said(&format!(
                    "{role} of `{base}`, not settled in time whether it extends the member's type: it names this member only if so"
                ))),
            }
            continue;
        }
        keys.push(said(role));
    }
    let key_count = keys_of_values.len() + keys.len();
    if key_count == 0 && unchecked_arguments == 0 {
        return None;
    }
    // Past the request budget or the deadline: said, not dropped.
    let unchecked = (unchecked_arguments > 0).then(|| {
        format!(
            "{unchecked_arguments} {} that {} exactly `{name}` {} not checked in time — an argument names this property only where its callee's parameter is a `keyof`, an element access only where its base has it: check {} by the callee's declaration",
            crate::render::one_or_many(unchecked_arguments, "string argument or element access", "string arguments or element accesses"),
            crate::render::one_or_many(unchecked_arguments, "is", "are"),
            crate::render::one_or_many(unchecked_arguments, "was", "were"),
            crate::render::one_or_many(unchecked_arguments, "it", "them"),
        )
    });
    if key_count == 0 {
        return unchecked.map(|unchecked| format!("note: {unchecked}"));
    }
    let unchecked = unchecked.map(|unchecked| format!("; {unchecked}")).unwrap_or_default();
    let all: Vec<String> = keys_of_values.into_iter().chain(keys).collect();
    let shown: Vec<&str> = all.iter().take(10).map(String::as_str).collect();
    Some(format!(
        "note: {} that {} `{name}` as a property key {} NOT in this list ({} does not count such strings as references; lsp_rename renames with the property the keys in types over its type or a type built on it, and leaves the others: where one names this property, tsc likely fails there after the rename (an `in` test no longer narrows) or the lookup misses at run time — edit those strings with the rename): {}{}{unchecked}",
        crate::render::plural(key_count, "string"),
        crate::render::one_or_many(key_count, "names", "name"),
        crate::render::one_or_many(key_count, "is", "are"),
        server.id(),
        shown.join(", "),
        if all.len() > shown.len() { format!(" and {} more", all.len() - shown.len()) } else { String::new() }
    ))
}

/// `; values of it are made by a cast …: file:line (`text`), …` — the lines of the project's
/// TypeScript files (the server's walk scope) that cast to `name` (`x as Name<…>`, `as unknown as
/// Name`), at most 5 shown; empty when none.
fn cast_constructions(supervisor: &LspSupervisor, server: &LanguageServer, name: &str) -> String {
    let grep = crate::lsp::rename_coverage::grep_word(server.definition(), supervisor.workspace_root(), server.root(), name);
    let mut parsed: HashMap<PathBuf, Option<crate::lsp::syntax::ParsedSource>> = HashMap::new();
    let casts: Vec<String> = grep
        .hits
        .iter()
        .filter(|hit| {
            let before = hit.line_text[..hit.byte_start.min(hit.line_text.len())].trim_end();
            if !before.strip_suffix("as").is_some_and(|rest| rest.ends_with(|c: char| !crate::lsp::position::is_identifier_char(c))) {
                return false;
            }
            // By the syntax tree: `as Row<TData>[]` makes an array of them, not one, also when
            // its `>[]` is lines further down (trial35 F4: form-core's `as FieldInfo<\n any,\n
            // TFormValidator\n >[]` was named as a cast that makes a `FieldInfo`).
            let source = parsed.entry(hit.path.clone()).or_insert_with(|| {
                let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &hit.path).ok()?;
                crate::lsp::syntax::ParsedSource::parse(&hit.path, &text)
            });
            source.as_ref().is_some_and(|source| source.is_whole_cast_target(hit.line, hit.byte_start, name))
        })
        .map(|hit| {
            format!("{}:{} (`{}`)", supervisor.display_path(&hit.path), hit.line + 1, crate::render::cut_chars(hit.line_text.trim(), 80))
        })
        .collect();
    if casts.is_empty() {
        return String::new();
    }
    let shown: Vec<&str> = casts.iter().take(5).map(String::as_str).collect();
    format!(
        "; {} to `{name}` {} values of it (the compiler does not check that a cast value implements it): {}{} — values whose type is only annotated elsewhere (a function's return type, a parameter) are not among these: call `lsp references` on `{name}` to find them",
        crate::render::plural(casts.len(), "cast"),
        crate::render::one_or_many(casts.len(), "claims", "claim"),
        shown.join(", "),
        if casts.len() > shown.len() { format!(" and {} more", casts.len() - shown.len()) } else { String::new() }
    )
}

/// Methods of a Go interface asked by [`go_interface_implementations_through_methods`] at most.
const GO_INTERFACE_METHODS_ASKED: usize = 8;

/// For a Go `type NAME interface { … }` at the queried line (its own line or an entry of a
/// `type ( … )` group) that gopls answered no implementation for: gopls's implementations of each
/// of its methods (at most [`GO_INTERFACE_METHODS_ASKED`]), kept for the receiver types that
/// declare every method, as the concrete method declarations, with the note that says so
/// (embedded interfaces' methods are not asked: said). `None` when the line declares no
/// interface, the interface has no method of its own, or no type declares them all.
fn go_interface_implementations_through_methods(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    queried: &Path,
    resolved: &crate::lsp::position::ResolvedSymbol,
    deadline: Instant,
) -> Option<(Vec<lsp_types::Location>, String)> {
    let name = resolved.cursor_identifier.as_str();
    let declares_interface = resolved
        .line_text
        .split_whitespace()
        .collect::<Vec<_>>()
        .windows(2)
        .any(|pair| pair[0] == name && (pair[1] == "interface" || pair[1].starts_with("interface{")));
    if !declares_interface {
        return None;
    }
    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), queried).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    let start = resolved.line as usize;
    // The methods of the body: `name(…)` lines up to the closing brace; embedded names counted.
    let mut methods: Vec<(u32, usize, String)> = Vec::new();
    let mut embedded = 0usize;
    let mut depth = resolved.line_text.matches('{').count() as i64 - resolved.line_text.matches('}').count() as i64;
    for (index, line) in lines.iter().enumerate().skip(start) {
        if depth <= 0 {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        let trimmed = code.trim();
        if depth == 1 && !trimmed.is_empty() && trimmed != "}" {
            let identifier: String = trimmed.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !identifier.is_empty() && trimmed[identifier.len()..].trim_start().starts_with('(') {
                let byte = code.find(identifier.as_str()).unwrap_or(0);
                methods.push((index as u32, byte, identifier));
            } else {
                embedded += 1;
            }
        }
        depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
    }
    if methods.is_empty() {
        return None;
    }
    let encoding = server.position_encoding();
    let asked: Vec<&(u32, usize, String)> = methods.iter().take(GO_INTERFACE_METHODS_ASKED).collect();
    // Per receiver type: its method declarations, one per asked method.
    let mut by_type: BTreeMap<String, Vec<lsp_types::Location>> = BTreeMap::new();
    let mut reads: HashMap<PathBuf, Option<String>> = HashMap::new();
    for (line0, byte, _) in &asked {
        let params = lsp_types::GotoDefinitionParams {
            text_document_position_params: lsp_types::TextDocumentPositionParams {
                text_document: crate::lsp::client::text_document(queried),
                position: lsp_types::Position { line: *line0, character: encoding.column_from_byte(lines[*line0 as usize], *byte) },
            },
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        };
        let Ok(found) = server.request::<GotoImplementation>(params, deadline) else { return None };
        let mut seen_for_method: HashSet<String> = HashSet::new();
        for (uri, range) in location_ranges(found) {
            let Some(path) = crate::lsp::uri::uri_to_path(&uri) else { continue };
            let source = reads
                .entry(path.clone())
                .or_insert_with(|| crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path).ok());
            let Some(line) = source.as_deref().and_then(|text| text.lines().nth(range.start.line as usize)) else { continue };
            let Some(receiver) = crate::lsp::rename_public_api::go_method_receiver_type(line) else { continue };
            if seen_for_method.insert(receiver.clone()) {
                let Ok(uri) = uri.parse() else { continue };
                by_type.entry(receiver).or_default().push(lsp_types::Location { uri, range });
            }
        }
    }
    let complete: Vec<(String, Vec<lsp_types::Location>)> =
        by_type.into_iter().filter(|(_, declarations)| declarations.len() == asked.len()).collect();
    if complete.is_empty() {
        return None;
    }
    let method_names: Vec<String> = asked.iter().map(|(_, _, method)| format!("`{method}`")).collect();
    let mut caveats: Vec<String> = Vec::new();
    if methods.len() > asked.len() {
        caveats.push(format!("only its first {} methods were asked", asked.len()));
    }
    if embedded > 0 {
        caveats.push(format!(
            "the methods of its {} were not asked, so a listed type may lack some",
            crate::render::plural(embedded, "embedded interface")
        ));
    }
    let methods_text = if asked.len() == 1 {
        format!("its method {}", method_names[0])
    } else {
        format!("all of its methods ({})", method_names.join(", "))
    };
    let note = format!(
        "note: gopls answered no implementation for the interface `{name}` itself (it misses some interfaces); listed instead: the {} that declare {methods_text}, found by asking gopls for the implementations of {}, each at its {}: {}{}",
        crate::render::plural(complete.len(), "type"),
        crate::render::one_or_many(asked.len(), "that method", "those methods"),
        method_names[0],
        complete.iter().map(|(receiver, _)| receiver.as_str()).collect::<Vec<_>>().join(", "),
        if caveats.is_empty() { String::new() } else { format!(" — {}", caveats.join("; ")) },
    );
    let locations = complete.into_iter().filter_map(|(_, declarations)| declarations.into_iter().next()).collect();
    Some((locations, note))
}

/// The locations whose range's text is `name` (or that cannot be read, or are on the `queried`
/// line — path, 0-based line: kept), and the others as `path:line` (1-based) with the text found
/// there.
fn locations_naming(
    supervisor: &LspSupervisor,
    locations: Option<Vec<lsp_types::Location>>,
    name: &str,
    encoding: crate::lsp::position::PositionEncoding,
    queried: &(PathBuf, u32),
) -> (Option<Vec<lsp_types::Location>>, Vec<String>) {
    let Some(locations) = locations else { return (None, Vec::new()) };
    let mut texts: HashMap<PathBuf, Option<String>> = HashMap::new();
    let mut kept = Vec::new();
    let mut left_out = Vec::new();
    for location in locations {
        let Some(path) = crate::lsp::uri::lsp_uri_to_path(&location.uri) else {
            kept.push(location);
            continue;
        };
        if path == queried.0 && location.range.start.line == queried.1 {
            kept.push(location);
            continue;
        }
        let text = texts.entry(path.clone()).or_insert_with(|| crate::lsp::listing::read_listed_file(supervisor.workspace_root(), &path));
        let found = text.as_deref().and_then(|text| {
            let range = location.range;
            if range.start.line != range.end.line {
                return None;
            }
            let line = text.lines().nth(range.start.line as usize)?;
            let start = encoding.byte_from_column(line, range.start.character);
            let end = encoding.byte_from_column(line, range.end.character);
            line.get(start..end).map(str::to_owned)
        });
        match found {
            Some(found) if found != name && !found.is_empty() && found.chars().all(crate::lsp::position::is_identifier_char) => {
                left_out.push(format!("{}:{} `{found}`", supervisor.display_path(&path), location.range.start.line + 1));
            }
            _ => kept.push(location),
        }
    }
    (Some(kept), left_out)
}

/// When tsserver lists no implementation of a member: the references that assign a function or
/// value to it (`inst.nonoptional = (params) => …`, `{ nonoptional() {…} }`), which implement it
/// where no class does — tsserver does not follow such assignments (trial31 F2: every method of
/// zod 3.25.76's `ZodType` interface answered "no implementations"). `None` for other servers,
/// when none assigns, or when the references could not be asked (said).
fn members_assigned_instead(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    queried: &Path,
    resolved: &crate::lsp::position::ResolvedSymbol,
    deadline: Instant,
) -> Option<String> {
    if server.definition().write_check != crate::lsp::WriteCheck::TsserverRequests {
        return None;
    }
    let encoding = server.position_encoding();
    let (line0, character) = resolved.lsp_position(encoding);
    let uri = crate::lsp::client::text_document(queried).uri.as_str().to_owned();
    let name = resolved.cursor_identifier.as_str();
    let references = match crate::lsp::call_aliases::references(server, &uri, line0, character, deadline) {
        Ok(references) => references,
        Err(reason) => return Some(format!("note: whether a reference assigns an implementation to `{name}` is unknown: {reason}")),
    };
    let mut parsed: HashMap<PathBuf, Option<crate::lsp::syntax::ParsedSource>> = HashMap::new();
    let mut assigned: Vec<String> = Vec::new();
    for (uri, line0, character) in references {
        let Some(path) = <lsp_types::Uri as std::str::FromStr>::from_str(&uri).ok().and_then(|uri| crate::lsp::uri::lsp_uri_to_path(&uri))
        else {
            continue;
        };
        let source = parsed.entry(path.clone()).or_insert_with(|| {
            let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path).ok()?;
            crate::lsp::syntax::ParsedSource::parse(&path, &text)
        });
        let Some(source) = source.as_ref() else { continue };
        let Some(line) = source.line_text(line0) else { continue };
        let hint = line[..encoding.byte_from_column(line, character).min(line.len())].chars().count() as u32;
        if let Some(what) = source.member_assignment_at(line0, hint, name) {
            assigned.push(format!(
                "{}:{} ({what}: `{}`)",
                supervisor.display_path(&path),
                line0 + 1,
                crate::render::cut_chars(line.trim(), 80)
            ));
        }
    }
    if assigned.is_empty() {
        return None;
    }
    let shown: Vec<&str> = assigned.iter().take(10).map(String::as_str).collect();
    Some(format!(
        "note: {} lists no implementation, but {} of `{name}` {} a function or value to it — implementations made by assignment, which {} does not follow: {}{}",
        server.id(),
        crate::render::plural(assigned.len(), "reference"),
        crate::render::one_or_many(assigned.len(), "assigns", "assign"),
        server.id(),
        shown.join(", "),
        if assigned.len() > shown.len() { format!(" and {} more", assigned.len() - shown.len()) } else { String::new() }
    ))
}

/// For gopls' implementations of a Go type or method: the standard interfaces the code calls
/// dynamically (`go_dynamic_standard_interface`: `io.WriterTo`, `json.Marshaler`, …) whose
/// method the type has, with its name and parameters, that the answer does not list — gopls
/// searches the workspace's packages and those it loaded, and left out bitset's `io.WriterTo` and
/// `io.ReaderFrom` ("no implementations found" at `WriteTo`, trial65 F1). A type's methods are
/// read from the `.go` files of its directory. `None` when nothing is missing or for other
/// servers.
fn go_standard_interfaces_not_listed(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    resolved: &crate::lsp::position::ResolvedSymbol,
    answer: Option<lsp_types::GotoDefinitionResponse>,
) -> Option<String> {
    if server.id() != "gopls" {
        return None;
    }
    let name = resolved.cursor_identifier.as_str();
    let line = resolved.line_text.trim_start();
    // (method, place, interface) the queried type or method has.
    let mut found: Vec<(String, String, &'static str)> = Vec::new();
    let method_query = line.starts_with("func (");
    if method_query {
        // One method of a several-method interface (sort.Interface's `Len`) says nothing alone.
        let interface = crate::lsp::rename_coverage::go_dynamic_standard_interface(line, name).filter(|i| *i != "sort.Interface")?;
        found.push((name.to_owned(), format!("{}:{}", supervisor.display_path(path), resolved.line), interface));
    } else if line.starts_with("type ")
        || line.split_whitespace().nth(1).is_some_and(|word| word == "struct" || word.starts_with("struct{"))
    {
        let directory = path.parent()?;
        for (file, kind) in crate::files::walk_beneath::list_directory(supervisor.workspace_root(), directory) {
            let file_name = file.file_name().and_then(|name| name.to_str()).unwrap_or("");
            if !kind.is_file() || !file_name.ends_with(".go") || file_name.ends_with("_test.go") {
                continue;
            }
            let Ok(text) = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &file) else { continue };
            for (index, text_line) in text.lines().enumerate() {
                let Some((receiver_type, pointer_receiver, after)) = crate::lsp::go_dynamic_interfaces::go_receiver(text_line) else {
                    continue;
                };
                if receiver_type != name {
                    continue;
                }
                let method: String = after.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if let Some(interface) = crate::lsp::rename_coverage::go_dynamic_standard_interface(text_line, &method) {
                    // A pointer receiver's method is in `*T`'s method set only (trial169 M7:
                    // blang/semver's `func (v *Version) Scan`: a `Version` value is no sql.Scanner).
                    let place = format!("{}:{}", supervisor.display_path(&file), index + 1);
                    let place = if pointer_receiver {
                        format!("{place}, a pointer receiver: `*{name}` implements it, a value of type `{name}` does not")
                    } else {
                        place
                    };
                    found.push((method, place, interface));
                }
            }
        }
    } else {
        return None;
    }
    // sort.Interface counts only with all three of its methods.
    let sort_methods = found.iter().filter(|(_, _, interface)| *interface == "sort.Interface").count();
    if sort_methods < 3 {
        found.retain(|(_, _, interface)| *interface != "sort.Interface");
    } else {
        let mut first = true;
        found.retain(|(_, _, interface)| *interface != "sort.Interface" || std::mem::replace(&mut first, false));
    }
    // An interface is listed when a location's line declares it (`type WriterTo interface {`) or
    // declares its method inside it.
    let listed_lines: Vec<String> = location_ranges(answer)
        .into_iter()
        .filter_map(|(uri, range)| {
            let path = <lsp_types::Uri as std::str::FromStr>::from_str(&uri).ok().and_then(|uri| crate::lsp::uri::lsp_uri_to_path(&uri))?;
            // The standard library is read through its dependency root.
            let text = crate::lsp::listing::read_listed_file(supervisor.workspace_root(), &path)?;
            text.lines().nth(range.start.line as usize).map(str::to_owned)
        })
        .collect();
    let missing: Vec<(String, String, &'static str)> = found
        .into_iter()
        .filter(|(method, _, interface)| {
            let short = interface.rsplit('.').next().unwrap_or(interface);
            !listed_lines.iter().any(|line| {
                let line = line.trim_start();
                line.starts_with(&format!("type {short} interface")) || (line.starts_with(&format!("{method}(")) && interface.contains('.'))
            })
        })
        .collect();
    if missing.is_empty() {
        return None;
    }
    // Who makes those calls, per interface (database/sql for `driver.Valuer`, fmt for `Stringer`).
    let mut callers: Vec<&'static str> = Vec::new();
    for (_, _, interface) in &missing {
        let caller = crate::lsp::rename_coverage::go_dynamic_caller(interface);
        if !callers.contains(&caller) {
            callers.push(caller);
        }
    }
    let callers = callers.join("; ");
    let missing: Vec<String> =
        missing.into_iter().map(|(method, place, interface)| format!("`{interface}` ({method} at {place})")).collect();
    Some(if method_query {
        format!(
            "note: NOT in this answer: `{name}` has the name and parameters of the method of {} — a standard interface the library calls dynamically, which gopls did not list here; code that holds the type as that interface ({callers}) calls `{name}` with no compile-time link to it",
            missing.join(", ")
        )
    } else {
        format!(
            "note: NOT in this answer: standard interfaces whose methods `{name}` has — {} — which the library calls dynamically and gopls did not list here; code that holds `{name}` as one of them ({callers}) calls those methods with no compile-time link to them",
            missing.join(", ")
        )
    })
}

/// The type name at the start of `text` (after an impl's ` for ` or its generics): references
/// and lifetimes stripped (`&'a mut Slab<T>` → `Slab`), a path's last segment (`crate::Slab`).
fn rust_type_after(text: &str) -> Option<&str> {
    let mut rest = text.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix('&') {
            rest = after.trim_start();
        } else if rest.starts_with('\'') {
            let end = rest.find(char::is_whitespace)?;
            rest = rest[end..].trim_start();
        } else if let Some(after) = rest.strip_prefix("mut ") {
            rest = after.trim_start();
        } else if let Some(after) = rest.strip_prefix("dyn ") {
            rest = after.trim_start();
        } else {
            break;
        }
    }
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
    let path = &rest[..end];
    let name = path.rsplit("::").next()?;
    (!name.is_empty()).then_some(name)
}

/// `text` after a leading generic parameter list (`<T: Clone> Slab<T>` → `Slab<T>`), or `text`.
fn rust_skip_generics(text: &str) -> &str {
    if !text.starts_with('<') {
        return text;
    }
    let mut depth = 0usize;
    let mut previous = ' ';
    for (index, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            // `->` in a bound (`F: Fn() -> u8`) closes nothing.
            '>' if previous != '-' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return text[index + 1..].trim_start();
                }
            }
            _ => {}
        }
        previous = c;
    }
    text
}

/// Whether a Rust `line` declares a struct, enum, union or trait named `name` (`pub(crate)
/// struct OnceCell<T> {`).
fn rust_line_declares_type(line: &str, name: &str) -> bool {
    let mut words = line.split_whitespace().peekable();
    while let Some(word) = words.next() {
        if !(word == "pub" || word.starts_with("pub(")) {
            return matches!(word, "struct" | "enum" | "union" | "trait")
                && words.next().is_some_and(|declared| {
                    declared.strip_prefix(name).is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
                });
        }
    }
    false
}

/// For rust-analyzer's implementations of a trait `name`: the `impl … name … for …` lines grep
/// finds in the project that are not in the answer (rust-analyzer leaves out impls inside
/// function bodies — similar 2.7.0: 6 implementations of `DiffHook`, and 3 more `impl DiffHook
/// for HasRunFinish` in test functions — and impls in code it does not analyze, behind a
/// `#[cfg]` that is off), and apart from them the lines inside `macro_rules!` bodies (templates
/// whose expansions are the listed implementations). With `method` (the answer is for a trait
/// method, `name` its trait): those impls' definitions of the method, the impls that use the
/// trait's default left out. With `type_query` (`name` is a struct, enum or union): the impl blocks
/// of the type — its own and the traits' for it, for a reference to it too (`for &'a Slab<T>`,
/// which rust-analyzer does not list). Empty when every such line is in the answer, for other
/// servers, or when the answer is empty (not a trait, or nothing known).
fn rust_impls_not_listed(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    name: &str,
    method: Option<&str>,
    type_query: bool,
    answer: Option<lsp_types::GotoDefinitionResponse>,
    queried: Option<(&Path, u32, u32, Instant)>,
) -> Vec<String> {
    if server.definition().write_check != crate::lsp::WriteCheck::ProjectCheckRun {
        return Vec::new();
    }
    let listed: HashSet<(PathBuf, u32)> = location_ranges(answer)
        .into_iter()
        .filter_map(|(uri, range)| {
            let path = <lsp_types::Uri as std::str::FromStr>::from_str(&uri).ok().and_then(|uri| crate::lsp::uri::lsp_uri_to_path(&uri))?;
            Some((std::fs::canonicalize(&path).unwrap_or(path), range.start.line))
        })
        .collect();
    // An empty answer for a trait is "not a trait"; for a trait method it may be that every
    // impl that defines the method is one rust-analyzer leaves out.
    if listed.is_empty() && method.is_none() {
        return Vec::new();
    }
    let grep = crate::lsp::rename_coverage::grep_word(server.definition(), server.workspace_root(), server.root(), name);
    let mut missing: Vec<(PathBuf, u32)> = Vec::new();
    let mut seen: HashSet<(PathBuf, u32)> = HashSet::new();
    for hit in &grep.hits {
        let code = hit.line_text.split("//").next().unwrap_or_default();
        // `#[derive(Hash, Eq)]`: an implementation too, listed at the attribute or the item
        // below it (trial107 F1: lru's `KeyDropCounter`, derived inside a `#[test]` function,
        // was missing from "2 in the workspace" while explicit impls there were named).
        if !type_query {
            if let Some(derive_at) = code.find("derive(") {
                let inside =
                    code[derive_at..].find(')').is_some_and(|close| hit.byte_start > derive_at && hit.byte_start < derive_at + close);
                if inside {
                    let canonical = std::fs::canonicalize(&hit.path).unwrap_or_else(|_| hit.path.clone());
                    let near = (hit.line..=hit.line + 4).any(|line0| listed.contains(&(canonical.clone(), line0)));
                    if !near && seen.insert((canonical, hit.line)) {
                        missing.push((hit.path.clone(), hit.line));
                    }
                    continue;
                }
            }
        }
        let Some(impl_at) = code.find("impl") else { continue };
        if !code[..impl_at].trim().is_empty() && !code[..impl_at].trim_end().ends_with("unsafe") {
            continue;
        }
        let for_at = code.find(" for ");
        let matched = if type_query {
            // `impl<…> Trait for Type`, `… for &'a Type`, `… for &'a mut Type`, and the type's
            // own `impl<T> Type<T>`: the name right after ` for ` (references stripped), or
            // right after `impl` and its generics (trial64 M1: slab's `impl IntoIterator for &'a
            // Slab<T>` and the serde impls were not listed, with no note).
            match for_at {
                Some(for_at) => hit.byte_start > for_at && rust_type_after(&code[for_at + " for ".len()..]) == Some(name),
                None => rust_type_after(rust_skip_generics(code[impl_at + "impl".len()..].trim_start())) == Some(name),
            }
        } else {
            // `impl<…> Trait for Type` / `impl<D: Trait> Trait for …`: the name right before ` for `.
            let Some(for_at) = for_at else { continue };
            let before_for = code[..for_at].trim_end();
            let names_trait = before_for.ends_with(name)
                || before_for
                    .strip_suffix('>')
                    .is_some_and(|rest| rest.rsplit_once('<').is_some_and(|(head, _)| head.trim_end().ends_with(name)));
            names_trait && impl_at < for_at && hit.byte_start < for_at
        };
        if !matched {
            continue;
        }
        let canonical = std::fs::canonicalize(&hit.path).unwrap_or_else(|_| hit.path.clone());
        if !listed.contains(&(canonical.clone(), hit.line)) && seen.insert((canonical, hit.line)) {
            missing.push((hit.path.clone(), hit.line));
        }
    }
    // An `impl … for $T` inside a `macro_rules!` body is a template: the implementations listed
    // at the macro's invocations are its expansions (num-integer's `Roots`: 12 listed, and the
    // 2 template lines were named "NOT in this answer" with reasons that did not apply — trial21
    // M8).
    let mut templates: Vec<String> = Vec::new();
    let mut ranges_by_file: HashMap<PathBuf, Vec<(u32, u32)>> = HashMap::new();
    missing.retain(|(path, line0)| {
        let ranges = ranges_by_file.entry(path.clone()).or_insert_with(|| {
            crate::files::read_workspace_file_to_string(server.workspace_root(), path)
                .map(|text| crate::lsp::inactive::macro_rules_line_ranges(&text))
                .unwrap_or_default()
        });
        let template = ranges.iter().any(|(first, last)| (*first..=*last).contains(line0));
        if template {
            templates.push(format!("{}:{}", supervisor.display_path(path), line0 + 1));
        }
        !template
    });
    // Asked at the declaration: an impl line whose name rust-analyzer resolves to another
    // declaration is for another type or trait of the same name (trial67 M1: once_cell's four
    // `OnceCell` types; 25 impls of the others were named missing from a complete answer).
    let mut other_same_named = 0usize;
    if let Some((queried_path, line0, character, deadline)) = queried {
        let declared = crate::lsp::rename_coverage::definition_targets(server, queried_path, line0, character, deadline);
        if !declared.is_empty() {
            let encoding = server.position_encoding();
            missing.retain(|(path, line0)| {
                if Instant::now() >= deadline {
                    return true;
                }
                let Ok(text) = crate::files::read_workspace_file_to_string(server.workspace_root(), path) else { return true };
                let Some(line_text) = text.lines().nth(*line0 as usize) else { return true };
                let code = line_text.split("//").next().unwrap_or_default();
                // A derive names the derive macro (`core::hash::Hash`, a macro beside the trait, or
                // serde_derive's for serde's trait), never the trait itself: kept.
                if code.contains("derive(") {
                    return true;
                }
                // The name in the impl header's position the grep matched on: after ` for `, or
                // the type of an inherent impl, or the trait before ` for `.
                let Some(byte) = crate::lsp::rename_coverage::word_positions(code, name).into_iter().last() else { return true };
                let targets = crate::lsp::rename_coverage::definition_targets(
                    server,
                    path,
                    *line0,
                    encoding.column_from_byte(line_text, byte),
                    deadline,
                );
                // Unresolved (code behind an off `#[cfg]`): a file that declares a type or trait
                // of that name itself implements its own (once_cell's `imp_cs.rs`).
                let declares_own = || {
                    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                    !declared.iter().any(|(declared_path, _, _)| *declared_path == canonical)
                        && text.lines().any(|line| rust_line_declares_type(line, name))
                };
                let another = if targets.is_empty() { declares_own() } else { targets.is_disjoint(&declared) };
                other_same_named += usize::from(another);
                !another
            });
        }
    }
    let mut sentences = Vec::new();
    if other_same_named > 0 && missing.is_empty() {
        sentences.push(format!(
            "note: {} impl block(s) of other declarations named `{name}` (rust-analyzer resolves their `{name}` elsewhere, or their file declares its own) are rightly not in this answer",
            other_same_named
        ));
    }
    if let Some(method) = method {
        // The impls' own definitions of the method; an impl that uses the default has none.
        let mut parsed: HashMap<PathBuf, Option<crate::lsp::syntax::ParsedSource>> = HashMap::new();
        let definitions: Vec<(PathBuf, u32)> = missing
            .iter()
            .filter_map(|(path, impl_line0)| {
                let source = parsed.entry(path.clone()).or_insert_with(|| {
                    let text = crate::files::read_workspace_file_to_string(server.workspace_root(), path).ok()?;
                    crate::lsp::syntax::ParsedSource::parse(path, &text)
                });
                let line0 = source.as_ref()?.rust_impl_method_line(*impl_line0, method)?;
                let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                (!listed.contains(&(canonical, line0))).then(|| (path.clone(), line0))
            })
            .collect();
        if !definitions.is_empty() {
            sentences.push(format!(
                "note: NOT in this answer: {} `fn {method}` in `impl {name} for …` blocks grep finds: {}{} — {} leaves out impls inside function bodies (test helpers) and in code behind a `#[cfg]` that is off; they implement this method too: read them before changing it",
                definitions.len(),
                definitions.iter().take(15).map(|(path, line0)| format!("{}:{}", supervisor.display_path(path), line0 + 1)).collect::<Vec<_>>().join(", "),
                if definitions.len() > 15 { format!(" and {} more", definitions.len() - 15) } else { String::new() },
                server.id()
            ));
        }
        return sentences;
    }
    if !missing.is_empty() && type_query {
        sentences.push(format!(
            "note: NOT in this answer: {} impl block(s) of `{name}` grep finds: {}{} — {} leaves out impls for a reference to the type (`impl … for &{name}`), inside function bodies and in code behind a `#[cfg]` that is off; read them before changing the type",
            missing.len(),
            missing.iter().take(15).map(|(path, line0)| format!("{}:{}", supervisor.display_path(path), line0 + 1)).collect::<Vec<_>>().join(", "),
            if missing.len() > 15 { format!(" and {} more", missing.len() - 15) } else { String::new() },
            server.id()
        ));
    } else if !missing.is_empty() {
        sentences.push(format!(
            "note: NOT in this answer: {} `impl {name} for …` line(s) grep finds: {}{} — {} leaves out impls inside function bodies (test helpers) and in code behind a `#[cfg]` that is off; read them before changing the trait",
            missing.len(),
            missing.iter().take(15).map(|(path, line0)| format!("{}:{}", supervisor.display_path(path), line0 + 1)).collect::<Vec<_>>().join(", "),
            if missing.len() > 15 { format!(" and {} more", missing.len() - 15) } else { String::new() },
            server.id()
        ));
    }
    if !templates.is_empty() {
        sentences.push(format!(
            "note: {} `impl {name} for …` line(s) grep finds are inside `macro_rules!` bodies — templates, not implementations of their own; the implementations listed at the macro's invocations are their expansions: {}{}",
            templates.len(),
            templates.iter().take(15).cloned().collect::<Vec<_>>().join(", "),
            if templates.len() > 15 { format!(" and {} more", templates.len() - 15) } else { String::new() },
        ));
    }
    sentences
}

/// Traits whose methods Rust calls without naming them, and how: (trait, the implicit calls).
const RUST_IMPLICITLY_CALLED: &[(&str, &str)] = &[
    ("Deref", "`*x` and auto-deref (`x.method()` of the target type, `&x` coercions)"),
    ("DerefMut", "`*x = …` and mutable auto-deref"),
    ("Drop", "every value of the type going out of scope, and `drop(x)`"),
    ("Index", "`x[i]`"),
    ("IndexMut", "`x[i] = …`"),
    ("Iterator", "`for` loops and adapters (`next`)"),
    ("IntoIterator", "`for` loops (`into_iter`)"),
    ("PartialEq", "`==` and `!=`"),
    ("PartialOrd", "`<`, `<=`, `>`, `>=`"),
    ("Ord", "sorting and ordered collections"),
    ("Hash", "hash maps and sets"),
    ("Display", "`format!`/`println!` with `{}`"),
    ("Debug", "`{:?}` formatting"),
    ("Add", "`+`"),
    ("Sub", "`-`"),
    ("Mul", "`*`"),
    ("Div", "`/`"),
    ("Rem", "`%`"),
    ("Neg", "unary `-`"),
    ("Not", "`!`"),
    ("AddAssign", "`+=`"),
    ("SubAssign", "`-=`"),
    ("Future", "`.await`"),
    ("Clone", "`#[derive]`d clones and generic code (most calls name `clone`)"),
];

/// For a Rust method at `resolved` in `path` that implements a trait Rust calls implicitly
/// ([`RUST_IMPLICITLY_CALLED`]: `Deref::deref` by `*x`, `Drop::drop` at scope end): the note that
/// rust-analyzer lists no implicit call, so the answer leaves them out (trial40 F6: `deref` of
/// once_cell's `sync::Lazy` had "1 reference" and "no callers"). `None` otherwise.
pub(crate) fn rust_implicit_calls_note(supervisor: &LspSupervisor, path: &Path, resolved: &ResolvedSymbol) -> Option<String> {
    // Only a line that declares a function is parsed (this runs on every Rust references call).
    if path.extension().is_none_or(|ext| ext != "rs") || !resolved.line_text.contains("fn ") {
        return None;
    }
    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), path).ok()?;
    let (trait_name, type_name) =
        crate::lsp::syntax::ParsedSource::parse(path, &text)?.rust_impl_trait_of_method(resolved.line - 1, &resolved.cursor_identifier)?;
    let (_, how) = RUST_IMPLICITLY_CALLED.iter().find(|(name, _)| *name == trait_name)?;
    Some(format!(
        "note: NOT in this answer: the implicit calls of `{}` — it implements `{trait_name}` for `{type_name}`, which Rust calls through {how} without naming the method, and rust-analyzer lists none of them; to see where they happen, call lsp references on the type `{type_name}`",
        resolved.cursor_identifier
    ))
}

/// For a Python `__init__` (or `__new__`) at `resolved` in `path`: the note naming the
/// constructions of its class (`ClassName(…)`, grep by word in the server's Python files) and the
/// `super().__init__(` calls of its subclasses' files, which call it while naming neither —
/// pyright lists calls of the class, not of `__init__` (trial40 F7: `TOMLDecodeError.__init__`
/// had "no callers" and 30 constructions). `None` for anything else, or when none is found.
/// The note for a Python dunder method other than `__init__`/`__new__` (see
/// [`python_constructor_calls_note`]): the runtime calls it through the syntax it stands for
/// (`hook(…)` for `__call__`, `x[k]` for `__getitem__`), which pyright lists neither among its
/// references nor as call sites (trial120 F1: pluggy's `HookCaller.__call__`, "1 reference",
/// "no callers", while pyright resolves 31 calls of instances to it). `None` for other names,
/// files and positions outside a class.
pub(crate) fn python_implicit_dunder_calls_note(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    resolved: &ResolvedSymbol,
) -> Option<String> {
    let name = resolved.cursor_identifier.as_str();
    let is_dunder = name.len() > 4 && name.starts_with("__") && name.ends_with("__");
    if !is_dunder || matches!(name, "__init__" | "__new__") || path.extension().is_none_or(|ext| ext != "py") {
        return None;
    }
    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), path).ok()?;
    let class = crate::lsp::syntax::ParsedSource::parse(path, &text)?.python_class_of_method(resolved.line - 1, name)?;
    let syntax = match name {
        "__call__" => "calling an instance (`obj(…)`, `self.hook.name(…)`)",
        "__getitem__" | "__setitem__" | "__delitem__" => "subscripting an instance (`obj[key]`)",
        "__iter__" | "__next__" => "iterating an instance (`for … in obj`, `iter(obj)`, `next(obj)`)",
        "__len__" => "`len(obj)` and truth tests",
        "__contains__" => "`key in obj`",
        "__enter__" | "__exit__" | "__aenter__" | "__aexit__" => "a `with obj:` statement",
        "__eq__" | "__ne__" | "__lt__" | "__le__" | "__gt__" | "__ge__" => "comparing an instance (`==`, `<` …)",
        "__hash__" => "`hash(obj)`, dict keys and set members",
        "__str__" | "__repr__" | "__format__" => "`str(obj)`, `repr(obj)`, f-strings and `print`",
        "__getattr__" | "__getattribute__" | "__setattr__" | "__delattr__" => "attribute access on an instance",
        "__bool__" => "truth tests (`if obj:`)",
        _ => "the operator, builtin or statement it stands for",
    };
    Some(format!(
        "note: NOT in this answer: the implicit calls of `{}.{name}` — {syntax} runs it, and {} lists no such use among its references or as a call site; where instances of `{}` are used that way is not searched here: lsp references on the class name at {}:{} lists where its instances come from, and a hover on such a use shows the method it reaches",
        class.name,
        server.id(),
        class.name,
        supervisor.display_path(path),
        class.name_line0 + 1
    ))
}

pub(crate) fn python_constructor_calls_note(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    resolved: &ResolvedSymbol,
) -> Option<String> {
    if !matches!(resolved.cursor_identifier.as_str(), "__init__" | "__new__") || path.extension().is_none_or(|ext| ext != "py") {
        return None;
    }
    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), path).ok()?;
    let class =
        crate::lsp::syntax::ParsedSource::parse(path, &text)?.python_class_of_method(resolved.line - 1, &resolved.cursor_identifier)?;
    let grep = crate::lsp::rename_coverage::grep_word(server.definition(), supervisor.workspace_root(), server.root(), &class.name);
    let constructions: Vec<String> = grep
        .hits
        .iter()
        .filter(|hit| {
            let after = hit.line_text.get(hit.byte_start + class.name.len()..).unwrap_or("");
            let before = hit.line_text[..hit.byte_start.min(hit.line_text.len())].trim_end();
            after.starts_with('(') && !before.ends_with("class") && !before.ends_with("def")
        })
        .map(|hit| format!("{}:{}", supervisor.display_path(&hit.path), hit.line + 1))
        .collect();
    if constructions.is_empty() {
        return None;
    }
    let shown: Vec<&str> = constructions.iter().take(10).map(String::as_str).collect();
    Some(format!(
        "note: NOT in this answer: {} of `{}(…)` (grep by word{}), each of which calls `{}.{}` — {} lists them as uses of the class, not of `{}`: {}{}; for the whole list call lsp references on the class name at {}:{}",
        crate::render::plural(constructions.len(), "construction"),
        class.name,
        if grep.truncated { ", cut short" } else { "" },
        class.name,
        resolved.cursor_identifier,
        server.id(),
        resolved.cursor_identifier,
        shown.join(", "),
        if constructions.len() > shown.len() { format!(" and {} more", constructions.len() - shown.len()) } else { String::new() },
        supervisor.display_path(path),
        class.name_line0 + 1,
    ))
}

/// For pyright and basedpyright, `references` at a parameter of a constructor (`__init__`,
/// `__new__`): the `old=` keyword arguments the server lists as uses of a `TypedDict` key that
/// subclasses of the class unpack as `**kwargs: Unpack[TD]` and pass on to it (trial177 F1:
/// marshmallow's `Field.__init__(data_key=…)`, "18 references", the 10 `fields.Integer(data_key=…)`
/// calls listed only under `_BaseFieldKwargs.data_key`), named with the key's place, one note
/// per key. Empty when there are none, or for another server or symbol.
fn python_typed_dict_keywords_note(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    resolved: &ResolvedSymbol,
    deadline: Instant,
) -> Vec<String> {
    python_typed_dict_keywords_sentences(supervisor, server, path, resolved, deadline).unwrap_or_default()
}

/// [`python_typed_dict_keywords_note`], `None` for no sentence.
fn python_typed_dict_keywords_sentences(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    resolved: &ResolvedSymbol,
    deadline: Instant,
) -> Option<Vec<String>> {
    if !server.id().contains("pyright") || path.extension().is_none_or(|ext| ext != "py") {
        return None;
    }
    let name = &resolved.cursor_identifier;
    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), path).ok()?;
    let symbol = crate::lsp::python_doctests::renamed_python_symbol(&text, (resolved.line - 1) as usize, resolved.cursor_byte)?;
    let crate::lsp::python_doctests::RenamedPythonSymbol::Parameter { function, callables } = symbol else { return None };
    if !matches!(function.as_str(), "__init__" | "__new__") {
        return None;
    }
    let grep = crate::lsp::rename_coverage::grep_word(server.definition(), supervisor.workspace_root(), server.root(), name);
    let reader = crate::files::WorkspaceReader::open(supervisor.workspace_root()).ok()?;
    let deadline = deadline.min(Instant::now() + Duration::from_secs(10));
    let found = crate::lsp::python_typed_dict_keys::keywords_through_typed_dicts(
        server,
        &reader,
        &grep.hits,
        name,
        &callables,
        server.position_encoding(),
        deadline,
    );
    let mut sentences: Vec<String> = Vec::new();
    for (key, uses) in &found.keys {
        const NAMED: usize = 20;
        let places: Vec<String> =
            uses.iter().take(NAMED).map(|(file, line0)| format!("{}:{}", supervisor.display_path(file), line0 + 1)).collect();
        let unpacking: Vec<String> = key.unpacking_classes.iter().take(5).map(|class| format!("`{class}`")).collect();
        sentences.push(format!(
            "note: NOT in this answer: {} `{name}=` that {} this parameter through the TypedDict key `{}.{name}` ({}:{}), which {}{} {} as `**kwargs: Unpack[{}]` in `__init__` and {} on to it — {} lists {} as uses of that key, not of this parameter: {}{}; a rename of this parameter must rename that key too (lsp references at {}:{} symbol `{name}` lists the key's uses)",
            crate::render::plural(uses.len(), "keyword argument"),
            crate::render::one_or_many(uses.len(), "reaches", "reach"),
            key.class,
            supervisor.display_path(&key.path),
            key.line0 + 1,
            unpacking.join(", "),
            if key.unpacking_classes.len() > unpacking.len() { format!(" and {} more", key.unpacking_classes.len() - unpacking.len()) } else { String::new() },
            crate::render::one_or_many(key.unpacking_classes.len(), "unpacks it", "unpack it"),
            key.class,
            crate::render::one_or_many(key.unpacking_classes.len(), "passes them", "pass them"),
            server.id(),
            crate::render::one_or_many(uses.len(), "it", "them"),
            places.join(", "),
            if uses.len() > NAMED { format!(" and {} more", uses.len() - NAMED) } else { String::new() },
            supervisor.display_path(&key.path),
            key.line0 + 1,
        ));
    }
    if found.not_asked > 0 {
        sentences.push(format!(
            "note: {} `{name}=` on calls of classes {} not checked for a TypedDict key that reaches this parameter (the time for this answer ran out): one may reach it through `**kwargs: Unpack[…]` unlisted — ask again",
            crate::render::plural(found.not_asked, "keyword argument"),
            crate::render::one_or_many(found.not_asked, "was", "were"),
        ));
    }
    Some(sentences)
}

/// For pyright and basedpyright with an `include` / `exclude` in their configuration (read as
/// pyright reads it, [`crate::lsp::pyright_scope`]): what their workspace symbols and
/// implementations do not cover — the Python files under the server's root outside that scope
/// (counted, a few named) and, for a symbol `query`, the `def`/`class` declarations there whose
/// name contains it (case-insensitive), so an answer from pyright's index never reads as the
/// whole project's. `None` for other servers, without such a configuration, or when every
/// Python file is in scope.
fn pyright_scope_note(supervisor: &LspSupervisor, server: &LanguageServer, query: Option<&str>, what: &str) -> Option<String> {
    if !matches!(server.id(), "pyright" | "basedpyright") {
        return None;
    }
    let crate::lsp::pyright_scope::PyrightScopeRead::Configured(scope) =
        crate::lsp::pyright_scope::read_pyright_scope(server.root(), supervisor.workspace_root())
    else {
        return None;
    };
    // Listed beneath the run's root handle, no symlink followed: a directory swapped for a
    // symlink to outside is neither listed nor entered (issue 13 §1, `files::walk_beneath`).
    let found = crate::lsp::pyright_scope::python_files_outside_scope(&scope, server.root(), supervisor.workspace_root(), &[]).ok()?;
    let outside = found.not_checked;
    let more = found.not_checked_total - outside.len();
    if outside.is_empty() {
        return None;
    }
    let mut declarations: Vec<String> = Vec::new();
    let mut declarations_total = 0usize;
    if let Some(query) = query.map(str::to_lowercase).filter(|query| !query.is_empty()) {
        for path in &outside {
            let Ok(text) = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), path) else { continue };
            for (index, line) in text.lines().enumerate() {
                let trimmed = line.trim_start();
                let rest = trimmed.strip_prefix("async ").map(str::trim_start).unwrap_or(trimmed);
                let (keyword, rest) = if let Some(rest) = rest.strip_prefix("def ") {
                    ("def", rest)
                } else if let Some(rest) = rest.strip_prefix("class ") {
                    ("class", rest)
                } else {
                    continue;
                };
                let name: String = rest.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() && name.to_lowercase().contains(&query) {
                    declarations_total += 1;
                    if declarations.len() < 10 {
                        declarations.push(format!("{}:{} {keyword} {name}", supervisor.display_path(path), index + 1));
                    }
                }
            }
        }
    }
    let mut dirs: Vec<String> = Vec::new();
    for path in &outside {
        let shown = supervisor.display_path(path.parent().unwrap_or(path));
        if !dirs.contains(&shown) {
            dirs.push(shown);
        }
    }
    let dirs_text = if dirs.len() > 4 { format!("{}, … {} more folders", dirs[..4].join(", "), dirs.len() - 4) } else { dirs.join(", ") };
    let mut note = format!(
        "note: NOT searched: {} Python files outside what {} analyses — its {what} cover only the files its configuration includes ({} {}) and the files open in it; outside: {dirs_text}",
        outside.len() + more,
        server.id(),
        scope.source,
        scope.describe(),
    );
    match (query, declarations_total) {
        (Some(query), 0) => note.push_str(&format!("; grep finds no `def`/`class` there whose name contains {query:?}")),
        (Some(query), total) => note.push_str(&format!(
            "; grep finds {total} `def`/`class` there whose name contains {query:?}: {}{}",
            declarations.join(", "),
            if total > declarations.len() { format!(", and {} more", total - declarations.len()) } else { String::new() }
        )),
        (None, _) => note.push_str(" (grep them, or open one of those files first: pyright then analyses it)"),
    }
    Some(note)
}

/// The Go doc links (`[Name]`, `[Owner.Name]`, `[pkg.Name]`) that name the declaration among
/// `found` (gopls' references: the declaration is the location where
/// [`crate::lsp::rename_doc_links::GoRenamedSymbol::at`] reads one) and that the answer does not
/// list, as a note: gopls lists no doc link, and a declaration changed or deleted after reading
/// the answer leaves them dead (trial169 M4: `[Version.Compare]` in sort.go). Only the
/// declaration's package and the files that import it are searched, in `//` and `/* */`
/// comments, until `deadline` (review49 M2); a search cut short says so. `None` when there is
/// nothing to say, or no declaration is among `found`.
fn go_doc_links_not_listed_note(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    found: &[lsp_types::Location],
    name: &str,
    deadline: Instant,
) -> Option<String> {
    let reader = crate::files::WorkspaceReader::open(supervisor.workspace_root()).ok()?;
    let listed: Vec<(PathBuf, u32)> = found
        .iter()
        .filter_map(|location| {
            let path = crate::lsp::uri::lsp_uri_to_path(&location.uri)?;
            Some((std::fs::canonicalize(&path).unwrap_or(path), location.range.start.line))
        })
        .collect();
    let symbol = listed.iter().find_map(|(path, line0)| crate::lsp::rename_doc_links::GoRenamedSymbol::at(&reader, path, *line0, name))?;
    let scan = crate::lsp::rename_doc_links::go_doc_links_naming(
        server.definition(),
        supervisor.workspace_root(),
        server.root(),
        &symbol,
        name,
        deadline,
    );
    let links: Vec<String> = scan
        .links
        .iter()
        .filter(|(path, line0)| !listed.iter().any(|(listed_path, listed_line)| listed_path == path && listed_line == line0))
        .map(|(path, line0)| format!("{}:{}", supervisor.display_path(path), line0 + 1))
        .collect();
    let stopped = scan.stopped.as_ref().map(|why| {
        format!(
            "the search for Go doc links naming it stopped early — {why} ({} of them in its package or importing it searched); grep the rest for `{name}]`",
            scan.files_searched
        )
    });
    if links.is_empty() {
        return stopped.map(|stopped| format!("note: NOT searched in full: {stopped}"));
    }
    let shown: Vec<&str> = links.iter().take(10).map(String::as_str).collect();
    Some(format!(
        "note: NOT in this answer: {} naming it ({} lists none; by the package's doc-link rules{}): {}{} — changing or removing the declaration leaves {} dead in `go doc` and pkg.go.dev (lsp_rename renames them)",
        crate::render::plural(links.len(), "Go doc link"),
        server.id(),
        stopped.map(|stopped| format!("; {stopped}")).unwrap_or_default(),
        shown.join(", "),
        if links.len() > shown.len() { format!(" and {} more", links.len() - shown.len()) } else { String::new() },
        crate::render::one_or_many(links.len(), "it", "them"),
    ))
}

/// The note naming the whole-word occurrences of `word` in the Go modules under `server`'s root
/// that it loads as dependencies only (a directory with a go.mod of its own that no go.work
/// uses, which a `replace` points to) and that hold `path` or a file of `found`, which `found`
/// does not list: those modules' own tests and packages are not loaded. Lines that start as a
/// `//` comment are left out. `None` when there is none.
fn go_dependency_module_uses_note(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    found: &[lsp_types::Location],
    word: &str,
) -> Option<String> {
    let root = std::fs::canonicalize(server.root()).unwrap_or_else(|_| server.root().to_path_buf());
    let scope = crate::lsp::project_scope::WalkScope::for_server(server.definition(), &root);
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let listed: Vec<(PathBuf, u32)> = found
        .iter()
        .filter_map(|location| crate::lsp::uri::lsp_uri_to_path(&location.uri).map(|file| (canonical(&file), location.range.start.line)))
        .collect();
    let candidates: Vec<PathBuf> = std::iter::once(canonical(path)).chain(listed.iter().map(|(file, _)| file.clone())).collect();
    let in_dependency: Vec<PathBuf> =
        candidates.into_iter().filter(|file| file.strip_prefix(&root).is_ok_and(|relative| scope.prunes(relative))).collect();
    if in_dependency.is_empty() {
        return None;
    }
    // The modules: each one's directory (the nearest go.mod above a file).
    let mut modules: Vec<PathBuf> = Vec::new();
    for file in &in_dependency {
        if let Some(module) = file.ancestors().skip(1).take_while(|dir| dir.starts_with(&root)).find(|dir| dir.join("go.mod").is_file()) {
            if !modules.contains(&module.to_path_buf()) {
                modules.push(module.to_path_buf());
            }
        }
    }
    let grep =
        crate::lsp::rename_coverage::grep_word_walking(server.definition(), supervisor.workspace_root(), &root, word, &in_dependency);
    let missing: Vec<String> = grep
        .hits
        .iter()
        .filter(|hit| modules.iter().any(|module| hit.path.starts_with(module)))
        .filter(|hit| !hit.line_text.trim_start().starts_with("//"))
        .filter(|hit| !listed.iter().any(|(file, line)| *file == canonical(&hit.path) && *line == hit.line))
        .map(|hit| format!("{}:{}", supervisor.display_path(&hit.path), hit.line + 1))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let shown: Vec<&str> = missing.iter().take(10).map(String::as_str).collect();
    Some(format!(
        "note: NOT in this answer: {}{} whole-word {} of `{word}` (grep, outside `//` comments) in {} — {} {} @ {} loads as a dependency only (a `replace`d directory in no go.work), so {} own tests and packages are not loaded and their uses are missing: {}{} — read them, or add {} to a go.work (`go work use`) and ask again",
        if grep.truncated { "at least " } else { "" },
        missing.len(),
        crate::render::one_or_many(missing.len(), "occurrence", "occurrences"),
        modules.iter().map(|module| format!("{}/", supervisor.display_path(module))).collect::<Vec<_>>().join(", "),
        crate::render::one_or_many(modules.len(), "a module", "modules"),
        server.id(),
        supervisor.display_path(server.root()),
        crate::render::one_or_many(modules.len(), "its", "their"),
        shown.join(", "),
        if missing.len() > shown.len() { format!(" and {} more", missing.len() - shown.len()) } else { String::new() },
        crate::render::one_or_many(modules.len(), "it", "them"),
    ))
}

/// One flat workspace symbol as read from a server's answer: name, LSP symbol kind number,
/// container name, URI, 0-based line and character of its start.
type FlatSymbol = (String, u64, Option<String>, String, u32, u32);

/// The notes naming, for each workspace symbol of `listed` (gopls' flat answer: name, LSP kind,
/// container, URI, 0-based line, character) that is a top-level function, type, variable or
/// constant of the workspace, the other declarations of its name in the Go files of its directory
/// that a build constraint keeps out of gopls' build (see
/// [`crate::lsp::go_build_twins::build_twins_note`]): at most 40 names are looked at, until
/// `deadline`, and a listed declaration is never named as its own twin.
fn go_build_twins_of_listed(supervisor: &LspSupervisor, server: &LanguageServer, listed: &[FlatSymbol], deadline: Instant) -> Vec<String> {
    // LSP SymbolKind: Class 5, Function 12, Variable 13, Constant 14, Interface 11, Struct 23.
    const TOP_LEVEL_KINDS: &[u64] = &[5, 11, 12, 13, 14, 23];
    let files: Vec<(String, PathBuf)> = listed
        .iter()
        .filter(|(name, kind, ..)| {
            TOP_LEVEL_KINDS.contains(kind) && !name.is_empty() && name.chars().all(crate::lsp::position::is_identifier_char)
        })
        .filter_map(|(name, _, _, uri, ..)| {
            let uri = <lsp_types::Uri as std::str::FromStr>::from_str(uri).ok()?;
            let path = crate::lsp::uri::lsp_uri_to_path(&uri)?;
            path.starts_with(server.root()).then_some((name.clone(), path))
        })
        .collect();
    let known: Vec<PathBuf> = listed
        .iter()
        .filter_map(|(_, _, _, uri, ..)| <lsp_types::Uri as std::str::FromStr>::from_str(uri).ok())
        .filter_map(|uri| crate::lsp::uri::lsp_uri_to_path(&uri))
        .map(|path| std::fs::canonicalize(&path).unwrap_or(path))
        .collect();
    let mut notes = Vec::new();
    let mut asked: Vec<(String, PathBuf)> = Vec::new();
    for (name, path) in files {
        let Some(directory) = path.parent().map(Path::to_path_buf) else { continue };
        if asked.len() >= 40 || Instant::now() >= deadline {
            break;
        }
        if asked.iter().any(|(asked_name, asked_directory)| *asked_name == name && *asked_directory == directory) {
            continue;
        }
        asked.push((name.clone(), directory.clone()));
        if let Some(note) = crate::lsp::go_build_twins::build_twins_note(
            supervisor.workspace_root(),
            server.root(),
            server.id(),
            &name,
            &[directory],
            &known,
            |path| supervisor.display_path(path),
        ) {
            notes.push(note.replacen("note: ", "note: NOT in this list: ", 1));
        }
    }
    notes
}

fn workspace_symbols(
    supervisor: &LspSupervisor,
    query: &str,
    file: Option<&str>,
    args: &LspArguments,
    deadline: Instant,
) -> Result<ToolOutput, ToolError> {
    let mut notes = Vec::new();
    let servers: Vec<Arc<LanguageServer>> = match file {
        Some(file) => {
            let path = resolve_file(supervisor.workspace_root(), file)?;
            let lease = supervisor.server_for_file(&path, args.server.as_deref(), deadline)?;
            notes.extend(lease.notes);
            lease.server.sync_document(&path)?;
            // The same server running for the workspace's other project roots is asked too: a
            // symbol of another root (a library's test types, seen from its consumer) is in none
            // of this root's answers (trial135 F2: "no workspace symbols match" from the
            // consumer, 9 from the library's root in the same run).
            let others: Vec<Arc<LanguageServer>> = supervisor
                .running_servers()
                .into_iter()
                .filter(|other| other.id() == lease.server.id() && other.root() != lease.server.root())
                .collect();
            if !others.is_empty() {
                notes.push(format!(
                    "note: also asked the {} already running for the workspace's other project {} ({}); a root whose server is not running is not searched — call without `file` to start them",
                    lease.server.id(),
                    if others.len() == 1 { "root" } else { "roots" },
                    others.iter().map(|other| supervisor.display_path(other.root())).collect::<Vec<_>>().join(", ")
                ));
            }
            std::iter::once(lease.server).chain(others).collect()
        }
        None => {
            let (leases, started_notes) = supervisor.workspace_query_servers(args.server.as_deref(), deadline)?;
            notes.extend(started_notes);
            leases
                .into_iter()
                .map(|lease| {
                    notes.extend(lease.notes);
                    lease.server
                })
                .collect()
        }
    };
    let mut found: Vec<FoundSymbol> = Vec::new();
    // Symbols pyright placed in a workspace file whose line, as read now beneath the root, does
    // not hold the name: the server read another text (a stale index, or a directory swapped for
    // a symlink while it read the disk), so the name is not shown (per file, counted).
    let mut not_at_location: BTreeMap<String, usize> = BTreeMap::new();
    let mut asked = Vec::new();
    let mut cache = SourceCache::new(supervisor);
    let mut parsed_files: HashMap<PathBuf, Option<crate::lsp::syntax::ParsedSource>> = HashMap::new();
    // A symbol two servers report at the same place (two pyright roots over one directory:
    // pyparsing's `tests/requirements.txt` makes `tests/` a root the outer root covers too) is
    // listed once: "5 symbols" for 3 distinct ones read as 5 (trial21 F5).
    let mut seen_places: std::collections::HashSet<(String, u32, u32, String)> = std::collections::HashSet::new();
    let mut reported_twice = 0usize;
    // rust-analyzer's answers: every root's listed places, and the servers whose roots' source
    // text is scanned for the definitions none of them lists.
    let mut rust_listed: HashSet<crate::lsp::rust_answer_checks::ListedSymbol> = HashSet::new();
    let mut rust_scans: Vec<(Arc<LanguageServer>, bool)> = Vec::new();
    for server in &servers {
        notes.extend(server.resync_from_disk().note(|path| supervisor.display_path(path)));
        if !server.supports(WorkspaceSymbolRequest::METHOD) {
            notes.push(format!("note: workspace symbols are unsupported by {}", server.id()));
            continue;
        }
        let readiness = server.wait_until_ready_for_lookups((Instant::now() + supervisor.config().indexing_wait).min(deadline));
        let params = lsp_types::WorkspaceSymbolParams {
            query: query.to_owned(),
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        };
        let (answer, reused) = list_request::<WorkspaceSymbolRequest>(supervisor, server, params, args.offset, true, deadline)
            .map_err(|failure| failure.to_tool_error(server.id(), WorkspaceSymbolRequest::METHOD))?;
        notes.extend(reused);
        if let Some(note) = readiness_note(server, &readiness) {
            notes.push(note);
        }
        asked.push(format!("{} @ {}", server.id(), supervisor.display_path(server.root())));
        // pyright and basedpyright share the configuration: said once.
        if !notes.iter().any(|note| note.starts_with("note: NOT searched: ")) {
            notes.extend(pyright_scope_note(supervisor, server, Some(query), "workspace symbols"));
        }
        let Some(response) = answer else { continue };
        let flat: Vec<(String, u64, Option<String>, String, u32, u32)> = match response {
            lsp_types::WorkspaceSymbolResponse::Flat(list) => list
                .into_iter()
                .map(|symbol| {
                    let kind = crate::lsp::outline::kind_number(&symbol.kind);
                    let start = symbol.location.range.start;
                    (symbol.name, kind, symbol.container_name, symbol.location.uri.as_str().to_owned(), start.line, start.character)
                })
                .collect(),
            lsp_types::WorkspaceSymbolResponse::Nested(list) => list
                .into_iter()
                .map(|symbol| {
                    let (uri, line0, character) = match &symbol.location {
                        lsp_types::OneOf::Left(location) => {
                            (location.uri.as_str().to_owned(), location.range.start.line, location.range.start.character)
                        }
                        lsp_types::OneOf::Right(location) => (location.uri.as_str().to_owned(), 0, 0),
                    };
                    (symbol.name, crate::lsp::outline::kind_number(&symbol.kind), symbol.container_name, uri, line0, character)
                })
                .collect(),
        };
        let answer_was_cut = workspace_symbol_result_cap(server.id()).is_some_and(|cap| flat.len() == cap.limit);
        // rust-analyzer indexes only code compiled in its configuration: the definitions the
        // source text holds behind a `#[cfg]` that is off (walkdir's `#[cfg(windows)] fn
        // device_num`) or in `macro_rules!` bodies are named (trial23 F2), once every root's
        // server has answered (below).
        if server.id() == "rust-analyzer" {
            rust_listed.extend(flat.iter().filter_map(|(name, _, _, uri, line0, _)| {
                let uri = <lsp_types::Uri as std::str::FromStr>::from_str(uri).ok()?;
                let path = crate::lsp::uri::lsp_uri_to_path(&uri)?;
                Some((std::fs::canonicalize(&path).unwrap_or(path), *line0, name.clone()))
            }));
            rust_scans.push((Arc::clone(server), answer_was_cut));
        }
        if let Some(cap) = workspace_symbol_result_cap(server.id()) {
            if flat.len() == cap.limit {
                notes.push(format!(
                    "note: {} answered exactly {} symbols, its own cap for workspace/symbol ({}): more symbols may match {query:?} than it returned (missing from this list and its count); narrow the query (more of the name than {query:?}, or the exact name), or ask within one file with {{\"op\": \"symbols\", \"file\": \"<file>\"}}",
                    server.id(),
                    cap.limit,
                    cap.source
                ));
            }
        }
        // gopls indexes one build configuration: a listed top-level function or type that a
        // file of another configuration declares too is named (trial139 F2: `IsEastAsian`, 1 of
        // its 4 declarations listed, with no note).
        if server.id() == "gopls" {
            notes.extend(go_build_twins_of_listed(supervisor, server, &flat, deadline));
        }
        for (name, kind_number, container, uri, line0, character) in flat {
            if !seen_places.insert((uri.clone(), line0, character, name.clone())) {
                reported_twice += 1;
                continue;
            }
            let place = cache.place(&uri, line0);
            let names_an_identifier = !name.is_empty() && name.chars().all(crate::lsp::position::is_identifier_char);
            if server.id().contains("pyright")
                && names_an_identifier
                && place.quoted
                && place.rank() == PathClass::Workspace
                && place.text.chars().count() < 200
                && !crate::lsp::position::contains_word(&place.text, &name)
            {
                *not_at_location.entry(place.labeled()).or_default() += 1;
                continue;
            }
            let extension = place.absolute().and_then(Path::extension).and_then(|e| e.to_str()).unwrap_or("").to_owned();
            // A method's `self` may sit on the line after `def name(`.
            let header = if place.quoted { cache.python_def_header(&uri, line0) } else { None };
            let mut kind =
                crate::lsp::outline::readable_kind_on_line(kind_number, &name, header.as_deref().unwrap_or(&place.text), &extension);
            // Workspace code is asked its syntax tree: what the declaration is where the server
            // says `variable` (a type alias, a re-export), and whether it is a function's local.
            let mut local_of = None;
            if place.rank() == PathClass::Workspace {
                if let Some(facts) = place.absolute().map(Path::to_path_buf).and_then(|path| {
                    let parsed = parsed_files.entry(path.clone()).or_insert_with(|| {
                        cache.read_workspace_text(&path).and_then(|text| crate::lsp::syntax::ParsedSource::parse(&path, &text))
                    });
                    parsed.as_ref()?.declaration_facts(line0, character, &name)
                }) {
                    let replaces = |better: &&str| {
                        matches!(kind, "variable" | "constant" | "field" | "property") || matches!(*better, "re-export" | "import")
                    };
                    if let Some(better) = facts.kind.filter(replaces) {
                        kind = better;
                    }
                    local_of = facts.enclosing_function;
                }
            }
            let match_quality = match_quality(&name, query);
            found.push(FoundSymbol { name, kind, container: container.filter(|c| !c.is_empty()), place, match_quality, local_of });
        }
    }
    // A definition another root's server lists is in the answer: the root whose configuration
    // leaves its cfg off does not name it as missing (trial146 M1: `from_inline` at lib.rs:645,
    // listed through downstream's server, then "NOT in this answer" from the library's).
    for (server, answer_was_cut) in &rust_scans {
        notes.extend(crate::lsp::rust_answer_checks::rust_definitions_not_listed(server, query, &rust_listed, *answer_was_cut, &|path| {
            supervisor.display_path(path)
        }));
    }
    if reported_twice > 0 {
        notes.push(format!(
            "note: {} reported by more than one server root at the same place {} listed once (the roots asked overlap)",
            plural(reported_twice, "symbol"),
            crate::render::one_or_many(reported_twice, "is", "are")
        ));
    }
    // Symbols declared inside functions are locals: left out unless asked for, and counted.
    let mut locals_hidden: Vec<String> = Vec::new();
    if !args.locals {
        found.retain(|symbol| match &symbol.local_of {
            Some(function) => {
                let function = if function == "<anonymous>" { "an anonymous function".to_owned() } else { function.clone() };
                locals_hidden.push(format!("`{}` in {function} ({})", symbol.name, symbol.place.located()));
                false
            }
            None => true,
        });
    }
    // A symbol a server found in a file outside the workspace and its known dependency roots (a
    // workspace configuration, or a directory swapped for a symlink while the server read the
    // disk, can point it anywhere): its name is that file's content, so it is not listed, as
    // lines of such files are not quoted; the file is named and its symbols counted.
    let mut outside_hidden: BTreeMap<String, usize> = BTreeMap::new();
    found.retain(|symbol| {
        let outside_unknown = symbol.place.path.is_some() && !symbol.place.quoted;
        if outside_unknown {
            *outside_hidden.entry(symbol.place.labeled()).or_default() += 1;
        }
        !outside_unknown
    });
    // Workspace code first; within it the closest name matches first, declarations before
    // re-exports and imports of them; the servers' order within.
    found.sort_by_key(|symbol| (symbol.place.rank(), symbol.match_quality, matches!(symbol.kind, "re-export" | "import")));
    let total = found.len();
    let mut tally = PathTally::default();
    found.iter().filter_map(|symbol| symbol.place.path.as_ref()).for_each(|path| tally.add(path));
    let page = Page::new(total, args.offset, supervisor.config().workspace_symbols_cap, "symbols")?;
    // No symbol: a text search of the servers' source files for a declaration of the name tells
    // an index that leaves it out (tsserver's navigate-to skips object-literal members: trial58
    // M3, `rankings.MATCHES`) from a name that is not there.
    // Also when nothing found is named exactly as asked (gopls answers fuzzy matches from the
    // standard library, and an exact declaration it does not load is missing: trial60 M5/M6).
    let exact_found = found.iter().any(|symbol| symbol.name == query);
    let found_at: std::collections::HashSet<(PathBuf, u32)> =
        found.iter().filter_map(|symbol| symbol.place.path.as_ref().map(|path| (path.absolute.clone(), symbol.place.line))).collect();
    // pyright lists one symbol per name in a scope: the other definitions of an exactly found
    // name (in another branch, `wrapper` in each branch of cachetools' `cached`: trial140 F2)
    // are searched for too.
    let folds_names = servers.iter().any(|server| server.id().contains("pyright"));
    let mut declared_by_text_total = 0usize;
    let declared_by_text: Vec<String> = if !exact_found || folds_names {
        let mut found_lines = Vec::new();
        for server in &servers {
            let extensions: Vec<String> = server.definition().extensions.iter().map(|(extension, _)| extension.clone()).collect();
            crate::lsp::rename_coverage::for_each_text_file_beneath(
                supervisor.workspace_root(),
                server.root(),
                |path| path.extension().and_then(|ext| ext.to_str()).is_some_and(|ext| extensions.iter().any(|known| known == ext)),
                |path, text| {
                    // A Go file behind a build constraint is outside gopls' one configuration
                    // (trial60 M5: `DebugDump` in a `//go:build debugerrors` file).
                    let constraint = text
                        .lines()
                        .take_while(|line| !line.starts_with("package "))
                        .find(|line| line.starts_with("//go:build ") || line.starts_with("// +build "))
                        .map(|line| format!(", a file behind the build constraint `{}` that the server does not load", line.trim()));
                    for (index, line) in text.lines().enumerate() {
                        if line_declares(line, query) && !found_at.contains(&(path.to_path_buf(), index as u32 + 1)) {
                            declared_by_text_total += 1;
                            if found_lines.len() >= 8 {
                                continue;
                            }
                            found_lines.push(format!(
                                "{}:{} (`{}`{})",
                                supervisor.display_path(path),
                                index + 1,
                                line.trim(),
                                constraint.as_deref().unwrap_or("")
                            ));
                        }
                    }
                },
            );
        }
        found_lines
    } else {
        Vec::new()
    };
    if !declared_by_text.is_empty() {
        let first_file = declared_by_text[0].split(':').next().unwrap_or("").to_owned();
        // Why each server's index leaves such a declaration out.
        let why: Vec<&str> = servers
            .iter()
            .map(|server| match server.id() {
                id if id.contains("pyright") => "pyright lists one symbol per name in a scope — a name defined again, in another branch, is folded into it — and without `locals` no function nested in a function",
                "typescript-language-server" => "tsserver's does not index the members of object literals",
                "gopls" => "gopls loads one build configuration",
                "rust-analyzer" => "rust-analyzer indexes no code behind a `#[cfg]` that is off, nor the items a macro expands to",
                _ => "the server's index is its own",
            })
            .collect::<std::collections::BTreeSet<&str>>()
            .into_iter()
            .collect();
        let more = declared_by_text_total.saturating_sub(declared_by_text.len());
        notes.push(format!(
            "note: NOT in this list: a text search finds `{query}` declared at {}{}: the symbol index leaves {} out ({}); the file's outline names such definitions: {{\"op\": \"symbols\", \"file\": \"{first_file}\"}}",
            declared_by_text.join(", "),
            if more > 0 { format!(" and {more} more places") } else { String::new() },
            crate::render::one_or_many(declared_by_text_total, "it", "them"),
            why.join("; ")
        ));
    }
    if total == 0 && declared_by_text.is_empty() {
        // tsserver's workspace symbol search covers only the projects of the files it has open.
        for server in servers.iter().filter(|server| server.definition().open_representative_file) {
            let open: Vec<String> = server.open_documents().iter().take(3).map(|path| supervisor.display_path(path)).collect();
            notes.push(format!(
                "note: {} searches only the projects (tsconfig.json) of the files it has open ({}); a symbol in a file none of them includes is not found: open a file of that project (e.g. {{\"op\": \"symbols\", \"file\": \"<a file of it>\"}}) and ask again",
                server.id(),
                if open.is_empty() { "none".to_owned() } else { open.join(", ") }
            ));
        }
    }
    // What tsserver searched: the projects it has open, never the files its tsconfig leaves out
    // until one of them is open (trial30 F2: 5 symbols, then 46 in the same run).
    for server in servers.iter().filter(|server| server.definition().open_representative_file) {
        if let Some(outside) =
            crate::lsp::project_scope::files_outside_config(server.definition(), supervisor.workspace_root(), server.root())
        {
            notes.push(format!(
                "note: {} searches the projects of the files it has open (the tsconfig's program, and an inferred project per open file outside it); {} — their symbols are found only while a file of theirs is open, so this answer depends on what was opened before",
                server.id(),
                outside.describe(&supervisor.display_path(server.root()), |path| supervisor.display_path(path)),
            ));
        }
    }
    let mut text = if total == 0 && !outside_hidden.is_empty() {
        format!("no workspace symbols match {query:?} in the workspace or its dependency roots ({})\n", asked.join(", "))
    } else if total == 0 {
        format!("no workspace symbols match {query:?} ({} answered with none)\n", asked.join(", "))
    } else {
        format!("workspace symbols matching {query:?} ({}): {}\n", asked.join(", "), counted(total, "symbol", "", false, &tally))
    };
    let mut results = Vec::new();
    // A re-export or import whose name has exactly one definition among the symbols found is
    // said to stand for it (trial27b M4: csv-core's `pub use` listed as a second `struct Writer`).
    let mut definitions_by_name: HashMap<&str, Vec<String>> = HashMap::new();
    for symbol in found.iter().filter(|symbol| !matches!(symbol.kind, "re-export" | "import")) {
        definitions_by_name.entry(symbol.name.as_str()).or_default().push(symbol.place.located());
    }
    let mut namespace_files: HashMap<PathBuf, String> = HashMap::new();
    for symbol in &found[page.range()] {
        let mut container_text = match (&symbol.container, &symbol.local_of) {
            (Some(container), _) => format!(" in {container}"),
            (None, Some(function)) => format!(" (local of {function})"),
            (None, None) => String::new(),
        };
        if matches!(symbol.kind, "re-export" | "import") {
            // A module namespace (`import * as Pattern from './patterns'`, and a local `export {
            // Pattern }` of it) stands for that module, never for a declaration of the same
            // name (trial97 F2: ts-pattern's namespace was called the type alias `Pattern`).
            let namespace_binding = format!("* as {}", symbol.name);
            let names_namespace = |line: &str| {
                line.match_indices(&namespace_binding)
                    .any(|(at, _)| !line[at + namespace_binding.len()..].starts_with(crate::lsp::position::is_identifier_char))
            };
            let binds_namespace = names_namespace(&symbol.place.text)
                || symbol.place.absolute().is_some_and(|path| {
                    namespace_files
                        .entry(path.to_path_buf())
                        .or_insert_with(|| {
                            crate::files::read_workspace_file_to_string(supervisor.workspace_root(), path).unwrap_or_default()
                        })
                        .lines()
                        .any(|line| line.trim_start().starts_with("import") && names_namespace(line))
                });
            if binds_namespace {
                container_text.push_str(" (a module namespace, not a declaration of this name)");
            } else if let Some([definition]) = definitions_by_name.get(symbol.name.as_str()).map(Vec::as_slice) {
                container_text.push_str(&format!(" ({} of {definition})", symbol.kind));
            }
        }
        text.push_str(&format!("{} {}{container_text} — {}: {}\n", symbol.kind, symbol.name, symbol.place.located(), symbol.place.shown()));
        results.push(WorkspaceSymbolEntry {
            location: symbol.place.to_location(),
            name: symbol.name.clone(),
            kind: symbol.kind.to_string(),
            container: symbol.container.clone(),
            local_of: symbol.local_of.clone(),
        });
    }
    push_page_footer(&mut text, &page, &tally);
    if !locals_hidden.is_empty() {
        const NAMED: usize = 5;
        let more = if locals_hidden.len() > NAMED { format!(", … {} more", locals_hidden.len() - NAMED) } else { String::new() };
        text.push_str(&format!(
            "not listed: {} declared inside functions (locals: {}{more}); pass \"locals\": true to list them\n",
            plural(locals_hidden.len(), "symbol"),
            locals_hidden.iter().take(NAMED).cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    if !outside_hidden.is_empty() {
        const NAMED: usize = 5;
        let hidden: usize = outside_hidden.values().sum();
        let files: Vec<String> =
            outside_hidden.iter().take(NAMED).map(|(file, count)| format!("{file} ({})", plural(*count, "symbol"))).collect();
        let more = if outside_hidden.len() > NAMED { format!(", … {} more files", outside_hidden.len() - NAMED) } else { String::new() };
        text.push_str(&format!(
            "not listed: {} the server found in files outside the workspace and its known dependency roots (a symbol's name is that file's content, not shown): {}{more}\n",
            plural(hidden, "symbol"),
            files.join(", ")
        ));
    }
    if !not_at_location.is_empty() {
        let files: Vec<String> =
            not_at_location.iter().take(5).map(|(file, count)| format!("{file} ({})", plural(*count, "symbol"))).collect();
        text.push_str(&format!(
            "not listed: {} the server placed on a line of a workspace file that does not hold its name as the file reads now (the server read another text: a stale index, or a directory swapped for a symlink while it read the disk): {}\n",
            plural(not_at_location.values().sum(), "symbol"),
            files.join(", ")
        ));
    }
    for note in &notes {
        text.push_str(note);
        text.push('\n');
    }
    let output = LspOutput::WorkspaceSymbols(WorkspaceSymbols {
        op: SymbolsOp::Symbols,
        query: query.to_string(),
        total,
        page: PageWindow::from(&page),
        results,
        servers: asked.iter().map(ToString::to_string).collect(),
        notes,
        locals_not_listed: locals_hidden.len(),
        outside_not_listed: outside_hidden.values().sum(),
    });
    Ok(ToolOutput::new(ToolResult::text(text.trim_end()).with_structured(to_structured(&output))))
}

/// The `kind` filter, normalized.
///
/// # Errors
/// `invalid_arguments` naming the unknown kinds and listing the known ones.
fn kind_filter(kinds: Option<&[String]>) -> Result<Option<Vec<&'static str>>, ToolError> {
    let Some(kinds) = kinds else { return Ok(None) };
    let mut known = Vec::new();
    let mut unknown = Vec::new();
    for kind in kinds {
        match normalize_kind(kind) {
            Some(kind) => known.push(kind),
            None => unknown.push(kind.as_str()),
        }
    }
    if !unknown.is_empty() {
        return Err(ToolError::invalid(format!("unknown symbol kind(s) in `kind`: {}", unknown.join(", ")))
            .with_hint(format!("use outline kinds: {}", KINDS.join(", "))));
    }
    Ok(Some(known))
}

/// Which outline entries a call lists, and why the others are not.
struct OutlineView {
    visible: Vec<usize>,
    locals_hidden: usize,
    imports_hidden: usize,
    callbacks_hidden: usize,
    deeper: usize,
    other_kinds: usize,
    /// The `kind` filter in force.
    kinds: Option<Vec<&'static str>>,
    /// Visible-entry depth: 1 + visible ancestors.
    display_depth: Vec<usize>,
}

fn outline_view(entries: &[OutlineEntry], locals: bool, max_depth: Option<usize>, kinds: Option<&[&'static str]>) -> OutlineView {
    let mut view = OutlineView {
        visible: Vec::new(),
        locals_hidden: 0,
        imports_hidden: 0,
        callbacks_hidden: 0,
        deeper: 0,
        other_kinds: 0,
        kinds: kinds.map(<[&'static str]>::to_vec),
        display_depth: vec![0; entries.len()],
    };
    let mut is_visible = vec![false; entries.len()];
    for (index, entry) in entries.iter().enumerate() {
        match entry.hidden {
            Some(Hidden::Local) if !locals => view.locals_hidden += 1,
            Some(Hidden::Import) if !locals => view.imports_hidden += 1,
            Some(Hidden::Callback) if !locals => view.callbacks_hidden += 1,
            _ if max_depth.is_some_and(|max| entry.depth > max) => view.deeper += 1,
            _ if kinds.is_some_and(|kinds| !kinds.contains(&entry.kind) && !listed_as_function_value(entry, kinds)) => {
                view.other_kinds += 1
            }
            _ => {
                is_visible[index] = true;
                view.visible.push(index);
            }
        }
        let mut ancestors = 0;
        let mut parent = entry.parent;
        while let Some(p) = parent {
            if is_visible[p] {
                ancestors += 1;
            }
            parent = entries[p].parent;
        }
        view.display_depth[index] = ancestors + 1;
    }
    view
}

/// Whether the `kind` filter `kinds` lists `entry` for the function it is bound to: a
/// TypeScript/JavaScript variable or constant bound to an arrow function or function expression
/// when `function` is asked, a property so bound when `method` is (tsserver reports them as
/// variables, constants and properties; a user asking for functions means them too).
fn listed_as_function_value(entry: &OutlineEntry, kinds: &[&'static str]) -> bool {
    entry.function_value.is_some()
        && ((kinds.contains(&"function") && matches!(entry.kind, "variable" | "constant"))
            || (kinds.contains(&"method") && matches!(entry.kind, "property" | "field")))
}

/// `Outer.Inner` — the names of an entry's ancestors.
fn qualified_container(entries: &[OutlineEntry], index: usize) -> Option<String> {
    let mut names = Vec::new();
    let mut parent = entries[index].parent;
    while let Some(p) = parent {
        names.push(entries[p].name.as_str());
        parent = entries[p].parent;
    }
    names.reverse();
    (!names.is_empty()).then(|| names.join("."))
}

fn outline_line(entries: &[OutlineEntry], view: &OutlineView, index: usize, suffix: &str) -> String {
    let entry = &entries[index];
    let lines = if entry.end_line > entry.line { format!("{}-{}", entry.line, entry.end_line) } else { entry.line.to_string() };
    // clangd's `detail` often only repeats the kind (`struct`, `type alias`).
    let detail = entry
        .detail
        .as_deref()
        .map(str::trim)
        .filter(|detail| *detail != entry.kind && Some(*detail) != entry.lsp_kind)
        .map(|detail| format!(" — {}", cut_chars(detail, 120)))
        .unwrap_or_default();
    // `impl Shape for Square` already says what it is.
    let kind = if entry.name.starts_with(&format!("{} ", entry.kind)) || entry.name.starts_with(&format!("{}<", entry.kind)) {
        String::new()
    } else {
        format!("{} ", entry.kind)
    };
    let mut mark = entry.hidden.map(|hidden| format!(" ({})", hidden.as_str())).unwrap_or_default();
    // Listed by a `function`/`method` filter for the function it holds: says so.
    if let (Some(kinds), Some(held)) = (view.kinds.as_deref(), entry.function_value.as_deref()) {
        if !kinds.contains(&entry.kind) && listed_as_function_value(entry, kinds) {
            mark.push_str(&format!(" ({held})"));
        }
    }
    // A member whose enclosing symbol is not listed (kind filter) names it.
    let enclosing = match entry.parent {
        Some(parent) if view.display_depth[index] == 1 => {
            format!(" (in {})", qualified_container(entries, index).unwrap_or_else(|| entries[parent].name.clone()))
        }
        _ => String::new(),
    };
    format!("{}{lines}: {kind}{}{detail}{enclosing}{mark}{suffix}", "  ".repeat(view.display_depth[index] - 1), entry.name)
}

/// Whether a `textDocument/documentSymbol` answer lists no symbol (`null`, or an empty list of
/// either shape).
fn outline_is_empty(answer: &Option<lsp_types::DocumentSymbolResponse>) -> bool {
    match answer {
        None => true,
        Some(lsp_types::DocumentSymbolResponse::Flat(symbols)) => symbols.is_empty(),
        Some(lsp_types::DocumentSymbolResponse::Nested(symbols)) => symbols.is_empty(),
    }
}

/// `__init__ at lines 110, 126, 142 (@overload), _TSerialized at line 23 (redefinition)`: the
/// definitions grouped by name and reason in source order, at most 10 groups.
fn unlisted_definitions_text(definitions: &[crate::lsp::outline::UnlistedDefinition]) -> String {
    let mut groups: Vec<(&str, &str, Vec<u32>)> = Vec::new();
    for definition in definitions {
        match groups.iter_mut().find(|(name, why, _)| *name == definition.name && *why == definition.why) {
            Some((_, _, lines)) => lines.push(definition.line),
            None => groups.push((&definition.name, definition.why, vec![definition.line])),
        }
    }
    let shown: Vec<String> = groups
        .iter()
        .take(10)
        .map(|(name, why, lines)| {
            let lines_text: Vec<String> = lines.iter().map(u32::to_string).collect();
            format!("{name} at {} {} ({why})", if lines.len() == 1 { "line" } else { "lines" }, lines_text.join(", "))
        })
        .collect();
    let more: usize = groups.iter().skip(10).map(|(_, _, lines)| lines.len()).sum();
    let mut text = shown.join(", ");
    if more > 0 {
        text.push_str(&format!(", and {more} more"));
    }
    text
}

fn document_symbols(supervisor: &LspSupervisor, file: &str, args: &LspArguments, deadline: Instant) -> Result<ToolOutput, ToolError> {
    let kinds = kind_filter(args.kind.as_deref())?;
    let path = resolve_file(supervisor.workspace_root(), file)?;
    let lease = supervisor.server_for_file(&path, args.server.as_deref(), deadline)?;
    let server = &*lease.server;
    let mut notes = lease.notes.clone();
    notes.extend(server.resync_from_disk().note(|path| supervisor.display_path(path)));
    server.sync_document(&path)?;
    if !server.supports(DocumentSymbolRequest::METHOD) {
        return Err(unsupported_error(supervisor, &path, server, "symbols (outline)", DocumentSymbolRequest::METHOD, deadline));
    }
    // An outline is read from the file's own syntax (rust-analyzer's file structure, tsserver's
    // navtree, gopls' and pyright's parse of the file), so it is asked at once, without waiting
    // for the project's indexing (a cold rust-analyzer indexes for 10-15 s; trial 14 spent the
    // whole `indexing_wait` before asking). Only an EMPTY outline from a server that was not
    // ready yet is doubted (typescript-language-server answers `[]` for a navtree it could not
    // get): then the server gets its indexing wait and is asked once more.
    let ask = || {
        let params = lsp_types::DocumentSymbolParams {
            text_document: crate::lsp::client::text_document(&path),
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        };
        server
            .request::<DocumentSymbolRequest>(params, deadline)
            .map_err(|failure| failure.to_tool_error(server.id(), DocumentSymbolRequest::METHOD))
    };
    let readiness_when_asked = server.readiness();
    let mut answer = ask()?;
    if outline_is_empty(&answer) && !matches!(readiness_when_asked, crate::lsp::Readiness::Ready | crate::lsp::Readiness::Exited(_)) {
        let readiness = server.wait_until_ready_for_lookups((Instant::now() + supervisor.config().indexing_wait).min(deadline));
        answer = ask()?;
        if let Some(note) = readiness_note(server, &readiness) {
            notes.push(note);
        }
    }
    let relative = supervisor.display_path(&path);
    let file_text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path)?;
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let entries = build_outline(answer, &file_text, extension);
    let view = outline_view(&entries, args.locals, args.depth, kinds.as_deref());
    let total = view.visible.len();
    let page = Page::new(total, args.offset, supervisor.config().document_symbols_cap, "symbols")?;
    let mut filters = Vec::new();
    if let Some(kinds) = &kinds {
        filters.push(format!("kind {}", kinds.join(" | ")));
    }
    if let Some(depth) = args.depth {
        filters.push(format!("depth ≤ {depth}"));
    }
    let filter_text = if filters.is_empty() { String::new() } else { format!(" ({})", filters.join(", ")) };
    let mut text = if entries.is_empty() {
        format!("{} found no symbols in {relative}", server.id())
    } else if total == 0 {
        format!("{} outline of {relative}: no symbols{filter_text} among its {} symbols", server.id(), entries.len())
    } else {
        format!("{} outline of {relative}{filter_text}: {} in source order", server.id(), plural(total, "symbol"))
    };
    let mut results = Vec::new();
    let shown: Vec<usize> = view.visible[page.range()].to_vec();
    // A page that starts inside a symbol first names its listed ancestors.
    if let Some(&first) = shown.first() {
        if page.offset > 0 {
            let mut ancestors = Vec::new();
            let mut parent = entries[first].parent;
            while let Some(p) = parent {
                if view.visible.binary_search(&p).is_ok() {
                    ancestors.push(p);
                }
                parent = entries[p].parent;
            }
            for &ancestor in ancestors.iter().rev() {
                text.push('\n');
                text.push_str(&outline_line(&entries, &view, ancestor, " (continued)"));
            }
        }
    }
    for &index in &shown {
        text.push('\n');
        text.push_str(&outline_line(&entries, &view, index, ""));
        let entry = &entries[index];
        results.push(crate::lsp::output::OutlineEntry {
            name: entry.name.clone(),
            kind: entry.kind.to_owned(),
            lsp_kind: entry.lsp_kind.map(str::to_owned),
            detail: entry.detail.clone(),
            line: entry.line,
            end_line: entry.end_line,
            depth: entry.depth,
            container: qualified_container(&entries, index),
            hidden: entry.hidden.map(|hidden| hidden.as_str().to_owned()),
            function_value: entry.function_value.clone(),
        });
    }
    if let Some(notice) = page.notice() {
        text.push('\n');
        text.push_str(&notice);
        // On the first page of a deep outline: how many entries each `depth` would list.
        if args.depth.is_none() && page.offset == 0 {
            let levels: Vec<String> = (1..=3)
                .map(|depth| (depth, view.visible.iter().filter(|&&index| view.display_depth[index] <= depth).count()))
                .filter(|(_, count)| *count < total)
                .map(|(depth, count)| format!("\"depth\": {depth} → {count}"))
                .collect();
            if !levels.is_empty() {
                text.push_str(&format!(" (fewer levels: {})", levels.join(", ")));
            }
        }
    }
    let mut not_listed = Vec::new();
    let typescript_family = crate::lsp::syntax::is_typescript_family_extension(extension);
    if view.locals_hidden + view.imports_hidden + view.callbacks_hidden > 0 {
        let mut parts = Vec::new();
        if view.locals_hidden > 0 {
            // tsserver's outline has no parameter entries: what is hidden there are locals.
            let what = if typescript_family { "locals" } else { "parameters and locals" };
            parts.push(format!("{} {what}", view.locals_hidden));
        }
        if view.callbacks_hidden > 0 {
            parts.push(format!("{} inside functions", plural(view.callbacks_hidden, "anonymous callback")));
        }
        if view.imports_hidden > 0 {
            parts.push(format!("{} imports", view.imports_hidden));
        }
        not_listed.push(format!("{} (pass \"locals\": true)", parts.join(" and ")));
    }
    if view.deeper > 0 {
        not_listed.push(format!("{} deeper than depth {}", view.deeper, args.depth.unwrap_or(0)));
    }
    if view.other_kinds > 0 {
        not_listed.push(format!("{} of other kinds", view.other_kinds));
    }
    // TypeScript/JavaScript: tsserver's outline has no import entries; with `locals` (which
    // promises imports) their count is said (trial137 F2: 47 imports of buildHooks.ts missing
    // from an answer that read as complete).
    if args.locals && typescript_family {
        let imports = file_text.lines().filter(|line| line.trim_start().starts_with("import ")).count();
        if imports > 0 {
            not_listed.push(format!(
                "{} (`import …` statements: {} gives no outline entry for them; read the file's import lines)",
                plural(imports, "import statement"),
                server.id()
            ));
        }
        // Nor for parameters, nor for every function expression (trial137 F2 recheck: 6
        // `<function>` nodes of buildHooks.ts' navigation tree were in no entry).
        not_listed.push(format!(
            "parameters, and function expressions {} gives no entry for (callbacks passed inline may be missing: read the function's body)",
            server.id()
        ));
    }
    // gopls' outline has package-level declarations, their fields and methods only: `locals`
    // adds nothing there, and that is said (trial147 M3: the same 49 entries, read as a file
    // without locals).
    if args.locals && extension == "go" {
        not_listed.push(format!(
            "parameters and locals ({} gives no outline entry for them, with or without \"locals\": read the function bodies)",
            server.id()
        ));
    }
    if !not_listed.is_empty() {
        text.push_str(&format!("\nnot listed: {}", not_listed.join("; ")));
    }
    // pyright gives one symbol per name: overload signatures and redefinitions are not entries.
    let unlisted_definitions = if matches!(extension, "py" | "pyi") {
        crate::lsp::outline::python_definitions_not_listed(&entries, &path, &file_text)
    } else {
        Vec::new()
    };
    if !unlisted_definitions.is_empty() {
        text.push_str(&format!(
            "\nnot listed: {} in the file that no entry stands for ({} gives one symbol per name): {} — read those lines for their signatures",
            plural(unlisted_definitions.len(), "more definition"),
            server.id(),
            unlisted_definitions_text(&unlisted_definitions)
        ));
    }
    // rust-analyzer's outline shows no macro expansion: the items a macro call in item position
    // defines are in no entry (trial66 M1: fastrand's 16 `rng_integer!` calls in `impl Rng`).
    if extension == "rs" {
        if let Some(note) = crate::lsp::syntax::ParsedSource::parse(&path, &file_text)
            .and_then(|parsed| item_macro_invocations_note(&parsed.rust_item_macro_invocations()))
        {
            notes.push(note);
        }
    }
    if (page.next_offset().is_some() || (total == 0 && !entries.is_empty())) && !entries.is_empty() {
        let mut per_kind: BTreeMap<&str, usize> = BTreeMap::new();
        for entry in entries.iter().filter(|entry| args.locals || entry.hidden.is_none()) {
            *per_kind.entry(entry.kind).or_default() += 1;
        }
        let kinds_text: Vec<String> = per_kind.iter().map(|(kind, count)| format!("{kind} {count}")).collect();
        text.push_str(&format!("\nkinds in this file: {} (narrow with \"kind\")", kinds_text.join(", ")));
    }
    for note in &notes {
        text.push('\n');
        text.push_str(note);
    }
    let output = LspOutput::FileOutline(FileOutline {
        op: SymbolsOp::Symbols,
        file: relative,
        server: server.id().to_owned(),
        total,
        page: PageWindow::from(&page),
        results,
        not_listed: OutlineNotListed {
            locals: view.locals_hidden,
            callbacks: view.callbacks_hidden,
            imports: view.imports_hidden,
            deeper: view.deeper,
            other_kinds: view.other_kinds,
            other_definitions: unlisted_definitions.len(),
            other_definition_lines: unlisted_definitions
                .iter()
                .map(|definition| format!("{}:{} ({})", definition.name, definition.line, definition.why))
                .collect(),
        },
        notes,
    });
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(to_structured(&output))))
}

/// The `not listed: …` line for the macro calls in item position of a Rust file (see
/// [`crate::lsp::syntax::ParsedSource::rust_item_macro_invocations`]): how many, grouped by
/// macro and container with their 1-based lines (10 lines shown per group), and how to find what
/// they define. `None` when the file has none.
fn item_macro_invocations_note(invocations: &[crate::lsp::syntax::RustItemMacroInvocation]) -> Option<String> {
    if invocations.is_empty() {
        return None;
    }
    let mut groups: Vec<(&str, Option<&str>, Vec<u32>)> = Vec::new();
    for invocation in invocations {
        let key = (invocation.macro_name.as_str(), invocation.container.as_deref());
        match groups.iter_mut().find(|group| (group.0, group.1) == key) {
            Some(group) => group.2.push(invocation.line),
            None => groups.push((key.0, key.1, vec![invocation.line])),
        }
    }
    let described: Vec<String> = groups
        .iter()
        .map(|(name, container, lines)| {
            let shown: Vec<String> = lines.iter().take(10).map(u32::to_string).collect();
            let more = if lines.len() > 10 { format!(" and {} more", lines.len() - 10) } else { String::new() };
            format!(
                "`{name}!` ×{} {} (line{} {}{more})",
                lines.len(),
                container.map_or_else(|| "at top level".to_owned(), |container| format!("in `{container}`")),
                if lines.len() == 1 { "" } else { "s" },
                shown.join(", ")
            )
        })
        .collect();
    Some(format!(
        "not listed: the items that {} in item position define — the outline shows no macro expansion: {}; `symbols` with a `query` (the workspace search) lists what they define",
        plural(invocations.len(), "macro call"),
        described.join("; ")
    ))
}

fn diagnostics(ctx: &CallContext<'_>, supervisor: &LspSupervisor, args: &LspArguments, deadline: Instant) -> Result<ToolOutput, ToolError> {
    let Some(file) = args.file.as_deref() else {
        return Err(ToolError::invalid("diagnostics needs `file`")
            .with_hint("pass the file to check, e.g. {\"op\": \"diagnostics\", \"file\": \"src/app.py\"}"));
    };
    let deadline = deadline.checked_sub(ANSWER_MARGIN).unwrap_or_else(Instant::now);
    let selection = crate::lsp::cargo_features::FeatureSelection::new(args.all_features, args.features.as_deref().unwrap_or_default())
        .without_defaults(args.no_default_features);
    if file == "*" {
        return crate::lsp::checker::project_diagnostics(
            supervisor,
            args.offset,
            &selection,
            deadline,
            ctx.budget(),
            args.exclude.as_deref().unwrap_or_default(),
        );
    }

    let path = resolve_file(supervisor.workspace_root(), file)?;
    let lease = supervisor.server_for_file(&path, args.server.as_deref(), deadline)?;
    let server = &*lease.server;
    let mut notes = lease.notes.clone();
    let check_runs_before = server.check_runs().0;
    let loaded_check_runs_before = server.check_runs_started_loaded();
    notes.extend(
        crate::lsp::project_scope::outside_config_note(server.definition(), server.root(), std::slice::from_ref(&path), |path| {
            supervisor.display_path(path)
        })
        .map(|note| format!("note: {note}")),
    );
    let resync = server.resync_from_disk();
    // Something this server reads changed on disk (this file, another file of its root, a file
    // of a library root it depends on): a check run's errors stored before it are no answer.
    let changed_on_disk = resync.resynced + resync.changed_outside > 0;
    notes.extend(resync.note(|path| supervisor.display_path(path)));
    let sync = server.sync_document(&path)?;
    let budget_end = (Instant::now() + supervisor.config().diagnostics_wait.max(supervisor.config().indexing_wait)).min(deadline);
    let readiness = server.wait_until_ready(budget_end);
    // A change outside the tools to another file (a `git checkout`) can change this file's
    // diagnostics too; the server re-checks it after the changed files.
    if !server.settle_outside_changes((Instant::now() + supervisor.config().diagnostics_wait).min(deadline)) {
        notes.push(format!(
            "note: {} had not finished re-checking the files changed outside the tools within {} ms; these diagnostics may predate those changes",
            server.id(),
            supervisor.config().diagnostics_wait.as_millis()
        ));
    }
    // A server whose compiler errors come from its own check run (rust-analyzer's flycheck =
    // cargo check, which reads the disk): when this file's text reached it anew (an edit outside
    // the tools, resynced above), the errors stored for it predate the change until a check run
    // that began after it ends.
    //
    // The run must also have begun once the server had loaded its project (issue 11 §5, the
    // stale24 brief): while rust-analyzer loads or primes its caches it hands on a check run's
    // `$/progress` late, so a run whose `begin` arrives after the change may have started before
    // it — under load (load average 14-18) the consumer crate's answer after its library's fix
    // still showed the fix's E0061 from such a run. When no run qualifies in the budget, the
    // answer is "NOT checked", never the errors of the run before the change.
    if server.definition().write_check == crate::lsp::WriteCheck::ProjectCheckRun
        && (changed_on_disk || server.check_runs().0 > check_runs_before || server.is_stale(&path) || sync.changed)
    {
        let check_end = (Instant::now() + supervisor.config().diagnostics_wait).min(deadline);
        let not_checked = if server.wait_for_check_run_after_save(check_runs_before, Duration::from_millis(1500), check_end) {
            match crate::lsp::cold_check::ensure_check_after_loading_for(
                server,
                loaded_check_runs_before,
                Duration::from_millis(1500),
                check_end,
                "the latest change on disk",
            ) {
                Ok(_) => {
                    server.wait_for_publish_quiet(Duration::from_millis(250), check_end);
                    None
                }
                Err(reason) => Some(reason),
            }
        } else {
            Some(format!(
                "NOT checked: {}'s cargo check after the change did not finish within {} ms",
                server.id(),
                supervisor.config().diagnostics_wait.as_millis()
            ))
        };
        if let Some(reason) = not_checked {
            let relative = supervisor.display_path(&path);
            let mut err = ToolError::new(
                ErrorKind::Timeout,
                format!(
                    "diagnostics unavailable for {relative}: {reason}; the compiler errors {id} holds for it come from a cargo check that ran before the latest change on disk, so none are shown (this is not a clean result)",
                    id = server.id()
                ),
            )
            .with_hint("call lsp with {\"op\": \"diagnostics\", \"file\": \"<file>\"} again in a few seconds, or {\"op\": \"diagnostics\", \"file\": \"*\"} for a cargo check of its own");
            for note in &notes {
                err.message.push_str(&format!("; {note}"));
            }
            return Err(err);
        }
    }
    let publish_wait_end = (Instant::now() + supervisor.config().diagnostics_wait).min(deadline);
    // tsserver publishes nothing for a file that stays clean, and what it published before a
    // change to another file (one it does not have open) may be old: its own diagnostics
    // requests answer after every change it was sent, and are the answer.
    let by_requests = server.definition().write_check == crate::lsp::WriteCheck::TsserverRequests;
    let pulled = if by_requests {
        match crate::lsp::diagnostics_on_write::tsserver_diagnostics_settled(server, &path, publish_wait_end) {
            Ok((diagnostics, stale_note)) => {
                notes.extend(stale_note);
                Some(diagnostics)
            }
            Err(message) => {
                notes.push(format!("note: tsserver diagnostics request failed: {message}"));
                None
            }
        }
    } else {
        match server.pull_diagnostics(&path, publish_wait_end) {
            Ok(pulled) => pulled,
            Err(failure) => {
                notes.push(format!(
                    "note: pull diagnostics failed: {}",
                    failure.to_tool_error(server.id(), "textDocument/diagnostic").message
                ));
                None
            }
        }
    };
    if pulled.is_some() {
        // Asked after the changes reached the server: current.
        server.mark_checked_after_change(&path);
    }
    // A push that arrived after this document was last synced is fresh; otherwise wait for one.
    // Only a publish that came after the server got this file's current text (and after any
    // change on disk outside the tools) is fresh.
    let fresh_existing = match server.stored_diagnostics(&path) {
        crate::lsp::StoredDiagnostics::Current(set) => Some(set),
        crate::lsp::StoredDiagnostics::NeverPublished
            if server.definition().write_check == crate::lsp::WriteCheck::ProjectCheckRun && pulled.is_some() =>
        {
            // rust-analyzer's flycheck publishes only files with compiler errors.
            Some(crate::lsp::PublishedDiagnostics { generation: 0, version: None, diagnostics: Vec::new(), received_at: Instant::now() })
        }
        // Published by a check run before this file was opened: still what the run found, when
        // the run read the file's current text (it publishes again only when it runs again).
        crate::lsp::StoredDiagnostics::Stale
            if server.definition().write_check == crate::lsp::WriteCheck::ProjectCheckRun && pulled.is_some() =>
        {
            server.check_run_diagnostics_still_current(&path)
        }
        _ => None,
    };
    let pushed = match fresh_existing {
        _ if by_requests && pulled.is_some() => None,
        Some(set) => Some(set),
        None => {
            let settle = server.definition().diagnostics_settle;
            let wait_end = if pulled.is_some() { (Instant::now() + settle * 2).min(deadline) } else { publish_wait_end };
            let after = server.document_synced_generation(&path).unwrap_or(sync.generation_before);
            server.wait_for_published_diagnostics(&path, after, settle, wait_end)
        }
    };
    let relative = supervisor.display_path(&path);
    if pulled.is_none() && pushed.is_none() {
        let mut err = ToolError::new(
            ErrorKind::Timeout,
            format!(
                "diagnostics unavailable for {relative}: {} published none within {} ms after the file was synced (server {})",
                server.id(),
                supervisor.config().diagnostics_wait.as_millis(),
                server.readiness().describe()
            ),
        )
        .with_hint("this is not a clean result; call again in a few seconds");
        for note in &notes {
            err.message.push_str(&format!("; {note}"));
        }
        return Err(err);
    }
    let mut all: Vec<lsp_types::Diagnostic> = pulled.unwrap_or_default();
    if let Some(set) = &pushed {
        all.extend(set.diagnostics.iter().cloned());
    }
    // The same diagnostic pulled and pushed is one; two at other columns of a line are two
    // (cattrs 24.1.2's converters.py:202, `Type variable "T" has no meaning in this context`
    // at columns 68 and 73: the pyright CLI counts 66 errors in the file, keyed by line 64).
    let mut seen = std::collections::HashSet::new();
    all.retain(|d| {
        let range = (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character);
        seen.insert((range, d.code.clone(), d.message.clone()))
    });
    let collapsed = crate::lsp::inactive::collapse_rust_analyzer_repeats(&path, &mut all);
    if collapsed > 0 {
        notes.push(format!(
            "note: {} of {}'s own analysis repeated rustc's (cargo check) at the same place and {} counted once",
            plural(collapsed, "error"),
            server.id(),
            crate::render::one_or_many(collapsed, "was", "were")
        ));
    }
    // Code not compiled in the current configuration: said, never passed as clean.
    let inactive = crate::lsp::inactive::inactive_ranges(&all);
    // An error raised in a macro's expansion: rust-analyzer puts a HINT at the call, where rustc
    // counts the error (trial91 F1: smallvec's tests read "no errors" beside "11 hint-level
    // diagnostics omitted"); the macro body's place is said with it.
    // A call inside another macro's `macro_rules!` body is an intermediate step of the expansion,
    // not where rustc counts the error (it counts the outermost call).
    let mut macro_bodies: Option<Vec<(u32, u32)>> = None;
    for diagnostic in all.iter_mut() {
        if let Some(at_call) = crate::lsp::diagnostics_on_write::macro_call_site_severity(diagnostic) {
            let bodies = macro_bodies.get_or_insert_with(|| {
                crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path)
                    .map(|text| crate::lsp::inactive::macro_rules_line_ranges(&text))
                    .unwrap_or_default()
            });
            let line0 = diagnostic.range.start.line;
            if bodies.iter().any(|(first, last)| (*first..=*last).contains(&line0)) {
                continue;
            }
            diagnostic.severity = Some(at_call);
            let body = diagnostic
                .related_information
                .as_deref()
                .unwrap_or_default()
                .iter()
                .find(|info| info.message == "Exact error occurred here")
                .and_then(|info| {
                    crate::lsp::uri::lsp_uri_to_path(&info.location.uri).map(|body| (body, info.location.range.start.line + 1))
                });
            if let Some((body, body_line)) = body {
                diagnostic.message.push_str(&format!(
                    " (raised in the expansion of the macro called here, at {}:{body_line})",
                    supervisor.display_path(&body)
                ));
            }
        }
    }
    let severity = |d: &lsp_types::Diagnostic| severity_number(d.severity);
    let n_hints = all.iter().filter(|d| severity(d) == 4 && !crate::lsp::inactive::is_inactive_marker(d)).count();
    all.retain(|d| severity(d) != 4 && !crate::lsp::inactive::is_inactive_marker(d));
    all.sort_by_key(|d| (severity(d), d.range.start.line));
    // rust-analyzer's own analysis can report an error rustc does not (arrayvec 0.7.6: E0384
    // "cannot mutate immutable variable `self_len`" at src/arrayvec.rs:1095, where the crate
    // compiles and its tests pass). When its cargo check ran over this file's current text and
    // found no compiler error anywhere, such an error is not confirmed by the compiler: said so.
    let unconfirmed: HashSet<(u32, String)> = if rustc_found_no_error_anywhere(server, &path, pushed.is_some()) {
        all.iter()
            .filter(|d| severity(d) == 1 && d.source.as_deref() == Some("rust-analyzer"))
            .map(|d| (d.range.start.line, d.message.clone()))
            .collect()
    } else {
        HashSet::new()
    };
    let is_unconfirmed = |d: &lsp_types::Diagnostic| unconfirmed.contains(&(d.range.start.line, d.message.clone()));
    let n_errors = all.iter().filter(|d| severity(d) == 1).count() - unconfirmed.len().min(all.len());
    let n_warnings = all.iter().filter(|d| severity(d) == 2).count();
    if !unconfirmed.is_empty() {
        notes.push(format!(
            "note: {} marked \"NOT confirmed by rustc\" {} from {}'s own analysis only: its cargo check (rustc), which ran after this file's last change, compiled the project with no error, so {} likely a false positive of {} and {} not counted as {} above; `cargo check` / `cargo build` is the authority",
            plural(unconfirmed.len(), "error"),
            crate::render::one_or_many(unconfirmed.len(), "comes", "come"),
            server.id(),
            crate::render::one_or_many(unconfirmed.len(), "it is", "they are"),
            server.id(),
            crate::render::one_or_many(unconfirmed.len(), "is", "are"),
            crate::render::one_or_many(unconfirmed.len(), "an error", "errors"),
        ));
    }
    // A test, bench or example whose library failed in the last cargo check: rustc never
    // compiled it (trial38 F3: "no errors" in a bench with a borrow error, the very call the
    // write's "cargo never compiled it" line pointed to).
    let never_compiled = server.id() == "rust-analyzer"
        && !rust_analyzer_check_off(server)
        && !all.iter().any(|diagnostic| diagnostic.source.as_deref() == Some("rustc"))
        && crate::lsp::diagnostics_on_write::in_rust_targets(
            &crate::lsp::diagnostics_on_write::rust_targets_not_compiled(supervisor, server, &path),
            &path,
        );
    if never_compiled {
        notes.push(
            "note: NOT checked by rustc: cargo's last check never compiled this file's target — a library it depends on has compiler errors (`lsp diagnostics \"*\"` lists them) — so these are rust-analyzer's own analysis only, and errors only rustc reports (borrow checking, most type errors) are NOT included; fix the library's errors, then ask again".to_owned(),
        );
    }
    if !all.is_empty() && rust_analyzer_check_off(server) {
        notes.push(format!(
            "note: NOT checked by rustc: {RUST_ANALYZER_CHECK_OFF}, so errors only rustc reports (borrow checking, most type errors, macro resolution) are NOT among these; `cargo check` is the authority"
        ));
    }
    // What the project's outside roots mean for this answer (trial21 F1, F2): a restricted run's
    // "no errors" said nothing of the dependency rust-analyzer could not read, and a trusted
    // run's stayed stale after a hand edit in `../num-traits` until `reload`.
    notes.extend(supervisor.outside_roots_diagnostics_notes());
    let file_text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path).unwrap_or_default();
    let lines = split_lines(&file_text);
    let whole_file_inactive = inactive.iter().any(|range| crate::lsp::inactive::covers_whole_text(range, &file_text));
    let mut text = if whole_file_inactive {
        let ranges: Vec<&crate::lsp::inactive::InactiveRange> = inactive.iter().collect();
        let mut text =
            crate::lsp::inactive::inactive_sentence_at(server.id(), &relative, Some((supervisor.workspace_root(), &path)), &ranges, true);
        if !all.is_empty() {
            text.push_str(&format!(" ({} reports {} in it, listed below)", server.id(), plural(all.len(), "diagnostic")));
        }
        text
    } else if let Some(failure) = server.workspace_load_failure().filter(|_| all.is_empty()) {
        format!(
            "NOT checked: {} could not load the workspace, so its empty diagnostics for {relative} (version {}) do not mean the file is clean ({}); fix the cause (go.mod / go.sum, the build configuration), then call again or reload; the compiler (`go build ./...`) is the authority meanwhile",
            server.id(),
            sync.version,
            crate::render::cut_chars(&failure, 400)
        )
    } else if let Some(gate) = (server.id() == "rust-analyzer")
        .then(|| crate::lsp::inactive::own_cfg_gate_off(supervisor.workspace_root(), &path))
        .flatten()
        .filter(|_| all.is_empty())
    {
        // A file whose own `#![cfg(…)]` is off: rust-analyzer marks nothing inactive (trial42 F5).
        format!("NOT checked: {}", crate::lsp::inactive::own_cfg_gate_sentence(server.id(), &relative, &gate))
    } else if all.is_empty() && never_compiled {
        format!(
            "{} reports no errors or warnings of its own in {relative} (version {}, checked after sync) — NOT checked by rustc: cargo never compiled it (see the note)",
            server.id(),
            sync.version
        )
    } else if all.is_empty() && rust_analyzer_check_off(server) {
        // Without cargo check rust-analyzer's own analysis misses what only rustc reports: a
        // use after move, an unresolved macro (trial36 F5: "no errors or warnings" in a file
        // rustc rejects, in a restricted run).
        format!(
            "{} reports no errors or warnings of its own in {relative} (version {}, checked after sync) — NOT checked by rustc: {}, so errors only rustc reports (borrow checking, most type errors, macro resolution) are NOT included; `cargo check` is the authority",
            server.id(),
            sync.version,
            RUST_ANALYZER_CHECK_OFF
        )
    } else if all.is_empty() {
        format!("{} reports no errors or warnings in {relative} (version {}, checked after sync)", server.id(), sync.version)
    } else {
        let unconfirmed_words = if unconfirmed.is_empty() {
            String::new()
        } else {
            format!(" (and {} of its own that rustc does NOT confirm, see the note)", plural(unconfirmed.len(), "error"))
        };
        format!(
            "{} diagnostics for {relative}: {}, {}, {} other{unconfirmed_words}",
            server.id(),
            plural(n_errors, "error"),
            plural(n_warnings, "warning"),
            all.len() - n_errors - unconfirmed.len() - n_warnings
        )
    };
    // gopls findings of the go vet checks `go test` runs before the tests: warnings that fail the
    // package's test build (trial45 F2: "0 errors, 4 warnings" while `go test` refused to build).
    if server.id() == "gopls" {
        let analyzers = crate::lsp::write_ledger_rules::go_test_vet_analyzers(supervisor.workspace_root());
        let blocking = all
            .iter()
            .filter(|diagnostic| {
                severity(diagnostic) != 1 && diagnostic.source.as_deref().is_some_and(|source| analyzers.iter().any(|name| name == source))
            })
            .count();
        if blocking > 0 {
            text.push_str(&format!(
                " — go test will refuse to build: {} {} of the go vet checks `go test` runs before the tests ({}), and the test build of {relative}'s package fails on {}",
                crate::render::plural(blocking, "warning"),
                crate::render::one_or_many(blocking, "is a finding", "are findings"),
                analyzers.join(", "),
                crate::render::one_or_many(blocking, "it", "them"),
            ));
        }
    }
    let page = Page::new(all.len(), args.offset, supervisor.config().diagnostics_cap, "diagnostics")?;
    let mut results = Vec::new();
    for diagnostic in &all[page.range()] {
        let line = diagnostic.range.start.line.saturating_add(1);
        let severity_name = match severity(diagnostic) {
            1 => "error",
            2 => "warning",
            3 => "info",
            _ => "hint",
        };
        let code = match &diagnostic.code {
            Some(lsp_types::NumberOrString::String(code)) => format!(" [{code}]"),
            Some(lsp_types::NumberOrString::Number(code)) => format!(" [{code}]"),
            None => String::new(),
        };
        let message = diagnostic.message.replace('\n', " ");
        let mut source = diagnostic.source.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
        if is_unconfirmed(diagnostic) {
            source.push_str(" — NOT confirmed by rustc");
        }
        text.push_str(&format!("\n{relative}:{line}: {severity_name}{code} {message}{source}"));
        if let Some(source_line) = lines.get(line as usize - 1) {
            text.push_str(&format!("\n{line:>6} | {}", cut_chars(source_line.trim_end(), 200)));
        }
        let code = match &diagnostic.code {
            Some(lsp_types::NumberOrString::String(code)) => Some(DiagnosticCode::Text(code.clone())),
            Some(lsp_types::NumberOrString::Number(code)) => Some(DiagnosticCode::Number(i64::from(*code))),
            None => None,
        };
        results.push(DiagnosticEntry {
            path: relative.clone(),
            line,
            severity: severity_name.to_owned(),
            code,
            message,
            source: diagnostic.source.clone(),
        });
    }
    if let Some(notice) = page.notice() {
        text.push('\n');
        text.push_str(&notice);
    }
    if !inactive.is_empty() && !whole_file_inactive {
        let ranges: Vec<&crate::lsp::inactive::InactiveRange> = inactive.iter().collect();
        text.push('\n');
        text.push_str(&crate::lsp::inactive::inactive_sentence(server.id(), &relative, &ranges, false));
    }
    if n_hints > 0 {
        text.push_str(&format!("\n({} omitted)", plural(n_hints, "hint-level diagnostic")));
    }
    if let Some(note) = diagnostics_readiness_note(server, &readiness) {
        notes.push(note);
    }
    for note in &notes {
        text.push('\n');
        text.push_str(note);
    }
    let output = LspOutput::FileDiagnostics(FileDiagnostics {
        op: DiagnosticsOp::Diagnostics,
        file: relative,
        server: server.id().to_owned(),
        version: sync.version,
        total: all.len(),
        page: PageWindow::from(&page),
        results,
        notes,
    });
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(to_structured(&output))))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_count_line_with_call_sites_says_its_place_tally_counts_callees() {
        // trial168 M5: "2 callees, 3 call sites — 1 in the workspace (1 file); 1 …" read as
        // splitting the call sites.
        let root = std::path::Path::new("/work/project");
        let mut tally = crate::lsp::listing::PathTally::default();
        tally.add(&crate::lsp::listing::ListedPath::new(root, std::path::Path::new("/work/project/src/a.ts")));
        tally.add(&crate::lsp::listing::ListedPath::new(root, std::path::Path::new("/usr/lib/node_modules/typescript/lib/lib.d.ts")));
        let line = super::counted(2, "callee", ", 3 call sites", true, &tally);
        assert!(line.starts_with("2 callees, 3 call sites — by callee: 1 in the workspace (1 file); 1 outside"), "{line}");
        let line = super::counted(2, "reference", " in 2 files", false, &tally);
        assert!(line.starts_with("2 references in 2 files — 1 in the workspace (1 file); 1 outside"), "{line}");
    }

    #[test]
    fn an_embedded_go_field_line_is_told_from_a_named_field() {
        assert!(super::go_embedded_field_line("\tclock.Clock", "Clock"));
        assert!(super::go_embedded_field_line("\t*Mock // the mock", "Mock"));
        assert!(super::go_embedded_field_line("\tsync.Mutex `json:\"-\"`", "Mutex"));
        assert!(!super::go_embedded_field_line("\tclock clock.Clock", "Clock"));
        assert!(!super::go_embedded_field_line("func (c Clock) Now() {", "Clock"));
        assert!(!super::go_embedded_field_line("\treturn c.Clock", "Clock"));
        let text = "package p\n\ntype A struct {\n\tclock.Clock\n}\n\ntype B interface {\n\tio.Reader\n}\n";
        assert!(super::go_line_in_struct_type(text, 3));
        assert!(!super::go_line_in_struct_type(text, 7));
    }

    #[test]
    fn the_trait_of_an_enclosing_rust_impl_is_read_from_its_header() {
        let text = "impl<L, R> Iterator for Either<L, R>\nwhere\n    L: Iterator,\n{\n    fn next(&mut self) -> Option<u8> {\n        None\n    }\n}\n\nimpl<L, R> Either<L, R> {\n    pub fn flip(self) {}\n}\n\nunsafe impl<T> std::marker::Send for Wrap<T> {\n    fn x() {}\n}\n";
        assert_eq!(super::rust_trait_of_enclosing_impl(text, 4).as_deref(), Some("Iterator"));
        assert_eq!(super::rust_trait_of_enclosing_impl(text, 10), None);
        assert_eq!(super::rust_trait_of_enclosing_impl(text, 14).as_deref(), Some("Send"));
    }

    use super::*;

    #[test]
    fn macro_calls_in_item_position_are_named_as_what_the_outline_does_not_list() {
        // trial66 M1: fastrand's `rng_integer!` calls in `impl Rng`, `integer!(…);` and a braced
        // `thread_local!` at top level; a call in a function body or a `macro_rules!` is none.
        let source = "std::thread_local! {\n    static R: u8 = 0;\n}\n\nmacro_rules! integer {\n    ($t:tt) => { pub fn $t() {} };\n}\n\ninteger!(u8);\ninteger!(u16);\n\npub struct Rng;\n\nimpl Rng {\n    rng_integer!(u8);\n    pub fn f(&self) {\n        println!(\"x\");\n    }\n}\n\nmod inner {\n    integer!(u32);\n}\n";
        let parsed = crate::lsp::syntax::ParsedSource::parse(Path::new("lib.rs"), source).unwrap();
        let found: Vec<(String, u32, Option<String>)> = parsed
            .rust_item_macro_invocations()
            .into_iter()
            .map(|invocation| (invocation.macro_name, invocation.line, invocation.container))
            .collect();
        assert_eq!(
            found,
            vec![
                ("std::thread_local".to_owned(), 1, None),
                ("integer".to_owned(), 9, None),
                ("integer".to_owned(), 10, None),
                ("rng_integer".to_owned(), 15, Some("impl Rng".to_owned())),
                ("integer".to_owned(), 22, Some("mod inner".to_owned())),
            ]
        );
        let note = item_macro_invocations_note(&parsed.rust_item_macro_invocations()).unwrap();
        assert_eq!(
            note,
            "not listed: the items that 5 macro calls in item position define — the outline shows no macro expansion: `std::thread_local!` ×1 at top level (line 1); `integer!` ×2 at top level (lines 9, 10); `rng_integer!` ×1 in `impl Rng` (line 15); `integer!` ×1 in `mod inner` (line 22); `symbols` with a `query` (the workspace search) lists what they define"
        );
        let plain = crate::lsp::syntax::ParsedSource::parse(Path::new("lib.rs"), "pub fn f() {\n    vec![1];\n}\n").unwrap();
        assert_eq!(item_macro_invocations_note(&plain.rust_item_macro_invocations()), None);
    }

    #[test]
    fn rust_impl_headers_name_their_type_through_references_and_generics() {
        assert_eq!(rust_type_after("&'a mut Slab<T> {"), Some("Slab"));
        assert_eq!(rust_type_after("&'a Slab<T>"), Some("Slab"));
        assert_eq!(rust_type_after("crate::Slab<T> {"), Some("Slab"));
        assert_eq!(rust_type_after(rust_skip_generics("<T: Clone, F: Fn() -> u8> Slab<T> {")), Some("Slab"));
        assert_eq!(rust_type_after(rust_skip_generics("Slab<T> {")), Some("Slab"));
    }

    #[test]
    fn a_line_declaring_a_name_is_told_from_a_use() {
        assert!(line_declares("  MATCHES: 1,", "MATCHES"));
        assert!(line_declares("export const rankings = {", "rankings"));
        assert!(line_declares("pub fn wrap(text: &str) {", "wrap"));
        assert!(line_declares("def parse(raw):", "parse"));
        assert!(line_declares("    compute = () => {", "compute"));
        assert!(!line_declares("  return rankings.MATCHES", "MATCHES"));
        assert!(!line_declares("  if (MATCHES == 1) {", "MATCHES"));
        assert!(!line_declares("const MATCHES_ALL = 2", "MATCHES"));
        assert!(!line_declares("    zip(strict=True)", "zip"), "a call statement (trial96 F1)");
        assert!(line_declares("  matches(value: string): boolean {", "matches"), "a method");
    }

    #[test]
    fn hover_entities_are_decoded_outside_code_only() {
        let hover = "Args:  \n&nbsp;&nbsp;a: x &lt;b&gt; &amp; `a &lt; b` &#39;q&#39;\n```html\n&lt;p&gt;\n```\nafter&nbsp;fence";
        assert_eq!(decode_entities_outside_code(hover), "Args:\n  a: x <b> & `a &lt; b` 'q'\n```html\n&lt;p&gt;\n```\nafter fence");
    }

    #[test]
    fn hover_markdown_backslash_escapes_are_removed_outside_code_only() {
        // pyright's hover on pluggy 1.5.0's HookCaller (trial 11, M4).
        let hover =
            "Call \\_\\_call\\_\\_() via `HookCaller.\\_\\_call\\_\\_`\n```python\nx = \"a\\_b\"\n```\npath C:\\dir \\\\ \\*bold\\*";
        assert_eq!(
            decode_entities_outside_code(hover),
            "Call __call__() via `HookCaller.\\_\\_call\\_\\_`\n```python\nx = \"a\\_b\"\n```\npath C:\\dir \\ *bold*"
        );
    }
}
