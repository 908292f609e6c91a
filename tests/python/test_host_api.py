"""The host side of the package: tessera.language's names (Triton 3.6's),
Config, cdiv / next_power_of_2, tessera.testing (do_bench, perf_report),
the runtime driver, warmup's CompiledKernel and its assembly."""

import csv
import functools
import os
import re
import time

import numpy as np
import pytest

import tessera
import tessera.language as tl
import tessera.language.extra.cuda.libdevice as cuda_libdevice
import tessera.language.extra.libdevice as libdevice
import tessera.testing
from tessera.runtime import driver

from _testutil import rng

SPEC = os.environ.get("TESSERA_TRITON_API_SPEC", "/work/shared/spec/triton-3.6-api.txt")


@tessera.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def _spec_lines():
    if not os.path.exists(SPEC):
        pytest.skip("the Triton API list %s is not on this machine" % SPEC)
    with open(SPEC) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def _spec_names(prefix):
    """(name after 'tl.', kind) for each public spec line under `prefix`."""
    out = []
    for line in _spec_lines():
        m = re.match(r"tl\.([\w.]+)(.*)\[(\w+)\]\s*$", line)
        if not m:
            continue
        name, kind = m.group(1), m.group(3)
        if any(part.startswith("_") for part in name.split(".")):
            continue
        if name.startswith(prefix) and (prefix or not name.startswith("math.")):
            out.append((name, kind))
    return out


def _lookup(name):
    return functools.reduce(getattr, name.split("."), tl)


# ------------------------------------------------------------ language names

def test_every_public_tl_name_exists():
    names = _spec_names("")
    assert len(names) > 120, "the spec list looks truncated"
    missing = []
    for name, _ in names:
        try:
            _lookup(name)
        except AttributeError:
            missing.append(name)
    assert missing == [], "tessera.language lacks: %s" % ", ".join(missing)


def test_every_public_tl_math_name_exists():
    names = _spec_names("math.")
    assert len(names) > 15
    missing = []
    for name, _ in names:
        try:
            _lookup(name)
        except AttributeError:
            missing.append("tl." + name)
    assert missing == [], "tessera.language.math lacks: %s" % ", ".join(missing)


def test_tl_names_have_the_right_kind():
    wrong = []
    for name, kind in _spec_names(""):
        try:
            value = _lookup(name)
        except AttributeError:
            continue  # reported by test_every_public_tl_name_exists
        if kind == "dtype" and not isinstance(value, tl.dtype):
            wrong.append("%s is %r, not a dtype" % (name, value))
        elif kind in ("function", "JITFunction", "type") and not callable(value):
            wrong.append("%s (%s) is not callable" % (name, kind))
        elif kind == "module" and not hasattr(value, "__name__"):
            wrong.append("%s is not a module" % name)
    assert wrong == []


def test_libdevice_names_exist_under_both_paths():
    line = [x for x in _spec_lines() if x.startswith("libdevice:")]
    assert line, "no libdevice line in the spec"
    names = line[0].split(":", 1)[1].split()
    assert len(names) > 150
    missing = [n for n in names if not callable(getattr(libdevice, n, None))]
    missing += ["cuda." + n for n in names if not callable(getattr(cuda_libdevice, n, None))]
    assert missing == []
    assert tl.extra.libdevice.exp is libdevice.exp or tl.extra.libdevice.exp.__name__ == "exp"


@pytest.mark.parametrize("fn", [lambda: tl.load(None), lambda: tl.arange(0, 16), lambda: tl.math.exp(1.0),
                                lambda: libdevice.exp(1.0), lambda: tl.sum(None, axis=0),
                                lambda: tl.program_id(0)])
def test_calling_tl_functions_from_python_raises(fn):
    with pytest.raises(ValueError, match="jit"):
        fn()


def test_tensor_values_exist_only_in_kernels():
    with pytest.raises(RuntimeError):
        tl.tensor(None, tl.float32)


def test_constexpr_values():
    c = tl.constexpr(3)
    assert c.value == 3
    assert tl.constexpr(c).value == 3
    assert c + 1 == 4 and 1 + c == 4 and isinstance(c + 1, tl.constexpr)
    assert c * 2 == 6 and c // 2 == 1 and c % 2 == 1 and 2 ** c == 8 and -c == -3
    assert int(c) == 3 and float(c) == 3.0 and bool(tl.constexpr(0)) is False
    assert list(range(c)) == [0, 1, 2]
    assert c == tl.constexpr(3) and c != 4 and c < 4 and c >= 3
    assert hash(c) == hash(3)
    assert tl.constexpr_type is tl.constexpr


def test_dtypes():
    assert str(tl.float16) == "fp16" and str(tl.float32) == "fp32" and str(tl.bfloat16) == "bf16"
    assert str(tl.int32) == "i32" and str(tl.uint8) == "u8" and str(tl.int1) == "i1"
    assert tl.float16.primitive_bitwidth == 16 and tl.int64.primitive_bitwidth == 64
    assert tl.float8e4nv.primitive_bitwidth == 8
    assert tl.float16 == tl.dtype("fp16") and tl.float16 != tl.bfloat16
    assert tl.float32.is_floating() and not tl.int32.is_floating()
    assert tl.int8.is_int_signed() and tl.uint32.is_int_unsigned() and tl.int1.is_bool()
    assert tl.float8e5.is_fp8() and tl.bfloat16.is_bf16()
    assert repr(tl.float16) == "triton.language.float16"
    p = tl.pointer_type(tl.float32)
    assert p.is_ptr() and p.element_ty == tl.float32 and str(p) == "*fp32"
    assert tl.str_to_ty("*fp16").element_ty == tl.float16
    assert tl.str_to_ty("i64") == tl.int64
    assert tl.pi32_t.element_ty == tl.int32
    with pytest.raises(ValueError):
        tl.dtype("fp17")


# -------------------------------------------------------------------- Config

def test_config_all_kwargs_and_str():
    c = tessera.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=8, num_stages=4)
    assert c.kwargs == {"BLOCK_M": 128, "BLOCK_N": 64}
    assert c.all_kwargs() == {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 8, "num_ctas": 1, "num_stages": 4}
    assert str(c) == "BLOCK_M: 128, BLOCK_N: 64, num_warps: 8, num_ctas: 1, num_stages: 4, maxnreg: None"
    r = tessera.Config({}, maxnreg=128)
    assert r.all_kwargs() == {"num_warps": 4, "num_ctas": 1, "num_stages": 3, "maxnreg": 128}
    assert str(r) == "num_warps: 4, num_ctas: 1, num_stages: 3, maxnreg: 128"


def test_config_equality_and_hooks():
    a = tessera.Config({"B": 1}, num_warps=2)
    assert a == tessera.Config({"B": 1}, num_warps=2)
    assert a != tessera.Config({"B": 1}, num_warps=4)
    assert a != tessera.Config({"B": 2}, num_warps=2)
    assert len({a, tessera.Config({"B": 1}, num_warps=2), tessera.Config({"B": 3})}) == 2
    hook = lambda nargs: None  # noqa: E731
    assert tessera.Config({}, pre_hook=hook).pre_hook is hook
    kwargs = {"B": 1}
    c = tessera.Config(kwargs)
    kwargs["B"] = 2
    assert c.kwargs == {"B": 1}


# ------------------------------------------------------ cdiv, next_power_of_2

def test_cdiv():
    for a in list(range(0, 70)) + [2**31 - 1, 2**31, 2**40 + 5]:
        for b in (1, 2, 3, 16, 17, 64, 1000):
            assert tessera.cdiv(a, b) == -(-a // b), (a, b)
    assert tessera.cdiv(98_431, 1024) == 97


def test_next_power_of_2():
    for n in list(range(1, 5000)) + [2**31 - 1, 2**31, 2**31 + 1, 2**40 + 1]:
        p = tessera.next_power_of_2(n)
        assert (p & (p - 1)) == 0 and n <= p < 2 * n, (n, p)
    assert tessera.next_power_of_2(1000) == 1024
    assert tessera.next_power_of_2(1024) == 1024
    assert tessera.next_power_of_2(17) == 32


# ------------------------------------------------------------------ do_bench

def test_do_bench_measures_milliseconds():
    ms = tessera.testing.do_bench(lambda: time.sleep(0.002), warmup=4, rep=20)
    assert isinstance(ms, float)
    assert 1.9 <= ms < 100.0, ms


def test_do_bench_quantiles_and_modes():
    a = np.arange(20000, dtype=np.float64)
    fn = lambda: np.sort(a[::-1])  # noqa: E731
    q = tessera.testing.do_bench(fn, warmup=2, rep=10, quantiles=[0.5, 0.2, 0.8])
    assert isinstance(q, list) and len(q) == 3
    assert all(isinstance(v, float) and v > 0 for v in q)
    assert q[1] <= q[0] <= q[2]
    one = tessera.testing.do_bench(fn, warmup=2, rep=10, quantiles=[0.5])
    assert isinstance(one, float) and one > 0
    everything = tessera.testing.do_bench(fn, warmup=2, rep=10, return_mode="all")
    assert isinstance(everything, list) and len(everything) >= 1 and all(v > 0 for v in everything)
    for mode in ("min", "max", "mean", "median"):
        v = tessera.testing.do_bench(fn, warmup=1, rep=5, return_mode=mode)
        assert isinstance(v, float) and v > 0, mode
    with pytest.raises(ValueError):
        tessera.testing.do_bench(fn, warmup=1, rep=2, return_mode="fastest")


def test_do_bench_of_a_kernel_launch():
    g = rng("bench")
    n = 4096
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    ms = tessera.testing.do_bench(lambda: add_kernel[(tessera.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024),
                                  warmup=2, rep=10)
    assert isinstance(ms, float) and ms > 0
    np.testing.assert_array_equal(out, x + y)


def test_assert_close():
    a = rng("assert_close").standard_normal(50).astype(np.float32)
    tessera.testing.assert_close(a, a + 1e-3)
    with pytest.raises(AssertionError):
        tessera.testing.assert_close(a, a + 1.0)
    tessera.testing.assert_close(a, a * 1.1, atol=0, rtol=0.2)


# --------------------------------------------------------------- perf_report

def _table(text, plot_name):
    lines = text.splitlines()
    start = lines.index(plot_name + ":")
    header = lines[start + 1].split()
    rows = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        rows.append([float(v) for v in line.split()])
    return header, rows


def test_perf_report_prints_a_table_with_the_line_names(capsys):
    calls = []

    @tessera.testing.perf_report(tessera.testing.Benchmark(
        x_names=["size"], x_vals=[16, 1024, 98431], line_arg="provider", line_vals=["numpy", "tessera"],
        line_names=["NumPy", "Tessera"], plot_name="vector-add-test", args={"scale": 2}, ylabel="ms"))
    def bench(size, provider, scale):
        calls.append((size, provider, scale))
        if provider == "numpy":
            return float(size * scale)
        return float(size + 1), float(size), float(size + 2)

    bench.run(print_data=True)
    out = capsys.readouterr().out
    header, rows = _table(out, "vector-add-test")
    assert header[0] == "size"
    assert "NumPy" in header and "Tessera" in header
    assert [r[0] for r in rows] == [16, 1024, 98431]
    for r in rows:
        size = r[0]
        cell = dict(zip(header, r))
        assert cell["NumPy"] == size * 2
        assert cell["Tessera"] == size + 1
        if "Tessera-min" in cell:
            assert cell["Tessera-min"] == size and cell["Tessera-max"] == size + 2
    assert sorted(calls) == sorted((s, p, 2) for s in (16, 1024, 98431) for p in ("numpy", "tessera"))


def test_perf_report_saves_csv_and_plot(tmp_path, capsys):
    @tessera.testing.perf_report([tessera.testing.Benchmark(
        x_names=["M", "N"], x_vals=[(8, 16), (32, 64)], line_arg="impl", line_vals=["a", "b"],
        line_names=["ImplA", "ImplB"], plot_name="two-dims", args={}, xlabel="M", ylabel="GB/s")])
    def bench(M, N, impl):
        return float(M * N if impl == "a" else M + N)

    bench.run(print_data=False, save_path=str(tmp_path))
    assert capsys.readouterr().out.strip() == ""
    with open(tmp_path / "two-dims.csv") as f:
        table = list(csv.reader(f))
    assert table[0][:4] == ["M", "N", "ImplA", "ImplB"]
    assert [[float(v) for v in r[:4]] for r in table[1:]] == [[8, 16, 128, 24], [32, 64, 2048, 96]]
    png = tmp_path / "two-dims.png"
    assert png.exists() and png.stat().st_size > 1000


def test_perf_report_return_df():
    @tessera.testing.perf_report(tessera.testing.Benchmark(
        x_names=["n"], x_vals=[1, 2], line_arg="p", line_vals=["x"], line_names=["X"], plot_name="df", args={}))
    def bench(n, p):
        return n * 10.0

    df = bench.run(return_df=True)
    records = df.to_dict("records") if hasattr(df, "to_dict") else df
    assert [(r["n"], r["X"]) for r in records] == [(1, 10.0), (2, 20.0)]


def test_perf_report_of_kernel_launches(capsys):
    @tessera.testing.perf_report(tessera.testing.Benchmark(
        x_names=["n"], x_vals=[1000, 20000], line_arg="provider", line_vals=["tessera", "numpy"],
        line_names=["Tessera", "NumPy"], plot_name="add-gbps", args={}, ylabel="GB/s"))
    def bench(n, provider):
        g = rng("perf", n)
        x = g.standard_normal(n).astype(np.float32)
        y = g.standard_normal(n).astype(np.float32)
        out = np.zeros(n, dtype=np.float32)
        if provider == "tessera":
            fn = lambda: add_kernel[(tessera.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)  # noqa: E731
        else:
            fn = lambda: np.add(x, y, out=out)  # noqa: E731
        ms = tessera.testing.do_bench(fn, warmup=1, rep=5)
        np.testing.assert_array_equal(out, x + y)
        return 3 * x.nbytes / ms * 1e-6

    bench.run(print_data=True)
    header, rows = _table(capsys.readouterr().out, "add-gbps")
    assert header[:3] == ["n", "Tessera", "NumPy"]
    assert len(rows) == 2 and all(v > 0 for r in rows for v in r)


# ------------------------------------------------------------------- driver

def test_driver_target_and_properties():
    active = driver.active
    target = active.get_current_target()
    assert target.backend == "cuda" and target.warp_size == 32
    assert isinstance(target.arch, int) and target.arch >= 70
    props = active.utils.get_device_properties(0)
    for key in ("max_shared_mem", "multiprocessor_count", "max_num_regs", "warpSize"):
        assert isinstance(props[key], int) and props[key] > 0, key
    assert props["warpSize"] == 32
    assert active.get_current_device() == 0
    assert active.get_current_stream() == 0
    assert active.get_benchmarker() is tessera.testing.do_bench
    assert tessera.runtime.driver.active is active


@pytest.mark.parametrize("arch,cap,sms,smem", [("sm_80", 80, 108, 166912), ("sm_90a", 90, 132, 232448),
                                               ("sm_89", 89, 128, 101376)])
def test_driver_answers_for_tessera_cuda_arch(monkeypatch, arch, cap, sms, smem):
    monkeypatch.setenv("TESSERA_CUDA_ARCH", arch)
    if not tessera._args.default_device().is_interpreter:
        pytest.skip("a GPU answers for itself")
    assert driver.active.get_current_target() == tessera.compiler.GPUTarget("cuda", cap, 32)
    props = driver.active.utils.get_device_properties(0)
    assert props["multiprocessor_count"] == sms and props["max_shared_mem"] == smem


# ---------------------------------------------------------- warmup and asm

def test_warmup_compiles_without_launching():
    n = 1000
    x = np.ones(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    ck = add_kernel.warmup(x, x, out, n, BLOCK=128, grid=(8,))
    assert isinstance(ck, tessera.CompiledKernel)
    assert ck.name == "add_kernel"
    np.testing.assert_array_equal(out, 0.0)
    ttir = ck.asm["ttir"]
    assert "add_kernel" in ttir
    assert "128" in ttir
    ptx = ck.asm["ptx"]
    assert ".entry add_kernel" in ptx
    assert set(ck.asm.keys()) >= {"ttir", "ttgir", "ptx"} and "ttgir" in ck.asm
    assert "add_kernel" in ck.asm["ttgir"]


def test_warmup_specializes_on_alignment_and_divisibility():
    x = np.ones(1040, dtype=np.float32)
    out = np.zeros(1040, dtype=np.float32)
    aligned = add_kernel.warmup(x, x, out, 1024, BLOCK=256, grid=(4,)).asm["ttir"]
    unaligned = add_kernel.warmup(x[1:], x, out, 1001, BLOCK=256, grid=(4,)).asm["ttir"]
    first = lambda text: next(l for l in text.splitlines() if "add_kernel" in l)  # noqa: E731,E741
    assert first(aligned).count("divisibility = 16") == 4, first(aligned)  # 3 pointers and n = 1024
    assert first(unaligned).count("divisibility = 16") == 2, first(unaligned)  # y and out only


def test_warmup_num_warps_reaches_the_code():
    x = np.ones(64, dtype=np.float32)
    ptx8 = add_kernel.warmup(x, x, x, 64, BLOCK=64, grid=(1,), num_warps=8).asm["ptx"]
    ptx2 = add_kernel.warmup(x, x, x, 64, BLOCK=64, grid=(1,), num_warps=2).asm["ptx"]
    assert ".maxntid 256" in ptx8 and ".maxntid 64" in ptx2


def test_compiled_kernel_launches():
    g = rng("compiled_launch")
    n = 999
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    ck = add_kernel.warmup(x, y, out, n, BLOCK=256, grid=(4,), num_warps=2)
    ck[(tessera.cdiv(n, 256),)](x, y, out, n, 256)
    np.testing.assert_array_equal(out, x + y)


# ------------------------------------------------------- package-level facts

def test_version_and_error_types():
    assert tessera.__version__ == "3.6.0"
    assert issubclass(tessera.TesseraError, RuntimeError)
    assert tessera.CompilationError is tessera.TesseraError
    assert tessera.TritonError is tessera.TesseraError
    e = tessera.OutOfResources(300000, 232448, "shared memory")
    assert isinstance(e, tessera.TesseraError)
    assert "shared memory" in str(e) and "300000" in str(e) and "232448" in str(e)


def test_jit_function_attributes():
    assert isinstance(add_kernel, tessera.JITFunction)
    assert add_kernel.arg_names == ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"]
    assert add_kernel.__name__ == "add_kernel"
    assert "def add_kernel" in add_kernel.src
    assert add_kernel.fn.__name__ == "add_kernel"
    assert "add_kernel" in repr(add_kernel)
    assert [p[0] for p in add_kernel.kernel.parameters()] == ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"]
    assert [p[1] for p in add_kernel.kernel.parameters()] == [False, False, False, False, True]


def test_jit_with_arguments_returns_a_decorator():
    deco = tessera.jit(do_not_specialize=["n"], debug=False)
    assert callable(deco)
    f = deco(add_kernel.fn)
    assert isinstance(f, tessera.JITFunction) and f.do_not_specialize == ["n"]


def test_tensor_descriptor_checks_its_arguments():
    from tessera.tools.tensor_descriptor import TensorDescriptor
    a = np.zeros((8, 8), dtype=np.float32)
    d = TensorDescriptor(a, [8, 8], [8, 1], [4, 4])
    assert d.block_shape == [4, 4] and d.padding == "zero"
    with pytest.raises(ValueError, match="contiguous"):
        TensorDescriptor(a, [8, 8], [1, 8], [4, 4])
    with pytest.raises(ValueError, match="padding"):
        TensorDescriptor(a, [8, 8], [8, 1], [4, 4], padding="ones")


def test_cuda_wheels_are_found_for_the_runtime(tmp_path):
    # A PyTorch environment's NVIDIA wheels (site-packages/nvidia/*/lib)
    # join TESSERA_CUDA_LIBRARY_PATH when tessera is imported.
    import subprocess
    import sys
    site = tmp_path / "site"
    for sub, lib in (("nvjitlink/lib", "libnvJitLink.so.13"), ("cuda_nvrtc/lib", "libnvrtc.so.13"),
                     ("cublas/lib", "libcublas.so.13")):
        (site / "nvidia" / sub).mkdir(parents=True)
        (site / "nvidia" / sub / lib).write_bytes(b"")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    env["TESSERA_CUDA_LIBRARY_PATH"] = "/opt/mine"
    code = "import os, tessera; print(os.environ['TESSERA_CUDA_LIBRARY_PATH'])"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    dirs = r.stdout.strip().split(os.pathsep)
    assert dirs[0] == "/opt/mine"  # what the user set comes first
    assert str(site / "nvidia" / "cuda_nvrtc" / "lib") in dirs
    assert str(site / "nvidia" / "nvjitlink" / "lib") in dirs
    assert str(site / "nvidia" / "cublas" / "lib") not in dirs
