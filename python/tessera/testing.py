"""tessera.testing (Triton's triton.testing): do_bench, perf_report /
Benchmark, assert_close.

do_bench times a callable: with PyTorch and a GPU, by CUDA events around each
call with the L2 cache flushed before it (as Triton does); otherwise by the
host clock. perf_report runs a benchmark grid; `.run(print_data=True)` prints
it as a table, and it is plotted with matplotlib (when installed) for
show_plots or save_path (which also gets a CSV file).
"""

import math
import os
import sys
import time


def _torch_cuda():
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return torch
    return None


def _summarize(times, quantiles, return_mode):
    times = sorted(times)
    if quantiles is not None:
        out = [_quantile(times, q) for q in quantiles]
        return out[0] if len(out) == 1 else out
    if return_mode == "all":
        return times
    if return_mode == "min":
        return times[0]
    if return_mode == "max":
        return times[-1]
    if return_mode == "median":
        return _quantile(times, 0.5)
    if return_mode == "mean":
        return sum(times) / len(times)
    raise ValueError("do_bench: return_mode must be one of min, max, mean, median, all; got %r" % (return_mode,))


def _quantile(sorted_times, q):
    if not sorted_times:
        return float("nan")
    pos = q * (len(sorted_times) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_times[lo] + (sorted_times[hi] - sorted_times[lo]) * (pos - lo)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Milliseconds per call of `fn` (warmup and rep are in milliseconds)."""
    torch = _torch_cuda()
    if torch is None:
        return _do_bench_host(fn, warmup, rep, quantiles, return_mode)
    fn()
    torch.cuda.synchronize()
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-6)
    n_warmup = max(1, int(warmup / estimate))
    n_repeat = max(1, int(rep / estimate))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return _summarize([s.elapsed_time(e) for s, e in zip(starts, ends)], quantiles, return_mode)


def _do_bench_host(fn, warmup, rep, quantiles, return_mode):
    t0 = time.perf_counter()
    fn()
    estimate = max((time.perf_counter() - t0) * 1e3, 1e-6)
    for _ in range(max(1, min(int(warmup / estimate), 1000))):
        fn()
    times = []
    for _ in range(max(1, min(int(rep / estimate), 10000))):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return _summarize(times, quantiles, return_mode)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """As do_bench, the calls replayed from a CUDA graph when PyTorch has a GPU."""
    torch = _torch_cuda()
    if torch is None:
        return _do_bench_host(fn, 5, rep, quantiles, return_mode)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        fn()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(max(1, rep)):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            graph.replay()
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e))
    return _summarize(times, quantiles, return_mode)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    import numpy as np

    def host(a):
        if hasattr(a, "detach"):
            a = a.detach().float().cpu().numpy() if str(getattr(a, "dtype", "")) == "torch.bfloat16" else \
                a.detach().cpu().numpy()
        return np.asarray(a)
    a, b = host(x), host(y)
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    np.testing.assert_allclose(a, b, atol=atol, rtol=rtol, err_msg=err_msg, equal_nan=True)


class Benchmark:
    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="", ylabel="",
                 x_log=False, y_log=False, styles=None, color=None):
        self.x_names = list(x_names)
        self.x_vals = list(x_vals)
        self.line_arg = line_arg
        self.line_vals = list(line_vals)
        self.line_names = list(line_names)
        self.plot_name = plot_name
        self.args = dict(args)
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.x_log = x_log
        self.y_log = y_log
        self.styles = styles
        self.color = color


class Mark:
    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _run(self, bench, save_path, show_plots, print_data, diff_col=False, **kwargs):
        columns = list(bench.x_names)
        for name in bench.line_names:
            columns += [name, name + "-min", name + "-max"]
        rows = []
        for x in bench.x_vals:
            xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            x_args = dict(zip(bench.x_names, xs))
            row = list(xs)
            for lv in bench.line_vals:
                ret = self.fn(**x_args, **{bench.line_arg: lv}, **bench.args, **kwargs)
                if isinstance(ret, (list, tuple)):
                    mid, lo, hi = (list(ret) + [None, None])[:3]
                else:
                    mid, lo, hi = ret, None, None
                row += [mid, lo, hi]
            rows.append(row)
        keep = [i for i, c in enumerate(columns) if not c.endswith(("-min", "-max")) or
                any(r[i] is not None for r in rows)]
        columns = [columns[i] for i in keep]
        rows = [[r[i] for i in keep] for r in rows]
        if print_data:
            print(bench.plot_name + ":")
            print(format_table(columns, rows))
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            with open(os.path.join(save_path, bench.plot_name + ".csv"), "w") as f:
                f.write(",".join(columns) + "\n")
                for r in rows:
                    f.write(",".join("" if v is None else str(v) for v in r) + "\n")
        if show_plots or save_path:
            self._plot(bench, columns, rows, save_path, show_plots)
        return columns, rows

    def _plot(self, bench, columns, rows, save_path, show_plots):
        try:
            import matplotlib
            if not show_plots:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            return
        fig, ax = plt.subplots()
        xs = [r[0] for r in rows]
        for i, name in enumerate(bench.line_names):
            col = columns.index(name)
            style = bench.styles[i] if bench.styles and i < len(bench.styles) else None
            kwargs = {"color": style[0], "linestyle": style[1]} if style else {}
            ax.plot(xs, [r[col] for r in rows], label=name, **kwargs)
        ax.legend()
        ax.set_xlabel(bench.xlabel or bench.x_names[0])
        ax.set_ylabel(bench.ylabel)
        ax.set_title(bench.plot_name)
        if bench.x_log:
            ax.set_xscale("log")
        if bench.y_log:
            ax.set_yscale("log")
        if save_path:
            fig.savefig(os.path.join(save_path, bench.plot_name + ".png"))
        if show_plots:
            plt.show()
        plt.close(fig)

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        benchmarks = self.benchmarks if isinstance(self.benchmarks, (list, tuple)) else [self.benchmarks]
        results = [self._run(b, save_path, show_plots, print_data, **kwargs) for b in benchmarks]
        if return_df:
            frames = []
            for columns, rows in results:
                try:
                    import pandas
                    frames.append(pandas.DataFrame(rows, columns=columns))
                except ImportError:
                    frames.append([dict(zip(columns, r)) for r in rows])
            return frames[0] if len(frames) == 1 else frames
        return None


def format_table(columns, rows):
    def cell(v):
        if isinstance(v, float):
            return "%.6g" % v
        return "" if v is None else str(v)
    text = [[cell(c) for c in columns]] + [[cell(v) for v in r] for r in rows]
    widths = [max(len(t[i]) for t in text) for i in range(len(columns))]
    lines = ["  ".join(t[i].rjust(widths[i]) for i in range(len(columns))) for t in text]
    return "\n".join(lines)


def perf_report(benchmarks):
    def decorator(fn):
        return Mark(fn, benchmarks)
    return decorator
