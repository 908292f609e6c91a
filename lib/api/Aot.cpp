//===- Aot.cpp - C++ launchers with embedded cubins -----------------------===//
//
// See tessera/aot.h. The generated source depends on cuda.h and libcuda only.
// Its launcher checks what the specialization assumed (16-byte aligned
// pointers, integers divisible by 16 where the signature said ":16"), loads
// the module for the current context on first use (the cubin whose
// architecture matches the device: the exact major.minor, else a cubin of
// the same major and a lower minor without the arch-specific "a"), raises
// the dynamic shared-memory limit when the kernel needs more than 48 KiB,
// packs the parameters as the PTX entry declares them and launches with
// num_warps * 32 threads. A binary that takes TMA descriptors the launch
// encodes (gpu::HostTensorMap; the sm_90a one of a descriptor matmul, not
// its sm_80 one) gets them encoded from the launcher's arguments with
// cuTensorMapEncodeTiled, as lib/api/TensorMaps.cpp does for the JIT.
//
//===----------------------------------------------------------------------===//

#include "tessera/aot.h"

#include <cctype>
#include <cstdio>
#include <sstream>

#include "Internal.h"

namespace tessera::aot {

namespace {

bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

/// The C++ type of a scalar parameter of the PTX entry.
std::string cType(ir::Type t) {
  if (t.isPointer()) return "CUdeviceptr";
  switch (t.kind()) {
    case ir::TypeKind::F32: return "float";
    case ir::TypeKind::F64: return "double";
    case ir::TypeKind::F16:
    case ir::TypeKind::BF16: return "uint16_t";  // the bits
    default: break;
  }
  if (t.isInteger(1)) return "bool";
  switch (t.bitWidth()) {
    case 8: return "int8_t";
    case 16: return "int16_t";
    case 32: return "int32_t";
    default: return "int64_t";
  }
}

/// Whether `s` is, or holds, a host tensor descriptor.
bool holdsDescriptor(const frontend::ParamSpec& s) {
  if (s.kind == frontend::ParamSpec::Kind::TensorDesc) return true;
  for (const auto& e : s.elems)
    if (holdsDescriptor(e)) return true;
  return false;
}

struct Param {
  std::string name;
  std::string type;  ///< C++ type
  bool divisibleBy16 = false;
  bool pointer = false;
};

/// The C++ expression of a host tensor map's scalar over the launcher's
/// parameters (gpu::HostScalar: sign- or zero-extended, times its scale).
std::string scalarExpr(const gpu::HostScalar& s, const std::vector<Param>& params) {
  if (s.param < 0) return "int64_t(" + std::to_string(s.constant) + "LL)";
  const Param& p = params.at(static_cast<size_t>(s.param));
  std::string v = p.pointer ? "int64_t(" + p.name + ")"
                  : s.zeroExtend ? "int64_t(std::make_unsigned_t<" + p.type + ">(" + p.name + "))"
                                 : "int64_t(" + p.name + ")";
  return s.scale == 1 ? v : "(" + v + " * " + std::to_string(s.scale) + "LL)";
}

/// Statements that encode binary `b`'s tensor maps into tessera_map<k>
/// (returning the driver's error), for the launch to pass after the
/// arguments.
std::string encodeMaps(const gpu::PtxKernel& b, const std::vector<Param>& params) {
  std::ostringstream c;
  for (size_t k = 0; k < b.tensorMaps.size(); ++k) {
    const gpu::HostTensorMap& m = b.tensorMaps[k];
    size_t rank = m.box.size();
    std::string dims, strides, box;
    for (size_t ord = 0; ord < rank; ++ord) {  // innermost first
      size_t d = rank - 1 - ord;
      dims += (ord ? ", " : "") + std::string("cuuint64_t(") + scalarExpr(m.shape[d], params) + ")";
      box += (ord ? ", " : "") + std::to_string(m.box[d]) + "u";
      if (ord + 1 < rank)
        strides += (ord ? ", " : "") + std::string("cuuint64_t(") + scalarExpr(m.strides[d - 1], params) + " * " +
                   std::to_string(m.elementBytes) + ")";
    }
    c << "    {\n      const cuuint64_t dims[] = {" << dims << "};\n      const cuuint64_t strides[] = {"
      << (strides.empty() ? "0" : strides) << "};\n      const cuuint32_t box[] = {" << box << "};\n"
      << "      CUresult r = encode(&tessera_map" << k << ", " << m.dataType << ", " << rank << ", "
      << scalarExpr(m.base, params) << ", dims, strides, box, " << m.swizzle << ", " << (m.nanFill ? 1 : 0)
      << ");\n      if (r != CUDA_SUCCESS) return r;\n    }\n";
  }
  return c.str();
}

}  // namespace

Files generate(const std::string& name, const std::vector<CompiledKernel>& perTarget) {
  if (!isIdentifier(name)) throw Error("AOT: '" + name + "' is not a C++ identifier (use -o with a plain name)");
  if (perTarget.empty()) throw Error("AOT: no compiled specialization given");
  const detail::CompiledKernelImpl& first = *perTarget.front().impl();
  for (size_t p = 0; p < first.specs.size(); ++p)
    if (holdsDescriptor(first.specs[p]))
      throw Error("AOT: parameter '" + first.paramNames[p] + "' of '" + name +
                  "' is (or holds) a tensor descriptor; ahead-of-time launchers do not take those yet");

  // The launcher's parameters: the PTX entry's, named after the kernel's.
  std::vector<Param> params;
  std::shared_ptr<detail::GpuBinary> firstBinary = detail::gpuBinary(first, first.target, true);
  for (size_t i = 0; i < firstBinary->ptx.params.size(); ++i) {
    if (firstBinary->ptx.params[i].globalScratch || firstBinary->ptx.params[i].tensorMap >= 0) break;  // refused below
    int p = first.argToParam[i];
    // A tuple parameter's elements are parameters of their own: `ptrs_1_0`
    // is element 0 of element 1 of `ptrs`.
    const frontend::ParamSpec* leaf = &first.specs[p];
    Param param;
    param.name = first.paramNames[p];
    if (i < first.argPath.size())
      for (int e : first.argPath[i]) {
        leaf = &leaf->elems[static_cast<size_t>(e)];
        param.name += "_" + std::to_string(e);
      }
    const frontend::ParamSpec& spec = *leaf;
    param.type = cType(firstBinary->ptx.params[i].type);
    param.pointer = firstBinary->ptx.params[i].type.isPointer();
    param.divisibleBy16 = spec.divisibleBy16;
    params.push_back(param);
  }
  std::string signatureNote;
  for (size_t p = 0; p < first.specs.size(); ++p)
    signatureNote += (p ? ", " : "") + first.paramNames[p] + " " + detail::specText(first.specs[p]);

  std::ostringstream table, blobs, launches;
  std::string checks;  // the traps the compiler added, per binary (PtxKernel::runtimeChecks)
  int index = 0;
  for (const CompiledKernel& ck : perTarget) {
    const detail::CompiledKernelImpl& k = *ck.impl();
    if (k.specs.size() != first.specs.size() || k.specializationKey != first.specializationKey)
      throw Error("AOT: the specializations of '" + name + "' differ; give one signature for every architecture");
    std::shared_ptr<detail::GpuBinary> b = detail::gpuBinary(k, k.target, true);
    if (b->ptx.globalScratchBytes > 0)
      throw Error("AOT: kernel '" + name + "' for " + k.target.name() +
                  " makes TMA descriptors on the device (tl.make_tensor_descriptor), which need per-launch global "
                  "scratch; ahead-of-time launchers do not allocate it yet");
    for (const std::string& check : b->ptx.runtimeChecks) checks += "/// - " + k.target.name() + ": " + check + "\n";
    if (!b->ptx.tensorMaps.empty()) {  // this binary's launch: its arguments, then its tensor maps
      launches << "  case " << index << ": {\n";
      for (size_t m = 0; m < b->ptx.tensorMaps.size(); ++m)
        launches << "    alignas(64) CUtensorMap tessera_map" << m << ";\n";
      launches << encodeMaps(b->ptx, params) << "    void* tessera_params[] = {";
      for (size_t i = 0; i < params.size(); ++i) launches << "&" << params[i].name << ", ";
      for (size_t m = 0; m < b->ptx.tensorMaps.size(); ++m)
        launches << (m ? ", " : "") << "&tessera_map" << m;
      launches << "};\n    return launch(tessera_loaded, tessera_stream, tessera_grid_x, tessera_grid_y, "
                  "tessera_grid_z, tessera_params, tessera_attributes);\n  }\n";
    }
    const std::vector<char>& cubin = b->cubin->bytes;
    blobs << "alignas(8) const unsigned char kCubin" << index << "[" << cubin.size() << "] = {";
    for (size_t i = 0; i < cubin.size(); ++i) {
      if (i % 20 == 0) blobs << "\n   ";
      blobs << " " << static_cast<unsigned>(static_cast<unsigned char>(cubin[i])) << ",";
    }
    blobs << "\n};\n";
    std::string arch = k.target.name();  // sm_90a
    int digits = 0;
    std::sscanf(arch.c_str(), "sm_%d", &digits);  // sm_90a -> 90, sm_100 -> 100
    int major = digits / 10, minor = digits % 10;
    bool archSpecific = !arch.empty() && arch.back() == 'a';
    table << "    {" << index << ", " << major << ", " << minor << ", " << (archSpecific ? "true" : "false") << ", kCubin" << index
          << ", " << b->ptx.sharedBytes << ", " << b->ptx.numWarps * 32 << ", \"" << arch << "\"},\n";
    ++index;
  }

  std::string args;
  for (const Param& p : params) args += ", " + p.type + " " + p.name;
  if (!checks.empty())
    checks = "/// The kernel stops with a trap (the next synchronizing call returns CUDA_ERROR_LAUNCH_FAILED) when a\n"
             "/// check Tessera added fails:\n" + checks;
  std::ostringstream h;
  h << "// Generated by Tessera (tessera compile --emit cpp). Do not edit.\n"
    << "// " << first.name << "(" << signatureNote << "), num_warps " << first.options.numWarps << "\n"
    << "#pragma once\n\n#include <cuda.h>\n\n#include <cstdint>\n\nnamespace tessera_aot {\n\n"
    << "/// Launches " << first.name << " on `stream` over the grid, loading its module into the current\n"
    << "/// context on first use. CUDA_ERROR_INVALID_VALUE when an argument breaks the specialization\n"
    << "/// (a pointer or integer compiled as divisible by 16 that is not); CUDA_ERROR_NO_BINARY_FOR_GPU\n"
    << "/// when no embedded cubin fits the device.\n"
    << checks << "CUresult " << name << "(CUstream tessera_stream, unsigned tessera_grid_x, unsigned tessera_grid_y, unsigned tessera_grid_z" << args
    << ");\n\n"
    << "#ifndef TESSERA_AOT_LAUNCH_ATTRIBUTES\n#define TESSERA_AOT_LAUNCH_ATTRIBUTES\n"
    << "/// Triton's launch options that are launch attributes (LaunchOptions in Tessera's C++ API). They\n"
    << "/// take effect on sm_90+ (num_ctas also needs grid x to be a multiple of it) and are ignored before.\n"
    << "struct LaunchAttributes {\n"
    << "  bool launch_pdl = false;               ///< programmatic dependent launch\n"
    << "  bool launch_cooperative_grid = false;  ///< every program resident at once\n"
    << "  unsigned num_ctas = 1;                 ///< thread-block clusters of 1, 2, 4 or 8 programs along x\n"
    << "};\n#endif\n\n"
    << "/// " << name << " with launch attributes; CUDA_ERROR_INVALID_VALUE for a num_ctas other than 1, 2, 4, 8.\n"
    << "CUresult " << name << "_ex(const LaunchAttributes& tessera_attributes, CUstream tessera_stream, "
    << "unsigned tessera_grid_x, unsigned tessera_grid_y, unsigned tessera_grid_z" << args << ");\n\n"
    << "/// Unloads the module of the current context (the driver also does at exit).\nCUresult " << name
    << "_unload();\n\n}  // namespace tessera_aot\n";

  std::ostringstream c;
  c << "// Generated by Tessera (tessera compile --emit cpp). Do not edit.\n#include \"" << name << ".h\"\n\n"
    << "#include <cstring>\n#include <mutex>\n#include <type_traits>\n\nnamespace tessera_aot {\n\nnamespace {\n\n"
    << blobs.str() << "\nstruct Binary {\n  int index, major, minor;\n  bool archSpecific;\n  const unsigned char* cubin;\n"
    << "  unsigned sharedBytes, threads;\n  const char* arch;\n};\n\nconst Binary kBinaries[] = {\n" << table.str()
    << "};\n\n/// The module loaded in one context.\nstruct Loaded {\n  CUcontext context;\n  CUmodule module;\n"
    << "  CUfunction function;\n  const Binary* binary;\n};\nstd::mutex gMutex;\nLoaded gLoaded[16];\n"
    << "int gCount = 0;\n\n"
    << "/// The module for the current context, loaded into it on first use.\n"
    << "CUresult load(const Loaded** out) {\n  CUcontext ctx = nullptr;\n  CUresult r = cuCtxGetCurrent(&ctx);\n"
    << "  if (r != CUDA_SUCCESS) return r;\n  if (!ctx) return CUDA_ERROR_INVALID_CONTEXT;\n"
    << "  for (int i = 0; i < gCount; ++i)\n    if (gLoaded[i].context == ctx) {\n      *out = &gLoaded[i];\n"
    << "      return CUDA_SUCCESS;\n    }\n  if (gCount == 16) return CUDA_ERROR_OUT_OF_MEMORY;  // 16 contexts at most\n"
    << "  CUdevice dev;\n"
    << "  if ((r = cuCtxGetDevice(&dev)) != CUDA_SUCCESS) return r;\n  int major = 0, minor = 0;\n"
    << "  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);\n"
    << "  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);\n"
    << "  const Binary* pick = nullptr;\n  for (const Binary& b : kBinaries)\n"
    << "    if (b.major == major && b.minor == minor) pick = &b;\n  if (!pick)\n    for (const Binary& b : kBinaries)\n"
    << "      if (b.major == major && b.minor < minor && !b.archSpecific && (!pick || b.minor > pick->minor)) pick = &b;\n"
    << "  if (!pick) return CUDA_ERROR_NO_BINARY_FOR_GPU;\n  CUmodule module = nullptr;\n"
    << "  if ((r = cuModuleLoadData(&module, pick->cubin)) != CUDA_SUCCESS) return r;\n  CUfunction fn = nullptr;\n"
    << "  if ((r = cuModuleGetFunction(&fn, module, \"" << first.name << "\")) != CUDA_SUCCESS) return r;\n"
    << "  if (pick->sharedBytes > 48 * 1024 &&\n"
    << "      (r = cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(pick->sharedBytes))) !=\n"
    << "          CUDA_SUCCESS)\n    return r;\n"
    << "  gLoaded[gCount] = Loaded{ctx, module, fn, pick};\n  *out = &gLoaded[gCount++];\n  return CUDA_SUCCESS;\n}\n\n"
    << "CUresult launch(const Loaded* loaded, CUstream stream, unsigned x, unsigned y, unsigned z, void** params,\n"
    << "                const LaunchAttributes& a) {\n"
    << "  if (a.num_ctas != 1 && a.num_ctas != 2 && a.num_ctas != 4 && a.num_ctas != 8) return CUDA_ERROR_INVALID_VALUE;\n"
    << "  bool sm90 = loaded->binary->major >= 9;\n"
    << "  bool pdl = a.launch_pdl && sm90;\n"
    << "  unsigned cluster = a.num_ctas > 1 && sm90 && x % a.num_ctas == 0 ? a.num_ctas : 1;\n"
    << "  if (!pdl && !a.launch_cooperative_grid && cluster == 1)\n"
    << "    return cuLaunchKernel(loaded->function, x, y, z, loaded->binary->threads, 1, 1, loaded->binary->sharedBytes,\n"
    << "                          stream, params, nullptr);\n"
    << "#if CUDA_VERSION >= 12000  // cuLaunchKernelEx\n"
    << "  CUlaunchAttribute attrs[3];\n  std::memset(attrs, 0, sizeof attrs);\n  unsigned n = 0;\n"
    << "  if (pdl) {\n    attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;\n"
    << "    attrs[n++].value.programmaticStreamSerializationAllowed = 1;\n  }\n"
    << "  if (a.launch_cooperative_grid) {\n    attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;\n"
    << "    attrs[n++].value.cooperative = 1;\n  }\n"
    << "  if (cluster > 1) {\n    attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;\n"
    << "    attrs[n].value.clusterDim.x = cluster;\n    attrs[n].value.clusterDim.y = 1;\n"
    << "    attrs[n++].value.clusterDim.z = 1;\n  }\n"
    << "  CUlaunchConfig config;\n  std::memset(&config, 0, sizeof config);\n"
    << "  config.gridDimX = x;\n  config.gridDimY = y;\n  config.gridDimZ = z;\n"
    << "  config.blockDimX = loaded->binary->threads;\n  config.blockDimY = 1;\n  config.blockDimZ = 1;\n"
    << "  config.sharedMemBytes = loaded->binary->sharedBytes;\n  config.hStream = stream;\n"
    << "  config.attrs = attrs;\n  config.numAttrs = n;\n"
    << "  return cuLaunchKernelEx(&config, loaded->function, params, nullptr);\n"
    << "#else\n  return CUDA_ERROR_NOT_SUPPORTED;  // launch attributes need CUDA 12's headers and driver\n#endif\n}\n\n";
  if (!launches.str().empty())
    c << "/// A TMA descriptor (cuTensorMapEncodeTiled; dims, strides in bytes and box innermost first). An\n"
      << "/// empty dim gets a zeroed one: no copy reads it (the kernel's loop over it does not run).\n"
      << "CUresult encode(CUtensorMap* map, int type, unsigned rank, int64_t base, const cuuint64_t* dims,\n"
      << "                const cuuint64_t* strides, const cuuint32_t* box, int swizzleBytes, int nanFill) {\n"
      << "  for (unsigned i = 0; i < rank; ++i)\n"
      << "    if (int64_t(dims[i]) <= 0) {\n      std::memset(map, 0, sizeof *map);\n      return CUDA_SUCCESS;\n    }\n"
      << "  const cuuint32_t ones[5] = {1, 1, 1, 1, 1};\n"
      << "  CUtensorMapSwizzle swizzle = swizzleBytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B\n"
      << "                               : swizzleBytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B\n"
      << "                               : swizzleBytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B : CU_TENSOR_MAP_SWIZZLE_NONE;\n"
      << "  return cuTensorMapEncodeTiled(map, CUtensorMapDataType(type), rank, reinterpret_cast<void*>(base), dims,\n"
      << "                                strides, box, ones, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,\n"
      << "                                CU_TENSOR_MAP_L2_PROMOTION_L2_128B,\n"
      << "                                nanFill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA\n"
      << "                                        : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n}\n\n";
  std::string argNames;
  for (const Param& p : params) argNames += ", " + p.name;
  c << "}  // namespace\n\n"
    << "CUresult " << name << "(CUstream tessera_stream, unsigned tessera_grid_x, unsigned tessera_grid_y, unsigned tessera_grid_z" << args
    << ") {\n  return " << name << "_ex(LaunchAttributes{}, tessera_stream, tessera_grid_x, tessera_grid_y, tessera_grid_z"
    << argNames << ");\n}\n\n"
    << "CUresult " << name << "_ex(const LaunchAttributes& tessera_attributes, CUstream tessera_stream, "
    << "unsigned tessera_grid_x, unsigned tessera_grid_y, unsigned tessera_grid_z" << args << ") {\n";
  for (const Param& p : params) {
    if (!p.divisibleBy16) continue;
    if (p.pointer) {
      c << "  if (" << p.name << " % 16 != 0) return CUDA_ERROR_INVALID_VALUE;  // compiled as 16-byte aligned\n";
      continue;
    }
    // A positive multiple of 16, as the JIT specializes (intDivisibleBy16).
    bool isUnsigned = p.type.rfind("uint", 0) == 0;
    c << "  if (" << p.name << (isUnsigned ? " == 0" : " <= 0") << " || static_cast<uint64_t>(" << p.name
      << ") % 16 != 0) return CUDA_ERROR_INVALID_VALUE;  // compiled as a positive multiple of 16\n";
  }
  c << "  const Loaded* tessera_loaded = nullptr;\n  {\n    std::lock_guard<std::mutex> tessera_lock(gMutex);\n"
    << "    CUresult tessera_r = load(&tessera_loaded);\n    if (tessera_r != CUDA_SUCCESS) return tessera_r;\n  }\n";
  if (!launches.str().empty())
    c << "  switch (tessera_loaded->binary->index) {  // binaries that take TMA descriptors\n" << launches.str()
      << "  default:\n    break;\n  }\n";
  c << "  void* tessera_params[] = {";
  for (size_t i = 0; i < params.size(); ++i) c << (i ? ", " : "") << "&" << params[i].name;
  if (params.empty()) c << "nullptr";
  c << "};\n  return launch(tessera_loaded, tessera_stream, tessera_grid_x, tessera_grid_y, tessera_grid_z, "
       "tessera_params, tessera_attributes);\n}\n\n"
    << "CUresult " << name << "_unload() {\n  std::lock_guard<std::mutex> lock(gMutex);\n"
    << "  CUcontext ctx = nullptr;\n  cuCtxGetCurrent(&ctx);\n  CUresult r = CUDA_SUCCESS;\n"
    << "  for (int i = 0; i < gCount; ++i)\n    if (gLoaded[i].context == ctx) {\n"
    << "      r = cuModuleUnload(gLoaded[i].module);\n      gLoaded[i] = gLoaded[--gCount];\n      break;\n    }\n"
    << "  return r;\n}\n\n"
    << "}  // namespace tessera_aot\n";
  return {h.str(), c.str()};
}

}  // namespace tessera::aot
