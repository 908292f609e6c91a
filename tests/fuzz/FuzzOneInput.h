//===- FuzzOneInput.h - One fuzz input through the whole pipeline --------===//
//
// Shared by the libFuzzer target and the regression test that replays
// tests/fuzz/regressions/: the input is a kernel source file; every
// @triton.jit function in it is compiled with a simple specialization
// (pointer-named and one-letter parameters get 4 KiB fp32 tensors, other
// lower-case ones the int 37, upper-case ones are constexprs = 16) and run on
// the interpreter over two programs with a loop budget. tessera::Error is the
// expected outcome for bad input; a crash, sanitizer report or hang is a bug.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cctype>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/tessera.h"

namespace tessera::fuzz {

inline void fuzzOneInput(std::string_view text) {
  // 10^4 iterations per program: an endless loop still ends in a diagnostic,
  // and a 1024-element loop body stays around a second under ASan.
  setenv("TESSERA_INTERPRETER_LOOP_LIMIT", "10000", 0);
  try {
    Program program = Program::from_source(std::string(text), "fuzz.py");
    Device dev = Device::interpreter();
    for (const std::string& name : program.kernel_names()) {
      Kernel kernel = program.kernel(name);
      std::vector<Arg> args;
      Meta meta;
      std::vector<Tensor> buffers;
      for (const std::string& p : kernel.parameter_names()) {
        if (!p.empty() && std::isupper(static_cast<unsigned char>(p[0]))) {
          meta[p] = int64_t{16};
        } else if (p.find("ptr") != std::string::npos || p.size() == 1) {
          buffers.push_back(dev.zeros(DType::fp32, {1024}));
          args.push_back(buffers.back());
        } else {
          args.push_back(int32_t{37});
        }
      }
      try {
        kernel.launch(dev, {2}, args, meta);
      } catch (const Error&) {
      }
    }
  } catch (const Error&) {
  }
}

}  // namespace tessera::fuzz
