"""@tessera.autotune, @tessera.heuristics and Config (Triton's).

The decorators keep what Python evaluated (the configs, the heuristics'
callables) and delegate launches to the JITFunction underneath. The C++ core
reads the same decorators from the kernel's source (with Python's configs,
jit.py) and does the work: it compiles the configs in parallel, times them on
the GPU (or runs the first on the interpreter), caches the choice per key in
memory and on disk, and runs prune_configs_by and the heuristics through its
host evaluator; a heuristic the evaluator cannot evaluate makes CPython
evaluate them all (JITFunction._heuristics_hook), as Triton does.

Except when Python code must run around the launches: a Config's pre_hook,
or the autotuner's pre_hook / post_hook. Then the tuning is done here, as
Triton does it, each config launched pinned (every tuned meta-parameter
given, which the C++ core runs as given) with its hooks around it: configs
pruned by prune_configs_by, timed by testing.do_bench on the GPU (the
interpreter runs the first), the choice kept per key, and the chosen
config's pre_hook run before every launch.
"""

from .jit import KernelInterface


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 ir_override=None):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def all_kwargs(self):
        extra = {"num_warps": self.num_warps, "num_ctas": self.num_ctas, "num_stages": self.num_stages,
                 "maxnreg": self.maxnreg}
        return {**self.kwargs, **{k: v for k, v in extra.items() if v is not None}}

    def __str__(self):
        parts = ["%s: %s" % (k, v) for k, v in self.kwargs.items()]
        parts += ["num_warps: %s" % self.num_warps, "num_ctas: %s" % self.num_ctas,
                  "num_stages: %s" % self.num_stages, "maxnreg: %s" % self.maxnreg]
        return ", ".join(parts)

    def __repr__(self):
        return "Config(%s)" % self

    def _key(self):
        return (tuple(sorted(self.kwargs.items())), self.num_warps, self.num_stages, self.num_ctas, self.maxnreg)

    def __eq__(self, other):
        return isinstance(other, Config) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())


def _base(fn):
    from .jit import JITFunction
    while not isinstance(fn, JITFunction):
        if not hasattr(fn, "fn"):
            raise TypeError("tessera: @autotune / @heuristics apply to a @jit function, not %r" % (fn,))
        fn = fn.fn
    return fn


class _Decorated(KernelInterface):
    """A decorator over a @jit function: launches go to the JITFunction
    underneath, whose grid meta then includes what the decorators add."""

    def __init__(self, fn, arg_names):
        self.fn = fn
        self.base_fn = _base(fn)
        self.base_fn._meta_decorated = True
        self.arg_names = arg_names
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)

    def run(self, *args, **kwargs):
        return self.base_fn.run(*args, **kwargs)

    def warmup(self, *args, **kwargs):
        return self.base_fn.warmup(*args, **kwargs)

    def prepare(self, *args, **kwargs):
        return self.base_fn.prepare(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        return self.base_fn(*args, **kwargs)


class Autotuner(_Decorated):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None,
                 cache_results=False):
        super().__init__(fn, arg_names)
        self.configs = list(configs) if configs else [Config({})]
        self.keys = list(key)
        self.reset_to_zero = reset_to_zero
        self.restore_value = restore_value
        if prune_configs_by:
            self.base_fn._py_prune = self  # CPython runs it where the host evaluator cannot
        self.pre_hook = pre_hook
        self.post_hook = post_hook
        self.prune_configs_by = prune_configs_by
        self.cache = {}

    @property
    def _hooked(self):
        return self.pre_hook is not None or self.post_hook is not None or \
            any(c.pre_hook is not None for c in self.configs)

    @property
    def best_config(self):
        if self._hooked:
            return self._best
        c = self.base_fn.kernel.best_config()
        if c is None:
            return None
        return Config(c["kwargs"], num_warps=c["num_warps"], num_stages=c["num_stages"], num_ctas=c["num_ctas"],
                      maxnreg=c["maxnreg"])

    def run(self, *args, **kwargs):
        if self._hooked:
            return self._run_hooked(args, kwargs)
        return self.base_fn.run(*args, **kwargs)

    def warmup(self, *args, **kwargs):
        """Compiles every config prune_configs_by keeps for these arguments,
        without launching; returns their CompiledKernels (Triton's list)."""
        nargs = self._nargs(args, kwargs)
        launch = {k: v for k, v in kwargs.items() if k != "grid"}
        out = []
        for c in self._pruned(nargs, {k: v for k, v in launch.items() if k not in nargs}):
            options = {"num_warps": c.num_warps, "num_stages": c.num_stages}
            if c.maxnreg is not None:
                options["maxnreg"] = c.maxnreg
            out.append(self.base_fn.warmup(*args, **{**options, **launch, **c.kwargs}))
        return out

    # -- tuning in Python, for configs with hooks ------------------------------

    _best = None

    def _nargs(self, args, kwargs):
        names = self.base_fn.arg_names
        nargs = dict(zip(names, args))
        nargs.update((k, v) for k, v in kwargs.items() if k in names)
        return nargs

    def _launch(self, config, args, kwargs, grid, nargs):
        full = {**nargs, **config.all_kwargs()}
        if config.pre_hook is not None:
            config.pre_hook(full)
        options = {"num_warps": config.num_warps, "num_stages": config.num_stages}
        if config.maxnreg is not None:
            options["maxnreg"] = config.maxnreg
        launch_kwargs = {**kwargs, **config.kwargs, **{k: v for k, v in options.items() if k not in kwargs}}
        return self.base_fn.run(*args, grid=grid, warmup=False, **launch_kwargs)

    def _pruned(self, nargs, kwargs):
        configs = list(self.configs)
        prune = self.prune_configs_by or {}
        early = prune.get("early_config_prune")
        if early is not None:
            configs = list(early(configs, nargs, **kwargs))
            if not configs:
                raise RuntimeError("tessera: %s: early_config_prune kept no config" % self.__name__)
        model, top_k = prune.get("perf_model"), prune.get("top_k")
        if model is not None and top_k:
            k = int(len(configs) * top_k) if isinstance(top_k, float) and top_k <= 1.0 else int(top_k)
            configs = sorted(configs, key=lambda c: model(**nargs, **kwargs, **c.all_kwargs()))[:max(k, 1)]
        return configs

    def _reset(self, nargs):
        for name in self.reset_to_zero or ():
            t = nargs.get(name)
            if t is not None:
                t.zero_() if hasattr(t, "zero_") else t.fill(0)

    def _run_hooked(self, args, kwargs):
        from . import testing
        grid = kwargs.pop("grid")
        kwargs.pop("warmup", None)
        nargs = self._nargs(args, kwargs)
        def part(v):
            if v is None or isinstance(v, (int, float, bool, str)):
                return v
            return (type(v).__name__, tuple(getattr(v, "shape", ())), str(getattr(v, "dtype", "")))
        key = tuple(part(nargs.get(k)) for k in self.keys) + tuple(
            str(v.dtype) for v in nargs.values() if hasattr(v, "dtype") and hasattr(v, "shape"))
        config = self.cache.get(key)
        if config is None:
            configs = self._pruned(nargs, kwargs)
            on_gpu = any(getattr(v, "is_cuda", False) for v in nargs.values())
            if len(configs) == 1 or not on_gpu:
                config = configs[0]
            else:
                restore = {name: nargs[name].clone() for name in (self.restore_value or ()) if name in nargs}

                def bench(c):
                    def call():
                        full = {**nargs, **c.all_kwargs()}
                        self._reset(nargs)
                        if self.pre_hook is not None:
                            self.pre_hook(full)
                        try:
                            self._launch(c, args, kwargs, grid, nargs)
                        except Exception as e:
                            if self.post_hook is not None:
                                self.post_hook(full, exception=e)
                            raise
                        if self.post_hook is not None:
                            self.post_hook(full, exception=None)
                    try:
                        return testing.do_bench(call, quantiles=(0.5,))
                    except Exception:  # a config that cannot run (resources) loses
                        return float("inf")
                timings = {i: bench(c) for i, c in enumerate(configs)}
                config = configs[min(timings, key=timings.get)]
                for name, saved in restore.items():
                    nargs[name].copy_(saved)
                self._reset(nargs)
            self.cache[key] = config
        self._best = config
        return self._launch(config, args, kwargs, grid, nargs)


class Heuristics(_Decorated):
    def __init__(self, fn, arg_names, values):
        super().__init__(fn, arg_names)
        self.values = values
        # Evaluated by CPython at launch (JITFunction._heuristics_hook); an
        # outer decorator's values come first, as Triton evaluates them.
        self.base_fn._py_heuristics[:0] = list(values.items())


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    def decorator(fn):
        return Autotuner(fn, getattr(fn, "arg_names", None), configs, key, reset_to_zero, restore_value,
                         pre_hook=pre_hook, post_hook=post_hook, prune_configs_by=prune_configs_by, warmup=warmup,
                         rep=rep, use_cuda_graph=use_cuda_graph, do_bench=do_bench, cache_results=cache_results)
    return decorator


def heuristics(values):
    def decorator(fn):
        return Heuristics(fn, getattr(fn, "arg_names", None), values)
    return decorator
