//===- PipelineLoops.cpp - Multi-stage cp.async / TMA pipelines for dots --===//
//
// Rewrites (pipeline-dot-loops, num_stages = S >= 2): each loop whose
//   operand tiles PipelineSchedule.cpp staged gets an S-stage shared buffer
//   per tile and keeps S - 1 iterations of tiles in flight, as Triton's
//   pipeliner does:
//
//     buf = ttg.local_alloc : [S, R, C]                    (before the loop)
//     for j in 0 .. S-2:  copy iteration j's tile into stage j (masked off
//                         when iteration j does not run), commit
//     loop (iteration i; read stage r = i % S, written w = (i + S - 1) % S):
//       ttg.async_wait {num = S - 2}  (iteration i's tiles have landed; every
//                                      thread is past iteration i-1's dot,
//                                      so stage w is free)
//       copy iteration i + S - 1's tiles into stage w, commit
//       dot on stage r
//     ttg.async_wait {num = 0}                              (after the loop)
//
//   An asynchronous dot (tt.dot {is_async}) is followed by
//   ttng.warp_group_dot_wait {pendings = 1}: iteration i - 1 may still read
//   its stage while iteration i's copies are issued, so the buffer gets
//   S + 1 stages and iteration i copies into the stage iteration i - 2
//   read; after the loop a wait {pendings = 0} makes the accumulator
//   readable. A deferred dot is waited for (pendings = 0) just before its
//   result's first read in the next iteration, or right after a
//   synchronous wgmma dot before that read (its wait completes the
//   deferred dot too: wgmma groups complete in order); also S + 1 stages.
//   TMA stages (sm_90a): the descriptor is remade with the tile's swizzle
//   and a box of one swizzle atom (all rows), one copy per atom, into stages
//   in the tile's nvmma_shared layout; one mbarrier per stage
//   (ttng.init_barriers before the loop, ttng.inval_barriers after): thread
//   0 arms the stage's barrier with its tiles' bytes (ttng.barrier_expect)
//   and issues the copies; at the top of the body every thread waits for
//   the read stage's barrier (ttng.wait_barrier) with the parity of its
//   phase, a carried i32 that flips when the read stage wraps to 0.
//   Whatever num_stages, first: a ttg.local_alloc in a loop whose source is
//   defined outside it (attention's Q tile) moves before the loop.
// Expects: Tile GPU IR after convert-to-gpu (wgmma operands are
//   ttg.local_alloc copies of tiles loaded in the body).
// Guarantees: every iteration reads the tiles it read before, in the same
//   order relative to the loop's other memory accesses; whether an
//   iteration runs is decided in i64, so the look-ahead cannot wrap;
//   iterations that do not run copy nothing and arm no barrier; a barrier
//   (that of ttg.async_wait, or gpu.barrier) keeps the copies into stage w
//   behind every thread's last read of it; a dot reading a shared copy made
//   in the body stays synchronous (the next iteration's copy would
//   overwrite what it reads).
// Why: without it every iteration waits for its own loads, then for the
//   shared copy, then for the dot; the stages overlap memory with the
//   tensor cores (docs/decisions.md, "GPU backend", has the measurements).
//
//===----------------------------------------------------------------------===//

#include <algorithm>

#include "gpu/HostTensorMaps.h"
#include "gpu/LoopPipeliner.h"
#include "gpu/WarpSpecialize.h"
#include "tessera/Error.h"
#include "tessera/ir/Matchers.h"
#include "tessera/ir/OpViews.h"

namespace tessera::gpu {

using namespace ir;

bool isWgmmaDot(Operation* op) {
  if (!op->is(OpCode::Dot)) return false;
  Encoding enc = op->result().type().encoding();
  return enc.isNvidiaMma() && enc.versionMajor() == 3;
}

void waitFor(OpBuilder& b, Value v, int64_t pendings) {
  Operation* wait = buildWarpGroupDotWait(b, {v}, pendings).op();
  v.replaceAllUsesWith(wait->result());
  wait->setOperand(0, v);
}

namespace pipeliner {

Value LoopPipeliner::constI32(OpBuilder& b, int64_t v) { return b.constantInt(Type::i32(), v); }

/// Starts the copies of the staged tiles for the iteration of `m` into
/// stage `stage`, masked off unless `active` (a scalar i1): TMA copies
/// arm the stage's barrier with their bytes first.
void LoopPipeliner::copyTiles(std::vector<Staged>& staged, Value stage, IRMapping& m, Value active, OpBuilder& b) {
  int64_t tmaBytes = 0;
  for (Staged& s : staged)
    if (s.tma()) tmaBytes += s.tile.numElements() * s.tile.elementType().bitWidth() / 8;
  if (tmaBytes) buildBarrierExpect(b, barriers_, stage, active, tmaBytes);
  for (Staged& s : staged) {
    if (!s.tma()) {
      copyTile(s.load, s.buffer, stage, m, active, b);
      continue;
    }
    Value slot = b.create(OpCode::MemdescIndex, {s.tile}, {s.buffer, stage})->result();
    std::vector<Value> operands = {s.desc, slot, barriers_, stage, active};
    for (unsigned i = 1; i < s.load->numOperands(); ++i)
      operands.push_back(iterations_.recompute(s.load->operand(i), m, b));
    b.create(OpCode::AsyncTmaCopyGlobalToLocal, {}, operands);
  }
  if (cpAsync_) b.create(OpCode::AsyncCommitGroup, {}, {});
}

/// The descriptor a staged TMA load copies with: its own, remade with
/// boxes of one swizzle atom of the tile and the tile's swizzle (once
/// per descriptor, box and swizzle).
Value LoopPipeliner::swizzledDescriptor(const Staged& s) {
  Operation* create = s.load->operand(0).definingOp();
  if (!create || !create->is(OpCode::TensormapCreate)) return Value();
  int64_t swizzle = s.tile.encoding().swizzlingByteWidth();
  const std::vector<int64_t>& rowsCols = s.load->result().type().shape();  // the tile in memory
  int64_t atomCols = std::min<int64_t>(rowsCols[1], swizzle * 8 / s.tile.elementType().bitWidth());
  std::vector<int64_t> box = {rowsCols[0], atomCols};
  Value& made = swizzled_[{create, box, swizzle}];
  if (made) return made;
  OpBuilder b;
  b.setLoc(create->loc());
  b.setInsertionPointAfter(create);
  AttrMap attrs = create->attrs();
  attrs["box"] = box;
  attrs["swizzle"] = swizzle;
  made = b.create(OpCode::TensormapCreate, {create->result().type()}, create->operands(), attrs)->result();
  return made;
}

/// Copies the tile of `load` for the iteration of `m` into stage `stage`
/// of `buffer`, masked off unless `active` (a scalar i1).
void LoopPipeliner::copyTile(Operation* load, Value buffer, Value stage, IRMapping& m, Value active, OpBuilder& b) {
  Type tile = load->result().type();
  Type bufType = buffer.type();
  Type view = Type::tensor(tile.shape(), tile.elementType(), bufType.encoding());
  Value slot = b.create(OpCode::MemdescIndex, {view}, {buffer, stage})->result();
  Type maskType = Type::tensor(tile.shape(), Type::i1(), tile.encoding());
  Value guard = b.create(OpCode::Splat, {maskType}, {active})->result();
  LoadOp tileLoad(load);
  Value mask = guard;
  if (Value own = tileLoad.mask())
    mask = b.create(OpCode::AndI, {maskType}, {iterations_.recompute(own, m, b), guard})->result();
  b.create(OpCode::AsyncCopyGlobalToLocal, {}, {iterations_.recompute(tileLoad.ptr(), m, b), slot, mask});
}

Value LoopPipeliner::lessThan(OpBuilder& b, Value x, Value bound) {
  return b.create(OpCode::CmpI, {Type::i1()}, {x, bound}, {{"predicate", std::string("slt")}})->result();
}

Value LoopPipeliner::wide(OpBuilder& b, Value v) {
  return v.type().isInteger(64) ? v : b.create(OpCode::ExtSI, {Type::i64()}, {v})->result();
}

/// iv + k * step < ub, computed in i64 so that it cannot wrap near the
/// top of a 32-bit range (the iteration is then not run, and its copies
/// must stay masked off).
Value LoopPipeliner::runs(OpBuilder& b, Value iv, int64_t k) {
  ForOp loop(loop_);
  Value step = wide(b, loop.step());
  Value offset = b.create(OpCode::MulI, {Type::i64()}, {step, b.constantInt(Type::i64(), k)})->result();
  Value at = b.create(OpCode::AddI, {Type::i64()}, {wide(b, iv), offset})->result();
  return lessThan(b, at, wide(b, loop.upperBound()));
}

/// (x + 1) mod B for 0 <= x < B, B the number of buffers.
Value LoopPipeliner::nextStage(OpBuilder& b, Value x) {
  Value one = constI32(b, 1);
  Value plus = b.create(OpCode::AddI, {Type::i32()}, {x, one})->result();
  Value wraps = b.create(OpCode::CmpI, {Type::i1()}, {plus, constI32(b, buffers_)}, {{"predicate", std::string("eq")}})
                    ->result();
  return b.create(OpCode::Select, {Type::i32()}, {wraps, constI32(b, 0), plus})->result();
}

/// The parity a phase counter yields: flipped when `next` (the stage
/// after this one) wraps to 0.
Value LoopPipeliner::flipOnWrap(OpBuilder& b, Value next, Value parity) {
  Value wraps =
      b.create(OpCode::CmpI, {Type::i1()}, {next, constI32(b, 0)}, {{"predicate", std::string("eq")}})->result();
  Value flipped = b.create(OpCode::XOrI, {Type::i32()}, {parity, constI32(b, 1)})->result();
  return b.create(OpCode::Select, {Type::i32()}, {wraps, flipped, parity})->result();
}

void LoopPipeliner::rewrite(std::vector<Staged>& staged, const std::set<unsigned>& args) {
  OpBuilder b;
  b.setLoc(loop_->loc());
  for (Staged& s : staged) (s.tma() ? tma_ : cpAsync_) = true;
  specialized_ = specialize_ && tma_ && !cpAsync_ && producerCanRun(staged, args) &&
                 (!chain_.producer || continuesChain(staged));
  bool continued = specialized_ && chain_.producer;
  // The producer runs ahead over descriptors made in the persistent loop
  // (persistentLoopAllows): the emitter must encode them on the host,
  // and fails rather than write one in memory.
  for (Staged& s : staged)
    if (specialized_ && outer_ && outer_->isAncestorOf(s.load->operand(0).definingOp()))
      s.load->operand(0).definingOp()->setAttr("host_encoded", true);

  // Buffers, barriers and the prologue (iterations 0 .. S-2), or the
  // producer that copies every iteration's tiles from the kernel's start
  // (the one of an earlier loop whose ring of stages this loop goes on).
  if (specialized_) b.setInsertionPointToStart(&enclosingFunc(loop_)->region(0).front());
  else b.setInsertionPoint(loop_);
  for (size_t i = 0; i < staged.size(); ++i) {
    Staged& s = staged[i];
    if (continued) {
      s.buffer = chain_.buffers[i];
      continue;
    }
    Type view = s.tile;
    std::vector<int64_t> shape = view.shape();
    shape.insert(shape.begin(), buffers_);
    s.buffer = b.create(OpCode::LocalAlloc, {Type::tensor(shape, view.elementType(), view.encoding())}, {})->result();
  }
  for (Staged& s : staged) {
    if (!s.tma()) continue;
    s.desc = swizzledDescriptor(s);
    if (!s.desc)
      throw Error("pipeline-dot-loops: a ttng.descriptor_load whose descriptor is not a ttng.tensormap_create");
  }
  if (continued) {
    barriers_ = chain_.full;
    empty_ = chain_.empty;
  } else if (tma_) {
    Encoding plain = Encoding::swizzledShared(1, 1, 1, {0});
    barriers_ = b.create(OpCode::LocalAlloc, {Type::tensor({buffers_}, Type::i64(), plain)}, {})->result();
    buildInitBarriers(b, barriers_, 1);
    if (specialized_) {
      empty_ = b.create(OpCode::LocalAlloc, {Type::tensor({buffers_}, Type::i64(), plain)}, {})->result();
      buildInitBarriers(b, empty_, numWarps());
    }
  }
  if (specialized_) buildProducer(staged, args, b);
  for (int j = 0; !specialized_ && j + 1 < stages_; ++j) {
    IRMapping m = iterations_.fromStart(j, args, b);
    Value active = runs(b, ForOp(loop_).lowerBound(), j);
    copyTiles(staged, constI32(b, j), m, active, b);
  }

  // Stage counters as iteration arguments: the stage read, the stage
  // written (not with a producer), with TMA the parity of the phase the
  // read stage's barrier completes next, and with a producer whose
  // stages a dot of iteration i still reads in iteration i + 1, the
  // stage to release at the end of the body (-1: none yet).
  bool releaseLate = specialized_ && (asyncDot_ || deferredDot_);
  Value ringStage = continued ? chain_.readStage : constI32(b, 0);
  Value ringPhase = continued ? chain_.readPhase : constI32(b, 0);
  if (specialized_ && outer_ && !continued) {
    // The ring goes on from one iteration of the persistent loop to the next.
    std::tie(ringStage, ringPhase) = carryThrough(outer_, ringStage, ringPhase);
  }
  std::vector<Value> operands = loop_->operands();
  operands.push_back(ringStage);
  if (!specialized_) operands.push_back(constI32(b, stages_ - 1));
  if (tma_) operands.push_back(ringPhase);
  if (releaseLate) operands.push_back(constI32(b, -1));
  int added = static_cast<int>(operands.size() - loop_->operands().size());
  loop_->setOperands(operands);
  Value readStage = body_.addArgument(Type::i32());
  Value writeStage = specialized_ ? Value() : body_.addArgument(Type::i32());
  Value phase = tma_ ? body_.addArgument(Type::i32()) : Value();
  Value releaseStage = releaseLate ? body_.addArgument(Type::i32()) : Value();
  for (int k = added; k > 0; --k) loop_->appendResult(Type::i32());

  // In the body: wait, read this iteration's stages, start the copies of
  // iteration i + S - 1. The barrier of the wait (or a plain one) also
  // keeps the copies into stage w behind every thread's last read of it;
  // a producer waits for the stages' release instead.
  b.setInsertionPointToStart(&body_);
  if (tma_) buildWaitBarrier(b, barriers_, readStage, phase);
  if (cpAsync_)
    buildAsyncWait(b, stages_ - 2);
  else if (!specialized_)
    b.create(OpCode::DebugBarrier, {}, {});
  for (Staged& s : staged) {
    Value slot = b.create(OpCode::MemdescIndex, {s.tile}, {s.buffer, readStage})->result();
    if (s.use->is(OpCode::LocalAlloc)) {
      s.use->result().replaceAllUsesWith(slot);
      continue;
    }
    // mma.sync: the fragments are read where the convert was.
    OpBuilder at;
    at.setLoc(s.use->loc());
    at.setInsertionPoint(s.use);
    s.use->result().replaceAllUsesWith(
        at.create(OpCode::LocalLoad, {s.use->result().type()}, {slot})->result());
  }
  if (!specialized_) {
    IRMapping ahead = iterations_.ahead(stages_ - 1, args, b);
    copyTiles(staged, writeStage, ahead, runs(b, body_.argument(0), stages_ - 1), b);
  }

  Operation* yield = body_.terminator();
  b.setInsertionPoint(yield);
  std::vector<Value> yielded = yield->operands();
  Value nextRead = nextStage(b, readStage);
  yielded.push_back(nextRead);
  if (writeStage) yielded.push_back(nextStage(b, writeStage));
  if (tma_) yielded.push_back(flipOnWrap(b, nextRead, phase));
  if (releaseStage) yielded.push_back(readStage);
  yield->setOperands(yielded);

  b.setInsertionPointAfter(loop_);
  if (cpAsync_) buildAsyncWait(b, 0);
  // The barriers of a ring through a persistent loop live as long as it.
  OpBuilder atEnd;
  atEnd.setLoc(loop_->loc());
  atEnd.setInsertionPointAfter(specialized_ && outer_ ? outer_ : loop_);
  std::vector<Operation*> invals;
  if (tma_) invals.push_back(atEnd.create(OpCode::InvalBarriers, {}, {barriers_}));
  if (specialized_) invals.push_back(atEnd.create(OpCode::InvalBarriers, {}, {empty_}));
  if (asyncDot_) makeDotAsync(b);
  if (deferredDot_) deferDotWait(b);
  if (specialized_) {
    // Each iteration releases the stage it is done reading: its own, or
    // the previous iteration's when a dot reading it finished at this
    // iteration's wait (none in the first). The stage the last
    // iteration's dot held is free after the waits above: released
    // there, for a later loop's copies into it.
    b.setInsertionPoint(body_.terminator());
    release(b, releaseStage ? releaseStage : readStage, releaseLate);
    int first = static_cast<int>(loop_->numResults()) - added;
    if (releaseLate) {  // after the dots' waits that follow the loop
      Operation* at = loop_->nextOp();
      while (at->is(OpCode::WarpGroupDotWait)) at = at->nextOp();
      b.setInsertionPoint(at);
      release(b, loop_->result(first + 2), true);
    }
    // Only the last loop of the ring invalidates its barriers.
    for (Operation* old : chain_.invals) old->erase();
    chain_.invals = invals;
    chain_.readStage = loop_->result(first);
    chain_.readPhase = loop_->result(first + 1);
    chain_.block = loop_->block();
    chain_.outer = outer_;
    if (outer_) yieldLast(outer_, chain_.readStage, chain_.readPhase);
    chain_.buffers.clear();
    for (Staged& s : staged) chain_.buffers.push_back(s.buffer);
    chain_.full = barriers_;
    chain_.empty = empty_;
  }

  for (Staged& s : staged) {
    Operation* create = s.tma() ? s.load->operand(0).definingOp() : nullptr;
    s.use->erase();
    if (s.trans) s.trans->erase();
    s.load->erase();
    if (create && create->result().uses().empty()) create->erase();
  }
  if (!specialized_) return;
  if (outer_) dropConsumerFence();
  for (auto& [key, desc] : swizzled_) chain_.swizzled.push_back(desc);
}

/// acc = dot {is_async}; wait {pendings = 1} before the yield, wait
/// {pendings = 0} after the loop (see the file comment).
void LoopPipeliner::makeDotAsync(OpBuilder& b) {
  Operation* dot = asyncDot_;
  dot->setAttr("is_async", true);
  unsigned position = dot->result().uses().front()->index;  // in the yield
  b.setInsertionPointAfter(dot);
  waitFor(b, dot->result(), 1);
  b.setInsertionPointAfter(loop_);
  waitFor(b, loop_->result(position), 0);
}

/// The deferred dot goes asynchronous; its carried result is waited for
/// (pendings = 0) before its first read in the body and after the loop.
void LoopPipeliner::deferDotWait(OpBuilder& b) {
  Operation* dot = deferredDot_;
  dot->setAttr("is_async", true);
  unsigned position = dot->result().uses().front()->index;  // in the yield
  Value carried = body_.argument(position + 1);
  std::vector<OpOperand*> reads = carried.uses();
  if (!reads.empty()) {  // all in the body, before the dot (deferredCandidate)
    Operation* first = reads.front()->owner;
    for (Operation* op = body_.front(); op != first; op = op->nextOp())
      for (OpOperand* r : reads) first = r->owner == op ? op : first;
    // A synchronous wgmma dot before that read already waits for every
    // earlier group, the deferred dot's included: the wait goes right
    // after it (where the PTX emitter drops it as redundant), so the
    // carried value is readable from there on and the code between, such
    // as attention's softmax, can be scheduled with its rescaling.
    Operation* at = first;
    for (Operation* op = body_.front(); op != first; op = op->nextOp())
      if (isWgmmaDot(op) && !op->boolAttr("is_async")) at = op->nextOp();
    b.setInsertionPoint(at);
    waitFor(b, carried, 0);
  }
  b.setInsertionPointAfter(loop_);
  waitFor(b, loop_->result(position), 0);
}

}  // namespace pipeliner

namespace {

using pipeliner::LoopPipeliner;
using pipeliner::ProducerPipeline;

/// A copy to shared memory of a value defined outside the loop (attention's
/// Q tile) is made once, before the loop: its buffer is only read inside.
/// When a copy of the same value is already made before the loop in its
/// block (attention's Q tile for the first key block, peeled off the loop),
/// the loop reads that one: copies made from a value are never written.
bool hoistInvariantAllocs(Operation* loop) {
  bool moved = false;
  for (Operation* op : loop->region(0).front().ops()) {
    if (!op->is(OpCode::LocalAlloc) || op->numOperands() != 1) continue;
    Operation* owner = op->operand(0).parentBlock()->parentOp();
    if (loop->isAncestorOf(owner)) continue;
    moved = true;
    Operation* copy = loop->prevOp();
    while (copy && !(copy->is(OpCode::LocalAlloc) && copy->numOperands() == 1 && copy->operand(0) == op->operand(0) &&
                     copy->result().type() == op->result().type()))
      copy = copy->prevOp();
    if (!copy) {
      op->moveBefore(loop);
      continue;
    }
    op->result().replaceAllUsesWith(copy->result());
    op->erase();
  }
  return moved;
}

}  // namespace

void pipelineDotLoops(Operation* func, int numStages, bool autoWarpSpecialize) {
  std::vector<Operation*> loops;
  func->walk([&](Operation* op) {
    if (op->is(OpCode::For)) loops.push_back(op);
  });
  // Until nothing moves: a copy hoisted out of an inner loop may be
  // invariant in the outer one too.
  for (bool moved = true; moved;) {
    moved = false;
    for (Operation* loop : loops) moved = hoistInvariantAllocs(loop) || moved;
  }
  if (numStages < 2) return;
  AxisInfoAnalysis axis(func);
  // One producer warpgroup per kernel: for the first loop that can have
  // it and asks for it (tl.range(..., warp_specialize=True)), or does not
  // refuse it (warp_specialize=False) and runs more than one wgmma dot
  // (attention: the consumers' softmax between the dots is what the
  // producer takes the copies off; a matmul loop measured 0.93-1.04x;
  // autoWarpSpecialize = false: only loops that ask), and for later such
  // loops that continue its ring of stages.
  ProducerPipeline chain;
  for (Operation* loop : loops) {
    int dots = 0;
    for (Operation* op : loop->region(0).front().ops()) dots += isWgmmaDot(op) ? 1 : 0;
    bool ask = loop->hasAttr("warp_specialize") ? loop->boolAttr("warp_specialize") : autoWarpSpecialize && dots >= 2;
    LoopPipeliner(loop, numStages, axis, ask, chain).run();
  }
  if (!chain.producer) return;
  // Once all of its loops are in: each chain of values is copied once.
  isolateProducer(chain.producer, chain.outer, chain.producerOuter);
  // The producer made its own copies of the swizzled descriptors.
  for (Value desc : chain.swizzled)
    if (desc.uses().empty()) desc.definingOp()->erase();
}

}  // namespace tessera::gpu
