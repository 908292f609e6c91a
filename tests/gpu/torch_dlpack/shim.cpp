//===- shim.cpp - Tessera behind a C ABI, for check.py's ctypes -----------===//
//
// The PyTorch side of the DLPack check (check.py): tensors made by PyTorch
// arrive as DLManagedTensor* (from torch.utils.dlpack.to_dlpack), Tessera
// runs a kernel on them in place; a tensor Tessera made leaves as a
// DLManagedTensor* that torch.utils.dlpack.from_dlpack adopts. Errors come
// back as text, never as a C++ exception across the C boundary.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstring>
#include <string>

#include "tessera/dlpack.h"
#include "tessera/tessera.h"

namespace {

const char* kSource = R"(
import triton
import triton.language as tl

@triton.jit
def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (a * x + y).to(out_ptr.dtype.element_ty), mask=mask)

@triton.jit
def ramp(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, (offs % 1000).to(tl.float32) * 0.5, mask=offs < n)
)";

tessera::Program& program() {
  static tessera::Program p = tessera::Program::from_source(kSource, "torch_dlpack_shim.py");
  return p;
}

int fail(const std::exception& e, char* error, int capacity) {
  std::strncpy(error, e.what(), capacity - 1);
  error[capacity - 1] = 0;
  return 1;
}

}  // namespace

extern "C" {

/// out = a * x + y over three PyTorch tensors of one shape (any dtype the
/// kernel takes), in place; `out_data` gets the data pointer Tessera saw.
int tessera_axpy(void* x_dl, void* y_dl, void* out_dl, float a, uint64_t* out_data, char* error, int capacity) {
  try {
    tessera::Tensor x = tessera::from_dlpack(x_dl), y = tessera::from_dlpack(y_dl), out = tessera::from_dlpack(out_dl);
    *out_data = out.data_ptr();
    tessera::Device dev = tessera::Device::cuda(0);
    int64_t n = out.numel(), block = 1024;
    program().kernel("axpy").launch(dev, {(n + block - 1) / block}, {x, y, out, a, n}, {{"BLOCK", block}});
    dev.synchronize();
    return 0;
  } catch (const std::exception& e) {
    return fail(e, error, capacity);
  }
}

/// A rows x cols fp32 tensor made and filled by Tessera, as a
/// DLManagedTensor* for PyTorch; `data` gets its data pointer.
void* tessera_ramp(int64_t rows, int64_t cols, uint64_t* data, char* error, int capacity) {
  try {
    tessera::Device dev = tessera::Device::cuda(0);
    tessera::Tensor t = dev.zeros(tessera::DType::fp32, {rows, cols});
    int64_t n = rows * cols, block = 1024;
    program().kernel("ramp").launch(dev, {(n + block - 1) / block}, {t, n}, {{"BLOCK", block}});
    dev.synchronize();
    *data = t.data_ptr();
    return tessera::to_dlpack(t);
  } catch (const std::exception& e) {
    fail(e, error, capacity);
    return nullptr;
  }
}

/// A PyTorch tensor of any strides in (the rows 1, 3, 5, ... of it,
/// transposed, as a Tessera view), then out again to PyTorch; `strides`
/// gets the view's strides as Tessera sees them (two dims).
void* tessera_view(void* x_dl, int64_t* strides, uint64_t* data, char* error, int capacity) {
  try {
    tessera::Tensor x = tessera::from_dlpack(x_dl);
    tessera::Tensor v = x.slice(0, 1, x.shape()[0], 2).transpose(0, 1);
    strides[0] = v.stride(0);
    strides[1] = v.stride(1);
    *data = v.data_ptr();
    return tessera::to_dlpack(v);
  } catch (const std::exception& e) {
    fail(e, error, capacity);
    return nullptr;
  }
}

}  // extern "C"
