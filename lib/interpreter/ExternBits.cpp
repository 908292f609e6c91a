//===- interpreter/ExternBits.cpp - libdevice integer and bit functions ---===//
//
// Integer functions of libdevice (clz, popc, ffs, brev, mulhi, mul24, hadd,
// rhadd, sad, abs, byte_perm) and the bit reinterpretations between floats
// and integers. Integer operands arrive sign-extended to int64; the unsigned
// variants work on the low 32 (or 64) bits. Results follow the CUDA math API
// definitions bit for bit; rcp64h follows PTX rcp.approx.ftz.f64 (the
// reciprocal of the operand's upper 32 bits, with the result's lower 32 bits
// cleared), which the GPU computes only approximately.
//
//===----------------------------------------------------------------------===//

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "interpreter/Extern.h"

namespace tessera::interp {
namespace {

using u32 = uint32_t;
using u64 = uint64_t;
using i32 = int32_t;

#define I1(expr) [](const Cell* a) -> Cell { int64_t x = a[0].i; (void)x; return icell(expr); }
#define I2(expr) [](const Cell* a) -> Cell { int64_t x = a[0].i, y = a[1].i; return icell(expr); }
#define I3(expr) [](const Cell* a) -> Cell { int64_t x = a[0].i, y = a[1].i, z = a[2].i; return icell(expr); }

u32 reverse32(u32 v) {
  u32 r = 0;
  for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
  return r;
}

u64 reverse64(u64 v) { return (u64(reverse32(u32(v))) << 32) | reverse32(u32(v >> 32)); }

/// __byte_perm: byte n of the result is byte (s >> 4n) & 7 of the 8-byte
/// value {y:x} (x supplies bytes 0-3).
int64_t bytePerm(u32 x, u32 y, u32 s) {
  u64 src = (u64(y) << 32) | x;
  u32 r = 0;
  for (int n = 0; n < 4; ++n) r |= u32((src >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
  return i32(r);
}

/// The low 24 bits as a signed value.
int64_t low24Signed(int64_t x) { return (int64_t(u64(x) << 40)) >> 40; }

double rcp64h(double x) {
  u64 bits;
  std::memcpy(&bits, &x, 8);
  bits &= 0xffffffff00000000ull;
  double hi;
  std::memcpy(&hi, &bits, 8);
  if (std::fabs(hi) < DBL_MIN) return std::copysign(INFINITY, x);  // ftz
  double r = 1.0 / hi;
  if (std::isnan(r) || std::isinf(r) || r == 0) return r;
  std::memcpy(&bits, &r, 8);
  bits &= 0xffffffff00000000ull;
  std::memcpy(&r, &bits, 8);
  return std::fabs(r) < DBL_MIN ? std::copysign(0.0, r) : r;
}

}  // namespace

void addExternBits(ExternTable& t) {
  auto add = [&](const char* sym, int arity, Cell (*fn)(const Cell*), bool raw = false) {
    t[sym] = ExternImpl{arity, fn, -1, raw};
  };
  add("__nv_clz", 1, I1(std::countl_zero(u32(x))));
  add("__nv_clzll", 1, I1(std::countl_zero(u64(x))));
  add("__nv_popc", 1, I1(std::popcount(u32(x))));
  add("__nv_popcll", 1, I1(std::popcount(u64(x))));
  add("__nv_ffs", 1, I1(u32(x) == 0 ? 0 : std::countr_zero(u32(x)) + 1));
  add("__nv_ffsll", 1, I1(u64(x) == 0 ? 0 : std::countr_zero(u64(x)) + 1));
  add("__nv_brev", 1, I1(i32(reverse32(u32(x)))));
  add("__nv_brevll", 1, I1(int64_t(reverse64(u64(x)))));
  add("__nv_abs", 1, I1(i32(x) < 0 ? int64_t(i32(0u - u32(x))) : int64_t(i32(x))));
  add("__nv_llabs", 1, I1(x < 0 ? int64_t(0ull - u64(x)) : x));
  add("__nv_mulhi", 2, I2((int64_t(i32(x)) * int64_t(i32(y))) >> 32));
  add("__nv_umulhi", 2, I2(int64_t((u64(u32(x)) * u64(u32(y))) >> 32)));
  add("__nv_mul64hi", 2, I2(int64_t((__int128(x) * __int128(y)) >> 64)));
  add("__nv_umul64hi", 2, I2(int64_t((static_cast<unsigned __int128>(u64(x)) * u64(y)) >> 64)));
  add("__nv_mul24", 2, I2(i32(u32(low24Signed(x) * low24Signed(y)))));
  add("__nv_umul24", 2, I2(int64_t(u32((u64(x) & 0xffffff) * (u64(y) & 0xffffff)))));
  add("__nv_hadd", 2, I2((int64_t(i32(x)) + int64_t(i32(y))) >> 1));
  add("__nv_rhadd", 2, I2((int64_t(i32(x)) + int64_t(i32(y)) + 1) >> 1));
  add("__nv_uhadd", 2, I2(int64_t((u64(u32(x)) + u64(u32(y))) >> 1)));
  add("__nv_urhadd", 2, I2(int64_t((u64(u32(x)) + u64(u32(y)) + 1) >> 1)));
  add("__nv_sad", 3, I3(int64_t(u32(u32(std::llabs(int64_t(i32(x)) - int64_t(i32(y)))) + u32(z)))));
  add("__nv_usad", 3, I3(int64_t(u32((u32(x) > u32(y) ? u32(x) - u32(y) : u32(y) - u32(x)) + u32(z)))));
  add("__nv_byte_perm", 3, I3(bytePerm(u32(x), u32(y), u32(z))));

  // Reinterpretation: float operands/results are bit patterns.
  add("__nv_float_as_int", 1, [](const Cell* a) { return icell(i32(u32(a[0].bits))); }, true);
  add("__nv_float_as_uint", 1, [](const Cell* a) { return icell(i32(u32(a[0].bits))); }, true);
  add("__nv_int_as_float", 1, [](const Cell* a) { Cell c; c.bits = u32(a[0].i); return c; }, true);
  add("__nv_uint_as_float", 1, [](const Cell* a) { Cell c; c.bits = u32(a[0].i); return c; }, true);
  add("__nv_double_as_longlong", 1, [](const Cell* a) { return icell(int64_t(a[0].bits)); }, true);
  add("__nv_longlong_as_double", 1, [](const Cell* a) { Cell c; c.bits = u64(a[0].i); return c; }, true);
  add("__nv_double2hiint", 1, [](const Cell* a) { return icell(i32(u32(a[0].bits >> 32))); }, true);
  add("__nv_double2loint", 1, [](const Cell* a) { return icell(i32(u32(a[0].bits))); }, true);
  add("__nv_hiloint2double", 2, [](const Cell* a) { Cell c; c.bits = (u64(u32(a[0].i)) << 32) | u32(a[1].i); return c; },
      true);
  add("__nv_rcp64h", 1, [](const Cell* a) { return fcell(rcp64h(a[0].f)); });
}

#undef I1
#undef I2
#undef I3

}  // namespace tessera::interp
