//===- GpuPasses.h - The Tile GPU IR passes (private to lib/gpu) -*- C++ -*-===//
//
// Run in this order by lowerToGpuIR (LowerToGpuIR.cpp):
//   carryBlockPointerOffsets block pointers carried by loops -> their offsets
//   pointerTilesToTma        sm_90a: masked pointer tiles of wgmma operands
//                            -> block-pointer loads (for the next pass)
//   tmaDescriptorLoads       sm_90a: block-pointer and descriptor loads of
//                            wgmma operands -> TMA descriptor loads
//   rewriteBlockPointers     block-pointer loads/stores -> pointer tiles + masks
//   combineDotAdd            x + dot(a, b) -> dot(a, b, acc=x) (not for fp8
//                            wgmma dots, as in Triton)
//   upcastFp8Dots            fp8 dot operands -> fp16 (exact), except for
//                            dots that run on fp8 wgmma
//   carryPointerOffsets      loop-carried pointer tiles advanced by a scalar
//                            -> initial pointers + a carried scalar offset
//   assignLayouts            every tensor value gets an encoding; operands
//                            whose encoding differs from what an op needs get
//                            a ttg.convert_layout
//   propagateDotLayouts      what is computed from an mma dot result stays in
//                            the mma layout (no convert to blocked and back)
//   rematerializeConversions converts of cheap producer chains (ranges,
//                            splats, index arithmetic) are replaced by copies
//                            of the chain made directly in the wanted layout
//   foldConversions          drops converts to the same encoding, merges
//                            convert(convert(x)), and converts whose two
//                            layouts are the same linear layout
//   wgmmaOperandsFromRegisters wgmma A tiles computed in the accumulator
//                            layout stay in registers (no shared copy)
//   sinkWideningCasts, rematerializeAtUses (SinkCasts.cpp)
//   pipelineDotLoops         cp.async stages and asynchronous wgmma for the
//                            loops feeding wgmma dots (num_stages >= 2), a
//                            producer warpgroup for TMA-only ones
//   (licm, dce)
//   pingPongWarpgroups       two consumer warpgroups take turns at the dots
//   encodeHostTensorMaps     descriptors the launch can encode ->
//                            ttng.host_tensormap (the map as attributes)
//   allocateSharedMemory     offsets of the shared buffers and of the
//                            scratch area, as attributes
//
//===----------------------------------------------------------------------===//
#pragma once

#include <vector>

#include "tessera/gpu/Backend.h"
#include "tessera/gpu/LinearLayout.h"
#include "tessera/ir/Builder.h"
#include "tessera/ir/IR.h"

namespace tessera::gpu {

/// Loads and stores through a block pointer made in the same block become
/// tiles of pointers with a bounds mask (RewriteBlockPointers.cpp).
void rewriteBlockPointers(ir::Operation* func);
/// Block pointers carried through scf.for become their offsets; advances
/// of a make become makes (BlockPointerLoops.cpp).
void carryBlockPointerOffsets(ir::Operation* func);
/// sm_90a: tensor-descriptor loads TMA can copy become
/// ttng.descriptor_load of a ttng.tensormap_create (TmaDescriptorLoads.cpp).
void tmaDescriptorLoads(ir::Operation* func, const Target& target, int numWarps);
/// sm_90a: masked pointer-tile loads of wgmma operands that are blocks of a
/// strided tensor become block-pointer loads, for tmaDescriptorLoads
/// (PointerTilesToTma.cpp).
void pointerTilesToTma(ir::Operation* func, const Target& target, int numWarps);
/// Whether TMA can copy a `tile` (element size, box dims, 16-byte rows, at
/// most 64 KiB) with that padding ("zero" or "nan").
bool tmaCanCopyTile(ir::Type tile, const std::string& padding);
/// The use of `load`'s tile as operand A or B of a wgmma dot, directly or
/// through tt.trans (then `*throughTrans`); null when it is not one.
ir::OpOperand* wgmmaOperandUse(ir::Operation* load, const Target& target, int numWarps, bool* throughTrans = nullptr);
/// Operand A or B of a wgmma dot, directly or through tt.trans, loaded in a
/// loop: a tile the pipeliner stages (fp8: K-major only). `transposedCopy`:
/// as if the load, which feeds the dot directly, were of the transposed
/// tile read through tt.trans (pointerTilesToTma's copies of K^T).
bool isStageableWgmmaOperand(ir::Operation* load, const Target& target, int numWarps, bool transposedCopy = false);
/// A tl.trans of a loaded tile that is also read as it is, where only
/// dots read the transpose, becomes a load of the transposed tile
/// (TransposedLoads.cpp).
void transposeLoadedOperands(ir::Operation* func);
/// x + dot(a, b, 0) -> dot(a, b, x) (CombineDotAdd.cpp).
void combineDotAdd(ir::Operation* func, const Target& target, int numWarps);
/// fp8 (e4m3, e5m2) dot operands are extended to fp16 unless the dot runs
/// on wgmma for `target` with `numWarps` (UpcastFp8Dot.cpp).
void upcastFp8Dots(ir::Operation* func, const Target& target, int numWarps);
/// Multi-stage cp.async pipelines for loops with wgmma dots, `numStages`
/// >= 2 (PipelineLoops.cpp).
void pipelineDotLoops(ir::Operation* func, int numStages, bool autoWarpSpecialize = true);

/// A tt.dot the tensor cores run as wgmma (an nvidia_mma v3 result).
bool isWgmmaDot(ir::Operation* op);

/// ttng.warp_group_dot_wait {pendings} of `v` at b's insertion point;
/// every other use of `v` reads the wait's result instead.
void waitFor(ir::OpBuilder& b, ir::Value v, int64_t pendings);

/// ttng.tensormap_create the launch can encode -> ttng.host_tensormap
/// (EncodeHostTensorMaps.cpp). The last pass but allocateSharedMemory.
void encodeHostTensorMaps(ir::Operation* func);
/// Shared buffer offsets and scratch placement as attributes
/// (AllocateSharedMemory.cpp). The last pass.
void allocateSharedMemory(ir::Operation* func);

/// The two consumer warpgroups of a warp-specialized kernel of 8 warps take
/// turns at their loops' dots (PingPong.cpp). Runs after licm.
void pingPongWarpgroups(ir::Operation* func);
/// Pointer tiles a loop advances by a splat scalar are carried as a scalar
/// offset (LoopPointerOffsets.cpp).
void carryPointerOffsets(ir::Operation* func);
/// `target` decides which dots run on tensor cores and how (DotEncodings.cpp).
void assignLayouts(ir::Operation* func, int numWarps, const Target& target = Target{});
/// Values computed from mma dot results keep the mma layout
/// (PropagateDotLayouts.cpp).
void propagateDotLayouts(ir::Operation* func);
/// A 16-bit wgmma A already in the accumulator fragment layout is read from
/// registers, not copied to shared memory (WgmmaRegisterOperands.cpp).
void wgmmaOperandsFromRegisters(ir::Operation* func);

// DotEncodings.cpp: how a tt.dot is computed.
/// True when `dot` runs on wgmma (sm_90a) with `numWarps` warps.
bool dotUsesWgmma(ir::Operation* dot, const Target& target, int numWarps);
/// e4m3 and e5m2: the element types wgmma multiplies at K steps of 32.
bool isWgmmaFp8(ir::TypeKind kind);
/// The nvidia_mma version 3 encoding of a wgmma dot result of `shape`.
ir::Encoding wgmmaEncoding(const std::vector<int64_t>& shape, int numWarps);
/// True when `dot` runs on mma.sync for a target of `capability`.
bool dotUsesMmaV2(ir::Operation* dot, int capability);
/// Elements of one 32-bit mma.sync operand register: 2 for 16-bit types.
int64_t mmaV2KWidth(ir::Type element);
/// The shared tile a 16-bit mma.sync operand of `shape` is read from with
/// ldmatrix, rows of its `contiguous` dim: 16-byte chunks XOR-swizzled by
/// row so that the 8 rows of one ldmatrix hit distinct banks (the layout
/// the PTX emitter's SwizzledRows computes).
ir::Encoding mmaV2OperandTileEncoding(const std::vector<int64_t>& shape, int contiguous);
/// The nvidia_mma (version 2) encoding of a dot result of `shape`.
ir::Encoding mmaV2Encoding(const std::vector<int64_t>& shape, int numWarps);
/// Operand `opIdx` (0: A, 1: B) of an FMA dot whose result has layout
/// `result`: the result's layout with N (A) or M (B) replaced by all of K in
/// registers.
LinearLayout fmaOperandLayout(const LinearLayout& result, int opIdx, int64_t k);
/// Moves widening casts down to their first use (SinkCasts.cpp).
void sinkWideningCasts(ir::Operation* func);
/// Copies cheap index computations to each of their users (SinkCasts.cpp).
void rematerializeAtUses(ir::Operation* func);
void rematerializeConversions(ir::Operation* func);
void foldConversions(ir::Operation* func);

/// True for ops that compute a value only from their operands with no
/// memory access and no region (cheap to recompute in another layout).
bool isRematerializable(const ir::Operation* op);

}  // namespace tessera::gpu
