//! Wrong answers from the fresh-user trial 50 (@tanstack/store 0.7.7, arrayvec 0.7.6), against
//! the real servers on fixtures of the same shape:
//! - F1, F4: a file that reaches a changed type only through another module's declarations
//!   (scheduler.ts calls `store.listeners` with object literals checked against by types.ts's
//!   `ListenerValue`, and imports only store.ts) was left out of the check after a write to the
//!   type (a member added, a member renamed): "no errors in the files that were checked" while tsc
//!   had 2 new errors. The files that import an importer are checked too, as tsc's own builder
//!   re-checks them.
//!
//! Ground truth: `tsc --noEmit` on the written project, error by error.

use crate::support;

use serde_json::json;

const TYPES_TS: &str = "export interface ListenerValue<T> {\n  readonly prevVal: T\n  readonly currentVal: T\n}\n\nexport type Listener<T> = (value: ListenerValue<T>) => void\n";

const STORE_TS: &str = "import type { Listener } from './types'\n\nexport class Store<T> {\n  listeners = new Set<Listener<T>>()\n  constructor(public state: T) {}\n}\n";

/// The object literal is built apart from the call (as in @tanstack/store): tsserver's rename
/// does not reach its key.
const SCHEDULER_TS: &str = "import type { Store } from './store'\n\nexport function flush(store: Store<unknown>, previous: unknown): void {\n  const value = {\n    prevVal: previous as never,\n    currentVal: store.state as never,\n  }\n  for (const listener of store.listeners) {\n    listener(value)\n  }\n}\n";

fn store_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        (
            "tsconfig.json",
            r#"{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020", "module": "esnext", "moduleResolution": "bundler"}, "include": ["src"]}"#,
        ),
        ("src/types.ts", TYPES_TS),
        ("src/store.ts", STORE_TS),
        ("src/scheduler.ts", SCHEDULER_TS),
    ])
}

fn assert_block_names_every_tsc_error(text: &str, dir: &std::path::Path) {
    let block = support::assert_block_names_every_tsc_error(text, dir);
    assert!(!block.contains("no new errors in src/scheduler.ts"), "{text}");
}

#[test]
fn a_member_added_to_an_interface_is_checked_in_files_that_use_it_through_an_importer() {
    let test = "lsp_trial50::a_member_added_to_an_interface_is_checked_in_files_that_use_it_through_an_importer";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = store_workspace();
    assert!(support::tsc_errors(dir.path()).is_empty(), "fixture not clean: {:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let member = "  readonly currentVal: T\n";
    let added = "  readonly currentVal: T\n  readonly changed: boolean\n";
    let text = support::call_ok(&run, "edit", json!({"path": "src/types.ts", "old_string": member, "new_string": added}));
    assert_block_names_every_tsc_error(&text, dir.path());
    assert!(text.contains("the files that import an importer"), "how scheduler.ts was found is said:\n{text}");
    // The type of the listener changed (a parameter added): the same file breaks, by a call.
    let text = support::call_ok(&run, "edit", json!({"path": "src/types.ts", "old_string": added, "new_string": member}));
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    assert!(text.contains("resolved by this write"), "the undo resolves scheduler.ts's error:\n{text}");
    let listener = "export type Listener<T> = (value: ListenerValue<T>) => void";
    let with_parameter = "export type Listener<T> = (value: ListenerValue<T>, store: string) => void";
    let text = support::call_ok(&run, "edit", json!({"path": "src/types.ts", "old_string": listener, "new_string": with_parameter}));
    assert_block_names_every_tsc_error(&text, dir.path());
}

#[test]
fn an_interface_member_renamed_is_checked_in_files_that_use_it_through_an_importer() {
    let test = "lsp_trial50::an_interface_member_renamed_is_checked_in_files_that_use_it_through_an_importer";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = store_workspace();
    assert!(support::tsc_errors(dir.path()).is_empty(), "fixture not clean: {:?}", support::tsc_errors(dir.path()));
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp_rename", json!({"file": "src/types.ts", "line": 3, "symbol": "currentVal", "new_name": "value"}));
    // tsserver does not rename the object literal's key (contextually typed through a generic
    // listener): the build breaks, and the answer says where.
    assert_block_names_every_tsc_error(&text, dir.path());
}
