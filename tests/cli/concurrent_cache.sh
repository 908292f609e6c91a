#!/usr/bin/env bash
# Several processes compiling the same kernels into one cache directory at
# once (DESIGN.md §8): every process gets the same cubins, and the cache ends
# with one intact entry per specialization (MANIFEST present, no temporary
# directories left), which a later process loads instead of compiling.
#
#   concurrent_cache.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
tessera=$1
src=$3
source "$(dirname "$0")/lib/toolkit.sh"
require_toolkit "$tessera" "nothing to assemble"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cache=$tmp/cache
k=$src/bench/gpu/kernels.py
specs=(
  "vector_add|*fp32:16, *fp32:16, *fp32:16, i32|BLOCK=1024|4"
  "softmax_row|*fp32:16, *fp32:16, i32:16, i32:16, i32|BLOCK=2048|8"
  "layernorm_fwd|*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32, fp32|BLOCK=1024|4"
)
compile_all() {  # TAG
  local i=0
  for s in "${specs[@]}"; do
    IFS='|' read -r kernel sig define warps <<<"$s"
    TESSERA_CACHE_DIR=$cache "$tessera" compile "$k" --kernel "$kernel" --signature "$sig" -D "$define" \
      --num-warps "$warps" --arch sm_90a --emit cubin -o "$tmp/$1.$i.cubin" || return 1
    i=$((i + 1))
  done
}
pids=()
for p in 1 2 3 4; do compile_all "p$p" & pids+=($!); done
for pid in "${pids[@]}"; do wait "$pid" || { echo "FAIL: a compiling process failed"; exit 1; }; done
for i in 0 1 2; do
  [ "$(head -c 4 "$tmp/p1.$i.cubin" | tail -c 3)" = "ELF" ] || { echo "FAIL: spec $i gave no cubin"; exit 1; }
  for p in 2 3 4; do
    cmp -s "$tmp/p1.$i.cubin" "$tmp/p$p.$i.cubin" || { echo "FAIL: process $p got another cubin for spec $i"; exit 1; }
  done
done
entries=$(find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name '.*' ! -name 'libdevice*' | wc -l)
[ "$entries" -eq 3 ] || { echo "FAIL: $entries cache entries, want 3"; ls -la "$cache"; exit 1; }
for d in $(find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name '.*' ! -name 'libdevice*'); do
  [ -s "$d/MANIFEST" ] || { echo "FAIL: $d has no MANIFEST"; exit 1; }
  while read -r name size _; do
    [ "$(stat -c %s "$d/$name")" = "$size" ] || { echo "FAIL: $d/$name is not $size bytes"; exit 1; }
  done <"$d/MANIFEST"
done
leftovers=$(find "$cache" -mindepth 1 -maxdepth 1 -name '.tmp-*' | wc -l)
[ "$leftovers" -eq 0 ] || { echo "FAIL: $leftovers temporary directories left"; exit 1; }
# A later process reads the entries: the same cubins.
compile_all later || exit 1
for i in 0 1 2; do cmp -s "$tmp/p1.$i.cubin" "$tmp/later.$i.cubin" || { echo "FAIL: the cached cubin differs"; exit 1; }; done
echo "ok: 4 processes, 3 specializations, 3 intact entries"
