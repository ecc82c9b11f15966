# runbound kernel driver for the embedded RustPython interpreter. Embedded in the runbound
# binary and executed once per interpreter (kernel generation) as the module `_runbound`; it is
# not a file on disk.
# The helpers it shares with driver.py (output capping, magic rewriting, %timeit options,
# limits) are in driver_common.py, which the host puts in front of this source.
#
# It speaks the same JSON messages as driver.py (the CPython driver), but instead of pipes it uses
# native functions the host installs in this module's namespace before running it:
#   _native_send(text)            one kernel -> host message (a JSON object as text)
#   _native_receive(timeout_ms)   the next host -> kernel message as JSON text, or None on timeout;
#                                 raises SystemExit when the host shut the kernel down
#   _native_cell(number)          marks the running cell (0 = idle) so interrupts hit only it
#   _native_sleep(seconds)        an interruptible time.sleep (checks for host interrupts)
# and the constants _WORKSPACE_ROOT (the run's workspace, absolute) and _RUSTPYTHON_VERSION.
#
# The interpreter shares the host (agent) process, so everything that would act on that process
# is refused with a clear message: starting processes (!cmd, %%bash, subprocess, os.system),
# os.chdir/%cd, changing the environment, signal handlers, os._exit/os.abort, and %pip (no
# site-packages, no C extensions). Workspace-relative paths are anchored explicitly (WORKSPACE).
import os
import sys

import ast
import codecs
import io
import json
import linecache
import time
import traceback
import types


class _Limits:
    max_output_bytes = 64 * 1024
    max_item_bytes = 16 * 1024
    max_images = 4
    max_image_bytes = 1024 * 1024
    dataframe_max_rows = 30


_LIMITS = _Limits()
_WORKSPACE = _WORKSPACE_ROOT


def _send(message):
    _native_send(json.dumps(message, default=repr))


class EmbeddedKernelUnsupported(RuntimeError):
    """Raised when a cell asks the embedded RustPython kernel for something it cannot do."""


_SWITCH = (
    "Use the CPython kernel for this (the full notebook experience): start the run with "
    "--kernel cpython, or --kernel auto with python3 on PATH or a project .venv."
)


def _unsupported(what, why):
    raise EmbeddedKernelUnsupported("%s is not available in the embedded RustPython kernel: %s. %s" % (what, why, _SWITCH))


def _latest_line(tail):
    """The last non-empty line of the kept tail (at most 200 characters), or ""."""
    for _, text in reversed(tail):
        for line in reversed(text[-4096:].splitlines()):
            if line.strip():
                return line.strip()[:200]
    return ""


class _CellOutput:
    """Per-cell stream budget: the head is sent as it is produced; past the budget only a tail is kept."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.sent_bytes = 0
        self.omitted_bytes = 0
        self.tail = []
        self.tail_bytes = 0
        self.last_heartbeat = 0.0

    def emit(self, name, text):
        size = len(text.encode("utf-8", "replace"))
        head_budget = _LIMITS.max_output_bytes // 2
        if self.omitted_bytes == 0 and not self.tail and self.sent_bytes + size <= head_budget:
            self.sent_bytes += size
            _send({"type": "stream", "name": name, "text": text})
            return
        if self.omitted_bytes == 0 and not self.tail and self.sent_bytes < head_budget:
            room = head_budget - self.sent_bytes
            head = text.encode("utf-8", "replace")[:room].decode("utf-8", "ignore")
            self.sent_bytes += len(head.encode("utf-8"))
            _send({"type": "stream", "name": name, "text": head})
            text = text[len(head):]
            size = len(text.encode("utf-8", "replace"))
        self.tail.append([name, text])
        self.tail_bytes += size
        tail_budget = _LIMITS.max_output_bytes - head_budget
        while self.tail_bytes > tail_budget and self.tail:
            first_name, first_text = self.tail[0]
            first_size = len(first_text.encode("utf-8", "replace"))
            excess = self.tail_bytes - tail_budget
            if first_size <= excess:
                self.tail.pop(0)
                self.tail_bytes -= first_size
                self.omitted_bytes += first_size
            else:
                cut = first_text.encode("utf-8", "replace")[excess:].decode("utf-8", "ignore")
                removed = first_size - len(cut.encode("utf-8"))
                self.tail[0] = [first_name, cut]
                self.tail_bytes -= removed
                self.omitted_bytes += removed
        now = time.monotonic()
        if now - self.last_heartbeat >= 0.25:
            # Past the head budget only this heartbeat reaches the host: it carries the latest
            # output line, which the host reports as the call's progress (at most 4 a second).
            self.last_heartbeat = now
            _send({"type": "activity", "omitted_bytes": self.omitted_bytes, "latest": _latest_line(self.tail)})


_CELL = _CellOutput()


class _BinaryStream(io.BufferedIOBase):
    """`sys.stdout.buffer` / `sys.stderr.buffer`: bytes written here are decoded as UTF-8
    (incrementally: a character split across writes is kept until its last byte; invalid bytes
    become U+FFFD) and fed to the text stream, so they reach the same cell output in order."""

    def __init__(self, text_stream):
        self._text = text_stream
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self):
        return True

    def readable(self):
        return False

    def seekable(self):
        return False

    def isatty(self):
        return False

    def fileno(self):
        return self._text.fileno()

    def write(self, data):
        if isinstance(data, str):
            raise TypeError("a bytes-like object is required, not 'str'")
        data = bytes(memoryview(data))
        text = self._decoder.decode(data)
        if text:
            self._text.write(text)
        return len(data)

    def flush(self):
        self._text.flush()


class _StreamWriter:
    """sys.stdout / sys.stderr replacement: line-buffered, sends `stream` messages to the host.
    `buffer` takes bytes for the same stream; there is no file descriptor (`fileno()` raises
    io.UnsupportedOperation)."""

    encoding = "utf-8"
    errors = "replace"
    line_buffering = True

    def __init__(self, name):
        self.name = "<%s>" % name
        self._name = name
        self._buffer = []
        self.buffer = _BinaryStream(self)

    def writable(self):
        return True

    def readable(self):
        return False

    def isatty(self):
        return False

    def fileno(self):
        raise io.UnsupportedOperation("the embedded kernel's %s has no file descriptor" % self._name)

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not %s" % type(text).__name__)
        self._buffer.append(text)
        if "\n" in text or sum(len(part) for part in self._buffer) >= 8192:
            self.flush()
        return len(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        if not self._buffer:
            return
        text = "".join(self._buffer)
        self._buffer = []
        _CELL.emit(self._name, text)

    @property
    def closed(self):
        return False


def _render(value):
    if not isinstance(value, type):
        render = getattr(value, "_repr_markdown_", None)
        if render is not None:
            try:
                produced = render()
            except Exception:
                produced = None
            if produced is not None:
                return {"kind": "text", "text": _cap_text(str(produced))}
    try:
        text = repr(value)
    except Exception as err:
        text = "<repr failed: %s: %s>" % (type(err).__name__, err)
    return {"kind": "text", "text": _cap_text(text)}


def display(*values):
    """Shows each value in the cell's output (its `_repr_markdown_` when it has one, else repr)."""
    _flush_streams()
    for value in values:
        _send({"type": "display", "item": _render(value)})


_TOOL_COUNTER = [0]


def tool(name, args=None, **kwargs):
    """Calls the run's tool `name` with `args` (a dict) through every layer of the registry
    (tier check, guardrails, approvals, post-write layers) as the caller of this eval. Returns
    the structured content when the tool gives one (a dict, with the result's text under "text",
    e.g. the numbered lines of `read`), else its text. Raises ToolError on failure."""
    if args is None:
        args = {}
    if kwargs:
        args = dict(args, **kwargs)
    if not isinstance(name, str):
        raise TypeError("tool(name, args): name must be a str, got %s" % type(name).__name__)
    if not isinstance(args, dict):
        raise TypeError("tool(name, args): args must be a dict, got %s" % type(args).__name__)
    _flush_streams()
    _TOOL_COUNTER[0] += 1
    call_id = _TOOL_COUNTER[0]
    _send({"type": "tool_call", "id": call_id, "name": name, "args": args})
    while True:
        text = _native_receive(100)
        if text is None:
            continue
        message = json.loads(text)
        if message.get("type") == "tool_result" and message.get("id") == call_id:
            break
    if not message.get("ok"):
        raise ToolError(message.get("error") or "tool %s failed" % name)
    return message.get("value")


# ----------------------------------------------------------------------------------------------
# Magics: the ones that work in-process are run; the rest raise EmbeddedKernelUnsupported with
# the reason. Only magic lines at statement start are rewritten; strings are untouched.


def _timeit(statement, setup, number, repeat, namespace):
    import timeit

    timer = timeit.Timer(statement, setup=setup or "pass", globals=namespace)
    if number is None:
        number, _ = timer.autorange()
        number = max(1, number)
    runs = [value / number for value in timer.repeat(repeat=max(1, repeat), number=number)]
    mean = sum(runs) / len(runs)
    deviation = (sum((run - mean) ** 2 for run in runs) / (len(runs) - 1)) ** 0.5 if len(runs) > 1 else 0.0
    print("%s ± %s per loop (mean ± std. dev. of %d runs, %d loops each)" % (_format_seconds(mean), _format_seconds(deviation), len(runs), number))


def _workspace_path(path):
    path = os.path.expanduser(path)
    if os.path.isabs(path) or not _WORKSPACE:
        return path
    return os.path.join(_WORKSPACE, path)


def system(command, namespace=None):
    """`!cmd`: refused in the embedded kernel (it cannot start processes)."""
    _unsupported("!%s (a shell command)" % command, "it runs inside the agent's own process and cannot start child processes; if this run has a shell tool, call it with tool(name, args)")


def getoutput(command, namespace=None):
    """`x = !cmd`: refused in the embedded kernel (it cannot start processes)."""
    system(command, namespace)


def line_magic(name, argument, namespace=None):
    """Runs `%name argument`. Supported here: pwd, env (read-only), timeit, time."""
    namespace = namespace if namespace is not None else _NAMESPACE
    if name == "pip":
        _unsupported("%pip", "RustPython cannot install packages into itself or load C extensions; only its bundled standard library is importable")
    if name == "cd":
        _unsupported("%cd", "changing directory would change the working directory of the whole agent process; use paths relative to WORKSPACE (%r)" % _WORKSPACE)
    if name == "pwd":
        return os.getcwd()
    if name == "env":
        argument = argument.strip()
        if not argument:
            return dict(os.environ)
        if "=" in argument or " " in argument:
            _unsupported("%env NAME=VALUE", "setting environment variables would change the environment of the whole agent process")
        return os.environ.get(argument)
    if name == "timeit":
        number, repeat, statement = _parse_timeit_options(argument)
        return _timeit(statement, "pass", number, repeat, namespace)
    if name == "time":
        start = time.perf_counter()
        try:
            return eval(compile(argument, "<%time>", "eval"), namespace)
        except SyntaxError:
            exec(compile(argument, "<%time>", "exec"), namespace)
        finally:
            print("Wall time: %s" % _format_seconds(time.perf_counter() - start))
        return None
    raise NameError("unknown magic %%%s: supported line magics in the embedded kernel are %%pwd, %%env NAME, %%timeit, %%time; cell magics %%%%timeit, %%%%writefile" % name)


def cell_magic(name, argument, body, namespace=None):
    """Runs a `%%name argument` cell with `body`. Supported here: timeit, writefile."""
    namespace = namespace if namespace is not None else _NAMESPACE
    if name in ("bash", "sh", "script", "system"):
        _unsupported("%%" + name, "it runs inside the agent's own process and cannot start child processes")
    if name == "timeit":
        number, repeat, setup = _parse_timeit_options(argument)
        return _timeit(body, setup, number, repeat, namespace)
    if name == "writefile":
        words = argument.split()
        append = "-a" in words or "--append" in words
        paths = [word for word in words if not word.startswith("-")]
        if len(paths) != 1:
            raise ValueError("%%writefile takes exactly one file name, got %r" % argument)
        path = _workspace_path(paths[0])
        existed = os.path.exists(path)
        with open(path, "a" if append else "w", encoding="utf-8") as handle:
            handle.write(body)
        print("%s %s" % ("Appending to" if append else ("Overwriting" if existed else "Writing"), paths[0]))
        return None
    raise NameError("unknown cell magic %%%%%s: supported in the embedded kernel are %%%%timeit, %%%%writefile" % name)


# ----------------------------------------------------------------------------------------------
# The host process is shared: refuse what would act on it.


def _refuse(module, name, what, why):
    if not hasattr(module, name):
        return

    def refused(*args, **kwargs):
        _unsupported(what, why)

    refused.__name__ = name
    setattr(module, name, refused)


_NO_PROCESSES = "it runs inside the agent's own process and cannot start child processes"
for _name in ("system", "popen", "fork", "forkpty", "execv", "execve", "execl", "execle", "execlp", "execlpe", "execvp", "execvpe", "spawnv", "spawnve", "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnvp", "spawnvpe", "posix_spawn", "posix_spawnp"):
    _refuse(os, _name, "os.%s" % _name, _NO_PROCESSES)
for _name in ("_exit", "abort", "kill", "killpg"):
    _refuse(os, _name, "os.%s" % _name, "it would act on the agent's own process; raise an exception or use sys.exit() to end the cell")
for _name in ("chdir", "fchdir", "chroot"):
    _refuse(os, _name, "os.%s" % _name, "it would change the working directory of the whole agent process; use paths relative to WORKSPACE")
for _name in ("putenv", "unsetenv"):
    _refuse(os, _name, "changing os.environ", "it would change the environment of the whole agent process")
try:
    import _posixsubprocess

    _refuse(_posixsubprocess, "fork_exec", "subprocess", _NO_PROCESSES)
except ImportError:
    pass
try:
    import signal as _signal_module

    for _name in ("signal", "alarm", "setitimer", "pthread_kill", "raise_signal"):
        _refuse(_signal_module, _name, "signal.%s" % _name, "signal handlers and signals are process-wide and the process is the agent's")
except ImportError:
    pass
time.sleep = _native_sleep


# ----------------------------------------------------------------------------------------------
# Cell execution: IPython's last_expr echo, `_`, tracebacks into the cell.

_main_module = types.ModuleType("__main__")
_NAMESPACE = _main_module.__dict__
sys.modules["__main__"] = _main_module

_helper = sys.modules.get("_runbound")
if _helper is None:
    _helper = types.ModuleType("_runbound")
    sys.modules["_runbound"] = _helper
for _name in ("tool", "ToolError", "display", "system", "getoutput", "line_magic", "cell_magic", "rewrite_magics", "EmbeddedKernelUnsupported"):
    setattr(_helper, _name, globals()[_name])
_NAMESPACE.update({"tool": tool, "ToolError": ToolError, "display": display, "_runbound": _helper, "WORKSPACE": _WORKSPACE, "EmbeddedKernelUnsupported": EmbeddedKernelUnsupported})
_INITIAL_NAMES = set(_NAMESPACE)
if _WORKSPACE and _WORKSPACE not in sys.path:
    sys.path.insert(0, _WORKSPACE)


def _echoed_expression(source, tree):
    """The final bare expression node that IPython's last_expr would echo, or None (no final
    expression, or a trailing `;` suppresses it)."""
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return None
    node = tree.body[-1]
    lines = source.split("\n")
    after = lines[node.end_lineno - 1].encode("utf-8")[node.end_col_offset :].decode("utf-8", "ignore").strip()
    later_lines = "\n".join(lines[node.end_lineno :]).strip()
    if after.startswith(";") or later_lines.startswith(";"):
        return None
    return node


def _compile_parts(source, node, filename):
    """(statements code or None, expression code or None), keeping the cell's line numbers: the
    source text is split at the echoed expression (AST offsets are UTF-8 bytes) and the expression
    is compiled padded with the newlines before it. (RustPython 0.5 compiles AST objects with
    every line number set to 1, so the AST is used only to find the split.)"""
    if node is None:
        return compile(source, filename, "exec"), None
    data = source.encode("utf-8")
    starts = [0]
    for line in source.split("\n"):
        starts.append(starts[-1] + len(line.encode("utf-8")) + 1)
    begin = starts[node.lineno - 1] + node.col_offset
    end = starts[node.end_lineno - 1] + node.end_col_offset
    head_text = data[:begin].decode("utf-8", "ignore")
    expression = data[begin:end].decode("utf-8", "ignore")
    head = compile(head_text, filename, "exec") if head_text.strip() else None
    tail = compile("\n" * (node.lineno - 1) + "(" + expression + "\n)", filename, "eval")
    return head, tail


def _execute(cell, source):
    filename = "<cell-%d>" % cell
    rewritten = rewrite_magics(source)
    linecache.cache[filename] = (len(rewritten), None, [line + "\n" for line in rewritten.split("\n")], filename)
    tree = ast.parse(rewritten, filename)
    node = _echoed_expression(rewritten, tree)
    head, tail = _compile_parts(rewritten, node, filename)
    if head is not None:
        exec(head, _NAMESPACE)
    if tail is not None:
        value = eval(tail, _NAMESPACE)
        if value is not None:
            _NAMESPACE["_"] = value
            _flush_streams()
            _send({"type": "result", "item": _render(value)})


def _format_error(exc_type, exc_value, exc_tb):
    frames = exc_tb
    while frames is not None and not frames.tb_frame.f_code.co_filename.startswith("<cell-"):
        frames = frames.tb_next
    if issubclass(exc_type, SyntaxError):
        frames = None
    text = "".join(traceback.format_exception(exc_type, exc_value, frames))
    if issubclass(exc_type, ModuleNotFoundError):
        text += (
            "note: the embedded RustPython kernel can import only its bundled standard library "
            "and pure-Python modules under WORKSPACE: no site-packages, no C extensions "
            "(numpy, pandas, matplotlib, ...). " + _SWITCH + "\n"
        )
    return text


_STARTUP_MODULES = set(sys.modules)


def _inventory():
    names = sorted(name for name in _NAMESPACE if name not in _INITIAL_NAMES and not name.startswith("_") and not isinstance(_NAMESPACE[name], types.ModuleType))
    modules = sorted(name for name in sys.modules if "." not in name and not name.startswith("_") and name not in _STARTUP_MODULES)
    return {"type": "inventory", "variables": names, "modules": modules}


def _handle_execute(message):
    cell = int(message.get("cell", 0))
    _apply_limits(message.get("limits"))
    _CELL.reset()
    status = "ok"
    _native_cell(cell)
    try:
        _execute(cell, message.get("code", ""))
    except BaseException as err:  # noqa: BLE001 - every cell ends with a report
        _native_cell(0)
        if isinstance(err, KeyboardInterrupt):
            # The host's interrupt grace ends here: the report below may take a while.
            _send({"type": "interrupted", "cell": cell})
        if isinstance(err, SystemExit) and err.code in (None, 0) and not getattr(err, "_runbound_shutdown", False):
            status = "ok"
        else:
            status = "error"
            _flush_streams()
            exc_type, exc_value, exc_tb = sys.exc_info()
            _send({"type": "error", "ename": exc_type.__name__, "evalue": _cap_text(str(exc_value)), "traceback": _cap_text(_format_error(exc_type, exc_value, exc_tb))})
    finally:
        _native_cell(0)
    _flush_streams()
    _send({"type": "done", "cell": cell, "status": status, "omitted_bytes": _CELL.omitted_bytes, "head_bytes": _CELL.sent_bytes, "tail_bytes": _CELL.tail_bytes, "tail": _CELL.tail, "figures_omitted": 0})


def _main():
    sys.stdout = _StreamWriter("stdout")
    sys.stderr = _StreamWriter("stderr")
    sys.stdin = io.StringIO("")
    sys.displayhook = lambda value: None if value is None else display(value)
    _send({"type": "ready", "backend": "rustpython", "version": "%s (Python %s compatible)" % (_RUSTPYTHON_VERSION, sys.version.split()[0]), "cwd": os.getcwd()})
    while True:
        try:
            text = _native_receive(100)
        except KeyboardInterrupt:
            continue
        if text is None:
            continue
        message = json.loads(text)
        kind = message.get("type")
        if kind == "shutdown":
            return
        if kind == "inventory":
            _send(_inventory())
            continue
        if kind == "execute":
            _handle_execute(message)
