//===- LoopIterations.cpp - Values of a loop body at other iterations -----===//
//
// See LoopIterations.h.
//
//===----------------------------------------------------------------------===//

#include "gpu/LoopIterations.h"

#include "tessera/ir/OpViews.h"

namespace tessera::gpu {

using namespace ir;

bool LoopIterations::computable(Operation* op, std::set<unsigned>& args) {
  std::set<Operation*> seen;
  for (Value v : op->operands())
    if (!pureChain(v, args, seen)) return false;
  // Close over the arguments the yielded chains use.
  Operation* yield = body_.terminator();
  std::set<unsigned> done;
  while (done.size() < args.size()) {
    std::set<unsigned> pending;
    for (unsigned i : args)
      if (!done.count(i)) pending.insert(i);
    for (unsigned i : pending) {
      done.insert(i);
      if (i > 0 && !pureChain(yield->operand(i - 1), args, seen)) return false;
    }
  }
  return true;
}

bool LoopIterations::pureChain(Value v, std::set<unsigned>& args, std::set<Operation*>& seen) {
  Operation* def = v.definingOp();
  if (!def) {
    if (v.parentBlock() == &body_) args.insert(v.index());
    else if (isInside(v.parentBlock()->parentOp())) return false;
    return true;
  }
  if (def->block() != &body_) return !isInside(def);
  if (seen.count(def)) return true;
  if (def->numRegions() != 0 || !def->hasTrait(Pure)) return false;
  seen.insert(def);
  for (Value o : def->operands())
    if (!pureChain(o, args, seen)) return false;
  return true;
}

bool LoopIterations::isInside(Operation* op) const {
  for (Operation* p = op; p; p = p->parentOp())
    if (p == loop_) return true;
  return false;
}

Value LoopIterations::recompute(Value v, IRMapping& m, OpBuilder& b) {
  if (m.contains(v)) return m.lookupOrDefault(v);
  Operation* def = v.definingOp();
  if (!def || def->block() != &body_) return v;  // block arguments are mapped beforehand
  std::vector<Value> operands;
  for (Value o : def->operands()) operands.push_back(recompute(o, m, b));
  IRMapping local;
  for (unsigned i = 0; i < def->numOperands(); ++i) local.map(def->operand(i), operands[i]);
  Operation* copy = b.insert(def->clone(local));
  for (unsigned i = 0; i < def->numResults(); ++i) m.map(def->result(i), copy->result(i));
  return m.lookupOrDefault(v);
}

IRMapping LoopIterations::step(const IRMapping& m, const std::set<unsigned>& args, OpBuilder& b) {
  Operation* yield = body_.terminator();
  IRMapping before = m;  // recompute memoizes into its mapping
  IRMapping next;
  Value iv = body_.argument(0);
  ForOp loop(loop_);
  next.map(iv, b.create(OpCode::AddI, {iv.type()}, {m.lookupOrDefault(iv), loop.step()})->result());
  for (unsigned i : args)  // block argument i > 0 is iteration argument i - 1
    if (i > 0) next.map(loop.iterArg(i - 1), recompute(loop.yielded(i - 1), before, b));
  return next;
}

IRMapping LoopIterations::ahead(int k, const std::set<unsigned>& args, OpBuilder& b) {
  IRMapping m;  // the current iteration: block arguments as they are
  for (int s = 0; s < k; ++s) {
    IRMapping identity = m;
    if (s == 0)
      for (unsigned i : args) identity.map(body_.argument(i), body_.argument(i));
    m = step(identity, args, b);
  }
  return m;
}

IRMapping LoopIterations::fromStart(int j, const std::set<unsigned>& args, OpBuilder& b) {
  IRMapping m;
  ForOp loop(loop_);
  m.map(loop.inductionVar(), loop.lowerBound());
  for (unsigned i : args)
    if (i > 0) m.map(loop.iterArg(i - 1), loop.init(i - 1));
  for (int s = 0; s < j; ++s) m = step(m, args, b);
  return m;
}

}  // namespace tessera::gpu
