# runbound kernel driver for CPython. Embedded in the runbound binary; the kernel is started as
# `python -u -X utf8 -c <boot>`, where the boot line reads this source from fd 5 (the host writes
# it there right after the spawn and closes the pipe); it is not a file on disk. When the kernel
# runs under runbound's process guardian, RUNBOUND_GUARDIAN_PID is in its environment (or
# RUNBOUND_GUARDIAN_UNAVAILABLE with the reason); the driver reports it in `ready` and removes it
# from the environment cells see.
# The helpers it shares with embedded_driver.py (output capping, magic rewriting, %timeit
# options, limits) are in driver_common.py, which the host puts in front of this source.
#
# Protocol: JSON lines on descriptors of its own: host -> kernel on fd 3, kernel -> host on fd 4
# (made non-inheritable here, before any user code runs, so shell children never see them).
# fd 0 is /dev/null; fd 1 and fd 2 are plain pipes the host shows as raw output (C-level
# writes, os.system children). sys.stdout/sys.stderr are replaced by writers that send `stream`
# messages, so prints stay ordered with display items. After each cell an end marker
# (NUL "runbound-cell-end N" NUL) is written to fd 1 and to fd 2 so the host knows the cell's raw
# output is complete. No socket, no port.
#
# host -> kernel: {"type":"execute","cell":N,"code":...,"limits":{...}}
#                 {"type":"tool_result","id":K,"ok":bool,"value":...,"error":...}
#                 {"type":"inventory"}   {"type":"shutdown"}
# kernel -> host: {"type":"ready",...} {"type":"stream","name":"stdout"|"stderr","text":...}
#                 {"type":"display"|"result","item":{...}} {"type":"error","ename","evalue","traceback"}
#                 {"type":"tool_call","id":K,"name":...,"args":...}
#                 {"type":"child","pid":P,"state":"started"|"exited"}
#                 {"type":"done","cell":N,"status":"ok"|"error","omitted_bytes":B,"head_bytes":H,"tail_bytes":T,"tail":[[name,text],...]}
import os
import sys

os.environ.setdefault("MPLBACKEND", "module://_runbound_mpl_backend")

import ast
import base64
import codecs
import io
import json
import linecache
import shlex
import signal
import subprocess
import threading
import time
import traceback
import types

os.set_inheritable(3, False)
os.set_inheritable(4, False)
_GUARDIAN_PID = os.environ.pop("RUNBOUND_GUARDIAN_PID", None)
_GUARDIAN_UNAVAILABLE = os.environ.pop("RUNBOUND_GUARDIAN_UNAVAILABLE", None)
_PROTO_IN = os.fdopen(3, "rb")
_PROTO_OUT = os.fdopen(4, "wb", buffering=0)
_SEND_LOCK = threading.RLock()
_REAL_STDOUT = sys.stdout
_REAL_STDERR = sys.stderr


def _send(message):
    data = (json.dumps(message, default=repr) + "\n").encode("utf-8", "replace")
    with _SEND_LOCK:
        _PROTO_OUT.write(data)


def _write_raw_cell_end(cell):
    """Flushes C-level stdio, then writes the end-of-cell marker to fd 1 and to fd 2; for each,
    False if that descriptor is gone."""
    global _LIBC
    try:
        if _LIBC is None:
            import ctypes

            _LIBC = ctypes.CDLL(None)
        _LIBC.fflush(None)
    except Exception:
        _LIBC = False
    written = []
    for fd in (1, 2):
        try:
            os.write(fd, b"\0runbound-cell-end %d\0" % cell)
            written.append(True)
        except OSError:
            written.append(False)
    return written


_LIBC = None


def _read_message():
    line = _PROTO_IN.readline()
    if not line:
        raise EOFError("the host closed the kernel's request pipe")
    return json.loads(line)


class _Limits:
    max_output_bytes = 64 * 1024
    max_item_bytes = 16 * 1024
    max_images = 4
    max_image_bytes = 1024 * 1024
    dataframe_max_rows = 30
    dataframe_max_columns = 20


_LIMITS = _Limits()


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
        self.figures_shown = 0
        self.figures_omitted = 0

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


class _StreamWriter(io.TextIOBase):
    """sys.stdout / sys.stderr replacement: line-buffered, sends `stream` messages. `buffer` takes
    bytes for the same stream; `fileno()` is the raw pipe the host also shows (fd 1 or 2)."""

    def __init__(self, name):
        self._name = name
        self._buffer = []
        self._lock = threading.RLock()
        self._binary = _BinaryStream(self)

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "strict" if self._name == "stdout" else "backslashreplace"

    @property
    def name(self):
        return "<%s>" % self._name

    @property
    def buffer(self):
        return self._binary

    @property
    def line_buffering(self):
        return True

    def readable(self):
        return False

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        return 1 if self._name == "stdout" else 2

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not %s" % type(text).__name__)
        with self._lock:
            self._buffer.append(text)
            if "\n" in text or sum(len(part) for part in self._buffer) >= 8192:
                self.flush()
        return len(text)

    def flush(self):
        with self._lock:
            if not self._buffer:
                return
            text = "".join(self._buffer)
            self._buffer = []
        _CELL.emit(self._name, text)


# ----------------------------------------------------------------------------------------------
# Rendering: DataFrames, figures, rich reprs, plain reprs. Every item is capped here, before
# transport, with head + tail kept and an explicit marker.


def _render_dataframe(frame, kind):
    total_rows = len(frame)
    shape = getattr(frame, "shape", (total_rows,))
    shown = frame
    notes = []
    max_rows = _LIMITS.dataframe_max_rows
    if total_rows > max_rows:
        shown = frame.head(max_rows)
    if kind == "DataFrame" and frame.shape[1] > _LIMITS.dataframe_max_columns:
        shown = shown.iloc[:, : _LIMITS.dataframe_max_columns]
        notes.append("showing %d of %d columns" % (_LIMITS.dataframe_max_columns, frame.shape[1]))
    try:
        import tabulate  # noqa: F401

        table = shown.to_markdown()
        fmt = "markdown"
    except Exception:
        table = shown.to_string()
        fmt = "text"
    header = "%s shape %s" % (kind, tuple(shape))
    rows_note = "showing %d of %d rows" % (min(total_rows, max_rows), total_rows)
    text = "%s (%s)\n%s" % (header, rows_note, table)
    if notes:
        text += "\n" + "; ".join(notes)
    return {"kind": "table", "format": fmt, "text": _cap_text(text), "shape": list(shape), "rows_shown": min(total_rows, max_rows), "rows_total": total_rows}


def _png_item(data, note=None):
    if len(data) > _LIMITS.max_image_bytes:
        return {"kind": "text", "text": "[image of %d bytes not shown: over the %d-byte cap]" % (len(data), _LIMITS.max_image_bytes)}
    item = {"kind": "png", "data": base64.b64encode(data).decode("ascii"), "bytes": len(data)}
    if len(data) >= 24 and data[:8] == b"\x89PNG\r\n\x1a\n":
        item["width"] = int.from_bytes(data[16:20], "big")
        item["height"] = int.from_bytes(data[20:24], "big")
    if note:
        item["note"] = note
    return item


def _figure_png(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    data = buffer.getvalue()
    if len(data) > _LIMITS.max_image_bytes:
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=50, bbox_inches="tight")
        data = buffer.getvalue()
    return data


def _render(value):
    type_name = type(value).__name__
    module = type(value).__module__ or ""
    if module.startswith("pandas") and type_name in ("DataFrame", "Series"):
        try:
            return _render_dataframe(value, type_name)
        except Exception as err:
            return {"kind": "text", "text": _cap_text("%r\n[table rendering failed: %s]" % (value, err))}
    if module.startswith("matplotlib") and type_name == "Figure":
        try:
            import matplotlib.pyplot as plt

            data = _figure_png(value)
            plt.close(value)
            return _png_item(data)
        except Exception as err:
            return {"kind": "text", "text": "[figure could not be rendered: %s]" % err}
    for method, kind in (("_repr_png_", "png"), ("_repr_markdown_", "markdown")):
        render = getattr(value, method, None)
        if render is None or isinstance(value, type):
            continue
        try:
            produced = render()
        except Exception:
            continue
        if produced is None:
            continue
        if kind == "png":
            if isinstance(produced, str):
                produced = base64.b64decode(produced)
            return _png_item(produced)
        return {"kind": "text", "text": _cap_text(str(produced))}
    try:
        text = repr(value)
    except Exception as err:
        text = "<repr failed: %s: %s>" % (type(err).__name__, err)
    return {"kind": "text", "text": _cap_text(text)}


def _flush_figures():
    """Sends every open matplotlib figure as a PNG item and closes it (count and size capped)."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    _flush_streams()
    for number in list(plt.get_fignums()):
        figure = plt.figure(number)
        if _CELL.figures_shown >= _LIMITS.max_images:
            _CELL.figures_omitted += 1
            plt.close(figure)
            continue
        try:
            data = _figure_png(figure)
            _send({"type": "display", "item": _png_item(data, "figure %d" % number)})
            _CELL.figures_shown += 1
        except Exception as err:
            _send({"type": "display", "item": {"kind": "text", "text": "[figure %d could not be rendered: %s]" % (number, err)}})
        finally:
            plt.close(figure)


def display(*values):
    """Shows each value in the cell's output: tables for DataFrames, PNG for figures, else repr."""
    _flush_streams()
    for value in values:
        _send({"type": "display", "item": _render(value)})


# matplotlib backend: Agg canvas, `plt.show()` flushes figures into the cell's output.
_MPL_BACKEND_SOURCE = '''
from matplotlib.backends.backend_agg import FigureCanvasAgg as FigureCanvas
from matplotlib.backend_bases import FigureManagerBase as FigureManager
def show(*args, **kwargs):
    _runbound_flush_figures()
'''


class _BackendFinder:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "_runbound_mpl_backend":
            return None
        import importlib.util

        return importlib.util.spec_from_loader(name, cls)

    @staticmethod
    def create_module(spec):
        return None

    @staticmethod
    def exec_module(module):
        module.__dict__["_runbound_flush_figures"] = _flush_figures
        exec(compile(_MPL_BACKEND_SOURCE, "<runbound matplotlib backend>", "exec"), module.__dict__)


sys.meta_path.append(_BackendFinder)


# ----------------------------------------------------------------------------------------------
# The bridge: tool(name, args) re-enters the host's registry as the caller of the eval.


_TOOL_LOCK = threading.Lock()
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
    with _TOOL_LOCK:
        _TOOL_COUNTER[0] += 1
        call_id = _TOOL_COUNTER[0]
        _send({"type": "tool_call", "id": call_id, "name": name, "args": args})
        while True:
            message = _read_message()
            if message.get("type") == "tool_result" and message.get("id") == call_id:
                break
    if not message.get("ok"):
        raise ToolError(message.get("error") or "tool %s failed" % name)
    return message.get("value")


# ----------------------------------------------------------------------------------------------
# Shell children and magics. Children run in their own session (process group), stdin closed,
# PAGER=cat, GIT_EDITOR=true; on interrupt their whole group is killed.


class LineList(list):
    """The result of `x = !cmd`: a list of output lines; `.n` joins with newlines, `.s` with spaces."""

    @property
    def n(self):
        return "\n".join(self)

    @property
    def s(self):
        return " ".join(self)


def _child_env():
    env = dict(os.environ)
    env.update({"PAGER": "cat", "GIT_PAGER": "cat", "GIT_EDITOR": "true", "EDITOR": "true", "TERM": "dumb", "CI": "1"})
    env.pop("MPLBACKEND", None)
    return env


def _shell_path():
    for candidate in ("/bin/bash", "/usr/bin/bash", "/bin/sh"):
        if os.path.exists(candidate):
            return candidate
    return "/bin/sh"


def _run_child(argv, capture):
    """Runs argv with stdout+stderr merged, streamed to sys.stdout (or captured). Returns (code, text)."""
    _flush_streams()
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True, env=_child_env())
    _send({"type": "child", "pid": process.pid, "state": "started"})
    captured = []
    try:
        for raw in iter(process.stdout.readline, b""):
            line = raw.decode("utf-8", "replace")
            if capture:
                captured.append(line)
            else:
                sys.stdout.write(line)
        code = process.wait()
    except BaseException:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        process.wait()
        raise
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        _send({"type": "child", "pid": process.pid, "state": "exited"})
    return code, "".join(captured)


def _expand(command, namespace):
    """IPython-style interpolation: {expr} is evaluated, $name substituted; $$ and {{ }} escape."""
    import re
    import string

    class _Formatter(string.Formatter):
        def get_field(self, field_name, args, kwargs):
            return eval(field_name, namespace), field_name

    try:
        command = _Formatter().vformat(command, (), {})
    except Exception:
        pass
    return re.sub(r"(?<!\$)\$([A-Za-z_][A-Za-z0-9_]*)", lambda m: str(namespace.get(m.group(1), m.group(0))), command).replace("$$", "$")


def system(command, namespace=None):
    """`!cmd`: runs a shell command, streams its output; sets `_exit_code` in the namespace."""
    namespace = namespace if namespace is not None else _NAMESPACE
    code, _ = _run_child([_shell_path(), "-c", _expand(command, namespace)], capture=False)
    namespace["_exit_code"] = code
    if code != 0:
        sys.stderr.write("[exit code %d]\n" % code)


def getoutput(command, namespace=None):
    """`x = !cmd`: runs a shell command and returns its output as a LineList of lines."""
    namespace = namespace if namespace is not None else _NAMESPACE
    code, text = _run_child([_shell_path(), "-c", _expand(command, namespace)], capture=True)
    namespace["_exit_code"] = code
    return LineList(text.splitlines())


_DIR_HISTORY = []


def _magic_cd(argument, namespace):
    target = argument.strip()
    if target in ("", "~"):
        target = os.path.expanduser("~")
    elif target == "-":
        if not _DIR_HISTORY:
            raise RuntimeError("%cd -: no previous directory")
        target = _DIR_HISTORY[-1]
    target = os.path.expanduser(_expand(target, namespace))
    previous = os.getcwd()
    os.chdir(target)
    _DIR_HISTORY.append(previous)
    print(os.getcwd())


def _magic_env(argument, namespace):
    argument = argument.strip()
    if not argument:
        return dict(os.environ)
    if "=" in argument:
        name, value = argument.split("=", 1)
    elif " " in argument:
        name, value = argument.split(None, 1)
    else:
        return os.environ.get(argument)
    name, value = name.strip(), _expand(value.strip(), namespace)
    os.environ[name] = value
    print("env: %s=%s" % (name, value))


def _distribution_versions():
    import importlib.metadata

    versions = {}
    for dist in importlib.metadata.distributions():
        try:
            name = dist.metadata["Name"]
        except Exception:
            continue
        if name:
            versions[name.lower().replace("_", "-")] = (dist.version, dist)
    return versions


def _top_level_names(dist):
    names = set()
    try:
        text = dist.read_text("top_level.txt")
    except Exception:
        text = None
    if text:
        names.update(line.strip() for line in text.splitlines() if line.strip())
    for path in dist.files or []:
        parts = path.parts
        if not parts or parts[0].endswith((".dist-info", ".egg-info")) or parts[0] in ("..", "__pycache__"):
            continue
        top = parts[0]
        if top.endswith(".py"):
            top = top[:-3]
        elif "." in top and len(parts) == 1:
            top = top.split(".")[0]
        if top.isidentifier():
            names.add(top)
    return names


def _magic_pip(argument, namespace):
    import importlib
    import site

    before = _distribution_versions()
    argv = [sys.executable, "-m", "pip"] + shlex.split(_expand(argument, namespace)) + ["--disable-pip-version-check"]
    code, _ = _run_child(argv, capture=False)
    after = _distribution_versions()
    importlib.invalidate_caches()
    site_dirs = list(getattr(site, "getsitepackages", lambda: [])())
    try:
        site_dirs.append(site.getusersitepackages())
    except Exception:
        pass
    for directory in site_dirs:
        if os.path.isdir(directory):
            site.addsitedir(directory)
    touched = []
    for name, (version, dist) in after.items():
        if name not in before or before[name][0] != version:
            touched.append((name, before.get(name, (None,))[0], version, dist))
    removed_dists = [(name, before[name][0], None, before[name][1]) for name in before if name not in after]
    purged, c_extensions = [], []
    for name, old, new, dist in touched + removed_dists:
        for top in _top_level_names(dist):
            for module_name in list(sys.modules):
                if module_name == top or module_name.startswith(top + "."):
                    module = sys.modules.pop(module_name)
                    purged.append(module_name)
                    file = getattr(module, "__file__", "") or ""
                    if file.endswith((".so", ".pyd")):
                        c_extensions.append(module_name)
    importlib.invalidate_caches()
    lines = []
    if code != 0:
        lines.append("%%pip: pip exited with code %d" % code)
    changes = ["%s %s -> %s" % (name, old or "(new)", new or "(removed)") for name, old, new, _ in touched + removed_dists]
    lines.append("%%pip: distributions changed: %s" % (", ".join(changes) if changes else "none"))
    lines.append("%%pip: import caches invalidated; site dirs re-read; removed from sys.modules: %s" % (", ".join(sorted(set(top.split(".")[0] for top in purged))) or "nothing (not imported yet)"))
    if c_extensions:
        lines.append("%%pip: C extensions already loaded cannot be reloaded in this process (%s): call eval with reset=true to use the new version" % ", ".join(sorted(set(c_extensions))[:10]))
    print("\n".join(lines))
    if code != 0:
        raise RuntimeError("pip exited with code %d" % code)


def _timeit(statement, setup, number, repeat, namespace):
    import statistics
    import timeit

    timer = timeit.Timer(statement, setup=setup or "pass", globals=namespace)
    if number is None:
        number, _ = timer.autorange()
        number = max(1, number)
    runs = [value / number for value in timer.repeat(repeat=max(1, repeat), number=number)]
    mean = statistics.mean(runs)
    deviation = statistics.stdev(runs) if len(runs) > 1 else 0.0
    print("%s ± %s per loop (mean ± std. dev. of %d runs, %d loops each)" % (_format_seconds(mean), _format_seconds(deviation), len(runs), number))


_LINE_MAGICS = {}
_CELL_MAGICS = {}


def line_magic(name, argument, namespace=None):
    """Runs `%name argument`. Supported: pip, cd, pwd, env, timeit, time, bash (see the eval tool)."""
    namespace = namespace if namespace is not None else _NAMESPACE
    if name == "pip":
        return _magic_pip(argument, namespace)
    if name == "cd":
        return _magic_cd(argument, namespace)
    if name == "pwd":
        return os.getcwd()
    if name == "env":
        return _magic_env(argument, namespace)
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
    raise NameError("unknown magic %%%s: supported line magics are %%pip, %%cd, %%pwd, %%env, %%timeit, %%time, !cmd, x = !cmd; cell magics %%%%bash, %%%%sh, %%%%timeit, %%%%writefile" % name)


def cell_magic(name, argument, body, namespace=None):
    """Runs a `%%name argument` cell with `body`. Supported: bash, sh, timeit, writefile."""
    namespace = namespace if namespace is not None else _NAMESPACE
    if name in ("bash", "sh"):
        code, _ = _run_child([_shell_path() if name == "bash" else "/bin/sh", "-c", body], capture=False)
        namespace["_exit_code"] = code
        if code != 0:
            raise subprocess.CalledProcessError(code, "%%" + name)
        return None
    if name == "timeit":
        number, repeat, setup = _parse_timeit_options(argument)
        return _timeit(body, setup, number, repeat, namespace)
    if name == "writefile":
        words = shlex.split(argument)
        append = "-a" in words or "--append" in words
        paths = [word for word in words if not word.startswith("-")]
        if len(paths) != 1:
            raise ValueError("%%writefile takes exactly one file name, got %r" % argument)
        path = os.path.expanduser(paths[0])
        existed = os.path.exists(path)
        with open(path, "a" if append else "w", encoding="utf-8") as handle:
            handle.write(body)
        print("%s %s" % ("Appending to" if append else ("Overwriting" if existed else "Writing"), paths[0]))
        return None
    raise NameError("unknown cell magic %%%%%s: supported are %%%%bash, %%%%sh, %%%%timeit, %%%%writefile" % name)


# ----------------------------------------------------------------------------------------------
# Cell execution: IPython's last_expr echo, `_`, top-level await, tracebacks into the cell.

_NAMESPACE = {"__name__": "__main__", "__builtins__": __builtins__}
_main_module = types.ModuleType("__main__")
_main_module.__dict__.update(_NAMESPACE)
_NAMESPACE = _main_module.__dict__
sys.modules["__main__"] = _main_module

_helper = types.ModuleType("_runbound")
for _name in ("tool", "ToolError", "display", "system", "getoutput", "line_magic", "cell_magic", "rewrite_magics", "LineList"):
    _helper.__dict__[_name] = globals()[_name]
sys.modules["_runbound"] = _helper
_NAMESPACE.update({"tool": tool, "ToolError": ToolError, "display": display, "_runbound": _helper})
_INITIAL_NAMES = set(_NAMESPACE)
_LOOP = None


def _run_code(code):
    import inspect

    result = eval(code, _NAMESPACE)
    if code.co_flags & inspect.CO_COROUTINE:
        global _LOOP
        import asyncio

        if _LOOP is None:
            _LOOP = asyncio.new_event_loop()
        result = _LOOP.run_until_complete(result)
    return result


def _execute(cell, source):
    filename = "<cell-%d>" % cell
    rewritten = rewrite_magics(source)
    linecache.cache[filename] = (len(rewritten), None, [line + "\n" for line in rewritten.split("\n")], filename)
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    tree = compile(rewritten, filename, "exec", ast.PyCF_ONLY_AST | flags)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        node = tree.body[-1]
        line_text = rewritten.split("\n")[node.end_lineno - 1]
        after = line_text.encode("utf-8")[node.end_col_offset :].decode("utf-8", "ignore").strip()
        later_lines = "\n".join(rewritten.split("\n")[node.end_lineno :]).strip()
        suppressed = after.startswith(";") or later_lines.startswith(";")
        if not suppressed:
            last = tree.body.pop()
    if tree.body:
        _run_code(compile(tree, filename, "exec", flags))
    if last is not None:
        value = _run_code(compile(ast.Expression(last.value), filename, "eval", flags))
        if value is not None:
            _NAMESPACE["_"] = value
            _flush_streams()
            _send({"type": "result", "item": _render(value)})


def _format_error(exc_type, exc_value, exc_tb):
    frames = exc_tb
    while frames is not None and not frames.tb_frame.f_code.co_filename.startswith("<cell-"):
        frames = frames.tb_next
    if frames is None:
        frames = exc_tb if exc_type is SyntaxError or issubclass(exc_type, SyntaxError) else None
        if issubclass(exc_type, SyntaxError):
            frames = None
    lines = traceback.format_exception(exc_type, exc_value, frames)
    return "".join(lines)


def _inventory():
    names = sorted(name for name in _NAMESPACE if name not in _INITIAL_NAMES and not name.startswith("_") and not isinstance(_NAMESPACE[name], types.ModuleType))
    modules = sorted(name for name in sys.modules if "." not in name and not name.startswith("_") and name not in sys.stdlib_module_names)
    return {"type": "inventory", "variables": names, "modules": modules}


def _main():
    sys.stdout = _StreamWriter("stdout")
    sys.stderr = _StreamWriter("stderr")
    sys.stdin = open(os.devnull, "r")
    sys.displayhook = lambda value: None if value is None else display(value)
    _send({"type": "ready", "backend": "cpython", "version": sys.version.split()[0], "executable": sys.executable, "pid": os.getpid(), "cwd": os.getcwd(), "guardian_pid": _GUARDIAN_PID, "guardian_unavailable": _GUARDIAN_UNAVAILABLE})
    while True:
        try:
            message = _read_message()
        except KeyboardInterrupt:
            continue
        except EOFError:
            return
        kind = message.get("type")
        if kind == "shutdown":
            return
        if kind == "inventory":
            _send(_inventory())
            continue
        if kind != "execute":
            continue
        cell = int(message.get("cell", 0))
        _apply_limits(message.get("limits"))
        _CELL.reset()
        status = "ok"
        try:
            _execute(cell, message.get("code", ""))
            _flush_figures()
        except BaseException as err:  # noqa: BLE001 - every cell ends with a report
            if isinstance(err, KeyboardInterrupt):
                # The host's interrupt grace ends here: the report below may take a while.
                _send({"type": "interrupted", "cell": cell})
            if isinstance(err, SystemExit) and err.code in (None, 0):
                status = "ok"
            else:
                status = "error"
                _flush_streams()
                exc_type, exc_value, exc_tb = sys.exc_info()
                _send({"type": "error", "ename": exc_type.__name__, "evalue": _cap_text(str(exc_value)), "traceback": _cap_text(_format_error(exc_type, exc_value, exc_tb))})
            try:
                _flush_figures()
            except BaseException:
                pass
        _flush_streams()
        raw_marker, stderr_marker = _write_raw_cell_end(cell)
        _send({"type": "done", "cell": cell, "raw_marker": raw_marker, "stderr_marker": stderr_marker, "status": status, "omitted_bytes": _CELL.omitted_bytes, "head_bytes": _CELL.sent_bytes, "tail_bytes": _CELL.tail_bytes, "tail": _CELL.tail, "figures_omitted": _CELL.figures_omitted})


try:
    signal.signal(signal.SIGINT, signal.default_int_handler)
except Exception:
    pass
_main()
