//! A Rust rename that edits a macro call's argument (R-REN-1; issue 11, trial66 M2).
//!
//! rust-analyzer renames a method that a `macro_rules!` template defines by editing the token
//! the macro call passes in: renaming fastrand 2.1.1's `Rng::u32` rewrote
//! `rng_integer!(u32, u32, …)` to `rng_integer!(rand_u32, u32, …)`. The template puts that
//! argument (`$t`) in six places — the method's name, and also `RangeBounds<$t>`, `$t::MIN` —
//! so the expansion changed beyond the renamed name and the crate stopped compiling (10 errors),
//! which the preview did not say; `integer!(u32, …)` in another file, which names the free
//! function `fastrand::u32` with the same argument, was renamed with it.
//! [`macro_argument_warnings`] reads the plan's Rust texts: for each renamed token that is a
//! whole argument of a call of a `macro_rules!` macro defined in the crate, it finds the rule
//! the call matches by its argument count and the metavariable bound at that position, and when
//! the rule's template uses it more than once, it says so at the top of the answer.
//!
//! Limits: the macro is looked for in the file of the call, the plan's other files and the
//! `.rs` files of the crate's `src/` (not in dependencies: their templates are not edited and a
//! call's argument there is no item of the crate); a rule is chosen by its count of top-level
//! comma-separated fragments (the first that fits, as `macro_rules!` tries them in order, without
//! matching literal tokens); a rule with a repetition before the argument is not read.

use std::path::{Path, PathBuf};

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::AstGrep;
use ast_grep_language::SupportLang;

use crate::files::ExpectedState;
use crate::lsp::rename::WorkspaceEditPlan;

/// A Rust syntax tree (the grammar ast-grep bundles).
type RustTree = AstGrep<StrDoc<SupportLang>>;

/// One renamed macro argument whose metavariable the macro's template uses more than once.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ExpandedArgument {
    /// The macro's name (last path segment).
    macro_name: String,
    /// Where the call's renamed argument is: (file shown, 1-based line).
    call: (String, u32),
    /// Where the `macro_rules!` is: (file shown, 1-based line).
    definition: (String, u32),
    /// The metavariable bound to the argument (`$t`).
    metavariable: String,
    /// How many times the chosen rule's template uses it.
    uses: usize,
}

/// One `WARNING: …` line per macro (with each call's file:line, 1-based) whose call's whole
/// argument `old_name` the plan renames to `new_name` while the rule the call matches uses that
/// argument's metavariable more than once in its template; empty when there is none, for other
/// languages, and for a file the plan creates or deletes. `display` turns a path into the
/// workspace-relative form the answer uses.
pub fn macro_argument_warnings(
    workspace_root: &Path,
    plan: &WorkspaceEditPlan,
    old_name: &str,
    new_name: &str,
    display: &dyn Fn(&Path) -> String,
) -> Vec<String> {
    let mut found: Vec<ExpandedArgument> = Vec::new();
    let mut definitions = MacroDefinitions::new(workspace_root, plan);
    for change in &plan.changes {
        if change.path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let (ExpectedState::Content(old_bytes), Some(new_bytes)) = (&change.expected, &change.new_content) else { continue };
        let old_text = String::from_utf8_lossy(old_bytes);
        let new_text = String::from_utf8_lossy(new_bytes);
        let old_lines: Vec<&str> = old_text.split_inclusive('\n').collect();
        let new_lines: Vec<&str> = new_text.split_inclusive('\n').collect();
        if old_lines.len() != new_lines.len() {
            continue;
        }
        let Ok(tree) = RustTree::try_new(old_text.as_ref(), SupportLang::Rust) else { continue };
        let mut line_start = 0usize;
        for (old_line, new_line) in old_lines.iter().zip(&new_lines) {
            let this_line_start = line_start;
            line_start += old_line.len();
            if old_line == new_line {
                continue;
            }
            for (old_bytes, new_bytes) in crate::lsp::rename_coverage::identifier_hunks(old_line, new_line) {
                if &old_line[old_bytes.clone()] != old_name || &new_line[new_bytes] != new_name {
                    continue;
                }
                let start = this_line_start + old_bytes.start;
                let Some((macro_name, index)) = whole_macro_argument_at(&tree, &old_text, start, start + old_name.len()) else { continue };
                let Some((definition_path, definition_line, metavariable, uses)) =
                    definitions.metavariable_uses(&change.path, &macro_name, index)
                else {
                    continue;
                };
                if uses > 1 {
                    let line = old_text[..start].matches('\n').count() as u32 + 1;
                    found.push(ExpandedArgument {
                        macro_name,
                        call: (display(&change.path), line),
                        definition: (display(&definition_path), definition_line),
                        metavariable,
                        uses,
                    });
                }
            }
        }
    }
    let mut warnings = Vec::new();
    let mut said: Vec<(String, (String, u32))> = Vec::new();
    for argument in &found {
        let key = (argument.macro_name.clone(), argument.definition.clone());
        if said.contains(&key) {
            continue;
        }
        said.push(key.clone());
        let calls: Vec<String> = found
            .iter()
            .filter(|other| (other.macro_name.clone(), other.definition.clone()) == key)
            .map(|other| format!("{}:{}", other.call.0, other.call.1))
            .collect();
        warnings.push(format!(
            "WARNING: this rename edits the argument `{old_name}` of {} of `{}!` ({}); the macro (`macro_rules! {}`, {}:{}) puts that argument, `{}`, in {} places of its expansion, not only where it names the renamed symbol — in a type, a path or the name of another item it changes too, which can break the build or rename another symbol with it; to rename only the generated item, edit the macro (or its calls) by hand, and run `cargo check` after accepting",
            crate::render::plural(calls.len(), "call"),
            argument.macro_name,
            calls.join(", "),
            argument.macro_name,
            argument.definition.0,
            argument.definition.1,
            argument.metavariable,
            argument.uses,
        ));
    }
    warnings
}

/// The macro's name and the 0-based index of the top-level argument when the token at bytes
/// `start..end` of `text` is, alone, a whole comma-separated argument of a macro call
/// (`m!(a, TOKEN, b)`); `None` inside a larger argument (`m!(f(TOKEN))`) or outside a call.
fn whole_macro_argument_at(tree: &RustTree, text: &str, start: usize, end: usize) -> Option<(String, usize)> {
    let node = tree.root().get_inner_node().descendant_for_byte_range(start, end)?;
    let arguments = node.parent().filter(|parent| parent.kind() == "token_tree")?;
    let invocation = arguments.parent().filter(|parent| parent.kind() == "macro_invocation")?;
    let macro_name = invocation.child_by_field_name("macro")?.utf8_text(text.as_bytes()).ok()?;
    let macro_name = macro_name.rsplit("::").next()?.trim().to_owned();
    let groups = top_level_groups(arguments);
    // The token alone, or after its attributes (`#[doc = "…"] PI,` in a repeated argument list).
    let index = groups.iter().position(|group| {
        group.last().is_some_and(|last| last.id() == node.id())
            && group[..group.len() - 1].chunks(2).all(|pair| pair.len() == 2 && pair[0].kind() == "#" && pair[1].kind() == "token_tree")
    })?;
    Some((macro_name, index))
}

/// The top-level children of a token tree (delimiters left out) split at `,` tokens; a trailing
/// comma's empty group is dropped.
fn top_level_groups(tree: tree_sitter::Node<'_>) -> Vec<Vec<tree_sitter::Node<'_>>> {
    let mut cursor = tree.walk();
    let children: Vec<tree_sitter::Node<'_>> = tree.children(&mut cursor).collect();
    let inner = children.get(1..children.len().saturating_sub(1)).unwrap_or_default();
    let mut groups: Vec<Vec<tree_sitter::Node<'_>>> = vec![Vec::new()];
    for child in inner {
        if child.kind() == "," {
            groups.push(Vec::new());
        } else if let Some(last) = groups.last_mut() {
            last.push(*child);
        }
    }
    if groups.last().is_some_and(Vec::is_empty) {
        groups.pop();
    }
    groups
}

/// The `macro_rules!` definitions of the files searched, read once each.
struct MacroDefinitions {
    /// Files to search after the call's own: the plan's Rust files, then the crate's `src/`.
    candidates: Vec<PathBuf>,
    workspace_root: PathBuf,
}

impl MacroDefinitions {
    fn new(workspace_root: &Path, plan: &WorkspaceEditPlan) -> MacroDefinitions {
        let candidates =
            plan.changes.iter().map(|change| change.path.clone()).filter(|path| path.extension().is_some_and(|ext| ext == "rs")).collect();
        MacroDefinitions { candidates, workspace_root: workspace_root.to_path_buf() }
    }

    /// For the call of `macro_name` in `call_path` with its argument at `index`: the definition's
    /// file, its 1-based line, the metavariable the first rule with as many top-level fragments
    /// binds there (an `ident` or `tt`), and how many times that rule's template uses it.
    fn metavariable_uses(&mut self, call_path: &Path, macro_name: &str, index: usize) -> Option<(PathBuf, u32, String, usize)> {
        let mut searched: Vec<PathBuf> = Vec::new();
        let crate_sources = crate_source_files(&self.workspace_root, call_path);
        let order = std::iter::once(call_path.to_path_buf()).chain(self.candidates.iter().cloned()).chain(crate_sources);
        for path in order {
            if searched.contains(&path) {
                continue;
            }
            searched.push(path.clone());
            let Ok(text) = crate::files::read_workspace_file_to_string(&self.workspace_root, &path) else { continue };
            if !text.contains("macro_rules!") || !text.contains(macro_name) {
                continue;
            }
            if let Some((line, metavariable, uses)) = metavariable_uses_in(&text, macro_name, index) {
                return Some((path, line, metavariable, uses));
            }
        }
        None
    }
}

/// The `.rs` files under the `src/` beside the nearest Cargo.toml above `path` (up to the
/// workspace root), sorted; empty when there is none or it cannot be listed.
fn crate_source_files(workspace_root: &Path, path: &Path) -> Vec<PathBuf> {
    let mut directory = path.parent();
    while let Some(current) = directory.filter(|current| current.starts_with(workspace_root)) {
        if current.join("Cargo.toml").is_file() {
            let source = current.join("src");
            // Listed beneath a handle of the run's root, no symlink followed (issue 13 §1).
            let walk_root = crate::files::walk_beneath::root_for_walk(workspace_root, &source);
            let Ok(handle) = crate::files::walk_beneath::handle_for_walk(workspace_root, &source) else { return Vec::new() };
            let Ok(start) = source.strip_prefix(walk_root) else { return Vec::new() };
            let options = crate::files::walk_beneath::WalkOptions { hidden: false, skip_names: &["target"] };
            let Ok(files) = crate::files::walk_beneath::list_files_beneath(&handle, start, &options) else { return Vec::new() };
            return files
                .into_iter()
                .filter(|file| file.extension().is_some_and(|ext| ext == "rs"))
                .map(|file| walk_root.join(file))
                .collect();
        }
        directory = current.parent();
    }
    Vec::new()
}

/// In Rust `text`: for `macro_rules! macro_name`, the 1-based line of the definition, the
/// metavariable (`$t`) the first rule with more than `index` top-level fragments binds at
/// `index` — when that fragment is `$name:ident` or `$name:tt` alone and no repetition comes
/// before it — and how many times the rule's template uses it.
fn metavariable_uses_in(text: &str, macro_name: &str, index: usize) -> Option<(u32, String, usize)> {
    let tree = RustTree::try_new(text, SupportLang::Rust).ok()?;
    let bytes = text.as_bytes();
    let mut stack = vec![tree.root().get_inner_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "macro_definition" {
            let named = node.child_by_field_name("name").and_then(|name| name.utf8_text(bytes).ok()) == Some(macro_name);
            if named {
                let line = node.start_position().row as u32 + 1;
                let mut cursor = node.walk();
                let rules: Vec<tree_sitter::Node<'_>> = node.children(&mut cursor).filter(|child| child.kind() == "macro_rule").collect();
                for rule in &rules {
                    let (Some(left), Some(right)) = (rule.child_by_field_name("left"), rule.child_by_field_name("right")) else { continue };
                    let groups = top_level_groups(left);
                    // A rule that repeats its arguments (`$(#[$doc:meta] $constant:ident,)+`):
                    // the `ident` bound inside the repetition, counted in the template (trial71
                    // F3: num-traits' `float_const_impl!` puts `$constant` in `fn $constant()` and
                    // in `$T::consts::$constant`).
                    if groups.len() == 1 && groups[0].len() == 1 && groups[0][0].kind().contains("repetition") {
                        if let Some((metavariable, uses)) = repeated_ident_binding(groups[0][0], right, bytes) {
                            return Some((line, metavariable, uses));
                        }
                        continue;
                    }
                    if groups.len() <= index || groups[..index].iter().flatten().any(|token| token.kind().contains("repetition")) {
                        continue;
                    }
                    let group = &groups[index];
                    let binding = match group.as_slice() {
                        [binding] if binding.kind() == "token_binding_pattern" => *binding,
                        _ => return None,
                    };
                    let fragment = binding.child_by_field_name("type").and_then(|kind| kind.utf8_text(bytes).ok())?;
                    if fragment != "ident" && fragment != "tt" {
                        return None;
                    }
                    let metavariable = binding.child_by_field_name("name").and_then(|name| name.utf8_text(bytes).ok())?.to_owned();
                    let uses = count_metavariable(right, bytes, &metavariable);
                    return Some((line, metavariable, uses));
                }
                return None;
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    None
}

/// In a repetition pattern (`$(#[$doc:meta] $constant:ident,)+`): the one `$name:ident` it binds
/// and how many times `template` uses it; `None` when it binds no or several idents.
fn repeated_ident_binding(repetition: tree_sitter::Node<'_>, template: tree_sitter::Node<'_>, bytes: &[u8]) -> Option<(String, usize)> {
    let mut idents: Vec<String> = Vec::new();
    let mut stack = vec![repetition];
    while let Some(node) = stack.pop() {
        if node.kind() == "token_binding_pattern" {
            let fragment = node.child_by_field_name("type").and_then(|kind| kind.utf8_text(bytes).ok());
            if fragment == Some("ident") {
                idents.push(node.child_by_field_name("name")?.utf8_text(bytes).ok()?.to_owned());
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    match idents.as_slice() {
        [only] => Some((only.clone(), count_metavariable(template, bytes, only))),
        _ => None,
    }
}

/// How many `metavariable` nodes spelled `name` lie under `node`.
fn count_metavariable(node: tree_sitter::Node<'_>, bytes: &[u8], name: &str) -> usize {
    let mut count = 0;
    let mut stack = vec![node];
    while let Some(current) = stack.pop() {
        if current.kind() == "metavariable" && current.utf8_text(bytes).ok() == Some(name) {
            count += 1;
        }
        let mut cursor = current.walk();
        stack.extend(current.children(&mut cursor));
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(path: &Path, old: &str, new: &str) -> crate::files::FileChange {
        crate::files::FileChange {
            path: path.to_path_buf(),
            new_content: Some(new.as_bytes().to_vec()),
            expected: ExpectedState::Content(old.as_bytes().to_vec()),
        }
    }

    #[test]
    fn a_renamed_macro_argument_the_template_uses_again_is_warned_of() {
        // trial66 M2: fastrand 2.1.1's `rng_integer!` and `integer!`.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"fastrand\"\nversion = \"0.1.0\"\n").unwrap();
        let lib = "macro_rules! rng_integer {\n    ($t:tt, $unsigned_t:tt, $doc:tt) => {\n        #[doc = $doc]\n        pub fn $t(&mut self, range: impl RangeBounds<$t>) -> $t {\n            let _ = core::$t::MIN;\n            0\n        }\n    };\n}\n\nmacro_rules! named {\n    ($name:ident) => {\n        pub fn $name() {}\n    };\n}\n\npub struct Rng;\n\nimpl Rng {\n    rng_integer!(\n        u32,\n        u32,\n        \"A u32.\"\n    );\n}\n\nnamed!(u32);\nassert_eq!(u32(), ());\n";
        std::fs::write(root.join("src/lib.rs"), lib).unwrap();
        let other = "integer!(u32, \"The global one.\");\n";
        std::fs::write(root.join("src/global.rs"), other).unwrap();
        let macros = "macro_rules! integer {\n    ($t:tt, $doc:tt) => {\n        pub fn $t(range: impl RangeBounds<$t>) -> $t {\n            with_rng(|r| r.$t(range))\n        }\n    };\n}\n";
        std::fs::write(root.join("src/macros.rs"), macros).unwrap();
        let renamed_lib = lib
            .replacen("        u32,\n        u32,", "        rand_u32,\n        u32,", 1)
            .replace("named!(u32)", "named!(rand_u32)")
            .replace("assert_eq!(u32()", "assert_eq!(rand_u32()");
        let plan = WorkspaceEditPlan {
            changes: vec![
                change(&root.join("src/lib.rs"), lib, &renamed_lib),
                change(&root.join("src/global.rs"), other, &other.replace("u32,", "rand_u32,")),
            ],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let display = |path: &Path| path.strip_prefix(&root).unwrap().display().to_string();
        let warnings = macro_argument_warnings(&root, &plan, "u32", "rand_u32", &display);
        assert_eq!(warnings.len(), 2, "{warnings:#?}");
        assert!(warnings[0].starts_with("WARNING: this rename edits the argument `u32` of 1 call of `rng_integer!` (src/lib.rs:21); the macro (`macro_rules! rng_integer`, src/lib.rs:1) puts that argument, `$t`, in 4 places of its expansion"), "{warnings:#?}");
        // The macro of another file is found in the crate's sources.
        assert!(warnings[1].starts_with("WARNING: this rename edits the argument `u32` of 1 call of `integer!` (src/global.rs:1); the macro (`macro_rules! integer`, src/macros.rs:1) puts that argument, `$t`, in 4 places"), "{warnings:#?}");
        // `named!` uses its argument once (only the name), and `assert_eq!(u32(), …)` passes a
        // call, not a whole argument: neither is warned of.
        assert!(!warnings.iter().any(|warning| warning.contains("named!") || warning.contains("assert_eq!")), "{warnings:#?}");
    }
}
