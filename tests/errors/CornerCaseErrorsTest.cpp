//===- CornerCaseErrorsTest.cpp - Typing rules that must reject -----------===//
//
// kernels/corner_cases.py: one mistake per kernel against Triton 3.6's typing
// rules (LANGUAGE_CHECKLIST.md §2-§3): weak literals out of range or negative
// with unsigned results, mixed signedness in / // %, fp8 with ints,
// comparisons without weak typing, `not` on ints, bad casts and roundings,
// shape-op misuse, branches that merge a number with a float; misused
// aggregates. Each must fail
// to compile with a tessera::Error naming `corner_cases.py:LINE:COL` (1-based,
// the start of the offending expression or statement) and the reason.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace {

const char* kFile = "corner_cases.py";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// Compiles kernel `name` for the standard launch (x, y: fp32[4096], n = 100,
/// BLOCK = 64); expects a tessera::Error with one of `lines` ("LINE:COL")
/// and one of `phrases` (lower case).
void expectRejected(const std::string& name, const std::vector<std::string>& lines,
                    const std::vector<std::string>& phrases) {
  SCOPED_TRACE(name);
  std::string msg;
  try {
    auto dev = tessera::Device::interpreter();
    auto x = dev.zeros(tessera::DType::fp32, {4096});
    auto y = dev.zeros(tessera::DType::fp32, {4096});
    tessera::Program::from_file(std::string(TESSERA_KERNEL_DIR) + "/" + kFile)
        .kernel(name)
        .launch(dev, {1}, {x, y, int64_t(100)}, {{"BLOCK", int64_t(64)}});
    ADD_FAILURE() << "expected tessera::Error, the kernel compiled and ran";
    return;
  } catch (const tessera::Error& e) {
    msg = e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected tessera::Error, got another exception: " << e.what();
    return;
  }
  bool located = std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return msg.find(std::string(kFile) + ":" + l + ":") != std::string::npos;
  });
  std::string low = lower(msg);
  bool explained = std::any_of(phrases.begin(), phrases.end(),
                               [&](const std::string& p) { return low.find(p) != std::string::npos; });
  EXPECT_TRUE(located) << "expected the location " << lines.front() << " in:\n" << msg;
  EXPECT_TRUE(explained) << "expected the phrase \"" << phrases.front() << "\" in:\n" << msg;
}

TEST(CornerCaseErrors, WeakLiteralOutOfRange) {
  expectRejected("scalar_out_of_range", {"11:9"}, {"300 is out of range for type int8"});
  expectRejected("bitwise_literal_out_of_range", {"48:9"}, {"255 is out of range for type int8"});
  expectRejected("weak_int64_literal_with_int32", {"108:9"}, {"out of range for type int32"});
}

TEST(CornerCaseErrors, NegativeLiteralWithUnsignedResult) {
  expectRejected("negative_literal_with_unsigned", {"17:9"}, {"negative scalar"});
  expectRejected("where_negative_literal_unsigned", {"130:9"}, {"negative scalar"});
}

TEST(CornerCaseErrors, DivisionWithMixedSignedness) {
  expectRejected("floordiv_mixed_signedness", {"24:9"}, {"different signedness"});
  // int1 counts as unsigned. CPython puts the BinOp at the '(' (30:9);
  // Tessera's parser points at the operand inside the parentheses (30:10).
  expectRejected("mod_int1_by_int32", {"30:9", "30:10"}, {"different signedness"});
}

TEST(CornerCaseErrors, Fp8WithIntegers) {
  // Comparisons do not use weak typing: the 0 is an int32 tensor.
  expectRejected("fp8_compared_with_literal", {"36:9"}, {"unexpected type"});
  expectRejected("fp8_plus_int_tensor", {"96:9"}, {"unexpected type"});
  expectRejected("int_to_fp8_cast", {"102:9"}, {"cannot cast"});
}

TEST(CornerCaseErrors, LogicalAndBitwiseOnWrongTypes) {
  expectRejected("not_on_int32", {"42:9"}, {"size 32 to data-type of size 1"});
  expectRejected("invert_float", {"119:9"}, {"unary invert"});
  expectRejected("negate_pointer", {"124:9"}, {"unary minus"});
}

TEST(CornerCaseErrors, CastRoundingOnlyForFloatNarrowing) {
  expectRejected("rounding_on_float_to_int", {"54:9"}, {"fp_downcast_rounding"});
}

TEST(CornerCaseErrors, ShapeOperationMisuse) {
  expectRejected("transpose_of_1d", {"60:9"}, {"2-d", "dims"});
  expectRejected("arange_beyond_int32", {"65:12"}, {"int32"});
  expectRejected("expand_dims_duplicate_axes", {"77:9"}, {"repeated axis", "duplicate"});
  expectRejected("permute_not_a_permutation", {"83:9"}, {"permutation"});
  expectRejected("split_last_dim_not_two", {"89:12"}, {"size 2", "== 2"});
  expectRejected("full_not_power_of_two", {"113:9"}, {"power of 2"});
}

TEST(CornerCaseErrors, MemoryOperandsMisuse) {
  expectRejected("block_stored_to_scalar_pointer", {"71:5"}, {"scalar"});
  expectRejected("store_mask_not_boolean", {"136:5"}, {"boolean"});
}

TEST(CornerCaseErrors, ControlFlowAndConstexprs) {
  // A number assigned before is an int32 tensor, so a float in one branch
  // cannot merge with it.
  expectRejected("number_then_float_in_if", {"142:5"}, {"mismatched type for 'v'"});
  expectRejected("static_range_runtime_bound", {"149:14", "149:5"}, {"constexpr"});
  expectRejected("dot_out_dtype_bf16", {"156:9"}, {"bfloat16", "bf16"});
}

TEST(CornerCaseErrors, TensorDescriptors) {
  expectRejected("descriptor_offsets_count", {"162:9"}, {"expected 2 offsets"});
  expectRejected("descriptor_last_stride", {"167:9"}, {"last stride must be 1"});
  expectRejected("descriptor_unknown_method", {"173:5"}, {"tensor_descriptor has no attribute 'prefetch'"});
}

// @triton.aggregate (Triton 3.8-3.9): constructors must set every field,
// objects are immutable once made (also inside a @jit method), constexpr
// fields take constexprs, and names, operators and arguments are checked.
TEST(CornerCaseErrors, Aggregates) {
  expectRejected("aggregate_unset_field", {"204:9"}, {"did not initialize field 'hi'"});
  expectRejected("aggregate_mutated", {"210:5"}, {"immutable once made"});
  expectRejected("aggregate_mutated_in_method", {"198:9"}, {"immutable once made"});
  expectRejected("aggregate_constexpr_field", {"215:9"}, {"field 'k' of duo is a tl.constexpr"});
  expectRejected("aggregate_unknown_attribute", {"221:21"}, {"'duo' has no attribute 'c'"});
  expectRejected("aggregate_no_operator", {"227:9"}, {"defines no __mul__"});
  expectRejected("aggregate_missing_argument", {"232:9"}, {"missing required argument 'b'"});
  expectRejected("aggregate_replace_unknown_field", {"237:9"}, {"duo has no field 'z'"});
  expectRejected("aggregate_jit_init", {"256:9"}, {"cannot be a @triton.jit function"});
}

TEST(CornerCaseErrors, MapElementwise) {
  expectRejected("map_elementwise_bad_pack", {"270:9"}, {"pack must be a power of 2"});
  expectRejected("map_elementwise_pack_results", {"276:9"}, {"returned 3 values, not a multiple of pack=2"});
}

}  // namespace
