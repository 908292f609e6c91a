#!/usr/bin/env bash
# The GPU lowering is one pass pipeline, verified after every pass
# (issue #26): TESSERA_DUMP=after-all prints the IR after each pass of a
# matmul's lowering (kernels/matmul.py, sm_90a and sm_80), in the order of
# the pipeline; the last dump is the ttgir `--emit ttgir` prints; tessera-opt
# runs the same pipeline string (--pass-pipeline, --print-ir-after-all).
#
#   dump_after_all.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
tessera=$1 opt=$2 src=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
sig="*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1"
# The pipeline's passes, in order (lib/gpu/LowerToGpuIR.cpp, gpuPipeline).
want_90a="inline canonicalize cse dce select-kernel carry-block-pointer-offsets canonicalize dce pointer-tiles-to-tma
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
