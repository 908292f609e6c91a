//===- Encoding.cpp - Interned GPU layout encodings -----------------------===//
//
// Storage, uniquing, printing and parsing of the encodings of Encoding.h.
// Uniquing is by the printed form: encodings are made a handful of times per
// compilation, so a string key is simpler than a structural hash and just as
// fast in practice.
//
//===----------------------------------------------------------------------===//

#include "tessera/ir/Encoding.h"

#include <cassert>
#include <charconv>
#include <deque>
#include <mutex>
#include <unordered_map>

namespace tessera::ir {

struct EncodingStorage {
  EncodingKind kind;
  std::vector<int64_t> sizePerThread, threadsPerWarp, warpsPerCTA, order;
  int64_t dim = 0;
  Encoding parent;
  int64_t vec = 1, perPhase = 1, maxPhase = 1;
  LinearBases bases;
  int64_t versionMajor = 0, versionMinor = 0;
  std::vector<int64_t> instrShape;
  int64_t opIdx = 0, kWidth = 0;
  int64_t swizzle = 0, elementBits = 0;
  bool transposed = false;
  std::string text;
};

namespace {

void appendInts(std::string& out, const std::vector<int64_t>& v) {
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(v[i]);
  }
  out += ']';
}

std::string render(const EncodingStorage& s) {
  std::string out;
  switch (s.kind) {
    case EncodingKind::Blocked:
      out = "#ttg.blocked<{sizePerThread = ";
      appendInts(out, s.sizePerThread);
      out += ", threadsPerWarp = ";
      appendInts(out, s.threadsPerWarp);
      out += ", warpsPerCTA = ";
      appendInts(out, s.warpsPerCTA);
      out += ", order = ";
      appendInts(out, s.order);
      out += "}>";
      break;
    case EncodingKind::Slice:
      out = "#ttg.slice<{dim = " + std::to_string(s.dim) + ", parent = " + s.parent.str() + "}>";
      break;
    case EncodingKind::NvmmaShared:
      out = "#ttg.nvmma_shared<{swizzlingByteWidth = " + std::to_string(s.swizzle) +
            ", transposed = " + (s.transposed ? "true" : "false") +
            ", elementBitWidth = " + std::to_string(s.elementBits) + "}>";
      break;
    case EncodingKind::SwizzledShared:
      out = "#ttg.swizzled_shared<{vec = " + std::to_string(s.vec) + ", perPhase = " + std::to_string(s.perPhase) +
            ", maxPhase = " + std::to_string(s.maxPhase) + ", order = ";
      appendInts(out, s.order);
      out += "}>";
      break;
    case EncodingKind::NvidiaMma:
      out = "#ttg.nvidia_mma<{versionMajor = " + std::to_string(s.versionMajor) +
            ", versionMinor = " + std::to_string(s.versionMinor) + ", warpsPerCTA = ";
      appendInts(out, s.warpsPerCTA);
      out += ", instrShape = ";
      appendInts(out, s.instrShape);
      out += "}>";
      break;
    case EncodingKind::DotOperand:
      out = "#ttg.dot_op<{opIdx = " + std::to_string(s.opIdx) + ", parent = " + s.parent.str() +
            ", kWidth = " + std::to_string(s.kWidth) + "}>";
      break;
    case EncodingKind::Linear: {
      static const char* kNames[kNumHwDims] = {"register", "lane", "warp", "block"};
      out = "#ttg.linear<{";
      for (int d = 0; d < kNumHwDims; ++d) {
        if (d) out += ", ";
        out += kNames[d];
        out += " = [";
        for (size_t i = 0; i < s.bases[d].size(); ++i) {
          if (i) out += ", ";
          appendInts(out, s.bases[d][i]);
        }
        out += ']';
      }
      out += "}>";
      break;
    }
  }
  return out;
}

}  // namespace

struct EncodingUniquer {
  std::mutex mutex;
  std::unordered_map<std::string, const EncodingStorage*> byText;
  std::deque<EncodingStorage> storage;

  static EncodingUniquer& get() {
    static EncodingUniquer* instance = new EncodingUniquer();  // leaked: outlives all IR
    return *instance;
  }

  Encoding intern(EncodingStorage s) {
    s.text = render(s);
    std::lock_guard<std::mutex> lock(mutex);
    auto [it, inserted] = byText.try_emplace(s.text, nullptr);
    if (inserted) it->second = &storage.emplace_back(std::move(s));
    return Encoding(it->second);
  }
};

Encoding Encoding::blocked(std::vector<int64_t> sizePerThread, std::vector<int64_t> threadsPerWarp,
                           std::vector<int64_t> warpsPerCTA, std::vector<int64_t> order) {
  assert(sizePerThread.size() == threadsPerWarp.size() && threadsPerWarp.size() == warpsPerCTA.size() &&
         warpsPerCTA.size() == order.size() && "blocked encoding parameters differ in rank");
  EncodingStorage s{EncodingKind::Blocked};
  s.sizePerThread = std::move(sizePerThread);
  s.threadsPerWarp = std::move(threadsPerWarp);
  s.warpsPerCTA = std::move(warpsPerCTA);
  s.order = std::move(order);
  return EncodingUniquer::get().intern(std::move(s));
}

Encoding Encoding::slice(int64_t dim, Encoding parent) {
  assert(parent && dim >= 0 && dim < parent.rank() && "slice dim out of range");
  EncodingStorage s{EncodingKind::Slice};
  s.dim = dim;
  s.parent = parent;
  return EncodingUniquer::get().intern(std::move(s));
}

Encoding Encoding::swizzledShared(int64_t vec, int64_t perPhase, int64_t maxPhase, std::vector<int64_t> order) {
  EncodingStorage s{EncodingKind::SwizzledShared};
  s.vec = vec;
  s.perPhase = perPhase;
  s.maxPhase = maxPhase;
  s.order = std::move(order);
  return EncodingUniquer::get().intern(std::move(s));
}

Encoding Encoding::linear(LinearBases bases) {
  bases.resize(kNumHwDims);
  EncodingStorage s{EncodingKind::Linear};
  s.bases = std::move(bases);
  return EncodingUniquer::get().intern(std::move(s));
}

Encoding Encoding::nvidiaMma(int64_t versionMajor, int64_t versionMinor, std::vector<int64_t> warpsPerCTA,
                             std::vector<int64_t> instrShape) {
  EncodingStorage s{EncodingKind::NvidiaMma};
  s.versionMajor = versionMajor;
  s.versionMinor = versionMinor;
  s.warpsPerCTA = std::move(warpsPerCTA);
  s.instrShape = std::move(instrShape);
  return EncodingUniquer::get().intern(std::move(s));
}

Encoding Encoding::dotOperand(int64_t opIdx, Encoding parent, int64_t kWidth) {
  assert(parent && (opIdx == 0 || opIdx == 1) && "dot operand index is 0 (A) or 1 (B)");
  EncodingStorage s{EncodingKind::DotOperand};
  s.opIdx = opIdx;
  s.parent = parent;
  s.kWidth = kWidth;
  return EncodingUniquer::get().intern(std::move(s));
}

Encoding Encoding::nvmmaShared(int64_t swizzlingByteWidth, bool transposed, int64_t elementBitWidth) {
  EncodingStorage s{EncodingKind::NvmmaShared};
  s.swizzle = swizzlingByteWidth;
  s.transposed = transposed;
  s.elementBits = elementBitWidth;
  return EncodingUniquer::get().intern(std::move(s));
}

EncodingKind Encoding::kind() const { return impl_->kind; }

int64_t Encoding::rank() const {
  switch (impl_->kind) {
    case EncodingKind::Blocked: return static_cast<int64_t>(impl_->order.size());
    case EncodingKind::Slice: return impl_->parent.rank() - 1;
    case EncodingKind::SwizzledShared: return static_cast<int64_t>(impl_->order.size());
    case EncodingKind::NvidiaMma: return static_cast<int64_t>(impl_->warpsPerCTA.size());
    case EncodingKind::DotOperand: return impl_->parent.rank();
    case EncodingKind::NvmmaShared: return 2;
    case EncodingKind::Linear:
      for (const auto& dim : impl_->bases)
        if (!dim.empty()) return static_cast<int64_t>(dim.front().size());
      return 0;
  }
  return 0;
}

const std::vector<int64_t>& Encoding::sizePerThread() const { return impl_->sizePerThread; }
const std::vector<int64_t>& Encoding::threadsPerWarp() const { return impl_->threadsPerWarp; }
const std::vector<int64_t>& Encoding::warpsPerCTA() const { return impl_->warpsPerCTA; }
const std::vector<int64_t>& Encoding::order() const { return impl_->order; }
int64_t Encoding::sliceDim() const { return impl_->dim; }
Encoding Encoding::parent() const { return impl_->parent; }
int64_t Encoding::vec() const { return impl_->vec; }
int64_t Encoding::swizzlingByteWidth() const { return impl_->swizzle; }
bool Encoding::transposed() const { return impl_->transposed; }
int64_t Encoding::elementBitWidth() const { return impl_->elementBits; }
int64_t Encoding::perPhase() const { return impl_->perPhase; }
int64_t Encoding::maxPhase() const { return impl_->maxPhase; }
const LinearBases& Encoding::bases() const { return impl_->bases; }
int64_t Encoding::versionMajor() const { return impl_->versionMajor; }
int64_t Encoding::versionMinor() const { return impl_->versionMinor; }
const std::vector<int64_t>& Encoding::instrShape() const { return impl_->instrShape; }
int64_t Encoding::opIdx() const { return impl_->opIdx; }
int64_t Encoding::kWidth() const { return impl_->kWidth; }

std::string Encoding::str() const { return impl_ ? impl_->text : "<<null encoding>>"; }

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {

struct Reader {
  std::string_view text;
  size_t& pos;

  void spaces() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n')) ++pos;
  }
  bool eat(std::string_view word) {
    spaces();
    if (text.substr(pos, word.size()) != word) return false;
    pos += word.size();
    return true;
  }
  bool integer(int64_t& v) {
    spaces();
    auto [end, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), v);
    if (ec != std::errc()) return false;
    pos = end - text.data();
    return true;
  }
  bool ints(std::vector<int64_t>& out) {
    if (!eat("[")) return false;
    if (eat("]")) return true;
    do {
      int64_t v;
      if (!integer(v)) return false;
      out.push_back(v);
    } while (eat(","));
    return eat("]");
  }
  bool field(std::string_view name) { return eat(name) && eat("="); }
  bool intField(std::string_view name, int64_t& v) { return field(name) && integer(v); }
  bool intsField(std::string_view name, std::vector<int64_t>& v) { return field(name) && ints(v); }
};

}  // namespace

Encoding Encoding::parseAt(std::string_view text, size_t& pos) {
  Reader r{text, pos};
  if (r.eat("#ttg.blocked<{")) {
    std::vector<int64_t> spt, tpw, wpc, order;
    if (!r.intsField("sizePerThread", spt) || !r.eat(",") || !r.intsField("threadsPerWarp", tpw) || !r.eat(",") ||
        !r.intsField("warpsPerCTA", wpc) || !r.eat(",") || !r.intsField("order", order) || !r.eat("}>"))
      return {};
    if (spt.size() != tpw.size() || tpw.size() != wpc.size() || wpc.size() != order.size() || spt.empty()) return {};
    return blocked(spt, tpw, wpc, order);
  }
  if (r.eat("#ttg.slice<{")) {
    int64_t dim;
    if (!r.intField("dim", dim) || !r.eat(",") || !r.field("parent")) return {};
    r.spaces();
    Encoding parent = parseAt(text, pos);
    if (!parent || !r.eat("}>") || dim < 0 || dim >= parent.rank()) return {};
    return slice(dim, parent);
  }
  if (r.eat("#ttg.swizzled_shared<{")) {
    int64_t vec, perPhase, maxPhase;
    std::vector<int64_t> order;
    if (!r.intField("vec", vec) || !r.eat(",") || !r.intField("perPhase", perPhase) || !r.eat(",") ||
        !r.intField("maxPhase", maxPhase) || !r.eat(",") || !r.intsField("order", order) || !r.eat("}>"))
      return {};
    return swizzledShared(vec, perPhase, maxPhase, order);
  }
  if (r.eat("#ttg.nvmma_shared<{")) {
    int64_t swizzle, bits;
    bool transposed;
    if (!r.intField("swizzlingByteWidth", swizzle) || !r.eat(",") || !r.field("transposed")) return {};
    r.spaces();
    if (r.eat("true")) transposed = true;
    else if (r.eat("false")) transposed = false;
    else return {};
    if (!r.eat(",") || !r.intField("elementBitWidth", bits) || !r.eat("}>")) return {};
    if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128) return {};
    return nvmmaShared(swizzle, transposed, bits);
  }
  if (r.eat("#ttg.nvidia_mma<{")) {
    int64_t major, minor;
    std::vector<int64_t> warps, instr;
    if (!r.intField("versionMajor", major) || !r.eat(",") || !r.intField("versionMinor", minor) || !r.eat(",") ||
        !r.intsField("warpsPerCTA", warps) || !r.eat(",") || !r.intsField("instrShape", instr) || !r.eat("}>"))
      return {};
    if (warps.size() < 2) return {};
    return nvidiaMma(major, minor, warps, instr);
  }
  if (r.eat("#ttg.dot_op<{")) {
    int64_t opIdx, kWidth;
    if (!r.intField("opIdx", opIdx) || !r.eat(",") || !r.field("parent")) return {};
    r.spaces();
    Encoding parent = parseAt(text, pos);
    if (!parent || !r.eat(",") || !r.intField("kWidth", kWidth) || !r.eat("}>") || (opIdx != 0 && opIdx != 1))
      return {};
    return dotOperand(opIdx, parent, kWidth);
  }
  if (r.eat("#ttg.linear<{")) {
    static const char* kNames[kNumHwDims] = {"register", "lane", "warp", "block"};
    LinearBases bases(kNumHwDims);
    for (int d = 0; d < kNumHwDims; ++d) {
      if ((d && !r.eat(",")) || !r.field(kNames[d]) || !r.eat("[")) return {};
      if (r.eat("]")) continue;
      do {
        std::vector<int64_t> basis;
        if (!r.ints(basis)) return {};
        bases[d].push_back(std::move(basis));
      } while (r.eat(","));
      if (!r.eat("]")) return {};
    }
    if (!r.eat("}>")) return {};
    return linear(std::move(bases));
  }
  return {};
}

}  // namespace tessera::ir
