//! Wrong `incoming_calls` answers from the fresh-user trial 149 (immer 10.1.1), against the real
//! typescript-language-server, on a fixture of the same shape: a class whose methods a module
//! exports through one instance (`export const produce = immer.produce`,
//! `export const createDraft = immer.createDraft.bind(immer)`), and a consumer calling them.
//!
//! - F1: the property read `export const add = counter.add` (nothing after the name on its
//!   line) was counted a call site; it only names the method, as a value.
//! - F2: the calls through a name assigned a `.bind` copy (`counter.reset.bind(counter)`, also
//!   with bound arguments) were neither listed nor named as not followed, where a plain alias's
//!   are.
//! - The getter's property reads stay calls (reading the property runs it).
//!
//! Ground truth: tsc (clean) and the fixture's text: `add` is called at counter.ts:19 (twice)
//! and app.ts:13, and through `add` at app.ts:5; `reset` is called through `reset` at app.ts:5
//! and app.ts:9 and through `resetTo` at app.ts:9; `size` is read at app.ts:13 and index.ts:8.

use crate::support;

use serde_json::{json, Value};

const COUNTER: &str = "export function clamp(n: number): number {\n  return Math.max(0, n)\n}\n\nexport class Counter {\n  total = 0\n\n  add(n: number): number {\n    this.total += clamp(n)\n    return this.total\n  }\n\n  reset(to: number): number {\n    this.total = clamp(to)\n    return this.total\n  }\n\n  double(n: number): number {\n    return this.add(n) + this.add(n)\n  }\n\n  get size(): number {\n    return this.total\n  }\n}\n";

const INDEX: &str = "import { Counter } from './counter'\n\nconst counter = new Counter()\n\nexport const add = counter.add\nexport const reset = counter.reset.bind(counter)\nexport const resetTo = counter.reset.bind(counter, 5)\nexport const size = counter.size\n";

const APP: &str = "import { add, reset, resetTo } from '../src/index'\nimport { Counter } from '../src/counter'\n\nexport function start(): number {\n  return add(1) + reset(0)\n}\n\nexport function restart(): number {\n  return reset(2) + resetTo()\n}\n\nexport function direct(c: Counter): number {\n  return c.size + c.add(3)\n}\n";

/// The fixture and a run with language servers on it; `None` when a tool is missing.
fn fixture(test: &str) -> Option<(tempfile::TempDir, runbound::Run)> {
    support::require_binary(test, "typescript-language-server")?;
    support::require_binary(test, "tsc")?;
    let dir = support::workspace_with(&[
        ("package.json", "{\"name\": \"counterlib\", \"version\": \"1.0.0\"}\n"),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"ES2020\", \"lib\": [\"ES2020\"], \"module\": \"commonjs\"}, \"include\": [\"src\", \"consumer\"]}\n",
        ),
        ("src/counter.ts", COUNTER),
        ("src/index.ts", INDEX),
        ("consumer/app.ts", APP),
    ]);
    assert_eq!(support::tsc_errors(dir.path()), Vec::<String>::new());
    let run = runbound::Run::builder(dir.path()).language_servers().build().expect("build run");
    Some((dir, run))
}

/// The answer's text and structured content, asserted not an error.
fn incoming(run: &runbound::Run, arguments: Value) -> (String, Value) {
    let result = run.call(runbound::Caller::Main, "lsp", arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "lsp {arguments} failed:\n{text}");
    (text, result.structured_content.expect("structured content"))
}

/// The call sites of the entries at `depth`: (path, line, calls, value references).
fn call_sites(structured: &Value, depth: u64) -> Vec<(String, u64, u64, u64)> {
    let mut sites: Vec<(String, u64, u64, u64)> = structured["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|result| result["depth"] == depth)
        .flat_map(|result| result["call_sites"].as_array().expect("call sites").iter())
        .map(|site| {
            (
                site["path"].as_str().expect("path").to_owned(),
                site["line"].as_u64().expect("line"),
                site["calls"].as_u64().expect("calls"),
                site["value_references"].as_u64().expect("value references"),
            )
        })
        .collect();
    sites.sort();
    sites
}

/// A bound name `alias_calls` reports: (name, binding, binding line, call sites as (path, line)).
type AliasReport = (String, String, u64, Vec<(String, u64)>);

/// Each bound name `alias_calls` reports.
fn alias_calls(structured: &Value) -> Vec<AliasReport> {
    structured
        .get("alias_calls")
        .and_then(Value::as_array)
        .map(|aliases| {
            aliases
                .iter()
                .map(|alias| {
                    let sites = alias["call_sites"]
                        .as_array()
                        .expect("alias call sites")
                        .iter()
                        .map(|site| (site["path"].as_str().expect("path").to_owned(), site["line"].as_u64().expect("line")))
                        .collect();
                    (
                        alias["name"].as_str().expect("name").to_owned(),
                        alias["binding"].as_str().expect("binding").to_owned(),
                        alias["line"].as_u64().expect("line"),
                        sites,
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn site(path: &str, line: u64) -> (String, u64) {
    (path.to_owned(), line)
}

/// F1: `export const add = counter.add` reads the method; it is labelled a value reference
/// (0 calls), binds `add`, whose call is listed after the callers.
#[test]
fn incoming_calls_label_a_property_read_assigned_to_a_name_a_value_and_follow_the_name() {
    let Some((_dir, run)) = fixture("lsp_trial149::incoming_calls_label_a_property_read_assigned_to_a_name_a_value_and_follow_the_name")
    else {
        return;
    };
    let (text, structured) = incoming(&run, json!({"op": "incoming_calls", "file": "src/counter.ts", "line": 8, "symbol": "add"}));
    assert!(
        text.contains(
            "incoming calls of method add (src/counter.ts:8): 3 callers, 4 call sites (1 of them referenced as a value, not called) — and 1 call site through 1 other name bound to it, which this call hierarchy leaves out"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "      5: export const add = counter.add   (referenced as a value, not called: binds `add`, calls through it listed below)\n"
        ),
        "{text}"
    );
    assert_eq!(
        call_sites(&structured, 1),
        [("consumer/app.ts".to_owned(), 13, 1, 0), ("src/counter.ts".to_owned(), 19, 2, 0), ("src/index.ts".to_owned(), 5, 0, 1),],
        "{text}"
    );
    assert_eq!(
        alias_calls(&structured),
        [("add".to_owned(), "a name assigned it".to_owned(), 5, vec![site("consumer/app.ts", 5)])],
        "{text}"
    );
}

/// F2: `counter.reset.bind(counter)` and `.bind(counter, 5)` assigned to names are followed like
/// a plain alias: their calls are listed; at depth 2 (aliases of a followed caller not walked)
/// the note names them.
#[test]
fn incoming_calls_follow_names_assigned_a_bind_copy_of_the_method() {
    let Some((_dir, run)) = fixture("lsp_trial149::incoming_calls_follow_names_assigned_a_bind_copy_of_the_method") else {
        return;
    };
    let (text, structured) = incoming(&run, json!({"op": "incoming_calls", "file": "src/counter.ts", "line": 13, "symbol": "reset"}));
    assert!(
        text.contains(
            "incoming calls of method reset (src/counter.ts:13): 1 caller, 2 call sites (2 of them referenced as a value, not called) — and 3 call sites through 2 other names bound to it, which this call hierarchy leaves out"
        ),
        "{text}"
    );
    assert!(!text.contains("no call site calls it here"), "{text}");
    assert_eq!(call_sites(&structured, 1), [("src/index.ts".to_owned(), 6, 0, 1), ("src/index.ts".to_owned(), 7, 0, 1)], "{text}");
    let bound = "a name assigned its `.bind` copy".to_owned();
    assert_eq!(
        alias_calls(&structured),
        [
            ("reset".to_owned(), bound.clone(), 6, vec![site("consumer/app.ts", 5), site("consumer/app.ts", 9)]),
            ("resetTo".to_owned(), bound, 7, vec![site("consumer/app.ts", 9)]),
        ],
        "{text}"
    );
    // Depth 2 from `clamp`: `reset` is a followed caller; the calls through its bound names are
    // not entries of the walk, and are named.
    let (text, structured) =
        incoming(&run, json!({"op": "incoming_calls", "file": "src/counter.ts", "line": 1, "symbol": "clamp", "depth": 2}));
    assert!(
        text.contains(
            "incoming calls of function clamp (src/counter.ts:1): 5 callers, 8 call sites (3 of them referenced as a value, not called), 2 levels deep"
        ),
        "{text}"
    );
    assert_eq!(
        call_sites(&structured, 2),
        [
            ("consumer/app.ts".to_owned(), 13, 1, 0),
            ("src/counter.ts".to_owned(), 19, 2, 0),
            ("src/index.ts".to_owned(), 5, 0, 1),
            ("src/index.ts".to_owned(), 6, 0, 1),
            ("src/index.ts".to_owned(), 7, 0, 1),
        ],
        "{text}"
    );
    assert!(
        text.contains(
            "note: for the depth-1 caller `reset` (src/counter.ts:13), whose callers depth 2 lists — NOT in this answer: calls through other names bound to `reset` (typescript-language-server's call hierarchy lists only calls of the function's own name): through `reset` (src/index.ts:6): 2 call sites — consumer/app.ts:5, consumer/app.ts:9; through `resetTo` (src/index.ts:7): 1 call site — consumer/app.ts:9 — incoming_calls at `reset` lists them"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "note: for the depth-1 caller `add` (src/counter.ts:8), whose callers depth 2 lists — NOT in this answer: calls through other names bound to `add` (typescript-language-server's call hierarchy lists only calls of the function's own name): through `add` (src/index.ts:5): 1 call site — consumer/app.ts:5 — incoming_calls at `add` lists them"
        ),
        "{text}"
    );
}

/// A getter's property reads are its calls: `c.size + …` and `= counter.size` are no value
/// references, and the name assigned the read value binds no accessor.
#[test]
fn incoming_calls_of_a_getter_count_its_property_reads_as_calls() {
    let Some((_dir, run)) = fixture("lsp_trial149::incoming_calls_of_a_getter_count_its_property_reads_as_calls") else {
        return;
    };
    let (text, structured) = incoming(&run, json!({"op": "incoming_calls", "file": "src/counter.ts", "line": 22, "symbol": "size"}));
    assert!(text.contains("incoming calls of property size (src/counter.ts:22): 2 callers, 2 call sites\n"), "{text}");
    assert!(!text.contains("referenced as a value"), "{text}");
    assert_eq!(call_sites(&structured, 1), [("consumer/app.ts".to_owned(), 13, 1, 0), ("src/index.ts".to_owned(), 8, 1, 0)], "{text}");
    assert_eq!(alias_calls(&structured), [], "{text}");
}
