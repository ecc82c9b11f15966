#!/usr/bin/env bash
# Compares `runbound call ast_grep` with the ast-grep CLI on the same large trees, both returning
# every match: patterns (`ast-grep run -p P`) and rules (`ast-grep scan --inline-rules`), median
# wall time, CPU time and peak RSS over RUNS rounds (default 3) in which the commands run
# interleaved (see `measure`), so load from other users of the machine hits both alike; both
# write every match as JSON (`--json=stream`, the tool's result) and the counts are read from
# the timed runs' output; prints the ratios runbound / ast-grep. The `$A == $A` rows also time, in the same
# rounds, the parse-only ceiling: the same walk parsing every file and matching nothing
# (`benches/ast_grep.rs --parse-only`, same walker and threads as the tool), and print the ratio
# of the search to it. No assertions: a measurement, not a test.
#
# Usage: benches/compare_ast_grep.sh [RUST_TREE] [PYTHON_TREE]
#   (env: RUNS=3, SKIP_RUST=1 or SKIP_PYTHON=1 to run one half, SKIP_RULES=1, SKIP_CEILING=1,
#    RUST_PATTERNS='P1;P2', PYTHON_PATTERNS='P1;P2')
#   RUST_TREE   default: the first index under ~/.cargo/registry/src
#   PYTHON_TREE default: a copy of the installed CPython's `Lib` (sysconfig "stdlib") without
#               its site-packages (third-party code, not CPython's) and __pycache__
# The cargo registry grows while other builds download crates; pass a frozen copy
# (`cp -al ~/.cargo/registry/src/index.* /tmp/rust_tree`, hard links) to compare runs over time.
# Needs: python3, .tools/node_modules/.bin/ast-grep
# (.ci/install), and release builds: `cargo build --release --bin runbound` (RUNBOUND= to
# point elsewhere) and, for the ceiling, `cargo bench --bench ast_grep --no-run` (found with
# --message-format=json; CEILING_BIN= to point elsewhere). max_results is 100000 (the tool's
# schema maximum), above the totals of these queries; the match counts are printed and must
# agree.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
ast_grep="$here/.tools/node_modules/.bin/ast-grep"
target_dir="${CARGO_TARGET_DIR:-$here/target}"
runbound="${RUNBOUND:-$target_dir/release/runbound}"
rust_tree="${1:-$(ls -d "$HOME"/.cargo/registry/src/*/ | head -1)}"
python_tree="${2:-}"
runs="${RUNS:-3}"
for tool in "$ast_grep" "$runbound" python3; do
    [ -x "$tool" ] || command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 2; }
done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
if [ -z "$python_tree" ] && [ "${SKIP_PYTHON:-0}" != 1 ]; then
    stdlib="$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["stdlib"])')"
    python_tree="$out/python-Lib"
    mkdir -p "$python_tree"
    tar -C "$stdlib" --exclude=./site-packages --exclude=__pycache__ -cf - . | tar -C "$python_tree" -xf -
fi
ceiling_bin="${CEILING_BIN:-}"
if [ -z "$ceiling_bin" ] && [ "${SKIP_CEILING:-0}" != 1 ]; then
    ceiling_bin="$(cd "$here" && cargo bench --bench ast_grep --no-run --message-format=json 2>/dev/null \
        | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == "ast_grep" and m.get("executable"):
        print(m["executable"])')"
fi

# measure OUT_DIR NAME=ARGV_JSON...: runs the commands interleaved, RUNS rounds; each round runs
# every command once, the order rotating by one per round so none always goes first. Per
# command: the median wall time (s), the median CPU time (user + system, s, of the process and
# the children it reaped: the work done, which the machine's load changes far less than wall
# time) and the median peak RSS (KB, ru_maxrss as wait4 reports it: the largest of the process
# and the children it reaped), in OUT_DIR/m.json; the
# stdout of its last run in OUT_DIR/NAME.out (the match counts are read from it, so every timed
# run is a full search that writes every match). Interleaving makes a load change on this shared
# machine hit every command alike. No warm-up run: `warm` has read the tree into the page cache.
measure() {
    local out_dir="$1"
    shift
    python3 - "$out_dir" "$runs" "$@" <<'PY'
import json, os, statistics, subprocess, sys, time
out_dir, runs = sys.argv[1], int(sys.argv[2])
commands = [(arg.split("=", 1)[0], json.loads(arg.split("=", 1)[1])) for arg in sys.argv[3:]]
def run(name, argv):
    with open(os.path.join(out_dir, name + ".out"), "wb") as stdout:
        started = time.monotonic()
        child = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - started
    code = os.waitstatus_to_exitcode(status)
    # ast-grep exits 1 when nothing matched.
    if code not in (0, 1):
        sys.exit(f"{argv[0]} exited {code}: {' '.join(argv)}")
    return wall, usage.ru_maxrss, usage.ru_utime + usage.ru_stime
samples = {name: [] for name, _ in commands}
for round_index in range(runs):
    shift = round_index % len(commands)
    for name, argv in commands[shift:] + commands[:shift]:
        samples[name].append(run(name, argv))
result = {name: {"wall": statistics.median(w for w, _, _ in s), "rss_kb": statistics.median(r for _, r, _ in s),
                 "cpu": statistics.median(c for _, _, c in s),
                 "walls": [round(w, 2) for w, _, _ in s], "rss_mb": [round(r / 1024) for _, r, _ in s],
                 "cpus": [round(c, 2) for _, _, c in s]} for name, s in samples.items()}
json.dump(result, open(os.path.join(out_dir, "m.json"), "w"))
PY
}

# warm TREE EXTENSION: reads every file of the tree once, so the first timed run does not pay
# for a cold page cache.
warm() {
    find "$1" -name "*.$2" -type f -print0 | xargs -0 cat >/dev/null
}

argv_json() {
    python3 -c 'import json,sys;print(json.dumps(sys.argv[1:]))' "$@"
}

# compare NAME SG_ARGV_JSON RB_ARGS_JSON TREE [CEILING_LANG]
# Times the ast-grep CLI (its argv prints one JSON line per match) and runbound interleaved
# (and, with CEILING_LANG, the parse-only ceiling in the same rounds), prints one row: counts,
# wall and peak RSS with ratios (runbound / ast-grep), and the search / parse-only ratio.
compare() {
    local name="$1" sg_argv="$2" args="$3" tree="$4" ceiling_lang="${5:-}"
    local commands=("ast-grep=$sg_argv" "runbound=$(argv_json "$runbound" --workspace "$tree" call ast_grep "$args")")
    if [ -n "$ceiling_lang" ]; then
        if [ -n "$ceiling_bin" ] && [ -x "$ceiling_bin" ]; then
            commands+=("parse-only=$(argv_json "$ceiling_bin" --parse-only "$tree" "$ceiling_lang")")
        else
            echo "parse-only ceiling skipped: no bench binary (cargo bench --bench ast_grep --no-run)" >&2
        fi
    fi
    rm -f "$out"/*.out
    measure "$out" "${commands[@]}"
    python3 - "$out" "$name" <<'PY'
import json, os, sys
out, name = sys.argv[1:3]
m = json.load(open(os.path.join(out, "m.json")))
sg_count = str(sum(1 for line in open(os.path.join(out, "ast-grep.out"), "rb") if line.strip()))
r = json.load(open(os.path.join(out, "runbound.out")))
sc = r.get("structuredContent") or {}
if "total_matches" not in sc:
    sys.exit(f"runbound failed on {name}: {r['content'][0]['text'][:300]}")
rb_count = str(sc["total_matches"])
sg, rb = m["ast-grep"], m["runbound"]
same = "" if sg_count == rb_count else "  COUNTS DIFFER"
ceiling = ""
if "parse-only" in m:
    parse_only = open(os.path.join(out, "parse-only.out")).read().strip()
    po = m["parse-only"]
    ceiling = (f" | parse-only wall {po['wall']:6.2f}s cpu {po['cpu']:6.2f}s ({parse_only}), "
               f"runbound / parse-only: wall {rb['wall'] / po['wall']:5.2f} cpu {rb['cpu'] / po['cpu']:5.2f}")
stats = sc.get("stats") or {}
print(f"{name:58} matches ast-grep={sg_count:>7} runbound={rb_count:>7} | "
      f"wall median ast-grep={sg['wall']:7.2f}s runbound={rb['wall']:7.2f}s ratio={rb['wall'] / sg['wall']:5.2f} | "
      f"cpu median ast-grep={sg['cpu']:7.2f}s runbound={rb['cpu']:7.2f}s ratio={rb['cpu'] / sg['cpu']:5.2f} | "
      f"peak RSS ast-grep={sg['rss_kb'] / 1024:7.1f}MB runbound={rb['rss_kb'] / 1024:7.1f}MB ratio={rb['rss_kb'] / sg['rss_kb']:5.2f}"
      f"{ceiling} | runbound parsed {stats.get('files_parsed')} of {stats.get('files_visited')} files{same}", flush=True)
print(f"  per run: {json.dumps({k: {'wall_s': v['walls'], 'cpu_s': v['cpus'], 'rss_mb': v['rss_mb']} for k, v in m.items()})}; load {os.getloadavg()}", file=sys.stderr)
PY
}

# pattern LANG TREE PATTERN
pattern() {
    local lang="$1" tree="$2" pattern="$3"
    local args ceiling_lang=""
    args="$(python3 -c 'import json,sys;print(json.dumps({"pattern":sys.argv[1],"language":sys.argv[2],"max_results":100000}))' "$pattern" "$lang")"
    # The ceiling is measured in the rounds of the literal-free pattern.
    if [ "$pattern" = '$A == $A' ] && [ "${SKIP_CEILING:-0}" != 1 ]; then ceiling_lang="$lang"; fi
    compare "$lang pattern $pattern" "$(argv_json "$ast_grep" run -p "$pattern" -l "$lang" --json=stream "$tree")" "$args" "$tree" "$ceiling_lang"
}

# rule LANG TREE RULE_JSON
rule() {
    local lang="$1" tree="$2" rule="$3"
    local args inline
    args="$(python3 -c 'import json,sys;print(json.dumps({"rule":json.loads(sys.argv[1]),"language":sys.argv[2],"max_results":100000}))' "$rule" "$lang")"
    inline="$(python3 -c 'import json,sys;print(json.dumps({"id":"bench","language":sys.argv[2],"rule":json.loads(sys.argv[1])}))' "$rule" "$lang")"
    compare "$lang rule $rule" "$(argv_json "$ast_grep" scan --inline-rules "$inline" --json=stream "$tree")" "$args" "$tree"
}

if [ "${SKIP_RUST:-0}" != 1 ]; then
    echo "rust tree: $rust_tree ($(find "$rust_tree" -name '*.rs' | wc -l) .rs files)"
    warm "$rust_tree" rs
    IFS=';' read -r -a rust_patterns <<<"${RUST_PATTERNS:-Box::leak(\$X);\$X.unwrap();\$A == \$A}"
    for p in "${rust_patterns[@]}"; do
        pattern rust "$rust_tree" "$p"
    done
    if [ "${SKIP_RULES:-0}" != 1 ]; then
        rule rust "$rust_tree" '{"pattern": "$X.unwrap()", "inside": {"kind": "closure_expression", "stopBy": "end"}}'
        rule rust "$rust_tree" '{"kind": "closure_expression", "has": {"kind": "return_expression", "stopBy": "end"}}'
    fi
fi
if [ "${SKIP_PYTHON:-0}" != 1 ]; then
    echo "python tree: $python_tree ($(find "$python_tree" -name '*.py' | wc -l) .py files)"
    warm "$python_tree" py
    IFS=';' read -r -a python_patterns <<<"${PYTHON_PATTERNS:-isinstance(\$X, \$T);\$X.append(\$Y);\$A == \$A}"
    for p in "${python_patterns[@]}"; do
        pattern python "$python_tree" "$p"
    done
    if [ "${SKIP_RULES:-0}" != 1 ]; then
        rule python "$python_tree" '{"pattern": "print($$$A)", "inside": {"kind": "function_definition", "stopBy": "end"}}'
        rule python "$python_tree" '{"kind": "function_definition", "not": {"has": {"field": "return_type", "kind": "type"}}}'
    fi
fi
