//===- CodeGen.cpp - Code generator state, diagnostics, helpers -----------===//
//
// Construction, the error channel (fail), source locations of diagnostics
// and IR ops, and the small argument-checking helpers builtins share
// (constInt, asDType, tensorArg, ...).
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace tessera::frontend {

CodeGen::CodeGen(const CompileOptions& options, ir::Module* module) : options_(options), module_(module) {}

const py::Node* CodeGen::setCurrent(const py::Node* n) {
  const py::Node* old = cur_;
  cur_ = n;
  if (n && !hostMode() && !frames_.empty()) b_.setLoc(irLoc(*n));
  return old;
}

SourceLoc CodeGen::locOf(const py::Node& at) const {
  // Inside the prelude, point at the user's call of the library function.
  for (size_t k = 0; k < frames_.size(); ++k) {
    if (frames_[k]->isPrelude && frames_[k]->fn) return frames_[k]->callSite;
  }
  const SourceProgram* p = frames_.empty() ? nullptr : frames_.back()->program;
  return SourceLoc{p ? p->source().get() : nullptr, at.line, at.col};
}

ir::Location CodeGen::irLoc(const py::Node& at) const {
  SourceLoc l = locOf(at);
  if (!l.file) return ir::Location();
  return ir::Location::get(l.file->name(), l.line, l.col);
}

void CodeGen::fail(const std::string& msg) const {
  if (cur_) fail(*cur_, msg);
  throw Error("error: " + msg);
}

void CodeGen::fail(const py::Node& at, const std::string& msg) const {
  std::string text = formatDiagnostic(locOf(at), msg);
  // Errors in a user callee also show the calls that led there.
  for (size_t k = frames_.size(); k-- > 1;) {
    const Frame& f = *frames_[k];
    if (f.isPrelude || !f.fn || !f.callSite.file) continue;
    text += "\n" + formatDiagnostic(f.callSite, "in call to '" + f.fn->name + "'", "note");
  }
  throw Error(text);
}

bool CodeGen::debugEnabled() const {
  if (options_.debug) return true;
  for (const auto& f : frames_)
    if (f->fn && f->fn->debug && !f->isPrelude) return true;
  return false;
}

ir::Type CodeGen::irType(const DType& t, const std::vector<int64_t>& shape) const {
  ir::Type e = t.toIR();
  return shape.empty() ? e : ir::Type::tensor(shape, e);
}

Val CodeGen::make(ir::OpCode code, const DType& t, const std::vector<int64_t>& shape,
                  const std::vector<ir::Value>& operands, ir::AttrMap attrs) {
  if (hostMode()) fail("this expression needs the device and cannot be evaluated on the host");
  ir::Operation* op = b_.create(code, {irType(t, shape)}, operands, std::move(attrs));
  return Val::tensor(op->result(), t, shape);
}

int64_t CodeGen::constInt(const Val& v, const char* what) {
  if (v.kind == Val::Kind::Bool) return v.b;
  if (v.kind != Val::Kind::Int)
    fail(std::string(what) + " must be a constexpr integer, got " + v.typeName());
  if (!v.i.fitsInt64()) fail(std::string(what) + " is out of range: " + v.i.toString());
  return v.i.toInt64();
}

std::vector<int64_t> CodeGen::constIntList(const Val& v, const char* what) {
  std::vector<int64_t> out;
  if (v.isTuple()) {
    for (const auto& e : v.elems) out.push_back(constInt(e, what));
    return out;
  }
  out.push_back(constInt(v, what));
  return out;
}

std::string CodeGen::constStr(const Val& v, const char* what) {
  if (v.kind == Val::Kind::None) return "";
  if (v.kind != Val::Kind::Str) fail(std::string(what) + " must be a constexpr string, got " + v.typeName());
  return v.s;
}

bool CodeGen::constBool(const Val& v, const char* what) {
  if (!v.isConstexpr() || v.isTuple()) fail(std::string(what) + " must be a constexpr bool, got " + v.typeName());
  return v.truthy();
}

DType CodeGen::asDType(const Val& v, const char* what) {
  if (v.kind == Val::Kind::DType) return v.dtype;
  if (v.kind == Val::Kind::Str)
    if (auto t = DType::fromName(v.s)) return *t;
  fail(std::string(what) + " must be a dtype (e.g. tl.float32), got " + v.typeName());
}

Val CodeGen::tensorArg(const Val& v, const char* what) {
  if (v.isTensor()) return v;
  if (v.isNumber()) return toTensor(v);
  fail(std::string(what) + " must be a tensor or a number, got " + v.typeName());
}

int64_t CodeGen::normAxis(int64_t axis, int64_t rank, const char* what) {
  if (axis < -rank || axis >= rank)
    fail(std::string(what) + ": axis " + std::to_string(axis) + " is out of range for a tensor of rank " +
         std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

// A tensor descriptor's base, shape and strides are tensors too: a helper
// given one gets them as parameters like any other tensor, so its body
// never refers to the caller's values.
void flattenTensors(const Val& v, std::vector<Val>& leaves) {
  if (v.isTensor()) leaves.push_back(v);
  else if (v.isTuple() || v.kind == Val::Kind::TensorDesc)
    for (const auto& e : v.elems) flattenTensors(e, leaves);
}

Val rebuildTensors(const Val& templ, const std::vector<Val>& values, size_t& pos) {
  if (templ.isTensor()) return values[pos++];
  if (templ.isTuple() || templ.kind == Val::Kind::TensorDesc) {
    Val r = templ;
    for (auto& e : r.elems) e = rebuildTensors(e, values, pos);
    return r;
  }
  return templ;
}

}  // namespace tessera::frontend
