//! The typed `structuredContent` of `lsp`, `lsp_rename` and `lsp_code_action`: the types the
//! tools serialize, from which their declared `outputSchema`s are derived
//! ([`crate::schema::output_schema`]), so the schema hosts validate against cannot drift from
//! what the tools return. The text content for the model is rendered beside them, unchanged.
//!
//! `lsp`'s result is one union discriminated by `op` ([`LspOutput`]): every branch has an `op`
//! field whose enum names the ops of that shape (`definition`, `type_definition` and
//! `implementation` list locations; the four hierarchy ops share one shape), so the declared
//! schema holds each shape once. Paths are
//! workspace-relative as [`crate::render::display_path`] and the listings' shortened dependency
//! paths show them; lines and columns are 1-based unless a field says `lsp_position`.

use schemars::JsonSchema;
use serde::Serialize;

use crate::lsp::listing::{ListedPath, Page, PathClass};
use crate::lsp::supervisor::LspStatus;
use crate::trust::WorkspaceTrust;

/// The `structuredContent` of a successful `lsp` call; its `op` says which branch.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum LspOutput {
    /// `definition`, `type_definition`, `implementation`: locations.
    Locations(Navigation<LocationOp, LocationEntry>),
    /// `references`: every use of the symbol (the declaration included).
    References(Navigation<ReferencesOp, ReferenceEntry>),
    /// `hover`: the server's hover text.
    Hover(Navigation<HoverOp, HoverEntry>),
    /// `code_actions`: the actions offered at the position, numbered as `lsp_code_action`
    /// applies them.
    CodeActions(Navigation<CodeActionsOp, CodeActionEntry>),
    /// `incoming_calls`, `outgoing_calls`, `supertypes`, `subtypes`.
    Hierarchy(HierarchyOutput),
    /// `symbols` with `query`: a workspace symbol search.
    WorkspaceSymbols(WorkspaceSymbols),
    /// `symbols` with `file`: the file's outline.
    FileOutline(FileOutline),
    /// `diagnostics` of one file, from its server.
    FileDiagnostics(FileDiagnostics),
    /// `diagnostics` with `file: "*"`: the project checkers'.
    WorkspaceCheck(WorkspaceCheck),
    /// `status`: the configured servers, their roots and processes.
    Status(StatusOutput),
    /// `reload`: what was restarted.
    Reload(ReloadOutput),
}

/// The ops answered with locations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LocationOp {
    /// Where the symbol is defined.
    Definition,
    /// Where its type is defined.
    TypeDefinition,
    /// The implementations of a trait, interface or abstract member.
    Implementation,
}

/// `op` of a references answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReferencesOp {
    /// Every use of the symbol.
    References,
}

/// `op` of a hover answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HoverOp {
    /// The hover text.
    Hover,
}

/// `op` of a code-action listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CodeActionsOp {
    /// The offered code actions.
    CodeActions,
}

/// The hierarchy ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HierarchyOp {
    /// Who calls the function.
    IncomingCalls,
    /// What the function calls.
    OutgoingCalls,
    /// The type's supertypes.
    Supertypes,
    /// The type's subtypes.
    Subtypes,
}

/// `op` of a symbols answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SymbolsOp {
    /// A symbol search or an outline.
    Symbols,
}

/// `op` of a diagnostics answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticsOp {
    /// Diagnostics.
    Diagnostics,
}

/// `op` of a status answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StatusOp {
    /// The status.
    Status,
}

/// `op` of a reload answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReloadOp {
    /// A reload.
    Reload,
}

/// `lsp status`: [`LspStatus`] with its `op`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StatusOutput {
    /// Always `status`.
    pub op: StatusOp,
    /// The status.
    #[serde(flatten)]
    pub status: LspStatus,
}

/// Where a listed location is, relative to the workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LocationClass {
    /// Project code.
    Workspace,
    /// Dependency code inside the workspace (`.venv`, `node_modules`, `target`, …).
    WorkspaceDependency,
    /// Outside the workspace.
    Outside,
}

impl From<PathClass> for LocationClass {
    fn from(class: PathClass) -> LocationClass {
        match class {
            PathClass::Workspace => LocationClass::Workspace,
            PathClass::WorkspaceDependency => LocationClass::WorkspaceDependency,
            PathClass::Outside => LocationClass::Outside,
        }
    }
}

/// A listed path and one line of it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListedLocation {
    /// Workspace-relative path, a dependency path shortened to its package (`origin` says from
    /// where), an absolute path, or the URI when it is not a file.
    pub path: String,
    /// Workspace code, dependency code inside the workspace, or outside.
    pub class: LocationClass,
    /// `class` is `outside`.
    pub outside_workspace: bool,
    /// The absolute path (dependency and outside paths only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub absolute_path: Option<String>,
    /// Where dependency code comes from (`site-packages`, `cargo registry`, …); null for an
    /// outside path of no known origin; absent for workspace paths.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<Option<String>>,
    /// 1-based line.
    pub line: u32,
    /// The line's text (trimmed, cut at 200 characters); null when it is not quoted.
    pub text: Option<String>,
    /// Whether the line was read (lines outside the workspace and its known dependency roots are
    /// never quoted).
    pub quoted: bool,
}

impl ListedLocation {
    /// A location in `path` (`None`: a URI that is not a file, shown as `uri`).
    pub(crate) fn new(path: Option<&ListedPath>, uri: &str, line: u32, text: &str, quoted: bool) -> ListedLocation {
        let (path, class, absolute_path, origin) = match path {
            Some(path) if path.class != PathClass::Workspace => {
                (path.text.clone(), path.class.into(), Some(path.absolute.display().to_string()), Some(path.origin.map(str::to_owned)))
            }
            Some(path) => (path.text.clone(), path.class.into(), None, None),
            None => (uri.to_owned(), LocationClass::Outside, None, None),
        };
        ListedLocation {
            path,
            outside_workspace: class == LocationClass::Outside,
            class,
            absolute_path,
            origin,
            line,
            text: quoted.then(|| text.to_owned()),
            quoted,
        }
    }
}

/// The window of a paged list.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub struct PageWindow {
    /// Entries skipped (the call's `offset`).
    pub offset: usize,
    /// Entries in this page.
    pub shown: usize,
    /// Entries in the whole answer.
    pub total: usize,
    /// The `offset` of the next page; null on the last page.
    pub next_offset: Option<usize>,
}

impl From<&Page> for PageWindow {
    fn from(page: &Page) -> PageWindow {
        PageWindow { offset: page.offset, shown: page.shown(), total: page.total, next_offset: page.next_offset() }
    }
}

/// The queried position: the file, line and symbol the call addressed, and the LSP position
/// asked.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QueryPosition {
    /// Workspace-relative file.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column of the identifier (characters).
    pub column: u32,
    /// The identifier under the cursor.
    pub identifier: String,
    /// The line's text.
    pub line_text: String,
    /// Which occurrence of `symbol` on the line (1-based).
    pub occurrence: usize,
    /// How many times `symbol` occurs on the line.
    pub occurrence_count: usize,
    /// The position sent to the server.
    pub lsp_position: LspPosition,
}

/// A position as sent to the server: 0-based line and character in the negotiated encoding.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LspPosition {
    /// 0-based line.
    pub line: u32,
    /// 0-based character offset in `encoding` units.
    pub character: u32,
    /// `utf-8`, `utf-16` or `utf-32`.
    pub encoding: String,
}

/// A navigation answer (`definition`, `references`, `hover`, `code_actions`, …): `O` is its
/// op enum, `T` its entries.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Navigation<O, T> {
    /// The op answered.
    pub op: O,
    /// The server that answered (`rust-analyzer`, `pyright`, …).
    pub server: String,
    /// The server's root, workspace-relative.
    pub root: String,
    /// What was asked.
    pub position: QueryPosition,
    /// The answer's entries in this page.
    pub results: Vec<T>,
    /// The page window, for paged answers (references, implementations, later definition
    /// pages); null otherwise.
    pub page: Option<PageWindow>,
    /// The server was still indexing when it answered (the answer may be partial).
    pub still_indexing: bool,
    /// Notes: restarts, reused answers, coverage checks, readiness.
    pub notes: Vec<String>,
}

/// A location of a `definition` / `type_definition` / `implementation` answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LocationEntry {
    /// Where.
    #[serde(flatten)]
    pub location: ListedLocation,
    /// The text the location's range covers when it is not the whole name (`impl Trait for X`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// One reference.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReferenceEntry {
    /// Where.
    #[serde(flatten)]
    pub location: ListedLocation,
    /// 1-based column (characters in the server's encoding, plus one).
    pub column: u32,
}

/// The hover text.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HoverEntry {
    /// The whole hover (markdown), not cut.
    pub hover: String,
}

/// One offered code action.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CodeActionEntry {
    /// The number `lsp_code_action` takes as `apply` (1-based).
    pub number: usize,
    /// The action's title.
    pub title: String,
    /// Its LSP kind (`quickfix`, `refactor.extract`, …), `command` for a bare command,
    /// `unspecified` when none.
    pub kind: String,
    /// The server marks it preferred.
    pub preferred: bool,
    /// Why it is disabled, when it is.
    pub disabled: Option<String>,
    /// The files its edit changes (workspace-relative).
    pub edits_files: Vec<String>,
    /// The command it runs after its edit, when any.
    pub command: Option<String>,
    /// Its edit is computed by the server when applied (`codeAction/resolve`).
    pub edit_on_resolve: bool,
}

/// A hierarchy answer (`incoming_calls`, `outgoing_calls`, `supertypes`, `subtypes`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HierarchyOutput {
    /// The op answered.
    pub op: HierarchyOp,
    /// The server that answered.
    pub server: String,
    /// The server's root, workspace-relative.
    pub root: String,
    /// What was asked.
    pub position: QueryPosition,
    /// Levels followed (1–3).
    pub depth: usize,
    /// The items the position prepared (usually one).
    pub items: Vec<HierarchyItemSummary>,
    /// Entries in the whole walk.
    pub total: usize,
    /// This page's entries.
    pub results: Vec<HierarchyEntry>,
    /// The page window.
    pub page: Option<PageWindow>,
    /// Requests sent for the walk.
    pub requests: usize,
    /// How long the walk took (ms).
    pub walk_ms: u64,
    /// The server was still indexing.
    pub still_indexing: bool,
    /// Notes: failed steps, reused walks, readiness, what was not followed, calls left out.
    pub notes: Vec<String>,
    /// `outgoing_calls`: calls the followed items' syntax trees show in their bodies that the
    /// server listed under no callee (calls through a variable, attribute or parameter; gopls:
    /// builtins and conversions), at most 200; empty for the other ops.
    pub unlisted_call_sites: Vec<UnlistedCallSite>,
    /// `incoming_calls`: names bound to the queried function (`const ok = Impl.ok`, `{ build:
    /// make }`, `ok: typeof Impl.ok`, `make as create`, Python `alias = f`) and the calls through
    /// each, which the server's call hierarchy does not list; empty for the other ops and when
    /// no such name was found.
    pub alias_calls: Vec<AliasCallsEntry>,
    /// `incoming_calls`: the queried function's references (`textDocument/references`) that
    /// are neither a listed call site nor one of `alias_calls`' bindings, an import or export, a
    /// declaration or a type — a call through an expression (`(a || f)(x)`), an argument,
    /// another use as a value — told by the file's syntax tree, at most 200; a call may reach
    /// the function through them that the call hierarchy does not list. Empty for the other ops.
    pub uses_not_listed: Vec<UseNotListedEntry>,
}

/// A reference of the queried function that an `incoming_calls` answer lists as no call site.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UseNotListedEntry {
    /// Where it is.
    #[serde(flatten)]
    pub location: ListedLocation,
    /// What it does, in words: `called through an expression`, `passed as an argument`, `used
    /// as a value`, `a call` (a direct call the hierarchy did not list).
    pub role: String,
}

/// A name bound to the queried function and the calls through it (followed one level by the
/// server's references of the name; see `src/lsp/call_aliases.rs`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AliasCallsEntry {
    /// The bound name.
    pub name: String,
    /// How it holds the function, in words: a name assigned it, a property holding it, a member
    /// typed as it (`typeof`), a renaming import or export.
    pub binding: String,
    /// Where it is bound (the line referencing the function).
    #[serde(flatten)]
    pub location: ListedLocation,
    /// Calls through the name that the answer's callers do not already list.
    pub calls: usize,
    /// The call sites, one per call (at most 200 over all names).
    pub call_sites: Vec<ListedLocation>,
    /// Calls through the name that the answer already lists.
    pub already_listed: usize,
    /// Names bound in turn to this one (`name (file:line)`), not followed.
    pub further_names: Vec<String>,
    /// Other references of the name: imports, exports, values passed on.
    pub other_uses: usize,
    /// Why the name was not followed (absent: followed; `calls` is then complete for the
    /// server's references).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_followed: Option<String>,
}

/// A call in a followed item's body that an `outgoing_calls` answer lists under no callee.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UnlistedCallSite {
    /// The item whose body makes the call.
    pub caller: String,
    /// The item's depth: 0 for the queried item, 1 for a depth-1 callee that was followed, ….
    pub caller_depth: usize,
    /// The file of the item and the call (workspace-relative).
    pub file: String,
    /// 1-based line of the item's name.
    pub caller_line: u32,
    /// 1-based line where the call starts.
    pub line: u32,
    /// The call's text on one line (at most 60 characters).
    pub call: String,
    /// A Go builtin or conversion (`len(x)`, `int(x)`), which gopls lists no callee for.
    pub go_builtin: bool,
    /// Rust: the macro whose arguments hold this call-shaped token run, with its delimiters
    /// (`itry!(…)`, `vec![…]`); rust-analyzer lists no call inside macro arguments. Absent for
    /// a call outside macros.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inside_macro: Option<String>,
}

/// A prepared hierarchy item.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HierarchyItemSummary {
    /// Its name.
    pub name: String,
    /// Its symbol kind (`function`, `method`, `class`, …).
    pub kind: String,
    /// The server's detail (a signature), when given.
    pub detail: Option<String>,
}

/// One hierarchy entry.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HierarchyEntry {
    /// Where its name is.
    #[serde(flatten)]
    pub location: ListedLocation,
    /// 1 for direct callers/callees/types, 2 for theirs, ….
    pub depth: usize,
    /// Its name.
    pub name: String,
    /// Its symbol kind.
    pub kind: String,
    /// The server's detail, when given.
    pub detail: Option<String>,
    /// The entries one depth up it relates to.
    pub via: Vec<String>,
    /// Whether its own entries were asked: `followed`, `depth reached`, `dependency code`,
    /// `already followed`, `recursive`, `follow cap`, `deadline`, `request failed`.
    pub followed: String,
    /// 1-based lines of overloads merged into this entry.
    pub overload_lines: Vec<u32>,
    /// Call hierarchies: the lines of the calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_sites: Option<Vec<CallSiteEntry>>,
}

/// One line with calls of a call-hierarchy entry.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CallSiteEntry {
    /// Where.
    #[serde(flatten)]
    pub location: ListedLocation,
    /// Calls on this line.
    pub calls: usize,
    /// `incoming_calls`: which entries one depth up are called there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callees: Option<Vec<String>>,
    /// `incoming_calls`: sites on this line that name the function as a value (passed, not
    /// called; not counted in `calls`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_references: Option<usize>,
    /// `incoming_calls`, Rust: the macro whose arguments hold the name on this line
    /// (`assert_write!(wtr, terminator, …)` gives `assert_write`): the server found the call in
    /// the macro's expansion, which the line's text does not show; counted in `calls`, not in
    /// `value_references`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub through_macro: Option<String>,
}

/// A workspace symbol search.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WorkspaceSymbols {
    /// Always `symbols`.
    pub op: SymbolsOp,
    /// The query.
    pub query: String,
    /// Matching symbols.
    pub total: usize,
    /// The page window.
    pub page: PageWindow,
    /// This page's symbols.
    pub results: Vec<WorkspaceSymbolEntry>,
    /// The servers asked.
    pub servers: Vec<String>,
    /// Notes.
    pub notes: Vec<String>,
    /// Symbols declared inside functions, not listed (`locals: true` lists them).
    pub locals_not_listed: usize,
    /// Symbols the servers found in files outside the workspace and its known dependency roots,
    /// not listed: a symbol's name is that file's content (the files are named in the text).
    pub outside_not_listed: usize,
}

/// One workspace symbol.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WorkspaceSymbolEntry {
    /// Where it is declared.
    #[serde(flatten)]
    pub location: ListedLocation,
    /// Its name.
    pub name: String,
    /// Its kind (`function`, `struct`, …).
    pub kind: String,
    /// The container the server names.
    pub container: Option<String>,
    /// The function it is a local of.
    pub local_of: Option<String>,
}

/// A file outline.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileOutline {
    /// Always `symbols`.
    pub op: SymbolsOp,
    /// Workspace-relative file.
    pub file: String,
    /// The server that answered.
    pub server: String,
    /// Entries listed in the whole outline.
    pub total: usize,
    /// The page window.
    pub page: PageWindow,
    /// This page's entries, in source order.
    pub results: Vec<OutlineEntry>,
    /// What the outline does not list, counted.
    pub not_listed: OutlineNotListed,
    /// Notes.
    pub notes: Vec<String>,
}

/// One outline entry.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OutlineEntry {
    /// Its name.
    pub name: String,
    /// Its readable kind (`fn`, `struct`, `class`, `method`, …).
    pub kind: String,
    /// The LSP symbol kind when it differs from `kind`.
    pub lsp_kind: Option<String>,
    /// The server's detail.
    pub detail: Option<String>,
    /// 1-based first line.
    pub line: u32,
    /// 1-based last line.
    pub end_line: u32,
    /// Nesting depth (0 = top level).
    pub depth: usize,
    /// The qualified name of its container.
    pub container: Option<String>,
    /// Why it is hidden by default (`local`, `import`, `callback`), when listed with `locals`.
    pub hidden: Option<String>,
    /// TypeScript/JavaScript: what a variable, constant or property is bound to when it is a
    /// function (`const arrow function`, `let function expression`, `property arrow
    /// function`); a `kind: ["function"]` filter lists such constants and variables, `["method"]`
    /// such properties. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_value: Option<String>,
}

/// What an outline left out.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OutlineNotListed {
    /// Locals (parameters, variables).
    pub locals: usize,
    /// Anonymous callbacks.
    pub callbacks: usize,
    /// Imports.
    pub imports: usize,
    /// Entries deeper than the depth shown.
    pub deeper: usize,
    /// Entries of other kinds than `kind` asks.
    pub other_kinds: usize,
    /// Python: `def`s, `class`es and assigned names of the module and class bodies that no
    /// entry stands for (pyright gives one symbol per name: `@overload` signatures,
    /// redefinitions).
    pub other_definitions: usize,
    /// Those definitions as `name:line (why)`, in source order; `why` is `@overload`,
    /// `property setter`, `property deleter`, `redefinition` or `not reported by the server`.
    pub other_definition_lines: Vec<String>,
}

/// One file's diagnostics.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileDiagnostics {
    /// Always `diagnostics`.
    pub op: DiagnosticsOp,
    /// Workspace-relative file.
    pub file: String,
    /// The server.
    pub server: String,
    /// The document version the diagnostics are for.
    pub version: i32,
    /// Diagnostics (hints included).
    pub total: usize,
    /// The page window.
    pub page: PageWindow,
    /// This page's diagnostics, errors first.
    pub results: Vec<DiagnosticEntry>,
    /// Notes.
    pub notes: Vec<String>,
}

/// A diagnostic's code: a number or a string, as the server sent it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum DiagnosticCode {
    /// A numeric code.
    Number(i64),
    /// A textual code (`E0308`, `reportAttributeAccessIssue`).
    Text(String),
}

impl From<lsp_types::NumberOrString> for DiagnosticCode {
    fn from(code: lsp_types::NumberOrString) -> DiagnosticCode {
        match code {
            lsp_types::NumberOrString::Number(number) => DiagnosticCode::Number(i64::from(number)),
            lsp_types::NumberOrString::String(text) => DiagnosticCode::Text(text),
        }
    }
}

/// One diagnostic of a file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiagnosticEntry {
    /// Workspace-relative file.
    pub path: String,
    /// 1-based line of its start.
    pub line: u32,
    /// `error`, `warning`, `info` or `hint`.
    pub severity: String,
    /// Its code, when given.
    pub code: Option<DiagnosticCode>,
    /// The message, newlines folded.
    pub message: String,
    /// Who produced it (`rustc`, `Pyright`, …), when given.
    pub source: Option<String>,
}

/// The project checkers' diagnostics (`diagnostics` with `file: "*"`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WorkspaceCheck {
    /// Always `diagnostics`.
    pub op: DiagnosticsOp,
    /// Always `*`.
    pub file: String,
    /// Errors found.
    pub errors: usize,
    /// Warnings found.
    pub warnings: usize,
    /// Diagnostics found (deduplicated).
    pub total: usize,
    /// Diagnostics in this page.
    pub shown: usize,
    /// The page window.
    pub page: PageWindow,
    /// The page comes from the previous run (no file changed since).
    pub reused_previous_run: bool,
    /// Every checker ran to its end without a problem.
    pub complete: bool,
    /// This page's diagnostics, errors first.
    pub results: Vec<CheckerDiagnostic>,
    /// The checker runs.
    pub runs: Vec<CheckerRunSummary>,
    /// The run's workspace trust.
    pub workspace_trust: WorkspaceTrust,
    /// Python roots inside another Python root, checked by the outer root's run.
    pub python_roots_covered_by_outer_run: Vec<String>,
    /// Folders with a Python marker but no Python files, not checked as Python projects.
    pub not_python_projects: Vec<String>,
    /// Project roots the call's `exclude` left out, e.g. `the Go module at tests/toml-test`.
    pub excluded_roots: Vec<String>,
    /// The feature arguments given to `cargo check` (`--features a,b`, `--all-features`,
    /// `--no-default-features`); empty: each package's default features.
    pub cargo_feature_arguments: Vec<String>,
    /// `package: feature, feature` for every workspace member with features the check did not
    /// enable: code behind them was NOT checked (empty when every feature was on, or no cargo
    /// root).
    pub features_not_checked: Vec<String>,
    /// Cargo targets of the workspace members that cargo never compiled in this check, as
    /// `path (kind `name`): why` (a library they depend on failed, `required-features` off, the
    /// check stopped): their diagnostics are unknown, not clean.
    pub targets_not_checked: Vec<String>,
    /// What changed since the previous `"*"` check of this run with the same checkers and
    /// features; `None` for the first one (or after a change of checkers or features).
    pub since_previous_check: Option<CheckDelta>,
}

/// The change between two `"*"` checks of a run (issue 11, trial154 M7: 957 errors before, 963
/// after, and the 6 new ones nowhere told apart). Compared per file, severity, code and message,
/// lines aside: a diagnostic that only moved is neither.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckDelta {
    /// Seconds since the previous check.
    pub seconds_ago: u64,
    /// Diagnostics in this check beyond the previous one's count of the same kind in the file.
    pub new_count: usize,
    /// Diagnostics of the previous check beyond this one's count of the same kind in the file.
    pub gone_count: usize,
    /// The new ones, at most [`crate::lsp::checker::DELTA_LISTED`].
    pub new: Vec<CheckerDiagnostic>,
    /// The gone ones (lines as they were), at most [`crate::lsp::checker::DELTA_LISTED`].
    pub gone: Vec<CheckerDiagnostic>,
    /// Either check was incomplete (a checker had a problem): the change covers only what both ran.
    pub incomplete: bool,
}

/// One checker diagnostic.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckerDiagnostic {
    /// Workspace-relative file.
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// `error`, `warning` or `information`.
    pub severity: String,
    /// The code, when given.
    pub code: Option<String>,
    /// The message.
    pub message: String,
    /// Who produced it.
    pub source: Option<String>,
    /// cargo: the targets whose builds reported it (`lib `indexmap``, `test `quick``), a lib or
    /// bin target twice when both its builds (plain and `lib test`) did — one error, listed once.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<String>,
}

/// One checker run.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckerRunSummary {
    /// The command line.
    pub command: String,
    /// Its root, workspace-relative.
    pub root: String,
    /// What went wrong (timeout, missing binary, refused by trust), when anything did.
    pub problem: Option<String>,
    /// A step was killed at its budget.
    pub timed_out: bool,
    /// Diagnostics it found (deduplicated).
    pub count: usize,
    /// Wall time (ms).
    pub elapsed_ms: u64,
    /// Python roots: the interpreter given to the checker and why.
    pub interpreter: Option<String>,
    /// Restricted runs: what restricted mode changed for it.
    pub restricted: Option<String>,
    /// Cargo runs: each workspace member's features against what the check enabled.
    pub features: Vec<PackageFeaturesSummary>,
    /// Cargo runs: why the features could not be read (`cargo metadata` failed).
    pub features_problem: Option<String>,
    /// Cargo runs: `compile_error!` errors (`path:line: message`), e.g. a crate refusing
    /// mutually exclusive features under `--all-features`.
    pub compile_errors: Vec<String>,
    /// Cargo runs: the `cargo:warning=` lines build scripts printed (`httparse@1.10.1: building
    /// for no_std disables httparse SIMD`), which often say why code was left out.
    pub build_script_warnings: Vec<String>,
    /// Cargo runs: module files no target of this check compiled because their `mod` item is
    /// under a `#[cfg]` off in it — another target, a cfg the build script did not set — as
    /// `path (its `mod` at place is under `#[cfg(…)]`)`; feature gates are in `features`.
    pub modules_not_compiled: Vec<String>,
    /// Cargo runs: `.rs` files of the workspace members left unread for `modules_not_compiled`
    /// (a cap of 3,000 per package; 0 normally).
    pub modules_files_not_read: usize,
    /// Cargo runs: items behind a `#[cfg]` off on this host for the target (`#[cfg(windows)]`
    /// on Linux): the files with counts and lines, the gates, and the `cargo check --target …`
    /// that compiles them (one sentence); null without such items.
    pub items_behind_other_target_cfgs: Option<String>,
    /// Cargo runs: the targets cargo never compiled, as `path (kind `name`): why`.
    pub targets_not_checked: Vec<String>,
    /// pyright runs whose configuration restricts what pyright checks: where it was read and
    /// its settings (`pyproject.toml [tool.pyright]: include = src/pkg`), or `could not be
    /// read: …` (then which files it leaves out is unknown).
    pub python_scope: Option<String>,
    /// pyright runs: how many Python files under the root its configured include/exclude leave
    /// out — NOT checked, their errors not counted (hidden folders, `node_modules`,
    /// `__pycache__`, virtual environments and `.gitignore`d files are not counted).
    pub python_files_not_checked_total: usize,
    /// pyright runs: those files, workspace-relative, sorted (at most 100).
    pub python_files_not_checked: Vec<String>,
    /// pyright runs: how many Python files its `ignore` silences (checked, nothing reported).
    pub python_files_ignored_total: usize,
    /// pyright runs: those files, workspace-relative, sorted (at most 100).
    pub python_files_ignored: Vec<String>,
    /// Go runs: the packages (`path (tests)` for test files only) go never compiled because a
    /// package they import failed to compile, as `import/path: N files (imports failed
    /// import/path)`.
    pub go_packages_not_compiled: Vec<String>,
    /// Go runs: whether `gopls check` type-checked those packages' files (its findings are in
    /// `results` with source `gopls check`, counted as errors); `false`: they are NOT checked.
    pub go_packages_checked_by_gopls: bool,
    /// Go runs: the Go files build constraints exclude for the toolchain, GOOS/GOARCH and tags in
    /// force (NOT compiled), as `path (terms): check with `command`` — or, for a file only an
    /// older Go toolchain builds (`!go1.10`), `path: no command here compiles it: …`.
    pub go_files_excluded_by_build_constraints: Vec<String>,
    /// Go runs: the `go vet` findings (counted as warnings) of the analyzers `go test` runs
    /// before the tests, rendered as `path:line: warning message (go vet)`: while one is there
    /// `go test` refuses to build that package's tests.
    pub go_test_vet_findings: Vec<String>,
}

/// One workspace member's cargo features in a `"*"` check.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PackageFeaturesSummary {
    /// The package name.
    pub package: String,
    /// Its `Cargo.toml`, workspace-relative.
    pub manifest: String,
    /// Features the check enabled (closure of `default` and the requested ones), sorted.
    pub enabled: Vec<String>,
    /// Features it did not enable: code gated on them was NOT checked.
    pub not_enabled: Vec<String>,
    /// Files with a `cfg`/`cfg_attr`/`cfg!` naming a feature in `not_enabled`, as
    /// `path:line (features)` with the 1-based line of the first gate (at most 10).
    pub gated_files: Vec<String>,
    /// How many such files there are.
    pub gated_files_total: usize,
    /// Files with `cfg(not(feature = …))` for an enabled feature (code left out; at most 10).
    pub negated_gates: Vec<String>,
}

/// What `reload` restarted or stopped, one line each.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReloadOutput {
    /// Always `reload`.
    pub op: ReloadOp,
    /// One line per server process.
    pub reloaded: Vec<String>,
}

/// A file a planned or applied workspace edit changes.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedFile {
    /// Workspace-relative file.
    pub file: String,
    /// Text edits in it.
    pub edits: usize,
    /// `modified`, `created`, `renamed from …`, `deleted`.
    pub operation: String,
}

/// The `structuredContent` of a successful `lsp_rename`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RenameOutput {
    /// `preview: true`: the rename is staged for `resolve`.
    Staged(RenameStaged),
    /// The rename was written.
    Applied(RenameApplied),
}

/// A written rename.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RenameApplied {
    /// The old name.
    pub renamed: String,
    /// The new name.
    pub new_name: String,
    /// Text edits in all files.
    pub edits: usize,
    /// The files changed.
    pub files: Vec<ChangedFile>,
    /// The `grep -w` cross-check of the server's edit.
    pub coverage: RenameCoverageSummary,
    /// TypeScript/JavaScript: where the new name was already taken in a file the rename
    /// changes — a declaration of it in the renamed symbol's scope (a duplicate declaration tsc
    /// rejects) or a use that now binds to another symbol (shadowing, silent) — each a
    /// `WARNING:` with file:line of both and the next step; empty when none was found (the
    /// text's `taken-name check:` line says what was checked).
    pub name_conflicts: Vec<String>,
    /// Public names of a Python package the rename changed (a re-export in an `__init__.py`),
    /// each a note naming the file, 1-based line, old and new public name and how to keep the
    /// old one; empty when none.
    pub public_name_changes: Vec<String>,
    /// Python: a `WARNING:` line for a member of an `Enum` that code looks up by name, one for
    /// renamed uses on a receiver typed as a union with a base
    /// class that keeps the old name (`AttributeError` at run time), then methods of the same
    /// name in base classes or subclasses that the rename left with the old name, so dispatch
    /// changed (a note each with file, 1-based line and the next step); empty when none.
    pub dispatch_changes: Vec<String>,
    /// Python: the override check's summary (classes searched, related methods found, what was
    /// not searched); absent when the renamed symbol is no method.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub override_check: Option<String>,
    /// Every line the text puts at its top, in its order: that the server was still starting or
    /// loading its project when it computed the rename (its edit may cover the open files only),
    /// the grep check's `WARNING:` lines
    /// (occurrences left in doc-test code, in strings that name the attribute for
    /// `mock.patch.object`/`getattr`, in test files pytest runs as doctests, methods tied by an
    /// interface), then [`RenameApplied::name_conflicts`], [`RenameApplied::public_name_changes`]
    /// and [`RenameApplied::dispatch_changes`]; empty when the rename warned of nothing.
    pub warnings: Vec<String>,
}

/// A staged rename.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RenameStaged {
    /// The staged change's id for `resolve`.
    pub edit_id: String,
    /// The old name.
    pub renamed: String,
    /// The new name.
    pub new_name: String,
    /// Text edits in all files.
    pub edits: usize,
    /// The files the change would change.
    pub files: Vec<ChangedFile>,
    /// The `grep -w` cross-check of the server's edit.
    pub coverage: RenameCoverageSummary,
    /// As [`RenameApplied::name_conflicts`], for the staged change.
    pub name_conflicts: Vec<String>,
    /// As [`RenameApplied::public_name_changes`], for the staged change.
    pub public_name_changes: Vec<String>,
    /// As [`RenameApplied::dispatch_changes`], for the staged change.
    pub dispatch_changes: Vec<String>,
    /// As [`RenameApplied::override_check`], for the staged change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub override_check: Option<String>,
    /// As [`RenameApplied::warnings`]: what the preview says at its top, before `resolve
    /// accept` (which repeats them).
    pub warnings: Vec<String>,
    /// Diff hunks shown in the text preview.
    pub preview_hunks_shown: usize,
    /// Diff hunks in the whole change.
    pub preview_hunks_total: usize,
    /// Older staged changes dropped to make room (ids).
    pub evicted: Vec<String>,
    /// Why a rename asked to be written (`preview` false) was staged instead: it leaves methods
    /// tied to the renamed one by an interface with the old name, so the build breaks where one
    /// is used as the interface and a type assertion on it stops matching (trial30 M8: goldmark's
    /// `BlockParser.Trigger`, 13 implementations left); it breaks a structural match with a
    /// `typing.Protocol`; it leaves Python overrides (or the overridden base method) in the
    /// workspace with the old name (trial150 M3); or a root's own server refused the rename
    /// (review44 RISK 6). Absent for a preview that was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub staged_because: Option<String>,
}

/// The `grep -w` cross-check of a rename (see `crate::lsp::rename_coverage`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RenameCoverageSummary {
    /// The check ran (boxed: it is far larger than the skipped variant).
    Checked(Box<CheckedRenameCoverage>),
    /// The check was skipped, with why.
    NotChecked(UncheckedRenameCoverage),
}

/// A skipped rename check.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UncheckedRenameCoverage {
    /// Always `false`.
    pub checked: bool,
    /// Why (`resource operations`: the edit creates, renames or deletes files).
    pub reason: String,
}

/// What the rename check found; occurrences are `path:line` (1-based).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckedRenameCoverage {
    /// Always `true`.
    pub checked: bool,
    /// How long the check took (ms).
    pub elapsed_ms: u64,
    /// Whole-word occurrences of the old name found.
    pub occurrences: usize,
    /// Files scanned.
    pub files_scanned: usize,
    /// The scan stopped at its cap.
    pub scan_capped: bool,
    /// What the scan walked when the project's configuration narrows it (tsconfig
    /// include/exclude), else null.
    pub scope: Option<String>,
    /// Occurrences the final edit renames.
    pub renamed: usize,
    /// Occurrences renamed by asking the server again from them (`path:line`).
    pub extra_renames_from: Vec<String>,
    /// Occurrences runbound added to the server's edit.
    pub added_by_runbound: Vec<String>,
    /// Occurrences left in comments and strings.
    pub left_in_comments_and_strings: Vec<String>,
    /// Occurrences left in doc-test code that could not be resolved (`path:line`).
    pub left_in_doc_tests: Vec<String>,
    /// Occurrences in doc-test code that the server resolved, in a copy of the example, to the
    /// renamed symbol, and runbound renamed (`path:line`; also in `added_by_runbound`).
    pub renamed_in_doc_tests: Vec<String>,
    /// Occurrences in doc-test code that the server resolved to another definition of the same
    /// name (rightly left).
    pub doc_tests_of_other_symbols: usize,
    /// Occurrences in Python doctests' expected output (`path:line`; also in
    /// `left_in_doc_tests`): the doctests compare it (an exception class in a traceback), no
    /// server edits it.
    pub left_in_doctest_expected_output: Vec<String>,
    /// Occurrences in Python doctests that cannot name the renamed symbol (a parameter's word
    /// outside a keyword of a call of its function, a member's word that is no attribute, a part
    /// of a traceback doctest does not compare): rightly left.
    pub doctest_other_names: usize,
    /// Occurrences in documentation files (no server edits them), not counting those in
    /// `left_in_pytest_doctest_files`.
    pub left_in_documentation_files: Vec<String>,
    /// Occurrences in test data (`path:line`): files in a `testdata`, `fixtures`, `golden`,
    /// `__snapshots__` … folder or with a `.golden`/`.snap`/`.expected` extension, other than
    /// source and documentation files — golden files a test compares output with, which no
    /// server edits (see [`crate::lsp::rename_coverage::grep_test_data`]).
    pub left_in_test_data: Vec<String>,
    /// Occurrences in scripts without a file extension whose shebang names an interpreter of the
    /// server's language (`tools/idna-data`): no server reads them; they fail at run time if they
    /// use the old name (`path:line`).
    pub left_in_scripts_without_extension: Vec<String>,
    /// Occurrences in documentation files that pytest collects as doctests (`--doctest-glob` in
    /// the pytest configuration, under its `testpaths`): tests that fail if they use the old name.
    pub left_in_pytest_doctest_files: Vec<String>,
    /// Python: strings that are exactly the old name passed as the attribute name of
    /// `mock.patch.object` / `getattr` / `setattr` / `hasattr` / `delattr` /
    /// `monkeypatch.setattr`: live references that fail at run time (not in
    /// `left_in_comments_and_strings`).
    pub left_in_attribute_name_strings: Vec<String>,
    /// Python: occurrences in an import's module path (`from .retry import …`, `import a.retry`):
    /// they name a module of the same name, not the renamed symbol, and are left (not in
    /// `left_unrenamed`) (`path:line`).
    pub left_in_import_module_paths: Vec<String>,
    /// Rust, a renamed field or function: occurrences that are a segment of a path leading on
    /// (`core::hash::Hash`; for a field, any path segment) — a module, type or trait, never the
    /// renamed symbol; left, and not in `left_unrenamed` nor `left_in_comments_and_strings`
    /// (`path:line`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_in_path_segments: Vec<String>,
    /// Go: the occurrences of `left_unrenamed` whose definition is a method tied to the renamed
    /// one by an interface (an implementation of the renamed interface method, or the interface
    /// method the renamed method implements): not another symbol — the build breaks where the
    /// interface is used.
    pub left_in_interface_tied_methods: Vec<String>,
    /// Code occurrences the edit leaves (another symbol of the same name, or missed).
    pub left_unrenamed: Vec<String>,
    /// Occurrences not checked (budget).
    pub not_checked: Vec<String>,
    /// When the renamed symbol is a local variable or parameter: the code occurrences outside
    /// its enclosing function, which cannot be references to it (counted, not asked or listed).
    pub outside_local_scope: usize,
    /// Files with the old name the edit does not change.
    pub files_not_changed: Vec<String>,
}

/// The `structuredContent` of a successful `lsp_code_action`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum CodeActionOutput {
    /// `preview: true`: the action's edit is staged for `resolve`.
    Staged(CodeActionStaged),
    /// `preview: true` on a command that sent no edit back: nothing staged.
    NothingStaged(CodeActionNothingStaged),
    /// The action was applied. Also the shape of the failed result (`isError`) of an action
    /// whose command sent no applied edit and changed no file: `written` is then empty.
    Applied(CodeActionApplied),
}

/// A staged code action.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CodeActionStaged {
    /// The staged change's id for `resolve`.
    pub edit_id: String,
    /// The action's number.
    pub action: usize,
    /// Text edits in all files.
    pub edits: usize,
    /// The files the change would change.
    pub files: Vec<ChangedFile>,
    /// What the preview warns of at its top (a command the action also runs that accepting
    /// does not run, files the server changed itself while computing the edit); `resolve
    /// accept` repeats them. Empty when none.
    pub warnings: Vec<String>,
    /// Diff hunks shown in the text preview.
    pub preview_hunks_shown: usize,
    /// Diff hunks in the whole change.
    pub preview_hunks_total: usize,
    /// Older staged changes dropped to make room (ids).
    pub evicted: Vec<String>,
}

/// A previewed command that sent no edit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CodeActionNothingStaged {
    /// Always null: nothing was staged.
    pub edit_id: Option<String>,
    /// The action's number.
    pub action: usize,
    /// The command run.
    pub command: String,
    /// Always 0.
    pub edits_received: usize,
}

/// An applied code action.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CodeActionApplied {
    /// The action's number.
    pub action: usize,
    /// `"<title>" (<kind>)` of the action.
    pub description: String,
    /// Text edits of the action's own edit.
    pub edits: usize,
    /// The files its own edit changed.
    pub files: Vec<ChangedFile>,
    /// The command it ran, when it has one.
    pub command: Option<CommandRunSummary>,
    /// Every file written (its edit, the command's edits, files the server changed itself).
    pub written: Vec<String>,
}

/// A command an applied code action ran.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CommandRunSummary {
    /// The command's name.
    pub command: String,
    /// `workspace/applyEdit` requests the server sent while it ran.
    pub edits_received: usize,
    /// Files the applied edits wrote.
    pub written: Vec<String>,
    /// Why edits were not applied.
    pub refused: Vec<String>,
    /// Files the server changed itself while it ran (`path (how)`).
    pub changed_by_server: Vec<String>,
}
