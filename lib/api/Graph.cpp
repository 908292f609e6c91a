//===- Graph.cpp - Launches captured once into a CUDA graph, replayed -----===//
//
// tessera::Graph is a thin layer over the driver's stream capture: a new
// non-blocking stream is put in capture mode (this thread only), the
// user's function makes its launches on it, and the instantiated graph is
// replayed with one cuGraphLaunch. Nothing in the launch path changes for
// a capture: a launch on a capturing stream records instead of running
// (CudaDevice::launch's scratch allocation and the module load of a first
// launch are capture-aware already). On the interpreter the graph keeps the
// function and replay calls it again.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

namespace tessera {

struct Graph::Impl {
  Device device;
  runtime::CudaDevice* cuda = nullptr;
  void* exec = nullptr;                       ///< CUgraphExec (GPU)
  std::function<void(void*)> record;          ///< the interpreter's replay
  explicit Impl(Device d) : device(std::move(d)) {}
  ~Impl() {
    if (cuda) cuda->destroyGraph(exec);
  }
};

Graph Graph::capture(Device& device, std::function<void(void* stream)> record) {
  if (!record) throw Error("Graph::capture: no function to record");
  auto impl = std::make_shared<Impl>(device);
  if (device.is_interpreter()) {
    impl->record = std::move(record);
    return Graph(std::move(impl));
  }
  runtime::CudaDevice& cuda = *device.impl()->cuda;
  void* stream = cuda.beginCapture();
  try {
    record(stream);
  } catch (...) {
    cuda.endCapture(stream, /*keep=*/false);
    throw;
  }
  impl->exec = cuda.endCapture(stream, /*keep=*/true);
  impl->cuda = &cuda;
  return Graph(std::move(impl));
}

void Graph::replay(void* stream) const {
  if (!impl_) throw Error("Graph::replay: an empty graph (made by moving from it)");
  if (impl_->record) return impl_->record(nullptr);
  impl_->cuda->launchGraph(impl_->exec, stream);
}

}  // namespace tessera
