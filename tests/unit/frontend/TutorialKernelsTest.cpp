//===- TutorialKernelsTest.cpp - The tutorial kernels compile to valid IR -===//

#include "TestUtil.h"

namespace tessera::frontend::test {
namespace {

const char* kHeader = "import triton\nimport triton.language as tl\n\n";

TEST(Tutorials, VectorAdd) {
  std::string src = std::string(kHeader) + R"(
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(out_ptr + offsets, output, mask=mask)
)";
  std::string ir = compileIR(src, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK_SIZE=1024");
  EXPECT_NE(ir.find("tt.func @add_kernel("), std::string::npos) << ir;
  EXPECT_NE(ir.find("kernel = true"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tt.get_program_id"), std::string::npos);
  EXPECT_NE(ir.find("tt.make_range"), std::string::npos);
  EXPECT_NE(ir.find("arith.muli"), std::string::npos);
  EXPECT_EQ(count(ir, "tt.addptr"), 3) << ir;
  EXPECT_EQ(count(ir, "tt.load"), 2);
  EXPECT_EQ(count(ir, "tt.store"), 1);
  EXPECT_NE(ir.find("arith.addf"), std::string::npos);
  EXPECT_NE(ir.find("arith.cmpi"), std::string::npos);
  EXPECT_NE(ir.find("slt"), std::string::npos);
  EXPECT_NE(ir.find("tensor<1024x!tt.ptr<f32>>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("%arg0: !tt.ptr<f32> {divisibility = 16}"), std::string::npos) << ir;
}

TEST(Tutorials, FusedSoftmax) {
  std::string src = std::string(kHeader) + R"(
@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)
)";
  std::string ir = compileIR(src, "softmax_kernel", "*fp32, *fp32, i32, i32, i32, i32, BLOCK_SIZE=256, num_stages=2");
  EXPECT_NE(ir.find("scf.for"), std::string::npos) << ir;
  EXPECT_NE(ir.find("num_stages = 2"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tt.call"), std::string::npos) << ir;
  EXPECT_NE(ir.find("tt.reduce"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.maxnumf"), std::string::npos) << ir;
  EXPECT_NE(ir.find("math.exp"), std::string::npos);
  EXPECT_NE(ir.find("arith.divf"), std::string::npos);
  EXPECT_NE(ir.find("value = -inf"), std::string::npos) << ir;
}

}  // namespace
}  // namespace tessera::frontend::test
