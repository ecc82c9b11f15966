//! A crash from the fresh-user trial 58 (@tanstack/match-sorter-utils 8.19.4), against the real
//! tsserver and tsc:
//! - C1: `lsp_rename` of a TypeScript parameter documented by a JSDoc `@param` tag panicked
//!   (an overflow where the public-API check took the JSDoc comment, which starts lines above,
//!   for the renamed identifier); nothing could be renamed in that package.
//!
//! Ground truth: tsc on the renamed file.

use crate::support;

use serde_json::json;

#[test]
fn a_parameter_with_a_jsdoc_param_tag_is_renamed() {
    let test = "lsp_trial58::a_parameter_with_a_jsdoc_param_tag_is_renamed";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("tsconfig.json", r#"{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}"#),
        ("package.json", r#"{"name": "@demo/sorter", "version": "1.0.0", "main": "src/index.ts"}"#),
        ("src/index.ts", "/**\n * @param x - the x\n */\nexport function g(x: number): number {\n  return x + 1\n}\nexport function f(a: number): number {\n  return g(a)\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    // From the declaration and from a use.
    for (line, new_name) in [(4, "y"), (5, "z")] {
        let text = support::call_ok(
            &run,
            "lsp_rename",
            json!({"file": "src/index.ts", "line": line, "symbol": if line == 4 { "x" } else { "y" }, "new_name": new_name}),
        );
        assert!(text.contains("3 edits in 1 file"), "{text}");
    }
    let written = std::fs::read_to_string(dir.path().join("src/index.ts")).unwrap();
    assert!(
        written.contains(" * @param z - the x\n") && written.contains("function g(z: number)") && written.contains("return z + 1"),
        "{written}"
    );
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
}

/// M2: the members of an exported object literal (`export const rankings = { EQUAL: 6, … }`)
/// were hidden as "parameters and locals inside functions"; they are its properties. The locals
/// of a function stay hidden. Ground truth: tsserver's own navigation tree nests them under it.
#[test]
fn the_members_of_a_top_level_object_literal_are_listed_and_locals_are_not() {
    let test = "lsp_trial58::the_members_of_a_top_level_object_literal_are_listed_and_locals_are_not";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("tsconfig.json", r#"{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}"#),
        ("src/index.ts", "export const rankings = {\n  EQUAL: 6,\n  MATCHES: 1,\n} as const\n\nexport function rank(value: string): number {\n  const local = value.length\n  return local > 3 ? rankings.EQUAL : rankings.MATCHES\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "file": "src/index.ts"}));
    assert!(text.contains("  2: property EQUAL") && text.contains("  3: property MATCHES"), "{text}");
    assert!(!text.contains("property EQUAL 2-2 (local)") && !text.contains(": constant local"), "{text}");
    assert!(
        text.contains("not listed: ") && text.contains("(pass \"locals\": true)"),
        "the function's local is counted as hidden:\n{text}"
    );
}

/// M4 (golang-lru 0.5.4): an interface-method rename staged because "4 methods" keep the old
/// name listed 2 methods and 2 calls of them. Ground truth: grep of the `func (…)` declarations.
#[test]
fn an_interface_method_rename_counts_the_tied_methods_not_their_calls() {
    let test = "lsp_trial58::an_interface_method_rename_counts_the_tied_methods_not_their_calls";
    if support::require_binary(test, "gopls").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("go.mod", "module example.com/lru\n\ngo 1.19\n"),
        ("iface.go", "package lru\n\n// Cache is a cache.\ntype Cache interface {\n\tRemoveOldest() bool\n}\n"),
        ("lru.go", "package lru\n\n// LRU is one.\ntype LRU struct{ n int }\n\n// RemoveOldest drops one.\nfunc (c *LRU) RemoveOldest() bool { c.n--; return c.n > 0 }\n\nvar _ Cache = (*LRU)(nil)\n"),
        ("lru_test.go", "package lru\n\nimport \"testing\"\n\nfunc TestRemove(t *testing.T) {\n\tl := &LRU{n: 2}\n\tif !l.RemoveOldest() {\n\t\tt.Fatal(\"empty\")\n\t}\n}\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "iface.go", "line": 5, "symbol": "RemoveOldest", "new_name": "EvictOldest"}),
    );
    let text = result.joined_text();
    assert!(text.contains("NOT written: this rename leaves 1 method tied to `RemoveOldest`"), "{text}");
    assert!(text.contains("left unrenamed: 1 call of those methods on their own types") && text.contains("lru_test.go:7:"), "{text}");
}

/// M3: a workspace symbol search for an object-literal member (`MATCHES`) said "no match" and
/// advised opening a file of the project, which was open: tsserver's navigate-to does not index
/// such members. The answer now names where a text search finds it declared.
#[test]
fn a_symbol_the_index_leaves_out_is_found_by_text_and_its_outline_named() {
    let test = "lsp_trial58::a_symbol_the_index_leaves_out_is_found_by_text_and_its_outline_named";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("tsconfig.json", r#"{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}"#),
        ("src/index.ts", "export const rankings = {\n  EQUAL: 6,\n  MATCHES: 1,\n} as const\n"),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "symbols", "query": "MATCHES"}));
    assert!(text.contains("no workspace symbols match \"MATCHES\""), "tsserver 5 does not index object-literal members:\n{text}");
    assert!(text.contains("a text search finds `MATCHES` declared at src/index.ts:3 (`MATCHES: 1,`)"), "{text}");
    assert!(!text.contains("open a file of that project"), "{text}");
    let outline = support::call_ok(&run, "lsp", json!({"op": "symbols", "file": "src/index.ts"}));
    assert!(outline.contains("3: property MATCHES"), "{outline}");
}
