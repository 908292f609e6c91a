#!/usr/bin/env bash
# `tessera compile --emit cpp` of a kernel with tuple and namedtuple
# parameters (tests/e2e/kernels/aggregates.py's tuple_arguments): the
# launcher takes each element as a parameter of its own (`ptrs_1_0` is
# element 0 of element 1 of `ptrs`), with the 16-byte checks of the
# specialized ones, and the generated C++ compiles against cuda.h. A tuple
# holding a tensor descriptor is refused, naming the parameter.
#   aot_tuple_parameters.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
tessera=$1
src=$3
source "$(dirname "$0")/lib/toolkit.sh"
require_toolkit "$tessera" "the AOT launcher cannot be assembled"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
kernels=$src/tests/e2e/kernels/aggregates.py
if ! TESSERA_CACHE_DIR=$tmp/cache "$tessera" compile "$kernels" --kernel tuple_arguments \
    --signature "(*i32:16, (*i32:16, *i32:16)), Sizes(n=i32, scale=i32), *i32:16" -D BLOCK=128 --arch sm_90a \
    --emit cpp -o "$tmp/tup" 2>"$tmp/err"; then
  echo "FAIL: --emit cpp: $(head -5 "$tmp/err")"; exit 1
fi
failed=0
want='CUdeviceptr ptrs_0, CUdeviceptr ptrs_1_0, CUdeviceptr ptrs_1_1, int32_t sizes_0, int32_t sizes_1, CUdeviceptr out_ptr'
grep -qF "$want" "$tmp/tup.h" || { echo "FAIL: the launcher's parameters are not the tuples' elements:"; grep -n "^CUresult" "$tmp/tup.h"; failed=1; }
[ "$(grep -c '% 16 != 0' "$tmp/tup.cpp")" = 4 ] || { echo "FAIL: expected 4 alignment checks"; failed=1; }
cxx=$(command -v g++ || command -v c++)
cuda_include=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")/../include
if [ -n "$cxx" ] && [ -f "$cuda_include/cuda.h" ]; then
  "$cxx" -std=c++17 -c -I"$cuda_include" "$tmp/tup.cpp" -o "$tmp/tup.o" 2>"$tmp/cxx" ||
    { echo "FAIL: the generated launcher does not compile:"; head -10 "$tmp/cxx"; failed=1; }
fi
if TESSERA_CACHE_DIR=$tmp/cache "$tessera" compile "$kernels" --kernel tuple_descriptor_arguments \
    --signature "(tensordesc<fp32[16, 32]>, tensordesc<fp32[16, 32]>), *fp32:16, i32, i32" -D BLOCK_M=16 -D BLOCK_N=32 \
    --arch sm_90a --emit cpp -o "$tmp/desc" 2>"$tmp/err"; then
  echo "FAIL: a tuple of descriptors was accepted"; failed=1
elif ! grep -q "parameter 'descs'.*tensor descriptor" "$tmp/err"; then
  echo "FAIL: the refusal does not name the parameter: $(head -3 "$tmp/err")"; failed=1
fi
[ $failed = 0 ] && echo "ok: tuple parameters flattened, launcher compiled"
exit $failed
