//! The wrapping contexts of the pattern compiler, as data: one row per language (R-AST-4).
//!
//! A fragment such as Dart `dispose(x)` means different things at different places of a file:
//! bare at the top level it is a function signature, inside a function body it is a call. The
//! compiler embeds the fragment between a context's `prefix` and `suffix`, parses the whole,
//! and accepts the first context (in table order: statement, expression, class member,
//! declaration, type) whose parse is clean. Adding or fixing a language is a change to this
//! table, not to the compiler.
//!
//! The type context comes last: a fragment such as `Vec<$T>` or `Either<$L, $R>` parses in no
//! earlier context of Rust, so it compiles as a type node there. Where an earlier context also
//! accepts a type-shaped fragment with another meaning (Python `List[$T]` is a subscript
//! expression, Go `*$T` a dereference), the compiler keeps the earlier reading and adds the type
//! reading as an alternative, so both positions are searched (see `compile`).

use ast_grep_language::SupportLang;

/// Where in a file a fragment is parsed, in the order the compiler tries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContextKind {
    /// Inside a function body: `if (…) …`, `x.dispose()`, `let a = b;`.
    Statement,
    /// On the right-hand side of an assignment: `a + b`, `dispose(x)`.
    Expression,
    /// Inside a class (or struct / impl) body: methods, fields.
    ClassMember,
    /// At the top level of a file, bare: functions, classes, imports.
    Declaration,
    /// In a type position: `Vec<$T>`, `Map<$K, $V>`, `List[$T]`, `*$T`.
    Type,
}

impl ContextKind {
    /// The snake_case name used in results and errors, e.g. `class_member`.
    pub fn as_str(self) -> &'static str {
        crate::schema::variant_name(&self).unwrap_or("statement")
    }
}

/// One wrapping context: the fragment is parsed as `prefix + fragment + suffix`.
#[derive(Debug, Clone, Copy)]
pub struct PatternContext {
    /// Which kind of place this is.
    pub kind: ContextKind,
    /// Source text before the fragment.
    pub prefix: &'static str,
    /// Source text after the fragment.
    pub suffix: &'static str,
}

/// The compiler's knowledge of one language.
#[derive(Debug, Clone, Copy)]
pub struct LanguageContexts {
    /// The contexts, tried in order.
    pub contexts: &'static [PatternContext],
    /// The statement terminator tried after the fragment when the fragment as written is not
    /// accepted (`;` in C-like languages), `None` where newlines end statements.
    pub statement_terminator: Option<&'static str>,
    /// `true` where `$` is an identifier character of the language (Dart, JavaScript, Java …):
    /// there a lower-case `$x` is an ordinary identifier that matches literally, so the
    /// compiler warns about it.
    pub dollar_is_identifier_char: bool,
    /// Leading keywords of a fragment that is read as a top-level declaration first, where the
    /// statement context gives it another, clean reading: Go `func (r *T) M() *T { … }` in a
    /// function body is a func-type conversion times a composite literal (a `binary_expression`
    /// that matches nothing; trial153 F2), and at the top level a `method_declaration`, as the
    /// ast-grep CLI reads it. A fragment the declaration context does not parse cleanly (a func
    /// literal `func($X) { … }`) goes on in table order.
    pub declaration_first_keywords: &'static [&'static str],
}

const fn ctx(kind: ContextKind, prefix: &'static str, suffix: &'static str) -> PatternContext {
    PatternContext { kind, prefix, suffix }
}

use ContextKind::{ClassMember, Declaration, Expression, Statement, Type};

const DART: &[PatternContext] = &[
    ctx(Statement, "void __sg_ctx() {\n", "\n}\n"),
    ctx(Expression, "var __sg_ctx = ", ";\n"),
    ctx(ClassMember, "class __SgCtx {\n", "\n}\n"),
    ctx(Declaration, "", "\n"),
    ctx(Type, "", " __sg_ctx;\n"),
];
const RUST: &[PatternContext] = &[
    ctx(Statement, "fn __sg_ctx() {\n", "\n}\n"),
    ctx(Expression, "const __SG_CTX: () = ", ";\n"),
    ctx(ClassMember, "impl __SgCtx {\n", "\n}\n"),
    ctx(Declaration, "", "\n"),
    ctx(Type, "type __SgCtx = ", ";\n"),
];
const C: &[PatternContext] = &[
    ctx(Statement, "void __sg_ctx(void) {\n", "\n}\n"),
    ctx(Expression, "void *__sg_ctx = ", ";\n"),
    ctx(ClassMember, "struct __SgCtx {\n", "\n};\n"),
    ctx(Declaration, "", "\n"),
    ctx(Type, "", " __sg_ctx;\n"),
];
const CPP: &[PatternContext] = &[
    ctx(Statement, "void __sg_ctx() {\n", "\n}\n"),
    ctx(Expression, "auto __sg_ctx = ", ";\n"),
    ctx(ClassMember, "class __SgCtx {\n", "\n};\n"),
    ctx(Declaration, "", "\n"),
    ctx(Type, "", " __sg_ctx;\n"),
];
const CSHARP: &[PatternContext] = &[
    ctx(Statement, "class __SgCtx { void __sg_ctx() {\n", "\n} }\n"),
    ctx(Expression, "class __SgCtx { object __sg_ctx = ", "; }\n"),
    ctx(ClassMember, "class __SgCtx {\n", "\n}\n"),
    ctx(Declaration, "", "\n"),
    ctx(Type, "class __SgCtx {\n", " __sg_ctx;\n}\n"),
];
const JAVA: &[PatternContext] = &[
    ctx(Statement, "class __SgCtx { void __sg_ctx() {\n", "\n} }\n"),
    ctx(Expression, "class __SgCtx { Object __sg_ctx = ", "; }\n"),
    ctx(ClassMember, "class __SgCtx {\n", "\n}\n"),
    ctx(Declaration, "", "\n"),
    ctx(Type, "class __SgCtx {\n", " __sg_ctx;\n}\n"),
];
const JAVASCRIPT: &[PatternContext] = &[
    ctx(Statement, "function __sg_ctx() {\n", "\n}\n"),
    ctx(Expression, "const __sg_ctx = ", ";\n"),
    ctx(ClassMember, "class __SgCtx {\n", "\n}\n"),
    ctx(Declaration, "", "\n"),
];
const TYPESCRIPT: &[PatternContext] = &[
    ctx(Statement, "function __sg_ctx() {\n", "\n}\n"),
    ctx(Expression, "const __sg_ctx = ", ";\n"),
    ctx(ClassMember, "class __SgCtx {\n", "\n}\n"),
    ctx(Declaration, "", "\n"),
    ctx(Type, "let __sg_ctx: ", ";\n"),
];
const GO: &[PatternContext] = &[
    ctx(Statement, "package __sg\nfunc __sg_ctx() {\n", "\n}\n"),
    ctx(Expression, "package __sg\nvar __sg_ctx = ", "\n"),
    ctx(ClassMember, "package __sg\ntype __SgCtx struct {\n", "\n}\n"),
    ctx(Declaration, "package __sg\n", "\n"),
    ctx(Type, "package __sg\nvar __sg_ctx ", "\n"),
];
const KOTLIN: &[PatternContext] = &[
    ctx(Statement, "fun __sg_ctx() {\n", "\n}\n"),
    ctx(Expression, "val __sg_ctx = ", "\n"),
    ctx(ClassMember, "class __SgCtx {\n", "\n}\n"),
    ctx(Declaration, "", "\n"),
    ctx(Type, "val __sg_ctx: ", " = TODO()\n"),
];
const SWIFT: &[PatternContext] = &[
    ctx(Statement, "func __sg_ctx() {\n", "\n}\n"),
    ctx(Expression, "let __sg_ctx = ", "\n"),
    ctx(ClassMember, "class __SgCtx {\n", "\n}\n"),
    ctx(Declaration, "", "\n"),
    ctx(Type, "let __sg_ctx: ", "\n"),
];
const SCALA: &[PatternContext] = &[
    ctx(Statement, "def __sg_ctx() = {\n", "\n}\n"),
    ctx(Expression, "val __sg_ctx = ", "\n"),
    ctx(ClassMember, "class __SgCtx {\n", "\n}\n"),
    ctx(Declaration, "", "\n"),
    ctx(Type, "val __sg_ctx: ", " = ???\n"),
];
const PHP: &[PatternContext] = &[
    ctx(Statement, "function __sg_ctx() {\n", "\n}\n"),
    ctx(Expression, "$__sg_ctx = ", ";\n"),
    ctx(ClassMember, "class __SgCtx {\n", "\n}\n"),
    ctx(Declaration, "", "\n"),
    ctx(Type, "function __sg_ctx(", " $__sg_arg) {}\n"),
];
const SOLIDITY: &[PatternContext] = &[
    ctx(Statement, "contract __SgCtx { function __sg_ctx() public {\n", "\n} }\n"),
    ctx(ClassMember, "contract __SgCtx {\n", "\n}\n"),
    ctx(Declaration, "", "\n"),
    ctx(Type, "contract __SgCtx {\n", " __sg_ctx;\n}\n"),
];
const LUA: &[PatternContext] =
    &[ctx(Statement, "", "\n"), ctx(Expression, "local __sg_ctx = ", "\n"), ctx(ClassMember, "local __SgCtx = {\n", "\n}\n")];
// Python and Ruby bodies are indentation- or `end`-delimited: their top level already accepts
// statements, so the bare parse is the statement context; the expression context parenthesizes.
const PYTHON: &[PatternContext] = &[ctx(Statement, "", "\n"), ctx(Expression, "__sg_ctx = (\n", "\n)\n"), ctx(Type, "__sg_ctx: ", "\n")];
const RUBY: &[PatternContext] =
    &[ctx(Statement, "", "\n"), ctx(Expression, "__sg_ctx = (\n", "\n)\n"), ctx(ClassMember, "class SgCtx\n", "\nend\n")];
const ELIXIR: &[PatternContext] = &[ctx(Statement, "", "\n"), ctx(ClassMember, "defmodule SgCtx do\n", "\nend\n")];
const HASKELL: &[PatternContext] = &[ctx(Declaration, "", "\n"), ctx(Expression, "sgCtx = ", "\n"), ctx(Type, "sgCtx :: ", "\n")];
const BARE: &[PatternContext] = &[ctx(Declaration, "", "\n")];

/// The context table of `language`.
pub fn language_contexts(language: SupportLang) -> LanguageContexts {
    use SupportLang as L;
    let (contexts, statement_terminator, dollar_is_identifier_char) = match language {
        L::Dart => (DART, Some(";"), true),
        L::Rust => (RUST, Some(";"), false),
        L::C => (C, Some(";"), false),
        L::Cpp => (CPP, Some(";"), false),
        L::CSharp => (CSHARP, Some(";"), false),
        L::Java => (JAVA, Some(";"), true),
        L::JavaScript => (JAVASCRIPT, Some(";"), true),
        L::TypeScript | L::Tsx => (TYPESCRIPT, Some(";"), true),
        L::Go => (GO, None, false),
        L::Kotlin => (KOTLIN, None, false),
        L::Swift => (SWIFT, None, false),
        L::Scala => (SCALA, None, true),
        L::Php => (PHP, Some(";"), false),
        L::Solidity => (SOLIDITY, Some(";"), true),
        L::Lua => (LUA, None, false),
        L::Python => (PYTHON, None, false),
        L::Ruby => (RUBY, None, false),
        L::Elixir => (ELIXIR, None, false),
        L::Haskell => (HASKELL, None, false),
        L::Bash | L::Css | L::Hcl | L::Html | L::Json | L::Markdown | L::Nix | L::Yaml | L::Zig => (BARE, None, false),
    };
    let declaration_first_keywords: &'static [&'static str] = match language {
        L::Go => &["func"],
        _ => &[],
    };
    LanguageContexts { contexts, statement_terminator, dollar_is_identifier_char, declaration_first_keywords }
}
