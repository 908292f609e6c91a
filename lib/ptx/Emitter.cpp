//===- Emitter.cpp - Kernel structure, registers, control flow ------------===//
//
// The frame of the PTX module (header, entry signature, register
// declarations, dynamic shared memory), the value -> registers map, the
// prologue (thread ids and constants hoisted to the entry), op dispatch to
// the family files, and structured control flow (scf.for/if/while lowered to
// branches; loop-carried values live in registers updated by the yield).
//
//===----------------------------------------------------------------------===//

#include "ptx/Emitter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "tessera/Error.h"
#include "tessera/ir/OpViews.h"

// emitOp's switch names every opcode: a new op is a build error until it
// has a lowering.
#pragma GCC diagnostic error "-Wswitch"

namespace tessera::ptx {

using namespace ir;

Emitter::Emitter(Operation* func, const gpu::GpuOptions& options)
    : func_(func),
      options_(options),
      axis_(std::make_unique<gpu::AxisInfoAnalysis>(func)) {
  if (!func->hasAttr("shared_buffers_bytes"))
    fail(func, "the kernel has no shared-memory plan (run the allocate-shared-memory pass before emitting PTX)");
  buffersBytes_ = func->intAttr("shared_buffers_bytes");
}

Emitter::~Emitter() = default;

void Emitter::needScratch(int64_t bytes) {
  scratchBytes_ = std::max(scratchBytes_, bytes);
  // Past the buffers live at this op (allocate-shared-memory); a reduce or
  // scan may be emitting its combiner's ops when it needs scratch.
  Operation* owner = currentOp_;
  while (owner && owner != func_ && !gpu::usesSharedScratch(owner)) owner = owner->parentOp();
  if (!owner || owner == func_)
    fail(currentOp_ ? currentOp_ : func_, "internal error: shared scratch in an op gpu::usesSharedScratch leaves out");
  scratchAt_ = std::max(scratchAt_, owner->intAttr("scratch_offset", 0));
}

std::string Emitter::localBuffer(Operation* alloc) {
  std::string r = reg(RegClass::B32);
  if (!alloc->hasAttr("offset")) fail(alloc, "ttg.local_alloc has no offset (run allocate-shared-memory)");
  prologue("add.u32 " + r + ", " + sharedBase() + ", " + std::to_string(alloc->intAttr("offset")));
  return r;
}

std::string Emitter::sharedBase() {
  if (sharedBase_.empty()) {
    sharedBase_ = reg(RegClass::B32);
    prologue("mov.u32 " + sharedBase_ + ", global_smem");
  }
  return sharedBase_;
}

//===----------------------------------------------------------------------===//
// Registers and text
//===----------------------------------------------------------------------===//

RegClass Emitter::regClass(Type t) {
  if (t.isPointer()) return RegClass::B64;
  if (t.isInteger(1)) return RegClass::Pred;
  unsigned bits = t.bitWidth();
  if (bits <= 16) return RegClass::B16;
  if (bits == 32) return RegClass::B32;
  return RegClass::B64;
}

std::string Emitter::reg(RegClass c) {
  static const char* kPrefix[4] = {"%p", "%h", "%r", "%rd"};
  int i = static_cast<int>(c);
  return kPrefix[i] + std::to_string(++counters_[i]);
}

void Emitter::ins(const std::string& text) {
  body_ += '\t';
  body_ += text;
  body_ += ";\n";
}

void Emitter::raw(const std::string& text) {
  wgmmaDrained_ = false;  // a label: other paths join here
  body_ += text;
  body_ += '\n';
}

void Emitter::prologue(const std::string& text) {
  prologue_ += '\t';
  prologue_ += text;
  prologue_ += ";\n";
}

std::string Emitter::newLabel(const std::string& hint) { return "$L_" + hint + "_" + std::to_string(++labels_); }

static std::string hexBits(uint64_t bits, int hexDigits) {
  static const char* kHex = "0123456789ABCDEF";
  std::string s(hexDigits, '0');
  for (int i = hexDigits - 1; i >= 0; --i, bits >>= 4) s[i] = kHex[bits & 15];
  return s;
}

std::string Emitter::constInt(Type t, int64_t value) {
  RegClass c = regClass(t);
  if (c == RegClass::Pred) return constPred(value != 0);
  std::string key = "i" + std::to_string(static_cast<int>(c)) + ":" + std::to_string(value);
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second;
  std::string r = reg(c);
  const char* type = c == RegClass::B16 ? "b16" : c == RegClass::B32 ? "b32" : "b64";
  uint64_t bits = static_cast<uint64_t>(value);
  if (c == RegClass::B16) bits &= 0xFFFF;
  if (c == RegClass::B32) bits &= 0xFFFFFFFFu;
  prologue(std::string("mov.") + type + " " + r + ", 0x" + hexBits(bits, c == RegClass::B64 ? 16 : c == RegClass::B32 ? 8 : 4));
  constants_[key] = r;
  return r;
}

/// Bits of `value` in the float format of `t` (round to nearest even).
uint64_t floatBits(Type t, double value);

std::string Emitter::constFloat(Type t, double value) {
  uint64_t bits = floatBits(t, value);
  std::string key = "f" + std::to_string(t.bitWidth()) + ":" + std::to_string(bits);
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second;
  RegClass c = regClass(t);
  std::string r = reg(c);
  if (c == RegClass::B64)
    prologue("mov.b64 " + r + ", 0x" + hexBits(bits, 16));
  else if (c == RegClass::B32)
    prologue("mov.b32 " + r + ", 0x" + hexBits(bits, 8));
  else
    prologue("mov.b16 " + r + ", 0x" + hexBits(bits & 0xFFFF, 4));
  constants_[key] = r;
  return r;
}

std::string Emitter::constPred(bool value) {
  std::string key = value ? "p:1" : "p:0";
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second;
  std::string r = reg(RegClass::Pred);
  std::string one = constInt(Type::i32(), 1);
  prologue(std::string("setp.") + (value ? "ne" : "eq") + ".u32 " + r + ", " + one + ", 0");
  constants_[key] = r;
  return r;
}

//===----------------------------------------------------------------------===//
// Values and layouts
//===----------------------------------------------------------------------===//

void Emitter::bindDeferred(Value v, Regs r, std::function<void()> materialize) {
  bind(v, std::move(r));
  deferred_[v.impl()] = std::move(materialize);
}

void Emitter::flushDeferred() {
  auto pending = std::move(deferred_);
  deferred_.clear();
  for (auto& [value, materialize] : pending) materialize();
}

const Regs& Emitter::regs(Value v) {
  if (auto d = deferred_.find(v.impl()); d != deferred_.end()) {
    std::function<void()> materialize = std::move(d->second);
    deferred_.erase(d);
    materialize();
  }
  auto it = values_.find(v.impl());
  if (it == values_.end()) {
    Operation* def = v.definingOp();
    fail(def ? def : func_, "internal error: value used before the backend emitted it");
  }
  return it->second;
}

void Emitter::bind(Value v, Regs r) { values_[v.impl()] = std::move(r); }

Regs& Emitter::bindSlots(Value v, size_t n) {
  Regs& slots = values_[v.impl()];
  slots.assign(n, std::string());
  return slots;
}

const std::string& Emitter::at(Value v, size_t i) {
  const Regs& r = regs(v);
  return r.size() == 1 ? r[0] : r[i];
}

const gpu::LinearLayout& Emitter::layout(Type t) {
  auto it = layouts_.find(t.impl());
  if (it != layouts_.end()) return it->second;
  if (!t.encoding()) throw Error("internal error: tensor " + t.str() + " has no layout in the GPU backend");
  return layouts_.emplace(t.impl(), gpu::toLinearLayout(t.shape(), t.encoding())).first->second;
}

int64_t Emitter::numRegs(Type t) { return t.isTensor() ? layout(t).inDimSize(HwDim::Register) : 1; }

std::string Emitter::threadId() {
  if (tid_.empty()) {
    tid_ = reg(RegClass::B32);
    prologue("mov.u32 " + tid_ + ", %tid.x");
  }
  return tid_;
}

std::string Emitter::threadBitsZero(int64_t laneMask, int64_t warpMask) {
  std::string m = reg(RegClass::B32), p = reg(RegClass::Pred);
  ins("and.b32 " + m + ", " + threadId() + ", " + std::to_string((laneMask & 31) | (warpMask << 5)));
  ins("setp.eq.u32 " + p + ", " + m + ", 0");
  return p;
}

std::string Emitter::laneId() {
  if (laneId_.empty()) {
    laneId_ = reg(RegClass::B32);
    warpId_ = reg(RegClass::B32);
    prologue("and.b32 " + laneId_ + ", " + threadId() + ", 31");
    prologue("shr.u32 " + warpId_ + ", " + threadId() + ", 5");
  }
  return laneId_;
}

std::string Emitter::warpId() {
  laneId();
  return warpId_;
}

namespace {

/// One term of a thread coordinate: thread-id bits [first, first + count)
/// land on the coordinate bits starting at log2(value) when `run`, else the
/// single bit `first` contributes `value` (a basis vector with several bits).
struct CoordTerm {
  int first = 0;
  int count = 1;
  int64_t value = 0;
  bool run = true;
};

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int log2Exact(int64_t v) {
  int k = 0;
  while ((int64_t{1} << k) < v) ++k;
  return k;
}

}  // namespace

std::string Emitter::threadCoord(const gpu::LinearLayout& ll, int dim) {
  std::string key = ll.str() + "#" + std::to_string(dim);
  auto it = threadCoords_.find(key);
  if (it != threadCoords_.end()) return it->second;
  std::string coord = threadLinear(ll, [dim](const std::vector<int64_t>& basis) { return basis[dim]; }, true);
  threadCoords_[key] = coord;
  return coord;
}

std::string Emitter::threadLinear(const gpu::LinearLayout& ll,
                                  const std::function<int64_t(const std::vector<int64_t>&)>& value,
                                  bool inPrologue) {
  auto emit = [&](const std::string& text) { inPrologue ? prologue(text) : ins(text); };
  // Lane bit b is bit b of %tid.x and warp bit b is bit 5 + b, so the bases
  // of both read as one list over the thread id. Blocked layouts map runs of
  // consecutive thread-id bits to consecutive bits of the result: each run
  // is one shift and one mask (Triton's `(tid << 2) & 508`), not a bit
  // extract and a multiply per bit.
  std::vector<CoordTerm> terms;
  for (HwDim d : {HwDim::Lane, HwDim::Warp}) {
    const auto& bases = ll.bases(d);
    for (size_t b = 0; b < bases.size(); ++b) {
      int64_t v = value(bases[b]);
      if (v == 0) continue;
      int bit = static_cast<int>(b) + (d == HwDim::Warp ? 5 : 0);
      CoordTerm* last = terms.empty() ? nullptr : &terms.back();
      if (isPowerOfTwo(v) && last && last->run && last->first + last->count == bit &&
          v == last->value << last->count) {
        ++last->count;
        continue;
      }
      terms.push_back({bit, 1, v, isPowerOfTwo(v)});
    }
  }
  int64_t bits = 0, overlap = 0;
  for (const CoordTerm& t : terms) {
    int64_t covers = t.run ? ((int64_t{1} << t.count) - 1) * t.value : t.value;
    overlap |= bits & covers;
    bits |= covers;
  }
  // A function of the warp bits alone (a warpgroup's offset into a wgmma
  // operand) reads the warp index ptxas knows is uniform, so it stays in
  // uniform registers instead of being moved there before every use.
  bool warpOnly = !terms.empty() && std::all_of(terms.begin(), terms.end(), [](const CoordTerm& t) { return t.first >= 5; });
  std::string source = warpOnly ? uniformWarpId() : threadId();
  int sourceBit = warpOnly ? 5 : 0;  // the thread-id bit of the source's bit 0
  std::string acc;
  for (const CoordTerm& t : terms) {
    std::string term = reg(RegClass::B32);
    int first = t.first - sourceBit;
    if (t.run) {
      int shift = log2Exact(t.value) - first;
      int64_t mask = ((int64_t{1} << t.count) - 1) * t.value;
      std::string shifted = source;
      if (shift != 0) {
        shifted = reg(RegClass::B32);
        emit(std::string(shift > 0 ? "shl.b32 " : "shr.u32 ") + shifted + ", " + source + ", " +
             std::to_string(shift > 0 ? shift : -shift));
      }
      emit("and.b32 " + term + ", " + shifted + ", " + std::to_string(mask));
    } else {
      std::string bit = reg(RegClass::B32);
      emit("bfe.u32 " + bit + ", " + source + ", " + std::to_string(first) + ", 1");
      emit("mul.lo.u32 " + term + ", " + bit + ", " + std::to_string(t.value));
    }
    if (acc.empty()) {
      acc = term;
      continue;
    }
    // Disjoint terms combine with OR (ptxas merges it into LOP3s and address
    // arithmetic); overlapping bits of a GF(2) layout need XOR.
    std::string next = reg(RegClass::B32);
    emit(std::string(overlap ? "xor.b32 " : "or.b32 ") + next + ", " + acc + ", " + term);
    acc = next;
  }
  if (acc.empty()) acc = constInt(Type::i32(), 0);
  noteBits(acc, bits);
  return acc;
}

std::string Emitter::xorConst(const std::string& r, int64_t c) {
  if (c == 0) return r;
  auto it = knownBits_.find(r);
  bool disjoint = it != knownBits_.end() && (it->second & c) == 0;
  std::string d = reg(RegClass::B32);
  ins(std::string(disjoint ? "add.s32 " : "xor.b32 ") + d + ", " + r + ", " + std::to_string(c));
  return d;
}

std::vector<int64_t> Emitter::registerCoords(const gpu::LinearLayout& ll, int64_t i) {
  return ll.apply(HwDim::Register, i);
}

std::string Emitter::smemBase() {
  if (smemBase_.empty()) {
    smemBase_ = reg(RegClass::B32);
    // The offset is known once every op has said where it needs scratch.
    prologue("add.u32 " + smemBase_ + ", " + sharedBase() + ", " + kScratchOffset);
  }
  return smemBase_;
}

std::string Emitter::isThreadZero() {
  if (inProducer_) return producerElected_;
  if (threadZero_.empty()) {
    threadZero_ = reg(RegClass::Pred);
    if (options_.target.capability < 90) {
      prologue("setp.eq.u32 " + threadZero_ + ", " + threadId() + ", 0");
    } else {
      std::string warp0 = reg(RegClass::Pred);
      prologue("setp.lt.u32 " + warp0 + ", " + threadId() + ", 32");
      prologue("and.pred " + threadZero_ + ", " + warp0 + ", " + electedLane());
    }
  }
  return threadZero_;
}

// Both in the prologue, which every thread of the CTA runs: the .sync
// instructions may name the whole warp.
std::string Emitter::uniformWarpId() {
  if (uniformWarp_.empty()) {
    std::string w = reg(RegClass::B32);
    uniformWarp_ = reg(RegClass::B32);
    prologue("shr.u32 " + w + ", " + threadId() + ", 5");
    prologue("shfl.sync.idx.b32 " + uniformWarp_ + ", " + w + ", 0, 31, -1");
  }
  return uniformWarp_;
}

std::string Emitter::electedLane() {
  if (electedLane_.empty()) {
    electedLane_ = reg(RegClass::Pred);
    prologue("elect.sync _|" + electedLane_ + ", -1");
  }
  return electedLane_;
}

int Emitter::paramIndex(Value v) {
  Block& entry = funcBody(func_);
  if (v.definingOp() || v.parentBlock() != &entry) return -1;
  return static_cast<int>(v.index());
}

int64_t Emitter::paramDivisibility(int param) {
  std::string name = "arg" + std::to_string(param) + ".divisibility";
  return func_->hasAttr(name) ? func_->intAttr(name) : 1;
}

std::string Emitter::hostTensorMapAddress(int k, const gpu::HostTensorMap& map) {
  if (static_cast<size_t>(k) >= tensorMaps_.size()) tensorMaps_.resize(k + 1);
  if (tensorMaps_[k] && *tensorMaps_[k] != map)
    fail(currentOp_, "ttng.host_tensormap: index " + std::to_string(k) + " names two different maps");
  tensorMaps_[k] = map;
  // The parameter's own address (param space) made generic: TMA reads
  // the descriptor from there (a __grid_constant__ CUtensorMap in CUDA).
  std::string addr = reg(RegClass::B64);
  ins("mov.u64 " + addr + ", " + funcName(func_) + "_param_tmap" + std::to_string(k));
  ins("cvta.param.u64 " + addr + ", " + addr);
  return addr;
}

std::string Emitter::newTmaDescriptorSlot() {
  if (globalScratch_.empty()) {
    // This program's slots: scratch + linear program id * slot bytes (the
    // byte count is known once every descriptor has been emitted).
    globalScratch_ = reg(RegClass::B64);
    std::string raw = reg(RegClass::B64), yz = reg(RegClass::B32), linear = reg(RegClass::B64);
    std::string ids[5];
    const char* names[5] = {"%ctaid.x", "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y"};
    for (int i = 0; i < 5; ++i) {
      ids[i] = reg(RegClass::B32);
      prologue("mov.u32 " + ids[i] + ", " + names[i]);
    }
    prologue("ld.param.u64 " + raw + ", [" + funcName(func_) + "_param_scratch]");
    prologue("mad.lo.u32 " + yz + ", " + ids[2] + ", " + ids[4] + ", " + ids[1]);
    prologue("mul.wide.u32 " + linear + ", " + yz + ", " + ids[3]);
    std::string x = reg(RegClass::B64);
    prologue("cvt.u64.u32 " + x + ", " + ids[0]);
    prologue("add.u64 " + linear + ", " + linear + ", " + x);
    prologue("mad.lo.u64 " + globalScratch_ + ", " + linear + ", " + kGlobalScratchBytes + ", " + raw);
  }
  std::string addr = reg(RegClass::B64);
  ins("add.u64 " + addr + ", " + globalScratch_ + ", " + std::to_string(gpu::kTmaDescriptorBytes * tmaSlots_++));
  return addr;
}

void Emitter::fail(Operation* op, const std::string& message) {
  std::string where;
  Location l = op->loc();
  if (l.known()) where = *l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": ";
  throw Error(where + "error: GPU backend: " + message + " (op " + std::string(op->name()) + " in kernel '" +
              funcName(func_) + "')");
}

void Emitter::addExtern(const gpu::ExternFunction& f) {
  for (const auto& e : externs_)
    if (e.wrapper == f.wrapper) return;
  externs_.push_back(f);
}

std::string Emitter::globalString(const std::string& text) {
  auto it = strings_.find(text);
  if (it != strings_.end()) return it->second;
  std::string name = "$str_" + std::to_string(strings_.size());
  std::string bytes;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i) bytes += ", ";
    bytes += std::to_string(i < text.size() ? static_cast<unsigned char>(text[i]) : 0);
  }
  globals_ += ".global .align 1 .b8 " + name + "[" + std::to_string(text.size() + 1) + "] = {" + bytes + "};\n";
  strings_[text] = name;
  return name;
}

//===----------------------------------------------------------------------===//
// Dispatch and control flow
//===----------------------------------------------------------------------===//

namespace {

/// An elementwise op with tensor results, emitted register by register.
bool isRunTensorOp(Operation* op) {
  return op->numResults() > 0 && op->result(0).type().isTensor() && hasTrait(op->code(), ir::Elementwise) &&
         !op->is(OpCode::InlineAsm);
}

/// An op a run may contain that is emitted whole, when the run reaches it
/// for register 0: it reads no tensor value (scalar ops, splats, ranges,
/// constants), so no partly emitted value of the run.
bool isRunWholeOp(Operation* op) {
  if (op->is(OpCode::Splat) || op->is(OpCode::MakeRange) || op->is(OpCode::Constant)) return true;
  if (op->numRegions() > 0 || op->numResults() == 0 || !hasTrait(op->code(), ir::Pure)) return false;
  for (unsigned i = 0; i < op->numResults(); ++i)
    if (op->result(i).type().isTensor()) return false;
  for (unsigned i = 0; i < op->numOperands(); ++i)
    if (op->operand(i).type().isTensor()) return false;
  return true;
}

/// Whether an op of `run` after run[k] reads one of run[k]'s results.
bool readLaterInRun(const std::vector<Operation*>& run, size_t k) {
  for (size_t j = k + 1; j < run.size(); ++j)
    for (unsigned o = 0; o < run[j]->numOperands(); ++o)
      if (run[j]->operand(o).definingOp() == run[k]) return true;
  return false;
}

}  // namespace

std::vector<Operation*> Emitter::elementwiseRun(Operation* first) {
  std::vector<Operation*> run;
  if (!isRunTensorOp(first)) return run;
  const gpu::LinearLayout& ll = layout(first->result(0).type());
  size_t lastTensor = 0;
  int tensorOps = 0;
  for (Operation* op = first; op; op = op->nextOp()) {
    if (isRunTensorOp(op)) {
      bool sameLayout = true;
      for (unsigned r = 0; r < op->numResults() && sameLayout; ++r)
        sameLayout = layout(op->result(r).type()) == ll;
      if (!sameLayout) break;
      run.push_back(op);
      lastTensor = run.size();
      ++tensorOps;
    } else if (isRunWholeOp(op)) {
      run.push_back(op);
    } else {
      break;
    }
  }
  run.resize(lastTensor);
  if (tensorOps < 2) run.clear();
  return run;
}

void Emitter::emitBlock(Block& block) {
  for (Operation* op = block.front(); op;) {
    std::vector<Operation*> run = elementwiseRun(op);
    if (run.empty()) {
      emitOp(op);
      op = op->nextOp();
      continue;
    }
    // Register-major: every op of the run for register 0, then for register
    // 1, ... Emitting op by op keeps all registers of every intermediate
    // live at once (16 Philox states of 4 words for a 16-element thread);
    // one element's chain at a time keeps a few, and ptxas interleaves the
    // chains as far as registers allow.
    int64_t n = numRegs(run.front()->result(0).type());
    std::vector<RegisterEmitter> emitters(run.size());
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < run.size(); ++k) {
        if (!isRunTensorOp(run[k])) {
          if (i == 0) emitOp(run[k]);
          continue;
        }
        if (i == 0) emitters[k] = beginElementwise(*this, run[k], readLaterInRun(run, k));
        emitters[k](i);
      }
    }
    op = run.back()->nextOp();
  }
}

void Emitter::emitOp(Operation* op) {
  currentOp_ = op;
  switch (op->code()) {
    case OpCode::For: case OpCode::If: case OpCode::While: case OpCode::Return: case OpCode::WarpSpecialize:
      return emitControlFlow(op);
    case OpCode::Yield: case OpCode::Condition: case OpCode::ReduceReturn: case OpCode::ScanReturn:
      return;  // handled by the parent op
    case OpCode::Load: case OpCode::Store: case OpCode::AtomicRMW: case OpCode::AtomicCAS:
    case OpCode::MakeTensorPtr: case OpCode::Advance:
      return emitMemory(*this, op);
    case OpCode::Reduce: case OpCode::Scan:
      return emitReduction(*this, op);
    case OpCode::Print: case OpCode::Assert: case OpCode::DebugBarrier: case OpCode::Assume:
    case OpCode::FenceAsyncGlobal: case OpCode::GridDepWait: case OpCode::GridDepLaunchDependents:
      return emitDebugOp(*this, op);
    case OpCode::MakeRange: case OpCode::Splat: case OpCode::Broadcast: case OpCode::ExpandDims:
    case OpCode::Reshape: case OpCode::Trans: case OpCode::Cat: case OpCode::Join: case OpCode::Split:
    case OpCode::Gather: case OpCode::Histogram: case OpCode::Sort: case OpCode::Flip:
    case OpCode::ConvertLayout: case OpCode::Hint:
      return emitLayoutOp(*this, op);
    case OpCode::Dot: case OpCode::WarpGroupDotWait:
      return emitDot(*this, op);
    case OpCode::LocalAlloc:
      return emitLocalAlloc(*this, op);
    case OpCode::LocalLoad:
      return emitLocalLoad(*this, op);
    case OpCode::MemdescIndex: case OpCode::AsyncCopyGlobalToLocal: case OpCode::AsyncCommitGroup:
    case OpCode::AsyncWait:
      return emitAsyncOp(*this, op);
    case OpCode::TensormapCreate: case OpCode::HostTensormap: case OpCode::DescriptorLoad:
    case OpCode::InitBarriers: case OpCode::InvalBarriers: case OpCode::BarrierExpect:
    case OpCode::AsyncTmaCopyGlobalToLocal: case OpCode::WaitBarrier: case OpCode::ArriveBarrier:
      return emitTmaOp(*this, op);
    case OpCode::PingPong:
      return emitPingPong(op);
    case OpCode::Call: case OpCode::Func:
      fail(op, "calls must be inlined before PTX emission");
    // One instruction (or a short sequence) per element each thread holds.
    case OpCode::AddI: case OpCode::SubI: case OpCode::MulI: case OpCode::DivSI: case OpCode::DivUI:
    case OpCode::RemSI: case OpCode::RemUI: case OpCode::AndI: case OpCode::OrI: case OpCode::XOrI:
    case OpCode::ShLI: case OpCode::ShRSI: case OpCode::ShRUI: case OpCode::MaxSI: case OpCode::MaxUI:
    case OpCode::MinSI: case OpCode::MinUI: case OpCode::MulHiI: case OpCode::AbsI:
    case OpCode::AddF: case OpCode::SubF: case OpCode::MulF: case OpCode::DivF: case OpCode::RemF:
    case OpCode::NegF: case OpCode::MaxNumF: case OpCode::MinNumF: case OpCode::MaximumF: case OpCode::MinimumF:
    case OpCode::Fma: case OpCode::ClampF: case OpCode::PreciseSqrt: case OpCode::PreciseDivF:
    case OpCode::ApproxDivF:
    case OpCode::CmpI: case OpCode::CmpF: case OpCode::Select:
    case OpCode::ExtSI: case OpCode::ExtUI: case OpCode::TruncI: case OpCode::SIToFP: case OpCode::UIToFP:
    case OpCode::FPToSI: case OpCode::FPToUI: case OpCode::ExtF: case OpCode::TruncF: case OpCode::Bitcast:
    case OpCode::Exp: case OpCode::Exp2: case OpCode::Log: case OpCode::Log2: case OpCode::Sqrt:
    case OpCode::Rsqrt: case OpCode::Sin: case OpCode::Cos: case OpCode::Erf: case OpCode::Floor:
    case OpCode::Ceil: case OpCode::AbsF:
    case OpCode::ExternElementwise: case OpCode::InlineAsm:
    case OpCode::AddPtr: case OpCode::IntToPtr: case OpCode::PtrToInt: case OpCode::PtrBitcast:
    // Values every thread computes alike.
    case OpCode::Constant: case OpCode::GetProgramId: case OpCode::GetNumPrograms: case OpCode::SmId:
    case OpCode::GlobalTimer:
      return emitElementwise(*this, op);
  }
  // No default above: an opcode Ops.def gains is a build error here (-Wswitch
  // is an error in this file) until it has a lowering or a refusal.
  fail(op, "internal error: an opcode outside Ops.def");
}

void Emitter::emitControlFlow(Operation* op) {
  // Deferred definitions must not land inside a branch or loop body.
  flushDeferred();
  switch (op->code()) {
    case OpCode::For: return emitFor(op);
    case OpCode::If: return emitIf(op);
    case OpCode::While: return emitWhile(op);
    case OpCode::WarpSpecialize: return emitWarpSpecialize(op);
    case OpCode::Return: ins("ret"); return;
    default: return;
  }
}

/// Fresh registers shaped like a value of type t: one per layout register
/// of a tensor; [base, shape..., strides..., offsets...] for a block pointer.
static Regs freshLike(Emitter& e, Type t) {
  Regs r;
  if (t.isBlockPointer()) {
    int64_t rank = t.pointeeType().rank();
    r.push_back(e.reg(RegClass::B64));
    for (int64_t i = 0; i < 2 * rank; ++i) r.push_back(e.reg(RegClass::B64));
    for (int64_t i = 0; i < rank; ++i) r.push_back(e.reg(RegClass::B32));
    return r;
  }
  int64_t n = e.numRegs(t);
  for (int64_t i = 0; i < n; ++i) r.push_back(e.reg(t.elementType()));
  return r;
}

/// The mov for a register, from its name (%p, %h, %r, %rd).
static std::string movFor(const std::string& reg) {
  if (reg.rfind("%rd", 0) == 0) return "mov.b64";
  if (reg.rfind("%r", 0) == 0) return "mov.b32";
  if (reg.rfind("%h", 0) == 0) return "mov.b16";
  return "mov.pred";
}

/// dst[i] = src[i] for every register, through temporaries when `parallel`
/// (a yield may permute the loop-carried values). A register moved onto
/// itself (a dot that accumulated into its loop-carried registers in place)
/// is left alone: it still holds its value for any other destination, and
/// an asynchronous wgmma may still be writing it.
static void moveAll(Emitter& e, const std::vector<Regs>& dst, const std::vector<Regs>& src,
                    const std::vector<Type>& types, bool parallel) {
  auto from = [&](size_t v, size_t i) -> const std::string& { return src[v][src[v].size() == 1 ? 0 : i]; };
  std::vector<Regs> staged = src;
  // Temporaries are only needed when some destination is also read by
  // another move (a yield that permutes or passes on iteration arguments).
  if (parallel) {
    std::set<std::string> read, written;
    for (size_t v = 0; v < src.size(); ++v)
      for (size_t i = 0; i < dst[v].size(); ++i)
        if (from(v, i) != dst[v][i]) {
          read.insert(from(v, i));
          written.insert(dst[v][i]);
        }
    bool overlap = false;
    for (const std::string& r : written) overlap = overlap || read.count(r);
    parallel = overlap;
  }
  if (parallel) {
    for (size_t v = 0; v < src.size(); ++v)
      for (size_t i = 0; i < dst[v].size(); ++i) {
        if (from(v, i) == dst[v][i]) continue;
        std::string t = e.reg(dst[v][i].rfind("%rd", 0) == 0 ? RegClass::B64
                              : dst[v][i].rfind("%r", 0) == 0  ? RegClass::B32
                              : dst[v][i].rfind("%h", 0) == 0  ? RegClass::B16
                                                               : RegClass::Pred);
        e.ins(movFor(t) + " " + t + ", " + from(v, i));
        staged[v].resize(dst[v].size());
        staged[v][i] = t;
      }
  }
  for (size_t v = 0; v < dst.size(); ++v)
    for (size_t i = 0; i < dst[v].size(); ++i)
      if (from(v, i) != dst[v][i])
        e.ins(movFor(dst[v][i]) + " " + dst[v][i] + ", " + staged[v][staged[v].size() == 1 ? 0 : i]);
}

static std::vector<Regs> regsOf(Emitter& e, const std::vector<Value>& values) {
  std::vector<Regs> out;
  for (Value v : values) out.push_back(e.regs(v));
  return out;
}

static std::vector<Type> typesOf(const std::vector<Value>& values) {
  std::vector<Type> out;
  for (Value v : values) out.push_back(v.type());
  return out;
}

void Emitter::emitFor(Operation* op) {
  Block& body = op->region(0).front();
  ForOp loop(op);
  Value lb = loop.lowerBound(), ub = loop.upperBound(), step = loop.step();
  Type ivType = lb.type();
  std::string sfx = ivType.bitWidth() == 64 ? "s64" : ivType.bitWidth() == 16 ? "s16" : "s32";
  std::string iv = reg(ivType);
  ins(movFor(iv) + " " + iv + ", " + regs(lb)[0]);
  bind(body.argument(0), {iv});
  std::vector<Value> inits = loop.inits();
  std::vector<Regs> carried;
  for (unsigned i = 0; i < inits.size(); ++i) carried.push_back(freshLike(*this, loop.iterArg(i).type()));
  moveAll(*this, carried, regsOf(*this, inits), typesOf(inits), false);
  for (unsigned i = 0; i < inits.size(); ++i) bind(loop.iterArg(i), carried[i]);

  // Loops run while iv < ub for positive steps (iv > ub for negative ones).
  std::optional<int64_t> stepValue;
  if (Operation* d = step.definingOp(); d && d->is(OpCode::Constant)) stepValue = d->intAttr("value");
  std::string head = newLabel("for"), end = newLabel("endfor");
  raw(head + ":");
  std::string done = reg(RegClass::Pred);
  if (stepValue && *stepValue < 0) {
    ins("setp.le." + sfx + " " + done + ", " + iv + ", " + regs(ub)[0]);
  } else if (stepValue) {
    ins("setp.ge." + sfx + " " + done + ", " + iv + ", " + regs(ub)[0]);
  } else {
    std::string ge = reg(RegClass::Pred), le = reg(RegClass::Pred), neg = reg(RegClass::Pred);
    ins("setp.ge." + sfx + " " + ge + ", " + iv + ", " + regs(ub)[0]);
    ins("setp.le." + sfx + " " + le + ", " + iv + ", " + regs(ub)[0]);
    ins("setp.lt." + sfx + " " + neg + ", " + regs(step)[0] + ", 0");
    ins("@" + neg + " mov.pred " + ge + ", " + le);
    done = ge;
  }
  ins("@" + done + " bra " + end);
  emitBlock(body);
  Operation* yield = body.terminator();
  moveAll(*this, carried, regsOf(*this, yield->operands()), typesOf(yield->operands()), true);
  ins("add." + sfx + " " + iv + ", " + iv + ", " + regs(step)[0]);
  ins("bra.uni " + head);
  raw(end + ":");
  for (unsigned i = 0; i < op->numResults(); ++i) bind(op->result(i), carried[i]);
}

void Emitter::emitIf(Operation* op) {
  std::string cond = regs(op->operand(0))[0];
  std::vector<Regs> results;
  for (Value r : op->results()) results.push_back(freshLike(*this, r.type()));
  std::vector<Type> types = typesOf(op->results());
  std::string elseLabel = newLabel("else"), end = newLabel("endif");
  bool hasElse = op->numRegions() > 1 && !op->region(1).empty();
  ins("@!" + cond + " bra " + (hasElse ? elseLabel : end));
  if (!op->region(0).empty()) {
    Block& thenBlock = op->region(0).front();
    emitBlock(thenBlock);
    if (Operation* y = thenBlock.terminator(); y && y->is(OpCode::Yield))
      moveAll(*this, results, regsOf(*this, y->operands()), types, false);
  }
  if (hasElse) {
    ins("bra.uni " + end);
    raw(elseLabel + ":");
    Block& elseBlock = op->region(1).front();
    emitBlock(elseBlock);
    if (Operation* y = elseBlock.terminator(); y && y->is(OpCode::Yield))
      moveAll(*this, results, regsOf(*this, y->operands()), types, false);
  }
  raw(end + ":");
  for (unsigned i = 0; i < op->numResults(); ++i) bind(op->result(i), results[i]);
}

void Emitter::emitWhile(Operation* op) {
  Block& before = op->region(0).front();
  Block& after = op->region(1).front();
  std::vector<Regs> carried;
  for (unsigned i = 0; i < before.numArguments(); ++i) carried.push_back(freshLike(*this, before.argument(i).type()));
  moveAll(*this, carried, regsOf(*this, op->operands()), typesOf(op->operands()), false);
  for (unsigned i = 0; i < before.numArguments(); ++i) bind(before.argument(i), carried[i]);
  std::vector<Regs> forwarded;
  for (unsigned i = 0; i < after.numArguments(); ++i) forwarded.push_back(freshLike(*this, after.argument(i).type()));
  for (unsigned i = 0; i < after.numArguments(); ++i) bind(after.argument(i), forwarded[i]);
  std::string head = newLabel("while"), end = newLabel("endwhile");
  raw(head + ":");
  emitBlock(before);
  Operation* cond = before.terminator();
  std::vector<Value> condOperands = cond->operands();
  std::vector<Value> fwd(condOperands.begin() + 1, condOperands.end());
  moveAll(*this, forwarded, regsOf(*this, fwd), typesOf(fwd), false);
  ins("@!" + regs(cond->operand(0))[0] + " bra " + end);
  emitBlock(after);
  Operation* yield = after.terminator();
  moveAll(*this, carried, regsOf(*this, yield->operands()), typesOf(yield->operands()), true);
  ins("bra.uni " + head);
  raw(end + ":");
  for (unsigned i = 0; i < op->numResults(); ++i) bind(op->result(i), forwarded[i]);
}

/// The producer warpgroup (warps num_warps .. num_warps + 3) gives up
/// registers, leaves all but its first thread, and that thread runs the
/// region; the kernel's warps take the registers and go on with the body,
/// whose barriers from here on count only them.
void Emitter::emitWarpSpecialize(Operation* op) {
  if (specialized_) fail(op, "a kernel has at most one ttng.warp_specialize");
  flushDeferred();  // values bound before the split are both sides
  std::string consumers = std::to_string(32 * options_.numWarps);
  std::string isProducer = reg(RegClass::Pred), notFirst = reg(RegClass::Pred), body = newLabel("consumers");
  ins("setp.ge.u32 " + isProducer + ", " + threadId() + ", " + consumers);
  ins("@!" + isProducer + " bra " + body);
  // A register limit asked for explicitly (maxnreg) leaves the pool as it
  // is: setmaxnreg.inc would wait forever for registers the launch lacks.
  // At 4 warps the consumers' share is planned for two CTAs per
  // multiprocessor; when the buffers alone keep the second CTA out (each
  // CTA also takes 1 KiB of the 228), the launch gives every thread up to
  // 255 and nothing moves (attention d=64 on 128-key blocks spilled 1.2 KB
  // at 216).
  bool secondCtaFits = 2 * (buffersBytes_ + 1024) <= 228 * 1024;
  bool moveRegisters = options_.maxNumRegisters == 0 && op->intAttr("consumer_registers", 0) > 0 &&
                       (options_.numWarps >= 8 || secondCtaFits);
  if (moveRegisters) ins("setmaxnreg.dec.sync.aligned.u32 " + std::to_string(op->intAttr("producer_registers")));
  ins("setp.ne.u32 " + notFirst + ", " + threadId() + ", " + consumers);
  ins("@" + notFirst + " exit");
  // The one thread left is lane 0 of its warp (32 * num_warps).
  producerElected_ = reg(RegClass::Pred);
  ins("elect.sync _|" + producerElected_ + ", 1");
  inProducer_ = true;
  emitBlock(op->region(0).front());
  flushDeferred();
  inProducer_ = false;
  ins("exit");
  raw(body + ":");
  if (moveRegisters) ins("setmaxnreg.inc.sync.aligned.u32 " + std::to_string(op->intAttr("consumer_registers")));
  specialized_ = true;
  producerWarps_ = static_cast<int>(op->intAttr("producer_warps"));
  // The registers per thread the launch gives, which setmaxnreg moves
  // between the warpgroups (ptxas compiles the kernel to it).
  if (moveRegisters) {
    int64_t producer = op->intAttr("producer_registers") * 32 * producerWarps_;
    int64_t consumers = op->intAttr("consumer_registers") * 32 * options_.numWarps;
    int64_t threads = 32 * (producerWarps_ + options_.numWarps);
    launchRegisters_ = static_cast<int>((producer + consumers) / threads / 8 * 8);
    // setmaxnreg.inc waits until the CTA's pool has the registers: targets
    // that add up to more than the launch gives would never run.
    if (launchRegisters_ * threads < producer + consumers)
      fail(op, "the setmaxnreg targets need " + std::to_string(producer + consumers) + " registers, more than the " +
                   std::to_string(launchRegisters_ * threads) + " of the launch");
  }
}

/// Warpgroup wg (0 or 1) of the consumers takes its turn on named barrier
/// 2 + wg, which the other warpgroup's 128 threads arrive at to give it
/// (both warpgroups' threads count).
void Emitter::emitPingPong(Operation* op) {
  if (!specialized_ || inProducer_ || options_.numWarps != 8)
    fail(op, "ping-pong needs the two consumer warpgroups of a warp-specialized kernel of 8 warps");
  std::string wg = reg(RegClass::B32), id = reg(RegClass::B32), step = op->strAttr("step");
  std::string threads = std::to_string(32 * options_.numWarps);
  ins("shr.u32 " + wg + ", " + warpId() + ", 2");
  if (step == "start") {
    std::string second = reg(RegClass::Pred);
    ins("setp.ne.u32 " + second + ", " + wg + ", 0");
    ins("@" + second + " bar.arrive 2, " + threads);
  } else if (step == "wait") {
    ins("add.u32 " + id + ", " + wg + ", 2");
    ins("bar.sync " + id + ", " + threads);
  } else {
    ins("sub.u32 " + id + ", 3, " + wg);
    ins("bar.arrive " + id + ", " + threads);
  }
}

void Emitter::barrier() {
  if (inProducer_) fail(currentOp_, "needs a barrier of every thread, which the producer warpgroup cannot have");
  ins(specialized_ ? "bar.sync 1, " + std::to_string(32 * options_.numWarps) : std::string("bar.sync 0"));
}

//===----------------------------------------------------------------------===//
// The module
//===----------------------------------------------------------------------===//

static std::string paramType(Type t, int& bytes) {
  if (t.isPointer()) { bytes = 8; return ".u64"; }
  unsigned bits = t.bitWidth();
  if (bits == 1 || bits == 8) { bytes = 1; return ".u8"; }
  if (bits == 16) { bytes = 2; return ".b16"; }
  if (bits == 32) { bytes = 4; return ".b32"; }
  bytes = 8;
  return ".b64";
}

gpu::PtxKernel Emitter::emit() {
  gpu::PtxKernel out;
  out.name = funcName(func_);
  out.numWarps = options_.numWarps;
  Block& entry = funcBody(func_);
  std::string params;
  for (unsigned i = 0; i < entry.numArguments(); ++i) {
    Value arg = entry.argument(i);
    Type t = arg.type();
    int bytes = 8;
    std::string pt = paramType(t, bytes);
    std::string name = out.name + "_param_" + std::to_string(i);
    params += std::string(i ? ",\n" : "") + "\t.param " + pt + " " + name;
    out.params.push_back({t, bytes});
    std::string r = reg(t);
    if (t.isInteger(1)) {
      std::string h = reg(RegClass::B16);
      prologue("ld.param.u8 " + h + ", [" + name + "]");
      prologue("setp.ne.u16 " + r + ", " + h + ", 0");
    } else if (bytes == 1) {
      prologue("ld.param.s8 " + r + ", [" + name + "]");
    } else {
      prologue("ld.param" + pt + " " + r + ", [" + name + "]");
    }
    bind(arg, {r});
  }
  emitBlock(entry);
  out.numWarps = options_.numWarps + producerWarps_;
  for (size_t k = 0; k < tensorMaps_.size(); ++k) {
    if (!tensorMaps_[k]) fail(func_, "host tensor map " + std::to_string(k) + " is used by no ttng.host_tensormap");
    out.tensorMaps.push_back(*tensorMaps_[k]);
    std::string name = out.name + "_param_tmap" + std::to_string(k);
    params += std::string(params.empty() ? "" : ",\n") + "\t.param .align 64 .b8 " + name + "[" +
              std::to_string(gpu::kTmaDescriptorBytes) + "]";
    gpu::KernelParam p{Type::pointer(Type::i8()), gpu::kTmaDescriptorBytes};
    p.tensorMap = static_cast<int>(k);
    out.params.push_back(p);
  }
  if (tmaSlots_) {
    std::string name = out.name + "_param_scratch";
    params += std::string(params.empty() ? "" : ",\n") + "\t.param .u64 " + name;
    out.params.push_back({Type::pointer(Type::i8()), 8, /*globalScratch=*/true});
    out.globalScratchBytes = gpu::kTmaDescriptorBytes * tmaSlots_;
    size_t at = prologue_.find(kGlobalScratchBytes);
    prologue_.replace(at, std::string(kGlobalScratchBytes).size(), std::to_string(out.globalScratchBytes));
  }
  int64_t scratchAt = scratchBytes_ ? scratchAt_ : 0;
  if (size_t at = prologue_.find(kScratchOffset); at != std::string::npos)
    prologue_.replace(at, std::string(kScratchOffset).size(), std::to_string(scratchAt));
  out.sharedBytes = static_cast<int>(std::max(buffersBytes_, scratchAt + scratchBytes_));
  out.externs = externs_;
  out.usesPrintf = usesPrintf_;
  out.runtimeChecks = runtimeChecks_;

  std::ostringstream ptx;
  ptx << "//\n// Generated by Tessera for kernel '" << out.name << "'\n//\n\n";
  // tensormap.replace needs PTX 8.3; from 8.6 on it takes strides in bytes
  // (ptxas read them in 16-byte units before). 8.7: CUDA 12.8 or newer.
  std::string version = options_.target.ptxVersion();
  auto tenths = [](const std::string& v) {  // "8.7" -> 87, whatever the locale
    size_t dot = v.find('.');
    return std::stoi(v.substr(0, dot)) * 10 + std::stoi(v.substr(dot + 1));
  };
  if (tmaSlots_) requirePtxVersion(87);
  if (tenths(version) < minPtxTenths_)
    version = std::to_string(minPtxTenths_ / 10) + "." + std::to_string(minPtxTenths_ % 10);
  if (usesInlineAsm_) ptx << gpu::kInlineAsmPtxMarker << "\n";
  ptx << ".version " << version << "\n.target " << options_.target.name()
      << "\n.address_size 64\n\n";
  if (usesPrintf_)
    ptx << ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 "
           "vprintf_param_1);\n";
  if (usesAssert_)
    ptx << ".extern .func __assertfail(.param .b64 a0, .param .b64 a1, .param .b32 a2, .param .b64 a3, "
           ".param .b64 a4);\n";
  for (const auto& f : externs_) {
    auto ptype = [](Type t) {
      unsigned bits = t.bitWidth();
      return std::string(bits <= 16 ? ".b16" : bits == 32 ? ".b32" : ".b64");
    };
    ptx << ".extern .func (.param " << ptype(f.resultType) << " func_retval0) " << f.wrapper << "(";
    for (size_t i = 0; i < f.argTypes.size(); ++i)
      ptx << (i ? ", " : "") << ".param " << ptype(f.argTypes[i]) << " " << f.wrapper << "_param_" << i;
    ptx << ");\n";
  }
  ptx << globals_;
  ptx << ".extern .shared .align 1024 .b8 global_smem[];\n\n";
  ptx << ".visible .entry " << out.name << "(\n" << params << "\n)\n.maxntid " << 32 * out.numWarps
      << ", 1, 1\n";
  if (options_.maxNumRegisters > 0) ptx << ".maxnreg " << options_.maxNumRegisters << "\n";
  else if (launchRegisters_ > 0) ptx << ".maxnreg " << launchRegisters_ << "\n";
  ptx << "{\n";
  ptx << "\t.reg .pred %p<" << counters_[0] + 1 << ">;\n";
  ptx << "\t.reg .b16 %h<" << counters_[1] + 1 << ">;\n";
  ptx << "\t.reg .b32 %r<" << counters_[2] + 1 << ">;\n";
  ptx << "\t.reg .b64 %rd<" << counters_[3] + 1 << ">;\n";
  if (localBytes_) ptx << "\t.local .align 8 .b8 __local_buf[" << localBytes_ << "];\n";
  ptx << prologue_ << body_;
  if (body_.size() < 6 || body_.compare(body_.size() - 6, 6, "\tret;\n") != 0) ptx << "\tret;\n";
  ptx << "}\n";
  out.ptx = ptx.str();
  return out;
}

}  // namespace tessera::ptx
