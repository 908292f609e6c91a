//===- Tensor.cpp - Tensors, devices and their memory ---------------------===//
//
// Tensors are shared handles to an allocation plus dtype/shape/strides. On
// the interpreter the allocation is host memory registered with the bounds
// checker, so a kernel that reads past a tensor gets a diagnostic instead of
// corrupting the process. On a CUDA device the allocation is device memory
// (cuMemAlloc) and copies go through the driver (tessera/runtime/Driver.h).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <thread>

#include "Internal.h"
#include "tessera/interpreter/Interpreter.h"
#include "tessera/support/Env.h"
#include "tessera/support/ThreadPool.h"

namespace tessera {

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::i1: case DType::i8: case DType::u8: case DType::fp8e4nv: case DType::fp8e5: return 1;
    case DType::i16: case DType::u16: case DType::fp16: case DType::bf16: return 2;
    case DType::i32: case DType::u32: case DType::fp32: return 4;
    case DType::i64: case DType::u64: case DType::fp64: return 8;
  }
  return 1;
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::i1: return "i1";
    case DType::i8: return "i8";
    case DType::i16: return "i16";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::u8: return "u8";
    case DType::u16: return "u16";
    case DType::u32: return "u32";
    case DType::u64: return "u64";
    case DType::fp8e4nv: return "fp8e4nv";
    case DType::fp8e5: return "fp8e5";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::fp32: return "fp32";
    case DType::fp64: return "fp64";
  }
  return "?";
}

namespace detail {

const char* signatureName(DType dtype) { return dtype_name(dtype); }

TensorStorage::TensorStorage(DeviceKind kind, size_t bytes) : kind(kind), bytes(bytes) {
  assert(kind == DeviceKind::Interpreter && "CUDA storage is made with the CudaDevice constructor");
  // Round up so aligned_alloc's size rule holds; keep at least one line so
  // even empty tensors have a distinct, registered address.
  size_t rounded = std::max<size_t>(64, (bytes + 63) / 64 * 64);
  data = std::aligned_alloc(64, rounded);
  if (!data) throw Error("out of host memory allocating " + std::to_string(bytes) + " bytes");
  interp::registerAllocation(data, bytes, "tensor");
}

TensorStorage::TensorStorage(runtime::CudaDevice& device, size_t bytes)
    : kind(DeviceKind::Cuda), bytes(bytes), cuda(&device) {
  data = reinterpret_cast<void*>(device.allocate(bytes));
}

TensorStorage::TensorStorage(DeviceKind kind, void* data, size_t bytes, runtime::CudaDevice* cuda,
                             std::function<void()> release)
    : kind(kind), data(data), bytes(bytes), cuda(cuda), release(std::move(release)) {
  if (kind == DeviceKind::Interpreter) interp::registerAllocation(data, bytes, "tensor from DLPack");
}

TensorStorage::~TensorStorage() {
  if (release) {
    if (kind == DeviceKind::Interpreter) interp::unregisterAllocation(data);
    release();
    return;
  }
  if (kind == DeviceKind::Cuda) {
    cuda->release(devicePtr());
    return;
  }
  interp::unregisterAllocation(data);
  std::free(data);
}

}  // namespace detail

static std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

Tensor::Tensor(std::shared_ptr<detail::TensorStorage> storage, DType dtype, std::vector<int64_t> shape)
    : storage_(std::move(storage)), dtype_(dtype) {
  auto layout = std::make_shared<detail::TensorLayout>();
  layout->strides = contiguousStrides(shape);
  layout->shape = std::move(shape);
  layout_ = std::move(layout);
}

Tensor::Tensor(std::shared_ptr<detail::TensorStorage> storage, DType dtype, std::vector<int64_t> shape,
               std::vector<int64_t> strides, int64_t offset)
    : storage_(std::move(storage)), dtype_(dtype) {
  if (strides.size() != shape.size())
    throw Error("tensor view: " + std::to_string(strides.size()) + " strides for " + std::to_string(shape.size()) +
                " dimensions");
  int64_t numel = detail::checkedNumel(shape, dtype);
  if (offset < 0) throw Error("tensor view: negative storage offset " + std::to_string(offset));
  for (size_t d = 0; d < strides.size(); ++d)
    if (strides[d] < 0)
      throw Error("tensor view: dimension " + std::to_string(d) + " has a negative stride (" +
                  std::to_string(strides[d]) + "); Tessera tensors take strides >= 0");
  if (numel > 0) {
    int64_t last = offset + detail::spanElements(shape, strides) - 1;
    int64_t have = static_cast<int64_t>(storage_->bytes / dtype_size(dtype));
    if (last >= have)
      throw Error("tensor view: shape " + detail::shapeText(shape) + " with strides " + detail::shapeText(strides) +
                  " at offset " + std::to_string(offset) + " reaches element " + std::to_string(last) +
                  ", past the " + std::to_string(have) + " elements of its memory");
  }
  auto layout = std::make_shared<detail::TensorLayout>();
  layout->shape = std::move(shape);
  layout->strides = std::move(strides);
  layout->offset = offset;
  layout_ = std::move(layout);
}

static const detail::TensorLayout& noLayout() {
  static const detail::TensorLayout empty;
  return empty;
}

DType Tensor::dtype() const { return dtype_; }
const std::vector<int64_t>& Tensor::shape() const { return (layout_ ? *layout_ : noLayout()).shape; }
const std::vector<int64_t>& Tensor::strides() const { return (layout_ ? *layout_ : noLayout()).strides; }

int64_t Tensor::stride(int dim) const {
  const std::vector<int64_t>& all = strides();
  int rank = static_cast<int>(all.size());
  int index = dim < 0 ? dim + rank : dim;
  if (index < 0 || index >= rank)
    throw Error("Tensor::stride: dimension " + std::to_string(dim) + " out of range for a tensor of rank " +
                std::to_string(rank) + " (expected " + (rank ? std::to_string(-rank) + " to " + std::to_string(rank - 1)
                                                             : std::string("none: a scalar has no strides")) + ")");
  return all[index];
}

int64_t Tensor::numel() const {
  // The product fits (checkedNumel made the shape), unless a zero comes
  // after dims whose product does not: an empty tensor.
  const std::vector<int64_t>& dims = shape();
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return 0;
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

size_t Tensor::nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }

uint64_t Tensor::data_ptr() const {
  if (!storage_) return 0;
  return reinterpret_cast<uint64_t>(storage_->data) + static_cast<uint64_t>(storage_offset()) * dtype_size(dtype_);
}

int64_t Tensor::storage_offset() const { return layout_ ? layout_->offset : 0; }

bool Tensor::is_read_only() const { return storage_ && storage_->readOnly; }

bool Tensor::is_on(const Device& device) const {
  const detail::DeviceImpl& d = *device.impl();
  return storage_ && storage_->kind == d.kind && (d.kind != detail::DeviceKind::Cuda || storage_->cuda == d.cuda);
}

bool Tensor::is_contiguous() const {
  const std::vector<int64_t>& dims = shape();
  const std::vector<int64_t>& st = strides();
  int64_t expect = 1;
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    if (dims[d] != 1 && st[d] != expect) return numel() == 0;
    expect *= dims[d];
  }
  return true;
}

void Tensor::check_element_size(size_t size) const {
  if (size != dtype_size(dtype_))
    throw Error(std::string("Tensor::download: element type of size ") + std::to_string(size) +
                " does not match the tensor's dtype " + dtype_name(dtype_));
}

std::vector<std::byte> Tensor::download_bytes() const {
  if (!storage_) throw Error("Tensor::download: the tensor is undefined");
  std::vector<std::byte> out(nbytes());
  if (out.empty()) return out;
  // The bytes from the first element to the last one the view reaches; a
  // strided view is gathered from them in row-major order.
  size_t size = dtype_size(dtype_);
  bool dense = is_contiguous();
  size_t span = dense ? out.size() : static_cast<size_t>(detail::spanElements(shape(), strides())) * size;
  std::vector<std::byte> raw(dense ? 0 : span);
  std::byte* dst = dense ? out.data() : raw.data();
  if (storage_->kind == detail::DeviceKind::Cuda)
    storage_->cuda->copyToHost(dst, static_cast<runtime::DevicePtr>(data_ptr()), span);
  else
    std::memcpy(dst, reinterpret_cast<const void*>(data_ptr()), span);
  if (dense) return out;
  const std::vector<int64_t>& dims = shape();
  const std::vector<int64_t>& st = strides();
  std::vector<int64_t> index(dims.size(), 0);
  for (size_t k = 0, n = out.size() / size; k < n; ++k) {
    int64_t at = 0;
    for (size_t d = 0; d < dims.size(); ++d) at += index[d] * st[d];
    std::memcpy(out.data() + k * size, raw.data() + at * size, size);
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

Device Device::interpreter() {
  static auto impl = std::make_shared<detail::DeviceImpl>();
  return Device(impl);
}

Device Device::cuda(int ordinal) {
  runtime::CudaDevice* device = nullptr;
  try {
    device = &runtime::CudaDevice::get(ordinal);
  } catch (const Error& e) {
    std::string msg = e.what();
    if (msg.rfind("Device::cuda(", 0) == 0) throw;
    throw Error("Device::cuda(" + std::to_string(ordinal) + "): " + msg);
  }
  // One handle per ordinal, so devices compare equal by impl().
  static std::mutex mutex;
  static std::map<int, std::shared_ptr<detail::DeviceImpl>> impls;
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<detail::DeviceImpl>& impl = impls[ordinal];
  if (!impl) {
    impl = std::make_shared<detail::DeviceImpl>();
    impl->kind = detail::DeviceKind::Cuda;
    impl->ordinal = ordinal;
    impl->cuda = device;
  }
  return Device(impl);
}

Device Device::default_device() {
  std::string want = env::choice("TESSERA_DEVICE", "auto");
  if (want == "interpreter" || env::flag("TESSERA_INTERPRET")) {
    if (want == "cuda")
      throw Error("TESSERA_DEVICE=cuda and TESSERA_INTERPRET=1 contradict each other: unset one of them");
    return interpreter();
  }
  if (want == "cuda") return cuda(0);  // its error says why there is no GPU
  try {
    return cuda(0);
  } catch (const Error& e) {
    env::warnOnce("default_device", std::string("no usable GPU, kernels run on the CPU interpreter (") + e.what() +
                                        "); set TESSERA_DEVICE=cuda to make this an error, or TESSERA_INTERPRET=1 "
                                        "to choose the interpreter without this message");
    return interpreter();
  }
}

bool Device::is_interpreter() const { return impl_->kind == detail::DeviceKind::Interpreter; }

std::string Device::name() const {
  return is_interpreter() ? "interpreter" : "cuda:" + std::to_string(impl_->ordinal);
}

int Device::ordinal() const { return is_interpreter() ? -1 : impl_->ordinal; }

std::string Device::arch() const { return is_interpreter() ? std::string() : impl_->cuda->target().name(); }

int Device::multiprocessor_count() const {
  if (is_interpreter()) return static_cast<int>(ThreadPool::shared().size());
  return impl_->cuda->multiprocessorCount();
}

namespace detail {

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

int64_t checkedNumel(const std::vector<int64_t>& shape, DType dtype) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0) throw Error("tensor shape " + shapeText(shape) + " has a negative dimension (" + std::to_string(d) + ")");
  // A zero anywhere is an empty tensor, however large the other dims.
  for (int64_t d : shape)
    if (d == 0) return 0;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      throw Error("tensor shape " + shapeText(shape) + " has more than 2^63 elements");
  int64_t bytes = 0;
  if (__builtin_mul_overflow(n, static_cast<int64_t>(dtype_size(dtype)), &bytes))
    throw Error("tensor shape " + shapeText(shape) + " of " + dtype_name(dtype) + " needs more than 2^63 bytes");
  return n;
}

void checkUploadCount(size_t count, DType dtype, const std::vector<int64_t>& shape) {
  int64_t n = checkedNumel(shape, dtype);
  if (static_cast<uint64_t>(n) != count)
    throw Error("Device::upload: the host vector has " + std::to_string(count) + " elements but the shape " +
                shapeText(shape) + " has " + std::to_string(n));
}

}  // namespace detail

Tensor Device::empty(DType dtype, std::vector<int64_t> shape) {
  int64_t n = detail::checkedNumel(shape, dtype);
  size_t bytes = static_cast<size_t>(n) * dtype_size(dtype);
  auto storage = impl_->kind == detail::DeviceKind::Cuda
                     ? std::make_shared<detail::TensorStorage>(*impl_->cuda, bytes)
                     : std::make_shared<detail::TensorStorage>(impl_->kind, bytes);
  return Tensor(std::move(storage), dtype, std::move(shape));
}

Tensor Device::zeros(DType dtype, std::vector<int64_t> shape) {
  Tensor t = empty(dtype, std::move(shape));
  if (impl_->kind == detail::DeviceKind::Cuda)
    impl_->cuda->memset8(t.storage()->devicePtr(), 0, t.nbytes());
  else
    std::memset(t.storage()->data, 0, t.nbytes());
  return t;
}

Tensor Device::upload(const void* bytes, DType dtype, std::vector<int64_t> shape) {
  Tensor t = empty(dtype, std::move(shape));
  if (!t.nbytes()) return t;
  if (impl_->kind == detail::DeviceKind::Cuda)
    impl_->cuda->copyToDevice(t.storage()->devicePtr(), bytes, t.nbytes());
  else
    std::memcpy(t.storage()->data, bytes, t.nbytes());
  return t;
}

void Device::synchronize() {
  if (impl_->kind == detail::DeviceKind::Cuda) impl_->cuda->synchronize();
}

static std::string metaKeys(const Meta& meta) {
  std::string keys;
  for (const auto& entry : meta) keys += (keys.empty() ? "" : ", ") + entry.first;
  return keys.empty() ? "none" : keys;
}

static const Value& metaValue(const Meta& meta, const std::string& name) {
  auto it = meta.find(name);
  if (it == meta.end())
    throw Error("no meta-parameter named '" + name + "' (the meta-parameters are: " + metaKeys(meta) + ")");
  return it->second;
}

int64_t meta_int(const Meta& meta, const std::string& name) {
  const Value& v = metaValue(meta, name);
  if (const int64_t* i = std::get_if<int64_t>(&v)) return *i;
  if (const bool* b = std::get_if<bool>(&v)) return *b;
  throw Error("meta-parameter '" + name + "' is not an integer");
}

double meta_float(const Meta& meta, const std::string& name) {
  const Value& v = metaValue(meta, name);
  if (const double* d = std::get_if<double>(&v)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  throw Error("meta-parameter '" + name + "' is not a number");
}

std::vector<int64_t> Grid::resolve(const Meta& meta) const {
  std::vector<int64_t> d;
  if (!fn) {
    d = dims;
  } else {
    try {
      d = fn(meta);
    } catch (const std::out_of_range& e) {
      // m.at("BLOKC") in the callable: name what there is.
      throw Error(std::string("the grid callable looked up a meta-parameter that does not exist (") + e.what() +
                  "); the meta-parameters are: " + metaKeys(meta) +
                  ". tessera::meta_int(meta, \"NAME\") names the missing key in its error");
    }
  }
  if (d.empty() || d.size() > 3)
    throw Error("grid must have 1 to 3 dimensions, got " + std::to_string(d.size()));
  detail::checkGridDims(d);
  d.resize(3, 1);
  return d;
}

namespace detail {

void checkGridDims(const std::vector<int64_t>& d) {
  // Kept on the interpreter too, so that a launch that works there works on
  // the GPU.
  static constexpr const char* kAxis[3] = {"x", "y", "z"};
  for (size_t i = 0; i < d.size() && i < 3; ++i) {
    if (d[i] < 0)
      throw Error("grid " + shapeText(d) + ": dimension " + kAxis[i] + " is negative (" + std::to_string(d[i]) + ")");
    if (d[i] > kGridLimit[i])
      throw Error("grid " + shapeText(d) + ": dimension " + kAxis[i] + " = " + std::to_string(d[i]) +
                  " exceeds CUDA's limit of " + std::to_string(kGridLimit[i]) +
                  " (x < 2^31, y and z < 65536; a larger grid must loop over its programs)");
  }
}

}  // namespace detail

Arg Arg::tuple(std::vector<Arg> elems, std::vector<std::string> names, std::string type_name) {
  if (!names.empty() && names.size() != elems.size())
    throw Error("Arg::tuple: " + std::to_string(names.size()) + " field names for " + std::to_string(elems.size()) +
                " elements");
  Arg a(nullptr);
  a.kind = Kind::Tuple;
  a.tuple_ = std::make_shared<const ArgTuple>(ArgTuple{std::move(elems), std::move(names), std::move(type_name)});
  return a;
}

TensorDescriptor TensorDescriptor::from_tensor(const Tensor& t, std::vector<int64_t> block_shape, std::string padding,
                                               bool round_f32_to_tf32) {
  if (!t.defined()) throw Error("TensorDescriptor::from_tensor: undefined tensor");
  TensorDescriptor d;
  d.base = t;
  d.shape = t.shape();
  for (size_t k = 0; k < d.shape.size(); ++k) d.strides.push_back(t.stride(static_cast<int>(k)));
  d.block_shape = std::move(block_shape);
  d.padding = std::move(padding);
  d.round_f32_to_tf32 = round_f32_to_tf32;
  return d;
}

}  // namespace tessera
