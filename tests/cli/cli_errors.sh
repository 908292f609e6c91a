#!/usr/bin/env bash
# Mistakes on the command line get a clear error (exit 2 for usage, 1 for
# what the compiler refuses), never a guess: each case once passed silently
# or blamed the wrong thing (issue 23). Also: per-command --help, --opt=value,
# --emit cpp naming its launcher after -o's file, CR-only line endings.
#
#   cli_errors.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
tessera=$1
src=$3
k=$src/examples/softmax/softmax.py
sig='*fp32:16, *fp32:16, i32, i32, i32'
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
failed=0
# expect STATUS NEEDLE ARGS...: the command exits STATUS and says NEEDLE.
expect() {
  local want=$1 needle=$2 rc=0
  shift 2
  "$tessera" "$@" >"$tmp/out" 2>&1 || rc=$?
  if [ "$rc" != "$want" ] || { [ -n "$needle" ] && ! grep -qF -- "$needle" "$tmp/out"; }; then
    echo "FAIL: tessera $* -> exit $rc (want $want), output:"; sed 's/^/    /' "$tmp/out" | head -5
    echo "    (wanted: $needle)"
    failed=$((failed + 1))
  fi
}
c=(compile "$k" --kernel softmax_rows)
expect 1 "'i3' is not a type (types: i1, i8" "${c[@]}" --signature i3 --emit ttir
expect 1 "parameter 'out_ptr': unknown type 'int32' (types:" "${c[@]}" --signature 'int32, *fp32, i32, i32, i32' --emit ttir
expect 1 "unknown pointer element type 'fp3' (types:" "${c[@]}" --signature '*fp32, *fp3, i32, i32, i32' --emit ttir
expect 1 "entry 1 of ',,,,' is empty" "${c[@]}" --signature ',,,,' --emit ttir
expect 1 "has an unclosed bracket" "${c[@]}" --signature '(*fp32:16, *fp32:16, i32, i32, i32' --emit ttir
expect 1 "has an unopened bracket" "${c[@]}" --signature '*fp32:16), *fp32:16, i32, i32, i32' --emit ttir
# A float's ':1' used to become the integer constant 1.
expect 1 "':1' specializes integer parameters (and :16 pointers), not fp32" "${c[@]}" --signature '*fp32:16, *fp32:16, fp32:1, i32, i32' --emit ttir
expect 1 "':16' specializes integer parameters (and :16 pointers), not i1" "${c[@]}" --signature '*fp32:16, *fp32:16, i1:16, i32, i32' --emit ttir
expect 2 "-D BLOCK=010: '010': leading zeros are not allowed" "${c[@]}" --signature "$sig" -D BLOCK=010 --emit ttir
expect 2 "-D BLOCK is given twice" "${c[@]}" --signature "$sig" -D BLOCK=64 -D BLOCK=128 --emit ttir
expect 2 "does not fit in a 64-bit integer" "${c[@]}" --signature "$sig" -D BLOCK=99999999999999999999 --emit ttir
expect 2 "--num-warps 4294967300 is out of range" "${c[@]}" --signature "$sig" -D BLOCK=1024 --num-warps 4294967300
expect 1 "unknown GPU architecture 'sm_999' (known: sm_70" "${c[@]}" --signature "$sig" -D BLOCK=1024 --arch sm_999 --emit ptx
expect 1 "num_ctas must be 1, 2, 4 or 8" "${c[@]}" --signature "$sig" -D BLOCK=1024 --num-ctas 3 --emit ttir
expect 1 "either every element has a field name" "${c[@]}" --signature '(n=*fp32, *fp32), *fp32, i32, i32, i32' --emit ttir
expect 1 "is a directory" compile "$src/examples" --kernel k --signature i32
expect 1 "is a directory" list "$src/examples"
expect 0 "*TYPE      a pointer to TYPE" compile --help
expect 0 "usage: tessera list [-I DIR]... FILE|PACKAGE" list --help
expect 0 "usage: tessera info" info --help
expect 2 "unknown option '--frobnicate'" "${c[@]}" --signature "$sig" --frobnicate=3
# --opt=value is --opt value.
expect 0 "tt.func @softmax_rows" "${c[@]}" --signature="$sig" -D BLOCK=0x400 --emit=ttir --num-warps=8
# Triton's AOT form with the constexpr inline.
expect 0 "tt.func @softmax_rows" "${c[@]}" --signature "$sig, 1024" --emit ttir
# CR-only line endings (classic Mac) are newlines, as in Python.
printf 'import triton\rimport triton.language as tl\r\r@triton.jit\rdef one(x_ptr):\r    tl.store(x_ptr, 1)\r' >"$tmp/cr.py"
expect 0 "one(x_ptr)" list "$tmp/cr.py"
# Invalid UTF-8 is a located error, as Python's SyntaxError.
printf 'import triton\n# caf\xe9\n' >"$tmp/latin1.py"
expect 1 "latin1.py:2:6: error: the file is not valid UTF-8 (byte 0xe9)" list "$tmp/latin1.py"
# --emit cpp: -o gen/softmax.cpp writes gen/softmax.{h,cpp}, the launcher named softmax; --name overrides.
if "$tessera" info 2>&1 | grep -q '^toolkit: available'; then
  mkdir -p "$tmp/gen"
  expect 0 "" "${c[@]}" --signature "$sig" -D BLOCK=1024 --arch sm_90a --emit cpp -o "$tmp/gen/softmax.cpp"
  [ -s "$tmp/gen/softmax.h" ] && [ -s "$tmp/gen/softmax.cpp" ] && grep -q "softmax" "$tmp/gen/softmax.h" ||
    { echo "FAIL: --emit cpp -o gen/softmax.cpp did not write gen/softmax.h and .cpp"; failed=$((failed + 1)); }
  expect 0 "" "${c[@]}" --signature "$sig" -D BLOCK=1024 --arch sm_90a --emit cpp -o "$tmp/gen/x" --name fused_softmax
  grep -q "fused_softmax" "$tmp/gen/x.h" || { echo "FAIL: --name did not name the launcher"; failed=$((failed + 1)); }
  expect 2 "--name names the launcher of --emit cpp" "${c[@]}" --signature "$sig" -D BLOCK=1024 --name x
fi
# The interpreter's threads follow the CPUs this process may use, or TESSERA_NUM_THREADS.
if command -v taskset >/dev/null; then
  taskset -c 0 "$tessera" info | grep -q '^cpus: 1 usable' ||
    { echo "FAIL: under taskset -c 0, tessera info does not count 1 usable CPU"; failed=$((failed + 1)); }
fi
TESSERA_NUM_THREADS=3 "$tessera" info | grep -q 'interpreter threads: 3$' ||
  { echo "FAIL: TESSERA_NUM_THREADS=3 is not the interpreter's thread count"; failed=$((failed + 1)); }
TESSERA_NUM_THREADS=0 expect 1 "TESSERA_NUM_THREADS='0' is not valid: expected an integer from 1 to 4096" info
[ "$failed" = 0 ] || { echo "$failed cases failed"; exit 1; }
echo "ok: every misuse was refused with its reason"
