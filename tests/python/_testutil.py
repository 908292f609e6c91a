"""Shared helpers of the tessera pytest suite (tests/python/test_*.py):
seeded random generators, the environment of child Python processes, and
source-line lookups for diagnostics. Kept out of conftest.py so every test
file also runs on its own (ctest runs one file per test)."""

import inspect
import os
import sys
import zlib

import numpy as np

import tessera

# The directory holding the tessera package (python/), for child processes.
PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(tessera.__file__)))


# True in tests/gpu/python's second pytest pass (conftest.py): the NumPy
# arrays of each launch run on the GPU.
ON_GPU = os.environ.get("TESSERA_TEST_ARRAYS") == "cuda"


def rng(*key):
    """A NumPy generator seeded from `key` (reproducible, distinct per test)."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def child_env(extra_path=(), **extra):
    """os.environ for a child Python: PYTHONPATH = extra_path + python/."""
    env = dict(os.environ)
    paths = [str(p) for p in extra_path] + [PYTHON_DIR]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.update({k: str(v) for k, v in extra.items()})
    return env


PYTHON = sys.executable


def line_of(fn, text):
    """The 1-based line number, in fn's file, of the first line of fn's
    source containing `text`."""
    while hasattr(fn, "fn"):
        fn = fn.fn
    lines, first = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return first + i
    raise AssertionError("%r not in the source of %s" % (text, fn.__name__))


def assert_fp32_dot_close(c, a, b):
    """c = a @ b of fp32 matrices by tl.dot at its default precision: exact
    products on the interpreter (a tight fp32 tolerance), tf32 tensor cores
    on the GPU. There each operand keeps 10 mantissa bits (rounded or
    truncated: relative error below 2^-10 per operand), so every element
    lies within 2.5 * 2^-10 * (|a| @ |b|) of the exact product, plus fp32
    accumulation."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    if not ON_GPU:
        np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
        return
    bound = 2.5 * 2.0 ** -10 * (np.abs(a64) @ np.abs(b64)) + 1e-5 * (1 + np.abs(ref))
    err = np.abs(c.astype(np.float64) - ref)
    worst = np.unravel_index(np.argmax(err - bound), err.shape)
    assert np.all(err <= bound), "tf32 dot off at %s: %r vs %r (bound %g)" % (
        worst, c[worst], ref[worst], bound[worst])
