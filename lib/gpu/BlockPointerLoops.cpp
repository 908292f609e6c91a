//===- BlockPointerLoops.cpp - Block pointers carried as their offsets ----===//
//
// Tile IR. Triton's block-pointer loops carry the pointer itself:
//
//   a = tl.make_block_ptr(a_ptr, ..., offsets=(m0, 0), ...)
//   for k in range(...):
//       x = tl.load(a, boundary_check=(0, 1))
//       a = tl.advance(a, (0, BLOCK_K))
//
// The accesses then read a block pointer made outside their block, which
// neither rewrite-block-pointers (masked pointer tiles, pipelined with
// cp.async) nor tma-descriptor-loads can take: they were lowered element by
// element. Here, as Triton's RewriteTensorPointer does:
//
//  * tt.advance(tt.make_tensor_ptr(base, shape, strides, offsets), d)
//    becomes tt.make_tensor_ptr(base, shape, strides, offsets + d);
//  * an scf.for iteration argument p that is a block pointer, made by a
//    tt.make_tensor_ptr before the loop and yielded as p advanced (a chain
//    of tt.advance from p, or p itself), becomes its offsets: one i32
//    iteration argument per dim, p remade from them at the top of the body,
//    the yield giving the advanced offsets, and the loop's result remade
//    after the loop. The old argument is left unused (dce removes it).
//
// Every access through such a pointer then reads a make in its own block.
// Loops are rewritten outermost first, so a pointer carried through nested
// loops is taken apart at every level.
//
//===----------------------------------------------------------------------===//

#include "gpu/GpuPasses.h"
#include "tessera/ir/OpViews.h"
#include "tessera/Error.h"
#include "tessera/ir/Builder.h"

namespace tessera::gpu {

using namespace ir;

namespace {

int rankOf(Operation* make) { return static_cast<int>(make->result().type().pointeeType().rank()); }

/// `make` with other offsets, at b's insertion point.
Value remake(OpBuilder& b, Operation* make, const std::vector<Value>& offsets) {
  std::vector<Value> operands = make->operands();
  operands.resize(1 + 2 * rankOf(make));  // base, shape, strides
  operands.insert(operands.end(), offsets.begin(), offsets.end());
  return b.create(OpCode::MakeTensorPtr, {make->result().type()}, operands, make->attrs())->result();
}

std::vector<Value> offsetsOf(Operation* make) {
  std::vector<Value> operands = make->operands();
  return std::vector<Value>(operands.begin() + 1 + 2 * rankOf(make), operands.end());
}

/// advance(make(..., offsets), d) -> make(..., offsets + d), over the ops
/// under `root` in program order (a fold feeds the next advance).
void foldAdvances(Operation* root) {
  std::vector<Operation*> advances;
  root->walk([&](Operation* op) {
    if (op->is(OpCode::Advance)) advances.push_back(op);
  });
  for (Operation* advance : advances) {
    Operation* make = advance->operand(0).definingOp();
    if (!make || !make->is(OpCode::MakeTensorPtr)) continue;
    OpBuilder b;
    b.setInsertionPoint(advance);
    b.setLoc(advance->loc());
    std::vector<Value> offsets = offsetsOf(make);
    for (size_t d = 0; d < offsets.size(); ++d)
      offsets[d] = b.create(OpCode::AddI, {Type::i32()}, {offsets[d], AdvanceOp(advance).offset(d)})->result();
    advance->result().replaceAllUsesWith(remake(b, make, offsets));
    advance->erase();
  }
}

/// p's yielded value is p advanced zero or more times.
bool yieldsItselfAdvanced(Value arg, Value yielded) {
  while (Operation* def = yielded.definingOp()) {
    if (!def->is(OpCode::Advance)) break;
    yielded = def->operand(0);
  }
  return yielded == arg;
}

void carryOffsets(Operation* loop) {
  Block& body = loop->region(0).front();
  ForOp forOp(loop);
  unsigned numIterArgs = body.terminator()->numOperands();
  for (unsigned i = 0; i < numIterArgs; ++i) {
    Value arg = forOp.iterArg(i);
    Operation* init = forOp.init(i).definingOp();
    if (!arg.type().isBlockPointer() || !init || !init->is(OpCode::MakeTensorPtr) ||
        !yieldsItselfAdvanced(arg, forOp.yielded(i)))
      continue;
    int rank = rankOf(init);
    // The offsets as iteration arguments; p remade from them in the body.
    std::vector<Value> operands = loop->operands(), carried;
    for (Value o : offsetsOf(init)) operands.push_back(o);
    loop->setOperands(operands);
    for (int d = 0; d < rank; ++d) {
      carried.push_back(body.addArgument(Type::i32()));
      loop->appendResult(Type::i32());
    }
    OpBuilder b;
    b.setLoc(loop->loc());
    b.setInsertionPointToStart(&body);
    arg.replaceAllUsesWith(remake(b, init, carried));
    foldAdvances(loop);
    Operation* yield = body.terminator();
    Operation* next = yield->operand(i).definingOp();  // now a make (the advances folded)
    if (!next || !next->is(OpCode::MakeTensorPtr))
      throw Error("carry-block-pointer-offsets: internal error: the yielded block pointer is not a make");
    std::vector<Value> yielded = yield->operands();
    for (Value o : offsetsOf(next)) yielded.push_back(o);
    yield->setOperands(yielded);
    // The loop's result: remade after the loop from the final offsets.
    Value result = loop->result(i);
    if (!result.uses().empty()) {
      b.setInsertionPointAfter(loop);
      std::vector<Value> finals;
      for (int d = 0; d < rank; ++d) finals.push_back(loop->result(loop->numResults() - rank + d));
      result.replaceAllUsesWith(remake(b, init, finals));
    }
  }
}

}  // namespace

void carryBlockPointerOffsets(Operation* func) {
  foldAdvances(func);
  std::vector<Operation*> loops;  // outermost first
  func->walk([&](Operation* op) {
    if (op->is(OpCode::For)) loops.push_back(op);
  });
  for (Operation* loop : loops) carryOffsets(loop);
  foldAdvances(func);
}

}  // namespace tessera::gpu
