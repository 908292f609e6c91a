"""Stand-alone kernels in the style of the Triton tutorials.

Each module is self-contained: the kernel, the host wrapper that launches it,
and (where the tutorials have one) a small benchmark or self-test that only
runs when the file is executed as a script.
"""
