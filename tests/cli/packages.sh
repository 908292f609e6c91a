#!/usr/bin/env bash
# Programs of several files from the command line (issue 24): `tessera list`
# of a package lists every module's kernels with constexprs marked; a file
# inside a package compiles with its relative imports; -I adds a directory to
# the module search path; a kernel made by `triton.jit(f)` is listed by the
# name it is bound to.
#
#   packages.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
tessera=$1
src=$3
pkg=$src/tests/e2e/kernels/fusedpkg
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
failed=0
# expect STATUS NEEDLE ARGS...: the command exits STATUS and its output has NEEDLE.
expect() {
  local want=$1 needle=$2 rc=0
  shift 2
  "$tessera" "$@" >"$tmp/out" 2>&1 || rc=$?
  if [ "$rc" != "$want" ] || ! grep -qF -- "$needle" "$tmp/out"; then
    echo "FAIL: tessera $* -> exit $rc (want $want), output:"; sed 's/^/    /' "$tmp/out" | head -8
    echo "    (wanted: $needle)"
    failed=$((failed + 1))
  fi
}
expect 0 "fusedpkg.ops.elementwise.scaled_add(x_ptr, y_ptr, out_ptr, even_out, n, alpha, BLOCK: constexpr, EVEN: constexpr)" list "$pkg"
expect 0 "fusedpkg.ops.elementwise.axpby_nospec(x_ptr, y_ptr, out_ptr, n, a, b, BLOCK: constexpr)" list "$pkg"
expect 0 "fusedpkg.ops.norm.rms_norm_rows(x_ptr, w_ptr, out_ptr, rows, cols, eps, BLOCK: constexpr, NUM_PROGRAMS: constexpr)" list "$pkg"
expect 0 "fusedpkg.ops.broken.broken_tuning(x_ptr, n, BLOCK: constexpr)" list "$pkg"
expect 0 "axpby(x_ptr, y_ptr, out_ptr, n, a, b, BLOCK: constexpr)" list "$pkg/ops/elementwise.py"
# A kernel of a file inside the package, its helpers imported relatively.
expect 0 "tt.func" compile "$pkg/ops/elementwise.py" --kernel scaled_add --signature "*fp32:16, *fp32:16, *fp32, *i32, i32, fp32" \
  -D BLOCK=128 -D EVEN=True --emit ttir
# A kernel of another module by its dotted path, from the re-exporting module.
expect 0 "tt.func" compile "$pkg/launch.py" --kernel _norm.row_max --signature "*fp32, *fp32, i32" -D BLOCK=64 --emit ttir
# -I: a module outside the file's directory and package.
mkdir -p "$tmp/lib" "$tmp/app"
printf 'import triton\nimport triton.language as tl\nK = tl.constexpr(3)\n@triton.jit\ndef helper(x):\n    return x * K\n' >"$tmp/lib/extlib.py"
printf 'import triton\nimport triton.language as tl\nfrom extlib import helper\n@triton.jit\ndef k(p):\n    tl.store(p, helper(tl.load(p)))\nk2 = triton.jit(k.fn)\n' >"$tmp/app/k.py"
expect 1 "module 'extlib', which is not on the search path" compile "$tmp/app/k.py" --kernel k --signature "*i32" --emit ttir
expect 0 "tt.func" compile "$tmp/app/k.py" -I "$tmp/lib" --kernel k --signature "*i32" --emit ttir
expect 0 "k2(p)" list -I "$tmp/lib" "$tmp/app/k.py"
expect 2 "-I expects a directory" list "$tmp/app/k.py" -I
# A kernel in a class, by its dotted name; -D NAME=None is Python's None,
# "'None'" the string.
printf 'import triton\nimport triton.language as tl\nclass Ops:\n    @staticmethod\n    @triton.jit\n    def k(p, ACT: tl.constexpr):\n        tl.static_assert(ACT is None, "ACT is not None")\n        tl.store(p, 1)\n' >"$tmp/app/cls.py"
expect 0 "tt.func" compile "$tmp/app/cls.py" --kernel Ops.k --signature "*i32" -D ACT=None --emit ttir
expect 1 "ACT is not None" compile "$tmp/app/cls.py" --kernel Ops.k --signature "*i32" -D "ACT='None'" --emit ttir
expect 0 "Ops.k(p, ACT: constexpr)" list "$tmp/app/cls.py"
[ "$failed" -eq 0 ] && echo "packages: all cases passed"
exit $((failed > 0))
