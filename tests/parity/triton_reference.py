"""Runs tests/parity/parity_kernels.py with Triton on the GPU and writes the
inputs, the outputs and a manifest that tests/parity/compare replays on
Tessera's interpreter.

    python3 triton_reference.py OUTDIR

Manifest lines (one case each block):
    case NAME KERNEL GRID
    tensor DTYPE NUMEL FILE in|out TOL     (TOL 0 = bit-exact, else |a-b| <= TOL*(1+|ref|))
    int VALUE
    const NAME VALUE
    end
"""
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parity_kernels as K  # noqa: E402

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
manifest = open(os.path.join(OUT, "manifest.txt"), "w")
NAMES = {torch.float64: "fp64", torch.int8: "i8", torch.int32: "i32", torch.int64: "i64", torch.uint32: "u32", torch.float16: "fp16",
         torch.bfloat16: "bf16", torch.float32: "fp32", torch.float8_e4m3fn: "fp8e4nv", torch.float8_e5m2: "fp8e5"}
RAW = {torch.bfloat16: torch.int16, torch.float8_e4m3fn: torch.uint8, torch.float8_e5m2: torch.uint8,
       torch.uint32: torch.int32}
counter = [0]


def save(t):
    counter[0] += 1
    name = f"t{counter[0]}.bin"
    t = t.detach().contiguous().cpu()
    if t.dtype in RAW:
        t = t.view(RAW[t.dtype])
    t.numpy().tofile(os.path.join(OUT, name))
    return name


def case(name, kernel, grid, args, consts, outputs, tol=None):
    """args: tensors or ints in kernel order; outputs: set of arg indices to compare."""
    try:
        kernel[(grid,)](*args, **consts)
        torch.cuda.synchronize()
    except Exception as e:  # report and keep going: one bad case must not hide the others
        print(f"case {name}: Triton failed: {type(e).__name__}: {str(e)[:400]}")
        return
    tol = tol or {}
    manifest.write(f"case {name} {kernel.fn.__name__} {grid}\n")
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor):
            role = "out" if i in outputs else "in"
            manifest.write(f"tensor {NAMES[a.dtype]} {a.numel()} {save(a)} {role} {tol.get(i, 0)}\n")
        else:
            manifest.write(f"int {a}\n")
    for k, v in consts.items():
        manifest.write(f"const {k} {v}\n")
    manifest.write("end\n")


def empty(n, dtype):
    return torch.zeros(n, dtype=dtype, device="cuda")


torch.manual_seed(20261122)
dev = "cuda"
n = 1000
for seed in (1234, 2**40 + 5):
    outs = [empty(n, torch.uint32), empty(n, torch.float32), empty(n, torch.float32)] + [empty(n, torch.uint32) for _ in range(4)]
    case(f"prng_seed{seed}", K.prng, triton.cdiv(n, 128), [seed, *outs, n], {"BLOCK": 128},
         outputs={1, 2, 3, 4, 5, 6, 7}, tol={3: 1e-6})

a = torch.randint(-1000, 1000, (n,), dtype=torch.int32, device=dev)
b = torch.randint(1, 50, (n,), dtype=torch.int32, device=dev) * (torch.randint(0, 2, (n,), device=dev, dtype=torch.int32) * 2 - 1)
outs = [empty(n, torch.int32) for _ in range(4)] + [empty(n, torch.float32), empty(n, torch.int32)]
# `/` on ints is fp32 division, which Triton lowers to div.full.f32 (<= 2 ulp).
case("int_semantics", K.int_semantics, triton.cdiv(n, 256), [a, b, *outs, n], {"BLOCK": 256}, outputs={2, 3, 4, 5, 6, 7},
     tol={6: 3e-7})

x8 = torch.randint(-128, 128, (100,), dtype=torch.int8, device=dev)
case("narrow_ints", K.narrow_ints, 1, [x8, empty(100, torch.int8), empty(1, torch.int32), empty(100, torch.int32), 100],
     {"BLOCK": 128}, outputs={1, 2, 3})

x = torch.cat([torch.randn(700, device=dev) * 3, torch.randn(300, device=dev) * 500,
               torch.tensor([0.0, -0.0, 65504.0, 65520.0, 1e-8, 5.96e-8, 448.0, 464.0, 57344.0, 3.0e38], device=dev)])
m = x.numel()
outs = [empty(m, torch.float16), empty(m, torch.bfloat16), empty(m, torch.float16), empty(m, torch.float8_e4m3fn),
        empty(m, torch.float8_e5m2), empty(m, torch.int32)]
x[-1] = 1000.0  # keep float->int32 defined
case("float_casts", K.float_casts, triton.cdiv(m, 256), [x, *outs, m], {"BLOCK": 256}, outputs={1, 2, 3, 4, 5, 6})

h = torch.randn(n, device=dev).to(torch.float16)
bb = torch.randn(n, device=dev).to(torch.bfloat16)
i = torch.randint(-20, 20, (n,), dtype=torch.int32, device=dev)
outs = [empty(n, torch.float16), empty(n, torch.float32), empty(n, torch.float16), empty(n, torch.float32)]
# h * 3 + i is contracted into one fp16 fma on the GPU (enable_fp_fusion): the
# interpreter rounds the product first, so the two differ by up to half an fp16
# ulp of |h * 3| (<= 2^-9 for |h * 3| < 16). h / 3 is div.full.f32.
case("promotion", K.promotion, triton.cdiv(n, 128), [h, bb, i, *outs, n], {"BLOCK": 128}, outputs={3, 4, 5, 6},
     tol={5: 4e-3, 6: 3e-7})

xf = torch.randn(n, device=dev) * 10
yf = torch.randn(n, device=dev) * 10 + 0.01
outs = [empty(n, torch.float32) for _ in range(5)]
case("exact_math", K.exact_math, triton.cdiv(n, 128), [xf, yf, *outs, n], {"BLOCK": 128}, outputs={2, 3, 4, 5, 6})

xs = torch.rand(n, device=dev) * 6 - 3
outs = [empty(n, torch.float32) for _ in range(6)]
case("approx_math", K.approx_math, triton.cdiv(n, 128), [xs, *outs, n], {"BLOCK": 128}, outputs={1, 2, 3, 4, 5, 6},
     tol={1: 4e-6, 2: 4e-6, 3: 4e-6, 4: 4e-6, 5: 4e-6, 6: 4e-6})

rows, cols = 37, 100
xr = torch.randn(rows * cols, device=dev)
vr = torch.randint(0, 10, (rows * cols,), dtype=torch.int32, device=dev)
outs = [empty(rows, torch.int32), empty(rows, torch.float32), empty(rows, torch.int32), empty(rows * cols, torch.int32),
        empty(rows, torch.int32)]
case("row_reductions", K.row_reductions, rows, [xr, vr, *outs, cols], {"BLOCK": 128}, outputs={2, 3, 4, 5, 6})

m = 1000
xl = torch.cat([torch.randn(m - 12, device=dev) * 1e3, torch.tensor(
    [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 2.5, -2.5, 3.5, 1e-40, 4e9, -4e9, 2.0**31], device=dev)])
yl = torch.randn(m, device=dev) * 7 + 0.001
il = torch.randint(-2**31, 2**31 - 1, (m,), dtype=torch.int32, device=dev)
jl = torch.randint(-2**31, 2**31 - 1, (m,), dtype=torch.int32, device=dev)
outs = [empty(m, torch.int32), empty(m, torch.int32), empty(m, torch.int32), empty(m, torch.float32),
        empty(m, torch.float32), empty(m, torch.float32), empty(m, torch.int32), empty(m, torch.int32),
        empty(m, torch.int32), empty(m, torch.int32), empty(m, torch.int32)]
case("libdevice_exact", K.libdevice_exact, triton.cdiv(m, 128), [xl, yl, il, jl, *outs, m], {"BLOCK": 128},
     outputs=set(range(4, 15)))
xa = torch.rand(m, device=dev) * 2 - 1
ya = torch.rand(m, device=dev) * 4 - 2
outs = [empty(m, torch.float32) for _ in range(8)]
case("libdevice_approx", K.libdevice_approx, triton.cdiv(m, 128), [xa, ya, *outs, m], {"BLOCK": 128},
     outputs=set(range(2, 10)), tol={k: 2e-6 for k in range(2, 10)})

# Subnormals: fp32 inputs around the subnormal range, fp64 inputs whose fp32
# rounding is subnormal. Which libdevice functions flush them (FTZ)?
sub = torch.cat([torch.tensor([1e-40, -1e-40, 1.1754942e-38, 1.4e-45, 3e-39, 2e-20, 1e-19], device=dev),
                 torch.rand(57, device=dev) * 1e-38])
sd = torch.cat([torch.tensor([1e-40, -1e-40, 1.17549e-38, 1.5e-45, 7e-46, 3e-39], dtype=torch.float64, device=dev),
                torch.rand(58, dtype=torch.float64, device=dev) * 2e-38])
ms = sub.numel()
outs = [empty(ms, torch.float32) for _ in range(5)] + [empty(ms, torch.int32)] + [empty(ms, torch.float32) for _ in range(4)]
# fast_logf and logf are not correctly rounded (1-2 ulp); a flushed input
# (log(0) = -inf) is still far outside that tolerance.
case("libdevice_subnormal", K.libdevice_subnormal, 1, [sd, sub, *outs, ms], {"BLOCK": 64}, outputs=set(range(2, 12)),
     tol={8: 3e-7, 9: 3e-7})

manifest.close()
print(f"wrote {counter[0]} tensors to {OUT}")
