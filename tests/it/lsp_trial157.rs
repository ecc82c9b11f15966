//! Wrong answers from the fresh-user trial 157 (hashicorp/golang-lru 0.5.4), against the real
//! gopls, on fixtures of the same shape:
//! - F1: one write fixed a `NewLRU(size, nil)` call in place and wrote a wrong `_, _ =
//!   NewLRU(size, nil)` call above it, in the same diff hunk: "no new errors", the added error
//!   listed among those "already present before this write".
//! - M1: after an interface-method rename, the next step said gopls renames none of the
//!   implementations alone and steered to an `ast_edit` recipe that also renamed two other
//!   types' methods; `lsp_rename` at each implementation works.
//! - M2: `incoming_calls` at the interface method `LRUCache.Add` was "INCOMPLETE … 35 more direct
//!   calls": static calls of the implementing methods, which never go through the interface;
//!   `references` said a change to its signature "reaches" them.
//! - M3: renaming the package `simplelru` (gopls: text edits and a `RenameFile` of its
//!   directory) failed with "cannot read …/simplelru: not a regular file".
//! - M4: renaming the field `Cache.lru` explained the import paths with a JavaScript
//!   `from './lru'`, listed the `package lru` clauses under "check them", and did not say that
//!   gopls left `lru.go` unformatted for gofmt.
//! - M5: gopls's refusal of `NewARC` → `New` was printed twice, glued, with no location of the
//!   conflicting `func New`.
//!
//! Ground truth: `go build` / `go vet` in the module after the write, and grep.

use crate::support;

use serde_json::json;

fn block(text: &str) -> &str {
    text.split("Diagnostics after the write:").nth(1).unwrap_or_else(|| panic!("no diagnostics block in:\n{text}"))
}

fn go_build_errors(dir: &std::path::Path) -> String {
    let built = std::process::Command::new("go")
        .args(["build", "-gcflags=-e", "./..."])
        .current_dir(dir)
        .env("GOPROXY", "off")
        .env("GOFLAGS", "-mod=mod")
        .output()
        .expect("run go build");
    String::from_utf8_lossy(&built.stderr).into_owned()
}

#[test]
fn a_wrong_call_written_beside_the_call_its_hunk_fixed_is_new_and_the_old_one_resolved() {
    let test = "lsp_trial157::a_wrong_call_written_beside_the_call_its_hunk_fixed_is_new_and_the_old_one_resolved";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module fx\n\ngo 1.19\n"),
        ("a.go", "package fx\n\nfunc f(a, b int) {}\n\nfunc g(x int) {\n\tf(x)\n}\n"),
    ]);
    assert!(go_build_errors(dir.path()).contains("a.go:6:"), "ground truth before: line 6's call is wrong");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text =
        support::call_ok(&run, "edit", json!({"path": "a.go", "old_string": "\tf(x)\n", "new_string": "\tf(len(\"a\"))\n\tf(x, 0)\n"}));
    // Ground truth after: the call the write added (line 6) is wrong, the fixed one (7) builds.
    let after = go_build_errors(dir.path());
    assert!(after.contains("a.go:6:") && !after.contains("a.go:7:"), "{after}");
    let dow = block(&text);
    let new = dow.split("a.go: new diagnostics introduced by this write (1, gopls):\n").nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(new.starts_with("  a.go:6: error"), "line 6 is not the one named new:\n{text}");
    let resolved = dow.split("a.go: resolved by this write (1, gopls):\n").nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(resolved.starts_with("  a.go:6: error"), "the old line 6 is not the one named resolved:\n{text}");
    assert!(!dow.contains("no new errors in a.go") && !dow.contains("already present before this write"), "{text}");
}

/// The golang-lru shape (trial 157): package `simplelru` declares the interface `LRUCache` and
/// `*LRU` implementing it; the root package `lru` stores a `*LRU` in `LRUCache` fields (so the
/// root package breaks when `*LRU` stops implementing it), `*Cache` implements it by its method
/// set only, and `TwoQueueCache` has a `Get` of the same signature and no `Len`: it implements
/// nothing. Each test calls the concrete methods statically.
const LRU_SHAPE: [(&str, &str); 7] = [
    ("go.mod", "module fx\n\ngo 1.19\n"),
    (
        "simplelru/lru_interface.go",
        "package simplelru\n\n// LRUCache is the interface for simple LRU cache.\ntype LRUCache interface {\n\t// Get returns key's value from the cache.\n\tGet(key int) (value int, ok bool)\n\n\t// Len returns the number of items in the cache.\n\tLen() int\n}\n",
    ),
    (
        "simplelru/lru.go",
        "package simplelru\n\n// LRU implements a non-thread safe LRU cache.\ntype LRU struct {\n\titems map[int]int\n}\n\n// NewLRU constructs an LRU.\nfunc NewLRU() *LRU {\n\treturn &LRU{items: map[int]int{}}\n}\n\n// Get looks up a key's value from the cache.\nfunc (c *LRU) Get(key int) (value int, ok bool) {\n\tvalue, ok = c.items[key]\n\treturn value, ok\n}\n\n// Len returns the number of items in the cache.\nfunc (c *LRU) Len() int {\n\treturn len(c.items)\n}\n",
    ),
    (
        "simplelru/lru_test.go",
        "package simplelru\n\nimport \"testing\"\n\nfunc TestLRU(t *testing.T) {\n\tl := NewLRU()\n\tif _, ok := l.Get(1); ok || l.Len() != 0 {\n\t\tt.Fatal(\"empty cache has 1\")\n\t}\n}\n",
    ),
    (
        "lru.go",
        "package lru\n\nimport \"fx/simplelru\"\n\n// Cache is a thread-safe LRU cache.\ntype Cache struct {\n\tlru simplelru.LRUCache\n}\n\n// New creates a Cache.\nfunc New() *Cache {\n\treturn &Cache{lru: simplelru.NewLRU()}\n}\n\n// Get looks up a key's value from the cache.\nfunc (c *Cache) Get(key int) (value int, ok bool) {\n\treturn c.lru.Get(key)\n}\n\n// Len returns the number of items in the cache.\nfunc (c *Cache) Len() int {\n\treturn c.lru.Len()\n}\n",
    ),
    (
        "2q.go",
        "package lru\n\nimport \"fx/simplelru\"\n\n// TwoQueueCache has a Get like the interface's and no Len: it implements nothing.\ntype TwoQueueCache struct {\n\trecent simplelru.LRUCache\n}\n\n// New2Q creates a TwoQueueCache.\nfunc New2Q() *TwoQueueCache {\n\treturn &TwoQueueCache{recent: simplelru.NewLRU()}\n}\n\n// Get looks up a key's value from the cache.\nfunc (c *TwoQueueCache) Get(key int) (value int, ok bool) {\n\treturn c.recent.Get(key)\n}\n",
    ),
    (
        "lru_test.go",
        "package lru\n\nimport \"testing\"\n\nfunc TestCaches(t *testing.T) {\n\tif _, ok := New().Get(1); ok {\n\t\tt.Fatal(\"empty cache has 1\")\n\t}\n\tif _, ok := New2Q().Get(1); ok {\n\t\tt.Fatal(\"empty 2q has 1\")\n\t}\n}\n",
    ),
];

/// `go build ./...` and `go vet ./...` (which compiles the tests) in `dir`: (success, output).
fn go_build_and_vet(dir: &std::path::Path) -> (bool, String) {
    let build = support::go_offline(dir, &["build", "./..."]);
    let vet = support::go_offline(dir, &["vet", "./..."]);
    (
        build.status.success() && vet.status.success(),
        format!("{}{}", String::from_utf8_lossy(&build.stderr), String::from_utf8_lossy(&vet.stderr)),
    )
}

/// The `lsp_rename` argument objects the advice after `` `lsp_rename` at each — `` names, in order.
fn advised_lsp_renames(text: &str) -> Vec<serde_json::Value> {
    let after = text.split("`lsp_rename` at each — ").nth(1).unwrap_or_else(|| panic!("no lsp_rename advice in:\n{text}"));
    let list = after.split(" (asked now").next().unwrap_or("");
    list.split("; ").map(|call| serde_json::from_str(call).unwrap_or_else(|err| panic!("{call}: {err}\n{text}"))).collect()
}

#[test]
fn an_interface_method_rename_advises_lsp_rename_at_each_implementation_and_following_it_builds() {
    let test = "lsp_trial157::an_interface_method_rename_advises_lsp_rename_at_each_implementation_and_following_it_builds";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&LRU_SHAPE);
    let (builds, output) = go_build_and_vet(dir.path());
    assert!(builds, "fixture: {output}");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "simplelru/lru_interface.go", "line": 6, "symbol": "Get", "new_name": "Lookup"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error && text.starts_with("NOT written:"), "{text}");
    // The advice leads with `lsp_rename` at each implementation, spelled out; the structural
    // recipe is the fallback and names the other type's method it would match too.
    assert!(!text.contains("renames none of them alone"), "{text}");
    let advised = advised_lsp_renames(&text);
    assert_eq!(
        advised,
        vec![
            json!({"file": "lru.go", "line": 16, "symbol": "Get", "new_name": "Lookup"}),
            json!({"file": "simplelru/lru.go", "line": 14, "symbol": "Get", "new_name": "Lookup"}),
        ],
        "{text}"
    );
    assert!(text.contains("(asked now, gopls renames each of these alone)"), "{text}");
    let lsp_rename_at = text.find("`lsp_rename` at each").unwrap();
    let recipe_at = text.find("`ast_edit` with").unwrap_or_else(|| panic!("no fallback recipe:\n{text}"));
    assert!(lsp_rename_at < recipe_at, "the recipe comes first:\n{text}");
    assert!(text.contains("only for one gopls still refuses, the structural rename: `ast_edit` with"), "{text}");
    assert!(text.contains("here `TwoQueueCache.Get` (2q.go:16), which implements nothing of this interface"), "{text}");
    // Following the advice: write the interface rename, then `lsp_rename` at each listed
    // implementation; one gopls refuses while its package has errors is asked again after the
    // others, as the advice says.
    let edit_id = result.structured_content.as_ref().and_then(|s| s["edit_id"].as_str()).expect("edit_id").to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let mut pending = advised;
    for _round in 0..3 {
        let mut refused = Vec::new();
        for arguments in pending {
            let renamed = run.call(runbound::Caller::Main, "lsp_rename", arguments.clone());
            let renamed_text = renamed.joined_text();
            if renamed.is_error {
                assert!(renamed_text.contains("has errors"), "refused for another reason: {renamed_text}");
                refused.push(arguments);
            } else {
                assert!(!renamed_text.starts_with("NOT written"), "{renamed_text}");
            }
        }
        pending = refused;
        if pending.is_empty() {
            break;
        }
    }
    assert!(pending.is_empty(), "still refused after the others: {pending:?}");
    // Ground truth: the module builds and vets, the implementations carry the new name, and
    // `TwoQueueCache.Get`, which implements nothing, kept its name.
    let (builds, output) = go_build_and_vet(dir.path());
    assert!(builds, "following the advice left the module broken:\n{output}");
    let read = |file: &str| std::fs::read_to_string(dir.path().join(file)).unwrap();
    assert!(read("lru.go").contains("func (c *Cache) Lookup(key int)"), "{}", read("lru.go"));
    assert!(read("simplelru/lru.go").contains("func (c *LRU) Lookup(key int)"), "{}", read("simplelru/lru.go"));
    assert!(read("2q.go").contains("func (c *TwoQueueCache) Get(key int)"), "{}", read("2q.go"));
    assert!(read("lru_test.go").contains("New2Q().Get(1)") && read("lru_test.go").contains("New().Lookup(1)"), "{}", read("lru_test.go"));
}

#[test]
fn incoming_calls_of_an_interface_method_do_not_count_static_calls_of_its_implementations() {
    let test = "lsp_trial157::incoming_calls_of_an_interface_method_do_not_count_static_calls_of_its_implementations";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&LRU_SHAPE);
    // Ground truth (grep): the calls through the interface are those on the two fields of type
    // `simplelru.LRUCache` (`c.lru`, `c.recent`), one in `Cache.Get`, one in `TwoQueueCache.Get`.
    let through_interface: Vec<String> = ["lru.go", "2q.go"]
        .iter()
        .flat_map(|file| {
            let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
            text.lines()
                .enumerate()
                .filter(|(_, line)| line.contains("c.lru.Get(") || line.contains("c.recent.Get("))
                .map(|(index, _)| format!("{file}:{}", index + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(through_interface, vec!["lru.go:17", "2q.go:17"], "ground truth");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp",
        json!({"op": "incoming_calls", "file": "simplelru/lru_interface.go", "line": 6, "symbol": "Get"}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let header = text.lines().find(|line| line.starts_with("incoming calls of")).unwrap_or_else(|| panic!("{text}"));
    assert!(header.ends_with(": 2 callers, 2 call sites"), "{header}\n{text}");
    assert!(!text.contains("INCOMPLETE") && !text.contains("NOT in this answer as call sites"), "{text}");
    for site in &through_interface {
        let (file, line) = site.split_once(':').unwrap();
        assert!(text.contains(&format!("{file} (")) && text.contains(&format!("      {line}: ")), "{site} is not listed:\n{text}");
    }
    // The static calls of the implementations are said apart, as calls of those methods — when
    // gopls gave them (its call hierarchy or references list them on some runs only).
    if text.contains("note: not counted as calls of `LRUCache.Get`") {
        assert!(text.contains("their receiver is statically the concrete type"), "{text}");
        assert!(!text.contains("lru_test.go:6 in `TestCaches` → `TwoQueueCache.Get`"), "{text}");
    }
    let structured = result.structured_content.expect("structured");
    assert_eq!(structured["uses_not_listed"], json!([]), "{structured}");

    // References: the note no longer says a change to the signature reaches the static calls.
    // Ground truth: a changed signature breaks the build where `*LRU` is used as the interface
    // (lru.go, 2q.go) and none of the static calls in the tests.
    let references =
        support::call_ok(&run, "lsp", json!({"op": "references", "file": "simplelru/lru_interface.go", "line": 6, "symbol": "Get"}));
    assert!(!references.contains("a change to its signature reaches"), "{references}");
    if references.contains("are uses of methods that implement it") {
        assert!(references.contains("a change to its signature breaks none of them by itself"), "{references}");
    }
    let interface = dir.path().join("simplelru/lru_interface.go");
    let original = std::fs::read_to_string(&interface).unwrap();
    std::fs::write(&interface, original.replace("Get(key int) (value int, ok bool)", "Get(key int, fresh bool) (value int, ok bool)"))
        .unwrap();
    let (builds, output) = go_build_and_vet(dir.path());
    assert!(!builds, "the changed signature broke nothing: {output}");
    assert!(!output.contains("lru_test.go:6") && !output.contains("lru_test.go:7"), "a static call broke:\n{output}");
    std::fs::write(&interface, original).unwrap();
}

#[test]
fn renaming_a_go_package_moves_its_directory_staged_and_written() {
    let test = "lsp_trial157::renaming_a_go_package_moves_its_directory_staged_and_written";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    // Staged (preview), then accepted: the preview shows the moves as text edits. An empty
    // directory of the tree moves too (review46 #10, review47 H1: on the accept path as well).
    let dir = support::workspace_with(&LRU_SHAPE);
    std::fs::create_dir_all(dir.path().join("simplelru/testdata/empty")).unwrap();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let rename = json!({"file": "simplelru/lru.go", "line": 1, "symbol": "simplelru", "new_name": "basiclru"});
    let mut preview = rename.clone();
    preview["preview"] = json!(true);
    let result = run.call(runbound::Caller::Main, "lsp_rename", preview);
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    // One line for the directory (review46 #9), the moved files with edits below it.
    assert!(text.contains("  simplelru/ → basiclru/: directory moved, 3 files (3 with edits, listed below)\n"), "{text}");
    assert!(!text.contains("moved to basiclru/lru.go"), "{text}");
    assert!(text.contains("  basiclru/lru_test.go: 1 edit (renamed from simplelru/lru_test.go)\n"), "{text}");
    assert!(text.contains("--- a/simplelru/lru.go\n+++ b/basiclru/lru.go (renamed from simplelru/lru.go)\n"), "{text}");
    assert!(text.contains("-import \"fx/simplelru\"\n+import \"fx/basiclru\"\n"), "{text}");
    assert!(dir.path().join("simplelru/lru.go").is_file() && !dir.path().join("basiclru").exists(), "a preview wrote");
    let edit_id = result.structured_content.as_ref().and_then(|s| s["edit_id"].as_str()).expect("edit_id").to_owned();
    let accepted = support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    assert!(!accepted.contains("left in place"), "{accepted}");
    assert!(accepted.contains("simplelru/ → basiclru/ (directory moved, 3 files)"), "{accepted}");
    assert!(!accepted.contains("(moved to basiclru/"), "each moved file is not listed again:\n{accepted}");
    assert!(dir.path().join("basiclru/testdata/empty").is_dir(), "the empty directory moved: {accepted}");
    // Ground truth: the package lives in basiclru/ only, and the module builds, vets and tests.
    let check = |dir: &std::path::Path| {
        assert!(!dir.join("simplelru").exists(), "simplelru/ is left");
        for file in ["lru.go", "lru_interface.go", "lru_test.go"] {
            let moved = std::fs::read_to_string(dir.join("basiclru").join(file)).unwrap();
            assert!(moved.starts_with("package basiclru\n"), "{file}: {moved}");
        }
        let (builds, output) = go_build_and_vet(dir);
        assert!(builds, "{output}");
        let tested = support::go_offline(dir, &["test", "./..."]);
        assert!(tested.status.success(), "{}", String::from_utf8_lossy(&tested.stdout));
        let grep = std::process::Command::new("grep").args(["-rn", "simplelru", "."]).current_dir(dir).output().unwrap();
        assert!(grep.stdout.is_empty(), "{}", String::from_utf8_lossy(&grep.stdout));
    };
    check(dir.path());
    // Written at once.
    let dir = support::workspace_with(&LRU_SHAPE);
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let written = support::call_ok(&run, "lsp_rename", rename);
    assert!(written.starts_with("Renamed `simplelru` to `basiclru` (gopls):"), "{written}");
    assert!(written.contains("no new errors in"), "{written}");
    check(dir.path());
}

#[test]
fn a_go_field_rename_says_import_paths_in_go_leaves_package_clauses_out_and_names_the_file_gofmt_would_change() {
    let test = "lsp_trial157::a_go_field_rename_says_import_paths_in_go_leaves_package_clauses_out_and_names_the_file_gofmt_would_change";
    if support::require_binary(test, "gopls").is_none()
        || support::require_binary(test, "go").is_none()
        || support::require_binary(test, "gofmt").is_none()
    {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/golang-lru\n\ngo 1.19\n"),
        ("simplelru/lru.go", "package simplelru\n\n// LRU is a cache.\ntype LRU struct{}\n\n// NewLRU makes one.\nfunc NewLRU() *LRU { return &LRU{} }\n"),
        ("doc.go", "// Package lru provides caches.\npackage lru\n"),
        (
            "lru.go",
            "package lru\n\nimport \"example.com/golang-lru/simplelru\"\n\n// Cache wraps an LRU.\ntype Cache struct {\n\tlru  *simplelru.LRU\n\tname string\n}\n\n// New makes a Cache.\nfunc New() *Cache {\n\tlru := simplelru.NewLRU()\n\treturn &Cache{lru: lru, name: \"c\"}\n}\n",
        ),
        ("lru_test.go", "package lru\n\nimport \"testing\"\n\nfunc TestNew(t *testing.T) {\n\tif New().lru == nil {\n\t\tt.Fatal(\"no lru\")\n\t}\n}\n"),
    ]);
    let gofmt_l = |dir: &std::path::Path| {
        let listed = std::process::Command::new("gofmt").args(["-l", "."]).current_dir(dir).output().expect("gofmt");
        String::from_utf8_lossy(&listed.stdout).lines().map(str::to_owned).collect::<Vec<_>>()
    };
    assert!(gofmt_l(dir.path()).is_empty(), "fixture is not gofmt-formatted");
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "lru.go", "line": 7, "symbol": "lru", "new_name": "inner"}));
    // Ground truth: it builds and vets; gofmt now lists lru.go; 3 files hold `package lru`.
    let (builds, output) = go_build_and_vet(dir.path());
    assert!(builds, "{output}");
    assert_eq!(gofmt_l(dir.path()), vec!["lru.go"], "ground truth");
    assert!(
        text.contains("note: gofmt: lru.go was gofmt-formatted before this rename and is not after it — ")
            && text.contains("run `gofmt -w lru.go`"),
        "{text}"
    );
    assert!(!text.contains("from './"), "a JavaScript example for Go:\n{text}");
    assert!(text.contains("in the import paths (`\"example.com/golang-lru/simplelru\"` names a package, not this symbol"), "{text}");
    assert!(
        text.contains("left unrenamed, rightly: 3 package clauses (`package lru`): the package's own name, never this symbol"),
        "{text}"
    );
    assert!(!text.contains(": package lru   (definition"), "a package clause listed to check:\n{text}");
}

#[test]
fn a_gopls_rename_conflict_is_said_once_with_the_declaration_it_conflicts_with() {
    let test = "lsp_trial157::a_gopls_rename_conflict_is_said_once_with_the_declaration_it_conflicts_with";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&LRU_SHAPE);
    // Ground truth (grep): the declarations the new names collide with.
    let line_of = |file: &str, needle: &str| -> usize {
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        text.lines().position(|line| line.starts_with(needle)).unwrap_or_else(|| panic!("{needle} in {file}")) + 1
    };
    let new_line = line_of("lru.go", "func New() *Cache {");
    let get_line = line_of("lru.go", "func (c *Cache) Get(key int) (value int, ok bool) {");
    let before: Vec<String> = ["lru.go", "2q.go"].iter().map(|file| std::fs::read_to_string(dir.path().join(file)).unwrap()).collect();
    let run = support::lsp_run_allowing_writes_with_room(dir.path());
    let refused = |args: serde_json::Value| {
        let result = run.call(runbound::Caller::Main, "lsp_rename", args);
        assert!(result.is_error, "{}", result.joined_text());
        result.joined_text()
    };
    // A package-level func (the package has in-package tests: gopls checks it twice).
    let text = refused(json!({"file": "2q.go", "line": 11, "symbol": "New2Q", "new_name": "New"}));
    assert_eq!(text.matches("renaming this func \"New2Q\" to \"New\"").count(), 1, "{text}");
    assert!(text.contains(&format!("the declaration of `New` it conflicts with: lru.go:{new_line} `func New() *Cache {{`")), "{text}");
    assert!(text.contains(&format!("rename `New` at lru.go:{new_line} first")), "{text}");
    // A method: the receiver's method of that name.
    let text = refused(json!({"file": "lru.go", "line": 21, "symbol": "Len", "new_name": "Get"}));
    assert!(
        text.contains(&format!(
            "the declaration of `Get` it conflicts with: lru.go:{get_line} `func (c *Cache) Get(key int) (value int, ok bool) {{`"
        )),
        "{text}"
    );
    let after: Vec<String> = ["lru.go", "2q.go"].iter().map(|file| std::fs::read_to_string(dir.path().join(file)).unwrap()).collect();
    assert_eq!(before, after, "a refused rename changed files");
}
