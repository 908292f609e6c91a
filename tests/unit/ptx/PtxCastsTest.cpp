//===- PtxCastsTest.cpp - Emitted conversions agree with the interpreter --===//
//
// The interpreter is the executable specification; the GPU must produce its
// bits. Without a GPU, these tests run the PTX the emitter writes for one
// element (BLOCK=1: straight-line code) in PtxEval, a CPU model of the
// instructions, and compare every result with the interpreter running the
// same kernel on the same inputs. Covered: every fp8 kind in both
// directions (exhaustively from f16, bf16 and the 256 codes; specials,
// ties, overflow and random bit patterns from f32 and f64; rtne and rtz),
// and the narrowings that must round once: f64 -> bf16 and 32/64-bit
// integers -> bf16/f16. The same PTX is also assembled for sm_80 and sm_90a.
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <cstring>
#include <random>

#include "PtxEval.h"
#include "PtxTestUtil.h"
#include "ir/FloatFormats.h"
#include "tessera/tessera.h"

namespace tessera {
namespace {

using ptxeval::PtxEval;

const char* kCasts = R"(
import triton
import triton.language as tl

@triton.jit
def plain(x_ptr, out_ptr, n, DT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x.to(DT), mask=m)

@triton.jit
def narrow_block(x_ptr, out_ptr, n, DT: tl.constexpr, WIDEN_AGAIN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    y = tl.load(x_ptr + offs, mask=m).to(DT)
    if WIDEN_AGAIN:  # the narrowed value is read in the same elementwise run
        y = (y.to(tl.float32) * 2.0).to(DT)
    tl.store(out_ptr + offs, y, mask=m)

@triton.jit
def rounded(x_ptr, out_ptr, n, DT: tl.constexpr, RND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x.to(DT, fp_downcast_rounding=RND), mask=m)

@triton.jit
def to_fp8(x_ptr, out_ptr, n, DT: tl.constexpr, RND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x.to(DT, fp_downcast_rounding=RND).to(tl.uint8, bitcast=True), mask=m)

@triton.jit
def from_fp8(b_ptr, out_ptr, n, SRC: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    b = tl.load(b_ptr + offs, mask=m)
    tl.store(out_ptr + offs, b.to(SRC, bitcast=True).to(out_ptr.dtype.element_ty), mask=m)
)";

const char* kFp8Kinds[] = {"fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16", "fp8e4b15"};

struct DT {
  const char* sig;  ///< signature spelling ("fp32")
  DType dtype;      ///< upload/download dtype
  int bytes;
  bool isFloat;
};
const DT kF32{"fp32", DType::fp32, 4, true}, kF64{"fp64", DType::fp64, 8, true}, kF16{"fp16", DType::fp16, 2, true},
    kBF16{"bf16", DType::bf16, 2, true}, kI32{"i32", DType::i32, 4, false}, kU32{"u32", DType::u32, 4, false},
    kI64{"i64", DType::i64, 8, false}, kU64{"u64", DType::u64, 8, false}, kU8{"u8", DType::u8, 1, false};

/// Whether `bits` (of `bytes` bytes) is a NaN of the float format stored there.
bool isNanBits(uint64_t bits, int bytes, bool bf16) {
  if (bytes == 8) return (bits & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
  if (bytes == 4) return (bits & 0x7FFFFFFFu) > 0x7F800000u;
  if (bytes == 2) return bf16 ? (bits & 0x7FFF) > 0x7F80 : (bits & 0x7FFF) > 0x7C00;
  return false;
}

struct Case {
  std::string kernel;
  DT src, dst;
  Meta meta;                 ///< DT / SRC / RND
  bool exactNaNs = true;     ///< NaN results must have the interpreter's bits
};

std::string signature(const Case& c) {
  std::string sig = "*" + std::string(c.src.sig) + ", *" + c.dst.sig + ", i32";
  for (const char* name : {"SRC", "DT", "RND"}) {
    auto it = c.meta.find(name);
    if (it != c.meta.end()) sig += std::string(", ") + name + "=" + std::get<std::string>(it->second);
  }
  return sig + ", BLOCK=1";
}

/// Runs the interpreter on `inputs` (raw bits of src) and the emitted PTX of
/// one element per input; expects identical bits.
void expectSameAsInterpreter(const Case& c, const std::vector<uint64_t>& inputs) {
  SCOPED_TRACE(c.kernel + " " + signature(c));
  int64_t n = static_cast<int64_t>(inputs.size());
  std::vector<uint8_t> raw(inputs.size() * c.src.bytes);
  for (size_t i = 0; i < inputs.size(); ++i) std::memcpy(raw.data() + i * c.src.bytes, &inputs[i], c.src.bytes);
  static Program program = Program::from_source(kCasts, "casts.py");
  Device dev = Device::interpreter();
  Tensor x = dev.upload(raw.data(), c.src.dtype, {n});
  Tensor out = dev.zeros(c.dst.dtype, {n});
  Meta meta = c.meta;
  meta["BLOCK"] = int64_t(1024);
  program.kernel(c.kernel).launch(dev, {(n + 1023) / 1024}, {x, out, n}, meta);
  std::vector<std::byte> want = out.download_bytes();

  for (const char* arch : {"sm_80", "sm_90a"}) {
    gpu::PtxKernel k = ptxtest::compile(kCasts, c.kernel, signature(c), 4, arch);
    if (!ptxtest::ptxasPath().empty()) {
      EXPECT_EQ(ptxtest::assemble(k, arch), "");
    }
    PtxEval eval(k.ptx);
    int bad = 0;
    for (size_t i = 0; i < inputs.size() && bad < 8; ++i) {
      std::vector<PtxEval::Store> stores = eval.run(inputs[i]);
      ASSERT_EQ(stores.size(), 1u) << k.ptx;
      ASSERT_EQ(stores[0].bytes, c.dst.bytes);
      uint64_t w = 0;
      std::memcpy(&w, want.data() + i * c.dst.bytes, c.dst.bytes);
      uint64_t got = stores[0].bits;
      bool bf16 = c.dst.dtype == DType::bf16;
      if (!c.exactNaNs && isNanBits(w, c.dst.bytes, bf16) && isNanBits(got, c.dst.bytes, bf16)) {
        continue;
      }
      if (got != w) {
        ++bad;
        ADD_FAILURE() << arch << ": input 0x" << std::hex << inputs[i] << " -> 0x" << got << ", interpreter 0x" << w;
      }
    }
    if (bad) {
      ADD_FAILURE() << k.ptx;
      return;
    }
  }
}

uint64_t f32Bits(float f) { return ir::floats::floatToBits(f); }
uint64_t f64Bits(double d) { return ir::floats::doubleToBits(d); }

/// f32 inputs for fp8: specials, every fp8 value of every kind with its
/// neighbours and the midpoints (ties) between codes and one f32 ulp around
/// them, the edges of the f32 range, random bit patterns.
std::vector<uint64_t> f32Inputs(std::mt19937_64& rng) {
  std::vector<float> xs = {0.0f, -0.0f, INFINITY, -INFINITY, 3.4028235e38f, -3.4028235e38f, 1e-45f, -1e-45f,
                           1.17549435e-38f, 1e30f, -1e-30f};
  for (ir::TypeKind k : {ir::TypeKind::F8E4M3FN, ir::TypeKind::F8E5M2, ir::TypeKind::F8E4M3FNUZ,
                         ir::TypeKind::F8E5M2FNUZ, ir::TypeKind::F8E4M3B11FNUZ}) {
    const float* t = ir::floats::fp8Table(k);
    for (int c = 0; c < 128; ++c) {
      double v = t[c], next = c + 1 < 128 ? t[c + 1] : 2.0 * t[c];
      if (std::isnan(v) || std::isinf(v)) continue;
      if (std::isnan(next) || std::isinf(next)) next = 2.0 * v;
      for (double x : {v, (v + next) / 2, next * 1.5}) {
        float f = static_cast<float>(x);
        for (float y : {f, std::nextafter(f, 0.0f), std::nextafter(f, INFINITY)})
          for (float s : {1.0f, -1.0f}) xs.push_back(s * y);
      }
    }
  }
  std::vector<uint64_t> out;
  for (float f : xs) out.push_back(f32Bits(f));
  for (uint32_t nan : {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu, 0x7FBFFFFFu}) out.push_back(nan);
  for (int i = 0; i < 20000; ++i) out.push_back(static_cast<uint32_t>(rng()));
  return out;
}

std::vector<uint64_t> all16() {
  std::vector<uint64_t> v(65536);
  for (int i = 0; i < 65536; ++i) v[i] = static_cast<uint64_t>(i);
  return v;
}

std::vector<uint64_t> all8() {
  std::vector<uint64_t> v(256);
  for (int i = 0; i < 256; ++i) v[i] = static_cast<uint64_t>(i);
  return v;
}

/// f64 inputs where rounding through f32 would differ from one rounding:
/// f32 inputs widened and nudged by much less than an f32 ulp, plus values
/// beyond the f32 range, random bit patterns and random bf16/f16 midpoints.
std::vector<uint64_t> f64Inputs(std::mt19937_64& rng) {
  std::vector<uint64_t> out;
  for (uint64_t b : f32Inputs(rng)) {
    double d = ir::floats::bitsToFloat(static_cast<uint32_t>(b));
    out.push_back(f64Bits(d));
    if (std::isfinite(d) && d != 0) {
      out.push_back(f64Bits(d * (1 + std::ldexp(1.0, -40))));
      out.push_back(f64Bits(d * (1 - std::ldexp(1.0, -40))));
    }
  }
  for (double d : {1e39, -1e39, 1e300, -1e300, 1e-300, -1e-300, 3.3961775292304e38, 4.9e-324})
    out.push_back(f64Bits(d));
  out.push_back(0x7FF8000000000000ull);
  out.push_back(0xFFF0000000000001ull);
  for (int i = 0; i < 20000; ++i) out.push_back(rng());
  for (int i = 0; i < 20000; ++i) {
    // The midpoint between two neighbouring bf16 (or f16) values, nudged.
    uint32_t lo = static_cast<uint32_t>(rng() % 0x7F7F) << 16;
    double a = ir::floats::bitsToFloat(lo), b = ir::floats::bitsToFloat(lo + 0x10000);
    double mid = (a + b) / 2, nudge = mid * std::ldexp(1.0, -35) * ((rng() & 1) ? 1 : -1);
    out.push_back(f64Bits(((rng() & 1) ? 1 : -1) * (mid + nudge)));
  }
  return out;
}

/// Integers around powers of two, with ties and near-ties of bf16/f16/fp8
/// rounding at every magnitude, plus random ones.
std::vector<uint64_t> intInputs(std::mt19937_64& rng, int bits) {
  std::vector<uint64_t> out = {0, 1, ~0ull, 1ull << (bits - 1), (1ull << (bits - 1)) - 1};
  for (int s = 4; s < bits; ++s)
    for (uint64_t k : {1ull, 3ull, 0x81ull, 0x181ull, 0xFFFull, 0x801ull})
      for (int64_t d : {-1, 0, 1}) {
        uint64_t v = (k << s) + (1ull << (s - 1)) * (k & 1) + static_cast<uint64_t>(d);
        out.push_back(v);
        out.push_back(0 - v);
      }
  for (int i = 0; i < 20000; ++i) out.push_back(rng() >> (rng() % bits));
  for (int i = 0; i < 20000; ++i) out.push_back(rng());
  if (bits == 32)
    for (auto& v : out) v &= 0xFFFFFFFFull;
  return out;
}

TEST(PtxCasts, F32ToEveryFp8KindRoundsLikeTheInterpreter) {
  std::mt19937_64 rng(1);
  auto xs = f32Inputs(rng);
  for (const char* kind : kFp8Kinds)
    for (const char* rnd : {"rtne", "rtz"})
      expectSameAsInterpreter({"to_fp8", kF32, kU8, {{"DT", std::string(kind)}, {"RND", std::string(rnd)}}}, xs);
}

TEST(PtxCasts, F16AndBf16ToEveryFp8KindExhaustively) {
  for (const char* kind : kFp8Kinds)
    for (const DT& src : {kF16, kBF16})
      expectSameAsInterpreter({"to_fp8", src, kU8, {{"DT", std::string(kind)}, {"RND", std::string("rtne")}}},
                              all16());
}

TEST(PtxCasts, F64ToEveryFp8KindRoundsOnce) {
  std::mt19937_64 rng(2);
  auto xs = f64Inputs(rng);
  for (const char* kind : kFp8Kinds)
    for (const char* rnd : {"rtne", "rtz"})
      expectSameAsInterpreter({"to_fp8", kF64, kU8, {{"DT", std::string(kind)}, {"RND", std::string(rnd)}}}, xs);
}

TEST(PtxCasts, EveryFp8CodeDecodesExactly) {
  for (const char* kind : kFp8Kinds)
    for (const DT& dst : {kF32, kF16, kBF16, kF64})
      expectSameAsInterpreter({"from_fp8", kU8, dst, {{"SRC", std::string(kind)}}}, all8());
}

TEST(PtxCasts, F64ToBf16RoundsOnce) {
  std::mt19937_64 rng(3);
  auto xs = f64Inputs(rng);
  for (const char* rnd : {"rtne", "rtz"})
    for (const DT& dst : {kBF16, kF16, kF32})
      expectSameAsInterpreter({"rounded", kF64, dst, {{"DT", std::string(dst.sig)}, {"RND", std::string(rnd)}}, false},
                              xs);
}

TEST(PtxCasts, Bf16RtzKeepsTheSignOfNaN) {
  std::mt19937_64 rng(4);
  expectSameAsInterpreter({"rounded", kF32, kBF16, {{"DT", std::string("bf16")}, {"RND", std::string("rtz")}}},
                          f32Inputs(rng));
}

TEST(PtxCasts, WideIntegersToNarrowFloatsRoundOnce) {
  std::mt19937_64 rng(5);
  for (const DT& src : {kI32, kU32, kI64, kU64}) {
    auto xs = intInputs(rng, src.bytes * 8);
    for (const DT& dst : {kBF16, kF16, kF32, kF64})
      expectSameAsInterpreter({"plain", src, dst, {{"DT", std::string(dst.sig)}}}, xs);
  }
}

/// f32 -> f16/bf16 of a whole tensor: the emitter narrows register pairs
/// with one packed cvt (cvt.rn.bf16x2.f32 d, hi, lo). A CTA of one warp runs
/// in PtxEval on 1000 random f32 values (ties, subnormals, overflow, infs;
/// no NaNs: PtxEval's float NaNs are canonical) and must write the
/// interpreter's bits, with the pairs in the right halves.
TEST(PtxCasts, PackedNarrowingOfTensorsMatchesTheInterpreter) {
  std::mt19937_64 rng(6);
  const int64_t n = 1000;
  std::vector<float> xs;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits = static_cast<uint32_t>(rng());
    switch (i % 4) {
      case 0: bits = (bits & 0x8000FFFFu) | 0x3F800000u | (rng() & 1 ? 0x8000u : 0); break;  // bf16 ties
      case 1: bits = (bits & 0x807FFFFFu) | (static_cast<uint32_t>(100 + rng() % 60) << 23); break;
      default: break;
    }
    float f = ir::floats::bitsToFloat(bits);
    if (std::isnan(f)) f = static_cast<float>(i) * -0.37f;
    xs.push_back(f);
  }
  xs[3] = INFINITY;
  xs[7] = -INFINITY;
  xs[11] = 70000.0f;  // overflows f16
  static Program program = Program::from_source(kCasts, "casts.py");
  Device dev = Device::interpreter();
  for (const DT& dst : {kBF16, kF16}) {
    for (int64_t widen : {0, 1}) {
      SCOPED_TRACE(std::string(dst.sig) + (widen ? " widened again" : ""));
      Meta meta = {{"DT", std::string(dst.sig)}, {"WIDEN_AGAIN", widen}, {"BLOCK", int64_t(1024)}};
      Tensor x = dev.upload(xs.data(), DType::fp32, {n});
      Tensor out = dev.zeros(dst.dtype, {n});
      program.kernel("narrow_block").launch(dev, {1}, {x, out, n}, meta, LaunchOptions{1});
      std::vector<std::byte> want = out.download_bytes();
      std::string sig = std::string("*fp32:16, *") + dst.sig + ":16, i32, DT=" + dst.sig +
                        ", WIDEN_AGAIN=" + std::to_string(widen) + ", BLOCK=1024";
      for (const char* arch : {"sm_80", "sm_90a"}) {
        gpu::PtxKernel k = ptxtest::compile(kCasts, "narrow_block", sig, 1, arch);
        std::string packed = dst.dtype == DType::bf16 ? "cvt.rn.bf16x2.f32" : "cvt.rn.f16x2.f32";
        EXPECT_NE(k.ptx.find(packed), std::string::npos) << arch << " does not pair its narrowing";
        if (!ptxtest::ptxasPath().empty()) EXPECT_EQ(ptxtest::assemble(k, arch), "");
        PtxEval eval(k.ptx);
        std::vector<uint8_t> xb(n * 4), ob(n * 2, 0xEE);
        std::memcpy(xb.data(), xs.data(), xb.size());
        uint64_t ax = eval.addBuffer(&xb), ao = eval.addBuffer(&ob);
        eval.runBlock({ax, ao, static_cast<uint64_t>(n)}, 32, k.sharedBytes);
        int bad = 0;
        for (int64_t i = 0; i < n && bad < 8; ++i) {
          uint16_t got, w;
          std::memcpy(&got, ob.data() + 2 * i, 2);
          std::memcpy(&w, reinterpret_cast<const uint8_t*>(want.data()) + 2 * i, 2);
          if (got != w) {
            ++bad;
            ADD_FAILURE() << arch << ": element " << i << " (" << xs[i] << ") -> 0x" << std::hex << got
                          << ", interpreter 0x" << w;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessera
