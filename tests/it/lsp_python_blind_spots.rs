//! Python edits that change dispatch or that the checker cannot see are said (issue 11,
//! pyover21), against real pyright and the real interpreter:
//!
//! - M4: `lsp_rename` of a method that overrides a base method, or that subclasses override,
//!   renames that one method only (pyright's rename is per symbol); the result names each
//!   related method left with the old name — and the interpreter shows dispatch really changed.
//! - M1: an `edit` of a `.py` with a `.pyi` stub beside it says importers are checked against
//!   the stub; an `apply_patch` changing both says nothing of the kind.
//! - M3: a file-level `# type: ignore`, `# pyright: basic`, a line-level ignore and a
//!   `[tool.pyright]` rule turned off are named when the block says "no new errors".

use crate::support;

use std::path::Path;

use runbound::Caller;
use serde_json::json;

fn python_prints(dir: &Path, code: &str) -> String {
    let output = std::process::Command::new("python3").arg("-c").arg(code).current_dir(dir).output().expect("python3 runs");
    assert!(output.status.success(), "python3 failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

const PYPROJECT: (&str, &str) = ("pyproject.toml", "[project]\nname = \"caches\"\nversion = \"0.1.0\"\n");
const BASE: &str = "class Base:\n    def expire(self, now: float) -> list[int]:\n        return []\n\n    def run(self) -> int:\n        return len(self.expire(1.0))\n\n\ndef helper() -> int:\n    return 1\n";
const STORE: &str = "import collections.abc\nfrom typing import Iterator\n\n\nclass Store(collections.abc.MutableMapping[str, int]):\n    def __init__(self) -> None:\n        self.data: dict[str, int] = {}\n\n    def __getitem__(self, key: str) -> int:\n        return self.data[key]\n\n    def __setitem__(self, key: str, value: int) -> None:\n        self.data[key] = value\n\n    def __delitem__(self, key: str) -> None:\n        del self.data[key]\n\n    def __iter__(self) -> Iterator[str]:\n        return iter(self.data)\n\n    def __len__(self) -> int:\n        return len(self.data)\n\n    def popitem(self) -> tuple[str, int]:\n        return self.data.popitem()\n\n    def describe(self) -> str:\n        return str(self.data)\n";
const SUB: &str = "from caches import base\nfrom caches.base import Base\n\n\nclass Sub(Base):\n    def expire(self, now: float) -> list[int]:\n        return [1]\n\n\nclass Middle(base.Base):\n    pass\n\n\nclass Leaf(Middle):\n    def expire(self, now: float) -> list[int]:\n        return [1, 2]\n";

/// cachetools 8.0.2's `TTLCache.expire` overrides `_TimedCache.expire`: renaming one of them
/// renamed only it and said "no new errors". Renaming the override names the base method; renaming
/// the base method names both overrides (one through `base.Base` and a class without the method
/// between); a method nothing overrides says none was found; a function is no method.
#[test]
fn renaming_a_method_names_the_overrides_and_base_methods_it_leaves_with_the_old_name() {
    let test = "renaming_a_method_names_the_overrides_and_base_methods_it_leaves_with_the_old_name";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        PYPROJECT,
        ("caches/__init__.py", ""),
        ("caches/base.py", BASE),
        ("caches/sub.py", SUB),
        ("caches/store.py", STORE),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let dispatch = "from caches.sub import Sub, Leaf; print(Sub().run(), Leaf().run())";
    assert_eq!(python_prints(dir.path(), dispatch), "1 2", "the fixture dispatches to the overrides before any rename");

    // The base method, previewed: both overrides are named, with where they are and the next step.
    let preview = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "caches/base.py", "line": 2, "symbol": "expire", "new_name": "purge", "preview": true}),
    );
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    for (class, line) in [("Sub", 6), ("Leaf", 15)] {
        let said = format!("note: dispatch changed: `Base.expire` is overridden by `{class}.expire` (caches/sub.py:{line}), which this rename does not rename");
        assert!(text.contains(&said), "{said}\n{text}");
        assert!(text.contains(&format!("lsp_rename file `caches/sub.py` line {line} symbol `expire` new_name `purge`")), "{text}");
    }
    let structured = preview.structured_content.clone().unwrap();
    assert_eq!(structured["dispatch_changes"].as_array().map(Vec::len), Some(2), "{structured}");
    assert!(structured["override_check"].as_str().unwrap().contains("2 related methods found, 2 NOT renamed"), "{structured}");
    let edit_id = structured["edit_id"].as_str().unwrap().to_owned();
    let discarded = run.call(Caller::Main, "resolve", json!({"edit_id": edit_id, "action": "discard"}));
    assert!(!discarded.is_error, "{}", discarded.joined_text());

    // The override, applied: the base method is named, and the interpreter shows that the call
    // through the base class now reaches the base method.
    // Asked to write, it is staged first (trial150 M3): the agent decides.
    let applied =
        run.call(Caller::Main, "lsp_rename", json!({"file": "caches/sub.py", "line": 6, "symbol": "expire", "new_name": "purge"}));
    let text = applied.joined_text();
    assert!(!applied.is_error, "{text}");
    assert!(
        text.starts_with("NOT written: this rename leaves 1 related method that overrides or is overridden by `expire` with the old name — `Base.expire` (caches/base.py:2)"),
        "{text}"
    );
    assert!(!support::corpus::read(dir.path(), "caches/sub.py").contains("    def purge(self"), "nothing written yet");
    let structured = applied.structured_content.clone().unwrap();
    assert_eq!(structured["dispatch_changes"].as_array().map(Vec::len), Some(1));
    let edit_id = structured["edit_id"].as_str().expect("staged").to_owned();
    let accepted = support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(accepted.contains("dispatch changed"), "the warnings are repeated on accept:\n{accepted}");
    let said = "note: dispatch changed: `Sub.expire` overrides `Base.expire` (caches/base.py:2), which this rename does not rename: calls of `expire` through the base class";
    assert!(text.contains(said), "{text}");
    assert!(
        text.contains("next step: rename the base method too (lsp_rename file `caches/base.py` line 2 symbol `expire` new_name `purge`)"),
        "{text}"
    );
    assert!(support::corpus::read(dir.path(), "caches/sub.py").contains("    def purge(self"), "{text}");
    assert_eq!(python_prints(dir.path(), dispatch), "0 2", "Sub().run() reaches Base.expire after the rename:\n{text}");

    // Nothing overrides `run` and it overrides nothing.
    let alone = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "caches/base.py", "line": 5, "symbol": "run", "new_name": "go", "preview": true}),
    );
    let text = alone.joined_text();
    assert!(!alone.is_error, "{text}");
    assert!(!text.contains("dispatch changed"), "{text}");
    assert!(text.contains("override check: `Base.run` is a class member;") && text.contains("none found"), "{text}");
    // A module-level function is no method: no override check at all.
    let function = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "caches/base.py", "line": 9, "symbol": "helper", "new_name": "aid", "preview": true}),
    );
    let text = function.joined_text();
    assert!(!function.is_error, "{text}");
    assert!(!text.contains("override check"), "{text}");
    assert!(function.structured_content.unwrap().get("override_check").is_none());

    // A base outside the workspace: pyright's definition of `collections.abc.MutableMapping` is
    // an alias in the stdlib's typing.py; its methods come from the collections.abc table.
    let protocol = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "caches/store.py", "line": 24, "symbol": "popitem", "new_name": "evict", "preview": true}),
    );
    let text = protocol.joined_text();
    assert!(!protocol.is_error, "{text}");
    assert!(
        text.contains(
            "note: dispatch changed: `Store.popitem` overrides `MutableMapping.popitem` (collections.abc, outside the workspace)"
        ),
        "{text}"
    );
    assert!(text.contains("`MutableMapping` is outside the workspace and cannot be renamed: keep the name `popitem`"), "{text}");
    let own = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "caches/store.py", "line": 27, "symbol": "describe", "new_name": "show", "preview": true}),
    );
    let text = own.joined_text();
    assert!(!own.is_error, "{text}");
    assert!(!text.contains("dispatch changed") && text.contains("none found"), "{text}");
}

/// cachetools 8.0.2 ships `__init__.pyi` beside `__init__.py`: a required parameter added to
/// `TTLCache.__init__` broke 56 of its tests while the block said "no new errors" (importers are
/// checked against the stub). The `edit` now says which stub was left unchanged; a patch that
/// changes the stub too says nothing of the kind.
#[test]
fn an_edit_of_a_python_file_with_a_stub_beside_it_says_the_stub_was_not_changed() {
    let test = "an_edit_of_a_python_file_with_a_stub_beside_it_says_the_stub_was_not_changed";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        PYPROJECT,
        ("caches/__init__.py", ""),
        ("caches/timed.py", "def make(size: int) -> list[int]:\n    return [0] * size\n"),
        ("caches/timed.pyi", "def make(size: int) -> list[int]: ...\n"),
        ("app.py", "from caches.timed import make\n\nprint(make(3))\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let edited = run.call(
        Caller::Main,
        "edit",
        json!({"path": "caches/timed.py", "old_string": "def make(size: int)", "new_string": "def make(size: int, *, fill: int)"}),
    );
    let text = edited.joined_text();
    assert!(!edited.is_error, "{text}");
    // The ground truth the checker misses: the call in app.py now fails at run time.
    assert!(text.contains("no new errors"), "pyright sees no error through the stub:\n{text}");
    let said = "note: `caches/timed.pyi` stubs `caches/timed.py`: files that import it are type-checked against the stub, which this write did not change";
    assert!(text.contains(said), "{text}");
    assert!(text.contains("next step: make the same change in `caches/timed.pyi`"), "{text}");

    // The stub changed in the same write: nothing to say.
    let patch = "--- a/caches/timed.py\n+++ b/caches/timed.py\n@@ -1,2 +1,2 @@\n-def make(size: int, *, fill: int) -> list[int]:\n+def make(size: int, *, fill: int = 0) -> list[int]:\n     return [0] * size\n--- a/caches/timed.pyi\n+++ b/caches/timed.pyi\n@@ -1 +1 @@\n-def make(size: int) -> list[int]: ...\n+def make(size: int, *, fill: int = 0) -> list[int]: ...\n";
    let patched = run.call(Caller::Main, "apply_patch", json!({"patch": patch}));
    let text = patched.joined_text();
    assert!(!patched.is_error, "{text}");
    assert!(text.contains("Diagnostics after the write:"), "{text}");
    assert!(!text.contains("stubs `caches/timed.py`"), "{text}");

    // pyright's own rename from the `.py` skips the stub; runbound's coverage check renames it
    // from the importer's use, so the stub is part of the write and no stub note is due.
    let renamed =
        run.call(Caller::Main, "lsp_rename", json!({"file": "caches/timed.py", "line": 1, "symbol": "make", "new_name": "build"}));
    let text = renamed.joined_text();
    assert!(!renamed.is_error, "{text}");
    assert!(support::corpus::read(dir.path(), "caches/timed.pyi").starts_with("def build("), "{text}");
    assert!(!text.contains("stubs `caches/timed.py`"), "{text}");
}

/// Trial162 F1 (attrs 25.4.0): `attrs/__init__.py` re-exports `attr._next_gen.asdict` and its
/// `__init__.pyi` binds `asdict` from elsewhere; a new required parameter of `_next_gen.asdict`
/// gave "no new errors" (pyright checks `attrs.asdict(…)` against the stub) and a failing test.
/// The write names the re-exporting module's stub.
#[test]
fn an_edit_of_a_module_a_stubbed_package_reexports_names_the_stub() {
    let test = "an_edit_of_a_module_a_stubbed_package_reexports_names_the_stub";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        PYPROJECT,
        ("caches/__init__.py", "from caches._impl import make\n"),
        ("caches/__init__.pyi", "from caches._other import make as make\n"),
        ("caches/_impl.py", "def make(size: int) -> list[int]:\n    return [0] * size\n"),
        ("caches/_other.py", "def make(size: int) -> list[int]:\n    return [1] * size\n"),
        ("app.py", "import caches\n\nprint(caches.make(3))\n"),
    ]);
    assert_eq!(python_prints(dir.path(), "import app"), "[0, 0, 0]");
    let run = support::lsp_run_allowing_writes(dir.path());
    let edited = run.call(
        Caller::Main,
        "edit",
        json!({"path": "caches/_impl.py", "old_string": "def make(size: int)", "new_string": "def make(size: int, *, fill: int)"}),
    );
    let text = edited.joined_text();
    assert!(!edited.is_error, "{text}");
    assert!(text.contains("no new errors"), "pyright sees no error through the stub:\n{text}");
    assert!(
        text.contains("note: 1 module that imports from the written `caches/_impl.py` has a stub of its own (`caches/__init__.pyi` stubs `caches/__init__.py`): code that uses those names through it is type-checked against the stub"),
        "{text}"
    );
    // Ground truth: the call through the package now fails at run time.
    let output = std::process::Command::new("python3").args(["-c", "import app"]).current_dir(dir.path()).output().unwrap();
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing 1 required keyword-only argument: 'fill'"), "{output:?}");
}

/// A file-level `# type: ignore` hides every error of the file, `# pyright: basic` the stricter
/// rules, a line-level ignore its line, and `[tool.pyright]` rules turned off hide them in every
/// file: when the block says "no new errors" it names what may hide them. A file with none of
/// them gets no such note, and its new error is reported.
#[test]
fn a_clean_result_for_a_file_with_checks_turned_off_names_the_pragma() {
    let test = "a_clean_result_for_a_file_with_checks_turned_off_names_the_pragma";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"quiet\"\nversion = \"0.1.0\"\n\n[tool.pyright]\nreportMissingModuleSource = false\n"),
        ("quiet/__init__.py", ""),
        ("quiet/ignored.py", "# A comment first.\n# type: ignore\n\"\"\"The docstring comes after it (PEP 484).\"\"\"\n\nvalue: int = 1\n"),
        ("quiet/basic.py", "# pyright: basic\n# pyright: reportOptionalMemberAccess=false\n\nvalue: int = 1\n"),
        ("quiet/lines.py", "value: int = 1\n"),
        ("quiet/plain.py", "value: int = 1\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let edit = |file: &str, old: &str, new: &str| {
        let result = run.call(Caller::Main, "edit", json!({"path": file, "old_string": old, "new_string": new}));
        let text = result.joined_text();
        assert!(!result.is_error, "{text}");
        text
    };
    let text = edit("quiet/ignored.py", "value: int = 1", "value: int = \"one\"");
    assert!(text.contains("no new errors in quiet/ignored.py"), "pyright reports nothing under a file-level ignore:\n{text}");
    assert!(text.contains("note: quiet/ignored.py: pyright's checks are turned off in part in this file"), "{text}");
    assert!(
        text.contains("`# type: ignore` before the first statement (line 2) makes pyright report no errors at all in this file"),
        "{text}"
    );
    assert!(
        text.contains(
            "note: the pyright configuration turns checks off: pyproject.toml [tool.pyright] sets reportMissingModuleSource = false"
        ),
        "{text}"
    );

    let text = edit("quiet/basic.py", "value: int = 1", "value: int = 2");
    assert!(text.contains("`# pyright: basic` (line 1) checks this file with pyright's basic rule set only"), "{text}");
    assert!(text.contains("`# pyright: reportOptionalMemberAccess=false` (line 2) turns those rules off in this file"), "{text}");

    let text = edit("quiet/lines.py", "value: int = 1", "value: int = \"one\"  # type: ignore[assignment]");
    assert!(text.contains("no new errors in quiet/lines.py"), "{text}");
    assert!(
        text.contains("1 line-level `# type: ignore` / `# pyright: ignore` comment in the checked files with no new errors")
            && text.contains("where an error it causes is not reported: quiet/lines.py:1 (`value`)"),
        "{text}"
    );

    let text = edit("quiet/plain.py", "value: int = 1", "value: int = \"one\"");
    assert!(text.contains("this write introduced 1 new error"), "{text}");
    assert!(!text.contains("checks are turned off in part"), "{text}");
}

/// pluggy 1.7.0 (trial166 M2): every checked file's line-level ignores were a note of their own,
/// unrelated lines included (7 notes of ~15 lines on a rename). Now one note: an importer's ignore
/// is named only on a line naming a changed name — there the write's error is hidden (ground
/// truth: importing it fails at run time) — an unrelated one in an importer is not, and the
/// written file's own are counted (review48 M4: they may still hide an error the write causes).
#[test]
fn line_level_ignores_make_one_note_naming_the_importer_lines_that_use_a_changed_name() {
    let test = "line_level_ignores_make_one_note_naming_the_importer_lines_that_use_a_changed_name";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        PYPROJECT,
        ("pkg/__init__.py", ""),
        ("pkg/impl.py", "def f(a: int) -> int:\n    return a\n\n\ndef g() -> int:\n    return int(\"1\")  # type: ignore\n"),
        ("use_a.py", "from pkg.impl import f\n\nx = f(1)  # type: ignore\ny: int = \"a\"  # type: ignore\n"),
        ("use_b.py", "from pkg.impl import f\n\nz: int = \"b\"  # type: ignore\nprint(f)\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "edit",
        json!({"path": "pkg/impl.py", "old_string": "def f(a: int) -> int:\n    return a", "new_string": "def f(a: int, b: int) -> int:\n    return a + b"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("use_a.py") && text.contains("use_b.py") && !text.contains("new diagnostics introduced"), "{text}");
    let notes: Vec<&str> = text.lines().filter(|line| line.contains("line-level `# type: ignore`")).collect();
    assert_eq!(notes.len(), 1, "one note for every file:\n{text}");
    let note = notes[0];
    assert!(
        note.contains("2 line-level `# type: ignore` / `# pyright: ignore` comments in the checked files with no new errors"),
        "{note}"
    );
    assert!(note.contains("where an error it causes is not reported: use_a.py:3 (`f`)"), "{note}");
    assert!(note.contains("which still hide an error there (pkg/impl.py 1)"), "{note}");
    assert!(!note.contains("use_b.py") && !note.contains("use_a.py:4"), "unrelated importer lines are not named:\n{note}");
    // Ground truth: the named line breaks at run time.
    let output = std::process::Command::new("python3").args(["-c", "import use_a"]).current_dir(dir.path()).output().unwrap();
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing 1 required positional argument: 'b'"), "{output:?}");
}

/// attrs 25.4.0 (trial162 F2): `attrs/__init__.py` binds `asdict` from `attr._next_gen`, its stub
/// from `attr` (whose own stub declares it for `attr._funcs`). References at the run-time
/// declaration listed none of the `attrs.asdict(…)` callers; references and definition at the
/// stub's declaration counted them as its own. Both answers now say so and name the uses; a
/// package whose stub agrees with it gets no such warning.
#[test]
fn references_and_definitions_say_a_stub_binds_a_name_elsewhere_than_the_package_runs() {
    let test = "references_and_definitions_say_a_stub_binds_a_name_elsewhere_than_the_package_runs";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        PYPROJECT,
        ("caches/__init__.py", "from caches._impl import make\nfrom caches._tools import tidy\n"),
        ("caches/__init__.pyi", "from caches._other import make as make\nfrom caches._tools import tidy as tidy\n"),
        ("caches/_impl.py", "def make(size: int) -> list[int]:\n    return [0] * size\n"),
        ("caches/_other.py", "def make(size: int) -> list[int]:\n    return [1] * size\n"),
        ("caches/_tools.py", "def tidy() -> int:\n    return 2\n"),
        ("app.py", "import caches\n\nprint(caches.make(3))\nprint(caches.tidy())\nfrom caches import _other\nprint(_other.make(1))\nprint(caches.make(1) == _other.make(1))\n"),
        ("user.py", "from caches import make\n\n\ndef twice() -> list[int]:\n    return make(2) + make(1)\n"),
    ]);
    // Ground truth: both callers run `_impl.make`.
    assert_eq!(python_prints(dir.path(), "import app"), "[0, 0, 0]\n2\n[1]\nFalse");
    assert_eq!(python_prints(dir.path(), "import user; print(user.twice())"), "[0, 0, 0]");
    let run = support::lsp_run_allowing_writes(dir.path());

    // At the run-time declaration: pyright lists no caller; the warning names them.
    let references = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "caches/_impl.py", "line": 1, "symbol": "make"}));
    let text = references.joined_text();
    assert!(!references.is_error, "{text}");
    assert!(!text.contains("app.py ("), "pyright resolves `caches.make` by the stub, so it lists no caller here:\n{text}");
    assert!(
        text.contains("WARNING: `caches.make` is this `make` at run time (`caches/__init__.py` binds it from `caches/_impl.py`), but the stub `caches/__init__.pyi` binds `make` to the one in `caches/_other.py`"),
        "{text}"
    );
    assert!(text.contains("4 lines by text: app.py:3, app.py:7, user.py:1, user.py:5"), "{text}");

    // At the stub's declaration: the callers are listed as its own, and the warning says what runs.
    let references = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "caches/_other.py", "line": 1, "symbol": "make"}));
    let text = references.joined_text();
    assert!(!references.is_error, "{text}");
    assert!(text.contains("app.py (4):\n  3: print(caches.make(3))"), "pyright counts the caller as a use of `_other.make`:\n{text}");
    assert!(
        text.contains("at run time `caches/__init__.py` binds `make` from `caches/_impl.py` — those uses (4 lines by text: app.py:3, app.py:7, user.py:1, user.py:5) run the `make` of `caches/_impl.py`, not this one"),
        "{text}"
    );

    // A definition asked at a caller lands on the stub's side, and says so.
    let definition = run.call(Caller::Main, "lsp", json!({"op": "definition", "file": "app.py", "line": 3, "symbol": "make"}));
    let text = definition.joined_text();
    assert!(!definition.is_error, "{text}");
    assert!(text.contains("WARNING: pyright resolves uses through `caches`"), "{text}");
    // A hover there says it too (recheck49 N3: a hover's answer names no file).
    let hover = run.call(Caller::Main, "lsp", json!({"op": "hover", "file": "app.py", "line": 3, "symbol": "make"}));
    let text = hover.joined_text();
    assert!(!hover.is_error, "{text}");
    assert!(text.contains("WARNING: pyright resolves uses through `caches`"), "{text}");
    // On one line, the use through the package warns and the other object's does not
    // (recheck49 N1: `attrs.asdict(x) == _attr.asdict(x)` warned at both).
    let through =
        run.call(Caller::Main, "lsp", json!({"op": "definition", "file": "app.py", "line": 7, "symbol": "make", "occurrence": 1}));
    assert!(through.joined_text().contains("WARNING: pyright resolves uses through `caches`"), "{}", through.joined_text());
    let other = run.call(Caller::Main, "lsp", json!({"op": "definition", "file": "app.py", "line": 7, "symbol": "make", "occurrence": 2}));
    assert!(!other.joined_text().contains("WARNING"), "{}", other.joined_text());
    // Asked at a use that is no use through the package, it is right and says nothing more.
    let definition = run.call(Caller::Main, "lsp", json!({"op": "definition", "file": "app.py", "line": 6, "symbol": "make"}));
    let text = definition.joined_text();
    assert!(!definition.is_error, "{text}");
    assert!(text.contains("caches/_other.py:1"), "{text}");
    assert!(!text.contains("WARNING"), "{text}");

    // A name the stub binds as the package does: no warning.
    let references = run.call(Caller::Main, "lsp", json!({"op": "references", "file": "caches/_tools.py", "line": 1, "symbol": "tidy"}));
    let text = references.joined_text();
    assert!(!references.is_error, "{text}");
    assert!(text.contains("app.py (1):\n  4: print(caches.tidy())"), "{text}");
    assert!(!text.contains("WARNING"), "{text}");
}

/// pluggy 1.7.0 (trial166 M1): renaming the public `HookimplMarker` was complete and "no new
/// errors", and the project's `.venv` pytest — which imports `pluggy.HookimplMarker` from the
/// workspace through an editable install — could no longer start. The rename names the
/// installed files that use the old name; a package with its own copy in site-packages is left.
#[test]
fn a_rename_of_a_public_name_names_installed_packages_that_import_it_through_an_editable_install() {
    let test = "a_rename_of_a_public_name_names_installed_packages_that_import_it_through_an_editable_install";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"marks\"\nversion = \"0.1.0\"\n"),
        ("src/marks/__init__.py", "from marks._impl import Marker\n\n__all__ = [\"Marker\"]\n"),
        ("src/marks/_impl.py", "class Marker:\n    def __init__(self, name: str) -> None:\n        self.name = name\n"),
    ]);
    let created = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(dir.path())
        .status()
        .expect("python3 -m venv runs");
    assert!(created.success());
    let venv_python = dir.path().join(".venv/bin/python");
    let purelib = std::process::Command::new(&venv_python)
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        .output()
        .expect("the venv's python runs");
    let site_packages = std::path::PathBuf::from(String::from_utf8_lossy(&purelib.stdout).trim());
    // An installed runner that imports the package's public name (and names `mymarks.Marker`,
    // another package's, in a function).
    std::fs::create_dir_all(site_packages.join("runner")).unwrap();
    std::fs::write(
        site_packages.join("runner/__init__.py"),
        "from marks import Marker\n\nimport marks\n\nDEFAULT = marks.Marker(\"runner\")\n\n\ndef other():\n    return mymarks.Marker\n",
    )
    .unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    // Not installed from this workspace (no editable install yet): not said (review49 M3).
    let preview = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/marks/_impl.py", "line": 1, "symbol": "Marker", "new_name": "Mark", "preview": true}),
    );
    assert!(preview.contains("note: public name changed"), "{preview}");
    assert!(!preview.contains("packages installed in"), "{preview}");
    // An editable install: a .pth naming the source directory.
    std::fs::write(site_packages.join("__editable__.marks-0.1.0.pth"), format!("{}\n", dir.path().join("src").display())).unwrap();
    let runs = |code: &str| std::process::Command::new(&venv_python).args(["-c", code]).current_dir(dir.path()).output().unwrap();
    assert!(runs("import runner").status.success(), "the runner imports the workspace's package before the rename");

    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/marks/_impl.py", "line": 1, "symbol": "Marker", "new_name": "Mark"}));
    assert!(
        text.contains("WARNING: packages installed in `.venv` use `marks.Marker`, and `marks` there is this workspace's (installed editable, no copy in site-packages): runner/__init__.py:1, runner/__init__.py:5 — after this rename"),
        "{text}"
    );
    // Ground truth: the installed runner no longer imports.
    let after = runs("import runner");
    assert!(!after.status.success() && String::from_utf8_lossy(&after.stderr).contains("cannot import name 'Marker'"), "{after:?}");
}
