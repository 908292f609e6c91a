//===- tessera/gpu/AxisInfo.h - Contiguity, divisibility, constancy -*- C++ -*-===//
//
// The analysis coalescing and vectorization rely on (Triton's AxisInfo).
// For every integer or pointer value (scalar or tensor) and every tensor dim d:
//
//   contiguity[d]    the largest power of two c such that, along d, the value
//                    increases by exactly 1 between neighbours in every
//                    aligned group of c elements (pointers: by 1 element)
//   divisibility[d]  the largest power of two that divides the first element
//                    of every such group (pointers: in BYTES, as Triton's
//                    tt.divisibility; integers: the value itself); capped at
//                    2^30 (the "known multiple" of 0 is the cap)
//   constancy[d]     the largest power of two c such that every aligned
//                    group of c elements along d holds one value
//
// Scalars have rank-1 vectors of one entry (contiguity 1, constancy 1).
// Seeds: function arguments from their `tt.divisibility` attrs (16 when the
// launch specialized them, DESIGN §1; pointers and ints alike) and ints
// specialized to 1 are constants; tt.make_range is contiguous with
// divisibility of its start; constants are constant and divisible by their
// largest power-of-two factor; tt.hint carries user hints
// (tl.multiple_of -> divisibility, tl.max_contiguous -> contiguity,
// tl.max_constancy -> constancy); tt.get_program_id is divisible by 1.
// Transfer functions follow Triton's rules for addi/subi/muli/divsi/remsi/
// shifts/and/or/select/splat/broadcast/expand_dims/addptr/cmp/ext/trunc;
// loop iteration arguments and results meet over the init and the yield
// (a fixpoint over scf.for/while/if), anything else is the pessimistic value
// (1, 1, 1).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tessera/ir/IR.h"

namespace tessera::gpu {

struct AxisInfo {
  std::vector<int64_t> contiguity;
  std::vector<int64_t> divisibility;
  std::vector<int64_t> constancy;
  /// Known constant value (scalars and splats), if any.
  std::optional<int64_t> constantValue;

  static constexpr int64_t kMaxDivisor = int64_t{1} << 30;
  /// (1, 1, 1) per dim: nothing known.
  static AxisInfo pessimistic(int rank);
  std::string str() const;  ///< "contiguity = [..], divisibility = [..], constancy = [..]"
  bool operator==(const AxisInfo& o) const {
    return contiguity == o.contiguity && divisibility == o.divisibility && constancy == o.constancy &&
           constantValue == o.constantValue;
  }
};

class AxisInfoAnalysis {
 public:
  /// Analyses one function (a tt.func op) and everything nested in it.
  explicit AxisInfoAnalysis(ir::Operation* func);

  /// The info of an integer or pointer value; pessimistic for values it has
  /// no facts about (floats, values outside the function).
  const AxisInfo& get(ir::Value v) const;

  /// For a pointer tensor accessed along `dim`: how many consecutive elements
  /// one thread can move in one instruction given contiguity and alignment:
  /// min(contiguity[dim], divisibility[dim] / elementBytes) (at least 1).
  int64_t vectorElements(ir::Value ptr, int dim) const;
  /// For a mask tensor: the constancy along `dim` (at least 1); a null mask
  /// gives kMaxDivisor.
  int64_t maskConstancy(ir::Value mask, int dim) const;

 private:
  std::map<ir::ValueImpl*, AxisInfo> info_;
  AxisInfo pessimisticScalar_;
  mutable std::map<int, AxisInfo> pessimisticByRank_;
};

/// The vector accesses of a tensor memory op on `ptr` (mask `mask`, may be
/// null) in layout `ll`: `elements` consecutive elements along `dim` per
/// access (1: scalar accesses), from the pointers' contiguity and alignment,
/// the mask's constancy and the layout (every basis outside the vector
/// moves by whole vectors); sub-word vectors count as 1.
struct AccessVector {
  int dim = 0;
  int64_t elements = 1;
};
class LinearLayout;
AccessVector accessVector(const AxisInfoAnalysis& axis, ir::Value ptr, ir::Value mask, const LinearLayout& ll,
                          int64_t elemBytes);

}  // namespace tessera::gpu
