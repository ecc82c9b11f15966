#!/usr/bin/env python3
"""Where a write's diagnostics check spends its time (issue 11 §3): one `runbound serve` per run on
a real project, the same calls as an agent, and per call the wall time, which written files were
checked, which importers were checked or left out of time, the check's `phases_ms` and each file's
state wait (`state_waits_ms`: file, before/after, ms, how the state was had).

Per run, on a fresh `git checkout -- .` of PROJECT (a git checkout with what its server needs:
a .venv, node_modules, a go.mod):
  1. `lsp symbols` on FILE (the server starts and loads), unless --cold;
  2. optionally a staged change (`ast_edit` PATTERN -> REWRITE over PATH in LANGUAGE), a pause of
     GAP seconds (a model reading the preview), then `resolve accept`;
  3. optionally a one-line `edit` of FILE (OLD -> NEW), no staging.
With --text DIR the whole answer of each write is saved there (one file per run and step).

Usage:
  python3 benches/dow_write_phases.py --binary target/release/runbound --project DIR \
      --language python --file src/pkg/mod.py \
      [--pattern PAT --rewrite REW --path src/pkg] [--gap 10] \
      [--old 'line' --new 'line'] [--rounds 1] [--text /tmp/answers]
"""
import argparse
import json
import os
import re
import subprocess
import time

from mcp_stdio_client import Client


def describe(result, text):
    """Lines describing the write check of one answer."""
    check = ((result.get("structuredContent") or {}).get("diagnostics_on_write") or {})
    lines = []
    if check.get("before_write_ms"):
        lines.append(f"  before the write (wall / counted against the budget, ms): {check['before_write_ms']}")
    for server in check.get("servers", []):
        files = server.get("files", [])
        written = [file for file in files if file.get("role") == "written"]
        checked = sum(1 for file in written if file.get("status") == "checked")
        dependents = [file for file in files if file.get("role") != "written"]
        dependents_checked = sum(1 for file in dependents if file.get("status") == "checked")
        out_of_time = server.get("not_checked_out_of_budget") or []
        lines.append(f"  {server.get('server')}: written checked {checked}/{len(written)}, other files checked "
                     f"{dependents_checked}/{len(dependents)}, left out of time {len(out_of_time) if isinstance(out_of_time, list) else out_of_time}, "
                     f"states reused {server.get('states_reused')}")
        lines.append(f"    phases_ms {json.dumps(server.get('phases_ms'))}")
        for wait in server.get("state_waits_ms") or []:
            lines.append(f"    {wait}")
    for line in text.splitlines():
        if re.search(r"NOT checked|diagnostics unavailable|^checked:|also checked:|no new errors|new diagnostics introduced", line):
            lines.append("  | " + line[:220])
    return lines


def one_run(args, run_index):
    git = ["git", "-c", "safe.directory=*", "-C", args.project]
    subprocess.run(git + ["checkout", "-q", "--", "."], check=True)
    client = Client(args.binary, args.project, "dow-phases")
    try:
        if not args.cold:
            _, _, elapsed = client.call("lsp", {"op": "symbols", "file": args.file})
            print(f"run {run_index}: lsp symbols (server start) {elapsed:6.2f} s", flush=True)
        steps = []
        if args.pattern:
            _, staged_text, _ = client.call("ast_edit", {"pattern": args.pattern, "rewrite": args.rewrite,
                                                         "language": args.language, "path": args.path})
            found = re.search(r"edit_\d+", staged_text)
            if not found:
                print("  ast_edit staged nothing:", staged_text[:500])
            else:
                staged_files = len(re.findall(r"^\S+: \d+ (?:change|edit|replacement)", staged_text, re.M))
                time.sleep(args.gap)
                steps.append(("resolve accept", lambda: client.call("resolve", {"edit_id": found.group(0), "action": "accept"}), staged_files))
        if args.old:
            steps.append(("edit (one line)", lambda: client.call("edit", {"path": args.file, "old_string": args.old, "new_string": args.new}), 1))
        for label, call, _ in steps:
            result, text, elapsed = call()
            print(f"run {run_index}: {label:18} {elapsed:6.2f} s", flush=True)
            for line in describe(result, text):
                print(line, flush=True)
            if args.text:
                os.makedirs(args.text, exist_ok=True)
                with open(os.path.join(args.text, f"run{run_index}-{label.split()[0]}.txt"), "w") as out:
                    out.write(text)
            if args.keep_written and label == "resolve accept":
                subprocess.run(git + ["diff", "--stat"], check=False)
                return
    finally:
        client.close()
        if not args.keep_written:
            subprocess.run(git + ["checkout", "-q", "--", "."], check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--project", required=True)
    parser.add_argument("--language", required=True)
    parser.add_argument("--file", required=True)
    parser.add_argument("--pattern")
    parser.add_argument("--rewrite")
    parser.add_argument("--path")
    parser.add_argument("--gap", type=float, default=10.0)
    parser.add_argument("--old")
    parser.add_argument("--new")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--text")
    parser.add_argument("--cold", action="store_true",
                        help="no `lsp symbols` first: the server starts inside the first write (or the staging)")
    parser.add_argument("--keep-written", action="store_true",
                        help="stop after the accept and leave the written tree (for a CLI ground-truth check)")
    args = parser.parse_args()
    for run_index in range(1, args.rounds + 1):
        one_run(args, run_index)


if __name__ == "__main__":
    main()
