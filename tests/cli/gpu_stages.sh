#!/usr/bin/env bash
# `tessera compile --emit ttgir|ptx|cubin|sass` and `tessera info` on a
# small elementwise kernel (odd size, masked): every stage's text names the
# kernel and the target asked for, a cubin is an ELF file for that
# architecture, and the user errors (bad stage, bad arch, cubin to a
# terminal) are refused with a clear message and the usual exit status
# (2: usage, 1: error). Needs no GPU; the cubin/sass checks run only when
# `tessera info` reports the toolkit.
#   gpu_stages.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
tessera=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
cat >"$tmp/k.py" <<'EOF'
import triton
import triton.language as tl

@triton.jit
def scale_shift(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, x * alpha + 1.0, mask=m)
EOF
args=("$tmp/k.py" --kernel scale_shift --signature "*fp32:16, *fp32:16, i32, fp32" -D BLOCK=256)

info=$("$tessera" info) || fail "tessera info exited $?"
grep -q '^tessera ' <<<"$info" || fail "tessera info: no version line: $info"
grep -qE '^toolkit: (available|unavailable: .+)' <<<"$info" || fail "tessera info: no toolkit line: $info"
grep -qE '^gpu: ' <<<"$info" || fail "tessera info: no gpu line: $info"

# ttgir: the Tile GPU IR carries layouts and the num_warps asked for.
if "$tessera" compile "${args[@]}" --num-warps 8 --arch sm_80 --emit ttgir -o "$tmp/k.ttgir" 2>"$tmp/err"; then
  grep -q 'tt.func @scale_shift' "$tmp/k.ttgir" || fail "ttgir: no tt.func @scale_shift"
  grep -q '#ttg.blocked' "$tmp/k.ttgir" || fail "ttgir: no #ttg.blocked layout"
  grep -q 'warpsPerCTA = \[8\]' "$tmp/k.ttgir" || fail "ttgir: --num-warps 8 not applied"
else
  fail "--emit ttgir: $(head -3 "$tmp/err")"
fi

# ptx: to stdout, for each architecture asked for.
for arch in sm_80 sm_90a; do
  if "$tessera" compile "${args[@]}" --arch $arch --emit ptx >"$tmp/$arch.ptx" 2>"$tmp/err"; then
    grep -qE "^\.target $arch\b" "$tmp/$arch.ptx" || fail "ptx for $arch: no '.target $arch' line"
    grep -qE '\.entry scale_shift' "$tmp/$arch.ptx" || fail "ptx for $arch: no .entry scale_shift"
  else
    fail "--emit ptx --arch $arch: $(head -3 "$tmp/err")"
  fi
done

# Usage errors (exit 2) and compile errors (exit 1), with clear messages.
"$tessera" compile "${args[@]}" --emit llvm >/dev/null 2>"$tmp/err"
rc=$?; [ $rc -eq 2 ] && grep -q 'ttir, ttgir, ptx, cubin, sass' "$tmp/err" || fail "--emit llvm: exit $rc: $(head -1 "$tmp/err")"
"$tessera" compile "${args[@]}" --arch sm_8x --emit ptx >/dev/null 2>"$tmp/err"
rc=$?; [ $rc -eq 1 ] && grep -q "unknown GPU architecture 'sm_8x'" "$tmp/err" || fail "--arch sm_8x: exit $rc: $(head -1 "$tmp/err")"
"$tessera" compile "${args[@]}" --num-warps 3 --emit ptx >/dev/null 2>"$tmp/err"
rc=$?; [ $rc -eq 2 ] && grep -q 'power of two' "$tmp/err" || fail "--num-warps 3: exit $rc: $(head -1 "$tmp/err")"

if ! grep -q '^toolkit: available' <<<"$info"; then
  # Without the toolkit, cubin must be refused naming what is missing.
  "$tessera" compile "${args[@]}" --emit cubin -o "$tmp/k.cubin" 2>"$tmp/err"
  rc=$?; [ $rc -eq 1 ] && grep -q 'needs the CUDA toolkit' "$tmp/err" || fail "cubin without toolkit: exit $rc: $(head -1 "$tmp/err")"
  echo "no CUDA toolkit: cubin/sass checked for their error only"
else
  # cubin: an ELF file whose e_flags name the architecture (CUDA ELF keeps
  # the SM number in e_flags: bits 0-7 in older ABIs, 8-15 in newer ones).
  for arch in sm_80 sm_90a; do
    if "$tessera" compile "${args[@]}" --arch $arch --emit cubin -o "$tmp/$arch.cubin" 2>"$tmp/err"; then
      [ "$(head -c4 "$tmp/$arch.cubin" | od -An -c | tr -d ' ')" = '177ELF' ] || fail "cubin for $arch is not ELF"
      flags=$(od -An -tu4 -j48 -N4 "$tmp/$arch.cubin" | tr -d ' ')
      sm=${arch#sm_}; sm=${sm%a}
      [ $((flags & 255)) -eq "$sm" ] || [ $(((flags >> 8) & 255)) -eq "$sm" ] ||
        fail "cubin for $arch: ELF e_flags $flags do not name sm_$sm"
    else
      fail "--emit cubin --arch $arch: $(head -3 "$tmp/err")"
    fi
  done
  # Binary output to stdout is fine into a pipe, refused on a terminal.
  n=$("$tessera" compile "${args[@]}" --arch sm_80 --emit cubin 2>"$tmp/err" | wc -c)
  [ "$n" -eq "$(wc -c <"$tmp/sm_80.cubin")" ] || fail "cubin to a pipe: $n bytes, $(head -1 "$tmp/err")"
  if command -v script >/dev/null; then
    printf -v cmd '%q ' "$tessera" compile "${args[@]}" --arch sm_80 --emit cubin
    script -qec "$cmd" /dev/null >"$tmp/tty" 2>&1
    rc=$?; [ $rc -eq 2 ] && grep -q 'binary' "$tmp/tty" || fail "cubin to a terminal: exit $rc: $(head -1 "$tmp/tty")"
  fi
  # sass: the disassembly, or a clear error when the toolkit has no disassembler.
  if "$tessera" compile "${args[@]}" --arch sm_90a --emit sass >"$tmp/k.sass" 2>"$tmp/err"; then
    grep -q 'EXIT' "$tmp/k.sass" || fail "sass: no EXIT instruction"
  else
    grep -q 'nvdisasm or cuobjdump' "$tmp/err" || fail "--emit sass: $(head -3 "$tmp/err")"
    echo "sass: no disassembler in the toolkit (error checked)"
  fi
fi
[ "$failed" -eq 0 ] && echo "tessera compile: ttgir, ptx, cubin, sass and errors checked"
[ "$failed" -eq 0 ]
