// A C++ program using only Tessera's installed headers: a kernel from
// source, launched on the interpreter, its result checked.
#include <tessera/tessera.h>

#include <cstdio>
#include <vector>

int main() {
  const char* source = R"(
import triton
import triton.language as tl

@triton.jit
def axpy(y_ptr, x_ptr, n, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(y_ptr + offs, mask=m) + a * tl.load(x_ptr + offs, mask=m), mask=m)
)";
  try {
    tessera::Device dev = tessera::Device::interpreter();
    const int64_t n = 1000;
    std::vector<float> x(n), y(n);
    for (int64_t i = 0; i < n; ++i) x[i] = float(i % 17), y[i] = float(i % 5);
    tessera::Tensor tx = dev.upload(x, {n}), ty = dev.upload(y, {n});
    tessera::Program::from_source(source, "axpy.py")
        .kernel("axpy")
        .launch(dev, {tessera::cdiv(n, 128)}, {ty, tx, n, 3.0f}, {{"BLOCK", int64_t(128)}});
    std::vector<float> out = ty.download<float>();
    for (int64_t i = 0; i < n; ++i)
      if (out[i] != y[i] + 3.0f * x[i]) {
        std::printf("element %lld: %g\n", static_cast<long long>(i), out[i]);
        return 1;
      }
    // A Tessera error reaches the program as a tessera::Error.
    try {
      tessera::Program::from_source("def broken(:\n", "broken.py");
      std::printf("no error for a broken program\n");
      return 1;
    } catch (const tessera::Error& e) {
    }
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
  std::printf("consumer: ok\n");
  return 0;
}
