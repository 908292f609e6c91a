"""Operators of a kernel benchmark suite.

Each operator module holds Triton kernels; launch configurations come from
`benchsuite.tuning`, small device helpers from `benchsuite.helpers`, and
`benchsuite.launch` is the entry point the benchmark driver calls."""

from benchsuite import launch

__all__ = ["launch"]
