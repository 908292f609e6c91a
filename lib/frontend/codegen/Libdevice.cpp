//===- Libdevice.cpp - libdevice functions as tt.extern_elementwise -------===//
//
// `libdevice.<fn>(...)` (from triton.language.extra[.cuda] import libdevice)
// becomes `tt.extern_elementwise {symbol = "__nv_..."}`.
//
// The overload table below is keyed by the exact argument dtypes, as in
// Triton 3.6's CUDA libdevice module (third_party/nvidia/language/cuda/
// libdevice.py, whose signatures follow NVIDIA's libdevice: the `__nv_*`
// functions of the CUDA math API). Result dtypes are Triton's, including its
// quirks: the unsigned conversions `float2uint_*`, `double2uint_*` and
// `float_as_uint` return int32, `float2ull_*` / `double2ull_*` return int64,
// `sad` returns int32, and `isnan`, `isinf`, `finitef`, `isfinited` convert
// their int32 result to int1. The 198 names are exactly Triton 3.6's.
//
// Dispatch mirrors Triton's extern_elementwise: every argument becomes a
// tensor (Python literals by their literal type: int -> int32/int64, float
// -> fp32), then
//   1. if the tuple of argument dtypes is a key of the table, the arguments
//      are only broadcast together (no promotion): pow(fp32, int32) calls
//      __nv_powif, sad(int32, int32, uint32) calls __nv_sad;
//   2. otherwise all arguments are promoted to their common arithmetic type
//      (and broadcast) and the promoted tuple is looked up again;
//   3. if that fails too, the error lists the accepted signatures.
//
//===----------------------------------------------------------------------===//

#include "frontend/codegen/Libdevice.h"

#include "CodeGen.h"

namespace tessera::frontend {

namespace {

using SK = ScalarKind;

struct Overload {
  std::vector<SK> args;
  std::string symbol;
  SK ret;
  bool toBool = false;
};

using Table = std::map<std::string, std::vector<Overload>>;

/// Builds Triton 3.6's table.
Table buildTable() {
  Table t;
  auto add = [&](const std::string& n, std::vector<SK> args, const std::string& sym, SK ret, bool toBool = false) {
    t[n].push_back(Overload{std::move(args), sym, ret, toBool});
  };
  // fp32 -> __nv_<fn>f, fp64 -> __nv_<fn>, arity 1..4.
  auto floatPair = [&](const std::string& n, int arity) {
    add(n, std::vector<SK>(arity, SK::FP32), "__nv_" + n + "f", SK::FP32);
    add(n, std::vector<SK>(arity, SK::FP64), "__nv_" + n, SK::FP64);
  };
  for (const char* n : {"floor", "rsqrt", "ceil", "trunc", "exp2", "sqrt", "rint", "nearbyint", "sin", "cos", "sinpi",
                        "cospi", "tan", "log2", "exp", "exp10", "cosh", "sinh", "tanh", "atan", "asin", "acos", "log",
                        "log10", "log1p", "acosh", "asinh", "atanh", "expm1", "cbrt", "rcbrt", "j0", "j1", "y0", "y1",
                        "cyl_bessel_i0", "cyl_bessel_i1", "erf", "erfinv", "erfc", "erfcx", "erfcinv", "normcdfinv",
                        "normcdf", "lgamma", "tgamma", "round", "logb"})
    floatPair(n, 1);
  for (const char* n : {"copysign", "nextafter", "atan2", "hypot", "rhypot", "fmod", "remainder", "fdim"})
    floatPair(n, 2);
  for (const char* n : {"norm3d", "rnorm3d", "fma"}) floatPair(n, 3);
  for (const char* n : {"norm4d", "rnorm4d"}) floatPair(n, 4);

  // Integer functions.
  add("clz", {SK::I32}, "__nv_clz", SK::I32);
  add("clz", {SK::I64}, "__nv_clzll", SK::I32);
  add("popc", {SK::I32}, "__nv_popc", SK::I32);
  add("popc", {SK::I64}, "__nv_popcll", SK::I32);
  add("ffs", {SK::I32}, "__nv_ffs", SK::I32);
  add("ffs", {SK::I64}, "__nv_ffsll", SK::I32);
  add("brev", {SK::I32}, "__nv_brev", SK::I32);
  add("brev", {SK::I64}, "__nv_brevll", SK::I64);
  add("byte_perm", {SK::I32, SK::I32, SK::I32}, "__nv_byte_perm", SK::I32);
  add("mulhi", {SK::I32, SK::I32}, "__nv_mulhi", SK::I32);
  add("mulhi", {SK::U32, SK::U32}, "__nv_umulhi", SK::U32);
  add("mulhi", {SK::I64, SK::I64}, "__nv_mul64hi", SK::I64);
  add("mulhi", {SK::U64, SK::U64}, "__nv_umul64hi", SK::U64);
  add("mul24", {SK::I32, SK::I32}, "__nv_mul24", SK::I32);
  add("mul24", {SK::U32, SK::U32}, "__nv_umul24", SK::U32);
  add("hadd", {SK::I32, SK::I32}, "__nv_hadd", SK::I32);
  add("hadd", {SK::U32, SK::U32}, "__nv_uhadd", SK::U32);
  add("rhadd", {SK::I32, SK::I32}, "__nv_rhadd", SK::I32);
  add("rhadd", {SK::U32, SK::U32}, "__nv_urhadd", SK::U32);
  add("sad", {SK::I32, SK::I32, SK::U32}, "__nv_sad", SK::I32);
  add("sad", {SK::U32, SK::U32, SK::U32}, "__nv_usad", SK::U32);
  add("abs", {SK::I32}, "__nv_abs", SK::I32);
  add("abs", {SK::I64}, "__nv_llabs", SK::I64);
  add("abs", {SK::FP32}, "__nv_fabsf", SK::FP32);
  add("abs", {SK::FP64}, "__nv_fabs", SK::FP64);

  // Mixed float/int signatures and predicates.
  add("pow", {SK::FP32, SK::I32}, "__nv_powif", SK::FP32);
  add("pow", {SK::FP64, SK::I32}, "__nv_powi", SK::FP64);
  add("pow", {SK::FP32, SK::FP32}, "__nv_powf", SK::FP32);
  add("pow", {SK::FP64, SK::FP64}, "__nv_pow", SK::FP64);
  for (const char* n : {"ldexp", "scalbn"}) {
    add(n, {SK::FP32, SK::I32}, std::string("__nv_") + n + "f", SK::FP32);
    add(n, {SK::FP64, SK::I32}, std::string("__nv_") + n, SK::FP64);
  }
  for (const char* n : {"jn", "yn"}) {
    add(n, {SK::I32, SK::FP32}, std::string("__nv_") + n + "f", SK::FP32);
    add(n, {SK::I32, SK::FP64}, std::string("__nv_") + n, SK::FP64);
  }
  add("ilogb", {SK::FP32}, "__nv_ilogbf", SK::I32);
  add("ilogb", {SK::FP64}, "__nv_ilogb", SK::I32);
  add("llrint", {SK::FP32}, "__nv_llrintf", SK::I64);
  add("llrint", {SK::FP64}, "__nv_llrint", SK::I64);
  add("llround", {SK::FP32}, "__nv_llroundf", SK::I64);
  add("llround", {SK::FP64}, "__nv_llround", SK::I64);
  add("signbit", {SK::FP32}, "__nv_signbitf", SK::I32);
  add("signbit", {SK::FP64}, "__nv_signbitd", SK::I32);
  add("isnan", {SK::FP32}, "__nv_isnanf", SK::I32, true);
  add("isnan", {SK::FP64}, "__nv_isnand", SK::I32, true);
  add("isinf", {SK::FP32}, "__nv_isinff", SK::I32, true);
  add("isinf", {SK::FP64}, "__nv_isinfd", SK::I32, true);
  add("finitef", {SK::FP32}, "__nv_finitef", SK::I32, true);
  add("isfinited", {SK::FP64}, "__nv_isfinited", SK::I32, true);

  // fp32-only / fp64-only functions.
  add("saturatef", {SK::FP32}, "__nv_saturatef", SK::FP32);
  add("rsqrt_rn", {SK::FP32}, "__nv_frsqrt_rn", SK::FP32);
  add("rcp64h", {SK::FP64}, "__nv_rcp64h", SK::FP64);
  for (const char* n : {"fast_sinf", "fast_cosf", "fast_log2f", "fast_logf", "fast_expf", "fast_tanf", "fast_exp10f",
                        "fast_log10f"})
    add(n, {SK::FP32}, std::string("__nv_") + n, SK::FP32);
  add("fast_dividef", {SK::FP32, SK::FP32}, "__nv_fast_fdividef", SK::FP32);
  add("fast_powf", {SK::FP32, SK::FP32}, "__nv_fast_powf", SK::FP32);

  // Directed rounding and conversions, one per rounding mode.
  for (const char* mode : {"rn", "rz", "rd", "ru"}) {
    std::string m = mode;
    add("add_" + m, {SK::FP32, SK::FP32}, "__nv_fadd_" + m, SK::FP32);
    add("add_" + m, {SK::FP64, SK::FP64}, "__nv_dadd_" + m, SK::FP64);
    add("sub_" + m, {SK::FP32, SK::FP32}, "__nv_fsub_" + m, SK::FP32);
    add("sub_" + m, {SK::FP64, SK::FP64}, "__nv_dsub_" + m, SK::FP64);
    add("mul_" + m, {SK::FP32, SK::FP32}, "__nv_fmul_" + m, SK::FP32);
    add("mul_" + m, {SK::FP64, SK::FP64}, "__nv_dmul_" + m, SK::FP64);
    add("div_" + m, {SK::FP32, SK::FP32}, "__nv_fdiv_" + m, SK::FP32);
    add("div_" + m, {SK::FP64, SK::FP64}, "__nv_ddiv_" + m, SK::FP64);
    add("rcp_" + m, {SK::FP32}, "__nv_frcp_" + m, SK::FP32);
    add("rcp_" + m, {SK::FP64}, "__nv_drcp_" + m, SK::FP64);
    add("sqrt_" + m, {SK::FP32}, "__nv_fsqrt_" + m, SK::FP32);
    add("sqrt_" + m, {SK::FP64}, "__nv_dsqrt_" + m, SK::FP64);
    add("fma_" + m, {SK::FP32, SK::FP32, SK::FP32}, "__nv_fmaf_" + m, SK::FP32);
    add("fma_" + m, {SK::FP64, SK::FP64, SK::FP64}, "__nv_fma_" + m, SK::FP64);
    add("double2float_" + m, {SK::FP64}, "__nv_double2float_" + m, SK::FP32);
    add("double2int_" + m, {SK::FP64}, "__nv_double2int_" + m, SK::I32);
    add("double2uint_" + m, {SK::FP64}, "__nv_double2uint_" + m, SK::I32);
    add("double2ll_" + m, {SK::FP64}, "__nv_double2ll_" + m, SK::I64);
    add("double2ull_" + m, {SK::FP64}, "__nv_double2ull_" + m, SK::I64);
    add("float2int_" + m, {SK::FP32}, "__nv_float2int_" + m, SK::I32);
    add("float2uint_" + m, {SK::FP32}, "__nv_float2uint_" + m, SK::I32);
    add("float2ll_" + m, {SK::FP32}, "__nv_float2ll_" + m, SK::I64);
    add("float2ull_" + m, {SK::FP32}, "__nv_float2ull_" + m, SK::I64);
    add("int2float_" + m, {SK::I32}, "__nv_int2float_" + m, SK::FP32);
    add("uint2float_" + m, {SK::U32}, "__nv_uint2float_" + m, SK::FP32);
    add("ll2float_" + m, {SK::I64}, "__nv_ll2float_" + m, SK::FP32);
    add("ull2float_" + m, {SK::U64}, "__nv_ull2float_" + m, SK::FP32);
    add("ll2double_" + m, {SK::I64}, "__nv_ll2double_" + m, SK::FP64);
    add("ull2double_" + m, {SK::U64}, "__nv_ull2double_" + m, SK::FP64);
  }
  add("int2double_rn", {SK::I32}, "__nv_int2double_rn", SK::FP64);
  add("uint2double_rn", {SK::U32}, "__nv_uint2double_rn", SK::FP64);

  // Bit reinterpretation.
  add("int_as_float", {SK::I32}, "__nv_int_as_float", SK::FP32);
  add("uint_as_float", {SK::U32}, "__nv_uint_as_float", SK::FP32);
  add("float_as_int", {SK::FP32}, "__nv_float_as_int", SK::I32);
  add("float_as_uint", {SK::FP32}, "__nv_float_as_uint", SK::I32);
  add("longlong_as_double", {SK::I64}, "__nv_longlong_as_double", SK::FP64);
  add("double_as_longlong", {SK::FP64}, "__nv_double_as_longlong", SK::I64);
  add("hiloint2double", {SK::I32, SK::I32}, "__nv_hiloint2double", SK::FP64);
  add("double2hiint", {SK::FP64}, "__nv_double2hiint", SK::I32);
  add("double2loint", {SK::FP64}, "__nv_double2loint", SK::I32);
  return t;
}

const Table& libdeviceTable() {
  static const Table table = buildTable();
  return table;
}

std::string signature(const std::vector<SK>& kinds) {
  std::string s;
  for (SK k : kinds) s += (s.empty() ? "" : ", ") + DType(k).name();
  return "(" + s + ")";
}

const Overload* findOverload(const std::vector<Overload>& overloads, const std::vector<Val>& args) {
  for (const auto& ov : overloads) {
    bool match = ov.args.size() == args.size();
    for (size_t k = 0; k < args.size() && match; ++k) match = args[k].dtype.kind() == ov.args[k];
    if (match) return &ov;
  }
  return nullptr;
}

Val libdeviceCall(CodeGen& cg, const std::string& name, const std::vector<Val>& rawArgs) {
  const auto& overloads = libdeviceTable().at(name);
  size_t arity = overloads.front().args.size();
  if (rawArgs.size() != arity)
    cg.fail("libdevice." + name + "() takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s") + " but " +
            std::to_string(rawArgs.size()) + (rawArgs.size() == 1 ? " was" : " were") + " given");
  std::string what = "argument of libdevice." + name;
  std::vector<Val> args;
  std::vector<SK> given;
  for (const auto& a : rawArgs) {
    args.push_back(cg.tensorArg(a, what.c_str()));
    given.push_back(args.back().dtype.kind());
  }
  const Overload* ov = findOverload(overloads, args);
  if (!ov) {
    // No exact match: promote all arguments to their common arithmetic type.
    bool numeric = true;
    for (const auto& a : args) numeric &= !a.dtype.isPtr();
    if (numeric) {
      Val common = args[0];
      for (size_t k = 1; k < args.size(); ++k)
        common = cg.arithOperands(args[k], common, false, false, ("libdevice." + name).c_str()).second;
      for (auto& a : args) a = cg.arithOperands(a, common, false, false, ("libdevice." + name).c_str()).first;
      ov = findOverload(overloads, args);
    }
  }
  if (!ov) {
    std::string accepted;
    for (const auto& o : overloads) accepted += (accepted.empty() ? "" : ", ") + signature(o.args);
    std::vector<SK> promoted;
    for (const auto& a : args) promoted.push_back(a.dtype.kind());
    std::string note = promoted != given ? " (promoted to " + signature(promoted) + ")" : "";
    cg.fail("libdevice." + name + " has no overload for argument types " + signature(given) + note +
            "; accepted: " + accepted);
  }
  std::vector<int64_t> shape;
  for (const auto& a : args)
    if (a.isBlock()) shape = shape.empty() ? a.shape : cg.broadcastShapes(shape, a.shape);
  std::vector<ir::Value> operands;
  for (const auto& a : args) operands.push_back(cg.broadcastTo(a, shape).value);
  ir::AttrMap attrs;
  attrs["symbol"] = ov->symbol;
  attrs["pure"] = true;
  Val r = cg.make(ir::OpCode::ExternElementwise, ov->ret, shape, operands, std::move(attrs));
  return ov->toBool ? cg.cast(r, DType(SK::I1)) : r;
}

}  // namespace

std::vector<LibdeviceOverload> libdeviceOverloads() {
  std::vector<LibdeviceOverload> out;
  for (const auto& [name, overloads] : libdeviceTable())
    for (const auto& ov : overloads) {
      LibdeviceOverload o{name, {}, ov.symbol, DType(ov.ret).name(), ov.toBool};
      for (SK k : ov.args) o.args.push_back(DType(k).name());
      out.push_back(std::move(o));
    }
  return out;
}

Val CodeGen::externElementwise(const std::string& name, const std::vector<Val>& args) {
  if (!libdeviceTable().count(name)) fail("libdevice." + name + " is not a libdevice function");
  return libdeviceCall(*this, name, args);
}

void registerLibdevice(std::vector<Builtin>& table) {
  for (const auto& [name, overloads] : libdeviceTable()) {
    (void)overloads;
    table.push_back(Builtin{"libdevice." + name, {BuiltinParam{"*args", std::nullopt}}, nullptr});
  }
}

/// Handler shared by all libdevice builtins: the name comes from the table
/// entry the call resolved to (see CodeGen::call).
Val callLibdevice(CodeGen& cg, const std::string& qualified, BoundArgs& a) {
  return cg.externElementwise(qualified.substr(std::string("libdevice.").size()), a.rest);
}

}  // namespace tessera::frontend
