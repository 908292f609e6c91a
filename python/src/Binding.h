//===- python/src/Binding.h - Pieces of the tessera._C module -----*- C++ -*-===//
//
// The extension module is split by subject: Tensors.cpp binds Device and
// Tensor (with DLPack capsules), Module.cpp binds Program, Kernel and their
// launches. Only the public API (tessera/tessera.h) is used.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "tessera/tessera.h"

namespace tessera::python {

namespace py = pybind11;

/// The dtype Triton calls `name` ("fp32", "bf16", "i1", ...); throws Error
/// listing the names otherwise.
DType dtypeNamed(const std::string& name);

/// A Python value as a constexpr / meta value (bool, int, float, str; a
/// tl.dtype or anything else with a str() passes as its text). An array or
/// tensor (not a NumPy scalar) is a TypeError naming `name` and `kernel`.
Value metaValue(py::handle value, const std::string& name, const std::string& kernel = "");
/// A @jit function passed as constexpr `name`: its name, when `globals` (the
/// kernel's module's) binds exactly it under that name; else a TypeError.
Value jitFunctionName(py::handle fn, py::handle globals, const std::string& name);
/// The Python object of a meta value.
py::object metaObject(const Value& value);

/// A Python bool, int, float or None as a kernel argument (ints typed by
/// value, as Arg does); std::nullopt for anything else. An int beyond 64
/// bits is a ValueError naming the parameter (`name`, a str), or the
/// argument's position when `name` is null.
std::optional<Arg> scalarArg(PyObject* v, PyObject* name, size_t index);

/// A Python tuple (a namedtuple's fields named) as a tuple argument, each
/// element converted by `elem`.
template <class F>
Arg tupleArg(PyObject* v, F&& elem) {
  std::vector<Arg> elems;
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(v); ++k) elems.push_back(elem(PyTuple_GET_ITEM(v, k)));
  std::vector<std::string> names;
  std::string typeName;
  py::handle type(reinterpret_cast<PyObject*>(Py_TYPE(v)));
  if (!PyTuple_CheckExact(v) && py::hasattr(type, "_fields")) {
    for (py::handle f : type.attr("_fields")) names.push_back(py::cast<std::string>(f));
    typeName = py::cast<std::string>(type.attr("__name__"));
  }
  return Arg::tuple(std::move(elems), std::move(names), std::move(typeName));
}

/// A grid given as an int or a sequence of ints (what a grid callable
/// returns too); TypeError otherwise.
std::vector<int64_t> gridDims(PyObject* grid);

/// While alive, around an interpreter launch: SIGINT (Ctrl-C) calls
/// tessera::interrupt_interpreter() instead of only flagging Python's
/// handler, which could not run before the launch returns (an endless loop
/// would never return). run() turns the launch's "interrupted" Error into
/// KeyboardInterrupt. Inactive for GPU launches (they return at once).
class InterruptGuard {
 public:
  explicit InterruptGuard(bool active);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  template <class F>
  void run(F&& launch) {
    try {
      launch();
    } catch (const Error&) {
      if (!interrupted()) throw;
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      throw py::error_already_set();
    }
  }
  bool interrupted() const;

 private:
  bool active_;
};

void bindTensors(py::module_& m);
void bindKernels(py::module_& m);
void bindLauncher(py::module_& m);

}  // namespace tessera::python
