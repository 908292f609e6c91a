//===- ErrorsTest.cpp - User errors: message and position -----------------===//
//
// Each case is a small kernel with one mistake; the diagnostic must carry
// "k.py:LINE:COL: error:" of the offending node and a specific message. The
// kernel body starts on line 5 (after two imports, the decorator and def).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

namespace tessera::frontend::test {
namespace {

struct ErrCase {
  const char* name;
  const char* params;  // def k(<params>)
  const char* body;    // indented body lines
  const char* sig;
  const char* where;   // "line:col"
  const char* msg;
};

std::string source(const ErrCase& c) {
  return std::string("import triton\nimport triton.language as tl\n@triton.jit\ndef k(") + c.params + "):\n" + c.body;
}

class Errors : public ::testing::TestWithParam<ErrCase> {};

TEST_P(Errors, MessageAndLocation) {
  const ErrCase& c = GetParam();
  std::string err = compileError(source(c), "k", c.sig);
  ASSERT_NE(err, "") << "expected an error for " << c.name;
  EXPECT_NE(err.find(std::string("k.py:") + c.where + ": error: "), std::string::npos) << err;
  EXPECT_NE(err.find(c.msg), std::string::npos) << err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Errors,
    ::testing::Values(
        ErrCase{"mask_shape", "P", "    o = tl.arange(0, 64)[:, None] * 128 + tl.arange(0, 128)[None, :]\n"
                                   "    x = tl.load(P + o, mask=tl.arange(0, 128) < 5)\n",
                "*fp32", "6:9", "tl.load: mask has shape [128] but pointer has shape [64, 128]"},
        ErrCase{"broadcast", "P", "    x = tl.arange(0, 64) + tl.arange(0, 128)\n", "*fp32", "5:9",
                "incompatible dimensions at index 0: 64 and 128"},
        ErrCase{"index", "P", "    x = tl.arange(0, 64)\n    y = x[0]\n", "*fp32", "6:9",
                "unsupported tensor index: only None and ':' are allowed"},
        ErrCase{"exp_fp16", "P", "    x = tl.load(P + tl.arange(0, 16))\n    y = tl.exp(x)\n", "*fp16", "6:9",
                "tl.exp: expected dtype fp32 or fp64, got fp16"},
        ErrCase{"undefined", "P", "    x = foo + 1\n", "*fp32", "5:9", "name 'foo' is not defined"},
        ErrCase{"tl_unknown", "P", "    x = tl.foo(1)\n", "*fp32", "5:9", "tl.foo is not a Triton language function"},
        ErrCase{"if_types", "P, c", "    if c > 0:\n        a = 1 + c\n    else:\n        a = 1.0 * c.to(tl.float32)\n",
                "*fp32, i32", "5:5", "mismatched type for 'a' between then block (int32) and else block (fp32)"},
        ErrCase{"return_in_loop", "P, n", "    for i in range(n):\n        return\n", "*fp32, i32", "6:9",
                "cannot have `return` statements inside `while` or `for` statements"},
        ErrCase{"break", "P, n", "    for i in range(n):\n        break\n", "*fp32, i32", "6:9",
                "unsupported statement: break"},
        ErrCase{"continue", "P, n", "    while n > 0:\n        continue\n", "*fp32, i32", "6:9",
                "unsupported statement: continue"},
        ErrCase{"static_assert", "P, B: tl.constexpr", "    tl.static_assert(B % 2 == 0, 'B must be even')\n",
                "*fp32, B=3", "5:5", "static_assert failed: B must be even"},
        ErrCase{"arange_pow2", "P", "    x = tl.arange(0, 3)\n", "*fp32", "5:9",
                "tl.arange: range length 3 must be a power of 2"},
        ErrCase{"floordiv_float", "a", "    x = a // 2\n", "fp32", "5:9", "// is only supported for integers, got fp32"},
        ErrCase{"signedness", "a, b", "    x = a // b\n", "i32, u32", "5:9",
                "cannot use /, //, or % with int32 and uint32 because they have different signedness"},
        ErrCase{"literal_range", "a", "    x = a + 300\n", "i8", "5:9", "scalar 300 is out of range for type int8"},
        ErrCase{"unsigned_negative", "a", "    x = a + -1\n", "u32", "5:9",
                "cannot perform a binary operation between an unsigned tensor (uint32) and a negative scalar (-1)"},
        ErrCase{"pow_tensor", "a", "    x = a ** 2\n", "fp32", "5:9", "the ** operator is only supported between constexprs"},
        ErrCase{"kwonly_positional", "a", "    x = h(a, 2)\n@triton.jit\ndef h(v, *, s):\n    return v * s\n", "i32",
                "5:9", "h() takes 1 positional argument but 2 were given"},
        ErrCase{"comp_runtime_if", "a", "    x = [i for i in range(3) if a > 0]\n", "i32", "5:33",
                "a comprehension's `if` must be a constexpr condition"},
        ErrCase{"comp_tensor_iter", "P", "    x = [v for v in tl.arange(0, 4)]\n", "*fp32", "5:21",
                "a comprehension iterates over a tuple or a range with constexpr bounds, got"},
        ErrCase{"set_comp", "a", "    x = {i for i in range(3)}\n", "i32", "5:9",
                "set and dict comprehensions are not supported in @jit functions"},
        ErrCase{"squeeze_length", "P", "    x = tl.squeeze(tl.arange(0, 4), 0)\n", "*fp32", "5:9",
                "tl.squeeze: the dimension must have length 1"},
        ErrCase{"kwonly_missing", "a", "    x = h(a)\n@triton.jit\ndef h(v, *, s):\n    return v * s\n", "i32", "5:9",
                "h() missing required keyword-only argument 's'"},
        ErrCase{"setitem", "P", "    x = tl.arange(0, 16)\n    x[0] = 1\n", "*fp32", "6:5", "item assignment is not supported"},
        ErrCase{"const_store", "P", "    tl.store(P, 1.0)\n", "*kfp32", "5:5", "tl.store: cannot store to a constant pointer"},
        ErrCase{"loop_carried", "P, n", "    acc = 0\n    for i in range(n):\n        acc = acc + 1.5\n", "*fp32, i32",
                "6:5", "loop-carried variable 'acc' has initial type int32 but is re-assigned to fp32 in the loop"},
        ErrCase{"static_range_cap", "P", "    for i in tl.static_range(100000):\n        pass\n", "*fp32", "5:5",
                "tl.static_range would unroll 100000 iterations"},
        ErrCase{"nested_static_range", "P",
                "    for i in tl.static_range(4096):\n        for j in tl.static_range(4096):\n            pass\n",
                "*fp32", "6:9", "too many unrolled iterations in total"},
        ErrCase{"tuple_repeat", "P", "    t = (1,) * 10**12\n", "*fp32", "5:9", "sequence repetition too large"},
        ErrCase{"too_big", "P", "    x = tl.zeros([2048, 1024], dtype=tl.float32)\n", "*fp32", "5:9",
                "has more than 1048576 elements"},
        ErrCase{"dot_shapes", "P", "    a = tl.zeros([32, 64], dtype=tl.float16)\n    b = tl.zeros([32, 64], dtype=tl.float16)\n"
                                   "    c = tl.dot(a, b)\n",
                "*fp32", "7:9", "tl.dot: incompatible shapes [32, 64] and [32, 64]"},
        ErrCase{"bitcast", "a", "    x = a.to(tl.int8, bitcast=True)\n", "fp32", "5:9",
                "cannot bitcast data-type of size 32 to data-type of size 8"},
        ErrCase{"other_without_mask", "P", "    x = tl.load(P, other=0.0)\n", "*fp32", "5:9",
                "tl.load: `other` cannot be provided without `mask`"},
        ErrCase{"unexpected_kw", "P", "    x = tl.load(P, foo=1)\n", "*fp32", "5:9",
                "tl.load() got an unexpected keyword argument 'foo'"},
        ErrCase{"program_id_axis", "P", "    x = tl.program_id(3)\n", "*fp32", "5:9",
                "tl.program_id: axis must be 0, 1, or 2 but got 3"},
        ErrCase{"ambiguous_bool", "P", "    x = tl.arange(0, 16)\n    if x > 3:\n        pass\n", "*fp32", "6:8",
                "boolean value of a tensor with more than one value is ambiguous"},
        ErrCase{"lambda", "P", "    f = lambda x: x\n", "*fp32", "5:9", "lambda expressions are not supported"},
        ErrCase{"with", "P", "    with P:\n        pass\n", "*fp32", "5:5", "unsupported statement: with"},
        ErrCase{"wrong_static_type", "a", "    tl.static_assert(a.dtype == tl.int8, 'got ' + a.dtype.name)\n", "i32",
                "5:5", "static_assert failed: got int32"},
        ErrCase{"ternary_types", "a, c", "    x = a if c > 0 else 1.5\n", "i32, i32", "5:9",
                "conditional expression with a runtime condition has inconsistent types int32 and fp32"},
        ErrCase{"ptr_plus_float", "P", "    q = P + 1.5\n", "*fp32", "5:9", "pointer offsets must be integers, got fp32"},
        ErrCase{"not_int", "a", "    x = not a\n", "i32", "5:9", "cannot bitcast data-type of size 32 to data-type of size 1"},
        ErrCase{"range_float", "P, f", "    for i in range(f):\n        pass\n", "*fp32, fp32", "5:5",
                "range bounds must be integers, got fp32"},
        ErrCase{"fp8_int", "a, b", "    x = a + b\n", "fp8e5, i32", "5:9", "unexpected type"},
        ErrCase{"cat_lengths", "P", "    x = tl.cat(tl.arange(0, 8), tl.arange(0, 16))\n", "*fp32", "5:9",
                "tl.cat: the inputs must have the same length along dim 0, got 8 and 16"},
        ErrCase{"cat_dim", "P", "    x = tl.cat(tl.arange(0, 8), tl.arange(0, 8), dim=1)\n", "*fp32", "5:9",
                "tl.cat: dim 1 is out of range for rank 1"},
        ErrCase{"for_iter", "P", "    for i in (1, 2):\n        pass\n", "*fp32", "5:14",
                "only `range`, `tl.range` and `tl.static_range` iterators are supported"}));

TEST(ErrorsMisc, KernelArgumentCount) {
  std::string err = compileError("import triton\n@triton.jit\ndef k(a, b, c):\n    pass\n", "k", "i32, i32, i32, i32");
  EXPECT_NE(err.find("k.py:3:1: error: kernel 'k' takes 3 arguments but 4 were given"), std::string::npos) << err;
}

TEST(ErrorsMisc, MissingArgument) {
  std::string err = compileError("import triton\n@triton.jit\ndef k(a, n):\n    pass\n", "k", "i32");
  EXPECT_NE(err.find("kernel 'k' is missing a value for argument 'n'"), std::string::npos) << err;
}

TEST(ErrorsMisc, ConstexprParamGivenPointer) {
  std::string err = compileError("import triton\nimport triton.language as tl\n@triton.jit\ndef k(a, B: tl.constexpr):\n"
                                 "    pass\n",
                                 "k", "i32, *fp32");
  EXPECT_NE(err.find("argument 'B' of kernel 'k' is a tl.constexpr parameter, but a runtime pointer (*fp32) was given"),
            std::string::npos)
      << err;
}

TEST(ErrorsMisc, UnknownKernel) {
  std::string err = compileError("import triton\n@triton.jit\ndef k(a):\n    pass\n", "nope", "i32");
  EXPECT_NE(err.find("no @triton.jit function named 'nope' (the file defines: k)"), std::string::npos) << err;
}

TEST(ErrorsMisc, NonConstexprGlobal) {
  std::string src = "import triton\nimport triton.language as tl\nimport torch\nG = torch.zeros(3)\n@triton.jit\n"
                    "def k(P):\n    x = G + 1\n";
  std::string err = compileError(src, "k", "*fp32");
  EXPECT_NE(err.find("k.py:7:9: error: cannot access global variable 'G'"), std::string::npos) << err;
}

TEST(ErrorsMisc, ErrorInCalleePointsAtCalleeAndNotesCallSite) {
  std::string src = "import triton\nimport triton.language as tl\n@triton.jit\ndef helper(x):\n    return tl.exp(x)\n"
                    "@triton.jit\ndef k(P):\n    y = helper(tl.load(P))\n";
  std::string err = compileError(src, "k", "*fp16");
  EXPECT_NE(err.find("k.py:5:12: error: tl.exp: expected dtype fp32 or fp64, got fp16"), std::string::npos) << err;
  EXPECT_NE(err.find("k.py:8:9: note: in call to 'helper'"), std::string::npos) << err;
}

TEST(ErrorsMisc, ErrorInPreludePointsAtUserCall) {
  std::string src = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(P):\n"
                    "    x = tl.load(P + tl.arange(0, 16))\n    y = tl.sigmoid(x)\n";
  std::string err = compileError(src, "k", "*fp16");
  EXPECT_NE(err.find("k.py:6:9: error: tl.exp: expected dtype fp32 or fp64, got fp16"), std::string::npos) << err;
}

TEST(ErrorsMisc, UnboundedRecursion) {
  std::string src = "import triton\nimport triton.language as tl\n@triton.jit\ndef f(x, N: tl.constexpr):\n"
                    "    return f(x, N + 1)\n@triton.jit\ndef k(P):\n    y = f(1, 0)\n";
  std::string err = compileError(src, "k", "*fp32");
  EXPECT_NE(err.find("maximum recursion depth exceeded while calling 'f'"), std::string::npos) << err;
}

TEST(ErrorsMisc, SyntaxErrorFromParser) {
  EXPECT_THROW(load("import triton\n@triton.jit\ndef k(a:\n    pass\n"), Error);
}

}  // namespace
}  // namespace tessera::frontend::test
