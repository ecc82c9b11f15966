//! `eval` against real interpreters: spawned CPython (with pandas, matplotlib, tabulate) and
//! Node. Each test skips loudly when its interpreter is missing (fails under CI).

use crate::support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::bridge_tools::{read_note_tool, slow_tool, write_note_tool};

use base64::Engine as _;
use parking_lot::Mutex;
use runbound::ask::{ScriptedAnswer, ScriptedAskPort, PERMISSION_DENY};
use runbound::kernel::{KernelConfig, KernelFactory, KernelSelection, Sandbox};
use runbound::registry::{GuardrailInput, GuardrailVerdict};
use runbound::status::kernels_report;
use runbound::{Approval, ApprovalPolicy, CallOrigin, Caller, Content, Run, RunBuilder, RunConfig, Tier, ToolResult};
use serde_json::{json, Value};

fn python_or_skip(test: &str) -> Option<PathBuf> {
    support::require_binary(test, "python3")
}

fn node_or_skip(test: &str) -> Option<PathBuf> {
    support::require_binary(test, "node")
}

fn allow_all() -> ApprovalPolicy {
    ApprovalPolicy { read: Approval::Allow, write: Approval::Allow, exec: Approval::Allow }
}

fn builder(workspace: &Path) -> RunBuilder {
    Run::builder(workspace).approval_policy(allow_all()).kernel_factory(KernelFactory::new().selection(KernelSelection::Cpython))
}

fn run_with_budget(workspace: &Path, budget: Duration) -> Run {
    let config = RunConfig { kernel: KernelConfig { inactivity_budget: budget, ..KernelConfig::default() }, ..RunConfig::default() };
    builder(workspace).config(config).build().unwrap()
}

fn cell(run: &Run, code: &str) -> ToolResult {
    cell_in(run, "python", code)
}

fn cell_in(run: &Run, language: &str, code: &str) -> ToolResult {
    run.call(Caller::Main, "eval", json!({"code": code, "description": "run a small test cell here", "language": language}))
}

fn structured(result: &ToolResult) -> &Value {
    result.structured_content.as_ref().expect("eval results carry structured content")
}

fn images(result: &ToolResult) -> Vec<Vec<u8>> {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            Content::Image { data, mime_type } => {
                assert_eq!(mime_type, "image/png");
                Some(base64::engine::general_purpose::STANDARD.decode(data).expect("valid base64"))
            }
            Content::Text { .. } => None,
        })
        .collect()
}

#[test]
fn python_state_persists_and_echo_follows_ipython_last_expr() {
    let Some(_) = python_or_skip("python_state_persists_and_echo_follows_ipython_last_expr") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let run = builder(workspace.path()).build().unwrap();
    let first = cell(&run, "x = 40\nimport json\nx + 2");
    assert!(!first.is_error, "{}", first.joined_text());
    assert!(first.joined_text().contains("Out: 42"), "{}", first.joined_text());
    assert_eq!(structured(&first)["backend"], "cpython");
    assert_eq!(structured(&first)["generation"], 1);
    assert!(first.joined_text().contains("kernel generation 1"));
    assert!(first.joined_text().contains("run a small test cell here"), "the description labels the cell");

    let second = cell(&run, "json.dumps({'x': x})");
    assert!(second.joined_text().contains(r#"Out: '{"x": 40}'"#), "{}", second.joined_text());
    let underscore = cell(&run, "_");
    assert!(underscore.joined_text().contains(r#"Out: '{"x": 40}'"#), "`_` holds the last echo: {}", underscore.joined_text());

    let suppressed = cell(&run, "x * 10;");
    assert!(!suppressed.joined_text().contains("400"), "trailing ; suppresses: {}", suppressed.joined_text());
    assert!(suppressed.joined_text().contains("no output"), "an empty result says so: {}", suppressed.joined_text());
    let none = cell(&run, "print('side effect')\nNone");
    assert!(none.joined_text().contains("side effect") && !none.joined_text().contains("Out:"), "{}", none.joined_text());
    let definition = cell(&run, "def f(a):\n    return a * 3\nclass K:\n    pass");
    assert!(!definition.joined_text().contains("Out:"), "def/class are not echoed: {}", definition.joined_text());
    let call = cell(&run, "f(x)");
    assert!(call.joined_text().contains("Out: 120"));
    let not_last = cell(&run, "x + 1\ny = 5");
    assert!(!not_last.joined_text().contains("Out:"), "only a final bare expression echoes: {}", not_last.joined_text());
    let awaited = cell(&run, "import asyncio\nawait asyncio.sleep(0.01)\nx + y");
    assert!(awaited.joined_text().contains("Out: 45"), "top-level await: {}", awaited.joined_text());
    assert_eq!(structured(&awaited)["generation"], 1, "still the same kernel");
}

/// `sys.stdout.buffer` / `sys.stderr.buffer` take bytes for the same cell output, a UTF-8
/// character split across two writes included; the common TextIO attributes are there (issue 13
/// re-run: `sys.stdout.buffer.write(b"x")` raised AttributeError).
#[test]
fn python_stdout_has_a_binary_buffer_and_textio_attributes() {
    let Some(_) = python_or_skip("python_stdout_has_a_binary_buffer_and_textio_attributes") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let run = builder(workspace.path()).build().unwrap();
    let result = cell(&run, CELL);
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains("ab\né!\n"), "bytes and text reach the same stream in order: {text}");
    assert!(text.contains("to stderr"), "{text}");
    assert!(text.contains("TypeError a bytes-like object is required"), "{text}");
    assert!(text.contains("utf-8 utf-8 False <stdout> True True"), "{text}");
    assert!(!text.contains("AttributeError"), "{text}");
}

/// The cell of the `sys.stdout.buffer` tests (CPython here, RustPython in eval_embedded).
pub(crate) const CELL: &str = "import io, sys\nsys.stdout.write('a')\nsys.stdout.buffer.write(b'b\\n')\nsys.stdout.buffer.write('é'.encode()[:1])\nsys.stdout.buffer.write('é'.encode()[1:] + b'!\\n')\nsys.stderr.buffer.write(b'to stderr\\n')\nsys.stdout.buffer.flush()\ntry:\n    sys.stdout.buffer.write('text')\nexcept TypeError as e:\n    print('TypeError', e)\nprint(sys.stdout.encoding, sys.stderr.encoding, sys.stdout.isatty(), sys.stdout.name, isinstance(sys.stdout.errors, str), sys.stdout.buffer.writable())\n";

#[test]
fn python_errors_point_into_the_cell_and_keep_the_kernel() {
    let Some(_) = python_or_skip("python_errors_point_into_the_cell_and_keep_the_kernel") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let run = builder(workspace.path()).build().unwrap();
    cell(&run, "keep = 'alive'");
    let failed = cell(&run, "def g(v):\n    return 10 / v\n\ng(0)");
    assert!(failed.is_error);
    let text = failed.joined_text();
    assert!(text.contains("ZeroDivisionError"), "{text}");
    assert!(text.contains("<cell-2>\", line 4") && text.contains("<cell-2>\", line 2, in g"), "{text}");
    assert!(text.contains("return 10 / v"), "the traceback shows the cell's source line: {text}");
    assert!(!text.contains("driver"), "driver frames are hidden: {text}");
    assert_eq!(structured(&failed)["status"], "error");
    let after = cell(&run, "keep");
    assert!(after.joined_text().contains("'alive'"), "an exception keeps the state");
}

/// The description stays required, but a length outside 5–10 words costs no call: the cell
/// runs and the result carries a note (once).
#[test]
fn description_outside_five_to_ten_words_runs_with_a_note() {
    let Some(_) = python_or_skip("description_outside_five_to_ten_words_runs_with_a_note") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let run = builder(workspace.path()).build().unwrap();
    for (description, words) in
        [("too short", "2 words"), ("one two three four five six seven eight nine ten eleven", "11 words"), ("", "0 words")]
    {
        let result = run.call(Caller::Main, "eval", json!({"code": "40 + 2", "description": description}));
        let text = result.joined_text();
        assert!(!result.is_error, "{text}");
        assert!(text.contains("Out: 42"), "the cell ran: {text}");
        assert_eq!(
            text.matches(&format!("note: the description has {words}; describe what the cell does in 5–10 words")).count(),
            1,
            "{text}"
        );
    }
    let unlabelled = run.call(Caller::Main, "eval", json!({"code": "1", "description": "  "}));
    assert!(unlabelled.joined_text().lines().next().unwrap().ends_with("] (no description)"), "{}", unlabelled.joined_text());
    let fitting = cell(&run, "1");
    assert!(!fitting.joined_text().contains("note: the description"), "{}", fitting.joined_text());
    let missing = run.call(Caller::Main, "eval", json!({"code": "1"}));
    assert!(missing.is_error && missing.joined_text().contains("description"), "still required: {}", missing.joined_text());
}

/// Program output loses its ANSI escape sequences — printed, raw fd 1, raw stderr, shell
/// children, tracebacks, JavaScript — and the result says so once; clean output says nothing.
#[test]
fn ansi_escape_sequences_are_stripped_from_program_output_and_said_once() {
    if python_or_skip("ansi_escape_sequences_are_stripped_from_program_output_and_said_once").is_none()
        || node_or_skip("ansi_escape_sequences_are_stripped_from_program_output_and_said_once").is_none()
    {
        return;
    }
    let workspace = support::workspace_with(&[]);
    let run = builder(workspace.path()).build().unwrap();
    let colored = cell(
        &run,
        "import os, sys\n\
         print('\\x1b[31mred\\x1b[0m plain')\n\
         !printf '\\033[1mbold\\033[0m shell\\n'\n\
         os.write(1, b'\\x1b[32mraw green\\x1b[0m\\n')\n\
         os.write(2, b'\\x1b[33mraw warning\\x1b[0m\\n')\n\
         print('\\x1b]8;;https://example.com\\x07link\\x1b]8;;\\x07 \\x1b[2K\\x1b[1Acursor', file=sys.stderr)\n\
         raise ValueError('\\x1b[35mbad value\\x1b[0m')",
    );
    let text = colored.joined_text();
    assert!(!text.contains('\u{1b}'), "no escape left: {text:?}");
    for needle in ["red plain", "bold shell", "raw green", "raw warning", "link cursor", "ValueError: bad value"] {
        assert!(text.contains(needle), "missing {needle:?}: {text}");
    }
    assert_eq!(text.matches("ANSI escape sequences").count(), 1, "said once: {text}");
    assert_eq!(structured(&colored)["ansi_stripped"], true);
    let clean = cell(&run, "print('plain')");
    assert!(!clean.joined_text().contains("ANSI") && structured(&clean)["ansi_stripped"] == false, "{}", clean.joined_text());
    let javascript = cell_in(&run, "javascript", "console.log('\\x1b[36mcyan\\x1b[39m text'); '\\x1b[1m'.length");
    let text = javascript.joined_text();
    assert!(!text.contains('\u{1b}') && text.contains("cyan text") && text.contains("Out: 4"), "{text:?}");
    assert_eq!(structured(&javascript)["ansi_stripped"], true);
}

/// R-EVAL-2: `display()`, DataFrames as tables, matplotlib figures as PNG images.
#[test]
fn python_display_dataframe_and_matplotlib_figure() {
    let Some(_) = python_or_skip("python_display_dataframe_and_matplotlib_figure") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let run = builder(workspace.path()).build().unwrap();
    let frame = cell(&run, "import pandas as pd\ndf = pd.DataFrame({'city': ['a'] * 100, 'n': range(100)})\ndisplay('before')\ndf");
    assert!(!frame.is_error, "{}", frame.joined_text());
    let text = frame.joined_text();
    assert!(text.contains("before"), "{text}");
    assert!(text.contains("DataFrame shape (100, 2)"), "{text}");
    assert!(text.contains("showing 30 of 100 rows"), "{text}");
    assert!(text.contains("| city"), "markdown via tabulate: {text}");
    assert!(!text.contains("|  99 |"), "rows past the cap are not rendered: {text}");

    let figure = cell(
        &run,
        "import matplotlib.pyplot as plt\nplt.plot([1, 4, 9]); plt.title('first')\nplt.show()\nfig = plt.figure(figsize=(3, 2)); plt.bar(['a', 'b'], [3, 5])\nprint(len(plt.get_fignums()))",
    );
    assert!(!figure.is_error, "{}", figure.joined_text());
    let pngs = images(&figure);
    assert_eq!(pngs.len(), 2, "plt.show() flushes the first figure, the second is captured at cell end: {}", figure.joined_text());
    for png in &pngs {
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
        let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
        assert!(width > 100 && height > 100, "{width}x{height}");
    }
    let closed = cell(&run, "len(plt.get_fignums())");
    assert!(closed.joined_text().contains("Out: 0"), "figures are closed after capture: {}", closed.joined_text());
    assert_eq!(structured(&figure)["images"], 2);

    let many = cell(&run, "for i in range(7):\n    plt.figure(); plt.plot([i, 1])");
    assert_eq!(images(&many).len(), 4, "image count is capped");
    assert!(many.joined_text().contains("3 more figures were closed without being shown"), "{}", many.joined_text());
}

/// R-EVAL-3: `%cd`, `!cmd`, `%%bash`, `%%timeit` become plain code (`%pip` and its clearing of
/// `sys.modules`: `python_pip_installs_a_local_wheel_and_the_next_import_sees_it`).
#[test]
fn python_magics_are_rewritten_into_plain_code() {
    let Some(_) = python_or_skip("python_magics_are_rewritten_into_plain_code") else {
        return;
    };
    let workspace = support::workspace_with(&[("sub/marker.txt", "m\n")]);
    let run = builder(workspace.path()).build().unwrap();
    let root = workspace.path().canonicalize().unwrap();

    let cd = cell(&run, "%cd sub\nwhere = %pwd\nwhere");
    assert!(cd.joined_text().contains(&format!("{}/sub", root.display())), "{}", cd.joined_text());
    let shell = cell(&run, "name = 'shell'\n!echo hello $name {1 + 2}\nfiles = !ls\nfiles");
    let text = shell.joined_text();
    assert!(text.contains("hello shell 3"), "{text}");
    assert!(text.contains("Out: ['marker.txt']"), "x = !cmd is a list of lines: {text}");
    let env = cell(&run, "%env RB_TEST_VALUE=42\nimport os\nos.environ['RB_TEST_VALUE']");
    assert!(env.joined_text().contains("Out: '42'"), "{}", env.joined_text());
    let child_env = cell(&run, "!echo pager=$PAGER editor=$GIT_EDITOR; cat </dev/stdin | wc -c");
    assert!(child_env.joined_text().contains("pager=cat editor=true"), "{}", child_env.joined_text());
    let bash = cell(&run, "%%bash\nfor i in 1 2 3; do echo line$i; done\necho err >&2");
    assert!(bash.joined_text().contains("line1\nline2\nline3"), "{}", bash.joined_text());
    let failing_bash = cell(&run, "%%bash\nexit 3");
    assert!(failing_bash.is_error && failing_bash.joined_text().contains("CalledProcessError"), "{}", failing_bash.joined_text());
    let timeit_cell = cell(&run, "%%timeit -n 5 -r 3\nsum(range(1000))");
    assert!(timeit_cell.joined_text().contains("per loop (mean ± std. dev. of 3 runs, 5 loops each)"), "{}", timeit_cell.joined_text());
    let timeit_line = cell(&run, "%timeit -n 3 -r 2 sorted([3, 1, 2])");
    assert!(timeit_line.joined_text().contains("of 2 runs, 3 loops each"), "{}", timeit_line.joined_text());
    let writefile = cell(&run, "%%writefile made.py\nVALUE = 7\n");
    assert!(writefile.joined_text().contains("Writing made.py"), "{}", writefile.joined_text());
    assert_eq!(std::fs::read_to_string(root.join("sub/made.py")).unwrap(), "VALUE = 7\n");
    let untouched = cell(&run, "s = '''\n!not a command\n%cd nowhere\n'''\nt = \"%pwd and !ls\"\n(s.count('!'), t)");
    assert!(untouched.joined_text().contains("Out: (1, '%pwd and !ls')"), "{}", untouched.joined_text());
    let unknown = cell(&run, "%nosuchmagic 1");
    assert!(unknown.is_error && unknown.joined_text().contains("supported line magics"), "{}", unknown.joined_text());
}

/// Writes a minimal pure-Python wheel for `name` version `version` into `directory`.
const WHEEL_BUILDER: &str = r#"
import base64, hashlib, os, zipfile
def build_wheel(directory, name, version):
    path = os.path.join(directory, f"{name}-{version}-py3-none-any.whl")
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": f"VERSION = {version!r}\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: runbound-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/top_level.txt": f"{name}\n",
    }
    record = []
    with zipfile.ZipFile(path, "w") as archive:
        for arcname, text in files.items():
            data = text.encode()
            archive.writestr(arcname, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{arcname},sha256={digest},{len(data)}")
        record.append(f"{info}/RECORD,,")
        archive.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return path
"#;

#[test]
fn python_pip_installs_a_local_wheel_and_the_next_import_sees_it() {
    let Some(python) = python_or_skip("python_pip_installs_a_local_wheel_and_the_next_import_sees_it") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let venv = workspace.path().join(".venv");
    let created = std::process::Command::new(&python)
        .args(["-m", "venv", "--without-pip", "--system-site-packages"])
        .arg(&venv)
        .status()
        .expect("run python -m venv");
    assert!(created.success());
    let wheels = tempfile::tempdir().unwrap();
    let mut config = RunConfig::default();
    config.kernel.inactivity_budget = Duration::from_secs(120);
    let run =
        Run::builder(workspace.path()).approval_policy(allow_all()).config(config).kernel_factory(KernelFactory::new()).build().unwrap();
    let executable = cell(&run, "import sys\nsys.executable");
    assert!(executable.joined_text().contains(".venv/bin/python"), "the project's .venv comes first: {}", executable.joined_text());
    // Activated like a venv: shell children reach the kernel's environment, not another python.
    let venv_text = venv.canonicalize().unwrap().display().to_string();
    let shell = cell(&run, "import os\n!python -c 'import sys; print(\"prefix\", sys.prefix)'\nos.environ['VIRTUAL_ENV']");
    let text = shell.joined_text();
    assert!(text.contains(&format!("prefix {venv_text}")) && text.contains(&format!("Out: '{venv_text}'")), "{text}");
    let setup = cell(
        &run,
        &format!(
            "{WHEEL_BUILDER}\nw1 = build_wheel({:?}, 'rbtinywheel', '1.0')\nw2 = build_wheel({:?}, 'rbtinywheel', '2.0')",
            wheels.path().display().to_string(),
            wheels.path().display().to_string()
        ),
    );
    assert!(!setup.is_error, "{}", setup.joined_text());
    // A host that listens sees pip's own lines as progress while it runs (issue 18 §1), none
    // after the call returned.
    let progress: Arc<Mutex<Vec<(Instant, runbound::ProgressUpdate)>>> = Arc::default();
    let sink = Arc::clone(&progress);
    let options = runbound::registry::CallOptions::new(Caller::Main)
        .with_progress(Arc::new(move |update: &runbound::ProgressUpdate| sink.lock().push((Instant::now(), update.clone()))));
    let install = run.call_with(
        "eval",
        json!({"code": "%pip install --no-index --no-deps {w1}", "description": "install the first wheel with pip"}),
        &options,
    );
    let returned_at = Instant::now();
    assert!(!install.is_error, "{}", install.joined_text());
    assert!(install.joined_text().contains("rbtinywheel (new) -> 1.0"), "{}", install.joined_text());
    std::thread::sleep(Duration::from_millis(600));
    let progress = progress.lock().clone();
    let messages: Vec<&str> = progress.iter().filter_map(|(_, update)| update.message.as_deref()).collect();
    assert!(progress.iter().all(|(at, _)| *at <= returned_at), "progress after the call returned: {messages:?}");
    assert!(
        messages.iter().any(|message| message.starts_with("eval cell ") && !message.contains("%pip: ")),
        "pip's own lines as progress: {messages:?}"
    );
    let first = cell(&run, "import rbtinywheel\nrbtinywheel.VERSION");
    assert!(first.joined_text().contains("Out: '1.0'"), "{}", first.joined_text());
    let upgrade = cell(&run, "%pip install --no-index --no-deps --upgrade {w2}");
    assert!(upgrade.joined_text().contains("rbtinywheel 1.0 -> 2.0"), "{}", upgrade.joined_text());
    assert!(upgrade.joined_text().contains("removed from sys.modules: rbtinywheel"), "{}", upgrade.joined_text());
    let second = cell(&run, "import rbtinywheel\nrbtinywheel.VERSION");
    assert!(second.joined_text().contains("Out: '2.0'"), "the next import sees the new install: {}", second.joined_text());
}

/// R-EVAL-4: `tool(...)` in a cell re-enters the registry over the kernel's own pipe; guardrails,
/// approvals and every layer apply as for a model call.
#[test]
fn python_bridge_goes_through_every_registry_layer() {
    let Some(_) = python_or_skip("python_bridge_goes_through_every_registry_layer") else {
        return;
    };
    let workspace = support::workspace_with(&[("notes/a.txt", "alpha from the workspace\n")]);
    let port = Arc::new(ScriptedAskPort::new([ScriptedAnswer::choose(PERMISSION_DENY)]));
    let seen: Arc<Mutex<Vec<(String, Caller, CallOrigin)>>> = Arc::default();
    let seen_by_guardrail = Arc::clone(&seen);
    let (read_descriptor, read_handler) = read_note_tool();
    let (write_descriptor, write_handler) = write_note_tool();
    let run = Run::builder(workspace.path())
        .approval_policy(ApprovalPolicy { read: Approval::Allow, write: Approval::Ask, exec: Approval::Allow })
        .ask_port(port.clone(), "test-space")
        .kernel_factory(KernelFactory::new().selection(KernelSelection::Cpython))
        .tool(read_descriptor, read_handler)
        .tool(write_descriptor, write_handler)
        .guardrail(Arc::new(move |input: &GuardrailInput<'_>| {
            seen_by_guardrail.lock().push((input.tool.to_owned(), input.caller, input.origin.clone()));
            if input.arguments.get("path").and_then(Value::as_str) == Some("forbidden.txt") {
                return GuardrailVerdict::Deny("forbidden.txt is off limits".to_owned());
            }
            GuardrailVerdict::Allow
        }))
        .build()
        .unwrap();

    let read = cell(&run, "text = tool('read_note', {'path': 'notes/a.txt'})\ntext.strip()");
    assert!(read.joined_text().contains("Out: 'alpha from the workspace'"), "{}", read.joined_text());
    assert_eq!(structured(&read)["bridge_calls"], 1);
    let bridged = seen.lock().iter().find(|(tool, _, _)| tool == "read_note").cloned().expect("the guardrail saw the bridge call");
    assert_eq!(bridged.1, Caller::Main, "the bridge calls as the caller of the eval");
    assert_eq!(bridged.2, CallOrigin::Bridge { via: "eval".to_owned() });
    // A built-in tool whose payload is in its text (read's lines) gives both: the structured
    // content as a dict, and the text under "text".
    let builtin = cell(&run, "r = tool('read', {'path': 'notes/a.txt'})\n(r['total_lines'], '1\\talpha from the workspace' in r['text'])");
    assert!(builtin.joined_text().contains("Out: (1, True)"), "{}", builtin.joined_text());

    let guarded = cell(&run, "tool('read_note', {'path': 'forbidden.txt'})");
    assert!(
        guarded.is_error && guarded.joined_text().contains("ToolError") && guarded.joined_text().contains("off limits"),
        "{}",
        guarded.joined_text()
    );

    let denied =
        cell(&run, "try:\n    tool('write_note', {'path': 'out.txt', 'text': 'x'})\nexcept ToolError as err:\n    print('refused:', err)");
    assert!(denied.joined_text().contains("refused: error (approval_denied)"), "{}", denied.joined_text());
    assert!(!workspace.path().join("out.txt").exists(), "the denied write did not happen");
    let cards = port.shown_cards();
    assert_eq!(cards.len(), 1, "a permission card appeared mid-cell");
    assert_eq!(cards[0].asked_by.as_deref(), Some("eval bridge"));

    let nested = cell(&run, "tool('eval', {'code': '1', 'description': 'nested eval from inside a cell'})");
    assert!(nested.is_error && nested.joined_text().contains("eval cannot be called from inside an eval cell"), "{}", nested.joined_text());

    let readonly = run.call(
        Caller::Readonly,
        "eval",
        json!({"code": "tool('write_note', {'path': 'o.txt', 'text': 'x'})", "description": "try to write from read only"}),
    );
    assert!(
        readonly.is_error && readonly.joined_text().contains("hidden_from_caller"),
        "a read-only caller cannot reach eval: {}",
        readonly.joined_text()
    );
    assert!(!run.tools(Caller::Readonly).iter().any(|d| d.name == "eval"));
}

#[test]
fn inactivity_budget_kills_silent_cells_only() {
    let Some(_) = python_or_skip("inactivity_budget_kills_silent_cells_only") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let (descriptor, handler) = slow_tool(Duration::from_millis(3500));
    let mut config = RunConfig::default();
    config.kernel.inactivity_budget = Duration::from_secs(2);
    let run = builder(workspace.path()).config(config).tool(descriptor, handler).build().unwrap();
    cell(&run, "state = 'kept'");

    let chatty = cell(&run, "import time\nfor i in range(5):\n    print('tick', i, flush=True)\n    time.sleep(0.9)\n'finished'");
    assert!(!chatty.is_error, "a cell printing more often than the budget survives past it: {}", chatty.joined_text());
    assert!(chatty.joined_text().contains("Out: 'finished'"));

    let bridge = cell(&run, "tool('slow_fanout', {})");
    assert!(!bridge.is_error, "the budget is paused during a bridge call: {}", bridge.joined_text());
    assert!(bridge.joined_text().contains("fan-out finished"));

    let started = Instant::now();
    let silent = cell(&run, "import time\ntime.sleep(60)");
    assert!(started.elapsed() < Duration::from_secs(10), "killed after ~2 s, took {:?}", started.elapsed());
    assert!(silent.is_error);
    assert_eq!(structured(&silent)["status"], "timeout");
    assert_eq!(structured(&silent)["stopped_by"], "inactivity_budget");
    assert_eq!(structured(&silent)["state_lost"], true);
    let text = silent.joined_text();
    assert!(text.contains("no output for 2 s") && text.contains("state") && text.contains("is lost"), "{text}");
    assert!(text.contains("KeyboardInterrupt") || text.contains("interrupted"), "{text}");

    let after = cell(&run, "state");
    assert!(after.is_error && after.joined_text().contains("NameError"), "the restart lost the state: {}", after.joined_text());
    assert_eq!(structured(&after)["generation"], 2);
    assert!(after.joined_text().contains("started a fresh python kernel (generation 2)"), "{}", after.joined_text());
}

/// A cell that prints forever never runs out of its inactivity budget: the wall-clock cap per
/// cell stops it, the result says that budget did, and (the interrupt ending the cell) the
/// kernel keeps its state — in CPython and in Node.
#[test]
fn a_cell_that_prints_forever_is_stopped_by_the_wall_clock_cap() {
    if python_or_skip("a_cell_that_prints_forever_is_stopped_by_the_wall_clock_cap").is_none()
        || node_or_skip("a_cell_that_prints_forever_is_stopped_by_the_wall_clock_cap").is_none()
    {
        return;
    }
    let workspace = support::workspace_with(&[]);
    let mut config = RunConfig::default();
    config.kernel.inactivity_budget = Duration::from_secs(2);
    config.kernel.cell_wall_clock_cap = Duration::from_secs(4);
    let run = builder(workspace.path()).config(config).build().unwrap();
    for (language, setup, forever, check) in [
        ("python", "kept = 'yes'", "import time\nwhile True:\n    print('tick', flush=True)\n    time.sleep(0.05)", "kept"),
        ("javascript", "var kept = 'yes'", "for (;;) { console.log('tick'); }", "kept"),
    ] {
        assert!(!cell_in(&run, language, setup).is_error);
        let started = Instant::now();
        let stopped = cell_in(&run, language, forever);
        let elapsed = started.elapsed();
        let text = stopped.joined_text();
        assert!(elapsed >= Duration::from_secs(4) && elapsed < Duration::from_secs(30), "{language}: stopped after {elapsed:?}: {text}");
        assert!(stopped.is_error, "{language}: {text}");
        assert_eq!(structured(&stopped)["status"], "timeout", "{language}: {text}");
        assert_eq!(structured(&stopped)["stopped_by"], "cell_wall_clock_cap", "{language}: {text}");
        assert!(text.contains("tick"), "{language}: the output so far is shown: {text}");
        assert!(
            text.contains("cell stopped: the cell ran for 4 s, the wall-clock cap per cell") && text.contains("and kept (generation 1)"),
            "{language}: {text}"
        );
        assert_eq!(structured(&stopped)["state_lost"], false, "{language}");
        let after = cell_in(&run, language, check);
        assert!(after.joined_text().contains("Out: 'yes'"), "{language}: the state survived: {}", after.joined_text());
        assert_eq!(structured(&after)["generation"], 1, "{language}");
    }
    let silent = cell(&run, "import time\ntime.sleep(60)");
    assert_eq!(structured(&silent)["stopped_by"], "inactivity_budget", "a silent cell still meets the inactivity budget first");
    assert!(kernels_report(&run).contains("wall-clock cap per cell: 4 s"), "{}", kernels_report(&run));
}

#[test]
fn kernel_crash_is_reported_and_the_next_call_recovers() {
    let Some(_) = python_or_skip("kernel_crash_is_reported_and_the_next_call_recovers") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let run = builder(workspace.path()).build().unwrap();
    cell(&run, "v = 1");
    let crashed = cell(&run, "import os\nos._exit(7)");
    assert!(crashed.is_error);
    assert_eq!(structured(&crashed)["status"], "crashed");
    assert!(crashed.joined_text().contains("kernel died") && crashed.joined_text().contains('7'), "{}", crashed.joined_text());
    let fresh = cell(&run, "'v' in globals()");
    assert!(fresh.joined_text().contains("Out: False"), "{}", fresh.joined_text());
    assert_eq!(structured(&fresh)["generation"], 2);

    let segfault = cell(&run, "import ctypes\nctypes.string_at(0)");
    assert_eq!(structured(&segfault)["status"], "crashed", "{}", segfault.joined_text());
    assert!(segfault.joined_text().to_lowercase().contains("sig"), "the signal is named: {}", segfault.joined_text());
    let third = cell(&run, "1 + 1");
    assert!(third.joined_text().contains("Out: 2"));
    assert_eq!(structured(&third)["generation"], 3);
}

#[test]
fn reset_says_what_was_lost() {
    let Some(_) = python_or_skip("reset_says_what_was_lost") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let run = builder(workspace.path()).build().unwrap();
    cell(&run, "alpha = 1\nbeta = [2]\nimport tabulate");
    let reset = run.call(
        Caller::Main,
        "eval",
        json!({"code": "'alpha' in globals()", "description": "start over with a clean kernel", "reset": true}),
    );
    let text = reset.joined_text();
    assert!(text.contains("reset: discarded python kernel generation 1"), "{text}");
    assert!(text.contains("2 variables (alpha, beta)"), "{text}");
    assert!(text.contains("tabulate"), "{text}");
    assert!(text.contains("Out: False"), "{text}");
    assert_eq!(structured(&reset)["generation"], 2);
}

#[test]
fn huge_output_is_truncated_with_head_tail_and_marker() {
    let Some(_) = python_or_skip("huge_output_is_truncated_with_head_tail_and_marker") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let run = builder(workspace.path()).build().unwrap();
    let result = cell(&run, "for i in range(200000):\n    print('line', i)\n'tail value'");
    let text = result.joined_text();
    assert!(text.contains("line 0\n"), "head kept");
    assert!(text.contains("line 199999"), "tail kept");
    assert!(
        text.contains("[… cut: showing the first 32768 and last 32768 of ") && text.contains(" bytes of output …]"),
        "explicit marker: {text}"
    );
    assert!(text.len() < 100 * 1024, "capped: {} bytes", text.len());
    assert!(text.contains("Out: 'tail value'"));
    let big_value = cell(&run, "'x' * 100000");
    let big_text = big_value.joined_text();
    assert!(big_text.contains("[… cut: showing the first 8192 and last 8192 of 100002 bytes of this item …]"), "{big_text}");
    assert!(big_text.len() < 30 * 1024);
}

/// Output written to the kernel's raw descriptors (C-level writes, `os.write`) is capped too,
/// and each cut says exactly what was kept of how much.
#[test]
fn raw_fd_output_cuts_say_what_was_kept_of_how_much() {
    let Some(_) = python_or_skip("raw_fd_output_cuts_say_what_was_kept_of_how_much") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let run = builder(workspace.path()).build().unwrap();
    let result = cell(&run, "import os\nfor i in range(3000):\n    os.write(1, b'r' * 99 + b'\\n')\nos.write(2, b'e' * 40000)\n'done'");
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains(" of 300000 bytes of raw output (fd 1)]"), "{text}");
    let shown: usize = text.split("… [cut: showing ").nth(1).and_then(|rest| rest.split(' ').next()).unwrap().parse().unwrap();
    assert!(shown <= 64 * 1024 && shown > 0, "{shown}");
    assert_eq!(text.matches(&"r".repeat(99)).count(), shown / 100, "exactly the shown lines are there");
    assert!(text.contains("[cut: showing the last 16384 of 40000 bytes of raw stderr (fd 2)]"), "{text}");
    assert!(text.contains("Out: 'done'"), "{text}");
    assert_eq!(structured(&result)["omitted_output_bytes"], 300000 - shown as u64);
}

/// Dynamic `import()` in a JavaScript cell resolves `node:` builtins, relative paths from the
/// workspace and ES modules, without Node's experimental-feature warning in the output (trial 17:
/// it failed with `ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING` and no next step).
#[test]
fn javascript_cells_can_use_dynamic_import() {
    let Some(_) = node_or_skip("javascript_cells_can_use_dynamic_import") else {
        return;
    };
    let workspace =
        support::workspace_with(&[("lib/answer.mjs", "export const answer = 42;\nexport default function twice(x) { return 2 * x; }\n")]);
    let run = builder(workspace.path()).build().unwrap();
    let imported = cell_in(
        &run,
        "javascript",
        "const path = await import('node:path');\nconst lib = await import('./lib/answer.mjs');\npath.join('a', 'b') + ' ' + lib.answer + ' ' + lib.default(5)",
    );
    let text = imported.joined_text();
    assert!(!imported.is_error, "{text}");
    assert!(text.contains("Out: 'a/b 42 10'"), "{text}");
    assert!(!text.contains("ExperimentalWarning"), "{text}");
    let again = cell_in(&run, "javascript", "lib.answer + 1");
    assert!(again.joined_text().contains("Out: 43"), "{}", again.joined_text());
    let missing = cell_in(&run, "javascript", "await import('./lib/absent.mjs')");
    assert!(missing.is_error && missing.joined_text().contains("absent.mjs"), "{}", missing.joined_text());
}

#[test]
fn javascript_kernel_persists_awaits_echoes_and_bridges() {
    let Some(_) = node_or_skip("javascript_kernel_persists_awaits_echoes_and_bridges") else {
        return;
    };
    let workspace = support::workspace_with(&[("notes/a.txt", "alpha from the workspace\n")]);
    let (descriptor, handler) = read_note_tool();
    let run = builder(workspace.path()).tool(descriptor, handler).build().unwrap();
    let first = cell_in(&run, "javascript", "let a = 40; const b = 2; console.log('sum is', a + b); a + b");
    assert!(!first.is_error, "{}", first.joined_text());
    assert!(first.joined_text().contains("sum is 42") && first.joined_text().contains("Out: 42"), "{}", first.joined_text());
    assert_eq!(structured(&first)["backend"], "node");
    let again = cell_in(&run, "javascript", "let a = 1; a + b");
    assert!(again.joined_text().contains("Out: 3"), "re-declaring let works and b persists: {}", again.joined_text());
    let awaited = cell_in(&run, "javascript", "const v = await new Promise(r => setTimeout(() => r(7), 20)); v * 6");
    assert!(awaited.joined_text().contains("Out: 42"), "top-level await: {}", awaited.joined_text());
    let persisted = cell_in(&run, "javascript", "v + 1");
    assert!(persisted.joined_text().contains("Out: 8"), "{}", persisted.joined_text());
    let displayed = cell_in(&run, "javascript", "display({k: [1, 2]}); undefined");
    assert!(
        displayed.joined_text().contains("{ k: [ 1, 2 ] }") && !displayed.joined_text().contains("Out:"),
        "{}",
        displayed.joined_text()
    );
    let sync_tool = cell_in(&run, "javascript", "tool('read_note', {path: 'notes/a.txt'}).trim()");
    assert!(sync_tool.joined_text().contains("alpha from the workspace"), "{}", sync_tool.joined_text());
    let async_tool = cell_in(&run, "javascript", "const t = await tool('read_note', {path: 'notes/a.txt'}); t.length");
    assert!(async_tool.joined_text().contains("Out: 25"), "{}", async_tool.joined_text());
    let failing = cell_in(
        &run,
        "javascript",
        "try { tool('read_note', {path: 'missing.txt'}) } catch (e) { e.constructor.name + ': ' + e.message.slice(0, 17) }",
    );
    assert!(failing.joined_text().contains("ToolError: error (not_found)"), "{}", failing.joined_text());
    let error = cell_in(&run, "javascript", "function boom() { throw new Error('bad thing') }\nboom()");
    assert!(
        error.is_error && error.joined_text().contains("bad thing") && error.joined_text().contains("cell-"),
        "{}",
        error.joined_text()
    );
    let python_too = cell(&run, "1 + 1");
    assert_eq!(structured(&python_too)["generation"], 1, "languages have separate kernels");
}

/// @tanstack/query-core 5.59.0 (trial 17): `require("./build/modern/index.cjs").hashKey(["todos",
/// {b: 1, a: 2}])` answered `["todos",{"b":1,"a":2}]` in a cell and `["todos",{"a":2,"b":1}]`
/// under `node`: cells ran in a separate `vm` context, so a cell's object failed the module's
/// `Object.getPrototypeOf(o) === Object.prototype` check. The module here is that check (the
/// shape of query-core's isPlainObject), required from the workspace as the trial did.
#[test]
fn javascript_cells_share_the_realm_of_the_modules_they_require() {
    let Some(_) = node_or_skip("javascript_cells_share_the_realm_of_the_modules_they_require") else {
        return;
    };
    let workspace = support::workspace_with(&[(
        "plain.cjs",
        "function isPlainObject(o) {\n  return Object.prototype.toString.call(o) === '[object Object]' && Object.getPrototypeOf(o) === Object.prototype;\n}\nfunction hashKey(key) {\n  return JSON.stringify(key, (_, v) => isPlainObject(v) ? Object.keys(v).sort().reduce((r, k) => { r[k] = v[k]; return r; }, {}) : v);\n}\nmodule.exports = { isPlainObject, hashKey, isArray: (v) => v instanceof Array };\n",
    )]);
    let run = builder(workspace.path()).build().unwrap();
    let result = cell_in(
        &run,
        "javascript",
        "const plain = require(require('path').join(process.cwd(), 'plain.cjs'));\n[plain.hashKey(['todos', {b: 1, a: 2}]), plain.isPlainObject({}), plain.isArray([1])]",
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains(r#"'["todos",{"a":2,"b":1}]', true, true"#), "a cell's objects are foreign to the required module:\n{text}");
    // The driver's own names (fs, util, vm, …) stay out of the cells' way.
    let result = cell_in(&run, "javascript", "const fs = 1; const util = 2; var vm = 3; fs + util + vm");
    assert!(result.joined_text().contains("Out: 6"), "{}", result.joined_text());
    let result = cell_in(&run, "javascript", "typeof tool + ' ' + typeof display");
    assert!(result.joined_text().contains("Out: 'function function'"), "{}", result.joined_text());
}

#[test]
fn javascript_silent_cell_is_killed_by_the_budget() {
    let Some(_) = node_or_skip("javascript_silent_cell_is_killed_by_the_budget") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let run = run_with_budget(workspace.path(), Duration::from_secs(2));
    cell_in(&run, "javascript", "var kept = 1");
    let spin = cell_in(&run, "javascript", "while (true) {}");
    assert_eq!(structured(&spin)["status"], "timeout", "{}", spin.joined_text());
    let after = cell_in(&run, "javascript", "typeof kept");
    assert!(after.joined_text().contains("'undefined'"), "{}", after.joined_text());
    assert_eq!(structured(&after)["generation"], 2);
}

#[test]
fn no_kernel_or_shell_child_survives_the_run() {
    if !support::alone("eval::no_kernel_or_shell_child_survives_the_run") {
        return;
    }
    let Some(_) = python_or_skip("no_kernel_or_shell_child_survives_the_run") else {
        return;
    };
    let Some(_) = node_or_skip("no_kernel_or_shell_child_survives_the_run") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let before = support::descendant_pids();
    let run = builder(workspace.path()).build().unwrap();
    let started = cell(
        &run,
        "import subprocess\na = subprocess.Popen(['sleep', '300'])\nb = subprocess.Popen(['sleep', '301'], start_new_session=True)\n(a.pid, b.pid)",
    );
    assert!(!started.is_error, "{}", started.joined_text());
    cell_in(&run, "javascript", "require('child_process').spawn('sleep', ['302'], {detached: true}); 1");
    let during: Vec<u32> = support::descendant_pids().into_iter().filter(|pid| !before.contains(pid)).collect();
    assert!(during.len() >= 5, "two kernels and three sleeps are running: {during:?}");
    assert_eq!(run.kernels().unwrap().live_pids().len(), 2);
    drop(run);
    let gone = support::wait_until(Duration::from_secs(5), || support::descendant_pids().iter().all(|pid| before.contains(pid)));
    assert!(gone, "survivors after drop: {:?}", support::descendant_pids());
}

#[test]
fn kernel_runs_inside_the_host_supplied_sandbox() {
    let Some(_) = python_or_skip("kernel_runs_inside_the_host_supplied_sandbox") else {
        return;
    };
    let Some(bwrap) = support::require_binary("kernel_runs_inside_the_host_supplied_sandbox", "bwrap") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    let root = workspace.path().canonicalize().unwrap();
    let prefix: Vec<std::ffi::OsString> = vec![
        bwrap.into(),
        "--ro-bind".into(),
        "/".into(),
        "/".into(),
        "--dev".into(),
        "/dev".into(),
        "--proc".into(),
        "/proc".into(),
        "--tmpfs".into(),
        "/tmp".into(),
        "--bind".into(),
        root.clone().into(),
        root.clone().into(),
        "--unshare-pid".into(),
        "--die-with-parent".into(),
        "--".into(),
    ];
    let probe = std::process::Command::new(&prefix[0]).args(&prefix[1..]).arg("true").status();
    if !matches!(probe, Ok(status) if status.success()) {
        support::skip_or_fail("kernel_runs_inside_the_host_supplied_sandbox", "bwrap cannot create namespaces on this machine");
        return;
    }
    let run = builder(workspace.path())
        .sandbox(Sandbox { command_prefix: prefix, description: "bubblewrap, read-only root".to_owned() })
        .build()
        .unwrap();
    let inside = cell(
        &run,
        "import os\nopen('/tmp/rb-sandbox-marker', 'w').write('x')\n(os.access('/usr', os.W_OK), os.readlink('/proc/self/ns/pid'))",
    );
    assert!(!inside.is_error, "{}", inside.joined_text());
    assert!(inside.joined_text().contains("sandboxed"), "{}", inside.joined_text());
    assert_eq!(structured(&inside)["sandboxed"], true);
    assert_eq!(structured(&inside)["guarded"], true, "the guardian runs inside the sandbox too");
    let text = inside.joined_text();
    // A fresh PID namespace: the kernel's pid namespace is not the host's. (Its pid inside is
    // small but not tiny: the guardian and interpreter shims such as pyenv's fork before it.)
    let host_namespace = std::fs::read_link("/proc/self/ns/pid").unwrap().display().to_string();
    let kernel_namespace = text.split("'pid:[").nth(1).and_then(|rest| rest.split(']').next()).unwrap_or_else(|| panic!("{text}"));
    assert!(host_namespace.starts_with("pid:["), "{host_namespace}");
    assert_ne!(format!("pid:[{kernel_namespace}]"), host_namespace, "the kernel runs in a PID namespace of its own: {text}");
    assert!(text.contains("Out: (False, "), "the root is read-only inside: {text}");
    assert!(!Path::new("/tmp/rb-sandbox-marker").exists(), "the sandbox's /tmp is private");
    assert!(kernels_report(&run).contains("bubblewrap"), "{}", kernels_report(&run));
    let persists = cell(&run, "open('/tmp/rb-sandbox-marker').read()");
    assert!(persists.joined_text().contains("Out: 'x'"));
}

#[test]
fn status_reports_backend_choice_and_reason() {
    let Some(_) = python_or_skip("status_reports_backend_choice_and_reason") else {
        return;
    };
    let workspace = support::workspace_with(&[]);
    // What is checked is which backend runs and why, not how fast it starts: the in-process
    // RustPython interpreter of a debug build needs more than the default 30 s to start on a
    // loaded 2-core machine (seen under CI load: "not ready within 30000 ms"), so the kernels
    // get room to start.
    let config =
        RunConfig { kernel: KernelConfig { startup_timeout: Duration::from_secs(300), ..KernelConfig::default() }, ..RunConfig::default() };
    let run = builder(workspace.path()).config(config.clone()).build().unwrap();
    let before = kernels_report(&run);
    assert!(before.contains("kernel selection cpython") && before.contains("python3 on PATH"), "{before}");
    assert!(before.contains("python kernel: not running"), "{before}");
    let first = cell(&run, "1");
    assert!(!first.is_error, "the cpython kernel runs a cell: {}", first.joined_text());
    let after = kernels_report(&run);
    assert!(after.contains("python kernel: running — cpython 3."), "{after}");
    let embedded = Run::builder(workspace.path())
        .config(config)
        .kernel_factory(KernelFactory::new().selection(KernelSelection::Embedded))
        .approval_policy(allow_all())
        .build()
        .unwrap();
    let embedded_cell = cell(&embedded, "1");
    if runbound::kernel::EMBEDDED_PYTHON_BUILT {
        assert!(
            !embedded_cell.is_error && structured(&embedded_cell)["backend"] == "rustpython",
            "--kernel embedded runs the in-process RustPython kernel: {}",
            embedded_cell.joined_text()
        );
        assert!(kernels_report(&embedded).contains("--kernel embedded was selected"), "{}", kernels_report(&embedded));
    } else {
        assert!(embedded_cell.is_error && embedded_cell.joined_text().contains("embedded"), "{}", embedded_cell.joined_text());
    }
    let unwired = Run::builder(workspace.path()).build().unwrap();
    assert!(unwired.registry().descriptor("eval").is_none(), "eval registers only with a kernel factory (R-REG-1)");
    let descriptor = run.registry().descriptor("eval").unwrap();
    assert_eq!(descriptor.tier, Tier::Exec);
    assert!(!descriptor.parallel_safe);
}

// The protocol has fds 3/4 of its own: a grandchild writing protocol-looking JSON to the
// kernel's stdout is plain output, and no shell child inherits the protocol fds.

/// A line that would end the cell early, or forge output, if stdout were parsed as protocol.
const FORGED_PROTOCOL_LINES: &str = r#"{"type":"done","cell":1,"status":"ok"}
{"type":"stream","name":"stdout","text":"FORGED"}"#;

#[test]
fn python_grandchild_json_on_stdout_is_plain_output_and_protocol_fds_are_private() {
    let Some(_) = python_or_skip("python_grandchild_json_on_stdout_is_plain_output_and_protocol_fds_are_private") else {
        return;
    };
    let workspace = support::workspace_with(&[("forged.jsonl", &format!("{FORGED_PROTOCOL_LINES}\n"))]);
    let run = builder(workspace.path()).build().unwrap();
    // `!cmd` (piped through the driver), os.system (inherits fd 1: raw) and a C-level write.
    let result = cell(
        &run,
        "!cat forged.jsonl\n\
         import os, time\n\
         os.system('cat forged.jsonl; for fd in 3 4; do if [ -e /proc/$$/fd/$fd ]; then echo shell-has-fd$fd; else echo shell-lacks-fd$fd; fi; done')\n\
         os.write(1, b'raw fd1 write\\n')\n\
         time.sleep(0.2)\n\
         print('after the grandchildren')\n\
         40 + 2",
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert_eq!(
        text.matches(r#"{"type":"done","cell":1,"status":"ok"}"#).count(),
        2,
        "both the !cmd and the os.system copy show up verbatim: {text}"
    );
    assert!(!text.contains("\nFORGED"), "a forged stream message was parsed: {text}");
    for needle in ["shell-lacks-fd3", "shell-lacks-fd4", "raw fd1 write", "after the grandchildren", "Out: 42"] {
        assert!(text.contains(needle), "missing {needle:?}: {text}");
    }
    assert!(!text.contains("runbound-cell-end"), "the end marker is never shown: {text}");
    assert!(!text.contains("may be incomplete"), "{text}");
    // The kernel keeps working after the forged lines, and raw output stays with its own cell.
    let next = cell(&run, "import os\nos.write(1, b'second cell raw\\n')\n'ok'");
    let next_text = next.joined_text();
    assert!(next_text.contains("second cell raw") && next_text.contains("Out: 'ok'"), "{next_text}");
    assert!(!next_text.contains("raw fd1 write") && !next_text.contains("shell-lacks"), "{next_text}");
}

#[test]
fn javascript_grandchild_json_on_stdout_is_plain_output_and_protocol_fds_are_private() {
    let Some(_) = node_or_skip("javascript_grandchild_json_on_stdout_is_plain_output_and_protocol_fds_are_private") else {
        return;
    };
    let workspace = support::workspace_with(&[("forged.jsonl", &format!("{FORGED_PROTOCOL_LINES}\n"))]);
    let run = builder(workspace.path()).build().unwrap();
    let result = cell_in(
        &run,
        "javascript",
        "const cp = require('child_process');\n\
         cp.execSync('cat forged.jsonl; for fd in 3 4; do if [ -e /proc/$$/fd/$fd ]; then echo shell-has-fd$fd; else echo shell-lacks-fd$fd; fi; done', {stdio: 'inherit'});\n\
         console.log('after the grandchild');\n\
         40 + 2",
    );
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    assert!(text.contains(r#"{"type":"done","cell":1,"status":"ok"}"#), "{text}");
    assert!(text.contains(r#"{"type":"stream","name":"stdout","text":"FORGED"}"#), "{text}");
    for needle in ["shell-lacks-fd3", "shell-lacks-fd4", "after the grandchild", "Out: 42"] {
        assert!(text.contains(needle), "missing {needle:?}: {text}");
    }
    assert!(!text.contains("runbound-cell-end") && !text.contains("may be incomplete"), "{text}");
    let next = cell_in(&run, "javascript", "'still alive'");
    assert!(next.joined_text().contains("still alive"), "{}", next.joined_text());
}

/// A library host has no subreaper: a grandchild that escaped the kernel's process group
/// (setsid + double fork) is still killed when the run is dropped, found by the descendant tag
/// in its environment.
#[test]
fn dropping_the_run_kills_a_grandchild_that_escaped_the_kernel_group() {
    if python_or_skip("dropping_the_run_kills_a_grandchild_that_escaped_the_kernel_group").is_none() {
        return;
    }
    let workspace = tempfile::tempdir().unwrap();
    let run = builder(workspace.path()).build().unwrap();
    let code = "import os\nr, w = os.pipe()\nif os.fork() == 0:\n    os.setsid()\n    pid = os.fork()\n    if pid == 0:\n        os.execvp('sleep', ['sleep', '300'])\n    os.write(w, str(pid).encode())\n    os._exit(0)\nos.wait()\nint(os.read(r, 32))";
    let result = cell(&run, code);
    let text = result.joined_text();
    assert!(!result.is_error, "{text}");
    let pid: u32 =
        text.lines().find_map(|line| line.strip_prefix("Out: ")?.trim().parse().ok()).unwrap_or_else(|| panic!("a pid in:\n{text}"));
    let alive = |pid: u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        !stat.is_empty() && !stat.contains(") Z")
    };
    assert!(alive(pid), "the escaped sleep runs before the drop");
    drop(run);
    assert!(support::wait_until(Duration::from_secs(5), || !alive(pid)), "escaped grandchild {pid} survived the run's drop");
}

/// Calls `eval` with `options`, cancelling it after `cancel_after` when given.
fn cell_with(
    run: &Run,
    language: &str,
    code: &str,
    options: &runbound::registry::CallOptions,
    cancel_after: Option<Duration>,
) -> ToolResult {
    let canceller = cancel_after.map(|delay| {
        let token = options.cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            token.cancel();
        })
    });
    let result = run.call_with("eval", json!({"code": code, "description": "run a small test cell here", "language": language}), options);
    if let Some(canceller) = canceller {
        canceller.join().unwrap();
    }
    result
}

/// A cancelled call, or one that reaches its own time budget, interrupts the cell like a
/// notebook's interrupt: the kernel stays, with its state (the inactivity budget, by contrast,
/// restarts it; see `python_inactivity_budget_*`).
#[test]
fn a_cancelled_or_overlong_cell_is_interrupted_and_the_kernel_keeps_its_state() {
    if python_or_skip("a_cancelled_or_overlong_cell_is_interrupted_and_the_kernel_keeps_its_state").is_none()
        || node_or_skip("a_cancelled_or_overlong_cell_is_interrupted_and_the_kernel_keeps_its_state").is_none()
    {
        return;
    }
    let workspace = tempfile::tempdir().unwrap();
    let run = builder(workspace.path()).build().unwrap();
    let options = || runbound::registry::CallOptions::new(Caller::Main);

    assert!(!cell(&run, "y = 5").is_error);
    let cancelled = cell_with(&run, "python", "import time\ny = 6\ntime.sleep(30)", &options(), Some(Duration::from_millis(1500)));
    let text = cancelled.joined_text();
    assert!(
        text.contains("the host cancelled the call") && text.contains("interrupted (KeyboardInterrupt) and kept (generation 1)"),
        "{text}"
    );
    assert!(text.contains("time.sleep(30)"), "says where the cell was: {text}");
    let after = cell(&run, "y");
    assert!(after.joined_text().contains("Out: 6") && after.joined_text().contains("kernel generation 1"), "{}", after.joined_text());

    let budgeted = runbound::registry::CallOptions { timeout: Some(Duration::from_secs(2)), ..options() };
    let overlong = cell_with(&run, "python", "z = 7\nimport time\ntime.sleep(30)", &budgeted, None);
    let text = overlong.joined_text();
    assert!(text.contains("reached its time budget of 2000 ms") && text.contains("and kept (generation 1)"), "{text}");
    assert!(cell(&run, "y + z").joined_text().contains("Out: 13"));

    assert!(!cell_in(&run, "javascript", "var w = 1").is_error);
    let cancelled = cell_with(
        &run,
        "javascript",
        "w = 2; const t0 = Date.now(); while (Date.now() - t0 < 30000) {}",
        &options(),
        Some(Duration::from_millis(1500)),
    );
    assert!(cancelled.joined_text().contains("and kept (generation 1)"), "{}", cancelled.joined_text());
    assert!(cell_in(&run, "javascript", "w").joined_text().contains("Out: 2"));
}
