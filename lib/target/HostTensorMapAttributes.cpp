//===- HostTensorMapAttributes.cpp - A host tensor map in the IR -----------===//
//
// See tessera/gpu/Target.h. encode-host-tensormaps writes, the PTX emitter
// reads: a ttng.host_tensormap carries the whole map, so the emitter needs
// no knowledge of how the map was recognized.
//
//===----------------------------------------------------------------------===//

#include "tessera/Error.h"
#include "tessera/gpu/Target.h"

namespace tessera::gpu {

namespace {

constexpr size_t kScalarInts = 4;  // param, constant, zero-extend, scale

void appendScalar(std::vector<int64_t>& out, const HostScalar& s) {
  out.insert(out.end(), {s.param, s.constant, s.zeroExtend ? 1 : 0, s.scale});
}

std::vector<int64_t> scalarsToInts(const std::vector<HostScalar>& scalars) {
  std::vector<int64_t> out;
  for (const HostScalar& s : scalars) appendScalar(out, s);
  return out;
}

[[noreturn]] void malformed(const ir::Operation* op, const std::string& what) {
  ir::Location l = op->loc();
  std::string where = l.known() ? *l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": " : "";
  throw Error(where + "error: " + std::string(ir::mnemonic(op->code())) + ": " + what +
              " (the attributes encode-host-tensormaps writes)");
}

std::vector<HostScalar> scalarsOf(const ir::Operation* op, const char* name) {
  if (!op->hasAttr(name)) malformed(op, std::string("missing attr `") + name + "`");
  std::vector<int64_t> ints = op->intArrayAttr(name);
  if (ints.size() % kScalarInts != 0) malformed(op, std::string("attr `") + name + "` is not 4 integers per scalar");
  std::vector<HostScalar> out;
  for (size_t i = 0; i < ints.size(); i += kScalarInts) {
    HostScalar s;
    s.param = static_cast<int>(ints[i]);
    s.constant = ints[i + 1];
    s.zeroExtend = ints[i + 2] != 0;
    s.scale = ints[i + 3];
    out.push_back(s);
  }
  return out;
}

}  // namespace

void setHostTensorMapAttributes(ir::Operation* op, const HostTensorMap& map) {
  std::vector<int64_t> base;
  appendScalar(base, map.base);
  op->setAttr("base", base);
  op->setAttr("shape", scalarsToInts(map.shape));
  op->setAttr("strides", scalarsToInts(map.strides));
  op->setAttr("box", map.box);
  op->setAttr("element_bytes", int64_t(map.elementBytes));
  op->setAttr("data_type", int64_t(map.dataType));
  op->setAttr("swizzle", int64_t(map.swizzle));
  op->setAttr("nan_fill", map.nanFill);
}

HostTensorMap hostTensorMapFromAttributes(const ir::Operation* op) {
  HostTensorMap map;
  std::vector<HostScalar> base = scalarsOf(op, "base");
  if (base.size() != 1) malformed(op, "attr `base` must be one scalar");
  map.base = base[0];
  map.shape = scalarsOf(op, "shape");
  map.strides = scalarsOf(op, "strides");
  map.box = op->intArrayAttr("box");
  if (map.shape.empty() || map.strides.size() != map.shape.size() || map.box.size() != map.shape.size())
    malformed(op, "attrs `shape`, `strides` and `box` must have one entry per dim");
  for (const char* name : {"element_bytes", "data_type", "swizzle"})
    if (!op->hasAttr(name)) malformed(op, std::string("missing attr `") + name + "`");
  map.elementBytes = static_cast<int>(op->intAttr("element_bytes"));
  map.dataType = static_cast<int>(op->intAttr("data_type"));
  map.swizzle = static_cast<int>(op->intAttr("swizzle"));
  map.nanFill = op->boolAttr("nan_fill");
  return map;
}

}  // namespace tessera::gpu
