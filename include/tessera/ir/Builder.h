//===- tessera/ir/Builder.h - Creating IR ----------------------*- C++ -*-===//
//
// OpBuilder is the one way to make IR (besides the text parser): it creates
// ops at an insertion point and stamps them with the current location.
//
//   OpBuilder b(&block);                       // insert at the end of block
//   Value c = b.constantInt(Type::i32(), 128);
//   Value x = b.create(OpCode::AddI, {Type::i32()}, {a, c})->result();
//   {
//     OpBuilder::InsertionGuard guard(b);      // restores the point on exit
//     b.setInsertionPointToEnd(&loopBody);
//     ...
//   }
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tessera/ir/IR.h"

namespace tessera::ir {

class OpBuilder {
 public:
  OpBuilder() = default;
  explicit OpBuilder(Block* block) { setInsertionPointToEnd(block); }

  void setInsertionPointToEnd(Block* block) { block_ = block; before_ = nullptr; }
  void setInsertionPointToStart(Block* block) { block_ = block; before_ = block->front(); }
  void setInsertionPoint(Operation* op) { block_ = op->block(); before_ = op; }
  void setInsertionPointAfter(Operation* op) { block_ = op->block(); before_ = op->nextOp(); }
  Block* insertionBlock() const { return block_; }
  Operation* insertionPoint() const { return before_; }

  void setLoc(Location loc) { loc_ = loc; }
  Location loc() const { return loc_; }

  /// Creates an op at the insertion point.
  Operation* create(OpCode code, const std::vector<Type>& resultTypes,
                    const std::vector<Value>& operands, AttrMap attrs = {},
                    unsigned numRegions = 0);
  /// Inserts a detached op at the insertion point.
  Operation* insert(Operation* op);

  // Shorthands.
  Value constantInt(Type type, int64_t value);      ///< scalar or splat tensor
  Value constantFloat(Type type, double value);
  Value constantBool(bool value) { return constantInt(Type::i1(), value ? 1 : 0); }

  /// Restores the builder's insertion point and location on scope exit.
  class InsertionGuard {
   public:
    explicit InsertionGuard(OpBuilder& b) : b_(b), block_(b.block_), before_(b.before_), loc_(b.loc_) {}
    ~InsertionGuard() { b_.block_ = block_; b_.before_ = before_; b_.loc_ = loc_; }

   private:
    OpBuilder& b_;
    Block* block_;
    Operation* before_;
    Location loc_;
  };

 private:
  Block* block_ = nullptr;
  Operation* before_ = nullptr;
  Location loc_;
};

}  // namespace tessera::ir
