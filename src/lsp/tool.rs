//! The `lsp` tool (tier read): navigation, hover, symbols, code actions, diagnostics of a file,
//! status and reload, with answers written for an LLM.
//!
//! Every navigation answer starts with the resolved position (`path:line`, column, which
//! occurrence) and the line's text, then `path:line: source line` results with paths relative to
//! the workspace (others marked `(outside workspace)`). Caps are said ("showing 50 of N in M
//! files"); a server still indexing is said (with the running progress titles); an empty answer
//! on a substring that sits in a comment or string says so.

use std::collections::{BTreeMap, HashMap};
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
use crate::lsp::position::{looks_like_comment_or_string, resolve_symbol_on_line, split_lines, PositionEncoding, ResolvedSymbol};
use crate::lsp::supervisor::LspSupervisor;
use crate::lsp::uri::{path_to_uri, uri_to_path};
use crate::registry::{CallContext, Registry, ToolDescriptor, ToolOutput};
use crate::render::{cut_chars, display_path, plural, truncation_notice};
use crate::result::ToolResult;
use crate::tier::Tier;

/// The JSON Schema properties of line + symbol addressing, shared by `lsp` and `lsp_rename`:
/// `file`, `line` (1-based), `symbol` (a substring of the line), `occurrence` (1-based) and
/// `server` (force a server id).
pub(crate) fn position_address_properties() -> serde_json::Map<String, Value> {
    [
        ("file", json!({"type": "string", "description": "File path, relative to the workspace root (or absolute inside it)."})),
        ("line", json!({"type": "integer", "minimum": 1, "description": "1-based line number in `file`."})),
        ("symbol", json!({"type": "string", "minLength": 1, "description": "A substring of that line containing the identifier, e.g. `parse_config` or `self.items`; the cursor goes on its last identifier segment."})),
        ("occurrence", json!({"type": "integer", "minimum": 1, "description": "Which occurrence of `symbol` on the line (1-based) when it occurs several times."})),
        ("server", json!({"type": "string", "description": "Force a server id (e.g. `pylsp` instead of the default `pyright` for Python)."})),
    ]
    .into_iter()
    .map(|(name, schema)| (name.to_owned(), schema))
    .collect()
}

/// The `lsp` tool's descriptor.
pub fn descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "lsp".to_owned(),
        description: "Ask the project's language server (rust-analyzer, pyright, pylsp, typescript-language-server, gopls, clangd, dart). \
Address a position by `line` (1-based) plus `symbol`, a substring of that line containing the identifier — never a column. \
If the substring occurs several times on the line the error lists them; pass `occurrence` (1-based) or a longer substring. \
Ops: definition, type_definition, implementation, references (at most 50, grouped per file), hover, code_actions (file, line, symbol); \
symbols (`query` → workspace search, at most 100; or `file` → that file's outline, at most 200); diagnostics (file: errors and warnings of one file; `\"*\"` runs the project's own checker — cargo check, pyright, tsc, go vet + go build, dart analyze, clang-tidy/clangd — errors first, at most 100); \
status (which servers can serve this workspace and why not; running processes); reload (restart the server for `file`'s root, or all). \
A server that is still indexing answers with what it has and the answer says so; a crashed server restarts on the next call and the answer says so."
            .to_owned(),
        tier: Tier::Read,
        input_schema: {
            let mut properties = position_address_properties();
            properties.insert(
                "op".to_owned(),
                json!({"type": "string", "enum": ["definition", "type_definition", "implementation", "references", "hover", "symbols", "code_actions", "diagnostics", "status", "reload"], "description": "The operation."}),
            );
            properties.insert("query".to_owned(), json!({"type": "string", "minLength": 1, "description": "symbols: workspace symbol search text."}));
            json!({"type": "object", "properties": properties, "required": ["op"], "additionalProperties": false})
        },
        parallel_safe: true,
        default_timeout: Duration::from_secs(60),
    }
}

/// Registers `lsp` (called by `RunBuilder::build` when the run has an LSP supervisor, R-LSP-1).
pub(crate) fn register_tools(registry: &mut Registry) {
    registry.register(descriptor(), Arc::new(call));
    crate::lsp::rename::register_tools(registry);
    let layer = Arc::new(crate::lsp::diagnostics_on_write::DiagnosticsOnWriteLayer);
    registry.add_pre_call_layer(layer.clone());
    registry.add_post_write_layer(layer);
}

#[derive(Debug, Deserialize)]
struct LspArguments {
    op: String,
    file: Option<String>,
    line: Option<u32>,
    symbol: Option<String>,
    occurrence: Option<usize>,
    query: Option<String>,
    server: Option<String>,
}

/// Time kept back from the call's deadline for formatting the answer.
const ANSWER_MARGIN: Duration = Duration::from_millis(250);

fn call(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let args: LspArguments = ctx.parse_arguments(arguments)?;
    let supervisor = ctx.resource::<LspSupervisor>()?;
    match args.op.as_str() {
        "status" => {
            let status = supervisor.status();
            Ok(ToolOutput::new(ToolResult::text(status.to_text()).with_structured(status.to_json())))
        }
        "reload" => {
            let file = args.file.as_deref().map(|file| resolve_file(supervisor.workspace_root(), file)).transpose()?;
            let lines = supervisor.reload(file.as_deref(), ctx.deadline())?;
            Ok(ToolOutput::new(ToolResult::text(lines.join("\n")).with_structured(json!({"reloaded": lines}))))
        }
        "diagnostics" => diagnostics(ctx, supervisor, &args),
        "symbols" => symbols(ctx, supervisor, &args),
        "definition" | "type_definition" | "implementation" | "references" | "hover" | "code_actions" => navigate(ctx, supervisor, &args),
        other => Err(ToolError::invalid(format!("unknown lsp op {other:?}"))
            .with_hint("use one of: definition, type_definition, implementation, references, hover, symbols, code_actions, diagnostics, status, reload")),
    }
}

/// Resolves `file` inside the workspace with the crate's one confinement rule
/// ([`crate::files::resolve_in_workspace`]); it must exist and be a file.
fn resolve_file(workspace_root: &Path, file: &str) -> Result<PathBuf, ToolError> {
    let path = crate::files::resolve_in_workspace(workspace_root, file)?;
    if !path.exists() {
        return Err(ToolError::new(ErrorKind::NotFound, format!("file {file} does not exist in the workspace"))
            .with_hint("pass a path relative to the workspace root of an existing file"));
    }
    if !path.is_file() {
        return Err(ToolError::invalid(format!("{file} is not a file")).with_hint("pass a source file, not a directory"));
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
struct Query<'a> {
    supervisor: &'a LspSupervisor,
    server: &'a LanguageServer,
    path: PathBuf,
    resolved: ResolvedSymbol,
    encoding: PositionEncoding,
    notes: Vec<String>,
}

impl Query<'_> {
    fn header(&self, what: &str) -> String {
        let resolved = &self.resolved;
        let occurrence = if resolved.occurrence_count > 1 {
            format!(", occurrence {} of {}", resolved.occurrence, resolved.occurrence_count)
        } else {
            String::new()
        };
        format!(
            "{} {what} for `{}` at {}:{} (column {}{occurrence}):\n{:>6} | {}",
            self.server.id(),
            resolved.cursor_identifier,
            self.supervisor.display_path(&self.path),
            resolved.line,
            resolved.display_column(),
            resolved.line,
            resolved.line_text.trim_end()
        )
    }

    fn position_json(&self) -> Value {
        let (line0, character) = self.resolved.lsp_position(self.encoding);
        json!({
            "file": self.supervisor.display_path(&self.path),
            "line": self.resolved.line,
            "column": self.resolved.display_column(),
            "identifier": self.resolved.cursor_identifier,
            "line_text": self.resolved.line_text,
            "occurrence": self.resolved.occurrence,
            "occurrence_count": self.resolved.occurrence_count,
            "lsp_position": {"line": line0, "character": character, "encoding": self.encoding.lsp_name()},
        })
    }

    fn empty_answer(&self, what: &str, raw: &str) -> String {
        let mut text = format!("no {what} found: {} returned {raw}", self.server.id());
        if looks_like_comment_or_string(&self.resolved.line_text, self.resolved.cursor_byte) {
            text.push_str(&format!(
                "; `{}` at column {} is probably inside a comment or string — address an identifier in code",
                self.resolved.cursor_identifier,
                self.resolved.display_column()
            ));
        }
        text
    }
}

fn navigate(ctx: &CallContext<'_>, supervisor: &LspSupervisor, args: &LspArguments) -> Result<ToolOutput, ToolError> {
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
    let text = std::fs::read_to_string(&path).map_err(|err| ToolError::io("read", &path, &err))?;
    let resolved = resolve_symbol_on_line(&text, line, symbol, args.occurrence)
        .map_err(|err| ToolError::invalid(format!("{}: {err}", supervisor.display_path(&path))))?;
    let request_deadline = ctx.deadline().checked_sub(ANSWER_MARGIN).unwrap_or_else(Instant::now);
    let mut notes: Vec<String> = Vec::new();
    // A server found dead while answering is restarted and asked once more (the crash may land
    // between our liveness check and the request).
    let mut attempt = 0;
    let (lease, readiness, answer) = loop {
        let lease = supervisor.server_for_file(&path, args.server.as_deref(), ctx.deadline())?;
        notes.extend(lease.notes.iter().cloned());
        let server = &*lease.server;
        server.resync_from_disk();
        server.sync_document(&path)?;
        if !server.supports(spec.method) {
            return Err(ToolError::new(
                ErrorKind::Unavailable,
                format!("{op} is unsupported by {} (it does not offer {})", server.id(), spec.method),
            )
            .with_hint("try another op (e.g. definition or references), or another server with `server`"));
        }
        let readiness = server.wait_until_ready((Instant::now() + supervisor.config().indexing_wait).min(request_deadline));
        let encoding = server.position_encoding();
        let (line0, character) = resolved.lsp_position(encoding);
        let text_document = json!({"uri": path_to_uri(&path)});
        let position = json!({"line": line0, "character": character});
        let params = match op {
            "references" => json!({"textDocument": text_document, "position": position, "context": {"includeDeclaration": true}}),
            "code_actions" => {
                let end = resolved.cursor_byte + resolved.cursor_identifier.len();
                let end_character = encoding.column_from_byte(&resolved.line_text, end);
                let diagnostics = diagnostics_on_line(server, &path, line0, request_deadline);
                json!({
                    "textDocument": text_document,
                    "range": {"start": position, "end": {"line": line0, "character": end_character}},
                    "context": {"diagnostics": diagnostics, "triggerKind": 1},
                })
            }
            _ => json!({"textDocument": text_document, "position": position}),
        };
        match server.request(spec.method, params, request_deadline, true) {
            Ok(answer) => break (lease, readiness, answer),
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
    let mut query = Query { supervisor, server, path, resolved, encoding, notes };
    if let Some(note) = readiness_note(server, &readiness) {
        query.notes.push(note);
    }
    let (body, results) = match op {
        "references" => render_references(&query, &answer)?,
        "hover" => render_hover(&query, &answer)?,
        "code_actions" => render_code_actions(&query, &answer)?,
        _ => render_locations(&query, spec.what, &answer)?,
    };
    if !results.is_empty() && looks_like_comment_or_string(&query.resolved.line_text, query.resolved.cursor_byte) {
        query.notes.push(format!(
            "note: `{}` at column {} looks like it is inside a comment or string; {} answered anyway (probably by name) — check that this is the symbol you meant",
            query.resolved.cursor_identifier,
            query.resolved.display_column(),
            server.id()
        ));
    }
    let mut text = query.header(spec.what);
    text.push('\n');
    text.push_str(&body);
    for note in &query.notes {
        text.push('\n');
        text.push_str(note);
    }
    let structured = json!({
        "op": op,
        "server": server.id(),
        "root": supervisor.display_path(server.root()),
        "position": query.position_json(),
        "results": results,
        "still_indexing": !matches!(readiness.readiness, crate::lsp::Readiness::Ready),
        "notes": query.notes,
    });
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(structured)))
}

fn readiness_note(server: &LanguageServer, before: &ReadinessReport) -> Option<String> {
    // Not ready when asked (after waiting the budget), or indexing again by the time the answer
    // came: either way the answer may be partial, and the model is told so.
    if let Some(note) = before.note(server.id()) {
        return Some(note);
    }
    // The server ends the request's own work-done progress (pyright: "Finding references") just
    // before answering, but the pump thread may apply that `end` after the answer reached us:
    // give it a moment (returns as soon as the server is ready again).
    let after = server.wait_until_ready(Instant::now() + OWN_PROGRESS_END_GRACE);
    ReadinessReport { readiness: after.readiness, waited: before.waited }.note(server.id())
}

/// How long the readiness check after an answer waits for progress that ended before the answer
/// to be applied by the message thread (only spent when the server looks busy).
const OWN_PROGRESS_END_GRACE: Duration = Duration::from_millis(250);

fn request_error(query: &Query<'_>, method: &str, failure: &RequestFailure, readiness: &ReadinessReport) -> ToolError {
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
            if let Some(note) = readiness.note(server_id) {
                tool_error.message.push_str(&format!(" ({})", note.trim_start_matches("note: ")));
            }
            tool_error.with_hint("retry in a few seconds; if it persists, `lsp` op reload restarts the server")
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

/// A location resolved to a path and a line text.
struct Place {
    display: String,
    path: Option<PathBuf>,
    line: u32,
    text: String,
    outside: bool,
}

struct SourceCache {
    workspace_root: PathBuf,
    files: HashMap<PathBuf, Option<String>>,
}

impl SourceCache {
    fn new(workspace_root: &Path) -> SourceCache {
        SourceCache { workspace_root: workspace_root.to_path_buf(), files: HashMap::new() }
    }

    /// Resolves an LSP `uri` + 0-based `line` into a [`Place`].
    fn place(&mut self, uri: &str, line0: u32) -> Place {
        let Some(path) = uri_to_path(uri) else {
            return Place { display: uri.to_owned(), path: None, line: line0 + 1, text: String::new(), outside: true };
        };
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let text = self
            .files
            .entry(path.clone())
            .or_insert_with(|| std::fs::read_to_string(&path).ok())
            .as_deref()
            .and_then(|text| split_lines(text).get(line0 as usize).map(|line| cut_chars(line.trim(), 200)))
            .unwrap_or_default();
        let outside = !path.starts_with(&self.workspace_root);
        Place { display: display_path(&self.workspace_root, &path), path: Some(path), line: line0 + 1, text, outside }
    }
}

/// `(uri, start line)` of each location in a definition-like answer: `Location`, `Location[]`,
/// `LocationLink[]` (target selection range), or null.
fn locations(answer: &Value, server_id: &str, method: &str) -> Result<Vec<(String, u32)>, ToolError> {
    if answer.is_null() {
        return Ok(Vec::new());
    }
    let response: lsp_types::GotoDefinitionResponse =
        serde_json::from_value(answer.clone()).map_err(|err| unparseable(server_id, method, &err, answer))?;
    Ok(match response {
        lsp_types::GotoDefinitionResponse::Scalar(location) => vec![(location.uri.as_str().to_owned(), location.range.start.line)],
        lsp_types::GotoDefinitionResponse::Array(list) => {
            list.into_iter().map(|l| (l.uri.as_str().to_owned(), l.range.start.line)).collect()
        }
        lsp_types::GotoDefinitionResponse::Link(links) => {
            links.into_iter().map(|l| (l.target_uri.as_str().to_owned(), l.target_selection_range.start.line)).collect()
        }
    })
}

fn unparseable(server_id: &str, method: &str, err: &serde_json::Error, answer: &Value) -> ToolError {
    let raw = cut_chars(&answer.to_string(), 300);
    ToolError::failed(format!("{server_id}'s answer to {method} could not be read: {err}; answer began: {raw}"))
}

fn render_locations(query: &Query<'_>, what: &str, answer: &Value) -> Result<(String, Vec<Value>), ToolError> {
    let mut found = locations(answer, query.server.id(), what)?;
    found.dedup();
    if found.is_empty() {
        let raw = if answer.is_null() { "null" } else { "an empty list" };
        return Ok((query.empty_answer(what, raw), Vec::new()));
    }
    let mut cache = SourceCache::new(query.supervisor.workspace_root());
    let total = found.len();
    let cap = query.supervisor.config().locations_cap;
    let mut out = format!("{total} location{}:\n", if total == 1 { "" } else { "s" });
    let mut results = Vec::new();
    for (uri, line0) in found.iter().take(cap) {
        let place = cache.place(uri, *line0);
        out.push_str(&format!("{}:{}: {}\n", place.display, place.line, place.text));
        results.push(place_json(&place));
    }
    if let Some(notice) = truncation_notice(total.min(cap), total, "locations") {
        out.push_str(&notice);
        out.push('\n');
    }
    Ok((out.trim_end().to_owned(), results))
}

fn place_json(place: &Place) -> Value {
    json!({
        "path": place.display.trim_end_matches(crate::render::OUTSIDE_WORKSPACE),
        "line": place.line,
        "text": place.text,
        "outside_workspace": place.outside,
    })
}

fn render_references(query: &Query<'_>, answer: &Value) -> Result<(String, Vec<Value>), ToolError> {
    let found = locations(answer, query.server.id(), "textDocument/references")?;
    if found.is_empty() {
        let raw = if answer.is_null() { "null" } else { "an empty list" };
        return Ok((query.empty_answer("references", raw), Vec::new()));
    }
    let mut cache = SourceCache::new(query.supervisor.workspace_root());
    let mut places: Vec<Place> = found.iter().map(|(uri, line0)| cache.place(uri, *line0)).collect();
    // The queried file first, then by path; within a file by line.
    let queried = query.supervisor.display_path(&query.path);
    places.sort_by(|a, b| (a.display != queried, &a.display, a.line).cmp(&(b.display != queried, &b.display, b.line)));
    let total = places.len();
    let mut per_file: BTreeMap<(bool, String), usize> = BTreeMap::new();
    for place in &places {
        *per_file.entry((place.display != queried, place.display.clone())).or_default() += 1;
    }
    let n_files = per_file.len();
    let cap = query.supervisor.config().references_cap;
    let mut out = format!("{} in {}:\n", plural(total, "reference"), plural(n_files, "file"));
    let mut results = Vec::new();
    let mut current: Option<&str> = None;
    for place in places.iter().take(cap) {
        if current != Some(place.display.as_str()) {
            let count = per_file.get(&(place.display != queried, place.display.clone())).copied().unwrap_or(0);
            out.push_str(&format!("{} ({count}):\n", place.display));
            current = Some(place.display.as_str());
        }
        let marker = if place.path.as_deref() == Some(query.path.as_path()) && place.line == query.resolved.line {
            "   ← queried position"
        } else {
            ""
        };
        out.push_str(&format!("  {}: {}{marker}\n", place.line, place.text));
        results.push(place_json(place));
    }
    if total > cap {
        out.push_str(&format!("showing {cap} of {total} references in {n_files} files\n"));
    }
    Ok((out.trim_end().to_owned(), results))
}

fn render_hover(query: &Query<'_>, answer: &Value) -> Result<(String, Vec<Value>), ToolError> {
    if answer.is_null() {
        return Ok((query.empty_answer("hover information", "null"), Vec::new()));
    }
    let hover: lsp_types::Hover =
        serde_json::from_value(answer.clone()).map_err(|err| unparseable(query.server.id(), "textDocument/hover", &err, answer))?;
    let marked = |marked: lsp_types::MarkedString| match marked {
        lsp_types::MarkedString::String(text) => text,
        lsp_types::MarkedString::LanguageString(code) => format!("```{}\n{}\n```", code.language, code.value),
    };
    let text = match hover.contents {
        lsp_types::HoverContents::Scalar(item) => marked(item),
        lsp_types::HoverContents::Array(items) => items.into_iter().map(marked).collect::<Vec<_>>().join("\n\n"),
        lsp_types::HoverContents::Markup(markup) => markup.value,
    };
    let text = text.trim().to_owned();
    if text.is_empty() {
        return Ok((query.empty_answer("hover information", "an empty hover"), Vec::new()));
    }
    let cap = query.supervisor.config().hover_chars_cap;
    let shown = cut_chars(&text, cap);
    Ok((shown, vec![json!({"hover": text})]))
}

fn render_code_actions(query: &Query<'_>, answer: &Value) -> Result<(String, Vec<Value>), ToolError> {
    if answer.is_null() || answer.as_array().is_some_and(Vec::is_empty) {
        return Ok((format!("no code actions offered by {} at this position", query.server.id()), Vec::new()));
    }
    let actions: lsp_types::CodeActionResponse =
        serde_json::from_value(answer.clone()).map_err(|err| unparseable(query.server.id(), "textDocument/codeAction", &err, answer))?;
    let mut out = format!("{} (listing only; applying one is not supported here):\n", plural(actions.len(), "code action"));
    let mut results = Vec::new();
    for (idx, action) in actions.iter().enumerate() {
        match action {
            lsp_types::CodeActionOrCommand::Command(command) => {
                out.push_str(&format!("{}. {} [command {}]\n", idx + 1, command.title, command.command));
                results.push(json!({"title": command.title, "kind": "command"}));
            }
            lsp_types::CodeActionOrCommand::CodeAction(action) => {
                let kind = action.kind.as_ref().map(|kind| kind.as_str().to_owned()).unwrap_or_else(|| "unspecified".to_owned());
                let mut line = format!("{}. {} [{kind}]", idx + 1, action.title);
                if action.is_preferred == Some(true) {
                    line.push_str(" (preferred)");
                }
                if let Some(disabled) = &action.disabled {
                    line.push_str(&format!(" (disabled: {})", disabled.reason));
                }
                out.push_str(&line);
                out.push('\n');
                results.push(json!({"title": action.title, "kind": kind, "preferred": action.is_preferred == Some(true)}));
            }
        }
    }
    Ok((out.trim_end().to_owned(), results))
}

/// Published (and, where supported, pulled) diagnostics overlapping 0-based `line0`, as raw LSP
/// objects for a code-action context.
fn diagnostics_on_line(server: &LanguageServer, path: &Path, line0: u32, deadline: Instant) -> Vec<Value> {
    let mut all: Vec<Value> = server.published_diagnostics(path).map(|set| set.diagnostics).unwrap_or_default();
    let pull_deadline = (Instant::now() + Duration::from_secs(3)).min(deadline);
    if let Ok(Some(pulled)) = server.pull_diagnostics(path, pull_deadline) {
        all.extend(pulled);
    }
    all.retain(|diagnostic| {
        let start = diagnostic.pointer("/range/start/line").and_then(Value::as_u64).unwrap_or(u64::MAX);
        let end = diagnostic.pointer("/range/end/line").and_then(Value::as_u64).unwrap_or(start);
        (start..=end).contains(&u64::from(line0))
    });
    all
}

fn symbols(ctx: &CallContext<'_>, supervisor: &LspSupervisor, args: &LspArguments) -> Result<ToolOutput, ToolError> {
    let deadline = ctx.deadline().checked_sub(ANSWER_MARGIN).unwrap_or_else(Instant::now);
    match (&args.query, &args.file) {
        (Some(query), file) => workspace_symbols(supervisor, query, file.as_deref(), args.server.as_deref(), deadline),
        (None, Some(file)) => document_symbols(supervisor, file, args.server.as_deref(), deadline),
        (None, None) => Err(ToolError::invalid("symbols needs `query` (workspace search) or `file` (that file's outline)")
            .with_hint("e.g. {\"op\": \"symbols\", \"query\": \"Config\"} or {\"op\": \"symbols\", \"file\": \"src/lib.rs\"}")),
    }
}

fn workspace_symbols(
    supervisor: &LspSupervisor,
    query: &str,
    file: Option<&str>,
    server_id: Option<&str>,
    deadline: Instant,
) -> Result<ToolOutput, ToolError> {
    let mut notes = Vec::new();
    let servers: Vec<Arc<LanguageServer>> = match file {
        Some(file) => {
            let path = resolve_file(supervisor.workspace_root(), file)?;
            let lease = supervisor.server_for_file(&path, server_id, deadline)?;
            notes.extend(lease.notes);
            lease.server.sync_document(&path)?;
            vec![lease.server]
        }
        None => {
            let running: Vec<Arc<LanguageServer>> =
                supervisor.running_servers().into_iter().filter(|server| server_id.is_none_or(|id| server.id() == id)).collect();
            if running.is_empty() {
                return Err(ToolError::new(ErrorKind::Unavailable, format!("no language server is running to search for {query:?}"))
                    .with_hint(
                        "pass `file` (any source file of the project) with `query`, so runbound knows which server to start and ask",
                    ));
            }
            running
        }
    };
    let cap = supervisor.config().workspace_symbols_cap;
    let mut lines: Vec<(String, Value)> = Vec::new();
    let mut asked = Vec::new();
    for server in &servers {
        server.resync_from_disk();
        if !server.supports(WorkspaceSymbolRequest::METHOD) {
            notes.push(format!("note: workspace symbols are unsupported by {}", server.id()));
            continue;
        }
        let readiness = server.wait_until_ready((Instant::now() + supervisor.config().indexing_wait).min(deadline));
        let answer = server
            .request(WorkspaceSymbolRequest::METHOD, json!({"query": query}), deadline, true)
            .map_err(|failure| failure.to_tool_error(server.id(), WorkspaceSymbolRequest::METHOD))?;
        if let Some(note) = readiness_note(server, &readiness) {
            notes.push(note);
        }
        asked.push(format!("{} @ {}", server.id(), supervisor.display_path(server.root())));
        if answer.is_null() {
            continue;
        }
        let response: lsp_types::WorkspaceSymbolResponse = serde_json::from_value(answer.clone())
            .map_err(|err| unparseable(server.id(), WorkspaceSymbolRequest::METHOD, &err, &answer))?;
        let mut cache = SourceCache::new(supervisor.workspace_root());
        match response {
            lsp_types::WorkspaceSymbolResponse::Flat(list) => {
                for symbol in list {
                    let place = cache.place(symbol.location.uri.as_str(), symbol.location.range.start.line);
                    lines.push(symbol_line(&symbol.name, symbol_kind_name(&symbol.kind), symbol.container_name.as_deref(), &place));
                }
            }
            lsp_types::WorkspaceSymbolResponse::Nested(list) => {
                for symbol in list {
                    let (uri, line0) = match &symbol.location {
                        lsp_types::OneOf::Left(location) => (location.uri.as_str().to_owned(), location.range.start.line),
                        lsp_types::OneOf::Right(location) => (location.uri.as_str().to_owned(), 0),
                    };
                    let place = cache.place(&uri, line0);
                    lines.push(symbol_line(&symbol.name, symbol_kind_name(&symbol.kind), symbol.container_name.as_deref(), &place));
                }
            }
        }
    }
    let total = lines.len();
    let mut text = format!("workspace symbols matching {query:?} ({}): {total} found\n", asked.join(", "));
    if total == 0 {
        text = format!("no workspace symbols match {query:?} ({} answered with none)\n", asked.join(", "));
    }
    for (line, _) in lines.iter().take(cap) {
        text.push_str(line);
        text.push('\n');
    }
    if let Some(notice) = truncation_notice(total.min(cap), total, "symbols") {
        text.push_str(&notice);
        text.push('\n');
    }
    for note in &notes {
        text.push_str(note);
        text.push('\n');
    }
    let results: Vec<Value> = lines.into_iter().take(cap).map(|(_, value)| value).collect();
    Ok(ToolOutput::new(
        ToolResult::text(text.trim_end())
            .with_structured(json!({"op": "symbols", "query": query, "total": total, "results": results, "notes": notes})),
    ))
}

fn symbol_line(name: &str, kind: &str, container: Option<&str>, place: &Place) -> (String, Value) {
    let container_text = container.filter(|c| !c.is_empty()).map(|c| format!(" in {c}")).unwrap_or_default();
    let line = format!("{kind} {name}{container_text} — {}:{}: {}", place.display, place.line, place.text);
    let value = json!({"name": name, "kind": kind, "container": container, "path": place.display, "line": place.line, "outside_workspace": place.outside});
    (line, value)
}

fn document_symbols(supervisor: &LspSupervisor, file: &str, server_id: Option<&str>, deadline: Instant) -> Result<ToolOutput, ToolError> {
    let path = resolve_file(supervisor.workspace_root(), file)?;
    let lease = supervisor.server_for_file(&path, server_id, deadline)?;
    let server = &*lease.server;
    let mut notes = lease.notes.clone();
    server.resync_from_disk();
    server.sync_document(&path)?;
    if !server.supports(DocumentSymbolRequest::METHOD) {
        return Err(ToolError::new(ErrorKind::Unavailable, format!("document symbols are unsupported by {}", server.id())));
    }
    let readiness = server.wait_until_ready((Instant::now() + supervisor.config().indexing_wait).min(deadline));
    let answer = server
        .request(DocumentSymbolRequest::METHOD, json!({"textDocument": {"uri": path_to_uri(&path)}}), deadline, true)
        .map_err(|failure| failure.to_tool_error(server.id(), DocumentSymbolRequest::METHOD))?;
    if let Some(note) = readiness_note(server, &readiness) {
        notes.push(note);
    }
    let relative = supervisor.display_path(&path);
    let mut entries: Vec<(String, Value)> = Vec::new();
    if !answer.is_null() {
        let response: lsp_types::DocumentSymbolResponse =
            serde_json::from_value(answer.clone()).map_err(|err| unparseable(server.id(), DocumentSymbolRequest::METHOD, &err, &answer))?;
        match response {
            lsp_types::DocumentSymbolResponse::Flat(list) => {
                for symbol in list {
                    let container =
                        symbol.container_name.as_deref().filter(|c| !c.is_empty()).map(|c| format!(" in {c}")).unwrap_or_default();
                    let line = symbol.location.range.start.line + 1;
                    let kind = symbol_kind_name(&symbol.kind);
                    entries.push((
                        format!("{line}: {kind} {}{container}", symbol.name),
                        json!({"name": symbol.name, "kind": kind, "line": line, "container": symbol.container_name}),
                    ));
                }
            }
            lsp_types::DocumentSymbolResponse::Nested(list) => {
                fn walk(symbols: &[lsp_types::DocumentSymbol], depth: usize, container: Option<&str>, entries: &mut Vec<(String, Value)>) {
                    for symbol in symbols {
                        let line = symbol.selection_range.start.line + 1;
                        let kind = symbol_kind_name(&symbol.kind);
                        let detail = symbol
                            .detail
                            .as_deref()
                            .filter(|d| !d.is_empty())
                            .map(|d| format!(" — {}", cut_chars(d, 120)))
                            .unwrap_or_default();
                        entries.push((
                            format!("{}{line}: {kind} {}{detail}", "  ".repeat(depth), symbol.name),
                            json!({"name": symbol.name, "kind": kind, "line": line, "container": container, "detail": symbol.detail}),
                        ));
                        if let Some(children) = &symbol.children {
                            walk(children, depth + 1, Some(&symbol.name), entries);
                        }
                    }
                }
                walk(&list, 0, None, &mut entries);
            }
        }
    }
    let total = entries.len();
    let cap = supervisor.config().document_symbols_cap;
    let mut text = if total == 0 {
        format!("{} found no symbols in {relative}", server.id())
    } else {
        format!("{} symbols of {relative} ({total}):", server.id())
    };
    for (line, _) in entries.iter().take(cap) {
        text.push('\n');
        text.push_str(line);
    }
    if let Some(notice) = truncation_notice(total.min(cap), total, "symbols") {
        text.push('\n');
        text.push_str(&notice);
    }
    for note in &notes {
        text.push('\n');
        text.push_str(note);
    }
    let results: Vec<Value> = entries.into_iter().take(cap).map(|(_, value)| value).collect();
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(
        json!({"op": "symbols", "file": relative, "server": server.id(), "total": total, "results": results, "notes": notes}),
    )))
}

fn diagnostics(ctx: &CallContext<'_>, supervisor: &LspSupervisor, args: &LspArguments) -> Result<ToolOutput, ToolError> {
    let Some(file) = args.file.as_deref() else {
        return Err(ToolError::invalid("diagnostics needs `file`")
            .with_hint("pass the file to check, e.g. {\"op\": \"diagnostics\", \"file\": \"src/app.py\"}"));
    };
    if file == "*" {
        let deadline = ctx.deadline().checked_sub(ANSWER_MARGIN).unwrap_or_else(Instant::now);
        return crate::lsp::checker::project_diagnostics(supervisor, deadline);
    }
    let deadline = ctx.deadline().checked_sub(ANSWER_MARGIN).unwrap_or_else(Instant::now);
    let path = resolve_file(supervisor.workspace_root(), file)?;
    let lease = supervisor.server_for_file(&path, args.server.as_deref(), deadline)?;
    let server = &*lease.server;
    let mut notes = lease.notes.clone();
    server.resync_from_disk();
    let sync = server.sync_document(&path)?;
    let budget_end = (Instant::now() + supervisor.config().diagnostics_wait.max(supervisor.config().indexing_wait)).min(deadline);
    let readiness = server.wait_until_ready(budget_end);
    let publish_wait_end = (Instant::now() + supervisor.config().diagnostics_wait).min(deadline);
    let pulled = match server.pull_diagnostics(&path, publish_wait_end) {
        Ok(pulled) => pulled,
        Err(failure) => {
            notes.push(format!("note: pull diagnostics failed: {}", failure.to_tool_error(server.id(), "textDocument/diagnostic").message));
            None
        }
    };
    // A push that arrived after this document was last synced is fresh; otherwise wait for one.
    let existing = server.published_diagnostics(&path);
    let fresh_existing = existing.filter(|set| !sync.opened && !sync.changed && set.generation > 0);
    let pushed = match fresh_existing {
        Some(set) => Some(set),
        None => {
            let settle = server.definition().diagnostics_settle;
            let wait_end = if pulled.is_some() { (Instant::now() + settle * 2).min(deadline) } else { publish_wait_end };
            server.wait_for_published_diagnostics(&path, sync.generation_before, settle, wait_end)
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
    let mut all: Vec<Value> = pulled.unwrap_or_default();
    if let Some(set) = &pushed {
        all.extend(set.diagnostics.iter().cloned());
    }
    let mut seen = std::collections::HashSet::new();
    all.retain(|d| {
        let key = (
            d.pointer("/range/start/line").and_then(Value::as_u64),
            d.get("code").map(Value::to_string),
            d.get("message").and_then(Value::as_str).map(str::to_owned),
        );
        seen.insert(key)
    });
    let severity = |d: &Value| d.get("severity").and_then(Value::as_u64).unwrap_or(1);
    let n_hints = all.iter().filter(|d| severity(d) == 4).count();
    all.retain(|d| severity(d) != 4);
    all.sort_by_key(|d| (severity(d), d.pointer("/range/start/line").and_then(Value::as_u64).unwrap_or(0)));
    let n_errors = all.iter().filter(|d| severity(d) == 1).count();
    let n_warnings = all.iter().filter(|d| severity(d) == 2).count();
    let file_text = std::fs::read_to_string(&path).unwrap_or_default();
    let lines = split_lines(&file_text);
    let mut text = if all.is_empty() {
        format!("{} reports no errors or warnings in {relative} (version {}, checked after sync)", server.id(), sync.version)
    } else {
        format!(
            "{} diagnostics for {relative}: {}, {}, {} other",
            server.id(),
            plural(n_errors, "error"),
            plural(n_warnings, "warning"),
            all.len() - n_errors - n_warnings
        )
    };
    let cap = supervisor.config().diagnostics_cap;
    let mut results = Vec::new();
    for diagnostic in all.iter().take(cap) {
        let line = diagnostic.pointer("/range/start/line").and_then(Value::as_u64).unwrap_or(0) as u32 + 1;
        let severity_name = match severity(diagnostic) {
            1 => "error",
            2 => "warning",
            3 => "info",
            _ => "hint",
        };
        let code = match diagnostic.get("code") {
            Some(Value::String(code)) => format!(" [{code}]"),
            Some(Value::Number(code)) => format!(" [{code}]"),
            _ => String::new(),
        };
        let message = diagnostic.get("message").and_then(Value::as_str).unwrap_or("").replace('\n', " ");
        let source = diagnostic.get("source").and_then(Value::as_str).map(|s| format!(" ({s})")).unwrap_or_default();
        text.push_str(&format!("\n{relative}:{line}: {severity_name}{code} {message}{source}"));
        if let Some(source_line) = lines.get(line as usize - 1) {
            text.push_str(&format!("\n{line:>6} | {}", cut_chars(source_line.trim_end(), 200)));
        }
        results.push(json!({"path": relative, "line": line, "severity": severity_name, "code": diagnostic.get("code"), "message": message, "source": diagnostic.get("source")}));
    }
    if let Some(notice) = truncation_notice(all.len().min(cap), all.len(), "diagnostics") {
        text.push('\n');
        text.push_str(&notice);
    }
    if n_hints > 0 {
        text.push_str(&format!("\n({} omitted)", plural(n_hints, "hint-level diagnostic")));
    }
    if let Some(note) = readiness_note(server, &readiness) {
        notes.push(note);
    }
    for note in &notes {
        text.push('\n');
        text.push_str(note);
    }
    Ok(ToolOutput::new(ToolResult::text(text).with_structured(
        json!({"op": "diagnostics", "file": relative, "server": server.id(), "version": sync.version, "results": results, "notes": notes}),
    )))
}

/// LSP `SymbolKind` (1–26) as a lowercase word.
fn symbol_kind_name(kind: &lsp_types::SymbolKind) -> &'static str {
    let number = serde_json::to_value(kind).ok().and_then(|v| v.as_u64()).unwrap_or(0);
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
