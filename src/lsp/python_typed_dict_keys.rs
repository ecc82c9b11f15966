//! Python: keyword arguments that reach a constructor's parameter through a `TypedDict` key
//! (trial177 F1). A subclass typed `def __init__(self, **kwargs: Unpack[_Kw]) -> None:
//! super().__init__(**kwargs)` makes pyright resolve `Sub(key=…)` to the key `_Kw.key`, not to
//! the parameter `key` of the base's `__init__` that the keyword reaches at run time: pyright's
//! rename of the parameter leaves those keywords (the subclass then raises TypeError) and its
//! references do not list them. marshmallow 4.4.0: `Field.__init__(data_key=…)` renamed left 10
//! `fields.Integer(data_key=…)` calls that reach it through `_BaseFieldKwargs.data_key`; 9 tests
//! failed and pyright reported only the 16 `super().__init__(**kwargs)` lines.
//!
//! The tie is read from the syntax tree of the key's file: the key is declared in a class listing
//! `TypedDict` as a base, and a class of that file whose `__init__` takes `Unpack[ThatClass]`
//! derives (through bases named in that file) from the renamed constructor's class.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::files::WorkspaceReader;
use crate::lsp::syntax::{ParsedSource, PythonClassFacts};

/// A `TypedDict` key that a subclass of the renamed constructor's class unpacks as its
/// `**kwargs` (see the module's doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnpackedTypedDictKey {
    /// The `TypedDict` class's name (`_BaseFieldKwargs`).
    pub class: String,
    /// Absolute path of the file that declares it.
    pub path: PathBuf,
    /// 0-based line of the key's declaration (`data_key: str | None`).
    pub line0: u32,
    /// The classes of that file whose `__init__` takes `**kwargs: Unpack[class]` and that derive
    /// from one of the renamed constructor's classes, in source order (`Integer`, `Number`).
    pub unpacking_classes: Vec<String>,
}

/// The last part of a base as written, without its subscript (`typing.TypedDict` → `TypedDict`,
/// `Generic[T]` → `Generic`).
fn base_name(text: &str) -> &str {
    text.split('[').next().unwrap_or("").rsplit('.').next().unwrap_or("").trim()
}

/// Whether `class` has a base (by its last dotted segment, without `[…]`) that `wanted`
/// accepts, itself or through the bases of `classes` (the file's classes) named so, followed to
/// the end (each class once).
fn has_base_in_file(class: &PythonClassFacts, classes: &[PythonClassFacts], wanted: impl Fn(&str) -> bool) -> bool {
    let mut seen: Vec<&str> = Vec::new();
    let mut pending: Vec<&PythonClassFacts> = vec![class];
    while let Some(current) = pending.pop() {
        if seen.contains(&current.name.as_str()) {
            continue;
        }
        seen.push(&current.name);
        for base in &current.bases {
            let base = base_name(&base.text);
            if wanted(base) {
                return true;
            }
            pending.extend(classes.iter().filter(|other| other.name == base));
        }
    }
    false
}

/// Whether line `line0` of the Python file `path` (its text `text`) declares the key `name` of a
/// `TypedDict` class (`name: T` in the body of a class listing `TypedDict`, or another
/// `TypedDict` class of the file, as a base) that a class of the same file deriving from one of
/// `constructor_classes` unpacks as the `**kwargs` of its `__init__`
/// (`**kwargs: Unpack[TheClass]`). `None` when it is not, or the file does not parse.
pub(crate) fn unpacked_typed_dict_key(
    path: &Path,
    text: &str,
    line0: u32,
    name: &str,
    constructor_classes: &[String],
) -> Option<UnpackedTypedDictKey> {
    let line = text.lines().nth(line0 as usize)?;
    let after = line.trim_start().strip_prefix(name)?;
    if !after.trim_start().starts_with(':') {
        return None;
    }
    let parsed = ParsedSource::parse(path, text)?;
    let class = parsed.python_class_enclosing(line0)?;
    let classes = parsed.python_classes();
    // The class itself, or through bases of the file (`class _Kw(_BaseKw, total=False)`).
    if !has_base_in_file(&class, &classes, |base| base == "TypedDict") {
        return None;
    }
    // A class deriving (through bases named in this file) from one of the constructor's classes.
    let derives_from_constructor = |class: &PythonClassFacts| {
        has_base_in_file(class, &classes, |base| constructor_classes.iter().any(|constructor| constructor == base))
    };
    let unpacked = format!("Unpack[{}]", class.name);
    let lines: Vec<&str> = text.lines().collect();
    let mut unpacking_classes: Vec<String> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if !line.contains(&unpacked) || !line.contains("**") {
            continue;
        }
        let Some(owner) = parsed.python_class_enclosing(index as u32) else { continue };
        if derives_from_constructor(&owner) && !unpacking_classes.contains(&owner.name) {
            unpacking_classes.push(owner.name);
        }
    }
    if unpacking_classes.is_empty() {
        return None;
    }
    Some(UnpackedTypedDictKey { class: class.name, path: path.to_path_buf(), line0, unpacking_classes })
}

/// The `old=` keyword arguments a rename of a constructor's parameter leaves because pyright
/// resolves them to an [`UnpackedTypedDictKey`] (trial177 F1): they stage the rename, and the
/// advice renames the key too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedDictKeywordsLeft {
    /// The `TypedDict` class's name (`_BaseFieldKwargs`).
    pub class: String,
    /// The key's file, as shown (`src/marshmallow/fields.py`).
    pub file: String,
    /// 1-based line of the key's declaration.
    pub line: u32,
    /// The classes whose `__init__` unpacks it as `**kwargs` (see [`UnpackedTypedDictKey`]).
    pub unpacking_classes: Vec<String>,
    /// The keyword arguments left, `path:line` as shown.
    pub uses: Vec<String>,
}

/// The keyword arguments `name=` that reach a constructor's parameter `name` through
/// [`UnpackedTypedDictKey`]s, found for `references` (the rename finds them among its
/// occurrences that lead elsewhere): each key with its keyword uses (absolute path, 0-based
/// line), and whether the deadline cut the search short.
pub(crate) struct KeywordsThroughTypedDicts {
    /// Each key, with the keyword uses pyright resolves to it, in grep order.
    pub keys: Vec<(UnpackedTypedDictKey, Vec<(PathBuf, u32)>)>,
    /// The keyword arguments not asked about before the deadline.
    pub not_asked: usize,
}

/// For a parameter `name` of an `__init__`/`__new__` of the classes `constructor_classes`: the
/// `name=` keyword arguments on calls spelled as classes (`fields.Integer(…)`) in the Python files
/// `hits` grep found, whose definition `server` resolves to a [`UnpackedTypedDictKey`] (asked
/// one by one until `deadline`).
pub(crate) fn keywords_through_typed_dicts(
    server: &crate::lsp::client::LanguageServer,
    reader: &WorkspaceReader,
    hits: &[crate::lsp::rename_coverage::WordHit],
    name: &str,
    constructor_classes: &[String],
    encoding: crate::lsp::position::PositionEncoding,
    deadline: Instant,
) -> KeywordsThroughTypedDicts {
    let mut found = KeywordsThroughTypedDicts { keys: Vec::new(), not_asked: 0 };
    let mut keyword_callees = crate::lsp::rename_pytest_fixtures::KeywordCallees::default();
    let mut known_keys: std::collections::HashMap<(PathBuf, u32), Option<UnpackedTypedDictKey>> = std::collections::HashMap::new();
    for hit in hits {
        if hit.path.extension().is_none_or(|ext| ext != "py" && ext != "pyi") {
            continue;
        }
        let Some(callee) = keyword_callees.callee_at(reader, &hit.path, name, hit.line, hit.byte_start) else {
            continue;
        };
        let last = callee.rsplit('.').next().unwrap_or(callee);
        if !last.starts_with(|first: char| first.is_uppercase()) || constructor_classes.iter().any(|class| class == last) {
            continue;
        }
        if Instant::now() >= deadline {
            found.not_asked += 1;
            continue;
        }
        let character = encoding.column_from_byte(&hit.line_text, hit.byte_start);
        let targets = crate::lsp::rename_coverage::definition_targets(server, &hit.path, hit.line, character, deadline);
        for (path, line0, _) in targets {
            let key = known_keys
                .entry((path.clone(), line0))
                .or_insert_with(|| {
                    let text = reader.read_to_string(&path).ok()?;
                    unpacked_typed_dict_key(&path, &text, line0, name, constructor_classes)
                })
                .clone();
            let Some(key) = key else { continue };
            match found.keys.iter_mut().find(|(known, _)| *known == key) {
                Some((_, uses)) => uses.push((hit.path.clone(), hit.line)),
                None => found.keys.push((key, vec![(hit.path.clone(), hit.line)])),
            }
            break;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = "from typing import TypedDict, Unpack\n\n\nclass _Kw(TypedDict, total=False):\n    key: str | None\n\n\nclass Base:\n    def __init__(self, *, key: str | None = None) -> None:\n        self.key = key\n\n\nclass Mid(Base):\n    def __init__(self, **kwargs: Unpack[_Kw]) -> None:\n        super().__init__(**kwargs)\n\n\nclass Typed(Mid):\n    def __init__(self, *, extra: int = 0, **kwargs: Unpack[_Kw]) -> None:\n        super().__init__(**kwargs)\n\n\nclass Other:\n    def __init__(self, **kwargs: Unpack[_Kw]) -> None:\n        pass\n";

    #[test]
    fn a_typed_dict_key_unpacked_by_subclasses_of_the_constructor_class_is_found() {
        let path = Path::new("/p/lib.py");
        let key = unpacked_typed_dict_key(path, LIB, 4, "key", &["Base".to_owned()]).expect("the key");
        assert_eq!(key.class, "_Kw");
        assert_eq!(key.line0, 4);
        assert_eq!(key.unpacking_classes, vec!["Mid".to_owned(), "Typed".to_owned()], "not `Other`, no subclass of Base");
        // No subclass of that class unpacks it; not a key line; not a TypedDict.
        assert_eq!(unpacked_typed_dict_key(path, LIB, 4, "key", &["Unrelated".to_owned()]), None);
        assert_eq!(unpacked_typed_dict_key(path, LIB, 9, "key", &["Base".to_owned()]), None);
        let plain = LIB.replace("class _Kw(TypedDict, total=False)", "class _Kw");
        assert_eq!(unpacked_typed_dict_key(path, &plain, 4, "key", &["Base".to_owned()]), None);
    }
}
