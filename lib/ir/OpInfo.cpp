//===- OpInfo.cpp - Mnemonics and traits from the op table ----------------===//
//
// Expands Ops.def into two constexpr arrays indexed by OpCode (mnemonic and
// traits) and a sorted mnemonic -> OpCode index for the parser.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <array>

#include "tessera/ir/IR.h"

namespace tessera::ir {

namespace {

constexpr std::array<std::string_view, kNumOpCodes> kMnemonics = {
#define TESSERA_OP(Name, Mnemonic, Traits) std::string_view(Mnemonic),
#include "tessera/ir/Ops.def"
#undef TESSERA_OP
};

constexpr std::array<unsigned, kNumOpCodes> kTraits = {
#define TESSERA_OP(Name, Mnemonic, Traits) static_cast<unsigned>(Traits),
#include "tessera/ir/Ops.def"
#undef TESSERA_OP
};

/// (mnemonic, opcode) pairs sorted by mnemonic, built once.
const std::array<std::pair<std::string_view, OpCode>, kNumOpCodes>& sortedMnemonics() {
  static const auto table = [] {
    std::array<std::pair<std::string_view, OpCode>, kNumOpCodes> t;
    for (unsigned i = 0; i < kNumOpCodes; ++i) t[i] = {kMnemonics[i], static_cast<OpCode>(i)};
    std::sort(t.begin(), t.end());
    return t;
  }();
  return table;
}

}  // namespace

std::string_view mnemonic(OpCode code) { return kMnemonics[static_cast<unsigned>(code)]; }

unsigned traitsOf(OpCode code) { return kTraits[static_cast<unsigned>(code)]; }

std::optional<OpCode> opCodeFromMnemonic(std::string_view name) {
  const auto& table = sortedMnemonics();
  auto it = std::lower_bound(table.begin(), table.end(), name,
                             [](const auto& entry, std::string_view n) { return entry.first < n; });
  if (it == table.end() || it->first != name) return std::nullopt;
  return it->second;
}

}  // namespace tessera::ir
