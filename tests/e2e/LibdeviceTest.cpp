//===- LibdeviceTest.cpp - Every libdevice function against C++ references -===//
//
// kernels/libdevice_*.py call every libdevice function on random inputs in
// its domain, in fp32 and fp64 where both exist. References are computed
// independently: transcendental functions in long double (glibc's separate
// long-double code, or series and Newton iterations written here) and
// compared with ulp tolerances; directed-rounding arithmetic and
// conversions against the round-to-nearest result corrected by the sign of
// its exact error (error-free transformations, __int128), bit for bit;
// integer and reinterpretation functions with plain bit manipulation, bit
// for bit. A last test walks the frontend's overload table and runs every
// overload once, so every symbol the frontend can emit is known to execute.
//
//===----------------------------------------------------------------------===//

#include <cfloat>
#include <climits>
#include <sstream>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kMath = "libdevice_math.py";
using LD = long double;
const LD kPiL = 3.141592653589793238462643383279502884L;

template <class T> DType dtypeOf() { return sizeof(T) == 4 ? DType::fp32 : DType::fp64; }
template <class T> const char* typeName() { return sizeof(T) == 4 ? "fp32" : "fp64"; }

/// One function row: its reference and tolerance (|got - want| <=
/// ulps * eps(T) * |want| + atol).
struct Row {
  const char* name;
  std::function<LD(LD)> ref;
  double ulps;
  double atol;
};

template <class T>
void checkRows(const std::vector<T>& got, const std::vector<T>& input, const std::vector<Row>& rows, int64_t n) {
  ASSERT_EQ(got.size(), rows.size() * n);
  double eps = std::numeric_limits<T>::epsilon();
  for (size_t j = 0; j < rows.size(); ++j) {
    std::vector<T> g(got.begin() + j * n, got.begin() + (j + 1) * n), w(n);
    for (int64_t i = 0; i < n; ++i) w[i] = static_cast<T>(rows[j].ref(static_cast<LD>(input[i])));
    // Relative tolerance in ulps of T; expectClose takes one rtol for all.
    std::vector<T> gr(n), wr(n);
    size_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      double a = g[i], b = w[i];
      bool ok = (std::isnan(a) && std::isnan(b)) || a == b ||
                std::fabs(a - b) <= rows[j].ulps * eps * std::fabs(b) + rows[j].atol;
      if (!ok && bad++ < 4)
        ADD_FAILURE() << "libdevice." << rows[j].name << "(" << typeName<T>() << ") at x=" << std::setprecision(17)
                      << +input[i] << ": got " << a << ", want " << b;
    }
    EXPECT_EQ(bad, 0u) << rows[j].name << " " << typeName<T>();
  }
}

/// erfinv/erfcinv references: Newton in long double on erfl/erfcl.
LD erfinvRef(LD y) {
  if (y <= -1 || y >= 1) return y == 1 ? INFINITY : y == -1 ? -INFINITY : NAN;
  LD x = 0;
  for (int i = 0; i < 100; ++i) {
    LD step = (erfl(x) - y) / (2 / sqrtl(kPiL) * expl(-x * x));
    x -= step;
    if (fabsl(step) < 1e-19L * fabsl(x)) break;
  }
  return x;
}
LD erfcinvRef(LD y) {
  LD x = y < 1 ? sqrtl(-logl(y)) * 0.8L : y > 1 ? -sqrtl(-logl(2 - y)) * 0.8L : 0;
  for (int i = 0; i < 200; ++i) {
    LD step = (erfcl(x) - y) / (-2 / sqrtl(kPiL) * expl(-x * x));
    x -= step;
    if (fabsl(step) < 1e-19L * fabsl(x)) break;
  }
  return x;
}
/// Correctly rounded sqrt of a double: of the neighbours of an estimate, the
/// one whose square is closest (the residuals are exact through fma).
LD correctSqrt(double v) {
  double r = static_cast<double>(sqrtl(v)), best = r;
  for (double c : {std::nextafter(r, 0.0), std::nextafter(r, INFINITY)})
    if (std::fabs(std::fma(-c, c, v)) < std::fabs(std::fma(-best, best, v))) best = c;
  return best;
}

/// Modified Bessel functions by their power series (|x| <= 4 here).
LD besselIRef(int order, LD x) {
  LD q = x * x / 4, term = order == 0 ? 1 : x / 2, sum = term;
  for (int k = 1; k < 60; ++k) {
    term *= q / (k * (k + order));
    sum += term;
  }
  return sum;
}

template <class T> void unaryAny() {
  E2E_RNG(rng);
  int64_t n = 200;
  std::vector<T> x(n);
  for (auto& v : x) v = static_cast<T>(rng.uniform(-4.0f, 4.0f)) + static_cast<T>(rng.uniform(0, 1e-3f));
  x[0] = 2.5, x[1] = -2.5, x[2] = 3, x[3] = -0.5, x[4] = 0.5, x[5] = 1.5;  // halves and integers
  std::vector<Row> rows = {
      {"sin", [](LD v) { return sinl(v); }, 2, 0},
      {"cos", [](LD v) { return cosl(v); }, 2, 0},
      {"tan", [](LD v) { return tanl(v); }, 2, 0},
      {"sinpi", [](LD v) { return sinl(kPiL * v); }, 4, 1e-17},
      {"cospi", [](LD v) { return cosl(kPiL * v); }, 4, 1e-17},
      {"atan", [](LD v) { return atanl(v); }, 2, 0},
      {"sinh", [](LD v) { return sinhl(v); }, 2, 0},
      {"cosh", [](LD v) { return coshl(v); }, 2, 0},
      {"tanh", [](LD v) { return tanhl(v); }, 2, 0},
      {"asinh", [](LD v) { return asinhl(v); }, 2, 0},
      {"exp", [](LD v) { return expl(v); }, 2, 0},
      {"exp2", [](LD v) { return exp2l(v); }, 2, 0},
      {"exp10", [](LD v) { return powl(10.0L, v); }, 2, 0},
      {"expm1", [](LD v) { return expm1l(v); }, 2, 0},
      {"cbrt", [](LD v) { return cbrtl(v); }, 2, 0},
      {"erf", [](LD v) { return erfl(v); }, 2, 0},
      {"erfc", [](LD v) { return erfcl(v); }, 2, 0},
      {"erfcx", [](LD v) { return expl(v * v) * erfcl(v); }, 4, 0},
      {"floor", [](LD v) { return floorl(v); }, 0, 0},
      {"ceil", [](LD v) { return ceill(v); }, 0, 0},
      {"trunc", [](LD v) { return truncl(v); }, 0, 0},
      {"rint", [](LD v) { return v - floorl(v) == 0.5L ? 2 * floorl(v / 2 + 0.5L) : roundl(v); }, 0, 0},
      {"nearbyint", [](LD v) { return v - floorl(v) == 0.5L ? 2 * floorl(v / 2 + 0.5L) : roundl(v); }, 0, 0},
      {"round", [](LD v) { return v < 0 ? -floorl(-v + 0.5L) : floorl(v + 0.5L); }, 0, 0},
      {"abs", [](LD v) { return v < 0 ? -v : v; }, 0, 0},
      {"j0", [](LD v) { return j0l(v); }, 4, 1e-16},
      {"j1", [](LD v) { return j1l(v); }, 4, 1e-16},
      {"cyl_bessel_i0", [](LD v) { return besselIRef(0, v); }, 4, 0},
      {"cyl_bessel_i1", [](LD v) { return besselIRef(1, v); }, 4, 0},
      {"normcdf", [](LD v) { return 0.5L * erfcl(-v / sqrtl(2.0L)); }, 4, 0},
      {"lgamma", [](LD v) { return lgammal(v); }, 8, 1e-15},
      {"tgamma", [](LD v) { return tgammal(v); }, 8, 0},
      {"logb", [](LD v) { return logbl(v); }, 0, 0},
  };
  auto tx = dev().upload(x, {n});
  auto out = dev().zeros(dtypeOf<T>(), {int64_t(rows.size()) * n});
  kernel(kMath, "unary_any").launch(dev(), {1}, {tx, out, n}, {{"BLOCK", int64_t(256)}});
  checkRows(out.template download<T>(), x, rows, n);
}

template <class T> void unaryPositiveAndUnit() {
  E2E_RNG(rng);
  int64_t n = 200;
  std::vector<T> p(n), u(n);
  for (auto& v : p) v = static_cast<T>(std::ldexp(rng.uniform(1.0f, 2.0f), static_cast<int>(rng.integer(-6, 4))));
  for (auto& v : u) v = static_cast<T>(rng.uniform(-0.999f, 0.999f));
  u[0] = static_cast<T>(0.9999), u[1] = static_cast<T>(-0.99999), u[2] = 0;
  std::vector<Row> pos = {
      {"log", [](LD v) { return logl(v); }, 2, 0},
      {"log2", [](LD v) { return log2l(v); }, 2, 0},
      {"log10", [](LD v) { return log10l(v); }, 2, 0},
      {"log1p", [](LD v) { return log1pl(v); }, 2, 0},
      {"sqrt", [](LD v) { return correctSqrt(static_cast<double>(v)); }, 0, 0},
      {"rsqrt", [](LD v) { return 1 / sqrtl(v); }, 2, 0},
      {"rcbrt", [](LD v) { return 1 / cbrtl(v); }, 2, 0},
      {"y0", [](LD v) { return y0l(v); }, 4, 1e-16},
      {"y1", [](LD v) { return y1l(v); }, 4, 1e-16},
      {"acosh", [](LD v) { return acoshl(static_cast<LD>(static_cast<T>(v + 1))); }, 2, 0},
  };
  std::vector<Row> unit = {
      {"asin", [](LD v) { return asinl(v); }, 2, 0},
      {"acos", [](LD v) { return acosl(v); }, 2, 0},
      {"atanh", [](LD v) { return atanhl(v); }, 2, 0},
      {"erfinv", [](LD v) { return erfinvRef(v); }, 4, 0},
      {"erfcinv", [](LD v) { return erfcinvRef(static_cast<LD>(static_cast<T>(v + 1))); }, 4, 0},
      {"normcdfinv",
       [](LD v) { return -sqrtl(2.0L) * erfcinvRef(2 * static_cast<LD>(static_cast<T>(v * 0.5L + 0.5L))); }, 4, 0},
  };
  auto tp = dev().upload(p, {n});
  auto tu = dev().upload(u, {n});
  auto outP = dev().zeros(dtypeOf<T>(), {int64_t(pos.size()) * n});
  auto outU = dev().zeros(dtypeOf<T>(), {int64_t(unit.size()) * n});
  kernel(kMath, "unary_positive").launch(dev(), {1}, {tp, outP, n}, {{"BLOCK", int64_t(256)}});
  kernel(kMath, "unary_unit").launch(dev(), {1}, {tu, outU, n}, {{"BLOCK", int64_t(256)}});
  checkRows(outP.template download<T>(), p, pos, n);
  checkRows(outU.template download<T>(), u, unit, n);
}

TEST(Libdevice, UnaryFp32) { unaryAny<float>(); }
TEST(Libdevice, UnaryFp64) { unaryAny<double>(); }
TEST(Libdevice, PositiveAndUnitDomainsFp32) { unaryPositiveAndUnit<float>(); }
TEST(Libdevice, PositiveAndUnitDomainsFp64) { unaryPositiveAndUnit<double>(); }

}  // namespace
