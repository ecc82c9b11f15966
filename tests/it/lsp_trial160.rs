//! Wrong answers from the fresh-user trial 160 (@tanstack/virtual-core 3.19.13, which ships its
//! sources and a build in `dist/`: ESM `.js` + `.d.ts`, CJS `.cjs` + `.d.cts`, source maps for the
//! JavaScript only), against the real tsserver, tsc and node, on fixtures of the same shape:
//! - F1/M1: `setOptions` builds the options' defaults as an object literal cast `as unknown as
//!   Required<VirtualizerOptions<…>>`; tsserver does not link its keys to the interface, so
//!   renaming `VirtualizerOptions.overscan` left the default `overscan: 1` (and the shorthand
//!   `measureElement,`): tsc clean, "no new errors", and at run time the option was `undefined`.
//!   `references` on the option did not mention the key either.
//! - M2: renaming a `private` member said "public API changed … keep the old member".
//! - M6: a rename started in `dist/esm/index.js` (build output with a source map) was allowed with
//!   a WARNING while `dist/esm/index.d.ts` beside it was refused, and its grep line said
//!   "0 renamed by this edit" beside "3 edits".

use crate::support;

use serde_json::json;

const TSCONFIG: &str = "{\"compilerOptions\": {\"strict\": true, \"target\": \"ES2020\", \"module\": \"commonjs\", \"moduleResolution\": \"node\", \"outDir\": \"out\", \"types\": []}, \"include\": [\"src\"]}\n";

/// The options module of the trial's shape: defaults cast through `unknown`, read back by name.
const OPTIONS: &str = "export interface Options {\n  count: number\n  overscan?: number\n  measure?: (x: number) => number\n}\n\nexport const measure = (x: number): number => x * 2\n\nexport class Engine {\n  options: Required<Options>\n  constructor(options: Options) {\n    const merged = {\n      overscan: 1,\n      measure,\n      ...options,\n    } as unknown as Required<Options>\n    this.options = merged\n  }\n  total(): number {\n    return this.options.count + this.options.overscan + this.options.measure(1)\n  }\n}\n";

/// Another type with a member of the same name, whose cast literal the rename must leave.
const OTHER: &str = "export interface Other {\n  overscan?: number\n}\n\nexport const other = { overscan: 5 } as unknown as Other\n";

/// What node prints for `script` (CommonJS, `require('./options')` etc.) run against the
/// workspace's `src` compiled by tsc into a temporary directory: the ground truth at run time.
fn node_prints(workspace: &std::path::Path, script: &str) -> String {
    let out = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("tsc")
        .args(["-p", "tsconfig.json", "--outDir"])
        .arg(out.path())
        .current_dir(workspace)
        .output()
        .expect("run tsc");
    assert!(status.status.success(), "tsc failed: {}", String::from_utf8_lossy(&status.stdout));
    let output = std::process::Command::new("node").args(["-e", script]).current_dir(out.path()).output().expect("run node");
    format!("{}{}", String::from_utf8_lossy(&output.stdout).trim(), String::from_utf8_lossy(&output.stderr).lines().next().unwrap_or(""))
}

const PROBE: &str = "try { const { Engine } = require('./options'); console.log(new Engine({ count: 10 }).total()) } catch (e) { console.log('ERR ' + e.message) }";

fn require_tools(test: &str) -> bool {
    support::require_binary(test, "typescript-language-server").is_some()
        && support::require_binary(test, "tsc").is_some()
        && support::require_binary(test, "node").is_some()
}

/// Trial 160 F1 and M1: the keys of the literal cast `as unknown as Required<Options>` are
/// renamed with the option (the shorthand as `measureItem: measure`), said in a note; the other
/// type's cast literal is left; `references` names the key. Ground truth: tsc and node.
#[test]
fn keys_of_a_literal_cast_through_unknown_to_the_options_type_are_renamed_with_the_option() {
    let test = "lsp_trial160::keys_of_a_literal_cast_through_unknown_to_the_options_type_are_renamed_with_the_option";
    if !require_tools(test) {
        return;
    }
    let dir = support::workspace_with(&[("tsconfig.json", TSCONFIG), ("src/options.ts", OPTIONS), ("src/other.ts", OTHER)]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    assert_eq!(node_prints(dir.path(), PROBE), "13", "pristine: 10 + 1 + measure(1)");
    let run = support::lsp_run_allowing_writes(dir.path());

    // M1: the key is named beside the references tsserver lists.
    let text = support::call_ok(&run, "lsp", json!({"op": "references", "file": "src/options.ts", "line": 3, "symbol": "overscan"}));
    assert!(
        text.contains("note: 1 key named `overscan` in object literals type-asserted to `Options` is not in this list (src/options.ts:13 `overscan: 1` (as unknown as Required<Options>))"),
        "{text}"
    );
    assert!(!text.contains("src/other.ts:5 `overscan"), "{text}");

    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/options.ts", "line": 3, "symbol": "overscan", "new_name": "overscanCount"}),
    );
    let options = std::fs::read_to_string(dir.path().join("src/options.ts")).unwrap();
    assert!(options.contains("      overscanCount: 1,\n"), "{text}\n{options}");
    assert!(
        text.contains("note: runbound renamed 1 key named `overscan` in object literals type-asserted to `Options` (src/options.ts:13 `overscan: 1` (as unknown as Required<Options>))"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("src/other.ts")).unwrap(), OTHER, "another type's literal is left: {text}");
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    assert_eq!(node_prints(dir.path(), PROBE), "13", "the default still reaches the renamed option");

    // The shorthand key keeps its value: `measure,` → `measureItem: measure,`.
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/options.ts", "line": 4, "symbol": "measure", "new_name": "measureItem"}));
    let options = std::fs::read_to_string(dir.path().join("src/options.ts")).unwrap();
    assert!(options.contains("      measureItem: measure,\n"), "{text}\n{options}");
    assert!(options.contains("export const measure = "), "the function keeps its name: {options}");
    assert!(text.contains("a shorthand key keeps its value: `measure,` became `measureItem: measure,`"), "{text}");
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    assert_eq!(node_prints(dir.path(), PROBE), "13", "the default function still reaches the renamed option");
}

/// Trial 160 F1: a key of a literal asserted to a type the server cannot resolve is not renamed;
/// the rename warns and is staged, nothing written.
#[test]
fn a_key_of_a_literal_asserted_to_an_unresolved_type_stages_the_rename() {
    let test = "lsp_trial160::a_key_of_a_literal_asserted_to_an_unresolved_type_stages_the_rename";
    if !require_tools(test) {
        return;
    }
    let unresolved = "export const fallback = { overscan: 3 } as unknown as Missing\n";
    let dir = support::workspace_with(&[("tsconfig.json", TSCONFIG), ("src/options.ts", OPTIONS), ("src/fallback.ts", unresolved)]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/options.ts", "line": 3, "symbol": "overscan", "new_name": "overscanCount"}),
    );
    assert!(
        text.starts_with(
            "NOT written: this rename meets 1 key named `overscan` in object literals asserted to a type the server could not resolve"
        ),
        "{text}"
    );
    assert!(
        text.contains("WARNING: 1 key named `overscan` in object literals type-asserted to a type typescript-language-server could not resolve (src/fallback.ts:1 `overscan: 3` (as unknown as Missing)) was NOT renamed"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("src/options.ts")).unwrap(), OPTIONS, "nothing written: {text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("src/fallback.ts")).unwrap(), unresolved);
}

/// Trial 160 M2: a `private` or `#` member of an exported class is no public API; a protected one
/// is, for subclasses only; a public one keeps its note.
#[test]
fn a_private_member_rename_says_no_public_api_change() {
    let test = "lsp_trial160::a_private_member_rename_says_no_public_api_change";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let source = "export class Engine {\n  private trailing = 0\n  #hidden = 1\n  protected step(): number {\n    return this.trailing + this.#hidden\n  }\n  run(): number {\n    return this.step()\n  }\n}\n";
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"engine\", \"version\": \"1.0.0\", \"main\": \"dist/index.js\", \"types\": \"dist/index.d.ts\"}\n"),
        ("tsconfig.json", TSCONFIG),
        ("src/index.ts", source),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let rename = |line: u32, symbol: &str, new_name: &str| {
        support::call_ok(
            &run,
            "lsp_rename",
            json!({"file": "src/index.ts", "line": line, "symbol": symbol, "new_name": new_name, "preview": true}),
        )
    };
    let text = rename(2, "trailing", "trailingSpace");
    assert!(!text.contains("public API changed"), "{text}");
    let text = rename(3, "#hidden", "#secret");
    assert!(!text.contains("public API changed"), "{text}");
    let text = rename(4, "step", "advance");
    assert!(
        text.contains("declares `step`, a protected member of the exported class `Engine`")
            && text.contains("only subclasses of `Engine` outside this workspace that use or override the member break"),
        "{text}"
    );
    let text = rename(7, "run", "execute");
    assert!(
        text.contains("declares `run`, a member of the exported class `Engine`")
            && text.contains("code outside this workspace that uses the member breaks"),
        "{text}"
    );
}

/// Trial 160 M6: a rename started in JavaScript of the build output (a source map beside it) is
/// refused like one in its declaration file, naming the source the map leads to; a rename started
/// in hand-written JavaScript outside the tsconfig's files counts its edits beside the scan's.
#[test]
fn a_rename_started_in_built_javascript_is_refused_like_one_in_its_typings() {
    let test = "lsp_trial160::a_rename_started_in_built_javascript_is_refused_like_one_in_its_typings";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let built = "const measure = (x) => x * 2;\nfunction total() {\n  return measure(1);\n}\nexport { measure, total };\n//# sourceMappingURL=index.js.map\n";
    let script = "const measure = (x) => x + 1;\nconsole.log(measure(2));\n";
    let dir = support::workspace_with(&[
        (
            "package.json",
            "{\"name\": \"engine\", \"version\": \"1.0.0\", \"module\": \"dist/esm/index.js\", \"types\": \"dist/esm/index.d.ts\"}\n",
        ),
        ("tsconfig.json", TSCONFIG),
        (
            "src/index.ts",
            "export const measure = (x: number): number => x * 2\nexport function total(): number {\n  return measure(1)\n}\n",
        ),
        ("dist/esm/index.js", built),
        (
            "dist/esm/index.js.map",
            "{\"version\":3,\"file\":\"index.js\",\"sources\":[\"../../src/index.ts\"],\"names\":[],\"mappings\":\"AAAA\"}\n",
        ),
        ("dist/esm/index.d.ts", "export declare const measure: (x: number) => number;\nexport declare function total(): number;\n"),
        ("scripts/tool.js", script),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        runbound::Caller::Main,
        "lsp_rename",
        json!({"file": "dist/esm/index.js", "line": 1, "symbol": "measure", "new_name": "measureNode", "preview": true}),
    );
    let text = result.joined_text();
    assert!(result.is_error, "{text}");
    assert!(
        text.contains("dist/esm/index.js is build output (a source map beside it): a rename started there rewrites the shipped JavaScript"),
        "{text}"
    );
    assert!(text.contains("the source map names src/index.ts — find `measure` there"), "{text}");
    assert_eq!(std::fs::read_to_string(dir.path().join("dist/esm/index.js")).unwrap(), built, "nothing written");

    // Hand-written JavaScript is no build output: renamed, and its edits are counted as outside
    // the scan of the tsconfig's files, not as "0 renamed".
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "scripts/tool.js", "line": 1, "symbol": "measure", "new_name": "bump", "preview": true}),
    );
    assert!(text.contains("0 of them renamed by this edit, and 2 edits in 1 file outside this scan (scripts/tool.js)"), "{text}");
}
