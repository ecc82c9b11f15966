//! The scope of a renamed local binding, for the rename's `grep -w` cross-check (issue 11,
//! trial27b M11).
//!
//! Renaming a local variable or parameter (csv-core 0.1.13's `let inp` in the test `quote_empty`)
//! made the cross-check ask a definition for every other whole-word `inp` of the project and list
//! 61 lines of other functions' locals under "check them". A local binding is visible only inside
//! its enclosing function (or closure, lambda, function literal: the outermost function-like node
//! is taken, which can only widen the scope), so an occurrence outside it cannot be a reference.
//! [`local_binding_scope`] finds that function from the syntax tree of the renamed binding's
//! definition (Rust, Python, TypeScript/JavaScript, Go); [`LocalScope::contains`] tells the
//! occurrences inside it from the rest, which the check counts in one line
//! ([`other_locals_line`]) instead of asking and listing them.
//!
//! A JavaScript/TypeScript private member (`#queryCache`) is named only inside the body of the
//! class that declares it, always with its `#` (`this.#queryCache`, `#queryCache in other`):
//! [`private_member_scope`] gives that class's lines, and [`LocalScope::may_name`] keeps only the
//! occurrences there written with the `#` (trial156 M2: renaming `QueryClient.#queryCache` listed
//! 100 occurrences of the build's `.d.ts` files, 24 comments and 10 "check them" lines of other
//! files and of `config.queryCache`, none of which can be it).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Language};
use ast_grep_language::SupportLang;

use crate::files::WorkspaceReader;

/// The lines (0-based, inclusive) of the function that encloses a local binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalScope {
    /// The file of the binding.
    pub path: PathBuf,
    /// The enclosing function's first line.
    pub first_line: u32,
    /// Its last line.
    pub last_line: u32,
    /// The first line of the comments right above the function (its JSDoc, its Go or Rust doc
    /// comment, which name its parameters: `@param opts.getHref`); `first_line` when none.
    pub doc_first_line: u32,
    /// The function's name (`quote_empty`), or `a closure` for an anonymous one; for a private
    /// member, the class's name (`QueryClient`), or `an anonymous class`.
    pub function: String,
    /// Whether the binding is a JavaScript/TypeScript private member (`#name`) and the lines are
    /// its class's: only an occurrence written right after a `#` can name it.
    pub private_member: bool,
}

impl LocalScope {
    /// Whether line `line` of `path` is inside the scope.
    pub fn contains(&self, path: &Path, line: u32) -> bool {
        path == self.path && (self.first_line..=self.last_line).contains(&line)
    }

    /// Whether the whole-word occurrence starting at byte `byte_start` of `line_text`, line
    /// `line` of `path`, can name the binding: inside the scope and, for a private member, right
    /// after its `#`.
    pub fn may_name(&self, path: &Path, line: u32, line_text: &str, byte_start: usize) -> bool {
        self.contains(path, line) && (!self.private_member || line_text[..byte_start].ends_with('#'))
    }

    /// What the renamed binding is, for the report's lines: `the renamed local`, or
    /// `` `#queryCache` `` for a private member named `queryCache`.
    pub fn binding_shown(&self, name: &str) -> String {
        if self.private_member {
            format!("`#{name}`")
        } else {
            "the renamed local".to_owned()
        }
    }

    /// Whether line `line` of `path` is in the comments right above the function (see
    /// [`LocalScope::doc_first_line`]).
    pub fn in_doc_comment(&self, path: &Path, line: u32) -> bool {
        path == self.path && (self.doc_first_line..self.first_line).contains(&line)
    }
}

// Function-like node kinds of every bundled grammar (a binding's scope is the outermost one
// enclosing it).
use crate::lsp::syntax::FUNCTION_KINDS;

/// Node kinds that hold a binding pattern: an identifier whose ancestors up to one of these are
/// only patterns (or the parameter list) declares a local.
const BINDING_KINDS: &[&str] = &[
    // Rust
    "let_declaration",
    "parameter",
    "closure_parameters",
    "for_expression",
    "let_condition",
    "match_pattern",
    // Python
    "parameters",
    "lambda_parameters",
    "default_parameter",
    "typed_parameter",
    "typed_default_parameter",
    "assignment",
    "for_statement",
    "for_in_clause",
    "as_pattern_target",
    // TypeScript / JavaScript
    "variable_declarator",
    "required_parameter",
    "optional_parameter",
    "formal_parameters",
    "catch_clause",
    "for_in_statement",
    // Go
    "parameter_declaration",
    "variadic_parameter_declaration",
    "short_var_declaration",
    "var_spec",
    "range_clause",
    // A type parameter of a generic function (`func Index[E comparable](…)`), visible only in
    // it; of a generic type (`type List[T any] struct`), only in the type's declaration — each
    // method declares its own in its receiver (trial173 M2: renaming slices.Index's `E` listed
    // 144 other functions' `E`s to "check").
    "type_parameter_declaration",
];

/// Node kinds a binding identifier may sit in on the way up to its binding node.
fn is_pattern_kind(kind: &str) -> bool {
    kind.ends_with("pattern")
        || kind.ends_with("_pattern_list")
        || matches!(kind, "pattern_list" | "expression_list" | "identifier_list" | "field_pattern" | "assignment" | "expression_statement")
}

/// The name of the Python function (`def`) whose parameter's name starts at (`path`, 0-based
/// `line`, `byte_column`): a plain, typed, defaulted or star parameter (`name`, `name: str`,
/// `name=None`, `*name`); `None` for anything else (a type annotation or default value in the
/// signature, a lambda's parameter, another language) and when the file cannot be read or parsed.
/// A rename's coverage check classes an occurrence that resolves to another function's parameter
/// as another symbol (trial166 M3, M4: `HookImpl.__init__`'s `plugin_name`, `load_recipe(name)`
/// were listed to "check").
pub fn python_parameter_function(reader: &WorkspaceReader, path: &Path, line: u32, byte_column: usize) -> Option<String> {
    if SupportLang::from_path(path)? != SupportLang::Python {
        return None;
    }
    let text = reader.read_to_string(path).ok()?;
    let line_start = crate::lsp::position::line_start_byte(&text, line as usize);
    let offset = line_start + byte_column;
    let root = AstGrep::<StrDoc<SupportLang>>::try_new(text.as_str(), SupportLang::Python).ok()?;
    let identifier = root.root().get_inner_node().descendant_for_byte_range(offset, offset + 1)?;
    if identifier.kind() != "identifier" {
        return None;
    }
    let mut current = identifier;
    loop {
        let parent = current.parent()?;
        match parent.kind() {
            "parameters" => {
                let function = parent.parent().filter(|node| node.kind() == "function_definition")?;
                let name = function.child_by_field_name("name")?;
                return text.get(name.start_byte()..name.end_byte()).map(str::to_owned);
            }
            "default_parameter" | "typed_default_parameter" => {
                if parent.child_by_field_name("name").is_none_or(|name| name.id() != current.id()) {
                    return None;
                }
            }
            "typed_parameter" => {
                if parent.child_by_field_name("type").is_some_and(|annotation| annotation.id() == current.id()) {
                    return None;
                }
            }
            "list_splat_pattern" | "dictionary_splat_pattern" => (),
            _ => return None,
        }
        current = parent;
    }
}

/// The scope of the binding whose name starts at `target` (path, 0-based line, byte column),
/// when it is a local variable or parameter of a function; `None` for anything else (an item,
/// a field, an attribute, a module-level name) and when the file cannot be read or parsed.
pub fn local_binding_scope(reader: &WorkspaceReader, path: &Path, line: u32, byte_column: usize) -> Option<LocalScope> {
    let language = SupportLang::from_path(path)?;
    let text = reader.read_to_string(path).ok()?;
    let line_start = crate::lsp::position::line_start_byte(&text, line as usize);
    let offset = line_start + byte_column;
    let root = AstGrep::<StrDoc<SupportLang>>::try_new(text.as_str(), language).ok()?;
    let top = root.root().get_inner_node();
    let identifier = top.descendant_for_byte_range(offset, offset + 1)?;
    if identifier.kind() != "identifier" {
        return None;
    }
    // Up through patterns to the node that binds it.
    let mut current = identifier;
    let binding = loop {
        let parent = current.parent()?;
        if BINDING_KINDS.contains(&parent.kind()) {
            // An assignment or loop binds its left side only (`x = v` does not bind `v`).
            let left_only = matches!(parent.kind(), "assignment" | "for_statement" | "for_in_clause" | "for_in_statement");
            if left_only && parent.child_by_field_name("left").is_none_or(|left| left.id() != current.id()) {
                return None;
            }
            break parent;
        }
        if !is_pattern_kind(parent.kind()) {
            return None;
        }
        current = parent;
    };
    // A Python parameter is named by keyword arguments at every call site (`Cache(maxsize=1)`),
    // in any file: it is no local of its function (trial38 F4: cachetools' `maxsize` → `max_size`
    // dismissed the tests' `maxsize=` as "not this binding", and 13 tests failed).
    if language == SupportLang::Python
        && matches!(
            binding.kind(),
            "parameters" | "lambda_parameters" | "default_parameter" | "typed_parameter" | "typed_default_parameter"
        )
    {
        return None;
    }
    // A TypeScript parameter property (`constructor(public run: () => C)`, `readonly x`,
    // `private y`) declares a member of the class, used as `this.run` anywhere: no local
    // (trial101 F1: io-ts's `RecursiveType.runDefinition`, whose `this.runDefinition()` in an
    // untyped getter was dismissed as "not this binding", and the renamed code threw).
    if crate::lsp::syntax::parameter_property_class(binding, identifier).is_some() {
        return None;
    }
    // Python: an assignment binds a local only inside a function (not in a class body).
    let mut outermost = None;
    let mut up = binding.parent();
    while let Some(node) = up {
        if FUNCTION_KINDS.contains(&node.kind()) {
            outermost = Some(node);
        }
        if matches!(node.kind(), "class_definition" | "class_declaration" | "class_body" | "impl_item" | "trait_item")
            && outermost.is_none()
        {
            return None;
        }
        up = node.parent();
    }
    // A parameter list is the function's own child: the function is the scope. A generic type's
    // type parameter: the type's declaration.
    let generic_type = (binding.kind() == "type_parameter_declaration" && outermost.is_none())
        .then(|| binding.parent().and_then(|list| list.parent()).filter(|spec| spec.kind() == "type_spec"))
        .flatten();
    let function = outermost.or(generic_type).or_else(|| binding.parent().filter(|node| FUNCTION_KINDS.contains(&node.kind())))?;
    // `func_literal`/`function_declaration` in Go: a `function_declaration` there is a top-level
    // function, named like the TypeScript one.
    // Python's `global x` / `nonlocal x` make an assignment in the function bind an outer name.
    let binding_name = text.get(identifier.start_byte()..identifier.end_byte())?;
    let function_text = text.get(function.start_byte()..function.end_byte())?;
    let declared_outer = function_text.lines().any(|line| {
        let mut words = line.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|word| !word.is_empty());
        matches!(words.next(), Some("global" | "nonlocal")) && words.any(|word| word == binding_name)
    });
    if declared_outer {
        return None;
    }
    let name = function
        .child_by_field_name("name")
        .and_then(|name| text.get(name.start_byte()..name.end_byte()))
        .map_or_else(|| "a closure".to_owned(), str::to_owned);
    // The comments right above the function (or above the statement that exports or declares
    // it), adjacent line to line (trial60 M2: `@param opts.getHref` was "outside the function").
    let mut declaration = function;
    while let Some(parent) = declaration.parent().filter(|parent| {
        matches!(parent.kind(), "export_statement" | "decorated_definition" | "variable_declarator" | "lexical_declaration")
    }) {
        declaration = parent;
    }
    let mut doc_first_line = declaration.start_position().row as u32;
    let mut above = declaration.prev_sibling();
    while let Some(comment) = above.filter(|node| node.kind().contains("comment") && node.end_position().row as u32 + 1 >= doc_first_line) {
        doc_first_line = comment.start_position().row as u32;
        above = comment.prev_sibling();
    }
    Some(LocalScope {
        path: path.to_path_buf(),
        first_line: function.start_position().row as u32,
        last_line: function.end_position().row as u32,
        doc_first_line: doc_first_line.min(function.start_position().row as u32),
        function: name,
        private_member: false,
    })
}

/// Node kinds of a JavaScript/TypeScript class (declaration or expression).
const CLASS_KINDS: &[&str] = &["class_declaration", "abstract_class_declaration", "class"];

/// The scope of the JavaScript/TypeScript private member (`#name`) whose name is at `target`
/// (path, 0-based line, byte column of its `#` or of the name after it): the lines of the
/// innermost class that encloses it, from its `class` line to its closing brace, with no doc
/// comment lines. `None` for anything that is no private name, and when the file cannot be read
/// or parsed.
pub fn private_member_scope(reader: &WorkspaceReader, path: &Path, line: u32, byte_column: usize) -> Option<LocalScope> {
    let language = SupportLang::from_path(path)?;
    if !matches!(language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
        return None;
    }
    let text = reader.read_to_string(path).ok()?;
    let line_start = crate::lsp::position::line_start_byte(&text, line as usize);
    let offset = line_start + byte_column;
    let root = AstGrep::<StrDoc<SupportLang>>::try_new(text.as_str(), language).ok()?;
    let top = root.root().get_inner_node();
    let name = top.descendant_for_byte_range(offset, offset + 1)?;
    if name.kind() != "private_property_identifier" {
        return None;
    }
    let mut up = name.parent();
    let class = loop {
        let node = up?;
        if CLASS_KINDS.contains(&node.kind()) {
            break node;
        }
        up = node.parent();
    };
    let class_name = class
        .child_by_field_name("name")
        .and_then(|name| text.get(name.start_byte()..name.end_byte()))
        .map_or_else(|| "an anonymous class".to_owned(), str::to_owned);
    let first_line = class.start_position().row as u32;
    Some(LocalScope {
        path: path.to_path_buf(),
        first_line,
        last_line: class.end_position().row as u32,
        doc_first_line: first_line,
        function: class_name,
        private_member: true,
    })
}

/// The number of distinct enclosing functions of `occurrences` (path, 0-based line), each file
/// parsed once; the occurrences outside any function count as one more per file.
pub fn enclosing_function_count(reader: &WorkspaceReader, occurrences: &[(PathBuf, u32)]) -> usize {
    let mut functions: HashSet<(PathBuf, usize)> = HashSet::new();
    let mut by_file: std::collections::BTreeMap<&PathBuf, Vec<u32>> = std::collections::BTreeMap::new();
    for (path, line) in occurrences {
        by_file.entry(path).or_default().push(*line);
    }
    for (path, lines) in by_file {
        let parsed = SupportLang::from_path(path).and_then(|language| {
            let text = reader.read_to_string(path).ok()?;
            let root = AstGrep::<StrDoc<SupportLang>>::try_new(text.as_str(), language).ok()?;
            // The top-level functions' line ranges (nested ones count with their outermost).
            let mut ranges = Vec::new();
            let mut stack = vec![root.root().get_inner_node()];
            while let Some(node) = stack.pop() {
                if FUNCTION_KINDS.contains(&node.kind()) || node.kind() == "function_declaration" {
                    ranges.push((node.start_position().row as u32, node.end_position().row as u32));
                    continue;
                }
                let mut cursor = node.walk();
                stack.extend(node.named_children(&mut cursor));
            }
            Some(ranges)
        });
        for line in lines {
            let function = parsed
                .as_ref()
                .and_then(|ranges| ranges.iter().position(|(first, last)| (*first..=*last).contains(&line)))
                .map_or(usize::MAX, |index| index);
            functions.insert((path.clone(), function));
        }
    }
    functions.len()
}

/// The one line that counts the occurrences outside a local binding's function:
/// `  not this binding: 61 other whole-word occurrences of `inp` in 12 other functions
/// (other locals or symbols outside `quote_empty`, lines 968–975 of src/writer.rs, where the
/// renamed local is not visible) — left as they are, not asked`.
/// `shown_path` names the scope's file.
/// For a private member, the line says where `#name` can be written instead, and counts no
/// functions: `  not this binding: 61 other whole-word occurrences of `queryCache` (without the
/// `#` or outside class `QueryClient`, lines 78–640 of src/queryClient.ts, the only places
/// `#queryCache` can be named) — left as they are, not asked`.
pub fn other_locals_line(name: &str, scope: &LocalScope, shown_path: &str, occurrences: usize, functions: usize) -> String {
    if scope.private_member {
        return format!(
            "  not this binding: {} of `{name}` (without the `#` or outside class `{}`, lines {}–{} of {}, the only places `#{name}` can be named) — left as they are, not asked",
            crate::render::plural(occurrences, "other whole-word occurrence"),
            scope.function,
            scope.first_line + 1,
            scope.last_line + 1,
            shown_path,
        );
    }
    format!(
        "  not this binding: {} of `{name}` in {} (other locals or symbols outside `{}`, lines {}–{} of {}, where the renamed local is not visible) — left as they are, not asked",
        crate::render::plural(occurrences, "other whole-word occurrence"),
        crate::render::plural(functions, "other function"),
        scope.function,
        scope.first_line + 1,
        scope.last_line + 1,
        shown_path,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_parameter_is_told_from_its_annotation_default_and_other_names() {
        let dir = crate::test_support::workspace_with(&[(
            "m.py",
            "def load(name: str, other=name, *rest, **named):\n    name = 1\n\n\nclass C:\n    def __init__(\n        self,\n        name: str = \"x\",\n    ) -> None:\n        self.name = name\n\n\nf = lambda name: name\n",
        )]);
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let reader = WorkspaceReader::open(&root).unwrap();
        let path = root.join("m.py");
        let at = |line: u32, byte: usize| python_parameter_function(&reader, &path, line, byte);
        assert_eq!(at(0, 9).as_deref(), Some("load"), "`name: str`");
        assert_eq!(at(0, 15), None, "the annotation `str`");
        assert_eq!(at(0, 20).as_deref(), Some("load"), "`other=`");
        assert_eq!(at(0, 26), None, "the default value `name`");
        assert_eq!(at(0, 33).as_deref(), Some("load"), "`*rest`");
        assert_eq!(at(0, 41).as_deref(), Some("load"), "`**named`");
        assert_eq!(at(1, 4), None, "a local assignment");
        assert_eq!(at(7, 8).as_deref(), Some("__init__"), "a parameter on its own line");
        assert_eq!(at(9, 13), None, "an attribute");
        assert_eq!(at(12, 11), None, "a lambda's parameter");
    }

    #[test]
    fn the_doc_comment_above_the_function_is_part_of_its_scope_for_comments() {
        // @tanstack/history 1.58.15 (trial60 M2): `@param opts.getHref` above `createBrowserHistory`.
        let source = "// unrelated\n\n/**\n * @param opts.getHref the href\n */\nexport function createBrowserHistory(opts?: { getHref?: () => string }) {\n  return opts\n}\n";
        let found = scope("a.ts", source, 5, source.lines().nth(5).unwrap().find("opts").unwrap()).expect("a parameter");
        assert_eq!((found.doc_first_line, found.first_line), (2, 5), "{found:?}");
        assert!(found.in_doc_comment(Path::new("a.ts"), 3) && !found.in_doc_comment(Path::new("a.ts"), 0));
    }

    fn scope(file: &str, source: &str, line: u32, column: usize) -> Option<LocalScope> {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join(file), source).unwrap();
        let reader = WorkspaceReader::open(&root).unwrap();
        local_binding_scope(&reader, &root.join(file), line, column).map(|mut found| {
            found.path = PathBuf::from(file);
            found
        })
    }

    #[test]
    fn a_go_type_parameter_is_local_to_its_function_or_generic_type() {
        // trial173 M2 (golang.org/x/exp slices): `E` of `Index` is not `E` of `Contains`.
        let source = "package slices\n\nfunc Index[E comparable](s []E, v E) int {\n\treturn -1\n}\n\nfunc Contains[E comparable](s []E, v E) bool {\n\treturn Index(s, v) >= 0\n}\n\ntype List[T any] struct {\n\titems []T\n}\n\nfunc (l *List[T]) Push(v T) {}\n";
        let found = scope("slices.go", source, 2, "func Index[".len()).expect("E is local to Index");
        assert_eq!((found.first_line, found.last_line, found.function.as_str()), (2, 4, "Index"));
        let found = scope("slices.go", source, 10, "type List[".len()).expect("T is local to List's declaration");
        assert_eq!((found.first_line, found.last_line, found.function.as_str()), (10, 12, "List"));
        // A use in the signature, and the receiver's own `T` (a type argument, no declaration here).
        assert!(scope("slices.go", source, 2, "func Index[E comparable](s []".len()).is_none());
        assert!(scope("slices.go", source, 14, "func (l *List[".len()).is_none());
    }

    #[test]
    fn a_let_or_parameter_is_local_to_its_function_and_items_fields_attributes_are_not() {
        let rust =
            "fn quote_empty() {\n    let inp = b\"\";\n    check(inp);\n}\nfn other(inp: u8) {}\nstruct S { inp: u8 }\nfn inp() {}\n";
        let found = scope("a.rs", rust, 1, 8).expect("a let is local");
        assert_eq!((found.first_line, found.last_line, found.function.as_str()), (0, 3, "quote_empty"));
        assert_eq!(scope("a.rs", rust, 4, 9).map(|found| found.function), Some("other".to_owned()));
        assert_eq!(scope("a.rs", rust, 5, 11), None, "a field");
        assert_eq!(scope("a.rs", rust, 6, 3), None, "an item");
        let python = "x = 1\nclass C:\n    y = 2\n    def m(self, z):\n        self.w = z\n        v = z\n        return v\n";
        assert_eq!(scope("m.py", python, 0, 0), None, "a module-level name");
        assert_eq!(scope("m.py", python, 2, 4), None, "a class attribute");
        assert_eq!(scope("m.py", python, 3, 16), None, "a parameter, which keyword arguments name anywhere (trial38 F4)");
        assert_eq!(scope("m.py", python, 4, 13), None, "an attribute");
        assert_eq!(scope("m.py", python, 5, 8).map(|found| (found.first_line, found.last_line)), Some((3, 6)));
        let global = "x = 1\ndef set_x():\n    global x\n    x = 2\n";
        assert_eq!(scope("m.py", global, 3, 4), None, "a `global` name");
        let go = "package p\n\nfunc Run(n int) int {\n\tm := n + 1\n\treturn m\n}\n";
        assert_eq!(scope("p.go", go, 3, 1).map(|found| found.function), Some("Run".to_owned()));
        assert_eq!(scope("p.go", go, 2, 9).map(|found| found.function), Some("Run".to_owned()));
    }

    #[test]
    fn a_private_member_is_scoped_to_its_class_and_named_only_with_its_hash() {
        // @tanstack/query-core 5.108.4 (trial156 M2): `QueryClient.#queryCache`.
        let source = "export class A {\n  #cache = 1\n  get(o: object) {\n    return #cache in o ? this.#cache : cache\n  }\n}\nclass B {\n  #cache = 2\n}\n";
        let line = source.lines().nth(1).unwrap();
        let at_name = scope_private("a.ts", source, 1, line.find("cache").unwrap()).expect("a private field");
        let at_hash = scope_private("a.ts", source, 1, line.find('#').unwrap());
        assert_eq!((at_name.first_line, at_name.last_line, at_name.function.as_str(), at_name.private_member), (0, 5, "A", true));
        assert_eq!(at_hash.as_ref(), Some(&at_name));
        let uses = source.lines().nth(3).unwrap();
        let words: Vec<usize> = uses.match_indices("cache").map(|(at, _)| at).collect();
        let named: Vec<bool> = words.iter().map(|at| at_name.may_name(Path::new("a.ts"), 3, uses, *at)).collect();
        assert_eq!(named, [true, true, false], "`#cache in o`, `this.#cache`, the bare `cache`");
        assert!(!at_name.may_name(Path::new("a.ts"), 7, "  #cache = 2", 3), "B's own field");
        assert_eq!(scope_private("a.ts", source, 3, uses.rfind("cache").unwrap()), None, "a plain identifier");
    }

    fn scope_private(file: &str, source: &str, line: u32, column: usize) -> Option<LocalScope> {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join(file), source).unwrap();
        let reader = WorkspaceReader::open(&root).unwrap();
        private_member_scope(&reader, &root.join(file), line, column).map(|mut found| {
            found.path = PathBuf::from(file);
            found
        })
    }

    #[test]
    fn a_typescript_parameter_property_is_a_class_member_not_a_local() {
        // io-ts 2.2.21 (trial101 F1): `public runDefinition: () => C` in `RecursiveType`'s constructor.
        let source =
            "export class K {\n  constructor(public run: () => number, readonly size: number, private x: string, plain: number) {}\n}\n";
        let line = source.lines().nth(1).unwrap();
        assert_eq!(scope("k.ts", source, 1, line.find("run").unwrap()), None, "`public run`");
        assert_eq!(scope("k.ts", source, 1, line.find("size").unwrap()), None, "`readonly size`");
        assert_eq!(scope("k.ts", source, 1, line.find("x:").unwrap()), None, "`private x`");
        assert_eq!(scope("k.ts", source, 1, line.find("plain").unwrap()).map(|found| found.function), Some("constructor".to_owned()));
    }
}
