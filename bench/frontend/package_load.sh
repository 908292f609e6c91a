#!/usr/bin/env bash
# CPU time of loading a 10-module package and compiling one kernel of it to
# Tile IR: `tessera compile` on a generated package (an __init__.py, a
# utils.py with configs built by host code, a version switch and device
# queries, and 8 op modules of 2 kernels each importing utils and each other),
# run ROUNDS times. Prints the median and the best user+sys CPU time of one
# process (start-up, the prelude and libtessera's loading included).
#
#   bash bench/frontend/package_load.sh build/tools/tessera [ROUNDS]
set -euo pipefail
tessera=$(readlink -f "$1") rounds=${2:-21}
[ -x "$tessera" ] || { echo "usage: $0 TESSERA_BINARY [ROUNDS]"; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pkg=$tmp/benchpkg
mkdir -p "$pkg"
{
  echo "from . import utils"
  for i in 0 1 2 3 4 5 6 7; do echo "from . import ops$i"; done
} > "$pkg/__init__.py"
cat > "$pkg/utils.py" <<'PY'
import itertools
import operator
import torch
import triton
import triton.language as tl
from packaging import version
try:
    from triton.language.extra.libdevice import rsqrt
except ModuleNotFoundError:
    from triton.language.extra.cuda.libdevice import rsqrt
NEW = version.parse(triton.__version__) >= version.parse("3.0")
NUM_SMS = torch.cuda.get_device_properties(0).multi_processor_count
EPS = tl.constexpr(1e-6)
def configs():
    out = []
    for b, w, s in itertools.product([32, 64, 128, 256, 512], [1, 2, 4, 8], [2, 3, 4]):
        if b >= 32 * w:
            out.append(triton.Config({"BLOCK": b}, num_warps=w, num_stages=s))
    return out
@triton.jit
def scale(x, a):
    return x * a + EPS
PY
for i in 0 1 2 3 4 5 6 7; do
  prev=$(( i > 0 ? i - 1 : 0 ))
  cat > "$pkg/ops$i.py" <<PY
import triton
import triton.language as tl
from .utils import scale, rsqrt, configs, NUM_SMS
from . import ops$prev as prev
CONFIGS = [c for c in configs() if c.num_stages == 3]

@triton.jit
def helper$i(x):
    return scale(x, $i.5)

@triton.autotune(configs=CONFIGS, key=["n"])
@triton.jit
def k$i(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, rsqrt(helper$i(x) * x + 1.0), mask=m)

@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def norm$i(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    s = tl.sum(x * x, axis=0) / n
    tl.store(out_ptr + offs, x * rsqrt(s + 1e-6), mask=offs < n)
PY
done
# user + sys CPU time of each `tessera compile` process, from getrusage of
# the children (microseconds), ROUNDS runs after one to warm the file cache.
/usr/bin/python3 - "$tessera" "$pkg" "$rounds" <<'PY'
import resource, statistics, subprocess, sys
tessera, pkg, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
# --arch: the device queries of utils.py are answered for it, and the default
# target is not asked of the GPU (without it, on a machine with a GPU, the
# process initializes the CUDA driver first, which costs more than the rest).
cmd = [tessera, "compile", pkg + "/ops7.py", "--kernel", "k7", "--signature", "*fp32:16, *fp32:16, i32",
       "-D", "BLOCK=256", "--arch", "sm_90a", "--emit", "ttir", "-o", "/dev/null"]
subprocess.run(cmd, check=True)
times = []
for _ in range(rounds):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    times.append(((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000)
print("package_load: 10 modules, 16 kernels; one compile to ttir: median %.1f ms, best %.1f ms CPU "
      "(user+sys of the process, %d runs)" % (statistics.median(times), min(times), rounds))
PY
