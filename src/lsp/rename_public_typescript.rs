//! What a TypeScript rename does to an npm package's public API (R-REN-1; issue 11, trial30 M5,
//! trial31 M4).
//!
//! tsserver renames an exported declaration everywhere in the program, and a barrel's `export *`
//! carries the new name out of the package: renaming zod 3.25.76's `looseObject`
//! (`src/v4/classic/schemas.ts`, reached from the package entry `zod/v4` through
//! `classic/external.ts` `export * from "./schemas.js"` and `classic/index.ts`) removed
//! `z.looseObject` for every user of the package, and the answer said nothing — where Python,
//! Rust and Go renames name the public path and the alias that keeps it.
//!
//! [`typescript_public_api_notes`] reads the plan's old text of the file that declares the name
//! (an `export function/const/class/interface/type/enum/namespace OLD`, or a local `export { OLD }`
//! list), finds the nearest `package.json` (a package marked `"private": true` has no users
//! outside the workspace: no note), maps its entry points (`exports` — every target of every
//! condition —, `main`, `module`, `types`, `typings`, `source`) to source files (a target that
//! is no `.ts` file is tried as `src/…` with a source extension: `./dist/index.js` →
//! `src/index.ts`; else `src/index.ts`), and walks the re-exports from each entry
//! (`export * from`, `export * as ns from`, `export { … OLD … } from`) to the declaring file.
//! A hop `export { OLD } from` that the plan rewrites to `export { NEW as OLD } from` keeps the
//! public name: no note. Imports re-exported by a later `export { x }` are not followed.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use crate::lsp::rename::WorkspaceEditPlan;

/// The first directories of entry targets that hold build output, mapped to `src/`.
const BUILD_DIRECTORIES: &[&str] = &["dist", "lib", "build", "out", "esm", "cjs", "types", "dts"];

/// Files walked from the entry points before giving up.
const MAX_MODULES_WALKED: usize = 2_000;

/// The most declarations one folded member note names; the rest are counted.
const FOLDED_NAMED: usize = 6;

/// The fewest member changes of one package that [`fold_member_notes`] says in one note.
const FOLDED_AT_LEAST: usize = 3;

/// A `note: public API changed: …` of a TypeScript rename, from
/// [`typescript_public_api_notes`]: said as is, or a renamed member of an exported declaration,
/// which [`fold_member_notes`] folds with the others of its package.
#[derive(Debug, Clone)]
pub(crate) enum TypescriptApiNote {
    /// A note said as is.
    Said(String),
    /// A renamed member of an exported declaration.
    Member(ExportedMemberChange),
}

/// A member of an exported interface, class, object, … renamed (`RowSorting.createTable`).
#[derive(Debug, Clone)]
pub(crate) struct ExportedMemberChange {
    /// `path:line` (1-based) of the member's declaration, as shown.
    pub place: String,
    /// The declaration's kind as said (`interface`, `object`, `class`).
    pub kind: String,
    /// The declaration's name (`RowSorting`).
    pub owner: String,
    /// The npm package that exports the declaration (`@tanstack/table-core`).
    pub package_name: String,
    /// The import path (`@tanstack/table-core`, `pkg/sub`).
    pub import_path: String,
    /// The member's path within the declaration before the rename (`createTable`).
    pub member_path: String,
    /// The member's path after the rename (`setupTable`).
    pub renamed_path: String,
    /// The whole note, said when the change is not folded.
    pub note: String,
}

/// The notes to say: each [`TypescriptApiNote::Said`] as is, and the member changes of one
/// package, import path and member path said in one note when there are at least
/// [`FOLDED_AT_LEAST`] of them — the member once, then each declaration with its file:line,
/// interfaces and classes first, at most [`FOLDED_NAMED`] named and the rest counted (trial168
/// M1: renaming `TableFeature.createTable` in @tanstack/table-core gave 15 notes of ~560
/// characters each, one per feature object, before the answer). The folded note stands where
/// its group's first member note stood.
pub(crate) fn fold_member_notes(notes: Vec<TypescriptApiNote>) -> Vec<String> {
    let group_key = |change: &ExportedMemberChange| {
        (change.package_name.clone(), change.import_path.clone(), change.member_path.clone(), change.renamed_path.clone())
    };
    let mut group_sizes: std::collections::HashMap<(String, String, String, String), usize> = std::collections::HashMap::new();
    for note in &notes {
        if let TypescriptApiNote::Member(change) = note {
            *group_sizes.entry(group_key(change)).or_default() += 1;
        }
    }
    let mut said: Vec<String> = Vec::new();
    let mut folded: std::collections::HashMap<(String, String, String, String), usize> = std::collections::HashMap::new();
    let mut members_of: Vec<Vec<ExportedMemberChange>> = Vec::new();
    // Where each folded group's note goes: its index in `said`, and its members.
    let mut folded_at: Vec<usize> = Vec::new();
    for note in notes {
        match note {
            TypescriptApiNote::Said(line) => said.push(line),
            TypescriptApiNote::Member(change) => {
                let key = group_key(&change);
                if group_sizes.get(&key).copied().unwrap_or(0) < FOLDED_AT_LEAST {
                    said.push(change.note);
                    continue;
                }
                let group = *folded.entry(key).or_insert_with(|| {
                    members_of.push(Vec::new());
                    folded_at.push(said.len());
                    said.push(String::new());
                    members_of.len() - 1
                });
                members_of[group].push(change);
            }
        }
    }
    for (group, mut members) in members_of.into_iter().enumerate() {
        // Interfaces, classes and types before objects and instances: the contract first.
        members.sort_by_key(|change| !matches!(change.kind.as_str(), "interface" | "class" | "abstract class" | "type"));
        let first = &members[0];
        let mut kinds: Vec<(String, usize)> = Vec::new();
        for change in &members {
            match kinds.iter_mut().find(|(kind, _)| *kind == change.kind) {
                Some((_, count)) => *count += 1,
                None => kinds.push((change.kind.clone(), 1)),
            }
        }
        let kinds_said: Vec<String> =
            kinds.iter().map(|(kind, count)| crate::render::plural(*count, &format!("exported {kind}"))).collect();
        let named: Vec<String> =
            members.iter().take(FOLDED_NAMED).map(|change| format!("{} `{}` ({})", change.kind, change.owner, change.place)).collect();
        let more = if members.len() > FOLDED_NAMED { format!(" and {} more", members.len() - FOLDED_NAMED) } else { String::new() };
        said[folded_at[group]] = format!(
            "note: public API changed: this rename changes the member `{}` of {} that the package `{}` exports from `{}` — {}{more} — each `X.{}` becomes `X.{}`, and code outside this workspace that uses the member breaks; no export keeps a member's old name: keep the old member for a while (delegating or marked `@deprecated`), or say the break in the changelog",
            first.member_path,
            kinds_said.join(" and "),
            first.package_name,
            first.import_path,
            named.join(", "),
            first.member_path,
            first.renamed_path,
        );
    }
    said
}

/// The `note: public API changed: …` line when `path`'s old text (`old_lines`, changed at
/// `changed`, 0-based) exports `old_name` and the package's entry points re-export it; empty
/// otherwise (see the module doc). Member changes stay apart, for [`fold_member_notes`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn typescript_public_api_notes(
    workspace_root: &Path,
    plan: &WorkspaceEditPlan,
    path: &Path,
    shown: &str,
    old_lines: &[&str],
    changed: &[usize],
    old_name: &str,
    new_name: &str,
) -> Vec<TypescriptApiNote> {
    // The server kept the public name in this file (`export { NEW as OLD }`): said, since the
    // rename then changes no package export here (trial34 M5: `replaceDeep as replaceEqualDeep`).
    let kept = format!("{new_name} as {old_name}");
    let new_text = planned_text(plan, path);
    let kept_at = changed
        .iter()
        .copied()
        // As whole words: `export { bound as clampNumber }` does not keep `clamp` (trial89 F4).
        .find(|&index| {
            new_text.lines().nth(index).is_some_and(|line| crate::lsp::position::contains_word(line, &kept))
                && !crate::lsp::position::contains_word(old_lines[index], &kept)
        });
    if let Some(index) = kept_at {
        // The server kept the export yet renamed importers of the old name (it does so while an
        // `export default` names the same binding): they now import a name the module does not
        // export (trial74 F1: graphql-request's `request`, TS2614 in the importer; the note had
        // said importers "keep working and are not renamed").
        let renamed_importers = importers_renamed_to(workspace_root, plan, path, old_name, new_name);
        if !renamed_importers.is_empty() {
            return vec![TypescriptApiNote::Said(format!(
                "WARNING: {shown}:{} now reads `{kept}` — the module keeps exporting `{old_name}` — yet this rename also changes the imports of `{old_name}` in {} to `{new_name}`, which the module does not export: they break (TS2614); after accepting, rename the export too (`{new_name}` alone) or restore those imports",
                index + 1,
                renamed_importers.join(", ")
            ))];
        }
        return vec![TypescriptApiNote::Said(format!(
            "note: public name kept: {shown}:{} now reads `{kept}`: the server kept the export `{old_name}`, so code that imports `{old_name}` from this module keeps working and is not renamed — rename that export too (`{new_name}` alone) if the public name should change",
            index + 1
        ))];
    }
    // A line that still declares the old name after the rename kept its export: the edit there
    // renamed something else on it (trial41 F1: immer's `export const produce: IProduce =
    // immer.produce`, where renaming the class member `Immer.produce` edits the right-hand side;
    // the note said the export was replaced and its alias advice broke the build).
    let new_lines: Vec<&str> = new_text.lines().collect();
    let declared = changed.iter().find_map(|&index| {
        let kind = exported_declaration(old_lines[index], old_name)?;
        let still_declared = new_lines.get(index).is_some_and(|line| exported_declaration(line, old_name).is_some());
        (!still_declared).then_some((index, kind))
    });
    let Some((index, kind)) = declared else {
        if let Some(note) = export_specifier_note(workspace_root, plan, path, shown, old_lines, changed, old_name, new_name) {
            return vec![TypescriptApiNote::Said(note)];
        }
        return member_notes(workspace_root, plan, path, shown, old_lines, changed, old_name, new_name);
    };
    let Some((package_dir, package_name, entries)) = package_entries(workspace_root, path) else { return Vec::new() };
    let Some(route) = route_to(workspace_root, plan, &package_dir, &entries, path, old_name) else { return Vec::new() };
    let (import_path, through) = route.describe(workspace_root, &package_name);
    // In an export list the exported name changed while its local binding may not have (`export
    // {Immer}` became `export {Immer as ImmerX}`): the alias names the local binding the new line
    // exports (trial41 F1: `export { ImmerX as Immer }` named no binding of the file).
    let local = if kind == "export list" {
        new_lines
            .get(index)
            .and_then(|line| listed_export_pairs(line).into_iter().find_map(|(local, exported)| (exported == new_name).then_some(local)))
    } else {
        None
    };
    let local = local.unwrap_or_else(|| new_name.to_owned());
    let aliased = if local == old_name { old_name.to_owned() } else { format!("{local} as {old_name}") };
    // A type and a value of the same name (`export type Maybe<T> = …` beside `export const
    // Maybe = …`), both renamed: `export type` would keep only the type, and code that uses the
    // value breaks (trial89 F2: true-myth's `Maybe.nothing()`, TS1362); a plain `export` keeps
    // both meanings of the name.
    let value_too = (kind == "type" || kind == "interface")
        && changed.iter().any(|&other| {
            other != index
                && exported_declaration(old_lines[other], old_name)
                    .is_some_and(|other_kind| other_kind != "type" && other_kind != "interface")
                && new_lines.get(other).is_none_or(|line| exported_declaration(line, old_name).is_none())
        });
    let keep = if (kind == "type" || kind == "interface") && !value_too {
        format!("`export type {{ {aliased} }};`")
    } else {
        format!("`export {{ {aliased} }};`")
    };
    let kind = if value_too { format!("{kind} and value") } else { kind.to_owned() };
    vec![TypescriptApiNote::Said(format!(
        "note: public API changed: {shown}:{} exports the {kind} `{old_name}`, which the package `{package_name}` exports as `{old_name}` from `{import_path}`{} (through {}) — this rename replaces it with `{new_name}`, and code outside this workspace that imports the old name breaks; to keep it, also add {keep} in {shown}",
        index + 1,
        if route.namespace.is_empty() { String::new() } else { format!(" (as `{}.{old_name}`)", route.namespace.join(".")) },
        through,
    ))]
}

/// The note when a changed line holds an export specifier — in an export list, with or without
/// `from`, over any number of lines — that published `old_name` and now publishes `new_name`
/// (`isDraft,` → `isDraft as isDraftX,` in immer's entry `export { … } from "./internal"`),
/// and the package's entry points reach that file: the package export changes, which the
/// preview had not said (trial70 F4: 100 tests importing `isDraft` failed). `None` otherwise.
#[allow(clippy::too_many_arguments)]
fn export_specifier_note(
    workspace_root: &Path,
    plan: &WorkspaceEditPlan,
    path: &Path,
    shown: &str,
    old_lines: &[&str],
    changed: &[usize],
    old_name: &str,
    new_name: &str,
) -> Option<String> {
    let old_text = old_lines.join("\n");
    let new_text = planned_text(plan, path);
    let old_specifiers = export_specifiers(path, &old_text)?;
    let new_specifiers = export_specifiers(path, &new_text)?;
    let (line, taken, source) = changed.iter().find_map(|&index| {
        let before = old_specifiers.iter().find(|specifier| specifier.line == index && specifier.published == old_name)?;
        new_specifiers
            .iter()
            .any(|specifier| specifier.line == index && specifier.published == new_name)
            .then(|| (index, before.taken.clone(), before.source.clone()))
    })?;
    let (package_dir, package_name, entries) = package_entries(workspace_root, path)?;
    let route = route_to(workspace_root, plan, &package_dir, &entries, path, old_name)?;
    let (import_path, through) = route.describe(workspace_root, &package_name);
    let aliased = if taken == old_name { old_name.to_owned() } else { format!("{taken} as {old_name}") };
    let from = source.map_or_else(String::new, |source| format!(" from {source}"));
    Some(format!(
        "note: public API changed: {shown}:{} exports `{old_name}`, which the package `{package_name}` exports as `{old_name}` from `{import_path}`{} (through {through}) — this rename makes that export `{new_name}` (the binding it names keeps its name), and code that imports `{old_name}` from the package, or from this module, breaks; to keep it, also add `export {{ {aliased} }}{from};` in {shown}",
        line + 1,
        if route.namespace.is_empty() { String::new() } else { format!(" (as `{}.{old_name}`)", route.namespace.join(".")) },
    ))
}

/// One export specifier of a TypeScript/JavaScript file (see [`export_specifiers`]).
struct ExportSpecifier {
    /// 0-based line of the specifier.
    line: usize,
    /// The local or imported name it takes (`isDraft` in `isDraft as isDraftX`).
    taken: String,
    /// The name it publishes (`isDraftX`).
    published: String,
    /// The statement's module specifier with its quotes (`"./internal"`), for a re-export.
    source: Option<String>,
}

/// The local names `text` (a TypeScript/JavaScript file at `path`) exports under their own
/// name through an export list without `from` (`export { MaybeImpl }`).
fn local_export_names(path: &Path, text: &str) -> Vec<String> {
    export_specifiers(path, text)
        .unwrap_or_default()
        .into_iter()
        .filter(|specifier| specifier.source.is_none() && specifier.taken == specifier.published)
        .map(|specifier| specifier.taken)
        .collect()
}

/// Every export specifier of `text` (a TypeScript/JavaScript file at `path`); `None` when no
/// bundled grammar parses it.
fn export_specifiers(path: &Path, text: &str) -> Option<Vec<ExportSpecifier>> {
    use ast_grep_core::tree_sitter::StrDoc;
    use ast_grep_core::Language;
    let language = ast_grep_language::SupportLang::from_path(path)?;
    let tree = ast_grep_core::AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(text, language).ok()?;
    let bytes = text.as_bytes();
    let text_of = |node: tree_sitter::Node<'_>| node.utf8_text(bytes).ok().map(str::to_owned);
    let mut found = Vec::new();
    let mut stack = vec![tree.root().get_inner_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "export_specifier" {
            let taken = node.child_by_field_name("name").and_then(text_of);
            let published = node.child_by_field_name("alias").and_then(text_of).or_else(|| taken.clone());
            let source = node
                .parent()
                .and_then(|clause| clause.parent())
                .filter(|statement| statement.kind() == "export_statement")
                .and_then(|statement| statement.child_by_field_name("source"))
                .and_then(text_of);
            if let (Some(taken), Some(published)) = (taken, published) {
                found.push(ExportSpecifier { line: node.start_position().row, taken, published, source });
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    Some(found)
}

/// The places (`file:line`) of import statements in the plan's other TypeScript/JavaScript files
/// that the plan changes from importing `old_name` to importing `new_name`.
fn importers_renamed_to(workspace_root: &Path, plan: &WorkspaceEditPlan, path: &Path, old_name: &str, new_name: &str) -> Vec<String> {
    let mut found = Vec::new();
    for change in &plan.changes {
        if change.path == path || !crate::lsp::syntax::is_typescript_family(&change.path) {
            continue;
        }
        let (crate::files::ExpectedState::Content(old_bytes), Some(new_bytes)) = (&change.expected, &change.new_content) else { continue };
        let old_text = String::from_utf8_lossy(old_bytes);
        let new_text = String::from_utf8_lossy(new_bytes);
        for (index, (old_line, new_line)) in old_text.lines().zip(new_text.lines()).enumerate() {
            let importing = |line: &str| line.trim_start().starts_with("import ") && line.contains(" from ");
            // Only an import from the module that kept the export (trial32: `import {
            // getErrorShape } from './error'`, the declaring module, is rightly renamed).
            let from_kept_module = old_line.rsplit(" from ").next().is_some_and(|rest| {
                let specifier = rest.trim().trim_end_matches(';').trim_matches(['\'', '"']);
                specifier.starts_with('.') && change.path.parent().is_some_and(|directory| same_module(&directory.join(specifier), path))
            });
            // Only a named import (`import { X } from …`): a default import's binding is the
            // importer's own name for the default export, which the rename leaves as it was
            // (trial84 F3: superjson's `import SuperJSON from '.'` → `import SJ from '.'`, said
            // to break with TS2614; tsc had 0 errors).
            let named = |line: &str, name: &str| {
                let (Some(open), Some(close)) = (line.find('{'), line.find('}')) else { return false };
                crate::lsp::rename_coverage::word_positions(line, name).iter().any(|&at| open < at && at < close)
            };
            if old_line != new_line
                && importing(old_line)
                && from_kept_module
                && named(old_line, old_name)
                && named(new_line, new_name)
                && !new_line.contains(&format!("{old_name} as {new_name}"))
            {
                found.push(format!("{}:{}", crate::render::display_path(workspace_root, &change.path), index + 1));
            }
        }
    }
    found
}

/// Whether the module specifier resolved to `target` (`src/./index.js`, no extension, a
/// directory's `index`) names the file `path`, compared as the importer walk compares them
/// ([`crate::lsp::project_scope::module_key`]).
fn same_module(target: &Path, path: &Path) -> bool {
    use crate::lsp::project_scope::module_key;
    module_key(&crate::files::path::lexically_normal(target)) == module_key(&crate::files::path::lexically_normal(path))
}

/// `path`'s text after `plan` (empty when the plan does not write it or deletes it).
fn planned_text(plan: &WorkspaceEditPlan, path: &Path) -> String {
    plan.changes
        .iter()
        .find(|change| change.path == path)
        .and_then(|change| change.new_content.as_ref())
        .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
        .unwrap_or_default()
}

/// The note when the rename changes a member of an exported declaration the package's entry
/// points reach (`SortingColumn.getSortingFn`, a key of `export const filterFns = {…}`): the
/// exported shape changes, and no alias keeps a member's old name (trial33 M1).
#[allow(clippy::too_many_arguments)]
fn member_notes(
    workspace_root: &Path,
    plan: &WorkspaceEditPlan,
    path: &Path,
    shown: &str,
    old_lines: &[&str],
    changed: &[usize],
    old_name: &str,
    new_name: &str,
) -> Vec<TypescriptApiNote> {
    let old_text = old_lines.join("\n");
    let Some(parsed) = crate::lsp::syntax::ParsedSource::parse(path, &old_text) else { return Vec::new() };
    let new_text = planned_text(plan, path);
    let new_lines: Vec<&str> = new_text.lines().collect();
    // Every member declaration on a changed line whose own name the edit renamed: a line may
    // also hold the name in another role (trial37 F1: `setState: Store<T>['setState']` declares
    // `StoreActionsFactory.setState`, which stays; only the indexed-access key changed, and the
    // member that did change, `Store.setState`, was never named).
    let mut members: Vec<(usize, String, &'static str, String, bool, crate::lsp::syntax::MemberAccess)> = Vec::new();
    // Lines whose renamed member is private (`private`, `#name`): no code outside its class can
    // use it, so no public API changes (trial160 M2: `private _trailing` was said to break users).
    let mut private_lines: Vec<usize> = Vec::new();
    let mut locally_exported: Option<Vec<String>> = None;
    for &index in changed {
        let Some(old_line) = old_lines.get(index) else { continue };
        for column in crate::lsp::rename_coverage::word_positions(old_line, old_name) {
            let character = old_line[..column].chars().count() as u32;
            // An unexported declaration's member is public too when an exported type of the
            // file extends it (true-myth's `class MaybeImpl`, published as `interface Just<T>
            // extends MaybeImpl<T>`): the route below finds which.
            let Some(crate::lsp::syntax::TopLevelDeclarationMember { owner, kind, column: at, path: member_path, exported, access }) =
                parsed.member_of_top_level_declaration_from(index as u32, character, old_name)
            else {
                continue;
            };
            if at != column {
                continue;
            }
            if access == crate::lsp::syntax::MemberAccess::Private {
                private_lines.push(index);
                continue;
            }
            // Edits before it on the line shift it; the same declaration reads NEW there now
            // when its name was renamed.
            let renamed = new_lines.get(index).is_some_and(|new_line| {
                crate::lsp::rename_coverage::word_positions(new_line, new_name).iter().any(|&new_at| {
                    let before_old = &old_line[..column];
                    let before_new = &new_line[..new_at];
                    before_old.replace(old_name, new_name) == before_new || before_old == before_new
                })
            });
            // An `export { Owner }` list exports it under its own name too; otherwise only the
            // types extending it can carry it out of the module.
            let exported = exported || locally_exported.get_or_insert_with(|| local_export_names(path, &old_text)).contains(&owner);
            if renamed && !members.iter().any(|(_, known, _, _, _, _)| *known == owner) {
                members.push((index, owner, kind, member_path, exported, access));
            }
        }
    }
    let Some((package_dir, package_name, entries)) = package_entries(workspace_root, path) else { return Vec::new() };
    let mut notes = Vec::new();
    for (index, owner, kind, member_path, exported, access) in members.into_iter().take(3) {
        // A protected member: only subclasses outside the workspace use it.
        let protected = access == crate::lsp::syntax::MemberAccess::Protected;
        // `range.startIndex` for a property of a member's type: its parent path stays.
        let renamed_path = match member_path.rsplit_once('.') {
            Some((parents, _)) => format!("{parents}.{new_name}"),
            None => new_name.to_owned(),
        };
        let Some(route) = exported.then(|| route_to(workspace_root, plan, &package_dir, &entries, path, &owner)).flatten() else {
            // Not exported itself, but a type of this file that extends it is: its members are
            // that type's too (trpc 10.45.2: `RuntimeConfig.errorFormatter`, inherited by the
            // exported `RootConfig`, is an option of `initTRPC.create`, trial54 F3).
            let extending = parsed.typescript_declarations_extending(&owner);
            let Some((subtype, route)) = extending
                .iter()
                .find_map(|subtype| route_to(workspace_root, plan, &package_dir, &entries, path, subtype).map(|route| (subtype, route)))
            else {
                continue;
            };
            let (import_path, through) = route.describe(workspace_root, &package_name);
            notes.push(TypescriptApiNote::Said(format!(
                "note: public API changed: {shown}:{} declares `{old_name}`, a {}member of the {kind} `{owner}`, which the exported `{subtype}` extends — the package `{package_name}` exports `{subtype}` from `{import_path}` (through {through}) — this rename changes `{subtype}.{member_path}` to `{subtype}.{renamed_path}` too, and {} outside this workspace that {} the member {}; no export keeps a member's old name: keep the old member for a while (marked `@deprecated`), or say the break in the changelog",
                index + 1,
                if protected { "protected " } else { "" },
                if protected { format!("only subclasses of `{subtype}`") } else { "code".to_owned() },
                if protected { "use or override" } else { "uses" },
                if protected { "break (other code cannot use a protected member)" } else { "breaks" },
            )));
            continue;
        };
        let (import_path, through) = route.describe(workspace_root, &package_name);
        let what = match member_path.rsplit_once('.') {
            Some((parents, _)) => format!("a property in the type of `{owner}.{parents}`, part of the exported {kind} `{owner}`"),
            None if protected => format!("a protected member of the exported {kind} `{owner}`"),
            None => format!("a member of the exported {kind} `{owner}`"),
        };
        let users = if protected {
            format!("only subclasses of `{owner}` outside this workspace that use or override the member break (other code cannot use a protected member)")
        } else {
            "code outside this workspace that uses the member breaks".to_owned()
        };
        let note = format!(
            "note: public API changed: {shown}:{} declares `{old_name}`, {what}, which the package `{package_name}` exports from `{import_path}` (through {}) — this rename changes `{owner}.{member_path}` to `{owner}.{renamed_path}`, and {users}; no export keeps a member's old name: keep the old member for a while (delegating or marked `@deprecated`), or say the break in the changelog",
            index + 1,
            through,
        );
        // A plain member of the declaration itself folds with the others of its package.
        if protected || member_path.contains('.') {
            notes.push(TypescriptApiNote::Said(note));
        } else {
            notes.push(TypescriptApiNote::Member(ExportedMemberChange {
                place: format!("{shown}:{}", index + 1),
                kind: kind.to_owned(),
                owner,
                package_name: package_name.clone(),
                import_path,
                member_path,
                renamed_path,
                note,
            }));
        }
    }
    if notes.is_empty() {
        let package = (package_dir.as_path(), package_name.as_str(), entries.as_slice());
        let changed: Vec<usize> = changed.iter().copied().filter(|index| !private_lines.contains(index)).collect();
        return instance_member_notes(workspace_root, plan, path, shown, old_lines, &changed, old_name, new_name, &parsed, package)
            .into_iter()
            .map(TypescriptApiNote::Said)
            .collect();
    }
    notes
}

/// The note when the rename changes a member of the values of a class or function that the
/// module exports an instance of (`export const focusManager = new FocusManager()`, `export
/// const notifyManager = createNotifyManager()` whose object literal has the member) and the
/// package's entry points reach that instance: `focusManager.setFocused` is what dependents call
/// (trial46 F6: no note, while members of exported classes got one). The class or function
/// itself need not be exported from the package. `package` is what [`package_entries`] read for
/// `path` (directory, name, entry points).
#[allow(clippy::too_many_arguments)]
fn instance_member_notes(
    workspace_root: &Path,
    plan: &WorkspaceEditPlan,
    path: &Path,
    shown: &str,
    old_lines: &[&str],
    changed: &[usize],
    old_name: &str,
    new_name: &str,
    parsed: &crate::lsp::syntax::ParsedSource,
    (package_dir, package_name, entries): (&Path, &str, &[(String, PathBuf)]),
) -> Vec<String> {
    let new_text = planned_text(plan, path);
    let new_lines: Vec<&str> = new_text.lines().collect();
    for &index in changed {
        // The declaration's own name renamed on this line (not another role of the word).
        let renamed_here = old_lines.get(index).is_some_and(|line| crate::lsp::position::contains_word(line, old_name))
            && new_lines.get(index).is_some_and(|line| crate::lsp::position::contains_word(line, new_name));
        if !renamed_here {
            continue;
        }
        let Some(container) = parsed.typescript_member_container_name(index as u32, old_name) else { continue };
        let constructed = [format!("new {container}("), format!("new {container}<"), format!("{container}(")];
        for line in old_lines {
            let Some(rest) = line.trim_start().strip_prefix("export const ").or_else(|| line.trim_start().strip_prefix("export let "))
            else {
                continue;
            };
            let instance: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
            let Some((_, value)) = rest.split_once('=') else { continue };
            if instance.is_empty() || !constructed.iter().any(|shape| value.trim_start().starts_with(shape.as_str())) {
                continue;
            }
            let Some(route) = route_to(workspace_root, plan, package_dir, entries, path, &instance) else { continue };
            let (import_path, through) = route.describe(workspace_root, package_name);
            let owner = if value.trim_start().starts_with("new ") {
                format!("a member of the class `{container}`, and the package `{package_name}` exports an instance of it")
            } else {
                format!("a member of the object `{container}` returns, and the package `{package_name}` exports one")
            };
            return vec![format!(
                "note: public API changed: {shown}:{} declares `{old_name}`, {owner} as `{instance}` from `{import_path}` (through {through}) — this rename changes `{instance}.{old_name}` to `{instance}.{new_name}`, and code outside this workspace that calls it breaks; no export keeps a member's old name: keep the old member for a while (delegating or marked `@deprecated`), or say the break in the changelog",
                index + 1,
            )];
        }
    }
    Vec::new()
}

/// What `line` (old text) declares when it exports `name`: `function`, `class`, `interface`,
/// `type`, `enum`, `namespace`, `variable`, or `export list` for a local `export { … name … }`.
fn exported_declaration(line: &str, name: &str) -> Option<&'static str> {
    let rest = line.trim_start().strip_prefix("export")?;
    if !rest.starts_with([' ', '{', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    if rest.starts_with('{') || rest.starts_with("type {") {
        // A local export list (no `from`: a re-export is the barrel's business).
        let listed = rest.split('}').next().unwrap_or("");
        let exports_name = listed.split(',').any(|entry| {
            let words: Vec<&str> = entry.split_whitespace().filter(|word| *word != "{" && *word != "type").collect();
            // `OLD` or `x as OLD` publishes OLD; `OLD as x` publishes x.
            words.last().is_some_and(|last| last.trim_matches(['{', '}']) == name)
        });
        return (exports_name && !line.contains(" from ")).then_some("export list");
    }
    let mut words = rest.split(|c: char| c.is_whitespace() || c == '<' || c == '(' || c == '=' || c == ':' || c == '{');
    let mut word = words.next()?;
    while matches!(word, "default" | "declare" | "abstract" | "async" | "const" | "") {
        if word == "const" {
            // `export const enum E`, else `export const NAME`.
            let next = words.next()?;
            if next == "enum" {
                return (words.find(|word| !word.is_empty())? == name).then_some("enum");
            }
            return (next == name).then_some("variable");
        }
        word = words.next()?;
    }
    let kind = match word {
        "function" | "function*" => "function",
        "class" => "class",
        "interface" => "interface",
        "type" => "type",
        "enum" => "enum",
        "namespace" | "module" => "namespace",
        "let" | "var" => "variable",
        _ => return None,
    };
    let declared = words.find(|word| !word.is_empty())?.trim_start_matches('*');
    (declared == name).then_some(kind)
}

/// A package's directory, its `name`, and its entry points as (subpath, source file).
type PackageEntries = (PathBuf, String, Vec<(String, PathBuf)>);

/// The nearest `package.json` above `path` (within the workspace): its directory, its `name`,
/// and its entry points as (subpath, source file). `None` for a private package, one without a
/// name, or when no entry maps to a source file.
fn package_entries(workspace_root: &Path, path: &Path) -> Option<PackageEntries> {
    package_entries_where(workspace_root, path, &|candidate: &Path| candidate.is_file())
}

/// [`package_entries`] with `exists` saying which source files exist (those a write deleted
/// too, to find the entry points it moved away).
fn package_entries_where(workspace_root: &Path, path: &Path, exists: &dyn Fn(&Path) -> bool) -> Option<PackageEntries> {
    package_entries_of(workspace_root, path, exists, false)
}

/// [`package_entries_where`], with `private_too` giving a private package's entry points as well
/// (a workspace package another one imports through its `node_modules` link).
fn package_entries_of(workspace_root: &Path, path: &Path, exists: &dyn Fn(&Path) -> bool, private_too: bool) -> Option<PackageEntries> {
    let mut directory = path.parent();
    while let Some(current) = directory.filter(|current| current.starts_with(workspace_root)) {
        if let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &current.join("package.json")) {
            let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
            if !private_too && manifest.get("private").and_then(serde_json::Value::as_bool) == Some(true) {
                return None;
            }
            let name = manifest.get("name")?.as_str()?.to_owned();
            let mut targets: Vec<(String, String)> = Vec::new();
            match manifest.get("exports") {
                Some(serde_json::Value::Object(map)) if map.keys().any(|key| key.starts_with('.')) => {
                    for (subpath, target) in map {
                        collect_targets(subpath, target, &mut targets);
                    }
                }
                Some(exports) => collect_targets(".", exports, &mut targets),
                None => {}
            }
            for field in ["main", "module", "types", "typings", "source"] {
                if let Some(target) = manifest.get(field).and_then(serde_json::Value::as_str) {
                    targets.push((".".to_owned(), target.to_owned()));
                }
            }
            let mut entries: Vec<(String, PathBuf)> = Vec::new();
            for (subpath, target) in targets {
                if subpath.contains('*') || target.contains('*') {
                    continue;
                }
                if let Some(source) = source_of_target(current, &target, exists) {
                    if !entries.iter().any(|(known_subpath, known)| *known_subpath == subpath && *known == source) {
                        entries.push((subpath, source));
                    }
                }
            }
            if entries.is_empty() {
                let fallback = current.join("src/index.ts");
                if exists(&fallback) {
                    entries.push((".".to_owned(), fallback));
                }
            }
            return (!entries.is_empty()).then_some((current.to_path_buf(), name, entries));
        }
        directory = current.parent();
    }
    None
}

/// Every string target under an `exports` value (conditions and arrays walked), with its subpath.
fn collect_targets(subpath: &str, value: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match value {
        serde_json::Value::String(target) => out.push((subpath.to_owned(), target.clone())),
        serde_json::Value::Array(items) => items.iter().for_each(|item| collect_targets(subpath, item, out)),
        serde_json::Value::Object(map) => map.values().for_each(|item| collect_targets(subpath, item, out)),
        _ => {}
    }
}

/// The source file an entry target names: itself when it is a `.ts`/`.tsx`/`.mts`/`.cts` source,
/// else the same path under `src/` (the first directory replaced) with a source extension.
fn source_of_target(package_dir: &Path, target: &str, exists: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    let relative = Path::new(target.trim_start_matches("./"));
    let direct = crate::files::path::lexically_normal(&package_dir.join(relative));
    let is_declaration = target.ends_with(".d.ts") || target.ends_with(".d.mts") || target.ends_with(".d.cts");
    if !is_declaration && matches!(direct.extension().and_then(|e| e.to_str()), Some("ts" | "tsx" | "mts" | "cts")) && exists(&direct) {
        return Some(direct);
    }
    if target.ends_with(".json") {
        return None;
    }
    // `./dist/index.js` → `src/index.ts`; `./v4/index.js` → `src/v4/index.ts`.
    let mut components = relative.components();
    let first = components.next().map(|first| first.as_os_str().to_string_lossy().into_owned()).unwrap_or_default();
    let under_src = if BUILD_DIRECTORIES.contains(&first.as_str()) {
        package_dir.join("src").join(components.as_path())
    } else {
        package_dir.join("src").join(relative)
    };
    resolve_module_where(&under_src, exists)
        .or_else(|| resolve_module_where(&direct, exists).filter(|found| !found.to_string_lossy().ends_with(".d.ts")))
}

/// The TypeScript source file a module path (a specifier joined to its directory, or an entry
/// target) names: with `.js`/`.mjs`/`.cjs`/`.d.ts` swapped for a source extension, with one
/// added, or its `index`.
pub(crate) fn resolve_module(path: &Path) -> Option<PathBuf> {
    resolve_module_where(path, &|candidate: &Path| candidate.is_file())
}

/// How an entry point reaches the declaring file.
struct Route {
    /// The entry's subpath in `exports` (`.`, `./v4`).
    subpath: String,
    /// The files from the entry to the declaring one (both included).
    chain: Vec<PathBuf>,
    /// Namespaces it is reached under (`export * as util from`).
    namespace: Vec<String>,
}

impl Route {
    /// The import path the route's entry is reached by (`zod/v4`) and its chain of files
    /// (`src/v4/index.ts → … → src/v4/classic/schemas.ts`), from the workspace root.
    fn describe(&self, workspace_root: &Path, package_name: &str) -> (String, String) {
        let import_path =
            if self.subpath == "." { package_name.to_owned() } else { format!("{package_name}/{}", self.subpath.trim_start_matches("./")) };
        let through: Vec<String> = self.chain.iter().map(|file| crate::render::display_path(workspace_root, file)).collect();
        (import_path, through.join(" → "))
    }
}

/// The shortest route of re-exports from an entry of `entries` to `target` that carries `name`
/// under its own name; `None` when there is none (within [`MAX_MODULES_WALKED`] files).
fn route_to(
    workspace_root: &Path,
    plan: &WorkspaceEditPlan,
    package_dir: &Path,
    entries: &[(String, PathBuf)],
    target: &Path,
    name: &str,
) -> Option<Route> {
    let target = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
    let mut queue: VecDeque<Route> = entries
        .iter()
        .map(|(subpath, file)| Route { subpath: subpath.clone(), chain: vec![file.clone()], namespace: Vec::new() })
        .collect();
    let mut seen: HashSet<(PathBuf, Vec<String>)> = HashSet::new();
    let mut walked = 0usize;
    while let Some(route) = queue.pop_front() {
        let file = route.chain.last()?.clone();
        let canonical = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if canonical == target {
            return Some(route);
        }
        if !seen.insert((canonical, route.namespace.clone())) || !file.starts_with(package_dir) {
            continue;
        }
        walked += 1;
        if walked > MAX_MODULES_WALKED {
            return None;
        }
        let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &file) else { continue };
        let new_text = plan
            .changes
            .iter()
            .find(|change| change.path == file)
            .and_then(|change| change.new_content.as_ref())
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned());
        for reexport in reexports(&text) {
            let carries = match &reexport.names {
                None => true,
                Some(names) => {
                    names.iter().any(|listed| listed == name)
                        && !new_text.as_deref().is_some_and(|new_text| new_text.contains(&format!(" as {name}")))
                }
            };
            if !carries {
                continue;
            }
            let directory = file.parent().unwrap_or(package_dir);
            let Some(next) = resolve_module(&crate::files::path::lexically_normal(&directory.join(&reexport.specifier))) else { continue };
            let mut chain = route.chain.clone();
            chain.push(next);
            let mut namespace = route.namespace.clone();
            namespace.extend(reexport.namespace.clone());
            queue.push_back(Route { subpath: route.subpath.clone(), chain, namespace });
        }
    }
    None
}

/// One re-export statement of a module.
struct Reexport {
    /// The relative specifier (`./schemas.js`).
    specifier: String,
    /// `export * as ns from`: the namespace.
    namespace: Option<String>,
    /// `export { a, b as c } from`: the names it takes from the module under their own name
    /// (`a`); `None` for `*`.
    names: Option<Vec<String>>,
    /// `export { a, b as c } from`: (taken, published) pairs, `(a, a)` and `(b, c)`.
    pairs: Vec<(String, String)>,
}

/// The relative re-exports of a module's text (`export * from`, `export * as ns from`,
/// `export { … } from`, also `export type { … } from`), statements over several lines included.
fn reexports(text: &str) -> Vec<Reexport> {
    let mut found = Vec::new();
    let mut local_lists: Vec<String> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index].trim_start();
        index += 1;
        let Some(rest) = line.strip_prefix("export") else { continue };
        let rest = rest.trim_start();
        let rest = rest.strip_prefix("type ").map(str::trim_start).unwrap_or(rest);
        if !(rest.starts_with('*') || rest.starts_with('{')) {
            continue;
        }
        // The statement: a list up to its closing `}` (over several lines), then what follows
        // it on that line (`from "…"`, or nothing: a local `export { x };`).
        let mut statement = rest.to_owned();
        if rest.starts_with('{') {
            while !statement.contains('}') && index < lines.len() && statement.len() < 20_000 {
                statement.push(' ');
                statement.push_str(lines[index].trim());
                index += 1;
            }
        }
        let tail_start = if rest.starts_with('{') { statement.find('}').map_or(statement.len(), |at| at + 1) } else { 1 };
        let Some(at) = statement[tail_start..].find("from").map(|at| at + tail_start) else {
            // A local export list (`export { x, y as z };`): read below for namespace imports.
            if rest.starts_with('{') {
                local_lists.push(statement);
            }
            continue;
        };
        let after = statement[at + 4..].trim_start();
        let Some(quote) = after.chars().next().filter(|quote| matches!(quote, '"' | '\'')) else { continue };
        let Some(end) = after[1..].find(quote) else { continue };
        let specifier = after[1..1 + end].to_owned();
        if !specifier.starts_with('.') {
            continue;
        }
        let head = &statement[..at];
        let pairs = if head.trim_start().starts_with('*') { Vec::new() } else { listed_export_pairs(head) };
        let (namespace, names) = if head.trim_start().starts_with('*') {
            let namespace = head.split_once(" as ").map(|(_, alias)| alias.trim().to_owned()).filter(|alias| !alias.is_empty());
            (namespace, None)
        } else {
            let listed = head.trim().trim_start_matches('{').trim_end().trim_end_matches('}');
            let names = listed
                .split(',')
                .filter_map(|entry| {
                    let entry = entry.trim().trim_start_matches("type ").trim();
                    let taken = entry.split_whitespace().next()?;
                    // `x as y`: the module's `x` is exported as `y` — it carries `x` only
                    // when published under that same name.
                    match entry.split_once(" as ") {
                        Some((_, alias)) if alias.trim() != taken => None,
                        _ => Some(taken.to_owned()),
                    }
                })
                .collect();
            (None, Some(names))
        };
        found.push(Reexport { specifier, namespace, names, pairs });
    }
    // `import * as Pattern from "./patterns"` and a local `export { Pattern as P }`: the module is
    // published as the namespace `P` (trial97 F1: ts-pattern's `P.select`, renamed with no
    // public-API note, and 141 test errors followed).
    let namespace_imports: Vec<(String, String)> = lines
        .iter()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("import")?.trim_start();
            let rest = rest.strip_prefix("type ").map(str::trim_start).unwrap_or(rest);
            let rest = rest.strip_prefix('*')?.trim_start().strip_prefix("as")?.trim_start();
            let local: String = rest.chars().take_while(|c| crate::lsp::position::is_identifier_char(*c)).collect();
            let after = rest[local.len()..].trim_start().strip_prefix("from")?.trim_start();
            let quote = after.chars().next().filter(|quote| matches!(quote, '"' | '\''))?;
            let specifier = &after[1..1 + after[1..].find(quote)?];
            (!local.is_empty() && specifier.starts_with('.')).then(|| (local, specifier.to_owned()))
        })
        .collect();
    for statement in &local_lists {
        for (taken, published) in listed_export_pairs(statement) {
            if let Some((_, specifier)) = namespace_imports.iter().find(|(local, _)| *local == taken) {
                found.push(Reexport { specifier: specifier.clone(), namespace: Some(published), names: None, pairs: Vec::new() });
            }
        }
    }
    found
}

/// The names an export list publishes (`{ a, type B, c as d }` → `a`, `B`, `d`).
fn listed_export_names(list: &str) -> Vec<String> {
    listed_export_pairs(list).into_iter().map(|(_, published)| published).collect()
}

/// The (taken, published) names of an export list (`{ a, type B, c as d }` → `(a, a)`, `(B,
/// B)`, `(c, d)`); `default` is left out.
fn listed_export_pairs(list: &str) -> Vec<(String, String)> {
    let inner = list.split('{').nth(1).unwrap_or("").split('}').next().unwrap_or("");
    inner
        .split(',')
        .filter_map(|entry| {
            let entry = entry.trim().trim_start_matches("type ").trim();
            let (taken, published) = entry.rsplit_once(" as ").map_or((entry, entry), |(taken, alias)| (taken.trim(), alias.trim()));
            (!published.is_empty() && published != "default").then(|| (taken.to_owned(), published.to_owned()))
        })
        .collect()
}

/// The name a top-level `export` declaration line publishes (`export function f`, `export
/// const x`, `export abstract class C`, `export type T`, …); `None` for other lines.
fn declared_export_name(line: &str) -> Option<String> {
    let rest = line.strip_prefix("export ")?;
    let mut words = rest.split(|c: char| c.is_whitespace() || matches!(c, '<' | '(' | '=' | ':' | '{' | ';' | ','));
    let mut word = words.next()?;
    while matches!(word, "declare" | "abstract" | "async" | "") {
        word = words.next()?;
    }
    if word == "const" || word == "enum" {
        let next = words.find(|word| !word.is_empty())?;
        if next != "enum" {
            return Some(next.to_owned());
        }
        return words.find(|word| !word.is_empty()).map(str::to_owned);
    }
    matches!(word, "function" | "function*" | "class" | "interface" | "type" | "let" | "var" | "namespace")
        .then(|| words.find(|word| !word.is_empty()).map(|name| name.trim_start_matches('*').to_owned()))
        .flatten()
}

/// The text of `path` after `plan` (its new content; `None` when the plan deletes it), else on
/// disk.
fn text_after(workspace_root: &Path, plan: Option<&WorkspaceEditPlan>, path: &Path) -> Option<String> {
    if let Some(change) = plan.and_then(|plan| plan.changes.iter().find(|change| change.path == path)) {
        return change.new_content.as_ref().map(|bytes| String::from_utf8_lossy(bytes).into_owned());
    }
    crate::files::read_workspace_file_to_string(workspace_root, path).ok()
}

/// Every name `entry` exports (its own `export` declarations and lists, and through `export *`
/// / `export * as ns` / `export { … } from` of relative modules, recursively — a name a named
/// re-export takes counts only when its module exports it), read after `plan` when given (its
/// new texts and created files), else from the disk.
fn exported_names(workspace_root: &Path, plan: Option<&WorkspaceEditPlan>, entry: &Path) -> std::collections::BTreeSet<String> {
    let mut memo: std::collections::HashMap<PathBuf, std::collections::BTreeSet<String>> = std::collections::HashMap::new();
    let mut visiting: HashSet<PathBuf> = HashSet::new();
    module_exports(workspace_root, plan, entry, &mut memo, &mut visiting)
}

/// [`exported_names`] of one module, memoised; a module met again while it is being read (an
/// export cycle) counts as exporting nothing more.
fn module_exports(
    workspace_root: &Path,
    plan: Option<&WorkspaceEditPlan>,
    file: &Path,
    memo: &mut std::collections::HashMap<PathBuf, std::collections::BTreeSet<String>>,
    visiting: &mut HashSet<PathBuf>,
) -> std::collections::BTreeSet<String> {
    if let Some(known) = memo.get(file) {
        return known.clone();
    }
    let mut names = std::collections::BTreeSet::new();
    if !visiting.insert(file.to_path_buf()) || visiting.len() > MAX_MODULES_WALKED {
        return names;
    }
    let exists = |candidate: &Path| match plan.and_then(|plan| plan.changes.iter().find(|change| change.path == candidate)) {
        Some(change) => change.new_content.is_some(),
        None => candidate.is_file(),
    };
    if let Some(text) = text_after(workspace_root, plan, file) {
        for line in text.lines() {
            let trimmed = line.trim_start();
            if let Some(name) = declared_export_name(trimmed) {
                names.insert(name);
            } else if (trimmed.starts_with("export {") || trimmed.starts_with("export type {"))
                && !trimmed.contains(" from ")
                && trimmed.contains('}')
            {
                names.extend(listed_export_names(trimmed));
            }
        }
        let directory = file.parent().unwrap_or(file).to_path_buf();
        for reexport in reexports(&text) {
            let base = crate::files::path::lexically_normal(&directory.join(&reexport.specifier));
            let target = resolve_module_where(&base, &exists);
            if let Some(namespace) = &reexport.namespace {
                if target.is_some() {
                    names.insert(namespace.clone());
                }
                continue;
            }
            let Some(target) = target else { continue };
            let target_names = module_exports(workspace_root, plan, &target, memo, visiting);
            if reexport.names.is_none() {
                names.extend(target_names.into_iter().filter(|name| name != "default"));
            } else {
                for (taken, published) in &reexport.pairs {
                    if target_names.contains(taken) {
                        names.insert(published.clone());
                    }
                }
            }
        }
    }
    visiting.remove(file);
    memo.insert(file.to_path_buf(), names.clone());
    names
}

/// The source file the module specifier `specifier` of an import in `importer` names: a relative
/// one beside the importer ([`resolve_module`]); a bare one (`@trpc/server/unstable-core-do-not-import`)
/// through the package's `node_modules/<name>` link in a directory above the importer (a
/// workspace package linked by yarn or npm), to the entry of its `exports` for that subpath,
/// mapped to its source as [`package_entries`] maps entries. `None` when the package is not
/// linked inside the workspace, or no entry of that subpath maps to a source file (trial172 F1).
pub(crate) fn import_entry_source(workspace_root: &Path, importer: &Path, specifier: &str) -> Option<PathBuf> {
    let directory = importer.parent()?;
    if specifier.starts_with('.') {
        return resolve_module(&crate::files::path::lexically_normal(&directory.join(specifier)));
    }
    let mut segments = specifier.splitn(if specifier.starts_with('@') { 3 } else { 2 }, '/');
    let package_name =
        if specifier.starts_with('@') { format!("{}/{}", segments.next()?, segments.next()?) } else { segments.next()?.to_owned() };
    let subpath = segments.next().map_or_else(|| ".".to_owned(), |rest| format!("./{rest}"));
    let canonical_root = std::fs::canonicalize(workspace_root).unwrap_or_else(|_| workspace_root.to_path_buf());
    let mut current = Some(directory);
    while let Some(dir) = current.filter(|dir| dir.starts_with(workspace_root)) {
        let linked = dir.join("node_modules").join(&package_name);
        if linked.join("package.json").is_file() {
            let package_dir = std::fs::canonicalize(&linked).ok()?;
            // The package's own directory inside the workspace (the link's target), as the
            // plan names its files.
            let package_dir = workspace_root.join(package_dir.strip_prefix(&canonical_root).ok()?);
            let (_, _, entries) =
                package_entries_of(workspace_root, &package_dir.join("package.json"), &|candidate: &Path| candidate.is_file(), true)?;
            return entries.into_iter().find(|(entry_subpath, _)| *entry_subpath == subpath).map(|(_, source)| source);
        }
        current = dir.parent();
    }
    None
}

/// Whether the module `entry` exports `old_name` before `plan` and, after it, no longer exports
/// it but exports `new_name`: an import of `old_name` from it breaks (TS2724), and importing
/// `new_name` mends it — the shape of an entry that re-exports the renamed declaration through
/// `export *` (trial172 F1: `@trpc/server/unstable-core-do-not-import`).
pub(crate) fn entry_exports_only_the_new_name(
    workspace_root: &Path,
    plan: &WorkspaceEditPlan,
    entry: &Path,
    old_name: &str,
    new_name: &str,
) -> bool {
    let after = exported_names(workspace_root, Some(plan), entry);
    !after.contains(old_name) && after.contains(new_name) && exported_names(workspace_root, None, entry).contains(old_name)
}

/// [`resolve_module`] with `exists` saying which candidate files exist.
fn resolve_module_where(path: &Path, exists: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    let text = path.to_string_lossy();
    let mut stem: &str = &text;
    for extension in [".d.ts", ".d.mts", ".d.cts", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"] {
        if let Some(stripped) = stem.strip_suffix(extension) {
            stem = stripped;
            break;
        }
    }
    [".ts", ".tsx", ".mts", ".cts", "/index.ts", "/index.tsx"]
        .iter()
        .map(|suffix| PathBuf::from(format!("{stem}{suffix}")))
        .find(|candidate| exists(candidate))
}

/// The warning when `plan` removes names from what a (non-private) npm package's entry points
/// export — a move to another file that no barrel re-exports, a deleted export — which no
/// compiler run inside the package can see (trial33 M6: "Move to a new file" on table-core's
/// `functionalUpdate` dropped it from the package's exports). `None` when nothing is lost.
pub(crate) fn exports_lost_warning(workspace_root: &Path, plan: &WorkspaceEditPlan) -> Option<String> {
    lost_exports_warning(workspace_root, plan, None, Some(plan))
}

/// [`exports_lost_warning`] after the write: `old_texts` are the written files' texts before it
/// (the disk holds their new texts). An `edit`, `write` or `apply_patch` that drops a package
/// export is said like a code action's (trial35 M4). `None` when no name is lost.
pub(crate) fn exports_lost_by_write(workspace_root: &Path, old_texts: &[(PathBuf, String)]) -> Option<String> {
    let before = WorkspaceEditPlan {
        changes: old_texts
            .iter()
            .map(|(path, text)| crate::files::FileChange {
                path: path.clone(),
                new_content: Some(text.clone().into_bytes()),
                expected: crate::files::ExpectedState::Any,
            })
            .collect(),
        files: Vec::new(),
        moved_directories: Vec::new(),
    };
    lost_exports_warning(workspace_root, &before, Some(&before), None)
}

/// The warning for the names the package's entry points export read with `before` but not with
/// `after` (each a plan of texts over the disk's, or the disk itself); `touched` names the
/// changed files.
fn lost_exports_warning(
    workspace_root: &Path,
    touched: &WorkspaceEditPlan,
    before_plan: Option<&WorkspaceEditPlan>,
    after_plan: Option<&WorkspaceEditPlan>,
) -> Option<String> {
    let first = touched
        .changes
        .iter()
        .map(|change| &change.path)
        .find(|path| matches!(path.extension().and_then(|ext| ext.to_str()), Some("ts" | "tsx" | "mts" | "cts")))?;
    // An entry point the write moved or deleted is still an entry point (trial43 F2: moving
    // @tanstack/virtual-core's src/index.ts to src/core.ts left every export unreachable, and
    // no note said so): files in the plan before the write count as existing.
    let existed: std::collections::HashSet<&Path> =
        before_plan.map(|plan| plan.changes.iter().map(|change| change.path.as_path()).collect()).unwrap_or_default();
    let exists = |candidate: &Path| candidate.is_file() || existed.contains(candidate);
    let (_, package_name, entries) = package_entries_where(workspace_root, first, &exists)?;
    let mut lost: Vec<String> = Vec::new();
    for (subpath, entry) in &entries {
        let before = exported_names(workspace_root, before_plan, entry);
        let after = exported_names(workspace_root, after_plan, entry);
        let import_path =
            if subpath == "." { package_name.clone() } else { format!("{package_name}/{}", subpath.trim_start_matches("./")) };
        for name in before.difference(&after) {
            let item = format!("`{name}` (from `{import_path}`)");
            if !lost.contains(&item) {
                lost.push(item);
            }
        }
    }
    if lost.is_empty() {
        return None;
    }
    let shown: Vec<&str> = lost.iter().take(8).map(String::as_str).collect();
    Some(format!(
        "this edit removes {} from what the package `{package_name}` exports: {}{} — its entry points no longer reach {} (a move to a file no barrel re-exports, or a removed export); code outside this workspace that imports {} breaks, and no compiler run here sees that code; an importer inside this workspace that still imports {} from it fails to compile — through a named re-export (`export {{ x }} from`) and through `export *` alike, and the compiler says so: call lsp with {{\"op\": \"diagnostics\", \"file\": \"*\"}} to see whether any is left — re-export {} where {} moved, or say the break in the changelog",
        crate::render::plural(lost.len(), "name"),
        shown.join(", "),
        if lost.len() > shown.len() { format!(" and {} more", lost.len() - shown.len()) } else { String::new() },
        crate::render::one_or_many(lost.len(), "it", "them"),
        crate::render::one_or_many(lost.len(), "it", "them"),
        crate::render::one_or_many(lost.len(), "it", "them"),
        crate::render::one_or_many(lost.len(), "it", "them"),
        crate::render::one_or_many(lost.len(), "it", "they"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member_change(place: &str, kind: &str, owner: &str, member: &str) -> TypescriptApiNote {
        TypescriptApiNote::Member(ExportedMemberChange {
            place: place.to_owned(),
            kind: kind.to_owned(),
            owner: owner.to_owned(),
            package_name: "@tanstack/table-core".to_owned(),
            import_path: "@tanstack/table-core".to_owned(),
            member_path: member.to_owned(),
            renamed_path: "setupTable".to_owned(),
            note: format!("note: public API changed: {place} declares `{member}` of `{owner}`"),
        })
    }

    #[test]
    fn many_changes_of_one_member_are_folded_into_one_note_and_few_are_said_each() {
        let mut notes = vec![TypescriptApiNote::Said("note: first".to_owned())];
        for index in 0..8 {
            notes.push(member_change(&format!("src/f{index}.ts:{}", index + 10), "object", &format!("Feature{index}"), "createTable"));
        }
        notes.push(member_change("src/types.ts:110", "interface", "TableFeature", "createTable"));
        notes.push(member_change("src/other.ts:3", "object", "Other", "getValue"));
        let said = fold_member_notes(notes);
        assert_eq!(said.len(), 3, "{said:#?}");
        assert_eq!(said[0], "note: first");
        assert!(
            said[1].starts_with("note: public API changed: this rename changes the member `createTable` of 1 exported interface and 8 exported objects that the package `@tanstack/table-core` exports from `@tanstack/table-core` — interface `TableFeature` (src/types.ts:110), object `Feature0` (src/f0.ts:10), "),
            "{}",
            said[1]
        );
        assert!(
            said[1].contains("object `Feature4` (src/f4.ts:14) and 3 more — each `X.createTable` becomes `X.setupTable`"),
            "{}",
            said[1]
        );
        assert!(!said[1].contains("Feature5"), "{}", said[1]);
        assert_eq!(
            said[2], "note: public API changed: src/other.ts:3 declares `getValue` of `Other`",
            "a member changed once is said as is"
        );
    }

    #[test]
    fn a_namespace_import_exported_from_a_local_list_is_a_namespace_reexport() {
        let text = "import * as Pattern from './patterns';\nexport { match } from './match';\nexport { Pattern, Pattern as P };\n";
        let found = reexports(text);
        let namespaces: Vec<(String, Option<String>)> = found
            .iter()
            .filter(|reexport| reexport.names.is_none())
            .map(|reexport| (reexport.specifier.clone(), reexport.namespace.clone()))
            .collect();
        assert_eq!(namespaces, [("./patterns".to_owned(), Some("Pattern".to_owned())), ("./patterns".to_owned(), Some("P".to_owned()))]);
    }

    #[test]
    fn exported_declarations_and_export_lists() {
        assert_eq!(exported_declaration("export function looseObject<T>(shape: T) {", "looseObject"), Some("function"));
        assert_eq!(exported_declaration("export async function load() {", "load"), Some("function"));
        assert_eq!(exported_declaration("export const ZodType: core.$constructor<ZodType> = 1;", "ZodType"), Some("variable"));
        assert_eq!(exported_declaration("export const enum Kind { A }", "Kind"), Some("enum"));
        assert_eq!(exported_declaration("export abstract class Base {}", "Base"), Some("class"));
        assert_eq!(exported_declaration("export interface Options {", "Options"), Some("interface"));
        assert_eq!(exported_declaration("export type Infer<T> = T;", "Infer"), Some("type"));
        assert_eq!(exported_declaration("export { helper, other as renamed };", "helper"), Some("export list"));
        assert_eq!(exported_declaration("export { helper as renamed };", "helper"), None, "published as `renamed`");
        assert_eq!(exported_declaration("export { helper } from './x';", "helper"), None, "a re-export");
        assert_eq!(exported_declaration("function helper() {}", "helper"), None);
        assert_eq!(exported_declaration("export function helperTwo() {}", "helper"), None);
        assert_eq!(exported_declaration("exports.helper = 1;", "helper"), None);
    }

    #[test]
    fn entry_points_map_to_sources_and_private_packages_have_none() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for file in ["src/index.ts", "src/v4/index.ts", "src/v4/core/util.ts"] {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), "export {};\n").unwrap();
        }
        let manifest = "{\"name\": \"zodlike\", \"main\": \"./dist/index.js\", \"exports\": {\"./package.json\": \"./package.json\", \".\": {\"types\": \"./dist/index.d.ts\"}, \"./v4\": {\"import\": \"./v4/index.js\", \"types\": \"./v4/index.d.cts\"}}}";
        std::fs::write(root.join("package.json"), manifest).unwrap();
        let (package_dir, name, entries) = package_entries(&root, &root.join("src/v4/core/util.ts")).unwrap();
        assert_eq!((package_dir.as_path(), name.as_str()), (root.as_path(), "zodlike"));
        assert_eq!(entries, vec![(".".to_owned(), root.join("src/index.ts")), ("./v4".to_owned(), root.join("src/v4/index.ts"))]);
        std::fs::write(root.join("package.json"), manifest.replace("{\"name\"", "{\"private\": true, \"name\"")).unwrap();
        assert!(package_entries(&root, &root.join("src/v4/core/util.ts")).is_none(), "a private package has no outside users");
    }

    #[test]
    fn a_move_to_a_file_no_barrel_reaches_loses_the_export() {
        use crate::files::{ExpectedState, FileChange};
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("package.json"), "{\"name\": \"tablelike\", \"main\": \"build/lib/index.js\"}").unwrap();
        std::fs::write(root.join("src/index.ts"), "export * from './utils';\nexport { make as build } from './make';\n").unwrap();
        let utils = "export function functionalUpdate() {}\nexport const other = 1;\n";
        std::fs::write(root.join("src/utils.ts"), utils).unwrap();
        std::fs::write(root.join("src/make.ts"), "export function make() {}\n").unwrap();
        assert_eq!(
            exported_names(&root, None, &root.join("src/index.ts")).into_iter().collect::<Vec<_>>(),
            ["build", "functionalUpdate", "other"]
        );
        let change = |path: &str, old: Option<&str>, new: &str| FileChange {
            path: root.join(path),
            new_content: Some(new.as_bytes().to_vec()),
            expected: old.map_or(ExpectedState::Absent, |old| ExpectedState::Content(old.as_bytes().to_vec())),
        };
        let moved = WorkspaceEditPlan {
            changes: vec![
                change("src/utils.ts", Some(utils), "export const other = 1;\n"),
                change("src/functionalUpdate.ts", None, "export function functionalUpdate() {}\n"),
            ],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let warning = exports_lost_warning(&root, &moved).expect("the moved function is no longer exported");
        assert!(warning.contains("`functionalUpdate` (from `tablelike`)"), "{warning}");
        // `export { functionalUpdate } from './utils'` in the barrel, the function moved out:
        // the barrel no longer exports it though it still names it.
        std::fs::write(root.join("src/index.ts"), "export { functionalUpdate, other } from './utils';\n").unwrap();
        let warning = exports_lost_warning(&root, &moved).expect("a named re-export of a name the module no longer exports");
        assert!(warning.contains("`functionalUpdate`"), "{warning}");
        std::fs::write(root.join("src/index.ts"), "export * from './utils';\nexport { make as build } from './make';\n").unwrap();
        let kept = WorkspaceEditPlan {
            changes: vec![
                change("src/utils.ts", Some(utils), "export * from './functionalUpdate';\nexport const other = 1;\n"),
                change("src/functionalUpdate.ts", None, "export function functionalUpdate() {}\n"),
            ],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        assert_eq!(exports_lost_warning(&root, &kept), None, "re-exported where it moved");
    }

    #[test]
    fn reexport_statements_of_a_barrel() {
        let text = "export { z };\nexport * from \"./schemas.js\";\nexport * as util from './util.js';\nexport {\n  a,\n  b as c,\n  type T,\n} from './many';\nexport { z } from 'zod';\nexport const x = 1;\n";
        let found = reexports(text);
        assert_eq!(found.len(), 3);
        assert_eq!((found[0].specifier.as_str(), found[0].namespace.as_deref(), found[0].names.is_none()), ("./schemas.js", None, true));
        assert_eq!((found[1].specifier.as_str(), found[1].namespace.as_deref()), ("./util.js", Some("util")));
        assert_eq!(found[2].specifier, "./many");
        assert_eq!(found[2].names.as_deref(), Some(&["a".to_owned(), "T".to_owned()][..]), "`b as c` carries no `b`");
    }
}
