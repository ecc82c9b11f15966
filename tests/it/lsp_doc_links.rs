//! Doc links to a renamed symbol (trial165 M2: rivo/uniseg's `[FirstGraphemeCluster]`, left by a
//! cold gopls and listed among prose "to edit yourself"; trial163 M1: typed-path's
//! ``[`WindowsEncoding`]``, left by rust-analyzer, `cargo doc` then warned "unresolved link").
//! The rename renames the links that resolve to the renamed symbol — in its package by name or
//! owner, in another package by the name it imports it under — and leaves prose and other
//! symbols' links.
//!
//! Ground truth: `go build`/`go vet` and the text for Go (no tool reports a broken Go doc link);
//! `cargo doc` with `rustdoc::broken_intra_doc_links` denied for Rust.

use crate::support;

use serde_json::json;

#[test]
fn a_go_rename_renames_the_doc_links_to_the_symbol_and_leaves_prose() {
    let test = "lsp_doc_links::a_go_rename_renames_the_doc_links_to_the_symbol_and_leaves_prose";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/seg\n\ngo 1.19\n"),
        (
            "seg.go",
            "// Package seg splits text.\npackage seg\n\n// Graphemes iterates. Call [Graphemes.Next] first.\ntype Graphemes struct{ n int }\n\n// Next advances.\nfunc (g *Graphemes) Next() bool {\n\t// A body comment: [Graphemes.Next] again, and the Graphemes class.\n\tg.n++\n\treturn g.n < 2\n}\n\n// Other is not [Other.Next]'s owner of Graphemes.\ntype Other struct{}\n\n// Next of Other.\nfunc (Other) Next() bool { return false }\n",
        ),
        ("cmd/main.go", "package main\n\nimport (\n\ts \"example.com/seg\"\n)\n\n// main uses [s.Graphemes] and [s.Graphemes.Next].\nfunc main() {\n\tvar g s.Graphemes\n\t_ = g.Next()\n}\n"),
    ]);
    assert!(support::go_offline(dir.path(), &["build", "./..."]).status.success());
    let run = support::lsp_run_allowing_writes(dir.path());
    // References list no doc link (gopls does not); the answer names them (trial169 M4), not
    // another type's `[Other.Next]`.
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "seg.go", "line": 8, "symbol": "Next"}));
    assert!(
        text.contains("note: NOT in this answer: 3 Go doc links naming it (gopls lists none; by the package's doc-link rules): cmd/main.go:7, seg.go:4, seg.go:9"),
        "{text}"
    );
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "seg.go", "line": 5, "symbol": "Graphemes", "new_name": "Clusters"}));
    assert!(text.starts_with("Renamed `Graphemes` to `Clusters`"), "{text}");
    // The links gopls left are said renamed, quoted as they read before (trial169 M4: "(left, it
    // would be a broken link …)" above the old text read as if they were left).
    assert!(
        text.contains("Go doc links that resolve to the renamed symbol (had they been left as they were, each would be a broken link in `go doc` and pkg.go.dev); as they read before the rename:"),
        "{text}"
    );
    let seg = std::fs::read_to_string(dir.path().join("seg.go")).unwrap();
    let main = std::fs::read_to_string(dir.path().join("cmd/main.go")).unwrap();
    assert!(seg.contains("Call [Clusters.Next] first.") && seg.contains("A body comment: [Clusters.Next] again"), "{seg}");
    assert!(seg.contains("and the Graphemes class."), "prose stays:\n{seg}");
    assert!(seg.contains("[Other.Next]'s owner of Graphemes."), "another type's link and prose stay:\n{seg}");
    assert!(main.contains("// main uses [s.Clusters] and [s.Clusters.Next]."), "{main}");
    assert!(support::go_offline(dir.path(), &["vet", "./..."]).status.success());
}

/// review49 M2: the references note's search for doc links looked at `//` lines only, so a link
/// in a `/* */` doc comment was not named; it now searches the declaration's package and its
/// importers in both comment forms (a package that does not import it cannot link to it by
/// `[pkg.Name]`, and a `"// [x]"` string is no comment).
#[test]
fn references_name_the_doc_links_in_block_comments_of_the_package_and_its_importers() {
    let test = "lsp_doc_links::references_name_the_doc_links_in_block_comments_of_the_package_and_its_importers";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/seg\n\ngo 1.19\n"),
        (
            "seg.go",
            "/*\nPackage seg splits text: see [Graphemes.Next].\n*/\npackage seg\n\n// Graphemes iterates.\ntype Graphemes struct{ n int }\n\n// Next advances.\nfunc (g *Graphemes) Next() bool {\n\tg.n++\n\treturn g.n < 2\n}\n\n// Label is no comment.\nconst Label = \"// [Graphemes.Next]\"\n",
        ),
        (
            "cmd/main.go",
            "package main\n\nimport \"example.com/seg\"\n\n/* main calls [seg.Graphemes.Next]. */\nfunc main() {\n\tvar g seg.Graphemes\n\t_ = g.Next()\n}\n",
        ),
        ("other/other.go", "// Package other does not import seg: [seg.Graphemes.Next] resolves to nothing here.\npackage other\n\n// Next is another.\nfunc Next() bool { return true }\n"),
    ]);
    let built = support::go_offline(dir.path(), &["vet", "./..."]);
    assert!(built.status.success(), "the fixture builds and vets clean: {}", String::from_utf8_lossy(&built.stderr));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "seg.go", "line": 10, "symbol": "Next"}));
    assert!(
        text.contains("note: NOT in this answer: 2 Go doc links naming it (gopls lists none; by the package's doc-link rules): cmd/main.go:5, seg.go:2"),
        "{text}"
    );
}

#[test]
fn a_rust_rename_renames_the_intra_doc_links_and_rustdoc_resolves_them() {
    let test = "lsp_doc_links::a_rust_rename_renames_the_intra_doc_links_and_rustdoc_resolves_them";
    if support::require_binary(test, "rust-analyzer").is_none() || support::require_binary(test, "cargo").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"links\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "src/lib.rs",
            "//! Paths; see [`WindowsEncoding`] and [WindowsEncoding::label], [the encoding][enc].\n//!\n//! [enc]: WindowsEncoding\n\nmod other;\n\n/// The Windows encoding.\npub struct WindowsEncoding;\n\nimpl WindowsEncoding {\n    /// Its label, as [`WindowsEncoding`] names it.\n    pub fn label() -> &'static str {\n        \"windows\"\n    }\n}\n\n/// Uses [`struct@WindowsEncoding`]; the WindowsEncoding text stays prose.\npub fn encode() -> &'static str {\n    WindowsEncoding::label()\n}\n",
        ),
        (
            "src/other.rs",
            "use crate::WindowsEncoding;\n\n/// Like [`WindowsEncoding::label`].\npub fn label() -> &'static str {\n    WindowsEncoding::label()\n}\n\npub mod inner {\n    /// Its own, not the crate's: [`WindowsEncoding`] (review48 H1).\n    pub struct WindowsEncoding;\n}\n",
        ),
    ]);
    let doc = |dir: &std::path::Path| {
        let out =
            support::cargo_by_hand(dir, &["doc", "--no-deps", "--offline"], &[("RUSTDOCFLAGS", "-D rustdoc::broken_intra_doc_links")]);
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (ok, stderr) = doc(dir.path());
    assert!(ok, "the fixture's docs build:\n{stderr}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/lib.rs", "line": 8, "symbol": "WindowsEncoding", "new_name": "WinEncoding"}),
    );
    assert!(text.starts_with("Renamed `WindowsEncoding` to `WinEncoding`"), "{text}");
    let lib = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(lib.contains("the WindowsEncoding text stays prose"), "{lib}");
    let other = std::fs::read_to_string(dir.path().join("src/other.rs")).unwrap();
    assert!(other.contains("Like [`WinEncoding::label`]."), "{other}");
    assert!(other.contains("Its own, not the crate's: [`WindowsEncoding`]"), "another item's link of the same name stays:\n{other}");
    let (ok, stderr) = doc(dir.path());
    assert!(ok, "rustdoc resolves every link after the rename:\n{stderr}\n{text}");
}
