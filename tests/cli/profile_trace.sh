#!/usr/bin/env bash
# TESSERA_PROFILE=FILE: the softmax example (a compile and a launch on the
# interpreter, or on the GPU where there is one) writes a Chrome trace with
# compile and launch spans, valid JSON.
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
for needle in '"traceEvents"' '"cat": "compile"' '"name": "ttir softmax_rows"' '"cat": "launch"' '"name": "softmax_rows"'; do
  grep -q "$needle" "$tmp/trace.json" || { echo "FAIL: the trace lacks $needle"; head -c 2000 "$tmp/trace.json"; exit 1; }
done
if command -v python3 >/dev/null; then
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['traceEvents']), 'events')" "$tmp/trace.json" ||
    { echo "FAIL: the trace is not valid JSON"; exit 1; }
fi
echo "ok"
