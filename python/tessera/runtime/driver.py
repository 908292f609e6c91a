"""triton.runtime.driver.active: the host queries real programs make (the
current target, device properties, streams, the benchmarker).

Device facts come from the CUDA device Tessera runs on (through PyTorch when
it is loaded, which knows the current device); on a machine without a GPU,
from the GPU the C++ host evaluator also assumes (TESSERA_CUDA_ARCH, else an
H100), so Python and the compiler agree.
"""

import os
import sys

from .. import _args

# (SMs, opt-in shared memory per block) by compute capability, for machines
# without the GPU: the same table as the C++ host evaluator's.
_KNOWN = {90: (132, 232448), 80: (108, 166912), 89: (128, 101376), 86: (84, 101376)}


class GPUTarget:
    def __init__(self, backend, arch, warp_size):
        self.backend, self.arch, self.warp_size = backend, arch, warp_size

    def __repr__(self):
        return "GPUTarget(backend=%r, arch=%r, warp_size=%r)" % (self.backend, self.arch, self.warp_size)

    def __eq__(self, other):
        return isinstance(other, GPUTarget) and (self.backend, self.arch, self.warp_size) == \
            (other.backend, other.arch, other.warp_size)

    def __hash__(self):
        return hash((self.backend, self.arch, self.warp_size))


def _capability(device):
    arch = device.arch if not device.is_interpreter else os.environ.get("TESSERA_CUDA_ARCH", "sm_90a")
    digits = "".join(c for c in arch if c.isdigit())
    return int(digits) if digits else 90


def _torch():
    return sys.modules.get("torch")


class _Utils:
    def get_device_properties(self, device=0):
        torch = _torch()
        if torch is not None and torch.cuda.is_available() and not _args.interpreting():
            p = torch.cuda.get_device_properties(device)
            return {"max_shared_mem": p.shared_memory_per_block_optin, "multiprocessor_count": p.multi_processor_count,
                    "max_num_regs": p.regs_per_multiprocessor, "warpSize": p.warp_size,
                    "sm_clock_rate": getattr(p, "clock_rate", 0), "mem_clock_rate": getattr(p, "memory_clock_rate", 0),
                    "mem_bus_width": getattr(p, "memory_bus_width", 0)}
        d = _args.default_device()
        cap = _capability(d)
        sms, smem = _KNOWN.get(cap, _KNOWN[90])
        if not d.is_interpreter:
            sms = d.multiprocessor_count
        return {"max_shared_mem": smem, "multiprocessor_count": sms, "max_num_regs": 65536, "warpSize": 32,
                "sm_clock_rate": 1980000, "mem_clock_rate": 2619000, "mem_bus_width": 5120}


class CudaDriver:
    backend = "cuda"

    def __init__(self):
        self.utils = _Utils()

    def is_active(self):
        return True

    def get_current_target(self):
        return GPUTarget("cuda", _capability(_args.default_device()), 32)

    def get_current_device(self):
        torch = _torch()
        if torch is not None and torch.cuda.is_available():
            return torch.cuda.current_device()
        return 0

    def set_current_device(self, device):
        torch = _torch()
        if torch is not None:
            torch.cuda.set_device(device)

    def get_current_stream(self, device=None):
        torch = _torch()
        if torch is None or not torch.cuda.is_available():
            return 0
        if device is None:
            device = torch.cuda.current_device()
        return torch.cuda.current_stream(device).cuda_stream

    def get_active_torch_device(self):
        import torch
        return torch.device("cuda", self.get_current_device()) if torch.cuda.is_available() else torch.device("cpu")

    def get_device_interface(self):
        import torch
        return torch.cuda

    def get_benchmarker(self):
        from ..testing import do_bench
        return do_bench

    def get_empty_cache_for_benchmark(self):
        import torch
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device="cuda")

    def clear_cache(self, cache):
        cache.zero_()


class DriverConfig:
    def __init__(self):
        self.default = CudaDriver()
        self._active = None

    @property
    def active(self):
        return self._active or self.default

    def set_active(self, driver):
        self._active = driver

    def reset_active(self):
        self._active = None


driver = DriverConfig()


def __getattr__(name):
    # `import triton.runtime.driver` makes triton.runtime.driver this module
    # (Python binds a submodule to its parent when it imports it), where
    # Triton code expects the DriverConfig object: delegate to it.
    if name in ("active", "default", "set_active", "reset_active"):
        return getattr(driver, name)
    raise AttributeError("module 'triton.runtime.driver' has no attribute '%s'" % name)
