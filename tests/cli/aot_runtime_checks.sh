#!/usr/bin/env bash
# `tessera compile --emit cpp` of kernels/matmul.py's pointer form for sm_80
# and sm_90a: on sm_90a its pointer tiles are TMA copies whose row and
# column offsets (grouped tile order) are checked by a trap, and the
# generated header says so, with the loads' places; the sm_80 binary has
# no such check. Needs the CUDA toolkit (the launcher embeds cubins).
#   aot_runtime_checks.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
tessera=$1
src=$3
source "$(dirname "$0")/lib/toolkit.sh"
require_toolkit "$tessera" "the AOT launcher cannot be assembled"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sig="*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1"
if ! TESSERA_CACHE_DIR=$tmp/cache "$tessera" compile "$src/kernels/matmul.py" --kernel matmul_kernel --signature "$sig" \
    -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=64 -D GROUP_M=8 --arch sm_80,sm_90a --emit cpp -o "$tmp/mm" 2>"$tmp/err"; then
  echo "FAIL: --emit cpp: $(head -5 "$tmp/err")"; exit 1
fi
failed=0
grep -q 'stops with a trap' "$tmp/mm.h" || { echo "FAIL: the header does not name the checks"; failed=1; }
for dim in 0 1; do
  grep -qE "^/// - sm_90a: tl.load at .*matmul.py:[0-9]+:[0-9]+: .* along dim $dim is negative" "$tmp/mm.h" ||
    { echo "FAIL: no sm_90a check along dim $dim"; failed=1; }
done
if grep -q '^/// - sm_80:' "$tmp/mm.h"; then echo "FAIL: a check listed for sm_80"; failed=1; fi
[ $failed = 0 ] && echo "ok: $(grep -c '^/// - ' "$tmp/mm.h") checks listed"
exit $failed
