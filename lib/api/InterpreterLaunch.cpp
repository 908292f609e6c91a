//===- InterpreterLaunch.cpp - Running a launch on the CPU interpreter -----===//
//
// A bound launch's arguments become the interpreter's runtime arguments, in
// the order of the kernel's tt.func parameters (argToParam): tensors as
// host addresses (they must live on the interpreter device), a host tensor
// descriptor's base and then its shape and strides as integers, scalars as
// integers or doubles. The GPU's counterpart is Launch.cpp's packParams.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "Specialization.h"
#include "tessera/interpreter/Interpreter.h"
#include "tessera/support/Env.h"

namespace tessera::detail {

using frontend::ParamSpec;

}  // namespace tessera::detail

void tessera::interrupt_interpreter() { interp::interrupt(); }

namespace tessera::detail {

int64_t descriptorComponent(const TensorDescriptor& d, int component) {
  size_t r = d.shape.size(), c = static_cast<size_t>(component);
  return c <= r ? d.shape[c - 1] : d.strides[c - 1 - r];
}

void launchOnInterpreter(const frontend::JitFunction& fn, const CompiledKernelImpl& compiled,
                         const std::vector<BoundParam>& bound, const std::vector<int64_t>& dims,
                         const LaunchOptions& options) {
  std::vector<interp::RuntimeArg> runtimeArgs;
  runtimeArgs.reserve(compiled.argToParam.size());
  for (size_t i = 0; i < compiled.argToParam.size(); ++i) {
    int paramIndex = compiled.argToParam[i];
    const BoundParam& b = boundLeaf(bound, compiled, i);
    if (b.desc && compiled.argComponent[i] != 0) {
      runtimeArgs.push_back(interp::RuntimeArg::integer(descriptorComponent(*b.desc, compiled.argComponent[i])));
      continue;
    }
    if (b.spec.kind == ParamSpec::Kind::Pointer || b.desc) {
      if (!b.tensor->storage() || b.tensor->storage()->kind != DeviceKind::Interpreter)
        throw Error("kernel '" + fn.name + "': tensor argument '" + fn.params[paramIndex].name +
                    "' does not live on the interpreter device");
      runtimeArgs.push_back(interp::RuntimeArg::ptr(reinterpret_cast<void*>(b.tensor->data_ptr())));
    } else if (b.spec.type.isFloat()) {
      runtimeArgs.push_back(interp::RuntimeArg::floating(b.floatValue));
    } else {
      runtimeArgs.push_back(interp::RuntimeArg::integer(b.intValue));
    }
  }
  interp::LaunchConfig config;
  for (int i = 0; i < 3; ++i) config.grid[i] = dims[i];
  config.numWarps = options.num_warps;
  config.loopIterationLimit = static_cast<uint64_t>(env::integer("TESSERA_INTERPRETER_LOOP_LIMIT").value_or(0));
  interp::run(*compiled.module, compiled.name, runtimeArgs, config);
}

}  // namespace tessera::detail
