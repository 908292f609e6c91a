#!/usr/bin/env bash
# The ahead-of-time path end to end, as a C++ project uses it: install this
# build of Tessera into a scratch prefix, configure and build
# examples/aot (find_package(Tessera), tessera_add_kernel) against it, check
# that the program links no Tessera library (only the CUDA driver), then run
# it: on a machine without a CUDA driver or GPU it says so and exits 77
# (skipped), after the build and link checks.
#
#   aot_example.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
tessera=$1
src=$3
build=$(cd "$(dirname "$tessera")/.." && pwd)
if ! "$tessera" info 2>&1 | grep -q '^toolkit: available'; then
  echo "no CUDA toolkit: the AOT launcher cannot be assembled"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
cmake -S "$src/examples/aot" -B "$tmp/build" -G Ninja -DTessera_DIR="$tmp/prefix/lib/cmake/Tessera" \
  >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
program=$tmp/build/aot_softmax
needed=$(readelf -d "$program" | grep NEEDED)
echo "$needed"
if grep -qi tessera <<<"$needed"; then echo "FAIL: the AOT program links a Tessera library"; exit 1; fi
grep -q 'libcuda.so' <<<"$needed" || { echo "FAIL: the AOT program does not link the CUDA driver"; exit 1; }
grep -q 'softmax_rows' "$tmp/build/tessera_kernels/softmax_rows_1024.h" || { echo "FAIL: no launcher"; exit 1; }
# ldd's whole output first: `ldd | grep -q` under pipefail fails when grep
# exits early and ldd gets SIGPIPE, and the program then ran on a machine
# without a driver (a flaky failure seen in CI).
deps=$(ldd "$program" 2>&1 || true)
if grep -q 'libcuda.so.1 => not found' <<<"$deps"; then
  echo "built and linked; not run: this machine has no CUDA driver (libcuda.so.1)"
  exit 77
fi
"$program"
