//! Code actions: what `lsp` op `code_actions` (tier read) lists, and `lsp_code_action` (tier
//! write), which applies or stages one of them.
//!
//! The tier rule: a read-only caller can list actions and never apply one. `lsp` has no
//! argument that writes; applying goes only through `lsp_code_action`, which the registry hides
//! from read-only and plan callers (and refuses by name, from a nested call or the `eval`
//! bridge alike, since a nested call keeps its caller). A server cannot write on its own either:
//! its `workspace/applyEdit` requests are refused except inside the apply window this tool opens
//! while it runs one of that server's commands ([`LanguageServer::open_apply_edit_window`]).
//!
//! How an action is applied:
//! - an action carrying a `WorkspaceEdit` (or one the server computes on `codeAction/resolve`)
//!   is planned and committed like `lsp_rename`'s edit ([`crate::lsp::rename::plan_workspace_edit`]:
//!   versions and on-disk text checked, then every file written all-or-nothing, read-only files
//!   refused); its written files go to diagnostics on write;
//! - an action's `command` (after its edit, as LSP orders them; or a bare `Command`) runs through
//!   `workspace/executeCommand` inside an apply window: the edits the server sends back go
//!   through the same atomic applier and are reported as this call's writes. A command the
//!   server does not list in `executeCommandProvider` is a client-side (editor) command and is
//!   refused.
//! - `preview: true` writes nothing: the action's edit is staged ([`crate::staged`]); a
//!   command-only action runs in a capture window, where the server's edits are refused
//!   (answered `applied: false`, "staged for review") and the first is staged. A command that
//!   does more than send edits (runs `go get`, writes files itself) does that during the
//!   preview too — the listing names each command. An action with both an edit and a command
//!   stages the edit only, and says that accepting it does not run the command.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use crate::error::{ErrorKind, ToolError};
use crate::files::ExpectedState;
use crate::lsp::client::{ApplyEditMode, LanguageServer, ReceivedEdit};
use crate::lsp::listing::file_stamps;
use crate::lsp::output::{
    ChangedFile, CodeActionApplied, CodeActionEntry, CodeActionNothingStaged, CodeActionOutput, CodeActionStaged, CommandRunSummary,
};
use crate::lsp::position::{resolve_whole_identifier_on_line, ResolvedSymbol};
use crate::lsp::rename::{commit_workspace_edit, plan_workspace_edit, stage_plan, WorkspaceEditPlan};
use crate::lsp::supervisor::LspSupervisor;
use crate::registry::{CallContext, Registry, ToolDescriptor, ToolOutput};
use crate::render::{cut_chars, plural};
use crate::result::ToolResult;
use crate::schema::to_structured;
use crate::tier::Tier;

/// The `textDocument/codeAction` parameters for the identifier at `resolved` in `path`: its
/// range, and the diagnostics published or pulled on its line as the context; with the note of
/// [`crate::lsp::tool::diagnostics_on_line`] when the current text's diagnostics did not arrive.
pub(crate) fn code_action_params(
    server: &LanguageServer,
    path: &Path,
    resolved: &ResolvedSymbol,
    deadline: Instant,
) -> (lsp_types::CodeActionParams, Option<String>) {
    let encoding = server.position_encoding();
    let (line0, character) = resolved.lsp_position(encoding);
    let end = resolved.cursor_byte + resolved.cursor_identifier.len();
    let end_character = encoding.column_from_byte(&resolved.line_text, end);
    let (diagnostics, note) = crate::lsp::tool::diagnostics_on_line(server, path, line0, deadline);
    let params = lsp_types::CodeActionParams {
        text_document: crate::lsp::client::text_document(path),
        range: lsp_types::Range {
            start: lsp_types::Position { line: line0, character },
            end: lsp_types::Position { line: line0, character: end_character },
        },
        context: lsp_types::CodeActionContext { diagnostics, only: None, trigger_kind: Some(lsp_types::CodeActionTriggerKind::INVOKED) },
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    (params, note)
}

/// Sends `textDocument/codeAction` with `params` and returns the answer as the server sent it:
/// the one request whose answer stays JSON, because each action goes back to `codeAction/resolve`
/// as the server's own object (see [`OfferedAction`]).
///
/// # Errors
/// As [`LanguageServer::request`], without the decode.
pub(crate) fn request_code_actions(
    server: &LanguageServer,
    params: lsp_types::CodeActionParams,
    deadline: Instant,
) -> Result<Value, crate::lsp::client::RequestFailure> {
    let params = serde_json::to_value(params).map_err(|err| {
        crate::lsp::client::RequestFailure::Transport(ToolError::failed(format!("cannot encode textDocument/codeAction params: {err}")))
    })?;
    server.request_untyped(<lsp_types::request::CodeActionRequest as lsp_types::request::Request>::METHOD, params, deadline, true)
}

/// One action of a `textDocument/codeAction` answer: decoded into lsp-types (what is read,
/// listed, and the edit planned), and as the server sent it. The raw JSON is kept for one reason
/// only, the `codeAction/resolve` round trip: the object sent back must be the server's own, so
/// fields lsp-types does not model (rust-analyzer's `group`, snippet markers, server `data`
/// shapes) reach the server unchanged.
#[derive(Debug, Clone)]
pub(crate) struct OfferedAction {
    /// As sent: only for the `codeAction/resolve` round trip (see the type's docs).
    raw: Value,
    /// Decoded.
    typed: lsp_types::CodeActionOrCommand,
}

impl OfferedAction {
    /// Decodes one action of `method`'s answer.
    ///
    /// # Errors
    /// `failed` (quoting the action) when it is neither a `Command` nor a `CodeAction`.
    fn decode(raw: Value, server_id: &str, method: &str) -> Result<OfferedAction, ToolError> {
        match lsp_types::CodeActionOrCommand::deserialize(&raw) {
            Ok(typed) => Ok(OfferedAction { raw, typed }),
            Err(err) => Err(crate::lsp::tool::unparseable(server_id, method, &err, &raw)),
        }
    }

    fn code_action(&self) -> Option<&lsp_types::CodeAction> {
        match &self.typed {
            lsp_types::CodeActionOrCommand::CodeAction(action) => Some(action),
            lsp_types::CodeActionOrCommand::Command(_) => None,
        }
    }

    /// The title the server gives it.
    pub(crate) fn title(&self) -> &str {
        match &self.typed {
            lsp_types::CodeActionOrCommand::CodeAction(action) => &action.title,
            lsp_types::CodeActionOrCommand::Command(command) => &command.title,
        }
    }

    /// Its kind: the `CodeAction`'s non-empty `kind`, else `command` for a bare command and
    /// `unspecified`.
    fn kind(&self) -> String {
        match self.code_action() {
            None => "command".to_owned(),
            Some(action) => {
                action.kind.as_ref().map(|kind| kind.as_str()).filter(|kind| !kind.is_empty()).unwrap_or("unspecified").to_owned()
            }
        }
    }

    fn preferred(&self) -> bool {
        self.code_action().and_then(|action| action.is_preferred) == Some(true)
    }

    fn disabled_reason(&self) -> Option<&str> {
        self.code_action().and_then(|action| action.disabled.as_ref()).map(|disabled| disabled.reason.as_str())
    }

    /// Its edit, when it carries one.
    fn edit(&self) -> Option<&lsp_types::WorkspaceEdit> {
        self.code_action().and_then(|action| action.edit.as_ref())
    }

    /// A `CodeAction` without an edit that carries `data`: the server computes the edit on
    /// `codeAction/resolve`.
    fn edit_on_resolve(&self) -> bool {
        self.code_action().is_some_and(|action| action.edit.is_none() && action.data.is_some())
    }

    /// `(command name, arguments)` of a bare `Command` or of a `CodeAction`'s `command`
    /// (arguments `null` when it has none).
    fn command(&self) -> Option<(String, Value)> {
        let command = match &self.typed {
            lsp_types::CodeActionOrCommand::Command(command) => command,
            lsp_types::CodeActionOrCommand::CodeAction(action) => action.command.as_ref()?,
        };
        Some((command.command.clone(), command.arguments.clone().map(Value::Array).unwrap_or(Value::Null)))
    }
}

/// The actions of a `textDocument/codeAction` answer (`(Command | CodeAction)[]` or null).
///
/// # Errors
/// `failed` when the answer is neither a list nor null, or an action is neither a `Command` nor
/// a `CodeAction` (quoted).
pub(crate) fn parse_actions(answer: &Value, server_id: &str) -> Result<Vec<OfferedAction>, ToolError> {
    match answer {
        Value::Null => Ok(Vec::new()),
        Value::Array(actions) => {
            actions.iter().map(|action| OfferedAction::decode(action.clone(), server_id, "textDocument/codeAction")).collect()
        }
        other => Err(ToolError::failed(format!(
            "{server_id}'s answer to textDocument/codeAction is not a list: {}",
            cut_chars(&other.to_string(), 300)
        ))),
    }
}

/// The files a `WorkspaceEdit` touches (`changes`, and the text documents, created, renamed-to
/// and deleted files of `documentChanges`), as workspace-relative paths.
fn edit_files(edit: &lsp_types::WorkspaceEdit, workspace_root: &Path) -> Vec<String> {
    use lsp_types::{DocumentChangeOperation, DocumentChanges, ResourceOp};
    let mut uris: Vec<&lsp_types::Uri> = Vec::new();
    if let Some(changes) = &edit.changes {
        uris.extend(changes.keys());
    }
    match &edit.document_changes {
        Some(DocumentChanges::Edits(edits)) => uris.extend(edits.iter().map(|edit| &edit.text_document.uri)),
        Some(DocumentChanges::Operations(operations)) => {
            for operation in operations {
                uris.push(match operation {
                    DocumentChangeOperation::Edit(edit) => &edit.text_document.uri,
                    DocumentChangeOperation::Op(ResourceOp::Create(create)) => &create.uri,
                    DocumentChangeOperation::Op(ResourceOp::Rename(rename)) => &rename.new_uri,
                    DocumentChangeOperation::Op(ResourceOp::Delete(delete)) => &delete.uri,
                });
            }
        }
        None => {}
    }
    let mut files: Vec<String> = uris
        .iter()
        .map(|uri| match crate::lsp::uri::lsp_uri_to_path(uri) {
            Some(path) => crate::render::display_path(workspace_root, &path),
            None => uri.as_str().to_owned(),
        })
        .collect();
    files.sort();
    files.dedup();
    files
}

/// One numbered line of the listing and its structured entry: title, kind, preferred, disabled,
/// and what applying it does (edits files / runs a command / computed on apply).
pub(crate) fn describe_action(number: usize, action: &OfferedAction, workspace_root: &Path) -> (String, CodeActionEntry) {
    let title = if action.title().is_empty() { "(untitled)" } else { action.title() };
    let kind = action.kind();
    let mut line = format!("{number}. {title} [{kind}]");
    if action.preferred() {
        line.push_str(" (preferred)");
    }
    let disabled = action.disabled_reason();
    if let Some(reason) = disabled {
        line.push_str(&format!(" (disabled: {reason})"));
    }
    let edit = action.edit();
    let files = edit.map(|edit| edit_files(edit, workspace_root)).unwrap_or_default();
    let command = action.command();
    let mut effects = Vec::new();
    if edit.is_some() {
        effects.push(format!("edits {}", if files.len() <= 3 { files.join(", ") } else { plural(files.len(), "file") }));
    } else if action.edit_on_resolve() {
        effects.push("edit computed when applied".to_owned());
    }
    if let Some((name, _)) = &command {
        effects.push(format!("runs command {name}"));
    }
    if !effects.is_empty() {
        line.push_str(&format!(" — {}", effects.join("; then ")));
    }
    let entry = CodeActionEntry {
        number,
        title: title.to_owned(),
        kind,
        preferred: action.preferred(),
        disabled: disabled.map(str::to_owned),
        edits_files: files,
        command: command.map(|(name, _)| name),
        edit_on_resolve: action.edit_on_resolve(),
    };
    (line, entry)
}

/// The `lsp_code_action` tool's descriptor.
pub fn descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: "lsp_code_action".to_owned(),
        title: "Apply a code action (language server)".to_owned(),
        description: "Apply one code action (quick fix, refactoring, organize imports, …) that the language server offers at a position, \
numbered as `lsp` op code_actions lists them. Address it like `lsp`: `file`, `line` (1-based), `symbol` (a substring of the line; `occurrence` \
when it occurs several times), plus `apply`: the action's number; pass `title` too, and the call is refused if the list changed. \
An action's edit is written atomically like lsp_rename's (every file checked unchanged, all-or-nothing); a server command runs through \
workspace/executeCommand and the edits the server sends back are applied the same way, only during this call. \
With `preview: true` nothing is written: the edit (for a command, the edit it sends back, which is refused and captured) is staged — \
an edit_id and a unified-diff preview — for `resolve` to accept or discard. Returns the files written, then the diagnostics the change introduced."
            .to_owned(),
        tier: Tier::Write,
        input_schema: crate::schema::input_schema::<CodeActionArguments>(),
        output_schema: Some(crate::schema::writing_output_schema::<CodeActionOutput>()),
        annotations: crate::registry::ToolAnnotations::for_tier(Tier::Write),
        parallel_safe: false,
        default_timeout: Duration::from_secs(90),
    }
}

/// Registers `lsp_code_action` (with `lsp`, when the run has an LSP supervisor).
pub(crate) fn register_tools(registry: &mut Registry) {
    registry.register(descriptor(), Arc::new(call));
}

/// The arguments of `lsp_code_action` (its input schema is derived from this struct).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct CodeActionArguments {
    #[schemars(description = crate::lsp::tool::FILE_DOC)]
    file: String,
    #[schemars(description = crate::lsp::tool::LINE_DOC, range(min = 1))]
    line: u32,
    #[schemars(description = crate::lsp::tool::SYMBOL_DOC, length(min = 1))]
    symbol: String,
    #[schemars(description = crate::lsp::tool::OCCURRENCE_DOC, range(min = 1))]
    occurrence: Option<usize>,
    #[schemars(description = crate::lsp::tool::SERVER_DOC)]
    server: Option<String>,
    /// The number of the action in the list `lsp` code_actions gives at this position
    /// (1-based).
    #[schemars(range(min = 1))]
    apply: usize,
    /// The title you expect action `apply` to have; when the server now lists another title
    /// there, nothing is applied and the current list is returned.
    #[schemars(length(min = 1))]
    title: Option<String>,
    /// Stage the action's edit instead of writing it: returns an edit_id and a diff preview for
    /// `resolve` (default false: apply at once).
    #[serde(default)]
    preview: bool,
}

fn listing(actions: &[OfferedAction], workspace_root: &Path) -> String {
    actions.iter().enumerate().map(|(index, action)| describe_action(index + 1, action, workspace_root).0).collect::<Vec<_>>().join("\n")
}

fn call(ctx: &CallContext<'_>, arguments: Value) -> Result<ToolOutput, ToolError> {
    let args: CodeActionArguments = ctx.parse_arguments(arguments)?;
    let supervisor = ctx.resource::<LspSupervisor>()?;
    let root = supervisor.workspace_root();
    let path = crate::lsp::tool::resolve_file(root, &args.file)?;
    let text = crate::files::read_workspace_file_to_string(supervisor.workspace_root(), &path)?;
    let resolved = resolve_whole_identifier_on_line(&text, args.line, &args.symbol, args.occurrence)
        .map_err(|err| ToolError::invalid(format!("{}: {err}", supervisor.display_path(&path))))?;
    let deadline = ctx.deadline().checked_sub(crate::lsp::tool::ANSWER_MARGIN).unwrap_or_else(Instant::now);
    let lease = supervisor.server_for_file(&path, args.server.as_deref(), deadline)?;
    let server = &*lease.server;
    let mut notes = lease.notes.clone();
    notes.extend(server.resync_from_disk().note(|path| supervisor.display_path(path)));
    server.sync_document(&path)?;
    if !server.supports("textDocument/codeAction") {
        return Err(crate::lsp::tool::unsupported_error(supervisor, &path, server, "code actions", "textDocument/codeAction", deadline));
    }
    let readiness = server.wait_until_ready((Instant::now() + supervisor.config().indexing_wait).min(deadline));
    if let Some(note) = readiness.note(server.id()) {
        notes.push(note);
    }
    let (params, context_note) = code_action_params(server, &path, &resolved, deadline);
    notes.extend(context_note);
    let answer =
        request_code_actions(server, params, deadline).map_err(|failure| failure.to_tool_error(server.id(), "textDocument/codeAction"))?;
    let actions = parse_actions(&answer, server.id())?;
    let display = supervisor.display_path(&path);
    let at = format!("{display}:{} (`{}`)", resolved.line, resolved.cursor_identifier);
    if actions.is_empty() {
        return Err(ToolError::new(
            ErrorKind::NotFound,
            format!("{} offers no code actions at {at} now; nothing was applied", server.id()),
        )
        .with_hint("list them with `lsp` op code_actions at the line that has the problem"));
    }
    let Some(action) = actions.get(args.apply - 1).cloned() else {
        return Err(ToolError::invalid(format!(
            "there is no action {} at {at}: {} offers {}:\n{}",
            args.apply,
            server.id(),
            plural(actions.len(), "action"),
            listing(&actions, root)
        ))
        .with_hint("pass `apply` with one of the numbers listed"));
    };
    let title = action.title().to_owned();
    if let Some(expected) = &args.title {
        if expected.trim() != title.trim() {
            return Err(ToolError::new(
                ErrorKind::Conflict,
                format!(
                    "action {} at {at} is now {title:?}, not {expected:?}: the list changed; nothing was applied. {} offers:\n{}",
                    args.apply,
                    server.id(),
                    listing(&actions, root)
                ),
            )
            .with_hint("call again with the number and title of the action you want from this list"));
        }
    }
    if let Some(reason) = action.disabled_reason() {
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!("action {} {title:?} is disabled by {}: {reason}; nothing was applied", args.apply, server.id()),
        ));
    }
    // A code action whose edit the server computes on demand.
    let mut action = action;
    if action.edit_on_resolve() {
        if server.supports("codeAction/resolve") {
            // The object goes back as the server sent it (see `OfferedAction`).
            let resolved = server
                .request_untyped("codeAction/resolve", action.raw.clone(), deadline, false)
                .map_err(|failure| failure.to_tool_error(server.id(), "codeAction/resolve"))?;
            action = OfferedAction::decode(resolved, server.id(), "codeAction/resolve")?;
        } else if action.command().is_none() {
            return Err(ToolError::failed(format!(
                "action {} {title:?} has no edit and {} does not offer codeAction/resolve to compute it; nothing was applied",
                args.apply,
                server.id()
            )));
        }
    }
    let edit = action.edit().cloned();
    let command = action.command();
    if edit.is_none() && command.is_none() {
        return Err(ToolError::failed(format!(
            "action {} {title:?} carries neither an edit nor a command; {} gave nothing to apply",
            args.apply,
            server.id()
        )));
    }
    if let Some((name, _)) = &command {
        check_command(server, name)?;
    }
    let kind = action.kind();
    let description = format!("code action {title:?} [{kind}] at {display}:{} ({})", resolved.line, server.id());
    let applier = Applier { ctx, supervisor, server, root, number: args.apply, description, deadline, notes };
    match (args.preview, edit, command) {
        (true, Some(edit), command) => applier.stage_edit(&edit, command.map(|(name, _)| name)),
        (true, None, Some(command)) => applier.stage_command(&command),
        (false, edit, command) => applier.apply(edit.as_ref(), command.as_ref()),
        (true, None, None) => unreachable!("checked above: an action has an edit or a command"),
    }
}

/// A command the server runs must be one it lists (`executeCommandProvider.commands`); others
/// are the editor's own (rust-analyzer's `rust-analyzer.showReferences`, VS Code's
/// `editor.action.triggerSuggest`).
fn check_command(server: &LanguageServer, name: &str) -> Result<(), ToolError> {
    let listed: Vec<&str> = server.execute_commands().iter().map(String::as_str).collect();
    if listed.contains(&name) {
        return Ok(());
    }
    Err(ToolError::new(
        ErrorKind::Unavailable,
        format!(
            "this action runs command {name:?}, which {} does not execute (it lists {}): it is an editor-side command runbound cannot run; nothing was applied",
            server.id(),
            if listed.is_empty() { "no commands".to_owned() } else { listed.join(", ") }
        ),
    )
    .with_hint("pick an action that carries an edit, or make the change with lsp_rename, ast_edit or edit"))
}

/// What running a command did.
struct CommandRun {
    /// The server's answer to `workspace/executeCommand`.
    result: Value,
    /// The `workspace/applyEdit` requests it sent meanwhile.
    received: Vec<ReceivedEdit>,
    /// Files under the server's root that changed while the command ran and that no applied
    /// edit wrote: the server (or something else) changed them itself.
    server_changes: Vec<ServerChange>,
}

struct ServerChange {
    path: PathBuf,
    how: &'static str,
}

struct Applier<'a> {
    ctx: &'a CallContext<'a>,
    supervisor: &'a LspSupervisor,
    server: &'a LanguageServer,
    root: &'a Path,
    number: usize,
    description: String,
    deadline: Instant,
    notes: Vec<String>,
}

impl Applier<'_> {
    fn plan(&self, edit: &lsp_types::WorkspaceEdit) -> Result<WorkspaceEditPlan, ToolError> {
        plan_workspace_edit(self.root, Some(self.server), edit)
    }

    fn file_lines(&self, plan: &WorkspaceEditPlan) -> (Vec<String>, Vec<ChangedFile>) {
        crate::lsp::rename::planned_file_lines(plan, &|path| self.supervisor.display_path(path))
    }

    fn staged_answer(&self, plan: &WorkspaceEditPlan, mut lines: Vec<String>, warnings: Vec<String>) -> Result<ToolOutput, ToolError> {
        if plan.files.is_empty() {
            return Err(ToolError::failed(format!("{}: the edit changes nothing; nothing was staged", self.description)));
        }
        let total: usize = plan.files.iter().map(|file| file.edit_count).sum();
        let mut warnings = warnings;
        warnings.extend(crate::lsp::rename_public_typescript::exports_lost_warning(self.supervisor.workspace_root(), plan));
        let (staged, max_pending) =
            stage_plan(self.ctx, self.root, plan, "lsp_code_action", self.description.clone(), warnings.clone(), Vec::new())?;
        let (file_lines, files) = self.file_lines(plan);
        // The warnings come right under the headline, before the file list: the preview is what
        // an agent reads before `resolve accept` (small24).
        let mut top =
            vec![format!("(proposed) {}: {} in {}:", self.description, plural(total, "edit"), plural(plan.changed_file_count(), "file"))];
        top.extend(warnings.iter().map(|warning| format!("WARNING: {warning}")));
        top.extend(file_lines);
        lines.splice(0..0, top);
        lines.extend(self.notes.iter().cloned());
        lines.push(staged.instructions(max_pending));
        lines.push(staged.preview.text.clone());
        let output = CodeActionOutput::Staged(CodeActionStaged {
            edit_id: staged.edit_id.clone(),
            action: self.number,
            edits: total,
            files,
            warnings,
            preview_hunks_shown: staged.preview.shown,
            preview_hunks_total: staged.preview.total,
            evicted: staged.evicted.clone(),
        });
        Ok(ToolOutput::new(ToolResult::text(lines.join("\n")).with_structured(to_structured(&output))))
    }

    fn stage_edit(&self, edit: &lsp_types::WorkspaceEdit, command: Option<String>) -> Result<ToolOutput, ToolError> {
        let plan = self.plan(edit)?;
        let warnings = command
            .map(|name| {
                vec![format!(
                    "this action also runs command {name} after its edit; accepting the staged edit does not run it — apply the action without preview to run both"
                )]
            })
            .unwrap_or_default();
        self.staged_answer(&plan, Vec::new(), warnings)
    }

    fn stage_command(&self, (name, arguments): &(String, Value)) -> Result<ToolOutput, ToolError> {
        let run = self.run_command(name, arguments, ApplyEditMode::Capture)?;
        let Some(first) = run.received.first() else {
            let mut text = format!(
                "{}: ran command {name} to preview it, and {} sent no edit back, so nothing is staged (the server answered {})",
                self.description,
                self.server.id(),
                cut_chars(&run.result.to_string(), 300)
            );
            for change in &run.server_changes {
                text.push_str(&format!(
                    "\nwarning: {} changed while the command ran ({}), not through an edit runbound saw",
                    self.supervisor.display_path(&change.path),
                    change.how
                ));
            }
            for note in &self.notes {
                text.push_str(&format!("\n{note}"));
            }
            return Ok(ToolOutput::new(ToolResult::text(text).with_structured(to_structured(&CodeActionOutput::NothingStaged(
                CodeActionNothingStaged { edit_id: None, action: self.number, command: name.clone(), edits_received: 0 },
            )))));
        };
        let mut plan = self.plan(&first.edit)?;
        let mut lines = vec![format!(
            "ran command {name} in preview mode: {} sent {}; runbound refused {} (answered applied: false) and staged the first",
            self.server.id(),
            plural(run.received.len(), "edit"),
            if run.received.len() == 1 { "it" } else { "them" }
        )];
        if run.received.len() > 1 {
            lines.push(format!(
                "note: the later {} not part of the staged change; apply the action without preview to get all of them",
                if run.received.len() == 2 { "edit is".to_owned() } else { format!("{} edits are", run.received.len() - 1) }
            ));
        }
        // Empty files the server created itself for its edit are removed again (a preview
        // writes nothing) and become files the staged change creates; other changes it made
        // itself are said.
        let mut warnings = Vec::new();
        for change in &run.server_changes {
            let shown = self.supervisor.display_path(&change.path);
            let planned = plan.changes.iter().position(|planned| planned.path == change.path);
            match planned {
                Some(index)
                    if change.how == "created, empty"
                        && matches!(&plan.changes[index].expected, ExpectedState::Content(bytes) if bytes.is_empty()) =>
                {
                    if std::fs::remove_file(&change.path).is_ok() {
                        plan.changes[index].expected = ExpectedState::Absent;
                        plan.files[index].operation = crate::lsp::rename::PlannedOperation::Created;
                        lines.push(format!("note: {} created {shown} empty while computing the edit; runbound removed it again (the staged change creates it)", self.server.id()));
                    } else {
                        warnings.push(format!(
                            "{} created {shown} empty while computing the edit and it could not be removed",
                            self.server.id()
                        ));
                    }
                }
                _ => warnings.push(format!(
                    "{shown} changed while the command ran ({}), not through the staged edit; it stays as it is",
                    change.how
                )),
            }
        }
        self.staged_answer(&plan, lines, warnings)
    }

    fn run_command(&self, name: &str, arguments: &Value, mode: ApplyEditMode) -> Result<CommandRun, ToolError> {
        // Files under the server's root before and after: a server may change files itself
        // while running a command (typescript-language-server creates the empty target file of
        // "Move to a new file" before sending its edit).
        let before = file_stamps(self.server.workspace_root(), self.server.root());
        let window = self.server.open_apply_edit_window(mode, &format!("lsp_code_action {}", self.description))?;
        let params = lsp_types::ExecuteCommandParams {
            command: name.to_owned(),
            arguments: match arguments {
                Value::Null => Vec::new(),
                Value::Array(arguments) => arguments.clone(),
                other => vec![other.clone()],
            },
            work_done_progress_params: Default::default(),
        };
        let result =
            self.server.request::<lsp_types::request::ExecuteCommand>(params, self.deadline).map(|result| result.unwrap_or(Value::Null));
        let received = window.close();
        let after = file_stamps(self.server.workspace_root(), self.server.root());
        let applied: std::collections::HashSet<&PathBuf> = received.iter().flat_map(|edit| edit.written.iter()).collect();
        let mut server_changes = Vec::new();
        for (path, stamp) in &after {
            match before.get(path) {
                None => {
                    server_changes.push(ServerChange { path: path.clone(), how: if stamp.0 == 0 { "created, empty" } else { "created" } })
                }
                Some(old) if old != stamp => server_changes.push(ServerChange { path: path.clone(), how: "modified" }),
                Some(_) => {}
            }
        }
        for path in before.keys().filter(|path| !after.contains_key(*path)) {
            server_changes.push(ServerChange { path: path.clone(), how: "deleted" });
        }
        server_changes.retain(|change| !applied.contains(&change.path));
        match result {
            Ok(result) => Ok(CommandRun { result, received, server_changes }),
            Err(failure) => {
                let mut err = failure.to_tool_error(self.server.id(), "workspace/executeCommand");
                let mut written: Vec<String> =
                    received.iter().flat_map(|edit| edit.written.iter()).map(|path| self.supervisor.display_path(path)).collect();
                written.extend(
                    server_changes
                        .iter()
                        .map(|change| format!("{} ({} by the server)", self.supervisor.display_path(&change.path), change.how)),
                );
                if written.is_empty() {
                    err.message.push_str("; nothing was written");
                } else {
                    // Landed writes are never unsaid.
                    err.message.push_str(&format!("; files changed before the failure: {}", written.join(", ")));
                }
                Err(err)
            }
        }
    }

    fn apply(&self, edit: Option<&lsp_types::WorkspaceEdit>, command: Option<&(String, Value)>) -> Result<ToolOutput, ToolError> {
        let mut lines = Vec::new();
        let mut written: Vec<PathBuf> = Vec::new();
        let mut changed_files = Vec::new();
        let mut edits_total = 0;
        if let Some(edit) = edit {
            let plan = self.plan(edit)?;
            if plan.files.is_empty() && command.is_none() {
                return Err(ToolError::failed(format!("{}: the edit changes nothing; nothing was written", self.description)));
            }
            if !plan.files.is_empty() {
                let touched: Vec<PathBuf> = plan.files.iter().map(|file| file.path.clone()).collect();
                // Read before the write: the exports before come from the disk.
                let exports_lost = crate::lsp::rename_public_typescript::exports_lost_warning(self.supervisor.workspace_root(), &plan);
                self.ctx.before_write(&touched);
                written.extend(commit_workspace_edit(self.root, &plan)?);
                edits_total = plan.files.iter().map(|file| file.edit_count).sum();
                let (file_lines, files) = self.file_lines(&plan);
                lines.push(format!(
                    "Applied {}: {} in {}:",
                    self.description,
                    plural(edits_total, "edit"),
                    plural(plan.changed_file_count(), "file")
                ));
                lines.extend(file_lines);
                lines.extend(exports_lost.map(|warning| format!("WARNING: {warning}")));
                changed_files = files;
            }
        }
        let mut command_run = None;
        if let Some((name, arguments)) = command {
            if lines.is_empty() {
                lines.push(format!("Applied {}:", self.description));
            }
            // The edit landed: a failing command must not unsay it.
            let CommandRun { result, received, server_changes } = match self.run_command(name, arguments, ApplyEditMode::Apply) {
                Ok(ran) => ran,
                Err(mut err) if !written.is_empty() => {
                    let shown: Vec<String> = written.iter().map(|path| self.supervisor.display_path(path)).collect();
                    err.message = format!("the action's edit was written ({}), then its command failed: {}", shown.join(", "), err.message);
                    return Err(err);
                }
                Err(err) => return Err(err),
            };
            let applied: Vec<&ReceivedEdit> = received.iter().filter(|edit| edit.answer.applied).collect();
            let refused: Vec<String> = received
                .iter()
                .filter(|edit| !edit.answer.applied)
                .map(|edit| edit.answer.failure_reason.clone().unwrap_or_else(|| "refused".to_owned()))
                .collect();
            let command_written: Vec<String> =
                applied.iter().flat_map(|edit| edit.written.iter()).map(|path| self.supervisor.display_path(path)).collect();
            lines.push(format!(
                "  ran command {name}: {} sent {}{}",
                self.server.id(),
                plural(received.len(), "edit"),
                if command_written.is_empty() { String::new() } else { format!(", applied to {}", command_written.join(", ")) }
            ));
            for reason in &refused {
                lines.push(format!("  an edit the command sent was not applied: {reason}"));
            }
            let changed_itself: Vec<String> =
                server_changes.iter().map(|change| format!("{} ({})", self.supervisor.display_path(&change.path), change.how)).collect();
            if !changed_itself.is_empty() {
                lines.push(format!(
                    "  files changed while the command ran, not through an edit runbound applied: {}",
                    changed_itself.join(", ")
                ));
            } else if received.is_empty() {
                lines.push(format!("  the command changed no file (the server answered {})", cut_chars(&result.to_string(), 200)));
            }
            written.extend(applied.iter().flat_map(|edit| edit.written.iter().cloned()));
            written.extend(server_changes.iter().map(|change| change.path.clone()));
            command_run = Some(CommandRunSummary {
                command: name.clone(),
                edits_received: received.len(),
                written: command_written,
                refused,
                changed_by_server: changed_itself,
            });
        }
        lines.extend(self.notes.iter().cloned());
        written.sort();
        written.dedup();
        if written.is_empty() {
            // A command that neither sent an applied edit nor changed a file did nothing: an
            // "Applied" headline would read as done (trial34 M6: tsserver declining
            // "Convert parameters to destructured object" answers null).
            lines[0] = format!(
                "NOT applied {}: nothing was written — the server's command sent no edit that was applied and changed no file. \
                 The server may have declined the action at this position; edit by hand, or call `lsp code_actions` for another action.",
                self.description
            );
            let output = CodeActionOutput::Applied(CodeActionApplied {
                action: self.number,
                description: self.description.clone(),
                edits: 0,
                files: Vec::new(),
                command: command_run,
                written: Vec::new(),
            });
            return Ok(ToolOutput::new(ToolResult::error_text(lines.join("\n")).with_structured(to_structured(&output))));
        }
        let output = CodeActionOutput::Applied(CodeActionApplied {
            action: self.number,
            description: self.description.clone(),
            edits: edits_total,
            files: changed_files,
            command: command_run,
            written: written.iter().map(|path| self.supervisor.display_path(path)).collect(),
        });
        Ok(ToolOutput::new(ToolResult::text(lines.join("\n")).with_structured(to_structured(&output))).with_written_paths(written))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn offered(raw: Value) -> OfferedAction {
        OfferedAction::decode(raw, "test-server", "textDocument/codeAction").expect("decodes")
    }

    #[test]
    fn actions_decode_into_commands_and_code_actions() {
        let command = offered(json!({"title": "Organize imports", "command": "server.organize", "arguments": [1, "two"]}));
        assert_eq!(command.kind(), "command");
        assert_eq!(command.command(), Some(("server.organize".to_owned(), json!([1, "two"]))));
        assert!(command.edit().is_none() && !command.edit_on_resolve());

        let lazy = offered(json!({"title": "Inline", "kind": "refactor.inline", "data": {"id": 7}, "group": "kept"}));
        assert_eq!(lazy.kind(), "refactor.inline");
        assert!(lazy.edit_on_resolve(), "an edit the server computes on resolve");
        assert_eq!(lazy.raw["group"], "kept", "fields lsp-types does not model are kept for the round trip");
        assert_eq!(lazy.command(), None);

        let disabled = offered(json!({"title": "Extract", "kind": "", "disabled": {"reason": "no selection"}, "isPreferred": true}));
        assert_eq!(disabled.kind(), "unspecified");
        assert_eq!(disabled.disabled_reason(), Some("no selection"));
        assert!(disabled.preferred());

        let error = OfferedAction::decode(json!({"command": "x"}), "test-server", "textDocument/codeAction").unwrap_err();
        assert!(error.message.contains("could not be read"), "{}", error.message);
    }

    #[test]
    fn edit_files_lists_changes_and_document_changes() {
        let root = Path::new("/work/project");
        let with_operations = offered(json!({
            "title": "Move",
            "edit": {"documentChanges": [
                {"textDocument": {"uri": "file:///work/project/src/a.rs", "version": 1}, "edits": []},
                {"kind": "create", "uri": "file:///work/project/src/new.rs"},
                {"kind": "rename", "oldUri": "file:///work/project/src/old.rs", "newUri": "file:///work/project/src/renamed.rs"},
                {"kind": "delete", "uri": "file:///work/project/src/gone.rs"}
            ]}
        }));
        assert_eq!(edit_files(with_operations.edit().unwrap(), root), vec!["src/a.rs", "src/gone.rs", "src/new.rs", "src/renamed.rs"]);
        let with_changes =
            offered(json!({"title": "Fix", "edit": {"changes": {"file:///work/project/b.py": [], "file:///work/project/a.py": []}}}));
        assert_eq!(edit_files(with_changes.edit().unwrap(), root), vec!["a.py", "b.py"]);
        assert_eq!(with_changes.edit().unwrap().changes.as_ref().unwrap().len(), 2);
        let (line, entry) = describe_action(3, &with_changes, root);
        assert_eq!(line, "3. Fix [unspecified] — edits a.py, b.py");
        assert_eq!(entry.edits_files, vec!["a.py", "b.py"]);
    }
}
