//! Wrong answer from the fresh-user trial 129 (@tanstack/history 1.162.5), against the real
//! tsserver and tsc, on a fixture of the same shape:
//! - F1: renaming the class method `ServerHistory.createHref` renames the interface member
//!   `RouterHistory.createHref` too (tsserver), and the key `'createHref'` in
//!   `Pick<RouterHistory, …>` was "another property … leave it otherwise"; tsc then failed. It
//!   was then warned of; since trial168 F1 such a key is renamed with the member.
//! - F2: `incoming_calls` of the class method `ServerHistory.createHref` listed a call on another
//!   implementation (`FakeHistory`) as a call of it.
//!
//! Ground truth: tsc after the rename (clean once the `Pick` key is renamed too); which method
//! each call reaches is fixed by construction (the receivers' declared classes).

use crate::support;

use serde_json::json;

/// A strict TypeScript project whose `src/index.ts` declares `RouterHistory` and the class
/// `ServerHistory` that implements it (`createHref` at line 7), with `more` files beside it.
fn history_workspace(more: &[(&str, &str)]) -> tempfile::TempDir {
    let mut files: Vec<(&str, &str)> = vec![
        ("package.json", "{\"name\": \"hist\", \"version\": \"1.0.0\", \"type\": \"module\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\"}, \"include\": [\"src\"]}\n",
        ),
        ("src/index.ts", "export interface RouterHistory {\n  createHref: (path: string) => string\n  push: (path: string) => void\n}\n\nexport class ServerHistory implements RouterHistory {\n  createHref(path: string): string {\n    return `/base${path}`\n  }\n\n  push(path: string): void {\n    void path\n  }\n}\n"),
    ];
    files.extend_from_slice(more);
    support::workspace_with(&files)
}

#[test]
fn a_key_of_an_interface_whose_member_the_rename_renames_too_is_renamed_with_it() {
    let test = "lsp_trial129::a_key_of_an_interface_whose_member_the_rename_renames_too_is_renamed_with_it";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = history_workspace(&[
        ("src/helpers.ts", "import type { RouterHistory } from './index'\n\nexport type Hrefs = Pick<RouterHistory, 'createHref'>\n\nexport const plain: Hrefs = { createHref: (path) => path }\n"),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/index.ts", "line": 7, "symbol": "createHref", "new_name": "buildHref"}));
    let renamed = text.lines().position(|line| line.contains("runbound renamed 1 string key in types")).unwrap_or_else(|| panic!("{text}"));
    let key = text.lines().nth(renamed + 1).unwrap_or_default();
    assert!(key.contains("src/helpers.ts:3:") && key.contains("whose `createHref` this rename renames too"), "{text}");
    assert!(!text.contains("WARNING: 1 string that names the renamed member"), "{text}");
    let helpers = std::fs::read_to_string(dir.path().join("src/helpers.ts")).unwrap();
    assert!(helpers.contains("Pick<RouterHistory, 'buildHref'>"), "{helpers}");
    // Ground truth: the rename compiles (the key left as it was breaks tsc: lsp_trial34).
    let errors = support::tsc_errors(dir.path());
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn callers_of_a_class_method_leave_out_calls_of_other_implementations() {
    let test = "lsp_trial129::callers_of_a_class_method_leave_out_calls_of_other_implementations";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = history_workspace(&[
        ("src/fake.ts", "import { ServerHistory, type RouterHistory } from './index'\n\nexport class FakeHistory implements RouterHistory {\n  createHref(path: string): string {\n    return `#${path}`\n  }\n\n  push(path: string): void {\n    void path\n  }\n}\n\nexport function useBoth(h: RouterHistory): string[] {\n  const server = new ServerHistory()\n  const fake = new FakeHistory()\n  return [server.createHref('/x'), fake.createHref('/y'), h.createHref('/z')]\n}\n"),
    ]);
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "src/index.ts", "line": 7, "symbol": "createHref"}));
    // By construction: `server.createHref('/x')` calls it; `fake.createHref('/y')` calls
    // `FakeHistory.createHref`; `h.createHref('/z')` goes through the interface.
    assert!(text.contains("1 caller, 1 call site"), "{text}");
    assert!(text.contains("note: left out of this answer: 2 call sites") && text.contains("→ src/fake.ts:4"), "{text}");
}
