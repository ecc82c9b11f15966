//! Trial 153 M2 (gorilla/mux 1.8.0), against the real gopls and go test: renaming `Route.Match`
//! listed the `// Match: true …` lines of an Example's `// Output:` block as comments to edit
//! ("edit them yourself if they name this symbol"); they are the output `go test` compares,
//! printed by a string, and editing them fails the example.

use crate::support;

use serde_json::json;

#[test]
fn an_example_output_comment_is_labelled_as_the_output_go_test_compares() {
    let test = "lsp_trial153_rename::an_example_output_comment_is_labelled_as_the_output_go_test_compares";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/mux\n\ngo 1.19\n"),
        ("route.go", "package mux\n\n// Route is a route.\ntype Route struct{ path string }\n\n// Match reports whether the path matches.\nfunc (r *Route) Match(path string) bool { return r.path == path }\n\n// Router holds routes.\ntype Router struct{ routes []*Route }\n\n// See Route.Match.\nfunc (r *Router) Match(path string) bool { return len(r.routes) > 0 && r.routes[0].Match(path) }\n"),
        (
            "example_route_test.go",
            "package mux\n\nimport \"fmt\"\n\nfunc ExampleRoute_Match() {\n\tr := &Route{path: \"/a\"}\n\tfmt.Printf(\"Match: %v\\n\", r.Match(\"/a\"))\n\t// Output:\n\t// Match: true\n}\n",
        ),
    ]);
    let go_test = || {
        std::process::Command::new("go")
            .args(["test", "-vet=off", "./..."])
            .current_dir(dir.path())
            .env("GOFLAGS", "")
            .env("GOPROXY", "off")
            .output()
            .unwrap()
    };
    assert!(go_test().status.success(), "{}", String::from_utf8_lossy(&go_test().stdout));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "route.go", "line": 7, "symbol": "Match", "new_name": "Matches"}));
    assert!(
        text.contains("example_route_test.go:9: // Match: true   (expected output of `ExampleRoute_Match`, which go test compares: it changes only if what the example prints changes)"),
        "{text}"
    );
    // Trial 153 M1: a qualified mention of the renamed method above another type's method of the
    // same name is not "doc comment of another `Match` … not this symbol".
    assert!(text.contains("route.go:12: // See Route.Match.   (comment)"), "{text}");
    // Ground truth (vet off: the example's own name is the WARNING's matter): left as it is, the
    // example passes; edited to the new name, it fails.
    assert!(go_test().status.success(), "{}", String::from_utf8_lossy(&go_test().stdout));
    let test_file = dir.path().join("example_route_test.go");
    let source = std::fs::read_to_string(&test_file).unwrap();
    std::fs::write(&test_file, source.replace("// Match: true", "// Matches: true")).unwrap();
    assert!(!go_test().status.success(), "the edited output fails the example");
}
