//===- LoopIterations.h - Values of a loop body at other iterations -*- C++ -*-===//
//
// Software pipelining computes, in iteration i (or before the loop), what
// iteration i + k (or j) will load. LoopIterations answers whether a value
// of an scf.for body can be recomputed that way and recomputes it: the
// value must be a pure chain (no memory access, no region) of the
// induction variable, the iteration arguments and values from outside the
// loop, and each iteration argument involved must be yielded such a chain
// too (closed over the arguments those chains use). Recomputing clones the
// chain at a builder's insertion point with the block arguments mapped to
// their values in the other iteration. Used by the pipeliner
// (PipelineSchedule.cpp decides with it, PipelineLoops.cpp recomputes).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <set>

#include "tessera/ir/Builder.h"
#include "tessera/ir/IR.h"

namespace tessera::gpu {

class LoopIterations {
 public:
  explicit LoopIterations(ir::Operation* loop) : loop_(loop), body_(loop->region(0).front()) {}

  /// True when every operand of `op` can be recomputed for another
  /// iteration; `args` receives the block arguments involved (0 = the
  /// induction variable), closed over their yielded chains.
  bool computable(ir::Operation* op, std::set<unsigned>& args);
  /// Block arguments -> their values `k` >= 1 iterations after the current
  /// one, built at b's insertion point inside the body (iv + k * step).
  ir::IRMapping ahead(int k, const std::set<unsigned>& args, ir::OpBuilder& b);
  /// Block arguments -> their values in iteration `j` >= 0, built at b's
  /// insertion point before the loop (lb + j * step, the inits yielded j
  /// times).
  ir::IRMapping fromStart(int j, const std::set<unsigned>& args, ir::OpBuilder& b);
  /// `v` in the iteration of `m`: body ops of its chain cloned at b's
  /// insertion point (m memoizes them).
  ir::Value recompute(ir::Value v, ir::IRMapping& m, ir::OpBuilder& b);

 private:
  bool pureChain(ir::Value v, std::set<unsigned>& args, std::set<ir::Operation*>& seen);
  bool isInside(ir::Operation* op) const;
  /// One step on from `m` (which maps every arg in `args` and the iv).
  ir::IRMapping step(const ir::IRMapping& m, const std::set<unsigned>& args, ir::OpBuilder& b);

  ir::Operation* loop_;
  ir::Block& body_;
};

}  // namespace tessera::gpu
