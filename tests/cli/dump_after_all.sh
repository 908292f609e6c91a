#!/usr/bin/env bash
# The GPU lowering is one pass pipeline, verified after every pass
# (issue #26): TESSERA_DUMP=after-all prints the IR after each pass of a
# matmul's lowering (kernels/matmul.py, sm_90a and sm_80), in the order of
# the pipeline; the last dump is the ttgir `--emit ttgir` prints; tessera-opt
# runs the same pipeline string (--pass-pipeline, --print-ir-after-all).
# `compile --emit ttgir --stop-after PASS[:N]` gives the IR after one pass;
# TESSERA_DUMP_DIR writes the stages (and the passes) to files.
#
#   dump_after_all.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
tessera=$1 opt=$2 src=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
sig="*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1"
# The pipeline's passes, in order (lib/gpu/LowerToGpuIR.cpp, gpuPipeline).
want_90a="inline canonicalize cse dce select-kernel carry-block-pointer-offsets canonicalize dce transposed-loads pointer-tiles-to-tma
tma-descriptor-loads rewrite-block-pointers combine-dot-add upcast-fp8-dots carry-pointer-offsets dce convert-to-gpu
propagate-dot-layouts rematerialize-converts fold-converts wgmma-register-operands cse dce sink-casts
rematerialize-at-uses pipeline-dot-loops licm dce ping-pong-warpgroups encode-host-tensormaps allocate-shared-memory"
for arch in sm_90a sm_80; do
  TESSERA_CACHE_DIR=$tmp/cache TESSERA_DUMP=after-all "$tessera" compile "$src/kernels/matmul.py" --kernel matmul_kernel \
    --signature "$sig" -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=64 -D GROUP_M=8 --num-warps 4 --num-stages 3 \
    --arch $arch --emit ttgir -o "$tmp/$arch.ttgir" 2>"$tmp/$arch.dump" || { cat "$tmp/$arch.dump"; fail "compile ($arch)"; }
  got=$(sed -n 's|^// ----- after \([a-z0-9-]*\): matmul_kernel ('$arch') -----$|\1|p' "$tmp/$arch.dump" | tr '\n' ' ')
  want=$(tr '\n' ' ' <<<"$want_90a")
  # Without sm_90a's TMA the pointer tiles stay: pointer-tiles-to-tma is in the pipeline all the same.
  [ "$got" = "$want" ] || fail "$arch: passes dumped:
  $got
want:
  $want"
  # The last dump is the module --emit ttgir prints.
  awk '/^\/\/ ----- after /{n++; buf=""; next} {buf = buf $0 "\n"} END {printf "%s", buf}' "$tmp/$arch.dump" >"$tmp/$arch.last"
  cmp -s "$tmp/$arch.last" "$tmp/$arch.ttgir" || fail "$arch: the last dump is not the ttgir"
  echo "$arch: $(wc -w <<<"$got") passes dumped, each verified; the last is the ttgir"
done

# tessera-opt runs the pass list as a pipeline string and prints after each.
"$tessera" compile "$src/kernels/matmul.py" --kernel matmul_kernel --signature "$sig" -D BLOCK_M=64 -D BLOCK_N=64 \
  -D BLOCK_K=32 -D GROUP_M=8 --emit ttir -o "$tmp/k.ttir" || fail "ttir"
"$opt" "$tmp/k.ttir" --pass-pipeline="inline{noinline-too=true},canonicalize,convert-to-gpu{num-warps=4,target=sm_90a}" \
  --print-ir-after-all -o "$tmp/k.out" 2>"$tmp/opt.dump" || { cat "$tmp/opt.dump"; fail "tessera-opt"; }
n=$(grep -c '^// ----- after ' "$tmp/opt.dump")
[ "$n" = 3 ] || fail "tessera-opt --print-ir-after-all printed $n dumps, want 3"
grep -q '#ttg.blocked' "$tmp/k.out" || fail "tessera-opt: no encodings after convert-to-gpu"
echo "tessera-opt: --pass-pipeline with --print-ir-after-all ok"

# --stop-after: the IR right after one pass (the last one: the ttgir itself).
compile90() {
  "$tessera" compile "$src/kernels/matmul.py" --kernel matmul_kernel --signature "$sig" -D BLOCK_M=128 -D BLOCK_N=128 \
    -D BLOCK_K=64 -D GROUP_M=8 --num-warps 4 --num-stages 3 --arch sm_90a "$@"
}
compile90 --emit ttgir --stop-after allocate-shared-memory -o "$tmp/stop.last" || fail "--stop-after allocate-shared-memory"
cmp -s "$tmp/stop.last" "$tmp/sm_90a.ttgir" || fail "--stop-after at the last pass is not the ttgir"
compile90 --emit ttgir --stop-after convert-to-gpu -o "$tmp/stop.convert" || fail "--stop-after convert-to-gpu"
grep -q '#ttg.blocked' "$tmp/stop.convert" || fail "--stop-after convert-to-gpu: no encodings"
! grep -q 'shared_buffers_bytes\|ttng.init_barriers' "$tmp/stop.convert" || fail "--stop-after convert-to-gpu: pipelined or allocated already"
grep -q 'ttng.init_barriers' "$tmp/sm_90a.ttgir" || fail "the ttgir has no TMA pipeline"
compile90 --emit ttgir --stop-after dce:2 -o "$tmp/stop.dce2" || fail "--stop-after dce:2"
! grep -q '#ttg.' "$tmp/stop.dce2" || fail "--stop-after dce:2 (before convert-to-gpu) has encodings"
compile90 --emit ttgir --stop-after dce:9 2>"$tmp/stop.err" && fail "--stop-after dce:9 succeeded"
grep -q "runs 'dce' 5 times, not dce:9 (its passes: inline, canonicalize" "$tmp/stop.err" || { cat "$tmp/stop.err"; fail "dce:9 message"; }
compile90 --emit ttgir --stop-after no-such-pass 2>"$tmp/stop.err" && fail "--stop-after no-such-pass succeeded"
grep -q "has no pass 'no-such-pass'" "$tmp/stop.err" || { cat "$tmp/stop.err"; fail "unknown pass message"; }
compile90 --emit ptx --stop-after dce 2>"$tmp/stop.err" && fail "--stop-after with --emit ptx succeeded"
grep -q "only with --emit ttgir" "$tmp/stop.err" || { cat "$tmp/stop.err"; fail "--emit ptx message"; }
echo "--stop-after: after a named pass, its N-th run; unknown passes and runs named"

# TESSERA_DUMP_DIR: the stages as files, one directory per specialization;
# with after-all, every pass numbered in order.
dd=$tmp/dumps
TESSERA_CACHE_DIR=$tmp/cache TESSERA_DUMP_DIR=$dd compile90 --emit ptx -o "$tmp/k.ptx" || fail "TESSERA_DUMP_DIR compile"
dir=$(ls -d "$dd"/matmul_kernel-* 2>/dev/null)
[ "$(wc -l <<<"$dir")" = 1 ] && [ -d "$dir" ] || fail "TESSERA_DUMP_DIR: want one matmul_kernel-<key> directory, got: $(ls "$dd")"
for f in matmul_kernel.ttir matmul_kernel.sm_90a.ttgir matmul_kernel.sm_90a.ptx; do
  [ -s "$dir/$f" ] || fail "TESSERA_DUMP_DIR: no $f (have: $(ls "$dir"))"
done
cmp -s "$dir/matmul_kernel.sm_90a.ptx" "$tmp/k.ptx" || fail "TESSERA_DUMP_DIR: the ptx file is not --emit ptx's"
cmp -s "$dir/matmul_kernel.sm_90a.ttgir" "$tmp/sm_90a.ttgir" || fail "TESSERA_DUMP_DIR: the ttgir file is not --emit ttgir's"
[ ! -e "$dir/matmul_kernel.sm_90a.passes" ] || fail "TESSERA_DUMP_DIR alone dumped the passes"
rm -rf "$dd"
TESSERA_CACHE_DIR=$tmp/cache TESSERA_DUMP_DIR=$dd TESSERA_DUMP=after-all compile90 --emit ttgir -o /dev/null 2>"$tmp/dd.err" ||
  fail "TESSERA_DUMP_DIR with after-all"
[ ! -s "$tmp/dd.err" ] || fail "TESSERA_DUMP_DIR: dumps went to stderr too"
passes=$(ls "$dd"/matmul_kernel-*/matmul_kernel.sm_90a.passes | sed 's/^[0-9]*-\(.*\)\.ttgir$/\1/' | tr '\n' ' ')
[ "$passes" = "$(tr '\n' ' ' <<<"$want_90a")" ] || fail "TESSERA_DUMP_DIR passes: $passes"
echo "TESSERA_DUMP_DIR: ttir, ttgir, ptx files; the passes numbered in pipeline order"
