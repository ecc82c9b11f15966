//! Misleading answer from the fresh-user trial 108 (funcy 2.0), against the real pyright and
//! CPython, on a fixture of the same shape:
//! - M1: renaming the parameter `n` of `def call(n, x=None)` under `@once_per('n')` was written
//!   at once with "no new errors"; the string naming it was past the 15 strings listed (six of
//!   them `\n` escapes counted as the word `n`), and the test of the decorator failed.
//!
//! Ground truth: CPython (pyright sees nothing).

use crate::support;

use serde_json::json;

const FLOW: &str = "import inspect\n\n\ndef once_per(name):\n    def decorator(func):\n        seen = set()\n\n        def wrapper(*args, **kwargs):\n            key = inspect.signature(func).bind(*args, **kwargs).arguments[name]\n            if key not in seen:\n                seen.add(key)\n                return func(*args, **kwargs)\n\n        return wrapper\n\n    return decorator\n\n\n@once_per('n')\ndef call(n, x=None):\n    print('called\\n', n)\n    return n\n";

#[test]
fn a_decorator_naming_the_renamed_parameter_by_a_string_is_warned_of() {
    let test = "lsp_trial108::a_decorator_naming_the_renamed_parameter_by_a_string_is_warned_of";
    if support::require_binary(test, "pyright-langserver").is_none() || support::require_binary(test, "python3").is_none() {
        return;
    }
    let dir = support::workspace_with(&[("pyproject.toml", "[project]\nname = \"flowish\"\nversion = \"0.1.0\"\n"), ("flowish.py", FLOW)]);
    let once = "import flowish; print(flowish.call(1), flowish.call(1))";
    assert!(support::python_prints(dir.path(), once).ends_with("1 None"), "{}", support::python_prints(dir.path(), once));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "flowish.py", "line": 20, "symbol": "n", "new_name": "count", "preview": true}),
    );
    assert!(text.contains("WARNING: a decorator of the renamed declaration names `n` by a string (flowish.py:19)"), "{text}");
    assert!(text.contains("flowish.py:19: @once_per('n')   (string next to the renamed declaration"), "{text}");
    assert!(!text.contains("flowish.py:21: print('called\\n', n)   (string)"), "the escape was listed as the word:\n{text}");
    // Ground truth: the parameter renamed alone, the decorator fails at run time.
    std::fs::write(
        dir.path().join("flowish.py"),
        FLOW.replace(
            "def call(n, x=None):\n    print('called\\n', n)\n    return n",
            "def call(count, x=None):\n    print('called\\n', count)\n    return count",
        ),
    )
    .unwrap();
    assert!(support::python_prints(dir.path(), once).contains("KeyError"), "{}", support::python_prints(dir.path(), once));
}
