//===- LibdeviceTest.cpp - libdevice overload dispatch ---------------------===//
//
// libdevice calls dispatch like Triton's extern_elementwise: the exact tuple
// of argument dtypes first (no promotion: pow(fp32, int32) is __nv_powif,
// also for tensors), then the arguments promoted to a common type, then an
// error listing the accepted signatures. Result dtypes are Triton's.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

namespace tessera::frontend::test {
namespace {

const std::string H = "import triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n";

/// A kernel applying `expr` (over loaded tensors a, b, c) and storing it.
std::string kernelWith(const std::string& expr) {
  return H + R"(
@triton.jit
def k(A, B, C, O):
    offs = tl.arange(0, 16)
    a = tl.load(A + offs)
    b = tl.load(B + offs)
    c = tl.load(C + offs)
    tl.store(O + offs, )" + expr + R"()
)";
}

std::string ir(const std::string& expr, const std::string& sig) { return compileIR(kernelWith(expr), "k", sig); }

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(Libdevice, ExactTupleBeforePromotionForTensors) {
  EXPECT_TRUE(has(ir("libdevice.pow(a, b)", "*fp32, *i32, *i32, *fp32"), "\"__nv_powif\""));
  EXPECT_TRUE(has(ir("libdevice.pow(a, b)", "*fp64, *i32, *i32, *fp64"), "\"__nv_powi\""));
  EXPECT_TRUE(has(ir("libdevice.pow(a, b)", "*fp32, *fp32, *i32, *fp32"), "\"__nv_powf\""));
  EXPECT_TRUE(has(ir("libdevice.ldexp(a, b)", "*fp32, *i32, *i32, *fp32"), "\"__nv_ldexpf\""));
  EXPECT_TRUE(has(ir("libdevice.scalbn(a, b)", "*fp64, *i32, *i32, *fp64"), "\"__nv_scalbn\""));
  EXPECT_TRUE(has(ir("libdevice.jn(b, a)", "*fp32, *i32, *i32, *fp32"), "\"__nv_jnf\""));
  EXPECT_TRUE(has(ir("libdevice.yn(b, a)", "*fp64, *i32, *i32, *fp64"), "\"__nv_yn\""));
  EXPECT_TRUE(has(ir("libdevice.sad(a, b, c)", "*i32, *i32, *u32, *i32"), "\"__nv_sad\""));
  EXPECT_TRUE(has(ir("libdevice.sad(a, b, c)", "*u32, *u32, *u32, *u32"), "\"__nv_usad\""));
  EXPECT_TRUE(has(ir("libdevice.mulhi(a, b)", "*u64, *u64, *u64, *u64"), "\"__nv_umul64hi\""));
  EXPECT_TRUE(has(ir("libdevice.clz(a)", "*i64, *i64, *i64, *i32"), "\"__nv_clzll\""));
  // A scalar literal exponent is an int32: powif too.
  EXPECT_TRUE(has(ir("libdevice.pow(a, 3)", "*fp32, *i32, *i32, *fp32"), "\"__nv_powif\""));
  EXPECT_TRUE(has(ir("libdevice.pow(a, 3.0)", "*fp32, *i32, *i32, *fp32"), "\"__nv_powf\""));
}

TEST(Libdevice, PromotionWhenNoTupleMatches) {
  // (fp32, fp64) -> fp64; (int32, uint32) -> uint32; (fp32, int32) for atan2 -> fp32.
  std::string t = ir("libdevice.atan2(a, b)", "*fp32, *fp64, *i32, *fp64");
  EXPECT_TRUE(has(t, "\"__nv_atan2\"")) << t;
  EXPECT_TRUE(has(ir("libdevice.mulhi(a, b)", "*i32, *u32, *i32, *u32"), "\"__nv_umulhi\""));
  EXPECT_TRUE(has(ir("libdevice.atan2(a, b)", "*fp32, *i32, *i32, *fp32"), "\"__nv_atan2f\""));
  EXPECT_TRUE(has(ir("libdevice.hypot(a, 2)", "*fp64, *i32, *i32, *fp64"), "\"__nv_hypot\""));
}

TEST(Libdevice, ResultDtypesFollowTriton) {
  // isnan & co. return int1 (the int32 extern result converted), signbit int32.
  std::string t = ir("libdevice.isnan(a).to(tl.int32) + libdevice.signbit(a)", "*fp32, *i32, *i32, *i32");
  EXPECT_TRUE(has(t, "symbol = \"__nv_isnanf\"} : tensor<16xi32>")) << t;
  EXPECT_TRUE(has(t, "{predicate = \"ne\"} : tensor<16xi1>")) << t;
  EXPECT_TRUE(has(t, "symbol = \"__nv_signbitf\"} : tensor<16xi32>")) << t;
  EXPECT_EQ(compileError(kernelWith("libdevice.isinf(a) + 1.5"), "k", "*fp64, *i32, *i32, *fp64"), "");
  // float2uint_rn returns int32 in Triton; adding -1 stays signed.
  EXPECT_EQ(compileError(kernelWith("libdevice.float2uint_rn(a) - 1"), "k", "*fp32, *i32, *i32, *i32"), "");
}

TEST(Libdevice, NoMatchingOverloadListsTheSignatures) {
  std::string e = compileError(kernelWith("libdevice.sad(a, b, c)"), "k", "*i32, *i32, *i32, *i32");
  EXPECT_TRUE(has(e, "libdevice.sad has no overload for argument types (int32, int32, int32)")) << e;
  EXPECT_TRUE(has(e, "(int32, int32, uint32), (uint32, uint32, uint32)")) << e;
  e = compileError(kernelWith("libdevice.exp(a)"), "k", "*fp16, *i32, *i32, *fp16");
  EXPECT_TRUE(has(e, "no overload for argument types (fp16)")) << e;
  e = compileError(kernelWith("libdevice.fast_expf(a)"), "k", "*fp64, *i32, *i32, *fp64");
  EXPECT_TRUE(has(e, "accepted: (fp32)")) << e;
  e = compileError(kernelWith("libdevice.norm4d(a, a, a)"), "k", "*fp32, *i32, *i32, *fp32");
  EXPECT_TRUE(has(e, "libdevice.norm4d() takes 4 arguments but 3 were given")) << e;
  e = compileError(kernelWith("libdevice.fmax(a, a)"), "k", "*fp32, *i32, *i32, *fp32");
  EXPECT_TRUE(has(e, "libdevice.fmax is not a libdevice function")) << e;
}

TEST(Libdevice, BlockArgumentsBroadcastTogether) {
  std::string src = H + R"(
@triton.jit
def k(A, K, O):
    x = tl.load(A + tl.arange(0, 8)[:, None] * 4 + tl.arange(0, 4)[None, :])
    k = tl.load(K + tl.arange(0, 4))
    tl.store(O + tl.arange(0, 8)[:, None] * 4 + tl.arange(0, 4)[None, :], libdevice.ldexp(x, k[None, :]))
)";
  std::string t = compileIR(src, "k", "*fp32, *i32, *fp32");
  EXPECT_TRUE(has(t, "symbol = \"__nv_ldexpf\"} : tensor<8x4xf32>")) << t;
}

}  // namespace
}  // namespace tessera::frontend::test
