//! Wrong answers from the fresh-user trial 94 (hashicorp/golang-lru 0.5.4 with a generic
//! wrapper), against gopls and the go command on a fixture of the same shape:
//! - F1: renaming `typed.Cache` warned of `lru`'s `ExampleCache_Add` too — an example of
//!   another package's `Cache`, which go vet does not report; renaming it as advised broke vet.
//! - F2: a method of a generic type (`func (c *Cache[K, V]) Put`) was named `V.Put`.
//! - F3: calls with explicit type arguments (`New[string, int](2)`) were "referenced as a value,
//!   not called".
//!
//! Ground truth: go vet after the rename is written.

use crate::support;

use serde_json::json;

const LRU: &str =
    "package lru\n\n// Cache is a cache.\ntype Cache struct{ n int }\n\n// Add adds.\nfunc (c *Cache) Add(v int) { c.n += v }\n";
const LRU_EXAMPLE: &str = "package lru_test\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/lru\"\n)\n\nfunc ExampleCache_Add() {\n\tc := &lru.Cache{}\n\tc.Add(1)\n\tfmt.Println(\"ok\")\n\t// Output: ok\n}\n";
const TYPED: &str = "package typed\n\n// Cache is a typed cache.\ntype Cache[K comparable, V any] struct{ m map[K]V }\n\n// New makes a Cache.\nfunc New[K comparable, V any](size int) *Cache[K, V] {\n\treturn &Cache[K, V]{m: make(map[K]V, size)}\n}\n\n// Put stores v.\nfunc (c *Cache[K, V]) Put(k K, v V) bool {\n\tc.m[k] = v\n\treturn true\n}\n";
const TYPED_TEST: &str = "package typed\n\nimport \"fmt\"\n\nfunc ExampleCache_Put() {\n\tc := New[string, int](2)\n\tfmt.Println(c.Put(\"a\", 1))\n\t// Output: true\n}\n";

#[test]
fn examples_of_another_packages_type_and_generic_receivers_and_calls_are_told_right() {
    let test = "lsp_trial94::examples_of_another_packages_type_and_generic_receivers_and_calls_are_told_right";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com\n\ngo 1.19\n"),
        ("lru/lru.go", LRU),
        ("lru/example_test.go", LRU_EXAMPLE),
        ("typed/typed.go", TYPED),
        ("typed/typed_test.go", TYPED_TEST),
    ]);
    let vet = support::go_offline(dir.path(), &["vet", "./..."]);
    assert!(vet.status.success(), "{}", String::from_utf8_lossy(&vet.stderr));
    let run = support::lsp_run_allowing_writes(dir.path());
    // F3: a call with explicit type arguments is a call.
    let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "typed/typed.go", "line": 7, "symbol": "New"}));
    assert!(text.contains("1 caller, 1 call site") && !text.contains("referenced as a value"), "{text}");
    // F2: the generic type's method is `Cache.Put`.
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "typed/typed.go", "line": 12, "symbol": "Put", "new_name": "Store", "preview": true}),
    );
    assert!(!text.contains("V.Put"), "{text}");
    assert!(text.contains("`ExampleCache_Put` (typed/typed_test.go:5)"), "{text}");
    // F1: only this package's example is named.
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "typed/typed.go", "line": 4, "symbol": "Cache", "new_name": "TCache"}));
    assert!(text.contains("`ExampleCache_Put` (typed/typed_test.go:5)"), "{text}");
    assert!(!text.contains("ExampleCache_Add"), "{text}");
    // Ground truth: vet reports this package's example only.
    let vet = support::go_offline(dir.path(), &["vet", "./..."]);
    let said = String::from_utf8_lossy(&vet.stderr).into_owned();
    assert!(said.contains("ExampleCache_Put refers to unknown"), "{said}");
    assert!(!said.contains("ExampleCache_Add"), "{said}");
}

/// F4: gopls's references of an embedded field of another package's type (`*lru.Cache`) list the
/// package qualifier of other expressions (`lru` of `lru.New()`), lines with no `Cache` on them.
#[test]
fn references_of_an_embedded_field_leave_out_the_package_qualifiers_gopls_adds() {
    let test = "lsp_trial94::references_of_an_embedded_field_leave_out_the_package_qualifiers_gopls_adds";
    if support::require_binary(test, "gopls").is_none() || support::require_binary(test, "go").is_none() {
        return;
    }
    let lru = "package lru\n\n// Cache is a cache.\ntype Cache struct{ n int }\n\n// New makes a Cache.\nfunc New() *Cache { return &Cache{} }\n\n// Len is its size.\nfunc (c *Cache) Len() int { return c.n }\n";
    let wrapped = "package typed\n\nimport \"example.com/lru\"\n\n// Wrapped embeds a cache.\ntype Wrapped struct {\n\t*lru.Cache\n}\n\n// Make builds one.\nfunc Make() *Wrapped {\n\tc := lru.New()\n\treturn &Wrapped{Cache: c}\n}\n\n// Size is its size.\nfunc (w *Wrapped) Size() int { return w.Cache.Len() }\n";
    let dir = support::workspace_with(&[("go.mod", "module example.com\n\ngo 1.19\n"), ("lru/lru.go", lru), ("typed/typed.go", wrapped)]);
    assert!(support::go_offline(dir.path(), &["build", "./..."]).status.success());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "typed/typed.go", "line": 7, "symbol": "Cache"}));
    assert!(!text.contains("12: \tc := lru.New()") && !text.contains("12: c := lru.New()"), "{text}");
    assert!(text.contains("13:") && text.contains("17:"), "the field's uses are listed:\n{text}");
}
