//===- Debug.cpp - device_assert, device_print, barriers, griddepcontrol ---===//
//
// tt.assert (only with debug on, like Triton): a lane whose condition is
// false calls CUDA's __assertfail with the message, file, line and function,
// which prints "file:line: func: block: [..], thread: [..] Assertion `msg`
// failed." and traps; the launch then fails with an error that names the
// kernel. An assert marked `always` (a check the compiler added, on a
// uniform scalar: pointer-tiles-to-tma) is emitted without debug too, as a
// bare `trap`: a call anywhere in the kernel, even before its loops, makes
// ptxas serialize every wgmma (C7510). The runtime names the check when
// the kernel faults (PtxKernel::runtimeChecks). gpu.barrier is bar.sync; tt.assume emits nothing.
// tt.gdc_wait / tt.gdc_launch_dependents are griddepcontrol on sm_90+ and nothing before.
//
//===----------------------------------------------------------------------===//

#include "ptx/Emitter.h"

namespace tessera::ptx {

using namespace ir;

namespace {

void emitAssert(Emitter& e, Operation* op) {
  if (op->boolAttr("always")) {
    e.ins("@!" + e.regs(op->operand(0))[0] + " trap");
    e.addRuntimeCheck(op->strAttr("message"));
    return;
  }
  if (!e.options().debug) return;
  Value cond = op->operand(0);
  std::string msg = e.globalString(op->strAttr("message"));
  std::string file = e.globalString(op->strAttr("file"));
  std::string func = e.globalString(op->strAttr("func"));
  int64_t line = op->intAttr("line");
  int64_t n = e.numRegs(cond.type());
  std::string ok = e.newLabel("assert_ok");
  std::string allTrue = e.regs(cond)[0];
  for (int64_t i = 1; i < n; ++i) {
    std::string d = e.reg(RegClass::Pred);
    e.ins("and.pred " + d + ", " + allTrue + ", " + e.regs(cond)[i]);
    allTrue = d;
  }
  e.ins("@" + allTrue + " bra " + ok);
  std::string pm = e.reg(RegClass::B64), pf = e.reg(RegClass::B64), pfn = e.reg(RegClass::B64);
  e.ins("cvta.global.u64 " + pm + ", " + msg);
  e.ins("cvta.global.u64 " + pf + ", " + file);
  e.ins("cvta.global.u64 " + pfn + ", " + func);
  e.raw("\t{\n\t.param .b64 a0;\n\t.param .b64 a1;\n\t.param .b32 a2;\n\t.param .b64 a3;\n\t.param .b64 a4;\n"
        "\tst.param.b64 [a0], " + pm + ";\n\tst.param.b64 [a1], " + pf + ";\n\tst.param.b32 [a2], " +
        std::to_string(line) + ";\n\tst.param.b64 [a3], " + pfn + ";\n\tst.param.b64 [a4], 1;\n"
        "\tcall.uni __assertfail, (a0, a1, a2, a3, a4);\n\t}");
  e.ins("trap");
  e.raw(ok + ":");
  e.setUsesAssert();
}

/// printf format and vprintf argument of one element.
struct PrintArg {
  std::string format;
  std::string reg;
  int bytes;  ///< 4 or 8
};

PrintArg printValue(Emitter& e, Operation* op, Type t, const std::string& v, bool hex, bool isSigned) {
  if (t.isPointer()) return {"0x%llx", v, 8};
  if (hex) {
    unsigned bits = t.isInteger(1) ? 1 : t.bitWidth();
    std::string w = std::to_string(bits == 1 ? 1 : bits / 4);
    if (bits == 64) return {"0x%0" + w + "llx", v, 8};
    if (t.isInteger(1)) {
      std::string d = e.reg(RegClass::B32);
      e.ins("selp.b32 " + d + ", 1, 0, " + v);
      return {"0x%0" + w + "x", d, 4};
    }
    std::string d = bits == 32 ? v : e.reg(RegClass::B32);
    if (bits < 32) {
      std::string m = e.reg(RegClass::B32);
      e.ins("cvt.u32.u16 " + m + ", " + v);
      e.ins("and.b32 " + d + ", " + m + ", " + std::to_string((1u << bits) - 1));
    }
    return {"0x%0" + w + "x", d, 4};
  }
  if (t.isFloat()) {
    std::string d = t.kind() == TypeKind::F64 ? v : emitCast(e, op, v, t, Type::f64());
    return {"%f", d, 8};
  }
  if (t.isInteger(1)) {
    std::string d = e.reg(RegClass::B32);
    e.ins("selp.b32 " + d + ", 1, 0, " + v);
    return {"%d", d, 4};
  }
  unsigned bits = t.bitWidth();
  if (bits == 64) return {isSigned ? "%lld" : "%llu", v, 8};
  std::string d = v;
  if (bits < 32) {
    d = e.reg(RegClass::B32);
    if (isSigned) {
      e.ins("cvt.s32.s16 " + d + ", " + v);
    } else {
      std::string m = e.reg(RegClass::B32);
      e.ins("cvt.u32.u16 " + m + ", " + v);
      e.ins("and.b32 " + d + ", " + m + ", " + std::to_string((1u << bits) - 1));
    }
  }
  return {isSigned ? "%d" : "%u", d, 4};
}

std::string escapePercent(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

/// One vprintf call with `args` (4- or 8-byte values, each aligned).
void callPrintf(Emitter& e, const std::string& format, const std::vector<PrintArg>& args,
                const std::string& pred) {
  int64_t offset = 0;
  std::vector<int64_t> offsets;
  for (const auto& a : args) {
    offset = (offset + a.bytes - 1) / a.bytes * a.bytes;
    offsets.push_back(offset);
    offset += a.bytes;
  }
  std::string buf = e.localBuffer(std::max<int64_t>(offset, 8));
  std::string skip = e.newLabel("print_skip");
  if (!pred.empty()) e.ins("@!" + pred + " bra " + skip);
  for (size_t i = 0; i < args.size(); ++i)
    e.ins("st.local.b" + std::to_string(args[i].bytes * 8) + " [" + buf + "+" + std::to_string(offsets[i]) + "], " +
          args[i].reg);
  std::string local = e.reg(RegClass::B64), generic = e.reg(RegClass::B64), fmt = e.reg(RegClass::B64);
  e.ins("mov.u64 " + local + ", " + buf);
  e.ins("cvta.local.u64 " + generic + ", " + local);
  e.ins("cvta.global.u64 " + fmt + ", " + e.globalString(format));
  e.raw("\t{\n\t.param .b64 p0;\n\t.param .b64 p1;\n\t.param .b32 r0;\n\tst.param.b64 [p0], " + fmt +
        ";\n\tst.param.b64 [p1], " + generic + ";\n\tcall.uni (r0), vprintf, (p0, p1);\n\t}");
  e.raw(skip + ":");
  e.setUsesPrintf();
}

/// Like the interpreter (and Triton): one line per element,
/// "pid (x, y, z) idx (i, j)<prefix>[(operand k) ]<value>", printed by the
/// thread that owns the element.
void emitPrint(Emitter& e, Operation* op) {
  std::string prefix = escapePercent(op->strAttr("prefix"));
  bool hex = op->boolAttr("hex");
  std::vector<int64_t> isSigned = op->hasAttr("is_signed") ? op->intArrayAttr("is_signed") : std::vector<int64_t>{};
  std::vector<PrintArg> pid;
  for (const char* axis : {"x", "y", "z"}) {
    std::string r = e.reg(RegClass::B32);
    e.ins(std::string("mov.u32 ") + r + ", %ctaid." + axis);
    pid.push_back({"%u", r, 4});
  }
  std::string head = "pid (%u, %u, %u)";
  std::string threadZero;
  threadZero = e.reg(RegClass::Pred);
  e.ins("setp.eq.u32 " + threadZero + ", " + e.threadId() + ", 0");
  if (op->numOperands() == 0) return callPrintf(e, head + prefix + "\n", pid, threadZero);
  for (unsigned k = 0; k < op->numOperands(); ++k) {
    Value v = op->operand(k);
    Type t = v.type();
    bool sgn = k < isSigned.size() ? isSigned[k] != 0 : true;
    std::string operand = op->numOperands() > 1 ? "(operand " + std::to_string(k) + ") " : "";
    if (!t.isTensor()) {
      PrintArg a = printValue(e, op, t.elementType(), e.regs(v)[0], hex, sgn);
      std::vector<PrintArg> args = pid;
      args.push_back(a);
      callPrintf(e, head + prefix + operand + a.format + "\n", args, threadZero);
      continue;
    }
    const gpu::LinearLayout& ll = e.layout(t);
    auto free = ll.freeVariableMasks();
    std::string owner = e.threadBitsZero(free[1], free[2]);
    int rank = static_cast<int>(t.rank());
    std::string idxFormat = " idx (";
    for (int d = 0; d < rank; ++d) {
      size_t width = std::to_string(std::max<int64_t>(t.shape()[d] - 1, 0)).size();
      idxFormat += (d ? ", %" : "%") + std::to_string(width) + "d";
    }
    idxFormat += ")";
    std::vector<std::string> thread;
    for (int d = 0; d < rank; ++d) thread.push_back(e.threadCoord(ll, d));
    for (int64_t i = 0; i < ll.inDimSize(HwDim::Register); ++i) {
      if (i & free[0]) continue;
      std::vector<int64_t> c = ll.apply(HwDim::Register, i);
      std::vector<PrintArg> args = pid;
      for (int d = 0; d < rank; ++d) {
        std::string x = e.reg(RegClass::B32);
        x = e.xorConst(thread[d], c[d]);
        args.push_back({"%d", x, 4});
      }
      PrintArg a = printValue(e, op, t.elementType(), e.regs(v)[i], hex, sgn);
      args.push_back(a);
      callPrintf(e, head + idxFormat + prefix + operand + a.format + "\n", args, owner);
    }
  }
}

}  // namespace

void emitDebugOp(Emitter& e, Operation* op) {
  switch (op->code()) {
    case OpCode::DebugBarrier: e.barrier(); return;
    case OpCode::FenceAsyncGlobal: e.ins("fence.proxy.async.global"); return;
    // Programmatic dependent launch needs sm_90; earlier launches never
    // overlap, so the wait has nothing to wait for and the signal no one to tell.
    case OpCode::GridDepWait:
      if (e.options().target.capability >= 90) e.ins("griddepcontrol.wait");
      return;
    case OpCode::GridDepLaunchDependents:
      if (e.options().target.capability >= 90) e.ins("griddepcontrol.launch_dependents");
      return;
    case OpCode::Assume: return;
    case OpCode::Assert: return emitAssert(e, op);
    case OpCode::Print: return emitPrint(e, op);
    default: e.fail(op, "unexpected debug op");
  }
}

}  // namespace tessera::ptx
