//===- TestPtx.h - Hand-written PTX for the runtime tests -------*- C++ -*-===//
//
// One elementwise kernel, y[i] = x[i] * x[i] (or erff(x[i]) through the
// libdevice wrapper) for i < n, one thread per element, with the parameter
// list (out, in, n) the tests' Triton kernels compile to.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

#include "tessera/gpu/Backend.h"

namespace tessera::testptx {

inline std::string elementwisePtx(const gpu::Target& target, bool callErf, const std::string& name) {
  std::string erfDecl = callErf ? ".extern .func (.param .b32 retval) __tessera__nv_erff (.param .b32 x);\n" : "";
  std::string body = callErf ? R"(  {
  .param .b32 a0;
  .param .b32 r0;
  st.param.b32 [a0], %f1;
  call.uni (r0), __tessera__nv_erff, (a0);
  ld.param.b32 %f2, [r0];
  }
)"
                             : "  mul.f32 %f2, %f1, %f1;\n";
  return ".version " + target.ptxVersion() + "\n.target " + target.name() + "\n.address_size 64\n\n" + erfDecl +
         ".visible .entry " + name + R"((.param .u64 out, .param .u64 in, .param .u32 n)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  .reg .f32 %f<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
)" + body + R"(  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f2;
DONE:
  ret;
}
)";
}

/// The PtxKernel the backend would return for it.
inline gpu::PtxKernel elementwiseKernel(const gpu::Target& target, bool callErf, const std::string& name,
                                        int numWarps = 4) {
  gpu::PtxKernel k;
  k.name = name;
  k.ptx = elementwisePtx(target, callErf, name);
  k.ttgir = "// ttgir of " + name + " for " + target.name() + ", " + std::to_string(numWarps) + " warps\n";
  k.params = {{ir::Type::pointer(ir::Type::f32()), 8}, {ir::Type::pointer(ir::Type::f32()), 8}, {ir::Type::i32(), 4}};
  k.numWarps = numWarps;
  if (callErf) k.externs = {{"__nv_erff", gpu::libdeviceWrapperName("__nv_erff"), {ir::Type::f32()}, ir::Type::f32()}};
  return k;
}

}  // namespace tessera::testptx
