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
}
