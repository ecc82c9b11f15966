//! Wrong answer from the fresh-user trial 125 (@tanstack/store 0.7.7), against the real
//! tsserver and tsc, on a fixture of the same shape:
//! - F1: renaming `DerivedOptions.onUpdate` warned that the key `'onUpdate'` left in
//!   `Omit<DerivedOptions, 'onUpdate' | …>` kept the code from compiling; `Omit` accepts a key
//!   its type lacks, so tsc passed, and the real break went unsaid: `EffectOptions` gained the
//!   renamed option, which type-checks and is never called. It was then warned of; since trial168
//!   F1 the key is renamed with the member, and `EffectOptions` keeps leaving it out.
//!
//! Ground truth: tsc after the rename (clean), and a probe that passes the renamed option to
//! `effect` (refused before and after: the renamed key keeps it out of `EffectOptions`).

use crate::support;

use serde_json::json;

#[test]
fn a_renamed_members_key_in_omit_is_renamed_so_that_it_stays_omitted() {
    let test = "lsp_trial125::a_renamed_members_key_in_omit_is_renamed_so_that_it_stays_omitted";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"st\", \"version\": \"1.0.0\", \"type\": \"module\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\"}, \"include\": [\"src\"]}\n",
        ),
        ("src/derived.ts", "export interface DerivedOptions {\n  fn: () => number\n  onUpdate?: () => void\n  lazy?: boolean\n}\n\nexport function derive(options: DerivedOptions): number {\n  options.onUpdate?.()\n  return options.fn()\n}\n"),
        ("src/effect.ts", "import { derive, type DerivedOptions } from './derived'\n\nexport interface EffectOptions extends Omit<DerivedOptions, 'onUpdate' | 'lazy'> {\n  eager?: boolean\n}\n\nexport function effect(options: EffectOptions): number {\n  return derive({ ...options, onUpdate: () => {} })\n}\n"),
    ]);
    let probe = "import { effect } from './effect'\n\neffect({ fn: () => 1, onChange: () => {} })\n";
    std::fs::write(dir.path().join("src/probe.ts"), probe).unwrap();
    assert!(!support::tsc_errors(dir.path()).is_empty(), "the probe's option is refused before the rename");
    std::fs::remove_file(dir.path().join("src/probe.ts")).unwrap();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/derived.ts", "line": 3, "symbol": "onUpdate", "new_name": "onChange"}));
    let renamed = text.lines().position(|line| line.contains("runbound renamed 1 string key in types")).unwrap_or_else(|| panic!("{text}"));
    let key = text.lines().nth(renamed + 1).unwrap_or_default();
    assert!(key.contains("src/effect.ts:3:") && key.contains("(string key in `Omit<…>` of `DerivedOptions`"), "{text}");
    let effect = std::fs::read_to_string(dir.path().join("src/effect.ts")).unwrap();
    assert!(effect.contains("Omit<DerivedOptions, 'onChange' | 'lazy'>"), "{effect}");
    // Ground truth: it compiles, and the renamed option stays refused by `effect`.
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    std::fs::write(dir.path().join("src/probe.ts"), probe).unwrap();
    assert!(!support::tsc_errors(dir.path()).is_empty(), "the renamed option is accepted by `effect`");
}
