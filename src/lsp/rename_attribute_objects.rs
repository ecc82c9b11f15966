//! Python renames of a class member that strings name at run time, told by the object they are
//! read on (R-REN-1; trial154 F3).
//!
//! `getattr(obj, "name")` reads the renamed member only when `obj` is an instance of the renamed
//! member's class (or of a subclass). Renaming marshmallow 3.21.3's `SchemaOpts.datetimeformat`,
//! the one `WARNING` named `self.datetimeformat = getattr(meta, "datetimeformat", None)` — which
//! reads the option of the user's `class Meta`, another object, and must stay — while the live
//! `SCHEMA_OPTS_VAR_NAME = "datetimeformat"`, a class constant that `DateTime._bind_to_schema`
//! passes to `getattr(self.root.opts, self.SCHEMA_OPTS_VAR_NAME)` (`opts` a `SchemaOpts`), was
//! filed among plain strings: the whole suite then failed at import.
//!
//! [`renamed_python_class`] reads the renamed member's class from the `class` statement around
//! its definition. [`object_class`] tells an attribute call's object from its hover and
//! `typeDefinition`: the renamed class or a subclass (climbing at most [`MAX_CLASSES_CLIMBED`]
//! classes through the server's `definition` of each base), another class, an untyped object, or
//! not known (kept as a live reference). [`constant_strings_read_as_attribute_names`] finds the
//! strings `"old"` assigned to a name (`NAME = "old"`, a module or class constant) whose name is
//! the attribute argument of a `getattr` / `setattr` / `hasattr` / `delattr` call on an object of
//! the renamed class (`getattr(x, NAME)`, `getattr(x, self.NAME)`, `getattr(x, cls.NAME)`, the
//! call on one line), at most [`MAX_CONSTANT_READS_HOVERED`] calls and declarations hovered. An
//! object the server does not type that is an attribute (`self.root.opts`, `root` untyped) counts
//! when the class declarations of that attribute (`opts = None  # type: SchemaOpts`) that the
//! server types all type as the renamed class.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::files::WorkspaceReader;
use crate::lsp::client::LanguageServer;
use crate::lsp::rename_coverage::{hover_text, OccurrenceKind, WordHit};

/// The most classes [`object_class`] reads climbing an object's class's bases for the renamed
/// class; past it the object's class is not known.
pub const MAX_CLASSES_CLIMBED: usize = 16;

/// The most attribute calls reading a constant that [`constant_strings_read_as_attribute_names`]
/// hovers, over all constants.
pub const MAX_CONSTANT_READS_HOVERED: usize = 24;

/// A Python class's name with the last dotted part of each of its bases.
pub type ClassBases = (String, Vec<String>);

/// The class whose member a Python rename renames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenamedPythonClass {
    /// The class's name (`SchemaOpts`).
    pub name: String,
    /// Its file (canonical path).
    pub path: PathBuf,
    /// 0-based line of its name.
    pub name_line0: u32,
    /// Every class of the workspace with the last dotted part of each base, read once per rename
    /// when a `self` object needs it ([`combined_with_renamed`]); `None` inside: past the cap.
    pub workspace_class_bases: std::cell::OnceCell<Option<Vec<ClassBases>>>,
}

/// What the object of an attribute call is, as the server types it (see [`object_class`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectClass {
    /// An instance of the renamed class or of one of its subclasses: the string names the
    /// renamed member.
    RenamedOrSubclass,
    /// An instance of another class (its name), which does not descend from the renamed one: the
    /// string names that class's attribute of the same name.
    Other(String),
    /// An object with no declared or inferred type (an unannotated parameter): `(parameter)
    /// meta`, `Unknown`, `Any`.
    Untyped,
    /// Not told: a union, a generic, a module, no hover, a base the server does not resolve, or
    /// the time or class budget spent.
    Unknown,
}

/// The class whose member is defined at one of `origin_targets` (a definition's start: canonical
/// path, 0-based line, column) named `old_name`: a `def` or class attribute in a class body, or
/// an instance attribute a method assigns (`self.old_name = …`). `None` for any other definition
/// (a module-level one, a local, a parameter) or a file that does not parse.
pub fn renamed_python_class(
    reader: &WorkspaceReader,
    origin_targets: &HashSet<(PathBuf, u32, u32)>,
    old_name: &str,
) -> Option<RenamedPythonClass> {
    let mut targets: Vec<&(PathBuf, u32, u32)> = origin_targets.iter().collect();
    targets.sort();
    targets.into_iter().find_map(|(path, line0, _)| {
        if !path.extension().is_some_and(|extension| extension == "py" || extension == "pyi") {
            return None;
        }
        let text = reader.read_to_string(path).ok()?;
        let parsed = crate::lsp::syntax::ParsedSource::parse(path, &text)?;
        let class =
            parsed.python_class_of_method(*line0, old_name).or_else(|| parsed.python_class_of_instance_attribute(*line0, old_name))?;
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        Some(RenamedPythonClass { name: class.name, path, name_line0: class.name_line0, workspace_class_bases: std::cell::OnceCell::new() })
    })
}

/// The declared type of a Python hover's first code line (`(parameter) opts: Opts` → `Some(Some
/// ("Opts"))`), `Some(None)` when the line names no type (`(parameter) meta`) or the type is
/// `Unknown` / `Any`; `None` for a module's hover. A class object's type `type[Opts]` is `Opts`.
fn hovered_declared_type(first_line: &str) -> Option<Option<String>> {
    let (kind, declaration) = match first_line.strip_prefix('(').and_then(|rest| rest.split_once(") ")) {
        Some((kind, rest)) => (kind, rest),
        None => ("", first_line),
    };
    if kind == "module" {
        return None;
    }
    let Some((_, type_text)) = declaration.split_once(": ") else { return Some(None) };
    let mut type_text = type_text.trim();
    if let Some(inner) = type_text.strip_prefix("type[").and_then(|inner| inner.strip_suffix(']')) {
        type_text = inner;
    }
    let type_text = type_text.strip_prefix("Self@").unwrap_or(type_text);
    if matches!(type_text, "Unknown" | "Any" | "") {
        return Some(None);
    }
    Some(Some(type_text.to_owned()))
}

/// What the object whose last identifier is at 0-based (`line`, `character`) of `path` is, its
/// hover's first code line being `hover_first_line` (see [`ObjectClass`]): the hovered type, then
/// the server's `typeDefinition` there — the renamed class's own name line, or a class whose
/// bases climb to it ([`class_climbs_to`]); another class only when neither climbs to the other
/// (a base class of the renamed one, a mixin whose `self` is an instance of it, is not known).
/// Without a `typeDefinition` answer, a type of the renamed class's name is taken for it and
/// any other is not known. Asked until `deadline`.
pub fn object_class(
    server: &LanguageServer,
    workspace_root: &Path,
    reader: &WorkspaceReader,
    (path, line, character): (&Path, u32, u32),
    hover_first_line: &str,
    renamed: &RenamedPythonClass,
    deadline: Instant,
) -> ObjectClass {
    let type_text = match hovered_declared_type(hover_first_line) {
        None => return ObjectClass::Unknown,
        Some(None) => return ObjectClass::Untyped,
        Some(Some(type_text)) => type_text,
    };
    if type_text.contains(['[', ',']) {
        return ObjectClass::Unknown;
    }
    // A union (`IOBase | LazyFile`, trial158 M3) is another class's object only when each of its
    // classes is; `None` in it is no class with members.
    let members: Vec<&str> = type_text.split('|').map(str::trim).filter(|member| *member != "None").collect();
    if members.is_empty() || members.iter().any(|member| member.is_empty() || member.contains(' ')) {
        return ObjectClass::Unknown;
    }
    let bare = |member: &str| member.rsplit('.').next().unwrap_or(member).to_owned();
    // `self` in a method: pyright types it `Self@ParamType`, and its `typeDefinition` is the
    // `self` parameter, no class (trial158 M3: click's `hasattr(self, "name")` in `ParamType`
    // stayed a WARNING for `ShellComplete.name`); its class is the one around the method.
    let self_class = (members.len() == 1 && hover_first_line.contains(&format!("Self@{}", members[0])))
        .then(|| enclosing_class_named(reader, path, line, members[0]))
        .flatten();
    // A mixin's `self` is an instance of each class that combines it: when some class of the
    // workspace derives both from it and from the renamed class, `self` may be the renamed
    // class's instance (review48 H3: `DescribeMixin.describe`'s `getattr(self, "name")` read
    // `Renamed.name` on `Thing(DescribeMixin, Renamed)`).
    if self_class.is_some() && combined_with_renamed(reader, workspace_root, members[0], renamed) != Some(false) {
        return ObjectClass::Unknown;
    }
    let mut starts: Vec<(PathBuf, u32)> = match self_class {
        Some(start) => vec![start],
        None => {
            type_definition_targets(server, path, line, character, deadline).into_iter().map(|(path, line0, _)| (path, line0)).collect()
        }
    };
    starts.sort();
    starts.dedup();
    if starts.is_empty() && members.len() == 1 {
        return if bare(members[0]) == renamed.name { ObjectClass::RenamedOrSubclass } else { ObjectClass::Unknown };
    }
    // Each class of the type answered (a type the server does not resolve is not known).
    if starts.len() < members.len() {
        return ObjectClass::Unknown;
    }
    let renamed_start = (renamed.path.clone(), renamed.name_line0);
    for start in starts {
        if class_is_structural(reader, &start) {
            return ObjectClass::Unknown;
        }
        // The object's class climbs to the renamed one: a subclass. The renamed class climbing
        // to the object's is no other object: a base class's method (a mixin's `getattr(self,
        // "old")`) reads the renamed member on instances of the renamed class.
        match class_climbs_to(server, workspace_root, reader, start.clone(), &renamed_start, deadline) {
            Some(true) => return ObjectClass::RenamedOrSubclass,
            None => return ObjectClass::Unknown,
            Some(false) => {
                if class_climbs_to(server, workspace_root, reader, renamed_start.clone(), &start, deadline) != Some(false) {
                    return ObjectClass::Unknown;
                }
            }
        }
    }
    ObjectClass::Other(members.iter().map(|member| bare(member)).collect::<Vec<_>>().join(" | "))
}

/// Whether some Python class beneath `workspace_root` derives (directly or through other
/// classes, told by name) both from the class named `mixin` and from the `renamed` class or a
/// class deriving from it. The workspace's classes are read once per rename
/// ([`RenamedPythonClass::workspace_class_bases`]). `None` when the files could not all be read.
fn combined_with_renamed(reader: &WorkspaceReader, workspace_root: &Path, mixin: &str, renamed: &RenamedPythonClass) -> Option<bool> {
    let bases_of = renamed.workspace_class_bases.get_or_init(|| workspace_python_class_bases(reader, workspace_root)).as_ref()?;
    let descendants = |root: &str| -> HashSet<String> {
        let mut found: HashSet<String> = HashSet::from([root.to_owned()]);
        loop {
            let before = found.len();
            for (name, bases) in bases_of {
                if bases.iter().any(|base| found.contains(base)) {
                    found.insert(name.clone());
                }
            }
            if found.len() == before {
                return found;
            }
        }
    };
    let (of_mixin, of_renamed) = (descendants(mixin), descendants(&renamed.name));
    Some(of_mixin.iter().any(|name| name != mixin && of_renamed.contains(name)))
}

/// Every Python class beneath `workspace_root` (by the syntax tree) with the last dotted part of
/// each base; `None` past 3000 `.py` files or when the walk cannot start.
fn workspace_python_class_bases(reader: &WorkspaceReader, workspace_root: &Path) -> Option<Vec<ClassBases>> {
    let walk = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), workspace_root).ok()?;
    let mut bases_of: Vec<ClassBases> = Vec::new();
    let mut files = 0usize;
    for entry in walk.hidden(true).skip_names(&["node_modules", "target", ".git", ".venv", "venv", "__pycache__"]).iter().flatten() {
        if !entry.is_file() || entry.path().extension().is_none_or(|extension| extension != "py") {
            continue;
        }
        files += 1;
        if files > 3000 {
            return None;
        }
        let Ok(text) = reader.read_to_string(entry.path()) else { continue };
        let Some(source) = crate::lsp::syntax::ParsedSource::parse(entry.path(), &text) else { continue };
        for class in source.python_classes() {
            let bases = class
                .bases
                .iter()
                .map(|base| base.text.split('[').next().unwrap_or("").rsplit('.').next().unwrap_or("").trim().to_owned())
                .collect();
            bases_of.push((class.name, bases));
        }
    }
    Some(bases_of)
}

/// The class named `name` whose body holds 0-based `line` of the Python file `path` (canonical),
/// as (path, 0-based line of its name): the class of `self` there.
fn enclosing_class_named(reader: &WorkspaceReader, path: &Path, line: u32, name: &str) -> Option<(PathBuf, u32)> {
    let text = reader.read_to_string(path).ok()?;
    let source = crate::lsp::syntax::ParsedSource::parse(path, &text)?;
    let class = source.python_class_enclosing(line)?;
    (class.name == name).then(|| (path.to_path_buf(), class.name_line0))
}

/// Whether the Python class named at `start` (canonical path, 0-based line of its name) is the
/// class named at `goal` or descends from it: its bases resolved with `server`'s `definition`,
/// climbed breadth-first through the files beneath `workspace_root` (a library class does not
/// derive from the workspace's), at most [`MAX_CLASSES_CLIMBED`] classes. `None` when a class
/// does not parse, a base does not resolve, or the budget or `deadline` runs out.
fn class_climbs_to(
    server: &LanguageServer,
    workspace_root: &Path,
    reader: &WorkspaceReader,
    start: (PathBuf, u32),
    goal: &(PathBuf, u32),
    deadline: Instant,
) -> Option<bool> {
    let canonical_root = std::fs::canonicalize(workspace_root).unwrap_or_else(|_| workspace_root.to_path_buf());
    let mut queue: VecDeque<(PathBuf, u32)> = VecDeque::from([start]);
    let mut climbed: HashSet<(PathBuf, u32)> = HashSet::new();
    let mut parsed: HashMap<PathBuf, Option<(String, crate::lsp::syntax::ParsedSource)>> = HashMap::new();
    while let Some((class_path, class_line0)) = queue.pop_front() {
        if class_path == goal.0 && class_line0 == goal.1 {
            return Some(true);
        }
        if !class_path.starts_with(&canonical_root) || !climbed.insert((class_path.clone(), class_line0)) {
            continue;
        }
        if climbed.len() > MAX_CLASSES_CLIMBED || Instant::now() >= deadline {
            return None;
        }
        let source = parsed.entry(class_path.clone()).or_insert_with(|| {
            let text = reader.read_to_string(&class_path).ok()?;
            let parsed = crate::lsp::syntax::ParsedSource::parse(&class_path, &text)?;
            Some((text, parsed))
        });
        let (text, source) = source.as_ref()?;
        let class = source.python_class_named_at(class_line0)?;
        for base in &class.bases {
            let base_line = text.lines().nth(base.line0 as usize)?;
            let base_character = server.position_encoding().column_from_byte(base_line, base.byte_column);
            let targets = crate::lsp::rename_coverage::definition_targets(server, &class_path, base.line0, base_character, deadline);
            if targets.is_empty() {
                return None;
            }
            queue.extend(targets.into_iter().map(|(target_path, target_line, _)| (target_path, target_line)));
        }
    }
    Some(false)
}

/// Whether the Python class named at `start` (canonical path, 0-based line of its name) is
/// structural or abstract itself — a `Protocol` or `ABC` among its bases, or `metaclass=ABCMeta`
/// in its header (over lines too): an instance of a class that never climbs to it by its bases
/// may stand for it at run time (review46 #11). Only the class itself counts: a concrete class
/// with an abstract ancestor is no stand-in for unrelated classes (review47 H2).
fn class_is_structural(reader: &WorkspaceReader, start: &(PathBuf, u32)) -> bool {
    let Ok(text) = reader.read_to_string(&start.0) else { return false };
    let Some(source) = crate::lsp::syntax::ParsedSource::parse(&start.0, &text) else { return false };
    let Some(class) = source.python_class_named_at(start.1) else { return false };
    if class.bases.iter().any(|base| is_structural_base(&base.text)) {
        return true;
    }
    // The header up to the `:` that opens the body (at most 10 lines).
    let mut header = String::new();
    for line in text.lines().skip(start.1 as usize).take(10) {
        header.push_str(line.split('#').next().unwrap_or(line));
        if line.trim_end().ends_with(':') {
            break;
        }
    }
    let header: String = header.split_whitespace().collect();
    header.contains("metaclass=ABCMeta") || header.contains("metaclass=abc.ABCMeta")
}

/// Whether a Python base expression makes its class structural or abstract: `Protocol`,
/// `typing.Protocol`, `Protocol[T]`, `ABC`, `abc.ABC`.
fn is_structural_base(base: &str) -> bool {
    let name = base.split('[').next().unwrap_or(base).trim();
    let name = name.rsplit('.').next().unwrap_or(name);
    name == "Protocol" || name == "ABC"
}

/// The starts of `textDocument/typeDefinition` at (`line`, `character`) of `path` (canonical
/// paths, 0-based lines and columns). Empty when the server does not offer it, answers nothing,
/// or fails before `deadline`.
fn type_definition_targets(
    server: &LanguageServer,
    path: &Path,
    line: u32,
    character: u32,
    deadline: Instant,
) -> HashSet<(PathBuf, u32, u32)> {
    if !server.supports("textDocument/typeDefinition") || server.sync_document(path).is_err() {
        return HashSet::new();
    }
    let params = lsp_types::GotoDefinitionParams {
        text_document_position_params: crate::lsp::rename_coverage::text_document_position(path, line, character),
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    let Ok(answer) = server.request::<lsp_types::request::GotoTypeDefinition>(params, deadline) else { return HashSet::new() };
    crate::lsp::rename_coverage::response_targets(&answer)
}

/// Whether a Python line copies an object's attribute of the renamed name into the renamed
/// instance attribute: `self.old_name = getattr(…` (an options object read into the class, as
/// marshmallow's `SchemaOpts.__init__` reads each `class Meta` option).
pub fn copies_same_named_attribute(line: &str, old_name: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("self.").and_then(|rest| rest.strip_prefix(old_name)) else { return false };
    let Some(value) = rest.trim_start().strip_prefix('=') else { return false };
    !value.starts_with('=') && value.trim_start().starts_with("getattr(")
}

/// The name a Python string is assigned to when the string at bytes `start..start + word_len` of
/// `source` is exactly that content and the whole right side of an assignment to a plain name
/// (`NAME = "old"`, `NAME: str = "old"`, a module or class constant). `None` otherwise.
pub fn python_constant_assigned_string(source: &str, start: usize, word_len: usize) -> Option<String> {
    use ast_grep_core::tree_sitter::StrDoc;
    use ast_grep_core::AstGrep;
    let root = AstGrep::<StrDoc<ast_grep_language::SupportLang>>::try_new(source, ast_grep_language::SupportLang::Python).ok()?;
    let node = root.root().get_inner_node().descendant_for_byte_range(start, start + word_len)?;
    let string = if node.kind() == "string" { node } else { node.parent().filter(|parent| parent.kind() == "string")? };
    let content = string.named_children(&mut string.walk()).find(|child| child.kind() == "string_content")?;
    if content.start_byte() != start || content.end_byte() != start + word_len {
        return None;
    }
    let assignment = string.parent().filter(|parent| parent.kind() == "assignment")?;
    assignment.child_by_field_name("right").filter(|right| right.id() == string.id())?;
    let left = assignment.child_by_field_name("left").filter(|left| left.kind() == "identifier")?;
    source.get(left.start_byte()..left.end_byte()).map(str::to_owned)
}

/// When the name at byte `name_start` of a Python line (`name_len` bytes), bare or qualified
/// (`self.NAME`, `cls.NAME`, `Class.NAME`), is the attribute argument (the second) of a
/// `getattr` / `setattr` / `hasattr` / `delattr` call on the same line: the call's function, its
/// object argument's text (`self.root.opts`) and the byte where the object's last identifier
/// starts. `None` otherwise, or when the object does not end with an identifier (a call).
pub fn python_attribute_argument_object(line: &str, name_start: usize, name_len: usize) -> Option<(String, String, usize)> {
    let after = line.get(name_start + name_len..)?.trim_start();
    if !after.starts_with([')', ',']) {
        return None;
    }
    let mut start = name_start;
    while line[..start].ends_with('.') {
        let qualifier_end = start - 1;
        let qualifier_len =
            line[..qualifier_end].chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_').map(char::len_utf8).sum::<usize>();
        if qualifier_len == 0 {
            return None;
        }
        start = qualifier_end - qualifier_len;
    }
    let before = &line[..start];
    let comma = before.trim_end().strip_suffix(',')?.len();
    let open = before[..comma].rfind('(')?;
    let function_len = before[..open].chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_').map(char::len_utf8).sum::<usize>();
    let function = &before[open - function_len..open];
    if !matches!(function, "getattr" | "setattr" | "hasattr" | "delattr") {
        return None;
    }
    let object = before[open + 1..comma].trim();
    let object_end = open + 1 + before[open + 1..comma].trim_end().len();
    let identifier_len = object.chars().rev().take_while(|c| c.is_alphanumeric() || *c == '_').map(char::len_utf8).sum::<usize>();
    (identifier_len > 0 && !object.is_empty()).then(|| (function.to_owned(), object.to_owned(), object_end - identifier_len))
}

/// A string left in a constant that an attribute call on the renamed class reads (see
/// [`constant_strings_read_as_attribute_names`]).
#[derive(Debug, Clone)]
pub struct ConstantRead {
    /// The index of the string in the `in_text` list it was found in.
    pub index: usize,
    /// What the listing says of it: `` `SCHEMA_OPTS_VAR_NAME`, read by `getattr(self.root.opts,
    /// …)` at src/fields.py:1274 on a `SchemaOpts` ``.
    pub note: String,
}

/// Of `in_text` (a rename's occurrences in strings and comments, with their kind), the plain
/// Python strings `"old_name"` assigned to a name (`NAME = "old_name"`) that a `getattr` /
/// `setattr` / `hasattr` / `delattr` call passes as the attribute name (`getattr(obj,
/// self.NAME)`) on an object of the renamed class or a subclass ([`object_class`]): live
/// references, each with the call that reads it. The constant's uses are found by a whole-word
/// walk of the files `server` serves; at most [`MAX_CONSTANT_READS_HOVERED`] calls are hovered,
/// until `deadline`.
#[allow(clippy::too_many_arguments)]
pub fn constant_strings_read_as_attribute_names(
    server: &LanguageServer,
    workspace_root: &Path,
    reader: &WorkspaceReader,
    in_text: &[(WordHit, OccurrenceKind)],
    renamed: &RenamedPythonClass,
    old_name: &str,
    shown: &dyn Fn(&Path) -> String,
    deadline: Instant,
) -> Vec<ConstantRead> {
    let mut found = Vec::new();
    let mut reads_by_constant: HashMap<String, Option<String>> = HashMap::new();
    let mut hovered = 0usize;
    for (index, (hit, kind)) in in_text.iter().enumerate() {
        if *kind != OccurrenceKind::Text || !hit.path.extension().is_some_and(|extension| extension == "py" || extension == "pyi") {
            continue;
        }
        let Ok(text) = reader.read_to_string(&hit.path) else { continue };
        let Some(line_start) =
            text.split_inclusive('\n').take(hit.line as usize).map(str::len).try_fold(0usize, |sum, len| sum.checked_add(len))
        else {
            continue;
        };
        let Some(constant) = python_constant_assigned_string(&text, line_start + hit.byte_start, old_name.len()) else { continue };
        let read = reads_by_constant
            .entry(constant.clone())
            .or_insert_with(|| {
                let uses = crate::lsp::rename_coverage::grep_word(server.definition(), workspace_root, server.root(), &constant);
                for usage in &uses.hits {
                    let Some((function, object, identifier_at)) =
                        python_attribute_argument_object(&usage.line_text, usage.byte_start, constant.len())
                    else {
                        continue;
                    };
                    if hovered >= MAX_CONSTANT_READS_HOVERED || Instant::now() >= deadline {
                        return None;
                    }
                    hovered += 1;
                    let character = server.position_encoding().column_from_byte(&usage.line_text, identifier_at);
                    let Some(hover) = hover_text(server, &usage.path, usage.line, character, deadline) else { continue };
                    let first_line =
                        hover.lines().map(str::trim).find(|line| !line.is_empty() && !line.starts_with("```")).unwrap_or_default();
                    let class =
                        object_class(server, workspace_root, reader, (&usage.path, usage.line, character), first_line, renamed, deadline);
                    let read_at = format!("`{function}({object}, …)` at {}:{}", shown(&usage.path), usage.line + 1);
                    if class == ObjectClass::RenamedOrSubclass {
                        return Some(format!("`{constant}`, read by {read_at} on a `{}`", renamed.name));
                    }
                    // An attribute the server does not type through its untyped owner
                    // (marshmallow's `self.root.opts`, `root` being `Unknown | None`) is read
                    // by its declarations (`opts = None  # type: SchemaOpts`).
                    if class == ObjectClass::Untyped || class == ObjectClass::Unknown {
                        let Some((_, attribute)) = object.rsplit_once('.') else { continue };
                        if let Some(declared_at) =
                            attribute_declared_as_renamed_class(server, workspace_root, reader, attribute, renamed, &mut hovered, deadline)
                        {
                            return Some(format!(
                                "`{constant}`, read by {read_at}, whose object {} does not type; `{attribute}` is declared a `{}` at {}",
                                server.id(),
                                renamed.name,
                                declared_at
                            ));
                        }
                    }
                }
                None
            })
            .clone();
        if let Some(note) = read {
            found.push(ConstantRead { index, note });
        }
    }
    found
}

/// Where a class declares the attribute `attribute` (`opts = None  # type: SchemaOpts`, `opts:
/// SchemaOpts`, `self.opts: SchemaOpts = …`, the name first on its line) as the renamed class or
/// a subclass, when every such declaration `server` types does (`path:line`, the first);
/// `None` when one types as another class or none types. Each declaration hovered counts in
/// `hovered`, up to [`MAX_CONSTANT_READS_HOVERED`], until `deadline`.
fn attribute_declared_as_renamed_class(
    server: &LanguageServer,
    workspace_root: &Path,
    reader: &WorkspaceReader,
    attribute: &str,
    renamed: &RenamedPythonClass,
    hovered: &mut usize,
    deadline: Instant,
) -> Option<String> {
    let declarations = crate::lsp::rename_coverage::grep_word(server.definition(), workspace_root, server.root(), attribute);
    let mut declared_at = None;
    for hit in &declarations.hits {
        let code = hit.line_text.trim_start();
        let indent = hit.line_text.len() - code.len();
        let first = if code.starts_with("self.") { indent + "self.".len() } else { indent };
        if hit.byte_start != first || indent == 0 {
            continue;
        }
        let after = hit.line_text[hit.byte_start + attribute.len()..].trim_start();
        let declares = after.starts_with(':') || (after.starts_with('=') && !after.starts_with("=="));
        if !declares {
            continue;
        }
        if *hovered >= MAX_CONSTANT_READS_HOVERED || Instant::now() >= deadline {
            return None;
        }
        *hovered += 1;
        let character = server.position_encoding().column_from_byte(&hit.line_text, hit.byte_start);
        let Some(hover) = hover_text(server, &hit.path, hit.line, character, deadline) else { continue };
        let first_line = hover.lines().map(str::trim).find(|line| !line.is_empty() && !line.starts_with("```")).unwrap_or_default();
        match object_class(server, workspace_root, reader, (&hit.path, hit.line, character), first_line, renamed, deadline) {
            ObjectClass::RenamedOrSubclass => {
                declared_at.get_or_insert_with(|| format!("{}:{}", crate::render::display_path(workspace_root, &hit.path), hit.line + 1));
            }
            ObjectClass::Other(_) => return None,
            ObjectClass::Untyped | ObjectClass::Unknown => {}
        }
    }
    declared_at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hover_names_the_objects_type_or_none() {
        assert_eq!(hovered_declared_type("(parameter) opts: Opts"), Some(Some("Opts".to_owned())));
        assert_eq!(hovered_declared_type("(parameter) meta"), Some(None));
        assert_eq!(hovered_declared_type("(variable) x: Unknown"), Some(None));
        assert_eq!(hovered_declared_type("(variable) opts: type[SchemaOpts]"), Some(Some("SchemaOpts".to_owned())));
        assert_eq!(hovered_declared_type("(variable) self: Self@Opts"), Some(Some("Opts".to_owned())));
        assert_eq!(hovered_declared_type("(module) nap"), None);
    }

    #[test]
    fn a_line_copying_a_same_named_attribute_is_told() {
        assert!(copies_same_named_attribute("        self.fmt = getattr(meta, \"fmt\", None)", "fmt"));
        assert!(!copies_same_named_attribute("        self.fmt_x = getattr(meta, \"fmt\", None)", "fmt"));
        assert!(!copies_same_named_attribute("        x = getattr(meta, \"fmt\", None)", "fmt"));
        assert!(!copies_same_named_attribute("        self.fmt == getattr(meta, \"fmt\")", "fmt"));
    }

    #[test]
    fn a_string_assigned_to_a_constant_is_told_from_other_strings() {
        let source = "class F:\n    VAR = \"fmt\"\n    DOC: str = \"fmt\"\n    x.y = \"fmt\"\n    call(\"fmt\")\n    Z = \"fmt!\"\n";
        let at = |needle: &str| source.find(needle).unwrap() + needle.find("fmt").unwrap();
        assert_eq!(python_constant_assigned_string(source, at("VAR = \"fmt"), 3).as_deref(), Some("VAR"));
        assert_eq!(python_constant_assigned_string(source, at("DOC: str = \"fmt"), 3).as_deref(), Some("DOC"));
        assert_eq!(python_constant_assigned_string(source, at("x.y = \"fmt"), 3), None, "an attribute target");
        assert_eq!(python_constant_assigned_string(source, at("call(\"fmt"), 3), None, "an argument");
        assert_eq!(python_constant_assigned_string(source, at("Z = \"fmt"), 3), None, "more than the name");
    }

    #[test]
    fn a_constant_passed_as_an_attribute_name_is_read_off_its_line() {
        let line = "            or getattr(self.root.opts, self.SCHEMA_OPTS_VAR_NAME)";
        let name_at = line.find("SCHEMA").unwrap();
        assert_eq!(
            python_attribute_argument_object(line, name_at, "SCHEMA_OPTS_VAR_NAME".len()),
            Some(("getattr".to_owned(), "self.root.opts".to_owned(), line.find("opts,").unwrap()))
        );
        let line = "    return getattr(opts, VAR, None)";
        assert_eq!(
            python_attribute_argument_object(line, line.find("VAR").unwrap(), 3),
            Some(("getattr".to_owned(), "opts".to_owned(), line.find("opts").unwrap()))
        );
        let line = "    print(opts, self.VAR)";
        assert_eq!(python_attribute_argument_object(line, line.find("VAR").unwrap(), 3), None, "no attribute call");
        let line = "    getattr(opts, self.VAR + \"x\")";
        assert_eq!(python_attribute_argument_object(line, line.find("VAR").unwrap(), 3), None, "a name built from it");
        let line = "    getattr(make(), self.VAR)";
        assert_eq!(python_attribute_argument_object(line, line.find("VAR").unwrap(), 3), None, "a call's result");
    }
}
