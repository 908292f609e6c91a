"""Kernels spread over the modules of a package (relative imports of @jit
helpers and constexpr globals), and drop-in mode: `python3 -m tessera
script.py` runs an unchanged Triton program, while a plain `import triton`
is left alone. Each case runs in a child Python."""

import subprocess
import textwrap

import numpy as np
import pytest

from _testutil import PYTHON, child_env, rng

TIMEOUT = 120


def _write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())


def _run(args, cwd, extra_path=(), **env):
    r = subprocess.run([PYTHON] + [str(a) for a in args], cwd=str(cwd), capture_output=True, text=True,
                       timeout=TIMEOUT, env=child_env(extra_path, **env))
    return r


def _ok(r):
    assert r.returncode == 0, "exit %d\n--- stdout\n%s\n--- stderr\n%s" % (r.returncode, r.stdout, r.stderr)
    return r.stdout


PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/helpers.py": """
        import tessera
        import tessera.language as tl

        SCALE = tl.constexpr(3)
        BIAS = tl.constexpr(2)


        @tessera.jit
        def axpy(a, x, y):
            return a * x + y
        """,
    "pkg/ops.py": """
        import tessera
        import tessera.language as tl

        from . import helpers
        from .helpers import SCALE, axpy


        @tessera.jit
        def fused(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            x = tl.load(x_ptr + offs, mask=m)
            y = tl.load(y_ptr + offs, mask=m)
            tl.store(out_ptr + offs, axpy(SCALE, x, y) + helpers.BIAS, mask=m)
        """,
    "pkg/sub/__init__.py": "",
    "pkg/sub/deep.py": """
        import tessera
        import tessera.language as tl

        from ..helpers import BIAS, axpy


        @tessera.jit
        def square_plus(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            x = tl.load(x_ptr + offs, mask=m)
            tl.store(out_ptr + offs, axpy(x, x, BIAS), mask=m)
        """,
    "main.py": """
        import sys

        import numpy as np

        import tessera
        from pkg.ops import fused
        from pkg.sub.deep import square_plus

        data = np.load(sys.argv[1])
        x, y = data["x"], data["y"]
        n = x.size
        out = np.zeros_like(x)
        fused[(tessera.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
        out2 = np.zeros_like(x)
        square_plus[lambda meta: (tessera.cdiv(n, meta["BLOCK"]),)](x, out2, n, BLOCK=128)
        np.savez(sys.argv[2], fused=out, square=out2)
        print("ok", n, "%.3f" % float(out.astype(np.float64).sum()))
        """,
}


@pytest.mark.parametrize("n", [1, 1000])
def test_package_with_relative_imports(tmp_path, n):
    g = rng("package", n)
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    _write(tmp_path, PACKAGE)
    np.savez(tmp_path / "in.npz", x=x, y=y)
    out = _ok(_run(["main.py", tmp_path / "in.npz", tmp_path / "out.npz"], cwd=tmp_path, extra_path=[tmp_path]))
    res = np.load(tmp_path / "out.npz")
    fused_ref = x * np.float32(3) + y + np.float32(2)
    np.testing.assert_allclose(res["fused"], fused_ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(res["square"], x * x + np.float32(2), rtol=1e-6, atol=1e-6)
    words = out.split()
    assert words[:2] == ["ok", str(n)], out
    assert float(words[2]) == pytest.approx(float(fused_ref.astype(np.float64).sum()), abs=1e-2)


def test_package_run_from_another_directory(tmp_path):
    # The package is found through PYTHONPATH only; the child's cwd is elsewhere.
    root = tmp_path / "src"
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    _write(root, PACKAGE)
    g = rng("package_elsewhere")
    x = g.standard_normal(77).astype(np.float32)
    y = g.standard_normal(77).astype(np.float32)
    np.savez(elsewhere / "in.npz", x=x, y=y)
    _ok(_run([root / "main.py", "in.npz", "out.npz"], cwd=elsewhere, extra_path=[root]))
    res = np.load(elsewhere / "out.npz")
    np.testing.assert_allclose(res["fused"], x * np.float32(3) + y + np.float32(2), rtol=1e-6, atol=1e-6)


# ------------------------------------------------------------- drop-in mode

TRITON_SCRIPT = """
    import sys

    import numpy as np
    import triton
    import triton.language as tl
    import triton.testing
    from triton.runtime.jit import JITFunction
    from triton.runtime.autotuner import Autotuner

    from sibling_kernels import scale_rows


    @triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 256})], key=["n"])
    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


    def add(x, y):
        out = np.empty_like(x)
        n = x.size
        add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n)
        return out


    if __name__ == "__main__":
        n, seed, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
        g = np.random.default_rng(seed)
        x = g.standard_normal(n).astype(np.float32)
        y = g.standard_normal(n).astype(np.float32)
        out = add(x, y)
        rows = x[: (n // 10) * 10].reshape(-1, 10)
        scaled = np.empty_like(rows)
        scale_rows[(rows.shape[0],)](rows, scaled, rows.shape[1], 0.5, BLOCK=triton.next_power_of_2(rows.shape[1]))
        np.savez(path, add=out, scaled=scaled)
        ms = triton.testing.do_bench(lambda: add(x, y), warmup=1, rep=5)
        print("version", triton.__version__)
        print("classes", type(add_kernel) is Autotuner, type(add_kernel.fn) is JITFunction)
        print("max_err", float(np.abs(out - (x + y)).max()))
        print("bench", ms > 0)
        print("argv", " ".join(sys.argv[1:3]))
"""

SIBLING = """
    import triton
    import triton.language as tl


    @triton.jit
    def scale_rows(x_ptr, out_ptr, n_cols, alpha, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        m = offs < n_cols
        tl.store(out_ptr + row * n_cols + offs, tl.load(x_ptr + row * n_cols + offs, mask=m) * alpha, mask=m)
"""


@pytest.mark.parametrize("n", [17, 5000])
@pytest.mark.parametrize("interpret", ["0", "1"])
def test_python_m_tessera_runs_a_triton_script(tmp_path, n, interpret):
    _write(tmp_path, {"script.py": TRITON_SCRIPT, "sibling_kernels.py": SIBLING})
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    out = _ok(_run(["-m", "tessera", tmp_path / "script.py", n, 11, tmp_path / "out.npz"], cwd=elsewhere,
                   TRITON_INTERPRET=interpret))
    lines = dict(line.split(" ", 1) for line in out.strip().splitlines())
    assert lines["version"] == "3.6.0"
    assert lines["classes"] == "True True"
    assert float(lines["max_err"]) == 0.0
    assert lines["bench"] == "True"
    assert lines["argv"] == "%d 11" % n
    g = np.random.default_rng(11)
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    res = np.load(tmp_path / "out.npz")
    np.testing.assert_array_equal(res["add"], x + y)
    rows = x[: (n // 10) * 10].reshape(-1, 10)
    np.testing.assert_array_equal(res["scaled"], rows * np.float32(0.5))


def test_python_m_tessera_dash_m_runs_a_module(tmp_path):
    _write(tmp_path, {"tri_mod/__init__.py": "", "tri_mod/__main__.py": TRITON_SCRIPT,
                      "sibling_kernels.py": SIBLING})
    out = _ok(_run(["-m", "tessera", "-m", "tri_mod", 100, 3, tmp_path / "o.npz"], cwd=tmp_path,
                   extra_path=[tmp_path]))
    assert "max_err 0.0" in out
    g = np.random.default_rng(3)
    x = g.standard_normal(100).astype(np.float32)
    y = g.standard_normal(100).astype(np.float32)
    np.testing.assert_array_equal(np.load(tmp_path / "o.npz")["add"], x + y)


def test_python_m_tessera_usage(tmp_path):
    r = _run(["-m", "tessera"], cwd=tmp_path)
    assert r.returncode == 2
    assert "usage" in r.stderr
    r = _run(["-m", "tessera", "--help"], cwd=tmp_path)
    assert r.returncode == 0
    assert "usage" in r.stdout
    r = _run(["-m", "tessera", "no_such_script.py"], cwd=tmp_path)
    assert r.returncode == 2
    assert "can't open file" in r.stderr and "no_such_script.py" in r.stderr
    assert "Traceback" not in r.stderr


def test_drop_in_modules_are_tesseras(tmp_path):
    _write(tmp_path, {"probe.py": """
        import tessera
        import triton
        import triton.language as tl
        import triton.language.extra.libdevice as libdevice
        import triton.testing
        from triton.language.extra.cuda import libdevice as cuda_libdevice
        import triton.compiler

        assert triton is tessera, triton
        assert tl is tessera.language
        assert libdevice.exp is not None and cuda_libdevice.exp is not None
        assert triton.jit is tessera.jit
        assert triton.runtime.driver.active.get_current_target().backend == "cuda"
        assert triton.testing.do_bench is tessera.testing.do_bench
        assert triton.compiler.CompilationError is tessera.TesseraError
        try:
            import triton.no_such_module
        except ModuleNotFoundError as e:
            print("missing", e.name)
        print("done")
        """})
    out = _ok(_run(["-m", "tessera", "probe.py"], cwd=tmp_path))
    assert out.split() == ["missing", "triton.no_such_module", "done"], out


def test_import_of_the_driver_submodule_keeps_driver_active(tmp_path):
    # Triton programs reach the driver as triton.runtime.driver.active; in
    # Triton that still works after `import triton.runtime.driver` (the
    # submodule was imported by triton.runtime first, so the import statement
    # does not rebind the attribute).
    _write(tmp_path, {"probe.py": """
        import triton
        import triton.runtime.driver
        from triton.runtime import driver

        print(type(triton.runtime.driver).__name__, type(driver).__name__)
        print(triton.runtime.driver.active.get_current_target().backend)
        """})
    out = _ok(_run(["-m", "tessera", "probe.py"], cwd=tmp_path))
    assert out.split() == ["DriverConfig", "DriverConfig", "cuda"], out


def test_script_errors_propagate(tmp_path):
    _write(tmp_path, {"bad.py": """
        import triton
        raise SystemExit(5)
        """})
    r = _run(["-m", "tessera", "bad.py"], cwd=tmp_path)
    assert r.returncode == 5


def test_import_triton_is_not_affected_without_drop_in(tmp_path):
    # Without drop-in mode `import triton` finds what it finds without
    # Tessera: here nothing (triton is not installed), elsewhere the real one.
    code = textwrap.dedent("""
        import importlib.util
        spec = importlib.util.find_spec("triton")
        real = spec.origin if spec is not None else None
        import tessera
        try:
            import triton
            print("imported", triton.__file__ == real, "tessera" in triton.__file__.split("/")[-2:])
        except ModuleNotFoundError as e:
            print("missing", real is None, e.name, str(e) == "No module named 'triton'")
        """)
    out = _ok(_run(["-c", code], cwd=tmp_path)).split()
    assert out in (["missing", "True", "triton", "True"], ["imported", "True", "False"]), out


def test_import_tessera_installs_no_import_hook(tmp_path):
    code = ("import sys, tessera, tessera.language, tessera.testing\n"
            "print(any('triton' in type(f).__name__.lower() for f in sys.meta_path),\n"
            "      any(m == 'triton' or m.startswith('triton.') for m in sys.modules))")
    out = _ok(_run(["-c", code], cwd=tmp_path))
    assert out.split() == ["False", "False"]


# An Inductor-style kernel under `python3 -m tessera`: its helpers come from
# torch._inductor.runtime.triton_helpers, which the frontend reads from the
# module Python imported (a stand-in torch here), on the interpreter.
FAKE_TORCH = {
    "site/torch/__init__.py": "",
    "site/torch/_inductor/__init__.py": "",
    "site/torch/_inductor/runtime/__init__.py": "from . import triton_helpers\n",
    "site/torch/_inductor/runtime/triton_helpers.py": """
        import triton
        import triton.language as tl
        from triton.language.extra import libdevice

        math = tl.math


        @triton.jit
        def larger(a, b):
            return tl.where(a > b, a, b)


        @triton.jit
        def max2(a, dim):
            return tl.reduce(a, dim, larger)
        """,
    "gen.py": """
        import sys

        import numpy as np
        import triton
        import triton.language as tl
        from torch._inductor.runtime import triton_helpers
        from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math


        @triton.jit
        def triton_red_fused_max_exp_0(in_ptr0, out_ptr0, xnumel, rnumel, XBLOCK: tl.constexpr,
                                       RBLOCK: tl.constexpr):
            xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
            rindex = tl.arange(0, RBLOCK)[None, :]
            mask = (xindex < xnumel) & (rindex < rnumel)
            tmp0 = tl.load(in_ptr0 + (rindex + rnumel * xindex), mask, other=float("-inf"))
            tmp1 = tl_math.exp(libdevice.floor(tmp0))
            tmp2 = triton_helpers.max2(tl.where(mask, tmp1, float("-inf")), 1)[:, None]
            tl.store(out_ptr0 + xindex, tmp2, xindex < xnumel)


        rows, cols = int(sys.argv[1]), int(sys.argv[2])
        x = (np.random.default_rng(5).standard_normal((rows, cols)) * 3).astype(np.float32)
        out = np.zeros(rows, np.float32)
        triton_red_fused_max_exp_0[(triton.cdiv(rows, 4),)](x, out, rows, cols, XBLOCK=4, RBLOCK=64)
        np.save(sys.argv[3], out)
        """,
}


@pytest.mark.parametrize("rows,cols", [(7, 50), (16, 64)])
def test_inductor_style_kernel_with_torch_helpers(tmp_path, rows, cols):
    _write(tmp_path, FAKE_TORCH)
    _ok(_run(["-m", "tessera", tmp_path / "gen.py", rows, cols, tmp_path / "out.npy"], cwd=tmp_path,
             extra_path=[tmp_path / "site"], TRITON_INTERPRET="1"))
    x = (np.random.default_rng(5).standard_normal((rows, cols)) * 3).astype(np.float32)
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), np.exp(np.floor(x)).max(axis=1), rtol=2e-7)


def test_triton_submodules_that_libraries_name_import_in_drop_in_mode(tmp_path):
    """`import triton.runtime.jit as j`, `triton.compiler.compiler`,
    isinstance checks against triton.runtime.autotuner.Autotuner: the modules
    (attributes of their parents too) are Tessera's."""
    _write(tmp_path, {"subs.py": """
        import triton
        import triton.language as tl
        import triton.runtime.jit as j
        import triton.compiler.compiler as cc
        from triton.runtime import autotuner


        @triton.autotune(configs=[triton.Config({"B": 8})], key=["n"])
        @triton.jit
        def k(x_ptr, n, B: tl.constexpr):
            pass


        @triton.jit
        def plain(x_ptr):
            pass


        print(isinstance(k, triton.runtime.autotuner.Autotuner), isinstance(k, autotuner.Autotuner),
              isinstance(plain, j.JITFunction), isinstance(plain, triton.runtime.jit.JITFunction),
              cc.CompiledKernel is triton.compiler.CompiledKernel)
    """})
    assert _ok(_run(["-m", "tessera", tmp_path / "subs.py"], cwd=tmp_path)).split() == ["True"] * 5
