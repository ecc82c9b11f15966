//! Trial 154 F3 (marshmallow 3.21.3), against the real pyright and CPython, on a fixture of the
//! same shape: renaming `SchemaOpts.datetimeformat`, the `WARNING` named `self.datetimeformat =
//! getattr(meta, "datetimeformat", None)` — which reads the user's `class Meta` option, another
//! object, and must stay — and filed the live `SCHEMA_OPTS_VAR_NAME = "datetimeformat"`, which
//! `getattr(self.root.opts, self.SCHEMA_OPTS_VAR_NAME)` reads on a `SchemaOpts`, among plain
//! strings: the suite then failed at import.
//!
//! Ground truth: the fixture run by CPython before the rename, after it, and after the strings
//! the `WARNING` lists are renamed as it says.

use crate::support;

use serde_json::json;

const OPTS: &str =
    "class Base:\n    def read(self):\n        return getattr(self, \"fmt\")\n\n\nclass Opts(Base):\n    def __init__(self, meta):\n        self.fmt = getattr(meta, \"fmt\", None)\n\n\nclass SubOpts(Opts):\n    pass\n";

const FIELDS: &str = "from pkg.opts import Opts, SubOpts\n\n\nclass F:\n    VAR = \"fmt\"\n\n    def bind(self, opts: Opts):\n        return getattr(opts, self.VAR)\n\n\ndef sub(opts: SubOpts):\n    return getattr(opts, \"fmt\")\n\n\nclass Holder:\n    opts = None  # type: Opts\n\n\nclass H:\n    KEY = \"fmt\"\n    root = None\n\n    def bind(self, root):\n        self.root = root\n        return getattr(self.root.opts, self.KEY)\n";

const USE: &str = "from pkg.fields import F, H, Holder, sub\nfrom pkg.opts import Opts, SubOpts\n\n\nclass Meta:\n    fmt = \"%Y\"\n\n\nclass Settings:\n    fmt = \"iso\"\n\n\ndef setting(settings: Settings):\n    return getattr(settings, \"fmt\")\n\n\ndef held():\n    holder = Holder()\n    holder.opts = Opts(Meta)\n    return H().bind(holder)\n\n\ndef run():\n    return F().bind(Opts(Meta)), setting(Settings()), sub(SubOpts(Meta)), held(), Opts(Meta).read()\n";

/// F3: a getattr string read on another class's object (`Settings`) is listed apart as not
/// renamed, one that copies an untyped object's option (`getattr(meta, "fmt")`) too, while a
/// constant `VAR = "fmt"` that `getattr(opts, self.VAR)` reads on an `Opts` is promoted into the
/// WARNING with the string read on a subclass's object, and so is `KEY = "fmt"`, read by
/// `getattr(self.root.opts, self.KEY)` where `root` is untyped and `opts` declared an `Opts`;
/// a base class's `getattr(self, "fmt")` stays in the WARNING; renaming what it lists runs.
#[test]
fn a_getattr_string_is_told_by_its_objects_class_and_a_constant_it_reads_is_a_warning() {
    let test = "lsp_trial154_getattr::a_getattr_string_is_told_by_its_objects_class_and_a_constant_it_reads_is_a_warning";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/opts.py", OPTS),
        ("pkg/fields.py", FIELDS),
        ("pkg/use.py", USE),
    ]);
    let run_use = |dir: &std::path::Path| support::python_prints(dir, "import pkg.use\nprint(pkg.use.run())");
    assert_eq!(run_use(dir.path()), "('%Y', 'iso', '%Y', '%Y', '%Y')");
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "pkg/opts.py", "line": 8, "symbol": "self.fmt", "new_name": "date_format"}));
    assert!(
        text.contains(
            "WARNING: 4 occurrences left unrenamed in strings that name the attribute for mock.patch.object / getattr / setattr / hasattr"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "    pkg/fields.py:5: VAR = \"fmt\"   (string constant `VAR`, read by `getattr(opts, …)` at pkg/fields.py:8 on a `Opts`)"
        ),
        "{text}"
    );
    assert!(text.contains("    pkg/fields.py:12: return getattr(opts, \"fmt\")   (attribute name string)"), "{text}");
    // A base class's `self` may be an instance of the renamed class: kept.
    assert!(text.contains("    pkg/opts.py:3: return getattr(self, \"fmt\")   (attribute name string)"), "{text}");
    // The object's owner untyped (marshmallow's `self.root.opts`): told by the attribute's
    // declaration `opts = None  # type: Opts`.
    assert!(
        text.contains("    pkg/fields.py:20: KEY = \"fmt\"   (string constant `KEY`, read by `getattr(self.root.opts, …)` at pkg/fields.py:25, whose object pyright does not type; `opts` is declared a `Opts` at pkg/fields.py:16)"),
        "{text}"
    );
    assert!(
        text.contains("left unrenamed, rightly: 1 string in getattr / setattr / hasattr / mock.patch.object calls whose object is another class's (`settings` (a `Settings`) at pkg/use.py:14): the renamed `fmt` is a member of `Opts`"),
        "{text}"
    );
    assert!(
        text.contains("left unrenamed, likely rightly: 1 string where an untyped object's attribute of the same name is copied into the renamed one (`meta` at pkg/opts.py:8)"),
        "{text}"
    );
    // Ground truth: the attribute renamed alone fails at run time; renaming the strings the
    // WARNING lists (and not `getattr(meta, "fmt")` or `getattr(settings, "fmt")`) runs as before.
    assert!(run_use(dir.path()).contains("AttributeError"), "the rename alone breaks the reads");
    let fields = std::fs::read_to_string(dir.path().join("pkg/fields.py")).unwrap();
    std::fs::write(dir.path().join("pkg/fields.py"), fields.replace("\"fmt\"", "\"date_format\"")).unwrap();
    let opts = std::fs::read_to_string(dir.path().join("pkg/opts.py")).unwrap();
    std::fs::write(dir.path().join("pkg/opts.py"), opts.replace("getattr(self, \"fmt\")", "getattr(self, \"date_format\")")).unwrap();
    assert_eq!(run_use(dir.path()), "('%Y', 'iso', '%Y', '%Y', '%Y')");
}

/// Review46 #11: a getattr on an object typed as a `typing.Protocol` (or an `ABC`) is no other
/// class's object: an instance of the renamed class is what callers pass, though it never
/// climbs to the protocol by its bases. The string stays in the WARNING, not listed apart as
/// rightly left.
#[test]
fn a_getattr_on_an_object_typed_as_a_protocol_stays_in_the_warning() {
    let test = "lsp_trial154_getattr::a_getattr_on_an_object_typed_as_a_protocol_stays_in_the_warning";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        // The renamed class has an abstract base itself: no reason to doubt other classes (review47 H2).
        ("pkg/opts.py", "import abc\n\n\nclass Base(abc.ABC):\n    pass\n\n\nclass Opts(Base):\n    def __init__(self):\n        self.fmt = \"%Y\"\n"),
        (
            "pkg/other.py",
            "from pkg.load import Abstract\n\n\nclass Other:\n    def __init__(self):\n        self.fmt = \"x\"\n\n\nclass Reader(Abstract):\n    fmt = \"r\"\n\n\ndef other(o: Other):\n    return getattr(o, \"fmt\")\n\n\ndef reader(r: Reader):\n    return getattr(r, \"fmt\")\n",
        ),
        (
            "pkg/load.py",
            "import abc\nfrom typing import Protocol\n\nfrom pkg.opts import Opts\n\n\nclass OptsLike(Protocol):\n    def __init__(self) -> None: ...\n\n\nclass Abstract(abc.ABC):\n    pass\n\n\ndef load(opts: OptsLike):\n    return getattr(opts, \"fmt\")\n\n\ndef load_abstract(opts: Abstract):\n    return getattr(opts, \"fmt\")\n\n\ndef run():\n    return load(Opts()), load_abstract(Opts())  # type: ignore[arg-type]\n",
        ),
    ]);
    assert_eq!(support::python_prints(dir.path(), "import pkg.load\nprint(pkg.load.run())"), "('%Y', '%Y')");
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "pkg/opts.py", "line": 10, "symbol": "self.fmt", "new_name": "date_format", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("    pkg/load.py:16: return getattr(opts, \"fmt\")   (attribute name string)"), "{text}");
    assert!(text.contains("    pkg/load.py:20: return getattr(opts, \"fmt\")   (attribute name string)"), "{text}");
    // A concrete class, one with an abstract ancestor too, is another class's object.
    assert!(
        text.contains("left unrenamed, rightly: 2 strings in getattr / setattr / hasattr / mock.patch.object calls whose object is another class's (`o` (a `Other`) at pkg/other.py:14, `r` (a `Reader`) at pkg/other.py:18)"),
        "{text}"
    );
}

/// Trial158 M3 (click 8.1.7, `ShellComplete.name`): `hasattr(self, "name")` in an unrelated
/// class's method (pyright types `self` as `Self@ParamType`, and its `typeDefinition` is the
/// parameter, no class) and `hasattr(default, "name")` on an `IOBase | LazyFile` were WARNINGs
/// that "fail at run time". `self` is told by the class around the method, a union by each of
/// its classes; a union holding the renamed class, and a base class's `self`, stay.
#[test]
fn a_getattr_on_self_of_another_class_or_a_union_of_other_classes_is_rightly_left() {
    let test = "lsp_trial154_getattr::a_getattr_on_self_of_another_class_or_a_union_of_other_classes_is_rightly_left";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        (
            "pkg/shell.py",
            "import typing as t\n\n\nclass Named:\n    def label(self):\n        return getattr(self, \"name\", \"?\")\n\n\nclass ShellComplete(Named):\n    name: t.ClassVar[str] = \"sh\"\n",
        ),
        (
            "pkg/types.py",
            "import io\n\nfrom pkg.shell import ShellComplete\n\n\nclass ParamType:\n    def info(self):\n        if hasattr(self, \"name\"):\n            return getattr(self, \"name\")\n        return None\n\n\nclass LazyFile:\n    name = \"lazy\"\n\n\ndef show(default: io.StringIO | LazyFile):\n    return hasattr(default, \"name\")\n\n\ndef either(x: ShellComplete | LazyFile):\n    return getattr(x, \"name\")\n\n\ndef run():\n    return ParamType().info(), show(LazyFile()), either(ShellComplete()), ShellComplete().label()\n",
        ),
    ]);
    let program = "import pkg.types\nprint(pkg.types.run())";
    assert_eq!(support::python_prints(dir.path(), program), "(None, True, 'sh', 'sh')");
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "pkg/shell.py", "line": 10, "symbol": "name", "new_name": "shell_name", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("left unrenamed, rightly: 3 strings in getattr / setattr / hasattr / mock.patch.object calls whose object is another class's (`self` (a `ParamType`) at pkg/types.py:8, `self` (a `ParamType`) at pkg/types.py:9, `default` (a `StringIO | LazyFile`) at pkg/types.py:18)"),
        "{text}"
    );
    assert!(text.contains("WARNING: 2 occurrences left unrenamed in strings that name the attribute"), "{text}");
    assert!(
        text.contains("    pkg/shell.py:6: return getattr(self, \"name\", \"?\")   (attribute name string)"),
        "a base's `self`:\n{text}"
    );
    assert!(text.contains("    pkg/types.py:22: return getattr(x, \"name\")   (attribute name string)"), "a union with the class:\n{text}");
    // Ground truth: accepted, the WARNING's two strings renamed as it says, the program runs as
    // before; the strings left rightly stay.
    let edit_id =
        result.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    for (file, from, to) in [
        ("pkg/shell.py", "getattr(self, \"name\", \"?\")", "getattr(self, \"shell_name\", \"?\")"),
        ("pkg/types.py", "getattr(x, \"name\")", "getattr(x, \"shell_name\")"),
    ] {
        let path = dir.path().join(file);
        let before = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, before.replacen(from, to, 1)).unwrap();
    }
    assert_eq!(support::python_prints(dir.path(), program), "(None, True, 'sh', 'sh')");
}

/// Review48 H3: a mixin's `getattr(self, "name")` reads the renamed member on the classes that
/// combine the mixin with the renamed class (`Thing(DescribeMixin, Renamed)`): it stays in the
/// WARNING, not "rightly left".
#[test]
fn a_getattr_on_self_of_a_mixin_combined_with_the_renamed_class_stays_in_the_warning() {
    let test = "lsp_trial154_getattr::a_getattr_on_self_of_a_mixin_combined_with_the_renamed_class_stays_in_the_warning";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/shell.py", "class Renamed:\n    name = \"sh\"\n"),
        (
            "pkg/mixin.py",
            "from pkg.shell import Renamed\n\n\nclass DescribeMixin:\n    def describe(self):\n        return getattr(self, \"name\", \"?\")\n\n\nclass Thing(DescribeMixin, Renamed):\n    pass\n",
        ),
    ]);
    let program = "import pkg.mixin\nprint(pkg.mixin.Thing().describe())";
    assert_eq!(support::python_prints(dir.path(), program), "sh");
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "pkg/shell.py", "line": 2, "symbol": "name", "new_name": "label", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("    pkg/mixin.py:6: return getattr(self, \"name\", \"?\")   (attribute name string)"), "{text}");
    assert!(!text.contains("whose object is another class's"), "{text}");
}
