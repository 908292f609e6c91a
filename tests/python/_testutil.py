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
