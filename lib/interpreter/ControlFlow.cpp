//===- interpreter/ControlFlow.cpp - scf.for/if/while and tt.call ---------===//
//
// Structured control flow runs nested BlockPlans in the same Frame. Values
// flow between blocks (iter_args, yields, results) through Transfers planned
// once: a yielded value defined inside the block just ran is moved by
// swapping buffers (no copy); other values are copied, through a temporary
// when the source is itself overwritten by the same transfer.
//
//===----------------------------------------------------------------------===//

#include <algorithm>

#include "interpreter/Runtime.h"

namespace tessera::interp {
namespace {

using ir::OpCode;

/// One value moving from slot `src` to slot `dst`.
struct Transfer {
  enum Mode : uint8_t { Skip, Swap, Copy, ViaTemp } mode = Copy;
  int src = 0, dst = 0, bytes = 0, temp = -1;
};

/// The transfers of one edge (e.g. loop body yield -> iteration arguments).
struct Edge {
  std::vector<Transfer> moves;
  bool hasTemps = false;
};

/// Plans moving `srcs` into `dsts`. Sources defined by ops of `ranBlock` may
/// be swapped (they are recomputed before their next use).
Edge planEdge(PlanBuilder& b, const std::vector<int>& srcs, const std::vector<int>& dsts,
              const std::vector<int>& bytes, ir::Block* ranBlock, const std::vector<ir::Value>& srcValues) {
  Edge e;
  for (size_t k = 0; k < srcs.size(); ++k) {
    Transfer t;
    t.src = srcs[k];
    t.dst = dsts[k];
    t.bytes = bytes[k];
    bool srcIsDst = std::find(dsts.begin(), dsts.end(), t.src) != dsts.end();
    bool duplicated = std::count(srcs.begin(), srcs.end(), t.src) > 1;
    ir::Value v = k < srcValues.size() ? srcValues[k] : ir::Value();
    bool definedInBlock = ranBlock && v && v.definingOp() && v.definingOp()->block() == ranBlock;
    if (t.src == t.dst) t.mode = Transfer::Skip;
    else if (srcIsDst) t.mode = Transfer::ViaTemp;
    else if (definedInBlock && !duplicated) t.mode = Transfer::Swap;
    else t.mode = Transfer::Copy;
    if (t.mode == Transfer::ViaTemp) {
      t.temp = b.tempSlot(t.bytes);
      e.hasTemps = true;
    }
    e.moves.push_back(t);
  }
  return e;
}

void runEdge(Frame& f, const Edge& e) {
  if (e.hasTemps)
    for (const Transfer& t : e.moves)
      if (t.mode == Transfer::ViaTemp) copySlot(f, t.temp, t.src, t.bytes);
  for (const Transfer& t : e.moves) {
    switch (t.mode) {
    case Transfer::Skip: break;
    case Transfer::Swap: swapSlots(f.slots[t.dst], f.slots[t.src]); break;
    case Transfer::Copy: copySlot(f, t.dst, t.src, t.bytes); break;
    case Transfer::ViaTemp: swapSlots(f.slots[t.dst], f.slots[t.temp]); break;
    }
  }
}

std::vector<int> bytesOf(const std::vector<ir::Value>& values) {
  std::vector<int> out;
  for (ir::Value v : values) out.push_back(storageBytes(v.type()));
  return out;
}

/// Per-op data of control flow instructions.
struct ControlData {
  Edge enter;     ///< for: inits -> iter args; while: inits -> before args
  Edge next;      ///< for: yields -> iter args; while: after yields -> before args
  Edge exit;      ///< for: iter args -> results; if: then yields -> results; while: forwarded -> results
  Edge exitElse;  ///< if: else yields -> results
  Edge forward;   ///< while: forwarded -> after args
  ir::Type ivType;
};

void writeIv(Slot& s, int64_t iv, int bytes) {
  s.ensure(16);
  s.n = 1;
  switch (bytes) {
  case 1: *s.as<int8_t>() = static_cast<int8_t>(iv); break;
  case 2: *s.as<int16_t>() = static_cast<int16_t>(iv); break;
  case 4: *s.as<int32_t>() = static_cast<int32_t>(iv); break;
  default: *s.as<int64_t>() = iv; break;
  }
}

void forOp(const Instr& in, Frame& f) {
  const auto& cd = *static_cast<const ControlData*>(in.aux);
  const BlockPlan& body = *in.regions[0];
  int64_t lb = readInt(f, in.in[0], cd.ivType);
  int64_t ub = readInt(f, in.in[1], cd.ivType);
  int64_t step = readInt(f, in.in[2], cd.ivType);
  int ivBytes = storageBytes(cd.ivType);
  runEdge(f, cd.enter);
  if (step == 0 && lb < ub) runtimeError(in, f, "scf.for with a zero step", "");
  for (int64_t iv = lb; step > 0 ? iv < ub : iv > ub;) {
    countLoopIteration(in, f);
    writeIv(f.slots[body.args[0]], iv, ivBytes);
    runBlock(body, f);
    runEdge(f, cd.next);
    if (__builtin_add_overflow(iv, step, &iv)) break;
  }
  runEdge(f, cd.exit);
}

void ifOp(const Instr& in, Frame& f) {
  const auto& cd = *static_cast<const ControlData*>(in.aux);
  bool cond = f.slots[in.in[0]].data[0] & 1;
  if (cond) {
    runBlock(*in.regions[0], f);
    runEdge(f, cd.exit);
  } else {
    runBlock(*in.regions[1], f);
    runEdge(f, cd.exitElse);
  }
}

void whileOp(const Instr& in, Frame& f) {
  const auto& cd = *static_cast<const ControlData*>(in.aux);
  const BlockPlan& before = *in.regions[0];
  const BlockPlan& after = *in.regions[1];
  runEdge(f, cd.enter);
  for (;;) {
    runBlock(before, f);
    bool cond = f.slots[before.yields[0]].data[0] & 1;
    if (!cond) break;
    countLoopIteration(in, f);
    runEdge(f, cd.forward);
    runBlock(after, f);
    runEdge(f, cd.next);
  }
  runEdge(f, cd.exit);
}

void callOp(const Instr& in, Frame& f) {
  const FunctionPlan& callee = *in.callee;
  ThreadContext& ctx = *f.ctx;
  Frame& cf = acquireCallFrame(ctx, callee);
  for (size_t i = 0; i < in.in.size(); ++i)
    copyAcross(cf.slots[callee.body.args[i]], f.slots[in.in[i]], callee.slotBytes[callee.body.args[i]]);
  runBlock(callee.body, cf);
  for (size_t i = 0; i < in.out.size(); ++i)
    copyAcross(f.slots[in.out[i]], cf.slots[callee.results[i]], callee.slotBytes[callee.results[i]]);
  releaseCallFrame(ctx);
}

std::vector<ir::Value> yieldValues(const BlockPlan& plan) {
  std::vector<ir::Value> v;
  if (plan.terminator)
    for (ir::Value x : plan.terminator->operands()) v.push_back(x);
  return v;
}

}  // namespace

bool buildControlFlow(ir::Operation* op, Instr& in, PlanBuilder& b) {
  switch (op->code()) {
  case OpCode::For: {
    auto cd = std::make_shared<ControlData>();
    cd->ivType = op->operand(0).type();
    in.regions.push_back(b.buildRegion(op->region(0)));
    BlockPlan& body = *in.regions[0];
    std::vector<int> bytes = bytesOf(op->results());
    // Result slots are created after this returns; finishControlFlow plans the exits.
    std::vector<int> iterArgs(body.args.begin() + 1, body.args.end());
    std::vector<int> inits(in.in.begin() + 3, in.in.end());
    std::vector<ir::Value> initValues;
    for (unsigned i = 3; i < op->numOperands(); ++i) initValues.push_back(op->operand(i));
    if (iterArgs.size() != inits.size() || body.yields.size() != inits.size())
      planError(op, "scf.for: iteration arguments do not match");
    cd->enter = planEdge(b, inits, iterArgs, bytes, nullptr, initValues);
    cd->next = planEdge(b, body.yields, iterArgs, bytes, &op->region(0).front(), yieldValues(body));
    in.fn = &forOp;
    in.aux = cd.get();
    in.owned = cd;
    return true;
  }
  case OpCode::If: {
    auto cd = std::make_shared<ControlData>();
    in.regions.push_back(b.buildRegion(op->region(0)));
    in.regions.push_back(op->numRegions() > 1 ? b.buildRegion(op->region(1)) : std::make_unique<BlockPlan>());
    in.fn = &ifOp;
    in.aux = cd.get();
    in.owned = cd;
    return true;
  }
  case OpCode::While: {
    auto cd = std::make_shared<ControlData>();
    in.regions.push_back(b.buildRegion(op->region(0)));
    in.regions.push_back(b.buildRegion(op->region(1)));
    BlockPlan& before = *in.regions[0];
    BlockPlan& after = *in.regions[1];
    std::vector<ir::Value> initValues = op->operands();
    std::vector<int> inits(in.in.begin(), in.in.end());
    if (before.args.size() != inits.size() || before.yields.empty() ||
        after.args.size() + 1 != before.yields.size() || after.yields.size() != inits.size())
      planError(op, "scf.while: region arguments do not match");
    cd->enter = planEdge(b, inits, before.args, bytesOf(initValues), nullptr, initValues);
    std::vector<int> forwarded(before.yields.begin() + 1, before.yields.end());
    std::vector<ir::Value> fwdValues = yieldValues(before);
    if (!fwdValues.empty()) fwdValues.erase(fwdValues.begin());
    cd->forward = planEdge(b, forwarded, after.args, bytesOf(fwdValues), &op->region(0).front(), fwdValues);
    cd->next = planEdge(b, after.yields, before.args, bytesOf(initValues), &op->region(1).front(),
                        yieldValues(after));
    in.fn = &whileOp;
    in.aux = cd.get();
    in.owned = cd;
    return true;
  }
  case OpCode::Call: {
    std::string callee = op->strAttr("callee");
    in.callee = &b.cache->get(callee);
    if (ir::funcBody(in.callee->func).numArguments() != op->numOperands())
      planError(op, "tt.call: wrong number of arguments for @" + callee);
    in.fn = &callOp;
    return true;
  }
  default: return false;
  }
}

/// Completes the control-flow instructions once their result slots exist.
void finishControlFlow(ir::Operation* op, Instr& in, PlanBuilder& b) {
  if (!in.aux) return;
  auto* cd = const_cast<ControlData*>(static_cast<const ControlData*>(in.aux));
  std::vector<ir::Value> results = op->results();
  std::vector<int> bytes = bytesOf(results);
  switch (op->code()) {
  case OpCode::For: {
    const BlockPlan& body = *in.regions[0];
    std::vector<int> iterArgs(body.args.begin() + 1, body.args.end());
    cd->exit = planEdge(b, iterArgs, in.out, bytes, nullptr, {});
    // Iteration arguments are re-initialised on entry, so results may take their buffers.
    for (Transfer& t : cd->exit.moves)
      if (t.mode == Transfer::Copy) t.mode = Transfer::Swap;
    break;
  }
  case OpCode::If: {
    const BlockPlan& thenPlan = *in.regions[0];
    const BlockPlan& elsePlan = *in.regions[1];
    if (thenPlan.yields.size() != in.out.size() || elsePlan.yields.size() != in.out.size())
      planError(op, "scf.if: yields do not match the results");
    cd->exit = planEdge(b, thenPlan.yields, in.out, bytes, &op->region(0).front(), yieldValues(thenPlan));
    if (!in.out.empty())
      cd->exitElse = planEdge(b, elsePlan.yields, in.out, bytes, &op->region(1).front(), yieldValues(elsePlan));
    break;
  }
  case OpCode::While: {
    const BlockPlan& before = *in.regions[0];
    std::vector<int> forwarded(before.yields.begin() + 1, before.yields.end());
    std::vector<ir::Value> fwdValues = yieldValues(before);
    if (!fwdValues.empty()) fwdValues.erase(fwdValues.begin());
    if (forwarded.size() != in.out.size()) planError(op, "scf.while: results do not match");
    cd->exit = planEdge(b, forwarded, in.out, bytes, &op->region(0).front(), fwdValues);
    break;
  }
  default: break;
  }
}

}  // namespace tessera::interp
