//! Wrong answers from the fresh-user trial 150 (tomlkit 0.13.2), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - F2: renaming the dataclass field `Trivia.comment_ws` left `item.trivia.comment_ws` in
//!   `Container._render_simple_item(self, key, item)` (an untyped parameter) unrenamed, listed
//!   only among "check them" with no WARNING; 424 of 859 tests failed with AttributeError.
//! - F3: renaming `Key.sep` warned twice that the subclasses' `self.sep = sep` were not renamed,
//!   when the edit renamed both, and did not flag the untyped `key.sep` that broke the tests.
//!
//! - F1: renaming `Container.append` also renamed `doc["a"].append(…)`, whose receiver pyright
//!   types as `Item | Container` (and already reported `Cannot access attribute "append" for
//!   class "Item"` there) while at run time it is an `Array`, an `Item` subclass with its own
//!   `append`: written, 4 tests failed, "no new errors".
//!
//! Ground truth: the renamed package run by CPython.

use crate::support;

use serde_json::json;

const ITEMS: &str = "from dataclasses import dataclass\n\n\n@dataclass\nclass Trivia:\n    comment_ws: str = \"\"\n    comment: str = \"\"\n\n\nclass Item:\n    def __init__(self, trivia: Trivia) -> None:\n        self._trivia = trivia\n\n    @property\n    def trivia(self) -> Trivia:\n        return self._trivia\n\n\nclass Key:\n    sep: str\n\n    def as_string(self) -> str:\n        return self.sep\n\n\nclass SingleKey(Key):\n    def __init__(self, sep: str = \" = \") -> None:\n        self.sep = sep\n\n\nclass DottedKey(Key):\n    def __init__(self, sep: str | None = None) -> None:\n        self.sep = \" = \" if sep is None else sep\n";

const CONTAINER: &str = "from pkg.items import Item, SingleKey, Trivia\n\n\ndef render_simple_item(key, item):\n    return f\"{key.sep}{item.trivia.comment_ws}{item.trivia.comment}\"\n\n\ndef render() -> str:\n    return render_simple_item(SingleKey(), Item(Trivia(\" \", \"# c\")))\n";

fn render(dir: &std::path::Path) -> String {
    support::python_prints(dir, "import pkg.container\ntry:\n    print(repr(pkg.container.render()))\nexcept AttributeError as error:\n    print('AttributeError', error)")
}

#[test]
fn an_untyped_attribute_use_in_the_projects_code_is_a_warning_and_a_renamed_self_assignment_is_renamed() {
    let test = "lsp_trial150::an_untyped_attribute_use_in_the_projects_code_is_a_warning_and_a_renamed_self_assignment_is_renamed";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let files = [
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/items.py", ITEMS),
        ("pkg/container.py", CONTAINER),
    ];
    let dir = support::workspace_with(&files);
    assert_eq!(render(dir.path()), "' =  # c'");
    let run = support::lsp_run_allowing_writes(dir.path());

    // F2: the dataclass field.
    let preview = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "pkg/items.py", "line": 6, "symbol": "comment_ws", "new_name": "comment_space", "preview": true}),
    );
    let text = preview.joined_text();
    assert!(!preview.is_error, "{text}");
    assert!(
        text.contains("WARNING: 1 use of `.comment_ws` in the project's code (pkg/container.py:5) was left unrenamed: pyright gives no definition there"),
        "{text}"
    );
    let edit_id =
        preview.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    // Ground truth: the untyped use breaks at run time.
    let rendered = render(dir.path());
    assert!(rendered.starts_with("AttributeError"), "{rendered}");

    // F3: the class attribute the subclasses assign.
    let dir = support::workspace_with(&files);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "pkg/items.py", "line": 20, "symbol": "sep", "new_name": "separator"}));
    let items = std::fs::read_to_string(dir.path().join("pkg/items.py")).unwrap();
    assert!(
        items.contains("        self.separator = sep\n") && items.contains("        self.separator = \" = \" if sep is None else sep\n"),
        "{items}"
    );
    assert!(!text.contains("assigns its own `self.sep`"), "the subclasses' assignments were renamed:\n{text}");
    assert!(text.contains("WARNING: 1 use of `.sep` in the project's code (pkg/container.py:5) was left unrenamed"), "{text}");
    assert!(render(dir.path()).starts_with("AttributeError"), "ground truth: the untyped use breaks");
}

/// Review of trial150 M3's staging (review45 RISK 4): an override of a base class in an
/// installed package inside the workspace (`.venv/…/site-packages`) is library code, which no
/// rename edits: the rename is written with the dispatch note, not staged with "rename the base
/// method too".
#[test]
fn an_override_of_an_installed_packages_base_inside_the_workspace_is_written_not_staged() {
    let test = "lsp_trial150::an_override_of_an_installed_packages_base_inside_the_workspace_is_written_not_staged";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"app\"\nversion = \"0.1.0\"\n"),
        ("app/__init__.py", ""),
        ("app/views.py", "from extlib import Base\n\n\nclass View(Base):\n    def dispatch(self) -> str:\n        return \"view\"\n"),
    ]);
    let venv =
        std::process::Command::new("python3").args(["-m", "venv", "--without-pip", ".venv"]).current_dir(dir.path()).output().unwrap();
    assert!(venv.status.success(), "{}", String::from_utf8_lossy(&venv.stderr));
    let site_packages = support::python_prints(
        dir.path(),
        "import sysconfig; print(sysconfig.get_path('purelib', vars={'base': '.venv', 'platbase': '.venv'}))",
    );
    let package = dir.path().join(site_packages.trim()).join("extlib");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::write(package.join("__init__.py"), "class Base:\n    def dispatch(self) -> str:\n        return \"base\"\n\n    def run(self) -> str:\n        return self.dispatch()\n").unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "app/views.py", "line": 5, "symbol": "dispatch", "new_name": "handle"}));
    assert!(!text.starts_with("NOT written"), "{text}");
    assert!(text.contains("note: dispatch changed: `View.dispatch` overrides `Base.dispatch`"), "{text}");
    assert!(text.contains("cannot be renamed: keep the name `dispatch`"), "{text}");
    let views = std::fs::read_to_string(dir.path().join("app/views.py")).unwrap();
    assert!(views.contains("def handle(self)"), "written:\n{views}\n{text}");
}

/// review45 RISK 6 (the recheck of trial150 F1 warned of tomlkit's plain list): renaming a
/// member named like a method of Python's built-in types (`append`), an untyped `x.append` in
/// the project's code is as likely a list's: listed first and noted, not warned of.
#[test]
fn an_untyped_use_of_a_builtin_method_name_is_noted_not_warned_of() {
    let test = "lsp_trial150::an_untyped_use_of_a_builtin_method_name_is_noted_not_warned_of";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/doc.py", "class Doc:\n    def __init__(self) -> None:\n        self.items: list[int] = []\n\n    def append(self, value: int) -> None:\n        self.items.append(value)\n"),
        ("pkg/use.py", "from pkg.doc import Doc\n\n\ndef fill(target, value):\n    target.append(value)\n\n\ndef build() -> Doc:\n    doc = Doc()\n    doc.append(1)\n    return doc\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "pkg/doc.py", "line": 5, "symbol": "append", "new_name": "add_value", "preview": true}),
    );
    assert!(!text.contains("WARNING: 1 use of `.append` in the project's code"), "{text}");
    assert!(
        text.contains("note: 1 use of `.append` in the project's code has no definition from pyright (listed first among those to check); `append` is also a method of Python's built-in types, so they are not warned of"),
        "{text}"
    );
    assert!(text.contains("pkg/use.py:5: target.append(value)"), "{text}");
}

const PARTIAL_ITEMS: &str = "class Item:\n    def as_string(self) -> str:\n        return \"\"\n\n\nclass Array(Item):\n    def __init__(self) -> None:\n        self.values: list[int] = []\n\n    def append(self, value: int) -> None:\n        self.values.append(value)\n";

const PARTIAL_CONTAINER: &str = "from pkg.items import Item\n\n\nclass Container:\n    def __init__(self) -> None:\n        self.body: dict[str, \"Item | Container\"] = {}\n\n    def append(self, key: str, item: \"Item | Container | None\" = None) -> \"Container\":\n        if item is not None:\n            self.body[key] = item\n        return self\n\n    def __getitem__(self, key: str) -> \"Item | Container\":\n        return self.body[key]\n";

const PARTIAL_USE: &str = "from pkg.container import Container\nfrom pkg.items import Array\n\n\ndef run() -> list[int]:\n    doc = Container()\n    doc.append(\"a\", Array())\n    doc[\"a\"].append(1)\n    return doc[\"a\"].values  # type: ignore[union-attr]\n";

/// F1: a renamed use on a receiver pyright types as a union whose other member lacks the name
/// (it reported so there before the write) is a WARNING, and the rename is staged, not written.
#[test]
fn a_renamed_use_on_a_union_receiver_whose_other_member_lacks_the_name_stages_the_rename() {
    let test = "lsp_trial150::a_renamed_use_on_a_union_receiver_whose_other_member_lacks_the_name_stages_the_rename";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/items.py", PARTIAL_ITEMS),
        ("pkg/container.py", PARTIAL_CONTAINER),
        ("pkg/use.py", PARTIAL_USE),
    ]);
    let run_use = |dir: &std::path::Path| {
        support::python_prints(
            dir,
            "import pkg.use\ntry:\n    print(pkg.use.run())\nexcept AttributeError as error:\n    print('AttributeError', error)",
        )
    };
    assert_eq!(run_use(dir.path()), "[1]");
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "pkg/container.py", "line": 8, "symbol": "append", "new_name": "append_item"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.starts_with(
            "NOT written: this rename changes 1 use on a receiver pyright types as a union whose other member has no `append`"
        ),
        "{text}"
    );
    assert!(
        text.contains("WARNING: 1 use this rename changes from `.append` to `.append_item` sits on a receiver pyright types as a union whose other member has no `append` — pyright already reported there, before this write, that `Item` has no attribute `append`: pkg/use.py:8 (`Item`);"),
        "{text}"
    );
    // `doc.append(…)` on line 7 is a plain `Container`: checked, not named.
    assert!(text.contains("union-receiver check: 2 renamed `.append` uses on receivers other than `self`/`cls` read against pyright's diagnostics before the write"), "{text}");
    assert!(text.contains(": 1 such"), "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("pkg/use.py")).unwrap(), PARTIAL_USE, "nothing written");
    // Ground truth: accepted as is, the union receiver's call breaks at run time.
    let edit_id =
        result.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let after = run_use(dir.path());
    assert!(after.starts_with("AttributeError") && after.contains("append_item"), "{after}");
}
