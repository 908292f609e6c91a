//===- WrittenParams.cpp - Which tensor arguments a kernel may write -------===//
//
// The autotuner saves the tensors a sweep may clobber and restores them
// after it (Autotuner.cpp). Saving every tensor argument doubles the memory
// and copies of a sweep over large inputs the kernel only reads; this
// analysis finds the parameters whose memory the kernel may write, so only
// those are saved.
//
// It over-approximates, on the kernel's Tile IR: every value is tagged with
// the pointer parameters it may be derived from (the union over its
// operands, through regions and their terminators, to a fixed point; what a
// load or an atomic returns is data and gets no tag), and a
// parameter is written when a tagged value is the pointer operand of a
// store or an atomic, or any operand of a call, inline assembly or an
// external function. Pointers the analysis cannot
// trace to a parameter (tt.int_to_ptr, pointers loaded from memory) make it
// give up: std::nullopt, and the autotuner saves everything.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <map>

#include "Internal.h"

namespace tessera::detail {

namespace {

bool holdsPointers(ir::Type t) { return t.isPointer() || t.elementType().isPointer(); }

/// Tags of values: bit p set when the value may derive from parameter p.
class Tags {
 public:
  uint64_t of(ir::Value v) const {
    auto it = tags_.find(v.impl());
    return it == tags_.end() ? 0 : it->second;
  }
  /// ORs `bits` in; true when that changed the tag.
  bool add(ir::Value v, uint64_t bits) {
    uint64_t& t = tags_[v.impl()];
    uint64_t before = t;
    t |= bits;
    return t != before;
  }

 private:
  std::map<ir::ValueImpl*, uint64_t> tags_;
};

/// One pass of propagation over `func`; true when a tag changed.
bool propagate(ir::Operation* func, Tags& tags) {
  bool changed = false;
  func->walk([&](ir::Operation* op) {
    // What loads and atomics return is data, not derived from their
    // pointers (pointers loaded from memory make the analysis give up).
    if (op->is(ir::OpCode::Load) || op->is(ir::OpCode::AtomicRMW) || op->is(ir::OpCode::AtomicCAS)) return;
    uint64_t in = 0;
    for (const ir::Value& v : op->operands()) in |= tags.of(v);
    // Values flowing out of the op's regions (yields, conditions, reduce
    // returns) reach its results and, for loops, its region arguments.
    for (unsigned r = 0; r < op->numRegions(); ++r)
      for (unsigned b = 0; b < op->region(r).numBlocks(); ++b)
        if (ir::Operation* term = op->region(r).block(b)->terminator())
          for (const ir::Value& v : term->operands()) in |= tags.of(v);
    if (!in) return;
    for (const ir::Value& res : op->results()) changed |= tags.add(res, in);
    if (op->is(ir::OpCode::Func)) return;  // its arguments are the parameters
    for (unsigned r = 0; r < op->numRegions(); ++r)
      for (unsigned b = 0; b < op->region(r).numBlocks(); ++b)
        for (const ir::Value& arg : op->region(r).block(b)->arguments()) changed |= tags.add(arg, in);
  });
  return changed;
}

}  // namespace

std::optional<std::vector<bool>> writtenArguments(const CompiledKernelImpl& kernel) {
  if (!kernel.module) return std::nullopt;
  ir::Operation* func = kernel.module->lookup(kernel.name);
  if (!func || func->numRegions() == 0 || func->region(0).empty()) return std::nullopt;
  ir::Block& entry = func->region(0).front();
  // Untraceable pointers anywhere in the module (callees included).
  bool untraceable = false;
  kernel.module->walk([&](ir::Operation* op) {
    if (op->is(ir::OpCode::IntToPtr)) untraceable = true;
    if (op->is(ir::OpCode::Load))
      for (const ir::Value& res : op->results()) untraceable |= holdsPointers(res.type());
  });
  if (untraceable) return std::nullopt;

  // One tag bit per argument that holds pointers (a descriptor's sizes and
  // other scalars need none).
  Tags tags;
  std::vector<int> bit(entry.numArguments(), -1);
  int bits = 0;
  for (unsigned i = 0; i < entry.numArguments(); ++i) {
    if (!holdsPointers(entry.argument(i).type())) continue;
    if (bits == 64) return std::nullopt;
    bit[i] = bits++;
    tags.add(entry.argument(i), uint64_t(1) << bit[i]);
  }
  while (propagate(func, tags)) {
  }  // terminates: tags only grow, 64 bits each

  // Callees, inline assembly and external functions are opaque: they count
  // as writing through every operand they are given, pointers or not (an
  // address can travel as an integer: tt.ptr_to_int keeps its tag).
  uint64_t written = 0;
  func->walk([&](ir::Operation* op) {
    bool opaque = op->is(ir::OpCode::Call) || op->is(ir::OpCode::InlineAsm) || op->is(ir::OpCode::ExternElementwise);
    if (!opaque && !op->hasTrait(ir::OpTraits::MemWrite)) return;
    for (const ir::Value& v : op->operands())
      if (opaque || holdsPointers(v.type())) written |= tags.of(v);
  });
  std::vector<bool> out(entry.numArguments(), false);
  for (size_t i = 0; i < out.size(); ++i) out[i] = bit[i] >= 0 && ((written >> bit[i]) & 1);
  return out;
}

std::optional<std::vector<bool>> writtenParams(const CompiledKernelImpl& kernel, size_t numParams) {
  std::optional<std::vector<bool>> args = writtenArguments(kernel);
  if (!args) return std::nullopt;
  std::vector<bool> out(numParams, false);
  for (size_t i = 0; i < args->size(); ++i) {
    if (i >= kernel.argToParam.size()) return std::nullopt;
    int param = kernel.argToParam[i];
    if (param < 0 || static_cast<size_t>(param) >= numParams) return std::nullopt;
    if ((*args)[i]) out[static_cast<size_t>(param)] = true;
  }
  return out;
}

}  // namespace tessera::detail
