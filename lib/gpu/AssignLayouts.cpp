//===- AssignLayouts.cpp - Give every tensor of a kernel an encoding -------===//
//
// Tile IR -> Tile GPU IR. Every tensor value gets an encoding (Encoding.h);
// where an op needs an operand in another encoding than the one it has, a
// ttg.convert_layout is inserted. The choices:
//
//  * One blocked encoding per tensor rank (P_r), taken from the rank's
//    largest global-memory access and made coalesced from axis info: order
//    by contiguity, and as many contiguous elements per thread as alignment
//    allows up to 16 bytes (Triton's coalesce rule). Blocked encodings are
//    shape-independent, so every tensor of that rank shares P_r and
//    broadcasting between them stays inside each thread. Except loads that
//    only feed a tensor-core dot's A or B: they get the coalesced layout of
//    their own pointers (the tile goes to shared memory anyway). And
//    accesses of rank 2 or more whose addresses run fastest along another
//    dimension than P_r does (a transposed view next to a row-major
//    output): a load gets its own coalesced layout and its users convert;
//    a store converts its operands to its own; the conversion goes through
//    shared memory once, where the rank's layout would make every access
//    a row apart per thread.
//  * Ops that change rank keep data in place: reduce gives slice(P, axis);
//    expand_dims of slice(P, axis) gives P; trans/reshape/join give the
//    linear layout of the same registers seen through the new shape.
//  * Multi-operand ops (elementwise, memory ops) take the encoding of their
//    first operand that is not cheap to recompute (a load, a reduction, a
//    loop-carried value); cheap operands (ranges, splats, index arithmetic)
//    are converted, and rematerializeConversions later rebuilds them
//    directly in that layout, so the convert disappears.
//  * Loop-carried values keep the init's encoding; yields are converted.
//    Except accumulators: a loop-carried value that a tt.dot yields takes
//    the dot's result encoding from the start (its init is converted once,
//    before the loop), so an mma accumulator stays in registers.
//  * tt.dot: operands, accumulator and result as DotEncodings.cpp says
//    (wgmma: A and B copied to shared memory by ttg.local_alloc with
//    #ttg.nvmma_shared; mma.sync encodings; or FMA layouts around the
//    accumulator's).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <map>

#include "gpu/GpuPasses.h"
#include "tessera/ir/OpViews.h"
#include "tessera/Error.h"
#include "tessera/gpu/AxisInfo.h"
#include "tessera/gpu/LinearLayout.h"
#include "tessera/ir/Builder.h"

namespace tessera::gpu {

using namespace ir;

bool isRematerializable(const Operation* op) {
  if (!op || op->numRegions() != 0) return false;
  switch (op->code()) {
    case OpCode::Constant: case OpCode::MakeRange: case OpCode::Splat: case OpCode::ExpandDims:
    case OpCode::Broadcast: case OpCode::GetProgramId: case OpCode::GetNumPrograms:
      return true;
    case OpCode::ExternElementwise: case OpCode::InlineAsm:
      return false;
    default:
      return hasTrait(op->code(), Elementwise) && hasTrait(op->code(), Pure);
  }
}

namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t x : v) n *= x;
  return n;
}

class LayoutAssigner {
 public:
  LayoutAssigner(Operation* func, int numWarps, const Target& target)
      : func_(func), numWarps_(numWarps), target_(target), axis_(func) {}

  void run() {
    chooseRankLayouts();
    assignBlock(funcBody(func_));
  }

 private:
  //===--------------------------------------------------------------------===//
  // P_r: one coalesced blocked encoding per rank
  //===--------------------------------------------------------------------===//

  void chooseRankLayouts() {
    std::map<int, std::pair<int64_t, Encoding>> best;  // rank -> (numel, encoding)
    std::map<int, std::vector<int64_t>> largestShape;
    func_->walk([&](Operation* op) {
      for (Value r : op->results()) {
        Type t = r.type();
        if (!t.isTensor()) continue;
        auto& s = largestShape[static_cast<int>(t.rank())];
        if (product(t.shape()) > product(s)) s = t.shape();
      }
      bool memory = op->is(OpCode::Load) || op->is(OpCode::Store) || op->is(OpCode::AtomicRMW) ||
                    op->is(OpCode::AtomicCAS);
      if (!memory || op->numOperands() == 0) return;
      Value ptr = op->operand(0);
      if (!ptr.type().isTensor()) return;
      const std::vector<int64_t>& shape = ptr.type().shape();
      int rank = static_cast<int>(shape.size());
      int64_t numel = product(shape);
      auto it = best.find(rank);
      if (it != best.end() && it->second.first >= numel) return;
      best[rank] = {numel, coalescedEncoding(ptr)};
    });
    for (auto& [rank, entry] : best) rankLayouts_[rank] = entry.second;
    for (auto& [rank, shape] : largestShape)
      if (!rankLayouts_.count(rank)) rankLayouts_[rank] = defaultBlockedEncoding(shape, numWarps_, 1);
  }

  Encoding coalescedEncoding(Value ptr) {
    Type t = ptr.type();
    const std::vector<int64_t>& shape = t.shape();
    int rank = static_cast<int>(shape.size());
    const AxisInfo& info = axis_.get(ptr);
    std::vector<int64_t> order(rank);
    for (int i = 0; i < rank; ++i) order[i] = rank - 1 - i;
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return info.contiguity[a] > info.contiguity[b]; });
    int64_t elemBytes = t.elementType().pointeeType().byteWidth();
    int64_t vec = std::min<int64_t>(axis_.vectorElements(ptr, static_cast<int>(order[0])),
                                    std::max<int64_t>(1, 16 / elemBytes));
    int64_t threads = 32 * int64_t{numWarps_};
    vec = std::max<int64_t>(1, std::min(vec, std::max<int64_t>(1, product(shape) / threads)));
    return defaultBlockedEncoding(shape, numWarps_, vec, order);
  }

  Encoding rankLayout(const std::vector<int64_t>& shape) {
    int rank = static_cast<int>(shape.size());
    Encoding& e = rankLayouts_[rank];
    if (!e) e = defaultBlockedEncoding(shape, numWarps_, 1);
    return e;
  }

  //===--------------------------------------------------------------------===//
  // Helpers
  //===--------------------------------------------------------------------===//

  static Encoding enc(Value v) { return v.type().encoding(); }

  /// Cheap to rebuild in another layout: ranges, splats, constants and
  /// elementwise arithmetic over them (memoized).
  bool isCheap(Value v, int depth = 0) {
    Operation* def = v.definingOp();
    if (!def || depth > 16 || !isRematerializable(def)) return false;
    auto it = cheap_.find(v.impl());
    if (it != cheap_.end()) return it->second;
    bool ok = true;
    for (Value o : def->operands())
      if (o.type().isTensor() && !isCheap(o, depth + 1)) ok = false;
    cheap_[v.impl()] = ok;
    return ok;
  }

  Value convert(Value v, Encoding target, Operation* before) {
    if (!v.type().isTensor() || enc(v) == target) return v;
    OpBuilder b;
    b.setInsertionPoint(before);
    b.setLoc(before->loc());
    return b.create(OpCode::ConvertLayout, {v.type().withEncoding(target)}, {v})->result();
  }

  void convertOperand(Operation* op, unsigned i, Encoding target) {
    Value v = op->operand(i);
    if (v.type().isTensor() && enc(v) != target) op->setOperand(i, convert(v, target, op));
  }

  /// The encoding a multi-operand op works in (see the file comment).
  Encoding dominant(Operation* op, unsigned first = 0, unsigned last = ~0u) {
    Encoding fallback;
    for (unsigned i = first; i < op->numOperands() && i < last; ++i) {
      Value v = op->operand(i);
      if (!v.type().isTensor()) continue;
      if (!fallback) fallback = enc(v);
      if (!isCheap(v)) return enc(v);
    }
    return fallback;
  }

  void setResults(Operation* op, Encoding e) {
    for (Value r : op->results())
      if (r.type().isTensor()) r.setType(r.type().withEncoding(e));
  }

  void unify(Operation* op, unsigned first = 0, unsigned last = ~0u) {
    Encoding e = dominant(op, first, last);
    if (!e) {
      for (Value r : op->results())
        if (r.type().isTensor()) e = rankLayout(r.type().shape());
      if (!e) return;
    }
    for (unsigned i = first; i < op->numOperands() && i < last; ++i) convertOperand(op, i, e);
    setResults(op, e);
  }

  Encoding linearOf(const LinearLayout& ll) { return ll.toEncoding(); }

  //===--------------------------------------------------------------------===//
  // The walk
  //===--------------------------------------------------------------------===//

  void assignBlock(Block& block) {
    for (Operation* op : block.ops()) assignOp(op);
  }

  void assignOp(Operation* op) {
    switch (op->code()) {
      case OpCode::For: return assignFor(op);
      case OpCode::If: return assignIf(op);
      case OpCode::While: return assignWhile(op);
      case OpCode::Reduce: case OpCode::Scan: return assignCombine(op);
      case OpCode::Dot: return assignDot(op);
      case OpCode::Call:
        throw Error(location(op) + "the GPU backend could not inline the call to '" + op->strAttr("callee") +
                    "' (a function with an early return?)");
      case OpCode::Constant: case OpCode::MakeRange: case OpCode::Splat: case OpCode::Histogram:
        for (Value r : op->results())
          if (r.type().isTensor()) r.setType(r.type().withEncoding(rankLayout(r.type().shape())));
        if (op->is(OpCode::Histogram) && op->numOperands() > 1) convertOperand(op, 1, enc(op->operand(0)));
        return;
      case OpCode::Load:
        if (!op->operand(0).type().isTensor()) {  // block pointer
          setResults(op, rankLayout(op->result().type().shape()));
          return;
        }
        if (feedsTensorCoreDot(op) || crossesRankOrder(op)) return assignOwnCoalesced(op);
        return unify(op);
      case OpCode::DescriptorLoad:  // read from shared memory: any layout
        setResults(op, rankLayout(op->result().type().shape()));
        return;
      case OpCode::Store:
        if (!op->operand(0).type().isTensor()) return;  // block pointer: any layout
        unify(op);
        if (crossesStoreOrder(op)) {
          // Stored in the coalesced layout of its own pointers: the data is
          // converted (through shared memory), the index chains rebuilt.
          Encoding e = coalescedEncoding(op->operand(0));
          for (unsigned i = 0; i < op->numOperands(); ++i) convertOperand(op, i, e);
        }
        return;
      case OpCode::ExpandDims: return assignExpandDims(op);
      case OpCode::Broadcast:
        // Linear encodings describe one shape; a broadcast result gets the
        // rank's blocked layout (the emitter moves data if needed).
        setResults(op, enc(op->operand(0)).isLinear() ? rankLayout(op->result().type().shape()) : enc(op->operand(0)));
        return;
      case OpCode::Sort: case OpCode::Flip: case OpCode::Hint:
        setResults(op, enc(op->operand(0)));
        return;
      case OpCode::Trans: {
        Value x = op->operand(0);
        LinearLayout ll = toLinearLayout(x.type().shape(), enc(x)).transposedOuts(op->intArrayAttr("order"));
        setResults(op, linearOf(ll));
        return;
      }
      case OpCode::Reshape: {
        Value x = op->operand(0);
        LinearLayout ll = toLinearLayout(x.type().shape(), enc(x)).reshapedOuts(op->result().type().shape());
        setResults(op, linearOf(ll));
        return;
      }
      case OpCode::Join: return assignJoin(op);
      case OpCode::Split: return assignSplit(op);
      case OpCode::Cat: return assignCat(op);
      case OpCode::Gather:
        setResults(op, enc(op->operand(1)));
        return;
      case OpCode::Print: case OpCode::Assert: case OpCode::Return: case OpCode::Yield:
      case OpCode::Condition: case OpCode::ReduceReturn: case OpCode::ScanReturn:
        return;
      default:
        if (op->numResults() == 0 && op->numOperands() == 0) return;
        return unify(op);
    }
  }

  static std::string location(Operation* op) {
    Location l = op->loc();
    if (!l.known()) return "";
    return *l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": error: ";
  }

  void assignExpandDims(Operation* op) {
    Value x = op->operand(0);
    int64_t axis = op->intAttr("axis");
    Encoding e = enc(x);
    Encoding parent;
    if (e.isSlice() && e.sliceDim() == axis) {
      parent = e.parent();
    } else if (e.isLinear()) {
      parent = rankLayout(op->result().type().shape());
      convertOperand(op, 0, Encoding::slice(axis, parent));
    } else {
      parent = rankLayout(op->result().type().shape());
      convertOperand(op, 0, Encoding::slice(axis, parent));
    }
    setResults(op, parent);
  }

  /// A load whose only use is operand A or B of a tensor-core dot: its
  /// tile goes to shared memory (wgmma's copy, or the mma.sync operand
  /// convert), so its register layout matters only for the load itself.
  bool feedsTensorCoreDot(Operation* load) {
    Value r = load->result();
    if (!r.hasOneUse()) return false;
    OpOperand* use = r.uses().front();
    Operation* dot = use->owner;
    if (!dot->is(OpCode::Dot) || use->index > 1) return false;
    return dotUsesWgmma(dot, target_, numWarps_) || dotUsesMmaV2(dot, target_.capability);
  }

  /// The load in the coalesced layout of its own pointers (Triton's
  /// coalesce rule per access) rather than the rank's: a 16-bit operand
  /// tile of a kernel that stores fp32 gets 16-byte vectors, not the 8 bytes
  /// the store's 4-element vectors would give it (and cp.async copies them
  /// 16 bytes at a time). Pointer, mask and other are converted (cheap index
  /// chains, rebuilt in place by rematerializeConversions).
  void assignOwnCoalesced(Operation* load) {
    Encoding e = coalescedEncoding(load->operand(0));
    for (unsigned i = 0; i < load->numOperands(); ++i) convertOperand(load, i, e);
    setResults(load, e);
  }

  /// The most contiguous dimension of `ptr`'s addresses, when it is one
  /// (contiguity above 1 along it, more than along any other); -1 otherwise.
  int fastestDim(Value ptr) {
    const AxisInfo& info = axis_.get(ptr);
    int rank = static_cast<int>(info.contiguity.size()), best = -1;
    for (int d = 0; d < rank; ++d) {
      if (info.contiguity[d] <= 1) continue;
      if (best < 0 || info.contiguity[d] > info.contiguity[best]) best = d;
      else if (info.contiguity[d] == info.contiguity[best]) return -1;
    }
    return best;
  }

  /// A load of rank 2 or more whose addresses run fastest along another
  /// dimension than the rank's layout does (a transposed view next to a
  /// row-major output): in the rank's layout each thread's elements would
  /// be a row apart, so it gets the coalesced layout of its own pointers and
  /// its users convert (Triton's coalesce rule, per access).
  bool crossesRankOrder(Operation* load) {
    Value ptr = load->operand(0);
    Type t = ptr.type();
    if (t.rank() < 2) return false;
    int fast = fastestDim(ptr);
    if (fast < 0) return false;
    Encoding rank = rankLayout(t.shape());
    return rank.isBlocked() && rank.order()[0] != fast;
  }

  /// The same for a store, after unify(): its data's layout runs along
  /// another dimension than its addresses do.
  bool crossesStoreOrder(Operation* store) {
    Value ptr = store->operand(0);
    if (ptr.type().rank() < 2) return false;
    int fast = fastestDim(ptr);
    if (fast < 0) return false;
    Encoding e = enc(ptr);
    return e.isBlocked() && e.order()[0] != fast;
  }

  /// A 2-D load whose pointers are contiguous along dim 0 (K^T tiles), or
  /// the transpose of a 2-D descriptor load (rows contiguous in memory).
  bool contiguousAlongDim0(Value x) {
    Operation* load = x.definingOp();
    if (load && load->is(OpCode::Trans) && x.type().rank() == 2) {
      Operation* source = load->operand(0).definingOp();
      return source && source->is(OpCode::DescriptorLoad);
    }
    if (!load || !load->is(OpCode::Load) || !load->operand(0).type().isTensor() || x.type().rank() != 2) return false;
    Value ptr = load->operand(0);
    while (ptr.definingOp() && ptr.definingOp()->is(OpCode::ConvertLayout)) ptr = ptr.definingOp()->operand(0);
    const AxisInfo& info = axis_.get(ptr);
    return info.contiguity[0] > 1 && info.contiguity[0] > info.contiguity[1];
  }

  /// The encoding a dot's result (and accumulator) gets.
  Encoding dotResultEncoding(Operation* dot) {
    const std::vector<int64_t>& shape = dot->result().type().shape();
    if (dotUsesWgmma(dot, target_, numWarps_)) return wgmmaEncoding(shape, numWarps_);
    if (dotUsesMmaV2(dot, target_.capability)) return mmaV2Encoding(shape, numWarps_);
    Encoding acc = enc(dot->operand(2));
    return acc && acc.isBlocked() ? acc : rankLayout(shape);
  }

  void assignDot(Operation* op) {
    Encoding result = dotResultEncoding(op);
    const std::vector<int64_t>& aShape = op->operand(0).type().shape();
    int64_t k = aShape.back();
    if (result.isNvidiaMma() && result.versionMajor() == 3) {
      // wgmma reads A and B from shared memory: copies in the layouts its
      // descriptors describe. Dim 1 contiguous (A K-major, B N-major), or
      // dim 0 (transposed: A M-major, B K-major) when the operand is a load
      // whose memory runs along dim 0, so the copy needs no transpose (and
      // the pipeliner can copy it with cp.async as it lies). fp8 wgmma
      // reads only K-major tiles (A as it is, B transposed): a tile lying
      // the other way is transposed by its register copy.
      bool fp8 = isWgmmaFp8(op->operand(0).type().elementType().kind());
      for (unsigned i = 0; i < 2; ++i) {
        Value x = op->operand(i);
        bool transposed = fp8 ? i == 1 : contiguousAlongDim0(x);
        int64_t rowBytes = x.type().shape()[transposed ? 0 : 1] * x.type().elementType().bitWidth() / 8;
        Encoding shared = Encoding::nvmmaShared(std::min<int64_t>(128, rowBytes), transposed,
                                                x.type().elementType().bitWidth());
        OpBuilder b;
        b.setInsertionPoint(op);
        b.setLoc(op->loc());
        op->setOperand(i, b.create(OpCode::LocalAlloc, {x.type().withEncoding(shared)}, {x})->result());
      }
    } else if (result.isNvidiaMma()) {
      int64_t kWidth = mmaV2KWidth(op->operand(0).type().elementType());
      convertOperand(op, 0, Encoding::dotOperand(0, result, kWidth));
      convertOperand(op, 1, Encoding::dotOperand(1, result, kWidth));
    } else {
      LinearLayout r = toLinearLayout(op->result().type().shape(), result);
      convertOperand(op, 0, linearOf(fmaOperandLayout(r, 0, k)));
      convertOperand(op, 1, linearOf(fmaOperandLayout(r, 1, k)));
    }
    convertOperand(op, 2, result);
    setResults(op, result);
  }

  void assignCombine(Operation* op) {
    Encoding e = dominant(op);
    // Reductions need each hardware basis to move along one dim only:
    // blocked and slice layouts do; reshaped/transposed linear ones may not.
    if (e && e.isLinear()) e = rankLayout(op->operand(0).type().shape());
    for (unsigned i = 0; i < op->numOperands(); ++i) convertOperand(op, i, e);
    if (op->is(OpCode::Scan)) return setResults(op, e);
    int64_t axis = op->intAttr("axis");
    setResults(op, Encoding::slice(axis, e));
  }

  void assignJoin(Operation* op) {
    Value a = op->operand(0);
    convertOperand(op, 1, enc(a));
    LinearLayout la = toLinearLayout(a.type().shape(), enc(a));
    int rank = la.rank();
    LinearLayout::Bases bases = la.insertedOutDim(rank).bases();
    std::vector<int64_t> basis(rank + 1, 0);
    basis[rank] = 1;
    bases[static_cast<int>(HwDim::Register)].push_back(basis);
    std::vector<int64_t> sizes = la.outDimSizes();
    sizes.push_back(2);
    setResults(op, linearOf(LinearLayout(bases, sizes)));
  }

  /// Split needs the size-2 last dim in registers: the two halves are then
  /// two register sets of the same threads.
  void assignSplit(Operation* op) {
    Value x = op->operand(0);
    int rank = static_cast<int>(x.type().rank());
    auto registerBasisOfLast = [&](const LinearLayout& ll) {
      const auto& regs = ll.bases(HwDim::Register);
      for (size_t i = 0; i < regs.size(); ++i) {
        bool unit = regs[i][rank - 1] == 1;
        for (int d = 0; d < rank - 1; ++d) unit = unit && regs[i][d] == 0;
        if (unit) return static_cast<int>(i);
      }
      return -1;
    };
    LinearLayout ll = toLinearLayout(x.type().shape(), enc(x));
    int basis = registerBasisOfLast(ll);
    bool othersClean = true;
    for (int d = 1; d < kNumHwDims; ++d)
      for (const auto& b : ll.bases(static_cast<HwDim>(d))) othersClean = othersClean && b[rank - 1] == 0;
    if (basis < 0 || !othersClean) {
      // Rebuild x as join(P_{r-1}): the last dim becomes the top register bit.
      std::vector<int64_t> half(x.type().shape().begin(), x.type().shape().end() - 1);
      LinearLayout h = toLinearLayout(half, rankLayout(half));
      LinearLayout::Bases bases = h.insertedOutDim(rank - 1).bases();
      std::vector<int64_t> b(rank, 0);
      b[rank - 1] = 1;
      bases[static_cast<int>(HwDim::Register)].push_back(b);
      ll = LinearLayout(bases, x.type().shape());
      convertOperand(op, 0, linearOf(ll));
      basis = registerBasisOfLast(ll);
    }
    LinearLayout::Bases bases = ll.bases();
    auto& regs = bases[static_cast<int>(HwDim::Register)];
    regs.erase(regs.begin() + basis);
    std::vector<int64_t> sizes = ll.outDimSizes();
    LinearLayout withoutBit(bases, sizes);
    setResults(op, linearOf(withoutBit.droppedOutDim(rank - 1)));
  }

  void assignCat(Operation* op) {
    Value a = op->operand(0);
    convertOperand(op, 1, enc(a));
    LinearLayout la = toLinearLayout(a.type().shape(), enc(a));
    LinearLayout::Bases bases = la.bases();
    bases[static_cast<int>(HwDim::Register)].push_back({a.type().shape()[0]});
    setResults(op, linearOf(LinearLayout(bases, {a.type().shape()[0] * 2})));
  }

  void assignFor(Operation* op) {
    Block& body = op->region(0).front();
    // Accumulators: iter args that a dot yields start in the dot's encoding.
    Operation* terminator = body.terminator();
    ForOp loop(op);
    for (unsigned i = 0; terminator && i < terminator->numOperands() && i < loop.numIterArgs(); ++i) {
      std::optional<DotOp> dot = definingAs<DotOp>(loop.yielded(i));
      if (dot && dot->op()->block() == &body && dot->acc() == loop.iterArg(i))
        convertOperand(op, 3 + i, dotResultEncoding(dot->op()));  // operand 3 + i: init(i)
    }
    for (size_t i = 0; i < loop.numIterArgs(); ++i) loop.iterArg(i).setType(loop.init(i).type());
    assignBlock(body);
    Operation* yield = body.terminator();
    for (unsigned i = 0; i < yield->numOperands(); ++i) {
      Type want = loop.iterArg(i).type();
      if (want.isTensor()) yield->setOperand(i, convert(yield->operand(i), want.encoding(), yield));
      op->result(i).setType(want);
    }
  }

  void assignIf(Operation* op) {
    if (op->region(0).empty()) return;
    assignBlock(op->region(0).front());
    Operation* thenYield = op->region(0).front().terminator();
    for (unsigned i = 0; i < op->numResults() && thenYield; ++i) op->result(i).setType(thenYield->operand(i).type());
    if (op->numRegions() > 1 && !op->region(1).empty()) {
      assignBlock(op->region(1).front());
      Operation* elseYield = op->region(1).front().terminator();
      for (unsigned i = 0; i < op->numResults() && elseYield; ++i) {
        Type want = op->result(i).type();
        if (want.isTensor())
          elseYield->setOperand(i, convert(elseYield->operand(i), want.encoding(), elseYield));
      }
    }
  }

  void assignWhile(Operation* op) {
    Block& before = op->region(0).front();
    for (unsigned i = 0; i < op->numOperands(); ++i) before.argument(i).setType(op->operand(i).type());
    assignBlock(before);
    Operation* cond = before.terminator();
    Block& after = op->region(1).front();
    for (unsigned i = 1; i < cond->numOperands(); ++i) {
      after.argument(i - 1).setType(cond->operand(i).type());
      op->result(i - 1).setType(cond->operand(i).type());
    }
    assignBlock(after);
    Operation* yield = after.terminator();
    for (unsigned i = 0; i < yield->numOperands(); ++i) {
      Type want = before.argument(i).type();
      if (want.isTensor()) yield->setOperand(i, convert(yield->operand(i), want.encoding(), yield));
    }
  }

  Operation* func_;
  int numWarps_;
  Target target_;
  AxisInfoAnalysis axis_;
  std::map<int, Encoding> rankLayouts_;
  std::map<ValueImpl*, bool> cheap_;
};

}  // namespace

void assignLayouts(Operation* func, int numWarps, const Target& target) {
  LayoutAssigner(func, numWarps, target).run();
}

}  // namespace tessera::gpu
