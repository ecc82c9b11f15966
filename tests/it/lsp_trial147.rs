//! Wrong answers from the fresh-user trial 147 (google/uuid 1.3.0 with a consumer module),
//! against the real gopls, on a fixture of the same shape:
//! - M1: renaming the library's method `URN` to `Label`, which the consumer's `Tagged` (a struct
//!   embedding the library's type) already declares: the consumer's gopls refuses ("would change
//!   the referent of this selection"), and the answer called that a slow server ("call
//!   lsp_rename again (a warm server answers faster)"), with no WARNING at the top.
//! - M2: the next step for a written file the build constraints exclude ran go from the
//!   workspace root, where no go.mod is.
//! - M3: `symbols` with `locals: true` on a Go file said nothing of the locals gopls never gives.
//!
//! Ground truth: the consumer's own gopls refuses the same rename when asked from there; go vet
//! in the module.

use crate::support;

use serde_json::json;

#[test]
fn a_consumer_gopls_refusing_the_rename_is_a_warning_with_another_name_as_next_step() {
    let test = "lsp_trial147::a_consumer_gopls_refusing_the_rename_is_a_warning_with_another_name_as_next_step";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("uuid/go.mod", "module example.com/uuid\n\ngo 1.19\n"),
        ("uuid/uuid.go", "package uuid\n\n// UUID is an identifier.\ntype UUID [16]byte\n\n// URN returns the URN form.\nfunc (u UUID) URN() string { return \"urn:uuid:\" + string(u[:]) }\n"),
        ("consumer/go.mod", "module example.com/consumer\n\ngo 1.19\n\nrequire example.com/uuid v0.0.0\n\nreplace example.com/uuid => ../uuid\n"),
        (
            "consumer/tagged.go",
            "package main\n\nimport \"example.com/uuid\"\n\n// Tagged is a labelled UUID.\ntype Tagged struct {\n\tuuid.UUID\n}\n\n// Label labels it.\nfunc (t Tagged) Label() string { return \"tag:\" + t.URN() }\n",
        ),
        ("consumer/main.go", "package main\n\nimport \"example.com/uuid\"\n\nfunc main() {\n\tvar u uuid.UUID\n\tprintln(u.URN(), Tagged{u}.Label())\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    // Ground truth: asked from the consumer, its gopls refuses.
    let from_consumer = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "consumer/main.go", "line": 7, "symbol": "URN", "new_name": "Label", "preview": true}),
    );
    let refusal = from_consumer.joined_text();
    assert!(from_consumer.is_error && refusal.contains("would change the referent"), "{refusal}");
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "uuid/uuid.go", "line": 7, "symbol": "URN", "new_name": "Label", "preview": true}),
    );
    let warning = text.lines().find(|line| line.starts_with("WARNING: gopls @ consumer")).unwrap_or_else(|| panic!("{text}"));
    assert!(warning.contains("refused to rename its own code"), "{warning}");
    assert!(warning.contains("would change the referent of this selection of this method"), "tabs folded: {warning}");
    assert!(warning.contains("pick another name"), "{warning}");
    assert!(text.contains("NOT renamed (refused): gopls @ consumer"), "{text}");
    assert!(text.contains("consumer, another gopls root this rename must cover, refused the rename"), "{text}");
    assert!(!text.contains("a warm server answers faster"), "a refusal is no slow server:\n{text}");
    assert!(!text.contains("call lsp_rename again once its server is up"), "{text}");
    // Asked to write (review44 RISK 6): the library alone would take the new name and the
    // consumer stop building, so the rename is staged, not written.
    let library_before = std::fs::read_to_string(dir.path().join("uuid/uuid.go")).unwrap();
    let written = support::call_ok(&run, "lsp_rename", json!({"file": "uuid/uuid.go", "line": 7, "symbol": "URN", "new_name": "Label"}));
    assert!(
        written.starts_with("NOT written: gopls @ consumer refused to rename `URN` in its own code (the WARNING below says why): written, the other roots would take `Label` and the code of consumer that uses `URN` would no longer build against them; it is staged instead"),
        "{written}"
    );
    assert!(written.contains("WARNING: gopls @ consumer"), "{written}");
    assert_eq!(std::fs::read_to_string(dir.path().join("uuid/uuid.go")).unwrap(), library_before, "nothing written");
    // Ground truth: the consumer still builds.
    let build = std::process::Command::new("go")
        .args(["build", "./..."])
        .current_dir(dir.path().join("consumer"))
        .env("GOPROXY", "off")
        .env("GOFLAGS", "-mod=mod")
        .output()
        .unwrap();
    assert!(build.status.success(), "{}", String::from_utf8_lossy(&build.stderr));
}

/// M2: a write to a file the build constraints exclude, in a module below the workspace root:
/// the closing next step said "run `GOOS=js GOARCH=wasm go vet ./uuid` from the workspace root",
/// where go refuses to run (no go.mod there). It now names the module's folder to run it in.
/// Ground truth: that command, run there, reports the write's error.
#[test]
fn the_next_step_for_a_constrained_go_file_runs_in_its_module() {
    let test = "lsp_trial147::the_next_step_for_a_constrained_go_file_runs_in_its_module";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("uuid/go.mod", "module example.com/uuid\n\ngo 1.19\n"),
        ("uuid/node.go", "package uuid\n\nfunc Interface() string {\n\treturn hardware()\n}\n"),
        ("uuid/node_net.go", "//go:build !js\n\npackage uuid\n\nfunc hardware() string { return \"eth0\" }\n"),
        ("uuid/node_js.go", "//go:build js\n\npackage uuid\n\nfunc hardware() string { return \"\" }\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text =
        support::call_ok(&run, "edit", json!({"path": "uuid/node_js.go", "old_string": "return \"\" }", "new_string": "return \"\", 3 }"}));
    assert!(text.contains("run `GOOS=js GOARCH=wasm go vet .` in uuid (e.g. through an exec tool)"), "{text}");
    assert!(!text.contains("from the workspace root"), "{text}");
    let vetted = std::process::Command::new("go")
        .args(["vet", "."])
        .env("GOOS", "js")
        .env("GOARCH", "wasm")
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .current_dir(dir.path().join("uuid"))
        .output()
        .expect("run go vet");
    let vet = String::from_utf8_lossy(&vetted.stderr);
    assert!(!vetted.status.success() && vet.contains("node_js.go:5"), "{vet}");
}

/// M3: `symbols` of a Go file with `locals: true` gave the plain outline and said nothing, so a
/// file full of locals read as one without any. gopls gives no entry for them: that is said.
#[test]
fn go_outline_with_locals_says_gopls_gives_none() {
    let test = "lsp_trial147::go_outline_with_locals_says_gopls_gives_none";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/ids\n\ngo 1.19\n"),
        ("ids.go", "package ids\n\n// Next returns the next id.\nfunc Next(seed int) int {\n\tstep := 2\n\tnext := seed + step\n\treturn next\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let plain = support::call_ok(&run, "lsp", json!({"op": "symbols", "file": "ids.go"}));
    let with_locals = support::call_ok(&run, "lsp", json!({"op": "symbols", "file": "ids.go", "locals": true}));
    // Ground truth: the function has two locals and a parameter; gopls lists neither way.
    assert!(!plain.contains("step") && !with_locals.contains("step"), "{with_locals}");
    assert!(
        with_locals.contains("not listed: parameters and locals (gopls gives no outline entry for them, with or without \"locals\""),
        "{with_locals}"
    );
}
