"""@tessera.jit (Triton's @triton.jit) and launching from Python.

A JITFunction wraps the Python function. Python never runs its body: on the
first launch Tessera's C++ frontend loads the function's source file as a
Program, with the modules CPython has already imported handed over by file
(ProgramOptions.module_files), so the kernel's imports resolve exactly as
they did for Python. Programs are shared per file.

`kernel[grid](*args, **kwargs)` binds the arguments with Python's rules
(positional in declaration order, then keywords, then the function's own
defaults), passes the runtime parameters in order and the constexprs by name
to Kernel::launch, on the device of the tensor arguments and, for PyTorch
CUDA tensors, on torch's current stream. Launch options (num_warps,
num_stages, maxnreg, num_ctas, launch_pdl, launch_cooperative_grid) are taken from the keywords as Triton takes
them; a kernel parameter of the same name also receives the value.
"""

import inspect
import numbers
import linecache
import os
import sys
import threading

from . import _C, _args
from .language.core import constexpr

_programs = {}
_programs_lock = threading.Lock()

# Top-level packages whose modules are never handed to the frontend: it
# models triton and torch itself, and kernels do not import the others.
_SKIP_ROOTS = {"torch", "triton", "tessera", "numpy", "nvidia", "jax", "cupy", "numba", "pandas", "matplotlib",
               "sympy", "IPython", "pytest", "_pytest"} | set(getattr(sys, "stdlib_module_names", ()))

# torch's modules that hold the Triton helpers Inductor's generated kernels
# call: handed over, as the frontend reads them from source (the rest of
# torch it models).
_TORCH_SOURCE = {"torch._inductor.runtime", "torch._inductor.runtime.triton_helpers",
                 "torch._inductor.runtime.triton_compat", "torch._inductor.triton_helpers"}

_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "launch_cooperative_grid",
            "launch_pdl", "stream")


def _module_files():
    files = {}
    for name, module in list(sys.modules.items()):
        if (name.partition(".")[0] in _SKIP_ROOTS and name not in _TORCH_SOURCE) or name == "__main__":
            continue
        f = getattr(module, "__file__", None)
        if f and f.endswith(".py"):
            files[name] = os.path.abspath(f)
    return files


def _autotune_configs(module_globals):
    """The configs of the module's @autotune kernels, as Python evaluated
    them: {kernel name: [(kwargs, num_warps, num_stages, num_ctas, maxnreg)]}."""
    from .autotuner import Autotuner
    out = {}
    for value in list((module_globals or {}).values()):
        if isinstance(value, Autotuner):
            out[value.base_fn.__name__] = [
                ({k: (v.value if isinstance(v, constexpr) else v) for k, v in c.kwargs.items()},
                 c.num_warps, c.num_stages, c.num_ctas, c.maxnreg) for c in value.configs]
    return out


def program_of(filename, module_globals=None):
    """The Program of a kernel file (loaded once per file), with the autotune
    configs Python evaluated for the kernels `module_globals` names."""
    with _programs_lock:
        program = _programs.get(filename)
        if program is None:
            modules = _module_files()
            configs = _autotune_configs(module_globals)
            if os.path.isfile(filename):
                program = _C.Program.from_file(filename, [], modules, "", configs)
            else:
                # Notebooks and `python -c`: the source Python kept (linecache).
                text = "".join(linecache.getlines(filename))
                if not text:
                    raise RuntimeError("tessera: the source of %s is not available; Tessera compiles a kernel "
                                       "from its source file: define it in a .py file (Triton also needs the "
                                       "source: inspect.getsource)" % filename)
                program = _C.Program.from_source(text, filename, [os.getcwd()], modules, "", configs)
            _programs[filename] = program
        return program


def _current_stream(index):
    torch = sys.modules.get("torch")
    if torch is None:
        return 0
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(index)
    return torch.cuda.current_stream(index).cuda_stream


class KernelInterface:
    """`kernel[grid](*args, **kwargs)`."""

    def __getitem__(self, grid):
        def launcher(*args, **kwargs):
            return self.run(*args, grid=grid, warmup=False, **kwargs)
        return launcher


class _Asm(dict):
    """CompiledKernel.asm: stages made on first access."""

    def __init__(self, compiled):
        super().__init__()
        self._compiled = compiled

    def __missing__(self, stage):
        if stage not in ("ttir", "ttgir", "ptx", "cubin", "sass"):
            raise KeyError(stage)
        value = self[stage] = self._compiled.asm(stage)
        return value

    def __contains__(self, stage):
        return stage in ("ttir", "ttgir", "ptx", "cubin", "sass")

    def keys(self):
        return ["ttir", "ttgir", "ptx", "cubin", "sass"]


class _Metadata:
    def __init__(self, facts):
        self.__dict__.update(facts)

    def __repr__(self):
        return "KernelMetadata(%s)" % ", ".join("%s=%r" % kv for kv in sorted(self.__dict__.items()))


class CompiledKernel:
    """One compiled specialization (Triton's CompiledKernel): .asm, .metadata,
    .n_regs, .n_spills, and `[grid](...)` to launch it with the options it was
    compiled with."""

    def __init__(self, fn, compiled, options):
        self.fn = fn
        self._compiled = compiled
        self._options = options
        self.name = compiled.name
        self.asm = _Asm(compiled)
        self._metadata = None

    def _init_handles(self):
        self._facts()

    def _facts(self):
        if self._metadata is None:
            self._metadata = self._compiled.metadata()
        return self._metadata

    @property
    def metadata(self):
        facts = dict(self._facts())
        facts["num_ctas"] = self._options.get("num_ctas", 1)
        facts["target"] = facts.get("target")
        return _Metadata(facts)

    @property
    def n_regs(self):
        return self._facts()["n_regs"]

    @property
    def n_spills(self):
        return self._facts()["spill_store_bytes"] // 4

    @property
    def n_max_threads(self):
        return 32 * self._facts()["num_warps"]

    def __getitem__(self, grid):
        fast = self.fn._launcher
        options = self._options
        if fast is not None:
            def launch(*args, **kwargs):
                return fast(grid, args, kwargs, options)
            return launch

        def launcher(*args, **kwargs):
            return self.fn.run(*args, grid=grid, warmup=False, _options=options, **kwargs)
        return launcher


def _signature_type(value):
    if isinstance(value, tuple):  # a tuple argument; a namedtuple names its class and fields
        items = [_signature_type(v) for v in value]
        fields = getattr(type(value), "_fields", None)
        if fields:
            return "%s(%s)" % (type(value).__name__, ", ".join("%s=%s" % fv for fv in zip(fields, items)))
        return "(%s%s)" % (", ".join(items), "," if len(items) == 1 else "")
    if isinstance(value, _C.Tensor):
        return "*%s%s" % (value.dtype, ":16" if value.data_ptr() % 16 == 0 else "")
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        t = "i32" if -2**31 <= value < 2**31 else "i64" if -2**63 <= value < 2**63 else "u64"
        return t + (":16" if value % 16 == 0 else "")
    if isinstance(value, float):
        return "fp32"
    if value is None:
        return "*i8"
    raise TypeError("tessera: warmup cannot type the argument %r" % (value,))


def _quick_key(args, kwargs):
    """What a warmup's specialization depends on, read cheaply: scalars
    themselves, and for PyTorch tensors their dtype, device and 16-byte
    alignment. None for any other argument (warmup then binds in full)."""
    def one(v):
        t = type(v)
        if t is int or t is bool or t is float or v is None or t is str:
            return (t, v)
        if t.__module__ == "torch" and hasattr(v, "data_ptr"):
            return (v.dtype, v.device, v.data_ptr() % 16 == 0)
        if isinstance(v, constexpr):
            return one(v.value)
        if t.__module__.startswith("triton.language") or t.__module__.startswith("tessera.language"):
            return (t, str(v))  # a dtype
        raise KeyError
    try:
        return tuple(one(v) for v in args) + tuple((k, one(v)) for k, v in sorted(kwargs.items()))
    except KeyError:
        return None


_NO_GRID = object()


class JITFunction(KernelInterface):
    def __init__(self, fn, version=None, do_not_specialize=None, do_not_specialize_on_alignment=None, debug=None,
                 noinline=None, repr=None, launch_metadata=None):
        self.fn = fn
        self.module = fn.__module__
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.__globals__ = fn.__globals__
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        for which, entries in (("do_not_specialize", do_not_specialize),
                               ("do_not_specialize_on_alignment", do_not_specialize_on_alignment)):
            for p in entries or ():
                if isinstance(p, str) and p not in self.arg_names or \
                        isinstance(p, int) and not -len(self.arg_names) <= p < len(self.arg_names):
                    raise ValueError("tessera: %s of %s() names %r, which is not one of its parameters (%s)"
                                     % (which, fn.__name__, p, ", ".join(self.arg_names)))
        self.do_not_specialize = do_not_specialize
        self.debug = debug
        self.noinline = noinline
        self._kernel = None
        self._layout = None
        self._names = None
        self._launcher = None
        self._last_grid = self._last_launch = _NO_GRID  # (kernel[None] is not the cached launch)
        self._warm = {}  # warmup(): CompiledKernels by signature, constexprs and options
        self._warm_quick = {}  # ... and by what the arguments' specialization depends on (_quick_key)
        # Decided when the kernel is defined, as Triton does.
        self._interpret = _args.interpreting()
        # Set by @autotune / @heuristics above this function: the grid's meta
        # then includes values only the C++ core knows.
        self._meta_decorated = False
        # (name, callable) of the @heuristics above this function, in
        # Triton's order (outermost decorator first): evaluated here, in
        # CPython, on the call's arguments (_heuristics_hook).
        self._py_heuristics = []
        # The @autotune above this function when it has prune_configs_by:
        # CPython runs those where the host evaluator cannot (_prune_hook).
        self._py_prune = None

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel (%s)" % self.__name__)

    def __repr__(self):
        return "JITFunction(%s:%s)" % (self.module, self.__qualname__)

    @property
    def src(self):
        return inspect.getsource(self.fn)

    @property
    def filename(self):
        return self.fn.__code__.co_filename

    def _load(self):
        if "<locals>" in self.__qualname__:
            raise TypeError("tessera: kernel '%s' is defined inside %s(); Tessera compiles the @jit functions "
                            "bound at the top level of their module's source (define it there)"
                            % (self.__name__, self.__qualname__.rsplit(".<locals>.", 1)[0].split(".")[-1]))
        kernel = program_of(self.filename, self.fn.__globals__).kernel(self.__name__)
        declared = {name: is_cx for name, is_cx, _, _ in kernel.parameters()}
        layout = []
        for name, p in self.signature.parameters.items():
            has_default = p.default is not inspect.Parameter.empty
            layout.append((name, declared.get(name, False), has_default, p.default if has_default else None,
                           p.kind == inspect.Parameter.KEYWORD_ONLY))
        self._layout = layout
        self._names = {name for name, _, _, _, _ in layout}
        self._positional = sum(1 for entry in layout if not entry[4])
        if not self._interpret:
            torch = sys.modules.get("torch")
            raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
            self._launcher = _C.Launcher(kernel, layout, self._meta_decorated, _args.convert_for_launcher,
                                         _args.default_device, raw or _current_stream, constexpr,
                                         self.fn.__globals__)
        if self._py_heuristics:
            kernel.set_heuristics_hook(self._heuristics_hook)
        if self._py_prune is not None:
            kernel.set_prune_hook(self._prune_hook)
        self._kernel = kernel
        return kernel

    def _heuristics_hook(self, meta):
        """The C++ core asks for the heuristics' values (Kernel::set_heuristics_hook):
        `meta` holds the constexprs given and the autotune config's values.
        Triton's `args` dict: the call's arguments by name, defaults, then
        those values, each heuristic seeing the ones before it."""
        calls = getattr(_calls, "stack", None)
        if not calls:
            return {}  # not a launch of this package's: the host evaluator decides
        args, kwargs = calls[-1]
        named = {name: default for name, _, has_default, default, _ in self._layout if has_default}
        named.update(zip(self.arg_names, args))
        named.update(kwargs)
        named.update(meta)
        values = {}
        for name, heuristic in self._py_heuristics:
            named[name] = values[name] = heuristic(named)
        return values

    def _prune_hook(self):
        """The C++ core asks which configs prune_configs_by keeps (its host
        evaluator could not run the callables): Triton's pruning, on the
        call's arguments; the indices of the kept configs."""
        calls = getattr(_calls, "stack", None)
        if not calls:
            raise RuntimeError("tessera: %s: prune_configs_by needs CPython, but the launch did not come from "
                               "the tessera package" % self.__name__)
        args, kwargs = calls[-1]
        tuner = self._py_prune
        names = self._names
        kept = tuner._pruned(tuner._nargs(args, kwargs), {k: v for k, v in kwargs.items() if k not in names})
        indices = []
        for c in kept:
            i = next((i for i, mine in enumerate(tuner.configs) if mine is c), None)
            if i is None:
                i = next((i for i, mine in enumerate(tuner.configs) if mine == c), None)
            if i is None:
                raise ValueError("tessera: %s: early_config_prune returned %r, which is not one of the "
                                 "autotuner's configs" % (self.__name__, c))
            indices.append(i)
        return indices

    def __getitem__(self, grid):
        if grid is self._last_grid:  # `kernel[(n,)]` with a constant tuple: the same object every time
            return self._last_launch
        launcher = self._launcher
        if launcher is None:
            if self._kernel is None:
                self._load()
            launcher = self._launcher
            if launcher is None:
                return KernelInterface.__getitem__(self, grid)

        def launch(*args, **kwargs):
            return launcher(grid, args, kwargs)
        if type(grid) is tuple:  # never a callable: it could hold tensors alive
            self._last_grid, self._last_launch = grid, launch
        return launch

    @property
    def kernel(self):
        """The tessera._C.Kernel (loaded on first use)."""
        return self._kernel or self._load()

    def _bind(self, args, kwargs):
        """(runtime args, constexprs, converted state, bound values by name)."""
        layout = self._layout
        nargs = len(args)
        if nargs > self._positional:
            raise TypeError("%s() takes %d positional arguments but %d were given%s" % (
                self.__name__, self._positional, nargs,
                " (the parameters after '*' are keyword-only)" if self._positional < len(layout) else ""))
        names = self._names
        for k in kwargs:
            if k not in names and k not in _OPTIONS:
                raise TypeError("%s() got an unexpected keyword argument '%s'" % (self.__name__, k))
        runtime = []
        constexprs = {}
        conv = _args.Converted()
        missing = None
        for i, (name, is_cx, has_default, default, _) in enumerate(layout):
            if i < nargs:
                v = args[i]
                if name in kwargs:
                    raise TypeError("%s() got multiple values for argument '%s'" % (self.__name__, name))
            elif name in kwargs:
                v = kwargs[name]
            elif is_cx:
                if not has_default and not self._meta_decorated:
                    raise TypeError("%s() missing required argument '%s'" % (self.__name__, name))
                continue  # autotune, heuristics or the declared default supply it
            elif has_default:
                v = default
            else:
                missing = missing or name
                continue
            if is_cx:
                if type(v) is constexpr:
                    v = v.value
                if isinstance(v, KernelInterface) and getattr(v, "__name__", None):
                    # A @jit function passed as a constexpr (ACTIVATION=relu):
                    # by name; the kernel's module calls its function of that name.
                    if self.fn.__globals__.get(v.__name__) is not v:
                        raise TypeError("tessera: argument '%s': the @jit function '%s' passed as a constexpr must be "
                                        "bound under that name in the kernel's module (it is called by name there)"
                                        % (name, v.__name__))
                    v = v.__name__
                elif hasattr(v, "data_ptr") or (hasattr(v, "__array_interface__") or hasattr(v, "__dlpack__")) \
                        and len(getattr(v, "shape", ())) > 0:  # NumPy scalars and 0-d arrays pass (Module.cpp)
                    raise TypeError("tessera: argument '%s' of %s() is a constexpr, which takes a Python scalar, "
                                    "string, dtype, tuple or @jit function, not an array or tensor (%s)"
                                    % (name, self.__name__, type(v).__name__))
                constexprs[name] = v  # None included
            else:
                if missing is not None:
                    raise TypeError("%s() missing required argument '%s'" % (self.__name__, missing))
                if type(v) is constexpr:
                    v = v.value
                if type(v) is int and not -2**63 <= v < 2**64:
                    raise ValueError("tessera: argument '%s': the integer %d does not fit in 64 bits" % (name, v))
                runtime.append(_args.convert(v, conv, name))
        if missing is not None and not self._meta_decorated:
            raise TypeError("%s() missing required argument '%s'" % (self.__name__, missing))
        return runtime, constexprs, conv

    def _options(self, kwargs):
        def integer(key, default):
            v = kwargs.get(key)
            if v is None:
                return default
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError("tessera: %s of %s() must be an integer, got %r" % (key, self.__name__, v))
            return int(v)
        return (integer("num_warps", 4), integer("num_stages", 3), integer("maxnreg", 0),
                bool(kwargs.get("launch_pdl")), bool(kwargs.get("launch_cooperative_grid")), integer("num_ctas", 1))

    def run(self, *args, grid, warmup=False, _options=None, **kwargs):
        kernel = self._kernel or self._load()
        if warmup:
            return self.warmup(*args, grid=grid, **kwargs)
        if self._py_heuristics or self._py_prune is not None:  # the call, for the hooks
            calls = getattr(_calls, "stack", None)
            if calls is None:
                calls = _calls.stack = []
            calls.append((args, kwargs))
            try:
                return self._run(kernel, args, grid, _options, kwargs)
            finally:
                calls.pop()
        return self._run(kernel, args, grid, _options, kwargs)

    def _run(self, kernel, args, grid, _options, kwargs):
        if self._launcher is not None and not _options:
            return self._launcher(grid, args, kwargs)
        if _options:  # a CompiledKernel's launch: the options it was compiled with
            kwargs = {**{k: v for k, v in _options.items() if k not in self._names}, **kwargs}
        runtime, constexprs, conv = self._bind(args, kwargs)
        device = conv.device or _args.default_device()
        stream = kwargs.get("stream")
        if stream is None:
            stream = _current_stream(conv.stream_device) if conv.stream_device is not None else 0
        if callable(grid):
            grid = self._grid_callable(grid, args, kwargs)
        nw, ns, mr, pdl, coop, ctas = self._options(kwargs) if kwargs else (4, 3, 0, False, False, 1)
        kernel.run(device, grid, runtime, constexprs, nw, ns, mr, stream, pdl, coop, ctas)
        if conv.write_back:
            _args.finish(conv)

    def _grid_callable(self, grid, args, kwargs):
        bound = dict(zip(self.arg_names, args))
        bound.update((k, v) for k, v in kwargs.items() if k in self._names)

        def meta_grid(meta):
            full = dict(bound)
            full.update(meta)
            return grid(full)
        return meta_grid

    def warmup(self, *args, grid=None, **kwargs):
        """Compiles the specialization these arguments select, without
        launching; returns its CompiledKernel."""
        kernel = self._kernel or self._load()
        quick = _quick_key(args, kwargs)
        if quick is not None:
            hit = self._warm_quick.get(quick)
            if hit is not None:  # no binding, no views: the tutorial's softmax warms up before every launch
                return hit
        result = self._warmup(kernel, args, kwargs)
        if quick is not None:
            self._warm_quick[quick] = result
        return result

    def _warmup(self, kernel, args, kwargs):
        runtime, constexprs, conv = self._bind(args, kwargs)
        device = conv.device or _args.default_device()
        nw, ns, mr, _, _, ctas = self._options(kwargs)
        signature = ", ".join(_signature_type(v) for v in runtime)
        arch = "" if device.is_interpreter else device.arch
        key = (signature, tuple(sorted((k, str(v)) for k, v in constexprs.items())), nw, ns, mr, arch, ctas)
        cached = self._warm.get(key)
        if cached is not None:  # code like the softmax tutorial warms up before every launch
            return cached
        compiled = kernel.compile(signature, constexprs, nw, ns, mr, arch, ctas)
        options = {"num_warps": nw, "num_stages": ns, "num_ctas": ctas}
        if mr:
            options["maxnreg"] = mr
        result = self._warm[key] = CompiledKernel(self, compiled, options)
        return result

    def prepare(self, *args, grid, **kwargs):
        """Resolves a launch once (tessera._C.PreparedLaunch): .launch() re-issues it."""
        kernel = self._kernel or self._load()
        runtime, constexprs, conv = self._bind(args, kwargs)
        device = conv.device or _args.default_device()
        stream = _current_stream(conv.stream_device) if conv.stream_device is not None else 0
        if callable(grid):
            grid = self._grid_callable(grid, args, kwargs)
        nw, ns, mr, pdl, coop, ctas = self._options(kwargs)
        return kernel.prepare(device, grid, runtime, constexprs, nw, ns, mr, stream, pdl, coop, ctas)


# Per thread: the (args, kwargs) of the launches of kernels with @heuristics
# under way (innermost last).
_calls = threading.local()


def jit(fn=None, *, version=None, repr=None, launch_metadata=None, do_not_specialize=None,
        do_not_specialize_on_alignment=None, debug=None, noinline=None):
    """Triton's @triton.jit: with or without arguments."""
    def decorator(f):
        if not inspect.isfunction(f):
            raise TypeError("tessera.jit: expected a Python function (a def), got %s %r" % (type(f).__name__, f))
        return JITFunction(f, version=version, do_not_specialize=do_not_specialize,
                           do_not_specialize_on_alignment=do_not_specialize_on_alignment, debug=debug,
                           noinline=noinline, repr=repr, launch_metadata=launch_metadata)
    if fn is not None:
        return decorator(fn)
    return decorator
