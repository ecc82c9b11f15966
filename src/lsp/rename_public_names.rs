//! What a Python rename does to a package's public names (R-REN-1; issue 11, trial19py M4).
//!
//! pyright renames a re-export along with the symbol: itsdangerous 2.2.0's
//! `src/itsdangerous/__init__.py` has `from .encoding import want_bytes as want_bytes` (the
//! PEP 484 explicit re-export), and renaming `want_bytes` to `ensure_bytes` turned it into
//! `ensure_bytes as ensure_bytes` — so `itsdangerous.want_bytes`, a name code outside the
//! workspace may use, disappeared, and the answer did not say so. [`public_name_notes`] finds
//! the import statements of a rename's plan that publish the old name and says which public
//! name changes and how to keep the old one.
//!
//! A statement publishes the old name when it is an explicit re-export (`import … OLD as OLD`
//! in any `.py`/`.pyi` file, the form type checkers treat as public) or, in a package's
//! `__init__.py`, a plain `from … import OLD` of a name that does not start with `_` (it makes
//! `package.OLD` importable). Read from the plan's own texts; from disk only the package layout
//! (which directories hold an `__init__.py`, for the dotted module name `markdown.core`) and the
//! enclosing package's `__init__.py` (whether it star-imports the module). A module without
//! `__all__` whose package `__init__.py` star-imports it publishes every top-level name not
//! starting with `_`: renaming its definition changes the package-level name too (trial 27 F2).

use std::path::Path;

use crate::files::ExpectedState;
use crate::lsp::rename::WorkspaceEditPlan;

/// One note per import statement of `plan` (its pre-rename text) that publishes `old_name` and
/// that the rename changes, e.g. `note: public name changed: src/pkg/__init__.py:27 re-exports
/// `want_bytes` (`from .encoding import want_bytes as want_bytes`), so this rename replaces
/// `pkg.want_bytes` with `pkg.ensure_bytes` — code outside this workspace that imports the old
/// name breaks; to keep it, also add `want_bytes = ensure_bytes` in that file`. Lines are
/// 1-based; a statement is quoted on one line, cut (and marked) after 120 characters. A
/// module-level definition of a public module of a package (see [`is_public_package_module`])
/// is said when no such statement is (trial28 M8). Rust and Go
/// renames get [`crate::lsp::rename_public_api::public_api_notes`]'s lines. Empty for other
/// languages and when no such statement changes.
pub fn public_name_notes(workspace_root: &Path, plan: &WorkspaceEditPlan, old_name: &str, new_name: &str) -> Vec<String> {
    let mut notes = Vec::new();
    // A public module's own name, said after the re-exports, `__all__` entries and star imports.
    let mut module_notes: Vec<String> = Vec::new();
    for change in &plan.changes {
        let is_python = matches!(change.path.extension().and_then(|e| e.to_str()), Some("py" | "pyi"));
        let (ExpectedState::Content(old_bytes), Some(new_bytes)) = (&change.expected, &change.new_content) else { continue };
        if !is_python {
            continue;
        }
        let old_text = String::from_utf8_lossy(old_bytes);
        let new_text = String::from_utf8_lossy(new_bytes);
        let old_lines: Vec<&str> = old_text.lines().collect();
        let new_lines: Vec<&str> = new_text.lines().collect();
        let is_package_init = change.path.file_name().is_some_and(|name| name == "__init__.py" || name == "__init__.pyi");
        // Lines pair up when the rename kept the line count (it renames within lines).
        let changed_by_rename = |statement: &ImportStatement| {
            if old_lines.len() == new_lines.len() {
                statement.lines.clone().any(|index| old_lines[index] != new_lines[index])
            } else {
                !new_text.contains(&statement.text)
            }
        };
        for statement in all_statements(&old_lines) {
            let listed = [format!("\"{old_name}\""), format!("'{old_name}'")].iter().any(|quoted| statement.text.contains(quoted.as_str()));
            let changed = changed_by_rename(&statement);
            if !(listed && changed) {
                continue;
            }
            let shown = crate::render::display_path(workspace_root, &change.path);
            let module = dotted_module_name(workspace_root, &change.path, is_package_init);
            // The entry's own line (pyparsing 3.3.3: `"counted_array",` is at :316, the
            // `__all__ = [` it belongs to at :240).
            let entry_line = statement
                .lines
                .clone()
                .find(|&index| {
                    [format!("\"{old_name}\""), format!("'{old_name}'")].iter().any(|quoted| old_lines[index].contains(quoted.as_str()))
                })
                .unwrap_or(statement.lines.start);
            let gone = match package_star_importing(workspace_root, &change.path, is_package_init) {
                Some(package) => format!("`{module}.{old_name}` and the package-level `{package}.{old_name}` are gone"),
                None => format!("`{module}.{old_name}` is gone"),
            };
            notes.push(format!(
                "note: public name changed: {shown}:{} lists `{old_name}` in `__all__`, so `from {module} import *` — and every package that star-imports it — exports `{new_name}` instead of `{old_name}` ({gone}) — code outside this workspace that imports the old name breaks; to keep it, also add `{old_name} = {new_name}` in {shown} and list both names in `__all__`",
                entry_line + 1
            ));
        }
        // No `__all__`: `from module import *` binds every top-level name not starting with
        // `_`, so a package whose `__init__.py` star-imports the module publishes the renamed
        // definition (voluptuous 0.16.0, trial 27 F2: `from voluptuous.validators import *`
        // made `Clamp` the documented `voluptuous.Clamp`).
        if !old_name.starts_with('_') && all_statements(&old_lines).is_empty() {
            let definition = top_level_definition_line(&old_lines, old_name)
                .filter(|&index| old_lines.len() != new_lines.len() || old_lines[index] != new_lines[index]);
            let shown = crate::render::display_path(workspace_root, &change.path);
            let module = dotted_module_name(workspace_root, &change.path, is_package_init);
            match (definition, package_star_importing(workspace_root, &change.path, is_package_init)) {
                (Some(index), Some(package)) => notes.push(format!(
                    "note: public name changed: {shown}:{} defines `{old_name}` at module level and has no `__all__`, so `from {module} import *` in the package's `__init__.py` publishes it: this rename replaces the package-level `{package}.{old_name}` (and `{module}.{old_name}`) with `{package}.{new_name}` — code outside this workspace that imports the old name breaks; to keep it, also add `{old_name} = {new_name}` in {shown}",
                    index + 1
                )),
                // A public module of a package (no `_` in its dotted name, not tests or docs):
                // its module-level names are importable API (pathspec 0.12.1 `pathspec.util`,
                // documented with `automodule`; trial28 M8: renaming `normalize_file` said
                // nothing).
                (Some(index), None) if is_public_package_module(workspace_root, &change.path, &module) => module_notes.push(format!(
                    "note: public name changed: {shown}:{} defines `{old_name}` at module level in `{module}`, a public module of its package (no `_` in its dotted name, no `__all__` to narrow it), so this rename replaces `{module}.{old_name}` with `{module}.{new_name}` — code outside this workspace that imports the old name breaks; to keep it, also add `{old_name} = {new_name}` in {shown}",
                    index + 1
                )),
                _ => {}
            }
        }
        for statement in import_statements(&old_lines) {
            let changed = changed_by_rename(&statement);
            if !changed {
                continue;
            }
            let explicit = publishes_explicitly(&statement.words, old_name);
            let implicit = is_package_init && !old_name.starts_with('_') && publishes_from_package_init(&statement.words, old_name);
            if !(explicit || implicit) {
                continue;
            }
            let shown = crate::render::display_path(workspace_root, &change.path);
            let public_owner = dotted_module_name(workspace_root, &change.path, is_package_init);
            let quoted: String = statement.text.split_whitespace().collect::<Vec<_>>().join(" ");
            let quoted = crate::render::cut_chars(&quoted, 120);
            let how = if explicit { "re-exports" } else { "imports into the package (a public name of it)" };
            notes.push(format!(
                "note: public name changed: {shown}:{} {how} `{old_name}` (`{quoted}`), so this rename replaces `{public_owner}.{old_name}` with `{public_owner}.{new_name}` — code outside this workspace that imports the old name breaks; to keep it, also add `{old_name} = {new_name}` in {shown} (or re-export with `… import {new_name} as {old_name}`)",
                statement.lines.start + 1
            ));
        }
    }
    // The module's own path is public too where a re-export also publishes the name: users and
    // the project's own tests import it from there (trial69 M2: itsdangerous'
    // `from itsdangerous.signer import HMACAlgorithm`, documented under `itsdangerous.signer`,
    // broke while only the re-export `itsdangerous.HMACAlgorithm` was named).
    notes.extend(module_notes);
    // A public member of a class the package publishes (trial49 F1).
    for (path, old_text, new_text) in plan.python_texts() {
        notes.extend(python_member_note(workspace_root, path, &old_text, &new_text, old_name, new_name));
        notes.extend(python_keyword_parameter_note(workspace_root, path, &old_text, &new_text, old_name, new_name));
    }
    // Rust library crates and Go packages (trial27b M9).
    notes.extend(crate::lsp::rename_public_api::public_api_notes(workspace_root, plan, old_name, new_name));
    notes
}

/// The most files of a virtual environment [`installed_users_note`] reads.
const INSTALLED_FILES_READ: usize = 20_000;

/// A WARNING when packages installed in the project's virtual environment use a public name
/// this rename changes, through this workspace's package installed editable there (trial166
/// M1: pluggy 1.7.0's `HookimplMarker` → `HookImplMarker` was complete and "no new errors",
/// and the `.venv`'s pytest — the project's test runner — then failed at
/// `from pluggy import HookimplMarker` in `_pytest/config/__init__.py`). `edited` are the
/// rename's files (the top-level packages of those inside a package are looked for, in one walk); `server_root` the Python
/// project root whose interpreter the servers use. Only a virtual environment inside the
/// workspace is read (at most [`INSTALLED_FILES_READ`] files); a package with its own copy
/// in `site-packages` (not an editable install) is left: that copy does not change. `None`
/// when no installed file uses the name.
pub fn installed_users_note(workspace_root: &Path, server_root: &Path, edited: &[&Path], old_name: &str, new_name: &str) -> Option<String> {
    let reader = crate::files::WorkspaceReader::open(workspace_root).ok()?;
    let mut tops: Vec<String> = Vec::new();
    for file in edited {
        let in_package = file
            .parent()
            .is_some_and(|directory| ["__init__.py", "__init__.pyi"].iter().any(|init| reader.open_file(&directory.join(init)).is_ok()));
        let Some(dotted) = crate::lsp::dependents::python_dotted_module_name(&reader, file).filter(|_| in_package) else { continue };
        let top = dotted.split('.').next().unwrap_or(&dotted).to_owned();
        if !tops.contains(&top) {
            tops.push(top);
        }
    }
    if tops.is_empty() {
        return None;
    }
    let interpreter = crate::python_env::resolve_project_interpreter(server_root, workspace_root, None, None).ok()?;
    let venv_dir = interpreter.venv_dir().filter(|venv| venv.starts_with(workspace_root))?.to_path_buf();
    let mut uses: Vec<String> = Vec::new();
    let mut found_tops: Vec<String> = Vec::new();
    let mut read = 0usize;
    for site_packages in crate::python_env::site_packages_dirs(&venv_dir) {
        // An installed copy of a package is what its users import: the rename does not reach
        // them. Without one, the package must be installed editable from this workspace: a
        // `.pth` naming a workspace directory, or an `__editable__` finder naming the package
        // (review49 M3: a package not installed at all was said "installed editable").
        let editable_marks: Vec<String> = crate::files::walk_beneath::list_directory(workspace_root, &site_packages)
            .into_iter()
            .filter(|(path, kind)| {
                let file_name = path.file_name().and_then(|name| name.to_str()).unwrap_or("");
                kind.is_file() && (file_name.ends_with(".pth") || (file_name.starts_with("__editable__") && file_name.ends_with(".py")))
            })
            .filter_map(|(path, _)| reader.read_to_string(&path).ok())
            .collect();
        let workspace_shown = workspace_root.to_string_lossy().into_owned();
        let editable_tops: Vec<&String> = tops
            .iter()
            .filter(|top| {
                let installed_copy = [site_packages.join(top).join("__init__.py"), site_packages.join(format!("{top}.py"))]
                    .iter()
                    .any(|path| reader.open_file(path).is_ok());
                let editable = editable_marks.iter().any(|text| {
                    text.lines().any(|line| line.trim_start().starts_with(workspace_shown.as_str()))
                        || text.contains(&format!("'{top}'"))
                        || text.contains(&format!("\"{top}\""))
                });
                !installed_copy && editable
            })
            .collect();
        if editable_tops.is_empty() {
            continue;
        }
        let Ok(walk) = crate::files::walk_beneath::BeneathWalk::new(reader.beneath(), &site_packages) else { continue };
        for entry in walk.standard_filters(false).skip_names(&["__pycache__"]).iter().flatten() {
            if !entry.is_file() || entry.path().extension().is_none_or(|extension| extension != "py") {
                continue;
            }
            read += 1;
            if read > INSTALLED_FILES_READ {
                break;
            }
            let Ok(text) = reader.read_to_string(entry.path()) else { continue };
            if !text.contains(old_name) {
                continue;
            }
            let statements = import_statements(&text.lines().collect::<Vec<_>>());
            let mut lines: Vec<usize> = Vec::new();
            for top in editable_tops.iter().filter(|top| text.contains(top.as_str())) {
                let lines_before = lines.len();
                let qualified = format!("{top}.{old_name}");
                for statement in &statements {
                    let imports_it = statement.text.trim_start().strip_prefix("from ").is_some_and(|rest| {
                        let module = rest.split_whitespace().next().unwrap_or("");
                        (module == top.as_str() || module.starts_with(&format!("{top}.")))
                            && rest
                                .split_once(" import ")
                                .is_some_and(|(_, names)| !crate::lsp::rename_coverage::word_positions(names, old_name).is_empty())
                    });
                    if imports_it {
                        lines.push(statement.lines.start + 1);
                    }
                }
                for (index, line) in text.lines().enumerate() {
                    let code = line.split('#').next().unwrap_or("");
                    // `pluggy.HookimplMarker`, not `mypluggy.HookimplMarker`.
                    let through_package = crate::lsp::rename_coverage::word_positions(code, old_name).iter().any(|&at| {
                        let prefix = &code[..at + old_name.len()];
                        prefix.ends_with(qualified.as_str())
                            && prefix[..prefix.len() - qualified.len()]
                                .chars()
                                .next_back()
                                .is_none_or(|before| !crate::lsp::position::is_identifier_char(before) && before != '.')
                    });
                    if through_package {
                        lines.push(index + 1);
                    }
                }
                if lines.len() > lines_before && !found_tops.contains(top) {
                    found_tops.push((*top).clone());
                }
            }
            lines.sort_unstable();
            lines.dedup();
            let shown = entry.path().strip_prefix(&site_packages).unwrap_or(entry.path()).display().to_string();
            uses.extend(lines.into_iter().map(|line| format!("{shown}:{line}")));
        }
    }
    if uses.is_empty() {
        return None;
    }
    const NAMED: usize = 6;
    let named: Vec<&str> = uses.iter().take(NAMED).map(String::as_str).collect();
    let venv_shown = crate::render::display_path(workspace_root, &venv_dir);
    Some(format!(
        "WARNING: packages installed in `{venv_shown}` use `{}`, and `{}` there {} this workspace's (installed editable, no copy in site-packages): {}{} — after this rename they fail at import or at the use (a test runner or plugin among them stops the project's tests from starting); keep the old name (`{old_name} = {new_name}` where it is published), or rename it there too",
        found_tops.iter().map(|top| format!("{top}.{old_name}")).collect::<Vec<_>>().join("`, `"),
        found_tops.join("`, `"),
        crate::render::one_or_many(found_tops.len(), "is", "are"),
        named.join(", "),
        if uses.len() > named.len() { format!(" and {} more", uses.len() - named.len()) } else { String::new() },
    ))
}

/// For a Python module's rename (`old_text` → `new_text`, which keeps the line count): a
/// `note: public API changed: …` when the rename changes the definition of a public member —
/// a method, a class attribute or an instance attribute (`self.name = …`), its name not starting
/// with `_` — of a module-level public class that the package publishes (see
/// [`python_class_publication`]). pluggy 1.5.0's `PluginManager.parse_hookimpl_opts` is the
/// documented hook pytest's `PytestPluginManager` overrides: renaming it in pluggy left pytest's
/// override uncalled and pytest crashed at startup, while the answer said nothing of the public
/// API (trial49 F1). The note says how to keep the old name for callers and that a subclass
/// outside that overrides the old name is no longer called. `None` otherwise.
fn python_member_note(
    workspace_root: &Path,
    path: &Path,
    old_text: &str,
    new_text: &str,
    old_name: &str,
    new_name: &str,
) -> Option<String> {
    if old_name.starts_with('_') {
        return None;
    }
    let (old_lines, new_lines, parsed, renamed) = renamed_module(path, old_text, new_text)?;
    // The definition itself is renamed: the new line defines the new name the same way. A line
    // `self.bisect_left = _list.bisect_left` whose right side alone the rename changes keeps the
    // attribute (sortedcontainers' `SortedDict.bisect_left`, trial53 F1).
    let defines_new_name = |index: usize| {
        renamed.python_class_of_method(index as u32, new_name).is_some()
            || renamed.python_class_of_instance_attribute(index as u32, new_name).is_some()
    };
    let changed: Vec<usize> =
        (0..old_lines.len()).filter(|&index| old_lines[index] != new_lines[index] && defines_new_name(index)).collect();
    // A `def` or class attribute first: it declares the member an instance attribute of the same
    // name may shadow (cachetools' `self.getsizeof = getsizeof` beside `def getsizeof`).
    let declarations = changed.iter().filter(|&&index| parsed.python_class_of_method(index as u32, old_name).is_some());
    let instance_attributes = changed.iter().filter(|&&index| parsed.python_class_of_method(index as u32, old_name).is_none());
    for &index in declarations.chain(instance_attributes) {
        let line0 = index as u32;
        let (class, kind) = if let Some(class) = parsed.python_class_of_method(line0, old_name) {
            let trimmed = old_lines[index].trim_start();
            let kind = if trimmed.starts_with("def ") || trimmed.starts_with("async def ") {
                let decorated_property =
                    old_lines[..index].iter().rev().map(|line| line.trim_start()).take_while(|line| line.starts_with('@')).any(|line| {
                        line == "@property" || line.starts_with("@functools.cached_property") || line.starts_with("@cached_property")
                    });
                if decorated_property {
                    "property"
                } else {
                    "method"
                }
            } else {
                "class attribute"
            };
            (class, kind)
        } else if let Some(class) = parsed.python_class_of_instance_attribute(line0, old_name) {
            (class, "instance attribute")
        } else {
            continue;
        };
        if top_level_definition_line(&old_lines, &class.name) != Some(class.name_line0 as usize) {
            continue;
        }
        let shown = crate::render::display_path(workspace_root, path);
        // A private base's member is public through the published subclasses of its module that
        // inherit it (trial140 F3: cachetools' `_TimedCache.timer`, documented as `TTLCache.timer`).
        if class.name.starts_with('_') {
            let heirs = published_heirs(workspace_root, path, &old_lines, &parsed, &class.name, old_name);
            let Some((heir, published)) = heirs.first() else { continue };
            let names: Vec<String> = heirs.iter().map(|(name, _)| format!("`{name}`")).collect();
            return Some(format!(
                "note: public API changed: {shown}:{} declares `{old_name}`, a {kind} of the private class `{}` that its public {} {} {} — `{heir}` {published} — this rename changes `{heir}.{old_name}` to `{heir}.{new_name}`: code outside this workspace that uses it breaks, and a subclass there that overrides it silently stops overriding (no error shows it); {}, and say the break in the changelog",
                index + 1,
                class.name,
                crate::render::one_or_many(heirs.len(), "subclass", "subclasses"),
                names.join(", "),
                crate::render::one_or_many(heirs.len(), "inherits", "inherit"),
                if kind == "method" || kind == "property" {
                    format!("to keep it, also add `{old_name} = {new_name}` in `{}`'s body", class.name)
                } else {
                    format!("to keep it, also add a property `{old_name}` to `{}` that reads (and sets) `self.{new_name}`", class.name)
                },
            ));
        }
        let Some(published) = python_class_publication(workspace_root, path, &old_lines, &class.name) else { continue };
        let class_name = &class.name;
        let keep = if kind == "method" {
            format!("to keep it for callers, also add `{old_name} = {new_name}` in the class body, and say the break in the changelog")
        } else {
            format!("to keep it, also add a property `{old_name}` to `{class_name}` that reads (and sets) `self.{new_name}`")
        };
        return Some(format!(
            "note: public API changed: {shown}:{} declares `{old_name}`, a public {kind} of the class `{class_name}`, which {published} — this rename changes `{class_name}.{old_name}` to `{class_name}.{new_name}`: code outside this workspace that uses it breaks, and a subclass there that overrides it silently stops overriding (no error shows it); {keep}",
            index + 1
        ));
    }
    None
}

/// For a Python module's rename: a `note: public API changed: …` when the rename changes a
/// parameter of a public function — module-level and published by its package, or a public
/// method (or `__init__`) of a published class: callers outside the workspace that pass it by
/// keyword (`register(p, name=…)`, `TTLCache(maxsize=2, ttl=2)`) break (trial51 M2, trial53
/// M4: `SortedList(key=…)` renamed broke 111 tests). `None` otherwise.
fn python_keyword_parameter_note(
    workspace_root: &Path,
    path: &Path,
    old_text: &str,
    new_text: &str,
    old_name: &str,
    new_name: &str,
) -> Option<String> {
    if matches!(old_name, "self" | "cls") || old_name.starts_with('_') {
        return None;
    }
    let (old_lines, new_lines, parsed, renamed) = renamed_module(path, old_text, new_text)?;
    for index in (0..old_lines.len()).filter(|&index| old_lines[index] != new_lines[index]) {
        let Some((function, def_line0)) = parsed.python_function_of_parameter(index as u32, old_name) else { continue };
        if renamed.python_function_of_parameter(index as u32, new_name).is_none() {
            continue;
        }
        let public_function = !function.starts_with('_') || function == "__init__";
        if !public_function {
            continue;
        }
        let owner = match parsed.python_class_of_method(def_line0, &function) {
            Some(class) => {
                if class.name.starts_with('_') || top_level_definition_line(&old_lines, &class.name) != Some(class.name_line0 as usize) {
                    continue;
                }
                let Some(published) = python_class_publication(workspace_root, path, &old_lines, &class.name) else { continue };
                let callable =
                    if function == "__init__" { format!("`{}(…)`", class.name) } else { format!("`{}.{function}`", class.name) };
                format!("{callable}, whose class {published}")
            }
            None => {
                if top_level_definition_line(&old_lines, &function) != Some(def_line0 as usize) {
                    continue;
                }
                let Some(published) = python_class_publication(workspace_root, path, &old_lines, &function) else { continue };
                format!("`{function}`, which {published}")
            }
        };
        let shown = crate::render::display_path(workspace_root, path);
        // A `**kwargs` takes the old keyword silently: no TypeError, the argument just stops
        // having its effect (trial72 F2: marshmallow's `Field(data_key=…)` went into
        // `**additional_metadata`, 0 pyright errors, 5 tests failed).
        if let Some(splat) = parsed.python_keyword_splat_of(def_line0, &function) {
            return Some(format!(
                "note: public API changed: {shown}:{} renames the parameter `{old_name}` of {owner}, which also takes `{splat}`: a caller that still passes `{old_name}=…` gets NO error — the keyword goes into `{splat}` silently and stops having its effect — outside this workspace and in the calls here the rename leaves (pyright reports none of them); to keep them working, accept both for a while (read `{old_name}` from `{splat}` with a deprecation warning), or say the break in the changelog",
                index + 1
            ));
        }
        return Some(format!(
            "note: public API changed: {shown}:{} renames the parameter `{old_name}` of {owner} — callers outside this workspace that pass it by keyword (`{old_name}=…`) break with a TypeError; to keep them working, accept both for a while (`def …({new_name}=None, *, {old_name}=None)` or `**kwargs`, with a deprecation warning), or say the break in the changelog",
            index + 1
        ));
    }
    None
}

/// A Python module before and after a rename that keeps its line count (a rename edits within
/// lines): its lines before and after, and both texts parsed. `None` when the line counts differ
/// or a text does not parse.
#[allow(clippy::type_complexity)]
fn renamed_module<'a>(
    path: &Path,
    old_text: &'a str,
    new_text: &'a str,
) -> Option<(Vec<&'a str>, Vec<&'a str>, crate::lsp::syntax::ParsedSource, crate::lsp::syntax::ParsedSource)> {
    let old_lines: Vec<&str> = old_text.lines().collect();
    let new_lines: Vec<&str> = new_text.lines().collect();
    if old_lines.len() != new_lines.len() {
        return None;
    }
    let parsed = crate::lsp::syntax::ParsedSource::parse(path, old_text)?;
    let renamed = crate::lsp::syntax::ParsedSource::parse(path, new_text)?;
    Some((old_lines, new_lines, parsed, renamed))
}

/// The module-level classes of the module at `path` (its lines `lines`, parsed as `parsed`) whose
/// header lists `base` among its bases, that do not define `member` themselves and that the
/// package publishes ([`python_class_publication`]): (class name, how it is published), in
/// source order.
fn published_heirs(
    workspace_root: &Path,
    path: &Path,
    lines: &[&str],
    parsed: &crate::lsp::syntax::ParsedSource,
    base: &str,
    member: &str,
) -> Vec<(String, String)> {
    let mut heirs = Vec::new();
    // Module-level classes (a `class` statement at column 0) that list `base` as written.
    let module_level = |class: &crate::lsp::syntax::PythonClassFacts| {
        lines.get(class.name_line0 as usize).is_some_and(|line| line.starts_with("class "))
            && class.bases.iter().any(|listed| listed.text == base)
    };
    for class in parsed.python_classes_with_base(base).into_iter().filter(module_level) {
        if class.name.starts_with('_') || class.member_line(member).is_some() {
            continue;
        }
        if let Some(published) = python_class_publication(workspace_root, path, lines, &class.name) {
            heirs.push((class.name.clone(), published));
        }
    }
    heirs
}

/// How the module-level class `class_name` of the module at `path` (its lines `lines`) is
/// published, worded for a note (`the package exports as `pluggy.PluginManager` (src/pluggy/__init__.py:12)``):
/// an enclosing package's `__init__.py` imports it by name (or star-imports the module, whose
/// `__all__` lists it or is absent), or the module is a public module of its package
/// ([`is_public_package_module`]) whose `__all__` lists it or is absent. `None` when none is so.
fn python_class_publication(workspace_root: &Path, path: &Path, lines: &[&str], class_name: &str) -> Option<String> {
    let all = all_statements(lines);
    let listed_or_no_all = all.is_empty()
        || all.iter().any(|statement| {
            [format!("\"{class_name}\""), format!("'{class_name}'")].iter().any(|quoted| statement.text.contains(quoted.as_str()))
        });
    let mut directory = path.parent();
    while let Some(current) = directory.filter(|current| current.starts_with(workspace_root) && is_package_directory(current)) {
        let init = current.join("__init__.py");
        if init != path {
            if let Ok(text) = crate::files::read_workspace_file_to_string(workspace_root, &init) {
                let init_lines: Vec<&str> = text.lines().collect();
                let importing = import_statements(&init_lines).into_iter().find(|statement| {
                    publishes_from_package_init(&statement.words, class_name) || publishes_explicitly(&statement.words, class_name)
                });
                if let Some(statement) = importing {
                    let package = dotted_module_name(workspace_root, &init, true);
                    return Some(format!(
                        "the package exports as `{package}.{class_name}` ({}:{})",
                        crate::render::display_path(workspace_root, &init),
                        statement.lines.start + 1
                    ));
                }
            }
        }
        directory = current.parent();
    }
    if !listed_or_no_all {
        return None;
    }
    let is_package_init = path.file_name().is_some_and(|name| name == "__init__.py" || name == "__init__.pyi");
    if let Some(package) = package_star_importing(workspace_root, path, is_package_init) {
        return Some(format!("the package exports as `{package}.{class_name}` (its `__init__.py` star-imports the module)"));
    }
    let module = dotted_module_name(workspace_root, path, is_package_init);
    if is_package_init {
        return Some(format!("is public as `{module}.{class_name}` (defined in the package's `__init__.py`)"));
    }
    is_public_package_module(workspace_root, path, &module)
        .then(|| format!("is public as `{module}.{class_name}` (a public module of its package)"))
}

/// The 0-based line of the module-level definition of `name` in `lines`: `def name`, `async
/// def name`, `class name` or an assignment `name = …` / `name: T = …` at column 0. `None` when
/// the module defines no such top-level name.
fn top_level_definition_line(lines: &[&str], name: &str) -> Option<usize> {
    lines.iter().enumerate().position(|(index, line)| {
        // A definition inside module-level `if`/`try`/`with` blocks is a module-level name too
        // (trial47 F1: packaging's `try: ExceptionGroup … except NameError: class ExceptionGroup`).
        let indentation = line.len() - line.trim_start().len();
        if indentation > 0 && !only_module_level_blocks_above(lines, index, indentation) {
            return false;
        }
        let line = &line[indentation..];
        let rest = line.strip_prefix("async def ").or_else(|| line.strip_prefix("def ")).or_else(|| line.strip_prefix("class "));
        let (rest, is_header) = match rest {
            Some(rest) => (rest.trim_start(), true),
            None => (line, false),
        };
        let Some(after) = rest.strip_prefix(name) else { return false };
        let next = after.chars().next();
        if next.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return false;
        }
        if is_header {
            return true;
        }
        let after = after.trim_start();
        (after.starts_with('=') && !after.starts_with("==")) || (after.starts_with(':') && !after.starts_with(":="))
    })
}

/// Whether the Python name at byte `byte_start` of 0-based line `line0` of `text` is a module's
/// own binding or use of it: not an attribute (`self.sleep`, `x.retry`), on a line at column 0,
/// inside module-level `if`/`try`/`with` blocks only, or inside a module-level parenthesized
/// import (`from .nap import (\n    sleep,\n)`). An instance attribute of the same spelling is
/// not the name `__all__` lists or an `import` brings (trial55 F1/F2: tenacity's
/// `RetryAction.sleep` renamed rewrote `"sleep"` in `__all__`, the module's `sleep` function).
pub(crate) fn python_module_level_occurrence(text: &str, line0: usize, byte_start: usize) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    let Some(line) = lines.get(line0) else { return false };
    if line.get(..byte_start).is_some_and(|before| before.trim_end().ends_with('.')) {
        return false;
    }
    let indentation = line.len() - line.trim_start().len();
    if indentation == 0 || only_module_level_blocks_above(&lines, line0, indentation) {
        return true;
    }
    // A continuation line of a module-level `from m import (` / `import (`.
    lines[..line0]
        .iter()
        .rev()
        .find(|above| {
            let trimmed = above.trim_start();
            !trimmed.is_empty() && !trimmed.starts_with('#') && above.len() - trimmed.len() < indentation
        })
        .is_some_and(|opening| {
            let trimmed = opening.trim_start();
            (trimmed.starts_with("from ") || trimmed.starts_with("import "))
                && trimmed.trim_end().ends_with('(')
                && (opening.len() == trimmed.len() || only_module_level_blocks_above(&lines, line0, opening.len() - trimmed.len()))
        })
}

/// Whether the blocks enclosing line `index` (indented by `indentation`) are all module-level
/// compound statements that run at import time (`if`, `elif`, `else`, `try`, `except`,
/// `finally`, `with`): found by the nearest less-indented line above, up to column 0.
fn only_module_level_blocks_above(lines: &[&str], index: usize, indentation: usize) -> bool {
    let mut level = indentation;
    for line in lines[..index].iter().rev() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let own = line.len() - trimmed.len();
        if own >= level {
            continue;
        }
        let keyword: String = trimmed.chars().take_while(|c| c.is_alphabetic()).collect();
        if !matches!(keyword.as_str(), "if" | "elif" | "else" | "try" | "except" | "finally" | "with")
            || !trimmed.split('#').next().unwrap_or("").trim_end().ends_with(':')
        {
            return false;
        }
        if own == 0 {
            return true;
        }
        level = own;
    }
    false
}

/// One import statement: its lines (0-based, half-open), its text (lines joined by newlines)
/// and its identifier words, comments left out.
struct ImportStatement {
    lines: std::ops::Range<usize>,
    text: String,
    words: Vec<String>,
}

/// The `import …` / `from … import …` statements of a module, each with the lines it spans (a
/// parenthesized name list or `\` continuations). Lines inside a triple-quoted string (a
/// docstring saying "import the things you need") are not statements.
fn import_statements(lines: &[&str]) -> Vec<ImportStatement> {
    let mut statements = Vec::new();
    let mut index = 0;
    // The delimiter of the triple-quoted string the scan is inside, if any.
    let mut open_string: Option<&str> = None;
    while index < lines.len() {
        let line = lines[index];
        if let Some(delimiter) = open_string {
            if line.matches(delimiter).count() % 2 == 1 {
                open_string = None;
            }
            index += 1;
            continue;
        }
        let trimmed = line.trim_start();
        let keyword_then = |keyword: &str, also: char| {
            trimmed.strip_prefix(keyword).and_then(|rest| rest.chars().next()).is_some_and(|next| next.is_whitespace() || next == also)
        };
        if !(keyword_then("from", '.') || keyword_then("import", ' ')) {
            let code = line.split('#').next().unwrap_or("");
            open_string = ["\"\"\"", "'''"].into_iter().find(|delimiter| code.matches(delimiter).count() % 2 == 1);
            index += 1;
            continue;
        }
        let start = index;
        index = statement_end(lines, start);
        let text = lines[start..index].join("\n");
        let words = lines[start..index].iter().flat_map(|line| identifier_words(line.split('#').next().unwrap_or(""))).collect();
        statements.push(ImportStatement { lines: start..index, text, words });
    }
    statements
}

/// The `__all__ = …` / `__all__ += …` / `__all__.extend(…)` statements of a module (a list or
/// tuple over several lines counted by brackets); `words` is left empty.
fn all_statements(lines: &[&str]) -> Vec<ImportStatement> {
    let mut statements = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let trimmed = lines[index].trim_start();
        let Some(rest) = trimmed.strip_prefix("__all__") else {
            index += 1;
            continue;
        };
        let rest = rest.trim_start();
        if !(rest.starts_with('=') || rest.starts_with("+=") || rest.starts_with('.')) || rest.starts_with("==") {
            index += 1;
            continue;
        }
        let start = index;
        index = statement_end(lines, start);
        statements.push(ImportStatement { lines: start..index, text: lines[start..index].join("\n"), words: Vec::new() });
    }
    statements
}

/// The index after the last line of the statement starting at `start`: its brackets closed
/// (`(`/`[` against `)`/`]`, comments left out) and no `\` continuation.
fn statement_end(lines: &[&str], start: usize) -> usize {
    let mut index = start;
    let mut depth: i32 = 0;
    loop {
        let code = lines[index].split('#').next().unwrap_or("");
        depth += code.matches(['(', '[']).count() as i32 - code.matches([')', ']']).count() as i32;
        let continued = code.trim_end().ends_with('\\');
        index += 1;
        if index >= lines.len() || (depth <= 0 && !continued) {
            return index;
        }
    }
}

/// The identifiers of `code` in order (dots, commas and parentheses separate them).
fn identifier_words(code: &str) -> Vec<String> {
    code.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|word| !word.is_empty()).map(str::to_owned).collect()
}

/// `import … NAME as NAME` / `from … import … NAME as NAME`: the explicit re-export.
fn publishes_explicitly(words: &[String], name: &str) -> bool {
    words.windows(3).any(|window| window[0] == name && window[1] == "as" && window[2] == name)
}

/// `from … import …, NAME, …` with NAME not aliased (`NAME as other` publishes `other`).
fn publishes_from_package_init(words: &[String], name: &str) -> bool {
    if words.first().map(String::as_str) != Some("from") {
        return false;
    }
    let Some(import_at) = words.iter().position(|word| word == "import") else { return false };
    let imported = &words[import_at + 1..];
    imported.iter().enumerate().any(|(index, word)| {
        word == name && imported.get(index + 1).map(String::as_str) != Some("as") && (index == 0 || imported[index - 1] != "as")
    })
}

/// The innermost name the public name hangs off: the package directory's name for an
/// `__init__.py`, else the module's stem (`encoding`).
fn public_owner_name(path: &Path, is_package_init: bool) -> String {
    let owner = if is_package_init { path.parent().and_then(Path::file_name) } else { path.file_stem() };
    owner.map_or_else(|| "the package".to_owned(), |name| name.to_string_lossy().into_owned())
}

/// Whether `directory` is a regular package: it holds an `__init__.py` or `__init__.pyi`.
fn is_package_directory(directory: &Path) -> bool {
    directory.join("__init__.py").is_file() || directory.join("__init__.pyi").is_file()
}

/// The dotted import name of the module at `path` (a package for an `__init__.py`): its stem
/// under the chain of enclosing package directories (each with an `__init__.py`), up to the
/// workspace root — `markdown.core` for `markdown/core.py`, `pyparsing` for
/// `pyparsing/__init__.py`, `itsdangerous` for `src/itsdangerous/__init__.py`. Falls back to
/// [`public_owner_name`] when no enclosing directory is a package on disk.
fn dotted_module_name(workspace_root: &Path, path: &Path, is_package_init: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !is_package_init {
        if let Some(stem) = path.file_stem() {
            parts.push(stem.to_string_lossy().into_owned());
        }
    }
    let mut directory = path.parent();
    while let Some(current) = directory.filter(|current| current.starts_with(workspace_root) && is_package_directory(current)) {
        let Some(name) = current.file_name() else { break };
        parts.push(name.to_string_lossy().into_owned());
        directory = current.parent();
    }
    let found_package = parts.len() > usize::from(!is_package_init);
    if !found_package {
        return public_owner_name(path, is_package_init);
    }
    parts.reverse();
    parts.join(".")
}

/// Whether `module` (the dotted name of the file at `path`, see [`dotted_module_name`]) is a
/// public module of a package: the file sits in a package directory, no part of the name starts
/// with `_`, and none names test, documentation or example code (`tests`, `test_*`,
/// `*_test`, `conftest`, `docs`, `examples`, `benchmarks`).
fn is_public_package_module(workspace_root: &Path, path: &Path, module: &str) -> bool {
    let in_package = path.parent().is_some_and(|directory| directory.starts_with(workspace_root) && is_package_directory(directory));
    in_package
        && module.split('.').all(|part| {
            !part.starts_with('_')
                && !part.starts_with("test_")
                && !part.ends_with("_test")
                && !matches!(part, "test" | "tests" | "testing" | "conftest" | "docs" | "doc" | "examples" | "benchmarks")
        })
}

/// For a module (not an `__init__.py`): the dotted name of its package when the package's
/// `__init__.py` star-imports it (`from .dicttoolz import *` or `from toolz.dicttoolz import *`),
/// so the module's `__all__` names are the package's too. `None` otherwise — an explicit
/// `from .core import name` in the package is another note's case.
fn package_star_importing(workspace_root: &Path, path: &Path, is_package_init: bool) -> Option<String> {
    if is_package_init {
        return None;
    }
    let package_directory = path.parent()?;
    let init_text = ["__init__.py", "__init__.pyi"]
        .iter()
        .find_map(|name| crate::files::read_workspace_file_to_string(workspace_root, &package_directory.join(name)).ok())?;
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    let module = dotted_module_name(workspace_root, path, false);
    let star_imports = init_text.lines().any(|line| {
        let words: Vec<&str> = line.split('#').next().unwrap_or("").split_whitespace().collect();
        let from_this_module = words.get(1).is_some_and(|source| *source == format!(".{stem}") || *source == module);
        words.first() == Some(&"from") && from_this_module && words.get(2) == Some(&"import") && words.get(3) == Some(&"*")
    });
    star_imports.then(|| dotted_module_name(workspace_root, package_directory.join("__init__.py").as_path(), true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::FileChange;
    use std::path::PathBuf;

    /// Writes `text` at `relative` beneath `root` (its folders made) and returns its path.
    fn write_beneath(root: &Path, relative: &str, text: &str) -> PathBuf {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn plan(path: &str, old: &str, new: &str) -> WorkspaceEditPlan {
        WorkspaceEditPlan {
            changes: vec![FileChange {
                path: PathBuf::from(path),
                new_content: Some(new.as_bytes().to_vec()),
                expected: ExpectedState::Content(old.as_bytes().to_vec()),
            }],
            files: Vec::new(),
            moved_directories: Vec::new(),
        }
    }

    #[test]
    fn a_definition_inside_module_level_try_or_if_blocks_is_a_module_level_name() {
        let source = "import sys\n\ntry:\n    ExceptionGroup\nexcept NameError:  # pragma: no cover\n\n    class ExceptionGroup(Exception):\n        pass\n\nelse:\n    ExceptionGroup = ExceptionGroup\n\n\ndef f():\n    class Local:\n        pass\n";
        let lines: Vec<&str> = source.lines().collect();
        assert_eq!(top_level_definition_line(&lines, "ExceptionGroup"), Some(6));
        assert_eq!(top_level_definition_line(&lines, "Local"), None, "inside a function");
        assert_eq!(top_level_definition_line(&lines, "f"), Some(13));
    }

    #[test]
    fn an_explicit_re_export_in_a_package_init_is_a_public_name_change() {
        let old = "from .encoding import base64_decode as base64_decode\nfrom .encoding import want_bytes as want_bytes\n";
        let new = "from .encoding import base64_decode as base64_decode\nfrom .encoding import ensure_bytes as ensure_bytes\n";
        let notes = public_name_notes(Path::new("/w"), &plan("/w/src/itsdangerous/__init__.py", old, new), "want_bytes", "ensure_bytes");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("src/itsdangerous/__init__.py:2 re-exports `want_bytes`"), "{}", notes[0]);
        assert!(notes[0].contains("replaces `itsdangerous.want_bytes` with `itsdangerous.ensure_bytes`"), "{}", notes[0]);
        assert!(notes[0].contains("add `want_bytes = ensure_bytes`"), "{}", notes[0]);
    }

    #[test]
    fn a_plain_import_into_a_package_init_counts_multi_line_lists_too() {
        let old = "from .a import (\n    other,\n    helper,  # the helper\n)\nx = helper\n";
        let new = "from .a import (\n    other,\n    assist,  # the helper\n)\nx = assist\n";
        let notes = public_name_notes(Path::new("/w"), &plan("/w/pkg/__init__.py", old, new), "helper", "assist");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("pkg/__init__.py:1 imports into the package") && notes[0].contains("`pkg.helper`"), "{}", notes[0]);
    }

    #[test]
    fn private_aliased_and_module_level_plain_imports_are_not_public_name_changes() {
        // A plain import in a module (not a package init) publishes nothing by convention.
        let plain = plan("/w/pkg/user.py", "from .a import helper\n", "from .a import assist\n");
        assert!(public_name_notes(Path::new("/w"), &plain, "helper", "assist").is_empty());
        // A private name in an __init__.py.
        let private = plan("/w/pkg/__init__.py", "from .a import _helper\n", "from .a import _assist\n");
        assert!(public_name_notes(Path::new("/w"), &private, "_helper", "_assist").is_empty());
        // `helper as h` publishes `h`, which the rename keeps.
        let aliased = plan("/w/pkg/__init__.py", "from .a import helper as h\n", "from .a import assist as h\n");
        assert!(public_name_notes(Path::new("/w"), &aliased, "helper", "assist").is_empty());
        // The name only in the module path, and an unchanged statement.
        let module = plan("/w/pkg/__init__.py", "from .helper import run\nhelper = 1\n", "from .helper import run\nassist = 1\n");
        assert!(public_name_notes(Path::new("/w"), &module, "helper", "assist").is_empty());
        // Not Python.
        let rust = plan("/w/src/lib.rs", "pub use a::helper as helper;\n", "pub use a::assist as assist;\n");
        assert!(public_name_notes(Path::new("/w"), &rust, "helper", "assist").is_empty());
    }

    #[test]
    fn docstring_lines_are_not_statements_and_tab_or_dot_after_from_is() {
        // adv19 R5/R6: a docstring line reading like an import moved or hid the note.
        let old = "\"\"\"Package.\n\nimport the things you need (see below\nfrom here on (see the docs\n\"\"\"\nfrom .m import helper5\n";
        let new = old.replace("import helper5", "import helper6");
        let notes = public_name_notes(Path::new("/w"), &plan("/w/pkg5/__init__.py", old, &new), "helper5", "helper6");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("pkg5/__init__.py:6 imports into the package"), "{}", notes[0]);
        // adv19 R7: `from\t.m` and `from.m` are valid Python.
        for old in ["from\t.m import helper7\n", "from.m import helper7 as helper7\n"] {
            let new = old.replace("helper7", "helper8");
            let notes = public_name_notes(Path::new("/w"), &plan("/w/pkg7/__init__.py", old, &new), "helper7", "helper8");
            assert_eq!(notes.len(), 1, "{old:?}: {notes:?}");
        }
    }

    #[test]
    fn a_name_listed_in_all_is_a_public_name_star_imports_carry() {
        // toolz 1.0.0 (trial20 F3): `valfilter` in dicttoolz.py's `__all__`, star-imported by
        // toolz/__init__.py: the rename removed `toolz.valfilter` and nothing said so.
        let old = "__all__ = ('merge', 'merge_with',\n           'valfilter', 'keyfilter')\n\ndef valfilter(predicate, d):\n    ...\n";
        let new = old.replace("valfilter", "filter_values");
        let notes = public_name_notes(Path::new("/w"), &plan("/w/toolz/dicttoolz.py", old, &new), "valfilter", "filter_values");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("toolz/dicttoolz.py:2 lists `valfilter` in `__all__`"), "{}", notes[0]);
        assert!(notes[0].contains("`from dicttoolz import *`"), "{}", notes[0]);
        // Not listed (a name that merely contains it), or `__all__` unchanged: nothing.
        let other = "__all__ = ['valfilters']\nvalfilter = 1\n";
        let notes = public_name_notes(Path::new("/w"), &plan("/w/m.py", other, &other.replace("valfilter =", "vf =")), "valfilter", "vf");
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn an_all_note_names_the_entry_line_and_the_dotted_module() {
        // pyparsing 3.3.3 (trial21 M10): the entry `"counted_array",` is on its own line, not
        // the `__all__ = [` line.
        let workspace = tempfile::tempdir().expect("temp dir");
        let root = workspace.path();
        let write = |relative: &str, text: &str| write_beneath(root, relative, text);
        let old = "__all__ = [\n    \"col\",\n    \"counted_array\",\n]\nfrom .helpers import *\n";
        let init = write("pyparsing/__init__.py", old);
        let notes = public_name_notes(
            root,
            &plan(init.to_str().unwrap(), old, &old.replace("counted_array", "counted_items")),
            "counted_array",
            "counted_items",
        );
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("pyparsing/__init__.py:3 lists `counted_array` in `__all__`"), "{}", notes[0]);
        assert!(notes[0].contains("`from pyparsing import *`") && notes[0].contains("(`pyparsing.counted_array` is gone)"), "{}", notes[0]);

        // Markdown 3.11.3 (trial21 M6): core.py is the module `markdown.core`; the package
        // imports the name explicitly (another note), so no package-level name is claimed here.
        write("markdown/__init__.py", "from .core import Markdown, markdownFromFile\n");
        let old = "__all__ = ['Markdown', 'markdown', 'markdownFromFile']\n\ndef markdownFromFile(**kwargs):\n    pass\n";
        let core = write("markdown/core.py", old);
        let new = old.replace("markdownFromFile", "markdown_from_file");
        let notes = public_name_notes(root, &plan(core.to_str().unwrap(), old, &new), "markdownFromFile", "markdown_from_file");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("markdown/core.py:1 lists `markdownFromFile` in `__all__`"), "{}", notes[0]);
        assert!(notes[0].contains("`from markdown.core import *`"), "{}", notes[0]);
        assert!(notes[0].contains("(`markdown.core.markdownFromFile` is gone)") && !notes[0].contains("package-level"), "{}", notes[0]);

        // toolz: the package star-imports the module, so the package-level name goes too.
        write("toolz/__init__.py", "from .dicttoolz import *\n");
        let old = "__all__ = ('merge',\n           'valfilter')\n";
        let module = write("toolz/dicttoolz.py", old);
        let notes = public_name_notes(root, &plan(module.to_str().unwrap(), old, &old.replace("valfilter", "vf")), "valfilter", "vf");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("toolz/dicttoolz.py:2 lists `valfilter`"), "{}", notes[0]);
        assert!(
            notes[0].contains("`from toolz.dicttoolz import *`")
                && notes[0].contains("(`toolz.dicttoolz.valfilter` and the package-level `toolz.valfilter` are gone)"),
            "{}",
            notes[0]
        );
    }

    #[test]
    fn a_definition_star_imported_by_the_package_without_all_is_a_public_name_change() {
        // voluptuous 0.16.0 (trial 27 F2): `from voluptuous.validators import *` in the package's
        // `__init__.py`, no `__all__` in validators.py; renaming `Clamp` removed `voluptuous.Clamp`.
        let old = "import re\n\n\nclass Clamp(object):\n    pass\n\n\nclass _Private(object):\n    pass\n";
        let workspace = crate::test_support::workspace_with(&[
            ("voluptuous/__init__.py", "from voluptuous.validators import *  # noqa\n"),
            ("voluptuous/validators.py", old),
        ]);
        let root = workspace.path();
        let validators = root.join("voluptuous/validators.py");
        let renamed =
            |from: &str, to: &str| public_name_notes(root, &plan(validators.to_str().unwrap(), old, &old.replace(from, to)), from, to);
        let notes = renamed("Clamp", "ClampRange");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("voluptuous/validators.py:4 defines `Clamp` at module level and has no `__all__`"), "{}", notes[0]);
        assert!(notes[0].contains("replaces the package-level `voluptuous.Clamp`"), "{}", notes[0]);
        // A private name is not star-imported.
        assert!(renamed("_Private", "_Hidden").is_empty());
        // With `__all__` not listing it, `*` does not carry it.
        let with_all = format!("__all__ = ['Other']\n{old}");
        let notes = public_name_notes(
            root,
            &plan(validators.to_str().unwrap(), &with_all, &with_all.replace("Clamp", "ClampRange")),
            "Clamp",
            "ClampRange",
        );
        assert!(notes.is_empty(), "{notes:?}");
        // A package that does not star-import the module: no package-level name, but the
        // public module's own name (trial28 M8).
        std::fs::write(root.join("voluptuous/__init__.py"), "from voluptuous.validators import Other\n").unwrap();
        let notes = renamed("Clamp", "ClampRange");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("defines `Clamp` at module level in `voluptuous.validators`, a public module")
                && notes[0].contains("replaces `voluptuous.validators.Clamp` with `voluptuous.validators.ClampRange`")
                && !notes[0].contains("package-level"),
            "{}",
            notes[0]
        );
    }

    #[test]
    fn a_module_level_name_of_a_private_test_or_loose_module_is_no_public_name() {
        let old = "def normalize_file(path):\n    return path\n";
        let workspace = crate::test_support::workspace_with(&[
            ("src/pathspec/__init__.py", "from .util import lookup_pattern\n"),
            ("src/pathspec/util.py", old),
            ("src/pathspec/_meta.py", old),
            ("tests/__init__.py", ""),
            ("tests/test_util.py", old),
            ("scripts/tool.py", old),
        ]);
        let root = workspace.path();
        let renamed = |file: &str| {
            let path = root.join(file);
            public_name_notes(
                root,
                &plan(path.to_str().unwrap(), old, &old.replace("normalize_file", "normalize_path")),
                "normalize_file",
                "normalize_path",
            )
        };
        // pathspec 0.12.1 (trial28 M8): `pathspec.util` is a public module.
        let notes = renamed("src/pathspec/util.py");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("src/pathspec/util.py:1 defines `normalize_file` at module level in `pathspec.util`"), "{}", notes[0]);
        for private in ["src/pathspec/_meta.py", "tests/test_util.py", "scripts/tool.py"] {
            assert!(renamed(private).is_empty(), "{private}: {:?}", renamed(private));
        }
    }

    #[test]
    fn an_explicit_re_export_in_a_module_names_the_module() {
        let notes = public_name_notes(
            Path::new("/w"),
            &plan("/w/pkg/api.pyi", "import json\nfrom ._impl import load as load\n", "import json\nfrom ._impl import read as read\n"),
            "load",
            "read",
        );
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("pkg/api.pyi:2 re-exports `load`") && notes[0].contains("`api.load` with `api.read`"), "{}", notes[0]);
    }

    #[test]
    fn a_member_of_a_private_base_is_public_through_its_published_subclasses() {
        // trial140 F3: cachetools' `_TimedCache.timer`, documented as `TTLCache.timer`.
        let workspace = tempfile::tempdir().expect("temp dir");
        let root = workspace.path();
        let write = |relative: &str, text: &str| write_beneath(root, relative, text);
        let old = "class _Timed:\n    def timer(self):\n        return 1\n\n\nclass TTL(_Timed):\n    pass\n\n\nclass Own(_Timed):\n    def timer(self):\n        return 2\n\n\nclass _Hidden(_Timed):\n    pass\n";
        let init = write("pkg/__init__.py", old);
        let new = old.replacen("    def timer(self):\n        return 1", "    def clock(self):\n        return 1", 1);
        let notes = public_name_notes(root, &plan(init.to_str().unwrap(), old, &new), "timer", "clock");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("declares `timer`, a method of the private class `_Timed` that its public subclass `TTL` inherits — `TTL` is public as `pkg.TTL`"),
            "{}",
            notes[0]
        );
        // No published heir that inherits it: no note.
        let old = old.replace("class TTL(_Timed):\n    pass", "class TTL:\n    pass");
        let init = write("pkg/__init__.py", &old);
        let new = old.replacen("    def timer(self):\n        return 1", "    def clock(self):\n        return 1", 1);
        assert!(public_name_notes(root, &plan(init.to_str().unwrap(), &old, &new), "timer", "clock").is_empty());
    }

    #[test]
    fn members_of_published_classes_get_a_note_and_others_none() {
        let workspace = tempfile::tempdir().expect("temp dir");
        let root = workspace.path();
        let write = |relative: &str, text: &str| write_beneath(root, relative, text);
        write("pkg/__init__.py", "from ._core import Engine\n");
        let old = "__all__ = [\"Engine\"]\n\n\nclass Engine:\n    limit = 3\n\n    def __init__(self) -> None:\n        self.speed = 1\n        other.speed = 2\n\n    def start(self) -> None:\n        pass\n\n    def _stop(self) -> None:\n        pass\n\n\nclass _Helper:\n    def start(self) -> None:\n        pass\n\n\nclass Hidden:\n    def start(self) -> None:\n        pass\n";
        let core = write("pkg/_core.py", old);
        let note = |old_line: &str, new_line: &str, old_name: &str, new_name: &str| {
            let new = old.replacen(old_line, new_line, 1);
            assert_ne!(new, old, "{old_line}");
            public_name_notes(root, &plan(core.to_str().unwrap(), old, &new), old_name, new_name)
        };
        let notes = note(
            "    def start(self) -> None:\n        pass\n\n    def _stop",
            "    def begin(self) -> None:\n        pass\n\n    def _stop",
            "start",
            "begin",
        );
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("pkg/_core.py:11 declares `start`, a public method of the class `Engine`, which the package exports as `pkg.Engine` (pkg/__init__.py:1)"), "{}", notes[0]);
        let notes = note("        self.speed = 1", "        self.velocity = 1", "speed", "velocity");
        assert!(
            notes.len() == 1
                && notes[0].contains("a public instance attribute of the class `Engine`")
                && notes[0].contains("a property `speed`"),
            "{notes:?}"
        );
        // Only the right side renamed: the attribute keeps its name (trial53 F1:
        // `self.bisect_left = _list.bisect_left` when `SortedList.bisect_left` is renamed).
        let delegating = old.replace("        self.speed = 1\n", "        self.speed = other.speed\n");
        std::fs::write(&core, &delegating).unwrap();
        let only_right = delegating.replace("other.speed", "other.velocity");
        let notes = public_name_notes(root, &plan(core.to_str().unwrap(), &delegating, &only_right), "speed", "velocity");
        assert!(notes.is_empty(), "{notes:?}");
        std::fs::write(&core, old).unwrap();
        let notes = note("    limit = 3", "    cap = 3", "limit", "cap");
        assert!(notes.len() == 1 && notes[0].contains("a public class attribute of the class `Engine`"), "{notes:?}");
        // Not the first parameter's attribute, a private member, a private class, a class the
        // package neither imports nor lists in `__all__` (the module is private): no note.
        assert!(note("        other.speed = 2", "        other.velocity = 2", "speed", "velocity").is_empty());
        assert!(note("    def _stop", "    def _halt", "_stop", "_halt").is_empty());
        assert!(note("class _Helper:\n    def start", "class _Helper:\n    def begin", "start", "begin").is_empty());
        assert!(note("class Hidden:\n    def start", "class Hidden:\n    def begin", "start", "begin").is_empty());
    }

    #[test]
    fn parameters_of_published_functions_and_methods_get_a_keyword_note() {
        let workspace = tempfile::tempdir().expect("temp dir");
        let root = workspace.path();
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/__init__.py"), "from ._core import Engine, run\n").unwrap();
        let old = "class Engine:\n    def __init__(self, size, mode=None):\n        self.size = size\n\n\ndef run(name: str, *, verbose: bool = False) -> None:\n    pass\n\n\ndef _hidden(x):\n    return x\n";
        let core = root.join("pkg/_core.py");
        std::fs::write(&core, old).unwrap();
        let note = |old_line: &str, new_line: &str, old_name: &str, new_name: &str| {
            let new = old.replacen(old_line, new_line, 1);
            public_name_notes(root, &plan(core.to_str().unwrap(), old, &new), old_name, new_name)
        };
        let notes = note("size, mode=None", "size, flavor=None", "mode", "flavor");
        assert!(notes.len() == 1 && notes[0].contains("pkg/_core.py:2 renames the parameter `mode` of `Engine(…)`"), "{notes:?}");
        let notes = note("verbose: bool = False", "loud: bool = False", "verbose", "loud");
        assert!(
            notes.len() == 1 && notes[0].contains("the parameter `verbose` of `run`, which the package exports as `pkg.run`"),
            "{notes:?}"
        );
        assert!(note("def _hidden(x)", "def _hidden(y)", "x", "y").is_empty(), "a private function");
    }
}
