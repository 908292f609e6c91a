"""@tessera.autotune, @tessera.heuristics and Config (Triton's).

The decorators keep what Python evaluated (the configs, the heuristics'
callables) for introspection (`kernel.configs`, `kernel.best_config`), and
delegate launches to the JITFunction underneath. The C++ core reads the
same decorators from the kernel's source and does the work: it compiles the
configs in parallel, times them on the GPU (or runs the first on the
interpreter), caches the choice per key in memory and on disk, and runs
prune_configs_by and the heuristics through its host evaluator.
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


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None,
                 cache_results=False):
        self.fn = fn
        self.base_fn = _base(fn)
        self.base_fn._meta_decorated = True
        self.arg_names = arg_names
        self.configs = list(configs) if configs else [Config({})]
        self.keys = list(key)
        self.reset_to_zero = reset_to_zero
        self.restore_value = restore_value
        self.pre_hook = pre_hook
        self.post_hook = post_hook
        self.prune_configs_by = prune_configs_by
        self.cache = {}
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)

    @property
    def best_config(self):
        c = self.base_fn.kernel.best_config()
        if c is None:
            return None
        return Config(c["kwargs"], num_warps=c["num_warps"], num_stages=c["num_stages"], num_ctas=c["num_ctas"],
                      maxnreg=c["maxnreg"])

    def run(self, *args, **kwargs):
        return self.base_fn.run(*args, **kwargs)

    def warmup(self, *args, **kwargs):
        return self.base_fn.warmup(*args, **kwargs)

    def prepare(self, *args, **kwargs):
        return self.base_fn.prepare(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        return self.base_fn(*args, **kwargs)


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.base_fn = _base(fn)
        self.base_fn._meta_decorated = True
        self.arg_names = arg_names
        self.values = values
        self.__name__ = getattr(fn, "__name__", "kernel")

    def run(self, *args, **kwargs):
        return self.base_fn.run(*args, **kwargs)

    def warmup(self, *args, **kwargs):
        return self.base_fn.warmup(*args, **kwargs)

    def prepare(self, *args, **kwargs):
        return self.base_fn.prepare(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        return self.base_fn(*args, **kwargs)


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
