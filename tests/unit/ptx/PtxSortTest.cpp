//===- PtxSortTest.cpp - tt.sort's PTX agrees with the interpreter --------===//
//
// (Also PtxLayouts: a transpose through shared memory, checked the same way.)
//
// tl.sort is a bitonic network in shared memory run by all threads of the
// block (lib/ptx/Sort.cpp). These tests run the emitted PTX for a whole
// block in PtxEval (threads, shared memory, barriers) and compare the sorted
// rows bit for bit with the interpreter on the same inputs: the
// interpreter's sort is stable, orders -0.0 and +0.0 as equal, and NaN as
// equal to +inf, so a GPU result that differs in any bit (a NaN payload,
// the sign of a zero) is a bug. Inputs are full of ties. Every kernel also
// assembles for sm_80 and sm_90a.
//
//===----------------------------------------------------------------------===//

#include <cstring>
#include <random>

#include "PtxEval.h"
#include "PtxTestUtil.h"
#include "ir/FloatFormats.h"
#include "tessera/ptx/Backend.h"
#include "tessera/ir/IR.h"
#include "tessera/tessera.h"

namespace tessera {
namespace {

using ptxeval::PtxEval;

const char* kSorts = R"(
import triton
import triton.language as tl

@triton.jit
def sort1d(x_ptr, out_ptr, N: tl.constexpr, DESC: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(out_ptr + o, tl.sort(tl.load(x_ptr + o), descending=DESC))

@triton.jit
def sort2d(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, DESC: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    tl.store(out_ptr + r * C + c, tl.sort(x, dim=1, descending=DESC))

@triton.jit
def sort3d(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, DESC: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    offs = a * B * C + b * C + c
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs), descending=DESC))

@triton.jit
def sort_fp8(x_ptr, out_ptr, N: tl.constexpr, DT: tl.constexpr, DESC: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o).to(DT, bitcast=True)
    tl.store(out_ptr + o, tl.sort(x, descending=DESC).to(tl.uint8, bitcast=True))

@triton.jit
def transpose2d(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    tl.store(out_ptr + c[:, None] * R + r[None, :], tl.trans(x))

@triton.jit
def transpose_bool(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :]) > 0
    tl.store(out_ptr + c[:, None] * R + r[None, :], tl.trans(x).to(tl.int8))

@triton.jit
def sort_bool(x_ptr, out_ptr, N: tl.constexpr, DESC: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o) > 0
    tl.store(out_ptr + o, tl.sort(x, descending=DESC).to(tl.int8))
)";

struct Elem {
  const char* sig;
  DType dtype;
  int bytes;
};
const Elem kF32{"fp32", DType::fp32, 4}, kF16{"fp16", DType::fp16, 2}, kBF16{"bf16", DType::bf16, 2},
    kF64{"fp64", DType::fp64, 8}, kI32{"i32", DType::i32, 4}, kI64{"i64", DType::i64, 8}, kI16{"i16", DType::i16, 2},
    kI8{"i8", DType::i8, 1}, kU8{"u8", DType::u8, 1};

/// Random bits drawn from a small pool so rows have many equal keys, with
/// the special patterns of the type mixed in (floats: +-0, +-inf, NaNs of
/// both signs and several payloads).
std::vector<uint8_t> randomData(const Elem& e, int64_t n, std::mt19937_64& rng) {
  std::vector<uint64_t> pool;
  for (int i = 0; i < 12; ++i) pool.push_back(rng());
  auto fromDouble = [&](double d) -> uint64_t {
    switch (e.dtype) {
      case DType::fp32: return ir::floats::floatToBits(static_cast<float>(d));
      case DType::fp64: return ir::floats::doubleToBits(d);
      case DType::fp16: return ir::floats::floatToHalf(static_cast<float>(d));
      case DType::bf16: return ir::floats::floatToBF16(static_cast<float>(d));
      default: return static_cast<uint64_t>(static_cast<int64_t>(d));
    }
  };
  for (double d : {0.0, -0.0, 1.0, -1.0, 2.5, -7.0, 1e30, -1e-30}) pool.push_back(fromDouble(d));
  bool isFloat = e.dtype == DType::fp32 || e.dtype == DType::fp64 || e.dtype == DType::fp16 || e.dtype == DType::bf16;
  if (isFloat) {
    pool.push_back(fromDouble(INFINITY));
    pool.push_back(fromDouble(-INFINITY));
    if (e.bytes == 4) pool.insert(pool.end(), {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu});
    if (e.bytes == 8) pool.insert(pool.end(), {0x7FF8000000000000ull, 0xFFF0000000000001ull});
    if (e.dtype == DType::fp16) pool.insert(pool.end(), {0x7E00u, 0xFC01u, 0x7FFFu});
    if (e.dtype == DType::bf16) pool.insert(pool.end(), {0x7FC0u, 0xFF81u, 0x7FFFu});
  } else {
    pool.insert(pool.end(), {0, ~0ull, 1ull << (e.bytes * 8 - 1), (1ull << (e.bytes * 8 - 1)) - 1});
  }
  std::vector<uint8_t> out(static_cast<size_t>(n) * e.bytes);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = (rng() % 4 == 0) ? rng() : pool[rng() % pool.size()];
    std::memcpy(out.data() + i * e.bytes, &v, e.bytes);
  }
  return out;
}

/// Runs `kernel` in the interpreter and, for every target, its PTX in
/// PtxEval; expects the same output bytes.
void expectSortsLikeInterpreter(const std::string& kernel, const Elem& in, const Elem& out, int64_t n,
                                const std::string& consts, const Meta& meta, int warps, std::mt19937_64& rng) {
  SCOPED_TRACE(kernel + " " + in.sig + " " + consts + " warps=" + std::to_string(warps));
  std::vector<uint8_t> x = randomData(in, n, rng);
  static Program program = Program::from_source(kSorts, "sorts.py");
  Device dev = Device::interpreter();
  Tensor tx = dev.upload(x.data(), in.dtype, {n});
  Tensor tout = dev.zeros(out.dtype, {n});
  LaunchOptions lo;
  lo.num_warps = warps;
  program.kernel(kernel).launch(dev, {1}, {tx, tout}, meta, lo);
  std::vector<std::byte> wantBytes = tout.download_bytes();
  std::vector<uint8_t> want(n * out.bytes);
  std::memcpy(want.data(), wantBytes.data(), want.size());

  std::string sig = "*" + std::string(in.sig) + ":16, *" + out.sig + ":16, " + consts;
  for (const char* arch : {"sm_80", "sm_90a"}) {
    gpu::PtxKernel k = ptxtest::compile(kSorts, kernel, sig, warps, arch);
    if (!ptxtest::ptxasPath().empty()) {
      EXPECT_EQ(ptxtest::assemble(k, arch), "");
    }
    PtxEval eval(k.ptx);
    std::vector<uint8_t> xb = x, ob(want.size(), 0xEE);
    uint64_t ax = eval.addBuffer(&xb), ao = eval.addBuffer(&ob);
    eval.runBlock({ax, ao}, 32 * warps, k.sharedBytes);
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 8; ++i) {
      uint64_t g = 0, w = 0;
      std::memcpy(&g, ob.data() + i * out.bytes, out.bytes);
      std::memcpy(&w, want.data() + i * out.bytes, out.bytes);
      if (g != w) {
        ++bad;
        ADD_FAILURE() << arch << ": element " << i << " is 0x" << std::hex << g << ", interpreter 0x" << w;
      }
    }
    if (bad) return;
  }
}

TEST(PtxSort, RowsOfEveryElementTypeBothDirections) {
  std::mt19937_64 rng(7);
  for (const Elem& e : {kF32, kF16, kBF16, kF64, kI32, kI64, kI16, kI8, kU8})
    for (const char* desc : {"False", "True"})
      expectSortsLikeInterpreter("sort2d", e, e, 8 * 16, std::string("R=8, C=16, DESC=") + desc,
                                 {{"R", int64_t(8)}, {"C", int64_t(16)}, {"DESC", std::string(desc) == "True"}}, 4,
                                 rng);
}

/// A 2-D block shape and the warps that run it.
struct Shape {
  int64_t r, c;
  int warps;
};

/// Layout changes through shared memory (Layouts.cpp's move): the scratch
/// rows are swizzled in 16-byte chunks and registers that are consecutive
/// there move as vectors. A transpose of every element size (and of i1),
/// on shapes whose rows are 1 to 16 chunks, must give the interpreter's bits.
TEST(PtxLayouts, TransposeThroughSwizzledScratchMatchesTheInterpreter) {
  std::mt19937_64 rng(9);
  for (Shape s : {Shape{64, 32, 4}, Shape{16, 128, 4}, Shape{128, 64, 8}, Shape{8, 8, 1}, Shape{2, 256, 2}})
    for (const Elem& e : {kF16, kF32, kF64, kI8, kBF16})
      expectSortsLikeInterpreter("transpose2d", e, e, s.r * s.c,
                                 "R=" + std::to_string(s.r) + ", C=" + std::to_string(s.c),
                                 {{"R", s.r}, {"C", s.c}}, s.warps, rng);
  for (Shape s : {Shape{64, 32, 4}, Shape{16, 128, 4}})  // i1 (stored as b16, one at a time)
    expectSortsLikeInterpreter("transpose_bool", kI8, kI8, s.r * s.c,
                               "R=" + std::to_string(s.r) + ", C=" + std::to_string(s.c), {{"R", s.r}, {"C", s.c}},
                               s.warps, rng);
  gpu::PtxKernel k = ptxtest::compile(kSorts, "transpose2d", "*fp16:16, *fp16:16, R=64, C=32", 4);
  EXPECT_NE(k.ptx.find("ld.shared.v"), std::string::npos) << "no vector reads of the scratch buffer";
}

/// Tile GPU IR copying an R x C 16-bit tile from `in` to `out`: loaded in
/// `from`'s layout, converted to `to`'s, stored.
std::string copyThroughLayouts(int64_t r, int64_t c, int warps, const std::string& elem, const std::string& from,
                               const std::string& to) {
  std::string out = "tt.func @k(%in: !tt.ptr<" + elem + "> {divisibility = 16}, %out: !tt.ptr<" + elem +
                    "> {divisibility = 16}) -> () attributes {kernel = true, num_warps = " + std::to_string(warps) +
                    "} {\n";
  auto pointers = [&](const std::string& enc, const std::string& base, const std::string& p) {
    std::string R = std::to_string(r), C = std::to_string(c), t = "tensor<" + R + "x" + C;
    out += "  %" + p + "r = tt.make_range {end = " + R + ", start = 0} : tensor<" + R + "xi32, #ttg.slice<{dim = 1, parent = " + enc + "}>>\n";
    out += "  %" + p + "r2 = tt.expand_dims %" + p + "r {axis = 1} : tensor<" + R + "x1xi32, " + enc + ">\n";
    out += "  %" + p + "s = arith.constant {value = " + C + "} : tensor<" + R + "x1xi32, " + enc + ">\n";
    out += "  %" + p + "ro = arith.muli %" + p + "r2, %" + p + "s : tensor<" + R + "x1xi32, " + enc + ">\n";
    out += "  %" + p + "c = tt.make_range {end = " + C + ", start = 0} : tensor<" + C + "xi32, #ttg.slice<{dim = 0, parent = " + enc + "}>>\n";
    out += "  %" + p + "c2 = tt.expand_dims %" + p + "c {axis = 0} : tensor<1x" + C + "xi32, " + enc + ">\n";
    out += "  %" + p + "rb = tt.broadcast %" + p + "ro : " + t + "xi32, " + enc + ">\n";
    out += "  %" + p + "cb = tt.broadcast %" + p + "c2 : " + t + "xi32, " + enc + ">\n";
    out += "  %" + p + "o = arith.addi %" + p + "rb, %" + p + "cb : " + t + "xi32, " + enc + ">\n";
    out += "  %" + p + "b = tt.splat %" + base + " : " + t + "x!tt.ptr<" + elem + ">, " + enc + ">\n";
    out += "  %" + p + "p = tt.addptr %" + p + "b, %" + p + "o : " + t + "x!tt.ptr<" + elem + ">, " + enc + ">\n";
    return t;
  };
  std::string t = pointers(from, "in", "a");
  out += "  %v = tt.load %ap : " + t + "x" + elem + ", " + from + ">\n";
  out += "  %w = ttg.convert_layout %v : " + t + "x" + elem + ", " + to + ">\n";
  pointers(to, "out", "b");
  out += "  tt.store %bp, %w\n  tt.return\n}\n";
  return out;
}

// An mma accumulator tile of 16-bit values leaving for a blocked layout
// (the matmul and attention epilogues) goes through scratch with stmatrix
// on sm_90a: 8 x 8 matrices whose rows each lane addresses. PtxEval runs
// the whole CTA (stmatrix warp by warp) and the copy must be exact; on
// sm_80 the same move uses st.shared.
TEST(PtxLayouts, AccumulatorTilesLeaveThroughStmatrix) {
  struct Case {
    int64_t r, c;
    int warps;
    std::string mma;
  } cases[] = {
      {64, 64, 4, "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>"},
      {128, 256, 8, "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 256, 16]}>"},
      {128, 64, 8, "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 32, 16]}>"},
      {64, 64, 4, "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"},
  };
  std::mt19937_64 rng(11);
  for (const Case& cs : cases)
    for (const char* elem : {"f16", "bf16"})
      for (const char* arch : {"sm_90a", "sm_80"}) {
        SCOPED_TRACE(std::to_string(cs.r) + "x" + std::to_string(cs.c) + " " + elem + " " + arch + " " + cs.mma);
        std::string blocked = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [" +
                              std::to_string(cs.warps) + ", 1], order = [1, 0]}>";
        auto module = ir::parseModule(copyThroughLayouts(cs.r, cs.c, cs.warps, elem, cs.mma, blocked));
        gpu::GpuOptions options;
        options.numWarps = cs.warps;
        options.target = gpu::Target::parse(arch);
        gpu::PtxKernel k = ptxtest::planAndEmit(*module, "k", options);
        EXPECT_EQ(k.ptx.find("stmatrix") != std::string::npos, std::string(arch) == "sm_90a") << k.ptx;
        if (!ptxtest::ptxasPath().empty()) EXPECT_EQ(ptxtest::assemble(k, arch), "");
        std::vector<uint8_t> in(cs.r * cs.c * 2), out(in.size(), 0xEE);
        for (uint8_t& b : in) b = static_cast<uint8_t>(rng());
        PtxEval eval(k.ptx);
        uint64_t ai = eval.addBuffer(&in), ao = eval.addBuffer(&out);
        eval.runBlock({ai, ao}, 32 * cs.warps, k.sharedBytes);
        int bad = 0;
        for (size_t i = 0; i < in.size() && bad < 8; i += 2)
          if (std::memcmp(&in[i], &out[i], 2) != 0 && bad++ < 8) ADD_FAILURE() << "element " << i / 2 << " differs";
      }
}

// A wgmma accumulator tile (128 x 32 bf16, 4 warps) read transposed as an
// mma.sync A operand, as attention's one-pass backward reads dS^T:
// propagate-dot-layouts keeps tt.trans in the accumulator's registers (the
// transposed layout, a linear one), and one layout change takes it to the
// dot operand (ldmatrix.trans); before, the tile went to a blocked layout
// first. Both routes, then to a blocked layout to store it; PtxEval runs
// the CTA: out must be in transposed.
TEST(PtxLayouts, TransposedAccumulatorToDotOperand) {
  const std::string mma = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
                          "instrShape = [16, 32, 16]}>";
  const std::string dotA = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
                           "warpsPerCTA = [1, 4], instrShape = [16, 8]}>, kWidth = 2}>";
  const std::string blocked = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
                              "order = [1, 0]}>";
  // The transposes of the accumulator's layout and of the blocked one.
  const std::string fromMma = "#ttg.linear<{register = [[1, 0], [0, 8], [8, 0], [16, 0], [0, 64]], lane = [[2, 0], "
                              "[4, 0], [0, 1], [0, 2], [0, 4]], warp = [[0, 16], [0, 32]], block = []}>";
  const std::string fromBlocked = "#ttg.linear<{register = [[1, 0], [2, 0], [4, 0], [0, 16], [0, 32], [0, 64]], "
                                  "lane = [[8, 0], [16, 0], [0, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]], "
                                  "block = []}>";
  for (bool direct : {true, false}) {
    SCOPED_TRACE(direct ? "trans of the accumulator" : "through a blocked layout");
    // copyThroughLayouts's kernel with the convert replaced by the route,
    // and a 32 x 128 tile's pointers for the store.
    std::string text = copyThroughLayouts(128, 32, 4, "bf16", mma, blocked);
    size_t at = text.find("  %w = ttg.convert_layout");
    std::string route = direct ? "  %t = tt.trans %v {order = [1, 0]} : tensor<32x128xbf16, " + fromMma + ">\n"
                               : "  %b = ttg.convert_layout %v : tensor<128x32xbf16, " + blocked +
                                     ">\n  %t = tt.trans %b {order = [1, 0]} : tensor<32x128xbf16, " + fromBlocked +
                                     ">\n";
    text.replace(at, text.find('\n', at) - at,
                 route + "  %d = ttg.convert_layout %t : tensor<32x128xbf16, " + dotA +
                     ">\n  %w = ttg.convert_layout %d : tensor<32x128xbf16, " + blocked + ">");
    std::string store = copyThroughLayouts(32, 128, 4, "bf16", blocked, blocked);
    size_t from = store.find("  %br = "), mine = text.find("  %br = ");
    text.replace(mine, text.find("  tt.store") - mine, store.substr(from, store.find("  tt.store") - from));
    auto module = ir::parseModule(text);
    gpu::GpuOptions options;
    options.numWarps = 4;
    options.target = gpu::Target::parse("sm_90a");
    gpu::PtxKernel k = ptxtest::planAndEmit(*module, "k", options);
    if (direct) EXPECT_TRUE(ptxtest::has(k.ptx, "ldmatrix.sync.aligned.m8n8.x4.trans")) << k.ptx;
    if (!ptxtest::ptxasPath().empty()) EXPECT_EQ(ptxtest::assemble(k, "sm_90a"), "");
    std::mt19937_64 rng(12);
    std::vector<uint8_t> in(128 * 32 * 2), out(in.size(), 0xEE);
    for (uint8_t& b : in) b = static_cast<uint8_t>(rng());
    PtxEval eval(k.ptx);
    uint64_t ai = eval.addBuffer(&in), ao = eval.addBuffer(&out);
    eval.runBlock({ai, ao}, 128, k.sharedBytes);
    int bad = 0;
    for (int64_t r = 0; r < 128; ++r)
      for (int64_t c = 0; c < 32; ++c)
        if (std::memcmp(&in[(r * 32 + c) * 2], &out[(c * 128 + r) * 2], 2) != 0 && bad++ < 8)
          ADD_FAILURE() << "in[" << r << "][" << c << "] is not out[" << c << "][" << r << "]";
  }
}

TEST(PtxSort, ShapesAndWarps) {
  std::mt19937_64 rng(8);
  for (Shape s : {Shape{1, 2, 1}, Shape{32, 4, 4}, Shape{4, 64, 2}, Shape{2, 256, 8}, Shape{64, 2, 4}})
    for (bool desc : {false, true})
      expectSortsLikeInterpreter(
          "sort2d", kF32, kF32, s.r * s.c,
          "R=" + std::to_string(s.r) + ", C=" + std::to_string(s.c) + ", DESC=" + (desc ? "True" : "False"),
          {{"R", s.r}, {"C", s.c}, {"DESC", desc}}, s.warps, rng);
  for (int64_t n : {2, 32, 1024})
    for (const Elem& e : {kI32, kF64})
      expectSortsLikeInterpreter("sort1d", e, e, n, "N=" + std::to_string(n) + ", DESC=True",
                                 {{"N", n}, {"DESC", true}}, 4, rng);
  expectSortsLikeInterpreter("sort3d", kBF16, kBF16, 2 * 4 * 8, "A=2, B=4, C=8, DESC=False",
                             {{"A", int64_t(2)}, {"B", int64_t(4)}, {"C", int64_t(8)}, {"DESC", false}}, 4, rng);
}

TEST(PtxSort, Fp8AndBoolKeys) {
  std::mt19937_64 rng(9);
  for (const char* dt : {"fp8e4nv", "fp8e5", "fp8e4b8"})
    for (bool desc : {false, true})
      expectSortsLikeInterpreter("sort_fp8", kU8, kU8, 128,
                                 std::string("N=128, DT=") + dt + ", DESC=" + (desc ? "True" : "False"),
                                 {{"N", int64_t(128)}, {"DT", std::string(dt)}, {"DESC", desc}}, 4, rng);
  for (bool desc : {false, true})
    expectSortsLikeInterpreter("sort_bool", kI32, kI8, 64, std::string("N=64, DESC=") + (desc ? "True" : "False"),
                               {{"N", int64_t(64)}, {"DESC", desc}}, 2, rng);
}

}  // namespace
}  // namespace tessera
