//===- PipelineLoops.cpp - Multi-stage cp.async pipelines for dot loops ---===//
//
// Tile GPU IR (after AssignLayouts). A wgmma dot in a loop reads A and B
// from ttg.local_alloc copies of tiles loaded in the same iteration: every
// iteration waits for its own loads, then for the copy, then for the dot.
// With num_stages = S >= 2 this pass gives each such operand an S-stage
// shared buffer and keeps S - 1 iterations of tiles in flight, as Triton's
// pipeliner does for cp.async targets:
//
//   buf = ttg.local_alloc : [S, R, C]                      (before the loop)
//   for j in 0 .. S-2:   copy the tile of iteration j into stage j
//                        (ttg.async_copy_global_to_local, masked off when
//                        iteration j does not run), commit
//   loop (iteration i; stages read r = i % S, written w = (i + S - 1) % S):
//     ttg.async_wait {num = S - 2}    (iteration i's tiles have landed;
//                                      every thread is past iteration i-1's
//                                      dot, so stage w is free)
//     copy the tiles of iteration i + S - 1 into stage w, commit
//     dot on stage r
//   ttg.async_wait {num = 0}                               (after the loop)
//
// The tiles' pointers, masks and `other` values are recomputed for the
// other iterations (LoopIterations.h): they must be pure functions of the
// induction variable and iteration arguments. `other` must be 0 (cp.async
// zero-fills), every operand's accesses must be 4, 8 or 16 bytes per vector
// along the tile's contiguous dim (axis info), no load may be volatile, and
// the loop must not write memory (the copies move ahead of its writes),
// else the loop is left alone. Whether an iteration runs is decided in i64,
// so the look-ahead cannot wrap.
//
// Not in the default pipeline yet (tessera-opt --pass=pipeline-dot-loops):
// it waits for its first run on the GPU.
//
//===----------------------------------------------------------------------===//

#include "gpu/GpuPasses.h"
#include "gpu/LoopIterations.h"
#include "tessera/gpu/AxisInfo.h"
#include "transforms/PassDetail.h"

namespace tessera::gpu {

using namespace ir;

namespace {

struct Staged {
  Operation* alloc;  ///< ttg.local_alloc %tile (in the body)
  Operation* load;   ///< the tt.load of %tile
  Value buffer;      ///< the S-stage buffer (before the loop)
};

class LoopPipeliner {
 public:
  LoopPipeliner(Operation* loop, int stages, AxisInfoAnalysis& axis)
      : loop_(loop), body_(loop->region(0).front()), stages_(stages), axis_(axis), iterations_(loop) {}

  void run() {
    std::vector<Staged> staged;
    std::set<unsigned> args;
    std::set<Operation*> seen;
    for (Operation* op : body_.ops()) {
      if (!op->is(OpCode::Dot) || !op->result().type().encoding().isNvidiaMma() ||
          op->result().type().encoding().versionMajor() != 3)
        continue;
      for (unsigned i = 0; i < 2; ++i) {
        Operation* alloc = op->operand(i).definingOp();
        if (!alloc || !alloc->is(OpCode::LocalAlloc) || alloc->numOperands() != 1 || alloc->block() != &body_ ||
            !alloc->result().hasOneUse() || !seen.insert(alloc).second)
          return;
        Operation* load = alloc->operand(0).definingOp();
        if (!load || !load->is(OpCode::Load) || load->block() != &body_ || !load->result().hasOneUse() ||
            !load->operand(0).type().isTensor() || load->boolAttr("volatile"))
          return;
        if (load->numOperands() > 2 && !transforms::isZeroConstant(load->operand(2))) return;
        if (!copyable(load) || !iterations_.computable(load, args)) return;
        staged.push_back({alloc, load, Value()});
      }
    }
    if (staged.empty()) return;
    // Loads move iterations ahead of the body's writes: a loop that writes
    // memory (which a later tile might read) is left alone.
    bool writes = false;
    loop_->walk([&](Operation* op) {
      if (op != loop_ && op->hasTrait(MemWrite) && !seen.count(op)) writes = true;
    });
    if (writes) return;
    rewrite(staged, args);
  }

 private:
  /// cp.async moves 4, 8 or 16 bytes: the load's vectors must be that
  /// wide, and run along dim 1, the contiguous dim of the shared tile.
  bool copyable(Operation* load) {
    Value ptr = load->operand(0);
    Value mask = load->numOperands() > 1 ? load->operand(1) : Value();
    int64_t elemBytes = load->result().type().elementType().bitWidth() / 8;
    AccessVector v =
        accessVector(axis_, ptr, mask, toLinearLayout(ptr.type().shape(), ptr.type().encoding()), elemBytes);
    int64_t bytes = v.elements * elemBytes;
    return v.dim == 1 && (bytes == 4 || bytes == 8 || bytes == 16);
  }

  Value constI32(OpBuilder& b, int64_t v) { return b.constantInt(Type::i32(), v); }

  /// Copies the tile of `load` for the iteration of `m` into stage `stage`
  /// of `buffer`, masked off unless `active` (a scalar i1).
  void copyTile(Operation* load, Value buffer, Value stage, IRMapping& m, Value active, OpBuilder& b) {
    Type tile = load->result().type();
    Type bufType = buffer.type();
    Type view = Type::tensor(tile.shape(), tile.elementType(), bufType.encoding());
    Value slot = b.create(OpCode::MemdescIndex, {view}, {buffer, stage})->result();
    Type maskType = Type::tensor(tile.shape(), Type::i1(), tile.encoding());
    Value guard = b.create(OpCode::Splat, {maskType}, {active})->result();
    Value mask = guard;
    if (load->numOperands() > 1)
      mask = b.create(OpCode::AndI, {maskType}, {iterations_.recompute(load->operand(1), m, b), guard})->result();
    b.create(OpCode::AsyncCopyGlobalToLocal, {}, {iterations_.recompute(load->operand(0), m, b), slot, mask});
  }

  Value lessThan(OpBuilder& b, Value x, Value bound) {
    return b.create(OpCode::CmpI, {Type::i1()}, {x, bound}, {{"predicate", std::string("slt")}})->result();
  }

  Value wide(OpBuilder& b, Value v) {
    return v.type().isInteger(64) ? v : b.create(OpCode::ExtSI, {Type::i64()}, {v})->result();
  }

  /// iv + k * step < ub, computed in i64 so that it cannot wrap near the
  /// top of a 32-bit range (the iteration is then not run, and its copies
  /// must stay masked off).
  Value runs(OpBuilder& b, Value iv, int64_t k) {
    Value step = wide(b, loop_->operand(2));
    Value offset = b.create(OpCode::MulI, {Type::i64()}, {step, b.constantInt(Type::i64(), k)})->result();
    Value at = b.create(OpCode::AddI, {Type::i64()}, {wide(b, iv), offset})->result();
    return lessThan(b, at, wide(b, loop_->operand(1)));
  }

  /// (x + 1) mod S for 0 <= x < S.
  Value nextStage(OpBuilder& b, Value x) {
    Value one = constI32(b, 1);
    Value plus = b.create(OpCode::AddI, {Type::i32()}, {x, one})->result();
    Value wraps = b.create(OpCode::CmpI, {Type::i1()}, {plus, constI32(b, stages_)}, {{"predicate", std::string("eq")}})
                      ->result();
    return b.create(OpCode::Select, {Type::i32()}, {wraps, constI32(b, 0), plus})->result();
  }

  void rewrite(std::vector<Staged>& staged, const std::set<unsigned>& args) {
    OpBuilder b;
    b.setLoc(loop_->loc());

    // Buffers and the prologue: iterations 0 .. S-2.
    b.setInsertionPoint(loop_);
    for (Staged& s : staged) {
      Type view = s.alloc->result().type();
      std::vector<int64_t> shape = view.shape();
      shape.insert(shape.begin(), stages_);
      s.buffer = b.create(OpCode::LocalAlloc, {Type::tensor(shape, view.elementType(), view.encoding())}, {})->result();
    }
    for (int j = 0; j + 1 < stages_; ++j) {
      IRMapping m = iterations_.fromStart(j, args, b);
      Value active = runs(b, loop_->operand(0), j);
      for (Staged& s : staged) copyTile(s.load, s.buffer, constI32(b, j), m, active, b);
      b.create(OpCode::AsyncCommitGroup, {}, {});
    }

    // Stage counters as iteration arguments.
    std::vector<Value> operands = loop_->operands();
    operands.push_back(constI32(b, 0));
    operands.push_back(constI32(b, stages_ - 1));
    loop_->setOperands(operands);
    Value readStage = body_.addArgument(Type::i32());
    Value writeStage = body_.addArgument(Type::i32());
    loop_->appendResult(Type::i32());
    loop_->appendResult(Type::i32());

    // In the body: wait, read this iteration's stages, start the copies of
    // iteration i + S - 1.
    b.setInsertionPointToStart(&body_);
    b.create(OpCode::AsyncWait, {}, {}, {{"num", int64_t{stages_ - 2}}});
    for (Staged& s : staged) {
      Value slot = b.create(OpCode::MemdescIndex, {s.alloc->result().type()}, {s.buffer, readStage})->result();
      s.alloc->result().replaceAllUsesWith(slot);
    }
    IRMapping ahead = iterations_.ahead(stages_ - 1, args, b);
    Value active = runs(b, body_.argument(0), stages_ - 1);
    for (Staged& s : staged) copyTile(s.load, s.buffer, writeStage, ahead, active, b);
    b.create(OpCode::AsyncCommitGroup, {}, {});

    Operation* yield = body_.terminator();
    b.setInsertionPoint(yield);
    std::vector<Value> yielded = yield->operands();
    yielded.push_back(nextStage(b, readStage));
    yielded.push_back(nextStage(b, writeStage));
    yield->setOperands(yielded);

    b.setInsertionPointAfter(loop_);
    b.create(OpCode::AsyncWait, {}, {}, {{"num", int64_t{0}}});

    for (Staged& s : staged) {
      s.alloc->erase();
      s.load->erase();
    }
  }

  Operation* loop_;
  Block& body_;
  int stages_;
  AxisInfoAnalysis& axis_;
  LoopIterations iterations_;
};

}  // namespace

void pipelineDotLoops(Operation* func, int numStages) {
  if (numStages < 2) return;
  std::vector<Operation*> loops;
  func->walk([&](Operation* op) {
    if (op->is(OpCode::For)) loops.push_back(op);
  });
  AxisInfoAnalysis axis(func);
  for (Operation* loop : loops) LoopPipeliner(loop, numStages, axis).run();
}

}  // namespace tessera::gpu
