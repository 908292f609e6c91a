//===- interpreter/Extern.h - libdevice symbols for the interpreter -*- C++ -*-===//
//
// The table of `__nv_*` symbols that tt.extern_elementwise can call in the
// interpreter. Every element travels as a Cell: float operands as their
// value in a double (exact for fp32), integer operands sign-extended to
// int64 (unsigned functions reinterpret the low bits), and, for entries
// marked rawBits, float operands and results as zero-extended bit patterns.
// A float result is rounded to the result type once, when it is stored.
//
//   Extern.cpp          the op: operand decoding, the element loop, lookup
//   ExternMath.cpp      transcendental and other float functions
//   ExternRounding.cpp  directed-rounding arithmetic, conversions with a
//                       rounding mode, float -> integer saturation
//   ExternBits.cpp      integer functions and bit reinterpretation
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace tessera::interp {

/// One operand or result element of an extern function.
union Cell {
  double f;
  int64_t i;
  uint64_t bits;
};

inline Cell fcell(double v) {
  Cell c;
  c.f = v;
  return c;
}
inline Cell icell(int64_t v) {
  Cell c;
  c.i = v;
  return c;
}

/// How a symbol is evaluated.
struct ExternImpl {
  int arity = 1;
  Cell (*fn)(const Cell*) = nullptr;
  /// A <cfenv> rounding mode set around the element loop (-1: none).
  int roundMode = -1;
  /// Float operands and results are bit patterns in Cell::bits.
  bool rawBits = false;
};

using ExternTable = std::map<std::string, ExternImpl, std::less<>>;

void addExternMath(ExternTable& t);
void addExternRounding(ExternTable& t);
void addExternBits(ExternTable& t);

/// The symbol table (built once).
const ExternTable& externTable();

/// Whether the interpreter implements `symbol` with `arity` operands.
bool externSymbolAvailable(std::string_view symbol, size_t arity);

}  // namespace tessera::interp
