//===- interpreter/TensorOps.cpp - Creation, shape and data movement ------===//
//
// Program ids, make_range, splat, broadcast, expand_dims, reshape, trans,
// cat, join, split, gather, histogram, sort, flip, and the no-op hints.
// Data movement goes through one strided-copy routine (row-major output,
// arbitrary source strides, zero for broadcast dims, negative for flips).
//
//===----------------------------------------------------------------------===//

// Kernels are tight loops over contiguous buffers: let GCC vectorize them.
#pragma GCC optimize("O3")

#include <algorithm>
#include <chrono>
#include <numeric>

#include "interpreter/Codecs.h"

namespace tessera::interp {
namespace {

using ir::OpCode;

std::vector<int64_t> shapeOf(ir::Type t) { return t.isTensor() ? t.shape() : std::vector<int64_t>{}; }

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * shape[d + 1];
  return s;
}

/// dst (row-major over `shape`) = src with element strides `strides` (from `src`).
template <class T> void stridedCopy(T* dst, const T* src, const std::vector<int64_t>& shape,
                                    const std::vector<int64_t>& strides) {
  int rank = static_cast<int>(shape.size());
  if (rank == 0) { dst[0] = src[0]; return; }
  int64_t inner = shape[rank - 1], innerStride = strides[rank - 1];
  int64_t rows = 1;
  for (int d = 0; d < rank - 1; ++d) rows *= shape[d];
  std::vector<int64_t> idx(rank, 0);
  int64_t srcOffset = 0;
  for (int64_t row = 0; row < rows; ++row) {
    const T* s = src + srcOffset;
    if (innerStride == 1) std::memcpy(dst, s, inner * sizeof(T));
    else if (innerStride == 0) std::fill(dst, dst + inner, s[0]);
    else for (int64_t i = 0; i < inner; ++i) dst[i] = s[i * innerStride];
    dst += inner;
    for (int d = rank - 2; d >= 0; --d) {
      srcOffset += strides[d];
      if (++idx[d] < shape[d]) break;
      srcOffset -= strides[d] * shape[d];
      idx[d] = 0;
    }
  }
}

/// Result shape in in.v, source strides (element units, may include a base offset in p[0]) in in.v2.
template <class T> void stridedOp(const Instr& in, Frame& f) {
  const T* src = f.slots[in.in[0]].as<T>() + in.p[0];
  T* r = f.out<T>(in.out[0], in.count);
  stridedCopy(r, src, in.v, in.v2);
}

template <class T> void splatOp(const Instr& in, Frame& f) {
  T value = f.slots[in.in[0]].as<T>()[0];
  T* r = f.out<T>(in.out[0], in.count);
  std::fill(r, r + in.count, value);
}

void programIdOp(const Instr& in, Frame& f) { *f.out<int32_t>(in.out[0], 1) = static_cast<int32_t>(f.ctx->pid[in.p[0]]); }
void numProgramsOp(const Instr& in, Frame& f) {
  *f.out<int32_t>(in.out[0], 1) = static_cast<int32_t>(f.ctx->launch->grid[in.p[0]]);
}

void makeRangeOp(const Instr& in, Frame& f) {
  int32_t* r = f.out<int32_t>(in.out[0], in.count);
  for (int64_t i = 0; i < in.count; ++i) r[i] = static_cast<int32_t>(in.p[0] + i);
}

void noOp(const Instr&, Frame&) {}

/// tl.extra.cuda.smid(): the interpreter is one SM. globaltimer(): a
/// monotonic clock in nanoseconds, as %globaltimer counts.
void smIdOp(const Instr& in, Frame& f) { *f.out<int32_t>(in.out[0], 1) = 0; }
void globalTimerOp(const Instr& in, Frame& f) {
  auto now = std::chrono::steady_clock::now().time_since_epoch();
  *f.out<int64_t>(in.out[0], 1) = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
}

template <class T> void catOp(const Instr& in, Frame& f) {
  Slot& a = f.slots[in.in[0]];
  Slot& b = f.slots[in.in[1]];
  T* r = f.out<T>(in.out[0], a.n + b.n);
  std::memcpy(r, a.data, a.n * sizeof(T));
  std::memcpy(r + a.n, b.data, b.n * sizeof(T));
}

template <class T> void joinOp(const Instr& in, Frame& f) {
  const T* a = f.slots[in.in[0]].as<T>();
  const T* b = f.slots[in.in[1]].as<T>();
  int64_t n = in.count / 2;
  T* r = f.out<T>(in.out[0], in.count);
  for (int64_t i = 0; i < n; ++i) {
    r[2 * i] = a[i];
    r[2 * i + 1] = b[i];
  }
}

template <class T> void splitOp(const Instr& in, Frame& f) {
  const T* a = f.slots[in.in[0]].as<T>();
  int64_t n = in.count;
  T* r0 = f.out<T>(in.out[0], n);
  T* r1 = f.out<T>(in.out[1], n);
  for (int64_t i = 0; i < n; ++i) {
    r0[i] = a[2 * i];
    r1[i] = a[2 * i + 1];
  }
}

/// in.v = index shape; p[0] = axis; p[1] = src extent along axis; v2 = src strides.
template <class T, class I> void gatherOp(const Instr& in, Frame& f) {
  const T* src = f.slots[in.in[0]].as<T>();
  const I* index = f.slots[in.in[1]].as<I>();
  T* r = f.out<T>(in.out[0], in.count);
  int rank = static_cast<int>(in.v.size());
  int axis = static_cast<int>(in.p[0]);
  std::vector<int64_t> idx(rank, 0);
  for (int64_t i = 0; i < in.count; ++i) {
    int64_t j = static_cast<int64_t>(index[i]);
    if (j < 0 || j >= in.p[1])
      runtimeError(in, f, "gather index out of bounds",
                   ": index " + std::to_string(j) + " for an axis of size " + std::to_string(in.p[1]));
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) off += (d == axis ? j : idx[d]) * in.v2[d];
    r[i] = src[off];
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < in.v[d]) break;
      idx[d] = 0;
    }
  }
}

template <class I> void histogramOp(const Instr& in, Frame& f) {
  Slot& s = f.slots[in.in[0]];
  const I* x = s.as<I>();
  const uint8_t* m = in.in.size() > 1 ? f.slots[in.in[1]].data : nullptr;
  int64_t bins = in.count;
  int32_t* r = f.out<int32_t>(in.out[0], bins);
  std::fill(r, r + bins, 0);
  for (int64_t i = 0; i < s.n; ++i) {
    if (m && !m[i]) continue;
    int64_t v = static_cast<int64_t>(x[i]);
    if (v >= 0 && v < bins) ++r[v];
  }
}

/// Sort keys decoded to a totally ordered double (NaN last), ints as int64.
template <class Key> void sortOp(const Instr& in, Frame& f) {
  int64_t n = in.count;
  int64_t row = in.p[0];
  bool descending = in.p[1] != 0;
  size_t numOps = in.in.size();
  for (size_t k = 0; k < numOps; ++k) copySlot(f, in.out[k], in.in[k], static_cast<int>(in.v[k]));
  std::vector<int64_t> perm(row);
  std::vector<uint8_t> tmp;
  auto key = reinterpret_cast<Key (*)(const uint8_t*, int64_t)>(const_cast<void*>(in.aux));
  const uint8_t* keys = f.slots[in.in[0]].data;
  for (int64_t start = 0; start < n; start += row) {
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      Key x = key(keys, start + a), y = key(keys, start + b);
      return descending ? y < x : x < y;
    });
    for (size_t k = 0; k < numOps; ++k) {
      int bytes = static_cast<int>(in.v[k]);
      const uint8_t* src = f.slots[in.in[k]].data + start * bytes;
      uint8_t* dst = f.slots[in.out[k]].data + start * bytes;
      for (int64_t i = 0; i < row; ++i) std::memcpy(dst + i * bytes, src + perm[i] * bytes, bytes);
    }
  }
}

template <class Cd> double floatKey(const uint8_t* data, int64_t i) {
  typename Cd::S s;
  std::memcpy(&s, data + i * sizeof(s), sizeof(s));
  double v = static_cast<double>(Cd::dec(s));
  return std::isnan(v) ? INFINITY : v;  // NaN sorts with +inf (Triton puts it last)
}
template <class T> double intKey(const uint8_t* data, int64_t i) {
  T v;
  std::memcpy(&v, data + i * sizeof(T), sizeof(T));
  return static_cast<double>(v);
}
int64_t int64Key(const uint8_t* data, int64_t i) {
  int64_t v;
  std::memcpy(&v, data + i * 8, 8);
  return v;
}

ExecFn pickStrided(int bytes) {
  return withBytes(bytes, []<class T>(T) -> ExecFn { return &stridedOp<T>; });
}

}  // namespace

bool buildTensorOp(ir::Operation* op, Instr& in, PlanBuilder& b) {
  int bytes = in.elemBytes;
  switch (op->code()) {
  case OpCode::GetProgramId:
  case OpCode::GetNumPrograms: {
    int64_t axis = op->intAttr("axis", 0);
    if (axis < 0 || axis > 2) planError(op, "program axis must be 0, 1 or 2");
    in.p[0] = axis;
    in.fn = op->is(OpCode::GetProgramId) ? &programIdOp : &numProgramsOp;
    return true;
  }
  case OpCode::MakeRange:
    in.p[0] = op->intAttr("start", 0);
    in.fn = &makeRangeOp;
    return true;
  case OpCode::Splat:
    if (bytes == 0) planError(op, "tt.splat of a block pointer");
    in.fn = withBytes(bytes, []<class T>(T) -> ExecFn { return &splatOp<T>; });
    return true;
  case OpCode::SmId: in.fn = &smIdOp; return true;
  case OpCode::GlobalTimer: in.fn = &globalTimerOp; return true;
  // One launch runs after the previous one has finished: nothing to wait for.
  case OpCode::GridDepWait:
  case OpCode::GridDepLaunchDependents:
  case OpCode::Assume:
  case OpCode::DebugBarrier:
  case OpCode::FenceAsyncGlobal: in.fn = &noOp; return true;
  case OpCode::ExpandDims:
  case OpCode::ConvertLayout:
  case OpCode::Reshape: in.fn = identityKernel(bytes); return true;
  case OpCode::Broadcast:
  case OpCode::Trans:
  case OpCode::Flip: {
    std::vector<int64_t> src = shapeOf(op->operand(0).type());
    std::vector<int64_t> dst = shapeOf(op->result(0).type());
    std::vector<int64_t> srcStrides = rowMajorStrides(src);
    in.v = dst;
    in.v2.assign(dst.size(), 0);
    if (op->is(OpCode::Broadcast)) {
      if (src.size() != dst.size()) planError(op, "tt.broadcast changes the rank");
      for (size_t d = 0; d < dst.size(); ++d) in.v2[d] = src[d] == dst[d] ? srcStrides[d] : 0;
    } else if (op->is(OpCode::Trans)) {
      std::vector<int64_t> order = op->intArrayAttr("order");
      if (order.size() != dst.size()) planError(op, "tt.trans: order does not match the rank");
      for (size_t d = 0; d < dst.size(); ++d) in.v2[d] = srcStrides[order[d]];
    } else {
      int64_t dim = op->intAttr("dim", 0);
      if (dim < 0) dim += static_cast<int64_t>(dst.size());
      in.v2 = srcStrides;
      if (dim >= 0 && dim < static_cast<int64_t>(dst.size())) {
        in.p[0] = (dst[dim] - 1) * srcStrides[dim];
        in.v2[dim] = -srcStrides[dim];
      }
    }
    in.fn = pickStrided(bytes);
    return true;
  }
  case OpCode::Cat: in.fn = withBytes(bytes, []<class T>(T) -> ExecFn { return &catOp<T>; }); return true;
  case OpCode::Join: in.fn = withBytes(bytes, []<class T>(T) -> ExecFn { return &joinOp<T>; }); return true;
  case OpCode::Split: in.fn = withBytes(bytes, []<class T>(T) -> ExecFn { return &splitOp<T>; }); return true;
  case OpCode::Gather: {
    std::vector<int64_t> src = shapeOf(op->operand(0).type());
    in.v = shapeOf(op->operand(1).type());
    int64_t axis = op->intAttr("axis", 0);
    if (axis < 0 || axis >= static_cast<int64_t>(src.size()) || src.size() != in.v.size())
      planError(op, "tt.gather: bad axis or ranks");
    in.p[0] = axis;
    in.p[1] = src[axis];
    in.v2 = rowMajorStrides(src);
    ir::Type it = op->operand(1).type();
    in.fn = withBytes(bytes, [&]<class T>(T) -> ExecFn {
      return withIntType(it, []<class I>(I) -> ExecFn { return &gatherOp<T, I>; });
    });
    return true;
  }
  case OpCode::Histogram:
    in.fn = withIntType(op->operand(0).type(), []<class I>(I) -> ExecFn { return &histogramOp<I>; });
    return true;
  case OpCode::Sort: {
    std::vector<int64_t> shape = shapeOf(op->operand(0).type());
    in.p[0] = shape.empty() ? 1 : shape.back();
    in.p[1] = op->boolAttr("descending");
    for (ir::Value v : op->operands()) in.v.push_back(storageBytes(v.type()));
    ir::Type kt = op->operand(0).type().elementType();
    if (kt.isFloat()) {
      in.aux = reinterpret_cast<const void*>(withFloatCodec(kt.kind(), []<class Cd>(Cd) {
        return &floatKey<Cd>;
      }));
      in.fn = &sortOp<double>;
    } else if (kt.isInteger(64) || kt.isPointer()) {
      in.aux = reinterpret_cast<const void*>(&int64Key);
      in.fn = &sortOp<int64_t>;
    } else if (kt.isInteger(1)) {
      in.aux = reinterpret_cast<const void*>(&intKey<uint8_t>);
      in.fn = &sortOp<double>;
    } else {
      in.aux = reinterpret_cast<const void*>(withIntType(kt, []<class T>(T) { return &intKey<T>; }));
      in.fn = &sortOp<double>;
    }
    return true;
  }
  default: return buildDot(op, in, b);
  }
}

}  // namespace tessera::interp
