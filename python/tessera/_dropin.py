"""Drop-in mode: Tessera serves `import triton`.

install_as_triton() puts an import hook first on sys.meta_path: `triton` and
every `triton.X` module import as the matching `tessera.X` module (a few
differ, see _ALIASES), so an unchanged Triton program runs on Tessera. It is
active only after that call, which `python3 -m tessera script.py` makes
before running the script. Triton modules imported earlier are dropped from
sys.modules so later imports see Tessera's. TRITON_PRINT_AUTOTUNING=1 turns
Tessera's autotuning report on; TRITON_INTERPRET=1 runs kernels on the
interpreter (tessera/_args.py).
"""

import importlib
import importlib.abc
import importlib.util
import os
import sys

_ALIASES = {
    "triton.runtime.jit": "tessera.jit",
    "triton.runtime.autotuner": "tessera.autotuner",
    "triton.language.extra.cuda.libdevice": "tessera.language.extra.cuda.libdevice",
    "triton.compiler.compiler": "tessera.compiler",
    "triton.backends": "tessera.runtime",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class _TritonFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != "triton" and not fullname.startswith("triton."):
            return None
        mapped = _ALIASES.get(fullname, "tessera" + fullname[len("triton"):])
        try:
            module = importlib.import_module(mapped)
        except ModuleNotFoundError as e:
            if e.name != mapped and not mapped.startswith(str(e.name)):
                raise
            raise ModuleNotFoundError("No module named '%s' (Tessera serves Triton's modules in drop-in mode, and "
                                      "has no %s)" % (fullname, mapped), name=fullname) from None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module))


_finder = _TritonFinder()


def install_as_triton():
    """From now on `import triton` (and triton.language, triton.testing, ...)
    imports Tessera."""
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    for name in [n for n in sys.modules if n == "triton" or n.startswith("triton.")]:
        del sys.modules[name]
    # Tessera's modules already loaded become Triton's now, so that a later
    # `import triton.X` finds them (the import system would otherwise bind
    # the module to its parent, over an attribute of the same name, such as
    # triton.runtime.driver, the DriverConfig object).
    for name, module in list(sys.modules.items()):
        if name == "tessera" or name.startswith("tessera."):
            sys.modules.setdefault("triton" + name[len("tessera"):], module)
    for alias, name in _ALIASES.items():
        if name in sys.modules:
            sys.modules.setdefault(alias, sys.modules[name])
    if os.environ.get("TRITON_PRINT_AUTOTUNING", "0") not in ("", "0"):
        os.environ.setdefault("TESSERA_PRINT_AUTOTUNING", "1")
