//! `lsp_rename` across the project roots of one language (issue 11, trial27b F6 item 3): a
//! library crate or Go module beside a consumer that reaches it through a Cargo `path`
//! dependency or a go.mod `replace`, each its own root with its own server
//! ([`crate::lsp::sibling_roots`]).
//!
//! One server sees only part of such a rename: the consumer's loads the library as a
//! dependency (gopls without its `_test.go` files, rust-analyzer without the uses in its
//! doc-tests it does not resolve), and the library's does not load the consumer at all. So a
//! rename is computed by the server of the root that OWNS the definition (found with
//! `textDocument/definition` at the renamed position) and by the server of every root that
//! depends on that root, each asked at the definition and checked by its own `grep -w` pass
//! ([`crate::lsp::rename_coverage::complete_rename`] under its root); the edits are merged file by
//! file — a file takes the edit of the server whose root holds it — into one change, staged or
//! written all-or-nothing like any rename.
//!
//! The roots are asked in parallel (one named thread each, joined before the answer), each
//! until the roots' deadline; a root whose server cannot start, answer or rename in time is
//! named with why and its occurrences of the old name stay listed as NOT renamed
//! ([`crate::lsp::sibling_roots::rename_in_other_roots_notes`]): never a silent partial rename.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::lsp::client::LanguageServer;
use crate::lsp::rename::{plan_workspace_edit, WorkspaceEditPlan};
use crate::lsp::rename_coverage::{RenameCoverage, WordHit};
use crate::lsp::supervisor::LspSupervisor;

/// Why a root the starting server's edit writes into is asked (at the first place the edit
/// renames there), unless it depends on the owning root (then it is asked at the definition).
const WRITES_INTO_IT: &str = "the edit writes into it";

/// One other root's part of a rename ([`rename_in_owning_and_dependent_roots`]).
struct RootPart {
    root: PathBuf,
    plan: WorkspaceEditPlan,
    coverage: RenameCoverage,
    /// How long the root took, start and rename included (ms).
    elapsed_ms: u128,
    /// Notes of the lease (a restart) and of readiness.
    notes: Vec<String>,
}

/// What [`rename_in_owning_and_dependent_roots`] did to a rename.
#[derive(Debug, Default)]
pub struct AcrossRoots {
    /// The merged plan: each file's change from the server whose root holds the file (the
    /// starting server's otherwise).
    pub plan: Option<WorkspaceEditPlan>,
    /// Lines for the answer: what each root's server renamed and checked, and which root was
    /// not asked (and why).
    pub report: Vec<String>,
    /// What the results of the other roots' `grep -w` checks must say near the top.
    pub warnings: Vec<String>,
    /// What the write check after the rename cannot see (from the other roots' checks).
    pub write_check_blind_spots: Vec<String>,
    /// The roots whose own server renamed their files (the starting root among them): their
    /// remaining occurrences are their check's, not a "NOT complete" note's.
    pub renamed_by_own_server: Vec<PathBuf>,
    /// Roots that should have been asked and were not, with why (their occurrences of the old
    /// name are reported as NOT renamed).
    pub not_asked: Vec<(PathBuf, String)>,
    /// Of `not_asked`, the roots whose own server answered the rename with an error of its own
    /// (a conflict in that root's code, say): asking again gives the same answer.
    pub refused: Vec<PathBuf>,
    /// Import aliases (`import { Old as New }`) the starting server wrote, made plain imports of
    /// the renamed declaration (`import { New }`) because the root owning it renamed it too.
    pub import_aliases_dropped: usize,
    /// The root owning the definition (another than the starting one) renamed the declaration.
    pub owner_renamed_declaration: bool,
    /// The starting root's references its edit left because it did not rename their
    /// declaration, as they stand after the merge — those the merge renamed (an alias made
    /// plain, an import from an entry that stops exporting the old name) dropped; `None` when
    /// the merge settled none of them (trial172 F1, M10).
    pub declaration_kept_left: Option<Vec<WordHit>>,
}

/// Why a root's part of the rename is missing (see [`rename_in_root`]).
struct RootNotRenamed {
    /// For the answer.
    why: String,
    /// The root's server answered the rename with an error of its own (not a timeout, a
    /// cancellation or a change while it computed): a refusal that asking again repeats.
    refused_by_server: bool,
}

impl From<String> for RootNotRenamed {
    fn from(why: String) -> Self {
        RootNotRenamed { why, refused_by_server: false }
    }
}

/// For a rename whose server (`server`, at `origin` (`line0`, `character`)) is one of several
/// project roots of its language (see the module docs): finds the root owning the definition,
/// asks its server and those of the roots that depend on it, and merges their plans with
/// `plan` (the starting server's). Returns the default (no plan, nothing said) when the
/// language has no such roots, the definition is outside the workspace, or the owning root has
/// no dependents and is the starting root (a single-root rename).
#[allow(clippy::too_many_arguments)]
pub fn rename_in_owning_and_dependent_roots(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    origin: &Path,
    line0: u32,
    character: u32,
    old_name: &str,
    new_name: &str,
    edit: &lsp_types::WorkspaceEdit,
    plan: &WorkspaceEditPlan,
    declaration_kept: &[WordHit],
    deadline: Instant,
) -> AcrossRoots {
    let mut across = AcrossRoots::default();
    if crate::lsp::sibling_roots::manifest_name(server.id()).is_none() {
        return across;
    }
    let workspace_root = supervisor.workspace_root();
    let encoding = server.position_encoding();
    // Where each root is asked: (root, file, 0-based line, byte column, why it is asked).
    let mut asks: Vec<(PathBuf, PathBuf, u32, usize, String)> = Vec::new();
    let byte_of = |path: &Path, line: u32, character: u32| -> usize {
        let text = crate::files::read_workspace_file_to_string(workspace_root, path).unwrap_or_default();
        encoding.byte_from_column(text.lines().nth(line as usize).unwrap_or(""), character)
    };
    let root_of = |path: &Path| crate::lsp::servers::find_root(server.definition(), workspace_root, path).root;
    // Where a server may be asked: the byte column of `old_name` at (`line`, byte) of `path` —
    // the name starting there, or ending there (an edit inserting ` as New` after it); `None`
    // when no `old_name` is there (trial179 F1: tsserver's definition of a namespace binding
    // is the module, its span at the module's first statement, `import type { LazyArg } …`;
    // the consumer root's server asked there renamed `LazyArg` in 18 places).
    let old_name_at = |path: &Path, line: u32, byte: usize| -> Option<usize> {
        let text = crate::files::read_workspace_file_to_string(workspace_root, path).unwrap_or_default();
        let line_text = text.lines().nth(line as usize).unwrap_or("");
        let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
        let bounded = |start: usize| {
            line_text.get(..start).is_some_and(|before| !before.ends_with(is_word))
                && crate::lsp::rename_inherited_members::identifier_at_byte(line_text, start) == old_name
        };
        if bounded(byte) {
            return Some(byte);
        }
        byte.checked_sub(old_name.len()).filter(|start| bounded(*start))
    };
    // 1. The root that owns the definition (the first target inside the workspace), asked there
    // — when the definition is a declaration named `old_name`: a module (the definition of a
    // namespace binding, `import * as either`) is no place to rename at.
    let targets = crate::lsp::rename_coverage::definition_targets(server, origin, line0, character, deadline);
    let mut inside: Vec<(PathBuf, u32, u32)> =
        targets.into_iter().filter(|(path, _, _)| path.starts_with(workspace_root) && server.definition().serves(path)).collect();
    inside.sort();
    let mut definition_not_named: Option<(PathBuf, u32, String)> = None;
    let definition = inside.into_iter().next().filter(|(path, line, character)| {
        let named = old_name_at(path, *line, byte_of(path, *line, *character)).is_some();
        if !named {
            let text = crate::files::read_workspace_file_to_string(workspace_root, path).unwrap_or_default();
            definition_not_named = Some((path.clone(), *line, text.lines().nth(*line as usize).unwrap_or("").trim().to_owned()));
        }
        named
    });
    let start_ask = match &definition {
        Some((path, line, character)) if path.starts_with(server.root()) => (path.clone(), *line, byte_of(path, *line, *character)),
        _ => (origin.to_path_buf(), line0, byte_of(origin, line0, character)),
    };
    if let Some((path, line, definition_character)) = &definition {
        if let Some(owner) = root_of(path).filter(|owner| owner != server.root()) {
            asks.push((owner, path.clone(), *line, byte_of(path, *line, *definition_character), "it owns the definition".to_owned()));
        }
    }
    // 2. Every other root the starting server's edit writes into (a trait's method renamed from
    // an impl in the consumer: the definition there is the impl's own, the trait is the
    // library's), asked at the first place the edit renames in it.
    // A root whose first changed place holds no `old_name` is not asked there (named, below).
    let mut unaskable: Vec<(PathBuf, String)> = Vec::new();
    for (path, line, character) in first_edit_per_file(edit) {
        let Some(root) = root_of(&path) else { continue };
        if root == server.root() || asks.iter().any(|(asked, ..)| *asked == root) || unaskable.iter().any(|(left, _)| *left == root) {
            continue;
        }
        let Some(byte) = old_name_at(&path, line, byte_of(&path, line, character)) else {
            unaskable.push((
                root,
                format!(
                    "the edit's first change in it ({}:{}) is not at `{old_name}`, so its server was not asked to rename there; its occurrences of `{old_name}` are listed as NOT renamed — check them, or call lsp_rename at the declaration",
                    supervisor.display_path(&path),
                    line + 1
                ),
            ));
            continue;
        };
        asks.push((root, path, line, byte, WRITES_INTO_IT.to_owned()));
    }
    // 3. The roots that depend on any of these (and on the starting root), asked at the same
    // place (they load its files as a dependency).
    let mut incomplete_scans: Vec<PathBuf> = Vec::new();
    let mut bases: Vec<(PathBuf, PathBuf, u32, usize)> = vec![(server.root().to_path_buf(), start_ask.0, start_ask.1, start_ask.2)];
    bases.extend(asks.iter().map(|(root, path, line, byte, _)| (root.clone(), path.clone(), *line, *byte)));
    for (base, path, line, byte) in bases {
        let dependents = supervisor.dependent_roots(server.id(), &base);
        if dependents.scan_incomplete && !incomplete_scans.contains(&base) {
            incomplete_scans.push(base.clone());
        }
        for dependent in dependents.roots {
            let why = format!("it depends on {}", supervisor.display_path(&base));
            // A dependent the edit writes into is asked at the definition all the same, not at
            // the first place the edit renames there: tsserver asked at a consumer's import
            // specifier renames only the local alias (`f as first`), which leaves the consumer
            // importing a name the library no longer exports (trial164 F2).
            if let Some(ask) = asks.iter_mut().find(|(asked, .., role)| *asked == dependent && role.as_str() == WRITES_INTO_IT) {
                *ask = (dependent, path.clone(), line, byte, why);
                continue;
            }
            if dependent == server.root() || asks.iter().any(|(asked, ..)| *asked == dependent) {
                continue;
            }
            unaskable.retain(|(left, _)| *left != dependent);
            asks.push((dependent, path.clone(), line, byte, why));
        }
    }
    if asks.is_empty() && unaskable.is_empty() {
        return across;
    }
    if let Some((path, line, text)) = &definition_not_named {
        across.report.push(format!(
            "  note: {}'s definition of `{old_name}` is {}:{} (`{text}`), no declaration named `{old_name}` — for a namespace binding (`import * as {old_name}`) it is the module file itself, which no rename renames: no root was asked to rename there; {} asked where the rename was asked ({}:{})",
            server.id(),
            supervisor.display_path(path),
            line + 1,
            crate::render::one_or_many(asks.len(), "the other root was", "the other roots were"),
            supervisor.display_path(origin),
            line0 + 1
        ));
    }
    for base in incomplete_scans {
        across.report.push(format!(
            "  note: the scan for the {} roots that depend on {} stopped at its cap ({} manifests, {} entries): a consumer root beyond it was not asked",
            server.id(),
            supervisor.display_path(&base),
            crate::lsp::sibling_roots::MANIFESTS_CAP,
            crate::lsp::sibling_roots::ENTRIES_CAP
        ));
    }
    let role = |root: &Path| -> String {
        if unaskable.iter().any(|(left, _)| left == root) {
            return WRITES_INTO_IT.to_owned();
        }
        asks.iter().find(|(asked, ..)| asked == root).map_or_else(|| "where the rename was asked".to_owned(), |(.., why)| why.clone())
    };
    // Every other root at once: a cold server's start and indexing overlap the others'.
    let results: Vec<(PathBuf, Result<RootPart, RootNotRenamed>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = asks
            .iter()
            .map(|(root, path, line, byte, _)| {
                let text = crate::files::read_workspace_file_to_string(workspace_root, path).unwrap_or_default();
                let line_text = text.lines().nth(*line as usize).unwrap_or("").to_owned();
                let thread = std::thread::Builder::new()
                    .name(format!("rename-root-{}", supervisor.display_path(root)))
                    .spawn_scoped(scope, move || {
                        rename_in_root(supervisor, server.id(), root, path, *line, &line_text, *byte, old_name, new_name, deadline)
                    });
                (root.clone(), thread)
            })
            .collect();
        handles
            .into_iter()
            .map(|(root, thread)| {
                let result = match thread {
                    Ok(handle) => handle.join().unwrap_or_else(|_| Err("its rename thread panicked".to_owned().into())),
                    Err(err) => Err(format!("no thread could be started for it: {err}").into()),
                };
                (root, result)
            })
            .collect()
    });
    let mut parts: Vec<RootPart> = Vec::new();
    across.not_asked.extend(unaskable.iter().cloned());
    for (root, result) in results {
        match result {
            Ok(part) => parts.push(part),
            Err(not_renamed) => {
                if not_renamed.refused_by_server {
                    across.warnings.push(format!(
                        "WARNING: {} @ {} ({}) refused to rename its own code: {} — this edit renames the other roots only, and {}'s code that uses `{old_name}` no longer builds against them; pick another name, or first change {}'s code so the rename is free (asking again gives the same refusal)",
                        server.id(),
                        supervisor.display_path(&root),
                        role(&root),
                        not_renamed.why,
                        supervisor.display_path(&root),
                        supervisor.display_path(&root)
                    ));
                    across.refused.push(root.clone());
                }
                across.not_asked.push((root, not_renamed.why));
            }
        }
    }
    // The merge: each file from the server whose root holds it (the deepest such root), else
    // from the starting server, else from the first root that edits it.
    let holder = |path: &Path| -> Option<PathBuf> {
        std::iter::once(server.root().to_path_buf())
            .chain(parts.iter().map(|part| part.root.clone()))
            .filter(|root| path.starts_with(root))
            .max_by_key(|root| root.components().count())
    };
    // The directories a plan renames (gopls renaming a package) are moved once.
    let mut merged = WorkspaceEditPlan { changes: Vec::new(), files: Vec::new(), moved_directories: Vec::new() };
    for moved in std::iter::once(plan).chain(parts.iter().map(|part| &part.plan)).flat_map(|plan| &plan.moved_directories) {
        if !merged.moved_directories.contains(moved) {
            merged.moved_directories.push(moved.clone());
        }
    }
    let mut seen: Vec<PathBuf> = Vec::new();
    let all_plans: Vec<(PathBuf, &WorkspaceEditPlan)> =
        std::iter::once((server.root().to_path_buf(), plan)).chain(parts.iter().map(|part| (part.root.clone(), &part.plan))).collect();
    for (_, candidate) in &all_plans {
        for file in &candidate.files {
            if seen.contains(&file.path) {
                continue;
            }
            seen.push(file.path.clone());
            let owner_of_file = holder(&file.path);
            let from = all_plans
                .iter()
                .find(|(root, plan)| Some(root) == owner_of_file.as_ref() && plan.files.iter().any(|planned| planned.path == file.path))
                .map(|(_, plan)| *plan)
                .unwrap_or(*candidate);
            let index = from.files.iter().position(|planned| planned.path == file.path).expect("the file is in this plan");
            merged.changes.push(from.changes[index].clone());
            merged.files.push(from.files[index].clone());
        }
    }
    // Asked at an import of another root's declaration, the starting server renamed only its
    // local binding (`import { Store as Box }`, uses as `Box`); the owning root renamed the
    // declaration itself, so the alias would import a name that root no longer exports: each
    // such import is made plain (`import { Box }`; trial164 M1 with F2's cross-root rename).
    let owner_renamed_declaration = definition.as_ref().is_some_and(|(path, _, _)| {
        parts
            .iter()
            .any(|part| !path.starts_with(server.root()) && part.plan.files.iter().any(|file| file.path == *path && file.edit_count > 0))
    });
    across.owner_renamed_declaration = owner_renamed_declaration;
    // The merged plan renames the declaration (whichever root's part did): an alias another
    // root's server wrote in an import from the declaration's own module (`import { createSlice
    // as makeSlice } from '../createSlice'` by a nested root's server) imports a name that
    // module no longer exports either (trial29's nested `src/tests` root).
    let declaration_renamed =
        definition.as_ref().is_some_and(|(path, _, _)| merged.files.iter().any(|file| file.path == *path && file.edit_count > 0));
    if (owner_renamed_declaration || declaration_renamed) && server.id() == "typescript-language-server" {
        let alias = format!("{old_name} as {new_name}");
        let definition_file = definition.as_ref().map(|(path, _, _)| path.clone());
        for change in merged.changes.iter_mut() {
            let in_starting_root = change.path.starts_with(server.root());
            let Some(content) = change.new_content.as_ref().and_then(|bytes| String::from_utf8(bytes.clone()).ok()) else { continue };
            let (rewritten, dropped) = plain_import_aliases(&content, &alias, new_name, |specifier| {
                (owner_renamed_declaration && in_starting_root)
                    || definition_file.as_deref().is_some_and(|definition| import_resolves_to(&change.path, specifier, definition))
            });
            if dropped > 0 {
                change.new_content = Some(rewritten.into_bytes());
                across.import_aliases_dropped += dropped;
            }
        }
        if across.import_aliases_dropped > 0 {
            across.report.push(format!(
                "  made {} of the renamed declaration plain (`{alias}` → `{new_name}`): the declaration is renamed, so the alias a server wrote would import a name its module no longer exports",
                crate::render::plural(across.import_aliases_dropped, "import alias"),
            ));
        }
    }
    // The starting root's references its edit left because it did not rename the declaration:
    // with the declaration renamed by now, an import of the old name from an entry point that
    // re-exports it only through `export *` breaks (the entry exports the new name alone), and
    // is renamed with its file's uses; those the alias fix-up renamed are no longer left
    // (trial172 F1: 7 client files importing `AnyRouter` from
    // `@trpc/server/unstable-core-do-not-import`, said to "keep working", 7 × TS2724; M10).
    if (owner_renamed_declaration || declaration_renamed) && server.id() == "typescript-language-server" && !declaration_kept.is_empty() {
        let settled = settle_declaration_kept(workspace_root, server, &mut merged, declaration_kept, old_name, new_name);
        if !settled.renamed_files.is_empty() {
            let entries: Vec<String> = settled.specifiers.iter().map(|specifier| format!("`{specifier}`")).collect();
            across.report.push(format!(
                "  renamed {} in {} ({}) that import `{old_name}` from {}: {} the renamed declaration only through `export *`, so after the rename {} `{new_name}` alone and an import of `{old_name}` would not compile (TS2724)",
                crate::render::plural(settled.renamed_occurrences, "more occurrence"),
                crate::render::plural(settled.renamed_files.len(), "file"),
                settled.renamed_files.iter().map(|path| supervisor.display_path(path)).collect::<Vec<_>>().join(", "),
                entries.join(", "),
                crate::render::one_or_many(entries.len(), "that entry point re-exports", "those entry points re-export"),
                crate::render::one_or_many(entries.len(), "it exports", "they export"),
            ));
        }
        if settled.left.len() != declaration_kept.len() {
            across.declaration_kept_left = Some(settled.left);
        }
    }
    across.renamed_by_own_server.push(server.root().to_path_buf());
    let starting_edits: usize = plan.files.iter().filter(|file| file.path.starts_with(server.root())).map(|file| file.edit_count).sum();
    across.report.push(format!(
        "renamed across {} of {}: {} (where the rename was asked) renamed its own files ({}); {} asked by {} own server — each root's files take its own server's edit, and each root's `grep -w` check covers that root",
        crate::render::plural(asks.len() + 1, "project root"),
        server.id(),
        supervisor.display_path(server.root()),
        crate::render::plural(starting_edits, "edit"),
        crate::render::plural(asks.len(), "other root"),
        crate::render::one_or_many(asks.len(), "its", "their"),
    ));
    for part in &parts {
        let own_edits: usize = part.plan.files.iter().filter(|file| file.path.starts_with(&part.root)).map(|file| file.edit_count).sum();
        across.report.push(format!(
            "{} @ {} ({}): {} in its own files, computed in {} ms",
            server.id(),
            supervisor.display_path(&part.root),
            role(&part.root),
            crate::render::plural(own_edits, "edit"),
            part.elapsed_ms
        ));
        across.report.extend(part.notes.iter().map(|note| format!("  {note}")));
        // Its check's report: the first line as it is, the findings indented as they are.
        across.report.extend(part.coverage.report.iter().cloned());
        across.warnings.extend(part.coverage.warnings.iter().cloned());
        across.write_check_blind_spots.extend(part.coverage.write_check_blind_spots.iter().cloned());
        across.renamed_by_own_server.push(part.root.clone());
    }
    for (root, why) in &across.not_asked {
        let asked = if across.refused.contains(root) { "NOT renamed (refused)" } else { "NOT asked" };
        across.report.push(format!("  {asked}: {} @ {} ({}): {why}", server.id(), supervisor.display_path(root), role(root)));
    }
    across.plan = Some(merged);
    across
}

/// What [`settle_declaration_kept`] did.
struct SettledDeclarationKept {
    /// The references still left after the merge, as the grep check found them.
    left: Vec<WordHit>,
    /// The files whose imports of the old name were renamed, with their uses.
    renamed_files: Vec<PathBuf>,
    /// How many occurrences that renamed.
    renamed_occurrences: usize,
    /// The module specifiers those files imported the old name from, each once.
    specifiers: Vec<String>,
}

/// Settles the starting root's references left because its edit did not rename their
/// declaration (`hits`, positions in the files' texts before the rename), now that `merged`
/// renames it: a reference the merged plan changed already (an alias made plain) is no longer
/// left; in a file that imports `old_name` by name from an entry point that, after `merged`,
/// exports `new_name` and no longer `old_name`
/// ([`crate::lsp::rename_public_typescript::entry_exports_only_the_new_name`]), every left
/// reference is renamed in `merged` — the import and its uses. The others stay left (an import
/// from an entry whose export list keeps the old name: `export { NEW as OLD }`).
fn settle_declaration_kept(
    workspace_root: &Path,
    server: &LanguageServer,
    merged: &mut WorkspaceEditPlan,
    hits: &[WordHit],
    old_name: &str,
    new_name: &str,
) -> SettledDeclarationKept {
    let mut settled =
        SettledDeclarationKept { left: Vec::new(), renamed_files: Vec::new(), renamed_occurrences: 0, specifiers: Vec::new() };
    let mut by_file: std::collections::BTreeMap<PathBuf, Vec<&WordHit>> = std::collections::BTreeMap::new();
    for hit in hits {
        by_file.entry(hit.path.clone()).or_default().push(hit);
    }
    for (path, mut file_hits) in by_file {
        file_hits.sort_by_key(|hit| (hit.line, hit.byte_start));
        let planned = merged.changes.iter().position(|change| change.path == path);
        let current = match planned {
            Some(index) => match merged.changes[index].new_content.as_ref() {
                Some(bytes) => String::from_utf8_lossy(bytes).into_owned(),
                None => continue,
            },
            None => match crate::files::read_workspace_file_to_string(workspace_root, &path) {
                Ok(text) => text,
                Err(_) => {
                    settled.left.extend(file_hits.into_iter().cloned());
                    continue;
                }
            },
        };
        let lines: Vec<&str> = current.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line)).collect();
        // Each hit where it stands now: (line, byte column in the current line). A line the merge
        // changed keeps as many of its hits as it still holds whole words of the old name.
        let mut standing: Vec<(&WordHit, u32, usize)> = Vec::new();
        for (line, group) in group_by_line(&file_hits) {
            let Some(now) = lines.get(line as usize) else { continue };
            if *now == group[0].line_text.strip_suffix('\r').unwrap_or(&group[0].line_text) {
                standing.extend(group.iter().map(|hit| (*hit, line, hit.byte_start)));
                continue;
            }
            let positions = crate::lsp::rename_coverage::word_positions(now, old_name);
            standing.extend(group.iter().zip(positions).map(|(hit, at)| (*hit, line, at)));
        }
        let entry_breaks = named_import_specifier(&current, old_name).filter(|specifier| {
            crate::lsp::rename_public_typescript::import_entry_source(workspace_root, &path, specifier).is_some_and(|entry| {
                crate::lsp::rename_public_typescript::entry_exports_only_the_new_name(workspace_root, merged, &entry, old_name, new_name)
            })
        });
        let Some(specifier) = entry_breaks else {
            settled.left.extend(standing.iter().map(|(hit, _, _)| (*hit).clone()));
            continue;
        };
        if let Some(index) = planned {
            let mut rewritten: Vec<String> = lines.iter().map(|line| (*line).to_owned()).collect();
            for (_, line, at) in standing.iter().rev() {
                rewritten[*line as usize].replace_range(*at..*at + old_name.len(), new_name);
            }
            // The lines' own endings kept: each line took back the `\r` it had.
            let endings: Vec<bool> = current.split('\n').map(|line| line.ends_with('\r')).collect();
            let text: Vec<String> =
                rewritten.into_iter().zip(endings).map(|(line, crlf)| if crlf { format!("{line}\r") } else { line }).collect();
            merged.changes[index].new_content = Some(text.join("\n").into_bytes());
            if let Some(file) = merged.files.iter_mut().find(|file| file.path == path) {
                file.edit_count += standing.len();
            }
        } else {
            let encoding = server.position_encoding();
            let edits: Vec<lsp_types::TextEdit> = standing
                .iter()
                .map(|(_, line, at)| {
                    let text = lines[*line as usize];
                    lsp_types::TextEdit {
                        range: lsp_types::Range {
                            start: lsp_types::Position { line: *line, character: encoding.column_from_byte(text, *at) },
                            end: lsp_types::Position { line: *line, character: encoding.column_from_byte(text, *at + old_name.len()) },
                        },
                        new_text: new_name.to_owned(),
                    }
                })
                .collect();
            let edit = lsp_types::WorkspaceEdit {
                changes: Some(std::iter::once((crate::lsp::uri::path_to_lsp_uri(&path), edits)).collect()),
                ..lsp_types::WorkspaceEdit::default()
            };
            match plan_workspace_edit(workspace_root, Some(server), &edit) {
                Ok(added) => {
                    merged.changes.extend(added.changes);
                    merged.files.extend(added.files);
                }
                Err(_) => {
                    settled.left.extend(standing.iter().map(|(hit, _, _)| (*hit).clone()));
                    continue;
                }
            }
        }
        settled.renamed_occurrences += standing.len();
        settled.renamed_files.push(path.clone());
        if !settled.specifiers.contains(&specifier) {
            settled.specifiers.push(specifier);
        }
    }
    settled
}

/// `hits` (sorted by line) grouped by their 0-based line.
fn group_by_line<'a>(hits: &[&'a WordHit]) -> Vec<(u32, Vec<&'a WordHit>)> {
    let mut groups: Vec<(u32, Vec<&'a WordHit>)> = Vec::new();
    for hit in hits {
        match groups.last_mut() {
            Some((line, group)) if *line == hit.line => group.push(hit),
            _ => groups.push((hit.line, vec![hit])),
        }
    }
    groups
}

/// The module specifier of the import statement in `text` (a TypeScript/JavaScript file) that
/// imports `name` by name (`import { name } from '…'`, `import type { a, name as b } from "…"`,
/// over several lines too); `None` when none does.
fn named_import_specifier(text: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index].trim_start();
        index += 1;
        if !(line.starts_with("import ") || line.starts_with("import{")) {
            continue;
        }
        let mut statement = line.to_owned();
        let mut taken = 0;
        while !(statement.contains(" from ") && statement.contains('}')) && index < lines.len() && taken < 200 {
            statement.push(' ');
            statement.push_str(lines[index].trim());
            index += 1;
            taken += 1;
        }
        let (Some(open), Some(close)) = (statement.find('{'), statement.find('}')) else { continue };
        let imported = statement[open + 1..close].split(',').any(|entry| {
            let entry = entry.trim().trim_start_matches("type ").trim();
            entry.split_whitespace().next() == Some(name)
        });
        if !imported {
            continue;
        }
        let after = statement[close..].split_once("from")?.1.trim_start();
        let quote = after.chars().next().filter(|quote| matches!(quote, '"' | '\''))?;
        let end = after[1..].find(quote)?;
        return Some(after[1..1 + end].to_owned());
    }
    None
}

/// `content` (a TypeScript/JavaScript file) with each `alias` (`Old as New`) in an import
/// statement — over lines too (prettier's one name per line; review48 H2) — made `new_name`,
/// where `drop(specifier)` says so for the statement's module specifier (`'../createSlice'`,
/// `'a'`). Returns the text and how many aliases were made plain.
fn plain_import_aliases(content: &str, alias: &str, new_name: &str, drop: impl Fn(&str) -> bool) -> (String, usize) {
    let mut out = String::with_capacity(content.len());
    let mut statement: Vec<&str> = Vec::new();
    let mut dropped = 0;
    let flush = |statement: &mut Vec<&str>, out: &mut String, dropped: &mut usize| {
        let text = statement.concat();
        let specifier = text
            .rsplit_once("from")
            .map(|(_, after)| after.trim().trim_end_matches(';').trim().trim_matches(|c| c == '\'' || c == '"').to_owned());
        let hits = crate::lsp::rename_coverage::word_positions(&text, alias).len();
        if hits > 0 && specifier.as_deref().is_some_and(&drop) {
            *dropped += hits;
            out.push_str(&text.replace(alias, new_name));
        } else {
            out.push_str(&text);
        }
        statement.clear();
    };
    for line in content.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if statement.is_empty() && !(trimmed.starts_with("import ") || trimmed.starts_with("import{")) {
            out.push_str(line);
            continue;
        }
        statement.push(line);
        let ends = line.contains(" from ") || line.contains("from '") || line.contains("from \"") || line.trim_end().ends_with(';');
        if ends {
            flush(&mut statement, &mut out, &mut dropped);
        }
    }
    if !statement.is_empty() {
        flush(&mut statement, &mut out, &mut dropped);
    }
    (out, dropped)
}

/// Whether the relative module specifier `specifier` of an import in `importer` names the file
/// `definition` (`'../createSlice'` → `createSlice.ts`, `.tsx`, `.js`, …, or `…/index.ts`).
fn import_resolves_to(importer: &Path, specifier: &str, definition: &Path) -> bool {
    if !specifier.starts_with('.') {
        return false;
    }
    let Some(directory) = importer.parent() else { return false };
    let base = directory.join(specifier);
    let normalize = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let definition = normalize(definition);
    let stem_matches = |candidate: PathBuf| normalize(&candidate) == definition;
    ["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"]
        .iter()
        .any(|extension| stem_matches(base.with_extension(extension)) || stem_matches(base.join(format!("index.{extension}"))))
        || stem_matches(base.clone())
}

/// Asks the server of `root` to rename at the definition (`definition_path`, 0-based `line`,
/// byte column `byte` of `line_text`) and checks its edit under `root`. `Err` says why not, for
/// the answer, and whether the server itself refused.
#[allow(clippy::too_many_arguments)]
fn rename_in_root(
    supervisor: &LspSupervisor,
    server_id: &str,
    root: &Path,
    definition_path: &Path,
    line: u32,
    line_text: &str,
    byte: usize,
    old_name: &str,
    new_name: &str,
    deadline: Instant,
) -> Result<RootPart, RootNotRenamed> {
    let started = Instant::now();
    let lease =
        supervisor.server_for_root(server_id, root, deadline).map_err(|err| format!("its server could not be started: {}", err.message))?;
    let other = &*lease.server;
    let mut notes = lease.notes.clone();
    notes.extend(other.resync_from_disk().note(|path| supervisor.display_path(path)));
    other
        .sync_document(definition_path)
        .map_err(|err| format!("{} could not be given {}: {}", other.id(), supervisor.display_path(definition_path), err.message))?;
    crate::lsp::sibling_roots::open_own_project_file(other, supervisor.workspace_root(), definition_path, false, deadline);
    let readiness = other.wait_until_ready_for_lookups((Instant::now() + supervisor.config().indexing_wait).min(deadline));
    if let Some(note) = readiness.note(other.id()) {
        notes.push(note);
    }
    let character = other.position_encoding().column_from_byte(line_text, byte);
    let params = lsp_types::RenameParams {
        text_document_position: lsp_types::TextDocumentPositionParams {
            text_document: crate::lsp::client::text_document(definition_path),
            position: lsp_types::Position { line, character },
        },
        new_name: new_name.to_owned(),
        work_done_progress_params: Default::default(),
    };
    let edit = match other.request::<lsp_types::request::Rename>(params, deadline) {
        Ok(Some(edit)) => edit,
        Ok(None) => return Err(format!("{} returned no edit (still loading?)", other.id()).into()),
        // A conflict the server names (gopls: "renaming this method … would change the referent
        // of this selection", google/uuid + consumer, trial147 M1) is its refusal: asking again
        // repeats it. Other errors are not (rust-analyzer's "No references found at position"
        // for code its configuration leaves out, a loading server's "no package metadata", a
        // cancellation: recheck of trial147 M1).
        Err(crate::lsp::client::RequestFailure::Server(error)) if names_a_rename_conflict(&error.message) => {
            return Err(RootNotRenamed {
                // (gopls separates its message's parts with tabs.)
                why: format!(
                    "{} answered textDocument/rename with error {}: {}",
                    other.id(),
                    error.code,
                    crate::lsp::go_rename_refusals::deduplicated_gopls_message(&error.message)
                ),
                refused_by_server: true,
            });
        }
        Err(failure) => {
            let err = failure.to_tool_error(other.id(), "textDocument/rename");
            return Err(format!(
                "{}; next step: call lsp_rename again (a warm server answers faster) or give it a longer timeout",
                err.message
            )
            .into());
        }
    };
    // Its own check: a third of what is left, at most 30 s (as the starting root's).
    let left = deadline.saturating_duration_since(Instant::now());
    let check_deadline = (Instant::now() + (left / 3).min(std::time::Duration::from_secs(30))).min(deadline);
    let coverage = crate::lsp::rename_coverage::complete_rename(
        other,
        supervisor.workspace_root(),
        definition_path,
        line,
        character,
        old_name,
        new_name,
        edit,
        check_deadline,
    );
    let plan = plan_workspace_edit(supervisor.workspace_root(), Some(other), &coverage.edit)
        .map_err(|err| format!("its edit could not be planned: {}", err.message))?;
    Ok(RootPart { root: root.to_path_buf(), plan, coverage, elapsed_ms: started.elapsed().as_millis(), notes })
}

/// The start of the first text edit (by position) of each file `edit` changes: (canonical path,
/// 0-based line, character in the server's encoding), in path order.
fn first_edit_per_file(edit: &lsp_types::WorkspaceEdit) -> Vec<(PathBuf, u32, u32)> {
    let mut first: std::collections::BTreeMap<PathBuf, (u32, u32)> = std::collections::BTreeMap::new();
    let mut note = |uri: &lsp_types::Uri, range: &lsp_types::Range| {
        let Some(path) = crate::lsp::uri::lsp_uri_to_path(uri) else { return };
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let start = (range.start.line, range.start.character);
        let entry = first.entry(path).or_insert(start);
        *entry = (*entry).min(start);
    };
    if let Some(changes) = &edit.changes {
        for (uri, edits) in changes {
            for text_edit in edits {
                note(uri, &text_edit.range);
            }
        }
    }
    if let Some(lsp_types::DocumentChanges::Edits(edits)) = &edit.document_changes {
        for document in edits {
            for text_edit in &document.edits {
                let range = match text_edit {
                    lsp_types::OneOf::Left(plain) => plain.range,
                    lsp_types::OneOf::Right(annotated) => annotated.text_edit.range,
                };
                note(&document.text_document.uri, &range);
            }
        }
    }
    if let Some(lsp_types::DocumentChanges::Operations(operations)) = &edit.document_changes {
        for operation in operations {
            if let lsp_types::DocumentChangeOperation::Edit(document) = operation {
                for text_edit in &document.edits {
                    let range = match text_edit {
                        lsp_types::OneOf::Left(plain) => plain.range,
                        lsp_types::OneOf::Right(annotated) => annotated.text_edit.range,
                    };
                    note(&document.text_document.uri, &range);
                }
            }
        }
    }
    first.into_iter().map(|(path, (line, character))| (path, line, character)).collect()
}

/// The other project roots of `definition`'s language related to `root`: those whose
/// directories its manifests name as local dependencies (mapped to the root that serves each)
/// and those that depend on it. Empty for languages without such manifests
/// ([`crate::lsp::sibling_roots::manifest_name`]).
pub fn related_roots(supervisor: &LspSupervisor, definition: &crate::lsp::servers::ServerDefinition, root: &Path) -> Vec<PathBuf> {
    if crate::lsp::sibling_roots::manifest_name(&definition.id).is_none() {
        return Vec::new();
    }
    let mut related: Vec<PathBuf> = Vec::new();
    for dir in supervisor.sibling_dependency_dirs(&definition.id, root) {
        let Some(found) = crate::lsp::servers::find_root(definition, supervisor.workspace_root(), &dir.join(".runbound-probe")).root else {
            continue;
        };
        if found != root && !related.contains(&found) {
            related.push(found);
        }
    }
    for dependent in supervisor.dependent_roots(&definition.id, root).roots {
        if dependent != root && !related.contains(&dependent) {
            related.push(dependent);
        }
    }
    related
}

/// Whether a server's error answer to `textDocument/rename` names a conflict in its own code
/// (the new name would be captured, shadow, or clash with a declaration): gopls' "would change
/// the referent", "conflicts with", "would shadow", "already declared"; rust-analyzer's and
/// others' "conflict"/"collides". An error that does not is no refusal (see [`rename_in_root`]).
fn names_a_rename_conflict(message: &str) -> bool {
    let message = message.to_lowercase();
    ["would change the referent", "conflict", "would shadow", "already declared", "collides", "would be shadowed"]
        .iter()
        .any(|sign| message.contains(sign))
}

#[cfg(test)]
mod tests {
    use super::names_a_rename_conflict;

    #[test]
    fn only_a_named_conflict_is_a_refusal() {
        assert!(names_a_rename_conflict(
            "renaming this method \"URN\" to \"Label\"\twould change the referent of this selection\tof this method"
        ));
        assert!(names_a_rename_conflict("renaming this func \"F\" to \"G\" would conflict with this declaration"));
        assert!(!names_a_rename_conflict("No references found at position"));
        assert!(!names_a_rename_conflict("no package metadata for file:///w/consumer/main.go"));
        assert!(!names_a_rename_conflict("request cancelled"));
    }
}
