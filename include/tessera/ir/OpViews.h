//===- tessera/ir/OpViews.h - Typed views of ops -------------------*- C++ -*-===//
//
// A view is an Operation* of one opcode with named accessors for its
// operands, results and attributes, expanded from the rows of OpViews.def:
//
//   if (auto load = ir::viewAs<ir::LoadOp>(op)) use(load->ptr(), load->mask());
//   ir::TensormapCreateOp create(op);   // asserts the opcode
//   for (size_t d = 0; d < create.rank(); ++d) use(create.shape(d), create.stride(d));
//
// and typed builders for the ops passes make (buildAsyncWait, ...). A view
// holds no state but the op: it is as cheap as the pointer, and stays valid
// as long as the op does.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <vector>

#include "tessera/ir/Builder.h"
#include "tessera/ir/IR.h"

namespace tessera::ir {

/// What every view has: the op.
class OpView {
 public:
  explicit OpView(Operation* op) : op_(op) {}
  Operation* op() const { return op_; }
  Operation* operator->() const { return op_; }
  Value result() const { return op_->result(); }

 protected:
  Operation* op_;
};

#define TESSERA_VIEW(Name)                                                    \
  class Name##Op : public OpView {                                            \
   public:                                                                    \
    static constexpr OpCode kCode = OpCode::Name;                             \
    explicit Name##Op(Operation* op) : OpView(op) { assert(op && op->is(kCode)); }
#define TESSERA_OPERAND(acc, i) \
  Value acc() const { return op_->operand(i); }
#define TESSERA_OPTIONAL(acc, i) \
  Value acc() const { return op_->numOperands() > (i) ? op_->operand(i) : Value(); }
#define TESSERA_OPERANDS(acc, first)                                         \
  std::vector<Value> acc() const {                                           \
    std::vector<Value> out;                                                  \
    for (unsigned k = (first); k < op_->numOperands(); ++k) out.push_back(op_->operand(k)); \
    return out;                                                              \
  }
#define TESSERA_NTH_OPERAND(acc, firstExpr) \
  Value acc(size_t k) const { return op_->operand(static_cast<unsigned>((firstExpr) + k)); }
#define TESSERA_RESULT(acc, i) \
  Value acc() const { return op_->result(i); }
#define TESSERA_INT_ATTR(acc, name, dflt) \
  int64_t acc() const { return op_->intAttr(name, dflt); }
#define TESSERA_BOOL_ATTR(acc, name) \
  bool acc() const { return op_->boolAttr(name); }
#define TESSERA_STR_ATTR(acc, name) \
  std::string acc() const { return op_->strAttr(name); }
#define TESSERA_INTS_ATTR(acc, name) \
  std::vector<int64_t> acc() const { return op_->hasAttr(name) ? op_->intArrayAttr(name) : std::vector<int64_t>{}; }
#define TESSERA_DERIVED(type, acc, expr) \
  type acc() const { return expr; }
#define TESSERA_NTH(type, acc, expr) \
  type acc(size_t k) const { return expr; }
#define TESSERA_BODY(acc) \
  Block& acc() const { return op_->region(0).front(); }
#define TESSERA_END_VIEW \
  };

#include "tessera/ir/OpViews.def"

#undef TESSERA_VIEW
#undef TESSERA_OPERAND
#undef TESSERA_OPTIONAL
#undef TESSERA_OPERANDS
#undef TESSERA_NTH_OPERAND
#undef TESSERA_RESULT
#undef TESSERA_INT_ATTR
#undef TESSERA_BOOL_ATTR
#undef TESSERA_STR_ATTR
#undef TESSERA_INTS_ATTR
#undef TESSERA_DERIVED
#undef TESSERA_NTH
#undef TESSERA_BODY
#undef TESSERA_END_VIEW

/// `op` as a View when it has the View's opcode (null-safe), else nullopt.
template <class View>
std::optional<View> viewAs(Operation* op) {
  if (!op || !op->is(View::kCode)) return std::nullopt;
  return View(op);
}

/// The op defining `v` as a View, when it is one.
template <class View>
std::optional<View> definingAs(Value v) {
  return v ? viewAs<View>(v.definingOp()) : std::nullopt;
}

// Typed builders: the ops passes make, with their attributes by name.
/// ttg.async_wait {num}: at most `num` committed copy groups in flight.
AsyncWaitOp buildAsyncWait(OpBuilder& b, int64_t num);
/// ttng.warp_group_dot_wait {pendings} of `waited`, returning them.
WarpGroupDotWaitOp buildWarpGroupDotWait(OpBuilder& b, const std::vector<Value>& waited, int64_t pendings);
/// ttng.barrier_expect: barrier `index` of `barriers` expects `bytes` when `pred`.
BarrierExpectOp buildBarrierExpect(OpBuilder& b, Value barriers, Value index, Value pred, int64_t bytes);
/// ttng.wait_barrier: waits for barrier `index` to complete the phase of parity `phase`.
WaitBarrierOp buildWaitBarrier(OpBuilder& b, Value barriers, Value index, Value phase);
/// ttng.arrive_barrier: lane 0 of every warp arrives on barrier `index` when `pred`.
ArriveBarrierOp buildArriveBarrier(OpBuilder& b, Value barriers, Value index, Value pred);
/// ttng.init_barriers {count} of a buffer of mbarriers (count 1, the
/// default, is not written).
InitBarriersOp buildInitBarriers(OpBuilder& b, Value barriers, int64_t count);

}  // namespace tessera::ir
