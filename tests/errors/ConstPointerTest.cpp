//===- ConstPointerTest.cpp - Kernel parameters annotated `tl.const` -------===//
//
// Like Triton, a pointer parameter whose annotation mentions "const" (but is
// not a constexpr) is a const pointer: loads through it work, and a store or
// an atomic through it (or through a pointer computed from it) is a compile
// error located at the offending call.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace {

// Line numbers matter: the expected locations below refer to them.
const char* kSource = R"PY(import triton
import triton.language as tl


@triton.jit
def copy_scaled(x_ptr: tl.const, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)


@triton.jit
def store_to_const(x_ptr: tl.const, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(y_ptr + offs))


@triton.jit
def atomic_on_const(x_ptr, y_ptr: tl.const, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(y_ptr + offs, 1.0)


@triton.jit
def store_to_string_const(x_ptr: "const", y_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr, 1.0)


@triton.jit
def const_dtype_reported(x_ptr: tl.const, y_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(x_ptr.dtype.is_const())
    tl.static_assert(not y_ptr.dtype.is_const())
    tl.store(y_ptr, tl.load(x_ptr))
)PY";

std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const tessera::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected tessera::Error, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected tessera::Error, nothing was thrown";
  return "";
}

struct Launch {
  tessera::Device dev = tessera::Device::interpreter();
  tessera::Tensor x = dev.upload(std::vector<float>(64, 1.5f), {64});
  tessera::Tensor y = dev.zeros(tessera::DType::fp32, {64});

  void run(const std::string& name) {
    tessera::Program::from_source(kSource, "const_ptr.py")
        .kernel(name)
        .launch(dev, {1}, {x, y, int64_t(50)}, {{"BLOCK", int64_t(64)}});
  }
};

void expectConstError(const std::string& kernel, const std::string& location) {
  SCOPED_TRACE(kernel);
  Launch l;
  std::string msg = errorOf([&] { l.run(kernel); });
  if (msg.empty()) return;
  EXPECT_NE(msg.find(location + ":"), std::string::npos) << "expected " << location << " in:\n" << msg;
  EXPECT_NE(msg.find("constant pointer"), std::string::npos) << msg;
  // Nothing may have been written before the error.
  for (float v : l.x.download<float>()) ASSERT_EQ(v, 1.5f);
  for (float v : l.y.download<float>()) ASSERT_EQ(v, 0.0f);
}

TEST(ConstPointer, LoadsThroughAConstParameterWork) {
  Launch l;
  l.run("copy_scaled");
  auto y = l.y.download<float>();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(y[i], i < 50 ? 3.0f : 0.0f) << i;
}

TEST(ConstPointer, StoreThroughTlConstParameterIsAnError) {
  expectConstError("store_to_const", "const_ptr.py:15:5");
}

TEST(ConstPointer, AtomicThroughTlConstParameterIsAnError) {
  expectConstError("atomic_on_const", "const_ptr.py:21:5");
}

TEST(ConstPointer, StringConstAnnotationIsAnError) {
  expectConstError("store_to_string_const", "const_ptr.py:26:5");
}

TEST(ConstPointer, DtypeOfAConstParameterIsConst) {
  Launch l;
  l.run("const_dtype_reported");
  EXPECT_EQ(l.y.download<float>()[0], 1.5f);
}

}  // namespace
