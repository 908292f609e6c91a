//===- Builtins.h - Native callables of the host evaluator -----*- C++ -*-===//
//
// Shared by Builtins.cpp (Python's builtins and methods) and Natives.cpp
// (modeled outside modules): the handler signature, argument helpers and
// the registration of the natives into the one table.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <unordered_map>

#include "Interp.h"

namespace tessera::host {

/// A native callable: `fn` is the Builtin (its name, its bound `self`).
/// Handlers remove the keyword arguments they take; any left is an error.
using Handler = Ref (*)(Interp& in, const Object& fn, std::vector<Ref>& args, Kwargs& kwargs);

/// Removes and returns keyword argument `name` (null when absent).
Ref kwarg(Kwargs& kw, const char* name);
/// Positional argument `k`, else keyword `name`, else `dflt`; a TypeError
/// when none.
Ref arg(Interp& in, const Object& fn, std::vector<Ref>& args, Kwargs& kw, size_t k, const char* name,
        Ref dflt = nullptr);
int64_t intArg(Interp& in, const Ref& v, const char* what);
double floatArg(Interp& in, const Ref& v, const char* what);
/// `a < b` in Python's ordering (a TypeError for unordered types).
bool lessThan(Interp& in, const Ref& a, const Ref& b);

void registerNatives(std::unordered_map<std::string, Handler>& table);
/// A call of a Native not in the table: an Opaque naming it.
Ref nativeCall(Interp& in, const Object& fn, std::vector<Ref>& args, Kwargs& kwargs);

}  // namespace tessera::host
