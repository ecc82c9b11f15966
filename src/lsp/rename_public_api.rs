//! What a Rust or Go rename does to a library's public API (R-REN-1; issue 11, trial27b M9).
//!
//! rust-analyzer renames a crate-root re-export along with the item: csv-core 0.1.13's
//! `src/lib.rs` has `pub use crate::writer::{is_non_numeric, …}`, and renaming `is_non_numeric`
//! to `is_not_numeric` rewrote it, so `csv_core::is_non_numeric` — a name every dependent crate
//! may use — disappeared, and the answer did not say so; gopls renames an exported identifier
//! (`cron.Every`) the same way. [`public_api_notes`] reads the plan's own texts (before and after)
//! and says which public path changes and how to keep the old one:
//!
//! - Rust (a crate with a library target: its Cargo.toml's `[lib] path`, else `src/lib.rs`): a `pub use`
//!   statement the rename changes that no longer exports the old name (`pub use new as old;`
//!   keeps it), and a `pub` item or field (not `pub(crate)`/`pub(super)`/`pub(in …)`) whose
//!   module is reachable from the crate root through `pub mod` declarations (read from disk);
//!   a method is public when its type is, which is not checked (said in the note). A variant, a
//!   struct-like variant's field and a trait's method, type or const carry no `pub`: they are
//!   public when their enum or trait is plain `pub` in such a module (trial43 F1).
//! - Go: an exported identifier (capitalized) declared in a non-test file of a package that is
//!   not `main` and not under an `internal/` directory; the note names the import path (the
//!   `module` of the nearest go.mod and the directory) and the alias that keeps the old name —
//!   `type Old = New`, `var Old = New` for a function, `const Old = New` — or says none exists
//!   (a method, a field, a variable, whose copy would not be shared).

use std::path::Path;

use crate::files::ExpectedState;
use crate::lsp::rename::WorkspaceEditPlan;

/// One `note: public API changed: …` line per public name of a Rust library crate, a Go
/// package or an npm package's TypeScript entry points
/// ([`crate::lsp::rename_public_typescript`]) that `plan` (the rename of `old_name` to
/// `new_name`) changes, with the file:line
/// (1-based) and the way to keep the old name; empty when none changes or for other languages.
pub fn public_api_notes(workspace_root: &Path, plan: &WorkspaceEditPlan, old_name: &str, new_name: &str) -> Vec<String> {
    let mut notes = Vec::new();
    // TypeScript's, folded at the end: one renamed member of many exported declarations is one
    // note (trial168 M1).
    let mut typescript_notes = Vec::new();
    for change in &plan.changes {
        let (ExpectedState::Content(old_bytes), Some(new_bytes)) = (&change.expected, &change.new_content) else { continue };
        let old_text = String::from_utf8_lossy(old_bytes);
        let new_text = String::from_utf8_lossy(new_bytes);
        let old_lines: Vec<&str> = old_text.lines().collect();
        let new_lines: Vec<&str> = new_text.lines().collect();
        // The rename edits within lines: the line count is kept, so line i before is line i after.
        if old_lines.len() != new_lines.len() {
            continue;
        }
        let changed: Vec<usize> = (0..old_lines.len()).filter(|&index| old_lines[index] != new_lines[index]).collect();
        if changed.is_empty() {
            continue;
        }
        let shown = crate::render::display_path(workspace_root, &change.path);
        match change.path.extension().and_then(|ext| ext.to_str()) {
            Some("rs") => {
                notes.extend(rust_notes(workspace_root, &change.path, &shown, &old_lines, &new_lines, &changed, old_name, new_name))
            }
            Some("go") => {
                notes.extend(go_notes(workspace_root, &change.path, &shown, &old_lines, &new_lines, &changed, old_name, new_name))
            }
            Some("ts" | "tsx" | "mts" | "cts") => {
                typescript_notes.extend(crate::lsp::rename_public_typescript::typescript_public_api_notes(
                    workspace_root,
                    plan,
                    &change.path,
                    &shown,
                    &old_lines,
                    &changed,
                    old_name,
                    new_name,
                ))
            }
            _ => (),
        }
    }
    notes.extend(crate::lsp::rename_public_typescript::fold_member_notes(typescript_notes));
    notes
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    !crate::lsp::rename_coverage::word_positions(text, word).is_empty()
}

/// The library crate holding `path`: (its Cargo.toml's directory, the crate's name as code
/// spells it, its library root file). The library target is the `[lib]` section's `path`, else
/// `src/lib.rs` (Cargo's default), and must exist. `None` when the nearest Cargo.toml (up to the
/// workspace root) has no library target, or is a virtual manifest.
pub(crate) fn rust_library_crate(workspace_root: &Path, path: &Path) -> Option<(std::path::PathBuf, String, std::path::PathBuf)> {
    let mut directory = path.parent();
    while let Some(current) = directory.filter(|current| current.starts_with(workspace_root)) {
        if let Ok(manifest) = crate::files::read_workspace_file_to_string(workspace_root, &current.join("Cargo.toml")) {
            let document = toml_edit::Document::parse(manifest).ok()?;
            let parsed = document.as_table();
            let lib_section = parsed.get("lib");
            let lib_root = lib_section
                .and_then(|lib| lib.get("path"))
                .and_then(|lib_path| lib_path.as_str())
                .map_or_else(|| current.join("src/lib.rs"), |lib_path| crate::files::path::lexically_normal(&current.join(lib_path)));
            if !lib_root.is_file() {
                return None;
            }
            let name = lib_section
                .and_then(|lib| lib.get("name"))
                .and_then(|name| name.as_str())
                .or_else(|| parsed.get("package").and_then(|package| package.get("name")).and_then(|name| name.as_str()))?
                .replace('-', "_");
            return Some((current.to_path_buf(), name, lib_root));
        }
        directory = current.parent();
    }
    None
}

/// The public module path of the Rust file `path` in the crate `crate_name` whose library root
/// file is `lib_root` (`csv_core`, `csv_core::writer`), when every module from the crate root
/// down to it is declared `pub mod` in its parent; `None` when one is private, the file is not
/// beneath the library root's directory (a binary's `src/main.rs` beside a `[lib] path =
/// "lib/mylib.rs"`), or the chain cannot be read. The root's modules live beside it, as a
/// `mod.rs`'s do (`mod a;` in `lib/mylib.rs` is `lib/a.rs` or `lib/a/mod.rs`).
fn rust_public_module_path(workspace_root: &Path, lib_root: &Path, crate_name: &str, path: &Path) -> Option<String> {
    if path == lib_root {
        return Some(crate_name.to_owned());
    }
    let source = lib_root.parent()?.to_path_buf();
    let relative = path.strip_prefix(&source).ok()?;
    let mut segments: Vec<String> = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
    let file = segments.pop()?;
    let stem = file.strip_suffix(".rs")?;
    if stem != "mod" {
        segments.push(stem.to_owned());
    }
    if segments.is_empty() {
        // `mod.rs` beside the library root: no module of it.
        return None;
    }
    // Each segment must be `pub mod name;` in its parent module's file.
    let mut parent_file = lib_root.to_path_buf();
    let mut parent_directory = source.clone();
    for segment in &segments {
        let parent_text = crate::files::read_workspace_file_to_string(workspace_root, &parent_file).ok()?;
        let declared_pub = parent_text.lines().any(|line| {
            let line = line.trim();
            line.strip_prefix("pub mod ").is_some_and(|rest| {
                rest.trim_start().strip_prefix(segment.as_str()).is_some_and(|after| after.trim_start().starts_with(';'))
            })
        });
        if !declared_pub {
            return None;
        }
        let as_file = parent_directory.join(format!("{segment}.rs"));
        parent_directory = parent_directory.join(segment);
        parent_file = if as_file.is_file() { as_file } else { parent_directory.join("mod.rs") };
    }
    Some(format!("{crate_name}::{}", segments.join("::")))
}

/// The item keyword of a `pub` definition of `name` on `line` (`fn`, `struct`, `field`…), with
/// whether it sits indented (an associated item or a field).
fn rust_pub_definition(line: &str, name: &str) -> Option<&'static str> {
    let rest = line.trim_start().strip_prefix("pub ")?;
    let mut words = rest.split_whitespace();
    let mut word = words.next()?;
    // A public field: `pub name: T`.
    if word.strip_suffix(':').is_some_and(|field| field == name) || (word == name && words.clone().next()?.starts_with(':')) {
        return Some("field");
    }
    while matches!(word, "unsafe" | "async" | "const" | "extern") || word.starts_with('"') {
        let next = words.next()?;
        if word == "const" && next != "fn" && next != "unsafe" {
            // `pub const NAME: T`.
            return next.split(':').next().is_some_and(|constant| constant == name).then_some("const");
        }
        word = next;
    }
    let keyword = match word {
        "fn" => "fn",
        "struct" => "struct",
        "enum" => "enum",
        "trait" => "trait",
        "type" => "type",
        "static" => "static",
        "union" => "union",
        "mod" => "mod",
        _ => return None,
    };
    let named = words.next()?;
    let identifier: String = named.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (identifier == name).then_some(keyword)
}

/// The name under which the `pub use` statements of the module file `module_file` publish
/// `owner`: the alias of `owner as Alias` (humantime's `pub use self::duration::Error as
/// DurationError`, trial87 M2), else `owner`; `None` when no `pub use` there names it.
fn reexported_name_in(workspace_root: &Path, module_file: &Path, owner: &str) -> Option<String> {
    let text = crate::files::read_workspace_file_to_string(workspace_root, module_file).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    (0..lines.len()).filter_map(|line| rust_pub_use_statement(&lines, line)).find_map(|(start, end)| {
        let statement = lines[start..=end].join(" ");
        let at = *crate::lsp::rename_coverage::word_positions(&statement, owner).first()?;
        let rest = statement[at + owner.len()..].trim_start();
        let alias = rest
            .strip_prefix("as")
            .filter(|after| after.starts_with(char::is_whitespace))
            .map(|after| after.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>());
        Some(alias.filter(|alias| !alias.is_empty()).unwrap_or_else(|| owner.to_owned()))
    })
}

/// Where `owner` (a type or trait declared in the file `path`, in a private module) is made
/// public by a `pub use` of an enclosing module that is itself public: the nearest such module
/// up from `path` to the library root, as (its public module path, the name it publishes). The
/// crate root (`pub use self::into_either::IntoEither;`, trial48 F4) and a public module's own
/// re-exports (indexmap 2.2.6's `pub use self::core::{Entry, OccupiedEntry, …};` in `pub mod
/// map`, which makes `indexmap::map::Entry::or_insert` public: trial99 F1) both count. `None`
/// when no public ancestor re-exports it.
fn public_reexport_of_owner(
    workspace_root: &Path,
    lib_root: &Path,
    crate_name: &str,
    path: &Path,
    owner: &str,
) -> Option<(String, String)> {
    let source = lib_root.parent()?;
    let relative = path.strip_prefix(source).ok()?;
    let mut segments: Vec<String> = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
    let file = segments.pop()?;
    let stem = file.strip_suffix(".rs")?;
    if stem != "mod" {
        segments.push(stem.to_owned());
    }
    // The enclosing modules, nearest first (the file's own module is the one that is private or
    // whose items are asked about: its re-exports name its submodules' items).
    for depth in (0..segments.len()).rev() {
        let module_file = if depth == 0 {
            lib_root.to_path_buf()
        } else {
            let as_file = source.join(format!("{}.rs", segments[..depth].join("/")));
            if as_file.is_file() {
                as_file
            } else {
                source.join(segments[..depth].join("/")).join("mod.rs")
            }
        };
        let Some(public_name) = reexported_name_in(workspace_root, &module_file, owner) else { continue };
        if let Some(module) = rust_public_module_path(workspace_root, lib_root, crate_name, &module_file) {
            return Some((module, public_name));
        }
    }
    None
}

/// The library root's `pub use` statement that re-exports everything of the file `path`'s
/// module by a glob (`pub use global_rng::*;`, `pub use self::a::b::*;`, `pub use crate::a::*;`),
/// whether or not that module is itself public: (its 1-based line, its text). The items the
/// module declares `pub` are then public at the crate root (trial66 F5: fastrand's private `mod
/// global_rng;` and `pub use global_rng::*;`, whose `choose_multiple` got no note). `None` when
/// the root has none or `path` is the root.
fn root_glob_reexport_of_module(workspace_root: &Path, lib_root: &Path, path: &Path) -> Option<(usize, String)> {
    let source = lib_root.parent()?;
    let relative = path.strip_prefix(source).ok()?;
    let mut segments: Vec<String> = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
    let file = segments.pop()?;
    let stem = file.strip_suffix(".rs")?;
    if stem != "mod" {
        segments.push(stem.to_owned());
    }
    if segments.is_empty() {
        return None;
    }
    let glob = format!("{}::*;", segments.join("::"));
    let root_text = crate::files::read_workspace_file_to_string(workspace_root, lib_root).ok()?;
    let root_lines: Vec<&str> = root_text.lines().collect();
    let direct = (0..root_lines.len()).filter_map(|line| rust_pub_use_statement(&root_lines, line)).find_map(|(start, end)| {
        let statement: String = root_lines[start..=end].join(" ");
        let body: String = statement.trim_start().trim_start_matches("pub use ").split_whitespace().collect();
        let body = body.trim_start_matches("::");
        let body = body.strip_prefix("crate::").or_else(|| body.strip_prefix("self::")).unwrap_or(body);
        (body == glob).then(|| (start + 1, statement.split_whitespace().collect::<Vec<_>>().join(" ")))
    });
    direct.or_else(|| root_glob_chain_to(workspace_root, lib_root, path))
}

/// The library root's first `pub use …::*;` of a chain of file-level `pub` glob re-exports that
/// reaches the module file `path` (`pub use windows::*;` in lib.rs, `pub use non_utf8::*;` in
/// windows/mod.rs, … down to `path`; trial163 M3: typed-path's items were said as "the module of
/// …/component.rs::WindowsPrefix (if that module is public)", public as `typed_path::WindowsPrefix`):
/// (its 1-based line, its text). At most 64 module files read; `None` when no chain reaches it.
fn root_glob_chain_to(workspace_root: &Path, lib_root: &Path, path: &Path) -> Option<(usize, String)> {
    let crate_name = rust_library_crate(workspace_root, lib_root).map(|(_, name, _)| name)?;
    let read_globs = |file: &Path| -> Vec<crate::lsp::rust_reexport_paths::GlobImport> {
        let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, file) else { return Vec::new() };
        let lines: Vec<&str> = text.lines().collect();
        // No name is looked for: every file-level glob counts (`\0` names nothing).
        let imports = crate::lsp::rust_reexport_paths::RustFileImports::read(file, &lines, "\0", &crate_name, lib_root);
        imports
            .file_level_globs(&lines, "\0")
            .into_iter()
            // A `pub` glob: its statement (from the `use` line at or above the `*`) is `pub use`.
            .filter(|glob| rust_pub_use_statement(&lines, glob.line0).is_some())
            .cloned()
            .collect()
    };
    let root_text = crate::files::read_workspace_file_to_string(workspace_root, lib_root).ok()?;
    let root_lines: Vec<&str> = root_text.lines().collect();
    for first in read_globs(lib_root) {
        let mut queue = std::collections::VecDeque::from([first.module_file.clone()]);
        let mut seen: Vec<std::path::PathBuf> = Vec::new();
        while let Some(file) = queue.pop_front() {
            if seen.len() >= 64 || seen.contains(&file) {
                continue;
            }
            if file == path {
                let (start, end) = rust_pub_use_statement(&root_lines, first.line0)?;
                return Some((start + 1, root_lines[start..=end].join(" ").split_whitespace().collect::<Vec<_>>().join(" ")));
            }
            seen.push(file.clone());
            queue.extend(read_globs(&file).into_iter().map(|glob| glob.module_file));
        }
    }
    None
}

/// Whether a `pub use` statement of the file `lines` re-exports `name` from its inline module
/// `inline` (`pub use self::once_box::OnceBox;`, `pub use inline::*;`).
fn reexports_from_inline_module(lines: &[&str], inline: &str, name: &str) -> bool {
    let through = format!("{inline}::");
    (0..lines.len()).filter_map(|line| rust_pub_use_statement(lines, line).filter(|(start, _)| *start == line)).any(|(start, end)| {
        let statement: String = lines[start..=end].join(" ").split_whitespace().collect();
        let from_inline = statement.strip_prefix("pubuse").is_some_and(|path| {
            let path = path.strip_prefix("self::").unwrap_or(path);
            path.starts_with(&through)
        });
        from_inline && (statement.contains(&format!("{through}*")) || pub_use_exports_name(&statement, name))
    })
}

/// Whether the `pub use` statement `statement` exports a name `name`: an occurrence of it that
/// is no path segment before `::` (`pub use global_rng::*;` exports what the module holds, not
/// `global_rng`: trial66 F6, a private module renamed had been called a public API change, and
/// the `pub use global as global_rng;` suggested does not compile, E0365).
fn pub_use_exports_name(statement: &str, name: &str) -> bool {
    crate::lsp::rename_coverage::word_positions(statement, name).into_iter().any(|at| {
        let rest = statement[at + name.len()..].trim_start();
        // `Error as TimestampError` publishes `TimestampError`, not `Error` (trial87 F3:
        // humantime's `pub use self::date::{…, Error as TimestampError}`).
        let aliased = rest.strip_prefix("as").is_some_and(|after| after.starts_with(char::is_whitespace));
        !rest.starts_with("::") && !aliased
    })
}

/// The name of the type an inherent `impl` around 0-based line `index` of `text` implements
/// (`impl<T, const CAP: usize> ArrayVec<T, CAP>` → `ArrayVec`), or of the struct whose field
/// declaration holds it; `None` outside one or in a trait impl.
fn rust_impl_type_name(tree: &RustTree, text: &str, index: usize) -> Option<String> {
    let line_start = crate::lsp::position::line_start_byte(text, index);
    let line = text[line_start..].lines().next().unwrap_or("");
    let start = line_start + (line.len() - line.trim_start().len());
    let mut node = tree.root().get_inner_node().descendant_for_byte_range(start, start)?;
    loop {
        // A field of a struct (or union) is the type's too (trial57 M3: textwrap's
        // `Options.break_words`, `pub use options::Options;` at the root).
        if node.kind() == "field_declaration_list" {
            let owner = node.parent().filter(|owner| matches!(owner.kind(), "struct_item" | "union_item"))?;
            let name = owner.child_by_field_name("name")?.utf8_text(text.as_bytes()).ok()?.to_owned();
            return (!name.is_empty()).then_some(name);
        }
        if node.kind() == "impl_item" {
            if node.child_by_field_name("trait").is_some() {
                return None;
            }
            let implemented = node.child_by_field_name("type")?;
            let type_text = implemented.utf8_text(text.as_bytes()).ok()?;
            let name = type_text.split('<').next()?.trim().rsplit("::").next()?.to_owned();
            return (!name.is_empty()).then_some(name);
        }
        node = node.parent()?;
    }
}

/// Whether the library root file `lib_root` defines `owner` at its top level as a plain `pub`
/// struct, enum, union or type alias: the methods of an inherent impl of it in a private module
/// are public API (trial130 F3: anyhow's `pub struct Error` in lib.rs, `impl Error { pub fn is … }`
/// in the private `mod error`, renamed with no note).
fn root_defines_public_type(workspace_root: &Path, lib_root: &Path, owner: &str) -> bool {
    let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, lib_root) else { return false };
    text.lines().any(|line| {
        !line.starts_with(char::is_whitespace) && matches!(rust_pub_definition(line, owner), Some("struct" | "enum" | "union" | "type"))
    })
}

/// The `pub use` statement (first and last 0-based line) holding line `index`, if any.
fn rust_pub_use_statement(lines: &[&str], index: usize) -> Option<(usize, usize)> {
    let mut start = index;
    loop {
        let trimmed = lines[start].trim_start();
        if trimmed.starts_with("pub use ") {
            break;
        }
        if start == 0 || trimmed.ends_with(';') && start != index || trimmed.starts_with("fn ") || trimmed.starts_with("use ") {
            return None;
        }
        start -= 1;
    }
    let end = (start..lines.len()).find(|&line| lines[line].contains(';'))?;
    (end >= index).then_some((start, end))
}

/// Where a line of a Rust file sits among the file's own items: the inline modules around it
/// (`mod name { … }`, outermost first, each with whether it is declared plain `pub` — `pub(crate)`,
/// `pub(super)`, `pub(in …)` and no visibility are not public), and whether it lies in an
/// `impl`/`trait` body, a struct's fields or an enum's variants (an associated item or a field)
/// inside the innermost of those modules.
#[derive(Debug, Default, PartialEq, Eq)]
struct RustLineContext {
    /// The enclosing inline modules, outermost first: (name, declared `pub`).
    modules: Vec<(String, bool)>,
    /// Inside an `impl`/`trait` body, struct fields or enum variants.
    associated: bool,
}

/// A Rust file's syntax tree (tree-sitter, the grammar ast-grep bundles).
type RustTree = ast_grep_core::AstGrep<ast_grep_core::tree_sitter::StrDoc<ast_grep_language::SupportLang>>;

/// Whether the Rust item `item` (of `text`) is declared plain `pub` — not `pub(crate)`,
/// `pub(super)`, `pub(in …)`, and not without visibility.
fn declared_plain_pub(item: tree_sitter::Node<'_>, text: &str) -> bool {
    let mut cursor = item.walk();
    let declared = item
        .children(&mut cursor)
        .any(|child| child.kind() == "visibility_modifier" && child.utf8_text(text.as_bytes()).is_ok_and(|vis| vis.trim() == "pub"));
    declared
}

/// The [`RustLineContext`] of 0-based line `index` of `text` (a Rust file), from its syntax tree
/// `tree` (parsed once per file); `None` when the line is not found in the tree.
fn rust_line_context(tree: &RustTree, text: &str, index: usize) -> Option<RustLineContext> {
    let line_start = crate::lsp::position::line_start_byte(text, index);
    let line = text[line_start..].lines().next().unwrap_or("");
    let at = line_start + (line.len() - line.trim_start().len());
    let mut node = tree.root().get_inner_node().descendant_for_byte_range(at, at)?;
    let mut context = RustLineContext::default();
    let mut in_module = false;
    while let Some(parent) = node.parent() {
        match parent.kind() {
            "mod_item" if parent.child_by_field_name("body").is_some_and(|body| body.id() == node.id()) => {
                in_module = true;
                let name = parent.child_by_field_name("name").and_then(|name| name.utf8_text(text.as_bytes()).ok()).unwrap_or("");
                context.modules.insert(0, (name.to_owned(), declared_plain_pub(parent, text)));
            }
            "impl_item" | "trait_item" | "field_declaration_list" | "enum_variant_list" if !in_module => context.associated = true,
            _ => (),
        }
        node = parent;
    }
    Some(context)
}

/// A Rust item with no visibility of its own that is as public as the enum or trait holding it:
/// a variant, a field of a struct-like variant, or a trait's method, associated type or const.
#[derive(Debug, PartialEq, Eq)]
struct RustMemberOfPublicOwner {
    /// `variant`, `variant field`, `trait method`, `trait associated type`, `trait associated const`.
    kind: &'static str,
    /// The enum or trait's name.
    owner: String,
    /// For a variant field: the variant's name.
    variant: Option<String>,
}

impl RustMemberOfPublicOwner {
    /// The `note: public API changed: …` line for this member at `shown`:`line` (1-based) in
    /// the public module `module` of the crate `crate_name`.
    fn note(&self, shown: &str, line: usize, module: &str, crate_name: &str, old_name: &str, new_name: &str) -> String {
        let owner = &self.owner;
        let (what, breaks, keep) = match self.kind {
            "variant" => (
                format!("the variant `{owner}::{old_name}` of the public enum `{module}::{owner}`"),
                "construct, match or import the old variant",
                "no alias keeps a variant's name (a `pub use` makes a new path, not `Enum::Old`): every dependent that names it must change",
            ),
            "variant field" => (
                format!("the field `{old_name}` of the variant `{owner}::{}` of the public enum `{module}::{owner}`", self.variant.as_deref().unwrap_or("?")),
                "construct or match that variant by field name",
                "no alias keeps a field name: every user of the field must change",
            ),
            "trait method" => (
                format!("the method `{owner}::{old_name}` of the public trait `{module}::{owner}`"),
                "call the method or implement the trait",
                "a provided `#[deprecated] fn` of the old name that calls the new one keeps callers working, not implementors, who must rename theirs",
            ),
            _ => (
                format!("the {} `{owner}::{old_name}` of the public trait `{module}::{owner}`", self.kind.trim_start_matches("trait ")),
                "name it or implement the trait",
                "no alias keeps it for implementors: every implementation must rename it",
            ),
        };
        format!(
            "note: public API changed: {shown}:{line} defines {what}, so this rename makes it `{new_name}` — crates that depend on `{crate_name}` and {breaks} break; {keep}"
        )
    }
}

/// The [`RustMemberOfPublicOwner`] that 0-based line `index` of `text` (parsed as `tree`)
/// defines under the name `name`, when its enum or trait is declared plain `pub`; `None` for
/// anything else (an item with its own visibility is read by [`rust_pub_definition`]).
fn rust_member_of_public_owner(tree: &RustTree, text: &str, index: usize, name: &str) -> Option<RustMemberOfPublicOwner> {
    let line_start = crate::lsp::position::line_start_byte(text, index);
    let line = text[line_start..].lines().next().unwrap_or("");
    let bytes = text.as_bytes();
    let public = |item: tree_sitter::Node| declared_plain_pub(item, text);
    let name_of = |item: tree_sitter::Node| item.child_by_field_name("name").and_then(|name| name.utf8_text(bytes).ok()).map(str::to_owned);
    for at in crate::lsp::rename_coverage::word_positions(line, name) {
        let start = line_start + at;
        let Some(identifier) = tree.root().get_inner_node().descendant_for_byte_range(start, start + name.len()) else { continue };
        let Some(definition) = identifier.parent() else { continue };
        if definition.child_by_field_name("name").is_none_or(|defined| defined.id() != identifier.id()) {
            continue;
        }
        let Some(list) = definition.parent() else { continue };
        let Some(owner) = list.parent() else { continue };
        let member = match (definition.kind(), list.kind(), owner.kind()) {
            ("enum_variant", "enum_variant_list", "enum_item") if public(owner) => {
                RustMemberOfPublicOwner { kind: "variant", owner: name_of(owner)?, variant: None }
            }
            ("field_declaration", "field_declaration_list", "enum_variant") => {
                let enum_item = owner.parent().and_then(|variants| variants.parent()).filter(|item| item.kind() == "enum_item")?;
                if !public(enum_item) {
                    return None;
                }
                RustMemberOfPublicOwner { kind: "variant field", owner: name_of(enum_item)?, variant: name_of(owner) }
            }
            (kind @ ("function_signature_item" | "function_item" | "associated_type" | "const_item"), "declaration_list", "trait_item")
                if public(owner) =>
            {
                let kind = match kind {
                    "associated_type" => "trait associated type",
                    "const_item" => "trait associated const",
                    _ => "trait method",
                };
                RustMemberOfPublicOwner { kind, owner: name_of(owner)?, variant: None }
            }
            _ => continue,
        };
        return Some(member);
    }
    None
}

#[allow(clippy::too_many_arguments)]
fn rust_notes(
    workspace_root: &Path,
    path: &Path,
    shown: &str,
    old_lines: &[&str],
    new_lines: &[&str],
    changed: &[usize],
    old_name: &str,
    new_name: &str,
) -> Vec<String> {
    let Some((_, crate_name, lib_root)) = rust_library_crate(workspace_root, path) else { return Vec::new() };
    let file_module = rust_public_module_path(workspace_root, &lib_root, &crate_name, path);
    // A private module whose items the root re-exports by a glob: its `pub` items are public at
    // the crate root.
    let root_glob = file_module.is_none().then(|| root_glob_reexport_of_module(workspace_root, &lib_root, path)).flatten();
    // Not inside an inline module of that file, whose items the glob does not reach.
    let in_root_glob =
        |context: &Option<RustLineContext>| root_glob.is_some() && context.as_ref().is_none_or(|context| context.modules.is_empty());
    let old_text = old_lines.join("\n");
    let tree = RustTree::try_new(old_text.as_str(), ast_grep_language::SupportLang::Rust).ok();
    let mut notes = Vec::new();
    let mut said_statements = Vec::new();
    for &index in changed {
        // The module the line is in: the file's, then the inline modules around the line
        // (trial28 F1: httparse's `pub use super::iter::Bytes;` sits in `pub mod _benchable { … }`,
        // so it publishes `httparse::_benchable::Bytes`, not `httparse::Bytes`). A private or
        // `pub(crate)` inline module makes nothing in it public.
        let context = tree.as_ref().and_then(|tree| rust_line_context(tree, &old_text, index));
        // An item of a private inline module is public where the file's public module re-exports
        // it or its type from there (trial67 F2: once_cell's `mod once_box { … }` and `pub use
        // self::once_box::OnceBox;` in `pub mod race`, whose methods got no note).
        let mut reexported_module = None;
        if context.as_ref().is_some_and(|context| context.modules.iter().any(|(_, public)| !public)) {
            reexported_module = match (&file_module, &context) {
                (Some(file_module), Some(context)) if context.modules.len() == 1 => {
                    let owner = tree.as_ref().and_then(|tree| rust_impl_type_name(tree, &old_text, index));
                    reexports_from_inline_module(old_lines, &context.modules[0].0, owner.as_deref().unwrap_or(old_name))
                        .then(|| file_module.clone())
                }
                _ => None,
            };
            if reexported_module.is_none() {
                continue;
            }
        }
        let module = match (&file_module, &context) {
            _ if reexported_module.is_some() => reexported_module,
            (Some(file_module), Some(context)) if !context.modules.is_empty() => Some(
                std::iter::once(file_module.clone())
                    .chain(context.modules.iter().map(|(name, _)| name.clone()))
                    .collect::<Vec<_>>()
                    .join("::"),
            ),
            _ => file_module.clone(),
        };
        if let Some((start, end)) = rust_pub_use_statement(old_lines, index) {
            if said_statements.contains(&start) {
                continue;
            }
            said_statements.push(start);
            let before = old_lines[start..=end].join(" ");
            let after = new_lines[start..=end].join(" ");
            let still_exported = pub_use_exports_name(&after, old_name);
            if !pub_use_exports_name(&before, old_name) || still_exported {
                continue;
            }
            // The path the import names, up to the list or the name: `crate::writer::`.
            let body = before.trim_start().trim_start_matches("pub use ").trim_start();
            let prefix_end = body.find('{').or_else(|| crate::lsp::rename_coverage::word_positions(body, old_name).first().copied());
            let prefix: String = prefix_end.map_or("", |end| &body[..end]).split_whitespace().collect();
            // Through the root's glob re-exports, the crate root (trial163 M3).
            let public_module = module.clone().or_else(|| in_root_glob(&context).then(|| crate_name.clone()));
            let owner = public_module.clone().unwrap_or_else(|| format!("the module of {shown}"));
            // Renamed only as exported (`pub use dep::Old as New;`: the item keeps its name, as
            // another crate's item does), the old export is kept by the old line itself; `pub
            // use dep::New as Old;` names an item that does not exist (trial155 F2, E0432).
            let keep = if has_word(&after, "as") && after.contains(&format!("{old_name} as {new_name}")) {
                format!("keep the old export beside the new one: `pub use {prefix}{old_name};`")
            } else {
                format!("also add `pub use {prefix}{new_name} as {old_name};` next to it")
            };
            notes.push(format!(
                "note: public API changed: {shown}:{} re-exports `{old_name}` (`{}`), so this rename replaces `{owner}::{old_name}` with `{owner}::{new_name}`{} — crates that depend on `{crate_name}` and use the old name break; to keep it, {keep}",
                start + 1,
                crate::render::cut_chars(&before.split_whitespace().collect::<Vec<_>>().join(" "), 120),
                if public_module.is_none() { " (if that module is public)" } else { "" },
            ));
            continue;
        }
        if !has_word(new_lines[index], new_name) {
            // The line keeps every name it declares (only a type it mentions was renamed).
            continue;
        }
        let Some(kind) =
            rust_pub_definition(old_lines[index], old_name).filter(|_| rust_pub_definition(new_lines[index], new_name).is_some())
        else {
            // A variant, a variant's field or a trait's item carries no `pub` of its own: it is
            // as public as its enum or trait (trial43 F1: strsim's `StrSimError::DifferentLengthArgs`).
            let Some(tree) = &tree else { continue };
            if let Some(mut member) = rust_member_of_public_owner(tree, &old_text, index, old_name) {
                // An owner in a private module is public where the library root re-exports it
                // (trial48 F4: either's `pub use self::into_either::IntoEither;`, whose methods
                // got no note while the trait did), under the name that re-export gives it.
                let reexport = module
                    .is_none()
                    .then(|| public_reexport_of_owner(workspace_root, &lib_root, &crate_name, path, &member.owner))
                    .flatten();
                let module = module
                    .clone()
                    .or_else(|| reexport.as_ref().map(|(module, _)| module.clone()))
                    .or_else(|| in_root_glob(&context).then(|| crate_name.clone()));
                if let Some((_, public_name)) = reexport {
                    member.owner = public_name;
                }
                if let Some(module) = module {
                    notes.push(member.note(shown, index + 1, &module, &crate_name, old_name, new_name));
                }
            }
            continue;
        };
        // An associated item of a type declared in a private module is public where the library
        // root re-exports the type (trial50 F3: arrayvec's `ArrayVec::try_push`).
        let associated = match &context {
            Some(context) => context.associated,
            None => old_lines[index].starts_with(char::is_whitespace),
        };
        let module = module.clone().or_else(|| {
            if in_root_glob(&context) {
                return Some(crate_name.clone());
            }
            let owner = tree.as_ref().and_then(|tree| rust_impl_type_name(tree, &old_text, index))?;
            public_reexport_of_owner(workspace_root, &lib_root, &crate_name, path, &owner).map(|(module, _)| module).or_else(|| {
                // The file's own type of that name (a private module's `Error`) is not the root's.
                let own = old_lines.iter().any(|line| {
                    let item = line.trim_start();
                    let item = item.strip_prefix("pub(crate) ").or_else(|| item.strip_prefix("pub ")).unwrap_or(item);
                    ["struct ", "enum ", "union ", "type "].iter().any(|keyword| {
                        item.strip_prefix(keyword).is_some_and(|rest| {
                            rest.strip_prefix(owner.as_str())
                                .is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
                        })
                    })
                });
                (!own && root_defines_public_type(workspace_root, &lib_root, &owner)).then(|| crate_name.clone())
            })
        });
        let Some(module) = &module else { continue };
        let (what, keep) = match (kind, associated) {
            ("field", _) => {
                (format!("the public field `{old_name}`"), "no alias keeps a field name: every user of the field must change".to_owned())
            }
            ("fn", true) => (
                format!("the public method or associated function `{old_name}` (public if its type is)"),
                format!("to keep it, add a `#[deprecated] pub fn {old_name}` with the same signature that calls `{new_name}`"),
            ),
            (_, true) => (
                format!("the public associated `{kind} {old_name}`"),
                format!("to keep it, also define `{old_name}` next to it, as `{new_name}`"),
            ),
            ("mod", false) => (
                format!("the public module `{module}::{old_name}`"),
                format!("to keep it, also add `pub use {new_name} as {old_name};` in {shown}"),
            ),
            (_, false) => (
                format!("`{module}::{old_name}` (`pub {kind}`)"),
                format!("to keep it, also add `pub use {new_name} as {old_name};` in {shown}"),
            ),
        };
        let reach = if let (Some((line, statement)), true) = (&root_glob, in_root_glob(&context)) {
            format!(
                "a private module whose items the crate root re-exports ({}:{line}: `{statement}`)",
                crate::render::display_path(workspace_root, &lib_root)
            )
        } else if *module == crate_name {
            "the crate root".to_owned()
        } else {
            format!("module `{module}`, reachable from the crate root through `pub mod`")
        };
        notes.push(format!(
            "note: public API changed: {shown}:{} defines {what} in {reach}, so this rename makes it `{new_name}` — crates that depend on `{crate_name}` and use the old name break; {keep}",
            index + 1
        ));
    }
    notes
}

/// The `module` line of the nearest go.mod above `path` (up to the workspace root) and the
/// go.mod's directory.
fn go_module(workspace_root: &Path, path: &Path) -> Option<(std::path::PathBuf, String)> {
    let mut directory = path.parent();
    while let Some(current) = directory.filter(|current| current.starts_with(workspace_root)) {
        if let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &current.join("go.mod")) {
            let module =
                text.lines().find_map(|line| line.trim().strip_prefix("module ").map(|rest| rest.trim().trim_matches('"').to_owned()))?;
            return Some((current.to_path_buf(), module));
        }
        directory = current.parent();
    }
    None
}

/// The receiver's type name of the Go method declared on `line` (`func (u *UUID) M()` →
/// `UUID`, `func (c *Cache[K, V]) Put(` → `Cache`), if it declares one.
pub(crate) fn go_method_receiver(line: &str) -> Option<String> {
    let type_text = go_method_receiver_type(line)?;
    let name: String = type_text.trim_start_matches('*').chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!name.is_empty()).then_some(name)
}

/// The receiver type of the Go method declared on `line` as written, type parameters dropped:
/// `func (o *Options) filter(` → `*Options`, `func (validator) filter(` → `validator`, `func (c
/// *Cache[K, V]) Put(` → `*Cache` (its type parameters are cut before the words are split:
/// trial94 F2 named the method `V.Put`). `None` for a line that declares no method.
pub(crate) fn go_method_receiver_type(line: &str) -> Option<String> {
    let receiver = line.trim_start().strip_prefix("func")?.trim_start().strip_prefix('(')?;
    let receiver = &receiver[..receiver.find(')')?];
    let without_parameters = receiver.split('[').next()?;
    let type_text = without_parameters.split_whitespace().last()?;
    (!type_text.trim_start_matches('*').is_empty()).then(|| type_text.to_owned())
}

/// The Go type whose `struct { … }` or `interface { … }` body holds 0-based line `index` of
/// `lines` (`type PathStep interface {`, or `PathStep interface {` in a `type (` block): its
/// name, found by the braces above the line; `None` outside a type body.
pub(crate) fn go_enclosing_type(lines: &[&str], index: usize) -> Option<String> {
    let mut depth = 0i64;
    for line in lines[..index].iter().rev() {
        let code = line.split("//").next().unwrap_or("");
        depth += code.matches('}').count() as i64 - code.matches('{').count() as i64;
        if depth < 0 {
            let trimmed = code.trim_start();
            let declaration = trimmed.strip_prefix("type ").unwrap_or(trimmed).trim_start();
            let name: String = declaration.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let rest = declaration[name.len()..].trim_start();
            let rest = if rest.starts_with('[') { rest.find(']').map_or("", |close| &rest[close + 1..]).trim_start() } else { rest };
            return (!name.is_empty() && (rest.starts_with("struct") || rest.starts_with("interface"))).then_some(name);
        }
    }
    None
}

/// The kind of Go declaration of `name` on `line` (0-based index in `lines`): `func`, `method`,
/// `type`, `var`, `const`, `field`; a line in a `const (`/`var (` block or a struct body is read
/// by the nearest enclosing opener above it.
pub(crate) fn go_declaration(lines: &[&str], index: usize, name: &str) -> Option<&'static str> {
    let line = lines[index];
    let trimmed = line.trim_start();
    let first_word = |text: &str| -> String { text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    if let Some(rest) = trimmed.strip_prefix("func ") {
        let rest = rest.trim_start();
        if let Some(after_receiver) = rest.strip_prefix('(') {
            let close = after_receiver.find(')')?;
            return (first_word(after_receiver[close + 1..].trim_start()) == name).then_some("method");
        }
        return (first_word(rest) == name).then_some("func");
    }
    for (keyword, kind) in [("type ", "type"), ("var ", "var"), ("const ", "const")] {
        if let Some(rest) = trimmed.strip_prefix(keyword) {
            return (first_word(rest.trim_start()) == name).then_some(kind);
        }
    }
    // Inside a block: the line starts with the name, indented.
    if !line.starts_with(char::is_whitespace) || first_word(trimmed) != name {
        return None;
    }
    let opener_index = lines[..index].iter().rposition(|above| !above.starts_with(char::is_whitespace) && !above.trim().is_empty())?;
    // A key of a composite literal in a block's value (`DefaultCondition = &Condition{
    // EastAsianWidth: false, }` inside `var (`) declares nothing (trial139 F5): a declaration is
    // no deeper than the block's own brackets.
    let depth: i64 = lines[opener_index + 1..index]
        .iter()
        .map(|above| {
            let code = above.split("//").next().unwrap_or("");
            code.chars()
                .map(|c| match c {
                    '{' | '(' | '[' => 1,
                    '}' | ')' | ']' => -1,
                    _ => 0,
                })
                .sum::<i64>()
        })
        .sum();
    let opener = lines[opener_index].trim_start();
    // (Only in a `var (` / `const (` block: a nested struct type's fields are deeper and still
    // fields of an exported type.)
    let value_block = opener.starts_with("var (") || opener.starts_with("const (");
    if value_block && (depth > 0 || trimmed[name.len()..].trim_start().starts_with(':')) {
        return None;
    }
    if opener.starts_with("const (") {
        Some("const")
    } else if opener.starts_with("var (") {
        Some("var")
    } else if opener.starts_with("type (") {
        Some("type")
    } else if opener.starts_with("type ") && opener.contains(" struct") {
        let after = trimmed[name.len()..].trim_start();
        (!after.is_empty() && !after.starts_with('(')).then_some("field")
    } else if opener.starts_with("type ") && opener.contains(" interface") {
        // `Value` alone embeds an interface (pflag's `boolFlag`): no method of its own
        // (trial47 F2).
        trimmed[name.len()..].trim_start().starts_with('(').then_some("interface method")
    } else {
        None
    }
}

/// The exported names a Go file declares for importers: functions, types, vars and consts
/// (`New`, `DefaultFreeListSize`), methods and fields of exported types (`BTree.Has`,
/// `Options.Degree`) and methods of exported interfaces. Empty for `package main`.
fn go_exported_names(text: &str) -> std::collections::BTreeSet<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut names = std::collections::BTreeSet::new();
    if lines.iter().any(|line| line.trim() == "package main") {
        return names;
    }
    let exported = |name: &str| name.starts_with(|c: char| c.is_uppercase());
    let first_word = |text: &str| -> String { text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let candidate = if let Some(rest) = trimmed.strip_prefix("func ") {
            let rest = rest.trim_start();
            match rest.strip_prefix('(') {
                Some(after) => after.find(')').map(|close| first_word(after[close + 1..].trim_start())).unwrap_or_default(),
                None => first_word(rest),
            }
        } else if let Some(rest) = ["type ", "var ", "const "].iter().find_map(|keyword| trimmed.strip_prefix(keyword)) {
            first_word(rest.trim_start())
        } else {
            first_word(trimmed)
        };
        if candidate.is_empty() || !exported(&candidate) {
            continue;
        }
        let qualified = match go_declaration(&lines, index, &candidate) {
            Some("method") => go_method_receiver(line).filter(|owner| exported(owner)).map(|owner| format!("{owner}.{candidate}")),
            Some("field" | "interface method") => {
                go_enclosing_type(&lines, index).filter(|owner| exported(owner)).map(|owner| format!("{owner}.{candidate}"))
            }
            Some(_) => Some(candidate),
            None => None,
        };
        names.extend(qualified);
    }
    names
}

/// The note when a write removed exported names from a Go package (not `main`, not under
/// `internal/`): a method renamed with `edit` (`BTree.Has` → `Contains`), a const deleted.
/// `old_texts` are the written `.go` files' texts before the write; the names still declared by
/// any non-test `.go` file of the package after it (read from the disk) are not lost. Code
/// outside the module that uses a lost name breaks, and no compiler run inside it shows that
/// when nothing in the module uses it (trial56 M2: google/btree). `None` when nothing is lost.
pub(crate) fn go_exports_lost_by_write(workspace_root: &Path, old_texts: &[(std::path::PathBuf, String)]) -> Option<String> {
    // (import path, names lost from it), per package.
    let mut lost: Vec<(String, Vec<String>)> = Vec::new();
    let mut directories: Vec<&Path> = old_texts
        .iter()
        .map(|(path, _)| path.as_path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "go"))
        .filter(|path| !path.to_string_lossy().ends_with("_test.go"))
        .filter_map(Path::parent)
        .collect();
    directories.sort();
    directories.dedup();
    for directory in directories {
        let written = old_texts.iter().map(|(path, _)| path.as_path()).find(|path| path.parent() == Some(directory))?;
        let (module_root, module) = go_module(workspace_root, written)?;
        let relative = directory.strip_prefix(&module_root).ok()?;
        if relative.components().any(|part| part.as_os_str() == "internal") {
            continue;
        }
        let before: std::collections::BTreeSet<String> = old_texts
            .iter()
            .filter(|(path, _)| path.parent() == Some(directory) && !path.to_string_lossy().ends_with("_test.go"))
            .flat_map(|(_, text)| go_exported_names(text))
            .collect();
        if before.is_empty() {
            continue;
        }
        let mut after = std::collections::BTreeSet::new();
        for (path, kind) in crate::files::walk_beneath::list_directory(workspace_root, directory) {
            let name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
            if kind.is_file() && name.ends_with(".go") && !name.ends_with("_test.go") {
                if let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &path) {
                    after.extend(go_exported_names(&text));
                }
            }
        }
        let import_path = if relative.as_os_str().is_empty() { module.clone() } else { format!("{module}/{}", relative.display()) };
        // A member of a type that is lost itself goes with it, under whatever name the type now
        // has (trial161 M7: renaming the type `Int` was said to remove `Int.Less` too).
        // Only a member that a new type of the package still declares goes along (review47 L5:
        // one deleted in the same write is lost).
        let gone: std::collections::BTreeSet<&String> = before.difference(&after).collect();
        let new_types: Vec<&String> = after.difference(&before).filter(|name| !name.contains('.')).collect();
        let lives_on = |member: &str| new_types.iter().any(|owner| after.contains(&format!("{owner}.{member}")));
        let names: Vec<String> = gone
            .iter()
            .filter(|name| name.split_once('.').is_none_or(|(owner, member)| !(gone.contains(&owner.to_owned()) && lives_on(member))))
            .map(|name| format!("`{name}`"))
            .collect();
        if !names.is_empty() {
            lost.push((import_path, names));
        }
    }
    let total: usize = lost.iter().map(|(_, names)| names.len()).sum();
    if total == 0 {
        return None;
    }
    // At most 8 names are shown, each under its package (trial61 M2: 17 `Size` methods of 17
    // gods packages were all said to be `lists/arraylist`'s).
    let mut budget = 8;
    let mut shown_total = 0;
    let mut groups: Vec<String> = Vec::new();
    for (import_path, names) in &lost {
        if budget == 0 {
            break;
        }
        let shown: Vec<&str> = names.iter().take(budget).map(String::as_str).collect();
        budget -= shown.len();
        shown_total += shown.len();
        groups.push(if lost.len() == 1 { shown.join(", ") } else { format!("`{import_path}`: {}", shown.join(", ")) });
    }
    let from = if lost.len() == 1 {
        format!("that the package `{}` exports", lost[0].0)
    } else {
        format!("that {} of this module export", crate::render::plural(lost.len(), "package"))
    };
    Some(format!(
        "public API changed: this write removed {} {from}: {}{} — code outside this module that uses {} breaks, and no compiler run here shows it where nothing in the module uses {}; keep {} for a while where Go can (a function or method that delegates, `type Old = New`, a `const`/`var` alias, each with a `// Deprecated:` comment; a struct field or an interface method cannot be kept so) or say the break in the changelog",
        crate::render::plural(total, "exported name"),
        groups.join("; "),
        if total > shown_total { format!(" and {} more", total - shown_total) } else { String::new() },
        crate::render::one_or_many(total, "it", "them"),
        crate::render::one_or_many(total, "it", "them"),
        crate::render::one_or_many(total, "it", "them"),
    ))
}

#[allow(clippy::too_many_arguments)]
fn go_notes(
    workspace_root: &Path,
    path: &Path,
    shown: &str,
    old_lines: &[&str],
    new_lines: &[&str],
    changed: &[usize],
    old_name: &str,
    new_name: &str,
) -> Vec<String> {
    if !old_name.starts_with(|c: char| c.is_uppercase())
        || path.file_name().is_some_and(|file| file.to_string_lossy().ends_with("_test.go"))
    {
        return Vec::new();
    }
    let package = old_lines.iter().find_map(|line| line.strip_prefix("package ")).map(|rest| rest.split_whitespace().next().unwrap_or(""));
    if package.is_none_or(|package| package == "main") {
        return Vec::new();
    }
    let Some((module_directory, module)) = go_module(workspace_root, path) else { return Vec::new() };
    let Some(directory) = path.parent().and_then(|parent| parent.strip_prefix(&module_directory).ok()) else { return Vec::new() };
    if directory.iter().any(|part| part == "internal") {
        return Vec::new();
    }
    let import_path = if directory.as_os_str().is_empty() { module.clone() } else { format!("{module}/{}", directory.to_string_lossy()) };
    let package = package.unwrap_or_default();
    let mut notes = Vec::new();
    for &index in changed {
        let Some(kind) = go_declaration(old_lines, index, old_name) else { continue };
        // The declared name itself changed: a line that keeps it and renames only a type it
        // mentions (`func (uuid UUID) Variant() Variant` when the type `Variant` is renamed)
        // declares the same name after the rename (trial44 F5).
        if go_declaration(new_lines, index, new_name) != Some(kind) {
            continue;
        }
        // A method or field is reached through its type: `uuid.UUID.MarshalText`.
        let owner = match kind {
            "method" => go_method_receiver(old_lines[index]).map(|receiver| format!("{receiver}.")),
            // An interface's method or a struct's field: through the type whose body holds it
            // (`cmp.PathStep.Values`, not `cmp.Values`: trial45 M3, trial44 M8).
            "interface method" | "field" => go_enclosing_type(old_lines, index).map(|owner| format!("{owner}.")),
            _ => None,
        }
        .unwrap_or_default();
        // A method or field of an unexported type is no name outside code can write
        // (xstrings' `runeRangeMap.FromLo`, trial53 F5).
        if owner.starts_with(|c: char| c.is_lowercase() || c == '_') {
            continue;
        }
        let keep = match kind {
            "type" => format!("to keep it, also add `type {old_name} = {new_name}` (a type alias) in {shown}"),
            "func" => {
                format!("to keep it, also add `var {old_name} = {new_name}` (or a `func {old_name}` that calls `{new_name}`) in {shown}")
            }
            "const" => format!("to keep it, also add `const {old_name} = {new_name}` in {shown}"),
            "method" => format!("no alias keeps a method: add a method `{old_name}` that calls `{new_name}` (marked `// Deprecated:`)"),
            "interface method" => {
                "no alias keeps an interface method: every implementation outside this module must be renamed too".to_owned()
            }
            _ => format!("no alias keeps a {kind} shared: every importer must change"),
        };
        notes.push(format!(
            "note: public API changed: {shown}:{} declares the exported {kind} `{owner}{old_name}` of package `{package}` (import path `{import_path}`), so this rename makes it `{package}.{owner}{new_name}` — modules outside this workspace that use `{package}.{owner}{old_name}` break; {keep}",
            index + 1
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_method_receivers_of_generic_types_are_their_types() {
        assert_eq!(go_method_receiver("func (c *Cache[K, V]) Put(k K, v V) bool {").as_deref(), Some("Cache"));
        assert_eq!(go_method_receiver("func (s Set[T]) Len() int {").as_deref(), Some("Set"));
        assert_eq!(go_method_receiver("func (u *UUID) M() {").as_deref(), Some("UUID"));
        assert_eq!(go_method_receiver("func (Counter) Exit(l walk.Location) error {").as_deref(), Some("Counter"));
        assert_eq!(go_method_receiver_type("func (validator) filter(x int) {").as_deref(), Some("validator"));
        assert_eq!(go_method_receiver_type("func (o *Options) filter() {").as_deref(), Some("*Options"));
        assert_eq!(go_method_receiver_type("func (*Cache[K, V]) Len() int {").as_deref(), Some("*Cache"));
        assert_eq!(go_method_receiver("func Put(k int) {"), None);
    }

    /// Trial163 M3: a module reached from the root through a chain of `pub` globs is public at
    /// the crate root; a `pub(crate)` glob on the way is no public path.
    #[test]
    fn a_chain_of_pub_globs_from_the_root_reaches_a_private_module() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let files = [
            ("Cargo.toml", "[package]\nname = \"typed-path\"\nversion = \"0.1.0\"\n"),
            ("src/lib.rs", "mod windows;\nmod hidden;\npub use windows::*;\npub(crate) use hidden::*;\n"),
            ("src/windows/mod.rs", "mod non_utf8;\npub use non_utf8::*;\n"),
            ("src/windows/non_utf8.rs", "mod component;\npub use component::*;\n"),
            ("src/windows/non_utf8/component.rs", "pub use prefix::WindowsPrefix;\n"),
            ("src/hidden.rs", "mod deep;\npub use deep::*;\n"),
            ("src/hidden/deep.rs", "pub struct Deep;\n"),
        ];
        for (file, text) in files {
            std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
            std::fs::write(root.join(file), text).unwrap();
        }
        let lib = root.join("src/lib.rs");
        let reached = root_glob_reexport_of_module(&root, &lib, &root.join("src/windows/non_utf8/component.rs"));
        assert_eq!(reached, Some((3, "pub use windows::*;".to_owned())));
        assert_eq!(root_glob_reexport_of_module(&root, &lib, &root.join("src/hidden/deep.rs")), None, "through a pub(crate) glob");
    }

    #[test]
    fn a_root_reexport_is_named_by_its_alias() {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("src/lib.rs");
        std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
        std::fs::write(
            &lib,
            "mod duration;\npub use self::duration::{parse_duration, Error as DurationError};\npub use self::wrapper::Duration;\n",
        )
        .unwrap();
        assert_eq!(reexported_name_in(dir.path(), &lib, "Error").as_deref(), Some("DurationError"));
        assert_eq!(reexported_name_in(dir.path(), &lib, "Duration").as_deref(), Some("Duration"));
        assert_eq!(reexported_name_in(dir.path(), &lib, "Timestamp"), None);
    }

    #[test]
    fn a_pub_use_alias_publishes_the_alias_not_the_name() {
        let statement = "pub use self::date::{parse_rfc3339, Error as TimestampError};";
        assert!(!pub_use_exports_name(statement, "Error"));
        assert!(pub_use_exports_name(statement, "TimestampError"));
        assert!(pub_use_exports_name("pub use self::date::{Error, parse_rfc3339};", "Error"));
        assert!(pub_use_exports_name("pub use self::date::Error as Error;", "Error"), "the alias names it");
        assert!(!pub_use_exports_name("pub use self::Error::Variant;", "Error"));
    }

    #[test]
    fn go_exported_names_are_the_package_surface_and_a_lost_one_is_said() {
        let text = "package btree\n\nconst (\n\tDefaultFreeListSize = 32\n\tinternalSize = 4\n)\n\nvar ErrClosed = errors.New(\"closed\")\n\ntype Item interface {\n\tLess(than Item) bool\n}\n\ntype BTree struct {\n\tDegree int\n\tlength int\n}\n\ntype node struct {\n\tItems []Item\n}\n\nfunc New(degree int) *BTree { return nil }\n\nfunc (t *BTree) Has(key Item) bool { return false }\n\nfunc (n *node) Split() {}\n\nfunc helper() {}\n";
        let names: Vec<String> = go_exported_names(text).into_iter().collect();
        assert_eq!(names, ["BTree", "BTree.Degree", "BTree.Has", "DefaultFreeListSize", "ErrClosed", "Item", "Item.Less", "New"]);
        assert!(go_exported_names("package main\n\nfunc Run() {}\n").is_empty());
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("go.mod"), "module github.com/google/btree\n\ngo 1.19\n").unwrap();
        std::fs::write(root.join("btree.go"), text.replace("func (t *BTree) Has(", "func (t *BTree) Contains(")).unwrap();
        let note = go_exports_lost_by_write(&root, &[(root.join("btree.go"), text.to_owned())]).expect("Has is lost");
        assert!(note.contains("removed 1 exported name that the package `github.com/google/btree` exports: `BTree.Has`"), "{note}");
        // A renamed type takes its members along: only the type is said (trial161 M7).
        std::fs::write(root.join("btree.go"), text.replace("BTree", "Tree")).unwrap();
        let note = go_exports_lost_by_write(&root, &[(root.join("btree.go"), text.to_owned())]).expect("BTree is lost");
        assert!(note.contains("removed 1 exported name that the package `github.com/google/btree` exports: `BTree`"), "{note}");
        assert!(!note.contains("BTree.Has"), "{note}");
        // A member deleted in the same write is lost all the same (review47 L5).
        std::fs::write(
            root.join("btree.go"),
            text.replace("BTree", "Tree").replace("func (t *Tree) Has(key Item) bool { return false }\n", ""),
        )
        .unwrap();
        let note = go_exports_lost_by_write(&root, &[(root.join("btree.go"), text.to_owned())]).expect("BTree is lost");
        assert!(note.contains("exports: `BTree`, `BTree.Has`"), "{note}");
        std::fs::write(root.join("btree.go"), text.replace("func (t *BTree) Has(", "func (t *BTree) Contains(")).unwrap();
        // Moved to another file of the package: not lost.
        std::fs::write(root.join("has.go"), "package btree\n\nfunc (t *BTree) Has(key Item) bool { return false }\n").unwrap();
        assert_eq!(go_exports_lost_by_write(&root, &[(root.join("btree.go"), text.to_owned())]), None);
        // An internal package is no public surface.
        std::fs::create_dir_all(root.join("internal/x")).unwrap();
        std::fs::write(root.join("internal/x/x.go"), "package x\n").unwrap();
        assert_eq!(go_exports_lost_by_write(&root, &[(root.join("internal/x/x.go"), "package x\n\nfunc Gone() {}\n".to_owned())]), None);
        // Names lost from several packages are each named under their own package (trial61 M2:
        // gods' 17 `Size` methods were all said to be `lists/arraylist`'s).
        let mut old_texts = Vec::new();
        for (directory, owner) in [("lists/arraylist", "List"), ("maps/hashmap", "Map"), ("sets/treeset", "Set")] {
            std::fs::create_dir_all(root.join(directory)).unwrap();
            let package = directory.rsplit('/').next().unwrap();
            let old = format!("package {package}\n\ntype {owner} struct{{}}\n\nfunc (l *{owner}) Size() int {{ return 0 }}\n");
            std::fs::write(root.join(directory).join("a.go"), old.replace(") Size()", ") Len()")).unwrap();
            old_texts.push((root.join(directory).join("a.go"), old));
        }
        let note = go_exports_lost_by_write(&root, &old_texts).expect("three are lost");
        assert!(
            note.contains("removed 3 exported names that 3 packages of this module export: `github.com/google/btree/lists/arraylist`: `List.Size`; `github.com/google/btree/maps/hashmap`: `Map.Size`; `github.com/google/btree/sets/treeset`: `Set.Size` — "),
            "{note}"
        );
    }
    use crate::files::FileChange;

    /// A temporary crate `name` with an empty `src/`: (its directory, kept alive; its canonical root).
    fn rust_crate(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("Cargo.toml"), format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\n")).unwrap();
        (dir, root)
    }

    fn change(path: &Path, old: &str, new: &str) -> FileChange {
        FileChange {
            path: path.to_path_buf(),
            new_content: Some(new.as_bytes().to_vec()),
            expected: ExpectedState::Content(old.as_bytes().to_vec()),
        }
    }

    #[test]
    fn go_fields_and_interface_methods_are_named_through_their_type() {
        let lines = [
            "package cmp",
            "",
            "type PathStep interface {",
            "\tType() reflect.Type",
            "\tValues() (vx, vy reflect.Value)",
            "}",
            "",
            "type (",
            "\tNullUUID struct {",
            "\t\tUUID  UUID",
            "\t\tValid bool // set when UUID is not NULL {",
            "\t}",
            ")",
            "func f() {}",
        ];
        assert_eq!(go_enclosing_type(&lines, 4).as_deref(), Some("PathStep"));
        assert_eq!(go_enclosing_type(&lines, 10).as_deref(), Some("NullUUID"));
        assert_eq!(go_enclosing_type(&lines, 13), None);
        let embedding = ["package pflag", "", "type boolFlag interface {", "\tValue", "\tIsBoolFlag() bool", "}"];
        assert_eq!(go_declaration(&embedding, 3, "Value"), None, "an embedded interface");
        assert_eq!(go_declaration(&embedding, 4, "IsBoolFlag"), Some("interface method"));
    }

    #[test]
    fn a_crate_root_re_export_renamed_is_a_public_api_change_with_the_keeping_use() {
        let (_dir, root) = rust_crate("csv-core");
        let lib_old = "mod writer;\npub use crate::writer::{\n    is_non_numeric, quote, Writer,\n};\n";
        let lib_new = lib_old.replace("is_non_numeric", "is_not_numeric");
        std::fs::write(root.join("src/lib.rs"), lib_old).unwrap();
        let writer_old = "pub fn is_non_numeric(b: u8) -> bool {\n    b > 9\n}\n";
        let writer_new = writer_old.replace("is_non_numeric", "is_not_numeric");
        let plan = WorkspaceEditPlan {
            changes: vec![
                change(&root.join("src/lib.rs"), lib_old, &lib_new),
                change(&root.join("src/writer.rs"), writer_old, &writer_new),
            ],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "is_non_numeric", "is_not_numeric");
        // The private `mod writer` is not public; the re-export is.
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("note: public API changed: src/lib.rs:2 re-exports `is_non_numeric`"), "{notes:?}");
        assert!(notes[0].contains("replaces `csv_core::is_non_numeric` with `csv_core::is_not_numeric`"), "{notes:?}");
        assert!(notes[0].contains("`pub use crate::writer::is_not_numeric as is_non_numeric;`"), "{notes:?}");
        // Made `pub mod writer`, the definition is public too.
        std::fs::write(root.join("src/lib.rs"), "pub mod writer;\n").unwrap();
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/writer.rs"), writer_old, &writer_new)],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "is_non_numeric", "is_not_numeric");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("defines `csv_core::writer::is_non_numeric` (`pub fn`) in module `csv_core::writer`"), "{notes:?}");
        // A `pub(crate)` fn is not public API.
        let crate_only = "pub(crate) fn is_non_numeric(b: u8) -> bool {\n    b > 9\n}\n";
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/writer.rs"), crate_only, &crate_only.replace("is_non_numeric", "x"))],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        assert!(public_api_notes(&root, &plan, "is_non_numeric", "x").is_empty());
    }

    #[test]
    fn a_variant_a_variant_field_and_a_trait_item_are_as_public_as_their_enum_or_trait() {
        // trial43 F1: strsim's `pub enum StrSimError { DifferentLengthArgs }` — the variant has
        // no `pub` of its own, and renaming it breaks every dependent that names it (E0599).
        let (_dir, root) = rust_crate("strsim");
        let lib = "pub enum StrSimError {\n    DifferentLengthArgs,\n    Other { DifferentLengthArgs: u8 },\n}\n\nenum Private {\n    DifferentLengthArgs,\n}\n\npub trait Metric {\n    fn DifferentLengthArgs(&self);\n    type DifferentLengthArgs;\n}\n\ntrait Hidden {\n    fn DifferentLengthArgs(&self);\n}\n\nmod inner {\n    pub enum E {\n        DifferentLengthArgs,\n    }\n}\n";
        std::fs::write(root.join("src/lib.rs"), lib).unwrap();
        let renamed = lib.replace("DifferentLengthArgs", "LengthMismatch");
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/lib.rs"), lib, &renamed)],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "DifferentLengthArgs", "LengthMismatch");
        assert_eq!(notes.len(), 4, "the private enum, the private trait and the private module's enum are not public: {notes:#?}");
        assert!(notes[0].starts_with("note: public API changed: src/lib.rs:2 defines the variant `StrSimError::DifferentLengthArgs` of the public enum `strsim::StrSimError`, so this rename makes it `LengthMismatch`"), "{notes:#?}");
        assert!(notes[0].contains("no alias keeps a variant's name"), "{notes:#?}");
        assert!(
            notes[1].starts_with(
                "note: public API changed: src/lib.rs:3 defines the field `DifferentLengthArgs` of the variant `StrSimError::Other`"
            ),
            "{notes:#?}"
        );
        assert!(notes[2].starts_with("note: public API changed: src/lib.rs:11 defines the method `Metric::DifferentLengthArgs` of the public trait `strsim::Metric`"), "{notes:#?}");
        assert!(
            notes[3].starts_with("note: public API changed: src/lib.rs:12 defines the associated type `Metric::DifferentLengthArgs`"),
            "{notes:#?}"
        );
    }

    #[test]
    fn a_type_re_exported_by_a_public_module_publishes_its_methods_and_trait_items() {
        // trial99 F1: indexmap 2.2.6's `pub mod map` re-exports `Entry` and `MutableKeys` from
        // its private modules (`pub use self::core::{Entry, …};`), so `Entry::or_insert` and
        // `MutableKeys::retain2` are `indexmap::map::…` API.
        let (_dir, root) = rust_crate("indexmap");
        std::fs::write(
            root.join("src/lib.rs"),
            "pub mod map;
mod hidden;
",
        )
        .unwrap();
        std::fs::write(
            root.join("src/map.rs"),
            "mod core;
mod mutable;
pub use self::core::Entry;
pub use self::mutable::MutableKeys;
",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("src/map/core")).unwrap();
        std::fs::write(
            root.join("src/map/core.rs"),
            "mod entry;
pub use self::entry::Entry;
",
        )
        .unwrap();
        let entry = "pub enum Entry {\n    Occupied,\n}\n\nimpl Entry {\n    pub fn or_insert(self) {}\n}\n";
        std::fs::write(root.join("src/map/core/entry.rs"), entry).unwrap();
        let mutable = "pub trait MutableKeys {\n    fn retain2(&mut self);\n}\n";
        std::fs::write(root.join("src/map/mutable.rs"), mutable).unwrap();
        std::fs::write(root.join("src/hidden.rs"), "pub struct Kept;\n\nimpl Kept {\n    pub fn or_insert(self) {}\n}\n").unwrap();
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/map/core/entry.rs"), entry, &entry.replace("or_insert", "or_put"))],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "or_insert", "or_put");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(notes[0].starts_with("note: public API changed: src/map/core/entry.rs:6 defines the public method or associated function `or_insert` (public if its type is) in module `indexmap::map`"), "{notes:#?}");
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/map/mutable.rs"), mutable, &mutable.replace("retain2", "retain_keys"))],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "retain2", "retain_keys");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(notes[0].contains("of the public trait `indexmap::map::MutableKeys`"), "{notes:#?}");
        // A type no public module re-exports stays private.
        let hidden = std::fs::read_to_string(root.join("src/hidden.rs")).unwrap();
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/hidden.rs"), &hidden, &hidden.replace("or_insert", "or_put"))],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        assert!(public_api_notes(&root, &plan, "or_insert", "or_put").is_empty());
    }

    #[test]
    fn a_private_module_glob_re_exported_at_the_root_publishes_its_items_not_its_name() {
        // trial66 F5/F6: fastrand 2.1.1's `mod global_rng;` + `pub use global_rng::*;`.
        let (_dir, root) = rust_crate("fastrand");
        let lib = "mod global_rng;\n\n#[cfg(feature = \"std\")]\npub use global_rng::*;\n";
        std::fs::write(root.join("src/lib.rs"), lib).unwrap();
        let module = "pub fn choose_multiple() {}\n\npub struct Guard;\n\nimpl Guard {\n    pub fn keep(&self) {}\n}\n\nfn private_helper() {}\n\nmod inner {\n    pub fn choose_multiple() {}\n}\n";
        std::fs::write(root.join("src/global_rng.rs"), module).unwrap();
        // F5: the free function is `fastrand::choose_multiple`.
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/global_rng.rs"), module, &module.replacen("choose_multiple", "pick_many", 1))],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "choose_multiple", "pick_many");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(notes[0].starts_with("note: public API changed: src/global_rng.rs:1 defines `fastrand::choose_multiple` (`pub fn`) in a private module whose items the crate root re-exports (src/lib.rs:4: `pub use global_rng::*;`)"), "{notes:#?}");
        // A method of a type the glob publishes, too; a private fn and an inline module's fn not.
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/global_rng.rs"), module, &module.replace("keep", "hold"))],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        assert_eq!(public_api_notes(&root, &plan, "keep", "hold").len(), 1);
        for (old, new) in [("private_helper", "helper"), ("mod inner {\n    pub fn choose_multiple", "mod inner {\n    pub fn pick")] {
            let renamed = module.replace(old, new);
            let plan = WorkspaceEditPlan {
                changes: vec![change(&root.join("src/global_rng.rs"), module, &renamed)],
                files: Vec::new(),
                moved_directories: Vec::new(),
            };
            let old_name = if old == "private_helper" { "private_helper" } else { "choose_multiple" };
            assert!(public_api_notes(&root, &plan, old_name, "x").is_empty(), "{old}");
        }
        // F6: renaming the private module changes no public name: the glob exports its items.
        let renamed_lib = lib.replace("global_rng", "global");
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/lib.rs"), lib, &renamed_lib)],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        assert!(public_api_notes(&root, &plan, "global_rng", "global").is_empty());
        // A re-exported module is public under its name: `pub use self::global_rng;`.
        let reexported = "mod global_rng;\npub use self::global_rng;\n";
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/lib.rs"), reexported, &reexported.replace("global_rng", "global"))],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "global_rng", "global");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(notes[0].contains("re-exports `global_rng`"), "{notes:#?}");
    }

    #[test]
    fn a_method_in_a_private_module_of_a_type_the_crate_root_defines_is_public() {
        // trial130 F3: anyhow 1.0.93's `pub struct Error` in lib.rs and `impl Error { pub fn is … }`
        // in the private `mod error;`.
        let (_dir, root) = rust_crate("anyhow");
        std::fs::write(
            root.join("src/lib.rs"),
            "mod error;

pub struct Error {
    inner: u8,
}

struct Private;
",
        )
        .unwrap();
        let error = "use crate::{Error, Private};

impl Error {
    pub fn is(&self) -> bool {
        self.inner > 0
    }
}

impl Private {
    pub fn is(&self) -> bool {
        true
    }
}
";
        std::fs::write(root.join("src/error.rs"), error).unwrap();
        let renamed =
            error.replacen("pub fn is(&self) -> bool {\n        self.inner", "pub fn holds(&self) -> bool {\n        self.inner", 1);
        assert_ne!(renamed, error);
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/error.rs"), error, &renamed)],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "is", "holds");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(
            notes[0].starts_with("note: public API changed: src/error.rs:4 defines the public method or associated function `is`")
                && notes[0].contains("the crate root"),
            "{notes:#?}"
        );
        // A private module's own type named like the root's is not the root's.
        let own = "pub struct Error;\n\nimpl Error {\n    pub fn is(&self) -> bool {\n        true\n    }\n}\n";
        let renamed_own = own.replace("pub fn is(", "pub fn holds(");
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/error.rs"), own, &renamed_own)],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        assert!(public_api_notes(&root, &plan, "is", "holds").is_empty(), "{:#?}", public_api_notes(&root, &plan, "is", "holds"));
        // The private type's method is no public API.
        let renamed = error.replacen("pub fn is(&self) -> bool {\n        true", "pub fn holds(&self) -> bool {\n        true", 1);
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/error.rs"), error, &renamed)],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        assert!(public_api_notes(&root, &plan, "is", "holds").is_empty());
    }

    #[test]
    fn a_method_of_a_type_a_public_module_re_exports_from_its_private_inline_module_is_public() {
        // trial67 F2: once_cell 1.19.0's `pub mod race;` with `pub use self::once_box::OnceBox;`
        // and `mod once_box { … impl<T> OnceBox<T> { pub fn get(&self) … } }`.
        let (_dir, root) = rust_crate("once_cell");
        std::fs::write(root.join("src/lib.rs"), "pub mod race;\n").unwrap();
        let race = "#[cfg(feature = \"alloc\")]\npub use self::once_box::OnceBox;\n\nmod once_box {\n    pub struct OnceBox<T>(T);\n\n    impl<T> OnceBox<T> {\n        pub fn get(&self) -> &T {\n            &self.0\n        }\n    }\n\n    pub struct Hidden;\n\n    impl Hidden {\n        pub fn get(&self) {}\n    }\n}\n";
        std::fs::write(root.join("src/race.rs"), race).unwrap();
        let renamed = race.replacen("pub fn get(&self) -> &T", "pub fn peek(&self) -> &T", 1);
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/race.rs"), race, &renamed)],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "get", "peek");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(
            notes[0].starts_with("note: public API changed: src/race.rs:8 defines the public method or associated function `get`"),
            "{notes:#?}"
        );
        assert!(notes[0].contains("module `once_cell::race`"), "{notes:#?}");
        // `Hidden` is not re-exported: its method is no public API.
        let renamed = race.replacen("pub fn get(&self) {}", "pub fn peek(&self) {}", 1);
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/race.rs"), race, &renamed)],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        assert!(public_api_notes(&root, &plan, "get", "peek").is_empty());
    }

    #[test]
    fn a_method_of_a_trait_the_root_re_exports_from_a_private_module_is_public() {
        // trial48 F4: either 1.13.0's `mod into_either;` + `pub use self::into_either::IntoEither;`.
        let (_dir, root) = rust_crate("either");
        std::fs::write(root.join("src/lib.rs"), "mod into_either;\nmod hidden;\npub use self::into_either::IntoEither;\n").unwrap();
        let module = "pub trait IntoEither: Sized {\n    fn into_either(self, left: bool) -> bool {\n        left\n    }\n}\n";
        std::fs::write(root.join("src/into_either.rs"), module).unwrap();
        let renamed = module.replace("into_either", "to_either");
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/into_either.rs"), module, &renamed)],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "into_either", "to_either");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(notes[0].contains("the method `IntoEither::into_either` of the public trait `either::IntoEither`"), "{notes:#?}");
        // An inherent method of a struct the root re-exports (trial50 F3: `ArrayVec::try_push`).
        std::fs::write(root.join("src/lib.rs"), "mod into_either;\nmod hidden;\npub use self::into_either::{IntoEither, Holder};\n")
            .unwrap();
        let holder = "pub struct Holder;\n\nimpl Holder {\n    pub fn try_push(&self) {}\n}\n";
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/into_either.rs"), holder, &holder.replace("try_push", "push_checked"))],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "try_push", "push_checked");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(notes[0].contains("public method or associated function `try_push`"), "{notes:#?}");
        // A `pub` field of a struct the root re-exports (trial57 M3: textwrap's `Options.break_words`).
        let options = "pub struct Holder {\n    pub break_words: bool,\n    hidden: bool,\n}\n";
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/into_either.rs"), options, &options.replace("break_words", "break_long_words"))],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "break_words", "break_long_words");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(notes[0].contains("the public field `break_words`"), "{notes:#?}");
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/into_either.rs"), options, &options.replace("hidden", "concealed"))],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        assert!(public_api_notes(&root, &plan, "hidden", "concealed").is_empty(), "a private field is no public API");
        // The same trait in a module nothing re-exports is not public.
        std::fs::write(root.join("src/hidden.rs"), module.replace("IntoEither", "Hidden")).unwrap();
        let hidden = module.replace("IntoEither", "Hidden");
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/hidden.rs"), &hidden, &hidden.replace("into_either", "to_either"))],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        assert!(public_api_notes(&root, &plan, "into_either", "to_either").is_empty());
    }

    #[test]
    fn a_library_target_elsewhere_than_src_lib_rs_is_read_from_the_manifest() {
        // `[lib] path = "lib/mylib.rs"` (no src/lib.rs): its modules live beside it, and a
        // binary's `src/main.rs` is no part of the library.
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("lib")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"my-lib\"\nversion = \"0.1.0\"\n\n[lib]\npath = \"lib/mylib.rs\"\n\n[[bin]]\nname = \"tool\"\npath = \"src/main.rs\"\n",
        )
        .unwrap();
        std::fs::write(root.join("lib/mylib.rs"), "pub mod writer;\nmod hidden;\n").unwrap();
        let writer_old = "pub fn quote(b: u8) -> bool {\n    b > 9\n}\n";
        let writer_new = writer_old.replace("quote", "quote_byte");
        std::fs::write(root.join("lib/writer.rs"), writer_old).unwrap();
        let plan = |file: &str, old: &str, new: &str| WorkspaceEditPlan {
            changes: vec![change(&root.join(file), old, new)],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan("lib/writer.rs", writer_old, &writer_new), "quote", "quote_byte");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("defines `my_lib::writer::quote` (`pub fn`) in module `my_lib::writer`"), "{notes:?}");
        // The library root itself is the crate root.
        let root_old = "pub mod writer;\nmod hidden;\npub fn quote() {}\n";
        let notes =
            public_api_notes(&root, &plan("lib/mylib.rs", root_old, &root_old.replace("quote", "quote_byte")), "quote", "quote_byte");
        assert!(notes.len() == 1 && notes[0].contains("defines `my_lib::quote` (`pub fn`) in the crate root"), "{notes:?}");
        // A private module of it, and the binary's main.rs, are not public API.
        std::fs::write(root.join("lib/hidden.rs"), writer_old).unwrap();
        assert!(public_api_notes(&root, &plan("lib/hidden.rs", writer_old, &writer_new), "quote", "quote_byte").is_empty());
        std::fs::write(root.join("src/main.rs"), writer_old).unwrap();
        assert!(public_api_notes(&root, &plan("src/main.rs", writer_old, &writer_new), "quote", "quote_byte").is_empty());
        // Before the manifest was read, src/lib.rs was assumed: a crate whose [lib] path names a
        // missing file has no library target (nothing said), and src/lib.rs alone is one.
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"my-lib\"\nversion = \"0.1.0\"\n\n[lib]\npath = \"lib/gone.rs\"\n")
            .unwrap();
        assert!(public_api_notes(&root, &plan("lib/writer.rs", writer_old, &writer_new), "quote", "quote_byte").is_empty());
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"my-lib\"\nversion = \"0.1.0\"\n").unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub mod writer;\n").unwrap();
        std::fs::write(root.join("src/writer.rs"), writer_old).unwrap();
        let notes = public_api_notes(&root, &plan("src/writer.rs", writer_old, &writer_new), "quote", "quote_byte");
        assert!(notes.len() == 1 && notes[0].contains("`my_lib::writer::quote`"), "{notes:?}");
    }

    #[test]
    fn a_re_export_or_item_in_an_inline_module_is_public_through_that_module_only_when_it_is_pub() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"httparse\"\nversion = \"1.10.1\"\n").unwrap();
        // httparse 1.10.1's src/lib.rs:31 and 40-45, a private and a `pub(crate)` module, and a
        // `pub fn` in a nested `pub mod`.
        let lib_old = "mod iter;\nuse crate::iter::Bytes;\n\n#[doc(hidden)]\npub mod _benchable {\n    pub use super::iter::Bytes;\n}\nmod hidden {\n    pub use super::iter::Bytes;\n}\npub(crate) mod internal {\n    pub use super::iter::Bytes;\n}\npub mod outer {\n    pub mod inner {\n        pub fn Bytes() {}\n    }\n    impl super::X {\n        pub fn Bytes() {}\n    }\n}\n";
        let lib_new = lib_old.replace("Bytes", "ByteCursor");
        std::fs::write(root.join("src/lib.rs"), lib_old).unwrap();
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/lib.rs"), lib_old, &lib_new)],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "Bytes", "ByteCursor");
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].starts_with("note: public API changed: src/lib.rs:6 re-exports `Bytes`"), "{notes:?}");
        assert!(notes[0].contains("replaces `httparse::_benchable::Bytes` with `httparse::_benchable::ByteCursor`"), "{notes:?}");
        assert!(!notes.iter().any(|note| note.contains("`httparse::Bytes`")), "{notes:?}");
        assert!(notes[1].contains("src/lib.rs:16 defines `httparse::outer::inner::Bytes` (`pub fn`)"), "{notes:?}");
        assert!(notes[2].contains("src/lib.rs:19 defines the public method or associated function `Bytes`"), "{notes:?}");
    }

    #[test]
    fn a_go_exported_function_and_type_are_public_api_changes_and_main_and_tests_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("go.mod"), "module github.com/robfig/cron/v3\n\ngo 1.21\n").unwrap();
        let old = "package cron\n\ntype ConstantDelaySchedule struct {\n\tDelay int\n}\n\nfunc Every(d int) ConstantDelaySchedule {\n\treturn ConstantDelaySchedule{d}\n}\n";
        let plan = |old: &str, name: &str, new_name: &str, file: &str| WorkspaceEditPlan {
            changes: vec![change(&root.join(file), old, &old.replace(name, new_name))],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan(old, "Every", "EveryDuration", "constantdelay.go"), "Every", "EveryDuration");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("note: public API changed: constantdelay.go:7 declares the exported func `Every` of package `cron` (import path `github.com/robfig/cron/v3`)"), "{notes:?}");
        assert!(notes[0].contains("`var Every = EveryDuration`"), "{notes:?}");
        let notes =
            public_api_notes(&root, &plan(old, "ConstantDelaySchedule", "Delay2", "constantdelay.go"), "ConstantDelaySchedule", "Delay2");
        assert!(notes.iter().any(|note| note.contains("`type ConstantDelaySchedule = Delay2`")), "{notes:?}");
        let notes = public_api_notes(&root, &plan(old, "Delay", "Wait", "constantdelay.go"), "Delay", "Wait");
        assert!(notes.iter().any(|note| note.contains("exported field `ConstantDelaySchedule.Delay`")), "{notes:?}");
        assert!(notes.iter().any(|note| note.contains("makes it `cron.ConstantDelaySchedule.Wait`")), "{notes:?}");
        assert!(public_api_notes(&root, &plan(old, "Every", "EveryDuration", "constantdelay_test.go"), "Every", "EveryDuration").is_empty());
        let main = old.replace("package cron", "package main");
        assert!(public_api_notes(&root, &plan(&main, "Every", "EveryDuration", "main.go"), "Every", "EveryDuration").is_empty());
        // google/uuid 1.3.0 (trial44 F5): renaming the type `Variant` changes the result type of
        // the method `Variant`, which keeps its name: one note, for the type.
        let old = "package uuid\n\ntype Variant byte\n\nfunc (uuid UUID) Variant() Variant {\n\treturn Variant(uuid[8])\n}\n\nfunc (uuid *UUID) MarshalText() ([]byte, error) {\n\treturn nil, nil\n}\n";
        let new = "package uuid\n\ntype VariantKind byte\n\nfunc (uuid UUID) Variant() VariantKind {\n\treturn VariantKind(uuid[8])\n}\n\nfunc (uuid *UUID) MarshalText() ([]byte, error) {\n\treturn nil, nil\n}\n";
        let renamed =
            WorkspaceEditPlan { changes: vec![change(&root.join("uuid.go"), old, new)], files: Vec::new(), moved_directories: Vec::new() };
        let notes = public_api_notes(&root, &renamed, "Variant", "VariantKind");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(notes[0].starts_with("note: public API changed: uuid.go:3 declares the exported type `Variant`"), "{notes:#?}");
        // A method is named through its receiver's type.
        let notes = public_api_notes(&root, &plan(old, "MarshalText", "EncodeText", "uuid.go"), "MarshalText", "EncodeText");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(
            notes[0].contains("exported method `UUID.MarshalText` of package `uuid`") && notes[0].contains("`uuid.UUID.EncodeText`"),
            "{notes:#?}"
        );
        // xstrings 1.3.3 (trial53 F5): a field or method of an unexported type is no name outside
        // code can write.
        let old = "package xstrings

type runeRangeMap struct {
	FromLo rune
}

func (m *runeRangeMap) Lookup() rune {
	return m.FromLo
}
";
        assert!(public_api_notes(&root, &plan(old, "FromLo", "Low", "translate.go"), "FromLo", "Low").is_empty());
        assert!(public_api_notes(&root, &plan(old, "Lookup", "Find", "translate.go"), "Lookup", "Find").is_empty());
    }

    #[test]
    fn a_key_of_a_composite_literal_in_a_var_block_declares_nothing() {
        // trial139 F5: go-runewidth's `DefaultCondition = &Condition{ EastAsianWidth: false }`.
        let lines: Vec<&str> = vec![
            "var (",
            "\tEastAsianWidth bool",
            "",
            "\tDefaultCondition = &Condition{",
            "\t\tEastAsianWidth:     false,",
            "\t}",
            "\tStrictEmojiNeutral bool = true",
            ")",
        ];
        assert_eq!(go_declaration(&lines, 1, "EastAsianWidth"), Some("var"));
        assert_eq!(go_declaration(&lines, 4, "EastAsianWidth"), None);
        assert_eq!(go_declaration(&lines, 6, "StrictEmojiNeutral"), Some("var"));
        let fields: Vec<&str> = vec!["type Condition struct {", "\tEastAsianWidth bool", "}"];
        assert_eq!(go_declaration(&fields, 1, "EastAsianWidth"), Some("field"));
    }

    #[test]
    fn a_rust_line_that_keeps_its_declared_name_is_no_public_api_change() {
        // The Rust twin of trial44 F5: `pub fn variant(&self) -> Variant` keeps its name when
        // the type `Variant` is renamed.
        let (_dir, root) = rust_crate("uuidish");
        let old = "pub struct Variant;\npub fn Variant() -> Variant {\n    Variant\n}\n";
        let new = "pub struct VariantKind;\npub fn Variant() -> VariantKind {\n    VariantKind\n}\n";
        std::fs::write(root.join("src/lib.rs"), old).unwrap();
        let plan = WorkspaceEditPlan {
            changes: vec![change(&root.join("src/lib.rs"), old, new)],
            files: Vec::new(),
            moved_directories: Vec::new(),
        };
        let notes = public_api_notes(&root, &plan, "Variant", "VariantKind");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(notes[0].starts_with("note: public API changed: src/lib.rs:1 defines `uuidish::Variant` (`pub struct`)"), "{notes:#?}");
    }
}
