//! `lsp` call and type hierarchies (`incoming_calls`, `outgoing_calls`, `supertypes`,
//! `subtypes`) on real servers over the fixtures in `tests/data/lsp_hierarchy/`: the same call
//! graph in Python (pyright), TypeScript (typescript-language-server), Go (gopls) and Rust
//! (rust-analyzer) — `helper` ← `step_a` (twice), `step_b` ← `run_all` ← `main_entry`, a
//! recursive `countdown` — and a C++ class hierarchy for clangd (`Shape` ← `Polygon` ← `Square`,
//! `Shape` ← `Circle`).
//!
//! Ground truth for callers is grep: every line of the fixture that calls the function (its name
//! followed by `(`, not its definition, not an import) must be a listed call site, and no other.
//!
//! Which installed server implements what (probed at `initialize` and by calling):
//! call hierarchy — pyright, basedpyright, typescript-language-server, gopls, rust-analyzer, and
//! clangd 19 for incoming calls only (it advertises the capability but answers
//! `callHierarchy/outgoingCalls` with "method not found"); pylsp has none. Type hierarchy —
//! clangd only; gopls (Debian's), rust-analyzer, pyright and typescript-language-server do not
//! offer it, and the error says so instead of an empty list.

use crate::support;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use runbound::lsp::LspConfig;
use runbound::{Caller, Run, RunConfig, ToolResult};
use serde_json::{json, Value};

fn lsp_run(workspace: &Path, configure: impl FnOnce(&mut LspConfig)) -> Run {
    let mut config = RunConfig::default();
    configure(&mut config.lsp);
    Run::builder(workspace).config(config).language_servers().build().expect("build run")
}

fn call(run: &Run, arguments: Value) -> ToolResult {
    run.call(Caller::Readonly, "lsp", arguments)
}

fn ok(run: &Run, arguments: Value) -> (String, Value) {
    let result = call(run, arguments.clone());
    let text = result.joined_text();
    assert!(!result.is_error, "expected success for {arguments}, got:\n{text}");
    (text, result.structured_content.expect("structured content"))
}

fn err(run: &Run, arguments: Value) -> String {
    let result = call(run, arguments.clone());
    let text = result.joined_text();
    assert!(result.is_error, "expected an error for {arguments}, got:\n{text}");
    text
}

/// Waits until the server `id` reports ready (rust-analyzer indexes the sysroot first).
fn wait_ready(run: &Run, id: &str, timeout: Duration) {
    let start = Instant::now();
    loop {
        let status = call(run, json!({"op": "status"})).structured_content.expect("status json");
        let ready =
            status["servers"].as_array().unwrap().iter().filter(|server| server["id"] == id).any(|server| {
                server["roots"].as_array().unwrap().iter().any(|root| root["running"]["readiness"].as_str() == Some("ready"))
            });
        if ready {
            return;
        }
        assert!(start.elapsed() < timeout, "{id} not ready after {timeout:?}: {status}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// `(path, line)` of every line in the workspace's `extension` files that calls `name`: the
/// name followed by `(`, on a line that is not its definition and not an import.
fn grep_call_sites(workspace: &Path, extension: &str, name: &str) -> BTreeSet<(String, u64)> {
    let mut sites = BTreeSet::new();
    let needle = format!("{name}(");
    for entry in walk(workspace) {
        if entry.extension().and_then(|e| e.to_str()) != Some(extension) {
            continue;
        }
        let relative = entry.strip_prefix(workspace).unwrap().display().to_string();
        let text = std::fs::read_to_string(&entry).unwrap();
        for (index, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            let definition = ["def ", "fn ", "pub fn ", "func ", "function ", "export function ", "double "]
                .iter()
                .any(|keyword| trimmed.starts_with(&format!("{keyword}{needle}")));
            let import = trimmed.starts_with("from ") || trimmed.starts_with("import ") || trimmed.starts_with("use ");
            // A whole-word match: the character before the name is not part of an identifier.
            let called = line
                .match_indices(&needle)
                .any(|(at, _)| line[..at].chars().next_back().is_none_or(|before| !(before.is_alphanumeric() || before == '_')));
            if called && !definition && !import {
                sites.insert((relative.clone(), index as u64 + 1));
            }
        }
    }
    sites
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), "target" | "node_modules" | ".git") {
                files.extend(walk(&path));
            }
        } else {
            files.push(path);
        }
    }
    files
}

/// The `(path, line)` call sites of the results at `depth`.
fn listed_call_sites(structured: &Value, depth: u64) -> BTreeSet<(String, u64)> {
    let mut sites = BTreeSet::new();
    for result in structured["results"].as_array().unwrap().iter().filter(|result| result["depth"] == depth) {
        for site in result["call_sites"].as_array().unwrap() {
            sites.insert((site["path"].as_str().unwrap().to_owned(), site["line"].as_u64().unwrap()));
        }
    }
    sites
}

fn names_at(structured: &Value, depth: u64) -> BTreeSet<String> {
    structured["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result["depth"] == depth)
        .map(|result| result["name"].as_str().unwrap().to_owned())
        .collect()
}

fn result_named<'a>(structured: &'a Value, name: &str) -> &'a Value {
    structured["results"].as_array().unwrap().iter().find(|result| result["name"] == name).unwrap_or_else(|| {
        // The names and kinds first: the whole answer can be cut in the test log.
        let listed: Vec<String> = structured["results"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|result| format!("{} {} ({})", result["kind"], result["name"], result["detail"]))
            .collect();
        panic!("no {name} among the results {listed:?} in {structured}")
    })
}

/// The names of one fixture's call graph and where its functions are defined (1-based lines).
struct CallGraph {
    extension: &'static str,
    basics: &'static str,
    pipeline: &'static str,
    helper: &'static str,
    helper_line: u32,
    step_a: &'static str,
    step_b: &'static str,
    run_all: &'static str,
    run_all_line: u32,
    main_entry: &'static str,
    countdown: &'static str,
    countdown_line: u32,
    /// The dependency origin of a library call in `run_all` (`typeshed`, `node_modules`, …).
    library_origin: &'static str,
}

/// The call-hierarchy checks every server gets on the shared call graph.
fn check_call_graph(run: &Run, workspace: &Path, graph: &CallGraph) {
    // Incoming calls of `helper`, 3 levels, against grep.
    let (text, structured) =
        ok(run, json!({"op": "incoming_calls", "file": graph.basics, "line": graph.helper_line, "symbol": graph.helper, "depth": 3}));
    let expected: BTreeSet<String> = [graph.step_a, graph.step_b].iter().map(|name| name.to_string()).collect();
    assert_eq!(names_at(&structured, 1), expected, "{text}");
    let grep = grep_call_sites(workspace, graph.extension, graph.helper);
    assert_eq!(grep.len(), 3, "the fixture calls {} three times: {grep:?}", graph.helper);
    assert_eq!(listed_call_sites(&structured, 1), grep, "call sites of {} vs grep:\n{text}", graph.helper);
    assert_eq!(names_at(&structured, 2), BTreeSet::from([graph.run_all.to_owned()]), "{text}");
    let run_all = result_named(&structured, graph.run_all);
    let via: BTreeSet<&str> = run_all["via"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(via, BTreeSet::from([graph.step_a, graph.step_b]), "{text}");
    assert_eq!(names_at(&structured, 3), BTreeSet::from([graph.main_entry.to_owned()]), "{text}");
    // Depth-2 call sites are grep's call sites of the depth-1 callers.
    let mut grep_depth_2 = grep_call_sites(workspace, graph.extension, graph.step_a);
    grep_depth_2.extend(grep_call_sites(workspace, graph.extension, graph.step_b));
    assert_eq!(listed_call_sites(&structured, 2), grep_depth_2, "{text}");
    assert!(text.contains(&format!("depth 1 — 2 callers of function {}", graph.helper)), "{text}");
    assert!(text.contains("depth 2 — 1 caller of the depth-1 callers in 1 file:"), "{text}");
    assert!(text.contains(&format!("calls {}, {}", graph.step_a, graph.step_b)), "{text}");
    assert!(text.contains(&format!("{} (1):", graph.pipeline)), "grouped per file:\n{text}");
    assert_eq!(structured["total"], 4, "{text}");

    // Depth 1 only: the answer offers the next level.
    let (text, structured) =
        ok(run, json!({"op": "incoming_calls", "file": graph.basics, "line": graph.helper_line, "symbol": graph.helper}));
    assert_eq!(structured["total"], 2, "{text}");
    assert!(text.contains("(\"depth\": 2 follows one level further)"), "{text}");

    // Outgoing calls of `run_all`: the two steps in the workspace, the library call marked as
    // dependency code and not followed; depth 2 reaches `helper` through both steps.
    let (text, structured) =
        ok(run, json!({"op": "outgoing_calls", "file": graph.pipeline, "line": graph.run_all_line, "symbol": graph.run_all, "depth": 2}));
    let depth_1 = names_at(&structured, 1);
    assert!(depth_1.contains(graph.step_a) && depth_1.contains(graph.step_b), "{text}");
    let step_a = result_named(&structured, graph.step_a);
    let sites: Vec<(String, u64)> = step_a["call_sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|site| (site["path"].as_str().unwrap().to_owned(), site["line"].as_u64().unwrap()))
        .collect();
    let grep_step_a: Vec<(String, u64)> = grep_call_sites(workspace, graph.extension, graph.step_a).into_iter().collect();
    assert_eq!(sites, grep_step_a, "outgoing call sites lie in the caller:\n{text}");
    let library: Vec<&Value> = structured["results"].as_array().unwrap().iter().filter(|result| result["class"] != "workspace").collect();
    assert!(!library.is_empty(), "run_all calls a library function:\n{text}");
    for entry in &library {
        assert_eq!(entry["followed"], "dependency code", "{text}");
    }
    assert!(library.iter().any(|entry| entry["origin"] == graph.library_origin), "{text}");
    assert!(text.contains(&format!("[{}]", graph.library_origin)) && text.contains("dependency code; not followed"), "{text}");
    assert_eq!(names_at(&structured, 2), BTreeSet::from([graph.helper.to_owned()]), "{text}");

    // Recursion is listed once and said, never followed forever.
    let (text, structured) =
        ok(run, json!({"op": "incoming_calls", "file": graph.basics, "line": graph.countdown_line, "symbol": graph.countdown, "depth": 3}));
    assert_eq!(structured["total"], 1, "{text}");
    assert_eq!(result_named(&structured, graph.countdown)["followed"], "recursive", "{text}");
    assert!(text.contains("recursive: the queried item itself"), "{text}");
}

#[test]
fn call_hierarchy_on_pyright_matches_grep_and_pylsp_names_pyright() {
    if support::require_binary("lsp_hierarchy::call_hierarchy_on_pyright", "pyright-langserver").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_hierarchy/python");
    let run = lsp_run(workspace.path(), |_| ());
    check_call_graph(
        &run,
        workspace.path(),
        &CallGraph {
            extension: "py",
            basics: "basics.py",
            pipeline: "pipeline.py",
            helper: "helper",
            helper_line: 1,
            step_a: "step_a",
            step_b: "step_b",
            run_all: "run_all",
            run_all_line: 8,
            main_entry: "main_entry",
            countdown: "countdown",
            countdown_line: 10,
            library_origin: "typeshed",
        },
    );
    // pyright lists each typeshed overload of `max`; they are one entry with its overloads said.
    let (text, structured) = ok(&run, json!({"op": "outgoing_calls", "file": "pipeline.py", "line": 8, "symbol": "run_all"}));
    let max = result_named(&structured, "max");
    assert!(!max["overload_lines"].as_array().unwrap().is_empty(), "{text}");
    assert!(text.contains("more definitions of the name at lines"), "{text}");

    // pyright gives a method the kind of a function; the `self` that says it is a method may
    // sit on the line after `def name(` (itsdangerous serializer.py:192 `def __init__(` was
    // labelled `[function __init__]`): the whole header is read, not only the name's line.
    let methods = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"shapes\"\nversion = \"0\"\n"),
        (
        "shapes.py",
        "def area(size: int) -> int:\n    return size * size\n\n\nclass Square:\n    def __init__(\n        self,\n        size: int,\n    ) -> None:\n        self.size = size\n        self.total = area(size)\n\n    def again(self) -> int:\n        return area(self.size)\n\n    @classmethod\n    def build(\n        cls,  # the class (\n        size: int = 2,\n    ) -> \"Square\":\n        area(size)\n        return cls(size)\n\n\ndef plain(\n    selfish: int,\n) -> int:\n    return area(selfish)\n",
        ),
    ]);
    let methods_run = lsp_run(methods.path(), |_| ());
    let (text, structured) = ok(&methods_run, json!({"op": "incoming_calls", "file": "shapes.py", "line": 1, "symbol": "area"}));
    let kinds: BTreeSet<(String, String)> = structured["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| (result["name"].as_str().unwrap().to_owned(), result["kind"].as_str().unwrap().to_owned()))
        .collect();
    // A method is named with its class (mbatch23 item 7).
    let expected: BTreeSet<(String, String)> =
        [("Square.__init__", "method"), ("Square.again", "method"), ("Square.build", "method"), ("plain", "function")]
            .iter()
            .map(|(name, kind)| ((*name).to_owned(), (*kind).to_owned()))
            .collect();
    assert_eq!(kinds, expected, "{text}");
    assert!(
        text.contains("[method Square.__init__]") && text.contains("[method Square.build]") && text.contains("[function plain]"),
        "{text}"
    );

    // pylsp has no call hierarchy: the error names pyright, which has it.
    if support::require_binary("lsp_hierarchy::call_hierarchy_on_pyright (pylsp)", "pylsp").is_some() {
        let text = err(&run, json!({"op": "incoming_calls", "file": "basics.py", "line": 1, "symbol": "helper", "server": "pylsp"}));
        assert!(
            text.contains("incoming_calls is unsupported by pylsp") && text.contains("pyright, also installed for basics.py, offers it"),
            "{text}"
        );
        assert!(text.contains("\"server\": \"pyright\""), "{text}");
    }
    // No Python server here has a type hierarchy: said, never an empty list.
    let text = err(&run, json!({"op": "supertypes", "file": "basics.py", "line": 5, "symbol": "step_a"}));
    assert!(text.contains("supertypes is unsupported by pyright") && text.contains("textDocument/prepareTypeHierarchy"), "{text}");
    assert!(
        text.contains("do not offer it either") || text.contains("no other installed server") || text.contains("not started in this run"),
        "{text}"
    );
}

#[test]
fn call_hierarchy_on_typescript_language_server_matches_grep() {
    if support::require_binary("lsp_hierarchy::call_hierarchy_on_typescript", "typescript-language-server").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_hierarchy/typescript");
    let run = lsp_run(workspace.path(), |_| ());
    check_call_graph(
        &run,
        workspace.path(),
        &CallGraph {
            extension: "ts",
            basics: "src/basics.ts",
            pipeline: "src/pipeline.ts",
            helper: "helper",
            helper_line: 1,
            step_a: "stepA",
            step_b: "stepB",
            run_all: "runAll",
            run_all_line: 7,
            main_entry: "mainEntry",
            countdown: "countdown",
            countdown_line: 10,
            library_origin: "node_modules outside the workspace",
        },
    );
    // typescript-language-server repeats identical call ranges; a call is listed once.
    let (text, structured) = ok(&run, json!({"op": "outgoing_calls", "file": "src/pipeline.ts", "line": 7, "symbol": "runAll"}));
    let log = result_named(&structured, "log");
    assert_eq!(log["call_sites"].as_array().unwrap().len(), 1, "{text}");
    assert_eq!(log["call_sites"][0]["calls"], 1, "{text}");
    let text = err(&run, json!({"op": "subtypes", "file": "src/basics.ts", "line": 1, "symbol": "helper"}));
    assert!(text.contains("subtypes is unsupported by typescript-language-server"), "{text}");
    // The next step names the op that answers the question on this server (trial25 M).
    assert!(text.contains("{\"op\": \"implementation\"}"), "{text}");
}

#[test]
fn call_hierarchy_on_gopls_matches_grep_and_type_hierarchy_is_said_missing() {
    if support::require_binary("lsp_hierarchy::call_hierarchy_on_gopls", "gopls").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_hierarchy/go");
    let run = lsp_run(workspace.path(), |_| ());
    check_call_graph(
        &run,
        workspace.path(),
        &CallGraph {
            extension: "go",
            basics: "basics.go",
            pipeline: "pipeline.go",
            helper: "Helper",
            helper_line: 4,
            step_a: "StepA",
            step_b: "StepB",
            run_all: "RunAll",
            run_all_line: 11,
            main_entry: "MainEntry",
            countdown: "Countdown",
            countdown_line: 15,
            library_origin: "go stdlib",
        },
    );
    // Debian's gopls offers no type hierarchy (newer gopls does): on interfaces the answer is
    // an error saying so and that no other installed server serves Go, never an empty list.
    for op in ["supertypes", "subtypes"] {
        let text = err(&run, json!({"op": op, "file": "shapes.go", "line": 4, "symbol": "Shape"}));
        assert!(text.contains(&format!("{op} is unsupported by gopls")), "{text}");
        assert!(text.contains("textDocument/prepareTypeHierarchy"), "{text}");
        assert!(text.contains("no other installed server serves shapes.go"), "{text}");
        // gopls' serverInfo.version is its whole build info as JSON (~500 bytes): the answer
        // names its module version, never the JSON (trial25 M).
        assert!(!text.contains("\"GoVersion\"") && !text.contains("\"Settings\""), "{text}");
        let next_op = if op == "subtypes" { "{\"op\": \"implementation\"}" } else { "{\"op\": \"definition\"}" };
        assert!(text.contains(next_op), "{text}");
    }
}

#[test]
fn call_hierarchy_on_rust_analyzer_matches_grep() {
    if support::require_binary("lsp_hierarchy::call_hierarchy_on_rust_analyzer", "rust-analyzer").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_hierarchy/rust");
    let run = lsp_run(workspace.path(), |_| ());
    // Start it (the first answer may time out while it indexes the sysroot on a loaded machine)
    // and wait for indexing: a call hierarchy asked mid-index is partial (and says so).
    let _ = call(&run, json!({"op": "hover", "file": "src/basics.rs", "line": 1, "symbol": "helper"}));
    wait_ready(&run, "rust-analyzer", Duration::from_secs(240));
    check_call_graph(
        &run,
        workspace.path(),
        &CallGraph {
            extension: "rs",
            basics: "src/basics.rs",
            pipeline: "src/pipeline.rs",
            helper: "helper",
            helper_line: 1,
            step_a: "step_a",
            step_b: "step_b",
            run_all: "run_all",
            run_all_line: 7,
            main_entry: "main_entry",
            countdown: "countdown",
            countdown_line: 10,
            library_origin: "rust sysroot",
        },
    );
    let text = err(&run, json!({"op": "supertypes", "file": "src/basics.rs", "line": 1, "symbol": "helper"}));
    assert!(text.contains("supertypes is unsupported by rust-analyzer"), "{text}");
}

#[test]
fn type_hierarchy_on_clangd_follows_cpp_classes() {
    let Some(_) = support::require_binary("lsp_hierarchy::type_hierarchy_on_clangd", "clangd-19")
        .or_else(|| support::require_binary("lsp_hierarchy::type_hierarchy_on_clangd", "clangd"))
    else {
        return;
    };
    let workspace = support::copy_fixture("lsp_hierarchy/cpp");
    let run = lsp_run(workspace.path(), |_| ());
    // Square : Polygon : Shape.
    let (text, structured) = ok(&run, json!({"op": "supertypes", "file": "shapes.hpp", "line": 12, "symbol": "Square", "depth": 3}));
    assert_eq!(names_at(&structured, 1), BTreeSet::from(["Polygon".to_owned()]), "{text}");
    assert_eq!(names_at(&structured, 2), BTreeSet::from(["Shape".to_owned()]), "{text}");
    assert_eq!(structured["total"], 2, "{text}");
    assert!(text.contains("shapes.hpp (1):\n  8: struct Polygon : Shape {   [struct Polygon]"), "{text}");
    assert!(text.contains("[struct Shape; supertype of Polygon]"), "{text}");
    assert!(text.contains("depth 3 found nothing more: the hierarchy ends here"), "{text}");
    // Shape's subtypes: Polygon and Circle, then Square below Polygon.
    let (text, structured) = ok(&run, json!({"op": "subtypes", "file": "shapes.hpp", "line": 3, "symbol": "Shape", "depth": 2}));
    assert_eq!(names_at(&structured, 1), BTreeSet::from(["Circle".to_owned(), "Polygon".to_owned()]), "{text}");
    assert_eq!(names_at(&structured, 2), BTreeSet::from(["Square".to_owned()]), "{text}");
    assert_eq!(result_named(&structured, "Square")["via"], json!(["Polygon"]), "{text}");
    assert!(text.contains("subtype of Polygon"), "{text}");
    // Ground truth: every class whose base list names Shape (grep `: Shape`).
    let header = std::fs::read_to_string(workspace.path().join("shapes.hpp")).unwrap();
    let grep: BTreeSet<String> = header
        .lines()
        .filter(|line| line.contains(": Shape"))
        .filter_map(|line| line.split_whitespace().nth(1).map(str::to_owned))
        .collect();
    assert_eq!(names_at(&structured, 1), grep, "{text}");
    // clangd 19 advertises call hierarchy but has no outgoing calls: a missing capability,
    // named as such (with the server's own answer), not a failure and not an empty list.
    let result = call(&run, json!({"op": "outgoing_calls", "file": "shapes.cpp", "line": 3, "symbol": "total_area"}));
    let text = result.joined_text();
    if result.is_error {
        assert!(text.contains("outgoing_calls is unsupported by clangd") && text.contains("method not found"), "{text}");
    } else {
        // A newer clangd implements it: then total_area calls area through both references.
        assert!(text.contains("area"), "{text}");
    }
    // Incoming calls work on clangd: main calls total_area.
    let (text, structured) = ok(&run, json!({"op": "incoming_calls", "file": "shapes.cpp", "line": 3, "symbol": "total_area"}));
    assert_eq!(names_at(&structured, 1), BTreeSet::from(["main".to_owned()]), "{text}");
    assert_eq!(listed_call_sites(&structured, 1), grep_call_sites(workspace.path(), "cpp", "total_area"), "{text}");
}

#[test]
fn hierarchies_page_cap_follows_and_refuse_bad_depth() {
    if support::require_binary("lsp_hierarchy::hierarchies_page", "pyright-langserver").is_none() {
        return;
    }
    let workspace = support::copy_fixture("lsp_hierarchy/python");
    let run = lsp_run(workspace.path(), |config| {
        config.hierarchy_cap = 1;
    });
    let address = json!({"op": "incoming_calls", "file": "basics.py", "line": 1, "symbol": "helper", "depth": 3});
    let (first, structured) = ok(&run, address.clone());
    assert!(first.contains("showing 1–1 of 4; next: offset=1"), "{first}");
    assert_eq!(structured["results"].as_array().unwrap().len(), 1);
    assert_eq!(structured["page"]["next_offset"], 1);
    let mut later = address.clone();
    later["offset"] = json!(3);
    let (last, structured) = ok(&run, later);
    assert!(last.contains("showing 4–4 of 4") && !last.contains("next: offset"), "{last}");
    assert!(last.contains("depth 3 — 1 caller of the depth-2 callers"), "a later page repeats its depth header:\n{last}");
    assert!(last.contains("this page comes from the hierarchy walked"), "a later page reuses the walk:\n{last}");
    assert_eq!(structured["results"][0]["name"], "main_entry");
    let mut past = address.clone();
    past["offset"] = json!(4);
    let text = err(&run, past);
    assert!(text.contains("offset 4 is past the end: there are 4 callers"), "{text}");

    let mut too_deep = address.clone();
    too_deep["depth"] = json!(4);
    let text = err(&run, too_deep);
    assert!(text.contains("hierarchies follow 1 to 3 levels"), "{text}");
    let text = err(&run, json!({"op": "outgoing_calls", "file": "basics.py", "line": 1}));
    assert!(text.contains("needs `symbol`"), "{text}");
    drop(run);

    // The follow cap: only one depth-1 caller is followed; the other is listed and counted.
    let run = lsp_run(workspace.path(), |config| config.hierarchy_follow_cap = 1);
    let (text, structured) = ok(&run, address);
    let depth_1: Vec<&Value> = structured["results"].as_array().unwrap().iter().filter(|result| result["depth"] == 1).collect();
    assert_eq!(depth_1.len(), 2, "{text}");
    assert_eq!(depth_1.iter().filter(|result| result["followed"] == "follow cap").count(), 1, "{text}");
    assert!(text.contains("(follow cap)") && text.contains("the follow cap is 1 entry per call"), "{text}");
}

/// On a real crate (heck 0.5.0, the one the fresh-user trial used): rust-analyzer lists
/// `transform(self.0.as_ref(), lowercase, …)` — `lowercase` passed as a value — among the
/// incoming calls of `lowercase`. Each listed site is labelled by the source text there, and the
/// labels match a word search of the crate: a site whose name is followed by `(` is a call, any
/// other a value reference.
#[test]
fn incoming_calls_on_rust_analyzer_label_a_function_passed_as_a_value() {
    if support::require_binary("lsp_hierarchy::incoming_calls_value_reference", "rust-analyzer").is_none() {
        return;
    }
    let Some(workspace) = support::corpus::registry_crate("heck-0.5.0") else { return };
    let root = workspace.path();
    // Ground truth: every whole-word use of `lowercase` in code (not its definition, not a `use`).
    let mut calls = BTreeSet::new();
    let mut values = BTreeSet::new();
    let mut definition_line = 0;
    for path in walk(&root.join("src")) {
        let relative = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        for (index, line) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
            let code = line.split("//").next().unwrap();
            if code.trim_start().starts_with("use ") || !support::corpus::contains_word(code, "lowercase") {
                continue;
            }
            if code.contains("fn lowercase(") {
                definition_line = index + 1;
                continue;
            }
            let after = &code[code.find("lowercase").unwrap() + "lowercase".len()..];
            let site = (relative.clone(), index as u64 + 1);
            if after.trim_start().starts_with('(') {
                calls.insert(site);
            } else {
                values.insert(site);
            }
        }
    }
    assert!(definition_line > 0 && !values.is_empty() && !calls.is_empty(), "ground truth: calls {calls:?}, values {values:?}");
    let run = lsp_run(root, |_| ());
    let _ = call(&run, json!({"op": "hover", "file": "src/lib.rs", "line": definition_line, "symbol": "lowercase"}));
    wait_ready(&run, "rust-analyzer", Duration::from_secs(240));
    let (text, structured) =
        ok(&run, json!({"op": "incoming_calls", "file": "src/lib.rs", "line": definition_line, "symbol": "lowercase"}));
    let mut listed_calls = BTreeSet::new();
    let mut listed_values = BTreeSet::new();
    for result in structured["results"].as_array().unwrap() {
        for site in result["call_sites"].as_array().unwrap() {
            let place = (site["path"].as_str().unwrap().to_owned(), site["line"].as_u64().unwrap());
            if site["value_references"].as_u64().unwrap() > 0 {
                listed_values.insert(place.clone());
            }
            if site["calls"].as_u64().unwrap() > 0 {
                listed_calls.insert(place);
            }
        }
    }
    assert_eq!(listed_values, values, "sites that pass `lowercase` as a value:\n{text}");
    assert_eq!(listed_calls, calls, "sites that call `lowercase`:\n{text}");
    let labelled = text.lines().filter(|shown| shown.ends_with("(referenced as a value, not called)")).count();
    assert_eq!(labelled, values.len(), "each value site's line is labelled in the text:\n{text}");
}

/// `(line, call)` of the `unlisted_call_sites` of the item at `caller_depth`.
fn unlisted_sites(structured: &Value, caller_depth: u64) -> Vec<(u64, String)> {
    structured["unlisted_call_sites"]
        .as_array()
        .expect("unlisted_call_sites")
        .iter()
        .filter(|site| site["caller_depth"].as_u64() == Some(caller_depth))
        .map(|site| (site["line"].as_u64().unwrap(), site["call"].as_str().unwrap().to_owned()))
        .collect()
}

/// Lines of the call sites listed under the callee `name`.
fn listed_lines(structured: &Value, name: &str) -> Vec<u64> {
    result_named(structured, name)["call_sites"].as_array().unwrap().iter().map(|site| site["line"].as_u64().unwrap()).collect()
}

/// pyright lists no callee for a call through a `Callable` attribute or a parameter (Markdown
/// 3.11.3 `Markdown.convert`: `self.serializer(root)` was missing from "17 call sites" and
/// nothing said so); the syntax tree's calls that no listed range covers are named in a note
/// and in `unlisted_call_sites`, at depth 1 and for followed callees at depth 2.
#[test]
fn outgoing_calls_name_the_calls_pyright_resolves_to_no_function() {
    if support::require_binary("lsp_hierarchy::outgoing_calls_unlisted_pyright", "pyright-langserver").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"render\"\nversion = \"0\"\n"),
        (
            "render.py",
            "from typing import Callable\n\n\ndef escape(text: str) -> str:\n    return text.replace(\"<\", \"&lt;\")\n\n\nclass Renderer:\n    def __init__(self, serializer: Callable[[str], str]) -> None:\n        self.serializer = serializer\n\n    def render(self, source: str, hook) -> str:\n        text = escape(source)\n        output = self.serializer(text)\n        hook(output)\n        return escape(output).strip()\n\n\ndef call_back(cb) -> int:\n    return cb(1)\n\n\ndef plain(source: str) -> str:\n    call_back(len)\n    return escape(source).upper()\n",
        ),
    ]);
    let run = lsp_run(workspace.path(), |_| ());
    let (text, structured) = ok(&run, json!({"op": "outgoing_calls", "file": "render.py", "line": 12, "symbol": "render"}));
    assert_eq!(listed_lines(&structured, "escape"), [13, 16], "resolved calls stay listed:\n{text}");
    assert_eq!(listed_lines(&structured, "str.strip"), [16], "{text}");
    assert_eq!(
        unlisted_sites(&structured, 0),
        [(14, "self.serializer(text)".to_owned()), (15, "hook(output)".to_owned())],
        "the attribute and parameter calls:\n{text}"
    );
    assert!(
        text.contains(
            "note: NOT in this answer: 2 call sites in the body of `render` that pyright resolves to no function (calls through a variable, attribute or parameter are not followed): render.py:14 `self.serializer(text)`, render.py:15 `hook(output)` — read them before relying on this list"
        ),
        "{text}"
    );

    // Every call of `plain` resolves (`len` is passed, not called): no note at depth 1.
    let (text, structured) = ok(&run, json!({"op": "outgoing_calls", "file": "render.py", "line": 23, "symbol": "plain"}));
    assert_eq!(listed_lines(&structured, "call_back"), [24], "{text}");
    assert_eq!(listed_lines(&structured, "escape"), [25], "{text}");
    assert!(unlisted_sites(&structured, 0).is_empty() && !text.contains("NOT in this answer"), "{text}");
    // At depth 2 the followed callee `call_back` calls its parameter: said for that callee.
    let (text, structured) = ok(&run, json!({"op": "outgoing_calls", "file": "render.py", "line": 23, "symbol": "plain", "depth": 2}));
    assert_eq!(unlisted_sites(&structured, 1), [(20, "cb(1)".to_owned())], "{text}");
    assert!(
        text.contains("1 call site in the body of depth-1 callee `call_back` (render.py:19) that pyright resolves to no function")
            && text.contains("render.py:20 `cb(1)`"),
        "{text}"
    );
    assert!(unlisted_sites(&structured, 0).is_empty(), "{text}");
}

/// typescript-language-server, too, lists no callee for a call through a function-typed
/// property, a parameter or an `any` value; those calls are named, the resolved ones listed.
#[test]
fn outgoing_calls_name_the_calls_typescript_language_server_resolves_to_no_function() {
    if support::require_binary("lsp_hierarchy::outgoing_calls_unlisted_typescript", "typescript-language-server").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("package.json", "{\"name\": \"unlisted\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        (
            "src/box.ts",
            "export function helper(x: number): number {\n  return x;\n}\n\nexport class Box {\n  constructor(public fn: (n: number) => number) {}\n\n  run(cb: (n: number) => number, loose: any): number {\n    const a = helper(1);\n    const b = this.fn(a);\n    const c = cb(b);\n    return loose.go(c) + helper(c);\n  }\n}\n\nexport function sum(): number {\n  return helper(1) + helper(2);\n}\n",
        ),
    ]);
    let run = lsp_run(workspace.path(), |_| ());
    let (text, structured) = ok(&run, json!({"op": "outgoing_calls", "file": "src/box.ts", "line": 8, "symbol": "run"}));
    assert_eq!(listed_lines(&structured, "helper"), [9, 12], "{text}");
    assert_eq!(
        unlisted_sites(&structured, 0),
        [(10, "this.fn(a)".to_owned()), (11, "cb(b)".to_owned()), (12, "loose.go(c)".to_owned())],
        "{text}"
    );
    assert!(
        text.contains("NOT in this answer: 3 call sites in the body of `run` that typescript-language-server resolves to no function")
            && text.contains("src/box.ts:10 `this.fn(a)`, src/box.ts:11 `cb(b)`, src/box.ts:12 `loose.go(c)`"),
        "{text}"
    );
    let (text, structured) = ok(&run, json!({"op": "outgoing_calls", "file": "src/box.ts", "line": 16, "symbol": "sum"}));
    assert_eq!(listed_lines(&structured, "helper"), [17], "{text}");
    assert!(unlisted_sites(&structured, 0).is_empty() && !text.contains("NOT in this answer"), "{text}");
}

/// gopls lists calls through a parameter or a func-typed field (under the parameter or field)
/// but no Go builtin or conversion: those are said apart, and nothing is claimed missing.
#[test]
fn outgoing_calls_on_gopls_say_the_builtins_and_conversions_it_leaves_out() {
    if support::require_binary("lsp_hierarchy::outgoing_calls_unlisted_gopls", "gopls").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("go.mod", "module boxes\n\ngo 1.21\n"),
        (
            "box.go",
            "package boxes\n\nfunc Helper(x int) int {\n\treturn x\n}\n\ntype Box struct {\n\tFn func(int) int\n}\n\nfunc (b *Box) Run(cb func(int) int, value int) int {\n\ta := Helper(value)\n\tc := b.Fn(a)\n\td := cb(c)\n\treturn len(\"x\") + int(int64(d))\n}\n",
        ),
    ]);
    let run = lsp_run(workspace.path(), |_| ());
    let (text, structured) = ok(&run, json!({"op": "outgoing_calls", "file": "box.go", "line": 11, "symbol": "Run"}));
    assert_eq!(listed_lines(&structured, "Helper"), [12], "{text}");
    assert!(!text.contains("NOT in this answer"), "gopls lists the parameter and field calls:\n{text}");
    assert!(unlisted_sites(&structured, 0).len() == 3, "{text}");
    let builtins: Vec<bool> =
        structured["unlisted_call_sites"].as_array().unwrap().iter().map(|site| site["go_builtin"].as_bool().unwrap()).collect();
    assert_eq!(builtins, [true, true, true], "{text}");
    assert!(
        text.contains("note: also not listed: 3 Go builtin or conversion calls in the body of `Run`, which gopls lists no callee for: box.go:15 `len(\"x\")`, box.go:15 `int(int64(d))`, box.go:15 `int64(d)`"),
        "{text}"
    );
}

/// A name `alias_calls` reports: (name, binding line, call sites as (path, line)).
type AliasReport = (String, u64, Vec<(String, u64)>);

/// Each name `alias_calls` reports.
fn alias_calls(structured: &Value) -> Vec<AliasReport> {
    structured["alias_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|alias| {
            let sites = alias["call_sites"]
                .as_array()
                .unwrap()
                .iter()
                .map(|site| (site["path"].as_str().unwrap().to_owned(), site["line"].as_u64().unwrap()))
                .collect();
            (alias["name"].as_str().unwrap().to_owned(), alias["line"].as_u64().unwrap(), sites)
        })
        .collect()
}

/// trial22 F2 (true-myth `ResultImpl.ok`): a static method bound to a const, an object property
/// and an interface member typed `typeof` it is called through those names in two other files;
/// tsserver's incoming calls list the binding lines as value references and none of the calls.
/// The answer follows each name one level and lists its calls; a name bound in turn (`keep`) is
/// named with the request that follows it; a renaming export whose calls the references already
/// return (`create`) is not.
#[test]
fn incoming_calls_on_typescript_language_server_list_the_calls_through_a_const_alias() {
    if support::require_binary("lsp_hierarchy::incoming_calls_alias_typescript", "typescript-language-server").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("package.json", "{\"name\": \"alias\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        (
            "src/box.ts",
            "export class BoxImpl {\n  static make<T = number>(value: number): BoxImpl {\n    return new BoxImpl(value);\n  }\n  constructor(public value: number) {}\n}\n\nexport const make = BoxImpl.make;\n\nexport interface BoxConstructor {\n  make: typeof BoxImpl.make;\n}\n\nexport const Box: BoxConstructor = BoxImpl;\n\nexport const table = { build: BoxImpl.make };\n\nexport { make as create };\n\nexport function direct(): BoxImpl {\n  return BoxImpl.make(0);\n}\n",
        ),
        (
            "src/use_a.ts",
            "import { make, Box, table, create } from './box';\n\nexport function first(): number {\n  return make(1).value + make<number>(2).value;\n}\n\nexport function second(): number {\n  return Box.make(3).value + table.build(4).value + create(5).value;\n}\n",
        ),
        (
            "src/use_b.ts",
            "import * as box from './box';\n\nexport function third(): number {\n  const keep = box.make;\n  return box.make(6).value + keep(7).value;\n}\n",
        ),
    ]);
    let run = lsp_run(workspace.path(), |_| ());
    let (text, structured) = ok(&run, json!({"op": "incoming_calls", "file": "src/box.ts", "line": 2, "symbol": "make"}));
    // The direct call stays listed under its caller.
    assert!(listed_call_sites(&structured, 1).contains(&("src/box.ts".to_owned(), 21)), "{text}");
    let site = |path: &str, line: u64| (path.to_owned(), line);
    assert_eq!(
        alias_calls(&structured),
        [
            (
                "make".to_owned(),
                8,
                vec![site("src/use_a.ts", 4), site("src/use_a.ts", 4), site("src/use_a.ts", 8), site("src/use_b.ts", 5)]
            ),
            ("make".to_owned(), 11, vec![site("src/use_a.ts", 8)]),
            ("build".to_owned(), 16, vec![site("src/use_a.ts", 8)]),
        ],
        "{text}"
    );
    let first = &structured["alias_calls"][0];
    assert_eq!(first["further_names"], json!(["keep (src/use_b.ts:4)"]), "{text}");
    assert!(
        text.contains(
            "2 callers, 3 call sites (2 of them referenced as a value, not called) — and 6 call sites through 3 other names bound to it, which this call hierarchy leaves out"
        ),
        "the headline counts the calls through the names:\n{text}"
    );
    assert!(
        text.contains(
            "8: export const make = BoxImpl.make;   (referenced as a value, not called: binds `make`, calls through it listed below)"
        ),
        "{text}"
    );
    assert!(!text.contains("no call site calls it here"), "{text}");
    assert!(
        text.contains("through `make` — src/box.ts:11: make: typeof BoxImpl.make;   (a member typed `typeof` it): 1 call site in 1 file: src/use_a.ts 1"),
        "{text}"
    );
    assert!(
        text.contains("NOT followed: `keep` at src/use_b.ts:4 holds it in turn; calls through `keep` are not counted — ask {\"file\":\"src/use_b.ts\",\"line\":4,\"op\":\"references\",\"symbol\":\"keep\"}"),
        "{text}"
    );
    assert!(!text.contains("`create` at"), "the renaming's call is among `make`'s references:\n{text}");
}

/// tsserver's call hierarchy does not count a call through an expression,
/// `((options && options.serializeError) || miniSerializeError)(err)` — @reduxjs/toolkit 1.9.7's
/// only runtime call of `miniSerializeError` (trial29 F1: "1 caller" in the tests, no note). The
/// function's references that are no listed call site, binding, import or type are named.
#[test]
fn incoming_calls_on_typescript_language_server_name_references_called_through_an_expression() {
    if support::require_binary("lsp_hierarchy::incoming_calls_through_expression_typescript", "typescript-language-server").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("package.json", "{\"name\": \"through\", \"version\": \"0.1.0\", \"private\": true}\n"),
        ("tsconfig.json", "{\"compilerOptions\": {\"target\": \"es2020\", \"module\": \"commonjs\", \"strict\": true, \"noEmit\": true}, \"include\": [\"src\"]}\n"),
        ("src/errors.ts", "export function miniSerializeError(value: unknown): string {\n  return String(value);\n}\n"),
        (
            "src/thunk.ts",
            "import { miniSerializeError } from './errors';\n\ntype Options = { serializeError?: (x: unknown) => string };\n\nexport function run(options: Options | undefined, err: unknown): string {\n  return ((options && options.serializeError) || miniSerializeError)(err);\n}\n\nexport function pick(flag: boolean): (x: unknown) => string {\n  return flag ? miniSerializeError : String;\n}\n",
        ),
        (
            "src/thunk.test.ts",
            "import { miniSerializeError } from './errors';\n\nexport function check(): boolean {\n  return miniSerializeError(1) === '1';\n}\n",
        ),
    ]);
    let run = lsp_run(workspace.path(), |_| ());
    let (text, structured) = ok(&run, json!({"op": "incoming_calls", "file": "src/errors.ts", "line": 1, "symbol": "miniSerializeError"}));
    assert!(listed_call_sites(&structured, 1).contains(&("src/thunk.test.ts".to_owned(), 4)), "{text}");
    let uses: Vec<(String, u64, String)> = structured["uses_not_listed"]
        .as_array()
        .expect("uses_not_listed is a list")
        .iter()
        .map(|entry| {
            (
                entry["path"].as_str().unwrap_or_default().to_owned(),
                entry["line"].as_u64().unwrap_or_default(),
                entry["role"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert!(uses.contains(&("src/thunk.ts".to_owned(), 6, "called through an expression".to_owned())), "{uses:?}\n{text}");
    // Imports are no use; the direct call is listed above, not here.
    assert!(uses.iter().all(|(_, line, _)| *line != 1), "{uses:?}");
    assert!(uses.iter().all(|(path, _, _)| path != "src/thunk.test.ts"), "{uses:?}");
    assert!(text.contains("NOT in this answer as call sites:"), "{text}");
    assert!(text.contains("called through an expression"), "{text}");
    assert!(text.contains("src/thunk.ts:6: return ((options && options.serializeError) || miniSerializeError)(err);"), "{text}");
}

/// pyright does not even list `parse_all = parse` among the incoming calls: the name is found in
/// the references of the function and its calls in another module are listed.
#[test]
fn incoming_calls_on_pyright_list_the_calls_through_a_module_alias() {
    if support::require_binary("lsp_hierarchy::incoming_calls_alias_pyright", "pyright-langserver").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("pyproject.toml", "[project]\nname = \"alias\"\nversion = \"0\"\n"),
        ("core.py", "def parse(text: str) -> int:\n    return len(text)\n\n\nparse_all = parse\n\n\ndef direct() -> int:\n    return parse(\"a\")\n"),
        ("use.py", "from core import parse_all\n\n\ndef first() -> int:\n    return parse_all(\"b\") + parse_all(\"c\")\n"),
    ]);
    let run = lsp_run(workspace.path(), |_| ());
    let (text, structured) = ok(&run, json!({"op": "incoming_calls", "file": "core.py", "line": 1, "symbol": "parse"}));
    assert_eq!(listed_call_sites(&structured, 1), BTreeSet::from([("core.py".to_owned(), 9)]), "{text}");
    assert_eq!(alias_calls(&structured), [("parse_all".to_owned(), 5, vec![("use.py".to_owned(), 5), ("use.py".to_owned(), 5)])], "{text}");
    assert!(text.contains("— and 2 call sites through 1 other name bound to it"), "{text}");
    assert!(
        text.contains("through `parse_all` — core.py:5: parse_all = parse   (a name assigned it): 2 call sites in 1 file: use.py 2"),
        "{text}"
    );
}

/// rust-analyzer's `callHierarchy/outgoingCalls` does not descend into macro calls: walkdir
/// 2.5.1's `handle_entry` answered "10 callees" without its five `itry!(…)` calls and nothing
/// said so. The call-shaped token runs in macro arguments are named, marked with their macro;
/// a call in a format string is none.
#[test]
fn outgoing_calls_on_rust_analyzer_name_the_calls_inside_macro_arguments() {
    if support::require_binary("lsp_hierarchy::outgoing_calls_macro_arguments", "rust-analyzer").is_none() {
        return;
    }
    let workspace = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"macro_calls\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        (
            "src/lib.rs",
            "pub fn helper(value: i32) -> i32 {\n    value + 1\n}\n\npub fn make(value: i32) -> Vec<i32> {\n    vec![value]\n}\n\npub fn check(value: i32) -> usize {\n    assert!(helper(value) > 0);\n    let made = vec![make(1)];\n    println!(\"{} helper(2)\", value);\n    helper(value) as usize + made.len()\n}\n",
        ),
    ]);
    let run = lsp_run(workspace.path(), |_| ());
    let _ = call(&run, json!({"op": "hover", "file": "src/lib.rs", "line": 1, "symbol": "helper"}));
    wait_ready(&run, "rust-analyzer", Duration::from_secs(240));
    let (text, structured) = ok(&run, json!({"op": "outgoing_calls", "file": "src/lib.rs", "line": 9, "symbol": "check"}));
    assert_eq!(listed_lines(&structured, "helper"), [13], "the call outside macros stays listed:\n{text}");
    assert_eq!(
        unlisted_sites(&structured, 0),
        [(10, "helper(value)".to_owned()), (11, "make(1)".to_owned())],
        "the calls in `assert!` and `vec!` arguments, not the format string's text:\n{text}"
    );
    let macros: Vec<&str> =
        structured["unlisted_call_sites"].as_array().unwrap().iter().map(|site| site["inside_macro"].as_str().unwrap()).collect();
    assert_eq!(macros, ["assert!(…)", "vec![…]"], "{text}");
    assert!(
        text.contains(
            "note: NOT in this answer: 2 call sites in the body of `check` written inside macro arguments (each marked `inside m!(…)`), which rust-analyzer lists no calls in: src/lib.rs:10 `helper(value)` (inside `assert!(…)`), src/lib.rs:11 `make(1)` (inside `vec![…]`) — read them before relying on this list"
        ),
        "{text}"
    );
}

/// A method called only through a `macro_rules!` whose expansion makes the call
/// (`$wtr.$which($out)`, as csv-core's `assert_write!` — trial27b F5): rust-analyzer lists the
/// macro invocations among its incoming calls; the sites are named with the macro, never
/// labelled "referenced as a value, not called". Ground truth: the macro's body calls `$which`.
#[test]
fn incoming_calls_on_rust_analyzer_name_calls_made_in_a_macros_expansion() {
    if support::require_binary("lsp_hierarchy::incoming_calls_through_a_macro", "rust-analyzer").is_none() {
        return;
    }
    let dir = support::workspace_with(&[
        ("Cargo.toml", "[package]\nname = \"writer\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        (
            "src/lib.rs",
            "pub struct Writer;\n\nimpl Writer {\n    pub fn terminator(&mut self, out: &mut [u8]) -> usize {\n        out.len()\n    }\n}\n\nmacro_rules! assert_write {\n    ($wtr:expr, $which:ident, $out:expr, $n:expr) => {\n        assert_eq!($wtr.$which($out), $n);\n    };\n}\n\n#[test]\nfn writes_a_terminator() {\n    let mut wtr = Writer;\n    let mut out = [0u8; 3];\n    assert_write!(wtr, terminator, &mut out[..], 3);\n}\n\n#[test]\nfn writes_it_twice() {\n    let mut wtr = Writer;\n    let mut out = [0u8; 2];\n    assert_write!(\n        wtr,\n        terminator,\n        &mut out[..],\n        2\n    );\n    assert_eq!(wtr.terminator(&mut out[..1]), 1);\n}\n",
        ),
    ]);
    let root = dir.path();
    let run = lsp_run(root, |_| ());
    let _ = call(&run, json!({"op": "hover", "file": "src/lib.rs", "line": 4, "symbol": "terminator"}));
    wait_ready(&run, "rust-analyzer", Duration::from_secs(240));
    let (text, structured) = ok(&run, json!({"op": "incoming_calls", "file": "src/lib.rs", "line": 4, "symbol": "pub fn terminator"}));
    // `pub fn terminator`, copied from the declaration line, names the method, not `pub`.
    assert!(text.contains("incoming calls for `terminator` at src/lib.rs:4"), "{text}");
    assert!(!text.contains("referenced as a value"), "calls made in a macro's expansion are not values:\n{text}");
    let mut through_macro = BTreeSet::new();
    let mut plain_calls = BTreeSet::new();
    for result in structured["results"].as_array().unwrap() {
        for site in result["call_sites"].as_array().unwrap() {
            let line = site["line"].as_u64().unwrap();
            assert_eq!(site["value_references"].as_u64(), Some(0), "{site}:\n{text}");
            match site["through_macro"].as_str() {
                Some(name) => {
                    assert_eq!(name, "assert_write", "{site}:\n{text}");
                    through_macro.insert(line);
                }
                None => {
                    plain_calls.insert(line);
                }
            }
        }
    }
    // The invocations at 19 and 28 (the name on its own line of a multi-line invocation), and
    // the plain call at 32 (inside `assert_eq!` but written as a call).
    assert_eq!(through_macro, BTreeSet::from([19, 28]), "{text}");
    assert_eq!(plain_calls, BTreeSet::from([32]), "{text}");
    assert!(text.contains("inside the arguments of `assert_write!`"), "{text}");
}
