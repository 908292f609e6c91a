//===- ModulesTest.cpp - Programs of several modules and their host code --===//
//
// Packages written to a temporary directory: imports (absolute, relative,
// aliases, packages, circular), the search path, version switches, kernels
// made by calls, transparent decorators, and the messages that name the
// cause when host code cannot be evaluated.
//
//===----------------------------------------------------------------------===//

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "TestUtil.h"

namespace tessera::frontend::test {
namespace {

namespace fs = std::filesystem;

/// A fresh directory with files; removed at the end of the test.
class Tree {
 public:
  Tree() {
    root_ = fs::temp_directory_path() / ("tessera-modules-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~Tree() { fs::remove_all(root_); }
  std::string add(const std::string& rel, const std::string& text) {
    fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path(const std::string& rel) const { return (root_ / rel).string(); }

 private:
  static inline int counter_ = 0;
  fs::path root_;
};

const char* kHeader = "import triton\nimport triton.language as tl\n";

std::string compileFile(const std::string& path, const std::string& kernel, const std::string& sig,
                        const LoadOptions& options = {}) {
  auto prog = SourceProgram::loadFile(path, options);
  CompileResult r = prog->compile(kernel, parseSpecs(sig), {});
  return ir::print(*r.module);
}

/// Load options for a device of compute capability major.minor.
LoadOptions onDevice(int major, int minor, int multiprocessors = 0) {
  LoadOptions options;
  options.device = [=] {
    DeviceQueries q;
    q.major = major;
    q.minor = minor;
    if (multiprocessors) q.multiprocessors = multiprocessors;
    return q;
  };
  return options;
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Modules, RelativeAbsoluteAndAliasedImports) {
  Tree t;
  t.add("pkg/__init__.py", "from .helpers import WIDTH\n");
  t.add("pkg/helpers.py", std::string(kHeader) + "WIDTH = tl.constexpr(48)\n@triton.jit\ndef twice(x):\n    return x * 2\n");
  t.add("pkg/sub/__init__.py", "");
  std::string k = t.add("pkg/sub/k.py", std::string(kHeader) +
                                            "from ..helpers import twice\nfrom pkg import WIDTH\nimport pkg.helpers as hp\n"
                                            "@triton.jit\ndef k(p):\n"
                                            "    x = tl.arange(0, 16) + WIDTH + hp.WIDTH\n"
                                            "    tl.store(p + tl.arange(0, 16), twice(x) + hp.twice(x))\n");
  std::string ir = compileFile(k, "k", "*i32");
  EXPECT_NE(ir.find("{value = 48} : tensor<16xi32>"), std::string::npos) << ir;  // WIDTH, through both names
  auto prog = SourceProgram::loadFile(k);
  EXPECT_EQ(prog->moduleName(), "pkg.sub.k");
  std::vector<std::string> names;
  for (const auto& m : prog->modules()) names.push_back(m->moduleName());
  EXPECT_EQ(names, (std::vector<std::string>{"pkg", "pkg.helpers", "pkg.sub", "pkg.sub.k"}));
}

TEST(Modules, TheSearchPathFindsModulesOutsideThePackage) {
  Tree t;
  t.add("lib/extlib.py", std::string(kHeader) + "@triton.jit\ndef helper(x):\n    return x + 1\n");
  std::string k = t.add("app/k.py", std::string(kHeader) + "from extlib import helper\n@triton.jit\ndef k(p):\n"
                                                            "    tl.store(p, helper(tl.load(p)))\n");
  LoadOptions withLib;
  withLib.searchPath = {t.path("lib")};
  EXPECT_NE(compileFile(k, "k", "*i32", withLib).find("tt.store"), std::string::npos);
  // Without it, extlib is an unknown module: an error only because the
  // kernel uses a name from it, naming the module and the path searched.
  std::string err = errorOf([&] { compileFile(k, "k", "*i32"); });
  EXPECT_NE(err.find("k.py:6:"), std::string::npos) << err;
  EXPECT_NE(err.find("module 'extlib', which is not on the search path"), std::string::npos) << err;
  EXPECT_NE(err.find(t.path("app")), std::string::npos) << err;
}

// Inductor's generated kernels import their helpers from
// torch._inductor.runtime (`from torch._inductor.runtime import
// triton_helpers`, `from torch._inductor.runtime.triton_helpers import
// libdevice, math as tl_math`): those modules load from source when the
// search path holds them, each alone (torch's own __init__ files, which
// raise here, never run), and torch itself and its other modules stay
// modeled (torch.float16; triton_heuristics, whose decorator is taken as
// transparent). Without them, the error says where to point -I.
TEST(Modules, InductorHelpersFromTorchOnTheSearchPath) {
  Tree t;
  t.add("site/torch/__init__.py", "raise RuntimeError('torch/__init__.py must not run')\n");
  t.add("site/torch/_inductor/__init__.py", "raise RuntimeError('torch/_inductor/__init__.py must not run')\n");
  t.add("site/torch/_inductor/runtime/__init__.py",
        "from . import triton_heuristics\nfrom .triton_heuristics import AutotuneHint\nfrom . import triton_helpers\n");
  t.add("site/torch/_inductor/runtime/triton_heuristics.py", "raise RuntimeError('the heuristics must not run')\n");
  t.add("site/torch/_inductor/runtime/triton_helpers.py",
        std::string(kHeader) + "from triton.language.extra import libdevice\nmath = tl.math\n"
                               "@triton.jit\ndef larger(a, b):\n    return tl.where(a > b, a, b)\n"
                               "@triton.jit\ndef max2(a, dim):\n    return tl.reduce(a, dim, larger)\n");
  std::string k = t.add(
      "gen/k.py", std::string(kHeader) +
                      "import torch\nfrom torch._inductor.runtime import triton_helpers, triton_heuristics\n"
                      "from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math\n"
                      "DT: tl.constexpr = tl.float16 if torch.float16 is not None else tl.float32\n"
                      "XBLOCK: tl.constexpr = 64\n"
                      "@triton_heuristics.pointwise(size_hints={'x': 64}, filename=__file__)\n"
                      "@triton.jit\ndef k(in_ptr, out_ptr):\n"
                      "    x = tl.load(in_ptr + tl.arange(0, XBLOCK)[None, :]).to(tl.float32)\n"
                      "    m = triton_helpers.max2(tl_math.exp(x) + libdevice.floor(x), 1)\n"
                      "    tl.store(out_ptr + tl.arange(0, 1), m.to(DT))\n");
  LoadOptions site;
  site.searchPath = {t.path("site")};
  std::string ir = compileFile(k, "k", "*fp32,*fp16", site);
  EXPECT_NE(ir.find("tt.reduce"), std::string::npos) << ir;
  EXPECT_NE(ir.find("math.exp"), std::string::npos) << ir;
  EXPECT_NE(ir.find("__nv_floorf"), std::string::npos) << ir;
  std::string err = errorOf([&] { compileFile(k, "k", "*fp32,*fp16"); });
  EXPECT_NE(err.find("torch._inductor"), std::string::npos) << err;
  EXPECT_NE(err.find("-I"), std::string::npos) << err;
  // Before torch 2.3 the helpers were torch._inductor.triton_helpers.
  t.add("site/torch/_inductor/triton_helpers.py", std::string(kHeader) +
                                                      "@triton.jit\ndef maximum(a, b):\n    return tl.where(a > b, a, b)\n");
  std::string old = t.add("gen/old.py", std::string(kHeader) + "from torch._inductor import triton_helpers\n"
                                                               "@triton.jit\ndef k(p):\n"
                                                               "    tl.store(p, triton_helpers.maximum(tl.load(p), 0.0))\n");
  EXPECT_NE(compileFile(old, "k", "*fp32", site).find("arith.select"), std::string::npos);
  // Another module of torch._inductor is not read (modeled), and the error
  // does not send the user to -I.
  std::string other = t.add("gen/other.py", std::string(kHeader) + "from torch._inductor import config\n"
                                                                   "@triton.jit\ndef k(p):\n    tl.store(p, config.x)\n");
  std::string otherErr = errorOf([&] { compileFile(other, "k", "*fp32", site); });
  EXPECT_NE(otherErr.find("which kernels cannot use"), std::string::npos) << otherErr;
}

// A @jit function (or a host constexpr_function) passed to a helper is
// identified by which function it is, not its name: `combine` of two
// modules (and of two classes of one) make two specializations of the
// helper (the second used to reuse the first: x + x - (x + x) instead of
// x + x - x * x).
TEST(Modules, FunctionArgumentsOfOneNameFromTwoModules) {
  Tree t;
  t.add("ma.py", std::string(kHeader) + "@triton.jit\ndef combine(a, b):\n    return a + b\n");
  t.add("mb.py", std::string(kHeader) + "@triton.jit\ndef combine(a, b):\n    return a * b\n"
                                         "class P:\n    @staticmethod\n    @triton.jit\n    def combine(a, b):\n"
                                         "        return tl.maximum(a, b)\n"
                                         "class Q:\n    @staticmethod\n    @triton.jit\n    def combine(a, b):\n"
                                         "        return tl.minimum(a, b)\n");
  std::string k = t.add("k.py", std::string(kHeader) + "import ma\nimport mb\n"
                                                       "@triton.jit\ndef apply(x, fn: tl.constexpr):\n    return fn(x, x + 1.0)\n"
                                                       "@triton.jit\ndef k(p):\n    x = tl.load(p)\n"
                                                       "    tl.store(p, apply(x, ma.combine) - apply(x, mb.combine))\n"
                                                       "    tl.store(p + 1, apply(x, mb.P.combine) - apply(x, mb.Q.combine))\n");
  LoadOptions here;
  here.searchPath = {t.path("")};
  std::string ir = compileFile(k, "k", "*fp32", here);
  for (const char* op : {"arith.addf", "arith.mulf", "arith.maxnumf", "arith.minnumf"})
    EXPECT_NE(ir.find(op), std::string::npos) << op << "\n" << ir;
  // The same for @triton.constexpr_function host helpers (4 * 2 and 4 * 3).
  t.add("ha.py", "import triton\n@triton.constexpr_function\ndef scale(x):\n    return x * 2\n");
  t.add("hb.py", "import triton\n@triton.constexpr_function\ndef scale(x):\n    return x * 3\n");
  std::string h = t.add("h.py", std::string(kHeader) + "import ha\nimport hb\n"
                                                       "@triton.jit\ndef apply(p, fn: tl.constexpr):\n    tl.store(p, fn(4))\n"
                                                       "@triton.jit\ndef k(p):\n    apply(p, ha.scale)\n    apply(p + 1, hb.scale)\n");
  std::string hir = compileFile(h, "k", "*i32", here);
  EXPECT_NE(hir.find("value = 8"), std::string::npos) << hir;
  EXPECT_NE(hir.find("value = 12"), std::string::npos) << hir;
}

// Namespace packages (PEP 420: no __init__.py) under a search-path
// directory: the file is named by its path from there, so its relative
// imports resolve; also when a package of the project is named `triton`
// (proj/triton/...: "proj.triton.k", not Triton's own module).
TEST(Modules, NamespacePackagesUnderTheSearchPath) {
  Tree t;
  t.add("src/pkg/sub/helpers.py", std::string(kHeader) + "@triton.jit\ndef twice(x):\n    return x * 2\n");
  std::string k = t.add("src/pkg/sub/k.py", std::string(kHeader) + "from .helpers import twice\n@triton.jit\ndef k(p):\n"
                                                                   "    tl.store(p, twice(tl.load(p)))\n");
  t.add("src/proj/triton/__init__.py", "");
  t.add("src/proj/triton/helpers.py", std::string(kHeader) + "@triton.jit\ndef inc(x):\n    return x + 1\n");
  std::string own = t.add("src/proj/triton/k.py", std::string(kHeader) + "from .helpers import inc\n@triton.jit\ndef k(p):\n"
                                                                         "    tl.store(p, inc(tl.load(p)))\n");
  LoadOptions src;
  src.searchPath = {t.path("src")};
  EXPECT_EQ(SourceProgram::loadFile(k, src)->moduleName(), "pkg.sub.k");
  EXPECT_NE(compileFile(k, "k", "*i32", src).find("arith.muli"), std::string::npos);
  EXPECT_EQ(SourceProgram::loadFile(own, src)->moduleName(), "proj.triton.k");
  EXPECT_NE(compileFile(own, "k", "*i32", src).find("arith.addi"), std::string::npos);
  // A real package (with __init__.py) under a search-path directory keeps
  // its own name, and its absolute self-imports resolve.
  t.add("src/proj2/pkg/__init__.py", "");
  t.add("src/proj2/pkg/helpers.py", std::string(kHeader) + "@triton.jit\ndef dec(x):\n    return x - 1\n");
  std::string inPkg = t.add("src/proj2/pkg/k.py", std::string(kHeader) + "from pkg.helpers import dec\n@triton.jit\n"
                                                                         "def k(p):\n    tl.store(p, dec(tl.load(p)))\n");
  EXPECT_EQ(SourceProgram::loadFile(inPkg, src)->moduleName(), "pkg.k");
  EXPECT_NE(compileFile(inPkg, "k", "*i32", src).find("arith.subi"), std::string::npos);
  // Without the search path the namespace package is not known: the
  // relative import's error says to give the package's root.
  std::string err = errorOf([&] { compileFile(k, "k", "*i32"); });
  EXPECT_NE(err.find("attempted relative import with no known parent package"), std::string::npos) << err;
}

// `import triton.profiler` (proton, in Triton 3.6) is a module of Triton's;
// an import of a Triton module 3.6 lacks raises, and leaves `triton` as it
// was: the kernels below it stay kernels.
TEST(Modules, ImportsOfTritonSubmodules) {
  Tree t;
  std::string k = t.add("k.py", std::string(kHeader) +
                                    "import triton.profiler as proton\n"
                                    "import triton.not_a_module_of_36\n"
                                    "@triton.jit\ndef k(p):\n    tl.store(p, 7)\n");
  EXPECT_NE(compileFile(k, "k", "*i32").find("tt.store"), std::string::npos);
  EXPECT_NE(SourceProgram::loadFile(k)->whyNotAKernel("proton").find("not a @triton.jit function"), std::string::npos);
}

// A constexpr annotation through an alias (Fast-LLM's `tl_constexpr =
// tl.constexpr`, `from triton.language import constexpr as C`) is constexpr,
// as Triton decides from the annotation's value; triton.knobs.runtime.
// interpret is False (the branch that binds tl.arange runs).
TEST(Modules, AliasedConstexprAnnotationsAndTheInterpretKnob) {
  Tree t;
  std::string k = t.add("k.py", std::string(kHeader) +
                                    "import triton.knobs\nfrom triton.language import constexpr as C\n"
                                    "tl_constexpr = tl.constexpr\n"
                                    "if triton.knobs.runtime.interpret:\n    my_arange = None\nelse:\n    my_arange = tl.arange\n"
                                    "@triton.jit\ndef k(p, A: tl_constexpr, B: C):\n"
                                    "    tl.store(p + my_arange(0, A), tl.full([A], B, tl.int32))\n");
  auto prog = SourceProgram::loadFile(k);
  const JitFunction* fn = prog->find("k");
  ASSERT_NE(fn, nullptr);
  EXPECT_FALSE(fn->params[0].isConstexpr);
  EXPECT_TRUE(fn->params[1].isConstexpr);
  EXPECT_TRUE(fn->params[2].isConstexpr);
  EXPECT_NE(compileFile(k, "k", "*i32, A=16, B=5").find("tensor<16xi32>"), std::string::npos);
}

TEST(Modules, CircularImportsSeeTheNamesBoundSoFar) {
  Tree t;
  t.add("cyc/__init__.py", "");
  t.add("cyc/a.py", std::string(kHeader) + "N = tl.constexpr(5)\nfrom cyc import b\n@triton.jit\ndef k(p):\n"
                                            "    tl.store(p, b.M + N)\n");
  t.add("cyc/b.py", "from cyc.a import N\nM = N * 10\n");
  std::string ir = compileFile(t.path("cyc/a.py"), "k", "*i32");
  EXPECT_NE(ir.find("55"), std::string::npos) << ir;
}

TEST(Modules, VersionSwitchesTakeTheBranchTriton36Takes) {
  Tree t;
  std::string k = t.add("k.py", std::string(kHeader) + R"(
import operator
from packaging import version
try:
    from triton.ops import matmul      # gone in Triton 3
    OLD = tl.constexpr(1)
except ImportError:
    OLD = tl.constexpr(0)
try:
    from triton.language.extra.libdevice import rsqrt
except ModuleNotFoundError:
    from triton.language.extra.cuda.libdevice import rsqrt
if version.parse(triton.__version__) >= version.parse("3.2"):
    NEW = tl.constexpr(7)
else:
    NEW = tl.constexpr(8)
if operator.ge(tuple(int(v) for v in triton.__version__.split(".")[:2]), (3, 0)):
    TUPLE = tl.constexpr(100)
@triton.jit
def k(p):
    tl.store(p, rsqrt(tl.load(p)) + OLD + NEW + TUPLE)
)");
  std::string ir = compileFile(k, "k", "*fp32");
  EXPECT_NE(ir.find("rsqrt"), std::string::npos) << ir;
  EXPECT_NE(ir.find("7.0"), std::string::npos) << ir;    // NEW
  EXPECT_NE(ir.find("100.0"), std::string::npos) << ir;  // TUPLE
}

TEST(Modules, KernelsMadeByCallsAndUnderUnknownDecorators) {
  auto prog = load(std::string(kHeader) + R"(
def my_cache(fn):
    return fn
def body(p, BLOCK: tl.constexpr):
    tl.store(p + tl.arange(0, BLOCK), tl.arange(0, BLOCK))
made = triton.jit(body)
opts = triton.jit(noinline=True, do_not_specialize=["p"])(body)
@my_cache
@triton.jit
def wrapped(p):
    pass
triton.jit(body)   # made but never bound: not a kernel of the module
)");
  std::vector<std::string> names;
  for (const auto& [bound, fn] : prog->kernels()) names.push_back(bound);
  EXPECT_EQ(names, (std::vector<std::string>{"made", "opts", "wrapped"}));
  const JitFunction* made = prog->find("made");
  ASSERT_TRUE(made);
  EXPECT_EQ(made->name, "body");
  EXPECT_NE(made->madeBy.find("triton.jit(body) at k.py:8"), std::string::npos) << made->madeBy;
  EXPECT_TRUE(made->params[1].isConstexpr);
  const JitFunction* opts = prog->find("opts");
  ASSERT_TRUE(opts);
  EXPECT_TRUE(opts->noinline);
  EXPECT_EQ(opts->doNotSpecialize, (std::vector<std::string>{"p"}));
  const JitFunction* wrapped = prog->find("wrapped");
  ASSERT_TRUE(wrapped);
  EXPECT_TRUE(wrapped->transparentDecorators.empty());  // my_cache ran and returned the kernel
  CompileResult r = prog->compile(*made, parseSpecs("*i32, BLOCK=8"), {});
  EXPECT_NE(ir::print(*r.module).find("tt.store"), std::string::npos);
}

// `f = triton.jit(f)` rebinding the def's own name; configs imported from
// another module and built from device queries.
TEST(Modules, RebindingAndImportedConfigs) {
  Tree t;
  t.add("cfgpkg/__init__.py", "");
  t.add("cfgpkg/configs.py", R"(import torch
import triton
MAJOR, MINOR = torch.cuda.get_device_capability()
SMS = torch.cuda.get_device_properties(0).multi_processor_count
CONFIGS = [triton.Config({"BLOCK": 128 if MAJOR >= 9 else 64, "SPLIT": SMS // 4}, num_warps=8 if MAJOR >= 9 else 4)]
)");
  std::string k = t.add("cfgpkg/k.py", std::string(kHeader) + R"(from .configs import CONFIGS
def f(p, n, BLOCK: tl.constexpr, SPLIT: tl.constexpr):
    tl.store(p, n)
f = triton.autotune(configs=CONFIGS, key=["n"])(triton.jit(f))
)");
  auto prog = SourceProgram::loadFile(k);
  ASSERT_EQ(prog->kernels().size(), 1u);
  EXPECT_EQ(prog->kernels()[0].first, "f");
  const JitFunction* fn = prog->find("f");
  ASSERT_TRUE(fn && fn->autotune());
  EXPECT_EQ(std::get<int64_t>(fn->autotune()->configs[0].kwargs.at("BLOCK")), 128);  // an H100 unless told
  EXPECT_EQ(std::get<int64_t>(fn->autotune()->configs[0].kwargs.at("SPLIT")), 33);
  LoadOptions a100 = onDevice(8, 0, 108);
  auto prog80 = SourceProgram::loadFile(k, a100);  // (JitFunctions live as long as their program)
  const JitFunction* f80 = prog80->find("f");
  ASSERT_TRUE(f80 && f80->autotune());
  EXPECT_EQ(std::get<int64_t>(f80->autotune()->configs[0].kwargs.at("BLOCK")), 64);
  EXPECT_EQ(std::get<int64_t>(f80->autotune()->configs[0].kwargs.at("SPLIT")), 27);
  EXPECT_EQ(f80->autotune()->configs[0].numWarps, 4);
}

// Decorators of the project's own run: a factory returning
// triton.autotune(...), a function applying triton.jit, a registry that
// returns the kernel; a wrapper-returning one is transparent.
TEST(Modules, UserDecoratorsRun) {
  auto prog = load(std::string(kHeader) + R"(
REGISTRY = []
def tuned(**kw):
    return triton.autotune(key=["n"], **kw)
def my_jit(fn):
    return triton.jit(fn, do_not_specialize=["n"])
def register(fn):
    REGISTRY.append(fn)
    return fn
def wrap(fn):
    def wrapper(*args):
        return fn(*args)
    return wrapper
@tuned(configs=[triton.Config({"B": 32}), triton.Config({"B": 64})])
@triton.jit
def a(p, n, B: tl.constexpr):
    pass
@register
@my_jit
def b(p, n):
    pass
@wrap
@triton.jit
def c(p):
    pass
N = len(REGISTRY)
)");
  const JitFunction* a = prog->find("a");
  ASSERT_TRUE(a && a->autotune());
  EXPECT_EQ(a->autotune()->configs.size(), 2u);
  EXPECT_EQ(a->autotune()->key, (std::vector<std::string>{"n"}));
  const JitFunction* b = prog->find("b");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->doNotSpecialize, (std::vector<std::string>{"n"}));
  const JitFunction* c = prog->find("c");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->transparentDecorators, (std::vector<std::string>{"wrap"}));
  CompileResult r = prog->compile(*b, parseSpecs("*i32, i32"), {});
  EXPECT_NE(ir::print(*r.module).find("tt.func"), std::string::npos);
}

TEST(Modules, HeuristicsAndConfigsFromHelperCalls) {
  auto prog = load(std::string(kHeader) + R"(
import functools
def heur(name, mult):
    return {name: lambda args: args["n"] * mult, "HALF": functools.partial(lambda args, d: args["n"] // d, d=2)}
def configs():
    out = []
    for w in (1, 2, 4, 8):
        if w == 8:
            continue
        out.append(triton.Config({"BLOCK": 32 * w}, num_warps=w, num_stages=2 if w > 1 else 3))
    return out
@triton.autotune(configs=configs(), key=["n"])
@triton.heuristics(heur("TRIPLE", 3))
@triton.jit
def k(p, n, BLOCK: tl.constexpr, TRIPLE: tl.constexpr, HALF: tl.constexpr):
    pass
)");
  const JitFunction* fn = prog->find("k");
  ASSERT_TRUE(fn && fn->hasAutotune && fn->hasHeuristics);
  ASSERT_EQ(fn->autotune()->configs.size(), 3u);
  EXPECT_EQ(std::get<int64_t>(fn->autotune()->configs[2].kwargs.at("BLOCK")), 128);
  EXPECT_EQ(fn->autotune()->configs[2].numStages, 2);
  EXPECT_EQ(fn->autotune()->configs[0].numStages, 3);
  ASSERT_EQ(fn->heuristics().size(), 2u);
  std::map<std::string, ConstValue> args{{"n", int64_t{14}}};
  EXPECT_EQ(std::get<int64_t>(prog->evalHeuristic(fn->heuristics()[0], args)), 42);
  EXPECT_EQ(std::get<int64_t>(prog->evalHeuristic(fn->heuristics()[1], args)), 7);
}

// prune_configs_by's Python callables run on the host evaluator with the
// launch's arguments as Triton passes them: early_config_prune(configs,
// named_args, **kwargs), tensors as torch.Tensor values (dtype, shape,
// element_size(), stride()); perf_model(**named_args, **kwargs,
// **config.all_kwargs()). Expectations from CPython running the same code.
TEST(Modules, PruneConfigsByCallablesRunOnTheHost) {
  auto prog = load(std::string(kHeader) + R"(
def keep(configs, named_args, **kwargs):
    x = named_args["x_ptr"]
    limit = named_args["n"] * x.element_size() // x.stride(0) // 4   # 4000 // 1 // 4 with fp32
    out = [c for c in configs if c.kwargs["BLOCK"] <= limit and x.shape[-1] % 8 == 0]
    if kwargs.get("SPLIT", 1) > 1:
        out = [triton.Config({"BLOCK": 256}, num_warps=4)] + out   # an equal, new object
    return out
def model(n, BLOCK, num_warps, **rest):
    return abs(BLOCK - n / 4) + num_warps
@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in (128, 256, 512, 2048) for w in (4, 8)],
                 key=["n"], prune_configs_by={"early_config_prune": keep, "perf_model": model, "top_k": 0.5})
@triton.jit
def k(x_ptr, n, SPLIT: tl.constexpr, BLOCK: tl.constexpr):
    pass
@triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=["n"],
                 prune_configs_by={"early_config_prune": lambda configs, nargs, **kw: nargs["x_ptr"].missing})
@triton.jit
def bad(x_ptr, n, BLOCK: tl.constexpr):
    pass
)");
  const JitFunction* fn = prog->find("k");
  ASSERT_TRUE(fn && fn->autotune());
  const AutotuneSpec& spec = *fn->autotune();
  ASSERT_EQ(spec.configs.size(), 8u);
  EXPECT_TRUE(spec.earlyConfigPrune && spec.perfModel && spec.topKFraction);
  HostArg x;
  x.isTensor = true;
  x.dtype = "fp32";
  x.shape = {4, 1000};
  x.strides = {1000, 1};
  HostArg n;
  n.value = int64_t{1000};
  HostArgs named{{"x_ptr", x}, {"n", n}};
  // x.stride(0) is 1000: the limit is 1000 * 4 // 1000 // 4 = 1, nothing kept.
  std::string msg = errorOf([&] { prog->evalEarlyConfigPrune(spec, named, {}); });
  EXPECT_NE(msg.find("at least one config"), std::string::npos) << msg;
  named[0].second.strides = {1, 1};  // limit 1000
  std::vector<size_t> kept = prog->evalEarlyConfigPrune(spec, named, {});
  EXPECT_EQ(kept, (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
  HostArg split;
  split.value = int64_t{2};
  kept = prog->evalEarlyConfigPrune(spec, named, {{"SPLIT", split}});
  EXPECT_EQ(kept, (std::vector<size_t>{2, 0, 1, 2, 3, 4, 5}));
  // |BLOCK - 250| + num_warps.
  EXPECT_DOUBLE_EQ(prog->evalPerfModel(spec, 2, named, {}), 10.0);
  EXPECT_DOUBLE_EQ(prog->evalPerfModel(spec, 5, named, {}), 270.0);

  const JitFunction* b = prog->find("bad");
  ASSERT_TRUE(b && b->autotune());
  msg = errorOf([&] { prog->evalEarlyConfigPrune(*b->autotune(), named, {}); });
  EXPECT_NE(msg.find("early_config_prune"), std::string::npos) << msg;
  EXPECT_NE(msg.find("AttributeError"), std::string::npos) << msg;
}

TEST(Modules, MessagesNameTheCause) {
  // A name bound under a condition the evaluator cannot decide.
  std::string err = compileError(std::string(kHeader) + R"(
import numpy as np
if np.random.rand() > 0.5:
    X = tl.constexpr(1)
else:
    X = tl.constexpr(2)
@triton.jit
def k(p):
    tl.store(p, X)
)", "k", "*i32");
  EXPECT_NE(err.find("k.py:11:17: error: cannot access global variable 'X'"), std::string::npos) << err;
  EXPECT_NE(err.find("bound only under a condition that could not be decided: numpy.random.rand(...) (module "
                     "'numpy' is not on the search path) (k.py:5)"),
            std::string::npos)
      << err;
  // A module-level statement that raised.
  err = compileError(std::string(kHeader) + "Y = {'a': 1}['b']\n@triton.jit\ndef k(p):\n    tl.store(p, Y)\n", "k", "*i32");
  EXPECT_NE(err.find("KeyError"), std::string::npos) << err;
  EXPECT_NE(err.find("(k.py:3"), std::string::npos) << err;
  // Configs from a module Tessera did not find: that kernel's autotune is
  // a located error naming it (it once escaped as an internal exception).
  {
    auto prog = load(std::string(kHeader) + "from benchsuite import tuning\n"
                     "@triton.autotune(configs=tuning.CONFIGS, key=['n'])\n@triton.jit\ndef k(p, n):\n    pass\n");
    const JitFunction* fn = prog->find("k");
    ASSERT_TRUE(fn && fn->hasAutotune);
    err = errorOf([&] { fn->autotune(); });
    EXPECT_NE(err.find("k.py:4:"), std::string::npos) << err;
    EXPECT_NE(err.find("benchsuite.tuning.CONFIGS, from a module Tessera did not find"), std::string::npos) << err;
  }
  // A host function called from a kernel.
  err = compileError(std::string(kHeader) + "def h(x):\n    return x\n@triton.jit\ndef k(p):\n    tl.store(p, h(1))\n",
                     "k", "*i32");
  EXPECT_NE(err.find("'h' is a host function (not @triton.jit) (k.py:3)"), std::string::npos) << err;
}

TEST(Modules, ErrorsInImportedModulesAreLocatedThere) {
  Tree t;
  t.add("bad.py", "def f(:\n");
  std::string k = t.add("k.py", std::string(kHeader) + "import bad\n");
  std::string err = errorOf([&] { SourceProgram::loadFile(k); });
  EXPECT_NE(err.find(t.path("bad.py") + ":1:6: error: '(' was never closed"), std::string::npos) << err;
  // An endless loop at module level runs out of the step budget, located.
  err = errorOf([&] { load("import triton\nwhile True:\n    pass\n"); });
  EXPECT_NE(err.find("k.py:"), std::string::npos) << err;
  EXPECT_NE(err.find("budget"), std::string::npos) << err;
  // Relative imports in a file outside any package.
  err = compileError(std::string(kHeader) + "from .helpers import h\n@triton.jit\ndef k(p):\n    tl.store(p, h(1))\n", "k",
                     "*i32");
  EXPECT_NE(err.find("relative import with no known parent package"), std::string::npos) << err;
}

// Under a module-level `if` the evaluator cannot decide (a package it
// cannot see), the branch that defines kernels runs when the other defines
// none: a program launching one of them took it, on the names as they
// are (an augmented assignment there keeps its value). What only the other
// branch binds stays undecided, and an `if` with kernels on both sides
// decides nothing.
TEST(Modules, KernelsUnderAnUndecidedGuard) {
  std::string src =
      "import triton\nimport triton.language as tl\nimport not_installed_pkg_xyz as pkg\nFACTOR = 1.5\n"
      "if pkg.has_triton():\n    SCALE = 2.0\n    FACTOR += 1.0\n"
      "    @triton.jit\n    def k(P):\n        tl.store(P, tl.load(P) * (SCALE * FACTOR))\n"
      "else:\n    k = None\n    OTHER = 3.0\n"
      "@triton.jit\ndef uses_other(P):\n    tl.store(P, tl.load(P) * OTHER)\n"
      "if pkg.flag():\n    @triton.jit\n    def either(P):\n        tl.store(P, 1.0)\n"
      "else:\n    @triton.jit\n    def either(P):\n        tl.store(P, 2.0)\n";
  std::string ir = compileIR(src, "k", "*fp32");  // the taken branch updates FACTOR in place: 2.0 * 2.5
  EXPECT_NE(ir.find("value = 5.0"), std::string::npos) << ir;
  std::string other = compileError(src, "uses_other", "*fp32");
  EXPECT_NE(other.find("could not be decided"), std::string::npos) << other;
  EXPECT_NE(compileError(src, "either", "*fp32"), "");
}

// Imports under a module-level `if` the evaluator cannot decide keep the
// names they bind where every way gives one value (tritonbench's `if not
// is_fbcode(): import triton.tools.experimental_descriptor`, transformers'
// `if is_torch_available(): import triton`): `triton` rebound to itself (also
// when the submodule raises), a name unbound before (code that uses it runs
// only if the branch ran). A name the two ways bind differently, or that
// another statement of the `if` assigns, stays undecided, named as such.
TEST(Modules, ImportsUnderAnUndecidedGuard) {
  std::string kernels =
      "@triton.jit\ndef k(P):\n    tl.store(P, tl.load(P) * 2.0)\n"
      "@triton.jit\ndef uses_np(P):\n    tl.store(P, np.sum(1))\n"
      "@triton.jit\ndef uses_m(P):\n    tl.store(P, tl.load(P) * m.pi)\n";
  std::string rebinds =
      "import not_installed_pkg_xyz as pkg\nimport triton\nimport triton.language as tl\nimport math as m\n"
      "if pkg.flag():\n    import triton.testing\n    import triton.tools.not_a_triton_module\n"
      "    import math as m\n    import numpy_like_xyz as np\nelse:\n    import operator as m\n" + kernels;
  EXPECT_NE(compileIR(rebinds, "k", "*fp32").find("value = 2.0"), std::string::npos);
  std::string m = compileError(rebinds, "uses_m", "*fp32");  // math in one way, operator in the other
  EXPECT_NE(m.find("could not be decided"), std::string::npos) << m;
  std::string np = compileError(rebinds, "uses_np", "*fp32");  // a project's module: not imported there
  EXPECT_NE(np.find("could not be decided"), std::string::npos) << np;
  std::string unboundBefore =
      "import not_installed_pkg_xyz as pkg\nif pkg.is_torch_available():\n    import torch\n    import triton\n"
      "    import triton.language as tl\n" + kernels;
  EXPECT_NE(compileIR(unboundBefore, "k", "*fp32").find("value = 2.0"), std::string::npos);
  std::string assignedToo =
      "import not_installed_pkg_xyz as pkg\nif pkg.flag():\n    import triton\nelse:\n    triton = None\n"
      "import triton.language as tl\n" + kernels;
  // A name the module does not bind may still name something: a builtin,
  // or a module global seen from a class body. Shadowed under an undecided
  // `if`, it is undecided. So is whatever a project's module would bind:
  // importing it runs its body (effects on other modules too), so it does
  // not run under a condition that may be false.
  std::string shadows =
      "import not_installed_pkg_xyz as pkg\nimport math as m\nimport triton\nimport triton.language as tl\n"
      "if pkg.flag():\n    from math import pow\n"
      "class C:\n    if pkg.flag():\n        import operator as m\n    PI = m.pi\n"
      "P: tl.constexpr = int(pow(2, 3))\nQ: tl.constexpr = C.PI > 3\n"
      "@triton.jit\ndef uses_pow(p):\n    tl.store(p, P)\n@triton.jit\ndef uses_class(p):\n    tl.store(p, Q)\n";
  EXPECT_NE(compileError(shadows, "uses_pow", "*i32").find("could not be"), std::string::npos);
  EXPECT_NE(compileError(shadows, "uses_class", "*i32").find("could not be"), std::string::npos);
  Tree t;
  t.add("cfg.py", "BLOCK = 32\n");
  t.add("override.py", "import cfg\ncfg.BLOCK = 64\n");
  std::string side = t.add("side.py", std::string(kHeader) + "import not_installed_pkg_xyz as pkg\nimport cfg\n"
                                                             "if pkg.flag():\n    import override\n"
                                                             "B: tl.constexpr = cfg.BLOCK\n"
                                                             "@triton.jit\ndef k(p):\n    tl.store(p, B)\n");
  EXPECT_NE(compileFile(side, "k", "*i32").find("value = 32"), std::string::npos);  // override.py did not run
  std::string err = compileError(assignedToo, "k", "*fp32");  // the error names the decorator and why
  EXPECT_NE(err.find("'k' is function, not a @triton.jit function: its decorator at"), std::string::npos) << err;
  EXPECT_NE(err.find("could not be decided"), std::string::npos) << err;
}

// inspect.signature of Triton 3.6's decorators and of functions defined in
// the program: tritonbench's `"c_cache" in
// inspect.signature(triton.jit).parameters` picks the plain triton.jit in a
// wrapper decorator; defaults and Parameter.empty as Python has them.
TEST(Modules, InspectSignatureOfTritonAndOwnFunctions) {
  std::string src =
      "import inspect\nimport triton\nimport triton.language as tl\n"
      "_c_cache = 'c_cache' in inspect.signature(triton.jit).parameters\n"
      "_noinline = 'noinline' in inspect.signature(triton.jit).parameters\n"
      "def _jit(**kwargs):\n    if not _c_cache:\n        kwargs.pop('c_cache', None)\n"
      "    return triton.jit(**kwargs)\n"
      "def f(a, b=3, *, c, d=5):\n    pass\n"
      "_ps = inspect.signature(f).parameters\n"
      "NAMES: tl.constexpr = len(_ps) * 10 + (_ps['b'].default + _ps['d'].default)\n"
      "EMPTY: tl.constexpr = (_ps['a'].default is inspect.Parameter.empty) and "
      "(_ps['c'].default is inspect.Parameter.empty) and list(_ps)[2] == 'c'\n"
      "WARMUP: tl.constexpr = 'warmup' in inspect.signature(triton.autotune).parameters\n"
      "@_jit(c_cache=True)\ndef k(P):\n"
      "    tl.store(P, NAMES + (100 if EMPTY and WARMUP and _noinline else 0))\n";
  std::string ir = compileIR(src, "k", "*i32");
  EXPECT_NE(ir.find("value = 148"), std::string::npos) << ir;  // 4 parameters, 3 + 5, all checks true
  // A function taking *args / **kwargs may be a functools.wraps wrapper,
  // whose signature CPython takes from __wrapped__: undecided.
  std::string wrapper =
      "import inspect\nimport triton\nimport triton.language as tl\n"
      "def w(*args, **kwargs):\n    pass\nN: tl.constexpr = len(inspect.signature(w).parameters)\n"
      "@triton.jit\ndef k(P):\n    tl.store(P, N)\n";
  EXPECT_NE(compileError(wrapper, "k", "*i32").find("*args or **kwargs"), std::string::npos);
}

// triton.language.target_info's constexpr_functions, called in kernels:
// CUDA, of the capability of the device the program is loaded for (the
// default: 9.0; 8.0 given), so arch guards pick their branch at compile time.
TEST(Modules, TargetInfoAnswersForTheDevice) {
  std::string src =
      "import triton\nimport triton.language as tl\n"
      "from triton.language.target_info import cuda_capability_geq, is_cuda, is_hip\n"
      "@triton.jit\ndef k(P):\n    x = tl.load(P)\n"
      "    if cuda_capability_geq(9, 0):\n        x = x * 2.0\n"
      "    if cuda_capability_geq(9, minor=1):\n        x = x * 3.0\n"
      "    if cuda_capability_geq(8):\n        x = x * 7.0\n"
      "    if is_hip() or not is_cuda():\n        x = x * 5.0\n"
      "    tl.store(P, x)\n"
      "@triton.jit\ndef k2(P):\n    x = tl.load(P)\n"
      "    if tl.target_info.is_cuda() and tl.target_info.cuda_capability_geq(9, minor=0):\n        x = x * 2.0\n"
      "    if tl.target_info.cuda_capability_geq(10):\n        x = x * 3.0\n"
      "    tl.store(P, x)\n";
  std::string ir = compileIR(src, "k", "*fp32");
  EXPECT_NE(ir.find("value = 2.0"), std::string::npos) << ir;
  EXPECT_NE(ir.find("value = 7.0"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("value = 3.0"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("value = 5.0"), std::string::npos) << ir;
  std::string ir2 = compileIR(src, "k2", "*fp32");  // the attribute form, answered by the code generator
  EXPECT_NE(ir2.find("value = 2.0"), std::string::npos) << ir2;
  EXPECT_EQ(ir2.find("value = 3.0"), std::string::npos) << ir2;
  LoadOptions ampere = onDevice(8, 0);
  auto prog = SourceProgram::load(std::make_shared<SourceFile>("k.py", src), "", ampere);
  std::string ir80 = ir::print(*prog->compile("k", parseSpecs("*fp32"), {}).module);
  EXPECT_EQ(ir80.find("value = 2.0"), std::string::npos) << ir80;
  EXPECT_NE(ir80.find("value = 7.0"), std::string::npos) << ir80;
  std::string ir80k2 = ir::print(*prog->compile("k2", parseSpecs("*fp32"), {}).module);
  EXPECT_EQ(ir80k2.find("value = 2.0"), std::string::npos) << ir80k2;
}

}  // namespace
}  // namespace tessera::frontend::test
