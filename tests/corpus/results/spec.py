"""What a result spec is: how to launch one corpus entry on real inputs.

A spec is a function registered with @entry(FILE, KERNEL) (FILE and KERNEL as
in ../manifest.tsv). compare.py calls it twice with fresh, identically seeded
inputs: once launching the kernel with Triton 3.6, once with Tessera. It
returns the tensors the kernel wrote; compare.py checks them against each
other. So a spec says only how a user would launch the kernel; it needs no
reference of its own (Triton's result is the reference).

    from spec import entry, exact

    @entry("tutorials/vector_add.py", "add_kernel")
    def _(run, g):
        n = 98_437                                   # odd sizes
        x, y, out = g.randn(n), g.randn(n), g.empty(n)
        run(lambda m: (triton.cdiv(n, m["BLOCK_SIZE"]),), x, y, out, n, BLOCK_SIZE=1024)
        return {"out": out}

run(grid, *args, **kwargs) is Triton's `kernel[grid](*args, **kwargs)` for the
entry's kernel:
  * grid: a tuple, or a callable of the meta dict (Triton's META: the bound
    arguments by name, the keyword arguments, the autotune config's kwargs
    and the heuristics' values).
  * Tensors (torch CUDA tensors, any strides) and
    triton.tools.tensor_descriptor.TensorDescriptor objects are passed
    POSITIONALLY; keywords carry numbers, bools, None, strings and tl dtypes.
  * Do not pass meta-parameters that the kernel's @triton.autotune tunes or
    its @triton.heuristics computes: compare.py pins one autotune config for
    both sides (the first config of the decorator whose kwargs agree with
    the manifest's DEFINES, else the first), and both sides compute
    heuristics themselves. Pass every other constexpr without a default.
  * run may be called more than once (e.g. several launches on one buffer).

g makes inputs on the GPU from a seeded generator; use only it (or torch
calls given generator=g.gen) for randomness, so that both runs see equal
inputs:
  g.randn(*shape, dtype=torch.float32, scale=1.0)   normal
  g.rand(*shape, dtype=torch.float32, lo=0.0, hi=1.0)
  g.randint(lo, hi, *shape, dtype=torch.int32)      in [lo, hi)
  g.perm(n, dtype=torch.int64)                      a permutation of 0..n-1
  g.zeros(*shape, dtype=torch.float32)
  g.full(value, *shape, dtype=torch.float32)
  g.empty(*shape, dtype=torch.float32)              filled with a sentinel
      (NaN for floats, -7 for ints, True for bool) so that elements a kernel
      does not write compare equal on both sides
  g.tensor(data, dtype)                             torch.tensor on the GPU
  g.dev                                             "cuda"
Plain torch on the GPU (views, .t(), arithmetic on inputs, cumsum,
data_ptr()...) is fine when it is deterministic.

The returned dict maps a name to a tensor, or to tol(tensor, atol=, rtol=)
/ exact(tensor). Default tolerances (compare.py's TOLERANCE) by dtype: ints
and bools exact; fp32 atol=rtol=1e-5; fp16 atol=rtol=1e-3; bf16
atol=rtol=1e-2; fp8 compared after conversion to fp32 with atol=rtol=0.07.
Loosen with tol() only where the kernel's arithmetic allows two correct
compilers to differ more (long fp32 reductions in another order: 1e-4;
atomics accumulating in a nondeterministic order; matmuls: K-dependent).
"""

import torch

REGISTRY = {}  # (file, kernel) -> spec function


def entry(file, kernel):
    def register(fn):
        key = (file, kernel)
        if key in REGISTRY:
            raise ValueError(f"two specs for {file}:{kernel}")
        REGISTRY[key] = fn
        return fn
    return register


class Tol:
    def __init__(self, tensor, atol=None, rtol=None, exact=False):
        self.tensor, self.atol, self.rtol, self.exact = tensor, atol, rtol, exact


def tol(tensor, atol, rtol):
    return Tol(tensor, atol=atol, rtol=rtol)


def exact(tensor):
    return Tol(tensor, exact=True)


class Inputs:
    """Deterministic GPU inputs (see the module docstring)."""

    def __init__(self, seed, dev="cuda"):
        self.dev = dev
        self.gen = torch.Generator(device=dev).manual_seed(seed)

    def randn(self, *shape, dtype=torch.float32, scale=1.0):
        t = torch.randn(shape, device=self.dev, dtype=torch.float32, generator=self.gen) * scale
        return t.to(dtype)

    def rand(self, *shape, dtype=torch.float32, lo=0.0, hi=1.0):
        t = torch.rand(shape, device=self.dev, dtype=torch.float32, generator=self.gen) * (hi - lo) + lo
        return t.to(dtype)

    def randint(self, lo, hi, *shape, dtype=torch.int32):
        return torch.randint(lo, hi, shape, device=self.dev, dtype=torch.int64, generator=self.gen).to(dtype)

    def perm(self, n, dtype=torch.int64):
        return torch.randperm(n, device=self.dev, generator=self.gen).to(dtype)

    def zeros(self, *shape, dtype=torch.float32):
        return torch.zeros(shape, device=self.dev, dtype=dtype)

    def full(self, value, *shape, dtype=torch.float32):
        return torch.full(shape, value, device=self.dev, dtype=dtype)

    def empty(self, *shape, dtype=torch.float32):
        if dtype == torch.bool:
            value = True
        elif dtype.is_floating_point:
            value = float("nan")
        else:
            value = -7
        return torch.full(shape, value, device=self.dev, dtype=dtype)

    def tensor(self, data, dtype):
        return torch.tensor(data, device=self.dev, dtype=dtype)
