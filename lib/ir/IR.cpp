//===- IR.cpp - Values, use-lists, operations, blocks, regions, modules ---===//
//
// The ownership rules are in IR.h. Two invariants this file maintains:
//   * every OpOperand with a non-null value is linked into exactly that
//     value's use-list (firstUse/nextUse/prevUse), so use queries are exact;
//   * an Operation is in at most one Block, and block_/prev_/next_ describe
//     that position.
// Destroying a Block first drops every operand reference inside it, so ops
// can be deleted in any order even when they use each other's results.
//
//===----------------------------------------------------------------------===//

#include <mutex>
#include <set>

#include "tessera/ir/IR.h"

namespace tessera::ir {

//===----------------------------------------------------------------------===//
// Attributes and locations
//===----------------------------------------------------------------------===//

Location Location::get(std::string_view file, int line, int col) {
  static std::mutex mutex;
  static auto* names = new std::set<std::string, std::less<>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = names->find(file);
  if (it == names->end()) it = names->emplace(file).first;
  return Location{&*it, line, col};
}

//===----------------------------------------------------------------------===//
// Value and OpOperand
//===----------------------------------------------------------------------===//

Block* Value::parentBlock() const {
  if (impl_->ownerBlock) return impl_->ownerBlock;
  return impl_->definingOp ? impl_->definingOp->block() : nullptr;
}

bool Value::hasOneUse() const {
  return impl_->firstUse != nullptr && impl_->firstUse->nextUse == nullptr;
}

std::vector<OpOperand*> Value::uses() const {
  std::vector<OpOperand*> result;
  for (OpOperand* u = impl_->firstUse; u; u = u->nextUse) result.push_back(u);
  return result;
}

void Value::replaceAllUsesWith(Value other) {
  if (other == *this) return;
  while (impl_->firstUse) impl_->firstUse->set(other);
}

void OpOperand::set(Value v) {
  if (v.impl() == value) return;
  drop();
  value = v.impl();
  if (!value) return;
  nextUse = value->firstUse;
  if (nextUse) nextUse->prevUse = &nextUse;
  prevUse = &value->firstUse;
  value->firstUse = this;
}

void OpOperand::drop() {
  if (!value) return;
  *prevUse = nextUse;
  if (nextUse) nextUse->prevUse = prevUse;
  value = nullptr;
  nextUse = nullptr;
  prevUse = nullptr;
}

//===----------------------------------------------------------------------===//
// Operation: creation, operands, results, attributes
//===----------------------------------------------------------------------===//

Operation::Operation(OpCode code, Location loc) : code_(code), loc_(loc) {}

Operation* Operation::create(OpCode code, Location loc, const std::vector<Type>& resultTypes,
                             const std::vector<Value>& operands, AttrMap attrs,
                             unsigned numRegions) {
  auto* op = new Operation(code, loc);
  op->setOperands(operands);
  op->results_.reserve(resultTypes.size());
  for (Type t : resultTypes) op->appendResult(t);
  op->attrs_ = std::move(attrs);
  op->regions_.reserve(numRegions);
  for (unsigned i = 0; i < numRegions; ++i) op->regions_.push_back(std::make_unique<Region>(op));
  return op;
}

Operation::~Operation() {
  assert(!block_ && "deleting an op that is still in a block; use erase()");
  for (auto& operand : operands_) operand->drop();
}

std::vector<Value> Operation::operands() const {
  std::vector<Value> result;
  result.reserve(operands_.size());
  for (const auto& o : operands_) result.push_back(o->get());
  return result;
}

void Operation::setOperands(const std::vector<Value>& values) {
  for (size_t i = 0; i < values.size() && i < operands_.size(); ++i) operands_[i]->set(values[i]);
  while (operands_.size() > values.size()) {
    operands_.back()->drop();
    operands_.pop_back();
  }
  operands_.reserve(values.size());
  for (size_t i = operands_.size(); i < values.size(); ++i) {
    auto operand = std::make_unique<OpOperand>();
    operand->owner = this;
    operand->index = static_cast<unsigned>(i);
    operand->set(values[i]);
    operands_.push_back(std::move(operand));
  }
}

void Operation::eraseOperand(unsigned i) {
  assert(i < operands_.size() && "operand index out of range");
  operands_[i]->drop();
  operands_.erase(operands_.begin() + i);
  for (unsigned j = i; j < operands_.size(); ++j) operands_[j]->index = j;
}

std::vector<Value> Operation::results() const {
  std::vector<Value> result;
  result.reserve(results_.size());
  for (const auto& r : results_) result.push_back(Value(r.get()));
  return result;
}

std::vector<Type> Operation::resultTypes() const {
  std::vector<Type> types;
  types.reserve(results_.size());
  for (const auto& r : results_) types.push_back(r->type);
  return types;
}

Value Operation::appendResult(Type type) {
  auto impl = std::make_unique<ValueImpl>();
  impl->type = type;
  impl->definingOp = this;
  impl->index = static_cast<unsigned>(results_.size());
  results_.push_back(std::move(impl));
  return Value(results_.back().get());
}

void Operation::eraseResult(unsigned i) {
  assert(i < results_.size() && "result index out of range");
  assert(!results_[i]->firstUse && "erasing a result that still has uses");
  results_.erase(results_.begin() + i);
  for (unsigned j = i; j < results_.size(); ++j) results_[j]->index = j;
}

const Attribute* Operation::attr(std::string_view name) const {
  auto it = attrs_.find(name);
  return it == attrs_.end() ? nullptr : &it->second;
}

void Operation::removeAttr(std::string_view name) {
  auto it = attrs_.find(name);
  if (it != attrs_.end()) attrs_.erase(it);
}

int64_t Operation::intAttr(std::string_view name, int64_t dflt) const {
  const Attribute* a = attr(name);
  if (!a) return dflt;
  if (const auto* i = std::get_if<int64_t>(a)) return *i;
  if (const auto* b = std::get_if<bool>(a)) return *b ? 1 : 0;
  return dflt;
}

double Operation::floatAttr(std::string_view name, double dflt) const {
  const Attribute* a = attr(name);
  if (!a) return dflt;
  if (const auto* d = std::get_if<double>(a)) return *d;
  if (const auto* i = std::get_if<int64_t>(a)) return static_cast<double>(*i);
  return dflt;
}

bool Operation::boolAttr(std::string_view name, bool dflt) const {
  const Attribute* a = attr(name);
  if (!a) return dflt;
  if (const auto* b = std::get_if<bool>(a)) return *b;
  if (const auto* i = std::get_if<int64_t>(a)) return *i != 0;
  return dflt;
}

std::string Operation::strAttr(std::string_view name, std::string dflt) const {
  const Attribute* a = attr(name);
  if (const auto* s = a ? std::get_if<std::string>(a) : nullptr) return *s;
  return dflt;
}

std::vector<int64_t> Operation::intArrayAttr(std::string_view name) const {
  const Attribute* a = attr(name);
  if (const auto* v = a ? std::get_if<std::vector<int64_t>>(a) : nullptr) return *v;
  return {};
}

//===----------------------------------------------------------------------===//
// Operation: position, erasure, cloning, walking
//===----------------------------------------------------------------------===//

Operation* Operation::parentOp() const { return block_ ? block_->parentOp() : nullptr; }

bool Operation::isAncestorOf(const Operation* other) const {
  for (const Operation* op = other; op; op = op->parentOp())
    if (op == this) return true;
  return false;
}

void Operation::remove() {
  if (!block_) return;
  (prev_ ? prev_->next_ : block_->first_) = next_;
  (next_ ? next_->prev_ : block_->last_) = prev_;
  block_ = nullptr;
  prev_ = next_ = nullptr;
}

void Operation::erase() {
#ifndef NDEBUG
  for (const auto& r : results_)
    assert(!r->firstUse && "erasing an op whose results still have uses");
#endif
  remove();
  dropAllReferences();
  delete this;
}

void Operation::moveBefore(Operation* other) {
  assert(other && other->block_ && "moveBefore needs an op in a block");
  remove();
  other->block_->insert(other, this);
}

void Operation::moveAfter(Operation* other) {
  assert(other && other->block_ && "moveAfter needs an op in a block");
  remove();
  other->block_->insert(other->next_, this);
}

void Operation::dropAllReferences() {
  for (auto& operand : operands_) operand->drop();
  for (auto& region : regions_)
    for (unsigned b = 0; b < region->numBlocks(); ++b)
      for (Operation* op = region->block(b)->front(); op; op = op->nextOp()) op->dropAllReferences();
}

Operation* Operation::clone(IRMapping& mapping) const {
  std::vector<Value> newOperands;
  newOperands.reserve(operands_.size());
  for (const auto& o : operands_) newOperands.push_back(mapping.lookupOrDefault(o->get()));
  Operation* op = create(code_, loc_, resultTypes(), newOperands, attrs_, numRegions());
  for (unsigned i = 0; i < results_.size(); ++i) mapping.map(result(i), op->result(i));
  for (unsigned r = 0; r < regions_.size(); ++r) {
    Region& src = *regions_[r];
    Region& dst = *op->regions_[r];
    for (unsigned b = 0; b < src.numBlocks(); ++b) {
      Block* from = src.block(b);
      Block* to = dst.addBlock();
      mapping.map(from, to);
      for (unsigned a = 0; a < from->numArguments(); ++a)
        mapping.map(from->argument(a), to->addArgument(from->argument(a).type()));
      for (Operation* child = from->front(); child; child = child->nextOp())
        to->push_back(child->clone(mapping));
    }
  }
  return op;
}

void Operation::walk(const std::function<void(Operation*)>& fn) {
  fn(this);
  for (auto& region : regions_)
    for (unsigned b = 0; b < region->numBlocks(); ++b) {
      Operation* next = nullptr;
      for (Operation* op = region->block(b)->front(); op; op = next) {
        next = op->nextOp();
        op->walk(fn);
      }
    }
}

void Operation::walkPostOrder(const std::function<void(Operation*)>& fn) {
  for (auto& region : regions_)
    for (unsigned b = 0; b < region->numBlocks(); ++b) {
      Operation* next = nullptr;
      for (Operation* op = region->block(b)->front(); op; op = next) {
        next = op->nextOp();
        op->walkPostOrder(fn);
      }
    }
  fn(this);
}

//===----------------------------------------------------------------------===//
// Block and Region
//===----------------------------------------------------------------------===//

Block::~Block() {
  for (Operation* op = first_; op; op = op->next_) op->dropAllReferences();
  while (first_) {
    Operation* op = first_;
    op->remove();
    delete op;
  }
}

std::vector<Value> Block::arguments() const {
  std::vector<Value> result;
  result.reserve(args_.size());
  for (const auto& a : args_) result.push_back(Value(a.get()));
  return result;
}

Value Block::addArgument(Type type) {
  auto impl = std::make_unique<ValueImpl>();
  impl->type = type;
  impl->ownerBlock = this;
  impl->index = static_cast<unsigned>(args_.size());
  args_.push_back(std::move(impl));
  return Value(args_.back().get());
}

void Block::eraseArgument(unsigned i) {
  assert(i < args_.size() && "argument index out of range");
  assert(!args_[i]->firstUse && "erasing a block argument that still has uses");
  args_.erase(args_.begin() + i);
  for (unsigned j = i; j < args_.size(); ++j) args_[j]->index = j;
}

Operation* Block::terminator() const {
  return last_ && last_->hasTrait(Terminator) ? last_ : nullptr;
}

void Block::push_back(Operation* op) { insert(nullptr, op); }

void Block::push_front(Operation* op) { insert(first_, op); }

void Block::insert(Operation* before, Operation* op) {
  assert(op && !op->block_ && "inserting an op that is already in a block");
  assert((!before || before->block_ == this) && "insertion point is in another block");
  op->block_ = this;
  op->next_ = before;
  op->prev_ = before ? before->prev_ : last_;
  (op->prev_ ? op->prev_->next_ : first_) = op;
  (before ? before->prev_ : last_) = op;
}

std::vector<Operation*> Block::ops() const {
  std::vector<Operation*> result;
  for (Operation* op = first_; op; op = op->next_) result.push_back(op);
  return result;
}

size_t Block::size() const {
  size_t n = 0;
  for (Operation* op = first_; op; op = op->next_) ++n;
  return n;
}

Operation* Block::parentOp() const { return parent_ ? parent_->parentOp() : nullptr; }

Operation* Block::findAncestorOp(Operation* op) const {
  while (op && op->block() != this) op = op->parentOp();
  return op;
}

Region::~Region() {
  // Later blocks may use values of earlier ones; drop every reference first.
  for (auto& block : blocks_)
    for (Operation* op = block->front(); op; op = op->nextOp()) op->dropAllReferences();
  while (!blocks_.empty()) blocks_.pop_back();
}

Block* Region::addBlock() {
  blocks_.push_back(std::make_unique<Block>());
  blocks_.back()->parent_ = this;
  return blocks_.back().get();
}

void Region::takeBody(Region& other) {
  for (auto& block : other.blocks_) {
    block->parent_ = this;
    blocks_.push_back(std::move(block));
  }
  other.blocks_.clear();
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

Module::~Module() {
  // Calls reference functions by name only, so functions are independent.
  for (Operation* f : funcs_) {
    f->dropAllReferences();
    delete f;
  }
}

void Module::addFunction(Operation* func) {
  assert(func && func->is(OpCode::Func) && !func->block() && "addFunction needs a detached tt.func");
  funcs_.push_back(func);
}

void Module::eraseFunction(Operation* func) {
  for (auto it = funcs_.begin(); it != funcs_.end(); ++it) {
    if (*it != func) continue;
    funcs_.erase(it);
    func->dropAllReferences();
    delete func;
    return;
  }
  assert(false && "eraseFunction: not a function of this module");
}

Operation* Module::lookup(std::string_view name) const {
  for (Operation* f : funcs_) {
    const Attribute* a = f->attr("sym_name");
    const auto* s = a ? std::get_if<std::string>(a) : nullptr;
    if (s && *s == name) return f;
  }
  return nullptr;
}

void Module::walk(const std::function<void(Operation*)>& fn) const {
  for (Operation* f : funcs_) f->walk(fn);
}

std::string funcName(const Operation* func) { return func->strAttr("sym_name"); }

Block& funcBody(Operation* func) {
  assert(func->numRegions() == 1 && !func->region(0).empty() && "tt.func without a body");
  return func->region(0).front();
}

}  // namespace tessera::ir
