#!/usr/bin/env bash
# Autotuning across processes on the GPU (issue #4's acceptance): two
# processes tune the same kernels (the online softmax and the layernorm
# under @triton.autotune, 5 configs each) at once into one fresh cache
# directory; both must produce correct outputs, and the cache must then
# hold only intact entries (every file matching its MANIFEST, no temporary
# directory left). A third process must find both choices on disk (no
# timing) and produce correct outputs again.
#
#   autotune_processes.sh BENCH_GPU KERNELS_PY
set -uo pipefail
bench=$1
kernels=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TESSERA_CACHE_DIR=$tmp/cache TESSERA_PRINT_AUTOTUNING=1
modes=(autotune_sweep autotune_sweep_layernorm)
tune() {  # TAG
  for m in "${modes[@]}"; do
    "$bench" --cold "$m" --kernels "$kernels" >>"$tmp/$1.out" 2>>"$tmp/$1.err" || echo "exit $? ($m)" >>"$tmp/$1.out"
  done
}
tune p1 & a=$!
tune p2 & b=$!
wait $a; wait $b
fail=0
for p in p1 p2; do
  cat "$tmp/$p.out"
  n=$(grep -c '^{' "$tmp/$p.out")
  if [ "$n" -ne 2 ] || grep -q '"error"\|^exit' "$tmp/$p.out"; then
    echo "FAIL: process $p: wrong output or no result"; sed -n 1,40p "$tmp/$p.err"; fail=1
  fi
done
echo "sweeps timed by the concurrent processes: $(cat "$tmp"/p1.err "$tmp"/p2.err | grep -c 'finished after')"
grep -h 'finished after' "$tmp"/p1.err "$tmp"/p2.err  # where each sweep's time went
# The cache: only complete entries.
entries=0
while IFS= read -r manifest; do
  dir=$(dirname "$manifest")
  entries=$((entries + 1))
  while read -r name size sum; do
    f=$dir/$name
    if [ ! -f "$f" ] || [ "$(stat -c %s "$f")" != "$size" ] || [ "$(sha256sum "$f" | cut -d' ' -f1)" != "$sum" ]; then
      echo "FAIL: torn cache entry $dir ($name)"; fail=1
    fi
  done <"$manifest"
done < <(find "$TESSERA_CACHE_DIR" -name MANIFEST)
stray=$(find "$TESSERA_CACHE_DIR" -maxdepth 1 -name '.tmp-*' | wc -l)
echo "cache: $entries entries, all intact unless said above; $stray temporary directories"
[ "$stray" -eq 0 ] || { echo "FAIL: temporary directories left in the cache"; fail=1; }
# A third process: the choices come from disk.
tune p3
cat "$tmp/p3.out"
cached=$(grep -c 'cached on disk' "$tmp/p3.err")
if [ "$cached" -ne 2 ] || grep -q '"error"\|^exit' "$tmp/p3.out" || [ "$(grep -c '^{' "$tmp/p3.out")" -ne 2 ]; then
  echo "FAIL: the third process did not reuse both tuning results correctly"; cat "$tmp/p3.err"; fail=1
fi
[ $fail -eq 0 ] && echo "autotune across processes: passed (2 concurrent tuners, $entries intact entries, reuse: $cached/2)"
exit $fail
