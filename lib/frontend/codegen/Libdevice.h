//===- Libdevice.h - The libdevice overload table -------------*- C++ -*-===//
//
// Read access to the table that Libdevice.cpp dispatches on: one entry per
// (function, exact argument dtypes) pair with the `__nv_*` symbol it calls
// and its result dtype. Tests walk it to check that every symbol the
// frontend can emit is implemented by the interpreter.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace tessera::frontend {

/// One overload of a libdevice function. Dtypes are Triton's names
/// ("fp32", "int32", "uint64", ...).
struct LibdeviceOverload {
  std::string name;                 ///< the Python name: "pow", "float2int_rn"
  std::vector<std::string> args;    ///< exact argument dtypes, in order
  std::string symbol;               ///< "__nv_powif"
  std::string result;               ///< result dtype of the extern call
  bool resultToBool = false;        ///< Triton converts the result to int1 (isnan, ...)
};

/// Every overload the frontend knows, sorted by name.
std::vector<LibdeviceOverload> libdeviceOverloads();

}  // namespace tessera::frontend
