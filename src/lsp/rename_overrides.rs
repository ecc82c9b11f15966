//! What a Python method rename does to dispatch (R-REN-1; issue 11, pyover21 M4).
//!
//! pyright renames one symbol: renaming `TTLCache.expire` (cachetools 8.0.2), which overrides
//! `_TimedCache.expire`, renames only `TTLCache`'s method, so `self.expire()` in the base
//! class's code — and any call on a variable typed as the base — now reaches the base method;
//! renaming a base method leaves its overrides in subclasses overriding nothing. No error comes
//! of it, so diagnostics on write say "no new errors". [`override_findings`] finds, for a
//! renamed method:
//!
//! 1. the methods of the same name it overrides: each base class in its `class …(…)` header is
//!    resolved with `textDocument/definition` (pyright offers neither `typeHierarchy` nor
//!    `implementation`), its body scanned with tree-sitter for a `def` of the name; a base
//!    without it is followed to its own bases (inside the workspace; a base class outside it —
//!    typeshed, site-packages — is read and scanned, its bases are not followed);
//! 2. the methods of the same name that override it: `textDocument/references` on the class
//!    name, each reference that is a base in another `class …(…)` header is a subclass, scanned
//!    the same way; a subclass without the method is followed to its own subclasses;
//!
//! at most [`MAX_CLASSES_SCANNED`] classes and within the deadline, and says which of them the
//! rename's plan leaves with the old name (a note per method, with the next step) and what was
//! not searched. Those inside the workspace — not in an installed package there
//! (`.venv/…/site-packages`) — are [`OverrideFindings::overrides_left`]: the rename is staged,
//! not written (trial150 M3).
//!
//! pyright also renames a use whose receiver it types as a union of the renamed member's class
//! and a base that keeps the old name: sortedcontainers 2.4.0's `SortedList.__new__` returns a
//! `SortedKeyList` when given a key, so `SortedList([3, 1])` is `SortedList | SortedKeyList`,
//! and renaming `SortedKeyList.key` rewrote `plain.key` to `plain.key_function`, which raises
//! `AttributeError` on a plain `SortedList` — pyright reports nothing (trial53 F2). Each renamed
//! `receiver.name` use is hovered (at most [`MAX_RECEIVERS_HOVERED`]) and one with such a union
//! is a WARNING.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::files::ExpectedState;
use crate::lsp::client::LanguageServer;
use crate::lsp::listing::{ListedPath, PathClass};
use crate::lsp::rename::WorkspaceEditPlan;
use crate::lsp::syntax::{ParsedSource, PythonClassFacts};

/// The most classes (bases and subclasses together, the renamed method's own class not
/// counted) whose bodies the override check reads; the rest is said not searched.
pub const MAX_CLASSES_SCANNED: usize = 64;

/// Past [`MAX_CLASSES_SCANNED`]: the classes defining the old name followed up their bases.
pub const MAX_CAPPED_CLIMBS: usize = 40;

/// The most renamed `receiver.name` uses whose receiver the override check hovers for a union
/// type (see the module docs); the rest is said not checked.
pub const MAX_RECEIVERS_HOVERED: usize = 60;

/// What [`override_findings`] found.
#[derive(Debug, Clone, Default)]
pub struct OverrideFindings {
    /// One note per related method the plan leaves with the old name (`note: dispatch changed:
    /// …`), with its file, 1-based line and the next step; empty when there is none.
    pub dispatch_notes: Vec<String>,
    /// The related methods inside the workspace that the plan leaves with the old name and
    /// whose dispatch the rename changes (an override below, or the base method above), as
    /// `` `Class.name` (path:line) ``: the rename is staged, not written, when there is one
    /// (trial150 M3: tomlkit's `Item._getstate` renamed with its 13 overrides left, written, 21
    /// tests failed).
    pub overrides_left: Vec<String>,
    /// Whether the renamed method is itself an `@abstractmethod` whose implementations in
    /// [`OverrideFindings::overrides_left`] keep the old name: their classes become abstract and
    /// raise TypeError when instantiated, which pyright reports (reportAbstractUsage) — no silent
    /// dispatch change (trial174 M1: packaging's `BaseSpecifier.contains` renamed, 511 pyright
    /// errors and 2104 failed tests after notes that said "no type error shows it").
    pub renamed_abstract_method: bool,
    /// The related members inside the workspace that the plan leaves with the old name where a
    /// WARNING says the renamed code raises AttributeError at run time (an instance attribute a
    /// class assigns itself, a `__slots__` entry, an `if TYPE_CHECKING:` declaration), as
    /// `` `Class.name` (path:line) ``: the rename is staged, not written, as for `overrides_left`
    /// (review45 RISK 5: trial104's `_lists`, written, 122 tests failed).
    pub run_time_breaks_left: Vec<String>,
    /// One `WARNING:` line naming the renamed uses (`path:line`, 1-based, at most 5 shown) whose
    /// receiver the server types as a union with a base class that keeps the old name:
    /// `AttributeError` at run time when it holds that base (trial53 F2); empty when none.
    pub union_receiver_warnings: Vec<String>,
    /// One `WARNING:` line when the renamed member belongs to an `Enum` that code looks up by
    /// member name (`Unit[name.upper()]`, `getattr(Unit, …)`, `Unit.__members__`): a lookup
    /// with the old name raises at run time, which no type checker sees (humanize's
    /// `Unit.SECONDS`, trial57 M1); the places are listed (`path:line`, 1-based, at most 5).
    pub enum_lookup_warnings: Vec<String>,
    /// One `WARNING:` line per related class (a base or a subclass, followed through the whole
    /// hierarchy) that already declares a member named as the new name: the renamed member
    /// would override it or be overridden by it, with no error when the types agree (cachetools
    /// 5.5.0: `RRCache.choice` renamed to `maxsize` silently overrode `Cache.maxsize`, trial51 F3).
    pub new_name_taken: Vec<String>,
    /// One `WARNING:` line per subclass whose base name leads, by the server's definition, to
    /// the renamed member's class and to another class of that name (boltons' `QueryParamDict`,
    /// whose `OrderedMultiDict` is urlutils' own class or dictutils' imported over it, trial81
    /// F1): which one it derives from is decided at run time.
    pub two_class_base_warnings: Vec<String>,
    /// One `WARNING:` line per declaration that only a type checker sees (`if TYPE_CHECKING:` in
    /// a class body) on either side of the rename: the renamed member is one and its run-time
    /// member in a base keeps the old name, or a related class redeclares the old name that way
    /// — the renamed code type-checks and raises AttributeError at run time (bidict 0.23.1,
    /// trial85 F1); empty when none.
    pub declaration_warnings: Vec<String>,
    /// One `WARNING:` line when the rename breaks a structural match with a `typing.Protocol`:
    /// the renamed member's class declares every member of a Protocol class that keeps the old
    /// name, or the renamed member is a Protocol's and classes that match it keep the old name.
    /// No class derives from the other, so no override check and no type checker sees it until
    /// a value is passed as the Protocol type (tomlkit 0.13.2's `WrapperType._new`, called as
    /// `self._new(result)` for `Integer`, `Float`, … through `wrap_method`: trial100 F1, 2 and 5
    /// tests failed with AttributeError); empty when none.
    pub protocol_warnings: Vec<String>,
    /// One summary line (`override check: …`) for a renamed method: the related methods found
    /// (renamed or not), the classes searched and what was not searched (cap, deadline, bases
    /// outside the workspace); `None` when the renamed symbol is no Python method.
    pub summary: Option<String>,
    /// The members in subclasses that override the member (class, file, 0-based line), as the
    /// walk found them, whether the rename renames them or not (`lsp references` at a base
    /// method names them: trial158 M2).
    pub overriding: Vec<(String, PathBuf, u32)>,
    /// The walk that finds the related members stopped early (the deadline, or the cap of
    /// classes read): `overriding` may miss some.
    pub search_cut: bool,
}

/// One method of the same name in a related class.
struct RelatedMethod {
    class_name: String,
    /// Its file and 0-based line; `None` for a `collections.abc` class known from the table.
    location: Option<(PathBuf, u32)>,
    /// `true`: the renamed method overrides it (it is in a base class); `false`: it overrides
    /// the renamed method (a subclass).
    in_base: bool,
    /// Declared only for the type checker (inside `if TYPE_CHECKING:`): at run time its class
    /// has no such member of its own.
    type_checking_only: bool,
    /// Declared by its class's `__slots__`: its instances store the attribute in the slot.
    in_slots: bool,
    /// An instance attribute its class's own methods assign (`self.name = …`), no member of its
    /// class body ([`PythonClassFacts::instance_attributes`]).
    instance_attribute: bool,
    /// The `collections.abc` class whose table ([`abc_methods`]) says the member is there: the
    /// base itself (`MutableSet`), or the ABC a builtin base derives from (`dict` gets `update`
    /// from `MutableMapping`); `None` when read from a class statement.
    through_abc: Option<&'static str>,
}

impl RelatedMethod {
    /// A base outside the workspace that has the member by the `collections.abc` class `abc`
    /// (the base itself, or the ABC a builtin base such as `dict` derives from).
    fn in_abc_base(class_name: &str, abc: &'static str) -> RelatedMethod {
        RelatedMethod {
            class_name: class_name.to_owned(),
            location: None,
            in_base: true,
            type_checking_only: false,
            in_slots: false,
            instance_attribute: false,
            through_abc: Some(abc),
        }
    }
}

/// `lsp references` at a Python class member (0-based `line0` of `path`, named `name`): a note
/// naming the members of subclasses in the workspace that override it (`Class.name` at
/// file:line, at most 10 named), found by the override check `lsp_rename` runs
/// ([`override_findings`], with nothing renamed), until `deadline`. The references of the base
/// member do not include them, and a change to its signature must be made in them too (trial158
/// M2: `MultiCommand.get_command`'s 7 references said nothing of its 6 overrides). `None` when
/// nothing overrides it (or it is no class member).
pub fn overriding_members_note(
    server: &LanguageServer,
    workspace_root: &Path,
    path: &Path,
    line0: u32,
    name: &str,
    display: &dyn Fn(&Path) -> String,
    deadline: Instant,
) -> Option<String> {
    let plan = WorkspaceEditPlan { changes: Vec::new(), files: Vec::new(), moved_directories: Vec::new() };
    let findings = override_findings(server, workspace_root, path, line0, name, name, &plan, &[], &|_, _, _| false, deadline);
    let mut overriding = findings.overriding;
    if overriding.is_empty() {
        return None;
    }
    overriding.sort_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)));
    overriding.dedup();
    let count = overriding.len();
    let shown: Vec<String> =
        overriding.iter().take(10).map(|(class, path, line0)| format!("`{class}.{name}` ({}:{})", display(path), line0 + 1)).collect();
    Some(format!(
        "note: NOT in this list: {} in subclasses {} `{name}` — {}{}{}; `{name}` used on an instance of such a subclass reaches the override, and a change to this member's signature or meaning must be made in {} too (lsp references at each lists its own uses)",
        crate::render::plural(count, "member"),
        crate::render::one_or_many(count, "overrides", "override"),
        shown.join(", "),
        if count > 10 { format!(" and {} more", count - 10) } else { String::new() },
        if findings.search_cut { " (the search for them stopped early: there may be more)" } else { "" },
        crate::render::one_or_many(count, "it", "them"),
    ))
}

/// Finds the overriding and overridden methods of the Python method `old_name` whose `def` is
/// at 0-based `line0` of `path` (see the module docs) and says which of them `plan` leaves with
/// the old name. `left_unrenamed` (`path:line`, 1-based, as the grep check lists the code
/// occurrences the rename leaves) is read for methods of the old name in classes whose base is
/// no class name the walk can follow (`class Cache(self.Cache)`). Empty findings for other files, names that are not methods and name-mangled
/// (`__private`) methods; `server` answers `definition` and `references` until `deadline`.
/// `renamed_in_run(path, line0, line_text)` says whether a rename of this run changed that line
/// from `old_name` to `new_name` ([`crate::lsp::LspSupervisor::declaration_renamed_in_run`]): a
/// related member already named `new_name` there is the one this rename follows, not a conflict.
#[allow(clippy::too_many_arguments)]
pub fn override_findings(
    server: &LanguageServer,
    workspace_root: &Path,
    path: &Path,
    line0: u32,
    old_name: &str,
    new_name: &str,
    plan: &WorkspaceEditPlan,
    left_unrenamed: &[String],
    renamed_in_run: &dyn Fn(&Path, u32, &str) -> bool,
    deadline: Instant,
) -> OverrideFindings {
    let mut findings = OverrideFindings::default();
    if !matches!(path.extension().and_then(|e| e.to_str()), Some("py" | "pyi")) {
        return findings;
    }
    // `__name` is mangled per class: no other class's method of that name is overridden.
    if old_name.starts_with("__") && !old_name.ends_with("__") {
        return findings;
    }
    let started = Instant::now();
    let mut files = SourceCache::new(workspace_root, plan);
    // The renamed member's class: from the asked line (a `def`, a class attribute, an instance
    // attribute `self.name = …`), else from the plan's changed lines (asked at a use).
    let asked = files.parsed(path).and_then(|parsed| member_class_at(parsed, line0, old_name)).map(|found| (path.to_path_buf(), found));
    let Some((path, (own_class, instance_attribute))) = asked.or_else(|| member_class_in_plan(plan, &mut files, old_name, new_name)) else {
        return findings;
    };
    let path = path.as_path();
    findings.enum_lookup_warnings.extend(enum_lookup_warning(workspace_root, &own_class, old_name, new_name));
    // How code reaches the member: a call for a method, a read for an attribute (an instance
    // attribute a subclass overrides with a `@property`: pluggy's `_SubsetHookCaller._hookimpls`,
    // trial49 F2).
    // A property or a class attribute is read too (cachetools' `Cache.currsize`, trial51 M3).
    let read_member = instance_attribute || {
        let declared = own_class.methods.iter().find(|(name, _)| name == old_name).map(|(_, line0)| *line0);
        declared.is_some_and(|line0| {
            let is_def = files.line(path, line0).is_some_and(|line| {
                let trimmed = line.trim_start();
                trimmed.starts_with("def ") || trimmed.starts_with("async def ")
            });
            let decorators: Vec<String> = (0..line0)
                .rev()
                .map_while(|above| files.line(path, above).map(|line| line.trim().to_owned()).filter(|line| line.starts_with('@')))
                .collect();
            !is_def || decorators.iter().any(|decorator| decorator == "@property" || decorator.ends_with("cached_property"))
        })
    };
    let access = |name: &str| if read_member { format!("self.{name}") } else { format!("self.{name}()") };
    let used = if read_member { "read" } else { "called" };
    let encoding = server.position_encoding();
    let mut related: Vec<RelatedMethod> = Vec::new();
    let mut scanned = 0usize;
    let mut capped = false;
    let mut out_of_time = false;
    let mut outside_bases_not_followed: Vec<String> = Vec::new();
    let mut unresolved_bases: Vec<String> = Vec::new();
    let mut not_class_bases: Vec<String> = Vec::new();
    let mut seen: HashSet<(PathBuf, u32)> = HashSet::from([(path.to_path_buf(), own_class.name_line0)]);

    // The related classes that already declare the new name: (class, file, 0-based line, in a base).
    let mut taken: Vec<(String, PathBuf, u32, bool)> = Vec::new();
    // Workspace bases above the renamed class with no `old_name` of their own between them and
    // it: their `self.old_name` reaches the renamed member (a template method).
    let mut bases_relying_on_it: Vec<(PathBuf, PythonClassFacts)> = Vec::new();

    // 1. Up: the bases, nearest first; followed past a base that declares the old name too (the
    // flag: a class below in the chain declares it), for the new name.
    let mut queue: VecDeque<(PathBuf, PythonClassFacts, bool)> = VecDeque::from([(path.to_path_buf(), own_class.clone(), false)]);
    while let Some((class_path, class, old_found_below)) = queue.pop_front() {
        for base in &class.bases {
            if matches!(base.text.as_str(), "object" | "Generic" | "Protocol") || base.text.starts_with("Generic[") {
                continue;
            }
            if Instant::now() >= deadline {
                out_of_time = true;
                break;
            }
            let Some(line_text) = files.line(&class_path, base.line0) else { continue };
            let character = encoding.column_from_byte(&line_text, base.byte_column);
            let targets = crate::lsp::rename_coverage::definition_targets(server, &class_path, base.line0, character, deadline);
            if targets.is_empty() {
                unresolved_bases.push(format!("`{}` (a base of `{}`)", base.text, class.name));
                continue;
            }
            for (target_path, target_line, _) in targets {
                if !seen.insert((target_path.clone(), target_line)) {
                    continue;
                }
                if scanned >= MAX_CLASSES_SCANNED {
                    capped = true;
                    continue;
                }
                scanned += 1;
                let inside = target_path.starts_with(workspace_root);
                let base_class = files.parsed(&target_path).and_then(|parsed| parsed.python_class_named_at(target_line));
                // A `collections.abc` / `typing` ABC outside the workspace (pyright's definition
                // of `collections.abc.MutableMapping` is `MutableMapping = _alias(…)` in the
                // stdlib's typing.py, no class statement): its methods come from the table.
                let abc = (!inside).then(|| abc_methods(&base.text)).flatten();
                if let Some((abc_name, methods)) =
                    abc.filter(|_| base_class.as_ref().is_none_or(|class| class.member_line(old_name).is_none()))
                {
                    if methods.contains(&old_name) {
                        related.push(RelatedMethod::in_abc_base(abc_name, abc_name));
                    }
                    continue;
                }
                // A builtin base outside the workspace whose stub does not declare the member
                // gets it from the `collections.abc` class it derives from: `dict` (`class
                // dict(MutableMapping[_KT, _VT])`) has `update` from `MutableMapping`
                // (sortedcontainers 2.4.0's `SortedDict.update`, trial104 F2: "none found", and
                // after the rename `sd.update(…)` ran `dict.update`, leaving the keys unsorted).
                if let Some(outside) = base_class.as_ref().filter(|class| !inside && class.member_line(old_name).is_none()) {
                    let inherited =
                        outside.bases.iter().filter_map(|outer| abc_methods(&outer.text)).find(|(_, methods)| methods.contains(&old_name));
                    if let Some((abc_name, _)) = inherited {
                        related.push(RelatedMethod::in_abc_base(&outside.name, abc_name));
                        continue;
                    }
                }
                let Some(base_class) = base_class else {
                    let listed = ListedPath::new(workspace_root, &target_path);
                    not_class_bases.push(format!(
                        "`{}` (a base of `{}`: its definition {} is no class statement runbound could read)",
                        base.text,
                        class.name,
                        listed.with_line(target_line + 1)
                    ));
                    continue;
                };
                if let Some((_, taken_line)) = base_class.methods.iter().find(|(name, _)| name == new_name) {
                    taken.push((base_class.name.clone(), target_path.clone(), *taken_line, true));
                }
                let declares_old = base_class.member_line(old_name);
                if let Some(method_line) = declares_old.filter(|_| !old_found_below) {
                    related.push(RelatedMethod {
                        class_name: base_class.name.clone(),
                        location: Some((target_path.clone(), method_line)),
                        in_base: true,
                        type_checking_only: declared_only_for_type_checker(&base_class, old_name),
                        in_slots: declared_in_slots(&base_class, old_name),
                        instance_attribute: assigned_only_in_methods(&base_class, old_name),
                        through_abc: None,
                    });
                }
                if inside && !old_found_below && declares_old.is_none() {
                    bases_relying_on_it.push((target_path.clone(), base_class.clone()));
                }
                if inside {
                    // A declaration only the type checker sees does not hide the run-time one
                    // further up.
                    let old_found = old_found_below || (declares_old.is_some() && !declared_only_for_type_checker(&base_class, old_name));
                    queue.push_back((target_path.clone(), base_class, old_found));
                } else if !base_class.bases.is_empty() {
                    outside_bases_not_followed.push(format!("`{}`", base_class.name));
                }
            }
        }
    }

    // 2. Down: the subclasses, found by the references of each class name; followed past a
    // subclass that overrides the old name too, for the new name.
    let mut down_names: Vec<String> = vec![own_class.name.clone()];
    let mut down_classes: HashSet<(PathBuf, u32)> = HashSet::from([(path.to_path_buf(), own_class.name_line0)]);
    let mut found_past_cap = 0usize;
    let mut queue: VecDeque<(PathBuf, PythonClassFacts, bool)> = VecDeque::from([(path.to_path_buf(), own_class.clone(), false)]);
    while let Some((class_path, class, old_found_above)) = queue.pop_front() {
        if Instant::now() >= deadline {
            out_of_time = true;
            break;
        }
        let Some(line_text) = files.line(&class_path, class.name_line0) else { continue };
        let character = encoding.column_from_byte(&line_text, class.name_byte_column);
        for (reference_path, reference_line, reference_character) in
            class_references(server, &class_path, class.name_line0, character, deadline)
        {
            if !reference_path.starts_with(workspace_root) {
                continue;
            }
            let Some(reference_text) = files.line(&reference_path, reference_line) else { continue };
            let byte_column = encoding.byte_from_column(&reference_text, reference_character);
            let Some(subclass) =
                files.parsed(&reference_path).and_then(|parsed| parsed.python_subclass_listing_base_at(reference_line, byte_column))
            else {
                continue;
            };
            if seen.contains(&(reference_path.clone(), subclass.name_line0)) {
                continue;
            }
            // The references of a class name can list the bases of another class of that name
            // (pyright on boltons 24.0.0, trial81 F1: two `OrderedMultiDict` classes, and
            // `FastIterOrderedMultiDict` called an override of the other one's method, with the
            // advice to rename it too). The base is asked for its definition: a base that leads
            // elsewhere only is no subclass of this class; one that leads to this class and
            // another (a name bound twice: a class, then a fallback import over it) is said.
            let base_targets =
                crate::lsp::rename_coverage::definition_targets(server, &reference_path, reference_line, reference_character, deadline);
            let is_this_class =
                |(target_path, target_line, _): &&(PathBuf, u32, u32)| *target_path == class_path && *target_line == class.name_line0;
            if !base_targets.is_empty() && !base_targets.iter().any(|target| is_this_class(&target)) {
                continue;
            }
            let elsewhere: Vec<String> = base_targets
                .iter()
                .filter(|target| !is_this_class(target))
                .map(|(target_path, target_line, _)| ListedPath::new(workspace_root, target_path).with_line(target_line + 1))
                .collect();
            if !elsewhere.is_empty() {
                findings.two_class_base_warnings.push(format!(
                    "WARNING: `{}` ({}) derives from `{}`, a name bound to {} classes there: `{}` ({}, the class this rename changes) and {} — which one it derives from is decided at run time (a fallback import over a class of the same name). If it is the other, this rename leaves that class's `{old_name}` as it is while {}'s code renamed to `{new_name}` reaches it: AttributeError at run time, and the type checker shows nothing; check which binding wins (`python -c \"import …; print({}.__mro__)\"`) before accepting",
                    subclass.name,
                    ListedPath::new(workspace_root, &reference_path).with_line(subclass.name_line0 + 1),
                    class.name,
                    elsewhere.len() + 1,
                    class.name,
                    ListedPath::new(workspace_root, &class_path).with_line(class.name_line0 + 1),
                    elsewhere.join(", "),
                    subclass.name,
                    subclass.name,
                ));
            }
            seen.insert((reference_path.clone(), subclass.name_line0));
            if scanned >= MAX_CLASSES_SCANNED {
                // Past the cap a direct subclass the references list is still read (no request),
                // not followed further down (trial72 M2).
                capped = true;
                down_classes.insert((reference_path.clone(), subclass.name_line0));
                if let Some(method_line) = subclass.member_line(old_name) {
                    related.push(RelatedMethod {
                        class_name: subclass.name.clone(),
                        location: Some((reference_path.clone(), method_line)),
                        in_base: false,
                        type_checking_only: declared_only_for_type_checker(&subclass, old_name),
                        in_slots: declared_in_slots(&subclass, old_name),
                        instance_attribute: assigned_only_in_methods(&subclass, old_name),
                        through_abc: None,
                    });
                    found_past_cap += 1;
                }
                continue;
            }
            scanned += 1;
            if let Some((_, taken_line)) = subclass.methods.iter().find(|(name, _)| name == new_name) {
                taken.push((subclass.name.clone(), reference_path.clone(), *taken_line, false));
            }
            let declares_old = subclass.member_line(old_name);
            // Every level: an override of an override stops overriding too once its own base
            // method is renamed as advised (trial72 M4: marshmallow's `Pluck._deserialize` under
            // `Nested._deserialize` was not named; 18 of 22 were).
            if let Some(method_line) = declares_old {
                related.push(RelatedMethod {
                    class_name: subclass.name.clone(),
                    location: Some((reference_path.clone(), method_line)),
                    in_base: false,
                    type_checking_only: declared_only_for_type_checker(&subclass, old_name),
                    in_slots: declared_in_slots(&subclass, old_name),
                    instance_attribute: assigned_only_in_methods(&subclass, old_name),
                    through_abc: None,
                });
            }
            let old_found = old_found_above || declares_old.is_some();
            down_names.push(subclass.name.clone());
            down_classes.insert((reference_path.clone(), subclass.name_line0));
            queue.push_back((reference_path, subclass, old_found));
        }
    }

    // 3. Subclasses whose base is an expression typed as one of those classes (`class
    // Other(serializer.signer)`, `signer` being `type[Signer]`): no reference of a class name
    // lists them (trial69 F1: itsdangerous' test classes `Other` and `BadUnsign` override
    // `Signer.default_key_derivation` and `Signer.unsign`; "none found", and 12 tests failed).
    // Read among the classes that define the old name (a word search), each dotted base hovered.
    let grep = crate::lsp::rename_coverage::grep_word(server.definition(), workspace_root, server.root(), old_name);
    let mut hovered = 0usize;
    let mut climbs = 0usize;
    for hit in &grep.hits {
        if Instant::now() >= deadline {
            out_of_time = true;
            break;
        }
        let hit_path = std::fs::canonicalize(&hit.path).unwrap_or_else(|_| hit.path.clone());
        let Some((class, _)) = files.parsed(&hit_path).and_then(|parsed| member_class_at(parsed, hit.line, old_name)) else { continue };
        if seen.contains(&(hit_path.clone(), class.name_line0)) {
            continue;
        }
        let Some((_, method_line)) = class.methods.iter().find(|(name, _)| name == old_name).cloned() else { continue };
        // Past the cap, the subclasses the walk did not reach: each class defining the old name
        // is followed up its bases (by definition, 6 levels) to a class the walk did read
        // (trial72 M2: 5 overrides of marshmallow's `Schema.handle_error` among 375 subclasses,
        // past the 64 read, were "none found").
        if capped && climbs < MAX_CAPPED_CLIMBS && Instant::now() < deadline {
            climbs += 1;
            let mut current: Vec<(PathBuf, PythonClassFacts)> = vec![(hit_path.clone(), class.clone())];
            let mut below = false;
            'climb: for _ in 0..6 {
                let mut next = Vec::new();
                for (class_path, climbing) in &current {
                    for base in &climbing.bases {
                        let Some(line_text) = files.line(class_path, base.line0) else { continue };
                        let character = encoding.column_from_byte(&line_text, base.byte_column);
                        for (target_path, target_line, _) in
                            crate::lsp::rename_coverage::definition_targets(server, class_path, base.line0, character, deadline)
                        {
                            if down_classes.contains(&(target_path.clone(), target_line)) {
                                below = true;
                                break 'climb;
                            }
                            if !target_path.starts_with(workspace_root) {
                                continue;
                            }
                            if let Some(base_class) =
                                files.parsed(&target_path).and_then(|parsed| parsed.python_class_named_at(target_line))
                            {
                                next.push((target_path, base_class));
                            }
                        }
                    }
                }
                if next.is_empty() {
                    break;
                }
                current = next;
            }
            if below {
                seen.insert((hit_path.clone(), class.name_line0));
                related.push(RelatedMethod {
                    class_name: class.name.clone(),
                    location: Some((hit_path.clone(), method_line)),
                    in_base: false,
                    type_checking_only: declared_only_for_type_checker(&class, old_name),
                    in_slots: declared_in_slots(&class, old_name),
                    instance_attribute: assigned_only_in_methods(&class, old_name),
                    through_abc: None,
                });
                found_past_cap += 1;
                continue;
            }
        }
        for base in class.bases.iter().filter(|base| base.text.contains('.') || base.text.contains('(')) {
            if hovered >= MAX_RECEIVERS_HOVERED {
                break;
            }
            let Some(line_text) = files.line(&hit_path, base.line0) else { continue };
            let character = encoding.column_from_byte(&line_text, base.byte_column);
            hovered += 1;
            let Some(hover) = crate::lsp::rename_coverage::hover_text(server, &hit_path, base.line0, character, deadline) else { continue };
            let Some(type_text) = hovered_type(&hover) else { continue };
            // `type[Signer]`, `type[module.Signer]`, `type[Signer[int]]`.
            let class_of_type = type_text.strip_prefix("type[").and_then(|rest| rest.strip_suffix(']')).map(|inner| {
                let bare = inner.trim().split('[').next().unwrap_or(inner);
                bare.rsplit('.').next().unwrap_or(bare).to_owned()
            });
            if class_of_type.is_some_and(|typed| down_names.contains(&typed)) {
                seen.insert((hit_path.clone(), class.name_line0));
                scanned += 1;
                related.push(RelatedMethod {
                    class_name: class.name.clone(),
                    location: Some((hit_path.clone(), method_line)),
                    in_base: false,
                    type_checking_only: declared_only_for_type_checker(&class, old_name),
                    in_slots: declared_in_slots(&class, old_name),
                    instance_attribute: assigned_only_in_methods(&class, old_name),
                    through_abc: None,
                });
                break;
            }
        }
    }

    let own = format!("{}.{old_name}", own_class.name);
    // The renamed method itself decorated `@abstractmethod` (`@abc.abstractmethod` too), on any
    // of its definitions: `@typing.overload` stubs come before the decorated one (recheck51 N1:
    // packaging's `BaseSpecifier.filter`).
    let own_abstract = own_class.methods.iter().filter(|(name, _)| name == old_name).any(|(_, line0)| {
        (0..*line0)
            .rev()
            .map_while(|above| files.line(path, above).map(|line| line.trim().to_owned()).filter(|line| line.starts_with('@')))
            .any(|decorator| decorator.trim_start_matches('@').rsplit('.').next().is_some_and(|name| name.starts_with("abstractmethod")))
    });
    // Declarations only a type checker sees (`if TYPE_CHECKING:` in a class body): pyright
    // renames and checks against them, while at run time the attribute is another class's
    // (bidict 0.23.1's `MutableBidict.inv` over `BidictBase.inv`: 46 tests failed with
    // AttributeError after "no new errors", trial85 F1).
    let own_type_checking_only = declared_only_for_type_checker(&own_class, old_name);
    let own_shown = own_class
        .methods
        .iter()
        .find(|(name, _)| name == old_name)
        .map(|(_, line0)| format!("{}:{}", crate::render::display_path(workspace_root, path), line0 + 1))
        .unwrap_or_else(|| crate::render::display_path(workspace_root, path));
    let redeclaring_subclasses: Vec<String> = related
        .iter()
        .filter(|method| !method.in_base && method.type_checking_only)
        .filter(|method| !method.location.as_ref().is_some_and(|(path, line0)| files.renamed_by_plan(path, *line0, new_name)))
        .map(|method| format!("`{}`", method.class_name))
        .collect();
    let mut run_time_base_found = false;
    let mut renamed_too: Vec<String> = Vec::new();
    for method in &related {
        if method.in_base && !method.type_checking_only {
            run_time_base_found = true;
        }
        let qualified = format!("{}.{old_name}", method.class_name);
        let shown = match &method.location {
            Some((path, line0)) if path.starts_with(workspace_root) => {
                format!("{}:{}", crate::render::display_path(workspace_root, path), line0 + 1)
            }
            Some((path, line0)) => format!("{}, outside the workspace", ListedPath::new(workspace_root, path).with_line(line0 + 1)),
            None => match method.through_abc {
                Some(abc) if abc != method.class_name => format!("from collections.abc.{abc}, outside the workspace"),
                _ => "collections.abc, outside the workspace".to_owned(),
            },
        };
        if let Some((path, line0)) = &method.location {
            if files.renamed_by_plan(path, *line0, new_name) {
                renamed_too.push(format!("`{qualified}` ({shown})"));
                continue;
            }
        }
        // A base in an installed package inside the workspace (`.venv/…/site-packages`) is no
        // more renamable than one outside it (review45 RISK 4).
        let inside = method
            .location
            .as_ref()
            .is_some_and(|(path, _)| path.starts_with(workspace_root) && !crate::lsp::listing::is_dependency_path(path));
        let (method_file, method_line) = match &method.location {
            Some((path, line0)) => (crate::render::display_path(workspace_root, path), line0 + 1),
            None => (String::new(), 0),
        };
        // The symbol twice on the line (`self.parent = self.parent or schema`): the step names the
        // first occurrence, the declared one, or lsp_rename refuses it as ambiguous (trial154 M3).
        let occurrence = match &method.location {
            Some((path, line0)) => files
                .line(path, *line0)
                .filter(|text| crate::lsp::rename_coverage::word_positions(text, old_name).len() > 1)
                .map_or(String::new(), |_| " occurrence 1".to_owned()),
            None => String::new(),
        };
        let rename_it_too =
            format!("lsp_rename file `{method_file}` line {method_line} symbol `{old_name}`{occurrence} new_name `{new_name}`");
        let breaks_left = |findings: &mut OverrideFindings| {
            if inside {
                findings.run_time_breaks_left.push(format!("`{qualified}` ({shown})"));
            }
        };
        if method.in_slots {
            breaks_left(&mut findings);
            findings.declaration_warnings.push(format!(
                "WARNING: `{}` ({shown}) declares `{old_name}` in its `__slots__`, which this rename does not rename: its instances keep the slot `{old_name}`, which its code still reads (`self.{old_name}`), while the renamed code uses `{new_name}` — AttributeError at run time (an empty slot, or no attribute), and pyright reports nothing; next step: rename the `__slots__` entry and the uses that lead to it too (lsp_rename at a use of `self.{old_name}` in `{}`), or keep the name",
                method.class_name, method.class_name
            ));
            continue;
        }
        // An abstract method of the ABC base itself: the class no longer implements it, and
        // creating one raises TypeError (sortedcontainers 2.4.0's `SortedSet.add` renamed
        // `insert`, trial104 M1: every `SortedSet()` failed, 54 tests).
        if let Some(abc) = method.through_abc.filter(|abc| *abc == method.class_name && method.in_base) {
            if abc_abstract_methods(abc).contains(&old_name) && !own_type_checking_only {
                findings.declaration_warnings.push(format!(
                    "WARNING: `{abc}.{old_name}` is abstract, and `{own}` implements it; after this rename `{}` no longer does (unless a class between them defines `{old_name}`), so creating a `{}` raises TypeError (\"Can't instantiate abstract class {} …\") at run time, which pyright does not report at the class; next step: keep the name `{old_name}` (define `{new_name}` beside it, calling it, if the new name is wanted)",
                    own_class.name, own_class.name, own_class.name
                ));
                continue;
            }
        }
        if method.instance_attribute {
            breaks_left(&mut findings);
            // Each class sets the attribute on its own instances: the renamed code reads a name
            // that the other class's instances never get (sortedcontainers 2.4.0's
            // `SortedKeyList.__init__` sets `self._lists` without calling the base's, trial104
            // F1: 122 tests failed with AttributeError after "none found").
            findings.declaration_warnings.push(if method.in_base {
                format!(
                    "WARNING: `{}` assigns its own `self.{old_name}` ({shown}), which this rename does not rename: `{}`'s code, which runs on `{}` instances too, still reads `self.{old_name}`, while `{}` now sets `self.{new_name}` — AttributeError at run time on a `{}` instance that only its own assignment initializes, and pyright reports nothing; next step: rename it too ({rename_it_too}), or keep the name",
                    method.class_name, method.class_name, own_class.name, own_class.name, own_class.name
                )
            } else {
                format!(
                    "WARNING: `{}` assigns its own `self.{old_name}` ({shown}), which this rename does not rename: the renamed code of `{}`, which runs on `{}` instances too, reads `self.{new_name}`, and a `{}` instance whose attribute only that assignment sets has `{old_name}` instead — AttributeError at run time, and pyright reports nothing; next step: rename it too ({rename_it_too}), or keep the name",
                    method.class_name, own_class.name, method.class_name, method.class_name
                )
            });
            continue;
        }
        if matches!((own_type_checking_only, method.type_checking_only, method.in_base), (true, false, true) | (false, true, _)) {
            breaks_left(&mut findings);
        }
        match (own_type_checking_only, method.type_checking_only, method.in_base) {
            (true, false, true) => {
                findings.declaration_warnings.push(format!(
                    "WARNING: `{own}` ({own_shown}) is declared only for the type checker (inside `if TYPE_CHECKING:`): at run time `{}` has no `{old_name}` of its own, the attribute is `{qualified}` ({shown}), and this rename does not rename it — every renamed use (`….{new_name}`) raises AttributeError at run time, while pyright, reading the declaration, reports nothing; next step: rename the run-time member ({rename_it_too}) and every `if TYPE_CHECKING:` redeclaration together, or keep the name",
                    own_class.name
                ));
                continue;
            }
            (false, true, false) => {
                findings.declaration_warnings.push(format!(
                    "WARNING: `{qualified}` ({shown}) redeclares `{old_name}` only for the type checker (inside `if TYPE_CHECKING:`), and this rename leaves it: code that uses `{old_name}` on a `{}` still type-checks against that declaration, while at run time `{}` has only the renamed `{}.{new_name}` — AttributeError, which pyright does not report; next step: rename the redeclaration too ({rename_it_too})",
                    method.class_name, method.class_name, own_class.name
                ));
                continue;
            }
            (false, true, true) => {
                findings.declaration_warnings.push(format!(
                    "WARNING: `{qualified}` ({shown}) declares `{old_name}` only for the type checker (inside `if TYPE_CHECKING:`), and this rename leaves it: code that uses `{old_name}` on a value typed as `{}` still type-checks, while at run time a `{}` has only `{new_name}` — AttributeError, which pyright does not report; next step: rename the declaration too ({rename_it_too}), or keep the name",
                    method.class_name, own_class.name
                ));
                continue;
            }
            (true, true, _) => {
                findings.dispatch_notes.push(format!(
                    "note: `{qualified}` ({shown}) is an `if TYPE_CHECKING:` redeclaration of `{old_name}` too, which this rename does not rename: code typed as `{}` keeps type-checking `.{old_name}`; next step: rename it too ({rename_it_too}), or keep the name",
                    method.class_name
                ));
                continue;
            }
            _ => {}
        }
        // A base method decorated `@abstractmethod`: the renamed class stops implementing it and
        // becomes abstract (trial72 F1: marshmallow's `FieldABC._deserialize`; `Field()` then
        // raised TypeError at import, 142 pyright errors — the note had said no type error shows).
        let abstract_base = method.in_base
            && method.location.as_ref().is_some_and(|(path, line0)| {
                (0..*line0)
                    .rev()
                    .map_while(|above| files.line(path, above).map(|line| line.trim().to_owned()).filter(|line| line.starts_with('@')))
                    .any(|decorator| {
                        decorator.trim_start_matches('@').rsplit('.').next().is_some_and(|name| name.starts_with("abstractmethod"))
                    })
            });
        let note = if abstract_base {
            format!(
                "note: `{own}` implements the abstract `{qualified}` ({shown}, `@abstractmethod`), which this rename does not rename: `{}` — and each subclass that does not define `{old_name}` itself at run time — no longer implements it and becomes ABSTRACT: instantiating it raises TypeError at run time, and pyright reports {}; next step: rename the base method too ({rename_it_too}), or keep the old name",
                own_class.name,
                if redeclaring_subclasses.is_empty() {
                    "each instantiation (reportAbstractUsage)".to_owned()
                } else {
                    format!(
                        "the instantiations of the classes that do not redeclare it (reportAbstractUsage) but NOT those of {}, which redeclare `{old_name}` under `if TYPE_CHECKING:` — for pyright they implement it, at run time they do not (see the warnings above)",
                        redeclaring_subclasses.join(", ")
                    )
                }
            )
        } else if method.in_base {
            let next = if inside {
                format!("rename the base method too ({rename_it_too}), or keep the old name")
            } else {
                format!(
                    "`{}` is outside the workspace and cannot be renamed: keep the name `{old_name}` (the protocol, or the library's own calls, use it)",
                    method.class_name
                )
            };
            format!(
                "note: dispatch changed: `{own}` overrides `{qualified}` ({shown}), which this rename does not rename: {} of `{old_name}` through the base class (`{}` in `{}`'s code, a variable typed as `{}`), and on a `{}` itself, now reach `{qualified}` instead of `{}.{new_name}`, with no error — no type error shows it either; next step: {next}",
                if read_member { "reads" } else { "calls" },
                access(old_name),
                method.class_name,
                method.class_name,
                own_class.name,
                own_class.name
            )
        } else if own_abstract {
            findings.renamed_abstract_method = true;
            format!(
                "note: `{own}` is an `@abstractmethod` implemented by `{qualified}` ({shown}), which this rename does not rename: `{}` — and each subclass of it that does not define `{new_name}` — no longer implements `{new_name}` and becomes ABSTRACT: instantiating it raises TypeError at run time, and pyright reports each instantiation (reportAbstractUsage); next step: rename the implementation too ({rename_it_too}), or keep the old name",
                method.class_name,
            )
        } else {
            format!(
                "note: dispatch changed: `{own}` is overridden by `{qualified}` ({shown}), which this rename does not rename: `{qualified}` no longer overrides anything, so `{new_name}` {used} on a `{}` instance (and `{}` in `{}`'s code) reaches `{}.{new_name}` instead of the override — no type error shows it; next step: rename the override too ({rename_it_too}), or keep the old name",
                method.class_name,
                access(new_name),
                own_class.name,
                own_class.name,
            )
        };
        findings.dispatch_notes.push(note);
        if inside {
            findings.overrides_left.push(format!("`{qualified}` ({shown})"));
        }
    }
    // A base that calls the member on `self` without defining it relies on its subclasses to
    // (a template method): the rename leaves those uses, which no definition backs, and they
    // raise AttributeError on every instance of the renamed class (trial113 M1: cachetools'
    // `_TimedCache` calls `self.expire` that only `TTLCache` defines; renamed, 23 tests failed
    // while pyright, which flagged those lines already, had no new error).
    // …unless a base of the renamed class defines it (a class above the relying base, which
    // `bases_relying_on_it` stops below: `Cache`'s `self.popitem` reaches
    // `MutableMapping.popitem`, trial140 F1): no AttributeError, the dispatch note above says
    // what changes.
    let defined_above = related.iter().any(|method| method.in_base && !method.type_checking_only);
    for (base_path, base_class) in bases_relying_on_it.iter().filter(|_| !defined_above) {
        let uses = self_uses_in_class_body(&mut files, base_path, base_class.name_line0, old_name);
        let uses: Vec<u32> = uses.into_iter().filter(|line0| !files.line_changed_by_plan(base_path, *line0)).collect();
        if uses.is_empty() {
            continue;
        }
        let shown = crate::render::display_path(workspace_root, base_path);
        let lines: Vec<String> = uses.iter().take(8).map(|line0| (line0 + 1).to_string()).collect();
        // The base's uses run for its other subclasses too: one that defines the old name keeps
        // it, and renaming the uses breaks that one (trial140 F1: `TLRUCache.expire`, 18 tests).
        let siblings = subclasses_defining_in_file(&mut files, base_path, &base_class.name, &own_class.name, old_name);
        let next = if siblings.is_empty() {
            format!("rename them too (edit those lines to `self.{new_name}`), or keep the name")
        } else {
            format!(
                "do not rename `{}.{old_name}` (keep the name `{old_name}`) — those lines also run on {} ({}), which {} `{old_name}` of {} own that this rename does not rename, so editing them to `self.{new_name}` breaks {}; to rename anyway, rename {} `{old_name}` too and then those lines (subclasses of `{}` in other modules were not looked for)",
                own_class.name,
                siblings.iter().map(|(name, _)| format!("`{name}`")).collect::<Vec<_>>().join(", "),
                siblings.iter().map(|(_, line0)| format!("{shown}:{}", line0 + 1)).collect::<Vec<_>>().join(", "),
                crate::render::one_or_many(siblings.len(), "defines", "define"),
                crate::render::one_or_many(siblings.len(), "its", "their"),
                crate::render::one_or_many(siblings.len(), "it", "them"),
                crate::render::one_or_many(siblings.len(), "its", "their"),
                base_class.name,
            )
        };
        findings.declaration_warnings.push(format!(
            "WARNING: `{}` ({shown}:{}), a base class of `{}`, uses `self.{old_name}` ({} {}{}) but defines no `{old_name}`: it relies on its subclasses to provide it, and this rename leaves those uses — after it, they raise AttributeError when they run on a `{}` at run time, and the type checker reports nothing new (it cannot resolve them before or after); next step: {next}",
            base_class.name,
            base_class.name_line0 + 1,
            own_class.name,
            crate::render::one_or_many(uses.len(), "line", "lines"),
            lines.join(", "),
            if uses.len() > 8 { format!(" and {} more", uses.len() - 8) } else { String::new() },
            own_class.name,
        ));
    }
    // Renamed uses on a receiver typed as a union with a base that keeps the old name.
    let kept_bases: Vec<&str> = related
        .iter()
        .filter(|method| method.in_base)
        .filter(|method| !method.location.as_ref().is_some_and(|(path, line0)| files.renamed_by_plan(path, *line0, new_name)))
        .map(|method| method.class_name.as_str())
        .collect();
    let receivers = if kept_bases.is_empty() {
        ReceiverCheck::default()
    } else {
        union_receivers(server, workspace_root, plan, old_name, new_name, &kept_bases, deadline)
    };
    findings.union_receiver_warnings.extend(receivers.warning(server.id(), old_name, new_name, &kept_bases));
    findings.overriding = related
        .iter()
        .filter(|method| !method.in_base)
        .filter_map(|method| method.location.clone().map(|(path, line0)| (method.class_name.clone(), path, line0)))
        .collect();
    findings.search_cut = capped || out_of_time;
    // 3. Classes the walks cannot reach: a `def` of the old name the rename leaves, in a class
    // whose base is no class name — an attribute of `self`/`cls`, a call — so neither a base's
    // definition nor a class's references lead to it: cachetools 5.5.0's test mixin subclasses
    // `class Cache(self.Cache): def getsizeof(…)`, and renaming `Cache.getsizeof` read "none
    // found" while 8 tests failed (trial51 F2).
    let mut unfollowed = 0usize;
    // The classes of the member definitions of the old name the rename leaves (`path:line` as
    // the grep check lists them): (the entry, its path as shown, 1-based line, absolute path, class).
    let left_member_classes: Vec<(&String, &str, u32, PathBuf, PythonClassFacts)> = left_unrenamed
        .iter()
        .filter_map(|entry| {
            let (shown_path, line) = entry.rsplit_once(':')?;
            let line = line.parse::<u32>().ok()?;
            let entry_path = workspace_root.join(shown_path);
            if !matches!(entry_path.extension().and_then(|e| e.to_str()), Some("py" | "pyi")) {
                return None;
            }
            let class = files.parsed(&entry_path)?.python_class_of_method(line.saturating_sub(1), old_name)?;
            Some((entry, shown_path, line, entry_path, class))
        })
        .collect();
    for (entry, shown_path, line, entry_path, class) in &left_member_classes {
        let (entry, shown_path, line, class) = (*entry, *shown_path, *line, class);
        if seen.contains(&(entry_path.clone(), class.name_line0)) {
            continue;
        }
        let dynamic: Vec<&str> = class.bases.iter().map(|base| base.text.as_str()).filter(|base| !is_class_name_expression(base)).collect();
        if dynamic.is_empty() {
            continue;
        }
        unfollowed += 1;
        findings.dispatch_notes.push(format!(
            "note: dispatch may change: `{}.{old_name}` ({entry}) is a member of the class `{}` at {shown_path}:{}, whose base {} is no class name the override check can follow (an attribute, a call): if that base is `{}` or one of its subclasses, `{}.{old_name}` overrides `{own}` and stops overriding it after this rename — no type error shows it; next step: read it, and if it does, rename it too (lsp_rename file `{shown_path}` line {line} symbol `{old_name}` new_name `{new_name}`)",
            class.name,
            class.name,
            class.name_line0 + 1,
            dynamic.iter().map(|base| format!("`{base}`")).collect::<Vec<_>>().join(", "),
            own_class.name,
            class.name,
        ));
    }
    // 4. Structural matches with a `typing.Protocol`: the classes that declare the old name and
    // that the rename leaves, read from the grep check's list (no base or reference ties them).
    let own_is_protocol = is_protocol_class(&own_class);
    let member_names = |class: &PythonClassFacts| -> Vec<String> {
        let mut names: Vec<String> = class.methods.iter().map(|(name, _)| name.clone()).collect();
        names.sort();
        names.dedup();
        names
    };
    let own_members = member_names(&own_class);
    let mut matching_classes: Vec<String> = Vec::new();
    let mut protocols_left: Vec<(String, String, Vec<String>)> = Vec::new();
    for (entry, shown_path, _, entry_path, class) in &left_member_classes {
        if entry_path == path && class.name_line0 == own_class.name_line0 {
            continue;
        }
        let class_members = member_names(class);
        if own_is_protocol && !is_protocol_class(class) {
            if own_members.iter().all(|member| class_members.contains(member)) {
                matching_classes.push(format!("`{}` ({entry})", class.name));
            }
        } else if !own_is_protocol && is_protocol_class(class) && class_members.iter().all(|member| own_members.contains(member)) {
            let key = format!("{shown_path}:{}", class.name_line0 + 1);
            if !protocols_left.iter().any(|(_, known, _)| *known == key) {
                protocols_left.push((class.name.clone(), key, class_members));
            }
        }
    }
    if !matching_classes.is_empty() {
        let count = matching_classes.len();
        findings.protocol_warnings.push(format!(
            "WARNING: `{}` is a `typing.Protocol`: classes match it by declaring its members ({}), not by deriving from it, and {} matching it {} `{old_name}`: {}{} — after this rename {} no longer {}, and code that reaches {} as a `{}` (a parameter or `self` typed with it) uses `{new_name}` and raises AttributeError at run time; no override check or type checker sees it unless such a value is passed where the Protocol is expected; next step: rename them too, or keep the name",
            own_class.name,
            own_members.iter().map(|member| format!("`{member}`")).collect::<Vec<_>>().join(", "),
            crate::render::plural(count, "class"),
            crate::render::one_or_many(count, "keeps", "keep"),
            matching_classes.iter().take(5).cloned().collect::<Vec<_>>().join(", "),
            if count > 5 { format!(" and {} more", count - 5) } else { String::new() },
            crate::render::one_or_many(count, "it", "they"),
            crate::render::one_or_many(count, "matches", "match"),
            crate::render::one_or_many(count, "it", "them"),
            own_class.name,
        ));
    }
    for (protocol, at, members) in &protocols_left {
        findings.protocol_warnings.push(format!(
            "WARNING: `{}` matches the `typing.Protocol` `{protocol}` ({at}) structurally: it declares every member of it ({}); this rename leaves the protocol's `{old_name}`, so `{}` stops matching it — code that reaches an instance of `{}` as a `{protocol}` (a parameter or `self` typed with it) still uses `{old_name}` and raises AttributeError at run time, which no type checker reports unless such a value is passed where `{protocol}` is expected; next step: rename the protocol's member and every class that matches it together (lsp_rename on `{protocol}.{old_name}`), or keep the name",
            own_class.name,
            members.iter().map(|member| format!("`{member}`")).collect::<Vec<_>>().join(", "),
            own_class.name,
            own_class.name,
        ));
    }
    // The related classes whose `new_name` an earlier rename of this run gave them.
    let mut restored: Vec<String> = Vec::new();
    // The bases whose member of the new name this rename overrides again, by their parameters.
    let mut restored_by_parameters: Vec<String> = Vec::new();
    for (class_name, taken_path, taken_line, in_base) in &taken {
        // A related class the rename itself renames a member of (an override renamed along)
        // still declares the new name: that is the rename's own result, no conflict.
        if files.line_changed_by_plan(taken_path, *taken_line) && files.renamed_by_plan(taken_path, *taken_line, new_name) {
            continue;
        }
        let shown = if taken_path.starts_with(workspace_root) {
            format!("{}:{}", crate::render::display_path(workspace_root, taken_path), taken_line + 1)
        } else {
            format!("{}, outside the workspace", ListedPath::new(workspace_root, taken_path).with_line(taken_line + 1))
        };
        // Renamed from the old name earlier in this run (the base method, before the step that
        // renames its overrides too): this rename restores the override (trial154 M1: each such
        // step read "choose another name").
        if files.line(taken_path, *taken_line).is_some_and(|text| renamed_in_run(taken_path, *taken_line, &text)) {
            restored.push(format!("`{class_name}` ({shown})"));
            findings.dispatch_notes.push(format!(
                "note: `{class_name}.{new_name}` ({shown}), {} of `{}`, was renamed from `{old_name}` by an earlier rename of this run: this rename makes {} again, as before both",
                if *in_base { "a base class" } else { "a subclass" },
                own_class.name,
                if *in_base {
                    format!("the renamed `{}.{new_name}` override it", own_class.name)
                } else {
                    format!("it override the renamed `{}.{new_name}`", own_class.name)
                },
            ));
            continue;
        }
        // A base's member of the new name that the renamed member, overriding nothing under its
        // old name (no base declares it any more), matches parameter for parameter (beyond `self`): most likely
        // the base was renamed from the old name before (in another session, so no memory of it
        // here), and this rename restores the override (trial158 M4: renaming click's
        // `Group.get_command` after `MultiCommand.get_command` → `lookup_command` read "choose
        // another name", while the rename was what made 61 failing tests pass again).
        let overrides_nothing = !related.iter().any(|method| method.in_base);
        let own_line = own_class.methods.iter().find(|(name, _)| name == old_name).map(|(_, line0)| *line0);
        let same_parameters = own_line.is_some_and(|own_line| {
            let own = member_parameters(&mut files, path, own_line, old_name);
            let base = member_parameters(&mut files, taken_path, *taken_line, new_name);
            // `(self)` alone is no evidence: every property and plain getter has it (trial51's
            // `RRCache.choice` → `maxsize`, a base property, is an accidental override).
            let telling =
                own.as_ref().is_some_and(|parameters| parameters.iter().any(|parameter| !matches!(parameter.as_str(), "self" | "cls")));
            own.is_some() && own == base && telling
        });
        if *in_base && overrides_nothing && same_parameters {
            restored_by_parameters.push(format!("`{class_name}` ({shown})"));
            findings.dispatch_notes.push(format!(
                "note: `{new_name}` is already a member of `{class_name}` ({shown}), a base class of `{}`, with the same parameters, and no base class of `{}` declares `{old_name}`: this rename makes `{}.{new_name}` override `{class_name}.{new_name}` again — most likely restoring an override whose base method was renamed from `{old_name}`; code that calls `{new_name}` on a `{}` (the base class's own code too) reaches the renamed member. If overriding it is not the intent, choose another name",
                own_class.name, own_class.name, own_class.name, own_class.name
            ));
            continue;
        }
        findings.new_name_taken.push(if *in_base {
            format!(
                "WARNING: `{new_name}` is already a member of `{class_name}` ({shown}), a base class of `{}`: the renamed `{}.{new_name}` would override it, so code that uses `{new_name}` on a `{}` (the base class's own code too) reaches the renamed member instead — no type error shows it when the types agree; choose another name",
                own_class.name, own_class.name, own_class.name
            )
        } else {
            format!(
                "WARNING: `{new_name}` is already a member of `{class_name}` ({shown}), a subclass of `{}`: it would override the renamed `{}.{new_name}`, so `{new_name}` used on a `{class_name}` reaches `{class_name}.{new_name}` instead — no type error shows it when the types agree; choose another name",
                own_class.name, own_class.name
            )
        });
    }
    // A run-time definition the plan renames along: an instance attribute assigned in a method
    // (`self.members = members` in a subclass's `__init__`, which pyright ties to the declaration:
    // parsimonious 0.10.0's `Compound.members`, trial88 F1).
    let run_time_assignment_renamed = own_type_checking_only
        && plan.python_texts().iter().any(|(_, old_text, new_text)| {
            old_text.lines().zip(new_text.lines()).any(|(old_line, new_line)| {
                old_line != new_line && assigns_attribute(old_line, old_name) && assigns_attribute(new_line, new_name)
            })
        });
    if own_type_checking_only && !run_time_base_found && !run_time_assignment_renamed {
        findings.declaration_warnings.push(format!(
            "WARNING: `{own}` ({own_shown}) is declared only for the type checker (inside `if TYPE_CHECKING:`), and no run-time definition of `{old_name}` was found in the {} searched (it may come from a base outside the workspace, `__getattr__` or an assignment): if it exists at run time under the old name, every renamed use (`….{new_name}`) raises AttributeError, which pyright does not report; next step: find where `{}` gets `{old_name}` at run time (`python -c \"import …; print({}.{old_name})\"`) and rename it too, or keep the name",
            crate::render::plural(scanned, "other class"),
            own_class.name,
            own_class.name,
        ));
    }
    let mut summary = format!(
        "override check: `{own}` is a class member; {} searched for a member named `{old_name}` that it overrides or that overrides it (bases by definition, subclasses by references and by the type of a dotted base, {} ms)",
        crate::render::plural(scanned, "other class"),
        started.elapsed().as_millis()
    );
    let related_count = related.len();
    if related_count == 0 {
        summary.push_str("; none found");
    } else {
        summary.push_str(&format!(
            "; {} found, {} NOT renamed (see the notes above)",
            crate::render::plural(related_count, "related method"),
            related_count - renamed_too.len()
        ));
    }
    if !renamed_too.is_empty() {
        summary.push_str(&format!("; renamed along: {}", renamed_too.join(", ")));
    }
    if own_type_checking_only {
        summary.push_str(&format!("; `{own}` is declared only for the type checker (`if TYPE_CHECKING:`)"));
    }
    summary.push_str(&if findings.new_name_taken.is_empty() && restored.is_empty() && restored_by_parameters.is_empty() {
        format!("; no related class declares `{new_name}`")
    } else if findings.new_name_taken.is_empty() {
        let mut said = String::new();
        if !restored.is_empty() {
            said.push_str(&format!(
                "; {} `{new_name}` renamed from `{old_name}` earlier in this run, which this rename follows: {}",
                crate::render::one_or_many(restored.len(), "a related class declares", "related classes declare"),
                restored.join(", ")
            ));
        }
        if !restored_by_parameters.is_empty() {
            said.push_str(&format!(
                "; {} `{new_name}` with the same parameters, which this rename overrides again (see the note above): {}",
                crate::render::one_or_many(restored_by_parameters.len(), "a base class declares", "base classes declare"),
                restored_by_parameters.join(", ")
            ));
        }
        said
    } else {
        format!(
            "; {} already {} `{new_name}` (see the warnings above)",
            crate::render::plural(findings.new_name_taken.len(), "related class"),
            crate::render::one_or_many(findings.new_name_taken.len(), "declares", "declare")
        )
    });
    if unfollowed > 0 {
        summary.push_str(&format!(
            "; {} with a base the check cannot follow {} `{old_name}` (see the notes above)",
            crate::render::plural(unfollowed, "class"),
            crate::render::one_or_many(unfollowed, "declares", "declare")
        ));
    }
    if let Some(sentence) = receivers.summary(old_name) {
        summary.push_str(&sentence);
    }
    if capped {
        summary.push_str(&format!(
            "; past the cap of {MAX_CLASSES_SCANNED} classes read, only the direct subclasses and the classes that define `{old_name}` were read ({} of the latter followed up to this one; {found_past_cap} related found past the cap){}",
            climbs,
            if climbs >= MAX_CAPPED_CLIMBS { format!("; NOT searched: the others past {MAX_CAPPED_CLIMBS}") } else { String::new() }
        ));
    }
    if out_of_time {
        summary.push_str("; NOT searched: the rest, the time budget ran out (check the class hierarchy with `lsp` references)");
    }
    if !unresolved_bases.is_empty() {
        summary.push_str(&format!("; bases the server could not resolve (not searched): {}", unresolved_bases.join(", ")));
    }
    if !not_class_bases.is_empty() {
        summary.push_str(&format!("; NOT searched: {}", not_class_bases.join(", ")));
    }
    if !outside_bases_not_followed.is_empty() {
        outside_bases_not_followed.sort();
        outside_bases_not_followed.dedup();
        summary.push_str(&format!("; the bases of {} (outside the workspace) were not followed", outside_bases_not_followed.join(", ")));
    }
    findings.summary = Some(summary);
    findings
}

/// Whether `class` is a `typing.Protocol`: one of its bases is `Protocol`, `Protocol[…]`, or
/// the same through `typing.` / `typing_extensions.`.
fn is_protocol_class(class: &PythonClassFacts) -> bool {
    class.bases.iter().any(|base| {
        let text = base.text.trim();
        let text = text.strip_prefix("typing.").or_else(|| text.strip_prefix("typing_extensions.")).unwrap_or(text);
        text == "Protocol" || text.starts_with("Protocol[")
    })
}

/// The classes of `path` other than `own` whose header lists `base` as a base (by its name, as
/// written) and whose body defines `name`: (class name, 0-based line of that member). Classes
/// of other modules are not looked for.
fn subclasses_defining_in_file(files: &mut SourceCache<'_>, path: &Path, base: &str, own: &str, name: &str) -> Vec<(String, u32)> {
    let Some(parsed) = files.parsed(path) else { return Vec::new() };
    parsed
        .python_classes_with_base(base)
        .into_iter()
        .filter(|class| class.name != own)
        .filter_map(|class| {
            let member = class.member_line(name).filter(|line| !class.type_checking_members.contains(line))?;
            Some((class.name.clone(), member))
        })
        .collect()
}

/// The 0-based lines of the body of the class whose `class` statement is on `name_line0` of
/// `path` (the lines indented deeper than it) that use `self.{name}` or `cls.{name}` (a whole
/// name: `self.expire` but not `self.expires`), outside comments.
fn self_uses_in_class_body(files: &mut SourceCache<'_>, path: &Path, name_line0: u32, name: &str) -> Vec<u32> {
    let indentation = |line: &str| line.len() - line.trim_start().len();
    let Some(class_line) = files.line(path, name_line0) else { return Vec::new() };
    let class_indentation = indentation(&class_line);
    let mut uses = Vec::new();
    let mut line0 = name_line0 + 1;
    while let Some(line) = files.line(path, line0) {
        let trimmed = line.trim_start();
        if !trimmed.is_empty() && indentation(&line) <= class_indentation {
            break;
        }
        let code = trimmed.split('#').next().unwrap_or_default();
        let found = ["self.", "cls."].iter().any(|receiver| {
            let needle = format!("{receiver}{name}");
            code.match_indices(&needle).any(|(at, _)| {
                let before_ok = code[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'));
                let after_ok = code[at + needle.len()..].chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                before_ok && after_ok
            })
        });
        if found {
            uses.push(line0);
        }
        line0 += 1;
    }
    uses
}

/// Whether `line` assigns the attribute `name` of `self` or `cls` (`self.name = …`,
/// `self.name: T = …`; not `==`).
fn assigns_attribute(line: &str, name: &str) -> bool {
    ["self.", "cls."].iter().any(|receiver| {
        let needle = format!("{receiver}{name}");
        line.match_indices(&needle).any(|(at, _)| {
            let before_ok = line[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'));
            let rest = line[at + needle.len()..].trim_start();
            before_ok && ((rest.starts_with('=') && !rest.starts_with("==")) || rest.starts_with(':'))
        })
    })
}

/// Whether `class`'s `__slots__` names `name`.
/// Whether `class` has `name` only as an instance attribute its methods assign, not as a member
/// of its body.
fn assigned_only_in_methods(class: &PythonClassFacts, name: &str) -> bool {
    class.methods.iter().all(|(member, _)| member != name) && class.instance_attributes.iter().any(|(member, _)| member == name)
}

fn declared_in_slots(class: &PythonClassFacts, name: &str) -> bool {
    class.methods.iter().any(|(member, line0)| member == name && class.slot_members.contains(line0))
}

/// Whether every declaration of `name` in `class` is inside an `if TYPE_CHECKING:` block (and
/// there is one).
fn declared_only_for_type_checker(class: &PythonClassFacts, name: &str) -> bool {
    let mut lines = class.methods.iter().filter(|(member, _)| member == name).map(|(_, line0)| line0).peekable();
    lines.peek().is_some() && lines.all(|line0| class.type_checking_members.contains(line0))
}

/// The places `textDocument/references` gives for the class name at (`line0`, `character`) of
/// `path`, declaration excluded: (canonical path, 0-based line, character). Empty when the
/// request fails.
fn class_references(server: &LanguageServer, path: &Path, line0: u32, character: u32, deadline: Instant) -> Vec<(PathBuf, u32, u32)> {
    if server.sync_document(path).is_err() {
        return Vec::new();
    }
    let params = crate::lsp::client::reference_params(path, line0, character, false);
    let Ok(Some(locations)) = server.request::<lsp_types::request::References>(params, deadline) else { return Vec::new() };
    locations
        .into_iter()
        .filter_map(|location| {
            let target = crate::lsp::uri::uri_to_path(location.uri.as_str())?;
            let target = std::fs::canonicalize(&target).unwrap_or(target);
            Some((target, location.range.start.line, location.range.start.character))
        })
        .collect()
}

/// The texts the check reads: the plan's pre-rename text for a file it changes, else the file
/// read beneath the workspace root, or beneath its dependency root (typeshed, site-packages)
/// for a file outside the workspace; each parsed once.
/// Whether a base class expression as written (`Base`, `abc.MutableMapping`, `Generic[T]`) names
/// a class the walks can follow: a name or a dotted name (subscripts left out) that does not
/// start at `self` or `cls`. `self.Cache`, `make_base()`, `type(x)` are not.
fn is_class_name_expression(base: &str) -> bool {
    let name = base.split('[').next().unwrap_or(base).trim();
    !name.is_empty()
        && name.split('.').all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'))
        && !matches!(name.split('.').next(), Some("self" | "cls"))
}

/// The class whose member `name` is defined at 0-based `line0` of `parsed` — a `def`, a class
/// attribute (`false`), or an instance attribute `self.name = …` (`true`) — or `None`.
fn member_class_at(parsed: &ParsedSource, line0: u32, name: &str) -> Option<(PythonClassFacts, bool)> {
    parsed
        .python_class_of_method(line0, name)
        .map(|class| (class, false))
        .or_else(|| parsed.python_class_of_instance_attribute(line0, name).map(|class| (class, true)))
}

/// The class of the first member definition of `name` among `plan`'s changed lines
/// ([`member_class_at`] on each changed line of each Python file, in the plan's order), with its
/// file.
fn member_class_in_plan(
    plan: &WorkspaceEditPlan,
    files: &mut SourceCache<'_>,
    name: &str,
    new_name: &str,
) -> Option<(PathBuf, (PythonClassFacts, bool))> {
    for (path, old_text, new_text) in plan.python_texts() {
        // A line whose definition the rename renames: the new line defines the new name (not
        // `self.bisect_left = _list.bisect_lo`, whose attribute keeps its name: trial53 F1).
        let renamed = ParsedSource::parse(path, &new_text);
        let changed: Vec<u32> = old_text
            .lines()
            .zip(new_text.lines())
            .enumerate()
            .filter(|(_, (old, new))| old != new)
            .map(|(index, _)| index as u32)
            .filter(|&line0| renamed.as_ref().is_some_and(|renamed| member_class_at(renamed, line0, new_name).is_some()))
            .collect();
        let Some(parsed) = files.parsed(path) else { continue };
        if let Some(found) = changed.into_iter().find_map(|line0| member_class_at(parsed, line0, name)) {
            return Some((path.to_path_buf(), found));
        }
    }
    None
}

/// The parameters of the member `name` declared at 0-based `line0` of `path` (the `def` line, or
/// a decorator above it): their names in order, with `*`, `**` and the `/` and `*` markers kept,
/// annotations and defaults dropped (`["self", "ctx", "cmd_name"]`). An empty list for a member
/// that is no `def` (a class attribute); `None` when the signature cannot be read.
fn member_parameters(files: &mut SourceCache<'_>, path: &Path, line0: u32, name: &str) -> Option<Vec<String>> {
    let mut def_line = None;
    for line in line0..line0 + 20 {
        let text = files.line(path, line)?;
        let trimmed = text.trim_start();
        let rest = trimmed.strip_prefix("async ").unwrap_or(trimmed);
        if rest.strip_prefix("def ").is_some_and(|after| after.trim_start().starts_with(name)) {
            def_line = Some(line);
            break;
        }
        if !trimmed.starts_with('@') && !trimmed.is_empty() && !trimmed.starts_with('#') {
            // A class attribute (`name = …`, `name: int`): no parameters.
            return (line == line0).then(Vec::new);
        }
    }
    let first = def_line?;
    let mut signature = String::new();
    for line in first..first + 40 {
        signature.push_str(&files.line(path, line)?);
        signature.push('\n');
        let open = signature.matches('(').count();
        if open > 0 && open == signature.matches(')').count() {
            break;
        }
    }
    let start = signature.find('(')? + 1;
    let (mut depth, mut end) = (1usize, None);
    let mut in_string: Option<char> = None;
    for (index, character) in signature[start..].char_indices() {
        match (in_string, character) {
            (Some(quote), c) if c == quote => in_string = None,
            (Some(_), _) => (),
            (None, '"' | '\'') => in_string = Some(character),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    end = Some(start + index);
                    break;
                }
            }
            _ => (),
        }
    }
    let inside = &signature[start..end?];
    let mut parameters = Vec::new();
    let (mut depth, mut current) = (0usize, String::new());
    for character in inside.chars().chain(std::iter::once(',')) {
        match character {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                let name: String = current.split([':', '=']).next().unwrap_or("").split('#').next().unwrap_or("").trim().to_owned();
                if !name.is_empty() {
                    parameters.push(name);
                }
                current.clear();
                continue;
            }
            _ => (),
        }
        current.push(character);
    }
    Some(parameters)
}

struct SourceCache<'a> {
    workspace_root: &'a Path,
    plan: &'a WorkspaceEditPlan,
    reader: Option<crate::files::WorkspaceReader>,
    texts: HashMap<PathBuf, Option<String>>,
    parsed: HashMap<PathBuf, Option<ParsedSource>>,
}

impl<'a> SourceCache<'a> {
    fn new(workspace_root: &'a Path, plan: &'a WorkspaceEditPlan) -> SourceCache<'a> {
        SourceCache {
            workspace_root,
            plan,
            reader: crate::files::WorkspaceReader::open(workspace_root).ok(),
            texts: HashMap::new(),
            parsed: HashMap::new(),
        }
    }

    fn text(&mut self, path: &Path) -> Option<&str> {
        if !self.texts.contains_key(path) {
            let planned = self.plan.changes.iter().find(|change| change.path == path).and_then(|change| match &change.expected {
                ExpectedState::Content(bytes) => String::from_utf8(bytes.clone()).ok(),
                _ => None,
            });
            let text = planned.or_else(|| {
                let listed = ListedPath::new(self.workspace_root, path);
                match (&listed.class, &listed.origin_root) {
                    (PathClass::Outside, Some(dependency_root)) => crate::files::read_dependency_file_to_string(dependency_root, path).ok(),
                    (PathClass::Outside, None) => None,
                    _ => self.reader.as_ref()?.read_to_string(path).ok(),
                }
            });
            self.texts.insert(path.to_path_buf(), text);
        }
        self.texts[path].as_deref()
    }

    fn line(&mut self, path: &Path, line0: u32) -> Option<String> {
        self.text(path)?.split('\n').nth(line0 as usize).map(|line| line.trim_end_matches('\r').to_owned())
    }

    fn parsed(&mut self, path: &Path) -> Option<&ParsedSource> {
        if !self.parsed.contains_key(path) {
            let parsed = self.text(path).map(str::to_owned).and_then(|text| ParsedSource::parse(path, &text));
            self.parsed.insert(path.to_path_buf(), parsed);
        }
        self.parsed[path].as_ref()
    }

    /// Whether `plan` changes 0-based line `line0` of `path` (its text before and after differ).
    fn line_changed_by_plan(&self, path: &Path, line0: u32) -> bool {
        let Some(change) = self.plan.changes.iter().find(|change| change.path == path) else { return false };
        let (ExpectedState::Content(old), Some(new)) = (&change.expected, &change.new_content) else { return false };
        let line = |bytes: &[u8]| String::from_utf8_lossy(bytes).split('\n').nth(line0 as usize).map(str::to_owned);
        line(old) != line(new)
    }

    /// Whether the plan gives 0-based `line0` of `path` a `def new_name`, a class attribute
    /// `new_name = …` or an instance or class attribute `self.new_name` / `cls.new_name` (a
    /// rename keeps the line count).
    fn renamed_by_plan(&self, path: &Path, line0: u32, new_name: &str) -> bool {
        let Some(change) = self.plan.changes.iter().find(|change| change.path == path) else { return false };
        let Some(new_content) = &change.new_content else { return false };
        let text = String::from_utf8_lossy(new_content);
        text.split('\n').nth(line0 as usize).is_some_and(|line| {
            crate::lsp::rename_coverage::word_positions(line, new_name).iter().any(|&at| {
                let before = line[..at].trim();
                // `def name`, a class-body `name = …`, or an instance attribute's `self.name = …`
                // (trial150 F3: `SingleKey`'s renamed `self.sep = sep` was called not renamed).
                line[..at].trim_end().ends_with("def") || before.is_empty() || before == "self." || before == "cls."
            })
        })
    }
}

/// The warning when `class` is an `Enum` (a base named `Enum`, `IntEnum`, `StrEnum`, `Flag`,
/// `IntFlag`, `ReprEnum`, plain or `enum.`-qualified) and Python files under `workspace_root`
/// look its members up by name: `Class[…]`, `getattr(Class, …)`, `Class.__members__`. `None`
/// otherwise.
fn enum_lookup_warning(workspace_root: &Path, class: &PythonClassFacts, old_name: &str, new_name: &str) -> Option<String> {
    let is_enum = class.bases.iter().any(|base| {
        let bare = base.text.rsplit('.').next().unwrap_or(&base.text);
        matches!(bare, "Enum" | "IntEnum" | "StrEnum" | "Flag" | "IntFlag" | "ReprEnum")
    });
    // Python's enum reserves `__dunder__` and `_sunder_` names: a method or attribute of such a
    // name is never a member, so no lookup by member name reaches it (trial170 M10: renaming
    // `Unit.__lt__` warned of `Unit[…]` lookups).
    let reserved = old_name.len() > 2 && old_name.starts_with('_') && old_name.ends_with('_');
    if !is_enum || reserved {
        return None;
    }
    let name = &class.name;
    let patterns = [format!("{name}["), format!("getattr({name},"), format!("{name}.__members__")];
    let mut lookups: Vec<String> = Vec::new();
    crate::lsp::rename_coverage::for_each_text_file_beneath(
        workspace_root,
        workspace_root,
        |path| path.extension().is_some_and(|extension| extension == "py" || extension == "pyi"),
        |path, text| {
            for (index, line) in text.lines().enumerate() {
                let code = line.split('#').next().unwrap_or("");
                let found = patterns.iter().any(|pattern| {
                    code.match_indices(pattern.as_str())
                        .any(|(at, _)| !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.'))
                });
                if found {
                    lookups.push(format!("{}:{} `{}`", crate::render::display_path(workspace_root, path), index + 1, line.trim()));
                }
            }
        },
    );
    if lookups.is_empty() {
        return None;
    }
    let shown: Vec<&str> = lookups.iter().take(5).map(String::as_str).collect();
    Some(format!(
        "WARNING: `{name}` is an Enum that code looks up by member name at {} ({}{}): after this rename, a lookup with the old name `{old_name}` (a string, an input upper-cased to it, a default) raises KeyError/AttributeError at run time, and no type checker sees it; next step: check what names reach those lookups, and keep the old name working with an alias member in `{name}` (`{old_name} = {new_name}` after it: an Enum alias) if callers may still pass it",
        crate::render::plural(lookups.len(), "place"),
        shown.join(", "),
        if lookups.len() > shown.len() { format!(" and {} more", lookups.len() - shown.len()) } else { String::new() },
    ))
}

/// What [`union_receivers`] found.
#[derive(Debug, Default)]
struct ReceiverCheck {
    /// The renamed uses whose receiver's hovered type is a union naming a kept base:
    /// (`path:line`, 1-based, the receiver's text, its type as hovered).
    union_uses: Vec<(String, String, String)>,
    /// Renamed `receiver.name` uses hovered.
    hovered: usize,
    /// Renamed uses not hovered: a receiver that is no name (a call, a subscript), the cap, the
    /// deadline, or a server that gave no hover.
    not_hovered: usize,
}

impl ReceiverCheck {
    /// The top `WARNING:` line, `None` when no use was found.
    fn warning(&self, server_name: &str, old_name: &str, new_name: &str, kept_bases: &[&str]) -> Option<String> {
        if self.union_uses.is_empty() {
            return None;
        }
        const SHOWN: usize = 5;
        let shown: Vec<String> =
            self.union_uses.iter().take(SHOWN).map(|(at, receiver, type_text)| format!("{at} (`{receiver}`: `{type_text}`)")).collect();
        let more = self.union_uses.len().saturating_sub(SHOWN);
        let bases = kept_bases.iter().map(|base| format!("`{base}`")).collect::<Vec<_>>().join(", ");
        Some(format!(
            "WARNING: {} this rename changes from `.{old_name}` to `.{new_name}` {} on a receiver {server_name} types as a union that includes {bases}, which keeps `{old_name}` (not renamed): {}{}; when such a receiver holds a {bases} instance, `.{new_name}` raises AttributeError at run time, and {server_name} reports no error for it; next step: keep `.{old_name}` on those lines (edit them back after the rename), or rename the base member too",
            crate::render::plural(self.union_uses.len(), "use"),
            crate::render::one_or_many(self.union_uses.len(), "is", "are"),
            shown.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() },
        ))
    }

    /// The part of the `override check:` summary line, `None` when nothing was asked.
    fn summary(&self, old_name: &str) -> Option<String> {
        if self.hovered == 0 && self.not_hovered == 0 {
            return None;
        }
        let mut sentence = format!(
            "; receivers of the renamed `.{old_name}` uses hovered for a union with a base that keeps the name: {}, {} such",
            self.hovered,
            self.union_uses.len()
        );
        if self.not_hovered > 0 {
            sentence.push_str(&format!(
                " ({} not checked: a receiver that is no plain name, the cap of {MAX_RECEIVERS_HOVERED}, the time budget or no hover)",
                self.not_hovered
            ));
        }
        Some(sentence)
    }
}

/// The renamed `receiver.old_name` uses of `plan` (Python files; `self`/`cls` receivers are the
/// class's own) whose receiver `server` hovers as a union type naming one of `kept_bases` (see
/// the module docs). Asked on the text before the write, until `deadline`.
fn union_receivers(
    server: &LanguageServer,
    workspace_root: &Path,
    plan: &WorkspaceEditPlan,
    old_name: &str,
    new_name: &str,
    kept_bases: &[&str],
    deadline: Instant,
) -> ReceiverCheck {
    let mut check = ReceiverCheck::default();
    let encoding = server.position_encoding();
    for (path, before, after) in plan.python_texts() {
        for (line0, (old_line, new_line)) in before.split('\n').zip(after.split('\n')).enumerate() {
            if old_line == new_line {
                continue;
            }
            for at in renamed_member_uses(old_line, new_line, old_name, new_name) {
                let receiver_start = member_use_receiver_start(old_line, at);
                let receiver = &old_line[receiver_start..at - 1];
                if matches!(receiver, "self" | "cls") {
                    continue;
                }
                if receiver.is_empty() || check.hovered >= MAX_RECEIVERS_HOVERED || Instant::now() >= deadline {
                    check.not_hovered += 1;
                    continue;
                }
                let character = encoding.column_from_byte(old_line, receiver_start);
                let Some(hover) = crate::lsp::rename_coverage::hover_text(server, path, line0 as u32, character, deadline) else {
                    check.not_hovered += 1;
                    continue;
                };
                check.hovered += 1;
                if let Some(type_text) = hovered_type(&hover).filter(|type_text| union_names_any(type_text, kept_bases)) {
                    check.union_uses.push((
                        format!("{}:{}", crate::render::display_path(workspace_root, path), line0 + 1),
                        receiver.to_owned(),
                        type_text,
                    ));
                }
            }
        }
    }
    check
}

/// The byte offsets in `old_line` of the `.old_name` member uses that `new_line` (the same line
/// after a rename that changes only identifiers) has as `.new_name`: the offset of the name,
/// after the dot.
pub(crate) fn renamed_member_uses(old_line: &str, new_line: &str, old_name: &str, new_name: &str) -> Vec<usize> {
    let mut uses = Vec::new();
    let mut shift: isize = 0;
    for at in crate::lsp::rename_coverage::word_positions(old_line, old_name) {
        let in_new = at as isize + shift;
        let renamed = usize::try_from(in_new).ok().and_then(|in_new| new_line.get(in_new..)).is_some_and(|rest| {
            rest.starts_with(new_name) && !rest[new_name.len()..].starts_with(crate::lsp::position::is_identifier_char)
        });
        if !renamed {
            continue;
        }
        shift += new_name.len() as isize - old_name.len() as isize;
        if old_line[..at].ends_with('.') {
            uses.push(at);
        }
    }
    uses
}

/// The byte offset where the receiver of a member use starts: the identifier right before the
/// `.` in front of byte `at` (the member name) of `line` — `doc` in `doc.append`, `b` in
/// `a.b.append`; `at - 1` when no identifier stands there (`f().append`, `x[0].append`).
pub(crate) fn member_use_receiver_start(line: &str, at: usize) -> usize {
    let receiver_end = at - 1;
    line[..receiver_end]
        .char_indices()
        .rev()
        .take_while(|(_, c)| crate::lsp::position::is_identifier_char(*c))
        .last()
        .map_or(receiver_end, |(index, _)| index)
}

/// The type of a Python hover's first code line (`(variable) plain: SortedList | SortedKeyList`
/// → `SortedList | SortedKeyList`); `None` when the hover has no `name: type` line.
fn hovered_type(hover: &str) -> Option<String> {
    let line = hover.lines().map(str::trim).find(|line| !line.is_empty() && !line.starts_with("```"))?;
    let declaration = line.strip_prefix('(').and_then(|rest| rest.split_once(") ")).map_or(line, |(_, rest)| rest);
    let (_, type_text) = declaration.split_once(": ")?;
    Some(type_text.trim().to_owned())
}

/// Whether `type_text` is a union (`A | B`, top level) one of whose members is a class in `names`
/// (`Self@A`, `module.A`, `A[int]` count as `A`).
fn union_names_any(type_text: &str, names: &[&str]) -> bool {
    let mut members = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (index, c) in type_text.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            '|' if depth == 0 => {
                members.push(&type_text[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    members.push(&type_text[start..]);
    members.len() > 1
        && members.iter().any(|member| {
            let member = member.trim();
            let member = member.strip_prefix("Self@").unwrap_or(member);
            let bare = member.split('[').next().unwrap_or(member);
            let bare = bare.rsplit('.').next().unwrap_or(bare);
            names.contains(&bare)
        })
}

/// The methods of the `collections.abc` class (also reached as `typing.X`) the base expression
/// `base` names — abstract methods and mixin methods, as the table "Collections Abstract Base
/// Classes" of the Python documentation lists them with those inherited, checked against
/// `dir()` of CPython 3.11's classes (`Set`'s reflected operators and `_hash` included) — and its
/// name; `None` for other names.
/// The abstract methods of the `collections.abc` class `abc` (as [`abc_methods`] names it): a
/// concrete subclass must define each, or creating it raises TypeError.
fn abc_abstract_methods(abc: &str) -> &'static [&'static str] {
    match abc {
        "Container" => &["__contains__"],
        "Hashable" => &["__hash__"],
        "Iterable" => &["__iter__"],
        "Iterator" => &["__next__"],
        "Reversible" => &["__reversed__", "__iter__"],
        "Generator" => &["send", "throw"],
        "Sized" => &["__len__"],
        "Callable" => &["__call__"],
        "Collection" => &["__contains__", "__iter__", "__len__"],
        "Sequence" => &["__getitem__", "__len__"],
        "MutableSequence" => &["__getitem__", "__setitem__", "__delitem__", "__len__", "insert"],
        "Set" | "AbstractSet" => &["__contains__", "__iter__", "__len__"],
        "MutableSet" => &["__contains__", "__iter__", "__len__", "add", "discard"],
        "Mapping" => &["__getitem__", "__iter__", "__len__"],
        "MutableMapping" => &["__getitem__", "__setitem__", "__delitem__", "__iter__", "__len__"],
        "Awaitable" => &["__await__"],
        "Coroutine" => &["send", "throw"],
        "AsyncIterable" => &["__aiter__"],
        "AsyncIterator" => &["__anext__"],
        "AsyncGenerator" => &["asend", "athrow"],
        _ => &[],
    }
}

fn abc_methods(base: &str) -> Option<(&'static str, Vec<&'static str>)> {
    let name = base.split('[').next().unwrap_or(base).rsplit('.').next().unwrap_or(base).trim();
    const CONTAINER: &[&str] = &["__contains__"];
    const ITERABLE: &[&str] = &["__iter__"];
    const SIZED: &[&str] = &["__len__"];
    const ITERATOR: &[&str] = &["__next__", "__iter__"];
    const SEQUENCE: &[&str] = &["__getitem__", "__len__", "__contains__", "__iter__", "__reversed__", "index", "count"];
    const MUTABLE_SEQUENCE: &[&str] =
        &["__setitem__", "__delitem__", "insert", "append", "clear", "reverse", "extend", "pop", "remove", "__iadd__"];
    const SET: &[&str] = &[
        "__contains__",
        "__iter__",
        "__len__",
        "__le__",
        "__lt__",
        "__eq__",
        "__ne__",
        "__gt__",
        "__ge__",
        "__and__",
        "__or__",
        "__sub__",
        "__xor__",
        "isdisjoint",
        "__rand__",
        "__ror__",
        "__rsub__",
        "__rxor__",
        "_from_iterable",
        "_hash",
    ];
    const MUTABLE_SET: &[&str] = &["add", "discard", "clear", "pop", "remove", "__ior__", "__iand__", "__ixor__", "__isub__"];
    const MAPPING: &[&str] = &["__getitem__", "__iter__", "__len__", "__contains__", "keys", "items", "values", "get", "__eq__", "__ne__"];
    const MUTABLE_MAPPING: &[&str] = &["__setitem__", "__delitem__", "pop", "popitem", "clear", "update", "setdefault"];
    let parts: &[&[&str]] = match name {
        "Container" => &[CONTAINER],
        "Hashable" => &[&["__hash__"]],
        "Iterable" => &[ITERABLE],
        "Iterator" => &[ITERATOR],
        "Reversible" => &[&["__reversed__", "__iter__"]],
        "Generator" => &[ITERATOR, &["send", "throw", "close"]],
        "Sized" => &[SIZED],
        "Callable" => &[&["__call__"]],
        "Collection" => &[CONTAINER, ITERABLE, SIZED],
        "Sequence" => &[SEQUENCE],
        "MutableSequence" => &[SEQUENCE, MUTABLE_SEQUENCE],
        "Set" | "AbstractSet" => &[SET],
        "MutableSet" => &[SET, MUTABLE_SET],
        "Mapping" => &[MAPPING],
        "MutableMapping" => &[MAPPING, MUTABLE_MAPPING],
        "Awaitable" => &[&["__await__"]],
        "Coroutine" => &[&["__await__", "send", "throw", "close"]],
        "AsyncIterable" => &[&["__aiter__"]],
        "AsyncIterator" => &[&["__anext__", "__aiter__"]],
        "AsyncGenerator" => &[&["__anext__", "__aiter__", "asend", "athrow", "aclose"]],
        _ => return None,
    };
    let static_name: &'static str = [
        "Container",
        "Hashable",
        "Iterable",
        "Iterator",
        "Reversible",
        "Generator",
        "Sized",
        "Callable",
        "Collection",
        "Sequence",
        "MutableSequence",
        "Set",
        "AbstractSet",
        "MutableSet",
        "Mapping",
        "MutableMapping",
        "Awaitable",
        "Coroutine",
        "AsyncIterable",
        "AsyncIterator",
        "AsyncGenerator",
    ]
    .into_iter()
    .find(|known| *known == name)?;
    Some((static_name, parts.iter().flat_map(|part| part.iter().copied()).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_assignments_are_told_from_comparisons_and_longer_names() {
        assert!(assigns_attribute("        self.members = members", "members"));
        assert!(assigns_attribute("        self.members: tuple = ()", "members"));
        assert!(!assigns_attribute("        if self.members == other.members:", "members"));
        assert!(!assigns_attribute("        self.members_count = 1", "members"));
        assert!(!assigns_attribute("        other.self.members = 1", "members"));
    }

    #[test]
    fn renamed_member_uses_are_the_dotted_occurrences_the_new_line_renames() {
        let old_line = "    assert plain.key is None and key(plain.key)";
        let new_line = "    assert plain.key_function is None and key(plain.key_function)";
        let uses = renamed_member_uses(old_line, new_line, "key", "key_function");
        assert_eq!(uses, vec![17, 43], "{uses:?}");
        assert!(uses.iter().all(|&at| &old_line[at..at + 3] == "key" && old_line[..at].ends_with('.')));
        // An occurrence the rename left (another symbol) is not one, and shifts nothing.
        let new_line = "    assert plain.key is None and key(plain.key_function)";
        assert_eq!(renamed_member_uses(old_line, new_line, "key", "key_function"), vec![43]);
        // A bare name renamed is no member use.
        assert!(renamed_member_uses("key = 1", "key_function = 1", "key", "key_function").is_empty());
    }

    #[test]
    fn hovered_type_reads_pyright_and_basedpyright_declarations() {
        let hover = "```python\n(variable) plain: SortedList | SortedKeyList\n```";
        assert_eq!(hovered_type(hover).as_deref(), Some("SortedList | SortedKeyList"));
        assert_eq!(hovered_type("```python\n(parameter) items: list[int]\n```").as_deref(), Some("list[int]"));
        assert_eq!(hovered_type("```python\nclass SortedList()\n```"), None);
    }

    #[test]
    fn only_a_union_naming_a_kept_base_counts() {
        let bases = ["SortedList"];
        assert!(union_names_any("SortedList | SortedKeyList", &bases));
        assert!(union_names_any("Self@SortedList | SortedKeyList", &bases));
        assert!(union_names_any("sortedcontainers.sortedlist.SortedList[int] | None", &bases));
        // Not a union: pyright resolved the use to the base itself, or to the subclass alone.
        assert!(!union_names_any("SortedList", &bases));
        assert!(!union_names_any("SortedKeyList", &bases));
        // A union inside a type argument is no union of the receiver.
        assert!(!union_names_any("list[SortedList | SortedKeyList]", &bases));
        assert!(!union_names_any("SortedKeyList | None", &bases));
    }
}
