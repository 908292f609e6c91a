//===- ArgType.cpp - The type of a specialized parameter ---------------------===//
//
// See ArgType in tessera/frontend/Frontend.h.
//
//===----------------------------------------------------------------------===//

#include <ostream>

#include "tessera/frontend/Frontend.h"

namespace tessera::frontend {

std::string ArgType::element() const {
  if (isTensorDesc()) return "";
  if (isConstPointer()) return text_.substr(2);
  if (isPointer()) return text_.substr(1);
  return text_;
}

bool ArgType::isFloat() const {
  return !isPointer() && !isTensorDesc() && (text_.rfind("fp", 0) == 0 || text_ == "bf16");
}

bool ArgType::isUnsigned() const { return !isPointer() && (text_ == "i1" || text_.rfind("u", 0) == 0); }

std::ostream& operator<<(std::ostream& os, const ArgType& t) { return os << t.str(); }

}  // namespace tessera::frontend
