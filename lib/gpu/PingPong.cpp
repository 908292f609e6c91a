//===- PingPong.cpp - The two consumer warpgroups take turns at their dots -===//
//
// Tile GPU IR, after pipeline-dot-loops and licm. In a warp-specialized
// kernel of 8 warps (a producer warpgroup copies the stages, see
// WarpSpecializeLoops.cpp), the kernel's two warpgroups each compute 64 rows of
// attention's 128-row tile; left alone, both run their softmax at the same
// time and leave the tensor cores idle. This pass makes them take turns
// (ttng.ping_pong, named barriers 2 and 3): a turn is the loop's last
// wgmma dot of iteration j (P V) and its first of iteration j + 1 (Q K^T).
// A warpgroup waits for the turn before the last dot and passes it once the
// first dot is issued (that dot becomes asynchronous, its wait after the
// pass), so one warpgroup's softmax runs under the other's dots. The turn is
// held into each such loop and passed after it; before the first (before
// the persistent loop around it, if any), warpgroup 1 gives warpgroup 0
// the turn. Each warpgroup alternates wait
// and pass, so turns stay matched across consecutive loops.
//
// While a warpgroup holds the turn the other waits for it, so nothing
// there may need a barrier of both (a layout change or a reduction through
// shared memory): the ops from the last dot to the end of the body and from
// its start to the first dot must be scalar, the stages' views and
// barriers, or the dots' waits; it runs after licm so that nothing is
// hoisted between the wait and the loop. The first dot must accumulate
// into zeros (an asynchronous wgmma then writes fresh registers).
//
// Measured on the H100 (attention, TFLOP/s): d=128 540 -> 597, d=128
// causal 457 -> 513. Turns around Q K^T alone gave +1-5% when passed at its
// issue and -2-10% when passed after its wait.
//
//===----------------------------------------------------------------------===//

#include <algorithm>

#include "gpu/GpuPasses.h"
#include "tessera/ir/Builder.h"
#include "tessera/ir/Matchers.h"

namespace tessera::gpu {

using namespace ir;

namespace {

/// Whether `op` surely emits no barrier of all the kernel's warps: the
/// stages' views and barriers, the dots' waits, and scalar ops other than
/// tl.debug_barrier.
bool barrierFree(Operation* op) {
  if (op->is(OpCode::MemdescIndex) || op->is(OpCode::WarpGroupDotWait) || op->is(OpCode::WaitBarrier) ||
      op->is(OpCode::ArriveBarrier) || op->is(OpCode::Yield))
    return true;
  if (op->numRegions() != 0 || op->is(OpCode::DebugBarrier)) return false;
  for (Value v : op->operands())
    if (v.type().isTensor()) return false;
  for (Value v : op->results())
    if (v.type().isTensor()) return false;
  return true;
}

/// The consumer loop of a warp-specialized pipeline (it releases stages)
/// whose two warpgroups can take turns: its first and last wgmma dots, or
/// nulls.
std::pair<Operation*, Operation*> turnDots(Operation* loop) {
  Block& body = loop->region(0).front();
  std::vector<Operation*> ops = body.ops();
  Operation *first = nullptr, *last = nullptr;
  bool releases = false;
  for (Operation* op : ops) {
    releases = releases || op->is(OpCode::ArriveBarrier);
    if (!isWgmmaDot(op)) continue;
    first = first ? first : op;
    last = op;
  }
  if (!releases || !first || first == last || first->boolAttr("is_async") ||
      !ir::isZeroConstant(first->operand(2)))
    return {nullptr, nullptr};
  auto f = std::find(ops.begin(), ops.end(), first), l = std::find(ops.begin(), ops.end(), last);
  if (!std::all_of(ops.begin(), f, barrierFree) || !std::all_of(l + 1, ops.end(), barrierFree)) return {nullptr, nullptr};
  return {first, last};
}

Operation* pingPong(OpBuilder& b, const char* step) {
  return b.create(OpCode::PingPong, {}, {}, {{"step", std::string(step)}});
}

}  // namespace

void pingPongWarpgroups(Operation* func) {
  if (func->intAttr("num_warps", 0) != 8) return;
  Block& entry = func->region(0).front();
  std::vector<Operation*> ops = entry.ops();
  if (std::none_of(ops.begin(), ops.end(), [](Operation* op) { return op->is(OpCode::WarpSpecialize); })) return;
  // The loops of the entry block, and those of a persistent loop's body
  // there (whose turns start once, before the persistent loop).
  std::vector<std::pair<Operation*, Operation*>> loops;  // {loop, the entry-block op holding it}
  for (Operation* op : ops) {
    if (!op->is(OpCode::For)) continue;
    loops.push_back({op, op});
    for (Operation* inner : op->region(0).front().ops())
      if (inner->is(OpCode::For)) loops.push_back({inner, op});
  }
  bool started = false;
  for (auto [loop, top] : loops) {
    auto [first, last] = turnDots(loop);
    if (!first) continue;
    OpBuilder b;
    b.setLoc(loop->loc());
    if (!started) {
      b.setInsertionPoint(top);
      pingPong(b, "start");
    }
    started = true;
    b.setInsertionPoint(loop);
    pingPong(b, "wait");
    b.setInsertionPointAfter(first);
    pingPong(b, "pass");
    first->setAttr("is_async", true);
    waitFor(b, first->result(), 0);
    b.setInsertionPoint(last);
    pingPong(b, "wait");
    b.setInsertionPointAfter(loop);
    pingPong(b, "pass");
  }
}

}  // namespace tessera::gpu
