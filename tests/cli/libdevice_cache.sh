#!/usr/bin/env bash
# The libdevice wrappers NVRTC compiles are a cache entry like a kernel's
# (DESIGN.md §8): checked against their SHA-256 manifest, recompiled and
# replaced when corrupt. Once, a cached libdevice PTX with one constant
# changed was linked as it was (a silently different erf), and a truncated
# one failed every later compile with an error blaming the kernel.
# Cache files replaced by a FIFO or a link to /dev/zero must not hang.
#
#   libdevice_cache.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
tessera=$1
source "$(dirname "$0")/lib/toolkit.sh"
require_toolkit "$tessera" "nothing to assemble"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TESSERA_CACHE_DIR=$tmp/cache
cat >"$tmp/k.py" <<'PY'
import triton
import triton.language as tl

@triton.jit
def erf_rows(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    tl.store(y_ptr + offs, tl.math.erf(tl.load(x_ptr + offs, mask=keep)), mask=keep)
PY
compile() {  # OUT
  timeout 60 "$tessera" compile "$tmp/k.py" --kernel erf_rows --signature '*fp32:16, *fp32:16, i32' -D BLOCK=256 \
    --arch sm_90a --emit cubin -o "$1"
}
fail() { echo "FAIL: $*"; exit 1; }
drop_kernel_entries() {  # the kernel's own entries would be hits that never look at libdevice
  find "$TESSERA_CACHE_DIR" -mindepth 1 -maxdepth 1 -type d ! -name '.*' ! -name 'libdevice-*' -exec rm -rf {} +
}

compile "$tmp/first.cubin" || fail "the first compile failed"
entry=$(find "$TESSERA_CACHE_DIR" -mindepth 1 -maxdepth 1 -type d -name 'libdevice-*')
[ "$(echo "$entry" | grep -c .)" = 1 ] || fail "expected one libdevice entry, found: $entry"
[ -s "$entry/MANIFEST" ] && [ -s "$entry/ptx" ] || fail "the libdevice entry has no MANIFEST or ptx"
cp "$entry/ptx" "$tmp/good.ptx"

# 1. One constant changed, same size: the digest catches it; recompiled, replaced.
grep -q '0f3F' "$entry/ptx" || fail "no fp32 constant (0f3F...) to change in the libdevice PTX"
sed -i '0,/0f3F/s//0f3E/' "$entry/ptx"
cmp -s "$entry/ptx" "$tmp/good.ptx" && fail "the PTX did not change"
drop_kernel_entries
compile "$tmp/second.cubin" || fail "the compile after tampering failed"
cmp -s "$entry/ptx" "$tmp/good.ptx" || fail "the tampered libdevice PTX was kept"
cmp -s "$tmp/first.cubin" "$tmp/second.cubin" || fail "the cubin changed after tampering"

# 2. Truncated: a miss, not an error blaming the kernel.
head -c 100 "$tmp/good.ptx" >"$entry/ptx"
drop_kernel_entries
compile "$tmp/third.cubin" || fail "the compile after truncation failed"
cmp -s "$entry/ptx" "$tmp/good.ptx" || fail "the truncated libdevice PTX was kept"

# 3. A FIFO and a link to /dev/zero in place of cache files: no hang.
rm "$entry/ptx"; mkfifo "$entry/ptx"
drop_kernel_entries
compile "$tmp/fourth.cubin" || fail "the compile with a FIFO in the libdevice entry failed (or hung)"
cmp -s "$entry/ptx" "$tmp/good.ptx" || fail "the FIFO was not replaced"
kernel=$(find "$TESSERA_CACHE_DIR" -mindepth 1 -maxdepth 1 -type d ! -name '.*' ! -name 'libdevice-*' | head -1)
[ -n "$kernel" ] || fail "no kernel entry"
rm "$kernel/cubin"; ln -s /dev/zero "$kernel/cubin"
compile "$tmp/fifth.cubin" || fail "the compile with /dev/zero as a cached cubin failed (or hung)"
cmp -s "$tmp/first.cubin" "$tmp/fifth.cubin" || fail "the cubin changed"
[ -f "$kernel/cubin" ] && [ ! -L "$kernel/cubin" ] || fail "the linked cubin was not replaced"

# 4. TESSERA_ALWAYS_COMPILE=1 reads no entry, libdevice's included.
cp "$tmp/good.ptx" "$tmp/keep.ptx"
printf 'garbage' >"$entry/ptx"
TESSERA_ALWAYS_COMPILE=1 compile "$tmp/sixth.cubin" || fail "TESSERA_ALWAYS_COMPILE=1 did not bypass the cache"
cmp -s "$tmp/first.cubin" "$tmp/sixth.cubin" || fail "the cubin changed under TESSERA_ALWAYS_COMPILE=1"
echo "ok: tampered, truncated, FIFO and /dev/zero cache files were recompiled and replaced"
