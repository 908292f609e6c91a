#!/usr/bin/env bash
# Every kernel specialization the e2e suite launched (recorded through
# TESSERA_RECORD_LAUNCHES) is compiled again by `tessera compile --emit ttir`,
# and the IR must round-trip through tessera-opt unchanged.
#   compile_all_e2e_kernels.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
tessera=$1 opt=$2
build=$(cd "$(dirname "$tessera")/.." && pwd)
manifest=$build/e2e-launches.tsv
if [ ! -s "$manifest" ]; then echo "no launches recorded in $manifest (run the e2e tests first)"; exit 1; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
total=0 failed=0
declare -A kernels
while IFS=$'\t' read -r file kernel sig defines; do
  [ -f "$file" ] || continue
  total=$((total + 1)); kernels["$file:$kernel"]=1
  # shellcheck disable=SC2086
  if ! "$tessera" compile "$file" --kernel "$kernel" --signature "$sig" $defines --emit ttir -o "$tmp/k.ttir" 2>"$tmp/err"; then
    echo "FAIL compile: $kernel ($file) sig='$sig' $defines"; sed 's/^/    /' "$tmp/err" | head -5; failed=$((failed + 1)); continue
  fi
  grep -q "tt.func" "$tmp/k.ttir" || { echo "FAIL: no tt.func in the IR of $kernel"; failed=$((failed + 1)); continue; }
  if ! "$opt" "$tmp/k.ttir" -o "$tmp/round.ttir" 2>"$tmp/err" || ! diff -q "$tmp/k.ttir" "$tmp/round.ttir" >/dev/null; then
    echo "FAIL round-trip: $kernel ($file)"; head -5 "$tmp/err"; diff "$tmp/k.ttir" "$tmp/round.ttir" | head -10
    failed=$((failed + 1))
  fi
done < <(sort -u "$manifest")
echo "compiled $total specializations of ${#kernels[@]} kernels: $((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$total" -gt 0 ]
