"""Times two cubins of the same kernel under one launcher (GPU machine only).

bench/gpu/run compares Tessera and Triton end to end, each with its own
launcher and its own do_bench. When a row differs by a few percent, this
script tells whether the compiled code is the cause: it loads Tessera's and
Triton's cubins of one benchmark row with the CUDA driver (ctypes), launches
both with cuLaunchKernel on the same inputs, checks that they write the same
outputs, and times them interleaved in a random order (L2 flushed before
every run, CUDA events around the launch only), so launcher and harness are
identical.

  python3 bench/gpu/ab_cubin.py DIR CASE [CASE...]

DIR holds, per CASE, CASE.tessera.{cubin,json} (tessera compile --emit cubin
and --emit metadata) and CASE.triton.{cubin,json} (inspect_triton.py); any
other CASE.NAME.{cubin,json} (a variant: another assembler, an older build)
is timed in the same rounds too. CASE
is one of the rows below. Extra trailing kernel parameters (Triton's scratch
pointers) are passed as null. AB_FLUSH=memset clears the L2 flush buffer
with cuMemsetD8Async instead of torch's zero_() (Triton's do_bench).
"""
import ctypes
import glob
import json
import os
import random
import re
import statistics
import sys

import torch

cuda = ctypes.CDLL("libcuda.so.1")


def check(rc, what):
    if rc != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(rc, ctypes.byref(name))
        raise RuntimeError(f"{what}: {name.value.decode() if name.value else rc}")


class Cubin:
    def __init__(self, path, meta):
        data = open(path, "rb").read()
        self.module = ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(self.module), data), f"cuModuleLoadData {path}")
        self.func = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(self.func), self.module, meta["name"].encode()),
              f"cuModuleGetFunction {meta['name']}")
        self.shared = int(meta["shared_bytes"])
        self.threads = 32 * int(meta["num_warps"])
        if self.shared > 48 * 1024:
            check(cuda.cuFuncSetAttribute(self.func, 8, self.shared), "max dynamic shared")
        regs = ctypes.c_int()
        cuda.cuFuncGetAttribute(ctypes.byref(regs), 4, self.func)
        self.registers = regs.value
        self.param_sizes = self._param_sizes(path[: -len(".cubin")] + ".ptx", meta["name"])

    @staticmethod
    def _param_sizes(ptx_path, name):
        if not os.path.exists(ptx_path):
            return None
        text = open(ptx_path).read()
        entry = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", text, re.S)
        if not entry:
            return None
        sizes = []
        for decl in re.findall(r"\.param\s+([^,\n]*)", entry.group(1)):
            sizes.append(8 if re.search(r"\.[ubs]64|\.f64", decl) else 4)
        return sizes

    def launch(self, grid, args, stream):
        n = len(self.param_sizes) if self.param_sizes else len(args)
        values = []
        for i in range(n):
            a = args[i] if i < len(args) else 0
            size = self.param_sizes[i] if self.param_sizes else 8
            if isinstance(a, torch.Tensor):
                values.append(ctypes.c_uint64(a.data_ptr()))
            elif isinstance(a, float):
                values.append(ctypes.c_float(a) if size == 4 else ctypes.c_double(a))
            else:
                values.append(ctypes.c_int32(a) if size == 4 else ctypes.c_int64(a))
        ptrs = (ctypes.c_void_p * n)(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
        check(cuda.cuLaunchKernel(self.func, grid, 1, 1, self.threads, 1, 1, self.shared,
                                  ctypes.c_void_p(stream), ptrs, None), "cuLaunchKernel")


def rand(shape, dtype, lo=-1.0, hi=1.0):
    return (torch.rand(shape, device="cuda", dtype=torch.float32) * (hi - lo) + lo).to(dtype)


def case(name):
    """(grid, make_args() -> (args, outputs), bytes moved)."""
    if name == "vadd":
        n = 1 << 20
        a, b = rand(n, torch.float32), rand(n, torch.float32)

        def make():
            out = torch.full((n,), float("nan"), device="cuda")
            return [a, b, out, n], [out]
        return n // 1024, make, 12 * n
    if name == "online4096":
        rows, cols = 4096, 4096
        x = rand((rows, cols), torch.float32, -4, 4)

        def make():
            out = torch.full((rows, cols), float("nan"), device="cuda")
            return [out, x, cols, cols, cols], [out]
        return rows, make, 2 * rows * cols * 4
    if name.startswith("smax"):
        cols, dt = {"smax256": (256, torch.float32), "smax1024": (1024, torch.float32),
                    "smax4096h": (4096, torch.float16)}[name]
        rows = 4096
        x = rand((rows, cols), dt, -4, 4)

        def make():
            out = torch.full((rows, cols), float("nan"), device="cuda", dtype=dt)
            return [out, x, cols, cols, cols], [out]
        return rows, make, 2 * rows * cols * x.element_size()
    if name == "ln1024h":
        rows, cols = 16384, 1024
        x, w, b = rand((rows, cols), torch.float16), rand(cols, torch.float16, .5, 1.5), rand(cols, torch.float16)

        def make():
            out = torch.full((rows, cols), float("nan"), device="cuda", dtype=torch.float16)
            mean = torch.full((rows,), float("nan"), device="cuda")
            rstd = torch.full((rows,), float("nan"), device="cuda")
            return [out, x, w, b, mean, rstd, cols, cols, 1e-5], [out, mean, rstd]
        return rows, make, 2 * rows * cols * 2 + 8 * rows + 4 * cols
    if name == "drop4096":
        rows, cols = 16384, 4096
        x, r = rand((rows, cols), torch.float16), rand((rows, cols), torch.float16)
        w, b = rand(cols, torch.float16, .5, 1.5), rand(cols, torch.float16)

        def make():
            out = torch.full((rows, cols), float("nan"), device="cuda", dtype=torch.float16)
            s = torch.full((rows, cols), float("nan"), device="cuda", dtype=torch.float16)
            return [out, s, x, r, w, b, cols, cols, 1e-5, 0.1, 1234], [out, s]
        return rows, make, 4 * rows * cols * 2 + 4 * cols
    raise SystemExit(f"unknown case {name}")


def main():
    d, names = sys.argv[1], sys.argv[2:]
    torch.cuda.init()
    torch.empty(1, device="cuda")
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    if os.environ.get("AB_FLUSH") == "memset":
        def clear():
            check(cuda.cuMemsetD8Async(ctypes.c_uint64(flush.data_ptr()), 0, ctypes.c_size_t(flush.numel()),
                                       ctypes.c_void_p(stream)), "cuMemsetD8Async")
    else:
        def clear():
            flush.zero_()
    print(f"{'case':10} {'tessera us':>10} {'triton us':>10} {'ratio':>6} {'regs T/Tr':>9} {'shared T/Tr':>11}  same")
    for name in names:
        grid, make, nbytes = case(name)
        kernels = {}
        whos = sorted({os.path.basename(f)[len(name) + 1:-len(".cubin")]
                       for f in glob.glob(os.path.join(d, f"{name}.*.cubin"))})
        for who in ["tessera", "triton"] + [w for w in whos if w not in ("tessera", "triton")]:
            meta = json.load(open(os.path.join(d, f"{name}.{who}.json")))
            kernels[who] = Cubin(os.path.join(d, f"{name}.{who}.cubin"), meta)
        outs = {}
        for who, k in kernels.items():
            args, o = make()
            k.launch(grid, args, stream)
            torch.cuda.synchronize()
            outs[who] = o
        same = all(torch.equal(a.nan_to_num(7.0), b.nan_to_num(7.0)) for a, b in zip(outs["tessera"], outs["triton"]))
        close = all(torch.allclose(a.float(), b.float(), rtol=2e-3, atol=2e-3, equal_nan=False)
                    for w in outs for a, b in zip(outs[w], outs["triton"]))
        args, _ = make()
        times = {w: [] for w in kernels}
        for _ in range(20):
            for k in kernels.values():
                k.launch(grid, args, stream)
        order = list(kernels.items())
        for _ in range(300):
            random.shuffle(order)  # no kernel always runs first after the other's flush
            for who, k in order:
                clear()
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                k.launch(grid, args, stream)
                e.record()
                times[who].append((s, e))
        torch.cuda.synchronize()
        med = {w: statistics.median(s.elapsed_time(e) for s, e in v) * 1000 for w, v in times.items()}
        t, tr = kernels["tessera"], kernels["triton"]
        print(f"{name:10} {med['tessera']:10.2f} {med['triton']:10.2f} {med['triton'] / med['tessera']:6.3f} "
              f"{t.registers:4d}/{tr.registers:<4d} {t.shared:5d}/{tr.shared:<5d}  "
              f"{'bitwise' if same else ('close' if close else 'DIFFERENT')}"
              f"  ({nbytes / med['tessera'] / 1e3:.0f} vs {nbytes / med['triton'] / 1e3:.0f} GB/s)")
        for who in kernels:
            if who not in ("tessera", "triton"):
                print(f"  {name}.{who}: {med[who]:.2f} us, ratio to triton {med['triton'] / med[who]:.3f}, "
                      f"{kernels[who].registers} registers")


if __name__ == "__main__":
    main()
