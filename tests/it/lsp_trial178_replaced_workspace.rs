//! Wrong answers from the fresh-user trial 178 (spf13/cobra + spf13/pflag in a go.work), against
//! the real gopls, on a fixture of the same shape as its tiny repro:
//! - F1: in a warm session the workspace directory was replaced on disk (`rm -rf ws && cp -a
//!   pristine ws`); gopls, confined (Landlock) to the old directory, then read nothing (`reading
//!   go.work: permission denied`) and answered "No packages found" for every file. A rename said
//!   the written files were excluded by their build constraints (one had none), and the next
//!   write that broke an importer in another module read "no new errors".
//! - M3: `lsp status` said ready all along.
//!
//! Ground truth: `go build ./...` in the importer module after the write.

use crate::support;

use serde_json::json;

/// The files of the fixture: a go.work over `app` and `lib`; `lib`'s `hookFn` has a twin in a
/// `//go:build windows` file; `app` calls `lib.Greet(name)`.
const FILES: &[(&str, &str)] = &[
    ("go.work", "go 1.19\n\nuse (\n\t./app\n\t./lib\n)\n\nreplace example.com/lib v0.0.0 => ./lib\n"),
    ("app/go.mod", "module example.com/app\n\ngo 1.19\n\nrequire example.com/lib v0.0.0\n"),
    ("app/main.go", "package main\n\nimport \"example.com/lib\"\n\nfunc main() { println(lib.Run(), lib.Greet(\"x\")) }\n"),
    ("lib/go.mod", "module example.com/lib\n\ngo 1.19\n"),
    (
        "lib/lib.go",
        "package lib\n\nfunc Run() int {\n\tif hookFn != nil {\n\t\thookFn()\n\t}\n\treturn 1\n}\n\nfunc Greet(name string) string { return \"hi \" + name }\n",
    ),
    ("lib/lib_notwin.go", "//go:build !windows\n\npackage lib\n\nvar hookFn func()\n"),
    ("lib/lib_win.go", "//go:build windows\n\npackage lib\n\nvar hookFn = func() {}\n"),
];

/// Writes [`FILES`] beneath `ws` (created).
fn write_fixture(ws: &std::path::Path) {
    for (relative, content) in FILES {
        let path = ws.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
}

/// F1 + M3: after the workspace directory is removed and created again under a warm gopls, the
/// rename of a name with a build-constrained twin checks its files (no false build-constraint
/// reason), and the next write that breaks the importer in the other module reports that error
/// (the restart is said) — the same as a fresh session and `go build`.
#[test]
fn a_workspace_replaced_on_disk_restarts_gopls_and_the_breaking_write_reports_the_importer_error() {
    let test =
        "lsp_trial178_replaced_workspace::a_workspace_replaced_on_disk_restarts_gopls_and_the_breaking_write_reports_the_importer_error";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let ws = parent.path().join("ws");
    write_fixture(&ws);
    let run = support::lsp_run_allowing_writes(&ws);
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "app/main.go"}));
    assert!(text.contains("no errors or warnings in app/main.go"), "{text}");
    // The outside replacement: a new directory at the workspace's path.
    std::fs::remove_dir_all(&ws).unwrap();
    write_fixture(&ws);
    let status = support::call_ok(&run, "lsp", json!({"op": "status"}));
    assert!(
        status.contains("NOT ready (view broken") && status.contains("VIEW BROKEN") && status.contains("was replaced on disk"),
        "status tells the stale view:\n{status}"
    );
    let rename =
        support::call_ok(&run, "lsp_rename", json!({"file": "lib/lib_notwin.go", "line": 5, "symbol": "hookFn", "new_name": "beforeHook"}));
    assert!(rename.contains("is restarted because the workspace directory"), "the restart is said:\n{rename}");
    // Both written files were checked, neither said excluded by a constraint (lib.go has none).
    assert!(!rename.contains("NOT checked: gopls does not build"), "no false build-constraint reason:\n{rename}");
    assert!(rename.contains("no new errors in lib/lib.go, lib/lib_notwin.go"), "{rename}");
    assert!(!rename.contains("for open file"), "gopls answered for the files:\n{rename}");
    assert!(std::fs::read_to_string(ws.join("lib/lib.go")).unwrap().contains("beforeHook()"), "{rename}");
    // The breaking write: go build of app fails on main.go:5 (ground truth).
    let lib =
        std::fs::read_to_string(ws.join("lib/lib.go")).unwrap().replace("func Greet(name string)", "func Greet(name string, loud bool)");
    let write = support::call_ok(&run, "write", json!({"path": "lib/lib.go", "content": lib}));
    // Workspace mode refuses `-mod=mod` (support::go_offline's): go with GOPROXY=off alone.
    let build =
        std::process::Command::new("go").args(["build", "./..."]).current_dir(ws.join("app")).env("GOPROXY", "off").output().unwrap();
    let build_text = String::from_utf8_lossy(&build.stderr).into_owned();
    assert!(build_text.contains("main.go:5:") && build_text.contains("not enough arguments in call to lib.Greet"), "{build_text}");
    assert!(!write.contains("no new errors in lib/lib.go or elsewhere"), "{write}");
    assert!(write.contains("this write introduced 1 new error"), "{write}");
    assert!(write.contains("app/main.go:5: error") && write.contains("not enough arguments in call to lib.Greet"), "{write}");
    let text = support::call_ok(&run, "lsp", json!({"op": "diagnostics", "file": "app/main.go"}));
    assert!(text.contains("1 error") && text.contains("app/main.go:5"), "{text}");
    let status = support::call_ok(&run, "lsp", json!({"op": "status"}));
    assert!(!status.contains("VIEW BROKEN"), "{status}");
}
