//===- LaunchMemo.cpp - The warm launch path on a GPU ---------------------===//
//
// Kernel::launch binds the arguments to the kernel's parameters, derives
// Triton's specialization (a string key), looks the compiled kernel up and
// packs the parameters: correct for every launch, but microseconds of
// strings and maps. Most launches repeat an earlier one's shape: the same
// argument kinds, dtypes, alignments, integer properties (== 1, % 16, width)
// and constexprs. Such a launch is recognized here from a few integers per
// argument, computed without allocating, and goes straight to packing and
// cuLaunchKernel with the device function and the packing plan the first
// launch of that shape left behind.
//
// The shape code of an argument holds exactly what bindArguments derives the
// specialization from, so two launches with equal codes, constexprs and
// options compile to the same kernel. Kernels with @triton.autotune or
// @triton.heuristics, callable grids, runtime parameters passed by name and
// more than kMaxArgs arguments always take the full path.
//
// The warm path takes no lock, touches no reference count and allocates
// nothing (tests/hostpath checks the last): it scans the memo's few recent
// entries, which are immutable once published and live as long as the
// kernel, so a launch on one thread never sees an entry freed under it by
// another thread's new shape.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "Internal.h"
#include "tessera/support/Hot.h"
#include "Specialization.h"

namespace tessera::detail {

namespace {

constexpr size_t kMaxArgs = 32;

/// An argument's tensor, whether it is an Arg (which holds it) or an
/// ArgRef of a braced list (which points at it).
const Tensor& tensorOf(const Arg& a) { return a.tensor; }
const Tensor& tensorOf(const ArgRef& a) { return *a.tensor; }

/// What the specialization of one argument depends on; a tensor's data
/// pointer goes to `ptr` (the warm path packs it without reading it again).
template <class A>
uint32_t shapeCode(const A& a, uint64_t& ptr) {
  switch (a.kind) {
    case Arg::Kind::Tensor: {
      const Tensor& t = tensorOf(a);
      if (!t.defined()) return 0xffffffffu;  // an error on the full path
      ptr = t.data_ptr();
      return 1u | (static_cast<uint32_t>(t.dtype()) << 8) | ((ptr % 16 == 0) ? 16u : 0u) |
             (t.is_read_only() ? 32u : 0u);  // checked on the full path
    }
    case Arg::Kind::Int:
      return 2u | (a.i == 1 ? 16u : 0u) | (intDivisibleBy16(a.i, a.isUnsigned64) ? 32u : 0u) |
             (a.i >= INT32_MIN && a.i <= INT32_MAX ? 64u : 0u) | (a.isUnsigned64 ? 128u : 0u);
    case Arg::Kind::Float: return 3u;
    case Arg::Kind::Bool: return 4u;
    case Arg::Kind::Null: return 5u;
    case Arg::Kind::TensorDesc: case Arg::Kind::Tuple: return 0xffffffffu;  // the full path packs those
  }
  return 0xffffffffu;
}

/// Round-to-nearest-even float -> IEEE half / bfloat16 bits (scalar fp16
/// and bf16 kernel parameters).
uint16_t halfBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffff;
  if (absx >= 0x7f800000) return static_cast<uint16_t>(sign | 0x7c00 | (absx > 0x7f800000 ? 0x200 : 0));
  if (absx >= 0x477ff000) return static_cast<uint16_t>(sign | 0x7c00);  // rounds to infinity
  if (absx < 0x38800000) {  // half subnormal or zero: round at 2^-24
    float a;
    std::memcpy(&a, &absx, 4);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f)));
  }
  uint32_t mant = absx + 0xfff + ((absx >> 13) & 1);  // RNE on the 13 dropped bits
  return static_cast<uint16_t>(sign | ((mant - 0x38000000) >> 13));
}

uint16_t bf16Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

}  // namespace

void packScalarParam(ir::TypeKind kind, int bytes, int64_t intValue, double floatValue, bool isFloatArg,
                     uint64_t& slot) {
  slot = 0;
  auto put = [&](const auto& v) {
    static_assert(sizeof(v) <= sizeof(slot));
    std::memcpy(&slot, &v, sizeof(v));
  };
  int64_t asInt = isFloatArg ? static_cast<int64_t>(floatValue) : intValue;
  double asFloat = isFloatArg ? floatValue : static_cast<double>(intValue);
  switch (kind) {
    case ir::TypeKind::F32: put(static_cast<float>(asFloat)); return;
    case ir::TypeKind::F64: put(asFloat); return;
    case ir::TypeKind::F16: put(halfBits(static_cast<float>(asFloat))); return;
    case ir::TypeKind::BF16: put(bf16Bits(static_cast<float>(asFloat))); return;
    case ir::TypeKind::I1: put(static_cast<uint8_t>(asInt != 0)); return;
    default: std::memcpy(&slot, &asInt, std::min<size_t>(8, std::max(bytes, 1)));  // little-endian truncation
  }
}

std::string wrongDeviceMessage(const frontend::JitFunction& fn, int paramIndex, const TensorStorage* storage,
                               int deviceOrdinal) {
  return "kernel '" + fn.name + "': tensor argument '" + fn.params[paramIndex].name + "' lives on " +
         (!storage ? std::string("no device (undefined tensor)")
          : storage->kind == DeviceKind::Interpreter
              ? std::string("the interpreter")
              : "cuda:" + std::to_string(storage->cuda->ordinal())) +
         ", but the kernel is launched on cuda:" + std::to_string(deviceOrdinal) + "; upload it to that device";
}

/// How the warm path packs a parameter: a tensor's pointer, an i32 from an
/// int argument and an f32 from a float argument directly, the others
/// through packScalarParam; Zero for the global scratch (CudaDevice::launch
/// fills it in) and host tensor maps (encoded from the others).
enum class Pack : uint8_t { Pointer, Int32, F32, Other, Zero };

/// One remembered launch shape and how to launch it. Everything a warm
/// launch reads is inline (codes, slots, the kernel's handle) or one hop
/// away (the constexprs, contiguous): after a driver call has evicted the
/// caches, each dependent pointer hop costs the next launch a miss.
struct LaunchMemoEntry {
  runtime::CudaDevice* device = nullptr;
  int numWarps = 0, numStages = 0, maxnreg = 0, numCtas = 1;
  uint32_t nargs = 0, nslots = 0;
  int blockThreads = 0, sharedBytes = 0;
  bool tensorMaps = false;  ///< some parameter is a host tensor map
  runtime::KernelHandle handle;  ///< a copy of kernel->loaded's
  /// The constexprs by name, in name order (a Meta's order).
  std::vector<std::pair<std::string, Value>> constexprs;
  /// Per PTX parameter: the argument it comes from and how to pack it
  /// (eight bytes: a kernel's slots share a cache line or two).
  struct Slot {
    Pack pack = Pack::Zero;
    bool floatArg = false;
    uint8_t arg = 0;
    ir::TypeKind kind = ir::TypeKind::I64;  ///< the parameter's type, for Pack::Other
    int32_t bytes = 8;                      ///< its size, for Pack::Other
  };
  std::array<Slot, kMaxArgs> slots;
  std::array<uint32_t, kMaxArgs> codes{};
  DeviceKernel* kernel = nullptr;  ///< for host tensor maps
  std::shared_ptr<CompiledKernelImpl> compiled;  ///< keeps `kernel` alive
};

static bool memoUsable(const KernelImpl& kernel, const DeviceImpl& device, const Grid& grid, size_t nargs) {
  if (device.kind != DeviceKind::Cuda || grid.fn || nargs > kMaxArgs) return false;
  LaunchMemo& memo = kernel.cache->memo;
  int limit = memo.positionalLimit.load(std::memory_order_relaxed);
  if (limit == LaunchMemo::kUnknown) {
    // A constexpr given by position specializes on its exact value, which
    // the shape codes do not hold: such launches take the full path.
    const frontend::JitFunction& fn = *kernel.fn;
    limit = 0;
    if (fn.hasAutotune || fn.hasHeuristics) limit = LaunchMemo::kNever;
    else
      while (static_cast<size_t>(limit) < fn.params.size() && !fn.params[limit].isConstexpr) ++limit;
    memo.positionalLimit.store(limit, std::memory_order_relaxed);
  }
  return limit != LaunchMemo::kNever && nargs <= static_cast<size_t>(limit);
}

TESSERA_HOT static bool sameShape(const LaunchMemoEntry& e, const runtime::CudaDevice* device, const LaunchOptions& options,
                      size_t nargs, const uint32_t* codes, const MetaView& constexprs) {
  return e.device == device && e.numWarps == options.num_warps && e.numStages == options.num_stages &&
         e.maxnreg == options.maxnreg && e.numCtas == options.num_ctas &&
         e.nargs == nargs && std::equal(codes, codes + nargs, e.codes.begin()) && constexprs.equals(e.constexprs);
}

TESSERA_HOT bool MetaView::equals(const std::vector<std::pair<std::string, Value>>& flat) const {
  if (map) {
    if (map->size() != flat.size()) return false;
    auto f = flat.begin();
    for (const auto& entry : *map) {  // both in name order
      if (entry.first != f->first || !(entry.second == f->second)) return false;
      ++f;
    }
    return true;
  }
  // Every name of `flat` once among the items, with its value; as many
  // items as names, so no item is left over (a repeated name cannot match).
  if (count != flat.size()) return false;
  for (const auto& entry : flat) {  // (clang 14 cannot capture a structured binding)
    const std::string& name = entry.first;
    const NamedValue* it = std::find_if(items, items + count, [&](const NamedValue& v) { return v.name == name; });
    if (it == items + count || !(it->value == entry.second)) return false;
  }
  return true;
}

/// launchFromMemo for an array of Args or of ArgRefs.
template <class A>
TESSERA_HOT static bool launchFromMemoOf(KernelImpl& kernel, DeviceImpl& device, const Grid& grid, const A* args, size_t nargs,
                             const MetaView& constexprs, const LaunchOptions& options) {
  if (!memoUsable(kernel, device, grid, nargs)) return false;
  std::array<uint32_t, kMaxArgs> codes;
  std::array<uint64_t, kMaxArgs> argPtrs;
  for (size_t i = 0; i < nargs; ++i) codes[i] = shapeCode(args[i], argPtrs[i]);
  const LaunchMemoEntry* entry = nullptr;
  for (const auto& slot : kernel.cache->memo.recent) {
    const LaunchMemoEntry* e = slot.load(std::memory_order_acquire);
    if (!e) break;  // slots fill in order
    if (sameShape(*e, device.cuda, options, nargs, codes.data(), constexprs)) {
      entry = e;
      break;
    }
  }
  if (!entry) return false;

  int64_t dims[3] = {1, 1, 1};
  size_t rank = grid.dims.size();
  if (rank == 0 || rank > 3) return false;  // the full path reports it
  for (size_t d = 0; d < rank; ++d) {
    if (grid.dims[d] < 0 || grid.dims[d] > kGridLimit[d]) return false;  // the full path reports it
    dims[d] = grid.dims[d];
  }
  if (dims[0] * dims[1] * dims[2] == 0) return true;

  size_t n = entry->nslots;
  std::array<uint64_t, kMaxArgs> slots;
  std::array<void*, kMaxArgs> ptrs;
  for (size_t i = 0; i < n; ++i) {
    const LaunchMemoEntry::Slot& s = entry->slots[i];
    ptrs[i] = &slots[i];
    switch (s.pack) {
      case Pack::Pointer: {
        const TensorStorage* storage = tensorOf(args[s.arg]).storage().get();
        if (!storage || storage->kind != DeviceKind::Cuda || storage->cuda != device.cuda)
          throw Error(wrongDeviceMessage(*kernel.fn, s.arg, storage, device.ordinal));
        slots[i] = argPtrs[s.arg];
        break;
      }
      case Pack::Int32:  // an int argument (the shape code keeps its kind)
        slots[i] = static_cast<uint32_t>(args[s.arg].i);
        break;
      case Pack::F32: {  // a float argument
        float f = static_cast<float>(args[s.arg].f);
        slots[i] = 0;
        std::memcpy(&slots[i], &f, sizeof f);
        break;
      }
      case Pack::Other: {
        auto [intValue, floatValue] = scalarValues(args[s.arg]);
        packScalarParam(s.kind, s.bytes, intValue, floatValue, s.floatArg, slots[i]);
        break;
      }
      case Pack::Zero: slots[i] = 0;
    }
  }
  std::vector<TensorMapBytes> maps;
  if (entry->tensorMaps) {
    const DeviceKernel& dk = *entry->kernel;
    encodeHostTensorMaps(*kernel.fn, *entry->compiled, dk.binary->ptx, slots.data(), ptrs.data(), maps);
  }
  profile::GpuMark mark = profile::beginGpu(*entry->device, options.stream);
  entry->device->launch(entry->handle, dims, entry->blockThreads, entry->sharedBytes, options.stream, ptrs.data(),
                        detail::launchAttributes(options));
  if (mark.device)
    profile::endGpu(mark, options.stream, kernel.fn->name,
                    profile::launchArgs(kernel.fn->name, dims, entry->blockThreads));
  return true;
}

TESSERA_HOT bool launchFromMemo(KernelImpl& kernel, DeviceImpl& device, const Grid& grid, const Arg* args, size_t nargs,
                    const MetaView& constexprs, const LaunchOptions& options) {
  return launchFromMemoOf(kernel, device, grid, args, nargs, constexprs, options);
}

TESSERA_HOT bool launchFromMemo(KernelImpl& kernel, DeviceImpl& device, const Grid& grid, const ArgRef* args, size_t nargs,
                    const MetaView& constexprs, const LaunchOptions& options) {
  return launchFromMemoOf(kernel, device, grid, args, nargs, constexprs, options);
}

/// Makes `e` one of the recent entries (under memo.mutex): the first free
/// slot, else the oldest.
static void publish(LaunchMemo& memo, const LaunchMemoEntry* e) {
  for (auto& slot : memo.recent) {
    const LaunchMemoEntry* cur = slot.load(std::memory_order_relaxed);
    if (cur == e) return;
    if (!cur) {
      slot.store(e, std::memory_order_release);
      return;
    }
  }
  memo.recent[memo.next].store(e, std::memory_order_release);
  memo.next = (memo.next + 1) % LaunchMemo::kRecent;
}

void rememberLaunch(KernelImpl& kernel, DeviceImpl& device, const Grid& grid, const Arg* args, size_t nargs,
                    const Meta& constexprs, const LaunchOptions& options,
                    const std::shared_ptr<CompiledKernelImpl>& compiled, DeviceKernel& dk,
                    const std::vector<BoundParam>& bound) {
  if (!memoUsable(kernel, device, grid, nargs)) return;
  auto entry = std::make_unique<LaunchMemoEntry>();
  entry->device = device.cuda;
  entry->numWarps = options.num_warps;
  entry->numStages = options.num_stages;
  entry->maxnreg = options.maxnreg;
  entry->numCtas = options.num_ctas;
  entry->nargs = nargs;
  for (size_t i = 0; i < nargs; ++i) {
    uint64_t ptr = 0;
    entry->codes[i] = shapeCode(args[i], ptr);
    if (entry->codes[i] == 0xffffffffu) return;
  }
  entry->constexprs.assign(constexprs.begin(), constexprs.end());
  entry->compiled = compiled;
  entry->kernel = &dk;
  entry->handle = dk.loaded;
  entry->blockThreads = dk.blockThreads;
  entry->sharedBytes = dk.sharedBytes;
  entry->tensorMaps = !dk.binary->ptx.tensorMaps.empty();
  const std::vector<gpu::KernelParam>& params = dk.binary->ptx.params;
  if (params.size() > kMaxArgs) return;
  entry->nslots = params.size();
  for (size_t i = 0; i < params.size(); ++i) {
    LaunchMemoEntry::Slot& s = entry->slots[i];
    if (params[i].globalScratch || params[i].tensorMap >= 0) continue;  // Pack::Zero
    int paramIndex = compiled->argToParam[i];
    // A runtime parameter given by name (in `constexprs`) or by default:
    // its value is not in `args`; such launches keep the full path.
    if (paramIndex < 0 || static_cast<size_t>(paramIndex) >= nargs) return;
    const BoundParam& b = bound[paramIndex];
    s.arg = static_cast<uint8_t>(paramIndex);
    s.floatArg = b.spec.type.isFloat();
    s.kind = params[i].type.kind();
    s.bytes = params[i].bytes;
    s.pack = params[i].type.isPointer() ? Pack::Pointer
             : params[i].type.kind() == ir::TypeKind::I32 && args[paramIndex].kind == Arg::Kind::Int ? Pack::Int32
             : params[i].type.kind() == ir::TypeKind::F32 && args[paramIndex].kind == Arg::Kind::Float ? Pack::F32
                                                                                                         : Pack::Other;
  }
  LaunchMemo& memo = kernel.cache->memo;
  std::lock_guard<std::mutex> lock(memo.mutex);
  for (const auto& e : memo.owned)
    if (sameShape(*e, device.cuda, options, nargs, entry->codes.data(), constexprs)) {
      publish(memo, e.get());  // seen before, since pushed out of `recent`
      return;
    }
  if (memo.owned.size() >= LaunchMemo::kOwned) return;  // that many shapes: new ones take the full path
  memo.owned.push_back(std::move(entry));
  publish(memo, memo.owned.back().get());
}

LaunchMemo::LaunchMemo() {
  for (auto& slot : recent) slot.store(nullptr, std::memory_order_relaxed);
}
LaunchMemo::~LaunchMemo() = default;

}  // namespace tessera::detail
