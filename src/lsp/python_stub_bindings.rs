//! Python modules whose `.pyi` stub binds a name to another declaration than the module does at
//! run time, said beside references and definitions (R-LSP-2; issue 11, trial162 F2).
//!
//! attrs 25.4.0: `src/attrs/__init__.py` has `from attr._next_gen import asdict`, while its stub
//! `src/attrs/__init__.pyi` has `from attr import asdict as asdict` — `attr/__init__.pyi` declares
//! it, standing for `attr/__init__.py`'s `from ._funcs import asdict`. pyright reads the stub, so
//! `attrs.asdict(...)` is a reference of `_funcs.asdict` to it, while Python runs
//! `_next_gen.asdict`. References asked at `_next_gen.asdict` listed 3 (the definition, the import,
//! `__all__`) and none of the callers; asked at `_funcs.asdict`, they counted those callers as its
//! own. [`stub_binding_note`] finds such modules by following both bindings to the file that
//! declares the name — the run-time one through `.py` files, the stub's through `.pyi` files
//! first, a stub's own declaration standing for its `.py` twin's binding — and names the uses
//! through the module.
//!
//! Files are read beneath the workspace root ([`crate::files::WorkspaceReader`]); only module-level
//! statements count (a binding inside a function or class is no module attribute), the last one
//! in source order wins, and `import *` is not followed.

use std::path::{Path, PathBuf};

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::AstGrep;
use ast_grep_language::SupportLang;

use crate::files::WorkspaceReader;

/// How many `from … import` hops a binding is followed through before giving up.
const MAX_IMPORT_HOPS: usize = 8;

/// The most stub files looked at per question (names listed first; a stub is read only when a
/// `.py` twin exists beside it).
const MAX_STUBS_READ: usize = 400;

/// The most uses through a module named in a note (the rest are counted).
const USES_NAMED: usize = 8;

/// A module whose stub binds `name` to another declaration than the module does at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DivergentStubBinding {
    /// The module's `.py` file (`src/attrs/__init__.py`).
    pub module: PathBuf,
    /// Its stub (`src/attrs/__init__.pyi`).
    pub stub: PathBuf,
    /// The module's dotted import name (`attrs`), from the topmost enclosing package.
    pub dotted_name: String,
    /// The `.py` file that declares what Python binds (`src/attr/_next_gen.py`).
    pub run_time_declaration: PathBuf,
    /// The file where the stub's binding ends (`src/attr/__init__.pyi`): the declaration pyright
    /// shows.
    pub stub_declaration: PathBuf,
    /// The `.py` file whose binding the stub's declaration stands for (`src/attr/_funcs.py`).
    pub stub_run_time_declaration: PathBuf,
}

/// The module-level binding of a name in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Binding {
    /// `def name`, `class name`, `name = …` (or an annotated assignment).
    Declared,
    /// `from module import original [as name]`.
    Imported { module: String, original: String },
}

/// The module-level binding of `name` in Python `text` (inside `if`/`try`/`with` blocks at
/// module level too), or `None` when there is none or it is not known which one runs: bindings
/// in alternative branches (`try: from ._fast import make` / `except ImportError: from ._slow
/// import make`, `if`/`else`), or a `from … import *` after the last binding, which may rebind it
/// (review49 H5: the `except` branch was taken as what runs).
fn module_level_binding(text: &str, name: &str) -> Option<Binding> {
    let root = AstGrep::<StrDoc<SupportLang>>::try_new(text, SupportLang::Python).ok()?;
    let bytes = text.as_bytes();
    let node_text = |node: tree_sitter::Node<'_>| node.utf8_text(bytes).unwrap_or("").to_owned();
    let mut statements = vec![root.root().get_inner_node()];
    // Module-level statements, blocks of compound statements (not of functions or classes)
    // opened in place; then put in source order.
    let mut ordered: Vec<tree_sitter::Node<'_>> = Vec::new();
    while let Some(node) = statements.pop() {
        let mut cursor = node.walk();
        let children: Vec<tree_sitter::Node<'_>> = node.named_children(&mut cursor).collect();
        for child in children.into_iter().rev() {
            match child.kind() {
                "if_statement" | "try_statement" | "with_statement" | "block" | "else_clause" | "elif_clause" | "except_clause"
                | "finally_clause" => statements.push(child),
                _ => ordered.push(child),
            }
        }
    }
    ordered.sort_by_key(|node| node.start_byte());
    // Whether a statement lies in a branch of an `if` or `try` (one of several alternatives).
    let in_branch = |node: tree_sitter::Node<'_>| {
        let mut parent = node.parent();
        while let Some(current) = parent {
            if matches!(current.kind(), "if_statement" | "try_statement") {
                return true;
            }
            parent = current.parent();
        }
        false
    };
    // Every binding in source order, with whether it lies in a branch; and whether a star
    // import follows the last one.
    let mut found: Vec<(Binding, bool)> = Vec::new();
    let mut star_import_after_last = false;
    for statement in ordered {
        let binding = match statement.kind() {
            "function_definition" | "class_definition" if statement.child_by_field_name("name").map(node_text).as_deref() == Some(name) => {
                Some(Binding::Declared)
            }
            "decorated_definition"
                if statement
                    .child_by_field_name("definition")
                    .and_then(|definition| definition.child_by_field_name("name"))
                    .map(node_text)
                    .as_deref()
                    == Some(name) =>
            {
                Some(Binding::Declared)
            }
            "expression_statement" => {
                let mut cursor = statement.walk();
                let assigns = statement.named_children(&mut cursor).any(|expression| {
                    expression.kind() == "assignment" && expression.child_by_field_name("left").map(node_text).as_deref() == Some(name)
                });
                assigns.then_some(Binding::Declared)
            }
            "import_from_statement" => {
                let mut cursor = statement.walk();
                if statement.named_children(&mut cursor).any(|child| child.kind() == "wildcard_import") {
                    star_import_after_last = !found.is_empty();
                    continue;
                }
                let Some(module) = statement.child_by_field_name("module_name") else { continue };
                let module = node_text(module);
                let mut cursor = statement.walk();
                let mut binding = None;
                for imported in statement.children_by_field_name("name", &mut cursor) {
                    let (original, bound) = match imported.kind() {
                        "aliased_import" => (
                            imported.child_by_field_name("name").map(node_text).unwrap_or_default(),
                            imported.child_by_field_name("alias").map(node_text).unwrap_or_default(),
                        ),
                        _ => (node_text(imported), node_text(imported)),
                    };
                    if bound == name {
                        binding = Some(Binding::Imported { module: module.clone(), original });
                    }
                }
                binding
            }
            _ => None,
        };
        if let Some(binding) = binding {
            found.push((binding, in_branch(statement)));
            star_import_after_last = false;
        }
    }
    // Alternatives that disagree, or a star import that may rebind it: not known.
    let branches_disagree = found.iter().any(|(_, in_branch)| *in_branch) && found.iter().any(|(binding, _)| *binding != found[0].0);
    if star_import_after_last || branches_disagree {
        return None;
    }
    found.pop().map(|(binding, _)| binding)
}

/// The file that declares `name` as bound by the module file `file`, following `from … import`
/// (stub files first when `stubs_first`), with the name it has there; `None` when the chain
/// leaves the workspace, meets `import *`, a submodule or a cycle.
fn declaring_file(reader: &WorkspaceReader, file: &Path, name: &str, stubs_first: bool) -> Option<(PathBuf, String)> {
    let (mut file, mut name) = (file.to_path_buf(), name.to_owned());
    for _ in 0..MAX_IMPORT_HOPS {
        let text = reader.read_to_string(&file).ok()?;
        match module_level_binding(&text, &name)? {
            Binding::Declared => return Some((file, name)),
            Binding::Imported { module, original } => {
                let extensions: &[&str] = if stubs_first { &["pyi", "py"] } else { &["py"] };
                let next = crate::lsp::rename_python_imports::module_candidates(&file, &module).into_iter().find_map(|candidate| {
                    extensions.iter().find_map(|extension| {
                        [candidate.with_extension(extension), candidate.join("__init__").with_extension(extension)]
                            .into_iter()
                            .find(|path| reader.open_file(path).is_ok())
                    })
                })?;
                (file, name) = (next, original);
            }
        }
    }
    None
}

/// The modules beneath `workspace_root` whose stub binds `name` to another declaration than the
/// module does at run time (both followed to the `.py` file that declares it). At most
/// [`MAX_STUBS_READ`] stubs are read; virtual environments, `node_modules` and build directories
/// are skipped.
pub fn divergent_stub_bindings(reader: &WorkspaceReader, workspace_root: &Path, name: &str) -> Vec<DivergentStubBinding> {
    let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), workspace_root) else { return Vec::new() };
    let mut found = Vec::new();
    let mut read = 0usize;
    for entry in
        walk.hidden(true).skip_names(&["node_modules", "target", ".git", ".venv", "venv", "__pycache__", "build", "dist"]).iter().flatten()
    {
        if !entry.is_file() || entry.path().extension().is_none_or(|extension| extension != "pyi") {
            continue;
        }
        let stub = entry.path().to_path_buf();
        let module = stub.with_extension("py");
        if reader.open_file(&module).is_err() {
            continue;
        }
        read += 1;
        if read > MAX_STUBS_READ {
            break;
        }
        let Ok(stub_text) = reader.read_to_string(&stub) else { continue };
        if crate::lsp::rename_coverage::word_positions(&stub_text, name).is_empty() {
            continue;
        }
        let Some((run_time_declaration, _)) = declaring_file(reader, &module, name, false) else { continue };
        let Some((stub_declaration, name_there)) = declaring_file(reader, &stub, name, true) else { continue };
        let stub_run_time_declaration = if stub_declaration.extension().is_some_and(|extension| extension == "pyi") {
            let twin = stub_declaration.with_extension("py");
            if reader.open_file(&twin).is_err() {
                continue;
            }
            match declaring_file(reader, &twin, &name_there, false) {
                Some((declaration, _)) => declaration,
                None => continue,
            }
        } else {
            stub_declaration.clone()
        };
        if stub_run_time_declaration == run_time_declaration {
            continue;
        }
        let Some(dotted_name) = crate::lsp::dependents::python_dotted_module_name(reader, &module) else { continue };
        found.push(DivergentStubBinding { module, stub, dotted_name, run_time_declaration, stub_declaration, stub_run_time_declaration });
    }
    found
}

/// The uses of `name` through the module of `binding` in the workspace's Python files: each
/// `dotted.name` (or `last_segment.name`), and every occurrence in a file that imports `name`
/// from the module (`from attrs import asdict`) and binds it nowhere else; as (file, 1-based
/// line), the module, its stub and the two declaring files left out.
fn uses_through_module(
    reader: &WorkspaceReader,
    workspace_root: &Path,
    server_root: &Path,
    binding: &DivergentStubBinding,
    name: &str,
) -> Vec<(PathBuf, usize, usize)> {
    let importers = crate::lsp::dependents::python_importers(workspace_root, server_root, &binding.module, 500);
    let last_segment = binding.dotted_name.rsplit('.').next().unwrap_or(&binding.dotted_name);
    let skipped = [&binding.module, &binding.stub, &binding.run_time_declaration, &binding.stub_run_time_declaration];
    let mut uses = Vec::new();
    for importer in importers.files.iter().filter(|importer| !importers.found_through_another_file.contains(importer)) {
        if skipped.contains(&importer) {
            continue;
        }
        let Ok(text) = reader.read_to_string(importer) else { continue };
        let imported = crate::lsp::rename_python_imports::imports_renamed_name_from(
            importer,
            &text,
            name,
            &[binding.module.clone(), binding.stub.clone()],
        )
        .is_some_and(|import| import.binds_the_name && !import.also_bound_elsewhere)
            || text.lines().any(|line| {
                // `from attrs import asdict` (a `src/` layout's tests resolve it by the dotted
                // name), not `… import asdict as other` (review49 L9).
                line.trim_start().strip_prefix(&format!("from {} import ", binding.dotted_name)).is_some_and(|names| {
                    names.split(',').any(|item| {
                        let item = item.trim().trim_matches(|c| c == '(' || c == ')').trim();
                        item == name || item == format!("{name} as {name}")
                    })
                })
            });
        let Ok(parsed) = AstGrep::<StrDoc<SupportLang>>::try_new(text.as_str(), SupportLang::Python) else { continue };
        let bytes = text.as_bytes();
        let mut lines: Vec<(usize, usize)> = Vec::new();
        let mut stack = vec![parsed.root().get_inner_node()];
        while let Some(node) = stack.pop() {
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
            if node.kind() != "identifier" || node.utf8_text(bytes) != Ok(name) {
                continue;
            }
            // `attrs.asdict`: the attribute of an object spelled as the module; a bare `asdict`
            // (the import included) where the file imports it from the module — not another
            // object's attribute, nor a keyword argument's name.
            let parent = node.parent();
            let as_attribute =
                parent.filter(|parent| parent.kind() == "attribute" && parent.child_by_field_name("attribute") == Some(node));
            let counts = match as_attribute {
                Some(attribute) => attribute
                    .child_by_field_name("object")
                    .and_then(|object| object.utf8_text(bytes).ok())
                    .is_some_and(|object| object == binding.dotted_name || object == last_segment),
                None => {
                    imported
                        && !parent
                            .is_some_and(|parent| parent.kind() == "keyword_argument" && parent.child_by_field_name("name") == Some(node))
                }
            };
            if counts {
                lines.push((node.start_position().row + 1, node.start_position().column));
            }
        }
        lines.sort_unstable();
        uses.extend(lines.into_iter().map(|(line, column)| (importer.clone(), line, column)));
    }
    uses
}

/// A note for an answer about the Python `name` — references or a definition asked in
/// `asked_file` (canonical) whose answer lies in `answer_files` — when a module's stub binds the
/// name elsewhere than the module does at run time: asked at the run-time declaration, the uses
/// through the module are missing from the answer; asked at (or answered with) the stub's
/// declaration, those uses run another function. `None` when no such module is about this
/// declaration. A definition or hover (`asked_use`: the asked 1-based line and byte column of
/// the identifier) is warned when asked at one of those uses, and only then (`_attr.asdict`
/// beside `attrs.asdict` on one line is not one, recheck49 N1; a hover's answer names no file,
/// recheck49 N3). `display` shows a path.
pub fn stub_binding_note(
    workspace_root: &Path,
    server_root: &Path,
    asked_file: &Path,
    asked_use: Option<(usize, usize)>,
    answer_files: &[PathBuf],
    name: &str,
    display: impl Fn(&Path) -> String,
) -> Option<String> {
    if asked_file.extension().is_none_or(|extension| extension != "py" && extension != "pyi") {
        return None;
    }
    let reader = WorkspaceReader::open(workspace_root).ok()?;
    let mut notes = Vec::new();
    for binding in divergent_stub_bindings(&reader, workspace_root, name) {
        let is_stub_side = |file: &Path| binding.stub_run_time_declaration == file || binding.stub_declaration == file;
        let at_run_time_declaration = asked_use.is_none() && binding.run_time_declaration == asked_file;
        let at_stub_declaration = asked_use.is_none()
            && !at_run_time_declaration
            && (is_stub_side(asked_file) || answer_files.iter().any(|file| is_stub_side(file)));
        if asked_use.is_none() && !at_run_time_declaration && !at_stub_declaration {
            continue;
        }
        let uses = uses_through_module(&reader, workspace_root, server_root, &binding, name);
        if let Some((line, column)) = asked_use {
            if !uses.iter().any(|(file, at_line, at_column)| file == asked_file && *at_line == line && *at_column == column) {
                continue;
            }
        }
        // Listed by line.
        let mut use_lines: Vec<(&PathBuf, usize)> = uses.iter().map(|(file, line, _)| (file, *line)).collect();
        use_lines.dedup();
        let uses = use_lines;
        let named: Vec<String> = uses.iter().take(USES_NAMED).map(|(file, line)| format!("{}:{line}", display(file))).collect();
        let listed = if uses.is_empty() {
            "none found in the workspace's Python files by text".to_owned()
        } else {
            format!(
                "{} by text: {}{}",
                crate::render::plural(uses.len(), "line"),
                named.join(", "),
                if uses.len() > named.len() { format!(" and {} more", uses.len() - named.len()) } else { String::new() }
            )
        };
        let (module, stub) = (display(&binding.module), display(&binding.stub));
        let (run_time, stub_side) = (display(&binding.run_time_declaration), display(&binding.stub_run_time_declaration));
        let dotted = &binding.dotted_name;
        notes.push(if at_run_time_declaration {
            format!(
                "WARNING: `{dotted}.{name}` is this `{name}` at run time (`{module}` binds it from `{run_time}`), but the stub `{stub}` binds `{name}` to the one in `{stub_side}`, and pyright resolves every use through `{dotted}` by the stub — they are NOT in this answer ({listed}); a change here reaches them at run time and the checker will not say so; next step: read those uses, and make the stub agree with `{module}`"
            )
        } else {
            format!(
                "WARNING: pyright resolves uses through `{dotted}` (`{dotted}.{name}`, `from {dotted} import {name}`) by the stub `{stub}` to `{name}` of `{stub_side}`, but at run time `{module}` binds `{name}` from `{run_time}` — those uses ({listed}) run the `{name}` of `{run_time}`, not this one; next step: read `{run_time}` before reasoning about or changing them, and make the stub agree with `{module}`"
            )
        });
    }
    (!notes.is_empty()).then(|| notes.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_module_level_binding_counts_and_nested_ones_do_not() {
        let text = "from ._funcs import asdict\nfrom ._next_gen import asdict as asdict\n\ndef f():\n    asdict = 1\n\nclass C:\n    def asdict(self): ...\n";
        assert_eq!(
            module_level_binding(text, "asdict"),
            Some(Binding::Imported { module: "._next_gen".to_owned(), original: "asdict".to_owned() })
        );
        // review49 H5: alternatives that disagree, or a later star import, are not known.
        let alternatives = "try:\n    from pkg._fast import make\nexcept ImportError:\n    from pkg._slow import make\n";
        assert_eq!(module_level_binding(alternatives, "make"), None);
        let conditional = "from ._funcs import asdict\nif NEW:\n    from ._next_gen import asdict\n";
        assert_eq!(module_level_binding(conditional, "asdict"), None);
        let starred = "from ._funcs import asdict\nfrom ._next_gen import *\n";
        assert_eq!(module_level_binding(starred, "asdict"), None);
        let star_first = "from ._next_gen import *\nfrom ._funcs import asdict\n";
        assert_eq!(
            module_level_binding(star_first, "asdict"),
            Some(Binding::Imported { module: "._funcs".to_owned(), original: "asdict".to_owned() })
        );
        // Alternatives that agree are that binding.
        let agreeing = "try:\n    from ._impl import make\nexcept ImportError:\n    from ._impl import make\n";
        assert_eq!(
            module_level_binding(agreeing, "make"),
            Some(Binding::Imported { module: "._impl".to_owned(), original: "make".to_owned() })
        );
        assert_eq!(module_level_binding("def asdict(x): ...\n", "asdict"), Some(Binding::Declared));
        assert_eq!(module_level_binding("@overload\ndef asdict(x): ...\n", "asdict"), Some(Binding::Declared));
        assert_eq!(module_level_binding("asdict = other\n", "asdict"), Some(Binding::Declared));
        assert_eq!(module_level_binding("from x import asdict as renamed\n", "asdict"), None);
        assert_eq!(
            module_level_binding("from x import y as asdict\n", "asdict"),
            Some(Binding::Imported { module: "x".to_owned(), original: "y".to_owned() })
        );
        assert_eq!(module_level_binding("def f():\n    from x import asdict\n", "asdict"), None);
    }
}
