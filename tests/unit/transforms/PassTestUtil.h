//===- PassTestUtil.h - Helpers for the transforms unit tests ---*- C++ -*-===//
//
// Tests write IR in the text form, run one pass, and compare the printed
// result with the printed form of the expected IR (both go through the
// printer, so value numbering and spacing do not matter).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <gtest/gtest.h>

#include "tessera/Error.h"
#include "tessera/ir/Builder.h"
#include "tessera/transforms/Passes.h"
#include "transforms/PassDetail.h"

namespace tessera::transforms::testing {

/// Parses and verifies (so a test cannot start from invalid IR).
inline std::unique_ptr<ir::Module> parse(std::string_view text) {
  auto module = ir::parseModule(text, "test.ttir");
  ir::verifyOrThrow(*module, "parsing");
  return module;
}

/// Runs one pass (and the verifier) by its registry name.
inline void runPass(ir::Module& module, std::string_view spec) { runPasses(module, spec); }

/// Text after running `spec` on `input`.
inline std::string after(std::string_view spec, std::string_view input) {
  auto module = parse(input);
  runPass(*module, spec);
  return ir::print(*module);
}

/// The canonical printed form of `text`.
inline std::string canon(std::string_view text) { return ir::print(*parse(text)); }

/// A detached tt.func @name with `params` and `results` and an entry block.
inline ir::Operation* makeFunc(const std::string& name, const std::vector<ir::Type>& params,
                               const std::vector<ir::Type>& results = {}) {
  ir::AttrMap attrs;
  attrs["sym_name"] = name;
  attrs["result_types"] = results;
  ir::Operation* func = ir::Operation::create(ir::OpCode::Func, {}, {}, {}, std::move(attrs), 1);
  ir::Block* entry = func->region(0).addBlock();
  for (ir::Type t : params) entry->addArgument(t);
  return func;
}

}  // namespace tessera::transforms::testing
