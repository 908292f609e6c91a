//===- tessera/tessera.h - The public C++ API ------------------*- C++ -*-===//
//
// Load a file written in the Triton language, pick a @triton.jit kernel and
// launch it over a grid, on the GPU or on the CPU interpreter:
//
//   auto program = tessera::Program::from_file("softmax.py");
//   auto kernel = program.kernel("softmax_kernel");
//   auto dev = tessera::Device::interpreter();
//   auto x = dev.upload(hostData, {rows, cols});
//   auto y = dev.empty(tessera::DType::fp32, {rows, cols});
//   kernel.launch(dev, {rows}, {y, x, cols}, {{"BLOCK", int64_t(1024)}});
//   std::vector<float> out = y.download<float>();
//
// Every user-facing failure throws tessera::Error whose what() is the whole
// diagnostic (file:line:col and a caret for source errors).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <cstdint>
#include <functional>
#include <optional>
#include <algorithm>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tessera/Error.h"

#include "tessera/Export.h"

TESSERA_API_BEGIN
namespace tessera {

/// Element types of tensors and kernel arguments (Triton's scalar dtypes).
enum class DType { i1, i8, i16, i32, i64, u8, u16, u32, u64,
                   fp8e4nv, fp8e5, fp16, bf16, fp32, fp64 };

/// Size in bytes of one element (i1 is stored as one byte, like torch.bool).
size_t dtype_size(DType dtype);
/// Triton's name: "i1", "fp32", "bf16", ...
const char* dtype_name(DType dtype);

/// A constexpr / meta value as grid callables and heuristics see it
/// (std::monostate: Python's None).
using Value = std::variant<bool, int64_t, double, std::string, std::monostate>;
/// Meta-parameters by name.
using Meta = std::map<std::string, Value>;

/// One constexpr given by name where a kernel is launched, as in
/// `k.launch(dev, {blocks}, {x, y, n}, {{"BLOCK", 1024}})`: a braced list
/// of these is read where it stands (a Meta would allocate a node per name
/// on every launch). The name must outlive the launch call (a literal).
struct NamedValue {
  std::string_view name;
  Value value;
};

/// meta[name] as an integer (a bool is 0 or 1), for grid callables:
/// `[](const Meta& m) { return std::vector<int64_t>{cdiv(n, meta_int(m, "BLOCK"))}; }`.
/// Throws Error naming `name` and the meta-parameters there are (where
/// m.at(name) throws std::out_of_range).
int64_t meta_int(const Meta& meta, const std::string& name);
/// meta[name] as a float (an integer converts).
double meta_float(const Meta& meta, const std::string& name);

/// Stops the interpreter launches running now at their next loop-iteration
/// check (each throws an Error "<kernel>: interrupted at file:line:col");
/// async-signal-safe, for a SIGINT handler around a launch that may loop
/// forever (the Python package installs one: Ctrl-C is KeyboardInterrupt).
void interrupt_interpreter();

/// Triton's triton.cdiv: ceil(a / b) for a >= 0, b > 0.
constexpr int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
/// Triton's triton.next_power_of_2: the smallest power of two >= n (1 for n <= 1).
constexpr int64_t next_power_of_2(int64_t n) {
  int64_t p = 1;
  while (p < n && p < (int64_t{1} << 62)) p <<= 1;
  return p;
}

namespace detail {
struct TensorStorage;
struct DeviceImpl;
struct KernelImpl;
struct ProgramImpl;
struct CompiledKernelImpl;
struct TensorLayout;
/// Throws Error unless `count` host elements fill `shape` exactly.
void checkUploadCount(size_t count, DType dtype, const std::vector<int64_t>& shape);
}  // namespace detail

class Device;

/// Device (or interpreter) memory with a shape and strides; shared ownership.
/// Copies are cheap (two reference counts, no allocation): a launch's
/// argument list copies its tensors.
class Tensor {
 public:
  Tensor() = default;
  DType dtype() const;
  const std::vector<int64_t>& shape() const;
  /// Stride of `dim` in elements, like torch (row-major contiguous on creation).
  int64_t stride(int dim) const;
  const std::vector<int64_t>& strides() const;
  int64_t numel() const;
  /// Size of the data in bytes.
  size_t nbytes() const;
  /// Address of the first element (host address for the interpreter,
  /// CUdeviceptr for CUDA).
  uint64_t data_ptr() const;
  bool defined() const { return storage_ != nullptr; }
  /// Row-major contiguous (dimensions of size 1 may have any stride).
  bool is_contiguous() const;
  /// Whether the tensor's memory belongs to `device` (host memory for the
  /// interpreter, that GPU's memory for a CUDA device).
  bool is_on(const Device& device) const;
  /// Elements between the allocation's start and the first element (views).
  int64_t storage_offset() const;
  /// Memory its producer marked read-only (DLPack 1.x's flag, from_blob's
  /// read_only): a launch that passes it to a parameter the kernel may write
  /// is an Error.
  bool is_read_only() const;

  /// Memory someone else owns as a tensor, without a copy: device memory of
  /// `device` (a CUdeviceptr cast to void*) for a CUDA device, host memory
  /// for the interpreter. `strides` in elements (empty: row-major
  /// contiguous; none may be negative). `deleter` runs when the last tensor
  /// sharing the memory is gone; without one the memory must outlive them.
  /// `read_only`: memory the kernel must not write (a read-only NumPy array,
  /// a mapped file): is_read_only() is true and a launch passing it to a
  /// parameter the kernel may store through is an Error naming the argument.
  static Tensor from_blob(Device& device, void* data, DType dtype, std::vector<int64_t> shape,
                          std::vector<int64_t> strides = {}, std::function<void()> deleter = {},
                          bool read_only = false);

  /// Views: new shapes and strides over the same memory, as torch's.
  /// Elements start..stop (exclusive) by `step` of dimension `dim`; negative
  /// indices count from the end, and start/stop are clamped like Python's.
  Tensor slice(int dim, int64_t start, int64_t stop, int64_t step = 1) const;
  Tensor transpose(int dim0, int dim1) const;
  Tensor permute(const std::vector<int>& dims) const;
  /// Of a contiguous tensor only (one dimension may be -1).
  Tensor reshape(std::vector<int64_t> shape) const;
  /// This tensor when it is contiguous, else a row-major copy of its
  /// elements in new memory of the same device (on a GPU the copy goes
  /// through the host for now).
  Tensor contiguous() const;
  /// Size-1 dimensions repeated (stride 0), new leading ones added; -1
  /// keeps a dimension.
  Tensor expand(std::vector<int64_t> shape) const;

  /// Copies the data to the host. T must match the dtype's size.
  template <class T> std::vector<T> download() const {
    std::vector<std::byte> bytes = download_bytes();
    std::vector<T> out(bytes.size() / sizeof(T));
    check_element_size(sizeof(T));
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    return out;
  }
  std::vector<std::byte> download_bytes() const;

  /// Internal: the storage (allocation) behind the tensor.
  const std::shared_ptr<detail::TensorStorage>& storage() const { return storage_; }
  Tensor(std::shared_ptr<detail::TensorStorage> storage, DType dtype, std::vector<int64_t> shape);
  /// Internal: a view of `storage` (checked to lie inside it).
  Tensor(std::shared_ptr<detail::TensorStorage> storage, DType dtype, std::vector<int64_t> shape,
         std::vector<int64_t> strides, int64_t offset);

 private:
  void check_element_size(size_t size) const;
  std::shared_ptr<detail::TensorStorage> storage_;
  DType dtype_ = DType::fp32;
  std::shared_ptr<const detail::TensorLayout> layout_;  ///< shape and strides (immutable, shared by copies)
};

/// Where kernels run and tensors live.
class Device {
 public:
  /// The CPU interpreter: tensors live in host memory.
  static Device interpreter();
  /// The CUDA device `ordinal`; throws Error without a usable GPU and driver.
  static Device cuda(int ordinal = 0);
  /// cuda(0) when a GPU is usable and TESSERA_INTERPRET is not set, otherwise
  /// the interpreter.
  static Device default_device();

  bool is_interpreter() const;
  /// "interpreter" or "cuda:N".
  std::string name() const;
  /// The CUDA ordinal; -1 for the interpreter.
  int ordinal() const;
  /// The architecture kernels are compiled for on this device ("sm_90a" on
  /// an H100, "sm_80" on an A100); "" for the interpreter.
  std::string arch() const;
  /// Streaming multiprocessors (sizes persistent grids); for the
  /// interpreter, the hardware threads it may use.
  int multiprocessor_count() const;

  Tensor empty(DType dtype, std::vector<int64_t> shape);
  Tensor zeros(DType dtype, std::vector<int64_t> shape);
  template <class T> Tensor upload(const std::vector<T>& host, std::vector<int64_t> shape);
  /// Uploads raw element bytes (the way to pass fp16/bf16/fp8 data).
  Tensor upload(const void* bytes, DType dtype, std::vector<int64_t> shape);
  void synchronize();

  const std::shared_ptr<detail::DeviceImpl>& impl() const { return impl_; }
  explicit Device(std::shared_ptr<detail::DeviceImpl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<detail::DeviceImpl> impl_;
};

/// The dtype a C++ element type uploads as.
template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<bool>() { return DType::i1; }
template <> constexpr DType dtype_of<int8_t>() { return DType::i8; }
template <> constexpr DType dtype_of<int16_t>() { return DType::i16; }
template <> constexpr DType dtype_of<int32_t>() { return DType::i32; }
template <> constexpr DType dtype_of<int64_t>() { return DType::i64; }
template <> constexpr DType dtype_of<uint8_t>() { return DType::u8; }
template <> constexpr DType dtype_of<uint16_t>() { return DType::u16; }
template <> constexpr DType dtype_of<uint32_t>() { return DType::u32; }
template <> constexpr DType dtype_of<uint64_t>() { return DType::u64; }
template <> constexpr DType dtype_of<float>() { return DType::fp32; }
template <> constexpr DType dtype_of<double>() { return DType::fp64; }

template <class T> Tensor Device::upload(const std::vector<T>& host, std::vector<int64_t> shape) {
  detail::checkUploadCount(host.size(), dtype_of<T>(), shape);
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> bytes(host.begin(), host.end());
    return upload(bytes.data(), DType::i1, std::move(shape));
  } else {
    return upload(host.data(), dtype_of<T>(), std::move(shape));
  }
}

/// A tensor descriptor made on the host (Triton's
/// triton.tools.tensor_descriptor.TensorDescriptor): the tensor at `base`'s
/// data with `shape` and `strides` (in elements) and the block its loads
/// and stores move. As for Triton, the last stride must be 1 and the base
/// and the other strides 16-byte aligned (checked at launch). The kernel's
/// parameter has the type tensordesc<dtype[block_shape]> and is used like
/// one from tl.make_tensor_descriptor (desc.load, desc.store, desc.shape).
struct TensorDescriptor {
  Tensor base;
  std::vector<int64_t> shape, strides, block_shape;
  std::string padding = "zero";  ///< or "nan" (floating-point data)
  /// Loads round each fp32 element to tf32 (to nearest even at 10 mantissa
  /// bits, Inf and NaN kept), as TMA does (Triton 3.8's round_f32_to_tf32).
  bool round_f32_to_tf32 = false;
  /// All of `t`: its shape and strides.
  static TensorDescriptor from_tensor(const Tensor& t, std::vector<int64_t> block_shape,
                                      std::string padding = "zero", bool round_f32_to_tf32 = false);
};

struct ArgTuple;

/// A kernel argument. Integers are typed by value like Python ints in Triton
/// (i32 when it fits, else i64/u64); floats are fp32 like Python floats;
/// tensors pass their data pointer. Use Arg::typed to pin a type.
/// Arg::tuple makes a tuple argument (Triton's tuple and namedtuple kernel
/// arguments), whose elements are arguments again.
struct Arg {
  enum class Kind { Tensor, Int, Float, Bool, Null, TensorDesc, Tuple };
  Arg(const Tensor& t) : kind(Kind::Tensor), tensor(t) {}
  /// `tensor` is the descriptor's base.
  Arg(const TensorDescriptor& d)
      : kind(Kind::TensorDesc), tensor(d.base), desc(std::make_shared<const TensorDescriptor>(d)) {}
  Arg(int32_t v) : kind(Kind::Int), i(v) {}
  Arg(int64_t v) : kind(Kind::Int), i(v) {}
  Arg(uint32_t v) : kind(Kind::Int), i(v) {}
  Arg(uint64_t v) : kind(Kind::Int), i(static_cast<int64_t>(v)), isUnsigned64(v > INT64_MAX) {}
  Arg(float v) : kind(Kind::Float), f(v) {}
  Arg(double v) : kind(Kind::Float), f(v) {}
  Arg(bool v) : kind(Kind::Bool), b(v) {}
  Arg(std::nullptr_t) : kind(Kind::Null) {}
  /// A tuple of arguments; with `names`, a namedtuple of that many fields
  /// (the kernel reads them as `arg.name`) of class `type_name`.
  static Arg tuple(std::vector<Arg> elems, std::vector<std::string> names = {}, std::string type_name = "");

  Kind kind;
  Tensor tensor;
  std::shared_ptr<const TensorDescriptor> desc;  ///< Kind::TensorDesc
  std::shared_ptr<const ArgTuple> tuple_;        ///< Kind::Tuple
  int64_t i = 0;
  double f = 0;
  bool b = false;
  bool isUnsigned64 = false;
};

/// The elements of a tuple Arg.
struct ArgTuple {
  std::vector<Arg> elems;
  std::vector<std::string> names;  ///< a namedtuple's fields (empty: a plain tuple)
  std::string type_name;           ///< a namedtuple's class name
};

/// What each value of a braced argument list binds to (`k.launch(dev,
/// {blocks}, {x, y, n})`; not named by users): read where it stands, a
/// tensor by address and a scalar by value, so that a braced launch copies
/// no tensor (a copy takes two reference counts up and back down). The
/// braced list lives until the launch returns; arguments kept longer are
/// Args, which own what they hold. Converts from everything Arg does, and
/// from an Arg.
struct ArgRef {
  ArgRef(const Tensor& t) : kind(Arg::Kind::Tensor), tensor(&t) {}
  ArgRef(const Arg& a)
      : kind(a.kind), tensor(&a.tensor), whole(&a), i(a.i), f(a.f), b(a.b), isUnsigned64(a.isUnsigned64) {}
  ArgRef(const TensorDescriptor& d) : kind(Arg::Kind::TensorDesc), tensor(&d.base), descriptor(&d) {}
  ArgRef(int32_t v) : kind(Arg::Kind::Int), i(v) {}
  ArgRef(int64_t v) : kind(Arg::Kind::Int), i(v) {}
  ArgRef(uint32_t v) : kind(Arg::Kind::Int), i(v) {}
  ArgRef(uint64_t v) : kind(Arg::Kind::Int), i(static_cast<int64_t>(v)), isUnsigned64(v > INT64_MAX) {}
  ArgRef(float v) : kind(Arg::Kind::Float), f(v) {}
  ArgRef(double v) : kind(Arg::Kind::Float), f(v) {}
  ArgRef(bool v) : kind(Arg::Kind::Bool), b(v) {}
  ArgRef(std::nullptr_t) : kind(Arg::Kind::Null) {}
  /// The argument as an Arg (owning: copies a tensor).
  Arg to_arg() const;

  Arg::Kind kind;
  const Tensor* tensor = nullptr;                ///< Kind::Tensor, or a descriptor's base
  const Arg* whole = nullptr;                    ///< given as an Arg
  const TensorDescriptor* descriptor = nullptr;  ///< given as a TensorDescriptor
  int64_t i = 0;
  double f = 0;
  bool b = false;
  bool isUnsigned64 = false;
};

/// 1-3 grid dimensions, or a callable of the meta-parameters.
/// A grid's dimensions as given: up to three stored inline, so that a grid
/// built from braces (`{blocks}`) allocates nothing; read like a
/// std::vector<int64_t> (more than three are kept too, and refused at
/// launch).
class GridDims {
 public:
  GridDims() = default;
  GridDims(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.size()); }
  GridDims(const std::vector<int64_t>& dims) { assign(dims.data(), dims.size()); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* data() const { return size_ <= kInline ? inline_ : more_.data(); }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t operator[](size_t i) const { return data()[i]; }
  operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }

 private:
  static constexpr size_t kInline = 3;
  void assign(const int64_t* d, size_t n) {
    size_ = n;
    if (n <= kInline) std::copy(d, d + n, inline_);
    else more_.assign(d, d + n);
  }
  int64_t inline_[kInline] = {0, 0, 0};
  size_t size_ = 0;
  std::vector<int64_t> more_;
};

struct Grid {
  Grid(std::initializer_list<int64_t> dims) : dims(dims) {}
  Grid(std::vector<int64_t> dims) : dims(dims) {}
  Grid(std::function<std::vector<int64_t>(const Meta&)> fn) : fn(std::move(fn)) {}
  /// The dimensions for these meta-parameters (missing dims are 1).
  std::vector<int64_t> resolve(const Meta& meta) const;

  GridDims dims;
  std::function<std::vector<int64_t>(const Meta&)> fn;
};

struct LaunchOptions {
  int num_warps = 4;
  int num_stages = 3;
  /// Registers per thread the kernel may use (PTX `.maxnreg`, Triton's
  /// `maxnreg`); 0: the assembler decides. A specialization of its own.
  int maxnreg = 0;
  /// CUDA launches: the CUstream / cudaStream_t to launch on (nullptr: the
  /// default stream), not owned. An autotuning sweep runs on it too and
  /// waits for it alone. It may be capturing a CUDA graph; then an
  /// autotuned launch with no choice yet for its key throws (nothing can be
  /// timed there). Ignored by the interpreter.
  void* stream = nullptr;
  /// Programmatic dependent launch (Triton's `launch_pdl=True`): the kernel
  /// may start while the previous kernel on its stream still runs, up to
  /// its tl.extra.cuda.gdc_wait(), which waits for that kernel's completion
  /// and memory; the previous kernel's gdc_launch_dependents() lets it start
  /// early. A launch attribute, not a specialization. sm_90+; ignored on
  /// older GPUs and by the interpreter, whose launches never overlap.
  bool launch_pdl = false;
  /// A cooperative launch (Triton's `launch_cooperative_grid=True`): all
  /// programs are resident at once, so they may wait for one another (a
  /// grid-wide barrier); a grid larger than the GPU holds at once fails to
  /// launch. A launch attribute, not a specialization; the interpreter runs
  /// programs concurrently on its threads but does not promise it.
  bool launch_cooperative_grid = false;
  /// Triton's num_ctas: on sm_90+, programs launch in thread-block clusters
  /// of num_ctas (1, 2, 4 or 8) consecutive programs along grid x, which
  /// the GPU schedules together on one GPC. Each program is still one CTA
  /// (Triton splits one program's tiles over the cluster's CTAs; Tessera
  /// does not yet, see docs/decisions.md), so results do not depend on it.
  /// A grid whose x is not a multiple launches without clusters; the
  /// interpreter and GPUs before sm_90 ignore it. Part of the
  /// specialization (tl.extra.cuda.num_ctas() reads it).
  int num_ctas = 1;
};

/// What the assembler reports about a compiled kernel (CompiledKernel::metadata).
struct KernelMetadata {
  std::string name;
  std::string target;            ///< "sm_90a"
  int num_warps = 4;
  int num_stages = 3;
  int shared_bytes = 0;          ///< dynamic shared memory requested at launch
  int static_shared_bytes = 0;   ///< shared memory declared in the PTX
  int registers = -1;            ///< per thread (-1: not reported)
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int stack_frame_bytes = 0;
};

/// The result of compiling one specialization of a kernel for one target.
class CompiledKernel {
 public:
  /// "ttir" | "ttgir" | "ptx" | "sass" | "cubin" (the cubin's bytes). ttgir
  /// and ptx need no GPU and no toolkit; cubin and sass need the CUDA
  /// toolkit (nvJitLink; sass also nvdisasm or cuobjdump).
  std::string asm_text(const std::string& stage) const;
  /// The Tile GPU IR right after one pass of the GPU lowering: `pass` is a
  /// pass name of the pipeline (TESSERA_DUMP=after-all lists them, e.g.
  /// "convert-to-gpu"), or "NAME:N" for its N-th run (dce runs several
  /// times). Throws naming the pipeline's passes when it has no such run.
  std::string ir_after_pass(const std::string& pass) const;
  const std::string& name() const;
  /// The architecture the GPU stages are compiled for, e.g. "sm_90a".
  std::string target() const;
  /// Registers, spills and shared memory of the assembled kernel (assembles
  /// it if needed: needs the CUDA toolkit).
  KernelMetadata metadata() const;

  explicit CompiledKernel(std::shared_ptr<detail::CompiledKernelImpl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<detail::CompiledKernelImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<detail::CompiledKernelImpl> impl_;
};

/// A launch resolved once (kernel, device, grid, arguments, constexprs and
/// options: specialization, compilation, module load and parameter packing
/// done) and issued any number of times: on a GPU, launch() is one
/// cuLaunchKernel. For the hottest paths; Kernel::launch remembers recent
/// launch shapes too, but still checks the arguments every time. The
/// arguments are held (tensors stay alive) and must not change: prepare
/// again for other arguments. On the interpreter launch() runs
/// Kernel::launch.
class PreparedLaunch {
 public:
  /// Launches on `stream` (a CUstream; nullptr: the stream of the options
  /// given to prepare).
  void launch(void* stream = nullptr) const;
  /// For comparisons with a raw cuLaunchKernel of the same launch (GPU only,
  /// else nullptr / 0): the CUfunction, the parameter array (one pointer per
  /// PTX parameter), the grid, threads per block and dynamic shared memory.
  /// cu_params() throws for a kernel that makes TMA descriptors on the
  /// device: its global scratch is allocated by each launch().
  void* cu_function() const;
  void** cu_params() const;
  std::vector<int64_t> grid() const;
  int block_threads() const;
  int shared_bytes() const;

  struct Impl;
  explicit PreparedLaunch(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<Impl> impl_;
};

/// Launches recorded once into a CUDA graph and replayed with one driver
/// call each time (stream capture, cuGraphLaunch): the host work of the
/// launches (binding, specialization lookup, packing) is paid at capture
/// only. Capture first launches each kernel's shape outside (a first
/// launch compiles; an autotuned kernel must have its choice: see
/// docs/user-guide.md, "CUDA graphs").
///
///   tessera::Graph g = tessera::Graph::capture(dev, [&](void* stream) {
///     k1.launch(dev, {blocks}, {x, y, n}, {}, tessera::LaunchOptions{.stream = stream});
///     k2.launch(dev, {blocks}, {y, z, n}, {}, tessera::LaunchOptions{.stream = stream});
///   });
///   for (int step = 0; step < steps; ++step) g.replay();
///
/// The recorded launches keep the arguments they were given (tensor
/// addresses included): keep those tensors alive and in place while the
/// graph is used. On the interpreter the graph keeps `record` and replay
/// calls it again with a null stream.
class Graph {
 public:
  /// Calls `record(stream)` with a new stream in capture mode (non-blocking,
  /// this thread only): launches on it are recorded, not run. If `record`
  /// throws, the capture is discarded and the exception propagates.
  static Graph capture(Device& device, std::function<void(void* stream)> record);
  /// Runs the recorded launches, in order, on `stream` (a CUstream;
  /// nullptr: the default stream).
  void replay(void* stream = nullptr) const;

  struct Impl;

 private:
  explicit Graph(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

/// With TESSERA_PROFILE=FILE: writes the timeline recorded so far (compiles,
/// autotuning sweeps, launches, GPU execution) to FILE as a Chrome trace,
/// waiting for the GPU launches it times. Also done at exit. A no-op
/// without TESSERA_PROFILE.
void profile_flush();

/// What this process can use (`tessera info`). GPU i is Device::cuda(i).
struct SystemInfo {
  unsigned usable_cpus = 0;     ///< CPUs this process may run on (affinity mask, cgroup quota)
  bool toolkit = false;         ///< nvJitLink and NVRTC found: cubin, sass and libdevice work
  std::string toolkit_problem;  ///< why not, when not
  std::string gpu_problem;      ///< why no GPU is usable ("" when the driver works)
  struct Gpu {
    std::string name;         ///< the driver's, e.g. "NVIDIA H100 80GB HBM3"
    std::string arch;         ///< "sm_90a"
    int multiprocessors = 0;
    std::string problem;      ///< why this one is unusable ("" when it is usable)
  };
  std::vector<Gpu> gpus;      ///< every CUDA device the driver reports
};
SystemInfo system_info();

/// One config of a kernel's @triton.autotune, as the autotuning hooks see it.
struct AutotuneConfig {
  Meta kwargs;  ///< the config's meta-parameters, e.g. {"BLOCK", 1024}
  int num_warps = 4;
  int num_stages = 3;
  int num_ctas = 1;
  std::optional<int> maxnreg;
};

/// The C++ form of @triton.autotune(prune_configs_by={...}): Triton's
/// Python callables cannot run in Tessera, so a kernel whose decorator
/// names them is given these instead (Kernel::set_autotune_hooks). `args`
/// holds the launch's scalar arguments and constexprs by name (tensors are
/// not included). Applied in Triton's order before a sweep times anything:
/// early_config_prune, then perf_model with top_k.
struct AutotuneHooks {
  /// The indices (into `configs`) of the configs worth timing.
  std::function<std::vector<size_t>(const std::vector<AutotuneConfig>& configs, const Meta& args)>
      early_config_prune;
  /// An estimate of a config's time (any unit; smaller is faster).
  std::function<double(const AutotuneConfig& config, const Meta& args)> perf_model;
  /// With perf_model: how many of the best estimated configs to time; a
  /// value in (0, 1) is a fraction of them (Triton's float top_k). 0: all.
  double top_k = 0;
  /// false: these hooks replace the decorator's prune_configs_by. true:
  /// the host evaluator runs the decorator's own callables, and these hooks
  /// only where it cannot (what the tessera Python package sets: CPython
  /// then runs them, on the call's real arguments).
  bool where_the_host_evaluator_cannot = false;
};

/// Pieces of the launch sugar `kernel[grid](args..., kw("BLOCK", 1024), num_warps(8))`
/// (Triton's `kernel[grid](x, y, n, BLOCK=1024, num_warps=8)`).
struct Kw {
  std::string name;
  Value value;
};
/// A keyword argument: a constexpr (or a runtime parameter) by name.
inline Kw kw(std::string name, Value value) { return {std::move(name), std::move(value)}; }
inline Kw kw(std::string name, int value) { return {std::move(name), Value(int64_t(value))}; }
struct NumWarps { int value; };
struct NumStages { int value; };
struct MaxNReg { int value; };
struct OnStream { void* stream; };
struct OnDevice { Device* device; };
inline NumWarps num_warps(int n) { return {n}; }
inline NumStages num_stages(int n) { return {n}; }
inline MaxNReg maxnreg(int n) { return {n}; }
/// Launch on this CUstream (default: the default stream).
inline OnStream on_stream(void* stream) { return {stream}; }
/// Launch on this device (default: Device::default_device(), chosen once).
inline OnDevice on_device(Device& device) { return {&device}; }

class Kernel;

/// `kernel[grid]`: call it with the arguments to launch. Positional
/// arguments (tensors, numbers, nullptr) go to the parameters in order,
/// kw(...) by name; num_warps/num_stages/maxnreg/on_stream/on_device set options.
class GridLaunch {
 public:
  GridLaunch(Kernel& kernel, Grid grid) : kernel_(kernel), grid_(std::move(grid)) {}
  /// Callable once, on the temporary `kernel[grid]` (it collects the
  /// call's keywords and options).
  template <class... A>
  void operator()(A&&... a) && {
    static_assert(sizeof...(A) <= 64, "kernel[grid](...): at most 64 arguments");
    Arg args[sizeof...(A) + 1] = {take(std::forward<A>(a))..., Arg(nullptr)};
    size_t n = 0;
    for (size_t i = 0; i < sizeof...(A); ++i)
      if (positional_[i]) args[n++] = std::move(args[i]);
    launch(args, n);
  }

 private:
  template <class T>
  Arg take(T&& v) {
    using D = std::decay_t<T>;
    if constexpr (std::is_same_v<D, Kw>) {
      constexprs_[v.name] = v.value;
    } else if constexpr (std::is_same_v<D, NumWarps>) {
      options_.num_warps = v.value;
    } else if constexpr (std::is_same_v<D, NumStages>) {
      options_.num_stages = v.value;
    } else if constexpr (std::is_same_v<D, MaxNReg>) {
      options_.maxnreg = v.value;
    } else if constexpr (std::is_same_v<D, OnStream>) {
      options_.stream = v.stream;
    } else if constexpr (std::is_same_v<D, OnDevice>) {
      device_ = v.device;
    } else {
      static_assert(std::is_constructible_v<Arg, T>,
                    "kernel[grid](...): each argument is a Tensor, a number, a bool, nullptr, kw(name, value), "
                    "num_warps(n), num_stages(n), maxnreg(n), on_stream(s) or on_device(d)");
      positional_[count_++] = true;
      return Arg(std::forward<T>(v));
    }
    positional_[count_++] = false;
    return Arg(nullptr);
  }
  void launch(const Arg* args, size_t n);

  Kernel& kernel_;
  Grid grid_;
  Meta constexprs_;
  LaunchOptions options_;
  Device* device_ = nullptr;
  bool positional_[64] = {};
  size_t count_ = 0;
};

/// A @triton.jit kernel of a Program.
class Kernel {
 public:
  /// Compiles (or finds in the cache) and runs. Autotuned/heuristic
  /// meta-parameters are chosen here when the kernel carries
  /// @triton.autotune / @triton.heuristics.
  void launch(Device& device, const Grid& grid, const std::vector<Arg>& args,
              const Meta& constexprs = {}, const LaunchOptions& options = {});
  /// `launch(device, {blocks}, {x, y, n})`, or with a Meta: the braced
  /// arguments are read where they stand (ArgRef: no vector is allocated,
  /// no tensor copied).
  void launch(Device& device, const Grid& grid, std::initializer_list<ArgRef> args, const Meta& constexprs,
              const LaunchOptions& options = {});
  /// `launch(device, {blocks}, {x, y, n}, {{"BLOCK", 1024}})`: braced
  /// arguments and constexprs, both read where they stand; a warm launch
  /// (LaunchMemo) allocates nothing and copies no tensor.
  void launch(Device& device, const Grid& grid, std::initializer_list<ArgRef> args,
              std::initializer_list<NamedValue> constexprs = {}, const LaunchOptions& options = {});
  /// `kernel[grid](args..., kw("BLOCK", 1024), num_warps(4))`: Triton's
  /// launch syntax (see GridLaunch).
  GridLaunch operator[](Grid grid) { return GridLaunch(*this, std::move(grid)); }
  /// Launch with arguments given as an array (what GridLaunch uses; the warm
  /// path allocates nothing).
  void launch(Device& device, const Grid& grid, const Arg* args, size_t nargs, const Meta& constexprs,
              const LaunchOptions& options);
  /// The warm path alone: when a launch of the same shape was made before
  /// on this GPU (argument kinds, dtypes, 16-byte alignment of the tensors,
  /// integer properties, constexprs, options; kernels without autotune or
  /// heuristics, fixed grids), launches and returns true; otherwise returns
  /// false and does nothing. Of a tensor it reads only the data pointer,
  /// dtype, device and read-only flag, so a binding can pass views without
  /// shape or strides here and build full ones only when it returns false.
  bool launch_if_warm(Device& device, const Grid& grid, const Arg* args, size_t nargs, const Meta& constexprs,
                      const LaunchOptions& options);
  /// Resolves a launch once for launching many times (see PreparedLaunch);
  /// compiles if needed. Errors are those of launch().
  PreparedLaunch prepare(Device& device, const Grid& grid, const std::vector<Arg>& args, const Meta& constexprs = {},
                         const LaunchOptions& options = {});
  /// Compiles for a Triton AOT signature, e.g. "*fp32:16, *fp32:16, i32".
  /// `arch` ("sm_80", "sm_90a", ...) picks the GPU target of the ttgir, ptx,
  /// cubin and sass stages; empty: the architecture of CUDA device 0, or
  /// sm_90a on a machine without a GPU.
  CompiledKernel compile(const std::string& signature, const Meta& constexprs = {},
                         const LaunchOptions& options = {}, const std::string& arch = "");
  const std::string& name() const;
  /// Parameter names in order (constexpr ones included).
  std::vector<std::string> parameter_names() const;
  /// One parameter of the kernel, as declared.
  struct Parameter {
    std::string name;
    bool is_constexpr = false;               ///< annotated tl.constexpr
    std::optional<std::string> annotation;   ///< a type it is pinned to ("fp32", "i64")
    std::optional<std::string> default_value;  ///< Python's repr of the default, if any
  };
  std::vector<Parameter> parameters() const;
  /// Where the kernel is defined: "pkg/ops.py:12"; and, when it was made by
  /// a call rather than a decorator, that call ("triton.jit(f) at ...").
  std::string defined_at() const;
  /// The configs of the kernel's @triton.autotune (empty without one).
  std::vector<AutotuneConfig> autotune_configs() const;
  /// The config the autotuner chose for the latest launch of this kernel
  /// (Triton's `kernel.best_config`), whether it was timed then or found in
  /// memory or on disk; std::nullopt before the first such launch, or
  /// without @triton.autotune. The interpreter does not tune: it runs the
  /// first config, and best_config() reports that one.
  std::optional<AutotuneConfig> best_config() const;
  /// Sets the prune_configs_by hooks of the kernel's @triton.autotune, for
  /// every handle of this kernel of this Program. Needed when the decorator
  /// names Python functions (the first sweep reports it otherwise).
  void set_autotune_hooks(AutotuneHooks hooks);
  /// Sets who evaluates the kernel's @triton.heuristics: `hook(meta)`
  /// gets the launch's constexprs given by name and the autotune config's
  /// values, and returns heuristic values by name (those it leaves out are
  /// evaluated by the host evaluator). It is called on the thread that
  /// launches (for an autotuning sweep, once per config timed, before the
  /// configs compile in parallel). The tessera Python package sets it so
  /// that heuristics run in CPython, on the call's real arguments, as under
  /// Triton. For every handle of this kernel of this Program.
  void set_heuristics_hook(std::function<Meta(const Meta& meta)> hook);

  explicit Kernel(std::shared_ptr<detail::KernelImpl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<detail::KernelImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<detail::KernelImpl> impl_;
};

/// How a Program finds the modules its file imports and answers the device
/// queries of its host code.
struct ProgramOptions {
  /// Directories searched first for imported modules (the CLI's -I); then
  /// TESSERA_PATH, then the file's own directory and its package root.
  std::vector<std::string> search_path;
  /// Modules whose files are known, found before the search path: dotted
  /// name -> source file (a package's __init__.py). The Python package
  /// passes what CPython has imported, so imports resolve as they did there.
  std::map<std::string, std::string> module_files;
  /// The configs of kernels' @triton.autotune as their host language already
  /// evaluated them, by kernel name (the Python package passes Python's
  /// Config objects): used instead of evaluating the decorator's `configs`.
  std::map<std::string, std::vector<AutotuneConfig>> autotune_configs;
  /// The GPU that `torch.cuda.get_device_properties(...)` and friends
  /// describe in host code: an architecture ("sm_80"), or "" for CUDA
  /// device 0 when one is usable, else TESSERA_CUDA_ARCH, else an H100.
  std::string arch;
};

/// A program: a kernel file and the modules it imports, with their
/// @triton.jit functions. Module-level host code runs when it is loaded;
/// each kernel's autotune and heuristics decorators when first needed.
class Program {
 public:
  static Program from_file(const std::string& path, const ProgramOptions& options = {});
  static Program from_source(const std::string& text, const std::string& filename = "<string>",
                             const ProgramOptions& options = {});
  /// Throws Error naming the kernels that exist.
  Kernel kernel(const std::string& name) const;
  /// Names of the @triton.jit functions the file defines, in source order.
  std::vector<std::string> kernel_names() const;
  /// The user modules loaded with it (dotted names; the file's own first),
  /// each with the kernels it defines: `tessera list` of a package.
  std::vector<std::pair<std::string, std::vector<std::string>>> modules() const;

  explicit Program(std::shared_ptr<detail::ProgramImpl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<detail::ProgramImpl> impl_;
};

}  // namespace tessera
TESSERA_API_END
