//! The taken-name check of `lsp_rename` for Rust and Python (issue 11, trial27b M8).
//!
//! Neither rust-analyzer nor pyright checks a rename's new name against the names already
//! defined: renaming `write_optimistic` to `write_pessimistic` next to an existing
//! `fn write_pessimistic` (csv-core 0.1.13) writes code `cargo check` rejects (E0428), and a
//! Python `def` renamed onto another `def` of its class silently replaces it (pyright:
//! `reportRedeclaration`). [`file_findings`] reads the syntax tree of one file the rename
//! changes, *after* the edit (in memory, before anything is written), and looks for two
//! definitions of the new name in one scope, one the rename made and one that was already there:
//!
//! - Rust: the items of one module (a file, an inline `mod`, a function body), of one inherent
//!   `impl` of a type (all of the file's inherent impls of that type: rustc's E0592) or trait
//!   `impl`/trait, the fields of one struct and the variants of one enum; types (`struct`,
//!   `enum`, `trait`, `type`, `mod`), values (`fn`, `const`, `static`), macros and `use` imports
//!   kept apart as rustc keeps its name spaces (a tuple or unit struct is both a type and a
//!   value, an import may be either). `let` bindings shadow legally and are not definitions here.
//! - Python: `def`, `class`, an assignment or an import of the name as statements of one block
//!   (the module, a class body, a function body) — at least one of the two a `def` or `class`
//!   (reassigning a variable is ordinary); definitions in two branches of an `if`/`try` are in
//!   different blocks and are left alone (the usual fallback definition).
//!
//! Uses that would bind to another symbol (a renamed use inside a scope that defines the new
//! name) are not looked for in these languages, and files the rename does not change are not read
//! (a `use`/`import` of the new name in another module, a glob import): the check's summary line
//! says so.

use std::collections::HashSet;
use std::path::Path;

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Language};
use ast_grep_language::SupportLang;

/// The languages this module checks, by extension; `None` for a file it does not read.
pub(crate) fn checked_language(path: &Path) -> Option<&'static str> {
    match path.extension().and_then(|ext| ext.to_str())? {
        "rs" => Some("Rust"),
        "py" | "pyi" => Some("Python"),
        _ => None,
    }
}

/// Which of rustc's name spaces (or Python's one) a definition takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameSpace {
    /// `struct` with named fields, `enum`, `union`, `trait`, `type`, `mod`.
    Type,
    /// `fn`, `const`, `static`.
    Value,
    /// A tuple or unit struct, a `use` import, any Python definition.
    Both,
    /// `macro_rules!`.
    Macro,
    /// A struct field or enum variant (its list is its scope).
    Member,
    /// A generic parameter (type or const) of an item's `<…>` list: one name space of its own
    /// (rustc's E0403), which also holds the parameters of an `impl` or trait around a method.
    Generic,
}

impl NameSpace {
    fn collides_with(self, other: NameSpace) -> bool {
        use NameSpace::*;
        match (self, other) {
            (Member, Member) | (Macro, Macro) | (Generic, Generic) => true,
            (Member, _) | (_, Member) | (Macro, _) | (_, Macro) | (Generic, _) | (_, Generic) => false,
            (Type, Value) | (Value, Type) => false,
            _ => true,
        }
    }
}

/// One definition of the new name in the renamed text.
struct Definition {
    /// Byte offset of its name in the renamed text.
    start: usize,
    /// 1-based line.
    line: usize,
    /// Whether the rename wrote this name.
    renamed: bool,
    /// Its scope: a node id, or (Rust inherent impls) the impl's type text.
    scope: String,
    /// Rust generic parameters of a method or associated fn: the scope of the generic parameters
    /// of the `impl` or trait around it, which its own may not repeat either (E0403).
    enclosing_generics: Option<String>,
    space: NameSpace,
    /// Whether this is a Python `def`/`class` (two plain assignments do not collide).
    python_definition: bool,
    /// Python: bound inside an `if`/`try`/`with`/`for`/`while` of its scope (one branch of a
    /// choice; two such bindings may be alternatives, `try: … except: …`).
    conditional: bool,
    /// A few words for the answer (`fn write_pessimistic`, `class Foo`).
    what: String,
    /// Rust: a method of a trait `impl` (`impl Buf for Bytes`): the scope key its type's inherent
    /// impls have ([`rust_item_scope`]), whose method of the same name takes precedence over it in
    /// method calls.
    inherent_scope_of_type: Option<String>,
    /// Python: the byte range of the function body whose local this is (a parameter, or a
    /// binding in the body — not a nested `def`'s or class's); `None` at module or class level.
    function_body: Option<ByteSpan>,
    /// Python: the byte range of the outermost `for`/`while` loop around this binding in its
    /// function: a use earlier in that loop reads it from the second iteration on.
    loop_span: Option<ByteSpan>,
}

/// One finding of [`file_findings`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ItemFinding {
    /// `line: what` (the 1-based line of the renamed text, what happens, the next step).
    pub text: String,
    /// The rename would make existing code read another value with no error at all (a Python
    /// parameter or local renamed onto a local binding of its function that then captures the
    /// renamed uses): the rename is refused, as gopls and rust-analyzer refuse a rename whose
    /// new name another local in scope takes (trial170 F2).
    pub refuses: bool,
}

/// The findings of one Rust or Python file (see [`ItemFinding`]); `None` when the file is
/// neither or does not parse. `renamed_starts` are the byte offsets in `new` of the identifiers
/// the rename wrote.
pub(crate) fn file_findings(
    path: &Path,
    new: &str,
    renamed_starts: &HashSet<usize>,
    old_name: &str,
    new_name: &str,
) -> Option<Vec<ItemFinding>> {
    let language = SupportLang::from_path(path)?;
    let rust = match language {
        SupportLang::Rust => true,
        SupportLang::Python => false,
        _ => return None,
    };
    let root = AstGrep::<StrDoc<SupportLang>>::try_new(new, language).ok()?;
    let top = root.root().get_inner_node();
    let mut definitions = Vec::new();
    let mut stack = vec![top];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        if !matches!(node.kind(), "identifier" | "type_identifier" | "field_identifier")
            || new.get(node.start_byte()..node.end_byte()) != Some(new_name)
        {
            continue;
        }
        let found =
            if rust { rust_definition(node, new).map(|(scope, space, what)| (scope, false, space, what)) } else { python_definition(node) };
        if let Some((scope, conditional, space, what)) = found {
            let inherent_scope_of_type = if rust { rust_trait_impl_type_scope(node, new) } else { None };
            let enclosing_generics = if rust && space == NameSpace::Generic { rust_enclosing_generics(node) } else { None };
            let (function_body, loop_span) =
                if rust || matches!(what, "def" | "class" | "import") { (None, None) } else { python_local_spans(node) };
            definitions.push(Definition {
                function_body,
                loop_span,
                enclosing_generics,
                inherent_scope_of_type,
                conditional,
                start: node.start_byte(),
                line: node.start_position().row + 1,
                renamed: renamed_starts.contains(&node.start_byte()),
                scope,
                space,
                python_definition: !rust && matches!(what, "def" | "class" | "parameter"),
                what: format!("{what} {new_name}"),
            });
        }
    }
    definitions.sort_by_key(|definition| definition.start);
    let mut found = Vec::new();
    // A trait method renamed to the name of an inherent method of an implementing type: no error,
    // but method calls on that type reach the inherent method (bytes 1.7.2: `Buf::advance` renamed
    // to `truncate`, which `Bytes`, `BytesMut` have: 28 tests failed after "no new errors",
    // trial54 F5).
    for renamed in definitions.iter().filter(|definition| definition.renamed) {
        let Some(inherent_scope) = &renamed.inherent_scope_of_type else { continue };
        let Some(inherent) = definitions.iter().find(|existing| !existing.renamed && existing.scope == *inherent_scope) else { continue };
        let type_name = inherent_scope.rsplit(' ').next().unwrap_or("the type");
        found.push(ItemFinding {
            text: format!(
                "{}: the renamed trait method `{old_name}` becomes `{}`, and `{type_name}` already has an inherent `{}` (line {}): an inherent method takes precedence in method calls, so `x.{new_name}(…)` on a `{type_name}` — the calls this rename writes too — reaches the inherent one, with no error when the signatures agree; pick another name",
                renamed.line, renamed.what, inherent.what, inherent.line
            ),
            refuses: false,
        });
    }
    for renamed in definitions.iter().filter(|definition| definition.renamed) {
        let same_scope = |existing: &Definition| {
            existing.scope == renamed.scope
                || existing.enclosing_generics.as_ref() == Some(&renamed.scope)
                || renamed.enclosing_generics.as_ref() == Some(&existing.scope)
        };
        let clash = definitions.iter().find(|existing| {
            !existing.renamed
                && same_scope(existing)
                && renamed.space.collides_with(existing.space)
                && (rust
                    || renamed.python_definition
                    || existing.python_definition
                    || (renamed.function_body.is_some() && existing.function_body.is_some()))
                && !(renamed.conditional && existing.conditional)
        });
        let Some(existing) = clash else { continue };
        // Python: the renamed parameter or local and a local binding of its function become one
        // variable; the renamed uses after the binding — or earlier in a loop around it — read
        // the binding's value (trial170 F2).
        let local_binding =
            !rust && ["assignment ", "for target ", "with target ", "except target "].iter().any(|kind| existing.what.starts_with(kind));
        let captured_uses = existing.function_body.filter(|_| local_binding).map_or(0, |(body_start, body_end)| {
            renamed_starts
                .iter()
                .filter(|start| (body_start..body_end).contains(*start))
                .filter(|start| **start > existing.start || existing.loop_span.is_some_and(|(from, to)| (from..to).contains(*start)))
                .count()
        });
        let consequence = if !rust && renamed.what.starts_with("parameter ") && existing.what.starts_with("parameter ") {
            "two parameters of one name, a SyntaxError (duplicate argument): the module no longer imports".to_owned()
        } else if rust && renamed.space == NameSpace::Generic {
            // trial159 F2: `impl<T, const CAP: usize>` with `CAP` renamed to `T` was said to have
            // "no other definition of `T` in the same scope"; cargo check gave E0403 and E0747.
            "two generic parameters of one name in one item's generics (a method's and its `impl`'s or trait's count as one list), which cargo check rejects (E0403: the name is already used for a generic parameter), and every use of the name then means one of them".to_owned()
        } else if rust {
            "a duplicate definition, which cargo check rejects (E0428 in a module, E0201/E0592 in an impl, E0124 for a field, E0252/E0255 with a `use`)".to_owned()
        } else if local_binding && !renamed.what.starts_with("parameter ") {
            let binding = existing.what.rsplit_once(' ').map_or("assignment", |(kind, _)| kind);
            if captured_uses > 0 {
                format!(
                    "two locals of the function become one variable: {} of the renamed `{old_name}` after the {binding} at line {} (or earlier in a loop around it) would read the value bound there, with no error",
                    crate::render::plural(captured_uses, "use"),
                    existing.line
                )
            } else {
                format!(
                    "two locals of the function become one variable: no renamed use comes after the {binding} at line {}, but that local's own uses after the renamed bindings now read them — check each",
                    existing.line
                )
            }
        } else if !rust && renamed.what.starts_with("parameter ") && local_binding && (existing.start > renamed.start || captured_uses > 0)
        {
            // A later assignment in the body rebinds the renamed parameter — one local now: only
            // the renamed uses after it change (trial57 M2: humanize's `minimum_unit` → `min_unit`
            // was said to make "every renamed use reach the other symbol"; all tests passed).
            let uses_after = captured_uses;
            let binding = existing.what.rsplit_once(' ').map_or("assignment", |(kind, _)| kind);
            if uses_after == 0 {
                format!(
                    "the {binding} at line {} now rebinds the parameter (one local): no renamed use comes after it, so what the uses read is unchanged, but the value assigned there must now fit the parameter's annotation (pyright: reportAssignmentType when it does not)",
                    existing.line
                )
            } else {
                format!(
                    "the {binding} at line {} now rebinds the parameter (one local): {} after it (or earlier in a loop around it) {} the value bound there instead of the argument, with no error when the parameter has no annotation — check {}; the value bound must also fit the parameter's annotation (pyright: reportAssignmentType)",
                    existing.line,
                    crate::render::plural(uses_after, "renamed use"),
                    crate::render::one_or_many(uses_after, "reads", "read"),
                    crate::render::one_or_many(uses_after, "it", "them"),
                )
            }
        } else if existing.start < renamed.start {
            format!(
                "the later definition replaces the earlier one at run time (line {} is lost; pyright: reportRedeclaration)",
                existing.line
            )
        } else {
            "the later definition (line ".to_owned()
                + &existing.line.to_string()
                + ") replaces the renamed one at run time, so every renamed use reaches the other symbol (pyright: reportRedeclaration)"
        };
        let refuses = local_binding && captured_uses > 0;
        found.push(ItemFinding {
            text: format!(
                "{}: the renamed `{old_name}` becomes `{}`, which line {} already defines in the same scope (`{}`) — {consequence}; pick another name, or rename that one first",
                renamed.line, renamed.what, existing.line, existing.what
            ),
            refuses,
        });
    }
    Some(found)
}

/// The scope key of an item whose parent list is `list`: an inherent `impl`'s body is keyed by
/// the impl's type (all inherent impls of a type share their names), any other by its id.
fn rust_item_scope(list: tree_sitter::Node<'_>, text: &str) -> String {
    if list.kind() == "declaration_list" {
        if let Some(owner) = list.parent().filter(|owner| owner.kind() == "impl_item") {
            if owner.child_by_field_name("trait").is_none() {
                if let Some(implemented) = owner.child_by_field_name("type") {
                    // `Either<L, R>` and `Either<T, T>` are one type's inherent impls: their
                    // methods share one namespace (E0592; trial48 F2: `into_inner` → `flip`).
                    let type_text = text.get(implemented.start_byte()..implemented.end_byte()).unwrap_or("");
                    let type_text = type_text.split('<').next().unwrap_or(type_text).trim();
                    let scope_of_impl = owner.parent().map_or(0, |parent| parent.id());
                    return format!("impl {scope_of_impl} {type_text}");
                }
            }
        }
    }
    list.id().to_string()
}

/// When the Rust `identifier` names a `fn` in a trait `impl`'s body (`impl Buf for Bytes`): the
/// scope key of that type's inherent impls in the same parent (see [`rust_item_scope`]).
fn rust_trait_impl_type_scope(identifier: tree_sitter::Node<'_>, text: &str) -> Option<String> {
    let function = identifier.parent().filter(|parent| parent.kind() == "function_item")?;
    function.child_by_field_name("name").filter(|name| name.id() == identifier.id())?;
    let list = function.parent().filter(|list| list.kind() == "declaration_list")?;
    let owner = list.parent().filter(|owner| owner.kind() == "impl_item")?;
    owner.child_by_field_name("trait")?;
    let implemented = owner.child_by_field_name("type")?;
    let type_text = text.get(implemented.start_byte()..implemented.end_byte()).unwrap_or("");
    let type_text = type_text.split('<').next().unwrap_or(type_text).trim();
    let scope_of_impl = owner.parent().map_or(0, |parent| parent.id());
    Some(format!("impl {scope_of_impl} {type_text}"))
}

/// When the Rust `identifier` names a definition: its scope, name space and kind word.
fn rust_definition(identifier: tree_sitter::Node<'_>, text: &str) -> Option<(String, NameSpace, &'static str)> {
    let parent = identifier.parent()?;
    let is_name = parent.child_by_field_name("name").is_some_and(|name| name.id() == identifier.id());
    let item = |space, what| Some((rust_item_scope(parent.parent()?, text), space, what));
    match parent.kind() {
        "function_item" | "function_signature_item" if is_name => item(NameSpace::Value, "fn"),
        "const_item" if is_name => item(NameSpace::Value, "const"),
        "static_item" if is_name => item(NameSpace::Value, "static"),
        "struct_item" if is_name => {
            let named_fields = parent.child_by_field_name("body").is_some_and(|body| body.kind() == "field_declaration_list");
            item(if named_fields { NameSpace::Type } else { NameSpace::Both }, "struct")
        }
        "enum_item" if is_name => item(NameSpace::Type, "enum"),
        "union_item" if is_name => item(NameSpace::Type, "union"),
        "trait_item" if is_name => item(NameSpace::Type, "trait"),
        "type_item" | "associated_type" if is_name => item(NameSpace::Type, "type"),
        "mod_item" if is_name => item(NameSpace::Type, "mod"),
        "macro_definition" if is_name => item(NameSpace::Macro, "macro_rules!"),
        "field_declaration" if is_name => Some((parent.parent()?.id().to_string(), NameSpace::Member, "field")),
        // A generic parameter: its `<…>` list is its scope.
        "type_parameter" if is_name => Some((parent.parent()?.id().to_string(), NameSpace::Generic, "type parameter")),
        "const_parameter" if is_name => Some((parent.parent()?.id().to_string(), NameSpace::Generic, "const parameter")),
        "enum_variant" if is_name => Some((parent.parent()?.id().to_string(), NameSpace::Member, "variant")),
        _ => {
            let declaration = rust_use_binding(identifier)?;
            Some((rust_item_scope(declaration.parent()?, text), NameSpace::Both, "use"))
        }
    }
}

/// When the Rust `identifier` names a generic parameter of a `fn` inside an `impl` or trait body:
/// the scope (the `<…>` list's id, as [`rust_definition`] gives it) of that `impl`'s or trait's
/// generic parameters, which the method's may not repeat (E0403).
fn rust_enclosing_generics(identifier: tree_sitter::Node<'_>) -> Option<String> {
    let list = identifier.parent()?.parent().filter(|list| list.kind() == "type_parameters")?;
    let item = list.parent().filter(|item| matches!(item.kind(), "function_item" | "function_signature_item"))?;
    let body = item.parent().filter(|body| body.kind() == "declaration_list")?;
    let owner = body.parent().filter(|owner| matches!(owner.kind(), "impl_item" | "trait_item"))?;
    let generics = owner.child_by_field_name("type_parameters")?;
    Some(generics.id().to_string())
}

/// The `use_declaration` in which `identifier` is the name the import binds (the last segment of
/// a path, or the alias of `as`); `None` otherwise (a path's earlier segment, `self`, `*`).
fn rust_use_binding(identifier: tree_sitter::Node<'_>) -> Option<tree_sitter::Node<'_>> {
    let parent = identifier.parent()?;
    let binds = match parent.kind() {
        "use_as_clause" => parent.child_by_field_name("alias").is_some_and(|alias| alias.id() == identifier.id()),
        "scoped_identifier" => {
            let is_last = parent.child_by_field_name("name").is_some_and(|name| name.id() == identifier.id());
            let grand = parent.parent()?;
            is_last && matches!(grand.kind(), "use_declaration" | "use_list")
        }
        "use_declaration" | "use_list" => true,
        _ => false,
    };
    if !binds {
        return None;
    }
    let mut current = parent;
    loop {
        match current.kind() {
            "use_declaration" => return Some(current),
            "use_as_clause" | "scoped_identifier" | "use_list" | "scoped_use_list" => current = current.parent()?,
            _ => return None,
        }
    }
}

/// When the Python `identifier` names a definition: its scope's id (the module's, a `def`'s or a
/// `class`'s body: the block of an `if`, `try`, `with`, `for` or `while` is no scope of its own),
/// whether it is bound inside such a statement, the name space and kind word. recipes.py of
/// more-itertools 10.5.0 binds `_zip_strict` at module level in `try: … except TypeError: … else:
/// …`; a `def _zip_strict` renamed into the module replaces it (trial44 F4: said "no other
/// definition").
fn python_definition(identifier: tree_sitter::Node<'_>) -> Option<(String, bool, NameSpace, &'static str)> {
    let parent = identifier.parent()?;
    let is_name = parent.child_by_field_name("name").is_some_and(|name| name.id() == identifier.id());
    // The statement's scope: a decorated definition's is its decorator's.
    let scope_of = |statement: tree_sitter::Node<'_>| -> Option<(String, bool)> {
        let mut statement = statement;
        if statement.parent().is_some_and(|up| up.kind() == "decorated_definition") {
            statement = statement.parent()?;
        }
        let mut block = statement.parent()?;
        let mut conditional = false;
        loop {
            if block.kind() == "module" {
                return Some((block.id().to_string(), conditional));
            }
            if block.kind() != "block" {
                return None;
            }
            let owner = block.parent()?;
            if matches!(owner.kind(), "function_definition" | "class_definition") {
                return Some((block.id().to_string(), conditional));
            }
            // Up through the compound statement (and its clause) to the block holding it.
            let mut up = owner;
            while !matches!(up.kind(), "block" | "module") {
                if !matches!(
                    up.kind(),
                    "if_statement"
                        | "elif_clause"
                        | "else_clause"
                        | "try_statement"
                        | "except_clause"
                        | "except_group_clause"
                        | "finally_clause"
                        | "with_statement"
                        | "for_statement"
                        | "while_statement"
                ) {
                    return None;
                }
                up = up.parent()?;
            }
            conditional = true;
            block = up;
        }
    };
    let found = |statement, space, what| scope_of(statement).map(|(scope, conditional)| (scope, conditional, space, what));
    // A parameter's scope is its parameter list: two parameters of one name are a SyntaxError
    // ("duplicate argument"; trial45 M1: tomli's `skip_chars(src, pos, chars)`, `chars` → `src`).
    // A parameter shares its function's body scope with the body's own locals: a parameter
    // renamed to a local's name merges the two (trial49 F4: pluggy's `register(name)` →
    // `plugin_name`, a local of that function; 4 tests failed and pyright said nothing).
    let parameter = |list: tree_sitter::Node<'_>| {
        let body = list.parent().and_then(|function| function.child_by_field_name("body"));
        Some((body.map_or(list.id(), |body| body.id()).to_string(), false, NameSpace::Both, "parameter"))
    };
    match parent.kind() {
        "parameters" | "lambda_parameters" => parameter(parent),
        "typed_parameter" if parent.named_child(0).is_some_and(|first| first.id() == identifier.id()) => parameter(parent.parent()?),
        "default_parameter" | "typed_default_parameter" if is_name => parameter(parent.parent()?),
        "list_splat_pattern" | "dictionary_splat_pattern"
            if parent.parent().is_some_and(|list| matches!(list.kind(), "parameters" | "lambda_parameters")) =>
        {
            parameter(parent.parent()?)
        }
        "function_definition" if is_name => found(parent, NameSpace::Both, "def"),
        "class_definition" if is_name => found(parent, NameSpace::Both, "class"),
        "assignment" if parent.child_by_field_name("left").is_some_and(|left| left.id() == identifier.id()) => {
            let statement = parent.parent().filter(|statement| statement.kind() == "expression_statement")?;
            found(statement, NameSpace::Both, "assignment")
        }
        "aliased_import" if parent.child_by_field_name("alias").is_some_and(|alias| alias.id() == identifier.id()) => {
            found(parent.parent()?, NameSpace::Both, "import")
        }
        "dotted_name" => {
            // `from m import g` binds `g` (a one-segment name in the imported list).
            let statement = parent.parent()?;
            let single = parent.named_child_count() == 1;
            let in_list = statement.kind() == "import_from_statement"
                && statement.child_by_field_name("module_name").is_none_or(|module| module.id() != parent.id());
            (single && in_list).then_some(())?;
            found(statement, NameSpace::Both, "import")
        }
        _ => python_target_binding(identifier).and_then(|(statement, what, conditional_itself)| {
            scope_of(statement).map(|(scope, conditional)| (scope, conditional || conditional_itself, NameSpace::Both, what))
        }),
    }
}

/// A byte range of a file's text: (start, end).
type ByteSpan = (usize, usize);

/// For a Python binding at `identifier` (a parameter or a binding in a body): the byte range of
/// the function body it is local to — `None` at module or class level — and of the outermost
/// `for`/`while` loop around it inside that function.
fn python_local_spans(identifier: tree_sitter::Node<'_>) -> (Option<ByteSpan>, Option<ByteSpan>) {
    let mut loop_span = None;
    let mut node = identifier;
    while let Some(up) = node.parent() {
        match up.kind() {
            "for_statement" | "while_statement" => loop_span = Some((up.start_byte(), up.end_byte())),
            "parameters" | "lambda_parameters" => {
                let body = up.parent().and_then(|function| function.child_by_field_name("body"));
                return (body.map(|body| (body.start_byte(), body.end_byte())), None);
            }
            "function_definition" => {
                let body = up.child_by_field_name("body");
                return (body.map(|body| (body.start_byte(), body.end_byte())), loop_span);
            }
            "class_definition" | "module" | "lambda" => return (None, None),
            _ => {}
        }
        node = up;
    }
    (None, None)
}

/// When the Python `identifier` is bound as a target of a statement other than a plain
/// `name = …`: a `for` target (also inside `a, b` / `[a, *b]` / `(a, b)`), an unpacking or
/// augmented assignment, a `with … as` or `except … as` target, or a walrus (`:=`, which binds in
/// the enclosing function even from a comprehension) — the statement whose block holds the
/// binding, the kind word, and whether the binding may not run (a loop's target, an `except`'s,
/// a walrus). A comprehension's own `for` targets are its own scope and are not bindings here
/// (trial170 F2: humanize's `precisedelta(…, format)` renamed to `fmt`, and the body's `for
/// unit, fmt in zip(…)` then captured every later use of the parameter: 18 tests failed after
/// "no other definition of `fmt` in the same scope").
fn python_target_binding(identifier: tree_sitter::Node<'_>) -> Option<(tree_sitter::Node<'_>, &'static str, bool)> {
    let mut target = identifier;
    loop {
        let parent = target.parent()?;
        if !matches!(
            parent.kind(),
            "pattern_list"
                | "tuple_pattern"
                | "list_pattern"
                | "list_splat_pattern"
                | "tuple"
                | "list"
                | "parenthesized_expression"
                | "as_pattern_target"
        ) {
            break;
        }
        target = parent;
    }
    let owner = target.parent()?;
    let is_field = |field: &str| owner.child_by_field_name(field).is_some_and(|node| node.id() == target.id());
    match owner.kind() {
        "for_statement" if is_field("left") => Some((owner, "for target", true)),
        "assignment" | "augmented_assignment" if is_field("left") => {
            owner.parent().filter(|statement| statement.kind() == "expression_statement").map(|statement| (statement, "assignment", false))
        }
        "as_pattern" if is_field("alias") => {
            let clause = owner.parent()?;
            match clause.kind() {
                "with_item" => {
                    let with_statement = clause.parent()?.parent()?;
                    (with_statement.kind() == "with_statement").then_some((with_statement, "with target", false))
                }
                "except_clause" | "except_group_clause" => Some((clause.parent()?, "except target", true)),
                _ => None,
            }
        }
        "named_expression" if is_field("name") => {
            let mut statement = owner;
            loop {
                let up = statement.parent()?;
                if matches!(up.kind(), "block" | "module") {
                    break Some((statement, "assignment", true));
                }
                if matches!(up.kind(), "lambda" | "function_definition" | "class_definition") {
                    break None;
                }
                statement = up;
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(file: &str, old: &str, old_name: &str, new_name: &str) -> Vec<String> {
        let new = crate::lsp::rename_coverage::text_with_word_renamed(old, old_name, new_name);
        let renamed = crate::lsp::rename_taken_names::renamed_offsets(old, &new, old_name, new_name);
        file_findings(Path::new(file), &new, &renamed, old_name, new_name)
            .expect("parsed")
            .into_iter()
            .map(|finding| finding.text)
            .collect()
    }

    #[test]
    fn a_python_parameter_renamed_onto_another_parameter_is_a_duplicate() {
        let source =
            "def skip_chars(src: str, pos: int, chars=()) -> int:\n    return pos\n\n\ndef other(chars, *rest):\n    return chars\n";
        let found = findings("a.py", source, "chars", "src");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("1: the renamed `chars` becomes `parameter src`, which line 1 already defines"), "{found:?}");
        assert!(findings("a.py", source, "chars", "rest").len() == 1, "a *rest parameter is one too");
        assert!(findings("a.py", source, "chars", "count").is_empty());
        // A parameter renamed to a local of its function: one variable now.
        let source = "def register(plugin, name=None):\n    plugin_name = name or str(plugin)\n    return plugin_name\n";
        let found = findings("a.py", source, "name", "plugin_name");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("1: the renamed `name` becomes `parameter plugin_name`, which line 2 already defines"), "{found:?}");
    }

    #[test]
    fn a_parameter_renamed_onto_a_later_assignment_says_which_uses_change() {
        // humanize 4.10.0 (trial57 M2): `minimum_unit` → `min_unit`, assigned at the end.
        let source = "def f(minimum_unit: str = \"s\") -> str:\n    tmp = minimum_unit.upper()\n    min_unit = tmp\n    return min_unit\n";
        let found = findings("a.py", source, "minimum_unit", "min_unit");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("the assignment at line 3 now rebinds the parameter (one local): no renamed use comes after it"),
            "{found:?}"
        );
        assert!(!found[0].contains("every renamed use"), "{found:?}");
        let source = "def f(minimum_unit: str) -> str:\n    min_unit = 'x'\n    return minimum_unit\n";
        let found = findings("a.py", source, "minimum_unit", "min_unit");
        assert!(
            found[0]
                .contains("1 renamed use after it (or earlier in a loop around it) reads the value bound there instead of the argument"),
            "{found:?}"
        );
    }

    #[test]
    fn a_parameter_renamed_onto_a_loop_target_of_its_function_is_refused() {
        // humanize 4.17.0 (trial170 F2): `precisedelta(…, format)` → `fmt`, the body's
        // `for unit, fmt in zip(…)` captures the later use; another function's `fmt` is no clash.
        let source = "def f(value, format=\"%0.2f\"):\n    fmts = []\n    for unit, fmt in zip(value, fmts):\n        pass\n    return value.replace(\"%d\", format)\n\n\ndef g(fmt):\n    return fmt\n";
        let new = crate::lsp::rename_coverage::text_with_word_renamed(source, "format", "fmt");
        let renamed = crate::lsp::rename_taken_names::renamed_offsets(source, &new, "format", "fmt");
        let found = file_findings(Path::new("a.py"), &new, &renamed, "format", "fmt").expect("parsed");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].refuses, "{found:?}");
        assert!(
            found[0].text.starts_with("1: the renamed `format` becomes `parameter fmt`, which line 3 already defines in the same scope (`for target fmt`) — the for target at line 3 now rebinds the parameter (one local): 1 renamed use after it"),
            "{found:?}"
        );
        // A use earlier in a loop whose body rebinds the name reads it from the second iteration.
        let looped =
            "def f(items, label):\n    for item in items:\n        print(label)\n        with open(item) as handle:\n            pass\n";
        assert!(findings("a.py", looped, "label", "handle")[0].contains(
            "the with target at line 4 now rebinds the parameter (one local): 1 renamed use after it (or earlier in a loop around it)"
        ));
        // `except … as`, unpacking and `:=` bind in the function too.
        let bound = "def f(err):\n    try:\n        pass\n    except ValueError as exc:\n        pass\n    a, (b, c) = 1, (2, 3)\n    if (d := 4):\n        pass\n    return err\n";
        for taken in ["exc", "c", "d"] {
            assert_eq!(findings("a.py", bound, "err", taken).len(), 1, "{taken}");
        }
        // A comprehension's own target is its own scope; a binding after every use only rebinds.
        let comprehension = "def f(err):\n    print(err)\n    return [exc for exc in range(3)]\n";
        assert!(findings("a.py", comprehension, "err", "exc").is_empty());
        let after = "def f(err):\n    print(err)\n    for exc in range(3):\n        pass\n";
        let new = crate::lsp::rename_coverage::text_with_word_renamed(after, "err", "exc");
        let renamed = crate::lsp::rename_taken_names::renamed_offsets(after, &new, "err", "exc");
        let found = file_findings(Path::new("a.py"), &new, &renamed, "err", "exc").expect("parsed");
        assert!(found.len() == 1 && !found[0].refuses && found[0].text.contains("no renamed use comes after it"), "{found:?}");
        // Two locals of one function merged by a rename.
        let locals = "def f():\n    total = 1\n    count = 2\n    return total + count\n";
        let new = crate::lsp::rename_coverage::text_with_word_renamed(locals, "total", "count");
        let renamed = crate::lsp::rename_taken_names::renamed_offsets(locals, &new, "total", "count");
        let found = file_findings(Path::new("a.py"), &new, &renamed, "total", "count").expect("parsed");
        assert!(
            found.len() == 1 && found[0].refuses && found[0].text.contains("two locals of the function become one variable: 1 use"),
            "{found:?}"
        );
    }

    #[test]
    fn a_trait_method_renamed_to_an_inherent_method_of_its_implementing_type_is_said() {
        // bytes 1.7.2 (trial54 F5): `Buf::advance` renamed to `truncate`, which `Bytes` has.
        let source = "pub trait Buf {\n    fn advance(&mut self, cnt: usize);\n}\npub struct Bytes(usize);\nimpl Bytes {\n    pub fn truncate(&mut self, len: usize) {\n        self.0 = len;\n    }\n}\nimpl Buf for Bytes {\n    fn advance(&mut self, cnt: usize) {\n        self.0 -= cnt;\n    }\n}\n";
        let found = findings("a.rs", source, "advance", "truncate");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with(
                "11: the renamed trait method `advance` becomes `fn truncate`, and `Bytes` already has an inherent `fn truncate` (line 6)"
            ),
            "{found:?}"
        );
        assert!(findings("a.rs", source, "advance", "skip").is_empty());
    }

    #[test]
    fn a_rust_fn_renamed_onto_another_fn_of_its_module_or_impl_is_a_duplicate() {
        let source = "fn write_optimistic() {}\nfn write_pessimistic() {}\nfn main() { write_optimistic(); }\n";
        let found = findings("a.rs", source, "write_optimistic", "write_pessimistic");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("1: the renamed `write_optimistic` becomes `fn write_pessimistic`, which line 2 already defines"));
        // Two inherent impls of one type share their names (E0592), whatever their generic
        // parameters; a trait impl does not.
        let source = "enum E<L, R> { A(L), B(R) }\nimpl<L, R> E<L, R> { fn flip(self) {} }\nimpl<T> E<T, T> { fn into_inner(self) {} }\n";
        assert_eq!(findings("a.rs", source, "into_inner", "flip").len(), 1);
        let source = "struct S;\nimpl S { fn a(&self) {} }\nimpl S { fn b(&self) {} }\nimpl Clone for S { fn clone(&self) -> S { S } }\n";
        assert_eq!(findings("a.rs", source, "a", "b").len(), 1);
        assert!(findings("a.rs", source, "a", "clone").is_empty());
        // A type and a fn of one name live in different name spaces; a `let` shadows legally.
        let source = "struct Reader { n: u8 }\nfn reader() { let make = 1; }\nfn make() {}\n";
        assert!(findings("a.rs", source, "reader", "Reader").is_empty());
        assert!(findings("a.rs", source, "make", "n").is_empty());
        // A field renamed onto another field; an import of the new name in the module.
        assert_eq!(findings("a.rs", "struct P { x: u8, y: u8 }\n", "x", "y").len(), 1);
        let found = findings("a.rs", "use std::fmt::Write;\nfn Writer() {}\n", "Writer", "Write");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("(`use Write`)"), "{found:?}");
    }

    #[test]
    fn a_generic_parameter_renamed_onto_another_of_its_item_or_impl_is_a_duplicate() {
        // arrayvec 0.7.6 (trial159 F2): `const CAP` renamed to `T` beside `T`.
        let source = "struct S<T, const N: usize>([T; N]);\nimpl<T, const N: usize> S<T, N> {\n    fn first(&self) -> usize { N }\n}\n";
        let found = findings("a.rs", source, "N", "T");
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found.iter().any(|finding| finding.starts_with("1: the renamed `N` becomes `const parameter T`, which line 1 already defines")),
            "{found:?}"
        );
        assert!(found.iter().all(|finding| finding.contains("E0403")), "{found:?}");
        // A method's generics may not repeat its impl's; two methods' own may share a name, and
        // a struct's generics are no scope of an unrelated fn.
        let source = "struct S<T>(T);\nimpl<T> S<T> {\n    fn a<U>(&self) {}\n    fn b<V>(&self) {}\n}\nfn free<W>() {}\n";
        assert_eq!(findings("a.rs", source, "U", "T").len(), 1);
        assert!(findings("a.rs", source, "U", "V").is_empty());
        assert!(findings("a.rs", source, "W", "T").is_empty());
        assert!(findings("a.rs", source, "U", "Z").is_empty());
    }

    #[test]
    fn a_python_def_renamed_onto_a_def_of_its_class_is_said_and_branches_are_not() {
        let source = "class C:\n    def f(self):\n        pass\n\n    def g(self):\n        pass\n";
        let found = findings("m.py", source, "f", "g");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("the later definition (line 5) replaces the renamed one"), "{found:?}");
        // A fallback definition in the other branch of a `try` is another block.
        let source = "try:\n    from fast import g\nexcept ImportError:\n    def f():\n        pass\n";
        assert!(findings("m.py", source, "f", "g").is_empty());
        // Two module-level assignments are a reassignment, not a clash; a def and an import are.
        assert!(findings("m.py", "f = 1\ng = 2\n", "f", "g").is_empty());
        assert_eq!(findings("m.py", "from x import g\n\ndef f():\n    pass\n", "f", "g").len(), 1);
        // more-itertools 10.5.0's recipes.py (trial44 F4): a module-level binding inside `try`/
        // `except`/`else` is in the module's scope; the renamed `def` at module level replaces it.
        let source = "try:\n    zip(strict=True)\nexcept TypeError:\n    g = zip\nelse:\n    g = 1\n\ndef f():\n    pass\n";
        let found = findings("m.py", source, "f", "g");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("8: the renamed `f` becomes `def g`, which line 4 already defines"), "{found:?}");
        // Inside a `def`, an `if` block is the function's scope; another function's is not.
        let source = "def h():\n    if True:\n        g = 1\n    def f():\n        pass\n\ndef k():\n    g = 2\n";
        assert_eq!(findings("m.py", source, "f", "g").len(), 1);
        assert!(findings("m.py", "def k():\n    g = 2\n\ndef f():\n    pass\n", "f", "g").is_empty());
    }
}
