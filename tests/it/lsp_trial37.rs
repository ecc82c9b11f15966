//! Wrong answers from the fresh-user trial 37 (@tanstack/store 0.11.3's `src`), against the real
//! typescript-language-server and tsc on fixtures of the same shape:
//! - F1: renaming `Store.setState` said "public API changed: … `StoreActionsFactory.setState`
//!   becomes `updateState`" — the edit only changed the key string of `Store<T>['setState']` on
//!   that line; the member that did change, `Store.setState`, was never named.
//!
//! Ground truth: the rename's own diff, and tsc.

use crate::support;

use runbound::Caller;
use serde_json::json;

fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
    let mut all: Vec<(&str, &str)> = vec![
        ("package.json", "{\"name\": \"storelike\", \"version\": \"0.1.0\", \"types\": \"dist/index.d.ts\", \"source\": \"src/index.ts\"}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/index.ts", "export * from './store';\n"),
    ];
    all.extend_from_slice(files);
    support::workspace_with(&all)
}

/// F1: the public-API note names the member whose own name the rename changed, not a member of
/// another type whose line holds the name only in an indexed-access key.
#[test]
fn the_public_api_note_of_a_member_rename_names_the_member_it_renames() {
    let test = "lsp_trial37::the_public_api_note_of_a_member_rename_names_the_member_it_renames";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = package(&[(
        "src/store.ts",
        "export type StoreActionsFactory = (store: { setState: Store['setState'] }) => void;\n\nexport class Store {\n  value = 0;\n  setState(value: number): void {\n    this.value = value;\n  }\n}\n",
    )]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/store.ts", "line": 5, "symbol": "setState", "new_name": "updateState", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("Store['updateState']"), "tsserver renames the key string: is the fixture still F1's?\n{text}");
    assert!(
        text.contains("note: public API changed: src/store.ts:5 declares `setState`, a member of the exported class `Store`"),
        "the renamed member is not named:\n{text}"
    );
    assert!(!text.contains("`StoreActionsFactory.setState` to"), "a member the rename leaves is named:\n{text}");
}

/// F2: an object typed with an object type that holds the interface in a property (`const ref:
/// { current?: I } = {}`) is a container of it, not a value that implements it.
#[test]
fn an_object_that_holds_an_interface_in_a_property_is_no_implementation_of_it() {
    let test = "lsp_trial37::an_object_that_holds_an_interface_in_a_property_is_no_implementation_of_it";
    if support::require_binary(test, "typescript-language-server").is_none() {
        return;
    }
    let dir = package(&[
        ("src/store.ts", "export interface InternalAtom {\n  flags: number;\n}\n"),
        (
            "src/atom.ts",
            "import type { InternalAtom } from './store';\n\nexport function make(): number {\n  const ref: { current?: InternalAtom } = {};\n  const atom: InternalAtom = { flags: 1 };\n  ref.current = atom;\n  return ref.current.flags;\n}\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result =
        run.call(Caller::Main, "lsp", json!({"op": "implementation", "file": "src/store.ts", "line": 1, "symbol": "InternalAtom"}));
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("src/atom.ts:4:"), "tsserver no longer lists the box: is the fixture still F2's?\n{text}");
    let note = text.lines().find(|line| line.starts_with("note: of these locations:")).unwrap_or_else(|| panic!("{text}"));
    let declared = note.split("checked by the compiler").next().unwrap_or_default();
    assert!(note.contains("src/atom.ts:5"), "the annotated value implements it:\n{note}");
    assert!(!declared.contains("src/atom.ts:4"), "the box is called an implementation:\n{note}");
    assert!(note.contains("object type holding `InternalAtom`") && note.contains("src/atom.ts:4"), "{note}");
}

/// F4: renaming `Readable.get` said "no new errors" while the objects that become `Atom`s only
/// through `as unknown as Atom` keep their `get`, and every use threw at run time. The preview
/// warns of the double casts.
#[test]
fn a_member_rename_warns_of_values_made_by_double_casts_to_its_type_or_a_subtype() {
    let test = "lsp_trial37::a_member_rename_warns_of_values_made_by_double_casts_to_its_type_or_a_subtype";
    if support::require_binary(test, "typescript-language-server").is_none() || support::require_binary(test, "tsc").is_none() {
        return;
    }
    let dir = package(&[
        ("src/store.ts", "export interface Readable {\n  get(): number;\n}\n\nexport interface Atom extends Readable {\n  set(value: number): void;\n}\n"),
        (
            "src/atom.ts",
            "import type { Atom } from './store';\n\ninterface InternalAtom {\n  value: number;\n  get(): number;\n}\n\nexport function createAtom(value: number): Atom {\n  const atom: InternalAtom = { value, get() { return this.value; } };\n  return atom as unknown as Atom;\n}\n\nexport const first = createAtom(1).get();\n",
        ),
    ]);
    let run = support::lsp_run_allowing_writes(dir.path());
    let result = run.call(
        Caller::Main,
        "lsp_rename",
        json!({"file": "src/store.ts", "line": 2, "symbol": "get", "new_name": "read", "preview": true}),
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let warning =
        text.lines().find(|line| line.starts_with("WARNING: 1 double cast through `unknown`/`any`")).unwrap_or_else(|| panic!("{text}"));
    assert!(warning.contains("`Readable`, `Atom`") && warning.contains("src/atom.ts:10"), "{warning}");
    // Ground truth: accepted as proposed, tsc is clean (the break is at run time only).
    let accepted = run.call(Caller::Main, "resolve", json!({"edit_id": "edit_1", "action": "accept"}));
    assert!(!accepted.is_error, "{}", accepted.joined_text());
    assert!(support::tsc_errors(dir.path()).is_empty(), "{:?}", support::tsc_errors(dir.path()));
    let atom = std::fs::read_to_string(dir.path().join("src/atom.ts")).unwrap();
    assert!(atom.contains("get() { return this.value; }"), "the cast object's member is not renamed by the server: {atom}");
}
