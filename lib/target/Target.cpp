//===- Target.cpp - GPU architecture names ---------------------------------===//
//
// "sm_90a" <-> capability 90 + arch-specific, and the PTX ISA version each
// target needs. We emit the oldest PTX version that covers the target so a
// CUDA 12.4 toolkit (PTX 8.4) assembles everything up to sm_90a.
//
//===----------------------------------------------------------------------===//

#include <cctype>

#include "tessera/Error.h"
#include "tessera/gpu/Target.h"

namespace tessera::gpu {

Target Target::parse(const std::string& name) {
  std::string s = name;
  if (s.rfind("sm_", 0) == 0) s = s.substr(3);
  Target t;
  t.archSpecific = !s.empty() && s.back() == 'a';
  if (t.archSpecific) s.pop_back();
  bool digits = s.size() >= 2 && s.size() <= 3;
  for (char c : s) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (!digits)
    throw Error("unknown GPU architecture '" + name + "' (expected a name like sm_80, sm_90 or sm_90a)");
  t.capability = std::stoi(s);
  if (t.capability < 70)
    throw Error("GPU architecture '" + name + "' is not supported (Tessera needs sm_70 or newer)");
  // NVIDIA's compute capabilities; the "a" (architecture-specific) forms
  // exist from sm_90 on.
  static const int kKnown[] = {70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121};
  bool known = false;
  std::string list;
  for (int k : kKnown) {
    known = known || k == t.capability;
    list += (list.empty() ? "sm_" : ", sm_") + std::to_string(k) + (k >= 90 ? "[a]" : "");
  }
  if (!known || (t.archSpecific && t.capability < 90))
    throw Error("unknown GPU architecture '" + name + "' (known: " + list + ")");
  return t;
}

std::string Target::name() const { return "sm_" + std::to_string(capability) + (archSpecific ? "a" : ""); }

std::string Target::ptxVersion() const {
  if (capability >= 120) return "8.7";
  if (capability >= 100) return "8.6";
  if (capability >= 90) return "8.0";
  if (capability >= 89) return "7.8";
  if (capability >= 86) return "7.1";
  if (capability >= 80) return "7.0";
  return "6.4";
}

std::string libdeviceWrapperName(const std::string& symbol) { return "__tessera" + symbol; }

}  // namespace tessera::gpu
