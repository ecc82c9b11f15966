//! Python files that import the renamed name from the renamed definition's own module, where
//! the server resolves nothing (R-REN-1; issue 11, trial44 F1).
//!
//! more-itertools 10.5.0's `more.py` has `from .recipes import (_marker, _zip_equal,
//! UnequalIterablesError, …)`, and `recipes.pyi` — the stub pyright reads for `.recipes` — declares
//! neither name. pyright resolves the import to nothing, so its rename of
//! `recipes._zip_equal` left the import and the two uses in `more.py`, and
//! `import more_itertools` raised `ImportError`. The import names the very module being edited
//! and the very name being renamed: [`imports_renamed_name_from`] recognises it by the syntax
//! tree and the module path, so the caller can rename the import and the file's uses with it.

use std::path::{Path, PathBuf};

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::AstGrep;
use ast_grep_language::SupportLang;

/// What a Python file does with `name` that it imports from one of the definition's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOfRenamed {
    /// 0-based line of the imported name in the `from … import` statement.
    pub import_line: usize,
    /// The import binds the name itself (`from .m import name`), not an alias (`name as other`):
    /// the file's own uses name it too.
    pub binds_the_name: bool,
    /// The file binds `name` elsewhere too (a `def`, `class`, assignment or another import):
    /// its uses may mean that binding, so they are not renamed by text.
    pub also_bound_elsewhere: bool,
}

/// Whether `text` (the Python file at `path`) imports `name` with `from MODULE import …` where
/// MODULE (relative, or absolute from one of the file's ancestor directories) is one of
/// `definition_files` (a module's `.py` and `.pyi` count as one). `None` when it does not, or
/// the text does not parse.
pub fn imports_renamed_name_from(path: &Path, text: &str, name: &str, definition_files: &[PathBuf]) -> Option<ImportOfRenamed> {
    let modules: Vec<PathBuf> = definition_files.iter().map(|file| file.with_extension("")).collect();
    let root = AstGrep::<StrDoc<SupportLang>>::try_new(text, SupportLang::Python).ok()?;
    let bytes = text.as_bytes();
    let mut found: Option<ImportOfRenamed> = None;
    let mut bindings = 0usize;
    let mut stack = vec![root.root().get_inner_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        match node.kind() {
            "import_from_statement" => {
                let Some(module) = node.child_by_field_name("module_name") else { continue };
                let module_text = module.utf8_text(bytes).unwrap_or("");
                let mut cursor = node.walk();
                for imported in node.children_by_field_name("name", &mut cursor) {
                    let (imported_name, alias) = match imported.kind() {
                        "aliased_import" => (
                            imported.child_by_field_name("name").and_then(|n| n.utf8_text(bytes).ok()).unwrap_or(""),
                            imported.child_by_field_name("alias").and_then(|n| n.utf8_text(bytes).ok()),
                        ),
                        _ => (imported.utf8_text(bytes).unwrap_or(""), None),
                    };
                    if alias.unwrap_or(imported_name) == name {
                        bindings += 1;
                    }
                    if imported_name != name {
                        continue;
                    }
                    let resolves = module_candidates(path, module_text).iter().any(|candidate| modules.contains(candidate));
                    if resolves && found.is_none() {
                        found = Some(ImportOfRenamed {
                            import_line: imported.start_position().row,
                            binds_the_name: alias.is_none_or(|alias| alias == name),
                            also_bound_elsewhere: false,
                        });
                    }
                }
            }
            "function_definition" | "class_definition"
                if node.child_by_field_name("name").and_then(|n| n.utf8_text(bytes).ok()) == Some(name) =>
            {
                bindings += 1;
            }
            "assignment" | "augmented_assignment"
                if node.child_by_field_name("left").and_then(|n| n.utf8_text(bytes).ok()) == Some(name) =>
            {
                bindings += 1;
            }
            "import_statement" => {
                // `import name` / `import x as name`.
                let mut cursor = node.walk();
                for imported in node.children_by_field_name("name", &mut cursor) {
                    let bound = match imported.kind() {
                        "aliased_import" => imported.child_by_field_name("alias").and_then(|n| n.utf8_text(bytes).ok()),
                        _ => imported.utf8_text(bytes).ok(),
                    };
                    if bound == Some(name) {
                        bindings += 1;
                    }
                }
            }
            _ => (),
        }
    }
    let mut found = found?;
    // The import itself is one binding of the name (when it binds the name).
    found.also_bound_elsewhere = bindings > usize::from(found.binds_the_name);
    Some(found)
}

/// The module files (without extension: `pkg/recipes` for `pkg/recipes.py`, `pkg/recipes.pyi`
/// and `pkg/recipes/__init__.py`) that `module` (as written after `from`) may name in a file at
/// `path`: a relative module from the file's package; an absolute one from each ancestor
/// directory of the file (the file's import root is not known without the interpreter).
pub(crate) fn module_candidates(path: &Path, module: &str) -> Vec<PathBuf> {
    let dots = module.chars().take_while(|c| *c == '.').count();
    let rest = &module[dots..];
    let segments: Vec<&str> = rest.split('.').filter(|segment| !segment.is_empty()).collect();
    let join = |base: &Path| -> Vec<PathBuf> {
        let mut joined = base.to_path_buf();
        for segment in &segments {
            joined.push(segment);
        }
        vec![joined.clone(), joined.join("__init__")]
    };
    let Some(directory) = path.parent() else { return Vec::new() };
    if dots > 0 {
        let mut base = directory.to_path_buf();
        for _ in 1..dots {
            if !base.pop() {
                return Vec::new();
            }
        }
        return join(&base);
    }
    directory.ancestors().flat_map(join).collect()
}

/// The dotted receiver right before the attribute occurrence at `byte_start` of `line`: the
/// whole chain of identifiers in front of its `.` (`humanize.i18n` for `humanize.i18n.activate`,
/// `i18n` for `i18n._get_default_locale_path`), or `None` when the occurrence is no attribute or
/// the chain starts after a call, a subscript, a string or another attribute's value
/// (`f().i18n.x`, `obj[0].x`), whose receiver no module path spells (trial170 F1).
pub(crate) fn dotted_receiver_before(line: &str, byte_start: usize) -> Option<&str> {
    let before = line.get(..byte_start)?.strip_suffix('.')?;
    let chain_start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_' || *c == '.')
        .last()
        .map_or(before.len(), |(at, _)| at);
    let chain = &before[chain_start..];
    let segments_are_identifiers = chain.split('.').all(|segment| {
        segment.chars().next().is_some_and(|first| first.is_alphabetic() || first == '_')
            && segment.chars().all(|c| c.is_alphanumeric() || c == '_')
    });
    let after_value = before[..chain_start].trim_end().ends_with([')', ']', '"', '\'']);
    (segments_are_identifiers && !after_value).then_some(chain)
}

/// The variables the Python `text` binds to a module by its literal name through
/// `importlib.import_module("pkg.sub")` (or a bare `import_module(…)`), each with that dotted
/// name — kept only when every binding of the variable in the file (assignments, `for` and `with`
/// targets, imports, definitions) is such a call naming the same module, so a use of the
/// variable anywhere in the file is that module (trial170 F1: humanize's tests read
/// `i18n._get_default_locale_path()` after `i18n = importlib.import_module("humanize.i18n")` in
/// five test functions). Empty when the text does not parse.
pub(crate) fn import_module_variables(text: &str) -> std::collections::BTreeMap<String, String> {
    let mut bound: std::collections::BTreeMap<String, Option<String>> = std::collections::BTreeMap::new();
    let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(text, SupportLang::Python) else { return Default::default() };
    let bytes = text.as_bytes();
    let mut note = |name: &str, module: Option<String>| {
        let entry = bound.entry(name.to_owned()).or_insert_with(|| module.clone());
        if *entry != module {
            *entry = None;
        }
    };
    let literal_module = |call: tree_sitter::Node<'_>| -> Option<String> {
        let function = call.child_by_field_name("function")?.utf8_text(bytes).ok()?;
        if function != "importlib.import_module" && function != "import_module" {
            return None;
        }
        let arguments = call.child_by_field_name("arguments")?;
        let mut cursor = arguments.walk();
        let mut positional = arguments.named_children(&mut cursor);
        let first = positional.next()?;
        if first.kind() != "string" || positional.next().is_some() {
            return None;
        }
        let quoted = first.utf8_text(bytes).ok()?;
        let name = quoted.trim_matches(|c| c == '"' || c == '\'');
        let dotted = !name.is_empty()
            && !name.starts_with('.')
            && name.split('.').all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'));
        dotted.then(|| name.to_owned())
    };
    let mut stack = vec![root.root().get_inner_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        for (name, shape) in python_bindings_of(node, bytes) {
            let module = (shape == PythonBindingShape::PlainName && node.kind() == "assignment")
                .then(|| node.child_by_field_name("right"))
                .flatten()
                .filter(|right| right.kind() == "call")
                .and_then(literal_module);
            note(&name, module);
        }
    }
    bound.into_iter().filter_map(|(name, module)| module.map(|module| (name, module))).collect()
}

/// How a Python statement binds a name (see [`python_bindings_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PythonBindingShape {
    /// The whole target is the name (`x = …`, `for x in …`, `def x`, `as x`).
    PlainName,
    /// `import x` or `import x.y…` (no `as`): the name is bound to the package `x`.
    ModuleImport,
    /// Anything else: a part of a tuple or pattern target, a parameter (its annotation and
    /// default counted too: cautious), `from m import x`, `import m as x`.
    Other,
}

/// The names the Python syntax node `node` itself binds in its scope (an assignment, a `for`,
/// `with`, `except` or walrus target, a `def`/`class` name, an import, a parameter list), each
/// with how; empty for any other node. The nodes inside it are not read: the caller walks them.
fn python_bindings_of(node: tree_sitter::Node<'_>, bytes: &[u8]) -> Vec<(String, PythonBindingShape)> {
    let targets: Vec<tree_sitter::Node<'_>> = match node.kind() {
        "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" | "named_expression" => {
            node.child_by_field_name("left").or_else(|| node.child_by_field_name("name")).into_iter().collect()
        }
        "as_pattern" => node.child_by_field_name("alias").into_iter().collect(),
        "function_definition" | "class_definition" => node.child_by_field_name("name").into_iter().collect(),
        "aliased_import" => node.child_by_field_name("alias").into_iter().collect(),
        "parameters" | "lambda_parameters" => vec![node],
        "import_statement" | "import_from_statement" => {
            let mut cursor = node.walk();
            node.children_by_field_name("name", &mut cursor).filter(|name| name.kind() == "dotted_name").collect()
        }
        _ => Vec::new(),
    };
    let mut found = Vec::new();
    for target in targets {
        let Ok(target_text) = target.utf8_text(bytes) else { continue };
        if target.kind() == "identifier" {
            found.push((target_text.to_owned(), PythonBindingShape::PlainName));
        } else if target.kind() == "dotted_name" {
            // `import a.b` binds `a`; `from m import a` binds `a` to something else.
            let shape = if node.kind() == "import_statement" { PythonBindingShape::ModuleImport } else { PythonBindingShape::Other };
            found.push((target_text.split('.').next().unwrap_or(target_text).to_owned(), shape));
        } else {
            // A tuple or pattern target: each identifier in it is bound to something else.
            let mut inner = vec![target];
            while let Some(part) = inner.pop() {
                if part.kind() == "identifier" {
                    if let Ok(name) = part.utf8_text(bytes) {
                        found.push((name.to_owned(), PythonBindingShape::Other));
                    }
                } else if part.kind() != "attribute" && part.kind() != "subscript" {
                    let mut cursor = part.walk();
                    inner.extend(part.named_children(&mut cursor));
                }
            }
        }
    }
    found
}

/// Python syntax nodes that open a scope of their own: names bound inside are not the
/// enclosing scope's.
const PYTHON_SCOPE_KINDS: [&str; 7] = [
    "function_definition",
    "class_definition",
    "lambda",
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
];

/// How the Python scope `scope` (the module, a `def`, `class`, lambda or comprehension) binds
/// `name` itself, not in scopes nested in it: `(module imports, other bindings)` (see
/// [`PythonBindingShape`]). A nested `def`/`class` counts by its own name.
fn python_scope_bindings_of(scope: tree_sitter::Node<'_>, name: &str, bytes: &[u8]) -> (usize, usize) {
    let (mut imports, mut others) = (0, 0);
    let mut cursor = scope.walk();
    let mut stack: Vec<tree_sitter::Node<'_>> = scope.named_children(&mut cursor).collect();
    while let Some(node) = stack.pop() {
        for (bound, shape) in python_bindings_of(node, bytes) {
            if bound == name {
                if shape == PythonBindingShape::ModuleImport {
                    imports += 1;
                } else {
                    others += 1;
                }
            }
        }
        if !PYTHON_SCOPE_KINDS.contains(&node.kind()) {
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
    }
    (imports, others)
}

/// Whether `name` read at the 0-based `line`, byte column `byte_column` of the Python `text` is
/// the package the file imports by `import name` / `import name.sub…` at module level: the module
/// binds `name` by such imports and by nothing else, and no function (or lambda, comprehension,
/// or the class body it is directly in) around the read binds `name` otherwise — a parameter or
/// local spelled like the package (`def flush(db): db.session.commit()`, the Flask-SQLAlchemy
/// idiom) is no module (review50 H6: `db/session.py`'s `commit` renamed such a call in a file
/// that never imports `db`). `false` when the text does not parse.
pub(crate) fn python_name_is_module_import_at(text: &str, name: &str, line: usize, byte_column: usize) -> bool {
    let Ok(root) = AstGrep::<StrDoc<SupportLang>>::try_new(text, SupportLang::Python) else { return false };
    let module = root.root().get_inner_node();
    let bytes = text.as_bytes();
    let (imports, others) = python_scope_bindings_of(module, name, bytes);
    if imports == 0 || others > 0 {
        return false;
    }
    let point = tree_sitter::Point::new(line, byte_column);
    let Some(at) = module.descendant_for_point_range(point, point) else { return false };
    let mut inside_function = false;
    let mut current = at.parent();
    while let Some(scope) = current {
        if PYTHON_SCOPE_KINDS.contains(&scope.kind()) {
            // A class body's names are not seen from the functions inside it.
            let seen = scope.kind() != "class_definition" || !inside_function;
            if seen && python_scope_bindings_of(scope, name, bytes).1 > 0 {
                return false;
            }
            inside_function |= scope.kind() != "class_definition";
        }
        current = scope.parent();
    }
    true
}

/// Where a workspace module defines `name` at module level when the Python file `path` (its
/// `text`) reads it as `receiver.name` with `receiver` a module spelled by its import path
/// (`humanize.i18n`) or a variable bound to `importlib.import_module("humanize.i18n")` ([`import_module_variables`]):
/// the module file, its 1-based line and how the receiver spells the module. The module is
/// looked for as `a/b.py`, `a/b.pyi` or `a/b/__init__.py` under each directory from the file's
/// up to the workspace root, and under each one's `src/`. A dotted receiver counts only where its
/// first segment is the package the file imports ([`python_name_is_module_import_at`]; `line`
/// is the read's 0-based line, `line_text` its text). `None` when the receiver spells no such
/// module or the module defines no `name` at column 0 (trial170 M8: `definition` and `hover`
/// at `humanize.i18n.activate(…)` answered only "pyright returned null").
pub(crate) fn module_path_definition(
    workspace_root: &Path,
    path: &Path,
    text: &str,
    line: usize,
    line_text: &str,
    byte_start: usize,
    name: &str,
) -> Option<(PathBuf, usize, String)> {
    let receiver = dotted_receiver_before(line_text, byte_start)?;
    let (module, spelled) = if receiver.contains('.') {
        let package = receiver.split('.').next().unwrap_or(receiver);
        let receiver_start = byte_start - receiver.len() - 1;
        if !python_name_is_module_import_at(text, package, line, receiver_start) {
            return None;
        }
        (receiver.to_owned(), format!("`{receiver}`"))
    } else {
        let module = import_module_variables(text).remove(receiver)?;
        let spelled = format!("`{receiver}` (`importlib.import_module(\"{module}\")`)");
        (module, spelled)
    };
    let relative: PathBuf = module.split('.').collect();
    let mut directory = path.parent();
    while let Some(current) = directory.filter(|current| current.starts_with(workspace_root)) {
        for base in [current.to_path_buf(), current.join("src")] {
            let joined = base.join(&relative);
            let files = [joined.with_extension("py"), joined.with_extension("pyi"), joined.join("__init__.py")];
            for file in files {
                let Ok(module_text) = crate::files::read_workspace_file_to_string(workspace_root, &file) else { continue };
                let defined =
                    module_text.lines().position(|line| crate::lsp::rename_coverage::python_module_level_definition_line(line, name));
                if let Some(index) = defined {
                    return Some((file, index + 1, spelled));
                }
            }
        }
        directory = current.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const MORE_PY: &str = "from functools import partial\n\nfrom .recipes import (\n    _marker,\n    _zip_equal,\n    UnequalIterablesError,\n)\n\n__all__ = ['UnequalIterablesError']\n\n\ndef zip_equal(*iterables):\n    return _zip_equal(*iterables)\n";

    #[test]
    fn a_relative_import_of_the_renamed_name_from_its_module_is_found() {
        // more-itertools 10.5.0 (trial44 F1): more.py imports `_zip_equal` from `.recipes`.
        let more = Path::new("/w/more_itertools/more.py");
        let recipes = vec![PathBuf::from("/w/more_itertools/recipes.py")];
        let found = imports_renamed_name_from(more, MORE_PY, "_zip_equal", &recipes).expect("the import");
        assert_eq!(found, ImportOfRenamed { import_line: 4, binds_the_name: true, also_bound_elsewhere: false });
        // The stub counts as the module.
        let stub = vec![PathBuf::from("/w/more_itertools/recipes.pyi")];
        assert!(imports_renamed_name_from(more, MORE_PY, "UnequalIterablesError", &stub).is_some());
        // Another module's name, or another module, is not it.
        assert!(imports_renamed_name_from(more, MORE_PY, "partial", &recipes).is_none());
        assert!(imports_renamed_name_from(more, MORE_PY, "_zip_equal", &[PathBuf::from("/w/more_itertools/more.py")]).is_none());
    }

    #[test]
    fn absolute_aliased_and_rebound_imports_are_told_apart() {
        let file = Path::new("/w/tests/test_more.py");
        let recipes = vec![PathBuf::from("/w/more_itertools/recipes.py")];
        let absolute = "from more_itertools.recipes import _zip_equal\n_zip_equal(1)\n";
        assert_eq!(
            imports_renamed_name_from(file, absolute, "_zip_equal", &recipes)
                .map(|found| (found.binds_the_name, found.also_bound_elsewhere)),
            Some((true, false))
        );
        let aliased = "from more_itertools.recipes import _zip_equal as ze\nze(1)\n";
        assert_eq!(imports_renamed_name_from(file, aliased, "_zip_equal", &recipes).map(|found| found.binds_the_name), Some(false));
        let rebound = "from more_itertools.recipes import _zip_equal\n\ndef _zip_equal():\n    pass\n";
        assert_eq!(imports_renamed_name_from(file, rebound, "_zip_equal", &recipes).map(|found| found.also_bound_elsewhere), Some(true));
        // Two dots: the parent package.
        let nested = Path::new("/w/more_itertools/sub/x.py");
        assert!(imports_renamed_name_from(nested, "from ..recipes import _zip_equal\n", "_zip_equal", &recipes).is_some());
    }
    #[test]
    fn a_dotted_receiver_is_the_whole_identifier_chain_before_the_attribute() {
        let line = "    humanize.i18n.activate(\"fr\")";
        let at = line.find("activate").unwrap();
        assert_eq!(dotted_receiver_before(line, at), Some("humanize.i18n"));
        let local = "    assert i18n._get_default_locale_path() is None";
        assert_eq!(dotted_receiver_before(local, local.find("_get").unwrap()), Some("i18n"));
        // No attribute, or a receiver that is a value no module path spells.
        assert_eq!(dotted_receiver_before("activate(\"fr\")", 0), None);
        let called = "get().i18n.activate()";
        assert_eq!(dotted_receiver_before(called, called.find("activate").unwrap()), None);
        let indexed = "mods[0].activate()";
        assert_eq!(dotted_receiver_before(indexed, indexed.find("activate").unwrap()), None);
    }

    #[test]
    fn a_name_is_the_imported_package_only_where_nothing_else_binds_it() {
        // review50 H6: a parameter spelled like the package, in a file that imports it or not.
        let imported = "import db.session\n\n\ndef save():\n    return db.session.commit()\n\n\ndef flush(db):\n    return db.session.commit()\n\n\nclass Store:\n    db = None\n\n    def save(self):\n        return db.session.commit()\n";
        let column = |line: &str| line.find("db.").unwrap();
        let lines: Vec<&str> = imported.lines().collect();
        assert!(python_name_is_module_import_at(imported, "db", 4, column(lines[4])));
        assert!(!python_name_is_module_import_at(imported, "db", 8, column(lines[8])));
        // A class body's `db` is not seen from its methods.
        assert!(python_name_is_module_import_at(imported, "db", 15, column(lines[15])));
        let not_imported = "def flush(db):\n    return db.session.commit()\n";
        assert!(!python_name_is_module_import_at(not_imported, "db", 1, 11));
        // A module-level binding besides the import, or an alias, is not the package.
        let rebound = "import db\ndb = make()\ndb.session.commit()\n";
        assert!(!python_name_is_module_import_at(rebound, "db", 2, 0));
        let aliased = "import db as database\ndb.session.commit()\n";
        assert!(!python_name_is_module_import_at(aliased, "db", 1, 0));
        let local = "import db\n\ndef f():\n    for db in []:\n        pass\n    return db.session.commit()\n";
        assert!(!python_name_is_module_import_at(local, "db", 5, 11));
    }

    #[test]
    fn import_module_variables_are_kept_only_when_every_binding_names_the_same_module() {
        let text = "import importlib\n\ndef test_a():\n    i18n = importlib.import_module(\"humanize.i18n\")\n    i18n.f()\n\ndef test_b():\n    i18n = importlib.import_module('humanize.i18n')\n\ndef test_c():\n    other = importlib.import_module(\"humanize.i18n\")\n    for other in []:\n        pass\n    third = importlib.import_module(name)\n";
        let found = import_module_variables(text);
        assert_eq!(found.get("i18n").map(String::as_str), Some("humanize.i18n"));
        // Rebound by a loop, or a module name that is no literal: not known.
        assert_eq!(found.get("other"), None);
        assert_eq!(found.get("third"), None);
        let two_modules = "import importlib\na = importlib.import_module(\"x.y\")\na = importlib.import_module(\"x.z\")\n";
        assert!(import_module_variables(two_modules).is_empty());
    }
}
