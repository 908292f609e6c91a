//===- CSE.cpp - Common subexpression elimination ("cse") ----------------===//
//
// Rewrites: a side-effect-free, region-free op that computes the same thing
// as an op that dominates it (same opcode, operands, attributes and result
// types) is replaced by that earlier op. Operands of commutative ops match in
// either order (a + b == b + a). Float attributes compare by bit pattern, so
// constants 0.0 and -0.0 stay distinct.
//
// Expects: verified IR. Dominance in structured IR is simple: an op dominates
// the ops after it in its block and everything nested in those ops' regions.
// The pass walks each block in order with a scoped hash table; entering a
// region opens a scope that sees the enclosing scopes, leaving it forgets
// what the region defined.
//
// Guarantees: semantics unchanged; every replaced op is erased; linear time in
// the number of ops (one hash lookup per op). Ops with side effects (loads,
// stores, atomics, calls, prints) and ops with regions are never merged.
//
// Why: the code generator repeats address arithmetic, broadcasts and
// constants freely; CSE keeps that from reaching the GPU passes.
//
//===----------------------------------------------------------------------===//

#include <cstring>
#include <unordered_set>

#include "transforms/PassDetail.h"

namespace tessera::transforms {
namespace {

using namespace ir;

/// splitmix64's finalizer: pointers and small integers hash to well-spread
/// values (identity hashes of neighbouring heap pointers collide badly when
/// combined with XOR).
inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
inline size_t combine(size_t seed, size_t v) { return mix(seed ^ mix(v)); }
inline size_t hashPtr(const void* p) { return mix(reinterpret_cast<uintptr_t>(p)); }

size_t hashAttr(const Attribute& a) {
  size_t h = a.index();
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
        } else if constexpr (std::is_same_v<T, double>) {
          uint64_t bits;
          std::memcpy(&bits, &v, 8);
          h = combine(h, std::hash<uint64_t>()(bits));
        } else if constexpr (std::is_same_v<T, Type>) {
          h = combine(h, hashPtr(v.impl()));
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          for (int64_t x : v) h = combine(h, std::hash<int64_t>()(x));
        } else if constexpr (std::is_same_v<T, std::vector<Type>>) {
          for (Type t : v) h = combine(h, hashPtr(t.impl()));
        } else {
          h = combine(h, std::hash<T>()(v));
        }
      },
      a);
  return h;
}

/// Attribute equality with doubles compared bit for bit (0.0 != -0.0,
/// NaN == the same NaN).
bool attrEqual(const Attribute& a, const Attribute& b) {
  if (a.index() != b.index()) return false;
  if (auto* x = std::get_if<double>(&a)) return std::memcmp(x, std::get_if<double>(&b), 8) == 0;
  return a == b;
}

bool attrsEqual(const AttrMap& a, const AttrMap& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
    if (i->first != j->first || !attrEqual(i->second, j->second)) return false;
  return true;
}

struct OpHash {
  size_t operator()(const Operation* op) const {
    size_t h = std::hash<unsigned>()(static_cast<unsigned>(op->code()));
    unsigned n = op->numOperands();
    unsigned first = 0;
    if (op->hasTrait(Commutative) && n >= 2) {
      // Order-independent hash of the first two operands.
      h = combine(h, hashPtr(op->operand(0).impl()) + hashPtr(op->operand(1).impl()));
      first = 2;
    }
    for (unsigned i = first; i < n; ++i) h = combine(h, hashPtr(op->operand(i).impl()));
    for (unsigned i = 0; i < op->numResults(); ++i)
      h = combine(h, hashPtr(op->result(i).type().impl()));
    for (const auto& [name, value] : op->attrs()) h = combine(combine(h, std::hash<std::string>()(name)), hashAttr(value));
    return h;
  }
};

struct OpEqual {
  bool operator()(const Operation* a, const Operation* b) const {
    if (a == b) return true;
    if (a->code() != b->code() || a->numOperands() != b->numOperands() ||
        a->numResults() != b->numResults())
      return false;
    unsigned n = a->numOperands();
    unsigned first = 0;
    if (a->hasTrait(Commutative) && n >= 2) {
      bool same = a->operand(0) == b->operand(0) && a->operand(1) == b->operand(1);
      bool swapped = a->operand(0) == b->operand(1) && a->operand(1) == b->operand(0);
      if (!same && !swapped) return false;
      first = 2;
    }
    for (unsigned i = first; i < n; ++i)
      if (a->operand(i) != b->operand(i)) return false;
    for (unsigned i = 0; i < a->numResults(); ++i)
      if (a->result(i).type() != b->result(i).type()) return false;
    return attrsEqual(a->attrs(), b->attrs());
  }
};

class CSE {
 public:
  size_t numErased() const { return erased_; }

  void runOnRegionsOf(Operation* op) {
    for (unsigned r = 0; r < op->numRegions(); ++r)
      for (unsigned b = 0; b < op->region(r).numBlocks(); ++b) runOnBlock(*op->region(r).block(b));
  }

 private:
  void runOnBlock(Block& block) {
    std::vector<Operation*> scope;  // ops this block added to the table
    Operation* next = nullptr;
    for (Operation* op = block.front(); op; op = next) {
      next = op->nextOp();
      if (op->numRegions() > 0) {
        runOnRegionsOf(op);
        continue;
      }
      if (!isSideEffectFree(op) || op->numResults() == 0) continue;
      auto [it, inserted] = table_.insert(op);
      if (inserted) {
        scope.push_back(op);
        continue;
      }
      Operation* existing = *it;
      for (unsigned i = 0; i < op->numResults(); ++i) op->result(i).replaceAllUsesWith(existing->result(i));
      op->erase();
      ++erased_;
    }
    for (Operation* op : scope) table_.erase(op);
  }

  std::unordered_set<Operation*, OpHash, OpEqual> table_;
  size_t erased_ = 0;
};

class CSEPass : public Pass {
 public:
  void run(Module& module) override {
    for (Operation* func : module.functions()) CSE().runOnRegionsOf(func);
  }
};

}  // namespace

std::unique_ptr<Pass> createCSEPass(const PassOptions&) { return std::make_unique<CSEPass>(); }

}  // namespace tessera::transforms
