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
    /// Python local: the byte range this binding surely reaches whenever it runs
    /// ([`python_binding_reach`]); a read outside it gets the value only through a branch.
    reach: Option<ByteSpan>,
    /// Python local: what its statement evaluates before binding it (a `for` loop's iterable,
    /// an assignment's right side): a read there does not get this binding's value.
    not_reached: Option<ByteSpan>,
}

/// One finding of [`file_findings`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ItemFinding {
    /// `line: what` (the 1-based line of the renamed text, what happens, the next step).
    pub text: String,
    /// The rename would make existing code read another value with no error at all (a Python
    /// parameter or local renamed onto a local binding of its function, where a read of either
    /// then surely gets the other's value — [`python_read_capture`]): the rename is refused, as gopls and rust-analyzer refuse a rename whose
    /// new name another local in scope takes (trial170 F2).
    pub refuses: bool,
    /// The renamed code does not build or one definition silently replaces the other: a
    /// duplicate Rust definition or generic parameter (cargo check rejects it), two Python
    /// parameters of one name (SyntaxError), a Python `def`/`class` defined twice in one scope
    /// (the later replaces the earlier at run time): the rename is staged, not written
    /// (trial176 M6: a rename its own check called a duplicate was written, 637 errors).
    pub breaks: bool,
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
    // Python: the reads of the new name (renamed or not), for the locals a rename merges.
    let mut python_reads: Vec<PythonRead> = Vec::new();
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
        if !rust {
            let renamed = renamed_starts.contains(&node.start_byte());
            if let Some(read) = python_variable_read(node, new, found.is_some(), renamed) {
                python_reads.push(read);
            }
        }
        if let Some((scope, conditional, space, what)) = found {
            let inherent_scope_of_type = if rust { rust_trait_impl_type_scope(node, new) } else { None };
            let enclosing_generics = if rust && space == NameSpace::Generic { rust_enclosing_generics(node) } else { None };
            let function_body = if rust || matches!(what, "def" | "class" | "import") { None } else { python_function_body(node) };
            let (reach, not_reached) = if function_body.is_some() { python_binding_reach(node) } else { (None, None) };
            definitions.push(Definition {
                function_body,
                reach,
                not_reached,
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
    // The function bodies whose merged locals were already said (one finding each).
    let mut merged_bodies_said: HashSet<ByteSpan> = HashSet::new();
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
            breaks: false,
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
        // variable; a read of either whose nearest binding before it (or on a loop's way back)
        // is now the other's reads the other's value (trial170 F2; review50 H7: only reads
        // count, and a binding in a branch the read is not inside only may reach it).
        let local_binding =
            !rust && ["assignment ", "for target ", "with target ", "except target "].iter().any(|kind| existing.what.starts_with(kind));
        let merged_body = existing.function_body.filter(|_| local_binding);
        if let Some(body) = merged_body {
            // One finding per merged pair of a function, not one per renamed binding.
            if !merged_bodies_said.insert(body) {
                continue;
            }
        }
        let merged = merged_body.map(|body| python_merged_reads(&definitions, &python_reads, body)).unwrap_or_default();
        let binding = existing.what.rsplit_once(' ').map_or("assignment", |(kind, _)| kind);
        let consequence = if !rust && renamed.what.starts_with("parameter ") && existing.what.starts_with("parameter ") {
            "two parameters of one name, a SyntaxError (duplicate argument): the module no longer imports".to_owned()
        } else if rust && renamed.space == NameSpace::Generic {
            // trial159 F2: `impl<T, const CAP: usize>` with `CAP` renamed to `T` was said to have
            // "no other definition of `T` in the same scope"; cargo check gave E0403 and E0747.
            "two generic parameters of one name in one item's generics (a method's and its `impl`'s or trait's count as one list), which cargo check rejects (E0403: the name is already used for a generic parameter), and every use of the name then means one of them".to_owned()
        } else if rust {
            "a duplicate definition, which cargo check rejects (E0428 in a module, E0201/E0592 in an impl, E0124 for a field, E0252/E0255 with a `use`)".to_owned()
        } else if local_binding && !renamed.what.starts_with("parameter ") {
            format!("two locals of the function become one variable: {}", merged.text(old_name, binding, false))
        } else if !rust && renamed.what.starts_with("parameter ") && local_binding && (existing.start > renamed.start || !merged.is_empty())
        {
            // A later assignment in the body rebinds the renamed parameter — one local now: only
            // the reads it reaches change (trial57 M2: humanize's `minimum_unit` → `min_unit`
            // was said to make "every renamed use reach the other symbol"; all tests passed).
            format!(
                "the {binding} at line {} now rebinds the parameter (one local): {}; the value bound there must also fit the parameter's annotation (pyright: reportAssignmentType when it does not)",
                existing.line,
                merged.text(old_name, binding, true)
            )
        } else if existing.what.starts_with("parameter ")
            && ["assignment ", "for target ", "with target ", "except target "].iter().any(|kind| renamed.what.starts_with(kind))
        {
            // A local renamed onto a parameter of its function: one variable, nothing lost
            // (recheck51 N3: humanize's `now = now or _now()` renamed onto `when` read as "line
            // 265 is lost; reportRedeclaration", while pyright and the 908 tests saw no change).
            let binding = renamed.what.rsplit_once(' ').map_or("assignment", |(kind, _)| kind);
            format!(
                "the renamed local and the parameter become one variable: the {binding} at line {} now rebinds the parameter, so a read of `{new_name}` after it reads the value bound there, not the argument (by position; branches not followed) — check the parameter's reads after line {}",
                renamed.line, renamed.line
            )
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
        let refuses = local_binding && merged.surely_changes_a_read();
        // Python: two parameters of one name, or a `def`/`class` on either side; a local and a
        // parameter become one variable instead (recheck51 N3: humanize's `now = now or _now()`
        // renamed onto the parameter `when` is safe — not staged).
        let def_or_class = |definition: &Definition| definition.what.starts_with("def ") || definition.what.starts_with("class ");
        let breaks = rust
            || (renamed.what.starts_with("parameter ") && existing.what.starts_with("parameter "))
            || (!local_binding && (def_or_class(renamed) || def_or_class(existing)));
        // The next step: a merge that changes no read stands as it is (review50 M9).
        let next_step = if !local_binding || refuses {
            "pick another name, or rename that one first"
        } else if merged.is_empty() {
            "nothing to undo as it stands, but from here on the two are one variable"
        } else {
            "if one of those reads can run after that binding, pick another name"
        };
        found.push(ItemFinding {
            text: format!(
                "{}: the renamed `{old_name}` becomes `{}`, which line {} already defines in the same scope (`{}`) — {consequence}; {next_step}",
                renamed.line, renamed.what, existing.line, existing.what
            ),
            refuses,
            breaks,
        });
    }
    found.extend(python_class_body_captures(&definitions, &python_reads, old_name, new_name));
    Some(found)
}

/// Python: reads of the new name in a class body (a class-level statement, a method's
/// decorator) whose nearest earlier definition of the name in that body is on the other side
/// of the rename — a renamed use now reading a member the class already defines, or a use that
/// was there now reading the renamed member. A class body reads its own earlier definitions
/// first, so the decorator or call silently gets the other symbol, and no checker reports it
/// when the types agree (trial177 F2: marshmallow's `validates_schema` renamed to
/// `validate_schema`, which test schemas define as a method before decorating the next one with
/// `@validate_schema(…)`: "no other definition … in the same scope", 4 tests failed, pyright
/// clean). One finding per definition, naming the reads; staged (`breaks`).
fn python_class_body_captures(definitions: &[Definition], reads: &[PythonRead], old_name: &str, new_name: &str) -> Vec<ItemFinding> {
    // (the capturing definition's index, the lines of the reads it captures, whether they are renamed uses)
    let mut captures: Vec<(usize, Vec<usize>, bool)> = Vec::new();
    for read in reads {
        let Some(scope) = &read.class_body_scope else { continue };
        let nearest = definitions
            .iter()
            .enumerate()
            .filter(|(_, definition)| definition.scope == *scope && definition.start < read.start)
            .max_by_key(|(_, definition)| definition.start);
        let Some((index, definition)) = nearest else { continue };
        if definition.renamed == read.renamed {
            continue;
        }
        match captures.iter_mut().find(|(known, _, _)| *known == index) {
            Some((_, lines, _)) => {
                if !lines.contains(&read.line) {
                    lines.push(read.line);
                }
            }
            None => captures.push((index, vec![read.line], read.renamed)),
        }
    }
    captures
        .into_iter()
        .map(|(index, mut lines, renamed_reads)| {
            lines.sort_unstable();
            let definition = &definitions[index];
            let text = if renamed_reads {
                format!(
                    "{}: the renamed use{} of `{old_name}` at {} {} `{new_name}` in a class body that already defines `{new_name}` at line {} (`{}`): a class body reads its own earlier definition first, so {} now {} that member, not the renamed symbol (a decorator then wraps with the member, a class-level call calls it) — no checker reports it when the types agree; pick another name, or rename that member first",
                    lines[0],
                    if lines.len() == 1 { "" } else { "s" },
                    line_list(lines.iter().copied()),
                    if lines.len() == 1 { "becomes" } else { "become" },
                    definition.line,
                    definition.what,
                    if lines.len() == 1 { "it" } else { "they" },
                    if lines.len() == 1 { "gets" } else { "get" },
                )
            } else {
                format!(
                    "{}: the renamed `{old_name}` becomes `{}` at line {}, in a class body that reads `{new_name}` after it at {} (another symbol until now: a module-level name, a builtin): a class body reads its own earlier definition first, so {} now {} the renamed member — no checker reports it when the types agree; pick another name",
                    definition.line,
                    definition.what,
                    definition.line,
                    line_list(lines.iter().copied()),
                    if lines.len() == 1 { "that read" } else { "those reads" },
                    if lines.len() == 1 { "gets" } else { "get" },
                )
            };
            ItemFinding { text, refuses: false, breaks: true }
        })
        .collect()
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
/// the function body it is local to — `None` at module or class level.
fn python_function_body(identifier: tree_sitter::Node<'_>) -> Option<ByteSpan> {
    let span = |node: tree_sitter::Node<'_>| (node.start_byte(), node.end_byte());
    let mut node = identifier;
    while let Some(up) = node.parent() {
        match up.kind() {
            "parameters" | "lambda_parameters" => return up.parent().and_then(|function| function.child_by_field_name("body")).map(span),
            "function_definition" => return up.child_by_field_name("body").map(span),
            "class_definition" | "module" | "lambda" => return None,
            _ => {}
        }
        node = up;
    }
    None
}

/// For a Python local's binding at `identifier`: the byte range it surely reaches whenever it
/// runs, and what its statement evaluates before binding it (a `for` loop's iterable, an
/// assignment's right side, a walrus's value, a `with … as` item's expression). The
/// range is a parameter's function body, an `except … as` clause, else the block holding the
/// binding's statement — a `with` body counts as the block around the `with` (it always runs),
/// and a `for` target as the block around its loop (bound once the loop runs: trial170 F2,
/// humanize's `for unit, fmt in …` captured the later `format`). A read outside the range gets
/// the value only through a branch or a loop (review50 H7: `if value is None: text = "none";
/// return text` does not surely reach the function's last line).
fn python_binding_reach(identifier: tree_sitter::Node<'_>) -> (Option<ByteSpan>, Option<ByteSpan>) {
    let span = |node: tree_sitter::Node<'_>| (node.start_byte(), node.end_byte());
    let mut not_reached = None;
    let mut node = identifier;
    while let Some(up) = node.parent() {
        match up.kind() {
            "parameters" | "lambda_parameters" => {
                return (up.parent().and_then(|function| function.child_by_field_name("body")).map(span), None);
            }
            // What the statement evaluates before it binds: a `for` loop's iterable, an
            // assignment's right side (`x = f(x)` reads the old `x`), a walrus's value, a
            // `with … as` item's expression.
            "for_statement" | "assignment" | "augmented_assignment"
                if not_reached.is_none() && up.child_by_field_name("left").is_some_and(|left| left.id() == node.id()) =>
            {
                not_reached = up.child_by_field_name("right").map(span);
            }
            "named_expression" if not_reached.is_none() && up.child_by_field_name("name").is_some_and(|name| name.id() == node.id()) => {
                not_reached = up.child_by_field_name("value").map(span);
            }
            "as_pattern" if not_reached.is_none() && up.child_by_field_name("alias").is_some_and(|alias| alias.id() == node.id()) => {
                not_reached = up.named_child(0).filter(|value| value.id() != node.id()).map(span);
            }
            "except_clause" | "except_group_clause" => return (Some(span(up)), not_reached),
            "function_definition" | "class_definition" | "lambda" => return (None, None),
            "module" => return (Some(span(up)), not_reached),
            "block" if up.parent().is_some_and(|owner| owner.kind() == "with_statement") => {}
            "block" => return (Some(span(up)), not_reached),
            _ => {}
        }
        node = up;
    }
    (None, None)
}

/// A read of the new name in a Python file after the rename (see [`python_variable_read`]).
struct PythonRead {
    /// Byte offset of the identifier in the renamed text.
    start: usize,
    /// 1-based line.
    line: usize,
    /// Whether the rename wrote it (a read of the renamed symbol), else a read that was there.
    renamed: bool,
    /// The body of the innermost function (`def`, `lambda`) or class around it: a read that was
    /// there belongs to a merged function's local only when this is that function's body.
    scope_body: Option<ByteSpan>,
    /// The loops around it in that scope that bring bindings after it back to it: a `for`
    /// loop's body, a `while` loop's condition and body (not a `for` loop's iterable, read once).
    loops: Vec<ByteSpan>,
    /// When the innermost scope around it is a class body (a class-level statement, a method's
    /// decorator): that body's scope key (the key [`python_definition`] gives its definitions),
    /// since a read there gets the class's own earlier definition of the name first.
    class_body_scope: Option<String>,
}

/// When the Python `identifier` (spelled as the new name) reads a variable: not an attribute's
/// or keyword argument's name, not a binding target (`is_binding`) save `x += …` (which reads
/// first), and not in a comprehension whose own `for` binds the name unless the rename wrote it
/// (`renamed`: the server renamed it as the renamed symbol's).
fn python_variable_read(identifier: tree_sitter::Node<'_>, text: &str, is_binding: bool, renamed: bool) -> Option<PythonRead> {
    let parent = identifier.parent()?;
    let is_field = |field: &str| parent.child_by_field_name(field).is_some_and(|node| node.id() == identifier.id());
    match parent.kind() {
        "attribute" if is_field("attribute") => return None,
        "keyword_argument" if is_field("name") => return None,
        "augmented_assignment" => {}
        _ if is_binding => return None,
        _ => {}
    }
    let name = text.get(identifier.start_byte()..identifier.end_byte())?;
    let start = identifier.start_byte();
    let mut loops = Vec::new();
    let mut scope_body = None;
    let mut class_body_scope = None;
    let mut node = identifier;
    while let Some(up) = node.parent() {
        let field_span = |field: &str| up.child_by_field_name(field).map(|part| (part.start_byte(), part.end_byte()));
        match up.kind() {
            "function_definition" | "lambda" | "class_definition" => {
                scope_body = field_span("body");
                if up.kind() == "class_definition" {
                    class_body_scope = up.child_by_field_name("body").map(|body| body.id().to_string());
                }
                break;
            }
            "module" => break,
            "for_statement" => loops.extend(field_span("body").filter(|(from, to)| (*from..*to).contains(&start))),
            "while_statement" => {
                if let (Some((from, _)), Some((_, to))) = (field_span("condition"), field_span("body")) {
                    loops.extend(Some((from, to)).filter(|_| (from..to).contains(&start)));
                }
            }
            "list_comprehension" | "set_comprehension" | "dictionary_comprehension" | "generator_expression" if !renamed => {
                let mut cursor = up.walk();
                let binds_the_name = up
                    .named_children(&mut cursor)
                    .filter(|clause| clause.kind() == "for_in_clause")
                    .any(|clause| clause.child_by_field_name("left").is_some_and(|left| python_pattern_binds(left, text, name)));
                if binds_the_name {
                    return None;
                }
            }
            _ => {}
        }
        node = up;
    }
    Some(PythonRead { start, line: identifier.start_position().row + 1, renamed, scope_body, loops, class_body_scope })
}

/// Whether the Python target `pattern` (`x`, `a, (b, c)`, `[a, *b]`) binds `name`.
fn python_pattern_binds(pattern: tree_sitter::Node<'_>, text: &str, name: &str) -> bool {
    if pattern.kind() == "identifier" {
        return text.get(pattern.start_byte()..pattern.end_byte()) == Some(name);
    }
    let mut cursor = pattern.walk();
    let children: Vec<_> = pattern.named_children(&mut cursor).collect();
    children.into_iter().any(|child| child.kind() != "attribute" && child.kind() != "subscript" && python_pattern_binds(child, text, name))
}

/// Whether a read of a merged variable reads a value its own symbol did not bind, and the line
/// of the binding that decides it ([`python_read_capture`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Capture {
    /// A binding of its own comes between (or no binding of the other comes before).
    No,
    /// Only through a branch or loop the read is not inside: the flow decides.
    Possibly(usize),
    /// The nearest binding before it by position, in a block that holds it (or on a loop's way
    /// back), is the other's.
    Certainly(usize),
}

impl Capture {
    fn rank(self) -> u8 {
        match self {
            Capture::No => 0,
            Capture::Possibly(_) => 1,
            Capture::Certainly(_) => 2,
        }
    }
}

/// Walks `walk` (bindings of one merged variable, nearest first on a path back from the read at
/// byte `read`): the first binding that surely reaches the read decides — one of the read's own
/// symbol (`own`) keeps its value, the other's takes it — and one in a branch the read is not
/// inside makes the answer [`Capture::Possibly`]. `skip_iterables`: a binding is none for a read
/// its own statement evaluates first (a `for` loop's iterable, an assignment's right side) on
/// the straight path, where it is bound after the read.
fn capture_along<'d>(
    walk: impl Iterator<Item = &'d Definition>,
    read: usize,
    own: &dyn Fn(&Definition) -> bool,
    skip_iterables: bool,
) -> Capture {
    let holds = |span: Option<ByteSpan>| span.is_some_and(|(from, to)| (from..to).contains(&read));
    let mut own_in_a_branch = false;
    let mut other_in_a_branch = None;
    for binding in walk {
        if skip_iterables && holds(binding.not_reached) {
            continue;
        }
        match (own(binding), holds(binding.reach)) {
            (true, true) => return other_in_a_branch.map_or(Capture::No, Capture::Possibly),
            (false, true) => return if own_in_a_branch { Capture::Possibly(binding.line) } else { Capture::Certainly(binding.line) },
            (true, false) => own_in_a_branch = true,
            (false, false) => {
                other_in_a_branch.get_or_insert(binding.line);
            }
        }
    }
    other_in_a_branch.map_or(Capture::No, Capture::Possibly)
}

/// Whether `read` reads a value of the other symbol once a rename merges two locals of a
/// function (`bindings`: every binding of the new name in that function, renamed or not, sorted
/// by position): on the straight path by the nearest binding before it, and in each loop around
/// it by the bindings after it in that loop, from the second iteration on. Control flow is
/// followed by position only: a `return`, `break` or `continue` between is not (review50 H7).
fn python_read_capture(bindings: &[&Definition], read: &PythonRead) -> Capture {
    let own = |binding: &Definition| binding.renamed == read.renamed;
    let at = read.start;
    let straight = capture_along(bindings.iter().rev().copied().filter(|binding| binding.start < at), at, &own, true);
    read.loops.iter().fold(straight, |worst, (from, to)| {
        let in_loop = |binding: &&Definition| (*from..*to).contains(&binding.start);
        let iterable_holds_read = |binding: &&Definition| binding.not_reached.is_some_and(|(start, end)| (start..end).contains(&at));
        let before =
            bindings.iter().rev().copied().filter(|binding| in_loop(binding) && binding.start < at && !iterable_holds_read(binding));
        let after =
            bindings.iter().rev().copied().filter(|binding| in_loop(binding) && (binding.start > at || iterable_holds_read(binding)));
        let looped = capture_along(before.chain(after), at, &own, false);
        if looped.rank() > worst.rank() {
            looped
        } else {
            worst
        }
    })
}

/// The reads of two Python locals a rename merges into one variable whose value changes
/// ([`python_merged_reads`]): each (read line, line of the binding that decides it).
#[derive(Debug, Default)]
struct MergedReads {
    /// Renamed reads the other local's binding surely reaches.
    renamed_surely: Vec<(usize, usize)>,
    /// Renamed reads the other local's binding reaches only through a branch or loop.
    renamed_possibly: Vec<(usize, usize)>,
    /// The other local's reads a renamed binding surely reaches.
    other_surely: Vec<(usize, usize)>,
    /// The other local's reads a renamed binding reaches only through a branch or loop.
    other_possibly: Vec<(usize, usize)>,
}

/// Reads how the two locals of the function whose body is `body` read each other's values once
/// merged (`definitions`: every definition of the new name in the file; `reads`: every read).
fn python_merged_reads(definitions: &[Definition], reads: &[PythonRead], body: ByteSpan) -> MergedReads {
    let bindings: Vec<&Definition> = definitions.iter().filter(|binding| binding.function_body == Some(body)).collect();
    let mut merged = MergedReads::default();
    for read in reads {
        let in_function = if read.renamed { (body.0..body.1).contains(&read.start) } else { read.scope_body == Some(body) };
        if !in_function {
            continue;
        }
        let (surely, possibly) = if read.renamed {
            (&mut merged.renamed_surely, &mut merged.renamed_possibly)
        } else {
            (&mut merged.other_surely, &mut merged.other_possibly)
        };
        match python_read_capture(&bindings, read) {
            Capture::Certainly(binding_line) => surely.push((read.line, binding_line)),
            Capture::Possibly(binding_line) => possibly.push((read.line, binding_line)),
            Capture::No => {}
        }
    }
    merged
}

/// `line 5`, `lines 5 and 9`, `lines 5, 9 and 12` (sorted, each once; past 6, `and N more`).
fn line_list(lines: impl Iterator<Item = usize>) -> String {
    let mut lines: Vec<usize> = lines.collect();
    lines.sort_unstable();
    lines.dedup();
    let shown: Vec<String> = lines.iter().take(6).map(usize::to_string).collect();
    let more = lines.len().saturating_sub(6);
    match (shown.as_slice(), more) {
        ([one], _) => format!("line {one}"),
        (_, 0) => format!("lines {} and {}", shown[..shown.len() - 1].join(", "), shown[shown.len() - 1]),
        _ => format!("lines {} and {more} more", shown.join(", ")),
    }
}

impl MergedReads {
    fn is_empty(&self) -> bool {
        self.renamed_surely.is_empty() && self.renamed_possibly.is_empty() && self.other_surely.is_empty() && self.other_possibly.is_empty()
    }

    /// A read that surely gets another value: the rename is refused.
    fn surely_changes_a_read(&self) -> bool {
        !self.renamed_surely.is_empty() || !self.other_surely.is_empty()
    }

    /// What the merge does to the reads, for a finding: `binding` is the other local's binding
    /// kind (`assignment`, `for target`), `parameter` whether the renamed symbol is a parameter.
    /// Sure reads are said as fact with the position rule they follow; reads a binding reaches
    /// only through a branch are said as "may" (review50 M9).
    fn text(&self, old_name: &str, binding: &str, parameter: bool) -> String {
        let reads = |found: &[(usize, usize)]| line_list(found.iter().map(|(read, _)| *read));
        let bindings = |found: &[(usize, usize)]| line_list(found.iter().map(|(_, binding)| *binding));
        let instead = if parameter { " instead of the argument" } else { "" };
        let silently = if parameter { "with no error when the parameter has no annotation" } else { "with no error" };
        let mut parts = Vec::new();
        if !self.renamed_surely.is_empty() {
            parts.push(format!(
                "{} of `{old_name}` ({}) would read the value the {binding} at {} binds{instead}, {silently}",
                crate::render::plural(self.renamed_surely.len(), "renamed read"),
                reads(&self.renamed_surely),
                bindings(&self.renamed_surely),
            ));
        }
        if !self.other_surely.is_empty() {
            parts.push(format!(
                "{} of that local ({}) would read the value the renamed `{old_name}` binds at {}, {silently}",
                crate::render::plural(self.other_surely.len(), "read"),
                reads(&self.other_surely),
                bindings(&self.other_surely),
            ));
        }
        if let Some(last) = parts.last_mut() {
            last.push_str(" (by position: the nearest binding before the read in a block that holds it, or after it in a loop around it; a `return`, `break` or `continue` between is not followed)");
        }
        let branch_note = |count: usize| {
            format!(
                "(by position; branches not followed: that binding sits in a branch or loop {} not inside) — check {}",
                crate::render::one_or_many(count, "the read is", "the reads are"),
                crate::render::one_or_many(count, "it", "them"),
            )
        };
        if !self.renamed_possibly.is_empty() {
            parts.push(format!(
                "{} of `{old_name}` ({}) may read the value the {binding} at {} binds{instead} {}",
                crate::render::plural(self.renamed_possibly.len(), "renamed read"),
                reads(&self.renamed_possibly),
                bindings(&self.renamed_possibly),
                branch_note(self.renamed_possibly.len()),
            ));
        }
        if !self.other_possibly.is_empty() {
            parts.push(format!(
                "{} of that local ({}) may read the value the renamed `{old_name}` binds at {} {}",
                crate::render::plural(self.other_possibly.len(), "read"),
                reads(&self.other_possibly),
                bindings(&self.other_possibly),
                branch_note(self.other_possibly.len()),
            ));
        }
        if parts.is_empty() {
            return "no read of either reads a value the other binds (by position: a binding of its own comes nearer before each read), so what the reads get is unchanged".to_owned();
        }
        parts.join("; ")
    }
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
    fn a_renamed_use_in_a_class_body_that_defines_the_new_name_earlier_is_captured() {
        // marshmallow 4.4.0 (trial177 F2): `validates_schema` → `validate_schema`, which a test
        // schema defines as a method before decorating the next one with it.
        let source = "from lib import validates_schema\n\n\nclass A:\n    def validate_schema(self):\n        return 1\n\n    @validates_schema\n    def other(self):\n        return 2\n\n    @validates_schema\n    def third(self):\n        return 3\n\n\nclass B:\n    @validates_schema\n    def first(self):\n        return 0\n\n    def validate_schema(self):\n        return 1\n\n\ndef f(self):\n    return validates_schema\n";
        let new = crate::lsp::rename_coverage::text_with_word_renamed(source, "validates_schema", "validate_schema");
        let renamed = crate::lsp::rename_taken_names::renamed_offsets(source, &new, "validates_schema", "validate_schema");
        let found = file_findings(Path::new("t.py"), &new, &renamed, "validates_schema", "validate_schema").expect("parsed");
        // Only class A's two decorators: class B's decorator comes before its method, and a
        // function body does not read class-level names.
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].breaks, "{found:?}");
        assert!(
            found[0].text.starts_with("8: the renamed uses of `validates_schema` at lines 8 and 12 become `validate_schema` in a class body that already defines `validate_schema` at line 5 (`def validate_schema`)"),
            "{found:?}"
        );
        // The other way: a method renamed onto a name the class body reads after it (a
        // module-level decorator).
        let source = "from lib import deco\n\n\nclass A:\n    def check(self):\n        return 1\n\n    @deco\n    def other(self):\n        return 2\n";
        let found = findings("t.py", source, "check", "deco");
        assert!(
            found.iter().any(|text| text
                .starts_with("5: the renamed `check` becomes `def deco` at line 5, in a class body that reads `deco` after it at line 8")),
            "{found:?}"
        );
        // A name no class body reads: nothing.
        assert!(findings("t.py", source, "check", "verify").is_empty());
    }

    #[test]
    fn a_parameter_renamed_onto_a_later_assignment_says_which_uses_change() {
        // humanize 4.10.0 (trial57 M2): `minimum_unit` → `min_unit`, assigned at the end.
        let source = "def f(minimum_unit: str = \"s\") -> str:\n    tmp = minimum_unit.upper()\n    min_unit = tmp\n    return min_unit\n";
        let found = findings("a.py", source, "minimum_unit", "min_unit");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains(
                "the assignment at line 3 now rebinds the parameter (one local): no read of either reads a value the other binds"
            ),
            "{found:?}"
        );
        assert!(!found[0].contains("every renamed use"), "{found:?}");
        let source = "def f(minimum_unit: str) -> str:\n    min_unit = 'x'\n    return minimum_unit\n";
        let found = findings("a.py", source, "minimum_unit", "min_unit");
        assert!(
            found[0].contains(
                "1 renamed read of `minimum_unit` (line 3) would read the value the assignment at line 2 binds instead of the argument"
            ),
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
            found[0].text.starts_with("1: the renamed `format` becomes `parameter fmt`, which line 3 already defines in the same scope (`for target fmt`) — the for target at line 3 now rebinds the parameter (one local): 1 renamed read of `format` (line 5) would read the value the for target at line 3 binds"),
            "{found:?}"
        );
        // A use earlier in a loop whose body rebinds the name reads it from the second iteration.
        let looped =
            "def f(items, label):\n    for item in items:\n        print(label)\n        with open(item) as handle:\n            pass\n";
        assert!(findings("a.py", looped, "label", "handle")[0].contains(
            "the with target at line 4 now rebinds the parameter (one local): 1 renamed read of `label` (line 3) would read the value the with target at line 4 binds"
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
        assert!(
            found.len() == 1 && !found[0].refuses && found[0].text.contains("no read of either reads a value the other binds"),
            "{found:?}"
        );
        // Two locals of one function merged by a rename.
        let locals = "def f():\n    total = 1\n    count = 2\n    return total + count\n";
        let new = crate::lsp::rename_coverage::text_with_word_renamed(locals, "total", "count");
        let renamed = crate::lsp::rename_taken_names::renamed_offsets(locals, &new, "total", "count");
        let found = file_findings(Path::new("a.py"), &new, &renamed, "total", "count").expect("parsed");
        assert!(
            found.len() == 1
                && found[0].refuses
                && found[0].text.contains(
                    "two locals of the function become one variable: 1 renamed read of `total` (line 4) would read the value the assignment at line 3 binds"
                ),
            "{found:?}"
        );
    }

    /// The findings of renaming every whole word `old` to `new` in the Python `source`.
    fn renamed_findings(source: &str, old: &str, new: &str) -> Vec<ItemFinding> {
        let renamed_text = crate::lsp::rename_coverage::text_with_word_renamed(source, old, new);
        let renamed = crate::lsp::rename_taken_names::renamed_offsets(source, &renamed_text, old, new);
        file_findings(Path::new("a.py"), &renamed_text, &renamed, old, new).expect("parsed")
    }

    #[test]
    fn only_a_duplicate_def_class_or_parameter_breaks_and_stages_the_rename() {
        // trial176 M6 (staged), recheck51 N3 (humanize's `now = now or _now()` renamed onto the
        // parameter `when`: one variable, safe — not staged).
        let local_onto_parameter = "def delta(value, when=None):\n    now = when or 0\n    return value - now\n";
        let found = renamed_findings(local_onto_parameter, "now", "when");
        assert!(found.iter().all(|finding| !finding.breaks), "{found:?}");
        assert!(
            found.len() == 1
                && found[0].text.contains(
                    "the renamed local and the parameter become one variable: the assignment at line 2 now rebinds the parameter"
                ),
            "{found:?}"
        );
        let def_onto_def = "def first():\n    return 1\n\n\ndef second():\n    return 2\n";
        let found = renamed_findings(def_onto_def, "first", "second");
        assert!(found.len() == 1 && found[0].breaks, "{found:?}");
        let parameter_onto_parameter = "def pair(left, right):\n    return left, right\n";
        let found = renamed_findings(parameter_onto_parameter, "left", "right");
        assert!(!found.is_empty() && found.iter().all(|finding| finding.breaks), "{found:?}");
    }

    #[test]
    fn locals_merged_by_a_rename_are_not_refused_where_no_read_surely_gets_the_other_value() {
        // review50 H7, 1: sequential reuse — the renamed binding comes after the other local's
        // last read, and is itself no read.
        let sequential = "def summarize(values):\n    count = len(values)\n    print(count)\n    total = sum(values)\n    return total\n";
        let found = renamed_findings(sequential, "total", "count");
        assert!(found.len() == 1 && !found[0].refuses, "{found:?}");
        assert!(found[0].text.contains("become one variable: no read of either reads a value the other binds"), "{found:?}");
        // 2: the other binding sits in a branch (that returns); the read is after the branch:
        // said as "may", not refused.
        let branch = "def describe(value, label=None):\n    if value is None:\n        text = \"none\"\n        return text\n    return f\"{value}: {label}\"\n";
        let found = renamed_findings(branch, "label", "text");
        assert!(found.len() == 1 && !found[0].refuses, "{found:?}");
        assert!(
            found[0].text.contains("1 renamed read of `label` (line 5) may read the value the assignment at line 3 binds instead of the argument (by position; branches not followed"),
            "{found:?}"
        );
        // 3: a loop's iterable is read once, before its target is bound.
        let iterable = "def first(items):\n    for item in items:\n        return item\n";
        let found = renamed_findings(iterable, "items", "item");
        assert!(found.len() == 1 && !found[0].refuses && found[0].text.contains("no read of either"), "{found:?}");
        // An assignment's right side is read before its target is bound.
        let right_side = "def f(label):\n    text = label.upper()\n    return text\n";
        let found = renamed_findings(right_side, "label", "text");
        assert!(found.len() == 1 && !found[0].refuses && found[0].text.contains("no read of either"), "{found:?}");
        // A binding of the other in a `while` body: said as "may".
        let looped = "def f(label):\n    while label:\n        text = 1\n        break\n";
        let found = renamed_findings(looped, "label", "text");
        assert!(
            found.len() == 1 && !found[0].refuses && found[0].text.contains("(line 2) may read the value the assignment at line 3 binds"),
            "{found:?}"
        );
        // Renamed keyword names and attributes are no reads; a comprehension's own target is
        // another scope.
        let names = "def f(total, obj):\n    count = 1\n    obj.total = g(total=2)\n    return [count for count in obj]\n";
        let found = renamed_findings(names, "total", "count");
        assert!(found.len() == 1 && !found[0].refuses, "{found:?}");
    }

    #[test]
    fn locals_merged_by_a_rename_are_refused_where_a_read_surely_gets_the_other_value() {
        // A renamed read in the same block after the other binding, or in a nested block.
        let same_block = "def f(label):\n    text = \"none\"\n    return label\n";
        assert!(renamed_findings(same_block, "label", "text")[0].refuses);
        let nested = "def f(label, flag):\n    text = 1\n    if flag:\n        print(label)\n";
        assert!(renamed_findings(nested, "label", "text")[0].refuses);
        // `x += 1` reads first.
        let augmented = "def f():\n    total = 0\n    count = 5\n    total += 1\n    return total\n";
        let found = renamed_findings(augmented, "total", "count");
        assert!(found.len() == 1 && found[0].refuses, "{found:?}");
        assert!(
            found[0].text.contains("1 renamed read of `total` (line 4) would read the value the assignment at line 3 binds"),
            "{found:?}"
        );
        // The other local's read after a renamed binding reads the renamed value.
        let reverse = "def f():\n    count = 5\n    total = 0\n    return count\n";
        let found = renamed_findings(reverse, "total", "count");
        assert!(found.len() == 1 && found[0].refuses, "{found:?}");
        assert!(
            found[0].text.contains("1 read of that local (line 4) would read the value the renamed `total` binds at line 3"),
            "{found:?}"
        );
        // A loop's back edge: the read comes first in the loop, the other binding later in it,
        // and an inner loop's iterable is read again on each pass of the outer loop.
        let back_edge = "def f(rows, label):\n    for row in rows:\n        print(label)\n        text = row\n";
        let found = renamed_findings(back_edge, "label", "text");
        assert!(found[0].refuses && found[0].text.contains("1 renamed read of `label` (line 3)"), "{found:?}");
        let inner = "def f(rows, cells):\n    for row in rows:\n        for cell in cells:\n            pass\n";
        let found = renamed_findings(inner, "cells", "cell");
        assert!(found[0].refuses && found[0].text.contains("1 renamed read of `cells` (line 3)"), "{found:?}");
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
