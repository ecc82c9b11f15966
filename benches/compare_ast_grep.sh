#!/usr/bin/env bash
# Compares `runbound call ast_grep` with the ast-grep CLI (`ast-grep run -p P`) on the same
# large trees, both returning every match: wall time with hyperfine (RUNS runs per tool and
# pattern after a warm-up, default 3) and peak RSS with /usr/bin/time -v. Prints the ratios
# runbound / ast-grep. No assertions: a measurement, not a test.
#
# Usage: benches/compare_ast_grep.sh [RUST_TREE] [PYTHON_TREE]
#   (env: RUNS=3, SKIP_RUST=1 or SKIP_PYTHON=1 to run one half, RUST_PATTERNS='P1;P2')
#   RUST_TREE   default: the first index under ~/.cargo/registry/src
#   PYTHON_TREE default: a copy of the installed CPython's `Lib` (sysconfig "stdlib") without
#               its site-packages (third-party code, not CPython's) and __pycache__
# The cargo registry grows while other builds download crates; pass a frozen copy
# (`cp -a ~/.cargo/registry/src/index.* /tmp/rust_tree`) to compare runs over time.
# Needs: hyperfine (Debian package), /usr/bin/time, .tools/node_modules/.bin/ast-grep
# (.ci/install), and a release build (`cargo build --release`). max_results is 100000 (the
# tool's schema maximum), above the totals of these patterns; the match counts are printed.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
ast_grep="$here/.tools/node_modules/.bin/ast-grep"
runbound="${RUNBOUND:-$here/target/release/runbound}"
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

# measure LANG TREE PATTERN
measure() {
    local lang="$1" tree="$2" pattern="$3"
    local args
    args="$(python3 -c 'import json,sys;print(json.dumps({"pattern":sys.argv[1],"language":sys.argv[2],"max_results":100000}))' "$pattern" "$lang")"
    local sg_cmd="$ast_grep run -p $(printf %q "$pattern") -l $lang $(printf %q "$tree")"
    local rb_cmd="$runbound --workspace $(printf %q "$tree") call ast_grep $(printf %q "$args")"
    # Same answer first: the match counts.
    local sg_count rb_count
    sg_count="$("$ast_grep" run -p "$pattern" -l "$lang" --json=stream "$tree" | wc -l || true)"
    rb_count="$("$runbound" --workspace "$tree" call ast_grep "$args" \
        | python3 -c 'import json,sys;r=json.load(sys.stdin);sc=r.get("structuredContent") or {};print(sc.get("total_matches", "error: " + r["content"][0]["text"][:200]))')"
    case "$rb_count" in error*) echo "runbound failed on $pattern: $rb_count" >&2; return 1 ;; esac
    hyperfine --style basic --warmup 1 --runs "$runs" -i --export-json "$out/h.json" \
        -n ast-grep "$sg_cmd" -n runbound "$rb_cmd" >&2
    local sg_rss rb_rss
    # ast-grep exits 1 when nothing matched; the RSS line is printed either way.
    sg_rss="$( { /usr/bin/time -v bash -c "$sg_cmd" >/dev/null || true; } 2>&1 | awk -F': ' '/Maximum resident/{print $2}')"
    rb_rss="$( { /usr/bin/time -v bash -c "$rb_cmd" >/dev/null || true; } 2>&1 | awk -F': ' '/Maximum resident/{print $2}')"
    python3 - "$out/h.json" "$pattern" "$lang" "$sg_count" "$rb_count" "$sg_rss" "$rb_rss" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))["results"]
t = {r["command"]: r["mean"] for r in data}
pattern, lang, sg_count, rb_count, sg_rss, rb_rss = sys.argv[2:8]
sg, rb = t["ast-grep"], t["runbound"]
print(f"{lang:7} {pattern:18} matches ast-grep={sg_count:>7} runbound={rb_count:>7} | "
      f"wall ast-grep={sg:7.2f}s runbound={rb:7.2f}s ratio={rb/sg:5.2f} | "
      f"peak RSS ast-grep={int(sg_rss)/1024:7.1f}MB runbound={int(rb_rss)/1024:7.1f}MB ratio={int(rb_rss)/int(sg_rss):5.2f}")
PY
}

if [ "${SKIP_RUST:-0}" != 1 ]; then
    echo "rust tree: $rust_tree ($(find "$rust_tree" -name '*.rs' | wc -l) .rs files)"
    IFS=';' read -r -a rust_patterns <<<"${RUST_PATTERNS:-Box::leak(\$X);\$X.unwrap();\$A == \$A}"
    for pattern in "${rust_patterns[@]}"; do
        measure rust "$rust_tree" "$pattern"
    done
fi
if [ "${SKIP_PYTHON:-0}" != 1 ]; then
    echo "python tree: $python_tree ($(find "$python_tree" -name '*.py' | wc -l) .py files)"
    for pattern in 'isinstance($X, $T)' '$X.append($Y)' '$A == $A'; do
        measure python "$python_tree" "$pattern"
    done
fi
