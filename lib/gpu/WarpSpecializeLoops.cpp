//===- WarpSpecializeLoops.cpp - A producer warpgroup for a TMA pipeline ---===//
//
// Rewrites: a TMA-only loop of the kernel's entry block, at 4 or 8 warps,
//   after no global write, that runs two or more wgmma dots (or whose
//   tl.range asks, warp_specialize=True; False refuses; with
//   pipeline-dot-loops{auto-warp-specialize=0}, TESSERA_WARP_SPECIALIZE=0,
//   only loops that ask), gets a producer
//   warpgroup (ttng.warp_specialize) instead of copying its own tiles. Its
//   stages and two sets of mbarriers move to the kernel's start: "full" (as
//   in PipelineLoops.cpp) and "empty" (ttng.init_barriers {count =
//   num_warps}). The producer's region runs every iteration: wait until
//   stage w is empty (a parity that starts at 1, so the first lap does not
//   wait, and flips when w wraps), arm its full barrier, copy. The kernel's
//   own warps only wait for the full barrier of the stage they read and, at
//   the end of the body, arrive on the empty barrier (ttng.arrive_barrier,
//   lane 0 of each warp) of the stage they are done with: this iteration's,
//   or the previous one's when a dot reading it is asynchronous or deferred
//   (its wait is in this iteration), that last one after the loop. A later
//   loop that stages the same tiles (the causal attention's masked diagonal
//   block) goes on in the same ring. Such loops may also sit in the body of
//   a persistent loop of the entry block: stages and barriers are still
//   made at the kernel's start, the producer runs its own copy of the
//   persistent loop around its loops, and both sides carry the ring (stage,
//   parity) through it.
// Expects: LoopPipeliner's decisions (PipelineSchedule.cpp); values the
//   region uses that WarpSpecialize.h's producerCanCompute accepts.
// Guarantees: no barrier of all warps is left in the loop (so the two
//   consumer warpgroups of head_dim 128 can take turns at the dots,
//   PingPong.cpp); the producer runs ahead of the body's stores only when
//   they go through other pointer arguments than the copies' descriptors,
//   as Triton's pipeliner assumes; descriptors made in a persistent loop
//   must be ones the launch encodes (the pipeliner tags them host_encoded,
//   encode-host-tensormaps checks), so none is rewritten under copies in
//   flight.
// Why: the consumers' softmax between attention's dots is what the
//   producer takes the copies off (docs/decisions.md has the measurements;
//   a matmul loop measured 0.93-1.04x, so one dot does not ask for it).
//
//===----------------------------------------------------------------------===//

#include "gpu/HostTensorMaps.h"
#include "gpu/LoopPipeliner.h"
#include "gpu/WarpSpecialize.h"
#include "tessera/Error.h"
#include "tessera/ir/OpViews.h"

namespace tessera::gpu::pipeliner {

/// Whether a producer warpgroup can copy this loop's tiles: the loop is
/// in the kernel's entry block (the producer runs it once, from the
/// start) or in the body of a persistent loop there (the producer runs
/// its own copy of that loop), the kernel's warps are whole warpgroups,
/// and the producer can compute the loop's bounds and every value the
/// copies' coordinates and descriptors are computed from
/// (WarpSpecialize.h).
bool LoopPipeliner::producerCanRun(const std::vector<Staged>& staged, const std::set<unsigned>& args) {
  Operation* parent = loop_->parentOp();
  // Whole consumer warpgroups, one or two (WarpSpecialize.h's register
  // budgets; 32 warps plus the producer would not launch).
  if (!parent || !(parent->is(OpCode::Func) || outer_) || (numWarps() != 4 && numWarps() != 8)) return false;
  // The producer copies from the kernel's start, ahead of what the
  // kernel's warps do before the loop: nothing there may write global
  // memory the copies could read, or wait for another program's writes.
  Operation* top = outer_ ? outer_ : loop_;
  for (Operation* op = top->block()->front(); op != top; op = op->nextOp())
    if (orderedAccess(op, {})) return false;
  if (outer_ && !persistentLoopAllows(staged)) return false;
  ForOp loop(loop_);
  std::vector<Value> needs = {loop.lowerBound(), loop.upperBound(), loop.step()};
  std::set<Operation*> inBody;
  for (unsigned i : args) {  // block argument i > 0 is iteration argument i - 1
    if (i == 0) continue;
    needs.push_back(loop.init(i - 1));
    outsideValues(loop.yielded(i - 1), needs, inBody);
  }
  for (const Staged& s : staged)
    for (Value v : s.load->operands()) outsideValues(v, needs, inBody);
  if (outer_) needs.insert(needs.end(), {outer_->operand(0), outer_->operand(1), outer_->operand(2)});
  std::set<Operation*> seen;
  for (Value v : needs)
    if (!producerCanCompute(v, seen, outer_)) return false;
  return true;
}

/// Whether `op` (or an op in it) writes global memory, other than
/// stores through pointers based on kernel arguments outside `copied`,
/// or waits for another program's writes.
bool LoopPipeliner::orderedAccess(Operation* op, const std::set<int>& copied) {
  bool ordered = false;
  op->walk([&](Operation* inner) {
    if (inner->is(OpCode::Store)) {
      int arg = pointerArgumentIndex(inner->operand(0));
      ordered = ordered || copied.empty() || arg < 0 || copied.count(arg);
      return;
    }
    ordered = ordered || inner->is(OpCode::AtomicRMW) || inner->is(OpCode::AtomicCAS) ||
              inner->is(OpCode::Call) || inner->is(OpCode::While) ||
              (inner->is(OpCode::Load) && inner->boolAttr("volatile"));
  });
  return ordered;
}

/// The producer of a persistent loop copies the next tile's blocks while
/// the kernel's warps finish this one, stores included. Like Triton's
/// pipeliner, this takes stores through other pointer arguments than the
/// copies' to write other memory; a store through the same argument (or
/// one of unknown base) keeps the producer out. Its descriptors must be
/// ones the launch encodes: a descriptor the kernel rewrote in memory for
/// the next tile could change under copies still in flight.
bool LoopPipeliner::persistentLoopAllows(const std::vector<Staged>& staged) {
  std::set<int> copied;
  for (const Staged& s : staged) {
    Operation* create = s.load->operand(0).definingOp();
    Value outer;
    if (!create || !create->is(OpCode::TensormapCreate) || (outer_->isAncestorOf(create) && !hostTensorMapOf(create, outer)))
      return false;
    int arg = pointerArgumentIndex(create->operand(0));
    if (arg < 0) return false;
    copied.insert(arg);
  }
  for (Operation* op : outer_->region(0).front().ops())
    if (orderedAccess(op, copied)) return false;
  return true;
}

/// tma-descriptor-loads fenced the loop's copies after the previous
/// tile's stores (fence.proxy.async.global); the producer's thread issues
/// them now, which a fence on the kernel's warps does not order, and
/// persistentLoopAllows took those stores to write other memory: the
/// fence goes.
void LoopPipeliner::dropConsumerFence() {
  // Not while the kernel's warps still copy with TMA themselves (a
  // descriptor load left unstaged goes through scratch in the body).
  bool ownCopies = false;
  loop_->walk([&](Operation* op) { ownCopies = ownCopies || op->is(OpCode::DescriptorLoad); });
  if (ownCopies) return;
  for (Operation* op = loop_->prevOp(); op && !op->is(OpCode::For) && !op->is(OpCode::Store); op = op->prevOp())
    if (op->is(OpCode::FenceAsyncGlobal)) {
      op->erase();
      return;
    }
}

/// The scf.for of the kernel's entry block whose body holds `loop`
/// directly (a persistent loop over tiles), or null.
Operation* LoopPipeliner::persistentLoop(Operation* loop) {
  Operation* parent = loop->parentOp();
  if (!parent || !parent->is(OpCode::For)) return nullptr;
  Operation* grand = parent->parentOp();
  return grand && grand->is(OpCode::Func) ? parent : nullptr;
}

/// `loop` carries two more i32 values, starting at `init0` and `init1`
/// (values before it); returns them as its body sees them. Its yield
/// passes them on unchanged until yieldLast says otherwise.
std::pair<Value, Value> LoopPipeliner::carryThrough(Operation* loop, Value init0, Value init1) {
  std::vector<Value> operands = loop->operands();
  operands.push_back(init0);
  operands.push_back(init1);
  loop->setOperands(operands);
  Block& body = loop->region(0).front();
  Value a = body.addArgument(Type::i32()), c = body.addArgument(Type::i32());
  loop->appendResult(Type::i32());
  loop->appendResult(Type::i32());
  Operation* yield = body.terminator();
  std::vector<Value> yielded = yield->operands();
  yielded.push_back(a);
  yielded.push_back(c);
  yield->setOperands(yielded);
  return {a, c};
}

/// The last two values `loop` yields (those of carryThrough) become x, y.
void LoopPipeliner::yieldLast(Operation* loop, Value x, Value y) {
  Operation* yield = loop->region(0).front().terminator();
  std::vector<Value> yielded = yield->operands();
  yielded[yielded.size() - 2] = x;
  yielded[yielded.size() - 1] = y;
  yield->setOperands(yielded);
}

/// The values from outside the body that the body chain of `v` uses.
void LoopPipeliner::outsideValues(Value v, std::vector<Value>& out, std::set<Operation*>& seen) {
  Operation* def = v.definingOp();
  if (!def || def->block() != &body_) {
    if (!def && v.parentBlock() == &body_) return;  // the iv, an iteration argument
    out.push_back(v);
    return;
  }
  if (!seen.insert(def).second) return;
  for (Value o : def->operands()) outsideValues(o, out, seen);
}

/// ttng.warp_specialize at b's insertion point: one thread of a producer
/// warpgroup runs the loop's iterations, each waiting for its stage to be
/// released (the parity starts at 1: a fresh barrier's previous phase
/// counts as complete, so the first write of each stage does not wait),
/// then arming the stage's barrier and copying the iteration's tiles.
void LoopPipeliner::buildProducer(std::vector<Staged>& staged, const std::set<unsigned>& args, OpBuilder& b) {
  OpBuilder p;
  p.setLoc(loop_->loc());
  Value ringStage, ringParity;
  if (chain_.producer) {  // a later loop: its iterations go after the earlier loops'
    producer_ = chain_.producer;
    Block& holder = chain_.producerOuter ? chain_.producerOuter->region(0).front() : producer_->region(0).front();
    p.setInsertionPoint(holder.terminator());
    ringStage = chain_.producerStage;
    ringParity = chain_.producerParity;
  } else {
    auto [producerRegs, consumerRegs] = producerConsumerRegisters(numWarps());
    producer_ = b.create(OpCode::WarpSpecialize, {}, {},
                         {{"producer_warps", int64_t{4}}, {"producer_registers", producerRegs},
                          {"consumer_registers", consumerRegs}},
                         1);
    p.setInsertionPointToEnd(producer_->region(0).addBlock());
    ringStage = constI32(p, 0);
    ringParity = constI32(p, 1);
    if (outer_) {
      // The producer's own persistent loop, carrying its ring from one
      // tile to the next: same bounds (isolateProducer brings them).
      Operation* loop = p.create(OpCode::For, {}, {outer_->operand(0), outer_->operand(1), outer_->operand(2)}, {}, 1);
      Block* body = loop->region(0).addBlock();
      body->addArgument(outer_->region(0).front().argument(0).type());
      OpBuilder(body).create(OpCode::Yield, {}, {});
      p.create(OpCode::Yield, {}, {});
      std::tie(ringStage, ringParity) = carryThrough(loop, ringStage, ringParity);
      chain_.producerOuter = loop;
      p.setInsertionPoint(body->terminator());
    }
  }
  ForOp consumerLoop(loop_);
  std::vector<Value> operands = {consumerLoop.lowerBound(), consumerLoop.upperBound(), consumerLoop.step()};
  std::vector<unsigned> carried;  // block arguments; argument i > 0 is iteration argument i - 1
  for (unsigned i : args)
    if (i > 0) carried.push_back(i);
  for (unsigned i : carried) operands.push_back(consumerLoop.init(i - 1));
  operands.push_back(ringStage);
  operands.push_back(ringParity);
  std::vector<Type> types;
  for (size_t k = 3; k < operands.size(); ++k) types.push_back(operands[k].type());
  Operation* loop = p.create(OpCode::For, types, operands, {}, 1);
  Block* body = loop->region(0).addBlock();
  IRMapping m;
  m.map(body_.argument(0), body->addArgument(body_.argument(0).type()));
  for (unsigned i : carried) m.map(body_.argument(i), body->addArgument(body_.argument(i).type()));
  Value stage = body->addArgument(Type::i32()), parity = body->addArgument(Type::i32());
  OpBuilder q(body);
  q.setLoc(loop_->loc());
  buildWaitBarrier(q, empty_, stage, parity);
  copyTiles(staged, stage, m, q.constantInt(Type::i1(), 1), q);
  std::vector<Value> yielded;
  for (unsigned i : carried) yielded.push_back(iterations_.recompute(consumerLoop.yielded(i - 1), m, q));
  Value next = nextStage(q, stage);
  yielded.push_back(next);
  yielded.push_back(flipOnWrap(q, next, parity));
  q.create(OpCode::Yield, {}, yielded);
  if (!chain_.producer && !outer_) p.create(OpCode::Yield, {}, {});
  chain_.producer = producer_;
  chain_.producerStage = loop->result(loop->numResults() - 2);
  chain_.producerParity = loop->result(loop->numResults() - 1);
  if (chain_.producerOuter) yieldLast(chain_.producerOuter, chain_.producerStage, chain_.producerParity);
}

/// This loop stages the tiles of the producer's earlier loops, in the
/// same order and as many stages: its copies go on in their ring.
bool LoopPipeliner::continuesChain(const std::vector<Staged>& staged) const {
  if (chain_.block != loop_->block() || chain_.buffers.size() != staged.size()) return false;
  for (size_t i = 0; i < staged.size(); ++i) {
    Type ring = chain_.buffers[i].type();  // [stages, tile...]
    std::vector<int64_t> tile(ring.shape().begin() + 1, ring.shape().end());
    if (ring.shape()[0] != buffers_ || Type::tensor(tile, ring.elementType(), ring.encoding()) != staged[i].tile)
      return false;
  }
  return true;
}

/// Every warp arrives on the empty barrier of `stage` at b's insertion
/// point (not when `mayBeNone` and the stage is -1).
void LoopPipeliner::release(OpBuilder& b, Value stage, bool mayBeNone) {
  Value any = mayBeNone ? b.create(OpCode::CmpI, {Type::i1()}, {stage, constI32(b, 0)},
                                   {{"predicate", std::string("sge")}})->result()
                        : b.constantInt(Type::i1(), 1);
  buildArriveBarrier(b, empty_, stage, any);
}

/// The kernel's num_warps (the arrivals each empty barrier waits for):
/// a wrong count would let thread 0 overwrite a stage still being read.
int64_t LoopPipeliner::numWarps() const {
  Operation* f = enclosingFunc(loop_);
  if (!f || !f->hasAttr("num_warps"))
    throw Error("pipeline-dot-loops: a kernel with TMA stages needs its num_warps attribute (run convert-to-gpu first)");
  return f->intAttr("num_warps");
}

}  // namespace tessera::gpu::pipeliner
