# RUN: tessera compile %s -k asm_loops -s '*fp16:16,*fp16:16,*fp32:16,i32,i32,i32' -w 4 --arch sm_90a \
# RUN:   --emit ttgir --stop-after propagate-dot-layouts | FileCheck %s
#
# PropagateDotLayouts.cpp through inline asm (pack = 2) on a dot's scores,
# in an attention-like pair of loops (unmasked, then masked) on a
# persistent grid: AssignLayouts gives the second loop's scores a blocked
# layout, and the wgmma layout must reach the asm through the mask, the
# maximum and the subtraction, as it reaches any elementwise op (before,
# the asm stayed blocked: a full-tile conversion through shared memory per
# iteration, 313 KB of shared memory for attention's persistent kernel).
#
# CHECK-LABEL: tt.func @asm_loops
# CHECK:         tt.elementwise_inline_asm {{.*}} : tensor<64x64xf32, #ttg.nvidia_mma<{versionMajor = 3
# CHECK:         tt.elementwise_inline_asm {{.*}} : tensor<64x64xf32, #ttg.nvidia_mma<{versionMajor = 3
# CHECK-NOT:     tt.elementwise_inline_asm
import triton
import triton.language as tl


@triton.jit
def block(q, kt, m, l, cols, n, MASKED: tl.constexpr):
    s = tl.dot(q, kt)
    if MASKED:
        s = tl.where(cols[None, :] < n, s, float("-inf"))
    m_new = tl.maximum(m, tl.max(s, 1))
    p = tl.inline_asm_elementwise("ex2.approx.ftz.f32 $0, $2; ex2.approx.ftz.f32 $1, $3;", "=f,=f,f,f",
                                  [s - m_new[:, None]], dtype=tl.float32, is_pure=True, pack=2)
    l = l * tl.math.exp2(m - m_new) + tl.sum(p, 1)
    return m_new, l


@triton.jit
def asm_loops(q_ptr, k_ptr, o_ptr, n, split, tiles):
    for tile in range(tl.program_id(0), tiles, tl.num_programs(0)):
        tile_block(q_ptr + tile * 4096, k_ptr, o_ptr + tile * 64, n, split)


@triton.jit
def tile_block(q_ptr, k_ptr, o_ptr, n, split):
    r = tl.arange(0, 64)
    q = tl.load(q_ptr + r[:, None] * 64 + r[None, :])
    m = tl.full([64], float("-inf"), tl.float32)
    l = tl.zeros([64], dtype=tl.float32)
    for start in range(0, split, 64):
        kt = tl.load(k_ptr + r[:, None] * 64 + (start + r)[None, :])
        m, l = block(q, kt, m, l, start + r, n, False)
    for start in range(split, n, 64):
        kt = tl.load(k_ptr + r[:, None] * 64 + (start + r)[None, :])
        m, l = block(q, kt, m, l, start + r, n, True)
    tl.store(o_ptr + r, l)


# Asm with side effects (is_pure=False) stays out: a 16x16 tile on 4 warps
# has an mma layout that holds each element in two threads, where the asm
# would run twice.
# RUN: tessera compile %s -k side_effect_asm -s '*fp16:16,*fp16:16,*fp32:16' -w 4 --arch sm_80 \
# RUN:   --emit ttgir --stop-after propagate-dot-layouts | FileCheck %s --check-prefix=IMPURE
# IMPURE-LABEL: tt.func @side_effect_asm
# IMPURE:         tt.elementwise_inline_asm {{.*}} pure = false} : tensor<16x16xi32, #ttg.blocked
@triton.jit
def side_effect_asm(a_ptr, b_ptr, out_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
    s = tl.dot(a, b)
    tl.inline_asm_elementwise("red.global.add.f32 [$1], $2;", "=r,l,f", [out_ptr + r[:, None] * 16 + r[None, :], s],
                              dtype=tl.int32, is_pure=False, pack=1)
