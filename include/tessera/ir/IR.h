//===- tessera/ir/IR.h - Tile IR core classes -------------------*- C++ -*-===//
//
// A small MLIR-shaped IR (DESIGN.md decision 3).
//
// Ownership (STYLE.md §5), decided once:
//   Module   owns its functions (tt.func Operations)
//   Operation owns its Regions, its results (ValueImpl) and its operands (OpOperand)
//   Region   owns its Blocks          (structured control flow: one block each)
//   Block    owns its arguments and its Operations (intrusive list)
// Value is a cheap handle to a result or block argument. Use-lists are exact:
// every OpOperand is linked into its value's use-list, so replaceAllUsesWith
// and hasUses are O(uses). Erasing an op whose results still have uses is a
// bug: Operation::erase asserts, and the verifier reports it.
//
// IR is made only through OpBuilder (Builder.h) or the text parser.
//
// Text form (stable; print -> parse -> print is identical):
//
//   tt.func @add(%arg0: !tt.ptr<f32> {tt.divisibility = 16}, %arg1: i32) attributes {kernel = true} {
//     %0 = tt.get_program_id {axis = 0} : i32
//     %1 = arith.muli %0, %c128 : i32
//     %2:2 = scf.for %lb, %ub, %st, %a0, %b0 : f32, f32 {
//     ^bb0(%iv: i32, %a: f32, %b: f32):
//       scf.yield %a, %b
//     }
//     tt.return
//   }
//
// i.e. every op prints as
//   [results =] mnemonic [operands] [{attrs}] [: result types] [regions]
// Operand types come from their definitions. Locations print as
// `loc("file":line:col)` at the end of the op when asked for.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cassert>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tessera/ir/Types.h"

namespace tessera::ir {

//===----------------------------------------------------------------------===//
// Opcodes and traits
//===----------------------------------------------------------------------===//

enum OpTraits : unsigned {
  Pure = 1u << 0,
  Commutative = 1u << 1,
  Elementwise = 1u << 2,
  SameType = 1u << 3,
  Terminator = 1u << 4,
  MemRead = 1u << 5,
  MemWrite = 1u << 6,
};

enum class OpCode : uint16_t {
#define TESSERA_OP(Name, Mnemonic, Traits) Name,
#include "tessera/ir/Ops.def"
#undef TESSERA_OP
};
constexpr unsigned kNumOpCodes = 0
#define TESSERA_OP(Name, Mnemonic, Traits) +1
#include "tessera/ir/Ops.def"
#undef TESSERA_OP
    ;

/// "arith.addi" etc.
std::string_view mnemonic(OpCode code);
/// Looks a mnemonic up; nullopt if unknown.
std::optional<OpCode> opCodeFromMnemonic(std::string_view mnemonic);
unsigned traitsOf(OpCode code);
inline bool hasTrait(OpCode code, OpTraits trait) { return (traitsOf(code) & trait) != 0; }

//===----------------------------------------------------------------------===//
// Attributes and locations
//===----------------------------------------------------------------------===//

/// An attribute value. Integers (incl. u64 bit patterns) are int64; floats
/// double; arrays of ints for shapes/orders; types; arrays of types.
using Attribute = std::variant<std::monostate, bool, int64_t, double, std::string,
                               std::vector<int64_t>, Type, std::vector<Type>>;
/// Attributes of an op, sorted by name (std::map keeps printing stable).
using AttrMap = std::map<std::string, Attribute, std::less<>>;

std::string attributeToString(const Attribute& attr);

/// A source position (file name interned; 0 = unknown).
struct Location {
  const std::string* file = nullptr;
  int line = 0;
  int col = 0;
  static Location get(std::string_view file, int line, int col);  ///< interns the name
  bool known() const { return file != nullptr && line > 0; }
};

//===----------------------------------------------------------------------===//
// Values and uses
//===----------------------------------------------------------------------===//

class Operation;
class Block;
class Region;
struct OpOperand;

/// Storage of a value: an op result or a block argument.
struct ValueImpl {
  Type type;
  OpOperand* firstUse = nullptr;
  Operation* definingOp = nullptr;  ///< set for op results
  Block* ownerBlock = nullptr;      ///< set for block arguments
  unsigned index = 0;               ///< result number or argument number
};

/// A handle to a value. Null by default.
class Value {
 public:
  Value() = default;
  Value(ValueImpl* impl) : impl_(impl) {}
  explicit operator bool() const { return impl_ != nullptr; }
  bool operator==(Value o) const { return impl_ == o.impl_; }
  bool operator!=(Value o) const { return impl_ != o.impl_; }
  bool operator<(Value o) const { return impl_ < o.impl_; }

  Type type() const { return impl_->type; }
  void setType(Type t) { impl_->type = t; }
  /// The op that defines this value (null for block arguments).
  Operation* definingOp() const { return impl_->definingOp; }
  /// The block whose argument this is (null for op results).
  Block* ownerBlock() const { return impl_->ownerBlock; }
  /// The block the value is defined in (argument's block or op's block).
  Block* parentBlock() const;
  bool isBlockArgument() const { return impl_->ownerBlock != nullptr; }
  unsigned index() const { return impl_->index; }

  bool hasUses() const { return impl_->firstUse != nullptr; }
  bool hasOneUse() const;
  /// The operands that use this value (snapshot; safe to mutate while iterating).
  std::vector<OpOperand*> uses() const;
  /// Makes every use of this value use `other` instead.
  void replaceAllUsesWith(Value other);

  ValueImpl* impl() const { return impl_; }

 private:
  ValueImpl* impl_ = nullptr;
};

/// One operand slot of an op, linked into its value's use-list.
struct OpOperand {
  Operation* owner = nullptr;
  ValueImpl* value = nullptr;
  OpOperand* nextUse = nullptr;
  OpOperand** prevUse = nullptr;  ///< points at the field that points at this
  unsigned index = 0;

  Value get() const { return Value(value); }
  void set(Value v);  ///< unlinks from the old value's uses, links into v's
  void drop();        ///< unlinks and clears
};

//===----------------------------------------------------------------------===//
// Operation
//===----------------------------------------------------------------------===//

class IRMapping;

class Operation {
 public:
  /// Creates a detached op. Use OpBuilder to create and insert in one step.
  static Operation* create(OpCode code, Location loc, const std::vector<Type>& resultTypes,
                           const std::vector<Value>& operands, AttrMap attrs = {},
                           unsigned numRegions = 0);
  ~Operation();
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  OpCode code() const { return code_; }
  std::string_view name() const { return mnemonic(code_); }
  bool is(OpCode c) const { return code_ == c; }
  bool hasTrait(OpTraits t) const { return ir::hasTrait(code_, t); }
  Location loc() const { return loc_; }
  void setLoc(Location loc) { loc_ = loc; }

  // Operands.
  unsigned numOperands() const { return static_cast<unsigned>(operands_.size()); }
  Value operand(unsigned i) const { return operands_[i]->get(); }
  std::vector<Value> operands() const;
  OpOperand& operandSlot(unsigned i) { return *operands_[i]; }
  void setOperand(unsigned i, Value v) { operands_[i]->set(v); }
  void setOperands(const std::vector<Value>& values);  ///< replaces all (count may change)
  void eraseOperand(unsigned i);

  // Results.
  unsigned numResults() const { return static_cast<unsigned>(results_.size()); }
  Value result(unsigned i = 0) const { return Value(results_[i].get()); }
  std::vector<Value> results() const;
  std::vector<Type> resultTypes() const;
  /// Adds a result at the end (used when passes add loop-carried values).
  Value appendResult(Type type);
  void eraseResult(unsigned i);  ///< asserts it has no uses

  // Attributes.
  const AttrMap& attrs() const { return attrs_; }
  bool hasAttr(std::string_view name) const { return attrs_.find(name) != attrs_.end(); }
  const Attribute* attr(std::string_view name) const;
  void setAttr(std::string name, Attribute value) { attrs_[std::move(name)] = std::move(value); }
  void removeAttr(std::string_view name);
  // Typed getters with defaults.
  int64_t intAttr(std::string_view name, int64_t dflt = 0) const;
  double floatAttr(std::string_view name, double dflt = 0) const;
  bool boolAttr(std::string_view name, bool dflt = false) const;
  std::string strAttr(std::string_view name, std::string dflt = "") const;
  std::vector<int64_t> intArrayAttr(std::string_view name) const;

  // Regions.
  unsigned numRegions() const { return static_cast<unsigned>(regions_.size()); }
  Region& region(unsigned i) { return *regions_[i]; }
  const Region& region(unsigned i) const { return *regions_[i]; }

  // Position.
  Block* block() const { return block_; }
  /// The op whose region contains this op's block (null at function level).
  Operation* parentOp() const;
  Operation* nextOp() const { return next_; }
  Operation* prevOp() const { return prev_; }
  /// True if this op is `other` or nested inside one of its regions.
  bool isAncestorOf(const Operation* other) const;

  /// Unlinks from the block and deletes. Asserts no result has uses.
  void erase();
  /// Unlinks from the block without deleting (the caller owns it now).
  void remove();
  void moveBefore(Operation* other);
  void moveAfter(Operation* other);
  /// Drops all operand uses (recursively in regions); use before erasing a
  /// tree of ops that reference each other.
  void dropAllReferences();

  /// Deep copy; operands are remapped through `mapping` (unmapped operands
  /// stay), new results/block args are recorded in it.
  Operation* clone(IRMapping& mapping) const;

  /// Pre-order walk over this op and everything nested in it.
  void walk(const std::function<void(Operation*)>& fn);
  /// Post-order walk (children first); safe to erase the visited op.
  void walkPostOrder(const std::function<void(Operation*)>& fn);

 private:
  Operation(OpCode code, Location loc);
  friend class Block;
  OpCode code_;
  Location loc_;
  std::vector<std::unique_ptr<OpOperand>> operands_;
  std::vector<std::unique_ptr<ValueImpl>> results_;
  AttrMap attrs_;
  std::vector<std::unique_ptr<Region>> regions_;
  Block* block_ = nullptr;
  Operation* prev_ = nullptr;
  Operation* next_ = nullptr;
};

/// Old value -> new value, used by clone and the inliner.
class IRMapping {
 public:
  void map(Value from, Value to) { values_[from.impl()] = to.impl(); }
  void map(Block* from, Block* to) { blocks_[from] = to; }
  Value lookupOrDefault(Value v) const {
    auto it = values_.find(v.impl());
    return it == values_.end() ? v : Value(it->second);
  }
  Value lookupOrNull(Value v) const {
    auto it = values_.find(v.impl());
    return it == values_.end() ? Value() : Value(it->second);
  }
  bool contains(Value v) const { return values_.count(v.impl()) != 0; }

 private:
  std::map<ValueImpl*, ValueImpl*> values_;
  std::map<Block*, Block*> blocks_;
};

//===----------------------------------------------------------------------===//
// Block and Region
//===----------------------------------------------------------------------===//

class Block {
 public:
  Block() = default;
  ~Block();
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  // Arguments.
  unsigned numArguments() const { return static_cast<unsigned>(args_.size()); }
  Value argument(unsigned i) const { return Value(args_[i].get()); }
  std::vector<Value> arguments() const;
  Value addArgument(Type type);
  void eraseArgument(unsigned i);  ///< asserts it has no uses

  // Operations (intrusive list).
  Operation* front() const { return first_; }
  Operation* back() const { return last_; }
  bool empty() const { return first_ == nullptr; }
  /// The last op if it is a terminator, else null.
  Operation* terminator() const;
  void push_back(Operation* op);
  void push_front(Operation* op);
  /// Inserts `op` before `before` (at the end when before is null).
  void insert(Operation* before, Operation* op);
  /// Ops in order (snapshot; safe to erase while iterating).
  std::vector<Operation*> ops() const;
  size_t size() const;

  Region* parent() const { return parent_; }
  /// The op owning the region of this block.
  Operation* parentOp() const;
  /// The op of this block that is `op` or contains it (null if none).
  Operation* findAncestorOp(Operation* op) const;

  /// Iterate without allocating: for (Operation* op = b.front(); op; op = op->nextOp()).

 private:
  friend class Operation;
  friend class Region;
  std::vector<std::unique_ptr<ValueImpl>> args_;
  Operation* first_ = nullptr;
  Operation* last_ = nullptr;
  Region* parent_ = nullptr;
};

class Region {
 public:
  explicit Region(Operation* parent) : parent_(parent) {}
  ~Region();
  bool empty() const { return blocks_.empty(); }
  unsigned numBlocks() const { return static_cast<unsigned>(blocks_.size()); }
  Block& front() { return *blocks_.front(); }
  const Block& front() const { return *blocks_.front(); }
  Block* block(unsigned i) { return blocks_[i].get(); }
  Block* addBlock();  ///< appends a new empty block
  /// Moves all blocks out of `other` into this region.
  void takeBody(Region& other);
  Operation* parentOp() const { return parent_; }

 private:
  Operation* parent_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

/// A compilation unit: the functions (tt.func ops) of one kernel and its
/// callees.
class Module {
 public:
  Module() = default;
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// Takes ownership of a detached tt.func op.
  void addFunction(Operation* func);
  /// Removes and deletes a function.
  void eraseFunction(Operation* func);
  const std::vector<Operation*>& functions() const { return funcs_; }
  /// Finds a function by sym_name.
  Operation* lookup(std::string_view name) const;

  void walk(const std::function<void(Operation*)>& fn) const;

 private:
  std::vector<Operation*> funcs_;  ///< owned
};

/// Convenience accessors for tt.func ops.
std::string funcName(const Operation* func);
Block& funcBody(Operation* func);

//===----------------------------------------------------------------------===//
// Printing, parsing, verification
//===----------------------------------------------------------------------===//

struct PrintOptions {
  bool locations = false;  ///< append loc("file":line:col) to ops
};

std::string print(const Module& module, const PrintOptions& options = {});
std::string print(Operation* op, const PrintOptions& options = {});

/// Parses the text form. Throws tessera::Error with file:line:col and a caret
/// on malformed input.
std::unique_ptr<Module> parseModule(std::string_view text, std::string_view filename = "<ir>");

/// Checks the structural rules (terminators, dominance of operand definitions
/// in structured regions, op-specific type rules from Ops.def). Returns a
/// message naming the op and printing it, or nullopt when the IR is valid.
std::optional<std::string> verify(const Module& module);
/// verify() and throw tessera::Error with a pass name when it fails.
void verifyOrThrow(const Module& module, std::string_view afterWhat);

}  // namespace tessera::ir
