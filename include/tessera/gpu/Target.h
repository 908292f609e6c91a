//===- tessera/gpu/Target.h - GPU targets and kernel metadata ---*- C++ -*-===//
//
// What the compiler and the runtime share without the runtime linking any
// pass: the GPU architecture (Target) and the metadata of an emitted kernel
// (PtxKernel: its parameters, host-encoded tensor maps, shared and global
// scratch memory, the libdevice functions it calls). Also how a host tensor
// map is written into the Tile GPU IR (encode-host-tensormaps) and read back
// by the PTX emitter.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tessera/ir/IR.h"

namespace tessera::gpu {

/// A GPU architecture: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a, ...
struct Target {
  int capability = 90;      ///< 10 * major + minor
  bool archSpecific = true;  ///< the "a" suffix (sm_90a: wgmma, setmaxnreg)

  /// Parses "sm_90a", "sm_80", "90a", "80"; throws tessera::Error otherwise.
  static Target parse(const std::string& name);
  std::string name() const;        ///< "sm_90a"
  std::string ptxVersion() const;  ///< the .version line's number, e.g. "8.0"
};

/// The options of one GPU compilation, read by the lowering (lib/gpu) and
/// the PTX emitter (lib/ptx) alike.
struct GpuOptions {
  int numWarps = 4;
  int numStages = 3;
  Target target;
  bool debug = false;  ///< device_assert active (TESSERA_DEBUG / @jit(debug=True))
  int maxNumRegisters = 0;  ///< `.maxnreg` cap per thread (triton.Config maxnreg); 0: ptxas decides
  /// sm_90a: masked pointer tiles of wgmma operands copied by TMA
  /// (pointer-tiles-to-tma); off with TESSERA_POINTER_TMA=0.
  bool pointerTma = true;
  /// sm_90a: loops of two or more wgmma dots get a producer warpgroup unless
  /// tl.range(..., warp_specialize=False) refuses; off (only loops that ask)
  /// with TESSERA_WARP_SPECIALIZE=0.
  bool autoWarpSpecialize = true;
  /// Called after each pass of the Tile IR -> Tile GPU IR pipeline, once it
  /// verified (TESSERA_DUMP=after-all); not part of what specializes.
  std::function<void(const std::string& pass, const ir::Module& module)> afterPass;
};

/// A libdevice-style function the PTX calls but does not define
/// (tt.extern_elementwise). The PTX declares `.extern .func wrapper`; the
/// runtime links a definition compiled from CUDA's math library (NVRTC):
///   extern "C" __device__ <result> wrapper(<args>) { return symbol(args...); }
struct ExternFunction {
  std::string symbol;   ///< "__nv_erff"
  std::string wrapper;  ///< libdeviceWrapperName(symbol)
  std::vector<ir::Type> argTypes;
  ir::Type resultType;
};
std::string libdeviceWrapperName(const std::string& symbol);

/// A comment line in the header of PTX that holds the user's inline asm:
/// its `.version` is raised at assembly to the newest PTX ISA the
/// assembler reads (runtime::withAssemblerPtxVersion), since the asm may
/// use instructions newer than what the kernel's own code needs (as
/// Triton writes the ptxas toolkit's version).
inline constexpr const char* kInlineAsmPtxMarker = "// tessera: inline asm (the PTX ISA version: the assembler's)";

/// The size of one TMA descriptor (CUtensorMap) in the kernel's global
/// scratch, and its alignment.
constexpr int kTmaDescriptorBytes = 128;

/// A scalar the launch computes for a host tensor map: a kernel parameter
/// (sign-extended from its type, or zero-extended) or a constant.
struct HostScalar {
  int param = -1;  ///< the PTX parameter it reads, or -1: `constant`
  int64_t constant = 0;
  bool zeroExtend = false;
  int64_t scale = 1;  ///< a parameter's value is multiplied by this
  bool operator==(const HostScalar&) const = default;
};

/// A TMA descriptor (CUtensorMap) the launch encodes with
/// cuTensorMapEncodeTiled and passes as a 128-byte kernel parameter: one
/// whose base, shape and strides are all kernel arguments or constants (a
/// matmul's tl.make_tensor_descriptor or tl.make_block_ptr). The kernel
/// then makes none itself; on the H100 that saves 2-5 us of every launch
/// (docs/decisions.md). A descriptor whose base is an argument plus a
/// program's multiple of a stride (attention's q_ptr + head * seq_len *
/// HEAD_DIM) gets one more, outermost dim of that stride instead: the
/// program's multiple becomes its coordinate in every copy.
struct HostTensorMap {
  HostScalar base;
  std::vector<HostScalar> shape;    ///< outermost dim first, as the IR's
  std::vector<HostScalar> strides;  ///< in elements, outermost first; the last is 1
  std::vector<int64_t> box;         ///< outermost first
  int elementBytes = 2;
  int dataType = 0;  ///< CUtensorMapDataType
  int swizzle = 0;   ///< bytes: 0, 32, 64 or 128
  bool nanFill = false;
  bool operator==(const HostTensorMap&) const = default;
};

/// One kernel parameter of the PTX entry, in order: what the launch packs.
struct KernelParam {
  ir::Type type;  ///< pointer, i1/i8/i16/i32/i64, f16/bf16/f32/f64 (scalars)
  int bytes = 8;  ///< size and alignment of the .param
  /// The kernel's global scratch (a pointer the launch allocates, not a
  /// kernel argument): always the last parameter.
  bool globalScratch = false;
  /// A host tensor map (PtxKernel::tensorMaps[tensorMap]), 128 bytes
  /// aligned to 64, after the kernel's arguments; -1 for the others.
  int tensorMap = -1;
};

struct PtxKernel {
  std::string name;   ///< the .entry name (the kernel's name)
  std::string ttgir;  ///< the printed Tile GPU IR the PTX was emitted from
  std::string ptx;    ///< complete PTX module text (.version, .target, ...)
  std::vector<ExternFunction> externs;
  std::vector<KernelParam> params;
  int sharedBytes = 0;  ///< dynamic shared memory to request at launch
  /// Global memory each program needs (its TMA descriptors); the entry's
  /// last parameter (globalScratch) points at programs * this many bytes.
  int globalScratchBytes = 0;
  std::vector<HostTensorMap> tensorMaps;  ///< their parameters follow the arguments
  int numWarps = 4;
  bool usesPrintf = false;  ///< device_print (vprintf) present
  /// Checks the compiler added that stop the kernel with a trap when they
  /// fail (what each one means); the runtime names them when it faults.
  std::vector<std::string> runtimeChecks;
};

/// A host tensor map as attributes of the ttng.host_tensormap op that
/// stands for it (`base`, `shape`, `strides`: 4 integers per scalar, param,
/// constant, zero-extend and scale; `box`, `element_bytes`, `data_type`,
/// `swizzle`, `nan_fill`), and back. fromAttributes throws tessera::Error
/// naming the op when they are missing or malformed.
void setHostTensorMapAttributes(ir::Operation* op, const HostTensorMap& map);
HostTensorMap hostTensorMapFromAttributes(const ir::Operation* op);

/// Whether the PTX lowering of `op` may stage values through the kernel's
/// shared scratch area (layout changes, reductions, scans, sorts, scalar
/// atomics' broadcast, unpipelined TMA loads). allocate-shared-memory gives
/// exactly these ops a `scratch_offset` (when non-zero); the emitter
/// refuses scratch for any other op.
bool usesSharedScratch(const ir::Operation* op);

}  // namespace tessera::gpu
