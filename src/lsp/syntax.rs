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

/// Whether `extension` (without the dot) is a TypeScript or JavaScript source file's: `ts`,
/// `tsx`, `mts`, `cts`, `js`, `jsx`, `mjs`, `cjs`.
pub(crate) fn is_typescript_family_extension(extension: &str) -> bool {
    matches!(extension, "ts" | "tsx" | "mts" | "cts" | "js" | "jsx" | "mjs" | "cjs")
}

/// Whether `path` is a TypeScript or JavaScript source file ([`is_typescript_family_extension`]).
pub(crate) fn is_typescript_family(path: &std::path::Path) -> bool {
    path.extension().and_then(|extension| extension.to_str()).is_some_and(is_typescript_family_extension)
}

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

/// Which call syntax [`ParsedSource::call_sites_in_function`] scans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallScan {
    Python,
    TypeScript,
    Rust,
    Go,
}

impl CallScan {
    fn for_language(language: SupportLang) -> Option<CallScan> {
        match language {
            SupportLang::Python => Some(CallScan::Python),
            SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript => Some(CallScan::TypeScript),
            SupportLang::Rust => Some(CallScan::Rust),
            SupportLang::Go => Some(CallScan::Go),
            _ => None,
        }
    }
}

/// Whether tsserver makes `node` a call hierarchy item of its own (its
/// `isValidCallHierarchyDeclaration`): the outer function's outgoing calls skip its body.
fn typescript_own_call_hierarchy_item(node: tree_sitter::Node<'_>) -> bool {
    match node.kind() {
        "function_declaration"
        | "generator_function_declaration"
        | "class_declaration"
        | "abstract_class_declaration"
        | "method_definition"
        | "class_static_block"
        | "module"
        | "internal_module" => true,
        "function_expression" | "function" | "generator_function" | "class" | "arrow_function" => {
            if node.child_by_field_name("name").is_some() {
                return true;
            }
            // A class property's value (`f = () => …`): tsserver lists the property itself.
            if let Some(property) = node.parent().filter(|parent| parent.kind() == "public_field_definition") {
                return property.child_by_field_name("value").is_some_and(|value| value.id() == node.id());
            }
            // `const f = () => …`: the declarator's value, in a `const` declaration.
            let Some(declarator) = node.parent().filter(|parent| parent.kind() == "variable_declarator") else {
                return false;
            };
            let is_value = declarator.child_by_field_name("value").is_some_and(|value| value.id() == node.id());
            let is_const = declarator.parent().is_some_and(|declaration| {
                declaration.kind() == "lexical_declaration" && declaration.child(0).is_some_and(|first| first.kind() == "const")
            });
            is_value && is_const
        }
        _ => false,
    }
}

/// What [`ParsedSource::go_file_facts`] found in a Go file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GoFileFacts {
    /// The package clause's name (`backoff`, `backoff_test`).
    pub package: String,
    /// The import paths, as written without quotes, in source order.
    pub imports: Vec<String>,
    /// The names the file declares in its package's scope: functions (not methods), types,
    /// variables and constants, in source order (`_` left out).
    pub package_scope_names: Vec<String>,
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

/// [`ParsedSource::string_property_key_role`] of a key in `Omit<T, …>`'s key list.
pub(crate) const OMIT_KEY_ROLE: &str = "key in the key list of `Omit<…>`";

/// [`ParsedSource::string_property_key_role`] of the left operand of `in` (`'value' in x`):
/// it tests for the property, and narrows `x` to a type that has it.
pub(crate) const IN_KEY_ROLE: &str = "left operand of `in`";

/// [`ParsedSource::string_property_key_role`] of an element access's key (`x['value']`).
pub(crate) const ELEMENT_ACCESS_ROLE: &str = "element-access key";

/// [`ParsedSource::string_property_key_role`] of a string argument of a call that is no built-in
/// property lookup (`emitChange('AsyncQueuer', this)`): a property key only where the
/// parameter's type is a `keyof`, which the call's syntax does not show — the callee's
/// declaration does ([`ParsedSource::string_argument_callee`],
/// [`ParsedSource::typescript_parameter_at`]). A test title (`test('map', …)`) or a message is
/// another string of the same word (trial145 M6).
pub(crate) const CALL_ARGUMENT_ROLE: &str = "call argument";

/// The built-in calls whose argument names a property key by the syntax alone: the called
/// expression (its last names, `?.` read as `.`), the key's argument index, and the role
/// [`ParsedSource::string_property_key_role`] gives the key.
const KEY_TAKING_CALLS: &[(&str, usize, &str)] = &[
    ("Object.hasOwn", 1, "key argument of `Object.hasOwn`"),
    ("Object.defineProperty", 1, "key argument of `Object.defineProperty`"),
    ("Object.getOwnPropertyDescriptor", 1, "key argument of `Object.getOwnPropertyDescriptor`"),
    ("Reflect.get", 1, "key argument of `Reflect.get`"),
    ("Reflect.has", 1, "key argument of `Reflect.has`"),
    ("Reflect.set", 1, "key argument of `Reflect.set`"),
    ("Reflect.deleteProperty", 1, "key argument of `Reflect.deleteProperty`"),
    ("Reflect.defineProperty", 1, "key argument of `Reflect.defineProperty`"),
    ("Reflect.getOwnPropertyDescriptor", 1, "key argument of `Reflect.getOwnPropertyDescriptor`"),
    ("hasOwnProperty.call", 1, "key argument of `hasOwnProperty`"),
    ("propertyIsEnumerable.call", 1, "key argument of `propertyIsEnumerable`"),
    (".hasOwnProperty", 0, "key argument of `hasOwnProperty`"),
    (".propertyIsEnumerable", 0, "key argument of `propertyIsEnumerable`"),
];

/// Whether `role` (of [`ParsedSource::string_property_key_role`]) is a key of a value in code —
/// `'k' in x`, `x['k']`, `Object.hasOwn(x, 'k')`, `Reflect.get(x, 'k')`, a call argument —
/// rather than a key in a type or a declaration's quoted name: the code looks the property up
/// at run time, and tsserver neither counts nor renames the string with the property.
pub(crate) fn is_key_of_a_value_role(role: &str) -> bool {
    role == IN_KEY_ROLE || role == ELEMENT_ACCESS_ROLE || role == CALL_ARGUMENT_ROLE || role.starts_with("key argument of ")
}

/// The callee of a string argument (see [`ParsedSource::string_argument_callee`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringArgumentCallee {
    /// The called name (`pluck` in `pluck(r, 'k')`, `emit` in `this.bus.emit('k')`, `Box` in
    /// `new Box('k')`).
    pub name: String,
    /// 0-based line of that name.
    pub line0: u32,
    /// Byte column of that name on its line.
    pub byte_column: usize,
    /// 0-based index of the string among the call's arguments.
    pub argument_index: usize,
}

/// The parameter a declaration takes at an argument index (see
/// [`ParsedSource::typescript_parameter_at`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredParameter {
    /// The parameter as written, whitespace collapsed (`key: K`, `name: string`).
    pub text: String,
    /// Whether its type is a `keyof` (`key: keyof T`), or a type parameter constrained by one
    /// (`K extends keyof T`): a string passed there is a property key. A literal union
    /// (`'push' | 'replace'`) is none (trial60 M1: an edit advised there broke tsc).
    pub is_keyof: bool,
}

/// Node kinds of function-like scopes, across the bundled grammars.
pub(crate) const FUNCTION_KINDS: &[&str] = &[
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

/// A Rust macro call in item position (see [`ParsedSource::rust_item_macro_invocations`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustItemMacroInvocation {
    /// The macro's name as called, without `!` (`rng_integer`, `std::thread_local`).
    pub macro_name: String,
    /// 1-based line of the call.
    pub line: u32,
    /// Where it stands: `impl Rng`, `trait Tr`, `mod m`, or `None` at the file's top level.
    pub container: Option<String>,
}

/// A Python class statement as its syntax tree shows it (see
/// [`ParsedSource::python_class_of_method`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonClassFacts {
    /// The class's name.
    pub name: String,
    /// 0-based line of the class's name.
    pub name_line0: u32,
    /// Byte column of the class's name on its line.
    pub name_byte_column: usize,
    /// The base classes listed in its `class …(…)` header, in order (keyword arguments such as
    /// `metaclass=` left out).
    pub bases: Vec<PythonBaseClass>,
    /// The members its body defines directly (`def`, decorated or not, and class attributes
    /// `name = …`), also inside the body's `if` blocks: name and 0-based line of the name, in
    /// source order (a name twice for `@property` + `@x.setter`).
    pub methods: Vec<(String, u32)>,
    /// The 0-based lines (as in `methods`) of the members declared only for a type checker,
    /// inside an `if TYPE_CHECKING:` (or `if typing.TYPE_CHECKING:`) block: at run time the
    /// class has no such member of its own (bidict 0.23.1's `MutableBidict.inv`, trial85 F1).
    pub type_checking_members: Vec<u32>,
    /// The 0-based lines (as in `methods`) of the members named by the class's `__slots__`
    /// strings: attributes of its instances, stored in the slot whatever a base class does.
    pub slot_members: Vec<u32>,
    /// The instance attributes its own methods assign through their first parameter
    /// (`self._lists = []` in `__init__`, `self.x: int = 0`), nested functions and classes left
    /// out: name and 0-based line of the first assignment, in source order. A subclass that
    /// assigns the attribute of its base is tied to it like an override (sortedcontainers
    /// 2.4.0's `SortedKeyList.__init__` sets `self._lists` itself, trial104 F1).
    pub instance_attributes: Vec<(String, u32)>,
}

impl PythonClassFacts {
    /// The 0-based line where the class declares `name`: a member of its body
    /// ([`PythonClassFacts::methods`]), else an instance attribute its methods assign
    /// ([`PythonClassFacts::instance_attributes`]).
    pub fn member_line(&self, name: &str) -> Option<u32> {
        self.methods.iter().chain(&self.instance_attributes).find(|(member, _)| member == name).map(|(_, line0)| *line0)
    }
}

/// The class whose body holds `block` (a `block` node), directly or through the blocks of `if`
/// statements in it (`if TYPE_CHECKING:`, `if sys.version_info >= …:`). `None` when `block` is
/// in no class body.
fn python_class_of_body_block(block: tree_sitter::Node<'_>) -> Option<tree_sitter::Node<'_>> {
    let mut block = block;
    loop {
        if block.kind() != "block" {
            return None;
        }
        let holder = block.parent()?;
        let if_statement = match holder.kind() {
            "class_definition" => return Some(holder),
            "if_statement" => holder,
            "elif_clause" | "else_clause" => holder.parent().filter(|parent| parent.kind() == "if_statement")?,
            _ => return None,
        };
        block = if_statement.parent()?;
    }
}

/// Whether an `if` condition is the type checker's flag: `TYPE_CHECKING`, `typing.TYPE_CHECKING`,
/// `t.TYPE_CHECKING`.
fn is_type_checking_condition(condition: &str) -> bool {
    let condition = condition.trim();
    condition == "TYPE_CHECKING"
        || condition
            .strip_suffix("TYPE_CHECKING")
            .is_some_and(|head| head.ends_with('.') && head[..head.len() - 1].chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.'))
}

/// One base class of a [`PythonClassFacts`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonBaseClass {
    /// The base expression as written (`Base`, `abc.MutableMapping`, `Generic[T]`).
    pub text: String,
    /// 0-based line of the name that resolves to the class (the last part of `mod.Base`, the
    /// value of `Base[int]`).
    pub line0: u32,
    /// Byte column of that name on its line.
    pub byte_column: usize,
}

/// A file parsed once for several [`ParsedSource::declaration_facts`] questions.
pub struct ParsedSource {
    source: String,
    line_starts: Vec<usize>,
    language: SupportLang,
    root: AstGrep<StrDoc<SupportLang>>,
}

/// One call that a function's syntax tree shows in its body (see
/// [`ParsedSource::call_sites_in_function`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxCallSite {
    /// 0-based line where the call starts — for a call in a method chain whose name is on a
    /// later line than the chain's head, the line of its name (and `text` starts there).
    pub line0: u32,
    /// Byte offsets in the file of the called name: the last identifier of the called expression
    /// (`serializer` in `self.serializer(root)`, `Box` in `new Box(x)`), or the last character
    /// of the called expression when it ends in no name (the `)` of `getattr(m, c)(**kw)`).
    pub callee_bytes: std::ops::Range<usize>,
    /// The call's source text on one line (whitespace runs collapsed), at most
    /// [`CALL_TEXT_CHARS`] characters (longer ones end in `…`).
    pub text: String,
    /// A Go builtin function or a conversion to a predeclared or composite type (`len(x)`,
    /// `int(x)`, `[]byte(s)`), which gopls lists no callee for.
    pub go_builtin: bool,
    /// Rust: the macro whose arguments hold this call-shaped token run, as written with its
    /// delimiter (`itry!(…)`, `vec![…]`; the innermost one when nested). rust-analyzer's
    /// `callHierarchy/outgoingCalls` does not descend into macro calls, so it lists none of
    /// these. `None`: a call the syntax tree parses as one.
    pub inside_macro: Option<String>,
}

/// `call_text` on one line (whitespace runs collapsed), cut to [`CALL_TEXT_CHARS`] characters
/// ending in `…`.
fn shortened_call_text(call_text: &str) -> String {
    let text = call_text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() > CALL_TEXT_CHARS {
        text.chars().take(CALL_TEXT_CHARS - 1).collect::<String>() + "…"
    } else {
        text
    }
}

/// A macro named as written, with its token tree's delimiters: `itry!(…)`, `vec![…]`.
fn macro_label(name: &str, token_tree: tree_sitter::Node<'_>) -> String {
    let delimiters = match token_tree.child(0).map(|open| open.kind()) {
        Some("[") => "[…]",
        Some("{") => "{…}",
        _ => "(…)",
    };
    format!("{name}!{delimiters}")
}

/// Longest call text [`SyntaxCallSite::text`] keeps, in characters.
pub const CALL_TEXT_CHARS: usize = 60;

/// Go's predeclared functions and types: a call of one is a builtin or a conversion.
const GO_PREDECLARED: &[&str] = &[
    "append",
    "cap",
    "clear",
    "close",
    "complex",
    "copy",
    "delete",
    "imag",
    "len",
    "make",
    "max",
    "min",
    "new",
    "panic",
    "print",
    "println",
    "real",
    "recover",
    "bool",
    "byte",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
    "any",
];

impl ParsedSource {
    /// Parses `source`, the text of `path`, with the bundled grammar its extension names.
    /// `None` when no bundled grammar handles the file or the parser fails.
    pub fn parse(path: &Path, source: &str) -> Option<ParsedSource> {
        let language = SupportLang::from_path(path)?;
        let root = AstGrep::<StrDoc<SupportLang>>::try_new(source, language).ok()?;
        let mut line_starts = vec![0usize];
        line_starts.extend(source.match_indices('\n').map(|(at, _)| at + 1));
        Some(ParsedSource { source: source.to_owned(), line_starts, language, root })
    }

    /// The byte offset in the file of 0-based `line0` and byte column `byte_column` (clamped to
    /// the line's end); `None` past the last line.
    pub fn byte_offset(&self, line0: u32, byte_column: usize) -> Option<usize> {
        let start = *self.line_starts.get(line0 as usize)?;
        let end = self.line_starts.get(line0 as usize + 1).map_or(self.source.len(), |next| next - 1);
        Some((start + byte_column).min(end))
    }

    /// The macro calls of a Rust file that stand where an item would — at the file's top level,
    /// in an `impl`/`trait` body or an inline module — in source order. Their expansion defines
    /// items (`rng_integer!(u32, …)` in fastrand's `impl Rng` defines the method `u32`) that a
    /// file outline from rust-analyzer does not list (trial66 M1). Empty for other grammars.
    pub fn rust_item_macro_invocations(&self) -> Vec<RustItemMacroInvocation> {
        if self.language != SupportLang::Rust {
            return Vec::new();
        }
        let bytes = self.source.as_bytes();
        let text_of = |node: tree_sitter::Node<'_>| node.utf8_text(bytes).ok().map(|text| text.split_whitespace().collect::<String>());
        let mut found = Vec::new();
        let mut stack = vec![(self.root.root().get_inner_node(), None::<String>)];
        while let Some((node, container)) = stack.pop() {
            let mut cursor = node.walk();
            let children: Vec<tree_sitter::Node<'_>> = node.children(&mut cursor).collect();
            for child in children.into_iter().rev() {
                // `integer!(u8, "…");` at top level parses as a statement holding the call.
                let child = match child.kind() {
                    "expression_statement" => match child.named_child(0) {
                        Some(inner) if inner.kind() == "macro_invocation" => inner,
                        _ => continue,
                    },
                    _ => child,
                };
                match child.kind() {
                    "macro_invocation" => {
                        let Some(name) = child.child_by_field_name("macro").and_then(text_of) else { continue };
                        found.push(RustItemMacroInvocation {
                            macro_name: name,
                            line: child.start_position().row as u32 + 1,
                            container: container.clone(),
                        });
                    }
                    "impl_item" | "trait_item" | "mod_item" => {
                        let Some(body) = child.child_by_field_name("body") else { continue };
                        let named = match child.kind() {
                            "impl_item" => child.child_by_field_name("type").and_then(text_of).map(|name| format!("impl {name}")),
                            "trait_item" => child.child_by_field_name("name").and_then(text_of).map(|name| format!("trait {name}")),
                            _ => child.child_by_field_name("name").and_then(text_of).map(|name| format!("mod {name}")),
                        };
                        stack.push((body, named));
                    }
                    _ => (),
                }
            }
        }
        found.sort_by_key(|invocation| invocation.line);
        found
    }

    /// Whether the Rust token at 0-based `line0`, byte column `byte_column` lies in a macro call's
    /// arguments (a `token_tree` of a `macro_invocation`, at any depth) — outside a
    /// `macro_rules!` definition's own templates. `false` for other grammars.
    pub fn in_macro_invocation_arguments(&self, line0: u32, byte_column: usize) -> bool {
        if self.language != SupportLang::Rust {
            return false;
        }
        let Some(at) = self.byte_offset(line0, byte_column) else { return false };
        let Some(mut node) = self.root.root().get_inner_node().descendant_for_byte_range(at, at) else { return false };
        while let Some(parent) = node.parent() {
            if parent.kind() == "macro_definition" {
                return false;
            }
            if node.kind() == "token_tree" && parent.kind() == "macro_invocation" {
                return true;
            }
            node = parent;
        }
        false
    }

    /// The name (as called, without `!`: `bitflags`, `crate::two_flags`) and 0-based last line of
    /// the Rust macro call that starts exactly at 0-based `line0`, byte column `byte_column` — at
    /// the call's path or at an attribute in front of it, the start rust-analyzer gives for a
    /// macro call's range. `None` anywhere else (inside the call's arguments, at a `macro_rules!` definition, at an
    /// identifier) and for other grammars.
    ///
    /// rust-analyzer answers a definition of an item a macro generates with the macro call's
    /// range when it cannot map the item's name back to one identifier: such a location is no
    /// identifier, and one call can generate several items of the same name (trial171 F1:
    /// bitflags' `TestFlags::ABC` and `TestFlagsInvert::ABC` both "defined" at `bitflags! {`).
    pub fn rust_macro_call_starting_at(&self, line0: u32, byte_column: usize) -> Option<(String, u32)> {
        if self.language != SupportLang::Rust {
            return None;
        }
        let at = self.byte_offset(line0, byte_column)?;
        let bytes = self.source.as_bytes();
        let name_of = |call: tree_sitter::Node<'_>| -> Option<(String, u32)> {
            let name = call.child_by_field_name("macro")?.utf8_text(bytes).ok()?;
            Some((name.split_whitespace().collect(), call.end_position().row as u32))
        };
        let mut node = self.root.root().get_inner_node().descendant_for_byte_range(at, at)?;
        loop {
            if node.start_byte() != at {
                return None;
            }
            match node.kind() {
                "macro_invocation" => return name_of(node),
                // `#[rustfmt::skip] bitflags! { … }`: the attributes stand before the call as
                // siblings; rust-analyzer's range of the call starts at the first of them.
                "attribute_item" => {
                    let mut next = node.next_named_sibling();
                    while let Some(sibling) = next {
                        match sibling.kind() {
                            "attribute_item" | "line_comment" | "block_comment" => next = sibling.next_named_sibling(),
                            "macro_invocation" => return name_of(sibling),
                            "expression_statement" => {
                                return sibling.named_child(0).filter(|inner| inner.kind() == "macro_invocation").and_then(name_of);
                            }
                            _ => return None,
                        }
                    }
                    return None;
                }
                _ => (),
            }
            node = node.parent()?;
        }
    }

    /// The text of 0-based line `line0` without its line break; `None` past the last line.
    pub fn line_text(&self, line0: u32) -> Option<&str> {
        let start = *self.line_starts.get(line0 as usize)?;
        let end = self.line_starts.get(line0 as usize + 1).map_or(self.source.len(), |next| next - 1);
        self.source.get(start..end).map(|line| line.trim_end_matches('\r'))
    }

    /// Every call in the body of the function (method, `const f = () => …`) whose name
    /// `name` is on 0-based `line0` (searched from `character_hint` as in
    /// [`ParsedSource::declaration_facts`]), in source order, scanned the way the language's
    /// server scans a body for `callHierarchy/outgoingCalls`:
    ///
    /// - Python (`call`), Go (`call_expression`, `type_conversion_expression`) and Rust
    ///   (`call_expression`): the whole body, nested functions,
    ///   lambdas, closures and classes included (pyright, gopls and rust-analyzer list their
    ///   calls as the outer function's). A Rust macro's arguments are token trees to the
    ///   grammar: inside them (nested token trees and nested macros too) every call-shaped token
    ///   run — a name, optionally after a `a.b.` / `A::` path, directly followed by `(…)`, not
    ///   a `fn` or `struct` being declared — counts as a call, marked
    ///   [`SyntaxCallSite::inside_macro`]; string literals (`format!` strings) are single
    ///   tokens and count for nothing. A tuple-struct pattern (`matches!(x, Some(_))`) is
    ///   call-shaped too and counts.
    /// - TypeScript / JavaScript (`call_expression`, `new_expression`): nested declarations
    ///   tsserver makes items of their own are skipped — function and class declarations,
    ///   methods, static blocks, named function or class expressions, and function, arrow or
    ///   class expressions a `const` is initialized with; `import(…)` is no call.
    ///
    /// `None` for other grammars, when no function is named there, or when it has no body.
    pub fn call_sites_in_function(&self, line0: u32, character_hint: u32, name: &str) -> Option<Vec<SyntaxCallSite>> {
        let scan = CallScan::for_language(self.language)?;
        let identifier = self.identifier_at(line0, character_hint, name)?;
        let function = self.function_named_by(identifier)?;
        let body = function.child_by_field_name("body")?;
        let mut found = Vec::new();
        let mut stack = vec![body];
        while let Some(node) = stack.pop() {
            if scan == CallScan::TypeScript && node.id() != body.id() && typescript_own_call_hierarchy_item(node) {
                continue;
            }
            if let Some(site) = self.call_site(scan, node) {
                found.push(site);
            }
            if scan == CallScan::Rust && node.kind() == "macro_invocation" {
                let macro_name = node.child_by_field_name("macro").map_or("", |name| self.node_text(name));
                let mut cursor = node.walk();
                let token_trees: Vec<tree_sitter::Node<'_>> =
                    node.children(&mut cursor).filter(|child| child.kind() == "token_tree").collect();
                for token_tree in token_trees {
                    self.macro_call_sites(token_tree, &macro_label(macro_name, token_tree), &mut found);
                }
                continue;
            }
            for index in (0..node.child_count()).rev() {
                if let Some(child) = node.child(index as _) {
                    stack.push(child);
                }
            }
        }
        Some(found)
    }

    /// Rust: the body of the function named `name` declared on 0-based `line0`; `None` in another
    /// language or where no such function is found.
    fn rust_function_body(&self, line0: u32, character_hint: u32, name: &str) -> Option<tree_sitter::Node<'_>> {
        if CallScan::for_language(self.language)? != CallScan::Rust {
            return None;
        }
        let identifier = self.identifier_at(line0, character_hint, name)?;
        self.function_named_by(identifier)?.child_by_field_name("body")
    }

    /// Rust: the macro invocations in the body of the function named `name` declared on 0-based
    /// `line0` (see [`ParsedSource::call_sites_in_function`]), each as (0-based line, byte range
    /// of the macro's name in the file, the macro's name as written: `anyhow`, `crate::bail`).
    /// Invocations nested in another's arguments (token trees) are not separate nodes and are not
    /// listed. `None` when the language is not Rust or no such function body is found.
    pub fn rust_macro_invocations_in_function(
        &self,
        line0: u32,
        character_hint: u32,
        name: &str,
    ) -> Option<Vec<(u32, std::ops::Range<usize>, String)>> {
        let body = self.rust_function_body(line0, character_hint, name)?;
        let mut found = Vec::new();
        let mut stack = vec![body];
        while let Some(node) = stack.pop() {
            if node.kind() == "macro_invocation" {
                // The macro's name is what a listed call must cover to stand for the invocation:
                // a call listed in its arguments (`bail!("{}", describe(x))`) does not.
                let Some(name_node) = node.child_by_field_name("macro") else { continue };
                found.push((
                    node.start_position().row as u32,
                    name_node.start_byte()..name_node.end_byte(),
                    self.node_text(name_node).to_owned(),
                ));
                continue;
            }
            for index in (0..node.child_count()).rev() {
                if let Some(child) = node.child(index as _) {
                    stack.push(child);
                }
            }
        }
        Some(found)
    }

    /// Rust: the operator uses in the body of the function named `name` declared on 0-based
    /// `line0` that call a trait method when their operand's type implements it (`a < b` →
    /// `PartialOrd::lt`, `x += y` → `AddAssign::add_assign`, `-x` → `Neg::neg`): binary
    /// arithmetic, bitwise and comparison operators, compound assignments and unary `-`/`!`;
    /// each as (0-based line, the expression's text cut to 40 characters). `&&`/`||` are left
    /// out (no trait). `None` when the language is not Rust or no such function body is found.
    pub fn rust_operator_uses_in_function(&self, line0: u32, character_hint: u32, name: &str) -> Option<Vec<(u32, String)>> {
        let body = self.rust_function_body(line0, character_hint, name)?;
        let mut found = Vec::new();
        let mut stack = vec![body];
        while let Some(node) = stack.pop() {
            let operator = match node.kind() {
                "binary_expression" | "compound_assignment_expr" => node.child_by_field_name("operator").map(|op| self.node_text(op)),
                "unary_expression" => node.child(0).map(|op| self.node_text(op)).filter(|op| matches!(*op, "-" | "!")),
                _ => None,
            };
            if operator.is_some_and(|op| !matches!(op, "&&" | "||")) {
                let text: String = self.node_text(node).split_whitespace().collect::<Vec<_>>().join(" ");
                found.push((node.start_position().row as u32, crate::render::cut_chars(&text, 40)));
            }
            for index in (0..node.child_count()).rev() {
                if let Some(child) = node.child(index as _) {
                    stack.push(child);
                }
            }
        }
        found.sort();
        Some(found)
    }

    /// TypeScript/JavaScript: the function expression assigned to a member
    /// (`Effect.prototype._callback = function () {…}`) whose body holds 0-based `line0`, byte
    /// `byte` of that line: the member as written (`Effect.prototype._callback`) and its name's
    /// 0-based line and column in characters. tsserver's call hierarchy names no such function:
    /// a call inside it is given under the file (trial121 M1, F2). `None` elsewhere, or when a
    /// nearer function encloses the place.
    pub fn typescript_member_function_at(&self, line0: u32, byte: usize) -> Option<(String, u32, u32)> {
        if !matches!(
            self.language,
            ast_grep_language::SupportLang::TypeScript | ast_grep_language::SupportLang::Tsx | ast_grep_language::SupportLang::JavaScript
        ) {
            return None;
        }
        let start = *self.line_starts.get(line0 as usize)? + byte;
        let mut node = self.root.root().get_inner_node().descendant_for_byte_range(start, start)?;
        loop {
            if FUNCTION_KINDS.contains(&node.kind()) {
                let parent = node.parent()?;
                if parent.kind() != "assignment_expression" {
                    return None;
                }
                let left = parent.child_by_field_name("left").filter(|left| left.kind() == "member_expression")?;
                let property = left.child_by_field_name("property")?;
                let property_line0 = property.start_position().row as u32;
                let line_start = *self.line_starts.get(property_line0 as usize)?;
                let character = self.source.get(line_start..property.start_byte())?.chars().count() as u32;
                return Some((self.node_text(left).to_owned(), property_line0, character));
            }
            node = node.parent()?;
        }
    }

    fn node_text(&self, node: tree_sitter::Node<'_>) -> &str {
        self.source.get(node.start_byte()..node.end_byte()).unwrap_or("")
    }

    /// TypeScript/JavaScript: the named functions whose bodies hold 0-based `line0`, byte `byte`
    /// of that line, outermost first, each named by what it is bound to — a declaration's name, a
    /// class's method (`Class.method`), a property of an object literal bound to a variable
    /// (`ColumnFiltering.createColumn`, nested objects joined with `.`), the target of an
    /// assignment (`column.setFilterValue`), a variable (`handler`). Anonymous functions (a
    /// callback passed to a call) are skipped; empty when no named function holds the place.
    /// tsserver's call hierarchy names none of the bound function expressions and gives a call in
    /// them under the file (trial168 M3: `functionalUpdate(…)` inside `column.setFilterValue =
    /// value => {…}` in `ColumnFiltering.createColumn` was called the file's top-level code).
    pub fn typescript_enclosing_function_names(&self, line0: u32, byte: usize) -> Vec<String> {
        if !matches!(
            self.language,
            ast_grep_language::SupportLang::TypeScript | ast_grep_language::SupportLang::Tsx | ast_grep_language::SupportLang::JavaScript
        ) {
            return Vec::new();
        }
        let Some(start) = self.line_starts.get(line0 as usize).map(|line_start| line_start + byte) else { return Vec::new() };
        let Some(mut node) = self.root.root().get_inner_node().descendant_for_byte_range(start, start) else { return Vec::new() };
        let mut names: Vec<String> = Vec::new();
        loop {
            if FUNCTION_KINDS.contains(&node.kind()) {
                if let Some(name) = self.typescript_function_binding_name(node) {
                    names.push(name);
                }
            }
            match node.parent() {
                Some(parent) => node = parent,
                None => break,
            }
        }
        names.reverse();
        names
    }

    /// What the function-like `function` is bound to, as [`Self::typescript_enclosing_function_names`]
    /// says it; `None` when anonymous.
    fn typescript_function_binding_name(&self, function: tree_sitter::Node<'_>) -> Option<String> {
        let own_name = function.child_by_field_name("name").map(|name| self.node_text(name).to_owned());
        match function.kind() {
            "function_declaration" | "generator_function_declaration" => return own_name,
            "method_definition" => {
                let name = own_name?;
                let container = function.parent()?;
                return Some(match container.kind() {
                    "class_body" => match container.parent().and_then(|class| class.child_by_field_name("name")) {
                        Some(class) => format!("{}.{name}", self.node_text(class)),
                        None => name,
                    },
                    "object" => self.object_member_path(container, &name),
                    _ => name,
                });
            }
            _ => {}
        }
        let parent = function.parent()?;
        match parent.kind() {
            "pair" => {
                let key = parent.child_by_field_name("key")?;
                let key = self.node_text(key).trim_matches(|c| c == '\'' || c == '"').to_owned();
                Some(self.object_member_path(parent.parent()?, &key))
            }
            "assignment_expression" => parent.child_by_field_name("left").map(|left| self.node_text(left).to_owned()),
            "variable_declarator" | "public_field_definition" | "field_definition" => parent
                .child_by_field_name("name")
                .or_else(|| parent.child_by_field_name("property"))
                .map(|name| self.node_text(name).to_owned()),
            _ => own_name,
        }
    }

    /// `member` of the object literal `object`, prefixed with what the object is bound to: a
    /// variable (`ColumnFiltering.createColumn`), an outer object's key (`a.b.member`), or
    /// nothing known (`member`).
    fn object_member_path(&self, object: tree_sitter::Node<'_>, member: &str) -> String {
        let mut path = vec![member.to_owned()];
        let mut node = object;
        loop {
            // Through `{…} as T` and `{…} satisfies T` to what binds the literal.
            let mut bound = node.parent();
            while let Some(up) =
                bound.filter(|up| matches!(up.kind(), "as_expression" | "satisfies_expression" | "parenthesized_expression"))
            {
                bound = up.parent();
            }
            let Some(up) = bound else { break };
            match up.kind() {
                "variable_declarator" => {
                    if let Some(name) = up.child_by_field_name("name") {
                        path.push(self.node_text(name).to_owned());
                    }
                    break;
                }
                "pair" => {
                    let Some(key) = up.child_by_field_name("key") else { break };
                    path.push(self.node_text(key).trim_matches(|c| c == '\'' || c == '"').to_owned());
                    let Some(outer) = up.parent().filter(|outer| outer.kind() == "object") else { break };
                    node = outer;
                }
                _ => break,
            }
        }
        path.reverse();
        path.join(".")
    }

    /// The call-shaped token runs in a Rust macro's `token_tree` (see
    /// [`ParsedSource::call_sites_in_function`]), in source order, nested token trees included;
    /// `label` names the macro (`itry!(…)`), a nested `name!(…)` names its own.
    fn macro_call_sites(&self, token_tree: tree_sitter::Node<'_>, label: &str, found: &mut Vec<SyntaxCallSite>) {
        let mut cursor = token_tree.walk();
        let tokens: Vec<tree_sitter::Node<'_>> = token_tree.children(&mut cursor).collect();
        for (index, token) in tokens.iter().enumerate() {
            if token.kind() != "token_tree" {
                continue;
            }
            let before = |back: usize| index.checked_sub(back).map(|at| tokens[at]);
            let nested_macro =
                before(1).filter(|bang| self.node_text(*bang) == "!").and(before(2)).filter(|name| name.kind() == "identifier");
            if let Some(name) = nested_macro {
                self.macro_call_sites(*token, &macro_label(self.node_text(name), *token), found);
                continue;
            }
            let opens_with_parenthesis = token.child(0).is_some_and(|open| open.kind() == "(");
            let callee = before(1).filter(|name| name.kind() == "identifier");
            let declared = before(2).is_some_and(|keyword| matches!(keyword.kind(), "fn" | "struct" | "enum" | "union"));
            if let (true, Some(callee), false) = (opens_with_parenthesis, callee, declared) {
                // Walk back over the receiver or path: `a.b.`, `A::`, `dent.path().`.
                let mut start = index - 1;
                while start >= 2 && matches!(self.node_text(tokens[start - 1]), "." | "::") {
                    let part = tokens[start - 2];
                    if matches!(part.kind(), "identifier" | "self" | "super" | "crate" | "primitive_type") {
                        start -= 2;
                    } else if part.kind() == "token_tree" && start >= 3 && tokens[start - 3].kind() == "identifier" {
                        start -= 3;
                    } else {
                        break;
                    }
                }
                let call_text = self.source.get(tokens[start].start_byte()..token.end_byte()).unwrap_or("");
                found.push(SyntaxCallSite {
                    line0: tokens[start].start_position().row as u32,
                    callee_bytes: callee.start_byte()..callee.end_byte(),
                    text: shortened_call_text(call_text),
                    go_builtin: false,
                    inside_macro: Some(label.to_owned()),
                });
            }
            self.macro_call_sites(*token, label, found);
        }
    }

    /// The function `identifier` names: the closest function-like ancestor whose `name` it is,
    /// or the function or arrow expression of `const identifier = …` (TypeScript/JavaScript).
    fn function_named_by<'t>(&'t self, identifier: tree_sitter::Node<'t>) -> Option<tree_sitter::Node<'t>> {
        let mut node = identifier;
        while let Some(parent) = node.parent() {
            node = parent;
            let names_identifier = node.child_by_field_name("name").is_some_and(|name| name.start_byte() == identifier.start_byte());
            if FUNCTION_KINDS.contains(&node.kind()) {
                return names_identifier.then_some(node);
            }
            // `const f = () => …`, and a class property `f = () => …` (the style of whole
            // packages: @tanstack/form-core writes every method so).
            if matches!(node.kind(), "variable_declarator" | "public_field_definition") && names_identifier {
                return node.child_by_field_name("value").filter(|value| FUNCTION_KINDS.contains(&value.kind()));
            }
            // `Effect.prototype._start = function () {…}` (trial121 F1: @preact/signals-core
            // writes every method so): the function assigned to the member the name ends.
            if node.kind() == "assignment_expression" {
                let names_member = node
                    .child_by_field_name("left")
                    .filter(|left| left.kind() == "member_expression")
                    .and_then(|left| left.child_by_field_name("property"))
                    .is_some_and(|property| property.start_byte() == identifier.start_byte());
                return node.child_by_field_name("right").filter(|right| names_member && FUNCTION_KINDS.contains(&right.kind()));
            }
        }
        None
    }

    /// The call `node` is, if it is one.
    fn call_site(&self, scan: CallScan, node: tree_sitter::Node<'_>) -> Option<SyntaxCallSite> {
        let callee = match (scan, node.kind()) {
            (CallScan::Python, "call") => node.child_by_field_name("function")?,
            (CallScan::TypeScript, "call_expression") => {
                let function = node.child_by_field_name("function")?;
                if function.kind() == "import" {
                    return None;
                }
                function
            }
            (CallScan::TypeScript, "new_expression") => node.child_by_field_name("constructor")?,
            (CallScan::Rust | CallScan::Go, "call_expression") => node.child_by_field_name("function")?,
            // `[]byte(s)`, `map[string]int(m)`: a conversion the grammar tells from a call.
            (CallScan::Go, "type_conversion_expression") => node.child_by_field_name("type")?,
            _ => return None,
        };
        let mut name = callee;
        loop {
            let field = match name.kind() {
                "attribute" => "attribute",
                "member_expression" => "property",
                "field_expression" | "selector_expression" => "field",
                "scoped_identifier" => "name",
                "generic_function" => "function",
                _ => break,
            };
            match name.child_by_field_name(field) {
                Some(inner) => name = inner,
                None => break,
            }
        }
        // A called expression that ends in no name (`getattr(m, c)(**kw)`, `handlers[0](x)`,
        // `(self.fun)(a)`) is named by its last character: a server's range of the inner call's
        // name (`getattr`) must not count for the outer call.
        let callee_bytes = if name.child_count() == 0 || name.id() != callee.id() || !callee.is_named() {
            name.start_byte()..name.end_byte()
        } else {
            callee.end_byte().saturating_sub(1)..callee.end_byte()
        };
        // A call of a method chain whose name is on a later line than the chain's head
        // (`parsePort(input)\n  .map(…)`) stands at its name, from the name on (trial141 F2: the
        // chain's calls were all said at its first line).
        let starts_at_name = name.start_position().row > node.start_position().row;
        let from = if starts_at_name { name.start_byte() } else { node.start_byte() };
        let text = shortened_call_text(self.source.get(from..node.end_byte()).unwrap_or(""));
        let callee_text = self.source.get(callee.start_byte()..callee.end_byte()).unwrap_or("");
        Some(SyntaxCallSite {
            line0: if starts_at_name { name.start_position().row as u32 } else { node.start_position().row as u32 },
            callee_bytes,
            text,
            go_builtin: scan == CallScan::Go && (node.kind() == "type_conversion_expression" || GO_PREDECLARED.contains(&callee_text)),
            inside_macro: None,
        })
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
        // Rust: a name in a `use` item is an import, a re-export with `pub` — rust-analyzer gives
        // it the kind of what it imports (`struct Writer` at csv-core's `pub use crate::writer::{…}`,
        // trial27b M4).
        let mut up = identifier.parent();
        while let Some(ancestor) = up {
            if ancestor.kind() == "use_declaration" {
                let mut cursor = ancestor.walk();
                let public = ancestor.children(&mut cursor).any(|child| child.kind() == "visibility_modifier");
                facts.kind = Some(if public { "re-export" } else { "import" });
                break;
            }
            if !matches!(ancestor.kind(), "use_list" | "scoped_use_list" | "scoped_identifier" | "use_as_clause") {
                break;
            }
            up = ancestor.parent();
        }
        let mut node = identifier;
        let mut own_declaration_seen = facts.kind.is_some();
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
        self.python_definitions_within(false)
    }

    /// [`ParsedSource::python_definitions`], and also the `def`s and `class`es inside function
    /// bodies (at any depth; their assignments stay locals), which pyright's outline lists as
    /// children — one per name, like the module's (trial140 F2: cachetools' `cached` defines
    /// `wrapper` in 6 branches, one listed).
    pub fn python_definitions_with_nested_functions(&self) -> Vec<PythonDefinition> {
        self.python_definitions_within(true)
    }

    fn python_definitions_within(&self, nested_functions: bool) -> Vec<PythonDefinition> {
        let mut found = Vec::new();
        let root = self.root.root().get_inner_node();
        if root.kind() == "module" {
            self.collect_python_definitions(root, &mut found, nested_functions, false);
        }
        found
    }

    /// Collects the definitions of `node`'s statements into `found`; `nested_functions`: also
    /// those in function bodies, where `in_function` (a function's body) leaves assignments out.
    fn collect_python_definitions(
        &self,
        node: tree_sitter::Node<'_>,
        found: &mut Vec<PythonDefinition>,
        nested_functions: bool,
        in_function: bool,
    ) {
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
                    // A class body's members are definitions too; a function's body is locals
                    // (but for its own `def`s and `class`es, with `nested_functions`).
                    if keyword == "class" || nested_functions {
                        if let Some(body) = definition.child_by_field_name("body") {
                            self.collect_python_definitions(body, found, nested_functions, keyword == "def");
                        }
                    }
                }
                "expression_statement" if !in_function => {
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
                    self.collect_python_definitions(child, found, nested_functions, in_function);
                }
                _ => {}
            }
        }
    }

    /// For a Python file: the class whose body defines the method `name` at 0-based `line0`
    /// (a `def`, decorated or not, or a class attribute `name = …`, directly in the class body).
    /// `None` when no such definition is on that line or it is no class member (a module-level
    /// or nested function, a local).
    pub fn python_class_of_method(&self, line0: u32, name: &str) -> Option<PythonClassFacts> {
        let identifier = self.identifier_at(line0, 0, name)?;
        let definition = identifier.parent()?;
        let names_it = |field: &str| definition.child_by_field_name(field).is_some_and(|named| named.id() == identifier.id());
        let mut outer = match definition.kind() {
            "function_definition" if names_it("name") => definition.parent()?,
            // A class attribute (`D = dict`, `kw: dict = {}`): a member a subclass can override.
            // Also a later target of a chained assignment (`visit_term = visit_atom = lift`,
            // nested as the right side: trial88 M2).
            "assignment" if names_it("left") => {
                let mut statement = definition.parent()?;
                while statement.kind() == "assignment" {
                    statement = statement.parent()?;
                }
                statement.parent().filter(|_| statement.kind() == "expression_statement")?
            }
            _ => return None,
        };
        if outer.kind() == "decorated_definition" {
            outer = outer.parent()?;
        }
        let class = python_class_of_body_block(outer)?;
        self.python_class_facts(class)
    }

    /// For a Python file: the function whose parameter `name` is declared at 0-based `line0`
    /// (plain, defaulted, typed, `*args`/`**kwargs` left out): the function's name and the
    /// 0-based line of its name. `None` when no such parameter is on that line.
    pub fn python_function_of_parameter(&self, line0: u32, name: &str) -> Option<(String, u32)> {
        let identifier = self.identifier_at(line0, 0, name)?;
        let mut node = identifier.parent()?;
        if matches!(node.kind(), "default_parameter" | "typed_default_parameter" | "typed_parameter") {
            let names_it = node.child_by_field_name("name").is_some_and(|named| named.id() == identifier.id())
                || (node.kind() == "typed_parameter" && node.named_child(0).is_some_and(|first| first.id() == identifier.id()));
            if !names_it {
                return None;
            }
            node = node.parent()?;
        }
        if node.kind() != "parameters" {
            return None;
        }
        let function = node.parent().filter(|function| function.kind() == "function_definition")?;
        let function_name = function.child_by_field_name("name")?;
        Some((self.source.get(function_name.start_byte()..function_name.end_byte())?.to_owned(), function_name.start_position().row as u32))
    }

    /// For a Python function whose name is on 0-based `line0` (`name`): its `**kwargs`
    /// parameter's name, when it has one — a keyword it does not name goes there silently.
    /// `None` otherwise.
    pub fn python_keyword_splat_of(&self, line0: u32, name: &str) -> Option<String> {
        let identifier = self.identifier_at(line0, 0, name)?;
        let function = identifier.parent().filter(|function| function.kind() == "function_definition")?;
        let parameters = function.child_by_field_name("parameters")?;
        let mut cursor = parameters.walk();
        let splat = parameters.named_children(&mut cursor).find(|parameter| {
            parameter.kind() == "dictionary_splat_pattern"
                || (parameter.kind() == "typed_parameter"
                    && parameter.named_child(0).is_some_and(|inner| inner.kind() == "dictionary_splat_pattern"))
        })?;
        let text = self.source.get(splat.start_byte()..splat.end_byte())?;
        Some(text.split(':').next().unwrap_or(text).trim().to_owned())
    }

    /// For a Python file: the class whose method assigns the instance attribute `name` at 0-based
    /// `line0` (`self.name = …`, `self.name: T = …`, the object being the method's first
    /// parameter, decorated methods too). `None` when no such assignment is on that line or its
    /// function is no method of a class.
    pub fn python_class_of_instance_attribute(&self, line0: u32, name: &str) -> Option<PythonClassFacts> {
        let identifier = self.identifier_at(line0, 0, name)?;
        let attribute = identifier.parent().filter(|node| node.kind() == "attribute")?;
        attribute.child_by_field_name("attribute").filter(|part| part.id() == identifier.id())?;
        let object = attribute.child_by_field_name("object").filter(|object| object.kind() == "identifier")?;
        let assignment = attribute.parent().filter(|node| node.kind() == "assignment")?;
        assignment.child_by_field_name("left").filter(|left| left.id() == attribute.id())?;
        let mut node = assignment;
        let function = loop {
            node = node.parent()?;
            match node.kind() {
                "function_definition" => break node,
                "class_definition" | "lambda" => return None,
                _ => {}
            }
        };
        // The object is the method's first parameter (`self` by convention).
        let parameters = function.child_by_field_name("parameters")?;
        let mut cursor = parameters.walk();
        let first = parameters.named_children(&mut cursor).next()?;
        let first_name = if first.kind() == "identifier" { first } else { first.child_by_field_name("name").unwrap_or(first) };
        let text = |node: tree_sitter::Node<'_>| self.source.get(node.start_byte()..node.end_byte()).unwrap_or("");
        if text(first_name) != text(object) {
            return None;
        }
        let mut outer = function.parent()?;
        if outer.kind() == "decorated_definition" {
            outer = outer.parent()?;
        }
        let class = python_class_of_body_block(outer)?;
        self.python_class_facts(class)
    }

    /// For a Python file: every class statement (at any depth, in source order) that lists
    /// `base` among its bases, compared with each base's last dotted part (`abc.Base` and `Base`
    /// both name `Base`). Empty for other grammars.
    pub fn python_classes_with_base(&self, base: &str) -> Vec<PythonClassFacts> {
        let mut found = self.python_classes();
        found.retain(|class| class.bases.iter().any(|listed| listed.text.rsplit('.').next() == Some(base)));
        found
    }

    /// For a Python file: every class statement, at any depth, in source order. Empty for other
    /// grammars.
    pub fn python_classes(&self) -> Vec<PythonClassFacts> {
        let mut found = Vec::new();
        let mut stack = vec![self.root.root().get_inner_node()];
        while let Some(node) = stack.pop() {
            if node.kind() == "class_definition" {
                found.extend(self.python_class_facts(node));
            }
            let mut cursor = node.walk();
            let children: Vec<tree_sitter::Node<'_>> = node.named_children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
        found
    }

    /// The innermost Python class statement whose body holds 0-based line `line0` (the class of
    /// a method's `self` there). `None` outside any class.
    pub fn python_class_enclosing(&self, line0: u32) -> Option<PythonClassFacts> {
        let mut found = None;
        let mut stack = vec![self.root.root().get_inner_node()];
        while let Some(node) = stack.pop() {
            if node.start_position().row > line0 as usize || node.end_position().row < line0 as usize {
                continue;
            }
            if node.kind() == "class_definition"
                && node.child_by_field_name("body").is_some_and(|body| body.start_position().row <= line0 as usize)
            {
                // Of the classes holding the line, the one that starts last is the innermost.
                let deeper = found.as_ref().is_none_or(|(row, _): &(usize, PythonClassFacts)| node.start_position().row >= *row);
                if deeper {
                    if let Some(class) = self.python_class_facts(node) {
                        found = Some((node.start_position().row, class));
                    }
                }
            }
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
        found.map(|(_, class)| class)
    }

    /// For a Python file: the class whose name starts at 0-based `line0` (the start of the
    /// location `textDocument/definition` gives for a class), at any depth. `None` when no class
    /// is named on that line.
    pub fn python_class_named_at(&self, line0: u32) -> Option<PythonClassFacts> {
        let mut stack = vec![self.root.root().get_inner_node()];
        while let Some(node) = stack.pop() {
            if node.start_position().row > line0 as usize || node.end_position().row < line0 as usize {
                continue;
            }
            if node.kind() == "class_definition"
                && node.child_by_field_name("name").is_some_and(|name| name.start_position().row == line0 as usize)
            {
                return self.python_class_facts(node);
            }
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
        None
    }

    /// For a Python file: the class that lists, among its base classes, the expression whose name
    /// is at 0-based `line0`, byte column `byte_column` (a location `textDocument/references`
    /// gives for a class: `class Sub(Base)`, `class Sub(mod.Base)`, `class Sub(Base[int])`).
    /// `None` when that name is not a base of a class statement (a call, an annotation, an
    /// import, a keyword argument such as `metaclass=`).
    pub fn python_subclass_listing_base_at(&self, line0: u32, byte_column: usize) -> Option<PythonClassFacts> {
        let start = self.byte_offset(line0, byte_column)?;
        let identifier = self.root.root().get_inner_node().descendant_for_byte_range(start, start)?;
        if identifier.kind() != "identifier" {
            return None;
        }
        let mut node = identifier;
        // `mod.Base` (the last part only), `Base[int]` (the subscripted value).
        loop {
            let parent = node.parent()?;
            let continues = match parent.kind() {
                "attribute" => parent.child_by_field_name("attribute").is_some_and(|part| part.id() == node.id()),
                "subscript" | "generic_type" => parent.child_by_field_name("value").is_some_and(|part| part.id() == node.id()),
                _ => false,
            };
            if !continues {
                break;
            }
            node = parent;
        }
        let arguments = node.parent().filter(|parent| parent.kind() == "argument_list")?;
        let class = arguments.parent().filter(|parent| parent.kind() == "class_definition")?;
        class.child_by_field_name("superclasses").filter(|superclasses| superclasses.id() == arguments.id())?;
        self.python_class_facts(class)
    }

    fn python_class_facts(&self, class: tree_sitter::Node<'_>) -> Option<PythonClassFacts> {
        let text = |node: tree_sitter::Node<'_>| self.source.get(node.start_byte()..node.end_byte()).unwrap_or("").to_owned();
        let name = class.child_by_field_name("name")?;
        let mut bases = Vec::new();
        if let Some(superclasses) = class.child_by_field_name("superclasses") {
            let mut cursor = superclasses.walk();
            for argument in superclasses.named_children(&mut cursor) {
                // The name that resolves to the base class: the last part of `mod.Base`, the
                // value of `Base[int]`; keyword arguments (`metaclass=`) and `*bases` are no base.
                let mut named = argument;
                loop {
                    named = match named.kind() {
                        "attribute" => match named.child_by_field_name("attribute") {
                            Some(part) => part,
                            None => break,
                        },
                        "subscript" | "generic_type" => match named.child_by_field_name("value").or_else(|| named.named_child(0)) {
                            Some(part) => part,
                            None => break,
                        },
                        _ => break,
                    };
                }
                if named.kind() == "identifier" {
                    bases.push(PythonBaseClass {
                        text: text(argument),
                        line0: named.start_position().row as u32,
                        byte_column: named.start_position().column,
                    });
                }
            }
        }
        let mut methods = Vec::new();
        let mut type_checking_members = Vec::new();
        let mut slot_members = Vec::new();
        let mut instance_attributes: Vec<(String, u32)> = Vec::new();
        // The body's statements, and those of the `if` blocks in it (`if TYPE_CHECKING:`,
        // `if sys.version_info >= …:`), each with whether only a type checker runs it.
        let mut blocks: Vec<(tree_sitter::Node<'_>, bool)> =
            class.child_by_field_name("body").map(|body| (body, false)).into_iter().collect();
        while let Some((block, type_checking)) = blocks.pop() {
            let mut cursor = block.walk();
            for statement in block.named_children(&mut cursor) {
                if statement.kind() == "if_statement" {
                    let only_checked = type_checking
                        || statement.child_by_field_name("condition").is_some_and(|condition| is_type_checking_condition(&text(condition)));
                    blocks.extend(statement.child_by_field_name("consequence").map(|consequence| (consequence, only_checked)));
                    let mut clauses = statement.walk();
                    for clause in
                        statement.named_children(&mut clauses).filter(|clause| matches!(clause.kind(), "elif_clause" | "else_clause"))
                    {
                        blocks.extend(
                            clause
                                .child_by_field_name("consequence")
                                .or_else(|| clause.child_by_field_name("body"))
                                .map(|body| (body, type_checking)),
                        );
                    }
                    continue;
                }
                let mut members = Vec::new();
                let function = match statement.kind() {
                    "function_definition" => Some(statement),
                    "decorated_definition" => {
                        statement.child_by_field_name("definition").filter(|inner| inner.kind() == "function_definition")
                    }
                    _ => None,
                };
                if let Some(method_name) = function.and_then(|function| function.child_by_field_name("name")) {
                    members.push((text(method_name), method_name.start_position().row as u32));
                }
                if let Some(function) = function {
                    for (attribute, line0) in self.python_attributes_assigned_through_first_parameter(function) {
                        if !instance_attributes.iter().any(|(known, _)| *known == attribute) {
                            instance_attributes.push((attribute, line0));
                        }
                    }
                }
                // Class attributes are members too (toolz's `TestDict.D = dict`, overridden by
                // `TestDefaultDict.D`, a static method), and each entry of `__slots__ =
                // ('children',)` is an attribute of the class's instances (glom 23.5.0's
                // `And.children`, trial92 F1).
                if statement.kind() == "expression_statement" {
                    let mut inner = statement.walk();
                    for assignment in statement.named_children(&mut inner).filter(|node| node.kind() == "assignment") {
                        // Each target of a chained assignment (`a = b = value`).
                        let mut current = Some(assignment);
                        while let Some(node) = current.filter(|node| node.kind() == "assignment") {
                            if let Some(target) = node.child_by_field_name("left").filter(|left| left.kind() == "identifier") {
                                members.push((text(target), target.start_position().row as u32));
                            }
                            current = node.child_by_field_name("right");
                        }
                        let is_slots = assignment.child_by_field_name("left").is_some_and(|left| text(left) == "__slots__");
                        let Some(value) = assignment.child_by_field_name("right").filter(|_| is_slots) else { continue };
                        let mut entries = vec![value];
                        let mut list = value.walk();
                        if matches!(value.kind(), "tuple" | "list" | "parenthesized_expression") {
                            entries = value.named_children(&mut list).collect();
                        }
                        for entry in entries.into_iter().filter(|entry| entry.kind() == "string") {
                            let name = text(entry).trim_matches(|c| c == '\'' || c == '"').to_owned();
                            if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                                slot_members.push(entry.start_position().row as u32);
                                members.push((name, entry.start_position().row as u32));
                            }
                        }
                    }
                }
                if type_checking {
                    type_checking_members.extend(members.iter().map(|(_, line0)| *line0));
                }
                methods.extend(members);
            }
        }
        methods.sort_by_key(|(_, line0)| *line0);
        instance_attributes.sort_by_key(|(_, line0)| *line0);
        Some(PythonClassFacts {
            name: text(name),
            name_line0: name.start_position().row as u32,
            name_byte_column: name.start_position().column,
            bases,
            methods,
            type_checking_members,
            slot_members,
            instance_attributes,
        })
    }

    /// The attributes a Python method (`function_definition`) assigns through its first
    /// parameter (`self.name = …`, `self.name: T = …`, each target of `self.a = self.b = …`),
    /// with the 0-based line of each assignment; nested functions, lambdas and classes are not
    /// entered (their `self` is another).
    fn python_attributes_assigned_through_first_parameter(&self, function: tree_sitter::Node<'_>) -> Vec<(String, u32)> {
        let text = |node: tree_sitter::Node<'_>| self.source.get(node.start_byte()..node.end_byte()).unwrap_or("");
        let Some(parameters) = function.child_by_field_name("parameters") else { return Vec::new() };
        let mut cursor = parameters.walk();
        let Some(first) = parameters.named_children(&mut cursor).next() else { return Vec::new() };
        let first = if first.kind() == "identifier" { first } else { first.child_by_field_name("name").unwrap_or(first) };
        let receiver = text(first);
        if receiver.is_empty() || first.kind() != "identifier" {
            return Vec::new();
        }
        let mut found = Vec::new();
        let mut stack: Vec<tree_sitter::Node<'_>> = function.child_by_field_name("body").into_iter().collect();
        while let Some(node) = stack.pop() {
            if matches!(node.kind(), "function_definition" | "lambda" | "class_definition") {
                continue;
            }
            if node.kind() == "assignment" {
                let mut current = Some(node);
                while let Some(assignment) = current.filter(|node| node.kind() == "assignment") {
                    if let Some(left) = assignment.child_by_field_name("left").filter(|left| left.kind() == "attribute") {
                        let object = left.child_by_field_name("object");
                        if let (Some(object), Some(attribute)) = (object, left.child_by_field_name("attribute")) {
                            if object.kind() == "identifier" && text(object) == receiver {
                                found.push((text(attribute).to_owned(), attribute.start_position().row as u32));
                            }
                        }
                    }
                    current = assignment.child_by_field_name("right");
                }
            }
            let mut children = node.walk();
            stack.extend(node.named_children(&mut children));
        }
        found.sort_by_key(|(_, line0)| *line0);
        found
    }

    /// For a Go file: its package clause, import paths and package-scope declarations
    /// ([`GoFileFacts`]). `None` for other grammars or a file without a package clause.
    pub fn go_file_facts(&self) -> Option<GoFileFacts> {
        if self.language != SupportLang::Go {
            return None;
        }
        let bytes = self.source.as_bytes();
        let text = |node: tree_sitter::Node<'_>| node.utf8_text(bytes).unwrap_or("").to_owned();
        let root = self.root.root().get_inner_node();
        let mut facts = GoFileFacts::default();
        let mut cursor = root.walk();
        for item in root.named_children(&mut cursor) {
            match item.kind() {
                "package_clause" => {
                    let mut inner = item.walk();
                    let name = item.named_children(&mut inner).find(|child| child.kind() == "package_identifier");
                    facts.package = name.map(text).unwrap_or_default();
                }
                "function_declaration" => facts.package_scope_names.extend(item.child_by_field_name("name").map(text)),
                "import_declaration" | "type_declaration" | "var_declaration" | "const_declaration" => {
                    // The specs, directly or in a parenthesized list; no function literal's body.
                    let mut stack = vec![item];
                    while let Some(node) = stack.pop() {
                        match node.kind() {
                            "import_spec" => {
                                if let Some(path) = node.child_by_field_name("path") {
                                    facts.imports.push(text(path).trim_matches(|c| c == '"' || c == '`').to_owned());
                                }
                            }
                            "type_spec" | "type_alias" | "var_spec" | "const_spec" => {
                                let mut names = node.walk();
                                facts
                                    .package_scope_names
                                    .extend(node.children_by_field_name("name", &mut names).map(text).filter(|name| name != "_"));
                            }
                            _ => {
                                let mut children = node.walk();
                                stack.extend(
                                    node.named_children(&mut children)
                                        .filter(|child| !matches!(child.kind(), "func_literal" | "block"))
                                        .collect::<Vec<_>>()
                                        .into_iter()
                                        .rev(),
                                );
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        (!facts.package.is_empty()).then_some(facts)
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
        // The word itself, not a comment or string holding it (a JSDoc `@param x` line: the
        // comment node starts lines above, trial58 C1).
        self.root
            .root()
            .get_inner_node()
            .descendant_for_byte_range(start, start + word.len())
            .filter(|node| node.start_byte() == start && node.end_byte() == start + word.len())
    }

    /// For a TypeScript/JavaScript name on 0-based `line0` (from `character_hint`, see
    /// [`ParsedSource::declaration_facts`]) that a server reports as a variable, constant or
    /// property: what the syntax says it holds when it is bound to a function — `const arrow
    /// function`, `let function expression`, `property arrow function` (`const f = () => …`,
    /// `f = function () {…}` in a class body). `None` for any other declaration.
    pub fn function_value_of(&self, line0: u32, character_hint: u32, name: &str) -> Option<String> {
        let identifier = self.identifier_at(line0, character_hint, name)?;
        let parent = identifier.parent()?;
        let names_identifier = parent.child_by_field_name("name").is_some_and(|name| name.id() == identifier.id());
        if !names_identifier {
            return None;
        }
        let binding = match parent.kind() {
            "variable_declarator" => {
                match parent.parent().map(|declaration| (declaration.kind(), declaration.child(0).map(|first| first.kind()))) {
                    Some(("variable_declaration", _)) => "var",
                    Some((_, Some("let"))) => "let",
                    _ => "const",
                }
            }
            "public_field_definition" | "field_definition" => "property",
            _ => return None,
        };
        let value = parent.child_by_field_name("value")?;
        let held = match value.kind() {
            "arrow_function" => "arrow function",
            "function_expression" | "function" => "function expression",
            "generator_function" => "generator function expression",
            _ => return None,
        };
        Some(format!("{binding} {held}"))
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

    /// What the syntax says one reference of a function's `name` on 0-based `line0` (from
    /// `character_hint`, see [`ParsedSource::declaration_facts`]) does with it, for telling the
    /// references a call hierarchy leaves out: an import or export, a direct call, a call
    /// through an expression (`((options && options.serializeError) || miniSerializeError)(err)`,
    /// which tsserver's call hierarchy does not list: trial29 F1), an argument, a type, or
    /// another use as a value. `None` when the name is not on that line or sits in a Rust macro's
    /// token tree (what the expansion does with it the source does not show). For the
    /// TypeScript/JavaScript, Python, Go and Rust grammars.
    pub fn reference_role(&self, line0: u32, character_hint: u32, name: &str) -> Option<ReferenceRole> {
        let identifier = self.identifier_at(line0, character_hint, name)?;
        if identifier.kind().contains("comment") || identifier.kind().contains("string") {
            return None;
        }
        // Imports, exports and type positions, from any ancestor.
        let mut up = identifier.parent();
        while let Some(ancestor) = up {
            match ancestor.kind() {
                "import_statement"
                | "import_specifier"
                | "import_clause"
                | "namespace_import"
                | "export_specifier"
                | "export_clause"
                | "import_from_statement"
                | "aliased_import"
                | "future_import_statement"
                | "import_spec"
                | "import_declaration"
                | "use_declaration"
                | "extern_crate_declaration" => return Some(ReferenceRole::ImportOrExport),
                "type_annotation" | "type_query" | "type_arguments" | "type_alias_declaration" | "type" | "generic_type" => {
                    return Some(ReferenceRole::Type);
                }
                // Inside a macro's arguments the tokens have no syntax; a name followed by a
                // parenthesised token tree is a call (`assert_eq!(prerelease("-"), …)`: trial46 F2,
                // semver's test helpers called only inside assertions), anything else unknown.
                "token_tree" => {
                    let called = identifier
                        .next_sibling()
                        .is_some_and(|next| next.kind() == "token_tree" && next.child(0).is_some_and(|open| open.kind() == "("));
                    return called.then_some(ReferenceRole::DirectCall);
                }
                _ => {}
            }
            up = ancestor.parent();
        }
        let is_field = |node: tree_sitter::Node<'_>, field: &str, child: tree_sitter::Node<'_>| {
            node.child_by_field_name(field).is_some_and(|found| found.id() == child.id())
        };
        let parent = identifier.parent()?;
        // A declaration of the name itself (`function f`, `const f = …`, `def f`); a Rust path
        // `m::f` also names its last segment `name`.
        if is_field(parent, "name", identifier) && parent.kind() != "scoped_identifier" {
            return Some(ReferenceRole::Declaration);
        }
        // `obj.name`: the member access stands for the name.
        let mut callee = identifier;
        if matches!(parent.kind(), "member_expression" | "attribute" | "selector_expression" | "field_expression" | "scoped_identifier")
            && !["object", "operand", "value", "path"].iter().any(|field| is_field(parent, field, identifier))
        {
            callee = parent;
        }
        let call_kinds = ["call_expression", "call", "new_expression"];
        let outer = callee.parent()?;
        if call_kinds.contains(&outer.kind()) && (is_field(outer, "function", callee) || is_field(outer, "constructor", callee)) {
            return Some(ReferenceRole::DirectCall);
        }
        // Through parentheses, `||`/`??`/`&&`, a conditional, a cast or `await` into a callee.
        let mut node = callee;
        let mut through_expression = false;
        while let Some(up) = node.parent() {
            if matches!(
                up.kind(),
                "parenthesized_expression"
                    | "binary_expression"
                    | "boolean_operator"
                    | "ternary_expression"
                    | "conditional_expression"
                    | "as_expression"
                    | "non_null_expression"
                    | "satisfies_expression"
                    | "await_expression"
                    | "type_assertion"
            ) {
                through_expression = true;
                node = up;
                continue;
            }
            if through_expression && call_kinds.contains(&up.kind()) && is_field(up, "function", node) {
                return Some(ReferenceRole::CalledThroughExpression);
            }
            break;
        }
        if matches!(outer.kind(), "arguments" | "argument_list") {
            return Some(ReferenceRole::Argument);
        }
        Some(ReferenceRole::Value)
    }
}

impl ParsedSource {
    /// The smallest syntax node at 0-based `line0`, byte column `byte_column` of a
    /// TypeScript/JavaScript file; `None` for other grammars or past the end.
    fn typescript_node_at(&self, line0: u32, byte_column: usize) -> Option<tree_sitter::Node<'_>> {
        if !matches!(self.language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
            return None;
        }
        let at = self.byte_offset(line0, byte_column)?;
        self.root.root().get_inner_node().descendant_for_byte_range(at, at)
    }
}

impl ParsedSource {
    /// For a TypeScript/JavaScript `implementation` location starting at 0-based `line0`, byte
    /// column `byte_column`: what stands there when it is no class, interface, type, enum,
    /// function or method declaration — `arrow function`, `function expression`, `object
    /// literal`, `array literal`, `call`, `property value`, or `` `this` keyword `` (a `this`
    /// tsserver answers for a class's static side) — else `None` (a declaration, or a grammar this does not read). tsserver
    /// lists such expressions among the implementations of an abstract class when they are cast
    /// to one of its members' types (zod 3.25.76: 5 arrow functions of the `coerce` object among
    /// `ZodType`'s 42 "implementations", trial30 F1).
    pub fn implementation_expression_at(&self, line0: u32, byte_column: usize) -> Option<&'static str> {
        let mut node = self.typescript_node_at(line0, byte_column)?;
        // tsserver answers a `this` whose type is the class (in a static method: `typeof C`) with
        // the keyword itself: neither the call nor the declaration around it (trial152 M1: rxjs's
        // `TestScheduler`, three `this` called "call" or counted as declarations).
        if node.kind() == "this" {
            return Some("`this` keyword");
        }
        loop {
            match node.kind() {
                "class_declaration"
                | "abstract_class_declaration"
                | "class"
                | "interface_declaration"
                | "type_alias_declaration"
                | "enum_declaration"
                | "function_declaration"
                | "generator_function_declaration"
                | "method_definition"
                | "method_signature"
                | "abstract_method_signature"
                | "public_field_definition"
                | "property_signature"
                | "variable_declarator"
                | "export_statement"
                | "program" => return None,
                // `string: ((arg) => …) as (typeof ZodString)["create"]`: the property's value.
                "pair" => {
                    let mut value = node.child_by_field_name("value")?;
                    while matches!(
                        value.kind(),
                        "as_expression" | "parenthesized_expression" | "satisfies_expression" | "non_null_expression"
                    ) {
                        value = value.named_child(0)?;
                    }
                    return Some(match value.kind() {
                        "arrow_function" => "arrow function",
                        "function_expression" | "function" | "generator_function" => "function expression",
                        "call_expression" | "new_expression" => "call",
                        "object" => "object literal",
                        _ => "property value",
                    });
                }
                "arrow_function" => return Some("arrow function"),
                "function_expression" | "function" | "generator_function" => return Some("function expression"),
                "object" => return Some("object literal"),
                "array" => return Some("array literal"),
                "call_expression" | "new_expression" => return Some("call"),
                _ => {}
            }
            node = node.parent()?;
        }
    }
}

impl ParsedSource {
    /// For a TypeScript/JavaScript file: the names of the declarations that 0-based `line0`
    /// lies in, innermost first — functions, classes, interfaces, type aliases, enums,
    /// namespaces, methods, properties and the variables a `const`/`let`/`var` declares (all of
    /// a declaration's variables: `export const a = 1, b = 2`). `Some(empty)` for a blank or
    /// comment-only line, or a line past the end; `None` when the line holds a top-level
    /// statement that declares nothing (an `import`, `export … from`, `export *`, an expression
    /// statement): a change there can reach any importer. `None` for other grammars.
    pub fn typescript_declaration_names_around(&self, line0: u32) -> Option<Vec<String>> {
        if !matches!(self.language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
            return None;
        }
        let Some(line) = self.line_text(line0) else { return Some(Vec::new()) };
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with("//") || trimmed.starts_with("/*") || trimmed.starts_with('*') {
            return Some(Vec::new());
        }
        let start = self.byte_offset(line0, line.len() - trimmed.len())?;
        let mut node = self.root.root().get_inner_node().descendant_for_byte_range(start, start)?;
        let mut names: Vec<String> = Vec::new();
        let text_of = |node: tree_sitter::Node<'_>| self.source.get(node.start_byte()..node.end_byte()).map(str::to_owned);
        let push_declared = |declaration: tree_sitter::Node<'_>, names: &mut Vec<String>| match declaration.kind() {
            "lexical_declaration" | "variable_declaration" => {
                let mut cursor = declaration.walk();
                for declarator in declaration.named_children(&mut cursor).filter(|child| child.kind() == "variable_declarator") {
                    if let Some(name) = declarator.child_by_field_name("name").and_then(text_of) {
                        names.push(name);
                    }
                }
            }
            _ => {
                if let Some(name) = declaration.child_by_field_name("name").and_then(text_of) {
                    names.push(name);
                }
            }
        };
        loop {
            match node.kind() {
                "function_declaration"
                | "generator_function_declaration"
                | "function_signature"
                | "class_declaration"
                | "abstract_class_declaration"
                | "interface_declaration"
                | "type_alias_declaration"
                | "enum_declaration"
                | "internal_module"
                | "module"
                | "method_definition"
                | "method_signature"
                | "abstract_method_signature"
                | "public_field_definition"
                | "property_signature"
                | "variable_declarator"
                | "lexical_declaration"
                | "variable_declaration"
                    if node.kind() != "variable_declarator"
                        || !node.parent().is_some_and(|parent| names_all_declarators(parent.kind())) =>
                {
                    push_declared(node, &mut names);
                }
                "export_statement" => {
                    // `export function f(…) {` starts at `export`: the declaration it exports.
                    match node.child_by_field_name("declaration") {
                        Some(declaration) => push_declared(declaration, &mut names),
                        None if node.parent().is_some_and(|parent| parent.kind() == "program") => return None,
                        None => {}
                    }
                }
                "program" => {
                    let mut seen = std::collections::HashSet::new();
                    names.retain(|name| seen.insert(name.clone()));
                    return (!names.is_empty()).then_some(names);
                }
                _ => {}
            }
            node = node.parent()?;
        }
    }
}

impl ParsedSource {
    /// For a TypeScript/JavaScript file: the class or interface member (method, property,
    /// field, signature) whose declaration 0-based `line0` lies in (its body included),
    /// innermost: (its name, 0-based line and byte column of the name). `None` outside a
    /// member, for an object literal's key, or for other grammars. A change there
    /// changes that member; the files that use it need not import the file (query-core's
    /// `client.getQueryCache().buildQuery(…)`, trial34 M1).
    pub fn typescript_member_declared_at(&self, line0: u32) -> Option<(String, u32, usize)> {
        if !matches!(self.language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
            return None;
        }
        let line = self.line_text(line0)?;
        let trimmed = line.trim_start();
        if trimmed.is_empty() {
            return None;
        }
        let start = self.byte_offset(line0, line.len() - trimmed.len())?;
        let mut node = self.root.root().get_inner_node().descendant_for_byte_range(start, start)?;
        loop {
            match node.kind() {
                "method_definition"
                | "method_signature"
                | "abstract_method_signature"
                | "public_field_definition"
                | "property_signature" => {
                    let name = node.child_by_field_name("name")?;
                    if !matches!(name.kind(), "property_identifier" | "private_property_identifier" | "identifier") {
                        return None;
                    }
                    let owner = node.parent()?.parent()?;
                    if !matches!(
                        owner.kind(),
                        "class_declaration" | "abstract_class_declaration" | "class" | "interface_declaration" | "object_type"
                    ) {
                        return None;
                    }
                    let text = self.source.get(name.start_byte()..name.end_byte())?.to_owned();
                    let position = name.start_position();
                    return Some((text, u32::try_from(position.row).ok()?, position.column));
                }
                "program" => return None,
                _ => node = node.parent()?,
            }
        }
    }

    /// For a TypeScript/JavaScript file: whether the name starting at 0-based `line0`, byte column
    /// `byte_column` is an optional parameter's (`value?: any` in a parameter list), not a
    /// property's. `false` for other places and grammars.
    pub fn typescript_names_optional_parameter(&self, line0: u32, byte_column: usize) -> bool {
        if !matches!(self.language, SupportLang::TypeScript | SupportLang::Tsx) {
            return false;
        }
        let Some(start) = self.byte_offset(line0, byte_column) else { return false };
        let Some(node) = self.root.root().get_inner_node().descendant_for_byte_range(start, start) else { return false };
        let mut current = Some(node);
        // The identifier's pattern, then the parameter (at most two levels up).
        for _ in 0..3 {
            match current {
                Some(node) if node.kind() == "optional_parameter" || node.kind() == "required_parameter" => return true,
                Some(node) => current = node.parent(),
                None => return false,
            }
        }
        false
    }

    /// For a TypeScript/JavaScript file: whether 0-based `line0` lies wholly inside the body of a
    /// function, method or accessor whose type does not depend on its body — one with a written
    /// return type, a constructor, a setter — strictly between the body's braces (at any depth:
    /// a local arrow function inside such a body counts). A change there cannot change what the
    /// module exports (its declaration emit), so files that reach the module only through an
    /// importer cannot break by it. `false` for other lines, other grammars and a blank line.
    pub fn typescript_line_inside_typed_body(&self, line0: u32) -> bool {
        if !matches!(self.language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
            return false;
        }
        let Some(line) = self.line_text(line0) else { return false };
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return false;
        }
        let Some(start) = self.byte_offset(line0, line.len() - line.trim_start().len()) else { return false };
        let end = start + trimmed.len();
        let Some(mut node) = self.root.root().get_inner_node().descendant_for_byte_range(start, end) else { return false };
        loop {
            if node.kind() == "statement_block" && node.start_byte() < start && end < node.end_byte() {
                if let Some(function) = node.parent() {
                    let is_function = matches!(
                        function.kind(),
                        "function_declaration"
                            | "function_expression"
                            | "function"
                            | "arrow_function"
                            | "method_definition"
                            | "generator_function_declaration"
                    );
                    let typed = function.child_by_field_name("return_type").is_some();
                    let name = function.child_by_field_name("name").and_then(|name| self.source.get(name.start_byte()..name.end_byte()));
                    let mut cursor = function.walk();
                    let setter =
                        function.kind() == "method_definition" && function.children(&mut cursor).any(|child| child.kind() == "set");
                    if is_function && (typed || setter || name == Some("constructor")) {
                        return true;
                    }
                }
            }
            match node.parent() {
                Some(parent) => node = parent,
                None => return false,
            }
        }
    }
}

/// A TypeScript/JavaScript class as [`ParsedSource::typescript_class_of_member`] and
/// [`ParsedSource::typescript_class_named_at`] give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeScriptClassFacts {
    /// The class's name.
    pub name: String,
    /// 0-based line and byte column of the name.
    pub name_line0: u32,
    /// Byte column of the name in its line.
    pub name_byte: usize,
    /// The base class named in `extends` (its last identifier: `Base` in `extends ns.Base`): its
    /// 0-based line and byte column; `None` without `extends` or when it is no name (a mixin
    /// call).
    pub extends: Option<(u32, usize)>,
    /// The interfaces named in `implements` (the last identifier of each: `Shape` in
    /// `implements geo.Shape<T>`): 0-based line and byte column of each, in order.
    pub implements: Vec<(u32, usize)>,
    /// The class's own members: (name, 0-based line of the name), in source order.
    pub members: Vec<(String, u32)>,
}

impl ParsedSource {
    /// For a TypeScript/JavaScript class member named `name` on 0-based `line0` (a method,
    /// field, accessor or abstract signature): its class. `None` for anything else.
    pub fn typescript_class_of_member(&self, line0: u32, name: &str) -> Option<TypeScriptClassFacts> {
        if !matches!(self.language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
            return None;
        }
        let identifier = self.identifier_at(line0, 0, name)?;
        let member = identifier.parent()?;
        // A constructor's parameter property (`constructor(public field: string)`) is a member
        // of its class too (trial54 F2: trpc's `MaxPartSizeExceededError.field` renamed to
        // `message`, which `Error` has).
        if let Some(class) = parameter_property_class(member, identifier) {
            return self.typescript_class_facts(class);
        }
        let is_member = matches!(
            member.kind(),
            "method_definition" | "public_field_definition" | "abstract_method_signature" | "method_signature" | "field_definition"
        ) && member
            .child_by_field_name("name")
            .or_else(|| member.child_by_field_name("property"))
            .is_some_and(|n| n.id() == identifier.id());
        if !is_member {
            return None;
        }
        let class = member.parent().filter(|body| body.kind() == "class_body")?.parent()?;
        self.typescript_class_facts(class)
    }

    /// For a TypeScript/JavaScript member `name` on 0-based `line0` — a class member, or a key
    /// (or shorthand) of an object literal inside a function — the top-level class or function
    /// whose values carry it: the class's name, or the function's (`function f() { return { name
    /// … } }`, `const f = () => ({ name })`). `None` for anything else. An exported instance of
    /// it (`export const x = new C()`, `export const x = f()`) exports the member (trial46 F6:
    /// query-core's `focusManager.setFocused`, `notifyManager.batch`).
    pub fn typescript_member_container_name(&self, line0: u32, name: &str) -> Option<String> {
        if let Some(class) = self.typescript_class_of_member(line0, name) {
            return Some(class.name);
        }
        if !matches!(self.language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
            return None;
        }
        let identifier = self.identifier_at(line0, 0, name)?;
        let parent = identifier.parent()?;
        let is_key = match parent.kind() {
            "pair" | "method_definition" => parent
                .child_by_field_name("key")
                .or_else(|| parent.child_by_field_name("name"))
                .is_some_and(|key| key.id() == identifier.id()),
            "object" => identifier.kind() == "shorthand_property_identifier",
            _ => false,
        };
        if !is_key {
            return None;
        }
        let text = |node: tree_sitter::Node<'_>| self.source.get(node.start_byte()..node.end_byte()).map(str::to_owned);
        let mut node = parent;
        loop {
            node = node.parent()?;
            match node.kind() {
                "function_declaration" => return text(node.child_by_field_name("name")?),
                "variable_declarator"
                    if node
                        .child_by_field_name("value")
                        .is_some_and(|value| matches!(value.kind(), "arrow_function" | "function_expression" | "function")) =>
                {
                    return text(node.child_by_field_name("name")?);
                }
                "class_body" | "program" => return None,
                _ => {}
            }
        }
    }

    /// The TypeScript/JavaScript class whose name is on 0-based `line0` (`class X extends Y {`),
    /// the first there. `None` when none is.
    pub fn typescript_class_named_at(&self, line0: u32) -> Option<TypeScriptClassFacts> {
        if !matches!(self.language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
            return None;
        }
        let start = *self.line_starts.get(line0 as usize)?;
        let end = self.line_starts.get(line0 as usize + 1).copied().unwrap_or(self.source.len());
        let mut stack = vec![self.root.root().get_inner_node()];
        while let Some(node) = stack.pop() {
            if node.end_byte() < start || node.start_byte() > end {
                continue;
            }
            if matches!(node.kind(), "class_declaration" | "abstract_class_declaration" | "class")
                && node.child_by_field_name("name").is_some_and(|name| name.start_byte() >= start && name.start_byte() < end)
            {
                return self.typescript_class_facts(node);
            }
            let mut cursor = node.walk();
            let children: Vec<tree_sitter::Node<'_>> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
        None
    }

    fn typescript_class_facts(&self, class: tree_sitter::Node<'_>) -> Option<TypeScriptClassFacts> {
        if !matches!(class.kind(), "class_declaration" | "abstract_class_declaration" | "class") {
            return None;
        }
        let text = |node: tree_sitter::Node<'_>| self.source.get(node.start_byte()..node.end_byte()).map(str::to_owned);
        let name = class.child_by_field_name("name")?;
        let mut cursor = class.walk();
        let heritage = class.children(&mut cursor).find(|child| child.kind() == "class_heritage");
        let extends = heritage.and_then(|heritage| {
            let mut cursor = heritage.walk();
            let clause = heritage.children(&mut cursor).find(|child| child.kind() == "extends_clause")?;
            let value = clause.child_by_field_name("value").or_else(|| clause.named_child(0))?;
            let last = match value.kind() {
                "identifier" => value,
                "member_expression" => value.child_by_field_name("property")?,
                _ => return None,
            };
            let position = last.start_position();
            Some((u32::try_from(position.row).ok()?, position.column))
        });
        let mut implements = Vec::new();
        if let Some(heritage) = heritage {
            let mut cursor = heritage.walk();
            let clauses: Vec<tree_sitter::Node<'_>> =
                heritage.children(&mut cursor).filter(|child| child.kind() == "implements_clause").collect();
            for clause in clauses {
                let mut inner = clause.walk();
                for named in clause.named_children(&mut inner) {
                    // `Shape`, `geo.Shape`, `Shape<T>`: the last identifier of the type's name.
                    let mut node = named;
                    if node.kind() == "generic_type" {
                        node = node.child_by_field_name("name").or_else(|| node.named_child(0)).unwrap_or(node);
                    }
                    if node.kind() == "nested_type_identifier" {
                        node = node.child_by_field_name("name").unwrap_or(node);
                    }
                    if node.kind() == "type_identifier" {
                        if let Ok(row) = u32::try_from(node.start_position().row) {
                            implements.push((row, node.start_position().column));
                        }
                    }
                }
            }
        }
        let body = class.child_by_field_name("body")?;
        let mut members = Vec::new();
        let mut cursor = body.walk();
        for member in body.named_children(&mut cursor) {
            // The constructor's parameter properties are members too.
            if member.kind() == "method_definition" && member.child_by_field_name("name").and_then(text).as_deref() == Some("constructor") {
                if let Some(parameters) = member.child_by_field_name("parameters") {
                    let mut inner = parameters.walk();
                    for parameter in parameters.named_children(&mut inner) {
                        let Some(pattern) = parameter.child_by_field_name("pattern") else { continue };
                        if parameter_property_class(parameter, pattern).is_some() {
                            if let (Some(member_text), Ok(row)) = (text(pattern), u32::try_from(pattern.start_position().row)) {
                                members.push((member_text, row));
                            }
                        }
                    }
                }
            }
            let Some(member_name) = member.child_by_field_name("name").or_else(|| member.child_by_field_name("property")) else { continue };
            if !matches!(member_name.kind(), "property_identifier" | "private_property_identifier" | "identifier") {
                continue;
            }
            if let (Some(member_text), Ok(row)) = (text(member_name), u32::try_from(member_name.start_position().row)) {
                members.push((member_text, row));
            }
        }
        let position = name.start_position();
        Some(TypeScriptClassFacts {
            name: text(name)?,
            name_line0: u32::try_from(position.row).ok()?,
            name_byte: position.column,
            extends,
            implements,
            members,
        })
    }
}

/// When `parameter` is a constructor's parameter property whose name is `identifier`
/// (`constructor(public field: string)`, `readonly`, `private`, `protected` too): the class
/// (`class_declaration` …) whose member it declares.
pub(crate) fn parameter_property_class<'t>(
    parameter: tree_sitter::Node<'t>,
    identifier: tree_sitter::Node<'t>,
) -> Option<tree_sitter::Node<'t>> {
    if !matches!(parameter.kind(), "required_parameter" | "optional_parameter") {
        return None;
    }
    parameter.child_by_field_name("pattern").filter(|pattern| pattern.id() == identifier.id())?;
    let mut cursor = parameter.walk();
    let is_property =
        parameter.children(&mut cursor).any(|child| matches!(child.kind(), "accessibility_modifier" | "readonly" | "override_modifier"));
    if !is_property {
        return None;
    }
    let constructor = parameter.parent().filter(|list| list.kind() == "formal_parameters")?.parent()?;
    if constructor.kind() != "method_definition" {
        return None;
    }
    constructor.parent().filter(|body| body.kind() == "class_body")?.parent()
}

impl ParsedSource {
    /// For a TypeScript/JavaScript reference to member `name` on 0-based `line0` (from
    /// `character_hint`, as in [`ParsedSource::declaration_facts`]): what it gives the member
    /// when it is the target of an assignment `x.name = value` (also `x["name"] = …` is not
    /// read) or a property of an object literal (`{ name: value }`, `{ name() {…} }`) — `arrow
    /// function`, `function expression`, `method`, `value` — else `None`. Such assignments
    /// implement an interface's method where no class does: zod 3.25.76's `ZodType.nonoptional`
    /// is implemented by `inst.nonoptional = (params) => …` inside a constructor callback, and
    /// tsserver's `implementation` answers none (trial31 F2).
    pub fn member_assignment_at(&self, line0: u32, character_hint: u32, name: &str) -> Option<&'static str> {
        if !matches!(self.language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
            return None;
        }
        let identifier = self.identifier_at(line0, character_hint, name)?;
        let parent = identifier.parent()?;
        let is_field = |node: tree_sitter::Node<'_>, field: &str, child: tree_sitter::Node<'_>| {
            node.child_by_field_name(field).is_some_and(|found| found.id() == child.id())
        };
        let value = match parent.kind() {
            "member_expression" if is_field(parent, "property", identifier) => {
                let assignment = parent.parent()?;
                if assignment.kind() != "assignment_expression" || !is_field(assignment, "left", parent) {
                    return None;
                }
                assignment.child_by_field_name("right")?
            }
            "pair" if is_field(parent, "key", identifier) => parent.child_by_field_name("value")?,
            "method_definition" if parent.parent().is_some_and(|up| up.kind() == "object") => return Some("method"),
            _ => return None,
        };
        let mut value = value;
        while matches!(value.kind(), "as_expression" | "parenthesized_expression" | "satisfies_expression" | "non_null_expression") {
            value = value.named_child(0)?;
        }
        Some(match value.kind() {
            "arrow_function" => "arrow function",
            "function_expression" | "function" | "generator_function" => "function expression",
            _ => "value",
        })
    }
}

impl ParsedSource {
    /// For a TypeScript/JavaScript string whose whole content is the `name_len` bytes at 0-based
    /// `line0`, byte column `byte_column`: what the string is used as when it names a property — `indexed-access type key`
    /// (`T["_def"]["unknownKeys"]`), `element-access key` (`obj["name"]`), `object key` (`{
    /// "name": … }`), `property name` (a quoted member name), `call argument …` (a string
    /// argument that is exactly the word: a `keyof` parameter takes it as the key; the syntax
    /// does not show the parameter's type) — else `None`. A rename of the
    /// property leaves such keys to the agent; on an `any` base no compiler error ever flags
    /// one left (trial30 M10: zod's `DeepPartial` after renaming `unknownKeys`). A string that
    /// holds more than the name (`'d-AsyncQueuer'` for `d`: trial39 F3) names another key: `None`.
    pub fn string_property_key_role(&self, line0: u32, byte_column: usize, name_len: usize) -> Option<&'static str> {
        let mut node = self.typescript_string_at(line0, byte_column)?;
        let at = self.byte_offset(line0, byte_column)?;
        // The content between the quotes: one fragment, or (a template without one) the text.
        let content = match node.named_child_count() {
            0 => node.start_byte() + 1..node.end_byte().saturating_sub(1),
            1 => node.named_child(0).filter(|child| child.kind() == "string_fragment").map(|child| child.byte_range())?,
            _ => return None,
        };
        if content != (at..at + name_len) {
            return None;
        }
        let mut parent = node.parent()?;
        if parent.kind() == "literal_type" {
            node = parent;
            parent = node.parent()?;
        }
        // `Pick<T, 'a' | 'b'>`, `Omit<T, 'k'>`: a key in a type argument (trial34 F1).
        let mut up = parent;
        while up.kind() == "union_type" {
            match up.parent() {
                Some(next) => up = next,
                None => break,
            }
        }
        if up.kind() == "type_arguments" {
            // `Omit<T, K extends keyof any>` accepts a key `T` lacks: a stale key compiles, and
            // the member is no longer left out (trial125 F1).
            let generic = up.parent().filter(|generic| generic.kind() == "generic_type");
            let head = generic.and_then(|generic| generic.child_by_field_name("name")).and_then(|name| self.source.get(name.byte_range()));
            if head.is_some_and(|head| head == "Omit" || head.ends_with(".Omit")) {
                return Some(OMIT_KEY_ROLE);
            }
            return Some("key in a type argument");
        }
        let is_index = |field: &str| parent.child_by_field_name(field).is_some_and(|child| child.id() == node.id());
        match parent.kind() {
            // `Object.hasOwn(x, 'k')`, `x.hasOwnProperty('k')`, `Reflect.get(x, 'k')` name the key
            // by the syntax; `emitChange('AsyncQueuer', this)` with a `keyof PacerEventMap`
            // parameter names it too (trial39 F2), which only the callee's declaration shows
            // (a test title `test('map', …)` does not: trial145 M6). The whole word only.
            "arguments" if node.kind() == "string" => {
                let (callee, index) = self.call_of_argument(node)?;
                let called: String = self.source.get(callee.byte_range())?.split_whitespace().collect::<String>().replace("?.", ".");
                let built_in = KEY_TAKING_CALLS.iter().find(|(name, at, _)| {
                    *at == index
                        && (called == *name
                            || called.ends_with(name) && (name.starts_with('.') || called[..called.len() - name.len()].ends_with('.')))
                });
                Some(built_in.map_or(CALL_ARGUMENT_ROLE, |(_, _, role)| role))
            }
            // `'value' in received` tests for the property and narrows `received` to a type that
            // has it (trial145 F3: ts-results-es's test helper, broken by a rename of
            // `OkImpl.value` with nothing said).
            "binary_expression" if is_in_operand(parent, node) => Some(IN_KEY_ROLE),
            "lookup_type" | "indexed_access_type" => Some("indexed-access type key"),
            "subscript_expression" if is_index("index") => Some(ELEMENT_ACCESS_ROLE),
            "pair" if is_index("key") => Some("object key"),
            "property_signature" | "public_field_definition" | "method_definition" => Some("property name"),
            _ => None,
        }
    }

    /// For a TypeScript/JavaScript string at 0-based `line0`, byte column `byte_column` (inside
    /// the string): the expression that uses it as a key of a value — `'value' in received`,
    /// `Object.hasOwn(r, 'value')`, `r['value']`, `pluck(r, 'value')` — as written, whitespace
    /// collapsed; `None` for a string in no such expression.
    pub fn string_key_expression_text(&self, line0: u32, byte_column: usize) -> Option<String> {
        let node = self.typescript_string_at(line0, byte_column)?;
        let parent = node.parent()?;
        let is_field = |field: &str| parent.child_by_field_name(field).is_some_and(|child| child.id() == node.id());
        let expression = match parent.kind() {
            "arguments" => self.call_of_argument(node)?.0.parent()?,
            "binary_expression" if is_in_operand(parent, node) => parent,
            "subscript_expression" if is_field("index") => parent,
            _ => return None,
        };
        self.source.get(expression.byte_range()).map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
    }

    /// The TypeScript/JavaScript string (or template string) holding 0-based `line0`, byte
    /// column `byte_column`; `None` outside one.
    fn typescript_string_at(&self, line0: u32, byte_column: usize) -> Option<tree_sitter::Node<'_>> {
        let mut node = self.typescript_node_at(line0, byte_column)?;
        while !matches!(node.kind(), "string" | "template_string") {
            node = node.parent()?;
        }
        Some(node)
    }

    /// The called expression of the call (or `new`) whose argument list holds `argument`, and
    /// the argument's 0-based index; `None` when `argument` is no argument of a call.
    fn call_of_argument<'t>(&self, argument: tree_sitter::Node<'t>) -> Option<(tree_sitter::Node<'t>, usize)> {
        let arguments = argument.parent().filter(|parent| parent.kind() == "arguments")?;
        let call = arguments.parent()?;
        let callee = match call.kind() {
            "call_expression" => call.child_by_field_name("function")?,
            "new_expression" => call.child_by_field_name("constructor")?,
            _ => return None,
        };
        let mut cursor = arguments.walk();
        let index = arguments
            .named_children(&mut cursor)
            .filter(|child| child.kind() != "comment")
            .position(|child| child.id() == argument.id())?;
        Some((callee, index))
    }

    /// For a TypeScript/JavaScript string argument at 0-based `line0`, byte column `byte_column`
    /// (inside the string): the name it is passed to — the called identifier, or the last name
    /// of a called member expression (`this.bus.emit`) — with its position and the argument's
    /// index. `None` for any other string, or a callee that is no name (`make()('k')`).
    pub fn string_argument_callee(&self, line0: u32, byte_column: usize) -> Option<StringArgumentCallee> {
        let node = self.typescript_string_at(line0, byte_column)?;
        let (callee, argument_index) = self.call_of_argument(node)?;
        let name = match callee.kind() {
            "identifier" => callee,
            "member_expression" => callee.child_by_field_name("property")?,
            _ => return None,
        };
        Some(StringArgumentCallee {
            name: self.source.get(name.byte_range())?.to_owned(),
            line0: u32::try_from(name.start_position().row).ok()?,
            byte_column: name.start_position().column,
            argument_index,
        })
    }

    /// For the TypeScript/JavaScript declaration whose name (or start) is at 0-based `line0`,
    /// byte column `byte_column` — where a server's `definition` of a called name leads: a
    /// function or method (signature), a class (its constructor), a `const f = (…) => …` — the
    /// parameter that takes the argument at `argument_index` (a rest parameter takes those past
    /// it; a `this` parameter takes none). `None` when no such declaration or parameter is
    /// there (a variable of an interface type, `declare var test: jest.It`).
    pub fn typescript_parameter_at(&self, line0: u32, byte_column: usize, argument_index: usize) -> Option<DeclaredParameter> {
        let text =
            |node: tree_sitter::Node<'_>| self.source.get(node.byte_range()).unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
        let mut node = self.typescript_node_at(line0, byte_column)?;
        // The declaration the position names: the innermost one with parameters, or a class.
        let declaration = loop {
            match node.kind() {
                "function_declaration"
                | "generator_function_declaration"
                | "function_signature"
                | "function_expression"
                | "function"
                | "arrow_function"
                | "method_definition"
                | "method_signature"
                | "abstract_method_signature"
                | "call_signature"
                | "construct_signature" => break node,
                "class_declaration" | "abstract_class_declaration" | "class" => {
                    let body = node.child_by_field_name("body")?;
                    let mut cursor = body.walk();
                    let constructor = body.named_children(&mut cursor).find(|member| {
                        matches!(member.kind(), "method_definition" | "method_signature")
                            && member.child_by_field_name("name").is_some_and(|name| text(name) == "constructor")
                    });
                    break constructor?;
                }
                "variable_declarator" => {
                    let mut value = node.child_by_field_name("value")?;
                    while matches!(value.kind(), "parenthesized_expression" | "as_expression" | "satisfies_expression") {
                        value = value.named_child(0)?;
                    }
                    break value;
                }
                "program" | "statement_block" | "class_body" | "interface_body" | "object_type" => return None,
                _ => node = node.parent()?,
            }
        };
        let parameters = declaration.child_by_field_name("parameters")?;
        let mut cursor = parameters.walk();
        let list: Vec<tree_sitter::Node<'_>> = parameters
            .named_children(&mut cursor)
            .filter(|parameter| matches!(parameter.kind(), "required_parameter" | "optional_parameter"))
            .filter(|parameter| parameter.child_by_field_name("pattern").is_none_or(|pattern| text(pattern) != "this"))
            .collect();
        let is_rest = |parameter: &tree_sitter::Node<'_>| {
            parameter.child_by_field_name("pattern").is_some_and(|pattern| pattern.kind() == "rest_pattern")
        };
        let parameter = match list.get(argument_index) {
            Some(parameter) if !list[..argument_index].iter().any(is_rest) => *parameter,
            _ => *list.iter().find(|parameter| is_rest(parameter))?,
        };
        let annotation = parameter.child_by_field_name("type").map(text).unwrap_or_default();
        let annotation = annotation.trim_start_matches(':').trim();
        let names_keyof = |type_text: &str| !crate::lsp::rename_coverage::word_positions(type_text, "keyof").is_empty();
        // A type parameter of the declaration or of a class, interface or type around it
        // (`<T, K extends keyof T>(obj: T, key: K)`), constrained by a `keyof`.
        let constrained_by_keyof = |name: &str| {
            let mut scope = Some(declaration);
            while let Some(node) = scope {
                if let Some(list) = node.child_by_field_name("type_parameters") {
                    let mut cursor = list.walk();
                    let found = list
                        .named_children(&mut cursor)
                        .find(|parameter| parameter.child_by_field_name("name").is_some_and(|n| text(n) == name));
                    if let Some(found) = found {
                        return found.child_by_field_name("constraint").is_some_and(|constraint| names_keyof(&text(constraint)));
                    }
                }
                scope = node.parent();
            }
            false
        };
        let is_keyof = names_keyof(annotation)
            || (!annotation.is_empty()
                && annotation.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
                && constrained_by_keyof(annotation));
        Some(DeclaredParameter { text: text(parameter), is_keyof })
    }
}

/// A type's name as written at a position (0-based line, byte column of its first byte).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeNameAt {
    /// The name (`CoreOptions`), without namespace or type arguments.
    pub name: String,
    /// 0-based line of the name.
    pub line0: u32,
    /// Byte column of the name's first byte on that line.
    pub byte_column: usize,
}

/// What [`ParsedSource::typescript_heritage_at`] reads of one TypeScript interface, class or
/// type alias declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypescriptHeritage {
    /// The declaration's own name (`TableOptions`).
    pub own_name: String,
    /// The named types it is built on, each by the last identifier of its name with its
    /// position, in source order; a utility that keeps the member (`Omit<X, 'other'>`,
    /// `Partial<X>`, `Pick<X, 'member'>`) is read through to its first type argument `X`.
    pub built_on: Vec<TypeNameAt>,
    /// Whether some part of its heritage or value was neither followed nor known to lack the
    /// member: a mapped, conditional, union, `keyof`/`typeof` or indexed type, a `Pick`/`Omit`
    /// whose keys are no string literals, `Exclude`/`Extract`, a mixin call (review49 H2).
    pub unfollowed: bool,
}

impl ParsedSource {
    /// For a TypeScript/JavaScript file: the names of the interfaces and classes it declares whose
    /// `extends` (or `implements`) clause names `base` as a word (`interface RootConfig<T>
    /// extends RuntimeConfig<T>`), in source order: their instances carry `base`'s members.
    pub fn typescript_declarations_extending(&self, base: &str) -> Vec<String> {
        let mut found = Vec::new();
        let mut stack = vec![self.root.root().get_inner_node()];
        while let Some(node) = stack.pop() {
            let mut cursor = node.walk();
            let children: Vec<tree_sitter::Node<'_>> = node.named_children(&mut cursor).collect();
            if matches!(node.kind(), "interface_declaration" | "class_declaration" | "abstract_class_declaration") {
                let clause = children.iter().find(|child| matches!(child.kind(), "extends_type_clause" | "class_heritage"));
                let names_base = clause
                    .and_then(|clause| self.source.get(clause.start_byte()..clause.end_byte()))
                    .is_some_and(|text| !crate::lsp::rename_coverage::word_positions(text, base).is_empty());
                let name = node.child_by_field_name("name").and_then(|name| self.source.get(name.start_byte()..name.end_byte()));
                if let (true, Some(name)) = (names_base, name) {
                    if name != base {
                        found.push(name.to_owned());
                    }
                }
            }
            stack.extend(children.into_iter().rev());
        }
        found
    }
}

impl ParsedSource {
    /// For a TypeScript/JavaScript position (0-based `line0`, byte column `byte_column`): whether
    /// `name` is a type parameter of a declaration enclosing it (`function f<TParams>(…)`,
    /// `type T<TParams extends …> = …`): a key indexed off it (`TParams['_ctx_out']`) may name a
    /// member of the type it is constrained to (trial54 F6).
    /// For the TypeScript type parameter `name` at 0-based `line0`, byte column `byte_column`:
    /// the type it is narrowed to there by an enclosing conditional type whose true branch holds
    /// the position (`T extends FieldValidators<…> ? T['onDynamic'] : …` narrows `T` to
    /// `FieldValidators`), as that type's base name; the innermost such conditional wins. `None`
    /// outside any true branch that tests `name`.
    pub fn typescript_conditional_narrowing(&self, line0: u32, byte_column: usize, name: &str) -> Option<String> {
        let mut node = self.typescript_node_at(line0, byte_column)?;
        let text = |node: tree_sitter::Node<'_>| self.source.get(node.start_byte()..node.end_byte()).unwrap_or("");
        loop {
            let parent = node.parent()?;
            if parent.kind() == "conditional_type"
                && parent.child_by_field_name("consequence").is_some_and(|branch| branch.id() == node.id())
                && parent.child_by_field_name("left").is_some_and(|left| text(left).trim() == name)
            {
                let right = parent.child_by_field_name("right")?;
                let base = text(right).split('<').next().unwrap_or("").trim();
                let base = base.rsplit('.').next().unwrap_or(base);
                return (!base.is_empty() && base.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')).then(|| base.to_owned());
            }
            node = parent;
        }
    }

    pub fn typescript_type_parameter_in_scope(&self, line0: u32, byte_column: usize, name: &str) -> bool {
        let Some(mut node) = self.typescript_node_at(line0, byte_column) else { return false };
        loop {
            let mut cursor = node.walk();
            let lists: Vec<tree_sitter::Node<'_>> =
                node.named_children(&mut cursor).filter(|child| child.kind() == "type_parameters").collect();
            for list in lists {
                let mut inner = list.walk();
                let declares = list.named_children(&mut inner).any(|parameter| {
                    parameter.child_by_field_name("name").and_then(|n| self.source.get(n.start_byte()..n.end_byte())) == Some(name)
                });
                if declares {
                    return true;
                }
            }
            match node.parent() {
                Some(parent) => node = parent,
                None => return false,
            }
        }
    }
}

impl ParsedSource {
    /// For a TypeScript string key at 0-based `line0`, byte column `byte_column` that
    /// [`ParsedSource::string_property_key_role`] calls a key in a type argument
    /// (`Pick<QueryOptions<any>, 'k'>`) or an indexed-access type key (`QueryOptions['k']`): the
    /// name of the type it is a key of — the first type argument's or the indexed type's base
    /// name without its own type arguments or namespace (`QueryOptions`). `None` for any other
    /// string, or when that type is no plain type name (an object type, `typeof x`).
    pub fn string_key_base_type_name(&self, line0: u32, byte_column: usize) -> Option<String> {
        self.string_key_base_type(line0, byte_column).map(|base| base.name)
    }

    /// [`ParsedSource::string_key_base_type_name`] with the position of that name (the last
    /// identifier of `ns.QueryOptions<…>`), where the server's `definition` of the keyed type is
    /// asked (trial168 F1: following `TableOptionsResolved` to the `CoreOptions` it extends).
    pub fn string_key_base_type(&self, line0: u32, byte_column: usize) -> Option<TypeNameAt> {
        let node = self.typescript_string_at(line0, byte_column)?;
        let mut up = node.parent()?;
        while matches!(up.kind(), "literal_type" | "union_type") {
            up = up.parent()?;
        }
        let base = match up.kind() {
            "type_arguments" => up.named_child(0)?,
            "lookup_type" | "indexed_access_type" => up.named_child(0)?,
            _ => return None,
        };
        let mut base = base;
        loop {
            base = match base.kind() {
                "generic_type" => base.child_by_field_name("name").or_else(|| base.named_child(0))?,
                "nested_type_identifier" => {
                    let last = u32::try_from(base.named_child_count().checked_sub(1)?).ok()?;
                    base.child_by_field_name("name").or_else(|| base.named_child(last))?
                }
                "type_identifier" | "identifier" => return self.type_name_at(base),
                _ => return None,
            };
        }
    }

    /// The name `node` (an identifier) spells, with its position.
    fn type_name_at(&self, node: tree_sitter::Node<'_>) -> Option<TypeNameAt> {
        let name = self.source.get(node.start_byte()..node.end_byte())?.to_owned();
        Some(TypeNameAt { name, line0: node.start_position().row as u32, byte_column: node.start_position().column })
    }

    /// For a TypeScript interface, class or type alias whose name stands at 0-based `line0`,
    /// byte column `byte_column` (where the server's `definition` of a type name points): its
    /// name and the types it is built on, each as the last identifier of its name with its
    /// position — an interface's `extends` list (`interface TableOptionsResolved<TData> extends
    /// CoreOptions<TData>, FeatureOptions<TData> {}` → `CoreOptions`, `FeatureOptions`), a
    /// class's `extends` and `implements`, and a type alias's type reference or the type
    /// references of its top-level intersection (`type R = A<T> & B`). Its instances carry the
    /// members of each. The utilities that keep the member `member_name` are read through to
    /// their first type argument (`Omit<X, 'other'>`, `Partial<X>`, `Required<X>`,
    /// `Readonly<X>`, `NonNullable<X>`, `Pick<X, 'member_name' | …>`); a `Pick` without it or an
    /// `Omit` of it drops the member and names nothing; any other type that is no plain name is
    /// said unfollowed (review49 H2: `interface TableOptions extends Omit<CoreOptions, 'data'>`
    /// was said to be built on nothing). `None` when no such declaration is named there.
    pub fn typescript_heritage_at(&self, line0: u32, byte_column: usize, member_name: &str) -> Option<TypescriptHeritage> {
        let name = self.typescript_node_at(line0, byte_column)?;
        let declaration = name.parent()?;
        if !matches!(
            declaration.kind(),
            "interface_declaration" | "class_declaration" | "abstract_class_declaration" | "type_alias_declaration"
        ) || declaration.child_by_field_name("name").is_none_or(|own| own.id() != name.id())
        {
            return None;
        }
        let own_name = self.source.get(name.start_byte()..name.end_byte())?.to_owned();
        let text = |node: tree_sitter::Node<'_>| self.source.get(node.start_byte()..node.end_byte()).unwrap_or("");
        // The types a heritage list or a type alias's value names.
        let mut types: Vec<tree_sitter::Node<'_>> = Vec::new();
        let mut cursor = declaration.walk();
        for child in declaration.named_children(&mut cursor) {
            match child.kind() {
                "extends_type_clause" | "implements_clause" => {
                    let mut inner = child.walk();
                    types.extend(child.named_children(&mut inner));
                }
                "class_heritage" => {
                    let mut inner = child.walk();
                    for clause in child.named_children(&mut inner) {
                        let mut innermost = clause.walk();
                        types.extend(clause.named_children(&mut innermost).filter(|node| node.kind() != "type_arguments"));
                    }
                }
                _ => {}
            }
        }
        if declaration.kind() == "type_alias_declaration" {
            types.extend(declaration.child_by_field_name("value"));
        }
        // The string literals of a key list (`'a' | 'b'`); `None` when it holds anything else.
        let literal_keys = |keys: tree_sitter::Node<'_>| -> Option<Vec<String>> {
            let mut found = Vec::new();
            let mut stack = vec![keys];
            while let Some(node) = stack.pop() {
                match node.kind() {
                    "union_type" | "parenthesized_type" => {
                        let mut inner = node.walk();
                        stack.extend(node.named_children(&mut inner));
                    }
                    "literal_type" => {
                        let literal = node.named_child(0)?;
                        if literal.kind() != "string" {
                            return None;
                        }
                        found.push(text(literal).trim_matches(|c| c == '\'' || c == '"' || c == '`').to_owned());
                    }
                    _ => return None,
                }
            }
            Some(found)
        };
        let mut built_on = Vec::new();
        let mut unfollowed = false;
        let mut stack = types;
        while let Some(node) = stack.pop() {
            match node.kind() {
                "intersection_type" | "parenthesized_type" => {
                    let mut inner = node.walk();
                    stack.extend(node.named_children(&mut inner));
                }
                // Members written out: they come from no other type; a mapped type
                // (`{ [K in keyof X]: … }`, an object type holding a mapped clause) does.
                "object_type" => {
                    let mut inner = node.walk();
                    let mapped = node.named_children(&mut inner).any(|member| {
                        let mut clauses = member.walk();
                        member.kind() == "index_signature"
                            && member.named_children(&mut clauses).any(|clause| clause.kind() == "mapped_type_clause")
                    });
                    unfollowed |= mapped;
                }
                "predefined_type" | "literal_type" => {}
                "type_identifier" | "identifier" | "property_identifier" => built_on.extend(self.type_name_at(node)),
                "nested_type_identifier" | "member_expression" => {
                    match node.child_by_field_name("name").or_else(|| node.child_by_field_name("property")) {
                        Some(last) => built_on.extend(self.type_name_at(last)),
                        None => unfollowed = true,
                    }
                }
                "generic_type" => {
                    let Some(generic) = node.child_by_field_name("name").or_else(|| node.named_child(0)) else {
                        unfollowed = true;
                        continue;
                    };
                    let utility = text(generic);
                    let arguments: Vec<tree_sitter::Node<'_>> = node
                        .child_by_field_name("type_arguments")
                        .map(|list| {
                            let mut inner = list.walk();
                            list.named_children(&mut inner).collect()
                        })
                        .unwrap_or_default();
                    match utility {
                        "Partial" | "Required" | "Readonly" | "NonNullable" => match arguments.first() {
                            Some(first) => stack.push(*first),
                            None => unfollowed = true,
                        },
                        "Omit" | "Pick" => match (arguments.first(), arguments.get(1).and_then(|keys| literal_keys(*keys))) {
                            (Some(first), Some(keys)) => {
                                let names_member = keys.iter().any(|key| key == member_name);
                                // `Omit` keeps the member unless it names it; `Pick` only if it does.
                                if names_member == (utility == "Pick") {
                                    stack.push(*first);
                                }
                            }
                            _ => unfollowed = true,
                        },
                        "Exclude" | "Extract" | "Record" => unfollowed = true,
                        _ => stack.push(generic),
                    }
                }
                _ => unfollowed = true,
            }
        }
        built_on.sort_by_key(|at| (at.line0, at.byte_column));
        Some(TypescriptHeritage { own_name, built_on, unfollowed })
    }

    /// For a TypeScript member name on 0-based `line0` (a property or method signature of an
    /// interface or type literal, or a class member): the name of the interface, type alias or
    /// class that declares it, exported or not. `None` for anything else (an object literal's
    /// key, a member of an anonymous type inside a function).
    pub fn typescript_member_owner_name(&self, line0: u32, name: &str) -> Option<String> {
        if !matches!(self.language, SupportLang::TypeScript | SupportLang::Tsx) {
            return None;
        }
        let identifier = self.identifier_at(line0, 0, name)?;
        let (_, owner) = typescript_member_declaration(identifier)?;
        self.source.get(owner.start_byte()..owner.end_byte()).map(str::to_owned)
    }
}

/// For a TypeScript identifier that names a member — a property or method signature, a method
/// definition, a class field — the declaration of the interface, type alias or class that
/// declares it, and that declaration's name node. `None` for any other identifier, a member
/// of an object literal, or one of an anonymous type inside a function.
pub(crate) fn typescript_member_declaration(identifier: tree_sitter::Node<'_>) -> Option<(tree_sitter::Node<'_>, tree_sitter::Node<'_>)> {
    let parent = identifier.parent()?;
    let is_member = matches!(
        parent.kind(),
        "property_signature" | "method_signature" | "method_definition" | "public_field_definition" | "abstract_method_signature"
    ) && parent.child_by_field_name("name").is_some_and(|member| member.id() == identifier.id());
    if !is_member {
        return None;
    }
    let mut node = parent;
    loop {
        node = node.parent()?;
        match node.kind() {
            "interface_declaration" | "type_alias_declaration" | "class_declaration" | "abstract_class_declaration" => {
                return Some((node, node.child_by_field_name("name")?));
            }
            "statement_block" | "arrow_function" | "function_expression" | "function" | "program" | "object" => return None,
            _ => {}
        }
    }
}

impl ParsedSource {
    /// For a Rust method name on 0-based `line0` declared in a trait (`fn chunk(&self) -> &[u8];`
    /// or with a default body inside `trait Buf { … }`): the trait's name. `None` for anything
    /// else (a free function, a method of an `impl`).
    pub fn rust_trait_of_method(&self, line0: u32, name: &str) -> Option<String> {
        if self.language != SupportLang::Rust {
            return None;
        }
        let identifier = self.identifier_at(line0, 0, name)?;
        let function = identifier.parent()?;
        if !matches!(function.kind(), "function_item" | "function_signature_item")
            || function.child_by_field_name("name").is_none_or(|named| named.id() != identifier.id())
        {
            return None;
        }
        let list = function.parent()?;
        let item = list.parent()?;
        if list.kind() != "declaration_list" || item.kind() != "trait_item" {
            return None;
        }
        let trait_name = item.child_by_field_name("name")?;
        self.source.get(trait_name.start_byte()..trait_name.end_byte()).map(str::to_owned)
    }

    /// For a Rust method name on 0-based `line0` defined in an `impl Trait for Type` block: (the
    /// trait's last path segment without generic arguments, the type's text). `None` for a
    /// method of an inherent impl or a trait, or anything else.
    pub fn rust_impl_trait_of_method(&self, line0: u32, name: &str) -> Option<(String, String)> {
        if self.language != SupportLang::Rust {
            return None;
        }
        let identifier = self.identifier_at(line0, 0, name)?;
        let function = identifier.parent()?;
        if function.kind() != "function_item" || function.child_by_field_name("name").is_none_or(|named| named.id() != identifier.id()) {
            return None;
        }
        let list = function.parent()?;
        let item = list.parent()?;
        if list.kind() != "declaration_list" || item.kind() != "impl_item" {
            return None;
        }
        let mut trait_node = item.child_by_field_name("trait")?;
        loop {
            trait_node = match trait_node.kind() {
                "generic_type" => trait_node.child_by_field_name("type")?,
                "scoped_type_identifier" => trait_node.child_by_field_name("name")?,
                _ => break,
            };
        }
        let type_node = item.child_by_field_name("type")?;
        let text = |node: tree_sitter::Node<'_>| self.source.get(node.start_byte()..node.end_byte()).map(str::to_owned);
        Some((text(trait_node)?, text(type_node)?))
    }

    /// For a Rust `impl` item that starts on 0-based `impl_line0`: the 0-based line of its method
    /// named `method` (`fn chunk(&self) …` in its body); `None` when the impl does not define it
    /// (it uses the trait's default) or no impl starts there.
    pub fn rust_impl_method_line(&self, impl_line0: u32, method: &str) -> Option<u32> {
        if self.language != SupportLang::Rust {
            return None;
        }
        let line = self.line_text(impl_line0)?;
        let at = line.find("impl")?;
        let start = self.byte_offset(impl_line0, at)?;
        let mut node = self.root.root().get_inner_node().descendant_for_byte_range(start, start + 4)?;
        while node.kind() != "impl_item" {
            node = node.parent()?;
        }
        let body = node.child_by_field_name("body")?;
        let mut cursor = body.walk();
        let found = body.named_children(&mut cursor).find(|child| {
            child.kind() == "function_item"
                && child
                    .child_by_field_name("name")
                    .is_some_and(|named| self.source.get(named.start_byte()..named.end_byte()) == Some(method))
        })?;
        u32::try_from(found.child_by_field_name("name")?.start_position().row).ok()
    }
}

impl ParsedSource {
    /// For a TypeScript type name `name` at 0-based `line0`, byte column `byte_column`: whether it
    /// is the whole target of an `as` cast (`x as Row`, `x as Row<T>`, `x as unknown as Row`) —
    /// a cast that makes one value of the type. `false` when the name is only part of the
    /// target (`as Row<T>[]`, `as Array<Row>`, `as Record<string, Row>`, a target over several
    /// lines read as a whole: trial35 F4) or in no cast.
    pub fn is_whole_cast_target(&self, line0: u32, byte_column: usize, name: &str) -> bool {
        let Some(mut node) = self.typescript_node_at(line0, byte_column) else { return false };
        if self.source.get(node.start_byte()..node.end_byte()) != Some(name) {
            return false;
        }
        // The type the name stands for: itself, or the generic type it names.
        if node.parent().is_some_and(|parent| {
            parent.kind() == "generic_type" && parent.child_by_field_name("name").is_some_and(|n| n.id() == node.id())
        }) {
            node = node.parent().expect("checked");
        }
        let Some(parent) = node.parent() else { return false };
        matches!(parent.kind(), "as_expression" | "type_assertion")
            && parent.named_child(parent.named_child_count().saturating_sub(1) as u32).is_some_and(|target| target.id() == node.id())
            || parent.kind() == "type_assertion" && parent.named_child(0).is_some_and(|target| target.id() == node.id())
    }
}

impl ParsedSource {
    /// For a Rust identifier `name` at 0-based `line0`, byte column `byte_column`: the local
    /// binding of `name` it refers to by lexical scope — a `let` before it in an enclosing
    /// block, a closure or function parameter — as the binding identifier's (0-based line, byte
    /// column); `None` when no local of that name is in scope (it names an item). The binding
    /// itself resolves to itself. Shadowing by a later `let` in the same block is followed.
    pub fn rust_local_binding_of<'t>(&'t self, line0: u32, byte_column: usize, name: &str) -> Option<(u32, usize)> {
        if self.language != SupportLang::Rust {
            return None;
        }
        let at = self.byte_offset(line0, byte_column)?;
        let use_node = self.root.root().get_inner_node().descendant_for_byte_range(at, at + name.len())?;
        // A field (`self.encoded_len`), a path segment (`Self::encoded_len`) or a type names no
        // local.
        if use_node.kind() != "identifier" || use_node.parent().is_some_and(|parent| parent.kind() == "scoped_identifier") {
            return None;
        }
        // In a macro call's arguments (a token tree) a field or path segment is an identifier
        // token after `.` or `::` (`debug_assert_eq!(self.len, …)`: the field, trial62 F1).
        if use_node.parent().is_some_and(|parent| parent.kind() == "token_tree")
            && use_node.prev_sibling().is_some_and(|previous| matches!(previous.kind(), "." | "::"))
        {
            return None;
        }
        let binding_in = |pattern: tree_sitter::Node<'t>| rust_pattern_binding(&self.source, pattern, name);
        let mut child = use_node;
        let mut node = use_node.parent()?;
        loop {
            match node.kind() {
                "block" => {
                    // The last `let` before the use (among the block's statements up to it).
                    let mut found = None;
                    let mut cursor = node.walk();
                    for statement in node.named_children(&mut cursor) {
                        if statement.start_byte() >= child.start_byte() && statement.id() != child.id() {
                            break;
                        }
                        if statement.kind() == "let_declaration" && statement.end_byte() <= use_node.start_byte() {
                            if let Some(pattern) = statement.child_by_field_name("pattern") {
                                if let Some(binding) = binding_in(pattern) {
                                    found = Some(binding);
                                }
                            }
                        }
                    }
                    if let Some(binding) = found {
                        let position = binding.start_position();
                        return Some((u32::try_from(position.row).ok()?, position.column));
                    }
                }
                "closure_expression" | "function_item" => {
                    if let Some(parameters) = node.child_by_field_name("parameters") {
                        if let Some(binding) = binding_in(parameters) {
                            let position = binding.start_position();
                            return Some((u32::try_from(position.row).ok()?, position.column));
                        }
                    }
                    if node.kind() == "function_item" {
                        return None;
                    }
                }
                "let_declaration" => {
                    // The binding identifier itself.
                    if let Some(binding) = node.child_by_field_name("pattern").and_then(binding_in) {
                        if binding.id() == use_node.id() {
                            let position = binding.start_position();
                            return Some((u32::try_from(position.row).ok()?, position.column));
                        }
                    }
                }
                "source_file" | "impl_item" | "mod_item" | "trait_item" => return None,
                _ => {}
            }
            child = node;
            node = node.parent()?;
        }
    }
}

/// The identifier a Rust pattern binds as `name` (not a path segment, nor a struct pattern's
/// field name that a `field: pattern` renames), not looking into nested blocks or closures.
fn rust_pattern_binding<'t>(source: &str, pattern: tree_sitter::Node<'t>, name: &str) -> Option<tree_sitter::Node<'t>> {
    let mut stack = vec![pattern];
    while let Some(node) = stack.pop() {
        if node.kind() == "identifier" && source.get(node.start_byte()..node.end_byte()) == Some(name) {
            let parent = node.parent();
            let parent_kind = parent.map(|parent| parent.kind()).unwrap_or("");
            let renamed_field = parent_kind == "field_pattern" && parent.and_then(|p| p.child_by_field_name("pattern")).is_some();
            if !matches!(parent_kind, "scoped_identifier" | "tuple_struct_pattern" | "struct_pattern") && !renamed_field {
                return Some(node);
            }
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if !matches!(child.kind(), "block" | "closure_expression" | "type_identifier") {
                stack.push(child);
            }
        }
    }
    None
}

/// Whether a `variable_declarator` under a node of `kind` is named with its siblings (the
/// declaration lists all of its variables) rather than on its own.
fn names_all_declarators(kind: &str) -> bool {
    matches!(kind, "lexical_declaration" | "variable_declaration")
}

/// How a TypeScript value tsserver lists among implementations gets its type (see
/// [`ParsedSource::value_typing_at`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueTyping {
    /// Cast with `as` / `<T>`: it claims the type; the compiler does not check it implements it.
    Cast,
    /// Declared with the type (an annotated variable, a `satisfies`, a property of such an
    /// object, a class field with a type): the compiler checks it implements the type.
    Declared,
    /// A container typed with it (`const rows: Row[] = []`, `{} as Record<string, Row>`): an
    /// array, record, map or set of such values, not one (trial33 F1).
    Container,
    /// Neither is seen (a call's argument, a returned value).
    Unknown,
}

impl ParsedSource {
    /// How the TypeScript value at 0-based `line0`, byte column `byte_column` gets its type, read
    /// from its ancestors up to the enclosing statement: within an `as` (or `<T>`) cast →
    /// [`ValueTyping::Cast`]; within a `satisfies`, an annotated variable, parameter default or
    /// class field → [`ValueTyping::Declared`] (object properties and nested objects pass it
    /// on). trpc 11's `const router: BuiltRouter<…> = { createCaller: … }` implements
    /// `Router.createCaller`; zod's `string: ((arg) => …) as (typeof ZodString)["create"]` only
    /// claims the type (trial32 F1, F3; trial30 F1).
    pub fn value_typing_at(&self, line0: u32, byte_column: usize) -> ValueTyping {
        let Some(mut node) = self.typescript_node_at(line0, byte_column) else { return ValueTyping::Unknown };
        // The location's own expression: a container typed with the type is asked about only
        // when the location is the container itself, not an element of it.
        let mut from: Option<tree_sitter::Node<'_>> = None;
        let mut nested = false;
        loop {
            match node.kind() {
                "as_expression" | "type_assertion" => {
                    let cast_to = node.named_child(node.named_child_count().saturating_sub(1) as u32);
                    return match cast_to {
                        Some(cast_to) if !nested && self.is_container_type(cast_to) => ValueTyping::Container,
                        _ => ValueTyping::Cast,
                    };
                }
                "satisfies_expression" => return ValueTyping::Declared,
                "variable_declarator" | "public_field_definition" | "required_parameter" | "optional_parameter" => {
                    let Some(annotation) = node.child_by_field_name("type") else { return ValueTyping::Unknown };
                    let declared = annotation.named_child(0).unwrap_or(annotation);
                    let initializer =
                        from.is_some_and(|from| node.child_by_field_name("value").is_some_and(|value| value.id() == from.id()));
                    return if (initializer || from.is_none()) && !nested && self.is_container_type(declared) {
                        ValueTyping::Container
                    } else {
                        ValueTyping::Declared
                    };
                }
                "expression_statement" | "return_statement" | "arguments" | "program" | "statement_block" | "class_body" => {
                    return ValueTyping::Unknown;
                }
                // An element of an array literal or a property value of an object literal is a
                // value of the element type, not the container.
                "array" if from.is_some_and(|from| from.is_named()) => nested = true,
                "pair" if from.is_some_and(|from| node.child_by_field_name("value").is_some_and(|value| value.id() == from.id())) => {
                    nested = true
                }
                _ => {}
            }
            from = Some(node);
            match node.parent() {
                Some(parent) => node = parent,
                None => return ValueTyping::Unknown,
            }
        }
    }

    /// For a TypeScript value at 0-based `line0`, byte column `byte_column` that
    /// [`ParsedSource::value_typing_at`] calls [`ValueTyping::Declared`] by an annotation: when
    /// that annotation is a generic type (`ProxyHandler<[ProxyArrayState]>`), its name and the
    /// text of its type arguments; `None` otherwise. A value typed with a generic type that takes
    /// a type as an argument is no value of that type (trial70 F1: immer's `const arrayTraps:
    /// ProxyHandler<[ProxyArrayState]> = {}` was called an implementation of `ImmerBaseState`).
    pub fn typescript_generic_annotation_at(&self, line0: u32, byte_column: usize) -> Option<(String, String)> {
        let mut node = self.typescript_node_at(line0, byte_column)?;
        loop {
            match node.kind() {
                "variable_declarator" | "public_field_definition" | "required_parameter" | "optional_parameter" => {
                    let annotation = node.child_by_field_name("type")?;
                    let declared = annotation.named_child(0).unwrap_or(annotation);
                    if declared.kind() != "generic_type" {
                        return None;
                    }
                    let name = declared.child_by_field_name("name").or_else(|| declared.named_child(0))?;
                    let arguments = declared.child_by_field_name("type_arguments").or_else(|| declared.named_child(1))?;
                    let text = |node: tree_sitter::Node<'_>| self.source.get(node.start_byte()..node.end_byte()).map(str::to_owned);
                    return Some((text(name)?, text(arguments)?));
                }
                "expression_statement" | "return_statement" | "arguments" | "program" | "statement_block" | "class_body" => return None,
                _ => {}
            }
            node = node.parent()?;
        }
    }

    /// Whether a TypeScript type node is a container of values: an array, tuple or object type
    /// (`{ current?: T }`), or `Array`, `ReadonlyArray`, `Record`, `Map`, `ReadonlyMap`, `Set`, `ReadonlySet`,
    /// `WeakMap`, `WeakSet`, `Promise`, `Iterable` of something.
    fn is_container_type(&self, node: tree_sitter::Node<'_>) -> bool {
        match node.kind() {
            // An object type holds the type in a property (trial37 F2: `const ref: { current?:
            // InternalAtom<…> } = {}` was called an implementation of `InternalAtom`).
            "array_type" | "tuple_type" | "object_type" => true,
            "readonly_type" => node.named_child(0).is_some_and(|inner| self.is_container_type(inner)),
            "generic_type" => node.child_by_field_name("name").or_else(|| node.named_child(0)).is_some_and(|name| {
                let text = self.source.get(name.start_byte()..name.end_byte()).unwrap_or("");
                matches!(
                    text,
                    "Array"
                        | "ReadonlyArray"
                        | "Record"
                        | "Map"
                        | "ReadonlyMap"
                        | "Set"
                        | "ReadonlySet"
                        | "WeakMap"
                        | "WeakSet"
                        | "Promise"
                        | "Iterable"
                )
            }),
            _ => false,
        }
    }
}

impl ParsedSource {
    /// For a TypeScript/JavaScript member name on 0-based `line0` — a property or method of an
    /// interface, type literal or class (`getSortingFn?: …`, `run() {}`), or a key of an object
    /// literal (`includesString: …`, a shorthand `includesString,`) — the top-level declaration
    /// it belongs to when the member is part of its shape, not of a function body. `None`
    /// otherwise (a member of a local shape, inside a function body; a declaration exported
    /// inside a `namespace` or `declare module` is taken as the exported one). A rename of
    /// such a member changes the declaration's shape (trial33 M1: `SortingColumn.getSortingFn`,
    /// `filterFns.includesString`), which is public when the declaration is exported
    /// ([`TopLevelDeclarationMember::exported`]) or an exported type extends it (true-myth
    /// 9.4.0: the unexported `class MaybeImpl` holds `andThen`, and `export interface Just<T>
    /// extends MaybeImpl<T>` publishes it; recheck of trial141).
    ///
    /// The occurrence of `name` on `line0` is the one at or after character `character_hint`
    /// (the first when none is); [`TopLevelDeclarationMember::column`] is its byte column in the
    /// line. [`TopLevelDeclarationMember::path`] is the member's path below the declaration:
    /// `name` for a direct member, `range.startIndex` for a property of the type of the member
    /// `range` (trial56 M1: `Virtualizer.range`'s `{ startIndex: number }` was called
    /// `Virtualizer.startIndex`), `run(…).retries` for a property of a parameter's type of the
    /// method `run`.
    pub fn member_of_top_level_declaration_from(&self, line0: u32, character_hint: u32, name: &str) -> Option<TopLevelDeclarationMember> {
        if !matches!(self.language, SupportLang::TypeScript | SupportLang::Tsx | SupportLang::JavaScript) {
            return None;
        }
        let identifier = self.identifier_at(line0, character_hint, name)?;
        let column = identifier.start_byte().checked_sub(*self.line_starts.get(line0 as usize)?)?;
        let parent = identifier.parent()?;
        let is_member = match parent.kind() {
            "property_signature" | "method_signature" | "method_definition" | "public_field_definition" | "abstract_method_signature" => {
                parent.child_by_field_name("name").is_some_and(|member| member.id() == identifier.id())
            }
            "pair" => parent.child_by_field_name("key").is_some_and(|key| key.id() == identifier.id()),
            "object" => identifier.kind() == "shorthand_property_identifier",
            "required_parameter" | "optional_parameter" => parameter_property_class(parent, identifier).is_some(),
            _ => false,
        };
        if !is_member {
            return None;
        }
        let text = |node: tree_sitter::Node<'_>| self.source.get(node.start_byte()..node.end_byte()).map(str::to_owned);
        // The most restrictive access of the member and the members it lies in (`private`,
        // `#name`, `protected`): a private outer member hides its type's properties too.
        let mut access = MemberAccess::of(parent, identifier, &self.source);
        // The enclosing members, innermost first, and whether the walk came up through a
        // parameter list (the segment is then the method's `name(…)`).
        let mut path: Vec<String> = vec![name.to_owned()];
        let mut through_parameters = false;
        // A parameter property is a member of the class itself: the walk goes on from the class,
        // and its constructor's name is no segment of the member's path (trial101 M1).
        let mut node = parameter_property_class(parent, identifier).unwrap_or(parent);
        loop {
            let up = node.parent()?;
            match up.kind() {
                // Inside a body: a local's member, not the exported shape.
                "statement_block" | "arrow_function" | "function_expression" | "function" | "call_expression" | "arguments" => {
                    return None;
                }
                "formal_parameters" => through_parameters = true,
                "property_signature"
                | "method_signature"
                | "method_definition"
                | "public_field_definition"
                | "abstract_method_signature" => {
                    if let Some(member) = up.child_by_field_name("name") {
                        access = access.max(MemberAccess::of(up, member, &self.source));
                    }
                    if let Some(member) = up.child_by_field_name("name").and_then(text) {
                        path.push(if std::mem::take(&mut through_parameters) { format!("{member}(…)") } else { member });
                    }
                }
                "pair" => {
                    if let Some(key) = up.child_by_field_name("key").and_then(text) {
                        path.push(key);
                    }
                }
                "export_statement" | "program" => {
                    path.reverse();
                    let path = path.join(".");
                    let (owner, kind) = match node.kind() {
                        "interface_declaration" => (text(node.child_by_field_name("name")?)?, "interface"),
                        "type_alias_declaration" => (text(node.child_by_field_name("name")?)?, "type"),
                        "class_declaration" | "abstract_class_declaration" => (text(node.child_by_field_name("name")?)?, "class"),
                        "lexical_declaration" | "variable_declaration" => {
                            let mut cursor = node.walk();
                            let declarator = node.named_children(&mut cursor).find(|child| child.kind() == "variable_declarator")?;
                            (text(declarator.child_by_field_name("name")?)?, "object")
                        }
                        _ => return None,
                    };
                    return Some(TopLevelDeclarationMember {
                        owner,
                        kind,
                        column,
                        path,
                        exported: up.kind() == "export_statement",
                        access,
                    });
                }
                _ => {}
            }
            node = up;
        }
    }
}

/// Whether `operand` is the left operand of the `in` expression `binary` (`'value' in x`).
fn is_in_operand(binary: tree_sitter::Node<'_>, operand: tree_sitter::Node<'_>) -> bool {
    binary.child_by_field_name("left").is_some_and(|left| left.id() == operand.id())
        && binary.child_by_field_name("operator").is_some_and(|operator| operator.kind() == "in")
}

/// A member of a top-level TypeScript/JavaScript declaration (see
/// [`ParsedSource::member_of_top_level_declaration_from`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopLevelDeclarationMember {
    /// The declaration's name (`SortingColumn`, `filterFns`).
    pub owner: String,
    /// `interface`, `type`, `class` or `object` (a variable's object literal).
    pub kind: &'static str,
    /// The byte column of the member's name in its line.
    pub column: usize,
    /// The member's path below the declaration (`range.startIndex`, `run(…).retries`).
    pub path: String,
    /// Whether the declaration is exported (`export class …`); `false` for one only its module
    /// sees.
    pub exported: bool,
    /// The member's access (a class member's `private`, `#name` or `protected`; that of the
    /// member whose type holds it, when more restrictive).
    pub access: MemberAccess,
}

/// Who can use a TypeScript/JavaScript class member from outside its class, by its declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MemberAccess {
    /// No modifier, or `public`: any code.
    Public,
    /// `protected`: subclasses only.
    Protected,
    /// `private` (TypeScript) or a `#name` (JavaScript private): its own class only.
    Private,
}

impl MemberAccess {
    /// The access of the member declared by `member` (a class member, a parameter property or
    /// a signature) whose name node is `name`.
    fn of(member: tree_sitter::Node<'_>, name: tree_sitter::Node<'_>, source: &str) -> MemberAccess {
        if name.kind() == "private_property_identifier" {
            return MemberAccess::Private;
        }
        let mut cursor = member.walk();
        let modifier = member.children(&mut cursor).find(|child| child.kind() == "accessibility_modifier");
        match modifier.and_then(|modifier| source.get(modifier.start_byte()..modifier.end_byte())) {
            Some("private") => MemberAccess::Private,
            Some("protected") => MemberAccess::Protected,
            _ => MemberAccess::Public,
        }
    }
}

/// What one reference does with a function's name (see [`ParsedSource::reference_role`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ReferenceRole {
    /// In an import or export (`import { f }`, `export { f } from`, `from m import f`, `use m::f`).
    ImportOrExport,
    /// The name's own declaration.
    Declaration,
    /// `f(…)`, `obj.f(…)`, `new F(…)`.
    DirectCall,
    /// Called through an expression that yields it: `(a || f)(x)`, `(cond ? f : g)(x)`.
    CalledThroughExpression,
    /// Passed as an argument: `items.map(f)`, `register(f)`.
    Argument,
    /// In a type: `typeof f`, an annotation.
    Type,
    /// Any other use as a value: stored, returned, compared, its members read.
    Value,
}

impl ReferenceRole {
    /// The role in words, for notes ("called through an expression").
    pub fn describe(self) -> &'static str {
        match self {
            ReferenceRole::ImportOrExport => "import or export",
            ReferenceRole::Declaration => "declaration",
            ReferenceRole::DirectCall => "a call",
            ReferenceRole::CalledThroughExpression => "called through an expression",
            ReferenceRole::Argument => "passed as an argument",
            ReferenceRole::Type => "in a type",
            ReferenceRole::Value => "used as a value",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_in_a_macro_calls_statements_is_in_its_arguments_and_a_template_is_not() {
        // num-traits 0.2.19 real.rs:803 (trial71 F1): `forward! { Float::sqrt(self) -> Self; … }`.
        let source = "macro_rules! forward {\n    ($($base:ident :: $m:ident (self) -> $r:ty ;)*) => { $(fn $m(self) -> $r { <Self as $base>::$m(self) })* };\n}\n\nimpl<T: Float> Real for T {\n    forward! {\n        Float::floor(self) -> Self;\n        Float::sqrt(self) -> Self;\n    }\n}\n\nfn plain() {\n    let sqrt = 1;\n}\n";
        let parsed = ParsedSource::parse(Path::new("real.rs"), source).unwrap();
        let column = |line0: usize| source.lines().nth(line0).unwrap().find("sqrt").unwrap();
        assert!(parsed.in_macro_invocation_arguments(7, column(7)), "after a `;` inside the call");
        assert!(!parsed.in_macro_invocation_arguments(12, column(12)), "plain code");
        let template = source.lines().nth(1).unwrap().find("$m(self)").unwrap();
        assert!(!parsed.in_macro_invocation_arguments(1, template), "a macro_rules! template");
    }

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
    fn typescript_declaration_names_around_a_line() {
        let source = "import * as core from './core';\nexport * from './checks';\n// a comment\n\nexport function defineLazy(object: object, key: string): void {\n  Object.defineProperty(object, key, {});\n}\nexport const a = 1,\n  b = core.make(() => {\n    return 2;\n  });\nexport interface ZodType {\n  nonoptional(params?: string): ZodType;\n}\nclass Impl {\n  run(): void {\n    helper();\n  }\n}\nhelper();\n";
        let parsed = ParsedSource::parse(Path::new("util.ts"), source).expect("parsed");
        let names = |line0: u32| parsed.typescript_declaration_names_around(line0);
        assert_eq!(names(0), None, "an import reaches any importer");
        assert_eq!(names(1), None, "so does an `export *`");
        assert_eq!(names(2), Some(vec![]), "a comment");
        assert_eq!(names(3), Some(vec![]), "a blank line");
        assert_eq!(names(4), Some(vec!["defineLazy".to_owned()]), "the exported function's head");
        assert_eq!(names(5), Some(vec!["defineLazy".to_owned()]), "its body");
        assert_eq!(names(6), Some(vec!["defineLazy".to_owned()]), "its closing brace");
        assert_eq!(names(9), Some(vec!["a".to_owned(), "b".to_owned()]), "all of a declaration's variables");
        assert_eq!(names(12), Some(vec!["nonoptional".to_owned(), "ZodType".to_owned()]), "a method signature, then its interface");
        assert_eq!(names(16), Some(vec!["run".to_owned(), "Impl".to_owned()]));
        assert_eq!(names(19), None, "a top-level call");
        assert_eq!(ParsedSource::parse(Path::new("a.py"), "x = 1\n").expect("parsed").typescript_declaration_names_around(0), None);
    }

    #[test]
    fn member_assignments_are_told_from_other_uses() {
        let source = "inst.nonoptional = (params) => nonoptional(inst, params);\nconst o = { nonoptional: function () {}, other() {} };\ninst.nonoptional(1);\nx = inst.nonoptional;\ninst.count = 1;\n";
        let parsed = ParsedSource::parse(Path::new("schemas.ts"), source).expect("parsed");
        assert_eq!(parsed.member_assignment_at(0, 0, "nonoptional"), Some("arrow function"));
        assert_eq!(parsed.member_assignment_at(1, 0, "nonoptional"), Some("function expression"));
        assert_eq!(parsed.member_assignment_at(1, 0, "other"), Some("method"));
        assert_eq!(parsed.member_assignment_at(2, 0, "nonoptional"), None, "a call");
        assert_eq!(parsed.member_assignment_at(3, 0, "nonoptional"), None, "read, not assigned");
        assert_eq!(parsed.member_assignment_at(4, 0, "count"), Some("value"));
    }

    #[test]
    fn string_property_keys_are_told_from_other_strings() {
        let source = "type P<T> = T[\"_def\"][\"unknownKeys\"];\nconst v = obj[\"unknownKeys\"];\nconst o = { \"unknownKeys\": 1 };\nthrow new Error(\"unknownKeys is wrong\");\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        assert_eq!(parsed.string_property_key_role(0, 23, 11), Some("indexed-access type key"));
        assert_eq!(parsed.string_property_key_role(1, 15, 11), Some("element-access key"));
        assert_eq!(parsed.string_property_key_role(2, 13, 11), Some("object key"));
        assert_eq!(parsed.string_property_key_role(3, 17, 11), None, "an error message");
        let call = "emitChange('AsyncQueuer', this);\nlog('AsyncQueuer changed');\n";
        let parsed_call = ParsedSource::parse(Path::new("a.ts"), call).expect("parsed");
        assert_eq!(parsed_call.string_property_key_role(0, 12, 11), Some(CALL_ARGUMENT_ROLE));
        assert_eq!(parsed_call.string_property_key_role(1, 5, 11), None, "a message that holds the word");
        let dashed = "emitChange('d-AsyncQueuer', 1);\nconst v = obj['d-AsyncQueuer'];\nconst w = obj[`d`];\n";
        let parsed_dashed = ParsedSource::parse(Path::new("a.ts"), dashed).expect("parsed");
        assert_eq!(parsed_dashed.string_property_key_role(0, 12, 1), None, "`d` is only the start of the key");
        assert_eq!(parsed_dashed.string_property_key_role(1, 15, 1), None, "`d` is only the start of the key");
        assert_eq!(parsed_dashed.string_property_key_role(1, 15, 13), Some("element-access key"));
        assert_eq!(parsed_dashed.string_property_key_role(0, 12, 13), Some(CALL_ARGUMENT_ROLE));
        assert_eq!(parsed_dashed.string_property_key_role(2, 15, 1), Some("element-access key"), "a template string");
        let pick = "type H = Pick<QueryOptions<any>, 'queryKeyHashFn' | 'other'>;\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), pick).expect("parsed");
        assert_eq!(parsed.string_property_key_role(0, 34, 14), Some("key in a type argument"));
        assert_eq!(parsed.string_property_key_role(0, 53, 5), Some("key in a type argument"), "in a union");
        assert_eq!(parsed.string_key_base_type_name(0, 34).as_deref(), Some("QueryOptions"), "generic arguments dropped");
        assert_eq!(parsed.string_key_base_type_name(0, 53).as_deref(), Some("QueryOptions"), "in a union");
        let more = "type A = Omit<ns.Options, 'k'>;\ntype B = Options['k'];\ntype C = Pick<{ k: 1 }, 'k'>;\nconst d = obj['k'];\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), more).expect("parsed");
        assert_eq!(parsed.string_key_base_type_name(0, 27).as_deref(), Some("Options"), "a namespace-qualified type");
        assert_eq!(parsed.string_key_base_type_name(1, 18).as_deref(), Some("Options"), "an indexed-access type");
        assert_eq!(parsed.string_key_base_type_name(2, 25), None, "an object type has no name");
        assert_eq!(parsed.string_key_base_type_name(3, 15), None, "an element access is no type");
    }

    #[test]
    fn the_named_functions_around_a_call_are_read_outermost_first() {
        let source = "export const ColumnFiltering: TableFeature = {\n  createColumn: (column, table) => {\n    column.setFilterValue = value => {\n      table.setColumnFilters(old => {\n        return functionalUpdate(value, old)\n      })\n    }\n  },\n  nested: { deep() { return functionalUpdate(1, 2) } },\n}\nclass Box {\n  open() { items.map(x => functionalUpdate(x, 1)) }\n}\nfunction plain() { return functionalUpdate(1, 2) }\nconst handler = function () { functionalUpdate(1, 2) }\nfunctionalUpdate(1, 2)\nitems.forEach(() => functionalUpdate(1, 2))\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        let at = |line0: u32| {
            let byte = parsed.line_text(line0).and_then(|line| line.find("functionalUpdate")).expect("a call on the line");
            parsed.typescript_enclosing_function_names(line0, byte)
        };
        assert_eq!(at(4), ["ColumnFiltering.createColumn", "column.setFilterValue"], "the callback passed to a call is anonymous");
        assert_eq!(at(8), ["ColumnFiltering.nested.deep"]);
        assert_eq!(at(11), ["Box.open"]);
        assert_eq!(at(13), ["plain"]);
        assert_eq!(at(14), ["handler"]);
        assert!(at(15).is_empty(), "top-level code");
        assert!(at(16).is_empty(), "a top-level callback has no name");
    }

    #[test]
    fn the_types_a_declaration_is_built_on_are_read_with_their_positions() {
        let source = "export interface Resolved<T> extends Core<T>, ns.Feature<T> {}
class Impl extends Base<number> implements Core<number>, Other {}
type Both<T> = Core<T> & (Feature<T> & Extra)
type Keys = PartialKeys<Resolved<any>, 'onChange'>
const value = 1
";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        let names = |line0: u32, byte_column: usize| {
            parsed.typescript_heritage_at(line0, byte_column, "onChange").map(|heritage| {
                assert!(!heritage.unfollowed, "plain names only: {heritage:?}");
                (
                    heritage.own_name,
                    heritage.built_on.into_iter().map(|at| format!("{}@{}:{}", at.name, at.line0, at.byte_column)).collect::<Vec<_>>(),
                )
            })
        };
        assert_eq!(names(0, 17), Some(("Resolved".to_owned(), vec!["Core@0:37".to_owned(), "Feature@0:49".to_owned()])));
        assert_eq!(names(1, 6), Some(("Impl".to_owned(), vec!["Base@1:19".to_owned(), "Core@1:43".to_owned(), "Other@1:57".to_owned()])));
        assert_eq!(
            names(2, 5),
            Some(("Both".to_owned(), vec!["Core@2:15".to_owned(), "Feature@2:26".to_owned(), "Extra@2:39".to_owned()]))
        );
        assert_eq!(names(3, 5), Some(("Keys".to_owned(), vec!["PartialKeys@3:12".to_owned()])), "a generic alias names its type");
        assert_eq!(names(0, 37), None, "a heritage name is no declaration's name");
        assert_eq!(names(4, 6), None, "a variable is no type declaration");
        let base = parsed.string_key_base_type(3, 40).expect("the key's type");
        assert_eq!((base.name.as_str(), base.line0, base.byte_column), ("Resolved", 3, 24));
    }

    /// Review49 H2: the utilities that keep a member are read through to the type they are
    /// built on; those that drop it name nothing; what is not followed is said.
    #[test]
    fn utility_types_in_heritage_are_read_through_to_their_type_argument() {
        let source = "interface A extends Omit<Core, 'data'> {}
type B = Partial<Core>
type C = Readonly<Required<ns.Core<T>>> & { extra: 1 }
type D = Pick<Core, 'onChange' | 'data'>
type E = Pick<Core, 'data'>
type F = Omit<Core, 'onChange'>
type G = Omit<Core, Keys>
type H = { [K in keyof Core]: Core[K] }
type I = Core extends X ? Core : never
";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        let read = |line0: u32, byte_column: usize| {
            let heritage = parsed.typescript_heritage_at(line0, byte_column, "onChange").expect("a declaration");
            (
                heritage.built_on.into_iter().map(|at| format!("{}@{}:{}", at.name, at.line0, at.byte_column)).collect::<Vec<_>>(),
                heritage.unfollowed,
            )
        };
        assert_eq!(read(0, 10), (vec!["Core@0:25".to_owned()], false), "`Omit` of another key keeps the member");
        assert_eq!(read(1, 5), (vec!["Core@1:17".to_owned()], false));
        assert_eq!(read(2, 5), (vec!["Core@2:30".to_owned()], false), "nested utilities and a written-out object");
        assert_eq!(read(3, 5), (vec!["Core@3:14".to_owned()], false), "`Pick` of the member");
        assert_eq!(read(4, 5), (Vec::<String>::new(), false), "`Pick` without the member drops it");
        assert_eq!(read(5, 5), (Vec::<String>::new(), false), "`Omit` of the member drops it");
        assert_eq!(read(6, 5), (Vec::<String>::new(), true), "keys that are no literals");
        assert_eq!(read(7, 5), (Vec::<String>::new(), true), "a mapped type");
        assert_eq!(read(8, 5), (Vec::<String>::new(), true), "a conditional type");
    }

    #[test]
    fn keys_of_values_in_code_are_told_by_their_syntax() {
        let source = "const a = 'value' in received ? received.value : 0;\nconst b = Object.hasOwn(r, 'value') || r?.hasOwnProperty('value');\nconst c = Reflect.get(r, 'value') ?? Object.prototype.hasOwnProperty.call(r, 'value');\nconst d = Reflect.get('value', r);\nfor (const k in 'value') {}\nconst e = 'value' === kind;\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        assert_eq!(parsed.string_property_key_role(0, 11, 5), Some(IN_KEY_ROLE));
        assert_eq!(parsed.string_property_key_role(1, 28, 5), Some("key argument of `Object.hasOwn`"));
        assert_eq!(parsed.string_property_key_role(1, 58, 5), Some("key argument of `hasOwnProperty`"), "`?.` read as `.`");
        assert_eq!(parsed.string_property_key_role(2, 26, 5), Some("key argument of `Reflect.get`"));
        assert_eq!(parsed.string_property_key_role(2, 78, 5), Some("key argument of `hasOwnProperty`"));
        assert_eq!(parsed.string_property_key_role(3, 23, 5), Some(CALL_ARGUMENT_ROLE), "the object's place, not the key's");
        assert_eq!(parsed.string_property_key_role(4, 17, 5), None, "the right operand of `in`");
        assert_eq!(parsed.string_property_key_role(5, 11, 5), None, "a comparison");
        assert_eq!(parsed.string_key_expression_text(0, 11).as_deref(), Some("'value' in received"));
        assert_eq!(parsed.string_key_expression_text(1, 58).as_deref(), Some("r?.hasOwnProperty('value')"));
        assert_eq!(parsed.string_key_expression_text(5, 11), None);
        for role in [IN_KEY_ROLE, ELEMENT_ACCESS_ROLE, CALL_ARGUMENT_ROLE, "key argument of `Reflect.has`"] {
            assert!(is_key_of_a_value_role(role), "{role}");
        }
        assert!(!is_key_of_a_value_role("key in a type argument") && !is_key_of_a_value_role(OMIT_KEY_ROLE));
    }

    #[test]
    fn a_string_arguments_callee_and_the_parameter_it_fills_are_found() {
        let calls = "test('map', () => {});\nthis.bus.emit(\n  'AsyncQueuer',\n  1,\n);\nnew Ok('Ok');\nmake()('k');\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), calls).expect("parsed");
        let callee = |line0, byte| parsed.string_argument_callee(line0, byte).map(|c| (c.name, c.line0, c.byte_column, c.argument_index));
        assert_eq!(callee(0, 6), Some(("test".to_owned(), 0, 0, 0)));
        assert_eq!(callee(2, 3), Some(("emit".to_owned(), 1, 9, 0)), "a member's name, lines above");
        assert_eq!(callee(5, 8), Some(("Ok".to_owned(), 5, 4, 0)));
        assert_eq!(callee(6, 8), None, "a callee that is no name");
        let declarations = "export function pluck<T, K extends keyof T>(obj: T, key: K): T[K] { return obj[key]; }\ndeclare function test(name: string, fn?: () => void): void;\nexport class Box<T> {\n  constructor(private val: T) {}\n  get(this: Box<T>, key: keyof T, ...rest: string[]) { return key; }\n}\nexport const emit = <E extends Extract<keyof Events, string>>(event: E) => event;\ndeclare var it: jest.It;\n";
        let parsed = ParsedSource::parse(Path::new("a.d.ts"), declarations).expect("parsed");
        let parameter = |line0, byte, index| parsed.typescript_parameter_at(line0, byte, index).map(|p| (p.text, p.is_keyof));
        assert_eq!(parameter(0, 16, 1), Some(("key: K".to_owned(), true)), "a type parameter constrained by `keyof`");
        assert_eq!(parameter(0, 16, 0), Some(("obj: T".to_owned(), false)));
        assert_eq!(parameter(1, 17, 0), Some(("name: string".to_owned(), false)));
        assert_eq!(parameter(2, 13, 0), Some(("private val: T".to_owned(), false)), "a class: its constructor");
        assert_eq!(parameter(4, 2, 0), Some(("key: keyof T".to_owned(), true)), "a `this` parameter takes no argument");
        assert_eq!(parameter(4, 2, 3), Some(("...rest: string[]".to_owned(), false)), "a rest parameter takes those past it");
        assert_eq!(parameter(6, 13, 0), Some(("event: E".to_owned(), true)), "an arrow function bound to a name");
        assert_eq!(parameter(7, 12, 0), None, "a variable of an interface type");
    }

    #[test]
    fn the_member_a_changed_typescript_line_declares_is_found() {
        let source = "export class QueryCache {\n  build(\n    client: Client,\n  ): Query {\n    return make(client);\n  }\n  #private = 1;\n}\ninterface Options {\n  hash?: (key: string) => string;\n}\nfunction f() {\n  const o = { a: 1 };\n}\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        assert_eq!(parsed.typescript_member_declared_at(2), Some(("build".to_owned(), 1, 2)), "a parameter line");
        assert_eq!(parsed.typescript_member_declared_at(4), Some(("build".to_owned(), 1, 2)), "a body line");
        assert_eq!(parsed.typescript_member_declared_at(6), Some(("#private".to_owned(), 6, 2)));
        assert_eq!(parsed.typescript_member_declared_at(9), Some(("hash".to_owned(), 9, 2)));
        assert_eq!(parsed.typescript_member_declared_at(0), None, "the class line");
        assert_eq!(parsed.typescript_member_declared_at(12), None, "a local object");
    }

    #[test]
    fn declarations_extending_a_type_are_found_by_their_clauses() {
        let source = "export interface RuntimeConfig<T> {\n  errorFormatter: T;\n}\nexport interface RootConfig<T>\n  extends RuntimeConfig<T> {\n  $types: T;\n}\nclass Impl implements RuntimeConfig<number> {\n  errorFormatter = 1;\n}\ninterface Unrelated extends RuntimeConfigs {}\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        assert_eq!(parsed.typescript_declarations_extending("RuntimeConfig"), vec!["RootConfig".to_owned(), "Impl".to_owned()]);
    }

    #[test]
    fn a_type_parameter_in_scope_is_found_from_a_key_indexed_off_it() {
        let source = "export type Ctx<TParams extends Params> = TParams['_ctx_out'];\ntype Other = Params['_ctx_out'];\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        let at = source.find("'_ctx_out'").unwrap() + 1;
        assert!(parsed.typescript_type_parameter_in_scope(0, at, "TParams"));
        assert!(!parsed.typescript_type_parameter_in_scope(0, at, "Params"));
        assert!(!parsed.typescript_type_parameter_in_scope(1, 22, "TParams"), "another declaration");
    }

    #[test]
    fn a_constructor_parameter_property_is_a_member_of_its_class() {
        let source = "export class MaxPart extends Error {\n  constructor(public field: string, plain: number, readonly limit = 1) {\n    super(field + plain);\n  }\n}\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        let class = parsed.typescript_class_of_member(1, "field").expect("a parameter property is a member");
        assert_eq!(class.name, "MaxPart");
        let members: Vec<&str> = class.members.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(members, vec!["field", "limit", "constructor"], "{members:?}");
        assert!(parsed.typescript_class_of_member(1, "plain").is_none(), "a plain parameter is no member");
    }

    #[test]
    fn an_optional_parameter_is_told_from_an_optional_property() {
        let source = "export function should(filterFn?: string, value?: any): boolean {\n  return !value\n}\ninterface Filter {\n  value?: unknown\n}\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        assert!(parsed.typescript_names_optional_parameter(0, source.find("value?").unwrap()));
        assert!(!parsed.typescript_names_optional_parameter(4, 2), "a property signature");
    }

    #[test]
    fn typescript_lines_inside_bodies_whose_type_does_not_depend_on_them() {
        let source = "export class Store {\n  destroy(): void {\n    this.clear()\n    const f = () => {\n      return 1\n    }\n  }\n  clear() {\n    return 1\n  }\n  constructor() {\n    this.x = 1\n  }\n  set value(v: number) {\n    this.x = v\n  }\n  x = 0\n}\nexport const make = () => {\n  return 2\n}\nexport function typed(): number {\n  return 3\n}\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        let inside: Vec<u32> = (0..24).filter(|&line0| parsed.typescript_line_inside_typed_body(line0)).collect();
        // destroy's body (a local arrow function in it too), the constructor's, the setter's,
        // typed()'s; not clear() (inferred return type), not make (an untyped arrow), not the
        // signature or closing lines, not the field.
        assert_eq!(inside, vec![2, 3, 4, 5, 11, 14, 22], "{source}");
    }

    #[test]
    fn rust_uses_of_a_local_that_shadows_an_item_resolve_to_the_local() {
        let source = "use crate::encoded_len;\nfn t(v: &mut Vec<u8>) {\n    let n = encoded_len(3);\n    let (a, _, encoded_len) = (1, 2, 3);\n    v.truncate(encoded_len + a);\n    [1].iter().for_each(|encoded_len| {\n        drop(encoded_len);\n    });\n}\nfn u() -> usize {\n    encoded_len(1)\n}\n";
        let parsed = ParsedSource::parse(Path::new("a.rs"), source).expect("parsed");
        let at = |line0: u32, nth: usize| parsed.line_text(line0).unwrap().match_indices("encoded_len").nth(nth).unwrap().0;
        assert_eq!(parsed.rust_local_binding_of(2, at(2, 0), "encoded_len"), None, "the function, before the let");
        assert_eq!(parsed.rust_local_binding_of(4, at(4, 0), "encoded_len"), Some((3, at(3, 0))), "the tuple let");
        assert_eq!(parsed.rust_local_binding_of(3, at(3, 0), "encoded_len"), Some((3, at(3, 0))), "the binding itself");
        assert_eq!(parsed.rust_local_binding_of(6, at(6, 0), "encoded_len"), Some((5, at(5, 0))), "the closure parameter");
        assert_eq!(parsed.rust_local_binding_of(10, at(10, 0), "encoded_len"), None, "another function");
        let fields = "fn f(s: &S) -> usize {\n    let len = 1;\n    s.len + Self::len() + len\n}\n";
        let parsed = ParsedSource::parse(Path::new("b.rs"), fields).expect("parsed");
        let line = parsed.line_text(2).unwrap();
        let positions: Vec<usize> = line.match_indices("len").map(|(at, _)| at).collect();
        assert_eq!(parsed.rust_local_binding_of(2, positions[0], "len"), None, "a field");
        assert_eq!(parsed.rust_local_binding_of(2, positions[1], "len"), None, "a path segment");
        assert_eq!(parsed.rust_local_binding_of(2, positions[2], "len"), Some((1, 8)), "the local");
        // The same inside a macro call's arguments (trial62 F1: bytes' `debug_assert_eq!(self.len, …)`).
        let in_macro = "fn f(s: &S) -> usize {\n    let len = 1;\n    debug_assert_eq!(s.len, Self::len() + len);\n    0\n}\n";
        let parsed = ParsedSource::parse(Path::new("c.rs"), in_macro).expect("parsed");
        let line = parsed.line_text(2).unwrap();
        let positions: Vec<usize> = line.match_indices("len").map(|(at, _)| at).collect();
        assert_eq!(parsed.rust_local_binding_of(2, positions[0], "len"), None, "a field in a macro call");
        assert_eq!(parsed.rust_local_binding_of(2, positions[1], "len"), None, "a path segment in a macro call");
        assert_eq!(parsed.rust_local_binding_of(2, positions[2], "len"), Some((1, 8)), "the local in a macro call");
    }

    #[test]
    fn rust_trait_methods_and_the_methods_an_impl_defines_are_found() {
        let source = "pub trait Buf {\n    fn chunk(&self) -> &[u8];\n    fn remaining(&self) -> usize { 0 }\n}\nfn helper() {\n    struct Special;\n    impl Buf for Special {\n        fn chunk(&self) -> &[u8] {\n            &[]\n        }\n    }\n}\nfn chunk() {}\n";
        let parsed = ParsedSource::parse(Path::new("a.rs"), source).expect("parsed");
        assert_eq!(parsed.rust_trait_of_method(1, "chunk").as_deref(), Some("Buf"));
        assert_eq!(parsed.rust_trait_of_method(2, "remaining").as_deref(), Some("Buf"), "a default method");
        assert_eq!(parsed.rust_trait_of_method(7, "chunk"), None, "an impl's method");
        assert_eq!(parsed.rust_trait_of_method(12, "chunk"), None, "a free function");
        assert_eq!(parsed.rust_impl_method_line(6, "chunk"), Some(7));
        let ops =
            "impl<T> std::ops::Deref for Lazy<T> {\n    fn deref(&self) -> &T { &self.0 }\n}\nimpl Lazy<u8> {\n    fn force(&self) {}\n}\n";
        let parsed = ParsedSource::parse(Path::new("b.rs"), ops).expect("parsed");
        assert_eq!(parsed.rust_impl_trait_of_method(1, "deref"), Some(("Deref".to_owned(), "Lazy<T>".to_owned())));
        assert_eq!(parsed.rust_impl_trait_of_method(4, "force"), None, "an inherent method");
        assert_eq!(parsed.rust_impl_method_line(6, "remaining"), None, "the trait's default is used");
    }

    #[test]
    fn only_a_cast_to_the_type_itself_makes_a_value_of_it() {
        let source = "export const one = [] as Box<number>[];\nexport const multi = [] as Box<\n  number\n>[];\nexport const single = {} as Box<number>;\nconst plain = x as Box;\nconst twice = x as unknown as Box;\nconst arr = x as Array<Box>;\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        let at = |line0: u32| parsed.line_text(line0).unwrap().find("Box").unwrap();
        assert!(!parsed.is_whole_cast_target(0, at(0), "Box"), "an array of them");
        assert!(!parsed.is_whole_cast_target(1, at(1), "Box"), "an array of them, over three lines");
        assert!(parsed.is_whole_cast_target(4, at(4), "Box"));
        assert!(parsed.is_whole_cast_target(5, at(5), "Box"));
        assert!(parsed.is_whole_cast_target(6, at(6), "Box"));
        assert!(!parsed.is_whole_cast_target(7, at(7), "Box"), "Array<Box>");
    }

    #[test]
    fn the_declaration_that_owns_a_typescript_member_is_named() {
        let source = "export interface QueryOptions {\n  queryKeyHashFn?: () => string;\n}\nclass Cache {\n  build(): void {}\n}\nconst o = { build: 1 };\ntype T = { size: number };\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        assert_eq!(parsed.typescript_member_owner_name(1, "queryKeyHashFn").as_deref(), Some("QueryOptions"));
        assert_eq!(parsed.typescript_member_owner_name(4, "build").as_deref(), Some("Cache"));
        assert_eq!(parsed.typescript_member_owner_name(6, "build"), None, "an object literal's key");
        assert_eq!(parsed.typescript_member_owner_name(7, "size").as_deref(), Some("T"));
    }

    #[test]
    fn values_cast_and_values_declared_with_a_type_are_told_apart() {
        let source = "const router: BuiltRouter = {\n  createCaller: factory()({}),\n};\nexport const coerce = {\n  string: ((arg) => make(arg)) as (typeof ZodString)[\"create\"],\n};\nconst handler = { parse() {} } satisfies Handler;\nregister({ parse() {} });\nclass C { field: Handler = { parse() {} }; }\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        assert_eq!(parsed.value_typing_at(1, 2), ValueTyping::Declared, "a property of an annotated variable's object");
        assert_eq!(parsed.value_typing_at(0, 28), ValueTyping::Declared, "the annotated object itself");
        assert_eq!(parsed.value_typing_at(4, 11), ValueTyping::Cast, "zod's coerce arrow function");
        assert_eq!(parsed.value_typing_at(6, 18), ValueTyping::Declared, "satisfies");
        assert_eq!(parsed.value_typing_at(7, 11), ValueTyping::Unknown, "a call's argument");
        assert_eq!(parsed.value_typing_at(8, 28), ValueTyping::Declared, "an annotated class field");
        let boxed = "const ref: { current?: InternalAtom<number> } = {};\nconst atom: InternalAtom<number> = { get() { return 1; } };\n";
        let parsed_boxed = ParsedSource::parse(Path::new("a.ts"), boxed).expect("parsed");
        assert_eq!(parsed_boxed.value_typing_at(0, 48), ValueTyping::Container, "an object type with a property of it");
        assert_eq!(parsed_boxed.value_typing_at(1, 35), ValueTyping::Declared);
        let containers = "const rows: Row<TData>[] = [];\nconst byId: Record<string, Row<TData>> = {};\nconst cast = [] as Row<TData>[];\nconst one: Row[] = [{ id: 1 }];\nconst m: Record<string, Row> = { a: { id: 1 } };\n";
        let parsed = ParsedSource::parse(Path::new("rows.ts"), containers).expect("parsed");
        assert_eq!(parsed.value_typing_at(0, 27), ValueTyping::Container, "an array of rows is no row");
        assert_eq!(parsed.implementation_expression_at(0, 27), Some("array literal"));
        assert_eq!(parsed.value_typing_at(1, 42), ValueTyping::Container, "a record of rows");
        assert_eq!(parsed.value_typing_at(2, 13), ValueTyping::Container, "cast to an array");
        assert_eq!(parsed.value_typing_at(3, 20), ValueTyping::Declared, "an element of a typed array is a row");
        assert_eq!(parsed.value_typing_at(4, 38), ValueTyping::Declared, "a value of a typed record is a row");
    }

    #[test]
    fn members_of_exported_declarations() {
        let source = "export interface SortingColumn {\n  getSortingFn?: () => number;\n}\nexport const filterFns = {\n  includesString,\n  equals: (a: number) => a,\n};\nexport function make() {\n  const local = { inner: 1 };\n  return local;\n}\ninterface Hidden {\n  secret: number;\n}\nexport class Runner {\n  run(): void {}\n}\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), source).expect("parsed");
        assert_eq!(
            parsed
                .member_of_top_level_declaration_from(1, 0, "getSortingFn")
                .filter(|member| member.exported)
                .map(|member| (member.owner, member.kind)),
            Some(("SortingColumn".to_owned(), "interface"))
        );
        assert_eq!(
            parsed
                .member_of_top_level_declaration_from(4, 0, "includesString")
                .filter(|member| member.exported)
                .map(|member| (member.owner, member.kind)),
            Some(("filterFns".to_owned(), "object"))
        );
        assert_eq!(
            parsed
                .member_of_top_level_declaration_from(5, 0, "equals")
                .filter(|member| member.exported)
                .map(|member| (member.owner, member.kind)),
            Some(("filterFns".to_owned(), "object"))
        );
        assert_eq!(
            parsed
                .member_of_top_level_declaration_from(8, 0, "inner")
                .filter(|member| member.exported)
                .map(|member| (member.owner, member.kind)),
            None,
            "a local object in a function body"
        );
        assert_eq!(
            parsed
                .member_of_top_level_declaration_from(12, 0, "secret")
                .filter(|member| member.exported)
                .map(|member| (member.owner, member.kind)),
            None,
            "an interface not exported"
        );
        let hidden = parsed.member_of_top_level_declaration_from(12, 0, "secret").expect("a member of a top-level interface");
        assert_eq!((hidden.owner.as_str(), hidden.kind, hidden.path.as_str(), hidden.exported), ("Hidden", "interface", "secret", false));
        assert!(parsed.member_of_top_level_declaration_from(15, 0, "run").expect("Runner.run").exported);
        // Access: `private`, `#name` and `protected` members, a property of a private member's type.
        let access = "export class V {\n  private _t = 0\n  #h = 1\n  protected p(): void {}\n  q(): void {}\n  private r: { inner: number } = { inner: 1 }\n  constructor(private readonly k: number) {}\n}\n";
        let parsed_access = ParsedSource::parse(Path::new("a.ts"), access).expect("parsed");
        let access_of =
            |line0: u32, name: &str| parsed_access.member_of_top_level_declaration_from(line0, 0, name).map(|member| member.access);
        assert_eq!(access_of(1, "_t"), Some(MemberAccess::Private));
        assert_eq!(access_of(2, "#h"), Some(MemberAccess::Private));
        assert_eq!(access_of(3, "p"), Some(MemberAccess::Protected));
        assert_eq!(access_of(4, "q"), Some(MemberAccess::Public));
        assert_eq!(access_of(5, "inner"), Some(MemberAccess::Private));
        assert_eq!(access_of(6, "k"), Some(MemberAccess::Private));
        assert_eq!(parsed.member_of_top_level_declaration_from(8, 0, "inner"), None, "a local object stays out");
        assert_eq!(
            parsed
                .member_of_top_level_declaration_from(15, 0, "run")
                .filter(|member| member.exported)
                .map(|member| (member.owner, member.kind)),
            Some(("Runner".to_owned(), "class"))
        );
        // The path below the declaration: a property of a member's type, of a parameter's type.
        let nested = "export class Virtualizer {\n  range: { startIndex: number; endIndex: number } | null = null\n  scrollTo(options: { behavior: string }) {}\n  plain = 1\n}\n";
        let parsed = ParsedSource::parse(Path::new("a.ts"), nested).expect("parsed");
        let path = |line0: u32, name: &str| {
            parsed
                .member_of_top_level_declaration_from(line0, 0, name)
                .filter(|member| member.exported)
                .map(|member| format!("{}.{}", member.owner, member.path))
        };
        assert_eq!(path(1, "startIndex").as_deref(), Some("Virtualizer.range.startIndex"));
        assert_eq!(path(1, "range").as_deref(), Some("Virtualizer.range"));
        assert_eq!(path(2, "behavior").as_deref(), Some("Virtualizer.scrollTo(…).behavior"));
        assert_eq!(path(3, "plain").as_deref(), Some("Virtualizer.plain"));
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
    fn implementation_locations_that_are_expressions_are_told_from_declarations() {
        let ts = "export abstract class ZodType {}\nexport class ZodString extends ZodType {}\nexport const coerce = {\n  string: ((arg) => ZodString.create(arg)) as (typeof ZodString)[\"create\"],\n  number: function (arg) { return arg },\n};\n";
        let parsed = ParsedSource::parse(Path::new("t.ts"), ts).expect("parsed");
        assert_eq!(parsed.implementation_expression_at(0, 22), None);
        assert_eq!(parsed.implementation_expression_at(1, 13), None);
        assert_eq!(parsed.implementation_expression_at(3, 11), Some("arrow function"));
        // tsserver's location starts at the property's key.
        assert_eq!(parsed.implementation_expression_at(3, 2), Some("arrow function"));
        assert_eq!(parsed.implementation_expression_at(4, 10), Some("function expression"));
        assert_eq!(ParsedSource::parse(Path::new("t.py"), "class A: pass\n").expect("parsed").implementation_expression_at(0, 6), None);
        // A `this` in a static method (trial152 M1), in a call's arguments and in a declaration.
        let statics = "class S {\n  static run() {\n    advance(1 / this.factor);\n    let frame = 2 * this.factor;\n  }\n}\n";
        let parsed = ParsedSource::parse(Path::new("s.ts"), statics).expect("parsed");
        assert_eq!(parsed.implementation_expression_at(2, 16), Some("`this` keyword"));
        assert_eq!(parsed.implementation_expression_at(3, 20), Some("`this` keyword"));
        assert_eq!(parsed.implementation_expression_at(2, 4), Some("call"), "the call itself");
    }

    #[test]
    fn references_are_told_calls_through_expressions_arguments_and_imports() {
        let ts = "import { f } from './f'\nexport { f as g } from './f'\nconst e = ((o && o.s) || f)(err)\nitems.map(f)\nf(1)\nconst h = f\ntype T = typeof f\nconst k = (c ? f : g)(2)\nobj.f(3)\nawait (f as any)(4)\n";
        let py = "from m import f\nx = (a or f)(1)\nrun(f)\nm.f(2)\ndef f():\n    pass\n";
        let go = "package p\n\nfunc g() {\n\tsort.Slice(xs, less)\n\tless(1, 2)\n\th := less\n}\n";
        let rust = "use crate::m::f;\nfn g() {\n    let x = (if c { f } else { h })(1);\n    xs.iter().map(f);\n    assert!(f(2));\n    m::f(3);\n    assert!(f == g);\n}\n";
        use ReferenceRole::*;
        let cases: &[(&str, &str, u32, &str, Option<ReferenceRole>)] = &[
            ("a.ts", ts, 0, "f", Some(ImportOrExport)),
            ("a.ts", ts, 1, "f", Some(ImportOrExport)),
            ("a.ts", ts, 2, "f", Some(CalledThroughExpression)),
            ("a.ts", ts, 3, "f", Some(Argument)),
            ("a.ts", ts, 4, "f", Some(DirectCall)),
            ("a.ts", ts, 5, "f", Some(Value)),
            ("a.ts", ts, 6, "f", Some(Type)),
            ("a.ts", ts, 7, "f", Some(CalledThroughExpression)),
            ("a.ts", ts, 8, "f", Some(DirectCall)),
            ("a.ts", ts, 9, "f", Some(CalledThroughExpression)),
            ("a.py", py, 0, "f", Some(ImportOrExport)),
            ("a.py", py, 1, "f", Some(CalledThroughExpression)),
            ("a.py", py, 2, "f", Some(Argument)),
            ("a.py", py, 3, "f", Some(DirectCall)),
            ("a.py", py, 4, "f", Some(Declaration)),
            ("a.go", go, 3, "less", Some(Argument)),
            ("a.go", go, 4, "less", Some(DirectCall)),
            ("a.go", go, 5, "less", Some(Value)),
            ("a.rs", rust, 0, "f", Some(ImportOrExport)),
            ("a.rs", rust, 3, "f", Some(Argument)),
            ("a.rs", rust, 4, "f", Some(DirectCall)),
            ("a.rs", rust, 5, "f", Some(DirectCall)),
            ("a.rs", rust, 6, "f", None),
        ];
        for (file, source, line0, name, expected) in cases {
            let parsed = ParsedSource::parse(Path::new(file), source).expect("parsed");
            assert_eq!(parsed.reference_role(*line0, 0, name), *expected, "{file} line {}", line0 + 1);
        }
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

    /// `(line0, text, callee name)` of every call `call_sites_in_function` finds.
    fn calls(file: &str, source: &str, line0: u32, name: &str) -> Vec<(u32, String, String)> {
        let parsed = ParsedSource::parse(Path::new(file), source).expect("parsed");
        let sites = parsed.call_sites_in_function(line0, 0, name).expect("a function named there");
        sites.into_iter().map(|site| (site.line0, site.text, source[site.callee_bytes].to_owned())).collect()
    }

    fn owned(expected: &[(u32, &str, &str)]) -> Vec<(u32, String, String)> {
        expected.iter().map(|(line0, text, callee)| (*line0, (*text).to_owned(), (*callee).to_owned())).collect()
    }

    #[test]
    fn python_call_sites_include_nested_functions_lambdas_and_classes_like_pyright() {
        // Markdown 3.11.3 core.py: `self.serializer(root)` calls through a Callable attribute.
        let source = "class Markdown:\n    def convert(self, source, cb):\n        root = self.parser.parseDocument(\n            source\n        ).getroot()\n        output = self.serializer(root)\n        def inner(y):\n            return cb(y)\n        f = lambda z: len(z)\n        class Local:\n            def m(self):\n                return helper(1)\n        return f\"{str(output)}\"\n\n    def other(self):\n        return outside()\n";
        assert_eq!(
            calls("core.py", source, 1, "convert"),
            owned(&[
                // A chained call whose name is on a later line stands at its name.
                (4, "getroot()", "getroot"),
                (2, "self.parser.parseDocument( source )", "parseDocument"),
                (5, "self.serializer(root)", "serializer"),
                (7, "cb(y)", "cb"),
                (8, "len(z)", "len"),
                (11, "helper(1)", "helper"),
                (12, "str(output)", "str"),
            ]),
            "the next method's call is not in the body"
        );
        let parsed = ParsedSource::parse(Path::new("core.py"), source).expect("parsed");
        assert_eq!(parsed.call_sites_in_function(5, 0, "serializer"), None, "a call is not a function");
        assert_eq!(parsed.call_sites_in_function(0, 0, "Markdown"), None, "a class is not a function");
    }

    #[test]
    fn typescript_call_sites_skip_the_nested_items_tsserver_lists_on_their_own() {
        let source = "export class Box {\n  run(cb: (n: number) => number, anyv: any): number {\n    const b = this.fn(1);\n    function inner(y: number) { return helper(y); }\n    const f = (z: number) => helper(z);\n    let g = (z: number) => helper(z);\n    class Local { m() { return helper(1); } }\n    const e = new Box(helper).fn(anyv.go(b));\n    import('./x');\n    return [1].map((i) => cb(i))[0] + inner(e) + f(e) + g(e);\n  }\n}\n";
        assert_eq!(
            calls("mod.ts", source, 1, "run"),
            owned(&[
                (2, "this.fn(1)", "fn"),
                (5, "helper(z)", "helper"),
                (7, "new Box(helper).fn(anyv.go(b))", "fn"),
                (7, "new Box(helper)", "Box"),
                (7, "anyv.go(b)", "go"),
                (9, "[1].map((i) => cb(i))", "map"),
                (9, "cb(i)", "cb"),
                (9, "inner(e)", "inner"),
                (9, "f(e)", "f"),
                (9, "g(e)", "g"),
            ])
        );
        let arrow = "const run = (x: number) => { return go(x); };\n";
        assert_eq!(calls("a.ts", arrow, 0, "run"), owned(&[(0, "go(x)", "go")]), "a const arrow function is a function");
        // A class property holding an arrow function (@tanstack/form-core's `resetField = (…) =>
        // { … this.getFieldInfo(field) … }`, trial25 M): its body is scanned; a nested arrow
        // property of another class is an item of its own.
        let property = "class Form {\n  resetField = (field: string) => {\n    const info = this.getFieldInfo(field);\n    class Inner { other = () => hidden(); }\n    return [1].map((i) => keep(i));\n  };\n  getFieldInfo = (f: string) => f;\n}\n";
        assert_eq!(
            calls("form.ts", property, 1, "resetField"),
            owned(&[(2, "this.getFieldInfo(field)", "getFieldInfo"), (4, "[1].map((i) => keep(i))", "map"), (4, "keep(i)", "keep")])
        );
    }

    #[test]
    fn rust_and_go_call_sites_include_closures_and_name_builtins() {
        let rust = "impl Boxed {\n    fn run(&self, cb: impl Fn(i32) -> i32) -> i32 {\n        let b = (self.fun)(1);\n        fn inner(y: i32) -> i32 { helper(y) }\n        let f = |z: i32| cb(z);\n        println!(\"{}\", helper(2));\n        String::from(\"x\").len() as i32 + f(b) + Vec::<i32>::new().len() as i32\n    }\n}\n";
        assert_eq!(
            calls("lib.rs", rust, 1, "run"),
            owned(&[
                (2, "(self.fun)(1)", ")"),
                (3, "helper(y)", "helper"),
                (4, "cb(z)", "cb"),
                (5, "helper(2)", "helper"),
                (6, "String::from(\"x\").len()", "len"),
                (6, "String::from(\"x\")", "from"),
                (6, "f(b)", "f"),
                (6, "Vec::<i32>::new().len()", "len"),
                (6, "Vec::<i32>::new()", "new"),
            ]),
            "a call in a macro's arguments is found in its token tree"
        );
        let go = "package x\n\nfunc (b *Box) Run(cb func(int) int) int {\n\tc := b.Fn(1)\n\tf := func(z int) int { return cb(z) }\n\treturn f(len(\"x\")) + int(int64(c)) + len([]byte(\"y\"))\n}\n";
        let parsed = ParsedSource::parse(Path::new("a.go"), go).expect("parsed");
        let sites = parsed.call_sites_in_function(2, 0, "Run").expect("a method");
        let summary: Vec<(&str, bool)> = sites.iter().map(|site| (site.text.as_str(), site.go_builtin)).collect();
        assert_eq!(
            summary,
            [
                ("b.Fn(1)", false),
                ("cb(z)", false),
                ("f(len(\"x\"))", false),
                ("len(\"x\")", true),
                ("int(int64(c))", true),
                ("int64(c)", true),
                ("len([]byte(\"y\"))", true),
                ("[]byte(\"y\")", true)
            ]
        );
        assert_eq!(parsed.call_sites_in_function(0, 0, "x"), None);
        assert!(
            ParsedSource::parse(Path::new("a.c"), "int f(void) { return g(); }\n")
                .expect("parsed")
                .call_sites_in_function(0, 0, "f")
                .is_none(),
            "C is not scanned"
        );
    }

    /// `(line0, text, callee name, macro)` of every call `call_sites_in_function` finds.
    fn calls_with_macros(source: &str, line0: u32, name: &str) -> Vec<(u32, String, String, Option<String>)> {
        let parsed = ParsedSource::parse(Path::new("lib.rs"), source).expect("parsed");
        let sites = parsed.call_sites_in_function(line0, 0, name).expect("a function named there");
        sites.into_iter().map(|site| (site.line0, site.text, source[site.callee_bytes].to_owned(), site.inside_macro)).collect()
    }

    fn in_macro(line0: u32, text: &str, callee: &str, label: &str) -> (u32, String, String, Option<String>) {
        (line0, text.to_owned(), callee.to_owned(), Some(label.to_owned()))
    }

    #[test]
    fn rust_calls_inside_macro_arguments_are_found_in_the_token_trees() {
        // walkdir 2.5.1 src/lib.rs `handle_entry`: every call of these lines is inside `itry!`;
        // sites come in the order of their called names.
        let source = "impl IntoIter {\n    fn handle_entry(&mut self, mut dent: DirEntry) -> Option<Result<DirEntry>> {\n        if self.opts.follow_links && dent.file_type().is_symlink() {\n            dent = itry!(self.follow(dent));\n        }\n        let is_normal_dir = !dent.file_type().is_symlink() && dent.is_dir();\n        if is_normal_dir {\n            if self.opts.same_file_system && dent.depth() > 0 {\n                if itry!(self.is_same_file_system(&dent)) {\n                    itry!(self.push(&dent));\n                }\n            }\n        }\n        let md = itry!(fs::metadata(dent.path()).map_err(|err| {\n            Error::from_path(dent.depth(), dent.path().to_path_buf(), err)\n        }));\n        None\n    }\n}\n";
        let found = calls_with_macros(source, 1, "handle_entry");
        let inside: Vec<_> = found.iter().filter(|site| site.3.is_some()).cloned().collect();
        assert_eq!(
            inside,
            vec![
                in_macro(3, "self.follow(dent)", "follow", "itry!(…)"),
                in_macro(8, "self.is_same_file_system(&dent)", "is_same_file_system", "itry!(…)"),
                in_macro(9, "self.push(&dent)", "push", "itry!(…)"),
                in_macro(13, "fs::metadata(dent.path())", "metadata", "itry!(…)"),
                in_macro(13, "dent.path()", "path", "itry!(…)"),
                in_macro(13, "fs::metadata(dent.path()).map_err(|err| { Error::from_path(…", "map_err", "itry!(…)"),
                in_macro(14, "Error::from_path(dent.depth(), dent.path().to_path_buf(), e…", "from_path", "itry!(…)"),
                in_macro(14, "dent.depth()", "depth", "itry!(…)"),
                in_macro(14, "dent.path()", "path", "itry!(…)"),
                in_macro(14, "dent.path().to_path_buf()", "to_path_buf", "itry!(…)"),
            ]
        );
        assert_eq!(found.len() - inside.len(), 6, "the calls outside macros stay: {found:?}");

        // vec![…], assert_eq!(…), a macro nested in another, a format string, a macro with no call.
        let source = "fn check(dir: &Dir) {\n    let expected = vec![dir.path().to_path_buf(), dir.join(\"foo\")];\n    assert_eq!(expected, vec![make(1)], \"{}\", \"skip(me)\");\n    println!(\"plain {} text\", 1 + 2);\n    assert!(helper(1) > 0 && !matches!(x, Some(_)));\n    quickcheck! { fn prop(x: u32) -> bool { u32::from(x) == x } }\n}\n";
        assert_eq!(
            calls_with_macros(source, 0, "check"),
            vec![
                in_macro(1, "dir.path()", "path", "vec![…]"),
                in_macro(1, "dir.path().to_path_buf()", "to_path_buf", "vec![…]"),
                in_macro(1, "dir.join(\"foo\")", "join", "vec![…]"),
                in_macro(2, "make(1)", "make", "vec![…]"),
                in_macro(4, "helper(1)", "helper", "assert!(…)"),
                in_macro(4, "Some(_)", "Some", "matches!(…)"),
                in_macro(5, "u32::from(x)", "from", "quickcheck!{…}"),
            ],
            "string literals and a declared `fn prop(…)` are no calls"
        );
    }

    #[test]
    fn a_call_of_a_call_result_is_named_by_its_last_character_not_the_inner_name() {
        // Markdown 3.11.3 core.py:238: pyright's range of `getattr` must not cover the outer call.
        let source = "def build(module, name, configs):\n    return getattr(module, name)(**configs) + handlers[0](1)\n";
        assert_eq!(
            calls("core.py", source, 0, "build"),
            owned(&[(1, "getattr(module, name)(**configs)", ")"), (1, "getattr(module, name)", "getattr"), (1, "handlers[0](1)", "]"),])
        );
    }

    #[test]
    fn long_call_texts_are_shortened() {
        let source = format!("def f():\n    g({})\n", "x, ".repeat(40));
        let found = calls("a.py", &source, 0, "f");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1.chars().count(), CALL_TEXT_CHARS);
        assert!(found[0].1.ends_with('…'), "{found:?}");
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

    #[test]
    fn python_class_members_bases_and_subclass_headers_are_read_from_the_tree() {
        let source = "import abc\n\n\nclass Base(abc.ABC, metaclass=abc.ABCMeta):\n    D = dict\n\n    @staticmethod\n    def make(x):\n        def inner():\n            pass\n        return x\n\n\nclass Sub(Base, Generic[T], mod.Other[int]):\n    kw: dict = {}\n\n\ndef make(x):\n    return Base(x)\n";
        let parsed = ParsedSource::parse(Path::new("m.py"), source).unwrap();
        let base = parsed.python_class_of_method(7, "make").unwrap();
        assert_eq!(base.name, "Base");
        assert_eq!(base.name_line0, 3);
        assert_eq!(base.methods, vec![("D".to_owned(), 4), ("make".to_owned(), 7)], "nested `inner` is no member");
        let bases: Vec<(&str, u32, usize)> = base.bases.iter().map(|b| (b.text.as_str(), b.line0, b.byte_column)).collect();
        assert_eq!(bases, vec![("abc.ABC", 3, 15)], "`metaclass=` is no base; `abc.ABC` resolves at `ABC`");
        assert_eq!(parsed.python_class_of_method(4, "D").unwrap().name, "Base", "a class attribute is a member");
        assert_eq!(parsed.python_class_of_method(8, "inner"), None, "a nested function is no member");
        assert_eq!(parsed.python_class_of_method(17, "make"), None, "a module-level function is no member");
        assert_eq!(parsed.python_class_named_at(13).unwrap().name, "Sub");
        assert_eq!(parsed.python_class_named_at(4), None);
        let sub = parsed.python_class_named_at(13).unwrap();
        let sub_bases: Vec<&str> = sub.bases.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(sub_bases, vec!["Base", "Generic[T]", "mod.Other[int]"]);
        // `Base` in `class Sub(Base, …)` is a subclass header; in `Base(x)` a call.
        assert_eq!(parsed.python_subclass_listing_base_at(13, 10).unwrap().name, "Sub");
        assert_eq!(parsed.python_subclass_listing_base_at(13, 35).unwrap().name, "Sub", "`Other` of `mod.Other[int]`");
        assert_eq!(parsed.python_subclass_listing_base_at(18, 11), None);
    }

    #[test]
    fn python_members_inside_if_blocks_are_class_members_and_type_checking_ones_are_marked() {
        let source = "import typing as t\nimport sys\n\nclass C(B):\n    if t.TYPE_CHECKING:\n        @property\n        def inv(self) -> 'C': ...\n    elif sys.version_info >= (3, 9):\n        def new(self): ...\n    else:\n        limit = 3\n    def put(self): ...\n";
        let parsed = ParsedSource::parse(Path::new("c.py"), source).expect("parsed");
        let class = parsed.python_class_of_method(6, "inv").expect("a member under `if TYPE_CHECKING:`");
        assert_eq!(class.name, "C");
        let names: Vec<&str> = class.methods.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["inv", "new", "limit", "put"]);
        assert_eq!(class.type_checking_members, [6]);
        let slotted = "class And(_Bool):\n    __slots__ = ('children',)\n";
        let parsed_slotted = ParsedSource::parse(Path::new("m.py"), slotted).expect("parsed");
        let facts = parsed_slotted.python_class_named_at(0).expect("a class");
        assert_eq!(facts.methods, [("__slots__".to_owned(), 1), ("children".to_owned(), 1)]);
        assert_eq!(facts.slot_members, [1]);
        let chained = "class V(NodeVisitor):\n    visit_expression = visit_term = visit_atom = NodeVisitor.lift_child\n";
        let parsed_chained = ParsedSource::parse(Path::new("v.py"), chained).expect("parsed");
        let class = parsed_chained.python_class_of_method(1, "visit_atom").expect("a later target of a chained assignment");
        let names: Vec<&str> = class.methods.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["visit_expression", "visit_term", "visit_atom"]);
        assert_eq!(parsed.python_class_of_method(8, "new").map(|class| class.name), Some("C".to_owned()));
        assert!(is_type_checking_condition("TYPE_CHECKING") && is_type_checking_condition("typing.TYPE_CHECKING"));
        assert!(!is_type_checking_condition("not TYPE_CHECKING") && !is_type_checking_condition("MY_TYPE_CHECKING"));
    }

    #[test]
    fn go_file_facts_list_the_package_imports_and_package_scope_names() {
        let source = "package backoff_test\n\nimport (\n\t\"fmt\"\n\tb \"github.com/x/backoff\"\n)\n\nimport \"time\"\n\ntype Ticker struct{ C int }\n\ntype (\n\tA = int\n\tB[T any] struct{ x T }\n)\n\nvar x, _ = 1, 2\n\nconst (\n\tOne = iota\n\tTwo\n)\n\nvar f = func() { var inner int; _ = inner }\n\nfunc Run() {}\n\nfunc (t Ticker) Stop() {}\n";
        let facts = ParsedSource::parse(Path::new("x_test.go"), source).expect("parsed").go_file_facts().expect("a package clause");
        assert_eq!(facts.package, "backoff_test");
        assert_eq!(facts.imports, ["fmt", "github.com/x/backoff", "time"]);
        assert_eq!(facts.package_scope_names, ["Ticker", "A", "B", "x", "One", "Two", "f", "Run"]);
    }
}
