//===- WarpSpecialize.cpp - The producer warpgroup of a TMA pipeline -------===//
//
// See WarpSpecialize.h. The producer region is built in place with the
// kernel body's values; isolateProducer then copies the scalar chains that
// compute them (program ids, offsets, loop bounds, tensor descriptors)
// into the region, so the producer warps, which skip the body, compute
// them themselves; those of a persistent loop's body go into the
// producer's own copy of that loop. A tensor descriptor made again this way gets its own
// slot, written by the producer's thread, the one that copies with it.
//
//===----------------------------------------------------------------------===//

#include "gpu/WarpSpecialize.h"

#include <algorithm>
#include <functional>

#include "tessera/ir/Builder.h"

namespace tessera::gpu {

using namespace ir;

bool producerCanCompute(Value v, std::set<Operation*>& seen, Operation* outer) {
  Block* outerBody = outer ? &outer->region(0).front() : nullptr;
  Operation* def = v.definingOp();
  if (!def) {
    Operation* owner = v.parentBlock()->parentOp();
    return owner && (owner->is(OpCode::Func) || (v.parentBlock() == outerBody && v.index() == 0));
  }
  if (seen.count(def)) return true;
  Operation* parent = def->parentOp();
  bool inEntry = parent && parent->is(OpCode::Func);
  if (!(inEntry || (outerBody && def->block() == outerBody)) || def->numRegions() != 0) return false;
  for (Value r : def->results())
    if (r.type().isTensor()) return false;
  if (!def->hasTrait(Pure) && !def->is(OpCode::TensormapCreate)) return false;
  seen.insert(def);
  for (Value o : def->operands())
    if (!producerCanCompute(o, seen, outer)) return false;
  return true;
}

void isolateProducer(Operation* ws, Operation* outer, Operation* producerOuter) {
  std::set<Operation*> before;  // what the consumers and the producer share
  for (Operation* op = ws->prevOp(); op; op = op->prevOp()) before.insert(op);
  Block& region = ws->region(0).front();
  Block* outerBody = outer ? &outer->region(0).front() : nullptr;
  OpBuilder atStart, inOuter;
  atStart.setInsertionPointToStart(&region);
  IRMapping copies;
  if (outer) {
    inOuter.setInsertionPointToStart(&producerOuter->region(0).front());
    copies.map(outerBody->argument(0), producerOuter->region(0).front().argument(0));
  }
  std::function<Value(Value)> bring = [&](Value v) -> Value {
    if (copies.contains(v)) return copies.lookupOrDefault(v);
    Operation* def = v.definingOp();
    if (!def || before.count(def) || ws->isAncestorOf(def)) return v;
    IRMapping local;
    for (Value o : def->operands()) local.map(o, bring(o));
    OpBuilder& b = outerBody && def->block() == outerBody ? inOuter : atStart;
    b.setLoc(def->loc());
    Operation* copy = b.insert(def->clone(local));
    for (unsigned i = 0; i < def->numResults(); ++i) copies.map(def->result(i), copy->result(i));
    return copies.lookupOrDefault(v);
  };
  std::vector<Operation*> ops;
  ws->walk([&](Operation* op) {
    if (op != ws) ops.push_back(op);
  });
  for (Operation* op : ops)
    for (unsigned i = 0; i < op->numOperands(); ++i) {
      Value v = op->operand(i);
      Operation* def = v.definingOp();
      bool inside = def ? ws->isAncestorOf(def) : ws->isAncestorOf(v.parentBlock()->parentOp());
      if (!inside) op->setOperand(i, bring(v));
    }
}

std::pair<int64_t, int64_t> producerConsumerRegisters(int64_t numWarps) {
  // 64K registers over the launch's threads, of one CTA per multiprocessor
  // from 8 warps on and of two below (a 4-warp attention program fits twice
  // in shared memory), a multiple of 8; the producer keeps 40 of them per
  // thread (its loop and the copies' coordinates), the consumers share the
  // rest: 232 each at 8 warps, 216 at 4.
  constexpr int64_t kRegisters = 65536, kProducer = 40, kMax = 248;
  int64_t ctas = numWarps < 8 ? 2 : 1;
  int64_t threads = 32 * (numWarps + 4);
  int64_t atLaunch = std::min(kRegisters / (ctas * threads) / 8 * 8, kMax);
  int64_t consumer = (atLaunch * threads - kProducer * 128) / (32 * numWarps) / 8 * 8;
  return {kProducer, std::min(consumer, kMax)};
}

}  // namespace tessera::gpu
