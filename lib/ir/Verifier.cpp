//===- Verifier.cpp - Structural and type rules of Tile IR ----------------===//
//
// Checks, in one walk over each function:
//   1. structure: terminators are last in their block and the block of each
//      region-holding op ends with the terminator that op needs (tt.func ->
//      tt.return, scf.for/if -> scf.yield, scf.while -> scf.condition then
//      scf.yield, tt.reduce/tt.scan -> their return ops); terminators sit in
//      the right parent; ops without regions have none;
//   2. visibility: every operand is defined earlier in its block or in an
//      enclosing block, or is an argument of one (structured control flow
//      makes that the whole dominance rule); a dangling operand (its
//      definition was erased) shows up here as "not visible";
//   3. the type rules written next to each op in Ops.def.
// The first violation is reported as
//   file:line:col: 'mnemonic' op <what is wrong>
//     <the op, printed>
// (the location is left out when unknown).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <unordered_set>

#include "tessera/Error.h"
#include "tessera/ir/IR.h"

namespace tessera::ir {

/// Shape rules hold whatever the layouts (Tile GPU IR): compare without them.
static Type withoutEncoding(Type t) { return t.withEncoding({}); }

namespace {

/// Checks a rule; the message is only built when the rule is broken.
#define VERIFY(op, cond, ...)        \
  do {                               \
    if (!(cond)) fail(op, __VA_ARGS__); \
  } while (false)

/// Thrown inside the verifier to stop at the first violation.
struct Failure {
  std::string message;
};

std::string typeList(const std::vector<Type>& types) {
  std::string out = "(";
  for (size_t i = 0; i < types.size(); ++i) out += (i ? ", " : "") + types[i].str();
  return out + ")";
}

std::vector<Type> typesOf(const std::vector<Value>& values) {
  std::vector<Type> types;
  types.reserve(values.size());
  for (Value v : values) types.push_back(v.type());
  return types;
}

bool contains(std::initializer_list<std::string_view> list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

class Verifier {
 public:
  explicit Verifier(const Module& module) : module_(module) {}
  void verifyFunc(Operation* func);

 private:
  [[noreturn]] void fail(Operation* op, const std::string& message);

  void verifyBlock(Block& block);
  void verifyOp(Operation* op);
  void verifyCounts(Operation* op, unsigned minOperands, unsigned maxOperands, unsigned results);
  void verifyTmaOp(Operation* op);
  void verifyElementwise(Operation* op);
  void verifyRegions(Operation* op);
  void verifyTerminatorParent(Operation* op);
  void verifyCast(Operation* op);
  void verifyShapeOp(Operation* op);
  void verifyMemoryOp(Operation* op);
  void verifyCombineOp(Operation* op);
  void verifyControlFlow(Operation* op);
  Operation* expectTerminator(Operation* op, Block& block, OpCode code);
  void expectTypes(Operation* op, const std::vector<Type>& got, const std::vector<Type>& want,
                   const std::string& what);
  int64_t axisAttr(Operation* op, std::string_view name, int64_t rank);

  const Module& module_;
  std::unordered_set<const ValueImpl*> visible_;
  std::vector<const ValueImpl*> defined_;
};

void Verifier::fail(Operation* op, const std::string& message) {
  std::string out;
  Location loc = op->loc();
  if (loc.known())
    out += *loc.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + ": ";
  out += "'" + std::string(op->name()) + "' op " + message + "\n  ";
  std::string text = print(op);
  // Ops with regions: their first line is enough to identify them.
  out += text.substr(0, text.find('\n'));
  throw Failure{std::move(out)};
}

/// The TMA ops of Ops.def: descriptors, mbarrier buffers, copies.
void Verifier::verifyTmaOp(Operation* op) {
  auto isDesc = [](Value v) { return v.type().isPointer() && !v.type().isBlockPointer() && !v.type().isTensor(); };
  auto isBarriers = [](Value v) {
    Type t = v.type();
    return t.isTensor() && t.encoding().isShared() && t.rank() == 1 && t.elementType().isInteger(64);
  };
  auto i32Scalars = [&](unsigned from) {
    for (unsigned i = from; i < op->numOperands(); ++i)
      VERIFY(op, op->operand(i).type().isInteger(32) && !op->operand(i).type().isTensor(),
             "coordinates and indices must be i32 scalars");
  };
  switch (op->code()) {
    case OpCode::TensormapCreate: {
      VERIFY(op, op->numResults() == 1 && isDesc(op->result()), "returns the descriptor's address (!tt.ptr<i8>)");
      size_t rank = op->hasAttr("box") ? op->intArrayAttr("box").size() : 0;
      VERIFY(op, rank >= 1 && rank <= 5 && op->numOperands() == 1 + 2 * rank,
             "takes base, shape[r] and strides[r] for the r = 1..5 dims of attr `box`");
      VERIFY(op, isDesc(op->operand(0)), "base must be a scalar pointer");
      for (unsigned i = 1; i < op->numOperands(); ++i)
        VERIFY(op, op->operand(i).type().isInteger(64) && !op->operand(i).type().isTensor(),
               "shape and strides must be i64 scalars");
      for (int64_t b : op->intArrayAttr("box")) VERIFY(op, b >= 1 && b <= 256, "box dims must be 1..256");
      int64_t swizzle = op->hasAttr("swizzle") ? op->intAttr("swizzle") : -1;
      VERIFY(op, swizzle == 0 || swizzle == 32 || swizzle == 64 || swizzle == 128,
             "attr `swizzle` must be 0, 32, 64 or 128");
      std::string padding = op->hasAttr("padding") ? op->strAttr("padding") : "";
      VERIFY(op, padding == "zero" || padding == "nan", "attr `padding` must be \"zero\" or \"nan\"");
      return;
    }
    case OpCode::HostTensormap: {
      VERIFY(op, op->numResults() == 1 && isDesc(op->result()), "returns the descriptor's address (!tt.ptr<i8>)");
      VERIFY(op, op->numOperands() <= 1, "takes at most one operand, the coordinate in the outermost dim");
      if (op->numOperands() == 1)
        VERIFY(op, op->operand(0).type().isInteger() && !op->operand(0).type().isTensor(),
               "the outermost coordinate must be an integer scalar");
      // Kernel parameters take at most 32 KB: far fewer than 256 maps.
      VERIFY(op, op->hasAttr("index") && op->intAttr("index") >= 0 && op->intAttr("index") < 256,
             "needs attr index in 0..255");
      for (const char* name : {"base", "shape", "strides", "box", "element_bytes", "data_type", "swizzle"})
        VERIFY(op, op->hasAttr(name), std::string("needs attr `") + name + "` (gpu::setHostTensorMapAttributes)");
      size_t rank = op->intArrayAttr("box").size();
      VERIFY(op, rank >= 1 && rank <= 5 && op->intArrayAttr("shape").size() == 4 * rank &&
                     op->intArrayAttr("strides").size() == 4 * rank && op->intArrayAttr("base").size() == 4,
             "attrs `base`, `shape`, `strides` need 4 integers per scalar, one scalar per dim of `box`");
      return;
    }
    case OpCode::DescriptorLoad:
      VERIFY(op, op->numOperands() >= 2 && op->numResults() == 1 && isDesc(op->operand(0)),
             "takes a descriptor and coordinates and returns the block");
      VERIFY(op, op->result().type().isTensor() && op->result().type().rank() == op->numOperands() - 1,
             "needs one coordinate per dim of the block");
      return i32Scalars(1);
    case OpCode::InitBarriers: case OpCode::InvalBarriers:
      verifyCounts(op, 1, 1, 0);
      VERIFY(op, isBarriers(op->operand(0)), "operand must be a shared buffer of i64 barriers");
      VERIFY(op, op->intAttr("count", 1) > 0, "attr count must be positive");
      return;
    case OpCode::ArriveBarrier: case OpCode::BarrierExpect:
      verifyCounts(op, 3, 3, 0);
      VERIFY(op, isBarriers(op->operand(0)), "operand 0 must be a shared buffer of i64 barriers");
      VERIFY(op, op->operand(2).type().isInteger(1) && !op->operand(2).type().isTensor(), "pred must be an i1 scalar");
      VERIFY(op, op->operand(1).type().isInteger(32) && !op->operand(1).type().isTensor(), "index must be an i32 scalar");
      if (op->is(OpCode::BarrierExpect))
        VERIFY(op, op->hasAttr("bytes") && op->intAttr("bytes") > 0, "needs attr bytes > 0");
      return;
    case OpCode::AsyncTmaCopyGlobalToLocal: {
      VERIFY(op, op->numOperands() >= 6 && op->numResults() == 0, "takes desc, dst, barriers, index, pred, coords...");
      Type dst = op->operand(1).type();
      VERIFY(op, isDesc(op->operand(0)), "desc must be a !tt.ptr<i8>");
      VERIFY(op, dst.isTensor() && dst.encoding().isShared() && dst.rank() == op->numOperands() - 5,
             "dst must be a shared tile with one coordinate per dim");
      VERIFY(op, isBarriers(op->operand(2)), "operand 2 must be a shared buffer of i64 barriers");
      VERIFY(op, op->operand(4).type().isInteger(1) && !op->operand(4).type().isTensor(), "pred must be an i1 scalar");
      VERIFY(op, op->operand(3).type().isInteger(32) && !op->operand(3).type().isTensor(), "index must be an i32 scalar");
      return i32Scalars(5);
    }
    case OpCode::WaitBarrier:
      verifyCounts(op, 3, 3, 0);
      VERIFY(op, isBarriers(op->operand(0)), "operand 0 must be a shared buffer of i64 barriers");
      return i32Scalars(1);
    default: return;
  }
}

void Verifier::verifyCounts(Operation* op, unsigned minOperands, unsigned maxOperands,
                            unsigned results) {
  unsigned n = op->numOperands();
  if (n < minOperands || n > maxOperands) {
    std::string want = std::to_string(minOperands);
    if (maxOperands != minOperands)
      want += maxOperands == ~0u ? " or more" : " to " + std::to_string(maxOperands);
    fail(op, "expects " + want + " operand(s), got " + std::to_string(n));
  }
  VERIFY(op, op->numResults() == results,
        "expects " + std::to_string(results) + " result(s), got " + std::to_string(op->numResults()));
}

void Verifier::expectTypes(Operation* op, const std::vector<Type>& got, const std::vector<Type>& want,
                           const std::string& what) {
  VERIFY(op, got == want, what + " types " + typeList(got) + " do not match " + typeList(want));
}

int64_t Verifier::axisAttr(Operation* op, std::string_view name, int64_t rank) {
  const Attribute* a = op->attr(name);
  const auto* v = a ? std::get_if<int64_t>(a) : nullptr;
  VERIFY(op, v != nullptr, "needs an integer attribute '" + std::string(name) + "'");
  VERIFY(op, *v >= 0 && *v < rank,
        "attribute '" + std::string(name) + "' = " + std::to_string(*v) + " is out of range for rank " +
            std::to_string(rank));
  return *v;
}

//===----------------------------------------------------------------------===//
// Structure and visibility
//===----------------------------------------------------------------------===//

void Verifier::verifyFunc(Operation* func) {
  VERIFY(func, func->is(OpCode::Func), "is not a tt.func at module level");
  VERIFY(func, std::holds_alternative<std::string>(func->attrs().count("sym_name")
                                                      ? *func->attr("sym_name")
                                                      : Attribute()),
        "needs a string attribute 'sym_name'");
  VERIFY(func, func->numOperands() == 0 && func->numResults() == 0, "has operands or results");
  VERIFY(func, func->numRegions() == 1, "needs exactly one region");
  if (const Attribute* r = func->attr("result_types"))
    VERIFY(func, std::holds_alternative<std::vector<Type>>(*r), "attribute 'result_types' must be a type list");
  Region& body = func->region(0);
  if (body.empty()) return;  // a declaration
  VERIFY(func, body.numBlocks() == 1, "body must have one block");
  visible_.clear();
  defined_.clear();
  verifyBlock(body.front());
  expectTerminator(func, body.front(), OpCode::Return);
}

void Verifier::verifyBlock(Block& block) {
  size_t mark = defined_.size();
  for (unsigned i = 0; i < block.numArguments(); ++i) {
    visible_.insert(block.argument(i).impl());
    defined_.push_back(block.argument(i).impl());
  }
  for (Operation* op = block.front(); op; op = op->nextOp()) {
    VERIFY(op, op->block() == &block, "is linked into a block it does not belong to");
    for (unsigned i = 0; i < op->numOperands(); ++i) {
      VERIFY(op, op->operandSlot(i).owner == op && op->operandSlot(i).index == i,
            "has a corrupt operand slot #" + std::to_string(i));
      Value v = op->operand(i);
      VERIFY(op, static_cast<bool>(v), "operand #" + std::to_string(i) + " is null");
      VERIFY(op, visible_.count(v.impl()) != 0,
            "operand #" + std::to_string(i) +
                " is not defined before its use in an enclosing block (or its definition was erased)");
    }
    VERIFY(op, !op->hasTrait(Terminator) || op == block.back(), "is a terminator but not the last op of its block");
    for (unsigned r = 0; r < op->numRegions(); ++r)
      for (unsigned b = 0; b < op->region(r).numBlocks(); ++b) verifyBlock(*op->region(r).block(b));
    verifyOp(op);
    for (unsigned i = 0; i < op->numResults(); ++i) {
      visible_.insert(op->result(i).impl());
      defined_.push_back(op->result(i).impl());
    }
  }
  while (defined_.size() > mark) {
    visible_.erase(defined_.back());
    defined_.pop_back();
  }
}

Operation* Verifier::expectTerminator(Operation* op, Block& block, OpCode code) {
  Operation* last = block.back();
  if (!last || !last->is(code))
    fail(op, "region block must end with '" + std::string(mnemonic(code)) + "'" +
                 (last ? ", found '" + std::string(last->name()) + "'" : ", found an empty block"));
  return last;
}

void Verifier::verifyTerminatorParent(Operation* op) {
  Operation* parent = op->parentOp();
  std::string_view where = parent ? parent->name() : "no op";
  switch (op->code()) {
    case OpCode::Return:
      VERIFY(op, parent && parent->is(OpCode::Func), "must be in a tt.func, not in " + std::string(where));
      if (parent) {
        const Attribute* r = parent->attr("result_types");
        const auto* want = r ? std::get_if<std::vector<Type>>(r) : nullptr;
        expectTypes(op, typesOf(op->operands()), want ? *want : std::vector<Type>{}, "returned");
      }
      return;
    case OpCode::Yield:
      VERIFY(op,
            parent && (parent->is(OpCode::For) || parent->is(OpCode::If) || parent->is(OpCode::WarpSpecialize) ||
                       (parent->is(OpCode::While) && op->block()->parent() == &parent->region(1))),
            "must end an scf.for, scf.if, ttng.warp_specialize or the 'after' region of scf.while, not " +
                std::string(where));
      return;
    case OpCode::Condition:
      VERIFY(op, parent && parent->is(OpCode::While) && op->block()->parent() == &parent->region(0),
            "must end the 'before' region of scf.while");
      return;
    case OpCode::ReduceReturn:
      VERIFY(op, parent && parent->is(OpCode::Reduce), "must be in a tt.reduce");
      return;
    case OpCode::ScanReturn:
      VERIFY(op, parent && parent->is(OpCode::Scan), "must be in a tt.scan");
      return;
    default:
      return;
  }
}

//===----------------------------------------------------------------------===//
// Op rules
//===----------------------------------------------------------------------===//

void Verifier::verifyElementwise(Operation* op) {
  // All tensor operands and results have one shape; scalars only mix with
  // tensors where the op allows it (select's condition).
  Type shapeSource;
  auto checkValue = [&](Type t, const std::string& what, bool scalarAllowed) {
    if (!t.isTensor()) {
      VERIFY(op, scalarAllowed || !shapeSource || !shapeSource.isTensor(),
            what + " is a scalar but other operands are tensors");
      return;
    }
    if (!shapeSource) shapeSource = t;
    VERIFY(op, t.shape() == shapeSource.shape() && shapeSource.isTensor(),
          what + " type " + t.str() + " does not have the shape of " + shapeSource.str());
  };
  bool lenient = op->is(OpCode::ExternElementwise) || op->is(OpCode::InlineAsm);
  for (unsigned i = 0; i < op->numResults(); ++i)
    checkValue(op->result(i).type(), "result #" + std::to_string(i), lenient);
  for (unsigned i = 0; i < op->numOperands(); ++i)
    checkValue(op->operand(i).type(), "operand #" + std::to_string(i),
               lenient || (op->is(OpCode::Select) && i == 0));
}

void Verifier::verifyCast(Operation* op) {
  verifyCounts(op, 1, 1, 1);
  Type from = op->operand(0).type().elementType(), to = op->result().type().elementType();
  auto kinds = [&](bool fromOk, bool toOk, const char* what) {
    VERIFY(op, fromOk && toOk, std::string("casts ") + what + ", got " + from.str() + " -> " + to.str());
  };
  switch (op->code()) {
    case OpCode::ExtSI:
    case OpCode::ExtUI:
      kinds(from.isInteger(), to.isInteger(), "an integer to an integer");
      VERIFY(op, to.bitWidth() > from.bitWidth(), "must widen: " + from.str() + " -> " + to.str());
      return;
    case OpCode::TruncI:
      kinds(from.isInteger(), to.isInteger(), "an integer to an integer");
      VERIFY(op, to.bitWidth() < from.bitWidth(), "must narrow: " + from.str() + " -> " + to.str());
      return;
    case OpCode::SIToFP:
    case OpCode::UIToFP: kinds(from.isInteger(), to.isFloat(), "an integer to a float"); return;
    case OpCode::FPToSI:
    case OpCode::FPToUI: kinds(from.isFloat(), to.isInteger(), "a float to an integer"); return;
    case OpCode::ExtF:
      kinds(from.isFloat(), to.isFloat(), "a float to a float");
      VERIFY(op, to.bitWidth() > from.bitWidth(), "must widen: " + from.str() + " -> " + to.str());
      return;
    case OpCode::TruncF: {
      kinds(from.isFloat(), to.isFloat(), "a float to a float");
      VERIFY(op, to.bitWidth() < from.bitWidth(), "must narrow: " + from.str() + " -> " + to.str());
      std::string rounding = op->strAttr("rounding", "rtne");
      VERIFY(op, rounding == "rtne" || rounding == "rtz", "rounding must be \"rtne\" or \"rtz\"");
      return;
    }
    case OpCode::Bitcast:
      kinds(from.isInteger() || from.isFloat(), to.isInteger() || to.isFloat(), "between integers and floats");
      VERIFY(op, from.bitWidth() == to.bitWidth(), "needs equal bit widths: " + from.str() + " -> " + to.str());
      return;
    case OpCode::IntToPtr: kinds(from.isInteger(64), to.isPointer(), "i64 to a pointer"); return;
    case OpCode::PtrToInt: kinds(from.isPointer(), to.isInteger(64), "a pointer to i64"); return;
    case OpCode::PtrBitcast: kinds(from.isPointer(), to.isPointer(), "a pointer to a pointer"); return;
    default: return;
  }
}

void Verifier::verifyOp(Operation* op) {
  if (op->hasTrait(Terminator)) verifyTerminatorParent(op);
  verifyRegions(op);
  if (op->hasTrait(Elementwise)) verifyElementwise(op);
  if (op->hasTrait(SameType) && op->numResults() > 0) {
    Type t = op->result().type();
    for (Value v : op->operands())
      VERIFY(op, v.type() == t, "operand type " + v.type().str() + " differs from the result type " + t.str());
  }
  OpCode c = op->code();
  switch (c) {
    case OpCode::AddI: case OpCode::SubI: case OpCode::MulI: case OpCode::DivSI: case OpCode::DivUI:
    case OpCode::RemSI: case OpCode::RemUI: case OpCode::AndI: case OpCode::OrI: case OpCode::XOrI:
    case OpCode::ShLI: case OpCode::ShRSI: case OpCode::ShRUI: case OpCode::MaxSI: case OpCode::MaxUI:
    case OpCode::MinSI: case OpCode::MinUI: case OpCode::MulHiI:
      verifyCounts(op, 2, 2, 1);
      VERIFY(op, op->result().type().elementType().isInteger(), "needs integer operands");
      return;
    case OpCode::AbsI:
      verifyCounts(op, 1, 1, 1);
      VERIFY(op, op->result().type().elementType().isInteger(), "needs an integer operand");
      return;
    case OpCode::AddF: case OpCode::SubF: case OpCode::MulF: case OpCode::DivF: case OpCode::RemF:
    case OpCode::MaxNumF: case OpCode::MinNumF: case OpCode::MaximumF: case OpCode::MinimumF:
    case OpCode::PreciseDivF:
      verifyCounts(op, 2, 2, 1);
      VERIFY(op, op->result().type().elementType().isFloat(), "needs float operands");
      return;
    case OpCode::ApproxDivF:
      verifyCounts(op, 2, 2, 1);
      VERIFY(op, op->result().type().elementType() == Type::f32(), "needs f32 operands");
      return;
    case OpCode::NegF: case OpCode::Exp: case OpCode::Exp2: case OpCode::Log: case OpCode::Log2:
    case OpCode::Sqrt: case OpCode::Rsqrt: case OpCode::Sin: case OpCode::Cos: case OpCode::Erf:
    case OpCode::Floor: case OpCode::Ceil: case OpCode::AbsF: case OpCode::PreciseSqrt:
      verifyCounts(op, 1, 1, 1);
      VERIFY(op, op->result().type().elementType().isFloat(), "needs a float operand");
      return;
    case OpCode::Fma: case OpCode::ClampF:
      verifyCounts(op, 3, 3, 1);
      VERIFY(op, op->result().type().elementType().isFloat(), "needs float operands");
      return;
    case OpCode::CmpI: case OpCode::CmpF: {
      verifyCounts(op, 2, 2, 1);
      Type t = op->operand(0).type();
      VERIFY(op, op->operand(1).type() == t, "compares different types " + t.str() + " and " +
                                                op->operand(1).type().str());
      VERIFY(op, op->result().type() == t.withElementType(Type::i1()),
            "result must be " + t.withElementType(Type::i1()).str() + ", got " + op->result().type().str());
      std::string pred = op->strAttr("predicate");
      if (c == OpCode::CmpI) {
        VERIFY(op, t.elementType().isInteger() || t.elementType().isPointer(), "needs integer or pointer operands");
        VERIFY(op, contains({"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}, pred),
              "has an invalid predicate \"" + pred + "\"");
      } else {
        VERIFY(op, t.elementType().isFloat(), "needs float operands");
        VERIFY(op, contains({"oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
                            "ule", "une", "uno"}, pred),
              "has an invalid predicate \"" + pred + "\"");
      }
      return;
    }
    case OpCode::Select:
      verifyCounts(op, 3, 3, 1);
      VERIFY(op, op->operand(0).type().elementType().isInteger(1), "condition must be i1");
      VERIFY(op, op->operand(1).type() == op->result().type() && op->operand(2).type() == op->result().type(),
            "selected values must have the result type " + op->result().type().str());
      return;
    case OpCode::ExtSI: case OpCode::ExtUI: case OpCode::TruncI: case OpCode::SIToFP:
    case OpCode::UIToFP: case OpCode::FPToSI: case OpCode::FPToUI: case OpCode::ExtF:
    case OpCode::TruncF: case OpCode::Bitcast: case OpCode::IntToPtr: case OpCode::PtrToInt:
    case OpCode::PtrBitcast:
      return verifyCast(op);
    case OpCode::Constant: {
      verifyCounts(op, 0, 0, 1);
      Type e = op->result().type().elementType();
      const Attribute* v = op->attr("value");
      VERIFY(op, v != nullptr, "needs a 'value' attribute");
      if (e.isFloat())
        VERIFY(op, std::holds_alternative<double>(*v), "of float type needs a float 'value'");
      else
        VERIFY(op, std::holds_alternative<int64_t>(*v), "of type " + e.str() + " needs an integer 'value'");
      return;
    }
    case OpCode::ExternElementwise:
      VERIFY(op, op->numResults() >= 1, "needs a result");
      VERIFY(op, !op->strAttr("symbol").empty(), "needs a string attribute 'symbol'");
      return;
    case OpCode::InlineAsm:
      VERIFY(op, op->numResults() >= 1, "needs at least one result");
      VERIFY(op, op->attr("asm") && std::holds_alternative<std::string>(*op->attr("asm")),
            "needs a string attribute 'asm'");
      return;
    case OpCode::GetProgramId: case OpCode::GetNumPrograms:
      verifyCounts(op, 0, 0, 1);
      VERIFY(op, op->result().type() == Type::i32(), "result must be i32");
      axisAttr(op, "axis", 3);
      return;
    case OpCode::SmId:
      verifyCounts(op, 0, 0, 1);
      VERIFY(op, op->result().type() == Type::i32(), "result must be i32");
      return;
    case OpCode::GlobalTimer:
      verifyCounts(op, 0, 0, 1);
      VERIFY(op, op->result().type() == Type::i64(), "result must be i64");
      return;
    case OpCode::Assume:
      verifyCounts(op, 1, 1, 0);
      VERIFY(op, op->operand(0).type() == Type::i1(), "needs a scalar i1 operand");
      return;
    case OpCode::Print:
      VERIFY(op, op->numResults() == 0, "has no results");
      return;
    case OpCode::Assert:
      verifyCounts(op, 1, 1, 0);
      VERIFY(op, op->operand(0).type().elementType().isInteger(1), "condition must be i1");
      return;
    case OpCode::DebugBarrier: case OpCode::FenceAsyncGlobal: case OpCode::GridDepWait:
    case OpCode::GridDepLaunchDependents:
      return verifyCounts(op, 0, 0, 0);
    case OpCode::ConvertLayout:
      verifyCounts(op, 1, 1, 1);
      VERIFY(op, op->operand(0).type().withEncoding({}) == op->result().type().withEncoding({}),
             "must keep the shape and element type");
      return;
    case OpCode::LocalAlloc:
      verifyCounts(op, 0, 1, 1);
      VERIFY(op, op->result().type().isTensor() && op->result().type().encoding().isShared(),
             "result must have a shared encoding");
      if (op->numOperands()) {
        VERIFY(op, op->operand(0).type().isTensor() && !op->operand(0).type().encoding().isShared(),
               "operand must be a tensor in registers");
        VERIFY(op, op->operand(0).type().withEncoding({}) == op->result().type().withEncoding({}),
               "must keep the shape and element type");
      }
      return;
    case OpCode::LocalLoad:
      verifyCounts(op, 1, 1, 1);
      VERIFY(op, op->operand(0).type().isTensor() && op->operand(0).type().encoding().isShared(),
             "operand must be a shared tile");
      VERIFY(op, op->result().type().isTensor() && !op->result().type().encoding().isShared(),
             "result must be a tensor in registers");
      VERIFY(op, op->operand(0).type().withEncoding({}) == op->result().type().withEncoding({}),
             "must keep the shape and element type");
      return;
    case OpCode::MemdescIndex: {
      verifyCounts(op, 2, 2, 1);
      Type buf = op->operand(0).type(), view = op->result().type();
      VERIFY(op, buf.isTensor() && buf.encoding().isShared() && buf.rank() >= 2, "needs a multi-stage shared buffer");
      VERIFY(op, op->operand(1).type().isInteger(32), "index must be i32");
      std::vector<int64_t> shape(buf.shape().begin() + 1, buf.shape().end());
      VERIFY(op, view.isTensor() && view.encoding() == buf.encoding() && view.shape() == shape &&
                     view.elementType() == buf.elementType(),
             "result must be one stage of the buffer: " + Type::tensor(shape, buf.elementType(), buf.encoding()).str());
      return;
    }
    case OpCode::AsyncCopyGlobalToLocal: {
      VERIFY(op, op->numOperands() >= 2 && op->numOperands() <= 4 && op->numResults() == 0,
             "takes ptr, dst [, mask [, other]] and has no result");
      Type ptr = op->operand(0).type(), dst = op->operand(1).type();
      VERIFY(op, ptr.isTensor() && ptr.elementType().isPointer(), "ptr must be a tensor of pointers");
      VERIFY(op, dst.isTensor() && dst.encoding().isShared() && dst.shape() == ptr.shape() &&
                     dst.elementType() == ptr.elementType().pointeeType(),
             "dst must be a shared buffer of the pointers' shape and pointee type");
      return;
    }
    case OpCode::AsyncCommitGroup:
      return verifyCounts(op, 0, 0, 0);
    case OpCode::AsyncWait:
      verifyCounts(op, 0, 0, 0);
      VERIFY(op, op->hasAttr("num") && op->intAttr("num") >= 0, "needs attr num >= 0");
      return;
    case OpCode::WarpGroupDotWait: {
      VERIFY(op, op->numOperands() >= 1 && op->numResults() == op->numOperands(),
             "takes the dot results to wait for and returns them");
      for (unsigned i = 0; i < op->numOperands(); ++i)
        VERIFY(op, op->result(i).type() == op->operand(i).type(), "results must have the operands' types");
      VERIFY(op, op->hasAttr("pendings") && op->intAttr("pendings") >= 0, "needs attr pendings >= 0");
      return;
    }
    case OpCode::TensormapCreate: case OpCode::HostTensormap: case OpCode::DescriptorLoad:
    case OpCode::InitBarriers: case OpCode::InvalBarriers: case OpCode::BarrierExpect:
    case OpCode::AsyncTmaCopyGlobalToLocal: case OpCode::WaitBarrier: case OpCode::ArriveBarrier:
      return verifyTmaOp(op);
    case OpCode::PingPong: {
      verifyCounts(op, 0, 0, 0);
      std::string step = op->hasAttr("step") ? op->strAttr("step") : "";
      VERIFY(op, step == "wait" || step == "pass" || step == "start", "attr step must be \"wait\", \"pass\" or \"start\"");
      return;
    }
    case OpCode::WarpSpecialize: {
      verifyCounts(op, 0, 0, 0);
      Operation* parent = op->parentOp();
      VERIFY(op, parent && parent->is(OpCode::Func), "must be in the kernel's entry block");
      VERIFY(op, op->intAttr("producer_warps", 0) == 4, "attr producer_warps must be 4 (one warpgroup)");
      VERIFY(op, op->region(0).front().numArguments() == 0, "its region takes no arguments");
      expectTerminator(op, op->region(0).front(), OpCode::Yield);
      for (const char* a : {"producer_registers", "consumer_registers"}) {
        int64_t r = op->intAttr(a, 0);
        VERIFY(op, r == 0 || (r >= 24 && r <= 256 && r % 8 == 0),
               std::string("attr ") + a + " must be 0 or a multiple of 8 in 24..256");
      }
      return;
    }
    case OpCode::Load: case OpCode::Store: case OpCode::AtomicRMW: case OpCode::AtomicCAS:
    case OpCode::AddPtr: case OpCode::MakeTensorPtr: case OpCode::Advance:
      return verifyMemoryOp(op);
    case OpCode::Dot: case OpCode::Reduce: case OpCode::Scan:
      return verifyCombineOp(op);
    case OpCode::Func:
      fail(op, "is only allowed at module level");
    case OpCode::Call: case OpCode::For: case OpCode::If: case OpCode::While:
      return verifyControlFlow(op);
    case OpCode::Return: case OpCode::Yield: case OpCode::Condition: case OpCode::ReduceReturn:
    case OpCode::ScanReturn:
      VERIFY(op, op->numResults() == 0, "has no results");
      return;
    default:
      return verifyShapeOp(op);
  }
}

//===----------------------------------------------------------------------===//
// Regions
//===----------------------------------------------------------------------===//

void Verifier::verifyRegions(Operation* op) {
  unsigned want = 0;
  switch (op->code()) {
    case OpCode::For: case OpCode::Reduce: case OpCode::Scan: case OpCode::WarpSpecialize: want = 1; break;
    case OpCode::If: case OpCode::While: want = 2; break;
    default: break;
  }
  VERIFY(op, op->numRegions() == want,
        "expects " + std::to_string(want) + " region(s), got " + std::to_string(op->numRegions()));
  for (unsigned r = 0; r < want; ++r) {
    unsigned blocks = op->region(r).numBlocks();
    bool optional = op->is(OpCode::If) && r == 1 && op->numResults() == 0;
    VERIFY(op, blocks == 1 || (optional && blocks == 0),
          "region #" + std::to_string(r) + " must have one block" + (optional ? " or none" : "") + ", got " +
              std::to_string(blocks));
  }
}

//===----------------------------------------------------------------------===//
// Creation and shape ops
//===----------------------------------------------------------------------===//

void Verifier::verifyShapeOp(Operation* op) {
  auto operandType = [&](unsigned i) { return op->operand(i).type(); };
  auto sameElement = [&](Type a, Type b) {
    VERIFY(op, a.elementType() == b.elementType(),
          "element types differ: " + a.elementType().str() + " vs " + b.elementType().str());
  };
  switch (op->code()) {
    case OpCode::MakeRange: {
      verifyCounts(op, 0, 0, 1);
      int64_t start = op->intAttr("start"), end = op->intAttr("end");
      Type want = Type::tensor({std::max<int64_t>(end - start, 1)}, Type::i32());
      VERIFY(op, end > start, "needs end > start");
      VERIFY(op, withoutEncoding(op->result().type()) == withoutEncoding(want), "result must be " + want.str());
      return;
    }
    case OpCode::Splat: {
      verifyCounts(op, 1, 1, 1);
      Type t = op->result().type();
      VERIFY(op, !operandType(0).isTensor() && t.isTensor() && t.elementType() == operandType(0),
            "splats a scalar into a tensor of that element type, got " + operandType(0).str() + " -> " + t.str());
      return;
    }
    case OpCode::Broadcast: {
      verifyCounts(op, 1, 1, 1);
      Type from = operandType(0), to = op->result().type();
      VERIFY(op, from.isTensor() && to.isTensor() && from.rank() == to.rank(),
            "needs tensors of the same rank, got " + from.str() + " -> " + to.str());
      sameElement(from, to);
      for (int64_t d = 0; d < from.rank(); ++d)
        VERIFY(op, from.shape()[d] == 1 || from.shape()[d] == to.shape()[d],
              "cannot broadcast " + from.str() + " to " + to.str());
      return;
    }
    case OpCode::ExpandDims: {
      verifyCounts(op, 1, 1, 1);
      Type from = operandType(0);
      int64_t axis = axisAttr(op, "axis", from.rank() + 1);
      std::vector<int64_t> shape = from.shape();
      shape.insert(shape.begin() + axis, 1);
      Type want = Type::tensor(shape, from.elementType());
      VERIFY(op, withoutEncoding(op->result().type()) == withoutEncoding(want), "result must be " + want.str());
      return;
    }
    case OpCode::Reshape: {
      verifyCounts(op, 1, 1, 1);
      Type from = operandType(0), to = op->result().type();
      VERIFY(op, to.isTensor() && from.numElements() == to.numElements(),
            "changes the element count: " + from.str() + " -> " + to.str());
      sameElement(from, to);
      return;
    }
    case OpCode::Trans: {
      verifyCounts(op, 1, 1, 1);
      Type from = operandType(0);
      std::vector<int64_t> order = op->intArrayAttr("order");
      std::vector<int64_t> sorted = order;
      std::sort(sorted.begin(), sorted.end());
      bool perm = static_cast<int64_t>(order.size()) == from.rank();
      for (size_t i = 0; perm && i < sorted.size(); ++i) perm = sorted[i] == static_cast<int64_t>(i);
      VERIFY(op, from.isTensor() && perm, "attribute 'order' must be a permutation of the operand's dims");
      std::vector<int64_t> shape;
      for (int64_t d : order) shape.push_back(from.shape()[d]);
      Type want = Type::tensor(shape, from.elementType());
      VERIFY(op, withoutEncoding(op->result().type()) == withoutEncoding(want), "result must be " + want.str());
      return;
    }
    case OpCode::Cat: {
      verifyCounts(op, 2, 2, 1);
      Type a = operandType(0), b = operandType(1);
      VERIFY(op, a.rank() == 1 && b.rank() == 1, "concatenates 1-D tensors");
      sameElement(a, b);
      Type want = Type::tensor({a.shape()[0] + b.shape()[0]}, a.elementType());
      VERIFY(op, withoutEncoding(op->result().type()) == withoutEncoding(want), "result must be " + want.str());
      return;
    }
    case OpCode::Join: {
      verifyCounts(op, 2, 2, 1);
      VERIFY(op, operandType(0) == operandType(1), "joins values of the same type");
      std::vector<int64_t> shape = operandType(0).shape();
      shape.push_back(2);
      Type want = Type::tensor(shape, operandType(0).elementType());
      VERIFY(op, withoutEncoding(op->result().type()) == withoutEncoding(want), "result must be " + want.str());
      return;
    }
    case OpCode::Split: {
      verifyCounts(op, 1, 1, 2);
      Type from = operandType(0);
      VERIFY(op, from.isTensor() && from.shape().back() == 2, "splits a tensor whose last dim is 2");
      std::vector<int64_t> shape(from.shape().begin(), from.shape().end() - 1);
      Type want = shape.empty() ? from.elementType() : Type::tensor(shape, from.elementType());
      VERIFY(op, withoutEncoding(op->result(0).type()) == withoutEncoding(want) && withoutEncoding(op->result(1).type()) == withoutEncoding(want), "results must be " + want.str());
      return;
    }
    case OpCode::Gather: {
      verifyCounts(op, 2, 2, 1);
      Type src = operandType(0), index = operandType(1);
      VERIFY(op, src.isTensor() && index.isTensor() && src.rank() == index.rank(),
            "source and index must be tensors of one rank");
      VERIFY(op, index.elementType().isInteger(), "index must be integer");
      int64_t axis = axisAttr(op, "axis", src.rank());
      for (int64_t d = 0; d < src.rank(); ++d)
        VERIFY(op, d == axis || src.shape()[d] == index.shape()[d], "source and index differ off the gather axis");
      Type want = Type::tensor(index.shape(), src.elementType());
      VERIFY(op, withoutEncoding(op->result().type()) == withoutEncoding(want), "result must be " + want.str());
      return;
    }
    case OpCode::Histogram: {
      verifyCounts(op, 1, 2, 1);
      Type in = operandType(0), out = op->result().type();
      VERIFY(op, in.rank() == 1 && in.elementType().isInteger(), "input must be a 1-D integer tensor");
      VERIFY(op, out.rank() == 1 && out.elementType() == Type::i32(), "result must be a 1-D i32 tensor");
      if (op->numOperands() == 2)
        VERIFY(op, operandType(1) == in.withElementType(Type::i1()), "mask must be " + in.withElementType(Type::i1()).str());
      return;
    }
    case OpCode::Sort: case OpCode::Flip: case OpCode::Hint: {
      verifyCounts(op, 1, 1, 1);
      VERIFY(op, op->result().type() == operandType(0), "result type must equal the operand type");
      if (!op->is(OpCode::Hint)) VERIFY(op, operandType(0).isTensor(), "needs a tensor operand");
      if (op->is(OpCode::Flip)) axisAttr(op, "dim", operandType(0).rank());
      return;
    }
    default:
      return;
  }
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

void Verifier::verifyMemoryOp(Operation* op) {
  auto operandType = [&](unsigned i) { return op->operand(i).type(); };
  // For a (tensor of) pointer type: the same shape of pointee values.
  auto valueTypeOf = [&](Type ptr) {
    VERIFY(op, ptr.elementType().isPointer(), "needs a pointer operand, got " + ptr.str());
    return ptr.withElementType(ptr.elementType().pointeeType());
  };
  auto checkMask = [&](unsigned i, Type ptr) {
    if (op->numOperands() <= i) return;
    Type want = ptr.withElementType(Type::i1());
    VERIFY(op, operandType(i) == want, "mask must be " + want.str() + ", got " + operandType(i).str());
  };
  switch (op->code()) {
    case OpCode::AddPtr:
      verifyCounts(op, 2, 2, 1);
      VERIFY(op, operandType(0).elementType().isPointer() && !operandType(0).isBlockPointer(),
            "needs a (tensor of) pointer first operand");
      VERIFY(op, operandType(1).elementType().isInteger(), "offset must be integer");
      VERIFY(op, op->result().type() == operandType(0), "result type must equal the pointer type");
      return;
    case OpCode::Load: {
      Type ptr = operandType(0);
      if (ptr.isBlockPointer()) {
        verifyCounts(op, 1, 1, 1);
        VERIFY(op, withoutEncoding(op->result().type()) == ptr.pointeeType(), "result must be " + ptr.pointeeType().str());
        return;
      }
      verifyCounts(op, 1, 3, 1);
      Type want = valueTypeOf(ptr);
      VERIFY(op, withoutEncoding(op->result().type()) == withoutEncoding(want), "result must be " + want.str() + ", got " + op->result().type().str());
      checkMask(1, ptr);
      if (op->numOperands() == 3)
        VERIFY(op, operandType(2) == want, "'other' must be " + want.str() + ", got " + operandType(2).str());
      return;
    }
    case OpCode::Store: {
      Type ptr = operandType(0);
      if (ptr.isBlockPointer()) {
        verifyCounts(op, 2, 2, 0);
        VERIFY(op, withoutEncoding(operandType(1)) == ptr.pointeeType(), "stored value must be " + ptr.pointeeType().str());
        return;
      }
      verifyCounts(op, 2, 3, 0);
      Type want = valueTypeOf(ptr);
      VERIFY(op, operandType(1) == want, "stored value must be " + want.str() + ", got " + operandType(1).str());
      checkMask(2, ptr);
      return;
    }
    case OpCode::AtomicRMW: {
      verifyCounts(op, 2, 3, 1);
      Type want = valueTypeOf(operandType(0));
      VERIFY(op, operandType(1) == want && withoutEncoding(op->result().type()) == withoutEncoding(want), "value and result must be " + want.str());
      checkMask(2, operandType(0));
      std::string kind = op->strAttr("kind");
      VERIFY(op, contains({"add", "fadd", "max", "umax", "min", "umin", "fmax", "fmin", "and", "or", "xor", "xchg"},
                         kind),
            "has an invalid kind \"" + kind + "\"");
      return;
    }
    case OpCode::AtomicCAS: {
      verifyCounts(op, 3, 3, 1);
      Type want = valueTypeOf(operandType(0));
      VERIFY(op, operandType(1) == want && operandType(2) == want && withoutEncoding(op->result().type()) == withoutEncoding(want),
            "compare value, new value and result must be " + want.str());
      return;
    }
    case OpCode::MakeTensorPtr: {
      Type result = op->result().type();
      VERIFY(op, op->numResults() == 1 && result.isBlockPointer(), "result must be a block pointer");
      Type tile = result.pointeeType();
      unsigned rank = static_cast<unsigned>(tile.rank());
      verifyCounts(op, 1 + 3 * rank, 1 + 3 * rank, 1);
      VERIFY(op, operandType(0) == Type::pointer(tile.elementType(), result.addressSpace()),
            "base must be " + Type::pointer(tile.elementType(), result.addressSpace()).str());
      for (unsigned i = 0; i < rank; ++i) {
        VERIFY(op, operandType(1 + i) == Type::i64(), "shape operands must be i64");
        VERIFY(op, operandType(1 + rank + i) == Type::i64(), "stride operands must be i64");
        VERIFY(op, operandType(1 + 2 * rank + i) == Type::i32(), "offset operands must be i32");
      }
      if (op->hasAttr("order"))
        VERIFY(op, op->intArrayAttr("order").size() == rank, "attribute 'order' needs one entry per dim");
      return;
    }
    case OpCode::Advance: {
      VERIFY(op, op->numOperands() >= 1 && operandType(0).isBlockPointer(), "needs a block pointer operand");
      unsigned rank = static_cast<unsigned>(operandType(0).pointeeType().rank());
      verifyCounts(op, 1 + rank, 1 + rank, 1);
      VERIFY(op, op->result().type() == operandType(0), "result type must equal the block pointer type");
      for (unsigned i = 1; i <= rank; ++i) VERIFY(op, operandType(i) == Type::i32(), "offsets must be i32");
      return;
    }
    default:
      return;
  }
}

//===----------------------------------------------------------------------===//
// Dot, reduce, scan
//===----------------------------------------------------------------------===//

void Verifier::verifyCombineOp(Operation* op) {
  if (op->is(OpCode::Dot)) {
    verifyCounts(op, 3, 3, 1);
    Type a = op->operand(0).type(), b = op->operand(1).type(), c = op->operand(2).type();
    VERIFY(op, a.isTensor() && b.isTensor() && c.isTensor() && (c.rank() == 2 || c.rank() == 3) &&
                  a.rank() == c.rank() && b.rank() == c.rank(),
          "needs 2-D (or batched 3-D) tensors of one rank");
    const auto &sa = a.shape(), &sb = b.shape(), &sc = c.shape();
    size_t r = sc.size();
    VERIFY(op, sa[r - 1] == sb[r - 2] && sa[r - 2] == sc[r - 2] && sb[r - 1] == sc[r - 1],
          "shapes do not multiply: " + a.str() + " * " + b.str() + " + " + c.str());
    VERIFY(op, op->result().type() == c, "result type must equal the accumulator type");
    return;
  }
  // tt.reduce / tt.scan
  unsigned n = op->numOperands();
  VERIFY(op, n >= 1 && op->numResults() == n, "needs n >= 1 operands and n results");
  Type first = op->operand(0).type();
  VERIFY(op, first.isTensor(), "needs tensor operands");
  std::vector<Type> elements;
  for (Value v : op->operands()) {
    VERIFY(op, v.type().isTensor() && v.type().shape() == first.shape(), "operands must have one shape");
    elements.push_back(v.type().elementType());
  }
  int64_t axis = axisAttr(op, "axis", first.rank());
  for (unsigned i = 0; i < n; ++i) {
    Type want = op->operand(i).type();
    if (op->is(OpCode::Reduce)) {
      std::vector<int64_t> shape = first.shape();
      shape.erase(shape.begin() + axis);
      want = shape.empty() ? elements[i] : Type::tensor(shape, elements[i]);
    }
    VERIFY(op, withoutEncoding(op->result(i).type()) == withoutEncoding(want),
          "result #" + std::to_string(i) + " must be " + want.str() + ", got " + op->result(i).type().str());
  }
  Block& body = op->region(0).front();
  std::vector<Type> args = elements;
  args.insert(args.end(), elements.begin(), elements.end());
  expectTypes(op, typesOf(body.arguments()), args, "combine region argument");
  Operation* ret = expectTerminator(op, body, op->is(OpCode::Reduce) ? OpCode::ReduceReturn : OpCode::ScanReturn);
  expectTypes(op, typesOf(ret->operands()), elements, "combined value");
}

//===----------------------------------------------------------------------===//
// Calls and structured control flow
//===----------------------------------------------------------------------===//

void Verifier::verifyControlFlow(Operation* op) {
  std::vector<Type> results = op->resultTypes();
  switch (op->code()) {
    case OpCode::Call: {
      std::string callee = op->strAttr("callee");
      Operation* func = module_.lookup(callee);
      VERIFY(op, func != nullptr, "calls an unknown function @" + callee);
      if (func->numRegions() == 1 && !func->region(0).empty())
        expectTypes(op, typesOf(op->operands()), typesOf(func->region(0).front().arguments()), "argument");
      const Attribute* r = func->attr("result_types");
      const auto* want = r ? std::get_if<std::vector<Type>>(r) : nullptr;
      expectTypes(op, results, want ? *want : std::vector<Type>{}, "result");
      return;
    }
    case OpCode::For: {
      VERIFY(op, op->numOperands() >= 3, "needs lower bound, upper bound and step operands");
      Type iv = op->operand(0).type();
      VERIFY(op, iv.isInteger() && op->operand(1).type() == iv && op->operand(2).type() == iv,
            "bounds and step must be scalar integers of one type");
      std::vector<Value> operands = op->operands();
      std::vector<Type> inits = typesOf(std::vector<Value>(operands.begin() + 3, operands.end()));
      expectTypes(op, results, inits, "result");
      Block& body = op->region(0).front();
      std::vector<Type> args = {iv};
      args.insert(args.end(), inits.begin(), inits.end());
      expectTypes(op, typesOf(body.arguments()), args, "body argument");
      expectTypes(op, typesOf(expectTerminator(op, body, OpCode::Yield)->operands()), inits, "yielded");
      return;
    }
    case OpCode::If: {
      verifyCounts(op, 1, 1, static_cast<unsigned>(results.size()));
      VERIFY(op, op->operand(0).type() == Type::i1(), "condition must be a scalar i1");
      for (unsigned r = 0; r < 2; ++r) {
        if (op->region(r).empty()) continue;
        Block& block = op->region(r).front();
        VERIFY(op, block.numArguments() == 0, "regions take no arguments");
        expectTypes(op, typesOf(expectTerminator(op, block, OpCode::Yield)->operands()), results,
                    r == 0 ? "'then' yielded" : "'else' yielded");
      }
      return;
    }
    case OpCode::While: {
      std::vector<Type> inits = typesOf(op->operands());
      Block& before = op->region(0).front();
      Block& after = op->region(1).front();
      expectTypes(op, typesOf(before.arguments()), inits, "'before' argument");
      Operation* cond = expectTerminator(op, before, OpCode::Condition);
      VERIFY(op, cond->numOperands() >= 1 && cond->operand(0).type() == Type::i1(),
            "scf.condition needs a scalar i1 condition first");
      std::vector<Value> forwarded = cond->operands();
      forwarded.erase(forwarded.begin());
      expectTypes(op, typesOf(forwarded), results, "forwarded");
      expectTypes(op, typesOf(after.arguments()), results, "'after' argument");
      expectTypes(op, typesOf(expectTerminator(op, after, OpCode::Yield)->operands()), inits, "yielded");
      return;
    }
    default:
      return;
  }
}

}  // namespace

std::optional<std::string> verify(const Module& module) {
  Verifier verifier(module);
  try {
    for (Operation* func : module.functions()) verifier.verifyFunc(func);
  } catch (const Failure& failure) {
    return failure.message;
  }
  return std::nullopt;
}

void verifyOrThrow(const Module& module, std::string_view afterWhat) {
  if (std::optional<std::string> message = verify(module))
    throw Error("verifier failed after " + std::string(afterWhat) + ": " + *message);
}

}  // namespace tessera::ir
