# runbound kernel driver, the part shared by both Python drivers: driver.py (CPython, run as
# `python -u -c <source>`) and embedded_driver.py (RustPython, run as the module `_runbound`).
# Not a file on disk and not imported: the host concatenates this source in front of each
# driver's own source at build time (`concat!(include_str!(...), ...)` in kernel/mod.rs and
# kernel/embedded.rs), so everything here lives in the driver's own global namespace. Names used
# here but defined by each driver (_LIMITS, _Limits) are looked up when called.
#
# Must run unchanged on CPython 3 and RustPython 0.5; imports only `re` and `sys`.
import re as _re
import sys


def _flush_streams():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def _cap_text(text, limit=None):
    limit = limit or _LIMITS.max_item_bytes
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text
    half = limit // 2
    head = data[:half].decode("utf-8", "ignore")
    tail = data[-half:].decode("utf-8", "ignore")
    # The same words as the host's cuts (runbound's render::middle_cut_notice).
    return "%s\n[\u2026 cut: showing the first %d and last %d of %d bytes of this item \u2026]\n%s" % (head, half, half, len(data), tail)


class ToolError(Exception):
    """Raised by tool() when the called tool fails; the message is the tool's error text."""


def _parse_timeit_options(argument):
    words = argument.split()
    number, repeat = None, 7
    rest = []
    index = 0
    while index < len(words):
        word = words[index]
        if word == "-n" and index + 1 < len(words):
            number = int(words[index + 1])
            index += 2
        elif word == "-r" and index + 1 < len(words):
            repeat = int(words[index + 1])
            index += 2
        elif word in ("-q", "-o"):
            index += 1
        else:
            rest = words[index:]
            break
    return number, repeat, " ".join(rest)


def _format_seconds(seconds):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return "%.3g %s" % (seconds / scale, unit)
    return "%.3g ns" % (seconds / 1e-9)


def _apply_limits(limits):
    for key, value in (limits or {}).items():
        if hasattr(_Limits, key) and isinstance(value, int) and value > 0:
            setattr(_LIMITS, key, value)


# ----------------------------------------------------------------------------------------------
# Magic rewriting: line-oriented, only outside strings and brackets, only the magic lines.

_ASSIGN_SHELL = _re.compile(r"^(\s*)([A-Za-z_][\w.\[\]'\", ]*?)\s*=\s*!(.*)$")
_ASSIGN_MAGIC = _re.compile(r"^(\s*)([A-Za-z_][\w.\[\]'\", ]*?)\s*=\s*%([A-Za-z_]\w*)(.*)$")
_SHELL = _re.compile(r"^(\s*)!(.*)$")
_MAGIC = _re.compile(r"^(\s*)%([A-Za-z_]\w*)(.*)$")


def _scan_line(line, state):
    """Advances (quote, depth) over one line of Python; quote is None or the open triple quote."""
    quote, depth = state
    index = 0
    length = len(line)
    while index < length:
        char = line[index]
        if quote:
            if char == "\\":
                index += 2
                continue
            if line.startswith(quote, index):
                index += len(quote)
                quote = None
                continue
            index += 1
            continue
        if char == "#":
            break
        if char in "\"'":
            triple = line[index : index + 3]
            if triple in ('"""', "'''"):
                quote = triple
                index += 3
                continue
            end = index + 1
            while end < length and line[end] != char:
                end += 2 if line[end] == "\\" else 1
            index = end + 1
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        index += 1
    return quote, depth


def rewrite_magics(source):
    """Rewrites IPython idioms into calls of this module (`_runbound`). Returns the new source."""
    lines = source.split("\n")
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    if first < len(lines) and lines[first].lstrip().startswith("%%"):
        header = lines[first].strip()[2:]
        name, _, argument = header.partition(" ")
        body = "\n".join(lines[first + 1 :])
        if body and not body.endswith("\n"):
            body += "\n"
        return "_runbound.cell_magic(%r, %r, %r, globals())" % (name.strip(), argument.strip(), body)
    state = (None, 0)
    out = []
    for line in lines:
        at_statement_start = state == (None, 0) and not (out and out[-1].rstrip().endswith("\\"))
        if at_statement_start:
            match = _ASSIGN_SHELL.match(line)
            if match:
                indent, target, command = match.groups()
                line = "%s%s = _runbound.getoutput(%r, globals())" % (indent, target, command.strip())
            else:
                match = _ASSIGN_MAGIC.match(line)
                if match:
                    indent, target, name, argument = match.groups()
                    line = "%s%s = _runbound.line_magic(%r, %r, globals())" % (indent, target, name, argument.strip())
                else:
                    match = _SHELL.match(line)
                    if match:
                        indent, command = match.groups()
                        line = "%s_runbound.system(%r, globals())" % (indent, command.strip())
                    else:
                        match = _MAGIC.match(line)
                        if match:
                            indent, name, argument = match.groups()
                            line = "%s_runbound.line_magic(%r, %r, globals())" % (indent, name, argument.strip())
        out.append(line)
        state = _scan_line(line, state)
    return "\n".join(out)
