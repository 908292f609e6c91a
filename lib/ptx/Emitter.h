//===- Emitter.h - Per-thread PTX from Tile GPU IR (private) ----*- C++ -*-===//
//
// The PTX backend walks the kernel of a Tile GPU IR module once, in program
// order, and writes the code ONE thread runs. A tensor value is an array of
// PTX registers, one per register index of its linear layout: register i of
// the thread (lane, warp) holds the element at coordinates
// layout(i, lane, warp). A scalar is one register. So:
//
//  * elementwise ops are a loop over register indices (ScalarOps.cpp emits
//    one scalar op; the same code emits the scalar bodies of reduce/scan
//    combine regions);
//  * data movement between layouts (convert_layout, and shape ops whose
//    operand is not already in the right threads) goes through shared
//    memory, in-thread moves when the layouts allow it (Layouts.cpp);
//  * memory ops group registers into 16-byte vectors where the layout and
//    axis info allow (Memory.cpp); reductions use in-thread combines, warp
//    shuffles and shared memory (Reduce.cpp).
//
// Registers are untyped bit registers (%p pred, %h b16, %r b32, %rd b64):
// PTX lets a bit-size register feed any instruction type of its size.
// 8-bit integers live in b16 registers, sign-extended (the canonical form
// every op keeps); fp8 values are the low byte of a b16 register.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/gpu/AxisInfo.h"
#include "tessera/gpu/Target.h"
#include "tessera/gpu/LinearLayout.h"
#include "tessera/ir/IR.h"

namespace tessera::ptx {

using ir::Operation;
using ir::Type;
using ir::Value;
using Regs = std::vector<std::string>;

enum class RegClass { Pred, B16, B32, B64 };

class Emitter {
 public:
  Emitter(Operation* func, const gpu::GpuOptions& options);
  ~Emitter();
  gpu::PtxKernel emit();

  // ---- registers and text ---------------------------------------------------
  static RegClass regClass(Type scalar);
  std::string reg(RegClass c);
  std::string reg(Type scalar) { return reg(regClass(scalar)); }
  /// Appends one instruction ("add.s32 %r1, %r2, %r3"); the ';' is added.
  void ins(const std::string& text);
  /// Appends raw text (labels, comments, directives) followed by '\n'.
  void raw(const std::string& text);
  std::string newLabel(const std::string& hint);
  /// Registers holding immediates (cached per function; emitted in the
  /// prologue so they dominate every use).
  std::string constInt(Type scalar, int64_t value);
  std::string constFloat(Type scalar, double value);
  std::string constPred(bool value);
  /// Whether every committed wgmma group is known complete here: a wait for
  /// all groups was emitted, with no commit or label since (Dot.cpp drops
  /// a second such wait).
  bool wgmmaDrained() const { return wgmmaDrained_; }
  void noteWgmmaDrained() { wgmmaDrained_ = true; }
  void noteWgmmaCommitted() { wgmmaDrained_ = false; }
  /// Instruction emitted in the prologue (thread ids, constants).
  void prologue(const std::string& text);

  // ---- values ------------------------------------------------------------------
  const Regs& regs(Value v);
  void bind(Value v, Regs r);
  /// Binds v to n empty registers that its emission fills in one at a time
  /// (the reference stays valid while the emitter lives).
  Regs& bindSlots(Value v, size_t n);
  /// Binds v to registers whose defining instructions are emitted only when
  /// v is first used (or before the next nested region): a 16-bit load stays
  /// packed in 32-bit words until its elements are needed, which keeps
  /// register pressure like Triton's (LLVM sinks the unpack there).
  void bindDeferred(Value v, Regs r, std::function<void()> materialize);
  void flushDeferred();
  bool bound(Value v) const { return values_.count(v.impl()) != 0; }
  /// Register i of v, or v's only register for scalars (broadcast).
  const std::string& at(Value v, size_t i);

  // ---- layouts -----------------------------------------------------------------
  const gpu::LinearLayout& layout(Type tensor);
  /// Number of registers of a value of this type (1 for scalars).
  int64_t numRegs(Type t);
  std::string threadId();  ///< %tid.x
  /// A predicate: (lane & laneMask) == 0 && (warp & warpMask) == 0, i.e. the
  /// thread-id bits those masks name are all zero (one and + setp).
  std::string threadBitsZero(int64_t laneMask, int64_t warpMask);
  std::string laneId();
  std::string warpId();
  /// sm_90+: the warp's index broadcast from lane 0 (shfl.sync), which
  /// ptxas knows is the same in every lane (uniform registers), and the
  /// lane elect.sync picks in each warp; both computed in the prologue.
  std::string uniformWarpId();
  std::string electedLane();
  /// The lane/warp part of the coordinate along `dim` for `ll` (XOR of the
  /// bases of the thread's lane and warp bits), a b32 register; cached.
  std::string threadCoord(const gpu::LinearLayout& ll, int dim);
  /// XOR over the thread's lane and warp bits of value(basis) (a linear
  /// function of one basis vector of `ll`), as a b32 register; runs of
  /// thread-id bits that land on consecutive bits become shift + mask.
  /// Emitted in the prologue or at the current point.
  std::string threadLinear(const gpu::LinearLayout& ll,
                           const std::function<int64_t(const std::vector<int64_t>&)>& value, bool inPrologue);
  /// Coordinates of register i with lane = warp = 0.
  std::vector<int64_t> registerCoords(const gpu::LinearLayout& ll, int64_t i);
  /// reg XOR c as a b32 register. When the bits `reg` may have (recorded by
  /// noteBits; threadCoord records them) are disjoint from c's, this is an
  /// add, which ptxas folds into address offsets; XOR only when needed.
  std::string xorConst(const std::string& reg, int64_t c);
  void noteBits(const std::string& reg, int64_t mayBeSet) { knownBits_[reg] = mayBeSet; }

  // ---- TMA -------------------------------------------------------------------
  /// The global address (b64) of a new 128-byte TMA descriptor slot of this
  /// program in the kernel's global scratch (an extra, last parameter).
  std::string newTmaDescriptorSlot();
  /// The one thread that makes descriptors, sets up mbarriers and issues
  /// TMA copies: %tid.x == 0 before sm_90; from sm_90 the lane elect.sync
  /// picks in warp 0 (one deterministic lane; nothing here needs it to be
  /// lane 0), and in the producer region its one thread,
  /// also through elect.sync. ptxas then knows at most one lane of a warp
  /// runs what the predicate guards, so a TMA copy's operands go to uniform
  /// registers once, where with %tid.x == 0 it wraps every copy in a loop
  /// over the lanes (ELECT, R2UR, BRA.U.ANY: 2.4x the instructions in the
  /// grouped GEMM's K loop, docs/decisions.md).
  std::string isThreadZero();
  /// The generic address (b64) of host tensor map `index`'s 128-byte kernel
  /// parameter (declared after the kernel's arguments, in index order), the
  /// launch encoding `map` into it. Fails when two ops give one index
  /// different maps.
  std::string hostTensorMapAddress(int index, const gpu::HostTensorMap& map);
  /// The PTX parameter an entry-block argument of the kernel is, or -1.
  int paramIndex(Value v);
  /// What the launch's specialization proved parameter `param` divisible by (1: nothing).
  int64_t paramDivisibility(int param);

  // ---- shared memory ---------------------------------------------------------
  /// The 32-bit shared address of the scratch buffer (offset 0); every op
  /// needing scratch uses it from offset 0 between two barriers.
  std::string smemBase();
  /// The 32-bit shared address of the buffer of a ttg.local_alloc.
  std::string localBuffer(Operation* alloc);
  /// global_smem itself (local buffers first, then the scratch area).
  std::string sharedBase();
  /// The op being emitted uses `bytes` of the scratch area.
  void needScratch(int64_t bytes);
  /// A barrier of every thread that runs the kernel body: all of them, or
  /// after a ttng.warp_specialize the kernel's num_warps warps (named
  /// barrier 1; the producer warpgroup never joins).
  void barrier();
  /// Emitting the producer region of a ttng.warp_specialize: one thread
  /// runs it (isThreadZero() holds there for that thread).
  bool inProducer() const { return inProducer_; }

  const gpu::AxisInfoAnalysis& axisInfo() const { return *axis_; }
  const gpu::GpuOptions& options() const { return options_; }
  [[noreturn]] void fail(Operation* op, const std::string& message);
  void addExtern(const gpu::ExternFunction& f);
  void setUsesPrintf() { usesPrintf_ = true; }
  void setUsesInlineAsm() { usesInlineAsm_ = true; }
  /// The module needs PTX ISA `tenths`/10 or newer (81: 8.1); .version is
  /// raised to it where the target's default is older.
  void requirePtxVersion(int tenths) { minPtxTenths_ = std::max(minPtxTenths_, tenths); }
  void setUsesAssert() { usesAssert_ = true; }
  /// A check the compiler added that traps when it fails (PtxKernel::runtimeChecks).
  void addRuntimeCheck(const std::string& what) { runtimeChecks_.push_back(what); }
  std::string globalString(const std::string& text);  ///< .global .b8 array; returns its name
  /// A per-thread .local buffer of at least `bytes` (one per kernel, reused).
  std::string localBuffer(int64_t bytes) {
    localBytes_ = std::max(localBytes_, bytes);
    return "__local_buf";
  }

  // ---- op emission (one file per family) ---------------------------------------
  void emitBlock(ir::Block& block);
  /// The ops from `first` on that emitBlock emits register-major: at least
  /// two elementwise tensor ops of one layout, with the scalar ops, splats,
  /// ranges and constants between them; empty when `first` starts none.
  std::vector<Operation*> elementwiseRun(Operation* first);
  void emitOp(Operation* op);

 private:
  void emitControlFlow(Operation* op);
  void emitFor(Operation* op);
  void emitIf(Operation* op);
  void emitWhile(Operation* op);
  void emitWarpSpecialize(Operation* op);
  void emitPingPong(Operation* op);

  Operation* func_;
  gpu::GpuOptions options_;
  bool wgmmaDrained_ = false;
  std::unique_ptr<gpu::AxisInfoAnalysis> axis_;
  std::string body_, prologue_, globals_;
  int counters_[4] = {0, 0, 0, 0};
  int labels_ = 0;
  std::map<ir::ValueImpl*, Regs> values_;
  std::map<ir::ValueImpl*, std::function<void()>> deferred_;
  std::map<const ir::TypeStorage*, gpu::LinearLayout> layouts_;
  std::map<std::string, std::string> constants_;
  std::map<std::string, std::string> threadCoords_;
  std::map<std::string, int64_t> knownBits_;
  std::string tid_, laneId_, warpId_, smemBase_, sharedBase_;
  int64_t scratchBytes_ = 0;
  int64_t buffersBytes_ = 0;  ///< the kernel's shared_buffers_bytes (allocate-shared-memory)
  int64_t scratchAt_ = 0;     ///< the largest scratch_offset of the ops that used scratch
  Operation* currentOp_ = nullptr;
  static constexpr const char* kScratchOffset = "__tessera_scratch_offset__";
  std::string globalScratch_, threadZero_;  ///< this program's TMA descriptor slots; isThreadZero()
  std::string producerElected_;  ///< isThreadZero() in the producer region
  std::string uniformWarp_, electedLane_;
  int tmaSlots_ = 0;
  int minPtxTenths_ = 0;  ///< requirePtxVersion's
  std::vector<std::optional<gpu::HostTensorMap>> tensorMaps_;  ///< hostTensorMapAddress's, by index
  static constexpr const char* kGlobalScratchBytes = "__tessera_global_scratch_bytes__";
  std::vector<gpu::ExternFunction> externs_;
  std::map<std::string, std::string> strings_;
  bool usesPrintf_ = false;
  bool usesInlineAsm_ = false;
  bool usesAssert_ = false;
  std::vector<std::string> runtimeChecks_;
  int64_t localBytes_ = 0;
  bool inProducer_ = false, specialized_ = false;
  int producerWarps_ = 0;  ///< launched beyond num_warps (ttng.warp_specialize)
  int launchRegisters_ = 0;  ///< .maxnreg that setmaxnreg's targets add up to
};

// Families (each in its own file).
void emitElementwise(Emitter& e, Operation* op);   // ScalarOps.cpp
/// Emits register i of an elementwise op's results.
using RegisterEmitter = std::function<void(int64_t)>;
/// Binds the results of elementwise `op` (not inline asm) and returns the
/// function that emits each register; emitElementwise calls it for every
/// register in turn, emitBlock interleaves it with the next ops of a run.
/// `resultReadInRun`: a later op of the run reads the result register by
/// register, so register i must be ready when the call for i returns (an
/// f32 -> f16/bf16 narrowing otherwise converts registers in pairs, with one
/// packed cvt, and fills register 2k when register 2k + 1 is emitted).
RegisterEmitter beginElementwise(Emitter& e, Operation* op, bool resultReadInRun = false);
/// One scalar op on scalar registers -> result registers (one per result).
Regs emitScalarOp(Emitter& e, Operation* op, const Regs& operands);
/// Converts a scalar register between two element types (casts).
std::string emitCast(Emitter& e, Operation* op, const std::string& value, Type from, Type to);
void emitMemory(Emitter& e, Operation* op);        // Memory.cpp
/// Elements per vector access of a tensor memory op on `ptr` (layout `ll`),
/// from axis info and the layout (Memory.cpp).
int64_t vectorWidth(Emitter& e, Value ptr, Value mask, const gpu::LinearLayout& ll, int64_t elemBytes);
/// ttg.memdesc_index, ttg.async_copy_global_to_local, ttg.async_commit_group,
/// ttg.async_wait (AsyncCopy.cpp).
void emitAsyncOp(Emitter& e, Operation* op);
void emitLayoutOp(Emitter& e, Operation* op);      // Layouts.cpp: make_range, splat, shape ops, convert_layout
void emitReduction(Emitter& e, Operation* op);     // Reduce.cpp: reduce, scan
void emitSort(Emitter& e, Operation* op);          // Sort.cpp: tt.sort (bitonic network in shared memory)
void emitDebugOp(Emitter& e, Operation* op);       // Debug.cpp: print, assert, barrier
void emitDot(Emitter& e, Operation* op);           // Dot.cpp: tt.dot (wgmma, mma.sync, FMA), ttng.warp_group_dot_wait
/// A convert_layout into a 16-bit mma.sync operand through swizzled shared
/// memory and ldmatrix (DotOperands.cpp); false when it does not apply.
bool emitDotOperandConvert(Emitter& e, Operation* op);
/// Offsets (elements) of a 2-D tile of 16-bit elements stored as rows along
/// `colDim`, in the swizzle ldmatrix and wgmma operands use: 16-byte chunk
/// c of row r at c ^ (r / perPhase % maxPhase), perPhase = max(1, 128 bytes
/// / row bytes), maxPhase = min(8 / perPhase, chunks per row): the 32, 64
/// and 128-byte swizzles of rows of 16, 32 and 64 elements. Linear over
/// GF(2) in the coordinates' bits.
struct SwizzledRows {
  int colDim = 1;
  int64_t cols = 0;
  SwizzledRows(const std::vector<int64_t>& shape, int contiguous) : colDim(contiguous), cols(shape[contiguous]) {}
  int64_t perPhase() const { return std::max<int64_t>(1, 64 / cols); }
  int64_t maxPhase() const { return std::max<int64_t>(1, std::min<int64_t>(8 / perPhase(), cols / 8)); }
  int64_t operator()(const std::vector<int64_t>& c) const {
    int64_t row = c[1 - colDim], col = c[colDim];
    return row * cols ^ col ^ (((row / perPhase()) % maxPhase()) * 8);
  }
};

/// Registers `idx` of `regs` packed into one b32 (two 16-bit values, or
/// four 8-bit ones held in b16 registers): an mma operand register, a
/// shared-memory word (Dot.cpp).
std::string pack32(Emitter& e, const Regs& regs, const std::vector<int64_t>& idx);
/// Stores a 16- or 8-bit tensor (`elemBytes` 2 or 1; registers `values` in
/// layout `ll`) to shared memory at address `base` (a b32 register) +
/// elemBytes * offset(coordinates), in vectors of up to 16 bytes along
/// `vecDim` (8-bit elements: 4 to 16, else one at a time). `offset` must be
/// linear over GF(2) (a swizzled layout) and keep 16-byte runs along vecDim
/// together.
void storeToSharedTile(Emitter& e, const Regs& values, const gpu::LinearLayout& ll, int vecDim,
                       const std::function<int64_t(const std::vector<int64_t>&)>& offset, const std::string& base,
                       int elemBytes);
/// Element offsets of a tensor type with a shared encoding: the inverse of
/// its offset -> element layout (linear over GF(2)).
std::function<int64_t(const std::vector<int64_t>&)> sharedOffsets(Type shared);
/// ttg.local_load of an ldmatrix operand from such a tile (DotOperands.cpp).
void emitLocalLoad(Emitter& e, Operation* op);
/// ttg.local_alloc: the operand's registers into the op's own buffer
/// (DotOperands.cpp); the result is bound to the buffer's address.
void emitLocalAlloc(Emitter& e, Operation* op);
/// The registers of a value of layout `ll` read from the scratch buffer,
/// where it lies row-major (`shape`, unswizzled), e.g. a TMA copy's box.
Regs loadFromScratch(Emitter& e, const gpu::LinearLayout& ll, const std::vector<int64_t>& shape, Type elem);
/// The TMA ops (Tma.cpp): descriptors, mbarriers, copies.
void emitTmaOp(Emitter& e, Operation* op);
/// Emits the scalar ops of a combine region (reduce/scan) on `args`; returns
/// the values of its terminator.
Regs emitCombine(Emitter& e, ir::Region& region, const Regs& args);

}  // namespace tessera::ptx
