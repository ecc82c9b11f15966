//! Wrong answers from the fresh-user trial 156 (@tanstack/query-core 5.108.4, which ships its
//! sources and a bundler's build output: declaration chunks with maps, and per-entry stubs and
//! barrels without), against the real tsserver and tsc, on fixtures of the same shape:
//! - F1: with a tsconfig without `include`, tsc compiles the shipped `.d.ts` too; a rename still
//!   edited the build declaration files that have no map of their own: renamed again from
//!   `build/legacy/index.d.ts`, and a barrel `export { f } from './a'` rewritten to
//!   `export { f as g } from './a'` — a consumer's `import { f }` then fails (TS2305) while tsc on
//!   the project stays clean — and the answer said build output is not edited.
//!
//! Ground truth: the build files after the rename, byte for byte, and tsc, on the project and on
//! a consumer that imports the package.

use crate::support;

use serde_json::json;

/// `tsc` errors of a consumer project whose `node_modules/fx` holds `package`'s package.json and
/// `build/` as they are now, importing `import_line`.
fn consumer_tsc_errors(package: &std::path::Path, import_line: &str) -> Vec<String> {
    let consumer = support::workspace_with(&[
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"module\": \"ES2022\", \"moduleResolution\": \"Bundler\", \"types\": []}}\n",
        ),
        ("consumer.ts", import_line),
    ]);
    let installed = consumer.path().join("node_modules/fx/build");
    std::fs::create_dir_all(&installed).unwrap();
    std::fs::copy(package.join("package.json"), consumer.path().join("node_modules/fx/package.json")).unwrap();
    for entry in std::fs::read_dir(package.join("build")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), installed.join(entry.file_name())).unwrap();
    }
    support::tsc_errors(consumer.path())
}

/// Trial 156 F1 (the fixture of the report): `build/index.d.ts`, the package's `types` entry, a
/// barrel with no map of its own beside the mapped `build/a.d.ts`.
#[test]
fn a_rename_leaves_the_package_typings_barrel_without_a_map_and_says_so() {
    let test = "lsp_trial156::a_rename_leaves_the_package_typings_barrel_without_a_map_and_says_so";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let mapped = "export declare function f(x: number): number;\n//# sourceMappingURL=a.d.ts.map\n";
    let barrel = "export { f } from './a';\n";
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"fx\", \"version\": \"1.0.0\", \"types\": \"build/index.d.ts\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"module\": \"ES2022\", \"moduleResolution\": \"Bundler\", \"types\": []}}\n",
        ),
        ("src/a.ts", "export function f(x: number): number {\n  return x + 1\n}\n"),
        ("src/index.ts", "export { f } from './a'\n"),
        ("src/use.ts", "import { f } from './a'\nexport const y = f(1)\n"),
        ("build/a.d.ts", mapped),
        (
            "build/a.d.ts.map",
            "{\"version\":3,\"file\":\"a.d.ts\",\"sourceRoot\":\"\",\"sources\":[\"../src/a.ts\"],\"names\":[],\"mappings\":\"AAAA,wBAAgB,CAAC,CAAC,CAAC,EAAE,MAAM,GAAG,MAAM,CAElC\"}\n",
        ),
        ("build/index.d.ts", barrel),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    assert_eq!(consumer_tsc_errors(dir.path(), "import { f } from 'fx'\nexport const z = f(2)\n"), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp_rename", json!({"file": "src/a.ts", "line": 1, "symbol": "f", "new_name": "g"}));
    assert_eq!(std::fs::read_to_string(dir.path().join("build/index.d.ts")).unwrap(), barrel, "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("build/a.d.ts")).unwrap(), mapped, "{text}");
    assert!(!text.contains("renamed again from build/"), "{text}");
    assert!(!text.contains("build/index.d.ts: 1 edit"), "{text}");
    assert!(
        text.contains("left unrenamed: 1 occurrence in 1 declaration file of the build output with no declaration map of their own (under build/, the directory of package.json `types`) — not edited and not renamed again from"),
        "{text}"
    );
    assert!(text.contains("build/index.d.ts:1: export { f } from './a';   (build output)"), "{text}");
    // The sources are renamed, the project compiles, and the package's consumers still import `f`.
    assert!(std::fs::read_to_string(dir.path().join("src/use.ts")).unwrap().contains("g(1)"));
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    assert_eq!(consumer_tsc_errors(dir.path(), "import { f } from 'fx'\nexport const z = f(2)\n"), Vec::<String>::new());
}

/// Trial 156 F1 (the package's own shape, ws2's `hashKey`): a bundler's per-entry stub
/// `import { n as hashKey } from "./chunk.js"; export { hashKey };` with no map, beside the mapped
/// chunk that declares it; no package.json names the directory.
#[test]
fn a_rename_leaves_a_bundler_stub_beside_mapped_chunks_and_is_not_renamed_again_from_it() {
    let test = "lsp_trial156::a_rename_leaves_a_bundler_stub_beside_mapped_chunks_and_is_not_renamed_again_from_it";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let chunk = "declare function hashKey(queryKey: string): string;\nexport { hashKey as n };\n//# sourceMappingURL=chunk-A1.d.ts.map\n";
    let stub = "import { n as hashKey } from \"./chunk-A1.js\";\nexport { hashKey };\n";
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"fx\", \"version\": \"1.0.0\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"module\": \"ES2022\", \"moduleResolution\": \"Bundler\", \"types\": []}}\n",
        ),
        ("src/utils.ts", "export function hashKey(queryKey: string): string {\n  return JSON.stringify(queryKey)\n}\n"),
        ("src/index.ts", "export { hashKey } from './utils'\n"),
        ("src/client.ts", "import { hashKey } from './utils'\nexport const key = hashKey('a')\n"),
        ("build/legacy/chunk-A1.d.ts", chunk),
        (
            "build/legacy/chunk-A1.d.ts.map",
            "{\"version\":3,\"file\":\"chunk-A1.d.ts\",\"sourceRoot\":\"\",\"sources\":[\"../../src/utils.ts\"],\"names\":[],\"mappings\":\"AAAA,iBAAgB\"}\n",
        ),
        ("build/legacy/index.d.ts", stub),
        ("build/legacy/utils.d.cts", stub),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/utils.ts", "line": 1, "symbol": "hashKey", "new_name": "hashQueryKey"}));
    assert_eq!(std::fs::read_to_string(dir.path().join("build/legacy/index.d.ts")).unwrap(), stub, "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("build/legacy/utils.d.cts")).unwrap(), stub, "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("build/legacy/chunk-A1.d.ts")).unwrap(), chunk, "{text}");
    assert!(!text.contains("renamed again from build/"), "{text}");
    assert!(
        text.contains("in 2 declaration files of the build output with no declaration map of their own (in build/legacy/, beside declaration files with maps)"),
        "{text}"
    );
    assert!(std::fs::read_to_string(dir.path().join("src/client.ts")).unwrap().contains("hashQueryKey('a')"));
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
}
