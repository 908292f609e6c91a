//===- Value.h - What a name or expression evaluates to --------*- C++ -*-===//
//
// The code generator evaluates every expression to a Val:
//
//   constexprs   None, bool, exact int (BigInt), float, str, dtype, slice,
//                tuple of constexprs, dict (host expressions only)
//   references   a @jit function, a builtin (optionally bound to `self` for
//                methods like `x.sum(0)`), a namespace (`tl`, `tl.math`,
//                `libdevice`, `triton`), an opaque host object
//   tensors      an ir::Value with its Triton dtype (signedness kept) and
//                shape (empty = scalar)
//   tuples       of any of the above (tl.tuple)
//
// Everything except a tensor (or a tuple holding one) is a compile-time
// constant, i.e. a Triton `constexpr`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/python/BigInt.h"
#include "TritonType.h"
#include "tessera/ir/IR.h"
#include "tessera/support/Diagnostics.h"

namespace tessera::frontend {

class SourceProgram;
struct JitFunction;
struct StructType;

/// A @jit function together with the file it belongs to (user file or prelude).
struct FuncRef {
  const SourceProgram* program = nullptr;
  const JitFunction* fn = nullptr;
};

/// The suffix of a TensorDesc Val's `s` whose loads round fp32 to tf32.
inline constexpr const char* kRoundTf32 = "+tf32";

class Val {
 public:
  enum class Kind {
    None, Bool, Int, Float, Str, DType, Tuple, Slice, Dict,
    Func, Builtin, Namespace, Opaque, Tensor,
    /// A user module (`import pkg.ops as ops`): fn.program is its
    /// SourceProgram, s its dotted name.
    Module,
    /// tl.make_tensor_descriptor: dtype = element type, shape = block
    /// shape, elems = {base pointer, shape tuple, strides tuple}, s =
    /// padding option (then kRoundTf32 when loads round fp32 to tf32).
    TensorDesc,
    /// An @triton.aggregate or namedtuple class (`st`): calling it makes an
    /// object, its attributes are the class's.
    Class,
  };

  Kind kind = Kind::None;
  bool b = false;
  BigInt i;
  double f = 0;
  /// Str text; Builtin/Namespace qualified name; Opaque description (with
  /// `b` set, the whole message of an error that uses it); Module name.
  std::string s;
  /// DType value, or the element type of a tensor.
  DType dtype;
  ir::Value value;              ///< Tensor
  std::vector<int64_t> shape;   ///< Tensor; empty = scalar
  std::vector<Val> elems;       ///< Tuple; Slice (lower, upper, step); Dict values
  std::vector<std::string> keys;  ///< Dict keys
  FuncRef fn;                   ///< Func
  std::shared_ptr<Val> self;    ///< bound receiver of a method (Builtin / Func)
  /// Builtin "host.constexpr_function": the host function and its program
  /// (Bridge.cpp's HostConstexprFunction).
  std::shared_ptr<const void> host;
  /// Tuple: the object's class when it is an aggregate or a namedtuple
  /// (elems are its fields in order); Class: the class.
  std::shared_ptr<const StructType> st;

  static Val none() { return Val(); }
  static Val boolean(bool v) { Val r; r.kind = Kind::Bool; r.b = v; return r; }
  static Val integer(BigInt v) { Val r; r.kind = Kind::Int; r.i = std::move(v); return r; }
  static Val flt(double v) { Val r; r.kind = Kind::Float; r.f = v; return r; }
  static Val str(std::string v) { Val r; r.kind = Kind::Str; r.s = std::move(v); return r; }
  static Val dtypeOf(DType t) { Val r; r.kind = Kind::DType; r.dtype = std::move(t); return r; }
  static Val tuple(std::vector<Val> v) { Val r; r.kind = Kind::Tuple; r.elems = std::move(v); return r; }
  static Val builtin(std::string name) { Val r; r.kind = Kind::Builtin; r.s = std::move(name); return r; }
  static Val ns(std::string name) { Val r; r.kind = Kind::Namespace; r.s = std::move(name); return r; }
  static Val opaque(std::string what) { Val r; r.kind = Kind::Opaque; r.s = std::move(what); return r; }
  static Val func(FuncRef f) { Val r; r.kind = Kind::Func; r.fn = f; return r; }
  static Val tensor(ir::Value v, DType t, std::vector<int64_t> shape) {
    Val r;
    r.kind = Kind::Tensor;
    r.value = v;
    r.dtype = std::move(t);
    r.shape = std::move(shape);
    return r;
  }

  bool isNone() const { return kind == Kind::None; }
  bool isTensor() const { return kind == Kind::Tensor; }
  bool isTensorDesc() const { return kind == Kind::TensorDesc; }
  bool isBlock() const { return isTensor() && !shape.empty(); }
  bool isTuple() const { return kind == Kind::Tuple; }
  /// bool, int or float constexpr.
  bool isNumber() const { return kind == Kind::Bool || kind == Kind::Int || kind == Kind::Float; }
  /// True unless it is (or contains) a tensor.
  bool isConstexpr() const;
  int64_t numel() const;

  /// Python truthiness of a constexpr.
  bool truthy() const;
  /// Python repr-like text ("3", "'abc'", "fp16", "(1, 2)").
  std::string repr() const;
  /// The type as shown in messages: "int32", "fp32[64, 128]", "constexpr[3]".
  std::string typeName() const;
  /// Structural identity of constexprs (Python ==, used for `is`, caching).
  bool sameConst(const Val& o) const;
};

/// The class of an aggregate or namedtuple object (Val::st). Objects are
/// tuples of their fields, so they flatten, flow through control flow and
/// calls, and specialize callees like tuples; the class adds names, methods
/// and constexpr fields.
struct StructType {
  std::string name;
  int uid = 0;             ///< tells apart classes of one name (specialization keys)
  bool aggregate = false;  ///< @triton.aggregate (else a namedtuple)
  std::vector<std::string> fields;
  std::vector<std::string> classNames;    ///< its own name, then its bases' (isinstance)
  std::vector<bool> constexprField;       ///< annotated tl.constexpr
  std::vector<std::optional<Val>> defaults;  ///< per field
  /// Methods (@jit functions and plain ones, both generated as code) and
  /// other class attributes; `__init__` when the class defines one.
  std::map<std::string, Val> members;
  SourceLoc loc;
  /// The index of field `n`, or -1.
  int field(const std::string& n) const {
    for (size_t k = 0; k < fields.size(); ++k)
      if (fields[k] == n) return static_cast<int>(k);
    return -1;
  }
  const Val* member(const std::string& n) const {
    auto it = members.find(n);
    return it == members.end() ? nullptr : &it->second;
  }
};

}  // namespace tessera::frontend
