//===- PrefetchLoads.cpp - Load the next K step while the dot runs ---------===//
//
// In a matmul loop each iteration loads tiles of A and B from global memory
// and feeds them to tt.dot. Emitted as written, the loads' latency (~1 µs
// from HBM) is paid in full every iteration: the dot cannot start before
// its operands arrive, and the next loads are not issued before the dot is
// done. With num_stages >= 2 this pass software-pipelines such loops by one
// stage, in registers: iteration i's tiles are loaded during iteration i-1.
// (Multi-stage shared-memory pipelines with cp.async / TMA are the next
// step; this is what they improve on.)
//
// Rewrites, for an scf.for whose body has a tt.dot and a tt.load whose
// result reaches the dot's A or B through elementwise ops, when the load's
// operands (pointer, mask, other) are computed in the body by pure ops from
// the induction variable, the iteration arguments and values from outside,
// and each iteration argument involved is yielded a value computed the
// same way:
//
//   * before the loop, the load of the first iteration, masked off when the
//     loop runs no iteration (lb < ub);
//   * the loaded tile becomes a new iteration argument; in the body the
//     dot's side reads it;
//   * at the top of the body, the load of the next iteration: its operands
//     recomputed from iv + step and from the values this iteration yields,
//     masked off past the end (iv + step < ub), so its latency overlaps the
//     dot; the new value is yielded.
//
// The original load and the ops only it used become dead (DCE).
//
// Not in the default pipeline (lowerToGpuIR): measured on the H100
// (2026-11-25, matmul 4096^3 fp16, wgmma), carrying the next tiles in
// registers lost in 7 of 9 tile configs, by up to 7x where it pushed the
// kernel into spills (128x128x64 on 4 warps: 0.54 ms without, 3.9 ms with),
// and won 15-18% only on 128x128 tiles with 8 warps. It stays a pass
// (tessera-opt --pass=prefetch-dot-operands) until the shared-memory
// pipeline (cp.async / TMA into multi-stage buffers) replaces it.
//
//===----------------------------------------------------------------------===//

#include <set>

#include "gpu/GpuPasses.h"
#include "gpu/LoopIterations.h"
#include "tessera/ir/Builder.h"

namespace tessera::gpu {

using namespace ir;

namespace {

/// True when `v` reaches operand 0 or 1 of a tt.dot of `body` through
/// elementwise ops.
bool feedsDot(Value v, Block& body, int depth = 0) {
  if (depth > 8) return false;
  for (OpOperand* use : v.uses()) {
    Operation* user = use->owner;
    if (user->block() != &body) continue;
    if (user->is(OpCode::Dot) && use->index < 2) return true;
    if (user->hasTrait(Elementwise) && user->hasTrait(Pure) && user->numResults() == 1 &&
        feedsDot(user->result(), body, depth + 1))
      return true;
  }
  return false;
}

class Prefetcher {
 public:
  explicit Prefetcher(Operation* loop) : loop_(loop), body_(loop->region(0).front()), iterations_(loop) {}

  void run() {
    std::vector<Operation*> loads;
    bool hasDot = false;
    for (Operation* op : body_.ops()) {
      hasDot = hasDot || op->is(OpCode::Dot);
      if (op->is(OpCode::Load) && op->operand(0).type().isTensor() && feedsDot(op->result(), body_))
        loads.push_back(op);
    }
    if (!hasDot) return;
    for (Operation* load : loads) {
      std::set<unsigned> args;
      if (iterations_.computable(load, args)) pipeline(load, args);
    }
  }

 private:
  Value recompute(Value v, IRMapping& m, OpBuilder& b) { return iterations_.recompute(v, m, b); }

  /// The load's clone for the iteration of `m`, masked by the scalar `active`.
  Value loadFor(Operation* load, IRMapping& m, Value active, OpBuilder& b) {
    Type t = load->result().type();
    Type maskType = Type::tensor(t.shape(), Type::i1());
    Value guard = b.create(OpCode::Splat, {maskType}, {active})->result();
    std::vector<Value> operands = {recompute(load->operand(0), m, b)};
    if (load->numOperands() > 1) {
      Value mask = recompute(load->operand(1), m, b);
      operands.push_back(b.create(OpCode::AndI, {maskType}, {mask, guard})->result());
      for (unsigned i = 2; i < load->numOperands(); ++i) operands.push_back(recompute(load->operand(i), m, b));
    } else {
      operands.push_back(guard);
    }
    return b.create(OpCode::Load, {t}, operands, load->attrs())->result();
  }

  Value lessThan(OpBuilder& b, Value x, Value bound) {
    return b.create(OpCode::CmpI, {Type::i1()}, {x, bound}, {{"predicate", std::string("slt")}})->result();
  }

  void pipeline(Operation* load, const std::set<unsigned>& args) {
    Value lb = loop_->operand(0), ub = loop_->operand(1);
    Operation* yield = body_.terminator();
    OpBuilder b;
    b.setLoc(load->loc());

    // The first iteration's tile, before the loop.
    b.setInsertionPoint(loop_);
    IRMapping first = iterations_.fromStart(0, args, b);
    Value initial = loadFor(load, first, lessThan(b, lb, ub), b);

    // The next iteration's tile, at the top of the body (after the loads
    // prefetched before it, so they stay in program order).
    if (lastPrefetch_) b.setInsertionPointAfter(lastPrefetch_);
    else b.setInsertionPointToStart(&body_);
    IRMapping next = iterations_.ahead(1, args, b);
    Value nextIv = next.lookupOrDefault(body_.argument(0));
    Value prefetched = loadFor(load, next, lessThan(b, nextIv, ub), b);
    lastPrefetch_ = prefetched.definingOp();

    // Carry it.
    std::vector<Value> operands = loop_->operands();
    operands.push_back(initial);
    loop_->setOperands(operands);
    Value carried = body_.addArgument(load->result().type());
    loop_->appendResult(load->result().type());
    load->result().replaceAllUsesWith(carried);
    std::vector<Value> yielded = yield->operands();
    yielded.push_back(prefetched);
    yield->setOperands(yielded);
    load->erase();
  }

  Operation* loop_;
  Block& body_;
  LoopIterations iterations_;
  Operation* lastPrefetch_ = nullptr;
};

}  // namespace

void prefetchDotOperands(Operation* func) {
  std::vector<Operation*> loops;
  func->walk([&](Operation* op) {
    if (op->is(OpCode::For)) loops.push_back(op);
  });
  for (Operation* loop : loops) Prefetcher(loop).run();
}

}  // namespace tessera::gpu
