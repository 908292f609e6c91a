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
// On the GPU the functions are CUDA's own (libdevice through NVRTC, -ftz like
// Triton), whose results define libdevice semantics (DESIGN decision 6). There
// each function is also allowed CUDA's documented error bound where that is
// looser than the interpreter's: the CUDA C++ Programming Guide, appendix
// "Mathematical Functions" (tables of maximum ulp error of the single- and
// double-precision standard functions and of the single-precision
// intrinsics), and the PTX ISA for the .approx instructions the intrinsics
// compile to. Where CUDA documents a result (jn/yn with n < 0 are NaN), the
// references follow it, and so does the interpreter.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cstring>
#include <iomanip>
#include <sstream>

#include <set>

#include "e2e/Harness.h"
// The two tables under test (internal headers, reached from the source tree:
// libtessera exports these functions).
#include "../../lib/frontend/codegen/Libdevice.h"
#include "../../lib/interpreter/Extern.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kMath = "libdevice_math.py";
using LD = long double;
const LD kPiL = 3.141592653589793238462643383279502884L;

template <class T> DType dtypeOf() { return sizeof(T) == 4 ? DType::fp32 : DType::fp64; }
template <class T> const char* typeName() { return sizeof(T) == 4 ? "fp32" : "fp64"; }

/// An absolute error bound for one element: f(x, want), x the input.
using Bound = std::function<double(LD x, double want)>;

/// CUDA's "u ulp" bound: u * eps(T) * |want| (at least u ulp of want).
template <class T> Bound cudaUlps(double u) {
  return [u](LD, double w) { return u * std::numeric_limits<T>::epsilon() * std::fabs(w); };
}

/// CUDA's bound of j0, j1, y0, y1: u ulp for |x| < 8, otherwise the absolute
/// error a.
template <class T> Bound cudaBessel(double u, double a) {
  return [u, a](LD x, double w) { return fabsl(x) < 8 ? u * std::numeric_limits<T>::epsilon() * std::fabs(w) : a; };
}

/// CUDA's bound of lgamma: u ulp outside (lo, hi), "larger inside", where
/// lgamma crosses zero twice per unit interval and no ulp bound can hold.
/// There the check is absolute: u ulp of the terms of the reflection formula
/// lgamma(x) = log(pi / |x sin(pi x)|) - lgamma(1 - x), the magnitudes any
/// implementation for negative x cancels.
template <class T> Bound cudaLgamma(double u, LD lo, LD hi) {
  return [u, lo, hi](LD x, double w) {
    double eps = std::numeric_limits<T>::epsilon();
    if (x <= lo || x >= hi) return u * eps * std::fabs(w);
    LD terms = fabsl(lgammal(1 - x)) + fabsl(logl(kPiL / fabsl(x * sinl(kPiL * x))));
    return static_cast<double>(u * eps * terms);
  };
}

/// One function row: its reference and tolerance (|got - want| <=
/// ulps * eps(T) * |want| + atol), and on the GPU at least CUDA's documented
/// bound `cuda` (none: the interpreter's tolerance, which CUDA meets).
struct Row {
  const char* name;
  std::function<LD(LD)> ref;
  double ulps;
  double atol;
  Bound cuda = nullptr;
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
      double tol = rows[j].ulps * eps * std::fabs(b) + rows[j].atol;
      if (onGpu() && rows[j].cuda) tol = std::max(tol, rows[j].cuda(static_cast<LD>(input[i]), b));
      bool ok = (std::isnan(a) && std::isnan(b)) || a == b || std::fabs(a - b) <= tol;
      if (!ok && bad++ < 4)
        ADD_FAILURE() << "libdevice." << rows[j].name << "(" << typeName<T>() << ") at x=" << std::setprecision(17)
                      << +input[i] << ": got " << a << ", want " << b << " (tolerance " << std::setprecision(3) << tol
                      << ")";
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
  // Near y = 1, erfc(x) - y cancels: solve erf(x) = 1 - y instead (exact here).
  if (y > 0.5L && y < 1.5L) return erfinvRef(1 - y);
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
  constexpr bool f32 = sizeof(T) == 4;
  // CUDA's maximum ulp errors (single, double).
  auto u = [](double single, double dbl) { return cudaUlps<T>(f32 ? single : dbl); };
  std::vector<Row> rows = {
      {"sin", [](LD v) { return sinl(v); }, 2, 0, u(2, 1)},
      {"cos", [](LD v) { return cosl(v); }, 2, 0, u(2, 1)},
      {"tan", [](LD v) { return tanl(v); }, 2, 0, u(4, 2)},
      {"sinpi", [](LD v) { return sinl(kPiL * v); }, 4, 1e-17, u(2, 1)},
      {"cospi", [](LD v) { return cosl(kPiL * v); }, 4, 1e-17, u(2, 1)},
      {"atan", [](LD v) { return atanl(v); }, 2, 0, u(2, 2)},
      {"sinh", [](LD v) { return sinhl(v); }, 2, 0, u(3, 1)},
      {"cosh", [](LD v) { return coshl(v); }, 2, 0, u(2, 1)},
      {"tanh", [](LD v) { return tanhl(v); }, 2, 0, u(2, 1)},
      {"asinh", [](LD v) { return asinhl(v); }, 2, 0, u(3, 2)},
      {"exp", [](LD v) { return expl(v); }, 2, 0, u(2, 1)},
      {"exp2", [](LD v) { return exp2l(v); }, 2, 0, u(2, 1)},
      {"exp10", [](LD v) { return powl(10.0L, v); }, 2, 0, u(2, 1)},
      {"expm1", [](LD v) { return expm1l(v); }, 2, 0, u(1, 1)},
      {"cbrt", [](LD v) { return cbrtl(v); }, 2, 0, u(1, 1)},
      {"erf", [](LD v) { return erfl(v); }, 2, 0, u(2, 2)},
      {"erfc", [](LD v) { return erfcl(v); }, 2, 0, u(4, 4)},
      {"erfcx", [](LD v) { return expl(v * v) * erfcl(v); }, 4, 0, u(4, 3)},
      {"floor", [](LD v) { return floorl(v); }, 0, 0},
      {"ceil", [](LD v) { return ceill(v); }, 0, 0},
      {"trunc", [](LD v) { return truncl(v); }, 0, 0},
      {"rint", [](LD v) { return v - floorl(v) == 0.5L ? 2 * floorl(v / 2 + 0.5L) : roundl(v); }, 0, 0},
      {"nearbyint", [](LD v) { return v - floorl(v) == 0.5L ? 2 * floorl(v / 2 + 0.5L) : roundl(v); }, 0, 0},
      {"round", [](LD v) { return v < 0 ? -floorl(-v + 0.5L) : floorl(v + 0.5L); }, 0, 0},
      {"abs", [](LD v) { return v < 0 ? -v : v; }, 0, 0},
      {"j0", [](LD v) { return j0l(v); }, 4, 1e-16, cudaBessel<T>(f32 ? 9 : 7, f32 ? 2.2e-6 : 5e-12)},
      {"j1", [](LD v) { return j1l(v); }, 4, 1e-16, cudaBessel<T>(f32 ? 9 : 7, f32 ? 2.2e-6 : 5e-12)},
      {"cyl_bessel_i0", [](LD v) { return besselIRef(0, v); }, 4, 0, u(6, 6)},
      {"cyl_bessel_i1", [](LD v) { return besselIRef(1, v); }, 4, 0, u(6, 6)},
      {"normcdf", [](LD v) { return 0.5L * erfcl(-v / sqrtl(2.0L)); }, 4, 0, u(5, 5)},
      {"lgamma", [](LD v) { return lgammal(v); }, 8, 1e-15,
       f32 ? cudaLgamma<T>(6, -10.001L, -2.264L) : cudaLgamma<T>(4, -11.0001L, -2.2637L)},
      {"tgamma", [](LD v) { return tgammal(v); }, 8, 0, u(11, 8)},
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
  constexpr bool f32 = sizeof(T) == 4;
  // CUDA's maximum ulp errors (single, double).
  auto cu = [](double single, double dbl) { return cudaUlps<T>(f32 ? single : dbl); };
  Bound bessel = cudaBessel<T>(f32 ? 9 : 7, f32 ? 2.2e-6 : 5e-12);
  std::vector<Row> pos = {
      {"log", [](LD v) { return logl(v); }, 2, 0, cu(1, 1)},
      {"log2", [](LD v) { return log2l(v); }, 2, 0, cu(1, 1)},
      {"log10", [](LD v) { return log10l(v); }, 2, 0, cu(2, 1)},
      {"log1p", [](LD v) { return log1pl(v); }, 2, 0, cu(1, 1)},
      {"sqrt", [](LD v) { return correctSqrt(static_cast<double>(v)); }, 0, 0, cu(0, 0)},
      {"rsqrt", [](LD v) { return 1 / sqrtl(v); }, 2, 0, cu(2, 1)},
      {"rcbrt", [](LD v) { return 1 / cbrtl(v); }, 2, 0, cu(1, 1)},
      {"y0", [](LD v) { return y0l(v); }, 4, 1e-16, bessel},
      {"y1", [](LD v) { return y1l(v); }, 4, 1e-16, bessel},
      {"acosh", [](LD v) { return acoshl(static_cast<LD>(static_cast<T>(v + 1))); }, 2, 0, cu(4, 2)},
  };
  std::vector<Row> unit = {
      {"asin", [](LD v) { return asinl(v); }, 2, 0, cu(4, 2)},
      {"acos", [](LD v) { return acosl(v); }, 2, 0, cu(3, 1)},
      {"atanh", [](LD v) { return atanhl(v); }, 2, 0, cu(3, 2)},
      {"erfinv", [](LD v) { return erfinvRef(v); }, 4, 0, cu(2, 5)},
      {"erfcinv", [](LD v) { return erfcinvRef(static_cast<LD>(static_cast<T>(v + 1))); }, 4, 0, cu(2, 6)},
      {"normcdfinv",
       [](LD v) { return -sqrtl(2.0L) * erfcinvRef(2 * static_cast<LD>(static_cast<T>(v * 0.5L + 0.5L))); }, 4, 0,
       cu(5, 7)},
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

//===----------------------------------------------------------------------===//
// Exact functions
//===----------------------------------------------------------------------===//

const char* kExact = "libdevice_exact.py";

/// Sign of the exact sum of doubles (Shewchuk's expansion growth: the
/// components stay non-overlapping, so the largest nonzero one has the sign).
int exactSign(std::initializer_list<double> terms) {
  std::vector<double> e;
  for (double t : terms) {
    double q = t;
    std::vector<double> next;
    for (double h : e) {
      double s = q + h, bb = s - q, err = (q - (s - bb)) + (h - bb);
      if (err != 0) next.push_back(err);
      q = s;
    }
    next.push_back(q);
    e = next;
  }
  for (auto it = e.rbegin(); it != e.rend(); ++it)
    if (*it != 0) return *it > 0 ? 1 : -1;
  return 0;
}

enum Dir { RN, RZ, RD, RU };
const char* kDirNames[] = {"rn", "rz", "rd", "ru"};

/// The rounding of an exact value from its round-to-nearest result `rn` and
/// the sign of (exact - rn).
template <class T> T directed(T rn, int sign, Dir d) {
  if (sign == 0 || d == RN) return rn;
  bool up = d == RU || (d == RZ && rn < 0);
  bool down = d == RD || (d == RZ && rn > 0);
  if (sign < 0 && down) return std::nextafter(rn, -std::numeric_limits<T>::infinity());
  if (sign > 0 && up) return std::nextafter(rn, std::numeric_limits<T>::infinity());
  return rn;
}

template <class T> void roundingArith() {
  E2E_RNG(rng);
  int64_t n = 300;
  std::vector<T> a(n), b(n), c(n);
  auto gen = [&] {
    T m = static_cast<T>(rng.uniform(1.0f, 2.0f)) + static_cast<T>(rng.uniform(0, 1)) * std::numeric_limits<T>::epsilon() * 64;
    T v = std::ldexp(m, static_cast<int>(rng.integer(-30, 30)));
    return rng.integer(0, 1) ? -v : v;
  };
  for (int64_t i = 0; i < n; ++i) a[i] = gen(), b[i] = gen(), c[i] = gen();
  b[0] = -a[0];  // exact zero: -0 only when rounding down
  b[1] = a[1];
  auto ta = dev().upload(a, {n}), tb = dev().upload(b, {n}), tc = dev().upload(c, {n});
  auto out = dev().zeros(dtypeOf<T>(), {28 * n});
  kernel(kExact, "rounding_arith").launch(dev(), {1}, {ta, tb, tc, out, n}, {{"BLOCK", int64_t(512)}});
  auto got = out.template download<T>();
  const char* ops[] = {"add", "sub", "mul", "div", "rcp", "sqrt", "fma"};
  for (int op = 0; op < 7; ++op)
    for (int d = 0; d < 4; ++d) {
      std::vector<T> want(n), g(got.begin() + (op * 4 + d) * n, got.begin() + (op * 4 + d + 1) * n);
      for (int64_t i = 0; i < n; ++i) {
        T x = a[i], y = b[i], z = c[i], s = std::fabs(x), r;
        int sign;
        // Terms are exact in double (products of fp32 values are; fp64
        // products are split with fma).
        auto prod = [](T p, T q, double& hi, double& lo) {
          hi = static_cast<double>(p) * q;
          lo = std::fma(static_cast<double>(p), static_cast<double>(q), -hi);
        };
        double hi, lo, hi2, lo2;
        switch (op) {
        case 0: r = x + y; sign = exactSign({double(x), double(y), -double(r)}); break;
        case 1: r = x - y; sign = exactSign({double(x), -double(y), -double(r)}); break;
        case 2: r = x * y; prod(x, y, hi, lo); sign = exactSign({hi, lo, -double(r)}); break;
        case 3:  // x / y - r has the sign of (x - r y) / y
          r = x / y; prod(r, y, hi, lo); sign = exactSign({double(x), -hi, -lo}) * (y < 0 ? -1 : 1); break;
        case 4: r = T(1) / y; prod(r, y, hi, lo); sign = exactSign({1.0, -hi, -lo}) * (y < 0 ? -1 : 1); break;
        case 5: r = std::sqrt(s); prod(r, r, hi, lo); sign = exactSign({double(s), -hi, -lo}); break;
        default:
          r = std::fma(x, y, z);
          prod(x, y, hi, lo);
          (void)hi2, (void)lo2;
          sign = exactSign({hi, lo, double(z), -double(r)});
        }
        want[i] = directed(r, sign, Dir(d));
        if (op <= 1 && r == 0 && !(x == 0 && y == 0)) want[i] = d == RD ? -T(0) : T(0);
      }
      size_t bad = 0;
      for (int64_t i = 0; i < n; ++i)
        if (std::memcmp(&g[i], &want[i], sizeof(T)) != 0 && bad++ < 4)
          ADD_FAILURE() << ops[op] << "_" << kDirNames[d] << " " << typeName<T>() << " (" << std::setprecision(17)
                        << +a[i] << ", " << +b[i] << ", " << +c[i] << "): got " << +g[i] << ", want " << +want[i];
      EXPECT_EQ(bad, 0u) << ops[op] << "_" << kDirNames[d] << " " << typeName<T>();
    }
}

TEST(Libdevice, DirectedRoundingArithmeticFp32) { roundingArith<float>(); }
TEST(Libdevice, DirectedRoundingArithmeticFp64) { roundingArith<double>(); }

/// Float -> integer like PTX cvt: round in the mode, saturate, NaN -> 0 for
/// fp32 -> 32-bit, else 1 << (bits - 1).
template <class I> I cvtRef(long double v, Dir d, bool fromDouble) {
  if (std::isnan(v)) return (!fromDouble && sizeof(I) == 4) ? I(0) : static_cast<I>(uint64_t(1) << (sizeof(I) * 8 - 1));
  long double r = d == RZ ? truncl(v) : d == RD ? floorl(v) : d == RU ? ceill(v)
                  : (v - floorl(v) == 0.5L ? 2 * floorl(v / 2 + 0.5L) : roundl(v));
  if (r <= static_cast<long double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= static_cast<long double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

template <class F> void floatToIntCase(const char* kname) {
  E2E_RNG(rng);
  std::vector<F> x = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 2.4, -2.6, 1e10, -1e10, 3e9, 4.5e9, 1e19, 2e19,
                      -1e19, 1e30, -1e30, INFINITY, -INFINITY, NAN, 2147483520.0, -2147483648.0, 4294967040.0};
  if (sizeof(F) == 8) x.insert(x.end(), {2147483647.5, -2147483648.5, 4294967295.5, 4294967296.0});
  while (x.size() < 200) {
    F v = static_cast<F>(rng.uniform(-1e4f, 1e4f));
    x.push_back(rng.integer(0, 3) == 0 ? std::ldexp(v, static_cast<int>(rng.integer(0, 50))) : v);
  }
  int64_t n = x.size();
  auto tx = dev().upload(x, {n});
  auto o32 = dev().zeros(DType::i32, {8 * n}), o64 = dev().zeros(DType::i64, {8 * n});
  kernel(kExact, kname).launch(dev(), {1}, {tx, o32, o64, n}, {{"BLOCK", int64_t(256)}});
  auto g32 = o32.download<int32_t>();
  auto g64 = o64.download<int64_t>();
  bool fd = sizeof(F) == 8;
  for (int d = 0; d < 4; ++d) {
    std::vector<int32_t> wi(n), wu(n), gi(g32.begin() + d * n, g32.begin() + (d + 1) * n),
        gu(g32.begin() + (4 + d) * n, g32.begin() + (5 + d) * n);
    std::vector<int64_t> wl(n), wul(n), gl(g64.begin() + d * n, g64.begin() + (d + 1) * n),
        gul(g64.begin() + (4 + d) * n, g64.begin() + (5 + d) * n);
    for (int64_t i = 0; i < n; ++i) {
      wi[i] = cvtRef<int32_t>(x[i], Dir(d), fd);
      wu[i] = static_cast<int32_t>(cvtRef<uint32_t>(x[i], Dir(d), fd));
      wl[i] = cvtRef<int64_t>(x[i], Dir(d), fd);
      wul[i] = static_cast<int64_t>(cvtRef<uint64_t>(x[i], Dir(d), fd));
    }
    std::string sfx = std::string("_") + kDirNames[d] + (fd ? " (fp64)" : " (fp32)");
    expectEqual(gi, wi, "to int" + sfx);
    expectEqual(gu, wu, "to uint" + sfx);
    expectEqual(gl, wl, "to ll" + sfx);
    expectEqual(gul, wul, "to ull" + sfx);
  }
}

TEST(Libdevice, FloatToIntegerConversions) { floatToIntCase<float>("float_to_int"); }
TEST(Libdevice, DoubleToIntegerConversions) { floatToIntCase<double>("double_to_int"); }

/// Rounds the exact integer v (or double) to T in direction d.
template <class T> T intToFloatRef(__int128 v, Dir d) {
  T rn = static_cast<T>(static_cast<long double>(v));  // long double holds 64-bit integers exactly
  __int128 back = static_cast<__int128>(static_cast<long double>(rn));
  int sign = v > back ? 1 : v < back ? -1 : 0;
  return directed(rn, sign, d);
}

TEST(Libdevice, ConversionsToFloat) {
  E2E_RNG(rng);
  int64_t n = 200;
  std::vector<double> dv(n);
  std::vector<int32_t> iv(n);
  std::vector<uint32_t> uv(n);
  std::vector<int64_t> lv(n);
  std::vector<uint64_t> ulv(n);
  for (int64_t i = 0; i < n; ++i) {
    dv[i] = std::ldexp(static_cast<double>(rng.uniform(-2, 2)) + rng.uniform(0, 1) * 1e-9, static_cast<int>(rng.integer(-140, 130)));
    iv[i] = static_cast<int32_t>(rng.engine()());
    uv[i] = static_cast<uint32_t>(rng.engine()());
    lv[i] = static_cast<int64_t>(rng.engine()()) >> rng.integer(0, 40);
    ulv[i] = rng.engine()() >> rng.integer(0, 40);
  }
  dv[0] = 1e39, dv[1] = -1e39, dv[2] = 3.4028235677973366e38, dv[3] = -0.0, dv[4] = 1e-46, dv[5] = NAN;
  iv[0] = INT32_MAX, iv[1] = INT32_MIN, uv[0] = UINT32_MAX, lv[0] = INT64_MAX, lv[1] = INT64_MIN, ulv[0] = UINT64_MAX;
  auto out32 = dev().zeros(DType::fp32, {20 * n}), out64 = dev().zeros(DType::fp64, {10 * n});
  kernel(kExact, "to_float")
      .launch(dev(), {1},
              {dev().upload(dv, {n}), dev().upload(iv, {n}), dev().upload(uv, {n}), dev().upload(lv, {n}),
               dev().upload(ulv, {n}), out32, out64, n},
              {{"BLOCK", int64_t(256)}});
  auto g32 = out32.download<float>();
  auto g64 = out64.download<double>();
  for (int d = 0; d < 4; ++d) {
    std::vector<float> w[5];
    std::vector<double> wd[2];
    for (int64_t i = 0; i < n; ++i) {
      float rn = static_cast<float>(dv[i]);
      int sign = std::isnan(dv[i]) ? 0 : exactSign({dv[i], -double(rn)});
      if (std::isinf(rn) && !std::isinf(dv[i])) {  // overflowed to nearest: the directed result may be FLT_MAX
        bool toInf = d == RN || (d == RU && dv[i] > 0) || (d == RD && dv[i] < 0);
        w[0].push_back(toInf ? rn : std::copysign(FLT_MAX, dv[i]));
      } else {
        // libdevice runs fp32 flush-to-zero on the GPU (measured on an H100,
        // tests/parity): a subnormal result is a zero of the same sign.
        float r = directed(rn, sign, Dir(d));
        w[0].push_back(std::fpclassify(r) == FP_SUBNORMAL ? std::copysign(0.0f, r) : r);
      }
      w[1].push_back(intToFloatRef<float>(iv[i], Dir(d)));
      w[2].push_back(intToFloatRef<float>(uv[i], Dir(d)));
      w[3].push_back(intToFloatRef<float>(lv[i], Dir(d)));
      w[4].push_back(intToFloatRef<float>(ulv[i], Dir(d)));
      wd[0].push_back(intToFloatRef<double>(lv[i], Dir(d)));
      wd[1].push_back(intToFloatRef<double>(ulv[i], Dir(d)));
    }
    const char* names[] = {"double2float", "int2float", "uint2float", "ll2float", "ull2float"};
    for (int k = 0; k < 5; ++k)
      expectSameBits(std::vector<float>(g32.begin() + (4 * k + d) * n, g32.begin() + (4 * k + d + 1) * n), w[k],
                     std::string(names[k]) + "_" + kDirNames[d]);
    for (int k = 0; k < 2; ++k)
      expectEqual(std::vector<double>(g64.begin() + (4 * k + d) * n, g64.begin() + (4 * k + d + 1) * n), wd[k],
                  std::string(k ? "ull2double_" : "ll2double_") + kDirNames[d]);
  }
  std::vector<double> wi(n), wu(n);
  for (int64_t i = 0; i < n; ++i) wi[i] = iv[i], wu[i] = uv[i];
  expectEqual(std::vector<double>(g64.begin() + 8 * n, g64.begin() + 9 * n), wi, "int2double_rn");
  expectEqual(std::vector<double>(g64.begin() + 9 * n, g64.begin() + 10 * n), wu, "uint2double_rn");
}

uint32_t revBits32(uint32_t v) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i)
    if (v & (1u << i)) r |= 1u << (31 - i);
  return r;
}

TEST(Libdevice, IntegerFunctions) {
  E2E_RNG(rng);
  int64_t n = 256;
  std::vector<int32_t> a(n), b(n);
  std::vector<uint32_t> ua(n), ub(n);
  std::vector<int64_t> la(n), lb(n);
  std::vector<uint64_t> ula(n), ulb(n);
  for (int64_t i = 0; i < n; ++i) {
    int shift = static_cast<int>(rng.integer(0, 31));
    a[i] = static_cast<int32_t>(rng.engine()()) >> shift;
    b[i] = static_cast<int32_t>(rng.engine()()) >> rng.integer(0, 31);
    ua[i] = static_cast<uint32_t>(rng.engine()()) >> shift;
    ub[i] = static_cast<uint32_t>(rng.engine()());
    la[i] = static_cast<int64_t>(rng.engine()()) >> rng.integer(0, 63);
    lb[i] = static_cast<int64_t>(rng.engine()());
    ula[i] = rng.engine()() >> rng.integer(0, 63);
    ulb[i] = rng.engine()();
  }
  a[0] = 0, la[0] = 0, a[1] = INT32_MIN, la[1] = INT64_MIN, b[1] = -1, a[2] = INT32_MAX, b[2] = INT32_MAX;
  ua[2] = UINT32_MAX, ub[2] = UINT32_MAX;
  auto o32 = dev().zeros(DType::i32, {19 * n}), o64 = dev().zeros(DType::i64, {4 * n});
  kernel(kExact, "int_functions")
      .launch(dev(), {1},
              {dev().upload(a, {n}), dev().upload(b, {n}), dev().upload(ua, {n}), dev().upload(ub, {n}),
               dev().upload(la, {n}), dev().upload(lb, {n}), dev().upload(ula, {n}), dev().upload(ulb, {n}), o32, o64,
               n},
              {{"BLOCK", int64_t(256)}});
  auto g32 = o32.download<int32_t>();
  auto g64 = o64.download<int64_t>();
  std::vector<std::vector<int32_t>> w(19);
  std::vector<std::vector<int64_t>> w64(4);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t x = a[i];
    uint64_t lx = la[i];
    int clz = 0, clzl = 0, pop = 0, popl = 0, ffs = 0, ffsl = 0;
    for (int k = 31; k >= 0 && !(x >> k & 1); --k) ++clz;
    for (int k = 63; k >= 0 && !(lx >> k & 1); --k) ++clzl;
    for (int k = 0; k < 64; ++k) {
      if (k < 32) pop += x >> k & 1;
      popl += lx >> k & 1;
    }
    for (int k = 0; k < 32 && !ffs; ++k)
      if (x >> k & 1) ffs = k + 1;
    for (int k = 0; k < 64 && !ffsl; ++k)
      if (lx >> k & 1) ffsl = k + 1;
    int64_t sa = a[i] & 0xffffff, sb = b[i] & 0xffffff;  // 24-bit operands, sign-extended
    if (sa & 0x800000) sa -= 0x1000000;
    if (sb & 0x800000) sb -= 0x1000000;
    uint64_t src = (uint64_t(uint32_t(b[i])) << 32) | uint32_t(a[i]);
    uint32_t perm = 0;
    for (int k = 0; k < 4; ++k) perm |= uint32_t((src >> (8 * ((ub[i] >> (4 * k)) & 7))) & 0xff) << (8 * k);
    int64_t d = int64_t(a[i]) - b[i];
    uint32_t ud = ua[i] > ub[i] ? ua[i] - ub[i] : ub[i] - ua[i];
    int32_t vals[19] = {clz, clzl, pop, popl, ffs, ffsl, int32_t(revBits32(x)),
                        int32_t((int64_t(a[i]) * b[i]) >> 32), int32_t((uint64_t(ua[i]) * ub[i]) >> 32),
                        int32_t(uint32_t(sa * sb)), int32_t(uint32_t((ua[i] & 0xffffff) * uint64_t(ub[i] & 0xffffff))),
                        int32_t(std::floor((double(a[i]) + b[i]) / 2)), int32_t((uint64_t(ua[i]) + ub[i]) / 2),
                        int32_t(std::floor((double(a[i]) + b[i] + 1) / 2)), int32_t((uint64_t(ua[i]) + ub[i] + 1) / 2),
                        int32_t(uint32_t(d < 0 ? -d : d) + ua[i]), int32_t(ud + ua[i]), int32_t(perm),
                        int32_t(a[i] == INT32_MIN ? INT32_MIN : std::abs(a[i]))};
    for (int k = 0; k < 19; ++k) w[k].push_back(vals[k]);
    uint64_t rev = 0;
    for (int k = 0; k < 64; ++k)
      if (lx >> k & 1) rev |= uint64_t(1) << (63 - k);
    w64[0].push_back(int64_t(rev));
    w64[1].push_back(int64_t((__int128(la[i]) * lb[i]) >> 64));
    w64[2].push_back(int64_t((static_cast<unsigned __int128>(ula[i]) * ulb[i]) >> 64));
    w64[3].push_back(la[i] == INT64_MIN ? INT64_MIN : (la[i] < 0 ? -la[i] : la[i]));
  }
  const char* names[] = {"clz", "clzll", "popc", "popcll", "ffs", "ffsll", "brev", "mulhi", "umulhi", "mul24",
                         "umul24", "hadd", "uhadd", "rhadd", "urhadd", "sad", "usad", "byte_perm", "abs"};
  for (int k = 0; k < 19; ++k)
    expectEqual(std::vector<int32_t>(g32.begin() + k * n, g32.begin() + (k + 1) * n), w[k], names[k]);
  const char* names64[] = {"brevll", "mul64hi", "umul64hi", "llabs"};
  for (int k = 0; k < 4; ++k)
    expectEqual(std::vector<int64_t>(g64.begin() + k * n, g64.begin() + (k + 1) * n), w64[k], names64[k]);
}

TEST(Libdevice, BitReinterpretation) {
  E2E_RNG(rng);
  int64_t n = 128;
  std::vector<uint32_t> fbits(n), ubits(n);
  std::vector<uint64_t> dbits(n), lbits(n);
  std::vector<int32_t> ibits(n);
  for (int64_t i = 0; i < n; ++i) {
    fbits[i] = static_cast<uint32_t>(rng.engine()());
    dbits[i] = rng.engine()();
    ibits[i] = static_cast<int32_t>(rng.engine()());
    ubits[i] = static_cast<uint32_t>(rng.engine()());
    lbits[i] = rng.engine()();
  }
  fbits[0] = 0x7f800001u;            // signaling NaN: the payload must survive
  dbits[0] = 0x7ff0000000000001ull;  // likewise
  ibits[0] = 0x7fa00000, ubits[0] = 0xffc00001u, lbits[0] = 0xfff0000000000002ull;
  // rcp64h inputs: normal doubles of moderate magnitude.
  std::vector<double> d(n);
  for (int64_t i = 0; i < n; ++i) std::memcpy(&d[i], &dbits[i], 8);
  for (int64_t i = n / 2; i < n; ++i) d[i] = std::ldexp(rng.uniform(1, 2), static_cast<int>(rng.integer(-100, 100)));
  std::vector<uint64_t> dAll(n);
  for (int64_t i = 0; i < n; ++i) std::memcpy(&dAll[i], &d[i], 8);
  auto tf = dev().upload(fbits.data(), DType::fp32, {n});
  auto td = dev().upload(dAll.data(), DType::fp64, {n});
  auto o32 = dev().zeros(DType::i32, {4 * n}), of32 = dev().zeros(DType::fp32, {2 * n});
  auto o64 = dev().zeros(DType::i64, {n}), of64 = dev().zeros(DType::fp64, {3 * n});
  kernel(kExact, "reinterpret")
      .launch(dev(), {1},
              {tf, td, dev().upload(ibits, {n}), dev().upload(ubits, {n}), dev().upload(lbits.data(), DType::i64, {n}), o32, of32, o64,
               of64, n},
              {{"BLOCK", int64_t(128)}});
  auto g32 = o32.download<uint32_t>();
  auto gf32 = of32.download<uint32_t>();
  auto g64 = o64.download<uint64_t>();
  auto gf64 = of64.download<uint64_t>();
  auto slice32 = [&](const std::vector<uint32_t>& v, int k) {
    return std::vector<uint32_t>(v.begin() + k * n, v.begin() + (k + 1) * n);
  };
  auto slice64 = [&](const std::vector<uint64_t>& v, int k) {
    return std::vector<uint64_t>(v.begin() + k * n, v.begin() + (k + 1) * n);
  };
  std::vector<uint32_t> hi(n), lo(n), ib(ibits.begin(), ibits.end());
  std::vector<uint64_t> hilo(n);
  for (int64_t i = 0; i < n; ++i) {
    hi[i] = uint32_t(dAll[i] >> 32), lo[i] = uint32_t(dAll[i]);
    hilo[i] = (uint64_t(uint32_t(ibits[i])) << 32) | ubits[i];
  }
  expectEqual(slice32(g32, 0), fbits, "float_as_int");
  expectEqual(slice32(g32, 1), fbits, "float_as_uint");
  expectEqual(slice32(g32, 2), hi, "double2hiint");
  expectEqual(slice32(g32, 3), lo, "double2loint");
  expectEqual(slice32(gf32, 0), ib, "int_as_float");
  expectEqual(slice32(gf32, 1), ubits, "uint_as_float");
  expectEqual(g64, dAll, "double_as_longlong");
  expectEqual(slice64(gf64, 0), lbits, "longlong_as_double");
  expectEqual(slice64(gf64, 1), hilo, "hiloint2double");
  // rcp64h: the reciprocal of the upper word, to the precision of the upper word.
  auto rcp = slice64(gf64, 2);
  for (int64_t i = n / 2; i < n; ++i) {
    double g;
    std::memcpy(&g, &rcp[i], 8);
    EXPECT_NEAR(g * d[i], 1.0, 4e-6) << "rcp64h(" << d[i] << ")";
    EXPECT_EQ(rcp[i] & 0xffffffffu, 0u) << "rcp64h(" << d[i] << ") has nonzero low bits";
  }
}

template <class T> void multiArg() {
  E2E_RNG(rng);
  int64_t n = 200;
  std::vector<T> x(n), y(n), p(n);
  std::vector<int32_t> k(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<T>(rng.uniform(-4, 4));
    y[i] = static_cast<T>(rng.uniform(0.25f, 4)) * (rng.integer(0, 1) ? -1 : 1);
    p[i] = static_cast<T>(rng.uniform(0.1f, 6));
    k[i] = static_cast<int32_t>(rng.integer(-5, 5));
  }
  auto out = dev().zeros(dtypeOf<T>(), {19 * n});
  kernel(kMath, "multi_arg")
      .launch(dev(), {1}, {dev().upload(x, {n}), dev().upload(y, {n}), dev().upload(p, {n}), dev().upload(k, {n}), out, n},
              {{"BLOCK", int64_t(256)}});
  auto got = out.template download<T>();
  double eps = std::numeric_limits<T>::epsilon();
  constexpr bool f32 = sizeof(T) == 4;
  /// An element's bound from its order m, the Bessel argument c and want.
  using Bound2 = std::function<double(LD c, int m, double want)>;
  auto cu = [eps](double single, double dbl) -> Bound2 {
    double ulps = f32 ? single : dbl;
    return [=](LD, int, double w) { return ulps * eps * std::fabs(w); };
  };
  // jn: "for n = 128, the maximum absolute error is 2.2e-6 (single) / 5e-12
  // (double)" (the orders here are at most 5).
  Bound2 jnBound = [](LD, int, double) { return f32 ? 2.2e-6 : 5e-12; };
  // ynf: ceil(2 + 2.5 n) ulp for |x| < n, otherwise 2.2e-6 absolute; yn:
  // 5e-12 absolute for |x| > 1.5 n (none documented below: the interpreter's
  // tolerance, which CUDA meets).
  Bound2 ynBound = [eps](LD c, int m, double w) {
    if (f32) return fabsl(c) < m ? std::ceil(2 + 2.5 * m) * eps * std::fabs(w) : 2.2e-6;
    return fabsl(c) > 1.5L * m ? 5e-12 : 0.0;
  };
  struct R {
    const char* name;
    std::function<LD(LD, LD, LD, int)> ref;
    double ulps, atol;
    Bound2 cuda = nullptr;
  };
  // jn/yn of a negative order are NaN in CUDA (CUDA Math API: "jnf(n, x)
  // returns NaN for n < 0", likewise jn, ynf, yn), not glibc's (-1)^n J_|n|.
  std::vector<R> rows = {
      {"atan2", [](LD a, LD b, LD, int) { return atan2l(a, b); }, 2, 0, cu(3, 2)},
      {"hypot", [](LD a, LD b, LD, int) { return hypotl(a, b); }, 2, 0, cu(3, 2)},
      {"rhypot", [](LD a, LD b, LD, int) { return 1 / hypotl(a, b); }, 2, 0, cu(2, 1)},
      {"fmod", [](LD a, LD b, LD, int) { return fmodl(a, b); }, 0, 0},
      {"remainder", [](LD a, LD b, LD, int) { return remainderl(a, b); }, 0, 0},
      {"fdim", [](LD a, LD b, LD, int) { return a > b ? a - b : 0; }, 1, 0},
      {"copysign", [](LD a, LD b, LD, int) { return copysignl(a, b); }, 0, 0},
      {"nextafter", [](LD a, LD b, LD, int) { return static_cast<LD>(std::nextafter(T(a), T(b))); }, 0, 0},
      {"pow", [](LD a, LD, LD c, int) { return powl(c, a); }, 2, 0, cu(8, 2)},
      {"pow(int)", [](LD a, LD, LD, int m) { return powl(a, m); }, 2, 0},
      {"ldexp", [](LD a, LD, LD, int m) { return ldexpl(a, m); }, 0, 0},
      {"scalbn", [](LD a, LD, LD, int m) { return ldexpl(a, m); }, 0, 0},
      {"jn", [](LD, LD, LD c, int m) { return m < 0 ? NAN : jnl(m, c); }, 8, 1e-15, jnBound},
      {"yn", [](LD, LD, LD c, int m) { return m < 0 ? NAN : ynl(m, c); }, 8, 1e-15, ynBound},
      {"fma", [](LD a, LD b, LD c, int) { return static_cast<LD>(std::fma(T(a), T(b), T(c))); }, 0, 0},
      {"norm3d", [](LD a, LD b, LD c, int) { return sqrtl(a * a + b * b + c * c); }, 2, 0, cu(3, 2)},
      {"rnorm3d", [](LD a, LD b, LD c, int) { return 1 / sqrtl(a * a + b * b + c * c); }, 2, 0, cu(2, 1)},
      {"norm4d", [](LD a, LD b, LD c, int) { return sqrtl(a * a + b * b + c * c + a * a / 4); }, 2, 0, cu(3, 2)},
      {"rnorm4d", [](LD a, LD b, LD c, int) { return 1 / sqrtl(a * a + b * b + c * c + a * a / 4); }, 2, 0, cu(2, 1)},
  };
  // Negative orders must occur (k is uniform in [-5, 5]).
  EXPECT_TRUE(std::any_of(k.begin(), k.end(), [](int32_t m) { return m < 0; }));
  for (size_t j = 0; j < rows.size(); ++j) {
    size_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      double g = got[j * n + i], w = static_cast<T>(rows[j].ref(x[i], y[i], p[i], k[i]));
      double tol = rows[j].ulps * eps * std::fabs(w) + rows[j].atol;
      if (onGpu() && rows[j].cuda) tol = std::max(tol, rows[j].cuda(p[i], k[i], w));
      bool ok = (std::isnan(g) && std::isnan(w)) || g == w || std::fabs(g - w) <= tol;
      if (!ok && bad++ < 4)
        ADD_FAILURE() << rows[j].name << " " << typeName<T>() << " (" << std::setprecision(17) << x[i] << ", " << y[i]
                      << ", " << p[i] << ", " << k[i] << "): got " << g << ", want " << w << " (tolerance "
                      << std::setprecision(3) << tol << ")";
    }
    EXPECT_EQ(bad, 0u) << rows[j].name << " " << typeName<T>();
  }
}

TEST(Libdevice, MultiArgumentFp32) { multiArg<float>(); }
TEST(Libdevice, MultiArgumentFp64) { multiArg<double>(); }

TEST(Libdevice, Fp32OnlyFunctions) {
  E2E_RNG(rng);
  int64_t n = 200;
  std::vector<float> x = rng.floats(n, -3, 3), y(n), p = rng.floats(n, 0.05f, 8);
  for (auto& v : y) v = rng.uniform(0.25f, 4) * (rng.integer(0, 1) ? -1 : 1);
  y[0] = 0x1.8p126f, x[0] = 5;  // __fdividef returns 0 for 2^126 < |y| < 2^128
  x[1] = 1.5f, x[2] = -0.5f, x[3] = NAN;
  p[0] = 0x1p-140f;  // subnormal rsqrt_rn input
  auto out = dev().zeros(DType::fp32, {13 * n});
  kernel(kMath, "fp32_only")
      .launch(dev(), {1}, {dev().upload(x, {n}), dev().upload(y, {n}), dev().upload(p, {n}), out, n},
              {{"BLOCK", int64_t(256)}});
  auto got = out.download<float>();
  auto row = [&](int j) { return std::vector<float>(got.begin() + j * n, got.begin() + (j + 1) * n); };
  std::vector<std::vector<float>> w(13, std::vector<float>(n));
  for (int64_t i = 0; i < n; ++i) {
    // Flush-to-zero: the subnormal p[0] reads as +0 (rsqrt_rn -> inf, logs -> -inf).
    float pc = std::fpclassify(p[i]) == FP_SUBNORMAL ? std::copysign(0.0f, p[i]) : p[i];
    LD a = x[i], b = y[i], c = pc;
    LD vals[13] = {sinl(a), cosl(a), tanl(a), expl(a), powl(10, a), logl(c), log2l(c), log10l(c), tanhl(a),
                   powl(c, a), a / b, std::isnan(x[i]) ? 0 : a < 0 ? 0 : a > 1 ? 1 : a, 1 / sqrtl(c)};
    for (int j = 0; j < 13; ++j) w[j][i] = static_cast<float>(vals[j]);
  }
  w[10][0] = 0;  // the documented __fdividef quirk
  const char* names[] = {"fast_sinf", "fast_cosf", "fast_tanf", "fast_expf", "fast_exp10f", "fast_logf",
                         "fast_log2f", "fast_log10f", "tanh", "fast_powf", "fast_dividef"};
  // The interpreter computes the fast_* functions accurately. On the GPU they
  // are CUDA's intrinsics (__sinf, __expf, ...), allowed the errors the CUDA
  // C++ Programming Guide states for them ("Single-Precision Floating-Point
  // Intrinsic Functions"); outside [-pi, pi], where it says only "larger",
  // sin/cos get the PTX ISA's bound of sin.approx/cos.approx over [-2pi, 2pi]
  // (2^-20.5). __tanf and __powf are documented through their definitions,
  // __sinf(x) * (1 / __cosf(x)) and exp2f(y * __log2f(x)): their bounds are
  // those of the parts, propagated.
  const double e = FLT_EPSILON;
  auto sinBound = [](double a, double inPi) {
    return std::fabs(a) <= M_PI ? std::exp2(inPi) : std::fabs(a) <= 2 * M_PI ? std::exp2(-20.5) : INFINITY;
  };
  for (int j = 0; j < 11; ++j) {
    std::vector<double> tol(n);
    for (int64_t i = 0; i < n; ++i) {
      double a = x[i], c = std::fpclassify(p[i]) == FP_SUBNORMAL ? 0.0 : p[i], want = std::fabs(w[j][i]);
      double t = 1e-30 + 2.5e-7 * want;  // the interpreter's tolerance
      if (onGpu()) {
        bool nearOne = c >= 0.5 && c <= 2;  // the log intrinsics' absolute-error range
        switch (j) {
          case 0: t = sinBound(a, -21.41); break;
          case 1: t = sinBound(a, -21.19); break;
          case 2: {
            double es = sinBound(a, -21.41), ec = sinBound(a, -21.19), cs = std::fabs(std::cos(a));
            t = cs > ec ? (es + want * ec) / (cs - ec) + 2 * e * want : INFINITY;
            break;
          }
          case 3: t = (2 + std::floor(std::fabs(1.173 * a))) * e * want; break;
          case 4: t = (2 + std::floor(std::fabs(2.97 * a))) * e * want; break;
          case 5: t = nearOne ? std::exp2(-21.41) : 3 * e * want; break;
          case 6: t = nearOne ? std::exp2(-22) : 2 * e * want; break;
          case 7: t = nearOne ? std::exp2(-24) : 3 * e * want; break;
          case 8: t = 2 * e * want; break;  // tanhf: 2 ulp
          case 9: {
            // __powf(+0, a) is exact: __log2f(+0) = -inf (lg2.approx of +0,
            // PTX ISA), a * -inf = -inf or +inf, and exp2f of those is 0 or
            // inf, so the 0 (a > 0) or inf (a < 0) reference must be met
            // exactly. (The propagation below would be 0 * inf = NaN there;
            // a = 0 with c = 0, CUDA's NaN against pow's 1, is not an input.)
            if (c == 0) {
              t = 0;
              break;
            }
            // 2^(a * L'): L' = __log2f(c), the product rounded (2^-24), exp2f 2 ulp.
            double l = std::log2(c), el = nearOne ? std::exp2(-22) : 2 * e * std::fabs(l);
            double d = std::fabs(a) * el + std::fabs(a * l) * std::exp2(-24);
            t = want * (std::expm1(M_LN2 * d) + 2 * e);
            break;
          }
          case 10: t = 2 * e * want; break;  // __fdividef: 2 ulp for |y| in [2^-126, 2^126]
        }
        t = std::max(t, 1e-30 + 2.5e-7 * want);
      }
      tol[i] = t;
    }
    expectWithin(row(j), w[j], tol, names[j]);
  }
  expectSameBits(row(11), w[11], "saturatef");
  expectSameBits(row(12), w[12], "rsqrt_rn");
}

template <class T> void classify(const char* kname) {
  std::vector<T> x = {0.0, -0.0, 1.5, -2.5, 2.5, 3.5, -3.5, 0.49999997, 7, -1e-3, 1e30, -1e30, 1e18, 9.3e18, -9.3e18,
                      std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                      std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::denorm_min(),
                      -std::numeric_limits<T>::denorm_min() * 3, std::numeric_limits<T>::max()};
  int64_t n = x.size();
  auto o32 = dev().zeros(DType::i32, {5 * n}), o64 = dev().zeros(DType::i64, {2 * n});
  kernel(kMath, kname).launch(dev(), {1}, {dev().upload(x, {n}), o32, o64, n}, {{"BLOCK", int64_t(32)}});
  auto g32 = o32.download<int32_t>();
  auto g64 = o64.download<int64_t>();
  std::vector<std::vector<int32_t>> w(5);
  std::vector<std::vector<int64_t>> wl(2);
  for (T v : x) {
    w[0].push_back(v != v);
    w[1].push_back(v == std::numeric_limits<T>::infinity() || v == -std::numeric_limits<T>::infinity());
    w[2].push_back(v == v && v - v == 0);
    w[3].push_back(std::signbit(v) ? 1 : 0);
    int e = INT32_MIN;
    bool flushed = std::is_same_v<T, float> && std::fpclassify(v) == FP_SUBNORMAL;  // fp32 FTZ, as on the GPU
    if (v != v || v == 0 || flushed) e = INT32_MIN;
    else if (v - v != 0) e = INT32_MAX;
    else for (e = 0; std::ldexp(std::fabs(static_cast<double>(v)), -e) >= 2; ++e) {}
    if (v == v && v != 0 && v - v == 0 && !flushed)
      while (std::ldexp(std::fabs(static_cast<double>(v)), -e) < 1) --e;
    w[4].push_back(e);
    LD r = v != v ? 0 : (v - floorl(v) == 0.5L ? 2 * floorl(v / 2 + 0.5L) : roundl(v));
    LD h = v != v ? 0 : (v < 0 ? -floorl(-v + 0.5L) : floorl(v + 0.5L));
    auto sat = [&](LD q) { return v != v ? INT64_MIN : q >= 9223372036854775807.0L ? INT64_MAX : q <= -9223372036854775808.0L ? INT64_MIN : int64_t(q); };
    wl[0].push_back(sat(r));
    wl[1].push_back(sat(h));
  }
  const char* names[] = {"isnan", "isinf", "finite", "signbit", "ilogb"};
  for (int j = 0; j < 5; ++j)
    expectEqual(std::vector<int32_t>(g32.begin() + j * n, g32.begin() + (j + 1) * n), w[j], std::string(names[j]) + " " + typeName<T>());
  expectEqual(std::vector<int64_t>(g64.begin(), g64.begin() + n), wl[0], std::string("llrint ") + typeName<T>());
  expectEqual(std::vector<int64_t>(g64.begin() + n, g64.end()), wl[1], std::string("llround ") + typeName<T>());
}

TEST(Libdevice, PredicatesAndIntegerRoundingFp32) { classify<float>("classify32"); }
TEST(Libdevice, PredicatesAndIntegerRoundingFp64) { classify<double>("classify64"); }

//===----------------------------------------------------------------------===//
// The frontend's table against the interpreter
//===----------------------------------------------------------------------===//

DType dtypeNamed(const std::string& name) {
  static const std::map<std::string, DType> m = {{"int1", DType::i1},   {"int32", DType::i32}, {"int64", DType::i64},
                                                 {"uint32", DType::u32}, {"uint64", DType::u64}, {"fp32", DType::fp32},
                                                 {"fp64", DType::fp64}};
  auto it = m.find(name);
  if (it == m.end()) ADD_FAILURE() << "unexpected dtype " << name;
  return it == m.end() ? DType::i32 : it->second;
}

/// Every overload of the frontend's table: its symbol is implemented with
/// its arity, and a kernel calling it with exactly those dtypes compiles
/// and runs, producing the table's result dtype.
TEST(Libdevice, EveryOverloadOfTheFrontendTableRuns) {
  auto overloads = tessera::frontend::libdeviceOverloads();
  std::set<std::string> names;
  for (const auto& ov : overloads) names.insert(ov.name);
  // Triton 3.6's libdevice.py, read on the GPU machine (2026-11-22): 197 names,
  // 313 overloads; the table matched it row for row (name, dtypes, symbol, result).
  EXPECT_EQ(names.size(), 197u);
  EXPECT_EQ(overloads.size(), 313u);
  std::ostringstream src;
  src << "import triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n";
  for (const auto& name : names) {
    size_t arity = 0;
    for (const auto& ov : overloads)
      if (ov.name == name) arity = ov.args.size();
    src << "\n@triton.jit\ndef k_" << name << "(out";
    for (size_t k = 0; k < arity; ++k) src << ", a" << k;
    src << "):\n    offs = tl.arange(0, 4)\n    r = libdevice." << name << "(";
    for (size_t k = 0; k < arity; ++k) src << (k ? ", " : "") << "tl.load(a" << k << " + offs)";
    src << ")\n    tl.store(out + offs, r)\n";
  }
  auto program = tessera::Program::from_source(src.str(), "libdevice_all.py");
  for (const auto& ov : overloads) {
    SCOPED_TRACE(ov.symbol);
    EXPECT_TRUE(tessera::interp::externSymbolAvailable(ov.symbol, ov.args.size()));
    std::vector<tessera::Arg> args;
    DType resultType = ov.resultToBool ? DType::i1 : dtypeNamed(ov.result);
    auto out = dev().zeros(resultType, {4});
    args.push_back(out);
    for (const auto& a : ov.args) {
      // Values in every function's domain: 0.5 for floats, 1 for integers.
      DType t = dtypeNamed(a);
      std::vector<std::byte> bytes(4 * tessera::dtype_size(t));
      for (int i = 0; i < 4; ++i) {
        std::byte* p = bytes.data() + i * tessera::dtype_size(t);
        if (t == DType::fp32) { float v = 0.5f; std::memcpy(p, &v, 4); }
        else if (t == DType::fp64) { double v = 0.5; std::memcpy(p, &v, 8); }
        else p[0] = std::byte{1};
      }
      args.push_back(dev().upload(bytes.data(), t, {4}));
    }
    try {
      program.kernel("k_" + ov.name).launch(dev(), {1}, args);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "libdevice." << ov.name << "(" << ov.args.size() << " args) -> " << ov.symbol << ": " << e.what();
    }
  }
}

}  // namespace
