//===- TritonFileTest.cpp - A realistic Triton file end to end --*- C++ -*-===//
//
// A kernel module the way people write them: torch/triton imports, an
// autotuned @triton.jit kernel, a helper kernel with constexpr parameters,
// a host-side wrapper class, and an `if __name__ == "__main__":` block.
// Checks the overall structure and a few nodes in detail.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "ParserTestUtil.h"

namespace tessera::py::test {
namespace {

const char* kSource = R"PY("""Fused softmax and a matmul, with host code."""
import math
from typing import Optional

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({'BLOCK_M': 128, 'BLOCK_N': 64}, num_warps=4, num_stages=3),
        triton.Config({'BLOCK_M': 64, 'BLOCK_N': 64}, num_warps=2),
    ],
    key=['M', 'N', 'K'],
)
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak,  # strides of A
                  stride_bk, stride_bn,
                  stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr = 32,
                  ACTIVATION: tl.constexpr = ""):
    pid = tl.program_id(axis=0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = pid // num_pid_n, pid % num_pid_n
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        acc += tl.dot(a, a.T)
        a_ptrs += BLOCK_K * stride_ak
    if ACTIVATION == "leaky_relu":
        acc = tl.where(acc >= 0, acc, 0.01 * acc)
    elif ACTIVATION:
        tl.static_assert(False, f"unknown activation {ACTIVATION!r}")
    c = acc.to(tl.float16)
    tl.store(c_ptr + offs_am[:, None] * stride_cm, c, mask=(offs_am[:, None] < M))


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float('inf'))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * n_cols + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


class Softmax:
    """Host-side wrapper."""

    def __init__(self, block: Optional[int] = None) -> None:
        self.block = block

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        n_rows, n_cols = x.shape
        out = torch.empty_like(x)
        block = self.block or triton.next_power_of_2(n_cols)
        softmax_kernel[(n_rows,)](out, x, n_cols, BLOCK=block)
        return out


def matmul(a, b, activation=""):
    assert a.shape[1] == b.shape[0], "incompatible dimensions"
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META['BLOCK_M']) * triton.cdiv(N, META['BLOCK_N']), )
    matmul_kernel[grid](a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride(), ACTIVATION=activation)
    return c


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(1823, 781, device='cuda')
    y = Softmax()(x)
    print(f"max error {(y - torch.softmax(x, dim=1)).abs().max().item():.3e}")
    for size in [2 ** i for i in range(12, 28, 1)]:
        print(size, math.log2(size))
)PY";

TEST(PyTritonFile, Structure) {
  auto m = parseModule(source(kSource));
  // docstring, 5 imports, 2 kernels, class, matmul, if-main
  ASSERT_EQ(m->body.size(), 11u);
  EXPECT_EQ(dump(*m->body[0]).substr(0, 45), "Expr(value=Constant(value='Fused softmax and ");
  EXPECT_EQ(dump(*m->body[5]),
            "Import(names=[alias(name='triton.language', asname='tl')])");

  auto* mm = m->body[6]->as<FunctionDef>();
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->name, "matmul_kernel");
  ASSERT_EQ(mm->decorators.size(), 2u);
  EXPECT_EQ(dump(*mm->decorators[1]),
            "Attribute(value=Name(id='triton', ctx=Load()), attr='jit', ctx=Load())");
  auto* autotune = mm->decorators[0]->as<Call>();
  ASSERT_NE(autotune, nullptr);
  ASSERT_EQ(autotune->keywords.size(), 2u);
  EXPECT_EQ(*autotune->keywords[0].arg, "configs");
  EXPECT_EQ(autotune->keywords[0].value->as<List>()->elts.size(), 2u);
  EXPECT_EQ(mm->line, 18);
  EXPECT_EQ(mm->args.args.size(), 16u);
  EXPECT_EQ(mm->args.defaults.size(), 2u);
  EXPECT_EQ(dump(*mm->args.args[12].annotation),
            "Attribute(value=Name(id='tl', ctx=Load()), attr='constexpr', ctx=Load())");
  EXPECT_EQ(mm->body.size(), 11u);
  EXPECT_EQ(dump(*mm->body[2]),
            "Assign(targets=[Tuple(elts=[Name(id='pid_m', ctx=Store()), Name(id='pid_n', ctx=Store())], "
            "ctx=Store())], value=Tuple(elts=[BinOp(left=Name(id='pid', ctx=Load()), op=FloorDiv(), "
            "right=Name(id='num_pid_n', ctx=Load())), BinOp(left=Name(id='pid', ctx=Load()), op=Mod(), "
            "right=Name(id='num_pid_n', ctx=Load()))], ctx=Load()))");
  EXPECT_EQ(dump(*mm->body[4]),
            "Assign(targets=[Name(id='offs_k', ctx=Store())], value=Call(func=Attribute(value=Name(id='tl', "
            "ctx=Load()), attr='arange', ctx=Load()), args=[Constant(value=0), Name(id='BLOCK_K', ctx=Load())], "
            "keywords=[]))");
  auto* loop = mm->body[7]->as<For>();
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->body.size(), 3u);
  EXPECT_EQ(loop->body[1]->kind, StmtKind::AugAssign);
  auto* branch = mm->body[8]->as<If>();
  ASSERT_NE(branch, nullptr);
  ASSERT_EQ(branch->orelse.size(), 1u);
  EXPECT_EQ(branch->orelse[0]->kind, StmtKind::If);  // elif
  EXPECT_TRUE(mm->sourceText.rfind("def matmul_kernel(a_ptr", 0) == 0);
  EXPECT_TRUE(mm->sourceText.ends_with("c, mask=(offs_am[:, None] < M))")) << mm->sourceText;

  auto* sm = m->body[7]->as<FunctionDef>();
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(dump(*sm->body[2]->as<Assign>()->value->as<Call>()->keywords[1].value),
            "UnaryOp(op=USub(), operand=Call(func=Name(id='float', ctx=Load()), args=[Constant(value='inf')], "
            "keywords=[]))");

  auto* cls = m->body[8]->as<ClassDef>();
  ASSERT_NE(cls, nullptr);
  EXPECT_EQ(cls->name, "Softmax");
  ASSERT_EQ(cls->body.size(), 3u);
  auto* call = cls->body[2]->as<FunctionDef>();
  EXPECT_EQ(call->name, "__call__");
  EXPECT_EQ(dump(*call->body[3]),
            "Expr(value=Call(func=Subscript(value=Name(id='softmax_kernel', ctx=Load()), slice=Tuple(elts=["
            "Name(id='n_rows', ctx=Load())], ctx=Load()), ctx=Load()), args=[Name(id='out', ctx=Load()), "
            "Name(id='x', ctx=Load()), Name(id='n_cols', ctx=Load())], keywords=[keyword(arg='BLOCK', "
            "value=Name(id='block', ctx=Load()))]))");

  auto* mainIf = m->body[10]->as<If>();
  ASSERT_NE(mainIf, nullptr);
  EXPECT_EQ(dump(*mainIf->test),
            "Compare(left=Name(id='__name__', ctx=Load()), ops=[Eq()], comparators=[Constant(value='__main__')])");
  EXPECT_EQ(mainIf->body.size(), 5u);
  EXPECT_EQ(mainIf->body[3]->as<ExprStmt>()->value->as<Call>()->args[0]->kind, ExprKind::JoinedStr);
}

}  // namespace
}  // namespace tessera::py::test
