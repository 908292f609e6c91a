//===- DotEncodings.cpp - Which encodings a tt.dot computes in -------------===//
//
// AssignLayouts asks here how a tt.dot is computed and so which encodings
// its operands, accumulator and result need:
//
//  * On sm_90a with wgmma (fp16/bf16, or e4m3/e5m2 in any pairing, into
//    fp32; M and N multiples of 64, rows of K of 32, 64 or a multiple of
//    128 bytes, warps in warpgroups): the result is #ttg.nvidia_mma
//    version 3 (Triton's warpsPerTileV3: warpgroups along M while M has
//    rows for them, then along N; instrShape N = the warps' N, at most
//    256); A and B stay in their registers' encodings, the lowering writes
//    them to shared memory in the layouts wgmma reads (Dot.cpp).
//  * On tensor cores with mma.sync (sm_80 and later): fp16 and bf16 (m16n8k16,
//    fp32 or fp16 accumulator), fp32 at input_precision "tf32" (m16n8k8) and
//    int8 (m16n8k32, int32 accumulator). The result is #ttg.nvidia_mma
//    version 2 with warps placed as Triton 3.6 places them (warpsPerTile for
//    mma v2); A and B are #ttg.dot_op of it with kWidth = 32 bits / element
//    bits, the elements one thread feeds one instruction register.
//  * Otherwise with FMAs in the accumulator's blocked layout (fp32 at "ieee"
//    and "tf32x3"/"bf16x3"/"bf16x6", whose accuracy FMAs give in full,
//    fp64, any dot below 16 in M or N, as a matrix-vector product; e4m3/e5m2
//    operands arrive as fp16, UpcastFp8Dot.cpp): each thread computes its accumulator elements from whole
//    rows of A and columns of B, so A gets the accumulator's layout with N
//    replaced by K held in registers (fmaOperandLayout), B likewise.
//
//===----------------------------------------------------------------------===//

#include "gpu/GpuPasses.h"
#include "tessera/gpu/Backend.h"
#include "tessera/Error.h"
#include "tessera/gpu/LinearLayout.h"

namespace tessera::gpu {

using namespace ir;

bool dotUsesMmaV2(Operation* dot, int capability) {
  if (capability < 80) return false;
  // At least one m16n8 tile each way in both M and N of 16 (smaller dots,
  // a matrix-vector product's N = 1, go to FMAs).
  const std::vector<int64_t>& shape = dot->result().type().shape();
  if (shape.size() < 2 || shape[shape.size() - 2] < 16 || shape.back() < 16) return false;
  Type a = dot->operand(0).type().elementType();
  Type out = dot->result().type().elementType();
  switch (a.kind()) {
    case TypeKind::F16: return out.kind() == TypeKind::F32 || out.kind() == TypeKind::F16;
    case TypeKind::BF16: return out.kind() == TypeKind::F32;
    case TypeKind::I8: return out.isInteger(32);
    case TypeKind::F32: return out.kind() == TypeKind::F32 && dot->strAttr("input_precision") == "tf32";
    default: return false;
  }
}

/// Warps of a wgmma result: (along M, along N).
std::pair<int64_t, int64_t> wgmmaWarps(int64_t m, int numWarps) {
  int64_t wm = 4, wn = 1;
  while (wm * wn < numWarps) {
    if (m > 16 * wm) wm *= 2;
    else wn *= 2;
  }
  return {wm, wn};
}

bool isWgmmaFp8(TypeKind k) { return k == TypeKind::F8E4M3FN || k == TypeKind::F8E5M2; }

bool dotUsesWgmma(Operation* dot, const Target& target, int numWarps) {
  if (target.capability != 90 || !target.archSpecific || numWarps % 4 != 0) return false;
  Type a = dot->operand(0).type(), out = dot->result().type().elementType();
  TypeKind k = a.elementType().kind(), kb = dot->operand(1).type().elementType().kind();
  bool sixteen = (k == TypeKind::F16 || k == TypeKind::BF16) && kb == k;
  bool fp8 = isWgmmaFp8(k) && isWgmmaFp8(kb);
  if ((!sixteen && !fp8) || out.kind() != TypeKind::F32 || a.rank() != 2) return false;
  const std::vector<int64_t>& shape = dot->result().type().shape();
  int64_t m = shape[0], n = shape[1], kDim = a.shape()[1];
  if (n < 16) return false;  // (narrower B rows than a swizzle atom: FMAs, as mma.sync's dots below 16)
  // K steps of one instruction (16 or 32 elements = 32 bytes); a tile's
  // rows are 32, 64 or a multiple of 128 bytes (the swizzle widths).
  int64_t kBytes = kDim * a.elementType().bitWidth() / 8;
  if (m % 64 != 0 || (kBytes != 32 && kBytes != 64 && kBytes % 128 != 0)) return false;
  auto [wm, wn] = wgmmaWarps(m, numWarps);
  // Tile dims are powers of two: N per warpgroup from 8 (a 64 x 32 score
  // tile of attention on 32-key blocks is one m64n32 instruction), in
  // instructions of at most 256 columns (wgmmaEncoding).
  return m % (16 * wm) == 0 && n % (8 * wn) == 0;
}

Encoding wgmmaEncoding(const std::vector<int64_t>& shape, int numWarps) {
  auto [wm, wn] = wgmmaWarps(shape[0], numWarps);
  return Encoding::nvidiaMma(3, 0, {wm, wn}, {16, std::min<int64_t>(256, shape[1] / wn), 16});
}

int64_t mmaV2KWidth(Type element) { return std::max<int64_t>(1, 32 / element.bitWidth()); }

Encoding mmaV2OperandTileEncoding(const std::vector<int64_t>& shape, int contiguous) {
  int64_t cols = shape[contiguous];
  int64_t perPhase = std::max<int64_t>(1, 64 / cols);
  int64_t maxPhase = std::max<int64_t>(1, std::min<int64_t>(8 / perPhase, cols / 8));
  return Encoding::swizzledShared(8, perPhase, maxPhase, {contiguous, 1 - contiguous});
}

Encoding mmaV2Encoding(const std::vector<int64_t>& shape, int numWarps) {
  size_t rank = shape.size();
  int64_t m = shape[rank - 2], n = shape[rank - 1];
  // Triton's warpsPerTile for mma v2: double the warps along the dim with
  // more 16 x 8 instruction tiles per warp, M while it has tiles left.
  int64_t wm = 1, wn = 1;
  while (wm * wn < numWarps) {
    if (m / 16 / wm >= n / (8 * wn)) {
      if (wm < m / 16) wm *= 2;
      else wn *= 2;
    } else {
      wn *= 2;
    }
  }
  std::vector<int64_t> warps(rank, 1);
  warps[rank - 2] = wm;
  warps[rank - 1] = wn;
  std::vector<int64_t> instr(rank, 1);
  instr[rank - 2] = 16;
  instr[rank - 1] = 8;
  return Encoding::nvidiaMma(2, 0, warps, instr);
}

LinearLayout fmaOperandLayout(const LinearLayout& result, int opIdx, int64_t k) {
  int rank = result.rank();
  int dropped = opIdx == 0 ? rank - 1 : rank - 2;  // N for A, M for B: K takes its place
  LinearLayout::Bases bases = result.bases();
  for (int d = 0; d < kNumHwDims; ++d) {
    std::vector<std::vector<int64_t>> kept;
    for (std::vector<int64_t> b : bases[d]) {
      bool movesAlongDropped = b[dropped] != 0;
      b[dropped] = 0;
      bool zero = true;
      for (int64_t x : b) zero = zero && x == 0;
      // Registers that only walked the dropped dim would repeat others.
      if (static_cast<HwDim>(d) == HwDim::Register && movesAlongDropped && zero) continue;
      kept.push_back(std::move(b));
    }
    bases[d] = std::move(kept);
  }
  for (int64_t step = 1; step < k; step *= 2) {
    std::vector<int64_t> b(rank, 0);
    b[dropped] = step;
    bases[static_cast<int>(HwDim::Register)].push_back(std::move(b));
  }
  std::vector<int64_t> sizes = result.outDimSizes();
  sizes[dropped] = k;
  return LinearLayout(std::move(bases), std::move(sizes));
}

}  // namespace tessera::gpu
