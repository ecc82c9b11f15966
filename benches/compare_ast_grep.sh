#!/usr/bin/env bash
# Compares `runbound call ast_grep` with the ast-grep CLI on the same large trees, both returning
# every match: patterns (`ast-grep run -p P`) and rules (`ast-grep scan --inline-rules`), wall
# time with hyperfine (RUNS runs per tool after a warm-up, default 3) and peak RSS with
# /usr/bin/time -v; prints the ratios runbound / ast-grep. Then the parse-only ceiling: the same
# walk parsing every file and matching nothing (`benches/ast_grep.rs --parse-only`, same walker
# and threads as the tool), and the ratio of the `$A == $A` search to it. No assertions: a
# measurement, not a test.
#
# Usage: benches/compare_ast_grep.sh [RUST_TREE] [PYTHON_TREE]
#   (env: RUNS=3, SKIP_RUST=1 or SKIP_PYTHON=1 to run one half, SKIP_RULES=1, SKIP_CEILING=1,
#    RUST_PATTERNS='P1;P2', PYTHON_PATTERNS='P1;P2')
#   RUST_TREE   default: the first index under ~/.cargo/registry/src
#   PYTHON_TREE default: a copy of the installed CPython's `Lib` (sysconfig "stdlib") without
#               its site-packages (third-party code, not CPython's) and __pycache__
# The cargo registry grows while other builds download crates; pass a frozen copy
# (`cp -a ~/.cargo/registry/src/index.* /tmp/rust_tree`) to compare runs over time.
# Needs: hyperfine (Debian package), /usr/bin/time, .tools/node_modules/.bin/ast-grep
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
for tool in "$ast_grep" "$runbound" hyperfine /usr/bin/time; do
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

# compare NAME SG_COMMAND SG_COUNT RB_ARGS_JSON TREE
# Times both commands, prints one row: counts, wall and peak RSS with ratios.
compare() {
    local name="$1" sg_cmd="$2" sg_count="$3" args="$4" tree="$5"
    local rb_cmd="$runbound --workspace $(printf %q "$tree") call ast_grep $(printf %q "$args")"
    local rb_count
    rb_count="$("$runbound" --workspace "$tree" call ast_grep "$args" \
        | python3 -c 'import json,sys;r=json.load(sys.stdin);sc=r.get("structuredContent") or {};print(sc.get("total_matches", "error: " + r["content"][0]["text"][:200]))')"
    case "$rb_count" in error*) echo "runbound failed on $name: $rb_count" >&2; return 1 ;; esac
    hyperfine --style basic --warmup 1 --runs "$runs" -i --export-json "$out/h.json" \
        -n ast-grep "$sg_cmd" -n runbound "$rb_cmd" >&2
    local sg_rss rb_rss
    # ast-grep exits 1 when nothing matched; the RSS line is printed either way.
    sg_rss="$( { /usr/bin/time -v bash -c "$sg_cmd" >/dev/null || true; } 2>&1 | awk -F': ' '/Maximum resident/{print $2}')"
    rb_rss="$( { /usr/bin/time -v bash -c "$rb_cmd" >/dev/null || true; } 2>&1 | awk -F': ' '/Maximum resident/{print $2}')"
    python3 - "$out/h.json" "$name" "$sg_count" "$rb_count" "$sg_rss" "$rb_rss" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))["results"]
t = {r["command"]: r["median"] for r in data}
name, sg_count, rb_count, sg_rss, rb_rss = sys.argv[2:7]
sg, rb = t["ast-grep"], t["runbound"]
same = "" if sg_count.strip() == rb_count.strip() else "  COUNTS DIFFER"
print(f"{name:58} matches ast-grep={sg_count.strip():>7} runbound={rb_count.strip():>7} | "
      f"wall median ast-grep={sg:7.2f}s runbound={rb:7.2f}s ratio={rb/sg:5.2f} | "
      f"peak RSS ast-grep={int(sg_rss)/1024:7.1f}MB runbound={int(rb_rss)/1024:7.1f}MB ratio={int(rb_rss)/int(sg_rss):5.2f}{same}")
PY
}

# pattern LANG TREE PATTERN
pattern() {
    local lang="$1" tree="$2" pattern="$3"
    local args sg_cmd sg_count
    args="$(python3 -c 'import json,sys;print(json.dumps({"pattern":sys.argv[1],"language":sys.argv[2],"max_results":100000}))' "$pattern" "$lang")"
    sg_cmd="$ast_grep run -p $(printf %q "$pattern") -l $lang $(printf %q "$tree")"
    sg_count="$("$ast_grep" run -p "$pattern" -l "$lang" --json=stream "$tree" | wc -l || true)"
    compare "$lang pattern $pattern" "$sg_cmd" "$sg_count" "$args" "$tree"
}

# rule LANG TREE RULE_JSON
rule() {
    local lang="$1" tree="$2" rule="$3"
    local args inline sg_cmd sg_count
    args="$(python3 -c 'import json,sys;print(json.dumps({"rule":json.loads(sys.argv[1]),"language":sys.argv[2],"max_results":100000}))' "$rule" "$lang")"
    inline="$(python3 -c 'import json,sys;print(json.dumps({"id":"bench","language":sys.argv[2],"rule":json.loads(sys.argv[1])}))' "$rule" "$lang")"
    sg_cmd="$ast_grep scan --inline-rules $(printf %q "$inline") $(printf %q "$tree")"
    sg_count="$("$ast_grep" scan --inline-rules "$inline" --json=stream "$tree" | wc -l || true)"
    compare "$lang rule $rule" "$sg_cmd" "$sg_count" "$args" "$tree"
}

# ceiling LANG TREE: parse-only wall time beside the `$A == $A` search, as a ratio.
ceiling() {
    local lang="$1" tree="$2"
    [ -n "$ceiling_bin" ] && [ -x "$ceiling_bin" ] || { echo "parse-only ceiling skipped: no bench binary (cargo bench --bench ast_grep --no-run)" >&2; return 0; }
    local args
    args="$(python3 -c 'import json,sys;print(json.dumps({"pattern":"$A == $A","language":sys.argv[1],"max_results":100000}))' "$lang")"
    hyperfine --style basic --warmup 1 --runs "$runs" -i --export-json "$out/c.json" \
        -n parse-only "$ceiling_bin --parse-only $(printf %q "$tree") $lang" \
        -n search "$runbound --workspace $(printf %q "$tree") call ast_grep $(printf %q "$args")" >&2
    "$ceiling_bin" --parse-only "$tree" "$lang" >&2
    python3 - "$out/c.json" "$lang" <<'PY'
import json, sys
t = {r["command"]: r["median"] for r in json.load(open(sys.argv[1]))["results"]}
print(f"{sys.argv[2]:7} parse-only ceiling (every file parsed, no matching, same walker and threads) {t['parse-only']:7.2f}s; "
      f"search `$A == $A` {t['search']:7.2f}s; search / parse-only = {t['search']/t['parse-only']:5.2f}")
PY
}

if [ "${SKIP_RUST:-0}" != 1 ]; then
    echo "rust tree: $rust_tree ($(find "$rust_tree" -name '*.rs' | wc -l) .rs files)"
    IFS=';' read -r -a rust_patterns <<<"${RUST_PATTERNS:-Box::leak(\$X);\$X.unwrap();\$A == \$A}"
    for p in "${rust_patterns[@]}"; do
        pattern rust "$rust_tree" "$p"
    done
    if [ "${SKIP_RULES:-0}" != 1 ]; then
        rule rust "$rust_tree" '{"pattern": "$X.unwrap()", "inside": {"kind": "closure_expression", "stopBy": "end"}}'
        rule rust "$rust_tree" '{"kind": "closure_expression", "has": {"kind": "return_expression", "stopBy": "end"}}'
    fi
    [ "${SKIP_CEILING:-0}" = 1 ] || ceiling rust "$rust_tree"
fi
if [ "${SKIP_PYTHON:-0}" != 1 ]; then
    echo "python tree: $python_tree ($(find "$python_tree" -name '*.py' | wc -l) .py files)"
    IFS=';' read -r -a python_patterns <<<"${PYTHON_PATTERNS:-isinstance(\$X, \$T);\$X.append(\$Y);\$A == \$A}"
    for p in "${python_patterns[@]}"; do
        pattern python "$python_tree" "$p"
    done
    if [ "${SKIP_RULES:-0}" != 1 ]; then
        rule python "$python_tree" '{"pattern": "print($$$A)", "inside": {"kind": "function_definition", "stopBy": "end"}}'
        rule python "$python_tree" '{"kind": "function_definition", "not": {"has": {"field": "return_type", "kind": "type"}}}'
    fi
    [ "${SKIP_CEILING:-0}" = 1 ] || ceiling python "$python_tree"
fi
