//===- LoopPointerOffsets.cpp - Carry a scalar offset, not a pointer tile --===//
//
// `a_ptrs += BLOCK_K * stride_ak` in a matmul loop carries a whole tensor of
// 64-bit pointers from iteration to iteration: 128 x 64 of them over 128
// threads is 64 pointers, 128 registers, per thread, for A alone. The loads
// read one pointer per 16-byte vector, but every pointer is updated every
// iteration, and ptxas does not delete a loop-carried value whose only use
// is its own update (LLVM does, for Triton). The result was kernels at the
// 255-register cap with kilobytes of spills.
//
// Rewrites: an scf.for iteration argument p (a tensor of pointers) whose
// yielded value is tt.addptr(p, tt.splat(s)) (or a splat constant) becomes
//   * a scalar i64 iteration argument `off`, starting at 0 and yielded
//     off + s (s sign-extended);
//   * p = tt.addptr(p_init, tt.splat(off)) at the top of the body, for its
//     other uses.
// p_init is loop-invariant, so the pointers no load reads are dead after
// the loop starts and ptxas drops them. The old argument is left unused
// (DCE removes it). Only loops with a tt.dot are rewritten for now: the
// memory-bound kernels' loops are at parity with Triton as they are, and a
// change there waits for a benchmark run.
//
//===----------------------------------------------------------------------===//

#include "gpu/GpuPasses.h"
#include "tessera/ir/Builder.h"
#include "tessera/ir/Matchers.h"

namespace tessera::gpu {

using namespace ir;

namespace {

/// s when `v` is tt.splat(s) of a scalar integer, or a splat integer
/// constant (then s is a scalar constant created before `loop`), else null.
Value splatScalar(Value v, Operation* loop) {
  Operation* def = v.definingOp();
  if (!def) return Value();
  if (def->is(OpCode::Splat) && def->operand(0).type().isInteger()) return def->operand(0);
  if (auto c = ir::intConstantOf(v); c && v.type().elementType().isInteger()) {
    OpBuilder b;
    b.setInsertionPoint(loop);
    return b.constantInt(v.type().elementType(), *c);
  }
  return Value();
}

void rewriteLoop(Operation* loop) {
  Block& body = loop->region(0).front();
  bool hasDot = false;
  for (Operation* op : body.ops()) hasDot = hasDot || op->is(OpCode::Dot);
  if (!hasDot) return;
  Operation* yield = body.terminator();
  unsigned numIterArgs = yield->numOperands();
  for (unsigned i = 0; i < numIterArgs; ++i) {
    Value arg = body.argument(i + 1);
    Type t = arg.type();
    if (!t.isTensor() || !t.elementType().isPointer()) continue;
    Operation* step = yield->operand(i).definingOp();
    if (!step || !step->is(OpCode::AddPtr) || step->operand(0) != arg || step->block() != &body) continue;
    Value s = splatScalar(step->operand(1), loop);
    if (!s) continue;

    OpBuilder b;
    b.setLoc(step->loc());
    b.setInsertionPoint(loop);
    Value zero = b.constantInt(Type::i64(), 0);
    std::vector<Value> operands = loop->operands();
    operands.push_back(zero);
    loop->setOperands(operands);
    Value off = body.addArgument(Type::i64());
    loop->appendResult(Type::i64());

    // The pointers of this iteration, from the initial ones.
    b.setInsertionPointToStart(&body);
    Value init = loop->operand(3 + i);
    Type offsets = Type::tensor(t.shape(), Type::i64());
    Value splat = b.create(OpCode::Splat, {offsets}, {off})->result();
    Value pointers = b.create(OpCode::AddPtr, {t}, {init, splat})->result();
    arg.replaceAllUsesWith(pointers);

    // The next offset.
    b.setInsertionPoint(yield);
    Value wide = s.type().isInteger(64) ? s : b.create(OpCode::ExtSI, {Type::i64()}, {s})->result();
    Value next = b.create(OpCode::AddI, {Type::i64()}, {off, wide})->result();
    std::vector<Value> yielded = yield->operands();
    yielded.push_back(next);
    yield->setOperands(yielded);
    // The old argument now only feeds its own update; yield it unchanged
    // so DCE sees a dead loop-carried value. After the loop, the final
    // pointers come from the final offset.
    yield->setOperand(i, arg);
    Value result = loop->result(i);
    if (!result.uses().empty()) {
      b.setInsertionPointAfter(loop);
      Value last = b.create(OpCode::Splat, {offsets}, {loop->result(loop->numResults() - 1)})->result();
      Value finalPointers = b.create(OpCode::AddPtr, {t}, {init, last})->result();
      result.replaceAllUsesWith(finalPointers);
    }
  }
}

}  // namespace

void carryPointerOffsets(Operation* func) {
  std::vector<Operation*> loops;
  func->walk([&](Operation* op) {
    if (op->is(OpCode::For)) loops.push_back(op);
  });
  for (Operation* loop : loops) rewriteLoop(loop);
}

}  // namespace tessera::gpu
