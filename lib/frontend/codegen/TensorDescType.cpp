//===- TensorDescType.cpp - "tensordesc<fp16[64, 64]>" parameter types ----===//
//
// The signature type of a host tensor descriptor parameter (Frontend.h,
// TensorDescType): element type, block shape and, when not zeros, the
// padding, and "tf32" when loads round fp32 to tf32:
// "tensordesc<fp16[64, 64]>", "tensordesc<fp32[16, 32], nan, tf32>".
//
//===----------------------------------------------------------------------===//

#include <cctype>

#include "tessera/frontend/Frontend.h"

namespace tessera::frontend {

namespace {

std::string strip(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

}  // namespace

std::optional<TensorDescType> TensorDescType::parse(const std::string& type) {
  const std::string prefix = "tensordesc<";
  std::string t = strip(type);
  if (t.rfind(prefix, 0) != 0 || t.back() != '>') return std::nullopt;
  std::string inner = t.substr(prefix.size(), t.size() - prefix.size() - 1);
  size_t open = inner.find('['), close = inner.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  TensorDescType d;
  d.dtype = strip(inner.substr(0, open));
  std::string dims = inner.substr(open + 1, close - open - 1), rest = strip(inner.substr(close + 1));
  size_t at = 0;
  while (at <= dims.size()) {
    size_t comma = dims.find(',', at);
    std::string dim = strip(dims.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (dim.empty() || dim.find_first_not_of("0123456789") != std::string::npos || dim.size() > 9)
      return std::nullopt;
    d.block.push_back(std::stoll(dim));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  // Options after the block: the padding ("zero", "nan") and "tf32".
  while (!rest.empty()) {
    if (rest[0] != ',') return std::nullopt;
    size_t next = rest.find(',', 1);
    std::string item = strip(rest.substr(1, next == std::string::npos ? std::string::npos : next - 1));
    rest = next == std::string::npos ? "" : rest.substr(next);
    if (item == "zero" || item == "nan") d.padding = item;
    else if (item == "tf32") d.roundTf32 = true;
    else return std::nullopt;
  }
  if (d.dtype.empty() || (d.roundTf32 && d.dtype != "fp32")) return std::nullopt;  // tf32 rounds fp32 only
  return d;
}

std::string TensorDescType::str() const {
  std::string s = "tensordesc<" + dtype + "[";
  for (size_t i = 0; i < block.size(); ++i) s += (i ? ", " : "") + std::to_string(block[i]);
  return s + "]" + (padding == "nan" ? ", nan" : "") + (roundTf32 ? ", tf32" : "") + ">";
}

}  // namespace tessera::frontend
