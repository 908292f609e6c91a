//===- python/src/Module.cpp - Programs, kernels and launches for Python ----===//
//
// tessera._C: Program (a kernel file and the modules it imports), Kernel
// (launch, prepare, compile, autotune facts) and CompiledKernel. The Python
// layer (python/tessera/) binds a call's arguments with Python's own rules
// and converts tensors; a launch here receives the runtime arguments in
// declaration order and the constexprs by name, as Kernel::launch does.
// tessera::Error becomes tessera.TesseraError (a RuntimeError) with the
// full diagnostic as its message.
//
//===----------------------------------------------------------------------===//

#include <csignal>

#include "Binding.h"

namespace tessera::python {

namespace {
volatile sig_atomic_t sigintSeen = 0;
struct sigaction previousSigint;
int guardDepth = 0;  // nested launches (a grid callable launching): the outermost installs

void onSigint(int) {
  sigintSeen = 1;
  interrupt_interpreter();
}
}  // namespace

InterruptGuard::InterruptGuard(bool active) : active_(active) {
  if (!active_ || guardDepth++ > 0) return;
  sigintSeen = 0;
  struct sigaction on {};
  on.sa_handler = onSigint;
  sigemptyset(&on.sa_mask);
  sigaction(SIGINT, &on, &previousSigint);
}

InterruptGuard::~InterruptGuard() {
  if (!active_ || --guardDepth > 0) return;
  sigaction(SIGINT, &previousSigint, nullptr);
}

bool InterruptGuard::interrupted() const { return active_ && sigintSeen; }

Value metaValue(py::handle v, const std::string& name, const std::string& kernel) {
  if (PyBool_Check(v.ptr())) return v.cast<bool>();
  // An array or tensor (a NumPy array of one element used to pass as that
  // element, a tensor as its text); NumPy scalars and 0-d arrays pass.
  if (py::hasattr(v, "data_ptr") ||
      ((py::hasattr(v, "__array_interface__") || py::hasattr(v, "__dlpack__")) && py::hasattr(v, "shape") &&
       py::len(v.attr("shape")) > 0))
    throw py::type_error("tessera: argument '" + name + "'" + (kernel.empty() ? "" : " of " + kernel + "()") +
                         " is a constexpr, which takes a Python scalar, string, dtype, tuple or @jit function, not "
                         "an array or tensor (" + std::string(Py_TYPE(v.ptr())->tp_name) + ")");
  if (PyLong_Check(v.ptr())) return v.cast<int64_t>();
  if (PyFloat_Check(v.ptr())) return v.cast<double>();
  if (PyUnicode_Check(v.ptr())) return v.cast<std::string>();
  if (v.is_none()) return std::monostate{};
  // NumPy scalars (np.int64, np.bool_, np.float32): their Python value.
  if (PyObject* module = PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(v.ptr())), "__module__")) {
    bool numpy = PyUnicode_Check(module) && PyUnicode_CompareWithASCIIString(module, "numpy") == 0;
    Py_DECREF(module);
    if (numpy && py::hasattr(v, "item")) return metaValue(v.attr("item")(), name);
  } else {
    PyErr_Clear();
  }
  if (py::hasattr(v, "fn") && py::hasattr(v, "__name__"))
    throw py::type_error("tessera: argument '" + name + "': a @jit function passed as a constexpr must be bound " +
                         "under its own name in the kernel's module");
  // tl.dtype and friends: their text ("fp16") is what the compiler reads.
  return py::str(v).cast<std::string>();
}

Value jitFunctionName(py::handle fn, py::handle globals, const std::string& name) {
  // The kernel calls the function its module binds under that name: only
  // the very function passed may be found there (no other of the same name).
  py::object fnName = fn.attr("__name__");
  if (globals.is_none() || !PyDict_Check(globals.ptr()) || PyDict_GetItem(globals.ptr(), fnName.ptr()) != fn.ptr())
    throw py::type_error("tessera: argument '" + name + "': the @jit function '" + py::str(fnName).cast<std::string>() +
                         "' passed as a constexpr must be bound under that name in the kernel's module (it is "
                         "called by name there)");
  return py::str(fnName).cast<std::string>();
}

py::object metaObject(const Value& v) {
  if (auto* b = std::get_if<bool>(&v)) return py::bool_(*b);
  if (auto* i = std::get_if<int64_t>(&v)) return py::int_(*i);
  if (auto* d = std::get_if<double>(&v)) return py::float_(*d);
  if (auto* s = std::get_if<std::string>(&v)) return py::str(*s);
  return py::none();
}

std::optional<Arg> scalarArg(PyObject* v, PyObject* name, size_t index) {
  if (PyBool_Check(v)) return Arg(v == Py_True);
  if (PyLong_Check(v)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow == 0) return Arg(static_cast<int64_t>(x));
    if (overflow > 0) {
      unsigned long long u = PyLong_AsUnsignedLongLong(v);
      if (!PyErr_Occurred()) return Arg(static_cast<uint64_t>(u));
      PyErr_Clear();
    }
    std::string what = name ? "tessera: argument '" + py::str(name).cast<std::string>() + "'"
                            : "argument " + std::to_string(index);
    throw py::value_error(what + ": the integer " + py::repr(v).cast<std::string>() + " does not fit in 64 bits");
  }
  if (PyFloat_Check(v)) return Arg(PyFloat_AS_DOUBLE(v));
  if (v == Py_None) return Arg(nullptr);
  return std::nullopt;
}

std::vector<int64_t> gridDims(PyObject* g) {
  if (PyLong_Check(g)) return {PyLong_AsLongLong(g)};
  if (!PyTuple_Check(g) && !PyList_Check(g))
    throw py::type_error("the grid must be a tuple of 1 to 3 integers or a callable of the meta-parameters, got " +
                         std::string(Py_TYPE(g)->tp_name));
  Py_ssize_t n = PySequence_Fast_GET_SIZE(g);
  PyObject** items = PySequence_Fast_ITEMS(g);
  std::vector<int64_t> dims(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!PyIndex_Check(items[i]))
      throw py::type_error("the grid's dimensions must be integers, got " + py::repr(items[i]).cast<std::string>());
    dims[static_cast<size_t>(i)] = PyNumber_AsSsize_t(items[i], PyExc_OverflowError);
    if (PyErr_Occurred()) throw py::error_already_set();
  }
  return dims;
}

namespace {

/// A Python callable kept by the C++ core (a hook): released with the GIL,
/// or leaked once Python has finalized.
struct HeldCallable {
  py::object fn;
  explicit HeldCallable(py::object f) : fn(std::move(f)) {}
  HeldCallable(const HeldCallable&) = delete;
  HeldCallable& operator=(const HeldCallable&) = delete;
  ~HeldCallable() {
    if (Py_IsInitialized()) {
      py::gil_scoped_acquire gil;
      fn = py::object();
    } else {
      fn.release();
    }
  }
};

Arg toArg(py::handle v, size_t index) {
  if (std::optional<Arg> scalar = scalarArg(v.ptr(), nullptr, index)) return *scalar;
  if (py::isinstance<Tensor>(v)) return Arg(v.cast<const Tensor&>());
  if (py::isinstance<TensorDescriptor>(v)) return Arg(v.cast<const TensorDescriptor&>());
  if (PyTuple_Check(v.ptr())) return tupleArg(v.ptr(), [&](PyObject* e) { return toArg(e, index); });
  throw Error("argument " + std::to_string(index) + ": cannot pass a " +
              py::str(py::type::of(v).attr("__name__")).cast<std::string>() + " to a kernel");
}

Meta toMeta(py::dict d) {
  Meta m;
  for (auto [k, v] : d) {
    std::string name = py::str(k);
    m.emplace(name, metaValue(v, name));
  }
  return m;
}

py::dict metaDict(const Meta& meta) {
  py::dict d;
  for (const auto& [k, v] : meta) d[py::str(k)] = metaObject(v);
  return d;
}

Grid toGrid(py::object grid) {
  if (!PyCallable_Check(grid.ptr())) return Grid(gridDims(grid.ptr()));
  return Grid(std::function<std::vector<int64_t>(const Meta&)>([grid](const Meta& meta) {
    return gridDims(grid(metaDict(meta)).ptr());
  }));
}

LaunchOptions toOptions(int num_warps, int num_stages, int maxnreg, uintptr_t stream, bool launch_pdl = false,
                        bool cooperative = false, int num_ctas = 1) {
  LaunchOptions o;
  o.num_ctas = num_ctas;
  o.launch_pdl = launch_pdl;
  o.launch_cooperative_grid = cooperative;
  o.num_warps = num_warps;
  o.num_stages = num_stages;
  o.maxnreg = maxnreg;
  o.stream = reinterpret_cast<void*>(stream);
  return o;
}

std::vector<Arg> toArgs(py::sequence args) {
  std::vector<Arg> out;
  out.reserve(args.size());
  size_t i = 0;
  for (py::handle a : args) out.push_back(toArg(a, i++));
  return out;
}

py::dict configDict(const AutotuneConfig& c) {
  py::dict d;
  d["kwargs"] = metaDict(c.kwargs);
  d["num_warps"] = c.num_warps;
  d["num_stages"] = c.num_stages;
  d["num_ctas"] = c.num_ctas;
  d["maxnreg"] = c.maxnreg ? py::object(py::int_(*c.maxnreg)) : py::object(py::none());
  return d;
}

py::dict metadataDict(const KernelMetadata& k) {
  py::dict d;
  d["name"] = k.name;
  d["target"] = k.target;
  d["num_warps"] = k.num_warps;
  d["num_stages"] = k.num_stages;
  d["shared"] = k.shared_bytes;
  d["static_shared"] = k.static_shared_bytes;
  d["n_regs"] = k.registers;
  d["spill_store_bytes"] = k.spill_store_bytes;
  d["spill_load_bytes"] = k.spill_load_bytes;
  d["stack_frame_bytes"] = k.stack_frame_bytes;
  return d;
}

/// {kernel: [(kwargs, num_warps, num_stages, num_ctas, maxnreg or None), ...]}
std::map<std::string, std::vector<AutotuneConfig>> configsOf(py::dict given) {
  std::map<std::string, std::vector<AutotuneConfig>> out;
  for (auto [kernel, configs] : given) {
    std::vector<AutotuneConfig>& list = out[py::str(kernel).cast<std::string>()];
    for (py::handle item : configs) {
      py::tuple t = py::reinterpret_borrow<py::tuple>(item);
      AutotuneConfig c;
      c.kwargs = toMeta(py::reinterpret_borrow<py::dict>(t[0]));
      c.num_warps = t[1].cast<int>();
      c.num_stages = t[2].cast<int>();
      c.num_ctas = t[3].cast<int>();
      if (!t[4].is_none()) c.maxnreg = t[4].cast<int>();
      list.push_back(std::move(c));
    }
  }
  return out;
}

ProgramOptions programOptions(std::vector<std::string> search_path, std::map<std::string, std::string> modules,
                              std::string arch, py::dict configs) {
  ProgramOptions o;
  o.search_path = std::move(search_path);
  o.module_files = std::move(modules);
  o.autotune_configs = configsOf(configs);
  o.arch = std::move(arch);
  return o;
}

}  // namespace

void bindKernels(py::module_& m) {
  py::class_<CompiledKernel>(m, "CompiledKernel")
      .def("asm", [](const CompiledKernel& k, const std::string& stage) -> py::object {
             std::string text = k.asm_text(stage);
             if (stage == "cubin") return py::bytes(text);
             return py::str(text);
           })
      .def_property_readonly("name", &CompiledKernel::name)
      .def_property_readonly("target", &CompiledKernel::target)
      .def("metadata", [](const CompiledKernel& k) { return metadataDict(k.metadata()); });

  py::class_<PreparedLaunch>(m, "PreparedLaunch")
      .def("launch", [](const PreparedLaunch& p, uintptr_t stream) { p.launch(reinterpret_cast<void*>(stream)); },
           py::arg("stream") = 0)
      .def_property_readonly("grid", &PreparedLaunch::grid);

  py::class_<Kernel>(m, "Kernel")
      .def_property_readonly("name", &Kernel::name)
      .def("parameters",
           [](const Kernel& k) {
             py::list out;
             for (const Kernel::Parameter& p : k.parameters())
               out.append(py::make_tuple(p.name, p.is_constexpr, p.annotation ? py::object(py::str(*p.annotation)) : py::none(),
                                         p.default_value ? py::object(py::str(*p.default_value)) : py::none()));
             return out;
           })
      .def_property_readonly("defined_at", &Kernel::defined_at)
      .def("autotune_configs",
           [](const Kernel& k) {
             py::list out;
             for (const AutotuneConfig& c : k.autotune_configs()) out.append(configDict(c));
             return out;
           })
      .def("best_config",
           [](const Kernel& k) -> py::object {
             auto c = k.best_config();
             return c ? py::object(configDict(*c)) : py::object(py::none());
           })
      .def("set_heuristics_hook",
           [](Kernel& k, py::object fn) {
             // fn(meta: dict) -> dict of heuristic values.
             auto held = std::make_shared<HeldCallable>(std::move(fn));
             k.set_heuristics_hook([held](const Meta& meta) {
               py::gil_scoped_acquire gil;
               py::object values = held->fn(metaDict(meta));
               return toMeta(py::reinterpret_borrow<py::dict>(values));
             });
           })
      .def("set_prune_hook",
           [](Kernel& k, py::object fn) {
             // fn() -> the indices of the configs prune_configs_by keeps,
             // asked only where the host evaluator cannot run the decorator's
             // own callables.
             auto held = std::make_shared<HeldCallable>(std::move(fn));
             AutotuneHooks hooks;
             hooks.where_the_host_evaluator_cannot = true;
             hooks.early_config_prune = [held](const std::vector<AutotuneConfig>&, const Meta&) {
               py::gil_scoped_acquire gil;
               return held->fn().cast<std::vector<size_t>>();
             };
             k.set_autotune_hooks(std::move(hooks));
           })
      .def(
          "run",
          [](Kernel& k, Device& device, py::object grid, py::sequence args, py::dict constexprs, int num_warps,
             int num_stages, int maxnreg, uintptr_t stream, bool launch_pdl, bool launch_cooperative_grid,
             int num_ctas) {
            std::vector<Arg> a = toArgs(args);
            InterruptGuard guard(device.is_interpreter());
            guard.run([&] {
              k.launch(device, toGrid(grid), a.data(), a.size(), toMeta(constexprs),
                       toOptions(num_warps, num_stages, maxnreg, stream, launch_pdl, launch_cooperative_grid,
                                 num_ctas));
            });
          },
          py::arg("device"), py::arg("grid"), py::arg("args"), py::arg("constexprs"), py::arg("num_warps") = 4,
          py::arg("num_stages") = 3, py::arg("maxnreg") = 0, py::arg("stream") = 0, py::arg("launch_pdl") = false,
          py::arg("launch_cooperative_grid") = false, py::arg("num_ctas") = 1)
      .def(
          "prepare",
          [](Kernel& k, Device& device, py::object grid, py::sequence args, py::dict constexprs, int num_warps,
             int num_stages, int maxnreg, uintptr_t stream, bool launch_pdl, bool launch_cooperative_grid,
             int num_ctas) {
            return k.prepare(device, toGrid(grid), toArgs(args), toMeta(constexprs),
                             toOptions(num_warps, num_stages, maxnreg, stream, launch_pdl, launch_cooperative_grid, num_ctas));
          },
          py::arg("device"), py::arg("grid"), py::arg("args"), py::arg("constexprs"), py::arg("num_warps") = 4,
          py::arg("num_stages") = 3, py::arg("maxnreg") = 0, py::arg("stream") = 0, py::arg("launch_pdl") = false,
          py::arg("launch_cooperative_grid") = false, py::arg("num_ctas") = 1)
      .def(
          "compile",
          [](Kernel& k, const std::string& signature, py::dict constexprs, int num_warps, int num_stages, int maxnreg,
             const std::string& arch, int num_ctas) {
            return k.compile(signature, toMeta(constexprs),
                             toOptions(num_warps, num_stages, maxnreg, 0, false, false, num_ctas), arch);
          },
          py::arg("signature"), py::arg("constexprs"), py::arg("num_warps") = 4, py::arg("num_stages") = 3,
          py::arg("maxnreg") = 0, py::arg("arch") = "", py::arg("num_ctas") = 1);

  py::class_<Program>(m, "Program")
      .def_static(
          "from_file",
          [](const std::string& path, std::vector<std::string> search_path, std::map<std::string, std::string> modules,
             std::string arch, py::dict configs) {
            return Program::from_file(path,
                                      programOptions(std::move(search_path), std::move(modules), std::move(arch), configs));
          },
          py::arg("path"), py::arg("search_path") = std::vector<std::string>{},
          py::arg("module_files") = std::map<std::string, std::string>{}, py::arg("arch") = "",
          py::arg("autotune_configs") = py::dict())
      .def_static(
          "from_source",
          [](const std::string& text, const std::string& filename, std::vector<std::string> search_path,
             std::map<std::string, std::string> modules, std::string arch, py::dict configs) {
            return Program::from_source(
                text, filename, programOptions(std::move(search_path), std::move(modules), std::move(arch), configs));
          },
          py::arg("text"), py::arg("filename") = "<string>", py::arg("search_path") = std::vector<std::string>{},
          py::arg("module_files") = std::map<std::string, std::string>{}, py::arg("arch") = "",
          py::arg("autotune_configs") = py::dict())
      .def("kernel", &Program::kernel)
      .def("kernel_names", &Program::kernel_names)
      .def("modules", &Program::modules);
}

}  // namespace tessera::python

PYBIND11_MODULE(_C, m) {
  namespace py = pybind11;
  m.doc() = "Tessera's C++ core (include/tessera/tessera.h) for the tessera package";
  static py::exception<tessera::Error> error(m, "TesseraError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tessera::Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  tessera::python::bindTensors(m);
  tessera::python::bindKernels(m);
  tessera::python::bindLauncher(m);
  m.def("dtype_size", [](const std::string& name) { return tessera::dtype_size(tessera::python::dtypeNamed(name)); });
  m.def("profile_flush", &tessera::profile_flush);
}
