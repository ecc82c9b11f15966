//! Wrong answers from the fresh-user trial 154 (marshmallow 3.21.3), against the real pyright,
//! CPython and pytest, on fixtures of the same shape:
//! - F1: renaming `Field.__init__`'s keyword parameter `allow_none` left 20 `allow_none=` keywords
//!   on calls of subclasses whose `__init__` forwards `**kwargs` (swallowed silently into
//!   `**additional_metadata`): written with only a note, 32 tests failed.
//! - F2: renaming the conftest.py fixture `serialized_user` left the 13 tests that request it by
//!   parameter name: "no new errors", 14 tests errored with "fixture not found".
//! - F3: renaming `SchemaOpts.datetimeformat`, the WARNING named `getattr(meta, "datetimeformat")`
//!   (a user's Meta class, which must stay) and filed the live `SCHEMA_OPTS_VAR_NAME =
//!   "datetimeformat"`, which `getattr(self.root.opts, self.SCHEMA_OPTS_VAR_NAME)` reads, among
//!   plain strings: the suite failed to import.
//!
//! Ground truth: the fixture run by CPython (and pytest, when importable).

use crate::support;

use serde_json::json;

/// Whether the `python3` on PATH imports pytest (the ground truth of F2).
fn pytest_available(dir: &std::path::Path) -> bool {
    support::python_prints(dir, "import pytest; print('ok')") == "ok"
}

/// pytest's summary line for the tests in `dir` (`2 passed`, `1 passed, 1 error`).
fn pytest_summary(dir: &std::path::Path) -> String {
    let output = std::process::Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"])
        .current_dir(dir)
        .output()
        .expect("run pytest");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    stdout.lines().last().unwrap_or("").trim_matches('=').trim().to_owned()
}

const CONFTEST: &str = "import pytest\n\n\n@pytest.fixture\ndef thing():\n    return {\"name\": \"thing\"}\n\n\n@pytest.fixture(name=\"other\")\ndef other_fixture(thing):\n    return thing[\"name\"] + \"!\"\n";

const TEST_A: &str = "import pytest\n\n\ndef test_x(thing):\n    assert thing[\"name\"] == \"thing\"\n\n\n@pytest.mark.usefixtures(\"thing\")\ndef test_used():\n    pass\n\n\ndef test_by_value(request):\n    assert request.getfixturevalue(\"thing\")[\"name\"] == \"thing\"\n\n\ndef test_other(other):\n    assert other == \"thing!\"\n\n\ndef helper(thing):\n    return thing\n";

const SUB_CONFTEST: &str = "import pytest\n\n\n@pytest.fixture\ndef thing():\n    return {\"name\": \"closer\"}\n";

const SUB_TEST: &str = "def test_closer(thing):\n    assert thing[\"name\"] == \"closer\"\n";

/// F2: a conftest.py fixture renamed renames the parameters (and their uses) and the string
/// requests of the tests and fixtures that request it in its scope, leaves those a closer fixture
/// of the same name serves, and `references` lists the requests.
#[test]
fn renaming_a_conftest_fixture_renames_the_tests_that_request_it_by_parameter_name() {
    let test = "lsp_trial154::renaming_a_conftest_fixture_renames_the_tests_that_request_it_by_parameter_name";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"app\"\nversion = \"0.1.0\"\n"),
        ("tests/__init__.py", ""),
        ("tests/conftest.py", CONFTEST),
        ("tests/test_a.py", TEST_A),
        ("tests/sub/__init__.py", ""),
        ("tests/sub/conftest.py", SUB_CONFTEST),
        ("tests/sub/test_sub.py", SUB_TEST),
    ]);
    let pytest = pytest_available(dir.path());
    if pytest {
        let summary = pytest_summary(dir.path());
        assert!(summary.starts_with("5 passed"), "{summary}");
    }
    let run = support::lsp_run_allowing_writes(dir.path());
    let references = support::call_ok(&run, "lsp", json!({"op": "references", "file": "tests/conftest.py", "line": 5, "symbol": "thing"}));
    assert!(references.contains("pytest fixture: `thing` (tests/conftest.py:5) is requested by name, which the server does not follow — 4 requests within pytest's scope for it (tests/conftest.py's directory and below); 1 more of that name get a closer fixture of the same name:"), "{references}");
    assert!(references.contains("tests/test_a.py:4: `test_x` requests it as a parameter"), "{references}");
    assert!(references.contains("tests/conftest.py:10: `other_fixture` requests it as a parameter"), "{references}");
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "tests/conftest.py", "line": 5, "symbol": "thing", "new_name": "item"}));
    assert!(text.contains("note: `thing` (tests/conftest.py:5) is a pytest fixture, which pytest hands to each test or fixture that names it as a parameter"), "{text}");
    assert!(
        text.contains("the parameter `thing` → `item` of 2 functions (4 edits in all, with the body's uses) and 2 string requests"),
        "{text}"
    );
    assert!(text.contains("left, rightly: 1 request of `thing` under a closer fixture of that name, which pytest hands them instead: tests/sub/test_sub.py:1 (fixture tests/sub/conftest.py:5)"), "{text}");
    let test_a = std::fs::read_to_string(dir.path().join("tests/test_a.py")).unwrap();
    assert!(test_a.contains("def test_x(item):\n    assert item[\"name\"]"), "{test_a}");
    assert!(test_a.contains("usefixtures(\"item\")") && test_a.contains("getfixturevalue(\"item\")"), "{test_a}");
    assert!(test_a.contains("def helper(thing):\n    return thing"), "a helper is no request:\n{test_a}");
    let conftest = std::fs::read_to_string(dir.path().join("tests/conftest.py")).unwrap();
    assert!(conftest.contains("def other_fixture(item):\n    return item[\"name\"]"), "{conftest}");
    assert_eq!(std::fs::read_to_string(dir.path().join("tests/sub/test_sub.py")).unwrap(), SUB_TEST, "served by the closer fixture");
    // Ground truth: every test still finds its fixture.
    if pytest {
        let summary = pytest_summary(dir.path());
        assert!(summary.starts_with("5 passed"), "{summary}");
    }
}

const FIELDS: &str = "class F:\n    def __init__(self, *, flag=None, **extra):\n        self.flag = flag\n        self.extra = extra\n\n\nclass G(F):\n    def __init__(self, x=1, **kw):\n        super().__init__(**kw)\n        self.x = x\n\n\ndef other(flag=0):\n    return flag\n";

const USE: &str = "from pkg.fields import F, G, other\n\n\ndef run():\n    return (F(flag=True).flag, G(flag=True).flag, other(flag=2))\n";

/// F1: a renamed keyword parameter's `old=` keywords left on calls pyright cannot resolve (a
/// subclass whose `__init__` forwards `**kwargs`) are a WARNING and stage the rename.
#[test]
fn a_keyword_left_on_a_call_through_forwarded_kwargs_is_a_warning_and_stages_the_rename() {
    let test = "lsp_trial154::a_keyword_left_on_a_call_through_forwarded_kwargs_is_a_warning_and_stages_the_rename";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"pkg\"\nversion = \"0.1.0\"\n"),
        ("pkg/__init__.py", ""),
        ("pkg/fields.py", FIELDS),
        ("pkg/use.py", USE),
    ]);
    let run_use = |dir: &std::path::Path| support::python_prints(dir, "import pkg.use\nprint(pkg.use.run())");
    assert_eq!(run_use(dir.path()), "(True, True, 2)");
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "pkg/fields.py", "line": 2, "symbol": "flag", "new_name": "enabled"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.starts_with("NOT written: this rename leaves 1 keyword argument `flag=` in calls pyright gives no definition for"),
        "{text}"
    );
    assert!(
        text.contains("WARNING: 1 keyword argument `flag=` in calls is left unrenamed where pyright gives no definition (pkg/use.py:5)"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("pkg/use.py")).unwrap(), USE, "nothing written");
    // Ground truth: accepted as is, `G(flag=True)` is swallowed by `**extra`.
    let edit_id =
        result.structured_content.as_ref().and_then(|content| content["edit_id"].as_str()).unwrap_or_else(|| panic!("{text}")).to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert_eq!(run_use(dir.path()), "(True, None, 2)");
}

const PLUGIN: &str = "import pytest\n\n\n@pytest.fixture\ndef thing():\n    return {\"name\": \"thing\"}\n";

const PLUGIN_TEST: &str = "def test_x(thing):\n    assert thing[\"name\"] == \"thing\"\n\n\ndef test_y(thing):\n    assert thing\n";

/// Review46 #6: a fixture in a plugin module (`tests/fixtures.py`, loaded by the conftest.py's
/// `pytest_plugins` or a star import) serves the conftest's directory, not its own module only:
/// its requests there are renamed; with no loader in sight the rename is a WARNING and staged.
#[test]
fn a_fixture_in_a_plugin_module_renames_the_requests_where_a_conftest_loads_it_and_is_staged_when_none_does() {
    let test = "lsp_trial154::a_fixture_in_a_plugin_module_renames_the_requests_where_a_conftest_loads_it_and_is_staged_when_none_does";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    for (loader, how) in
        [("pytest_plugins = [\"tests.fixtures\"]\n", "`pytest_plugins`"), ("from tests.fixtures import *  # noqa: F403\n", "an import")]
    {
        let dir = support::workspace_with(&[
            ("pyproject.toml", "[project]\nname = \"app\"\nversion = \"0.1.0\"\n"),
            ("tests/__init__.py", ""),
            ("tests/conftest.py", loader),
            ("tests/fixtures.py", PLUGIN),
            ("tests/test_a.py", PLUGIN_TEST),
        ]);
        let pytest = pytest_available(dir.path());
        if pytest {
            let summary = pytest_summary(dir.path());
            assert!(summary.starts_with("2 passed"), "{summary}");
        }
        let run = support::lsp_run_allowing_writes(dir.path());
        let text =
            support::call_ok(&run, "lsp_rename", json!({"file": "tests/fixtures.py", "line": 5, "symbol": "thing", "new_name": "item"}));
        assert!(
            text.contains(&format!(
                "(the plugin module tests/fixtures.py as loaded by tests/conftest.py ({how}) — their directories and below)"
            )),
            "{text}"
        );
        assert!(text.contains("the parameter `thing` → `item` of 2 functions (4 edits in all, with the body's uses)"), "{text}");
        let test_a = std::fs::read_to_string(dir.path().join("tests/test_a.py")).unwrap();
        assert!(test_a.contains("def test_x(item):\n    assert item[\"name\"]") && test_a.contains("def test_y(item):"), "{test_a}");
        if pytest {
            let summary = pytest_summary(dir.path());
            assert!(summary.starts_with("2 passed"), "{loader}: {summary}");
        }
    }
    // No loader this rename can see (an entry point, `-p` on the command line): staged.
    let dir = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"app\"\nversion = \"0.1.0\"\n"),
        ("tests/__init__.py", ""),
        ("tests/fixtures.py", PLUGIN),
        ("tests/test_a.py", PLUGIN_TEST),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "tests/fixtures.py", "line": 5, "symbol": "thing", "new_name": "item"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(
        text.contains("NOT written: `thing` is a pytest fixture in a plugin module that no conftest.py or pytest configuration here loads"),
        "{text}"
    );
    assert!(text.contains("WARNING: `thing` (tests/fixtures.py:5) is a pytest fixture in a plugin module"), "{text}");
    let plugin = std::fs::read_to_string(dir.path().join("tests/fixtures.py")).unwrap();
    assert_eq!(plugin, PLUGIN, "staged, nothing written");
}
