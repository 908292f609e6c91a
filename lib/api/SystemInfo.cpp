//===- SystemInfo.cpp - What this process can use --------------------------===//
//
// tessera::system_info(): CPUs, the CUDA toolkit, the driver's GPUs, for
// `tessera info` and users deciding between the interpreter and a GPU.
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/Assembler.h"
#include "tessera/runtime/Driver.h"
#include "tessera/support/ThreadPool.h"
#include "tessera/tessera.h"

namespace tessera {

SystemInfo system_info() {
  SystemInfo info;
  info.usable_cpus = usableCpus();
  info.toolkit = runtime::toolkitAvailable(&info.toolkit_problem);
  if (info.toolkit) info.toolkit_problem.clear();
  if (!runtime::cudaAvailable(&info.gpu_problem)) return info;
  info.gpu_problem.clear();
  for (int i = 0, n = runtime::cudaDeviceCount(); i < n; ++i) {
    SystemInfo::Gpu& gpu = info.gpus.emplace_back();
    try {
      const runtime::CudaDevice& d = runtime::CudaDevice::get(i);
      gpu.name = d.name();
      gpu.arch = d.target().name();
      gpu.multiprocessors = d.multiprocessorCount();
    } catch (const Error& e) {
      gpu.problem = e.what();
    }
  }
  return info;
}

}  // namespace tessera
