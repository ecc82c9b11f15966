#!/usr/bin/env python3
"""Bench: multi-file writes with diagnostics on write (issue 11 §3, trial27a M2), two runbound
binaries back to back on the same project and the same calls, so their ratio is measured under
the same machine load.

Per binary, one `runbound --workspace <copy> --approve allow serve` (MCP over stdio), on a fresh
git copy of the project each time:
  1. `lsp symbols` on the first file (the Python server starts and loads);
  2. a staged multi-file change (`ast_edit` PATTERN -> REWRITE over the package), a pause of GAP
     seconds (a model reading the preview), then `resolve accept`;
  3. a one-line `edit` of the first file (no staging).
Printed per step: the call's wall time, the written files whose diagnostics were obtained vs
said unavailable, the check's `phases_ms` and `states_reused`; then after/before ratios.

Usage: python3 benches/dow_multi_file_write.py BEFORE_BIN AFTER_BIN PROJECT PACKAGE FILE \
           OLD_LINE NEW_LINE PATTERN REWRITE [GAP_SECONDS] [ROUNDS]
PROJECT must be a git checkout (each run starts from `git checkout -- .`), with its .venv.
Example (voluptuous 0.16.0 sdist, .venv with `pip install -e . pytest`, `git init` + commit):
  python3 benches/dow_multi_file_write.py before/runbound after/runbound voluptuous-0.16.0 \
      voluptuous voluptuous/schema_builder.py \
      'def default_factory(value) -> DefaultFactory:' \
      'def default_factory(value, strict: bool) -> DefaultFactory:' \
      'typing.Optional[$T]' 'typing.Union[$T, None]' 10 2
"""
import json
import re
import statistics
import subprocess
import sys
import time

from mcp_stdio_client import Client


def summary(result, text):
    """(obtained, unavailable, phases, states_reused) of the write's check."""
    unavailable = len(re.findall(r"^\S+: diagnostics unavailable", text, re.M))
    check = ((result.get("structuredContent") or {}).get("diagnostics_on_write") or {})
    obtained, phases, reused = 0, [], 0
    for server in check.get("servers", []):
        obtained += sum(1 for file in server.get("files", []) if file.get("role") == "written" and file.get("status") == "checked")
        phases.append(server.get("phases_ms"))
        reused += server.get("states_reused") or 0
    return obtained, unavailable, phases, reused


def one_run(binary, args):
    project, package, file, old_line, new_line, pattern, rewrite, gap = args
    subprocess.run(["git", "-c", "safe.directory=*", "-C", project, "checkout", "-q", "--", "."], check=True)
    client = Client(binary, project, "dow-bench")
    rows = {}
    try:
        _, _, rows["outline (server start)"] = client.call("lsp", {"op": "symbols", "file": file})
        _, staged_text, _ = client.call("ast_edit", {"pattern": pattern, "rewrite": rewrite, "language": "python", "path": package})
        edit_id = re.search(r"edit_\d+", staged_text).group(0)
        time.sleep(gap)
        result, text, elapsed = client.call("resolve", {"edit_id": edit_id, "action": "accept"})
        rows["resolve accept (multi-file)"] = (elapsed, summary(result, text))
        result, text, elapsed = client.call("edit", {"path": file, "old_string": old_line, "new_string": new_line})
        rows["edit (one line)"] = (elapsed, summary(result, text))
    finally:
        client.close()
        subprocess.run(["git", "-c", "safe.directory=*", "-C", project, "checkout", "-q", "--", "."], check=True)
    return rows


def main():
    if len(sys.argv) < 10:
        print(__doc__)
        sys.exit(2)
    before, after = sys.argv[1], sys.argv[2]
    gap = float(sys.argv[10]) if len(sys.argv) > 10 else 10.0
    rounds = int(sys.argv[11]) if len(sys.argv) > 11 else 1
    args = (*sys.argv[3:10], gap)
    times = {"before": {}, "after": {}}
    for round_index in range(rounds):
        for label, binary in (("before", before), ("after", after)):
            rows = one_run(binary, args)
            for step, value in rows.items():
                elapsed, detail = (value, None) if isinstance(value, float) else value
                times[label].setdefault(step, []).append(elapsed)
                if detail:
                    obtained, unavailable, phases, reused = detail
                    print(f"round {round_index + 1} {label:6} {step:28} {elapsed:6.2f} s  written files obtained {obtained}, "
                          f"unavailable {unavailable}, states reused {reused}, phases {json.dumps(phases)}")
                else:
                    print(f"round {round_index + 1} {label:6} {step:28} {elapsed:6.2f} s")
    for step in times["before"]:
        b, a = statistics.median(times["before"][step]), statistics.median(times["after"][step])
        print(f"{step:28} median before {b:6.2f} s, after {a:6.2f} s, after/before {a / b:.2f}")


if __name__ == "__main__":
    main()
