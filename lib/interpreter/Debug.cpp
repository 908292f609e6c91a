//===- interpreter/Debug.cpp - tt.print and tt.assert ---------------------===//
//
// tt.print writes one line per element, like Triton's device_print:
//   pid (x, y, z) idx (i, j)<prefix>[(operand k) ]<value>
// The lines of one print op in one program are written with a single
// fwrite under a lock and flushed, so programs never interleave mid-line.
// tt.assert fails the launch at the first false lane.
//
//===----------------------------------------------------------------------===//

#include <cinttypes>
#include <cstdio>

#include "interpreter/Codecs.h"

namespace tessera::interp {
namespace {

using ir::OpCode;

std::mutex& printMutex() {
  static std::mutex m;
  return m;
}

/// "i, j" for linear index `i` of `shape`, each padded to the width of its dim.
std::string indexString(int64_t i, const std::vector<int64_t>& shape, bool pad) {
  std::vector<int64_t> idx(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  std::string out;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d) out += ", ";
    std::string s = std::to_string(idx[d]);
    size_t width = std::to_string(std::max<int64_t>(shape[d] - 1, 0)).size();
    if (pad && s.size() < width) out += std::string(width - s.size(), ' ');
    out += s;
  }
  return out;
}

std::string formatElement(const Slot& s, int64_t i, ir::Type t, bool hex, bool isSigned) {
  char buf[64];
  t = t.elementType();
  int bytes = storageBytes(t);
  uint64_t bits = 0;
  std::memcpy(&bits, s.data + i * bytes, bytes);
  if (t.isPointer()) {
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, bits);
    return buf;
  }
  if (hex) {
    unsigned width = t.isInteger(1) ? 1 : t.bitWidth() / 4;
    std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, static_cast<int>(width), bits);
    return buf;
  }
  if (t.isFloat()) {
    double v = withFloatCodec(t.kind(), [&]<class Cd>(Cd) {
      typename Cd::S x;
      std::memcpy(&x, &bits, sizeof x);
      return static_cast<double>(Cd::dec(x));
    });
    std::snprintf(buf, sizeof buf, "%f", v);
    return buf;
  }
  if (t.isInteger(1)) return std::to_string(bits & 1);
  unsigned w = t.bitWidth();
  if (isSigned) {
    int64_t v = static_cast<int64_t>(bits << (64 - w)) >> (64 - w);
    return std::to_string(v);
  }
  return std::to_string(w == 64 ? bits : bits & ((1ull << w) - 1));
}

void printOp(const Instr& in, Frame& f) {
  ir::Operation* op = in.op;
  std::string prefix = op->strAttr("prefix");
  bool hex = op->boolAttr("hex");
  std::vector<int64_t> isSigned = op->hasAttr("is_signed") ? op->intArrayAttr("is_signed") : std::vector<int64_t>{};
  const ThreadContext& ctx = *f.ctx;
  std::string pid = "pid (" + std::to_string(ctx.pid[0]) + ", " + std::to_string(ctx.pid[1]) + ", " +
                    std::to_string(ctx.pid[2]) + ")";
  std::string out;
  if (op->numOperands() == 0) out = pid + prefix + "\n";
  for (unsigned k = 0; k < op->numOperands(); ++k) {
    ir::Type t = op->operand(k).type();
    bool sgn = k < isSigned.size() ? isSigned[k] != 0 : true;
    const Slot& s = f.slots[in.in[k]];
    std::string operand = op->numOperands() > 1 ? "(operand " + std::to_string(k) + ") " : "";
    if (!t.isTensor()) {
      out += pid + prefix + operand + formatElement(s, 0, t, hex, sgn) + "\n";
      continue;
    }
    for (int64_t i = 0; i < t.numElements(); ++i)
      out += pid + " idx (" + indexString(i, t.shape(), true) + ")" + prefix + operand +
             formatElement(s, i, t, hex, sgn) + "\n";
  }
  std::lock_guard<std::mutex> lock(printMutex());
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

void assertOp(const Instr& in, Frame& f) {
  const Slot& c = f.slots[in.in[0]];
  ir::Type t = in.op->operand(0).type();
  for (int64_t i = 0; i < c.n; ++i) {
    if (c.data[i] & 1) continue;
    std::string detail;
    if (t.isTensor()) detail = ", index (" + indexString(i, t.shape(), false) + ")";
    detail += ": " + in.op->strAttr("message");
    runtimeError(in, f, "device assertion failed", detail);
  }
}

}  // namespace

bool buildDebug(ir::Operation* op, Instr& in, PlanBuilder& b) {
  switch (op->code()) {
  case OpCode::Print: in.fn = &printOp; return true;
  case OpCode::Assert:
    if (op->numOperands() < 1) planError(op, "tt.assert without a condition");
    in.fn = &assertOp;
    return true;
  default: return false;
  }
}

}  // namespace tessera::interp
