//! Trial 18 (issue 11, a fresh-user session on cattrs 24.1.2 from PyPI): pyright and the files a
//! write breaks through RELATIVE imports. cattrs' nine `preconf/*.py` converters import `wrap`
//! from their package with `from . import wrap`, and `strategies/_class_methods.py` imports
//! `BaseConverter` with `from .. import BaseConverter` (re-exported by `cattrs/__init__.py` from
//! `converters.py`). Giving `wrap` a required parameter broke all nine (the pyright CLI: 9 ×
//! `Argument missing for parameter "strict"`), and the write answered `no new errors` having
//! found "0 files that import it": the importer scan matched the package's name, which a relative
//! import does not spell. The fixture has cattrs' shape; the real pyright checks it.

use crate::support;

use runbound::{Caller, Run, RunConfig};
use serde_json::{json, Value};

use support::edit_and_first_server_check as edit;

fn checked_files(server: &Value) -> Vec<String> {
    let mut files: Vec<String> = server["files"]
        .as_array()
        .map(|files| {
            files.iter().filter(|file| file["status"] == "checked").filter_map(|file| file["file"].as_str().map(str::to_owned)).collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The lines of `text` that list `message` under `file`.
fn listed(text: &str, file: &str, message: &str) -> usize {
    text.lines().filter(|line| line.trim_start().starts_with(&format!("{file}:")) && line.contains(message)).count()
}

#[test]
fn pyright_write_reports_the_errors_it_causes_in_files_that_import_it_relatively() {
    let test = "pyright_write_reports_the_errors_it_causes_in_files_that_import_it_relatively";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"cattrs\"\nversion = \"0.1.0\"\n"),
        ("src/cattrs/__init__.py", "from .converters import BaseConverter\n\n__all__ = [\"BaseConverter\"]\n"),
        (
            "src/cattrs/converters.py",
            "class BaseConverter:\n    def structure(self, obj: object) -> object:\n        return obj\n",
        ),
        ("src/cattrs/preconf/__init__.py", "from typing import Any, Callable\n\n\ndef wrap(_: Callable[..., Any]) -> Callable[..., Any]:\n    return _\n"),
        ("src/cattrs/preconf/json.py", "from . import wrap\n\n\n@wrap(dict)\ndef make_converter() -> None:\n    pass\n"),
        (
            "src/cattrs/preconf/pyyaml.py",
            "from . import (\n    wrap,\n)\n\n\n@wrap(list)\ndef make_converter() -> None:\n    pass\n",
        ),
        (
            "src/cattrs/strategies/_class_methods.py",
            "from .. import BaseConverter\n\n\ndef use_class_methods(converter: BaseConverter) -> object:\n    return converter.structure(1)\n",
        ),
    ]);
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(60);
    config.lsp.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()];
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);

    // A comment opens the module in the server (its pre-write state is then known).
    let wrap = "def wrap(_: Callable[..., Any]) -> Callable[..., Any]:";
    let (text, _) = edit(&run, "src/cattrs/preconf/__init__.py", wrap, &format!("# Wraps.\n{wrap}"));
    assert!(text.contains("no new errors in src/cattrs/preconf/__init__.py (pyright)"), "{text}");

    // `wrap` gets a required parameter: both `from . import wrap` importers break.
    let strict = "def wrap(_: Callable[..., Any], strict: bool) -> Callable[..., Any]:";
    let (text, server) = edit(&run, "src/cattrs/preconf/__init__.py", wrap, strict);
    let missing = "Argument missing for parameter \"strict\"";
    for file in ["src/cattrs/preconf/json.py", "src/cattrs/preconf/pyyaml.py"] {
        assert_eq!(listed(&text, file, missing), 1, "the new error under {file} is not listed:\n{text}");
    }
    assert_eq!(
        checked_files(&server),
        ["src/cattrs/preconf/__init__.py", "src/cattrs/preconf/json.py", "src/cattrs/preconf/pyyaml.py"],
        "{text}"
    );
    assert!(!text.contains("0 files that import it"), "{text}");
    // The structured scope is the `checked:` line the text shows (it had been a Rust Debug dump
    // with absolute paths: `Dependents { found_by: …, out_of_time: ["/tmp/…"] … }`).
    let scope = server["scope"].as_str().unwrap_or_default();
    assert!(scope.starts_with("checked: src/cattrs/preconf/__init__.py and 2 files that import it"), "{scope}");
    assert!(text.contains(scope), "{scope}\n{text}");
    let (text, _) = edit(&run, "src/cattrs/preconf/__init__.py", strict, wrap);
    assert_eq!(text.matches(missing).count(), 2, "the revert lists both errors as resolved:\n{text}");

    // `BaseConverter.structure` gets a required parameter: `from .. import BaseConverter` reaches
    // it through the package's `__init__.py`, which re-exports it.
    let structure = "    def structure(self, obj: object) -> object:";
    let (text, _) = edit(&run, "src/cattrs/converters.py", structure, &format!("    # Structures.\n{structure}"));
    assert!(text.contains("no new errors in"), "{text}");
    let (text, server) = edit(&run, "src/cattrs/converters.py", structure, "    def structure(self, obj: object, cl: type) -> object:");
    assert_eq!(
        listed(&text, "src/cattrs/strategies/_class_methods.py", "Argument missing for parameter \"cl\""),
        1,
        "the new error under strategies/_class_methods.py is not listed:\n{text}"
    );
    assert!(checked_files(&server).contains(&"src/cattrs/strategies/_class_methods.py".to_owned()), "{text}");
}

/// cattrs 24.1.2's `src/cattrs/converters.py` holds, on line 202, the same pyright error twice
/// (`Type variable "T" has no meaning in this context`, columns 68 and 73) and on line 619 two
/// `Expected 1 more positional argument` at other columns: the file's diagnostics said 64 errors
/// where the pyright CLI finds 66, as if one of each pair were not there.
#[test]
fn pyright_file_diagnostics_keep_the_same_error_twice_on_one_line() {
    let test = "pyright_file_diagnostics_keep_the_same_error_twice_on_one_line";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"twice\"\nversion = \"0.1.0\"\n"),
        ("twice.py", "def take(a: int, b: int) -> int:\n    return a + b\n\n\npair = (take(1), take(2))\n"),
    ]);
    let mut config = RunConfig::default();
    config.lsp.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()];
    let run = Run::builder(dir.path()).config(config).language_servers().build().expect("build run");
    let result = run.call(Caller::Readonly, "lsp", json!({"op": "diagnostics", "file": "twice.py"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let missing = "Argument missing for parameter \"b\"";
    assert_eq!(listed(&text, "twice.py", missing), 2, "both calls on line 5 miss `b`:\n{text}");
    assert!(text.contains("2 errors"), "{text}");
}

/// cattrs 24.1.2, `BaseConverter.get_structure_hook` losing its default: 79 files import
/// converters.py; the importers checked within the cap (40) and budget were taken in scan order
/// among those that name `get_structure_hook` or `BaseConverter`, so `src/cattr/*` shims and
/// `bench/` files (the class named in an annotation) were checked and callers that broke were
/// not. The fixture has three such shims before the one caller, and a cap of 2 importers: the
/// caller, which uses the rarer changed name, is checked and its error reported.
#[test]
fn pyright_write_checks_the_importers_using_the_changed_method_before_those_naming_its_class() {
    let test = "pyright_write_checks_the_importers_using_the_changed_method_before_those_naming_its_class";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let shim = "from pkg.converters import BaseConverter\n\nShimConverter = BaseConverter\n";
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        (
            "pkg/converters.py",
            "class BaseConverter:\n    def get_structure_hook(self, cl: type, cache_result: bool = True) -> object:\n        return cl\n",
        ),
        ("pkg/a_shim.py", shim),
        ("pkg/b_shim.py", shim),
        ("pkg/c_shim.py", shim),
        (
            "pkg/z_cols.py",
            "from pkg.converters import BaseConverter\n\n\ndef hook(converter: BaseConverter) -> object:\n    return converter.get_structure_hook(int)\n",
        ),
    ]);
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(60);
    config.lsp.write_diagnostics_dependents_cap = 2;
    config.lsp.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()];
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);

    let signature = "    def get_structure_hook(self, cl: type, cache_result: bool = True) -> object:";
    let (text, _) = edit(&run, "pkg/converters.py", signature, &format!("    # Gets the hook.\n{signature}"));
    assert!(text.contains("no new errors in pkg/converters.py (pyright)"), "{text}");
    let (text, server) =
        edit(&run, "pkg/converters.py", signature, "    def get_structure_hook(self, cl: type, cache_result: bool) -> object:");
    assert_eq!(
        listed(&text, "pkg/z_cols.py", "Argument missing for parameter \"cache_result\""),
        1,
        "the caller's new error is not listed:\n{text}"
    );
    let checked = checked_files(&server);
    assert!(checked.contains(&"pkg/z_cols.py".to_owned()), "{text}");
    assert_eq!(checked.len(), 3, "the written file and 2 importers (the cap): {checked:?}\n{text}");
    assert!(text.contains("2 more that import it were not checked (the cap of 2 files)"), "{text}");
}

/// cattrs 24.1.2's converters.py ends with `GenConverter: TypeAlias = Converter`: a change to
/// `Converter.__init__` reaches an importer that names only the alias, which the importer filter
/// (importers that use a changed name) had left unchecked "because it uses none of the names".
#[test]
fn pyright_write_checks_an_importer_that_uses_only_an_alias_of_the_changed_class() {
    let test = "pyright_write_checks_an_importer_that_uses_only_an_alias_of_the_changed_class";
    if support::require_binary(test, "pyright-langserver").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        (
            "pkg/converters.py",
            "from typing import TypeAlias\n\n\nclass Converter:\n    def __init__(self, a: int) -> None:\n        self.a = a\n\n\nGenConverter: TypeAlias = Converter\n",
        ),
        ("pkg/uses_alias.py", "from pkg.converters import GenConverter\n\nconverter = GenConverter(1)\n"),
    ]);
    let mut config = RunConfig::default();
    config.lsp.write_diagnostics_budget = std::time::Duration::from_secs(60);
    config.lsp.disabled_servers = vec!["basedpyright".to_owned(), "pylsp".to_owned()];
    let run = support::lsp_run_allowing_writes_with_config(dir.path(), config);

    let init = "    def __init__(self, a: int) -> None:";
    let (text, _) = edit(&run, "pkg/converters.py", init, &format!("    # Builds it.\n{init}"));
    assert!(text.contains("no new errors in pkg/converters.py (pyright)"), "{text}");
    let (text, server) = edit(&run, "pkg/converters.py", init, "    def __init__(self, a: int, b: int) -> None:");
    assert_eq!(
        listed(&text, "pkg/uses_alias.py", "Argument missing for parameter \"b\""),
        1,
        "the error in the alias's user is not listed:\n{text}"
    );
    assert!(checked_files(&server).contains(&"pkg/uses_alias.py".to_owned()), "{text}");
}
