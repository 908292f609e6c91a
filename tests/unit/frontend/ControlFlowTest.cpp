//===- ControlFlowTest.cpp - Static/runtime if, loops, calls, returns -----===//

#include "TestUtil.h"

namespace tessera::frontend::test {
namespace {

const std::string H = "import triton\nimport triton.language as tl\n";

TEST(StaticIf, OnlyTakenBranchIsGenerated) {
  std::string src = H + R"(
@triton.jit
def k(P, MODE: tl.constexpr):
    if MODE == "relu":
        tl.store(P, 1.0)
    elif MODE == "bad":
        this_would_fail_if_generated()
    else:
        tl.store(P, 2.0)
)";
  std::string ir = compileIR(src, "k", "*fp32, MODE=relu");
  EXPECT_EQ(ir.find("scf.if"), std::string::npos) << ir;
  EXPECT_NE(ir.find("value = 1.0"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("value = 2.0"), std::string::npos) << ir;
  ir = compileIR(src, "k", "*fp32, MODE=other");
  EXPECT_NE(ir.find("value = 2.0"), std::string::npos) << ir;
}

TEST(StaticIf, NoneParameterAndIsNone) {
  std::string src = H + R"(
@triton.jit
def k(P, B):
    x = 1.0
    if B is not None:
        x = tl.load(B)
    tl.store(P, x)
)";
  std::string ir = compileIR(src, "k", "*fp32, B=None");
  EXPECT_EQ(ir.find("tt.load"), std::string::npos) << ir;
  ir = compileIR(src, "k", "*fp32, *fp32");
  EXPECT_NE(ir.find("tt.load"), std::string::npos) << ir;
}

TEST(RuntimeIf, MergesVariablesAssignedInBothBranches) {
  std::string src = H + R"(
@triton.jit
def k(P, c):
    a = 0.0
    b = tl.load(P)
    if c > 0:
        a = b + 1.0
        only_then = 5
    else:
        a = b - 1.0
    tl.store(P, a)
)";
  std::string ir = compileIR(src, "k", "*fp32, i32");
  EXPECT_NE(ir.find("= scf.if"), std::string::npos) << ir;
  EXPECT_EQ(count(ir, "scf.yield"), 2);
  EXPECT_NE(ir.find("scf.yield %"), std::string::npos) << ir;
}

TEST(RuntimeIf, VariableDefinedInOneBranchIsUndefinedAfter) {
  std::string src = H + "@triton.jit\ndef k(P, c):\n    if c > 0:\n        t = 1\n    tl.store(P, t)\n";
  std::string err = compileError(src, "k", "*fp32, i32");
  EXPECT_NE(err.find("k.py:7:17: error: name 't' is not defined"), std::string::npos) << err;
}

TEST(RuntimeIf, EarlyReturnRestructured) {
  std::string src = H + R"(
@triton.jit
def clampv(x, lo):
    if x < lo:
        return lo
    y = x * 2
    return y

@triton.jit
def k(P, n):
    pid = tl.program_id(0)
    if pid >= n:
        return
    tl.store(P + pid, clampv(pid, 3))
)";
  std::string ir = compileIR(src, "k", "*i32, i32");
  // Kernel: the store moved into the else branch; tt.return last.
  EXPECT_NE(ir.find("scf.if"), std::string::npos) << ir;
  // Callee: both returns merged into scf.if results.
  EXPECT_NE(ir.find("tt.func @clampv__i32__c3__"), std::string::npos) << ir;  // lo=3 is a constexpr
  EXPECT_NE(ir.find("= scf.if"), std::string::npos) << ir;
}

TEST(Loops, ForCarriesAccumulatorsAndKeepsAttrs) {
  std::string src = H + R"(
@triton.jit
def k(P, n):
    acc = tl.zeros([16], dtype=tl.float32)
    cnt = 0
    for i in tl.range(0, n, 2, num_stages=3, loop_unroll_factor=2, flatten=True, warp_specialize=True,
                      disallow_acc_multi_buffer=True, disable_licm=True):
        acc += tl.load(P + i + tl.arange(0, 16))
        cnt += 1
    tl.store(P + tl.arange(0, 16), acc / cnt)
)";
  std::string ir = compileIR(src, "k", "*fp32, i32");
  EXPECT_NE(ir.find("%5:2 = scf.for") != std::string::npos || ir.find(":2 = scf.for") != std::string::npos, false) << ir;
  for (const char* attr : {"num_stages = 3", "loop_unroll_factor = 2", "flatten = true", "warp_specialize = true",
                           "disallow_acc_multi_buffer = true", "disable_licm = true"})
    EXPECT_NE(ir.find(attr), std::string::npos) << attr << "\n" << ir;
}

TEST(Loops, NegativeConstexprStep) {
  std::string src = H + "@triton.jit\ndef k(P):\n    for i in range(10, 0, -3):\n        tl.store(P + i, 1.0)\n";
  std::string ir = compileIR(src, "k", "*fp32");
  // Bounds swapped: lb=0, ub=10, step=3; iv mapped back as ub - iv + lb.
  EXPECT_NE(ir.find("arith.subi"), std::string::npos) << ir;
  EXPECT_NE(ir.find("value = 3"), std::string::npos) << ir;
}

TEST(Loops, StaticRangeUnrollsWithConstexprIndex) {
  std::string src = H + R"(
@triton.jit
def k(P):
    t = (1.0, 2.0, 3.0)
    for i in tl.static_range(3):
        tl.store(P + i, t[i])
)";
  std::string ir = compileIR(src, "k", "*fp32");
  EXPECT_EQ(count(ir, "tt.store"), 3) << ir;
  EXPECT_EQ(ir.find("scf.for"), std::string::npos);
  EXPECT_NE(ir.find("value = 3.0"), std::string::npos);
}

TEST(Loops, WhileLoop) {
  std::string src = H + R"(
@triton.jit
def k(L, P):
    while tl.atomic_cas(L, 0, 1) == 1:
        pass
    x = 0
    i = 0
    while i < 10:
        x += i
        i += 1
    tl.store(P, x)
    tl.atomic_xchg(L, 0)
)";
  std::string ir = compileIR(src, "k", "*i32, *i32");
  EXPECT_EQ(count(ir, "scf.while"), 2) << ir;
  EXPECT_EQ(count(ir, "scf.condition"), 2);
  EXPECT_NE(ir.find("tt.atomic_cas"), std::string::npos);
  EXPECT_NE(ir.find("kind = \"xchg\""), std::string::npos);
}

TEST(Calls, SpecializedPerConstexprAndType) {
  std::string src = H + R"(
@triton.jit
def scale(x, F: tl.constexpr = 2):
    return x * F

@triton.jit
def k(P, Q):
    a = scale(tl.load(P))
    b = scale(tl.load(P), F=3)
    c = scale(tl.load(Q))
    d = scale(tl.load(P))
    tl.store(P, a + b + c.to(tl.float32) + d)
)";
  std::string ir = compileIR(src, "k", "*fp32, *i32");
  EXPECT_NE(ir.find("tt.func @scale__fp32__c2__"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tt.func @scale__fp32__c3__"), std::string::npos);
  EXPECT_NE(ir.find("tt.func @scale__i32__c2__"), std::string::npos);
  EXPECT_EQ(count(ir, "tt.func @scale"), 3);
  EXPECT_EQ(count(ir, "callee = \"scale__fp32__c2__\""), 2);
}

TEST(Calls, TupleReturnAndStarSplat) {
  std::string src = H + R"(
@triton.jit
def two(x):
    return x + 1, x * 2

@triton.jit
def add3(a, b, c):
    return a + b + c

@triton.jit
def k(P):
    t = two(tl.load(P))
    a, b = t
    tl.store(P, add3(*t, a) + b)
)";
  std::string ir = compileIR(src, "k", "*fp32");
  EXPECT_NE(ir.find("-> (f32, f32)"), std::string::npos) << ir;
  EXPECT_NE(ir.find(":2 = tt.call"), std::string::npos) << ir;
}

TEST(Calls, NoinlineScalarCallIsMarked) {
  std::string src = H + R"(
@triton.jit(noinline=True)
def f(x, y):
    return x + y

@triton.jit
def k(P, a):
    tl.store(P, f(a, 1))
)";
  std::string ir = compileIR(src, "k", "*i32, i32");
  EXPECT_NE(ir.find("noinline = true"), std::string::npos) << ir;
}

// noinline is a hint: called with a tensor, the function is generated
// inline (Triton makes a real call of it; the results are the same), so
// the call compiles and no function is marked noinline; with scalars it
// stays a marked, real call.
TEST(Calls, NoinlineWithATensorArgumentIsGeneratedInline) {
  std::string src = H + R"(
@triton.jit(noinline=True)
def f(x):
    return x * 2

@triton.jit
def k(P, a):
    offs = tl.arange(0, 16)
    tl.store(P + offs, f(offs) + f(a))
)";
  std::string ir = compileIR(src, "k", "*i32, i32");
  EXPECT_EQ(ir.find("noinline = true"), ir.rfind("noinline = true")) << "one marked function (f of a scalar)\n" << ir;
  EXPECT_NE(ir.find("noinline = true"), std::string::npos) << ir;
}

// `and`/`or` as Triton evaluates them: a constexpr that decides the result
// is the result wherever it stands, so `n > 0 and FLAG` with FLAG false is
// False and its branch (which uses a name bound only when FLAG) is never
// generated; `n > 0 or not FLAG` is True; other constexprs drop out.
TEST(ControlFlow, DecidingConstexprOperandsOfAndOr) {
  std::string src = H + R"(
@triton.jit
def k(Out, n, FLAG: tl.constexpr):
    if FLAG:
        extra = Out + 16
    if n > 0 and FLAG:
        tl.store(extra, 1.0)
    if n > 0 or not FLAG:
        tl.store(Out, 2.0)
    if n > 1 and True:
        tl.store(Out + 1, 3.0)
)";
  std::string off = compileIR(src, "k", "*fp32, i32, FLAG=False");
  EXPECT_EQ(off.find("value = 1.0"), std::string::npos) << off;
  EXPECT_NE(off.find("value = 2.0"), std::string::npos) << off;
  EXPECT_EQ(off.find("scf.if"), off.rfind("scf.if")) << "only `n > 1 and True` stays a runtime if\n" << off;
  std::string on = compileIR(src, "k", "*fp32, i32, FLAG=True");
  EXPECT_NE(on.find("value = 1.0"), std::string::npos) << on;
  EXPECT_NE(on.find("value = 2.0"), std::string::npos) << on;
}

TEST(Calls, ConstexprTerminatedRecursion) {
  std::string src = H + R"(
@triton.jit
def fact(N: tl.constexpr):
    if N <= 1:
        return 1
    else:
        return N * fact(N - 1)

@triton.jit
def k(P):
    tl.static_assert(fact(20) == 2432902008176640000)
    tl.store(P, fact(5))
)";
  std::string ir = compileIR(src, "k", "*i32");
  EXPECT_NE(ir.find("value = 120"), std::string::npos) << ir;
}

TEST(Constexpr, ExactBigIntArithmetic) {
  std::string src = H + R"(
BIG = 2**100
@triton.jit
def k(P):
    tl.static_assert(2**100 // 2**98 == 4)
    tl.static_assert(BIG % 7 == 2)
    tl.static_assert(-7 // 2 == -4)
    tl.static_assert(-7 % 2 == 1)
    tl.static_assert((1 << 70) >> 68 == 4)
    tl.static_assert(-(2**80) >> 79 == -2)
    tl.static_assert((-1) & 0xFF == 255)
    tl.static_assert(7 / 2 == 3.5)
    tl.static_assert(2 ** -1 == 0.5)
    tl.static_assert(triton.cdiv(1000, 128) == 8)
    tl.static_assert(triton.next_power_of_2(1000) == 1024)
    tl.static_assert(min(3, 1, 2) == 1 and max(3, 1, 2) == 3)
    tl.static_assert(len((1, 2, 3)) == 3)
    tl.static_assert(float("inf") > 1e308)
    tl.static_assert(int(3.9) == 3 and int(-3.9) == -3)
    tl.static_assert(isinstance(3, int) and not isinstance(3.0, int))
    tl.static_assert(f"x{2 + 1}y" == "x3y")
    tl.static_assert((1, 2) + (3,) == (1, 2, 3))
    tl.static_assert(tl.float16.primitive_bitwidth == 16)
    tl.static_assert(tl.int8.is_int_signed() and tl.uint8.is_int_unsigned())
    tl.store(P, 2**40 // 2**20)
)";
  std::string ir = compileIR(src, "k", "*i32");
  EXPECT_NE(ir.find("value = 1048576"), std::string::npos) << ir;
}

TEST(Constexpr, LargeConstexprBecomesI64OrU64Tensor) {
  std::string src = H + "@triton.jit\ndef k(P, Q):\n    tl.store(P, 2**40 + tl.load(P))\n    tl.store(Q + tl.arange(0, 2), 2**63 + 1 + tl.zeros([2], tl.uint64))\n";
  std::string ir = compileIR(src, "k", "*i64, *u64");
  EXPECT_NE(ir.find("value = 1099511627776"), std::string::npos) << ir;
  EXPECT_NE(ir.find("value = -9223372036854775807"), std::string::npos) << ir;  // u64 bit pattern
}

TEST(Globals, ConstexprAndPlainGlobals) {
  std::string src = H + R"(
BLOCK = tl.constexpr(64)
SCALE: tl.constexpr = 2.5
N_ITER = 3
DT = tl.float16
NAME = "relu"
@triton.jit
def k(P):
    x = tl.zeros([BLOCK], dtype=DT) + SCALE * N_ITER
    if NAME == "relu":
        x = tl.maximum(x, 0)
    tl.store(P + tl.arange(0, BLOCK), x)
)";
  std::string ir = compileIR(src, "k", "*fp16");
  EXPECT_NE(ir.find("tensor<64xf16>"), std::string::npos) << ir;
}

TEST(Imports, LibdeviceSpellings) {
  const char* imports[] = {
      "from triton.language.extra import libdevice\n",
      "from triton.language.extra.cuda import libdevice\n",
      "import triton.language.extra.libdevice as libdevice\n",
  };
  for (const char* imp : imports) {
    std::string src = H + imp + R"(
@triton.jit
def k(P, Q):
    x = tl.load(P + tl.arange(0, 16))
    y = libdevice.tanh(x) + libdevice.pow(x, 2.0) + libdevice.atan2(x, x)
    tl.store(P + tl.arange(0, 16), y)
    z = tl.load(Q + tl.arange(0, 16))
    tl.store(Q + tl.arange(0, 16), libdevice.erfinv(z) + libdevice.isnan(z).to(tl.float64))
)";
    std::string ir = compileIR(src, "k", "*fp32, *fp64");
    EXPECT_NE(ir.find("symbol = \"__nv_tanhf\""), std::string::npos) << imp << ir;
    EXPECT_NE(ir.find("symbol = \"__nv_powf\""), std::string::npos) << ir;
    EXPECT_NE(ir.find("symbol = \"__nv_atan2f\""), std::string::npos) << ir;
    EXPECT_NE(ir.find("symbol = \"__nv_erfinv\""), std::string::npos) << ir;
    EXPECT_NE(ir.find("symbol = \"__nv_isnand\""), std::string::npos) << ir;
  }
}

TEST(Imports, FromTritonImportJitAndLanguageCore) {
  std::string src = R"(
from triton import jit
from triton.language import core
import triton.language as tl
import torch

def host_helper(x):
    return torch.empty(x)

class NotAKernel:
    pass

@jit
def k(P):
    core.store(P, core.program_id(0).to(core.float32))

if __name__ == "__main__":
    host_helper(3)
)";
  std::string ir = compileIR(src, "k", "*fp32");
  EXPECT_NE(ir.find("tt.get_program_id"), std::string::npos) << ir;
}

TEST(Decorators, JitOptionsAndHeuristics) {
  std::string src = H + R"(
@triton.heuristics({'EVEN': lambda args: args['N'] % args['BLOCK'] == 0,
                    'NP2': lambda meta: triton.next_power_of_2(meta['N'])})
@triton.jit(noinline=False, do_not_specialize=['n'], debug=True)
def k(P, n, N, BLOCK: tl.constexpr, EVEN: tl.constexpr, NP2: tl.constexpr = 4, DT: tl.constexpr = tl.float16):
    pass
)";
  auto prog = load(src);
  const JitFunction* fn = prog->find("k");
  ASSERT_TRUE(fn);
  EXPECT_TRUE(fn->debug);
  EXPECT_EQ(fn->doNotSpecialize, (std::vector<std::string>{"n"}));
  ASSERT_EQ(fn->params.size(), 7u);
  EXPECT_TRUE(fn->params[3].isConstexpr);
  EXPECT_FALSE(fn->params[1].isConstexpr);
  EXPECT_TRUE(fn->params[5].hasDefault);
  EXPECT_EQ(std::get<int64_t>(*fn->params[5].defaultValue), 4);
  EXPECT_EQ(std::get<std::string>(*fn->params[6].defaultValue), "fp16");
  ASSERT_EQ(fn->heuristics().size(), 2u);
  std::map<std::string, ConstValue> args{{"N", int64_t{1000}}, {"BLOCK", int64_t{8}}};
  EXPECT_EQ(std::get<bool>(prog->evalHeuristic(fn->heuristics()[0], args)), true);
  args["BLOCK"] = int64_t{16};
  EXPECT_EQ(std::get<bool>(prog->evalHeuristic(fn->heuristics()[0], args)), false);
  EXPECT_EQ(std::get<int64_t>(prog->evalHeuristic(fn->heuristics()[1], args)), 1024);
}

TEST(Debug, AssertOnlyInDebugMode) {
  std::string src = H + "@triton.jit\ndef k(P):\n    x = tl.load(P)\n    assert x > 0, \"positive\"\n"
                        "    tl.device_assert(x < 10, 'small')\n";
  std::string ir = compileIR(src, "k", "*fp32");
  EXPECT_EQ(ir.find("tt.assert"), std::string::npos) << ir;
  CompileOptions opts;
  opts.debug = true;
  ir = compileIR(src, "k", "*fp32", opts);
  EXPECT_EQ(count(ir, "tt.assert"), 2) << ir;
  EXPECT_NE(ir.find("message = \"positive\""), std::string::npos) << ir;
}

TEST(Debug, DevicePrintPrefixNormalized) {
  std::string src = H + "@triton.jit\ndef k(P):\n    x = tl.load(P)\n    tl.device_print(\"x\", x)\n    print(\"val\", x)\n";
  std::string ir = compileIR(src, "k", "*i32");
  EXPECT_NE(ir.find("prefix = \" x: \""), std::string::npos) << ir;
  EXPECT_NE(ir.find("prefix = \" val: \""), std::string::npos) << ir;
  EXPECT_NE(ir.find("is_signed = [1]"), std::string::npos) << ir;
}

TEST(Locations, OpsCarrySourcePositions) {
  std::string src = H + "@triton.jit\ndef k(P):\n    x = tl.load(P)\n    tl.store(P, x + 1.0)\n";
  auto prog = load(src);
  auto r = prog->compile("k", parseSpecs("*fp32"), {});
  std::string ir = ir::print(*r.module, ir::PrintOptions{true});
  EXPECT_NE(ir.find("k.py\":5:9"), std::string::npos) << ir;
  EXPECT_NE(ir.find("k.py\":6:17"), std::string::npos) << ir;
}

}  // namespace
}  // namespace tessera::frontend::test
