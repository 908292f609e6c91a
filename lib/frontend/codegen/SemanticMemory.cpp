//===- SemanticMemory.cpp - Loads, stores, atomics, block pointers --------===//
//
// tl.load / tl.store in their three modes (scalar pointer, block of pointers,
// block pointer), the atomics, make_block_ptr/advance, and tensor
// descriptors (tl.make_tensor_descriptor, desc.load / desc.store): a
// descriptor is a compile-time record of its base, shape, strides and block
// shape; each load or store is a block pointer at the given offsets (order
// innermost dim first, every dim bounds-checked, padding as the
// descriptor says), so it runs wherever block pointers do. mask, other and
// stored values broadcast to the pointer's shape with Triton's strict rule:
// same rank (or a scalar), each dim equal or 1; the pointer itself never
// grows. Cache/eviction hints are validated and kept as attributes.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace tessera::frontend {

using ir::OpCode;

namespace {

/// Broadcasts `v` to the pointer's shape; `what` names v in messages.
Val toPointerShape(CodeGen& cg, const char* fn, const char* what, const Val& v, const Val& ptr) {
  if (!v.isBlock()) return cg.splat(v, ptr.shape);
  if (!ptr.isBlock())
    cg.fail(std::string(fn) + ": " + what + " has shape " + shapeToString(v.shape) + " but the pointer is a scalar");
  bool ok = v.shape.size() == ptr.shape.size();
  for (size_t k = 0; ok && k < v.shape.size(); ++k) ok = v.shape[k] == ptr.shape[k] || v.shape[k] == 1;
  if (!ok)
    cg.fail(std::string(fn) + ": " + what + " has shape " + shapeToString(v.shape) + " but pointer has shape " +
            shapeToString(ptr.shape));
  return cg.broadcastTo(v, ptr.shape);
}

Val maskArg(CodeGen& cg, const char* fn, const Val& mask, const Val& ptr) {
  Val m = cg.tensorArg(mask, "mask");
  if (!m.dtype.isInt1()) cg.fail(std::string(fn) + ": mask must be a boolean tensor (int1), got " + m.dtype.name());
  return toPointerShape(cg, fn, "mask", m, ptr);
}

Val pointerArg(CodeGen& cg, const char* fn, const Val& ptr) {
  if (!ptr.isTensor() || !ptr.dtype.isPtr())
    cg.fail(std::string(fn) + ": expected a pointer or a block of pointers, got " + ptr.typeName());
  return ptr;
}

std::vector<int64_t> boundaryCheckDims(CodeGen& cg, const char* fn, const Val& bc, size_t rank) {
  std::vector<int64_t> dims = bc.isNone() ? std::vector<int64_t>{} : cg.constIntList(bc, "boundary_check");
  for (int64_t d : dims)
    if (d < 0 || d >= static_cast<int64_t>(rank))
      cg.fail(std::string(fn) + ": boundary_check dimension " + std::to_string(d) + " is out of range for a block of rank " +
              std::to_string(rank));
  return dims;
}

void setHints(CodeGen& cg, ir::AttrMap& attrs, const char* fn, const std::string& cache, const std::string& evict,
              bool isLoad) {
  static const char* loadCache[] = {"", ".ca", ".cg", ".cv"};
  static const char* storeCache[] = {"", ".wb", ".cg", ".cs", ".wt"};
  bool ok = false;
  if (isLoad) for (const char* c : loadCache) ok |= cache == c;
  else for (const char* c : storeCache) ok |= cache == c;
  if (!ok) cg.fail(std::string(fn) + ": unsupported cache modifier '" + cache + "'");
  if (evict != "" && evict != "evict_first" && evict != "evict_last" && evict != "evict_normal")
    cg.fail(std::string(fn) + ": unsupported eviction policy '" + evict + "'");
  if (!cache.empty()) attrs["cache"] = cache;
  if (!evict.empty()) attrs["evict"] = evict;
}

}  // namespace

Val CodeGen::load(const Val& ptr0, const Val& mask0, const Val& other, const Val& boundaryCheck,
                  const std::string& padding, const std::string& cache, const std::string& evict, bool isVolatile,
                  const ir::AttrMap& extra) {
  const char* fn = "tl.load";
  Val mask = branchMasked(mask0);
  Val ptr = pointerArg(*this, fn, ptr0);
  ir::AttrMap attrs = extra;
  setHints(*this, attrs, fn, cache, evict, true);
  if (isVolatile) attrs["volatile"] = true;
  if (ptr.dtype.isBlockPtr()) {
    if (!mask.isNone() || !other.isNone())
      fail("tl.load: `mask` and `other` cannot be used with block pointers; use boundary_check and padding_option");
    const DType& elem = ptr.dtype.pointee();
    if (padding != "" && padding != "zero" && padding != "nan")
      fail("tl.load: padding_option must be '', 'zero' or 'nan', got '" + padding + "'");
    if (padding == "nan" && !elem.isFloat()) fail("tl.load: padding_option 'nan' is only supported for floating-point data");
    auto dims = boundaryCheckDims(*this, fn, boundaryCheck, ptr.dtype.blockShape().size());
    if (!dims.empty()) attrs["boundary_check"] = dims;
    if (!padding.empty()) attrs["padding"] = padding;
    return make(OpCode::Load, elem, ptr.dtype.blockShape(), {ptr.value}, std::move(attrs));
  }
  if (!padding.empty()) fail("tl.load: padding_option is only supported for block pointers");
  if (!boundaryCheck.isNone() && !(boundaryCheck.isTuple() && boundaryCheck.elems.empty()))
    fail("tl.load: boundary_check is only supported for block pointers");
  if (mask.isNone() && !other.isNone()) fail("tl.load: `other` cannot be provided without `mask`");
  DType elem = ptr.dtype.pointee();
  if (elem.isPtr() && elem.isBlockPtr()) fail("tl.load: unsupported pointee type " + elem.name());
  // Like Triton, int1 data is loaded through an int8 pointer (`other` cast
  // to int8) and then compared with 0.
  bool isBool = elem.isInt1();
  if (isBool) {
    elem = ScalarKind::I8;
    ptr = cast(ptr, DType::pointer(elem, ptr.dtype.isConstPtr(), ptr.dtype.addressSpace()));
  }
  std::vector<ir::Value> operands = {ptr.value};
  if (!mask.isNone()) {
    operands.push_back(maskArg(*this, fn, mask, ptr).value);
    if (!other.isNone()) {
      Val o = cast(tensorArg(other, "other"), elem);
      operands.push_back(toPointerShape(*this, fn, "other", o, ptr).value);
    }
  }
  Val loaded = make(OpCode::Load, elem, ptr.shape, operands, std::move(attrs));
  return isBool ? cast(loaded, ScalarKind::I1) : loaded;
}

void CodeGen::store(const Val& ptr0, const Val& value, const Val& mask0, const Val& boundaryCheck,
                    const std::string& cache, const std::string& evict, const ir::AttrMap& extra) {
  const char* fn = "tl.store";
  Val mask = branchMasked(mask0);
  Val ptr = pointerArg(*this, fn, ptr0);
  if (ptr.dtype.isConstPtr()) fail("tl.store: cannot store to a constant pointer");
  ir::AttrMap attrs = extra;
  setHints(*this, attrs, fn, cache, evict, false);
  Val v = tensorArg(value, "the stored value");
  if (ptr.dtype.isBlockPtr()) {
    if (!mask.isNone()) fail("tl.store: `mask` cannot be used with block pointers; use boundary_check");
    const auto& shape = ptr.dtype.blockShape();
    if (v.isBlock() && v.shape != shape)
      fail("tl.store: value has shape " + shapeToString(v.shape) + " but the block pointer has shape " + shapeToString(shape));
    v = cast(v, ptr.dtype.pointee());
    if (!v.isBlock()) v = splat(v, shape);
    auto dims = boundaryCheckDims(*this, fn, boundaryCheck, shape.size());
    if (!dims.empty()) attrs["boundary_check"] = dims;
    b_.create(OpCode::Store, {}, {ptr.value, v.value}, std::move(attrs));
    return;
  }
  if (!boundaryCheck.isNone() && !(boundaryCheck.isTuple() && boundaryCheck.elems.empty()))
    fail("tl.store: boundary_check is only supported for block pointers");
  // Like Triton, int1 data is stored through an int8 pointer: the value is
  // cast to int8 (an int32 5 stores the byte 5, a float 0.5 the byte 0).
  if (ptr.dtype.pointee().isInt1())
    ptr = cast(ptr, DType::pointer(ScalarKind::I8, false, ptr.dtype.addressSpace()));
  v = toPointerShape(*this, fn, "value", cast(v, ptr.dtype.pointee()), ptr);
  std::vector<ir::Value> operands = {ptr.value, v.value};
  if (!mask.isNone()) operands.push_back(maskArg(*this, fn, mask, ptr).value);
  b_.create(OpCode::Store, {}, operands, std::move(attrs));
}

static void checkSemScope(CodeGen& cg, const std::string& fn, const std::string& sem, const std::string& scope) {
  if (sem != "acquire" && sem != "release" && sem != "acq_rel" && sem != "relaxed")
    cg.fail(fn + ": sem must be 'acquire', 'release', 'acq_rel' or 'relaxed', got '" + sem + "'");
  if (scope != "gpu" && scope != "cta" && scope != "sys")
    cg.fail(fn + ": scope must be 'gpu', 'cta' or 'sys', got '" + scope + "'");
}

/// The attributes of an atomic load or store: `sem` among `allowed` (the
/// first is the default), `scope` gpu (default), cta or sys; volatile, so
/// that no pass caches, pipelines or turns it into a TMA copy.
static ir::AttrMap memoryOrder(CodeGen& cg, const char* fn, const Val& ptr, const std::string& sem0,
                               const std::string& scope0, const char* const (&allowed)[2]) {
  if (ptr.dtype.isBlockPtr()) cg.fail(std::string(fn) + ": block pointers are not supported");
  const DType& elem = ptr.dtype.pointee();
  if (elem.isInt1() || elem.isPtr() || elem.bitwidth() < 8)
    cg.fail(std::string(fn) + ": unsupported element type " + elem.name());
  std::string sem = sem0.empty() ? allowed[0] : sem0, scope = scope0.empty() ? "gpu" : scope0;
  if (sem != allowed[0] && sem != allowed[1])
    cg.fail(std::string(fn) + ": sem must be '" + allowed[0] + "' or '" + allowed[1] + "', got '" + sem + "'");
  if (scope != "gpu" && scope != "cta" && scope != "sys")
    cg.fail(std::string(fn) + ": scope must be 'gpu', 'cta' or 'sys', got '" + scope + "'");
  ir::AttrMap attrs;
  attrs["sem"] = sem;
  attrs["scope"] = scope;
  attrs["volatile"] = true;
  return attrs;
}

Val CodeGen::atomicLoad(const Val& ptr0, const Val& mask, const std::string& sem, const std::string& scope) {
  static const char* const kSems[2] = {"acquire", "relaxed"};
  Val ptr = pointerArg(*this, "tl.atomic_load", ptr0);
  return load(ptr, mask, Val::none(), Val::tuple({}), "", "", "", false,
              memoryOrder(*this, "tl.atomic_load", ptr, sem, scope, kSems));
}

void CodeGen::atomicStore(const Val& ptr0, const Val& value, const Val& mask, const std::string& sem,
                          const std::string& scope) {
  static const char* const kSems[2] = {"release", "relaxed"};
  Val ptr = pointerArg(*this, "tl.atomic_store", ptr0);
  if (ptr.dtype.isConstPtr()) fail("tl.atomic_store: cannot store to a constant pointer");
  store(ptr, value, mask, Val::tuple({}), "", "", memoryOrder(*this, "tl.atomic_store", ptr, sem, scope, kSems));
}

Val CodeGen::atomicRMW(const std::string& op, const Val& ptr0, const Val& val, const Val& mask0,
                       const std::string& sem0, const std::string& scope0) {
  std::string fn = "tl.atomic_" + op;
  Val mask = branchMasked(mask0);
  Val ptr = pointerArg(*this, fn.c_str(), ptr0);
  if (ptr.dtype.isBlockPtr()) fail(fn + ": block pointers are not supported");
  if (ptr.dtype.isConstPtr()) fail(fn + ": cannot modify memory through a constant pointer");
  std::string sem = sem0.empty() ? "acq_rel" : sem0, scope = scope0.empty() ? "gpu" : scope0;
  checkSemScope(*this, fn, sem, scope);
  DType elem = ptr.dtype.pointee();
  unsigned w = elem.bitwidth();
  bool intOk = elem.isInt() && !elem.isInt1() && (w == 32 || w == 64);
  bool ok = false;
  std::string kind;
  if (op == "add") {
    ok = intOk || elem.isFP16() || elem.isBF16() || elem.isFP32() || elem.isFP64();
    kind = elem.isFloat() ? "fadd" : "add";
  } else if (op == "max" || op == "min") {
    ok = intOk || elem.isFP32() || elem.isFP64();
    kind = elem.isFloat() ? "f" + op : elem.isSigned() ? op : "u" + op;
  } else if (op == "and" || op == "or" || op == "xor") {
    ok = intOk;
    kind = op;
  } else if (op == "xchg") {
    ok = intOk || elem.isFP32() || elem.isFP64();
    kind = op;
  }
  if (!ok) fail(fn + " does not support " + elem.name());
  Val v = toPointerShape(*this, fn.c_str(), "val", cast(tensorArg(val, "val"), elem), ptr);
  std::vector<ir::Value> operands = {ptr.value, v.value};
  if (!mask.isNone()) operands.push_back(maskArg(*this, fn.c_str(), mask, ptr).value);
  return make(OpCode::AtomicRMW, elem, ptr.shape, operands,
              {{"kind", kind}, {"sem", sem}, {"scope", scope}});
}

Val CodeGen::atomicCAS(const Val& ptr0, const Val& cmpv, const Val& val, const std::string& sem0,
                       const std::string& scope0) {
  const char* fn = "tl.atomic_cas";
  if (depth() && frame().branchMask) fail("tl.atomic_cas (which has no mask) cannot be used in a per-element branch of tl.map_elementwise");
  Val ptr = pointerArg(*this, fn, ptr0);
  if (ptr.dtype.isBlockPtr()) fail("tl.atomic_cas: block pointers are not supported");
  if (ptr.dtype.isConstPtr()) fail("tl.atomic_cas: cannot modify memory through a constant pointer");
  std::string sem = sem0.empty() ? "acq_rel" : sem0, scope = scope0.empty() ? "gpu" : scope0;
  checkSemScope(*this, fn, sem, scope);
  DType elem = ptr.dtype.pointee();
  unsigned w = elem.bitwidth();
  if (elem.isInt1() || (w != 16 && w != 32 && w != 64) || elem.isPtr())
    fail("tl.atomic_cas does not support " + elem.name());
  Val c = toPointerShape(*this, fn, "cmp", cast(tensorArg(cmpv, "cmp"), elem), ptr);
  Val v = toPointerShape(*this, fn, "val", cast(tensorArg(val, "val"), elem), ptr);
  return make(OpCode::AtomicCAS, elem, ptr.shape, {ptr.value, c.value, v.value}, {{"sem", sem}, {"scope", scope}});
}

Val CodeGen::makeBlockPtr(const Val& base, const Val& shape, const Val& strides, const Val& offsets,
                          const Val& blockShape, const Val& order, bool descriptor) {
  const char* fn = "tl.make_block_ptr";
  if (!base.isTensor() || !base.dtype.isPtr() || base.isBlock() || base.dtype.isBlockPtr())
    fail(std::string(fn) + ": base must be a scalar pointer, got " + base.typeName());
  auto list = [&](const Val& v, const char* what) {
    if (!v.isTuple()) fail(std::string(fn) + ": " + what + " must be a tuple or list");
    return v.elems;
  };
  auto sh = list(shape, "shape"), st = list(strides, "strides"), of = list(offsets, "offsets");
  auto bs = constIntList(blockShape, "block_shape");
  auto ord = constIntList(order, "order");
  size_t r = bs.size();
  if (sh.size() != r || st.size() != r || of.size() != r || ord.size() != r)
    fail(std::string(fn) + ": shape, strides, offsets, block_shape and order must have the same length");
  checkShape(bs, fn);
  std::vector<bool> seen(r, false);
  for (int64_t o : ord) {
    if (o < 0 || o >= static_cast<int64_t>(r) || seen[o]) fail(std::string(fn) + ": order must be a permutation of 0.." + std::to_string(r - 1));
    seen[o] = true;
  }
  std::vector<ir::Value> operands = {base.value};
  for (const auto& x : sh) operands.push_back(cast(tensorArg(x, "shape"), ScalarKind::I64).value);
  for (const auto& x : st) operands.push_back(cast(tensorArg(x, "strides"), ScalarKind::I64).value);
  for (const auto& x : of) {
    Val t = tensorArg(x, "offsets");
    if (t.dtype.bitwidth() > 32 && t.dtype.isInt() && x.isTensor())
      fail(std::string(fn) + ": offsets must be 32-bit integers, got " + t.dtype.name());
    operands.push_back(cast(t, ScalarKind::I32).value);
  }
  DType t = DType::blockPointer(base.dtype.pointee(), bs);
  ir::AttrMap attrs = {{"order", ord}};
  if (descriptor) attrs["descriptor"] = true;
  return make(OpCode::MakeTensorPtr, t, {}, operands, attrs);
}

Val CodeGen::makeTensorDescriptor(const Val& base, const Val& shape, const Val& strides, const Val& blockShape,
                                  const std::string& padding) {
  const char* fn = "tl.make_tensor_descriptor";
  if (!base.isTensor() || !base.dtype.isPtr() || base.isBlock() || base.dtype.isBlockPtr())
    fail(std::string(fn) + ": base must be a scalar pointer, got " + base.typeName());
  if (!shape.isTuple() || !strides.isTuple()) fail(std::string(fn) + ": shape and strides must be tuples or lists");
  auto bs = constIntList(blockShape, "block_shape");
  size_t r = bs.size();
  if (r < 1 || r > 5) fail(std::string(fn) + ": block_shape must have 1 to 5 dims, got " + std::to_string(r));
  if (shape.elems.size() != r || strides.elems.size() != r)
    fail(std::string(fn) + ": shape, strides and block_shape must have the same length");
  checkShape(bs, fn);
  int64_t lastBytes = bs.back() * std::max(1u, base.dtype.pointee().bitwidth() / 8);
  if (lastBytes < 16)
    fail(std::string(fn) + ": the last block dim must span at least 16 bytes, got " + std::to_string(bs.back()) +
         " x " + base.dtype.pointee().name() + " = " + std::to_string(lastBytes) + " bytes");
  const Val& last = strides.elems.back();
  if (last.isConstexpr() && !(last.kind == Val::Kind::Int && last.i == BigInt(1)))
    fail(std::string(fn) + ": the last stride must be 1, got " + last.repr());
  if (padding != "zero" && padding != "nan")
    fail(std::string(fn) + ": padding_option must be 'zero' or 'nan', got '" + padding + "'");
  if (padding == "nan" && !base.dtype.pointee().isFloat())
    fail(std::string(fn) + ": padding_option 'nan' is only supported for floating-point data");
  Val d;
  d.kind = Val::Kind::TensorDesc;
  d.dtype = base.dtype.pointee();
  d.shape = bs;
  std::vector<Val> sh, st;
  for (const Val& x : shape.elems) sh.push_back(cast(tensorArg(x, "shape"), ScalarKind::I64));
  for (const Val& x : strides.elems) st.push_back(cast(tensorArg(x, "strides"), ScalarKind::I64));
  d.elems = {base, Val::tuple(std::move(sh)), Val::tuple(std::move(st))};
  d.s = padding;
  return d;
}

namespace {

/// The block pointer of `desc` at `offsets`, innermost dim first.
Val descriptorBlock(CodeGen& cg, const char* fn, const Val& desc, const Val& offsets) {
  if (!desc.isTensorDesc()) cg.fail(std::string(fn) + ": expected a tensor descriptor, got " + desc.typeName());
  size_t r = desc.shape.size();
  if (!offsets.isTuple() || offsets.elems.size() != r)
    cg.fail(std::string(fn) + ": expected " + std::to_string(r) + " offsets (one per dim of the block), got " +
            (offsets.isTuple() ? std::to_string(offsets.elems.size()) : offsets.typeName()));
  std::vector<Val> order, block;
  for (size_t k = 0; k < r; ++k) {
    order.push_back(Val::integer(BigInt(static_cast<int64_t>(r - 1 - k))));
    block.push_back(Val::integer(BigInt(desc.shape[k])));
  }
  return cg.makeBlockPtr(desc.elems[0], desc.elems[1], desc.elems[2], offsets, Val::tuple(std::move(block)),
                         Val::tuple(std::move(order)), /*descriptor=*/true);
}

Val allDims(size_t r) {
  std::vector<Val> dims;
  for (size_t k = 0; k < r; ++k) dims.push_back(Val::integer(BigInt(static_cast<int64_t>(k))));
  return Val::tuple(std::move(dims));
}

}  // namespace

Val CodeGen::loadTensorDescriptor(const Val& desc, const Val& offsets) {
  Val block = descriptorBlock(*this, "tl.load_tensor_descriptor", desc, offsets);
  size_t tf32 = desc.s.find(kRoundTf32);
  Val v = load(block, Val::none(), Val::none(), allDims(desc.shape.size()), desc.s.substr(0, tf32), "", "", false);
  if (tf32 == std::string::npos) return v;
  // round_f32_to_tf32: what TMA's tf32 loads give, in registers (tl_prelude.py).
  const SourceProgram& p = preludeProgram();
  return callJit(FuncRef{&p, p.find("_round_f32_to_tf32")}, {v}, {});
}

void CodeGen::storeTensorDescriptor(const Val& desc, const Val& offsets, const Val& value) {
  Val block = descriptorBlock(*this, "tl.store_tensor_descriptor", desc, offsets);
  store(block, value, Val::none(), allDims(desc.shape.size()), "", "");
}

Val CodeGen::advance(const Val& ptr, const Val& offsets) {
  if (!ptr.isTensor() || !ptr.dtype.isBlockPtr()) fail("tl.advance: expected a block pointer, got " + ptr.typeName());
  if (!offsets.isTuple() || offsets.elems.size() != ptr.dtype.blockShape().size())
    fail("tl.advance: expected " + std::to_string(ptr.dtype.blockShape().size()) + " offsets");
  std::vector<ir::Value> operands = {ptr.value};
  for (const auto& x : offsets.elems) operands.push_back(cast(tensorArg(x, "offsets"), ScalarKind::I32).value);
  return make(OpCode::Advance, ptr.dtype, {}, operands);
}

}  // namespace tessera::frontend
