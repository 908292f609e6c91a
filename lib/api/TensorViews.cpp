//===- TensorViews.cpp - Tensors over memory they do not own, and views ---===//
//
// Tensor::from_blob wraps memory another library allocated (device memory
// of a CUDA device, host memory for the interpreter) without copying it;
// slice / transpose / permute / reshape / expand make views: a new shape,
// strides and first element over the same storage, as torch's do. A view is
// checked to stay inside its storage when made, so a kernel launched on it
// receives a pointer to memory that exists (kernels see only the pointer;
// the strides are the caller's to pass, as in Triton).
//
//===----------------------------------------------------------------------===//

#include <numeric>

#include "Internal.h"

namespace tessera {

namespace detail {

int64_t spanElements(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  int64_t last = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return 0;
    last += (shape[d] - 1) * strides[d];
  }
  return last + 1;
}

}  // namespace detail

namespace {

int checkedDim(const char* what, int dim, size_t rank) {
  int r = static_cast<int>(rank);
  int d = dim < 0 ? dim + r : dim;
  if (d < 0 || d >= r)
    throw Error(std::string("Tensor::") + what + ": dimension " + std::to_string(dim) + " out of range for a tensor of rank " +
                std::to_string(r));
  return d;
}

std::vector<int64_t> rowMajor(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

}  // namespace

Tensor Tensor::from_blob(Device& device, void* data, DType dtype, std::vector<int64_t> shape,
                         std::vector<int64_t> strides, std::function<void()> deleter, bool read_only) {
  int64_t numel = detail::checkedNumel(shape, dtype);
  if (strides.empty()) strides = rowMajor(shape);
  if (strides.size() != shape.size())
    throw Error("Tensor::from_blob: " + std::to_string(strides.size()) + " strides for a shape of rank " +
                std::to_string(shape.size()));
  for (size_t d = 0; d < strides.size(); ++d)
    if (strides[d] < 0)
      throw Error("Tensor::from_blob: dimension " + std::to_string(d) + " has a negative stride (" +
                  std::to_string(strides[d]) + ")");
  if (!data && numel > 0) throw Error("Tensor::from_blob: null data for a tensor of " + std::to_string(numel) + " elements");
  size_t bytes = static_cast<size_t>(detail::spanElements(shape, strides)) * dtype_size(dtype);
  const auto& impl = *device.impl();
  auto release = deleter ? std::move(deleter) : std::function<void()>([] {});
  auto storage = impl.kind == detail::DeviceKind::Cuda
                     ? std::make_shared<detail::TensorStorage>(detail::DeviceKind::Cuda, data, bytes, impl.cuda, release)
                     : std::make_shared<detail::TensorStorage>(detail::DeviceKind::Interpreter, data, bytes, nullptr,
                                                               release);
  storage->readOnly = read_only;
  return Tensor(std::move(storage), dtype, std::move(shape), std::move(strides), 0);
}

Tensor Tensor::slice(int dim, int64_t start, int64_t stop, int64_t step) const {
  if (!storage_) throw Error("Tensor::slice: the tensor is undefined");
  int d = checkedDim("slice", dim, shape().size());
  if (step <= 0) throw Error("Tensor::slice: step must be positive, got " + std::to_string(step));
  int64_t n = shape()[d];
  auto clamp = [n](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
  start = clamp(start);
  stop = std::max(clamp(stop), start);
  std::vector<int64_t> dims = shape(), st = strides();
  dims[d] = (stop - start + step - 1) / step;
  int64_t offset = storage_offset() + (dims[d] > 0 ? start * st[d] : 0);
  st[d] *= step;
  return Tensor(storage_, dtype_, std::move(dims), std::move(st), offset);
}

Tensor Tensor::transpose(int dim0, int dim1) const {
  if (!storage_) throw Error("Tensor::transpose: the tensor is undefined");
  int a = checkedDim("transpose", dim0, shape().size()), b = checkedDim("transpose", dim1, shape().size());
  std::vector<int64_t> dims = shape(), st = strides();
  std::swap(dims[a], dims[b]);
  std::swap(st[a], st[b]);
  return Tensor(storage_, dtype_, std::move(dims), std::move(st), storage_offset());
}

Tensor Tensor::permute(const std::vector<int>& order) const {
  if (!storage_) throw Error("Tensor::permute: the tensor is undefined");
  size_t rank = shape().size();
  if (order.size() != rank)
    throw Error("Tensor::permute: " + std::to_string(order.size()) + " dimensions given for a tensor of rank " +
                std::to_string(rank));
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> dims(rank), st(rank);
  for (size_t i = 0; i < rank; ++i) {
    int d = checkedDim("permute", order[i], rank);
    if (seen[d]) throw Error("Tensor::permute: dimension " + std::to_string(d) + " appears twice");
    seen[d] = true;
    dims[i] = shape()[d];
    st[i] = strides()[d];
  }
  return Tensor(storage_, dtype_, std::move(dims), std::move(st), storage_offset());
}

Tensor Tensor::reshape(std::vector<int64_t> dims) const {
  if (!storage_) throw Error("Tensor::reshape: the tensor is undefined");
  if (!is_contiguous())
    throw Error("Tensor::reshape: the tensor (shape " + detail::shapeText(shape()) + ", strides " +
                detail::shapeText(strides()) + ") is not contiguous; a reshape of it would need a copy");
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (inferred >= 0) throw Error("Tensor::reshape: only one dimension can be -1");
      inferred = static_cast<int>(i);
    } else if (dims[i] < 0) {
      throw Error("Tensor::reshape: negative dimension " + std::to_string(dims[i]));
    } else if (__builtin_mul_overflow(known, dims[i], &known)) {
      throw Error("Tensor::reshape: the shape " + detail::shapeText(dims) + " has more than 2^63 elements");
    }
  }
  if (inferred >= 0) {
    if (known == 0 || numel() % known != 0)
      throw Error("Tensor::reshape: shape " + detail::shapeText(dims) + " is invalid for " + std::to_string(numel()) +
                  " elements");
    dims[inferred] = numel() / known;
    known = numel();
  }
  if (known != numel())
    throw Error("Tensor::reshape: shape " + detail::shapeText(dims) + " is invalid for " + std::to_string(numel()) +
                " elements");
  std::vector<int64_t> st = rowMajor(dims);
  return Tensor(storage_, dtype_, std::move(dims), std::move(st), storage_offset());
}

Tensor Tensor::contiguous() const {
  if (!storage_) throw Error("Tensor::contiguous: the tensor is undefined");
  if (is_contiguous()) return *this;
  Device device = storage_->kind == detail::DeviceKind::Cuda ? Device::cuda(storage_->cuda->ordinal())
                                                             : Device::interpreter();
  std::vector<std::byte> bytes = download_bytes();  // gathered in row-major order
  return device.upload(bytes.data(), dtype_, shape());
}

Tensor Tensor::expand(std::vector<int64_t> dims) const {
  if (!storage_) throw Error("Tensor::expand: the tensor is undefined");
  const std::vector<int64_t>& have = shape();
  if (dims.size() < have.size())
    throw Error("Tensor::expand: the shape " + detail::shapeText(dims) + " has fewer dimensions than the tensor's " +
                detail::shapeText(have));
  size_t lead = dims.size() - have.size();
  std::vector<int64_t> st(dims.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i < lead) {
      if (dims[i] < 0) throw Error("Tensor::expand: a new leading dimension cannot be " + std::to_string(dims[i]));
      continue;  // stride 0
    }
    int64_t n = have[i - lead];
    if (dims[i] == -1 || dims[i] == n) {
      dims[i] = n;
      st[i] = strides()[i - lead];
    } else if (n != 1) {
      throw Error("Tensor::expand: dimension " + std::to_string(i) + " of size " + std::to_string(n) +
                  " cannot become " + std::to_string(dims[i]) + " (only size-1 dimensions expand)");
    } else if (dims[i] < 0) {
      throw Error("Tensor::expand: negative size " + std::to_string(dims[i]));
    }
  }
  return Tensor(storage_, dtype_, std::move(dims), std::move(st), storage_offset());
}

}  // namespace tessera
