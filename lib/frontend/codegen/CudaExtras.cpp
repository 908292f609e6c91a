//===- CudaExtras.cpp - tl.extra.cuda's functions ---------------------------===//
//
// `triton.language.extra.cuda` (also its `gdc` and `utils` modules) beyond
// libdevice: programmatic dependent launch (gdc_wait,
// gdc_launch_dependents: tt.gdc_* ops, griddepcontrol on sm_90+), the
// launch's warps, threads and CTAs per cluster as constexprs (they are part
// of the specialization, CompileOptions), and two special registers
// (smid, globaltimer: ops the interpreter answers too). Triton writes the
// register reads and the gdc functions as inline PTX, which the interpreter
// could not run; ops keep them portable and keep memory accesses from
// moving across a wait.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace tessera::frontend {

void registerCudaExtras(std::vector<Builtin>& table) {
  using ir::OpCode;
  table.push_back(Builtin{"cuda.gdc_wait", {}, [](CodeGen& cg, BoundArgs&) {
                            cg.builder().create(OpCode::GridDepWait, {}, {});
                            return Val::none();
                          }});
  table.push_back(Builtin{"cuda.gdc_launch_dependents", {}, [](CodeGen& cg, BoundArgs&) {
                            cg.builder().create(OpCode::GridDepLaunchDependents, {}, {});
                            return Val::none();
                          }});
  table.push_back(Builtin{"cuda.num_warps", {}, [](CodeGen& cg, BoundArgs&) {
                            return Val::integer(BigInt(cg.options().numWarps));
                          }});
  table.push_back(Builtin{"cuda.num_ctas", {}, [](CodeGen& cg, BoundArgs&) {
                            return Val::integer(BigInt(int64_t{cg.options().numCtas}));
                          }});
  table.push_back(Builtin{"cuda.num_threads", {}, [](CodeGen& cg, BoundArgs&) {
                            return Val::integer(BigInt(int64_t{cg.options().numWarps} * 32));
                          }});
  // tl.target_info.X() (Triton's constexpr_functions): the target is CUDA,
  // of the capability of the device the program is loaded for.
  table.push_back(Builtin{"target_info.is_cuda", {}, [](CodeGen&, BoundArgs&) { return Val::boolean(true); }});
  for (const char* hip : {"target_info.is_hip", "target_info.is_hip_cdna3", "target_info.is_hip_cdna4"})
    table.push_back(Builtin{hip, {}, [](CodeGen&, BoundArgs&) { return Val::boolean(false); }});
  table.push_back(Builtin{"target_info.cuda_capability_geq",
                          {BuiltinParam{"major", std::nullopt}, BuiltinParam{"minor", Val::integer(BigInt(0))}},
                          [](CodeGen& cg, BoundArgs& a) {
                            int64_t major = cg.constInt(a[0], "cuda_capability_geq major");
                            int64_t minor = cg.constInt(a[1], "cuda_capability_geq minor");
                            DeviceQueries d = cg.frame().program->device();
                            return Val::boolean(d.major > major || (d.major == major && d.minor >= minor));
                          }});
  table.push_back(Builtin{"cuda.smid", {}, [](CodeGen& cg, BoundArgs&) {
                            return cg.make(OpCode::SmId, ScalarKind::I32, {}, {});
                          }});
  table.push_back(Builtin{"cuda.globaltimer", {}, [](CodeGen& cg, BoundArgs&) {
                            return cg.make(OpCode::GlobalTimer, ScalarKind::I64, {}, {});
                          }});
}

}  // namespace tessera::frontend
