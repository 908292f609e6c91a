//===- python/src/Launcher.cpp - kernel[grid](...) from Python, fast --------===//
//
// The launch path of a @tessera.jit function, in C++: binds `args` and
// `kwargs` to the parameters with Python's rules (the layout the Python
// layer computed from the function's signature), turns PyTorch tensors and
// numbers into kernel arguments without going through Python code, and
// calls Kernel::launch. A launch whose arguments repeat an earlier launch's
// shape then takes Kernel::launch's warm path (LaunchMemo.cpp).
//
//  * Tensors: PyTorch tensors are read through their methods (data_ptr,
//    dtype, shape, stride, device); a type seen for the first time is
//    classified once. Anything else (NumPy arrays, __cuda_array_interface__,
//    DLPack producers) goes through the Python converter (tessera/_args.py),
//    which returns the view and its device.
//  * A callable grid of a kernel without autotune or heuristics is called
//    here with Triton's meta dict (the bound arguments by name, defaults
//    included), so the launch keeps a fixed grid (and the warm path); with
//    autotune or heuristics the config's values exist only in C++, and the
//    callable goes to Kernel::launch.
//  * The constexpr map is rebuilt only when a constexpr value object
//    changes (literals at a call site are the same objects every time).
//  * Launches of PyTorch CUDA tensors go to torch's current stream of that
//    device.
//  * The warm path first (kernels without autotune or heuristics): PyTorch
//    CUDA tensors become views of their data pointer alone (no shape or
//    strides read) and Kernel::launch_if_warm launches when the launch's
//    shape was seen; otherwise those views are rebuilt in full and the
//    launch takes Kernel::launch. A launcher whose launches keep missing
//    stops trying.
//
//===----------------------------------------------------------------------===//

#include <array>
#include <unordered_map>

#include "Binding.h"

namespace tessera::python {

namespace {

enum class TypeKind { Torch, Tessera, Python };

struct Param {
  py::str name;
  bool isConstexpr = false;
  bool hasDefault = false;
  py::object defaultValue;
};

struct Interned {
  py::str data_ptr{"data_ptr"}, dtype{"dtype"}, shape{"shape"}, stride{"stride"},
      get_device{"get_device"}, value{"value"}, num_warps{"num_warps"}, num_stages{"num_stages"},
      maxnreg{"maxnreg"}, num_ctas{"num_ctas"}, stream{"stream"}, launch_pdl{"launch_pdl"},
      launch_cooperative_grid{"launch_cooperative_grid"};
};

const char* const kOptionNames[] = {"num_warps", "num_stages", "maxnreg", "num_ctas", "enable_fp_fusion",
                                    "launch_cooperative_grid", "launch_pdl", "stream"};

class Launcher {
 public:
  Launcher(Kernel kernel, py::list layout, bool metaDecorated, py::object convert, py::object defaultDevice,
           py::object streamOf, py::object constexprType, py::object globals)
      : kernel_(std::move(kernel)), metaDecorated_(metaDecorated), convert_(std::move(convert)),
        defaultDevice_(std::move(defaultDevice)), streamOf_(std::move(streamOf)),
        constexprType_(std::move(constexprType)), globals_(std::move(globals)) {
    for (py::handle item : layout) {
      py::tuple t = py::reinterpret_borrow<py::tuple>(item);
      Param p;
      p.name = py::str(t[0]);
      p.isConstexpr = t[1].cast<bool>();
      p.hasDefault = t[2].cast<bool>();
      p.defaultValue = py::reinterpret_borrow<py::object>(t[3]);
      // (name, constexpr, has default, default[, keyword-only]): parameters
      // after a bare `*` take no positional value.
      if (t.size() > 4 && t[4].cast<bool>()) positional_ = std::min(positional_, params_.size());
      keywords_.add(p.name);
      params_.push_back(std::move(p));
    }
    positional_ = std::min(positional_, params_.size());
    for (const char* o : kOptionNames) keywords_.add(py::str(o));
  }

  /// `options`: launch options of a CompiledKernel (a dict; None: none),
  /// used where the keywords give none.
  void call(py::object grid, py::tuple args, py::dict kwargs, py::object options_) {
    const size_t nargs = args.size();
    const char* fname = kernel_.name().c_str();
    if (nargs > positional_)
      throw py::type_error(std::string(fname) + "() takes " + std::to_string(positional_) +
                           (positional_ < params_.size() ? " positional" : "") + " arguments but " +
                           std::to_string(nargs) + " were given" +
                           (positional_ < params_.size() ? " (the parameters after '*' are keyword-only)" : ""));
    const bool haveKw = kwargs.size() > 0;
    if (haveKw) checkKeywords(kwargs);

    // Options.
    LaunchOptions options;
    uintptr_t stream = 0;
    bool streamGiven = false;
    if (!options_.is_none()) {
      py::dict given = py::reinterpret_borrow<py::dict>(options_);
      if (given.contains("num_warps")) options.num_warps = given["num_warps"].cast<int>();
      if (given.contains("num_stages")) options.num_stages = given["num_stages"].cast<int>();
      if (given.contains("maxnreg")) options.maxnreg = given["maxnreg"].cast<int>();
      if (given.contains("launch_pdl")) options.launch_pdl = py::bool_(given["launch_pdl"]);
      if (given.contains("launch_cooperative_grid"))
        options.launch_cooperative_grid = py::bool_(given["launch_cooperative_grid"]);
    }
    if (haveKw) {
      // Integers (any with __index__), as jit.py's _options says.
      auto integer = [&](PyObject* v, const char* key) {
        if (PyBool_Check(v) || !PyIndex_Check(v))
          throw py::type_error(std::string("tessera: ") + key + " of " + fname + "() must be an integer, got " +
                               py::repr(v).cast<std::string>());
        return py::cast<int>(v);
      };
      if (PyObject* v = PyDict_GetItemWithError(kwargs.ptr(), names_.num_warps.ptr()); v && v != Py_None)
        options.num_warps = integer(v, "num_warps");
      if (PyObject* v = PyDict_GetItemWithError(kwargs.ptr(), names_.num_stages.ptr()); v && v != Py_None)
        options.num_stages = integer(v, "num_stages");
      if (PyObject* v = PyDict_GetItemWithError(kwargs.ptr(), names_.maxnreg.ptr()); v && v != Py_None)
        options.maxnreg = integer(v, "maxnreg");
      if (PyObject* v = PyDict_GetItemWithError(kwargs.ptr(), names_.num_ctas.ptr()); v && v != Py_None)
        options.num_ctas = integer(v, "num_ctas");
      if (PyObject* v = PyDict_GetItemWithError(kwargs.ptr(), names_.launch_pdl.ptr()); v && v != Py_None)
        options.launch_pdl = PyObject_IsTrue(v) == 1;
      if (PyObject* v = PyDict_GetItemWithError(kwargs.ptr(), names_.launch_cooperative_grid.ptr()); v && v != Py_None)
        options.launch_cooperative_grid = PyObject_IsTrue(v) == 1;
      if (PyObject* v = PyDict_GetItemWithError(kwargs.ptr(), names_.stream.ptr()); v && v != Py_None) {
        stream = py::cast<uintptr_t>(v);
        streamGiven = true;
      }
    }

    // Bind (into a vector kept between calls; a nested launch from a grid
    // callable gets its own).
    std::vector<Arg> local;
    std::vector<Arg>& argv = depth_ == 0 ? args_ : local;
    argv.clear();
    // The views are dropped when the launch returns: the memory is the
    // caller's, and a view kept alive would keep its (interpreter) bounds
    // registration after the memory is freed and reused.
    struct Depth {
      int& d;
      std::vector<Arg>& args;
      ~Depth() {
        args.clear();
        --d;
      }
    } depthGuard{++depth_, argv};
    PyObject* cxFixed[64];
    std::vector<PyObject*> cxMore;
    PyObject** cxValues = cxFixed;
    if (params_.size() > 64) {
      cxMore.resize(params_.size());
      cxValues = cxMore.data();
    }
    size_t ncx = 0;
    // PyTorch CUDA tensors bound as data pointers alone: where in argv, the
    // parameter, the tensor (borrowed: args, kwargs or `keep` hold it).
    struct LightArg {
      size_t at, param;
      PyObject* value;
    };
    const bool light = !metaDecorated_ && warmMisses_ < kWarmMissesBeforeGivingUp;
    std::array<LightArg, 16> lightArgs;
    size_t nlight = 0;
    std::optional<Device> device;
    int cudaIndex = -1;
    const char* missing = nullptr;
    std::vector<py::object> keep;  // values made here, alive until the launch returns
    for (size_t i = 0; i < params_.size(); ++i) {
      const Param& p = params_[i];
      PyObject* v = nullptr;
      if (i < nargs) {
        v = PyTuple_GET_ITEM(args.ptr(), i);
        if (haveKw && PyDict_Contains(kwargs.ptr(), p.name.ptr()) == 1)
          throw py::type_error(std::string(fname) + "() got multiple values for argument '" +
                               p.name.cast<std::string>() + "'");
      } else if (haveKw) {
        v = PyDict_GetItemWithError(kwargs.ptr(), p.name.ptr());
      }
      if (!v) {
        if (p.isConstexpr) {
          if (!p.hasDefault && !metaDecorated_)
            throw py::type_error(std::string(fname) + "() missing required argument '" + p.name.cast<std::string>() +
                                 "'");
          cxValues[ncx++] = nullptr;  // autotune, heuristics or the declared default supply it
          continue;
        }
        if (!p.hasDefault) {
          if (!missing) missing = PyUnicode_AsUTF8(p.name.ptr());
          continue;
        }
        v = p.defaultValue.ptr();
      }
      if (Py_TYPE(v) == reinterpret_cast<PyTypeObject*>(constexprType_.ptr())) {
        keep.push_back(py::reinterpret_steal<py::object>(PyObject_GetAttr(v, names_.value.ptr())));
        if (!keep.back()) throw py::error_already_set();
        v = keep.back().ptr();
      }
      if (p.isConstexpr) {
        cxValues[ncx++] = v;  // None included: a constexpr None
        continue;
      }
      if (missing)
        throw py::type_error(std::string(fname) + "() missing required argument '" + missing + "'");
      bool lightArg = light && nlight < lightArgs.size();
      argv.push_back(toArg(v, p, device, cudaIndex, keep, &lightArg));
      if (lightArg) lightArgs[nlight++] = {argv.size() - 1, i, v};
    }

    if (missing && !metaDecorated_)
      throw py::type_error(std::string(fname) + "() missing required argument '" + missing + "'");

    // Constexprs: the map of the last launch when the value objects repeat
    // (the outermost launch only: a grid callable may launch this kernel
    // again, with other values, while this one is being resolved).
    Meta nestedMeta;
    const Meta& meta = depth_ == 1 ? cachedMeta(cxValues, ncx) : (nestedMeta = buildMeta(cxValues), nestedMeta);

    if (!device) device = defaultDevice_().cast<Device>();  // the launch has no tensors
    if (cudaIndex >= 0 && !streamGiven && !streamOf_.is_none()) {
      py::object index = py::reinterpret_steal<py::object>(PyLong_FromLong(cudaIndex));
      py::object s = py::reinterpret_steal<py::object>(PyObject_CallOneArg(streamOf_.ptr(), index.ptr()));
      if (!s) throw py::error_already_set();
      stream = py::cast<uintptr_t>(s);
    }
    options.stream = reinterpret_cast<void*>(stream);

    Grid g = toGrid(grid, args, kwargs);
    if (light) {
      if (kernel_.launch_if_warm(*device, g, argv.data(), argv.size(), meta, options)) {
        warmMisses_ = 0;
        return;
      }
      ++warmMisses_;
      for (size_t j = 0; j < nlight; ++j) {  // full views: shapes and strides
        const LightArg& a = lightArgs[j];
        argv[a.at] = toArg(a.value, params_[a.param], device, cudaIndex, keep, nullptr);
      }
    }
    InterruptGuard guard(device->is_interpreter());
    guard.run([&] { kernel_.launch(*device, g, argv.data(), argv.size(), meta, options); });
  }

 private:
  Meta buildMeta(PyObject* const* cxValues) {
    Meta m;
    size_t j = 0;
    for (const Param& p : params_) {
      if (!p.isConstexpr) continue;
      if (PyObject* v = cxValues[j++]) {
        std::string name = p.name.cast<std::string>();
        py::handle h(v);
        if (py::hasattr(h, "fn") && py::hasattr(h, "__name__")) m.emplace(name, jitFunctionName(h, globals_, name));
        else m.emplace(name, metaValue(v, name, kernel_.name()));
      }
    }
    return m;
  }

  const Meta& cachedMeta(PyObject* const* cxValues, size_t ncx) {
    bool same = ncx == lastCx_.size();
    for (size_t j = 0; same && j < ncx; ++j) same = lastCx_[j].ptr() == cxValues[j];
    if (same) return lastMeta_;
    lastMeta_ = buildMeta(cxValues);
    lastCx_.clear();
    for (size_t j = 0; j < ncx; ++j)  // null: not given (identity compares it too)
      lastCx_.push_back(cxValues[j] ? py::reinterpret_borrow<py::object>(cxValues[j]) : py::object());
    return lastMeta_;
  }

  void checkKeywords(py::dict kwargs) {
    for (auto [k, v] : kwargs) {
      int known = PySet_Contains(keywords_.ptr(), k.ptr());
      if (known < 0) throw py::error_already_set();
      if (!known)
        throw py::type_error(kernel_.name() + "() got an unexpected keyword argument '" + py::str(k).cast<std::string>() +
                             "'");
    }
  }

  TypeKind kindOf(PyObject* v) {
    PyTypeObject* t = Py_TYPE(v);
    auto it = kinds_.find(t);
    if (it != kinds_.end()) return it->second;
    TypeKind k = TypeKind::Python;
    py::handle h(v);
    std::string module = py::str(py::handle(reinterpret_cast<PyObject*>(t)).attr("__module__"));
    if (module.rfind("torch", 0) == 0 && py::hasattr(h, "data_ptr") && py::hasattr(h, "stride") &&
        py::hasattr(h, "is_cuda"))
      k = TypeKind::Torch;
    else if (py::isinstance<Tensor>(h))
      k = TypeKind::Tessera;
    kinds_.emplace(t, k);
    return k;
  }

  void place(std::optional<Device>& device, const Device& d, const Param& p) {
    if (!device) {
      device = d;
    } else if (device->impl() != d.impl()) {
      throw py::value_error("tessera: argument '" + p.name.cast<std::string>() + "' is on " + d.name() +
                            " but an earlier tensor argument is on " + device->name() +
                            "; all of a launch's tensors must be on one device");
    }
  }

  const Device& cudaDevice(int index) {
    auto it = cuda_.find(index);
    if (it == cuda_.end()) it = cuda_.emplace(index, Device::cuda(index)).first;
    return it->second;
  }

  DType torchDType(PyObject* dtype, const Param& p) {
    auto it = dtypes_.find(dtype);
    if (it != dtypes_.end()) return it->second;
    static const std::pair<const char*, DType> table[] = {
        {"torch.float32", DType::fp32}, {"torch.float16", DType::fp16}, {"torch.bfloat16", DType::bf16},
        {"torch.float64", DType::fp64}, {"torch.int8", DType::i8},      {"torch.int16", DType::i16},
        {"torch.int32", DType::i32},    {"torch.int64", DType::i64},    {"torch.uint8", DType::u8},
        {"torch.uint16", DType::u16},   {"torch.uint32", DType::u32},   {"torch.uint64", DType::u64},
        {"torch.bool", DType::i1},      {"torch.float8_e4m3fn", DType::fp8e4nv},
        {"torch.float8_e5m2", DType::fp8e5}};
    std::string name = py::str(dtype);
    for (const auto& [n, d] : table)
      if (name == n) {
        dtypes_.emplace(dtype, d);
        keep_dtypes_.push_back(py::reinterpret_borrow<py::object>(dtype));
        return d;
      }
    throw py::type_error("tessera: argument '" + p.name.cast<std::string>() + "' has dtype " + name +
                         ", which kernels cannot take");
  }

  static std::vector<int64_t> ints(PyObject* seq) {
    py::object fast = py::reinterpret_steal<py::object>(PySequence_Fast(seq, "expected a sequence"));
    if (!fast) throw py::error_already_set();
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
    PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
    std::vector<int64_t> out(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      out[static_cast<size_t>(i)] = PyLong_AsLongLong(items[i]);
      if (PyErr_Occurred()) throw py::error_already_set();
    }
    return out;
  }

  py::object method(PyObject* v, const py::str& name) {
    PyObject* r = PyObject_CallMethodNoArgs(v, name.ptr());
    if (!r) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(r);
  }

  py::object attr(PyObject* v, const py::str& name) {
    PyObject* r = PyObject_GetAttr(v, name.ptr());
    if (!r) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(r);
  }

  /// `light`: in, whether a PyTorch CUDA tensor may become a view of its
  /// data pointer alone (for Kernel::launch_if_warm); out, whether it did.
  Arg toArg(PyObject* v, const Param& p, std::optional<Device>& device, int& cudaIndex,
            std::vector<py::object>& keep, bool* light) {
    bool mayBeLight = light && *light;
    if (light) *light = false;
    if (std::optional<Arg> scalar = scalarArg(v, p.name.ptr(), 0)) return *scalar;
    if (PyTuple_Check(v))  // a tuple argument: its elements are arguments of their own
      return tupleArg(v, [&](PyObject* e) { return toArg(e, p, device, cudaIndex, keep, nullptr); });
    switch (kindOf(v)) {
      case TypeKind::Torch: {
        // get_device(): the CUDA ordinal, -1 for the CPU (and other devices,
        // which the Python converter names in its error).
        int index = py::cast<int>(method(v, names_.get_device));
        if (index < 0) {
          py::tuple r = convert_(py::handle(v), p.name);
          place(device, r[1].cast<Device>(), p);
          return Arg(r[0].cast<Tensor>());
        }
        uintptr_t ptr = py::cast<uintptr_t>(method(v, names_.data_ptr));
        DType dtype = torchDType(attr(v, names_.dtype).ptr(), p);
        if (mayBeLight && ptr) {
          place(device, cudaDevice(index), p);
          cudaIndex = index;
          *light = true;
          return Arg(Tensor::from_blob(*device, reinterpret_cast<void*>(ptr), dtype, {}, {}));
        }
        std::vector<int64_t> shape = ints(attr(v, names_.shape).ptr());
        std::vector<int64_t> strides = ints(method(v, names_.stride).ptr());
        place(device, cudaDevice(index), p);
        cudaIndex = index;
        return Arg(Tensor::from_blob(*device, reinterpret_cast<void*>(ptr), dtype, std::move(shape),
                                     std::move(strides)));
      }
      case TypeKind::Tessera: {
        py::tuple r = convert_(py::handle(v), p.name);
        place(device, r[1].cast<Device>(), p);
        return Arg(py::handle(v).cast<const Tensor&>());
      }
      case TypeKind::Python: break;
    }
    py::tuple r = convert_(py::handle(v), p.name);
    py::object value = r[0];
    if (!r[1].is_none()) place(device, r[1].cast<Device>(), p);
    if (py::isinstance<Tensor>(value)) return Arg(value.cast<Tensor>());
    if (py::isinstance<TensorDescriptor>(value)) return Arg(value.cast<TensorDescriptor>());
    keep.push_back(value);
    return toArg(value.ptr(), p, device, cudaIndex, keep, nullptr);
  }

  Grid toGrid(py::object grid, py::tuple args, py::dict kwargs) {
    PyObject* g = grid.ptr();
    if (!PyCallable_Check(g)) return Grid(gridDims(g));
    // Triton's meta: the bound arguments by name (defaults included), then
    // what C++ adds (autotune configs, heuristics).
    py::dict meta;
    for (size_t i = 0; i < params_.size(); ++i) {
      const Param& p = params_[i];
      PyObject* v = i < args.size() ? PyTuple_GET_ITEM(args.ptr(), i) : PyDict_GetItemWithError(kwargs.ptr(), p.name.ptr());
      if (v) meta[p.name] = py::handle(v);
      else if (p.hasDefault) meta[p.name] = p.defaultValue;
    }
    if (!metaDecorated_) return Grid(gridDims(grid(meta).ptr()));
    return Grid(std::function<std::vector<int64_t>(const Meta&)>([grid, meta](const Meta& m) {
      py::dict full(meta);
      for (const auto& [k, v] : m) full[py::str(k)] = metaObject(v);
      return gridDims(grid(full).ptr());
    }));
  }

  Kernel kernel_;
  std::vector<Param> params_;
  size_t positional_ = static_cast<size_t>(-1);  ///< parameters a positional value may fill
  bool metaDecorated_;
  py::object convert_, defaultDevice_, streamOf_, constexprType_;
  py::object globals_;  ///< the kernel's module globals (a @jit function constexpr is bound there by name)
  Interned names_;
  std::unordered_map<PyTypeObject*, TypeKind> kinds_;
  std::unordered_map<PyObject*, DType> dtypes_;
  std::vector<py::object> keep_dtypes_;
  std::map<int, Device> cuda_;
  std::vector<py::object> lastCx_;
  Meta lastMeta_;
  std::vector<Arg> args_;
  int depth_ = 0;
  static constexpr int kWarmMissesBeforeGivingUp = 8;
  int warmMisses_ = 0;  ///< launch_if_warm misses in a row
  py::set keywords_;  ///< the parameter names and launch options a keyword may name
};

}  // namespace

void bindLauncher(py::module_& m) {
  py::class_<Launcher>(m, "Launcher")
      .def(py::init<Kernel, py::list, bool, py::object, py::object, py::object, py::object, py::object>(),
           py::arg("kernel"), py::arg("layout"), py::arg("meta_decorated"), py::arg("convert"),
           py::arg("default_device"), py::arg("stream_of"), py::arg("constexpr_type"), py::arg("globals") = py::none())
      .def("__call__", &Launcher::call, py::arg("grid"), py::arg("args"), py::arg("kwargs"),
           py::arg("options") = py::none());
}

}  // namespace tessera::python
