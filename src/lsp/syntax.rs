//! What a file's syntax tree (tree-sitter, the grammars ast-grep bundles) says about a
//! declaration a server reported, where the server's own answer is too coarse.
//!
//! - [`ParsedSource::declaration_facts`]: for a `workspace/symbol` result, the declaration's kind where the
//!   server says `variable` for something else (a TypeScript `type X<…> =` whose `=` sits on a
//!   later line, a re-export `export { X } from './x'`, an import) and the function the
//!   declaration sits in (tsserver lists a function's `const` locals among workspace symbols,
//!   with no container to tell them apart).
//!
//! Files no bundled grammar parses get no facts (`None`); callers keep the server's answer.

use std::path::Path;

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Language};
use ast_grep_language::SupportLang;

use crate::lsp::rename_coverage::word_positions;

/// What the syntax tree says about one declared name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeclarationFacts {
    /// A kind the declaration's syntax proves (`type alias`, `re-export`, `import`), when the
    /// server's kind may hide it; `None` keeps the server's kind.
    pub kind: Option<&'static str>,
    /// The name of the function (method, closure: `<anonymous>`) the declaration sits inside,
    /// when it is a local of one.
    pub enclosing_function: Option<String>,
}

/// Whether `old` and `new`, two texts of `path`, differ only in comments and in whitespace that
/// is not indentation: their syntax trees (the bundled grammar of `path`'s extension) hold the
/// same tokens, kind and text, in the same order, and every line's first token sits at the same
/// column. Such a change cannot change any other file's diagnostics.
///
/// Comments that carry meaning count as tokens: Python type comments (`# type: …`), TypeScript
/// triple-slash directives (`/// <reference …>`) and JSDoc blocks with a tag (`@deprecated`
/// marks uses in other files). `None` (not decided) for files of other languages than Python,
/// TypeScript, C and C++ (JavaScript's JSDoc comments are types under `checkJs`; Go's `//go:`
/// and cgo comments are code; Rust's doc comments are doc-tests), when a text does not parse
/// without errors, or when either text is larger than 2 MB.
pub fn only_comments_or_whitespace_changed(path: &Path, old: &str, new: &str) -> Option<bool> {
    const LARGEST: usize = 2 << 20;
    let extension = path.extension().and_then(|ext| ext.to_str()).unwrap_or("");
    let language = match extension {
        "py" | "pyi" => CommentLanguage::Python,
        "ts" | "tsx" | "mts" | "cts" => CommentLanguage::TypeScript,
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => CommentLanguage::C,
        _ => return None,
    };
    if old.len() > LARGEST || new.len() > LARGEST {
        return None;
    }
    if old == new {
        return Some(true);
    }
    let old_tokens = significant_tokens(path, old, language)?;
    let new_tokens = significant_tokens(path, new, language)?;
    Some(old_tokens == new_tokens)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CommentLanguage {
    Python,
    TypeScript,
    C,
}

/// The tokens of `source` that are not ignorable comments: (kind id, text, column when the token is
/// the first on its line). `None` when the tree has an error.
fn significant_tokens<'s>(path: &Path, source: &'s str, language: CommentLanguage) -> Option<Vec<(u16, &'s str, Option<usize>)>> {
    let parsed = ParsedSource::parse(path, source)?;
    let root = parsed.root.root().get_inner_node();
    if root.has_error() {
        return None;
    }
    let mut tokens = Vec::new();
    let mut last_line: Option<usize> = None;
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let kind = node.kind();
        let text = source.get(node.start_byte()..node.end_byte()).unwrap_or("");
        if kind.contains("comment") && !meaningful_comment(text, language) {
            continue;
        }
        if node.child_count() == 0 || kind.contains("comment") {
            if node.start_byte() == node.end_byte() {
                // A zero-width token (an automatic semicolon) is implied by its neighbours.
                continue;
            }
            let line = node.start_position().row;
            let first_on_line = last_line != Some(line);
            last_line = Some(line);
            tokens.push((node.kind_id(), text, first_on_line.then_some(node.start_position().column)));
            continue;
        }
        for index in (0..node.child_count()).rev() {
            if let Some(child) = node.child(index as _) {
                stack.push(child);
            }
        }
    }
    Some(tokens)
}

/// Comments whose text a checker reads (see [`only_comments_or_whitespace_changed`]).
fn meaningful_comment(text: &str, language: CommentLanguage) -> bool {
    match language {
        CommentLanguage::Python => text.trim_start_matches('#').trim_start().starts_with("type:"),
        CommentLanguage::TypeScript => text.starts_with("///") || (text.starts_with("/**") && text.contains('@')),
        CommentLanguage::C => false,
    }
}

/// What [`ParsedSource::typescript_scope_facts`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TypeScriptScopeFacts {
    /// A top-level `import` or `export`: the file is a module.
    pub is_module: bool,
    /// `declare global { … }`.
    pub augments_global: bool,
    /// `declare module "name" { … }`.
    pub declares_ambient_modules: bool,
}

/// Node kinds of function-like scopes, across the bundled grammars.
const FUNCTION_KINDS: &[&str] = &[
    // TypeScript / JavaScript
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
    // Python, C, C++
    "function_definition",
    "lambda",
    "lambda_expression",
    // Rust
    "function_item",
    "closure_expression",
    // Go
    "method_declaration",
    "func_literal",
    // Java, C#, Kotlin
    "constructor_declaration",
    "local_function_statement",
    "anonymous_function",
];

/// A name a Python module or class body defines (see [`ParsedSource::python_definitions`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonDefinition {
    /// The name defined.
    pub name: String,
    /// 0-based line of the name.
    pub line0: u32,
    /// `def`, `class` or `assignment`.
    pub keyword: &'static str,
    /// The decorators' text (`@t.overload`, `@value.setter`), in order; empty for none.
    pub decorators: Vec<String>,
}

/// A file parsed once for several [`ParsedSource::declaration_facts`] questions.
pub struct ParsedSource {
    source: String,
    line_starts: Vec<usize>,
    root: AstGrep<StrDoc<SupportLang>>,
}

impl ParsedSource {
    /// Parses `source`, the text of `path`, with the bundled grammar its extension names.
    /// `None` when no bundled grammar handles the file or the parser fails.
    pub fn parse(path: &Path, source: &str) -> Option<ParsedSource> {
        let language = SupportLang::from_path(path)?;
        let root = AstGrep::<StrDoc<SupportLang>>::try_new(source, language).ok()?;
        let mut line_starts = vec![0usize];
        line_starts.extend(source.match_indices('\n').map(|(at, _)| at + 1));
        Some(ParsedSource { source: source.to_owned(), line_starts, root })
    }

    /// Facts about the declaration of `name` reported at 0-based `line0` (the server's location
    /// start). The name is searched on that line from `character_hint` (the server's column,
    /// counted in characters; only a lower bound) else from the line's start; a qualified name
    /// (`Outer.inner`) is searched by its last part. `None` when the name is not on that line.
    pub fn declaration_facts(&self, line0: u32, character_hint: u32, name: &str) -> Option<DeclarationFacts> {
        let source = self.source.as_str();
        let identifier = self.identifier_at(line0, character_hint, name)?;
        let names_identifier = |node: &tree_sitter::Node<'_>| {
            node.child_by_field_name("name").is_some_and(|name| name.start_byte() == identifier.start_byte())
        };
        let mut facts = DeclarationFacts::default();
        let mut node = identifier;
        let mut own_declaration_seen = false;
        while let Some(parent) = node.parent() {
            node = parent;
            let kind = node.kind();
            if facts.kind.is_none() && !own_declaration_seen {
                facts.kind = match kind {
                    "type_alias_declaration" => Some("type alias"),
                    "export_specifier" => Some("re-export"),
                    "import_specifier" | "import_clause" | "namespace_import" => Some("import"),
                    _ => None,
                };
            }
            if FUNCTION_KINDS.contains(&kind) {
                // The function this name declares is not a scope around it.
                if names_identifier(&node) && !own_declaration_seen {
                    own_declaration_seen = true;
                    continue;
                }
                let function_name = node
                    .child_by_field_name("name")
                    .and_then(|name| source.get(name.start_byte()..name.end_byte()))
                    .map(str::to_owned)
                    .unwrap_or_else(|| "<anonymous>".to_owned());
                facts.enclosing_function = Some(function_name);
                break;
            }
            // A class, variable or other declaration of this very name is its own declaration;
            // scopes above it still count.
            if names_identifier(&node) {
                own_declaration_seen = true;
            }
        }
        Some(facts)
    }

    /// For a Python file: every `def`, `class` and assigned name (`x = …`, `x: T = …`,
    /// `a, b = …`, each target of `a = b = …`) of the module and of class bodies, also inside
    /// `if`/`else`, `try`, `with`, `for` and `while` blocks there, in source order — never
    /// inside a function body (parameters and locals). Empty for other grammars.
    pub fn python_definitions(&self) -> Vec<PythonDefinition> {
        let mut found = Vec::new();
        let root = self.root.root().get_inner_node();
        if root.kind() == "module" {
            self.collect_python_definitions(root, &mut found);
        }
        found
    }

    fn collect_python_definitions(&self, node: tree_sitter::Node<'_>, found: &mut Vec<PythonDefinition>) {
        let text = |node: tree_sitter::Node<'_>| self.source.get(node.start_byte()..node.end_byte()).unwrap_or("").to_owned();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "function_definition" | "class_definition" | "decorated_definition" => {
                    let (definition, decorators) = if child.kind() == "decorated_definition" {
                        let mut inner = child.walk();
                        let decorators: Vec<String> =
                            child.named_children(&mut inner).filter(|part| part.kind() == "decorator").map(text).collect();
                        match child.child_by_field_name("definition") {
                            Some(definition) => (definition, decorators),
                            None => continue,
                        }
                    } else {
                        (child, Vec::new())
                    };
                    let Some(name) = definition.child_by_field_name("name") else { continue };
                    let keyword = if definition.kind() == "class_definition" { "class" } else { "def" };
                    found.push(PythonDefinition { name: text(name), line0: name.start_position().row as u32, keyword, decorators });
                    // A class body's members are definitions too; a function's body is locals.
                    if keyword == "class" {
                        if let Some(body) = definition.child_by_field_name("body") {
                            self.collect_python_definitions(body, found);
                        }
                    }
                }
                "expression_statement" => {
                    let mut inner = child.walk();
                    for statement in child.named_children(&mut inner) {
                        let mut assignment = Some(statement);
                        // `a = b = 1` nests: the right side is another assignment.
                        while let Some(current) = assignment.filter(|node| node.kind() == "assignment") {
                            if let Some(left) = current.child_by_field_name("left") {
                                let targets: Vec<tree_sitter::Node<'_>> = match left.kind() {
                                    "identifier" => vec![left],
                                    "pattern_list" | "tuple_pattern" => {
                                        let mut parts = left.walk();
                                        left.named_children(&mut parts).filter(|part| part.kind() == "identifier").collect()
                                    }
                                    _ => Vec::new(),
                                };
                                for target in targets {
                                    found.push(PythonDefinition {
                                        name: text(target),
                                        line0: target.start_position().row as u32,
                                        keyword: "assignment",
                                        decorators: Vec::new(),
                                    });
                                }
                            }
                            assignment = current.child_by_field_name("right");
                        }
                    }
                }
                "if_statement" | "elif_clause" | "else_clause" | "try_statement" | "except_clause" | "finally_clause"
                | "with_statement" | "for_statement" | "while_statement" | "block" => {
                    self.collect_python_definitions(child, found);
                }
                _ => {}
            }
        }
    }

    /// For a TypeScript/JavaScript file: whether it is a module (a top-level `import` or
    /// `export`, including `export {}` and `import x = require(…)`), and whether it declares
    /// into the global scope from inside a module (`declare global { … }`) or declares ambient
    /// modules (`declare module "name" { … }`). A file that is no module is a script: its
    /// top-level declarations are global, so the files that use them import nothing.
    pub fn typescript_scope_facts(&self) -> TypeScriptScopeFacts {
        let root = self.root.root().get_inner_node();
        let mut facts = TypeScriptScopeFacts::default();
        let mut cursor = root.walk();
        for child in root.named_children(&mut cursor) {
            match child.kind() {
                "import_statement" | "export_statement" | "import_alias" => facts.is_module = true,
                "ambient_declaration" | "module" | "internal_module" => {
                    let text = self.source.get(child.start_byte()..child.end_byte()).unwrap_or("");
                    let head = text.split('{').next().unwrap_or("");
                    if head.split_whitespace().any(|word| word == "global") {
                        facts.augments_global = true;
                    }
                    if head.contains("module \"") || head.contains("module '") {
                        facts.declares_ambient_modules = true;
                    }
                }
                _ => {}
            }
        }
        facts
    }

    /// The syntax node of `name` on 0-based `line0`, searched from `character_hint` (characters,
    /// a lower bound) else from the line's start; a qualified name by its last part.
    fn identifier_at(&self, line0: u32, character_hint: u32, name: &str) -> Option<tree_sitter::Node<'_>> {
        let source = self.source.as_str();
        let line_start = *self.line_starts.get(line0 as usize)?;
        let line_end = self.line_starts.get(line0 as usize + 1).map_or(source.len(), |next| next - 1);
        let line_text = source.get(line_start..line_end)?.trim_end_matches('\r');
        let word = name.rsplit(['.', ':']).next().filter(|word| !word.is_empty()).unwrap_or(name);
        let positions = word_positions(line_text, word);
        let hint = line_text.char_indices().nth(character_hint as usize).map_or(line_text.len(), |(byte, _)| byte);
        let column = positions.iter().copied().find(|&at| at >= hint).or_else(|| positions.first().copied())?;
        let start = line_start + column;
        self.root.root().get_inner_node().descendant_for_byte_range(start, start + word.len())
    }

    /// Whether the declaration of `name` on 0-based `line0` (from `character_hint`, see
    /// [`ParsedSource::declaration_facts`]) is block-scoped code rather than a declaration of
    /// the module, a namespace or a class: it sits inside a loop (`for (const x of xs)`), an
    /// `if`/`else`, `try`/`catch`, `switch` or bare `{ … }` block, or a function body.
    /// `None` when the name is not on that line. For TypeScript and JavaScript grammars (other
    /// grammars' node kinds are not listed and answer `Some(false)`).
    pub fn declared_in_block(&self, line0: u32, character_hint: u32, name: &str) -> Option<bool> {
        let identifier = self.identifier_at(line0, character_hint, name)?;
        let mut node = identifier;
        let mut own_declaration_seen = false;
        while let Some(parent) = node.parent() {
            node = parent;
            let kind = node.kind();
            let names_identifier = node.child_by_field_name("name").is_some_and(|name| name.start_byte() == identifier.start_byte());
            if FUNCTION_KINDS.contains(&kind) {
                if names_identifier && !own_declaration_seen {
                    own_declaration_seen = true;
                    continue;
                }
                return Some(true);
            }
            match kind {
                // A namespace's or `declare global`'s body is a statement block of declarations.
                "statement_block" => {
                    let namespace_body =
                        node.parent().is_some_and(|parent| matches!(parent.kind(), "internal_module" | "module" | "ambient_declaration"));
                    if !namespace_body {
                        return Some(true);
                    }
                }
                "for_statement" | "for_in_statement" | "while_statement" | "do_statement" | "if_statement" | "else_clause"
                | "try_statement" | "catch_clause" | "finally_clause" | "switch_statement" | "switch_case" | "switch_default"
                | "labeled_statement" | "class_static_block" => return Some(true),
                "program" | "class_body" | "interface_body" | "object_type" | "enum_body" => return Some(false),
                _ => {}
            }
            if names_identifier {
                own_declaration_seen = true;
            }
        }
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(file: &str, source: &str, line0: u32, name: &str) -> DeclarationFacts {
        ParsedSource::parse(Path::new(file), source).expect("parsed").declaration_facts(line0, 0, name).expect("name on the line")
    }

    #[test]
    fn typescript_aliases_re_exports_and_locals_are_told_apart() {
        // redux: a type alias whose `=` is on a later line, re-exports in index.ts, and a
        // function's `const` local.
        let store = "export type StoreEnhancerStoreCreator<\n  Ext extends {} = {}\n> = <S>(r: S) => S\nexport interface Store {}\n";
        assert_eq!(facts("store.ts", store, 0, "StoreEnhancerStoreCreator").kind, Some("type alias"));
        assert_eq!(facts("store.ts", store, 3, "Store"), DeclarationFacts::default());
        let index = "import { createStore } from './createStore'\nexport {\n  Store,\n  StoreCreator\n} from './types/store'\nexport { createStore }\n";
        assert_eq!(facts("index.ts", index, 2, "Store").kind, Some("re-export"));
        assert_eq!(facts("index.ts", index, 5, "createStore").kind, Some("re-export"));
        assert_eq!(facts("index.ts", index, 0, "createStore").kind, Some("import"));
        let create = "export function createStore(reducer) {\n  const store = { reducer }\n  function inner() {}\n  return store\n}\nconst top = () => 1\n";
        let function = facts("createStore.ts", create, 0, "createStore");
        assert_eq!(function, DeclarationFacts::default(), "a function is not a local of itself");
        assert_eq!(facts("createStore.ts", create, 1, "store").enclosing_function.as_deref(), Some("createStore"));
        assert_eq!(facts("createStore.ts", create, 2, "inner").enclosing_function.as_deref(), Some("createStore"));
        assert_eq!(facts("createStore.ts", create, 5, "top").enclosing_function, None, "an arrow function assigned at top level");
    }

    #[test]
    fn typescript_loop_and_block_variables_are_block_scoped() {
        let source = "const VERSION = 1\nfor (const key of keys) {\n  const upper = key\n}\nif (ok) { let flag = 1 }\nnamespace NS {\n  export const inside = 2\n}\ndeclare global {\n  var tool: number\n}\nfunction run() {}\nexport class C { field = 1 }\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        assert_eq!(parsed.declared_in_block(0, 0, "VERSION"), Some(false));
        assert_eq!(parsed.declared_in_block(1, 0, "key"), Some(true), "a for-of loop variable");
        assert_eq!(parsed.declared_in_block(2, 0, "upper"), Some(true), "a loop body's const");
        assert_eq!(parsed.declared_in_block(4, 0, "flag"), Some(true), "an if block's let");
        assert_eq!(parsed.declared_in_block(6, 0, "inside"), Some(false), "a namespace member");
        assert_eq!(parsed.declared_in_block(9, 0, "tool"), Some(false), "a global augmentation");
        assert_eq!(parsed.declared_in_block(11, 0, "run"), Some(false), "a function is not inside itself");
        assert_eq!(parsed.declared_in_block(12, 0, "field"), Some(false), "a class field");
    }

    #[test]
    fn typescript_scripts_modules_and_global_augmentations_are_told_apart() {
        let facts = |source: &str| ParsedSource::parse(Path::new("a.d.ts"), source).expect("parsed").typescript_scope_facts();
        let script = facts("declare const VERSION: string\ninterface Window { app: number }\n");
        assert_eq!(script, TypeScriptScopeFacts::default(), "an ambient script");
        let module = facts("import { X } from './x'\nexport declare function f(x: X): void\n");
        assert!(module.is_module && !module.augments_global);
        let augmenting = facts("export {}\ndeclare global {\n  interface Window { app: number }\n}\n");
        assert!(augmenting.is_module && augmenting.augments_global);
        let ambient_module = facts("declare module \"untyped\" {\n  export const x: number\n}\n");
        assert!(!ambient_module.is_module && ambient_module.declares_ambient_modules);
    }

    #[test]
    fn comment_and_whitespace_changes_are_told_from_code_changes() {
        let same = |file: &str, old: &str, new: &str| only_comments_or_whitespace_changed(Path::new(file), old, new);
        let python = "def total(values):\n    return sum(values)\n";
        assert_eq!(same("a.py", python, &format!("# bench comment 1\n{python}")), Some(true));
        assert_eq!(same("a.py", python, "def total(values):\n    return sum(values)  # the sum\n"), Some(true));
        assert_eq!(same("a.py", python, "def total( values ):\n    return sum(values)\n\n\n"), Some(true));
        assert_eq!(same("a.py", python, "def total(values):\n    return sum(values) + 1\n"), Some(false));
        assert_eq!(same("a.py", "if x:\n    a = 1\n    b = 2\n", "if x:\n    a = 1\nb = 2\n"), Some(false), "indentation is code");
        assert_eq!(same("a.py", "x = []\n", "x = []  # type: list[int]\n"), Some(false), "a type comment is code");
        assert_eq!(same("a.py", python, "def total(values:\n"), None, "a parse error decides nothing");
        let ts = "export function f(x: number) {\n  return x;\n}\n";
        assert_eq!(same("a.ts", ts, &format!("// note\n{ts}")), Some(true));
        assert_eq!(same("a.ts", ts, &format!("/** @deprecated */\n{ts}")), Some(false), "a JSDoc tag shows in other files");
        assert_eq!(same("a.ts", ts, &format!("/// <reference types=\"node\" />\n{ts}")), Some(false));
        assert_eq!(same("a.js", "f()\n", "// c\nf()\n"), None, "JavaScript comments may be types");
        assert_eq!(same("a.h", "int f(void);\n", "/* doc */\nint f(void);\n"), Some(true));
        assert_eq!(same("a.rs", "fn f() {}\n", "// c\nfn f() {}\n"), None);
    }

    #[test]
    fn python_rust_and_go_locals_name_their_function() {
        let python = "def outer():\n    total = 1\n    def helper():\n        pass\n\nclass Config:\n    def load(self):\n        pass\n";
        assert_eq!(facts("a.py", python, 1, "total").enclosing_function.as_deref(), Some("outer"));
        assert_eq!(facts("a.py", python, 2, "helper").enclosing_function.as_deref(), Some("outer"));
        assert_eq!(facts("a.py", python, 6, "load").enclosing_function, None, "a method's container is its class");
        let rust = "fn main() {\n    struct Local;\n}\nstruct Global;\n";
        assert_eq!(facts("a.rs", rust, 1, "Local").enclosing_function.as_deref(), Some("main"));
        assert_eq!(facts("a.rs", rust, 3, "Global").enclosing_function, None);
        let go = "package x\nfunc Run() {\n\ttype local int\n}\n";
        assert_eq!(facts("a.go", go, 2, "local").enclosing_function.as_deref(), Some("Run"));
        assert!(ParsedSource::parse(Path::new("notes.unknown"), "x").is_none());
    }
}
