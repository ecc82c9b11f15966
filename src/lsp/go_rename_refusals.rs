//! gopls's refusals of a rename, said once and readable (trial157 M5).
//!
//! gopls (Debian's 0.11 era) answers a rename it refuses with an error whose message holds one
//! entry per conflict it found, each `renaming this func "NewARC" to "New"` followed by its
//! details after a tab (`\tconflicts with func in same block`). A package with in-package test
//! files is checked twice (the package and its test variant), so the same conflict comes twice,
//! glued together with no separator: `…in same blockrenaming this func …` (golang-lru's
//! `NewARC` → `New`). [`deduplicated_gopls_message`] splits the entries, says each once and
//! turns the tabs into spaces.
//!
//! Nor does this gopls say where the declaration it conflicts with is (`conflicts with func in
//! same block`, `would conflict with this method`): [`conflicting_declarations`] finds the
//! declarations of the new name the renamed one would collide with — in its package for a
//! package-level name, among the methods and fields of its receiver or struct type for a method
//! or field, in its function for a local — from the package's files, and
//! [`gopls_rename_refusal`] names them with the next step.
//!
//! The other way round, gopls accepts a rename it should refuse: a declaration of a non-test
//! file renamed to a name an in-package `_test.go` file declares (trial161 M2) — gopls checks
//! the package without its test files. [`test_file_conflict_refusal`] refuses it the same way,
//! before anything is written.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::error::{ErrorKind, ToolError};
use crate::lsp::client::LanguageServer;
use crate::lsp::supervisor::LspSupervisor;

/// Most conflicting declarations named.
const MAX_DECLARATIONS_NAMED: usize = 3;

/// Most `.go` files of one package read to find them.
const MAX_PACKAGE_FILES_READ: usize = 300;

/// The word that opens each of gopls's rename conflict entries (`renaming this method "Peek" to
/// "Get"`, `renaming "M" to "N" not possible because …`).
const ENTRY_OPENER: &str = "renaming ";

/// gopls's rename error `message` with each conflict entry once, in its first order, entries
/// joined by `"; "` and every run of whitespace (its tabs) made one space. A message with no
/// entry opener is only whitespace-normalized.
pub(crate) fn deduplicated_gopls_message(message: &str) -> String {
    let mut starts: Vec<usize> = message.match_indices(ENTRY_OPENER).map(|(at, _)| at).collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    let mut entries: Vec<String> = Vec::new();
    for (index, start) in starts.iter().enumerate() {
        let end = starts.get(index + 1).copied().unwrap_or(message.len());
        let entry = message[*start..end].split_whitespace().collect::<Vec<_>>().join(" ");
        let entry = entry.trim_end_matches([';', ',']).trim().to_owned();
        if !entry.is_empty() && !entries.contains(&entry) {
            entries.push(entry);
        }
    }
    entries.join("; ")
}

/// Where the renamed Go identifier is declared, as far as its declaration line tells.
#[derive(Debug, Clone, PartialEq, Eq)]
enum DeclarationScope {
    /// A method of this receiver type (`func (c *Cache) Peek(`).
    MethodOf(String),
    /// A field of this struct type.
    FieldOf(String),
    /// A package-level name (func, type, var, const).
    Package,
    /// A name local to the function whose lines (0-based, inclusive) hold it.
    Local(usize, usize),
}

/// The scope of the identifier `name` declared on 0-based line `index` of `lines`.
fn declaration_scope(lines: &[&str], index: usize, name: &str) -> DeclarationScope {
    let line = lines[index];
    if let Some(receiver) = crate::lsp::rename_public_api::go_method_receiver(line) {
        if crate::lsp::rename_public_api::go_declaration(lines, index, name) == Some("method") {
            return DeclarationScope::MethodOf(receiver);
        }
    }
    match crate::lsp::rename_public_api::go_declaration(lines, index, name) {
        Some("field") => {
            if let Some(owner) = crate::lsp::rename_public_api::go_enclosing_type(lines, index) {
                return DeclarationScope::FieldOf(owner);
            }
        }
        Some(_) if !line.starts_with(char::is_whitespace) || !is_keyword_declaration(line) => return DeclarationScope::Package,
        _ => {}
    }
    // Inside a function: from its `func` line to its closing `}` at column 0.
    let start = lines[..=index].iter().rposition(|above| above.starts_with("func "));
    match start {
        Some(start) if !line.starts_with("func ") || start != index => {
            let end = lines[index..].iter().position(|below| *below == "}").map_or(lines.len() - 1, |offset| index + offset);
            DeclarationScope::Local(start, end)
        }
        _ => DeclarationScope::Package,
    }
}

/// Whether the (indented) `line` declares with a keyword (`var x`, `const x`, `type x`): inside a
/// function that is a local declaration, not a block entry of the package.
fn is_keyword_declaration(line: &str) -> bool {
    let trimmed = line.trim_start();
    ["var ", "const ", "type "].iter().any(|keyword| trimmed.starts_with(keyword))
}

/// Whether `line` declares the local `name`: `name :=`, `a, name :=`, `for _, name := range`,
/// `var name`, `const name`, or a parameter or result of a `func` line.
fn declares_local(line: &str, name: &str) -> bool {
    let is_word = |word: &str| word == name;
    let trimmed = line.trim_start();
    for keyword in ["var ", "const "] {
        if let Some(rest) = trimmed.strip_prefix(keyword) {
            // `var a, b int = …`: the names before the type and the value.
            let names = rest.split('=').next().unwrap_or("");
            return names.split(',').filter_map(|part| part.split_whitespace().next()).any(is_word);
        }
    }
    if let Some((left, _)) = trimmed.split_once(":=") {
        let left = left.trim_start_matches("for ").trim_start_matches("if ").trim_start_matches("switch ");
        return left.split(',').map(str::trim).any(is_word);
    }
    if trimmed.starts_with("func") {
        // Parameters and named results: `(a int, name string)`.
        return trimmed
            .split(['(', ')', ','])
            .filter_map(|part| part.split_whitespace().next())
            .any(|word| word == name && trimmed.contains(&format!("{name} ")));
    }
    false
}

/// The declarations of `new_name` that the Go identifier declared at 0-based `line0` of
/// `declaration_file` would collide with once renamed: (file, 0-based line, line text), at most
/// [`MAX_DECLARATIONS_NAMED`], read from the `.go` files of its package (its directory, the same
/// `package` clause). Empty when none is found (a conflict with an imported package's name, a
/// shadowed use in another scope).
pub(crate) fn conflicting_declarations(
    workspace_root: &Path,
    declaration_file: &Path,
    line0: u32,
    old_name: &str,
    new_name: &str,
) -> Vec<(PathBuf, u32, String)> {
    let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, declaration_file) else { return Vec::new() };
    let lines: Vec<&str> = text.lines().collect();
    if line0 as usize >= lines.len() {
        return Vec::new();
    }
    let scope = declaration_scope(&lines, line0 as usize, old_name);
    let package_of = |text: &str| text.lines().find_map(|line| line.strip_prefix("package ")).map(|name| name.trim().to_owned());
    let package = package_of(&text);
    let mut found = Vec::new();
    if let DeclarationScope::Local(start, end) = scope {
        for (index, line) in lines.iter().enumerate().take(end + 1).skip(start) {
            if index != line0 as usize && declares_local(line, new_name) {
                found.push((declaration_file.to_path_buf(), index as u32, line.trim().to_owned()));
            }
        }
        found.truncate(MAX_DECLARATIONS_NAMED);
        return found;
    }
    let Some(directory) = declaration_file.parent() else { return Vec::new() };
    let mut files: Vec<PathBuf> = crate::files::walk_beneath::list_directory(workspace_root, directory)
        .into_iter()
        .filter(|(path, kind)| *kind == rustix::fs::FileType::RegularFile && path.extension().is_some_and(|extension| extension == "go"))
        .map(|(path, _)| path)
        .take(MAX_PACKAGE_FILES_READ)
        .collect();
    files.sort();
    for file in files {
        let Ok(other) = crate::files::read_workspace_file_to_string(workspace_root, &file) else { continue };
        if package_of(&other) != package {
            continue;
        }
        let other_lines: Vec<&str> = other.lines().collect();
        for (index, line) in other_lines.iter().enumerate() {
            if !line.contains(new_name) {
                continue;
            }
            let kind = crate::lsp::rename_public_api::go_declaration(&other_lines, index, new_name);
            let collides = match (&scope, kind) {
                (DeclarationScope::MethodOf(owner) | DeclarationScope::FieldOf(owner), Some("method")) => {
                    crate::lsp::rename_public_api::go_method_receiver(line).as_ref() == Some(owner)
                }
                (DeclarationScope::MethodOf(owner) | DeclarationScope::FieldOf(owner), Some("field")) => {
                    crate::lsp::rename_public_api::go_enclosing_type(&other_lines, index).as_ref() == Some(owner)
                }
                (DeclarationScope::Package, Some("func" | "type" | "var" | "const")) => {
                    !line.starts_with(char::is_whitespace) || !is_keyword_declaration(line)
                }
                _ => false,
            };
            if collides {
                found.push((file.clone(), index as u32, line.trim().to_owned()));
                if found.len() >= MAX_DECLARATIONS_NAMED {
                    return found;
                }
            }
        }
    }
    found
}

/// The declaration of the name asked at (`line0`, `character`) of `path`: the first target of
/// the server's `definition` (file, 0-based line), else the asked position itself (asked at
/// the declaration, or no answer before `deadline`).
fn renamed_declaration(server: &LanguageServer, path: &Path, line0: u32, character: u32, deadline: Instant) -> (PathBuf, u32) {
    crate::lsp::rename_coverage::definition_targets(server, path, line0, character, deadline)
        .into_iter()
        .min()
        .map_or((path.to_path_buf(), line0), |(file, line, _)| (file, line))
}

/// The error for gopls's refusal (`message`) of renaming `old_name` (at 0-based `line0` /
/// `character` of `path`) to `new_name`: its conflicts said once, the declarations of
/// `new_name` they collide with named (file:line and text) when found, and the next step —
/// another name, or renaming that declaration first; for a package with errors, fixing them
/// first. Nothing was changed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gopls_rename_refusal(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    character: u32,
    old_name: &str,
    new_name: &str,
    code: i32,
    message: &str,
    deadline: Instant,
) -> ToolError {
    let said = deduplicated_gopls_message(message);
    let workspace_root = supervisor.workspace_root();
    let mut text = format!("{} refused to rename `{old_name}` to `{new_name}` (textDocument/rename error {code}): {said}", server.id());
    let names_a_conflict = said.contains("conflict") || said.contains("shadow") || said.contains("already declared");
    let declarations = if names_a_conflict {
        let (declaration_file, declaration_line) = renamed_declaration(server, path, line0, character, deadline);
        conflicting_declarations(workspace_root, &declaration_file, declaration_line, old_name, new_name)
    } else {
        Vec::new()
    };
    if !declarations.is_empty() {
        let named: Vec<String> =
            declarations.iter().map(|(file, line, code)| format!("{}:{} `{code}`", supervisor.display_path(file), line + 1)).collect();
        text.push_str(&format!(" — the declaration of `{new_name}` it conflicts with: {}", named.join("; ")));
    }
    text.push_str("; nothing was changed");
    let hint = if said.contains("has errors") {
        "gopls renames nothing in a package that has type errors: `lsp` diagnostics on its files lists them; fix them first — after an interface-method rename, rename the other implementations first (each clears the errors its type caused) — then rename again".to_owned()
    } else if let Some((file, line, _)) = declarations.first() {
        format!(
            "pick another name, or rename `{new_name}` at {}:{} first (`lsp_rename` there), then this one",
            supervisor.display_path(file),
            line + 1
        )
    } else if names_a_conflict {
        "pick another name (`lsp references` at the conflicting name shows where it is used)".to_owned()
    } else {
        "the message above is gopls's reason; nothing was changed".to_owned()
    };
    ToolError::new(ErrorKind::Failed, text).with_hint(hint)
}

/// Whether `path` is a Go test file (`…_test.go`).
fn is_go_test_file(path: &Path) -> bool {
    path.file_name().and_then(|name| name.to_str()).is_some_and(|name| name.ends_with("_test.go"))
}

/// The refusal of a rename gopls accepted although the new name is already declared, in the
/// scope of the renamed declaration, by an in-package test file (`package p` in a `_test.go`
/// file; an external `package p_test` is another package and no conflict): gopls checks a
/// declaration of a non-test file against the package without its test files, so the rename
/// builds but the package's test variant redeclares the name, and `go vet` / `go test` fail
/// (trial161 M2: google/btree's `min` → `perm`, 107 errors, `perm redeclared in this block`;
/// the other direction, asked in the test file, gopls refuses itself). The declaration is
/// found by `definition` at (`line0`, `character`) of `path`; `None` when it is in a test file
/// itself or no test file declares `new_name` in its scope. Nothing was changed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn test_file_conflict_refusal(
    supervisor: &LspSupervisor,
    server: &LanguageServer,
    path: &Path,
    line0: u32,
    character: u32,
    old_name: &str,
    new_name: &str,
    deadline: Instant,
) -> Option<ToolError> {
    if old_name == new_name {
        return None;
    }
    let (declaration_file, declaration_line) = renamed_declaration(server, path, line0, character, deadline);
    if is_go_test_file(&declaration_file) || !declaration_file.starts_with(supervisor.workspace_root()) {
        return None;
    }
    // Also the package's files that the build gopls loads leaves out (`_windows.go`, a tag):
    // gopls does not see their declarations either (recheck47 N1: `minItem` declared in
    // btree_windows.go, `GOOS=windows go vet` failed with "redeclared").
    let (os, arch) = crate::lsp::diagnostics_on_write::host_go_target();
    let outside_build = |file: &Path| {
        let name = file.file_name().and_then(|name| name.to_str()).unwrap_or("");
        crate::files::read_workspace_file_to_string(supervisor.workspace_root(), file)
            .is_ok_and(|text| crate::lsp::go_unbuilt_users::excluded_from_build(name, &text, &os, &arch))
    };
    let in_tests: Vec<(PathBuf, u32, String)> =
        conflicting_declarations(supervisor.workspace_root(), &declaration_file, declaration_line, old_name, new_name)
            .into_iter()
            .filter(|(file, _, _)| is_go_test_file(file) || outside_build(file))
            .collect();
    let only_tests = in_tests.iter().all(|(file, _, _)| is_go_test_file(file));
    let (first_file, first_line, _) = in_tests.first()?;
    let named: Vec<String> =
        in_tests.iter().map(|(file, line, code)| format!("{}:{} `{code}`", supervisor.display_path(file), line + 1)).collect();
    let text = if only_tests {
        format!(
            "refused: renaming `{old_name}` (declared at {}:{}) to `{new_name}` conflicts with the declaration of `{new_name}` in the same package's test {}: {} — {} checks a rename of a declaration in a non-test file against the package without its `_test.go` files and accepted it, but the package's test build would declare `{new_name}` twice (`{new_name} redeclared in this block`), so `go vet` and `go test` would fail; nothing was changed",
            supervisor.display_path(&declaration_file),
            declaration_line + 1,
            crate::render::one_or_many(in_tests.len(), "file", "files"),
            named.join("; "),
            server.id(),
        )
    } else {
        format!(
            "refused: renaming `{old_name}` (declared at {}:{}) to `{new_name}` conflicts with the declaration of `{new_name}` in {} of the same package that {} checks without (test files, or files its build leaves out by their build constraints: another GOOS/GOARCH, a tag): {} — it accepted the rename, but the build that includes {} would declare `{new_name}` twice (`{new_name} redeclared in this block`; e.g. `GOOS=… go vet`); nothing was changed",
            supervisor.display_path(&declaration_file),
            declaration_line + 1,
            crate::render::one_or_many(in_tests.len(), "a file", "files"),
            server.id(),
            named.join("; "),
            crate::render::one_or_many(in_tests.len(), "that file", "those files"),
        )
    };
    let hint = format!(
        "pick another name, or rename `{new_name}` at {}:{} first (`lsp_rename` there), then this one",
        supervisor.display_path(first_file),
        first_line + 1
    );
    Some(ToolError::new(ErrorKind::Failed, text).with_hint(hint))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declaration_a_conflict_names_is_found_by_scope() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("lru.go"), "package lru\n\n// Cache caches.\ntype Cache struct {\n\tlru  int\n\tsize int\n}\n\n// New makes one.\nfunc New(size int) *Cache {\n\treturn &Cache{}\n}\n\n// Get gets.\nfunc (c *Cache) Get() int { return c.lru }\n\n// Peek peeks.\nfunc (c *Cache) Peek() int {\n\tv := c.lru\n\tw, ok := v, true\n\t_ = ok\n\treturn w\n}\n").unwrap();
        std::fs::write(root.join("arc.go"), "package lru\n\n// ARC is another.\ntype ARC struct{}\n\n// NewARC makes one.\nfunc NewARC() *ARC { return &ARC{} }\n\n// Get gets.\nfunc (a *ARC) Get() int { return 0 }\n").unwrap();
        std::fs::write(root.join("x_test.go"), "package lru_test\n\nfunc New() {}\n").unwrap();
        let lru = root.join("lru.go");
        let arc = root.join("arc.go");
        // A package-level func: the other package-level `New`, not the external test package's.
        assert_eq!(
            conflicting_declarations(&root, &arc, 6, "NewARC", "New"),
            vec![(lru.clone(), 9, "func New(size int) *Cache {".to_owned())]
        );
        // A method: the method of the same receiver, not `ARC.Get`.
        assert_eq!(
            conflicting_declarations(&root, &lru, 17, "Peek", "Get"),
            vec![(lru.clone(), 14, "func (c *Cache) Get() int { return c.lru }".to_owned())]
        );
        // A field: the struct's other field.
        assert_eq!(conflicting_declarations(&root, &lru, 4, "lru", "size"), vec![(lru.clone(), 5, "size int".to_owned())]);
        // A local: the other local of its function.
        assert_eq!(conflicting_declarations(&root, &lru, 18, "v", "w"), vec![(lru.clone(), 19, "w, ok := v, true".to_owned())]);
        assert_eq!(conflicting_declarations(&root, &arc, 6, "NewARC", "Fresh"), Vec::new());
    }

    #[test]
    fn a_conflict_gopls_repeats_for_the_test_variant_is_said_once() {
        // golang-lru 0.5.4, `NewARC` → `New` (trial157 M5), as gopls sent it.
        let message = "renaming this func \"NewARC\" to \"New\"\tconflicts with func in same blockrenaming this func \"NewARC\" to \"New\"\tconflicts with func in same block";
        assert_eq!(deduplicated_gopls_message(message), "renaming this func \"NewARC\" to \"New\" conflicts with func in same block");
    }

    #[test]
    fn distinct_entries_stay_in_order_and_a_plain_message_is_only_normalized() {
        let message = "renaming this method \"M\" to \"N\"\twould make *gx/p.A no longer assignable to interface I\t(rename gx/p.I.M if you intend to change both types)renaming this method \"M\" to \"N\"\twould conflict with this method";
        assert_eq!(
            deduplicated_gopls_message(message),
            "renaming this method \"M\" to \"N\" would make *gx/p.A no longer assignable to interface I (rename gx/p.I.M if you intend to change both types); renaming this method \"M\" to \"N\" would conflict with this method"
        );
        assert_eq!(deduplicated_gopls_message("no object found\n"), "no object found");
        assert_eq!(
            deduplicated_gopls_message("renaming \"M\" to \"N\" not possible because \"gx/q\" has errors"),
            "renaming \"M\" to \"N\" not possible because \"gx/q\" has errors"
        );
    }
}
