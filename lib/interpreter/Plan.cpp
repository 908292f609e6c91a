//===- interpreter/Plan.cpp - Compiling tt.func into execution plans ------===//
//
// Assigns every SSA value of a function (nested regions included) a slot of
// one Frame, and turns each op into an Instr by asking the per-area builders
// (arith, casts, math, memory, tensor ops, reductions, control flow, debug,
// extern functions) in turn. Ops nobody claims are reported as unsupported.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <iterator>

#include "interpreter/Runtime.h"

namespace tessera::interp {

int storageBytes(ir::Type t) {
  t = t.elementType();
  if (t.isBlockPointer()) return 0;
  if (t.isPointer()) return 8;
  if (t.isInteger(1)) return 1;
  return static_cast<int>(t.byteWidth());
}

const FunctionPlan& PlanCache::get(std::string_view name) {
  for (auto& p : plans_)
    if (p->name == name) return *p;
  ir::Operation* func = module_.lookup(name);
  if (!func || !func->is(ir::OpCode::Func)) {
    std::string names;
    for (ir::Operation* f : module_.functions()) names += (names.empty() ? "" : ", ") + ir::funcName(f);
    throw Error("interpreter: no function '" + std::string(name) + "' in the module (functions: " +
                names + ")");
  }
  auto plan = std::make_unique<FunctionPlan>();
  plan->name = std::string(name);
  plan->func = func;
  FunctionPlan* raw = plan.get();
  plans_.push_back(std::move(plan));  // visible before building: recursive calls find it
  PlanBuilder builder;
  builder.cache = this;
  builder.plan = raw;
  ir::Block& body = ir::funcBody(func);
  builder.buildBlock(body, raw->body);
  raw->results = raw->body.yields;
  return *raw;
}

int PlanBuilder::newSlot(ir::Value v) {
  int index = plan->numSlots++;
  plan->slotBytes.push_back(storageBytes(v.type()));
  slotOf[v.impl()] = index;
  return index;
}

int PlanBuilder::tempSlot(int bytes) {
  plan->slotBytes.push_back(bytes);
  return plan->numSlots++;
}

int PlanBuilder::slot(ir::Value v) {
  auto it = slotOf.find(v.impl());
  if (it == slotOf.end()) planError(v.definingOp(), "use of a value before its definition");
  return it->second;
}

std::unique_ptr<BlockPlan> PlanBuilder::buildRegion(ir::Region& region) {
  auto plan = std::make_unique<BlockPlan>();
  if (!region.empty()) buildBlock(region.front(), *plan);
  return plan;
}

namespace {
bool isLaneSafe(ir::Operation* op) {
  if (op->numRegions() != 0) return false;
  for (ir::Value v : op->operands())
    if (v.type().isTensor() || v.type().isBlockPointer()) return false;
  for (ir::Value v : op->results())
    if (v.type().isTensor() || v.type().isBlockPointer()) return false;
  if (op->is(ir::OpCode::Constant) || op->is(ir::OpCode::Hint)) return true;
  if (op->is(ir::OpCode::InlineAsm)) return false;
  return op->hasTrait(ir::Elementwise);
}
}  // namespace

void PlanBuilder::buildBlock(ir::Block& block, BlockPlan& out) {
  for (unsigned i = 0; i < block.numArguments(); ++i) out.args.push_back(newSlot(block.argument(i)));
  for (ir::Operation* op = block.front(); op; op = op->nextOp()) {
    if (op->hasTrait(ir::Terminator)) {
      out.terminator = op;
      for (ir::Value v : op->operands()) {
        out.yields.push_back(slot(v));
        out.yieldBytes.push_back(storageBytes(v.type()));
      }
      break;
    }
    Instr instr;
    instr.op = op;
    for (ir::Value v : op->operands()) instr.in.push_back(slot(v));
    if (op->numResults() > 0) {
      instr.count = op->result(0).type().numElements();
      instr.elemBytes = storageBytes(op->result(0).type());
    }
    if (!isLaneSafe(op)) out.laneSafe = false;
    // Regions are built before results get slots; results are not visible inside.
    bool handled = buildControlFlow(op, instr, *this) || buildReduction(op, instr, *this);
    for (ir::Value v : op->results()) instr.out.push_back(newSlot(v));
    if (handled) finishControlFlow(op, instr, *this);
    // Builders may scribble on the parameters before declining an op: reset between tries.
    auto attempt = [&](bool (*build)(ir::Operation*, Instr&, PlanBuilder&)) {
      if (handled) return;
      std::fill(std::begin(instr.p), std::end(instr.p), 0);
      instr.d = 0;
      instr.v.clear();
      instr.v2.clear();
      instr.aux = nullptr;
      handled = build(op, instr, *this);
    };
    for (auto build : {buildArith, buildCast, buildMath, buildMemory, buildTensorOp, buildDebug, buildExtern})
      attempt(build);
    if (!handled) planError(op, "operation '" + std::string(op->name()) + "' is not supported");
    out.instrs.push_back(std::move(instr));
  }
}

}  // namespace tessera::interp
