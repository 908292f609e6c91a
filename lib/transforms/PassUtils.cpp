//===- PassUtils.cpp - Helpers shared by the Tile IR passes --------------===//
//
// Option parsing, the side-effect query and constant accessors declared in
// PassDetail.h. Kept apart from the registry so each pass can be linked and
// tested on its own.
//
//===----------------------------------------------------------------------===//

#include <sstream>

#include "tessera/Error.h"
#include "transforms/PassDetail.h"

namespace tessera::transforms {

bool boolOption(const PassOptions& options, const std::string& pass, const std::string& name, bool dflt) {
  auto it = options.find(name);
  if (it == options.end()) return dflt;
  if (it->second == "true" || it->second == "1") return true;
  if (it->second == "false" || it->second == "0") return false;
  throw Error("pass '" + pass + "': option '" + name + "' expects true or false, got '" + it->second + "'");
}

int64_t intOption(const PassOptions& options, const std::string& pass, const std::string& name,
                  int64_t dflt) {
  auto it = options.find(name);
  if (it == options.end()) return dflt;
  std::istringstream in(it->second);
  int64_t value = 0;
  if (!(in >> value) || !in.eof())
    throw Error("pass '" + pass + "': option '" + name + "' expects an integer, got '" + it->second + "'");
  return value;
}

bool isSideEffectFree(const ir::Operation* op) {
  using ir::OpCode;
  if (op->hasTrait(ir::Terminator)) return false;
  if (op->hasTrait(ir::Pure)) return true;
  if (op->is(OpCode::ExternElementwise) || op->is(OpCode::InlineAsm)) return op->boolAttr("pure");
  return false;
}

std::optional<ConstantValue> constantOf(ir::Value v) {
  ir::Operation* def = v ? v.definingOp() : nullptr;
  if (!def || !def->is(ir::OpCode::Constant)) return std::nullopt;
  const ir::Attribute* attr = def->attr("value");
  if (!attr) return std::nullopt;
  if (auto* i = std::get_if<int64_t>(attr)) return ConstantValue(*i);
  if (auto* b = std::get_if<bool>(attr)) return ConstantValue(int64_t(*b));
  if (auto* d = std::get_if<double>(attr)) return ConstantValue(*d);
  return std::nullopt;
}

std::optional<int64_t> intConstantOf(ir::Value v) {
  auto c = constantOf(v);
  if (!c || !v.type().elementType().isInteger()) return std::nullopt;
  if (auto* i = std::get_if<int64_t>(&*c)) return *i;
  return std::nullopt;
}

std::optional<double> floatConstantOf(ir::Value v) {
  auto c = constantOf(v);
  if (!c || !v.type().elementType().isFloat()) return std::nullopt;
  if (auto* d = std::get_if<double>(&*c)) return *d;
  if (auto* i = std::get_if<int64_t>(&*c)) return static_cast<double>(*i);
  return std::nullopt;
}

bool isZeroConstant(ir::Value v) {
  if (auto i = intConstantOf(v)) return *i == 0;
  if (auto f = floatConstantOf(v)) return *f == 0.0;
  return false;
}

}  // namespace tessera::transforms
