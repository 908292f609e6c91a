//===- FrontendFuzzer.cpp - libFuzzer entry for the whole pipeline --------===//
//
// Each input is a kernel source file. Every @triton.jit function in it is
// compiled with a simple specialization (pointers to fp32, i32 scalars,
// constexprs = their defaults or 16) and, when that succeeds, run on the
// interpreter over a small grid with 4 KiB buffers and an execution budget.
// tessera::Error is the expected outcome for bad input; anything else — a
// crash, a sanitizer report, a hang, an out-of-memory — is a bug.
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <string>

#include "tessera/tessera.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    tessera::Program program = tessera::Program::from_source(text, "fuzz.py");
    tessera::Device dev = tessera::Device::interpreter();
    for (const std::string& name : program.kernel_names()) {
      tessera::Kernel kernel = program.kernel(name);
      std::vector<tessera::Arg> args;
      tessera::Meta meta;
      std::vector<tessera::Tensor> buffers;
      for (const std::string& p : kernel.parameter_names()) {
        bool looksConstexpr = !p.empty() && std::isupper(static_cast<unsigned char>(p[0]));
        if (looksConstexpr) {
          meta[p] = int64_t{16};
        } else if (p.find("ptr") != std::string::npos || p.size() == 1) {
          buffers.push_back(dev.zeros(tessera::DType::fp32, {1024}));
          args.push_back(buffers.back());
        } else {
          args.push_back(int32_t{37});
        }
      }
      try {
        kernel.launch(dev, {2}, args, meta);
      } catch (const tessera::Error&) {
      }
    }
  } catch (const tessera::Error&) {
  }
  return 0;
}
