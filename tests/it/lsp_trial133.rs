//! Wrong answers from the fresh-user trial 133 (mobx 6.13.5), against the real tsserver and tsc,
//! on a fixture of the same shape (a class that implements the built-in `Set<number>`):
//! - F1: `incoming_calls` deeper than 1 listed, under a class method that implements `Set.add`,
//!   the calls of `add` on plain `Set`s (`observers.add(n)`), which tsserver relates to it; depth 1
//!   left such calls out, deeper levels took tsserver's list as it came.
//! - F2: renaming `ObservableSet.add` gave no warning, though the class no longer implements
//!   `Set` after it and tsserver's edit renames the calls on plain `Set`s too: tsc then failed.
//!
//! Ground truth: tsc (clean before; after the rename it reports the broken `implements`); which
//! method each call reaches is fixed by construction (the receivers' declared types).

use crate::support;

use serde_json::json;

const OBSERVABLE_SET: &str = "export function propagate(): void {}\n\nexport class ObservableSet implements Set<number> {\n  private data_ = new Set<number>()\n  get size(): number {\n    return this.data_.size\n  }\n  add(value: number): this {\n    this.data_.add(value)\n    propagate()\n    return this\n  }\n  clear(): void {\n    this.data_.clear()\n  }\n  delete(value: number): boolean {\n    return this.data_.delete(value)\n  }\n  forEach(callback: (value: number, value2: number, set: Set<number>) => void): void {\n    this.data_.forEach((value) => callback(value, value, this))\n  }\n  has(value: number): boolean {\n    return this.data_.has(value)\n  }\n  entries(): IterableIterator<[number, number]> {\n    return this.data_.entries()\n  }\n  keys(): IterableIterator<number> {\n    return this.data_.keys()\n  }\n  values(): IterableIterator<number> {\n    return this.data_.values()\n  }\n  [Symbol.iterator](): IterableIterator<number> {\n    return this.data_.values()\n  }\n  get [Symbol.toStringTag](): string {\n    return 'ObservableSet'\n  }\n}\n";

const USES: &str = "import { ObservableSet } from './core'\n\nexport function addObserver(observers: Set<number>, node: number): void {\n  observers.add(node)\n}\n\nexport function track(set: ObservableSet): void {\n  set.add(1)\n}\n";

fn observable_set_workspace() -> tempfile::TempDir {
    support::workspace_with(&[
        ("package.json", "{\"name\": \"obs\", \"version\": \"1.0.0\", \"type\": \"module\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2015\", \"lib\": [\"ES2015\"], \"module\": \"ESNext\", \"moduleResolution\": \"Bundler\"}, \"include\": [\"src\"]}\n",
        ),
        ("src/core.ts", OBSERVABLE_SET),
        ("src/uses.ts", USES),
    ])
}

fn tools_or_skip(test: &str) -> bool {
    support::require_binary(test, "typescript-language-server").is_some() && support::require_binary(test, "tsc").is_some()
}

#[test]
fn deeper_incoming_calls_leave_out_calls_of_the_builtin_set_method() {
    let test = "lsp_trial133::deeper_incoming_calls_leave_out_calls_of_the_builtin_set_method";
    if !tools_or_skip(test) {
        return;
    }
    let dir = observable_set_workspace();
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    let run = support::lsp_run_allowing_writes(dir.path());
    let text =
        support::call_ok(&run, "lsp", json!({"op": "incoming_calls", "file": "src/core.ts", "line": 1, "symbol": "propagate", "depth": 2}));
    // Ground truth: `propagate` ← `ObservableSet.add` ← `track` (`set.add(1)` on an
    // ObservableSet); `observers.add(node)` calls the built-in `Set.add`.
    assert!(text.contains("export function track(set: ObservableSet): void {"), "the real caller is missing:\n{text}");
    assert!(!text.contains("export function addObserver("), "a call of the built-in Set.add is listed as a caller:\n{text}");
    assert!(text.contains("note: left out below depth 1: 2 call sites") && text.contains("src/uses.ts:4 in `addObserver`"), "{text}");
}

#[test]
fn renaming_a_member_a_builtin_interface_requires_is_warned_of() {
    let test = "lsp_trial133::renaming_a_member_a_builtin_interface_requires_is_warned_of";
    if !tools_or_skip(test) {
        return;
    }
    let dir = observable_set_workspace();
    let run = support::lsp_run_allowing_writes(dir.path());
    let text = support::call_ok(
        &run,
        "lsp_rename",
        json!({"file": "src/core.ts", "line": 8, "symbol": "add", "new_name": "addItem", "preview": true}),
    );
    assert!(
        text.contains("WARNING: `ObservableSet.add` implements `add` of the interface `Set` (declared outside the workspace")
            && text.contains("keep the name `add`"),
        "{text}"
    );
    // Ground truth: written, the rename breaks tsc (the class no longer implements `Set`).
    let edit_id = text.split("edit_id \"").nth(1).and_then(|rest| rest.split('"').next()).expect("an edit_id").to_owned();
    support::call_ok(&run, "resolve", json!({"edit_id": edit_id, "action": "accept"}));
    let errors = support::tsc_errors(dir.path());
    assert!(errors.iter().any(|error| error.contains("incorrectly implements interface")), "{errors:?}");
}
