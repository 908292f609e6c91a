"""Finds Tessera's extension module, tessera._C.

The pure-Python package lives in the source tree (python/tessera); CMake
writes the module to <build>/python/tessera/. It is found, in order: next to
this file (an installed package), in $TESSERA_PYTHON_MODULE_DIR, then in the
source tree's build/ and build-gpu/ directories. The directory found joins the
package's __path__, so `tessera._C` imports normally.
"""

import glob
import importlib
import importlib.util
import os
import sys


def _candidates(package_dir):
    yield package_dir
    env = os.environ.get("TESSERA_PYTHON_MODULE_DIR")
    if env:
        yield env
    repo = os.path.dirname(os.path.dirname(package_dir))
    for build in ("build", "build-gpu", "build-release"):
        yield os.path.join(repo, build, "python", "tessera")


def add_cuda_wheels():
    """Points the runtime at the NVIDIA wheels a PyTorch environment has
    (site-packages/nvidia/*/lib: nvJitLink, NVRTC and its libdevice), after
    any CUDA toolkit: TESSERA_CUDA_LIBRARY_PATH. Nothing is imported."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return []
    found = []
    for root in spec.submodule_search_locations:
        for pattern in ("*/lib", "*/*/lib"):
            for d in sorted(glob.glob(os.path.join(root, pattern))):
                if glob.glob(os.path.join(d, "libnvJitLink.so*")) or glob.glob(os.path.join(d, "libnvrtc.so*")):
                    found.append(d)
    if found:
        known = [d for d in os.environ.get("TESSERA_CUDA_LIBRARY_PATH", "").split(os.pathsep) if d]
        os.environ["TESSERA_CUDA_LIBRARY_PATH"] = os.pathsep.join(known + [d for d in found if d not in known])
    return found


def load(package):
    package_dir = os.path.dirname(os.path.abspath(package.__file__))
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for directory in _candidates(package_dir):
        if glob.glob(os.path.join(directory, "_C" + suffix)):
            if directory not in package.__path__:
                package.__path__.append(directory)
            return importlib.import_module(package.__name__ + "._C")
    raise ImportError(
        "tessera: the extension module _C%s was not found for this Python (%s). Build it with "
        "`bash scripts/setup.sh` (or cmake + ninja with TESSERA_PYTHON=%s), or point "
        "TESSERA_PYTHON_MODULE_DIR at <build>/python/tessera." % (suffix, sys.executable, sys.executable))
