"""What the engine needs to know about the accelerator."""

import enum
import functools

import torch


class PlatformEnum(enum.Enum):
    CUDA = enum.auto()
    ROCM = enum.auto()
    CPU = enum.auto()


class Platform:
    _enum: PlatformEnum

    def is_cuda(self) -> bool:
        return self._enum == PlatformEnum.CUDA

    def is_rocm(self) -> bool:
        return self._enum == PlatformEnum.ROCM

    @functools.lru_cache(maxsize=8)
    def get_device_capability(self, device_id: int = 0):
        major, minor = torch.cuda.get_device_capability(device_id)
        return major * 10 + minor

    def has_device_capability(self, capability: int, device_id: int = 0) -> bool:
        return self.get_device_capability(device_id) >= capability

    def fp8_dtype(self) -> torch.dtype:
        return torch.float8_e4m3fnuz if self.is_rocm() else torch.float8_e4m3fn

    def num_compute_units(self, device_id: int = 0) -> int:
        return torch.cuda.get_device_properties(device_id).multi_processor_count


class CudaPlatform(Platform):
    _enum = PlatformEnum.CUDA


class RocmPlatform(Platform):
    _enum = PlatformEnum.ROCM


def _detect() -> Platform:
    if torch.version.hip is not None:
        return RocmPlatform()
    return CudaPlatform()


current_platform = _detect()
