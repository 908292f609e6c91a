//===- Libdevice.cpp - libdevice functions as tt.extern_elementwise -------===//
//
// `libdevice.<fn>(...)` dispatches on the exact argument dtypes like
// Triton's extern_elementwise: fp32 arguments call `__nv_<fn>f`, fp64 ones
// `__nv_<fn>`; integer functions use the `ll` forms for 64-bit; predicates
// (isnan, isinf, signbit, ...) return int32 as in Triton. When any argument
// is a block, arguments are promoted together (weak literals) and broadcast.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace tessera::frontend {

namespace {

struct Overload {
  std::vector<ScalarKind> args;
  std::string symbol;
  ScalarKind ret;
};

using SK = ScalarKind;

std::map<std::string, std::vector<Overload>>& libdeviceTable() {
  static std::map<std::string, std::vector<Overload>> table = [] {
    std::map<std::string, std::vector<Overload>> t;
    auto floatFn = [&](const std::string& n, int arity) {
      std::vector<SK> f32(arity, SK::FP32), f64(arity, SK::FP64);
      t[n] = {{f32, "__nv_" + n + "f", SK::FP32}, {f64, "__nv_" + n, SK::FP64}};
    };
    for (const char* n : {"acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "ceil", "cos", "cosh", "cospi",
                          "erf", "erfc", "erfcinv", "erfcx", "erfinv", "exp", "exp10", "exp2", "expm1", "floor", "j0",
                          "j1", "lgamma", "log", "log10", "log1p", "log2", "logb", "nearbyint", "normcdf",
                          "normcdfinv", "rcbrt", "rint", "round", "rsqrt", "sin", "sinh", "sinpi", "sqrt", "tan",
                          "tanh", "tgamma", "trunc", "y0", "y1", "cyl_bessel_i0", "cyl_bessel_i1"})
      floatFn(n, 1);
    for (const char* n : {"atan2", "copysign", "fdim", "fmod", "hypot", "nextafter", "pow", "remainder", "rhypot",
                          "fmax", "fmin"})
      floatFn(n, 2);
    for (const char* n : {"fma", "norm3d", "rnorm3d"}) floatFn(n, 3);
    for (const char* n : {"norm4d", "rnorm4d"}) floatFn(n, 4);
    t["pow"].push_back({{SK::FP32, SK::I32}, "__nv_powif", SK::FP32});
    t["pow"].push_back({{SK::FP64, SK::I32}, "__nv_powi", SK::FP64});
    t["abs"] = {{{SK::I32}, "__nv_abs", SK::I32}, {{SK::I64}, "__nv_llabs", SK::I64},
                {{SK::FP32}, "__nv_fabsf", SK::FP32}, {{SK::FP64}, "__nv_fabs", SK::FP64}};
    t["isnan"] = {{{SK::FP32}, "__nv_isnanf", SK::I32}, {{SK::FP64}, "__nv_isnand", SK::I32}};
    t["isinf"] = {{{SK::FP32}, "__nv_isinff", SK::I32}, {{SK::FP64}, "__nv_isinfd", SK::I32}};
    t["signbit"] = {{{SK::FP32}, "__nv_signbitf", SK::I32}, {{SK::FP64}, "__nv_signbitd", SK::I32}};
    t["finitef"] = {{{SK::FP32}, "__nv_finitef", SK::I32}};
    t["isfinited"] = {{{SK::FP64}, "__nv_isfinited", SK::I32}};
    t["ilogb"] = {{{SK::FP32}, "__nv_ilogbf", SK::I32}, {{SK::FP64}, "__nv_ilogb", SK::I32}};
    t["ldexp"] = {{{SK::FP32, SK::I32}, "__nv_ldexpf", SK::FP32}, {{SK::FP64, SK::I32}, "__nv_ldexp", SK::FP64}};
    t["scalbn"] = {{{SK::FP32, SK::I32}, "__nv_scalbnf", SK::FP32}, {{SK::FP64, SK::I32}, "__nv_scalbn", SK::FP64}};
    t["jn"] = {{{SK::I32, SK::FP32}, "__nv_jnf", SK::FP32}, {{SK::I32, SK::FP64}, "__nv_jn", SK::FP64}};
    t["yn"] = {{{SK::I32, SK::FP32}, "__nv_ynf", SK::FP32}, {{SK::I32, SK::FP64}, "__nv_yn", SK::FP64}};
    t["llrint"] = {{{SK::FP32}, "__nv_llrintf", SK::I64}, {{SK::FP64}, "__nv_llrint", SK::I64}};
    t["llround"] = {{{SK::FP32}, "__nv_llroundf", SK::I64}, {{SK::FP64}, "__nv_llround", SK::I64}};
    t["saturatef"] = {{{SK::FP32}, "__nv_saturatef", SK::FP32}};
    t["rsqrt_rn"] = {{{SK::FP32}, "__nv_frsqrt_rn", SK::FP32}};
    for (const char* n : {"fast_cosf", "fast_exp10f", "fast_expf", "fast_log10f", "fast_log2f", "fast_logf",
                          "fast_sinf", "fast_tanf", "fast_tanhf"})
      t[n] = {{{SK::FP32}, std::string("__nv_") + n, SK::FP32}};
    t["fast_dividef"] = {{{SK::FP32, SK::FP32}, "__nv_fast_fdividef", SK::FP32}};
    t["fast_powf"] = {{{SK::FP32, SK::FP32}, "__nv_fast_powf", SK::FP32}};
    for (const char* mode : {"rd", "rn", "ru", "rz"}) {
      std::string m = mode;
      t["add_" + m] = {{{SK::FP32, SK::FP32}, "__nv_fadd_" + m, SK::FP32}, {{SK::FP64, SK::FP64}, "__nv_dadd_" + m, SK::FP64}};
      t["sub_" + m] = {{{SK::FP32, SK::FP32}, "__nv_fsub_" + m, SK::FP32}, {{SK::FP64, SK::FP64}, "__nv_dsub_" + m, SK::FP64}};
      t["mul_" + m] = {{{SK::FP32, SK::FP32}, "__nv_fmul_" + m, SK::FP32}, {{SK::FP64, SK::FP64}, "__nv_dmul_" + m, SK::FP64}};
      t["div_" + m] = {{{SK::FP32, SK::FP32}, "__nv_fdiv_" + m, SK::FP32}, {{SK::FP64, SK::FP64}, "__nv_ddiv_" + m, SK::FP64}};
      t["rcp_" + m] = {{{SK::FP32}, "__nv_frcp_" + m, SK::FP32}, {{SK::FP64}, "__nv_drcp_" + m, SK::FP64}};
      t["sqrt_" + m] = {{{SK::FP32}, "__nv_fsqrt_" + m, SK::FP32}, {{SK::FP64}, "__nv_dsqrt_" + m, SK::FP64}};
      t["fma_" + m] = {{{SK::FP32, SK::FP32, SK::FP32}, "__nv_fmaf_" + m, SK::FP32},
                       {{SK::FP64, SK::FP64, SK::FP64}, "__nv_fma_" + m, SK::FP64}};
      t["double2float_" + m] = {{{SK::FP64}, "__nv_double2float_" + m, SK::FP32}};
      t["float2int_" + m] = {{{SK::FP32}, "__nv_float2int_" + m, SK::I32}};
      t["float2uint_" + m] = {{{SK::FP32}, "__nv_float2uint_" + m, SK::U32}};
      t["float2ll_" + m] = {{{SK::FP32}, "__nv_float2ll_" + m, SK::I64}};
      t["float2ull_" + m] = {{{SK::FP32}, "__nv_float2ull_" + m, SK::U64}};
      t["double2int_" + m] = {{{SK::FP64}, "__nv_double2int_" + m, SK::I32}};
      t["double2uint_" + m] = {{{SK::FP64}, "__nv_double2uint_" + m, SK::U32}};
      t["double2ll_" + m] = {{{SK::FP64}, "__nv_double2ll_" + m, SK::I64}};
      t["double2ull_" + m] = {{{SK::FP64}, "__nv_double2ull_" + m, SK::U64}};
      t["int2float_" + m] = {{{SK::I32}, "__nv_int2float_" + m, SK::FP32}};
      t["uint2float_" + m] = {{{SK::U32}, "__nv_uint2float_" + m, SK::FP32}};
      t["ll2float_" + m] = {{{SK::I64}, "__nv_ll2float_" + m, SK::FP32}};
      t["ull2float_" + m] = {{{SK::U64}, "__nv_ull2float_" + m, SK::FP32}};
      t["ll2double_" + m] = {{{SK::I64}, "__nv_ll2double_" + m, SK::FP64}};
      t["ull2double_" + m] = {{{SK::U64}, "__nv_ull2double_" + m, SK::FP64}};
    }
    t["int2double_rn"] = {{{SK::I32}, "__nv_int2double_rn", SK::FP64}};
    t["uint2double_rn"] = {{{SK::U32}, "__nv_uint2double_rn", SK::FP64}};
    t["int_as_float"] = {{{SK::I32}, "__nv_int_as_float", SK::FP32}};
    t["uint_as_float"] = {{{SK::U32}, "__nv_uint_as_float", SK::FP32}};
    t["float_as_int"] = {{{SK::FP32}, "__nv_float_as_int", SK::I32}};
    t["float_as_uint"] = {{{SK::FP32}, "__nv_float_as_uint", SK::U32}};
    t["double_as_longlong"] = {{{SK::FP64}, "__nv_double_as_longlong", SK::I64}};
    t["longlong_as_double"] = {{{SK::I64}, "__nv_longlong_as_double", SK::FP64}};
    t["double2hiint"] = {{{SK::FP64}, "__nv_double2hiint", SK::I32}};
    t["double2loint"] = {{{SK::FP64}, "__nv_double2loint", SK::I32}};
    t["hiloint2double"] = {{{SK::I32, SK::I32}, "__nv_hiloint2double", SK::FP64}};
    t["clz"] = {{{SK::I32}, "__nv_clz", SK::I32}, {{SK::I64}, "__nv_clzll", SK::I32}};
    t["popc"] = {{{SK::I32}, "__nv_popc", SK::I32}, {{SK::I64}, "__nv_popcll", SK::I32}};
    t["ffs"] = {{{SK::I32}, "__nv_ffs", SK::I32}, {{SK::I64}, "__nv_ffsll", SK::I32}};
    t["brev"] = {{{SK::I32}, "__nv_brev", SK::I32}, {{SK::I64}, "__nv_brevll", SK::I64}};
    t["mulhi"] = {{{SK::I32, SK::I32}, "__nv_mulhi", SK::I32}, {{SK::U32, SK::U32}, "__nv_umulhi", SK::U32},
                  {{SK::I64, SK::I64}, "__nv_mul64hi", SK::I64}, {{SK::U64, SK::U64}, "__nv_umul64hi", SK::U64}};
    t["mul24"] = {{{SK::I32, SK::I32}, "__nv_mul24", SK::I32}, {{SK::U32, SK::U32}, "__nv_umul24", SK::U32}};
    t["hadd"] = {{{SK::I32, SK::I32}, "__nv_hadd", SK::I32}, {{SK::U32, SK::U32}, "__nv_uhadd", SK::U32}};
    t["rhadd"] = {{{SK::I32, SK::I32}, "__nv_rhadd", SK::I32}, {{SK::U32, SK::U32}, "__nv_urhadd", SK::U32}};
    t["sad"] = {{{SK::I32, SK::I32, SK::U32}, "__nv_sad", SK::U32}, {{SK::U32, SK::U32, SK::U32}, "__nv_usad", SK::U32}};
    t["byte_perm"] = {{{SK::I32, SK::I32, SK::I32}, "__nv_byte_perm", SK::I32}};
    t["rcp64h"] = {{{SK::FP64}, "__nv_rcp64h", SK::FP64}};
    return t;
  }();
  return table;
}

Val libdeviceCall(CodeGen& cg, const std::string& name, std::vector<Val> args) {
  auto& table = libdeviceTable();
  auto it = table.find(name);
  const auto& overloads = it->second;
  size_t arity = overloads.front().args.size();
  if (args.size() != arity)
    cg.fail("libdevice." + name + "() takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s") + " but " +
            std::to_string(args.size()) + " were given");
  bool anyBlock = false;
  for (const auto& a : args) anyBlock |= a.isBlock();
  std::vector<Val> ts;
  if (anyBlock && arity > 1) {
    // Promote all arguments together and broadcast them (arithmetic rules).
    Val common = args[0];
    for (size_t k = 1; k < args.size(); ++k) common = cg.arithOperands(args[k], common, false, false, name.c_str()).second;
    for (auto& a : args) ts.push_back(cg.arithOperands(a, common, false, false, name.c_str()).first);
  } else {
    for (auto& a : args) ts.push_back(cg.tensorArg(a, ("libdevice." + name).c_str()));
  }
  for (const auto& ov : overloads) {
    bool match = true;
    for (size_t k = 0; k < arity && match; ++k) match = ts[k].dtype.kind() == ov.args[k];
    if (!match) continue;
    std::vector<int64_t> shape;
    for (const auto& t : ts)
      if (t.isBlock()) shape = shape.empty() ? t.shape : cg.broadcastShapes(shape, t.shape);
    std::vector<ir::Value> ops;
    for (auto& t : ts) ops.push_back(cg.broadcastTo(t, shape).value);
    ir::AttrMap attrs;
    attrs["symbol"] = ov.symbol;
    attrs["pure"] = true;
    return cg.make(ir::OpCode::ExternElementwise, ov.ret, shape, ops, std::move(attrs));
  }
  std::string got;
  for (const auto& t : ts) got += (got.empty() ? "" : ", ") + t.dtype.name();
  std::string want;
  for (const auto& ov : overloads) {
    std::string sig;
    for (auto k : ov.args) sig += (sig.empty() ? "" : ", ") + DType(k).name();
    want += (want.empty() ? "" : "; ") + sig;
  }
  cg.fail("libdevice." + name + ": no implementation for argument types (" + got + "); supported: (" + want + ")");
}

}  // namespace

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
