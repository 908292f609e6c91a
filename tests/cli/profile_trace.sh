#!/usr/bin/env bash
# TESSERA_PROFILE=FILE: the softmax example (a compile and a launch on the
# interpreter, or on the GPU where there is one) writes a Chrome trace with
# compile and launch spans, valid JSON; `tessera bench` summarizes it per
# kernel and refuses a file that is not such a trace.
#
#   profile_trace.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
build=$(cd "$(dirname "$1")/.." && pwd)
example=$build/examples/softmax_example
[ -x "$example" ] || { echo "no $example"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
TESSERA_PROFILE=$tmp/trace.json TESSERA_CACHE_DIR=$tmp/cache "$example" >"$tmp/out.log" 2>&1 ||
  { cat "$tmp/out.log"; exit 1; }
[ -s "$tmp/trace.json" ] || { echo "FAIL: no trace written"; exit 1; }
# A path that cannot be written is said once, up front, and the run goes on.
TESSERA_PROFILE=$tmp/no/such/dir/trace.json TESSERA_CACHE_DIR=$tmp/cache "$example" >"$tmp/bad.log" 2>&1 ||
  { cat "$tmp/bad.log"; echo "FAIL: an unwritable TESSERA_PROFILE stopped the run"; exit 1; }
[ "$(grep -c "TESSERA_PROFILE: cannot write '$tmp/no/such/dir/trace.json'" "$tmp/bad.log")" = 1 ] ||
  { cat "$tmp/bad.log"; echo "FAIL: an unwritable TESSERA_PROFILE was not said exactly once"; exit 1; }
for needle in '"traceEvents"' '"cat": "compile"' '"name": "ttir softmax_rows"' '"cat": "launch"' '"name": "softmax_rows"'; do
  grep -q "$needle" "$tmp/trace.json" || { echo "FAIL: the trace lacks $needle"; head -c 2000 "$tmp/trace.json"; exit 1; }
done
if command -v python3 >/dev/null; then
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['traceEvents']), 'events')" "$tmp/trace.json" ||
    { echo "FAIL: the trace is not valid JSON"; exit 1; }
fi
# tessera bench: one row per kernel, the softmax launched and compiled.
"$1" bench "$tmp/trace.json" >"$tmp/bench.txt" 2>&1 || { cat "$tmp/bench.txt"; echo "FAIL: tessera bench"; exit 1; }
cat "$tmp/bench.txt"
grep -Eq '^softmax_rows +[1-9][0-9]* +[0-9.]+ ' "$tmp/bench.txt" || { echo "FAIL: no softmax_rows row with launches"; exit 1; }
# A GPU-style trace: the sweep's timed runs ("autotune": true) are counted
# with the sweep, not as launches of the kernel.
cat >"$tmp/gpu.json" <<'TRACE'
{"displayTimeUnit": "ms", "traceEvents": [
  {"name": "ttir k", "cat": "compile", "ph": "X", "ts": 1.0, "dur": 500.000, "pid": 1, "tid": 1, "args": {}},
  {"name": "k", "cat": "autotune", "ph": "X", "ts": 2.0, "dur": 40000.000, "pid": 1, "tid": 1, "args": {}},
  {"name": "k", "cat": "gpu", "ph": "X", "ts": 3.0, "dur": 10.000, "pid": 1, "tid": 0, "args": {"autotune": true}},
  {"name": "k", "cat": "gpu", "ph": "X", "ts": 4.0, "dur": 12.000, "pid": 1, "tid": 0, "args": {"autotune": true}},
  {"name": "k", "cat": "launch", "ph": "X", "ts": 5.0, "dur": 3.000, "pid": 1, "tid": 1, "args": {}},
  {"name": "k", "cat": "gpu", "ph": "X", "ts": 6.0, "dur": 9.000, "pid": 1, "tid": 0, "args": {}}
]}
TRACE
"$1" bench "$tmp/gpu.json" >"$tmp/gpu.txt" 2>&1 || { cat "$tmp/gpu.txt"; echo "FAIL: tessera bench (GPU trace)"; exit 1; }
grep -Eq '^k +1 +0\.009 +9\.00 .* gpu$' "$tmp/gpu.txt" &&
  grep -q 'autotuning sweep: k, 40.00 ms (2 timed runs' "$tmp/gpu.txt" ||
  { cat "$tmp/gpu.txt"; echo "FAIL: sweep runs counted as launches"; exit 1; }
echo '{"x": 1}' >"$tmp/foreign.json"
if "$1" bench "$tmp/foreign.json" >"$tmp/err.txt" 2>&1 || ! grep -q "not a trace" "$tmp/err.txt"; then
  echo "FAIL: a foreign file is not refused clearly"; cat "$tmp/err.txt"; exit 1
fi
echo "ok"
