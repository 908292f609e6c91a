//===- TutorialKernelsTest.cpp - The tutorial kernels compile to valid IR -===//

#include "TestUtil.h"

namespace tessera::frontend::test {
namespace {

const char* kHeader = "import triton\nimport triton.language as tl\n\n";

TEST(Tutorials, VectorAdd) {
  std::string src = std::string(kHeader) + R"(
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(out_ptr + offsets, output, mask=mask)
)";
  std::string ir = compileIR(src, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK_SIZE=1024");
  EXPECT_NE(ir.find("tt.func @add_kernel("), std::string::npos) << ir;
  EXPECT_NE(ir.find("kernel = true"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tt.get_program_id"), std::string::npos);
  EXPECT_NE(ir.find("tt.make_range"), std::string::npos);
  EXPECT_NE(ir.find("arith.muli"), std::string::npos);
  EXPECT_EQ(count(ir, "tt.addptr"), 3) << ir;
  EXPECT_EQ(count(ir, "tt.load"), 2);
  EXPECT_EQ(count(ir, "tt.store"), 1);
  EXPECT_NE(ir.find("arith.addf"), std::string::npos);
  EXPECT_NE(ir.find("arith.cmpi"), std::string::npos);
  EXPECT_NE(ir.find("slt"), std::string::npos);
  EXPECT_NE(ir.find("tensor<1024x!tt.ptr<f32>>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("%arg0: !tt.ptr<f32> {divisibility = 16}"), std::string::npos) << ir;
}

TEST(Tutorials, FusedSoftmax) {
  std::string src = std::string(kHeader) + R"(
@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)
)";
  std::string ir = compileIR(src, "softmax_kernel", "*fp32, *fp32, i32, i32, i32, i32, BLOCK_SIZE=256, num_stages=2");
  EXPECT_NE(ir.find("scf.for"), std::string::npos) << ir;
  EXPECT_NE(ir.find("num_stages = 2"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tt.call"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tt.reduce"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.maxnumf"), std::string::npos) << ir;
  EXPECT_NE(ir.find("math.exp"), std::string::npos);
  EXPECT_NE(ir.find("arith.divf"), std::string::npos);
  EXPECT_NE(ir.find("value = -inf"), std::string::npos) << ir;
}

}  // namespace
}  // namespace tessera::frontend::test

namespace tessera::frontend::test {
namespace {

const char* kHeader2 = "import triton\nimport triton.language as tl\n\n";

TEST(Tutorials, Matmul) {
  std::string src = std::string(kHeader2) + R"(
@triton.autotune(configs=[triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 256, 'BLOCK_SIZE_K': 64, 'GROUP_SIZE_M': 8}, num_stages=3, num_warps=8)],
                 key=['M', 'N', 'K'])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    tl.assume(pid_m >= 0)
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)

@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)
)";
  auto prog = load(src);
  const JitFunction* fn = prog->find("matmul_kernel");
  ASSERT_TRUE(fn);
  ASSERT_TRUE(fn->autotune() != nullptr);
  EXPECT_EQ(fn->autotune()->configs.size(), 1u);
  EXPECT_EQ(fn->autotune()->configs[0].numWarps, 8);
  EXPECT_EQ(std::get<int64_t>(fn->autotune()->configs[0].kwargs.at("BLOCK_SIZE_N")), 256);
  EXPECT_EQ(fn->autotune()->key, (std::vector<std::string>{"M", "N", "K"}));
  std::string ir = compileIR(src, "matmul_kernel",
                             "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:16, i32:16, i32, i32:16, i32, "
                             "BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION=leaky_relu");
  EXPECT_NE(ir.find("tt.dot"), std::string::npos) << ir;
  EXPECT_NE(ir.find("input_precision = \"ieee\""), std::string::npos) << ir;
  EXPECT_NE(ir.find("tensor<64x64xf32>"), std::string::npos);
  EXPECT_NE(ir.find("arith.truncf"), std::string::npos);
  EXPECT_NE(ir.find("arith.divsi"), std::string::npos);  // pid // num_pid_in_group
  EXPECT_NE(ir.find("arith.remsi"), std::string::npos);
  EXPECT_NE(ir.find("arith.minsi"), std::string::npos) << ir;  // min() on runtime ints
  EXPECT_NE(ir.find("tt.assume"), std::string::npos);
  EXPECT_NE(ir.find("scf.for"), std::string::npos);
  EXPECT_NE(ir.find("leaky_relu"), std::string::npos);
  EXPECT_NE(ir.find("tt.expand_dims"), std::string::npos);
  EXPECT_NE(ir.find("tt.broadcast"), std::string::npos);
}

TEST(Tutorials, LayerNormForward) {
  std::string src = std::string(kHeader2) + R"(
@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)
)";
  std::string ir = compileIR(src, "_layer_norm_fwd_fused", "*fp16, *fp16, *fp16, *fp16, *fp32, *fp32, i32, i32, fp32, BLOCK_SIZE=1024");
  EXPECT_EQ(count(ir, "scf.for"), 3) << ir;
  EXPECT_NE(ir.find("math.sqrt"), std::string::npos);
  EXPECT_NE(ir.find("arith.sitofp"), std::string::npos);  // tl.sum(...) / N (int32 N)
  EXPECT_NE(ir.find("arith.extf"), std::string::npos);    // fp16 -> fp32
}

TEST(Tutorials, Dropout) {
  std::string src = std::string(kHeader2) + R"(
@triton.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)
)";
  std::string ir = compileIR(src, "_seeded_dropout", "*fp32, *fp32, i32, fp32, i32, BLOCK_SIZE=1024");
  EXPECT_NE(ir.find("math.mulhi"), std::string::npos) << ir;
  EXPECT_NE(ir.find("-1640531527"), std::string::npos) << ir;  // 0x9E3779B9 as i32 bits
  EXPECT_NE(ir.find("-845247145"), std::string::npos) << ir;   // 0xCD9E8D57
  EXPECT_NE(ir.find("4.6566125955216364e-10"), std::string::npos) << ir;  // 4.6566127342e-10 as fp32
}

TEST(Tutorials, AttentionInnerLoop) {
  std::string src = std::string(kHeader2) + R"(
@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr, start_m, qk_scale,
                    BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
                    offs_m: tl.constexpr, offs_n: tl.constexpr, N_CTX: tl.constexpr):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    K_block_ptr = tl.advance(K_block_ptr, (0, lo))
    V_block_ptr = tl.advance(V_block_ptr, (lo, 0))
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = tl.load(K_block_ptr)
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(V_block_ptr)
        p = p.to(tl.float16)
        acc = tl.dot(p, v, acc)
        m_i = m_ij
        V_block_ptr = tl.advance(V_block_ptr, (BLOCK_N, 0))
        K_block_ptr = tl.advance(K_block_ptr, (0, BLOCK_N))
    return acc, l_i, m_i

@triton.jit
def _attn_fwd(Q, K, V, sm_scale, Out, stride_qz, stride_qh, stride_qm, stride_qk, Z, H, N_CTX: tl.constexpr,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, STAGE: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    qvk_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    Q_block_ptr = tl.make_block_ptr(base=Q + qvk_offset, shape=(N_CTX, HEAD_DIM), strides=(stride_qm, stride_qk),
                                    offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    V_block_ptr = tl.make_block_ptr(base=V + qvk_offset, shape=(N_CTX, HEAD_DIM), strides=(stride_qm, stride_qk),
                                    offsets=(0, 0), block_shape=(BLOCK_N, HEAD_DIM), order=(1, 0))
    K_block_ptr = tl.make_block_ptr(base=K + qvk_offset, shape=(HEAD_DIM, N_CTX), strides=(stride_qk, stride_qm),
                                    offsets=(0, 0), block_shape=(HEAD_DIM, BLOCK_N), order=(0, 1))
    O_block_ptr = tl.make_block_ptr(base=Out + qvk_offset, shape=(N_CTX, HEAD_DIM), strides=(stride_qm, stride_qk),
                                    offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale
    qk_scale *= 1.44269504
    q = tl.load(Q_block_ptr)
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr, start_m, qk_scale,
                                        BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE, offs_m, offs_n, N_CTX)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(O_block_ptr, acc.to(Out.type.element_ty), boundary_check=(0, 1))
)";
  std::string ir = compileIR(src, "_attn_fwd", "*fp16, *fp16, *fp16, fp32, *fp16, i32, i32, i32, i32, i32, i32, "
                                               "N_CTX=128, BLOCK_M=64, BLOCK_N=32, HEAD_DIM=64, STAGE=3");
  EXPECT_NE(ir.find("tt.make_tensor_ptr"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tt.advance"), std::string::npos);
  EXPECT_NE(ir.find("math.exp2"), std::string::npos);
  EXPECT_NE(ir.find("!tt.ptr<tensor<64x64xf16>>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("boundary_check = [0, 1]"), std::string::npos) << ir;
}

// @triton.autotune configs as Triton users build them: comprehensions over
// lists, tuples and range() with `if` filters and tuple targets, a
// module-level name, and sums of these; each config keeps its own values.
TEST(Tutorials, AutotuneConfigListsBuiltInPython) {
  const char* src = R"(
import triton
import triton.language as tl

BASE = [triton.Config({'BLOCK': 64}, num_warps=1)]
WIDE = [triton.Config({'BLOCK': b, 'SPLIT': s}, num_warps=w, num_stages=st)
        for b in (128, 256) for s in range(1, 4) if s != 2 for w, st in [(4, 2), (8, 3)]]

@triton.autotune(configs=BASE + WIDE + [triton.Config({'BLOCK': 1024, 'SPLIT': 1}, num_warps=16)], key=['n'])
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr, SPLIT: tl.constexpr):
    pass

@triton.autotune(configs=[triton.Config({}, num_warps=w) for w in range(5) if w % 2 == 0 and w > 0], key=['n'])
@triton.jit
def warps_only(x_ptr, n, BLOCK: tl.constexpr):
    pass
)";
  auto prog = load(src);
  const JitFunction* fn = prog->find("k");
  ASSERT_TRUE(fn && fn->autotune());
  const auto& c = fn->autotune()->configs;
  ASSERT_EQ(c.size(), 1u + 2 * 2 * 2 + 1);
  EXPECT_EQ(std::get<int64_t>(c[0].kwargs.at("BLOCK")), 64);
  EXPECT_EQ(c[0].numWarps, 1);
  // Order: b outermost, then s in {1, 3}, then (w, st).
  EXPECT_EQ(std::get<int64_t>(c[1].kwargs.at("BLOCK")), 128);
  EXPECT_EQ(std::get<int64_t>(c[1].kwargs.at("SPLIT")), 1);
  EXPECT_EQ(c[1].numWarps, 4);
  EXPECT_EQ(c[1].numStages, 2);
  EXPECT_EQ(c[2].numWarps, 8);
  EXPECT_EQ(c[2].numStages, 3);
  EXPECT_EQ(std::get<int64_t>(c[3].kwargs.at("SPLIT")), 3);
  EXPECT_EQ(std::get<int64_t>(c[8].kwargs.at("BLOCK")), 256);
  EXPECT_EQ(std::get<int64_t>(c[8].kwargs.at("SPLIT")), 3);
  EXPECT_EQ(std::get<int64_t>(c[9].kwargs.at("BLOCK")), 1024);
  EXPECT_EQ(c[9].numWarps, 16);
  const JitFunction* w = prog->find("warps_only");
  ASSERT_TRUE(w && w->autotune());
  ASSERT_EQ(w->autotune()->configs.size(), 2u);
  EXPECT_EQ(w->autotune()->configs[0].numWarps, 2);
  EXPECT_EQ(w->autotune()->configs[1].numWarps, 4);
  EXPECT_TRUE(w->autotune()->configs[0].kwargs.empty());
}

// Configs computed by host code (a helper function, a list built up after
// its assignment) are evaluated; an empty list is Triton's one default config.
TEST(Tutorials, AutotuneConfigsComputedByHostCode) {
  const char* src = R"(
import triton
import triton.language as tl

def sizes():
    return [64, 128]

@triton.autotune(configs=[triton.Config({'BLOCK': b}) for b in sizes()], key=['n'])
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    pass
)";
  auto prog = load(src);
  const JitFunction* fn = prog->find("k");
  ASSERT_TRUE(fn && fn->autotune());
  ASSERT_EQ(fn->autotune()->configs.size(), 2u);
  EXPECT_EQ(std::get<int64_t>(fn->autotune()->configs[1].kwargs.at("BLOCK")), 128);
  for (const char* build : {"CONFIGS = []\nfor w in (2, 4):\n    CONFIGS.append(triton.Config({}, num_warps=w))\n",
                            "CONFIGS = [triton.Config({}, num_warps=2)]\nCONFIGS += [triton.Config({}, num_warps=4)]\n"}) {
    std::string text = std::string("import triton\nimport triton.language as tl\n") + build +
                       "@triton.autotune(configs=CONFIGS, key=['n'])\n@triton.jit\ndef k(x_ptr, n):\n    pass\n";
    auto p = load(text);
    const JitFunction* f = p->find("k");
    ASSERT_TRUE(f && f->autotune()) << text;
    ASSERT_EQ(f->autotune()->configs.size(), 2u) << text;
    EXPECT_EQ(f->autotune()->configs[1].numWarps, 4) << text;
  }
  auto empty = load("import triton\nimport triton.language as tl\n@triton.autotune(configs=[], key=['n'])\n"
                    "@triton.jit\ndef k(x_ptr, n):\n    pass\n");
  const JitFunction* e = empty->find("k");
  ASSERT_TRUE(e && e->autotune());
  ASSERT_EQ(e->autotune()->configs.size(), 1u);
  EXPECT_EQ(e->autotune()->configs[0].numWarps, 4);
}

// range() near the int64 limit stops instead of overflowing; filters that
// reject everything over a huge product run out of the step budget.
TEST(Tutorials, AutotuneConfigRangesAreBounded) {
  auto prog = load("import triton\nimport triton.language as tl\n"
                   "@triton.autotune(configs=[triton.Config({'X': v}) for v in range(9223372036854775800, "
                   "9223372036854775807, 5)], key=['n'])\n@triton.jit\ndef k(x_ptr, n, X: tl.constexpr):\n    pass\n");
  const JitFunction* fn = prog->find("k");
  ASSERT_TRUE(fn && fn->autotune());
  ASSERT_EQ(fn->autotune()->configs.size(), 2u);
  EXPECT_EQ(std::get<int64_t>(fn->autotune()->configs[1].kwargs.at("X")), 9223372036854775805);
  // The decorator is evaluated when the kernel needs it, and runs out of
  // its step budget there, located; loading the file is not affected.
  auto huge = load("import triton\nimport triton.language as tl\n"
                   "@triton.autotune(configs=[triton.Config({}) for a in range(4096) for b in range(4096) if a < 0], "
                   "key=['n'])\n@triton.jit\ndef k(x_ptr, n):\n    pass\n");
  const JitFunction* k = huge->find("k");
  ASSERT_TRUE(k && k->hasAutotune);
  for (int attempt = 0; attempt < 2; ++attempt) {  // the same error every time
    try {
      k->autotune();
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("k.py:3:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("ran past its budget"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tessera::frontend::test
