//===- interpreter/Runtime.h - Execution plans, frames and slots ----------===//
//
// The interpreter compiles a tt.func once into a Plan and then runs the plan
// for every program of the grid.
//
//   Slot    storage of one SSA value in a Frame: a dense row-major buffer of
//           `n` elements (scalars have n == 1; see "lanes" below) or a block
//           pointer. Buffers grow on demand and are reused across programs.
//   Instr   one op, resolved at plan time: a function pointer chosen for the
//           op and its element type, the operand/result slot numbers and
//           op-specific parameters. No per-element dispatch at run time.
//   BlockPlan  the instructions of one block, its argument slots and the
//           operand slots of its terminator (scf.yield, tt.reduce.return, ...).
//   Frame   the slots of one function invocation on one thread.
//
// Lanes: the combine regions of tt.reduce/tt.scan are written on scalars. To
// run them fast the interpreter runs a region once on whole vectors: while a
// region runs with `frame.lanes == W`, each scalar-typed value in it is a
// vector of W independent lanes. Every elementwise kernel therefore works on
// count * lanes elements and broadcasts operands that have a single element.
//
// Storage per element type: i1 -> uint8 (0/1), iN -> intN, f16/bf16 ->
// uint16 bit patterns, fp8 -> uint8 bit patterns, f32/f64 native, pointers
// -> uint64 host addresses.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/Error.h"
#include "tessera/interpreter/Interpreter.h"
#include "tessera/ir/IR.h"

namespace tessera::interp {

constexpr int kMaxBlockPtrRank = 8;

/// A block pointer (tt.make_tensor_ptr / tt.advance value).
struct BlockPtr {
  uint64_t base = 0;
  int rank = 0;
  int64_t shape[kMaxBlockPtrRank] = {};
  int64_t strides[kMaxBlockPtrRank] = {};
  int64_t offsets[kMaxBlockPtrRank] = {};
};

/// The runtime storage of one SSA value.
struct Slot {
  uint8_t* data = nullptr;
  size_t cap = 0;
  int64_t n = 0;  ///< number of elements currently held
  BlockPtr bp;

  Slot() = default;
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  Slot(Slot&& o) noexcept : data(o.data), cap(o.cap), n(o.n), bp(o.bp) { o.data = nullptr; o.cap = 0; }
  ~Slot() { std::free(data); }

  /// Makes room for `bytes` (contents are not preserved when it grows).
  uint8_t* ensure(size_t bytes) {
    if (bytes > cap) grow(bytes);
    return data;
  }
  void grow(size_t bytes);
  template <class T> T* as() { return reinterpret_cast<T*>(data); }
};

struct Frame;
struct Instr;
struct BlockPlan;
struct FunctionPlan;
using ExecFn = void (*)(const Instr&, Frame&);

/// One op of a plan.
struct Instr {
  ExecFn fn = nullptr;
  ir::Operation* op = nullptr;
  std::vector<int> in;   ///< operand slots
  std::vector<int> out;  ///< result slots
  int64_t count = 1;     ///< static element count of the (first) result
  int elemBytes = 0;     ///< bytes per element of the first result
  int64_t p[8] = {};     ///< op-specific integer parameters
  double d = 0;          ///< op-specific float parameter
  std::vector<int64_t> v;   ///< op-specific arrays (shapes, orders)
  std::vector<int64_t> v2;
  const void* aux = nullptr;  ///< op-specific table or function
  std::vector<std::unique_ptr<BlockPlan>> regions;
  const FunctionPlan* callee = nullptr;
  std::shared_ptr<void> owned;  ///< op-specific data aux points into
};

/// The instructions of one block.
struct BlockPlan {
  std::vector<Instr> instrs;
  std::vector<int> args;       ///< block argument slots
  std::vector<int> yields;     ///< terminator operand slots
  std::vector<int> yieldBytes; ///< element byte width per yielded value
  ir::Operation* terminator = nullptr;
  /// True when every op is elementwise on scalars (runs on lanes).
  bool laneSafe = true;
};

/// A compiled function.
struct FunctionPlan {
  std::string name;
  ir::Operation* func = nullptr;
  int numSlots = 0;
  std::vector<int> slotBytes;  ///< element bytes per slot (0 for block pointers)
  BlockPlan body;
  std::vector<int> results;  ///< tt.return operand slots
};

/// Allocations visible to one launch (sorted, immutable during the launch).
struct AllocationInfo {
  uint64_t base = 0;
  uint64_t end = 0;
  std::string name;
};

/// State shared by all threads of one launch.
struct LaunchState {
  std::string kernelName;
  int64_t grid[3] = {1, 1, 1};
  uint64_t loopLimit = 0;
  uint64_t interruptsAtStart = 0;  ///< interrupt()'s count when the launch began
  std::vector<AllocationInfo> allocations;
  /// Linear index of the lowest failing program so far (INT64_MAX: none).
  /// Programs after it stop; programs before it finish, so the reported
  /// error is deterministic: the one of the lowest failing program.
  std::atomic<int64_t> abortAt{INT64_MAX};
  std::mutex errorMutex;
  std::string error;  ///< what() of the error of program abortAt
  bool hasError = false;
};

/// Per-thread execution context.
struct ThreadContext {
  LaunchState* launch = nullptr;
  int64_t pid[3] = {0, 0, 0};
  int64_t program = 0;  ///< linear index of pid
  uint64_t loopIterations = 0;
  // Cache of the last allocation hit.
  uint64_t cacheBase = 1;
  uint64_t cacheEnd = 0;
  /// Scratch buffers for kernels (broadcast operands, reductions).
  std::vector<Slot> scratch;
  /// Frames of called functions, per plan and call depth.
  std::vector<std::pair<const FunctionPlan*, std::vector<std::unique_ptr<Frame>>>> callFrames;
  int callDepth = 0;

  uint8_t* scratchBuf(int i, size_t bytes) {
    if (scratch.size() <= static_cast<size_t>(i)) scratch.resize(i + 1);
    return scratch[i].ensure(bytes);
  }
};

/// The slots of one function invocation.
struct Frame {
  std::vector<Slot> slots;
  int64_t lanes = 1;
  ThreadContext* ctx = nullptr;

  Slot& s(int i) { return slots[i]; }
  /// Result buffer of `n` elements of `bytes` each.
  template <class T> T* out(int slot, int64_t n) {
    Slot& r = slots[slot];
    r.n = n;
    return reinterpret_cast<T*>(r.ensure(static_cast<size_t>(n) * sizeof(T) + 8));
  }
  /// Operand as `n` elements: a single-element value is broadcast into
  /// scratch buffer `scratchIndex`.
  template <class T> const T* in(int slot, int64_t n, int scratchIndex) {
    Slot& a = slots[slot];
    if (a.n == n || n <= 1) return a.as<T>();
    T value = a.as<T>()[0];
    T* buf = reinterpret_cast<T*>(ctx->scratchBuf(scratchIndex, static_cast<size_t>(n) * sizeof(T)));
    for (int64_t i = 0; i < n; ++i) buf[i] = value;
    return buf;
  }
};

//===----------------------------------------------------------------------===//
// Plan building (Plan.cpp) and per-area builders.
//===----------------------------------------------------------------------===//

/// Compiles functions of a module on demand.
class PlanCache {
 public:
  explicit PlanCache(const ir::Module& module) : module_(module) {}
  /// The plan of function `name` (compiled on first use). Throws Error if missing.
  const FunctionPlan& get(std::string_view name);

 private:
  const ir::Module& module_;
  std::vector<std::unique_ptr<FunctionPlan>> plans_;
  std::vector<std::string> inProgress_;
};

/// Context while building one function plan.
struct PlanBuilder {
  PlanCache* cache = nullptr;
  FunctionPlan* plan = nullptr;
  std::unordered_map<ir::ValueImpl*, int> slotOf;
  int slot(ir::Value v);
  int newSlot(ir::Value v);
  /// A slot no SSA value names (temporaries of control flow).
  int tempSlot(int bytes);
  void buildBlock(ir::Block& block, BlockPlan& out);
  std::unique_ptr<BlockPlan> buildRegion(ir::Region& region);
};

/// Element storage bytes of a scalar type (i1 -> 1, pointers -> 8, block pointers -> 0).
int storageBytes(ir::Type elementType);

// Builders: fill `instr.fn` and parameters for the ops of their area. Each
// returns false when the op is not theirs.
bool buildArith(ir::Operation* op, Instr& instr, PlanBuilder& b);
bool buildCast(ir::Operation* op, Instr& instr, PlanBuilder& b);
bool buildMath(ir::Operation* op, Instr& instr, PlanBuilder& b);
bool buildMemory(ir::Operation* op, Instr& instr, PlanBuilder& b);
bool buildTensorOp(ir::Operation* op, Instr& instr, PlanBuilder& b);
bool buildDot(ir::Operation* op, Instr& instr, PlanBuilder& b);
bool buildReduction(ir::Operation* op, Instr& instr, PlanBuilder& b);
bool buildControlFlow(ir::Operation* op, Instr& instr, PlanBuilder& b);
/// Plans the exits of control flow ops once their result slots exist.
void finishControlFlow(ir::Operation* op, Instr& instr, PlanBuilder& b);
bool buildDebug(ir::Operation* op, Instr& instr, PlanBuilder& b);
bool buildExtern(ir::Operation* op, Instr& instr, PlanBuilder& b);

//===----------------------------------------------------------------------===//
// Execution helpers (Interpreter.cpp)
//===----------------------------------------------------------------------===//

/// An identity (copy) kernel for `bytes`-wide elements (0 = block pointer).
ExecFn identityKernel(int bytes);

/// Runs the instructions of a block in `frame` (with the frame's current lanes).
inline void runBlock(const BlockPlan& plan, Frame& frame) {
  for (const Instr& in : plan.instrs) in.fn(in, frame);
}

/// Exchanges the storage of two slots.
inline void swapSlots(Slot& a, Slot& b) {
  std::swap(a.data, b.data);
  std::swap(a.cap, b.cap);
  std::swap(a.n, b.n);
  std::swap(a.bp, b.bp);
}

/// Copies slot `src` of one frame into slot `dst` of another (`bytes` per element).
inline void copyAcross(Slot& d, const Slot& s, int bytes) {
  if (bytes == 0) { d.bp = s.bp; d.n = s.n; return; }
  d.ensure(static_cast<size_t>(s.n) * bytes + 8);
  std::memcpy(d.data, s.data, static_cast<size_t>(s.n) * bytes);
  d.n = s.n;
}

/// Copies slot `src` into slot `dst` (`bytes` per element).
inline void copySlot(Frame& frame, int dst, int src, int bytes) {
  if (dst == src) return;
  Slot& d = frame.slots[dst];
  Slot& s = frame.slots[src];
  if (bytes == 0) { d.bp = s.bp; d.n = s.n; return; }
  d.ensure(static_cast<size_t>(s.n) * bytes + 8);
  std::memcpy(d.data, s.data, static_cast<size_t>(s.n) * bytes);
  d.n = s.n;
}

/// "<kernel>: <what> at file:line:col in program (x, y, z)<detail>" as a
/// tessera::Error with the source line and caret when the source is known.
[[noreturn]] void runtimeError(const Instr& instr, Frame& frame, const std::string& what,
                               const std::string& detail);
/// The same message as runtimeError's, as a warning on stderr, once per
/// kernel, source location, op and message in a process (the first program and
/// lane that met it).
void runtimeWarningOnce(const Instr& instr, Frame& frame, const std::string& what, const std::string& detail);
/// Formats an op's location as "file:line:col" ("<unknown>" when unknown).
std::string locationString(const ir::Operation* op);
/// An Error for a problem found while building the plan.
[[noreturn]] void planError(const ir::Operation* op, const std::string& message);

/// interrupt()'s count.
uint64_t interruptCount();
/// Counts loop iterations against the launch's limit and checks for abort
/// and interrupt().
void countLoopIteration(const Instr& instr, Frame& frame);

/// Runs a called function: binds args, runs, returns the result slots of the callee frame.
Frame& acquireCallFrame(ThreadContext& ctx, const FunctionPlan& plan);
void releaseCallFrame(ThreadContext& ctx);
/// Prepares a fresh frame for `plan`.
void initFrame(Frame& frame, const FunctionPlan& plan, ThreadContext* ctx);

/// Validates that [addr, addr + bytes) lies in one allocation; slow path of checkAccess.
bool findAllocation(ThreadContext& ctx, uint64_t addr, uint64_t bytes);
inline bool checkAccess(ThreadContext& ctx, uint64_t addr, uint64_t bytes) {
  if (addr >= ctx.cacheBase && addr + bytes <= ctx.cacheEnd && addr + bytes >= addr) return true;
  return findAllocation(ctx, addr, bytes);
}
/// Throws the out-of-bounds Error for an access of `kind` ("load", "store", "atomic").
[[noreturn]] void accessError(const Instr& instr, Frame& frame, const char* kind, uint64_t addr,
                              uint64_t bytes, int64_t lane);

/// Element `index` of an integer slot as int64 (sign-extended; i1 is 0/1).
int64_t readInt(Frame& frame, int slot, ir::Type type, int64_t index = 0);

}  // namespace tessera::interp
